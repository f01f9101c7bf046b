//! The wasm glue of the panel's memory view: `Engine.memoryReport(options)` converts
//! [`bitlens_views::report::MemoryReport`] (computed by the core over every loaded database) into a
//! plain JS object. No figure is computed here.

use tsify::Ts;
use wasm_bindgen::prelude::*;

use super::{arg_bytes, throw, types, Engine};
use bitlens::escape;
use bitlens::keyspace::Keyspace;
use bitlens_views::memory::{Allocator, Ledger, Model};
use bitlens_views::report::{
    key_ledger, memory_report, KeyRow, LedgerOptions, LedgerSum, ReportOptions, MAX_DAYS,
};

fn num(n: u64) -> f64 {
    n as f64
}

/// A name for JS: the name as a string (lossy UTF-8, what `keyList` gives) and as `bitlens
/// inspect` prints it ([`escape::display`]: no raw control byte).
fn names(bytes: &[u8]) -> (String, String) {
    (
        String::from_utf8_lossy(bytes).into_owned(),
        escape::display(bytes),
    )
}

/// The allocator option as the memory model's.
fn allocator(a: types::AllocatorOption) -> Allocator {
    match a {
        types::AllocatorOption::Jemalloc => Allocator::Jemalloc,
        types::AllocatorOption::Jemalloc16 => Allocator::Jemalloc16,
        types::AllocatorOption::Libc => Allocator::Libc,
    }
}

/// The `bitfield` option: `'GLOB=TYPE'` strings ([`LedgerOptions::add_bitfield`]).
fn ledger_opt(bitfield: &Option<Vec<String>>) -> Result<LedgerOptions, JsError> {
    let mut lo = LedgerOptions::default();
    for spec in bitfield.iter().flatten() {
        lo.add_bitfield(spec)
            .map_err(|e| throw(format!("options.{e}")))?;
    }
    Ok(lo)
}

/// A pattern's [`LedgerSum`] as its row.
fn pattern_ledger(db: u64, pattern: &[u8], l: &LedgerSum) -> types::PatternLedger {
    let (pattern, pattern_display) = names(pattern);
    types::PatternLedger {
        db: num(db),
        pattern,
        pattern_display,
        keys: num(l.keys),
        members: num(l.members),
        current: num(l.current),
        as_set: num(l.as_set),
        as_bitmap: num(l.as_bitmap),
        as_roaring: num(l.as_roaring),
        as_hash: num(l.as_hash),
    }
}

/// One key's [`Ledger`] as its result.
fn key_ledger_result(l: &Ledger) -> types::KeyLedger {
    let enc = |x: Option<(&str, u64)>| {
        x.map(|(e, m)| types::EncodedSize {
            encoding: e.to_string(),
            memory: num(m),
        })
    };
    types::KeyLedger {
        members: num(l.members),
        current: num(l.current),
        as_set: enc(l.as_set),
        as_bitmap: l.as_bitmap.map(num),
        as_roaring: l.as_roaring.map(num),
        as_hash: enc(l.as_hash),
    }
}

fn memory_key(r: &KeyRow, clock_ms: i64) -> types::MemoryKey {
    let (key, key_display) = names(&r.key);
    types::MemoryKey {
        db: num(r.db),
        key,
        key_display,
        type_name: r.type_name.to_string(),
        encoding: r.encoding.to_string(),
        memory: r.memory.map(num),
        len: num(r.len),
        ttl_ms: r.expire_at_ms.map(|e| (e - clock_ms) as f64),
    }
}

impl Engine {
    /// The allocator given, or else the one inferred from every loaded key and the
    /// snapshot's `used-mem` ([`bitlens_views::memory::AllocatorInference`]).
    fn allocator_choice(&self, given: Option<Allocator>) -> bitlens_views::memory::AllocatorChoice {
        if let Some(a) = given {
            return bitlens_views::memory::AllocatorChoice::given(a);
        }
        if !self.files.is_empty() {
            // Several files (Engine.loadRdbs): each file's own used-mem decides for it.
            let each: Vec<_> = self
                .files
                .iter()
                .map(|f| f.figures.allocator.clone())
                .collect();
            return bitlens_views::memory::AllocatorChoice::of_files(&each);
        }
        bitlens_views::memory::infer_allocator_of(
            self.writer,
            self.session.databases(),
            self.cluster_node,
            &self.used_mem_aux,
        )
    }
}

