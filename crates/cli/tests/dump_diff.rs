//! `bitlens dump` and `bitlens diff` against snapshots written by Redis 7.4.1 (skipped when
//! not installed): the RESP dump, replayed into a fresh server, rebuilds a data set with the
//! same `DEBUG DIGEST` as the writer's; the JSON lines hold every key with its value; `diff`
//! names exactly the keys added, removed and changed between two SAVEs.

mod common;

use bitlens::Reply;
use bitlens_difftest::{query_pipeline, RedisServer, ServerKind};
use common::*;

fn argv(parts: &[&[u8]]) -> Vec<Vec<u8>> {
    parts.iter().map(|p| p.to_vec()).collect()
}

/// Parses consecutive RESP arrays of bulk strings.
fn parse_resp(mut b: &[u8]) -> Vec<Vec<Vec<u8>>> {
    fn line(b: &mut &[u8]) -> usize {
        let end = b.windows(2).position(|w| w == b"\r\n").unwrap();
        let n = std::str::from_utf8(&b[1..end]).unwrap().parse().unwrap();
        *b = &b[end + 2..];
        n
    }
    let mut out = Vec::new();
    while !b.is_empty() {
        assert_eq!(b[0], b'*');
        let n = line(&mut b);
        let mut cmd = Vec::new();
        for _ in 0..n {
            assert_eq!(b[0], b'$');
            let len = line(&mut b);
            cmd.push(b[..len].to_vec());
            b = &b[len + 2..];
        }
        out.push(cmd);
    }
    out
}

fn data() -> Vec<Vec<Vec<u8>>> {
    let mut c = Vec::new();
    for i in 0..20 {
        c.push(argv(&[
            b"SET",
            format!("s:{i}").as_bytes(),
            format!("v{i}").as_bytes(),
        ]));
        c.push(argv(&[
            b"RPUSH",
            format!("l:{i}").as_bytes(),
            b"a",
            b"b",
            b"1",
        ]));
        c.push(argv(&[
            b"SADD",
            format!("set:{i}").as_bytes(),
            b"x",
            b"7",
            b"\xff",
        ]));
        c.push(argv(&[
            b"ZADD",
            format!("z:{i}").as_bytes(),
            b"1.5",
            b"a",
            b"-3",
            b"b",
            b"0.1",
            b"c",
        ]));
        c.push(argv(&[
            b"HSET",
            format!("h:{i}").as_bytes(),
            b"f",
            b"v",
            b"g",
            b"w",
        ]));
    }
    let big: Vec<Vec<u8>> = (0..3000).map(|i| format!("m{i}").into_bytes()).collect();
    let mut sadd = argv(&[b"SADD", b"set:big"]);
    sadd.extend(big.iter().cloned());
    c.push(sadd);
    c.push(argv(&[b"SETBIT", b"bm:\x1b[0m", b"100000", b"1"]));
    c.push(argv(&[b"PFADD", b"hll", b"a", b"b"]));
    c.push(argv(&[b"PEXPIREAT", b"s:1", b"4102444800000"]));
    c.push(argv(&[
        b"HPEXPIREAT",
        b"h:1",
        b"4102444800000",
        b"FIELDS",
        b"1",
        b"f",
    ]));
    c.push(argv(&[b"XADD", b"st", b"1-1", b"a", b"1"]));
    c.push(argv(&[b"XADD", b"st", b"2-1", b"b", b"2"]));
    c.push(argv(&[b"XADD", b"st", b"3-1", b"c", b"3"]));
    c.push(argv(&[b"XDEL", b"st", b"2-1"]));
    c.push(argv(&[b"SELECT", b"2"]));
    c.push(argv(&[b"SET", b"other:db", b"here"]));
    c
}

fn digest(s: &RedisServer) -> Reply {
    let mut c = s.connection();
    query_pipeline(&mut c, &[argv(&[b"DEBUG", b"DIGEST"])]).remove(0)
}

