//! Sorted sets: members (binary strings) with `f64` scores, ordered as Redis orders them
//! (by score, then by member bytes). GEO keys are sorted sets whose scores are 52-bit geohashes.
//!
//! Layout: one vector of (score, member) in Redis order (ranges and GEO cell ranges are binary
//! searches in it) and an open-addressing (linear probing) hash index of positions in that
//! vector for member lookups (ZSCORE, GEOPOS). Building from pairs already in Redis order or
//! its reverse (what an RDB file holds) is one check pass, no sort, and an index laid down
//! slot by slot after a radix sort of the members' home slots (no random writes into a table
//! larger than the caches); other input is indexed and sorted once, O(n log n). Sets of fewer
//! than 8 members keep no index (lookups scan).
//!
//! A set the snapshot stored as one listpack or ziplist blob, in Redis order with distinct
//! members, is kept as that blob ([`ZSet::from_blob`]; its members are read once to check
//! that) and decoded into the layout above on its first read.

use once_cell::race::OnceBox;

use crate::thin::{Blob, FromBlob, Lazy};

use crate::encoded::{self, BlobError, Item};

/// A member's bytes: up to 16 bytes inside the entry itself (no allocation for the short
/// members most sets hold: names, ids, GEO places; issue 31), longer ones on the heap.
/// Dereferences to `[u8]`.
pub type Member = smallvec::SmallVec<[u8; 16]>;

/// How a compact set's blob is laid out (RDB_TYPE_ZSET_LISTPACK / RDB_TYPE_ZSET_ZIPLIST).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BlobFormat {
    /// A listpack of member, score, member, score, ...
    #[default]
    Listpack,
    /// A ziplist of member, score, member, score, ...
    Ziplist,
}

impl BlobFormat {
    /// The blob's elements; errors when it is malformed.
    pub fn decode(self, blob: &[u8]) -> Result<Vec<Item<'_>>, BlobError> {
        match self {
            BlobFormat::Listpack => encoded::listpack(blob),
            BlobFormat::Ziplist => encoded::ziplist(blob),
        }
    }

    /// The element count the blob's header holds, `None` when it is too short or the
    /// count saturated (65,535 and up: only a walk counts them).
    pub fn header_count(self, blob: &[u8]) -> Option<usize> {
        match self {
            BlobFormat::Listpack => encoded::listpack_header_count(blob),
            BlobFormat::Ziplist => encoded::ziplist_header_count(blob),
        }
    }
}

// SAFETY: `from_thin` only reads the blob's header (it cannot panic); the set keeps the
// blob in its `blob` field, which only `&mut` methods could change (none does), and
// `into_thin` gives back that blob.
unsafe impl FromBlob for ZSet {
    /// A set kept as its blob by [`ZSet::into_value`]: kind is the [`BlobFormat`], the count
    /// comes from the header.
    fn from_thin(kind: u8, blob: Blob) -> ZSet {
        let format = if kind == BlobFormat::Ziplist as u8 {
            BlobFormat::Ziplist
        } else {
            BlobFormat::Listpack
        };
        ZSet {
            len: (format.header_count(&blob).unwrap_or(0) / 2) as u32,
            blob: Some(blob),
            full: Decoded::default(),
            format,
            skiplist_record: false,
            stored_compact: true,
        }
    }

    fn into_thin(mut self) -> Blob {
        self.blob
            .take()
            .unwrap_or_else(|| unreachable!("built by from_thin"))
    }
}

/// The decoded layout: the sorted entries and their member index.
#[derive(Debug, Clone, Default)]
struct Full {
    /// Entries sorted by (score, member), as ZRANGE returns them.
    sorted: Vec<(f64, Member)>,
    /// Member index: hash tag and position in `sorted` (`EMPTY` = free slot); length a power
    /// of two, at most half full; empty below [`INDEXED_FROM`] members.
    slots: Vec<u64>,
}

/// The decoded layout, made at most once: one pointer (`OnceLock<Box<_>>` takes two words).
/// Dereferences to the `OnceBox`; `Debug` shows the layout, not its address.
#[derive(Clone, Default)]
struct Decoded(OnceBox<Full>);

impl std::ops::Deref for Decoded {
    type Target = OnceBox<Full>;
    fn deref(&self) -> &OnceBox<Full> {
        &self.0
    }
}

