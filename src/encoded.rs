//! Decoders for the compact blobs Redis embeds in RDB values as single strings:
//!
//! - **listpack** (Redis 7+ hashes, sets, sorted sets, list nodes, stream nodes): `u32` total
//!   bytes, `u16` element count (65535 = unknown), entries, `0xFF`. Each entry is an encoding
//!   byte (7-bit uint, 6/12/32-bit string lengths, 13/16/24/32/64-bit ints) plus data plus a
//!   1–5 byte "backlen" holding the entry size in 7-bit groups, read right to left.
//! - **ziplist** (Redis < 7): `u32` total bytes, `u32` tail offset, `u16` count, entries, `0xFF`.
//!   Each entry is a 1- or 5-byte previous-entry length, an encoding (6/14/32-bit string
//!   lengths; 8/16/24/32/64-bit ints; 4-bit immediates 0..12) and data.
//! - **intset**: `u32` element width in bytes (2, 4 or 8), `u32` count, little-endian ints.
//! - **zipmap** (Redis < 2.6 small hashes): `u8` count, then key/value pairs with 1- or
//!   5-byte lengths and a free-space byte, `0xFF`.
//!
//! All integers inside these blobs are little-endian except where noted. Every decoder checks
//! each length against the blob before reading, and reports the byte offset within the blob.

use std::fmt;

use crate::thin::Blob;

/// One element of a listpack, ziplist or intset: either a byte string or an integer (Redis
/// stores integer-looking strings as integers in these encodings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item<'a> {
    /// A byte string, borrowed from the blob.
    Str(&'a [u8]),
    /// An integer element.
    Int(i64),
}

impl Item<'_> {
    /// The element as Redis would return it: the bytes, or the integer's decimal text.
    pub fn to_vec(&self) -> Vec<u8> {
        match self {
            Item::Str(s) => s.to_vec(),
            Item::Int(i) => i.to_string().into_bytes(),
        }
    }

    /// The length in bytes of [`Item::to_vec`]'s text, without building it.
    pub fn text_len(&self) -> usize {
        match self {
            Item::Str(s) => s.len(),
            Item::Int(i) => decimal_len(*i),
        }
    }

    /// The element read as a sorted-set score (integers exactly; strings as Redis' `strtod`
    /// would read the text Redis wrote, e.g. `1.5`, `inf`). `None` when not a number or NaN.
    pub fn to_score(&self) -> Option<f64> {
        let v = match self {
            Item::Int(i) => *i as f64,
            Item::Str(s) => std::str::from_utf8(s).ok()?.trim().parse::<f64>().ok()?,
        };
        if v.is_nan() {
            None
        } else {
            Some(v)
        }
    }
}

/// The length in bytes of `v`'s decimal text (a minus sign included).
pub fn decimal_len(v: i64) -> usize {
    let mut n = v.unsigned_abs();
    let mut len = 1 + (v < 0) as usize;
    while n >= 10 {
        n /= 10;
        len += 1;
    }
    len
}

/// What kind of structural problem a [`BlobError`] is (more kinds may come).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BlobErrorKind {
    /// A field or entry reaches past the end of the blob, or the terminator is missing.
    Truncated,
    /// An encoding byte (or intset width, zipmap length byte) the format does not define.
    InvalidEncoding,
    /// A header or back-length disagrees with the content (total bytes, count, entry size).
    Mismatch,
    /// The terminator comes before the end of the blob.
    TrailingBytes,
    /// Elements out of the order the encoding requires (intset not strictly ascending).
    Order,
    /// Well-formed entries whose meaning is invalid for the value (a stream ID that is not an
    /// integer, an odd number of hash entries, ...).
    Invalid,
}

/// A structural error inside a blob: its kind, byte offset within the blob and a description.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BlobError {
    /// What kind of problem it is.
    pub kind: BlobErrorKind,
    /// Offset within the blob (not the file).
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

impl BlobError {
    /// An error of `kind` at `offset` within the blob.
    pub fn new(kind: BlobErrorKind, offset: usize, message: impl Into<String>) -> BlobError {
        BlobError {
            kind,
            offset,
            message: message.into(),
        }
    }
}

