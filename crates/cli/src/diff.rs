//! `bitlens diff A B`: the keys added, removed or changed from snapshot A to snapshot B, and
//! the memory delta per prefix. Either side may be several files read as one keyspace (a
//! cluster's shards: `diff --old A1 A2 --new B1 B2`), as `query --rdb A1 --rdb A2` reads them.
//!
//! A key is changed when its type, content or expiry differs. Content is compared in a form
//! free of encodings and of hash-table order: sets and hash fields sorted, everything else as
//! [`crate::dump::json_line`] writes it (so an intset and a hashtable holding the same
//! members are equal). Memory is each key's estimate on its own file's writer
//! ([`bitlens_views::memory`]); a prefix is a key up to its first separator (the whole key when it
//! has none).
//!
//! No keyspace is held: each file is visited once (at most a core's worth of files at once,
//! [`bitlens::open::per_file`]) and each key kept as its name, a 128-bit fingerprint of its
//! canonical form and its memory estimate. The writer's allocator is inferred in the same
//! pass: each key is priced for every candidate, and the inferred one's column is kept.

use std::collections::BTreeMap;
use std::hash::{Hash as _, Hasher as _};
use std::path::{Path, PathBuf};

use bitlens::dialect::Profile;
use bitlens::keyspace::Value;
use bitlens::rdb::{self, DuplicateKey, LoadOptions, OnDuplicate, RdbError};
use bitlens_views::memory::{Allocator, AllocatorInference, Model};
use serde_json::Value as Json;

use bitlens::open::{FileError as LoadError, VisitError};

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

/// Why [`diff_files`] found no difference to report.
#[derive(Debug)]
pub enum DiffError {
    /// The file at this index of `old` then `new` (in the order given) could not be read; the
    /// first such file.
    File(usize, LoadError),
    /// A key is in two files of one side under [`OnDuplicate::Error`]: 0 for the old side, 1
    /// for the new (file indices within that side).
    Duplicate(usize, DuplicateKey),
}

fn canonical(value: &Value, expire: Option<i64>) -> Json {
    let mut j = crate::dump::json_line(0, b"", value, expire);
    if matches!(value, Value::Set(_) | Value::Hash(_)) {
        if let Some(a) = j["value"].as_array_mut() {
            a.sort_by_key(|v| v.to_string());
        }
    }
    if let Value::Stream(s) = value {
        // dump's line holds the entries and each group's name and last id; the rest of a
        // stream's state counts too: its first and max-deleted ids, entries-added, and each
        // group's entries-read, pending entries (delivery time and count) and consumers (an
        // XACK or XCLAIM changes the key).
        j["state"] = Json::String(format!(
            "{:?}",
            (s.first_id, s.max_deleted_id, s.entries_added, &s.groups)
        ));
    }
    j
}

/// A 128-bit fingerprint of a key's canonical form (two SipHash-1-3 sums, salted 0 and 1):
/// two keys are equal when their fingerprints are. A string's form is its bytes and expiry,
/// hashed as the value hands them out (no copy of a large string, no JSON escaping of it),
/// after a 0 byte no other type's form starts with; every other type's is its JSON text
/// ([`canonical`]).
fn fingerprint(value: &Value, expire: Option<i64>) -> u128 {
    /// Both sums' hashers, fed the same bytes.
    struct Sums([std::hash::DefaultHasher; 2]);
    impl Sums {
        fn feed(&mut self, bytes: &[u8]) {
            self.0.iter_mut().for_each(|h| h.write(bytes));
        }
    }
    let mut sums = Sums([0u8, 1].map(|salt| {
        let mut h = std::hash::DefaultHasher::new();
        salt.hash(&mut h);
        h
    }));
    match value {
        Value::String(s) => {
            sums.feed(b"\0string\0");
            match expire {
                Some(ms) => {
                    sums.feed(&[1]);
                    sums.feed(&ms.to_le_bytes());
                }
                None => sums.feed(&[0]),
            }
            sums.feed(&s.len().to_le_bytes());
            let fed = crate::dump::string_pieces(s, |p| {
                sums.feed(p);
                Ok(())
            });
            debug_assert!(fed.is_ok(), "feeding a hasher does not fail");
        }
        _ => sums.feed(canonical(value, expire).to_string().as_bytes()),
    }
    // (As `str::hash` ends a string.)
    let [a, b] = sums.0.map(|mut h| {
        h.write_u8(0xff);
        h.finish()
    });
    (u128::from(a) << 64) | u128::from(b)
}

