//! `bitlens export`: files of the export schema, one hive partition per snapshot,
//! `OUT/cluster=C/batch=B/instance=I/part-N.<ext>` (N from 0; a new part every
//! [`ExportOptions::rows_per_file`] rows), written by at most [`ExportOptions::jobs`] threads
//! at once, each streaming its file's batches (see [`crate::scan`]) into the writer:
//!
//! - `parquet`: zstd (level 3), row groups of [`ROW_GROUP_ROWS`], the schema version in the
//!   key-value metadata (and in the stored Arrow schema);
//! - `arrow`: the Arrow IPC file format (Feather v2), the version in the schema metadata;
//! - `csv`: a header line, then rows as arrow-csv writes them (`key` in hex, `expire_at`
//!   RFC 3339, null as an empty cell), each text cell written by
//!   [`bitlens::escape::csv_text_cell`] (RFC 4180 quoting; a cell a spreadsheet would run as
//!   a formula, `=1+1`, guarded as `"'=1+1"`);
//! - `jsonl`: one JSON object per row as arrow-json writes it (`key` in hex, null columns
//!   left out).
//!
//! A part is written under a hidden `.part-N.<ext>.tmp` name and renamed when complete, so
//! that a reader globbing `**/*.parquet` never sees half a file; the partition's old parts
//! are removed first.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use arrow::record_batch::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;

use crate::scan::{partition, scan_partition, Partition, ScanError, ScanOptions, Source};
use crate::schema::{file_schema, PARTITION_COLUMNS, SCHEMA_VERSION, SCHEMA_VERSION_KEY};

/// Rows per Parquet row group.
pub const ROW_GROUP_ROWS: usize = 131_072;

/// The file format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Parquet,
    Arrow,
    Csv,
    Jsonl,
}

impl Format {
    /// Parses `parquet`, `arrow`, `csv` or `jsonl`.
    pub fn parse(s: &str) -> Result<Format, String> {
        Ok(match s {
            "parquet" => Format::Parquet,
            "arrow" => Format::Arrow,
            "csv" => Format::Csv,
            "jsonl" => Format::Jsonl,
            _ => return Err(format!("--format {s:?}: parquet, arrow, csv or jsonl")),
        })
    }

    /// The file extension.
    pub fn ext(self) -> &'static str {
        match self {
            Format::Parquet => "parquet",
            Format::Arrow => "arrow",
            Format::Csv => "csv",
            Format::Jsonl => "jsonl",
        }
    }
}

/// What names each file's `instance` partition when `--instance` is not given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InstanceFrom {
    /// The file name, except where several files share one (every node's `dump.rdb`): those
    /// are named by their parent folders, with as many ancestors (joined by `_`) as it takes
    /// to tell them apart.
    #[default]
    Auto,
    /// The file name (files sharing one are refused, naming both).
    File,
    /// The parent folder's name (`node-a/dump.rdb` is `node-a`).
    Parent,
}

impl InstanceFrom {
    /// Parses `auto`, `file` or `parent`.
    pub fn parse(s: &str) -> Result<InstanceFrom, String> {
        Ok(match s {
            "auto" => InstanceFrom::Auto,
            "file" => InstanceFrom::File,
            "parent" => InstanceFrom::Parent,
            _ => return Err(format!("--instance-from {s:?}: auto, file or parent")),
        })
    }
}

