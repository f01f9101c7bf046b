//! Load test: many concurrent snapshot downloads of a large keyspace from a real redis-server,
//! loopback only, bounded in count and time.
//!
//! - `bounded_concurrent_downloads` runs in `cargo test` (and so in `npm test`): 100 concurrent
//!   downloads of an 8 MiB keyspace, sized to finish in about a minute in a debug build on a
//!   small shared machine.
//! - `hundred_concurrent_downloads_of_50_mb` is the full case of issue 9 (100 downloads of a
//!   50 MiB keyspace): `cargo test --release -p bitlens-cli --test load -- --ignored --nocapture`.
//!
//! The keys are split between databases 0 and 3 (the export holds every database, each read
//! over a connection of its own that the concurrent requests share). Each run first downloads
//! one snapshot, decodes it and checks every key and value, and its database, against the
//! source. Then every concurrent download is streamed through a CRC-64 (never held whole): it
//! must be complete, its RDB trailer must be the CRC-64 of the bytes before it (a valid file),
//! and it must have the reference's length and trailer (the keyspace does not change, so every
//! download is the same file). The exporter's peak RSS (VmHWM) must stay under a fixed bound
//! (a memory bound, not a timing one); peak RSS and throughput are printed. A watchdog fails
//! the test instead of hanging when the downloads do not all end within a hard limit.

mod common;

use std::sync::mpsc;
use std::time::{Duration, Instant};

use bitlens_difftest::RedisServer;
use common::*;

/// Value `i`: `len` incompressible bytes.
fn value(i: usize, len: usize) -> Vec<u8> {
    noise(i as u64, len)
}

/// One streamed download: (status, complete, length, trailer CRC, CRC of the bytes before it).
fn download(port: u16, timeout: Duration) -> (u16, bool, u64, u64, u64) {
    let mut crc = 0u64;
    // The last 8 bytes seen so far are held back: they are the trailer if the body ends here.
    let mut tail: Vec<u8> = Vec::with_capacity(8 + 64 * 1024);
    let (status, complete, len) = http_get_streamed(
        port,
        "/api/snapshot",
        &[],
        timeout,
        &mut |piece: &[u8]| {
            tail.extend_from_slice(piece);
            if tail.len() > 8 {
                let cut = tail.len() - 8;
                crc = bitlens::rdb::crc64_update(crc, &tail[..cut]);
                tail.drain(..cut);
            }
        },
    );
    let trailer = if tail.len() == 8 {
        u64::from_le_bytes(tail[..8].try_into().unwrap())
    } else {
        0
    };
    (status, complete, len, trailer, crc)
}

/// Database of key `i`: odd keys in 3, even ones in 0.
fn db_of(i: usize) -> u64 {
    if i % 2 == 1 {
        3
    } else {
        0
    }
}

/// Fills a redis-server with `keys` strings of `len` random bytes (in databases 0 and 3, see
/// [`db_of`]), serves it, checks one
/// decoded snapshot, then runs `downloads` concurrent downloads (at most `limit` long in all)
/// and checks each as described in the module docs, and the exporter's peak RSS against
/// `rss_bound_mib`.
fn run_load(downloads: usize, keys: usize, len: usize, limit: Duration, rss_bound_mib: u64) {
    let source = RedisServer::start(&[]);
    let mut c = source.connection();
    for db in [0, 3] {
        let _: () = redis::cmd("SELECT").arg(db).query(&mut c).unwrap();
        let mine: Vec<usize> = (0..keys).filter(|&i| db_of(i) == db).collect();
        for part in mine.chunks(50) {
            let mut pipe = redis::pipe();
            for &i in part {
                pipe.cmd("SET")
                    .arg(format!("load:{i:05}"))
                    .arg(value(i, len))
                    .ignore();
            }
            let _: () = pipe.query(&mut c).unwrap();
        }
    }
    let served = Served::start(&["--redis", &source.url()]);
    let port = served.port;

    // The reference: one download, decoded and compared with the source key by key.
    let one = served.get("/api/snapshot");
    assert_eq!(
        (one.status, one.complete),
        (200, true),
        "{}",
        served.stderr()
    );
    let snap = bitlens::rdb::load_rdb(&one.body, &Default::default()).expect("valid RDB");
    assert_eq!(snap.databases.keys().copied().collect::<Vec<_>>(), [0, 3]);
    let held: usize = snap.databases.values().map(|ks| ks.len()).sum();
    assert_eq!(held, keys);
    for i in 0..keys {
        match snap.databases[&db_of(i)].get(format!("load:{i:05}").as_bytes()) {
            Some(bitlens::Value::String(s)) => {
                assert!(s.as_bytes().as_ref() == value(i, len).as_slice(), "key {i}")
            }
            other => panic!("load:{i:05}: {other:?}"),
        }
    }
    let ref_len = one.body.len() as u64;
    let ref_trailer = u64::from_le_bytes(one.body[one.body.len() - 8..].try_into().unwrap());
    assert!(ref_len as usize > keys * len);
    drop((one, snap));

    let (tx, rx) = mpsc::channel();
    let start = Instant::now();
    for _ in 0..downloads {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let _ = tx.send(download(port, limit));
        });
    }
    drop(tx);
    let deadline = start + limit;
    let mut results = Vec::new();
    while results.len() < downloads {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(r) => results.push(r),
            // Dropping `served` (on the panic) kills the exporter, which ends the downloads.
            Err(_) => panic!(
                "only {} of {downloads} downloads ended within {limit:?}",
                results.len()
            ),
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let peak = vm_hwm_kib(served.pid());
    let total: u64 = results.iter().map(|r| r.2).sum();
    println!(
        "{downloads} concurrent downloads of {ref_len} bytes ({keys} keys): {secs:.1} s, \
         {:.0} MB/s; exporter peak RSS {} MiB",
        total as f64 / secs / 1e6,
        peak / 1024
    );
    for (status, complete, n, trailer, crc) in &results {
        assert_eq!((*status, *complete), (200, true), "{}", served.stderr());
        assert_eq!(trailer, crc, "trailer is not the CRC-64 of the file");
        assert_eq!((*n, *trailer), (ref_len, ref_trailer), "download differs");
    }
    assert!(
        peak < rss_bound_mib * 1024,
        "exporter peak RSS {peak} KiB over {rss_bound_mib} MiB"
    );
}

/// 100 concurrent downloads of an 8 MiB keyspace (64 keys of 128 KiB): the full 50 MiB case
/// moves about 5 GB, which a debug build on two shared cores cannot do in a few minutes. The
/// memory bound is as strict: 256 MiB could not hold even a third of the 100 files at once.
#[test]
fn bounded_concurrent_downloads() {
    run_load(100, 64, 128 * 1024, Duration::from_secs(300), 256);
}

#[test]
#[ignore = "full load test of issue 9: run with --release --ignored (about 5 GB over loopback)"]
fn hundred_concurrent_downloads_of_50_mb() {
    run_load(100, 400, 128 * 1024, Duration::from_secs(600), 256);
}
