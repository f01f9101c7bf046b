//! HyperLogLog engine: Redis 7's `HYLL` string format, PFADD, PFCOUNT and PFMERGE, byte for
//! byte as Redis produces and reads them.
//!
//! # Format
//! A Redis HyperLogLog is a plain string value: a 16-byte header, then the registers in one
//! of two encodings. There are 16,384 registers (P = 14 index bits).
//!
//! ```text
//! byte  0   1   2   3   4    5   6   7   8 ........................ 15   16 ...
//!      +---+---+---+---+----+---+---+---+------------------------------+--------------
//!      | H | Y | L | L |enc | unused    | cached cardinality, u64 LE   | registers
//!      +---+---+---+---+----+---+---+---+------------------------------+--------------
//!                       0 = dense        top bit of byte 15 set = cache invalid
//!                       1 = sparse
//!
//! dense:  12,288 bytes = 16,384 registers x 6 bits, LSB first (total length 12,304):
//!         byte 16          byte 17          byte 18
//!         [r1:2 r0:6]      [r2:4 r1:4]      [r3:6 r2:2]   ... (8 registers per 6 bytes)
//!         (rN:k = k bits of register N; low bits of a register sit in the lower byte)
//!
//! sparse: run-length opcodes (see [`sparse`] for the update rules):
//!         ZERO  00xxxxxx            xxxxxx+1 registers (1..64) are 0
//!         XZERO 01xxxxxx yyyyyyyy   14-bit length + 1 registers (1..16384) are 0
//!         VAL   1vvvvvxx            xx+1 registers (1..4) hold vvvvv+1 (1..32)
//!         An empty HLL is the header plus `7f ff` (XZERO of 16,384): 18 bytes.
//! ```
//!
//! # Algorithm
//! An element is hashed with MurmurHash64A (seed `0xadc83b19`); the low 14 bits pick the
//! register, and the register keeps the maximum over its elements of 1 + the number of
//! trailing zero bits of the remaining 50 bits (so 1..=51). A sparse HLL is promoted to
//! dense when a value exceeds 32 or the string would grow past `hll-sparse-max-bytes`
//! (3000 by default). The cardinality is Otmar Ertl's improved estimator over the register
//! histogram ("New cardinality estimation algorithms for HyperLogLog sketches", 2017):
//! `z = m·τ(1 − C[q+1]/m)`, then for `k = q..1`: `z = (z + C[k]) / 2`, then `z += m·σ(C[0]/m)`
//! and the estimate is `round(α∞·m²/z)` with `α∞ = 1/(2 ln 2)`, computed in the same f64
//! operation order as Redis so that the integer is identical.
//!
//! Validation follows Redis: a string shorter than 16 bytes, without the `HYLL` magic, with
//! an encoding byte above 1, or dense with a length other than 12,304 is not a HyperLogLog
//! ([`HllError::NotHll`]); a sparse body whose opcodes do not cover exactly 16,384 registers
//! is corrupt ([`HllError::Corrupt`]), detected when the registers are read.

mod dense;
mod estimate;
pub(crate) mod murmur;
pub mod sparse;

use std::fmt;

pub use estimate::estimate_histogram;
pub use murmur::murmur64a;

/// Number of registers (2^14).
pub const REGISTERS: usize = 1 << P;
/// Register index bits.
pub const P: u32 = 14;
/// Header length in bytes.
pub const HDR: usize = 16;
/// Length in bytes of a dense body (16,384 × 6 bits).
pub const DENSE_BODY: usize = REGISTERS * 6 / 8;
/// Total length in bytes of a dense HyperLogLog string (12,304).
pub const DENSE_SIZE: usize = HDR + DENSE_BODY;
/// Default `hll-sparse-max-bytes` of Redis 7: sparse strings longer than this are promoted.
pub const DEFAULT_SPARSE_MAX_BYTES: usize = 3000;
/// Seed of the MurmurHash64A hash Redis uses for HLL elements.
pub const HASH_SEED: u64 = 0xadc8_3b19;
/// Encoding byte of the dense encoding.
pub const ENC_DENSE: u8 = 0;
/// Encoding byte of the sparse encoding.
pub const ENC_SPARSE: u8 = 1;

