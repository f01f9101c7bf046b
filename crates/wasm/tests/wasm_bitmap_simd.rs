//! On wasm32 with `simd128` (see .cargo/config.toml): the SIMD popcount, BITOP and BITPOS
//! block-skip kernels give exactly the scalar kernels' results, on random inputs of every
//! length class.
#![cfg(target_arch = "wasm32")]

use bitlens::bitmap::simd;
use wasm_bindgen_test::wasm_bindgen_test;

fn random_bytes(rng: &mut fastrand::Rng, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rng.fill(&mut v);
    v
}

#[wasm_bindgen_test]
fn simd_kernels_equal_scalar_on_wasm() {
    let mut rng = fastrand::Rng::with_seed(0x9e37_79b9_7f4a_7c15);
    for len in (0..200).chain([511, 512, 513, 4095, 4096, 70_000]) {
        let a = random_bytes(&mut rng, len);
        let b = random_bytes(&mut rng, len);
        assert_eq!(simd::popcount(&a), simd::scalar::popcount(&a), "len {len}");
        for (name, fast, slow) in simd::KERNEL_PAIRS {
            let (mut x, mut y) = (a.clone(), a.clone());
            fast(&mut x, &b);
            slow(&mut y, &b);
            assert_eq!(x, y, "{name} len {len}");
        }
        let (mut x, mut y) = (a.clone(), a.clone());
        simd::not_assign(&mut x);
        simd::scalar::not_assign(&mut y);
        assert_eq!(x, y);
        let (mut x, mut y, mut mx, mut my) = (a.clone(), a.clone(), b.clone(), b.clone());
        simd::one_step(&mut x, &mut mx, &b);
        simd::scalar::one_step(&mut y, &mut my, &b);
        assert_eq!((x, mx), (y, my));
        // BITPOS' block skip: runs of 0x00 / 0xFF blocks then one differing byte at every
        // position of the next block.
        for bit in [false, true] {
            let fill = if bit { 0x00 } else { 0xFF };
            assert_eq!(
                simd::skip_blocks(&a, bit),
                simd::scalar::skip_blocks(&a, bit),
                "len {len}"
            );
            let mut run = vec![fill; len];
            assert_eq!(simd::skip_blocks(&run, bit), len / 64 * 64, "len {len}");
            if len > 0 {
                let at = rng.usize(0..len);
                run[at] ^= 1 << rng.u8(0..8);
                assert_eq!(
                    simd::skip_blocks(&run, bit),
                    simd::scalar::skip_blocks(&run, bit),
                    "len {len} at {at}"
                );
                assert_eq!(
                    simd::skip_blocks(&run, bit),
                    at / 64 * 64,
                    "len {len} at {at}"
                );
            }
        }
    }
}
