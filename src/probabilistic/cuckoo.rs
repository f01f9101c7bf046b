//! RedisBloom's Cuckoo filter (`MBbloomCF`, encoding version 4, as RedisBloom 2.8 writes).
//!
//! Fields in order: number of sub-filters, buckets of the first, items, deletes, bucket size,
//! max iterations, expansion; then per sub-filter its bucket count and its data (buffer of
//! `buckets · bucket size` one-byte fingerprints, 0 = empty).
//!
//! Lookup: `h = MurmurHash64A(item, seed 0)`, fingerprint `h mod 255 + 1`, the two candidate
//! buckets are `h` and `h ^ (fp · 0x5bd1e995)`, each taken mod the sub-filter's bucket count
//! and multiplied by the bucket size (as a 32-bit index, as the module computes it). An item
//! exists when some sub-filter holds its fingerprint in either bucket; CF.COUNT sums the
//! matching slots of every sub-filter.
//!
//! Writes (as RedisBloom 2.8.2 CF.RESERVE / CF.ADD / CF.DEL), all deterministic (the module's
//! kick-out walk has no random choice): a new filter has `next_pow2(capacity / bucket size)`
//! buckets (at least 1) and its expansion rounded up to a power of two (0 stays 0). An insert
//! takes the first empty slot of bucket `h1`, then of `h2`, in the newest sub-filter first;
//! when none is free it walks kick-outs in the newest sub-filter: from bucket `h1 mod n`,
//! swap the fingerprint into slot `v` (v = 0, 1, … cycling over the bucket size), move to
//! the alternate bucket of the evicted fingerprint (`b ^ fp · 0x5bd1e995`, mod n) and stop
//! at its first empty slot; after `max iterations` swaps the walk is undone in reverse and a
//! sub-filter of `buckets · expansion^k` buckets is appended (no room when expansion is 0).
//! A delete clears the first matching slot (bucket `h1` before `h2`, newest sub-filter
//! first); once deletes exceed 10 % of the items of a filter with several sub-filters, the
//! newer sub-filters' fingerprints move to free slots of older ones (each slot's bucket index
//! as its `h1`) and an emptied newest sub-filter is dropped.

use super::{FieldError, Fields};
use crate::hll::murmur::murmur64a;

/// The alternate bucket hash of a fingerprint (RedisBloom's `getAltHash`).
fn alt(fp: u8, index: u64) -> u64 {
    index ^ (fp as u64).wrapping_mul(0x5bd1_e995)
}

/// An item's hash, fingerprint and two bucket hashes.
fn params(item: &[u8]) -> (u64, u8, u64) {
    let h1 = murmur64a(item, 0);
    let fp = (h1 % 255 + 1) as u8;
    (h1, fp, alt(fp, h1))
}

/// The outcome of [`Cuckoo::insert`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Insert {
    /// Stored.
    Inserted,
    /// `nx` and the fingerprint is already there.
    Exists,
    /// No slot and no expansion (`Filter is full` / -1).
    NoSpace,
    /// The new sub-filter would exceed [`super::MAX_ALLOC_BYTES`] (bitlens' limit).
    TooLarge(u64),
}

/// The most sub-filters before CF.ADD refuses (RedisBloom's `CFMaxExpansions`).
pub const MAX_FILTERS: usize = 32;

fn next_pow2(n: u64) -> u64 {
    // `n - 1` with every lower bit set, plus one: 0 wraps back to 0, as the module's helper.
    let mut n = n.wrapping_sub(1);
    for s in [1, 2, 4, 8, 16, 32] {
        n |= n >> s;
    }
    n.wrapping_add(1)
}

impl SubFilter {
    /// First slot of the bucket `h` falls in (the module's 32-bit index).
    fn slot0(&self, h: u64, bs: usize) -> usize {
        ((h % self.buckets).wrapping_mul(bs as u64) as u32) as usize
    }

    fn free_slot(&self, h1: u64, h2: u64, bs: usize) -> Option<usize> {
        [h1, h2].into_iter().find_map(|h| {
            let at = self.slot0(h, bs);
            self.data
                .get(at..at + bs)?
                .iter()
                .position(|&x| x == 0)
                .map(|i| at + i)
        })
    }
}

/// One sub-filter.
#[derive(Debug, Clone, PartialEq)]
pub struct SubFilter {
    /// Number of buckets.
    pub buckets: u64,
    /// `buckets · bucket_size` fingerprint bytes.
    pub data: Vec<u8>,
}

