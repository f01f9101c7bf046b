//! LZF for RDB strings: decompression straight into the string's own representation, and
//! compression for the writer ([`compress`]).
//!
//! LZF: a control byte `c < 32` is followed by `c + 1` literal bytes; otherwise
//! `len = c >> 5` (7 = read one more length byte and add it), then one more byte, giving a
//! back-reference of `len + 2` bytes (3..=264) at distance `((c & 31) << 8 | byte) + 1`
//! (1..=8192).
//!
//! Outputs up to 16 MiB are decoded into one buffer (made sparse afterwards if mostly zero).
//! Longer ones are decoded through a 1 MiB window (plus the 8 KiB of history back-references can reach)
//! whose full pages go to a [`StringBuilder`] that stores only non-zero pages, so a
//! mostly-zero 512 MiB bitmap never exists at full length. As soon as more than half of the
//! string's pages are known to be non-zero (so it would end up plain anyway), the decoder
//! switches to one full-length buffer and decodes the rest straight into it.

use crate::bitmap::sparse::PAGE;
use crate::string::{RedisString, StringBuilder};

/// The furthest a back-reference reaches.
const HISTORY: usize = 8192;
/// Longest output of one instruction (a back-reference of 7 + 255 + 2 bytes).
const MAX_STEP: usize = 264;
/// Bytes decoded between two flushes of the window (a multiple of [`PAGE`]).
const FLUSH: usize = 1 << 20;
/// Outputs up to this long (16 MiB) are decoded into one buffer, then made sparse if mostly
/// zero: a bounded transient allocation, and much faster than paging.
pub(crate) const DIRECT_MAX: u64 = 16 << 20;

/// A corrupt LZF payload: what is wrong, at which byte offset of the compressed data.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LzfError {
    /// A literal run reaches past the end of the data.
    LiteralPastEnd {
        /// Offset of the run's control byte.
        offset: usize,
    },
    /// A back-reference's length or distance byte is missing.
    BackrefCutShort {
        /// Offset of the back-reference's control byte.
        offset: usize,
    },
    /// A back-reference reaches before the start of the output.
    BackrefBeforeStart {
        /// Offset of the back-reference's control byte.
        offset: usize,
    },
    /// The data decodes to more bytes than the declared length.
    OutputTooLong {
        /// Offset of the first instruction that does not fit.
        offset: usize,
    },
    /// The data ends having decoded a length other than the declared one.
    LengthMismatch {
        /// The length of the data (where it ended).
        offset: usize,
        /// Bytes decoded.
        got: u64,
        /// The declared (uncompressed) length.
        declared: u64,
    },
}

impl LzfError {
    /// Offset in the compressed data where the problem was found.
    pub fn offset(&self) -> usize {
        match *self {
            LzfError::LiteralPastEnd { offset }
            | LzfError::BackrefCutShort { offset }
            | LzfError::BackrefBeforeStart { offset }
            | LzfError::OutputTooLong { offset }
            | LzfError::LengthMismatch { offset, .. } => offset,
        }
    }

    /// What is wrong, without the offset (`back-reference cut short`).
    pub fn description(&self) -> String {
        match self {
            LzfError::LiteralPastEnd { .. } => "literal run past the end of the data".into(),
            LzfError::BackrefCutShort { .. } => "back-reference cut short".into(),
            LzfError::BackrefBeforeStart { .. } => {
                "back-reference before the start of the output".into()
            }
            LzfError::OutputTooLong { .. } => "output longer than the declared length".into(),
            LzfError::LengthMismatch { got, declared, .. } => {
                format!("output is {got} bytes, the declared length is {declared}")
            }
        }
    }
}

impl std::fmt::Display for LzfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "LZF data corrupt at byte {}: {}",
            self.offset(),
            self.description()
        )
    }
}

impl std::error::Error for LzfError {}

/// Input bytes the unchecked loop of [`fast`] needs ahead of a control byte: a 3-byte
/// back-reference header, or the control byte and a fixed 32-byte literal copy.
const FAST_IN: usize = 1 + 32 + 2;
/// Output bytes [`fast`] needs ahead of `op`: the longest instruction rounded up to the
/// 16-byte copy blocks, plus the 32-byte over-copy of a literal.
const FAST_OUT: usize = MAX_STEP + 32;

