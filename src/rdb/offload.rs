//! Offloaded LZF decompression for a pushed load ([`RdbFeeder::offload_lzf`]): other threads
//! (the browser's decode workers) decompress the file's large LZF strings while the feeder
//! decodes everything else.
//!
//! In an RDB file any string may be LZF-compressed: `11 000011`, the compressed length, the
//! uncompressed length, then the data. On a file of large compressed strings (bitmaps, big
//! listpacks) decompression is most of the load (91% of the 336 MB bench file's), and it
//! depends only on the data bytes, so it can run anywhere.
//!
//! How: when the feeder's reader meets an LZF string of at least the offload size whose
//! decompressed bytes it does not hold, it stops before that record (as for a record cut by
//! the window's end) and *frames ahead*: it walks the records held after it with lengths only,
//! as the parallel reader frames a batch, and lists every large LZF string it passes as a job
//! ([`LzfSpan`]: the absolute offset of the compressed data, its lengths). The caller
//! decompresses each job elsewhere (with [`super::lzf::decompress`]) and hands the bytes back
//! ([`RdbFeeder::supply`]); the reader then decodes the record with them, and the next ones
//! as far as the bytes held and the supplied strings allow. Framing resumes where it last
//! stopped (its horizon), so each byte is framed about once.
//!
//! Why the output equals the plain feeder's: supplied bytes are used only for the string at
//! that offset and only when their length is the declared one, and they are what
//! `decompress` gives on those data bytes. A job declined (`supply(offset, None)`: the worker
//! failed, or the data is corrupt) and every job still open when the input ends are
//! decompressed by the reader itself, so errors and their offsets are the plain reader's.
//!
//! [`RdbFeeder::offload_lzf`]: super::RdbFeeder::offload_lzf
//! [`RdbFeeder::supply`]: super::RdbFeeder::supply

use std::cell::Cell;

use super::State;

/// The longest string offloaded (16 MiB): a longer one may be a mostly-zero bitmap, which
/// the reader decodes page by page into a sparse string instead of whole
/// ([`super::lzf::decompress_string`]), so it is never handed out.
pub const MAX_LZF_JOB_BYTES: u64 = super::lzf::DIRECT_MAX;

/// Decompressed bytes the caller may hold at once in planned jobs (the sum of their
/// uncompressed lengths), beyond the string the reader waits on: the memory in flight.
pub const MAX_PLANNED_BYTES: u64 = 128 << 20;

/// One LZF-compressed string of the input, as an offload job: decompress the
/// `compressed_len` bytes at absolute input offset `offset` into exactly `len` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LzfSpan {
    /// Absolute offset in the input of the compressed data's first byte.
    pub offset: u64,
    /// Compressed bytes.
    pub compressed_len: u64,
    /// Decompressed bytes (the string's length).
    pub len: u64,
}

/// Where one planned string stands.
enum Job {
    /// Handed to the caller, not back yet.
    Open(u64),
    /// Decompressed bytes (their length), supplied; taken by the string value that uses
    /// them ([`Offload::lookup`]), after which the reader decompresses the string itself if
    /// it ever reads it again.
    Ready(u64, Cell<Option<Vec<u8>>>),
    /// Declined: the reader decompresses it.
    Local,
}

/// What the reader does with an LZF string ([`Offload::lookup`]).
pub(super) enum Lookup {
    /// Decompress it here (small, declined, taken before, or the input has ended).
    Decode,
    /// Use these supplied bytes.
    Use(Vec<u8>),
    /// Stop before this record until the string's bytes are supplied.
    Await,
}

/// The offload state of one feeder (see the module header).
pub(super) struct Offload {
    /// Strings of at least this many decompressed bytes are offloaded.
    min_len: u64,
    /// Planned strings by the absolute offset of their data, in offset order (a sorted vector:
    /// they are few, at most [`MAX_PLANNED_BYTES`] over the offload size, and mostly planned
    /// in file order).
    jobs: Vec<(u64, Job)>,
    /// Jobs planned but not yet taken by the caller ([`Offload::take_new`]).
    new: Vec<LzfSpan>,
    /// Uncompressed bytes of the open and ready jobs.
    planned_bytes: u64,
    /// Where framing stopped (absolute offset of a record's first byte) and the reader state
    /// there.
    horizon: Option<(u64, State)>,
    /// The input has ended: every string not supplied is decompressed by the reader.
    ended: bool,
}

impl Offload {
    pub fn new(min_len: u64) -> Offload {
        Offload {
            min_len: min_len.max(1),
            jobs: Vec::new(),
            new: Vec::new(),
            planned_bytes: 0,
            horizon: None,
            ended: false,
        }
    }

