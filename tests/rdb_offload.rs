//! Offloaded LZF decompression (`RdbFeeder::offload_lzf`, the browser's decode workers)
//! against the slice reader: the feeder hands out jobs, a simulated pool answers them in a
//! random order, interleaved with the pushes (correct bytes, declined, bytes of the wrong
//! length, some never answered before `finish`), and the result must be exactly what
//! `load_rdb` returns: the same snapshot, or the same error (kind, offset, key, message). On
//! generated files of large compressed strings and blobs and on every committed snapshot,
//! whole, cut and damaged. Randomized: the seed is printed and replayed from `BITLENS_SEED`.

mod common;

use bitlens::hash::Hash;
use bitlens::rdb::{blobs, load_rdb, lzf, Item, LoadOptions, LzfSpan, RdbError, RdbFeeder};
use bitlens::rdb::{RdbWriter, Snapshot, ValueKind};
use common::snapshots;

/// What one offloaded load did.
#[derive(Default, Debug)]
struct Tally {
    jobs: usize,
    supplied: usize,
}

/// `file` pushed in random pieces into a feeder offloading strings of `min_len` bytes or
/// more, its jobs answered by a simulated pool in random order; then finished.
fn offloaded(
    file: &[u8],
    opts: &LoadOptions,
    min_len: u64,
    rng: &mut fastrand::Rng,
    tally: &mut Tally,
) -> Result<Snapshot, RdbError> {
    let mut feeder = RdbFeeder::load(opts.clone());
    feeder.offload_lzf(min_len);
    // Open jobs: the span and the answer the pool will give.
    let mut open: Vec<(LzfSpan, Option<Vec<u8>>)> = Vec::new();
    let mut at = 0;
    let abandon = rng.u8(..) < 25;
    let take = |feeder: &mut RdbFeeder<_>, open: &mut Vec<_>, tally: &mut Tally| {
        for job in feeder.take_jobs() {
            tally.jobs += 1;
            let data = feeder
                .job_data(&job)
                .unwrap_or_else(|| panic!("job {job:?} outside the bytes held"))
                .to_vec();
            assert_eq!(data.len() as u64, job.compressed_len);
            let answer = match lzf::decompress(&data, job.len as usize) {
                Ok(b) if rng_pick() => Some(b),
                Ok(mut b) if rng_pick() => {
                    b.push(0); // the wrong length: the reader decompresses it itself
                    Some(b)
                }
                _ => None,
            };
            open.push((job, answer));
        }
    };
    loop {
        let push = at < file.len() && (open.is_empty() || rng.u8(..) < 100);
        let step = if push {
            let most = if rng.bool() { 64 } else { 64 << 10 };
            let n = rng.usize(1..=most).min(file.len() - at);
            let p = feeder.push(&file[at..at + n]);
            at += n;
            p
        } else if !open.is_empty() {
            if at == file.len() && abandon {
                break; // jobs never answered: `finish` decompresses them
            }
            let (job, answer) = open.swap_remove(rng.usize(..open.len()));
            tally.supplied += answer.is_some() as usize;
            feeder.supply(job.offset, answer)
        } else {
            break;
        };
        if let Err(e) = step {
            if std::env::var("DEBUG_OFFLOAD").is_ok() {
                eprintln!("step error after push={push} at={at}: {e}");
            }
            assert_eq!(feeder.push(b"more").unwrap_err(), e, "an error stays");
            return Err(e);
        }
        take(&mut feeder, &mut open, tally);
        if at == file.len() && open.is_empty() {
            break;
        }
    }
    feeder.finish_snapshot()
}

thread_local! {
    static PICK: std::cell::RefCell<fastrand::Rng> = const { std::cell::RefCell::new(fastrand::Rng::with_seed(0)) };
}

/// Mostly true: the pool's answer is usually the bytes.
fn rng_pick() -> bool {
    PICK.with(|r| r.borrow_mut().u8(..) < 220)
}

fn assert_same(want: &Result<Snapshot, RdbError>, got: &Result<Snapshot, RdbError>, what: &str) {
    match (want, got) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.entries(), b.entries(), "{what}");
            assert_eq!((a.version, &a.aux), (b.version, &b.aux), "{what}");
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "{what}"),
        _ => panic!(
            "{what}: slice {:?} vs offloaded {:?}",
            want.as_ref().map(|s| s.entries().len()),
            got.as_ref().map(|s| s.entries().len())
        ),
    }
}

