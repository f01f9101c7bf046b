//! Runs the cases recorded from every real server (`tests/data/conformance/<server>/`, written
//! by `scripts/record-conformance.py`; format: `../shared/conformance/README.md` plus a `db`
//! field and the `order: hash table` note, described in the script's header) against bitlens,
//! on the `dump.rdb` that server wrote, in a session with the default profile (the writer's,
//! which must be that server's release line) and the default clock (the snapshot's `ctime`). Compares the RESP2 bytes and the cli output byte for byte (as multisets
//! where the server answered in hash-table order), prints a per-command, per-server pass table,
//! and fails when any case fails: there is no allow-list.

use std::collections::BTreeMap;
use std::path::PathBuf;

mod common;

use bitlens::dialect::Profile;
use bitlens::rdb::{load_rdb, LoadOptions};
use bitlens::session::{Clock, Session};
use common::{argv, expected};
use serde_json::Value as Json;

/// The recorded servers: folder name and the `--compat` profile of its release line (what the
/// snapshot's default profile must be; `Profile::from_name` maps a release to its line).
const SERVERS: [(&str, &str); 8] = [
    ("redis-6.0.9", "redis-6.0"),
    ("redis-6.2.14", "redis-6.2"),
    ("redis-7.0.15", "redis-7.0"),
    ("redis-7.4.1", "redis-7.4"),
    ("redis-8.0.2", "redis-8.0"),
    // Valkey 8.1.0-8.1.2 have their own line (memory layout, see Profile::from_name).
    ("valkey-8.1.1", "valkey-8.1.0"),
    ("valkey-8.1.8", "valkey-8.1"),
    // The dialect table's Valkey 9.x line is `valkey-9.0`; Valkey 9.1.2 answers as it.
    ("valkey-9.1.2", "valkey-9.0"),
];

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/conformance")
}

/// One RESP2 value as its exact bytes, with arrays split into their elements.
enum Resp {
    Scalar(Vec<u8>),
    Array(Vec<u8>, Vec<Resp>),
}

impl Resp {
    fn bytes(&self) -> Vec<u8> {
        match self {
            Resp::Scalar(b) => b.clone(),
            Resp::Array(head, items) => {
                let mut out = head.clone();
                for i in items {
                    out.extend(i.bytes());
                }
                out
            }
        }
    }
}

/// Parses one RESP2 value at `*pos`; `None` on malformed input.
fn parse_resp(b: &[u8], pos: &mut usize) -> Option<Resp> {
    let start = *pos;
    let end = start + b.get(start..)?.windows(2).position(|w| w == b"\r\n")? + 2;
    let n = || -> Option<i64> {
        std::str::from_utf8(&b[start + 1..end - 2])
            .ok()?
            .parse()
            .ok()
    };
    *pos = end;
    match b[start] {
        b'$' if n()? >= 0 => {
            *pos = end + n()? as usize + 2;
            Some(Resp::Scalar(b.get(start..*pos)?.to_vec()))
        }
        b'*' if n()? >= 0 => {
            let mut items = Vec::new();
            for _ in 0..n()? {
                items.push(parse_resp(b, pos)?);
            }
            Some(Resp::Array(b[start..end].to_vec(), items))
        }
        _ => Some(Resp::Scalar(b[start..end].to_vec())),
    }
}

/// Sorted groups of `k` consecutive elements' bytes (the multiset of a hash-table order reply).
fn multiset<T: AsRef<[u8]>>(items: &[T], k: usize) -> Option<Vec<Vec<u8>>> {
    if !items.len().is_multiple_of(k) {
        return None;
    }
    let mut groups: Vec<Vec<u8>> = items
        .chunks(k)
        .map(|c| c.iter().flat_map(|x| x.as_ref().to_vec()).collect())
        .collect();
    groups.sort();
    Some(groups)
}

/// The comparison key of a RESP reply: its bytes, or, for an `order: hash table` case, the
/// array head plus the multiset of its elements (of the second element for *SCAN replies).
fn resp_key(resp: &[u8], unordered: Option<usize>, scan: bool) -> Vec<Vec<u8>> {
    let Some(k) = unordered else {
        return vec![resp.to_vec()];
    };
    let mut pos = 0;
    let tree = match parse_resp(resp, &mut pos) {
        Some(t) if pos == resp.len() => t,
        _ => return vec![resp.to_vec()],
    };
    let (prefix, items) = match (&tree, scan) {
        (Resp::Array(head, top), true) if top.len() == 2 => match &top[1] {
            Resp::Array(h2, items) => ([head.clone(), top[0].bytes(), h2.clone()].concat(), items),
            _ => return vec![resp.to_vec()],
        },
        (Resp::Array(head, items), false) => (head.clone(), items),
        _ => return vec![resp.to_vec()],
    };
    let elems: Vec<Vec<u8>> = items.iter().map(Resp::bytes).collect();
    match multiset(&elems, k) {
        Some(mut m) => {
            m.insert(0, prefix);
            m
        }
        None => vec![resp.to_vec()],
    }
}