/// The `instance` of each of `paths` under `from` (see [`InstanceFrom`]). Paths are taken as
/// given and then made absolute (a relative `dump.rdb` is named by the working directory).
pub fn instance_names(paths: &[PathBuf], from: InstanceFrom) -> Vec<String> {
    let abs: Vec<PathBuf> = paths
        .iter()
        .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()))
        .collect();
    // The last `n` components of the path (n = 1: the file name), joined by `_`.
    let tail = |p: &Path, n: usize| -> String {
        let parts: Vec<String> = p
            .components()
            .filter_map(|c| match c {
                std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        let from = parts.len().saturating_sub(n);
        parts[from..].join("_")
    };
    let parent = |p: &Path| p.parent().map_or_else(String::new, |d| tail(d, 1));
    match from {
        InstanceFrom::File => abs.iter().map(|p| tail(p, 1)).collect(),
        InstanceFrom::Parent => abs.iter().map(|p| parent(p)).collect(),
        InstanceFrom::Auto => {
            let names: Vec<String> = abs.iter().map(|p| tail(p, 1)).collect();
            let mut out = names.clone();
            for (i, name) in names.iter().enumerate() {
                let group: Vec<usize> = (0..names.len()).filter(|&j| names[j] == *name).collect();
                if group.len() < 2 {
                    continue;
                }
                // Fewest ancestors that tell the group apart (or all there are).
                let depth = abs[i].components().count();
                let mut n = 1;
                while n < depth {
                    let mine = abs[i].parent().map(|d| tail(d, n));
                    let clash = group.iter().any(|&j| {
                        j != i && abs[j] != abs[i] && abs[j].parent().map(|d| tail(d, n)) == mine
                    });
                    if !clash {
                        break;
                    }
                    n += 1;
                }
                out[i] = abs[i].parent().map_or_else(|| name.clone(), |d| tail(d, n));
            }
            out
        }
    }
}

/// How to export.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// Columns and partition values.
    pub scan: ScanOptions,
    pub format: Format,
    /// The output directory (the hive tree's root).
    pub out: PathBuf,
    /// Files exported at once (at least 1).
    pub jobs: usize,
    /// Rows per part file before the next part starts (at least 1; checked between batches).
    pub rows_per_file: u64,
    /// What names a file's `instance` when [`ScanOptions::instance`] is `None`.
    pub instance_from: InstanceFrom,
}

/// One exported snapshot.
#[derive(Debug, Clone)]
pub struct Exported {
    /// The snapshot file.
    pub path: PathBuf,
    /// Its partition directory and the part files written there.
    pub dir: PathBuf,
    pub files: Vec<PathBuf>,
    /// Rows (keys) and the snapshot's size in bytes.
    pub rows: u64,
    pub bytes: u64,
}

enum Sink {
    Parquet(Box<ArrowWriter<File>>),
    Arrow(arrow::ipc::writer::FileWriter<File>),
    Csv(arrow::csv::Writer<File>),
    Jsonl(arrow::json::LineDelimitedWriter<File>),
}

impl Sink {
    fn create(format: Format, path: &Path) -> Result<Sink, String> {
        let file = File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
        Ok(match format {
            Format::Parquet => {
                let level = ZstdLevel::try_new(3).map_err(|e| err(&e))?;
                let props = WriterProperties::builder()
                    .set_compression(Compression::ZSTD(level))
                    .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
                    .set_key_value_metadata(Some(vec![KeyValue::new(
                        SCHEMA_VERSION_KEY.to_string(),
                        SCHEMA_VERSION.to_string(),
                    )]))
                    .build();
                Sink::Parquet(Box::new(
                    ArrowWriter::try_new(file, file_schema(), Some(props)).map_err(|e| err(&e))?,
                ))
            }
            Format::Arrow => Sink::Arrow(
                arrow::ipc::writer::FileWriter::try_new(file, &file_schema())
                    .map_err(|e| err(&e))?,
            ),
            // Text cells arrive already written (csv_cells): the writer adds no quotes.
            Format::Csv => Sink::Csv(
                arrow::csv::WriterBuilder::new()
                    .with_header(true)
                    .with_quote_style(arrow::csv::QuoteStyle::Never)
                    .build(file),
            ),
            Format::Jsonl => Sink::Jsonl(arrow::json::LineDelimitedWriter::new(file)),
        })
    }

    /// Writes `b`'s rows without the partition columns (their values are the directory's).
    fn write(&mut self, b: &RecordBatch) -> Result<(), String> {
        let kept: Vec<usize> = (PARTITION_COLUMNS..b.num_columns()).collect();
        let b = &b.project(&kept).map_err(|e| e.to_string())?;
        match self {
            Sink::Parquet(w) => w.write(b).map_err(|e| e.to_string()),
            Sink::Arrow(w) => w.write(b).map_err(|e| e.to_string()),
            Sink::Csv(w) => w.write(&csv_cells(b)?).map_err(|e| e.to_string()),
            Sink::Jsonl(w) => w.write(b).map_err(|e| e.to_string()),
        }
    }

