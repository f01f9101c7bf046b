//! Otmar Ertl's improved HyperLogLog estimator, as Redis 7 computes it (same f64 operation
//! order, so the rounded integer is identical).

use super::REGISTERS;

/// Q = 64 − P: the largest run length is Q + 1 = 51.
const Q: usize = 50;
/// α∞ = 1 / (2 ln 2).
const ALPHA_INF: f64 = 0.721_347_520_444_481_7;

/// σ(x) = x + Σ_{k≥1} x^(2^k) · 2^(k−1), summed until it stops changing; ∞ at x = 1.
fn sigma(mut x: f64) -> f64 {
    if x == 1.0 {
        return f64::INFINITY;
    }
    let mut y = 1.0;
    let mut z = x;
    loop {
        x *= x;
        let prev = z;
        z += x * y;
        y += y;
        if prev == z {
            return z;
        }
    }
}

/// τ(x) = (1 − x − Σ_{k≥1} (1 − x^(2^−k))² · 2^−k) / 3, summed until it stops changing.
fn tau(mut x: f64) -> f64 {
    if x == 0.0 || x == 1.0 {
        return 0.0;
    }
    let mut y = 1.0;
    let mut z = 1.0 - x;
    loop {
        x = x.sqrt();
        let prev = z;
        y *= 0.5;
        let d = 1.0 - x;
        z -= d * d * y;
        if prev == z {
            return z / 3.0;
        }
    }
}

/// The cardinality estimate from a register histogram (`hist[v]` = registers holding `v`;
/// values above 51 are ignored, as in Redis). An estimate that does not fit a signed 64-bit
/// integer (only crafted dense strings with nearly every register at 51 or more get there;
/// the estimate is then infinite) becomes `1 << 63`, which is what Redis' `llroundl` on
/// x86-64 yields: PFCOUNT then replies -9223372036854775808 and the cached value it writes
/// has the invalid bit set.
pub fn estimate_histogram(hist: &[u32; 64]) -> u64 {
    let m = REGISTERS as f64;
    let mut z = m * tau((m - hist[Q + 1] as f64) / m);
    for j in (1..=Q).rev() {
        z += hist[j] as f64;
        z *= 0.5;
    }
    z += m * sigma(hist[0] as f64 / m);
    let e = (ALPHA_INF * m * m / z).round();
    const LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63
    if e.is_finite() && (-LIMIT..LIMIT).contains(&e) {
        e as i64 as u64
    } else {
        1 << 63
    }
}
