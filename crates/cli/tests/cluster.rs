//! `bitlens serve --redis` on a real Redis Cluster of 3 masters (started here on loopback
//! ports, joined with `redis-cli --cluster create`): the exporter discovers the masters, scans
//! each, and merges every key into one snapshot.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use bitlens_difftest::RedisServer;
use common::*;

#[test]
fn cluster_keys_of_every_master_merge_into_one_snapshot() {
    let nodes: Vec<RedisServer> = (0..3)
        .map(|_| {
            RedisServer::start(&[
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
            ])
        })
        .collect();
    let mut create = Command::new("redis-cli");
    create.arg("--cluster").arg("create");
    for n in &nodes {
        create.arg(format!("127.0.0.1:{}", n.port));
    }
    let out = create
        .args(["--cluster-replicas", "0", "--cluster-yes"])
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
    // Write through redis-cli -c, which follows MOVED redirections.
    let mut input = String::new();
    for i in 0..300 {
        input.push_str(&format!("SET c:{i} {i}\n"));
    }
    input.push_str("SETBIT stats:active:20240501 12345 1\n");
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
    // Every master holds some of the keys.
    for n in &nodes {
        let mut c = n.connection();
        let size: i64 = redis::cmd("DBSIZE").query(&mut c).unwrap();
        assert!(size > 50, "{size}");
    }

    let served = Served::start(&["--redis", &nodes[0].url(), "--scan-count", "40"]);
    let info = served.get("/api/info").json();
    assert_eq!(info["cluster"], true);
    assert_eq!(info["nodes"].as_array().unwrap().len(), 3);
    let keys = served.get("/api/keys?match=c:*").json();
    assert_eq!(keys.as_array().unwrap().len(), 300);

    let resp = served.get("/api/snapshot");
    assert!(resp.complete, "{}", served.stderr());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cluster.rdb");
    std::fs::write(&file, &resp.body).unwrap();
    let copy = LoadedRedis::start(&file);
    let mut c = copy.server.connection();
    let size: i64 = redis::cmd("DBSIZE").query(&mut c).unwrap();
    assert_eq!(size, 301);
    for i in (0..300).step_by(7) {
        let v: String = redis::cmd("GET")
            .arg(format!("c:{i}"))
            .query(&mut c)
            .unwrap();
        assert_eq!(v, i.to_string());
    }
    let bits: i64 = redis::cmd("BITCOUNT")
        .arg("stats:active:20240501")
        .query(&mut c)
        .unwrap();
    assert_eq!(bits, 1);
}
