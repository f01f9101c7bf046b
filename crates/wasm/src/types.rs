//! The typed options and results of the JS API. Options are read with serde
//! (`serde-wasm-bindgen`) from the caller's plain object; results are written the same way.
//! `tsify` writes each type's TypeScript declaration into wasm-bindgen's `pkg/bitlens.d.ts`,
//! which is the published declaration of the engine module: the shapes below are the API.
//!
//! Conventions: field names are lowerCamelCase in JS (except [`SnapshotInfo`]'s, which keep
//! the core's snake_case); counts, sizes in bytes and times in Unix milliseconds are JS
//! numbers (exact up to 2^53); an absent value is `null`; an option left out (or `null`) takes
//! its default. A bad option throws an `Error` of kind `argument` naming it.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::throw;

/// `options` read as `T` (its defaults when `undefined` or `null`); a bad field throws an
/// `Error` of kind `argument` naming it (`options.top: invalid type: string "x", expected
/// u32`; see `bitlens_wasm_options::read`).
pub(crate) fn options<T>(options: Option<Ts<T>>) -> Result<T, JsError>
where
    T: Tsify + DeserializeOwned + Default,
    T::JsType: JsCast,
{
    let Some(options) = options else {
        return Ok(T::default());
    };
    bitlens_wasm_options::read(&options.js_value(), "options").map_err(|e| throw(e.to_string()))
}

/// `value` as its JS object (`Tsify` serialisation: `None` as `null`, maps as objects).
pub(crate) fn result<T: Tsify + Serialize>(value: &T) -> Result<Ts<T>, JsError> {
    Ts::from_rust(value).map_err(|e| throw(format!("cannot convert a result: {e}")))
}

/// `value` as a plain `JsValue` (for results that may be `null`, typed by the export's
/// `unchecked_return_type`).
pub(crate) fn nullable<T: Tsify + Serialize>(value: Option<&T>) -> Result<JsValue, JsError> {
    match value {
        None => Ok(JsValue::NULL),
        Some(v) => Ok(result(v)?.js_value().clone()),
    }
}

#[wasm_bindgen(typescript_custom_section)]
const SHARED_TYPES: &'static str = r#"
/** One command argument: a string (sent as UTF-8), a number (as JS `String(n)`) or raw bytes. */
export type Arg = string | number | Uint8Array;

/** A key name: a string (UTF-8) or raw bytes. */
export type KeyName = string | Uint8Array;

/**
 * A reply of `Engine.command` (RESP2 mapped to JS): integer → number (exact up to 2^53), bulk or
 * status string → string (invalid UTF-8 replaced by U+FFFD), nil → `null`, array → array
 * (nested). An error reply is thrown; an error nested in an array is an `Error` element.
 */
export type Reply = number | string | null | Error | Reply[];

/** A reply of `Engine.commandRaw`: as {@link Reply}, but bulk strings are `Uint8Array`. */
export type RawReply = number | string | Uint8Array | null | Error | RawReply[];

/**
 * What the engine throws (worker or in-page: the same fields): an `EngineError`
 * (www/engine-error.js; the package exports the class) whose `message` is the error's text
 * (Redis' own for an error reply), with
 * - `code` (and `kind`, its earlier name): `'reply'` (a Redis error reply), `'duplicate-key'`
 *   (two files hold `key`), `'argument'` (a bad argument or option, and every other error),
 *   `'empty'` (a 0-byte input), or an RDB / DUMP decoding error's kind: `'truncated'`,
 *   `'unsupported-version'`, `'checksum'`, `'unknown-type'`, `'unsupported'`, `'corrupt'`,
 *   `'incompatible'`, `'read'`, `'write'`, `'cancelled'`, `'too-large'` (a string longer than
 *   the load's limit on one value, 512 MB); reading paths in Node (readSnapshotFiles) adds
 *   `'not-found'`, `'is-a-directory'`, `'not-a-regular-file'`, `'permission-denied'`, `'io'`;
 * - `offset`: the byte offset of the input where a decoding error was found;
 * - `key`: the key concerned, when known (UTF-8; the message quotes non-UTF-8 bytes exactly);
 * - `path`: the file's name (`loadRdbs`' `names`) or path, when known.
 */