/// A blob's bytes behind a thin pointer (see [`crate::thin`]); errors when the blob is
/// longer than a [`Blob`] holds (4 GiB, past what any server writes in one blob).
pub(crate) fn thin_blob(blob: &[u8]) -> Result<Blob, BlobError> {
    Blob::new(blob)
        .ok_or_else(|| BlobError::new(BlobErrorKind::Invalid, 0, "a blob of more than 4 GiB"))
}

impl fmt::Display for BlobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at blob offset {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for BlobError {}

fn bad(kind: BlobErrorKind, offset: usize, message: impl Into<String>) -> BlobError {
    BlobError::new(kind, offset, message)
}

fn slice<'a>(b: &'a [u8], at: usize, n: usize, what: &str) -> Result<&'a [u8], BlobError> {
    at.checked_add(n)
        .filter(|&end| end <= b.len())
        .map(|end| &b[at..end])
        .ok_or_else(|| {
            bad(
                BlobErrorKind::Truncated,
                at,
                format!("{what}: needs {n} bytes, blob ends at {}", b.len()),
            )
        })
}

fn le_uint(s: &[u8]) -> u64 {
    s.iter().rev().fold(0u64, |acc, &x| (acc << 8) | x as u64)
}

fn sign_extend(v: u64, bits: u32) -> i64 {
    let shift = 64 - bits;
    ((v << shift) as i64) >> shift
}

/// Bytes of a listpack entry's back-length for an entry of `len` bytes (encoding and data):
/// 7 bits a byte, 1 to 5 bytes (the listpack format of Redis 5+).
pub fn listpack_backlen_size(len: usize) -> usize {
    match len {
        0..=127 => 1,
        128..=16383 => 2,
        16384..=2097151 => 3,
        2097152..=268435455 => 4,
        _ => 5,
    }
}

/// The element count a validated listpack's header records (`u16` at bytes 4..6); `None`
/// when it says 65535 ("count it": 65535 elements or more) or the blob is shorter than a
/// header. O(1): what [`listpack`] checked the entries against.
pub fn listpack_header_count(b: &[u8]) -> Option<usize> {
    let n = u16::from_le_bytes([*b.get(4)?, *b.get(5)?]);
    (n != u16::MAX).then_some(n as usize)
}

/// The entry count a validated ziplist's header records (`u16` at bytes 8..10); `None` when
/// it says 65535 (count it) or the blob is shorter than a header, as [`listpack_header_count`].
pub fn ziplist_header_count(b: &[u8]) -> Option<usize> {
    let n = u16::from_le_bytes([*b.get(8)?, *b.get(9)?]);
    (n != u16::MAX).then_some(n as usize)
}

