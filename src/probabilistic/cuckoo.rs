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

use super::{FieldError, Fields};
use crate::hll::murmur::murmur64a;

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
    pub items: u64,
    pub deletes: u64,
    pub bucket_size: u16,
    pub max_iterations: u16,
    pub expansion: u16,
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
