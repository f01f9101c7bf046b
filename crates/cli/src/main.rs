//! `bitlens`: query, inspect and serve Redis snapshots (see README).
//!
//! - `bitlens query --rdb FILE [--raw|--no-raw] [COMMAND ARG...]`: answers Redis read commands
//!   on a snapshot and prints exactly what `redis-cli` prints (its terminal form on a terminal
//!   or with `--no-raw`, its piped form otherwise or with `--raw`).
//! - `bitlens inspect FILE [--json|--csv] [filters]`: what a snapshot holds and costs (see
//!   [`bitlens_cli::inspect`]).
//! - `query`, `inspect` and `serve` take `--compat PROFILE` (answer as that server instead of
//!   the snapshot's writer) and `--clock now|snapshot|UNIX_MS` (when expiry is judged; default
//!   the snapshot's ctime); see [`bitlens::dialect`] and [`bitlens::session`].
//! - `bitlens chart KIND --rdb FILE --svg OUT`: an engagement chart (dau, streaks, retention,
//!   enums) as SVG.
//! - `bitlens serve [--redis URL]`: the panel plus the snapshot API (live Redis or demo data).
//! - Every command takes `--threads N`: the threads snapshots are decoded on (default every
//!   core; output is identical whatever N).

mod chart;
mod export;
mod query;
mod resp;
mod serve;
mod split;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use bitlens::dialect::Profile;
use bitlens::session::Clock;
use clap::{Args, Parser, Subcommand};

/// `--compat` and `--clock`, shared by `query`, `inspect` and `serve`.
#[derive(Args, Debug, Clone, Default)]
pub struct DialectArgs {
    /// Answer as this server instead of the snapshot's writer: redis-6.0, redis-6.2,
    /// redis-7.0, redis-7.2, redis-7.4, redis-8.0 ... redis-8.10, valkey-7.2, valkey-8.0,
    /// valkey-8.1, valkey-9.0 (a full version such as redis-7.4.1 picks its line).
    #[arg(long, value_name = "PROFILE", value_parser = Profile::parse)]
    pub compat: Option<&'static Profile>,
    /// The clock expiry is judged at: `snapshot` (the snapshot's ctime; the default), `now`,
    /// or Unix milliseconds. Keys past their TTL at that clock are invisible, as in Redis.
    #[arg(long, value_name = "now|snapshot|UNIX_MS", value_parser = Clock::parse, default_value = "snapshot")]
    pub clock: Clock,
}

/// `--max-value-bytes`, shared by every command that reads a snapshot (`query`, `inspect`,
/// `dump`, `diff`, `chart`, `export`).
#[derive(Args, Debug, Clone, Copy)]
pub struct LimitArgs {
    /// The longest string (a value, key, element or embedded blob, raw or decompressed) read
    /// from a snapshot, and the largest `--string`, `--roaring` or `--dump` file: a longer
    /// one is refused, naming its offset and key, before it is allocated. Bytes, or with
    /// Redis' units (512mb, 2gb); default Redis' own proto-max-bulk-len.
    #[arg(long, value_name = "BYTES", default_value = "512mb", value_parser = bitlens::open::parse_bytes)]
    pub max_value_bytes: u64,
}