/// One key of one file: its fingerprint and its memory on the file's writer.
struct KeyDigest {
    key: DbKey,
    fingerprint: u128,
    memory: u64,
}

/// The keys of the RDB file at `path`, each with its fingerprint and memory estimate on the
/// file's writer with `allocator`, or else the allocator inferred from the file's `used-mem`
/// (as [`bitlens_views::memory::infer_allocator`] infers it from the loaded file). Errors as
/// [`bitlens::open::load_file`]'s: a key met twice in one database is an error at its second
/// record, unless an earlier error stops the file.
fn file_digests(
    path: &Path,
    opts: &LoadOptions,
    allocator: Option<Allocator>,
) -> Result<Vec<KeyDigest>, LoadError> {
    use std::io::Read as _;
    let mut head = Vec::new();
    bitlens::open::open_input(path)
        .and_then(|f| {
            f.take(bitlens::open::HEAD_BYTES as u64)
                .read_to_end(&mut head)
        })
        .map_err(LoadError::Io)?;
    // The writer from the aux fields at the file's start; a file whose start cannot be read
    // is reported by the visit.
    let peeked = rdb::peek_aux(&head).ok();
    let mut profile = peeked
        .as_ref()
        .map(|(format, aux)| Profile::for_snapshot(aux, format.version));
    // Without used-mem the inference assumes bundled jemalloc whatever the keys (as
    // `inspect` knows): the keys are then priced for it alone, not for every candidate.
    let no_used_mem = peeked
        .as_ref()
        .is_some_and(|(_, aux)| !aux.iter().any(|(k, _)| k.as_slice() == b"used-mem"));
    let allocator = match allocator {
        None if no_used_mem => Some(Allocator::Jemalloc),
        a => a,
    };
    loop {
        let p = profile.unwrap_or_else(|| Profile::for_snapshot(&[], 0));
        let (digests, header) = visit_digests(path, opts, p, allocator)?;
        let writer = Profile::for_snapshot(&header.0.aux, header.0.version);
        if writer.name == p.name {
            return Ok(finish_digests(digests, &header.0, allocator));
        }
        // The writer's aux fields were not all at the start: price the keys again on it.
        profile = Some(writer);
    }
}

/// What one visit of a file gathers: per key its digest with its price for each candidate
/// allocator, and the allocator inference.
struct Gathered {
    keys: Vec<(DbKey, u128, [u64; 3], u64)>,
    inference: AllocatorInference,
}

fn visit_digests(
    path: &Path,
    opts: &LoadOptions,
    profile: &'static Profile,
    allocator: Option<Allocator>,
) -> Result<(Gathered, (rdb::Header, u64)), LoadError> {
    let models: Vec<Model> = match allocator {
        Some(a) => vec![Model::new(profile, a)],
        None => Allocator::ALL
            .iter()
            .map(|&a| Model::new(profile, a))
            .collect(),
    };
    let mut g = Gathered {
        keys: Vec::new(),
        inference: AllocatorInference::new(profile),
    };
    let visited = bitlens::open::visit_file(path, opts, &mut |_, _| Ok(()), |r| {
        let Some(v) = &r.value else {
            return Ok(());
        };
        let expiring = r.expire_at_ms.is_some();
        let mut prices = [0u64; 3];
        for (m, slot) in models.iter().zip(prices.iter_mut()) {
            *slot = m
                .estimate_with_expiry(&r.key, v, expiring)
                .map_or(0, |x| x.bytes);
        }
        if allocator.is_none() {
            g.inference.add(r.db, &r.key, v, expiring);
        }
        g.keys.push((
            (r.db, r.key.to_vec()),
            fingerprint(v, r.expire_at_ms),
            prices,
            r.offset,
        ));
        Ok(())
    });
    // A key met twice in one database stops a load at its second record, so it is the error
    // when it comes before the visit's own.
    let stop = match &visited {
        Err(VisitError::Rdb(e)) => e.offset,
        Err(VisitError::Io(_)) => 0,
        Ok(_) => u64::MAX,
    };
    if let Some(((db, key), offset)) = first_repeat(&mut g.keys, stop) {
        let mut e = RdbError::new(offset, rdb::ErrorDetail::DuplicateKey { db });
        e.key = Some(key);
        return Err(LoadError::Rdb(e));
    }
    match visited {
        Ok(h) => Ok((g, h)),
        Err(VisitError::Io(e)) => Err(LoadError::Io(e)),
        Err(VisitError::Rdb(e)) => Err(LoadError::Rdb(e)),
    }
}

