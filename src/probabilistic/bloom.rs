//! RedisBloom's scalable Bloom filter (`MBbloom--`, encoding versions 1–4, as RedisBloom 2.8
//! writes version 4).
//!
//! Fields in order: total items (`size`), number of links, options (version ≥ 2: bit 1
//! NOROUND, 2 ENTS_IS_BITS, 4 FORCE64, 8 NO_SCALING), growth (version ≥ 4, else 2); then per
//! link: capacity (`entries`), error rate (double), hash count, bits per entry (double),
//! number of bits, `n2` (log2 of the bit count, 0 when not a power of two), the bit array
//! (buffer, `bits / 8` bytes) and the link's item count.
//!
//! Membership: the item's two hashes are MurmurHash64A with seed `0xc6a4a7935bd1e995` and
//! then seeded with the first (FORCE64, every filter RedisBloom creates), or 32-bit
//! MurmurHash2 with seed `0x9747b28c` and then the first (older filters). Hash `i` sets bit
//! `(a + i·b) mod m` (wrapping 64-bit arithmetic, `m = 2^n2`, or the bit count when `n2` is
//! 0), bit `x` being bit `x % 8` of byte `x / 8`. An item is present when every hash bit of
//! some link is set; links are checked newest first.
//!
//! Writes (as RedisBloom 2.8.2 BF.RESERVE / BF.ADD): a new chain has options FORCE64 | NOROUND
//! (| NO_SCALING) and one link of the reserved capacity with error `rate · 0.5` (scaling) or
//! `rate` (non-scaling). A link of `n` entries and error `e` has `bpe = |ln e| / ln²2`,
//! `⌊n · bpe⌋` bits (at least 1) rounded up to whole 64-bit words, no `n2`, and
//! `⌈0.693147180559945 · bpe⌉` hashes. Adding an item that some link already holds changes
//! nothing; otherwise, when the newest link holds its capacity, a scaling chain first appends
//! a link of `entries · growth` entries (wrapping 64-bit) and half the error, a non-scaling one
//! refuses. A link whose parameters the module cannot initialise (0 entries) is appended all
//! zero, as the module does: it has no hashes and so matches every item afterwards.

use super::{FieldError, Fields};
use crate::hll::murmur::murmur64a;

/// The highest `MBbloom--` encoding version understood (RedisBloom 2.8 writes 4).
pub const MAX_ENCVER: u32 = 4;

/// The most hash functions a link may declare (see [`Bloom::decode`]).
pub const MAX_HASHES: u64 = 4096;

/// Option bit: the bit count is not rounded to a power of two.
pub const OPT_NOROUND: u64 = 1;
/// Option bit: hashes are 64-bit (MurmurHash64A).
pub const OPT_FORCE64: u64 = 4;
/// Option bit: the filter does not scale (BF.RESERVE NONSCALING).
pub const OPT_NO_SCALING: u64 = 8;

/// Each new link's error rate is the previous one's times this (RedisBloom's tightening ratio).
pub const ERROR_TIGHTENING: f64 = 0.5;

/// The hash count factor RedisBloom uses: ln 2 cut to 15 digits (not `LN_2`: the last digits
/// change some hash counts' rounding).
#[allow(clippy::approx_constant)]
const LN2: f64 = 0.693147180559945;
/// ln(2)², as RedisBloom writes it.
const LN2_SQUARED: f64 = 0.480453013918201;

/// Why an item could not be added (see [`Bloom::add`]).
#[derive(Debug, Clone, PartialEq)]
pub enum AddError {
    /// The newest link is full and the chain does not scale (`ERR non scaling filter is full`).
    Full,
    /// The new link could not be initialised (`ERR problem inserting into filter`); the chain
    /// keeps the all-zero link, as the module does.
    Problem,
    /// The new link's bit array would exceed [`super::MAX_ALLOC_BYTES`] (bitlens' limit; the
    /// module would allocate it).
    TooLarge(u64),
}

/// One link of the chain: a fixed-size Bloom filter.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// Capacity of the link (items it was sized for).
    pub entries: u64,
    /// Target error rate.
    pub error: f64,
    /// Number of hash functions.
    pub hashes: u64,
    /// Bits per entry.
    pub bpe: f64,
    /// Number of bits (the modulus when `n2` is 0).
    pub bits: u64,
    /// log2 of the bit modulus, 0 when the modulus is `bits`.
    pub n2: u64,
    /// The bit array.
    pub bytes: Vec<u8>,
    /// Items added to this link.
    pub size: u64,
}

