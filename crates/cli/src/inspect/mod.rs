//! `bitlens inspect`'s rendering: the report is the views crate's
//! ([`bitlens_views::inspect`]: options, filters, the scan, the spill, the build and the JSON
//! document); the CLI adds plain text and rdbtools' memory CSV ([`render`]) and the text and
//! CSV of `--series` ([`series`]).

pub mod render;
pub mod series;

pub use bitlens_views::inspect::*;
