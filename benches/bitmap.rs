//! Bitmap benchmarks (criterion) on 100,000,000-bit keys (12.5 MB, about 15 % density), the
//! shapes issue 3 compares against Redis: BITCOUNT (whole key and a BIT range), BITPOS over a
//! key whose only set bit is the last, BITOP OR of 30 keys and BITOP AND of 7 keys, plus a
//! sparse key (ten bits near 2^27). Throughput is reported in bytes read per second.
//! Run with `cargo bench -p bitlens --bench bitmap`.

use bitlens::command::execute_str;
use bitlens::string::RedisString;
use bitlens::{Keyspace, Value};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

const BYTES: usize = 12_500_000;

fn random_bitmap(seed: u64) -> Vec<u8> {
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..BYTES)
        .map(|_| {
            // Each bit set with probability about 15 %: AND of three random bytes, OR'd lightly.
            let mut b = 0xFFu8;
            let mut x = 0;
            for _ in 0..3 {
                x = rng.u64(..);
                b &= x as u8;
            }
            b | ((x >> 40) as u8 & (x >> 48) as u8 & 0x11)
        })
        .collect()
}

fn keyspace() -> Keyspace {
    let mut ks = Keyspace::new();
    for i in 0..30u64 {
        ks.set(
            format!("bm:{i:02}").into_bytes(),
            Value::String(RedisString::from_bytes(random_bitmap(i + 1))),
        );
    }
    let mut last = vec![0u8; BYTES];
    last[BYTES - 1] = 1;
    ks.set(b"zeros", Value::String(RedisString::from_bytes(last)));
    ks.set(
        b"sparse",
        Value::String(RedisString::from_sparse_bits(
            (1 << 24) + 16,
            (0..10).map(|i| (1u64 << 27) + i * 977),
        )),
    );
    ks
}

fn bench(c: &mut Criterion) {
    let mut ks = keyspace();
    let mut g = c.benchmark_group("bitmap");
    g.sample_size(20);
    g.throughput(Throughput::Bytes(BYTES as u64));
    g.bench_function("BITCOUNT 100M bits", |b| {
        b.iter(|| black_box(execute_str(&mut ks, &["BITCOUNT", "bm:00"])))
    });
    g.bench_function("BITCOUNT BIT range", |b| {
        b.iter(|| {
            black_box(execute_str(
                &mut ks,
                &["BITCOUNT", "bm:01", "13", "99999987", "BIT"],
            ))
        })
    });
    g.bench_function("BITPOS 1 (last bit)", |b| {
        b.iter(|| black_box(execute_str(&mut ks, &["BITPOS", "zeros", "1"])))
    });
    let or30: Vec<String> = (0..30).map(|i| format!("bm:{i:02}")).collect();
    let mut argv = vec!["BITOP", "OR", "dest"];
    argv.extend(or30.iter().map(|s| s.as_str()));
    g.throughput(Throughput::Bytes(30 * BYTES as u64));
    g.bench_function("BITOP OR 30 keys", |b| {
        b.iter(|| black_box(execute_str(&mut ks, &argv)))
    });
    let mut argv = vec!["BITOP", "AND", "dest"];
    argv.extend(or30[..7].iter().map(|s| s.as_str()));
    g.throughput(Throughput::Bytes(7 * BYTES as u64));
    g.bench_function("BITOP AND 7 keys", |b| {
        b.iter(|| black_box(execute_str(&mut ks, &argv)))
    });
    g.throughput(Throughput::Elements(1));
    g.bench_function("BITCOUNT sparse 16 MiB key", |b| {
        b.iter(|| black_box(execute_str(&mut ks, &["BITCOUNT", "sparse"])))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
