//! Helpers shared by the integration tests that read the conformance data recorded from a
//! real Redis 7 (format: ../shared/conformance/README.md).
#![allow(dead_code)]

use std::path::PathBuf;

/// The conformance folder: `$BITLENS_CONFORMANCE`, else the shared live copy beside this
/// checkout (`../shared/conformance`), else the copy vendored in `tests/data/conformance`.
pub fn conformance_dir() -> PathBuf {
    if let Ok(d) = std::env::var("BITLENS_CONFORMANCE") {
        return PathBuf::from(d);
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for dir in [
        root.join("../shared/conformance"),
        root.join("tests/data/conformance"),
    ] {
        if dir.join("README.md").exists() {
            return dir;
        }
    }
    panic!("no conformance data: set BITLENS_CONFORMANCE")
}

/// Decodes the URL-encoded key names of `keys.tsv` (`%3A` → `:`).
pub fn url_decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}
