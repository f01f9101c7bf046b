//! The parts of the `bitlens` CLI that its integration tests read too.
//!
//! - [`demo`]: the built-in demo data set `bitlens serve` exports when no Redis is given;
//!   [`demo_views`] adds the keys of the panel's seed views (April sign-ins, crowds, offsets).
//! - [`dump`] / [`diff`]: `bitlens dump` (JSON lines, RESP commands) and `bitlens diff`.
//! - [`inspect`]: the `bitlens inspect` report (memory, top keys, prefixes, TTL, CSV).

pub mod demo;
pub mod demo_views;
pub mod diff;
pub mod dump;
pub mod inspect;
