//! Test support: mutated copies of an RDB file for the "never panics" tests of the decoders.
//! Each copy has one bit flipped after the 9-byte magic and, one time in five, is also cut at
//! that byte. Seeded `fastrand`, so a failing copy is reproducible.

/// `n` mutated copies of `good` (an RDB file longer than its 9-byte header), from `seed`.
pub(crate) fn mutations(good: &[u8], n: usize, seed: u64) -> impl Iterator<Item = Vec<u8>> + '_ {
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..n).map(move |_| {
        let mut bytes = good.to_vec();
        let at = rng.usize(9..bytes.len());
        bytes[at] ^= 1 << rng.u8(0..8);
        if rng.u8(0..5) == 0 {
            bytes.truncate(at);
        }
        bytes
    })
}
