//! Paged representation of sparse bitmaps: a string of `len` bytes cut into 4 KiB pages (32,768
//! bits each), of which only pages holding a set bit are stored (in a `BTreeMap` by page
//! index). A key with ten bits set near offset 2^27 costs a few pages instead of 16 MiB, and
//! one bit near 2^32−1 costs one page instead of 512 MiB. Every operation works page by page
//! with the same kernels as dense strings; absent pages read as zeros.
//!
//! Invariant: bytes of the last page past `len` are zero.

use std::collections::BTreeMap;

use super::{count_bits, find_bit, popcount, BitOp};

/// Bytes per page.
pub const PAGE: usize = 4096;
const PAGE_BITS: u64 = PAGE as u64 * 8;

/// `bytes` placed at byte offset `at`, cut at page boundaries: (page index, offset in the
/// page, the bytes that fall in that page), in order.
fn page_chunks(at: u64, bytes: &[u8]) -> impl Iterator<Item = (u64, usize, &[u8])> {
    let mut done = 0usize;
    std::iter::from_fn(move || {
        if done >= bytes.len() {
            return None;
        }
        let pos = at + done as u64;
        let (page, off) = (pos / PAGE as u64, (pos % PAGE as u64) as usize);
        let n = (PAGE - off).min(bytes.len() - done);
        let chunk = &bytes[done..done + n];
        done += n;
        Some((page, off, chunk))
    })
}

/// A string of `len` bytes of which only the non-zero 4 KiB pages are stored.
#[derive(Debug, Clone, Default)]
pub struct SparseBitmap {
    len: u64,
    pages: BTreeMap<u32, Box<[u8; PAGE]>>,
}

impl SparseBitmap {
    /// An all-zero string of `len` bytes.
    pub fn zeros(len: u64) -> Self {
        SparseBitmap {
            len,
            pages: BTreeMap::new(),
        }
    }

    /// Length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True for a zero-length string.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of stored (non-zero) pages.
    pub fn stored_pages(&self) -> usize {
        self.pages.len()
    }

    /// Number of pages the full length spans.
    pub fn total_pages(&self) -> u64 {
        self.len.div_ceil(PAGE as u64)
    }

    /// Heap bytes used by the stored pages.
    pub fn heap_bytes(&self) -> usize {
        self.pages.len() * PAGE
    }

    /// Stored pages in order: (page index, page bytes).
    pub fn pages(&self) -> impl Iterator<Item = (u64, &[u8; PAGE])> {
        self.pages.iter().map(|(&i, p)| (i as u64, &**p))
    }

    /// True when a page with index in `first..=last` is stored (holds a set bit).
    pub fn has_pages_in(&self, first: u64, last: u64) -> bool {
        let (first, last) = (
            first.min(u32::MAX as u64) as u32,
            last.min(u32::MAX as u64) as u32,
        );
        first <= last && self.pages.range(first..=last).next().is_some()
    }

    fn page_mut(&mut self, index: u64) -> &mut [u8; PAGE] {
        self.pages
            .entry(index as u32)
            .or_insert_with(|| Box::new([0u8; PAGE]))
    }

    /// Grows (never shrinks) the length to `len` bytes; new bytes are zero.
    pub fn grow(&mut self, len: u64) {
        self.len = self.len.max(len);
    }

    /// Copies `bytes` to byte offset `at` (growing the length as needed). All-zero pages of the
    /// input are not stored.
    pub fn write(&mut self, at: u64, bytes: &[u8]) {
        self.grow(at + bytes.len() as u64);
        for (page, off, chunk) in page_chunks(at, bytes) {
            let n = chunk.len();
            if chunk.iter().any(|&b| b != 0) {
                self.page_mut(page)[off..off + n].copy_from_slice(chunk);
            } else if let Some(p) = self.pages.get_mut(&(page as u32)) {
                p[off..off + n].fill(0);
            }
        }
    }

    /// ORs `bytes` into the string at byte offset `at` (growing the length as needed).
    pub fn or_bytes(&mut self, at: u64, bytes: &[u8]) {
        self.grow(at + bytes.len() as u64);
        for (page, off, chunk) in page_chunks(at, bytes) {
            if chunk.iter().any(|&b| b != 0) {
                super::simd::or_assign(&mut self.page_mut(page)[off..off + chunk.len()], chunk);
            }
        }
    }

