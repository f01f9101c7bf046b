//! `bitlens inspect FILE [--json]` and `bitlens query --dump KEY=FILE`, against files written by a
//! real Redis.

mod common;

use bitlens_difftest::RedisServer;
use common::*;

#[test]
fn inspect_reports_text_and_json() {
    let rdb = conformance_dir().join("signin/dump.rdb");
    let path = rdb.to_str().unwrap();
    let text = bitlens(&["inspect", path], b"");
    assert!(text.status.success());
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.starts_with("RDB version 10"), "{text}");
    assert!(text.contains("sign:*:202405"), "{text}");

    let json = bitlens(&["inspect", path, "--json"], b"");
    assert!(json.status.success());
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["version"], 10);
    // The key count matches what redis-server loads from the same file.
    let redis = LoadedRedis::start(&rdb);
    let mut c = redis.server.connection();
    let dbsize: i64 = redis::cmd("DBSIZE").query(&mut c).unwrap();
    assert_eq!(v["databases"][0]["keys"].as_i64(), Some(dbsize));
    // `-n` past the 16 default databases: redis-cli reports the failed SELECT on stderr and
    // runs the command on database 0; so does bitlens.
    let want = redis_cli(redis.server.port, &[b"-n", b"99", b"DBSIZE"], b"");
    let got = bitlens(&["query", "--rdb", path, "-n", "99", "DBSIZE"], b"");
    assert_eq!(
        String::from_utf8_lossy(&got.stdout),
        String::from_utf8_lossy(&want)
    );
    assert_eq!(
        String::from_utf8_lossy(&got.stderr),
        "SELECT 99 failed: ERR DB index is out of range\n"
    );

    assert!(text.contains("(verified)"), "{text}");
    assert_eq!(v["checksum_verified"], true);

    // A damaged file: non-zero exit, the file and the offset on stderr.
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(&rdb).unwrap();
    let cut = dir.path().join("cut.rdb");
    std::fs::write(&cut, &bytes[..bytes.len() - 100]).unwrap();
    let out = bitlens(&["inspect", cut.to_str().unwrap()], b"");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(cut.to_str().unwrap()) && err.contains("offset"),
        "{err}"
    );

    // A wrong trailer: refused, with the way to skip the check named; with --no-checksum the
    // report says the checksum was not verified.
    let mut bad = bytes.clone();
    let n = bad.len();
    bad[n - 1] ^= 0xFF;
    let badf = dir.path().join("badcrc.rdb");
    std::fs::write(&badf, &bad).unwrap();
    let out = bitlens(&["inspect", badf.to_str().unwrap()], b"");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--no-checksum"), "{err}");
    let out = bitlens(&["inspect", badf.to_str().unwrap(), "--no-checksum"], b"");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("(not verified)"), "{text}");
}

#[test]
fn dump_flag_loads_redis_dump_payloads() {
    let server = RedisServer::start(&[]);
    let mut c = server.connection();
    for bit in [0u32, 5, 77, 4000] {
        let _: i64 = redis::cmd("SETBIT")
            .arg("bm")
            .arg(bit)
            .arg(1)
            .query(&mut c)
            .unwrap();
    }
    let _: i64 = redis::cmd("PFADD")
        .arg("hll")
        .arg(&["a", "b", "c", "d", "e"])
        .query(&mut c)
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut specs = Vec::new();
    for key in ["bm", "hll"] {
        let payload: Vec<u8> = redis::cmd("DUMP").arg(key).query(&mut c).unwrap();
        let f = dir.path().join(format!("{key}.dump"));
        std::fs::write(&f, &payload).unwrap();
        specs.push(format!("{key}={}", f.display()));
    }
    let input = "BITCOUNT bm\nBITCOUNT bm 1 -1\nBITPOS bm 1 1\nPFCOUNT hll\nSTRLEN bm\n";
    let want = redis_cli(server.port, &[], input.as_bytes());
    let out = bitlens(
        &["query", "--dump", &specs[0], "--dump", &specs[1]],
        input.as_bytes(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&want)
    );

    // A damaged payload: refused (CRC-64), unless checksums are switched off.
    let f = dir.path().join("bad.dump");
    let mut payload: Vec<u8> = redis::cmd("DUMP").arg("bm").query(&mut c).unwrap();
    let n = payload.len();
    payload[n - 1] ^= 0xff;
    std::fs::write(&f, &payload).unwrap();
    let spec = format!("bm={}", f.display());
    let out = bitlens(&["query", "--dump", &spec, "BITCOUNT", "bm"], b"");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.dump") && err.contains("CRC"), "{err}");
    let out = bitlens(
        &["query", "--no-checksum", "--dump", &spec, "BITCOUNT", "bm"],
        b"",
    );
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "4\n");
}

