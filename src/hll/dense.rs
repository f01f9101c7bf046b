//! The dense encoding: 16,384 registers of 6 bits packed LSB-first into 12,288 bytes.
//!
//! Register `i` occupies bits `6i .. 6i+5` of the body read as one little-endian bit stream
//! (bit `k` of byte `b` is stream bit `8b + k`). Every 6 bytes hold exactly 8 registers, so the
//! body is handled 48 bits at a time: [`spread`] turns one 48-bit group into 8 bytes (one
//! register per byte) and [`gather`] packs 8 bytes back, each with three shift-and-mask steps
//! instead of per-register bit arithmetic.

use super::{Registers, DENSE_BODY, REGISTERS};

/// Spreads 8 packed 6-bit registers (the low 48 bits of `x`) into 8 bytes, register `k` in
/// byte `k`.
#[inline(always)]
#[cfg_attr(
    all(target_arch = "wasm32", target_feature = "simd128"),
    allow(dead_code)
)]
fn spread(x: u64) -> u64 {
    // 48 bits -> two 24-bit halves in 32-bit lanes -> 12-bit quarters in 16-bit lanes ->
    // 6-bit registers in 8-bit lanes.
    let x = (x & 0x0000_0000_00FF_FFFF) | ((x & 0x0000_FFFF_FF00_0000) << 8);
    let x = (x & 0x0000_0FFF_0000_0FFF) | ((x & 0x00FF_F000_00FF_F000) << 4);
    (x & 0x003F_003F_003F_003F) | ((x & 0x0FC0_0FC0_0FC0_0FC0) << 2)
}

/// The inverse of [`spread`]: 8 bytes (each < 64) into 48 packed bits.
#[inline(always)]
fn gather(x: u64) -> u64 {
    let x = (x & 0x003F_003F_003F_003F) | ((x >> 2) & 0x0FC0_0FC0_0FC0_0FC0);
    let x = (x & 0x0000_0FFF_0000_0FFF) | ((x >> 4) & 0x00FF_F000_00FF_F000);
    (x & 0x0000_0000_00FF_FFFF) | ((x >> 8) & 0x0000_FFFF_FF00_0000)
}

#[inline(always)]
#[cfg_attr(
    all(target_arch = "wasm32", target_feature = "simd128"),
    allow(dead_code)
)]
fn load48(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w[..6].copy_from_slice(&b[..6]);
    u64::from_le_bytes(w)
}

/// Unpacks a dense body (exactly [`DENSE_BODY`] bytes) into one byte per register.
pub fn unpack(body: &[u8], out: &mut Registers) {
    debug_assert_eq!(body.len(), DENSE_BODY);
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    simd::unpack(body, out);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    for (src, dst) in body.chunks_exact(6).zip(out.0.chunks_exact_mut(8)) {
        dst.copy_from_slice(&spread(load48(src)).to_le_bytes());
    }
}

/// Packs registers (each must be < 64) into a dense body of [`DENSE_BODY`] bytes.
pub fn pack(regs: &Registers, body: &mut [u8]) {
    debug_assert_eq!(body.len(), DENSE_BODY);
    for (src, dst) in regs.0.chunks_exact(8).zip(body.chunks_exact_mut(6)) {
        let w = gather(u64::from_le_bytes(src.try_into().expect("8 registers")));
        dst.copy_from_slice(&w.to_le_bytes()[..6]);
    }
}

/// Register-wise maximum of `acc` and a dense body: `acc[i] = max(acc[i], body[i])`.
pub fn max_into(body: &[u8], acc: &mut Registers) {
    debug_assert_eq!(body.len(), DENSE_BODY);
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    simd::max_into(body, acc);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        // Unpack a block into a small buffer, then take a byte-wise max the compiler
        // vectorises.
        const BLOCK: usize = 512;
        let mut tmp = [0u8; BLOCK];
        for (src, dst) in body
            .chunks_exact(BLOCK / 8 * 6)
            .zip(acc.0.chunks_exact_mut(BLOCK))
        {
            for (s, t) in src.chunks_exact(6).zip(tmp.chunks_exact_mut(8)) {
                t.copy_from_slice(&spread(load48(s)).to_le_bytes());
            }
            for (a, &t) in dst.iter_mut().zip(tmp.iter()) {
                *a = (*a).max(t);
            }
        }
    }
}