/// The comparison key of cli output: its bytes, or the multiset of its lines (after the
/// cursor line for *SCAN), `k` lines at a time.
fn cli_key(out: &[u8], unordered: Option<usize>, scan: bool) -> Vec<Vec<u8>> {
    let Some(k) = unordered else {
        return vec![out.to_vec()];
    };
    let mut lines: Vec<&[u8]> = out.split_inclusive(|&c| c == b'\n').collect();
    let head = if scan && !lines.is_empty() {
        lines.remove(0).to_vec()
    } else {
        Vec::new()
    };
    match multiset(&lines, k) {
        Some(mut m) => {
            m.insert(0, head);
            m
        }
        None => vec![out.to_vec()],
    }
}

/// The command's row in the table: its name, with the subcommand for OBJECT/XINFO.
fn command_label(argv: &[Vec<u8>]) -> String {
    let name = String::from_utf8_lossy(&argv[0]).to_uppercase();
    match (name.as_str(), argv.get(1)) {
        ("OBJECT" | "XINFO", Some(sub)) => format!("{name} {}", String::from_utf8_lossy(sub)),
        _ => name,
    }
    .to_uppercase()
}

#[derive(Default)]
struct Outcome {
    /// Command -> (passed, total).
    by_command: BTreeMap<String, (usize, usize)>,
    failures: Vec<String>,
    /// A reason why no case could run (the file does not load, the profile is missing).
    fatal: Option<String>,
    /// The default profile is not the server's (the cases ran with it anyway).
    wrong_profile: bool,
    total: usize,
}

/// Runs the cases of `folder` whose command label `take` accepts, on that folder's own
/// `dump.rdb` with the default profile (which must be `profile`).
fn run_server(folder: &str, profile: &str, take: fn(&str) -> bool) -> Outcome {
    run_cases(folder, folder, profile, false, &|c| {
        take(&command_label(&argv(c)))
    })
}

/// Runs the cases of `folder` that `take` accepts on the `dump.rdb` of `file_folder`: with
/// `compat`, as `--compat profile`; else with the file's default profile, which must be
/// `profile`.
fn run_cases(
    folder: &str,
    file_folder: &str,
    profile: &str,
    compat: bool,
    take: &dyn Fn(&Json) -> bool,
) -> Outcome {
    let dir = data_dir().join(folder);
    let text = std::fs::read_to_string(dir.join("cases.jsonl"))
        .unwrap_or_else(|e| panic!("{folder}/cases.jsonl: {e}"));
    let cases: Vec<Json> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str::<Json>(l).expect("case json"))
        .filter(|c| take(c))
        .collect();
    let mut out = Outcome {
        total: cases.len(),
        ..Outcome::default()
    };
    for case in &cases {
        out.by_command
            .entry(command_label(&argv(case)))
            .or_default()
            .1 += 1;
    }
    let rdb = std::fs::read(data_dir().join(file_folder).join("dump.rdb")).expect("read dump.rdb");
    let snapshot = match load_rdb(&rdb, &LoadOptions::default()) {
        Ok(s) => s,
        Err(e) => {
            out.fatal = Some(format!("{file_folder}/dump.rdb does not load: {e}"));
            return out;
        }
    };
    let want_profile = Profile::from_name(profile);
    if compat && want_profile.is_none() {
        out.fatal = Some(format!("no profile {profile:?} for --compat"));
        return out;
    }
    // Without --compat the profile is the writer's (its valkey-ver / redis-ver aux field);
    // the clock is the snapshot's own time: as `bitlens query` runs.
    let mut session =
        Session::from_snapshot(snapshot, want_profile.filter(|_| compat), Clock::Snapshot);
    if want_profile.map(|p| p.name) != Some(session.profile().name) {
        out.wrong_profile = true;
        out.fatal = Some(format!(
            "the snapshot's default profile is {:?}, not {profile:?} ({:?}): every case fails; \
             the table shows the cases that pass with {:?}",
            session.profile().name,
            want_profile.map(|p| p.name),
            session.profile().name
        ));
    }
    for case in &cases {
        let argv = argv(case);
        let db = case.get("db").and_then(Json::as_u64).unwrap_or(0);
        let reply = match session.select(db) {
            Ok(()) => session.execute(&argv),
            Err(e) => e,
        };
        let note = case.get("note").and_then(Json::as_str).unwrap_or("");
        let unordered = if note.contains("order: hash table (pairs)") {
            Some(2)
        } else if note.contains("order: hash table") {
            Some(1)
        } else {
            None
        };
        let scan = command_label(&argv).ends_with("SCAN");
        let want_resp = expected(case, "resp", "resp_hex");
        let want_cli = expected(case, "redis_cli", "redis_cli_hex");
        let got_resp = reply.to_resp();
        let got_cli = reply.to_redis_cli();
        let ok = resp_key(&got_resp, unordered, scan) == resp_key(&want_resp, unordered, scan)
            && cli_key(&got_cli, unordered, scan) == cli_key(&want_cli, unordered, scan);
        if ok {
            out.by_command.get_mut(&command_label(&argv)).unwrap().0 += 1;
        } else {
            let show = |b: &[u8]| {
                String::from_utf8_lossy(b)
                    .chars()
                    .take(200)
                    .collect::<String>()
            };
            out.failures.push(format!(
                "{} db {db} {:?}\n    want {:?} / cli {:?}\n    got  {:?} / cli {:?}",
                case["id"].as_str().unwrap_or("?"),
                argv.iter()
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect::<Vec<_>>(),
                show(&want_resp),
                show(&want_cli),
                show(&got_resp),
                show(&got_cli),
            ));
        }
    }
    out
}