#[test]
fn resp_dump_rebuilds_the_same_data_set() {
    let kind = ServerKind::Redis7_4;
    if !kind.available() {
        eprintln!("skipped: {} not installed", kind.name());
        return;
    }
    let writer = RedisServer::start_kind(kind, &["--enable-debug-command", "yes"]);
    let mut c = writer.raw_connection();
    for cmd in data() {
        let r = c.query(&cmd);
        assert!(!r.starts_with(b"-"), "{}", String::from_utf8_lossy(&r));
    }
    let rdb = writer.save_rdb();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dump.rdb");
    std::fs::write(&path, &rdb).unwrap();
    let out = bitlens(&["dump", path.to_str().unwrap(), "--format", "resp"], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let replay = RedisServer::start_kind(kind, &["--enable-debug-command", "yes"]);
    let mut r = replay.raw_connection();
    for cmd in parse_resp(&out.stdout) {
        let rep = r.query(&cmd);
        assert!(
            !rep.starts_with(b"-"),
            "{:?}: {}",
            cmd,
            String::from_utf8_lossy(&rep)
        );
    }
    assert_eq!(digest(&replay), digest(&writer));

    let out = bitlens(&["dump", path.to_str().unwrap()], b"");
    assert!(out.status.success());
    assert!(!out.stdout.contains(&0x1b), "no raw ESC in JSON lines");
    let lines: Vec<serde_json::Value> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5 * 20 + 4 + 1);
    let l3 = lines.iter().find(|l| l["key"] == "l:3").unwrap();
    assert_eq!(l3["value"], serde_json::json!(["a", "b", "1"]));
    assert_eq!(l3["type"], "list");
    let s1 = lines.iter().find(|l| l["key"] == "s:1").unwrap();
    assert_eq!(s1["expire_at_ms"], 4102444800000i64);
    let set0 = lines.iter().find(|l| l["key"] == "set:0").unwrap();
    assert!(set0["value"]
        .as_array()
        .unwrap()
        .contains(&serde_json::json!({"hex": "ff"})));
    assert_eq!(
        lines.iter().find(|l| l["key"] == "other:db").unwrap()["db"],
        2
    );
}

#[test]
fn diff_names_added_removed_changed() {
    let kind = ServerKind::Redis7_4;
    if !kind.available() {
        eprintln!("skipped: {} not installed", kind.name());
        return;
    }
    let server = RedisServer::start_kind(kind, &[]);
    let mut c = server.raw_connection();
    for cmd in data() {
        c.query(&cmd);
    }
    c.query(&argv(&[b"SELECT", b"0"]));
    let a = server.save_rdb();
    for cmd in [
        argv(&[b"DEL", b"s:3", b"l:4"]),
        argv(&[b"SET", b"new:key", b"x"]),
        argv(&[b"HSET", b"h:5", b"f", b"changed"]),
        argv(&[b"EXPIRE", b"z:6", b"100000"]),
        argv(&[b"SADD", b"set:big", b"one-more"]),
        // Rewritten to the same content: not a change.
        argv(&[b"SET", b"s:7", b"v7"]),
    ] {
        let r = c.query(&cmd);
        assert!(!r.starts_with(b"-"), "{}", String::from_utf8_lossy(&r));
    }
    let b = server.save_rdb();
    let dir = tempfile::tempdir().unwrap();
    let (pa, pb) = (dir.path().join("a.rdb"), dir.path().join("b.rdb"));
    std::fs::write(&pa, &a).unwrap();
    std::fs::write(&pb, &b).unwrap();
    let out = bitlens(
        &["diff", pa.to_str().unwrap(), pb.to_str().unwrap(), "--json"],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names = |s: &str| -> Vec<String> {
        v[s].as_array()
            .unwrap()
            .iter()
            .map(|k| k["key"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names("added"), ["new:key"]);
    assert_eq!(names("removed"), ["l:4", "s:3"]);
    assert_eq!(names("changed"), ["h:5", "set:big", "z:6"]);
    let set = v["prefixes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["prefix"] == "set:")
        .unwrap();
    assert!(set["delta"].as_i64().unwrap() > 0, "{set}");
    let text = bitlens(&["diff", pa.to_str().unwrap(), pb.to_str().unwrap()], b"");
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.starts_with("1 added, 2 removed, 3 changed"), "{text}");
}
