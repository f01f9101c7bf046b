//! The new-user trial's findings (issue 17), each against a file a real Redis 7.4.1 wrote
//! (skipped when not installed) or a file whose content the test states:
//! - `inspect`'s header counts the file's keys, and a filter says how many it keeps (the keys
//!   `KEYS` and DBSIZE count on the server that loaded the file);
//! - every command that reads an RDB file says the same of an empty file;
//! - `diff` prints no empty "memory per prefix" section;
//! - `query --dump` of bytes that are no DUMP reply, and `--roaring` of bytes that are no
//!   portable Roaring bitmap, say what is wrong and what to use;
//! - `inspect --csv` quotes keys as RFC 4180 says (a reader gets every key back, one row per key).

mod common;

use bitlens::Reply;
use bitlens_difftest::{query_pipeline, RedisServer, ServerKind};
use common::*;

/// A Redis 7.4.1 holding keys in databases 0 and 3, some with `,`, `"`, a space, a newline and
/// an ESC byte in their names; the saved file.
fn written() -> Option<(RedisServer, Vec<u8>)> {
    let kind = ServerKind::Redis7_4;
    if !kind.available() {
        eprintln!("skipped: {} not installed", kind.name());
        return None;
    }
    let server = RedisServer::start_kind(kind, &[]);
    let mut c = server.connection();
    let mut cmds: Vec<Vec<Vec<u8>>> = Vec::new();
    for i in 0..12 {
        cmds.push(words(&format!("SETBIT bm:{i} {} 1", i * 10)));
        cmds.push(words(&format!("HSET user:{i} name u{i}")));
    }
    for k in NAMES {
        cmds.push(argv(&[b"SET", k, b"v"]));
    }
    cmds.push(words("SELECT 3"));
    cmds.push(words("SET other:1 x"));
    cmds.push(words("SET other:2 y"));
    cmds.push(words("SELECT 0"));
    for r in query_pipeline(&mut c, &cmds) {
        assert!(!matches!(r, Reply::Error(_)), "{r:?}");
    }
    let rdb = server.save_rdb();
    Some((server, rdb))
}

/// Key names a CSV must quote or escape.
const NAMES: [&[u8]; 6] = [
    b"a,b",
    b"say \"hi\"",
    b"two words",
    b"line\nbreak",
    b"esc\x1b[31mred",
    b"\"starts-quoted",
];

#[test]
fn inspect_header_counts_the_file_and_says_what_filters_keep() {
    let Some((server, rdb)) = written() else {
        return;
    };
    let (_dir, path) = temp_file("dump.rdb", &rdb);
    let mut c = server.connection();
    let dbsize = |db: i64, c: &mut redis::Connection| -> u64 {
        redis::cmd("SELECT").arg(db).query::<()>(c).unwrap();
        redis::cmd("DBSIZE").query(c).unwrap()
    };
    let all = dbsize(0, &mut c) + dbsize(3, &mut c);
    redis::cmd("SELECT").arg(0).query::<()>(&mut c).unwrap();
    let bm: Vec<Vec<u8>> = redis::cmd("KEYS").arg("bm:*").query(&mut c).unwrap();
    let text = String::from_utf8(bitlens_ok(&["inspect", &path, "--match", "bm:*"])).unwrap();
    let head = text.lines().next().unwrap();
    assert!(
        head.contains(&format!(" {all} keys in 2 database(s)")),
        "{head}"
    );
    assert!(
        text.lines().nth(1).unwrap().starts_with(&format!(
            "filters keep {} of the {all} keys, in 1 database(s)",
            bm.len()
        )),
        "{text}"
    );
    let v: serde_json::Value =
        serde_json::from_slice(&bitlens_ok(&["inspect", &path, "--json", "--db", "3"])).unwrap();
    assert_eq!(v["file_keys"].as_u64(), Some(all));
    assert_eq!(v["file_databases"].as_u64(), Some(2));
    assert_eq!(v["filtered"], true);
    assert_eq!(v["keys"].as_u64(), Some(dbsize(3, &mut c)));
    // Without a filter there is no "filters keep" line.
    let text = String::from_utf8(bitlens_ok(&["inspect", &path])).unwrap();
    assert!(!text.contains("filters keep"), "{text}");
}

#[test]
fn every_command_says_the_same_of_an_empty_file() {
    let (_dir, empty) = temp_file("empty.rdb", b"");
    let fixtures = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/conformance/redis-7.4.1/dump.rdb"
    );
    let svg = format!("{empty}.svg");
    let want = format!("bitlens: error[empty]: cannot read snapshot {empty}: empty file\n");
    for args in [
        vec!["query", "--rdb", &empty, "DBSIZE"],
        vec!["inspect", &empty],
        vec!["inspect", &empty, "--csv"],
        vec!["dump", &empty],
        vec!["diff", &empty, fixtures],
        vec!["diff", fixtures, &empty],
        vec!["chart", "dau", "--rdb", &empty, "--svg", &svg],
    ] {
        let out = bitlens(&args, b"");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), want, "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn diff_prints_no_empty_section() {
    let Some((server, rdb)) = written() else {
        return;
    };
    let (_d1, a) = temp_file("a.rdb", &rdb);
    let text = String::from_utf8(bitlens_ok(&["diff", &a, &a])).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.starts_with("0 added, 0 removed, 0 changed, "),
        "{text}"
    );
    // A change shows its section (a prefix whose memory moved).
    let mut c = server.connection();
    redis::cmd("SET")
        .arg("user:new")
        .arg("x".repeat(500))
        .query::<()>(&mut c)
        .unwrap();
    let (_d2, b) = temp_file("b.rdb", &server.save_rdb());
    let text = String::from_utf8(bitlens_ok(&["diff", &a, &b])).unwrap();
    assert!(text.starts_with("1 added, 0 removed, 0 changed"), "{text}");
    assert!(text.contains("\nmemory per prefix"), "{text}");
    assert!(text.contains("user:"), "{text}");
}