/// Why a string cannot be used as a HyperLogLog; each maps to Redis' exact error reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HllError {
    /// Not a HyperLogLog (too short, bad magic, unknown encoding, dense with a wrong length):
    /// `WRONGTYPE Key is not a valid HyperLogLog string value.`
    NotHll,
    /// Sparse opcodes that do not cover exactly 16,384 registers:
    /// `INVALIDOBJ Corrupted HLL object detected`
    Corrupt,
}

impl HllError {
    /// The error text of Redis 7's reply (code included, no leading `-`).
    pub fn message(self) -> &'static str {
        match self {
            HllError::NotHll => "WRONGTYPE Key is not a valid HyperLogLog string value.",
            HllError::Corrupt => "INVALIDOBJ Corrupted HLL object detected",
        }
    }
}

impl fmt::Display for HllError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for HllError {}

/// The encoding of a valid HyperLogLog string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// `HLL_DENSE` (byte 4 = 0): 16,384 six-bit registers.
    Dense,
    /// `HLL_SPARSE` (byte 4 = 1): run-length opcodes.
    Sparse,
}

/// One byte per register (values 0..=63), the unpacked form used for unions and merges.
#[derive(Clone)]
pub struct Registers(pub [u8; REGISTERS]);

impl Registers {
    /// All registers zero.
    pub fn zero() -> Self {
        Registers([0; REGISTERS])
    }

    /// All registers zero, on the heap.
    pub fn boxed() -> Box<Self> {
        Box::new(Self::zero())
    }

    /// The register histogram: `h[v]` = number of registers holding `v`.
    pub fn histogram(&self) -> [u32; 64] {
        let mut h = [0u32; 64];
        dense::histogram_raw(self, &mut h);
        h
    }

    /// The cardinality estimate of these registers, as Redis 7 PFCOUNT computes it.
    pub fn estimate(&self) -> u64 {
        estimate_histogram(&self.histogram())
    }
}

impl fmt::Debug for Registers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let nonzero = self.0.iter().filter(|&&r| r != 0).count();
        write!(f, "Registers({nonzero} non-zero)")
    }
}

/// Checks a string the way Redis' `isHLLObjectOrReply` does and returns its encoding.
pub fn validate(hll: &[u8]) -> Result<Encoding, HllError> {
    if hll.len() < HDR || &hll[..4] != b"HYLL" {
        return Err(HllError::NotHll);
    }
    match hll[4] {
        ENC_DENSE if hll.len() == DENSE_SIZE => Ok(Encoding::Dense),
        ENC_SPARSE => Ok(Encoding::Sparse),
        _ => Err(HllError::NotHll),
    }
}

/// The string Redis creates for a new HyperLogLog (PFADD / PFMERGE on a missing key before
/// any register is set): sparse, 18 bytes, cached cardinality 0 (valid).
pub fn new_sparse() -> Vec<u8> {
    let mut s = Vec::with_capacity(64);
    s.extend_from_slice(b"HYLL");
    s.push(ENC_SPARSE);
    s.extend_from_slice(&[0; 11]);
    s.extend_from_slice(&sparse::empty_body());
    s
}

/// The register index (0..16384) and run length (1..=51) an element sets, as Redis'
/// `hllPatLen`: low 14 hash bits, then 1 + trailing zeros of the remaining 50 bits.
#[inline(always)]
pub fn hash_element(element: &[u8]) -> (usize, u8) {
    let h = murmur64a(element, HASH_SEED);
    let index = (h & (REGISTERS as u64 - 1)) as usize;
    let rest = (h >> P) | (1u64 << (64 - P));
    (index, rest.trailing_zeros() as u8 + 1)
}

/// Whether the cached cardinality in the header is valid (top bit of byte 15 clear).
pub fn cache_valid(hll: &[u8]) -> bool {
    hll.len() >= HDR && hll[15] & 0x80 == 0
}

/// Marks the cached cardinality invalid (sets the top bit of byte 15, keeping the rest).
fn invalidate(hll: &mut [u8]) {
    hll[15] |= 0x80;
}

