//! Decoding key records on several threads, with the one-thread reader's results.
//!
//! A batch is a run of key records in the reader's window, with only key-prefix opcodes
//! between them (expiry, LRU idle, LFU freq, ... see [`Opcode::prefixes_key`](super::Opcode::prefixes_key)): nothing in
//! it changes the reader's state but the pending expiry. The calling thread *frames* the
//! batch (each record read with its value only walked: lengths checked, nothing decompressed
//! or built), noting where each key record starts and ends and the expiry it carries. The
//! records are then decoded in full in contiguous groups: helpers on the current rayon pool
//! claim groups in order, and the calling thread hands each group's records to the visitor in
//! file order as soon as the group is ready, decoding an unclaimed group itself rather than
//! wait. Delivery (a keyspace insert, a report's tally) thus overlaps decoding instead of
//! following it. Records small on average ([`LoadOptions::parallel_record_bytes`]) gain
//! nothing from it (3M small keys: 2 threads were slower than one for a load and for a
//! report), so such a batch is decoded on the calling thread, and the records after it are
//! read by the one-thread step for a while ([`serial_span`]).
//!
//! Why the output equals the one-thread reader's: a key record's decoding depends only on
//! its bytes, the window it is read from (the same one), the database, the pending expiry and
//! the RESIZEDB hint, and those are what each worker is given. A batch stops before any other
//! opcode, at EOF, at a string too long for the window, and at the first record the framing
//! walk refuses; the one-thread step then reads that record itself. When a worker's full
//! decoding of a record fails, or ends elsewhere than its frame, the records before it are
//! delivered and the one-thread step reads it again from its expiry opcodes on, so that the
//! error, its offset and key (or the need for more input) are exactly the one-thread
//! reader's.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use super::reader::Cursor;
use super::{read_record, KeyPrefix, LoadOptions, RdbError, Record, State, Step};

/// Encoded bytes framed per batch per thread (up to 4× as much to give each thread one
/// record): decoded values of a whole batch are held until they are delivered, so this bounds
/// the memory in flight (with [`FRAMES_PER_THREAD`]). One record per thread, not two: with
/// two, `inspect` of a file of 12.5 MB bitmaps held 139 MB at its peak on 2 threads (53 MB on
/// one), with one 98 MB, and the 336 MB bench file loads as fast (1.7-2.0× on 2 threads).
const BYTES_PER_THREAD: usize = 8 << 20;
/// Key records framed per batch per thread.
const FRAMES_PER_THREAD: usize = 8192;
/// Groups of records per thread (a group is one rayon task): enough to balance records of
/// uneven cost.
const GROUPS_PER_THREAD: usize = 4;

/// The bytes the reader reads with the one-thread step after a batch of `used` bytes of small
/// records (see [`LoadOptions::parallel_record_bytes`]) before it frames a batch again: 16
/// times the batch, at most 16 MiB (large values after a run of small ones wait at most that
/// long for the pool). Framing small records costs what sharing them would save (0.7 s of
/// 3M small keys' load), so such a run is framed in about one byte of 17.
pub(super) fn serial_span(used: usize) -> u64 {
    (used as u64).saturating_mul(16).min(16 << 20)
}

/// What [`batch`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Batch {
    /// Records delivered: window bytes consumed (0: the first record is for the one-thread
    /// step), and whether they were small records, all decoded on the calling thread.
    Consumed(usize, bool),
    /// Nothing delivered: the window ends inside the run of records before it holds one per
    /// thread (records of several MB each), so it should first grow to reach this absolute
    /// offset. Asked only while the window holds less than twice the byte budget, so that a
    /// window never grows past that for the batch's sake.
    Need(u64),
}

/// One framed key record: where its type byte is and where it ends in the window, and what
/// its prefix opcodes set (expiry, LRU idle time, LFU counter).
#[derive(Debug, Clone, Copy)]
struct Frame {
    start: usize,
    end: usize,
    prefix: KeyPrefix,
}