/// The inner loop of [`run`] without per-instruction bounds checks: it runs only while the
/// next instruction cannot reach the end of `data`, of `out` or of `limit` (one check per
/// instruction at the loop head, [`FAST_IN`] and [`FAST_OUT`] ahead), so that literals
/// copy a fixed 32 bytes and back-references fixed 16-byte blocks with no slice checks. The
/// one check an instruction still needs, a back-reference before the start of the output,
/// is kept (the same error as [`run`]). Leaves `*ip`/`*op` at the first instruction it did
/// not decode; [`run`] decodes the rest with every check.
#[inline(always)]
fn fast(
    data: &[u8],
    ip: &mut usize,
    out: &mut [u8],
    op: &mut usize,
    stop: usize,
    limit: usize,
) -> Result<(), LzfError> {
    let out_end = limit.min(out.len());
    let (mut i, mut o) = (*ip, *op);
    let src = data.as_ptr();
    let dst = out.as_mut_ptr();
    let result = loop {
        if i + FAST_IN > data.len() || o >= stop || o + FAST_OUT > out_end {
            break Ok(());
        }
        // SAFETY (every access below): `i + FAST_IN <= data.len()` bounds every read of
        // `data` (at most 3 header bytes, or 1 + 32 literal bytes), and
        // `o + FAST_OUT <= out.len()` bounds every write (a literal writes 32 bytes at `o`,
        // a back-reference at most `MAX_STEP` rounded up to 16, < FAST_OUT) and every read
        // of `out` (`start >= 0` is checked, and the reads end before the writes' end).
        unsafe {
            let ctrl = *src.add(i) as usize;
            if ctrl < 32 {
                let n = ctrl + 1;
                // Fixed 32 bytes; the bytes past `n` are overwritten by what follows, and
                // `o + n <= limit` holds by `FAST_OUT`.
                std::ptr::copy_nonoverlapping(src.add(i + 1), dst.add(o), 32);
                i += 1 + n;
                o += n;
            } else {
                let at = i;
                let mut len = ctrl >> 5;
                i += 1;
                if len == 7 {
                    len += *src.add(i) as usize;
                    i += 1;
                }
                let dist = ((ctrl & 31) << 8 | *src.add(i) as usize) + 1;
                i += 1;
                let len = len + 2;
                if dist > o {
                    *ip = at;
                    *op = o;
                    break Err(LzfError::BackrefBeforeStart { offset: at });
                }
                let from = dst.add(o - dist);
                let to = dst.add(o);
                if dist >= 16 {
                    // Each 16-byte block reads bytes at least 16 back (already final).
                    let mut k = 0;
                    while k < len {
                        let block = std::ptr::read_unaligned(from.add(k) as *const [u8; 16]);
                        std::ptr::write_unaligned(to.add(k) as *mut [u8; 16], block);
                        k += 16;
                    }
                } else if dist >= 8 {
                    let mut k = 0;
                    while k < len {
                        let block = std::ptr::read_unaligned(from.add(k) as *const [u8; 8]);
                        std::ptr::write_unaligned(to.add(k) as *mut [u8; 8], block);
                        k += 8;
                    }
                } else {
                    // Overlapping: byte by byte repeats the pattern as LZF means.
                    for k in 0..len {
                        *to.add(k) = *from.add(k);
                    }
                }
                o += len;
            }
        }
    };
    if result.is_ok() {
        *ip = i;
        *op = o;
    }
    result
}