#[derive(Parser)]
#[command(
    name = "bitlens",
    version,
    about = "Redis bitmap / HyperLogLog / GEO analytics on snapshots"
)]
struct Cli {
    /// Threads that decode snapshots (default: every core). Output is identical whatever
    /// the count; 1 decodes on one thread.
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: Option<u16>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run Redis read commands on a snapshot; prints what redis-cli prints. Without COMMAND,
    /// reads commands from stdin, one per line (redis-cli quoting rules).
    Query(query::QueryArgs),
    /// Report what a snapshot holds and costs: memory per pattern, type and encoding, the
    /// biggest keys, a prefix tree, expiry, element counts (text, --json or rdbtools' --csv).
    Inspect(InspectArgs),
    /// Write every key of a snapshot (value, expiry, db) as JSON lines or RESP commands.
    Dump(DumpArgs),
    /// Keys added, removed or changed from snapshot A to B, and the memory delta per prefix.
    #[command(
        override_usage = "bitlens diff [OPTIONS] OLD NEW\n       bitlens diff [OPTIONS] --old FILE... --new FILE..."
    )]
    Diff(DiffArgs),
    /// Serve the panel and the snapshot API (`/api/snapshot`, `/api/keys`, `/api/info`).
    Serve(serve::ServeArgs),
    /// Draw an engagement chart (dau, streaks, retention, enums) of a snapshot as SVG.
    Chart(chart::ChartArgs),
    /// Write one row per key (type, encoding, memory estimate, sizes, expiry, slot, class)
    /// as Parquet, Arrow IPC, CSV or JSON lines, hive-partitioned by cluster, batch and
    /// instance, for DuckDB, Polars, pandas, Spark or Dask.
    Export(export::ExportArgs),
    /// Serve snapshots as a read-only Redis server (RESP) for redis-cli, redis-py and GUI
    /// browsers: the writer's replies, writes refused as a read-only replica refuses them.
    Resp(resp::RespArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(n) = cli.threads {
        // The process-wide pool every load decodes on (bitlens::open::load_threads).
        if let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(n.into())
            .build_global()
        {
            eprintln!("bitlens: cannot start {n} decoding threads: {e}");
            return ExitCode::from(1);
        }
    }
    match cli.command {
        Command::Query(args) => query::run(args),
        Command::Inspect(args) => inspect(args),
        Command::Dump(args) => dump(args),
        Command::Diff(args) => diff(args),
        Command::Serve(args) => serve::run(args),
        Command::Chart(args) => chart::run(args),
        Command::Export(args) => export::run(args),
        Command::Resp(args) => resp::run(args),
    }
}

/// The one refusal of a file that is not an RDB snapshot, for every command reading one
/// (`query --rdb`, `inspect`, `dump`, `diff`, `chart`): `bitlens: error[empty]: cannot read
/// snapshot FILE: empty file` (or: a DUMP payload, use --dump) on stderr and exit status 1
/// ([`union_error`]); an RDB file is not read here.
pub(crate) fn refuse_non_rdb(path: &std::path::Path) -> Result<(), ExitCode> {
    use bitlens::open::{FileError, OpenError};
    let e = match bitlens::open::refuse_non_rdb(path) {
        Ok(None) => return Ok(()),
        Ok(Some(why)) => FileError::WrongKind(why),
        Err(e) => FileError::Io(e),
    };
    Err(union_error(&[path.to_path_buf()], OpenError::File(0, e)))
}

/// Reports why files could not be read (as one) on stderr, one line that starts with the
/// error's stable code ([`bitlens::open::CODES`]): `bitlens: error[CODE]: cannot read
/// [snapshot] FILE: reason` (`snapshot` once the file is open: it is no RDB file, or the
/// reader's error), or `bitlens: error[duplicate-key]: key K of database D is in both A and
/// B; ...`; returns exit status 1.
pub(crate) fn union_error(paths: &[PathBuf], e: bitlens::open::OpenError) -> ExitCode {
    use bitlens::open::{describe_duplicate, path_display, FileError, OpenError, CLI};
    let code = e.code();
    match e {
        OpenError::File(i, FileError::Io(e)) => {
            eprintln!(
                "bitlens: error[{code}]: cannot read {}: {e}",
                path_display(&paths[i])
            )
        }
        OpenError::File(i, e) => {
            eprintln!(
                "bitlens: error[{code}]: cannot read snapshot {}: {e}",
                path_display(&paths[i])
            )
        }
        OpenError::Duplicate(d) => eprintln!(
            "bitlens: error[{code}]: {}; {}",
            describe_duplicate(&d, paths),
            CLI.keep_one
        ),
    }
    ExitCode::from(1)
}

