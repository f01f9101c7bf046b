//! Bitmap engine: pure functions over Redis string bytes, free of any command parsing.
//!
//! Bit numbering is Redis': bit offset `n` lives in byte `n / 8`, at mask `0x80 >> (n % 8)`
//! (bit 0 is the most significant bit of byte 0). Ranges of bits are inclusive `[start, end]`
//! as the commands use them. The kernels work a machine word (or a 128-bit SIMD vector under
//! wasm `simd128`, see [`simd`]) at a time; no hot path loops bit by bit.
//!
//! - [`popcount`], [`count_bits`]: set bits in a slice / in an inclusive bit range (BITCOUNT).
//! - [`find_bit`]: first set or clear bit in a bit range (BITPOS).
//! - [`BitOp`], [`bitop`] and the in-place kernels [`bitop_and_into`], [`bitop_or_into`],
//!   [`bitop_xor_into`], [`bitop_not_in_place`] (BITOP AND/OR/XOR/NOT and the Redis 8.2
//!   DIFF/DIFF1/ANDOR/ONE).
//! - [`read_field`], [`write_field`], [`Overflow`], [`add_signed`], [`add_unsigned`]: BITFIELD.
//! - [`sparse`]: the paged representation of very sparse strings. (The Roaring serialization
//!   of a string is [`crate::string::roaring`].)

pub mod simd;
pub mod sparse;

/// Number of set bits in `bytes` (population count), as Redis BITCOUNT of the whole string.
pub fn popcount(bytes: &[u8]) -> u64 {
    simd::popcount(bytes)
}

/// Portable word-at-a-time population count; [`popcount`] uses it where no SIMD path exists
/// and the SIMD paths are proved equal to it by tests.
pub fn popcount_scalar(bytes: &[u8]) -> u64 {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "popcnt")))]
    {
        if std::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU supports the `popcnt` instruction (checked just above).
            return unsafe { popcount_words_popcnt(bytes) };
        }
    }
    popcount_words(bytes)
}

#[cfg(all(target_arch = "x86_64", not(target_feature = "popcnt")))]
#[target_feature(enable = "popcnt")]
unsafe fn popcount_words_popcnt(bytes: &[u8]) -> u64 {
    popcount_words(bytes)
}

#[inline(always)]
fn popcount_words(bytes: &[u8]) -> u64 {
    let mut chunks = bytes.chunks_exact(32);
    let mut total = 0u64;
    for c in &mut chunks {
        let w = |i: usize| u64::from_ne_bytes(c[i..i + 8].try_into().unwrap()).count_ones();
        total += (w(0) + w(8) + w(16) + w(24)) as u64;
    }
    let rest = chunks.remainder();
    let mut words = rest.chunks_exact(8);
    for c in &mut words {
        total += u64::from_ne_bytes(c.try_into().unwrap()).count_ones() as u64;
    }
    for &b in words.remainder() {
        total += b.count_ones() as u64;
    }
    total
}

/// Mask of the bits of one byte from in-byte position `from` to `to` inclusive (0 = MSB).
#[inline]
fn byte_mask(from: u64, to: u64) -> u8 {
    (0xFFu8 >> (from & 7)) & (0xFFu8 << (7 - (to & 7)))
}

/// Number of set bits in the inclusive bit range `[start_bit, end_bit]` of `bytes`.
/// Returns 0 when `start_bit > end_bit`; bits past the end of `bytes` count as zero.
pub fn count_bits(bytes: &[u8], start_bit: u64, end_bit: u64) -> u64 {
    let total_bits = (bytes.len() as u64) * 8;
    if start_bit > end_bit || start_bit >= total_bits {
        return 0;
    }
    let end_bit = end_bit.min(total_bits - 1);
    let (sb, eb) = ((start_bit >> 3) as usize, (end_bit >> 3) as usize);
    if sb == eb {
        return (bytes[sb] & byte_mask(start_bit, end_bit)).count_ones() as u64;
    }
    let first = (bytes[sb] & byte_mask(start_bit, 7)).count_ones() as u64;
    let last = (bytes[eb] & byte_mask(0, end_bit)).count_ones() as u64;
    first + popcount(&bytes[sb + 1..eb]) + last
}