export type BitmapDetail = KeyInfo & Extract<DetailKind, { kind: "bitmap" }>;
export type HllDetail = KeyInfo & Extract<DetailKind, { kind: "hll" }>;
export type GeoDetail = KeyInfo & Extract<DetailKind, { kind: "geo" }>;
export type BloomDetail = KeyInfo & Extract<DetailKind, { kind: "bloom" }>;
export type CuckooDetail = KeyInfo & Extract<DetailKind, { kind: "cuckoo" }>;
export type CmsDetail = KeyInfo & Extract<DetailKind, { kind: "cms" }>;
export type TopKDetail = KeyInfo & Extract<DetailKind, { kind: "topk" }>;
export type TDigestDetail = KeyInfo & Extract<DetailKind, { kind: "tdigest" }>;
export type OtherDetail = KeyInfo & Extract<DetailKind, { kind: "other" }>;

export type EngineErrorCode = 'reply' | 'duplicate-key' | 'argument' | 'empty' | 'truncated'
  | 'unsupported-version' | 'checksum' | 'unknown-type' | 'unsupported' | 'corrupt'
  | 'incompatible' | 'read' | 'write' | 'cancelled' | 'too-large' | 'not-found'
  | 'is-a-directory' | 'not-a-regular-file' | 'permission-denied' | 'io';

export interface EngineError extends Error {
  name: 'EngineError';
  code: EngineErrorCode;
  kind: EngineErrorCode;
  offset?: number;
  key?: string;
  path?: string;
}
"#;

/// Options of `Engine.loadRdb` and `new RdbStream`.
#[derive(Tsify, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct LoadRdbOptions {
    /// Redis glob patterns (text, or the exact bytes of a non-UTF-8 glob): keys matching none
    /// of them are skipped without being decoded.
    #[serde(with = "serde_wasm_bindgen::preserve")]
    #[tsify(optional, type = "KeyName[]")]
    pub patterns: JsValue,
    /// `false` skips the file's CRC-64 check (default: checked when the file has one).
    #[tsify(optional)]
    pub checksum: Option<bool>,
    /// Answer as this server profile (`redis-7.0`, `valkey-9.0`, …; see `profiles()`) instead
    /// of the file's writer.
    #[tsify(optional)]
    pub compat: Option<String>,
    /// The clock expiry is judged at: `'snapshot'` (the file's `ctime`, else now; the
    /// default), `'now'`, or Unix milliseconds.
    #[serde(with = "serde_wasm_bindgen::preserve")]
    #[tsify(optional, type = "\"snapshot\" | \"now\" | number")]
    pub clock: JsValue,
    /// Called at most every ~1 MiB of input and once at the end, with byte counts; an
    /// exception it throws stops the load. (Unused by `RdbStream`.)
    #[serde(with = "serde_wasm_bindgen::preserve")]
    #[tsify(optional, type = "(doneBytes: number, totalBytes: number) => void")]
    pub on_progress: JsValue,
}

/// What `Engine.loadRdbs` does with a key held by two files (read from its name only).
#[derive(Tsify, Deserialize, Default, Clone, Copy, Debug, PartialEq)]
#[serde(try_from = "String")]
#[tsify(type = "\"error\" | \"first\" | \"last\"")]
pub enum OnDuplicate {
    /// Refused: the `Error` (kind `duplicate-key`) names the key and both files (default).
    #[default]
    Error,
    /// The first file's entry is kept.
    First,
    /// The last file's entry is kept.
    Last,
}

/// Options of `Engine.loadRdbs`: those of `loadRdb`, per file, plus the files' names and what
/// to do with a key two files hold.
#[derive(Tsify, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct LoadRdbsOptions {
    /// As `LoadRdbOptions.patterns`.
    #[serde(with = "serde_wasm_bindgen::preserve")]
    #[tsify(optional, type = "KeyName[]")]
    pub patterns: JsValue,
    /// As `LoadRdbOptions.checksum`.
    #[tsify(optional)]
    pub checksum: Option<bool>,
    /// As `LoadRdbOptions.compat`.
    #[tsify(optional)]
    pub compat: Option<String>,
    /// As `LoadRdbOptions.clock` (judged at the first file's `ctime` by default).
    #[serde(with = "serde_wasm_bindgen::preserve")]
    #[tsify(optional, type = "\"snapshot\" | \"now\" | number")]
    pub clock: JsValue,
    /// The files' names, for errors and `Engine.files` (default, and for a `null` entry:
    /// `file 1`, `file 2`, …).
    #[tsify(optional)]
    pub names: Option<Vec<Option<String>>>,
    /// A key held by two files: refused (`'error'`, default), or one file's entry kept.
    #[tsify(optional)]
    pub on_duplicate: Option<OnDuplicate>,
    /// Called at most every ~1 MiB of each file and once at its end, with its byte counts and
    /// its index in `sources`.
    #[serde(with = "serde_wasm_bindgen::preserve")]
    #[tsify(
        optional,
        type = "(doneBytes: number, totalBytes: number, file: number) => void"
    )]
    pub on_progress: JsValue,
}

