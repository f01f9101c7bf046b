//! `bitlens inspect` against snapshots written by real servers: every key counted once, group
//! patterns that `KEYS` answers with exactly the row's keys (on the real server and on
//! bitlens), no raw byte of a key name on stdout (control and ESC sequences), names that
//! round-trip through `--json`, rdbtools' CSV with `size_in_bytes` equal to the server's
//! `MEMORY USAGE`, and the filters.

mod common;

use std::collections::BTreeSet;

use bitlens::rdb::{load_rdb, LoadOptions};
use bitlens::Reply;
use bitlens_cli::inspect::render::TextReport as _;
use bitlens_cli::inspect::{patterns, report, Options};
use bitlens_difftest::{query_pipeline, RedisServer, ServerKind};
use common::*;

fn keys_of(reply: Reply) -> BTreeSet<Vec<u8>> {
    match reply {
        Reply::Array(items) => items
            .into_iter()
            .map(|r| match r {
                Reply::Bulk(b) => b,
                other => panic!("{other:?}"),
            })
            .collect(),
        other => panic!("{other:?}"),
    }
}

/// Keys whose names a report must not let through raw, and keys that used to group badly.
const NASTY: [&[u8]; 8] = [
    b"esc:\x1b[31mred",
    b"nul:\x00x",
    b"crlf:\r\nsplit",
    b"bin:\x00\xff",
    b"*",
    b"utf8",
    b"a?b[c]",
    b"del:\x7f\x9b",
];

/// A Redis 7.4.1 snapshot (skipped when not installed) with the [`NASTY`] keys, a 1000-byte
/// key, ids that group (`bm:int:1..5`) beside names that do not (`bm:int:big`), every type,
/// and expiries.
fn snapshot() -> Option<(RedisServer, Vec<u8>)> {
    let kind = ServerKind::Redis7_4;
    let server = RedisServer::start_kind_if_installed(kind, &[])?;
    let mut c = server.connection();
    let mut cmds: Vec<Vec<Vec<u8>>> = Vec::new();
    for k in NASTY {
        cmds.push(argv(&[b"SET", k, b"v"]));
    }
    cmds.push(argv(&[b"SET", &[b'L'; 1000], b"long key"]));
    for i in 1..=5 {
        cmds.push(words(&format!("SETBIT bm:int:{i} 100 1")));
    }
    cmds.push(words("SETBIT bm:int:big 80000 1"));
    cmds.push(words("SETBIT bm:int:neg 7 1"));
    for i in 0..30 {
        cmds.push(words(&format!("HSET user:{i}:profile name u{i} age 33")));
        cmds.push(words(&format!("SADD tags:{i} 1 2 3")));
        cmds.push(words(&format!("RPUSH q:{i} a b")));
        cmds.push(words(&format!("SET n:{i} {}", i * 1000)));
    }
    cmds.push(words("PEXPIREAT n:1 4102444800000")); // 2100-01-01
    cmds.push(words("EXPIRE n:2 1800"));
    cmds.push(words("PFADD hll:day a b c"));
    cmds.push(words("GEOADD geo:shops 13.361389 38.115556 Palermo"));
    cmds.push(words("ZADD board 1 x 2.5 y"));
    cmds.push(words("XADD events * f v"));
    for r in query_pipeline(&mut c, &cmds) {
        assert!(!matches!(r, Reply::Error(_)), "{r:?}");
    }
    let rdb = server.save_rdb();
    Some((server, rdb))
}

