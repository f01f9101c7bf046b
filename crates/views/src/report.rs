//! The memory report of a snapshot's keys: the figures `bitlens inspect` prints and the panel's
//! memory view shows, computed once here from one small [`KeyRow`] per key.
//!
//! - A [`KeyRow`] keeps a key's database, name, TYPE, `OBJECT ENCODING`, the
//!   [`crate::memory`] estimate of `MEMORY USAGE key SAMPLES 0` on the writer, its value
//!   length and expiry; the value itself is dropped.
//! - [`top`]: the N biggest keys by that estimate (ties by database, then key bytes).
//! - [`by_type`]: keys and memory per TYPE and encoding.
//! - [`by_pattern`]: keys and memory per exact group pattern of each database
//!   ([`crate::patterns::group`]: pasted into `KEYS`, a pattern matches exactly its keys).
//! - [`expiring`]: keys whose expiry falls within `days` days of the clock, per day. Day `i`
//!   (0-based) holds the keys with `i·24h < expire_at − clock ≤ (i+1)·24h` (day 0 also holds
//!   `expire_at = clock`); a key with `expire_at < clock` is already expired (as the keyspace
//!   judges it: alive while `clock ≤ expire_at`) and counted apart.
//!
//! - [`ttl_histogram`]: keys and memory with no expiry, already expired, and expiring within
//!   1 h / 1 d / 7 d / later of the clock ([`TTL_BUCKETS`]).
//! - [`prefix_tree`]: keys and memory per key prefix of up to `depth` segments (split at any
//!   of the separators), depth-first, children by memory.
//! - The memory ledger ([`LedgerOptions`], [`key_ledger`], [`LedgerSum`] per pattern): what
//!   the members of a bitmap, an integer-id set or a BITFIELD state key would cost as the other
//!   representations ([`crate::memory::Model::ledger`], [`crate::memory::Model::bitfield_ledger`]).
//!
//! [`top`], [`by_type`], [`expiring`], [`ttl_histogram`] and [`prefix_tree`] are also
//! accumulators fed one row at a time ([`Top`], [`ByType`], [`Expiring::add`],
//! [`TtlHistogram`], [`PrefixTree`]), so that `bitlens inspect` streams millions of rows
//! through them; [`Top`] holds at most about `2n` rows.
//!
//! [`MemoryReport`] bundles these for one call ([`memory_report`], from loaded keyspaces).
//! Memory of values bitlens does not model (module types it does not interpret) is unknown
//! (`None`) and counts as 0 in the sums; [`MemoryReport::unknown`] says how many keys that is.

use std::collections::BTreeMap;

use crate::memory::{BitfieldType, Ledger, Model};
use bitlens::keyspace::{Keyspace, Value};
use bitlens::rdb::{RecordSink, UnionBuilder};

/// Milliseconds in a day (the width of one [`expiring`] bucket).
pub const DAY_MS: i64 = 86_400_000;
/// Most days [`expiring`] buckets (a year and a day).
pub const MAX_DAYS: u32 = 366;

/// Serialises a name (key, pattern, prefix) as the result models' vocabulary writes one: a
/// string when it is UTF-8, else `{"hex": "…"}` (lower-case hex digits), so that it
/// round-trips (see the README, "The result documents").
pub fn name<S: serde::Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap as _;
    match std::str::from_utf8(bytes) {
        Ok(t) => s.serialize_str(t),
        Err(_) => {
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            let mut m = s.serialize_map(Some(1))?;
            m.serialize_entry("hex", &hex)?;
            m.end()
        }
    }
}

/// Writes a module value's figures into the map `m` being serialised: `"kind"` and each of
/// [`bitlens::probabilistic::Summary::figures`]' fields by name (a number, or null when
/// absent). The one writer of them for the inspect document and the key detail.
pub fn figure_entries<M: serde::ser::SerializeMap>(
    m: &mut M,
    summary: &bitlens::probabilistic::Summary,
) -> Result<(), M::Error> {
    use bitlens::probabilistic::Figure;
    let f = summary.figures();
    m.serialize_entry("kind", &f.kind)?;
    for (name, figure) in &f.fields {
        match figure {
            Figure::Count(n) => m.serialize_entry(name, n)?,
            Figure::Signed(n) => m.serialize_entry(name, n)?,
            Figure::Real(x) => m.serialize_entry(name, x)?,
            Figure::Absent => m.serialize_entry(name, &())?,
        }
    }
    Ok(())
}

/// Serialises counts by name as one object (`{"string": 3, "hash": 1}`).
pub fn counts<S: serde::Serializer>(v: &[(String, u64)], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(v.iter().map(|(k, n)| (k, n)))
}

impl serde::Serialize for crate::memory::AllocatorChoice {
    /// `{"allocator": "jemalloc"|"jemalloc16"|"libc", "source": "given"|"inferred"|
    /// "assumed"|"undecided", "reason": "…", "candidates": [name], "memory_range": {"min",
    /// "max"} | null}`, as the inspect document names them.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        #[derive(serde::Serialize)]
        struct MinMax {
            min: u64,
            max: u64,
        }
        let mut st = s.serialize_struct("AllocatorChoice", 5)?;
        st.serialize_field("allocator", self.allocator.name())?;
        st.serialize_field("source", self.source.name())?;
        st.serialize_field("reason", &self.reason)?;
        let names: Vec<&str> = self.candidates().iter().map(|a| a.name()).collect();
        st.serialize_field("candidates", &names)?;
        let range = match (self.source, self.usage_range()) {
            (crate::memory::AllocatorSource::Undecided, Some((min, max))) => {
                Some(MinMax { min, max })
            }
            _ => None,
        };
        st.serialize_field("memory_range", &range)?;
        st.end()
    }
}

impl serde::Serialize for FileFigures {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let mut st = s.serialize_struct("FileFigures", 7)?;
        st.serialize_field("keys", &self.keys)?;
        st.serialize_field("expires", &self.expires)?;
        st.serialize_field("memory", &self.memory)?;
        st.serialize_field("slot_min", &self.slot_range.map(|r| r.0))?;
        st.serialize_field("slot_max", &self.slot_range.map(|r| r.1))?;
        st.serialize_field("slots_used", &self.slots_used)?;
        st.serialize_field("allocator", &self.allocator)?;
        st.end()
    }
}

/// One key, as a report keeps it (the value itself is dropped).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct KeyRow {
    /// Database number.
    pub db: u64,
    /// Key bytes.
    #[serde(serialize_with = "name")]
    pub key: Vec<u8>,
    /// TYPE name.
    #[serde(rename = "type")]
    pub type_name: String,
    /// OBJECT ENCODING once the writer loaded it (`?` when not modelled).
    pub encoding: &'static str,
    /// Estimated MEMORY USAGE, bytes (`None`: values of modules bitlens does not model).
    pub memory: Option<u64>,
    /// Value length: STRLEN for strings, else the element count (fields, members, entries).
    #[serde(rename = "value_len")]
    pub len: u64,
    /// Longest element (STRLEN for strings; the longest member, field or value otherwise).
    pub largest: u64,
    /// Absolute expiry, Unix ms.
    pub expire_at_ms: Option<i64>,
}

impl KeyRow {
    /// The row of `key` holding `value` in database `db`, its memory estimated by `model`
    /// (encoding `?` and memory `None` when the model has no estimate for the value).
    pub fn new(
        db: u64,
        key: &[u8],
        value: &Value,
        expire_at_ms: Option<i64>,
        model: &Model,
    ) -> KeyRow {
        let est = model.estimate_with_expiry(key, value, expire_at_ms.is_some());
        KeyRow::priced(db, key, value, expire_at_ms, est)
    }

    /// [`KeyRow::new`] with the estimate already made (`est`, from
    /// [`Model::estimate_with_expiry`] or [`crate::memory::AllocatorInference::add_priced`]).
    pub fn priced(
        db: u64,
        key: &[u8],
        value: &Value,
        expire_at_ms: Option<i64>,
        est: Option<crate::memory::Estimate>,
    ) -> KeyRow {
        let mut row = KeyRow::empty();
        row.set_priced(db, key, value, expire_at_ms, est);
        row
    }

    /// A row with empty buffers (database 0, no memory), to be filled by
    /// [`KeyRow::set_priced`] or a reader of rows.
    pub fn empty() -> KeyRow {
        KeyRow {
            db: 0,
            key: Vec::new(),
            type_name: String::new(),
            encoding: "",
            memory: None,
            len: 0,
            largest: 0,
            expire_at_ms: None,
        }
    }

    /// Makes this row [`KeyRow::priced`]'s for these arguments, reusing its key and type
    /// name buffers (a pass over millions of keys allocates no row per key).
    pub fn set_priced(
        &mut self,
        db: u64,
        key: &[u8],
        value: &Value,
        expire_at_ms: Option<i64>,
        est: Option<crate::memory::Estimate>,
    ) {
        let (len, largest) = lengths(value);
        self.db = db;
        self.key.clear();
        self.key.extend_from_slice(key);
        let t = value.redis_type();
        let name = t.name_str();
        if self.type_name != name {
            self.type_name.clear();
            self.type_name.push_str(&name);
        }
        self.encoding = est.map_or("?", |e| e.encoding);
        self.memory = est.map(|e| e.bytes);
        self.len = len;
        self.largest = largest;
        self.expire_at_ms = expire_at_ms;
    }

    /// The estimated memory, 0 when unknown.
    pub fn memory_or_zero(&self) -> u64 {
        self.memory.unwrap_or(0)
    }
}

/// Hash slots of a Redis Cluster.
pub const SLOTS: usize = 16384;

/// A set of hash slots (one bit per slot).
#[derive(Clone)]
pub struct SlotSet(Box<[u64; SLOTS / 64]>);

impl Default for SlotSet {
    fn default() -> Self {
        SlotSet(Box::new([0; SLOTS / 64]))
    }
}

