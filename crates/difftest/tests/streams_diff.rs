//! Differential test of the stream read commands on streams trimmed and deleted from in every
//! way each server allows, against all six servers (Redis 6.0.9, 6.2.14, 7.0.15, 7.4.1,
//! Valkey 8.1.8, 9.1.2; each skipped, with a message, when not installed).
//!
//! Per server: a small `stream-node-max-entries` (so streams have many nodes), then random
//! streams built by XADD (explicit ids, the master's fields or others, MAXLEN/MINID with `=`
//! or `~` and LIMIT where the server has them), XTRIM (MAXLEN/MINID, `=`/`~`, LIMIT), XDEL
//! (the first, a middle, the last entry of a node, runs of entries up to whole nodes, every
//! entry), consumer groups (XGROUP CREATE at `0`/`$`/an id, ENTRIESREAD, SETID, CREATECONSUMER,
//! DELCONSUMER), XREADGROUP, XACK, XCLAIM, XAUTOCLAIM and XSETID (ENTRIESADDED, MAXDELETEDID).
//! Commands a server refuses (an XSETID below the top id, ...) are part of the run: the state
//! is whatever the server made of them. The server SAVEs; the file is loaded into bitlens under
//! that server's profile and into a fresh server of the same version, and XLEN, XRANGE and
//! XREVRANGE (whole, random bounds, `(` bounds, COUNT), XINFO STREAM (and FULL with COUNT,
//! groups, their pending entries and consumers included) and XINFO GROUPS are compared byte
//! for byte on every key. The files
//! of Redis 6.0 and 6.2 (RDB_TYPE_STREAM_LISTPACKS v1) are also loaded by Redis 7.4.1 and
//! Valkey 9.1.2 and compared under their profiles: the first id, entries-added and groups'
//! entries-read that Redis 7 and Valkey derive from a v1 stream.
//!
//! Not compared here: XINFO CONSUMERS (its idle times run to each side's clock; `bitlens
//! resp`'s resp_diff compares it with those masked) and XPENDING (not answered yet).
//!
//! `streams_length_mismatch_*`: a stream whose recorded length is not its nodes' live entries
//! (the state of the `trim` key of public fixtures, written by a Redis 5 release candidate,
//! which no server here produces), and one whose master entry's live count disagrees with its
//! entry flags, written by bitlens' RDB writer and loaded by each server: Redis 6.0–7.4 and
//! Valkey 8.1 start, and their replies (XLEN the recorded length, the ranges what the nodes
//! hold) match bitlens'; Valkey 9.1 refuses each, as bitlens does when loading as Valkey 9.
//!
//! Set `BITLENS_SEED` to replay a run.

use bitlens::command::{execute_in, Ctx};
use bitlens::dialect::Profile;
use bitlens::keyspace::Value;
use bitlens::rdb::{load_rdb, LoadOptions, RdbWriter};
use bitlens::Keyspace;
use bitlens_difftest::{RawConnection, RedisServer, ServerKind};

fn v(s: impl AsRef<[u8]>) -> Vec<u8> {
    s.as_ref().to_vec()
}

fn words(parts: &[&str]) -> Vec<Vec<u8>> {
    parts.iter().map(v).collect()
}

/// What one server allows: LIMIT / MINID / `(` (6.2+), ENTRIESREAD / XSETID options (7.0+).
struct Caps {
    v62: bool,
    v70: bool,
}

fn caps(kind: ServerKind) -> Caps {
    Caps {
        v62: kind != ServerKind::Redis6_0,
        v70: !matches!(kind, ServerKind::Redis6_0 | ServerKind::Redis6_2),
    }
}

/// A trimming clause for XADD / XTRIM: MAXLEN or MINID, `=`, `~` or none, LIMIT (with `~`).
fn trim_clause(rng: &mut fastrand::Rng, c: &Caps, ids: &[(u64, u64)]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let minid = c.v62 && rng.bool() && !ids.is_empty();
    if minid {
        out.push(v("MINID"));
    } else {
        out.push(v("MAXLEN"));
    }
    let op = rng.u8(0..3);
    match op {
        0 => out.push(v("=")),
        1 => out.push(v("~")),
        _ => {}
    }
    if minid {
        let (ms, seq) = ids[rng.usize(0..ids.len())];
        out.push(v(format!("{ms}-{seq}")));
    } else {
        out.push(v(rng.usize(0..ids.len().max(1) + 3).to_string()));
    }
    if c.v62 && op == 1 && rng.bool() {
        out.extend([v("LIMIT"), v(rng.usize(0..30).to_string())]);
    }
    out
}

