//! RedisBloom's Top-K (HeavyKeeper, `TopK-TYPE`, encoding version 0).
//!
//! Fields in order: k, width, depth, decay (double); the bucket array (buffer of
//! `width · depth` 8-byte buckets: fingerprint `u32`, counter `u32`, little-endian); the
//! min-heap (buffer of `k` 24-byte records: fingerprint `u32` at 0, item length `u32` at 4, a
//! pointer at 8 (meaningless on disk), counter `u32` at 16); then `k` buffers with the heap
//! items, each NUL-terminated (a lone NUL is an empty slot). Fingerprints are
//! MurmurHash2 with seed 1919; row `i`'s bucket is MurmurHash2 with seed `i` mod width.
//!
//! Writes (as RedisBloom 2.8.2 TOPK.ADD / TOPK.INCRBY, increment `n`): in each row the item's
//! bucket is taken when empty (count `n`), incremented when it holds the item's fingerprint,
//! and otherwise decayed: up to `n` times, with probability `decay^count`, the count drops by
//! one, and the bucket is taken over (with the increments left) when it reaches 0. The
//! largest resulting count replaces the heap minimum when at least that minimum (the expelled
//! item is the reply), or updates a listed item; the slot then sifts down the min-heap.
//!
//! **Randomness.** The module draws `rand() / RAND_MAX` from the C library generator, which
//! Redis seeds at start-up from the time and its pid, so a decay draw cannot be reproduced.
//! bitlens draws from a hash of the bucket's state (deterministic for bitlens, not the
//! module's numbers). Everything else is deterministic: adds that meet only empty buckets or
//! their own fingerprint give the module's exact state, and so does every add with decay 1
//! (each draw then decays, unless `rand()` returns exactly `RAND_MAX`, a 2^-31 chance).
//! [`TopK::add`] reports how many draws it made, so callers can tell the exact cases.

use super::{murmur2, FieldError, Fields};

/// Fingerprint seed (RedisBloom's `GA`).
const FP_SEED: u32 = 1919;
/// Bytes of one heap record in the saved heap buffer.
const HEAP_RECORD: usize = 24;

/// Entries of the decay table (`decay^0 ..= decay^255`), as the module precomputes it.
const DECAY_TABLE: u32 = 256;

/// glibc's `RAND_MAX`.
const RAND_MAX: u32 = 0x7fff_ffff;

/// One slot of the Top-K heap.
#[derive(Debug, Clone, PartialEq, Default)]
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
    /// Items the heap keeps (TOPK.INFO k).
    pub k: u64,
    /// Buckets per row (TOPK.INFO width).
    pub width: u64,
    /// Rows, one hash function each (TOPK.INFO depth).
    pub depth: u64,
    /// The decay base (TOPK.INFO decay): a colliding bucket's counter drops with
    /// probability `decay^count`.
    pub decay: f64,
    /// The bucket array, `width · depth` (fingerprint, counter) pairs of little-endian `u32`s.
    pub buckets: Vec<u8>,
    /// The heap in its stored order (slot 0 is the minimum).
    pub heap: Vec<HeapItem>,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

/// Moves the heap slot `start` down while a child has a smaller count, as the module's
/// `heapifyDown` does (the right child is taken only when strictly smaller than the left; a
/// child equal to the slot still swaps once).
fn heapify_down(heap: &mut [HeapItem], start: usize) {
    let len = heap.len();
    if len < 2 || (len - 2) / 2 < start {
        return;
    }
    let smaller = |heap: &[HeapItem], c: usize| {
        if c + 1 < len && heap[c].count > heap[c + 1].count {
            c + 1
        } else {
            c
        }
    };
    let mut child = smaller(heap, 2 * start + 1);
    if heap[child].count > heap[start].count {
        return;
    }
    let top = std::mem::take(&mut heap[start]);
    let mut at = start;
    loop {
        heap[at] = std::mem::take(&mut heap[child]);
        at = child;
        if (len - 2) / 2 < child {
            break;
        }
        child = smaller(heap, 2 * child + 1);
        if heap[child].count >= top.count {
            break;
        }
    }
    heap[at] = top;
}