impl SlotSet {
    /// The slots used by two or more of `sets`.
    pub fn shared(sets: &[SlotSet]) -> SlotSet {
        let (mut shared, mut seen) = (SlotSet::default(), SlotSet::default());
        for set in sets {
            for (w, (sh, se)) in set.0.iter().zip(shared.0.iter_mut().zip(seen.0.iter_mut())) {
                *sh |= *se & w;
                *se |= w;
            }
        }
        shared
    }

    /// Adds the slot of `key`.
    pub fn insert_key(&mut self, key: &[u8]) {
        self.insert(key_slot(key));
    }
    /// Adds slot `s` (0..16384).
    pub fn insert(&mut self, s: u16) {
        self.0[s as usize / 64] |= 1 << (s % 64);
    }
    /// Whether slot `s` is in the set.
    pub fn contains(&self, s: u16) -> bool {
        self.0[s as usize / 64] >> (s % 64) & 1 == 1
    }
    /// How many slots the set holds.
    pub fn len(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The lowest slot.
    pub fn first(&self) -> Option<u16> {
        (0..SLOTS as u16).find(|&s| self.contains(s))
    }
    /// The highest slot.
    pub fn last(&self) -> Option<u16> {
        (0..SLOTS as u16).rev().find(|&s| self.contains(s))
    }
}

/// What one file of several read as one keyspace holds (the panel's and the API's per-file
/// table; `bitlens inspect A B`'s FILES rows come from its spills): its keys alive at the
/// clock, those with an expiry, their memory estimate on the file's own writer (its profile,
/// the allocator inferred from its `used-mem`, [`crate::memory::infer_allocator`]) and the
/// cluster hash slots of its keys.
#[derive(Debug, Clone, PartialEq)]
pub struct FileFigures {
    /// Keys alive at the clock.
    pub keys: u64,
    /// Of those, keys with an expiry.
    pub expires: u64,
    /// Their estimated memory, bytes (`MEMORY USAGE key SAMPLES 0` summed).
    pub memory: u64,
    /// The lowest and highest slot of its keys; `None` without keys.
    pub slot_range: Option<(u16, u16)>,
    /// How many slots its keys use.
    pub slots_used: u32,
    /// The allocator its memory is priced for, and why.
    pub allocator: crate::memory::AllocatorChoice,
}

/// [`FileFigures`] counted record by record while a file is read (a union of files keeps no
/// file's own snapshot): feed it each key the file holds ([`FileCounter::add`], in any order),
/// then [`FileCounter::finish`] with the file's header. The allocator is inferred from every
/// key and the `used-mem` aux field ([`AllocatorInference`]); each key is priced under every
/// candidate as it comes, and the chosen candidate's sum is the memory figure.
pub struct FileCounter {
    inference: crate::memory::AllocatorInference,
    /// The candidates' models at the clock (a hash with field expiry holds only its live
    /// fields there; every other key is priced alike at any clock).
    at_clock: [Model; 3],
    clock_ms: Option<i64>,
    keys: u64,
    expires: u64,
    /// Per candidate ([`crate::memory::Allocator::ALL`] order), the live keys' estimates.
    memory: [u64; 3],
    slots: SlotSet,
}

impl FileCounter {
    /// A counter for a file written by `profile`'s server, keys judged alive at `clock_ms`
    /// (Unix ms; `None`: all alive).
    pub fn new(profile: &'static bitlens::dialect::Profile, clock_ms: Option<i64>) -> Self {
        let inference = crate::memory::AllocatorInference::new(profile);
        let at_clock = (*inference.models()).map(|m| m.at(clock_ms));
        FileCounter {
            inference,
            at_clock,
            clock_ms,
            keys: 0,
            expires: 0,
            memory: [0; 3],
            slots: SlotSet::default(),
        }
    }

    /// Counts key `key` of database `db` holding `value`, expiring at `expire_at_ms` (Unix
    /// ms).
    pub fn add(&mut self, db: u64, key: &[u8], value: &Value, expire_at_ms: Option<i64>) {
        let expiring = expire_at_ms.is_some();
        let priced = self.inference.add_priced(db, key, value, expiring);
        if expire_at_ms.is_some_and(|at| self.clock_ms.is_some_and(|c| at <= c)) {
            return;
        }
        self.keys += 1;
        self.expires += u64::from(expiring);
        let at_clock =
            matches!(value, Value::Hash(h) if h.has_field_expiry()) && self.clock_ms.is_some();
        for (i, e) in priced.iter().enumerate() {
            let e = match at_clock {
                true => self.at_clock[i].estimate_with_expiry(key, value, expiring),
                false => *e,
            };
            self.memory[i] += e.map_or(0, |x| x.bytes);
        }
        self.slots.insert_key(key);
    }

    /// The figures of the keys counted, for the file whose header (`used-mem` among its aux
    /// fields, its slot records) is `header`.
    pub fn finish(mut self, header: &bitlens::rdb::Header) -> FileFigures {
        self.inference.set_cluster_node(header.slot_infos > 0);
        let allocator = self.inference.finish(&header.aux);
        FileFigures {
            keys: self.keys,
            expires: self.expires,
            memory: self.memory[allocator.allocator.index()],
            slot_range: self.slots.first().zip(self.slots.last()),
            slots_used: self.slots.len(),
            allocator,
        }
    }
}

/// The sink of a pushed load ([`bitlens::rdb::RdbFeeder`]) into a union of files
/// ([`UnionBuilder`], one file being a union of one), each record also counted for its file's
/// [`FileFigures`] when a counter is given.
pub struct UnionSink {
    /// The union the records go into; its current file begun.
    pub union: UnionBuilder,
    /// The current file's counter, if its figures are wanted.
    pub figures: Option<FileCounter>,
}

impl UnionSink {
    /// The sink of a one-file load: an empty union ([`OnDuplicate::Error`](bitlens::rdb::OnDuplicate))
    /// with its file begun, no figures.
    pub fn one_file() -> UnionSink {
        let mut union = UnionBuilder::default();
        union.start_file();
        UnionSink {
            union,
            figures: None,
        }
    }

    /// The keyspaces of a one-file load (its only file can hold no key of another).
    pub fn into_databases(self) -> BTreeMap<u64, Keyspace> {
        self.union.finish().map(|s| s.databases).unwrap_or_default()
    }
}

impl RecordSink for UnionSink {
    fn record(&mut self, rec: bitlens::rdb::Record<'_>) -> Result<(), bitlens::rdb::RdbError> {
        if let (Some(f), Some(v)) = (&mut self.figures, &rec.value) {
            f.add(rec.db, &rec.key, v, rec.expire_at_ms);
        }
        self.union.record(rec)
    }

    fn settle(&mut self) -> Result<(), bitlens::rdb::RdbError> {
        self.union.settle()
    }
}

/// The cluster slot of a key, as Redis Cluster's `keyHashSlot` (CLUSTER KEYSLOT): CRC16
/// (XMODEM) of the key, or of its `{hash tag}` when the first `{` has a `}` after it with at
/// least one byte between, mod 16384.
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

/// (element count, longest element) of a value (see [`KeyRow::len`], [`KeyRow::largest`]);
/// a string's both are its STRLEN.
pub fn lengths(value: &Value) -> (u64, u64) {
    match value {
        Value::String(s) => (s.len(), s.len()),
        Value::List(l) => (l.len() as u64, l.max_element_len() as u64),
        Value::Set(s) => (s.len() as u64, s.max_member_len() as u64),
        Value::ZSet(z) => (z.len() as u64, z.max_member_len() as u64),
        Value::Hash(h) => (h.stored_len() as u64, h.max_element_len() as u64),
        Value::Stream(s) => (s.length, 0),
        Value::Module(_) | Value::Other(_) => (0, 0),
    }
}

/// Keys and memory of one class (a type and encoding, a prefix, a TTL bucket, a slot).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Tally {
    /// What is counted (`hash/listpack`, a prefix, `<= 1h`, a slot number).
    #[serde(serialize_with = "name")]
    pub name: Vec<u8>,
    /// Keys.
    pub keys: u64,
    /// Estimated memory, bytes.
    pub memory: u64,
}

/// Keys and memory of one TYPE and encoding.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TypeTally {
    /// TYPE name.
    #[serde(rename = "type")]
    pub type_name: String,
    /// OBJECT ENCODING (`?` when not modelled).
    pub encoding: &'static str,
    /// Keys.
    pub keys: u64,
    /// Estimated memory, bytes.
    pub memory: u64,
}

/// Keys and memory of one exact group pattern of one database.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PatternTally {
    /// Database number.
    pub db: u64,
    /// Glob pattern; `KEYS pattern` on this database returns exactly this row's keys.
    #[serde(serialize_with = "name")]
    pub pattern: Vec<u8>,
    /// Keys.
    pub keys: u64,
    /// Estimated memory, bytes.
    pub memory: u64,
    /// TYPE names with key counts, by name.
    #[serde(serialize_with = "counts")]
    pub types: Vec<(String, u64)>,
    /// The memory ledger over the row's keys that have one (with [`ReportOptions::ledger`]).
    pub ledger: Option<LedgerSum>,
}

/// One day of [`Expiring`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct DayTally {
    /// The day's end: the latest expiry it holds, Unix ms (`clock + (i+1)·24h`).
    pub until_ms: i64,
    /// Keys expiring that day.
    pub keys: u64,
    /// Their estimated memory, bytes.
    pub memory: u64,
}

/// Keys expiring within a number of days of the clock (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Expiring {
    /// The clock, Unix ms.
    pub clock_ms: i64,
    /// Days covered.
    pub days: u32,
    /// Keys expiring within them, and their memory.
    pub keys: u64,
    /// Estimated memory of those keys, bytes.
    pub memory: u64,
    /// One entry per day, `days` entries.
    pub per_day: Vec<DayTally>,
    /// Keys already expired at the clock (not in the days), and their memory.
    pub expired_keys: u64,
    /// Estimated memory of the already expired keys, bytes.
    pub expired_memory: u64,
}

