//! `bitlens dump` and `bitlens diff` against snapshots written by Redis 7.4.1 (skipped when
//! not installed): the RESP dump, replayed into a fresh server, rebuilds a data set with the
//! same `DEBUG DIGEST` as the writer's; the JSON lines hold every key with its value; `diff`
//! names exactly the keys added, removed and changed between two SAVEs.

mod common;

use bitlens::Reply;
use bitlens_difftest::{query_pipeline, RedisServer, ServerKind};
use common::*;

fn data() -> Vec<Vec<Vec<u8>>> {
    let mut c = Vec::new();
    for i in 0..20 {
        c.push(words(&format!("SET s:{i} v{i}")));
        c.push(words(&format!("RPUSH l:{i} a b 1")));
        let mut sadd = words(&format!("SADD set:{i} x 7"));
        sadd.push(b"\xff".to_vec());
        c.push(sadd);
        c.push(words(&format!("ZADD z:{i} 1.5 a -3 b 0.1 c")));
        c.push(words(&format!("HSET h:{i} f v g w")));
    }
    let big: Vec<Vec<u8>> = (0..3000).map(|i| format!("m{i}").into_bytes()).collect();
    let mut sadd = words("SADD set:big");
    sadd.extend(big.iter().cloned());
    c.push(sadd);
    c.push(argv(&[b"SETBIT", b"bm:\x1b[0m", b"100000", b"1"]));
    c.push(words("PFADD hll a b"));
    c.push(words("PEXPIREAT s:1 4102444800000"));
    c.push(words("HPEXPIREAT h:1 4102444800000 FIELDS 1 f"));
    c.push(words("XADD st 1-1 a 1"));
    c.push(words("XADD st 2-1 b 2"));
    c.push(words("XADD st 3-1 c 3"));
    c.push(words("XDEL st 2-1"));
    // Groups: entries-read unknown (XGROUP CREATE without ENTRIESREAD: Redis records -1,
    // XINFO's nil) and known.
    c.push(words("XGROUP CREATE st g:unknown 0"));
    c.push(words("XGROUP CREATE st g:known 1-1 ENTRIESREAD 1"));
    c.push(words("SELECT 2"));
    c.push(words("SET other:db here"));
    c
}

fn digest(s: &RedisServer) -> Reply {
    let mut c = s.connection();
    query_pipeline(&mut c, &[words("DEBUG DIGEST")]).remove(0)
}

#[test]
fn resp_dump_rebuilds_the_same_data_set() {
    let kind = ServerKind::Redis7_4;
    let Some(writer) =
        RedisServer::start_kind_if_installed(kind, &["--enable-debug-command", "yes"])
    else {
        return;
    };
    let mut c = writer.raw_connection();
    for cmd in data() {
        let r = c.query(&cmd);
        assert!(!r.starts_with(b"-"), "{}", String::from_utf8_lossy(&r));
    }
    let rdb = writer.save_rdb();
    let (_dir, path) = temp_file("dump.rdb", &rdb);
    let resp = bitlens_ok(&["dump", &path, "--format", "resp"]);
    let replay = RedisServer::start_kind(kind, &["--enable-debug-command", "yes"]);
    let mut r = replay.raw_connection();
    for cmd in parse_resp(&resp) {
        let rep = r.query(&cmd);
        assert!(
            !rep.starts_with(b"-"),
            "{:?}: {}",
            cmd,
            String::from_utf8_lossy(&rep)
        );
    }
    assert_eq!(digest(&replay), digest(&writer));
    // DEBUG DIGEST leaves consumer groups out: XINFO GROUPS compares them.
    let groups = |s: &RedisServer| {
        let mut c = s.connection();
        query_pipeline(&mut c, &[words("XINFO GROUPS st")]).remove(0)
    };
    assert_eq!(groups(&replay), groups(&writer));

    let out = bitlens_ok(&["dump", &path]);
    assert!(!out.contains(&0x1b), "no raw ESC in JSON lines");
    let lines: Vec<serde_json::Value> = out
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
    let Some(server) = RedisServer::start_kind_if_installed(kind, &[]) else {
        return;
    };
    let mut c = server.raw_connection();
    for cmd in data() {
        c.query(&cmd);
    }
    c.query(&words("SELECT 0"));
    let a = server.save_rdb();
    for cmd in [
        words("DEL s:3 l:4"),
        words("SET new:key x"),
        words("HSET h:5 f changed"),
        words("EXPIRE z:6 100000"),
        words("SADD set:big one-more"),
        // Rewritten to the same content: not a change.
        words("SET s:7 v7"),
    ] {
        let r = c.query(&cmd);
        assert!(!r.starts_with(b"-"), "{}", String::from_utf8_lossy(&r));
    }
    let b = server.save_rdb();
    let (_da, pa) = temp_file("a.rdb", &a);
    let (_db, pb) = temp_file("b.rdb", &b);
    let v: serde_json::Value =
        serde_json::from_slice(&bitlens_ok(&["diff", &pa, &pb, "--json"])).unwrap();
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
    let text = String::from_utf8(bitlens_ok(&["diff", &pa, &pb])).unwrap();
    assert!(text.starts_with("1 added, 2 removed, 3 changed"), "{text}");
    // --exit-code: 1 when they differ (the same report on stdout), 0 when not, 2 on
    // trouble (without it, trouble is 1).
    let out = bitlens(&["diff", "--exit-code", &pa, &pb], b"");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout), text);
    let out = bitlens(&["diff", "--exit-code", &pa, &pa], b"");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("0 added, 0 removed, 0 changed"));
    let (_dc, pc) = temp_file("cut.rdb", &b[..b.len() / 2]);
    let out = bitlens(&["diff", "--exit-code", &pa, &pc], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(bitlens(&["diff", &pa, &pc], b"").status.code(), Some(1));
}
