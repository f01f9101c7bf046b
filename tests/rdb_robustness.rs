//! Robustness of the RDB reader, DUMP payload decoder and blob decoders on damaged input:
//! truncation at many offsets, bit flips, absurd lengths spliced in, wrong versions. Each
//! case must return Ok or an error whose offset lies within the input — never panic, hang or
//! allocate beyond what the input justifies. Inputs: the multi-version fixtures and the
//! conformance snapshots. (Run under `cargo fuzz` as well: see fuzz/.)

use std::path::PathBuf;

use bitlens::rdb::{
    intset, listpack, load_dump, load_dump_with, load_rdb, ziplist, zipmap, LoadOptions, RdbError,
};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The fixture RDB files plus the smaller conformance snapshots (the 800 KB bitmaps one is
/// left to the fuzzer to keep this test quick in debug builds).
fn inputs() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(root().join("tests/data/fixtures")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "rdb") {
            out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
        }
    }
    for set in ["signin", "hll", "geo"] {
        for dir in ["../shared/conformance", "tests/data/conformance"] {
            let p = root().join(dir).join(set).join("dump.rdb");
            if p.exists() {
                out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
                break;
            }
        }
    }
    out.sort();
    assert!(out.len() >= 11, "fixtures missing");
    out
}

fn no_crc() -> LoadOptions {
    LoadOptions {
        loader: None,
        verify_checksum: false,
        patterns: Vec::new(),
        db: None,
        threads: 1,
        skip_values: false,
        parallel_record_bytes: 0,
        max_value_bytes: bitlens::rdb::DEFAULT_MAX_VALUE_BYTES,
    }
}

fn check(name: &str, what: &str, input: &[u8], r: Result<(), RdbError>) {
    if let Err(e) = r {
        assert!(
            e.offset <= input.len() as u64,
            "{name} {what}: error offset {} beyond input of {} bytes: {e}",
            e.offset,
            input.len()
        );
        assert!(!e.describe().is_empty());
    }
}

#[test]
fn truncated_files_fail_with_offsets() {
    for (name, bytes) in inputs() {
        let n = bytes.len();
        let stride = (n / 100).max(1);
        let cuts = (0..n.min(600)).chain((600..n).step_by(stride));
        for cut in cuts {
            let input = &bytes[..cut];
            let r = load_rdb(input, &no_crc());
            let e = r.expect_err("a truncated file cannot load");
            assert!(e.offset <= cut as u64, "{name} cut {cut}: {e}");
        }
    }
}

#[test]
fn bit_flips_never_panic() {
    let mut rng = fastrand::Rng::with_seed(0x9E37_79B9_7F4A_7C15);
    for (name, bytes) in inputs() {
        for i in 0..60 {
            let mut m = bytes.clone();
            let flips = 1 + rng.usize(..4);
            for _ in 0..flips {
                let p = rng.usize(..m.len());
                m[p] ^= 1 << rng.usize(..8);
            }
            check(
                &name,
                &format!("flip #{i}"),
                &m,
                load_rdb(&m, &no_crc()).map(|_| ()),
            );
            // With the checksum on, any change that survives parsing is caught by the CRC
            // (RDB 1-4 files have none).
            let has_crc = !matches!(
                bitlens::rdb::detect(&bytes),
                bitlens::rdb::Detected::Rdb(f) if !f.has_checksum()
            );
            if m != bytes && has_crc {
                assert!(
                    load_rdb(&m, &LoadOptions::default()).is_err()
                        || bytes[n_trailer(&bytes)..].iter().all(|&b| b == 0),
                    "{name} flip #{i}: corrupt file accepted with checksum on"
                );
            }
        }
    }
}

fn n_trailer(bytes: &[u8]) -> usize {
    bytes.len() - 8
}

#[test]
fn absurd_lengths_are_rejected_without_huge_allocations() {
    let splices: [&[u8]; 6] = [
        &[0x81, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], // 64-bit length 2^64-1
        &[0x80, 0xFF, 0xFF, 0xFF, 0xFF],                         // 32-bit length 4 GiB
        &[
            0xC3, 0x01, 0x81, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        ], // LZF 1 -> 2^63
        &[0xC3, 0x80, 0xFF, 0xFF, 0xFF, 0xFF, 0x05],             // LZF clen 4 GiB
        &[0x7F, 0xFF],                                           // 14-bit max
        &[0xC4],                                                 // unknown string encoding
    ];
    let mut rng = fastrand::Rng::with_seed(42);
    for (name, bytes) in inputs() {
        for i in 0..48 {
            let s = splices[i % splices.len()];
            let p = 9 + rng.usize(..bytes.len() - 9);
            let mut m = bytes.clone();
            if i % 2 == 0 {
                let end = (p + s.len()).min(m.len());
                m.splice(p..end, s.iter().copied());
            } else {
                m.splice(p..p, s.iter().copied());
            }
            check(
                &name,
                &format!("splice #{i} at {p}"),
                &m,
                load_rdb(&m, &no_crc()).map(|_| ()),
            );
        }
    }
}

