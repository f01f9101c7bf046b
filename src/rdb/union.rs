//! Several snapshots as one: the files every node of a Redis Cluster saves (each holds its
//! own slots, so no key is in two files), or any files whose keys should not overlap.
//!
//! The union holds every database of every file. A key found in more than one file is an
//! error naming it and both files ([`OnDuplicate::Error`], the default: shards never share a
//! key, so a shared one means files of different clusters or times were mixed), or the first
//! or last file's entry is kept. The header (format, aux fields) is the first file's: the
//! replies follow its writer, as a cluster's nodes run one version.

use super::Snapshot;

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

/// The union of `snaps`, in the order given (see the module docs). Entries are moved, not
/// copied: peak memory is the sum of the files' keyspaces plus one table's growth.
pub fn union(mut snaps: Vec<Snapshot>, on: OnDuplicate) -> Result<Snapshot, DuplicateKey> {
    if on == OnDuplicate::Error {
        if let Some(d) = find_duplicate(&snaps) {
            return Err(d);
        }
    }
    if snaps.is_empty() {
        return Ok(Snapshot::default());
    }
    let rest: Vec<Snapshot> = snaps.drain(1..).collect();
    let mut out = snaps.pop().expect("one snapshot");
    for db in rest.iter().flat_map(|s| s.databases.keys()) {
        let more: usize = rest
            .iter()
            .filter_map(|s| s.databases.get(db))
            .map(|k| k.iter_all().count())
            .sum();
        out.databases.entry(*db).or_default().reserve(more);
    }
    for mut snap in rest {
        out.slot_infos += snap.slot_infos;
        for (db, mut ks) in std::mem::take(&mut snap.databases) {
            let target = out.databases.entry(db).or_default();
            for (key, e) in ks.drain() {
                match on {
                    OnDuplicate::Last => target.insert(key, e.value, e.expire_at_ms),
                    OnDuplicate::First | OnDuplicate::Error => {
                        let _ = target.insert_new(&key, e.value, e.expire_at_ms);
                    }
                }
            }
        }
    }
    Ok(out)
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
