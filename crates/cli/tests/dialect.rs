//! `--compat`, `--clock`, `--verbose`, `-n` and SELECT of `bitlens query`, and the profile and
//! expiry lines of `bitlens inspect`, on the files the real servers wrote
//! (`tests/data/conformance/<server>/dump.rdb`); expected output is what that server's
//! redis-cli printed (`cases.jsonl`), or the other server's for `--compat`.

mod common;

use std::path::PathBuf;

use common::bitlens;

fn dump(server: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/conformance")
        .join(server)
        .join("dump.rdb")
        .to_string_lossy()
        .into_owned()
}

fn stdout(args: &[&str], stdin: &[u8]) -> String {
    let out = bitlens(args, stdin);
    assert!(
        out.status.success(),
        "bitlens {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn default_profile_is_the_writer_and_compat_answers_as_another_server() {
    let f74 = dump("redis-7.4.1");
    let f70 = dump("redis-7.0.15");
    // Recorded: redis-7.4.1 ZSCORE zset:phi a -> 1.618; redis-7.0.15 -> 1.6180000000000001.
    let q = |file: &str, extra: &[&str]| {
        let mut args = vec!["query", "--rdb", file];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["ZSCORE", "zset:phi", "a"]);
        stdout(&args, b"")
    };
    assert_eq!(q(&f74, &[]), "1.618\n");
    assert_eq!(q(&f70, &[]), "1.6180000000000001\n");
    assert_eq!(q(&f74, &["--compat", "redis-7.0"]), "1.6180000000000001\n");
    assert_eq!(q(&f70, &["--compat", "valkey-8.1"]), "1.618\n");
    // Recorded: 6.x spells unknown commands with backticks.
    assert_eq!(
        stdout(
            &[
                "query",
                "--rdb",
                &f74,
                "--compat",
                "redis-6.2",
                "EXPIRETIME",
                "k"
            ],
            b""
        ),
        "ERR unknown command `EXPIRETIME`, with args beginning with: `k`, \n\n"
    );
    let out = bitlens(
        &["query", "--rdb", &f74, "--compat", "redis-9.9", "DBSIZE"],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown profile") && err.contains("valkey-9.0"),
        "{err}"
    );
    let out = bitlens(&["query", "--rdb", &f74, "--verbose", "DBSIZE"], b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("answers as Redis 7.4 (redis-7.4, the writer of this snapshot)"),
        "{err}"
    );
}

#[test]
fn clock_select_and_every_database() {
    let f = dump("redis-7.4.1");
    // Recorded in db 1: db1:gone had expired when the server answered (TYPE none, EXISTS 0);
    // the snapshot's own clock (ctime) agrees. At clock 0 nothing has expired yet.
    let lines = b"SELECT 1\nTYPE db1:gone\nEXISTS db1:gone\nSELECT 16\nSELECT x\nTYPE db1:gone\n";
    assert_eq!(
        stdout(&["query", "--rdb", &f], lines),
        "OK\nnone\n0\nERR DB index is out of range\n\nERR value is not an integer or out of range\n\nnone\n"
    );
    assert_eq!(
        stdout(
            &["query", "--rdb", &f, "-n", "1", "EXISTS", "db1:gone"],
            b""
        ),
        "0\n"
    );
    assert_eq!(
        stdout(
            &["query", "--rdb", &f, "-n", "1", "--clock", "0", "EXISTS", "db1:gone"],
            b""
        ),
        "1\n"
    );
    // exp:far:str expires at 4102444800000 (keys.tsv): alive now, gone one ms after.
    let ty = |clock: &str| {
        stdout(
            &[
                "query",
                "--rdb",
                &f,
                "--clock",
                clock,
                "TYPE",
                "exp:far:str",
            ],
            b"",
        )
    };
    assert_eq!(ty("now"), "string\n");
    assert_eq!(ty("snapshot"), "string\n");
    assert_eq!(ty("4102444800000"), "string\n");
    assert_eq!(ty("4102444800001"), "none\n");
    let out = bitlens(
        &["query", "--rdb", &f, "--clock", "yesterday", "DBSIZE"],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn inspect_reports_the_profile_and_what_is_expired_at_the_clock() {
    let f = dump("valkey-8.1.8");
    let json = |extra: &[&str]| {
        let mut args = vec!["inspect", "--json", &f];
        args.extend_from_slice(extra);
        serde_json::from_str::<serde_json::Value>(&stdout(&args, b"")).unwrap()
    };
    let v = json(&[]);
    // Valkey 8.1.8 writes REDIS0011 with redis-ver 7.2.4 and valkey-ver 8.1.8.
    assert_eq!(v["profile"]["name"], "valkey-8.1");
    assert_eq!(v["profile"]["writer"], true);
    let with_expiry: u64 = v["databases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["expires"].as_u64().unwrap())
        .sum();
    assert!(with_expiry > 0);
    let far = json(&["--clock", "9999999999999", "--compat", "redis-7.0"]);
    assert_eq!(far["profile"]["name"], "redis-7.0");
    assert_eq!(far["profile"]["writer"], false);
    assert_eq!(far["expired"]["keys"].as_u64(), Some(with_expiry));
    assert!(far["expired"]["memory"].as_u64().unwrap() > 0);
    let zero = json(&["--clock", "0"]);
    assert_eq!(zero["expired"]["keys"].as_u64(), Some(0));
    let text = stdout(&["inspect", &f], b"");
    assert!(
        text.contains("answers as Valkey 8.1.3+ (valkey-8.1, the writer)"),
        "{text}"
    );
}
