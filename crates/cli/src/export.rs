//! `bitlens export FILE… --out DIR`: one row per key in the tools data people already use
//! (Parquet with zstd, Arrow IPC, CSV, JSON lines), hive-partitioned
//! `cluster=…/batch=…/instance=…/part-N.<ext>`. The rows, the schema and the writers are
//! [`bitlens_export`]'s (the Python package reads the same rows); this is the command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

/// `bitlens export` arguments.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The RDB files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The output directory (the hive tree's root; created when missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// parquet (zstd), arrow (Arrow IPC file), csv or jsonl; the same columns in each.
    #[arg(long, default_value = "parquet", value_parser = bitlens_export::Format::parse)]
    pub format: bitlens_export::Format,
    /// The `cluster` column and partition.
    #[arg(long, default_value = "default")]
    pub cluster: String,
    /// The `batch` column and partition (default: each snapshot's ctime, Unix seconds).
    #[arg(long)]
    pub batch: Option<String>,
    /// The `instance` partition; only with one FILE (default: see `--instance-from`).
    #[arg(long)]
    pub instance: Option<String>,
    /// What names each file's instance: `auto` (the file name; files sharing a name, such as
    /// every node's dump.rdb, by their folders), `file` or `parent` (the folder's name).
    #[arg(long, value_name = "auto|file|parent", default_value = "auto", value_parser = bitlens_export::InstanceFrom::parse)]
    pub instance_from: bitlens_export::InstanceFrom,
    /// The allocator of the writer's build (see `inspect --allocator`; default: inferred from
    /// each file's `used-mem`, as `inspect` does).
    #[arg(long, value_parser = crate::parse_allocator)]
    pub allocator: Option<bitlens_views::memory::Allocator>,
    /// Export only the keys matching this glob (KEYS rules; repeatable): the other keys'
    /// values are skipped unread.
    #[arg(long = "match", value_name = "GLOB", value_parser = clap::value_parser!(std::ffi::OsString))]
    pub matches: Vec<std::ffi::OsString>,
    /// Export only this database's keys.
    #[arg(short = 'n', long = "db")]
    pub db: Option<u64>,
    /// Do not verify the CRC-64 trailer.
    #[arg(long)]
    pub no_checksum: bool,
    /// Files exported at once (default: the number of CPUs).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// Rows per record batch (memory per file is about one batch).
    #[arg(long, default_value_t = bitlens_export::scan::DEFAULT_BATCH_ROWS)]
    pub batch_rows: usize,
    /// Rows per part file before part-N+1 starts.
    #[arg(long, default_value_t = 10_000_000)]
    pub rows_per_file: u64,
    #[command(flatten)]
    pub limit: crate::LimitArgs,
}

/// Runs `bitlens export`: one line per file on stdout (rows, part files), errors on stderr
/// (`bitlens: cannot export FILE: …`, with the offset and key of a bad snapshot); exit
/// status 1 when any file failed.
pub fn run(args: ExportArgs) -> ExitCode {
    if args.instance.is_some() && args.files.len() > 1 {
        eprintln!("bitlens: --instance names one file's partition; give one FILE per run");
        return ExitCode::from(2);
    }
    // Each file opened once (a FIFO or a device refused), and every pass of the export reads
    // that handle: a file deleted or replaced meanwhile is still read as it was opened.
    // A file that cannot be opened (missing, a directory, a FIFO, empty, not an RDB file) is
    // reported and left out, as a bad snapshot is: the others are exported, exit status 1.
    let mut sources = Vec::with_capacity(args.files.len());
    let mut paths = Vec::with_capacity(args.files.len());
    let mut failed = false;
    for f in &args.files {
        let opened = bitlens::open::open_input(f)
            .and_then(|mut file| bitlens::open::diagnose(&mut file).map(|why| (file, why)));
        let e = match opened {
            Ok((file, None)) => {
                sources.push(bitlens_export::Source::new(f, file));
                paths.push(f.clone());
                continue;
            }
            Ok((_, Some(why))) => bitlens::open::FileError::WrongKind(why),
            Err(e) => bitlens::open::FileError::Io(e),
        };
        crate::union_error(
            std::slice::from_ref(f),
            bitlens::open::OpenError::File(0, e),
        );
        failed = true;
    }
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let opts = bitlens_export::ExportOptions {
        scan: bitlens_export::ScanOptions {
            cluster: args.cluster,
            batch: args.batch,
            instance: args.instance,
            allocator: args.allocator,
            verify_checksum: !args.no_checksum,
            batch_rows: args.batch_rows,
            max_value_bytes: args.limit.max_value_bytes,
            patterns: args.matches.iter().cloned().map(crate::os_bytes).collect(),
            db: args.db,
        },
        format: args.format,
        out: args.out,
        jobs,
        rows_per_file: args.rows_per_file,
        instance_from: args.instance_from,
    };
    for (path, r) in paths
        .iter()
        .zip(bitlens_export::export_files(&sources, &opts))
    {
        match r {
            Ok(e) => println!(
                "{}: {} keys -> {}",
                path.display(),
                e.rows,
                e.files
                    .iter()
                    .map(|f| f.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Err(e) => {
                failed = true;
                let why = match &e {
                    // With the option that raises a refused value's limit named.
                    bitlens_export::ScanError::Rdb(p, e) => {
                        format!("{}: {}", p.display(), bitlens::open::CLI.error_text(e))
                    }
                    e => e.to_string(),
                };
                eprintln!("bitlens: cannot export {}: {why}", path.display());
            }
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
