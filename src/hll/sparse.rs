//! The sparse encoding: a run-length list of opcodes after the 16-byte header.
//!
//! ```text
//! ZERO  00xxxxxx            xxxxxx+1 (1..64) registers set to 0
//! XZERO 01xxxxxx yyyyyyyy   xxxxxxyyyyyyyy+1 (1..16384) registers set to 0
//! VAL   1vvvvvxx            xx+1 (1..4) registers set to vvvvv+1 (1..32)
//! ```
//! A valid body covers exactly 16,384 registers. Like Redis, a lone XZERO first byte at the
//! very end reads its second byte as 0 (Redis reads the string's NUL terminator there).
//!
//! [`set`] is Redis 7's in-place sparse update, reproduced step by step so that the bytes
//! after PFADD / PFMERGE equal Redis' bytes: locate the opcode covering the register, split it
//! into at most three opcodes (up to 5 bytes), promote to dense when the value exceeds 32 or
//! the string would outgrow the sparse size limit, then merge equal adjacent VAL opcodes in a
//! window of 5 opcodes starting at the opcode before the change.

use super::{dense, HllError, Registers, HDR, REGISTERS};

/// Largest value a VAL opcode holds.
pub const VAL_MAX_VALUE: u8 = 32;
const VAL_MAX_LEN: usize = 4;
const ZERO_MAX_LEN: usize = 64;

#[inline]
fn is_zero(b: u8) -> bool {
    b & 0xc0 == 0
}
#[inline]
fn is_xzero(b: u8) -> bool {
    b & 0xc0 == 0x40
}
#[inline]
fn is_val(b: u8) -> bool {
    b & 0x80 != 0
}
#[inline]
fn val_value(b: u8) -> u8 {
    ((b >> 2) & 0x1f) + 1
}
#[inline]
fn val_len(b: u8) -> usize {
    (b & 3) as usize + 1
}
#[inline]
fn val_op(value: u8, len: usize) -> u8 {
    0x80 | ((value - 1) << 2) | (len as u8 - 1)
}
#[inline]
fn byte_at(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
}
#[inline]
fn xzero_len(s: &[u8], p: usize) -> usize {
    ((((s[p] & 0x3f) as usize) << 8) | byte_at(s, p + 1) as usize) + 1
}

/// One decoded opcode: length in bytes, registers covered, value (0 for ZERO/XZERO).
#[inline]
fn decode(s: &[u8], p: usize) -> (usize, usize, u8) {
    let b = s[p];
    if is_zero(b) {
        (1, (b & 0x3f) as usize + 1, 0)
    } else if is_xzero(b) {
        (2, xzero_len(s, p), 0)
    } else {
        (1, val_len(b), val_value(b))
    }
}

/// The replacement opcodes of one split (at most XZERO-VAL-XZERO, 5 bytes).
#[derive(Default)]
struct Seq {
    bytes: [u8; 5],
    len: usize,
}

impl Seq {
    fn push(&mut self, b: u8) {
        self.bytes[self.len] = b;
        self.len += 1;
    }

    /// The opcode(s) for a run of `len` zero registers: ZERO up to 64, else XZERO.
    fn zero_run(&mut self, len: usize) {
        if len > ZERO_MAX_LEN {
            self.push(0x40 | ((len - 1) >> 8) as u8);
            self.push(((len - 1) & 0xff) as u8);
        } else {
            self.push((len - 1) as u8);
        }
    }
}

/// The body of an empty HLL as Redis creates it: one XZERO covering all 16,384 registers.
pub fn empty_body() -> [u8; 2] {
    [0x7f, 0xff]
}

/// Register-wise max of `acc` and a sparse body. Valid only when the opcodes cover exactly
/// 16,384 registers: like Redis 7.0.15 as shipped by Debian (with the CVE-2025-32023
/// bounds checks), opcodes past register 16,383 make the body corrupt. Also the decoder
/// used for sparse-to-dense.
pub fn max_into(body: &[u8], acc: &mut Registers) -> Result<(), HllError> {
    let mut i = 0usize;
    let mut p = 0usize;
    while p < body.len() {
        let (oplen, run, value) = decode(body, p);
        if i + run > REGISTERS {
            return Err(HllError::Corrupt);
        }
        if value != 0 {
            for r in &mut acc.0[i..i + run] {
                if value > *r {
                    *r = value;
                }
            }
        }
        i += run;
        p += oplen;
    }
    if i == REGISTERS {
        Ok(())
    } else {
        Err(HllError::Corrupt)
    }
}

/// Adds the register histogram of a sparse body to `hist`, with Redis' `hllSparseRegHisto`
/// rule: valid only when the opcodes cover exactly 16,384 registers.
pub fn histogram(body: &[u8], hist: &mut [u32; 64]) -> Result<(), HllError> {
    let mut i = 0usize;
    let mut p = 0usize;
    while p < body.len() {
        let (oplen, run, value) = decode(body, p);
        i += run;
        hist[value as usize] += run as u32;
        p += oplen;
    }
    if i == REGISTERS {
        Ok(())
    } else {
        Err(HllError::Corrupt)
    }
}

/// Converts a sparse HLL string in place to dense (Redis `hllSparseToDense`): the header is
/// kept (magic, unused bytes and cached cardinality) with the encoding byte set to dense.
pub fn to_dense(s: &mut Vec<u8>) -> Result<(), HllError> {
    let mut regs = Registers::zero();
    max_into(&s[HDR..], &mut regs)?;
    s.truncate(HDR);
    s[4] = super::ENC_DENSE;
    s.resize(super::DENSE_SIZE, 0);
    dense::pack(&regs, &mut s[HDR..]);
    Ok(())
}