/// Decodes a listpack into its elements, checking the header size and count, every entry's
/// encoding and back-length, and the terminator.
pub fn listpack(b: &[u8]) -> Result<Vec<Item<'_>>, BlobError> {
    let hdr = slice(b, 0, 6, "listpack header")?;
    let total = le_uint(&hdr[0..4]) as usize;
    if total != b.len() {
        return Err(bad(
            BlobErrorKind::Mismatch,
            0,
            format!("listpack header says {total} bytes, blob has {}", b.len()),
        ));
    }
    let count = le_uint(&hdr[4..6]) as usize;
    let mut items = Vec::new();
    let mut p = 6;
    loop {
        let e = *b.get(p).ok_or_else(|| {
            bad(
                BlobErrorKind::Truncated,
                p,
                "listpack ends without terminator",
            )
        })?;
        if e == 0xFF {
            break;
        }
        let (item, size) = if e & 0x80 == 0 {
            (Item::Int((e & 0x7F) as i64), 1)
        } else if e & 0xC0 == 0x80 {
            let n = (e & 0x3F) as usize;
            (Item::Str(slice(b, p + 1, n, "listpack string")?), 1 + n)
        } else if e & 0xE0 == 0xC0 {
            let s = slice(b, p, 2, "listpack 13-bit int")?;
            let v = (((s[0] & 0x1F) as u64) << 8) | s[1] as u64;
            (Item::Int(sign_extend(v, 13)), 2)
        } else if e & 0xF0 == 0xE0 {
            let s = slice(b, p, 2, "listpack 12-bit string length")?;
            let n = (((s[0] & 0x0F) as usize) << 8) | s[1] as usize;
            (Item::Str(slice(b, p + 2, n, "listpack string")?), 2 + n)
        } else {
            match e {
                0xF0 => {
                    let n = le_uint(slice(b, p + 1, 4, "listpack 32-bit string length")?) as usize;
                    (Item::Str(slice(b, p + 5, n, "listpack string")?), 5 + n)
                }
                0xF1..=0xF4 => {
                    let w = match e {
                        0xF1 => 2,
                        0xF2 => 3,
                        0xF3 => 4,
                        _ => 8,
                    };
                    let v = le_uint(slice(b, p + 1, w, "listpack int")?);
                    (Item::Int(sign_extend(v, 8 * w as u32)), 1 + w)
                }
                _ => {
                    return Err(bad(
                        BlobErrorKind::InvalidEncoding,
                        p,
                        format!("invalid listpack encoding byte 0x{e:02x}"),
                    ))
                }
            }
        };
        let blen = listpack_backlen_size(size);
        let back = slice(b, p + size, blen, "listpack back-length")?;
        let stored = back
            .iter()
            .rev()
            .enumerate()
            .fold(0u64, |acc, (i, &x)| acc | (((x & 0x7F) as u64) << (7 * i)));
        if stored != size as u64 {
            return Err(bad(
                BlobErrorKind::Mismatch,
                p + size,
                format!("listpack back-length {stored} does not match entry size {size}"),
            ));
        }
        items.push(item);
        p += size + blen;
    }
    if p + 1 != b.len() {
        return Err(bad(
            BlobErrorKind::TrailingBytes,
            p,
            "listpack terminator before the end of the blob",
        ));
    }
    if count != 0xFFFF && count != items.len() {
        return Err(bad(
            BlobErrorKind::Mismatch,
            4,
            format!(
                "listpack header count {count} but {} entries found",
                items.len()
            ),
        ));
    }
    Ok(items)
}

/// Decodes a ziplist into its elements, checking the header, every entry's previous-length and
/// encoding, and the terminator.
pub fn ziplist(b: &[u8]) -> Result<Vec<Item<'_>>, BlobError> {
    let hdr = slice(b, 0, 10, "ziplist header")?;
    let total = le_uint(&hdr[0..4]) as usize;
    if total != b.len() {
        return Err(bad(
            BlobErrorKind::Mismatch,
            0,
            format!("ziplist header says {total} bytes, blob has {}", b.len()),
        ));
    }
    let tail = le_uint(&hdr[4..8]) as usize;
    if tail >= b.len() {
        return Err(bad(
            BlobErrorKind::Mismatch,
            4,
            format!("ziplist tail offset {tail} out of range"),
        ));
    }
    let count = le_uint(&hdr[8..10]) as usize;
    let mut items = Vec::new();
    let mut p = 10;
    let mut prev_size = 0usize;
    loop {
        let first = *b.get(p).ok_or_else(|| {
            bad(
                BlobErrorKind::Truncated,
                p,
                "ziplist ends without terminator",
            )
        })?;
        if first == 0xFF {
            break;
        }
        let start = p;
        let prevlen = if first < 254 {
            p += 1;
            first as usize
        } else {
            let s = slice(b, p + 1, 4, "ziplist previous length")?;
            p += 5;
            le_uint(s) as usize
        };
        if prevlen != prev_size {
            return Err(bad(
                BlobErrorKind::Mismatch,
                start,
                format!("ziplist previous length {prevlen} should be {prev_size}"),
            ));
        }
        let e = *b
            .get(p)
            .ok_or_else(|| bad(BlobErrorKind::Truncated, p, "ziplist entry truncated"))?;
        let (item, size) = match e >> 6 {
            0 => {
                let n = (e & 0x3F) as usize;
                (Item::Str(slice(b, p + 1, n, "ziplist string")?), 1 + n)
            }
            1 => {
                let s = slice(b, p, 2, "ziplist 14-bit length")?;
                let n = (((s[0] & 0x3F) as usize) << 8) | s[1] as usize;
                (Item::Str(slice(b, p + 2, n, "ziplist string")?), 2 + n)
            }
            2 => {
                if e != 0x80 {
                    return Err(bad(
                        BlobErrorKind::InvalidEncoding,
                        p,
                        format!("invalid ziplist encoding byte 0x{e:02x}"),
                    ));
                }
                let s = slice(b, p + 1, 4, "ziplist 32-bit length")?;
                let n = u32::from_be_bytes([s[0], s[1], s[2], s[3]]) as usize;
                (Item::Str(slice(b, p + 5, n, "ziplist string")?), 5 + n)
            }
            _ => {
                let w = match e {
                    0xC0 => 2,
                    0xD0 => 4,
                    0xE0 => 8,
                    0xF0 => 3,
                    0xFE => 1,
                    0xF1..=0xFD => 0,
                    _ => {
                        return Err(bad(
                            BlobErrorKind::InvalidEncoding,
                            p,
                            format!("invalid ziplist encoding byte 0x{e:02x}"),
                        ))
                    }
                };
                if w == 0 {
                    (Item::Int((e & 0x0F) as i64 - 1), 1)
                } else {
                    let v = le_uint(slice(b, p + 1, w, "ziplist int")?);
                    (Item::Int(sign_extend(v, 8 * w as u32)), 1 + w)
                }
            }
        };
        p += size;
        prev_size = p - start;
        items.push(item);
    }
    if p + 1 != b.len() {
        return Err(bad(
            BlobErrorKind::TrailingBytes,
            p,
            "ziplist terminator before the end of the blob",
        ));
    }
    if count != 0xFFFF && count != items.len() {
        return Err(bad(
            BlobErrorKind::Mismatch,
            8,
            format!(
                "ziplist header count {count} but {} entries found",
                items.len()
            ),
        ));
    }
    Ok(items)
}