/// A draw in `0..=RAND_MAX` standing in for the module's `rand()` (see the module header).
fn draw(fp: u32, loc: usize, count: u32, left: u32) -> u32 {
    let mut z = (fp as u64) << 32
        ^ (count as u64)
        ^ (loc as u64).rotate_left(17)
        ^ (left as u64).rotate_left(41);
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    ((z ^ (z >> 31)) as u32) & RAND_MAX
}

/// The outcome of one [`TopK::add`].
#[derive(Debug, Clone, PartialEq)]
pub struct Added {
    /// The item the add pushed out of the list (`None` when nothing, or an empty slot, was).
    pub expelled: Option<Vec<u8>>,
    /// How many decay draws the add made (0: the result is exactly the module's).
    pub draws: u32,
}

impl TopK {
    /// An empty Top-K (TOPK.RESERVE; arguments checked by the caller); `Err` with the byte
    /// size past [`super::MAX_ALLOC_BYTES`].
    pub fn new(k: u32, width: u32, depth: u32, decay: f64) -> Result<TopK, u64> {
        let cells = width as u64 * depth as u64;
        let bytes = cells * 8 + k as u64 * HEAP_RECORD as u64;
        if bytes > super::MAX_ALLOC_BYTES {
            return Err(bytes);
        }
        Ok(TopK {
            k: k as u64,
            width: width as u64,
            depth: depth as u64,
            decay,
            buckets: vec![0; cells as usize * 8],
            heap: vec![HeapItem::default(); k as usize],
        })
    }

    fn decay_at(&self, count: u32) -> f64 {
        let table = |i: u32| self.decay.powf(i as f64);
        if count < DECAY_TABLE {
            table(count)
        } else {
            table(DECAY_TABLE - 1).powf((count / (DECAY_TABLE - 1)) as f64)
                * table(count % (DECAY_TABLE - 1))
        }
    }

    /// Adds `item` `increment` times (TOPK.ADD: 1; TOPK.INCRBY: 0..=100,000).
    pub fn add(&mut self, item: &[u8], increment: u32) -> Added {
        let fp = murmur2(item, FP_SEED);
        let heap_min = self.heap.first().map_or(0, |h| h.count);
        let mut max = 0u32;
        let mut draws = 0;
        for i in 0..self.depth {
            let loc = (murmur2(item, i as u32) as u64 % self.width + i * self.width) as usize * 8;
            let (mut bfp, mut count) = (u32_at(&self.buckets, loc), u32_at(&self.buckets, loc + 4));
            if count == 0 {
                bfp = fp;
                count = increment;
                max = max.max(count);
            } else if bfp == fp {
                count = count.wrapping_add(increment);
                max = max.max(count);
            } else {
                let mut left = increment;
                while left > 0 {
                    let decay = self.decay_at(count);
                    draws += 1;
                    let chance = draw(bfp, loc, count, left) as f64 / RAND_MAX as f64;
                    if chance < decay {
                        count -= 1;
                        if count == 0 {
                            bfp = fp;
                            count = left;
                            max = max.max(count);
                            break;
                        }
                    }
                    left -= 1;
                }
            }
            self.buckets[loc..loc + 4].copy_from_slice(&bfp.to_le_bytes());
            self.buckets[loc + 4..loc + 8].copy_from_slice(&count.to_le_bytes());
        }
        let mut expelled = None;
        if max >= heap_min && !self.heap.is_empty() {
            match self.position(item, fp) {
                Some(at) => {
                    self.heap[at].count = max;
                    heapify_down(&mut self.heap, at);
                }
                None => {
                    let old = std::mem::replace(
                        &mut self.heap[0],
                        HeapItem {
                            fp,
                            count: max,
                            item: item.to_vec(),
                        },
                    );
                    // An unused slot (no item) expels nothing.
                    if old.fp != 0 || old.count != 0 || !old.item.is_empty() {
                        expelled = Some(old.item);
                    }
                    heapify_down(&mut self.heap, 0);
                }
            }
        }
        Added { expelled, draws }
    }

    /// The heap slot holding `item`, searched from the last slot as the module does.
    fn position(&self, item: &[u8], fp: u32) -> Option<usize> {
        self.heap.iter().rposition(|h| h.fp == fp && h.item == item)
    }

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
        crate::sort::sort_by_key(&mut v, |h| std::cmp::Reverse(h.count));
        v.into_iter().take_while(|h| h.count != 0).collect()
    }
}
