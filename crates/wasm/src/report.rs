//! The wasm glue of the panel's memory view: `Engine.memoryReport(options)` converts
//! [`bitlens_views::report::MemoryReport`] (computed by the core over every loaded database) into a
//! plain JS object. No figure is computed here.

use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use super::{arg_bytes, opt_count, opt_field, set, Engine};
use bitlens::escape;
use bitlens::keyspace::Keyspace;
use bitlens_views::memory::{Allocator, Ledger, Model};
use bitlens_views::report::{
    key_ledger, memory_report, KeyRow, LedgerOptions, LedgerSum, ReportOptions, MAX_DAYS,
};

fn num(n: u64) -> JsValue {
    JsValue::from_f64(n as f64)
}

/// A key name for JS: `key` the name as a string (lossy UTF-8, what `keyList` gives), `name`
/// the name as `bitlens inspect` prints it ([`escape::display`]: no raw control byte).
fn name_js(obj: &Object, field: &str, bytes: &[u8]) -> Result<(), JsError> {
    set(obj, field, &String::from_utf8_lossy(bytes).as_ref().into())?;
    set(
        obj,
        &format!("{field}Display"),
        &escape::display(bytes).into(),
    )
}

/// The allocator option (`'jemalloc'`, `'jemalloc16'`, `'libc'`); `None` when absent (then
/// inferred from the snapshot's `used-mem`).
fn allocator_opt(options: &JsValue) -> Result<Option<Allocator>, JsError> {
    match opt_field(options, "allocator")?.as_string() {
        None => Ok(None),
        Some(a) => Allocator::parse(&a).map(Some).ok_or_else(|| {
            JsError::new(&format!(
                "options.allocator {a:?}: one of jemalloc, jemalloc16, libc"
            ))
        }),
    }
}

/// The `bitfield` option: an array of `'GLOB=TYPE'` strings ([`LedgerOptions::add_bitfield`]).
fn ledger_opt(options: &JsValue) -> Result<LedgerOptions, JsError> {
    let mut lo = LedgerOptions::default();
    let v = opt_field(options, "bitfield")?;
    if v.is_undefined() || v.is_null() {
        return Ok(lo);
    }
    if !Array::is_array(&v) {
        return Err(JsError::new(
            "options.bitfield must be an array of 'GLOB=TYPE' strings",
        ));
    }
    for item in Array::from(&v).iter() {
        let spec = item.as_string().ok_or_else(|| {
            JsError::new("options.bitfield must be an array of 'GLOB=TYPE' strings")
        })?;
        lo.add_bitfield(&spec)
            .map_err(|e| JsError::new(&format!("options.{e}")))?;
    }
    Ok(lo)
}

/// `{ keys, members, current, asSet, asBitmap, asRoaring, asHash }` of a [`LedgerSum`].
fn ledger_sum_js(l: &LedgerSum) -> Result<Object, JsError> {
    let o = Object::new();
    set(&o, "keys", &num(l.keys))?;
    set(&o, "members", &num(l.members))?;
    set(&o, "current", &num(l.current))?;
    set(&o, "asSet", &num(l.as_set))?;
    set(&o, "asBitmap", &num(l.as_bitmap))?;
    set(&o, "asRoaring", &num(l.as_roaring))?;
    set(&o, "asHash", &num(l.as_hash))?;
    Ok(o)
}

/// `{ members, current, asSet: {encoding, memory} | null, asBitmap, asRoaring,
/// asHash: {encoding, memory} | null }` of one key's [`Ledger`] (`null`: the form does not apply).
fn ledger_js(l: &Ledger) -> Result<Object, JsError> {
    let o = Object::new();
    let enc = |x: Option<(&str, u64)>| -> Result<JsValue, JsError> {
        let Some((e, m)) = x else {
            return Ok(JsValue::NULL);
        };
        let v = Object::new();
        set(&v, "encoding", &e.into())?;
        set(&v, "memory", &num(m))?;
        Ok(v.into())
    };
    set(&o, "members", &num(l.members))?;
    set(&o, "current", &num(l.current))?;
    set(&o, "asSet", &enc(l.as_set)?)?;
    set(&o, "asBitmap", &l.as_bitmap.map_or(JsValue::NULL, num))?;
    set(&o, "asRoaring", &l.as_roaring.map_or(JsValue::NULL, num))?;
    set(&o, "asHash", &enc(l.as_hash)?)?;
    Ok(o)
}

fn row_js(r: &KeyRow, clock_ms: i64) -> Result<Object, JsError> {
    let o = Object::new();
    set(&o, "db", &num(r.db))?;
    name_js(&o, "key", &r.key)?;
    set(&o, "type", &r.type_name.as_str().into())?;
    set(&o, "encoding", &r.encoding.into())?;
    set(&o, "memory", &r.memory.map_or(JsValue::NULL, num))?;
    set(&o, "len", &num(r.len))?;
    let ttl = r
        .expire_at_ms
        .map_or(JsValue::NULL, |e| JsValue::from_f64((e - clock_ms) as f64));
    set(&o, "ttlMs", &ttl)?;
    Ok(o)
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
        let mut inf = bitlens_views::memory::AllocatorInference::new(self.writer);
        inf.set_cluster_node(self.cluster_node);
        for (&db, ks) in self.session.databases() {
            for (k, e) in ks.iter() {
                inf.add(db, k, e.value, e.expire_at_ms.is_some());
            }
        }
        inf.finish(&self.used_mem_aux)
    }
}

