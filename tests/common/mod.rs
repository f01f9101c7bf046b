//! Helpers shared by the integration tests: the conformance data recorded from a real Redis 7
//! (format: ../shared/conformance/README.md), the committed snapshots, randomized tests' seeds.
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

/// Decodes a hex string (`resp_hex`, `argv_hex`, ... of a recorded case).
pub fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// The expected bytes of a recorded case: field `hexkey` (hex) when present, else `text`.
pub fn expected(case: &serde_json::Value, text: &str, hexkey: &str) -> Vec<u8> {
    use serde_json::Value as Json;
    match (case.get(text), case.get(hexkey)) {
        (_, Some(Json::String(h))) => hex(h),
        (Some(Json::String(t)), _) => t.as_bytes().to_vec(),
        _ => panic!("case {} has neither {text} nor {hexkey}", case["id"]),
    }
}

/// The argv of a recorded case (`argv_hex` when present, else `argv`).
pub fn argv(case: &serde_json::Value) -> Vec<Vec<u8>> {
    use serde_json::Value as Json;
    if let Some(Json::Array(a)) = case.get("argv_hex") {
        return a
            .iter()
            .map(|h| hex(h.as_str().expect("hex arg")))
            .collect();
    }
    case["argv"]
        .as_array()
        .expect("argv")
        .iter()
        .map(|a| a.as_str().expect("text arg").as_bytes().to_vec())
        .collect()
}

/// The committed snapshots, by name: tests/data/fixtures/*.rdb and
/// tests/data/conformance/*/dump.rdb (each server's own files), sorted.
pub fn snapshots() -> Vec<(String, Vec<u8>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut out = Vec::new();
    for dir in ["fixtures", "conformance"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            let file = if p.is_dir() { p.join("dump.rdb") } else { p };
            if file.extension().is_some_and(|x| x == "rdb") && file.exists() {
                let name = file.strip_prefix(&root).unwrap().display().to_string();
                out.push((name, std::fs::read(&file).unwrap()));
            }
        }
    }
    out.sort();
    assert!(out.len() >= 25, "snapshots missing: {}", out.len());
    out
}
