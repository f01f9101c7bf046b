//! Snapshot files on a file system (the `fs` feature): every path any front end reads is
//! opened through one check ([`open_input`]: a regular file only, or `/dev/null`; a FIFO,
//! socket or device is refused at once, never waited on or read without end; a directory is
//! an [`std::io::ErrorKind::IsADirectory`] error). An RDB file (it starts with `REDIS` or
//! `VALKEY`) is read in windows of [`FILE_CHUNK`] bytes per decoding thread through the
//! chunked reader, never whole, so peak memory is one window plus the records being decoded
//! (plus what the caller keeps). Of anything else the first 64 MiB are handed to the slice
//! reader, whose error names what the bytes are ([`wrong_kind`]). Values are bounded by
//! [`crate::rdb::LoadOptions::max_value_bytes`].

use super::{wrong_kind, FILE_CHUNK};
use crate::rdb::{self, Header, LoadOptions, Progress, RdbError, Record};
use std::path::Path;

/// Threads a snapshot is decoded on: the size of the current rayon pool, which `bitlens
/// --threads N` sets for the whole process (default: every core). 1 decodes on the calling
/// thread alone. Output is the same whatever the count ([`LoadOptions::threads`]).
pub fn load_threads() -> usize {
    #[cfg(not(target_arch = "wasm32"))]
    return rayon::current_num_threads();
    #[cfg(target_arch = "wasm32")]
    1
}

/// Bytes an RDB file is read at a time: [`FILE_CHUNK`] per decoding thread, so that a window
/// holds records for every thread ([`load_threads`]).
pub fn file_window() -> usize {
    FILE_CHUNK * load_threads()
}

/// Opens the file at `path` for reading: the one check of every input the CLI and its front
/// ends read (snapshots, DUMP payloads, `--string` and `--roaring` files). Only a regular
/// file (or `/dev/null`, an empty input) is opened: a directory, a FIFO or pipe (whose `open()` waits for a writer), a socket
/// or a device (`/dev/zero` never ends) is refused at once with an
/// [`std::io::ErrorKind::InvalidInput`] error saying so ([`std::io::ErrorKind::IsADirectory`] for a directory), judged from the path's metadata
/// before opening; the file is then opened non-blocking (on Unix) and its handle checked
/// again, so that a FIFO swapped in between cannot block either. Errors: the path's own I/O
/// error (missing, no permission), or that refusal.
pub fn open_input(path: &Path) -> std::io::Result<std::fs::File> {
    regular(&std::fs::metadata(path)?)?;
    let file = open_nonblocking(path)?;
    regular(&file.metadata()?)?;
    Ok(file)
}

/// `Ok` for a regular file's metadata (or the null device's: `/dev/null`, which reads as an
/// empty file), else the refusal [`open_input`] gives.
fn regular(meta: &std::fs::Metadata) -> std::io::Result<()> {
    if meta.is_file() || is_null_device(meta) {
        return Ok(());
    }
    if meta.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "a directory, not a file",
        ));
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        NotRegularFile,
    ))
}

/// [`open_input`]'s refusal of a FIFO, pipe, socket or device (the payload of its
/// [`std::io::ErrorKind::InvalidInput`] error; [`super::io_code`] reads it as
/// `not-a-regular-file`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotRegularFile;

impl std::fmt::Display for NotRegularFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a regular file (a pipe, FIFO, socket or device): save it to a file first")
    }
}

impl std::error::Error for NotRegularFile {}

/// Whether `meta` is the null device's (the character device `/dev/null` is), whose reads
/// end at once: read as an empty file, as an empty input has always been given.
fn is_null_device(meta: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
        meta.file_type().is_char_device()
            && std::fs::metadata("/dev/null").is_ok_and(|null| null.rdev() == meta.rdev())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

/// Opens `path` read-only without waiting: on Unix with `O_NONBLOCK`, which makes `open()` of
/// a FIFO return at once (and changes nothing for a regular file).
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        o.custom_flags(libc::O_NONBLOCK);
    }
    o.open(path)
}

