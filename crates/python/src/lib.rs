//! `bitlens._native`, the Python package's native module (PyO3, abi3 for Python >= 3.9).
//!
//! - [`Snapshot`]: RDB files loaded into one session (`bitlens.open`); `command` answers as the
//!   server that wrote them, its reply converted to the values redis-py returns on a RESP2
//!   connection without response callbacks (integer → `int`, bulk → `bytes`, status →
//!   `bytes`, null bulk / null array → `None`, array → `list`; an error reply raises
//!   `bitlens.ReplyError` with the server's text, inside an array it is a `ReplyError`
//!   instance, as redis-py leaves it); `inspect` and `info` give `bitlens inspect --json`'s
//!   document.
//! - [`Scan`]: the export schema's record batches of files ([`bitlens_export::Batches`]),
//!   each handed to pyarrow through the Arrow C data interface (`__arrow_c_array__`
//!   capsules, no copy through Python objects); `bitlens.scan` wraps them in a
//!   `pyarrow.RecordBatchReader`.
//!
//! Opening and decode errors raise a `bitlens.SnapshotError` subclass per stable code
//! ([`bitlens::open::CODES`]; `bitlens/_errors.py`), with `code`, `path`, `offset` and `key`.

use std::ffi::CStr;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use arrow::array::{Array, StructArray};
use arrow::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow::record_batch::RecordBatch;
use bitlens::dialect::Profile;
use bitlens::open::{describe_duplicate, load_threads, FileError, LoadSpec, OpenError, PYTHON};
use bitlens::rdb::{self, RdbError};
use bitlens::session::{Clock, Session};
use bitlens::Reply;
use bitlens_export::arrow;
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule, PyFloat, PyInt, PyList, PyString};

/// The exception of `code` (a [`bitlens::open::CODES`] code) for the file at `path`:
/// `bitlens._errors._make` picks its class (one per code, under `bitlens.SnapshotError`;
/// `FileNotFoundError` / `IsADirectoryError` ones for paths).
fn coded_error(
    py: Python<'_>,
    code: &str,
    message: String,
    path: &Path,
    offset: Option<u64>,
    key: Option<&[u8]>,
) -> PyErr {
    let make = || -> PyResult<PyErr> {
        let make = py.import("bitlens._errors")?.getattr("_make")?;
        let key = key.map(|k| PyBytes::new(py, k));
        let v = make.call1((code, message, path.display().to_string(), offset, key))?;
        Ok(PyErr::from_value(v))
    };
    make().unwrap_or_else(|err| err)
}

/// The exception for a decode error ([`coded_error`] of its [`RdbError::code`]), its text the
/// core's words plus the argument that removes the cause (`checksum=False`...).
fn snapshot_error(py: Python<'_>, path: &Path, e: &RdbError) -> PyErr {
    let message = format!("{}: {}", path.display(), PYTHON.error_text(e));
    coded_error(
        py,
        e.code(),
        message,
        path,
        Some(e.offset),
        e.key.as_deref(),
    )
}

/// The exception for a file that cannot be opened or read ([`coded_error`] of
/// [`bitlens::open::io_code`]: `SnapshotNotFoundError` for a missing path,
/// `SnapshotIsADirectoryError` for a directory, `NotARegularFileError` for a FIFO or device...);
/// offset None.
fn io_error(py: Python<'_>, path: &Path, e: &std::io::Error) -> PyErr {
    let message = format!("{}: {e}", path.display());
    coded_error(py, bitlens::open::io_code(e), message, path, None, None)
}

/// The exception for a file that could not be loaded ([`FileError::code`]), so that `open`
/// and `scan` raise the same.
fn file_error(py: Python<'_>, path: &Path, e: &FileError) -> PyErr {
    let message = format!("{}: {}", path.display(), e.text(&PYTHON));
    coded_error(py, e.code(), message, path, e.offset(), e.key())
}

fn scan_error(py: Python<'_>, e: &bitlens_export::ScanError) -> PyErr {
    match e {
        bitlens_export::ScanError::Rdb(p, e) => snapshot_error(py, p, e),
        bitlens_export::ScanError::Io(p, e) => io_error(py, p, e),
        bitlens_export::ScanError::Sink(m) => PyValueError::new_err(m.clone()),
    }
}

fn reply_error<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("bitlens._errors")?
        .getattr("ReplyError")?
        .call1((text,))
}

