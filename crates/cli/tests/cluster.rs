//! `bitlens serve --redis` on a real Redis Cluster of 3 masters with one replica each (started
//! here on loopback ports, joined with `redis-cli --cluster create --cluster-replicas 1`): the
//! exporter discovers the nodes, scans each master (or with `--read-replicas` each replica),
//! and merges every key into one snapshot: database 0, the only one a cluster has (`db=2` is a
//! 400; the RESIZEDB record holds INFO keyspace's count added up over the nodes). Which nodes
//! served the reads is checked with `INFO commandstats`.

mod common;

use std::collections::BTreeMap;
use std::process::Command;
use std::time::{Duration, Instant};

use bitlens_difftest::RedisServer;
use common::*;

/// Keys written: `c:0` .. `c:299` (value = the number) and two bitmaps.
const KEYS: usize = 300;

fn info_field(c: &mut redis::Connection, section: &str, field: &str) -> Option<String> {
    let info: String = redis::cmd("INFO").arg(section).query(c).unwrap();
    info.lines()
        .find_map(|l| l.strip_prefix(field).and_then(|r| r.strip_prefix(':')))
        .map(|v| v.trim().to_string())
}

/// DUMP calls a node has served since the last CONFIG RESETSTAT.
fn dump_calls(n: &RedisServer) -> u64 {
    let mut c = n.connection();
    info_field(&mut c, "commandstats", "cmdstat_dump")
        .and_then(|v| v.strip_prefix("calls=")?.split(',').next()?.parse().ok())
        .unwrap_or(0)
}

fn reset_stats(nodes: &[RedisServer]) {
    for n in nodes {
        let _: () = redis::cmd("CONFIG")
            .arg("RESETSTAT")
            .query(&mut n.connection())
            .unwrap();
    }
}

