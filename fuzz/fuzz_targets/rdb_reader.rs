//! Whole RDB files: the reader (checksum off, so mutated files get past the trailer check and
//! reach every value decoder), the pattern filter, and the inspect report.
#![no_main]
use bitlens::rdb::{load_rdb, LoadOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let opts = LoadOptions {
        verify_checksum: false,
        patterns: Vec::new(),
        db: None,
    };
    let _ = load_rdb(data, &opts);
    let filtered = LoadOptions {
        verify_checksum: false,
        patterns: vec![b"s*".to_vec()],
        db: None,
    };
    let _ = load_rdb(data, &filtered);
    if let Ok(r) = bitlens::inspect::report(data, &opts) {
        let _ = r.to_text();
        let _ = r.to_json();
    }
});
