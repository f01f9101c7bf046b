//! `bitlens query` against `redis-cli` on a real redis-server loaded with the same dump.rdb:
//! every conformance command bitlens implements is sent through both (stdin mode, quoted with
//! `\xHH` escapes, so redis-cli's line splitting is exercised too), and a sample through both in
//! argument mode; the printed bytes must be identical.

mod common;

use common::*;

/// A command both sides answer with the same error and that separates replies in the output.
const SENTINEL: &str = "BITLENS_TEST_SENTINEL";

fn sentinel_reply() -> Vec<u8> {
    format!("ERR unknown command '{SENTINEL}', with args beginning with: \n\n").into_bytes()
}

struct Case {
    argv: Vec<Vec<u8>>,
    standalone: bool,
}

/// The cases of one conformance set whose command bitlens implements, in file order.
fn cases(set: &str) -> Vec<Case> {
    let text = std::fs::read_to_string(conformance_dir().join(set).join("cases.jsonl"))
        .expect("cases.jsonl");
    text.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|c| Case {
            argv: c["argv"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap().as_bytes().to_vec())
                .collect(),
            standalone: c.get("step").is_none(),
        })
        .filter(|c| bitlens::command::lookup(&c.argv[0]).is_some())
        .collect()
}

/// Splits a whole output at the sentinel replies.
fn pieces(out: &[u8]) -> Vec<Vec<u8>> {
    let sep = sentinel_reply();
    let mut res = Vec::new();
    let mut rest = out;
    while let Some(i) = rest.windows(sep.len()).position(|w| w == sep.as_slice()) {
        res.push(rest[..i].to_vec());
        rest = &rest[i + sep.len()..];
    }
    res.push(rest.to_vec());
    res
}

/// Lines exercising redis-cli's own handling (quoting, repeat prefix, blank lines, errors).
fn extra_lines(first_key: &[u8]) -> Vec<String> {
    let k = quote(first_key);
    vec![
        "DBSIZE".into(),
        format!("TYPE {k}"),
        format!("type {k}"),
        format!("EXISTS {k} {k} nosuchkey"),
        "TYPE nosuchkey".into(),
        format!("KEYS {k}"),
        "KEYS nosuch*".into(),
        "TYPE".into(),
        "EXISTS".into(),
        "NOSUCHCOMMAND a b".into(),
        "   ".into(),
        "TYPE \"unterminated".into(),
        "TYPE 'a'b".into(),
        format!("3 EXISTS {k}"),
        "0 DBSIZE".into(),
        format!("  TYPE   {k}  "),
    ]
}

