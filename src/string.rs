//! The Redis string value. Redis stores bitmaps and HyperLogLogs as plain strings; bitlens keeps
//! their bytes exactly as Redis does (bit 0 = most significant bit of byte 0). Integer-encoded
//! strings are held as their decimal text, which is what every string command acts on.
//!
//! Representation (private, chosen per key): plain bytes, or — for strings of at least
//! [`SPARSE_MIN_BYTES`] whose non-zero 4 KiB pages are at most a quarter of the total — a
//! [`SparseBitmap`] that stores only the non-zero pages, so a 512 MiB string with one bit set
//! costs one page. Plain bytes sit inside the value up to [`INLINE_BYTES`], in one exact-size
//! [`Blob`] while never written (a loaded snapshot's strings), and in a growable buffer once
//! written (issue 31: the value stays 16 bytes). The bit-level methods (`get_bit`, `count_bits`, `find_bit`, `bitop`, ...)
//! answer without materialising; [`RedisString::as_bytes`] materialises a sparse string.

pub mod roaring;

use std::borrow::Cow;

use crate::bitmap::sparse::{Source, SparseBitmap, PAGE};
use crate::bitmap::{self, BitOp};
use crate::thin::Blob;

/// Strings shorter than this (64 KiB) are always kept as plain bytes.
pub const SPARSE_MIN_BYTES: u64 = 64 * 1024;

/// Strings of at most this many bytes are held inside the value itself (no heap buffer): a
/// snapshot's many small strings (names, counters, flags) cost no allocation (issue 31).
pub const INLINE_BYTES: usize = 14;

/// Built strings of at most this many bytes are copied into one exact-size [`Blob`]; longer
/// ones keep the buffer they were built in (a copy of a large bitmap would cost more than
/// the few bytes it saves).
const FROZEN_COPY_MAX: usize = 4096;

/// The representation, 16 bytes, so that a key's [`crate::keyspace::Value`] is 16 bytes too:
/// - `Inline`: at most [`INLINE_BYTES`] bytes inside the value;
/// - `Frozen`: bytes as built (loaded), never written, in one exact-size allocation;
/// - `Dense`, `Sparse`: a heap buffer or the non-zero pages, with the string's "written in
///   this session" flag (see [`RedisString::mark_rewritten`]). Writing an inline or frozen
///   string first moves it to `Dense`, so those two are never marked.
#[derive(Debug, Clone)]
enum Repr {
    Inline { len: u8, bytes: [u8; INLINE_BYTES] },
    Frozen(Blob),
    Dense(Box<Written<Vec<u8>>>),
    Sparse(Box<Written<SparseBitmap>>),
}

/// A heap form and its "written in this session" flag.
#[derive(Debug, Clone)]
struct Written<T> {
    rewritten: bool,
    data: T,
}

impl<T> Written<T> {
    fn boxed(rewritten: bool, data: T) -> Box<Self> {
        Box::new(Written { rewritten, data })
    }
}

