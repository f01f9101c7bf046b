//! Loading keys into keyspaces in batches: each record's key and value are appended to its
//! database's keyspace as it is read, and the keyspace's index takes them a batch at a time
//! ([`Keyspace::index_pending`], in bucket order). A key inserted into a large table as it is
//! read costs two cache misses; in bucket order the table is walked in ascending order
//! (3,000,000 small keys: see bench/RESULTS.md).
//!
//! What a caller sees is the one-at-a-time load's: a key repeated in a database is found when
//! its batch is indexed, which happens before the next database's first record, before any
//! other error is passed on ([`BulkLoad::settle`] first), and at the end; the repeats come
//! back in file order with their records' offsets, so the first is the error a one-at-a-time
//! load gives.

use std::collections::BTreeMap;

use crate::keyspace::{Keyspace, Rejected, Value};

/// Records appended before their batch is indexed: 64 Ki keys hold 1.5 MiB of batch state
/// (offsets, hashes, sort keys), and at 3,000,000 keys in 4 Mi buckets put 16 inserts on each
/// 4 KiB page of the index's control bytes. (Unit tests use batches of 3, so that their small
/// files cross batch edges.)
const BATCH: usize = if cfg!(test) { 3 } else { 1 << 16 };

/// A key found twice while indexing a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Repeat {
    /// The database.
    pub db: u64,
    /// The later record's slot number in the keyspace (not indexed).
    pub slot: usize,
    /// The slot number of the record already indexed under the key.
    pub earlier: usize,
    /// The later record's offset in the file.
    pub offset: u64,
}

/// The batch being loaded: which database, from which slot on, and each record's offset.
#[derive(Debug, Default)]
pub(crate) struct BulkLoad {
    db: Option<u64>,
    from: usize,
    offsets: Vec<u64>,
    found: Vec<(usize, usize)>,
}

impl BulkLoad {
    /// Readies the batch for a record of database `db`: when the database changed or the
    /// batch is full, indexes it and returns the repeats found, in file order (they come
    /// before the record).
    pub fn before(&mut self, databases: &mut BTreeMap<u64, Keyspace>, db: u64) -> Vec<Repeat> {
        if self.db != Some(db) || self.offsets.len() >= BATCH {
            return self.settle(databases);
        }
        Vec::new()
    }

    /// Appends one record of database `db` (after [`BulkLoad::before`]; its keyspace made
    /// with room for `size_hint` keys when new). A full database hands the value back.
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        databases: &mut BTreeMap<u64, Keyspace>,
        db: u64,
        size_hint: u64,
        key: &[u8],
        value: Value,
        expire_at_ms: Option<i64>,
        offset: u64,
    ) -> Result<(), Rejected> {
        let ks = databases
            .entry(db)
            .or_insert_with(|| Keyspace::with_capacity(size_hint));
        if self.db != Some(db) {
            debug_assert!(self.db.is_none(), "BulkLoad::before was not called");
            self.db = Some(db);
            self.from = ks.slot_count();
        }
        ks.push_unindexed(key, value, expire_at_ms)?;
        self.offsets.push(offset);
        Ok(())
    }

    /// Indexes the batch; returns the repeats found in it, in file order.
    pub fn settle(&mut self, databases: &mut BTreeMap<u64, Keyspace>) -> Vec<Repeat> {
        let Some(db) = self.db.take() else {
            return Vec::new();
        };
        let mut found = std::mem::take(&mut self.found);
        if let Some(ks) = databases.get_mut(&db) {
            ks.index_pending(self.from, &mut found);
        }
        // In file order (a repeat is rare: the sort off the hot paths, src/sort.rs).
        crate::sort::sort_by_key(&mut found, |&(slot, _)| slot);
        let repeats = found
            .drain(..)
            .map(|(slot, earlier)| Repeat {
                db,
                slot,
                earlier,
                offset: self.offsets[slot - self.from],
            })
            .collect();
        self.found = found;
        self.offsets.clear();
        repeats
    }
}