/// The `n` biggest rows by memory, descending; ties by database, then key bytes.
pub fn top(rows: &[KeyRow], n: usize) -> Vec<KeyRow> {
    let mut t = Top::new(n);
    rows.iter().for_each(|r| t.add(r));
    t.finish()
}

/// The order of [`top`]: memory descending, then database, then key bytes.
fn top_order(a: &KeyRow, b: &KeyRow) -> std::cmp::Ordering {
    b.memory_or_zero()
        .cmp(&a.memory_or_zero())
        .then_with(|| a.db.cmp(&b.db))
        .then_with(|| a.key.cmp(&b.key))
}

/// [`top`] over rows given one at a time: holds at most `2n` rows (plus a few), so a stream of
/// millions of keys costs the top N only.
#[derive(Debug, Clone)]
pub struct Top {
    n: usize,
    rows: Vec<KeyRow>,
    /// The last of the best `n` once the buffer was first cut: a row after it is never taken.
    bar: Option<KeyRow>,
}

impl Top {
    /// Keeps the `n` biggest.
    pub fn new(n: usize) -> Top {
        Top {
            n,
            rows: Vec::new(),
            bar: None,
        }
    }

    /// Offers one row (cloned only when it may be among the `n` biggest).
    pub fn add(&mut self, r: &KeyRow) {
        if self.n == 0 || self.bar.as_ref().is_some_and(|b| top_order(r, b).is_ge()) {
            return;
        }
        self.rows.push(r.clone());
        if self.rows.len() >= self.n.saturating_mul(2).saturating_add(64) {
            self.cut();
        }
    }

    fn cut(&mut self) {
        let n = self.n;
        if self.rows.len() > n {
            self.rows.select_nth_unstable_by(n - 1, top_order);
            self.rows.truncate(n);
            self.bar = self.rows.iter().max_by(|a, b| top_order(a, b)).cloned();
        }
    }

    /// The `n` biggest, in [`top`]'s order.
    pub fn finish(mut self) -> Vec<KeyRow> {
        if self.n == 0 {
            return Vec::new();
        }
        self.cut();
        bitlens::sort::sort_by(&mut self.rows, top_order);
        self.rows
    }
}

/// Keys and memory per TYPE and encoding, memory descending, then type and encoding.
pub fn by_type(rows: &[KeyRow]) -> Vec<TypeTally> {
    let mut t = ByType::default();
    rows.iter().for_each(|r| t.add(r));
    t.finish()
}

/// [`by_type`] over rows given one at a time.
#[derive(Debug, Clone, Default)]
pub struct ByType {
    m: BTreeMap<String, BTreeMap<&'static str, (u64, u64)>>,
}

impl ByType {
    /// Counts one row.
    pub fn add(&mut self, r: &KeyRow) {
        let per = match self.m.get_mut(r.type_name.as_str()) {
            Some(p) => p,
            None => self.m.entry(r.type_name.clone()).or_default(),
        };
        let e = per.entry(r.encoding).or_default();
        e.0 += 1;
        e.1 += r.memory_or_zero();
    }

    /// The tallies, in [`by_type`]'s order.
    pub fn finish(self) -> Vec<TypeTally> {
        let mut out: Vec<TypeTally> = self
            .m
            .into_iter()
            .flat_map(|(t, per)| {
                per.into_iter().map(move |(enc, (keys, memory))| TypeTally {
                    type_name: t.clone(),
                    encoding: enc,
                    keys,
                    memory,
                })
            })
            .collect();
        bitlens::sort::sort_by(&mut out, |a, b| {
            b.memory
                .cmp(&a.memory)
                .then_with(|| (&a.type_name, a.encoding).cmp(&(&b.type_name, b.encoding)))
        });
        out
    }
}

/// The rows' indices per database, database ascending, each in row order.
pub fn per_db(rows: &[KeyRow]) -> std::collections::BTreeMap<u64, Vec<usize>> {
    let mut m: std::collections::BTreeMap<u64, Vec<usize>> = Default::default();
    for (i, r) in rows.iter().enumerate() {
        m.entry(r.db).or_default().push(i);
    }
    m
}

/// Keys and memory per exact group pattern ([`crate::patterns::group`]) of each database,
/// memory descending, then database and pattern; `ledgers` (one per row, when given) are
/// summed per pattern.
pub fn by_pattern(rows: &[KeyRow], ledgers: Option<&[Option<Ledger>]>) -> Vec<PatternTally> {
    let mut out = Vec::new();
    for (db, idx) in per_db(rows) {
        let keys: Vec<&[u8]> = idx.iter().map(|&i| rows[i].key.as_slice()).collect();
        for (pattern, members) in crate::patterns::group(&keys) {
            let mut types: std::collections::BTreeMap<&str, u64> = Default::default();
            let mut memory = 0;
            let mut ledger: Option<LedgerSum> = None;
            for &m in &members {
                let r = &rows[idx[m]];
                memory += r.memory_or_zero();
                *types.entry(r.type_name.as_str()).or_default() += 1;
                if let Some(Some(l)) = ledgers.map(|l| &l[idx[m]]) {
                    ledger.get_or_insert_with(LedgerSum::default).add(l);
                }
            }
            out.push(PatternTally {
                db,
                pattern,
                keys: members.len() as u64,
                memory,
                types: types.into_iter().map(|(t, n)| (t.to_string(), n)).collect(),
                ledger,
            });
        }
    }
    bitlens::sort::sort_by(&mut out, |a, b| {
        b.memory
            .cmp(&a.memory)
            .then_with(|| (a.db, &a.pattern).cmp(&(b.db, &b.pattern)))
    });
    out
}

/// The keys expiring within `days` days (at most [`MAX_DAYS`]) of `clock_ms`, per day (see
/// the module docs).
pub fn expiring(rows: &[KeyRow], clock_ms: i64, days: u32) -> Expiring {
    let mut e = Expiring::new(clock_ms, days);
    rows.iter().for_each(|r| e.add(r));
    e
}

impl Expiring {
    /// No keys yet: `days` (at most [`MAX_DAYS`]) empty days from `clock_ms` ([`expiring`]
    /// over rows given one at a time with [`Expiring::add`]).
    pub fn new(clock_ms: i64, days: u32) -> Expiring {
        let days = days.min(MAX_DAYS);
        Expiring {
            clock_ms,
            days,
            keys: 0,
            memory: 0,
            per_day: (0..days as i64)
                .map(|i| DayTally {
                    until_ms: clock_ms.saturating_add((i + 1) * DAY_MS),
                    keys: 0,
                    memory: 0,
                })
                .collect(),
            expired_keys: 0,
            expired_memory: 0,
        }
    }

    /// Counts one row.
    pub fn add(&mut self, r: &KeyRow) {
        let Some(e) = r.expire_at_ms else { return };
        if e < self.clock_ms {
            self.expired_keys += 1;
            self.expired_memory += r.memory_or_zero();
            return;
        }
        let left = e - self.clock_ms;
        // Day i holds (i·24h, (i+1)·24h]; day 0 also holds 0.
        let day = (left.max(1) - 1) / DAY_MS;
        if let Some(d) = self.per_day.get_mut(day as usize) {
            d.keys += 1;
            d.memory += r.memory_or_zero();
            self.keys += 1;
            self.memory += r.memory_or_zero();
        }
    }
}

/// The TTL buckets after `no expiry` and `already expired`: upper bound in ms from the clock
/// (a key expiring `left` ms after the clock falls in the first bucket with `left ≤ bound`),
/// label.
pub const TTL_BUCKETS: [(i64, &str); 4] = [
    (3_600_000, "expires <= 1h"),
    (86_400_000, "expires <= 1d"),
    (7 * 86_400_000, "expires <= 7d"),
    (i64::MAX, "expires later"),
];

/// Keys and memory per TTL class at `clock_ms`: `no expiry`, `already expired`
/// (`expire_at < clock`), then [`TTL_BUCKETS`] (6 tallies, in that order).
pub fn ttl_histogram(rows: &[KeyRow], clock_ms: i64) -> Vec<Tally> {
    let mut h = TtlHistogram::new(clock_ms);
    rows.iter().for_each(|r| h.add(r));
    h.finish()
}

/// [`ttl_histogram`] over rows given one at a time.
#[derive(Debug, Clone)]
pub struct TtlHistogram {
    clock_ms: i64,
    ttl: Vec<Tally>,
}

impl TtlHistogram {
    /// Empty buckets at `clock_ms`.
    pub fn new(clock_ms: i64) -> TtlHistogram {
        let ttl = ["no expiry", "already expired"]
            .iter()
            .chain(TTL_BUCKETS.iter().map(|(_, l)| l))
            .map(|l| Tally {
                name: l.as_bytes().to_vec(),
                keys: 0,
                memory: 0,
            })
            .collect();
        TtlHistogram { clock_ms, ttl }
    }

    /// Counts one row.
    pub fn add(&mut self, r: &KeyRow) {
        let clock_ms = self.clock_ms;
        let slot = match r.expire_at_ms {
            None => 0,
            Some(e) if clock_ms > e => 1,
            Some(e) => {
                2 + TTL_BUCKETS
                    .iter()
                    .position(|(b, _)| e - clock_ms <= *b)
                    .unwrap_or(3)
            }
        };
        self.ttl[slot].keys += 1;
        self.ttl[slot].memory += r.memory_or_zero();
    }

    /// The 6 tallies, in [`ttl_histogram`]'s order.
    pub fn finish(self) -> Vec<Tally> {
        self.ttl
    }
}

/// A prefix of the [`prefix_tree`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Prefix {
    /// Depth (1 = first segment).
    pub depth: usize,
    /// The prefix bytes, ending with the separator that follows it in its keys.
    #[serde(serialize_with = "name")]
    pub prefix: Vec<u8>,
    /// Keys under it.
    pub keys: u64,
    /// Their estimated memory, bytes.
    pub memory: u64,
}