/// Decodes an intset into its integers (in stored, ascending order; order is checked).
pub fn intset(b: &[u8]) -> Result<Vec<i64>, BlobError> {
    let hdr = slice(b, 0, 8, "intset header")?;
    let width = le_uint(&hdr[0..4]) as usize;
    if !matches!(width, 2 | 4 | 8) {
        return Err(bad(
            BlobErrorKind::InvalidEncoding,
            0,
            format!("invalid intset encoding {width}"),
        ));
    }
    let count = le_uint(&hdr[4..8]) as usize;
    if count.checked_mul(width).and_then(|n| n.checked_add(8)) != Some(b.len()) {
        return Err(bad(
            BlobErrorKind::Mismatch,
            4,
            format!(
                "intset of {count} x {width}-byte ints needs {} bytes, blob has {}",
                count as u128 * width as u128 + 8,
                b.len()
            ),
        ));
    }
    let mut out = Vec::with_capacity(count);
    for (i, c) in b[8..].chunks_exact(width).enumerate() {
        let v = sign_extend(le_uint(c), 8 * width as u32);
        if out.last().is_some_and(|&l| l >= v) {
            return Err(bad(
                BlobErrorKind::Order,
                8 + i * width,
                "intset not strictly ascending",
            ));
        }
        out.push(v);
    }
    Ok(out)
}

/// Decodes a zipmap into its fields and values, alternating.
pub fn zipmap(b: &[u8]) -> Result<Vec<Item<'_>>, BlobError> {
    slice(b, 0, 1, "zipmap header")?;
    let mut p = 1;
    let mut items = Vec::new();
    let len_at = |p: usize| -> Result<(usize, usize), BlobError> {
        let f = *b
            .get(p)
            .ok_or_else(|| bad(BlobErrorKind::Truncated, p, "zipmap truncated"))?;
        match f {
            0..=253 => Ok((f as usize, 1)),
            254 => Ok((le_uint(slice(b, p + 1, 4, "zipmap length")?) as usize, 5)),
            _ => Err(bad(
                BlobErrorKind::InvalidEncoding,
                p,
                "zipmap length byte 255",
            )),
        }
    };
    loop {
        let f = *b.get(p).ok_or_else(|| {
            bad(
                BlobErrorKind::Truncated,
                p,
                "zipmap ends without terminator",
            )
        })?;
        if f == 0xFF {
            break;
        }
        let (klen, h) = len_at(p)?;
        items.push(Item::Str(slice(b, p + h, klen, "zipmap key")?));
        p += h + klen;
        let (vlen, h) = len_at(p)?;
        let free = *b
            .get(p + h)
            .ok_or_else(|| bad(BlobErrorKind::Truncated, p + h, "zipmap truncated"))?
            as usize;
        items.push(Item::Str(slice(b, p + h + 1, vlen, "zipmap value")?));
        p += h + 1 + vlen;
        slice(b, p, free, "zipmap free space")?;
        p += free;
    }
    if p + 1 != b.len() {
        return Err(bad(
            BlobErrorKind::TrailingBytes,
            p,
            "zipmap terminator before the end of the blob",
        ));
    }
    // As Redis' zipmapValidateIntegrity (always run at load): at least one entry, and a
    // header count (below 254, its "count it" marker) equal to the entries held.
    let count = items.len() / 2;
    if count == 0 {
        return Err(bad(BlobErrorKind::Invalid, 0, "empty zipmap"));
    }
    if b[0] != 254 && b[0] as usize != count {
        return Err(bad(
            BlobErrorKind::Mismatch,
            0,
            format!("zipmap header says {} entries, it holds {count}", b[0]),
        ));
    }
    Ok(items)
}

