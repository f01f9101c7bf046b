//! Sets: binary-string members, kept in the encoding the snapshot stored them in.
//!
//! - [`SetRef::Intset`]: an intset blob (sorted little-endian integers of width 2, 4 or 8), as
//!   Redis keeps all-integer small sets; members come out ascending, as Redis replies.
//! - [`SetRef::Listpack`]: a listpack blob (Redis 7.2+ small sets); members in insertion order,
//!   as Redis replies.
//! - [`SetRef::Table`]: a hashtable-encoded set, as a [`StrTable`]: one arena of member bytes
//!   plus end offsets, in file order, and an open-addressing index of record numbers. Redis'
//!   own reply order for these comes from its randomly seeded hash table and cannot be
//!   reproduced: bitlens replies in file order.
//!
//! Blobs are validated when the set is built ([`Set::from_intset`], [`Set::from_listpack`]),
//! so decoding them on demand cannot fail afterwards.
//!
//! A [`Set`] is one thin pointer (see [`crate::thin`]), so that a key's value stays 16 bytes;
//! [`Set::repr`] borrows what it holds.

use crate::encoded::{self, thin_blob, BlobError, Item};
use crate::thin::{Tagged, TaggedRef};

/// A Redis set: one pointer to its blob or its table (see [`SetRef`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Set(Tagged<StrTable>);