/// Prints the per-command table (one column per server) and the first failures of each, and
/// returns the number of failing cases.
fn report(outcomes: &[(&str, Outcome)]) -> usize {
    let mut commands: Vec<&String> = outcomes
        .iter()
        .flat_map(|(_, o)| o.by_command.keys())
        .collect();
    commands.sort();
    commands.dedup();
    let mut header = format!("{:<18}", "command");
    for (name, _) in outcomes {
        header += &format!(" {name:>14}");
    }
    println!("{header}");
    for cmd in commands {
        let mut row = format!("{cmd:<18}");
        for (_, o) in outcomes {
            // `(p)/t`: p pass, but with a default profile that is not the server's.
            let cell = match o.by_command.get(cmd) {
                Some((p, t)) if o.fatal.is_none() => format!("{p}/{t}"),
                Some((p, t)) if o.wrong_profile => format!("({p})/{t}"),
                Some((_, t)) => format!("-/{t}"),
                None => String::new(),
            };
            row += &format!(" {cell:>14}");
        }
        println!("{row}");
    }
    let mut failing = 0;
    for (name, o) in outcomes {
        let bad = if o.fatal.is_some() {
            o.total
        } else {
            o.failures.len()
        };
        failing += bad;
        println!("{name}: {}/{} cases pass", o.total - bad, o.total);
        if let Some(f) = &o.fatal {
            println!("  FATAL {f}");
        }
        for f in o.failures.iter().take(10) {
            println!("  FAIL {f}");
        }
    }
    failing
}

#[test]
fn every_server_answers_as_recorded_on_its_own_snapshot() {
    let outcomes: Vec<(&str, Outcome)> = SERVERS
        .iter()
        .map(|&(folder, profile)| (folder, run_server(folder, profile, |_| true)))
        .collect();
    let failing = report(&outcomes);
    let total: usize = outcomes.iter().map(|(_, o)| o.total).sum();
    assert_eq!(
        failing, 0,
        "{failing} of {total} recorded server cases fail"
    );
}

/// Issue 14: `--compat` set to another server's profile gives that server's answers. The
/// cases each server recorded with a note starting `issue 14:` (its difference table and the
/// commands and options that exist only from some version, on keys with the same content on
/// every server) run on every other server's file as `--compat <that server>`.
#[test]
fn compat_profile_answers_as_that_server_on_every_other_servers_file() {
    let mut failing = 0;
    let mut lines = Vec::new();
    let mut header = format!("{:<14}", "cases \\ file");
    for (file, _) in SERVERS {
        header += &format!(" {file:>13}");
    }
    println!("{header}");
    for &(cases, profile) in &SERVERS {
        let mut row = format!("{cases:<14}");
        for &(file, _) in &SERVERS {
            if file == cases {
                row += &format!(" {:>13}", "(own)");
                continue;
            }
            let o = run_cases(cases, file, profile, true, &|c| {
                c.get("note")
                    .and_then(Json::as_str)
                    .is_some_and(|n| n.starts_with("issue 14:"))
            });
            let bad = if o.fatal.is_some() {
                o.total
            } else {
                o.failures.len()
            };
            failing += bad;
            row += &format!(" {:>13}", format!("{}/{}", o.total - bad, o.total));
            if let Some(f) = &o.fatal {
                lines.push(format!("  FATAL {cases} cases on {file}: {f}"));
            }
            for f in o.failures.iter().take(3) {
                lines.push(format!("  FAIL on {file}'s file: {f}"));
            }
        }
        println!("{row}");
    }
    for l in &lines {
        println!("{l}");
    }
    assert_eq!(failing, 0, "{failing} --compat cases fail");
}

