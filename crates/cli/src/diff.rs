//! `bitlens diff A B`: the keys added, removed or changed from snapshot A to snapshot B, and
//! the memory delta per prefix. Either side may be several files read as one keyspace (a
//! cluster's shards: `diff --old A1 A2 --new B1 B2`), as `query --rdb A1 --rdb A2` reads them.
//!
//! A key is changed when its type, content or expiry differs. Content is compared in a form
//! free of encodings and of hash-table order: sets and hash fields sorted, everything else as
//! [`crate::dump::json_line`] writes it (so an intset and a hashtable holding the same
//! members are equal). Memory is each key's estimate on its own file's writer
//! ([`bitlens::memory`]); a prefix is a key up to its first separator (the whole key when it
//! has none).

use std::collections::BTreeMap;

use bitlens::dialect::Profile;
use bitlens::keyspace::Value;
use bitlens::memory::{Allocator, Model};
use bitlens::rdb::{DuplicateKey, OnDuplicate, Snapshot};
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

/// A key's entry on one side of a diff, with the index of the file it came from.
type Side<'s> = BTreeMap<DbKey, (bitlens::keyspace::EntryRef<'s>, usize)>;

/// The entries of `snaps` read as one keyspace ([`bitlens::rdb::union`]'s, `on` deciding a
/// key found in two files; under [`OnDuplicate::Error`] that key is the error).
fn side(snaps: &[Snapshot], on: OnDuplicate) -> Result<Side<'_>, DuplicateKey> {
    if on == OnDuplicate::Error {
        if let Some(d) = bitlens::rdb::find_duplicate(snaps) {
            return Err(d);
        }
    }
    let mut out = Side::new();
    for (i, s) in snaps.iter().enumerate() {
        for (db, k, e) in s.entries() {
            let slot = out.entry((db, k.to_vec()));
            match (slot, on) {
                (std::collections::btree_map::Entry::Occupied(mut o), OnDuplicate::Last) => {
                    o.insert((e, i));
                }
                (std::collections::btree_map::Entry::Occupied(_), _) => {}
                (std::collections::btree_map::Entry::Vacant(v), _) => {
                    v.insert((e, i));
                }
            }
        }
    }
    Ok(out)
}

/// Compares the snapshots `a` (the older, one file or a cluster's shards read as one, `on`
/// deciding a key found in two files of a side) with `b`, the memory of each key priced on
/// its own file's writer for the `allocator` given, or else the one inferred from that
/// file's `used-mem` ([`bitlens::memory::infer_allocator`]). Errors: a key in two files of
/// one side under [`OnDuplicate::Error`], with 0 for side `a` or 1 for `b`.
pub fn diff(
    a: &[Snapshot],
    b: &[Snapshot],
    on: OnDuplicate,
    separators: &[u8],
    allocator: Option<Allocator>,
) -> Result<Diff, (usize, DuplicateKey)> {
    let models = |snaps: &[Snapshot]| -> Vec<Model> {
        snaps
            .iter()
            .map(|s| {
                let a = allocator.unwrap_or_else(|| bitlens::memory::infer_allocator(s).allocator);
                Model::new(Profile::for_snapshot(&s.aux, s.version), a)
            })
            .collect()
    };
    let (ma, mb) = (models(a), models(b));
    let prefix = |k: &[u8]| -> Vec<u8> {
        match k.iter().position(|c| separators.contains(c)) {
            Some(i) => k[..=i].to_vec(),
            None => k.to_vec(),
        }
    };
    let mut d = Diff::default();
    let mut mem: BTreeMap<Vec<u8>, (u64, u64)> = BTreeMap::new();
    let ea = side(a, on).map_err(|e| (0, e))?;
    let eb = side(b, on).map_err(|e| (1, e))?;
    for (k, (e, i)) in &ea {
        mem.entry(prefix(&k.1)).or_default().0 += ma[*i]
            .estimate_with_expiry(&k.1, e.value, e.expire_at_ms.is_some())
            .map_or(0, |x| x.bytes);
        match eb.get(k) {
            None => d.removed.push(k.clone()),
            Some((f, _))
                if canonical(e.value, e.expire_at_ms) != canonical(f.value, f.expire_at_ms) =>
            {
                d.changed.push(k.clone())
            }
            Some(_) => d.same += 1,
        }
    }
    for (k, (e, i)) in &eb {
        mem.entry(prefix(&k.1)).or_default().1 += mb[*i]
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