/// [`union_error`] of the one file at `path` that a pass could not visit.
pub(crate) fn visit_error(path: &std::path::Path, e: bitlens::open::VisitError) -> ExitCode {
    let e = bitlens::open::OpenError::File(0, e.into());
    union_error(&[path.to_path_buf()], e)
}

/// Reads a whole file of at most `max` bytes ([`bitlens::open::read_input`]: a FIFO
/// or device is refused, not read) or reports `bitlens: cannot read FILE: reason` on stderr.
/// The Tokio runtime `serve` and `resp` run their sockets on: two worker threads (the
/// commands' work runs on the decoding pool or under the session's lock, not here). A
/// failure to start it is reported on stderr, exit status 1.
pub(crate) fn network_runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| {
            eprintln!("bitlens: cannot start the runtime: {e}");
            ExitCode::from(1)
        })
}

pub(crate) fn read_file(path: &std::path::Path, max: u64) -> Result<Vec<u8>, ExitCode> {
    bitlens::open::read_input(path, max).map_err(|e| {
        eprintln!(
            "bitlens: cannot read {}: {e}",
            bitlens::open::path_display(path)
        );
        ExitCode::from(1)
    })
}

/// A progress bar on stderr per pass over a file (bytes read, MB/s, ETA), cleared at its end.
fn progress_bar() -> bitlens_cli::inspect::Progress {
    bitlens_cli::inspect::Progress(std::sync::Arc::new(|size| {
        let bar = indicatif::ProgressBar::new(size);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        Box::new(move |done| match done {
            Some(d) => bar.set_position(d),
            None => bar.finish_and_clear(),
        })
    }))
}

/// `bitlens inspect` arguments.
#[derive(Args, Debug)]
struct InspectArgs {
    /// The RDB file. Several files (a cluster's shards) are reported as one keyspace, with a
    /// FILES table (keys, memory, expiring keys and hash-slot range per file); a key in two
    /// files is an error unless `--on-duplicate` says which to keep.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// With several files: `error` (a key in two files is refused, naming both), `first` or
    /// `last` (count the entry of the first / last file given that holds it).
    #[arg(long, value_name = "error|first|last", default_value = "error")]
    on_duplicate: bitlens::rdb::OnDuplicate,
    /// The files are snapshots of one instance over time: order them by ctime, report each on
    /// its own and line up their patterns (keys and memory per file, growth from the first to
    /// the last) in text, `--json` or `--csv`. Equal ctimes keep the order given. The
    /// one-report options (`--top`, the prefix tree's, `--slots`, `--ledger`,
    /// `--expires-within`, `--on-duplicate`) do not apply.
    #[arg(long, conflicts_with_all = ["top", "separators", "depth", "slots", "ledger", "expires_within", "on_duplicate"])]
    series: bool,
    /// Print the report as one JSON document.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print rdbtools' memory CSV (one row per key; size_in_bytes is the memory estimate).
    #[arg(long)]
    csv: bool,
    /// Do not verify the CRC-64 trailer.
    #[arg(long)]
    no_checksum: bool,
    /// How many biggest keys to list.
    #[arg(long, default_value_t = 20)]
    top: usize,
    /// Prefix separator byte (repeatable; default `:`).
    #[arg(long = "separator", value_name = "CHAR")]
    separators: Vec<char>,
    /// Prefix tree depth.
    #[arg(long, default_value_t = 2)]
    depth: usize,
    /// The allocator of the writer's build: jemalloc (Redis' bundled build), jemalloc16
    /// (a system jemalloc, e.g. Debian's), libc. Default: inferred from the file's used-mem
    /// (the output says which and why).
    #[arg(long, value_parser = parse_allocator)]
    allocator: Option<bitlens_views::memory::Allocator>,
    /// Bytes per cluster slot (default: when the file is from a cluster node).
    #[arg(long)]
    slots: bool,
    /// The memory ledger: bitmaps and integer-id sets priced as a Set, a bitmap and a
    /// Roaring bitmap; BITFIELD state keys (--bitfield) as a Hash of per-user fields.
    #[arg(long)]
    ledger: bool,
    /// With --ledger: keys matching GLOB are BITFIELD state of TYPE (`#i` is user i), priced
    /// as a Hash of one field per user (repeatable; e.g. 'level:*=u4').
    #[arg(long = "bitfield", value_name = "GLOB=TYPE", requires = "ledger")]
    bitfields: Vec<String>,
    /// Only database N.
    #[arg(long)]
    db: Option<u64>,
    /// Only keys of this type (repeatable): string, list, set, zset, hash, stream, or a module
    /// type's 9-character name as TYPE prints it (MBbloom--, MBbloomCF, CMSk-TYPE, ...).
    #[arg(long = "type", value_name = "TYPE", value_parser = parse_type_name)]
    types: Vec<String>,
    /// Only keys matching this glob (KEYS rules).
    #[arg(long = "match", value_name = "GLOB", conflicts_with = "regex", value_parser = clap::value_parser!(OsString))]
    glob: Option<OsString>,
    /// Only keys matching this regular expression.
    #[arg(long, value_name = "RE")]
    regex: Option<String>,
    /// Only keys with no expiry (`none`), already expired (`expired`), or expiring within a
    /// range from the clock (`..1h`, `1d..7d`, `7d..`).
    #[arg(long, value_name = "none|expired|MIN..MAX", value_parser = bitlens_cli::inspect::TtlFilter::parse)]
    ttl: Option<bitlens_cli::inspect::TtlFilter>,
    /// Only keys whose estimated memory is at least N bytes.
    #[arg(long, value_name = "N", default_value_t = 0)]
    min_bytes: u64,
    /// The "expiring" section: keys whose TTL ends within this many days of the clock, one
    /// row per day (`7d`, or a bare number of days; at most 366).
    #[arg(long, value_name = "DAYS", default_value = "7d", value_parser = parse_days)]
    expires_within: u32,
    #[command(flatten)]
    dialect: DialectArgs,
    #[command(flatten)]
    limit: LimitArgs,
}

