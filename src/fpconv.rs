//! Grisu2 double-to-decimal conversion, as the `fpconv` library prints doubles (Redis 7.2+
//! `d2string`, Valkey): Florian Loitsch, "Printing Floating-Point Numbers Quickly and
//! Accurately with Integers" (PLDI 2010), section 5.
//!
//! The double `v` and its rounding boundaries `m-`/`m+` (halfway to the neighbouring doubles)
//! are 64-bit normalized significands `f·2^e`. Each is multiplied (rounded 64×64→high 64) by
//! a cached power of ten `c_k ≈ 10^k` (87 of them, 10^-348 ..= 10^340 in steps of 8) chosen so
//! that the product's binary exponent lies in [-60, -32]; `m-` is then raised by one unit and
//! `m+` lowered by one (the error of the products). Digits of the scaled `m+` are generated:
//! first the integral part (divisors 10^9 .. 10^0), then the fraction (times 10 each step),
//! stopping as soon as the remainder is within the interval `m+ - m-` (`<=` for the integral
//! part, `<` for the fraction). The last digit is then lowered while that moves the result
//! closer to the scaled `v` and stays inside the interval ("weeding"). The result is
//! correct (reads back exactly) but, unlike a shortest-digits algorithm, may be one digit
//! longer than necessary (e.g. 60004.29260604511 → `60004292606045106`, 10^-12).
//!
//! The cached powers are the significands of 10^k rounded to nearest to 64 bits (computed
//! exactly with rational arithmetic).

/// A value `f · 2^e`.
#[derive(Clone, Copy, Debug)]
struct Fp {
    f: u64,
    e: i32,
}

const HIDDEN_BIT: u64 = 1 << 52;
const FRAC_MASK: u64 = HIDDEN_BIT - 1;