/// The key and offset of the first record (in file order, before offset `stop`) whose key an
/// earlier record of its database holds; sorts `keys` by name.
fn first_repeat(keys: &mut [(DbKey, u128, [u64; 3], u64)], stop: u64) -> Option<(DbKey, u64)> {
    keys.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.3.cmp(&b.3)));
    keys.windows(2)
        .filter(|w| w[0].0 == w[1].0 && w[1].3 < stop)
        .min_by_key(|w| w[1].3)
        .map(|w| (w[1].0.clone(), w[1].3))
}

/// Each key's digest with the price of the allocator given, or else of the one inferred.
fn finish_digests(
    mut g: Gathered,
    header: &rdb::Header,
    allocator: Option<Allocator>,
) -> Vec<KeyDigest> {
    let column = match allocator {
        Some(_) => 0,
        None => {
            g.inference.set_cluster_node(header.slot_infos > 0);
            let a = g.inference.finish(&header.aux).allocator;
            Allocator::ALL.iter().position(|&c| c == a).unwrap_or(0)
        }
    };
    g.keys
        .into_iter()
        .map(|(key, fingerprint, prices, _)| KeyDigest {
            key,
            fingerprint,
            memory: prices[column],
        })
        .collect()
}

/// One side of a diff: its keys sorted, each with its fingerprint and memory.
type Side = Vec<KeyDigest>;

/// The files' keys (each file's sorted by key) read as one keyspace: the union
/// [`bitlens::rdb::union`] builds, `on` deciding a key found in two files; under
/// [`OnDuplicate::Error`] the smallest such key is the error, with the first two files holding
/// it and the count of repeats, as [`bitlens::rdb::find_duplicate`] reports it.
fn side(files: Vec<Vec<KeyDigest>>, on: OnDuplicate) -> Result<Side, DuplicateKey> {
    let mut all: Vec<(KeyDigest, usize)> = files
        .into_iter()
        .enumerate()
        .flat_map(|(i, keys)| keys.into_iter().map(move |d| (d, i)))
        .collect();
    // Stable: a key's entries stay in file order.
    all.sort_by(|a, b| a.0.key.cmp(&b.0.key));
    let mut out = Side::with_capacity(all.len());
    let mut worst: Option<DuplicateKey> = None;
    let mut count = 0u64;
    let mut it = all.into_iter().peekable();
    while let Some((first, file)) = it.next() {
        let mut kept = first;
        let mut holders = 1;
        while let Some((next, j)) = it.next_if(|(d, _)| d.key == kept.key) {
            holders += 1;
            if holders == 2 && on == OnDuplicate::Error && worst.is_none() {
                // The groups come in key order: the first repeated key is the smallest.
                worst = Some(DuplicateKey {
                    db: kept.key.0,
                    key: kept.key.1.clone(),
                    first: file,
                    second: j,
                    count: 0,
                });
            }
            if on == OnDuplicate::Last {
                kept = next;
            }
        }
        count += holders - 1;
        out.push(kept);
    }
    if let Some(w) = worst {
        return Err(DuplicateKey { count, ..w });
    }
    Ok(out)
}

/// Compares the files `old` (one file, or a cluster's shards read as one, `on` deciding a key
/// found in two files) with `new`, each key's memory priced on its own file's writer for the
/// `allocator` given, or else the one inferred from that file's `used-mem`
/// ([`bitlens_views::memory::infer_allocator`]). Every file is read once, at most a core's worth
/// at a time; the first unreadable file in the order given (`old`, then `new`) is the error.
pub fn diff_files(
    old: &[PathBuf],
    new: &[PathBuf],
    opts: &LoadOptions,
    on: OnDuplicate,
    separators: &[u8],
    allocator: Option<Allocator>,
) -> Result<Diff, DiffError> {
    let all: Vec<PathBuf> = old.iter().chain(new).cloned().collect();
    let workers = bitlens::open::file_workers(opts);
    let mut digests =
        bitlens::open::per_file_at_most(workers, &all, |_, p| file_digests(p, opts, allocator))
            .map_err(|(i, e)| DiffError::File(i, e))?;
    let b = digests.split_off(old.len());
    let ea = side(digests, on).map_err(|e| DiffError::Duplicate(0, e))?;
    let eb = side(b, on).map_err(|e| DiffError::Duplicate(1, e))?;
    Ok(compare(&ea, &eb, separators))
}

