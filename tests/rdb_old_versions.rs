//! RDB versions 1 to 5 (Redis 1.x to 2.6 formats) and 13 to 15 (Redis 8.6 / 8.8 / 8.10).
//!
//! No server that writes these versions runs here, so the files are built with bitlens' own
//! [`RdbWriter`] from the published format (strings, text-score sorted sets, expiry in
//! seconds before RDB 3), plus hand-assembled values of the old container encodings (linked
//! lists, plain sets and hashes, zipmap and ziplist hashes, ziplist lists and sorted sets,
//! intsets). `tests/data/fixtures/written-redis-rdbN.rdb` hold these bytes; the test checks
//! that the writer still produces them byte for byte. Their `.json` files were recorded by
//! `scripts/make-fixtures.py --load-written` from a real **Redis 7.4.1** that loaded each file
//! (`--dir`/`--dbfilename`): TYPE, DBSIZE, GET, ZRANGE WITHSCORES, expiry as Redis answered;
//! `tests/rdb_fixtures.rs` compares bitlens with them like every other fixture.
//! `--write-fixtures` regenerates the files: `cargo test --test rdb_old_versions -- --ignored`.

use std::path::PathBuf;

use bitlens::rdb::{load_rdb, Format, LoadOptions, RdbWriter, ValueKind};
use bitlens::zset::ZSet;

/// Far-future expiry (2038-01-01T00:00:00Z): whole seconds that fit the 32-bit EXPIRETIME of
/// RDB 1–2, so those files keep it exactly.
const FAR_MS: i64 = 2_145_916_800_000;

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/fixtures")
}

/// An RDB string of raw bytes (6- or 14-bit length).
fn rdb_str(out: &mut Vec<u8>, s: &[u8]) {
    if s.len() < 64 {
        out.push(s.len() as u8);
    } else {
        assert!(s.len() < 1 << 14);
        out.push(0x40 | (s.len() >> 8) as u8);
        out.push(s.len() as u8);
    }
    out.extend_from_slice(s);
}

fn rdb_len(out: &mut Vec<u8>, n: usize) {
    assert!(n < 64);
    out.push(n as u8);
}

/// A ziplist of short strings (each under 64 bytes: 1-byte prevlen, 6-bit string encoding).
fn ziplist(items: &[&[u8]]) -> Vec<u8> {
    let mut entries = Vec::new();
    let mut prev = 0usize;
    let mut tail = 10usize;
    for it in items {
        assert!(it.len() < 64 && prev < 254);
        tail = 10 + entries.len();
        let start = entries.len();
        entries.push(prev as u8);
        entries.push(it.len() as u8);
        entries.extend_from_slice(it);
        prev = entries.len() - start;
    }
    let total = 10 + entries.len() + 1;
    let mut z = Vec::new();
    z.extend_from_slice(&(total as u32).to_le_bytes());
    z.extend_from_slice(&(tail as u32).to_le_bytes());
    z.extend_from_slice(&(items.len() as u16).to_le_bytes());
    z.extend_from_slice(&entries);
    z.push(0xFF);
    z
}

/// A zipmap of short pairs.
fn zipmap(pairs: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut z = vec![pairs.len() as u8];
    for (k, v) in pairs {
        z.push(k.len() as u8);
        z.extend_from_slice(k);
        z.push(v.len() as u8);
        z.push(0); // free bytes
        z.extend_from_slice(v);
    }
    z.push(0xFF);
    z
}

/// An intset of 16-bit integers (sorted, unique).
fn intset16(vals: &[i16]) -> Vec<u8> {
    let mut z = Vec::new();
    z.extend_from_slice(&2u32.to_le_bytes());
    z.extend_from_slice(&(vals.len() as u32).to_le_bytes());
    for v in vals {
        z.extend_from_slice(&v.to_le_bytes());
    }
    z
}

fn raw_value(w: &mut RdbWriter<Vec<u8>>, key: &[u8], kind: ValueKind, body: &[u8]) {
    let t = w
        .format()
        .type_byte(kind)
        .expect("kind exists in this version");
    w.begin_value(key, t, None).unwrap();
    w.write_value_piece(body).unwrap();
}

fn blob_value(w: &mut RdbWriter<Vec<u8>>, key: &[u8], kind: ValueKind, blob: &[u8]) {
    let mut b = Vec::new();
    rdb_str(&mut b, blob);
    raw_value(w, key, kind, &b);
}

