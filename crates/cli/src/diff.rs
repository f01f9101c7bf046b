//! `bitlens diff A B`: the keys added, removed or changed from snapshot A to snapshot B, and
//! the memory delta per prefix.
//!
//! A key is changed when its type, content or expiry differs. Content is compared in a form
//! free of encodings and of hash-table order: sets and hash fields sorted, everything else as
//! [`crate::dump::json_line`] writes it (so an intset and a hashtable holding the same
//! members are equal). Memory is each file's estimate on its own writer
//! ([`bitlens::memory`]); a prefix is a key up to its first separator (the whole key when it
//! has none).

use std::collections::BTreeMap;

use bitlens::dialect::Profile;
use bitlens::keyspace::Value;
use bitlens::memory::{Allocator, Model};
use bitlens::rdb::{load_rdb, LoadOptions, RdbError};
use serde_json::Value as Json;

/// One key: database and name.
pub type DbKey = (u64, Vec<u8>);

/// The difference between two snapshots.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Diff {
    /// Keys only in B, only in A, in both but different; each sorted.
    pub added: Vec<DbKey>,
    pub removed: Vec<DbKey>,
    pub changed: Vec<DbKey>,
    /// Keys present in both and equal.
    pub same: u64,
    /// Per prefix: (prefix, memory in A, memory in B), by |B − A| descending.
    pub prefixes: Vec<(Vec<u8>, u64, u64)>,
}

fn canonical(value: &Value, expire: Option<i64>) -> Json {
    let mut j = crate::dump::json_line(0, b"", value, expire);
    if matches!(value, Value::Set(_) | Value::Hash(_)) {
        if let Some(a) = j["value"].as_array_mut() {
            a.sort_by_key(|v| v.to_string());
        }
    }
    j
}

/// Compares snapshot `a` with `b` (see the module docs), the memory of each priced for the
/// `allocator` given, or else the one inferred from that file's `used-mem`
/// ([`bitlens::memory::infer_allocator`]). Errors as [`bitlens::rdb::load_rdb`], with 0 for
/// `a` or 1 for `b`.
pub fn diff(
    a: &[u8],
    b: &[u8],
    separators: &[u8],
    allocator: Option<Allocator>,
) -> Result<Diff, (usize, RdbError)> {
    let opts = LoadOptions {
        threads: crate::source::load_threads(),
        ..Default::default()
    };
    // Both files at once, each on the shared pool.
    let (sa, sb) = rayon::join(|| load_rdb(a, &opts), || load_rdb(b, &opts));
    let (sa, sb) = (sa.map_err(|e| (0, e))?, sb.map_err(|e| (1, e))?);
    let model = |s: &bitlens::rdb::Snapshot| {
        let a = allocator.unwrap_or_else(|| bitlens::memory::infer_allocator(s).allocator);
        Model::new(Profile::for_snapshot(&s.aux, s.version), a)
    };
    let (ma, mb) = (model(&sa), model(&sb));
    let prefix = |k: &[u8]| -> Vec<u8> {
        match k.iter().position(|c| separators.contains(c)) {
            Some(i) => k[..=i].to_vec(),
            None => k.to_vec(),
        }
    };
    let mut d = Diff::default();
    let mut mem: BTreeMap<Vec<u8>, (u64, u64)> = BTreeMap::new();
    let ea: BTreeMap<DbKey, bitlens::keyspace::EntryRef<'_>> = sa
        .entries()
        .into_iter()
        .map(|(db, k, e)| ((db, k.to_vec()), e))
        .collect();
    let eb: BTreeMap<DbKey, bitlens::keyspace::EntryRef<'_>> = sb
        .entries()
        .into_iter()
        .map(|(db, k, e)| ((db, k.to_vec()), e))
        .collect();
    for (k, e) in &ea {
        mem.entry(prefix(&k.1)).or_default().0 += ma
            .estimate_with_expiry(&k.1, e.value, e.expire_at_ms.is_some())
            .map_or(0, |x| x.bytes);
        match eb.get(k) {
            None => d.removed.push(k.clone()),
            Some(f) if canonical(e.value, e.expire_at_ms) != canonical(f.value, f.expire_at_ms) => {
                d.changed.push(k.clone())
            }
            Some(_) => d.same += 1,
        }
    }
    for (k, e) in &eb {
        mem.entry(prefix(&k.1)).or_default().1 += mb
            .estimate_with_expiry(&k.1, e.value, e.expire_at_ms.is_some())
            .map_or(0, |x| x.bytes);
        if !ea.contains_key(k) {
            d.added.push(k.clone());
        }
    }
    d.prefixes = mem.into_iter().map(|(p, (x, y))| (p, x, y)).collect();
    d.prefixes.sort_by_key(|(p, x, y)| {
        (
            std::cmp::Reverse((*y as i128 - *x as i128).unsigned_abs()),
            p.clone(),
        )
    });
    Ok(d)
}