/// The commands that build stream `key`: entries, trims, deletions, groups.
fn gen_stream(rng: &mut fastrand::Rng, c: &Caps, key: &str) -> Vec<Vec<Vec<u8>>> {
    let mut cmds = Vec::new();
    let mut ids: Vec<(u64, u64)> = Vec::new();
    let (mut ms, mut seq) = (rng.u64(1..100), 0u64);
    let n = rng.usize(1..120);
    let fields = [["a", "b"], ["a", "c"], ["x", "b"]];
    for i in 0..n {
        if rng.u8(0..3) == 0 {
            seq += 1;
        } else {
            ms += rng.u64(1..50);
            seq = rng.u64(0..3);
        }
        let mut cmd = vec![v("XADD"), v(key)];
        if rng.u8(0..12) == 0 && i > 0 {
            cmd.extend(trim_clause(rng, c, &ids));
        }
        cmd.push(v(format!("{ms}-{seq}")));
        let f = &fields[if rng.u8(0..4) == 0 {
            rng.usize(1..3)
        } else {
            0
        }];
        let nf = if rng.u8(0..6) == 0 { 1 } else { 2 };
        for name in &f[..nf] {
            cmd.push(v(name));
            cmd.push(v(format!("{}{}", name, rng.u32(0..1000))));
        }
        ids.push((ms, seq));
        cmds.push(cmd);
    }
    let id_text = |(ms, seq): (u64, u64)| v(format!("{ms}-{seq}"));
    // Deletions: single entries, runs (a node's worth or more), sometimes every entry.
    for _ in 0..rng.usize(0..6) {
        let at = rng.usize(0..ids.len());
        let run = if rng.u8(0..3) == 0 {
            rng.usize(1..12)
        } else {
            1
        };
        let mut cmd = vec![v("XDEL"), v(key)];
        for id in ids.iter().skip(at).take(run) {
            cmd.push(id_text(*id));
        }
        cmds.push(cmd);
    }
    if rng.u8(0..10) == 0 {
        let mut cmd = vec![v("XDEL"), v(key)];
        cmd.extend(ids.iter().map(|id| id_text(*id)));
        cmds.push(cmd);
    }
    if rng.u8(0..3) == 0 {
        let mut cmd = vec![v("XTRIM"), v(key)];
        cmd.extend(trim_clause(rng, c, &ids));
        cmds.push(cmd);
    }
    // Consumer groups on half the streams.
    if rng.bool() {
        for g in 0..rng.usize(1..4) {
            let group = format!("g{g}");
            let start = match rng.u8(0..3) {
                0 => v("0"),
                1 => v("$"),
                _ => id_text(ids[rng.usize(0..ids.len())]),
            };
            let mut cmd = vec![v("XGROUP"), v("CREATE"), v(key), v(&group), start];
            if c.v70 && rng.u8(0..3) == 0 {
                cmd.extend([v("ENTRIESREAD"), v(rng.usize(0..n + 2).to_string())]);
            }
            cmds.push(cmd);
            for consumer in ["alice", "bob"] {
                if rng.bool() {
                    cmds.push(vec![
                        v("XREADGROUP"),
                        v("GROUP"),
                        v(&group),
                        v(consumer),
                        v("COUNT"),
                        v(rng.usize(1..20).to_string()),
                        v("STREAMS"),
                        v(key),
                        v(">"),
                    ]);
                }
            }
            if rng.bool() {
                let mut cmd = vec![v("XACK"), v(key), v(&group)];
                cmd.extend((0..rng.usize(1..5)).map(|_| id_text(ids[rng.usize(0..ids.len())])));
                cmds.push(cmd);
            }
            if rng.bool() {
                let mut cmd = words(&["XCLAIM", key, &group, "carol", "0"]);
                cmd.extend((0..rng.usize(1..4)).map(|_| id_text(ids[rng.usize(0..ids.len())])));
                if rng.bool() {
                    cmd.push(v("JUSTID"));
                }
                cmds.push(cmd);
            }
            if c.v62 && rng.bool() {
                cmds.push(words(&[
                    "XAUTOCLAIM",
                    key,
                    &group,
                    "dave",
                    "0",
                    "0-0",
                    "COUNT",
                    &rng.usize(1..10).to_string(),
                ]));
            }
            if c.v62 && rng.u8(0..4) == 0 {
                cmds.push(words(&["XGROUP", "CREATECONSUMER", key, &group, "erin"]));
            }
            if rng.u8(0..4) == 0 {
                cmds.push(words(&["XGROUP", "DELCONSUMER", key, &group, "bob"]));
            }
            if rng.u8(0..4) == 0 {
                let mut cmd = vec![v("XGROUP"), v("SETID"), v(key), v(&group)];
                cmd.push(if rng.bool() {
                    v("$")
                } else {
                    id_text(ids[rng.usize(0..ids.len())])
                });
                if c.v70 && rng.bool() {
                    cmd.extend([v("ENTRIESREAD"), v(rng.usize(0..n + 2).to_string())]);
                }
                cmds.push(cmd);
            }
        }
        // Deletions and trims after the groups read: PEL entries of deleted entries.
        for _ in 0..rng.usize(0..3) {
            cmds.push(vec![
                v("XDEL"),
                v(key),
                id_text(ids[rng.usize(0..ids.len())]),
            ]);
        }
        if rng.u8(0..3) == 0 {
            let mut cmd = vec![v("XTRIM"), v(key)];
            cmd.extend(trim_clause(rng, c, &ids));
            cmds.push(cmd);
        }
    }
    if rng.u8(0..4) == 0 {
        let top = ids.last().copied().unwrap_or((0, 0));
        let mut cmd = vec![
            v("XSETID"),
            v(key),
            v(format!("{}-{}", top.0 + rng.u64(0..3), rng.u64(0..5))),
        ];
        if c.v70 && rng.bool() {
            cmd.extend([
                v("ENTRIESADDED"),
                v((n + rng.usize(0..5)).to_string()),
                v("MAXDELETEDID"),
                id_text(ids[rng.usize(0..ids.len())]),
            ]);
        }
        cmds.push(cmd);
    }
    cmds
}

