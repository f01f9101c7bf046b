//! The inspect report (`bitlens inspect`, Python's `Snapshot.inspect()`): what is in a
//! snapshot, what it costs, what will expire. Front ends parse their arguments into
//! [`Options`] and render the [`Report`]; its JSON document is [`json`]'s (one model, one
//! vocabulary, with a `schema_version`).
//!
//! One pass over the file ([`bitlens::rdb::visit_rdb`]) decodes each key, estimates its
//! memory with [`crate::memory`] (the writer's `MEMORY USAGE key SAMPLES 0`), and writes a
//! small [`KeyRow`] per key (name, type, encoding, memory, lengths, expiry) and its group
//! figures (bitmap bits, HLL count, GEO box, ledger) to a [`spill`]: memory up to a budget,
//! then a temporary file. The value is dropped. Then passes over the spill build the report,
//! so that its memory is bounded by the groups and the top N, not by the keys:
//! 1. the figures that need no groups (memory per type and encoding, the top N keys, a prefix
//!    tree, a TTL section, what expires within N days per day, element-count distributions
//!    and, for cluster nodes, bytes per slot), and each database's [`patterns::Grouper`]
//!    counts;
//! 2. each key's class (its start group and the wildcard patterns it matches) and the
//!    statistics per class, merged into the exact group patterns once they are resolved;
//! 3. only when a class of several keys falls apart into exact patterns: those keys' rows.
//!
//! The prefix tree tallies every prefix in pass 1 unless there are more than
//! [`crate::report::PREFIX_TALLY_CAP`] (`user:{id}:` for millions of ids); then it is
//! counted level by level in more passes ([`crate::report::PrefixTree`]).
//!
//! The row, the pattern grouping, the top N, the per-type sums and the per-day expiry are the
//! core's ([`crate::report`], [`crate::patterns`]), which the panel's memory view uses too.
//! The JSON document is [`json`]'s; the CLI renders text and rdbtools' memory CSV.
//!
//! Every size is labelled: `memory` is the estimate, `value length` is STRLEN or the
//! element count.

pub mod files;
pub mod json;
pub mod series;
pub mod spill;

pub use crate::patterns;
pub use crate::report::{
    key_slot, DayTally, Expiring, KeyRow, LedgerOptions, LedgerSum, Prefix, Tally, PREFIX_CHILDREN,
    TTL_BUCKETS,
};

use std::collections::BTreeMap;

use crate::classify::figures;
use crate::memory::{Allocator, AllocatorChoice, Model, Pricing};
use bitlens::dialect::Profile;
use bitlens::keyspace::Value;
pub use bitlens::open::VisitError;
use bitlens::rdb::{LoadOptions, RdbError};
use bitlens::session::Clock;
pub use files::{for_each_key_files, report_files, FileRow, FilesError};
use files::{for_rows, Shadowed};
use spill::{HllKind, KeyStats, Spill};

/// Which keys a report counts (`--db`, `--type`, `--match`/`--regex`, `--ttl`,
/// `--min-bytes`).
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only this database.
    pub db: Option<u64>,
    /// Only these types (TYPE names: `string`, `list`, ...); empty: all.
    pub types: Vec<String>,
    /// Only keys matching this glob (Redis `KEYS` rules).
    pub glob: Option<Vec<u8>>,
    /// Only keys matching this regular expression (on the key bytes).
    pub regex: Option<regex::bytes::Regex>,
    /// Only keys in this TTL class.
    pub ttl: Option<TtlFilter>,
    /// Only keys whose estimated memory is at least this many bytes.
    pub min_bytes: u64,
}

/// `--ttl none|expired|<range>`: a range is `[MIN]..[MAX]` in durations from the clock
/// (`..1h`, `1d..7d`, `7d..`; units s, m, h, d).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TtlFilter {
    /// Keys without an expiry.
    None,
    /// Keys already expired at the clock.
    Expired,
    /// Keys expiring within (min, max] ms of the clock.
    Range(Option<i64>, Option<i64>),
}

impl Filter {
    /// Whether the report counts `row` at `clock_ms` by the filters that look at the value
    /// and the expiry (`--type`, `--min-bytes`, `--ttl`). One file's scan applies the first
    /// two already; several files are scanned without them, so that a key's duplicates are
    /// found whatever each file holds under it, and they apply here, after.
    pub fn admits_row(&self, row: &KeyRow, clock_ms: i64) -> bool {
        self.ttl
            .is_none_or(|t| t.admits(row.expire_at_ms, clock_ms))
            && row.memory_or_zero() >= self.min_bytes
            && (self.types.is_empty()
                || self
                    .types
                    .iter()
                    .any(|t| t.eq_ignore_ascii_case(&row.type_name)))
    }

    /// These filters less the ones [`Filter::admits_row`] applies after a scan (`--type`,
    /// `--min-bytes`): what a scan of one of several files applies.
    fn by_name(&self) -> Filter {
        Filter {
            types: Vec::new(),
            min_bytes: 0,
            ..self.clone()
        }
    }

    /// Whether any filter is set (the report then counts fewer keys than the file holds).
    pub fn is_active(&self) -> bool {
        self.db.is_some()
            || !self.types.is_empty()
            || self.glob.is_some()
            || self.regex.is_some()
            || self.ttl.is_some()
            || self.min_bytes > 0
    }
}

impl TtlFilter {
    /// Parses `none`, `expired` or a range (see the type docs).
    pub fn parse(s: &str) -> Result<TtlFilter, String> {
        match s {
            "none" => return Ok(TtlFilter::None),
            "expired" => return Ok(TtlFilter::Expired),
            _ => {}
        }
        let (a, b) = s
            .split_once("..")
            .ok_or_else(|| format!("--ttl {s:?}: none, expired or MIN..MAX (e.g. ..1h, 1d..7d)"))?;
        let dur = |t: &str| -> Result<Option<i64>, String> {
            if t.is_empty() {
                return Ok(None);
            }
            let (num, unit) = t.split_at(t.len() - 1);
            let mul = match unit {
                "s" => 1_000,
                "m" => 60_000,
                "h" => 3_600_000,
                "d" => 86_400_000,
                _ => return Err(format!("--ttl {t:?}: a number with unit s, m, h or d")),
            };
            num.parse::<i64>()
                .ok()
                .filter(|&n| n >= 0)
                .and_then(|n| n.checked_mul(mul))
                .map(Some)
                .ok_or_else(|| format!("--ttl {t:?}: a number (0 or more) with unit s, m, h or d"))
        };
        let (lo, hi) = (dur(a)?, dur(b)?);
        if let (Some(l), Some(h)) = (lo, hi) {
            if l > h {
                return Err(format!("--ttl {s:?}: MIN is above MAX"));
            }
        }
        Ok(TtlFilter::Range(lo, hi))
    }