/// `7d` or `7`: a whole number of days, 1 to 366.
fn parse_days(s: &str) -> Result<u32, String> {
    let n = s.strip_suffix('d').unwrap_or(s);
    match n.parse::<u32>() {
        Ok(d) if (1..=bitlens_views::report::MAX_DAYS).contains(&d) => Ok(d),
        _ => Err(format!(
            "--expires-within {s:?}: a whole number of days from 1 to {} (e.g. 7d)",
            bitlens_views::report::MAX_DAYS
        )),
    }
}

pub(crate) fn parse_allocator(s: &str) -> Result<bitlens_views::memory::Allocator, String> {
    bitlens_views::memory::Allocator::parse(s)
        .ok_or_else(|| format!("unknown allocator {s:?}; one of: jemalloc, jemalloc16, libc"))
}

/// Writes `text` to stdout; a closed pipe is not an error.
pub(crate) fn write_stdout(text: &[u8]) -> ExitCode {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    match out.write_all(text).and_then(|_| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bitlens: {e}");
            ExitCode::from(1)
        }
    }
}

/// Writes `head`, then `body` from its start, to stdout; a closed pipe is not an error.
fn copy_stdout(head: &[u8], mut body: tempfile::SpooledTempFile) -> ExitCode {
    use std::io::{Seek as _, Write as _};
    let mut out = std::io::stdout().lock();
    let res = out
        .write_all(head)
        .and_then(|_| body.rewind())
        .and_then(|_| std::io::copy(&mut body, &mut out))
        .and_then(|_| out.flush());
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bitlens: {e}");
            ExitCode::from(1)
        }
    }
}

/// A `--type` value: one of the names TYPE replies (module types are 9 characters).
fn parse_type_name(s: &str) -> Result<String, String> {
    const CORE: [&str; 6] = ["string", "list", "set", "zset", "hash", "stream"];
    if CORE.iter().any(|t| t.eq_ignore_ascii_case(s)) || (s.len() == 9 && s.is_ascii()) {
        Ok(s.to_string())
    } else {
        Err(format!(
            "not a type TYPE replies: {} or a module type's 9-character name (MBbloom--, ...)",
            CORE.join(", ")
        ))
    }
}

