//! The inspect report's JSON document: one model, derived with `serde::Serialize`, that the
//! CLI's `inspect --json` and Python's `Snapshot.inspect()` both serialise, so that they
//! cannot disagree. Its vocabulary (documented in the README, "The inspect document"):
//! snake_case names; sizes in bytes (`memory` the `MEMORY USAGE` estimate, `value_len` STRLEN
//! or the element count); instants as Unix milliseconds (`expire_at_ms`, `clock_ms`,
//! `until_ms`), never durations; a name (key, pattern, prefix, aux field) is a string when it
//! is UTF-8, else `{"hex": "…"}`. [`SCHEMA_VERSION`] counts its incompatible changes.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::Value as Json;

use super::files::FileRow;
use super::{FilterRow, KeyRow, Report, DIST_BUCKETS};
use crate::report::{LedgerSum, Tally};

/// The version of the inspect document (`schema_version`): 1, the first to carry one. A
/// field renamed or removed raises it; a field added does not.
pub const SCHEMA_VERSION: u32 = 1;

/// A name as JSON ([`crate::report::name`]: a string when valid UTF-8, else
/// `{"hex": "…"}`).
#[derive(Debug, Clone, Copy)]
pub struct Name<'a>(pub &'a [u8]);

impl Serialize for Name<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        crate::report::name(self.0, s)
    }
}

/// [`Name`] as a JSON value.
pub fn name_json(bytes: &[u8]) -> Json {
    serde_json::to_value(Name(bytes)).unwrap_or(Json::Null)
}

/// A file's path as JSON, as names are ([`Name`]).
pub fn path_json(p: &std::path::Path) -> Json {
    name_json(p.as_os_str().as_encoded_bytes())
}

/// Counts by name (`{"string": 3, "hash": 1}`, [`crate::report::counts`]).
struct Counts<'a>(&'a [(String, u64)]);

impl Serialize for Counts<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        crate::report::counts(self.0, s)
    }
}

/// Element-count distributions: `{type: {bucket: keys}}` ([`DIST_BUCKETS`]' labels).
struct Distributions<'a>(&'a [super::Distribution]);

impl Serialize for Distributions<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Buckets<'a>(&'a [u64]);
        impl Serialize for Buckets<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_map(DIST_BUCKETS.iter().zip(self.0).map(|((_, l), c)| (l, c)))
            }
        }
        s.collect_map(self.0.iter().map(|d| (&d.type_name, Buckets(&d.counts))))
    }
}

/// One key ([`KeyRow`]'s Serialize): `{"db", "key", "type", "encoding", "memory",
/// "value_len", "largest", "expire_at_ms"}`.
pub fn key_json(r: &KeyRow) -> Json {
    serde_json::to_value(r).unwrap_or(Json::Null)
}

/// One RedisBloom value: `{"db", "key", "type", "memory", "kind"` (`bloom`, `cuckoo`, `cms`,
/// `topk`, `tdigest`, `raw`) and the [`bitlens::probabilistic::Figures`] fields by their
/// names: bloom `capacity, items, error_rate, size_bytes, filters, fill_ratio, expansion`
/// (null when nonscaling); cuckoo `buckets, filters, bucket_size, items, deletes, size_bytes,
/// fill_ratio, expansion, max_iterations`; cms `width, depth, count, size_bytes`; topk `k,
/// width, depth, decay, listed, size_bytes`; tdigest `compression, centroids, observations,
/// min, max` (null when empty), `size_bytes`; raw `fields``}`.
pub struct FilterDoc<'a>(pub &'a FilterRow);

impl Serialize for FilterDoc<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let f = self.0;
        let mut m = s.serialize_map(None)?;
        crate::report::figure_entries(&mut m, &f.summary)?;
        m.serialize_entry("db", &f.db)?;
        m.serialize_entry("key", &Name(&f.key))?;
        m.serialize_entry("type", &f.type_name)?;
        m.serialize_entry("memory", &f.memory)?;
        m.end()
    }
}

