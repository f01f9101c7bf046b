//! The wasm glue of the panel's memory view: `Engine.memoryReport(options)` converts
//! [`crate::report::MemoryReport`] (computed by the core over every loaded database) into a
//! plain JS object. No figure is computed here.

use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use super::{opt_count, opt_field, set, Engine};
use crate::escape;
use crate::keyspace::Keyspace;
use crate::memory::{Allocator, Model};
use crate::report::{memory_report, KeyRow, MAX_DAYS};

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

#[wasm_bindgen]
impl Engine {
    /// The memory view of every loaded database (expired keys included: they are in the
    /// file), as `bitlens inspect` computes it ([`crate::report`]):
    /// `{ clockMs, allocator, keys, memory, unknown, noExpiry,
    ///    top: [{ db, key, keyDisplay, type, encoding, memory, len, ttlMs }],
    ///    byType: [{ type, encoding, keys, memory }],
    ///    byPattern: [{ db, pattern, patternDisplay, keys, memory, types: { type: keys } }],
    ///    expiring: { days, keys, memory, expiredKeys, expiredMemory,
    ///                perDay: [{ untilMs, keys, memory }] } }`.
    /// `memory` is the estimate of `MEMORY USAGE key SAMPLES 0` on the snapshot's writer
    /// (bytes; `null` for values not modelled, counted as 0 and in `unknown`); `ttlMs` is
    /// from the clock (`clockMs`: the snapshot's time unless the load's `clock` said
    /// otherwise; now on an engine without a snapshot); `keyDisplay`/`patternDisplay` are the
    /// names escaped as redis-cli prints them. `options` (optional): `top` (keys listed,
    /// default 20), `patterns` (pattern rows listed, default 50), `days` (the expiry window,
    /// default 7, 1..=366), `allocator` (`'jemalloc'` default, `'jemalloc16'`, `'libc'`).
    /// Throws for a bad option.
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
        let allocator = match opt_field(&options, "allocator")?.as_string() {
            None => Allocator::Jemalloc,
            Some(a) => Allocator::parse(&a).ok_or_else(|| {
                JsError::new(&format!(
                    "options.allocator {a:?}: one of jemalloc, jemalloc16, libc"
                ))
            })?,
        };
        let clock_ms = self.clock_ms.unwrap_or_else(|| js_sys::Date::now() as i64);
        let model = Model::new(self.writer, allocator);
        let mut dbs: Vec<(u64, &Keyspace)> = self.dbs.iter().map(|(d, k)| (*d, k)).collect();
        dbs.push((self.db, &self.ks));
        crate::sort::sort_by_key(&mut dbs, |d| d.0);
        // Every encoding the model knows comes from the value itself.
        let r = memory_report(dbs, &model, |_, _| None, clock_ms, top_n, days as u32);

        let obj = Object::new();
        set(&obj, "clockMs", &JsValue::from_f64(clock_ms as f64))?;
        set(
            &obj,
            "allocator",
            &format!("{allocator:?}").to_lowercase().into(),
        )?;
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
        Ok(obj)
    }
}