/// Most keys listed per section in text (the count is always complete).
pub const LIST_KEYS: usize = 50;

impl Diff {
    /// Text for people: counts, the keys of each section (escaped, at most [`LIST_KEYS`]),
    /// then the memory delta per prefix.
    pub fn to_text(&self) -> String {
        use crate::inspect::render::{cap, human, NAME_WIDTH};
        use std::fmt::Write as _;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} added, {} removed, {} changed, {} unchanged",
            self.added.len(),
            self.removed.len(),
            self.changed.len(),
            self.same
        );
        for (title, keys) in [
            ("added", &self.added),
            ("removed", &self.removed),
            ("changed", &self.changed),
        ] {
            if keys.is_empty() {
                continue;
            }
            let _ = writeln!(out, "\n{title}:");
            for (db, k) in keys.iter().take(LIST_KEYS) {
                let _ = writeln!(
                    out,
                    "  db{db} {}",
                    cap(&bitlens::escape::display(k), NAME_WIDTH)
                );
            }
            if keys.len() > LIST_KEYS {
                let _ = writeln!(out, "  … {} more", keys.len() - LIST_KEYS);
            }
        }
        // The section only when some prefix's memory changed (no empty header).
        let moved: Vec<_> = self.prefixes.iter().filter(|(_, a, b)| a != b).collect();
        if moved.is_empty() {
            return out;
        }
        let _ = writeln!(out, "\nmemory per prefix (estimated MEMORY USAGE, A -> B):");
        for (p, a, b) in moved {
            let delta = *b as i128 - *a as i128;
            let sign = if delta > 0 { "+" } else { "-" };
            let _ = writeln!(
                out,
                "  {:<w$} {:>10} -> {:>10}  {sign}{}",
                cap(&bitlens::escape::display(p), NAME_WIDTH),
                human(*a),
                human(*b),
                human(delta.unsigned_abs() as u64),
                w = NAME_WIDTH
            );
        }
        out
    }

    /// JSON: `{"added"|"removed"|"changed": [{"db", "key"}], "unchanged", "prefixes":
    /// [{"prefix", "memory_a", "memory_b", "delta"}]}`, names as `inspect --json`.
    pub fn to_json(&self) -> Json {
        use crate::inspect::render::name_json;
        let keys = |v: &[DbKey]| {
            v.iter()
                .map(|(db, k)| serde_json::json!({"db": db, "key": name_json(k)}))
                .collect::<Vec<_>>()
        };
        serde_json::json!({
            "added": keys(&self.added),
            "removed": keys(&self.removed),
            "changed": keys(&self.changed),
            "unchanged": self.same,
            "prefixes": self.prefixes.iter().map(|(p, a, b)| serde_json::json!({
                "prefix": name_json(p), "memory_a": a, "memory_b": b, "delta": *b as i64 - *a as i64})).collect::<Vec<_>>(),
        })
    }
}