/// Frames a batch at the start of `window` (absolute offset `base`, `eof` when it is the end of
/// the input), decodes it on `opts.threads` threads and passes each record to `f` in file
/// order. Returns the window bytes consumed: 0 when the first record is not a key record that
/// can be batched (an opcode, EOF, a long string, a record the walk refuses), which the caller
/// then reads with the one-thread step; or that the window should grow first ([`Batch::Need`]).
/// `st` is left as after the bytes consumed.
pub(super) fn batch<'w, F>(
    window: &'w [u8],
    base: u64,
    eof: bool,
    st: &mut State,
    opts: &LoadOptions,
    f: &mut F,
) -> Result<Batch, RdbError>
where
    F: for<'r> FnMut(Record<'r>) -> Result<(), RdbError>,
{
    let threads = opts.threads.max(1);
    let format = st.header.format;
    let prefix_at_start = st.prefix;
    let mut frames: Vec<Frame> = Vec::new();
    let mut c = Cursor::window(window, base, eof);
    c.max_string = opts.max_value_bytes;
    let mut prefix_after_last = st.prefix;
    // Until the batch has its bytes and a record per thread (records of several MB each),
    // within 4× the bytes and the record cap.
    let more = |bytes: usize, n: usize| {
        (bytes < BYTES_PER_THREAD * threads || n < threads)
            && bytes < 4 * BYTES_PER_THREAD * threads
            && n < FRAMES_PER_THREAD * threads
    };
    while more(c.pos, frames.len()) {
        let start = c.pos;
        let Some(&byte) = window.get(start) else {
            break;
        };
        if format.opcode(byte).is_some_and(|op| !op.prefixes_key()) {
            break;
        }
        let prefix = st.prefix;
        c.need = None;
        match read_record(&mut c, st, opts, true) {
            Ok(Step::Opcode) => {}
            Ok(Step::Key(_)) => {
                frames.push(Frame {
                    start,
                    end: c.pos,
                    prefix,
                });
                prefix_after_last = st.prefix;
            }
            Err(_) if !eof && frames.len() < threads => {
                // Cut by the window's end before every thread has a record.
                if let Some(end) = c.need.filter(|_| start < 2 * BYTES_PER_THREAD * threads) {
                    st.prefix = prefix_at_start;
                    return Ok(Batch::Need(end));
                }
                break;
            }
            _ => break,
        }
    }
    // Undo the prefix opcodes read after the last framed record: the one-thread step reads
    // them again with the record they qualify.
    st.prefix = prefix_after_last;
    if frames.is_empty() {
        return Ok(Batch::Consumed(0, false));
    }
    // Small records stay on this thread (LoadOptions::parallel_record_bytes).
    let framed = frames.last().map_or(0, |f| f.end) - frames[0].start;
    let small = framed < opts.parallel_record_bytes.saturating_mul(frames.len());

    let per_group = frames.len().div_ceil(threads * GROUPS_PER_THREAD).max(1);
    let (db, db_size, known_len) = (st.db, st.db_size, st.known_len);
    let decode = |fr: &Frame| -> Option<Record<'w>> {
        let mut wst = State {
            header: super::Header {
                version: format.version,
                format,
                ..Default::default()
            },
            db,
            prefix: fr.prefix,
            db_size,
            known_len,
        };
        let mut c = Cursor::window(window, base, eof);
        c.max_string = opts.max_value_bytes;
        c.pos = fr.start;
        match read_record(&mut c, &mut wst, opts, false) {
            Ok(Step::Key(rec)) if c.pos == fr.end => Some(rec),
            _ => None,
        }
    };
    let groups: Vec<&[Frame]> = frames.chunks(per_group).collect();
    let pipe = Pipeline::new(groups.len());
    let decode_group =
        |g: usize| -> Vec<Option<Record<'w>>> { groups[g].iter().map(decode).collect() };

    // The helpers decode groups in claim order; this thread delivers them in file order as
    // each is ready, decoding an unclaimed group itself rather than wait, so that delivery
    // (the visitor: a keyspace insert, a report tally) overlaps the decoding.
    let mut consumed = 0;
    let mut failed: Option<RdbError> = None;
    rayon::in_place_scope(|s| {
        let helpers = if small {
            0
        } else {
            threads.min(groups.len()) - 1
        };
        for _ in 0..helpers {
            s.spawn(|_| while pipe.decode_next(&decode_group) {});
        }
        let mut i = 0;
        'deliver: for g in 0..groups.len() {
            let Some(recs) = pipe.wait(g, &decode_group) else {
                // A helper panicked: stop; the scope passes its panic on.
                break;
            };
            for rec in recs {
                let Some(rec) = rec else {
                    // Read again by the one-thread step, from the end of the record before it
                    // (its expiry opcodes included), with the state it had there.
                    st.prefix = if i == 0 {
                        prefix_at_start
                    } else {
                        KeyPrefix::default()
                    };
                    break 'deliver;
                };
                let key = rec.key.clone();
                if let Err(e) = f(rec) {
                    failed = Some(e.with_key(&key));
                    break 'deliver;
                }
                consumed = frames[i].end;
                i += 1;
            }
        }
        pipe.stop();
    });
    match failed {
        Some(e) => Err(e),
        None => Ok(Batch::Consumed(consumed, small)),
    }
}