fn inspect(args: InspectArgs) -> ExitCode {
    use bitlens_cli::inspect::render::{self, TextReport as _};
    use bitlens_cli::inspect::{report_from, Filter, Input, Options};
    for f in &args.files {
        if let Err(code) = refuse_non_rdb(f) {
            return code;
        }
    }
    let input = Input::File(&args.files[0]);
    let several = args.files.len() > 1;
    let series = args.series;
    let regex = match args
        .regex
        .as_deref()
        .map(regex::bytes::Regex::new)
        .transpose()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("bitlens: --regex: {e}");
            return ExitCode::from(2);
        }
    };
    let mut separators = Vec::new();
    for c in &args.separators {
        if !c.is_ascii() {
            eprintln!("bitlens: --separator {c:?}: one ASCII character");
            return ExitCode::from(2);
        }
        separators.push(*c as u8);
    }
    if separators.is_empty() {
        separators.push(b':');
    }
    let ledger = if args.ledger {
        let mut lo = bitlens_cli::inspect::LedgerOptions::default();
        for spec in &args.bitfields {
            if let Err(e) = lo.add_bitfield(spec) {
                eprintln!("bitlens: --{e}");
                return ExitCode::from(2);
            }
        }
        Some(lo)
    } else {
        None
    };
    let opts = Options {
        verify_checksum: !args.no_checksum,
        compat: args.dialect.compat,
        clock: args.dialect.clock,
        allocator: args.allocator,
        top: args.top,
        separators,
        depth: args.depth,
        slots: args.slots.then_some(true),
        ledger,
        expires_within_days: args.expires_within,
        max_value_bytes: args.limit.max_value_bytes,
        spill_budget: bitlens_cli::inspect::spill::DEFAULT_BUDGET,
        prefix_cap: bitlens_views::report::PREFIX_TALLY_CAP,
        progress: std::io::IsTerminal::is_terminal(&std::io::stderr()).then(progress_bar),
        filter: Filter {
            db: args.db,
            types: args.types,
            glob: args.glob.map(os_bytes),
            regex,
            ttl: args.ttl,
            min_bytes: args.min_bytes,
        },
    };
    if series {
        if args.files.len() < 2 {
            eprintln!("bitlens: --series compares two or more snapshots of one instance; one file is `bitlens inspect FILE`");
            return ExitCode::from(2);
        }
        let s = match bitlens_views::inspect::series::series(&args.files, &opts) {
            Ok(s) => s,
            Err(e) => return files_error(&args.files, e),
        };
        let out = if args.csv {
            match bitlens_cli::inspect::series::series_csv(&s) {
                Ok(b) => b,
                Err(e) => {
                    eprintln!("bitlens: --csv: {e}");
                    return ExitCode::from(1);
                }
            }
        } else if args.json {
            format!("{}\n", s.to_json()).into_bytes()
        } else {
            bitlens_cli::inspect::series::series_text(&s).into_bytes()
        };
        return write_stdout(&out);
    }
    if args.csv {
        // One row per key, RFC 4180 (the csv crate), as the file is read, into a spooled
        // buffer (memory up to the spill budget, then a temporary file): nothing reaches
        // stdout unless the whole file reads.
        let mut w = render::csv_writer(tempfile::spooled_tempfile(opts.spill_budget));
        let mut bad = None;
        let mut row_out = |row: &bitlens_cli::inspect::KeyRow| {
            if let Err(e) = render::write_csv_row(&mut w, row) {
                bad.get_or_insert(e);
            }
        };
        let res = if several {
            bitlens_cli::inspect::for_each_key_files(
                &args.files,
                &opts,
                args.on_duplicate,
                &mut row_out,
            )
            .map_err(|e| files_error(&args.files, e))
        } else {
            bitlens_cli::inspect::for_each_key(input, &opts, &mut row_out)
                .map(|c| vec![c])
                .map_err(|e| visit_error(&args.files[0], e))
        };
        let body = match (bad, w.into_inner()) {
            (None, Ok(b)) => b,
            (Some(e), _) => {
                eprintln!("bitlens: --csv: {e}");
                return ExitCode::from(1);
            }
            (_, Err(e)) => {
                eprintln!("bitlens: --csv: {}", e.error());
                return ExitCode::from(1);
            }
        };
        return match res {
            Ok(choices) => {
                // The CSV has no place for comments: the allocator's choice goes to stderr.
                for (c, f) in choices.iter().zip(&args.files) {
                    if several {
                        eprintln!(
                            "bitlens: memory column of {} for {}",
                            bitlens::open::path_display(f),
                            c.reason
                        );
                    } else {
                        eprintln!("bitlens: memory column for {}", c.reason);
                    }
                }
                copy_stdout(format!("{}\n", render::CSV_HEADER).as_bytes(), body)
            }
            Err(code) => code,
        };
    }
    let report = if several {
        bitlens_cli::inspect::report_files(&args.files, &opts, args.on_duplicate)
            .inspect(|_| {
                if let Some(w) = bitlens::open::mixed_writers(&args.files) {
                    eprintln!(
                        "bitlens: warning: {w}; each file's memory is priced on its own writer (FILES)"
                    );
                }
                if let Some(w) = bitlens::open::repeated_file(&args.files) {
                    eprintln!("bitlens: warning: {w}");
                }
            })
            .map_err(|e| files_error(&args.files, e))
    } else {
        report_from(input, &opts).map_err(|e| visit_error(&args.files[0], e))
    };
    // The passes' many small allocations are freed by now, but glibc keeps them in its heap
    // (a file of 100,000 databases: 40 MB): give them back before the text is built.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free heap pages to the system.
    unsafe {
        libc::malloc_trim(0);
    }
    match report {
        Ok(r) => {
            let text = if args.json {
                let mut t = r.to_json().to_string();
                t.push('\n');
                t
            } else {
                r.to_text()
            };
            write_stdout(text.as_bytes())
        }
        Err(code) => code,
    }
}

