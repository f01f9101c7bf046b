//! `bitlens`: query, inspect and serve Redis snapshots (see README).
//!
//! - `bitlens query --rdb FILE [--raw|--no-raw] [COMMAND ARG...]`: answers Redis read commands
//!   on a snapshot and prints exactly what `redis-cli` prints (its terminal form on a terminal
//!   or with `--no-raw`, its piped form otherwise or with `--raw`).
//! - `bitlens inspect FILE [--json]`: a report of a snapshot's keys, with the profile in force
//!   and the keys already expired at the clock.
//! - `query`, `inspect` and `serve` take `--compat PROFILE` (answer as that server instead of
//!   the snapshot's writer) and `--clock now|snapshot|UNIX_MS` (when expiry is judged; default
//!   the snapshot's ctime); see [`bitlens::dialect`] and [`bitlens::session`].
//! - `bitlens chart KIND --rdb FILE --svg OUT`: an engagement chart (dau, streaks, retention,
//!   enums) as SVG.
//! - `bitlens serve [--redis URL]`: the panel plus the snapshot API (live Redis or demo data).

mod chart;
mod query;
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
    #[arg(long, value_name = "PROFILE", value_parser = parse_compat)]
    pub compat: Option<&'static Profile>,
    /// The clock expiry is judged at: `snapshot` (the snapshot's ctime; the default), `now`,
    /// or Unix milliseconds. Keys past their TTL at that clock are invisible, as in Redis.
    #[arg(long, value_name = "now|snapshot|UNIX_MS", value_parser = Clock::parse, default_value = "snapshot")]
    pub clock: Clock,
}

fn parse_compat(name: &str) -> Result<&'static Profile, String> {
    Profile::from_name(name).ok_or_else(|| {
        format!(
            "unknown profile {name:?}; one of: {}",
            Profile::names().join(", ")
        )
    })
}

#[derive(Parser)]
#[command(
    name = "bitlens",
    version,
    about = "Redis bitmap / HyperLogLog / GEO analytics on snapshots"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run Redis read commands on a snapshot; prints what redis-cli prints. Without COMMAND,
    /// reads commands from stdin, one per line (redis-cli quoting rules).
    Query(query::QueryArgs),
    /// Report the keys of an RDB file: per database, grouped by pattern.
    Inspect {
        /// The RDB file.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Do not verify the CRC-64 trailer.
        #[arg(long)]
        no_checksum: bool,
        #[command(flatten)]
        dialect: DialectArgs,
    },
    /// Serve the panel and the snapshot API (`/api/snapshot`, `/api/keys`, `/api/info`).
    Serve(serve::ServeArgs),
    /// Draw an engagement chart (dau, streaks, retention, enums) of a snapshot as SVG.
    Chart(chart::ChartArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Query(args) => query::run(args),
        Command::Inspect {
            file,
            json,
            no_checksum,
            dialect,
        } => inspect(&file, json, no_checksum, &dialect),
        Command::Serve(args) => serve::run(args),
        Command::Chart(args) => chart::run(args),
    }
}

/// Reads a whole file or reports `bitlens: cannot read FILE: reason` on stderr.
pub(crate) fn read_file(path: &std::path::Path) -> Result<Vec<u8>, ExitCode> {
    std::fs::read(path).map_err(|e| {
        eprintln!("bitlens: cannot read {}: {e}", path.display());
        ExitCode::from(1)
    })
}

fn inspect(
    file: &std::path::Path,
    json: bool,
    no_checksum: bool,
    dialect: &DialectArgs,
) -> ExitCode {
    let bytes = match read_file(file) {
        Ok(b) => b,
        Err(code) => return code,
    };
    if let Some(why) = query::wrong_kind(&bytes, "--rdb") {
        eprintln!("bitlens: cannot inspect {}: {why}", file.display());
        return ExitCode::from(1);
    }
    let opts = bitlens::rdb::LoadOptions {
        verify_checksum: !no_checksum,
        ..Default::default()
    };
    match bitlens::inspect::report(&bytes, &opts) {
        Ok(report) => {
            let report = report.at(dialect.compat, dialect.clock);
            let text = if json {
                let mut t = report.to_json().to_string();
                t.push('\n');
                t
            } else {
                report.to_text()
            };
            use std::io::Write as _;
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("bitlens: {e}");
                    ExitCode::from(1)
                }
            }
        }
        Err(e) => {
            eprintln!("bitlens: cannot read snapshot {}: {e}", file.display());
            ExitCode::from(1)
        }
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