/// Options of `Engine.loadDump`.
#[derive(Tsify, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct LoadDumpOptions {
    /// `false` skips the payload's CRC-64 check.
    #[tsify(optional)]
    pub checksum: Option<bool>,
    /// Time to live in milliseconds (as `RESTORE key ttl`), counted from the engine's clock
    /// (now on a fresh engine); none by default.
    #[tsify(optional)]
    pub ttl_ms: Option<f64>,
    /// Answer as this server profile (without it, a fresh engine takes the payload's RDB
    /// version's writer).
    #[tsify(optional)]
    pub compat: Option<String>,
}

/// Options of `Engine.keyList`.
#[derive(Tsify, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct KeyListOptions {
    /// List keys already expired at the clock too (their `ttlMs` is then negative).
    #[tsify(optional)]
    pub expired: Option<bool>,
}

/// Options of `Engine.keyDetail`.
#[derive(Tsify, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct KeyDetailOptions {
    /// Number of density buckets of a bitmap (default 256, 1 to 65536).
    #[tsify(optional)]
    pub buckets: Option<u32>,
    /// Maximum number of GEO points returned, the first by score (default 1000).
    #[tsify(optional)]
    pub max_points: Option<u32>,
}

/// The writer build's allocator, which memory is priced for (as `inspect --allocator`; read
/// from its name only).
#[derive(Tsify, Deserialize, Clone, Copy, Debug, PartialEq)]
#[serde(try_from = "String")]
#[tsify(type = "\"jemalloc\" | \"jemalloc16\" | \"libc\"")]
pub enum AllocatorOption {
    /// jemalloc with 8-byte size classes (Redis' default build).
    Jemalloc,
    /// jemalloc with 16-byte classes (arm64 builds).
    Jemalloc16,
    /// glibc malloc (`make MALLOC=libc`, distribution packages of Valkey).
    Libc,
}

impl TryFrom<String> for OnDuplicate {
    type Error = String;

    fn try_from(name: String) -> Result<Self, String> {
        match name.as_str() {
            "error" => Ok(OnDuplicate::Error),
            "first" => Ok(OnDuplicate::First),
            "last" => Ok(OnDuplicate::Last),
            _ => Err(format!("{name:?} is not one of 'error', 'first', 'last'")),
        }
    }
}

impl TryFrom<String> for AllocatorOption {
    type Error = String;

    fn try_from(name: String) -> Result<Self, String> {
        match name.as_str() {
            "jemalloc" => Ok(AllocatorOption::Jemalloc),
            "jemalloc16" => Ok(AllocatorOption::Jemalloc16),
            "libc" => Ok(AllocatorOption::Libc),
            _ => Err(format!(
                "{name:?} is not one of 'jemalloc', 'jemalloc16', 'libc'"
            )),
        }
    }
}

/// Options of `Engine.memoryReport`.
#[derive(Tsify, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct MemoryReportOptions {
    /// Keys listed in `top` (default 20).
    #[tsify(optional)]
    pub top: Option<u32>,
    /// Pattern rows listed in `byPattern` (default 50).
    #[tsify(optional)]
    pub patterns: Option<u32>,
    /// Days of the `expiring` window, 1 to 366 (default 7).
    #[tsify(optional)]
    pub days: Option<u32>,
    /// The writer build's allocator (default: inferred from the snapshot's `used-mem`).
    #[tsify(optional)]
    pub allocator: Option<AllocatorOption>,
    /// Prefix separators, ASCII characters (default `':'`), as `inspect --separator`.
    #[tsify(optional)]
    pub separators: Option<String>,
    /// Prefix tree depth (default 2), as `inspect --depth`.
    #[tsify(optional)]
    pub depth: Option<u32>,
    /// Compute the memory ledger per pattern (default false), as `inspect --ledger`.
    #[tsify(optional)]
    pub ledger: Option<bool>,
    /// `'GLOB=TYPE'` specs: keys priced as BITFIELD state (as `inspect --bitfield`).
    #[tsify(optional)]
    pub bitfield: Option<Vec<String>>,
}

/// Options of `Engine.keyLedger`.
#[derive(Tsify, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct KeyLedgerOptions {
    /// As `MemoryReportOptions.allocator`.
    #[tsify(optional)]
    pub allocator: Option<AllocatorOption>,
    /// As `MemoryReportOptions.bitfield`.
    #[tsify(optional)]
    pub bitfield: Option<Vec<String>>,
}

