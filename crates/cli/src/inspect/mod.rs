//! `bitlens inspect`: what is in a snapshot, what it costs, what will expire.
//!
//! One pass over the file ([`bitlens::rdb::visit_rdb`]) decodes each key, estimates its
//! memory with [`bitlens::memory`] (the writer's `MEMORY USAGE key SAMPLES 0`), and keeps a
//! small [`KeyRow`] per key (name, type, encoding, memory, lengths, expiry); the value is
//! dropped. From the rows: exact group patterns per database ([`patterns`]), memory per
//! type and encoding, the top N keys, a prefix tree, a TTL section, what expires within N
//! days per day, element-count distributions and, for cluster nodes, bytes per slot. The
//! row, the pattern grouping, the top N, the per-type sums and the per-day expiry are the
//! core's ([`bitlens::report`], [`bitlens::patterns`]), which the panel's memory view uses too. Rendering is in [`render`]: text
//! (names escaped by [`bitlens::escape`], widths capped with `…`), one JSON document, and
//! rdbtools' memory CSV.
//!
//! Every size is labelled: `memory` is the estimate, `value length` is STRLEN or the
//! element count.

pub mod render;

pub use bitlens::patterns;
pub use bitlens::report::{
    DayTally, Expiring, KeyRow, LedgerOptions, LedgerSum, Prefix, Tally, PREFIX_CHILDREN,
    TTL_BUCKETS,
};

use std::collections::BTreeMap;

pub use crate::source::VisitError;
use bitlens::classify::{classify, geo_position, Class};
use bitlens::dialect::Profile;
use bitlens::keyspace::Value;
use bitlens::memory::{Allocator, Model};
use bitlens::rdb::{LoadOptions, RdbError};
use bitlens::session::Clock;

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
                .and_then(|n| n.checked_mul(mul))
                .map(Some)
                .ok_or_else(|| format!("--ttl {t:?}: a number with unit s, m, h or d"))
        };
        Ok(TtlFilter::Range(dur(a)?, dur(b)?))
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

/// How to build a report.
#[derive(Debug, Clone)]
pub struct Options {
    /// Verify the CRC-64 trailer.
    pub verify_checksum: bool,
    /// Answer as this profile instead of the writer's (`--compat`).
    pub compat: Option<&'static Profile>,
    /// The clock expiry is judged at.
    pub clock: Clock,
    /// The allocator of the writer's build (`--allocator`).
    pub allocator: Allocator,
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
    /// ([`bitlens::report::key_ledger`]).
    pub ledger: Option<LedgerOptions>,
    /// Draw a progress bar on stderr (bytes read, MB/s, ETA; the CLI sets it when stderr is a
    /// terminal).
    pub progress: bool,
    /// The "expiring" section covers this many days from the clock, one row per day
    /// (`--expires-within`, default 7; see [`bitlens::report::expiring`]).
    pub expires_within_days: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            verify_checksum: true,
            compat: None,
            clock: Clock::Snapshot,
            allocator: Allocator::Jemalloc,
            top: 20,
            separators: vec![b':'],
            depth: 2,
            slots: None,
            filter: Filter::default(),
            ledger: None,
            progress: false,
            expires_within_days: 7,
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
    pub sparse: u64,
    pub invalid: u64,
    /// Smallest and largest PFCOUNT of the valid ones, and their sum.
    pub cardinality_range: Option<(u64, u64)>,
    pub cardinality_sum: u64,
}

/// GEO statistics: members and bounding box (min lon, min lat, max lon, max lat), degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeoStats {
    pub members: u64,
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
    pub expiry_range_ms: Option<(i64, i64)>,
    /// Up to three example keys.
    pub examples: Vec<Vec<u8>>,
    pub bitmap: Option<BitmapStats>,
    pub hll: Option<HllStats>,
    pub geo: Option<GeoStats>,
    /// The memory ledger over the row's bitmaps and integer-id sets (with `--ledger`).
    pub ledger: Option<LedgerSum>,
}