/// A read-only view of a [`Repr`]: the bytes (inline or heap) or the sparse pages.
enum View<'a> {
    Dense(&'a [u8]),
    Sparse(&'a SparseBitmap),
}

/// A Redis string value (binary safe). Length is in bytes.
#[derive(Debug, Clone)]
pub struct RedisString {
    repr: Repr,
}

impl Default for RedisString {
    fn default() -> Self {
        RedisString::inline(&[])
    }
}

impl PartialEq for RedisString {
    fn eq(&self, other: &Self) -> bool {
        match (self.view(), other.view()) {
            (View::Dense(a), View::Dense(b)) => a == b,
            _ => self.len() == other.len() && self.as_bytes() == other.as_bytes(),
        }
    }
}

impl Eq for RedisString {}

/// True when a string of `len` bytes with `stored_pages` non-zero pages should be sparse.
fn sparse_pays(len: u64, stored_pages: u64) -> bool {
    len >= SPARSE_MIN_BYTES && stored_pages * 4 <= len.div_ceil(PAGE as u64)
}

impl RedisString {
    /// An inline string; `bytes` is at most [`INLINE_BYTES`] long.
    fn inline(bytes: &[u8]) -> Self {
        let mut b = [0u8; INLINE_BYTES];
        b[..bytes.len()].copy_from_slice(bytes);
        RedisString {
            repr: Repr::Inline {
                len: bytes.len() as u8,
                bytes: b,
            },
        }
    }

    /// A plain string: inline when short enough, else one exact-size blob (at most
    /// [`FROZEN_COPY_MAX`] bytes), else the buffer given.
    fn plain(bytes: Vec<u8>) -> Self {
        if bytes.len() <= FROZEN_COPY_MAX {
            return Self::copied(&bytes);
        }
        RedisString {
            repr: Repr::Dense(Written::boxed(false, bytes)),
        }
    }

    /// A plain string holding a copy of `bytes`: inline when short enough, else an
    /// exact-size blob up to [`FROZEN_COPY_MAX`] bytes, else a growable buffer (so that the
    /// first SETBIT or PFADD on a long loaded bitmap writes in place, not on a full copy).
    /// Not inlined (the wasm module's size).
    #[inline(never)]
    fn copied(bytes: &[u8]) -> Self {
        if bytes.len() <= INLINE_BYTES {
            return Self::inline(bytes);
        }
        if bytes.len() > FROZEN_COPY_MAX {
            return RedisString {
                repr: Repr::Dense(Written::boxed(false, bytes.to_vec())),
            };
        }
        let repr = match Blob::new(bytes) {
            Some(b) => Repr::Frozen(b),
            None => Repr::Dense(Written::boxed(false, bytes.to_vec())),
        };
        RedisString { repr }
    }

    fn view(&self) -> View<'_> {
        match &self.repr {
            Repr::Inline { len, bytes } => View::Dense(&bytes[..*len as usize]),
            Repr::Frozen(b) => View::Dense(b),
            Repr::Dense(d) => View::Dense(&d.data),
            Repr::Sparse(s) => View::Sparse(&s.data),
        }
    }

    /// The heap buffer, an inline or frozen string moved into one first (for writes).
    fn dense_mut(&mut self) -> Option<&mut Vec<u8>> {
        let moved = match &self.repr {
            Repr::Inline { len, bytes } => Some(bytes[..*len as usize].to_vec()),
            Repr::Frozen(b) => Some(b.to_vec()),
            _ => None,
        };
        if let Some(v) = moved {
            self.repr = Repr::Dense(Written::boxed(false, v));
        }
        match &mut self.repr {
            Repr::Dense(d) => Some(&mut d.data),
            _ => None,
        }
    }

    /// Marks the string as written in this session, as Redis' `dbUnshareStringValue` leaves
    /// it: OBJECT ENCODING then says `raw` whatever the length or content (recorded on Redis
    /// 6.2.14 / 7.0.15 and Valkey 8.1.8 / 9.1.2 after SETBIT, BITFIELD SET, BITOP's
    /// destination, PFADD, PFMERGE's destination and a one-key PFCOUNT, even with a valid
    /// cached cardinality). A string as loaded from a snapshot is not marked.
    pub fn mark_rewritten(&mut self) {
        self.dense_mut();
        match &mut self.repr {
            Repr::Dense(d) => d.rewritten = true,
            Repr::Sparse(s) => s.rewritten = true,
            Repr::Inline { .. } | Repr::Frozen(_) => unreachable!("moved to the heap above"),
        }
    }

    /// Whether [`RedisString::mark_rewritten`] was called.
    pub fn rewritten(&self) -> bool {
        match &self.repr {
            Repr::Dense(d) => d.rewritten,
            Repr::Sparse(s) => s.rewritten,
            Repr::Inline { .. } | Repr::Frozen(_) => false,
        }
    }

    /// A string holding exactly `bytes`. Long, mostly-zero strings are stored sparse; short
    /// ones (at most [`INLINE_BYTES`]) inside the value.
    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        let mut s = Self::plain(bytes);
        s.compact();
        s
    }

    /// A string holding a copy of `bytes`. A long, mostly-zero input is stored sparse
    /// without ever copying it whole (for loaders reading raw strings out of a file).
    pub fn from_slice(bytes: &[u8]) -> Self {
        let len = bytes.len() as u64;
        if len >= SPARSE_MIN_BYTES {
            let nonzero = |p: &&[u8]| p.iter().any(|&b| b != 0);
            let stored = bytes.chunks(PAGE).filter(nonzero).count() as u64;
            if sparse_pays(len, stored) {
                let mut sp = SparseBitmap::zeros(len);
                for (i, page) in bytes.chunks(PAGE).enumerate() {
                    if nonzero(&page) {
                        sp.write((i * PAGE) as u64, page);
                    }
                }
                return Self::from_sparse(sp);
            }
        }
        Self::copied(bytes)
    }

    /// A string of `len_bytes` bytes whose set bits are exactly `bits` (bit offsets, Redis
    /// numbering); the length grows if a bit lies past `len_bytes`. Stored sparse when that
    /// pays, without ever allocating the full length. For loaders of sparse data (RDB, Roaring).
    pub fn from_sparse_bits(len_bytes: u64, bits: impl IntoIterator<Item = u64>) -> Self {
        // Gather bits page by page and OR each page in once (any input order works).
        let mut sp = SparseBitmap::zeros(len_bytes);
        let mut page = [0u8; PAGE];
        let mut current: Option<u64> = None;
        let page_bits = PAGE as u64 * 8;
        for b in bits {
            let p = b / page_bits;
            if current != Some(p) {
                if let Some(c) = current {
                    sp.or_bytes(c * PAGE as u64, &page);
                    page = [0u8; PAGE];
                }
                current = Some(p);
            }
            bitmap::set_bit(&mut page, b % page_bits, true);
            sp.grow((b >> 3) + 1);
        }
        if let Some(c) = current {
            let len = sp.len();
            let n = (len - c * PAGE as u64).min(PAGE as u64) as usize;
            sp.or_bytes(c * PAGE as u64, &page[..n]);
        }
        Self::from_sparse(sp)
    }

    /// Wraps a [`SparseBitmap`], converting it to plain bytes when it is not sparse enough.
    pub fn from_sparse(sp: SparseBitmap) -> Self {
        let mut s = RedisString {
            repr: Repr::Sparse(Written::boxed(false, sp)),
        };
        s.normalize();
        s
    }

    /// Length in bytes, as Redis STRLEN.
    pub fn len(&self) -> u64 {
        match &self.repr {
            Repr::Inline { len, .. } => *len as u64,
            Repr::Frozen(b) => b.len() as u64,
            Repr::Dense(d) => d.data.len() as u64,
            Repr::Sparse(s) => s.data.len(),
        }
    }

    /// True when the string has zero bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when the string is stored sparse (only its non-zero pages).
    pub fn is_sparse(&self) -> bool {
        matches!(self.repr, Repr::Sparse(..))
    }

    /// Heap bytes held by the value (the full length when dense, stored pages when sparse).
    pub fn heap_bytes(&self) -> usize {
        match &self.repr {
            Repr::Inline { .. } => 0,
            Repr::Frozen(b) => b.len(),
            Repr::Dense(d) => d.data.capacity(),
            Repr::Sparse(s) => s.data.heap_bytes(),
        }
    }

    /// The sparse form, when the string is stored sparse.
    pub fn as_sparse(&self) -> Option<&SparseBitmap> {
        match self.view() {
            View::Sparse(s) => Some(s),
            View::Dense(_) => None,
        }
    }

    /// The full byte content (may materialise a sparse string).
    pub fn as_bytes(&self) -> Cow<'_, [u8]> {
        match self.view() {
            View::Dense(v) => Cow::Borrowed(v),
            View::Sparse(s) => Cow::Owned(s.to_dense()),
        }
    }

    /// Mutable access to the full byte content (a sparse string becomes dense).
    pub fn bytes_mut(&mut self) -> &mut Vec<u8> {
        if let Repr::Sparse(s) = &self.repr {
            self.repr = Repr::Dense(Written::boxed(s.rewritten, s.data.to_dense()));
        }
        self.dense_mut().expect("converted to dense above")
    }

    /// Consumes the value and returns its bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        match self.repr {
            Repr::Inline { len, bytes } => bytes[..len as usize].to_vec(),
            Repr::Frozen(b) => b.to_vec(),
            Repr::Dense(d) => d.data,
            Repr::Sparse(s) => s.data.to_dense(),
        }
    }

    /// Switches a long, mostly-zero dense string to the sparse form (no-op otherwise).
    pub fn compact(&mut self) {
        if let Repr::Dense(d) = &self.repr {
            let v = &d.data;
            let len = v.len() as u64;
            if len < SPARSE_MIN_BYTES {
                return;
            }
            let limit = len.div_ceil(PAGE as u64) / 4;
            let mut nonzero = 0u64;
            for chunk in v.chunks(PAGE) {
                if bitmap::find_bit_in_bytes(chunk, true).is_some() {
                    nonzero += 1;
                    if nonzero > limit {
                        return;
                    }
                }
            }
            self.repr = Repr::Sparse(Written::boxed(d.rewritten, SparseBitmap::from_dense(v)));
        }
    }

    /// Switches a sparse string that has filled up to plain bytes.
    fn normalize(&mut self) {
        if let Repr::Sparse(s) = &self.repr {
            if !sparse_pays(s.data.len(), s.data.stored_pages() as u64 / 2) {
                self.repr = Repr::Dense(Written::boxed(s.rewritten, s.data.to_dense()));
            }
        }
    }

    /// Bytes `[start, end]` (inclusive, clamped to the string), as GETRANGE after its index
    /// conversion.
    pub fn range(&self, start: u64, end: u64) -> Vec<u8> {
        let len = self.len();
        if start > end || start >= len {
            return Vec::new();
        }
        let end = end.min(len - 1);
        match self.view() {
            View::Dense(v) => v[start as usize..=end as usize].to_vec(),
            View::Sparse(s) => {
                let mut out = vec![0u8; (end - start + 1) as usize];
                s.read(start, &mut out);
                out
            }
        }
    }

    /// The bit at `offset` (0 past the end), as GETBIT.
    pub fn get_bit(&self, offset: u64) -> bool {
        match self.view() {
            View::Dense(v) => bitmap::get_bit(v, offset),
            View::Sparse(s) => s.get_bit(offset),
        }
    }

    /// Set bits in the whole string.
    pub fn popcount(&self) -> u64 {
        match self.view() {
            View::Dense(v) => bitmap::popcount(v),
            View::Sparse(s) => s.popcount(),
        }
    }

    /// Set bits in the inclusive bit range `[start_bit, end_bit]` (bits past the end are 0).
    pub fn count_bits(&self, start_bit: u64, end_bit: u64) -> u64 {
        match self.view() {
            View::Dense(v) => bitmap::count_bits(v, start_bit, end_bit),
            View::Sparse(s) => s.count_bits(start_bit, end_bit),
        }
    }

    /// First bit equal to `bit` in the inclusive bit range, not looking past the end.
    pub fn find_bit(&self, bit: bool, start_bit: u64, end_bit: u64) -> Option<u64> {
        match self.view() {
            View::Dense(v) => bitmap::find_bit(v, bit, start_bit, end_bit),
            View::Sparse(s) => s.find_bit(bit, start_bit, end_bit),
        }
    }

    /// Calls `f` with the offset of every set bit, in increasing order, word at a time.
    pub fn for_each_set_bit(&self, mut f: impl FnMut(u64)) {
        fn scan(bytes: &[u8], base: u64, f: &mut impl FnMut(u64)) {
            let mut chunks = bytes.chunks_exact(8);
            let mut at = base;
            for c in &mut chunks {
                let mut w = u64::from_be_bytes(c.try_into().unwrap());
                while w != 0 {
                    let lz = w.leading_zeros() as u64;
                    f(at + lz);
                    w &= !(1u64 << (63 - lz));
                }
                at += 64;
            }
            for &b in chunks.remainder() {
                let mut w = b;
                while w != 0 {
                    let lz = w.leading_zeros() as u64;
                    f(at + lz);
                    w &= !(0x80u8 >> lz);
                }
                at += 8;
            }
        }
        match self.view() {
            View::Dense(v) => scan(v, 0, &mut f),
            View::Sparse(s) => {
                for (p, page) in s.pages() {
                    scan(&page[..], p * PAGE as u64 * 8, &mut f);
                }
            }
        }
    }

    /// Grows the string with zero bytes so that bit `max_bit` exists (Redis pads strings this
    /// way before SETBIT / BITFIELD writes). A large growth of a short string goes sparse.
    pub fn grow_to_bit(&mut self, max_bit: u64) {
        let need = (max_bit >> 3) + 1;
        let len = self.len();
        if need <= len {
            return;
        }
        self.dense_mut();
        match &mut self.repr {
            Repr::Dense(d) if need >= SPARSE_MIN_BYTES && need > len * 4 => {
                let mut s = SparseBitmap::from_dense(&d.data);
                s.grow(need);
                self.repr = Repr::Sparse(Written::boxed(d.rewritten, s));
            }
            Repr::Dense(d) => d.data.resize(need as usize, 0),
            Repr::Sparse(s) => s.data.grow(need),
            Repr::Inline { .. } | Repr::Frozen(_) => unreachable!("moved to the heap above"),
        }
    }

    /// Sets bit `offset` (growing the string as needed) and returns the previous bit, as SETBIT.
    pub fn set_bit(&mut self, offset: u64, value: bool) -> bool {
        self.grow_to_bit(offset);
        self.dense_mut();
        let old = match &mut self.repr {
            Repr::Dense(d) => bitmap::set_bit(&mut d.data, offset, value),
            Repr::Sparse(s) => s.data.set_bit(offset, value),
            Repr::Inline { .. } | Repr::Frozen(_) => unreachable!("moved to the heap above"),
        };
        self.normalize();
        old
    }

    /// The unsigned `bits`-bit field (1..=64) at bit `offset` (bits past the end read as 0).
    pub fn read_field(&self, offset: u64, bits: u32) -> u64 {
        match self.view() {
            View::Dense(v) => bitmap::read_field(v, offset, bits),
            View::Sparse(s) => {
                let mut buf = [0u8; 9];
                s.read(offset >> 3, &mut buf);
                bitmap::read_field(&buf, offset & 7, bits)
            }
        }
    }

    /// Writes the low `bits` bits of `value` at bit `offset`, growing the string as needed.
    pub fn write_field(&mut self, offset: u64, bits: u32, value: u64) {
        self.grow_to_bit(offset + bits as u64 - 1);
        self.dense_mut();
        match &mut self.repr {
            Repr::Inline { .. } | Repr::Frozen(_) => unreachable!("moved to the heap above"),
            Repr::Dense(d) => bitmap::write_field(&mut d.data, offset, bits, value),
            Repr::Sparse(s) => {
                let s = &mut s.data;
                let span = ((offset & 7) + bits as u64).div_ceil(8) as usize;
                let mut buf = [0u8; 9];
                s.read(offset >> 3, &mut buf[..span]);
                bitmap::write_field(&mut buf[..span], offset & 7, bits, value);
                s.write(offset >> 3, &buf[..span]);
            }
        }
        self.normalize();
    }

    /// BITOP `op` over `srcs` (`None` = missing key, read as empty). The result's length is the
    /// longest source's. `srcs` must not be empty. With a sparse source the result is built page
    /// by page (and is sparse when that pays); NOT of a sparse source is dense, as it is mostly
    /// ones.
    pub fn bitop(op: BitOp, srcs: &[Option<&RedisString>]) -> RedisString {
        let sources: Vec<Source<'_>> = srcs
            .iter()
            .map(|s| match s.map(|s| s.view()) {
                None => Source::Dense(&[]),
                Some(View::Dense(v)) => Source::Dense(v),
                Some(View::Sparse(sp)) => Source::Sparse(sp),
            })
            .collect();
        let any_sparse = sources.iter().any(|s| matches!(s, Source::Sparse(_)));
        if !any_sparse {
            let slices: Vec<&[u8]> = sources
                .iter()
                .map(|s| match s {
                    Source::Dense(d) => *d,
                    Source::Sparse(_) => unreachable!("no sparse source"),
                })
                .collect();
            return match crate::bitmap::sparse::bitop_plain(op, &slices, SPARSE_MIN_BYTES) {
                Ok(sp) => Self::from_sparse(sp),
                Err(bytes) => RedisString::from_bytes(bytes),
            };
        }
        if op == BitOp::Not {
            let mut v = match sources[0] {
                Source::Sparse(sp) => sp.to_dense(),
                Source::Dense(d) => d.to_vec(),
            };
            bitmap::bitop_not_in_place(&mut v);
            return RedisString::plain(v);
        }
        Self::from_sparse(SparseBitmap::bitop(op, &sources))
    }
}

