//! `bitlens query --roaring KEY=FILE` and `--save-roaring KEY=FILE`: portable Roaring bitmaps
//! in and out of the keyspace, with the exported file loading back to the same bits.

use std::process::Command;

fn bitlens() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bitlens"))
}

#[test]
fn roaring_export_then_import() {
    let dir = tempfile::tempdir().unwrap();
    let rdb = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/conformance/bitmaps/dump.rdb"
    );
    let out = dir.path().join("active.roaring");
    let spec = format!("stats:active:20240501={}", out.display());
    let r = bitlens()
        .args([
            "query",
            "--rdb",
            rdb,
            "--save-roaring",
            &spec,
            "BITCOUNT",
            "stats:active:20240501",
        ])
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let count = String::from_utf8(r.stdout).unwrap();
    assert!(count.trim().parse::<u64>().unwrap() > 0);
    // Load it back under a new key: the same number of bits and the same first set bit.
    let spec = format!("copy={}", out.display());
    let r = bitlens()
        .args(["query", "--rdb", rdb, "--roaring", &spec])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    let mut child = r;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"BITCOUNT copy\nBITPOS copy 1\nBITPOS stats:active:20240501 1\nBITOP XOR x copy stats:active:20240501\nBITCOUNT x\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let lines: Vec<String> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(lines[0], count.trim());
    assert_eq!(lines[1], lines[2]);
    // The XOR of the copy and the original has no bits: identical bitmaps (the copy may be
    // shorter, since trailing zero bytes carry no Roaring values).
    assert_eq!(lines[4], "0");
    // A malformed file is a clear error, not a panic.
    let bad = dir.path().join("bad.roaring");
    std::fs::write(&bad, b"\x3a\x30\x00").unwrap();
    let r = bitlens()
        .args([
            "query",
            "--roaring",
            &format!("k={}", bad.display()),
            "BITCOUNT",
            "k",
        ])
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("Roaring"));
}

#[test]
fn save_roaring_of_a_missing_key_warns_and_writes_an_empty_bitmap() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("missing.roaring");
    let r = bitlens()
        .args([
            "query",
            "--string",
            &format!("k={}", "/dev/null"),
            "--save-roaring",
            &format!("nosuchkey={}", out.display()),
            "EXISTS",
            "nosuchkey",
        ])
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert_eq!(String::from_utf8_lossy(&r.stdout), "0\n");
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        err.contains("\"nosuchkey\" does not exist"),
        "stderr: {err}"
    );
    // The file holds a Roaring bitmap with no values: loading it back counts 0 bits.
    let r = bitlens()
        .args([
            "query",
            "--roaring",
            &format!("k={}", out.display()),
            "BITCOUNT",
            "k",
        ])
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert_eq!(String::from_utf8_lossy(&r.stdout), "0\n");
}
