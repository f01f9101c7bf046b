//! Kernels for popcount and BITOP over byte slices: WebAssembly `simd128` versions (16 bytes
//! per instruction: `i8x16.popcnt`, `v128.and/or/xor/andnot`) when the crate is built with
//! `-C target-feature=+simd128`, and portable scalar versions otherwise. The `scalar` module is
//! always compiled, so tests prove the two paths give identical results.

/// Portable versions (the compiler vectorizes these loops with whatever the target offers).
pub mod scalar {
    /// Set bits in `bytes`.
    pub fn popcount(bytes: &[u8]) -> u64 {
        super::super::popcount_scalar(bytes)
    }
    /// `dst &= src` (equal lengths).
    pub fn and_assign(dst: &mut [u8], src: &[u8]) {
        for (d, s) in dst.iter_mut().zip(src) {
            *d &= *s;
        }
    }
    /// `dst |= src` (equal lengths).
    pub fn or_assign(dst: &mut [u8], src: &[u8]) {
        for (d, s) in dst.iter_mut().zip(src) {
            *d |= *s;
        }
    }
    /// `dst ^= src` (equal lengths).
    pub fn xor_assign(dst: &mut [u8], src: &[u8]) {
        for (d, s) in dst.iter_mut().zip(src) {
            *d ^= *s;
        }
    }
    /// `dst = !dst`.
    pub fn not_assign(dst: &mut [u8]) {
        for d in dst.iter_mut() {
            *d = !*d;
        }
    }
    /// `dst = dst & !x` (equal lengths).
    pub fn andnot_assign(dst: &mut [u8], x: &[u8]) {
        for (d, s) in dst.iter_mut().zip(x) {
            *d &= !*s;
        }
    }
    /// `dst = x & !dst` (equal lengths).
    pub fn andnot_assign_rev(dst: &mut [u8], x: &[u8]) {
        for (d, s) in dst.iter_mut().zip(x) {
            *d = *s & !*d;
        }
    }
    /// One step of BITOP ONE: `multi |= acc & s; acc ^= s` (equal lengths).
    pub fn one_step(acc: &mut [u8], multi: &mut [u8], s: &[u8]) {
        for ((a, m), s) in acc.iter_mut().zip(multi.iter_mut()).zip(s) {
            *m |= *a & *s;
            *a ^= *s;
        }
    }
    /// Bytes at the start of `bytes` in whole 64-byte blocks that hold no bit equal to `bit`
    /// (every byte 0x00 when looking for a set bit, 0xFF for a clear one): the blocks BITPOS
    /// can skip. One branch per block: its eight words reduced by OR (or AND).
    pub fn skip_blocks(bytes: &[u8], bit: bool) -> usize {
        let word = |c: &[u8], i: usize| u64::from_ne_bytes(c[i * 8..i * 8 + 8].try_into().unwrap());
        let mut base = 0usize;
        if bit {
            for c in bytes.chunks_exact(64) {
                let mut acc = 0u64;
                for i in 0..8 {
                    acc |= word(c, i);
                }
                if acc != 0 {
                    break;
                }
                base += 64;
            }
        } else {
            for c in bytes.chunks_exact(64) {
                let mut acc = u64::MAX;
                for i in 0..8 {
                    acc &= word(c, i);
                }
                if acc != u64::MAX {
                    break;
                }
                base += 64;
            }
        }
        base
    }
}