    fn close(self) -> Result<(), String> {
        let file = match self {
            Sink::Parquet(w) => w.into_inner().map_err(|e| e.to_string())?,
            Sink::Arrow(mut w) => {
                w.finish().map_err(|e| e.to_string())?;
                w.into_inner().map_err(|e| e.to_string())?
            }
            Sink::Csv(w) => w.into_inner(),
            Sink::Jsonl(mut w) => {
                w.finish().map_err(|e| e.to_string())?;
                w.into_inner()
            }
        };
        file.sync_all().map_err(|e| e.to_string())
    }
}

/// `b` with every text (Utf8) column's cells as the CSV file holds them
/// ([`bitlens::escape::csv_text_cell`], the one function of `inspect --csv` too: RFC 4180
/// quoting, and a cell a spreadsheet would run as a formula guarded as `"'=1+1"`). The other
/// columns need no quoting and are left to arrow-csv: numbers (a negative longitude stays
/// `-122.4`), hex `key`, RFC 3339 `expire_at`, null as an empty cell.
fn csv_cells(b: &RecordBatch) -> Result<RecordBatch, String> {
    use arrow::array::{Array, ArrayRef, StringArray};
    use arrow::datatypes::DataType;
    let columns: Vec<ArrayRef> = b
        .columns()
        .iter()
        .map(|c| -> ArrayRef {
            match c.as_any().downcast_ref::<StringArray>() {
                Some(text) if *c.data_type() == DataType::Utf8 => {
                    let cells: StringArray = text
                        .iter()
                        .map(|v| v.map(bitlens::escape::csv_text_cell))
                        .collect();
                    std::sync::Arc::new(cells)
                }
                _ => c.clone(),
            }
        })
        .collect();
    RecordBatch::try_new(b.schema(), columns).map_err(|e| e.to_string())
}

/// A partition value as a directory name part: not empty, `.` or `..`, and without `/`,
/// `\`, `=` or NUL.
fn check_value(name: &str, v: &str) -> Result<(), String> {
    if v.is_empty() || v == "." || v == ".." || v.contains(['/', '\\', '=', '\0']) {
        return Err(format!(
            "{name} {v:?} cannot name a partition directory (empty, . or .., or holds / \\ = or NUL)"
        ));
    }
    Ok(())
}

/// The partition directory of `part` under `out`. A `%` in a value is written `%25`: the
/// readers of hive paths (pyarrow, pandas, Dask, DuckDB, Spark) percent-decode partition
/// values, so an instance named `%41` would otherwise read back as `A` (and merge with an
/// instance of that name).
pub fn partition_dir(out: &Path, part: &Partition) -> Result<PathBuf, String> {
    let v = &part.values;
    check_value("cluster", &v.cluster)?;
    check_value("batch", &v.batch)?;
    check_value("instance", &v.instance)?;
    let dir = |v: &str| v.replace('%', "%25");
    Ok(out
        .join(format!("cluster={}", dir(&v.cluster)))
        .join(format!("batch={}", dir(&v.batch)))
        .join(format!("instance={}", dir(&v.instance))))
}