/// An interval bound: `-`/`+`, a known id, an id between, `ms` alone, `(id` (6.2+).
fn bound(rng: &mut fastrand::Rng, c: &Caps, ids: &[Vec<u8>], start: bool) -> Vec<u8> {
    let pick = |rng: &mut fastrand::Rng| {
        if ids.is_empty() {
            v("1-0")
        } else {
            ids[rng.usize(0..ids.len())].clone()
        }
    };
    match rng.u8(0..7) {
        0 => v(if start { "-" } else { "+" }),
        1 | 2 => pick(rng),
        3 => {
            let id = pick(rng);
            let ms = id.split(|&b| b == b'-').next().unwrap().to_vec();
            ms
        }
        4 if c.v62 => [v("("), pick(rng)].concat(),
        5 => v(format!("{}-{}", rng.u64(0..6000), rng.u64(0..4))),
        _ => pick(rng),
    }
}

struct Compare<'a> {
    server: RawConnection,
    ks: &'a mut Keyspace,
    profile: &'static Profile,
    failures: Vec<String>,
    sent: usize,
}

impl Compare<'_> {
    fn check(&mut self, argv: &[Vec<u8>]) {
        self.sent += 1;
        let ours = execute_in(&mut Ctx::single(self.ks, self.profile), argv).to_resp();
        let theirs = self.server.query(argv);
        if ours != theirs {
            self.failures.push(format!(
                "{:?}:\n  server:  {:?}\n  bitlens: {:?}",
                argv.iter()
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect::<Vec<_>>(),
                String::from_utf8_lossy(&theirs),
                String::from_utf8_lossy(&ours),
            ));
        }
    }

    /// Every stream read on every key, then random ranges.
    fn reads(&mut self, rng: &mut fastrand::Rng, c: &Caps, keys: &[String]) {
        for key in keys {
            let k = key.as_str();
            let Some(Value::Stream(s)) = self.ks.get(k.as_bytes()) else {
                // Emptied and removed (XTRIM MAXLEN 0 keeps the key; a failed XADD never made it).
                self.check(&words(&["XLEN", k]));
                continue;
            };
            let ids: Vec<Vec<u8>> = s
                .range(
                    bitlens::stream::StreamId::MIN,
                    bitlens::stream::StreamId::MAX,
                    None,
                )
                .into_iter()
                .map(|e| v(e.id.text()))
                .collect();
            for argv in [
                words(&["XLEN", k]),
                words(&["XRANGE", k, "-", "+"]),
                words(&["XREVRANGE", k, "+", "-"]),
                words(&["XINFO", "STREAM", k]),
                words(&["XINFO", "GROUPS", k]),
                words(&["TYPE", k]),
            ] {
                self.check(&argv);
            }
            self.check(&words(&["XINFO", "STREAM", k, "FULL"]));
            let n = rng.i64(-2..8).to_string();
            self.check(&words(&["XINFO", "STREAM", k, "FULL", "COUNT", &n]));
            for _ in 0..12 {
                let rev = rng.bool();
                let (a, b) = (bound(rng, c, &ids, true), bound(rng, c, &ids, false));
                let mut argv = if rev {
                    vec![v("XREVRANGE"), v(k), b, a]
                } else {
                    vec![v("XRANGE"), v(k), a, b]
                };
                if rng.bool() {
                    argv.extend([v("COUNT"), v(rng.i64(-1..6).to_string())]);
                }
                self.check(&argv);
            }
        }
    }
}

