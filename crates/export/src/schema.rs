//! The export schema (one row per key) and the builder of its record batches.
//!
//! Version [`SCHEMA_VERSION`] ("2": `expired` added after `expire_at`; files no longer carry
//! the partition columns), in the Arrow schema metadata under [`SCHEMA_VERSION_KEY`] (Parquet
//! keeps it in its key-value metadata too). Columns, in order (Arrow types; the README's "With
//! your data tools" section has the same table). `cluster`, `batch` and `instance` are the
//! hive partition: the record batches of [`BatchBuilder`] (what Python's `scan()` hands over)
//! carry them as columns, the written files only in their directory names
//! ([`file_schema`]), so that every hive reader (pandas, pyarrow datasets, Dask, Spark,
//! DuckDB, Polars) types them once, from the paths:
//!
//! | column | type | meaning |
//! |---|---|---|
//! | `cluster` | utf8 | `--cluster` (default `default`) |
//! | `batch` | utf8 | `--batch`, else the snapshot's `ctime` aux field (Unix seconds), else `unknown` |
//! | `instance` | utf8 | `--instance`, else the file name |
//! | `db` | int64 | database number |
//! | `key` | binary | the key bytes |
//! | `key_display` | utf8 | the key as redis-cli shows it ([`bitlens::escape::display`]) |
//! | `type` | utf8 | TYPE |
//! | `encoding` | utf8, null | OBJECT ENCODING on the writer's profile (null: not modelled) |
//! | `memory` | int64, null | the MEMORY USAGE estimate `inspect` gives (null: not modelled) |
//! | `rdb_bytes` | int64 | bytes the value's encoding takes in the file (after the key) |
//! | `elements` | int64 | 1 for a string, else the element count (as `inspect --csv`) |
//! | `largest_element` | int64 | STRLEN of a string, else the longest member/field/value |
//! | `expire_at` | timestamp(ms, "+00:00"), null | absolute expiry; null without TTL |
//! | `expired` | bool | gone at the snapshot's save time (`ctime`): its expiry is past, or it is a hash whose every field expired, so the server that loads the file drops it and `DBSIZE` does not count it |
//! | `idle_s` | int64, null | LRU idle seconds (RDB_OPCODE_IDLE); null when absent |
//! | `lfu_freq` | int32, null | LFU counter (RDB_OPCODE_FREQ); null when absent |
//! | `slot` | int32 | cluster slot, CRC16 of the key or its hash tag mod 16384 |
//! | `class` | utf8 | `counter`, `text`, `bitmap`, `hll`, `corrupt_hll`, `geo`, `zset`, else TYPE |
//! | `bits_set` | int64, null | bitmaps: BITCOUNT |
//! | `hll_count` | int64, null | HyperLogLogs: PFCOUNT |
//! | `geo_min_lon` … `geo_max_lat` | float64, null | GEO sets: members' bounding box, degrees |

use std::sync::Arc;

use arrow::array::{
    ArrayRef, BinaryBuilder, BooleanBuilder, Float64Builder, Int32Builder, Int64Builder,
    StringBuilder, TimestampMillisecondBuilder,
};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use arrow::record_batch::RecordBatch;
use bitlens_views::classify::{Class, Figures};
use bitlens_views::inspect::spill::{KeyStats, RecordFacts};
use bitlens_views::report::KeyRow;

/// The schema version written in the metadata (bumped when a column changes meaning, type or
/// position).
pub const SCHEMA_VERSION: &str = "2";

/// The metadata key of [`SCHEMA_VERSION`].
pub const SCHEMA_VERSION_KEY: &str = "bitlens.schema_version";