/// What a [`Set`] holds, borrowed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SetRef<'a> {
    /// An intset blob (RDB_TYPE_SET_INTSET), validated.
    Intset(&'a [u8]),
    /// A listpack blob of members (RDB_TYPE_SET_LISTPACK), validated.
    Listpack(&'a [u8]),
    /// A hashtable-encoded set (RDB_TYPE_SET), members in file order.
    Table(&'a StrTable),
    /// A hashtable-encoded set (RDB_TYPE_SET) of at most [`SCAN_MAX`] members, kept as one
    /// listpack of its members (all as strings) in file order: a snapshot's many small
    /// hashtable sets cost one allocation each, not four (issue 31). OBJECT ENCODING still
    /// says `hashtable`.
    SmallTable(&'a [u8]),
}

/// The blob kinds of a [`Set`]'s pointer.
const INTSET: u8 = 0;
const LISTPACK: u8 = 1;
const SMALL_TABLE: u8 = 2;

/// Two sets are equal when they hold the same encoding and the same bytes or records.
impl Set {
    /// A set from an intset blob; errors when the blob is malformed.
    pub fn from_intset(blob: impl AsRef<[u8]>) -> Result<Set, BlobError> {
        let blob = blob.as_ref();
        encoded::intset(blob)?;
        Ok(Set(Tagged::blob(INTSET, thin_blob(blob)?)))
    }

    /// A set from a listpack blob of members; errors when the blob is malformed.
    pub fn from_listpack(blob: impl AsRef<[u8]>) -> Result<Set, BlobError> {
        let blob = blob.as_ref();
        encoded::listpack(blob)?;
        Ok(Set(Tagged::blob(LISTPACK, thin_blob(blob)?)))
    }

    /// A hashtable-encoded set holding `table`'s records (of width 1): one listpack blob
    /// when they are at most [`SCAN_MAX`] (see [`SetRef::SmallTable`]).
    pub fn from_table(table: StrTable) -> Set {
        if table.width == 1 && table.len() <= SCAN_MAX {
            let items: Vec<Item<'_>> = (0..table.len())
                .map(|i| Item::Str(table.get(i, 0)))
                .collect();
            if let Some(blob) = crate::thin::Blob::new(&encoded::blobs::listpack(&items)) {
                return Set(Tagged::blob(SMALL_TABLE, blob));
            }
        }
        Set(Tagged::boxed(table))
    }

    /// What the set holds.
    pub fn repr(&self) -> SetRef<'_> {
        match self.0.get() {
            TaggedRef::Blob(INTSET, b) => SetRef::Intset(b),
            TaggedRef::Blob(LISTPACK, b) => SetRef::Listpack(b),
            TaggedRef::Blob(_, b) => SetRef::SmallTable(b),
            TaggedRef::Boxed(t) => SetRef::Table(t),
        }
    }

    /// A hashtable set from members (a repeated member is kept once).
    pub fn from_members<I, M>(members: I) -> Set
    where
        I: IntoIterator<Item = M>,
        M: AsRef<[u8]>,
    {
        let mut t = StrTable::new(1);
        for m in members {
            t.insert(&[m.as_ref()]);
        }
        t.shrink();
        Set::from_table(t)
    }

    /// Number of members (SCARD). Not inlined into its many callers (the wasm module's size).
    #[inline(never)]
    pub fn len(&self) -> usize {
        match self.repr() {
            // Validated blobs: the intset header's count is exact; a listpack's is unless it
            // is 65535 ("unknown").
            SetRef::Intset(b) => b
                .get(4..8)
                .map_or(0, |c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize),
            SetRef::Listpack(b) | SetRef::SmallTable(b) => {
                match b.get(4..6).map(|c| u16::from_le_bytes([c[0], c[1]])) {
                    Some(n) if n != u16::MAX => n as usize,
                    _ => encoded::listpack(b).map_or(0, |v| v.len()),
                }
            }
            SetRef::Table(t) => t.len(),
        }
    }

    /// True when the set has no members.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when `member` is in the set (SISMEMBER). An intset holds only integers in Redis'
    /// canonical decimal form, so other text never matches.
    pub fn contains(&self, member: &[u8]) -> bool {
        match self.repr() {
            SetRef::Intset(b) => {
                let Some(v) = crate::num::parse_i64(member) else {
                    return false;
                };
                encoded::intset(b).is_ok_and(|s| s.binary_search(&v).is_ok())
            }
            SetRef::Listpack(b) => {
                encoded::listpack(b).is_ok_and(|items| items.iter().any(|it| item_eq(it, member)))
            }
            SetRef::SmallTable(b) => encoded::listpack(b).is_ok_and(|items| {
                items
                    .iter()
                    .any(|it| matches!(it, Item::Str(m) if *m == member))
            }),
            SetRef::Table(t) => t.find(member).is_some(),
        }
    }

    /// The members in reply order (see the module docs).
    pub fn members(&self) -> Vec<Vec<u8>> {
        let mut out = Vec::with_capacity(self.len());
        self.for_each_item(|m| out.push(m.to_vec()));
        out
    }

    /// Calls `f` with each member's length in bytes as a reply gives it (integers as decimal
    /// text), in storage order; no member is copied (memory estimates price members by
    /// length).
    pub fn for_each_member_len(&self, mut f: impl FnMut(usize)) {
        self.for_each_item(|m| f(m.text_len()));
    }

    /// The length in bytes of the longest member as a reply gives it (integers as decimal
    /// text), 0 when empty; no member is copied.
    pub fn max_member_len(&self) -> usize {
        let mut most = 0;
        self.for_each_item(|m| most = most.max(m.text_len()));
        most
    }

    /// Calls `f` with each member in storage order, read in place (a blob that does not
    /// decode yields nothing, as it was validated at load).
    fn for_each_item(&self, mut f: impl FnMut(Item<'_>)) {
        match self.repr() {
            SetRef::Intset(b) => encoded::intset(b)
                .unwrap_or_default()
                .into_iter()
                .for_each(|v| f(Item::Int(v))),
            SetRef::Listpack(b) | SetRef::SmallTable(b) => encoded::listpack(b)
                .unwrap_or_default()
                .into_iter()
                .for_each(f),
            SetRef::Table(t) => (0..t.len()).for_each(|i| f(Item::Str(t.get(i, 0)))),
        }
    }

    /// The encoding OBJECT ENCODING reports for this set as loaded.
    pub fn encoding(&self) -> &'static str {
        match self.repr() {
            SetRef::Intset(_) => "intset",
            SetRef::Listpack(_) => "listpack",
            SetRef::Table(_) | SetRef::SmallTable(_) => "hashtable",
        }
    }

    /// Heap bytes held by the value (for memory accounting).
    pub fn heap_bytes(&self) -> usize {
        match self.repr() {
            SetRef::Intset(b) | SetRef::Listpack(b) | SetRef::SmallTable(b) => b.len(),
            SetRef::Table(t) => t.heap_bytes(),
        }
    }
}

/// True when a listpack/ziplist element equals `s` as Redis compares them (an integer
/// element equals its decimal text).
pub(crate) fn item_eq(it: &Item<'_>, s: &[u8]) -> bool {
    match it {
        Item::Str(b) => *b == s,
        Item::Int(v) => crate::num::parse_i64(s) == Some(*v),
    }
}

/// A table of records of `width` byte strings each (1 for set members, 2 for hash field and
/// value), kept in insertion order in one arena, with a hash index on each record's first
/// string. Memory: the bytes, one `u32` end offset per string (`u64` past 4 GiB of bytes),
/// and a `u32` slot per record at most half full. A finished table of at most
/// [`SCAN_MAX`] records keeps no index (see [`StrTable::shrink`]) and is searched in order.
#[derive(Debug, Clone)]
pub struct StrTable {
    width: usize,
    bytes: Vec<u8>,
    ends: Ends,
    /// Open addressing, linear probing: record number, or `EMPTY`. Length a power of two.
    slots: Vec<u32>,
}

/// Two tables are equal when they hold the same records in the same order.
impl PartialEq for StrTable {
    fn eq(&self, other: &Self) -> bool {
        self.width == other.width
            && self.len() == other.len()
            && (0..self.len()).all(|i| (0..self.width).all(|j| self.get(i, j) == other.get(i, j)))
    }
}

#[derive(Debug, Clone)]
enum Ends {
    U32(Vec<u32>),
    U64(Vec<u64>),
}

impl Ends {
    fn len(&self) -> usize {
        match self {
            Ends::U32(v) => v.len(),
            Ends::U64(v) => v.len(),
        }
    }
    fn get(&self, i: usize) -> usize {
        match self {
            Ends::U32(v) => v[i] as usize,
            Ends::U64(v) => v[i] as usize,
        }
    }
    fn push(&mut self, end: usize) {
        if let Ends::U32(v) = self {
            if end > u32::MAX as usize {
                *self = Ends::U64(v.iter().map(|&e| e as u64).collect());
            }
        }
        match self {
            Ends::U32(v) => v.push(end as u32),
            Ends::U64(v) => v.push(end as u64),
        }
    }
    fn truncate(&mut self, n: usize) {
        match self {
            Ends::U32(v) => v.truncate(n),
            Ends::U64(v) => v.truncate(n),
        }
    }
    fn shrink(&mut self) {
        match self {
            Ends::U32(v) => v.shrink_to_fit(),
            Ends::U64(v) => v.shrink_to_fit(),
        }
    }
    fn heap_bytes(&self) -> usize {
        match self {
            Ends::U32(v) => v.capacity() * 4,
            Ends::U64(v) => v.capacity() * 8,
        }
    }
}

const EMPTY: u32 = u32::MAX;

/// Finished tables of at most this many records drop their index: comparing a few records is
/// as fast as hashing the key, and a snapshot's many small sets and hashes save the index's
/// allocation (issue 31).
pub const SCAN_MAX: usize = 8;

/// A fast 64-bit hash of bytes (multiply-rotate over 8-byte words, then a final mix).
fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h = bytes.len() as u64 ^ 0x2545_f491_4f6c_dd1d;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        h = (h.rotate_left(23) ^ w).wrapping_mul(K);
    }
    let mut tail = [0u8; 8];
    let rest = chunks.remainder();
    tail[..rest.len()].copy_from_slice(rest);
    h = (h.rotate_left(23) ^ u64::from_le_bytes(tail)).wrapping_mul(K);
    h ^= h >> 31;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ (h >> 29)
}

