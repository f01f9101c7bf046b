//! GEO at city scale: building a 1,000,000-member GEO set (what loading a snapshot does) and
//! `GEOSEARCH ... BYRADIUS 3 km ASC COUNT 50` at a dense city centre and in the suburbs.
//! Shops cluster around two cities: 30 % in a dense core (σ ≈ 1.5 km), the rest spread out
//! (σ ≈ 7 km), so a 3 km circle at the centre holds over 100,000 members.
//! Run: `cargo bench --bench geo`.

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};

use bitlens::geo::encode;
use bitlens::keyspace::Value;
use bitlens::zset::ZSet;
use bitlens::Keyspace;

/// Deterministic shop positions: `n` (member, score) pairs.
pub fn shops(n: usize) -> Vec<(Vec<u8>, f64)> {
    let mut rng = fastrand::Rng::with_seed(0x9e37_79b9_7f4a_7c15);
    let mut unit = move || rng.f64();
    let cities = [(121.4737, 31.2304), (116.4074, 39.9042)];
    (0..n)
        .map(|i| {
            let (lon0, lat0) = cities[usize::from(unit() >= 0.6)];
            let sigma = if unit() < 0.3 { 1.5 } else { 7.0 };
            // Box-Muller.
            let (u1, u2) = (unit().max(1e-12), unit());
            let r = (-2.0 * u1.ln()).sqrt() * sigma;
            let (dx, dy) = (
                r * (2.0 * std::f64::consts::PI * u2).cos(),
                r * (2.0 * std::f64::consts::PI * u2).sin(),
            );
            let lat = lat0 + dy / 111.2;
            let lon = lon0 + dx / (111.2 * lat0.to_radians().cos());
            (
                format!("shop:{i:07}").into_bytes(),
                encode(lon, lat).unwrap() as f64,
            )
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let pairs = shops(1_000_000);
    let mut g = c.benchmark_group("geo");
    g.sample_size(10);
    g.bench_function("zset_from_pairs_1m", |b| {
        b.iter_batched(
            || pairs.clone(),
            |p| black_box(ZSet::from_pairs(p)),
            BatchSize::LargeInput,
        )
    });
    g.finish();

    let mut ks = Keyspace::new();
    ks.set(b"shops", Value::zset(ZSet::from_pairs(pairs)));
    let mut g = c.benchmark_group("geo");
    for (name, lon, lat) in [
        ("geosearch_3km_asc_count50_centre", "121.4737", "31.2304"),
        ("geosearch_3km_asc_count50_suburb", "121.56", "31.30"),
    ] {
        let argv: Vec<Vec<u8>> = [
            "GEOSEARCH",
            "shops",
            "FROMLONLAT",
            lon,
            lat,
            "BYRADIUS",
            "3",
            "km",
            "ASC",
            "COUNT",
            "50",
            "WITHDIST",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
        g.bench_function(name, |b| {
            b.iter(|| black_box(bitlens::execute(&mut ks, &argv)))
        });
    }
    let argv: Vec<Vec<u8>> = [
        "GEOSEARCH",
        "shops",
        "FROMLONLAT",
        "121.56",
        "31.30",
        "BYRADIUS",
        "500",
        "m",
        "WITHDIST",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    g.bench_function("geosearch_500m_unsorted_suburb", |b| {
        b.iter(|| black_box(bitlens::execute(&mut ks, &argv)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