/// Builds a string from pieces written at byte offsets, storing only non-zero 4 KiB pages, so
/// that a decoder (RDB LZF, Roaring, a streamed raw string) can produce a huge mostly-zero
/// string without allocating its full length. Bytes never written are zero. As soon as more
/// than a quarter of the string's pages hold a set bit (so it can no longer end up sparse),
/// the builder switches to one full-length buffer and later pieces are copied straight into
/// their final place.
#[derive(Debug, Default)]
pub struct StringBuilder {
    sparse: SparseBitmap,
    /// The buffer once the string is known to be dense: as long as the bytes written so far
    /// reach (it grows with the writes, never allocated at the declared length before its
    /// bytes arrive), zero-extended to `len` by [`StringBuilder::finish`].
    dense: Option<Vec<u8>>,
    /// The declared length once dense (the sparse form's length before that).
    len: u64,
}

impl StringBuilder {
    /// A builder for a string of `len_bytes` bytes (it grows if writes go past it).
    pub fn new(len_bytes: u64) -> Self {
        StringBuilder {
            sparse: SparseBitmap::zeros(len_bytes),
            dense: None,
            len: len_bytes,
        }
    }

    /// Copies `bytes` to byte offset `at`.
    pub fn write(&mut self, at: u64, bytes: &[u8]) {
        if let Some(d) = &mut self.dense {
            let (at, end) = (at as usize, at as usize + bytes.len());
            if d.len() < end {
                d.resize(end, 0);
            }
            d[at..end].copy_from_slice(bytes);
            return;
        }
        self.sparse.write(at, bytes);
        if !sparse_pays(self.sparse.len(), self.sparse.stored_pages() as u64)
            && self.sparse.len() <= usize::MAX as u64
        {
            self.go_plain();
        }
    }

