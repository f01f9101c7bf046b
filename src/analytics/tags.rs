//! Crowd tags: one bitmap per tag (`tag:<name>`), bit = user id. Sizes are popcounts; overlaps
//! and reach are AND-popcounts computed word by word without building intersections.
//!
//! A crowd may also be kept as a Set of integer user ids ([`Crowd::Ids`]): its size is its
//! member count, and its overlap with a bitmap crowd counts the ids whose bit is set there,
//! with another Set the ids both hold (a merge of the sorted ids). No bitmap is built from a
//! Set, so a Set of a few ids near 2³² costs only those ids.

use std::borrow::Cow;

use crate::analytics::{and_count, get_bit, load_block, popcount, BLOCK_WORDS};

/// One crowd as stored in Redis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Crowd<'a> {
    /// A bitmap string, bit = user id (a missing key is an empty bitmap).
    Bitmap(Cow<'a, [u8]>),
    /// A Set of user ids, sorted ascending, each once.
    Ids(Vec<u64>),
}

impl Crowd<'_> {
    /// The number of users in the crowd (BITCOUNT of a bitmap, SCARD of a Set).
    pub fn size(&self) -> u64 {
        match self {
            Crowd::Bitmap(b) => popcount(b),
            Crowd::Ids(ids) => ids.len() as u64,
        }
    }

    /// Whether user `uid` is in the crowd (GETBIT / SISMEMBER).
    pub fn contains(&self, uid: u64) -> bool {
        match self {
            Crowd::Bitmap(b) => get_bit(b, uid),
            Crowd::Ids(ids) => ids.binary_search(&uid).is_ok(),
        }
    }

    /// Users in both `self` and `other`.
    fn overlap(&self, other: &Crowd<'_>) -> u64 {
        match (self, other) {
            (Crowd::Bitmap(a), Crowd::Bitmap(b)) => and_count(a, b),
            (Crowd::Bitmap(b), Crowd::Ids(ids)) | (Crowd::Ids(ids), Crowd::Bitmap(b)) => {
                ids.iter().filter(|&&u| get_bit(b, u)).count() as u64
            }
            (Crowd::Ids(a), Crowd::Ids(b)) => sorted_intersection(a, b),
        }
    }
}