impl std::fmt::Debug for Decoded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.get().fmt(f)
    }
}

/// A Redis sorted set.
///
/// A set the snapshot stored as one listpack or ziplist blob, in Redis order with distinct
/// members (as servers write them), keeps that blob and is decoded into the sorted layout on
/// its first read: a loaded snapshot's many small sets cost their blob and this struct, not
/// a vector of entries each (issue 31). Sets are not changed in place.
#[derive(Debug, Clone, Default)]
pub struct ZSet {
    /// The validated blob of (member, score) pairs, when the set is kept as one.
    blob: Option<Blob>,
    /// The decoded layout: set when built, or on the first read of a blob.
    full: Decoded,
    /// Number of members.
    len: u32,
    /// How `blob` is laid out.
    format: BlobFormat,
    /// Loaded from a skiplist record (RDB_TYPE_ZSET / RDB_TYPE_ZSET_2): a server that
    /// converts it to a listpack at load re-encodes its scores (see
    /// [`ZSet::loaded_score`]).
    skiplist_record: bool,
    /// The snapshot stored it as one ziplist or listpack blob (RDB_TYPE_ZSET_ZIPLIST /
    /// _LISTPACK): a loader keeps such a set compact by its member count alone
    /// ([`crate::loaded::loaded`]).
    stored_compact: bool,
}

/// Two sets are equal when they hold the same members with the same scores (the index layout
/// depends on how the set was built).
impl PartialEq for ZSet {
    fn eq(&self, other: &Self) -> bool {
        self.sorted() == other.sorted()
    }
}

/// A free slot of the member index. A used slot holds the high 32 bits of the member's hash
/// (so most probes compare no bytes) above its position in `sorted`.
const EMPTY: u64 = u64::MAX;

/// A fast 64-bit hash of member bytes (multiply-rotate over 8-byte words, then a final mix).
#[inline]
fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    let mut tail = [0u8; 8];
    let rest = chunks.remainder();
    tail[..rest.len()].copy_from_slice(rest);
    h = (h.rotate_left(5) ^ u64::from_le_bytes(tail)).wrapping_mul(K);
    h ^= h >> 29;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ (h >> 32)
}

/// The home slot of hash `h` in a table of `len` slots (a power of two): the hash's top bits,
/// so that ordering entries by their tag orders them by home slot too.
fn home(h: u64, len: usize) -> usize {
    (h >> (64 - len.trailing_zeros())) as usize
}

/// Finds the slot of `member` (or the free slot where it would go) and the slot tag to store.
fn probe<'a>(slots: &[u64], member: &[u8], at: impl Fn(usize) -> &'a [u8]) -> (usize, u64) {
    let mask = slots.len() - 1;
    let h = hash(member);
    let tag = h & TAG;
    let mut i = home(h, slots.len());
    loop {
        let s = slots[i];
        if s == EMPTY || (s & TAG == tag && at(s as u32 as usize) == member) {
            return (i, tag);
        }
        i = (i + 1) & mask;
    }
}

/// A score as Redis compares it: -0 and 0 are equal (ties then go by member); the order stays
/// total with NaN.
fn score_key(s: f64) -> f64 {
    if s == 0.0 {
        0.0
    } else {
        s
    }
}

/// A blob element as a member's bytes (an integer as its decimal text).
fn member_of(item: &Item<'_>) -> Member {
    match item {
        Item::Str(b) => Member::from_slice(b),
        Item::Int(_) => Member::from_vec(item.to_vec()),
    }
}

/// Why [`ZSet::from_blob`] refused a blob.
#[derive(Debug, Clone, PartialEq)]
pub enum ZSetBlobError {
    /// The listpack or ziplist itself is malformed.
    Blob(BlobError),
    /// The blob holds this many elements, an odd number (not member, score pairs).
    OddLength(usize),
    /// A score element that is not a number (NaN included), as `Item`'s debug text (e.g.
    /// `Str([110, 111])`).
    Score(String),
}

/// Redis order of two entries: by score, then by member bytes.
#[inline]
fn order(a: &(f64, Member), b: &(f64, Member)) -> std::cmp::Ordering {
    score_key(a.0)
        .total_cmp(&score_key(b.0))
        .then_with(|| a.1.cmp(&b.1))
}