/// Exports one snapshot into its partition directory `dir`.
fn export_one(part: &Partition, dir: &Path, opts: &ExportOptions) -> Result<Exported, ScanError> {
    let sink_err = ScanError::Sink;
    let ext = opts.format.ext();
    std::fs::create_dir_all(dir).map_err(|e| ScanError::Io(dir.to_path_buf(), e))?;
    // Old parts of this partition (an earlier export) go first.
    let old = std::fs::read_dir(dir).map_err(|e| ScanError::Io(dir.to_path_buf(), e))?;
    for entry in old.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("part-") && name.ends_with(&format!(".{ext}")) {
            std::fs::remove_file(entry.path()).map_err(|e| ScanError::Io(entry.path(), e))?;
        }
    }
    let mut files: Vec<PathBuf> = Vec::new();
    let mut current: Option<(Sink, PathBuf, PathBuf, u64)> = None;
    let finish = |(sink, tmp, dst, _): (Sink, PathBuf, PathBuf, u64),
                  files: &mut Vec<PathBuf>|
     -> Result<(), String> {
        sink.close()?;
        std::fs::rename(&tmp, &dst).map_err(|e| format!("{}: {e}", dst.display()))?;
        files.push(dst);
        Ok(())
    };
    let mut on_batch = |b: RecordBatch| -> Result<(), String> {
        if current
            .as_ref()
            .is_some_and(|c| c.3 >= opts.rows_per_file.max(1))
        {
            finish(current.take().expect("checked"), &mut files)?;
        }
        if current.is_none() {
            let n = files.len();
            let tmp = dir.join(format!(".part-{n}.{ext}.tmp"));
            let dst = dir.join(format!("part-{n}.{ext}"));
            current = Some((Sink::create(opts.format, &tmp)?, tmp, dst, 0));
        }
        let c = current.as_mut().expect("just opened");
        c.0.write(&b)?;
        c.3 += b.num_rows() as u64;
        Ok(())
    };
    let scanned = scan_partition(part, &opts.scan, &mut on_batch);
    let scanned = match scanned {
        Ok(s) => s,
        Err(e) => {
            if let Some((_, tmp, _, _)) = current.take() {
                let _ = std::fs::remove_file(tmp);
            }
            return Err(e);
        }
    };
    match current.take() {
        Some(c) => finish(c, &mut files).map_err(sink_err)?,
        // A snapshot without keys still gets one (empty) part: the partition exists.
        None => {
            let tmp = dir.join(format!(".part-0.{ext}.tmp"));
            let dst = dir.join(format!("part-0.{ext}"));
            let sink = Sink::create(opts.format, &tmp).map_err(sink_err)?;
            finish((sink, tmp, dst, 0), &mut files).map_err(sink_err)?;
        }
    }
    Ok(Exported {
        path: part.path.clone(),
        dir: dir.to_path_buf(),
        files,
        rows: scanned.rows,
        bytes: scanned.bytes,
    })
}

/// Exports every file of `sources` (see the module docs; each file opened once by the
/// caller, and every pass over it reads that handle), at most `opts.jobs` at once. The
/// results are in the order of `sources`; one file's failure does not stop the others. Each
/// file's instance is named by [`ExportOptions::instance_from`] (every node's `dump.rdb` by its
/// folder); a file given again (another path to it, a link) and two files that would still
/// share a partition directory (`InstanceFrom::File` on equal names) are refused (the later
/// one), as the second would repeat or replace the first.
pub fn export_files(sources: &[Source], opts: &ExportOptions) -> Vec<Result<Exported, ScanError>> {
    // The partitions first (each file's start only), to refuse collisions before writing.
    let mut seen: std::collections::HashMap<PathBuf, PathBuf> = Default::default();
    let paths: Vec<PathBuf> = sources.iter().map(|s| s.path.clone()).collect();
    let names = instance_names(&paths, opts.instance_from);
    let plans: Vec<Result<(Partition, PathBuf), ScanError>> = sources
        .iter()
        .zip(names)
        .enumerate()
        .map(|(j, (src, name))| {
            let p = &src.path;
            // One file under two spellings (or a link to it) would be exported twice under
            // two instances: refused as `open` refuses it.
            if let Some(i) = paths[..j]
                .iter()
                .position(|a| bitlens::open::same_file(a, p))
            {
                return Err(ScanError::Sink(format!(
                    "{} and {} are the same file, given twice",
                    paths[i].display(),
                    p.display()
                )));
            }
            let src = src.clone().with_instance(name);
            let part = partition(&src, &opts.scan)?;
            let dir = partition_dir(&opts.out, &part).map_err(ScanError::Sink)?;
            if let Some(first) = seen.insert(dir.clone(), p.clone()) {
                return Err(ScanError::Sink(format!(
                    "{} and {} would both be {} (give each its own --instance or --batch)",
                    first.display(),
                    p.display(),
                    dir.display()
                )));
            }
            Ok((part, dir))
        })
        .collect();
    let results: Vec<Mutex<Option<Result<Exported, ScanError>>>> =
        sources.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let jobs = opts.jobs.max(1).min(sources.len().max(1));
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(plan) = plans.get(i) else {
                    return;
                };
                let r = match plan {
                    Ok((part, dir)) => export_one(part, dir, opts),
                    Err(_) => continue,
                };
                *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            });
        }
    });
    plans
        .into_iter()
        .zip(results)
        .map(|(plan, slot)| match plan {
            Err(e) => Err(e),
            Ok(_) => slot
                .into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every planned file was exported by a worker"),
        })
        .collect()
}
