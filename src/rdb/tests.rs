use super::*;
use crate::zset::ZSet;

fn write_sample() -> Vec<u8> {
    let mut w = RdbWriter::new(Vec::new(), 10).unwrap();
    w.select_db(0).unwrap();
    w.write_string(b"plain", b"hello", None).unwrap();
    w.write_string(b"int", b"-12345", Some(1_900_000_000_000))
        .unwrap();
    w.write_string(b"big", b"4294967296", None).unwrap();
    w.write_string(b"zeros", &vec![0u8; 5000], None).unwrap();
    w.write_string(b"lead0", b"007", None).unwrap();
    w.select_db(3).unwrap();
    let z = ZSet::from_pairs(vec![
        (b"a".to_vec(), 1.5),
        (b"b".to_vec(), f64::NEG_INFINITY),
        (b"c".to_vec(), 3e300),
    ]);
    w.write_zset(b"z", &z, None).unwrap();
    w.finish().unwrap()
}

#[test]
fn a_duplicated_key_is_refused_at_its_second_record() {
    let mut w = RdbWriter::new(Vec::new(), 9).unwrap();
    w.select_db(0).unwrap();
    w.write_string(b"k", b"v", None).unwrap();
    w.write_string(b"k", b"w", None).unwrap();
    w.select_db(1).unwrap();
    w.write_string(b"k", b"x", None).unwrap();
    let bytes = w.finish().unwrap();
    let e = load_rdb(&bytes, &LoadOptions::default()).unwrap_err();
    assert_eq!(e.kind, RdbErrorKind::Corrupt);
    assert!(
        e.to_string().contains("duplicated key in database 0"),
        "{e}"
    );
    assert!(e.to_string().contains("(key \"k\")"), "{e}");
    // The second record of "k" starts after the header, SELECTDB and the first record.
    let second = bytes.windows(4).rposition(|w| w == b"\x01k\x01w").unwrap() as u64 - 1;
    assert_eq!(e.offset, second);
    // The same name in another database is another key.
    let mut w = RdbWriter::new(Vec::new(), 9).unwrap();
    w.select_db(0).unwrap();
    w.write_string(b"k", b"v", None).unwrap();
    w.select_db(1).unwrap();
    w.write_string(b"k", b"x", None).unwrap();
    let snap = load_rdb(&w.finish().unwrap(), &LoadOptions::default()).unwrap();
    assert_eq!(string_of(&snap, 1, b"k"), b"x");
}

