//! Where the RDB reader's bytes come from: one slice holding the whole file ([`SliceInput`]),
//! a bounded, refillable window over a [`ChunkSource`] ([`ChunkedInput`]) so that a file
//! of any size is read with memory for one window plus the largest single value, or the
//! bytes pushed so far by a download ([`PushInput`]).
//!
//! The reader decodes one record at a time from [`Input::window`]. When a record runs past
//! the end of a window that is not the end of the input, the record is decoded again after
//! the window was extended: by [`Input::fill`] for the pull inputs (at least doubling the
//! bytes held for the record, so re-decoding costs at most about twice the record's size),
//! by later pushes for [`PushInput`] (the feeder retries under the same doubling rule). Long
//! raw strings are consumed from the window piece by piece as it fills, never held whole.

use super::{Crc64Digest, RdbError, CRC64};

/// A random-access byte source of known length, read in pieces (a browser `Blob` through
/// `FileReaderSync`, a file, a test buffer).
pub trait ChunkSource {
    /// Total length in bytes.
    fn len(&self) -> u64;

    /// True for an empty source.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Reads up to `buf.len()` bytes at byte `offset` into `buf`; returns how many were read
    /// (0 only at or past the end). An `Err` stops the load with an
    /// [`super::RdbErrorKind::Read`] error at `offset` naming it.
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize>;
}

/// A [`ChunkSource`] over a byte slice (tests, fuzzing).
impl ChunkSource for &[u8] {
    fn len(&self) -> u64 {
        <[u8]>::len(self) as u64
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        let start = (offset.min(<[u8]>::len(self) as u64)) as usize;
        let n = buf.len().min(<[u8]>::len(self) - start);
        buf[..n].copy_from_slice(&self[start..start + n]);
        Ok(n)
    }
}

/// A [`ChunkSource`] over an open file (native only): `read_at` seeks and reads, so an RDB
/// file of any size is decoded with one window of it in memory.
#[cfg(not(target_arch = "wasm32"))]
impl ChunkSource for std::fs::File {
    fn len(&self) -> u64 {
        self.metadata().map_or(0, |m| m.len())
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::io::{Read, Seek, SeekFrom};
        self.seek(SeekFrom::Start(offset))?;
        let mut got = 0;
        while got < buf.len() {
            match self.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(got)
    }
}

/// The reader's view of its input.
pub(crate) trait Input {
    /// The unconsumed bytes available now, the absolute offset of the first, and whether
    /// they reach the end of the input.
    fn window(&self) -> (&[u8], u64, bool);

    /// Marks the first `n` bytes of the window as read.
    fn consume(&mut self, n: usize);

    /// Extends the window so that it reaches absolute offset `end` (or the end of input),
    /// keeping its unconsumed bytes.
    fn fill(&mut self, end: u64) -> Result<(), RdbError>;

    /// The CRC-64 of every byte before the current position.
    fn crc_so_far(&mut self) -> u64;

    /// Total input length in bytes.
    fn total(&self) -> u64;

    /// The input's full length when it is known before the end is reached (a slice, a
    /// sized source, a download's announced length), for bounding size hints.
    fn known_len(&self) -> Option<u64>;

    /// The input's length when it is certain (a slice, a sized source, a download that has
    /// ended; not an announced length): a length field claiming more bytes than remain is
    /// refused as truncated at once, before anything is allocated for it.
    fn exact_len(&self) -> Option<u64>;
}

/// The error for `what` needing `n` bytes where only `left` remain, at absolute offset `at`.
pub(crate) fn truncated(at: u64, what: &'static str, n: u64, left: u64) -> RdbError {
    RdbError::new(
        at,
        super::ErrorDetail::Short {
            what,
            needed: n,
            left,
        },
    )
}

/// The whole input in one slice.
pub(crate) struct SliceInput<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> SliceInput<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        SliceInput { bytes, pos: 0 }
    }
}

