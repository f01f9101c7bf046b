//! Keys held by more than one of several files read as one keyspace (a cluster's shards, as
//! [`bitlens::rdb::union`] builds it), found in bounded memory from passes over each file's
//! key names, without holding the keys of all files.
//!
//! A key's hash slot (CRC16, [`crate::report::key_slot`]) is a function of the key, so:
//! 1. one pass per file collects the [`SlotSet`] its keys use (2 KiB per file);
//! 2. only keys of slots used by two or more files can repeat: a second pass hashes (database,
//!    key) of those keys, and a hash seen in two files is a candidate;
//! 3. a third pass collects the exact (database, key) pairs of the candidate hashes, with the
//!    files holding them.
//!
//! A cluster's shards share no slot and stop after pass 1. [`decide`] then says which file's
//! entry counts, as [`bitlens::rdb::OnDuplicate`] does for the union, and [`visit_files`] walks
//! the files' records that count, file by file, in that bounded memory.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};

use crate::report::key_slot;
pub use crate::report::SlotSet;
use bitlens::open::{per_file, visit_file, OpenError, VisitError};
use bitlens::rdb::{DuplicateKey, OnDuplicate};
use bitlens::rdb::{LoadOptions, RdbError, Record};

/// (database, key) pairs, each with the indices of the files holding it (ascending).
pub type Holders = HashMap<(u64, Vec<u8>), Vec<usize>>;

/// The (database, key) pairs held by two or more of the files whose slot sets are `slots`
/// (passes 2 and 3 of the module docs). `each(i, f)` calls `f(db, key)` for every key of
/// file `i` in file order; its error stops the search.
pub fn duplicates<E>(
    slots: &[SlotSet],
    mut each: impl FnMut(usize, &mut dyn FnMut(u64, &[u8])) -> Result<(), E>,
) -> Result<Holders, E> {
    let shared = SlotSet::shared(slots);
    if shared.is_empty() {
        return Ok(HashMap::new());
    }
    // A fixed hasher (the same hash in every run), over the keys of shared slots.
    let hasher = BuildHasherDefault::<DefaultHasher>::default();
    let hash = |db: u64, key: &[u8]| hasher.hash_one((db, key));
    let mut first_file: HashMap<u64, usize> = HashMap::new();
    let mut candidates: HashSet<u64> = HashSet::new();
    for i in 0..slots.len() {
        each(i, &mut |db, key| {
            if shared.contains(key_slot(key)) {
                let h = hash(db, key);
                match first_file.get(&h) {
                    Some(&f) if f != i => {
                        candidates.insert(h);
                    }
                    Some(_) => {}
                    None => {
                        first_file.insert(h, i);
                    }
                }
            }
        })?;
    }
    drop(first_file);
    let mut holders = Holders::new();
    if candidates.is_empty() {
        return Ok(holders);
    }
    for i in 0..slots.len() {
        each(i, &mut |db, key| {
            if candidates.contains(&hash(db, key)) {
                // A key repeated inside one file is that file's matter (as its own load
                // decides), not a second file holding it.
                let files = holders.entry((db, key.to_vec())).or_default();
                if files.last() != Some(&i) {
                    files.push(i);
                }
            }
        })?;
    }
    holders.retain(|_, files| files.len() > 1);
    Ok(holders)
}

/// Entries of some files that another file's entry of the same key replaces: per file index,
/// per database, the keys left out. Empty for one file and for a cluster's shards.
#[derive(Debug, Default, Clone)]
pub struct Shadowed(pub Vec<HashMap<u64, HashSet<Vec<u8>>>>);

impl Shadowed {
    /// Whether file `file`'s entry of `key` in database `db` is left out.
    pub fn contains(&self, file: usize, db: u64, key: &[u8]) -> bool {
        self.of(file)
            .is_some_and(|m| m.get(&db).is_some_and(|s| s.contains(key)))
    }