/// Builds the member index of distinct `items` without random writes: the slot entries
/// (tag | position; the tag is the hash's top half, which starts with the home slot) are
/// radix-sorted and laid down in that order, each at its home slot or the next free one after
/// it, which is the table that inserting them one by one would give (linear probing); the few
/// that run past the end wrap round by ordinary insertion. `None` when a member occurs twice.
fn bulk_index(items: &[(f64, Member)]) -> Option<Vec<u64>> {
    let mut slots = table_for(items.len());
    let bits = slots.len().trailing_zeros();
    let mut a: Vec<u64> = items
        .iter()
        .enumerate()
        .map(|(i, (_, m))| (hash(m) & TAG) | i as u64)
        .collect();
    if bits > 32 {
        // Over 2^31 members: the tag no longer holds the whole home slot; insert one by one.
        for &entry in &a {
            let (slot, _) = probe(&slots, &items[entry as u32 as usize].1, |p| &items[p].1);
            if slots[slot] != EMPTY {
                return None;
            }
            slots[slot] = entry;
        }
        return Some(slots);
    }
    // LSD radix sort on the home-slot bits, 11 bits a pass.
    let mut b = vec![0u64; a.len()];
    let mut shift = 64 - bits;
    while shift < 64 {
        let mut counts = [0usize; 2049];
        for &e in &a {
            counts[((e >> shift) & 2047) as usize + 1] += 1;
        }
        for d in 1..counts.len() {
            counts[d] += counts[d - 1];
        }
        for &e in &a {
            let d = ((e >> shift) & 2047) as usize;
            b[counts[d]] = e;
            counts[d] += 1;
        }
        std::mem::swap(&mut a, &mut b);
        shift += 11;
    }
    drop(b);
    let mut next = 0usize;
    let mut group = 0usize;
    let mut wrapped = Vec::new();
    for j in 0..a.len() {
        let entry = a[j];
        let at_home = home(entry, slots.len());
        if home(a[group], slots.len()) != at_home {
            group = j;
        }
        // A repeated member has the same home slot and tag as its first copy.
        for &other in &a[group..j] {
            if other & TAG == entry & TAG
                && items[other as u32 as usize].1 == items[entry as u32 as usize].1
            {
                return None;
            }
        }
        let at = next.max(at_home);
        if at < slots.len() {
            slots[at] = entry;
            next = at + 1;
        } else {
            wrapped.push(entry);
        }
    }
    for entry in wrapped {
        let (slot, _) = probe(&slots, &items[entry as u32 as usize].1, |p| &items[p].1);
        slots[slot] = entry;
    }
    Some(slots)
}

/// The hash bits a used index slot keeps above the position.
const TAG: u64 = 0xffff_ffff_0000_0000;

/// Sets with fewer members than this keep no member index: a lookup compares at most 7
/// members (what a listpack-encoded set costs Redis too), and a snapshot's many small sets
/// save the index's allocation (128 bytes for 5 members; issue 31).
const INDEXED_FROM: usize = 8;

/// An index table with room for `n` entries at most half full.
fn table_for(n: usize) -> Vec<u64> {
    vec![EMPTY; (n * 2).next_power_of_two().max(8)]
}

/// The member index to keep for a set whose full index is `slots`: none below
/// [`INDEXED_FROM`] members (their lookups scan).
fn indexed(slots: Vec<u64>) -> Vec<u64> {
    if slots.iter().filter(|&&s| s != EMPTY).count() < INDEXED_FROM {
        Vec::new()
    } else {
        slots
    }
}

impl ZSet {
    /// Builds a set from (member, score) pairs; a repeated member keeps its last score.
    /// O(n log n); at most `u32::MAX` members. Pairs already in Redis order, or in its reverse
    /// (as an RDB file lists a skiplist-encoded set: highest score first), are not sorted
    /// again: they are checked in one pass and reversed when needed.
    pub fn from_pairs<I: IntoIterator<Item = (Vec<u8>, f64)>>(pairs: I) -> Self {
        let mut items: Vec<(f64, Member)> = pairs
            .into_iter()
            .map(|(m, s)| (s, Member::from_vec(m)))
            .collect();
        let ascending = items.windows(2).all(|w| order(&w[0], &w[1]).is_le());
        let descending = !ascending && items.windows(2).all(|w| order(&w[0], &w[1]).is_ge());
        if !(ascending || descending) {
            return Self::from_unordered(items);
        }
        if descending {
            items.reverse();
        }
        // Index the members in their sorted positions; a repeated member (never in a snapshot)
        // sends the pairs, in their input order again, to the general path. Below
        // INDEXED_FROM members no index is kept, so none is built: the members are compared.
        let index = if items.len() < INDEXED_FROM {
            let distinct = items
                .iter()
                .enumerate()
                .all(|(i, a)| items[i + 1..].iter().all(|b| a.1 != b.1));
            distinct.then(Vec::new)
        } else {
            bulk_index(&items).map(indexed)
        };
        match index {
            Some(slots) => ZSet::decoded(Full {
                sorted: items,
                slots,
            }),
            None => {
                if descending {
                    items.reverse();
                }
                Self::from_unordered(items)
            }
        }
    }

