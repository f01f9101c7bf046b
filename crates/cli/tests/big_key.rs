//! A key far bigger than the exporter's memory budget: its DUMP reply is streamed through in
//! pieces (never held whole), so the exporter's peak RSS stays well below the key's size, and
//! the snapshot still holds the key byte for byte, with its expiry, next to small keys.

mod common;

use std::time::Duration;

use bitlens_difftest::RedisServer;
use common::*;

/// Size of the big key: 96 MiB of incompressible bytes.
const BIG: usize = 96 << 20;

/// Piece `i` (1 MiB) of the big value.
fn piece(i: usize) -> Vec<u8> {
    noise(1000 + i as u64, 1 << 20)
}

#[test]
fn big_key_dump_streams_with_bounded_memory() {
    let source = RedisServer::start(&[]);
    let mut c = source.connection();
    for i in 0..BIG >> 20 {
        let _: i64 = redis::cmd("APPEND")
            .arg("big")
            .arg(piece(i))
            .query(&mut c)
            .unwrap();
    }
    let _: i64 = redis::cmd("EXPIRE")
        .arg("big")
        .arg(3600)
        .query(&mut c)
        .unwrap();
    // Above the streaming threshold in memory, but its DUMP is small (LZF-compressed zeros).
    let _: i64 = redis::cmd("SETBIT")
        .arg("zeros")
        .arg((2u64 << 23) - 1)
        .arg(1)
        .query(&mut c)
        .unwrap();
    let _: () = redis::cmd("SET")
        .arg("small")
        .arg("42")
        .query(&mut c)
        .unwrap();
    let _: i64 = redis::cmd("GEOADD")
        .arg("shop:geo:cafe")
        .arg("13.361389")
        .arg("38.115556")
        .arg("Palermo")
        .query(&mut c)
        .unwrap();

    let served = Served::start(&["--redis", &source.url()]);
    let mut body = Vec::with_capacity(BIG + (1 << 20));
    let (status, complete, _) = http_get_streamed(
        served.port,
        "/api/snapshot",
        &[],
        Duration::from_secs(120),
        &mut |p: &[u8]| body.extend_from_slice(p),
    );
    let peak = vm_hwm_kib(served.pid());
    println!(
        "snapshot of {} bytes with a {} MiB key: exporter peak RSS {} MiB",
        body.len(),
        BIG >> 20,
        peak / 1024
    );
    assert_eq!((status, complete), (200, true), "{}", served.stderr());
    assert!(
        peak * 1024 < (BIG as u64) / 3,
        "exporter peak RSS {peak} KiB for a {BIG}-byte key"
    );

    let snap = bitlens::rdb::load_rdb(&body, &Default::default()).expect("valid RDB");
    let ks = &snap.databases[&0];
    assert_eq!(ks.len(), 4);
    let big = ks.iter().find(|(k, _)| *k == b"big").expect("big key").1;
    let bitlens::Value::String(s) = &big.value else {
        panic!("big is not a string");
    };
    let bytes = s.as_bytes();
    assert_eq!(bytes.len(), BIG);
    for (i, chunk) in bytes.chunks(1 << 20).enumerate() {
        assert!(chunk == piece(i).as_slice(), "piece {i} differs");
    }
    let pttl: i64 = redis::cmd("PTTL").arg("big").query(&mut c).unwrap();
    let expire = big.expire_at_ms.expect("big keeps its expiry");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    assert!(
        expire > now && expire <= now + pttl + 60_000,
        "{expire} {now} {pttl}"
    );
    match ks.get(b"zeros") {
        Some(bitlens::Value::String(z)) => {
            let z = z.as_bytes();
            assert_eq!(z.len(), 2 << 20);
            assert_eq!(z[z.len() - 1], 1);
            assert!(z[..z.len() - 1].iter().all(|b| *b == 0));
        }
        other => panic!("zeros: {other:?}"),
    }
    match ks.get(b"small") {
        Some(bitlens::Value::String(v)) => assert_eq!(v.as_bytes().as_ref(), b"42"),
        other => panic!("small: {other:?}"),
    }
    assert!(ks.get(b"shop:geo:cafe").is_some());
}
