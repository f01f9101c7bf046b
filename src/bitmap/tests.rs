//! Engine tests: every kernel against a naive bit-by-bit reference on random inputs.

use super::*;

/// Test-data randomness: fastrand's seeded generator plus random bitmaps.
pub(crate) struct Rng(fastrand::Rng);
impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(fastrand::Rng::with_seed(seed))
    }
    pub(crate) fn next(&mut self) -> u64 {
        self.0.u64(..)
    }
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.0.u64(..n.max(1))
    }
    /// Random bytes with a random density and occasional all-ones / all-zeros runs.
    pub(crate) fn bytes(&mut self, max_len: u64) -> Vec<u8> {
        let len = self.below(max_len + 1) as usize;
        let density = self.below(9);
        let mut v = Vec::with_capacity(len);
        while v.len() < len {
            match self.below(10) {
                0 => v.extend(std::iter::repeat_n(0xFF, self.below(80) as usize)),
                1 => v.extend(std::iter::repeat_n(0, self.below(80) as usize)),
                _ => {
                    let mut b = 0u8;
                    for i in 0..8 {
                        if self.below(8) < density {
                            b |= 1 << i;
                        }
                    }
                    v.push(b);
                }
            }
        }
        v.truncate(len);
        v
    }
}

fn naive_bit(b: &[u8], i: u64) -> bool {
    (i / 8) < b.len() as u64 && b[(i / 8) as usize] & (0x80 >> (i % 8)) != 0
}

#[test]
fn popcount_and_count_bits_match_naive() {
    let mut r = Rng::new(1);
    for _ in 0..400 {
        let b = r.bytes(300);
        let total: u64 = (0..b.len() as u64 * 8)
            .filter(|&i| naive_bit(&b, i))
            .count() as u64;
        assert_eq!(popcount(&b), total);
        assert_eq!(popcount_scalar(&b), total);
        assert_eq!(simd::scalar::popcount(&b), total);
        for _ in 0..20 {
            let n = b.len() as u64 * 8 + 20;
            let (s, e) = (r.below(n), r.below(n));
            let want = (s..=e).filter(|&i| naive_bit(&b, i)).count() as u64;
            assert_eq!(count_bits(&b, s, e), want, "{s}..={e} of {}", b.len());
        }
    }
}

#[test]
fn find_bit_matches_naive() {
    let mut r = Rng::new(2);
    for _ in 0..400 {
        let b = r.bytes(200);
        for _ in 0..20 {
            let n = b.len() as u64 * 8 + 20;
            let (s, e) = (r.below(n), r.below(n));
            for bit in [false, true] {
                let limit = (b.len() as u64 * 8).min(e.saturating_add(1));
                let want = (s..limit).find(|&i| naive_bit(&b, i) == bit);
                assert_eq!(find_bit(&b, bit, s, e), want, "bit {bit} {s}..={e}");
            }
        }
        for bit in [false, true] {
            let want = (0..b.len() as u64 * 8).find(|&i| naive_bit(&b, i) == bit);
            assert_eq!(find_bit_in_bytes(&b, bit), want);
        }
    }
}

fn naive_bitop(op: BitOp, srcs: &[&[u8]]) -> Vec<u8> {
    let maxlen = srcs.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![0u8; maxlen];
    for i in 0..maxlen as u64 * 8 {
        let bits: Vec<bool> = srcs.iter().map(|s| naive_bit(s, i)).collect();
        let rest_any = bits[1..].iter().any(|&b| b);
        let v = match op {
            BitOp::And => bits.iter().all(|&b| b),
            BitOp::Or => bits.iter().any(|&b| b),
            BitOp::Xor => bits.iter().filter(|&&b| b).count() % 2 == 1,
            BitOp::Not => !bits[0],
            BitOp::Diff => bits[0] && !rest_any,
            BitOp::Diff1 => !bits[0] && rest_any,
            BitOp::AndOr => bits[0] && rest_any,
            BitOp::One => bits.iter().filter(|&&b| b).count() == 1,
        };
        if v {
            out[(i / 8) as usize] |= 0x80 >> (i % 8);
        }
    }
    out
}

