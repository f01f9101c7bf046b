//! Push-style loading: an RDB file decoded while it downloads ([`RdbFeeder`]).
//!
//! The caller pushes each piece of the body as it arrives; the feeder decodes every complete
//! top-level record the bytes received so far hold, with the same reader as [`load_rdb`]
//! (the resumable `Walk`), and keeps the bytes of the record that runs past the end for the
//! next push. An incomplete record is decoded again only once the bytes held for it have at
//! least doubled since the failed attempt and reach the offset the reader said it needs (or
//! at [`RdbFeeder::finish`]), so that the work stays linear in the input even for one huge
//! record: a record of `n` bytes is attempted at sizes `h, ≥ 2h, ≥ 4h, …`, at most `2n`
//! bytes of decoding in all. A length larger than the bytes received so far is no error
//! until the input ends (it is then the same `Truncated` error a whole-buffer load gives):
//! the reader never allocates from a length before the bytes it counts have arrived, so the
//! memory held is the bytes received for the pending record (long raw strings are passed
//! into their value as they arrive, not held).
//!
//! The CRC-64 is computed over the consumed bytes as they are dropped; the trailer check,
//! every error with its absolute offset, and the records given to the sink are exactly those
//! of [`load_rdb`] / [`visit_rdb`] on the whole file.

use super::input::{Input, PushInput};
use super::offload::{LzfSpan, Offload};
use super::reader::Cursor;
use super::{read_record, Collector, Header, LoadOptions, Poll, RdbError};
use super::{Record, Snapshot, Step, Walk};

/// Receives the key records of a pushed load (see [`RdbFeeder`]).
pub trait RecordSink {
    /// Takes one key record; an `Err` stops the load with that error (the key is added to
    /// it).
    fn record(&mut self, rec: Record<'_>) -> Result<(), RdbError>;

    /// Called once the records end, by the load's end or by an error: a sink that checks
    /// records in batches checks the last one here; its error comes before the load's own
    /// (its records came first).
    fn settle(&mut self) -> Result<(), RdbError> {
        Ok(())
    }
}

/// Bytes [`RdbFeeder::read_all`] pushes at a time, reporting progress after each (1 MiB, as
/// [`super::PROGRESS_STEP`]).
pub const PUSH_BYTES: usize = 1 << 20;

/// Where a pushed load stands: bytes decoded (consumed by the reader) and bytes received.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FeedProgress {
    /// Input bytes decoded so far (every record before this offset is done).
    pub decoded: u64,
    /// Input bytes pushed so far.
    pub received: u64,
}

/// The failed attempt an incomplete record waits on.
#[derive(Debug, Clone, Copy)]
struct Wait {
    /// Unconsumed bytes when the attempt failed.
    held: usize,
    /// The absolute offset the reader said it needs (0: not known).
    need: u64,
}

/// A push-style RDB reader: [`RdbFeeder::push`] each piece of the file as it arrives, then
/// [`RdbFeeder::finish`]. The sink receives the same records, and the load ends with the
/// same [`Header`] or [`RdbError`] (kind, absolute offset, key, message), as [`visit_rdb`]
/// over the whole file with the same options. After an error every later call returns it
/// again; bytes after the CRC-64 trailer are ignored, as the whole-buffer reader ignores them.
///
/// # Examples
/// ```
/// use bitlens::rdb::{load_rdb, LoadOptions, RdbFeeder, RdbWriter};
///
/// let mut w = RdbWriter::new(Vec::new(), 11)?;
/// w.select_db(0)?;
/// w.write_string(b"k", b"v", None)?;
/// let file = w.finish()?;
/// let mut feeder = RdbFeeder::load(LoadOptions::default());
/// for piece in file.chunks(3) {
///     feeder.push(piece)?;
/// }
/// let snap = feeder.finish_snapshot()?;
/// assert_eq!(snap.databases[&0].len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RdbFeeder<S> {
    input: PushInput,
    walk: Walk,
    opts: LoadOptions,
    sink: S,
    wait: Option<Wait>,
    ready: bool,
    failed: Option<RdbError>,
    attempts: u64,
    /// Bytes pushed after the file's end (ignored, as the whole-buffer load ignores them),
    /// still counted as received.
    trailing: u64,
    /// Offloaded LZF decompression, when enabled ([`RdbFeeder::offload_lzf`]).
    offload: Option<Offload>,
    /// The offloaded string the reader stopped at, until its bytes are supplied.
    awaiting: Option<LzfSpan>,
}

