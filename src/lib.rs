//! bitlens: answers Redis read commands on snapshots of bitmaps, HyperLogLogs and GEO sets,
//! with exactly the replies Redis 7 gives, plus analytics Redis lacks.
//!
//! Layout (one responsibility per module):
//! - [`rdb`]: RDB file / DUMP payload decoding and a small RDB writer.
//! - [`string`]: the string value type (dense bytes, later sparse) shared by bitmap and HLL code.
//! - [`zset`]: sorted sets (GEO keys are sorted sets); [`list`], [`set`], [`hash`], [`stream`]:
//!   the other core types, kept in their encoded bytes and decoded on demand.
//! - [`bitmap`], [`hll`], [`geo`]: the engines, free of any command parsing.
//! - [`classify`]: what a value is beyond its type (counter, bitmap, HLL, GEO set), the one
//!   rule every view uses.
//! - [`keyspace`]: keys to values, with expiry; [`keydetail`]: per-key summaries for a key browser.
//! - [`command`]: argv in, [`reply::Reply`] out, as the profile's server would answer;
//!   [`dialect`]: the server profiles; [`session`]: every database, SELECT, profile and clock.
//! - [`reply`]: RESP2 encoding and `redis-cli` (non-tty) formatting of replies.
//! - `wasm` (wasm32 only): the JavaScript API; `wasm_charts`: its chart drawing on canvases.

pub mod analytics;
pub mod bitmap;
#[cfg(any(feature = "charts", target_arch = "wasm32"))]
pub mod chart;
pub mod classify;
pub mod command;
pub mod dialect;
pub(crate) mod encoded;
pub mod fpconv;
pub mod geo;
pub mod glob;
pub mod hash;
pub mod hll;
#[cfg(feature = "report")]
pub mod inspect;
pub mod keydetail;
pub mod keypage;
pub mod keyspace;
pub mod list;
pub mod num;
pub mod probabilistic;
pub mod rdb;
pub mod reply;
pub mod session;
pub mod set;
pub mod stream;
pub mod string;
pub mod zset;

#[cfg(target_arch = "wasm32")]
pub mod wasm;
#[cfg(target_arch = "wasm32")]
pub mod wasm_charts;

pub use command::execute;
pub use keyspace::{Keyspace, Value};
pub use reply::Reply;