/// The bit value at `offset` (bits past the end read as 0), as Redis GETBIT.
#[inline]
pub fn get_bit(bytes: &[u8], offset: u64) -> bool {
    let byte = offset >> 3;
    byte < bytes.len() as u64 && bytes[byte as usize] & (0x80 >> (offset & 7)) != 0
}

/// Sets the bit at `offset` to `value` and returns its previous value. `offset` must lie
/// inside `bytes` (the caller grows the string first, as Redis SETBIT does).
#[inline]
pub fn set_bit(bytes: &mut [u8], offset: u64, value: bool) -> bool {
    let byte = &mut bytes[(offset >> 3) as usize];
    let mask = 0x80u8 >> (offset & 7);
    let old = *byte & mask != 0;
    if value {
        *byte |= mask;
    } else {
        *byte &= !mask;
    }
    old
}

/// Position (in bits, from the start of `bytes`) of the first bit equal to `bit` in the
/// inclusive range `[start_bit, end_bit]`, or `None` when the range holds no such bit. Bits
/// past the end of `bytes` are not searched (the caller decides about zero padding).
pub fn find_bit(bytes: &[u8], bit: bool, start_bit: u64, end_bit: u64) -> Option<u64> {
    let total_bits = (bytes.len() as u64) * 8;
    if start_bit > end_bit || start_bit >= total_bits {
        return None;
    }
    let end_bit = end_bit.min(total_bits - 1);
    let (sb, eb) = ((start_bit >> 3) as usize, (end_bit >> 3) as usize);
    let probe = |i: usize, mask: u8| -> Option<u64> {
        let v = if bit { bytes[i] } else { !bytes[i] } & mask;
        (v != 0).then(|| i as u64 * 8 + v.leading_zeros() as u64)
    };
    if sb == eb {
        return probe(sb, byte_mask(start_bit, end_bit));
    }
    if let Some(p) = probe(sb, byte_mask(start_bit, 7)) {
        return Some(p);
    }
    if let Some(p) = find_bit_in_bytes(&bytes[sb + 1..eb], bit) {
        return Some((sb as u64 + 1) * 8 + p);
    }
    probe(eb, byte_mask(0, end_bit))
}

/// First bit equal to `bit` anywhere in `bytes`. Skips the 64-byte blocks that hold no such
/// bit ([`simd::skip_blocks`]: `v128` on wasm32, words the compiler vectorizes elsewhere), then
/// finds the byte.
pub fn find_bit_in_bytes(bytes: &[u8], bit: bool) -> Option<u64> {
    let base = simd::skip_blocks(bytes, bit);
    for (i, &b) in bytes[base..].iter().enumerate() {
        let v = if bit { b } else { !b };
        if v != 0 {
            return Some((base + i) as u64 * 8 + v.leading_zeros() as u64);
        }
    }
    None
}

/// A BITOP operation (Redis 7 AND/OR/XOR/NOT, Redis 8.2 DIFF/DIFF1/ANDOR/ONE).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BitOp {
    /// Bits set in every source.
    And,
    /// Bits set in any source.
    Or,
    /// Bits set in an odd number of sources.
    Xor,
    /// The complement of the single source.
    Not,
    /// `X ∧ ¬(Y1 ∨ Y2 ∨ …)`: bits of the first source set in none of the others.
    Diff,
    /// `¬X ∧ (Y1 ∨ Y2 ∨ …)`: bits set in one of the others but not in the first source.
    Diff1,
    /// `X ∧ (Y1 ∨ Y2 ∨ …)`: bits of the first source set in at least one other.
    AndOr,
    /// Bits set in exactly one source.
    One,
}