impl<S: RecordSink> RdbFeeder<S> {
    /// A feeder giving each key record selected by `opts` to `sink`.
    pub fn new(opts: LoadOptions, sink: S) -> Self {
        RdbFeeder {
            input: PushInput::new(opts.verify_checksum),
            walk: Walk::new(),
            opts,
            sink,
            wait: None,
            ready: false,
            failed: None,
            attempts: 0,
            trailing: 0,
            offload: None,
            awaiting: None,
        }
    }

    /// Offloads the decompression of LZF strings of `min_len` to 16 MiB decompressed bytes
    /// (see [`super::offload`]): from now on the reader stops before a record holding such a
    /// string until its bytes are supplied, and lists it (with the other large strings held
    /// after it, at most 128 MiB of them at once) as a job. After every
    /// [`push`](Self::push) and [`supply`](Self::supply), take the new jobs
    /// ([`take_jobs`](Self::take_jobs)), decompress each job's [`job_data`](Self::job_data)
    /// elsewhere ([`super::lzf::decompress`] with the job's `len`), and hand the bytes back
    /// with `supply`, or `None` when that failed. Records and errors stay exactly those of a
    /// feeder without offload; jobs still open at [`finish`](Self::finish) are decompressed
    /// here.
    pub fn offload_lzf(&mut self, min_len: u64) {
        self.offload = Some(Offload::new(min_len));
    }

    /// The offload jobs planned since the last call, in file order (none without
    /// [`offload_lzf`](Self::offload_lzf)).
    pub fn take_jobs(&mut self) -> Vec<LzfSpan> {
        self.offload
            .as_mut()
            .map(Offload::take_new)
            .unwrap_or_default()
    }

    /// The compressed data of a job, while the feeder holds it (from the job's planning
    /// until its record is decoded): `None` for a span outside the bytes held.
    pub fn job_data(&self, job: &LzfSpan) -> Option<&[u8]> {
        let (w, base, _) = self.input.window();
        let start = usize::try_from(job.offset.checked_sub(base)?).ok()?;
        let end = start.checked_add(usize::try_from(job.compressed_len).ok()?)?;
        w.get(start..end)
    }

    /// The offset of the open job the reader waits on, if it waits on one: the caller may
    /// decline it (`supply(offset, None)`) to have it decompressed here at once, when no other
    /// thread has started it.
    pub fn awaiting(&self) -> Option<u64> {
        self.offload.as_ref()?.blocking(self.awaiting?)
    }

    /// The jobs handed out by [`take_jobs`](Self::take_jobs) and not yet supplied.
    pub fn open_jobs(&self) -> usize {
        self.offload.as_ref().map_or(0, Offload::open_jobs)
    }