/// Decodes instructions from `data[*i..]` into `out` at `*o` until the data ends or `*o`
/// reaches `stop` (with `stop + MAX_STEP <= out.len()` unless `stop == limit`). `limit` is
/// the declared output length relative to `out[0]`; `base` is the absolute offset of
/// `out[0]` (0 when `out` starts at the beginning of the output). Not inlined: one copy of
/// the decoding loop for every caller (the wasm module's size).
#[inline(never)]
fn run(
    data: &[u8],
    i: &mut usize,
    out: &mut [u8],
    o: &mut usize,
    stop: usize,
    limit: usize,
) -> Result<(), LzfError> {
    let (mut ip, mut op) = (*i, *o);
    fast(data, &mut ip, out, &mut op, stop, limit)?;
    let result = loop {
        if ip >= data.len() || op >= stop {
            break Ok(());
        }
        let at = ip;
        let ctrl = data[ip] as usize;
        ip += 1;
        if ctrl < 32 {
            let n = ctrl + 1;
            if ip + n > data.len() {
                break Err(LzfError::LiteralPastEnd { offset: at });
            }
            if op + n > limit {
                break Err(LzfError::OutputTooLong { offset: at });
            }
            if ip + 32 <= data.len() && op + 32 <= out.len() {
                // Copy a fixed 32 bytes (inlined, no call); the bytes past `n` are
                // overwritten by the output that follows.
                let src: &[u8; 32] = data[ip..ip + 32].try_into().expect("32 bytes");
                out[op..op + 32].copy_from_slice(src);
            } else {
                out[op..op + n].copy_from_slice(&data[ip..ip + n]);
            }
            ip += n;
            op += n;
        } else {
            let mut len = ctrl >> 5;
            if len == 7 {
                let Some(&extra) = data.get(ip) else {
                    break Err(LzfError::BackrefCutShort { offset: at });
                };
                len += extra as usize;
                ip += 1;
            }
            let Some(&low) = data.get(ip) else {
                break Err(LzfError::BackrefCutShort { offset: at });
            };
            ip += 1;
            let dist = ((ctrl & 31) << 8 | low as usize) + 1;
            let len = len + 2;
            if dist > op {
                break Err(LzfError::BackrefBeforeStart { offset: at });
            }
            if op + len > limit {
                break Err(LzfError::OutputTooLong { offset: at });
            }
            let start = op - dist;
            let padded = len.next_multiple_of(16);
            if dist >= 16 && op + padded <= out.len() {
                // Forward copy in fixed 16-byte blocks: each block reads only bytes already
                // final (at least 16 back); bytes past `len` are overwritten later.
                let mut k = 0;
                while k < len {
                    let block: [u8; 16] =
                        out[start + k..start + k + 16].try_into().expect("16 bytes");
                    out[op + k..op + k + 16].copy_from_slice(&block);
                    k += 16;
                }
            } else if dist >= 8 && op + len.next_multiple_of(8) <= out.len() {
                // The same in 8-byte blocks (each reads bytes at least 8 back).
                let mut k = 0;
                while k < len {
                    let block: [u8; 8] = out[start + k..start + k + 8].try_into().expect("8 bytes");
                    out[op + k..op + k + 8].copy_from_slice(&block);
                    k += 8;
                }
            } else if dist == 1 && len >= 32 {
                let b = out[start];
                out[op..op + len].fill(b);
            } else if len <= 32 {
                // Short (the common case after literals): byte by byte, no call; an
                // overlapping source repeats its pattern as LZF means.
                for k in 0..len {
                    out[op + k] = out[start + k];
                }
            } else if dist >= len {
                out.copy_within(start..start + len, op);
            } else {
                // Overlapping: the pattern of `dist` bytes repeats.
                let mut done = 0;
                while done < len {
                    let n = (len - done).min(dist);
                    out.copy_within(start + done..start + done + n, op + done);
                    done += n;
                }
            }
            op += len;
        }
    };
    *i = ip;
    *o = op;
    result
}

fn length_error(data: &[u8], got: u64, ulen: u64) -> LzfError {
    LzfError::LengthMismatch {
        offset: data.len(),
        got,
        declared: ulen,
    }
}

/// Decompresses `data` whose declared output length is `ulen` bytes into a plain buffer.
/// Errors (never panics) on truncated or corrupt data, back-references before the start, or
/// an output length other than `ulen`. The caller bounds `ulen` (e.g. by the data's size);
/// the buffer grows as the output is decoded (from [`GROW_FROM`] bytes, doubling), so a
/// declared length is never allocated before its bytes exist.
pub fn decompress(data: &[u8], ulen: usize) -> Result<Vec<u8>, LzfError> {
    decode_growing(data, 0, Vec::new(), ulen)
}

/// Outputs longer than this (1 MiB) are decoded into a buffer that grows by doubling as the
/// output is produced, never allocated at the declared length up front.
const GROW_FROM: usize = 1 << 20;

