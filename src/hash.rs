//! Hashes: binary field → value maps, kept in the encoding the snapshot stored them in, with
//! optional per-field expiry (Redis 7.4 hash field expiration).
//!
//! - [`HashRef::Listpack`]: a listpack of field, value, field, value... (RDB_TYPE_HASH_LISTPACK).
//! - [`HashRef::ListpackEx`]: a listpack of field, value, expiry triples (RDB_TYPE_HASH_LISTPACK_EX
//!   and its pre-release form): the expiry is absolute Unix milliseconds, 0 for none.
//! - [`HashRef::Ziplist`]: a ziplist of field, value pairs (RDB_TYPE_HASH_ZIPLIST, Redis < 7).
//! - [`HashRef::Zipmap`]: a zipmap (RDB_TYPE_HASH_ZIPMAP, Redis < 2.6).
//! - [`HashRef::Table`]: a hashtable-encoded hash (RDB_TYPE_HASH, RDB_TYPE_HASH_METADATA) as a
//!   [`StrTable`] of (field, value) records in file order, plus per-record expiry when any
//!   field has one. Redis' own order for these is its hash table's and cannot be reproduced;
//!   bitlens replies in file order.
//!
//! Small encodings reply in their stored order, as Redis does. Blobs are validated when the
//! hash is built, so on-demand decoding cannot fail afterwards. A field whose expiry is at or
//! before the clock (`now_ms`) is invisible to every read, as in Redis 7.4.

use crate::encoded::{self, thin_blob, BlobError, BlobErrorKind, Item};
use crate::set::{item_eq, StrTable};
use crate::thin::{Tagged, TaggedRef};

/// A Redis hash: one thin pointer (see [`crate::thin`]) to its blob or its table (see
/// [`HashRef`]), so that a key's value stays 16 bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Hash(Tagged<HashTable>);