/// One file of `Engine.loadRdbs`, as `Engine.files()` gives it.
#[derive(Tsify, Serialize)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct LoadedFile {
    /// The name given in `options.names` (default `file 1`, …).
    pub name: String,
    /// Who wrote it (`Redis 7.0.15 (REDIS0010: Redis RDB 10)`).
    pub writer: String,
    /// Its keys alive at the clock.
    pub keys: f64,
    /// Of those, keys with an expiry.
    pub expires: f64,
    /// Their estimated `MEMORY USAGE` sum on the file's own writer, bytes.
    pub memory: f64,
    /// The lowest cluster hash slot of its keys (`null` without keys).
    pub slot_first: Option<f64>,
    /// The highest cluster hash slot of its keys (`null` without keys).
    pub slot_last: Option<f64>,
    /// How many hash slots its keys use.
    pub slots_used: f64,
    /// The allocator its memory is priced for (`jemalloc`, `jemalloc16`, `libc`; from its own
    /// `used-mem`).
    pub allocator: String,
    /// Why that allocator.
    pub allocator_reason: String,
}

/// A server profile the engine can answer as (see `profiles()`).
#[derive(Tsify, Serialize)]
pub struct ProfileName {
    /// What `compat` and `Engine.setCompat` take (`redis-7.4`).
    pub name: String,
    /// Its display name (`Redis 7.4`).
    pub server: String,
}

/// A list of values (a `Vec` of a typed result is returned through this wrapper, whose
/// TypeScript type is the array).
#[derive(Tsify, Serialize)]
#[serde(transparent)]
#[tsify(missing_as_null)]
pub struct Profiles(pub Vec<ProfileName>);

/// Every file of the last `Engine.loadRdbs`, in the order given.
#[derive(Tsify, Serialize)]
#[serde(transparent)]
#[tsify(missing_as_null)]
pub struct LoadedFiles(pub Vec<LoadedFile>);

/// An RDB format as a header names it.
#[derive(Tsify, Serialize)]
pub struct SnapshotFormat {
    /// `Redis` or `Valkey`.
    pub family: String,
    /// The RDB version.
    pub rdb_version: f64,
    /// The header's 9 bytes (`REDIS0011`, `VALKEY080`).
    pub magic: String,
}

/// The writer of an RDB file as `snapshotInfo` reads it from the header and aux fields.
#[derive(Tsify, Serialize)]
#[tsify(missing_as_null)]
pub struct SnapshotWriter {
    /// The format's family.
    #[tsify(type = "\"Redis\" | \"Valkey\"")]
    pub family: String,
    /// The RDB version.
    pub rdb_version: f64,
    /// The header's 9 bytes.
    pub magic: String,
    /// The server that wrote it.
    #[tsify(type = "\"Redis\" | \"Valkey\"")]
    pub server: String,
    /// The `redis-ver` aux field.
    pub redis_ver: Option<String>,
    /// The `valkey-ver` aux field.
    pub valkey_ver: Option<String>,
    /// `Valkey 9.1.2 (VALKEY080: Valkey RDB 80)`.
    pub description: String,
}

/// What a file is, by its content (see `snapshotInfo`).
#[derive(Tsify, Serialize)]
#[tsify(missing_as_null)]
pub struct SnapshotInfo {
    /// `rdb`, `unsupported-rdb`, `dump`, `raw` or `empty`.
    #[tsify(type = "\"rdb\" | \"unsupported-rdb\" | \"dump\" | \"raw\" | \"empty\"")]
    pub kind: String,
    /// `an RDB file (VALKEY080)`, `a DUMP payload (…)`, `empty file`, `raw bytes`.
    pub description: String,
    /// The RDB format (`null` unless an RDB file or DUMP payload).
    pub format: Option<SnapshotFormat>,
    /// The writer (`null` unless an RDB file whose header was read).
    pub writer: Option<SnapshotWriter>,
    /// Why the file cannot be read, when it cannot.
    pub error: Option<String>,
}

/// One database of `EngineInfo`.
#[derive(Tsify, Serialize)]
pub struct DatabaseInfo {
    /// The database number.
    pub db: f64,
    /// Keys alive at the clock.
    pub keys: f64,
    /// Keys already expired at the clock.
    pub expired: f64,
}