    /// Reads bytes from offset `at` into `out` (zeros past the end or in absent pages).
    pub fn read(&self, at: u64, out: &mut [u8]) {
        out.fill(0);
        if out.is_empty() || at >= self.len {
            return;
        }
        let end = (at + out.len() as u64).min(self.len);
        let first = at / PAGE as u64;
        let last = (end - 1) / PAGE as u64;
        for (&p, page) in self.pages.range(first as u32..=last as u32) {
            let pstart = p as u64 * PAGE as u64;
            let from = at.max(pstart);
            let to = end.min(pstart + PAGE as u64);
            out[(from - at) as usize..(to - at) as usize]
                .copy_from_slice(&page[(from - pstart) as usize..(to - pstart) as usize]);
        }
    }

    /// The full byte content (allocates `len` bytes).
    pub fn to_dense(&self) -> Vec<u8> {
        self.to_dense_upto(self.len)
    }

    /// The first `n` bytes of the content (at most `len`), or up to the end of the last
    /// stored page when `n` is `u64::MAX` (what a builder has written so far: its bytes, not
    /// its declared length, are allocated).
    pub fn to_dense_upto(&self, n: u64) -> Vec<u8> {
        let n = if n == u64::MAX {
            self.pages
                .last_key_value()
                .map_or(0, |(&p, _)| (u64::from(p) + 1) * PAGE as u64)
        } else {
            n
        };
        // Zeroed memory straight from the allocator; only stored pages are written.
        let mut v = vec![0u8; n.min(self.len) as usize];
        for (&p, page) in &self.pages {
            let at = p as usize * PAGE;
            if at < v.len() {
                let n = PAGE.min(v.len() - at);
                v[at..at + n].copy_from_slice(&page[..n]);
            }
        }
        v
    }

    /// A sparse copy of `bytes` (only non-zero pages stored).
    pub fn from_dense(bytes: &[u8]) -> Self {
        let mut s = SparseBitmap::zeros(bytes.len() as u64);
        for (i, chunk) in bytes.chunks(PAGE).enumerate() {
            if chunk.iter().any(|&b| b != 0) {
                s.page_mut(i as u64)[..chunk.len()].copy_from_slice(chunk);
            }
        }
        s
    }

    /// The bit at `offset` (0 past the end).
    pub fn get_bit(&self, offset: u64) -> bool {
        offset < self.len * 8
            && self
                .pages
                .get(&((offset / PAGE_BITS) as u32))
                .is_some_and(|p| {
                    let b = (offset % PAGE_BITS) as usize;
                    p[b >> 3] & (0x80 >> (b & 7)) != 0
                })
    }

    /// Sets the bit at `offset` (growing the length) and returns the previous value.
    pub fn set_bit(&mut self, offset: u64, value: bool) -> bool {
        self.grow((offset >> 3) + 1);
        let page = offset / PAGE_BITS;
        if !value && !self.pages.contains_key(&(page as u32)) {
            return false;
        }
        let b = (offset % PAGE_BITS) as usize;
        super::set_bit(self.page_mut(page), b as u64, value)
    }

    /// Set bits in the whole string.
    pub fn popcount(&self) -> u64 {
        self.pages.values().map(|p| popcount(&p[..])).sum()
    }

    /// Set bits in the inclusive bit range (bits past the end count as zero).
    pub fn count_bits(&self, start_bit: u64, end_bit: u64) -> u64 {
        let total = self.len * 8;
        if start_bit > end_bit || start_bit >= total {
            return 0;
        }
        let end_bit = end_bit.min(total - 1);
        let (first, last) = (start_bit / PAGE_BITS, end_bit / PAGE_BITS);
        self.pages
            .range(first as u32..=last as u32)
            .map(|(&p, page)| {
                let base = p as u64 * PAGE_BITS;
                let s = start_bit.max(base) - base;
                let e = end_bit.min(base + PAGE_BITS - 1) - base;
                count_bits(&page[..], s, e)
            })
            .sum()
    }

    /// First bit equal to `bit` in the inclusive bit range, not looking past the end.
    pub fn find_bit(&self, bit: bool, start_bit: u64, end_bit: u64) -> Option<u64> {
        let total = self.len * 8;
        if start_bit > end_bit || start_bit >= total {
            return None;
        }
        let end_bit = end_bit.min(total - 1);
        let (first, last) = (start_bit / PAGE_BITS, end_bit / PAGE_BITS);
        let local = |p: u64| {
            let base = p * PAGE_BITS;
            (
                base,
                start_bit.max(base) - base,
                end_bit.min(base + PAGE_BITS - 1) - base,
            )
        };
        if bit {
            return self
                .pages
                .range(first as u32..=last as u32)
                .find_map(|(&p, page)| {
                    let (base, s, e) = local(p as u64);
                    find_bit(&page[..], true, s, e).map(|i| base + i)
                });
        }
        // Clear bit: the first absent page in range answers at once.
        let mut expect = first;
        for (&p, page) in self.pages.range(first as u32..=last as u32) {
            if p as u64 > expect {
                return Some(local(expect).0 + local(expect).1);
            }
            let (base, s, e) = local(p as u64);
            if let Some(i) = find_bit(&page[..], false, s, e) {
                return Some(base + i);
            }
            expect = p as u64 + 1;
        }
        (expect <= last).then(|| local(expect).0 + local(expect).1)
    }