/// Most children listed under one prefix (the rest are summed in the parent only).
pub const PREFIX_CHILDREN: usize = 12;

/// The prefix tree of the rows' keys: every prefix of up to `depth` segments ending with one
/// of `seps` (a key `a:b:c` with `:` gives `a:` and `a:b:`), listed depth-first, the children
/// of a prefix by memory descending then bytes, at most [`PREFIX_CHILDREN`] per parent. A
/// parent's keys and memory include those of its unlisted children and of keys with no
/// further separator.
pub fn prefix_tree(rows: &[KeyRow], seps: &[u8], depth: usize) -> Vec<Prefix> {
    let mut t = PrefixTree::new(seps, depth);
    rows.iter().for_each(|r| t.add(r));
    t.finish()
}

/// Most prefixes a [`PrefixTree`] made by [`PrefixTree::with_cap`] tallies at once: about 50
/// bytes each plus the bytes of its last segment (a 40-byte node, the segment in a shared
/// buffer, 5-9 bytes of hash index), so about 30 MiB at the cap for `user:{id}:` prefixes (up
/// to half as much again while a vector grows).
pub const PREFIX_TALLY_CAP: usize = 1 << 19;

/// [`prefix_tree`] over rows given one at a time, in one or more passes over the same rows.
///
/// It tallies every prefix in the first pass. With a cap ([`PrefixTree::with_cap`]) and more
/// distinct prefixes than that (say `user:{id}:` for millions of ids), it drops the tally and
/// asks for more passes ([`PrefixTree::wants_pass`]): one level at a time, only the children
/// of the prefixes listed at the level above (the tree shows at most [`PREFIX_CHILDREN`] per
/// parent), the children split by a hash of their bytes into as many partitions as keep each
/// pass under the cap. Each prefix is still counted whole in one pass, so the rows are those
/// of the one-pass tally.
#[derive(Debug, Clone)]
pub struct PrefixTree {
    seps: Vec<u8>,
    depth: usize,
    cap: usize,
    tally: PrefixTally,
    mode: PrefixMode,
}

/// The (keys, memory) tally of distinct prefixes of one pass, as one arena: each prefix a
/// fixed-size node naming its parent (an index) and its last segment (a range of one shared
/// byte buffer), and a hash index of node numbers by (parent, segment). No allocation per
/// prefix, and one hash of a segment (not of the whole prefix) per separator of a key: the
/// pass over millions of `user:{id}:` rows is hash-bound. A key's prefixes form a path from
/// the root ([`PrefixTally::add_keys`] under the previous one); a level tallied alone holds
/// whole prefixes as segments under the root (the flat tally [`PrefixTally::into_iter`]
/// reads).
#[derive(Debug, Clone, Default)]
struct PrefixTally {
    bytes: Vec<u8>,
    nodes: Vec<PrefixNode>,
    index: hashbrown::HashTable<u32>,
    hasher: foldhash::fast::FixedState,
}

/// The parent of a prefix of one segment (and of every prefix of a flat tally).
const ROOT: u32 = u32::MAX;

/// One prefix of a [`PrefixTally`].
#[derive(Debug, Clone, Copy)]
struct PrefixNode {
    /// Start of the last segment in the tally's bytes.
    start: u64,
    /// Length of the last segment, bytes.
    len: u64,
    /// The prefix without its last segment ([`ROOT`]: none).
    parent: u32,
    keys: u64,
    memory: u64,
}

impl PrefixTally {
    /// Distinct prefixes counted.
    fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The last segment of node `i`.
    fn segment(&self, i: u32) -> &[u8] {
        let n = &self.nodes[i as usize];
        &self.bytes[n.start as usize..(n.start + n.len) as usize]
    }

    /// Counts one key of `mem` bytes under the whole prefix `p` (a flat tally's).
    fn add(&mut self, p: &[u8], mem: u64) {
        self.add_keys(ROOT, p, 1, mem);
    }

    /// Counts `keys` keys of `mem` bytes in all under the prefix `seg` extends `parent` by
    /// (the tally holds fewer than 2^32 prefixes: its cap is far below); returns its node.
    fn add_keys(&mut self, parent: u32, seg: &[u8], keys: u64, mem: u64) -> u32 {
        use std::hash::BuildHasher;
        let h = self.hasher.hash_one((parent, seg));
        let (bytes, nodes) = (&self.bytes, &self.nodes);
        let found = self.index.find(h, |&i| {
            let n = &nodes[i as usize];
            n.parent == parent && &bytes[n.start as usize..(n.start + n.len) as usize] == seg
        });
        if let Some(&i) = found {
            let n = &mut self.nodes[i as usize];
            n.keys += keys;
            n.memory += mem;
            return i;
        }
        let i = self.nodes.len() as u32;
        self.nodes.push(PrefixNode {
            start: self.bytes.len() as u64,
            len: seg.len() as u64,
            parent,
            keys,
            memory: mem,
        });
        self.bytes.extend_from_slice(seg);
        let (bytes, nodes, hasher) = (&self.bytes, &self.nodes, &self.hasher);
        self.index.insert_unique(h, i, |&j| {
            let n = &nodes[j as usize];
            hasher.hash_one((
                n.parent,
                &bytes[n.start as usize..(n.start + n.len) as usize],
            ))
        });
        i
    }

    /// Every (prefix, keys, memory) of a flat tally, in no particular order.
    fn into_iter(self) -> impl Iterator<Item = (Vec<u8>, u64, u64)> {
        (0..self.nodes.len() as u32).map(move |i| {
            let n = &self.nodes[i as usize];
            debug_assert_eq!(n.parent, ROOT, "a flat tally");
            (self.segment(i).to_vec(), n.keys, n.memory)
        })
    }

    /// The rows of the tree a key-by-key tally holds, in [`prefix_tree`]'s order: depth
    /// first from the root, the best [`PREFIX_CHILDREN`] children of each prefix by memory
    /// descending, then bytes (siblings share their parent's bytes, so their segments order
    /// them). The children of every prefix are one flat list of node numbers, each prefix's
    /// a range of it; only the rows listed are allocated.
    fn rows(&self) -> Vec<Prefix> {
        let n = self.nodes.len();
        // Slot of a parent in the ranges: its node number, the root last.
        let slot = |p: u32| if p == ROOT { n } else { p as usize };
        let mut ends = vec![0u32; n + 3];
        for node in &self.nodes {
            ends[slot(node.parent) + 2] += 1;
        }
        for i in 2..ends.len() {
            ends[i] += ends[i - 1];
        }
        // (ends[s + 1] is now where slot s's children start; filling moves it to their end.)
        let mut kids = vec![0u32; n];
        for (i, node) in self.nodes.iter().enumerate() {
            let at = &mut ends[slot(node.parent) + 1];
            kids[*at as usize] = i as u32;
            *at += 1;
        }
        let better = |a: u32, b: u32| {
            let (x, y) = (&self.nodes[a as usize], &self.nodes[b as usize]);
            y.memory
                .cmp(&x.memory)
                .then_with(|| self.segment(a).cmp(self.segment(b)))
                .is_lt()
        };
        let mut out = Vec::new();
        let mut path = Vec::new();
        // (slot, depth of its children, length of its prefix, its listed children, next).
        let mut stack: Vec<(usize, [u32; PREFIX_CHILDREN], usize, usize)> = Vec::new();
        let best_of = |s: usize| {
            let from = ends[s] as usize;
            let mut best = [0u32; PREFIX_CHILDREN];
            let mut len = 0;
            for &c in &kids[from..ends[s + 1] as usize] {
                if len == PREFIX_CHILDREN && !better(c, best[len - 1]) {
                    continue;
                }
                let mut at = len.min(PREFIX_CHILDREN - 1);
                while at > 0 && better(c, best[at - 1]) {
                    best[at] = best[at - 1];
                    at -= 1;
                }
                best[at] = c;
                len = (len + 1).min(PREFIX_CHILDREN);
            }
            (best, len)
        };
        let (best, len) = best_of(n);
        stack.push((path.len(), best, len, 0));
        while let Some(top) = stack.last_mut() {
            let (base, best, len, next) = *top;
            if next == len {
                stack.pop();
                continue;
            }
            top.3 += 1;
            let c = best[next];
            path.truncate(base);
            path.extend_from_slice(self.segment(c));
            let node = &self.nodes[c as usize];
            out.push(Prefix {
                depth: stack.len(),
                prefix: path.clone(),
                keys: node.keys,
                memory: node.memory,
            });
            let (best, len) = best_of(c as usize);
            stack.push((path.len(), best, len, 0));
        }
        out
    }
}

#[derive(Debug, Clone)]
enum PrefixMode {
    /// The first pass, tallying every prefix.
    Whole,
    /// The first pass went over the cap; the rest of it is ignored.
    Dropped,
    /// Counting level `level` (1-based), partition `part` of `parts`.
    Level(Box<Levels>),
    /// Levels done: the listed children of each listed prefix.
    Done(Children),
}

#[derive(Debug, Clone)]
struct Levels {
    level: usize,
    parts: u64,
    part: u64,
    parents: std::collections::BTreeSet<Vec<u8>>,
    /// Rows seen this pass, and how many had been seen when the tally went over the cap.
    rows: u64,
    over_at: Option<u64>,
    /// The best children per parent over the partitions counted so far.
    best: Children,
    listed: Children,
}

