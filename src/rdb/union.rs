//! Several snapshots as one: the files every node of a Redis Cluster saves (each holds its
//! own slots, so no key is in two files), or any files whose keys should not overlap.
//!
//! The union holds every database of every file. A key found in more than one file is an
//! error naming it and both files ([`OnDuplicate::Error`], the default: shards never share a
//! key, so a shared one means files of different clusters or times were mixed), or the first
//! or last file's entry is kept. The header (format, aux fields) is the first file's: the
//! replies follow its writer, as a cluster's nodes run one version.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use super::bulk::{BulkLoad, Repeat};
use super::{ErrorDetail, Header, RdbError, Record, Snapshot};
use crate::keyspace::{InsertError, Keyspace, Rejected, Value};

/// What [`union`] does with a key found in more than one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnDuplicate {
    /// Refuse the union ([`DuplicateKey`]).
    #[default]
    Error,
    /// Keep the entry of the first file (in the order given) that holds the key.
    First,
    /// Keep the entry of the last file that holds the key.
    Last,
}

/// A key held by two files of a [`union`] under [`OnDuplicate::Error`]: the smallest such
/// (database, key) pair, so that the report does not depend on hash order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateKey {
    /// The database number.
    pub db: u64,
    /// The key bytes.
    pub key: Vec<u8>,
    /// Index (in the order given) of the first file holding it.
    pub first: usize,
    /// Index of the second file holding it.
    pub second: usize,
    /// How many keys (counted per later file holding them) are duplicated in all.
    pub count: u64,
}

impl DuplicateKey {
    /// `key K of database D is in both A and B`, plus ` (N copies of keys repeat an earlier
    /// file's)` when more than one: the words every front end gives it, the files named by
    /// `name(index)` and the key escaped as redis-cli quotes it ([`crate::escape::display`]).
    pub fn describe(&self, name: impl Fn(usize) -> String) -> String {
        format!(
            "key {} of database {} is in both {} and {}{}",
            crate::escape::display(&self.key),
            self.db,
            name(self.first),
            name(self.second),
            match self.count {
                1 => String::new(),
                n => format!(" ({n} copies of keys repeat an earlier file's)"),
            }
        )
    }
}

/// The key [`union`] refuses under [`OnDuplicate::Error`]: the smallest (database, key) pair
/// held by two of `snaps`, with the first two files holding it and the count of entries
/// (per later file) whose key an earlier file holds; `None` when no key repeats.
pub fn find_duplicate(snaps: &[Snapshot]) -> Option<DuplicateKey> {
    let mut worst: Option<DuplicateKey> = None;
    let mut count = 0u64;
    for (j, later) in snaps.iter().enumerate().skip(1) {
        for (&db, ks) in &later.databases {
            for (key, _) in ks.iter_all() {
                let Some(i) = snaps[..j].iter().position(|s| {
                    s.databases
                        .get(&db)
                        .is_some_and(|e| e.entry_any(key).is_some())
                }) else {
                    continue;
                };
                count += 1;
                if worst
                    .as_ref()
                    .is_none_or(|w| (db, key) < (w.db, w.key.as_slice()))
                {
                    worst = Some(DuplicateKey {
                        db,
                        key: key.to_vec(),
                        first: i,
                        second: j,
                        count: 0,
                    });
                }
            }
        }
    }
    worst.map(|w| DuplicateKey { count, ..w })
}

/// The union of `snaps`, in the order given (see the module docs): the first file's keyspaces
/// are kept, every later file's entries moved into them ([`UnionBuilder::add_snapshot`]).
/// Peak memory is the sum of the files' keyspaces plus one table's growth.
pub fn union(snaps: Vec<Snapshot>, on: OnDuplicate) -> Result<Snapshot, DuplicateKey> {
    let mut b = UnionBuilder::new(on);
    for snap in snaps {
        b.add_snapshot(snap);
    }
    b.finish()
}

