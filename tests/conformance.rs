//! Runs every case recorded from a real Redis 7 in `../shared/conformance/*/cases.jsonl`
//! (format in that folder's README) against bitlens, comparing the RESP2 bytes and the
//! `redis-cli` output byte for byte. Prints pass counts per set and per command, and fails
//! when any case fails.

mod common;

use common::{argv, conformance_dir, expected};
use std::collections::BTreeMap;

use bitlens::rdb::{load_rdb, LoadOptions};
use bitlens::Reply;
use serde_json::Value as Json;

struct Outcome {
    passed: usize,
    failures: Vec<String>,
    by_command: BTreeMap<String, (usize, usize)>,
}

fn run_set(name: &str) -> Outcome {
    let dir = conformance_dir().join(name);
    let rdb = std::fs::read(dir.join("dump.rdb")).expect("read dump.rdb");
    let mut snapshot = load_rdb(&rdb, &LoadOptions::default())
        .unwrap_or_else(|e| panic!("{name}/dump.rdb does not load: {e}"));
    let mut ks = snapshot.databases.remove(&0).unwrap_or_default();
    let text = std::fs::read_to_string(dir.join("cases.jsonl")).expect("read cases.jsonl");
    let mut out = Outcome {
        passed: 0,
        failures: Vec::new(),
        by_command: BTreeMap::new(),
    };
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Json = serde_json::from_str(line).expect("case json");
        let argv = argv(&case);
        let reply: Reply = bitlens::execute(&mut ks, &argv);
        let want_resp = expected(&case, "resp", "resp_hex");
        let want_cli = expected(&case, "redis_cli", "redis_cli_hex");
        let got_resp = reply.to_resp();
        let got_cli = reply.to_redis_cli();
        let cmd = String::from_utf8_lossy(&argv[0]).to_uppercase();
        let slot = out.by_command.entry(cmd).or_default();
        slot.1 += 1;
        if got_resp == want_resp && got_cli == want_cli {
            out.passed += 1;
            slot.0 += 1;
        } else {
            out.failures.push(format!(
                "{} {:?}\n    want {:?}\n    got  {:?}",
                case["id"],
                argv.iter()
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect::<Vec<_>>(),
                String::from_utf8_lossy(&want_resp)
                    .chars()
                    .take(300)
                    .collect::<String>(),
                String::from_utf8_lossy(&got_resp)
                    .chars()
                    .take(300)
                    .collect::<String>(),
            ));
        }
    }
    out
}

fn check(name: &str) {
    let o = run_set(name);
    let total = o.passed + o.failures.len();
    println!("conformance {name}: {}/{} cases pass", o.passed, total);
    for (cmd, (p, t)) in &o.by_command {
        println!("  {cmd:<22} {p}/{t}");
    }
    for f in o.failures.iter().take(15) {
        println!("FAIL {f}");
    }
    assert!(
        o.failures.is_empty(),
        "{name}: {} of {total} cases fail",
        o.failures.len()
    );
}

#[test]
fn conformance_bitmaps() {
    check("bitmaps");
}

#[test]
fn conformance_signin() {
    check("signin");
}

#[test]
fn conformance_hll() {
    check("hll");
}

#[test]
fn conformance_geo() {
    check("geo");
}