/// A file of compressible strings of 20 B to 300 KB, blobs (hashes, lists, sets) whose
/// listpacks are LZF-compressed, small keys and expiries between them.
fn generated(rng: &mut fastrand::Rng) -> Vec<u8> {
    let mut w = RdbWriter::new(Vec::new(), 11).unwrap();
    w.select_db(0).unwrap();
    for i in 0..rng.usize(20..80) {
        let key = format!("k:{i}");
        let expiry = (rng.u8(..) < 40).then_some(4_000_000_000_000i64 + i as i64);
        match rng.u8(..4) {
            0 | 1 => {
                let n = if rng.bool() {
                    rng.usize(20..2000)
                } else {
                    rng.usize(2000..300_000)
                };
                let period = rng.usize(1..40);
                let v: Vec<u8> = (0..n).map(|j| ((j % period) * 7) as u8).collect();
                w.write_string(key.as_bytes(), &v, expiry).unwrap();
            }
            2 => {
                // A hashtable hash (each value its own LZF string) or a listpack blob (one
                // LZF string).
                let fields: Vec<(Vec<u8>, Vec<u8>)> = (0..rng.usize(1..200))
                    .map(|j| {
                        (
                            format!("field{j}").into_bytes(),
                            vec![b'a' + (j % 26) as u8; 40],
                        )
                    })
                    .collect();
                if rng.bool() {
                    let hash = Hash::from_fields(fields.iter().map(|(f, v)| (f, v, None)));
                    w.write_hash(key.as_bytes(), &hash, expiry).unwrap();
                } else {
                    let items: Vec<Item<'_>> = fields
                        .iter()
                        .flat_map(|(f, v)| [Item::Str(f), Item::Str(v)])
                        .collect();
                    let blob = blobs::listpack(&items);
                    w.write_blob(key.as_bytes(), ValueKind::HashListpack, &blob, expiry)
                        .unwrap();
                }
            }
            _ => {
                w.write_string(key.as_bytes(), format!("{i}").as_bytes(), expiry)
                    .unwrap();
            }
        }
    }
    if rng.bool() {
        w.select_db(3).unwrap();
        let v = vec![0x55u8; rng.usize(100..100_000)];
        w.write_string(b"other-db", &v, None).unwrap();
    }
    w.finish().unwrap()
}

/// `file` whole, cut at a few points and with a few bytes changed: the offloaded load
/// gives the slice reader's result each time.
fn check(name: &str, file: &[u8], rng: &mut fastrand::Rng, tally: &mut Tally) {
    let opts = LoadOptions::default();
    let lax = LoadOptions {
        verify_checksum: false,
        ..LoadOptions::default()
    };
    for min_len in [1, 64, 4096] {
        assert_same(
            &load_rdb(file, &opts),
            &offloaded(file, &opts, min_len, rng, tally),
            &format!("{name}, offload from {min_len} B"),
        );
    }
    for _ in 0..4 {
        let cut = rng.usize(0..file.len());
        assert_same(
            &load_rdb(&file[..cut], &opts),
            &offloaded(&file[..cut], &opts, 1, rng, tally),
            &format!("{name} cut at {cut}"),
        );
        let mut bad = file.to_vec();
        for _ in 0..rng.usize(1..4) {
            let at = rng.usize(9.min(bad.len())..bad.len());
            bad[at] = rng.u8(..);
        }
        assert_same(
            &load_rdb(&bad, &lax),
            &offloaded(&bad, &lax, 1, rng, tally),
            &format!("{name} damaged"),
        );
    }
}

#[test]
fn offloaded_lzf_loads_as_the_slice_reader() {
    let seed = bitlens_testseed::seed();
    let mut rng = fastrand::Rng::with_seed(seed);
    PICK.with(|r| *r.borrow_mut() = fastrand::Rng::with_seed(seed ^ 1));
    let mut tally = Tally::default();
    for round in 0..12 {
        let file = generated(&mut rng);
        check(
            &format!("generated file {round}"),
            &file,
            &mut rng,
            &mut tally,
        );
    }
    for (name, file) in snapshots() {
        check(&name, &file, &mut rng, &mut tally);
    }
    // The jobs were real: most answered with bytes.
    assert!(
        tally.jobs > 500 && tally.supplied > tally.jobs / 2,
        "{tally:?}"
    );
}

/// A whole file of large compressed strings pushed at once: every one of them is planned in
/// the first push (framing ahead reaches the end), none decompressed by the reader while
/// they are open, and supplying them decodes the file.
#[test]
fn framing_ahead_plans_every_large_string_at_once() {
    let mut w = RdbWriter::new(Vec::new(), 11).unwrap();
    w.select_db(0).unwrap();
    for i in 0..40u32 {
        let v: Vec<u8> = (0..100_000u32)
            .map(|j| ((j % 13) * (i + 1)) as u8)
            .collect();
        w.write_string(format!("bm:{i}").as_bytes(), &v, None)
            .unwrap();
    }
    let file = w.finish().unwrap();
    let mut feeder = RdbFeeder::load(LoadOptions::default());
    feeder.offload_lzf(64 << 10);
    let p = feeder.push(&file).unwrap();
    let jobs = feeder.take_jobs();
    assert_eq!(jobs.len(), 40);
    // Stopped at the first string's record (its type byte, key and LZF header before it).
    assert!(
        p.decoded < jobs[0].offset && jobs[0].offset - p.decoded < 16,
        "{p:?} {jobs:?}"
    );
    assert_eq!(feeder.open_jobs(), 40);
    assert_eq!(feeder.awaiting(), Some(jobs[0].offset));
    assert!(jobs.windows(2).all(|w| w[0].offset < w[1].offset));
    // Answered last to first: nothing decodes until the first is back.
    let datas: Vec<Vec<u8>> = jobs
        .iter()
        .map(|j| lzf::decompress(feeder.job_data(j).unwrap(), j.len as usize).unwrap())
        .collect();
    for (j, d) in jobs.iter().zip(datas).rev() {
        let p = feeder.supply(j.offset, Some(d)).unwrap();
        let done = j.offset == jobs[0].offset;
        assert_eq!(p.decoded == file.len() as u64, done, "{p:?}");
    }
    assert!(feeder.take_jobs().is_empty());
    let snap = feeder.finish_snapshot().unwrap();
    assert_eq!(
        snap.entries(),
        load_rdb(&file, &LoadOptions::default()).unwrap().entries()
    );
}