/// Continues decoding `data` from byte `i` after `out`'s bytes (the output so far) up to the
/// declared length `ulen`, growing `out` as needed; checks the end as [`decompress`].
#[inline(never)]
fn decode_growing(
    data: &[u8],
    mut i: usize,
    mut out: Vec<u8>,
    ulen: usize,
) -> Result<Vec<u8>, LzfError> {
    let mut o = out.len();
    loop {
        let room = if ulen <= GROW_FROM {
            ulen
        } else {
            (o.saturating_mul(2)).max(GROW_FROM).min(ulen)
        };
        if out.len() < room {
            out.resize(room, 0);
        }
        // Stop where the next instruction could overrun the buffer (unless it is the whole
        // declared length): the buffer then grows and decoding goes on.
        let stop = if out.len() == ulen {
            ulen
        } else {
            out.len() - MAX_STEP
        };
        run(data, &mut i, &mut out, &mut o, stop, ulen)?;
        if i >= data.len() || o >= ulen || out.len() == ulen {
            break;
        }
    }
    if i < data.len() || o != ulen {
        // Stopped with data left: the output would be longer than declared.
        if i < data.len() {
            return Err(LzfError::OutputTooLong { offset: i });
        }
        return Err(length_error(data, o as u64, ulen as u64));
    }
    Ok(out)
}

/// Decompresses `data` (declared output length `ulen` bytes) into a [`RedisString`]; long,
/// mostly-zero outputs are built page by page and stay sparse (see the module docs).
/// Errors as [`decompress`].
pub fn decompress_string(data: &[u8], ulen: u64) -> Result<RedisString, LzfError> {
    decompress_string_direct_max(data, ulen, DIRECT_MAX)
}

/// [`decompress_string`] with outputs up to `direct_max` bytes decoded into one buffer.
fn decompress_string_direct_max(
    data: &[u8],
    ulen: u64,
    direct_max: u64,
) -> Result<RedisString, LzfError> {
    if ulen <= direct_max || ulen > usize::MAX as u64 {
        return decompress(data, ulen as usize).map(RedisString::from_bytes);
    }
    let total_pages = ulen.div_ceil(PAGE as u64);
    let mut builder = StringBuilder::new(ulen);
    let mut nonzero_pages = 0u64;
    let mut win = vec![0u8; HISTORY + FLUSH + MAX_STEP];
    // `win[0]` is at absolute offset `base`; `win[..o]` is decoded; `base` stays
    // page-aligned once past the start.
    let mut base = 0u64;
    let (mut i, mut o) = (0usize, 0usize);
    while i < data.len() {
        let limit = (ulen - base).min(win.len() as u64) as usize;
        let stop = (HISTORY + FLUSH).min(limit);
        run(data, &mut i, &mut win, &mut o, stop, limit)?;
        if o < HISTORY + FLUSH {
            break; // data ended (or the output is complete)
        }
        // Flush everything but the history, in whole pages.
        let flush = (o - HISTORY) / PAGE * PAGE;
        let piece = &win[..flush];
        nonzero_pages += piece
            .chunks(PAGE)
            .filter(|p| p.iter().any(|&b| b != 0))
            .count() as u64;
        builder.write(base, piece);
        win.copy_within(flush..o, 0);
        o -= flush;
        base += flush as u64;
        if nonzero_pages * 2 > total_pages {
            // It will be plain: decode the rest into one buffer, grown as the output is.
            let b = base as usize;
            let mut dense = vec![0u8; b + o];
            builder.read(0, &mut dense[..b]);
            drop(builder);
            dense[b..b + o].copy_from_slice(&win[..o]);
            drop(win);
            let dense = decode_growing(data, i, dense, ulen as usize)?;
            return Ok(RedisString::from_bytes(dense));
        }
    }
    if i < data.len() {
        return Err(LzfError::OutputTooLong { offset: i });
    }
    if base + o as u64 != ulen {
        return Err(length_error(data, base + o as u64, ulen));
    }
    builder.write(base, &win[..o]);
    Ok(builder.finish())
}