impl BitOp {
    /// Every operation, in declaration order.
    pub const ALL: [BitOp; 8] = [
        BitOp::And,
        BitOp::Or,
        BitOp::Xor,
        BitOp::Not,
        BitOp::Diff,
        BitOp::Diff1,
        BitOp::AndOr,
        BitOp::One,
    ];

    /// Parses the operation name case-insensitively (`and`, `or`, ..., `one`).
    pub fn parse(name: &[u8]) -> Option<BitOp> {
        const NAMES: [(&str, BitOp); 8] = [
            ("and", BitOp::And),
            ("or", BitOp::Or),
            ("xor", BitOp::Xor),
            ("not", BitOp::Not),
            ("diff", BitOp::Diff),
            ("diff1", BitOp::Diff1),
            ("andor", BitOp::AndOr),
            ("one", BitOp::One),
        ];
        NAMES
            .iter()
            .find(|(n, _)| n.as_bytes().eq_ignore_ascii_case(name))
            .map(|&(_, op)| op)
    }
}

/// `dst[i] &= src[i]` over the common length, and zero the part of `dst` that `src` does not
/// cover (a shorter source is zero padded, as in Redis).
pub fn bitop_and_into(dst: &mut [u8], src: &[u8]) {
    let n = dst.len().min(src.len());
    simd::and_assign(&mut dst[..n], &src[..n]);
    dst[n..].fill(0);
}

/// `dst[i] |= src[i]`; grows `dst` with zeros when `src` is longer.
pub fn bitop_or_into(dst: &mut Vec<u8>, src: &[u8]) {
    if dst.len() < src.len() {
        dst.resize(src.len(), 0);
    }
    simd::or_assign(&mut dst[..src.len()], src);
}

/// `dst[i] ^= src[i]`; grows `dst` with zeros when `src` is longer.
pub fn bitop_xor_into(dst: &mut Vec<u8>, src: &[u8]) {
    if dst.len() < src.len() {
        dst.resize(src.len(), 0);
    }
    simd::xor_assign(&mut dst[..src.len()], src);
}

/// `dst[i] = !dst[i]`.
pub fn bitop_not_in_place(dst: &mut [u8]) {
    simd::not_assign(dst);
}

/// True when every byte is zero. Reads 64 bytes at a time (eight word loads the compiler
/// turns into vector ORs) and stops at the first 64 bytes holding a set bit.
pub fn all_zero(bytes: &[u8]) -> bool {
    let mut chunks = bytes.chunks_exact(64);
    for c in &mut chunks {
        let mut acc = 0u64;
        for w in c.chunks_exact(8) {
            acc |= u64::from_ne_bytes(w.try_into().expect("8 bytes"));
        }
        if acc != 0 {
            return false;
        }
    }
    chunks.remainder().iter().all(|&b| b == 0)
}

/// Block size (bytes) for multi-source BITOP: the output block stays in L1 while every
/// source is folded into it.
const BITOP_BLOCK: usize = 8192;

/// Computes BITOP `op` over `srcs` (missing keys are passed as empty slices) and returns the
/// result, whose length is the longest source's; shorter sources are zero padded. `srcs`
/// must not be empty (NOT uses only `srcs[0]`).
pub fn bitop(op: BitOp, srcs: &[&[u8]]) -> Vec<u8> {
    let maxlen = srcs.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![0u8; maxlen];
    bitop_into_slice(op, srcs, &mut out, 0);
    out
}