    fn admits(&self, expire_at_ms: Option<i64>, clock_ms: i64) -> bool {
        match (self, expire_at_ms) {
            (TtlFilter::None, e) => e.is_none(),
            (TtlFilter::Expired, Some(e)) => clock_ms > e,
            (TtlFilter::Range(lo, hi), Some(e)) if clock_ms <= e => {
                let left = e - clock_ms;
                lo.is_none_or(|l| left > l) && hi.is_none_or(|h| left <= h)
            }
            _ => false,
        }
    }
}

/// What [`Options::progress`] holds: for a pass over an input of this many bytes, the
/// function told its progress (`Some(bytes done)`) and its end (`None`).
#[derive(Clone)]
pub struct Progress(pub std::sync::Arc<dyn Fn(u64) -> Ticker + Send + Sync>);

/// What one pass tells its progress: `Some(bytes done)`, then `None` at its end.
pub type Ticker = Box<dyn FnMut(Option<u64>)>;

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress")
    }
}

/// How to build a report.
#[derive(Debug, Clone)]
pub struct Options {
    /// Verify the CRC-64 trailer.
    pub verify_checksum: bool,
    /// Answer as this profile instead of the writer's (`--compat`).
    pub compat: Option<&'static Profile>,
    /// The clock expiry is judged at.
    pub clock: Clock,
    /// The allocator of the writer's build (`--allocator`); `None`: inferred from the file's
    /// `used-mem` ([`crate::memory::AllocatorInference`]).
    pub allocator: Option<Allocator>,
    /// How many biggest keys to list (`--top`).
    pub top: usize,
    /// Prefix separators (`--separator`, repeatable; default `:`).
    pub separators: Vec<u8>,
    /// Prefix tree depth (`--depth`).
    pub depth: usize,
    /// Bytes per cluster slot: `Some(true)` always, `Some(false)` never, `None` when the file
    /// says it is from a cluster node (slot-info aux fields).
    pub slots: Option<bool>,
    /// Which keys count.
    pub filter: Filter,
    /// Compute the memory ledger (`--ledger`): bitmaps, integer-id sets and BITFIELD state
    /// keys (`--bitfield GLOB=TYPE`) priced as the other representations
    /// ([`crate::report::key_ledger`]).
    pub ledger: Option<LedgerOptions>,
    /// Progress of each file's pass: called with the input's size when a pass starts, it
    /// returns what is told the bytes done (`Some`) and the pass's end (`None`). The CLI
    /// draws a bar on stderr when it is a terminal; `None`: nothing is told.
    pub progress: Option<Progress>,
    /// The "expiring" section covers this many days from the clock, one row per day
    /// (`--expires-within`, default 7; see [`crate::report::expiring`]).
    pub expires_within_days: u32,
    /// The longest string read from a snapshot, bytes (`--max-value-bytes`; default
    /// [`bitlens::rdb::DEFAULT_MAX_VALUE_BYTES`], see
    /// [`bitlens::rdb::LoadOptions::max_value_bytes`]).
    pub max_value_bytes: u64,
    /// Bytes of key rows held in memory between the passes before the rest goes to a
    /// temporary file ([`spill`]; default [`spill::DEFAULT_BUDGET`]). Internal: the tests set
    /// it tiny to force the file.
    #[doc(hidden)]
    pub spill_budget: usize,
    /// Most prefix tallies held at once ([`crate::report::PrefixTree::with_cap`]; default
    /// [`crate::report::PREFIX_TALLY_CAP`]). Internal: the tests set it tiny.
    #[doc(hidden)]
    pub prefix_cap: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            verify_checksum: true,
            compat: None,
            clock: Clock::Snapshot,
            allocator: None,
            top: 20,
            separators: vec![b':'],
            depth: 2,
            slots: None,
            filter: Filter::default(),
            ledger: None,
            progress: None,
            expires_within_days: 7,
            max_value_bytes: bitlens::rdb::DEFAULT_MAX_VALUE_BYTES,
            spill_budget: spill::DEFAULT_BUDGET,
            prefix_cap: crate::report::PREFIX_TALLY_CAP,
        }
    }
}

/// Bit statistics of bitmap strings.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BitmapStats {
    /// Strings counted.
    pub keys: u64,
    /// Set bits (sum of BITCOUNT).
    pub set_bits: u64,
    /// Bits (8 × sum of STRLEN).
    pub bits: u64,
}

/// HyperLogLog statistics.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct HllStats {
    /// Valid dense / sparse HLLs, and `HYLL` strings PFCOUNT rejects.
    pub dense: u64,
    /// Valid sparse HLLs.
    pub sparse: u64,
    /// `HYLL` strings PFCOUNT rejects.
    pub invalid: u64,
    /// Smallest and largest PFCOUNT of the valid ones, and their sum.
    pub cardinality_range: Option<(u64, u64)>,
    /// Sum of the valid ones' PFCOUNT.
    pub cardinality_sum: u64,
}

/// GEO statistics: members and bounding box (min lon, min lat, max lon, max lat), degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeoStats {
    /// Members of the GEO sets.
    pub members: u64,
    /// Bounding box of every member (min lon, min lat, max lon, max lat), degrees; `None` for no member.
    pub bbox: Option<[f64; 4]>,
}