/// Children by memory descending, then bytes, the first [`PREFIX_CHILDREN`].
fn keep_best(kids: &mut Vec<(Vec<u8>, u64, u64)>) {
    bitlens::sort::sort_by(kids, |a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
    kids.truncate(PREFIX_CHILDREN);
}

/// Adds a child to `kids`, keeping it bounded: past 8 × [`PREFIX_CHILDREN`] it is cut to the
/// best ([`keep_best`]), which the children listed at the end are among (a parent with a
/// million children costs a few hundred, not a million, vectors).
fn push_child(kids: &mut Vec<(Vec<u8>, u64, u64)>, child: (Vec<u8>, u64, u64)) {
    kids.push(child);
    if kids.len() >= 8 * PREFIX_CHILDREN {
        keep_best(kids);
    }
}

/// Keeps, per parent, the best children of one partition's tally among those kept so far.
fn absorb_partition(lv: &mut Levels, tally: PrefixTally, parent_of: impl Fn(&[u8]) -> Vec<u8>) {
    for (p, k, m) in tally.into_iter() {
        push_child(lv.best.entry(parent_of(&p)).or_default(), (p, k, m));
    }
    lv.best.values_mut().for_each(keep_best);
}

/// Lists the best children of the level's partitions and moves to the next level, whose
/// parents they are.
fn next_level(lv: &mut Levels) {
    let best = std::mem::take(&mut lv.best);
    lv.parents = best.values().flatten().map(|c| c.0.clone()).collect();
    lv.listed.extend(best);
    lv.level += 1;
    lv.parts = 1;
    lv.part = 0;
}

/// FNV-1a of the bytes (only spreads prefixes over partitions).
fn fnv(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325, |h, &x| {
        (h ^ u64::from(x)).wrapping_mul(0x100_0000_01b3)
    })
}

impl PrefixTree {
    /// An empty tree of prefixes of up to `depth` segments split at any of `seps`, tallied in
    /// one pass however many there are.
    pub fn new(seps: &[u8], depth: usize) -> PrefixTree {
        PrefixTree::with_cap(seps, depth, usize::MAX)
    }

    /// As [`PrefixTree::new`], holding at most about `cap` prefix tallies (see the type docs).
    pub fn with_cap(seps: &[u8], depth: usize, cap: usize) -> PrefixTree {
        PrefixTree {
            seps: seps.to_vec(),
            depth,
            cap: cap.max(1),
            tally: PrefixTally::default(),
            mode: PrefixMode::Whole,
        }
    }

    /// Counts one row (in the current pass).
    pub fn add(&mut self, r: &KeyRow) {
        let mem = r.memory_or_zero();
        let level = match &self.mode {
            PrefixMode::Whole => None,
            PrefixMode::Level(lv) => Some(lv.level),
            PrefixMode::Dropped | PrefixMode::Done(_) => return,
        };
        let Some(level) = level else {
            // The key's prefixes, a path from the root: each one segment past the last.
            let (mut d, mut from, mut node) = (0, 0, ROOT);
            for (i, b) in r.key.iter().enumerate() {
                if d == self.depth {
                    break;
                }
                if self.seps.contains(b) {
                    node = self.tally.add_keys(node, &r.key[from..=i], 1, mem);
                    from = i + 1;
                    d += 1;
                }
            }
            if self.tally.len() > self.cap {
                self.tally = PrefixTally::default();
                self.mode = PrefixMode::Dropped;
            }
            return;
        };
        let Some((pe, end)) = level_ends(&self.seps, &r.key, level) else {
            return;
        };
        let PrefixMode::Level(lv) = &mut self.mode else {
            return;
        };
        if !lv.parents.contains(&r.key[..pe]) {
            return;
        }
        lv.rows += 1;
        let p = &r.key[..end];
        if lv.over_at.is_some() || fnv(p) % lv.parts != lv.part {
            return;
        }
        self.tally.add(p, mem);
        if self.tally.len() > self.cap {
            lv.over_at = Some(lv.rows);
            self.tally = PrefixTally::default();
        }
    }

    /// Ends a pass over the rows.
    pub fn end_pass(&mut self) {
        let seps = self.seps.clone();
        let parent_of = |p: &[u8]| parent_prefix(p, &seps);
        let mode = std::mem::replace(&mut self.mode, PrefixMode::Whole);
        self.mode = match mode {
            PrefixMode::Whole => PrefixMode::Whole,
            PrefixMode::Dropped if self.depth == 0 => PrefixMode::Done(BTreeMap::new()),
            PrefixMode::Dropped => PrefixMode::Level(Box::new(Levels {
                level: 1,
                parts: 1,
                part: 0,
                parents: [Vec::new()].into_iter().collect(),
                rows: 0,
                over_at: None,
                best: BTreeMap::new(),
                listed: BTreeMap::new(),
            })),
            PrefixMode::Level(mut lv) => {
                if let Some(at) = lv.over_at {
                    // Restart the level with enough partitions: this one held `cap` prefixes
                    // after `at` of the level's rows, so all of them hold about
                    // `cap · rows / at · parts`; half as many again for the spread.
                    let need = lv.rows as f64 / at.max(1) as f64 * lv.parts as f64 * 1.5;
                    lv.parts = lv.parts.saturating_mul(2).max(need.ceil() as u64 + 1);
                    if lv.parts > lv.rows.saturating_mul(2) {
                        // More partitions than rows cannot help (prefixes whose hashes
                        // collide): count this level whole, over the cap.
                        lv.parts = 1;
                        self.cap = usize::MAX;
                    }
                    lv.part = 0;
                    lv.best.clear();
                } else {
                    absorb_partition(&mut lv, std::mem::take(&mut self.tally), parent_of);
                    lv.part += 1;
                    if lv.part == lv.parts {
                        next_level(&mut lv);
                    }
                }
                lv.rows = 0;
                lv.over_at = None;
                self.tally = PrefixTally::default();
                self.level_or_done(lv)
            }
            done @ PrefixMode::Done(_) => done,
        };
    }

    /// The mode after a level's pass: the next level, or done past the depth or when no
    /// prefix was listed.
    fn level_or_done(&self, mut lv: Box<Levels>) -> PrefixMode {
        if lv.level > self.depth || lv.parents.is_empty() {
            PrefixMode::Done(std::mem::take(&mut lv.listed))
        } else {
            PrefixMode::Level(lv)
        }
    }

    /// In a level pass ([`Self::wants_pass`]), the prefix of `key` at the level being counted
    /// when its parent is listed: what a caller that partitions a level itself (on disk, say)
    /// routes, by [`Self::partition_of`], to [`Self::count_prefix`]. `None` for a key the
    /// level does not count, or outside a level pass.
    pub fn level_prefix<'a>(&self, key: &'a [u8]) -> Option<&'a [u8]> {
        let PrefixMode::Level(lv) = &self.mode else {
            return None;
        };
        let (pe, end) = level_ends(&self.seps, key, lv.level)?;
        lv.parents.contains(&key[..pe]).then(|| &key[..end])
    }

    /// Which of `parts` partitions a prefix belongs to (a hash of its bytes): every key of one
    /// prefix goes to the same partition.
    pub fn partition_of(prefix: &[u8], parts: u64) -> u64 {
        fnv(prefix) % parts.max(1)
    }

    /// Counts `keys` keys of `mem` bytes in all under a level's `prefix`
    /// ([`Self::level_prefix`]) in the partition being tallied. A partition must hold every
    /// key of its prefixes (see [`Self::partition_of`]); its distinct prefixes are held until
    /// [`Self::end_partition`] or [`Self::drain_partition`], whatever the cap: the caller
    /// watches [`Self::over_cap`].
    pub fn count_prefix(&mut self, prefix: &[u8], keys: u64, mem: u64) {
        if matches!(self.mode, PrefixMode::Level(_)) {
            self.tally.add_keys(ROOT, prefix, keys, mem);
        }
    }

    /// Whether the partition being tallied holds more distinct prefixes than the cap.
    pub fn over_cap(&self) -> bool {
        self.tally.len() > self.cap
    }

    /// Empties the partition being tallied, giving its (prefix, keys, memory) counts (in no
    /// particular order) for the caller to split further and count again.
    pub fn drain_partition(&mut self) -> impl Iterator<Item = (Vec<u8>, u64, u64)> {
        std::mem::take(&mut self.tally).into_iter()
    }

    /// Ends one partition of the level counted by [`Self::count_prefix`]: its best children
    /// per parent are kept.
    pub fn end_partition(&mut self) {
        let seps = self.seps.clone();
        if let PrefixMode::Level(lv) = &mut self.mode {
            let tally = std::mem::take(&mut self.tally);
            absorb_partition(lv, tally, |p: &[u8]| parent_prefix(p, &seps));
        }
    }

    /// Ends a level counted in partitions ([`Self::end_partition`] after each): the next level
    /// is then wanted ([`Self::wants_pass`]) or the tree is done. The rows are those of the
    /// one-pass tally, as with [`Self::add`] and [`Self::end_pass`].
    pub fn end_level(&mut self) {
        let mode = std::mem::replace(&mut self.mode, PrefixMode::Whole);
        self.mode = match mode {
            PrefixMode::Level(mut lv) => {
                next_level(&mut lv);
                lv.rows = 0;
                lv.over_at = None;
                self.level_or_done(lv)
            }
            other => other,
        };
    }

    /// Whether the rows must be given again (after [`PrefixTree::end_pass`]).
    pub fn wants_pass(&self) -> bool {
        matches!(self.mode, PrefixMode::Level(_))
    }

    /// The rows, in [`prefix_tree`]'s order.
    pub fn finish(self) -> Vec<Prefix> {
        match self.mode {
            PrefixMode::Done(listed) => walk_children(&listed),
            _ => self.tally.rows(),
        }
    }
}

/// The ends of `key`'s prefixes of `level` and `level - 1` segments (split at `seps`; 0 for
/// the root), when it has `level` segments ending with a separator.
fn level_ends(seps: &[u8], key: &[u8], level: usize) -> Option<(usize, usize)> {
    let mut ends = key
        .iter()
        .enumerate()
        .filter(|(_, b)| seps.contains(b))
        .map(|(i, _)| i + 1);
    let parent = if level > 1 { ends.nth(level - 2)? } else { 0 };
    Some((parent, ends.next()?))
}