/// Compresses `input` as LZF (the format above; greedy matching of 3-byte prefixes through a
/// hash table, as liblzf's `lzf_compress` does, though not byte-identical to its output), or
/// `None` when the output would exceed `max_out` bytes. For the RDB writer, which stores a
/// string compressed only when that saves bytes. (Ours rather than the `lzf` crate's: its
/// `compress` 1.0.0 indexes past its output buffer, a panic, on inputs that do not compress.)
pub fn compress(input: &[u8], max_out: usize) -> Option<Vec<u8>> {
    const HASH_BITS: u32 = 14;
    /// Literals per run, and the longest distance a back-reference reaches.
    const MAX_LIT: usize = 32;
    let n = input.len();
    let mut out = Vec::with_capacity(max_out.min(n + n / 32 + 1));
    let mut table = vec![0u32; 1 << HASH_BITS];
    let literals = |out: &mut Vec<u8>, lit: &[u8]| {
        for run in lit.chunks(MAX_LIT) {
            out.push(run.len() as u8 - 1);
            out.extend_from_slice(run);
        }
    };
    let (mut i, mut lit_start) = (0usize, 0usize);
    while i + 2 < n && i < u32::MAX as usize {
        let three =
            u32::from(input[i]) << 16 | u32::from(input[i + 1]) << 8 | u32::from(input[i + 2]);
        let h = (three.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize;
        let candidate = table[h] as usize;
        table[h] = i as u32 + 1;
        if candidate > 0 {
            let r = candidate - 1;
            let dist = i - r;
            if dist <= HISTORY && input[r..r + 3] == input[i..i + 3] {
                literals(&mut out, &input[lit_start..i]);
                let max = (n - i).min(MAX_STEP);
                let mut len = 3;
                while len < max && input[r + len] == input[i + len] {
                    len += 1;
                }
                let (l, off) = (len - 2, dist - 1);
                if l < 7 {
                    out.push(((l << 5) | (off >> 8)) as u8);
                } else {
                    out.push(((7 << 5) | (off >> 8)) as u8);
                    out.push((l - 7) as u8);
                }
                out.push(off as u8);
                i += len;
                lit_start = i;
                if out.len() > max_out {
                    return None;
                }
                continue;
            }
        }
        i += 1;
        if i - lit_start > max_out {
            return None;
        }
    }
    literals(&mut out, &input[lit_start..]);
    (out.len() <= max_out).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inputs of several shapes: short, long mostly-zero, long dense, mixed.
    fn inputs() -> Vec<Vec<u8>> {
        let mut r = fastrand::Rng::with_seed(0x2545_F491_4F6C_DD1D);
        let mut noise = |n: usize, density: u32| -> Vec<u8> {
            (0..n)
                .map(|_| if r.u32(..100) < density { r.u8(..) } else { 0 })
                .collect()
        };
        let mut sparse = vec![0u8; 3 << 20];
        for k in (0..sparse.len()).step_by(300_001) {
            sparse[k] = 0x5A;
        }
        let mut mixed = noise(1 << 20, 50);
        mixed.extend(vec![0u8; 2 << 20]);
        mixed.extend(noise(300_000, 100));
        vec![
            b"hello hello hello hello hello!".to_vec(),
            noise(5000, 30),
            vec![7u8; 100_000],
            sparse,
            noise(2 << 20, 12),
            mixed,
            b"abcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabc".repeat(5000),
        ]
    }

    #[test]
    fn round_trips_and_matches_the_reference() {
        for input in inputs() {
            let packed = lzf::compress(&input).expect("compressible");
            assert_eq!(decompress(&packed, input.len()).unwrap(), input);
            let reference = lzf::decompress(&packed, input.len()).unwrap();
            assert_eq!(reference, input);
            for direct_max in [DIRECT_MAX, 0, 1 << 16] {
                let s =
                    decompress_string_direct_max(&packed, input.len() as u64, direct_max).unwrap();
                assert_eq!(s.len(), input.len() as u64);
                assert_eq!(&*s.as_bytes(), &input[..]);
                // Mostly-zero outputs stay sparse.
                if RedisString::from_bytes(input.clone()).is_sparse() {
                    assert!(s.is_sparse(), "len {}", input.len());
                }
            }
        }
    }

    #[test]
    fn corrupt_data_is_an_error() {
        for input in inputs() {
            let packed = lzf::compress(&input).unwrap();
            let n = input.len();
            assert!(decompress(&packed, n + 1).is_err());
            assert!(decompress(&packed, n - 1).is_err());
            for direct_max in [DIRECT_MAX, 0] {
                let dec = |d: &[u8], n: u64| decompress_string_direct_max(d, n, direct_max);
                assert!(dec(&packed, n as u64 + 1).is_err());
                assert!(dec(&packed, n as u64 - 1).is_err());
                for cut in [1, packed.len() / 3, packed.len() - 1] {
                    assert!(dec(&packed[..cut], n as u64).is_err());
                }
            }
            for cut in [1, packed.len() / 3, packed.len() - 1] {
                assert!(decompress(&packed[..cut], n).is_err());
            }
        }
        let e = decompress(&[0x20, 0x00], 3).unwrap_err();
        assert_eq!(e, LzfError::BackrefBeforeStart { offset: 0 });
        assert_eq!(
            e.to_string(),
            "LZF data corrupt at byte 0: back-reference before the start of the output"
        );
        let e = decompress(&[0x05, 1, 2], 6).unwrap_err();
        assert_eq!(e, LzfError::LiteralPastEnd { offset: 0 });
        assert_eq!(
            decompress(&[0x00, 7], 2).unwrap_err(),
            LzfError::LengthMismatch {
                offset: 2,
                got: 1,
                declared: 2
            }
        );
        assert!(decompress_string(&[0x20, 0x00], 3).is_err());
    }

    /// The unchecked loop ([`fast`]) keeps [`run`]'s errors: a back-reference before the
    /// start far from the data's end (where the fast loop decodes) is refused with its offset,
    /// and a mutated stream that decodes at all decodes to what the `lzf` crate gives.
    #[test]
    fn the_unchecked_loop_keeps_every_check() {
        // One literal byte, then a back-reference of distance 100 at offset 2, then enough
        // literal runs that both are inside the fast loop's reach.
        let mut data = vec![0x00, b'a', 0x20, 99];
        for _ in 0..40 {
            data.push(31);
            data.extend_from_slice(&[7u8; 32]);
        }
        assert_eq!(
            decompress(&data, 1 + 3 + 40 * 32).unwrap_err(),
            LzfError::BackrefBeforeStart { offset: 2 }
        );
        let mut r = fastrand::Rng::with_seed(16);
        for input in inputs().into_iter().filter(|i| i.len() <= 300_000) {
            let packed = lzf::compress(&input).unwrap();
            for _ in 0..100 {
                let mut bad = packed.clone();
                let at = r.usize(..bad.len());
                bad[at] = r.u8(..);
                if let Ok(ours) = decompress(&bad, input.len()) {
                    assert_eq!(Ok(ours), lzf::decompress(&bad, input.len()));
                }
            }
        }
    }

    #[test]
    fn random_corruptions_are_errors_and_zero_strings_stay_paged() {
        let mut r = fastrand::Rng::with_seed(14);
        let mut big = vec![0u8; 1 << 24];
        for i in 0..10 {
            big[(1 << 23) + i * 1000] = 0x81;
        }
        let mut all = inputs();
        all.push(big);
        for input in all {
            let packed = lzf::compress(&input).unwrap();
            let s = decompress_string(&packed, input.len() as u64).unwrap();
            if input.len() == 1 << 24 {
                assert!(s.is_sparse() && s.heap_bytes() <= 16 * PAGE);
                assert_eq!(s.popcount(), 20);
            }
            // Random byte changes give a result or an error, never a panic.
            let mut bad = packed.clone();
            for _ in 0..5 {
                let at = r.usize(..bad.len());
                bad[at] = r.u8(..);
            }
            let _ = decompress_string(&bad, input.len() as u64);
            let _ = decompress(&bad, input.len());
        }
    }

    /// Our compressor's output decodes to its input, through our decoder and the `lzf`
    /// crate's, for random inputs of every kind (runs, repeats at every distance, noise,
    /// lengths 0..3000), and is refused only past `max_out` (`BITLENS_SEED`).
    #[test]
    fn compress_round_trips() {
        let seed = bitlens_testseed::seed();
        let mut rng = fastrand::Rng::with_seed(seed);
        for round in 0..2000 {
            let n = rng.usize(0..3000);
            let mut input = Vec::with_capacity(n);
            while input.len() < n {
                match rng.u8(0..4) {
                    0 => input.extend(std::iter::repeat_n(rng.u8(..), rng.usize(1..300))),
                    1 if !input.is_empty() => {
                        let from = rng.usize(0..input.len());
                        let len = rng.usize(1..400).min(input.len() - from);
                        let copy = input[from..from + len].to_vec();
                        input.extend(copy);
                    }
                    _ => input.extend((0..rng.usize(1..100)).map(|_| rng.u8(..))),
                }
            }
            input.truncate(n);
            let what = format!("seed {seed}, round {round}, {n} bytes");
            let packed = compress(&input, n + n / 32 + 1).expect(&what);
            assert_eq!(decompress(&packed, n).expect(&what), input, "{what}");
            if !packed.is_empty() {
                assert_eq!(::lzf::decompress(&packed, n).expect(&what), input, "{what}");
            }
            let max = rng.usize(0..=n + 1);
            match compress(&input, max) {
                Some(p) => assert!(p.len() <= max && p == packed, "{what}"),
                None => assert!(packed.len() > max, "{what}"),
            }
        }
    }
}