/// Loads `bytes` into bitlens and into a fresh `kind` server, and compares every read under
/// `profile`; returns the failures.
fn compare_file(
    rng: &mut fastrand::Rng,
    kind: ServerKind,
    profile: &'static Profile,
    bytes: &[u8],
    keys: &[String],
) -> (usize, Vec<String>) {
    let server = RedisServer::start_kind_loading(kind, bytes, &[]);
    let snap = load_rdb(bytes, &LoadOptions::default())
        .unwrap_or_else(|e| panic!("{}: load: {e}", kind.name()));
    let mut ks = snap.databases.get(&0).cloned().unwrap_or_default();
    let mut cmp = Compare {
        server: server.raw_connection(),
        ks: &mut ks,
        profile,
        failures: Vec::new(),
        sent: 0,
    };
    let c = caps(kind);
    cmp.reads(rng, &c, keys);
    (cmp.sent, cmp.failures)
}

fn run_kind(kind: ServerKind) {
    if !kind.available() {
        eprintln!("streams_diff: {} not installed, skipped", kind.name());
        return;
    }
    let seed = bitlens_testseed::seed();
    let mut rng = fastrand::Rng::with_seed(seed);
    let c = caps(kind);
    let server = RedisServer::start_kind(kind, &[]);
    let mut raw = server.raw_connection();
    let node_max = rng.usize(2..12).to_string();
    raw.query(&words(&[
        "CONFIG",
        "SET",
        "stream-node-max-entries",
        &node_max,
    ]));
    let keys: Vec<String> = (0..10).map(|i| format!("s:{i}")).collect();
    let mut refused = 0;
    for key in &keys {
        for cmd in gen_stream(&mut rng, &c, key) {
            if raw.query(&cmd).starts_with(b"-") {
                refused += 1;
            }
        }
    }
    // Whatever the random run made: one more stream of several nodes with a deleted entry and
    // a group with pending entries (ids above any the generator uses).
    for i in 0..25 {
        raw.query(&words(&[
            "XADD",
            "s:fixed",
            &format!("9000000-{i}"),
            "a",
            "1",
        ]));
    }
    for argv in [
        words(&["XDEL", "s:fixed", "9000000-5"]),
        words(&["XGROUP", "CREATE", "s:fixed", "g", "0"]),
        words(&[
            "XREADGROUP",
            "GROUP",
            "g",
            "c",
            "COUNT",
            "3",
            "STREAMS",
            "s:fixed",
            ">",
        ]),
    ] {
        raw.query(&argv);
    }
    let keys: Vec<String> = keys.into_iter().chain(["s:fixed".to_string()]).collect();
    let bytes = server.save_rdb();
    drop(raw);
    drop(server);
    // The states the run reached: multi-node streams, entries flagged deleted, groups with a
    // PEL, an emptied stream.
    let snap = load_rdb(&bytes, &LoadOptions::default())
        .unwrap_or_else(|e| panic!("{}: load: {e}", kind.name()));
    let mut seen = std::collections::BTreeSet::new();
    for (_, e) in snap
        .databases
        .get(&0)
        .map(|ks| ks.iter())
        .into_iter()
        .flatten()
    {
        if let Value::Stream(s) = &e.value {
            if s.nodes.len() > 1 {
                seen.insert("multi-node");
            }
            if s.nodes.iter().any(|(m, b)| {
                bitlens::stream::Stream::check_node(*m, b).is_ok_and(|n| n.deleted > 0)
            }) {
                seen.insert("deleted flags");
            }
            if s.groups.iter().any(|g| !g.pending.is_empty()) {
                seen.insert("PEL");
            }
            if s.length == 0 {
                seen.insert("empty");
            }
        }
    }
    eprintln!("streams_diff {}: states {seen:?}", kind.name());
    for want in ["multi-node", "deleted flags", "PEL"] {
        assert!(
            seen.contains(want),
            "{}: no stream with {want} (BITLENS_SEED={seed})",
            kind.name()
        );
    }
    let profile = Profile::from_name(kind.profile_name()).expect("profile");
    let (mut sent, mut failures) = compare_file(&mut rng, kind, profile, &bytes, &keys);
    if matches!(kind, ServerKind::Redis6_0 | ServerKind::Redis6_2) {
        for other in [ServerKind::Redis7_4, ServerKind::Valkey9_1] {
            if !other.available() {
                continue;
            }
            let p = Profile::from_name(other.profile_name()).expect("profile");
            let (n, f) = compare_file(&mut rng, other, p, &bytes, &keys);
            sent += n;
            failures.extend(
                f.into_iter()
                    .map(|f| format!("(v1 file on {}) {f}", other.name())),
            );
        }
    }
    eprintln!(
        "streams_diff {}: BITLENS_SEED={seed}, node max {node_max}, {refused} setup commands \
         refused, {sent} reads, {} differ",
        kind.name(),
        failures.len()
    );
    for f in failures.iter().take(30) {
        eprintln!("{f}");
    }
    assert!(
        failures.is_empty(),
        "{}: {} replies differ (BITLENS_SEED={seed})",
        kind.name(),
        failures.len()
    );
}