/// What a [`Hash`] holds, borrowed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HashRef<'a> {
    /// Field, value pairs in a validated listpack.
    Listpack(&'a [u8]),
    /// Field, value, expiry-ms (0 = none) triples in a validated listpack.
    ListpackEx(&'a [u8]),
    /// Field, value pairs in a validated ziplist.
    Ziplist(&'a [u8]),
    /// A validated zipmap.
    Zipmap(&'a [u8]),
    /// A hashtable-encoded hash.
    Table(&'a HashTable),
}

/// The blob kinds of a [`Hash`]'s pointer.
const LISTPACK: u8 = 0;
const LISTPACK_EX: u8 = 1;
const ZIPLIST: u8 = 2;
const ZIPMAP: u8 = 3;

/// Two hashes are equal when they hold the same encoding and the same bytes or records.
/// A hashtable-encoded hash: (field, value) records in file order and, when any field has an
/// expiry, one absolute expiry (Unix ms, 0 = none) per record.
#[derive(Debug, Clone, PartialEq)]
pub struct HashTable {
    /// Records of width 2: field, value.
    pub records: StrTable,
    /// Per-record expiry in Unix ms (0 = none), or `None` when no field expires.
    pub expires: Option<Vec<i64>>,
}

/// One field of a hash, decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The field name.
    pub field: Vec<u8>,
    /// Its value.
    pub value: Vec<u8>,
    /// Absolute expiry, Unix ms; `None` when the field does not expire.
    pub expire_at_ms: Option<i64>,
}

fn alive(expire: Option<i64>, now_ms: Option<i64>) -> bool {
    match (expire, now_ms) {
        (Some(t), Some(now)) => t > now,
        _ => true,
    }
}

fn expiry_of(it: &Item<'_>) -> Option<i64> {
    match it {
        Item::Int(0) => None,
        Item::Int(v) => Some(*v),
        Item::Str(s) => crate::num::parse_i64(s).filter(|&v| v != 0),
    }
}

impl Hash {
    /// A hash from a listpack of field/value pairs; errors when malformed or odd.
    pub fn from_listpack(blob: impl AsRef<[u8]>) -> Result<Hash, BlobError> {
        let blob = blob.as_ref();
        check_width(encoded::listpack(blob)?.len(), 2, "hash listpack")?;
        Ok(Hash(Tagged::blob(LISTPACK, thin_blob(blob)?)))
    }

    /// A hash from a listpack of field/value/expiry triples; errors when malformed.
    pub fn from_listpack_ex(blob: impl AsRef<[u8]>) -> Result<Hash, BlobError> {
        let blob = blob.as_ref();
        let items = encoded::listpack(blob)?;
        check_width(items.len(), 3, "hash listpack with field expiry")?;
        for t in items.chunks_exact(3) {
            if !matches!(t[2], Item::Int(v) if v >= 0) {
                return Err(BlobError::new(
                    BlobErrorKind::Invalid,
                    0,
                    format!("hash field expiry {:?} is not a time", t[2]),
                ));
            }
        }
        Ok(Hash(Tagged::blob(LISTPACK_EX, thin_blob(blob)?)))
    }

    /// A hash from a ziplist of field/value pairs; errors when malformed or odd.
    pub fn from_ziplist(blob: impl AsRef<[u8]>) -> Result<Hash, BlobError> {
        let blob = blob.as_ref();
        check_width(encoded::ziplist(blob)?.len(), 2, "hash ziplist")?;
        Ok(Hash(Tagged::blob(ZIPLIST, thin_blob(blob)?)))
    }

    /// A hash from a zipmap; errors when malformed (see [`encoded::zipmap`]: Redis'
    /// zipmapValidateIntegrity) or when a field appears twice (Redis' "Hash zipmap with dup
    /// elements").
    pub fn from_zipmap(blob: impl AsRef<[u8]>) -> Result<Hash, BlobError> {
        let blob = blob.as_ref();
        let items = encoded::zipmap(blob)?;
        let mut seen = std::collections::HashSet::with_capacity(items.len() / 2);
        for pair in items.chunks_exact(2) {
            if !seen.insert(pair[0].to_vec()) {
                return Err(BlobError::new(
                    BlobErrorKind::Invalid,
                    0,
                    format!(
                        "zipmap field {:?} appears twice",
                        pair[0].to_vec().escape_ascii().to_string()
                    ),
                ));
            }
        }
        Ok(Hash(Tagged::blob(ZIPMAP, thin_blob(blob)?)))
    }

    /// A hashtable hash from (field, value, expiry) triples; a repeated field keeps its first
    /// value.
    pub fn from_fields<I, F, V>(fields: I) -> Hash
    where
        I: IntoIterator<Item = (F, V, Option<i64>)>,
        F: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        let mut records = StrTable::new(2);
        let mut expires = Vec::new();
        for (f, v, e) in fields {
            if records.insert(&[f.as_ref(), v.as_ref()]) {
                expires.push(e.unwrap_or(0));
            }
        }
        records.shrink();
        let expires = expires.iter().any(|&e| e != 0).then_some(expires);
        Hash::from_table(HashTable { records, expires })
    }

    /// A hashtable-encoded hash holding `table`.
    pub fn from_table(table: HashTable) -> Hash {
        Hash(Tagged::boxed(table))
    }

    /// What the hash holds.
    pub fn repr(&self) -> HashRef<'_> {
        match self.0.get() {
            TaggedRef::Blob(LISTPACK, b) => HashRef::Listpack(b),
            TaggedRef::Blob(LISTPACK_EX, b) => HashRef::ListpackEx(b),
            TaggedRef::Blob(ZIPLIST, b) => HashRef::Ziplist(b),
            TaggedRef::Blob(_, b) => HashRef::Zipmap(b),
            TaggedRef::Boxed(t) => HashRef::Table(t),
        }
    }

    /// How many fields the hash stores, expired ones included (`all().len()`), from the blob's
    /// header count where it has one (O(1), nothing decoded).
    pub fn stored_len(&self) -> usize {
        match self.repr() {
            HashRef::Listpack(b) => {
                encoded::listpack_header_count(b).map_or_else(|| self.all().len(), |n| n / 2)
            }
            HashRef::ListpackEx(b) => {
                encoded::listpack_header_count(b).map_or_else(|| self.all().len(), |n| n / 3)
            }
            HashRef::Ziplist(b) => {
                encoded::ziplist_header_count(b).map_or_else(|| self.all().len(), |n| n / 2)
            }
            HashRef::Table(t) => t.records.len(),
            HashRef::Zipmap(_) => self.all().len(),
        }
    }

    /// Every field with its value and expiry, in reply order, expired ones included.
    pub fn all(&self) -> Vec<Field> {
        let pairs = |items: Vec<Item<'_>>| -> Vec<Field> {
            items
                .chunks_exact(2)
                .map(|p| Field {
                    field: p[0].to_vec(),
                    value: p[1].to_vec(),
                    expire_at_ms: None,
                })
                .collect()
        };
        match self.repr() {
            HashRef::Listpack(b) => pairs(encoded::listpack(b).unwrap_or_default()),
            HashRef::Ziplist(b) => pairs(encoded::ziplist(b).unwrap_or_default()),
            HashRef::Zipmap(b) => pairs(encoded::zipmap(b).unwrap_or_default()),
            HashRef::ListpackEx(b) => encoded::listpack(b)
                .unwrap_or_default()
                .chunks_exact(3)
                .map(|t| Field {
                    field: t[0].to_vec(),
                    value: t[1].to_vec(),
                    expire_at_ms: expiry_of(&t[2]),
                })
                .collect(),
            HashRef::Table(t) => (0..t.records.len())
                .map(|i| Field {
                    field: t.records.get(i, 0).to_vec(),
                    value: t.records.get(i, 1).to_vec(),
                    expire_at_ms: t.expire(i),
                })
                .collect(),
        }
    }

    /// Calls `f` with each field's (name length, value length) in bytes, expired fields
    /// included (integers as decimal text), in [`Hash::all`]'s order; nothing is copied
    /// (memory estimates price fields by length).
    pub fn for_each_field_len(&self, mut f: impl FnMut(usize, usize)) {
        let each = |items: Vec<Item<'_>>, width: usize, f: &mut dyn FnMut(usize, usize)| {
            for r in items.chunks_exact(width) {
                f(r[0].text_len(), r[1].text_len());
            }
        };
        match self.repr() {
            HashRef::Listpack(b) => each(encoded::listpack(b).unwrap_or_default(), 2, &mut f),
            HashRef::Ziplist(b) => each(encoded::ziplist(b).unwrap_or_default(), 2, &mut f),
            HashRef::Zipmap(b) => each(encoded::zipmap(b).unwrap_or_default(), 2, &mut f),
            HashRef::ListpackEx(b) => each(encoded::listpack(b).unwrap_or_default(), 3, &mut f),
            HashRef::Table(t) => {
                for i in 0..t.records.len() {
                    f(t.records.get(i, 0).len(), t.records.get(i, 1).len());
                }
            }
        }
    }

    /// The length in bytes of the longest field name or value, expired fields included
    /// (integers as decimal text), 0 when empty; nothing is copied.
    pub fn max_element_len(&self) -> usize {
        let longest = |items: Vec<Item<'_>>, width: usize| {
            items
                .chunks_exact(width)
                .map(|r| r[0].text_len().max(r[1].text_len()))
                .max()
        };
        match self.repr() {
            HashRef::Listpack(b) => longest(encoded::listpack(b).unwrap_or_default(), 2),
            HashRef::Ziplist(b) => longest(encoded::ziplist(b).unwrap_or_default(), 2),
            HashRef::Zipmap(b) => longest(encoded::zipmap(b).unwrap_or_default(), 2),
            HashRef::ListpackEx(b) => longest(encoded::listpack(b).unwrap_or_default(), 3),
            HashRef::Table(t) => (0..t.records.len())
                .map(|i| t.records.get(i, 0).len().max(t.records.get(i, 1).len()))
                .max(),
        }
        .unwrap_or(0)
    }

    /// The live fields at `now_ms` (`None`: nothing expires), in reply order (HGETALL).
    pub fn fields(&self, now_ms: Option<i64>) -> Vec<Field> {
        let mut all = self.all();
        all.retain(|f| alive(f.expire_at_ms, now_ms));
        all
    }

    /// Number of live fields at `now_ms` (HLEN).
    pub fn len(&self, now_ms: Option<i64>) -> usize {
        match self.repr() {
            HashRef::Table(t) if t.expires.is_none() => t.records.len(),
            HashRef::Listpack(b) => encoded::listpack(b).map_or(0, |v| v.len() / 2),
            _ => self.fields(now_ms).len(),
        }
    }

    /// True when the hash stores no field at all, live or expired (a record a loader may
    /// skip: see [`crate::keyspace::Value::is_empty_collection`]). O(1): a blob's header
    /// count, a table's records.
    pub fn stores_nothing(&self) -> bool {
        match self.repr() {
            HashRef::Listpack(b) | HashRef::ListpackEx(b) => {
                encoded::listpack_header_count(b) == Some(0)
            }
            HashRef::Ziplist(b) => encoded::ziplist_header_count(b) == Some(0),
            // A zipmap's first byte counts its pairs (below 254).
            HashRef::Zipmap(b) => b.first() == Some(&0),
            HashRef::Table(t) => t.records.is_empty(),
        }
    }

    /// True when some field carries its own expiry (so the whole hash can expire with them).
    pub fn has_field_expiry(&self) -> bool {
        match self.repr() {
            HashRef::ListpackEx(_) => self.all().iter().any(|f| f.expire_at_ms.is_some()),
            HashRef::Table(t) => t.expires.is_some(),
            _ => false,
        }
    }

    /// True when no field is live at `now_ms`.
    pub fn is_empty(&self, now_ms: Option<i64>) -> bool {
        self.len(now_ms) == 0
    }

    /// The live field `field` at `now_ms`: (value, expiry).
    pub fn get(&self, field: &[u8], now_ms: Option<i64>) -> Option<(Vec<u8>, Option<i64>)> {
        let found = match self.repr() {
            HashRef::Table(t) => t
                .records
                .find(field)
                .map(|i| (t.records.get(i, 1).to_vec(), t.expire(i))),
            HashRef::Listpack(b) => find_pair(&encoded::listpack(b).unwrap_or_default(), field),
            HashRef::Ziplist(b) => find_pair(&encoded::ziplist(b).unwrap_or_default(), field),
            HashRef::Zipmap(b) => find_pair(&encoded::zipmap(b).unwrap_or_default(), field),
            HashRef::ListpackEx(b) => encoded::listpack(b)
                .unwrap_or_default()
                .chunks_exact(3)
                .find(|t| item_eq(&t[0], field))
                .map(|t| (t[1].to_vec(), expiry_of(&t[2]))),
        };
        found.filter(|(_, e)| alive(*e, now_ms))
    }

    /// The encoding OBJECT ENCODING reports for this hash as loaded.
    pub fn encoding(&self) -> &'static str {
        match self.repr() {
            HashRef::Listpack(_) => "listpack",
            HashRef::ListpackEx(_) => "listpackex",
            HashRef::Ziplist(_) => "ziplist",
            HashRef::Zipmap(_) => "zipmap",
            HashRef::Table(_) => "hashtable",
        }
    }

    /// Heap bytes held by the value (for memory accounting).
    pub fn heap_bytes(&self) -> usize {
        match self.repr() {
            HashRef::Listpack(b)
            | HashRef::ListpackEx(b)
            | HashRef::Ziplist(b)
            | HashRef::Zipmap(b) => b.len(),
            HashRef::Table(t) => {
                t.records.heap_bytes() + t.expires.as_ref().map_or(0, |e| e.capacity() * 8)
            }
        }
    }
}

