//! HyperLogLog benchmarks (criterion): PFCOUNT of one dense key (cached and recomputed),
//! PFCOUNT over 30 dense keys, PFMERGE of 30 dense keys, PFADD of 1,000,000 elements.
//! Run with `cargo bench -p bitlens --bench hll`.

use bitlens::string::RedisString;
use bitlens::{hll, Keyspace, Value};
use criterion::{black_box, criterion_group, criterion_main, Criterion};

fn dense_key(day: u64) -> Vec<u8> {
    let elements: Vec<Vec<u8>> = (0..50_000u64)
        .map(|i| format!("user:{}", i * 7 + day * 10_007).into_bytes())
        .collect();
    let refs: Vec<&[u8]> = elements.iter().map(|e| e.as_slice()).collect();
    let mut h = Vec::new();
    hll::pfadd(&mut h, &refs).unwrap();
    h
}

fn keyspace() -> (Keyspace, Vec<Vec<u8>>) {
    let mut ks = Keyspace::new();
    let mut keys = Vec::new();
    for day in 0..30 {
        let key = format!("uv:page:index:202405{:02}", day + 1).into_bytes();
        ks.set(
            key.clone(),
            Value::String(RedisString::from_bytes(dense_key(day))),
        );
        keys.push(key);
    }
    (ks, keys)
}

fn bench(c: &mut Criterion) {
    let (mut ks, keys) = keyspace();
    let one = vec![b"PFCOUNT".to_vec(), keys[0].clone()];
    c.bench_function("PFCOUNT 1 dense key (cached)", |b| {
        b.iter(|| black_box(bitlens::execute(&mut ks, &one)))
    });
    let raw = match ks.get(&keys[0]) {
        Some(Value::String(s)) => s.as_bytes().into_owned(),
        _ => unreachable!(),
    };
    let mut cached = raw.clone();
    hll::count(&mut cached).unwrap();
    c.bench_function("PFCOUNT 1 dense key (cached, engine only)", |b| {
        b.iter(|| black_box(hll::count(black_box(&mut cached)).unwrap()))
    });
    c.bench_function("PFCOUNT 1 dense key (recomputed)", |b| {
        b.iter(|| black_box(hll::estimate(black_box(&raw)).unwrap()))
    });
    let mut union = vec![b"PFCOUNT".to_vec()];
    union.extend(keys.iter().cloned());
    c.bench_function("PFCOUNT 30 dense keys", |b| {
        b.iter(|| black_box(bitlens::execute(&mut ks, &union)))
    });
    let mut merge = vec![b"PFMERGE".to_vec(), b"uv:page:index:month".to_vec()];
    merge.extend(keys.iter().cloned());
    c.bench_function("PFMERGE 30 dense keys", |b| {
        b.iter(|| {
            ks.remove(b"uv:page:index:month");
            black_box(bitlens::execute(&mut ks, &merge))
        })
    });
    let mut add = vec![b"PFADD".to_vec(), b"uv:big".to_vec()];
    add.extend((0..1_000_000u64).map(|i| format!("visitor:{i}").into_bytes()));
    let mut group = c.benchmark_group("pfadd");
    group.sample_size(10);
    group.bench_function("PFADD 1e6 elements (new key)", |b| {
        b.iter(|| {
            ks.remove(b"uv:big");
            black_box(bitlens::execute(&mut ks, &add))
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