#[test]
fn wrong_versions_and_magic() {
    let (_, bytes) = inputs().remove(0);
    for v in [b"0000", b"0016", b"9999", b"00a9"] {
        let mut m = bytes.clone();
        m[5..9].copy_from_slice(v);
        let e = load_rdb(&m, &no_crc()).unwrap_err();
        assert_eq!(e.offset, 5, "{e}");
    }
    // Any version bitlens reads (Redis loads its own types whatever the file's version).
    for v in [b"0005", b"0013", b"0015"] {
        let mut m = bytes.clone();
        m[5..9].copy_from_slice(v);
        load_rdb(&m, &no_crc()).unwrap();
    }
    let mut m = bytes.clone();
    m[0] = b'X';
    assert_eq!(load_rdb(&m, &no_crc()).unwrap_err().offset, 0);
    assert!(load_rdb(b"", &no_crc()).is_err());
}

fn fixture_dumps() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(root().join("tests/data/fixtures")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "json") {
            let j: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            for k in j["keys"].as_array().unwrap() {
                if let Some(h) = k["dump_hex"].as_str() {
                    out.push(
                        (0..h.len())
                            .step_by(2)
                            .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
                            .collect(),
                    );
                }
            }
        }
    }
    assert!(out.len() > 100);
    out
}

fn with_trailer(body: &[u8], version: u16) -> Vec<u8> {
    let mut p = body.to_vec();
    p.extend_from_slice(&version.to_le_bytes());
    let crc = bitlens::rdb::crc64(&p);
    p.extend_from_slice(&crc.to_le_bytes());
    p
}

#[test]
fn damaged_dump_payloads_never_panic() {
    let mut rng = fastrand::Rng::with_seed(7);
    for d in fixture_dumps() {
        load_dump(&d).expect("recorded DUMP payloads decode");
        let stride = (d.len() / 64).max(1);
        for cut in (0..d.len().min(64)).chain((64..d.len()).step_by(stride)) {
            assert!(load_dump(&d[..cut]).is_err());
            // Truncated bodies with a valid trailer reach the value decoders.
            let p = with_trailer(&d[..cut.min(d.len() - 10)], 10);
            check(
                "dump",
                &format!("body cut {cut}"),
                &p,
                load_dump(&p).map(|_| ()),
            );
        }
        for _ in 0..16 {
            let mut body = d[..d.len() - 10].to_vec();
            let p = rng.usize(..body.len());
            body[p] ^= 1 << rng.usize(..8);
            let payload = with_trailer(&body, 10);
            check("dump", "flip", &payload, load_dump(&payload).map(|_| ()));
            check(
                "dump",
                "flip, no CRC",
                &body,
                load_dump_with(&body, false).map(|_| ()),
            );
        }
    }
}

#[test]
fn blob_decoders_on_mutated_blobs() {
    let mut rng = fastrand::Rng::with_seed(99);
    let mut blobs = Vec::new();
    for d in fixture_dumps() {
        // Single-string value types: the blob follows the type byte and its raw length header.
        if ![10u8, 11, 12, 13, 16, 17, 20].contains(&d[0]) {
            continue;
        }
        let body = &d[1..d.len() - 10];
        let (len, hdr) = match body[0] >> 6 {
            0 => ((body[0] & 0x3F) as usize, 1),
            1 => ((((body[0] & 0x3F) as usize) << 8) | body[1] as usize, 2),
            _ => continue,
        };
        blobs.push(body[hdr..hdr + len].to_vec());
    }
    assert!(blobs.len() > 20);
    for b in &blobs {
        assert!(listpack(b).is_ok() || ziplist(b).is_ok() || intset(b).is_ok());
        for cut in 0..b.len() {
            let t = &b[..cut];
            assert!(listpack(t).is_err() && ziplist(t).is_err() && intset(t).is_err());
        }
        for _ in 0..100 {
            let mut m = b.clone();
            let p = rng.usize(..m.len());
            m[p] = rng.u8(..);
            let _ = listpack(&m);
            let _ = ziplist(&m);
            let _ = intset(&m);
            let _ = zipmap(&m);
        }
    }
}