    /// Hands back the job at absolute data offset `offset`: its decompressed bytes, or
    /// `None` to have the reader decompress it (bytes of another length than the job's count
    /// as `None`; an offset that names no open job is ignored). Then decodes every record
    /// the bytes held and supplied complete, as [`push`](Self::push) does.
    pub fn supply(
        &mut self,
        offset: u64,
        bytes: Option<Vec<u8>>,
    ) -> Result<FeedProgress, RdbError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if let Some(o) = &mut self.offload {
            o.answer(offset, bytes);
        }
        self.run()?;
        Ok(self.progress())
    }

    /// Takes the next bytes of the file and decodes every record they complete. Errors as
    /// the whole-buffer load would at that record (a truncation is only known at
    /// [`RdbFeeder::finish`]).
    pub fn push(&mut self, bytes: &[u8]) -> Result<FeedProgress, RdbError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if self.ready {
            self.trailing += bytes.len() as u64;
        } else {
            self.input.push(bytes);
            self.run()?;
        }
        Ok(self.progress())
    }

    /// Notes the file's length as the download announced it (HTTP Content-Length): the bound
    /// for the RESIZEDB sizing hint ([`Record::db_size_hint`]), which a feeder without it does
    /// not give. Bytes beyond it are still read, and fewer are a truncation as ever.
    pub fn announce_len(&mut self, len: u64) {
        self.input.announce(len);
    }

    /// Bytes decoded and received so far.
    pub fn progress(&self) -> FeedProgress {
        FeedProgress {
            decoded: self.input.consumed(),
            received: self.input.received() + self.trailing,
        }
    }

    /// How many times the reader was run on the bytes held (each push that completed
    /// nothing new but was retried counts one): logarithmic in a record's size, however many
    /// pieces it arrives in.
    pub fn attempts(&self) -> u64 {
        self.attempts
    }

    /// The records' sink (what it has received so far).
    pub fn sink(&self) -> &S {
        &self.sink
    }

    /// Ends the input: decodes what is left and checks the trailer. Returns the header and
    /// the sink, or the error a whole-buffer load of the bytes pushed gives (a file cut short
    /// is a `Truncated` error at the same offset).
    pub fn finish(mut self) -> Result<(Header, S), RdbError> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        self.input.finish();
        if let Some(o) = &mut self.offload {
            o.end();
        }
        self.run()?;
        // The bytes held are read: freed before the sink's last batch is indexed, which is
        // then the peak of the load (300k keys: 0.7 MB less).
        let consumed = self.input.consumed();
        self.input = PushInput::new(false);
        if !self.ready {
            // (The reader waits only while the input has not ended.)
            self.sink.settle()?;
            return Err(RdbError::new(consumed, super::ErrorDetail::StoppedEarly));
        }
        self.sink.settle()?;
        Ok((self.walk.into_header(), self.sink))
    }

    /// Reads all of `src` into the feeder, at most [`PUSH_BYTES`] at a time straight into the
    /// bytes it holds (no buffer between: the held bytes are the record being read and the
    /// last read, a read taking the room the record leaves), with `progress(bytes read,
    /// total)` once at least [`PUSH_BYTES`] more were read, and after the last read; then
    /// [`RdbFeeder::finish`].
    /// The same header, records and errors as [`super::visit_rdb_chunked`] over `src`, one
    /// reader for pushed and pulled input alike. Errors besides the reader's: an empty `src`
    /// ([`super::WrongKind::Empty`], code `empty`), a failed read
    /// ([`super::RdbErrorKind::Read`] at its offset), a stop by `progress`
    /// ([`super::RdbErrorKind::Cancelled`] at the bytes decoded).
    pub fn read_all(
        mut self,
        src: &mut dyn super::ChunkSource,
        progress: super::Progress<'_>,
    ) -> Result<(Header, S), RdbError> {
        let total = src.len();
        if total == 0 {
            let empty = super::ErrorDetail::NotRdb(super::WrongKind::Empty);
            return Err(RdbError::new(0, empty));
        }
        // (The RESIZEDB counts then size each keyspace once.)
        self.announce_len(total);
        // (Bytes after the trailer are not read: the whole-buffer load ignores them.)
        let mut told = 0u64;
        while !self.ready {
            let at = self.input.received();
            let n = self
                .input
                .read_from(src, PUSH_BYTES)
                .map_err(|e| RdbError::new(at, super::ErrorDetail::Read).with_cause(e.into()))?;
            if n == 0 {
                break;
            }
            self.run()?;
            // (A read may be shorter than PUSH_BYTES, taking the room a record leaves:
            // progress stays at least PUSH_BYTES apart, as loads have reported it.)
            let read = at + n as u64;
            if read - told < PUSH_BYTES as u64 && read < total && !self.ready {
                continue;
            }
            told = read;
            progress(read, total).map_err(|stop| {
                let reason = stop.reason;
                RdbError::new(
                    self.input.consumed(),
                    super::ErrorDetail::Cancelled { reason },
                )
            })?;
        }
        self.finish()
    }

    /// Advances the reader unless the pending record cannot have completed yet.
    fn run(&mut self) -> Result<(), RdbError> {
        if self.ready {
            return Ok(());
        }
        if let (Some(span), Some(o)) = (self.awaiting, &mut self.offload) {
            if o.waits(span) && !self.input.window().2 {
                // Still waiting for a string of that record: meanwhile, plan the bytes that
                // arrived (each time they have doubled).
                if o.frame_again(self.input.unconsumed()) {
                    self.frame_ahead(span);
                }
                return Ok(());
            }
            self.awaiting = None;
        } else if let (Some(w), false) = (self.wait, self.input.window().2) {
            if self.input.received() < w.need || self.input.unconsumed() < 2 * w.held {
                return Ok(());
            }
        }
        self.attempts += 1;
        let sink = &mut self.sink;
        let step = self.walk.advance(
            &mut self.input,
            &self.opts,
            self.offload.as_ref(),
            &mut |_, _| Ok(()),
            &mut |rec| sink.record(rec),
        );
        if let Some(o) = &mut self.offload {
            o.forget_before(self.input.consumed());
        }
        match step {
            Ok(Poll::Awaiting(span)) => {
                self.wait = None;
                self.awaiting = Some(span);
                if let Some(o) = &mut self.offload {
                    o.framed(self.input.unconsumed());
                }
                self.frame_ahead(span);
                Ok(())
            }
            Ok(Poll::Ready) => {
                self.ready = true;
                self.wait = None;
                Ok(())
            }
            Ok(Poll::Pending(need)) => {
                self.wait = Some(Wait {
                    held: self.input.unconsumed().max(1),
                    need: need.unwrap_or(0),
                });
                Ok(())
            }
            Err(e) => {
                // (Records the sink checks in batches come before the error.)
                let e = self.sink.settle().err().unwrap_or(e);
                self.failed = Some(e.clone());
                Err(e)
            }
        }
    }
}

