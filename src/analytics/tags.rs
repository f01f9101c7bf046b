//! Crowd tags: one bitmap per tag (`tag:<name>`), bit = user id. Sizes are popcounts; overlaps
//! and reach are AND-popcounts computed word by word without building intersections.

use crate::analytics::{and_count, get_bit, load_block, popcount, BLOCK_WORDS};

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