/// One database.
#[derive(Debug, Clone, PartialEq)]
pub struct DbReport {
    pub db: u64,
    pub keys: u64,
    pub expires: u64,
    pub memory: u64,
    /// Rows by memory (descending), then pattern.
    pub groups: Vec<Group>,
}

/// The element-count distribution of one collection type.
#[derive(Debug, Clone, PartialEq)]
pub struct Distribution {
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
    pub version: u32,
    pub writer: bitlens::rdb::Writer,
    pub module_aux: Vec<String>,
    pub aux: Vec<(Vec<u8>, Vec<u8>)>,
    pub stored_checksum: u64,
    pub checksum_verified: bool,
    pub file_bytes: u64,
    /// Profile answering (name, server, is the writer).
    pub profile: &'static Profile,
    pub profile_is_writer: bool,
    /// The allocator the memory is estimated for.
    pub allocator: Allocator,
    pub clock_ms: i64,
    /// Key records in the file and the databases holding them, before any filter.
    pub file_keys: u64,
    pub file_databases: u64,
    /// Whether a filter (`--db`, `--type`, `--match`/`--regex`, `--ttl`, `--min-bytes`)
    /// chose the keys counted.
    pub filtered: bool,
    /// Keys counted (after filters) and their memory.
    pub keys: u64,
    pub memory: u64,
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
    pub distributions: Vec<Distribution>,
    /// Per cluster slot (name = slot number as text), slot ascending; `None` when not asked.
    pub slots: Option<Vec<Tally>>,
    /// The RedisBloom values, by database then key.
    pub filters: Vec<FilterRow>,
}

/// One key's statistics, kept beside its row until the groups are known. Every string has
/// bitmap figures, so those are inline; the rest (HLL, GEO, ledger, module figures) is rare and
/// boxed, so that a file of millions of small keys costs 32 bytes a key here, not the 336 of a
/// whole [`Acc`].
struct KeyAcc {
    bitmap: BitmapStats,
    rest: Option<Box<Acc>>,
}

impl KeyAcc {
    fn new(acc: Acc) -> KeyAcc {
        let plain =
            !acc.hll_seen && acc.zsets == 0 && acc.ledger.is_none() && acc.probabilistic.is_none();
        KeyAcc {
            bitmap: acc.bitmap,
            rest: (!plain).then(|| Box::new(acc)),
        }
    }
}

/// Statistics of a group, and (boxed in a [`KeyAcc`]) of one key.
#[derive(Default)]
struct Acc {
    types: BTreeMap<String, u64>,
    encodings: BTreeMap<&'static str, u64>,
    bitmap: BitmapStats,
    hll: HllStats,
    hll_seen: bool,
    geo_members: u64,
    geo_bbox: Option<[f64; 4]>,
    geo_sets: u64,
    zsets: u64,
    ledger: Option<LedgerSum>,
    /// The figures of a RedisBloom value.
    probabilistic: Option<bitlens::probabilistic::Summary>,
}

/// One RedisBloom value (Bloom, Cuckoo, Count-Min, Top-K, t-digest) of the report: its key
/// and [`bitlens::probabilistic::Summary`] (the module's BF.INFO / CF.INFO / CMS.INFO /
/// TOPK.INFO / TDIGEST.INFO figures plus fill ratios).
#[derive(Debug, Clone, PartialEq)]
pub struct FilterRow {
    pub db: u64,
    pub key: Vec<u8>,
    /// The module type name (`MBbloom--`, `MBbloomCF`, `CMSk-TYPE`, `TopK-TYPE`, `TDIS-TYPE`).
    pub type_name: String,
    /// Estimated MEMORY USAGE, bytes (see [`bitlens::memory`]).
    pub memory: Option<u64>,
    pub summary: bitlens::probabilistic::Summary,
}