    /// [`ZSet::from_pairs`] for pairs in any order, repeated members included.
    fn from_unordered(items: Vec<(f64, Member)>) -> Self {
        let mut items: Vec<(f64, Member, u32)> = items
            .into_iter()
            .enumerate()
            .map(|(i, (s, m))| (s, m, i as u32))
            .collect();
        // Index every member by its input position; earlier copies of a repeated member
        // are marked dead.
        let mut slots = table_for(items.len());
        let mut dead = Vec::new();
        for i in 0..items.len() {
            let (slot, tag) = probe(&slots, &items[i].1, |p| &items[p].1);
            if slots[slot] != EMPTY {
                dead.push(slots[slot] as u32);
            }
            slots[slot] = tag | i as u64;
        }
        if !dead.is_empty() {
            dead.sort_unstable();
            items.retain(|it| dead.binary_search(&it.2).is_err());
        }
        // Members are now distinct, so any sort gives the one Redis order; this path is off
        // the load path (snapshots list members in order), so it takes the shared sort.
        crate::sort::sort_by(&mut items, |a, b| {
            score_key(a.0)
                .total_cmp(&score_key(b.0))
                .then_with(|| a.1.cmp(&b.1))
        });
        // Re-point the index from input positions to sorted positions (a repeated member's
        // slot already holds its last copy, so dead copies are not in the index).
        let mut sorted_pos = vec![u32::MAX; items.len() + dead.len()];
        for (pos, it) in items.iter().enumerate() {
            sorted_pos[it.2 as usize] = pos as u32;
        }
        for s in slots.iter_mut().filter(|s| **s != EMPTY) {
            let pos = sorted_pos[*s as u32 as usize];
            *s = if pos == u32::MAX {
                EMPTY
            } else {
                (*s & TAG) | pos as u64
            };
        }
        ZSet::decoded(Full {
            sorted: items.into_iter().map(|(s, m, _)| (s, m)).collect(),
            slots: indexed(slots),
        })
    }

    /// A set holding `full`, already decoded.
    fn decoded(full: Full) -> Self {
        ZSet {
            blob: None,
            len: full.sorted.len() as u32,
            full: Decoded(OnceBox::with_value(Box::new(full))),
            format: BlobFormat::default(),
            skiplist_record: false,
            stored_compact: false,
        }
    }

    /// A set from the listpack or ziplist blob a snapshot stored (RDB_TYPE_ZSET_LISTPACK /
    /// _ZIPLIST): member, score pairs, marked [`ZSet::stored_compact`]. Errors: a malformed
    /// blob, an odd number of elements, a score that is not a number.
    /// Pairs in strict Redis order with distinct members keep the blob (decoded on first
    /// read); any other blob is decoded now, as [`ZSet::from_pairs`] reads it.
    pub fn from_blob(blob: impl AsRef<[u8]>, format: BlobFormat) -> Result<ZSet, ZSetBlobError> {
        let blob = blob.as_ref();
        let items = format.decode(blob).map_err(ZSetBlobError::Blob)?;
        if items.len() % 2 != 0 {
            return Err(ZSetBlobError::OddLength(items.len()));
        }
        let mut pairs = Vec::with_capacity(items.len() / 2);
        for pair in items.chunks_exact(2) {
            let score = pair[1]
                .to_score()
                .ok_or_else(|| ZSetBlobError::Score(format!("{:?}", pair[1])))?;
            pairs.push((score, member_of(&pair[0])));
        }
        drop(items);
        let n = pairs.len();
        let ordered = pairs.windows(2).all(|w| order(&w[0], &w[1]).is_lt());
        let distinct = ordered && {
            let mut members: Vec<&[u8]> = pairs.iter().map(|p| &p.1[..]).collect();
            members.sort_unstable();
            members.windows(2).all(|w| w[0] != w[1])
        };
        let kept = (distinct && u32::try_from(n).is_ok())
            .then(|| Blob::new(blob))
            .flatten();
        let set = if let Some(blob) = kept {
            drop(pairs);
            ZSet {
                blob: Some(blob),
                full: Decoded::default(),
                len: n as u32,
                format,
                skiplist_record: false,
                stored_compact: false,
            }
        } else {
            ZSet::from_pairs(pairs.into_iter().map(|(s, m)| (m.into_vec(), s)))
        };
        Ok(set.with_stored_compact())
    }

