//! RedisBloom's Top-K (HeavyKeeper, `TopK-TYPE`, encoding version 0).
//!
//! Fields in order: k, width, depth, decay (double); the bucket array (buffer of
//! `width · depth` 8-byte buckets: fingerprint `u32`, counter `u32`, little-endian); the
//! min-heap (buffer of `k` 24-byte records: fingerprint `u32` at 0, item length `u32` at 4, a
//! pointer at 8 (meaningless on disk), counter `u32` at 16); then `k` buffers with the heap
//! items, each NUL-terminated (a lone NUL is an empty slot). Fingerprints are
//! MurmurHash2 with seed 1919; row `i`'s bucket is MurmurHash2 with seed `i` mod width.

use super::{murmur2, FieldError, Fields};

/// Fingerprint seed (RedisBloom's `GA`).
const FP_SEED: u32 = 1919;
/// Bytes of one heap record in the saved heap buffer.
const HEAP_RECORD: usize = 24;

/// One slot of the Top-K heap.
#[derive(Debug, Clone, PartialEq)]
pub struct HeapItem {
    /// Fingerprint of the item.
    pub fp: u32,
    /// The counter.
    pub count: u32,
    /// The item (empty for an unused slot).
    pub item: Vec<u8>,
}

/// A Top-K sketch.
#[derive(Debug, Clone, PartialEq)]
pub struct TopK {
    pub k: u64,
    pub width: u64,
    pub depth: u64,
    pub decay: f64,
    /// The bucket array, `width · depth` (fingerprint, counter) pairs of little-endian `u32`s.
    pub buckets: Vec<u8>,
    /// The heap in its stored order (slot 0 is the minimum).
    pub heap: Vec<HeapItem>,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

impl TopK {
    /// Decodes the fields of a `TopK-TYPE` value.
    pub fn decode(mut f: Fields<'_>) -> Result<TopK, FieldError> {
        let k = f.unsigned("k")?;
        let width = f.unsigned("width")?;
        let depth = f.unsigned("depth")?;
        let decay = f.double("decay")?;
        if k == 0 || width == 0 || depth == 0 || k > u32::MAX as u64 {
            return Err(f.err("has a zero or oversized k, width or depth"));
        }
        let buckets = f.buffer("bucket array")?;
        if width.checked_mul(depth).and_then(|n| n.checked_mul(8)) != Some(buckets.len() as u64) {
            return Err(f.err(format!("bucket array has {} bytes", buckets.len())));
        }
        let buckets = buckets.to_vec();
        let heap_raw = f.buffer("heap")?;
        if k.checked_mul(HEAP_RECORD as u64) != Some(heap_raw.len() as u64) {
            return Err(f.err(format!("heap has {} bytes for k = {k}", heap_raw.len())));
        }
        let mut heap = Vec::with_capacity(k as usize);
        for rec in heap_raw.chunks_exact(HEAP_RECORD) {
            let item = f.buffer("heap item")?;
            let Some((0, text)) = item.split_last() else {
                return Err(f.err("heap item is not NUL-terminated"));
            };
            heap.push(HeapItem {
                fp: u32_at(rec, 0),
                count: u32_at(rec, 16),
                item: text.to_vec(),
            });
        }
        f.finish()?;
        Ok(TopK {
            k,
            width,
            depth,
            decay,
            buckets,
            heap,
        })
    }

    fn find(&self, item: &[u8]) -> Option<&HeapItem> {
        let fp = murmur2(item, FP_SEED);
        self.heap
            .iter()
            .rev()
            .find(|h| h.fp == fp && h.item == item)
    }

    /// Whether `item` is in the Top-K list (TOPK.QUERY).
    pub fn contains(&self, item: &[u8]) -> bool {
        self.find(item).is_some()
    }

    /// The estimated count of `item` (TOPK.COUNT): the largest bucket counter holding its
    /// fingerprint (for a listed item only counters at least the heap minimum).
    pub fn count(&self, item: &[u8]) -> u32 {
        let fp = murmur2(item, FP_SEED);
        let heap_min = self.heap.first().map_or(0, |h| h.count);
        let listed = self.find(item).is_some();
        let mut res = 0;
        for i in 0..self.depth {
            let loc = (murmur2(item, i as u32) as u64 % self.width + i * self.width) as usize * 8;
            let (bfp, bcount) = (u32_at(&self.buckets, loc), u32_at(&self.buckets, loc + 4));
            if bfp == fp && (!listed || bcount >= heap_min) {
                res = res.max(bcount);
            }
        }
        res
    }

    /// The listed items by decreasing count, ties in heap order, unused slots left out
    /// (TOPK.LIST).
    pub fn list(&self) -> Vec<&HeapItem> {
        let mut v: Vec<&HeapItem> = self.heap.iter().collect();
        v.sort_by_key(|h| std::cmp::Reverse(h.count));
        v.into_iter().take_while(|h| h.count != 0).collect()
    }
}
