//! One snapshot file as record batches of the export schema.
//!
//! The file is opened once, by the caller ([`Source`]), and every pass reads that handle at
//! offsets: its start first ([`peek_file`]: the format and the aux fields, which give the
//! writer's profile, and so the memory model, and the `ctime` batch value), then the rows, in
//! one pass: the core's chunked reader walks it in windows of [`CHUNK`] bytes; each key's
//! value is decoded, turned into its row (the same per-key code as `inspect`:
//! [`KeyRow::set_priced`], [`bitlens_views::classify::figures`]) and dropped. Rows are handed
//! on in batches of [`ScanOptions::batch_rows`], so memory is one window, one value and one
//! batch. When the allocator is to be inferred from a `used-mem` field, the same pass prices
//! every key under every candidate ([`Pricing`], as `inspect` does) and the rows wait in
//! `inspect`'s [`Spill`] (memory up to [`spill::DEFAULT_BUDGET`], then a temporary file),
//! each with its memory under every candidate, until the inference settles; they are then
//! read back as the inferred allocator's, the same rows as with that allocator named.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc};

use arrow::datatypes::SchemaRef;
use arrow::error::ArrowError;
use arrow::record_batch::{RecordBatch, RecordBatchReader};
use bitlens::dialect::Profile;
use bitlens::rdb::{AuxFields, ErrorDetail, Format, Header, LoadOptions, RdbError};
use bitlens_views::inspect::spill::{self, KeyStats, RecordFacts, Spill};
use bitlens_views::memory::{Allocator, Pricing};
use bitlens_views::report::KeyRow;

use crate::schema::{BatchBuilder, KeyRecord, PartitionValues};

/// Bytes of the file the chunked reader holds at a time (8 MiB).
pub const CHUNK: usize = 8 << 20;

/// Rows per record batch unless [`ScanOptions::batch_rows`] says otherwise.
pub const DEFAULT_BATCH_ROWS: usize = 65_536;

/// How to scan.
#[derive(Debug, Clone)]
pub struct ScanOptions {
    /// The `cluster` column (default `default`).
    pub cluster: String,
    /// The `batch` column; `None`: the snapshot's `ctime` (Unix seconds as written), or
    /// `unknown` when it has none.
    pub batch: Option<String>,
    /// The `instance` column; `None`: the source's own ([`Source::instance`]), else the file
    /// name.
    pub instance: Option<String>,
    /// Only keys matching one of these globs (KEYS rules), when any: the others' values are
    /// skipped unread, as `bitlens query --match` skips them.
    pub patterns: Vec<Vec<u8>>,
    /// Only this database's keys, when given.
    pub db: Option<u64>,
    /// The allocator the memory is estimated for (as `inspect --allocator`); `None`: the one
    /// inferred from the file's `used-mem`, as `inspect` infers it, in the same pass
    /// ([`Pricing`]; see the module docs).
    pub allocator: Option<Allocator>,
    /// Verify the CRC-64 trailer.
    pub verify_checksum: bool,
    /// Most rows per record batch (at least 1).
    pub batch_rows: usize,
    /// The longest string read from the snapshot, bytes
    /// ([`bitlens::rdb::LoadOptions::max_value_bytes`]; default
    /// [`bitlens::rdb::DEFAULT_MAX_VALUE_BYTES`]).
    pub max_value_bytes: u64,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            cluster: "default".into(),
            batch: None,
            instance: None,
            patterns: Vec::new(),
            db: None,
            allocator: None,
            verify_checksum: true,
            batch_rows: DEFAULT_BATCH_ROWS,
            max_value_bytes: bitlens::rdb::DEFAULT_MAX_VALUE_BYTES,
        }
    }
}

/// Why a scan stopped.
#[derive(Debug)]
pub enum ScanError {
    /// The file could not be opened or read.
    Io(PathBuf, std::io::Error),
    /// The snapshot is bad: kind, offset, key inside.
    Rdb(PathBuf, RdbError),
    /// The consumer of the batches failed (a write error, a closed reader).
    Sink(String),
}

