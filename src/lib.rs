//! bitlens: answers Redis read commands on snapshots of bitmaps, HyperLogLogs and GEO sets,
//! with exactly the replies the server that wrote the snapshot gives, plus analytics Redis
//! lacks. The crate is the engine only: the views (memory model, report) are `crates/views`,
//! the CLI (rendering, demo data) is `crates/cli`.
//!
//! Layout (one responsibility per module; no cycles, see `scripts/module-graph.py`):
//! - [`rdb`]: RDB file / DUMP payload decoding, identification and a small RDB writer;
//!   `encoded` (crate-internal): the listpack / ziplist / intset / zipmap blob codecs the
//!   values and the file format share; [`num`]: integer text as Redis reads it.
//! - [`string`]: the string value type (dense bytes or paged), shared by bitmap and HLL code,
//!   with its Roaring codec; [`zset`], [`list`], [`set`], [`hash`], [`stream`]: the other
//!   types, kept in their encoded bytes and decoded on demand.
//! - [`bitmap`], [`hll`], [`geo`], [`probabilistic`]: the engines, free of command parsing.
//! - [`keyspace`]: keys to values, with expiry; [`loaded`]: what a server makes of a value
//!   when it loads it (OBJECT ENCODING and the shape memory is priced from).
//! - [`command`]: argv in, [`reply::Reply`] out, as the profile's server would answer;
//!   [`dialect`]: the server profiles; [`session`]: every database, SELECT, profile and clock.
//! - [`reply`]: RESP2 encoding and `redis-cli` formatting of replies; [`fpconv`]: score text.
//! - [`analytics`]: DAU, retention, streaks and the other analytics over bitmaps.
//!
//! The crate has no wasm, JavaScript or plotters dependency on any target. The views (the
//! memory model and report, key patterns, key detail and pages, classification) are
//! `crates/views`; the charts are `crates/charts`; the JavaScript API is two glue crates that
//! only convert: `crates/wasm` (the engine module, run in the panel's worker; its typed
//! options and results are `crates/wasm/src/types.rs`, whose TypeScript is generated into
//! `pkg/bitlens.d.ts`) and `crates/wasm-charts` (the page's chart module), both reading their
//! options objects through `crates/wasm-options`.
//!
//! # Examples
//! ```
//! use bitlens::rdb::{load_rdb, LoadOptions, RdbWriter};
//! use bitlens::{execute, Reply};
//!
//! let mut w = RdbWriter::new(Vec::new(), 11)?;
//! w.select_db(0)?;
//! w.write_string(b"counter", b"41", None)?;
//! let mut snap = load_rdb(&w.finish()?, &LoadOptions::default())?;
//! let ks = snap.databases.get_mut(&0).unwrap();
//! assert_eq!(execute(ks, &[b"GET".to_vec(), b"counter".to_vec()]), Reply::bulk("41"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

pub mod analytics;
pub mod bitmap;
pub mod command;
pub mod dialect;
pub(crate) mod encoded;
pub mod escape;
pub mod fpconv;
pub mod geo;
pub mod glob;
pub mod hash;
pub mod hll;
pub mod keyspace;
pub mod list;
pub mod loaded;
pub mod module_fields;
pub mod num;
pub mod open;
pub mod probabilistic;
pub mod rdb;
pub mod replica;
pub mod reply;
pub mod resp3;
pub mod server;
pub mod session;
pub mod set;
pub mod sort;
pub mod stream;
pub mod string;
pub mod thin;
pub mod vectorset;
pub mod zset;

pub use command::execute;
pub use keyspace::{Keyspace, Value};
pub use reply::Reply;
