//! RedisBloom's Count-Min sketch (`CMSk-TYPE`, encoding version 0).
//!
//! Fields in order: width, depth, total count (the sum of every increment), then the counter
//! array as one buffer of `width · depth` little-endian `u32`s, row by row. Row `i` counts
//! item `x` in column `MurmurHash2(x, seed i) mod width`; a query is the minimum over rows.
//!
//! Writes (as RedisBloom 2.8.2): CMS.INITBYPROB sizes `width = ⌈2 / error⌉`, `depth =
//! ⌈log10(p) / log10(0.5)⌉` in single precision (`log10f`). An increment adds to each row's
//! counter modulo 2^32 and saturates at `u32::MAX` when that wrapped; the reply is the new
//! row minimum (`u32::MAX` is reported as an overflow). CMS.MERGE sets every counter to the
//! weighted sum of the sources' counters (and the total likewise), refusing the whole merge
//! when any sum leaves `0..=u32::MAX` (the total: `0..=i64::MAX`).

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

    /// An empty sketch of `width · depth` counters; `Err` with the byte size past
    /// [`super::MAX_ALLOC_BYTES`].
    pub fn new(width: u64, depth: u64) -> Result<Cms, u64> {
        let bytes = width.saturating_mul(depth).saturating_mul(4);
        if bytes > super::MAX_ALLOC_BYTES || width == 0 || depth == 0 {
            return Err(bytes);
        }
        Ok(Cms {
            width,
            depth,
            count: 0,
            counters: vec![0; bytes as usize],
        })
    }

    /// CMS.INITBYPROB's dimensions for overestimation `error` and probability `p` (both in
    /// (0, 1), checked by the caller).
    pub fn dims_from_prob(error: f64, p: f64) -> (u64, u64) {
        let width = (2.0 / error).ceil() as u64;
        let depth = ((p as f32).log10() / 0.5f32.log10()) as f64;
        (width, depth.ceil() as u64)
    }

    fn set(&mut self, index: u64, v: u32) {
        let at = index as usize * 4;
        self.counters[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    /// Adds `value` to `item`'s counters (CMS.INCRBY): the new estimate.
    pub fn incr_by(&mut self, item: &[u8], value: u64) -> u32 {
        let mut min = u64::MAX;
        for i in 0..self.depth {
            let at = murmur2(item, i as u32) as u64 % self.width + i * self.width;
            let mut c = self.counter(at).wrapping_add(value as u32);
            if (c as u64) < value {
                c = u32::MAX;
            }
            self.set(at, c);
            min = min.min(c as u64);
        }
        self.count = self.count.wrapping_add(value);
        min as u32
    }

    /// Sets this sketch to the weighted sum of `sources` (same dimensions, checked by the
    /// caller; may include this sketch's own earlier state): `false`, unchanged, on overflow.
    pub fn merge(&mut self, sources: &[(&Cms, i64)]) -> bool {
        let cells = (self.width * self.depth) as usize;
        let mut out = Vec::with_capacity(self.counters.len());
        for cell in 0..cells {
            let mut sum: i128 = 0;
            for (src, w) in sources {
                let prod = src.counter(cell as u64) as i128 * *w as i128;
                if i64::try_from(prod).is_err() {
                    return false;
                }
                sum += prod;
                if i64::try_from(sum).is_err() {
                    return false;
                }
            }
            if !(0..=u32::MAX as i128).contains(&sum) {
                return false;
            }
            out.extend_from_slice(&(sum as u32).to_le_bytes());
        }
        let mut total: i128 = 0;
        for (src, w) in sources {
            let prod = src.count as i128 * *w as i128;
            if i64::try_from(prod).is_err() {
                return false;
            }
            total += prod;
            if i64::try_from(total).is_err() {
                return false;
            }
        }
        if total < 0 {
            return false;
        }
        self.counters = out;
        self.count = total as u64;
        true
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