    /// File `file`'s keys left out, per database; `None` when it has none.
    pub fn of(&self, file: usize) -> Option<&HashMap<u64, HashSet<Vec<u8>>>> {
        self.0.get(file).filter(|m| !m.is_empty())
    }

    /// How many entries of file `file` are left out.
    pub fn count(&self, file: usize) -> u64 {
        self.of(file)
            .map_or(0, |m| m.values().map(|s| s.len() as u64).sum())
    }
}

/// Which entries of `files` files count, given the `holders` of repeated keys: under
/// [`OnDuplicate::Error`] the smallest repeated (database, key) pair is the error (with the
/// first two files holding it and the count of repeats, as [`bitlens::rdb::union`] reports
/// it); under `First`/`Last` the other files' entries are [`Shadowed`].
pub fn decide(holders: Holders, files: usize, on: OnDuplicate) -> Result<Shadowed, DuplicateKey> {
    let mut shadowed = Shadowed(vec![HashMap::new(); files]);
    if on == OnDuplicate::Error {
        if let Some(((db, key), holding)) = holders.iter().min_by(|a, b| a.0.cmp(b.0)) {
            return Err(DuplicateKey {
                db: *db,
                key: key.clone(),
                first: holding[0],
                second: holding[1],
                count: holders.values().map(|f| f.len() as u64 - 1).sum(),
            });
        }
    }
    for ((db, key), holding) in holders {
        let keep = if on == OnDuplicate::First {
            holding[0]
        } else {
            holding[holding.len() - 1]
        };
        for f in holding.into_iter().filter(|&f| f != keep) {
            shadowed.0[f].entry(db).or_default().insert(key.clone());
        }
    }
    Ok(shadowed)
}