impl StrTable {
    /// An empty table of records of `width` strings (width ≥ 1).
    pub fn new(width: usize) -> StrTable {
        StrTable {
            width: width.max(1),
            bytes: Vec::new(),
            ends: Ends::U32(Vec::new()),
            slots: Vec::new(),
        }
    }

    /// An empty table with room for `records` records of `bytes` bytes in all (hints only;
    /// callers bound them by the input size).
    pub fn with_capacity(width: usize, records: usize, bytes: usize) -> StrTable {
        let mut t = StrTable::new(width);
        t.bytes.reserve(bytes);
        if let Ends::U32(v) = &mut t.ends {
            v.reserve(records * t.width);
        }
        t.slots = vec![EMPTY; (records * 2).next_power_of_two().max(8)];
        t
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.ends.len() / self.width
    }

    /// True when there are no records.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// String `j` of record `i` (`i < len()`, `j < width`).
    pub fn get(&self, i: usize, j: usize) -> &[u8] {
        let k = i * self.width + j;
        let start = if k == 0 { 0 } else { self.ends.get(k - 1) };
        &self.bytes[start..self.ends.get(k)]
    }

    /// The record whose first string is `key`.
    pub fn find(&self, key: &[u8]) -> Option<usize> {
        if self.slots.is_empty() {
            return (0..self.len()).find(|&i| self.get(i, 0) == key);
        }
        let (slot, _) = self.probe(key);
        let s = self.slots[slot];
        (s != EMPTY).then_some(s as usize)
    }