/// WebAssembly `simd128` versions; each handles the tail with the scalar code.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub mod wasm {
    use core::arch::wasm32::*;

    #[inline(always)]
    fn load(s: &[u8], i: usize) -> v128 {
        debug_assert!(i + 16 <= s.len());
        // SAFETY: i + 16 <= s.len(); v128_load has no alignment requirement.
        unsafe { v128_load(s.as_ptr().add(i) as *const v128) }
    }

    #[inline(always)]
    fn store(s: &mut [u8], i: usize, v: v128) {
        debug_assert!(i + 16 <= s.len());
        // SAFETY: i + 16 <= s.len(); v128_store has no alignment requirement.
        unsafe { v128_store(s.as_mut_ptr().add(i) as *mut v128, v) }
    }

    /// Set bits in `bytes`: per-byte `i8x16.popcnt` summed in u8 lanes for up to 31 vectors
    /// (31 * 8 < 256), then widened.
    pub fn popcount(bytes: &[u8]) -> u64 {
        let n = bytes.len() / 16 * 16;
        let mut total = 0u64;
        let mut i = 0;
        while i < n {
            let batch_end = (i + 31 * 16).min(n);
            let mut acc = u8x16_splat(0);
            while i < batch_end {
                acc = u8x16_add(acc, u8x16_popcnt(load(bytes, i)));
                i += 16;
            }
            let wide = u32x4_extadd_pairwise_u16x8(u16x8_extadd_pairwise_u8x16(acc));
            total += (u32x4_extract_lane::<0>(wide)
                + u32x4_extract_lane::<1>(wide)
                + u32x4_extract_lane::<2>(wide)
                + u32x4_extract_lane::<3>(wide)) as u64;
        }
        total + super::scalar::popcount(&bytes[n..])
    }

    macro_rules! binary {
        ($name:ident, $f:expr, $scalar:path) => {
            /// SIMD version of the scalar kernel of the same name.
            pub fn $name(dst: &mut [u8], src: &[u8]) {
                let len = dst.len().min(src.len());
                let n = len / 16 * 16;
                let mut i = 0;
                while i < n {
                    let v = $f(load(dst, i), load(src, i));
                    store(dst, i, v);
                    i += 16;
                }
                $scalar(&mut dst[n..len], &src[n..len]);
            }
        };
    }
    binary!(and_assign, v128_and, super::scalar::and_assign);
    binary!(or_assign, v128_or, super::scalar::or_assign);
    binary!(xor_assign, v128_xor, super::scalar::xor_assign);
    binary!(andnot_assign, v128_andnot, super::scalar::andnot_assign);
    binary!(
        andnot_assign_rev,
        |d, x| v128_andnot(x, d),
        super::scalar::andnot_assign_rev
    );

    /// SIMD version of the scalar kernel of the same name.
    pub fn not_assign(dst: &mut [u8]) {
        let n = dst.len() / 16 * 16;
        let mut i = 0;
        while i < n {
            let v = v128_not(load(dst, i));
            store(dst, i, v);
            i += 16;
        }
        super::scalar::not_assign(&mut dst[n..]);
    }

    /// SIMD version of the scalar kernel of the same name.
    pub fn one_step(acc: &mut [u8], multi: &mut [u8], s: &[u8]) {
        let len = acc.len().min(multi.len()).min(s.len());
        let n = len / 16 * 16;
        let mut i = 0;
        while i < n {
            let a = load(acc, i);
            let x = load(s, i);
            store(multi, i, v128_or(load(multi, i), v128_and(a, x)));
            store(acc, i, v128_xor(a, x));
            i += 16;
        }
        super::scalar::one_step(&mut acc[n..len], &mut multi[n..len], &s[n..len]);
    }

    /// SIMD version of the scalar kernel of the same name (the same result: whole 64-byte
    /// blocks). Each block is four `v128` loads reduced by `v128.or` (`v128.and`, then
    /// `v128.not`) to a vector that is non-zero where a wanted bit is; two blocks are tested
    /// with one `v128.any_true` while both fit (half the branches), then the last odd block.
    pub fn skip_blocks(bytes: &[u8], bit: bool) -> usize {
        if bit {
            skip::<true>(bytes)
        } else {
            skip::<false>(bytes)
        }
    }

    /// The 64 bytes at `i` reduced to a vector with a bit set where a `SET` bit (a set bit, or
    /// for `SET = false` a clear one) is.
    #[inline(always)]
    fn wanted<const SET: bool>(s: &[u8], i: usize) -> v128 {
        let (a, b, c, d) = (
            load(s, i),
            load(s, i + 16),
            load(s, i + 32),
            load(s, i + 48),
        );
        if SET {
            v128_or(v128_or(a, b), v128_or(c, d))
        } else {
            v128_not(v128_and(v128_and(a, b), v128_and(c, d)))
        }
    }

    fn skip<const SET: bool>(bytes: &[u8]) -> usize {
        let mut i = 0;
        while i + 128 <= bytes.len() {
            if v128_any_true(v128_or(
                wanted::<SET>(bytes, i),
                wanted::<SET>(bytes, i + 64),
            )) {
                break;
            }
            i += 128;
        }
        // The pair holding the first wanted bit, or the tail: one block at a time.
        while i + 64 <= bytes.len() {
            if v128_any_true(wanted::<SET>(bytes, i)) {
                break;
            }
            i += 64;
        }
        i
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub use wasm::*;

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub use scalar::*;

/// A two-operand BITOP kernel: `dst op= src` over equal lengths.
pub type Kernel = fn(&mut [u8], &[u8]);

/// Every two-operand kernel in force (SIMD on wasm32 with `simd128`, scalar otherwise) beside
/// its [`scalar`] version, so that tests on every target prove they agree.
pub const KERNEL_PAIRS: [(&str, Kernel, Kernel); 5] = [
    ("and_assign", and_assign, scalar::and_assign),
    ("or_assign", or_assign, scalar::or_assign),
    ("xor_assign", xor_assign, scalar::xor_assign),
    ("andnot_assign", andnot_assign, scalar::andnot_assign),
    (
        "andnot_assign_rev",
        andnot_assign_rev,
        scalar::andnot_assign_rev,
    ),
];