/// (significand, binary exponent) of 10^k for k = -348, -340, ..., 340.
const CACHED_POWERS: [(u64, i32); 87] = [
    (0xfa8fd5a0081c0288, -1220), // 1e-348
    (0xbaaee17fa23ebf76, -1193), // 1e-340
    (0x8b16fb203055ac76, -1166), // 1e-332
    (0xcf42894a5dce35ea, -1140), // 1e-324
    (0x9a6bb0aa55653b2d, -1113), // 1e-316
    (0xe61acf033d1a45df, -1087), // 1e-308
    (0xab70fe17c79ac6ca, -1060), // 1e-300
    (0xff77b1fcbebcdc4f, -1034), // 1e-292
    (0xbe5691ef416bd60c, -1007), // 1e-284
    (0x8dd01fad907ffc3c, -980),  // 1e-276
    (0xd3515c2831559a83, -954),  // 1e-268
    (0x9d71ac8fada6c9b5, -927),  // 1e-260
    (0xea9c227723ee8bcb, -901),  // 1e-252
    (0xaecc49914078536d, -874),  // 1e-244
    (0x823c12795db6ce57, -847),  // 1e-236
    (0xc21094364dfb5637, -821),  // 1e-228
    (0x9096ea6f3848984f, -794),  // 1e-220
    (0xd77485cb25823ac7, -768),  // 1e-212
    (0xa086cfcd97bf97f4, -741),  // 1e-204
    (0xef340a98172aace5, -715),  // 1e-196
    (0xb23867fb2a35b28e, -688),  // 1e-188
    (0x84c8d4dfd2c63f3b, -661),  // 1e-180
    (0xc5dd44271ad3cdba, -635),  // 1e-172
    (0x936b9fcebb25c996, -608),  // 1e-164
    (0xdbac6c247d62a584, -582),  // 1e-156
    (0xa3ab66580d5fdaf6, -555),  // 1e-148
    (0xf3e2f893dec3f126, -529),  // 1e-140
    (0xb5b5ada8aaff80b8, -502),  // 1e-132
    (0x87625f056c7c4a8b, -475),  // 1e-124
    (0xc9bcff6034c13053, -449),  // 1e-116
    (0x964e858c91ba2655, -422),  // 1e-108
    (0xdff9772470297ebd, -396),  // 1e-100
    (0xa6dfbd9fb8e5b88f, -369),  // 1e-92
    (0xf8a95fcf88747d94, -343),  // 1e-84
    (0xb94470938fa89bcf, -316),  // 1e-76
    (0x8a08f0f8bf0f156b, -289),  // 1e-68
    (0xcdb02555653131b6, -263),  // 1e-60
    (0x993fe2c6d07b7fac, -236),  // 1e-52
    (0xe45c10c42a2b3b06, -210),  // 1e-44
    (0xaa242499697392d3, -183),  // 1e-36
    (0xfd87b5f28300ca0e, -157),  // 1e-28
    (0xbce5086492111aeb, -130),  // 1e-20
    (0x8cbccc096f5088cc, -103),  // 1e-12
    (0xd1b71758e219652c, -77),   // 1e-4
    (0x9c40000000000000, -50),   // 1e4
    (0xe8d4a51000000000, -24),   // 1e12
    (0xad78ebc5ac620000, 3),     // 1e20
    (0x813f3978f8940984, 30),    // 1e28
    (0xc097ce7bc90715b3, 56),    // 1e36
    (0x8f7e32ce7bea5c70, 83),    // 1e44
    (0xd5d238a4abe98068, 109),   // 1e52
    (0x9f4f2726179a2245, 136),   // 1e60
    (0xed63a231d4c4fb27, 162),   // 1e68
    (0xb0de65388cc8ada8, 189),   // 1e76
    (0x83c7088e1aab65db, 216),   // 1e84
    (0xc45d1df942711d9a, 242),   // 1e92
    (0x924d692ca61be758, 269),   // 1e100
    (0xda01ee641a708dea, 295),   // 1e108
    (0xa26da3999aef774a, 322),   // 1e116
    (0xf209787bb47d6b85, 348),   // 1e124
    (0xb454e4a179dd1877, 375),   // 1e132
    (0x865b86925b9bc5c2, 402),   // 1e140
    (0xc83553c5c8965d3d, 428),   // 1e148
    (0x952ab45cfa97a0b3, 455),   // 1e156
    (0xde469fbd99a05fe3, 481),   // 1e164
    (0xa59bc234db398c25, 508),   // 1e172
    (0xf6c69a72a3989f5c, 534),   // 1e180
    (0xb7dcbf5354e9bece, 561),   // 1e188
    (0x88fcf317f22241e2, 588),   // 1e196
    (0xcc20ce9bd35c78a5, 614),   // 1e204
    (0x98165af37b2153df, 641),   // 1e212
    (0xe2a0b5dc971f303a, 667),   // 1e220
    (0xa8d9d1535ce3b396, 694),   // 1e228
    (0xfb9b7cd9a4a7443c, 720),   // 1e236
    (0xbb764c4ca7a44410, 747),   // 1e244
    (0x8bab8eefb6409c1a, 774),   // 1e252
    (0xd01fef10a657842c, 800),   // 1e260
    (0x9b10a4e5e9913129, 827),   // 1e268
    (0xe7109bfba19c0c9d, 853),   // 1e276
    (0xac2820d9623bf429, 880),   // 1e284
    (0x80444b5e7aa7cf85, 907),   // 1e292
    (0xbf21e44003acdd2d, 933),   // 1e300
    (0x8e679c2f5e44ff8f, 960),   // 1e308
    (0xd433179d9c8cb841, 986),   // 1e316
    (0x9e19db92b4e31ba9, 1013),  // 1e324
    (0xeb96bf6ebadf77d9, 1039),  // 1e332
    (0xaf87023b9bf0ee6b, 1066),  // 1e340
];
const FIRST_POWER_EXP: i32 = -348;
const POWER_STEP: i32 = 8;
const TARGET_EXP_MIN: i32 = -60;
const TARGET_EXP_MAX: i32 = -32;

