//! The parts of the `bitlens` CLI that its integration tests read too.
//!
//! - [`demo`]: the built-in demo data set `bitlens serve` exports when no Redis is given.

pub mod demo;
