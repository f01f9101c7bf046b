//! Idempotency bitmaps of message consumers: one key per `topic:partition`, bit = message
//! offset, set once the message was processed. The questions are popcounts over an offset
//! range and searches for clear / set bits a 64-bit word at a time.

use crate::analytics::{find_bit, popcount_range};

/// `BITLENS.PROCESSED`: the number of processed offsets in `from..=to` (inclusive).
pub fn processed(bits: &[u8], from: u64, to: u64) -> u64 {
    popcount_range(bits, from, to.saturating_add(1))
}

/// `BITLENS.FIRSTUNPROCESSED`: the lowest offset `>= from` not yet processed (clear). Offsets
/// past the string's end are clear, so this always exists.
pub fn first_unprocessed(bits: &[u8], from: u64) -> u64 {
    find_bit(bits, false, from, u64::MAX).unwrap_or(u64::MAX)
}

/// Unprocessed offset ranges inside a window, as returned by [`gaps`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Gaps {
    /// Maximal runs of clear offsets, as inclusive `(first, last)` pairs in ascending order.
    pub ranges: Vec<(u64, u64)>,
    /// True when more gaps follow the last one listed (the `limit` was reached); resume the
    /// search at `ranges.last().1 + 1`.
    pub truncated: bool,
}

/// `BITLENS.GAPS`: the maximal runs of clear offsets inside `from..=to`, at most `limit` of them
/// (a run is clipped to the window).
pub fn gaps(bits: &[u8], from: u64, to: u64, limit: usize) -> Gaps {
    let mut out = Gaps::default();
    let end = to.saturating_add(1);
    let mut pos = from;
    while pos < end {
        let Some(first) = find_bit(bits, false, pos, end) else {
            break;
        };
        if out.ranges.len() == limit {
            out.truncated = true;
            break;
        }
        let last = find_bit(bits, true, first, end).map_or(to, |p| p - 1);
        out.ranges.push((first, last));
        pos = last.saturating_add(1);
        if last == u64::MAX {
            break;
        }
    }
    out
}
