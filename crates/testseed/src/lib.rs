//! The seed of every randomized test in the workspace.
//!
//! A randomized test takes its seed from [`seed`]: the integer in `BITLENS_SEED` when it is
//! set (to replay a run), else a fresh one. Either way the seed is printed as
//! `BITLENS_SEED=<seed>` before the test uses it, so that a failing run names the line that
//! replays it. `scripts/seed-sweep.sh` finds the randomized tests by their calls to this crate
//! (`bitlens_testseed::seed`), unit tests included, and runs each over many seeds
//! (`bash scripts/seed-sweep.sh --list` prints the files it found).

/// The environment variable a randomized test replays its seed from.
pub const SEED_VAR: &str = "BITLENS_SEED";

/// The seed of a randomized test: `BITLENS_SEED` (a decimal `u64`, surrounding blanks allowed)
/// when set, else a fresh random one. Printed as `BITLENS_SEED=<seed>` on standard output.
///
/// Panics when `BITLENS_SEED` is set but is not a `u64`: a replay that silently ran another
/// seed would pass or fail for the wrong reason.
pub fn seed() -> u64 {
    let seed = match std::env::var(SEED_VAR) {
        Ok(s) => s
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{SEED_VAR}={s:?} is not a 64-bit unsigned integer")),
        Err(_) => fastrand::u64(..),
    };
    println!("{SEED_VAR}={seed}");
    seed
}

/// A generator seeded by [`seed`].
pub fn rng() -> fastrand::Rng {
    fastrand::Rng::with_seed(seed())
}

#[cfg(test)]
mod tests {
    /// The variable's value is the seed; the generator it makes is the one `with_seed` makes.
    #[test]
    fn the_variable_replays_a_seed() {
        // Set and read in one test only (the environment is shared by the test threads).
        std::env::set_var(super::SEED_VAR, " 1234567890123 ");
        assert_eq!(super::seed(), 1_234_567_890_123);
        assert_eq!(
            super::rng().u64(..),
            fastrand::Rng::with_seed(1_234_567_890_123).u64(..)
        );
        std::env::remove_var(super::SEED_VAR);
    }
}