/// The wasm `simd128` forms of [`unpack`] and [`max_into`]: 12 body bytes (16 registers) per
/// step, written with explicit intrinsics so that they stay fast at every opt level (the
/// wasm profile may optimise for size, where iterator adapters and `copy_from_slice` are
/// left as calls). Register `r` of a group is bits `s .. s+5` of the little-endian pair of
/// bytes `(6r / 8, 6r / 8 + 1)`, `s = 6r mod 8` (0, 6, 4, 2 repeating): a swizzle puts each
/// pair in a 16-bit lane, [`shift_lanes`] shifts and masks each lane, a narrow packs 16
/// lanes into 16 bytes.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    use super::super::{Registers, DENSE_BODY};
    use core::arch::wasm32::*;

    /// Registers 16g .. 16g+15 from the 16 bytes at `v` (the group's 12 bytes first).
    #[inline(always)]
    fn spread16(v: v128) -> v128 {
        let lo = i8x16_swizzle(v, i8x16(0, 1, 0, 1, 1, 2, 2, 3, 3, 4, 3, 4, 4, 5, 5, 6));
        let hi = i8x16_swizzle(
            v,
            i8x16(6, 7, 6, 7, 7, 8, 8, 9, 9, 10, 9, 10, 10, 11, 11, -1),
        );
        u8x16_narrow_i16x8(shift_lanes(lo), shift_lanes(hi))
    }

    /// Lane `l` of `w` shifted right by `s = (0, 6, 4, 2)[l % 4]` and masked to 6 bits: one
    /// uniform shift per amount, each kept in its lanes by a mask (a per-lane multiply or
    /// shift would be scalarised: wasm has no per-lane shift).
    #[inline(always)]
    fn shift_lanes(w: v128) -> v128 {
        const M: u16 = 63;
        let m0 = u16x8(M, 0, 0, 0, M, 0, 0, 0);
        let m6 = u16x8(0, M, 0, 0, 0, M, 0, 0);
        let m4 = u16x8(0, 0, M, 0, 0, 0, M, 0);
        let m2 = u16x8(0, 0, 0, M, 0, 0, 0, M);
        v128_or(
            v128_or(v128_and(w, m0), v128_and(u16x8_shr(w, 6), m6)),
            v128_or(v128_and(u16x8_shr(w, 4), m4), v128_and(u16x8_shr(w, 2), m2)),
        )
    }

    /// The 16 bytes at `body[off..]`, zero past the end (only the group's 12 are used).
    #[inline(always)]
    fn load(body: &[u8], off: usize) -> v128 {
        if off + 16 <= body.len() {
            // SAFETY: off + 16 <= body.len(); v128_load has no alignment requirement.
            unsafe { v128_load(body.as_ptr().add(off) as *const v128) }
        } else {
            let mut t = [0u8; 16];
            let n = body.len() - off;
            t[..n].copy_from_slice(&body[off..]);
            // SAFETY: t is 16 bytes.
            unsafe { v128_load(t.as_ptr() as *const v128) }
        }
    }

    /// See [`super::unpack`].
    pub fn unpack(body: &[u8], out: &mut Registers) {
        let body = &body[..DENSE_BODY];
        let mut g = 0;
        while g < DENSE_BODY / 12 {
            let v = spread16(load(body, g * 12));
            // SAFETY: 16g + 16 <= REGISTERS = 16 * (DENSE_BODY / 12).
            unsafe { v128_store(out.0.as_mut_ptr().add(g * 16) as *mut v128, v) };
            g += 1;
        }
    }

    /// See [`super::max_into`].
    pub fn max_into(body: &[u8], acc: &mut Registers) {
        let body = &body[..DENSE_BODY];
        let mut g = 0;
        while g < DENSE_BODY / 12 {
            let v = spread16(load(body, g * 12));
            // SAFETY: 16g + 16 <= REGISTERS = 16 * (DENSE_BODY / 12).
            unsafe {
                let p = acc.0.as_mut_ptr().add(g * 16) as *mut v128;
                v128_store(p, u8x16_max(v128_load(p), v));
            }
            g += 1;
        }
    }
}

/// The 48-bit group at `body[off..off + 6]` (indexed byte loads: no calls at any opt level).
#[inline(always)]
fn group(body: &[u8], off: usize) -> u64 {
    let s = &body[off..off + 6];
    s[0] as u64
        | (s[1] as u64) << 8
        | (s[2] as u64) << 16
        | (s[3] as u64) << 24
        | (s[4] as u64) << 32
        | (s[5] as u64) << 40
}