/// The data set of RDB `version` (1–5): what that format can hold.
fn build(version: u32) -> Vec<u8> {
    let mut w = RdbWriter::new(Vec::new(), version).unwrap();
    let f = w.format();
    w.select_db(0).unwrap();
    w.write_string(b"str:short", b"hello", Some(FAR_MS))
        .unwrap();
    w.write_string(b"str:int", b"12345", None).unwrap();
    w.write_string(b"str:neg", b"-7", None).unwrap();
    w.write_string(b"str:long", "abcdefgh".repeat(100).as_bytes(), None)
        .unwrap();
    w.write_string(b"str:empty", b"", None).unwrap();
    let z = ZSet::from_pairs(vec![
        (b"one".to_vec(), 1.0),
        (b"two.5".to_vec(), 2.5),
        (b"neg".to_vec(), f64::NEG_INFINITY),
        (b"pos".to_vec(), f64::INFINITY),
        (b"minus3".to_vec(), -3.0),
        (b"tiny".to_vec(), 1.5e-7),
    ]);
    w.write_zset(b"zset:text", &z, Some(FAR_MS + 1000)).unwrap();
    // RDB_TYPE_LIST / SET / HASH: counts then strings.
    let mut b = Vec::new();
    rdb_len(&mut b, 3);
    for s in [&b"a"[..], b"1", b"bee"] {
        rdb_str(&mut b, s);
    }
    raw_value(&mut w, b"list:linked", ValueKind::List, &b);
    let mut b = Vec::new();
    rdb_len(&mut b, 2);
    for s in [&b"x"[..], b"y"] {
        rdb_str(&mut b, s);
    }
    raw_value(&mut w, b"set:plain", ValueKind::Set, &b);
    let mut b = Vec::new();
    rdb_len(&mut b, 2);
    for s in [&b"f1"[..], b"v1", b"f2", b"2"] {
        rdb_str(&mut b, s);
    }
    raw_value(&mut w, b"hash:plain", ValueKind::Hash, &b);
    if f.type_byte(ValueKind::HashZipmap).is_some() {
        blob_value(
            &mut w,
            b"hash:zipmap",
            ValueKind::HashZipmap,
            &zipmap(&[(b"name", b"zip"), (b"n", b"7")]),
        );
        blob_value(
            &mut w,
            b"list:ziplist",
            ValueKind::ListZiplist,
            &ziplist(&[b"p", b"q", b"300"]),
        );
        blob_value(
            &mut w,
            b"set:intset",
            ValueKind::SetIntset,
            &intset16(&[-5, 1, 2, 3, 700]),
        );
        blob_value(
            &mut w,
            b"zset:ziplist",
            ValueKind::ZSetZiplist,
            // Sorted by score, as Redis writes it (Redis keeps a ziplist's order on load).
            &ziplist(&[b"c", b"-4", b"a", b"1", b"b", b"2.5"]),
        );
    }
    if f.type_byte(ValueKind::HashZiplist).is_some() {
        blob_value(
            &mut w,
            b"hash:ziplist",
            ValueKind::HashZiplist,
            &ziplist(&[b"k1", b"v1", b"k2", b"22"]),
        );
    }
    w.select_db(2).unwrap();
    w.write_string(b"db2:key", b"in db 2", Some(FAR_MS + 2000))
        .unwrap();
    w.finish().unwrap()
}

fn path(version: u32) -> PathBuf {
    fixture_dir().join(format!("written-redis-rdb{version}.rdb"))
}

#[test]
#[ignore = "regenerates tests/data/fixtures/written-redis-rdb*.rdb"]
fn write_fixtures() {
    for v in 1..=5 {
        std::fs::write(path(v), build(v)).unwrap();
    }
}

#[test]
fn committed_files_are_what_the_writer_builds() {
    for v in 1..=5 {
        let built = build(v);
        let committed = std::fs::read(path(v)).unwrap();
        assert_eq!(built, committed, "RDB {v}");
        assert_eq!(&built[..9], format!("REDIS{v:04}").as_bytes());
        let snap = load_rdb(&built, &LoadOptions::default()).unwrap();
        assert_eq!(snap.format, Format::redis(v));
        // Expiry of RDB 1–2 is in seconds (EXPIRETIME); FAR_MS is whole seconds.
        assert_eq!(
            snap.databases[&0].entry(b"str:short").unwrap().expire_at_ms,
            Some(FAR_MS)
        );
        // RDB 1–4 have no CRC-64 trailer: the file ends at EOF.
        assert_eq!(*built.last().unwrap() == 0xFF, v < 5, "RDB {v}");
    }
}