impl Input for SliceInput<'_> {
    fn window(&self) -> (&[u8], u64, bool) {
        (&self.bytes[self.pos..], self.pos as u64, true)
    }

    fn consume(&mut self, n: usize) {
        self.pos += n;
    }

    fn fill(&mut self, _end: u64) -> Result<(), RdbError> {
        Ok(())
    }

    fn crc_so_far(&mut self) -> u64 {
        CRC64.checksum(&self.bytes[..self.pos])
    }

    fn total(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn known_len(&self) -> Option<u64> {
        Some(self.bytes.len() as u64)
    }
    fn exact_len(&self) -> Option<u64> {
        Some(self.bytes.len() as u64)
    }
}

/// A window over a [`ChunkSource`], refilled `chunk` bytes (or more) at a time.
pub(crate) struct ChunkedInput<'s, S: ChunkSource + ?Sized> {
    src: &'s mut S,
    total: u64,
    chunk: usize,
    /// Bytes from absolute offset `start`; `buf[pos..]` are unconsumed.
    buf: Vec<u8>,
    start: u64,
    pos: usize,
    /// CRC-64 of the bytes before `start` (when checksums are wanted).
    digest: Option<Crc64Digest>,
}

impl<'s, S: ChunkSource + ?Sized> ChunkedInput<'s, S> {
    /// A window over `src` reading at least `chunk` bytes (minimum 1) per refill; `crc`
    /// keeps a running CRC-64 for [`Input::crc_so_far`].
    pub fn new(src: &'s mut S, chunk: usize, crc: bool) -> Self {
        let total = src.len();
        ChunkedInput {
            src,
            total,
            chunk: chunk.max(1),
            buf: Vec::new(),
            start: 0,
            pos: 0,
            digest: crc.then(|| CRC64.digest()),
        }
    }

    /// Drops the consumed bytes from the front of the window (folding them into the CRC).
    fn compact(&mut self) {
        if self.pos == 0 {
            return;
        }
        if let Some(d) = &mut self.digest {
            d.update(&self.buf[..self.pos]);
        }
        self.buf.drain(..self.pos);
        self.start += self.pos as u64;
        self.pos = 0;
        // Do not keep a huge buffer around after one huge value.
        if self.buf.capacity() > 4 * self.chunk.max(self.buf.len()) {
            self.buf.shrink_to(self.chunk.max(self.buf.len()));
        }
    }

    fn end(&self) -> u64 {
        self.start + self.buf.len() as u64
    }

    fn read_error(&self, at: u64, e: std::io::Error) -> RdbError {
        RdbError::new(at, super::ErrorDetail::Read).with_cause(e.into())
    }
}

impl<S: ChunkSource + ?Sized> Input for ChunkedInput<'_, S> {
    fn window(&self) -> (&[u8], u64, bool) {
        (
            &self.buf[self.pos..],
            self.start + self.pos as u64,
            self.end() >= self.total,
        )
    }

    fn consume(&mut self, n: usize) {
        self.pos += n;
        debug_assert!(self.pos <= self.buf.len());
    }

    fn fill(&mut self, end: u64) -> Result<(), RdbError> {
        self.compact();
        // At least double what the window holds, and at least one chunk.
        let held = self.buf.len() as u64;
        let target = end
            .max(self.start + 2 * held)
            .max(self.start + held + self.chunk as u64)
            .min(self.total);
        while self.end() < target {
            let at = self.end();
            let want = (target - at) as usize;
            let old = self.buf.len();
            self.buf.reserve_exact(want);
            self.buf.resize(old + want, 0);
            let got = self
                .src
                .read_at(at, &mut self.buf[old..])
                .map_err(|e| self.read_error(at, e))?;
            self.buf.truncate(old + got.min(want));
            if got == 0 {
                // The source is shorter than it said: treat as its end.
                self.total = self.end();
                break;
            }
        }
        Ok(())
    }

    fn crc_so_far(&mut self) -> u64 {
        self.compact();
        self.digest.map_or(0, |d| d.finalize())
    }

    fn total(&self) -> u64 {
        self.total
    }

    fn known_len(&self) -> Option<u64> {
        Some(self.total)
    }
    fn exact_len(&self) -> Option<u64> {
        Some(self.total)
    }
}