/// [`visit_file`] over the files at `paths` as one keyspace (the union [`bitlens::open::LoadSpec::open`]
/// builds, `on` deciding a key found in two files), in bounded memory: `f` sees the records
/// that count, file by file in the order given, each file in file order; an entry another
/// file's replaces is skipped.
///
/// Repeated keys are found first, from passes over key names only
/// ([`LoadOptions::skip_values`], (this module)): one per file, at most [`bitlens::open::load_threads`]
/// files at once, and two more only when files share hash slots. So a key in two files
/// under [`OnDuplicate::Error`], or a file that cannot be framed, is reported before `f`
/// sees any record; a corrupt value is reported when its file's turn comes.
pub fn visit_files<F>(
    paths: &[std::path::PathBuf],
    opts: &LoadOptions,
    on: OnDuplicate,
    mut f: F,
) -> Result<(), OpenError>
where
    F: for<'r> FnMut(Record<'r>) -> Result<(), RdbError>,
{
    let names = LoadOptions {
        skip_values: true,
        ..opts.clone()
    };
    let visit_err = |i: usize, e: VisitError| OpenError::File(i, e.into());
    let keys = |i: usize, each: &mut dyn FnMut(u64, &[u8])| {
        visit_file(&paths[i], &names, &mut |_, _| Ok(()), |r| {
            each(r.db, &r.key);
            Ok(())
        })
        .map(|_| ())
        .map_err(|e| {
            // The error a one-file read gives: the first in file order with the values
            // decoded (a names-only pass meets a damaged value only later, at the checksum).
            let full = visit_file(&paths[i], opts, &mut |_, _| Ok(()), |_| Ok(()));
            visit_err(i, full.err().unwrap_or(e))
        })
    };
    let slots = per_file(paths, |i, _| {
        let mut set = SlotSet::default();
        keys(i, &mut |_, k| set.insert_key(k)).map(|_| set)
    })
    .map_err(|(_, e)| e)?;
    let holders = duplicates(&slots, keys)?;
    let shadowed = decide(holders, paths.len(), on).map_err(OpenError::Duplicate)?;
    for (i, p) in paths.iter().enumerate() {
        visit_file(p, opts, &mut |_, _| Ok(()), |r| {
            if shadowed.contains(i, r.db, &r.key) {
                return Ok(());
            }
            f(r)
        })
        .map_err(|e| visit_err(i, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each file's slot set; files as lists of (db, key).
    fn slots_of(files: &[&[(u64, &str)]]) -> Vec<SlotSet> {
        files
            .iter()
            .map(|f| {
                let mut s = SlotSet::default();
                f.iter().for_each(|(_, k)| s.insert_key(k.as_bytes()));
                s
            })
            .collect()
    }

    fn run(files: &[&[(u64, &str)]], on: OnDuplicate) -> Result<Shadowed, DuplicateKey> {
        let slots = slots_of(files);
        let holders = duplicates(&slots, |i, f| {
            files[i].iter().for_each(|(db, k)| f(*db, k.as_bytes()));
            Ok::<_, ()>(())
        })
        .unwrap();
        decide(holders, files.len(), on)
    }

    #[test]
    fn repeated_keys_are_found_per_database_and_decided() {
        let a: &[(u64, &str)] = &[(0, "a"), (0, "b"), (1, "c")];
        let b: &[(u64, &str)] = &[(0, "b"), (0, "c"), (1, "x")];
        let c: &[(u64, &str)] = &[(0, "b"), (1, "c")];
        let e = run(&[a, b, c], OnDuplicate::Error).unwrap_err();
        // The smallest pair (0, "b"), first held by files 0 and 1; 2 + 1 repeats.
        assert_eq!(
            (e.db, e.key.as_slice(), e.first, e.second),
            (0, &b"b"[..], 0, 1)
        );
        assert_eq!(e.count, 3);
        let first = run(&[a, b, c], OnDuplicate::First).unwrap();
        assert!(!first.contains(0, 0, b"b") && first.contains(1, 0, b"b"));
        assert!(first.contains(2, 0, b"b") && first.contains(2, 1, b"c"));
        assert!(
            !first.contains(1, 0, b"c"),
            "(0, c) and (1, c) are different keys"
        );
        assert_eq!([0, 1, 2].map(|i| first.count(i)), [0, 1, 2]);
        let last = run(&[a, b, c], OnDuplicate::Last).unwrap();
        assert_eq!([0, 1, 2].map(|i| last.count(i)), [2, 1, 0]);
        assert!(last.contains(0, 1, b"c") && !last.contains(2, 1, b"c"));
    }

    #[test]
    fn a_key_repeated_inside_one_file_is_not_held_by_two() {
        let a: &[(u64, &str)] = &[(0, "same"), (0, "same"), (0, "x")];
        let b: &[(u64, &str)] = &[(0, "same")];
        let e = run(&[a, b], OnDuplicate::Error).unwrap_err();
        assert_eq!((e.first, e.second, e.count), (0, 1, 1));
        assert!(run(&[a], OnDuplicate::Error).unwrap().of(0).is_none());
        assert!(run(&[a, &[(0, "y")]], OnDuplicate::Error).is_ok());
    }

    #[test]
    fn shards_with_their_own_slots_have_no_duplicates() {
        // Hash tags put each file's keys in one slot of its own.
        let a: &[(u64, &str)] = &[(0, "{a}1"), (0, "{a}2")];
        let b: &[(u64, &str)] = &[(0, "{b}1"), (0, "{b}2")];
        let mut passes = 0;
        let slots = slots_of(&[a, b]);
        let holders = duplicates(&slots, |_, _| {
            passes += 1;
            Ok::<_, ()>(())
        })
        .unwrap();
        assert!(holders.is_empty());
        assert_eq!(passes, 0, "no shared slot: no pass over the keys");
        let mut s = SlotSet::default();
        s.insert(5);
        s.insert(16383);
        assert_eq!((s.first(), s.last(), s.len()), (Some(5), Some(16383), 2));
    }
}