#[wasm_bindgen]
impl Engine {
    /// The memory view of every loaded database (expired keys included: they are in the
    /// file), as `bitlens inspect` computes it (`bitlens_views::report`): the biggest keys,
    /// memory per type and encoding and per exact key pattern, what expires within `days`,
    /// the expiry histogram, the prefix tree, and with `ledger` the memory ledger of every
    /// pattern with a bitmap, integer-id set or BITFIELD state key (`MemoryReport`). Memory
    /// is the estimate of `MEMORY USAGE key SAMPLES 0` on the snapshot's writer, priced for
    /// `options.allocator` or else the allocator inferred from the snapshot's `used-mem`
    /// (`allocatorSource` and `allocatorReason` say which and why, as `bitlens inspect`). TTLs
    /// are counted from the engine's clock. Throws an `Error` of kind `argument` for a bad
    /// option.
    #[wasm_bindgen(js_name = memoryReport)]
    pub fn memory_report(
        &self,
        options: Option<Ts<types::MemoryReportOptions>>,
    ) -> Result<Ts<types::MemoryReport>, JsError> {
        let options = types::options(options)?;
        let top_n = options.top.unwrap_or(20) as usize;
        let max_patterns = options.patterns.unwrap_or(50) as usize;
        let days = options.days.unwrap_or(7);
        if !(1..=MAX_DAYS).contains(&days) {
            return Err(throw(format!(
                "options.days must be 1 to {MAX_DAYS}, got {days}"
            )));
        }
        let allocator = self.allocator_choice(options.allocator.map(allocator));
        let separators = match options.separators {
            None => vec![b':'],
            Some(s) if !s.is_empty() && s.is_ascii() => s.into_bytes(),
            Some(s) => {
                return Err(throw(format!(
                    "options.separators {s:?}: one or more ASCII characters"
                )))
            }
        };
        let ledger = match options.ledger {
            Some(true) => Some(ledger_opt(&options.bitfield)?),
            _ => None,
        };
        let ropts = ReportOptions {
            top_n,
            days,
            separators,
            depth: options.depth.unwrap_or(2) as usize,
            ledger,
        };
        let clock_ms = self.now_ms();
        let model = Model::new(self.writer, allocator.allocator).at(Some(clock_ms));
        let dbs: Vec<(u64, &Keyspace)> = self
            .session
            .databases()
            .iter()
            .map(|(d, k)| (*d, k))
            .collect();
        // Every encoding the model knows comes from the value itself.
        let r = memory_report(dbs, &model, |_, _| None, clock_ms, &ropts);

        let e = &r.expiring;
        let report = types::MemoryReport {
            clock_ms: clock_ms as f64,
            allocator: allocator.allocator.name().to_string(),
            allocator_source: allocator.source.name().to_string(),
            allocator_reason: allocator.reason.clone(),
            allocator_candidates: allocator
                .candidates()
                .iter()
                .map(|a| a.name().to_string())
                .collect(),
            memory_range: match (allocator.source, allocator.usage_range()) {
                (bitlens_views::memory::AllocatorSource::Undecided, Some((lo, hi))) => {
                    Some(vec![num(lo), num(hi)])
                }
                _ => None,
            },
            keys: num(r.keys),
            memory: num(r.memory),
            unknown: num(r.unknown),
            no_expiry: num(r.no_expiry),
            top: r.top.iter().map(|row| memory_key(row, clock_ms)).collect(),
            by_type: r
                .by_type
                .iter()
                .map(|t| types::TypeRow {
                    type_name: t.type_name.to_string(),
                    encoding: t.encoding.to_string(),
                    keys: num(t.keys),
                    memory: num(t.memory),
                })
                .collect(),
            by_pattern: r
                .by_pattern
                .iter()
                .take(max_patterns)
                .map(|p| {
                    let (pattern, pattern_display) = names(&p.pattern);
                    types::PatternRow {
                        db: num(p.db),
                        pattern,
                        pattern_display,
                        keys: num(p.keys),
                        memory: num(p.memory),
                        types: p
                            .types
                            .iter()
                            .map(|(t, n)| (t.to_string(), num(*n)))
                            .collect(),
                    }
                })
                .collect(),
            pattern_count: r.by_pattern.len() as f64,
            expiring: types::Expiring {
                days: e.days as f64,
                keys: num(e.keys),
                memory: num(e.memory),
                expired_keys: num(e.expired_keys),
                expired_memory: num(e.expired_memory),
                per_day: e
                    .per_day
                    .iter()
                    .map(|d| types::ExpiringDay {
                        until_ms: d.until_ms as f64,
                        keys: num(d.keys),
                        memory: num(d.memory),
                    })
                    .collect(),
            },
            ttl: r
                .ttl
                .iter()
                .map(|t| types::TtlBar {
                    name: String::from_utf8_lossy(&t.name).into_owned(),
                    keys: num(t.keys),
                    memory: num(t.memory),
                })
                .collect(),
            prefixes: r
                .prefixes
                .iter()
                .map(|p| {
                    let (prefix, prefix_display) = names(&p.prefix);
                    types::PrefixNode {
                        depth: p.depth as f64,
                        prefix,
                        prefix_display,
                        keys: num(p.keys),
                        memory: num(p.memory),
                    }
                })
                .collect(),
            ledger: ropts.ledger.is_some().then(|| {
                r.by_pattern
                    .iter()
                    .filter_map(|p| Some(pattern_ledger(p.db, &p.pattern, p.ledger.as_ref()?)))
                    .collect()
            }),
        };
        types::result(&report)
    }

    /// The memory ledger of `key` in the selected database (`inspect --ledger` of that key):
    /// value bytes of the same members as they are and as each other representation
    /// (`KeyLedger`; `null` fields: the form does not apply), estimated for the snapshot's
    /// writer; `null` when the key is missing or no form applies. `options`: `allocator` and
    /// `bitfield`, as `memoryReport`'s.
    #[wasm_bindgen(js_name = keyLedger, unchecked_return_type = "KeyLedger | null")]
    pub fn key_ledger(
        &self,
        #[wasm_bindgen(unchecked_param_type = "KeyName")] key: JsValue,
        options: Option<Ts<types::KeyLedgerOptions>>,
    ) -> Result<JsValue, JsError> {
        let options = types::options(options)?;
        let key = arg_bytes(&key, 0)?;
        let model = Model::new(
            self.writer,
            self.allocator_choice(options.allocator.map(allocator))
                .allocator,
        );
        let lo = ledger_opt(&options.bitfield)?;
        let Some(entry) = self.ks().entry(&key) else {
            return Ok(JsValue::NULL);
        };
        let ledger = key_ledger(&model, &lo, &key, entry.value).map(|l| key_ledger_result(&l));
        types::nullable(ledger.as_ref())
    }
}