/// The union of several files built as their records are read, file after file: one keyspace
/// per database, each key hashed and inserted once (no per-file keyspace to merge), with
/// [`union`]'s rule for a key in two files. A key repeated within one file is refused as
/// corrupt at its second record, as a one-file load refuses it.
///
/// ```
/// use bitlens::rdb::{visit_rdb, LoadOptions, OnDuplicate, UnionBuilder};
/// let empty = b"REDIS0011\xff\0\0\0\0\0\0\0\0";
/// let mut b = UnionBuilder::new(OnDuplicate::Error);
/// for file in [&empty[..], &empty[..]] {
///     b.start_file();
///     let visited = visit_rdb(file, &LoadOptions::default(), |r| b.add(r));
///     b.finish_file(visited)?;
/// }
/// assert!(b.finish().unwrap().databases.is_empty());
/// # Ok::<(), bitlens::rdb::RdbError>(())
/// ```
#[derive(Debug, Default)]
pub struct UnionBuilder {
    on: OnDuplicate,
    databases: BTreeMap<u64, Keyspace>,
    /// The first file's header fields (format, aux) and every file's slot records.
    header: Option<Header>,
    slot_infos: u64,
    /// Per file (in the order given), per database: its keyspace's slot count when the file
    /// began, so that a slot number names the file that inserted it (no key is removed while
    /// building).
    starts: Vec<BTreeMap<u64, usize>>,
    /// The databases of the current file whose size hint was taken.
    sized: BTreeSet<u64>,
    /// Keys of the current file met in an earlier file: a second meeting is a key repeated
    /// within the current file.
    repeated: HashSet<(u64, Vec<u8>)>,
    /// Under [`OnDuplicate::Error`]: the smallest key held by two files, and how many.
    duplicate: Option<DuplicateKey>,
    count: u64,
    /// Under [`OnDuplicate::Error`], keys are indexed a batch at a time (no repeat is kept).
    bulk: BulkLoad,
    /// The room [`UnionBuilder::reserve`] asked for, per database (a few databases: a list).
    reserved: Vec<(u64, u64)>,
}

impl UnionBuilder {
    /// An empty union deciding a key in two files by `on`.
    pub fn new(on: OnDuplicate) -> Self {
        UnionBuilder {
            on,
            ..Default::default()
        }
    }

    /// Room for `keys` more keys in database `db` before its keyspace grows (call once per
    /// file with its RESIZEDB count, [`super::peek_db_size`]: the room is their sum): without
    /// it the keyspace grows at each file, and each growth moves every key read so far.
    /// (Call before the first file; the keyspace is made with that room when its first key
    /// comes.)
    pub fn reserve(&mut self, db: u64, keys: u64) {
        match self.reserved.iter_mut().find(|(d, _)| *d == db) {
            Some((_, n)) => *n = n.saturating_add(keys),
            None => self.reserved.push((db, keys)),
        }
    }

    /// Keys held so far, over every database (those of a batch not yet indexed included).
    pub fn keys(&self) -> usize {
        self.databases.values().map(|ks| ks.slot_count()).sum()
    }

    /// Begins the next file (call before its first record).
    pub fn start_file(&mut self) {
        let starts = self
            .databases
            .iter()
            .map(|(&db, ks)| (db, ks.slot_count()))
            .collect();
        self.starts.push(starts);
        self.sized.clear();
        self.repeated.clear();
    }

    /// Ends the current file with what reading it returned: its header (the first file's
    /// gives the union's format and aux fields; slot records add up), or the reader's error.
    /// A key repeated within the file before the reader's error, or before its end, is the
    /// error instead, as a one-file load meets it first.
    pub fn finish_file(&mut self, visited: Result<Header, RdbError>) -> Result<(), RdbError> {
        self.settle()?;
        let header = visited?;
        self.slot_infos += header.slot_infos;
        if self.header.is_none() {
            self.header = Some(header);
        }
        Ok(())
    }