    /// The set as a key's value: one tagged pointer to its blob while it is a non-empty blob
    /// kept undecoded with the usual flags (stored compact, not a skiplist record, its pair
    /// count in the blob's header), built back into this struct on its first read; boxed
    /// otherwise (issue 31).
    pub fn into_value(mut self) -> Lazy<ZSet> {
        let thin = self.full.get().is_none()
            && self.len > 0
            && self.stored_compact
            && !self.skiplist_record
            && self
                .blob
                .as_ref()
                .is_some_and(|b| self.format.header_count(b) == Some(2 * self.len as usize));
        match self.blob.take() {
            Some(blob) if thin => Lazy::blob(self.format as u8, blob),
            blob => {
                self.blob = blob;
                Lazy::boxed(self)
            }
        }
    }

    /// The decoded layout, decoding a kept blob on first use (validated when built, so it
    /// decodes; were it not, the set reads as empty rather than panic).
    fn full(&self) -> &Full {
        self.full.get_or_init(|| {
            let Some(blob) = &self.blob else {
                return Box::default();
            };
            let items = self.format.decode(blob).unwrap_or_default();
            let sorted: Vec<(f64, Member)> = items
                .chunks_exact(2)
                .map(|p| (p[1].to_score().unwrap_or(0.0), member_of(&p[0])))
                .collect();
            // Distinct members (checked when built): the index, when the set is big enough
            // to keep one, always builds.
            let slots = if sorted.len() < INDEXED_FROM {
                Vec::new()
            } else {
                bulk_index(&sorted).map(indexed).unwrap_or_default()
            };
            Box::new(Full { sorted, slots })
        })
    }

    /// Whether the server of `profile` holds the set as a listpack (ziplist on 6.x) once it
    /// has loaded it: at most `zset-max-listpack-entries` members, and, unless the snapshot
    /// stored it as one blob (converted by its count alone), none longer than
    /// `zset-max-listpack-value` bytes (rdbLoadObject of Redis 6.0–7.4, Valkey 8/9). The one
    /// rule behind OBJECT ENCODING, the memory price ([`crate::loaded::loaded`]) and the
    /// scores a load re-encodes ([`ZSet::loaded_score`]).
    pub fn loads_compact(&self, profile: &crate::dialect::Profile) -> bool {
        let (entries, value_len) = profile.zset_max_listpack;
        self.len() <= entries
            && (self.stored_compact || self.iter().all(|(m, _)| m.len() <= value_len))
    }

    /// Marks the set as loaded from a skiplist record (RDB_TYPE_ZSET / RDB_TYPE_ZSET_2).
    pub fn mark_skiplist_record(&mut self) {
        self.skiplist_record = true;
    }

    /// A stored score as the server of `profile` holds it after loading the set: a `-0` of a
    /// skiplist record that the server converts to a listpack at load (at most
    /// `zset-max-listpack-entries` members of at most `zset-max-listpack-value` bytes) is `0`
    /// where the profile says the listpack keeps such scores as integers (Redis 7.0+,
    /// Valkey: t_zset.c `zzlInsertAt` stores a score `double2ll` accepts as an integer);
    /// Redis 6.x keeps `d2string`'s `-0`, as it keeps `-0` read from a ziplist or listpack.
    pub fn loaded_score(&self, score: f64, profile: &crate::dialect::Profile) -> f64 {
        if score == 0.0
            && score.is_sign_negative()
            && self.skiplist_record
            && profile.zset_listpack_integer_scores
            && self.loads_compact(profile)
        {
            0.0
        } else {
            score
        }
    }

