//! `bitlens query`: load a snapshot, run commands, print replies as `redis-cli` does: its
//! terminal form (`(integer) 5`, quoted strings, numbered arrays) when stdout is a terminal or
//! with `--no-raw`, its piped form (bare values, one per line) otherwise or with `--raw`.

use std::ffi::OsString;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use bitlens::dialect::Profile;
use bitlens::keyspace::{Keyspace, Value};
use bitlens::rdb;
use bitlens::session::{snapshot_time_ms, Session};
use clap::Args;

use crate::split::{parse_line, LineAction};

/// Arguments of `bitlens query`.
#[derive(Args, Debug)]
pub struct QueryArgs {
    /// An RDB file (dump.rdb) to load. Repeat it for several files (a cluster's shards), read
    /// in parallel and queried as one keyspace; a key in two files is an error unless
    /// `--on-duplicate` says which to keep.
    #[arg(long, value_name = "FILE")]
    pub rdb: Vec<PathBuf>,
    /// With several `--rdb` files: `error` (a key in two files is refused, naming both),
    /// `first` or `last` (keep the entry of the first / last file given that holds it).
    #[arg(long, value_name = "error|first|last", default_value = "error")]
    pub on_duplicate: rdb::OnDuplicate,
    /// Load a DUMP payload from FILE under KEY (repeatable). The last `=` separates KEY from FILE.
    #[arg(long = "dump", value_name = "KEY=FILE", value_parser = clap::value_parser!(OsString))]
    pub dumps: Vec<OsString>,
    /// Load the raw bytes of FILE (what `GET KEY` returned) as a string under KEY (repeatable).
    #[arg(long = "string", value_name = "KEY=FILE", value_parser = clap::value_parser!(OsString))]
    pub strings: Vec<OsString>,
    /// Load a serialized Roaring bitmap (the portable format of the Java, Go and C libraries)
    /// from FILE as a bitmap string under KEY: value v becomes bit offset v (repeatable).
    #[arg(long = "roaring", value_name = "KEY=FILE", value_parser = clap::value_parser!(OsString))]
    pub roarings: Vec<OsString>,
    /// After the commands ran, write the bitmap at KEY to FILE as a portable Roaring bitmap
    /// (bit offset v becomes value v; repeatable). A missing key writes an empty bitmap.
    #[arg(long = "save-roaring", value_name = "KEY=FILE", value_parser = clap::value_parser!(OsString))]
    pub save_roarings: Vec<OsString>,
    /// Load only the RDB keys matching this glob (KEYS rules; repeatable): a big file costs
    /// only the memory of the keys selected, and the commands see only those keys.
    #[arg(long = "match", value_name = "GLOB", value_parser = clap::value_parser!(OsString))]
    pub matches: Vec<OsString>,
    /// The database number to query (as `redis-cli -n`).
    #[arg(short = 'n', long = "db", default_value_t = 0)]
    pub db: u64,
    /// Do not verify the RDB / DUMP CRC-64 trailer.
    #[arg(long)]
    pub no_checksum: bool,
    /// The server profile and clock (`--compat`, `--clock`).
    #[command(flatten)]
    pub dialect: crate::DialectArgs,
    #[command(flatten)]
    pub limit: crate::LimitArgs,
    /// The allocator of the writer's build, for MEMORY USAGE: jemalloc (Redis' bundled
    /// build), jemalloc16 (a system jemalloc, e.g. Debian's), libc. Default: inferred from a
    /// single file's used-mem, as `inspect` does.
    #[arg(long, value_parser = crate::parse_allocator)]
    pub allocator: Option<bitlens_views::memory::Allocator>,
    /// Say on stderr which server the replies follow and at which clock.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// Print replies in redis-cli's piped form (bare values, one per line) even on a terminal
    /// (as `redis-cli --raw`).
    #[arg(long, conflicts_with = "no_raw")]
    pub raw: bool,
    /// Print replies in redis-cli's terminal form (`(integer) 5`, quoted strings, numbered
    /// arrays) even when stdout is not a terminal (as `redis-cli --no-raw`).
    #[arg(long)]
    pub no_raw: bool,
    /// The command and its arguments; without it, commands are read from stdin, one per line.
    /// Options come before it (a first word starting with `-` is an option, refused when
    /// unknown, as redis-cli does); after the command's name every word is an argument, `-5`
    /// and `--x` included.
    #[arg(trailing_var_arg = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

/// Splits `KEY=FILE` at its last `=`.
fn key_file(spec: &OsString) -> Option<(Vec<u8>, PathBuf)> {
    let mut key = crate::os_bytes(spec.clone());
    let i = key.iter().rposition(|&b| b == b'=')?;
    let path = crate::bytes_path(key.split_off(i + 1));
    key.truncate(i);
    Some((key, path))
}

/// Builds the session from the `--rdb`, `--dump`, `--string` and `--roaring` sources (every
/// database of the RDB; the other sources go into database `-n`), answering as `--compat` or
/// the writer (the RDB's `valkey-ver`/`redis-ver`, else its RDB version, else the first DUMP
/// payload's trailer version), at `--clock`. Reports on stderr which file could not be read
/// and where. `-n` selects as redis-cli does: a failing SELECT is printed on stderr and the
/// commands run on database 0.
pub fn load_session(args: &QueryArgs) -> Result<Session, ExitCode> {
    let spec = bitlens::open::LoadSpec {
        verify_checksum: !args.no_checksum,
        threads: bitlens::open::load_threads(),
        patterns: args.matches.iter().cloned().map(crate::os_bytes).collect(),
        // With --compat, refuse what that server's loader refuses.
        compat: args.dialect.compat,
        clock: args.dialect.clock,
        on_duplicate: args.on_duplicate,
        max_value_bytes: args.limit.max_value_bytes,
        ..Default::default()
    };
    let max = args.limit.max_value_bytes;
    let mut loaded = None;
    if !args.rdb.is_empty() {
        // Every file on the decoding pool; errors reported in the order given.
        let mut l = spec
            .open_paths(&args.rdb)
            .map_err(|e| crate::union_error(&args.rdb, e))?;
        bitlens_views::memory::give_memory_usage(&mut l, args.allocator);
        for w in &l.warnings {
            eprintln!("bitlens: warning: {w}");
        }
        loaded = Some(l);
    }
    let mut extra: Vec<(Vec<u8>, Value)> = Vec::new();
    let mut dump_version = None;
    for spec in &args.strings {
        let Some((key, path)) = key_file(spec) else {
            eprintln!("bitlens: --string expects KEY=FILE, got {spec:?}");
            return Err(ExitCode::from(2));
        };
        let bytes = crate::read_file(&path, max)?;
        extra.push((key, rdb::load_string(bytes)));
    }
    for spec in &args.roarings {
        let Some((key, path)) = key_file(spec) else {
            eprintln!("bitlens: --roaring expects KEY=FILE, got {spec:?}");
            return Err(ExitCode::from(2));
        };
        let bytes = crate::read_file(&path, max)?;
        match bitlens::string::roaring::from_roaring(&bytes) {
            Ok(s) => extra.push((key, Value::String(s))),
            Err(e) => {
                eprintln!(
                    "bitlens: cannot load Roaring bitmap {}: {e}",
                    bitlens::open::path_display(&path)
                );
                return Err(ExitCode::from(1));
            }
        }
    }
    for spec in &args.dumps {
        let Some((key, path)) = key_file(spec) else {
            eprintln!("bitlens: --dump expects KEY=FILE, got {spec:?}");
            return Err(ExitCode::from(2));
        };
        let bytes = crate::read_file(&path, max)?;
        if let Some(why) = wrong_kind(&bytes, "--dump") {
            eprintln!(
                "bitlens: cannot load DUMP payload {}: {why}",
                bitlens::open::path_display(&path)
            );
            return Err(ExitCode::from(1));
        }
        match rdb::load_dump_with(&bytes, !args.no_checksum) {
            Ok(value) => {
                if dump_version.is_none() {
                    dump_version = rdb::split_dump(&bytes, false).ok().map(|d| d.2 as u32);
                }
                extra.push((key, value))
            }
            Err(e) => {
                // Bytes that are no DUMP reply at all (no valid type byte, RDB version and
                // CRC-64 trailer) say so and what to use instead; a damaged DUMP payload gets
                // the loader's error with its offset.
                let why = if rdb::detect(&bytes) == rdb::Detected::Raw && !args.no_checksum {
                    // A DUMP reply ends with a 2-byte RDB version and an 8-byte CRC-64: say
                    // what those bytes read here (a cut-off payload reads a nonsense version).
                    let trailer = if bytes.len() < 10 {
                        "shorter than the 10-byte trailer of a DUMP reply".to_string()
                    } else {
                        let at = bytes.len() - 10;
                        let v = u16::from_le_bytes([bytes[at], bytes[at + 1]]);
                        let known = rdb::Format::from_dump_version(v).is_ok();
                        format!(
                            "a DUMP reply ends with a 2-byte RDB version and a CRC-64; the version \
                             here (byte offset {at}) reads {v}{}",
                            if known {
                                " but the CRC-64 does not match"
                            } else {
                                ", which no server writes"
                            }
                        )
                    };
                    format!(
                        "not a DUMP payload, or a truncated one ({} bytes: {trailer}); raw GET \
                         bytes go with --string KEY=FILE, an RDB file with --rdb",
                        bytes.len()
                    )
                } else {
                    bitlens::open::CLI.error_text(&e)
                };
                eprintln!(
                    "bitlens: cannot load DUMP payload {}: {why}",
                    bitlens::open::path_display(&path)
                );
                return Err(ExitCode::from(1));
            }
        }
    }
    let (mut session, aux) = match loaded {
        Some(l) => (l.session, l.header.aux),
        None => {
            let writer = dump_version.map_or(Profile::default_profile(), Profile::for_rdb_version);
            let profile = args.dialect.compat.unwrap_or(writer);
            let clock = args.dialect.clock.resolve(&[]);
            let mut session = Session::new(Default::default(), profile, Some(clock));
            // No file to infer the allocator from: the usual build's.
            let usual = args.allocator.unwrap_or(
                bitlens_views::memory::AllocatorChoice::assumed(String::new()).allocator,
            );
            session.set_memory_usage(std::sync::Arc::new(
                bitlens_views::memory::Model::new(profile, usual).at(Some(clock)),
            ));
            (session, Vec::new())
        }
    };
    let profile = session.profile();
    let clock = session.clock().unwrap_or_default();
    if args.db != 0 {
        if let Err(bitlens::Reply::Error(e)) = session.select(args.db) {
            // As redis-cli -n: the SELECT failure on stderr, the commands on database 0.
            eprintln!("SELECT {} failed: {e}", args.db);
        }
    }
    let ks = session.keyspace_mut();
    for (key, value) in extra {
        ks.set(key, value);
    }
    if args.verbose {
        let source = if args.dialect.compat.is_some() {
            "--compat"
        } else {
            "the writer of this snapshot"
        };
        let at = if snapshot_time_ms(&aux).is_some_and(|t| t == clock) {
            "the snapshot's time"
        } else {
            "the clock"
        };
        eprintln!(
            "bitlens: answers as {} ({}, {source}); expiry judged at {at}, {clock} ms",
            profile.display_name(),
            profile.name
        );
    }
    Ok(session)
}

use bitlens::open::wrong_kind;

/// Which of redis-cli's two output forms to print replies in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CliForm {
    /// The terminal form, [`bitlens::Reply::to_redis_cli_tty`].
    Tty,
    /// The piped form, [`bitlens::Reply::to_redis_cli`].
    Piped,
}

