//! Sparse bitmaps survive loading without being materialised: a 16 MiB string with ten bits
//! set near offset 2^27 (LZF-compressed in the file, as Redis writes it) and a raw mostly-zero
//! string both load into the sparse representation and answer like the dense bytes.

use bitlens::rdb::{load_rdb, LoadOptions, RdbWriter};
use bitlens::string::RedisString;
use bitlens::{Reply, Value};

fn bits_near_2_27() -> (Vec<u8>, Vec<u64>) {
    let len = 16 * 1024 * 1024;
    let offsets: Vec<u64> = (0..10).map(|i| (1u64 << 27) - 1 - i * 997).collect();
    let mut v = vec![0u8; len];
    for &o in &offsets {
        v[(o / 8) as usize] |= 0x80 >> (o % 8);
    }
    (v, offsets)
}

#[test]
fn lzf_string_loads_sparse() {
    let (dense, offsets) = bits_near_2_27();
    let mut w = RdbWriter::new(Vec::new(), 10).unwrap();
    w.select_db(0).unwrap();
    w.write_string(b"tag:sparse", &dense, None).unwrap();
    let file = w.finish().unwrap();
    assert!(
        file.len() < 1024 * 1024,
        "expected the writer to LZF-compress the zeros"
    );
    let mut snap = load_rdb(&file, &LoadOptions::default()).unwrap();
    let mut ks = snap.databases.remove(&0).unwrap();
    match ks.get(b"tag:sparse") {
        Some(Value::String(s)) => {
            assert!(s.is_sparse(), "16 MiB string with 10 bits must load sparse");
            assert!(s.heap_bytes() < 256 * 1024, "heap {} bytes", s.heap_bytes());
        }
        other => panic!("unexpected {other:?}"),
    }
    let run = |ks: &mut bitlens::Keyspace, a: &[&str]| bitlens::command::execute_str(ks, a);
    assert_eq!(
        run(&mut ks, &["BITCOUNT", "tag:sparse"]),
        Reply::Integer(10)
    );
    let first = *offsets.iter().min().unwrap() as i64;
    assert_eq!(
        run(&mut ks, &["BITPOS", "tag:sparse", "1"]),
        Reply::Integer(first)
    );
    assert_eq!(
        run(&mut ks, &["STRLEN", "tag:sparse"]),
        Reply::Integer(16 * 1024 * 1024)
    );
}

#[test]
fn raw_mostly_zero_slice_is_sparse() {
    let (dense, _) = bits_near_2_27();
    let s = RedisString::from_slice(&dense);
    assert!(s.is_sparse());
    assert_eq!(s.popcount(), 10);
    assert_eq!(s.as_bytes().as_ref(), dense.as_slice());
    let small = RedisString::from_slice(b"abc");
    assert!(!small.is_sparse());
    assert_eq!(small.as_bytes().as_ref(), b"abc");
}