#[wasm_bindgen]
impl Engine {
    /// The memory view of every loaded database (expired keys included: they are in the
    /// file), as `bitlens inspect` computes it ([`bitlens_views::report`]):
    /// `{ clockMs, allocator, allocatorSource, allocatorReason, keys, memory, unknown, noExpiry,
    ///    top: [{ db, key, keyDisplay, type, encoding, memory, len, ttlMs }],
    ///    byType: [{ type, encoding, keys, memory }],
    ///    byPattern: [{ db, pattern, patternDisplay, keys, memory, types: { type: keys } }],
    ///    expiring: { days, keys, memory, expiredKeys, expiredMemory,
    ///                perDay: [{ untilMs, keys, memory }] },
    ///    ttl: [{ name, keys, memory }],
    ///    prefixes: [{ depth, prefix, prefixDisplay, keys, memory }],
    ///    ledger: [{ db, pattern, patternDisplay, keys, members, current, asSet, asBitmap,
    ///               asRoaring, asHash }] | null }`.
    /// `ttl` is `inspect`'s expiry histogram ([`bitlens_views::report::ttl_histogram`]: no expiry,
    /// already expired, within 1 h / 1 d / 7 d, later); `prefixes` its prefix tree
    /// ([`bitlens_views::report::prefix_tree`], depth-first); `ledger` the memory ledger of every
    /// pattern with a bitmap, integer-id set or BITFIELD state key, memory descending
    /// (`inspect --ledger`), `null` unless asked.
    /// `memory` is the estimate of `MEMORY USAGE key SAMPLES 0` on the snapshot's writer
    /// (bytes; `null` for values not modelled, counted as 0 and in `unknown`); `ttlMs` is
    /// from the clock (`clockMs`: the snapshot's time unless the load's `clock` said
    /// otherwise; now on an engine without a snapshot); `keyDisplay`/`patternDisplay` are the
    /// names escaped as redis-cli prints them. `options` (optional): `top` (keys listed,
    /// default 20), `patterns` (pattern rows listed, default 50), `days` (the expiry window,
    /// default 7, 1..=366), `allocator` (`'jemalloc'`, `'jemalloc16'`, `'libc'`; default:
    /// inferred from the snapshot's `used-mem`, `allocatorSource` `inferred` or `assumed`
    /// and `allocatorReason` say which and why, as `bitlens inspect`),
    /// `separators` (a string of ASCII separator characters, default `':'`), `depth` (prefix
    /// tree depth, default 2), `ledger` (bool, default false), `bitfield` (an array of
    /// `'GLOB=TYPE'`: keys priced as BITFIELD state, `inspect --bitfield`). Throws for a bad
    /// option.
    #[wasm_bindgen(js_name = memoryReport)]
    pub fn memory_report(&self, options: JsValue) -> Result<Object, JsError> {
        let top_n = opt_count(&options, "top")?.unwrap_or(20);
        let max_patterns = opt_count(&options, "patterns")?.unwrap_or(50);
        let days = opt_count(&options, "days")?.unwrap_or(7);
        if !(1..=MAX_DAYS as usize).contains(&days) {
            return Err(JsError::new(&format!(
                "options.days must be 1 to {MAX_DAYS}, got {days}"
            )));
        }
        let allocator = self.allocator_choice(allocator_opt(&options)?);
        let separators = match opt_field(&options, "separators")?.as_string() {
            None => vec![b':'],
            Some(s) if !s.is_empty() && s.is_ascii() => s.into_bytes(),
            Some(s) => {
                return Err(JsError::new(&format!(
                    "options.separators {s:?}: one or more ASCII characters"
                )))
            }
        };
        let depth = opt_count(&options, "depth")?.unwrap_or(2);
        let ledger = match super::opt_bool(&options, "ledger")? {
            Some(true) => Some(ledger_opt(&options)?),
            _ => None,
        };
        let ropts = ReportOptions {
            top_n,
            days: days as u32,
            separators,
            depth,
            ledger,
        };
        let clock_ms = self.now_ms();
        let model = Model::new(self.writer, allocator.allocator);
        let dbs: Vec<(u64, &Keyspace)> = self
            .session
            .databases()
            .iter()
            .map(|(d, k)| (*d, k))
            .collect();
        // Every encoding the model knows comes from the value itself.
        let r = memory_report(dbs, &model, |_, _| None, clock_ms, &ropts);

        let obj = Object::new();
        set(&obj, "clockMs", &JsValue::from_f64(clock_ms as f64))?;
        set(&obj, "allocator", &allocator.allocator.name().into())?;
        set(
            &obj,
            "allocatorSource",
            &format!("{:?}", allocator.source).to_lowercase().into(),
        )?;
        set(&obj, "allocatorReason", &allocator.reason.as_str().into())?;
        set(&obj, "keys", &num(r.keys))?;
        set(&obj, "memory", &num(r.memory))?;
        set(&obj, "unknown", &num(r.unknown))?;
        set(&obj, "noExpiry", &num(r.no_expiry))?;
        let top = Array::new();
        for row in &r.top {
            top.push(&row_js(row, clock_ms)?.into());
        }
        set(&obj, "top", &top)?;
        let by_type = Array::new();
        for t in &r.by_type {
            let o = Object::new();
            set(&o, "type", &t.type_name.as_str().into())?;
            set(&o, "encoding", &t.encoding.into())?;
            set(&o, "keys", &num(t.keys))?;
            set(&o, "memory", &num(t.memory))?;
            by_type.push(&o);
        }
        set(&obj, "byType", &by_type)?;
        let by_pattern = Array::new();
        for p in r.by_pattern.iter().take(max_patterns) {
            let o = Object::new();
            set(&o, "db", &num(p.db))?;
            name_js(&o, "pattern", &p.pattern)?;
            set(&o, "keys", &num(p.keys))?;
            set(&o, "memory", &num(p.memory))?;
            let types = Object::new();
            for (t, n) in &p.types {
                set(&types, t, &num(*n))?;
            }
            set(&o, "types", &types)?;
            by_pattern.push(&o);
        }
        set(&obj, "byPattern", &by_pattern)?;
        set(&obj, "patternCount", &num(r.by_pattern.len() as u64))?;
        let e = &r.expiring;
        let exp = Object::new();
        set(&exp, "days", &num(e.days as u64))?;
        set(&exp, "keys", &num(e.keys))?;
        set(&exp, "memory", &num(e.memory))?;
        set(&exp, "expiredKeys", &num(e.expired_keys))?;
        set(&exp, "expiredMemory", &num(e.expired_memory))?;
        let per_day = Array::new();
        for d in &e.per_day {
            let o = Object::new();
            set(&o, "untilMs", &JsValue::from_f64(d.until_ms as f64))?;
            set(&o, "keys", &num(d.keys))?;
            set(&o, "memory", &num(d.memory))?;
            per_day.push(&o);
        }
        set(&exp, "perDay", &per_day)?;
        set(&obj, "expiring", &exp)?;
        let ttl = Array::new();
        for t in &r.ttl {
            let o = Object::new();
            set(
                &o,
                "name",
                &String::from_utf8_lossy(&t.name).as_ref().into(),
            )?;
            set(&o, "keys", &num(t.keys))?;
            set(&o, "memory", &num(t.memory))?;
            ttl.push(&o);
        }
        set(&obj, "ttl", &ttl)?;
        let prefixes = Array::new();
        for p in &r.prefixes {
            let o = Object::new();
            set(&o, "depth", &num(p.depth as u64))?;
            name_js(&o, "prefix", &p.prefix)?;
            set(&o, "keys", &num(p.keys))?;
            set(&o, "memory", &num(p.memory))?;
            prefixes.push(&o);
        }
        set(&obj, "prefixes", &prefixes)?;
        if ropts.ledger.is_some() {
            let ledger = Array::new();
            for p in &r.by_pattern {
                let Some(l) = &p.ledger else { continue };
                let o = ledger_sum_js(l)?;
                set(&o, "db", &num(p.db))?;
                name_js(&o, "pattern", &p.pattern)?;
                ledger.push(&o);
            }
            set(&obj, "ledger", &ledger)?;
        } else {
            set(&obj, "ledger", &JsValue::NULL)?;
        }
        Ok(obj)
    }

