//! Per-user monthly sign-in bitmaps: one string key per user and month (`sign:<uid>:YYYYMM`),
//! bit `day − 1` set when the user signed in on that day (day 1 = bit 0 = MSB of byte 0).
//!
//! Per-user questions read a handful of words of one key; the histograms scan every string key
//! matching a Redis glob once.

use crate::analytics::{longest_run, popcount_range, run_ending_at, AnalyticsError};
use crate::keyspace::{Keyspace, Value};

/// True when the user signed in on `day` (1-based; bit `day − 1`). Day 0 and days past the
/// key's end read as not signed in.
pub fn signed_in(bits: &[u8], day: u64) -> bool {
    day >= 1 && super::get_bit(bits, day - 1)
}

/// Length of the run of consecutive sign-ins ending exactly on `day` (1-based), within this
/// key only: 0 when the user did not sign in on `day` (or `day` is 0).
pub fn streak_in_month(bits: &[u8], day: u64) -> u64 {
    if day == 0 {
        return 0;
    }
    run_ending_at(bits, day - 1)
}

/// The current streak as of `day` (1-based): consecutive days signed in ending on `day`. When
/// the streak reaches day 1 and `prev` is given as `(previous month's key bytes, number of days
/// in that month)`, it continues backwards from that month's last day.
pub fn current_streak(bits: &[u8], day: u64, prev: Option<(&[u8], u64)>) -> u64 {
    let run = streak_in_month(bits, day);
    match prev {
        Some((p, days)) if day >= 1 && run == day => run + streak_in_month(p, days),
        _ => run,
    }
}

/// Longest run of consecutive sign-ins within days `1..=days` (bits `0..days`).
pub fn longest_streak(bits: &[u8], days: u64) -> u64 {
    longest_run(bits, days)
}

/// Number of days signed in among days `1..=days` (popcount of bits `0..days`).
pub fn days_signed_in(bits: &[u8], days: u64) -> u64 {
    popcount_range(bits, 0, days)
}

/// Number of days in month `month` (1..=12) of `year` (Gregorian).
pub fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400) => {
            29
        }
        2 => 28,
        _ => 0,
    }
}

/// For a key ending in `YYYYMM` (`sign:42:202403`), the previous month's key (`sign:42:202402`)
/// and the number of days in that month (29). `None` when the key has no such suffix.
pub fn previous_month_key(key: &[u8]) -> Option<(Vec<u8>, u64)> {
    if key.len() < 6 {
        return None;
    }
    let (prefix, tail) = key.split_at(key.len() - 6);
    if !tail.iter().all(u8::is_ascii_digit) || prefix.last().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let num = |s: &[u8]| s.iter().fold(0u32, |a, c| a * 10 + (c - b'0') as u32);
    let (year, month) = (num(&tail[..4]), num(&tail[4..]));
    if !(1..=12).contains(&month) {
        return None;
    }
    let (py, pm) = if month == 1 {
        (year.checked_sub(1)?, 12)
    } else {
        (year, month - 1)
    };
    let mut k = prefix.to_vec();
    k.extend_from_slice(format!("{py:04}{pm:02}").as_bytes());
    Some((k, days_in_month(py, pm) as u64))
}

/// Calls `f` with the bytes of every string key matching the Redis glob `pattern`
/// (non-string keys are skipped).
fn for_each_matching(ks: &Keyspace, pattern: &[u8], mut f: impl FnMut(&[u8])) {
    for (k, e) in ks.iter() {
        if let Value::String(s) = &e.value {
            if crate::glob::matches(pattern, k) {
                f(&s.as_bytes());
            }
        }
    }
}

/// `BITLENS.SIGNINHIST`: an array of `day + 1` counts; element `s` is the number of string keys
/// matching `pattern` whose run of consecutive set bits ending exactly at bit `day − 1` has
/// length `s` (0 when that bit is clear or past the key's end). `day` ≥ 1.
pub fn streak_histogram(ks: &Keyspace, pattern: &[u8], day: u64) -> Vec<u64> {
    let mut hist = vec![0u64; day as usize + 1];
    if day == 0 {
        return hist;
    }
    for_each_matching(ks, pattern, |b| {
        // A run cannot be longer than `day` bits because it ends at bit day − 1.
        hist[run_ending_at(b, day - 1) as usize] += 1;
    });
    hist
}