/// A scalable Bloom filter (RedisBloom `SBChain`).
#[derive(Debug, Clone, PartialEq)]
pub struct Bloom {
    /// Items added to the chain (BF.CARD).
    pub size: u64,
    /// Option bits (see the module header).
    pub options: u64,
    /// Expansion factor of new links.
    pub growth: u64,
    /// The links, oldest first.
    pub links: Vec<Link>,
}

impl Bloom {
    /// A new chain as BF.RESERVE / the first BF.ADD create it: `capacity` entries at `error`
    /// (checked by the caller: `0 < error < 1`, `capacity > 0`), growth `expansion`,
    /// `scaling` false for NONSCALING. Fails when the first link exceeds the allocation limit.
    pub fn reserve(
        error: f64,
        capacity: u64,
        expansion: u32,
        scaling: bool,
    ) -> Result<Bloom, AddError> {
        let mut options = OPT_FORCE64 | OPT_NOROUND;
        if !scaling {
            options |= OPT_NO_SCALING;
        }
        let tightening = if scaling { ERROR_TIGHTENING } else { 1.0 };
        let link = Link::new(capacity, error * tightening)?.ok_or(AddError::Problem)?;
        Ok(Bloom {
            size: 0,
            options,
            growth: expansion as u64,
            links: vec![link],
        })
    }

    /// Adds `item` (BF.ADD): `Ok(true)` when added, `Ok(false)` when some link already
    /// matches it (false positives included), else why not.
    pub fn add(&mut self, item: &[u8]) -> Result<bool, AddError> {
        let (a, b) = self.hash(item);
        if self.links.iter().rev().any(|l| l.contains(a, b)) {
            return Ok(false);
        }
        let last = self.links.last().ok_or(AddError::Problem)?;
        if last.size >= last.entries {
            if !self.scaling() {
                return Err(AddError::Full);
            }
            // The module multiplies by its 32-bit growth in 64-bit size_t arithmetic.
            let entries = last.entries.wrapping_mul(self.growth as u32 as u64);
            let error = last.error * ERROR_TIGHTENING;
            match Link::new(entries, error)? {
                Some(l) => self.links.push(l),
                None => {
                    self.links.push(Link::zero());
                    return Err(AddError::Problem);
                }
            }
        }
        let cur = self.links.last_mut().expect("a link");
        cur.set(a, b);
        cur.size = cur.size.wrapping_add(1);
        self.size = self.size.wrapping_add(1);
        Ok(true)
    }

