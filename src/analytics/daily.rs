//! Daily activity bitmaps: one string key per day, bit = user id (`stats:active:YYYYMMDD`).
//! Key lists are chronological (oldest first); missing keys are empty days.
//!
//! The multi-key questions run block by block (`BLOCK_WORDS` 64-bit words of every key at a
//! time, so the working set stays in cache) with word-wise AND / OR / AND-NOT and popcounts:
//! - streak histogram: an AND chain walking back from today; the AND-NOT at each step counts
//!   the users whose streak stops there, and a block stops early once the chain is empty;
//! - rolling actives: OR over sliding windows of `w` days with the van Herk / Gil-Werman
//!   prefix/suffix scheme (three ORs per key and word, whatever `w`);
//! - retention: cohort = today AND-NOT (OR of the `lookback` days before), then AND with each
//!   following day.

use crate::analytics::{load_block, popcount, popcount_words, BLOCK_WORDS};

/// `BITLENS.STREAKHIST`: for chronological `keys` (the last one is "today"), element `k − 1` of
/// the result is the number of users (bit offsets) set in each of the last `k` keys and clear
/// in the one before them (for `k = N`, set in all `N`). The result has `N` elements and sums
/// to the popcount of the last key. Empty input gives an empty vector.
pub fn streak_histogram<K: AsRef<[u8]>>(keys: &[K]) -> Vec<u64> {
    streak_histogram_slices(&slices(keys))
}

/// The keys as plain byte slices.
fn slices<K: AsRef<[u8]>>(keys: &[K]) -> Vec<&[u8]> {
    keys.iter().map(|k| k.as_ref()).collect()
}

/// Words per block of the streak histogram's AND chain (the chain reads one block of every
/// key in turn; larger blocks keep the hardware prefetchers streaming).
const STREAK_BLOCK_WORDS: usize = 2048;

super::multiversion! {
    fn streak_histogram_slices(keys: &[&[u8]]) -> Vec<u64> = streak_histogram_impl;
}

#[inline(always)]
fn streak_histogram_impl(keys: &[&[u8]]) -> Vec<u64> {
    let n = keys.len();
    let mut hist = vec![0u64; n];
    if n == 0 {
        return hist;
    }
    let today = keys[n - 1];
    let mut acc = [0u64; STREAK_BLOCK_WORDS];
    let mut tmp = [0u64; STREAK_BLOCK_WORDS];
    let mut start = 0usize;
    while start < today.len() {
        let nw = (today.len() - start).div_ceil(8).min(STREAK_BLOCK_WORDS);
        let acc = &mut acc[..nw];
        load_block(today, start, acc);
        let mut alive = acc.iter().any(|&w| w != 0);
        for k in 1..n {
            if !alive {
                break;
            }
            let prev = keys[n - 1 - k];
            let (ended, rest) = if prev.len() <= start {
                // The older key is empty here: every remaining streak stops.
                let c = popcount_words(acc);
                acc.fill(0);
                (c, 0)
            } else if prev.len() >= start + nw * 8 {
                and_step_bytes(acc, &prev[start..start + nw * 8])
            } else {
                let tmp = &mut tmp[..nw];
                load_block(prev, start, tmp);
                and_step(acc, tmp)
            };
            hist[k - 1] += ended;
            alive = rest != 0;
        }
        if alive {
            hist[n - 1] += popcount_words(acc);
        }
        start += STREAK_BLOCK_WORDS * 8;
    }
    hist
}

/// One link of the AND chain: returns (popcount of `acc & !prev`, OR of the new `acc`) and
/// sets `acc &= prev`.
#[inline(always)]
fn and_step(acc: &mut [u64], prev: &[u64]) -> (u64, u64) {
    let (mut ended, mut rest) = (0u64, 0u64);
    for (a, &p) in acc.iter_mut().zip(prev) {
        ended += (*a & !p).count_ones() as u64;
        *a &= p;
        rest |= *a;
    }
    (ended, rest)
}

/// [`and_step`] reading `prev` straight from the key's bytes (`prev.len() == 8 * acc.len()`).
#[inline(always)]
fn and_step_bytes(acc: &mut [u64], prev: &[u8]) -> (u64, u64) {
    let (mut ended, mut rest) = (0u64, 0u64);
    for (a, p) in acc.iter_mut().zip(prev.chunks_exact(8)) {
        let p = u64::from_ne_bytes(p.try_into().unwrap());
        ended += (*a & !p).count_ones() as u64;
        *a &= p;
        rest |= *a;
    }
    (ended, rest)
}

/// `BITLENS.DAU`: the popcount of each key (daily active users), in order.
pub fn dau<K: AsRef<[u8]>>(keys: &[K]) -> Vec<u64> {
    keys.iter().map(|k| popcount(k.as_ref())).collect()
}

