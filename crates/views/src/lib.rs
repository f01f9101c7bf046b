//! bitlens' views: what the panel, the CLI's `inspect` and the exports show about a loaded
//! snapshot, computed over the engine (`bitlens`) and never inside it.
//!
//! - [`memory`]: the estimate of `MEMORY USAGE key SAMPLES 0` on the snapshot's writer (the
//!   allocator inferred from the file's `used-mem`) and the memory ledger (what a key would
//!   cost in another representation);
//! - [`report`]: the memory report over every database: per type, pattern and prefix, the TTL
//!   histogram, the largest keys; [`patterns`]: keys grouped into exact `KEYS` patterns;
//! - [`classify`]: what a value is beyond its type (counter, bitmap, HLL, GEO set), the one
//!   rule every view uses;
//! - [`keydetail`]: per-key summaries and detail for the key browser; [`keypage`]: a page of
//!   keys matching a pattern.
//!
//! What a server makes of a value at load (OBJECT ENCODING, the shape the memory model
//! prices) is the engine's ([`bitlens::loaded`]), since OBJECT ENCODING is a command it
//! answers.

#![warn(missing_docs)]

pub mod classify;
#[cfg(feature = "fs")]
pub mod inspect;
pub mod keydetail;
pub mod keypage;
pub mod memory;
#[cfg(feature = "fs")]
pub mod overlap;
pub mod patterns;
pub mod report;
pub mod template;