    /// Adds one record of the current file (a visitor of [`super::visit_rdb`] and the chunked
    /// readers). Errors: a key repeated within the file ([`super::RdbErrorKind::Corrupt`] at its
    /// offset; under [`OnDuplicate::Error`] found a batch at a time, at the latest by
    /// [`UnionBuilder::finish_file`]), a database past `u32::MAX` keys
    /// ([`super::RdbErrorKind::Unsupported`]).
    pub fn add(&mut self, rec: Record<'_>) -> Result<(), RdbError> {
        let Some(value) = rec.value else {
            return Ok(());
        };
        let bulk = self.on == OnDuplicate::Error;
        if bulk {
            let repeats = self.bulk.before(&mut self.databases, rec.db);
            self.repeats(&repeats)?;
        }
        let hint = rec.db_size_hint.unwrap_or(0);
        if rec.lru_idle_s.is_some() || rec.lfu_freq.is_some() {
            self.databases.entry(rec.db).or_default().set_access(
                &rec.key,
                rec.lru_idle_s,
                rec.lfu_freq,
            );
        }
        let reserved = &self.reserved;
        let ks = self.databases.entry(rec.db).or_insert_with(|| {
            let room = reserved.iter().find(|(d, _)| *d == rec.db);
            Keyspace::with_capacity(room.map_or(hint, |&(_, n)| n))
        });
        if self.sized.insert(rec.db) && self.starts.len() > 1 {
            ks.reserve(hint as usize);
        }
        if bulk {
            return self
                .bulk
                .push(
                    &mut self.databases,
                    rec.db,
                    hint,
                    &rec.key,
                    value,
                    rec.expire_at_ms,
                    rec.offset,
                )
                .map_err(|_| RdbError::new(rec.offset, ErrorDetail::DatabaseFull { db: rec.db }));
        }
        self.insert(rec.db, &rec.key, value, rec.expire_at_ms)
            .map_err(|e| RdbError::new(rec.offset, e))
    }

    /// The keys of the current file found already held when a batch was indexed, in file
    /// order, under [`OnDuplicate::Error`]: each is recorded as [`UnionBuilder::insert`]
    /// records it, or is the error.
    fn repeats(&mut self, repeats: &[Repeat]) -> Result<(), RdbError> {
        for r in repeats {
            let key = self.databases[&r.db].key_at(r.slot).to_vec();
            self.repeat(r.db, &key, r.earlier, None)
                .map_err(|e| RdbError::new(r.offset, e).with_key(&key))?;
        }
        Ok(())
    }

    /// Indexes the current file's last batch (under [`OnDuplicate::Error`]): a key repeated
    /// within the file is the error ([`UnionBuilder::add`]'s).
    fn settle(&mut self) -> Result<(), RdbError> {
        let repeats = self.bulk.settle(&mut self.databases);
        self.repeats(&repeats)
    }

    /// Adds a whole snapshot as the next file: the first one's keyspaces are taken as they
    /// are, a later one's entries moved in one by one.
    pub fn add_snapshot(&mut self, mut snap: Snapshot) {
        let header = Header {
            version: snap.version,
            format: snap.format,
            aux: std::mem::take(&mut snap.aux),
            slot_infos: snap.slot_infos,
            ..Default::default()
        };
        let first = self.starts.is_empty();
        self.start_file();
        if first {
            self.databases = std::mem::take(&mut snap.databases);
        } else {
            for (db, mut ks) in std::mem::take(&mut snap.databases) {
                let n = ks.slot_count();
                self.databases.entry(db).or_default().reserve(n);
                for (key, e) in ks.drain() {
                    // (A snapshot holds no key twice: nothing here is refused.)
                    let _ = self.insert(db, &key, e.value, e.expire_at_ms);
                }
            }
        }
        // (Nothing is batched: the entries were inserted one by one.)
        let _ = self.finish_file(Ok(header));
    }

    /// Inserts one entry of the current file under [`UnionBuilder::on`]; `Err(detail)` when
    /// the file itself is at fault.
    fn insert(
        &mut self,
        db: u64,
        key: &[u8],
        value: Value,
        expire_at_ms: Option<i64>,
    ) -> Result<(), ErrorDetail> {
        let ks = self.databases.entry(db).or_default();
        match ks.try_insert(key, value, expire_at_ms) {
            Ok(()) => return Ok(()),
            Err(Rejected {
                why: InsertError::Full,
                ..
            }) => return Err(ErrorDetail::DatabaseFull { db }),
            Err(Rejected { value, .. }) => {
                let earlier = ks.slot_of(key).unwrap_or(usize::MAX);
                self.repeat(db, key, earlier, Some((value, expire_at_ms)))?;
            }
        }
        Ok(())
    }

