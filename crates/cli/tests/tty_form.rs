//! `bitlens query --no-raw` against `redis-cli --no-raw` (redis-cli's terminal form, forced
//! while piped): a real redis-server is filled with keys giving every RESP2 reply shape (nil,
//! empty / binary / non-ASCII / quote / backslash / newline bulk strings, errors, empty and
//! nested arrays, arrays of 10 or more elements), saved, and each command's printed bytes must
//! be identical in argument mode and in stdin line mode; plus the `--raw` switch.

mod common;

use common::*;

/// Writes (redis-cli stdin lines, `\xHH` quoting) creating the keys the commands read.
const SETUP: &str = r#"SETBIT bm 7 1
SETBIT bm 100 1
SETBIT bm 4000 1
SET s:empty ""
SET s:bin "\x00\xff\x80\x1b\x07\x08\x0c\x0b\x7f ~"
SET s:uni "h\xc3\xa9llo \xe2\x9c\x93"
SET s:quote "a\"b\\c\nd\re\tf'g"
SET bf "\x00\xff"
PFADD hll a b c d
GEOADD geo 13.361389 38.115556 Palermo 15.087269 37.502669 Catania 2.349014 48.864716 Paris
GEOADD geo 12.496366 41.902782 Rome 9.189982 45.464204 Milan 14.268124 40.851775 Naples
GEOADD geo 11.255814 43.769562 Florence 7.686864 45.070339 Turin 16.871871 41.117143 Bari
GEOADD geo 11.342616 44.494190 Bologna 12.315515 45.440847 Venice 8.946256 44.405650 Genoa
"#;

/// The compared commands, split at spaces.
const COMMANDS: &[&str] = &[
    "GET s:empty",
    "GET s:bin",
    "GET s:uni",
    "GET s:quote",
    "GET nokey",
    "GET bm",
    "GET hll",
    "GET geo",
    "STRLEN s:uni",
    "GETRANGE s:quote 0 4",
    "GETRANGE nokey 0 -1",
    "SUBSTR s:bin 1 3",
    "GETBIT bm 7",
    "BITCOUNT bm",
    "BITCOUNT bm 0 -1 BIT",
    "BITCOUNT bm x",
    "BITPOS bm 1",
    "BITPOS s:empty 1",
    "BITFIELD bf GET u8 8 OVERFLOW FAIL INCRBY u8 8 10 GET i4 12",
    "BITFIELD bm GET u4 0 GET i8 0 GET u1 100",
    "PFCOUNT hll",
    "PFCOUNT hll nokey",
    "PFCOUNT geo",
    "TYPE hll",
    "TYPE geo",
    "TYPE nokey",
    "TYPE",
    "EXISTS bm nokey bm",
    "DBSIZE",
    "KEYS s:q*",
    "KEYS nomatch*",
    "SCAN 0 MATCH s:e* COUNT 1000",
    "SCAN 0 MATCH nomatch* COUNT 1000",
    "GEOPOS geo Palermo nope Catania",
    "GEOPOS nokey a",
    "GEODIST geo Palermo Catania km",
    "GEODIST geo Palermo nope",
    "GEOHASH geo Palermo nope Rome",
    "GEOSEARCH geo FROMLONLAT 15 37 BYRADIUS 200 km WITHCOORD WITHDIST WITHHASH ASC",
    "GEOSEARCH geo FROMMEMBER Palermo BYBOX 5000 5000 km ASC WITHDIST",
    "GEOSEARCH geo FROMMEMBER Rome BYRADIUS 2000 km DESC WITHCOORD WITHDIST WITHHASH",
    "GEOSEARCH geo FROMLONLAT 0 0 BYRADIUS 1 m",
    "GEOSEARCH geo FROMMEMBER nope BYRADIUS 1 km",
    "ZSCORE geo Palermo",
    "ZSCORE geo nope",
    "ZCARD geo",
    "ZRANGE geo 0 -1",
    "ZRANGE geo 0 -1 WITHSCORES",
    "ZRANGE nokey 0 -1",
    "PING",
    "NOSUCHCMD a b",
];

/// All compared argvs: [`COMMANDS`] plus ones whose arguments hold spaces, quotes or bytes.
fn all_argvs() -> Vec<Vec<Vec<u8>>> {
    let mut v: Vec<Vec<Vec<u8>>> = COMMANDS.iter().map(|c| words(c)).collect();
    v.push(vec![b"PING".to_vec(), b"hello \"x\" \\ y".to_vec()]);
    v.push(vec![b"ECHO".to_vec(), b"\x01\n\xfe\xc3\xa9\"".to_vec()]);
    v.push(vec![b"ECHO".to_vec(), Vec::new()]);
    v
}

/// A redis-server holding the [`SETUP`] keys, and the dump.rdb it saved.
fn server_and_rdb() -> (LoadedServer, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path().to_str().unwrap().to_string();
    let server = bitlens_difftest::RedisServer::start(&["--dir", &d, "--dbfilename", "dump.rdb"]);
    let mut setup = SETUP.to_string();
    setup.push_str("SAVE\n");
    let out = redis_cli(server.port, &[], setup.as_bytes());
    let text = String::from_utf8_lossy(&out);
    assert!(
        !text.contains("ERR") && text.ends_with("OK\n"),
        "setup failed: {text}"
    );
    let rdb = dir.path().join("dump.rdb");
    assert!(rdb.exists(), "SAVE wrote no dump.rdb");
    (LoadedServer { server, _dir: dir }, rdb)
}