/// The whole file at `path` ([`open_input`]'s check first), refused without being read when it
/// holds more than `max` bytes (one value: `--string`, `--roaring`, `--dump` files are held
/// whole), with an [`std::io::ErrorKind::InvalidData`] error naming both sizes.
pub fn read_input(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    let file = open_input(path)?;
    let too_long = |n: u64| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "{n} bytes, longer than the limit on one value ({max} bytes); \
                 --max-value-bytes raises it"
            ),
        )
    };
    let len = file.metadata()?.len();
    if len > max {
        return Err(too_long(len));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    // (Bounded again while reading: the file may grow.)
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_long(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Bytes of a file that does not start with an RDB magic read for [`wrong_kind`]'s diagnosis
/// (64 MiB): the reader's own error on it needs only its first bytes.
const DIAGNOSED_BYTES: u64 = 64 << 20;

/// A snapshot file, opened once ([`open_input`]).
#[derive(Debug)]
pub enum Opened {
    /// It starts with an RDB magic (`REDIS` / `VALKEY`): the handle, for the chunked reader.
    Rdb(std::fs::File),
    /// Anything else (empty, a DUMP payload, raw bytes): its first [`DIAGNOSED_BYTES`] bytes,
    /// for [`wrong_kind`] and the reader's error.
    Other(Vec<u8>),
}

/// Opens the file at `path` ([`open_input`]) and tells an RDB file from anything else by its
/// first bytes (see [`Opened`]).
pub fn open_snapshot(path: &Path) -> std::io::Result<Opened> {
    let mut file = open_input(path)?;
    let head = read_at_start(&mut file, 6)?;
    if head.starts_with(b"REDIS") || head.starts_with(b"VALKEY") {
        return Ok(Opened::Rdb(file));
    }
    Ok(Opened::Other(read_at_start(&mut file, DIAGNOSED_BYTES)?))
}

/// [`refuse_non_rdb`] of a file already opened ([`open_input`]): why it cannot be read as an
/// RDB snapshot, judged from its first bytes (`None` when it may be one); the handle is left
/// for the reader (which reads at offsets, not from its position).
pub fn diagnose(file: &mut std::fs::File) -> std::io::Result<Option<rdb::WrongKind>> {
    let head = read_at_start(file, 6)?;
    if head.starts_with(b"REDIS") || head.starts_with(b"VALKEY") {
        return Ok(None);
    }
    Ok(wrong_kind(&read_at_start(file, DIAGNOSED_BYTES)?, "--rdb"))
}

/// The first `n` bytes (fewer when the file is shorter) of `file`, read from its start.
fn read_at_start(file: &mut std::fs::File, n: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Read as _, Seek as _};
    file.rewind()?;
    let mut head = Vec::new();
    file.take(n).read_to_end(&mut head)?;
    Ok(head)
}

/// Why the file at `path` cannot be read as an RDB snapshot, judged before reading it
/// ([`wrong_kind`] of a file that does not start with an RDB magic; an RDB file is not
/// read here): `Ok(None)` when it may be one.
pub fn refuse_non_rdb(path: &Path) -> std::io::Result<Option<rdb::WrongKind>> {
    diagnose(&mut open_input(path)?)
}

/// Why [`visit_file`] stopped.
#[derive(Debug)]
pub enum VisitError {
    /// The file could not be opened or read.
    Io(std::io::Error),
    /// The snapshot is bad (offset and kind inside), or `f` returned an error.
    Rdb(RdbError),
}

impl std::fmt::Display for VisitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VisitError::Io(e) => e.fmt(f),
            VisitError::Rdb(e) => f.write_str(&super::CLI.error_text(e)),
        }
    }
}

/// Parses a size in bytes as Redis' configuration writes one (`proto-max-bulk-len 512mb`):
/// a whole number, optionally followed by `k`, `m` or `g` (10^3, 10^6, 10^9) or `kb`, `mb`,
/// `gb` (2^10, 2^20, 2^30), any case (`--max-value-bytes 2gb`).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim().to_ascii_lowercase();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let scale: u64 = match unit {
        "" | "b" => 1,
        "k" => 1_000,
        "kb" => 1 << 10,
        "m" => 1_000_000,
        "mb" => 1 << 20,
        "g" => 1_000_000_000,
        "gb" => 1 << 30,
        _ => {
            return Err(format!(
                "{s:?}: a number of bytes, e.g. 536870912, 512mb or 2gb"
            ))
        }
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| format!("{s:?}: a number of bytes, e.g. 536870912, 512mb or 2gb"))
}