    /// The memory ledger of `key` in the selected database (`inspect --ledger` of that key):
    /// `{ members, current, asSet: {encoding, memory} | null, asBitmap, asRoaring,
    /// asHash: {encoding, memory} | null }`, value bytes of the same members as they are and
    /// as each other representation (`null`: the form does not apply), estimated for the
    /// snapshot's writer ([`bitlens_views::memory::Model::ledger`],
    /// [`bitlens_views::memory::Model::bitfield_ledger`]); `null` when the key is missing or no form
    /// applies. `options`: `allocator`, `bitfield` as [`Engine::memory_report`]. Throws for a
    /// bad option.
    #[wasm_bindgen(js_name = keyLedger)]
    pub fn key_ledger(&self, key: JsValue, options: JsValue) -> Result<JsValue, JsError> {
        let key = arg_bytes(&key, 0)?;
        let model = Model::new(
            self.writer,
            self.allocator_choice(allocator_opt(&options)?).allocator,
        );
        let lo = ledger_opt(&options)?;
        let Some(entry) = self.ks().entry(&key) else {
            return Ok(JsValue::NULL);
        };
        match key_ledger(&model, &lo, &key, entry.value) {
            Some(l) => Ok(ledger_js(&l)?.into()),
            None => Ok(JsValue::NULL),
        }
    }
}