/// What a file is, by content: `--dump` given an RDB file, `--rdb` or `inspect` given a DUMP
/// payload, and an empty file each say so; Valkey files name their writer.
#[test]
fn files_are_told_apart_by_content() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/fixtures");
    let rdb = fixtures.join("redis-7.0.15-default.rdb");
    let out = bitlens(
        &[
            "query",
            "--dump",
            &format!("k={}", rdb.display()),
            "GET",
            "k",
        ],
        b"",
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("this is an RDB file (REDIS0010); use --rdb"),
        "{err}"
    );

    let empty = dir.path().join("empty.bin");
    std::fs::write(&empty, b"").unwrap();
    for args in [
        vec![
            "query".to_string(),
            "--dump".into(),
            format!("k={}", empty.display()),
            "GET".into(),
            "k".into(),
        ],
        vec![
            "query".to_string(),
            "--rdb".into(),
            empty.display().to_string(),
            "DBSIZE".into(),
        ],
        vec!["inspect".to_string(), empty.display().to_string()],
    ] {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = bitlens(&a, b"");
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("empty file"), "{args:?}: {err}");
    }

    // A DUMP payload recorded from Valkey 9.1.2 (trailer RDB version 80).
    let j: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures.join("valkey-9.1.2-default.json")).unwrap(),
    )
    .unwrap();
    let k = j["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["type"] == "string" && k.get("dump_hex").is_some())
        .unwrap();
    let h = k["dump_hex"].as_str().unwrap();
    let payload: Vec<u8> = (0..h.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
        .collect();
    let dump = dir.path().join("v.dump");
    std::fs::write(&dump, &payload).unwrap();
    let out = bitlens(&["inspect", dump.to_str().unwrap()], b"");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("a DUMP payload (Valkey RDB 80, RDB_TYPE_STRING)"),
        "{err}"
    );
    let out = bitlens(
        &[
            "query",
            "--dump",
            &format!("k={}", dump.display()),
            "STRLEN",
            "k",
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        k["strlen"].to_string() // redis-cli's form when not on a terminal
    );

    let out = bitlens(
        &[
            "inspect",
            fixtures.join("valkey-9.1.2-default.rdb").to_str().unwrap(),
        ],
        b"",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("RDB version 80 (VALKEY080), written by Valkey 9.1.2,"),
        "{text}"
    );
}

/// Several files with a key in both: duplicates are decided before `--type` and
/// `--min-bytes` choose (a filter must not hide a duplicate, nor count the entry that lost),
/// and the FILES table counts what each file keeps.
#[test]
fn inspect_of_files_decides_duplicates_before_value_filters() {
    let write = |keys: &[(&[u8], &[u8])]| {
        let mut w = bitlens::rdb::RdbWriter::new(Vec::new(), 9).unwrap();
        w.select_db(0).unwrap();
        for (k, v) in keys {
            w.write_string(k, v, None).unwrap();
        }
        w.finish().unwrap()
    };
    let big = vec![b'x'; 300];
    let (_da, a) = temp_file("a.rdb", &write(&[(b"a:1", b"v"), (b"a:2", b"w")]));
    let (_db, b) = temp_file("b.rdb", &write(&[(b"a:1", &big), (b"b:1", &big)]));
    let json =
        |args: &[&str]| -> serde_json::Value { serde_json::from_slice(&bitlens_ok(args)).unwrap() };
    // Error mode: refused whatever the value filters keep.
    for filter in [&["--type", "hash"][..], &["--min-bytes", "100"], &[]] {
        let mut args = vec!["inspect", "--json", a.as_str(), b.as_str()];
        args.extend(filter);
        let out = bitlens(&args, b"");
        assert!(!out.status.success(), "{filter:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("key a:1 of database 0 is in both"));
    }
    // first: a:1 is a.rdb's one-byte string, so --min-bytes 100 keeps only b:1.
    let doc = json(&[
        "inspect",
        "--json",
        "--on-duplicate",
        "first",
        "--min-bytes",
        "100",
        &a,
        &b,
    ]);
    assert_eq!(doc["keys"], 1);
    assert_eq!(doc["top"][0]["key"], "b:1");
    assert_eq!(doc["files"][0]["keys"], 0);
    assert_eq!(doc["files"][1]["keys"], 1);
    assert_eq!(doc["files"][1]["shadowed"], 1);
    // last: b.rdb's a:1 is kept; without filters the table's rows add up to the union.
    let doc = json(&["inspect", "--json", "--on-duplicate", "last", &a, &b]);
    assert_eq!(doc["keys"], 3);
    let rows = doc["files"].as_array().unwrap();
    assert_eq!(rows[0]["keys"], 1);
    assert_eq!(rows[0]["shadowed"], 1);
    assert_eq!(rows[1]["keys"], 2);
    assert_eq!(
        rows[0]["memory"].as_u64().unwrap() + rows[1]["memory"].as_u64().unwrap(),
        doc["memory"].as_u64().unwrap()
    );
    let csv = String::from_utf8(bitlens_ok(&[
        "inspect",
        "--csv",
        "--on-duplicate",
        "first",
        "--min-bytes",
        "100",
        &a,
        &b,
    ]))
    .unwrap();
    assert_eq!(csv.lines().count(), 2, "{csv}");
}

/// A file whose damaged value also breaks its checksum fails, among several files, with the
/// error a one-file read gives (the damaged value, at its offset), not the checksum a
/// names-only pass over it meets first, and before anything is written.
#[test]
fn a_damaged_value_among_files_is_named_as_one_file_names_it() {
    use bitlens::rdb::{blobs, ValueKind};
    let mut w = bitlens::rdb::RdbWriter::new(Vec::new(), 11).unwrap();
    w.select_db(0).unwrap();
    w.write_string(b"a", b"1", None).unwrap();
    let lp = blobs::listpack_strs(&[b"field", b"value", b"other", b"thing"]);
    w.write_blob(b"h", ValueKind::HashListpack, &lp, None)
        .unwrap();
    w.write_string(b"z", b"2", None).unwrap();
    let mut bad = w.finish().unwrap();
    // An entry's encoding byte in the hash's listpack (the checksum no longer matches).
    let at = bad.windows(5).position(|x| x == b"field").unwrap() - 1;
    bad[at] = 0xf5;
    let mut w = bitlens::rdb::RdbWriter::new(Vec::new(), 11).unwrap();
    w.select_db(0).unwrap();
    w.write_string(b"b", b"3", None).unwrap();
    let good = w.finish().unwrap();
    let (_dg, g) = temp_file("good.rdb", &good);
    let (_db, b) = temp_file("bad.rdb", &bad);
    let alone = bitlens(&["dump", &b], b"");
    let want = String::from_utf8_lossy(&alone.stderr).into_owned();
    assert!(!alone.status.success());
    assert!(
        want.contains("(key \"h\")") && !want.contains("CRC"),
        "{want}"
    );
    for args in [
        vec!["dump", g.as_str(), b.as_str()],
        vec!["inspect", g.as_str(), b.as_str()],
        vec!["query", "--rdb", g.as_str(), "--rdb", b.as_str(), "DBSIZE"],
    ] {
        let out = bitlens(&args, b"");
        assert!(!out.status.success(), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), want, "{args:?}");
        if args[0] == "dump" {
            assert!(out.stdout.is_empty(), "nothing written before the error");
        }
    }
}

/// Files of different writers read as one are warned about (replies follow the first's); a
/// file given twice is named as such; `--series` needs two files and refuses the one-report
/// options.
#[test]
fn several_files_name_mixed_writers_and_repeats() {
    let fixtures =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/fixtures");
    let a = fixtures.join("redis-7.0.15-default.rdb");
    let b = fixtures.join("valkey-9.1.2-cluster.rdb");
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    for args in [
        vec!["query", "--rdb", a, "--rdb", b, "DBSIZE"],
        vec!["inspect", a, b],
    ] {
        let out = bitlens(&args, b"");
        assert!(out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("warning: the files' writers differ: Redis 7.0.15")
                && err.contains(&format!("({a}), Valkey 9.1.2"))
                && err.ends_with(&format!(
                    "({b}); {}\n",
                    if args[0] == "query" {
                        "replies follow the first file's"
                    } else {
                        "each file's memory is priced on its own writer (FILES)"
                    }
                )),
            "{args:?}: {err}"
        );
    }
    let one = bitlens(&["query", "--rdb", a, "DBSIZE"], b"");
    assert!(one.stderr.is_empty(), "one writer: no warning");
    let twice = bitlens(&["query", "--rdb", a, "--rdb", a, "DBSIZE"], b"");
    let err = String::from_utf8_lossy(&twice.stderr);
    assert!(!twice.status.success());
    assert!(
        err.contains(&format!("is in both {a} and {a}"))
            && err.contains("the same file, given twice"),
        "{err}"
    );
    // Kept with --on-duplicate, a repeated file (here by a hard link) is named.
    let dir = tempfile::tempdir().unwrap();
    // (Both in one directory: a hard link cannot cross file systems.)
    let copy = dir.path().join("copy.rdb");
    std::fs::copy(b, &copy).unwrap();
    let link = dir.path().join("link.rdb");
    std::fs::hard_link(&copy, &link).unwrap();
    let (copy, link) = (copy.to_str().unwrap(), link.to_str().unwrap());
    let kept = bitlens(
        &[
            "query",
            "--on-duplicate",
            "first",
            "--rdb",
            copy,
            "--rdb",
            link,
            "DBSIZE",
        ],
        b"",
    );
    assert!(kept.status.success());
    assert_eq!(
        String::from_utf8_lossy(&kept.stderr),
        format!("bitlens: warning: {copy} and {link} are the same file\n")
    );
    // A path with an ESC byte is quoted in messages, never written raw.
    let esc = dir.path().join("esc\x1b[31m.rdb");
    let out = bitlens(&["dump", esc.to_str().unwrap()], b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains('\x1b') && err.contains("esc\\x1b[31m.rdb"),
        "{err}"
    );
    let series = bitlens(&["inspect", "--series", a], b"");
    assert_eq!(series.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&series.stderr).contains("two or more snapshots"));
    let top = bitlens(&["inspect", "--series", "--top", "3", a, b], b"");
    assert_eq!(top.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&top.stderr).contains("cannot be used with '--top"));
}