/// Adds the histogram of register values of a dense body to `hist` (`hist[v]` = number of
/// registers holding `v`).
pub fn histogram(body: &[u8], hist: &mut [u32; 64]) {
    debug_assert_eq!(body.len(), DENSE_BODY);
    // Four interleaved histograms avoid store-to-load stalls on repeated values.
    let mut h = [[0u32; 64]; 4];
    let mut off = 0;
    while off + 6 <= body.len() {
        let x = group(body, off);
        h[0][(x & 63) as usize] += 1;
        h[1][((x >> 6) & 63) as usize] += 1;
        h[2][((x >> 12) & 63) as usize] += 1;
        h[3][((x >> 18) & 63) as usize] += 1;
        h[0][((x >> 24) & 63) as usize] += 1;
        h[1][((x >> 30) & 63) as usize] += 1;
        h[2][((x >> 36) & 63) as usize] += 1;
        h[3][((x >> 42) & 63) as usize] += 1;
        off += 6;
    }
    for (i, v) in hist.iter_mut().enumerate() {
        *v += h[0][i] + h[1][i] + h[2][i] + h[3][i];
    }
}

/// Adds the histogram of one-byte-per-register values to `hist`.
pub fn histogram_raw(regs: &Registers, hist: &mut [u32; 64]) {
    let mut h = [[0u32; 64]; 4];
    let r = &regs.0;
    let mut i = 0;
    while i + 4 <= r.len() {
        h[0][(r[i] & 63) as usize] += 1;
        h[1][(r[i + 1] & 63) as usize] += 1;
        h[2][(r[i + 2] & 63) as usize] += 1;
        h[3][(r[i + 3] & 63) as usize] += 1;
        i += 4;
    }
    for (i, v) in hist.iter_mut().enumerate() {
        *v += h[0][i] + h[1][i] + h[2][i] + h[3][i];
    }
}

/// Register `index` (< [`REGISTERS`]) of a dense body.
#[inline(always)]
pub fn get(body: &[u8], index: usize) -> u8 {
    let bit = index * 6;
    let byte = bit / 8;
    let shift = bit % 8;
    // The last register (byte 12287, shift 2) fits in its byte; read 2 bytes elsewhere.
    let w = match body.get(byte..byte + 2) {
        Some(two) => u16::from_le_bytes([two[0], two[1]]),
        None => body[byte] as u16,
    };
    ((w >> shift) & 63) as u8
}

/// Sets register `index` to `value` (< 64) in a dense body.
#[inline(always)]
pub fn set(body: &mut [u8], index: usize, value: u8) {
    debug_assert!(index < REGISTERS && value < 64);
    let bit = index * 6;
    let byte = bit / 8;
    let shift = bit % 8;
    if let Some(two) = body.get_mut(byte..byte + 2) {
        let w = u16::from_le_bytes([two[0], two[1]]);
        let w = (w & !(63u16 << shift)) | ((value as u16) << shift);
        two.copy_from_slice(&w.to_le_bytes());
    } else {
        body[byte] = (body[byte] & !(63u8 << shift)) | (value << shift);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_gather_roundtrip_and_layout() {
        let mut regs = Registers::zero();
        for i in 0..REGISTERS {
            regs.0[i] = ((i * 7 + i / 3) % 64) as u8;
        }
        let mut body = vec![0u8; DENSE_BODY];
        pack(&regs, &mut body);
        // Layout check against the plain bit-by-bit definition.
        for i in 0..REGISTERS {
            let mut v = 0u8;
            for k in 0..6 {
                let b = i * 6 + k;
                v |= ((body[b / 8] >> (b % 8)) & 1) << k;
            }
            assert_eq!(v, regs.0[i], "register {i}");
            assert_eq!(get(&body, i), regs.0[i]);
        }
        let mut back = Registers::zero();
        unpack(&body, &mut back);
        assert!(back.0 == regs.0);
        // set() agrees with pack().
        let mut body2 = vec![0u8; DENSE_BODY];
        for i in (0..REGISTERS).rev() {
            set(&mut body2, i, regs.0[i]);
        }
        assert_eq!(body, body2);
        let mut h = [0u32; 64];
        histogram(&body, &mut h);
        let mut h2 = [0u32; 64];
        histogram_raw(&regs, &mut h2);
        assert_eq!(h, h2);
        assert_eq!(h.iter().sum::<u32>(), REGISTERS as u32);
        let mut acc = Registers::zero();
        acc.0[5] = 63;
        max_into(&body, &mut acc);
        assert_eq!(acc.0[5], 63);
        assert_eq!(acc.0[6], regs.0[6]);
    }
}