/// What `Engine.info` reports: the profile, clock and databases in force.
#[derive(Tsify, Serialize)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct EngineInfo {
    /// The profile in force (`redis-7.4`).
    pub profile: String,
    /// Its display name (`Redis 7.4`).
    pub server: String,
    /// True when the profile is the snapshot's writer (no `compat`).
    pub writer: bool,
    /// The writer's profile.
    pub writer_profile: String,
    /// The clock expiry is judged at (Unix ms), `null` when nothing expires.
    pub clock_ms: Option<f64>,
    /// The snapshot's `ctime` (Unix ms), `null` when it has none.
    pub snapshot_time_ms: Option<f64>,
    /// The loaded snapshot's RDB version (0: none).
    pub rdb_version: f64,
    /// The selected database.
    pub selected: f64,
    /// Every loaded database with keys, and the selected one.
    pub databases: Vec<DatabaseInfo>,
}

/// One key template of `Engine.overview`.
#[derive(Tsify, Serialize)]
pub struct TemplateCount {
    /// The template as given (`stats:active:{date}`).
    pub template: String,
    /// Live keys of the database matching its glob (placeholders `*`).
    pub keys: f64,
    /// The distinct `{date}`s (`YYYYMMDD`) of those keys matching the template whole, sorted.
    pub dates: Vec<String>,
}

/// What `Engine.overview` reports after a load, in one call.
#[derive(Tsify, Serialize)]
#[tsify(missing_as_null)]
pub struct Overview {
    /// The database selected (see `Engine.overview`).
    pub db: f64,
    /// `Engine.info()` after the selection.
    pub info: EngineInfo,
    /// `profiles()`.
    pub profiles: Vec<ProfileName>,
    /// Per template given, in order.
    pub templates: Vec<TemplateCount>,
}

/// One LZF decompression job of an `RdbStream` (`RdbStream.takeJobs`): decompress `data`
/// with `lzfDecompress(data, len)` (any thread: a decode worker), then hand the bytes back
/// with `RdbStream.supply(offset, bytes)`.
#[derive(Tsify, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LzfJob {
    /// Absolute offset in the file of the compressed data: the job's name for `supply`.
    pub offset: f64,
    /// Decompressed bytes (the string's length).
    pub len: f64,
    /// The compressed bytes (a copy, transferable).
    #[serde(with = "serde_wasm_bindgen::preserve")]
    #[tsify(type = "Uint8Array")]
    pub data: js_sys::Uint8Array,
}

/// One key of `Engine.keyList`: the fields common to every `KeyDetail`.
#[derive(Tsify, Serialize)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct KeyInfo {
    /// The name as text (bytes that are not UTF-8 read as U+FFFD: `raw` is the name itself).
    pub key: String,
    /// The name's exact bytes.
    #[serde(with = "serde_wasm_bindgen::preserve")]
    #[tsify(type = "Uint8Array")]
    pub raw: js_sys::Uint8Array,
    /// Redis `TYPE`: `string`, `zset`, `hash`, `list`, `set`, `stream`, …
    #[serde(rename = "type")]
    pub type_name: String,
    /// Redis `OBJECT ENCODING` as the engine's profile loads the value (`raw`, `listpack`,
    /// `skiplist`, …; `unknown` for a value kept only as its type).
    pub encoding: String,
    /// STRLEN for strings, member bytes + 8 per score for sorted sets, else `memory` (0 when
    /// not estimated).
    pub bytes: f64,
    /// Estimated `MEMORY USAGE key SAMPLES 0` on the engine's profile (jemalloc), `null` when
    /// not estimated.
    pub memory: Option<f64>,
    /// Milliseconds left to live, `null` without an expiry.
    pub ttl_ms: Option<f64>,
}

/// Result of `Engine.keyList`: the number of matching keys and the first `limit`.
#[derive(Tsify, Serialize)]
#[tsify(missing_as_null)]
pub struct KeyList {
    /// Matching keys.
    pub total: f64,
    /// The first `limit`, sorted by key bytes.
    pub keys: Vec<KeyInfo>,
}

/// One GEO member of a `DetailKind` (kind `geo`).
#[derive(Tsify, Serialize)]
pub struct GeoPoint {
    /// The member (lossy UTF-8).
    pub member: String,
    /// Longitude, degrees.
    pub lon: f64,
    /// Latitude, degrees.
    pub lat: f64,
}

/// One item of a Top-K's list.
#[derive(Tsify, Serialize)]
pub struct TopKItem {
    /// The item (lossy UTF-8).
    pub item: String,
    /// Its count.
    pub count: f64,
}

/// One point of a t-digest's quantile curve.
#[derive(Tsify, Serialize)]
pub struct QuantilePoint {
    /// The quantile, 0 to 1.
    pub q: f64,
    /// `TDIGEST.QUANTILE key q` (NaN when empty).
    pub value: f64,
}