    /// Marks the set as stored in one compact blob (see [`ZSet::stored_compact`]).
    pub fn with_stored_compact(mut self) -> ZSet {
        self.stored_compact = true;
        self
    }

    /// Whether the snapshot stored the set as one ziplist or listpack blob.
    pub fn stored_compact(&self) -> bool {
        self.stored_compact
    }

    /// Bytes of the ziplist the set is kept as, when it is kept as its stored ziplist (a
    /// loader from 7.0 converts it to a listpack in an allocation of that size).
    pub fn kept_ziplist_bytes(&self) -> Option<usize> {
        match (&self.blob, self.format) {
            (Some(b), BlobFormat::Ziplist) => Some(b.len()),
            _ => None,
        }
    }

    /// Number of members (ZCARD).
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True when the set has no members.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The score of `member` (ZSCORE), if present.
    #[inline]
    pub fn score(&self, member: &[u8]) -> Option<f64> {
        self.position(member).map(|i| self.full().sorted[i].0)
    }

    /// The position of `member` in [`ZSet::sorted`] (its ZRANK), if present.
    pub fn position(&self, member: &[u8]) -> Option<usize> {
        let full = self.full();
        if full.slots.is_empty() {
            return full.sorted.iter().position(|(_, m)| &m[..] == member);
        }
        let (slot, _) = probe(&full.slots, member, |p| &full.sorted[p].1);
        let s = full.slots[slot];
        (s != EMPTY).then_some(s as u32 as usize)
    }

    /// Bytes of the set's own buffers (the kept blob, and the decoded layout once read; the
    /// struct itself not counted).
    pub fn heap_bytes(&self) -> usize {
        let full = self.full.get().map_or(0, |f| {
            std::mem::size_of::<Full>()
                + f.sorted.capacity() * std::mem::size_of::<(f64, Member)>()
                + f.sorted
                    .iter()
                    .filter(|(_, m)| m.spilled())
                    .map(|(_, m)| m.capacity())
                    .sum::<usize>()
                + f.slots.capacity() * 8
        });
        self.blob.as_ref().map_or(0, |b| b.len()) + full
    }

    /// The length in bytes of the longest member, 0 when empty; a kept blob is read without
    /// being decoded into the sorted layout.
    pub fn max_member_len(&self) -> usize {
        match (&self.blob, self.full.get()) {
            (Some(blob), None) => self
                .format
                .decode(blob)
                .unwrap_or_default()
                .chunks_exact(2)
                .map(|p| p[0].text_len())
                .max(),
            _ => self.sorted().iter().map(|(_, m)| m.len()).max(),
        }
        .unwrap_or(0)
    }

    /// Entries in Redis order: ascending score, ties by member bytes.
    pub fn sorted(&self) -> &[(f64, Member)] {
        &self.full().sorted
    }