#[test]
fn bitop_matches_definitions() {
    let mut r = Rng::new(3);
    let ops = BitOp::ALL;
    for round in 0..300 {
        let n = 1 + r.below(5) as usize;
        // Some rounds cross the block size so the blocked loop is exercised.
        let max = if round % 10 == 0 { 9_000 } else { 100 };
        let data: Vec<Vec<u8>> = (0..n).map(|_| r.bytes(max)).collect();
        let srcs: Vec<&[u8]> = data.iter().map(|v| v.as_slice()).collect();
        for op in ops {
            let srcs = if op == BitOp::Not {
                &srcs[..1]
            } else {
                &srcs[..]
            };
            assert_eq!(
                bitop(op, srcs),
                naive_bitop(op, srcs),
                "{op:?} round {round}"
            );
        }
    }
}

#[test]
fn in_place_kernels() {
    let mut r = Rng::new(4);
    for _ in 0..200 {
        let a = r.bytes(100);
        let b = r.bytes(100);
        let mut d = a.clone();
        bitop_or_into(&mut d, &b);
        assert_eq!(d, naive_bitop(BitOp::Or, &[&a, &b]));
        let mut d = a.clone();
        bitop_xor_into(&mut d, &b);
        assert_eq!(d, naive_bitop(BitOp::Xor, &[&a, &b]));
        let mut d = a.clone();
        bitop_and_into(&mut d, &b);
        assert_eq!(d, naive_bitop(BitOp::And, &[&a, &b])[..a.len()]);
        let mut d = a.clone();
        bitop_not_in_place(&mut d);
        assert_eq!(d, naive_bitop(BitOp::Not, &[&a]));
    }
}

#[test]
fn simd_kernels_equal_scalar() {
    // On wasm32 + simd128 `simd::*` are the SIMD kernels; elsewhere this still checks the
    // dispatch. Lengths cover partial vectors.
    let mut r = Rng::new(5);
    for _ in 0..300 {
        let a = r.bytes(200);
        let mut b = r.bytes(200);
        b.resize(a.len(), 0x5a);
        assert_eq!(simd::popcount(&a), simd::scalar::popcount(&a));
        for (name, fast, slow) in simd::KERNEL_PAIRS {
            let (mut x, mut y) = (a.clone(), a.clone());
            fast(&mut x, &b);
            slow(&mut y, &b);
            assert_eq!(x, y, "{name}");
        }
        let (mut x, mut y) = (a.clone(), a.clone());
        simd::not_assign(&mut x);
        simd::scalar::not_assign(&mut y);
        assert_eq!(x, y);
        let (mut x, mut y) = (a.clone(), a.clone());
        let (mut mx, mut my) = (b.clone(), b.clone());
        simd::one_step(&mut x, &mut mx, &b);
        simd::scalar::one_step(&mut y, &mut my, &b);
        assert_eq!((x, mx), (y, my));
    }
}

#[test]
fn fields_match_naive() {
    let mut r = Rng::new(6);
    for _ in 0..2000 {
        let mut b = r.bytes(20);
        let bits = 1 + r.below(64) as u32;
        let offset = r.below(b.len() as u64 * 8 + 16);
        let want: u64 =
            (0..bits as u64).fold(0, |acc, i| (acc << 1) | naive_bit(&b, offset + i) as u64);
        assert_eq!(read_field(&b, offset, bits), want);
        let signed = sign_extend(want, bits);
        if bits < 64 {
            let top = want >> (bits - 1) & 1 == 1;
            assert_eq!(signed < 0, top);
        }
        let need = ((offset + bits as u64 - 1) / 8 + 1) as usize;
        if b.len() < need {
            b.resize(need, 0);
        }
        let before = b.clone();
        let v = r.next();
        write_field(&mut b, offset, bits, v);
        for i in 0..b.len() as u64 * 8 {
            let inside = i >= offset && i < offset + bits as u64;
            let expect = if inside {
                (v >> (bits as u64 - 1 - (i - offset))) & 1 == 1
            } else {
                naive_bit(&before, i)
            };
            assert_eq!(naive_bit(&b, i), expect, "bit {i}");
        }
    }
}