/// Per-block OR of sliding windows of `w` consecutive keys (van Herk / Gil-Werman): keys are cut
/// into chunks of `w`; `g` holds prefix ORs and `h` suffix ORs within each chunk, so any window
/// of exactly `w` keys starting at `s` is `h[s] | g[s + w - 1]`, and a window starting at key 0
/// is `g[e]`.
struct Windows {
    w: usize,
    nw: usize,
    x: Vec<u64>,
    g: Vec<u64>,
    h: Vec<u64>,
}

impl Windows {
    fn new(n: usize, w: usize) -> Self {
        let len = n * BLOCK_WORDS;
        Windows {
            w: w.max(1),
            nw: 0,
            x: vec![0; len],
            g: vec![0; len],
            h: vec![0; len],
        }
    }

    /// Loads block starting at byte `start` of every key (`nw` words) and builds `g`/`h`.
    #[inline(always)]
    fn load(&mut self, keys: &[&[u8]], start: usize, nw: usize) {
        self.nw = nw;
        let n = keys.len();
        for (i, k) in keys.iter().enumerate() {
            load_block(k, start, &mut self.x[i * nw..(i + 1) * nw]);
        }
        for i in 0..n {
            let (prev, cur) = self.g.split_at_mut(i * nw);
            let cur = &mut cur[..nw];
            let x = &self.x[i * nw..(i + 1) * nw];
            if i % self.w == 0 {
                cur.copy_from_slice(x);
            } else {
                let p = &prev[(i - 1) * nw..];
                for ((c, &a), &b) in cur.iter_mut().zip(p).zip(x) {
                    *c = a | b;
                }
            }
        }
        for i in (0..n).rev() {
            let (cur, next) = self.h.split_at_mut((i + 1) * nw);
            let cur = &mut cur[i * nw..];
            let x = &self.x[i * nw..(i + 1) * nw];
            if i % self.w == self.w - 1 || i == n - 1 {
                cur.copy_from_slice(x);
            } else {
                for ((c, &a), &b) in cur.iter_mut().zip(&next[..nw]).zip(x) {
                    *c = a | b;
                }
            }
        }
    }

    #[inline(always)]
    fn key(&self, i: usize) -> &[u64] {
        &self.x[i * self.nw..(i + 1) * self.nw]
    }

    /// The OR of keys `s..=e`, where `e - s + 1 == w`, or `s == 0` and `e < w`: either one
    /// slice of words (`g`), or two (`g | h`) to OR word by word.
    #[inline(always)]
    fn window(&self, s: usize, e: usize) -> (&[u64], Option<&[u64]>) {
        let nw = self.nw;
        let g = &self.g[e * nw..(e + 1) * nw];
        if s.is_multiple_of(self.w) {
            // The window is a prefix of its chunk.
            debug_assert!(e / self.w == s / self.w);
            (g, None)
        } else {
            (g, Some(&self.h[s * nw..(s + 1) * nw]))
        }
    }
}

/// Block length (in bytes) covering the longest key.
fn max_len(keys: &[&[u8]]) -> usize {
    keys.iter().map(|k| k.len()).max().unwrap_or(0)
}

/// `BITLENS.ROLLING`: element `i` is the number of users set in at least one of the `window`
/// keys ending at key `i` (keys `i + 1 − window ..= i`; fewer at the start of the list). With
/// `window` 7 this is the rolling weekly actives, with 30 the rolling monthly actives (MAU).
/// `window` 0 is read as 1.
pub fn rolling_actives<K: AsRef<[u8]>>(keys: &[K], window: usize) -> Vec<u64> {
    rolling_actives_slices(&slices(keys), window)
}

super::multiversion! {
    fn rolling_actives_slices(keys: &[&[u8]], window: usize) -> Vec<u64> = rolling_actives_impl;
}

#[inline(always)]
fn rolling_actives_impl(keys: &[&[u8]], window: usize) -> Vec<u64> {
    let n = keys.len();
    let w = window.clamp(1, n.max(1));
    let mut out = vec![0u64; n];
    if n == 0 {
        return out;
    }
    let total = max_len(keys);
    let mut win = Windows::new(n, w);
    let mut start = 0;
    while start < total {
        let nw = (total - start).div_ceil(8).min(BLOCK_WORDS);
        win.load(keys, start, nw);
        for (e, o) in out.iter_mut().enumerate() {
            let s = (e + 1).saturating_sub(w);
            *o += match win.window(s, e) {
                (g, None) => popcount_words(g),
                (g, Some(h)) => g
                    .iter()
                    .zip(h)
                    .map(|(a, b)| (a | b).count_ones() as u64)
                    .sum(),
            };
        }
        start += BLOCK_WORDS * 8;
    }
    out
}

/// DAU, rolling 7-day and 30-day actives and stickiness for a chronological list of daily keys.
#[derive(Debug, Clone, PartialEq)]
pub struct Engagement {
    /// Daily actives: popcount of each key.
    pub dau: Vec<u64>,
    /// Users active in the 7 keys ending at each key (fewer at the start).
    pub wau: Vec<u64>,
    /// Users active in the 30 keys ending at each key (fewer at the start).
    pub mau: Vec<u64>,
    /// `dau[i] / mau[i]` (0 when `mau[i]` is 0), in 0..=1.
    pub stickiness: Vec<f64>,
}