fn string_of(snap: &Snapshot, db: u64, key: &[u8]) -> Vec<u8> {
    match snap.databases[&db].get(key) {
        Some(Value::String(s)) => s.as_bytes().into_owned(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn writer_round_trip() {
    let bytes = write_sample();
    // LZF actually used for the zero run, int encoding for "-12345".
    assert!(bytes.len() < 1000);
    assert!(bytes.windows(3).any(|w| w == [0xC1, 0xC7, 0xCF]));
    let snap = load_rdb(&bytes, &LoadOptions::default()).unwrap();
    assert_eq!(snap.version, 10);
    assert_eq!(string_of(&snap, 0, b"plain"), b"hello");
    assert_eq!(string_of(&snap, 0, b"int"), b"-12345");
    assert_eq!(string_of(&snap, 0, b"big"), b"4294967296");
    assert_eq!(string_of(&snap, 0, b"lead0"), b"007");
    assert_eq!(string_of(&snap, 0, b"zeros"), vec![0u8; 5000]);
    assert_eq!(
        snap.databases[&0].entry(b"int").unwrap().expire_at_ms,
        Some(1_900_000_000_000)
    );
    match snap.databases[&3].get(b"z") {
        Some(Value::ZSet(z)) => {
            let v: Vec<_> = z.iter().map(|(m, s)| (m.to_vec(), s)).collect();
            assert_eq!(
                v,
                vec![
                    (b"b".to_vec(), f64::NEG_INFINITY),
                    (b"a".to_vec(), 1.5),
                    (b"c".to_vec(), 3e300)
                ]
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn skip_values_lists_every_key_without_a_value() {
    let bytes = write_sample();
    let records = |opts: &LoadOptions| {
        let mut out = Vec::new();
        visit_rdb(&bytes, opts, &mut |r: Record<'_>| {
            out.push((
                r.db,
                r.key.to_vec(),
                r.offset,
                r.expire_at_ms,
                r.value.is_some(),
            ));
            Ok(())
        })
        .unwrap();
        out
    };
    let all = records(&LoadOptions::default());
    for threads in [1, 3] {
        let names = records(&LoadOptions {
            skip_values: true,
            threads,
            ..LoadOptions::default()
        });
        assert_eq!(names.len(), all.len());
        for (a, n) in all.iter().zip(&names) {
            assert_eq!((a.0, &a.1, a.2, a.3), (n.0, &n.1, n.2, n.3));
            assert!(a.4 && !n.4, "values decoded only without skip_values");
        }
    }
    let snap = load_rdb(
        &bytes,
        &LoadOptions {
            skip_values: true,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    assert!(snap.entries().is_empty());
}

#[test]
fn patterns_skip_unselected_keys() {
    let bytes = write_sample();
    let opts = LoadOptions {
        patterns: vec![b"z*".to_vec(), b"pl?in".to_vec()],
        ..LoadOptions::default()
    };
    let snap = load_rdb(&bytes, &opts).unwrap();
    assert_eq!(snap.databases[&0].len(), 2);
    assert!(snap.databases[&0].get(b"zeros").is_some());
    assert!(snap.databases[&0].get(b"int").is_none());
    assert_eq!(snap.databases[&3].len(), 1);
}

#[test]
fn checksum_is_verified_and_can_be_disabled() {
    let mut bytes = write_sample();
    let i = bytes.windows(5).position(|w| w == b"hello").unwrap();
    bytes[i] = b'j';
    let e = load_rdb(&bytes, &LoadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("CRC-64 mismatch"), "{e}");
    assert_eq!(e.kind, RdbErrorKind::Checksum);
    assert_eq!(e.offset as usize, bytes.len() - 8);
    let opts = LoadOptions {
        verify_checksum: false,
        ..LoadOptions::default()
    };
    let snap = load_rdb(&bytes, &opts).unwrap();
    assert_eq!(string_of(&snap, 0, b"plain"), b"jello");
    // A zero trailer means "no checksum".
    let n = bytes.len();
    bytes[n - 8..].fill(0);
    assert!(load_rdb(&bytes, &LoadOptions::default()).is_ok());
}

#[test]
fn truncation_gives_offset_errors() {
    let bytes = write_sample();
    for cut in 0..bytes.len() {
        let e = load_rdb(&bytes[..cut], &LoadOptions::default()).unwrap_err();
        assert!(e.offset <= cut as u64, "cut {cut}: {e}");
        assert_eq!(e.kind, RdbErrorKind::Truncated, "cut {cut}: {e}");
    }
}

#[test]
fn unknown_type_names_byte_and_offset() {
    let mut bytes = write_sample();
    // Replace the ZSET_2 type byte (just before key "z" in db 3) with 99.
    let i = bytes.windows(3).position(|w| w == [5, 1, b'z']).unwrap();
    bytes[i] = 99;
    let e = load_rdb(&bytes, &LoadOptions::default()).unwrap_err();
    assert_eq!(e.offset, i as u64);
    assert_eq!(e.kind, RdbErrorKind::UnknownType);
    assert!(e.to_string().contains("unknown RDB value type 99"), "{e}");
}

#[test]
fn version_range() {
    let mut bytes = write_sample();
    bytes[5..9].copy_from_slice(b"0016");
    let e = load_rdb(&bytes, &LoadOptions::default()).unwrap_err();
    assert_eq!(e.offset, 5);
    assert_eq!(e.kind, RdbErrorKind::UnsupportedVersion);
    // Reading only the header (inspect's writer, `peek_aux`) says the same, at the same byte.
    assert_eq!(peek_aux(&bytes).unwrap_err(), e);
    assert!(
        e.to_string().contains(
            "Redis RDB version 16 is newer than bitlens knows; the newest it reads is 15"
        ),
        "{e}"
    );
    bytes[5..9].copy_from_slice(b"0000");
    assert!(load_rdb(&bytes, &LoadOptions::default()).is_err());
    bytes[..9].copy_from_slice(b"VALKEY082");
    let e = load_rdb(&bytes, &LoadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("Valkey RDB version 82"), "{e}");
    bytes[..9].copy_from_slice(b"KEYDB0010");
    let e = load_rdb(&bytes, &LoadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("\"KEYDB0010\""), "{e}");
    assert!(RdbWriter::new(Vec::new(), 16).is_err());
}

#[test]
fn dump_payload_round_trip_and_checks() {
    let p = dump_string(b"value", 10);
    assert_eq!(
        load_dump(&p).unwrap(),
        Value::String(crate::string::RedisString::from_bytes(b"value".to_vec()))
    );
    let mut bad = p.clone();
    bad[2] ^= 1;
    assert!(load_dump(&bad).unwrap_err().to_string().contains("CRC-64"));
    assert_eq!(load_dump(&bad).unwrap_err().kind, RdbErrorKind::Checksum);
    assert!(load_dump_with(&bad, false).is_ok());
    let mut newer = dump_string(b"v", 16);
    assert!(load_dump(&newer)
        .unwrap_err()
        .to_string()
        .contains("version 16"));
    newer.truncate(5);
    assert!(load_dump(&newer).is_err());

    // Into a writer: verbatim copy, version checked.
    let mut w = RdbWriter::new(Vec::new(), 9).unwrap();
    w.write_dump_payload(b"k", &p, Some(5)).unwrap_err();
    let p9 = dump_string(b"abc", 9);
    w.write_dump_payload(b"k", &p9, Some(5)).unwrap();
    let bytes = w.finish().unwrap();
    let snap = load_rdb(&bytes, &LoadOptions::default()).unwrap();
    assert_eq!(string_of(&snap, 0, b"k"), b"abc");
    assert_eq!(
        snap.databases[&0].entry(b"k").unwrap().expire_at_ms,
        Some(5)
    );
}

#[test]
fn module_names_decode() {
    // "ReJSON-RL" module id with encver 3.
    let charset = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let name = b"ReJSON-RL";
    let mut id = 0u64;
    for c in name {
        id = (id << 6) | charset.iter().position(|x| x == c).unwrap() as u64;
    }
    id = (id << 10) | 3;
    assert_eq!(&module_name(id), name);
}

/// Builds a version-`v` RDB file from raw record bytes, with a valid CRC-64 trailer.
fn file(v: u32, records: &[u8]) -> Vec<u8> {
    let mut b = format!("REDIS{v:04}").into_bytes();
    b.extend_from_slice(records);
    b.push(0xFF);
    let crc = CRC64.checksum(&b);
    b.extend_from_slice(&crc.to_le_bytes());
    b
}

fn s(x: &[u8]) -> Vec<u8> {
    let mut v = vec![x.len() as u8];
    v.extend_from_slice(x);
    v
}

#[test]
fn old_encodings_and_opcodes() {
    let mut r = Vec::new();
    // Expiry in seconds (old opcode), IDLE and FREQ, then a ZSET (type 3, text doubles).
    r.push(0xFD);
    r.extend_from_slice(&1_700_000_000i32.to_le_bytes());
    r.extend_from_slice(&[0xF9, 0x05, 0xF8, 0x07]);
    r.push(3);
    r.extend(s(b"z3"));
    r.push(3); // 3 members
    r.extend(s(b"a"));
    r.extend(s(b"1.25"));
    r.extend(s(b"b"));
    r.push(254); // +inf
    r.extend(s(b"c"));
    r.push(255); // -inf
                 // LIST (type 1) and SET (type 2) as plain string sequences, HASH (type 4).
    r.push(1);
    r.extend(s(b"l"));
    r.push(2);
    r.extend(s(b"x"));
    r.extend([0xC0, 5]); // int-encoded element
    r.push(2);
    r.extend(s(b"st"));
    r.push(1);
    r.extend(s(b"m"));
    r.push(4);
    r.extend(s(b"h"));
    r.push(1);
    r.extend(s(b"f"));
    r.extend(s(b"v"));
    // Zipmap hash (type 9): count, key len, key, value len, free, value, end.
    r.push(9);
    r.extend(s(b"zm"));
    let zm = [1u8, 1, b'k', 2, 0, b'v', b'w', 0xFF];
    r.extend(s(&zm));
    // Slot info, function library, module aux with one string and EOF opcode.
    r.extend([0xF4, 0x01, 0x02, 0x00]);
    r.push(0xF5);
    r.extend(s(b"#!lua name=x"));
    r.extend([0xF7, 0x05, 0x02, 0x02, 0x05]);
    r.extend(s(b"aux"));
    r.push(0x00);
    // A module value (type 7): id, opcodes SINT, DOUBLE, STRING, EOF.
    let charset = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let id = b"mymodtype".iter().fold(0u64, |a, c| {
        (a << 6) | charset.iter().position(|x| x == c).unwrap() as u64
    }) << 10
        | 1;
    r.push(7);
    r.extend(s(b"mod"));
    r.push(0x81);
    r.extend_from_slice(&id.to_be_bytes());
    r.extend([0x01, 0x2A, 0x04]);
    r.extend_from_slice(&1.5f64.to_le_bytes());
    r.push(0x05);
    r.extend(s(b"payload"));
    r.push(0x00);
    let bytes = file(7, &r);
    // The record carries the IDLE and FREQ opcodes' values (export's idle_s, lfu_freq).
    let mut prefixes = Vec::new();
    visit_rdb(&bytes, &LoadOptions::default(), &mut |r: Record<'_>| {
        prefixes.push((r.key.to_vec(), r.expire_at_ms, r.lru_idle_s, r.lfu_freq));
        Ok(())
    })
    .unwrap();
    assert_eq!(
        prefixes[0],
        (b"z3".to_vec(), Some(1_700_000_000_000), Some(7), Some(5))
    );
    assert!(prefixes[1..]
        .iter()
        .all(|p| p.1.is_none() && p.2.is_none() && p.3.is_none()));
    let snap = load_rdb(&bytes, &LoadOptions::default()).unwrap();
    let db = &snap.databases[&0];
    let z = db.entry(b"z3").unwrap();
    assert_eq!(z.expire_at_ms, Some(1_700_000_000_000));
    match &z.value {
        Value::ZSet(z) => {
            let v: Vec<_> = z.iter().map(|(m, s)| (m.to_vec(), s)).collect();
            assert_eq!(
                v,
                vec![
                    (b"c".to_vec(), f64::NEG_INFINITY),
                    (b"a".to_vec(), 1.25),
                    (b"b".to_vec(), f64::INFINITY)
                ]
            );
        }
        other => panic!("{other:?}"),
    }
    let ty = |k: &[u8]| db.get(k).unwrap().redis_type().name();
    assert_eq!(ty(b"l"), "list");
    assert_eq!(ty(b"st"), "set");
    assert_eq!(ty(b"h"), "hash");
    assert_eq!(ty(b"zm"), "hash");
    assert_eq!(ty(b"mod"), "mymodtype");
    assert_eq!(db.entry(b"l").unwrap().expire_at_ms, None);
    assert_eq!(db.len(), 6);
}

#[test]
fn field_expiry_hash_types() {
    // Type 24: min expiry, count, then (ttl, field, value) triples; type 22 without min expiry.
    let mut r = vec![24];
    r.extend(s(b"h24"));
    r.extend_from_slice(&1_900_000_000_000u64.to_le_bytes());
    r.push(2);
    r.extend([0x00]);
    r.extend(s(b"f1"));
    r.extend(s(b"v1"));
    r.extend([0x05]);
    r.extend(s(b"f2"));
    r.extend(s(b"v2"));
    r.push(22);
    r.extend(s(b"h22"));
    r.push(1);
    r.extend([0x00]);
    r.extend(s(b"f"));
    r.extend(s(b"v"));
    let bytes = file(12, &r);
    let snap = load_rdb(&bytes, &LoadOptions::default()).unwrap();
    assert_eq!(snap.databases[&0].len(), 2);
    assert_eq!(
        snap.databases[&0].get(b"h22").unwrap().redis_type().name(),
        "hash"
    );
    // Truncated inside the triples: offset and key reported.
    let e = load_rdb(&bytes[..30], &LoadOptions::default()).unwrap_err();
    assert_eq!(e.key.as_deref(), Some(&b"h24"[..]));
}

#[test]
fn corrupt_embedded_listpack_names_key_and_offset() {
    // A ZSET_LISTPACK whose listpack header claims the wrong size.
    let mut lp = vec![0, 0, 0, 0, 2, 0];
    lp.extend([0x81, b'a', 2, 0x01, 1, 0xFF]);
    let n = lp.len() as u32 + 1;
    lp[..4].copy_from_slice(&n.to_le_bytes());
    let mut r = vec![17];
    r.extend(s(b"zl"));
    r.extend(s(&lp));
    let bytes = file(10, &r);
    let e = load_rdb(&bytes, &LoadOptions::default()).unwrap_err();
    assert_eq!(e.key.as_deref(), Some(&b"zl"[..]));
    assert!(e.to_string().contains("listpack header says"), "{e}");
    // The blob codec's own error is its typed source, its offset within the blob.
    let blob = std::error::Error::source(&e).and_then(|c| c.downcast_ref::<BlobError>());
    assert_eq!(
        blob.map(|b| (b.kind, b.offset)),
        Some((BlobErrorKind::Mismatch, 0)),
        "{e}"
    );
    assert_eq!(
        e.cause.as_deref(),
        Some(&RdbErrorCause::Blob(blob.unwrap().clone()))
    );
    assert_eq!(e.kind, RdbErrorKind::Corrupt);
    assert_eq!(
        crate::encoded::listpack(&lp).unwrap_err().kind,
        BlobErrorKind::Mismatch
    );
    // Its first byte: after header (9), type (1), key (3), string length (1).
    assert_eq!(e.offset, 14);
    // Fixed size: loads, integer score 1, member "a".
    lp[..4].copy_from_slice(&(n - 1).to_le_bytes());
    let mut r = vec![17];
    r.extend(s(b"zl"));
    r.extend(s(&lp));
    let snap = load_rdb(&file(10, &r), &LoadOptions::default()).unwrap();
    match snap.databases[&0].get(b"zl") {
        Some(Value::ZSet(z)) => assert_eq!(z.score(b"a"), Some(1.0)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn corrupt_compressed_listpack_points_at_its_string() {
    // A ZSET_LISTPACK stored LZF-compressed, whose first entry has a wrong back-length deep
    // inside the decompressed bytes: the error offset must be inside the input (at the
    // compressed string) and name the position within the decompressed blob.
    let member = [b'a'; 100];
    let mut lp = vec![0, 0, 0, 0, 2, 0];
    lp.extend([0xE0, 100]);
    lp.extend(member);
    lp.push(101); // should be 102: 2 header bytes + 100
    lp.extend([0x01, 1, 0xFF]);
    let n = lp.len() as u32;
    lp[..4].copy_from_slice(&n.to_le_bytes());
    let packed = ::lzf::compress(&lp).unwrap();
    assert!(packed.len() < 64 && lp.len() >= 64);
    let mut r = vec![17];
    r.extend(s(b"zc"));
    let string_at = 9 + r.len() as u64;
    r.extend([0xC3, packed.len() as u8, 0x40, lp.len() as u8]);
    r.extend(&packed);
    let bytes = file(10, &r);
    let e = load_rdb(&bytes, &LoadOptions::default()).unwrap_err();
    assert_eq!(e.key.as_deref(), Some(&b"zc"[..]));
    assert_eq!(e.offset, string_at, "{e}");
    assert!(e.to_string().contains("LZF-compressed"), "{e}");
    assert!(
        e.to_string()
            .contains("at byte 108 of its decompressed content"),
        "{e}"
    );
}

/// Hand-written RDB v10: `SELECTDB 0`, then each (key, raw string) stored raw with a 32-bit
/// length, EOF and the CRC-64.
fn raw_strings_rdb(keys: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut v = b"REDIS0010".to_vec();
    v.extend_from_slice(&[254, 0]); // RDB_OPCODE_SELECTDB 0
    for (k, val) in keys {
        v.push(0);
        v.push(k.len() as u8);
        v.extend_from_slice(k);
        v.push(0x80);
        v.extend_from_slice(&(val.len() as u32).to_be_bytes());
        v.extend_from_slice(val);
    }
    v.push(255);
    let crc = CRC64.checksum(&v);
    v.extend_from_slice(&crc.to_le_bytes());
    v
}

/// `bytes` pushed into an [`RdbFeeder`] in pieces of `chunk` bytes, then finished.
fn load_pushed(bytes: &[u8], opts: &LoadOptions, chunk: usize) -> Result<Snapshot, RdbError> {
    let mut feeder = RdbFeeder::load(opts.clone());
    for piece in bytes.chunks(chunk) {
        let p = feeder.push(piece)?;
        assert!(p.decoded <= p.received, "{p:?}");
    }
    feeder.finish_snapshot()
}

/// The same snapshot (every key's value and expiry, version, aux fields) or the same error
/// (kind, offset, key, message).
fn assert_same(want: &Result<Snapshot, RdbError>, got: &Result<Snapshot, RdbError>, what: &str) {
    match (want, got) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.entries(), b.entries(), "{what}");
            assert_eq!((a.version, &a.aux), (b.version, &b.aux), "{what}");
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "{what}"),
        _ => panic!("{what}: slice {want:?} vs {got:?}"),
    }
}

/// The chunked reader and the push reader give the slice reader's result (snapshot, or
/// error) for every chunk size.
fn same_as_slice(bytes: &[u8], opts: &LoadOptions, chunks: &[usize]) {
    let want = load_rdb(bytes, opts);
    for &chunk in chunks {
        let mut src: &[u8] = bytes;
        let got = load_rdb_chunked(&mut src, chunk, opts, &mut |_, _| Ok(()));
        assert_same(&want, &got, &format!("chunked {chunk}"));
        let got = load_pushed(bytes, opts, chunk);
        assert_same(&want, &got, &format!("pushed {chunk}"));
    }
}

/// A string length near 2^64 (a 64-bit length, 0x81) in a streamed load: the reader's
/// demand for more input saturates instead of overflowing, and every reader reports the
/// same truncation (found by the rdb_reader fuzz target).
#[test]
fn huge_string_length_is_truncation_not_overflow() {
    let mut bytes = b"REDIS0011".to_vec();
    bytes.extend_from_slice(&[0x14, 0x01, b'k', 0x81]); // set listpack, key "k", 64-bit len
    bytes.extend_from_slice(&[0xff; 8]);
    bytes.extend_from_slice(b"tail");
    let want = load_rdb(&bytes, &LoadOptions::default());
    let err = want
        .as_ref()
        .expect_err("a 2^64-byte string cannot be read");
    assert_eq!(err.kind, RdbErrorKind::Truncated, "{err}");
    same_as_slice(&bytes, &LoadOptions::default(), &[1, 3, 16, 1 << 20]);
}

#[test]
fn chunked_reader_matches_slice_reader() {
    let sample = write_sample();
    same_as_slice(
        &sample,
        &LoadOptions::default(),
        &[1, 2, 3, 7, 16, 64, 1 << 20],
    );
    // Truncated and damaged copies: the same error (message and offset) either way.
    for cut in [
        0,
        5,
        9,
        10,
        20,
        sample.len() / 2,
        sample.len() - 9,
        sample.len() - 1,
    ] {
        same_as_slice(&sample[..cut], &LoadOptions::default(), &[1, 5, 4096]);
    }
    let mut bad = sample.clone();
    let n = bad.len();
    bad[n - 3] ^= 0x10;
    same_as_slice(&bad, &LoadOptions::default(), &[1, 13]);
    let e = load_rdb(&bad, &LoadOptions::default()).unwrap_err();
    assert_eq!(e.offset, n as u64 - 8);
    assert_eq!(e.kind, RdbErrorKind::Checksum);
    // No front end's option in the core's words: each names its own.
    assert!(e.to_string().ends_with("the check can be skipped"), "{e}");
    assert!(
        !e.to_string().contains("--") && !e.to_string().contains('{'),
        "{e}"
    );
    let opts = LoadOptions {
        loader: None,
        verify_checksum: false,
        patterns: vec![b"z".to_vec(), b"pl*".to_vec()],
        db: Some(3),
        threads: 1,
        skip_values: false,
        parallel_record_bytes: 0,
        max_value_bytes: DEFAULT_MAX_VALUE_BYTES,
    };
    same_as_slice(&bad, &opts, &[1, 9]);
    assert_eq!(load_rdb(&bad, &opts).unwrap().entries().len(), 1);
}

#[test]
fn chunked_reader_streams_long_raw_strings() {
    // 3 MiB: mostly zero (one byte set every 1 MiB) and 2 MiB of noise, stored raw.
    let len = 3 << 20;
    let mut sparse = vec![0u8; len];
    for i in (0..len).step_by(1 << 20) {
        sparse[i + 7] = 0x81;
    }
    let mut noise = vec![0u8; 2 << 20];
    fastrand::Rng::with_seed(0x1234_5678_9abc_def1).fill(&mut noise);
    let bytes = raw_strings_rdb(&[(b"a", b"hi"), (b"sparse", &sparse), (b"noise", &noise)]);
    same_as_slice(&bytes, &LoadOptions::default(), &[1000, 64 << 10, 8 << 20]);
    let mut src: &[u8] = &bytes;
    let snap = load_rdb_chunked(&mut src, 64 << 10, &LoadOptions::default(), &mut |_, _| {
        Ok(())
    })
    .unwrap();
    match snap.databases[&0].get(b"sparse") {
        Some(Value::String(s)) => {
            assert!(s.is_sparse());
            assert_eq!(s.len(), len as u64);
            assert_eq!(s.popcount(), 3 * 2);
        }
        other => panic!("{other:?}"),
    }
    // Skipped by pattern, and cut short in the middle of the long value.
    let opts = LoadOptions {
        patterns: vec![b"a".to_vec()],
        ..LoadOptions::default()
    };
    same_as_slice(&bytes, &opts, &[4096]);
    let cut = &bytes[..bytes.len() - (1 << 20)];
    same_as_slice(cut, &opts, &[4096, 1 << 20]);
    let e = load_rdb(cut, &opts).unwrap_err();
    assert_eq!(e.key.as_deref(), Some(&b"noise"[..]));
}

/// A file of 40 strings `k0`..`k39` of 100,000 bytes each (4 MB: several reads, values
/// across their edges).
fn forty_long_strings() -> Vec<u8> {
    let keys: Vec<(Vec<u8>, Vec<u8>)> = (0..40)
        .map(|i| (format!("k{i}").into_bytes(), vec![i as u8; 100_000]))
        .collect();
    let refs: Vec<(&[u8], &[u8])> = keys.iter().map(|(k, v)| (&k[..], &v[..])).collect();
    raw_strings_rdb(&refs)
}

#[test]
fn progress_is_reported_by_both_readers() {
    let bytes = forty_long_strings();
    let total = bytes.len() as u64;
    let mut slice_calls = Vec::new();
    load_rdb_progress(&bytes, &LoadOptions::default(), &mut |d, t| {
        slice_calls.push((d, t));
        Ok(())
    })
    .unwrap();
    let mut chunk_calls = Vec::new();
    let mut src: &[u8] = &bytes;
    load_rdb_chunked(&mut src, 300_000, &LoadOptions::default(), &mut |d, t| {
        chunk_calls.push((d, t));
        Ok(())
    })
    .unwrap();
    assert_eq!(slice_calls, chunk_calls);
    assert_eq!(slice_calls.len(), 4, "{slice_calls:?}"); // 3 steps of 1 MiB + the end
    assert_eq!(*slice_calls.last().unwrap(), (total, total));
    assert!(slice_calls
        .windows(2)
        .all(|w| w[1].0 >= w[0].0 + PROGRESS_STEP || w[1].0 == total));
    // An error from the callback stops the load.
    let e = load_rdb_progress(&bytes, &LoadOptions::default(), &mut |_, _| {
        Err(Stop {
            reason: "stop".into(),
        })
    })
    .unwrap_err();
    assert_eq!(
        *e.detail,
        ErrorDetail::Cancelled {
            reason: "stop".into()
        }
    );
    assert_eq!(e.kind, RdbErrorKind::Cancelled);
    assert!(e.offset >= PROGRESS_STEP);
}

/// [`RdbFeeder::read_all`] of `src` into a [`Collector`], its progress calls kept in `calls`
/// (`stop`: the first call stops the load).
fn read_all(
    src: &mut dyn ChunkSource,
    calls: &mut Vec<(u64, u64)>,
    stop: bool,
) -> Result<Snapshot, RdbError> {
    let (header, c) = RdbFeeder::load(LoadOptions::default()).read_all(src, &mut |d, t| {
        calls.push((d, t));
        match stop {
            true => Err(Stop {
                reason: "stop".into(),
            }),
            false => Ok(()),
        }
    })?;
    Ok(c.into_snapshot(header))
}

/// The whole-file read of the push reader ([`RdbFeeder::read_all`]): the slice reader's
/// snapshot or error, a progress call per read of at most [`PUSH_BYTES`], and its own typed
/// errors for an empty source, a failed read and a stop by the progress callback.
#[test]
fn read_all_reads_as_the_slice_reader_with_typed_errors() {
    use std::error::Error as _;
    let bytes = forty_long_strings();
    let total = bytes.len() as u64;
    let mut calls = Vec::new();
    let got = read_all(&mut &bytes[..], &mut calls, false);
    assert_same(&load_rdb(&bytes, &LoadOptions::default()), &got, "read_all");
    assert_eq!(got.unwrap().entries().len(), 40);
    // The first read is a whole PUSH_BYTES; each later one what the record being read leaves
    // of that room, so progress is told once PUSH_BYTES more were read (never closer, as
    // `loadRdb`'s onProgress has always been: crates/wasm/tests/wasm_api.rs), and at the end.
    assert_eq!(calls.first(), Some(&(PUSH_BYTES as u64, total)));
    assert_eq!(calls.last(), Some(&(total, total)));
    assert!(calls.len() >= 3, "{calls:?}");
    assert!(
        calls.len() as u64 <= total / PUSH_BYTES as u64 + 1,
        "{calls:?}"
    );
    assert!(
        calls.windows(2).all(
            |w| (w[1].0 - w[0].0 >= PUSH_BYTES as u64 || w[1].0 == total)
                && w[1].0 - w[0].0 < 2 * PUSH_BYTES as u64
                && w[1].1 == total
        ),
        "{calls:?}"
    );
    // Cut short, or cut in the header: the slice reader's error.
    for cut in [5, 9, 20, bytes.len() / 2, bytes.len() - 1] {
        let got = read_all(&mut &bytes[..cut], &mut Vec::new(), false);
        let want = load_rdb(&bytes[..cut], &LoadOptions::default());
        assert_same(&want, &got, &format!("cut at {cut}"));
    }

    // Nothing to read: code `empty`, at offset 0, and no progress call.
    let mut calls = Vec::new();
    let e = read_all(&mut &[][..], &mut calls, false).unwrap_err();
    assert_eq!(*e.detail, ErrorDetail::NotRdb(WrongKind::Empty));
    assert_eq!((e.code(), e.offset), ("empty", 0));
    assert!(calls.is_empty());

    // A read failing after the first MiB: a Read error at its offset, the io::Error its cause.
    struct FailsAfter<'a>(&'a [u8], u64);
    impl ChunkSource for FailsAfter<'_> {
        fn len(&self) -> u64 {
            self.0.len() as u64
        }
        fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
            if offset >= self.1 {
                let why = std::io::ErrorKind::PermissionDenied;
                return Err(std::io::Error::new(why, "no access"));
            }
            let end = self.1.min(offset + buf.len() as u64) as usize;
            (&self.0[..end]).read_at(offset, buf)
        }
    }
    let at = PUSH_BYTES as u64;
    let e = read_all(&mut FailsAfter(&bytes, at), &mut Vec::new(), false).unwrap_err();
    assert_eq!(
        (e.kind, e.code(), e.offset),
        (RdbErrorKind::Read, "read", at)
    );
    let io = e.source().and_then(|c| c.downcast_ref::<std::io::Error>());
    assert_eq!(
        io.map(|i| i.kind()),
        Some(std::io::ErrorKind::PermissionDenied)
    );

    // Stopped by the progress callback after the first read: Cancelled at the bytes decoded
    // (the records the first MiB completed), the callback's reason kept.
    let mut calls = Vec::new();
    let e = read_all(&mut &bytes[..], &mut calls, true).unwrap_err();
    assert_eq!(calls, [(PUSH_BYTES as u64, total)]);
    assert_eq!(
        *e.detail,
        ErrorDetail::Cancelled {
            reason: "stop".into()
        }
    );
    assert_eq!((e.kind, e.code()), (RdbErrorKind::Cancelled, "cancelled"));
    assert!(e.offset > 9 && e.offset <= PUSH_BYTES as u64, "{e}");
}

/// Fuzzer find: a bad length byte of a string value in a window that does not reach the end
/// of input must name the key, as the slice reader does.
#[test]
fn chunked_reader_names_the_key_of_a_bad_string_length() {
    let mut v = b"REDIS0009\xfe\x00\x00\x0ast".to_vec();
    v.extend_from_slice(&[0xbe; 100]);
    v.push(255);
    v.extend_from_slice(&[0; 8]);
    let e = load_rdb(&v, &LoadOptions::default()).unwrap_err();
    assert_eq!(e.offset, 23);
    assert_eq!(
        e.key.as_deref(),
        Some(&b"st\xbe\xbe\xbe\xbe\xbe\xbe\xbe\xbe"[..])
    );
    same_as_slice(&v, &LoadOptions::default(), &[1, 20, 30]);
}

fn module_id(name: &[u8; 9], encver: u64) -> u64 {
    let charset = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut id = 0u64;
    for c in name {
        id = (id << 6) | charset.iter().position(|x| x == c).unwrap() as u64;
    }
    (id << 10) | encver
}

/// A 64-bit RDB length (0x81 + 8 bytes big-endian).
fn len64(n: u64) -> Vec<u8> {
    let mut v = vec![0x81];
    v.extend_from_slice(&n.to_be_bytes());
    v
}

#[test]
fn module_aux_and_values_are_named_not_fatal() {
    let id = module_id(b"ReJSON-RL", 3);
    let mut r = vec![0xF7]; // RDB_OPCODE_MODULE_AUX
    r.extend(len64(id));
    r.extend_from_slice(&[2, 2]); // when-opcode UINT, when = after keys (2)
    r.extend_from_slice(&[2, 9, 5]); // UINT 9, then a STRING
    r.extend(s(b"aux"));
    r.push(0); // module EOF
    r.extend_from_slice(&[0xFE, 0]);
    r.push(7); // RDB_TYPE_MODULE_2
    r.extend(s(b"json"));
    r.extend(len64(id));
    r.extend_from_slice(&[5]);
    r.extend(s(b"{}"));
    r.push(0);
    let bytes = file(10, &r);
    let header = visit_rdb(&bytes, &LoadOptions::default(), |_| Ok(())).unwrap();
    assert_eq!(header.module_aux, vec![*b"ReJSON-RL"]);
    let mut snap = load_rdb(&bytes, &LoadOptions::default()).unwrap();
    let ks = snap.databases.get_mut(&0).unwrap();
    assert_eq!(
        crate::execute(ks, &[b"TYPE".to_vec(), b"json".to_vec()]),
        crate::Reply::Status("ReJSON-RL".into())
    );
    assert_eq!(
        crate::execute(ks, &[b"GET".to_vec(), b"json".to_vec()]),
        crate::Reply::Error(
            "WRONGTYPE Operation against a key holding the wrong kind of value".into()
        )
    );
}

/// Observed with Redis 7.4.1 on these very files: RESIZEDB 2^64-1 → "Short read or OOM loading
/// DB. Unrecoverable error, aborting now."; RESIZEDB 2^64-2 → "Done loading RDB, keys loaded: 1".
#[test]
fn resizedb_of_lenerr_is_refused_as_redis_does() {
    let mut r = vec![0xFE, 0, 0xFB]; // SELECTDB 0, RESIZEDB
    r.extend(len64(u64::MAX));
    r.push(0);
    let bytes = file(10, &r);
    let e = load_rdb(&bytes, &LoadOptions::default()).unwrap_err();
    assert_eq!(e.offset, 12, "{e}");
    assert!(e.to_string().contains("RDB_LENERR"), "{e}");
    // 2^64-2 is only a (huge) size hint: Redis 7.4.1 loads the file.
    let mut r = vec![0xFE, 0, 0xFB];
    r.extend(len64(u64::MAX - 1));
    r.push(0);
    load_rdb(&file(10, &r), &LoadOptions::default()).unwrap();
}

#[test]
fn valkey_records() {
    // VALKEY080: SLOT_IMPORT (243), foreign SLOT_INFO (244), slot-info aux, a HASH_2 (22).
    let mut r = vec![0xF3];
    r.extend(s(b"job-1"));
    r.extend_from_slice(&[1, 0, 0x40 | 0x3F, 0xFF]); // one range: 0..16383
    r.extend_from_slice(&[0xF4, 5, 1, 0]);
    r.push(0xFA);
    r.extend(s(b"slot-info"));
    r.extend(s(b"5,1,0,0"));
    r.extend_from_slice(&[0xFE, 0, 22]);
    r.extend(s(b"h"));
    r.push(2);
    r.extend(s(b"f1"));
    r.extend(s(b"v1"));
    r.extend_from_slice(&4_102_444_800_000i64.to_le_bytes());
    r.extend(s(b"f2"));
    r.extend(s(b"v2"));
    r.extend_from_slice(&(-1i64).to_le_bytes());
    let mut bytes = b"VALKEY080".to_vec();
    bytes.extend_from_slice(&r);
    bytes.push(0xFF);
    let crc = CRC64.checksum(&bytes);
    bytes.extend_from_slice(&crc.to_le_bytes());
    let mut kinds = Vec::new();
    let header = visit_rdb(&bytes, &LoadOptions::default(), |rec| {
        kinds.push((rec.type_byte, rec.kind));
        Ok(())
    })
    .unwrap();
    assert_eq!(header.format, Format::VALKEY_9);
    // Both slot records count: the SLOT_INFO opcode and the slot-info aux field.
    assert_eq!(header.slot_infos, 2);
    assert!(header.aux.is_empty());
    assert_eq!(kinds, vec![(22, ValueKind::Hash2)]);
    // The same bytes under a Redis header: 243 is KEY_META there, and the record is refused
    // as such (not read as a slot import).
    let mut redis = b"REDIS0012".to_vec();
    redis.extend_from_slice(&bytes[9..]);
    assert!(load_rdb(&redis, &no_check()).is_err());
    // Redis 7.4's own SLOT_INFO record (slot 5, one key, no expiry) before a key: counted,
    // and carried into the snapshot (a cluster node's file).
    let mut r = vec![0xFE, 0, 0xF4, 5, 1, 0, 0];
    r.extend(s(b"k"));
    r.extend(s(b"v"));
    let snap = load_rdb(&file(12, &r), &LoadOptions::default()).unwrap();
    assert_eq!(snap.slot_infos, 1);
    assert_eq!(snap.databases[&0].len(), 1);
    // A cut HASH_2 entry is an offset-bearing error.
    for cut in 10..bytes.len() - 9 {
        let e = load_rdb(&bytes[..cut], &no_check()).unwrap_err();
        assert!(e.offset <= cut as u64, "cut {cut}: {e}");
    }
}

fn no_check() -> LoadOptions {
    LoadOptions {
        verify_checksum: false,
        ..Default::default()
    }
}

#[test]
fn redis_enterprise_opcodes_are_skipped() {
    // RDB_OPCODE_RAM_LRU (107) and RDB_OPCODE_SLOT_NUM (121), each one length, before a key
    // (as in Redis Enterprise files; Redis OSS refuses them as unknown types).
    let mut r = vec![0xFE, 0, 107, 0x40, 0x43, 121, 5, 0];
    r.extend(s(b"a"));
    r.extend(s(b"b"));
    let snap = load_rdb(&file(12, &r), &LoadOptions::default()).unwrap();
    assert_eq!(string_of(&snap, 0, b"a"), b"b");
    // Not in Valkey's table.
    let mut v = b"VALKEY080".to_vec();
    v.extend_from_slice(&r);
    v.push(0xFF);
    v.extend_from_slice(&[0; 8]);
    let e = load_rdb(&v, &LoadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("unknown RDB value type 107"), "{e}");
}

/// Records far larger than each push (a 30,000-field hash stored field by field, a 2 MiB LZF
/// string, 600 KB of raw noise), pushed one byte at a time: a record is decoded again only
/// after the bytes held for it doubled since the last attempt and reached the length it
/// announced, so the attempts grow with the logarithm of its size, not with the number of
/// pushes.
#[test]
fn pushed_records_are_retried_on_doubling_only() {
    let mut w = RdbWriter::new(Vec::new(), 9).unwrap();
    w.select_db(0).unwrap();
    let h = crate::hash::Hash::from_fields((0..30_000).map(|i| {
        (
            format!("field:{i}").into_bytes(),
            format!("{}", i * 7).into_bytes(),
            None,
        )
    }));
    w.write_hash(b"h", &h, None).unwrap();
    let mut bits = vec![0u8; 2 << 20];
    bits[12345] = 1;
    w.write_string(b"s", &bits, None).unwrap();
    let mut noise = vec![0u8; 600_000];
    fastrand::Rng::with_seed(7).fill(&mut noise);
    w.write_string(b"n", &noise, None).unwrap();
    let bytes = w.finish().unwrap();
    // The hash is stored as RDB_TYPE_HASH (not a listpack): one string per field.
    assert!(bytes.windows(3).any(|w| w == b"\x04\x01h"));
    let want = load_rdb(&bytes, &LoadOptions::default());
    let mut feeder = RdbFeeder::load(LoadOptions::default());
    let mut decoded_before_end = 0;
    for b in bytes.chunks(1) {
        let p = feeder.push(b).unwrap();
        if p.received < bytes.len() as u64 {
            decoded_before_end = p.decoded;
        }
    }
    let attempts = feeder.attempts();
    assert!(
        attempts < 80,
        "{attempts} attempts for {} bytes",
        bytes.len()
    );
    // The hash was decoded before the last byte arrived.
    assert!(decoded_before_end > 30_000 * 10, "{decoded_before_end}");
    assert_same(&want, &feeder.finish_snapshot(), "pushed 1");
}

/// Pushing after an error returns the error again; bytes after the trailer are ignored.
#[test]
fn pushed_errors_stick_and_trailing_bytes_are_ignored() {
    let sample = write_sample();
    let mut bad = sample.clone();
    bad[9] = 0x7e; // not an opcode nor a type in RDB 10
    let want = load_rdb(&bad, &LoadOptions::default()).unwrap_err();
    let mut feeder = RdbFeeder::load(LoadOptions::default());
    assert_eq!(feeder.push(&bad[..20]).unwrap_err(), want);
    assert_eq!(feeder.push(&bad[20..]).unwrap_err(), want);
    assert_eq!(feeder.finish().map(|_| ()).unwrap_err(), want);
    let mut long = sample.clone();
    long.extend_from_slice(b"trailing junk");
    assert_same(
        &load_rdb(&long, &LoadOptions::default()),
        &load_pushed(&long, &LoadOptions::default(), 5),
        "trailing",
    );
    assert!(load_pushed(&long, &LoadOptions::default(), 5).is_ok());
    // Bytes pushed after the end still count as received (the fuzz target's invariant:
    // decoded <= received == bytes pushed).
    let mut feeder = RdbFeeder::load(LoadOptions::default());
    let mut at = 0;
    for piece in long.chunks(5) {
        at += piece.len() as u64;
        let p = feeder.push(piece).unwrap();
        assert!(p.decoded <= p.received && p.received == at, "{p:?} at {at}");
    }
}

/// RESIZEDB's key count reaches the records as a sizing hint: as written for a full load,
/// capped by the rest of the input at 3 bytes a key for an absurd count, absent for a
/// filtered load and for a push load that does not know the file's length; a SELECTDB
/// without RESIZEDB clears it.
#[test]
fn resizedb_gives_a_bounded_size_hint() {
    let file = |keys: u64| {
        let mut w = RdbWriter::new(Vec::new(), 9).unwrap();
        w.select_db(0).unwrap();
        w.resize_db(keys, 0).unwrap();
        for i in 0..100 {
            w.write_string(format!("k{i}").as_bytes(), b"v", None)
                .unwrap();
        }
        w.select_db(1).unwrap();
        w.write_string(b"other", b"v", None).unwrap();
        w.finish().unwrap()
    };
    let hints = |bytes: &[u8], opts: &LoadOptions| {
        let mut out = Vec::new();
        visit_rdb(bytes, opts, |r| {
            out.push((r.db, r.db_size_hint));
            Ok(())
        })
        .unwrap();
        out
    };
    let full = LoadOptions::default();
    let f = file(100);
    let h = hints(&f, &full);
    assert!(h[..100].iter().all(|&x| x == (0, Some(100))), "{h:?}");
    assert_eq!(h[100], (1, None));
    // 2^40 keys announced in a file of a few hundred bytes: at most what the rest can hold.
    let f = file(1 << 40);
    let resize_end = f.windows(1).position(|w| w[0] == 0xfb).unwrap() + 1 + 9 + 1;
    let cap = (f.len() - resize_end) as u64 / 3;
    assert_eq!(hints(&f, &full)[0], (0, Some(cap)));
    assert!(cap < 400, "{cap}");
    let snap = load_rdb(&f, &full).unwrap();
    assert!(snap.databases[&0].capacity() >= 100);
    assert!(snap.databases[&0].capacity() < 1000);
    // A filtered load keeps a few keys: no pre-sizing.
    let some = LoadOptions {
        patterns: vec![b"k1".to_vec()],
        ..LoadOptions::default()
    };
    assert_eq!(hints(&f, &some)[0], (0, None));
    // Pushed: only with the announced length.
    let mut feeder = RdbFeeder::new(full.clone(), Hints::default());
    feeder.push(&f).unwrap();
    assert_eq!(feeder.finish().unwrap().1 .0[0], (0, None));
    let mut feeder = RdbFeeder::new(full.clone(), Hints::default());
    feeder.announce_len(f.len() as u64);
    for piece in f.chunks(7) {
        feeder.push(piece).unwrap();
    }
    assert_eq!(feeder.finish().unwrap().1 .0[0], (0, Some(cap)));
}

/// A sink keeping each record's (database, size hint).
#[derive(Default)]
struct Hints(Vec<(u64, Option<u64>)>);

impl RecordSink for Hints {
    fn record(&mut self, rec: Record<'_>) -> Result<(), RdbError> {
        self.0.push((rec.db, rec.db_size_hint));
        Ok(())
    }
}

/// Every error a lower layer reports reaches the caller typed, as the `RdbError`'s source:
/// the blob codec's (offset within the blob), the LZF decoder's (offset within the
/// compressed data) and the reader's I/O error (its kind kept).
#[test]
fn errors_keep_their_typed_cause() {
    use std::error::Error as _;
    // (The blob codec's cause: corrupt_embedded_listpack_names_key_and_offset.)
    // A string whose LZF data starts with a back-reference (nothing before it to copy).
    let mut r = vec![0];
    r.extend(s(b"str"));
    r.extend([0xC3, 2, 3, 0x20, 0x00]);
    let e = load_rdb(&file(10, &r), &LoadOptions::default()).unwrap_err();
    assert_eq!(e.key.as_deref(), Some(&b"str"[..]));
    let lzf = e.source().and_then(|c| c.downcast_ref::<lzf::LzfError>());
    assert_eq!(
        lzf,
        Some(&lzf::LzfError::BackrefBeforeStart { offset: 0 }),
        "{e}"
    );
    // The file offset is that of the compressed data: header 9, type 1, key 4, lengths 3.
    assert_eq!(e.offset, 17);

    // A source whose read fails: the io::Error, kind and all, under a Read error.
    struct Failing;
    impl ChunkSource for Failing {
        fn len(&self) -> u64 {
            1000
        }
        fn read_at(&mut self, _: u64, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                "no access",
            ))
        }
    }
    let e = load_rdb_chunked(&mut Failing, 100, &LoadOptions::default(), &mut |_, _| {
        Ok(())
    })
    .unwrap_err();
    assert_eq!(e.kind, RdbErrorKind::Read);
    let io = e.source().and_then(|c| c.downcast_ref::<std::io::Error>());
    assert_eq!(
        io.map(|i| i.kind()),
        Some(std::io::ErrorKind::PermissionDenied),
        "{e}"
    );
    assert!(e.to_string().contains("no access"), "{e}");
}

/// A SELECTDB no server could load (at or above INT_MAX, the most `databases` allowed) is
/// refused with its offset; the largest loadable number is read.
#[test]
fn database_numbers_beyond_any_server_are_refused() {
    let mut r = vec![0xFE];
    r.extend(len64(MAX_DATABASES));
    r.push(0);
    r.extend(s(b"k"));
    r.extend(s(b"v"));
    let e = load_rdb(&file(10, &r), &LoadOptions::default()).unwrap_err();
    assert_eq!(e.kind, RdbErrorKind::Corrupt);
    assert_eq!(e.offset, 9, "{e}");
    assert!(e.to_string().contains("2147483647"), "{e}");
    let mut r = vec![0xFE];
    r.extend(len64(MAX_DATABASES - 1));
    r.push(0);
    r.extend(s(b"k"));
    r.extend(s(b"v"));
    let snap = load_rdb(&file(10, &r), &LoadOptions::default()).unwrap();
    assert!(snap.databases.contains_key(&(MAX_DATABASES - 1)));
}

/// Keys indexed a batch at a time (batches of 3 in unit tests) give the one-at-a-time load:
/// the same keyspaces, or the same first error, whether a repeated key comes before or after
/// a damaged or missing byte, in a database met once or again later; through the slice, chunked
/// and push readers, on one thread and on two (`BITLENS_SEED` replays a run).
#[test]
fn batched_indexing_gives_the_one_at_a_time_load() {
    let seed = bitlens_testseed::seed();
    let mut rng = fastrand::Rng::with_seed(seed);
    // The reference: each record inserted as it is read, a repeat refused at its record.
    let one_at_a_time = |bytes: &[u8], opts: &LoadOptions| -> Result<Snapshot, RdbError> {
        let mut dbs: BTreeMap<u64, Keyspace> = BTreeMap::new();
        let header = visit_rdb(bytes, opts, |r| {
            let Some(v) = r.value else { return Ok(()) };
            let ks = dbs.entry(r.db).or_default();
            match ks.insert_new(&r.key, v, r.expire_at_ms) {
                Ok(()) => Ok(()),
                Err(_) => Err(RdbError::new(
                    r.offset,
                    ErrorDetail::DuplicateKey { db: r.db },
                )),
            }
        })?;
        Ok(Snapshot {
            version: header.version,
            format: header.format,
            aux: header.aux,
            databases: dbs,
            slot_infos: header.slot_infos,
        })
    };
    for round in 0..300 {
        let mut w = RdbWriter::new(Vec::new(), 11).unwrap();
        for _ in 0..rng.usize(1..4) {
            w.select_db(rng.u64(0..3)).unwrap();
            for _ in 0..rng.usize(0..12) {
                let range = if rng.bool() { 10 } else { 1000 };
                let k = format!("k{}", rng.u32(0..range));
                let e = rng.bool().then(|| 1_900_000_000_000 + rng.i64(0..1000));
                w.write_string(k.as_bytes(), format!("v{}", rng.u32(..)).as_bytes(), e)
                    .unwrap();
            }
        }
        let mut bytes = w.finish().unwrap();
        match rng.u8(0..3) {
            0 => bytes.truncate(rng.usize(9..=bytes.len())),
            1 => {
                let at = rng.usize(9..bytes.len());
                bytes[at] ^= 1 << rng.u8(0..8);
            }
            _ => {}
        }
        for threads in [1, 2] {
            let opts = LoadOptions {
                verify_checksum: false,
                threads,
                ..Default::default()
            };
            let want = one_at_a_time(&bytes, &opts);
            let what = format!("seed {seed}, round {round}, {threads} threads");
            assert_same(&want, &load_rdb(&bytes, &opts), &what);
            let mut src: &[u8] = &bytes;
            let got = load_rdb_chunked(&mut src, 7, &opts, &mut |_, _| Ok(()));
            assert_same(&want, &got, &format!("{what}, chunked"));
            assert_same(
                &want,
                &load_pushed(&bytes, &opts, 5),
                &format!("{what}, pushed"),
            );
        }
    }
}

/// A file's first database and RESIZEDB count are read from its start, bounded by what the
/// rest of the file can hold; a start without them gives nothing. A database reserved for a
/// union that no file fills is not in the union.
#[test]
fn db_size_is_peeked_from_the_start_and_bounded() {
    let mut w = RdbWriter::new(Vec::new(), 11).unwrap();
    w.aux(b"redis-ver", b"7.2.4").unwrap();
    w.select_db(3).unwrap();
    w.resize_db(5, 0).unwrap();
    for k in 0..5 {
        w.write_string(format!("k{k}").as_bytes(), b"v", None)
            .unwrap();
    }
    let bytes = w.finish().unwrap();
    let len = bytes.len() as u64;
    assert_eq!(peek_db_size(&bytes, len), Some((3, 5)));
    // RESIZEDB (0xFB) and its two lengths of one byte each end the start it needs.
    let resize = bytes.iter().position(|&b| b == 0xFB).unwrap();
    assert_eq!(peek_db_size(&bytes[..resize + 3], len), Some((3, 5)));
    assert_eq!(peek_db_size(&bytes[..resize + 1], len), None);
    // A count larger than the file could hold is cut to what it can.
    let mut w = RdbWriter::new(Vec::new(), 11).unwrap();
    w.select_db(0).unwrap();
    w.resize_db(1 << 40, 0).unwrap();
    let forged = w.finish().unwrap();
    let (db, keys) = peek_db_size(&forged, forged.len() as u64).unwrap();
    assert_eq!(db, 0);
    assert!(keys <= forged.len() as u64, "{keys}");
    // No SELECTDB + RESIZEDB right after the header: nothing.
    assert_eq!(peek_db_size(&bytes[..9], len), None);
    assert_eq!(peek_db_size(b"REDIS0011\xff", 10), None);
    assert_eq!(peek_db_size(b"NOTRDB", 6), None);
    let mut w = RdbWriter::new(Vec::new(), 11).unwrap();
    w.select_db(0).unwrap();
    w.write_string(b"k", b"v", None).unwrap();
    assert_eq!(peek_db_size(&w.finish().unwrap(), 100), None);

    // The union of `bytes` with database 7 reserved holds database 3 alone.
    let mut b = UnionBuilder::new(OnDuplicate::Error);
    b.reserve(3, 5);
    b.reserve(7, 100);
    b.start_file();
    let visited = visit_rdb(&bytes, &LoadOptions::default(), |r| b.add(r));
    b.finish_file(visited).unwrap();
    let u = b.finish().unwrap();
    assert_eq!(u.databases.keys().copied().collect::<Vec<_>>(), vec![3]);
    assert_eq!(u.databases[&3].len(), 5);
}

/// LZF data that decodes to `ulen` bytes (at least 35): a 32-byte literal, then
/// back-references of 264 bytes at distance 32, about 88 times smaller than its output and
/// built in milliseconds (a hostile file's "12 MB that expand to 1 GiB").
fn lzf_repeats(ulen: u64) -> Vec<u8> {
    let mut out = vec![31u8];
    out.extend(1..=32u8);
    let mut left = ulen - 32;
    let backref = |out: &mut Vec<u8>, n: u64| {
        let l = n - 2;
        if l < 7 {
            out.extend_from_slice(&[(l as u8) << 5, 31]);
        } else {
            out.extend_from_slice(&[7 << 5, (l - 7) as u8, 31]);
        }
    };
    out.reserve((left / 264 * 3 + 8) as usize);
    while left > 0 {
        let mut n = left.min(264);
        if matches!(left - n, 1 | 2) {
            n -= 3;
        }
        backref(&mut out, n);
        left -= n;
    }
    out
}

/// A file whose one key `big` (database 0) holds a string of `ulen` bytes stored as the
/// LZF data `data` (no CRC-64: hashing 48 MB would be most of a debug test's time), and
/// the offset of the string's encoding byte.
fn lzf_string_file(data: &[u8], ulen: u64) -> (Vec<u8>, u64) {
    let mut b = b"REDIS0011".to_vec();
    b.extend_from_slice(&[0xFE, 0x00, 0x00, 3]);
    b.extend_from_slice(b"big");
    let at = b.len() as u64;
    b.push(0xC3);
    b.extend(len64(data.len() as u64));
    b.extend(len64(ulen));
    b.extend_from_slice(data);
    b.push(0xFF);
    b.extend_from_slice(&[0; 8]);
    (b, at)
}

/// Issue 54: an LZF string that expands to 1 GiB (from 12 MB), or claims 4 GiB (from 48
/// MB), is refused at once under the default limit (Redis' 512 MB proto-max-bulk-len), by
/// every reader (slice, chunked, parallel, pushed), with the same typed error: the string's
/// offset, its key and the limit; nothing is decompressed. Raising the limit past it makes
/// the check pass (the length is then judged by the data).
#[test]
fn strings_longer_than_the_limit_are_refused_before_decoding() {
    for ulen in [1u64 << 30, (4 << 30) - 66] {
        let data = lzf_repeats(ulen);
        assert!(data.len() as u64 * 88 >= ulen, "{} {ulen}", data.len());
        let (bytes, at) = lzf_string_file(&data, ulen);
        let e = load_rdb(&bytes, &LoadOptions::default()).unwrap_err();
        assert_eq!(e.kind, RdbErrorKind::TooLarge, "{e}");
        assert_eq!(e.kind.name(), "too-large");
        assert_eq!((e.offset, e.key.as_deref()), (at, Some(&b"big"[..])), "{e}");
        let text = e.to_string();
        assert!(
            text.contains(&format!("string value of {ulen} bytes"))
                && text.contains("536870912 bytes"),
            "{text}"
        );
        let mut src: &[u8] = &bytes;
        let chunked = load_rdb_chunked(&mut src, 1 << 20, &LoadOptions::default(), &mut |_, _| {
            Ok(())
        });
        assert_eq!(chunked.unwrap_err(), e);
        let two = LoadOptions {
            threads: 2,
            parallel_record_bytes: 0,
            ..LoadOptions::default()
        };
        let mut src: &[u8] = &bytes;
        let parallel = load_rdb_chunked(&mut src, 1 << 20, &two, &mut |_, _| Ok(()));
        assert_eq!(parallel.unwrap_err(), e);
        assert_eq!(
            load_pushed(&bytes, &LoadOptions::default(), 8 << 20).unwrap_err(),
            e
        );
        // A names-only pass and a pattern that leaves the key out decode nothing: no error.
        let names = LoadOptions {
            skip_values: true,
            ..LoadOptions::default()
        };
        assert!(visit_rdb(&bytes, &names, |_| Ok(())).is_ok());
    }
    // The limit is the option's: a 1 MiB + 1 string under a 1 MiB limit is refused, the same
    // string under 2 MiB loads.
    let ulen = (1 << 20) + 1;
    let (bytes, at) = lzf_string_file(&lzf_repeats(ulen), ulen);
    let small = |max| LoadOptions {
        max_value_bytes: max,
        ..LoadOptions::default()
    };
    let e = load_rdb(&bytes, &small(1 << 20)).unwrap_err();
    assert_eq!((e.kind, e.offset), (RdbErrorKind::TooLarge, at), "{e}");
    let snap = load_rdb(&bytes, &small(2 << 20)).unwrap();
    assert_eq!(string_of(&snap, 0, b"big").len() as u64, ulen);
}

/// The limit covers every string a load builds: a raw string value (streamed or not), a
/// key, an element of a list and an embedded blob, raw or compressed; each error is at the
/// string's first byte, with the key, the same from every reader.
#[test]
fn the_limit_covers_keys_elements_blobs_and_raw_strings() {
    let opts = LoadOptions {
        max_value_bytes: 1000,
        ..LoadOptions::default()
    };
    let long = vec![7u8; 1001];
    let ok = vec![7u8; 1000];
    let raw = |n: usize| {
        let mut v = vec![0x80];
        v.extend_from_slice(&(n as u32).to_be_bytes());
        v
    };
    // (records, offset of the refused string in the records, key named)
    let mut cases: Vec<(Vec<u8>, usize, &[u8])> = Vec::new();
    // A raw string value.
    let mut r = vec![0x00, 1, b'k'];
    let at = r.len();
    r.extend(raw(long.len()));
    r.extend_from_slice(&long);
    cases.push((r, at, b"k"));
    // A raw key of 1001 bytes (named by its first bytes? no: the key is what is refused, the
    // error names no key).
    let mut r = vec![0x00];
    r.extend(raw(long.len()));
    r.extend_from_slice(&long);
    r.extend(s(b"v"));
    cases.push((r, 0, b""));
    // A list element, compressed.
    let data = lzf_repeats(1001);
    let mut r = vec![0x01, 1, b'l', 2];
    r.extend(s(b"a"));
    let at = r.len();
    r.push(0xC3);
    r.extend(len64(data.len() as u64));
    r.extend(len64(1001));
    r.extend_from_slice(&data);
    cases.push((r, at, b"l"));
    // A set listpack blob, raw.
    let mut r = vec![20, 1, b'p'];
    let at = r.len();
    r.extend(raw(long.len()));
    r.extend_from_slice(&long);
    cases.push((r, at, b"p"));
    for (records, at, key) in &cases {
        let mut rec = vec![0xFE, 0];
        rec.extend_from_slice(records);
        let bytes = file(11, &rec);
        let e = load_rdb(&bytes, &opts).unwrap_err();
        assert_eq!(e.kind, RdbErrorKind::TooLarge, "{e}");
        assert_eq!(
            e.offset,
            9 + 2 + if key.is_empty() { 1 } else { *at as u64 },
            "{e}"
        );
        if !key.is_empty() {
            assert_eq!(e.key.as_deref(), Some(*key), "{e}");
        }
        same_as_slice(&bytes, &opts, &[7, 600, 4096]);
    }
    // At the limit: loads.
    let bytes = raw_strings_rdb(&[(b"k", &ok)]);
    assert!(load_rdb(&bytes, &opts).is_ok());
    // A streamed raw string (longer than the window, at least 1 MiB) is refused at its
    // header by the chunked and pushed readers as by the slice reader.
    let big = vec![1u8; (1 << 20) + 5];
    let bytes = raw_strings_rdb(&[(b"a", b"x"), (b"big", &big)]);
    let opts = LoadOptions {
        max_value_bytes: 1 << 20,
        ..LoadOptions::default()
    };
    let e = load_rdb(&bytes, &opts).unwrap_err();
    assert_eq!(
        (e.kind, e.key.as_deref()),
        (RdbErrorKind::TooLarge, Some(&b"big"[..]))
    );
    same_as_slice(&bytes, &opts, &[4096, 64 << 10]);
}

/// A raw string claiming more bytes than the rest of a file holds is refused as truncated as
/// soon as its header is read (the chunked reader knows the file's length), with the slice
/// reader's error, not after the bytes that exist were streamed into it.
#[test]
fn a_long_raw_string_past_the_end_of_the_file_is_truncated_at_once() {
    let mut bytes = raw_strings_rdb(&[(b"a", b"x"), (b"big", &vec![1u8; 3 << 20])]);
    // Cut the file 1 MiB before the string's end.
    bytes.truncate(bytes.len() - 9 - (1 << 20));
    let want = load_rdb(&bytes, &LoadOptions::default()).unwrap_err();
    assert_eq!(want.kind, RdbErrorKind::Truncated);
    let mut reads = 0u64;
    struct Counting<'a>(&'a [u8], &'a mut u64);
    impl ChunkSource for Counting<'_> {
        fn len(&self) -> u64 {
            self.0.len() as u64
        }
        fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = (&*self.0).read_at(offset, buf)?;
            *self.1 += n as u64;
            Ok(n)
        }
    }
    let got = load_rdb_chunked(
        &mut Counting(&bytes, &mut reads),
        64 << 10,
        &LoadOptions::default(),
        &mut |_, _| Ok(()),
    )
    .unwrap_err();
    assert_eq!(got, want);
    assert!(
        reads <= 128 << 10,
        "{reads} bytes read before the truncation was seen"
    );
    same_as_slice(&bytes, &LoadOptions::default(), &[4096, 1 << 20]);
}