    /// Decides `key` of the current file, found already held at slot `earlier`: a key repeated
    /// within the file is the error; one held by an earlier file is decided by
    /// [`UnionBuilder::on`] (`entry`: the current file's value and expiry, for
    /// [`OnDuplicate::Last`]).
    fn repeat(
        &mut self,
        db: u64,
        key: &[u8],
        earlier: usize,
        entry: Option<(Value, Option<i64>)>,
    ) -> Result<(), ErrorDetail> {
        let file = self.starts.len() - 1;
        // The last file whose keys' slots begin at or before the earlier one (starts never
        // decrease; a database a file began without started at 0).
        let first = self
            .starts
            .iter()
            .rposition(|s| s.get(&db).copied().unwrap_or(0) <= earlier)
            .unwrap_or(file);
        if first == file || !self.repeated.insert((db, key.to_vec())) {
            return Err(ErrorDetail::DuplicateKey { db });
        }
        match self.on {
            OnDuplicate::First => {}
            OnDuplicate::Last => {
                if let (Some((value, expire_at_ms)), Some(ks)) =
                    (entry, self.databases.get_mut(&db))
                {
                    ks.insert(key, value, expire_at_ms);
                }
            }
            OnDuplicate::Error => {
                self.count += 1;
                if self
                    .duplicate
                    .as_ref()
                    .is_none_or(|w| (db, key) < (w.db, w.key.as_slice()))
                {
                    self.duplicate = Some(DuplicateKey {
                        db,
                        key: key.to_vec(),
                        first,
                        second: file,
                        count: 0,
                    });
                }
            }
        }
        Ok(())
    }

    /// The union; under [`OnDuplicate::Error`] the smallest key found in two files (with the
    /// count of repeats) instead.
    pub fn finish(self) -> Result<Snapshot, DuplicateKey> {
        if let Some(d) = self.duplicate {
            return Err(DuplicateKey {
                count: self.count,
                ..d
            });
        }
        let header = self.header.unwrap_or_default();
        Ok(Snapshot {
            version: header.version,
            format: header.format,
            aux: header.aux,
            databases: self.databases,
            slot_infos: self.slot_infos,
        })
    }
}

/// The union as the sink of a pushed load ([`super::RdbFeeder`]): each file is fed between
/// [`UnionBuilder::start_file`] and [`UnionBuilder::finish_file`] (with the feeder's header).
impl super::RecordSink for UnionBuilder {
    fn record(&mut self, rec: Record<'_>) -> Result<(), RdbError> {
        self.add(rec)
    }