/// What `Engine.keyDetail` adds to a key's `KeyInfo`, by `kind`.
#[derive(Tsify, Serialize)]
#[serde(
    tag = "kind",
    rename_all = "lowercase",
    rename_all_fields = "camelCase"
)]
#[tsify(missing_as_null)]
pub enum DetailKind {
    /// A string key seen as a bitmap.
    Bitmap {
        /// Length in bits.
        bits: f64,
        /// Number of set bits (`BITCOUNT`).
        bitcount: f64,
        /// Fraction of set bits (0..1) in each of `buckets` equal-width bit ranges.
        density: Vec<f64>,
    },
    /// A HyperLogLog.
    Hll {
        /// `sparse` or `dense`.
        #[tsify(type = "\"sparse\" | \"dense\"")]
        hll_encoding: String,
        /// `PFCOUNT key`.
        cardinality: f64,
        /// 64 counts: element v = number of registers holding v (summing to 16384).
        register_histogram: Vec<f64>,
    },
    /// A GEO set (a sorted set of geohash scores).
    Geo {
        /// `ZCARD key`.
        members: f64,
        /// `[minLon, minLat, maxLon, maxLat]`, degrees.
        bbox: [f64; 4],
        /// The first `maxPoints` members by score.
        points: Vec<GeoPoint>,
    },
    /// A RedisBloom Bloom filter (`MBbloom--`); figures as `BF.INFO` (RedisBloom 2.8.2).
    Bloom {
        /// Sum of the filters' capacities (`Capacity`).
        capacity: f64,
        /// Items added (`Number of items inserted`, `BF.CARD`).
        items: f64,
        /// The error rate the filter was reserved with.
        error_rate: f64,
        /// The module's memory figure in bytes (`Size`).
        size_bytes: f64,
        /// Sub-filters (`Number of filters`).
        filters: f64,
        /// Set bits over all bits, 0..1 (not reported by the module).
        fill_ratio: f64,
        /// Growth factor of new filters; `null` when NONSCALING.
        expansion: Option<f64>,
    },
    /// A RedisBloom Cuckoo filter (`MBbloomCF`); figures as `CF.INFO`.
    Cuckoo {
        /// Buckets of the first sub-filter.
        buckets: f64,
        /// Sub-filters.
        filters: f64,
        /// Fingerprints per bucket.
        bucket_size: f64,
        /// Items inserted, net of deletes.
        items: f64,
        /// Deletes since the last compaction.
        deletes: f64,
        /// The module's memory figure in bytes.
        size_bytes: f64,
        /// Occupied fingerprint slots over all slots, 0..1.
        fill_ratio: f64,
        /// Sub-filter growth factor.
        expansion: f64,
        /// Kick-out limit.
        max_iterations: f64,
    },
    /// A RedisBloom Count-Min sketch (`CMSk-TYPE`); figures as `CMS.INFO`.
    Cms {
        /// Counters per row.
        width: f64,
        /// Rows.
        depth: f64,
        /// Sum of every increment.
        count: f64,
        /// The counter array, `width · depth · 4` bytes.
        size_bytes: f64,
    },
    /// A RedisBloom Top-K (`TopK-TYPE`); figures as `TOPK.INFO`.
    Topk {
        /// Items the heap keeps.
        k: f64,
        /// Buckets per row.
        width: f64,
        /// Rows.
        depth: f64,
        /// The decay base.
        decay: f64,
        /// Items currently listed.
        listed: f64,
        /// Buckets, heap and listed items, bytes.
        size_bytes: f64,
        /// `TOPK.LIST key WITHCOUNT`: by decreasing count.
        list: Vec<TopKItem>,
    },
    /// A RedisBloom t-digest (`TDIS-TYPE`); figures as `TDIGEST.INFO`.
    Tdigest {
        /// The compression parameter.
        compression: f64,
        /// Merged centroids.
        centroids: f64,
        /// Observations.
        observations: f64,
        /// `TDIGEST.MIN`; `null` when empty.
        min: Option<f64>,
        /// `TDIGEST.MAX`; `null` when empty.
        max: Option<f64>,
        /// `TDIGEST.INFO` `Memory usage`, bytes.
        size_bytes: f64,
        /// 21 points q = 0, 0.05, …, 1 with `TDIGEST.QUANTILE key q` (NaN when empty).
        quantiles: Vec<QuantilePoint>,
    },
    /// Any other key (a RedisBloom value of a type or encoding version bitlens does not
    /// interpret too).
    Other,
}