impl std::fmt::Display for ScanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScanError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            ScanError::Rdb(p, e) => write!(f, "{}: {e}", p.display()),
            ScanError::Sink(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for ScanError {}

/// A snapshot file to export, opened once by the caller (the CLI and the Python package open
/// it with `bitlens::open::open_input`, which refuses a FIFO or a device): every pass
/// over it reads this handle at offsets and never opens the path again, so a file deleted or
/// replaced while it is exported is read whole as it was when opened.
#[derive(Debug, Clone)]
pub struct Source {
    /// The path as given (the default `instance`, messages).
    pub path: PathBuf,
    /// The open file, shared by the passes.
    pub file: Arc<File>,
    /// This file's `instance` when [`ScanOptions::instance`] names none (a fleet's files
    /// named together: [`crate::write::instance_names`]); `None`: the file name.
    pub instance: Option<String>,
}

impl Source {
    /// The file `file`, opened from `path`.
    pub fn new(path: impl Into<PathBuf>, file: File) -> Source {
        Source {
            path: path.into(),
            file: Arc::new(file),
            instance: None,
        }
    }

    /// The same source, its instance named `name` (see [`Source::instance`]).
    pub fn with_instance(mut self, name: String) -> Source {
        self.instance = Some(name);
        self
    }
}

/// Reads `file` at offsets (`pread`: no shared position), for the core's chunked reader.
struct At<'f> {
    file: &'f File,
    len: u64,
}

impl<'f> At<'f> {
    fn new(file: &'f File) -> std::io::Result<At<'f>> {
        Ok(At {
            file,
            len: file.metadata()?.len(),
        })
    }
}

impl bitlens::rdb::ChunkSource for At<'_> {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            #[cfg(unix)]
            let r = std::os::unix::fs::FileExt::read_at(self.file, buf, offset);
            #[cfg(windows)]
            let r = std::os::windows::fs::FileExt::seek_read(self.file, buf, offset);
            match r {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                r => return r,
            }
        }
    }
}

/// What a file's start says: its format, aux fields, the profile that wrote it, and the
/// partition values its rows get; with the file's handle, read by every pass.
#[derive(Debug, Clone)]
pub struct Partition {
    pub path: PathBuf,
    /// The file, opened once ([`Source`]).
    pub file: Arc<File>,
    pub format: Format,
    pub aux: AuxFields,
    pub profile: &'static Profile,
    pub values: PartitionValues,
}

/// The start of `src`'s file, where the header and the aux fields are
/// ([`bitlens::open::peek_header`]: 1 MiB, or 64 MiB when its aux fields run past that). Errors: the file's I/O error, or the core's header error
/// ([`bitlens::rdb::peek_aux`]: not an RDB file, unknown version, truncated).
pub fn peek_file(src: &Source) -> Result<(Format, AuxFields), ScanError> {
    let mut at = At::new(&src.file).map_err(|e| ScanError::Io(src.path.clone(), e))?;
    bitlens::open::peek_header(&mut at).map_err(|e| match bitlens::open::VisitError::from_file(e) {
        bitlens::open::VisitError::Io(e) => ScanError::Io(src.path.clone(), e),
        bitlens::open::VisitError::Rdb(e) => ScanError::Rdb(src.path.clone(), e),
    })
}

/// The partition of `src`'s file under `opts` (see [`ScanOptions`]); reads only the file's
/// start ([`peek_file`]).
pub fn partition(src: &Source, opts: &ScanOptions) -> Result<Partition, ScanError> {
    let path: &Path = &src.path;
    let (format, aux) = peek_file(src)?;
    let profile = Profile::for_snapshot(&aux, format.version);
    let ctime = aux
        .iter()
        .find(|(k, _)| k.as_slice() == b"ctime")
        .map(|(_, v)| String::from_utf8_lossy(v).trim().to_string())
        .filter(|v| !v.is_empty());
    let values = PartitionValues {
        cluster: opts.cluster.clone(),
        batch: opts
            .batch
            .clone()
            .or(ctime)
            .unwrap_or_else(|| "unknown".into()),
        instance: opts
            .instance
            .clone()
            .or_else(|| src.instance.clone())
            .unwrap_or_else(|| {
                path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().into(),
                )
            }),
    };
    Ok(Partition {
        path: path.to_path_buf(),
        file: src.file.clone(),
        format,
        aux,
        profile,
        values,
    })
}

