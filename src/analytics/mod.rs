//! Engagement analytics Redis lacks, computed over Redis bitmap bytes (bit 0 = most significant
//! bit of byte 0, as SETBIT/GETBIT number them; bits past a string's end read as 0).
//!
//! Every computation here is linear in the bytes it touches and works a 64-bit word (or a block
//! of words) at a time: set algebra is AND / OR / AND-NOT on words followed by popcounts, and
//! positional questions (runs, first clear bit, gaps) use leading/trailing zero and one counts
//! on big-endian words. No hot loop decodes bits one by one.
//!
//! Submodules, one per kind of data:
//! - [`signin`]: per-user monthly sign-in keys (`sign:<uid>:YYYYMM`, bit = day − 1): signed in
//!   on a day, current streak, longest streak, days signed in, and histograms over a key pattern.
//! - [`daily`]: one bitmap per day, bit = user id (`stats:active:YYYYMMDD`): streak histogram,
//!   DAU, rolling 7/30-day actives (OR windows), stickiness (DAU/MAU), retention cohorts.
//! - [`enums`]: multi-state fields written with `BITFIELD ... u<w> #N`: value distribution over
//!   all users or over the users set in a bitmap.
//! - [`tags`]: crowd tags (one bitmap per tag): size, pairwise overlap, reach, membership.
//! - [`offsets`]: idempotency bitmaps of message consumers (bit = offset processed): processed
//!   count, lowest unprocessed offset, unprocessed gaps as ranges.
//!
//! All functions take byte slices (or a [`Keyspace`] plus key names) and return plain numbers,
//! `Vec`s and structs, so the command layer (`BITLENS.*`), the CLI and the wasm API can share them.
//! Missing keys read as empty bitmaps (as BITOP treats them); keys holding a non-string value
//! give [`AnalyticsError::WrongType`].

pub mod daily;
pub mod enums;
pub mod offsets;
pub mod signin;
pub mod tags;
pub mod userid;
pub mod windows;

use std::borrow::Cow;
use std::fmt;

pub(crate) use crate::bitmap::{count_bits, get_bit, popcount};
use crate::keyspace::{Keyspace, Value};

/// An error of an analytics query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnalyticsError {
    /// The key holds a value that is not a string (Redis would answer WRONGTYPE).
    WrongType {
        /// The offending key.
        key: Vec<u8>,
    },
}

impl fmt::Display for AnalyticsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnalyticsError::WrongType { key } => write!(
                f,
                "key {:?} does not hold a string value",
                String::from_utf8_lossy(key)
            ),
        }
    }
}

impl std::error::Error for AnalyticsError {}

/// The bytes of the string under `key`: empty when the key is missing,
/// [`AnalyticsError::WrongType`] when it holds another type.
pub fn bitmap<'a>(ks: &'a Keyspace, key: &[u8]) -> Result<Cow<'a, [u8]>, AnalyticsError> {
    match ks.get(key) {
        None => Ok(Cow::Borrowed(&[])),
        Some(Value::String(s)) => Ok(s.as_bytes()),
        Some(_) => Err(AnalyticsError::WrongType { key: key.to_vec() }),
    }
}

/// The bytes of several keys, in order (see [`bitmap`]).
pub fn bitmaps<'a, K: AsRef<[u8]>>(
    ks: &'a Keyspace,
    keys: &[K],
) -> Result<Vec<Cow<'a, [u8]>>, AnalyticsError> {
    keys.iter().map(|k| bitmap(ks, k.as_ref())).collect()
}

/// Names of the string keys matching the Redis glob `pattern`, sorted bytewise (so keys with a
/// `YYYYMMDD` suffix come out in chronological order). Keys of other types are skipped.
pub fn string_keys_matching(ks: &Keyspace, pattern: &[u8]) -> Vec<Vec<u8>> {
    ks.matching_keys_where(pattern, |v| matches!(v, Value::String(_)))
}

/// A human date label for a key ending in `YYYYMMDD` (`2024-05-01`) or `YYYYMM` (`2024-05`);
/// otherwise the key itself (lossy UTF-8). Used for chart axes.
pub fn date_label(key: &[u8]) -> String {
    let digits = key.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    let tail = &key[key.len() - digits..];
    let t = String::from_utf8_lossy(tail);
    if digits >= 8 {
        let t = &t[digits - 8..];
        format!("{}-{}-{}", &t[..4], &t[4..6], &t[6..8])
    } else if digits == 6 {
        format!("{}-{}", &t[..4], &t[4..6])
    } else {
        String::from_utf8_lossy(key).into_owned()
    }
}