/// One row of a database: the keys an exact pattern matches.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// Glob pattern; `KEYS pattern` on this database returns exactly this row's keys.
    pub pattern: Vec<u8>,
    /// TYPE names with key counts.
    pub types: Vec<(String, u64)>,
    /// OBJECT ENCODING names with key counts.
    pub encodings: Vec<(String, u64)>,
    /// Keys.
    pub count: u64,
    /// Estimated memory, bytes.
    pub memory: u64,
    /// Sum of value lengths (see [`KeyRow::len`]).
    pub len: u64,
    /// Keys with an expiry, and the earliest and latest expiry.
    pub with_expiry: u64,
    /// The earliest and latest expiry (Unix ms) of those keys.
    pub expiry_range_ms: Option<(i64, i64)>,
    /// Up to three example keys.
    pub examples: Vec<Vec<u8>>,
    /// Bit statistics of the row's bitmap strings.
    pub bitmap: Option<BitmapStats>,
    /// Statistics of the row's HyperLogLogs.
    pub hll: Option<HllStats>,
    /// Statistics of the row's GEO sets.
    pub geo: Option<GeoStats>,
    /// The memory ledger over the row's bitmaps and integer-id sets (with `--ledger`).
    pub ledger: Option<LedgerSum>,
}

/// One database.
#[derive(Debug, Clone, PartialEq)]
pub struct DbReport {
    /// The database number.
    pub db: u64,
    /// Keys counted.
    pub keys: u64,
    /// Keys counted with an expiry.
    pub expires: u64,
    /// Their memory, bytes.
    pub memory: u64,
    /// Rows by memory (descending), then pattern.
    pub groups: Vec<Group>,
}

/// The element-count distribution of one collection type.
#[derive(Debug, Clone, PartialEq)]
pub struct Distribution {
    /// The TYPE name (`list`, `set`, `zset`, `hash`, `stream`).
    pub type_name: String,
    /// Keys per bucket of [`DIST_BUCKETS`].
    pub counts: Vec<u64>,
}

/// Upper bounds of the element-count buckets (the last is open).
pub const DIST_BUCKETS: [(u64, &str); 7] = [
    (1, "1"),
    (10, "2-10"),
    (100, "11-100"),
    (1_000, "101-1k"),
    (10_000, "1k-10k"),
    (100_000, "10k-100k"),
    (u64::MAX, ">100k"),
];

/// The whole report.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// RDB version of the file.
    pub version: u32,
    /// Who wrote it (family, versions from the aux fields).
    pub writer: bitlens::rdb::Writer,
    /// Module types whose module aux data the file holds.
    pub module_aux: Vec<String>,
    /// Aux fields in file order.
    pub aux: Vec<(Vec<u8>, Vec<u8>)>,
    /// The CRC-64 after EOF (0: none computed).
    pub stored_checksum: u64,
    /// Whether the checksum was verified (a non-zero trailer, checking on).
    pub checksum_verified: bool,
    /// The file's size, bytes.
    pub file_bytes: u64,
    /// Profile answering (name, server, is the writer).
    pub profile: &'static Profile,
    /// Whether [`Report::profile`] is the writer's own (no `--compat`).
    pub profile_is_writer: bool,
    /// The allocator the memory is estimated for.
    pub allocator: Allocator,
    /// How it was chosen (given, inferred from `used-mem`, or assumed), with the reason.
    pub allocator_choice: AllocatorChoice,
    /// The clock expiry is judged at, Unix ms.
    pub clock_ms: i64,
    /// Key records in the file and the databases holding them, before any filter.
    pub file_keys: u64,
    /// Databases holding key records, before any filter.
    pub file_databases: u64,
    /// Whether a filter (`--db`, `--type`, `--match`/`--regex`, `--ttl`, `--min-bytes`)
    /// chose the keys counted.
    pub filtered: bool,
    /// Keys counted (after filters) and their memory.
    pub keys: u64,
    /// Memory of the keys counted, bytes.
    pub memory: u64,
    /// Per database, ascending.
    pub databases: Vec<DbReport>,
    /// By `type/encoding`, memory descending.
    pub by_type: Vec<Tally>,
    /// The biggest keys by memory.
    pub top: Vec<KeyRow>,
    /// Prefix tree rows, depth-first, children by memory.
    pub prefixes: Vec<Prefix>,
    /// `no expiry`, `already expired`, then [`TTL_BUCKETS`].
    pub ttl: Vec<Tally>,
    /// Keys expiring within [`Options::expires_within_days`] of the clock, per day.
    pub expiring: Expiring,
    /// Element-count distributions of the collection types.
    pub distributions: Vec<Distribution>,
    /// Per cluster slot (name = slot number as text), slot ascending; `None` when not asked.
    pub slots: Option<Vec<Tally>>,
    /// The RedisBloom values, by database then key.
    pub filters: Vec<FilterRow>,
    /// One row per file when several files are reported as one ([`report_files`]); empty
    /// for one file.
    pub files: Vec<FileRow>,
}

