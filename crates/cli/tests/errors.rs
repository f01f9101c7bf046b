//! The same error everywhere (issue 51, item 4), the CLI's part: every case of the shared table
//! `tests/errors.json` (a missing path, a directory, a FIFO, an empty file, a truncated file,
//! random bytes, a bad checksum, a key in two files) given to `bitlens query --rdb` and
//! `bitlens inspect` fails with exit status 1 and one stderr line `bitlens: error[CODE]: ...`
//! whose code is the table's, and whose byte offset is the table's when the table fixes one.
//! JavaScript (tests/e2e/errors.test.mjs) and Python (crates/python/tests/test_errors.py) read
//! the same table. Every run is killed after 20 s, so a FIFO waited on fails instead of hanging.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The shared table.
fn table() -> serde_json::Value {
    let text =
        std::fs::read_to_string(root().join("tests/errors.json")).expect("tests/errors.json");
    serde_json::from_str(&text).expect("tests/errors.json is JSON")
}

/// The paths of a case's input, made in `dir` as the table's `about` says.
fn make_input(dir: &Path, snapshot: &Path, input: &serde_json::Value) -> Vec<PathBuf> {
    let flag = |name: &str| input[name].as_bool() == Some(true);
    if flag("missing") {
        return vec![dir.join("missing.rdb")];
    }
    if flag("directory") {
        let d = dir.join("a-directory");
        std::fs::create_dir(&d).unwrap();
        return vec![d];
    }
    if flag("fifo") {
        let f = dir.join("a-fifo");
        let c = std::ffi::CString::new(f.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: `c` is a NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
        return vec![f];
    }
    let bytes = match input["bytes_hex"].as_str() {
        Some(hex) => bitlens::escape::from_hex(hex).expect("bytes_hex is hex"),
        None => {
            assert_eq!(input["from"], "snapshot", "{input}");
            let mut b = std::fs::read(snapshot).unwrap();
            if let Some(keep) = input["keep"].as_u64() {
                b.truncate(keep as usize);
            }
            if flag("flip_last") {
                *b.last_mut().unwrap() ^= 0xFF;
            }
            b
        }
    };
    let f = dir.join("input.rdb");
    std::fs::write(&f, bytes).unwrap();
    if flag("twice") {
        return vec![f.clone(), f];
    }
    vec![f]
}

/// `bitlens ARGS`: exit status and stderr; panics when it runs 20 s.
fn run(args: &[String]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bitlens"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run bitlens");
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("bitlens {args:?} still running after 20 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The code and the byte offset (when the text names one) of the CLI's one error line.
fn code_and_offset(stderr: &str) -> (String, Option<i64>) {
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("bitlens: warning"))
        .collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    let rest = lines[0].strip_prefix("bitlens: error[").expect(lines[0]);
    let (code, text) = rest.split_once("]: ").expect(lines[0]);
    let offset = text.split_once("at byte offset ").map(|(_, n)| {
        let digits: String = n.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().unwrap()
    });
    (code.to_string(), offset)
}

#[test]
fn every_bad_input_has_the_tables_code() {
    let table = table();
    let snapshot = root().join(table["snapshot"].as_str().unwrap());
    let snapshot_len = std::fs::metadata(&snapshot).unwrap().len() as i64;
    let cases = table["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 8);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let want = case["code"].as_str().unwrap();
        assert!(bitlens::open::CODES.contains(&want), "{name}: {want}");
        let dir = tempfile::tempdir().unwrap();
        let paths = make_input(dir.path(), &snapshot, &case["input"]);
        let paths: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        let query: Vec<String> = paths
            .iter()
            .flat_map(|p| ["--rdb".to_string(), p.clone()])
            .chain(["DBSIZE".to_string()])
            .collect();
        let inspect: Vec<String> = paths.clone();
        for (command, args) in [("query", query), ("inspect", inspect)] {
            let argv: Vec<String> = std::iter::once(command.to_string()).chain(args).collect();
            let (status, stderr) = run(&argv);
            assert_eq!(status, Some(1), "{name} {command}: {stderr}");
            let (code, offset) = code_and_offset(&stderr);
            assert_eq!(code, want, "{name} {command}: {stderr}");
            if let Some(at) = case["offset"].as_i64() {
                let at = if at < 0 { snapshot_len + at } else { at };
                // (An empty file's words name no offset: it is 0.)
                assert_eq!(offset.unwrap_or(0), at, "{name} {command}: {stderr}");
            }
        }
    }
}