impl CliForm {
    /// The form `redis-cli` picks: `--raw` / `--no-raw` if given, else the terminal form
    /// exactly when stdout is a terminal.
    pub fn choose(raw: bool, no_raw: bool, stdout_is_terminal: bool) -> CliForm {
        if no_raw || (!raw && stdout_is_terminal) {
            CliForm::Tty
        } else {
            CliForm::Piped
        }
    }

    /// The printed bytes of `reply` in this form, final newline included.
    pub fn format(self, reply: &bitlens::Reply) -> Vec<u8> {
        match self {
            CliForm::Tty => reply.to_redis_cli_tty(),
            CliForm::Piped => reply.to_redis_cli(),
        }
    }
}

/// Runs `bitlens query`.
pub fn run(args: QueryArgs) -> ExitCode {
    if args.rdb.is_empty()
        && args.dumps.is_empty()
        && args.strings.is_empty()
        && args.roarings.is_empty()
    {
        eprintln!(
            "bitlens query: give a snapshot with --rdb FILE, --dump KEY=FILE, --string KEY=FILE or --roaring KEY=FILE"
        );
        return ExitCode::from(2);
    }
    // Never dropped: the process exits after this run, and freeing millions of values one by
    // one would add a tenth to a load (0.3 s of the 3M-key file's 2.4 s).
    let mut session = std::mem::ManuallyDrop::new(match load_session(&args) {
        Ok(s) => s,
        Err(code) => return code,
    });
    let stdout = std::io::stdout();
    let form = CliForm::choose(args.raw, args.no_raw, stdout.is_terminal());
    let mut out = stdout.lock();
    let result = if args.command.is_empty() {
        run_lines(&mut session, std::io::stdin().lock(), &mut out, form)
    } else {
        let argv: Vec<Vec<u8>> = args.command.iter().cloned().map(crate::os_bytes).collect();
        out.write_all(&form.format(&session.execute(&argv)))
            .and_then(|_| out.flush())
    };
    if let Err(code) = save_roarings(session.keyspace_mut(), &args.save_roarings) {
        return code;
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`| head`) ends the run quietly, as redis-cli does.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bitlens: {e}");
            ExitCode::from(1)
        }
    }
}