/// A reply as redis-py's RESP2 parser returns it (see the module docs).
fn to_py<'py>(py: Python<'py>, r: &Reply) -> PyResult<Bound<'py, PyAny>> {
    Ok(match r {
        Reply::Integer(n) => n.into_pyobject(py)?.into_any(),
        Reply::Bulk(b) => PyBytes::new(py, b).into_any(),
        Reply::Status(s) => PyBytes::new(py, s.as_bytes()).into_any(),
        Reply::NullBulk | Reply::NullArray => py.None().into_bound(py),
        Reply::Array(items) => {
            let list = PyList::empty(py);
            for i in items {
                list.append(to_py(py, i)?)?;
            }
            list.into_any()
        }
        Reply::Error(e) => reply_error(py, e)?,
    })
}

/// The RESP3 value at `bytes[*pos..]` (as [`bitlens::resp3`] writes it) as redis-py's
/// `_RESP3Parser` returns it without decoding: `+`/`$` bytes, `=` bytes after the 4-byte
/// format, `:`/`(` int, `,` float, `#` bool, `_` None, `*`/`~` list, `%` dict, `-` a
/// `ReplyError` instance (as an element; a top-level error never gets here).
fn resp3_to_py<'py>(py: Python<'py>, bytes: &[u8], pos: &mut usize) -> PyResult<Bound<'py, PyAny>> {
    let bad = || PyValueError::new_err("bitlens: malformed RESP3 reply (an internal error)");
    let rest = bytes.get(*pos..).ok_or_else(bad)?;
    let eol = rest.windows(2).position(|w| w == b"\r\n").ok_or_else(bad)?;
    let (kind, line) = (rest[0], &rest[1..eol]);
    let text = std::str::from_utf8(line).map_err(|_| bad())?;
    *pos += eol + 2;
    let count = || text.parse::<usize>().map_err(|_| bad());
    let mut blob = |skip: usize| -> PyResult<Bound<'py, PyAny>> {
        let n = count()?;
        let b = bytes.get(*pos..*pos + n).ok_or_else(bad)?;
        *pos += n + 2;
        Ok(PyBytes::new(py, b.get(skip..).unwrap_or_default()).into_any())
    };
    Ok(match kind {
        b'+' => PyBytes::new(py, line).into_any(),
        b'$' if text == "-1" => py.None().into_bound(py),
        b'$' => blob(0)?,
        b'=' => blob(4)?,
        b':' | b'(' => py.import("builtins")?.getattr("int")?.call1((text,))?,
        b',' => py.import("builtins")?.getattr("float")?.call1((text,))?,
        b'#' => pyo3::types::PyBool::new(py, line == b"t")
            .to_owned()
            .into_any(),
        b'_' => py.None().into_bound(py),
        b'-' => reply_error(py, text)?,
        b'*' if text == "-1" => py.None().into_bound(py),
        b'*' | b'~' => {
            let list = PyList::empty(py);
            for _ in 0..count()? {
                list.append(resp3_to_py(py, bytes, pos)?)?;
            }
            list.into_any()
        }
        b'%' => {
            let dict = pyo3::types::PyDict::new(py);
            for _ in 0..count()? {
                let k = resp3_to_py(py, bytes, pos)?;
                let v = resp3_to_py(py, bytes, pos)?;
                dict.set_item(k, v)?;
            }
            dict.into_any()
        }
        _ => return Err(bad()),
    })
}

/// One argument as redis-py encodes it: bytes as they are, str as UTF-8, int as its decimal
/// text, float as `repr`.
fn arg_bytes(a: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(b) = a.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(s) = a.cast::<PyString>() {
        return Ok(s.to_cow()?.as_bytes().to_vec());
    }
    if a.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(
            "Invalid input of type: 'bool'. Convert to a bytes, string, int or float first.",
        ));
    }
    if a.is_instance_of::<PyInt>() {
        return Ok(a.str()?.to_cow()?.as_bytes().to_vec());
    }
    if a.is_instance_of::<PyFloat>() {
        return Ok(a.repr()?.to_cow()?.as_bytes().to_vec());
    }
    if let Ok(b) = a.cast::<pyo3::types::PyByteArray>() {
        return Ok(b.to_vec());
    }
    Err(PyTypeError::new_err(format!(
        "Invalid input of type: '{}'. Convert to a bytes, string, int or float first.",
        a.get_type().name()?
    )))
}