/// The groups of one batch between the threads that decode them and the one that delivers
/// them: each group is claimed once (in order), decoded by whoever claimed it, and taken by the
/// delivering thread in order.
struct Pipeline<T> {
    /// Each group's records once decoded (taken when delivered).
    slots: Vec<Mutex<Option<T>>>,
    /// The next group to claim.
    next: AtomicUsize,
    /// No more groups are to be decoded (delivery stopped, or a decoder panicked).
    stopped: AtomicBool,
    /// A decoding thread panicked: the group it held will never be ready.
    poisoned: AtomicBool,
}

/// Marks a [`Pipeline`] poisoned when the decoding thread holding it unwinds.
struct PanicGuard<'a>(&'a AtomicBool);

impl Drop for PanicGuard<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Release);
        }
    }
}

impl<T> Pipeline<T> {
    fn new(groups: usize) -> Self {
        Pipeline {
            slots: (0..groups).map(|_| Mutex::new(None)).collect(),
            next: AtomicUsize::new(0),
            stopped: AtomicBool::new(false),
            poisoned: AtomicBool::new(false),
        }
    }

    /// Claims the next group and decodes it into its slot; false when none is left (or
    /// delivery stopped).
    fn decode_next(&self, decode: &(impl Fn(usize) -> T + Sync)) -> bool {
        if self.stopped.load(Ordering::Acquire) {
            return false;
        }
        let g = self.next.fetch_add(1, Ordering::AcqRel);
        if g >= self.slots.len() {
            return false;
        }
        let guard = PanicGuard(&self.poisoned);
        let out = decode(g);
        *lock(&self.slots[g]) = Some(out);
        drop(guard);
        true
    }

    /// Group `g` once decoded (by a helper, or by this thread when no one has claimed it or a
    /// later group is waiting to be claimed); `None` when a decoding thread panicked.
    fn wait(&self, g: usize, decode: &(impl Fn(usize) -> T + Sync)) -> Option<T> {
        loop {
            if let Some(v) = lock(&self.slots[g]).take() {
                return Some(v);
            }
            if self.poisoned.load(Ordering::Acquire) {
                return None;
            }
            if !self.decode_next(decode) {
                std::thread::yield_now();
            }
        }
    }

    /// Stops the claiming of groups (the helpers finish the one they hold).
    fn stop(&self) {
        self.stopped.store(true, Ordering::Release);
    }
}