impl VisitError {
    /// A [`super::FileError`] as a visit's error (a file of the wrong kind is the reader's
    /// [`rdb::RdbErrorKind::UnsupportedVersion`] at offset 0, as visiting it reports).
    pub fn from_file(e: super::FileError) -> VisitError {
        match e {
            super::FileError::Io(e) => VisitError::Io(e),
            super::FileError::Rdb(e) => VisitError::Rdb(e),
            super::FileError::WrongKind(why) => {
                VisitError::Rdb(RdbError::new(0, rdb::ErrorDetail::NotRdb(why)))
            }
        }
    }
}

impl From<VisitError> for super::FileError {
    fn from(e: VisitError) -> Self {
        match e {
            VisitError::Io(e) => super::FileError::Io(e),
            VisitError::Rdb(e) => super::FileError::Rdb(e),
        }
    }
}

/// [`rdb::visit_rdb_progress`] over the file at `path` (see the module docs), with the file's
/// size in bytes: `f` sees every key record in file order.
pub fn visit_file<F>(
    path: &Path,
    opts: &LoadOptions,
    progress: Progress<'_>,
    mut f: F,
) -> Result<(Header, u64), VisitError>
where
    F: for<'r> FnMut(Record<'r>) -> Result<(), RdbError>,
{
    match open_snapshot(path).map_err(VisitError::Io)? {
        Opened::Rdb(mut file) => {
            let size = file.metadata().map_err(VisitError::Io)?.len();
            rdb::visit_rdb_chunked(&mut file, file_window(), opts, progress, &mut f)
                .map(|h| (h, size))
                .map_err(VisitError::Rdb)
        }
        Opened::Other(bytes) => {
            // An empty file or a DUMP payload is said so, as `open` says it.
            let bytes = diagnosed(bytes).map_err(VisitError::from_file)?;
            rdb::visit_rdb_progress(&bytes, opts, progress, &mut f)
                .map(|h| (h, bytes.len() as u64))
                .map_err(VisitError::Rdb)
        }
    }
}

/// The whole snapshot in the file at `path` (see the module docs: an RDB file goes through
/// the chunked reader in [`file_window`]s on the current pool, so peak memory is the decoded
/// snapshot plus one window; anything else is read whole for [`wrong_kind`]'s diagnosis).
pub fn load_file(path: &Path, opts: &LoadOptions) -> Result<rdb::Snapshot, super::FileError> {
    use super::FileError as LoadError;
    match open_snapshot(path).map_err(LoadError::Io)? {
        Opened::Rdb(mut file) => {
            rdb::load_rdb_chunked(&mut file, file_window(), opts, &mut |_, _| Ok(()))
                .map_err(LoadError::Rdb)
        }
        Opened::Other(bytes) => rdb::load_rdb(&diagnosed(bytes)?, opts).map_err(LoadError::Rdb),
    }
}

/// The bytes of a file [`open_snapshot`] did not recognise, for the reader's own error, or
/// [`wrong_kind`]'s diagnosis of them.
fn diagnosed(bytes: Vec<u8>) -> Result<Vec<u8>, super::FileError> {
    use super::FileError as LoadError;
    match wrong_kind(&bytes, "--rdb") {
        Some(why) => Err(LoadError::WrongKind(why)),
        None => Ok(bytes),
    }
}

/// `key K of database D is in both A and B` (` (N copies of keys repeat an earlier file's)`,
/// and `: the same file, given twice` when both paths name one file): the words every front
/// end gives a [`rdb::DuplicateKey`] of the files at `paths`.
pub fn describe_duplicate(d: &rdb::DuplicateKey, paths: &[std::path::PathBuf]) -> String {
    let text = d.describe(|i| path_display(&paths[i]));
    if same_file(&paths[d.first], &paths[d.second]) {
        format!("{text}: the same file, given twice")
    } else {
        text
    }
}

/// A path for a message: escaped as key names are ([`crate::escape::display`]), so that a
/// control byte in a file name cannot reach the terminal.
pub fn path_display(p: &Path) -> String {
    crate::escape::display(p.as_os_str().as_encoded_bytes())
}

/// `f(i, path)` for every file of `paths`, at most [`load_threads`] files at once (each
/// decoding on the shared pool), results in the order given. On errors, the first file's in
/// the order given is returned with its index, whatever thread finished first; files after a
/// failed one are not started.
pub fn per_file<T: Send, E: Send>(
    paths: &[std::path::PathBuf],
    f: impl Fn(usize, &Path) -> Result<T, E> + Sync,
) -> Result<Vec<T>, (usize, E)> {
    per_file_at_most(load_threads(), paths, f)
}