#[test]
fn patterns_match_exactly_their_rows_on_redis_and_bitlens() {
    let Some((server, rdb)) = snapshot() else {
        return;
    };
    let mut c = server.connection();
    let snap = load_rdb(&rdb, &LoadOptions::default()).unwrap();
    let all: Vec<Vec<u8>> = snap.entries().iter().map(|(_, k, _)| k.to_vec()).collect();
    let mut ks = snap.databases[&0].clone();
    let refs: Vec<&[u8]> = all.iter().map(Vec::as_slice).collect();
    let groups = patterns::group(&refs);
    let mut covered = 0;
    for (pat, members) in &groups {
        let want: BTreeSet<Vec<u8>> = members.iter().map(|&i| all[i].clone()).collect();
        let real = keys_of(query_pipeline(&mut c, &[argv(&[b"KEYS", pat])]).remove(0));
        assert_eq!(
            real,
            want,
            "KEYS {} on Redis 7.4.1",
            bitlens::escape::quote(pat)
        );
        let ours = keys_of(bitlens::execute(&mut ks, &argv(&[b"KEYS", pat])));
        assert_eq!(
            ours,
            want,
            "KEYS {} on bitlens",
            bitlens::escape::quote(pat)
        );
        covered += members.len();
    }
    assert_eq!(covered, all.len());
    // The rows the issue named: one row for all bm:int:* keys, literal names kept.
    let pats: Vec<&[u8]> = groups.iter().map(|g| g.0.as_slice()).collect();
    for p in [&b"bm:int:*"[..], b"utf8", b"\\*", b"user:*:profile"] {
        assert!(pats.contains(&p), "{p:?} in {pats:?}");
    }
    // The report's rows are those groups, counted once each.
    let r = report(&rdb, &Options::default()).unwrap();
    let total: u64 = r.databases[0].groups.iter().map(|g| g.count).sum();
    assert_eq!(total, all.len() as u64);
    let bm = r.databases[0]
        .groups
        .iter()
        .find(|g| g.pattern == b"bm:int:*")
        .unwrap();
    assert_eq!(bm.count, 7);
}

#[test]
fn no_raw_byte_of_a_name_reaches_stdout() {
    let Some((_server, rdb)) = snapshot() else {
        return;
    };
    let (_dir, p) = temp_file("dump.rdb", &rdb);
    let p = p.as_str();
    let text =
        String::from_utf8(bitlens_ok(&["inspect", p, "--top", "100", "--depth", "3"])).unwrap();
    for (i, b) in text.bytes().enumerate() {
        assert!(
            b == b'\n' || (0x20..0x7f).contains(&b) || b >= 0x80,
            "byte {b:#x} at {i}"
        );
    }
    // Only `…` (U+2026) is non-ASCII: no C1 control (U+009B, an 8-bit CSI) passes.
    assert!(text.chars().all(|c| c.is_ascii() || c == '…'), "{text}");
    for shown in [
        r#""esc:\x1b[31mred""#,
        r#""nul:\x00x""#,
        r#""crlf:\r\nsplit""#,
        r#""bin:\x00\xff""#,
        r#""del:\x7f\x9b""#,
    ] {
        assert!(text.contains(shown), "{shown} in\n{text}");
    }
    // Widths are capped: the 1000-byte key does not widen the tables.
    let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(widest <= 240, "a line of {widest} characters");
    assert!(text.contains("LLLLLLL…"), "{text}");
    // Sizes are labelled.
    assert!(text.contains("MEMORY: estimated MEMORY USAGE"), "{text}");

    let out = bitlens_ok(&["inspect", p, "--json", "--top", "1000"]);
    assert!(!out.iter().any(|&b| b < 0x20 && b != b'\n'));
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let names: Vec<Vec<u8>> = v["top"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| match &k["key"] {
            serde_json::Value::String(s) => s.as_bytes().to_vec(),
            o => bitlens::escape::from_hex(o["hex"].as_str().unwrap()).unwrap(),
        })
        .collect();
    for k in NASTY {
        assert!(
            names.contains(&k.to_vec()),
            "{k:?} round-trips through --json"
        );
    }
    let bin = v["top"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["key"].get("hex").is_some())
        .unwrap();
    assert_eq!(bin["key"]["hex"].as_str().unwrap().len() % 2, 0);
}