fn parse_clock(clock: Option<&Bound<'_, PyAny>>) -> PyResult<Clock> {
    let Some(c) = clock else {
        return Ok(Clock::Snapshot);
    };
    if c.is_none() {
        return Ok(Clock::Snapshot);
    }
    if let Ok(ms) = c.extract::<i64>() {
        return Ok(Clock::At(ms));
    }
    let s: String = c.extract()?;
    Clock::parse(&s).map_err(|e| PyValueError::new_err(format!("clock: {e}")))
}

fn parse_compat(compat: Option<&str>) -> PyResult<Option<&'static Profile>> {
    compat
        .map(|name| Profile::parse(name).map_err(PyValueError::new_err))
        .transpose()
}

/// The exception for sources of `paths` that [`LoadSpec::open_paths`] could not open
/// ([`file_error`]), or `bitlens.DuplicateKeyError` (a `SnapshotError`) for a key found in
/// two of them.
fn open_error(py: Python<'_>, paths: &[PathBuf], e: &OpenError) -> PyErr {
    match e {
        OpenError::File(i, e) => file_error(py, &paths[*i], e),
        OpenError::Duplicate(d) => {
            let make = || -> PyResult<PyErr> {
                let cls = py.import("bitlens._errors")?.getattr("DuplicateKeyError")?;
                let v = cls.call1((
                    format!("{}; {}", describe_duplicate(d, paths), PYTHON.keep_one),
                    paths[d.first].display().to_string(),
                    paths[d.second].display().to_string(),
                    d.db,
                    PyBytes::new(py, &d.key),
                    d.count,
                ))?;
                Ok(PyErr::from_value(v))
            };
            make().unwrap_or_else(|err| err)
        }
    }
}

/// `warnings.warn(text)` (a `UserWarning`) for each of `warnings`, as the CLI prints them
/// (`bitlens: warning: …`).
fn warn_all(py: Python<'_>, warnings: &[String]) -> PyResult<()> {
    let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
    for w in warnings {
        let text = std::ffi::CString::new(w.replace('\0', "\\0"))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        PyErr::warn(py, &category, &text, 2)?;
    }
    Ok(())
}

/// RDB files loaded into one session (see the module docs).
#[pyclass(module = "bitlens", frozen)]
struct Snapshot {
    session: Mutex<Session>,
    paths: Vec<PathBuf>,
    compat: Option<&'static Profile>,
    clock: Clock,
    on_duplicate: rdb::OnDuplicate,
    checksum: bool,
}