/// The prefix a prefix of [`prefix_tree`] sits under (empty at the first level).
fn parent_prefix(p: &[u8], seps: &[u8]) -> Vec<u8> {
    let body = &p[..p.len() - 1];
    match body.iter().rposition(|b| seps.contains(b)) {
        Some(i) => p[..=i].to_vec(),
        None => Vec::new(),
    }
}

/// Per parent prefix: its children (prefix, keys, memory).
type Children = BTreeMap<Vec<u8>, Vec<(Vec<u8>, u64, u64)>>;

/// The rows depth-first from the root, the best [`PREFIX_CHILDREN`] children of each.
fn walk_children(children: &Children) -> Vec<Prefix> {
    fn walk(at: &[u8], d: usize, children: &Children, out: &mut Vec<Prefix>) {
        let Some(kids) = children.get(at) else { return };
        let mut kids = kids.clone();
        keep_best(&mut kids);
        for (p, keys, memory) in kids {
            out.push(Prefix {
                depth: d,
                prefix: p.clone(),
                keys,
                memory,
            });
            walk(&p, d + 1, children, out);
        }
    }
    let mut out = Vec::new();
    walk(&[], 1, children, &mut out);
    out
}

/// Which keys the memory ledger prices as BITFIELD state (`inspect --bitfield GLOB=TYPE`):
/// a key matching one of the globs (Redis `KEYS` rules, the first that matches) is read as
/// fields of that type; other bitmaps and integer-id sets get [`Model::ledger`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LedgerOptions {
    /// (glob, field type).
    pub bitfields: Vec<(Vec<u8>, BitfieldType)>,
}

impl LedgerOptions {
    /// Parses one `GLOB=TYPE` (split at the last `=`; TYPE as BITFIELD's `u4`, `i8`, ...) and
    /// adds it. Errors name the argument.
    pub fn add_bitfield(&mut self, spec: &str) -> Result<(), BitfieldSpecError> {
        let (glob, ty) = spec.rsplit_once('=').ok_or_else(|| BitfieldSpecError {
            spec: spec.to_string(),
            bad_type: None,
        })?;
        let ty = BitfieldType::parse(ty).ok_or_else(|| BitfieldSpecError {
            spec: spec.to_string(),
            bad_type: Some(ty.to_string()),
        })?;
        self.bitfields.push((glob.as_bytes().to_vec(), ty));
        Ok(())
    }
}

/// A `GLOB=TYPE` that [`LedgerOptions::add_bitfield`] cannot read; its text starts with
/// `bitfield` (the option's name in every front end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BitfieldSpecError {
    /// The argument given.
    pub spec: String,
    /// The TYPE that is not a BITFIELD type; `None` when there is no `=`.
    pub bad_type: Option<String>,
}

impl std::fmt::Display for BitfieldSpecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.bad_type {
            None => write!(f, "bitfield {:?}: GLOB=TYPE, e.g. 'level:*=u4'", self.spec),
            Some(ty) => write!(
                f,
                "bitfield {:?}: TYPE {ty:?} is not a BITFIELD type (u1..u63, i1..i64)",
                self.spec
            ),
        }
    }
}

impl std::error::Error for BitfieldSpecError {}

/// The memory ledger of one key (see [`LedgerOptions`]), `None` when no representation
/// applies (not a bitmap, an integer-id set in `0..2^32` or a BITFIELD state key).
pub fn key_ledger(
    model: &Model,
    opts: &LedgerOptions,
    key: &[u8],
    value: &Value,
) -> Option<Ledger> {
    match opts
        .bitfields
        .iter()
        .find(|(g, _)| bitlens::glob::matches(g, key))
    {
        Some((_, ty)) => model.bitfield_ledger(key, value, *ty),
        None => model.ledger(key, value),
    }
}

/// [`Ledger`]s summed over keys: value bytes now and as each other form. A form that does not
/// apply to a key (a bitmap as a bitmap, an id set as a Set, a non-BITFIELD key as a Hash)
/// counts that key as it is, so that every column prices all the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct LedgerSum {
    /// Keys priced.
    pub keys: u64,
    /// Members over them (set bits, ids, users with a non-zero field).
    pub members: u64,
    /// Value bytes as they are.
    pub current: u64,
    /// As Sets (intset / listpack / hashtable).
    pub as_set: u64,
    /// As bitmap strings.
    pub as_bitmap: u64,
    /// As Roaring bitmaps in strings.
    pub as_roaring: u64,
    /// As Hashes of per-user fields.
    pub as_hash: u64,
}

impl LedgerSum {
    /// Adds one key's ledger.
    pub fn add(&mut self, l: &Ledger) {
        self.keys += 1;
        self.members += l.members;
        self.current += l.current;
        self.as_set += l.as_set.map_or(l.current, |s| s.1);
        self.as_bitmap += l.as_bitmap.unwrap_or(l.current);
        self.as_roaring += l.as_roaring.unwrap_or(l.current);
        self.as_hash += l.as_hash.map_or(l.current, |h| h.1);
    }

    /// Adds another sum.
    pub fn merge(&mut self, o: &LedgerSum) {
        self.keys += o.keys;
        self.members += o.members;
        self.current += o.current;
        self.as_set += o.as_set;
        self.as_bitmap += o.as_bitmap;
        self.as_roaring += o.as_roaring;
        self.as_hash += o.as_hash;
    }
}

/// How [`memory_report`] builds a report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportOptions {
    /// Biggest keys listed.
    pub top_n: usize,
    /// The expiry window in days ([`expiring`]).
    pub days: u32,
    /// Prefix separators ([`prefix_tree`]).
    pub separators: Vec<u8>,
    /// Prefix tree depth, segments.
    pub depth: usize,
    /// The memory ledger per pattern, when asked.
    pub ledger: Option<LedgerOptions>,
}

impl Default for ReportOptions {
    /// `inspect`'s defaults: top 20, 7 days, separator `:`, depth 2, no ledger.
    fn default() -> Self {
        ReportOptions {
            top_n: 20,
            days: 7,
            separators: vec![b':'],
            depth: 2,
            ledger: None,
        }
    }
}

/// Everything the memory view shows.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MemoryReport {
    /// Keys counted (expired ones included: they are in the file) and their memory.
    pub keys: u64,
    /// Sum of the estimates, bytes.
    pub memory: u64,
    /// Keys whose memory is not modelled (counted as 0).
    pub unknown: u64,
    /// Keys without an expiry.
    pub no_expiry: u64,
    /// The biggest keys ([`top`]).
    pub top: Vec<KeyRow>,
    /// Per TYPE and encoding ([`by_type`]).
    pub by_type: Vec<TypeTally>,
    /// Per exact pattern ([`by_pattern`]).
    pub by_pattern: Vec<PatternTally>,
    /// What expires within the days asked ([`expiring`]).
    pub expiring: Expiring,
    /// Per TTL class ([`ttl_histogram`]).
    pub ttl: Vec<Tally>,
    /// The prefix tree ([`prefix_tree`]).
    pub prefixes: Vec<Prefix>,
}

impl MemoryReport {
    /// The report of `rows` at `clock_ms` (see [`ReportOptions`]); `ledgers`, one per row,
    /// are summed per pattern.
    pub fn from_rows(
        rows: &[KeyRow],
        ledgers: Option<&[Option<Ledger>]>,
        clock_ms: i64,
        opts: &ReportOptions,
    ) -> MemoryReport {
        MemoryReport {
            keys: rows.len() as u64,
            memory: rows.iter().map(KeyRow::memory_or_zero).sum(),
            unknown: rows.iter().filter(|r| r.memory.is_none()).count() as u64,
            no_expiry: rows.iter().filter(|r| r.expire_at_ms.is_none()).count() as u64,
            top: top(rows, opts.top_n),
            by_type: by_type(rows),
            by_pattern: by_pattern(rows, ledgers),
            expiring: expiring(rows, clock_ms, opts.days),
            ttl: ttl_histogram(rows, clock_ms),
            prefixes: prefix_tree(rows, &opts.separators, opts.depth),
        }
    }
}