/// `bytes` whole, then `n` times cut at a random length and with one random bit flipped.
fn damaged(bytes: &[u8], n: usize, rng: &mut fastrand::Rng) -> Vec<Vec<u8>> {
    let mut cases = vec![bytes.to_vec()];
    for _ in 0..n {
        cases.push(bytes[..rng.usize(..bytes.len())].to_vec());
        let mut m = bytes.to_vec();
        let p = rng.usize(..m.len());
        m[p] ^= 1 << rng.usize(..8);
        cases.push(m);
    }
    cases
}

/// The chunked reader (bounded window over a source) returns exactly what the slice reader
/// does — the same snapshot, or the same error at the same offset — on every fixture, whole,
/// truncated and bit-flipped, for random window sizes.
#[test]
fn chunked_reader_equals_slice_reader() {
    use bitlens::rdb::load_rdb_chunked;
    let mut rng = fastrand::Rng::with_seed(0x0DDB_1A5E_5BAD_5EED);
    for (name, bytes) in inputs() {
        let cases = damaged(&bytes, 6, &mut rng);
        for (i, input) in cases.iter().enumerate() {
            for opts in [LoadOptions::default(), no_crc()] {
                let want = load_rdb(input, &opts);
                let max = if rng.usize(..2) == 0 { 64 } else { 1 << 16 };
                let chunk = 1 + rng.usize(..max);
                let mut src: &[u8] = input;
                let got = load_rdb_chunked(&mut src, chunk, &opts, &mut |_, _| Ok(()));
                match (&want, &got) {
                    (Ok(a), Ok(b)) => assert_eq!(a.entries(), b.entries(), "{name} #{i}"),
                    (Err(a), Err(b)) => assert_eq!(a, b, "{name} #{i} chunk {chunk}"),
                    _ => panic!("{name} #{i} chunk {chunk}: {want:?} vs {got:?}"),
                }
            }
        }
    }
}

/// `input` pushed into an [`RdbFeeder`](bitlens::rdb::RdbFeeder) in pieces of the given
/// sizes (cycled), then finished.
fn load_pushed(
    input: &[u8],
    opts: &LoadOptions,
    sizes: &[usize],
) -> Result<bitlens::rdb::Snapshot, RdbError> {
    let mut feeder = bitlens::rdb::RdbFeeder::load(opts.clone());
    let (mut at, mut i) = (0, 0);
    while at < input.len() {
        let n = sizes[i % sizes.len()].max(1).min(input.len() - at);
        feeder.push(&input[at..at + n])?;
        at += n;
        i += 1;
    }
    feeder.finish_snapshot()
}

/// The push reader (bytes fed as a download delivers them) returns exactly what the slice
/// reader does, the same keys, values and expiries, version and aux fields, or the same error
/// (kind, offset, key, message), on every fixture and conformance snapshot: whole, truncated
/// and bit-flipped, split at every piece size of 1, 7, 64 and 4096 bytes and at random points.
#[test]
fn push_reader_equals_slice_reader() {
    let mut rng = fastrand::Rng::with_seed(0x9054_F00D_0BAD_CAFE);
    let mut all = inputs();
    let big = root().join("tests/data/conformance/bitmaps/dump.rdb");
    all.push((big.display().to_string(), std::fs::read(&big).unwrap()));
    for (name, bytes) in all {
        let cases = damaged(&bytes, 3, &mut rng);
        for (i, input) in cases.iter().enumerate() {
            let random: Vec<usize> = (0..64).map(|_| 1 + rng.usize(..20_000)).collect();
            let splits: Vec<Vec<usize>> = if i == 0 && bytes.len() < 200_000 {
                vec![vec![1], vec![7], vec![64], vec![4096], random]
            } else if i == 0 {
                vec![vec![64], vec![4096], random]
            } else {
                vec![vec![7], vec![4096], random]
            };
            for opts in [LoadOptions::default(), no_crc()] {
                let want = load_rdb(input, &opts);
                for sizes in &splits {
                    let got = load_pushed(input, &opts, sizes);
                    let what = format!("{name} #{i} pieces {:?}", &sizes[..sizes.len().min(3)]);
                    match (&want, &got) {
                        (Ok(a), Ok(b)) => {
                            assert_eq!(a.entries(), b.entries(), "{what}");
                            assert_eq!((a.version, &a.aux), (b.version, &b.aux), "{what}");
                        }
                        (Err(a), Err(b)) => assert_eq!(a, b, "{what}"),
                        _ => panic!("{what}: {want:?} vs {got:?}"),
                    }
                }
            }
        }
    }
}
