//! bitlens snapshots as columnar data: one row per key, as Arrow record batches, and the
//! files `bitlens export` writes from them (Parquet with zstd, Arrow IPC, CSV, JSON lines).
//!
//! The row of a key is what `bitlens inspect` computes for it, through the same core code:
//! [`bitlens_views::report::KeyRow::new`] (TYPE, OBJECT ENCODING and the MEMORY USAGE estimate of
//! the writer's profile, element count, largest element, expiry) and
//! [`bitlens_views::classify::figures`] (class, bits set, PFCOUNT, GEO bounding box), plus the
//! partition columns (`cluster`, `batch`, `instance`), the record's size in the file and the
//! key's cluster slot ([`bitlens_views::report::key_slot`]). The columns are [`schema::schema`]'s,
//! versioned by [`schema::SCHEMA_VERSION`] in the schema metadata (and so in every Parquet
//! and Arrow file).
//!
//! - [`scan`]: one snapshot file, opened once by the caller ([`Source`]: every pass reads that
//!   handle), read in windows by the core's chunked reader, as batches of
//!   at most [`scan::ScanOptions::batch_rows`] rows (memory: one window, one value, one
//!   batch), pushed to a callback; [`scan::Batches`] pulls them from a producer thread.
//! - [`write`]: many files in parallel (a bounded number of threads), each into its hive
//!   partition `cluster=…/batch=…/instance=…/part-N.<ext>`.

pub mod scan;
pub mod schema;
pub mod write;

pub use scan::{scan_file, Batches, Partition, ScanError, ScanOptions, Scanned, Source};
pub use schema::{file_schema, schema, SCHEMA_VERSION, SCHEMA_VERSION_KEY};
pub use write::{export_files, instance_names, ExportOptions, Exported, Format, InstanceFrom};

/// The `arrow` and `parquet` crates this one builds on, for readers of its batches and files
/// (the same versions, so the types match).
pub use arrow;
pub use parquet;
