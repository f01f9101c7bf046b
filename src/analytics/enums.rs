//! Multi-state fields written with `BITFIELD key SET u<w> #N value`: user `N`'s value is the
//! unsigned `w`-bit big-endian field at bits `N·w .. N·w + w` (bits past the string's end read
//! as 0, as BITFIELD GET does). These functions count how often each value occurs.
//!
//! Widths are limited to 1..=16 bits so that the distribution is a dense array of `2^w` counts.
//! Each field is read with one shift of a big-endian 64-bit window (never bit by bit); `u1` is a
//! plain popcount and `u8` indexes bytes directly. The restricted form walks the set bits of
//! the member bitmap a word at a time.

use crate::analytics::{popcount, popcount_range};

/// Largest supported field width in bits.
pub const MAX_WIDTH: u32 = 16;

/// Value of field `index` (`u<width>`, `#index`) in `bytes`, 0 past the end.
#[inline]
pub fn field(bytes: &[u8], width: u32, index: u64) -> u64 {
    debug_assert!((1..=MAX_WIDTH).contains(&width));
    crate::bitmap::read_field(bytes, index.saturating_mul(width as u64), width)
}

/// Number of fields that start inside a string of `len` bytes: `ceil(8·len / width)`.
pub fn field_count(len: usize, width: u32) -> u64 {
    (len as u64 * 8).div_ceil(width as u64)
}

/// Distribution of `u<width>` values over users `0 .. users` (fields past the string's end
/// count as value 0); `users` defaults to [`field_count`]. Returns `2^width` counts, index =
/// value. `width` must be in 1..=16.
pub fn distribution(bytes: &[u8], width: u32, users: Option<u64>) -> Vec<u64> {
    assert!((1..=MAX_WIDTH).contains(&width), "width out of 1..=16");
    let covered = field_count(bytes.len(), width);
    let users = users.unwrap_or(covered);
    let inside = users.min(covered);
    let mut hist = vec![0u64; 1 << width];
    match width {
        1 => {
            let ones = popcount_range(bytes, 0, inside);
            hist[1] = ones;
            hist[0] = inside - ones;
        }
        8 => {
            for &b in &bytes[..inside as usize] {
                hist[b as usize] += 1;
            }
        }
        _ => {
            // Whole 64-bit windows hold `64 / w` aligned fields when w divides 64: peel them
            // with shifts; otherwise read each field's own window.
            if 64 % width == 0 {
                let per = (64 / width) as u64;
                let full_words = (inside / per).min(bytes.len() as u64 / 8);
                let mask = (1u64 << width) - 1;
                for c in bytes.chunks_exact(8).take(full_words as usize) {
                    let mut x = u64::from_be_bytes(c.try_into().unwrap());
                    for _ in 0..per {
                        x = x.rotate_left(width);
                        hist[(x & mask) as usize] += 1;
                    }
                }
                for i in full_words * per..inside {
                    hist[field(bytes, width, i) as usize] += 1;
                }
            } else {
                for i in 0..inside {
                    hist[field(bytes, width, i) as usize] += 1;
                }
            }
        }
    }
    hist[0] += users - inside;
    hist
}

/// Distribution of `u<width>` values over the users whose bit is set in `members` (for example
/// today's actives): `2^width` counts, index = value, summing to the popcount of `members`.
pub fn distribution_among(bytes: &[u8], width: u32, members: &[u8]) -> Vec<u64> {
    assert!((1..=MAX_WIDTH).contains(&width), "width out of 1..=16");
    let mut hist = vec![0u64; 1 << width];
    let covered = field_count(bytes.len(), width);
    // Members at or past `covered` all read 0: count them with one popcount.
    let limit_bits = covered.min(members.len() as u64 * 8);
    let nwords = limit_bits.div_ceil(64) as usize;
    for w in 0..nwords {
        let mut x = super::be_word(members, w);
        if w == nwords - 1 && !limit_bits.is_multiple_of(64) {
            x &= super::be_mask(0, (limit_bits % 64) as u32);
        }
        while x != 0 {
            let p = x.leading_zeros();
            x &= !(1u64 << (63 - p));
            hist[field(bytes, width, w as u64 * 64 + p as u64) as usize] += 1;
        }
    }
    hist[0] += popcount(members) - popcount_range(members, 0, limit_bits);
    hist
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_reads_like_bitfield_get() {
        let b = [0b1010_1100u8, 0xff, 0x01];
        assert_eq!(field(&b, 4, 0), 0b1010);
        assert_eq!(field(&b, 4, 1), 0b1100);
        assert_eq!(field(&b, 3, 1), 0b011);
        assert_eq!(field(&b, 3, 2), 0b001);
        assert_eq!(field(&b, 16, 1), 0x0100);
        assert_eq!(field(&b, 5, 9), 0);
    }
}