fn first_key(set: &str) -> Vec<u8> {
    let tsv = std::fs::read_to_string(conformance_dir().join(set).join("keys.tsv")).unwrap();
    let first = tsv
        .lines()
        .find(|l| !l.starts_with('#') && !l.starts_with("key\t"))
        .unwrap();
    let enc = first.split('\t').next().unwrap();
    // URL-decoded key.
    let b = enc.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() + 1 {
            out.push(u8::from_str_radix(&enc[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

fn stdin_mode(set: &str) -> usize {
    let dir = conformance_dir().join(set);
    let rdb = dir.join("dump.rdb");
    let redis = LoadedRedis::start(&rdb);
    let cases = cases(set);
    let mut lines: Vec<String> = extra_lines(&first_key(set));
    lines.extend(cases.iter().map(|c| {
        c.argv
            .iter()
            .map(|a| quote(a))
            .collect::<Vec<_>>()
            .join(" ")
    }));
    let mut input = String::new();
    for l in &lines {
        input.push_str(l);
        input.push('\n');
        input.push_str(SENTINEL);
        input.push('\n');
    }
    // Nothing after quit runs.
    input.push_str("quit\nDBSIZE\n");
    let want = redis_cli(redis.server.port, &[], input.as_bytes());
    let out = bitlens(&["query", "--rdb", rdb.to_str().unwrap()], input.as_bytes());
    assert!(
        out.status.success(),
        "bitlens query failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (want, got) = (pieces(&want), pieces(&out.stdout));
    assert_eq!(want.len(), lines.len() + 1, "redis-cli output not split");
    assert_eq!(
        got.len(),
        want.len(),
        "bitlens printed a different number of replies"
    );
    let mismatches: Vec<String> = lines
        .iter()
        .zip(want.iter().zip(&got))
        .filter(|(_, (w, g))| w != g)
        .map(|(l, (w, g))| {
            format!(
                "{l}\n  redis-cli: {:?}\n  bitlens:   {:?}",
                String::from_utf8_lossy(w),
                String::from_utf8_lossy(g)
            )
        })
        .collect();
    println!(
        "{set}: {} of {} lines print identically ({} conformance commands)",
        lines.len() - mismatches.len(),
        lines.len(),
        cases.len()
    );
    assert!(
        mismatches.is_empty(),
        "{} mismatches, first ones:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(15)].join("\n")
    );
    lines.len()
}

#[test]
fn stdin_mode_matches_redis_cli_bitmaps() {
    stdin_mode("bitmaps");
}

#[test]
fn stdin_mode_matches_redis_cli_signin() {
    stdin_mode("signin");
}

#[test]
fn stdin_mode_matches_redis_cli_hll() {
    stdin_mode("hll");
}

#[test]
fn stdin_mode_matches_redis_cli_geo() {
    stdin_mode("geo");
}

#[test]
fn argument_mode_matches_redis_cli() {
    let mut compared = 0;
    for set in ["bitmaps", "signin", "hll", "geo"] {
        let rdb = conformance_dir().join(set).join("dump.rdb");
        let redis = LoadedRedis::start(&rdb);
        let standalone: Vec<Case> = cases(set).into_iter().filter(|c| c.standalone).collect();
        // About 30 per set, spread over the file (one process per command).
        let step = (standalone.len() / 30).max(1);
        let mut sample: Vec<Vec<Vec<u8>>> = standalone
            .into_iter()
            .step_by(step)
            .map(|c| c.argv)
            .collect();
        sample.push(vec![b"DBSIZE".to_vec()]);
        sample.push(vec![b"TYPE".to_vec(), first_key(set)]);
        sample.push(vec![b"TYPE".to_vec()]);
        for argv in sample {
            let refs: Vec<&[u8]> = argv.iter().map(|a| a.as_slice()).collect();
            let want = redis_cli(redis.server.port, &refs, b"");
            let mut args: Vec<String> = vec!["query".into(), "--rdb".into()];
            args.push(rdb.to_str().unwrap().into());
            args.extend(argv.iter().map(|a| String::from_utf8(a.clone()).unwrap()));
            let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
            let out = bitlens(&args, b"");
            // Error replies still exit 0, as redis-cli does.
            assert!(out.status.success(), "{argv:?}");
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&want),
                "{:?}",
                argv.iter()
                    .map(|a| String::from_utf8_lossy(a))
                    .collect::<Vec<_>>()
            );
            compared += 1;
        }
    }
    println!("argument mode: {compared} commands identical");
}

#[test]
fn unreadable_snapshot_names_file_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let rdb = std::fs::read(conformance_dir().join("signin/dump.rdb")).unwrap();
    let cut = dir.path().join("cut.rdb");
    std::fs::write(&cut, &rdb[..rdb.len() / 2]).unwrap();
    let out = bitlens(&["query", "--rdb", cut.to_str().unwrap(), "DBSIZE"], b"");
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(cut.to_str().unwrap()), "{err}");
    assert!(err.contains("offset"), "{err}");

    let missing = dir.path().join("missing.rdb");
    let out = bitlens(
        &["query", "--rdb", missing.to_str().unwrap(), "DBSIZE"],
        b"",
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(missing.to_str().unwrap()));
}

#[test]
fn string_flag_loads_raw_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("v.bin");
    std::fs::write(&f, [0xffu8, 0x00, 0x0f]).unwrap();
    let spec = format!("bm={}", f.display());
    let out = bitlens(
        &["query", "--string", &spec],
        b"TYPE bm\nEXISTS bm other\nDBSIZE\n",
    );
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "string\n1\n1\n");
}