impl HashTable {
    /// The expiry of record `i`, if it has one.
    pub fn expire(&self, i: usize) -> Option<i64> {
        self.expires
            .as_ref()
            .and_then(|e| e.get(i).copied())
            .filter(|&e| e != 0)
    }
}

fn find_pair(items: &[Item<'_>], field: &[u8]) -> Option<(Vec<u8>, Option<i64>)> {
    items
        .chunks_exact(2)
        .find(|p| item_eq(&p[0], field))
        .map(|p| (p[1].to_vec(), None))
}

fn check_width(n: usize, width: usize, what: &str) -> Result<(), BlobError> {
    if !n.is_multiple_of(width) {
        return Err(BlobError::new(
            BlobErrorKind::Invalid,
            0,
            format!("{what} has {n} entries, not a multiple of {width}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoded::test_blobs::{items, listpack_ex, listpack_strs, ziplist, zipmap};

    #[test]
    fn stored_len_reads_the_header_count_as_decoding_does() {
        let mut rng = fastrand::Rng::with_seed(0x5707_ed1e);
        for _ in 0..200 {
            // (A zipmap is never empty: Redis refuses one.)
            let n = rng.usize(1..40);
            let names: Vec<Vec<u8>> = (0..n).map(|i| format!("f{i}").into_bytes()).collect();
            let vals: Vec<Vec<u8>> = (0..n)
                .map(|_| rng.u32(..).to_string().into_bytes())
                .collect();
            let strs: Vec<&[u8]> = names
                .iter()
                .zip(&vals)
                .flat_map(|(f, v)| [f.as_slice(), v.as_slice()])
                .collect();
            let pairs: Vec<(&[u8], &[u8])> = names
                .iter()
                .zip(&vals)
                .map(|(f, v)| (f.as_slice(), v.as_slice()))
                .collect();
            let triples: Vec<(&[u8], &[u8], i64)> =
                pairs.iter().map(|&(f, v)| (f, v, rng.i64(0..3))).collect();
            let mut lp = listpack_strs(&strs);
            if rng.bool() {
                // A header that says "count it" (65535), as a listpack of 65535+ elements has.
                lp[4..6].copy_from_slice(&u16::MAX.to_le_bytes());
            }
            let hashes = [
                Hash::from_listpack(lp).unwrap(),
                Hash::from_ziplist(ziplist(&items(&strs))).unwrap(),
                Hash::from_zipmap(zipmap(&pairs)).unwrap(),
                Hash::from_listpack_ex(listpack_ex(&triples)).unwrap(),
                Hash::from_fields(pairs.iter().map(|&(f, v)| (f, v, None))),
            ];
            for h in hashes {
                assert_eq!(h.stored_len(), h.all().len(), "{h:?}");
                assert_eq!(h.stored_len(), n);
            }
        }
    }

    #[test]
    fn small_encodings_in_stored_order() {
        let lp = Hash::from_listpack(listpack_strs(&[b"b", b"1", b"a", b"x"])).unwrap();
        let zl = Hash::from_ziplist(ziplist(&items(&[b"b", b"1", b"a", b"x"]))).unwrap();
        let zm = Hash::from_zipmap(zipmap(&[(b"b", b"1"), (b"a", b"x")])).unwrap();
        for h in [lp, zl, zm] {
            assert_eq!(h.len(None), 2);
            let f: Vec<Vec<u8>> = h.fields(None).into_iter().map(|f| f.field).collect();
            assert_eq!(f, vec![b"b".to_vec(), b"a".to_vec()]);
            assert_eq!(h.get(b"b", None), Some((b"1".to_vec(), None)));
            assert_eq!(h.get(b"c", None), None);
        }
        assert!(Hash::from_listpack(listpack_strs(&[b"odd"])).is_err());
    }

    #[test]
    fn field_expiry_hides_fields() {
        let lp = listpack_ex(&[(b"f1", b"v1", 0), (b"f2", b"v2", 5_000)]);
        let h = Hash::from_listpack_ex(lp).unwrap();
        assert_eq!(h.len(None), 2);
        assert_eq!(h.len(Some(4_999)), 2);
        assert_eq!(h.len(Some(5_000)), 1);
        assert_eq!(h.get(b"f2", Some(1)), Some((b"v2".to_vec(), Some(5_000))));
        assert_eq!(h.get(b"f2", Some(6_000)), None);
        let t = Hash::from_fields([(b"a", b"1", None), (b"b", b"2", Some(10))]);
        assert_eq!(t.len(Some(10)), 1);
        assert_eq!(t.get(b"a", Some(10)), Some((b"1".to_vec(), None)));
        assert_eq!(t.encoding(), "hashtable");
    }
}