/// `BITLENS.SIGNINDAYS`: an array of `days` counts; element `d − 1` is the number of string
/// keys matching `pattern` with bit `d − 1` set (signed in on day `d`). One pass over the keys
/// for every day, where [`streak_histogram`] per day would scan them `days` times.
pub fn day_counts(ks: &Keyspace, pattern: &[u8], days: u64) -> Vec<u64> {
    let mut counts = vec![0u64; days as usize];
    let nbytes = days.div_ceil(8) as usize;
    for_each_matching(ks, pattern, |b| {
        for (i, &byte) in b.iter().take(nbytes).enumerate() {
            let mut v = byte;
            while v != 0 {
                let bit = i * 8 + v.leading_zeros() as usize;
                if bit < counts.len() {
                    counts[bit] += 1;
                }
                v &= !(0x80 >> (bit % 8));
            }
        }
    });
    counts
}

/// `BITLENS.DAYSHIST`: an array of `days + 1` counts; element `n` is the number of string keys
/// matching `pattern` with exactly `n` bits set among bits `0..days` (days signed in that month).
pub fn days_histogram(ks: &Keyspace, pattern: &[u8], days: u64) -> Vec<u64> {
    let mut hist = vec![0u64; days as usize + 1];
    for_each_matching(ks, pattern, |b| {
        hist[days_signed_in(b, days) as usize] += 1;
    });
    hist
}

/// All per-user figures for one monthly key, as of `day`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserMonth {
    /// Signed in on `day`.
    pub signed_in: bool,
    /// Current streak as of `day` (continuing into the previous month when it was given).
    pub current_streak: u64,
    /// Longest streak among days `1..=day`.
    pub longest_streak: u64,
    /// Days signed in among days `1..=day`.
    pub days_signed_in: u64,
}

/// Figures for user key `key` as of `day`, continuing the current streak into the previous
/// month's key (derived by [`previous_month_key`]) when `carry` is set.
pub fn user_month(
    ks: &Keyspace,
    key: &[u8],
    day: u64,
    carry: bool,
) -> Result<UserMonth, AnalyticsError> {
    let bits = super::bitmap(ks, key)?;
    let prev = match carry.then(|| previous_month_key(key)).flatten() {
        Some((pk, days)) if ks.get(&pk).is_some() => Some((super::bitmap(ks, &pk)?, days)),
        _ => None,
    };
    Ok(UserMonth {
        signed_in: signed_in(&bits, day),
        current_streak: current_streak(&bits, day, prev.as_ref().map(|(b, d)| (&b[..], *d))),
        longest_streak: longest_streak(&bits, day),
        days_signed_in: days_signed_in(&bits, day),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn previous_months() {
        assert_eq!(
            previous_month_key(b"sign:1:202403"),
            Some((b"sign:1:202402".to_vec(), 29))
        );
        assert_eq!(
            previous_month_key(b"sign:1:202401"),
            Some((b"sign:1:202312".to_vec(), 31))
        );
        assert_eq!(
            previous_month_key(b"sign:1:190003"),
            Some((b"sign:1:190002".to_vec(), 28))
        );
        assert_eq!(previous_month_key(b"sign:1:202413"), None);
        assert_eq!(previous_month_key(b"sign:12024050"), None);
        assert_eq!(previous_month_key(b"x"), None);
    }

    #[test]
    fn streak_carries_into_previous_month() {
        // Days 1..=3 of this month; days 30 and 31 of a 31-day previous month.
        let cur = [0b1110_0000u8];
        let prev = [0, 0, 0, 0b0000_0110u8];
        assert_eq!(current_streak(&cur, 3, Some((&prev, 31))), 5);
        assert_eq!(current_streak(&cur, 3, None), 3);
        assert_eq!(current_streak(&cur, 2, Some((&prev, 31))), 4);
        assert_eq!(current_streak(&cur, 4, Some((&prev, 31))), 0);
        // Read as a 30-day month, only day 30 (bit 29) ends the previous month's run.
        assert_eq!(current_streak(&cur, 3, Some((&prev, 30))), 4);
    }
}