#[pymethods]
impl Snapshot {
    /// `.command(name, *args, resp=2)`: the reply of the command on the snapshot, as
    /// redis-py's parser returns it with no response callbacks: on RESP2 (`resp=2`) or on
    /// RESP3 (`resp=3`: maps as dicts, doubles as floats, booleans, sets as lists, nulls as
    /// `None`, each command in its server's RESP3 shape). An error reply raises
    /// `ReplyError`.
    #[pyo3(signature = (*args, resp = 2))]
    fn command<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, pyo3::types::PyTuple>,
        resp: u8,
    ) -> PyResult<Bound<'py, PyAny>> {
        if resp != 2 && resp != 3 {
            return Err(PyValueError::new_err(format!(
                "resp must be 2 or 3, not {resp}"
            )));
        }
        if args.is_empty() {
            return Err(PyTypeError::new_err("command() needs the command name"));
        }
        let argv: Vec<Vec<u8>> = args
            .iter()
            .map(|a| arg_bytes(&a))
            .collect::<PyResult<_>>()?;
        let reply = py.detach(|| {
            self.session
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .execute(&argv)
        });
        match &reply {
            Reply::Error(e) => Err(PyErr::from_value(reply_error(py, e)?)),
            r if resp == 3 => {
                let bytes = bitlens::resp3::to_resp3(&argv, r);
                let mut pos = 0;
                resp3_to_py(py, &bytes, &mut pos)
            }
            r => to_py(py, r),
        }
    }

    /// `bitlens inspect --json` of the files, as a dict (for several files the union's report,
    /// with its `files` table). It reads the files again: it reports them as saved, not this
    /// session's later writes (a file rewritten since `open` is reported as it is now).
    #[pyo3(signature = (top = 20))]
    fn inspect<'py>(&self, py: Python<'py>, top: usize) -> PyResult<Bound<'py, PyAny>> {
        let docs = self.reports(py, top, |doc| doc)?;
        json_to_py(py, docs)
    }

    /// The file-level part of `bitlens inspect --json` (header, writer, aux fields, checksum,
    /// profile, clock, key and memory totals, per-database totals without their groups, and
    /// for several files the `files` table), as a dict.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let docs = self.reports(py, 0, |mut doc| {
            if let Some(o) = doc.as_object_mut() {
                o.retain(|k, _| INFO_FIELDS.contains(&k.as_str()));
                if let Some(serde_json::Value::Array(dbs)) = o.get_mut("databases") {
                    for d in dbs {
                        if let Some(d) = d.as_object_mut() {
                            d.remove("groups");
                        }
                    }
                }
            }
            doc
        })?;
        json_to_py(py, docs)
    }

    fn __repr__(&self) -> String {
        format!(
            "bitlens.Snapshot({})",
            self.paths
                .iter()
                .map(|p| format!("{:?}", p.display().to_string()))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// The fields of the inspect document [`Snapshot::info`] keeps.
const INFO_FIELDS: [&str; 17] = [
    "schema_version",
    "version",
    "writer",
    "module_aux",
    "aux",
    "stored_checksum",
    "checksum_verified",
    "file_bytes",
    "profile",
    "clock_ms",
    "allocator",
    "file_keys",
    "file_databases",
    "keys",
    "memory",
    "databases",
    "files",
];

/// A JSON document as Python values (through `json.loads`, so exactly the CLI's JSON).
fn json_to_py(py: Python<'_>, doc: serde_json::Value) -> PyResult<Bound<'_, PyAny>> {
    py.import("json")?.call_method1("loads", (doc.to_string(),))
}

impl Snapshot {
    /// The inspect report of the files as JSON, passed through `f`: `bitlens inspect FILE
    /// --json`, or for several files `bitlens inspect A B … --json` (the union, with its
    /// `files` table, duplicates decided as `open` decided them).
    fn reports(
        &self,
        py: Python<'_>,
        top: usize,
        f: impl Fn(serde_json::Value) -> serde_json::Value,
    ) -> PyResult<serde_json::Value> {
        use bitlens_views::inspect::FilesError;
        let opts = bitlens_views::inspect::Options {
            compat: self.compat,
            clock: self.clock,
            verify_checksum: self.checksum,
            top,
            ..Default::default()
        };
        let paths = &self.paths;
        let r = py.detach(|| bitlens_views::inspect::report_files(paths, &opts, self.on_duplicate));
        let r = r.map_err(|e| match e {
            FilesError::File(i, e) => file_error(py, &paths[i], &e.into()),
            FilesError::Duplicate(d) => open_error(py, paths, &OpenError::Duplicate(d)),
            FilesError::Io(e) => PyOSError::new_err(format!("inspect spill (temporary file): {e}")),
        })?;
        Ok(f(r.to_json()))
    }
}

/// `bitlens.open(*paths, compat=None, clock=None, on_duplicate="error", checksum=True)`: the
/// RDB files (paths as str, bytes or os.PathLike) as
/// one snapshot, loaded at once on every core, as `bitlens query --rdb A --rdb B` builds it
/// ([`rdb::union`]: every database of every file; a key in two files raises
/// `DuplicateKeyError` unless `on_duplicate` is `"first"` or `"last"`). The profile is
/// `compat` (whose loader's refusals then apply) or the first file's writer; the clock
/// `snapshot` (the first file's ctime), `now`, or Unix ms; `checksum=False` skips the CRC-64
/// check (as `--no-checksum`).
#[pyfunction]
#[pyo3(signature = (*paths, compat = None, clock = None, on_duplicate = "error", checksum = true))]
fn open(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    compat: Option<&str>,
    clock: Option<&Bound<'_, PyAny>>,
    on_duplicate: &str,
    checksum: bool,
) -> PyResult<Snapshot> {
    if paths.is_empty() {
        return Err(PyTypeError::new_err("open() needs at least one path"));
    }
    let compat = parse_compat(compat)?;
    let clock = parse_clock(clock)?;
    let on: rdb::OnDuplicate = on_duplicate
        .parse()
        .map_err(|e| PyValueError::new_err(format!("on_duplicate: {e}")))?;
    // With compat, refuse what that server's loader refuses (as `bitlens query --compat`).
    let spec = LoadSpec {
        threads: load_threads(),
        compat,
        clock,
        on_duplicate: on,
        verify_checksum: checksum,
        names: paths.iter().map(|p| p.display().to_string()).collect(),
        ..Default::default()
    };
    let loaded = py.detach(|| {
        spec.open_paths(&paths).map(|mut l| {
            bitlens_views::memory::give_memory_usage(&mut l, None);
            l
        })
    });
    let loaded = loaded.map_err(|e| open_error(py, &paths, &e))?;
    warn_all(py, &loaded.warnings)?;
    let session = loaded.session;
    Ok(Snapshot {
        session: Mutex::new(session),
        paths,
        compat,
        clock,
        on_duplicate: on,
        checksum,
    })
}

/// One record batch, handed over through the Arrow C data interface.
#[pyclass(module = "bitlens", frozen)]
struct Batch(RecordBatch);

const SCHEMA_CAPSULE: &CStr = c"arrow_schema";
const ARRAY_CAPSULE: &CStr = c"arrow_array";

#[pymethods]
impl Batch {
    /// The Arrow PyCapsule interface: (schema capsule, array capsule) of a struct array.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        let _ = requested_schema;
        let schema = FFI_ArrowSchema::try_from(self.0.schema().as_ref())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let data = StructArray::from(self.0.clone()).into_data();
        let array = FFI_ArrowArray::new(&data);
        Ok((
            PyCapsule::new_with_value(py, schema, SCHEMA_CAPSULE)?,
            PyCapsule::new_with_value(py, array, ARRAY_CAPSULE)?,
        ))
    }
}

/// The export schema, through the Arrow PyCapsule interface.
#[pyclass(module = "bitlens", frozen)]
struct ExportSchema;

#[pymethods]
impl ExportSchema {
    #[new]
    fn new() -> Self {
        ExportSchema
    }

    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let schema = FFI_ArrowSchema::try_from(bitlens_export::schema().as_ref())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        PyCapsule::new_with_value(py, schema, SCHEMA_CAPSULE)
    }
}

/// The record batches of files (see [`bitlens_export::Batches`]); an iterator of [`Batch`].
#[pyclass(module = "bitlens", frozen)]
struct Scan(Mutex<bitlens_export::Batches>);

#[pymethods]
impl Scan {
    /// Starts scanning; the files' starts are read first, so that a file that is not an RDB
    /// snapshot raises here.
    #[new]
    #[pyo3(signature = (paths, cluster = "default".to_string(), batch = None, instance = None, batch_rows = bitlens_export::scan::DEFAULT_BATCH_ROWS, instance_from = "auto", patterns = Vec::new(), db = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        paths: Vec<PathBuf>,
        cluster: String,
        batch: Option<String>,
        instance: Option<String>,
        batch_rows: usize,
        instance_from: &str,
        patterns: Vec<Vec<u8>>,
        db: Option<u64>,
    ) -> PyResult<Scan> {
        let from = bitlens_export::InstanceFrom::parse(instance_from)
            .map_err(|e| PyValueError::new_err(e.replace("--instance-from", "instance_from")))?;
        let names = bitlens_export::instance_names(&paths, from);
        let opts = bitlens_export::ScanOptions {
            cluster,
            batch,
            instance,
            batch_rows,
            patterns,
            db,
            ..Default::default()
        };
        // Each file opened once (a FIFO or a device refused, a file that is no RDB file
        // refused as `open` refuses it), every pass reading that handle.
        let mut sources = Vec::with_capacity(paths.len());
        for p in &paths {
            let mut file = bitlens::open::open_input(p).map_err(|e| io_error(py, p, &e))?;
            match bitlens::open::diagnose(&mut file) {
                Ok(None) => {}
                Ok(Some(why)) => return Err(file_error(py, p, &FileError::WrongKind(why))),
                Err(e) => return Err(io_error(py, p, &e)),
            }
            let src =
                bitlens_export::Source::new(p, file).with_instance(names[sources.len()].clone());
            bitlens_export::scan::partition(&src, &opts).map_err(|e| scan_error(py, &e))?;
            sources.push(src);
        }
        // One file given twice would give every key twice under one partition: refused with
        // the error `open` gives it (the key, its database and the count from the two files).
        if let Some((i, j)) = bitlens::open::repeated_pair(&paths) {
            let pair = [paths[i].clone(), paths[j].clone()];
            let names = rdb::LoadOptions {
                skip_values: true,
                threads: load_threads(),
                ..Default::default()
            };
            let r = py.detach(|| {
                bitlens_views::overlap::visit_files(&pair, &names, rdb::OnDuplicate::Error, |_| {
                    Ok(())
                })
            });
            match r {
                Ok(()) => {}
                Err(OpenError::Duplicate(mut d)) => {
                    (d.first, d.second) = (i, j);
                    return Err(open_error(py, &paths, &OpenError::Duplicate(d)));
                }
                Err(OpenError::File(k, e)) => return Err(file_error(py, &pair[k], &e)),
            }
        }
        Ok(Scan(Mutex::new(bitlens_export::Batches::new(
            sources, opts,
        ))))
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Batch>> {
        let next = py.detach(|| {
            self.0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .next_batch()
        });
        match next {
            None => Ok(None),
            Some(Ok(b)) => Ok(Some(Batch(b))),
            Some(Err(e)) => Err(scan_error(py, &e)),
        }
    }
}

/// A read-only Redis server over snapshot files, without a network ([`bitlens::server`]):
/// `bitlens.redis()` runs its connections over socket pairs for redis-py.
#[pyclass(module = "bitlens", frozen)]
struct RespServer(std::sync::Arc<bitlens::server::Server>);

/// One connection of a [`RespServer`]: bytes from the client in, reply bytes out.
#[pyclass(module = "bitlens", frozen)]
struct RespConnection {
    server: std::sync::Arc<bitlens::server::Server>,
    conn: Mutex<bitlens::server::Connection>,
}

#[pymethods]
impl RespServer {
    /// A new connection (`addr` is what CLIENT LIST shows).
    #[pyo3(signature = (addr = "in-process".to_string()))]
    fn connect(&self, addr: String) -> RespConnection {
        RespConnection {
            conn: Mutex::new(bitlens::server::Connection::new(&self.0, addr, 512 << 20)),
            server: self.0.clone(),
        }
    }
}

#[pymethods]
impl RespConnection {
    /// Takes bytes from the client; returns the replies of the requests they complete and
    /// whether to close the connection after them (QUIT, a protocol error).
    fn feed<'py>(&self, py: Python<'py>, data: &[u8]) -> (Bound<'py, PyBytes>, bool) {
        let fed = py.detach(|| {
            self.conn
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .feed(&self.server, data)
        });
        (PyBytes::new(py, &fed.out), fed.close)
    }
}

