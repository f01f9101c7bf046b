//! RedisBloom's Count-Min sketch (`CMSk-TYPE`, encoding version 0).
//!
//! Fields in order: width, depth, total count (the sum of every increment), then the counter
//! array as one buffer of `width · depth` little-endian `u32`s, row by row. Row `i` counts
//! item `x` in column `MurmurHash2(x, seed i) mod width`; a query is the minimum over rows.

use super::{murmur2, FieldError, Fields};

/// A Count-Min sketch.
#[derive(Debug, Clone, PartialEq)]
pub struct Cms {
    /// Counters per row.
    pub width: u64,
    /// Number of rows (hash functions).
    pub depth: u64,
    /// Total of all increments (CMS.INFO count).
    pub count: u64,
    /// The counters, `width · depth` little-endian `u32`s, row by row.
    pub counters: Vec<u8>,
}

impl Cms {
    /// Decodes the fields of a `CMSk-TYPE` value.
    pub fn decode(mut f: Fields<'_>) -> Result<Cms, FieldError> {
        let width = f.unsigned("width")?;
        let depth = f.unsigned("depth")?;
        let count = f.unsigned("count")?;
        if width == 0 || depth == 0 {
            return Err(f.err("has a zero width or depth"));
        }
        let counters = f.buffer("counter array")?;
        let expected = width.checked_mul(depth).and_then(|n| n.checked_mul(4));
        if expected != Some(counters.len() as u64) {
            return Err(f.err(format!(
                "counter array has {} bytes for {width} x {depth} counters",
                counters.len()
            )));
        }
        let counters = counters.to_vec();
        f.finish()?;
        Ok(Cms {
            width,
            depth,
            count,
            counters,
        })
    }

    fn counter(&self, index: u64) -> u32 {
        let at = index as usize * 4;
        u32::from_le_bytes(self.counters[at..at + 4].try_into().expect("4 bytes"))
    }

    /// The estimated count of `item` (CMS.QUERY).
    pub fn query(&self, item: &[u8]) -> u32 {
        (0..self.depth)
            .map(|i| self.counter(murmur2(item, i as u32) as u64 % self.width + i * self.width))
            .min()
            .unwrap_or(u32::MAX)
    }
}