#[test]
fn csv_is_rdbtools_memory_report_with_memory_usage() {
    let Some((server, rdb)) = snapshot() else {
        return;
    };
    let (_dir, path) = temp_file("dump.rdb", &rdb);
    let text = String::from_utf8(bitlens_ok(&["inspect", &path, "--csv"])).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "database,type,key,size_in_bytes,encoding,num_elements,len_largest_element,expiry"
    );
    let rows: Vec<Vec<String>> = lines
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    assert_eq!(
        rows.len(),
        load_rdb(&rdb, &LoadOptions::default())
            .unwrap()
            .entries()
            .len()
    );
    // A server that loaded the same file answers MEMORY USAGE / OBJECT ENCODING.
    let loaded = RedisServer::start_kind_loading(ServerKind::Redis7_4, &rdb, &[]);
    let mut c = loaded.connection();
    let row = |key: &str| {
        rows.iter()
            .find(|r| r[2] == key)
            .unwrap_or_else(|| panic!("{key}"))
    };
    for key in [
        "n:1",
        "user:3:profile",
        "tags:4",
        "q:5",
        "utf8",
        "hll:day",
        "bm:int:big",
        "board",
    ] {
        let r = row(key);
        let real = query_pipeline(
            &mut c,
            &[
                argv(&[b"MEMORY", b"USAGE", key.as_bytes(), b"SAMPLES", b"0"]),
                argv(&[b"OBJECT", b"ENCODING", key.as_bytes()]),
            ],
        );
        assert_eq!(
            r[3],
            format!(
                "{}",
                match real[0] {
                    Reply::Integer(n) => n,
                    ref o => panic!("{o:?}"),
                }
            ),
            "{key} size_in_bytes"
        );
        assert_eq!(
            Reply::Bulk(r[4].clone().into_bytes()),
            real[1],
            "{key} encoding"
        );
    }
    assert_eq!(
        row("user:3:profile")[5..7],
        ["2".to_string(), "4".to_string()]
    );
    assert_eq!(row("n:1")[7], "2100-01-01T00:00:00.000Z");
    assert_eq!(row("n:3")[7], "");
    assert_eq!(row("tags:4")[1], "set");
    drop(server);
}