/// The number of values two ascending, duplicate-free slices share.
fn sorted_intersection(a: &[u64], b: &[u64]) -> u64 {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// `BITLENS.TAGSIZE` over crowds of either kind.
pub fn crowd_sizes(crowds: &[Crowd<'_>]) -> Vec<u64> {
    crowds.iter().map(Crowd::size).collect()
}

/// `BITLENS.TAGOVERLAP` over crowds of either kind: the bitmap pairs in one blocked pass
/// ([`overlap`]), the pairs with a Set by its ids.
pub fn crowd_overlap(crowds: &[Crowd<'_>]) -> Vec<Vec<u64>> {
    let bitmaps: Vec<(usize, &[u8])> = crowds
        .iter()
        .enumerate()
        .filter_map(|(i, c)| match c {
            Crowd::Bitmap(b) => Some((i, b.as_ref())),
            Crowd::Ids(_) => None,
        })
        .collect();
    let slices: Vec<&[u8]> = bitmaps.iter().map(|&(_, b)| b).collect();
    let among = overlap_slices(&slices);
    let m = crowds.len();
    let mut out = vec![vec![0u64; m]; m];
    for (x, &(i, _)) in bitmaps.iter().enumerate() {
        for (y, &(j, _)) in bitmaps.iter().enumerate() {
            out[i][j] = among[x][y];
        }
    }
    for i in 0..m {
        for j in 0..m {
            if matches!(crowds[i], Crowd::Ids(_)) || matches!(crowds[j], Crowd::Ids(_)) {
                out[i][j] = if i == j {
                    crowds[i].size()
                } else {
                    crowds[i].overlap(&crowds[j])
                };
            }
        }
    }
    out
}

/// `BITLENS.TAGREACH` over crowds of either kind: per crowd, its users also set in `active`.
pub fn crowd_reach(active: &[u8], crowds: &[Crowd<'_>]) -> Vec<u64> {
    let active = Crowd::Bitmap(Cow::Borrowed(active));
    crowds.iter().map(|c| active.overlap(c)).collect()
}

/// `BITLENS.TAGMEMBER` over crowds of either kind.
pub fn crowd_membership(uid: u64, crowds: &[Crowd<'_>]) -> Vec<bool> {
    crowds.iter().map(|c| c.contains(uid)).collect()
}

/// `BITLENS.TAGSIZE`: the number of users in each tag (popcounts), in order.
pub fn sizes<K: AsRef<[u8]>>(tags: &[K]) -> Vec<u64> {
    tags.iter().map(|t| popcount(t.as_ref())).collect()
}

/// `BITLENS.TAGOVERLAP`: the symmetric `M × M` matrix of users in both tag `i` and tag `j`
/// (the diagonal holds the tag sizes). One pass over the data, block by block.
pub fn overlap<K: AsRef<[u8]>>(tags: &[K]) -> Vec<Vec<u64>> {
    let tags: Vec<&[u8]> = tags.iter().map(|t| t.as_ref()).collect();
    overlap_slices(&tags)
}

super::multiversion! {
    fn overlap_slices(tags: &[&[u8]]) -> Vec<Vec<u64>> = overlap_impl;
}

#[inline(always)]
fn overlap_impl(tags: &[&[u8]]) -> Vec<Vec<u64>> {
    let m = tags.len();
    let mut out = vec![vec![0u64; m]; m];
    let total = tags.iter().map(|t| t.len()).max().unwrap_or(0);
    let mut buf = vec![0u64; m * BLOCK_WORDS];
    let mut start = 0;
    while start < total {
        let nw = (total - start).div_ceil(8).min(BLOCK_WORDS);
        for (i, t) in tags.iter().enumerate() {
            load_block(t, start, &mut buf[i * nw..(i + 1) * nw]);
        }
        for i in 0..m {
            let a = &buf[i * nw..(i + 1) * nw];
            for j in i..m {
                let b = &buf[j * nw..(j + 1) * nw];
                out[i][j] += a
                    .iter()
                    .zip(b)
                    .map(|(x, y)| (x & y).count_ones() as u64)
                    .sum::<u64>();
            }
        }
        start += BLOCK_WORDS * 8;
    }
    for i in 1..m {
        let (upper, lower) = out.split_at_mut(i);
        for (j, row) in upper.iter().enumerate() {
            lower[0][j] = row[i];
        }
    }
    out
}

/// `BITLENS.TAGREACH`: for each tag, the number of its users also set in `active` (for example
/// today's actives).
pub fn reach<K: AsRef<[u8]>>(active: &[u8], tags: &[K]) -> Vec<u64> {
    tags.iter().map(|t| and_count(active, t.as_ref())).collect()
}

/// `BITLENS.TAGMEMBER`: whether user `uid` is in each tag (its bit is set).
pub fn membership<K: AsRef<[u8]>>(uid: u64, tags: &[K]) -> Vec<bool> {
    tags.iter().map(|t| get_bit(t.as_ref(), uid)).collect()
}

#[cfg(test)]
mod crowd_tests {
    use super::*;

    fn bitmap(ids: &[u64]) -> Vec<u8> {
        let mut b = vec![0u8; 8];
        for &u in ids {
            b[(u / 8) as usize] |= 0x80 >> (u % 8);
        }
        b
    }

    #[test]
    fn sets_and_bitmaps_mix_as_their_members_say() {
        let a = bitmap(&[1, 2, 3, 40]);
        let b = bitmap(&[2, 3, 50]);
        let crowds = [
            Crowd::Bitmap(Cow::Borrowed(&a)),
            Crowd::Ids(vec![3, 40, 63, 1 << 32]),
            Crowd::Bitmap(Cow::Borrowed(&b)),
            Crowd::Ids(vec![2, 3, 63]),
        ];
        assert_eq!(crowd_sizes(&crowds), [4, 4, 3, 3]);
        assert_eq!(
            crowd_overlap(&crowds),
            [[4, 2, 2, 2], [2, 4, 1, 2], [2, 1, 3, 2], [2, 2, 2, 3]]
        );
        let active = bitmap(&[3, 50, 63]);
        assert_eq!(crowd_reach(&active, &crowds), [1, 2, 2, 2]);
        assert_eq!(crowd_membership(63, &crowds), [false, true, false, true]);
        // All bitmaps: the same matrix as the bitmap-only pass.
        let only = [a.as_slice(), b.as_slice()];
        let bm = [
            Crowd::Bitmap(Cow::Borrowed(&a)),
            Crowd::Bitmap(Cow::Borrowed(&b)),
        ];
        assert_eq!(crowd_overlap(&bm), overlap(&only));
    }
}