/// The bytes a download has delivered so far: `buf[pos..]` are not yet consumed by the
/// reader (at most the record being decoded plus the last pushes). Consumed bytes are dropped
/// from the front (folded into the running CRC-64) once they are at least as many as the
/// unconsumed ones, so that every byte is moved at most a bounded number of times.
pub(crate) struct PushInput {
    buf: Vec<u8>,
    /// Absolute offset of `buf[0]`.
    start: u64,
    pos: usize,
    /// CRC-64 of the bytes before `start` (when checksums are wanted).
    digest: Option<Crc64Digest>,
    /// True once the download ended: the window then reaches the end of the input.
    finished: bool,
    /// The length the download announced (HTTP Content-Length), if any.
    announced: Option<u64>,
}

impl PushInput {
    /// An empty input; `crc` keeps a running CRC-64 for [`Input::crc_so_far`].
    pub fn new(crc: bool) -> Self {
        PushInput {
            buf: Vec::new(),
            start: 0,
            pos: 0,
            digest: crc.then(|| CRC64.digest()),
            finished: false,
            announced: None,
        }
    }

    /// Notes the length the download announced (a hint: the input may end before or after).
    pub fn announce(&mut self, len: u64) {
        self.announced = Some(len);
    }

    /// Appends the next bytes of the input.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.pos > 0 && self.pos >= self.buf.len() - self.pos {
            self.compact();
        }
        self.buf.extend_from_slice(bytes);
    }

    /// Appends up to `max` bytes of `src`, read at the offset received so far straight into
    /// the buffer (no copy between); returns how many (0 at the source's end). The buffer
    /// keeps its room from read to read: after the first read, one takes what the bytes held
    /// leave of it (never less than half of `max`), so that it grows only for a record longer
    /// than it.
    pub fn read_from(&mut self, src: &mut dyn ChunkSource, max: usize) -> std::io::Result<usize> {
        if self.pos > 0 && self.pos >= self.buf.len() - self.pos {
            self.compact();
        }
        let held = self.buf.len();
        let room = self.buf.capacity() - held;
        let n = if room >= max / 2 { room.min(max) } else { max };
        self.buf.resize(held + n, 0);
        let read = src.read_at(self.start + held as u64, &mut self.buf[held..]);
        self.buf.truncate(held + *read.as_ref().unwrap_or(&0));
        read
    }

    /// Marks the end of the input.
    pub fn finish(&mut self) {
        self.finished = true;
    }

    /// Bytes received so far.
    pub fn received(&self) -> u64 {
        self.start + self.buf.len() as u64
    }

    /// Bytes consumed by the reader so far.
    pub fn consumed(&self) -> u64 {
        self.start + self.pos as u64
    }

    /// Bytes received but not yet consumed.
    pub fn unconsumed(&self) -> usize {
        self.buf.len() - self.pos
    }

    fn compact(&mut self) {
        if let Some(d) = &mut self.digest {
            d.update(&self.buf[..self.pos]);
        }
        self.buf.drain(..self.pos);
        self.start += self.pos as u64;
        self.pos = 0;
        // Do not keep a huge buffer around after one huge record.
        let keep = self.buf.len().max(1 << 20);
        if self.buf.capacity() > 4 * keep {
            self.buf.shrink_to(keep);
        }
    }
}

impl Input for PushInput {
    fn window(&self) -> (&[u8], u64, bool) {
        (&self.buf[self.pos..], self.consumed(), self.finished)
    }

    fn consume(&mut self, n: usize) {
        self.pos += n;
        debug_assert!(self.pos <= self.buf.len());
    }

    /// Nothing to pull: the window grows only when the next bytes are pushed.
    fn fill(&mut self, _end: u64) -> Result<(), RdbError> {
        Ok(())
    }

    fn crc_so_far(&mut self) -> u64 {
        self.compact();
        self.digest.map_or(0, |d| d.finalize())
    }

    /// The bytes received so far (the total once finished).
    fn total(&self) -> u64 {
        self.received()
    }

    fn known_len(&self) -> Option<u64> {
        if self.finished {
            Some(self.received())
        } else {
            self.announced.map(|n| n.max(self.received()))
        }
    }
    fn exact_len(&self) -> Option<u64> {
        self.finished.then(|| self.received())
    }
}