/// The slot's lock, also after a panic elsewhere (a slot is only ever set whole).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::super::*;

    /// Every record as text (db, key, type, encoding, value, expiry, offset, size), or the
    /// error, read with `threads`.
    fn transcript(bytes: &[u8], threads: usize, chunk: Option<usize>) -> Vec<String> {
        let opts = LoadOptions {
            verify_checksum: false,
            threads,
            ..Default::default()
        };
        let mut out = Vec::new();
        let mut visit = |r: Record<'_>| {
            out.push(format!(
                "{} {:?} {} {} {:?} {:?} {:?} {:?} {} {}",
                r.db,
                r.key,
                r.type_byte,
                r.encoding,
                r.value,
                r.expire_at_ms,
                r.lru_idle_s,
                r.lfu_freq,
                r.offset,
                r.value_bytes
            ));
            Ok(())
        };
        let res = match chunk {
            None => visit_rdb(bytes, &opts, &mut visit),
            Some(n) => {
                let mut src = bytes;
                visit_rdb_chunked(&mut src, n, &opts, &mut |_, _| Ok(()), &mut visit)
            }
        };
        match res {
            Ok(h) => out.push(format!("ok {:?} {:?}", h.aux, h.databases)),
            Err(e) => out.push(format!("error {e}")),
        }
        out
    }

    fn sample() -> Vec<u8> {
        let mut w = RdbWriter::new(Vec::new(), 11).unwrap();
        w.aux(b"redis-ver", b"7.2.4").unwrap();
        w.select_db(0).unwrap();
        for i in 0..3000u32 {
            let key = format!("k:{i}");
            let expire = (i % 7 == 0).then_some(1_900_000_000_000 + i as i64);
            let value = if i % 3 == 0 {
                vec![(i % 251) as u8; 100 + (i as usize % 900)]
            } else {
                i.to_string().into_bytes()
            };
            // LRU idle times and LFU counters prefix some keys, with or without an expiry.
            if i % 5 == 1 {
                w.lru_idle(u64::from(i) * 37).unwrap();
            }
            if i % 11 == 2 {
                w.lfu_freq((i % 256) as u8).unwrap();
            }
            w.write_string(key.as_bytes(), &value, expire).unwrap();
        }
        w.select_db(3).unwrap();
        for i in 0..500u32 {
            w.write_string(format!("d3:{i}").as_bytes(), b"v", None)
                .unwrap();
        }
        w.finish().unwrap()
    }

    #[test]
    fn a_batch_decodes_the_run_of_key_records_it_frames() {
        let bytes = sample();
        let mut offsets = Vec::new();
        visit_rdb(&bytes, &LoadOptions::default(), |r| {
            offsets.push((r.db, r.offset));
            Ok(())
        })
        .unwrap();
        let first = offsets[0].1 as usize;
        let mut st = State {
            header: Header {
                version: 11,
                format: Format {
                    family: Family::Redis,
                    version: 11,
                },
                ..Default::default()
            },
            db: 0,
            prefix: Default::default(),
            db_size: None,
            known_len: Some(bytes.len() as u64),
        };
        let opts = LoadOptions {
            threads: 4,
            ..Default::default()
        };
        let mut seen = Vec::new();
        let done = super::batch(
            &bytes[first..],
            first as u64,
            true,
            &mut st,
            &opts,
            &mut |r| {
                seen.push((r.db, r.offset));
                Ok(())
            },
        )
        .unwrap();
        let super::Batch::Consumed(used, _) = done else {
            panic!("{done:?}")
        };
        // Every key of database 0, up to the SELECTDB before database 3.
        assert_eq!(seen, offsets[..3000]);
        assert_eq!(
            first + used,
            offsets[3000].1 as usize - 2,
            "up to SELECTDB 3 (fe 03)"
        );
        assert_eq!(st.prefix, Default::default());
    }

    #[test]
    fn threads_give_the_one_thread_records() {
        let bytes = sample();
        let one = transcript(&bytes, 1, None);
        assert_eq!(one.len(), 3501);
        assert!(one.last().unwrap().starts_with("ok"), "{:?}", one.last());
        for threads in [2, 3, 8] {
            assert_eq!(transcript(&bytes, threads, None), one, "{threads} threads");
            for chunk in [64, 4096, 1 << 16] {
                assert_eq!(
                    transcript(&bytes, threads, Some(chunk)),
                    transcript(&bytes, 1, Some(chunk)),
                    "{threads} threads, {chunk}-byte windows"
                );
            }
        }
    }

    #[test]
    fn damaged_files_fail_as_with_one_thread() {
        let bytes = sample();
        let mut rng = fastrand::Rng::with_seed(0x7a11);
        for _ in 0..60 {
            let mut bad = bytes.clone();
            match rng.u8(0..3) {
                0 => bad.truncate(rng.usize(0..bytes.len())),
                1 => {
                    let at = rng.usize(9..bytes.len());
                    bad[at] = rng.u8(..);
                }
                _ => {
                    for _ in 0..8 {
                        let at = rng.usize(9..bytes.len());
                        bad[at] ^= 1 << rng.u8(0..8);
                    }
                }
            }
            let one = transcript(&bad, 1, None);
            assert_eq!(transcript(&bad, 4, None), one);
            assert_eq!(
                transcript(&bad, 2, Some(4096)),
                transcript(&bad, 1, Some(4096))
            );
        }
    }
}