/// What a finished scan saw.
#[derive(Debug, Clone)]
pub struct Scanned {
    /// The file's header (aux fields, databases, checksum).
    pub header: Header,
    /// Rows (keys) produced.
    pub rows: u64,
    /// The file's size in bytes.
    pub bytes: u64,
}

/// Scans `part`'s file (see the module docs), calling `on_batch` with each record batch of
/// at most `opts.batch_rows` rows, in file order (the last one may be short; none when the
/// file has no key). Errors: I/O (of the file, or of the spill's temporary file), the
/// snapshot's [`RdbError`] (offset, key, kind), or `on_batch`'s error, which stops the scan.
pub fn scan_partition(
    part: &Partition,
    opts: &ScanOptions,
    on_batch: &mut dyn FnMut(RecordBatch) -> Result<(), String>,
) -> Result<Scanned, ScanError> {
    let path = &part.path;
    let load = LoadOptions {
        verify_checksum: opts.verify_checksum,
        max_value_bytes: opts.max_value_bytes,
        ..Default::default()
    };
    // The rows are the selected keys' (the inference counts every key).
    let rows_load = LoadOptions {
        patterns: opts.patterns.clone(),
        ..load.clone()
    };
    // The clock a server loading the file judges expiry at: its save time (as `query`'s
    // default clock, so `expired` agrees with DBSIZE); fields expired by then are not priced.
    let saved_at = bitlens::session::snapshot_time_ms(&part.aux);
    // Without used-mem the inference assumes bundled jemalloc whatever the keys (as
    // `inspect` knows): the keys are priced for it alone.
    let used_mem = part.aux.iter().any(|(k, _)| k.as_slice() == b"used-mem");
    let mut pricing = Pricing::new(part.profile, opts.allocator, used_mem, saved_at);
    let candidates = pricing.candidates();
    // Inferring, every key is read and counted, and the rows kept are spilled under every
    // candidate, to be read back as the inferred one's once the file is read; else only the
    // selected keys are read, and their rows go straight to the batches.
    let mut spill = (candidates > 1).then(|| Spill::priced(spill::DEFAULT_BUDGET, candidates));
    let mut spill_error: Option<std::io::Error> = None;
    let mut file = At::new(&part.file).map_err(|e| ScanError::Io(path.clone(), e))?;
    let bytes = file.len;
    let batch_rows = opts.batch_rows.max(1);
    let mut builder = BatchBuilder::new();
    let mut sink_error: Option<String> = None;
    let mut rows = 0u64;
    let cancelled = |reason: &str| {
        RdbError::new(
            0,
            ErrorDetail::Cancelled {
                reason: reason.into(),
            },
        )
    };
    // Adds a row to the batch, handing the batch on when full.
    let mut add = |b: &mut BatchBuilder,
                   row: &mut KeyRow,
                   stats: &KeyStats,
                   err: &mut Option<String>|
     -> Result<(), RdbError> {
        let facts = stats
            .record
            .as_ref()
            .expect("a scan's rows carry their record");
        let k = KeyRecord::new(std::mem::replace(row, KeyRow::empty()), stats, facts);
        b.push(&part.values, &k);
        *row = k.row;
        if b.len() >= batch_rows {
            if let Err(e) = on_batch(b.finish()) {
                *err = Some(e);
                return Err(cancelled("output failed"));
            }
        }
        Ok(())
    };
    // One row, refilled for each key.
    let mut row = KeyRow::empty();
    let read_load = if spill.is_some() { &load } else { &rows_load };
    let header =
        bitlens::rdb::visit_rdb_chunked(&mut file, CHUNK, read_load, &mut |_, _| Ok(()), |rec| {
            let Some(value) = rec.value else {
                return Ok(());
            };
            let expiring = rec.expire_at_ms.is_some();
            let observed = pricing.observe(rec.db, &rec.key, &value, expiring);
            if opts.db.is_some_and(|db| db != rec.db) || !rows_load.selects(&rec.key) {
                return Ok(());
            }
            let (est, others) = pricing.estimate(observed, &rec.key, &value, expiring);
            row.set_priced(rec.db, &rec.key, &value, rec.expire_at_ms, est);
            let fig = bitlens_views::classify::figures(&value);
            let stats = KeyStats {
                record: Some(RecordFacts {
                    class: fig.class,
                    rdb_bytes: rec.value_bytes,
                    idle_s: rec.lru_idle_s,
                    lfu_freq: rec.lfu_freq,
                    expired: bitlens::keyspace::gone_at(&value, rec.expire_at_ms, saved_at),
                }),
                ..KeyStats::of(&value, &fig)
            };
            rows += 1;
            match &mut spill {
                Some(s) => s
                    .push_priced(&row, &stats, &others[1..candidates], &[])
                    .map_err(|e| {
                        spill_error = Some(e);
                        cancelled("spill failed")
                    }),
                None => add(&mut builder, &mut row, &stats, &mut sink_error),
            }
        });
    let header = match header {
        Ok(h) => h,
        Err(_) if sink_error.is_some() => {
            return Err(ScanError::Sink(sink_error.unwrap_or_default()))
        }
        Err(_) if spill_error.is_some() => {
            return Err(ScanError::Io(path.clone(), spill_error.unwrap()))
        }
        Err(e) => return Err(ScanError::Rdb(path.clone(), e)),
    };
    if let Some(s) = &mut spill {
        // The rows read back as the inferred allocator's.
        let (_, pick) = pricing.finish(&header.aux, header.slot_infos > 0);
        s.choose(pick);
        let io = |e| ScanError::Io(path.clone(), e);
        let mut recs = s.read().map_err(io)?;
        let mut stats = KeyStats::default();
        while recs.next_into(&mut row, &mut stats).map_err(io)? {
            if add(&mut builder, &mut row, &stats, &mut sink_error).is_err() {
                return Err(ScanError::Sink(sink_error.unwrap_or_default()));
            }
        }
    }
    if !builder.is_empty() {
        if let Err(e) = on_batch(builder.finish()) {
            return Err(ScanError::Sink(e));
        }
    }
    Ok(Scanned {
        header,
        rows,
        bytes,
    })
}