/// Redis 8.6–8.10 (RDB 13–15): no such server runs here; these files are built with the
/// project's writer from the published format (same records as RDB 12 for strings and sorted
/// sets; RDB_OPCODE_KEY_META 243 before a key: class count, 4-byte class spec, module-opcode
/// fields to their EOF). They load, and the new types bitlens cannot decode yet fail with their
/// RDB_TYPE name, not as garbage.
#[test]
fn redis_8_formats_written_from_the_format() {
    for v in 13..=15 {
        let mut w = RdbWriter::new(Vec::new(), v).unwrap();
        w.select_db(0).unwrap();
        w.write_string(b"s", b"eight", Some(FAR_MS)).unwrap();
        // KEY_META with one class (spec 0x01020304) holding one unsigned int (opcode 2, 7).
        let meta = w
            .format()
            .opcode_byte(bitlens::rdb::Opcode::KeyMeta)
            .unwrap();
        assert_eq!(meta, 243);
        w.write_value_piece(&[meta, 1, 1, 2, 3, 4, 2, 7, 0])
            .unwrap();
        let z = ZSet::from_pairs(vec![(b"m".to_vec(), 1.618)]);
        w.write_zset(b"z", &z, None).unwrap();
        let bytes = w.finish().unwrap();
        let snap = load_rdb(&bytes, &LoadOptions::default()).unwrap();
        assert_eq!(snap.format, Format::redis(v));
        assert_eq!(snap.databases[&0].len(), 2, "RDB {v}");
        assert_eq!(
            snap.databases[&0].entry(b"s").unwrap().expire_at_ms,
            Some(FAR_MS)
        );
        // An array value (RDB_TYPE_ARRAY, 28; RDB 14+) is named in the error.
        if v >= 14 {
            let mut w = RdbWriter::new(Vec::new(), v).unwrap();
            let t = w.format().type_byte(ValueKind::Array).unwrap();
            w.begin_value(b"arr", t, None).unwrap();
            w.write_value_piece(&[0]).unwrap();
            let bytes = w.finish().unwrap();
            let e = load_rdb(&bytes, &LoadOptions::default()).unwrap_err();
            assert!(e.to_string().contains("RDB_TYPE_ARRAY"), "{e}");
            assert_eq!(e.key.as_deref(), Some(&b"arr"[..]));
        }
    }
    // Newer than bitlens knows: the error names the version and the newest one read.
    let mut bytes = RdbWriter::new(Vec::new(), 15).unwrap().finish().unwrap();
    bytes[5..9].copy_from_slice(b"0016");
    let e = load_rdb(&bytes, &LoadOptions::default()).unwrap_err();
    assert!(
        e.to_string().contains("version 16") && e.to_string().contains("newest it reads is 15"),
        "{e}"
    );
}

/// The chunked reader (bounded window) returns what the slice reader returns for every
/// fixture, whatever its format: RDB 1–4 without a CRC trailer, Valkey's VALKEY080.
#[test]
fn chunked_reader_agrees_on_every_format() {
    use bitlens::rdb::load_rdb_chunked;
    let mut n = 0;
    for e in std::fs::read_dir(fixture_dir()).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "rdb") {
            continue;
        }
        let bytes = std::fs::read(&p).unwrap();
        let want = load_rdb(&bytes, &LoadOptions::default()).unwrap();
        for chunk in [7, 300] {
            let mut src: &[u8] = &bytes;
            let got =
                load_rdb_chunked(&mut src, chunk, &LoadOptions::default(), &mut |_, _| Ok(()))
                    .unwrap_or_else(|e| panic!("{} chunk {chunk}: {e}", p.display()));
            assert_eq!(got.entries(), want.entries(), "{}", p.display());
            assert_eq!((got.format, &got.aux), (want.format, &want.aux));
        }
        n += 1;
    }
    assert!(n >= 20);
}

/// Every cut of an RDB 1–5 file (no trailer before 5, so EOF is the last byte) is refused
/// with an offset inside the input, never a panic.
#[test]
fn cut_old_files_are_refused_with_an_offset() {
    for v in 1..=5 {
        let bytes = build(v);
        for cut in 0..bytes.len() {
            let e = load_rdb(&bytes[..cut], &LoadOptions::default()).unwrap_err();
            assert!(e.offset <= cut as u64, "RDB {v} cut {cut}: {e}");
        }
    }
}
