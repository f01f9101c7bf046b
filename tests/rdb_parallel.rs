//! Decoding on several threads (`LoadOptions::threads`) gives exactly the one-thread result:
//! on every committed fixture and conformance snapshot (each server's own files), whole and
//! damaged (cut at many points, bytes changed), read from a slice and through windows of
//! several sizes. "Exactly" is every record (db, key, type byte, encoding, value, expiry,
//! offset, size) in file order, then the header, or the same error (kind, offset, key,
//! message).

mod common;

use bitlens::rdb::{visit_rdb, visit_rdb_chunked, LoadOptions, Record};
use common::snapshots;

/// Every record the visitor sees, as text, then the header or the error.
fn transcript(
    bytes: &[u8],
    threads: usize,
    window: Option<usize>,
    patterns: &[&[u8]],
) -> Vec<String> {
    let opts = LoadOptions {
        verify_checksum: false,
        threads,
        patterns: patterns.iter().map(|p| p.to_vec()).collect(),
        // Every batch shared, however small its records (the default keeps small ones on
        // the reading thread; see `adaptive`).
        parallel_record_bytes: 0,
        ..Default::default()
    };
    transcript_with(bytes, &opts, window)
}

/// [`transcript`] with the default sharing rule: batches of small records read on the
/// calling thread, and the records after them by the one-thread step for a while; from the
/// whole input, then in windows of `window` bytes, which must agree.
fn adaptive(bytes: &[u8], threads: usize, window: usize) -> Vec<String> {
    let opts = LoadOptions {
        verify_checksum: false,
        threads,
        ..Default::default()
    };
    let whole = transcript_with(bytes, &opts, None);
    assert_eq!(
        transcript_with(bytes, &opts, Some(window)),
        whole,
        "{threads} threads, {window}-byte windows"
    );
    whole
}

fn transcript_with(bytes: &[u8], opts: &LoadOptions, window: Option<usize>) -> Vec<String> {
    let mut out = Vec::new();
    let mut visit = |r: Record<'_>| {
        out.push(format!(
            "{} {:?} {} {} {:?} {:?} {} {} {:?}",
            r.db,
            r.key,
            r.type_byte,
            r.encoding,
            r.value,
            r.expire_at_ms,
            r.offset,
            r.value_bytes,
            r.db_size_hint
        ));
        Ok(())
    };
    let res = match window {
        None => visit_rdb(bytes, opts, &mut visit),
        Some(n) => {
            let mut src = bytes;
            visit_rdb_chunked(&mut src, n, opts, &mut |_, _| Ok(()), &mut visit)
        }
    };
    out.push(match res {
        Ok(h) => format!("ok {:?} {:?} {:?}", h.aux, h.databases, h.module_aux),
        Err(e) => format!("error {:?} {e}", e.kind),
    });
    out
}

fn same_with_threads(name: &str, bytes: &[u8]) {
    let one = transcript(bytes, 1, None, &[]);
    for threads in [2, 4] {
        assert_eq!(
            transcript(bytes, threads, None, &[]),
            one,
            "{name}: {threads} threads"
        );
    }
    for window in [97, 4096] {
        let one = transcript(bytes, 1, Some(window), &[]);
        assert_eq!(
            transcript(bytes, 3, Some(window), &[]),
            one,
            "{name}: 3 threads, {window}-byte windows"
        );
    }
    assert_eq!(
        adaptive(bytes, 2, 4096),
        one,
        "{name}: 2 threads, small records kept"
    );
    let filtered = transcript(bytes, 1, None, &[b"*a*"]);
    assert_eq!(
        transcript(bytes, 2, None, &[b"*a*"]),
        filtered,
        "{name}: filtered"
    );
}

#[test]
fn every_snapshot_loads_the_same_on_several_threads() {
    for (name, bytes) in snapshots() {
        same_with_threads(&name, &bytes);
    }
}

#[test]
fn damaged_snapshots_fail_the_same_on_several_threads() {
    let seed = 0x5eed_0029;
    let mut rng = fastrand::Rng::with_seed(seed);
    for (name, bytes) in snapshots() {
        // Cut at 10 points, and 10 files with a few bytes changed.
        for _ in 0..10 {
            let cut = rng.usize(0..bytes.len());
            let one = transcript(&bytes[..cut], 1, None, &[]);
            assert_eq!(
                transcript(&bytes[..cut], 2, None, &[]),
                one,
                "{name} cut at {cut}"
            );
            let mut bad = bytes.clone();
            for _ in 0..rng.usize(1..4) {
                let at = rng.usize(9.min(bad.len())..bad.len());
                bad[at] = rng.u8(..);
            }
            let one = transcript(&bad, 1, None, &[]);
            assert_eq!(transcript(&bad, 4, None, &[]), one, "{name} damaged");
            assert_eq!(
                transcript(&bad, 2, Some(512), &[]),
                transcript(&bad, 1, Some(512), &[]),
                "{name} damaged, windows"
            );
        }
    }
}

/// Runs of small records (kept on the reading thread, the records after them read by the
/// one-thread step for a while) between runs of large ones (shared): the records, their order,
/// offsets and errors are the one-thread reader's, whole and cut anywhere.
#[test]
fn runs_of_small_and_large_records_load_the_same_on_several_threads() {
    use bitlens::rdb::RdbWriter;
    let mut w = RdbWriter::new(Vec::new(), 11).unwrap();
    w.select_db(0).unwrap();
    let big = |i: usize| {
        (0..300_000usize)
            .map(|j| (j * 31 + i) as u8)
            .collect::<Vec<u8>>()
    };
    for run in 0..4 {
        for i in 0..40_000 {
            let expiry = (i % 7 == 0).then_some(4_000_000_000_000i64 + i as i64);
            w.write_string(
                format!("small:{run}:{i}").as_bytes(),
                format!("v{i}").as_bytes(),
                expiry,
            )
            .unwrap();
        }
        for i in 0..24 {
            w.write_string(format!("large:{run}:{i}").as_bytes(), &big(i), None)
                .unwrap();
        }
    }
    let bytes = w.finish().unwrap();
    let one = transcript(&bytes, 1, None, &[]);
    assert_eq!(one.len(), 4 * 40_024 + 1);
    assert_eq!(adaptive(&bytes, 2, 1 << 20), one, "2 threads");
    assert_eq!(adaptive(&bytes, 3, 100_000), one, "3 threads");
    let mut rng = fastrand::Rng::with_seed(0x5eed_0031);
    for _ in 0..6 {
        let cut = rng.usize(9..bytes.len());
        assert_eq!(
            adaptive(&bytes[..cut], 2, 65_536),
            transcript(&bytes[..cut], 1, None, &[]),
            "cut at {cut}"
        );
    }
}