/// Result of `Engine.keyDetail`: the key's `KeyInfo` and what its kind adds.
#[derive(Tsify, Serialize)]
// `flatten` serialises through a map: `hashmap_as_object` makes it a plain object.
#[tsify(missing_as_null, hashmap_as_object, type = "KeyInfo & DetailKind")]
pub struct KeyDetail {
    /// The fields of `keyList`.
    #[serde(flatten)]
    pub info: KeyInfo,
    /// The kind's figures.
    #[serde(flatten)]
    pub detail: DetailKind,
}

/// Daily engagement series: one element per key.
#[derive(Tsify, Serialize)]
pub struct Engagement {
    /// Daily actives (BITCOUNT of each day).
    pub dau: Vec<f64>,
    /// Users active in the 7 keys ending at each key.
    pub wau: Vec<f64>,
    /// Users active in the 30 keys ending at each key.
    pub mau: Vec<f64>,
    /// dau / mau, 0..1.
    pub stickiness: Vec<f64>,
    /// The days' dates (`YYYY-MM-DD`, from each key's trailing digits).
    pub labels: Vec<String>,
}

/// `Engine.retention`: one row per cohort day and its date.
#[derive(Tsify, Serialize)]
#[tsify(missing_as_null)]
pub struct Retention {
    /// The cohort days' dates (`YYYY-MM-DD`).
    pub labels: Vec<String>,
    /// `[cohort size, back on d+1, …, back on d+horizon]`, `null` past the last key.
    pub rows: Vec<Vec<Option<f64>>>,
}

/// A representation's encoding and value bytes, in a `KeyLedger`.
#[derive(Tsify, Serialize)]
pub struct EncodedSize {
    /// The encoding the server would give it (`intset`, `listpack`, `hashtable`, …).
    pub encoding: String,
    /// Value bytes.
    pub memory: f64,
}

/// One key's memory ledger: value bytes of the same members as each representation
/// (`null`: the form does not apply).
#[derive(Tsify, Serialize)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct KeyLedger {
    /// Members (set bits, set members, fields).
    pub members: f64,
    /// Value bytes as the key is.
    pub current: f64,
    /// As a set.
    pub as_set: Option<EncodedSize>,
    /// As a bitmap string.
    pub as_bitmap: Option<f64>,
    /// As a Roaring bitmap.
    pub as_roaring: Option<f64>,
    /// As a hash.
    pub as_hash: Option<EncodedSize>,
}

/// A pattern's memory ledger, summed over its keys (a form that does not apply counts a key
/// as it is).
#[derive(Tsify, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PatternLedger {
    /// The database.
    pub db: f64,
    /// The group pattern (lossy UTF-8).
    pub pattern: String,
    /// The pattern as redis-cli quotes it.
    pub pattern_display: String,
    /// Keys of the pattern with a ledger.
    pub keys: f64,
    /// Their members.
    pub members: f64,
    /// Value bytes as they are.
    pub current: f64,
    /// As sets.
    pub as_set: f64,
    /// As bitmaps.
    pub as_bitmap: f64,
    /// As Roaring bitmaps.
    pub as_roaring: f64,
    /// As hashes.
    pub as_hash: f64,
}

/// One key of `MemoryReport.top`.
#[derive(Tsify, Serialize)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct MemoryKey {
    /// The database.
    pub db: f64,
    /// The name as a string (lossy UTF-8, as `keyList` gives it).
    pub key: String,
    /// The name as redis-cli quotes it (no raw control byte).
    pub key_display: String,
    /// Redis `TYPE`.
    #[serde(rename = "type")]
    pub type_name: String,
    /// `OBJECT ENCODING` once the writer loaded it (`?` when not modelled).
    pub encoding: String,
    /// Estimated `MEMORY USAGE key SAMPLES 0` on the writer, bytes; `null` when not modelled.
    pub memory: Option<f64>,
    /// STRLEN for strings, else the element count.
    pub len: f64,
    /// Milliseconds from the clock to the expiry (negative when past); `null` without one.
    pub ttl_ms: Option<f64>,
}

/// One row of `MemoryReport.byType`.
#[derive(Tsify, Serialize)]
pub struct TypeRow {
    /// Redis `TYPE`.
    #[serde(rename = "type")]
    pub type_name: String,
    /// `OBJECT ENCODING`.
    pub encoding: String,
    /// Keys.
    pub keys: f64,
    /// Their estimated memory, bytes.
    pub memory: f64,
}