#[test]
fn match_loads_only_the_matching_keys() {
    // `--match P` loads what `KEYS P` lists on the server that loaded the same file.
    let rdb = conformance_dir().join("bitmaps").join("dump.rdb");
    let redis = LoadedRedis::start(&rdb);
    let first = first_key("bitmaps");
    let cut = first.iter().position(|&b| b == b':').map_or(1, |i| i + 1);
    let mut pattern = first[..cut].to_vec();
    pattern.push(b'*');
    let pattern = String::from_utf8(pattern).unwrap();
    let lines = |out: &[u8]| {
        let mut v: Vec<String> = String::from_utf8_lossy(out)
            .lines()
            .map(str::to_string)
            .collect();
        v.sort();
        v
    };
    let want = lines(&redis_cli(
        redis.server.port,
        &[b"KEYS", pattern.as_bytes()],
        b"",
    ));
    let all = lines(&redis_cli(redis.server.port, &[b"KEYS", b"*"], b""));
    assert!(
        !want.is_empty() && want.len() < all.len(),
        "{pattern}: {want:?}"
    );
    let path = rdb.to_str().unwrap();
    let out = bitlens(
        &["query", "--rdb", path, "--match", &pattern, "KEYS", "*"],
        b"",
    );
    assert!(out.status.success());
    assert_eq!(lines(&out.stdout), want);
    let out = bitlens(
        &["query", "--rdb", path, "--match", &pattern, "DBSIZE"],
        b"",
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{}\n", want.len())
    );
}

/// A first word starting with `-` is an option: an unknown one is refused (exit 2, nothing
/// on stdout), as redis-cli refuses it, rather than sent as a command. After the command's
/// name, words starting with `-` are its arguments.
#[test]
fn unknown_options_are_refused_not_sent() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("v.bin");
    std::fs::write(&f, b"hello").unwrap();
    let spec = format!("s={}", f.display());
    let out = bitlens(&["query", "--string", &spec, "--no-checksm", "DBSIZE"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--no-checksm"));
    let out = bitlens(
        &["query", "--string", &spec, "GETRANGE", "s", "-3", "-1"],
        b"",
    );
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "llo\n");
    let out = bitlens(&["query", "--string", &spec, "ECHO", "--x"], b"");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "--x\n");
}

/// MEMORY USAGE answers each key's `inspect` figure (the default estimate, the same model and
/// allocator), on every recorded server's file and in every database; the server's argument
/// errors; a missing key is a nil.
#[test]
fn memory_usage_is_the_inspect_estimate() {
    let dir =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/conformance");
    for server in ["redis-6.2.14", "redis-7.4.1", "redis-8.0.2", "valkey-9.1.2"] {
        let file = dir.join(server).join("dump.rdb");
        let file = file.to_str().unwrap();
        let csv = String::from_utf8(bitlens_ok(&["inspect", file, "--csv"])).unwrap();
        let mut checked = 0;
        for line in csv.lines().skip(1) {
            // database,type,key,size_in_bytes,... (keys here have no comma or quote)
            let f: Vec<&str> = line.split(',').collect();
            if f[2].starts_with('"') {
                continue;
            }
            let out = bitlens_ok(&["query", "--rdb", file, "-n", f[0], "MEMORY", "USAGE", f[2]]);
            // Listed by inspect, gone at the snapshot's clock (expired, or every hash field
            // expired): a nil, as EXISTS says.
            if out == b"\n" {
                let exists = bitlens_ok(&["query", "--rdb", file, "-n", f[0], "EXISTS", f[2]]);
                assert_eq!(exists, b"0\n", "{server}: MEMORY USAGE {} is nil", f[2]);
                continue;
            }
            assert_eq!(
                String::from_utf8_lossy(&out).trim(),
                f[3],
                "{server}: MEMORY USAGE {} in db {}",
                f[2],
                f[0]
            );
            checked += 1;
        }
        assert!(checked > 50, "{server}: {checked} keys");
    }
    let file = dir.join("redis-7.4.1/dump.rdb");
    let file = file.to_str().unwrap();
    for (args, want) in [
        (&["MEMORY", "USAGE", "missing"][..], ""),
        (
            &["MEMORY", "USAGE", "str:plain", "SAMPLES", "-1"],
            "ERR syntax error",
        ),
        (
            &["MEMORY", "USAGE", "str:plain", "SAMPLES", "x"],
            "ERR value is not an integer or out of range",
        ),
        (
            &["MEMORY", "USAGE", "str:plain", "SAMPLES"],
            "ERR syntax error",
        ),
        (
            &["MEMORY", "USAGE"],
            "ERR wrong number of arguments for 'memory|usage' command",
        ),
        (
            &["MEMORY", "FOO"],
            "ERR unknown subcommand 'FOO'. Try MEMORY HELP.",
        ),
    ] {
        let mut a = vec!["query", "--rdb", file];
        a.extend(args);
        let out = bitlens(&a, b"");
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(text.trim_end(), want, "{args:?}");
    }
}
