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
use super::{collect_into, Collector, Header, LoadOptions, Poll, RdbError, RdbErrorKind};
use super::{Record, Snapshot, Walk};

/// Receives the key records of a pushed load (see [`RdbFeeder`]).
pub trait RecordSink {
    /// Takes one key record; an `Err` stops the load with that error (the key is added to
    /// it).
    fn record(&mut self, rec: Record<'_>) -> Result<(), RdbError>;
}

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
        }
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
        self.run()?;
        if !self.ready {
            // (The reader waits only while the input has not ended.)
            return Err(RdbError::new(
                RdbErrorKind::Truncated,
                self.input.consumed(),
                "truncated input: the reader stopped before the end of the file",
            ));
        }
        Ok((self.walk.into_header(), self.sink))
    }

    /// Advances the reader unless the pending record cannot have completed yet.
    fn run(&mut self) -> Result<(), RdbError> {
        if self.ready {
            return Ok(());
        }
        if let (Some(w), false) = (self.wait, self.input.window().2) {
            if self.input.received() < w.need || self.input.unconsumed() < 2 * w.held {
                return Ok(());
            }
        }
        self.attempts += 1;
        let sink = &mut self.sink;
        let step = self.walk.advance(
            &mut self.input,
            &self.opts,
            &mut |_, _| Ok(()),
            &mut |rec| sink.record(rec),
        );
        match step {
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
                self.failed = Some(e.clone());
                Err(e)
            }
        }
    }
}

impl RecordSink for Collector {
    fn record(&mut self, rec: Record<'_>) -> Result<(), RdbError> {
        collect_into(&mut self.databases, rec)
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