/// The statistics of a group, or of a class of keys ([`patterns::Grouper`]) merged into its
/// group once the groups are known. Kept small (one per database at least: 100,000
/// databases cost megabytes): the counts by type and encoding are short vectors, and the
/// HyperLogLog, GEO and ledger figures, which most groups lack, sit behind one box.
#[derive(Default)]
struct GroupAcc {
    count: u64,
    memory: u64,
    len: u64,
    with_expiry: u64,
    expiry_range_ms: Option<(i64, i64)>,
    /// Up to three (position in the file, key), the first in file order.
    examples: Vec<(u64, Vec<u8>)>,
    /// Keys per TYPE and per OBJECT ENCODING, in the order first met (sorted by name when
    /// the row is made).
    types: Vec<(String, u64)>,
    encodings: Vec<(&'static str, u64)>,
    bitmap: BitmapStats,
    rare: Option<Box<RareAcc>>,
}

/// The figures of a [`GroupAcc`] that most groups do not have.
#[derive(Default)]
struct RareAcc {
    hll: HllStats,
    hll_seen: bool,
    geo_members: u64,
    geo_bbox: Option<[f64; 4]>,
    geo_sets: u64,
    zsets: u64,
    ledger: Option<LedgerSum>,
}

/// Adds `n` to `name`'s count in `v` (a new entry when absent; room for one more only, as
/// most rows have one name).
fn add_count<K: PartialEq>(v: &mut Vec<(K, u64)>, name: K, n: u64) {
    match v.iter_mut().find(|(k, _)| *k == name) {
        Some((_, c)) => *c += n,
        None => {
            v.reserve_exact(1);
            v.push((name, n));
        }
    }
}

fn min_max(a: Option<(i64, i64)>, lo: i64, hi: i64) -> Option<(i64, i64)> {
    Some(match a {
        None => (lo, hi),
        Some((x, y)) => (x.min(lo), y.max(hi)),
    })
}

fn bbox_union(a: Option<[f64; 4]>, b: [f64; 4]) -> Option<[f64; 4]> {
    Some(match a {
        None => b,
        Some([a1, b1, c1, d1]) => [b[0].min(a1), b[1].min(b1), b[2].max(c1), b[3].max(d1)],
    })
}

impl GroupAcc {
    /// The rare figures, made on first use.
    fn rare(&mut self) -> &mut RareAcc {
        self.rare.get_or_insert_with(Box::default)
    }

    /// Counts the key at position `ord` of the file.
    fn add(&mut self, ord: u64, r: &KeyRow, k: &KeyStats) {
        self.count += 1;
        self.memory += r.memory_or_zero();
        self.len += r.len;
        match self.types.iter_mut().find(|(t, _)| *t == r.type_name) {
            Some((_, n)) => *n += 1,
            None => add_count(&mut self.types, r.type_name.clone(), 1),
        }
        add_count(&mut self.encodings, r.encoding, 1);
        if let Some(ms) = r.expire_at_ms {
            self.with_expiry += 1;
            self.expiry_range_ms = min_max(self.expiry_range_ms, ms, ms);
        }
        if self.examples.len() < 3 {
            if self.examples.is_empty() {
                self.examples.reserve_exact(1);
            }
            self.examples.push((ord, r.key.clone()));
        }
        self.bitmap.keys += k.bitmap.keys;
        self.bitmap.set_bits += k.bitmap.set_bits;
        self.bitmap.bits += k.bitmap.bits;
        if let Some(h) = k.hll {
            let rare = self.rare();
            rare.hll_seen = true;
            let c = match h {
                HllKind::Dense(c) => {
                    rare.hll.dense += 1;
                    c
                }
                HllKind::Sparse(c) => {
                    rare.hll.sparse += 1;
                    c
                }
                HllKind::Invalid => {
                    rare.hll.invalid += 1;
                    return self.add_rest(k);
                }
            };
            rare.hll.cardinality_sum += c;
            rare.hll.cardinality_range = Some(match rare.hll.cardinality_range {
                None => (c, c),
                Some((p, q)) => (p.min(c), q.max(c)),
            });
        }
        self.add_rest(k);
    }

    fn add_rest(&mut self, k: &KeyStats) {
        if let Some(l) = &k.ledger {
            self.rare()
                .ledger
                .get_or_insert_with(LedgerSum::default)
                .merge(l);
        }
        if let Some(z) = &k.zset {
            let rare = self.rare();
            rare.zsets += 1;
            if z.geo {
                rare.geo_sets += 1;
                rare.geo_members += z.members;
                if let Some(b) = z.bbox {
                    rare.geo_bbox = bbox_union(rare.geo_bbox, b);
                }
            }
        }
    }

    /// Adds another class's statistics.
    fn merge(&mut self, o: GroupAcc) {
        self.count += o.count;
        self.memory += o.memory;
        self.len += o.len;
        for (t, n) in o.types {
            add_count(&mut self.types, t, n);
        }
        for (e, n) in o.encodings {
            add_count(&mut self.encodings, e, n);
        }
        self.with_expiry += o.with_expiry;
        if let Some((x, y)) = o.expiry_range_ms {
            self.expiry_range_ms = min_max(self.expiry_range_ms, x, y);
        }
        self.examples.extend(o.examples);
        self.examples.sort_unstable_by_key(|e| e.0);
        self.examples.truncate(3);
        self.bitmap.keys += o.bitmap.keys;
        self.bitmap.set_bits += o.bitmap.set_bits;
        self.bitmap.bits += o.bitmap.bits;
        let Some(o) = o.rare else {
            return;
        };
        let rare = self.rare();
        rare.hll_seen |= o.hll_seen;
        rare.hll.dense += o.hll.dense;
        rare.hll.sparse += o.hll.sparse;
        rare.hll.invalid += o.hll.invalid;
        rare.hll.cardinality_sum += o.hll.cardinality_sum;
        if let Some((x, y)) = o.hll.cardinality_range {
            rare.hll.cardinality_range = Some(match rare.hll.cardinality_range {
                None => (x, y),
                Some((p, q)) => (p.min(x), q.max(y)),
            });
        }
        if let Some(l) = o.ledger {
            rare.ledger.get_or_insert_with(LedgerSum::default).merge(&l);
        }
        rare.zsets += o.zsets;
        rare.geo_sets += o.geo_sets;
        rare.geo_members += o.geo_members;
        if let Some(b) = o.geo_bbox {
            rare.geo_bbox = bbox_union(rare.geo_bbox, b);
        }
    }