struct LoadedServer {
    server: bitlens_difftest::RedisServer,
    _dir: tempfile::TempDir,
}

fn show(cmd: &[Vec<u8>]) -> String {
    cmd.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" ")
}

#[test]
fn argument_mode_no_raw_matches_redis_cli() {
    let (s, rdb) = server_and_rdb();
    let rdb = rdb.to_str().unwrap();
    let argvs = all_argvs();
    let mut mismatches = Vec::new();
    let mut all_want = Vec::new();
    for argv in &argvs {
        let mut cli_args: Vec<&[u8]> = vec![b"--no-raw"];
        cli_args.extend(argv.iter().map(|a| a.as_slice()));
        let want = redis_cli(s.server.port, &cli_args, b"");
        let mut args: Vec<std::ffi::OsString> = ["query", "--rdb", rdb, "--no-raw"]
            .iter()
            .map(|a| a.into())
            .collect();
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            args.extend(
                argv.iter()
                    .map(|a| std::ffi::OsStr::from_bytes(a).to_owned()),
            );
        }
        let got = bitlens_os(&args);
        assert!(
            !want.is_empty(),
            "redis-cli printed nothing for {}",
            show(argv)
        );
        all_want.extend_from_slice(&want);
        if want != got {
            mismatches.push(format!(
                "{}\n  redis-cli: {:?}\n  bitlens:   {:?}",
                show(argv),
                String::from_utf8_lossy(&want),
                String::from_utf8_lossy(&got)
            ));
        }
    }
    println!(
        "--no-raw argument mode: {} of {} commands print identically",
        argvs.len() - mismatches.len(),
        argvs.len()
    );
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    // The commands did reach every shape of the terminal form.
    let all = String::from_utf8_lossy(&all_want);
    for shape in [
        "(integer) ",
        "(integer) -1\n",
        "(nil)\n",
        "\"\"\n",
        "(empty array)\n",
        "(error) WRONGTYPE",
        "(error) ERR unknown command",
        "\"\\x00\\xff\\x80\\x1b\\a\\b\\x0c\\x0b\\x7f ~\"",
        "\"a\\\"b\\\\c\\nd\\re\\tf'g\"",
        "PONG\n",
        "1) \"0\"\n2) (empty array)\n",
        "1) 1) \"13.",
        "\n    4) 1) \"",
        "\n       2) \"",
        "\n 9) ",
        "\n10) ",
        "\n24) ",
    ] {
        assert!(all.contains(shape), "no reply printed {shape:?}");
    }
}

/// Runs `bitlens ARGS` (arguments may be any bytes) with empty stdin; returns its stdout.
fn bitlens_os(args: &[std::ffi::OsString]) -> Vec<u8> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bitlens"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run bitlens");
    assert!(
        out.status.success(),
        "bitlens {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn stdin_mode_no_raw_matches_redis_cli() {
    let (s, rdb) = server_and_rdb();
    let mut input = String::new();
    for argv in all_argvs() {
        input.push_str(&show(&argv));
        input.push('\n');
    }
    // redis-cli's own line handling, in the terminal form.
    input.push_str("GET \"unterminated\n3 PFCOUNT hll\n\nquit\nDBSIZE\n");
    let want = redis_cli(s.server.port, &[b"--no-raw"], input.as_bytes());
    let out = bitlens(
        &["query", "--rdb", rdb.to_str().unwrap(), "--no-raw"],
        input.as_bytes(),
    );
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&want).contains("(integer) 4\n(integer) 4\n(integer) 4\n"),
        "redis-cli output lacks the repeated PFCOUNT"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&want)
    );
}

#[test]
fn raw_flag_and_default_piped_form_match_redis_cli() {
    let (s, rdb) = server_and_rdb();
    let rdb = rdb.to_str().unwrap();
    let search =
        words("GEOSEARCH geo FROMLONLAT 15 37 BYRADIUS 200 km WITHCOORD WITHDIST WITHHASH ASC");
    let mut cli_args: Vec<&[u8]> = vec![b"--raw"];
    cli_args.extend(search.iter().map(|a| a.as_slice()));
    let want = redis_cli(s.server.port, &cli_args, b"");
    let search: Vec<&str> = search
        .iter()
        .map(|a| std::str::from_utf8(a).unwrap())
        .collect();
    let mut args = vec!["query", "--rdb", rdb, "--raw"];
    args.extend(&search);
    let raw = bitlens(&args, b"");
    assert_eq!(
        String::from_utf8_lossy(&raw.stdout),
        String::from_utf8_lossy(&want)
    );
    // Not a terminal and no flag: the piped form too.
    let mut args = vec!["query", "--rdb", rdb];
    args.extend(&search);
    let default = bitlens(&args, b"");
    assert_eq!(default.stdout, want);
    assert!(!want.starts_with(b"1) "), "expected the piped form");
    // Words after the command are command arguments, not options.
    let echoed = bitlens(&["query", "--rdb", rdb, "ECHO", "--no-raw"], b"");
    assert_eq!(echoed.stdout, b"--no-raw\n");
}