#[test]
fn streams_against_redis_6_0() {
    run_kind(ServerKind::Redis6_0);
}

#[test]
fn streams_against_redis_6_2() {
    run_kind(ServerKind::Redis6_2);
}

#[test]
fn streams_against_redis_7_0() {
    run_kind(ServerKind::Redis7_0);
}

#[test]
fn streams_against_redis_7_4() {
    run_kind(ServerKind::Redis7_4);
}

#[test]
fn streams_against_valkey_8_1() {
    run_kind(ServerKind::Valkey8_1);
}

#[test]
fn streams_against_valkey_9_1() {
    run_kind(ServerKind::Valkey9_1);
}

#[test]
fn streams_against_redis_8_0() {
    run_kind(ServerKind::Redis8_0);
}

#[test]
fn streams_against_valkey_8_1_1() {
    run_kind(ServerKind::Valkey8_1_1);
}

/// A stream with several nodes and a deletion, built by a server; then rewritten by bitlens'
/// writer with (a) a recorded length 2 above its live entries, (b) the first node's master
/// live count off by one. Each server loads the file; replies match bitlens'.
fn length_mismatch(kind: ServerKind) {
    if !kind.available() {
        eprintln!("streams_diff: {} not installed, skipped", kind.name());
        return;
    }
    let server = RedisServer::start_kind(kind, &[]);
    let mut raw = server.raw_connection();
    raw.query(&words(&["CONFIG", "SET", "stream-node-max-entries", "4"]));
    for i in 1..=10 {
        let id = format!("{i}-0");
        raw.query(&words(&["XADD", "trim", &id, "f", &format!("v{i}")]));
    }
    raw.query(&words(&["XDEL", "trim", "2-0", "7-0"]));
    raw.query(&words(&["XGROUP", "CREATE", "trim", "g", "0"]));
    let bytes = server.save_rdb();
    drop(raw);
    drop(server);
    let snap = load_rdb(&bytes, &LoadOptions::default()).expect("load");
    let ks = &snap.databases[&0];
    let Some(Value::Stream(orig)) = ks.get(b"trim") else {
        panic!("no stream")
    };
    let mut long = (**orig).clone();
    long.length += 2;
    let mut counted = (**orig).clone();
    let (_, first) = &mut counted.nodes[0];
    // The master entry's live count: the listpack's first element, a 7-bit integer at byte 6.
    assert!(first[6] < 0x7f, "small live count");
    first[6] += 1;
    let mut w = RdbWriter::with_format(Vec::new(), snap.format, kind.version().as_bytes()).unwrap();
    w.select_db(0).unwrap();
    w.write_value(b"trim", &Value::Stream(Box::new(long.clone())), None)
        .unwrap();
    w.write_value(b"counted", &Value::Stream(Box::new(counted.clone())), None)
        .unwrap();
    let file = w.finish().unwrap();
    if kind == ServerKind::Valkey9_1 {
        // Valkey 9 checks streams at load (its own sanitizer): it refuses both states, each
        // alone in a file ("Stream length inconsistent with the number of valid entries",
        // "Stream listpack integrity check failed"); so does bitlens loading as Valkey 9
        // (`LoadOptions::loader`, `Profile::stream_counts_checked`).
        for st in [&long, &counted] {
            let mut w =
                RdbWriter::with_format(Vec::new(), snap.format, kind.version().as_bytes()).unwrap();
            w.select_db(0).unwrap();
            w.write_value(b"k", &Value::Stream(Box::new((*st).clone())), None)
                .unwrap();
            let one = w.finish().unwrap();
            let started =
                std::panic::catch_unwind(|| RedisServer::start_kind_loading(kind, &one, &[]));
            assert!(started.is_err(), "{} loaded the file", kind.name());
            // bitlens imitating Valkey 9's loader refuses it too, with the key and offset.
            let opts = LoadOptions {
                loader: Profile::from_name(kind.profile_name()),
                ..LoadOptions::default()
            };
            let err = load_rdb(&one, &opts).expect_err("refused as Valkey 9");
            let text = err.to_string();
            assert!(
                text.contains("key \"k\"") && text.contains("offset"),
                "{text}"
            );
            eprintln!("{}: refused, as bitlens --compat: {text}", kind.name());
        }
        return;
    }
    let profile = Profile::from_name(kind.profile_name()).expect("profile");
    let mut rng = fastrand::Rng::with_seed(7);
    let keys = [v("trim"), v("counted")]
        .iter()
        .map(|k| String::from_utf8_lossy(k).into_owned())
        .collect::<Vec<_>>();
    let (sent, failures) = compare_file(&mut rng, kind, profile, &file, &keys);
    // XLEN answers the recorded length, not the entries the nodes hold.
    let loaded = load_rdb(&file, &LoadOptions::default()).expect("load");
    let mut ks = loaded.databases[&0].clone();
    let xlen = execute_in(
        &mut Ctx::single(&mut ks, profile),
        &words(&["XLEN", "trim"]),
    );
    assert_eq!(xlen, bitlens::Reply::Integer(10), "{}", kind.name());
    // RESTORE of the server's own DUMP of the key is accepted too (sanitize-dump-payload no).
    let server = RedisServer::start_kind_loading(kind, &file, &[]);
    let mut raw = server.raw_connection();
    let dump = raw.query(&words(&["DUMP", "trim"]));
    let payload = {
        let body = &dump[dump.iter().position(|&b| b == b'\n').unwrap() + 1..dump.len() - 2];
        body.to_vec()
    };
    let restored = raw.query(&[v("RESTORE"), v("copy"), v("0"), payload]);
    assert_eq!(restored, b"+OK\r\n", "{}: RESTORE", kind.name());
    assert_eq!(
        raw.query(&words(&["XLEN", "copy"])),
        b":10\r\n",
        "{}: XLEN after RESTORE",
        kind.name()
    );
    eprintln!(
        "streams_length_mismatch {}: {sent} reads, {} differ",
        kind.name(),
        failures.len()
    );
    for f in &failures {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{}: replies differ", kind.name());
}

#[test]
fn streams_length_mismatch_all_servers() {
    for kind in ServerKind::ALL {
        length_mismatch(kind);
    }
}