    /// Decodes the fields of an `MBbloom--` value of encoding version `encver` (1..=4),
    /// checking each link as RedisBloom's loader does.
    pub fn decode(mut f: Fields<'_>, encver: u32) -> Result<Bloom, FieldError> {
        if encver == 0 {
            return Err(f.err("encoding version 0 is not supported"));
        }
        let size = f.unsigned("item count")?;
        let n = f.unsigned("link count")?;
        if n == 0 {
            return Err(f.err("has no links"));
        }
        let options = if encver >= 2 {
            f.unsigned("options")?
        } else {
            0
        };
        let growth = if encver >= 4 {
            f.unsigned("growth")?
        } else {
            2
        };
        // Each link is 8 fields: never allocate more links than the fields allow.
        if n > (f.remaining() / 8) as u64 {
            return Err(f.err(format!("declares {n} links but has too few fields")));
        }
        let mut links = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let entries = f.unsigned("link capacity")?;
            let error = f.double("link error rate")?;
            let hashes = f.unsigned("link hash count")?;
            let bpe = f.double("link bits per entry")?;
            let bits = f.unsigned("link bit count")?;
            let n2 = f.unsigned("link n2")?;
            // RedisBloom 2.8.2 saves (and loads) a link it failed to initialise as all zeros
            // (observed: a scaling filter grown from a 1e-6 error rate); such a link has no
            // hashes and so matches every item. Rejected are only what no lookup could
            // survive: `n2` past 63, a zero modulus with hashes, a short bit array, and more
            // than MAX_HASHES hashes (real links have `ceil(ln 2 · bpe)`, under 1100 even at
            // error 1e-300; more would make a lookup spin).
            let modulus = if n2 > 0 && n2 <= 63 { 1u64 << n2 } else { bits };
            if n2 > 63 || hashes > MAX_HASHES || (modulus == 0 && hashes > 0) {
                return Err(f.err(format!(
                    "link parameters are inconsistent ({hashes} hashes, {bits} bits, n2 {n2})"
                )));
            }
            let bytes = f.buffer("link bit array")?;
            if (bytes.len() as u64) < modulus.div_ceil(8) || (bytes.len() as u64) < bits.div_ceil(8)
            {
                return Err(f.err(format!(
                    "link bit array has {} bytes for {bits} bits (n2 {n2})",
                    bytes.len()
                )));
            }
            let lsize = f.unsigned("link item count")?;
            links.push(Link {
                entries,
                error,
                hashes,
                bpe,
                bits,
                n2,
                bytes: bytes.to_vec(),
                size: lsize,
            });
        }
        f.finish()?;
        Ok(Bloom {
            size,
            options,
            growth,
            links,
        })
    }

    /// The item's hash pair, as the chain's options choose.
    fn hash(&self, item: &[u8]) -> (u64, u64) {
        if self.options & OPT_FORCE64 != 0 {
            let a = murmur64a(item, 0xc6a4_a793_5bd1_e995);
            (a, murmur64a(item, a))
        } else {
            let a = super::murmur2(item, 0x9747_b28c) as u64;
            (a, super::murmur2(item, a as u32) as u64)
        }
    }

    /// Whether `item` may have been added (BF.EXISTS), false positives included.
    pub fn contains(&self, item: &[u8]) -> bool {
        let (a, b) = self.hash(item);
        self.links.iter().rev().any(|l| l.contains(a, b))
    }

    /// Sum of the links' capacities (BF.INFO Capacity).
    pub fn capacity(&self) -> u64 {
        self.links.iter().map(|l| l.entries).sum()
    }

    /// The module's memory usage of the chain (BF.INFO Size): the 32-byte chain header, a
    /// 64-byte record per link, and the bit arrays.
    pub fn memory(&self) -> u64 {
        32 + 64 * self.links.len() as u64
            + self.links.iter().map(|l| l.bytes.len() as u64).sum::<u64>()
    }

    /// Whether the filter scales (BF.INFO Expansion rate is null when not).
    pub fn scaling(&self) -> bool {
        self.options & OPT_NO_SCALING == 0
    }
}

impl Link {
    /// A new empty link of `entries` at `error` (NOROUND, see the module header); `Ok(None)`
    /// when the module's initialisation fails (no entries, error outside (0, 1)).
    pub fn new(entries: u64, error: f64) -> Result<Option<Link>, AddError> {
        if entries < 1 || error <= 0.0 || error >= 1.0 {
            return Ok(None);
        }
        let bpe = (error.ln() / LN2_SQUARED).abs();
        // C's double-to-integer conversion; saturating here (the limit refuses such sizes).
        let bits = ((entries as f64 * bpe) as u64).max(1);
        let bytes = bits.div_ceil(64).saturating_mul(8);
        if bytes > super::MAX_ALLOC_BYTES {
            return Err(AddError::TooLarge(bytes));
        }
        Ok(Some(Link {
            entries,
            error,
            hashes: (LN2 * bpe).ceil() as u64,
            bpe,
            bits: bytes * 8,
            n2: 0,
            bytes: vec![0; bytes as usize],
            size: 0,
        }))
    }

    /// The all-zero link the module keeps when a new link fails to initialise.
    fn zero() -> Link {
        Link {
            entries: 0,
            error: 0.0,
            hashes: 0,
            bpe: 0.0,
            bits: 0,
            n2: 0,
            bytes: Vec::new(),
            size: 0,
        }
    }

    fn modulus(&self) -> u64 {
        if self.n2 > 0 {
            1u64 << self.n2
        } else {
            self.bits
        }
    }

    /// Sets the item's hash bits (the hash pair of [`Bloom::hash`]).
    fn set(&mut self, a: u64, b: u64) {
        let m = self.modulus();
        if m == 0 {
            return;
        }
        for i in 0..self.hashes {
            let x = a.wrapping_add(i.wrapping_mul(b)) % m;
            if let Some(byte) = self.bytes.get_mut((x >> 3) as usize) {
                *byte |= 1 << (x % 8);
            }
        }
    }

    fn contains(&self, a: u64, b: u64) -> bool {
        let m = self.modulus();
        (0..self.hashes).all(|i| {
            let x = a.wrapping_add(i.wrapping_mul(b)) % m;
            self.bytes
                .get((x >> 3) as usize)
                .is_some_and(|byte| byte & (1 << (x % 8)) != 0)
        })
    }
}