#[test]
fn filters_select_keys() {
    let Some((_server, rdb)) = snapshot() else {
        return;
    };
    let (_dir, p) = temp_file("dump.rdb", &rdb);
    let p = p.as_str();
    let keys = |extra: &[&str]| -> u64 {
        let mut args = vec!["inspect", p, "--json"];
        args.extend_from_slice(extra);
        let v: serde_json::Value = serde_json::from_slice(&bitlens_ok(&args)).unwrap();
        v["keys"].as_u64().unwrap()
    };
    assert_eq!(keys(&["--type", "hash"]), 30);
    assert_eq!(keys(&["--type", "set", "--type", "list"]), 60);
    assert_eq!(keys(&["--match", "user:*"]), 30);
    assert_eq!(keys(&["--regex", "^n:[0-9]$"]), 10);
    assert_eq!(keys(&["--ttl", "none"]), keys(&[]) - 2);
    assert_eq!(keys(&["--ttl", "..1h", "--clock", "now"]), 1);
    assert_eq!(keys(&["--ttl", "7d..", "--clock", "now"]), 1);
    assert_eq!(keys(&["--ttl", "expired", "--clock", "4102444800001"]), 2);
    assert_eq!(keys(&["--db", "3"]), 0);
    assert_eq!(keys(&["--min-bytes", "1000"]), 2); // the 1000-byte key and bm:int:big
    let bad = bitlens(&["inspect", p, "--ttl", "soon"], b"");
    assert!(!bad.status.success());
    // A range whose minimum is above its maximum, a negative duration, a negative clock.
    for args in [["--ttl", "7d..1d"], ["--ttl", "-1d.."], ["--clock", "-5"]] {
        let mut a = vec!["inspect", p];
        a.extend(args);
        let bad = bitlens(&a, b"");
        assert_eq!(bad.status.code(), Some(2), "{args:?}");
        assert!(bad.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn conformance_snapshots_are_counted_once() {
    for set in ["bitmaps", "signin", "hll", "geo"] {
        let dir = conformance_dir().join(set);
        let bytes = std::fs::read(dir.join("dump.rdb")).unwrap();
        let r = report(&bytes, &Options::default()).unwrap();
        let tsv = std::fs::read_to_string(dir.join("keys.tsv")).unwrap();
        assert_eq!(r.keys as usize, tsv.lines().count() - 1, "{set}");
        let rows: u64 = r.databases[0].groups.iter().map(|g| g.count).sum();
        assert_eq!(rows, r.keys, "{set}");
        let ttl: u64 = r.ttl.iter().map(|t| t.keys).sum();
        assert_eq!(ttl, r.keys, "{set}");
        assert!(r.to_text().contains("written by Redis"), "{set}");
    }
}

#[test]
fn ledger_prices_a_bitmap_as_the_set_redis_builds() {
    let kind = ServerKind::Redis7_4;
    let Some(server) = RedisServer::start_kind_if_installed(kind, &[]) else {
        return;
    };
    let mut c = server.connection();
    // Same-length names, so that MEMORY USAGE differences are value differences.
    for (n, bm, set) in [(3u32, "ledg:bx", "ledg:sx"), (700, "ledg:by", "ledg:sy")] {
        let mut sadd = argv(&[b"SADD", set.as_bytes()]);
        let mut cmds = Vec::new();
        for i in 0..n {
            let bit = (i * 37 + 5).to_string();
            cmds.push(argv(&[b"SETBIT", bm.as_bytes(), bit.as_bytes(), b"1"]));
            sadd.push(bit.into_bytes());
        }
        cmds.push(sadd);
        query_pipeline(&mut c, &cmds);
    }
    let rdb = server.save_rdb();
    let loaded = RedisServer::start_kind_loading(kind, &rdb, &[]);
    let mut lc = loaded.connection();
    let usage = |c: &mut redis::Connection, k: &str| -> i64 {
        match query_pipeline(
            c,
            &[argv(&[b"MEMORY", b"USAGE", k.as_bytes(), b"SAMPLES", b"0"])],
        )
        .remove(0)
        {
            Reply::Integer(n) => n,
            o => panic!("{o:?}"),
        }
    };
    let r = report(
        &rdb,
        &Options {
            ledger: Some(Default::default()),
            ..Options::default()
        },
    )
    .unwrap();
    for (bm, set, enc) in [
        ("ledg:bx", "ledg:sx", "intset"),
        ("ledg:by", "ledg:sy", "hashtable"),
    ] {
        let g = r.databases[0]
            .groups
            .iter()
            .find(|g| g.pattern == bm.as_bytes())
            .unwrap();
        let l = g.ledger.unwrap();
        let real_delta = usage(&mut lc, set) - usage(&mut lc, bm);
        assert_eq!(
            l.as_set as i64 - l.current as i64,
            real_delta,
            "{bm} as a Set ({enc})"
        );
        let s = r.databases[0]
            .groups
            .iter()
            .find(|g| g.pattern == set.as_bytes())
            .unwrap();
        assert_eq!(s.encodings, [(enc.to_string(), 1)]);
        // And the set priced as a bitmap is the bitmap Redis holds.
        let sl = s.ledger.unwrap();
        assert_eq!(
            sl.as_bitmap as i64 - sl.current as i64,
            -real_delta,
            "{set} as a bitmap"
        );
    }
}

/// "What expires this week" from one command: `bitlens inspect FILE` (default 7 days) lists
/// the keys whose expiry, as the real server reports it (PEXPIRETIME), falls within 7 days of
/// the snapshot's time (LASTSAVE), one row per 24 hours, with their memory within ±10% of the
/// server's `MEMORY USAGE`; `--expires-within` changes the window.
#[test]
fn expiring_this_week_by_day_matches_the_server() {
    let kind = ServerKind::Redis7_4;
    let Some(server) = RedisServer::start_kind_if_installed(kind, &[]) else {
        return;
    };
    let mut c = server.connection();
    const H: u64 = 3600;
    let spans: [(&str, u64); 9] = [
        ("e:1h", H),
        ("e:20h", 20 * H),
        ("e:26h", 26 * H),
        ("e:3d", 72 * H + 1800),
        ("e:3d:big", 72 * H + 3600),
        ("e:6d", 6 * 24 * H + 12 * H),
        ("e:8d", 8 * 24 * H),
        ("e:40d", 40 * 24 * H),
        ("e:1y", 365 * 24 * H),
    ];
    let mut cmds: Vec<Vec<Vec<u8>>> = Vec::new();
    for (k, secs) in spans {
        let len = if k.ends_with("big") { 20_000 } else { 50 };
        cmds.push(argv(&[b"SET", k.as_bytes(), &vec![b'v'; len]]));
        cmds.push(argv(&[
            b"EXPIRE",
            k.as_bytes(),
            secs.to_string().as_bytes(),
        ]));
    }
    cmds.push(argv(&[b"SET", b"forever", b"x"]));
    for r in query_pipeline(&mut c, &cmds) {
        assert!(!matches!(r, Reply::Error(_)), "{r:?}");
    }
    let rdb = server.save_rdb();
    let int = |r: &Reply| match r {
        Reply::Integer(n) => *n,
        o => panic!("{o:?}"),
    };
    let saved_ms = int(&query_pipeline(&mut c, &[argv(&[b"LASTSAVE"])])[0]) * 1000;
    let mut want_days = [0u64; 7];
    let mut want_memory = 0i64;
    for (k, _) in spans {
        let r = query_pipeline(
            &mut c,
            &[
                argv(&[b"PEXPIRETIME", k.as_bytes()]),
                argv(&[b"MEMORY", b"USAGE", k.as_bytes(), b"SAMPLES", b"0"]),
            ],
        );
        let left = int(&r[0]) - saved_ms;
        assert!(left > 0, "{k}");
        if left <= 7 * 86_400_000 {
            want_days[((left - 1) / 86_400_000) as usize] += 1;
            want_memory += int(&r[1]);
        }
    }
    assert_eq!(want_days, [2, 1, 0, 2, 0, 0, 1]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dump.rdb");
    std::fs::write(&path, &rdb).unwrap();
    let p = path.to_str().unwrap();
    let out = bitlens(&["inspect", p, "--json"], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let e = &v["expiring"];
    assert_eq!(e["days"], 7);
    assert_eq!(e["keys"], 6);
    let days: Vec<u64> = e["per_day"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["keys"].as_u64().unwrap())
        .collect();
    assert_eq!(days, want_days);
    let clock = v["clock_ms"].as_i64().unwrap();
    assert_eq!(
        e["per_day"][6]["until_ms"].as_i64(),
        Some(clock + 7 * 86_400_000)
    );
    let mem = e["memory"].as_i64().unwrap();
    assert!(
        (mem - want_memory).abs() * 10 <= want_memory,
        "{mem} vs MEMORY USAGE {want_memory}"
    );
    // Text: the same section, one row per day.
    let text = bitlens(&["inspect", p], b"");
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("expiring within 7d of the clock, by day: 6 keys"),
        "{text}"
    );
    // Another window; a bad one is refused.
    let out = bitlens(&["inspect", p, "--json", "--expires-within", "45d"], b"");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["expiring"]["keys"], 8);
    assert_eq!(v["expiring"]["per_day"].as_array().unwrap().len(), 45);
    let bad = bitlens(&["inspect", p, "--expires-within", "0d"], b"");
    assert!(!bad.status.success());
    drop(server);
}

/// `--type` takes only what TYPE replies (a misspelt type is an error, not an empty report),
/// and a file holding one key twice is refused as Redis refuses it.
#[test]
fn unknown_types_and_duplicated_keys_are_refused() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/conformance/redis-7.4.1-bloom/dump.rdb");
    let file = file.to_str().unwrap();
    let out = bitlens(&["inspect", file, "--type", "hashes"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a type TYPE replies"));
    let ok = bitlens_ok(&["inspect", file, "--type", "MBbloom--", "--json"]);
    assert!(String::from_utf8_lossy(&ok).contains("MBbloom--"));

    let mut w = bitlens::rdb::RdbWriter::new(Vec::new(), 9).unwrap();
    w.select_db(0).unwrap();
    w.write_string(b"k", b"v", None).unwrap();
    w.write_string(b"k", b"w", None).unwrap();
    let (_dir, path) = temp_file("dup.rdb", &w.finish().unwrap());
    let out = bitlens(&["query", "--rdb", &path, "DBSIZE"], b"");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("duplicated key in database 0") && err.contains("(key \"k\")"),
        "{err}"
    );
}

/// `bitlens inspect` with no `--allocator` on a typical keyspace (20,000 small strings and
/// hashes, a tenth with a TTL) saved by each server (all eight): where the file decides, the
/// allocator inferred is the build's (`INFO memory` `mem_allocator`: bundled jemalloc on
/// 6.0.9 and 7.4.1, Debian's system jemalloc with a 16-byte quantum on 7.0.15, glibc on
/// 6.2.14), said in the text and the JSON, and what `inspect` prints by default is
/// byte-exact key by key; where it cannot (`undecided`: glibc and jemalloc16 price these
/// keys differently but used-mem cannot tell them apart), the build's allocator is among
/// the candidates, the text and JSON say so with the total's range, and every key's `MEMORY
/// USAGE` lies within what `inspect --allocator X` prints over the candidates. `--allocator`
/// overrides it.
#[test]
fn allocator_is_inferred_from_used_mem() {
    for kind in ServerKind::ALL {
        let want = kind.allocator().name();
        let Some(server) = RedisServer::start_kind_if_installed(kind, &[]) else {
            continue;
        };
        let mut conn = server.connection();
        let mut cmds = Vec::new();
        for i in 0..20_000 {
            let k = format!("user:{i}:name");
            cmds.push(argv(&[
                b"SET",
                k.as_bytes(),
                format!("name-{i}").as_bytes(),
            ]));
            let h = format!("user:{i}:profile");
            cmds.push(argv(&[
                b"HSET",
                h.as_bytes(),
                b"age",
                b"42",
                b"city",
                b"Paris",
            ]));
            if i % 10 == 0 {
                cmds.push(argv(&[b"EXPIRE", k.as_bytes(), b"100000"]));
            }
        }
        for chunk in cmds.chunks(1000) {
            query_pipeline(&mut conn, chunk);
        }
        drop(conn);
        let rdb = server.save_rdb();
        let (_dir, p) = temp_file("dump.rdb", &rdb);
        let json: serde_json::Value =
            serde_json::from_slice(&bitlens_ok(&["inspect", p.as_str(), "--json"])).unwrap();
        // glibc (6.2.14) predicts within 0.2% of jemalloc16 on this keyspace; a SAVE right
        // after the writes may find the keyspace table still rehashing (its old table in
        // used-mem), which the inference weighs (`predictions_rehashing`).
        let reason = json["allocator_reason"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let text = String::from_utf8(bitlens_ok(&["inspect", p.as_str()])).unwrap();
        let candidates: Vec<String> = json["allocator_candidates"]
            .as_array()
            .expect("allocator_candidates")
            .iter()
            .map(|c| c.as_str().unwrap_or_default().to_string())
            .collect();
        println!("{}: {} {reason}", kind.name(), json["allocator_source"]);
        match json["allocator_source"].as_str() {
            Some("inferred") => {
                assert_eq!(json["allocator"], want, "{}: {reason}", kind.name());
                assert_eq!(candidates, [want], "{}", kind.name());
                assert!(json["memory_range"].is_null(), "{}", kind.name());
                assert!(
                    text.contains(&format!("ALLOCATOR: {want} inferred: used-mem")),
                    "{}: {text}",
                    kind.name()
                );
            }
            Some("undecided") => {
                assert!(
                    candidates.iter().any(|c| c == want),
                    "{}: the build's {want} is not among {candidates:?}: {reason}",
                    kind.name()
                );
                assert!(
                    text.contains("MEMORY RANGE: undecided between"),
                    "{}: {text}",
                    kind.name()
                );
            }
            other => panic!("{}: allocator source {other:?}: {reason}", kind.name()),
        }
        // What `inspect` prints, key by key, against MEMORY USAGE on a server loading the
        // file: byte-exact by default when decided (on a glibc build, but for its unsplit
        // chunk remainders, `memory_bound::GLIBC_REMAINDER_KEYS`); within the candidates'
        // figures (`--allocator` each) when undecided, and the file's total within the
        // reported range.
        let csv_of = |allocator: Option<&str>| {
            let mut args = vec!["inspect", "--csv", p.as_str()];
            if let Some(a) = allocator {
                args.extend(["--allocator", a]);
            }
            csv_key_memory(&String::from_utf8(bitlens_ok(&args)).unwrap())
        };
        let rows = csv_of(None);
        let per_candidate: Vec<Vec<(String, u64)>> = if candidates.len() > 1 {
            candidates.iter().map(|c| csv_of(Some(c))).collect()
        } else {
            vec![rows.clone()]
        };
        let loaded = RedisServer::start_kind_loading(kind, &rdb, &[]);
        let mut c = loaded.connection();
        assert_eq!(rows.len(), 40_000, "{}", kind.name());
        let usage = query_pipeline(
            &mut c,
            &rows
                .iter()
                .map(|(k, _)| argv(&[b"MEMORY", b"USAGE", k.as_bytes(), b"SAMPLES", b"0"]))
                .collect::<Vec<_>>(),
        );
        let libc_at = candidates.iter().position(|c| c == "libc");
        let (mut wrong, mut remainders, mut total) = (Vec::new(), 0usize, 0u64);
        for (i, ((k, _), u)) in rows.iter().zip(&usage).enumerate() {
            let Reply::Integer(u) = *u else {
                panic!("{k}: {u:?}")
            };
            let u = u as u64;
            total += u;
            let figures: Vec<u64> = per_candidate
                .iter()
                .map(|r| {
                    assert_eq!(&r[i].0, k, "{}: row order", kind.name());
                    r[i].1
                })
                .collect();
            let (lo, hi) = (
                *figures.iter().min().unwrap(),
                *figures.iter().max().unwrap(),
            );
            // (Strings and small hashes only: two allocations each at most, `usable_chunks`.)
            let remainder = libc_at
                .is_some_and(|j| bitlens_difftest::memory_bound::glibc_remainder(figures[j], u, 2));
            if (lo..=hi).contains(&u) {
            } else if remainder {
                remainders += 1;
            } else {
                wrong.push(format!("{k}: {lo}..={hi} vs MEMORY USAGE {u}"));
            }
        }
        let max = rows
            .len()
            .div_ceil(bitlens_difftest::memory_bound::GLIBC_REMAINDER_KEYS);
        assert!(
            wrong.is_empty() && remainders <= max,
            "{} (candidates {candidates:?}): {} keys off, {remainders} glibc remainders (at most {max}): {:?}",
            kind.name(),
            wrong.len(),
            &wrong[..wrong.len().min(10)]
        );
        if let Some(range) = json["memory_range"].as_object() {
            let (lo, hi) = (
                range["min"].as_u64().unwrap(),
                range["max"].as_u64().unwrap(),
            );
            // Within the range, but for the glibc remainders (16 or 32 bytes each).
            assert!(
                lo <= total && total <= hi + 32 * remainders as u64,
                "{}: MEMORY USAGE total {total} outside the reported {lo}..={hi}",
                kind.name()
            );
        }
        let json: serde_json::Value = serde_json::from_slice(&bitlens_ok(&[
            "inspect",
            p.as_str(),
            "--json",
            "--allocator",
            "libc",
        ]))
        .unwrap();
        assert_eq!(json["allocator"], "libc");
        assert_eq!(json["allocator_source"], "given");
        println!("{}: {}", kind.name(), json["allocator_reason"]);
    }
}
