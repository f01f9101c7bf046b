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
//! as the parallel reader frames a batch, and lists the large LZF strings of the key records
//! it selects as jobs ([`LzfSpan`]: the absolute offset of the compressed data, its lengths),
//! within a budget of bytes in flight. The caller
//! decompresses each job elsewhere (with [`super::lzf::decompress`]) and hands the bytes back
//! ([`RdbFeeder::supply`]); the reader then decodes the record with them, and the next ones
//! as far as the bytes held and the supplied strings allow; a record of several such strings
//! is read again once all of them are back, not once per string. Framing resumes where it
//! last stopped (its horizon), and while the reader waits it runs again only once the bytes
//! held have doubled, so the input is framed a bounded number of times.
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

/// Decompressed bytes of the jobs planned and not yet decoded (open or supplied) above which
/// framing plans no more (the string the reader waits on is planned whatever the budget): the
/// memory in flight is at most this plus one string of [`MAX_LZF_JOB_BYTES`].
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
    Open,
    /// Decompressed bytes (their length), supplied; taken by the string value that uses
    /// them ([`Offload::lookup`]), after which the reader decompresses the string itself if
    /// it ever reads it again.
    Ready(Cell<Option<Vec<u8>>>),
    /// Declined: the reader decompresses it.
    Local,
}

/// One planned string: where it is, the end of the record holding it (absolute; the
/// string's own end when not known), and where it stands.
struct Planned {
    span: LzfSpan,
    record_end: u64,
    job: Job,
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
    jobs: Vec<Planned>,
    /// Jobs planned but not yet taken by the caller ([`Offload::take_new`]).
    new: Vec<LzfSpan>,
    /// Uncompressed bytes of the open and ready jobs.
    planned_bytes: u64,
    /// Where framing stopped (absolute offset of a record's first byte) and the reader state
    /// there.
    horizon: Option<(u64, State)>,
    /// The input has ended: every string not supplied is decompressed by the reader.
    ended: bool,
    /// Bytes held when framing last ran while the reader waited: it runs again once they
    /// have doubled (a record arriving in many pieces is not walked once per piece).
    framed_with: usize,
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
            framed_with: 0,
        }
    }

    /// What the reader does with the LZF string `span`. Supplied bytes are handed over
    /// whole when `take` (a string value: nothing after it in its record can send the reader
    /// back to it), else as a copy (a blob or an element, whose record may be read again).
    pub fn lookup(&self, span: LzfSpan, take: bool) -> Lookup {
        if !self.offloads(span) {
            return Lookup::Decode;
        }
        match self.job(span) {
            Some(Job::Ready(cell)) => match cell.take() {
                Some(b) if take => Lookup::Use(b),
                Some(b) => {
                    let copy = b.clone();
                    cell.set(Some(b));
                    Lookup::Use(copy)
                }
                None => Lookup::Decode,
            },
            Some(Job::Local) => Lookup::Decode,
            Some(Job::Open) | None if self.ended => Lookup::Decode,
            Some(Job::Open) | None => Lookup::Await,
        }
    }

    /// Whether the reader, stopped at `awaited`, should go on waiting: a string of that
    /// record is still out (so that the record is read again once, when all are back).
    pub fn waits(&self, awaited: LzfSpan) -> bool {
        self.blocking(awaited).is_some()
    }

    /// The first string still out of the record the reader stopped at (at `awaited`): the
    /// offset of the job it waits on.
    pub fn blocking(&self, awaited: LzfSpan) -> Option<u64> {
        if self.ended {
            return None;
        }
        let end = self
            .planned(awaited.offset)
            .map_or(awaited.offset + 1, |p| p.record_end);
        let from = self.index(awaited.offset);
        self.jobs[from..]
            .iter()
            .take_while(|p| p.span.offset < end)
            .find(|p| matches!(p.job, Job::Open))
            .map(|p| p.span.offset)
    }

    /// Whether framing should run again while the reader waits, with `held` bytes held: once
    /// they have doubled since it last ran ([`Offload::framed`]).
    pub fn frame_again(&mut self, held: usize) -> bool {
        if held < self.framed_with.saturating_mul(2) {
            return false;
        }
        self.framed(held);
        true
    }

    /// Framing ran with `held` bytes held.
    pub fn framed(&mut self, held: usize) {
        self.framed_with = held.max(1);
    }

    /// Where a job at `offset` is or would go in `jobs`.
    fn index(&self, offset: u64) -> usize {
        self.jobs.partition_point(|p| p.span.offset < offset)
    }

    /// The string planned at `offset`.
    fn planned(&self, offset: u64) -> Option<&Planned> {
        self.jobs
            .get(self.index(offset))
            .filter(|p| p.span.offset == offset)
    }

    /// The job of `span`, when one was planned at its offset with its lengths.
    fn job(&self, span: LzfSpan) -> Option<&Job> {
        self.planned(span.offset)
            .filter(|p| p.span == span)
            .map(|p| &p.job)
    }

    /// Whether `span` is of an offloaded size.
    fn offloads(&self, span: LzfSpan) -> bool {
        (self.min_len..=MAX_LZF_JOB_BYTES).contains(&span.len)
    }

    /// Whether framing may plan more jobs (the bytes in flight are under
    /// [`MAX_PLANNED_BYTES`]).
    pub fn has_room(&self) -> bool {
        self.planned_bytes < MAX_PLANNED_BYTES
    }

    /// Plans `span`, a string of the record ending at absolute offset `record_end`, as a job
    /// when it is of an offloaded size and not planned yet; returns whether it was planned
    /// now.
    pub fn plan(&mut self, span: LzfSpan, record_end: u64) -> bool {
        let at = self.index(span.offset);
        if let Some(p) = self
            .jobs
            .get_mut(at)
            .filter(|p| p.span.offset == span.offset)
        {
            // Known (the awaited string, planned before its record was walked): its record's
            // end may be known now.
            p.record_end = p.record_end.max(record_end);
            return false;
        }
        if !self.offloads(span) || self.ended {
            return false;
        }
        let job = Job::Open;
        self.jobs.insert(
            at,
            Planned {
                span,
                record_end,
                job,
            },
        );
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
        let at = self.index(offset);
        let Some(p) = self.jobs.get_mut(at).filter(|p| p.span.offset == offset) else {
            return false;
        };
        if !matches!(p.job, Job::Open) {
            return false;
        }
        p.job = match bytes {
            Some(b) if b.len() as u64 == p.span.len => Job::Ready(Cell::new(Some(b))),
            _ => {
                self.planned_bytes -= p.span.len;
                Job::Local
            }
        };
        true
    }

    /// Forgets the jobs before absolute offset `decoded` (their records are decoded).
    pub fn forget_before(&mut self, decoded: u64) {
        let done = self.index(decoded);
        for p in self.jobs.drain(..done) {
            if !matches!(p.job, Job::Local) {
                self.planned_bytes -= p.span.len;
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
            .filter(|p| matches!(p.job, Job::Open))
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