/// [`FilterDoc`] as a JSON value.
pub fn filter_json(f: &FilterRow) -> Json {
    serde_json::to_value(FilterDoc(f)).unwrap_or(Json::Null)
}

/// Who wrote a file: `{"family", "server", "redis_ver", "valkey_ver"}` (and `description`
/// for the report's own writer).
#[derive(Serialize)]
struct WriterDoc<'a> {
    family: &'static str,
    server: &'static str,
    redis_ver: &'a Option<String>,
    valkey_ver: &'a Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
}

impl<'a> WriterDoc<'a> {
    fn of(w: &'a bitlens::rdb::Writer, described: bool) -> Self {
        WriterDoc {
            family: w.format.family.name(),
            server: w.server(),
            redis_ver: &w.redis_ver,
            valkey_ver: &w.valkey_ver,
            description: described.then(|| w.describe()),
        }
    }
}

/// One file of a report over several files (`files`).
#[derive(Serialize)]
struct FileDoc<'a> {
    path: Name<'a>,
    checksum_verified: bool,
    writer: WriterDoc<'a>,
    file_bytes: u64,
    file_keys: u64,
    keys: u64,
    memory: u64,
    expires: u64,
    slot_min: Option<u16>,
    slot_max: Option<u16>,
    slots_used: u32,
    allocator: &'static str,
    allocator_reason: &'a str,
    shadowed: u64,
}

impl<'a> From<&'a FileRow> for FileDoc<'a> {
    fn from(f: &'a FileRow) -> Self {
        FileDoc {
            path: Name(f.path.as_os_str().as_encoded_bytes()),
            checksum_verified: f.checksum.is_some(),
            writer: WriterDoc::of(&f.writer, false),
            file_bytes: f.file_bytes,
            file_keys: f.file_keys,
            keys: f.keys,
            memory: f.memory,
            expires: f.expires,
            slot_min: f.slot_range.map(|r| r.0),
            slot_max: f.slot_range.map(|r| r.1),
            slots_used: f.slots_used,
            allocator: f.allocator.allocator.name(),
            allocator_reason: &f.allocator.reason,
            shadowed: f.shadowed,
        }
    }
}

#[derive(Serialize)]
struct BitmapDoc {
    keys: u64,
    set_bits: u64,
    bits: u64,
}

#[derive(Serialize)]
struct HllDoc {
    dense: u64,
    sparse: u64,
    invalid: u64,
    pfcount_min: Option<u64>,
    pfcount_max: Option<u64>,
    pfcount_sum: u64,
}

#[derive(Serialize)]
struct GeoDoc {
    members: u64,
    bbox: Option<[f64; 4]>,
}

/// One group (exact pattern) of a database.
#[derive(Serialize)]
struct GroupDoc<'a> {
    pattern: Name<'a>,
    types: Counts<'a>,
    encodings: Counts<'a>,
    count: u64,
    memory: u64,
    value_len: u64,
    with_expiry: u64,
    expiry_min_ms: Option<i64>,
    expiry_max_ms: Option<i64>,
    examples: Vec<Name<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bitmap: Option<BitmapDoc>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hll: Option<HllDoc>,
    #[serde(skip_serializing_if = "Option::is_none")]
    geo: Option<GeoDoc>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ledger: Option<&'a LedgerSum>,
}