/// Reports on stderr why several files could not be inspected as one (the file and where, or
/// the key two files hold, as `bitlens query` says it); exit code 1.
fn files_error(paths: &[PathBuf], e: bitlens_cli::inspect::FilesError) -> ExitCode {
    use bitlens_cli::inspect::FilesError;
    match e {
        FilesError::File(i, e) => union_error(paths, bitlens::open::OpenError::File(i, e.into())),
        FilesError::Duplicate(d) => union_error(paths, bitlens::open::OpenError::Duplicate(d)),
        FilesError::Io(e) => {
            eprintln!("bitlens: inspect spill (temporary file): {e}");
            ExitCode::from(1)
        }
    }
}

/// `bitlens dump` arguments.
#[derive(Args, Debug)]
struct DumpArgs {
    /// The RDB file; several files are dumped as one keyspace (a cluster's shards), file by
    /// file in the order given.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// `jsonl` (one JSON object per key) or `resp` (the commands that rebuild the data set).
    #[arg(long, default_value = "jsonl", value_parser = ["jsonl", "resp"])]
    format: String,
    /// Do not verify the CRC-64 trailer.
    #[arg(long)]
    no_checksum: bool,
    /// With several files: `error` (a key in two files is refused, naming both, before
    /// anything is written), `first` or `last` (dump the entry of the first / last file given
    /// that holds it).
    #[arg(long, value_name = "error|first|last", default_value = "error")]
    on_duplicate: bitlens::rdb::OnDuplicate,
    #[command(flatten)]
    limit: LimitArgs,
}