/// The cluster slot of a key: CRC16 (XMODEM) of the key or of its `{hash tag}`, mod 16384.
pub fn key_slot(key: &[u8]) -> u16 {
    let mut k = key;
    if let Some(open) = key.iter().position(|&b| b == b'{') {
        if let Some(close) = key[open + 1..].iter().position(|&b| b == b'}') {
            if close > 0 {
                k = &key[open + 1..open + 1 + close];
            }
        }
    }
    const X: crc::Crc<u16> = crc::Crc::<u16>::new(&crc::CRC_16_XMODEM);
    X.checksum(k) & 16383
}

/// Where the report reads the snapshot from.
#[derive(Debug, Clone, Copy)]
pub enum Input<'a> {
    /// Bytes already in memory.
    Bytes(&'a [u8]),
    /// An RDB file, read in windows through the chunked reader ([`crate::source`]): one key's
    /// value at a time is held, never the file.
    File(&'a std::path::Path),
}

/// Calls `f` with every key the filter admits, in file order (for the CSV). Errors as
/// [`bitlens::rdb::load_rdb`], or the file's I/O error.
pub fn for_each_key(
    input: Input<'_>,
    opts: &Options,
    mut f: impl FnMut(&KeyRow),
) -> Result<(), VisitError> {
    scan(input, opts)?.rows.iter().for_each(&mut f);
    Ok(())
}

/// Builds the report of an RDB file (see the module docs). Errors as
/// [`bitlens::rdb::load_rdb`].
pub fn report(bytes: &[u8], opts: &Options) -> Result<Report, RdbError> {
    report_from(Input::Bytes(bytes), opts).map_err(|e| match e {
        VisitError::Rdb(e) => e,
        VisitError::Io(e) => unreachable!("no I/O on bytes: {e}"),
    })
}

/// [`report`] of an [`Input`]; errors also carry the file's I/O error.
pub fn report_from(input: Input<'_>, opts: &Options) -> Result<Report, VisitError> {
    let sc = scan(input, opts)?;
    let profile = opts
        .compat
        .unwrap_or_else(|| Profile::for_snapshot(&sc.header.aux, sc.header.version));
    let (file_keys, file_dbs) = (sc.file_keys.values().sum(), sc.file_keys.len() as u64);
    let mut r = build(
        sc.rows,
        sc.accs,
        sc.header,
        sc.size,
        profile,
        opts,
        sc.clock_ms,
    );
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
    use std::io::Read;
    let mut last = None;
    for head_len in [1u64 << 20, 64 << 20] {
        let mut head = Vec::new();
        let file = std::fs::File::open(path).map_err(VisitError::Io)?;
        let size = file.metadata().map_err(VisitError::Io)?.len();
        file.take(head_len)
            .read_to_end(&mut head)
            .map_err(VisitError::Io)?;
        match bitlens::rdb::peek_writer(&head) {
            Ok(w) => return Ok(w),
            Err(e) if size > head_len => last = Some(e),
            Err(e) => return Err(VisitError::Rdb(e)),
        }
    }
    Err(VisitError::Rdb(last.expect("a failed peek")))
}

/// One pass over the file: the admitted keys' rows and statistics, the header, the clock.
#[allow(clippy::type_complexity)]
/// What one pass over the file keeps: the admitted keys' rows and stats, the header, the
/// clock, the file's size, and every key record of the file (filters or not) per database.
struct Scan {
    rows: Vec<KeyRow>,
    accs: Vec<KeyAcc>,
    header: bitlens::rdb::Header,
    clock_ms: i64,
    size: u64,
    file_keys: BTreeMap<u64, u64>,
}

fn scan(input: Input<'_>, opts: &Options) -> Result<Scan, VisitError> {
    let load = LoadOptions {
        verify_checksum: opts.verify_checksum,
        db: opts.filter.db,
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
    ]
    .iter()
    .filter_map(|(k, v)| {
        v.as_ref()
            .map(|v| (k.as_bytes().to_vec(), v.clone().into_bytes()))
    })
    .collect();
    let writer_profile = Profile::for_snapshot(&aux_probe, peek.format.version);
    let model = Model::new(writer_profile, opts.allocator);
    let mut rows: Vec<KeyRow> = Vec::new();
    let mut accs: Vec<KeyAcc> = Vec::new(); // per row: stats, merged into groups later
    let f = &opts.filter;
    let bar = opts.progress.then(|| {
        let bar = indicatif::ProgressBar::new(size);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let mut tick = |done: u64, _total: u64| -> Result<(), String> {
        if let Some(b) = &bar {
            b.set_position(done);
        }
        Ok(())
    };
    let mut file_keys: BTreeMap<u64, u64> = BTreeMap::new();
    let visit = |rec: bitlens::rdb::Record<'_>| {
        *file_keys.entry(rec.db).or_default() += 1;
        let Some(value) = rec.value else {
            return Ok(());
        };
        if f.glob
            .as_ref()
            .is_some_and(|g| !bitlens::glob::matches(g, &rec.key))
            || f.regex.as_ref().is_some_and(|r| !r.is_match(&rec.key))
        {
            return Ok(());
        }
        let type_name = value.redis_type().name();
        if !f.types.is_empty() && !f.types.iter().any(|t| t.eq_ignore_ascii_case(&type_name)) {
            return Ok(());
        }
        let row = KeyRow::new(rec.db, &rec.key, &value, rec.expire_at_ms, &model);
        if row.memory_or_zero() < f.min_bytes {
            return Ok(());
        }
        let mut acc = Acc::default();
        if let Some(lo) = &opts.ledger {
            if let Some(l) = bitlens::report::key_ledger(&model, lo, &rec.key, &value) {
                let mut sum = LedgerSum::default();
                sum.add(&l);
                acc.ledger = Some(sum);
            }
        }
        match (&value, classify(&value)) {
            (Value::String(s), Class::Hll(enc)) => {
                acc.hll_seen = true;
                match enc {
                    bitlens::hll::Encoding::Dense => acc.hll.dense = 1,
                    bitlens::hll::Encoding::Sparse => acc.hll.sparse = 1,
                }
                let c = if s.len() > bitlens::classify::MAX_DECODED_HLL_BYTES {
                    bitlens::hll::cached_cardinality(&s.range(0, 15)).unwrap_or(0)
                } else {
                    bitlens::hll::count_readonly(&s.as_bytes()).unwrap_or(0)
                };
                acc.hll.cardinality_sum = c;
                acc.hll.cardinality_range = Some((c, c));
            }
            (Value::String(_), Class::CorruptHll) => {
                acc.hll_seen = true;
                acc.hll.invalid = 1;
            }
            (Value::String(s), Class::Bitmap) => {
                acc.bitmap = BitmapStats {
                    keys: 1,
                    set_bits: s.popcount(),
                    bits: 8 * s.len(),
                };
            }
            (Value::Module(m), _) => {
                let s = bitlens::probabilistic::summary(m);
                if !matches!(s, bitlens::probabilistic::Summary::Raw { .. }) {
                    acc.probabilistic = Some(s);
                }
            }
            (Value::ZSet(z), class) => {
                acc.zsets = 1;
                if class == Class::Geo {
                    acc.geo_sets = 1;
                    acc.geo_members = z.len() as u64;
                    for (_, score) in z.iter() {
                        if let Some((lon, lat)) = geo_position(score) {
                            acc.geo_bbox = Some(match acc.geo_bbox {
                                None => [lon, lat, lon, lat],
                                Some([a, b, c, d]) => {
                                    [a.min(lon), b.min(lat), c.max(lon), d.max(lat)]
                                }
                            });
                        }
                    }
                }
            }
            _ => {}
        }
        rows.push(row);
        accs.push(KeyAcc::new(acc));
        Ok(())
    };
    let header = match input {
        Input::Bytes(b) => {
            bitlens::rdb::visit_rdb_progress(b, &load, &mut tick, visit).map_err(VisitError::Rdb)?
        }
        Input::File(p) => crate::source::visit_file(p, &load, &mut tick, visit)?.0,
    };
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let clock_ms = opts.clock.resolve(&header.aux);
    // The TTL filter needs the clock, known once the aux fields are read.
    if let Some(t) = f.ttl {
        let keep: Vec<bool> = rows
            .iter()
            .map(|r| t.admits(r.expire_at_ms, clock_ms))
            .collect();
        let mut it = keep.iter();
        rows.retain(|_| *it.next().unwrap());
        let mut it = keep.iter();
        accs.retain(|_| *it.next().unwrap());
    }
    Ok(Scan {
        rows,
        accs,
        header,
        clock_ms,
        size,
        file_keys,
    })
}

fn build(
    rows: Vec<KeyRow>,
    accs: Vec<KeyAcc>,
    header: bitlens::rdb::Header,
    file_bytes: u64,
    profile: &'static Profile,
    opts: &Options,
    clock_ms: i64,
) -> Report {
    let mem = |r: &KeyRow| r.memory.unwrap_or(0);
    // Databases and their exact pattern groups.
    let per_db = bitlens::report::per_db(&rows);
    let mut databases = Vec::new();
    for (db, idx) in &per_db {
        let keys: Vec<&[u8]> = idx.iter().map(|&i| rows[i].key.as_slice()).collect();
        let mut groups: Vec<Group> = patterns::group(&keys)
            .into_iter()
            .map(|(pattern, members)| {
                let mut g = Group {
                    pattern,
                    types: Vec::new(),
                    encodings: Vec::new(),
                    count: 0,
                    memory: 0,
                    len: 0,
                    with_expiry: 0,
                    expiry_range_ms: None,
                    examples: Vec::new(),
                    bitmap: None,
                    hll: None,
                    geo: None,
                    ledger: None,
                };
                let mut acc = Acc::default();
                let plain = Acc::default();
                let mut members: Vec<usize> = members.into_iter().map(|m| idx[m]).collect();
                members.sort_unstable();
                for &i in &members {
                    let (r, k) = (&rows[i], &accs[i]);
                    let a = k.rest.as_deref().unwrap_or(&plain);
                    g.count += 1;
                    g.memory += mem(r);
                    g.len += r.len;
                    *acc.types.entry(r.type_name.clone()).or_default() += 1;
                    *acc.encodings.entry(r.encoding).or_default() += 1;
                    if let Some(ms) = r.expire_at_ms {
                        g.with_expiry += 1;
                        g.expiry_range_ms = Some(match g.expiry_range_ms {
                            None => (ms, ms),
                            Some((x, y)) => (x.min(ms), y.max(ms)),
                        });
                    }
                    if g.examples.len() < 3 {
                        g.examples.push(r.key.clone());
                    }
                    acc.bitmap.keys += k.bitmap.keys;
                    acc.bitmap.set_bits += k.bitmap.set_bits;
                    acc.bitmap.bits += k.bitmap.bits;
                    acc.hll_seen |= a.hll_seen;
                    acc.hll.dense += a.hll.dense;
                    acc.hll.sparse += a.hll.sparse;
                    acc.hll.invalid += a.hll.invalid;
                    acc.hll.cardinality_sum += a.hll.cardinality_sum;
                    if let Some((x, y)) = a.hll.cardinality_range {
                        acc.hll.cardinality_range = Some(match acc.hll.cardinality_range {
                            None => (x, y),
                            Some((p, q)) => (p.min(x), q.max(y)),
                        });
                    }
                    if let Some(l) = a.ledger {
                        acc.ledger.get_or_insert_with(LedgerSum::default).merge(&l);
                    }
                    acc.zsets += a.zsets;
                    acc.geo_sets += a.geo_sets;
                    acc.geo_members += a.geo_members;
                    if let Some([a0, b0, c0, d0]) = a.geo_bbox {
                        acc.geo_bbox = Some(match acc.geo_bbox {
                            None => [a0, b0, c0, d0],
                            Some([a1, b1, c1, d1]) => {
                                [a0.min(a1), b0.min(b1), c0.max(c1), d0.max(d1)]
                            }
                        });
                    }
                }
                g.types = acc.types.into_iter().collect();
                g.encodings = acc
                    .encodings
                    .iter()
                    .map(|(e, n)| (e.to_string(), *n))
                    .collect();
                g.bitmap = (acc.bitmap.keys > 0).then_some(acc.bitmap);
                g.hll = acc.hll_seen.then_some(acc.hll);
                g.ledger = acc.ledger;
                g.geo = (acc.zsets > 0 && acc.geo_sets == acc.zsets).then_some(GeoStats {
                    members: acc.geo_members,
                    bbox: acc.geo_bbox,
                });
                g
            })
            .collect();
        groups.sort_by(|a, b| {
            b.memory
                .cmp(&a.memory)
                .then_with(|| a.pattern.cmp(&b.pattern))
        });
        databases.push(DbReport {
            db: *db,
            keys: idx.len() as u64,
            expires: idx
                .iter()
                .filter(|&&i| rows[i].expire_at_ms.is_some())
                .count() as u64,
            memory: idx.iter().map(|&i| mem(&rows[i])).sum(),
            groups,
        });
    }
    // By type and encoding, and the top N: the core's figures (the panel's memory view shows
    // the same).
    let by_type: Vec<Tally> = bitlens::report::by_type(&rows)
        .into_iter()
        .map(|t| Tally {
            name: format!("{}/{}", t.type_name, t.encoding).into_bytes(),
            keys: t.keys,
            memory: t.memory,
        })
        .collect();
    let top = bitlens::report::top(&rows, opts.top);
    let expiring = bitlens::report::expiring(&rows, clock_ms, opts.expires_within_days);
    let ttl = bitlens::report::ttl_histogram(&rows, clock_ms);
    // Distributions.
    let mut dist: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.type_name != "string") {
        let d = dist
            .entry(r.type_name.clone())
            .or_insert_with(|| vec![0; DIST_BUCKETS.len()]);
        let b = DIST_BUCKETS
            .iter()
            .position(|(hi, _)| r.len <= *hi)
            .unwrap_or(0);
        d[b] += 1;
    }
    let distributions = dist
        .into_iter()
        .map(|(type_name, counts)| Distribution { type_name, counts })
        .collect();
    // Slots.
    let want_slots = opts.slots.unwrap_or(header.slot_infos > 0);
    let slots = want_slots.then(|| {
        let mut m: BTreeMap<u16, (u64, u64)> = BTreeMap::new();
        for r in &rows {
            let e = m.entry(key_slot(&r.key)).or_default();
            e.0 += 1;
            e.1 += mem(r);
        }
        m.into_iter()
            .map(|(s, (keys, memory))| Tally {
                name: s.to_string().into_bytes(),
                keys,
                memory,
            })
            .collect()
    });
    let prefixes = bitlens::report::prefix_tree(&rows, &opts.separators, opts.depth);
    let mut filters: Vec<FilterRow> = rows
        .iter()
        .zip(&accs)
        .filter_map(|(r, a)| {
            Some(FilterRow {
                db: r.db,
                key: r.key.clone(),
                type_name: r.type_name.clone(),
                memory: r.memory,
                summary: a.rest.as_ref()?.probabilistic.clone()?,
            })
        })
        .collect();
    filters.sort_by(|a, b| (a.db, &a.key).cmp(&(b.db, &b.key)));
    Report {
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
        file_bytes,
        profile,
        profile_is_writer: opts.compat.is_none(),
        allocator: opts.allocator,
        clock_ms,
        file_keys: rows.len() as u64,
        file_databases: per_db.len() as u64,
        filtered: false,
        keys: rows.len() as u64,
        memory: rows.iter().map(mem).sum(),
        databases,
        by_type,
        top,
        prefixes,
        ttl,
        expiring,
        distributions,
        slots,
        filters,
    }
}