/// A hashtable hash of 150 large compressed values, its jobs answered one at a time in file
/// order: the record is read again once all of its strings are back, not once per answer
/// (`attempts` stays small), and the values are the slice reader's.
#[test]
fn a_record_of_many_large_strings_is_read_again_once() {
    let value = |i: usize| -> Vec<u8> { (0..150_000).map(|j| ((j / 7 + i) % 11) as u8).collect() };
    let fields: Vec<(String, Vec<u8>)> = (0..150).map(|i| (format!("f{i}"), value(i))).collect();
    let hash = Hash::from_fields(fields.iter().map(|(f, v)| (f, v, None)));
    let mut w = RdbWriter::new(Vec::new(), 11).unwrap();
    w.select_db(0).unwrap();
    w.write_hash(b"big", &hash, None).unwrap();
    w.write_string(b"after", b"1", None).unwrap();
    let file = w.finish().unwrap();
    let mut feeder = RdbFeeder::load(LoadOptions::default());
    feeder.offload_lzf(64 << 10);
    feeder.push(&file).unwrap();
    let jobs = feeder.take_jobs();
    assert_eq!(jobs.len(), 150);
    let before = feeder.attempts();
    for job in &jobs {
        assert_eq!(
            feeder.awaiting(),
            Some(job.offset),
            "the first string still out"
        );
        let bytes = lzf::decompress(feeder.job_data(job).unwrap(), job.len as usize).unwrap();
        feeder.supply(job.offset, Some(bytes)).unwrap();
    }
    assert_eq!(feeder.awaiting(), None);
    assert!(
        feeder.attempts() - before <= 2,
        "{} reads",
        feeder.attempts() - before
    );
    let snap = feeder.finish_snapshot().unwrap();
    assert_eq!(
        snap.entries(),
        load_rdb(&file, &LoadOptions::default()).unwrap().entries()
    );
}

/// Framing plans only the selected keys' strings, and at most MAX_PLANNED_BYTES of them at
/// once (plus the one the reader waits on); the rest are planned as the reader moves on.
#[test]
fn framing_plans_selected_keys_within_the_budget() {
    use bitlens::rdb::MAX_LZF_JOB_BYTES;
    let n = MAX_LZF_JOB_BYTES as usize; // 16 MiB each
    let mut w = RdbWriter::new(Vec::new(), 11).unwrap();
    w.select_db(0).unwrap();
    for i in 0..12u8 {
        let v: Vec<u8> = (0..n).map(|j| (j as u8 / 16).wrapping_add(i)).collect();
        let key = if i % 4 == 3 {
            format!("skip:{i}")
        } else {
            format!("keep:{i}")
        };
        w.write_string(key.as_bytes(), &v, None).unwrap();
    }
    let file = w.finish().unwrap();
    let opts = LoadOptions {
        patterns: vec![b"keep:*".to_vec()],
        ..LoadOptions::default()
    };
    let mut feeder = RdbFeeder::load(opts.clone());
    feeder.offload_lzf(1 << 20);
    feeder.push(&file).unwrap();
    let mut planned = 0;
    loop {
        let jobs = feeder.take_jobs();
        if jobs.is_empty() {
            break;
        }
        // 128 MiB of 16 MiB strings: 8 at a time at most.
        assert!(jobs.len() <= 8, "{} jobs planned at once", jobs.len());
        planned += jobs.len();
        for job in jobs {
            let bytes = lzf::decompress(feeder.job_data(&job).unwrap(), job.len as usize).unwrap();
            feeder.supply(job.offset, Some(bytes)).unwrap();
        }
    }
    assert_eq!(planned, 9, "the 9 keep:* strings, none of the skipped ones");
    let snap = feeder.finish_snapshot().unwrap();
    assert_eq!(snap.entries(), load_rdb(&file, &opts).unwrap().entries());
    assert_eq!(snap.entries().len(), 9);
}