impl<S> RdbFeeder<S> {
    /// Plans the large LZF strings of the records held after the reader's position (from
    /// where framing last stopped, when that is still ahead), walking them with lengths only,
    /// until the bytes held end, a record the walk refuses, the end of file, or the jobs'
    /// budget; `awaited`, the string the reader stopped at, is planned in any case.
    fn frame_ahead(&mut self, awaited: LzfSpan) {
        let Some(off) = &mut self.offload else {
            return;
        };
        let (w, base, eof) = self.input.window();
        let end = base + w.len() as u64;
        let (from, mut st) = match off.take_horizon() {
            Some((h, st)) if h >= base && h <= end => (h, st),
            _ => (base, self.walk.state().clone()),
        };
        let mut c = Cursor::window(w, base, eof);
        c.max_string = self.opts.max_value_bytes;
        c.pos = (from - base) as usize;
        let mut at = c.pos;
        // The awaited string first: it is the one the reader needs (its record's end is
        // known once framing has walked it).
        off.plan(awaited, awaited.offset + awaited.compressed_len);
        'records: while off.has_room() && c.pos < w.len() {
            let (start, prefix) = (c.pos, st.prefix);
            c.spans = Some(Vec::new());
            c.need = None;
            let selected = match read_record(&mut c, &mut st, &self.opts, true) {
                // Only the strings the reader will decompress: those of the keys it selects
                // (an opcode's are skipped or small; one that is not is planned when the
                // reader waits on it).
                Ok(Step::Key(rec)) => self.opts.selects_in(rec.db, &rec.key),
                Ok(Step::Opcode) => false,
                Ok(Step::LongString { prefix, .. }) => {
                    // (Its expiry and the like are read again with it.)
                    st.prefix = prefix;
                    break;
                }
                Ok(Step::Eof) | Err(_) => break,
            };
            let end = base + c.pos as u64;
            let spans = c.spans.take().unwrap_or_default();
            // (A string longer than the limit on one value is refused, not decompressed.)
            let max = self.opts.max_value_bytes;
            for span in spans.into_iter().filter(|s| selected && s.len <= max) {
                if !off.has_room() {
                    // Out of budget inside this record: framing resumes at its start, with
                    // the state before it (the strings planned so far stay planned).
                    c.pos = start;
                    st.prefix = prefix;
                    break 'records;
                }
                off.plan(span, end);
            }
            at = c.pos;
        }
        off.set_horizon(base + at as u64, st);
    }
}

impl RecordSink for Collector {
    fn record(&mut self, rec: Record<'_>) -> Result<(), RdbError> {
        self.add(rec)
    }

    fn settle(&mut self) -> Result<(), RdbError> {
        Collector::settle(self, Ok(()))
    }
}

/// Loads a snapshot ([`load_rdb`]'s keyspaces) from pushed bytes.
impl RdbFeeder<Collector> {
    /// A feeder building the snapshot [`load_rdb`] gives (a key met twice in one database is
    /// the same error).
    pub fn load(opts: LoadOptions) -> Self {
        RdbFeeder::new(opts, Collector::default())
    }

    /// [`RdbFeeder::finish`], then the decoded snapshot.
    pub fn finish_snapshot(self) -> Result<Snapshot, RdbError> {
        let (header, c) = self.finish()?;
        Ok(c.into_snapshot(header))
    }
}

#[cfg(doc)]
use super::{load_rdb, visit_rdb};