/// The memory report of loaded databases `(db, keyspace)`: every key they hold (expired ones
/// included), estimated with `model`. `encoding_of` may name the encoding of a value the
/// model does not estimate (the encoding recorded in the file), else it stays `?`.
pub fn memory_report<'a>(
    dbs: impl IntoIterator<Item = (u64, &'a Keyspace)>,
    model: &Model,
    encoding_of: impl Fn(u64, &[u8]) -> Option<&'static str>,
    clock_ms: i64,
    opts: &ReportOptions,
) -> MemoryReport {
    let mut rows = Vec::new();
    let mut ledgers = Vec::new();
    for (db, ks) in dbs {
        for (key, entry) in ks.iter_all() {
            if let Some(lo) = &opts.ledger {
                ledgers.push(key_ledger(model, lo, key, entry.value));
            }
            let mut row = KeyRow::new(db, key, entry.value, entry.expire_at_ms, model);
            if row.memory.is_none() {
                if let Some(e) = encoding_of(db, key) {
                    row.encoding = e;
                }
            }
            rows.push(row);
        }
    }
    let ledgers = opts.ledger.is_some().then_some(ledgers.as_slice());
    MemoryReport::from_rows(&rows, ledgers, clock_ms, opts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::Allocator;
    use bitlens::dialect::Profile;
    use bitlens::string::RedisString;

    /// `lengths` as it was first written: every element copied out, then measured.
    fn lengths_by_copy(value: &Value) -> (u64, u64) {
        let max = |it: &mut dyn Iterator<Item = usize>| it.max().unwrap_or(0) as u64;
        match value {
            Value::List(l) => {
                let items = l.range(0, l.len().saturating_sub(1));
                (l.len() as u64, max(&mut items.iter().map(Vec::len)))
            }
            Value::Set(s) => {
                let m = s.members();
                (m.len() as u64, max(&mut m.iter().map(Vec::len)))
            }
            Value::ZSet(z) => (
                z.len() as u64,
                max(&mut z.sorted().iter().map(|(_, m)| m.len())),
            ),
            Value::Hash(h) => {
                let f = h.all();
                (
                    f.len() as u64,
                    max(&mut f.iter().map(|f| f.field.len().max(f.value.len()))),
                )
            }
            other => lengths(other),
        }
    }

    #[test]
    fn lengths_read_every_encoding_without_copying_as_by_copying() {
        use bitlens::hash::Hash;
        use bitlens::list::{List, Node};
        use bitlens::rdb::blobs;
        use bitlens::set::Set;
        use bitlens::zset::{BlobFormat, ZSet};
        let seed = bitlens_testseed::seed();
        let mut rng = fastrand::Rng::with_seed(seed);
        for round in 0..500 {
            let n = rng.usize(0..12);
            let texts: Vec<Vec<u8>> = (0..n)
                .map(|i| match rng.u8(..4) {
                    0 => rng.i64(..).to_string().into_bytes(),
                    1 => rng.i32(-1000..1000).to_string().into_bytes(),
                    2 => vec![b'a' + (i % 26) as u8; rng.usize(0..70)],
                    _ => format!("m{i}-{}", rng.u16(..)).into_bytes(),
                })
                .collect();
            let strs: Vec<&[u8]> = texts.iter().map(|t| &t[..]).collect();
            let items = blobs::items(&strs);
            let ints: Vec<i64> = (0..n)
                .map(|i| rng.i64(..) / (1 << rng.u32(0..60)) + i as i64)
                .collect();
            let pairs: Vec<(&[u8], &[u8])> = strs.chunks_exact(2).map(|p| (p[0], p[1])).collect();
            let mut values = vec![
                Value::list(List::from_elements(&strs)),
                Value::Set(Set::from_listpack(blobs::listpack(&items)).unwrap()),
                Value::Set(Set::from_members(&strs)),
                Value::Hash(Hash::from_listpack(blobs::listpack(&items[..n / 2 * 2])).unwrap()),
                Value::Hash(Hash::from_ziplist(blobs::ziplist(&items[..n / 2 * 2])).unwrap()),
                Value::Hash(Hash::from_fields(
                    pairs.iter().map(|&(f, v)| (f, v, None::<i64>)),
                )),
                Value::zset(ZSet::from_pairs(strs.iter().map(|m| (m.to_vec(), 1.0)))),
            ];
            // A zipmap is never empty and never names a field twice (its decoder refuses both).
            let mut distinct: Vec<(&[u8], &[u8])> = Vec::new();
            for &(f, v) in &pairs {
                if !distinct.iter().any(|d| d.0 == f) {
                    distinct.push((f, v));
                }
            }
            if !distinct.is_empty() {
                values.push(Value::Hash(
                    Hash::from_zipmap(blobs::zipmap(&distinct)).unwrap(),
                ));
            }
            let mut sorted = ints.clone();
            sorted.sort_unstable();
            sorted.dedup();
            values.push(Value::Set(
                Set::from_intset(blobs::intset(8, &sorted)).unwrap(),
            ));
            for node in [
                Node::listpack(blobs::listpack(&items)),
                Node::ziplist(blobs::ziplist(&items)),
            ] {
                let (node, k) = node.unwrap();
                let mut l = List::new(bitlens::list::ListEncoding::Quicklist);
                l.push_node(node, k);
                values.push(Value::list(l));
            }
            let ex: Vec<(&[u8], &[u8], i64)> =
                pairs.iter().map(|&(f, v)| (f, v, rng.i64(0..3))).collect();
            values.push(Value::Hash(
                Hash::from_listpack_ex(blobs::listpack_ex(&ex)).unwrap(),
            ));
            // A sorted set kept as its blob: distinct members in Redis order.
            let z = ZSet::from_pairs(strs.iter().map(|m| (m.to_vec(), rng.i32(-9..9) as f64)));
            let zitems: Vec<Vec<u8>> = z
                .iter()
                .flat_map(|(m, s)| [m.to_vec(), s.to_string().into_bytes()])
                .collect();
            let zstrs: Vec<&[u8]> = zitems.iter().map(|t| &t[..]).collect();
            let zblob = blobs::listpack(&blobs::items(&zstrs));
            values.push(Value::zset(
                ZSet::from_blob(zblob, BlobFormat::Listpack).unwrap(),
            ));
            for (i, v) in values.iter().enumerate() {
                assert_eq!(
                    lengths(v),
                    lengths_by_copy(v),
                    "seed {seed}, round {round}, value {i}: {v:?}"
                );
            }
        }
    }

    fn row(db: u64, key: &str, memory: u64, expire_at_ms: Option<i64>) -> KeyRow {
        KeyRow {
            db,
            key: key.as_bytes().to_vec(),
            type_name: "string".into(),
            encoding: "raw",
            memory: Some(memory),
            len: 0,
            largest: 0,
            expire_at_ms,
        }
    }

    #[test]
    fn top_orders_by_memory_then_db_then_key() {
        let rows = [
            row(0, "b", 10, None),
            row(0, "a", 10, None),
            row(1, "a", 10, None),
            row(0, "c", 30, None),
            row(0, "d", 5, None),
        ];
        let t: Vec<(u64, Vec<u8>)> = top(&rows, 4).into_iter().map(|r| (r.db, r.key)).collect();
        let want: Vec<(u64, Vec<u8>)> = [(0, "c"), (0, "a"), (0, "b"), (1, "a")]
            .iter()
            .map(|(d, k)| (*d, k.as_bytes().to_vec()))
            .collect();
        assert_eq!(t, want);
        assert_eq!(top(&rows, 10).len(), 5);
        assert!(top(&rows, 0).is_empty());
    }

    #[test]
    fn capped_prefix_trees_in_passes_equal_the_one_pass_tree() {
        // Fan-out under one prefix (`u:{id}:`), ties in memory, keys with no separator, and
        // separators side by side; caps from 1 prefix up, so that levels restart with more
        // partitions.
        let mut rng = fastrand::Rng::with_seed(0x9f);
        let mut most_passes = 0;
        for round in 0..200 {
            let mut rows = Vec::new();
            for i in 0..rng.usize(0..300) {
                let key = match rng.u8(0..5) {
                    0 => format!("u:{}:p", rng.u32(0..200)),
                    1 => format!("s.{}:{}", rng.u8(0..30), rng.u8(0..3)),
                    2 => format!("k{i}"),
                    3 => format!("a::{}.b", rng.u8(0..50)),
                    _ => format!("{}:{}:{}", rng.u8(0..20), rng.u8(0..20), rng.u8(0..20)),
                };
                rows.push(row(0, &key, rng.u64(0..4) * 10, None));
            }
            let seps: &[u8] = if round % 2 == 0 { b":" } else { b":." };
            let depth = round % 4;
            let want = prefix_tree(&rows, seps, depth);
            let cap = 1 + round % 40;
            let mut t = PrefixTree::with_cap(seps, depth, cap);
            let mut passes = 0;
            loop {
                rows.iter().for_each(|r| t.add(r));
                t.end_pass();
                passes += 1;
                if !t.wants_pass() {
                    break;
                }
                assert!(passes < 1000, "round {round}: passes end");
            }
            assert_eq!(t.finish(), want, "round {round}, cap {cap}, depth {depth}");
            most_passes = most_passes.max(passes);
            // The levels counted as inspect counts them: one pass per level tallies in memory
            // until over the cap, then splits what it holds and the rest of the level's keys
            // into partitions (on disk there), each tallied alone.
            let mut t = PrefixTree::with_cap(seps, depth, cap);
            rows.iter().for_each(|r| t.add(r));
            t.end_pass();
            let parts = 1 + round as u64 % 5;
            type Split = Vec<Vec<(Vec<u8>, u64, u64)>>;
            while t.wants_pass() {
                let mut split: Option<Split> = None;
                for r in &rows {
                    let Some(p) = t.level_prefix(&r.key) else {
                        continue;
                    };
                    let m = r.memory_or_zero();
                    let at = |p: &[u8]| PrefixTree::partition_of(p, parts) as usize;
                    match &mut split {
                        None => {
                            t.count_prefix(p, 1, m);
                            if t.over_cap() {
                                let mut sp: Split = vec![Vec::new(); parts as usize];
                                for (p, k, m) in t.drain_partition() {
                                    sp[at(&p)].push((p, k, m));
                                }
                                split = Some(sp);
                            }
                        }
                        Some(sp) => sp[at(p)].push((p.to_vec(), 1, m)),
                    }
                }
                for part in split.unwrap_or_else(|| vec![Vec::new()]) {
                    part.iter().for_each(|(p, k, m)| t.count_prefix(p, *k, *m));
                    t.end_partition();
                }
                t.end_level();
            }
            assert_eq!(
                t.finish(),
                want,
                "partitioned: round {round}, parts {parts}"
            );
        }
        // Levels (a pass each) with partitions (more passes) were exercised.
        assert!(most_passes > 5, "{most_passes}");
    }

    #[test]
    fn expiring_buckets_by_day_from_the_clock() {
        let c = 1_000_000_000_000;
        let rows = [
            row(0, "past", 1, Some(c - 1)),
            row(0, "now", 2, Some(c)),
            row(0, "d0", 4, Some(c + DAY_MS)),
            row(0, "d1", 8, Some(c + DAY_MS + 1)),
            row(0, "d6", 16, Some(c + 7 * DAY_MS)),
            row(0, "later", 32, Some(c + 7 * DAY_MS + 1)),
            row(0, "never", 64, None),
        ];
        let e = expiring(&rows, c, 7);
        assert_eq!(e.per_day.len(), 7);
        assert_eq!((e.keys, e.memory), (4, 2 + 4 + 8 + 16));
        assert_eq!((e.per_day[0].keys, e.per_day[0].memory), (2, 6));
        assert_eq!((e.per_day[1].keys, e.per_day[1].memory), (1, 8));
        assert_eq!((e.per_day[6].keys, e.per_day[6].memory), (1, 16));
        assert_eq!(e.per_day[6].until_ms, c + 7 * DAY_MS);
        assert_eq!((e.expired_keys, e.expired_memory), (1, 1));
        assert_eq!(expiring(&rows, c, 1000).days, MAX_DAYS);
    }

    #[test]
    fn patterns_sum_their_keys_per_database() {
        let rows = [
            row(0, "user:1", 10, None),
            row(0, "user:2", 20, None),
            row(0, "cfg", 100, None),
            row(1, "user:1", 5, None),
        ];
        let p = by_pattern(&rows, None);
        let got: Vec<(u64, String, u64, u64)> = p
            .iter()
            .map(|t| {
                (
                    t.db,
                    String::from_utf8_lossy(&t.pattern).into_owned(),
                    t.keys,
                    t.memory,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (0, "cfg".into(), 1, 100),
                (0, "user:*".into(), 2, 30),
                (1, "user:1".into(), 1, 5)
            ]
        );
    }

    #[test]
    fn ttl_histogram_buckets_from_the_clock() {
        let c = 1_000_000_000_000;
        let h = 3_600_000;
        let rows = [
            row(0, "never", 1, None),
            row(0, "past", 2, Some(c - 1)),
            row(0, "now", 4, Some(c)),
            row(0, "1h", 8, Some(c + h)),
            row(0, "1h+", 16, Some(c + h + 1)),
            row(0, "7d", 32, Some(c + 7 * DAY_MS)),
            row(0, "7d+", 64, Some(c + 7 * DAY_MS + 1)),
        ];
        let t: Vec<(String, u64, u64)> = ttl_histogram(&rows, c)
            .into_iter()
            .map(|t| (String::from_utf8(t.name).unwrap(), t.keys, t.memory))
            .collect();
        let want = [
            ("no expiry", 1, 1),
            ("already expired", 1, 2),
            ("expires <= 1h", 2, 12),
            ("expires <= 1d", 1, 16),
            ("expires <= 7d", 1, 32),
            ("expires later", 1, 64),
        ];
        let want: Vec<(String, u64, u64)> = want
            .iter()
            .map(|(n, k, m)| (n.to_string(), *k, *m))
            .collect();
        assert_eq!(t, want);
    }

    /// The prefix tree as [`prefix_tree`]'s docs define it, the simple way: every prefix of up
    /// to `depth` segments of every key summed in a map, then listed depth first from the
    /// root, the children of each by memory descending then bytes, the first
    /// [`PREFIX_CHILDREN`].
    fn reference_prefix_tree(rows: &[KeyRow], seps: &[u8], depth: usize) -> Vec<Prefix> {
        let mut all: BTreeMap<Vec<u8>, (u64, u64)> = BTreeMap::new();
        for r in rows {
            let ends = r.key.iter().enumerate().filter(|(_, b)| seps.contains(b));
            for (i, _) in ends.take(depth) {
                let t = all.entry(r.key[..=i].to_vec()).or_default();
                t.0 += 1;
                t.1 += r.memory_or_zero();
            }
        }
        fn list(
            parent: &[u8],
            d: usize,
            all: &BTreeMap<Vec<u8>, (u64, u64)>,
            seps: &[u8],
            out: &mut Vec<Prefix>,
        ) {
            let mut kids: Vec<(&Vec<u8>, &(u64, u64))> = all
                .iter()
                .filter(|(p, _)| {
                    p.len() > parent.len()
                        && p.starts_with(parent)
                        && !p[parent.len()..p.len() - 1]
                            .iter()
                            .any(|b| seps.contains(b))
                })
                .collect();
            kids.sort_by(|a, b| b.1 .1.cmp(&a.1 .1).then_with(|| a.0.cmp(b.0)));
            for (p, &(keys, memory)) in kids.into_iter().take(PREFIX_CHILDREN) {
                out.push(Prefix {
                    depth: d,
                    prefix: p.clone(),
                    keys,
                    memory,
                });
                list(p, d + 1, all, seps, out);
            }
        }
        let mut out = Vec::new();
        list(&[], 1, &all, seps, &mut out);
        out
    }

    /// The arena tree's rows are the reference's on random keys: short keys over a few
    /// letters and separators (runs of separators, a separator first or last, keys without
    /// one, the same key repeated), fan-outs past [`PREFIX_CHILDREN`], memory ties, any depth.
    /// Replay a seed with `BITLENS_SEED`.
    #[test]
    fn prefix_tree_equals_the_simple_reference_on_random_keys() {
        let mut rng = bitlens_testseed::rng();
        for round in 0..300 {
            let alphabet: &[u8] = b"ab:./\xff";
            let seps: Vec<u8> = [b':', b'.', b'/']
                .into_iter()
                .filter(|_| rng.bool())
                .collect();
            let depth = rng.usize(0..6);
            let mut rows = Vec::new();
            for _ in 0..rng.usize(0..400) {
                let key: Vec<u8> = match rng.u8(0..3) {
                    // Fan-out: many ids under one prefix.
                    0 => format!("u:{}:{}", rng.u16(0..60), rng.u8(0..3)).into_bytes(),
                    _ => (0..rng.usize(0..10))
                        .map(|_| alphabet[rng.usize(0..alphabet.len())])
                        .collect(),
                };
                let r = KeyRow {
                    key,
                    memory: rng.bool().then(|| rng.u64(0..4) * 8),
                    ..row(0, "", 0, None)
                };
                rows.push(r);
            }
            assert_eq!(
                prefix_tree(&rows, &seps, depth),
                reference_prefix_tree(&rows, &seps, depth),
                "round {round}, separators {seps:?}, depth {depth}"
            );
        }
    }

    #[test]
    fn prefix_tree_is_depth_first_children_by_memory() {
        let rows = [
            row(0, "a:x:1", 10, None),
            row(0, "a:x:2", 10, None),
            row(0, "a:y", 50, None),
            row(0, "b.c:1", 5, None),
            row(0, "plain", 100, None),
        ];
        let p: Vec<(usize, String, u64, u64)> = prefix_tree(&rows, b":.", 2)
            .into_iter()
            .map(|p| {
                (
                    p.depth,
                    String::from_utf8(p.prefix).unwrap(),
                    p.keys,
                    p.memory,
                )
            })
            .collect();
        assert_eq!(
            p,
            vec![
                (1, "a:".into(), 3, 70),
                (2, "a:x:".into(), 2, 20),
                (1, "b.".into(), 1, 5),
                (2, "b.c:".into(), 1, 5),
            ]
        );
        assert_eq!(prefix_tree(&rows, b":", 1).len(), 2);
    }

    #[test]
    fn bitfield_specs_and_the_ledger_they_choose() {
        let mut lo = LedgerOptions::default();
        lo.add_bitfield("level:*=u4").unwrap();
        let e = lo.add_bitfield("level:*").unwrap_err();
        assert_eq!(e.bad_type, None);
        assert!(e.to_string().contains("GLOB=TYPE"), "{e}");
        let e = lo.add_bitfield("x=u64").unwrap_err();
        assert_eq!(e.bad_type.as_deref(), Some("u64"));
        assert!(e.to_string().contains("not a BITFIELD type"), "{e}");
        assert!(lo.add_bitfield("x=q4").is_err());
        let model = Model::new(
            Profile::from_name("redis-7.4").unwrap(),
            Allocator::Jemalloc,
        );
        // #0 = 3, #2 = 15 as u4: bytes 0x30 0x0f.
        let v = Value::String(RedisString::from_bytes(vec![0x30, 0x0f]));
        let bf = key_ledger(&model, &lo, b"level:1", &v).unwrap();
        assert_eq!(bf.members, 2);
        // A listpack of "0" "3" "2" "15": 6-byte header, four 1-byte integers with 1-byte
        // back-lengths, the end byte: 15 bytes in the 16 class, plus the robj.
        assert_eq!(bf.as_hash, Some(("listpack", 16 + 16)));
        assert_eq!((bf.as_set, bf.as_roaring), (None, None));
        // Another key: the bitmap ledger (bits 2, 3, 12..=15 set).
        let bm = key_ledger(&model, &lo, b"other", &v).unwrap();
        assert_eq!(bm.members, 6);
        assert_eq!(bm.as_hash, None);
        let mut sum = LedgerSum::default();
        sum.add(&bf);
        sum.add(&bm);
        assert_eq!(sum.keys, 2);
        assert_eq!(sum.as_hash, 32 + bm.current);
        assert_eq!(sum.as_set, bf.current + bm.as_set.unwrap().1);
    }

    #[test]
    fn report_of_a_keyspace_uses_the_memory_model() {
        let p = Profile::default_profile();
        let model = Model::new(p, Allocator::Jemalloc);
        let mut ks = Keyspace::new();
        let big = Value::String(RedisString::from_bytes(vec![b'x'; 5000]));
        let small = Value::String(RedisString::from_bytes(b"hello".to_vec()));
        let want_big = model.estimate(b"big", &big).unwrap().bytes;
        ks.insert(b"big", big, Some(10 + DAY_MS / 2));
        ks.insert(b"small", small, None);
        let r = memory_report(
            [(0, &ks)],
            &model,
            |_, _| None,
            10,
            &ReportOptions::default(),
        );
        assert_eq!(r.keys, 2);
        assert_eq!(r.top[0].key, b"big");
        assert_eq!(r.top[0].memory, Some(want_big));
        assert_eq!(r.top[0].encoding, "raw");
        assert_eq!(r.top[1].encoding, "embstr");
        assert_eq!((r.expiring.keys, r.expiring.memory), (1, want_big));
        assert_eq!(r.no_expiry, 1);
        assert_eq!(r.by_type.len(), 2);
    }
}