fn dump(args: DumpArgs) -> ExitCode {
    for p in &args.files {
        if let Err(code) = refuse_non_rdb(p) {
            return code;
        }
    }
    if args.on_duplicate != bitlens::rdb::OnDuplicate::Error {
        if let Some(w) = bitlens::open::repeated_file(&args.files) {
            eprintln!("bitlens: warning: {w}");
        }
    }
    use std::io::Write as _;
    let opts = bitlens::rdb::LoadOptions {
        verify_checksum: !args.no_checksum,
        threads: bitlens::open::load_threads(),
        max_value_bytes: args.limit.max_value_bytes,
        ..Default::default()
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let resp = args.format == "resp";
    let mut db_now: Option<u64> = None;
    let mut io_err: Option<std::io::Error> = None;
    // The files are read in windows: one key's value at a time is held, never the snapshot.
    let write = |rec: bitlens::rdb::Record<'_>| {
        let Some(value) = rec.value else {
            return Ok(());
        };
        if io_err.is_some() {
            return Ok(());
        }
        // A value's bytes go from the value to the output (no copy of a large string).
        let r = if resp {
            let mut write = || -> std::io::Result<()> {
                if db_now != Some(rec.db) {
                    db_now = Some(rec.db);
                    out.write_all(&bitlens_cli::dump::resp(&[
                        b"SELECT".to_vec(),
                        rec.db.to_string().into_bytes(),
                    ]))?;
                }
                if !bitlens_cli::dump::write_resp(&mut out, &rec.key, &value, rec.expire_at_ms)? {
                    eprintln!(
                        "bitlens: skipped {} ({}: no command rebuilds it)",
                        bitlens::escape::display(&rec.key),
                        value.redis_type().name()
                    );
                }
                Ok(())
            };
            write()
        } else {
            bitlens_cli::dump::write_json_line(&mut out, rec.db, &rec.key, &value, rec.expire_at_ms)
                .and_then(|_| out.write_all(b"\n"))
        };
        if let Err(e) = r {
            io_err = Some(e);
        }
        Ok(())
    };
    let res = match args.files.as_slice() {
        [one] => bitlens::open::visit_file(one, &opts, &mut |_, _| Ok(()), write)
            .map(|_| ())
            .map_err(|e| {
                visit_error(one, e);
            }),
        several => bitlens_views::overlap::visit_files(several, &opts, args.on_duplicate, write)
            .map_err(|e| {
                union_error(several, e);
            }),
    };
    if res.is_err() {
        let _ = out.flush();
        return ExitCode::from(1);
    }
    match io_err.map_or_else(|| out.flush(), Err) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bitlens: {e}");
            ExitCode::from(1)
        }
    }
}

/// `bitlens diff` arguments.
#[derive(Args, Debug)]
struct DiffArgs {
    /// The older snapshot, then the newer (`diff A B`); for several files per side, give
    /// `--old` and `--new` instead.
    #[arg(value_name = "FILE", conflicts_with_all = ["old", "new"])]
    files: Vec<PathBuf>,
    /// The older snapshot's files, read as one keyspace (a cluster's shards).
    #[arg(long, num_args = 1.., value_name = "FILE", requires = "new")]
    old: Vec<PathBuf>,
    /// The newer snapshot's files, read as one keyspace.
    #[arg(long, num_args = 1.., value_name = "FILE", requires = "old")]
    new: Vec<PathBuf>,
    /// With several files on a side: a key in two of them is `error` (refused, naming both),
    /// or the entry of the `first` / `last` file given that holds it counts.
    #[arg(long, value_name = "error|first|last", default_value = "error")]
    on_duplicate: bitlens::rdb::OnDuplicate,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Prefix separator byte (repeatable; default `:`).
    #[arg(long = "separator", value_name = "CHAR")]
    separators: Vec<char>,
    /// The allocator of the writers' builds (see `inspect --allocator`; default: inferred
    /// from each file's used-mem).
    #[arg(long, value_parser = parse_allocator)]
    allocator: Option<bitlens_views::memory::Allocator>,
    /// Do not verify the CRC-64 trailers.
    #[arg(long)]
    no_checksum: bool,
    /// Exit as diff(1) and cmp(1) do: 0 when the snapshots hold the same keys and values, 1
    /// when they differ (a key added, removed or changed), 2 on trouble (a file that cannot
    /// be read, bad arguments). Without it, 0 after any comparison, 1 when a file cannot be
    /// read, 2 on bad arguments.
    #[arg(long)]
    exit_code: bool,
    #[command(flatten)]
    limit: LimitArgs,
}