/// The significand/exponent of a finite, nonzero double (subnormals have no hidden bit).
fn build_fp(x: f64) -> Fp {
    let bits = x.to_bits();
    let frac = bits & FRAC_MASK;
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        Fp { f: frac, e: -1074 }
    } else {
        Fp {
            f: frac + HIDDEN_BIT,
            e: exp - 1075,
        }
    }
}

/// Shifts left until bit 63 is set.
fn normalize(fp: Fp) -> Fp {
    let s = fp.f.leading_zeros();
    Fp {
        f: fp.f << s,
        e: fp.e - s as i32,
    }
}

/// The normalized lower and upper boundaries of `w` (sharing the upper's exponent). The lower
/// boundary is closer when `w` is a power of two (the double below is half as far).
fn boundaries(w: Fp) -> (Fp, Fp) {
    let upper = normalize(Fp {
        f: (w.f << 1) + 1,
        e: w.e - 1,
    });
    let lower = if w.f == HIDDEN_BIT {
        Fp {
            f: (w.f << 2) - 1,
            e: w.e - 2,
        }
    } else {
        Fp {
            f: (w.f << 1) - 1,
            e: w.e - 1,
        }
    };
    let lower = Fp {
        f: lower.f << (lower.e - upper.e),
        e: upper.e,
    };
    (lower, upper)
}

/// The upper 64 bits of the 128-bit product, rounded half up.
fn multiply(a: Fp, b: Fp) -> Fp {
    let p = a.f as u128 * b.f as u128 + (1u128 << 63);
    Fp {
        f: (p >> 64) as u64,
        e: a.e + b.e + 64,
    }
}

/// The cached power whose product with a value of binary exponent `e` lands in
/// [TARGET_EXP_MIN, TARGET_EXP_MAX]; returns it with its decimal exponent.
fn cached_power(e: i32) -> (Fp, i32) {
    let approx = ((TARGET_EXP_MIN - e) as f64 * std::f64::consts::LOG10_2).ceil() as i32;
    let mut idx = ((approx - FIRST_POWER_EXP) / POWER_STEP).clamp(0, 86) as usize;
    loop {
        let (f, pe) = CACHED_POWERS[idx];
        let cur = e + pe + 64;
        if cur < TARGET_EXP_MIN && idx < 86 {
            idx += 1;
        } else if cur > TARGET_EXP_MAX && idx > 0 {
            idx -= 1;
        } else {
            return (Fp { f, e: pe }, FIRST_POWER_EXP + idx as i32 * POWER_STEP);
        }
    }
}

/// Lowers the last digit while the remainder `rem` (distance of the digits below the scaled
/// upper boundary) stays within `delta` and the result gets closer to `wfrac` (the scaled
/// distance of `v` below the upper boundary); `unit` is one step of the last digit.
fn round_digit(digits: &mut [u8], delta: u64, mut rem: u64, unit: u64, wfrac: u64) {
    let Some(last) = digits.last_mut() else {
        return;
    };
    while rem < wfrac
        && delta.wrapping_sub(rem) >= unit
        && (rem.wrapping_add(unit) < wfrac
            || wfrac.wrapping_sub(rem) > rem.wrapping_add(unit).wrapping_sub(wfrac))
    {
        *last = last.wrapping_sub(1);
        rem = rem.wrapping_add(unit);
    }
}