/// The export schema (see the module docs), with the version in its metadata.
pub fn schema() -> SchemaRef {
    let utf8 = |n: &str, null: bool| Field::new(n, DataType::Utf8, null);
    let i64f = |n: &str, null: bool| Field::new(n, DataType::Int64, null);
    let f64f = |n: &str| Field::new(n, DataType::Float64, true);
    let fields = vec![
        utf8("cluster", false),
        utf8("batch", false),
        utf8("instance", false),
        i64f("db", false),
        Field::new("key", DataType::Binary, false),
        utf8("key_display", false),
        utf8("type", false),
        utf8("encoding", true),
        i64f("memory", true),
        i64f("rdb_bytes", false),
        i64f("elements", false),
        i64f("largest_element", false),
        Field::new(
            "expire_at",
            DataType::Timestamp(TimeUnit::Millisecond, Some("+00:00".into())),
            true,
        ),
        Field::new("expired", DataType::Boolean, false),
        i64f("idle_s", true),
        Field::new("lfu_freq", DataType::Int32, true),
        Field::new("slot", DataType::Int32, false),
        utf8("class", false),
        i64f("bits_set", true),
        i64f("hll_count", true),
        f64f("geo_min_lon"),
        f64f("geo_min_lat"),
        f64f("geo_max_lon"),
        f64f("geo_max_lat"),
    ];
    let meta = [(SCHEMA_VERSION_KEY.to_string(), SCHEMA_VERSION.to_string())];
    Arc::new(
        Schema::new(fields).with_metadata(
            meta.into_iter()
                .collect::<std::collections::HashMap<_, _>>(),
        ),
    )
}

/// How many leading columns of [`schema`] are the hive partition (`cluster`, `batch`,
/// `instance`).
pub const PARTITION_COLUMNS: usize = 3;

/// The schema of the written files: [`schema`] without the partition columns, which live in
/// the directory names only (see the module docs); the same metadata.
pub fn file_schema() -> SchemaRef {
    let full = schema();
    let kept: Vec<usize> = (PARTITION_COLUMNS..full.fields().len()).collect();
    Arc::new(full.project(&kept).expect("indices within the schema"))
}

/// The name of a class in the `class` column.
pub fn class_name(class: Class, row: &KeyRow) -> String {
    match class {
        Class::Counter => "counter".into(),
        Class::Text => "text".into(),
        Class::Bitmap => "bitmap".into(),
        Class::Hll(_) => "hll".into(),
        Class::CorruptHll => "corrupt_hll".into(),
        Class::Geo => "geo".into(),
        Class::ZSet => "zset".into(),
        _ => row.type_name.clone(),
    }
}

/// One key's row: what `inspect` computes for it plus what the export adds.
#[derive(Debug, Clone)]
pub struct KeyRecord {
    /// TYPE, encoding, memory, lengths, expiry ([`KeyRow::new`]).
    pub row: KeyRow,
    /// Class and its figures ([`bitlens_views::classify::figures`]).
    pub figures: Figures,
    /// Bytes the value's encoding takes in the file.
    pub rdb_bytes: u64,
    /// LRU idle seconds and LFU counter, when the file has them.
    pub idle_s: Option<u64>,
    pub lfu_freq: Option<u8>,
    /// Past its expiry at the snapshot's save time (see the `expired` column).
    pub expired: bool,
}

impl KeyRecord {
    /// The record of a key whose row is `row`, whose figures are in `stats`
    /// ([`KeyStats::of`], the class being `facts`'), and whose record in the file says
    /// `facts`: how a scan turns what it read (or spilled) into a row of the schema.
    pub fn new(row: KeyRow, stats: &KeyStats, facts: &RecordFacts) -> KeyRecord {
        KeyRecord {
            row,
            figures: stats.figures(facts.class),
            rdb_bytes: facts.rdb_bytes,
            idle_s: facts.idle_s,
            lfu_freq: facts.lfu_freq,
            expired: facts.expired,
        }
    }
}

/// Where a file's rows go: the partition values every row carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionValues {
    pub cluster: String,
    pub batch: String,
    pub instance: String,
}

/// Builds record batches of the export schema, a row at a time.
pub struct BatchBuilder {
    schema: SchemaRef,
    rows: usize,
    cluster: StringBuilder,
    batch: StringBuilder,
    instance: StringBuilder,
    db: Int64Builder,
    key: BinaryBuilder,
    key_display: StringBuilder,
    type_: StringBuilder,
    encoding: StringBuilder,
    memory: Int64Builder,
    rdb_bytes: Int64Builder,
    elements: Int64Builder,
    largest: Int64Builder,
    expire_at: TimestampMillisecondBuilder,
    expired: BooleanBuilder,
    idle_s: Int64Builder,
    lfu_freq: Int32Builder,
    slot: Int32Builder,
    class: StringBuilder,
    bits_set: Int64Builder,
    hll_count: Int64Builder,
    geo: [Float64Builder; 4],
}

impl Default for BatchBuilder {
    fn default() -> Self {
        BatchBuilder::new()
    }
}