/// A Cuckoo filter.
#[derive(Debug, Clone, PartialEq)]
pub struct Cuckoo {
    /// Buckets of the first sub-filter (CF.INFO Number of buckets).
    pub buckets: u64,
    /// Items the filter counts (CF.INFO Number of items inserted).
    pub items: u64,
    /// Items deleted (CF.INFO Number of items deleted).
    pub deletes: u64,
    /// Fingerprints per bucket (CF.INFO Bucket size).
    pub bucket_size: u16,
    /// Kick-out limit of an insertion (CF.INFO Max iterations).
    pub max_iterations: u16,
    /// Growth factor of each new sub-filter (CF.INFO Expansion rate).
    pub expansion: u16,
    /// The sub-filters, oldest first (CF.INFO Number of filters is their count).
    pub filters: Vec<SubFilter>,
}

impl Cuckoo {
    /// Decodes the fields of an `MBbloomCF` value of encoding version 4.
    pub fn decode(mut f: Fields<'_>) -> Result<Cuckoo, FieldError> {
        let n = f.unsigned("sub-filter count")?;
        let buckets = f.unsigned("bucket count")?;
        if n == 0 || buckets == 0 || n > u16::MAX as u64 {
            return Err(f.err("has a zero or oversized sub-filter or bucket count"));
        }
        let items = f.unsigned("item count")?;
        let deletes = f.unsigned("delete count")?;
        let small = |f: &mut Fields<'_>, name: &str| -> Result<u16, FieldError> {
            let v = f.unsigned(name)?;
            u16::try_from(v).map_err(|_| f.err(format!("{name} {v} exceeds 65535")))
        };
        let bucket_size = small(&mut f, "bucket size")?;
        let max_iterations = small(&mut f, "max iterations")?;
        let expansion = small(&mut f, "expansion")?;
        if bucket_size == 0 {
            return Err(f.err("has bucket size 0"));
        }
        if n > (f.remaining() / 2) as u64 {
            return Err(f.err(format!("declares {n} sub-filters but has too few fields")));
        }
        let mut filters = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let b = f.unsigned("sub-filter bucket count")?;
            let data = f.buffer("sub-filter data")?;
            if b == 0 || b.checked_mul(bucket_size as u64) != Some(data.len() as u64) {
                return Err(f.err(format!(
                    "sub-filter data has {} bytes for {b} buckets of {bucket_size}",
                    data.len()
                )));
            }
            filters.push(SubFilter {
                buckets: b,
                data: data.to_vec(),
            });
        }
        f.finish()?;
        Ok(Cuckoo {
            buckets,
            items,
            deletes,
            bucket_size,
            max_iterations,
            expansion,
            filters,
        })
    }

    /// A new empty filter as CF.RESERVE makes it (arguments checked by the caller); `Err`
    /// with the byte size past [`super::MAX_ALLOC_BYTES`].
    pub fn reserve(
        capacity: u64,
        bucket_size: u16,
        max_iterations: u16,
        expansion: u16,
    ) -> Result<Cuckoo, u64> {
        let buckets = next_pow2(capacity / bucket_size.max(1) as u64).max(1);
        let mut c = Cuckoo {
            buckets,
            items: 0,
            deletes: 0,
            bucket_size,
            max_iterations,
            expansion: next_pow2(expansion as u64) as u16,
            filters: Vec::new(),
        };
        c.grow()?;
        Ok(c)
    }

    /// Appends a sub-filter of `buckets · expansion^k` buckets.
    fn grow(&mut self) -> Result<(), u64> {
        let growth = (self.expansion as f64).powi(self.filters.len() as i32) as u64;
        let n = self.buckets.saturating_mul(growth);
        let bytes = n.saturating_mul(self.bucket_size as u64);
        if bytes > super::MAX_ALLOC_BYTES || n == 0 {
            return Err(bytes);
        }
        self.filters.push(SubFilter {
            buckets: n,
            data: vec![0; bytes as usize],
        });
        Ok(())
    }

    /// Adds `item` (CF.ADD; CF.ADDNX when `nx`).
    pub fn insert(&mut self, item: &[u8], nx: bool) -> Insert {
        let (h1, fp, h2) = params(item);
        if nx && self.contains(item) {
            return Insert::Exists;
        }
        let bs = self.bucket_size as usize;
        loop {
            for f in self.filters.iter_mut().rev() {
                if let Some(at) = f.free_slot(h1, h2, bs) {
                    f.data[at] = fp;
                    self.items = self.items.wrapping_add(1);
                    return Insert::Inserted;
                }
            }
            if self.kick_out(h1, fp) {
                self.items = self.items.wrapping_add(1);
                return Insert::Inserted;
            }
            if self.expansion == 0 {
                return Insert::NoSpace;
            }
            if let Err(n) = self.grow() {
                return Insert::TooLarge(n);
            }
        }
    }

    /// The module's eviction walk in the newest sub-filter; undone when it fails.
    fn kick_out(&mut self, h1: u64, fp: u8) -> bool {
        let bs = self.bucket_size as u32;
        let max = self.max_iterations;
        let Some(f) = self.filters.last_mut() else {
            return false;
        };
        let n = f.buckets as u32 as u64;
        if n == 0 {
            return false;
        }
        let mut fp = fp;
        let mut victim = 0u32;
        let mut ii = (h1 % n) as u32;
        let at = |ii: u32, slot: u32| ii.wrapping_mul(bs).wrapping_add(slot) as usize;
        for _ in 0..max {
            let Some(slot) = f.data.get_mut(at(ii, victim)) else {
                return false;
            };
            std::mem::swap(slot, &mut fp);
            ii = (alt(fp, ii as u64) % n) as u32;
            let start = at(ii, 0);
            if let Some(free) = f
                .data
                .get(start..start + bs as usize)
                .and_then(|b| b.iter().position(|&x| x == 0))
            {
                f.data[start + free] = fp;
                return true;
            }
            victim = (victim + 1) % bs;
        }
        for _ in 0..max {
            victim = (victim + bs - 1) % bs;
            ii = (alt(fp, ii as u64) % n) as u32;
            if let Some(slot) = f.data.get_mut(at(ii, victim)) {
                std::mem::swap(slot, &mut fp);
            }
        }
        false
    }

    /// Removes one of `item`'s fingerprints (CF.DEL): whether one was there.
    pub fn delete(&mut self, item: &[u8]) -> bool {
        let (h1, fp, h2) = params(item);
        let bs = self.bucket_size as usize;
        let found = self.filters.iter_mut().rev().any(|f| {
            [h1, h2].into_iter().any(|h| {
                let at = f.slot0(h, bs);
                match f
                    .data
                    .get_mut(at..at + bs)
                    .and_then(|b| b.iter_mut().find(|x| **x == fp))
                {
                    Some(x) => {
                        *x = 0;
                        true
                    }
                    None => false,
                }
            })
        });
        if found {
            self.items = self.items.wrapping_sub(1);
            self.deletes = self.deletes.wrapping_add(1);
            if self.filters.len() > 1 && self.deletes as f64 > self.items as f64 * 0.10 {
                self.compact();
            }
        }
        found
    }

    /// Moves newer sub-filters' fingerprints into older ones, newest first, stopping at the
    /// first sub-filter that cannot be emptied; drops an emptied newest one.
    fn compact(&mut self) {
        let bs = self.bucket_size as usize;
        for ix in (1..self.filters.len()).rev() {
            let mut ok = true;
            let (older, rest) = self.filters.split_at_mut(ix);
            let cur = &mut rest[0];
            for bucket in 0..cur.buckets {
                for slot in 0..bs {
                    let at = bucket as usize * bs + slot;
                    let fp = cur.data[at];
                    if fp == 0 {
                        continue;
                    }
                    let h2 = alt(fp, bucket);
                    match older
                        .iter_mut()
                        .find_map(|o| o.free_slot(bucket, h2, bs).map(|i| (o, i)))
                    {
                        Some((o, i)) => {
                            o.data[i] = fp;
                            cur.data[at] = 0;
                        }
                        None => ok = false,
                    }
                }
            }
            if ok && ix == self.filters.len() - 1 {
                self.filters.pop();
            }
            if !ok {
                break;
            }
        }
        self.deletes = 0;
    }

    /// For each sub-filter, how many slots of the item's two buckets hold its fingerprint.
    fn matches(&self, item: &[u8]) -> impl Iterator<Item = u64> + '_ {
        let h1 = murmur64a(item, 0);
        let fp = (h1 % 255 + 1) as u8;
        let h2 = h1 ^ (fp as u64).wrapping_mul(0x5bd1_e995);
        let bs = self.bucket_size as usize;
        self.filters.iter().map(move |s| {
            [h1, h2]
                .iter()
                .map(|h| {
                    let at = ((h % s.buckets).wrapping_mul(bs as u64) as u32) as usize;
                    s.data
                        .get(at..at + bs)
                        .map_or(0, |b| b.iter().filter(|&&x| x == fp).count() as u64)
                })
                .sum()
        })
    }

    /// Whether `item` may be in the filter (CF.EXISTS).
    pub fn contains(&self, item: &[u8]) -> bool {
        self.matches(item).any(|n| n > 0)
    }

    /// The number of the item's fingerprints in the filter (CF.COUNT).
    pub fn count(&self, item: &[u8]) -> u64 {
        self.matches(item).sum()
    }

    /// The module's memory usage (CF.INFO Size): a 40-byte header, 16 bytes per sub-filter,
    /// and the fingerprint bytes.
    pub fn memory(&self) -> u64 {
        40 + 16 * self.filters.len() as u64
            + self
                .filters
                .iter()
                .map(|s| s.data.len() as u64)
                .sum::<u64>()
    }
}
