//! DUMP payloads: the input as a whole payload, and the input as a value body given a valid
//! version + CRC-64 trailer so that mutations reach the value decoders: Redis' (RDB 12, its
//! type table) and Valkey's (RDB 80, where type 22 is RDB_TYPE_HASH_2). Content detection
//! (`rdb::detect`, `rdb::identify`) must agree with the loader on what is a DUMP payload.
#![no_main]
use bitlens::rdb::{detect, load_dump, load_dump_with, Detected, Format, RdbErrorKind, RdbWriter};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let whole = load_dump(data);
    let _ = load_dump_with(data, false);
    if let Detected::Dump { .. } = detect(data) {
        // Detected as a DUMP payload: version, type byte and CRC-64 are good, so the loader
        // can only fail inside the value.
        if let Err(e) = &whole {
            assert!(
                !e.describe().contains("CRC-64") && !e.describe().contains("version"),
                "{e}"
            );
            assert!(
                !matches!(
                    e.kind,
                    RdbErrorKind::Checksum | RdbErrorKind::UnsupportedVersion
                ),
                "{e}"
            );
        }
    }
    let _ = bitlens::rdb::identify(data);
    for (version, format) in [(12u16, Format::REDIS_7_4), (80, Format::VALKEY_9)] {
        body_in(data, version, format);
    }
});

fn body_in(data: &[u8], version: u16, format: Format) {
    let mut p = data.to_vec();
    p.extend_from_slice(&version.to_le_bytes());
    let crc = bitlens::rdb::crc64(&p);
    p.extend_from_slice(&crc.to_le_bytes());
    let decoded = load_dump(&p);
    let mut w = RdbWriter::with_format(Vec::new(), format, b"0.0.0").unwrap();
    if w.write_dump_payload(b"k", &p, None).is_ok() {
        let bytes = w.finish().unwrap();
        // A payload that decodes on its own must decode the same inside a written file.
        let loaded = bitlens::rdb::load_rdb(&bytes, &Default::default());
        if let Ok(v) = decoded {
            // Compared as Debug text: a typed module structure may hold a NaN double (the
            // module saved one), which `==` would call unequal to itself.
            let got = loaded.unwrap().databases[&0].get(b"k").cloned();
            assert_eq!(format!("{got:?}"), format!("{:?}", Some(v)));
        }
    } else {
        assert!(
            decoded.is_err(),
            "writer rejected a payload the reader accepts"
        );
    }
}