/// Defines `fn $name(args) -> ret` that runs `$imp(args)` compiled for AVX2 + POPCNT when the
/// x86-64 CPU has them (checked at run time; the compiler then vectorizes the fused AND / OR /
/// popcount loops 256 bits wide), and the baseline build of `$imp` otherwise. On wasm32 the
/// crate is built with `simd128`, which the same loops vectorize to. `$imp` and the helpers
/// it calls in its loops are `#[inline(always)]` so that they are compiled inside the fast
/// variant.
macro_rules! multiversion {
    ($(#[$m:meta])* $vis:vis fn $name:ident($($arg:ident : $ty:ty),* $(,)?) -> $ret:ty = $imp:path;) => {
        $(#[$m])*
        $vis fn $name($($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2,popcnt")]
                unsafe fn fast($($arg: $ty),*) -> $ret {
                    $imp($($arg),*)
                }
                if std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("popcnt")
                {
                    // SAFETY: the CPU supports AVX2 and POPCNT (checked just above).
                    return unsafe { fast($($arg),*) };
                }
            }
            $imp($($arg),*)
        }
    };
}
pub(crate) use multiversion;

// ---------------------------------------------------------------------------------------------
// Word kernels (private to the analytics modules). Byte order matters only for positional
// questions: set algebra and popcounts use native-endian words, positions use big-endian words
// so that bit 0 of the bitmap is the most significant bit of word 0.

multiversion! {
    /// Number of bits set in both `a` and `b` (bits past either end are 0).
    pub(crate) fn and_count(a: &[u8], b: &[u8]) -> u64 = and_count_impl;
}

#[inline(always)]
fn and_count_impl(a: &[u8], b: &[u8]) -> u64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut ca = a.chunks_exact(8);
    let mut cb = b.chunks_exact(8);
    let mut total = 0u64;
    for (x, y) in (&mut ca).zip(&mut cb) {
        let x = u64::from_ne_bytes(x.try_into().unwrap());
        let y = u64::from_ne_bytes(y.try_into().unwrap());
        total += (x & y).count_ones() as u64;
    }
    for (x, y) in ca.remainder().iter().zip(cb.remainder()) {
        total += (x & y).count_ones() as u64;
    }
    total
}

/// Big-endian 64-bit word `i` of `bytes` (bytes 8i..8i+8), zero-padded past the end.
#[inline]
pub(crate) fn be_word(bytes: &[u8], i: usize) -> u64 {
    let start = i.saturating_mul(8);
    if let Some(c) = bytes.get(start..start + 8) {
        return u64::from_be_bytes(c.try_into().unwrap());
    }
    let mut buf = [0u8; 8];
    if start < bytes.len() {
        let tail = &bytes[start..];
        buf[..tail.len()].copy_from_slice(tail);
    }
    u64::from_be_bytes(buf)
}

/// Mask of the big-endian bits `from..to` (0 ≤ from ≤ to ≤ 64) of a word.
#[inline]
pub(crate) fn be_mask(from: u32, to: u32) -> u64 {
    debug_assert!(from <= to && to <= 64);
    if from == to {
        return 0;
    }
    let hi = u64::MAX >> from;
    let lo = if to == 64 {
        u64::MAX
    } else {
        !(u64::MAX >> to)
    };
    hi & lo
}

/// Number of set bits in the bit range `from..to` (exclusive end) of `bytes`: the bitmap
/// engine's inclusive [`count_bits`] with the empty range handled.
pub(crate) fn popcount_range(bytes: &[u8], from: u64, to: u64) -> u64 {
    if from >= to {
        return 0;
    }
    count_bits(bytes, from, to - 1)
}

/// First bit position `p` in `from..to` whose value is `value`, reading bits past the end of
/// `bytes` as 0 (the bitmap engine's [`crate::bitmap::find_bit`] searches only inside).
pub(crate) fn find_bit(bytes: &[u8], value: bool, from: u64, to: u64) -> Option<u64> {
    if from >= to {
        return None;
    }
    if let Some(p) = crate::bitmap::find_bit(bytes, value, from, to - 1) {
        return Some(p);
    }
    if value {
        return None;
    }
    let p = from.max(bytes.len() as u64 * 8);
    (p < to).then_some(p)
}

/// Length of the run of set bits ending exactly at bit `bit` (0 when that bit is clear).
pub(crate) fn run_ending_at(bytes: &[u8], bit: u64) -> u64 {
    if bit >= bytes.len() as u64 * 8 {
        return 0;
    }
    let mut w = (bit / 64) as usize;
    let p = (bit % 64) as u32;
    // Shift so that `bit` becomes the least significant bit; earlier bits sit above it.
    let t = (be_word(bytes, w) >> (63 - p)).trailing_ones() as u64;
    if t < p as u64 + 1 {
        return t;
    }
    let mut run = t;
    while w > 0 {
        w -= 1;
        let t = be_word(bytes, w).trailing_ones() as u64;
        run += t;
        if t < 64 {
            break;
        }
    }
    run
}

/// Length of the longest run of set bits within bits `0..nbits` of `bytes`.
pub(crate) fn longest_run(bytes: &[u8], nbits: u64) -> u64 {
    let nbits = nbits.min(bytes.len() as u64 * 8);
    let nwords = nbits.div_ceil(64) as usize;
    let (mut best, mut cur) = (0u64, 0u64);
    for w in 0..nwords {
        let mut x = be_word(bytes, w);
        if w == nwords - 1 && !nbits.is_multiple_of(64) {
            x &= be_mask(0, (nbits % 64) as u32);
        }
        if x == u64::MAX {
            cur += 64;
            continue;
        }
        cur += x.leading_ones() as u64;
        best = best.max(cur);
        // Longest run inside the word: each step shortens every run by one.
        let mut y = x;
        let mut inner = 0u64;
        while y != 0 {
            y &= y << 1;
            inner += 1;
        }
        best = best.max(inner);
        cur = x.trailing_ones() as u64;
    }
    best.max(cur)
}

/// Words per block in the multi-key block kernels (2 KiB of each key at a time).
pub(crate) const BLOCK_WORDS: usize = 256;

/// Loads bytes `start..start + 8 * out.len()` of `src` into `out` as native-endian words,
/// zero-padding past the end of `src`.
#[inline(always)]
pub(crate) fn load_block(src: &[u8], start: usize, out: &mut [u64]) {
    let want = out.len() * 8;
    let avail = src.len().saturating_sub(start).min(want);
    if avail == 0 {
        out.fill(0);
        return;
    }
    let full = avail / 8;
    for (o, c) in out[..full]
        .iter_mut()
        .zip(src[start..start + full * 8].chunks_exact(8))
    {
        *o = u64::from_ne_bytes(c.try_into().unwrap());
    }
    if full < out.len() {
        let mut buf = [0u8; 8];
        let rest = &src[start + full * 8..start + avail];
        buf[..rest.len()].copy_from_slice(rest);
        out[full] = u64::from_ne_bytes(buf);
        out[full + 1..].fill(0);
    }
}

/// Sum of popcounts of `words`.
#[inline(always)]
pub(crate) fn popcount_words(words: &[u64]) -> u64 {
    words.iter().map(|w| w.count_ones() as u64).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_bit(b: &[u8], i: u64) -> bool {
        (i / 8) < b.len() as u64 && (b[(i / 8) as usize] >> (7 - i % 8)) & 1 == 1
    }

    fn bytes(seed: u64, n: usize) -> Vec<u8> {
        let mut r = fastrand::Rng::with_seed(seed);
        (0..n)
            .map(|_| {
                // Mix dense and run-heavy bytes.
                match r.u8(..4) {
                    0 => 0xff,
                    1 => 0,
                    _ => r.u8(..),
                }
            })
            .collect()
    }

    #[test]
    fn kernels_match_bit_by_bit() {
        for n in [0usize, 1, 3, 7, 8, 9, 15, 17, 40] {
            let b = bytes(n as u64 + 1, n);
            let nb = n as u64 * 8 + 70;
            for from in 0..nb {
                for to in [from, from + 1, from + 9, from + 64, from + 130] {
                    let want = (from..to).filter(|&i| naive_bit(&b, i)).count() as u64;
                    assert_eq!(popcount_range(&b, from, to), want, "n={n} {from}..{to}");
                    for v in [false, true] {
                        let want = (from..to).find(|&i| naive_bit(&b, i) == v);
                        assert_eq!(
                            find_bit(&b, v, from, to),
                            want,
                            "find {v} n={n} {from}..{to}"
                        );
                    }
                }
                let mut run = 0;
                while run <= from && naive_bit(&b, from - run) {
                    run += 1;
                }
                assert_eq!(run_ending_at(&b, from), run);
                let mut best = 0;
                let mut cur = 0;
                for i in 0..from {
                    cur = if naive_bit(&b, i) { cur + 1 } else { 0 };
                    best = best.max(cur);
                }
                assert_eq!(longest_run(&b, from), best);
            }
        }
    }

    #[test]
    fn labels() {
        assert_eq!(date_label(b"stats:active:20240501"), "2024-05-01");
        assert_eq!(date_label(b"sign:7:202405"), "2024-05");
        assert_eq!(date_label(b"tag:vip"), "tag:vip");
    }
}
