//! DUMP payloads: the input as a whole payload, and the input as a value body given a valid
//! version + CRC-64 trailer so that mutations reach the value decoders.
#![no_main]
use bitlens::rdb::{load_dump, load_dump_with, RdbWriter};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = load_dump(data);
    let _ = load_dump_with(data, false);
    let mut p = data.to_vec();
    p.extend_from_slice(&12u16.to_le_bytes());
    let crc = crc::Crc::<u64>::new(&crc::CRC_64_REDIS).checksum(&p);
    p.extend_from_slice(&crc.to_le_bytes());
    let decoded = load_dump(&p);
    let mut w = RdbWriter::new(Vec::new(), 12).unwrap();
    if w.write_dump_payload(b"k", &p, None).is_ok() {
        let bytes = w.finish().unwrap();
        // A payload that decodes on its own must decode the same inside a written file.
        let loaded = bitlens::rdb::load_rdb(&bytes, &Default::default());
        if let Ok(v) = decoded {
            assert_eq!(loaded.unwrap().databases[&0].get(b"k"), Some(&v));
        }
    } else {
        assert!(decoded.is_err(), "writer rejected a payload the reader accepts");
    }
});
