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

/// The "never panics" check over `n` mutated copies of `good` (from `seed`, see
/// [`mutations`]), loaded without checksum verification: a copy either fails with an error
/// whose offset lies within it, or loads, and then every command of `reads` (argv strings, `K`
/// standing for the key) answers on every loaded key under `profile`. Asserts that some
/// copies loaded and some were refused; returns (loaded, refused).
pub(crate) fn load_or_fail_then_read(
    good: &[u8],
    n: usize,
    seed: u64,
    reads: &[&[&str]],
    profile: &'static crate::dialect::Profile,
) -> (usize, usize) {
    let opts = super::LoadOptions {
        verify_checksum: false,
        ..super::LoadOptions::default()
    };
    let (mut loaded, mut refused) = (0, 0);
    for bytes in mutations(good, n, seed) {
        match super::load_rdb(&bytes, &opts) {
            Ok(snap) => {
                loaded += 1;
                for ks in snap.databases.values() {
                    let mut ks = ks.clone();
                    let keys: Vec<Vec<u8>> = ks.iter().map(|(k, _)| k.to_vec()).collect();
                    for k in keys {
                        for r in reads {
                            let argv: Vec<Vec<u8>> = r
                                .iter()
                                .map(|a| match *a {
                                    "K" => k.clone(),
                                    a => a.as_bytes().to_vec(),
                                })
                                .collect();
                            crate::command::execute_in(
                                &mut crate::command::Ctx::single(&mut ks, profile),
                                &argv,
                            );
                        }
                    }
                }
            }
            Err(e) => {
                refused += 1;
                assert!(e.offset <= bytes.len() as u64, "{e}");
            }
        }
    }
    assert!(
        loaded > 0 && refused > 0,
        "loaded {loaded}, refused {refused}"
    );
    (loaded, refused)
}
