//! RDB_TYPE_HASH_ZIPMAP integrity at load, against all six servers (each skipped when not
//! installed; Redis 6.0.9, which predates the check, only has its outcome printed): files written by bitlens' RDB writer holding one zipmap each. A well-formed
//! zipmap loads in both and HGETALL / HLEN / OBJECT-free reads match byte for byte; a zipmap
//! whose header count claims more (or fewer) entries than it holds, an empty one and one with
//! a repeated field are refused by the server (it exits at startup: "Zipmap integrity check
//! failed", "Hash zipmap with dup elements") and by bitlens, with the key and the offset.

use bitlens::command::{execute_in, Ctx};
use bitlens::dialect::Profile;
use bitlens::rdb::{load_rdb, Format, LoadOptions, RdbWriter};
use bitlens_difftest::{RedisServer, ServerKind};

/// A zipmap: header count byte, then (len, field, len, free 0, value) per pair, then 0xFF.
fn zipmap(header: u8, pairs: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut b = vec![header];
    for (f, v) in pairs {
        b.push(f.len() as u8);
        b.extend_from_slice(f);
        b.push(v.len() as u8);
        b.push(0);
        b.extend_from_slice(v);
    }
    b.push(0xFF);
    b
}

/// A file of `kind`'s format with key `h` holding `blob` as RDB_TYPE_HASH_ZIPMAP (type 9).
fn file(kind: ServerKind, blob: &[u8]) -> Vec<u8> {
    let format = Format::from_magic(kind.rdb_magic()).unwrap();
    let mut w = RdbWriter::with_format(Vec::new(), format, kind.version().as_bytes()).unwrap();
    w.select_db(0).unwrap();
    w.begin_value(b"h", 9, None).unwrap();
    assert!(blob.len() < 64, "6-bit string length");
    w.write_value_piece(&[blob.len() as u8]).unwrap();
    w.write_value_piece(blob).unwrap();
    w.finish().unwrap()
}

#[test]
fn zipmap_integrity_as_every_server() {
    let good = zipmap(2, &[(b"a", b"1"), (b"b", b"2")]);
    let bad = [
        ("count above", zipmap(3, &[(b"a", b"1"), (b"b", b"2")])),
        ("count below", zipmap(1, &[(b"a", b"1"), (b"b", b"2")])),
        ("empty", zipmap(0, &[])),
        ("repeated field", zipmap(2, &[(b"a", b"1"), (b"a", b"2")])),
    ];
    let mut tested = 0;
    for kind in ServerKind::ALL {
        if !kind.available() {
            eprintln!("{}: not installed, skipped", kind.name());
            continue;
        }
        tested += 1;
        let bytes = file(kind, &good);
        let server = RedisServer::start_kind_loading(kind, &bytes, &[]);
        let mut raw = server.raw_connection();
        let profile = Profile::from_name(kind.profile_name()).unwrap();
        let mut ks = load_rdb(&bytes, &LoadOptions::default())
            .expect("load")
            .databases[&0]
            .clone();
        for argv in [
            vec![b"HGETALL".to_vec(), b"h".to_vec()],
            vec![b"HLEN".to_vec(), b"h".to_vec()],
            vec![b"HGET".to_vec(), b"h".to_vec(), b"b".to_vec()],
        ] {
            let ours = execute_in(&mut Ctx::single(&mut ks, profile), &argv).to_resp();
            assert_eq!(ours, raw.query(&argv), "{} {argv:?}", kind.name());
        }
        for (what, blob) in &bad {
            let bytes = file(kind, blob);
            let started =
                std::panic::catch_unwind(|| RedisServer::start_kind_loading(kind, &bytes, &[]));
            if kind == ServerKind::Redis6_0 {
                // Redis 6.0 has no zipmapValidateIntegrity (added in 6.2 with
                // sanitize-dump-payload): it loads what its zipmap walk finds. bitlens refuses
                // as 6.2+ does (not modeled per profile: loading does not know the profile).
                eprintln!(
                    "{} {what}: server {}",
                    kind.name(),
                    if started.is_ok() {
                        "loads it"
                    } else {
                        "refuses it"
                    }
                );
            } else {
                assert!(
                    started.is_err(),
                    "{} loaded a zipmap with {what}",
                    kind.name()
                );
            }
            let err = load_rdb(&bytes, &LoadOptions::default())
                .err()
                .unwrap_or_else(|| panic!("bitlens loaded a zipmap with {what}"));
            let text = err.to_string();
            assert!(text.contains("key \"h\""), "{what}: {text}");
            assert!(text.contains("offset"), "{what}: {text}");
            eprintln!("{} {what}: bitlens refuses: {text}", kind.name());
        }
    }
    assert!(
        tested >= 2,
        "fewer than two servers installed: set BITLENS_SERVERS_DIR"
    );
}