/// Computes bytes `[base, base + out.len())` of BITOP `op` over `srcs` into `out` (each source
/// zero padded to any length). This is the block kernel behind [`bitop`]; the sparse
/// representation calls it page by page.
pub fn bitop_into_slice(op: BitOp, srcs: &[&[u8]], out: &mut [u8], base: usize) {
    // The bytes of `s` inside [from, from + len) (shorter or empty near its end).
    fn win(s: &[u8], from: usize, len: usize) -> &[u8] {
        let n = s.len().saturating_sub(from).min(len);
        if n == 0 {
            &[]
        } else {
            &s[from..from + n]
        }
    }
    for (bi, block) in out.chunks_mut(BITOP_BLOCK).enumerate() {
        let from = base + bi * BITOP_BLOCK;
        let len = block.len();
        let copy_first = |block: &mut [u8]| {
            let x = win(srcs[0], from, len);
            let n = x.len();
            block[..n].copy_from_slice(x);
            block[n..].fill(0);
        };
        // The disjunction of the sources other than the first, into `block`.
        let or_rest = |block: &mut [u8]| {
            block.fill(0);
            for s in &srcs[1..] {
                let x = win(s, from, len);
                let n = x.len();
                simd::or_assign(&mut block[..n], x);
            }
        };
        match op {
            BitOp::And => {
                // Once the block is all zero the remaining sources cannot change it and are
                // not read (the AND of many keys is often nearly empty). Whole blocks are
                // skipped, so the reads that remain stay sequential streams.
                copy_first(block);
                for s in &srcs[1..] {
                    if all_zero(block) {
                        break;
                    }
                    let x = win(s, from, len);
                    let n = x.len();
                    simd::and_assign(&mut block[..n], x);
                    block[n..].fill(0);
                }
            }
            BitOp::Or => {
                copy_first(block);
                for s in &srcs[1..] {
                    let x = win(s, from, len);
                    let n = x.len();
                    simd::or_assign(&mut block[..n], x);
                }
            }
            BitOp::Xor => {
                copy_first(block);
                for s in &srcs[1..] {
                    let x = win(s, from, len);
                    let n = x.len();
                    simd::xor_assign(&mut block[..n], x);
                }
            }
            BitOp::Not => {
                copy_first(block);
                simd::not_assign(block);
            }
            BitOp::Diff | BitOp::Diff1 | BitOp::AndOr => {
                or_rest(block);
                let x = win(srcs[0], from, len);
                let n = x.len();
                match op {
                    BitOp::Diff => {
                        simd::andnot_assign_rev(&mut block[..n], x);
                        block[n..].fill(0);
                    }
                    BitOp::Diff1 => simd::andnot_assign(&mut block[..n], x),
                    _ => {
                        simd::and_assign(&mut block[..n], x);
                        block[n..].fill(0);
                    }
                }
            }
            BitOp::One => {
                // seen: bits set in at least one source; multi: in at least two.
                let mut multi = vec![0u8; len];
                copy_first(block);
                for s in &srcs[1..] {
                    let x = win(s, from, len);
                    let n = x.len();
                    simd::one_step(&mut block[..n], &mut multi[..n], x);
                }
                simd::andnot_assign(block, &multi);
            }
        }
    }
}

/// OVERFLOW behaviour of BITFIELD SET/INCRBY.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overflow {
    /// Keep the low `bits` bits (two's complement for signed fields). The default.
    Wrap,
    /// Clamp to the field's minimum or maximum.
    Sat,
    /// Do nothing and reply nil.
    Fail,
}

/// A BITFIELD type `iN` (N = 1..=64) or `uN` (N = 1..=63), as Redis 7.4 BITFIELD reads it
/// (N in Redis' integer text form): `(signed, N)`, `None` for anything else.
pub fn field_type(arg: &[u8]) -> Option<(bool, u32)> {
    let signed = match arg.first() {
        Some(b'i') => true,
        Some(b'u') => false,
        _ => return None,
    };
    match crate::num::parse_i64(&arg[1..]) {
        Some(b) if b >= 1 && b <= if signed { 64 } else { 63 } => Some((signed, b as u32)),
        _ => None,
    }
}