    /// The report's row for `pattern`.
    fn finish(self, pattern: Vec<u8>) -> Group {
        let mut types = self.types;
        types.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut encodings = self.encodings;
        encodings.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let rare = self.rare.map(|r| *r).unwrap_or_default();
        Group {
            pattern,
            types,
            encodings: encodings.iter().map(|(e, n)| (e.to_string(), *n)).collect(),
            count: self.count,
            memory: self.memory,
            len: self.len,
            with_expiry: self.with_expiry,
            expiry_range_ms: self.expiry_range_ms,
            examples: self.examples.into_iter().map(|e| e.1).collect(),
            bitmap: (self.bitmap.keys > 0).then_some(self.bitmap),
            hll: rare.hll_seen.then_some(rare.hll),
            ledger: rare.ledger,
            geo: (rare.zsets > 0 && rare.geo_sets == rare.zsets).then_some(GeoStats {
                members: rare.geo_members,
                bbox: rare.geo_bbox,
            }),
        }
    }
}

/// One database's [`patterns::Grouper`], made only once the database has a second key: a
/// database of one key is that key's own row (as a grouper of one key makes it), so that
/// 100,000 one-key databases cost their keys, not a grouper each.
enum DbGrouper {
    One(Vec<u8>),
    Many(Box<patterns::Grouper>),
}

impl DbGrouper {
    /// Pass 1: counts `key` ([`patterns::Grouper::count`]).
    fn count(&mut self, key: &[u8]) {
        match self {
            DbGrouper::One(first) => {
                let mut g = patterns::Grouper::new();
                g.count(first);
                g.count(key);
                *self = DbGrouper::Many(Box::new(g));
            }
            DbGrouper::Many(g) => g.count(key),
        }
    }

    fn seal(&mut self) {
        if let DbGrouper::Many(g) = self {
            g.seal();
        }
    }

    /// Pass 2: the class of `key` ([`patterns::Grouper::class`]; the one key's is 0).
    fn class(&mut self, key: &[u8]) -> u32 {
        match self {
            DbGrouper::One(_) => 0,
            DbGrouper::Many(g) => g.class(key),
        }
    }

    fn class_of(&self, key: &[u8]) -> Option<u32> {
        match self {
            DbGrouper::One(first) => (first.as_slice() == key).then_some(0),
            DbGrouper::Many(g) => g.class_of(key),
        }
    }