/// A u64 figure in an int64 column (saturating: no key holds 2^63 of anything).
fn i64_of(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

impl BatchBuilder {
    /// An empty builder.
    pub fn new() -> BatchBuilder {
        BatchBuilder {
            schema: schema(),
            rows: 0,
            cluster: StringBuilder::new(),
            batch: StringBuilder::new(),
            instance: StringBuilder::new(),
            db: Int64Builder::new(),
            key: BinaryBuilder::new(),
            key_display: StringBuilder::new(),
            type_: StringBuilder::new(),
            encoding: StringBuilder::new(),
            memory: Int64Builder::new(),
            rdb_bytes: Int64Builder::new(),
            elements: Int64Builder::new(),
            largest: Int64Builder::new(),
            expire_at: TimestampMillisecondBuilder::new().with_timezone("+00:00"),
            expired: BooleanBuilder::new(),
            idle_s: Int64Builder::new(),
            lfu_freq: Int32Builder::new(),
            slot: Int32Builder::new(),
            class: StringBuilder::new(),
            bits_set: Int64Builder::new(),
            hll_count: Int64Builder::new(),
            geo: std::array::from_fn(|_| Float64Builder::new()),
        }
    }

    /// Rows added since the last [`BatchBuilder::finish`].
    pub fn len(&self) -> usize {
        self.rows
    }

    /// True when no row was added since the last [`BatchBuilder::finish`].
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Adds one key's row.
    pub fn push(&mut self, part: &PartitionValues, k: &KeyRecord) {
        let r = &k.row;
        self.rows += 1;
        self.cluster.append_value(&part.cluster);
        self.batch.append_value(&part.batch);
        self.instance.append_value(&part.instance);
        self.db.append_value(i64_of(r.db));
        self.key.append_value(&r.key);
        self.key_display
            .append_value(bitlens::escape::display(&r.key));
        self.type_.append_value(&r.type_name);
        self.encoding
            .append_option((r.encoding != "?").then_some(r.encoding));
        self.memory.append_option(r.memory.map(i64_of));
        self.rdb_bytes.append_value(i64_of(k.rdb_bytes));
        let elements = if r.type_name == "string" { 1 } else { r.len };
        self.elements.append_value(i64_of(elements));
        self.largest.append_value(i64_of(r.largest));
        self.expire_at.append_option(r.expire_at_ms);
        self.expired.append_value(k.expired);
        self.idle_s.append_option(k.idle_s.map(i64_of));
        self.lfu_freq.append_option(k.lfu_freq.map(i32::from));
        self.slot
            .append_value(i32::from(bitlens_views::report::key_slot(&r.key)));
        self.class.append_value(class_name(k.figures.class, r));
        self.bits_set
            .append_option(k.figures.bitmap.map(|(set, _)| i64_of(set)));
        self.hll_count
            .append_option(k.figures.hll_count.map(i64_of));
        for (i, b) in self.geo.iter_mut().enumerate() {
            b.append_option(k.figures.geo_bbox.map(|bb| bb[i]));
        }
    }

    /// The rows added so far as one record batch; the builder is empty again.
    pub fn finish(&mut self) -> RecordBatch {
        self.rows = 0;
        let mut cols: Vec<ArrayRef> = vec![
            Arc::new(self.cluster.finish()),
            Arc::new(self.batch.finish()),
            Arc::new(self.instance.finish()),
            Arc::new(self.db.finish()),
            Arc::new(self.key.finish()),
            Arc::new(self.key_display.finish()),
            Arc::new(self.type_.finish()),
            Arc::new(self.encoding.finish()),
            Arc::new(self.memory.finish()),
            Arc::new(self.rdb_bytes.finish()),
            Arc::new(self.elements.finish()),
            Arc::new(self.largest.finish()),
            Arc::new(self.expire_at.finish()),
            Arc::new(self.expired.finish()),
            Arc::new(self.idle_s.finish()),
            Arc::new(self.lfu_freq.finish()),
            Arc::new(self.slot.finish()),
            Arc::new(self.class.finish()),
            Arc::new(self.bits_set.finish()),
            Arc::new(self.hll_count.finish()),
        ];
        for b in &mut self.geo {
            cols.push(Arc::new(b.finish()));
        }
        RecordBatch::try_new(self.schema.clone(), cols)
            .expect("the builders follow the schema column for column")
    }
}