/// Computes [`Engagement`] for `keys` (chronological).
///
/// # Examples
/// ```
/// use bitlens::analytics::daily::engagement;
///
/// // Three days of activity bitmaps (bit = user id): users 0,1 / 1 / 1,2.
/// let days = [vec![0b1100_0000u8], vec![0b0100_0000], vec![0b0110_0000]];
/// let e = engagement(&days);
/// assert_eq!(e.dau, [2, 1, 2]);
/// assert_eq!(e.wau, [2, 2, 3]); // distinct users in the 7 days ending at each day
/// ```
pub fn engagement<K: AsRef<[u8]>>(keys: &[K]) -> Engagement {
    let dau = dau(keys);
    let wau = rolling_actives(keys, 7);
    let mau = rolling_actives(keys, 30);
    let stickiness = ratios(&dau, &mau);
    Engagement {
        dau,
        wau,
        mau,
        stickiness,
    }
}

/// `BITLENS.STICKINESS`: `DAU / actives of the window` for each key: the popcount of key `i`
/// divided by [`rolling_actives`]`(keys, window)[i]` (0 when that is 0).
pub fn stickiness<K: AsRef<[u8]>>(keys: &[K], window: usize) -> Vec<f64> {
    ratios(&dau(keys), &rolling_actives(keys, window))
}

/// `num[i] / den[i]` for each `i` (0 where `den[i]` is 0).
pub fn ratios(num: &[u64], den: &[u64]) -> Vec<f64> {
    num.iter()
        .zip(den)
        .map(|(&a, &b)| if b == 0 { 0.0 } else { a as f64 / b as f64 })
        .collect()
}

/// One row of a retention matrix: the cohort of key `day` and its returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CohortRow {
    /// Index of the cohort's key in the key list.
    pub day: usize,
    /// Users set on `day` and on none of the `lookback` keys before it.
    pub size: u64,
    /// `returned[t − 1]`: cohort users also set on key `day + t`, for t = 1..=horizon; `None`
    /// where `day + t` is past the last key.
    pub returned: Vec<Option<u64>>,
}

/// `BITLENS.RETENTION`: the cohort matrix over chronological `keys`. For every key index `d`
/// from `lookback` to `N − 1` (so that the whole look-back window is in the list), the cohort
/// is the users set on `d` and on none of keys `d − lookback .. d`; the row counts how many of
/// them are set on each of keys `d + 1 ..= d + horizon`.
pub fn retention<K: AsRef<[u8]>>(keys: &[K], lookback: usize, horizon: usize) -> Vec<CohortRow> {
    retention_slices(&slices(keys), lookback, horizon)
}

super::multiversion! {
    fn retention_slices(keys: &[&[u8]], lookback: usize, horizon: usize) -> Vec<CohortRow> =
        retention_impl;
}

#[inline(always)]
fn retention_impl(keys: &[&[u8]], lookback: usize, horizon: usize) -> Vec<CohortRow> {
    let n = keys.len();
    if lookback >= n {
        return Vec::new();
    }
    let mut rows: Vec<CohortRow> = (lookback..n)
        .map(|d| CohortRow {
            day: d,
            size: 0,
            returned: (1..=horizon).map(|t| (d + t < n).then_some(0)).collect(),
        })
        .collect();
    let total = max_len(keys);
    let mut win = Windows::new(n, lookback);
    let mut cohort = vec![0u64; BLOCK_WORDS];
    let mut start = 0;
    while start < total {
        let nw = (total - start).div_ceil(8).min(BLOCK_WORDS);
        win.load(keys, start, nw);
        let cohort = &mut cohort[..nw];
        for row in rows.iter_mut() {
            let d = row.day;
            let today = win.key(d);
            if lookback == 0 {
                cohort.copy_from_slice(today);
            } else {
                match win.window(d - lookback, d - 1) {
                    (g, None) => {
                        for ((c, &t), &b) in cohort.iter_mut().zip(today).zip(g) {
                            *c = t & !b;
                        }
                    }
                    (g, Some(h)) => {
                        for (((c, &t), &b), &b2) in cohort.iter_mut().zip(today).zip(g).zip(h) {
                            *c = t & !(b | b2);
                        }
                    }
                }
            }
            let size = popcount_words(cohort);
            row.size += size;
            if size == 0 {
                continue;
            }
            for (t, r) in row.returned.iter_mut().enumerate() {
                if let Some(r) = r {
                    let later = win.key(d + t + 1);
                    *r += cohort
                        .iter()
                        .zip(later)
                        .map(|(&c, &l)| (c & l).count_ones() as u64)
                        .sum::<u64>();
                }
            }
        }
        start += BLOCK_WORDS * 8;
    }
    rows
}