/// Writes each `KEY=FILE` of `--save-roaring` as a portable Roaring bitmap.
fn save_roarings(ks: &Keyspace, specs: &[OsString]) -> Result<(), ExitCode> {
    for spec in specs {
        let Some((key, path)) = key_file(spec) else {
            eprintln!("bitlens: --save-roaring expects KEY=FILE, got {spec:?}");
            return Err(ExitCode::from(2));
        };
        let empty = bitlens::string::RedisString::default();
        let s = match ks.get(&key) {
            Some(Value::String(s)) => s,
            None => {
                // As Redis, a missing key reads as the empty string; say so, since a mistyped
                // key would otherwise silently write an empty bitmap.
                eprintln!(
                    "bitlens: --save-roaring: key {:?} does not exist; writing an empty bitmap to {}",
                    String::from_utf8_lossy(&key),
                    bitlens::open::path_display(&path)
                );
                &empty
            }
            Some(_) => {
                eprintln!(
                    "bitlens: --save-roaring: key {:?} is not a string",
                    String::from_utf8_lossy(&key)
                );
                return Err(ExitCode::from(1));
            }
        };
        let bytes = bitlens::string::roaring::to_roaring(s).map_err(|e| {
            eprintln!(
                "bitlens: --save-roaring {}: {e}",
                String::from_utf8_lossy(&key)
            );
            ExitCode::from(1)
        })?;
        std::fs::write(&path, bytes).map_err(|e| {
            eprintln!(
                "bitlens: cannot write {}: {e}",
                bitlens::open::path_display(&path)
            );
            ExitCode::from(1)
        })?;
    }
    Ok(())
}