/// The files `paths` opened as [`open`] opens them, served by a [`RespServer`].
#[pyfunction]
#[pyo3(signature = (*paths, compat = None, clock = None, on_duplicate = "error", checksum = true, requirepass = None))]
fn resp_server(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    compat: Option<&str>,
    clock: Option<&Bound<'_, PyAny>>,
    on_duplicate: &str,
    checksum: bool,
    requirepass: Option<String>,
) -> PyResult<RespServer> {
    let snap = open(py, paths.clone(), compat, clock, on_duplicate, checksum)?;
    let session = snap.session.into_inner().unwrap_or_else(|e| e.into_inner());
    let writer = bitlens::open::file_writer(&paths[0]);
    let server = bitlens::server::Server::new(
        session,
        bitlens::server::ServerOptions {
            requirepass,
            port: 0,
            files: paths.len(),
            writer,
            // No limit of its own: Redis' default, as INFO shows it.
            maxclients: 10_000,
        },
    );
    Ok(RespServer(std::sync::Arc::new(server)))
}

/// The `instance` names `bitlens export` gives `paths` under `instance_from` (`auto`: the
/// file name, or the folder where file names collide; `file`; `parent`).
#[pyfunction]
#[pyo3(signature = (paths, instance_from = "auto"))]
fn instance_names(paths: Vec<PathBuf>, instance_from: &str) -> PyResult<Vec<String>> {
    let from = bitlens_export::InstanceFrom::parse(instance_from)
        .map_err(|e| PyValueError::new_err(e.replace("--instance-from", "instance_from")))?;
    Ok(bitlens_export::instance_names(&paths, from))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(instance_names, m)?)?;
    m.add_class::<RespServer>()?;
    m.add_class::<RespConnection>()?;
    m.add_function(wrap_pyfunction!(resp_server, m)?)?;
    m.add_class::<Snapshot>()?;
    m.add_class::<Batch>()?;
    m.add_class::<ExportSchema>()?;
    m.add_class::<Scan>()?;
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add("SCHEMA_VERSION", bitlens_export::SCHEMA_VERSION)?;
    Ok(())
}