/// Starts 6 cluster-mode servers and joins them as 3 masters with one replica each; waits
/// (at most 30 s) until every node reports `cluster_state:ok`.
fn start_cluster() -> Vec<RedisServer> {
    let nodes: Vec<RedisServer> = (0..6)
        .map(|_| {
            RedisServer::start(&[
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
                "--cluster-node-timeout",
                "5000",
                // Replicas start their full sync at once instead of after the 5 s default.
                "--repl-diskless-sync-delay",
                "0",
            ])
        })
        .collect();
    let mut create = Command::new("redis-cli");
    create.arg("--cluster").arg("create");
    for n in &nodes {
        create.arg(format!("127.0.0.1:{}", n.port));
    }
    let out = create
        .args(["--cluster-replicas", "1", "--cluster-yes"])
        .output()
        .expect("redis-cli --cluster create");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    for n in &nodes {
        loop {
            let mut c = n.connection();
            let info: String = redis::cmd("CLUSTER").arg("INFO").query(&mut c).unwrap();
            if info.contains("cluster_state:ok") {
                break;
            }
            assert!(Instant::now() < deadline, "cluster not ok: {info}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    nodes
}

/// Whether the node is a master (`INFO replication` role).
fn is_master(n: &RedisServer) -> bool {
    info_field(&mut n.connection(), "replication", "role").as_deref() == Some("master")
}

/// The keys of a snapshot with their values (strings) or bit counts (the bitmap).
fn snapshot_keys(body: &[u8]) -> BTreeMap<String, Vec<u8>> {
    let snap = bitlens::rdb::load_rdb(body, &Default::default()).expect("valid RDB");
    let mut out = BTreeMap::new();
    for (k, e) in snap.databases[&0].iter() {
        let v = match &e.value {
            bitlens::Value::String(s) => s.as_bytes().to_vec(),
            other => panic!("{other:?}"),
        };
        out.insert(String::from_utf8_lossy(k).into_owned(), v);
    }
    out
}

/// Each database of an RDB file with the RESIZEDB key count its first key record reports.
fn resize_hints(body: &[u8]) -> Vec<(u64, Option<u64>)> {
    let mut out: Vec<(u64, Option<u64>)> = Vec::new();
    bitlens::rdb::visit_rdb(body, &Default::default(), |r| {
        if out.last().map(|l| l.0) != Some(r.db) {
            out.push((r.db, r.db_size_hint));
        }
        Ok(())
    })
    .expect("valid RDB");
    out
}

/// The keys the test wrote, as [`snapshot_keys`] shows them.
fn expected_keys() -> BTreeMap<String, Vec<u8>> {
    let mut m: BTreeMap<String, Vec<u8>> = (0..KEYS)
        .map(|i| (format!("c:{i}"), i.to_string().into_bytes()))
        .collect();
    // SETBIT 12345: byte 1543, bit 1 from the most significant end.
    let mut bits = vec![0u8; 1544];
    bits[1543] = 0x40;
    m.insert("stats:active:20240501".into(), bits);
    let mut big = vec![0u8; 2 << 20];
    big[(2 << 20) - 1] = 1;
    m.insert("stats:big".into(), big);
    m
}

#[test]
fn cluster_masters_or_replicas_merge_into_one_snapshot() {
    let nodes = start_cluster();
    // Write through redis-cli -c, which follows MOVED redirections.
    let mut input = String::new();
    for i in 0..KEYS {
        input.push_str(&format!("SET c:{i} {i}\n"));
    }
    input.push_str("SETBIT stats:active:20240501 12345 1\n");
    // 2 MiB: its DUMP is streamed over the exporter's own connection (READONLY on replicas).
    input.push_str("SETBIT stats:big 16777215 1\n");
    let out = Command::new("redis-cli")
        .args(["-c", "-p", &nodes[0].port.to_string()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(input.as_bytes())?;
            child.wait()
        })
        .unwrap();
    assert!(out.success());
    let (masters, replicas): (Vec<&RedisServer>, Vec<&RedisServer>) =
        nodes.iter().partition(|n| is_master(n));
    assert_eq!((masters.len(), replicas.len()), (3, 3));
    // Every master holds some of the keys; wait (at most 30 s) until every replica has them.
    let deadline = Instant::now() + Duration::from_secs(30);
    let size =
        |n: &RedisServer| -> i64 { redis::cmd("DBSIZE").query(&mut n.connection()).unwrap() };
    let total: i64 = masters.iter().map(|n| size(n)).sum();
    assert_eq!(total, KEYS as i64 + 2);
    for m in &masters {
        assert!(size(m) > 50, "{}", size(m));
    }
    loop {
        let on_replicas: i64 = replicas.iter().map(|n| size(n)).sum();
        if on_replicas == total {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "replicas hold {on_replicas} keys"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // ... and until the seed's CLUSTER SLOTS lists a replica for every slot range (the seed
    // learns them by gossip; replicas still syncing are left out).
    loop {
        let slots: redis::Value = redis::cmd("CLUSTER")
            .arg("SLOTS")
            .query(&mut nodes[0].connection())
            .unwrap();
        let ranges = match slots {
            redis::Value::Array(r) => r,
            other => panic!("{other:?}"),
        };
        if ranges.len() == 3
            && ranges
                .iter()
                .all(|r| matches!(r, redis::Value::Array(p) if p.len() >= 4))
        {
            break;
        }
        assert!(Instant::now() < deadline, "CLUSTER SLOTS: {ranges:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let expected = expected_keys();

    // Masters serve by default. Two seeds, comma-separated: the first is dead, the second used.
    reset_stats(&nodes);
    let dead = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let seeds = format!("redis://127.0.0.1:{dead}/,{}", nodes[1].url());
    let served = Served::start(&["--redis", &seeds, "--scan-count", "40"]);
    let info = served.get("/api/info").json();
    assert_eq!(info["cluster"], true);
    assert_eq!(info["redis"], nodes[1].url());
    let mut listed: Vec<u16> = info["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            n.as_str()
                .unwrap()
                .rsplit(':')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    listed.sort();
    let mut master_ports: Vec<u16> = masters.iter().map(|n| n.port).collect();
    master_ports.sort();
    assert_eq!(listed, master_ports);
    let keys = served.get("/api/keys?match=c:*").json();
    assert_eq!(keys.as_array().unwrap().len(), KEYS);
    let resp = served.get("/api/snapshot");
    assert!(resp.complete, "{}", served.stderr());
    assert_eq!(snapshot_keys(&resp.body), expected);
    // Database 0 only (a cluster has no other): INFO keyspace added up over the masters, the
    // RESIZEDB record with that count; db=0 is the same export, db=2 a 400.
    let n = KEYS as u64 + 2;
    assert_eq!(info["db"], serde_json::Value::Null);
    assert_eq!(
        info["databases"],
        serde_json::json!([{"db": 0, "keys": n, "expires": 0}])
    );
    assert_eq!(resize_hints(&resp.body), [(0, Some(n))]);
    let zero = served.get("/api/snapshot?db=0");
    assert!(zero.complete, "{}", served.stderr());
    assert_eq!(snapshot_keys(&zero.body), expected);
    let two = served.get("/api/snapshot?db=2");
    assert_eq!(two.status, 400);
    let e = two.json()["error"].as_str().unwrap().to_string();
    assert!(e.contains("a Redis Cluster has database 0 only"), "{e}");
    assert_eq!(served.get("/api/keys?db=2").status, 400);
    for m in &masters {
        assert!(
            dump_calls(m) > 50,
            "master {} served {}",
            m.port,
            dump_calls(m)
        );
    }
    for r in &replicas {
        assert_eq!(dump_calls(r), 0, "replica {}", r.port);
    }
    drop(served);

    // With --read-replicas the replicas serve and the masters see no DUMP.
    reset_stats(&nodes);
    let served = Served::start(&[
        "--redis",
        &nodes[0].url(),
        "--read-replicas",
        "--scan-count",
        "40",
    ]);
    let resp = served.get("/api/snapshot");
    assert!(resp.complete, "{}", served.stderr());
    assert_eq!(snapshot_keys(&resp.body), expected);
    assert_eq!(resize_hints(&resp.body), [(0, Some(KEYS as u64 + 2))]);
    for m in &masters {
        assert_eq!(dump_calls(m), 0, "master {}", m.port);
    }
    for r in &replicas {
        assert!(
            dump_calls(r) > 50,
            "replica {} served {}",
            r.port,
            dump_calls(r)
        );
    }
}