/// Files [`per_file`] reads at once for a pass decoding values under `opts`: a core's worth
/// ([`load_threads`]), or one at a time when `opts` allows strings longer than Redis' own
/// limit ([`rdb::DEFAULT_MAX_VALUE_BYTES`], `--max-value-bytes` raised), so that such values
/// of several files are not held at once.
pub fn file_workers(opts: &LoadOptions) -> usize {
    if opts.max_value_bytes > rdb::DEFAULT_MAX_VALUE_BYTES && !opts.skip_values {
        1
    } else {
        load_threads()
    }
}

/// [`per_file`] with at most `workers` files at once.
pub fn per_file_at_most<T: Send, E: Send>(
    workers: usize,
    paths: &[std::path::PathBuf],
    f: impl Fn(usize, &Path) -> Result<T, E> + Sync,
) -> Result<Vec<T>, (usize, E)> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let workers = workers.clamp(1, paths.len().max(1));
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Result<T, E>>>> = paths.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(p) = paths.get(i) else { break };
                let r = f(i, p);
                let failed = r.is_err();
                *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
                if failed {
                    // Files after this one are not needed for the error; earlier ones are
                    // finished by the other workers (the first error in order wins).
                    next.fetch_max(paths.len(), Ordering::Relaxed);
                }
            });
        }
    });
    let mut out = Vec::with_capacity(paths.len());
    for (i, m) in slots.into_iter().enumerate() {
        match m.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(Ok(t)) => out.push(t),
            Some(Err(e)) => return Err((i, e)),
            // Not started after an earlier file's error, which was returned above.
            None => unreachable!("a file before {i} failed and returned"),
        }
    }
    Ok(out)
}

/// Whether `a` and `b` name one file (the same device and inode: a path given twice, a
/// symbolic or hard link); false when either cannot be read.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        #[cfg(unix)]
        (Ok(x), Ok(y)) => {
            use std::os::unix::fs::MetadataExt as _;
            (x.dev(), x.ino()) == (y.dev(), y.ino())
        }
        #[cfg(not(unix))]
        (Ok(_), Ok(_)) => matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        ),
        _ => false,
    }
}

/// A warning when one file is given more than once among `paths` (`A is given twice (as A
/// and B)`), for the commands that keep one entry of each repeated key (`--on-duplicate
/// first|last`), where every key of such a file repeats; `None` when every path names its own
/// file.
pub fn repeated_file(paths: &[std::path::PathBuf]) -> Option<String> {
    let (i, j) = repeated_pair(paths)?;
    let (a, b) = (&paths[i], &paths[j]);
    Some(if a == b {
        format!("{} is given twice", path_display(a))
    } else {
        format!(
            "{} and {} are the same file",
            path_display(a),
            path_display(b)
        )
    })
}

/// The first pair of indices `(i, j)`, `i < j`, of `paths` naming one file ([`same_file`]),
/// by the later index; `None` when every path names its own file.
pub fn repeated_pair(paths: &[std::path::PathBuf]) -> Option<(usize, usize)> {
    for (j, b) in paths.iter().enumerate().skip(1) {
        if let Some(i) = paths[..j].iter().position(|a| same_file(a, b)) {
            return Some((i, j));
        }
    }
    None
}

/// When the files at `paths` were written by different servers or versions: `the files'
/// writers differ: W1 (A and N more), W2 (B)`, each writer with the first file it wrote and
/// how many more; the caller says what follows from it. `None` when they agree, or when a
/// file's header cannot be read (its load reports that).
pub fn mixed_writers(paths: &[std::path::PathBuf]) -> Option<String> {
    let writers = paths
        .iter()
        .map(|p| file_writer(p).map(|w| w.describe()))
        .collect::<Option<Vec<String>>>()?;
    let named: Vec<(String, String)> = paths.iter().map(|p| path_display(p)).zip(writers).collect();
    super::mixed_writers_of(&named)
}

/// The writer of the RDB file at `path` (format, `redis-ver`/`valkey-ver`, `used-mem`), from
/// its first [`super::HEAD_BYTES`]; `None` when it cannot be read or is no RDB file (its load
/// says why).
pub fn file_writer(path: &Path) -> Option<rdb::Writer> {
    use std::io::Read as _;
    let mut head = Vec::new();
    open_input(path)
        .ok()?
        .take(super::HEAD_BYTES as u64)
        .read_to_end(&mut head)
        .ok()?;
    rdb::identify(&head).writer
}
