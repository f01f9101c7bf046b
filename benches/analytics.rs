//! Streak histogram over 30 daily bitmaps of 100,000,000 users (30 keys × 12.5 MB), the issue's
//! reference workload, on two data shapes:
//! - `habitual`: 60 % of users are regulars who are active on each day with probability 7/8,
//!   so streaks run long and the AND chain rarely empties (the slow case);
//! - `independent`: every user is active on each day with probability 1/4, independently, so
//!   most chains empty within a few keys.
//!
//! Also the rolling 30-day actives and a 7×7 retention matrix over the habitual keys.
//!
//! Each function is measured twice: wall-clock time (`wall/…`) and, on Linux, the CPU time of
//! the benchmark thread (`cpu/…`, from `/proc/thread-self/schedstat`), which stays meaningful
//! when the machine is shared with other jobs.
//! Run: `cargo bench -p bitlens --bench analytics`.

use std::sync::OnceLock;

use bitlens::analytics::daily;
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{criterion_group, criterion_main, Criterion};

const USERS: usize = 100_000_000;
const DAYS: usize = 30;

fn make_keys(habitual: bool) -> Vec<Vec<u8>> {
    let words = USERS / 64;
    let mut rng = fastrand::Rng::with_seed(0x2545F4914F6CDD1D);
    // Regulars: a fixed ~60 % of users (x | (y & z) has density 1/2 + 1/8).
    let base: Vec<u64> = (0..words)
        .map(|_| rng.u64(..) | (rng.u64(..) & rng.u64(..)))
        .collect();
    (0..DAYS)
        .map(|_| {
            let mut out = Vec::with_capacity(words * 8);
            for &b in &base {
                let w = if habitual {
                    b & (rng.u64(..) | rng.u64(..) | rng.u64(..))
                } else {
                    rng.u64(..) & rng.u64(..)
                };
                out.extend_from_slice(&w.to_be_bytes());
            }
            out
        })
        .collect()
}

fn keys(habitual: bool) -> &'static [Vec<u8>] {
    static H: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    static I: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    if habitual {
        H.get_or_init(|| make_keys(true))
    } else {
        I.get_or_init(|| make_keys(false))
    }
}

/// CPU time of the calling thread in nanoseconds (Linux `schedstat`; wall time elsewhere).
struct ThreadCpu {
    wall: WallTime,
}

fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| {
            static T0: OnceLock<std::time::Instant> = OnceLock::new();
            T0.get_or_init(std::time::Instant::now).elapsed().as_nanos() as u64
        })
}

impl Measurement for ThreadCpu {
    type Intermediate = u64;
    type Value = std::time::Duration;
    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, i: u64) -> std::time::Duration {
        std::time::Duration::from_nanos(thread_cpu_ns().saturating_sub(i))
    }
    fn add(&self, a: &std::time::Duration, b: &std::time::Duration) -> std::time::Duration {
        *a + *b
    }
    fn zero(&self) -> std::time::Duration {
        std::time::Duration::ZERO
    }
    fn to_f64(&self, v: &std::time::Duration) -> f64 {
        v.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        self.wall.formatter()
    }
}

fn run<M: Measurement>(c: &mut Criterion<M>, kind: &str) {
    let mut g = c.benchmark_group(format!("{kind}/100M_users_30_days"));
    g.sample_size(10);
    for (name, habitual) in [("habitual", true), ("independent", false)] {
        let refs: Vec<&[u8]> = keys(habitual).iter().map(|v| v.as_slice()).collect();
        g.bench_function(format!("streak_histogram/{name}"), |b| {
            b.iter(|| daily::streak_histogram(&refs))
        });
        if habitual {
            g.bench_function("rolling_actives_30", |b| {
                b.iter(|| daily::rolling_actives(&refs, 30))
            });
            g.bench_function("retention_7x7", |b| {
                b.iter(|| daily::retention(&refs, 7, 7))
            });
        }
    }
    g.finish();
}

fn wall(c: &mut Criterion) {
    run(c, "wall");
}

fn cpu(c: &mut Criterion<ThreadCpu>) {
    run(c, "cpu");
}

criterion_group!(wall_benches, wall);
criterion_group! {
    name = cpu_benches;
    config = Criterion::default().with_measurement(ThreadCpu { wall: WallTime });
    targets = cpu
}
criterion_main!(wall_benches, cpu_benches);