    /// BITOP over sources that may be dense or sparse; zero pages in every source give a zero
    /// page out (for every op but NOT, which the caller does densely), so the result is built
    /// page by page and stays sparse.
    pub fn bitop(op: BitOp, srcs: &[Source<'_>]) -> SparseBitmap {
        debug_assert!(op != BitOp::Not);
        let maxlen = srcs.iter().map(|s| s.len()).max().unwrap_or(0);
        let mut out = SparseBitmap::zeros(maxlen);
        // Candidate pages: every page of a dense source, stored pages of sparse ones.
        let mut candidates: Vec<u64> = Vec::new();
        for s in srcs {
            match s {
                Source::Dense(d) => candidates.extend(0..(d.len() as u64).div_ceil(PAGE as u64)),
                Source::Sparse(sp) => candidates.extend(sp.pages.keys().map(|&p| p as u64)),
            }
        }
        candidates.sort_unstable();
        candidates.dedup();
        let mut buf = [0u8; PAGE];
        for p in candidates {
            let slices: Vec<&[u8]> = srcs.iter().map(|s| s.page(p)).collect();
            super::bitop_into_slice(op, &slices, &mut buf, 0);
            if buf.iter().any(|&b| b != 0) {
                out.page_mut(p).copy_from_slice(&buf);
            }
        }
        out
    }
}

/// BITOP `op` over plain sources (missing keys as empty slices), computed one page at a time
/// into a small buffer, keeping only the non-zero result pages. The AND, DIFF and ANDOR of
/// large keys are often nearly empty: the result is then built without a full-length buffer
/// and without scanning one for zero pages. As soon as the non-zero pages pass a quarter of
/// the result (the point where the paged form no longer pays) the rest is computed into plain
/// bytes: `Err(bytes)`. Other ops, and results shorter than `min_paged` bytes, are computed
/// plainly too. `srcs` must not be empty.
pub fn bitop_plain(op: BitOp, srcs: &[&[u8]], min_paged: u64) -> Result<SparseBitmap, Vec<u8>> {
    let len = srcs.iter().map(|s| s.len()).max().unwrap_or(0);
    if (len as u64) < min_paged || !matches!(op, BitOp::And | BitOp::Diff | BitOp::AndOr) {
        return Err(super::bitop(op, srcs));
    }
    let mut out = SparseBitmap::zeros(len as u64);
    let most = out.total_pages() / 4;
    let mut buf = [0u8; PAGE];
    for p in 0..len.div_ceil(PAGE) {
        let base = p * PAGE;
        let n = PAGE.min(len - base);
        super::bitop_into_slice(op, srcs, &mut buf[..n], base);
        if super::all_zero(&buf[..n]) {
            continue;
        }
        if out.pages.len() as u64 >= most {
            let mut bytes = vec![0u8; len];
            for (&q, page) in &out.pages {
                let at = q as usize * PAGE;
                bytes[at..at + PAGE].copy_from_slice(&page[..]);
            }
            super::bitop_into_slice(op, srcs, &mut bytes[base..], base);
            return Err(bytes);
        }
        buf[n..].fill(0);
        out.pages.insert(p as u32, Box::new(buf));
    }
    Ok(out)
}

/// A BITOP source seen page by page.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// Plain bytes.
    Dense(&'a [u8]),
    /// A paged string.
    Sparse(&'a SparseBitmap),
}

impl<'a> Source<'a> {
    /// Length in bytes.
    pub fn len(&self) -> u64 {
        match self {
            Source::Dense(d) => d.len() as u64,
            Source::Sparse(s) => s.len,
        }
    }

    /// True when zero-length.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of page `p` (shorter or empty where the source ends or the page is absent;
    /// the kernels zero pad).
    pub fn page(&self, p: u64) -> &'a [u8] {
        match *self {
            Source::Dense(d) => {
                let from = (p as usize).saturating_mul(PAGE);
                if from >= d.len() {
                    &[]
                } else {
                    &d[from..(from + PAGE).min(d.len())]
                }
            }
            Source::Sparse(s) => s.pages.get(&(p as u32)).map_or(&[][..], |pg| &pg[..]),
        }
    }
}