/// Grisu2 digits of a finite, nonzero double's magnitude: ASCII digits `d` and the decimal
/// exponent `k` with |x| ≈ d · 10^k (fpconv's digits; at most 18, usually the shortest).
pub fn grisu2(x: f64) -> (Vec<u8>, i32) {
    let w = build_fp(x.abs());
    let (lower, upper) = boundaries(w);
    let w = normalize(w);
    let (cp, k) = cached_power(upper.e);
    let w = multiply(w, cp);
    let mut upper = multiply(upper, cp);
    let mut lower = multiply(lower, cp);
    lower.f = lower.f.wrapping_add(1);
    upper.f = upper.f.wrapping_sub(1);
    let mut kexp = -k;

    let wfrac = upper.f.wrapping_sub(w.f);
    let mut delta = upper.f.wrapping_sub(lower.f);
    let shift = (-upper.e) as u32;
    let one = 1u64 << shift;
    let mut part1 = upper.f >> shift;
    let mut part2 = upper.f & (one - 1);
    let mut digits = Vec::with_capacity(20);

    // Integral part: divisors 10^9 .. 10^0.
    let mut div = 1_000_000_000u64;
    let mut kappa = 10;
    while kappa > 0 {
        let digit = part1 / div;
        if digit != 0 || !digits.is_empty() {
            digits.push(b'0' + digit as u8);
        }
        part1 -= digit * div;
        kappa -= 1;
        let rem = (part1 << shift).wrapping_add(part2);
        if rem <= delta {
            kexp += kappa;
            round_digit(&mut digits, delta, rem, div << shift, wfrac);
            return (digits, kexp);
        }
        div /= 10;
    }
    // Fraction: one digit per multiplication by ten.
    let mut unit = 10u64;
    loop {
        part2 = part2.wrapping_mul(10);
        delta = delta.wrapping_mul(10);
        kappa -= 1;
        let digit = part2 >> shift;
        if digit != 0 || !digits.is_empty() {
            digits.push(b'0' + digit as u8);
        }
        part2 &= one - 1;
        if part2 < delta {
            kexp += kappa;
            round_digit(&mut digits, delta, part2, one, wfrac.wrapping_mul(unit));
            return (digits, kexp);
        }
        unit = unit.wrapping_mul(10);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digits(x: f64) -> (String, i32) {
        let (d, k) = grisu2(x);
        (String::from_utf8(d).unwrap(), k)
    }

    #[test]
    fn grisu2_digits() {
        // Recorded: Valkey 9.1.2 ZSCORE 6.0004292606045106e+4, Redis 7.4.1 + RedisBloom
        // 227.22054951245931 (one digit longer than the shortest).
        assert_eq!(digits(60004.29260604511), ("60004292606045106".into(), -12));
        assert_eq!(digits(227.2205495124593), ("22722054951245931".into(), -14));
        assert_eq!(digits(1.618), ("1618".into(), -3));
        assert_eq!(digits(0.1), ("1".into(), -1));
        assert_eq!(digits(1e20), ("1".into(), 20));
        assert_eq!(digits(5e-324), ("5".into(), -324));
        assert_eq!(
            digits(f64::MAX).1 + digits(f64::MAX).0.len() as i32 - 1,
            308
        );
    }

    #[test]
    fn recorded_replies() {
        use crate::dialect::format_shortest;
        // Valkey 9.1.2 ZSCORE, Redis 7.4.1 + RedisBloom, and Redis 7.4.1 ZSCORE of 1e23
        // (score_format_diff).
        assert_eq!(format_shortest(60004.29260604511), "6.0004292606045106e+4");
        assert_eq!(format_shortest(227.2205495124593), "227.22054951245931");
        assert_eq!(format_shortest(1e23), "99999999999999990000000");
        assert_eq!(
            format_shortest(-4.385259394337463e229),
            "-4.3852593943374633e+229"
        );
    }

    #[test]
    fn grisu2_reads_back() {
        let mut r = fastrand::Rng::with_seed(0x9e37_79b9_7f4a_7c15);
        for _ in 0..200_000 {
            let x = f64::from_bits(r.u64(..));
            if !x.is_finite() || x == 0.0 {
                continue;
            }
            let (d, k) = digits(x);
            assert!(d.len() <= 18 && !d.starts_with('0'), "{x:e}: {d}");
            let back: f64 = format!("{d}e{k}").parse().unwrap();
            assert_eq!(back, x.abs(), "{x:e}: {d}e{k}");
        }
    }
}