/// A module command (`BF.EXISTS`, `TDIGEST.QUANTILE`, ...): its name has a dot.
fn module_command(label: &str) -> bool {
    label.contains('.')
}

/// RedisBloom 2.8.2 values (module type 7) on Redis 7.4.1, read with core commands: TYPE
/// (`MBbloom--`, `MBbloomCF`, `CMSk-TYPE`, `TopK-TYPE`, `TDIS-TYPE`), EXISTS, KEYS, DBSIZE,
/// OBJECT ENCODING (issue 13: module values load, named, never fatal).
#[test]
fn redis_7_4_with_redisbloom_keys_answer_as_recorded() {
    let outcomes = vec![(
        "redis-7.4.1-bloom",
        run_server("redis-7.4.1-bloom", "redis-7.4", |l| !module_command(l)),
    )];
    let failing = report(&outcomes);
    assert_eq!(failing, 0, "{failing} RedisBloom keyspace cases fail");
}

/// The RedisBloom read commands themselves (BF.*, CF.*, CMS.*, TOPK.*, TDIGEST.*), recorded
/// for issue 20, which implements them; until then every one answers `ERR unknown command`.
#[test]

fn redis_7_4_with_redisbloom_module_commands_answer_as_recorded() {
    let outcomes = vec![(
        "redis-7.4.1-bloom",
        run_server("redis-7.4.1-bloom", "redis-7.4", module_command),
    )];
    let failing = report(&outcomes);
    assert_eq!(failing, 0, "{failing} RedisBloom module cases fail");
}

#[test]
fn hash_table_order_compares_as_a_multiset_and_nothing_else_does() {
    let a = b"*2\r\n$1\r\na\r\n$1\r\nb\r\n";
    let b = b"*2\r\n$1\r\nb\r\n$1\r\na\r\n";
    assert_ne!(resp_key(a, None, false), resp_key(b, None, false));
    assert_eq!(resp_key(a, Some(1), false), resp_key(b, Some(1), false));
    // Pairs stay together: (a b) is not (b a).
    let p1 = b"*4\r\n$1\r\nf\r\n$1\r\n1\r\n$1\r\ng\r\n$1\r\n2\r\n";
    let p2 = b"*4\r\n$1\r\ng\r\n$1\r\n2\r\n$1\r\nf\r\n$1\r\n1\r\n";
    let p3 = b"*4\r\n$1\r\nf\r\n$1\r\n2\r\n$1\r\ng\r\n$1\r\n1\r\n";
    assert_eq!(resp_key(p1, Some(2), false), resp_key(p2, Some(2), false));
    assert_ne!(resp_key(p1, Some(2), false), resp_key(p3, Some(2), false));
    // SCAN: the cursor must match exactly.
    let s1 = b"*2\r\n$1\r\n0\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n";
    let s2 = b"*2\r\n$1\r\n0\r\n*2\r\n$1\r\nb\r\n$1\r\na\r\n";
    let s3 = b"*2\r\n$1\r\n5\r\n*2\r\n$1\r\nb\r\n$1\r\na\r\n";
    assert_eq!(resp_key(s1, Some(1), true), resp_key(s2, Some(1), true));
    assert_ne!(resp_key(s1, Some(1), true), resp_key(s3, Some(1), true));
    assert_eq!(
        cli_key(b"0\na\nb\n", Some(1), true),
        cli_key(b"0\nb\na\n", Some(1), true)
    );
    assert_ne!(
        cli_key(b"0\na\nb\n", Some(1), true),
        cli_key(b"5\nb\na\n", Some(1), true)
    );
    // A different element set never matches.
    let c = b"*2\r\n$1\r\na\r\n$1\r\nc\r\n";
    assert_ne!(resp_key(a, Some(1), false), resp_key(c, Some(1), false));
}