/// Where the next [`set`] may start its scan: an opcode boundary (byte offset in the whole
/// string, index of the first register it covers) that lies at least two opcodes before any
/// register greater than the last one set. Valid only for increasing indexes.
#[derive(Debug, Clone, Copy)]
pub struct Cursor {
    pos: usize,
    first: usize,
}

impl Default for Cursor {
    fn default() -> Self {
        Cursor { pos: HDR, first: 0 }
    }
}

/// Outcome of [`set`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetResult {
    /// The register already held a value >= the new one.
    Unchanged,
    /// Updated in the sparse form.
    Updated,
    /// The string was promoted to dense and the register set there.
    Promoted,
}

/// Sets register `index` to `count` in the sparse HLL string `s` (header included) when it
/// is larger than the current value, exactly as Redis 7's `hllSparseSet`. `max_bytes` is
/// `hll-sparse-max-bytes`. `cursor` lets ascending-index callers skip the scan from the
/// start; pass `Cursor::default()` otherwise. Err when the opcodes do not reach `index` or
/// the promotion finds a corrupt body.
pub fn set(
    s: &mut Vec<u8>,
    index: usize,
    count: u8,
    max_bytes: usize,
    cursor: &mut Cursor,
) -> Result<SetResult, HllError> {
    if count > VAL_MAX_VALUE {
        return promote(s, index, count);
    }
    // Step 1: locate the opcode covering `index`.
    let mut end = s.len();
    let mut p = cursor.pos.min(end);
    let mut first = cursor.first;
    let mut prev: Option<usize> = None;
    let mut prev_first = 0usize;
    let mut prevprev: Option<(usize, usize)> = None;
    let mut span = 0usize;
    while p < end {
        let (oplen, run, _) = decode(s, p);
        span = run;
        if index < first + span {
            break;
        }
        if let Some(pp) = prev {
            prevprev = Some((pp, prev_first));
        }
        prev = Some(p);
        prev_first = first;
        p += oplen;
        first += span;
    }
    if span == 0 || p >= end {
        return Err(HllError::Corrupt);
    }
    *cursor = match prevprev {
        Some((pos, first)) => Cursor { pos, first },
        None => Cursor::default(),
    };
    // A cursor always lies before the opcode preceding the target, so `prev` is right.
    let b = s[p];
    let runlen = span;
    let last = first + span - 1;
    if is_val(b) {
        let old = val_value(b);
        if old >= count {
            return Ok(SetResult::Unchanged);
        }
        if runlen == 1 {
            s[p] = val_op(count, 1);
            merge_adjacent(s, prev.unwrap_or(HDR), &mut end);
            return Ok(SetResult::Updated);
        }
    }
    if is_zero(b) && runlen == 1 {
        s[p] = val_op(count, 1);
        merge_adjacent(s, prev.unwrap_or(HDR), &mut end);
        return Ok(SetResult::Updated);
    }
    // Step 2: split the opcode into up to three (at most 5 bytes).
    let mut seq = Seq::default();
    if is_val(b) {
        let cur = val_value(b);
        if index != first {
            seq.push(val_op(cur, index - first));
        }
        seq.push(val_op(count, 1));
        if index != last {
            seq.push(val_op(cur, last - index));
        }
    } else {
        if index != first {
            seq.zero_run(index - first);
        }
        seq.push(val_op(count, 1));
        if index != last {
            seq.zero_run(last - index);
        }
    }
    let seq = &seq.bytes[..seq.len];
    // Step 3: replace the old opcode, unless the string would grow past the limit.
    let old_len = if is_xzero(b) { 2 } else { 1 };
    let delta = seq.len() as isize - old_len as isize;
    if delta > 0 && s.len() + delta as usize > max_bytes {
        return promote(s, index, count);
    }
    let new_len = (s.len() as isize + delta) as usize;
    let old_end = (p + old_len).min(s.len());
    s.splice(p..old_end, seq.iter().copied());
    // A truncated final XZERO had one byte in the string: keep Redis' resulting length.
    s.truncate(new_len);
    end = s.len();
    merge_adjacent(s, prev.unwrap_or(HDR), &mut end);
    Ok(SetResult::Updated)
}

/// Step 4 of Redis' sparse update: starting at `p`, look at up to 5 opcodes and fold a VAL
/// into the following VAL when both hold the same value and the run fits in one VAL.
fn merge_adjacent(s: &mut Vec<u8>, mut p: usize, end: &mut usize) {
    let mut scan = 5;
    while p < *end && scan > 0 {
        scan -= 1;
        let b = s[p];
        if is_xzero(b) {
            p += 2;
            continue;
        } else if is_zero(b) {
            p += 1;
            continue;
        }
        if p + 1 < *end && is_val(s[p + 1]) {
            let v1 = val_value(b);
            let v2 = val_value(s[p + 1]);
            if v1 == v2 {
                let len = val_len(b) + val_len(s[p + 1]);
                if len <= VAL_MAX_LEN {
                    s[p + 1] = val_op(v1, len);
                    s.remove(p);
                    *end -= 1;
                    continue;
                }
            }
        }
        p += 1;
    }
    s[15] |= 0x80;
}

fn promote(s: &mut Vec<u8>, index: usize, count: u8) -> Result<SetResult, HllError> {
    to_dense(s)?;
    let body = &mut s[HDR..];
    if dense::get(body, index) < count {
        dense::set(body, index, count);
    }
    Ok(SetResult::Promoted)
}