/// The keys added, removed and changed from `ea` to `eb` (each sorted by key), and the memory
/// per prefix.
fn compare(ea: &[KeyDigest], eb: &[KeyDigest], separators: &[u8]) -> Diff {
    let prefix = |k: &[u8]| -> Vec<u8> {
        match k.iter().position(|c| separators.contains(c)) {
            Some(i) => k[..=i].to_vec(),
            None => k.to_vec(),
        }
    };
    let mut d = Diff::default();
    let mut mem: BTreeMap<Vec<u8>, (u64, u64)> = BTreeMap::new();
    let (mut a, mut b) = (ea.iter().peekable(), eb.iter().peekable());
    loop {
        let order = match (a.peek(), b.peek()) {
            (None, None) => break,
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (Some(x), Some(y)) => x.key.cmp(&y.key),
        };
        match order {
            std::cmp::Ordering::Less => {
                let x = a.next().expect("peeked");
                mem.entry(prefix(&x.key.1)).or_default().0 += x.memory;
                d.removed.push(x.key.clone());
            }
            std::cmp::Ordering::Greater => {
                let y = b.next().expect("peeked");
                mem.entry(prefix(&y.key.1)).or_default().1 += y.memory;
                d.added.push(y.key.clone());
            }
            std::cmp::Ordering::Equal => {
                let (x, y) = (a.next().expect("peeked"), b.next().expect("peeked"));
                let m = mem.entry(prefix(&x.key.1)).or_default();
                m.0 += x.memory;
                m.1 += y.memory;
                if x.fingerprint == y.fingerprint {
                    d.same += 1;
                } else {
                    d.changed.push(x.key.clone());
                }
            }
        }
    }
    d.prefixes = mem.into_iter().map(|(p, (x, y))| (p, x, y)).collect();
    d.prefixes.sort_by_key(|(p, x, y)| {
        (
            std::cmp::Reverse((*y as i128 - *x as i128).unsigned_abs()),
            p.clone(),
        )
    });
    d
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

#[cfg(test)]
mod tests {
    use super::*;
    use bitlens::rdb::{load_rdb, RdbWriter, Snapshot};
    use bitlens::zset::ZSet;

    /// Strings are equal when their bytes and expiry are, whatever their representation
    /// (plain or sparse), and never equal to another type's value.
    #[test]
    fn string_fingerprints_follow_bytes_and_expiry() {
        use bitlens::string::RedisString;
        let mut sparse = vec![0u8; 2 << 20];
        sparse[1 << 20] = 0x80;
        let a = Value::String(RedisString::from_bytes(sparse.clone()));
        let b = Value::String(RedisString::from_sparse_bits(2 << 20, [8u64 << 20]));
        assert!(a_is_sparse(&a) && a_is_sparse(&b));
        assert_eq!(fingerprint(&a, None), fingerprint(&b, None));
        let mut plain = Value::String(RedisString::from_bytes(sparse));
        if let Value::String(s) = &mut plain {
            s.bytes_mut();
        }
        assert!(!a_is_sparse(&plain));
        assert_eq!(fingerprint(&plain, Some(5)), fingerprint(&a, Some(5)));
        assert_ne!(fingerprint(&a, None), fingerprint(&a, Some(5)));
        let other = Value::String(RedisString::from_sparse_bits(2 << 20, [8u64 << 20, 1]));
        assert_ne!(fingerprint(&a, None), fingerprint(&other, None));
        let empty = Value::String(RedisString::from_bytes(Vec::new()));
        let set = Value::Set(bitlens::set::Set::from_members(Vec::<Vec<u8>>::new()));
        assert_ne!(fingerprint(&empty, None), fingerprint(&set, None));
    }

    fn a_is_sparse(v: &Value) -> bool {
        matches!(v, Value::String(s) if s.is_sparse())
    }

    /// A value for key number `i` in generation `g` (0: side A; other: a changed value).
    fn value(i: u64, g: u64) -> Value {
        if i.is_multiple_of(3) {
            // Members in a different order per generation: the same sorted set.
            let mut pairs: Vec<(Vec<u8>, f64)> = (0..4)
                .map(|m| (format!("m{m}").into_bytes(), (m * (i + g * 7)) as f64))
                .collect();
            if g % 2 == 1 {
                pairs.reverse();
            }
            Value::zset(ZSet::from_pairs(pairs))
        } else {
            Value::String(bitlens::string::RedisString::from_bytes(
                format!("v{i}:{}", "x".repeat((i % 40) as usize + g as usize)).into_bytes(),
            ))
        }
    }

    type Entry = (u64, Vec<u8>, Value, Option<i64>);

    fn write(dir: &Path, name: &str, entries: &[Entry], used_mem: u64) -> PathBuf {
        let mut w = RdbWriter::with_redis_ver(Vec::new(), 11, b"7.4.1").unwrap();
        w.aux(b"used-mem", used_mem.to_string().as_bytes()).unwrap();
        let mut dbs: Vec<u64> = entries.iter().map(|e| e.0).collect();
        dbs.sort_unstable();
        dbs.dedup();
        for db in dbs {
            w.select_db(db).unwrap();
            for (_, k, v, exp) in entries.iter().filter(|e| e.0 == db) {
                w.write_value(k, v, *exp).unwrap();
            }
        }
        let p = dir.join(name);
        std::fs::write(&p, w.finish().unwrap()).unwrap();
        p
    }

    /// The diff as it was computed from loaded snapshots: the naive reference.
    fn reference(a: &[Snapshot], b: &[Snapshot], seps: &[u8]) -> Diff {
        let side = |snaps: &[Snapshot]| -> BTreeMap<DbKey, (Json, u64)> {
            let mut out = BTreeMap::new();
            for s in snaps {
                let a = bitlens_views::memory::infer_allocator(s).allocator;
                let m = Model::new(Profile::for_snapshot(&s.aux, s.version), a);
                for (db, k, e) in s.entries() {
                    let mem = m
                        .estimate_with_expiry(k, e.value, e.expire_at_ms.is_some())
                        .map_or(0, |x| x.bytes);
                    out.insert((db, k.to_vec()), (canonical(e.value, e.expire_at_ms), mem));
                }
            }
            out
        };
        let (ea, eb) = (side(a), side(b));
        let fp = |s: &BTreeMap<DbKey, (Json, u64)>| -> Side {
            s.iter()
                .map(|(k, (j, m))| {
                    let mut h = std::hash::DefaultHasher::new();
                    j.to_string().hash(&mut h);
                    KeyDigest {
                        key: k.clone(),
                        fingerprint: u128::from(h.finish()),
                        memory: *m,
                    }
                })
                .collect()
        };
        compare(&fp(&ea), &fp(&eb), seps)
    }

    #[test]
    fn streamed_diff_equals_the_diff_of_the_loaded_snapshots() {
        let seed = bitlens_testseed::seed();
        let mut rng = fastrand::Rng::with_seed(seed);
        let dir = tempfile::tempdir().unwrap();
        let n = 200 + rng.u64(0..300);
        // Side A: keys spread over two files (shards) and two databases.
        let key = |i: u64| format!("p{}:{i}", i % 5).into_bytes();
        let mut a: Vec<Vec<Entry>> = vec![Vec::new(), Vec::new()];
        let mut b: Vec<Vec<Entry>> = vec![Vec::new(), Vec::new()];
        for i in 0..n {
            let db = i % 2;
            let exp = (rng.u8(..) < 40).then(|| 4_000_000_000_000 + rng.i64(0..1000));
            let shard = rng.usize(0..2);
            a[shard].push((db, key(i), value(i, 0), exp));
            match rng.u8(0..10) {
                0 => {} // removed
                1 => b[shard].push((db, key(i), value(i, 1 + rng.u64(0..3)), exp)),
                2 => b[shard].push((db, key(i), value(i, 0), exp.map(|e| e + 1))),
                // Moved to the other shard, unchanged.
                3 => b[1 - shard].push((db, key(i), value(i, 0), exp)),
                _ => b[shard].push((db, key(i), value(i, 0), exp)),
            }
        }
        for i in n..n + rng.u64(0..40) {
            b[rng.usize(0..2)].push((i % 2, key(i), value(i, 0), None));
        }
        let mut used = |v: &[Entry]| 900_000 + 120 * v.len() as u64 + rng.u64(0..50_000);
        let mut files = |side: &str, v: &[Vec<Entry>]| -> Vec<PathBuf> {
            v.iter()
                .enumerate()
                .map(|(i, e)| write(dir.path(), &format!("{side}{i}.rdb"), e, used(e)))
                .collect()
        };
        let (pa, pb) = (files("a", &a), files("b", &b));
        let load =
            |p: &PathBuf| load_rdb(&std::fs::read(p).unwrap(), &LoadOptions::default()).unwrap();
        let (sa, sb): (Vec<Snapshot>, Vec<Snapshot>) =
            (pa.iter().map(load).collect(), pb.iter().map(load).collect());
        let opts = LoadOptions::default();
        let got = diff_files(&pa, &pb, &opts, OnDuplicate::Error, b":", None).unwrap();
        let want = reference(&sa, &sb, b":");
        assert_eq!(
            (&got.added, &got.removed, &got.changed, got.same),
            (&want.added, &want.removed, &want.changed, want.same),
            "seed {seed}"
        );
        assert_eq!(got.prefixes, want.prefixes, "seed {seed}");
        assert!(
            got.same > 0 && !got.changed.is_empty(),
            "seed {seed}: a diff with no content"
        );

        // A key in two files of one side: the same key, files and count as the union's check.
        let dup = write(dir.path(), "dup.rdb", &b[0][..b[0].len().min(3)], 1_000_000);
        let new = vec![pb[0].clone(), dup.clone()];
        let loaded: Vec<Snapshot> = new.iter().map(load).collect();
        match diff_files(&pa, &new, &opts, OnDuplicate::Error, b":", None) {
            Err(DiffError::Duplicate(1, d)) => {
                assert_eq!(
                    Some(d),
                    bitlens::rdb::find_duplicate(&loaded),
                    "seed {seed}"
                )
            }
            other => panic!("seed {seed}: {other:?}"),
        }
        // --on-duplicate first: the first file's entries, as the union keeps them.
        let first = diff_files(&pb[..1], &new, &opts, OnDuplicate::First, b":", None).unwrap();
        assert!(first.added.is_empty() && first.removed.is_empty() && first.changed.is_empty());

        // A key twice in one database of one file: the loader's error, at the same offset.
        let mut twice = a[0].clone();
        twice.push(a[0][rng.usize(0..a[0].len())].clone());
        let bad = write(dir.path(), "twice.rdb", &twice, 1_000_000);
        let want = bitlens::open::load_file(&bad, &opts).unwrap_err();
        match diff_files(&[bad], &pb, &opts, OnDuplicate::Error, b":", None) {
            Err(DiffError::File(0, got)) => assert_eq!(got.to_string(), want.to_string()),
            other => panic!("seed {seed}: {other:?}"),
        }
        // A truncated file: the loader's error.
        let whole = std::fs::read(&pa[1]).unwrap();
        let cut = dir.path().join("cut.rdb");
        std::fs::write(&cut, &whole[..whole.len() * 2 / 3]).unwrap();
        let want = bitlens::open::load_file(&cut, &opts).unwrap_err();
        match diff_files(&pa[..1], &[cut], &opts, OnDuplicate::Error, b":", None) {
            Err(DiffError::File(1, got)) => assert_eq!(got.to_string(), want.to_string()),
            other => panic!("seed {seed}: {other:?}"),
        }
    }

    /// Two streams with the same entries and group names differ when a group's pending
    /// entries or consumers do (an XACK), and not when nothing does.
    #[test]
    fn stream_group_state_is_compared() {
        use bitlens::stream::{Consumer, Group, PendingEntry, Stream, StreamId};
        let id = |seq| StreamId { ms: 1, seq };
        let stream = |pending: &[u64]| {
            let mut s = Stream {
                last_id: id(2),
                ..Default::default()
            };
            s.groups.push(Group {
                name: b"g".to_vec(),
                last_id: id(2),
                entries_read: Some(2),
                pending: pending
                    .iter()
                    .map(|&q| PendingEntry {
                        id: id(q),
                        delivery_time_ms: 1_700_000_000_000,
                        delivery_count: 1,
                    })
                    .collect(),
                consumers: vec![Consumer {
                    name: b"c1".to_vec(),
                    seen_time_ms: 1_700_000_000_000,
                    active_time_ms: None,
                    pending: pending.iter().map(|&q| id(q)).collect(),
                }],
            });
            Value::Stream(Box::new(s))
        };
        let before = fingerprint(&stream(&[1, 2]), None);
        assert_eq!(before, fingerprint(&stream(&[1, 2]), None));
        assert_ne!(before, fingerprint(&stream(&[]), None));
        assert_ne!(before, fingerprint(&stream(&[2]), None));
    }
}