    /// The rows ([`patterns::Grouper::resolve`]; one key: its own row).
    fn resolve(&self) -> patterns::Resolved {
        match self {
            DbGrouper::One(_) => patterns::Resolved {
                patterns: Vec::new(),
                outcomes: vec![patterns::Outcome::Exact],
                class_keys: vec![1],
            },
            DbGrouper::Many(g) => g.resolve(),
        }
    }
}

/// One RedisBloom value (Bloom, Cuckoo, Count-Min, Top-K, t-digest) of the report: its key
/// and [`bitlens::probabilistic::Summary`] (the module's BF.INFO / CF.INFO / CMS.INFO /
/// TOPK.INFO / TDIGEST.INFO figures plus fill ratios).
#[derive(Debug, Clone, PartialEq)]
pub struct FilterRow {
    /// The database number.
    pub db: u64,
    /// The key.
    pub key: Vec<u8>,
    /// The module type name (`MBbloom--`, `MBbloomCF`, `CMSk-TYPE`, `TopK-TYPE`, `TDIS-TYPE`).
    pub type_name: String,
    /// Estimated MEMORY USAGE, bytes (see [`crate::memory`]).
    pub memory: Option<u64>,
    /// Its figures (see [`bitlens::probabilistic::Summary`]).
    pub summary: bitlens::probabilistic::Summary,
}

/// Where the report reads the snapshot from.
#[derive(Debug, Clone, Copy)]
pub enum Input<'a> {
    /// Bytes already in memory.
    Bytes(&'a [u8]),
    /// An RDB file, read in windows through the chunked reader ([`bitlens::open`]): one key's
    /// value at a time is held, never the file.
    File(&'a std::path::Path),
}

/// Calls `f` with every key the filter admits, in file order (for the CSV), and returns how
/// the allocator of the rows' memory was chosen. Errors as [`bitlens::rdb::load_rdb`], or the
/// file's I/O error (also of the spill, see [`spill`]).
pub fn for_each_key(
    input: Input<'_>,
    opts: &Options,
    mut f: impl FnMut(&KeyRow),
) -> Result<AllocatorChoice, VisitError> {
    let mut sc = scan(input, opts)?;
    let clock_ms = sc.clock_ms;
    let mut recs = sc.spill.read().map_err(VisitError::Io)?;
    let (mut row, mut stats) = (spill::empty_row(), KeyStats::default());
    while recs
        .next_into(&mut row, &mut stats)
        .map_err(VisitError::Io)?
    {
        // (The TTL, and --min-bytes under the allocator chosen once the scan inferred it.)
        if opts.filter.admits_row(&row, clock_ms) {
            f(&row);
        }
    }
    Ok(sc.allocator.clone())
}

/// Builds the report of an RDB file (see the module docs). Errors as
/// [`bitlens::rdb::load_rdb`].
pub fn report(bytes: &[u8], opts: &Options) -> Result<Report, RdbError> {
    report_from(Input::Bytes(bytes), opts).map_err(|e| match e {
        VisitError::Rdb(e) => e,
        // Only the spill can fail on bytes (a temporary file past the budget).
        VisitError::Io(e) => RdbError::new(
            0,
            bitlens::rdb::ErrorDetail::Write {
                what: "inspect spill (temporary file)",
            },
        )
        .with_cause(e.into()),
    })
}

/// [`report`] of an [`Input`]; errors also carry the file's I/O error.
pub fn report_from(input: Input<'_>, opts: &Options) -> Result<Report, VisitError> {
    report_of(scan(input, opts)?, opts).map_err(VisitError::Io)
}

/// The report of one file's scan (errors: the spill's).
fn report_of(sc: Scan, opts: &Options) -> std::io::Result<Report> {
    let profile = opts
        .compat
        .unwrap_or_else(|| Profile::for_snapshot(&sc.header.aux, sc.header.version));
    let (file_keys, file_dbs) = (sc.file_keys.values().sum(), sc.file_keys.len() as u64);
    let mut r = build(&mut [sc], &Shadowed::default(), profile, opts)?;
    r.file_keys = file_keys;
    r.file_databases = file_dbs;
    r.filtered = opts.filter.is_active();
    Ok(r)
}

/// The start of the input, where the header and the aux fields are (the writer, and so the
/// memory model, is known from them before any key): 1 MiB of a file, or 64 MiB when its
/// aux fields run past that.
fn writer_of(input: Input<'_>) -> Result<bitlens::rdb::Writer, VisitError> {
    let path = match input {
        Input::Bytes(b) => return bitlens::rdb::peek_writer(b).map_err(VisitError::Rdb),
        Input::File(p) => p,
    };
    let mut file = bitlens::open::open_input(path).map_err(VisitError::Io)?;
    match bitlens::open::peek_header(&mut file) {
        Ok((format, aux)) => Ok(bitlens::rdb::Writer::new(format, &aux)),
        Err(e) => Err(VisitError::from_file(e)),
    }
}

/// What the pass over the file keeps: the admitted keys' rows and stats in a [`Spill`]
/// (before the TTL filter, which needs the clock), the RedisBloom values' rows with their
/// expiry, the header, the clock, the file's size, and every key record of the file (filters
/// or not) per database.
struct Scan {
    spill: Spill,
    /// The allocator the rows were estimated for, and why.
    allocator: AllocatorChoice,
    filters: Vec<(Option<i64>, FilterRow)>,
    header: bitlens::rdb::Header,
    clock_ms: i64,
    size: u64,
    file_keys: BTreeMap<u64, u64>,
}

/// One pass over the file, estimating under the allocator given, or else under every
/// candidate while it infers the writer's from every key and the `used-mem` aux field
/// ([`AllocatorInference`]): each admitted key's memory (and ledger) is spilled under each
/// candidate ([`Spill::priced`]) and the rows are read back as the inferred one's, so the
/// file is read once whichever it is, and the figures are those of a scan with that
/// allocator given.
fn scan(input: Input<'_>, opts: &Options) -> Result<Scan, VisitError> {
    let load = LoadOptions {
        verify_checksum: opts.verify_checksum,
        db: opts.filter.db,
        threads: bitlens::open::load_threads(),
        max_value_bytes: opts.max_value_bytes,
        ..Default::default()
    };
    // The writer (and so the memory model) is known from the aux fields before any key.
    let peek = writer_of(input)?;
    let size = match input {
        Input::Bytes(b) => b.len() as u64,
        Input::File(p) => std::fs::metadata(p).map_err(VisitError::Io)?.len(),
    };
    let aux_probe: Vec<(Vec<u8>, Vec<u8>)> = [
        ("redis-ver", &peek.redis_ver),
        ("valkey-ver", &peek.valkey_ver),
        ("ctime", &peek.ctime),
    ]
    .iter()
    .filter_map(|(k, v)| {
        v.as_ref()
            .map(|v| (k.as_bytes().to_vec(), v.clone().into_bytes()))
    })
    .collect();
    let writer_profile = Profile::for_snapshot(&aux_probe, peek.format.version);
    // Priced as loaded at the report's clock (fields expired by then are not counted), under
    // every candidate allocator while it infers.
    let clock = Some(opts.clock.resolve(&aux_probe));
    // Without used-mem there is nothing to compare predictions with: the inference then says
    // the allocator is assumed, whatever the keys, so they are not priced three times over
    // (48 bitmaps of 12.5 MB: 9 of 14 s).
    let mut pricing = Pricing::new(
        writer_profile,
        opts.allocator,
        peek.used_mem.is_some(),
        clock,
    );
    // The candidates each key is priced for: every allocator while inferring, else the one.
    let candidates = pricing.candidates();
    let mut spill = Spill::priced(opts.spill_budget, candidates);
    let mut spill_error: Option<std::io::Error> = None;
    let mut filters = Vec::new();
    let f = &opts.filter;
    let mut bar = opts.progress.as_ref().map(|p| (p.0)(size));
    let mut tick = |done: u64, _total: u64| -> Result<(), bitlens::rdb::Stop> {
        if let Some(b) = &mut bar {
            b(Some(done));
        }
        Ok(())
    };
    let mut file_keys: BTreeMap<u64, u64> = BTreeMap::new();
    // One row, refilled for each key.
    let mut row = KeyRow::empty();
    let visit = |rec: bitlens::rdb::Record<'_>| {
        *file_keys.entry(rec.db).or_default() += 1;
        let Some(value) = rec.value else {
            return Ok(());
        };
        let expiring = rec.expire_at_ms.is_some();
        let observed = pricing.observe(rec.db, &rec.key, &value, expiring);
        if spill_error.is_some()
            || f.glob
                .as_ref()
                .is_some_and(|g| !bitlens::glob::matches(g, &rec.key))
            || f.regex.as_ref().is_some_and(|r| !r.is_match(&rec.key))
        {
            return Ok(());
        }
        if !f.types.is_empty() {
            let type_name = value.redis_type();
            let type_name = type_name.name_str();
            if !f.types.iter().any(|t| t.eq_ignore_ascii_case(&type_name)) {
                return Ok(());
            }
        }
        // Candidate 0 (the usual build) in the row, the others beside it.
        let (est, others) = pricing.estimate(observed, &rec.key, &value, expiring);
        row.set_priced(rec.db, &rec.key, &value, rec.expire_at_ms, est);
        // (--min-bytes by the largest candidate: the rows read back apply it again under the
        // one chosen, [`Filter::admits_row`].)
        let most = others[1..candidates]
            .iter()
            .fold(row.memory_or_zero(), |m, o| m.max(o.unwrap_or(0)));
        if most < f.min_bytes {
            return Ok(());
        }
        let mut ledgers = [None; 3];
        if let Some(lo) = &opts.ledger {
            let ledger_of = |m: &Model| {
                crate::report::key_ledger(m, lo, &rec.key, &value).map(|l| {
                    let mut sum = LedgerSum::default();
                    sum.add(&l);
                    sum
                })
            };
            for (i, m) in pricing.models().iter().enumerate() {
                ledgers[i] = ledger_of(m);
            }
        }
        let stats = KeyStats {
            ledger: ledgers[0],
            ..KeyStats::of(&value, &figures(&value))
        };
        if let Value::Module(m) = &value {
            let s = bitlens::probabilistic::summary(m);
            if !matches!(s, bitlens::probabilistic::Summary::Raw { .. }) {
                filters.push((
                    row.expire_at_ms,
                    FilterRow {
                        db: row.db,
                        key: row.key.clone(),
                        type_name: row.type_name.clone(),
                        memory: row.memory,
                        summary: s,
                    },
                    others,
                ));
            }
        }
        if let Err(e) = spill.push_priced(
            &row,
            &stats,
            &others[1..candidates],
            &ledgers[1..candidates],
        ) {
            spill_error = Some(e);
        }
        Ok(())
    };
    let header = match input {
        Input::Bytes(b) => {
            bitlens::rdb::visit_rdb_progress(b, &load, &mut tick, visit).map_err(VisitError::Rdb)?
        }
        Input::File(p) => bitlens::open::visit_file(p, &load, &mut tick, visit)?.0,
    };
    if let Some(b) = &mut bar {
        b(None);
    }
    if let Some(e) = spill_error {
        return Err(VisitError::Io(e));
    }
    let clock_ms = opts.clock.resolve(&header.aux);
    // The rows and the RedisBloom values read as the allocator chosen.
    let (allocator, pick) = pricing.finish(&header.aux, header.slot_infos > 0);
    spill.choose(pick);
    let filters = filters
        .into_iter()
        .map(|(e, mut r, others)| {
            if pick > 0 {
                r.memory = others[pick];
            }
            (e, r)
        })
        .collect();
    Ok(Scan {
        allocator,
        spill,
        filters,
        header,
        clock_ms,
        size,
        file_keys,
    })
}

/// The report from the spilled rows, in passes over them (the TTL filter applied in each):
/// (1) the figures that need no groups (per database, by type, top N, TTL, expiry per day,
/// distributions, slots, prefixes) and each database's [`patterns::Grouper`] counts; then,
/// only with more distinct prefixes than [`Options::prefix_cap`], the prefix tree level by
/// level; (2) each key's class, and the statistics per class; (3) only when a class of two or
/// more keys fell apart into exact rows, those keys' own rows.
fn build(
    scans: &mut [Scan],
    shadowed: &Shadowed,
    profile: &'static Profile,
    opts: &Options,
) -> std::io::Result<Report> {
    let clock_ms = scans[0].clock_ms;
    let ttl_filter = opts.filter.ttl;
    let admits = |r: &KeyRow| opts.filter.admits_row(r, clock_ms);
    // Pass 1.
    let mut groupers: BTreeMap<u64, DbGrouper> = BTreeMap::new();
    let mut db_sums: BTreeMap<u64, (u64, u64, u64)> = BTreeMap::new(); // keys, expires, memory
    let mut by_type = crate::report::ByType::default();
    let mut top = crate::report::Top::new(opts.top);
    let mut expiring = Expiring::new(clock_ms, opts.expires_within_days);
    let mut ttl = crate::report::TtlHistogram::new(clock_ms);
    let mut prefixes =
        crate::report::PrefixTree::with_cap(&opts.separators, opts.depth, opts.prefix_cap);
    let mut dist: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let want_slots = opts
        .slots
        .unwrap_or(scans.iter().any(|sc| sc.header.slot_infos > 0));
    let mut slot_sums: BTreeMap<u16, (u64, u64)> = BTreeMap::new();
    let (mut keys, mut memory) = (0u64, 0u64);
    for_rows(scans, shadowed, |row, _| {
        if !admits(row) {
            return;
        }
        let mem = row.memory_or_zero();
        keys += 1;
        memory += mem;
        match groupers.entry(row.db) {
            std::collections::btree_map::Entry::Vacant(v) => {
                v.insert(DbGrouper::One(row.key.clone()));
            }
            std::collections::btree_map::Entry::Occupied(mut o) => o.get_mut().count(&row.key),
        }
        let d = db_sums.entry(row.db).or_default();
        d.0 += 1;
        d.1 += row.expire_at_ms.is_some() as u64;
        d.2 += mem;
        by_type.add(row);
        top.add(row);
        expiring.add(row);
        ttl.add(row);
        prefixes.add(row);
        if row.type_name != "string" {
            let counts = match dist.get_mut(row.type_name.as_str()) {
                Some(c) => c,
                None => dist
                    .entry(row.type_name.clone())
                    .or_insert_with(|| vec![0; DIST_BUCKETS.len()]),
            };
            let b = DIST_BUCKETS
                .iter()
                .position(|(hi, _)| row.len <= *hi)
                .unwrap_or(0);
            counts[b] += 1;
        }
        if want_slots {
            let e = slot_sums.entry(key_slot(&row.key)).or_default();
            e.0 += 1;
            e.1 += mem;
        }
    })?;
    groupers.values_mut().for_each(DbGrouper::seal);
    // More prefixes than the cap: the prefix tree level by level, a pass each, counted in
    // memory until the level holds more than the cap, then in partitions on disk
    // ([`spill::PrefixPartitions`], as many as the keys could fill at the cap, half again for
    // the hash's spread), each tallied alone.
    prefixes.end_pass();
    while prefixes.wants_pass() {
        let parts = (keys.saturating_mul(3) / 2)
            .div_ceil(opts.prefix_cap.max(1) as u64)
            .max(2);
        let mut split: Option<spill::PrefixPartitions> = None;
        let mut failed = None;
        for_rows(scans, shadowed, |row, _| {
            if failed.is_some() || !admits(row) {
                return;
            }
            let Some(p) = prefixes.level_prefix(&row.key) else {
                return;
            };
            let mem = row.memory_or_zero();
            let written = match &mut split {
                None => {
                    prefixes.count_prefix(p, 1, mem);
                    if !prefixes.over_cap() {
                        return;
                    }
                    let mut s = spill::PrefixPartitions::new(parts, opts.spill_budget);
                    let moved = prefixes
                        .drain_partition()
                        .try_for_each(|(p, k, m)| s.push(&p, k, m));
                    split = Some(s);
                    moved
                }
                Some(s) => s.push(p, 1, mem),
            };
            if let Err(e) = written {
                failed = Some(e);
            }
        })?;
        if let Some(e) = failed {
            return Err(e);
        }
        match split {
            None => prefixes.end_partition(),
            Some(s) => s.replay(|record| match record {
                Some((p, k, m)) => prefixes.count_prefix(p, k, m),
                None => prefixes.end_partition(),
            })?,
        }
        prefixes.end_level();
    }
    // Pass 2: statistics per class.
    let mut class_accs: BTreeMap<u64, Vec<GroupAcc>> = BTreeMap::new();
    let mut ord = 0u64;
    for_rows(scans, shadowed, |row, stats| {
        ord += 1;
        if !admits(row) {
            return;
        }
        let Some(g) = groupers.get_mut(&row.db) else {
            return;
        };
        let c = g.class(&row.key) as usize;
        let accs = class_accs.entry(row.db).or_default();
        if c == accs.len() {
            if accs.is_empty() {
                // (Most databases hold one class: room for it alone.)
                accs.reserve_exact(1);
            }
            accs.push(GroupAcc::default());
        }
        accs[c].add(ord, row, stats);
    })?;
    // The rows: wildcard rows merge their classes; a class of one key whose row is exact is
    // that key's row; a larger class that fell apart needs pass 3.
    let mut groups_of: BTreeMap<u64, Vec<Group>> = BTreeMap::new();
    let mut apart: BTreeMap<u64, Vec<bool>> = BTreeMap::new();
    for (db, g) in &groupers {
        let resolved = g.resolve();
        let mut rows: Vec<GroupAcc> = resolved
            .patterns
            .iter()
            .map(|_| GroupAcc::default())
            .collect();
        let mut split = vec![false; resolved.outcomes.len()];
        let accs = class_accs.remove(db).unwrap_or_default();
        // Room for the rows alone (one, for most databases of a file of many).
        let exact_rows = accs
            .iter()
            .zip(&resolved.outcomes)
            .filter(|(a, o)| **o == patterns::Outcome::Exact && a.count == 1)
            .count();
        let mut groups = Vec::with_capacity(exact_rows + resolved.patterns.len());
        for (c, acc) in accs.into_iter().enumerate() {
            match resolved.outcomes[c] {
                patterns::Outcome::Row(i) => rows[i as usize].merge(acc),
                patterns::Outcome::Exact if acc.count == 1 => {
                    let pattern = patterns::exact(&acc.examples[0].1);
                    groups.push(acc.finish(pattern));
                }
                patterns::Outcome::Exact => split[c] = true,
            }
        }
        groups.extend(
            rows.into_iter()
                .zip(&resolved.patterns)
                .map(|(acc, p)| acc.finish(p.clone())),
        );
        if split.contains(&true) {
            apart.insert(*db, split);
        }
        groups_of.insert(*db, groups);
    }
    // Pass 3.
    if !apart.is_empty() {
        let mut ord = 0u64;
        for_rows(scans, shadowed, |row, stats| {
            ord += 1;
            let (Some(split), Some(g)) = (apart.get(&row.db), groupers.get(&row.db)) else {
                return;
            };
            if !admits(row) {
                return;
            }
            if g.class_of(&row.key).is_some_and(|c| split[c as usize]) {
                let mut acc = GroupAcc::default();
                acc.add(ord, row, stats);
                let pattern = patterns::exact(&row.key);
                groups_of
                    .entry(row.db)
                    .or_default()
                    .push(acc.finish(pattern));
            }
        })?;
    }
    let mut databases = Vec::new();
    for (db, mut groups) in groups_of {
        groups.sort_by(|a, b| {
            b.memory
                .cmp(&a.memory)
                .then_with(|| a.pattern.cmp(&b.pattern))
        });
        let (keys, expires, memory) = db_sums.get(&db).copied().unwrap_or_default();
        databases.push(DbReport {
            db,
            keys,
            expires,
            memory,
            groups,
        });
    }
    // By type and encoding, and the top N: the core's figures (the panel's memory view shows
    // the same).
    let by_type: Vec<Tally> = by_type
        .finish()
        .into_iter()
        .map(|t| Tally {
            name: format!("{}/{}", t.type_name, t.encoding).into_bytes(),
            keys: t.keys,
            memory: t.memory,
        })
        .collect();
    let distributions = dist
        .into_iter()
        .map(|(type_name, counts)| Distribution { type_name, counts })
        .collect();
    let slots = want_slots.then(|| {
        slot_sums
            .into_iter()
            .map(|(s, (keys, memory))| Tally {
                name: s.to_string().into_bytes(),
                keys,
                memory,
            })
            .collect()
    });
    let mut filters: Vec<FilterRow> = Vec::new();
    let f = &opts.filter;
    for (i, sc) in scans.iter_mut().enumerate() {
        filters.extend(
            std::mem::take(&mut sc.filters)
                .into_iter()
                .filter(|(e, r)| {
                    ttl_filter.is_none_or(|t| t.admits(*e, clock_ms))
                        && r.memory.unwrap_or(0) >= f.min_bytes
                        && (f.types.is_empty()
                            || f.types.iter().any(|t| t.eq_ignore_ascii_case(&r.type_name)))
                        && !shadowed.contains(i, r.db, &r.key)
                })
                .map(|(_, r)| r),
        );
    }
    filters.sort_by(|a, b| (a.db, &a.key).cmp(&(b.db, &b.key)));
    let sc = &scans[0];
    let header = &sc.header;
    Ok(Report {
        version: header.version,
        writer: header.writer(),
        module_aux: header
            .module_aux
            .iter()
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .collect(),
        aux: header.aux.clone(),
        stored_checksum: header.stored_checksum,
        checksum_verified: opts.verify_checksum && header.stored_checksum != 0,
        file_bytes: scans.iter().map(|sc| sc.size).sum(),
        profile,
        profile_is_writer: opts.compat.is_none(),
        allocator: sc.allocator.allocator,
        allocator_choice: sc.allocator.clone(),
        clock_ms,
        file_keys: keys,
        file_databases: databases.len() as u64,
        filtered: false,
        keys,
        memory,
        databases,
        by_type,
        top: top.finish(),
        prefixes: prefixes.finish(),
        ttl: ttl.finish(),
        expiring,
        distributions,
        slots,
        filters,
        files: Vec::new(),
    })
}