/// PFADD: adds `elements` to the HyperLogLog string `hll` in place, as Redis 7 does, with the
/// default `hll-sparse-max-bytes` of 3000. An empty `hll` means the key does not exist: it is
/// created (sparse) and the result is `true` even without elements. Returns whether any
/// register changed (PFADD's 1 or 0). Errors: [`HllError::NotHll`] for a string that is not
/// a HyperLogLog, [`HllError::Corrupt`] for a corrupt sparse body (registers set by the
/// elements before the error stay set, as in Redis).
pub fn pfadd(hll: &mut Vec<u8>, elements: &[&[u8]]) -> Result<bool, HllError> {
    pfadd_with_limit(hll, elements, DEFAULT_SPARSE_MAX_BYTES)
}

/// [`pfadd`] with an explicit `hll-sparse-max-bytes` (the length in bytes, header included,
/// past which a sparse string is promoted to dense).
pub fn pfadd_with_limit(
    hll: &mut Vec<u8>,
    elements: &[&[u8]],
    sparse_max_bytes: usize,
) -> Result<bool, HllError> {
    pfadd_iter(hll, elements.iter().copied(), sparse_max_bytes)
}

/// [`pfadd_with_limit`] over any sequence of elements (saves collecting slices first).
pub fn pfadd_iter<'a, I>(
    hll: &mut Vec<u8>,
    elements: I,
    sparse_max_bytes: usize,
) -> Result<bool, HllError>
where
    I: IntoIterator<Item = &'a [u8]>,
{
    let mut rest = elements.into_iter();
    let mut updated = false;
    let enc = if hll.is_empty() {
        *hll = new_sparse();
        updated = true;
        Encoding::Sparse
    } else {
        validate(hll)?
    };
    let mut dense_now = enc == Encoding::Dense;
    if !dense_now {
        for e in rest.by_ref() {
            let (index, count) = hash_element(e);
            // Elements come in any order: every lookup scans from the first opcode.
            let mut cursor = sparse::Cursor::default();
            match sparse::set(hll, index, count, sparse_max_bytes, &mut cursor)? {
                sparse::SetResult::Unchanged => {}
                sparse::SetResult::Updated => updated = true,
                sparse::SetResult::Promoted => {
                    updated = true;
                    dense_now = true;
                    break;
                }
            }
        }
    }
    if dense_now {
        // Dense (from the start or after promotion).
        let body = &mut hll[HDR..];
        for e in rest {
            let (index, count) = hash_element(e);
            if dense::get(body, index) < count {
                dense::set(body, index, count);
                updated = true;
            }
        }
    }
    if updated {
        invalidate(hll);
    }
    Ok(updated)
}

/// The register histogram of a validated HyperLogLog string.
fn histogram(hll: &[u8], enc: Encoding) -> Result<[u32; 64], HllError> {
    let mut h = [0u32; 64];
    match enc {
        Encoding::Dense => dense::histogram(&hll[HDR..], &mut h),
        Encoding::Sparse => sparse::histogram(&hll[HDR..], &mut h)?,
    }
    Ok(h)
}

/// PFCOUNT of one key, as Redis 7: returns the cached cardinality when the cache is valid
/// (even if the registers disagree); otherwise estimates it from the registers and writes it
/// back into header bytes 8..15 (little-endian), which makes the cache valid.
pub fn count(hll: &mut [u8]) -> Result<u64, HllError> {
    let enc = validate(hll)?;
    if cache_valid(hll) {
        return Ok(cached(hll));
    }
    let card = estimate_histogram(&histogram(hll, enc)?);
    hll[8..16].copy_from_slice(&card.to_le_bytes());
    Ok(card)
}

/// What [`count`] returns, without writing the cache back (for read-only snapshots).
pub fn count_readonly(hll: &[u8]) -> Result<u64, HllError> {
    let enc = validate(hll)?;
    if cache_valid(hll) {
        return Ok(cached(hll));
    }
    Ok(estimate_histogram(&histogram(hll, enc)?))
}

/// The cardinality estimated from the registers, ignoring the cache.
pub fn estimate(hll: &[u8]) -> Result<u64, HllError> {
    let enc = validate(hll)?;
    Ok(estimate_histogram(&histogram(hll, enc)?))
}