#[cfg(test)]
pub(crate) use blobs as test_blobs;

/// Encoders of the blobs above (listpacks, ziplists, intsets and zipmaps built as Redis lays
/// them out, from the format descriptions in the module docs): for writing snapshots in old
/// encodings with [`crate::rdb::RdbWriter::write_blob`] and for tests.
pub mod blobs {
    use super::Item;

    /// A `RDB_TYPE_HASH_LISTPACK_EX` listpack: (field, value, expiry in ms, 0 for none)
    /// triples.
    pub fn listpack_ex(fields: &[(&[u8], &[u8], i64)]) -> Vec<u8> {
        let items: Vec<Item<'_>> = fields
            .iter()
            .flat_map(|&(f, v, ttl)| [Item::Str(f), Item::Str(v), Item::Int(ttl)])
            .collect();
        listpack(&items)
    }

    /// A listpack of `items`, each with Redis' smallest encoding and its back-length.
    pub fn listpack(items: &[Item<'_>]) -> Vec<u8> {
        let mut body = Vec::new();
        for it in items {
            let mut e = Vec::new();
            match *it {
                Item::Int(v) if (0..=127).contains(&v) => e.push(v as u8),
                Item::Int(v) if (-4096..4096).contains(&v) => {
                    let u = (v as u16) & 0x1FFF;
                    e.extend_from_slice(&[0xC0 | (u >> 8) as u8, u as u8]);
                }
                Item::Int(v) => {
                    let (tag, w) = if i16::try_from(v).is_ok() {
                        (0xF1, 2)
                    } else if (-(1 << 23)..(1 << 23)).contains(&v) {
                        (0xF2, 3)
                    } else if i32::try_from(v).is_ok() {
                        (0xF3, 4)
                    } else {
                        (0xF4, 8)
                    };
                    e.push(tag);
                    e.extend_from_slice(&v.to_le_bytes()[..w]);
                }
                Item::Str(s) if s.len() < 64 => {
                    e.push(0x80 | s.len() as u8);
                    e.extend_from_slice(s);
                }
                Item::Str(s) if s.len() < 4096 => {
                    e.extend_from_slice(&[0xE0 | (s.len() >> 8) as u8, s.len() as u8]);
                    e.extend_from_slice(s);
                }
                Item::Str(s) => {
                    e.push(0xF0);
                    e.extend_from_slice(&(s.len() as u32).to_le_bytes());
                    e.extend_from_slice(s);
                }
            }
            let mut groups = Vec::new();
            let mut l = e.len();
            loop {
                groups.push((l & 127) as u8);
                l >>= 7;
                if l == 0 {
                    break;
                }
            }
            groups.reverse();
            for g in groups.iter_mut().skip(1) {
                *g |= 128;
            }
            body.extend(e);
            body.extend(groups);
        }
        let total = 6 + body.len() + 1;
        let mut out = (total as u32).to_le_bytes().to_vec();
        out.extend_from_slice(&(items.len().min(0xFFFF) as u16).to_le_bytes());
        out.extend(body);
        out.push(0xFF);
        out
    }

    /// Strings as Redis stores them in a listpack or ziplist: canonical integers as integers.
    pub fn items<'a>(strs: &[&'a [u8]]) -> Vec<Item<'a>> {
        strs.iter()
            .map(|s| match crate::num::parse_i64(s) {
                Some(v) => Item::Int(v),
                None => Item::Str(s),
            })
            .collect()
    }

    /// A listpack of strings (integer-looking ones stored as integers).
    pub fn listpack_strs(strs: &[&[u8]]) -> Vec<u8> {
        listpack(&items(strs))
    }

    /// A ziplist of `items`, each with Redis' smallest encoding.
    pub fn ziplist(items: &[Item<'_>]) -> Vec<u8> {
        let mut body = Vec::new();
        let mut prev = 0usize;
        let mut tail = 10;
        for it in items {
            let start = body.len();
            tail = 10 + start;
            if prev < 254 {
                body.push(prev as u8);
            } else {
                body.push(254);
                body.extend_from_slice(&(prev as u32).to_le_bytes());
            }
            match *it {
                Item::Int(v) if (0..=12).contains(&v) => body.push(0xF1 + v as u8),
                Item::Int(v) => {
                    let (tag, w) = if i8::try_from(v).is_ok() {
                        (0xFE, 1)
                    } else if i16::try_from(v).is_ok() {
                        (0xC0, 2)
                    } else if (-(1 << 23)..(1 << 23)).contains(&v) {
                        (0xF0, 3)
                    } else if i32::try_from(v).is_ok() {
                        (0xD0, 4)
                    } else {
                        (0xE0, 8)
                    };
                    body.push(tag);
                    body.extend_from_slice(&v.to_le_bytes()[..w]);
                }
                Item::Str(s) if s.len() < 64 => {
                    body.push(s.len() as u8);
                    body.extend_from_slice(s);
                }
                Item::Str(s) if s.len() < 16384 => {
                    body.extend_from_slice(&[0x40 | (s.len() >> 8) as u8, s.len() as u8]);
                    body.extend_from_slice(s);
                }
                Item::Str(s) => {
                    body.push(0x80);
                    body.extend_from_slice(&(s.len() as u32).to_be_bytes());
                    body.extend_from_slice(s);
                }
            }
            prev = body.len() - start;
        }
        let total = 10 + body.len() + 1;
        let mut out = (total as u32).to_le_bytes().to_vec();
        out.extend_from_slice(&(tail as u32).to_le_bytes());
        out.extend_from_slice(&(items.len().min(0xFFFF) as u16).to_le_bytes());
        out.extend(body);
        out.push(0xFF);
        out
    }

    /// An intset of `width`-byte integers (`vals` ascending).
    pub fn intset(width: u32, vals: &[i64]) -> Vec<u8> {
        let mut b = width.to_le_bytes().to_vec();
        b.extend_from_slice(&(vals.len() as u32).to_le_bytes());
        for v in vals {
            b.extend_from_slice(&v.to_le_bytes()[..width as usize]);
        }
        b
    }

    /// A zipmap of (field, value) pairs with no free space.
    pub fn zipmap(pairs: &[(&[u8], &[u8])]) -> Vec<u8> {
        let mut b = vec![pairs.len().min(254) as u8];
        let len = |b: &mut Vec<u8>, n: usize| {
            if n < 254 {
                b.push(n as u8);
            } else {
                b.push(254);
                b.extend_from_slice(&(n as u32).to_le_bytes());
            }
        };
        for (f, v) in pairs {
            len(&mut b, f.len());
            b.extend_from_slice(f);
            len(&mut b, v.len());
            b.push(0);
            b.extend_from_slice(v);
        }
        b.push(0xFF);
        b
    }

    #[cfg(test)]
    #[test]
    fn encoders_round_trip() {
        let strs: Vec<Vec<u8>> = vec![
            b"a".to_vec(),
            vec![b'x'; 100],
            vec![b'y'; 5000],
            vec![b'z'; 20000],
            b"0".to_vec(),
            b"127".to_vec(),
            b"-4096".to_vec(),
            b"30000".to_vec(),
            b"-8000000".to_vec(),
            b"2000000000".to_vec(),
            b"-9223372036854775808".to_vec(),
            b"12".to_vec(),
            b"13".to_vec(),
        ];
        let refs: Vec<&[u8]> = strs.iter().map(|s| s.as_slice()).collect();
        let want = items(&refs);
        assert_eq!(super::listpack(&listpack(&want)).unwrap(), want);
        assert_eq!(super::ziplist(&ziplist(&want)).unwrap(), want);
        assert_eq!(super::intset(&intset(4, &[-3, 9])).unwrap(), vec![-3, 9]);
        let zm = zipmap(&[(b"f", b"v"), (b"long", &[b'q'; 300])]);
        assert_eq!(super::zipmap(&zm).unwrap().len(), 4);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lp(entries: &[&[u8]]) -> Vec<u8> {
        // entries are pre-encoded (encoding + data); append back-lengths.
        let mut body = Vec::new();
        for e in entries {
            body.extend_from_slice(e);
            assert!(e.len() < 128);
            body.push(e.len() as u8);
        }
        let total = 6 + body.len() + 1;
        let mut out = (total as u32).to_le_bytes().to_vec();
        out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
        out.extend(body);
        out.push(0xFF);
        out
    }

    #[test]
    fn listpack_int_and_string_encodings() {
        let b = lp(&[
            &[5],                               // 7-bit uint 5
            &[0x83, b'a', b'b', b'c'],          // 6-bit str "abc"
            &[0xDF, 0xFF],                      // 13-bit -1
            &[0xF1, 0x00, 0x80],                // i16 -32768
            &[0xF2, 0xFF, 0xFF, 0x7F],          // i24 8388607
            &[0xF4, 1, 0, 0, 0, 0, 0, 0, 0x80], // i64 min + 1
        ]);
        let items = listpack(&b).unwrap();
        assert_eq!(
            items,
            vec![
                Item::Int(5),
                Item::Str(b"abc"),
                Item::Int(-1),
                Item::Int(-32768),
                Item::Int(8388607),
                Item::Int(i64::MIN + 1)
            ]
        );
        assert_eq!(items[2].to_vec(), b"-1");
    }

    #[test]
    fn listpack_rejects_bad_backlen_and_truncation() {
        let mut b = lp(&[&[0x83, b'a', b'b', b'c']]);
        b[10] = 3; // backlen should be 4
        assert!(listpack(&b).unwrap_err().message.contains("back-length"));
        let b = lp(&[&[0x83, b'a', b'b', b'c']]);
        for cut in 0..b.len() {
            assert!(listpack(&b[..cut]).is_err());
        }
    }

    #[test]
    fn ziplist_entries() {
        // prevlen, encoding, data
        let entries: Vec<Vec<u8>> = vec![
            vec![0x02, b'h', b'i'],
            vec![0xF1 + 12],        // immediate 12
            vec![0xFE, 0x80],       // i8 -128
            vec![0xC0, 0x34, 0x12], // i16 0x1234
        ];
        let mut body = Vec::new();
        let mut prev = 0u8;
        for e in &entries {
            body.push(prev);
            body.extend_from_slice(e);
            prev = (e.len() + 1) as u8;
        }
        let total = 10 + body.len() + 1;
        let mut b = (total as u32).to_le_bytes().to_vec();
        b.extend_from_slice(&10u32.to_le_bytes());
        b.extend_from_slice(&(entries.len() as u16).to_le_bytes());
        b.extend(body);
        b.push(0xFF);
        assert_eq!(
            ziplist(&b).unwrap(),
            vec![
                Item::Str(b"hi"),
                Item::Int(12),
                Item::Int(-128),
                Item::Int(0x1234)
            ]
        );
    }

    #[test]
    fn intset_widths_and_order() {
        let mut b = 2u32.to_le_bytes().to_vec();
        b.extend_from_slice(&3u32.to_le_bytes());
        for v in [-5i16, 7, 300] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        assert_eq!(intset(&b).unwrap(), vec![-5, 7, 300]);
        b[4] = 4; // count too large for the blob
        assert!(intset(&b).is_err());
        b[4] = 3;
        b[8] = 0xFF;
        b[9] = 0x7F; // first becomes 32767 > 7
        assert!(intset(&b).is_err());
    }

    #[test]
    fn scores_from_items() {
        assert_eq!(Item::Str(b"1.5").to_score(), Some(1.5));
        assert_eq!(Item::Str(b"-inf").to_score(), Some(f64::NEG_INFINITY));
        assert_eq!(Item::Int(-3).to_score(), Some(-3.0));
        assert_eq!(Item::Str(b"abc").to_score(), None);
    }
}
