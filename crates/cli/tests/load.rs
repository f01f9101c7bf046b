//! Load test (run explicitly: `cargo test --release -p bitlens-cli --test load -- --ignored
//! --nocapture`): 100 concurrent snapshot downloads of a ~50 MB keyspace from a real
//! redis-server. Every download must complete and be byte-identical (same keys, same values:
//! the keyspace does not change), one of them is decoded and checked against the source, and
//! the exporter's peak RSS (VmHWM) is reported and must stay far below 100 × the snapshot size.

mod common;

use std::time::Instant;

use bitlens_difftest::RedisServer;
use common::*;

fn vm_hwm_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[test]
#[ignore = "load test: run explicitly (minutes, ~5 GB over loopback)"]
fn hundred_concurrent_downloads_of_50_mb() {
    let source = RedisServer::start(&[]);
    let mut c = source.connection();
    // 400 keys of 128 KiB of incompressible bytes = 50 MiB.
    let mut x = 0x1234_5678_9abc_def0u64;
    for i in 0..400 {
        let v: Vec<u8> = (0..128 * 1024)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let _: () = redis::cmd("SET")
            .arg(format!("load:{i:03}"))
            .arg(v)
            .query(&mut c)
            .unwrap();
    }
    let served = Served::start(&["--redis", &source.url()]);
    let port = served.port;
    let base = vm_hwm_kib(served.pid());
    let start = Instant::now();
    let downloads: Vec<_> = (0..100)
        .map(|_| std::thread::spawn(move || http_get_hashed(port, "/api/snapshot")))
        .collect();
    let results: Vec<(u16, bool, u64, u64)> =
        downloads.into_iter().map(|d| d.join().unwrap()).collect();
    let secs = start.elapsed().as_secs_f64();
    let peak = vm_hwm_kib(served.pid());
    let total: u64 = results.iter().map(|r| r.2).sum();
    println!(
        "100 downloads of {} bytes in {secs:.1} s ({:.0} MB/s); exporter peak RSS {} MiB (idle {} MiB)",
        results[0].2,
        total as f64 / secs / 1e6,
        peak / 1024,
        base / 1024
    );
    for r in &results {
        assert_eq!((r.0, r.1), (200, true));
        assert_eq!((r.2, r.3), (results[0].2, results[0].3), "downloads differ");
    }
    assert!(results[0].2 > 50 * 1024 * 1024);
    // Bounded: far less than even 10 snapshots held at once.
    assert!(peak * 1024 < 10 * results[0].2, "peak RSS {peak} KiB");

    let one = served.get("/api/snapshot");
    let snap = bitlens::rdb::load_rdb(&one.body, &Default::default()).unwrap();
    let ks = &snap.databases[&0];
    assert_eq!(ks.len(), 400);
    let v: Vec<u8> = redis::cmd("GET").arg("load:123").query(&mut c).unwrap();
    match ks.get(b"load:123") {
        Some(bitlens::Value::String(s)) => assert_eq!(s.as_bytes().as_ref(), v.as_slice()),
        other => panic!("{other:?}"),
    }
}