/// The cached cardinality in header bytes 8..15 when it is valid (top bit of byte 15 clear);
/// `None` when it is invalid or the string is shorter than the header.
pub fn cached_cardinality(hll: &[u8]) -> Option<u64> {
    cache_valid(hll).then(|| cached(hll))
}

fn cached(hll: &[u8]) -> u64 {
    u64::from_le_bytes(hll[8..16].try_into().expect("8 header bytes"))
}

/// Register-wise maximum of `acc` and one HyperLogLog string (validated first), with Redis'
/// `hllMerge` rules. Returns the string's encoding (PFMERGE writes dense when any input is
/// dense).
pub fn merge_into(acc: &mut Registers, hll: &[u8]) -> Result<Encoding, HllError> {
    let enc = validate(hll)?;
    match enc {
        Encoding::Dense => dense::max_into(&hll[HDR..], acc),
        Encoding::Sparse => sparse::max_into(&hll[HDR..], acc)?,
    }
    Ok(enc)
}

/// The registers of one HyperLogLog string, unpacked one byte per register.
pub fn registers(hll: &[u8]) -> Result<Box<Registers>, HllError> {
    let mut r = Registers::boxed();
    match validate(hll)? {
        Encoding::Dense => dense::unpack(&hll[HDR..], &mut r),
        Encoding::Sparse => sparse::max_into(&hll[HDR..], &mut r)?,
    }
    Ok(r)
}

/// PFCOUNT of several keys (the union): merges the registers of every string, in order
/// (the first invalid one gives the error), and estimates the union's cardinality. Caches
/// are neither read nor written. Missing keys are simply left out of `hlls`.
pub fn union_count(hlls: &[&[u8]]) -> Result<u64, HllError> {
    let mut acc = Registers::boxed();
    for h in hlls {
        merge_into(&mut acc, h)?;
    }
    Ok(acc.estimate())
}

/// Writes merged registers into the PFMERGE destination, as Redis 7: `dest` empty means the
/// key is missing (a new sparse HLL is created first). `regs` must already include the
/// destination's own registers (see [`merge_into`]). With `use_dense` (some input was
/// dense) the destination becomes dense; otherwise each non-zero register is set in the
/// sparse form in index order, promoting to dense past `sparse_max_bytes`. The cached
/// cardinality is invalidated. `dest`, when not empty, must be a valid HyperLogLog.
pub fn store_merged(
    dest: &mut Vec<u8>,
    regs: &Registers,
    use_dense: bool,
    sparse_max_bytes: usize,
) -> Result<(), HllError> {
    if dest.is_empty() {
        *dest = new_sparse();
    }
    let mut enc = validate(dest)?;
    if use_dense && enc == Encoding::Sparse {
        sparse::to_dense(dest)?;
        enc = Encoding::Dense;
    }
    if enc == Encoding::Sparse {
        let mut cursor = sparse::Cursor::default();
        for (j, &v) in regs.0.iter().enumerate() {
            if v == 0 {
                continue;
            }
            // The return value is ignored, as in Redis' PFMERGE.
            match sparse::set(dest, j, v, sparse_max_bytes, &mut cursor) {
                Ok(sparse::SetResult::Promoted) => {
                    enc = Encoding::Dense;
                    break;
                }
                _ => continue,
            }
        }
    }
    if enc == Encoding::Dense {
        // Every register ends at max(dest, inputs) = regs: write them all at once.
        dense::pack(regs, &mut dest[HDR..]);
    }
    invalidate(dest);
    Ok(())
}

/// PFMERGE on raw strings: `dest` (empty = missing key) receives the union of itself and
/// `sources`, as Redis 7 writes it (default `hll-sparse-max-bytes`). Errors come from the
/// first invalid string in the order dest, sources...; then `dest` is left unchanged.
pub fn pfmerge(dest: &mut Vec<u8>, sources: &[&[u8]]) -> Result<(), HllError> {
    let mut acc = Registers::boxed();
    let mut use_dense = false;
    if !dest.is_empty() {
        use_dense |= merge_into(&mut acc, dest)? == Encoding::Dense;
    }
    for s in sources {
        use_dense |= merge_into(&mut acc, s)? == Encoding::Dense;
    }
    store_merged(dest, &acc, use_dense, DEFAULT_SPARSE_MAX_BYTES)
}

#[cfg(test)]
mod tests;