#[test]
fn overflow_rules() {
    assert_eq!(add_signed(100, 100, 8, Overflow::Wrap), Some(-56));
    assert_eq!(add_signed(100, 100, 8, Overflow::Sat), Some(127));
    assert_eq!(add_signed(-100, -100, 8, Overflow::Sat), Some(-128));
    assert_eq!(add_signed(100, 100, 8, Overflow::Fail), None);
    assert_eq!(add_signed(200, 0, 8, Overflow::Wrap), Some(-56));
    assert_eq!(add_signed(i64::MAX, 1, 64, Overflow::Wrap), Some(i64::MIN));
    assert_eq!(add_signed(i64::MAX, 1, 64, Overflow::Sat), Some(i64::MAX));
    assert_eq!(add_signed(-1, 0, 1, Overflow::Fail), Some(-1));
    // Redis' 64-bit wrapping overflow test: a hugely negative SET value saturates to max
    // (observed on redis-server 7.0.15 by the differential test).
    assert_eq!(add_signed(i64::MIN, 0, 20, Overflow::Sat), Some(524_287));
    assert_eq!(add_signed(i64::MIN, 0, 20, Overflow::Wrap), Some(0));
    assert_eq!(add_signed(-600_000, 0, 20, Overflow::Sat), Some(-524_288));
    assert_eq!(add_signed(1, 0, 1, Overflow::Wrap), Some(-1));
    assert_eq!(add_unsigned(250, 10, 8, Overflow::Wrap), Some(4));
    assert_eq!(add_unsigned(250, 10, 8, Overflow::Sat), Some(255));
    assert_eq!(add_unsigned(5, -10, 8, Overflow::Sat), Some(0));
    assert_eq!(add_unsigned(5, -10, 8, Overflow::Wrap), Some(251));
    assert_eq!(add_unsigned(u64::MAX, 0, 8, Overflow::Sat), Some(255));
    assert_eq!(add_unsigned(u64::MAX, 0, 8, Overflow::Wrap), Some(255));
    assert_eq!(add_unsigned(3, 0, 2, Overflow::Fail), Some(3));
    assert_eq!(add_unsigned(4, 0, 2, Overflow::Fail), None);
}

#[test]
fn paged_bitop_equals_plain_bitop() {
    let mut r = Rng::new(9);
    let (mut paged, mut plain) = (0, 0);
    for round in 0..40 {
        let n = 2 + r.below(6) as usize;
        let len = 70_000 + r.below(140_000) as usize;
        let data: Vec<Vec<u8>> = (0..n)
            .map(|_| {
                // Some sources dense (most bits set), most at 1/8 density, lengths varied.
                let dense = r.below(4) == 0;
                let l = if r.below(3) == 0 {
                    r.below(len as u64) as usize
                } else {
                    len
                };
                (0..l)
                    .map(|_| {
                        let w = r.next();
                        let b = (w & (w >> 8) & (w >> 16)) as u8;
                        if dense {
                            !b
                        } else {
                            b
                        }
                    })
                    .collect()
            })
            .collect();
        let srcs: Vec<&[u8]> = data.iter().map(|v| v.as_slice()).collect();
        for op in [BitOp::And, BitOp::Diff, BitOp::AndOr, BitOp::Or] {
            let want = bitop(op, &srcs);
            match sparse::bitop_plain(op, &srcs, 65_536) {
                Ok(sp) => {
                    assert_eq!(sp.len(), want.len() as u64);
                    assert!(sp.stored_pages() as u64 * 4 <= sp.total_pages());
                    assert_eq!(sp.to_dense(), want, "{op:?} round {round}");
                    paged += 1;
                }
                Err(bytes) => {
                    assert_eq!(bytes, want, "{op:?} round {round}");
                    plain += 1;
                }
            }
        }
        // Short results never take the paged path.
        assert!(sparse::bitop_plain(BitOp::And, &srcs, len as u64 + 1).is_err());
    }
    assert!(paged > 10 && plain > 10, "paged {paged}, plain {plain}");
}

#[test]
fn all_zero_finds_any_set_bit() {
    let mut r = Rng::new(12);
    for len in (0..300).chain([4095, 4096, 8193]) {
        let mut v = vec![0u8; len];
        assert!(all_zero(&v), "len {len}");
        if len > 0 {
            let at = r.below(len as u64) as usize;
            v[at] = 1 << r.below(8);
            assert!(!all_zero(&v), "len {len}, byte {at}");
        }
    }
}