    fn probe(&self, key: &[u8]) -> (usize, u64) {
        let mask = self.slots.len() - 1;
        let h = hash(key);
        let mut i = (h as usize) & mask;
        loop {
            let s = self.slots[i];
            if s == EMPTY || self.get(s as usize, 0) == key {
                return (i, h);
            }
            i = (i + 1) & mask;
        }
    }

    /// Builds the index again, with room for one more record at most half full.
    fn grow(&mut self) {
        let n = (self.slots.len() * 2)
            .max(((self.len() + 1) * 2).next_power_of_two())
            .max(8);
        self.slots = vec![EMPTY; n];
        for r in 0..self.len() {
            let (slot, _) = self.probe(self.get(r, 0));
            self.slots[slot] = r as u32;
        }
    }

    /// Appends a record (`record.len()` must equal the width) unless its first string is
    /// already a key; returns false (nothing stored) in that case, or when the table already
    /// holds `u32::MAX - 1` records.
    pub fn insert(&mut self, record: &[&[u8]]) -> bool {
        debug_assert_eq!(record.len(), self.width);
        if self.len() >= (EMPTY - 1) as usize || record.len() != self.width {
            return false;
        }
        if (self.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let (slot, _) = self.probe(record[0]);
        if self.slots[slot] != EMPTY {
            return false;
        }
        self.slots[slot] = self.len() as u32;
        for s in record {
            self.bytes.extend_from_slice(s);
            self.ends.push(self.bytes.len());
        }
        true
    }

    /// Drops records from `n` on (used to undo a partially read record); the index is rebuilt.
    pub fn truncate(&mut self, n: usize) {
        if n < self.len() {
            self.ends.truncate(n * self.width);
            let end = if n == 0 {
                0
            } else {
                self.ends.get(n * self.width - 1)
            };
            self.bytes.truncate(end);
            self.grow();
        }
    }

    /// Releases spare capacity of the arena, and the index of a table of at most
    /// [`SCAN_MAX`] records (an insert builds it again).
    pub fn shrink(&mut self) {
        self.bytes.shrink_to_fit();
        self.ends.shrink();
        if self.len() <= SCAN_MAX {
            self.slots = Vec::new();
        }
    }

    /// Heap bytes held (arena, offsets, index).
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity() + self.ends.heap_bytes() + self.slots.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoded::test_blobs::{intset, listpack_strs};

    #[test]
    fn small_hashtable_sets_are_one_blob_and_answer_as_tables() {
        for n in [1usize, 3, SCAN_MAX, SCAN_MAX + 1, 30] {
            let members: Vec<Vec<u8>> = (0..n)
                .map(|i| match i % 3 {
                    0 => format!("{}", i * 7).into_bytes(),
                    1 => format!("w{i}").into_bytes(),
                    _ => vec![0, b'x', i as u8, 255],
                })
                .collect();
            // A repeat is kept once, as Redis' SADD does.
            let s = Set::from_members(members.iter().chain(members.first()));
            assert_eq!(
                matches!(s.repr(), SetRef::SmallTable(_)),
                n <= SCAN_MAX,
                "{n}"
            );
            assert_eq!(matches!(s.repr(), SetRef::Table(_)), n > SCAN_MAX, "{n}");
            assert_eq!(s.encoding(), "hashtable");
            assert_eq!(s.len(), n);
            assert_eq!(s.members(), members);
            for m in &members {
                assert!(s.contains(m));
            }
            // Integers are kept as their text: "07" is not "7", as in a hashtable set.
            assert!(!s.contains(b"07") && !s.contains(b"absent"));
            assert_eq!(s.clone(), s);
        }
    }

    #[test]
    fn small_tables_scan_and_index_again_on_insert() {
        for n in [0usize, 1, 5, SCAN_MAX, SCAN_MAX + 1, 40] {
            let mut t = StrTable::new(1);
            for i in 0..n {
                assert!(t.insert(&[format!("m{i}").as_bytes()]));
            }
            t.shrink();
            assert_eq!(t.slots.is_empty(), n <= SCAN_MAX, "{n} records");
            for i in 0..n {
                assert_eq!(t.find(format!("m{i}").as_bytes()), Some(i));
            }
            assert_eq!(t.find(b"absent"), None);
            // Inserts after shrinking: a repeat is refused, new records are indexed.
            assert!(n == 0 || !t.insert(&[b"m0"]));
            for i in n..n + 20 {
                assert!(t.insert(&[format!("m{i}").as_bytes()]), "{i}");
            }
            for i in 0..n + 20 {
                assert_eq!(t.find(format!("m{i}").as_bytes()), Some(i));
            }
            assert_eq!(t.len(), n + 20);
        }
    }

    #[test]
    fn intset_members_sorted_and_lookup() {
        let s = Set::from_intset(intset(2, &[-5, 7, 300])).unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(
            s.members(),
            vec![b"-5".to_vec(), b"7".to_vec(), b"300".to_vec()]
        );
        assert!(s.contains(b"7"));
        assert!(!s.contains(b"07"));
        assert!(!s.contains(b"8"));
        assert_eq!(s.encoding(), "intset");
        assert!(Set::from_intset(vec![2, 0, 0, 0, 5, 0, 0, 0]).is_err());
    }

    #[test]
    fn listpack_members_in_insertion_order() {
        let s = Set::from_listpack(listpack_strs(&[b"b", b"12", b"a"])).unwrap();
        assert_eq!(
            s.members(),
            vec![b"b".to_vec(), b"12".to_vec(), b"a".to_vec()]
        );
        assert!(s.contains(b"12") && s.contains(b"a") && !s.contains(b"c"));
    }

    #[test]
    fn table_keeps_file_order_and_dedups() {
        let s = Set::from_members([&b"x"[..], b"y", b"x", b""]);
        assert_eq!(
            s.members(),
            vec![b"x".to_vec(), b"y".to_vec(), b"".to_vec()]
        );
        assert!(s.contains(b"") && s.contains(b"y") && !s.contains(b"z"));
        let mut t = StrTable::new(2);
        for i in 0..1000u32 {
            assert!(t.insert(&[format!("f{i}").as_bytes(), format!("v{i}").as_bytes()]));
        }
        assert!(!t.insert(&[b"f7", b"other"]));
        assert_eq!(t.find(b"f999"), Some(999));
        assert_eq!(t.get(999, 1), b"v999");
        t.truncate(10);
        assert_eq!(t.len(), 10);
        assert_eq!(t.find(b"f999"), None);
        assert_eq!(t.find(b"f9"), Some(9));
    }
}
