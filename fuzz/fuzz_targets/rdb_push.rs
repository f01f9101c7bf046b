//! The push reader (`RdbFeeder`: bytes pushed as a download delivers them) against the slice
//! reader on whole RDB files: split at points drawn from the input (piece sizes of 1 to
//! 4,096 bytes from a hash of it, cycled), with and without the checksum check and with a
//! pattern filter, it must return exactly what `load_rdb` returns: the same snapshot, or the
//! same error (kind, offset, key, message). Every push's progress stays within what was
//! pushed, and pushing after an error returns that error again. The same with every LZF
//! string offloaded (`RdbFeeder::offload_lzf`): jobs answered out of order, some declined.
#![no_main]
use bitlens::rdb::{load_rdb, lzf, LoadOptions, RdbError, RdbFeeder, Snapshot};
use libfuzzer_sys::fuzz_target;

fn same(slice: &Result<Snapshot, RdbError>, pushed: &Result<Snapshot, RdbError>, what: &str) {
    match (slice, pushed) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.entries(), b.entries(), "{what}");
            assert_eq!((a.version, &a.aux), (b.version, &b.aux), "{what}");
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "{what}"),
        _ => panic!("{what}: slice {slice:?} vs pushed {pushed:?}"),
    }
}

/// `file` pushed in pieces of the sizes in `sizes` (cycled), then finished.
fn pushed(file: &[u8], opts: &LoadOptions, sizes: &[usize]) -> Result<Snapshot, RdbError> {
    let mut feeder = RdbFeeder::load(opts.clone());
    let (mut at, mut i) = (0, 0);
    while at < file.len() {
        let n = sizes[i % sizes.len()].min(file.len() - at);
        match feeder.push(&file[at..at + n]) {
            Ok(p) => assert!(p.decoded <= p.received && p.received == (at + n) as u64),
            Err(e) => {
                assert_eq!(feeder.push(b"more").unwrap_err(), e);
                return Err(e);
            }
        }
        at += n;
        i += 1;
    }
    feeder.finish_snapshot()
}

/// [`pushed`] with every LZF string offloaded (`offload_lzf(1)`): after each push and
/// supply the new jobs are answered, last first, with their decompressed bytes, except every
/// third one, declined (and the decompression's own failures); jobs still open at the end are
/// left to `finish`.
fn offloaded(file: &[u8], opts: &LoadOptions, sizes: &[usize]) -> Result<Snapshot, RdbError> {
    let mut feeder = RdbFeeder::load(opts.clone());
    feeder.offload_lzf(1);
    let mut open: Vec<(u64, Option<Vec<u8>>)> = Vec::new();
    let (mut at, mut i) = (0, 0);
    while at < file.len() || !open.is_empty() {
        for job in feeder.take_jobs() {
            let data = feeder.job_data(&job).expect("a job's bytes are held");
            let answer = (open.len() % 3 != 2)
                .then(|| lzf::decompress(data, job.len as usize).ok())
                .flatten();
            open.push((job.offset, answer));
        }
        let step = if let Some((offset, answer)) = (i % 2 == 1).then(|| open.pop()).flatten() {
            feeder.supply(offset, answer)
        } else if at < file.len() {
            let n = sizes[i % sizes.len()].min(file.len() - at);
            at += n;
            feeder.push(&file[at - n..at])
        } else if let Some((offset, answer)) = open.pop() {
            feeder.supply(offset, answer)
        } else {
            break;
        };
        i += 1;
        if let Err(e) = step {
            assert_eq!(feeder.push(b"more").unwrap_err(), e);
            return Err(e);
        }
    }
    feeder.finish_snapshot()
}

fuzz_target!(|file: &[u8]| {
    // Piece sizes from a hash of the input (FNV-1a, then xorshift), so that the seeds stay
    // whole files: eight sizes of 1 to 16 or 1 to 4,096 bytes, cycled.
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in file {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    let mut r = h | 1;
    let sizes: Vec<usize> = (0..8)
        .map(|_| {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            1 + (r % if r & 1 == 0 { 16 } else { 4096 }) as usize
        })
        .collect();
    for opts in [
        LoadOptions {
            verify_checksum: false,
            ..LoadOptions::default()
        },
        LoadOptions::default(),
        LoadOptions {
            loader: None,
            verify_checksum: false,
            patterns: vec![b"s*".to_vec()],
            db: Some(0),
            threads: 1,
            skip_values: false,
            parallel_record_bytes: 0,
            max_value_bytes: bitlens::rdb::DEFAULT_MAX_VALUE_BYTES,
        },
    ] {
        let slice = load_rdb(file, &opts);
        same(&slice, &pushed(file, &opts, &sizes), "pushed");
        same(&slice, &offloaded(file, &opts, &sizes), "offloaded");
    }
});