/// One row of `MemoryReport.byPattern`.
#[derive(Tsify, Serialize)]
#[serde(rename_all = "camelCase")]
#[tsify(hashmap_as_object)]
pub struct PatternRow {
    /// The database.
    pub db: f64,
    /// The exact group pattern (pasted into KEYS it matches exactly its keys; lossy UTF-8).
    pub pattern: String,
    /// The pattern as redis-cli quotes it.
    pub pattern_display: String,
    /// Keys.
    pub keys: f64,
    /// Their estimated memory, bytes.
    pub memory: f64,
    /// Keys per Redis `TYPE`.
    pub types: std::collections::BTreeMap<String, f64>,
}

/// One day of `Expiring.perDay`.
#[derive(Tsify, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExpiringDay {
    /// The day's end (Unix ms): keys expiring in (previous end, this end].
    pub until_ms: f64,
    /// Keys.
    pub keys: f64,
    /// Their memory, bytes.
    pub memory: f64,
}

/// Keys expiring within `days` of the clock (see `MemoryReport.expiring`).
#[derive(Tsify, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Expiring {
    /// The window, days.
    pub days: f64,
    /// Keys expiring within it.
    pub keys: f64,
    /// Their memory, bytes.
    pub memory: f64,
    /// Keys already expired at the clock.
    pub expired_keys: f64,
    /// Their memory, bytes.
    pub expired_memory: f64,
    /// Per 24 hours (`perDay[i]`: (i·24h, (i+1)·24h]).
    pub per_day: Vec<ExpiringDay>,
}

/// One bar of `inspect`'s expiry histogram.
#[derive(Tsify, Serialize)]
pub struct TtlBar {
    /// No expiry, already expired, within 1h / 1d / 7d, later.
    pub name: String,
    /// Keys.
    pub keys: f64,
    /// Their memory, bytes.
    pub memory: f64,
}

/// One node of `inspect`'s prefix tree.
#[derive(Tsify, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrefixNode {
    /// Its depth, 1 for the top level.
    pub depth: f64,
    /// The prefix (lossy UTF-8).
    pub prefix: String,
    /// The prefix as redis-cli quotes it.
    pub prefix_display: String,
    /// Keys under it.
    pub keys: f64,
    /// Their memory, bytes.
    pub memory: f64,
}

/// Result of `Engine.memoryReport`: `bitlens inspect`'s figures over every loaded database.
#[derive(Tsify, Serialize)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null, hashmap_as_object)]
pub struct MemoryReport {
    /// The clock TTLs are counted from (Unix ms).
    pub clock_ms: f64,
    /// The allocator memory is priced for (`jemalloc`, `jemalloc16`, `libc`).
    pub allocator: String,
    /// Where it comes from: `given` (the option), `inferred` (from `used-mem`, or the keys),
    /// `assumed`, or `undecided` (the file cannot tell `allocatorCandidates` apart; the
    /// figures are `allocator`'s, and `memoryRange` spans them all).
    #[tsify(type = "\"given\" | \"inferred\" | \"assumed\" | \"undecided\"")]
    pub allocator_source: String,
    /// Why that allocator, and what evidence decided.
    pub allocator_reason: String,
    /// Every allocator the figures may be priced with, `allocator` first (one when decided).
    pub allocator_candidates: Vec<String>,
    /// When undecided: the least and most of `memory` over `allocatorCandidates`, bytes
    /// (`[min, max]`); else null.
    pub memory_range: Option<Vec<f64>>,
    /// Keys.
    pub keys: f64,
    /// Sum of the estimates, bytes.
    pub memory: f64,
    /// Keys whose memory is not modelled (counted as 0).
    pub unknown: f64,
    /// Keys without an expiry.
    pub no_expiry: f64,
    /// The biggest keys by memory, descending (ties by db, then name).
    pub top: Vec<MemoryKey>,
    /// Memory per type and encoding.
    pub by_type: Vec<TypeRow>,
    /// Exact group patterns, memory descending (the first `options.patterns`).
    pub by_pattern: Vec<PatternRow>,
    /// All pattern rows.
    pub pattern_count: f64,
    /// Keys expiring within `days` of the clock.
    pub expiring: Expiring,
    /// `inspect`'s expiry histogram.
    pub ttl: Vec<TtlBar>,
    /// `inspect`'s prefix tree, depth-first (children by memory, at most 12 per parent).
    pub prefixes: Vec<PrefixNode>,
    /// Patterns with a ledger (with `options.ledger`), else `null`.
    pub ledger: Option<Vec<PatternLedger>>,
}