impl<'a> From<&'a super::Group> for GroupDoc<'a> {
    fn from(g: &'a super::Group) -> Self {
        GroupDoc {
            pattern: Name(&g.pattern),
            types: Counts(&g.types),
            encodings: Counts(&g.encodings),
            count: g.count,
            memory: g.memory,
            value_len: g.len,
            with_expiry: g.with_expiry,
            expiry_min_ms: g.expiry_range_ms.map(|r| r.0),
            expiry_max_ms: g.expiry_range_ms.map(|r| r.1),
            examples: g.examples.iter().map(|e| Name(e)).collect(),
            bitmap: g.bitmap.map(|b| BitmapDoc {
                keys: b.keys,
                set_bits: b.set_bits,
                bits: b.bits,
            }),
            hll: g.hll.map(|h| HllDoc {
                dense: h.dense,
                sparse: h.sparse,
                invalid: h.invalid,
                pfcount_min: h.cardinality_range.map(|r| r.0),
                pfcount_max: h.cardinality_range.map(|r| r.1),
                pfcount_sum: h.cardinality_sum,
            }),
            geo: g.geo.map(|geo| GeoDoc {
                members: geo.members,
                bbox: geo.bbox,
            }),
            ledger: g.ledger.as_ref(),
        }
    }
}

#[derive(Serialize)]
struct DbDoc<'a> {
    db: u64,
    keys: u64,
    expires: u64,
    memory: u64,
    groups: Vec<GroupDoc<'a>>,
}

#[derive(Serialize)]
struct ProfileDoc {
    name: &'static str,
    server: String,
    writer: bool,
}

#[derive(Serialize)]
struct KeysMemory {
    keys: u64,
    memory: u64,
}

#[derive(Serialize)]
struct DayDoc {
    until_ms: i64,
    keys: u64,
    memory: u64,
}

#[derive(Serialize)]
struct ExpiringDoc {
    days: u32,
    keys: u64,
    memory: u64,
    per_day: Vec<DayDoc>,
}

/// `{"min", "max"}`, bytes.
#[derive(Serialize)]
struct MinMax {
    min: u64,
    max: u64,
}

#[derive(Serialize)]
struct SlotDoc {
    slot: u16,
    keys: u64,
    memory: u64,
}

/// The whole report (see the module docs): `{"schema_version", "version", "writer", "aux",
/// "module_aux", "stored_checksum", "checksum_verified", "file_bytes", "profile": {"name",
/// "server", "writer"}, "clock_ms", "file_keys", "file_databases" (key records in the file,
/// before filters), "filtered", "expired": {"keys", "memory"} (already expired at the clock),
/// "allocator" (`jemalloc`, `jemalloc16`, `libc`), "allocator_source" (`given`, `inferred`
/// from the file's used-mem, `assumed`, `undecided`: the file cannot tell its candidates
/// apart, and "allocator" is the one whose figures are shown), "allocator_reason" (which,
/// why, and what evidence decided), "allocator_candidates" (every allocator the figures may
/// be priced with, "allocator" first), "memory_range" (`{"min", "max"}`: the file's keys'
/// summed MEMORY USAGE over the candidates, bytes; `null` when decided or not priced),
/// "keys", "memory",
/// "databases": [{"db", "keys", "expires", "memory", "groups": [{"pattern", "types",
/// "encodings", "count", "memory", "value_len", "with_expiry", "expiry_min_ms",
/// "expiry_max_ms", "examples", "bitmap"?, "hll"?, "geo"?, "ledger"?}]}], "by_type":
/// [{"name", "keys", "memory"}], "top": [key ([`key_json`])], "prefixes": [{"depth", "prefix",
/// "keys", "memory"}], "ttl": [{"name", "keys", "memory"}], "expiring": {"days", "keys",
/// "memory", "per_day": [{"until_ms", "keys", "memory"}]} (keys expiring within `days` of the
/// clock, one entry per 24 h, see [`crate::report::expiring`]), "distributions": {type:
/// {bucket: keys}}, "probabilistic": [filter ([`FilterDoc`])], "slots": [{"slot", "keys",
/// "memory"}] | null, "files"?: [file] (several files only)}`.
#[derive(Serialize)]
pub struct ReportDoc<'a> {
    schema_version: u32,
    version: u32,
    writer: WriterDoc<'a>,
    module_aux: &'a [String],
    aux: Vec<[Name<'a>; 2]>,
    stored_checksum: String,
    checksum_verified: bool,
    file_bytes: u64,
    profile: ProfileDoc,
    clock_ms: i64,
    expired: KeysMemory,
    allocator: &'static str,
    allocator_source: &'static str,
    allocator_reason: &'a str,
    allocator_candidates: Vec<&'static str>,
    memory_range: Option<MinMax>,
    file_keys: u64,
    file_databases: u64,
    filtered: bool,
    keys: u64,
    memory: u64,
    databases: Vec<DbDoc<'a>>,
    by_type: &'a [Tally],
    top: &'a [KeyRow],
    prefixes: &'a [crate::report::Prefix],
    ttl: &'a [Tally],
    expiring: ExpiringDoc,
    distributions: Distributions<'a>,
    probabilistic: Vec<FilterDoc<'a>>,
    slots: Option<Vec<SlotDoc>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    files: Vec<FileDoc<'a>>,
}