    fn settle(&mut self) -> Result<(), RdbError> {
        UnionBuilder::settle(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keyspace::Value;
    use crate::string::RedisString;

    fn snap(keys: &[(u64, &str, &str)]) -> Snapshot {
        let mut s = Snapshot::default();
        for &(db, k, v) in keys {
            s.databases.entry(db).or_default().set(
                k.as_bytes(),
                Value::String(RedisString::from_bytes(v.as_bytes().to_vec())),
            );
        }
        s
    }

    fn get(s: &Snapshot, db: u64, k: &str) -> Option<Vec<u8>> {
        match s.databases.get(&db)?.get(k.as_bytes())? {
            Value::String(v) => Some(v.as_bytes().to_vec()),
            _ => None,
        }
    }

    /// A file of `keys` (database, key, value, expiry) as written, repeats included.
    fn file(keys: &[(u64, String, String, Option<i64>)]) -> Vec<u8> {
        let mut w = crate::rdb::RdbWriter::new(Vec::new(), 11).unwrap();
        w.aux(b"redis-ver", b"7.2.4").unwrap();
        let mut dbs: Vec<u64> = keys.iter().map(|k| k.0).collect();
        dbs.sort_unstable();
        dbs.dedup();
        for db in dbs {
            w.select_db(db).unwrap();
            let n = keys.iter().filter(|k| k.0 == db).count() as u64;
            w.resize_db(n, 0).unwrap();
            for (_, k, v, e) in keys.iter().filter(|k| k.0 == db) {
                w.write_string(k.as_bytes(), v.as_bytes(), *e).unwrap();
            }
        }
        w.finish().unwrap()
    }

    /// Every database's entries, sorted, in words.
    fn entries(s: &Snapshot) -> Vec<String> {
        let mut out: Vec<String> = s
            .databases
            .iter()
            .flat_map(|(db, ks)| {
                ks.iter_all()
                    .map(move |(k, e)| format!("{db} {k:?} {:?} {:?}", e.value, e.expire_at_ms))
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn the_builder_reads_files_into_the_union_of_their_snapshots() {
        use crate::rdb::{load_rdb, visit_rdb, LoadOptions};
        let seed = bitlens_testseed::seed();
        let mut rng = fastrand::Rng::with_seed(seed);
        let opts = LoadOptions::default();
        for round in 0..300 {
            // Keys from a small space, so that files share some and a file repeats one now
            // and then.
            let files: Vec<Vec<u8>> = (0..rng.usize(1..5))
                .map(|_| {
                    let mut keys: Vec<(u64, String, String, Option<i64>)> = Vec::new();
                    for _ in 0..rng.usize(0..12) {
                        let k = (rng.u64(0..2), format!("k{}", rng.u32(0..40)));
                        if keys.iter().any(|x| (x.0, &x.1) == (k.0, &k.1)) && rng.u8(..) > 20 {
                            continue;
                        }
                        let e = rng.bool().then(|| 1_900_000_000_000 + rng.i64(0..1000));
                        keys.push((k.0, k.1, format!("v{}", rng.u32(..)), e));
                    }
                    file(&keys)
                })
                .collect();
            for on in [OnDuplicate::Error, OnDuplicate::First, OnDuplicate::Last] {
                // Each file alone, then their union.
                let alone: Result<Vec<Snapshot>, (usize, String)> = files
                    .iter()
                    .enumerate()
                    .map(|(i, f)| load_rdb(f, &opts).map_err(|e| (i, e.to_string())))
                    .collect();
                let want = alone.map(|s| union(s, on).map(|u| entries(&u)));
                let mut b = UnionBuilder::new(on);
                let mut got = Ok(());
                for (i, f) in files.iter().enumerate() {
                    b.start_file();
                    let visited = visit_rdb(f, &opts, |r| b.add(r));
                    match b.finish_file(visited) {
                        Ok(()) => {}
                        Err(e) => {
                            got = Err((i, e.to_string()));
                            break;
                        }
                    }
                }
                let got = got.map(|()| b.finish().map(|u| entries(&u)));
                assert_eq!(got, want, "seed {seed}, round {round}, {on:?}");
            }
        }
    }

    #[test]
    fn shards_make_one_keyspace() {
        let u = union(
            vec![
                snap(&[(0, "a", "1"), (2, "x", "9")]),
                snap(&[(0, "b", "2")]),
                snap(&[(0, "c", "3"), (2, "y", "8")]),
            ],
            OnDuplicate::Error,
        )
        .unwrap();
        assert_eq!(u.databases[&0].len(), 3);
        assert_eq!(u.databases[&2].len(), 2);
        assert_eq!(get(&u, 0, "c").as_deref(), Some(&b"3"[..]));
        assert_eq!(get(&u, 2, "x").as_deref(), Some(&b"9"[..]));
    }

    #[test]
    fn duplicates_are_named_or_resolved() {
        let files = || {
            vec![
                snap(&[(0, "k", "first"), (0, "z", "1")]),
                snap(&[(0, "q", "1")]),
                snap(&[(0, "k", "last"), (0, "z", "3"), (1, "k", "other db")]),
            ]
        };
        let e = union(files(), OnDuplicate::Error).unwrap_err();
        assert_eq!(
            e,
            DuplicateKey {
                db: 0,
                key: b"k".to_vec(),
                first: 0,
                second: 2,
                count: 2
            }
        );
        let first = union(files(), OnDuplicate::First).unwrap();
        assert_eq!(get(&first, 0, "k").as_deref(), Some(&b"first"[..]));
        assert_eq!(get(&first, 0, "z").as_deref(), Some(&b"1"[..]));
        let last = union(files(), OnDuplicate::Last).unwrap();
        assert_eq!(get(&last, 0, "k").as_deref(), Some(&b"last"[..]));
        assert_eq!(get(&last, 1, "k").as_deref(), Some(&b"other db"[..]));
        assert_eq!(last.databases[&0].len(), 3);
    }
}