fn diff(args: DiffArgs) -> ExitCode {
    let exit_code = args.exit_code;
    match diff_run(args) {
        // Trouble: 2 with --exit-code (1 then says they differ).
        DiffOutcome::Trouble(_) if exit_code => ExitCode::from(2),
        DiffOutcome::Trouble(c) => c,
        DiffOutcome::Compared { differ } => ExitCode::from(u8::from(exit_code && differ)),
    }
}

/// How `bitlens diff` ended: compared (the output written), or trouble (said on stderr)
/// with the exit code it has without `--exit-code`.
enum DiffOutcome {
    Compared { differ: bool },
    Trouble(ExitCode),
}

fn diff_run(args: DiffArgs) -> DiffOutcome {
    use DiffOutcome::Trouble;
    let (old, new) = match args.files.as_slice() {
        [] if !args.old.is_empty() => (args.old.clone(), args.new.clone()),
        [a, b] => (vec![a.clone()], vec![b.clone()]),
        _ => {
            eprintln!("bitlens: diff expects two files (diff A B), or --old FILE... --new FILE...");
            return Trouble(ExitCode::from(2));
        }
    };
    let all: Vec<PathBuf> = old.iter().chain(&new).cloned().collect();
    for p in &all {
        if let Err(code) = refuse_non_rdb(p) {
            return Trouble(code);
        }
    }
    let mut seps: Vec<u8> = args
        .separators
        .iter()
        .filter(|c| c.is_ascii())
        .map(|&c| c as u8)
        .collect();
    if seps.is_empty() {
        seps.push(b':');
    }
    let opts = bitlens::rdb::LoadOptions {
        verify_checksum: !args.no_checksum,
        threads: bitlens::open::load_threads(),
        max_value_bytes: args.limit.max_value_bytes,
        ..Default::default()
    };
    use bitlens_cli::diff::{diff_files, DiffError};
    // Every file of both sides read once, at most a core's worth at a time; the first error
    // in order wins.
    match diff_files(&old, &new, &opts, args.on_duplicate, &seps, args.allocator) {
        Ok(d) => {
            let text = if args.json {
                format!("{}\n", d.to_json())
            } else {
                d.to_text()
            };
            if write_stdout(text.as_bytes()) != ExitCode::SUCCESS {
                return Trouble(ExitCode::from(1));
            }
            DiffOutcome::Compared {
                differ: !(d.added.is_empty() && d.removed.is_empty() && d.changed.is_empty()),
            }
        }
        Err(DiffError::File(i, e)) => {
            Trouble(union_error(&all, bitlens::open::OpenError::File(i, e)))
        }
        Err(DiffError::Duplicate(side, d)) => {
            let (flag, paths) = if side == 0 {
                ("--old", &old)
            } else {
                ("--new", &new)
            };
            eprintln!(
                "bitlens: {flag}: {}; {}",
                bitlens::open::describe_duplicate(&d, paths),
                bitlens::open::CLI.keep_one
            );
            Trouble(ExitCode::from(1))
        }
    }
}

/// A path from the bytes of an OS argument (as given on Unix; lossy UTF-8 elsewhere).
pub(crate) fn bytes_path(bytes: Vec<u8>) -> std::path::PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        OsString::from_vec(bytes).into()
    }
    #[cfg(not(unix))]
    {
        String::from_utf8_lossy(&bytes).into_owned().into()
    }
}

/// Converts an OS argument to bytes (arguments are passed to commands unchanged).
pub(crate) fn os_bytes(s: OsString) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        s.into_vec()
    }
    #[cfg(not(unix))]
    {
        s.to_string_lossy().into_owned().into_bytes()
    }
}