    /// Too many non-zero pages for the paged form: plain for the rest, in a buffer as long as
    /// the pages written reach. Out of line (once per string; the wasm module's size).
    #[cold]
    #[inline(never)]
    fn go_plain(&mut self) {
        let sparse = std::mem::take(&mut self.sparse);
        self.len = sparse.len();
        self.dense = Some(sparse.to_dense_upto(u64::MAX));
    }

    /// Reads back bytes from offset `at` into `out` (for decoders that copy from earlier
    /// output, like LZF back-references).
    pub fn read(&self, at: u64, out: &mut [u8]) {
        match &self.dense {
            Some(d) => {
                out.fill(0);
                let from = (at as usize).min(d.len());
                let n = out.len().min(d.len() - from);
                out[..n].copy_from_slice(&d[from..from + n]);
            }
            None => self.sparse.read(at, out),
        }
    }

    /// The finished string, sparse or dense, whichever pays.
    pub fn finish(self) -> RedisString {
        match self.dense {
            Some(mut d) => {
                if (d.len() as u64) < self.len {
                    d.resize(self.len as usize, 0);
                }
                RedisString::from_bytes(d)
            }
            None => RedisString::from_sparse(self.sparse),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitmap::tests::Rng;
    use crate::command::execute_str;
    use crate::keyspace::{Keyspace, Value};
    use crate::reply::Reply;
    use crate::string::roaring::{from_roaring, to_roaring};

    /// A random mostly-zero string: a few runs of random bytes in a long zero string.
    fn sparse_bytes(r: &mut Rng, len: usize) -> Vec<u8> {
        let mut v = vec![0u8; len];
        for _ in 0..r.below(6) {
            let at = r.below(len as u64) as usize;
            let run = r.bytes(3000);
            let n = run.len().min(len - at);
            v[at..at + n].copy_from_slice(&run[..n]);
        }
        v
    }

    #[test]
    fn short_strings_are_frozen_long_ones_keep_a_buffer() {
        let short = RedisString::from_slice(&[7u8; FROZEN_COPY_MAX]);
        assert!(matches!(short.repr, Repr::Frozen(_)));
        let mut long = RedisString::from_slice(&[7u8; FROZEN_COPY_MAX + 1]);
        assert!(matches!(long.repr, Repr::Dense(_)));
        // The first write lands in the buffer the string was built in.
        let before = match &long.repr {
            Repr::Dense(d) => d.data.as_ptr(),
            _ => unreachable!(),
        };
        assert!(long.set_bit(5, false), "bit 5 of 0x07 is set");
        match &long.repr {
            Repr::Dense(d) => assert_eq!(d.data.as_ptr(), before),
            _ => panic!("still dense"),
        }
        assert_eq!(long.as_bytes()[0], 0x03);
        assert_eq!(long.len(), FROZEN_COPY_MAX as u64 + 1);
    }

    #[test]
    fn sparse_and_dense_answer_alike() {
        let mut r = Rng::new(11);
        for round in 0..20 {
            let len = SPARSE_MIN_BYTES as usize + 200_000 + r.below(400_000) as usize;
            let bytes = sparse_bytes(&mut r, len);
            let s = RedisString::from_bytes(bytes.clone());
            assert!(s.is_sparse(), "round {round}");
            assert_eq!(s.len(), len as u64);
            assert_eq!(&*s.as_bytes(), &bytes[..]);
            assert_eq!(s.popcount(), bitmap::popcount(&bytes));
            for _ in 0..50 {
                let n = len as u64 * 8 + 100;
                let (a, b) = (r.below(n), r.below(n));
                assert_eq!(s.count_bits(a, b), bitmap::count_bits(&bytes, a, b));
                for bit in [false, true] {
                    assert_eq!(s.find_bit(bit, a, b), bitmap::find_bit(&bytes, bit, a, b));
                }
                assert_eq!(s.get_bit(a), bitmap::get_bit(&bytes, a));
                let bits = 1 + r.below(64) as u32;
                assert_eq!(s.read_field(a, bits), bitmap::read_field(&bytes, a, bits));
                let (x, y) = (r.below(len as u64 + 10), r.below(len as u64 + 10));
                let want = if x <= y && x < len as u64 {
                    bytes[x as usize..=(y.min(len as u64 - 1)) as usize].to_vec()
                } else {
                    Vec::new()
                };
                assert_eq!(s.range(x, y), want);
            }
            // Writes keep both forms equal.
            let (mut sp, mut de) = (s.clone(), bytes.clone());
            for _ in 0..50 {
                let off = r.below(len as u64 * 8 + 5000);
                let bits = 1 + r.below(64) as u32;
                let v = r.next();
                sp.write_field(off, bits, v);
                let need = ((off + bits as u64 - 1) / 8 + 1) as usize;
                if de.len() < need {
                    de.resize(need, 0);
                }
                bitmap::write_field(&mut de, off, bits, v);
                let off = r.below(len as u64 * 8 + 5000);
                let val = r.below(2) == 1;
                let old = sp.set_bit(off, val);
                if de.len() <= (off / 8) as usize {
                    de.resize((off / 8) as usize + 1, 0);
                }
                assert_eq!(old, bitmap::set_bit(&mut de, off, val));
            }
            assert_eq!(&*sp.as_bytes(), &de[..]);
        }
    }

    #[test]
    fn sparse_bitop_matches_dense() {
        let mut r = Rng::new(12);
        let ops = BitOp::ALL;
        for _ in 0..30 {
            let n = 1 + r.below(4) as usize;
            let data: Vec<Vec<u8>> = (0..n)
                .map(|_| {
                    if r.below(3) == 0 {
                        r.bytes(5000)
                    } else {
                        let len = SPARSE_MIN_BYTES as usize + r.below(200_000) as usize;
                        sparse_bytes(&mut r, len)
                    }
                })
                .collect();
            let strings: Vec<RedisString> = data
                .iter()
                .map(|d| RedisString::from_bytes(d.clone()))
                .collect();
            let mut srcs: Vec<Option<&RedisString>> = strings.iter().map(Some).collect();
            srcs.push(None);
            let slices: Vec<&[u8]> = data.iter().map(|d| d.as_slice()).chain([&[][..]]).collect();
            for op in ops {
                let k = if op == BitOp::Not { 1 } else { srcs.len() };
                let got = RedisString::bitop(op, &srcs[..k]);
                assert_eq!(
                    &*got.as_bytes(),
                    &bitmap::bitop(op, &slices[..k])[..],
                    "{op:?}"
                );
            }
        }
    }

    #[test]
    fn huge_sparse_keys_never_allocate_their_length() {
        let mut ks = Keyspace::new();
        // Ten bits near 2^27: a 16 MiB string in Redis.
        let bits: Vec<u64> = (0..10).map(|i| (1 << 27) + i * 977).collect();
        let len = bits[9] / 8 + 1;
        let s = RedisString::from_sparse_bits(len, bits.iter().copied());
        assert!(s.is_sparse());
        assert!(s.heap_bytes() <= 2 * PAGE, "{} bytes", s.heap_bytes());
        ks.set(b"s16m", Value::String(s));
        // One bit at 2^32 - 1: a 512 MiB string in Redis.
        let one = RedisString::from_sparse_bits(1 << 29, [u32::MAX as u64]);
        assert!(one.heap_bytes() <= PAGE);
        ks.set(b"s512m", Value::String(one));
        let q = |ks: &mut Keyspace, argv: &[&str]| execute_str(ks, argv);
        assert_eq!(q(&mut ks, &["STRLEN", "s512m"]), Reply::Integer(1 << 29));
        assert_eq!(q(&mut ks, &["BITCOUNT", "s16m"]), Reply::Integer(10));
        assert_eq!(
            q(&mut ks, &["BITCOUNT", "s512m", "0", "-1", "BIT"]),
            Reply::Integer(1)
        );
        assert_eq!(
            q(&mut ks, &["BITCOUNT", "s512m", "-1", "-1"]),
            Reply::Integer(1)
        );
        assert_eq!(
            q(&mut ks, &["BITPOS", "s16m", "1"]),
            Reply::Integer(1 << 27)
        );
        assert_eq!(
            q(&mut ks, &["BITPOS", "s512m", "1"]),
            Reply::Integer(u32::MAX as i64)
        );
        assert_eq!(
            q(&mut ks, &["BITPOS", "s512m", "0", "-1"]),
            Reply::Integer((1i64 << 32) - 8)
        );
        assert_eq!(
            q(&mut ks, &["GETBIT", "s512m", "4294967295"]),
            Reply::Integer(1)
        );
        assert_eq!(
            q(&mut ks, &["GETBIT", "s16m", &bits[3].to_string()]),
            Reply::Integer(1)
        );
        assert_eq!(
            q(&mut ks, &["BITOP", "OR", "dst", "s16m", "s512m"]),
            Reply::Integer(1 << 29)
        );
        assert_eq!(q(&mut ks, &["BITCOUNT", "dst"]), Reply::Integer(11));
        assert_eq!(
            q(&mut ks, &["BITOP", "AND", "dst2", "s16m", "s512m"]),
            Reply::Integer(1 << 29)
        );
        assert_eq!(q(&mut ks, &["BITPOS", "dst2", "1"]), Reply::Integer(-1));
        for k in ["dst", "dst2"] {
            let Some(Value::String(s)) = ks.get(k.as_bytes()) else {
                panic!()
            };
            assert!(s.heap_bytes() <= 2 * PAGE, "{k}: {} bytes", s.heap_bytes());
        }
        // SETBIT far out on a new key stays small too.
        assert_eq!(
            q(&mut ks, &["SETBIT", "new", "4294967295", "1"]),
            Reply::Integer(0)
        );
        let Some(Value::String(s)) = ks.get(b"new") else {
            panic!()
        };
        assert!(s.heap_bytes() <= PAGE);
        assert_eq!(
            q(&mut ks, &["BITFIELD", "new", "GET", "u8", "4294967288"]),
            Reply::Array(vec![Reply::Integer(1)])
        );
    }

    #[test]
    fn roaring_round_trip() {
        let mut r = Rng::new(13);
        for _ in 0..20 {
            let len = r.below(100_000) as usize;
            let bytes = if r.below(2) == 0 {
                r.bytes(len as u64)
            } else {
                sparse_bytes(&mut r, len.max(1))
            };
            let s = RedisString::from_bytes(bytes.clone());
            let ser = to_roaring(&s).unwrap();
            let back = from_roaring(&ser).unwrap();
            // The Roaring set has no length: the string ends at the highest set bit's byte.
            let last = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
            assert_eq!(&*back.as_bytes(), &bytes[..last]);
            let mut bits = Vec::new();
            s.for_each_set_bit(|b| bits.push(b));
            let rb = ::roaring::RoaringBitmap::deserialize_from(&ser[..]).unwrap();
            assert_eq!(rb.iter().map(u64::from).collect::<Vec<_>>(), bits);
        }
        assert!(from_roaring(b"\x01\x02\x03").is_err());
        assert!(from_roaring(b"").is_err());
        let one = from_roaring(
            &to_roaring(&RedisString::from_sparse_bits(0, [u32::MAX as u64])).unwrap(),
        )
        .unwrap();
        assert_eq!(one.len(), 1 << 29);
        assert!(one.is_sparse());
    }
}