/// The prompt loop of redis-cli fed from a pipe: one command per line, state (the selected
/// database included) kept across lines, replies printed in `form`.
pub fn run_lines<R: BufRead, W: Write>(
    session: &mut Session,
    mut input: R,
    out: &mut W,
    form: CliForm,
) -> std::io::Result<()> {
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        match parse_line(&line) {
            LineAction::Skip => {}
            LineAction::Quit => return Ok(()),
            LineAction::Message(m) => {
                out.write_all(m.as_bytes())?;
                out.write_all(b"\n")?;
            }
            LineAction::Run { times, argv } => {
                for _ in 0..times {
                    out.write_all(&form.format(&session.execute(&argv)))?;
                }
            }
        }
        out.flush()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitlens::string::RedisString;
    use bitlens::Value;

    #[test]
    fn lines_keep_state_and_print_like_redis_cli() {
        let mut ks = Keyspace::new();
        ks.set(b"a", Value::String(RedisString::from_bytes(b"xy".to_vec())));
        let mut ks = Session::new(
            [(0, ks)].into_iter().collect(),
            Profile::default_profile(),
            None,
        );
        let input =
            b"EXISTS a a\nGET \"unterminated\n\n2 EXISTS a nokey\nTYPE a\nTYPE\nquit\nEXISTS a\n";
        let mut out = Vec::new();
        run_lines(&mut ks, &input[..], &mut out, CliForm::Piped).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "2\nInvalid argument(s)\n1\n1\nstring\nERR wrong number of arguments for 'type' command\n\n"
        );
        let mut out = Vec::new();
        run_lines(&mut ks, &input[..], &mut out, CliForm::Tty).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "(integer) 2\nInvalid argument(s)\n(integer) 1\n(integer) 1\nstring\n\
             (error) ERR wrong number of arguments for 'type' command\n"
        );
    }

    #[test]
    fn form_follows_flags_then_terminal() {
        assert_eq!(CliForm::choose(false, false, true), CliForm::Tty);
        assert_eq!(CliForm::choose(false, false, false), CliForm::Piped);
        assert_eq!(CliForm::choose(true, false, true), CliForm::Piped);
        assert_eq!(CliForm::choose(false, true, false), CliForm::Tty);
    }

    #[test]
    fn key_file_splits_at_last_equals() {
        assert_eq!(
            key_file(&"a=b=c.bin".into()),
            Some((b"a=b".to_vec(), PathBuf::from("c.bin")))
        );
        assert_eq!(key_file(&"nofile".into()), None);
        // Non-UTF-8 key names pass through unchanged (a Unix argument is bytes).
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStringExt;
            let spec = OsString::from_vec(b"k\xff\xfe=d\xffir/f.bin".to_vec());
            let (key, path) = key_file(&spec).unwrap();
            assert_eq!(key, b"k\xff\xfe");
            assert_eq!(crate::os_bytes(path.into_os_string()), b"d\xffir/f.bin");
        }
    }
}