/// Reads the `bits`-bit field (1..=64) at bit `offset` as an unsigned big-endian integer;
/// bits past the end of `bytes` read as 0.
pub fn read_field(bytes: &[u8], offset: u64, bits: u32) -> u64 {
    debug_assert!((1..=64).contains(&bits));
    let byte = offset >> 3;
    let mut buf = [0u8; 16];
    if byte < bytes.len() as u64 {
        let b = byte as usize;
        let n = (bytes.len() - b).min(9);
        buf[..n].copy_from_slice(&bytes[b..b + n]);
    }
    let w = u128::from_be_bytes(buf);
    let shift = 128 - (offset & 7) as u32 - bits;
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    ((w >> shift) as u64) & mask
}

/// Sign-extends the low `bits` bits (1..=64) of `raw` (two's complement), for signed fields.
pub fn sign_extend(raw: u64, bits: u32) -> i64 {
    let shift = 64 - bits;
    ((raw << shift) as i64) >> shift
}

/// Writes the low `bits` bits of `value` into the field at bit `offset`. The field must lie
/// inside `bytes` (the caller grows the string first, as Redis BITFIELD does).
pub fn write_field(bytes: &mut [u8], offset: u64, bits: u32, value: u64) {
    let b = (offset >> 3) as usize;
    let span = ((offset & 7) as usize + bits as usize).div_ceil(8);
    let mut buf = [0u8; 16];
    buf[..span].copy_from_slice(&bytes[b..b + span]);
    let shift = 128 - (offset & 7) as u32 - bits;
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    } as u128;
    let w = (u128::from_be_bytes(buf) & !(mask << shift)) | (((value as u128) & mask) << shift);
    bytes[b..b + span].copy_from_slice(&w.to_be_bytes()[..span]);
}

/// `value + incr` for a signed `bits`-bit field (1..=64) under `overflow`; `None` when it
/// overflows with [`Overflow::Fail`]. Also used for SET with `incr = 0` (a SET value out of
/// the field's range overflows). As Redis 7 BITFIELD, including its overflow test done in
/// 64-bit wrapping arithmetic: a SET value so negative that `max - value` wraps (below about
/// `-(2^63 - 2^(bits-1))`) counts as an overflow *upwards*, so SAT stores the maximum.
pub fn add_signed(value: i64, incr: i64, bits: u32, overflow: Overflow) -> Option<i64> {
    let max: i64 = if bits == 64 {
        i64::MAX
    } else {
        (1i64 << (bits - 1)) - 1
    };
    let min = -max - 1;
    let max_incr = (max as u64).wrapping_sub(value as u64) as i64;
    let min_incr = min.wrapping_sub(value);
    let high = value > max
        || (bits != 64 && incr > max_incr)
        || (value >= 0 && incr > 0 && incr > max_incr);
    let low = !high
        && (value < min
            || (bits != 64 && incr < min_incr)
            || (value < 0 && incr < 0 && incr < min_incr));
    if !high && !low {
        return Some(value.wrapping_add(incr));
    }
    match overflow {
        Overflow::Wrap => {
            let sum = (value as u64).wrapping_add(incr as u64);
            Some(sign_extend(sum, bits))
        }
        Overflow::Sat => Some(if high { max } else { min }),
        Overflow::Fail => None,
    }
}

/// `value + incr` for an unsigned `bits`-bit field (1..=63) under `overflow`; `None` when it
/// overflows with [`Overflow::Fail`]. For SET, Redis passes the (possibly negative) value
/// reinterpreted as u64 and `incr = 0`, so a negative SET value saturates to the maximum.
pub fn add_unsigned(value: u64, incr: i64, bits: u32, overflow: Overflow) -> Option<u64> {
    let max = (1i128 << bits) - 1;
    let exact = value as i128 + incr as i128;
    if (0..=max).contains(&exact) {
        return Some(exact as u64);
    }
    match overflow {
        Overflow::Wrap => Some((exact & max) as u64),
        Overflow::Sat => Some(if exact > max { max as u64 } else { 0 }),
        Overflow::Fail => None,
    }
}

#[cfg(test)]
pub(crate) mod tests;