/// [`partition`] then [`scan_partition`] of `src`'s file.
pub fn scan_file(
    src: &Source,
    opts: &ScanOptions,
    on_batch: &mut dyn FnMut(RecordBatch) -> Result<(), String>,
) -> Result<Scanned, ScanError> {
    scan_partition(&partition(src, opts)?, opts, on_batch)
}

/// The record batches of several files, in order, pulled from a producer thread that scans
/// them one after the other ([`scan_file`]) and stays at most two batches ahead (bounded
/// memory). An error ends the iteration after being yielded once. Dropping the iterator
/// stops the producer at its next batch.
pub struct Batches {
    rx: mpsc::Receiver<Result<RecordBatch, ScanError>>,
    done: bool,
}

impl Batches {
    /// Starts scanning `sources` with `opts`.
    pub fn new(sources: Vec<Source>, opts: ScanOptions) -> Batches {
        let (tx, rx) = mpsc::sync_channel(2);
        std::thread::spawn(move || {
            for path in sources {
                let mut send = |b: RecordBatch| {
                    tx.send(Ok(b))
                        .map_err(|_| "the reader was closed".to_string())
                };
                match scan_file(&path, &opts, &mut send) {
                    Ok(_) => {}
                    Err(ScanError::Sink(_)) => return,
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            }
        });
        Batches { rx, done: false }
    }

    /// The next batch: `None` at the end, `Some(Err)` once when a file failed.
    pub fn next_batch(&mut self) -> Option<Result<RecordBatch, ScanError>> {
        if self.done {
            return None;
        }
        match self.rx.recv() {
            Ok(Ok(b)) => Some(Ok(b)),
            Ok(Err(e)) => {
                self.done = true;
                Some(Err(e))
            }
            Err(_) => {
                self.done = true;
                None
            }
        }
    }
}

impl Iterator for Batches {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch()
            .map(|r| r.map_err(|e| ArrowError::ExternalError(Box::new(e))))
    }
}

impl RecordBatchReader for Batches {
    fn schema(&self) -> SchemaRef {
        crate::schema::schema()
    }
}