#[test]
fn dump_and_roaring_inputs_that_are_neither_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, bytes: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p.display().to_string()
    };
    let err = |args: &[&str]| {
        let out = bitlens(args, b"");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // Text given as a DUMP payload: short, and long enough to have a trailer.
    for body in [
        &b"hello"[..],
        &b"hello world, this is not a DUMP reply at all"[..],
    ] {
        let p = file("text.bin", body);
        let e = err(&["query", "--dump", &format!("k={p}"), "GET", "k"]);
        assert!(
            e.starts_with(&format!(
                "bitlens: cannot load DUMP payload {p}: not a DUMP payload, or a truncated one ({} bytes",
                body.len()
            )),
            "{e}"
        );
        assert!(e.contains("--string KEY=FILE"), "{e}");
        assert!(!e.contains("newer than bitlens knows"), "{e}");
    }
    // Roaring: empty, not the format, truncated, and bytes after a valid bitmap. The valid one
    // is `--save-roaring` of a daily bitmap of the recorded bitmaps data set.
    let rdb = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/conformance/bitmaps/dump.rdb"
    );
    let good = dir.path().join("good.roaring");
    let spec = format!("k={}", good.display());
    let key = "stats:active:20240501";
    let out = bitlens(
        &[
            "query",
            "--rdb",
            rdb,
            "--save-roaring",
            &format!("{key}={}", good.display()),
            "BITCOUNT",
            key,
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let count = String::from_utf8(out.stdout).unwrap();
    let bytes = std::fs::read(&good).unwrap();
    let cases: [(&str, Vec<u8>, &str); 4] = [
        ("empty", Vec::new(), "empty input"),
        (
            "text",
            b"hello".to_vec(),
            "it starts with 68 65 6c 6c, not the cookie 3a 30 00 00",
        ),
        (
            "cut",
            bytes[..bytes.len() - 1].to_vec(),
            &format!(
                "truncated: its header and containers need more than the {} bytes given",
                bytes.len() - 1
            ),
        ),
        (
            "long",
            [bytes.clone(), b"zz".to_vec()].concat(),
            &format!("2 bytes follow the bitmap's {} bytes", bytes.len()),
        ),
    ];
    for (name, body, want) in cases {
        let p = file(name, &body);
        let e = err(&["query", "--roaring", &format!("k={p}"), "BITCOUNT", "k"]);
        assert!(
            e.starts_with(&format!(
                "bitlens: cannot load Roaring bitmap {p}: invalid Roaring bitmap: "
            )),
            "{e}"
        );
        assert!(e.contains(want), "{name}: {e}");
    }
    // The valid file still loads, with the same BITCOUNT.
    let out = bitlens(&["query", "--roaring", &spec, "BITCOUNT", "k"], b"");
    assert_eq!(String::from_utf8_lossy(&out.stdout), count);
}

#[test]
fn csv_keys_are_quoted_as_rfc_4180() {
    let Some((server, rdb)) = written() else {
        return;
    };
    let (_dir, path) = temp_file("dump.rdb", &rdb);
    let out = bitlens_ok(&["inspect", &path, "--csv"]);
    let mut r = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(&out[..]);
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    let mut c = server.connection();
    let mut all = 0;
    for db in [0, 3] {
        redis::cmd("SELECT").arg(db).query::<()>(&mut c).unwrap();
        all += redis::cmd("DBSIZE").query::<u64>(&mut c).unwrap();
    }
    assert_eq!(rows.len() as u64, all);
    assert!(rows.iter().all(|r| r.len() == 8));
    let keys: Vec<&str> = rows.iter().map(|r| &r[2]).collect();
    // Printable names come back as they are; the others in redis-cli's quoted form.
    for want in [
        "a,b",
        "say \"hi\"",
        "two words",
        "user:3",
        "bm:11",
        "other:2",
    ] {
        assert!(keys.contains(&want), "{want}: {keys:?}");
    }
    for want in [
        r#""line\nbreak""#,
        r#""esc\x1b[31mred""#,
        r#""\"starts-quoted""#,
    ] {
        assert!(keys.contains(&want), "{want}: {keys:?}");
    }
    // No control byte reaches the file.
    assert!(!out.iter().any(|&b| b == 0x1b || b == b'\r'));
}