    /// Iterates (member, score) in Redis order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], f64)> {
        self.sorted().iter().map(|(s, m)| (m.as_slice(), *s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_pairs_orders_by_score_then_member() {
        let z = ZSet::from_pairs(vec![
            (b"b".to_vec(), 1.0),
            (b"a".to_vec(), 1.0),
            (b"c".to_vec(), 0.5),
            (b"a".to_vec(), 2.0),
        ]);
        let order: Vec<&[u8]> = z.iter().map(|(m, _)| m).collect();
        assert_eq!(order, vec![&b"c"[..], b"b", b"a"]);
        assert_eq!(z.score(b"a"), Some(2.0));
        assert_eq!(z.score(b"b"), Some(1.0));
        assert_eq!(z.score(b"zz"), None);
        assert_eq!(z.position(b"c"), Some(0));
        assert_eq!(z.len(), 3);
        assert_eq!(ZSet::default().score(b"a"), None);
    }

    #[test]
    fn many_members_and_repeats() {
        let n = 20_000;
        let pairs = (0..n).map(|i| (format!("m{}", i % 15_000).into_bytes(), i as f64));
        let z = ZSet::from_pairs(pairs);
        assert_eq!(z.len(), 15_000);
        // The last score of each member wins.
        assert_eq!(z.score(b"m0"), Some(15_000.0));
        assert_eq!(z.score(b"m4999"), Some(19_999.0));
        assert_eq!(z.score(b"m5000"), Some(5_000.0));
        assert!(z.sorted().windows(2).all(|w| w[0].0 <= w[1].0));
        for (i, (s, m)) in z.sorted().iter().enumerate() {
            assert_eq!(z.position(m), Some(i));
            assert_eq!(z.score(m), Some(*s));
        }
    }

    #[test]
    fn ordered_inputs_skip_the_sort_and_keep_redis_order() {
        // Ascending (listpack order) and descending (skiplist order in an RDB file) input.
        let asc: Vec<(Vec<u8>, f64)> = (0..50_000)
            .map(|i| (format!("m{i:05}").into_bytes(), (i / 3) as f64))
            .collect();
        let desc: Vec<(Vec<u8>, f64)> = asc.iter().rev().cloned().collect();
        let (a, d) = (ZSet::from_pairs(asc.clone()), ZSet::from_pairs(desc));
        let shuffled = ZSet::from_pairs(
            asc.iter()
                .step_by(2)
                .chain(asc.iter().skip(1).step_by(2))
                .cloned(),
        );
        assert_eq!(a, d);
        assert_eq!(a, shuffled);
        for (i, (m, s)) in asc.iter().enumerate() {
            assert_eq!((a.sorted()[i].0, a.sorted()[i].1.to_vec()), (*s, m.clone()));
            assert_eq!(a.position(m), Some(i));
            assert_eq!(d.position(m), Some(i));
            assert_eq!(shuffled.position(m), Some(i));
        }
        assert_eq!(d.position(b"m50000"), None);
        // -0 and 0 tie and go by member, whichever order they come in.
        let z = ZSet::from_pairs(vec![(b"b".to_vec(), 0.0), (b"a".to_vec(), -0.0)]);
        let order: Vec<&[u8]> = z.iter().map(|(m, _)| m).collect();
        assert_eq!(order, vec![&b"a"[..], b"b"]);
    }

    #[test]
    fn repeated_members_in_ordered_input_keep_the_last_score() {
        // Ascending by score, but "a" comes twice: the general path takes over.
        let z = ZSet::from_pairs(vec![
            (b"a".to_vec(), 1.0),
            (b"b".to_vec(), 2.0),
            (b"a".to_vec(), 3.0),
        ]);
        let got: Vec<(&[u8], f64)> = z.iter().collect();
        assert_eq!(got, vec![(&b"b"[..], 2.0), (&b"a"[..], 3.0)]);
        // Descending, with an exact repeat.
        let z = ZSet::from_pairs(vec![
            (b"c".to_vec(), 5.0),
            (b"c".to_vec(), 5.0),
            (b"b".to_vec(), 4.0),
        ]);
        assert_eq!(z.len(), 2);
        assert_eq!(z.position(b"c"), Some(1));
        assert_eq!(z.position(b"b"), Some(0));
    }

    #[test]
    fn bulk_index_wraps_round_the_table_end() {
        // Find members whose home slot is the last slot of an 8-member table (16 slots), so
        // that some must wrap to the start.
        let mut tail: Vec<Vec<u8>> = (0..10_000u32)
            .map(|i| format!("w{i}").into_bytes())
            .filter(|m| home(hash(m), 16) >= 14)
            .take(5)
            .collect();
        tail.extend((0..3).map(|i| format!("x{i}").into_bytes()));
        let pairs: Vec<(Vec<u8>, f64)> = tail
            .iter()
            .enumerate()
            .map(|(i, m)| (m.clone(), i as f64))
            .collect();
        let z = ZSet::from_pairs(pairs);
        assert_eq!(z.full().slots.len(), 16);
        for (i, m) in tail.iter().enumerate() {
            assert_eq!(z.position(m), Some(i), "{}", String::from_utf8_lossy(m));
        }
        assert_eq!(z.position(b"absent"), None);
    }

    /// A listpack or ziplist blob of `pairs` as written.
    fn blob_of(pairs: &[(Vec<u8>, f64)], format: BlobFormat) -> Vec<u8> {
        use crate::encoded::blobs;
        let texts: Vec<Vec<u8>> = pairs.iter().map(|p| p.1.to_string().into_bytes()).collect();
        let mut items = Vec::new();
        for (p, t) in pairs.iter().zip(&texts) {
            let m = &p.0[..];
            items.push(match crate::num::parse_i64(m) {
                Some(i) if i.to_string().as_bytes() == m => Item::Int(i),
                _ => Item::Str(m),
            });
            items.push(match crate::num::parse_i64(t) {
                Some(i) if i.to_string().as_bytes() == &t[..] => Item::Int(i),
                _ => Item::Str(t),
            });
        }
        match format {
            BlobFormat::Listpack => blobs::listpack(&items),
            BlobFormat::Ziplist => blobs::ziplist(&items),
        }
    }

    #[test]
    fn a_stored_blob_reads_as_the_pairs_it_holds() {
        // Random blobs: in Redis order with distinct members (kept as the blob), shuffled,
        // or with a member repeated (decoded at once); every read equals from_pairs's.
        let mut rng = fastrand::Rng::with_seed(bitlens_testseed::seed());
        for round in 0..2000 {
            let n = rng.usize(0..40);
            let mut pairs: Vec<(Vec<u8>, f64)> = (0..n)
                .map(|_| {
                    let m = match rng.u8(..3) {
                        0 => rng.u32(..50).to_string().into_bytes(),
                        1 => format!("m{}", rng.u32(..50)).into_bytes(),
                        _ => vec![b'x'; rng.usize(10..30)],
                    };
                    let s = match rng.u8(..4) {
                        0 => rng.i32(-5..5) as f64,
                        1 => rng.f64() * 100.0 - 50.0,
                        2 => -0.0,
                        _ => f64::INFINITY,
                    };
                    (m, s)
                })
                .collect();
            let reference = ZSet::from_pairs(pairs.clone());
            let shape = rng.u8(..3);
            if shape == 0 {
                // As a server writes it: the reference's own order.
                pairs = reference.iter().map(|(m, s)| (m.to_vec(), s)).collect();
            } else if shape == 1 {
                rng.shuffle(&mut pairs);
            }
            let format = if rng.bool() {
                BlobFormat::Listpack
            } else {
                BlobFormat::Ziplist
            };
            let z = ZSet::from_blob(blob_of(&pairs, format), format).unwrap();
            // As a key's value: a kept blob stays one pointer until read, then reads the same.
            let value = ZSet::from_blob(blob_of(&pairs, format), format)
                .unwrap()
                .into_value();
            let thin = z.blob.is_some() && !z.is_empty();
            assert_eq!(value.peek_blob().is_some(), thin, "round {round}");
            let expected = ZSet::from_pairs(pairs.clone());
            assert!(z.stored_compact(), "round {round}");
            assert_eq!(z.len(), expected.len(), "round {round}: {pairs:?}");
            if shape == 0 {
                assert!(z.blob.is_some() && z.full.get().is_none(), "round {round}");
            }
            // Scores compared bit for bit: a -0 stays -0.
            let bits = |z: &ZSet| -> Vec<(u64, Member)> {
                z.sorted()
                    .iter()
                    .map(|(s, m)| (s.to_bits(), m.clone()))
                    .collect()
            };
            assert_eq!(bits(&z), bits(&expected), "round {round}: {pairs:?}");
            assert_eq!(bits(&value), bits(&expected), "round {round}: {pairs:?}");
            assert_eq!(value.len(), z.len(), "round {round}");
            assert!(value.stored_compact(), "round {round}");
            assert_eq!(
                value.kept_ziplist_bytes(),
                z.kept_ziplist_bytes(),
                "round {round}"
            );
            for (m, _) in &pairs {
                assert_eq!(z.score(m), expected.score(m), "round {round}");
                assert_eq!(z.position(m), expected.position(m), "round {round}");
            }
            assert_eq!(z.position(b"absent"), None);
        }
    }

    #[test]
    fn a_bad_blob_is_refused_with_its_reason() {
        let odd = crate::encoded::blobs::listpack(&[Item::Str(b"a")]);
        assert_eq!(
            ZSet::from_blob(odd, BlobFormat::Listpack),
            Err(ZSetBlobError::OddLength(1))
        );
        let nan = crate::encoded::blobs::listpack(&[Item::Str(b"a"), Item::Str(b"nope")]);
        assert_eq!(
            ZSet::from_blob(nan, BlobFormat::Listpack),
            Err(ZSetBlobError::Score("Str([110, 111, 112, 101])".into()))
        );
        assert!(matches!(
            ZSet::from_blob(vec![1, 2, 3], BlobFormat::Ziplist),
            Err(ZSetBlobError::Blob(_))
        ));
    }
}