    /// What the reader does with the LZF string `span`. Supplied bytes are handed over
    /// whole when `take` (a string value: nothing after it in its record can send the reader
    /// back to it), else as a copy (a blob or an element, whose record may be read again).
    pub fn lookup(&self, span: LzfSpan, take: bool) -> Lookup {
        if !self.offloads(span) {
            return Lookup::Decode;
        }
        match self.job(span.offset) {
            Some(Job::Ready(len, cell)) if *len == span.len => match cell.take() {
                Some(b) if take => Lookup::Use(b),
                Some(b) => {
                    let copy = b.clone();
                    cell.set(Some(b));
                    Lookup::Use(copy)
                }
                None => Lookup::Decode,
            },
            Some(Job::Ready(..)) | Some(Job::Local) => Lookup::Decode,
            Some(Job::Open(_)) | None if self.ended => Lookup::Decode,
            Some(Job::Open(_)) | None => Lookup::Await,
        }
    }

    /// The job planned at `offset`.
    fn job(&self, offset: u64) -> Option<&Job> {
        let at = self.jobs.partition_point(|(o, _)| *o < offset);
        self.jobs
            .get(at)
            .filter(|(o, _)| *o == offset)
            .map(|(_, j)| j)
    }

    /// Whether `span` is of an offloaded size.
    fn offloads(&self, span: LzfSpan) -> bool {
        (self.min_len..=MAX_LZF_JOB_BYTES).contains(&span.len)
    }

    /// Whether the string at `offset` was handed out and is not back.
    pub fn is_open(&self, offset: u64) -> bool {
        matches!(self.job(offset), Some(Job::Open(_)))
    }

    /// Whether framing may plan more jobs (the bytes in flight are under
    /// [`MAX_PLANNED_BYTES`]).
    pub fn has_room(&self) -> bool {
        self.planned_bytes < MAX_PLANNED_BYTES
    }

    /// Plans `span` as a job when it is large enough and not planned yet; returns whether it
    /// was planned now.
    pub fn plan(&mut self, span: LzfSpan) -> bool {
        let at = self.jobs.partition_point(|(o, _)| *o < span.offset);
        let known = self.jobs.get(at).is_some_and(|(o, _)| *o == span.offset);
        if !self.offloads(span) || self.ended || known {
            return false;
        }
        self.jobs.insert(at, (span.offset, Job::Open(span.len)));
        self.planned_bytes += span.len;
        self.new.push(span);
        true
    }

    /// The jobs planned since the last call, in file order.
    pub fn take_new(&mut self) -> Vec<LzfSpan> {
        std::mem::take(&mut self.new)
    }

    /// Records the caller's answer for the job at `offset`: its bytes, or `None` (the reader
    /// decompresses it). Returns false when no open job has that offset (the answer is
    /// ignored).
    pub fn answer(&mut self, offset: u64, bytes: Option<Vec<u8>>) -> bool {
        let at = self.jobs.partition_point(|(o, _)| *o < offset);
        let Some((_, job)) = self.jobs.get_mut(at).filter(|(o, _)| *o == offset) else {
            return false;
        };
        let Job::Open(len) = *job else {
            return false;
        };
        *job = match bytes {
            Some(b) if b.len() as u64 == len => Job::Ready(len, Cell::new(Some(b))),
            _ => {
                self.planned_bytes -= len;
                Job::Local
            }
        };
        true
    }

    /// Forgets the jobs before absolute offset `decoded` (their records are decoded).
    pub fn forget_before(&mut self, decoded: u64) {
        let done = self.jobs.partition_point(|(o, _)| *o < decoded);
        for (_, job) in self.jobs.drain(..done) {
            match job {
                Job::Open(len) => self.planned_bytes -= len,
                Job::Ready(len, _) => self.planned_bytes -= len,
                Job::Local => {}
            }
        }
    }

    /// The input has ended: strings not supplied are decompressed by the reader from now on.
    pub fn end(&mut self) {
        self.ended = true;
        self.new.clear();
    }

    /// The jobs handed out and not answered.
    pub fn open_jobs(&self) -> usize {
        self.jobs
            .iter()
            .filter(|(_, j)| matches!(j, Job::Open(_)))
            .count()
    }

    /// Where framing last stopped, and the reader state there.
    pub fn take_horizon(&mut self) -> Option<(u64, State)> {
        self.horizon.take()
    }

    /// Sets where framing stopped.
    pub fn set_horizon(&mut self, at: u64, st: State) {
        self.horizon = Some((at, st));
    }
}