impl<'a> From<&'a Report> for ReportDoc<'a> {
    fn from(r: &'a Report) -> Self {
        ReportDoc {
            schema_version: SCHEMA_VERSION,
            version: r.version,
            writer: WriterDoc::of(&r.writer, true),
            module_aux: &r.module_aux,
            aux: r.aux.iter().map(|(k, v)| [Name(k), Name(v)]).collect(),
            stored_checksum: format!("{:016x}", r.stored_checksum),
            checksum_verified: r.checksum_verified,
            file_bytes: r.file_bytes,
            profile: ProfileDoc {
                name: r.profile.name,
                server: r.profile.display_name(),
                writer: r.profile_is_writer,
            },
            clock_ms: r.clock_ms,
            expired: KeysMemory {
                keys: r.ttl[1].keys,
                memory: r.ttl[1].memory,
            },
            allocator: r.allocator.name(),
            allocator_source: r.allocator_choice.source.name(),
            allocator_reason: &r.allocator_choice.reason,
            allocator_candidates: r
                .allocator_choice
                .candidates()
                .iter()
                .map(|a| a.name())
                .collect(),
            memory_range: match (r.allocator_choice.source, r.allocator_choice.usage_range()) {
                (crate::memory::AllocatorSource::Undecided, Some((min, max))) => {
                    Some(MinMax { min, max })
                }
                _ => None,
            },
            file_keys: r.file_keys,
            file_databases: r.file_databases,
            filtered: r.filtered,
            keys: r.keys,
            memory: r.memory,
            databases: r
                .databases
                .iter()
                .map(|d| DbDoc {
                    db: d.db,
                    keys: d.keys,
                    expires: d.expires,
                    memory: d.memory,
                    groups: d.groups.iter().map(GroupDoc::from).collect(),
                })
                .collect(),
            by_type: &r.by_type,
            top: &r.top,
            prefixes: &r.prefixes,
            ttl: &r.ttl,
            expiring: ExpiringDoc {
                days: r.expiring.days,
                keys: r.expiring.keys,
                memory: r.expiring.memory,
                per_day: r
                    .expiring
                    .per_day
                    .iter()
                    .map(|d| DayDoc {
                        until_ms: d.until_ms,
                        keys: d.keys,
                        memory: d.memory,
                    })
                    .collect(),
            },
            distributions: Distributions(&r.distributions),
            probabilistic: r.filters.iter().map(FilterDoc).collect(),
            slots: r.slots.as_ref().map(|s| {
                s.iter()
                    .map(|t| SlotDoc {
                        slot: String::from_utf8_lossy(&t.name).parse().unwrap_or(0),
                        keys: t.keys,
                        memory: t.memory,
                    })
                    .collect()
            }),
            files: r.files.iter().map(FileDoc::from).collect(),
        }
    }
}

impl Serialize for Report {
    /// The report's document ([`ReportDoc`]).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ReportDoc::from(self).serialize(s)
    }
}

impl Report {
    /// The report as one JSON document ([`ReportDoc`]; object keys sorted, as
    /// `serde_json::Value` holds them).
    pub fn to_json(&self) -> Json {
        serde_json::to_value(self).unwrap_or(Json::Null)
    }
}
