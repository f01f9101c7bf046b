//! The JavaScript API (`Engine`), run in headless Chromium by wasm-bindgen-test-runner
//! (`cargo test --target wasm32-unknown-unknown -p bitlens --test wasm_api`).
//!
//! Checks the JS value mapping (numbers not BigInt, null, arrays, thrown errors with Redis'
//! text), the typed helpers against naive references computed here from raw bytes, and every
//! recorded conformance case of the vertical-slice commands through the wasm build (whose SIMD
//! code paths differ from the host's) against the RESP bytes real Redis sent.
#![cfg(target_arch = "wasm32")]

mod wasm_common;

use bitlens_wasm::Engine;
use js_sys::{Array, Object, Reflect, Uint8Array};
use serde_json::Value as Json;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use wasm_common::{error_message, u8a};

wasm_bindgen_test_configure!(run_in_browser);

/// The conformance sets, vendored under tests/data/conformance (recorded from Redis 7.0.15).
const SETS: &[(&str, &[u8], &str, &str)] = &[
    (
        "bitmaps",
        include_bytes!("../../../tests/data/conformance/bitmaps/dump.rdb"),
        include_str!("../../../tests/data/conformance/bitmaps/cases.jsonl"),
        include_str!("../../../tests/data/conformance/bitmaps/keys.tsv"),
    ),
    (
        "signin",
        include_bytes!("../../../tests/data/conformance/signin/dump.rdb"),
        include_str!("../../../tests/data/conformance/signin/cases.jsonl"),
        include_str!("../../../tests/data/conformance/signin/keys.tsv"),
    ),
    (
        "hll",
        include_bytes!("../../../tests/data/conformance/hll/dump.rdb"),
        include_str!("../../../tests/data/conformance/hll/cases.jsonl"),
        include_str!("../../../tests/data/conformance/hll/keys.tsv"),
    ),
    (
        "geo",
        include_bytes!("../../../tests/data/conformance/geo/dump.rdb"),
        include_str!("../../../tests/data/conformance/geo/cases.jsonl"),
        include_str!("../../../tests/data/conformance/geo/keys.tsv"),
    ),
];

/// The commands of the vertical slice (issue 2, section 2).
const SLICE_COMMANDS: &[&str] = &[
    "GET",
    "STRLEN",
    "GETBIT",
    "BITCOUNT",
    "BITOP",
    "PFCOUNT",
    "GEOSEARCH",
    "TYPE",
    "EXISTS",
    "DBSIZE",
    "KEYS",
];

fn argv(args: &[&str]) -> Array {
    args.iter().map(|a| JsValue::from_str(a)).collect()
}

fn number(v: &JsValue) -> f64 {
    assert_eq!(
        v.js_typeof().as_string().as_deref(),
        Some("number"),
        "{v:?}"
    );
    v.as_f64().unwrap()
}

/// The number `command(args)` answers.
fn command_number(e: &mut Engine, args: &[&str]) -> f64 {
    number(&e.command(&argv(args)).unwrap())
}

/// `KEYS pattern` through `command`, sorted.
fn keys(e: &mut Engine, pattern: &str) -> Vec<String> {
    let mut k = strings(
        &e.command(&argv(&["KEYS", pattern]))
            .unwrap()
            .dyn_into()
            .unwrap(),
    );
    k.sort();
    k
}

/// `[blob]`: the sources of `loadRdbs`.
fn parts_of(blob: &web_sys::Blob) -> Array {
    Array::of1(blob)
}

/// The elements of an array of strings.
fn strings(a: &Array) -> Vec<String> {
    a.iter().map(|v| v.as_string().unwrap()).collect()
}

fn popcount(bytes: &[u8]) -> f64 {
    bytes.iter().map(|b| b.count_ones() as f64).sum()
}

fn engine_with(set: &str) -> Engine {
    let (_, rdb, _, _) = SETS.iter().find(|s| s.0 == set).unwrap();
    let mut e = Engine::new();
    e.load_rdb(u8a(rdb), None, None)
        .unwrap_or_else(|err| panic!("{set}/dump.rdb: {}", error_message(err)));
    e
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[wasm_bindgen_test]
fn replies_map_to_plain_js_values() {
    let mut e = Engine::new();
    assert_eq!(command_number(&mut e, &["DBSIZE"]), 0.0);
    e.set_string("b".into(), &[0xff, 0x01]).unwrap();
    e.set_string("a".into(), b"hello").unwrap();
    e.set_string(Uint8Array::from(&b"c\xff"[..]).into(), b"")
        .unwrap();
    assert_eq!(e.dbsize(), 3.0);
    assert_eq!(
        e.command(&argv(&["TYPE", "a"]))
            .unwrap()
            .as_string()
            .as_deref(),
        Some("string")
    );
    assert_eq!(
        e.command(&argv(&["type", "missing"]))
            .unwrap()
            .as_string()
            .as_deref(),
        Some("none")
    );
    // Numbers and Uint8Array arguments are accepted.
    let mixed: Array = [
        JsValue::from_str("EXISTS"),
        Uint8Array::from(&b"a"[..]).into(),
        JsValue::from_str("b"),
        JsValue::from_f64(7.0),
    ]
    .into_iter()
    .collect();
    assert_eq!(number(&e.command(&mixed).unwrap()), 2.0);
    // KEYS: strings (invalid UTF-8 replaced).
    assert_eq!(keys(&mut e, "*"), vec!["a", "b", "c\u{fffd}"]);
    let keys = e.command(&argv(&["KEYS", "[ab]"])).unwrap();
    let keys: Array = keys.dyn_into().expect("an array");
    let mut keys: Vec<String> = keys.iter().map(|k| k.as_string().unwrap()).collect();
    keys.sort();
    assert_eq!(keys, vec!["a", "b"]);
    // redis-cli text and RESP bytes.
    assert_eq!(e.command_cli(&argv(&["DBSIZE"])).unwrap(), "3\n");
    assert_eq!(
        e.command_resp(&argv(&["EXISTS", "a", "zz"])).unwrap(),
        b":1\r\n"
    );
    assert!(e.delete_key("c\u{fffd}".into()).is_ok());
    assert!(e.delete_key("a".into()).unwrap());
    assert!(!e.delete_key("a".into()).unwrap());
    assert_eq!(e.dbsize(), 2.0);
    e.clear();
    assert_eq!(e.dbsize(), 0.0);
}

#[wasm_bindgen_test]
fn error_replies_are_thrown_with_redis_text() {
    let mut e = Engine::new();
    let err = e.command(&argv(&["NOSUCH", "x", "1"])).unwrap_err();
    assert_eq!(
        error_message(err),
        "ERR unknown command 'NOSUCH', with args beginning with: 'x' '1' "
    );
    let err = e.command(&argv(&["DBSIZE", "x"])).unwrap_err();
    assert_eq!(
        error_message(err),
        "ERR wrong number of arguments for 'dbsize' command"
    );
    // Not thrown by the text and RESP forms.
    assert_eq!(
        e.command_cli(&argv(&["DBSIZE", "x"])).unwrap(),
        "ERR wrong number of arguments for 'dbsize' command\n\n"
    );
    assert_eq!(
        e.command_resp(&argv(&["DBSIZE", "x"])).unwrap(),
        b"-ERR wrong number of arguments for 'dbsize' command\r\n"
    );
    let bad: Array = [JsValue::from_str("TYPE"), Object::new().into()]
        .into_iter()
        .collect();
    assert_eq!(
        error_message(e.command(&bad).unwrap_err()),
        "argument 1 is not a string, number or Uint8Array"
    );
}

#[wasm_bindgen_test]
fn bad_rdb_input_throws_with_offset_and_keeps_content() {
    let mut e = Engine::new();
    e.set_string("keep".into(), b"1").unwrap();
    for bad in [&b""[..], b"REDIS", b"REDIS0010\xfa", b"NOTREDIS0010\xff"] {
        let msg = error_message(e.load_rdb(u8a(bad), None, None).unwrap_err());
        assert!(msg.contains("offset"), "{msg}");
    }
    // Truncate a real dump at several points: always an error naming an offset, never a trap.
    let (_, rdb, _, _) = SETS[3];
    for cut in [9, 20, rdb.len() / 2, rdb.len() - 1] {
        let msg = error_message(e.load_rdb(u8a(&rdb[..cut]), None, None).unwrap_err());
        assert!(msg.contains("offset"), "cut at {cut}: {msg}");
    }
    assert_eq!(e.dbsize(), 1.0);
    assert!(e.load_rdb(u8a(rdb), Some(-1.0), None).is_err());
}

#[wasm_bindgen_test]
fn load_rdb_returns_the_key_count() {
    for (name, rdb, _, keys_tsv) in SETS {
        let want = keys_tsv.lines().skip(1).filter(|l| !l.is_empty()).count() as f64;
        let mut e = Engine::new();
        let n = e
            .load_rdb(u8a(rdb), None, None)
            .unwrap_or_else(|err| panic!("{name}: {}", error_message(err)));
        assert_eq!(n, want, "{name}");
        assert_eq!(e.dbsize(), want, "{name}");
        // Database 1 is empty in these files.
        assert_eq!(e.load_rdb(u8a(rdb), Some(1.0), None).unwrap(), 0.0);
    }
}

#[wasm_bindgen_test]
fn bitmap_helpers_match_naive_counts() {
    let mut e = Engine::new();
    let days: Vec<(String, Vec<u8>)> = (0..7u32)
        .map(|d| {
            let bytes: Vec<u8> = (0..(100 + d * 37))
                .map(|i| (i.wrapping_mul(2654435761).wrapping_add(d * 97) >> 13) as u8)
                .collect();
            (format!("stats:active:2024050{}", d + 1), bytes)
        })
        .collect();
    for (k, v) in &days {
        e.set_string(k.as_str().into(), v).unwrap();
        assert_eq!(command_number(&mut e, &["BITCOUNT", k]), popcount(v), "{k}");
        let raw = e.command_raw(&argv(&["GET", k])).unwrap();
        assert_eq!(raw.dyn_into::<Uint8Array>().unwrap().to_vec(), *v);
    }
    assert_eq!(
        command_number(&mut e, &["BITCOUNT", "stats:active:missing"]),
        0.0
    );
    let n = number(&e.command(&argv(&["BITCOUNT", &days[2].0])).unwrap());
    assert_eq!(n, popcount(&days[2].1));

    let mut or = vec![0u8; days.iter().map(|d| d.1.len()).max().unwrap()];
    for (_, v) in &days {
        for (i, b) in v.iter().enumerate() {
            or[i] |= b;
        }
    }
    let keys: Vec<String> = days.iter().map(|d| d.0.clone()).collect();
    assert_eq!(e.bitop_or_count(keys.clone(), None).unwrap(), popcount(&or));
    assert_eq!(e.dbsize(), 7.0, "the scratch key is removed");
    // A named scratch key that exists is put back afterwards.
    e.set_string("tmp".into(), b"keep").unwrap();
    assert_eq!(
        e.bitop_or_count(keys, Some("tmp".into())).unwrap(),
        popcount(&or)
    );
    assert_eq!(
        e.command(&argv(&["GET", "tmp"]))
            .unwrap()
            .as_string()
            .as_deref(),
        Some("keep")
    );
    // Wrong type is thrown with Redis' text.
    e.command(&argv(&["BITCOUNT", "tmp"])).unwrap();
    let err = e.command(&argv(&["PFCOUNT", "tmp"])).unwrap_err();
    let err = err.dyn_into::<js_sys::Error>().unwrap();
    assert!(String::from(err.message()).starts_with("WRONGTYPE"));
}

/// Every recorded case whose group uses only vertical-slice commands, through `commandResp`
/// and `commandCli` of the wasm build, equals the bytes Redis sent and redis-cli printed.
#[wasm_bindgen_test]
fn conformance_cases_of_slice_commands() {
    let mut failures = Vec::new();
    let mut total = 0;
    for (name, _, cases, _) in SETS {
        let cases: Vec<Json> = cases
            .lines()
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let mut skip_groups = std::collections::HashSet::new();
        for c in &cases {
            let cmd = c["argv"][0].as_str().unwrap_or("").to_ascii_uppercase();
            if !SLICE_COMMANDS.contains(&cmd.as_str()) {
                skip_groups.insert(c["group"].as_str().unwrap().to_string());
            }
        }
        let mut e = engine_with(name);
        for c in &cases {
            if skip_groups.contains(c["group"].as_str().unwrap()) {
                continue;
            }
            let args: Array = match c.get("argv_hex") {
                Some(Json::Array(a)) => a
                    .iter()
                    .map(|h| JsValue::from(Uint8Array::from(&hex(h.as_str().unwrap())[..])))
                    .collect(),
                _ => c["argv"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| JsValue::from_str(a.as_str().unwrap()))
                    .collect(),
            };
            let want_resp = match (c.get("resp_hex"), c.get("resp")) {
                (Some(Json::String(h)), _) => hex(h),
                (_, Some(Json::String(t))) => t.as_bytes().to_vec(),
                _ => unreachable!(),
            };
            total += 1;
            let got = e.command_resp(&args).unwrap();
            if got != want_resp {
                failures.push(format!("{} {}", c["id"], c["argv"]));
                continue;
            }
            if let Some(Json::String(cli)) = c.get("redis_cli") {
                total += 1;
                if e.command_cli(&args).unwrap() != *cli {
                    failures.push(format!("{} (redis-cli text) {}", c["id"], c["argv"]));
                }
            }
        }
    }
    assert!(total > 2000, "{total} checks");
    assert!(
        failures.is_empty(),
        "{} of {total} checks fail; first: {:#?}",
        failures.len(),
        &failures[..failures.len().min(10)]
    );
}

#[wasm_bindgen_test]
fn engagement_helpers_match_naive_references() {
    let mut e = Engine::new();
    let days: Vec<(String, Vec<u8>)> = (0..9u32)
        .map(|d| {
            let bytes: Vec<u8> = (0..(40 + d * 13))
                .map(|i| (i.wrapping_mul(40503).wrapping_add(d * 7919) >> 5) as u8 | (i as u8 & 3))
                .collect();
            (format!("stats:active:202405{:02}", d + 1), bytes)
        })
        .collect();
    for (k, v) in &days {
        e.set_string(k.as_str().into(), v).unwrap();
    }
    let keys: Vec<String> = days.iter().map(|d| d.0.clone()).collect();
    let bit = |v: &[u8], u: usize| v.get(u / 8).is_some_and(|b| b & (0x80 >> (u % 8)) != 0);
    let bits = days.iter().map(|d| d.1.len() * 8).max().unwrap();
    // Streak histogram: element k-1 counts users set in exactly the last k days.
    let mut want = vec![0.0; keys.len()];
    for u in 0..bits {
        let run = days.iter().rev().take_while(|d| bit(&d.1, u)).count();
        if run > 0 {
            want[run - 1] += 1.0;
        }
    }
    assert_eq!(e.streak_histogram(keys.clone()).unwrap(), want);
    assert_eq!(want.iter().sum::<f64>(), popcount(&days.last().unwrap().1));
    // Engagement: dau and rolling 7-day actives, as plain numbers.
    let eng = JsValue::from(e.engagement(keys.clone()).unwrap());
    let series = |name: &str| -> Vec<f64> {
        Reflect::get(&eng, &JsValue::from_str(name))
            .unwrap()
            .dyn_into::<Array>()
            .unwrap()
            .iter()
            .map(|v| number(&v))
            .collect()
    };
    let dau: Vec<f64> = days.iter().map(|d| popcount(&d.1)).collect();
    assert_eq!(series("dau"), dau);
    let wau: Vec<f64> = (0..days.len())
        .map(|i| {
            let from = i.saturating_sub(6);
            (0..bits)
                .filter(|&u| days[from..=i].iter().any(|d| bit(&d.1, u)))
                .count() as f64
        })
        .collect();
    assert_eq!(series("wau"), wau);
    // The charts' numbers only: the chart module (crates/wasm-charts) draws them.
    let labels: Vec<String> = e.date_labels(keys.clone());
    let want: Vec<String> = (1..=9).map(|d| format!("2024-05-{d:02}")).collect();
    assert_eq!(labels, want);
    // A key of another type is an error, not a panic.
    e.command(&argv(&["TYPE", "x"])).unwrap();
    let (_, rdb, _, _) = SETS[3];
    let mut g = Engine::new();
    g.load_rdb(u8a(rdb), None, None).unwrap();
    assert!(g.streak_histogram(vec!["shop:geo:food".into()]).is_err());
}

#[wasm_bindgen_test]
fn roaring_round_trip_and_per_key_pfcount() {
    let mut e = Engine::new();
    // Bits 0, 9 and 4,294,967,295 (the last offset Redis allows): the string would be 512 MiB.
    e.command(&argv(&["SETBIT", "tag", "0", "1"])).unwrap();
    e.command(&argv(&["SETBIT", "tag", "9", "1"])).unwrap();
    e.command(&argv(&["SETBIT", "tag", "4294967295", "1"]))
        .unwrap();
    let bytes = e.export_roaring("tag".into()).unwrap();
    e.load_roaring("copy".into(), &bytes).unwrap();
    assert_eq!(command_number(&mut e, &["BITCOUNT", "copy"]), 3.0);
    assert_eq!(command_number(&mut e, &["BITPOS", "copy", "1", "1"]), 9.0);
    assert_eq!(command_number(&mut e, &["STRLEN", "copy"]), 536870912.0);
    assert!(e.load_roaring("bad".into(), b"\x01\x02\x03").is_err());
    // A missing key exports as an empty bitmap, which loads back as an empty string.
    let empty = e.export_roaring("missing".into()).unwrap();
    e.load_roaring("empty".into(), &empty).unwrap();
    assert_eq!(command_number(&mut e, &["BITCOUNT", "empty"]), 0.0);

    e.command(&argv(&["PFADD", "h1", "a", "b", "c"])).unwrap();
    e.command(&argv(&["PFADD", "h2", "a"])).unwrap();
    let each: Vec<f64> = ["h1", "nope", "h2"]
        .iter()
        .map(|k| command_number(&mut e, &["PFCOUNT", k]))
        .collect();
    assert_eq!(each, vec![3.0, 0.0, 1.0]);
    assert!(e.command(&argv(&["PFCOUNT", "tag"])).is_err());
}

// ---- Offline loading and the key browser (issue 6) ----

fn get(obj: &(impl Into<JsValue> + Clone), name: &str) -> JsValue {
    Reflect::get(&obj.clone().into(), &JsValue::from_str(name)).unwrap()
}

fn numbers(v: &JsValue) -> Vec<f64> {
    v.clone()
        .dyn_into::<Array>()
        .expect("an array")
        .iter()
        .map(|x| number(&x))
        .collect()
}

/// An options object of `pairs`, as an engine method's typed options argument.
fn options<T: tsify::Tsify>(pairs: &[(&str, JsValue)]) -> Option<tsify::Ts<T>> {
    let o = Object::new();
    for (k, v) in pairs {
        Reflect::set(&o, &JsValue::from_str(k), v).unwrap();
    }
    Some(tsify::Ts::new_unchecked(o.into()))
}

/// `keyDetail(key, options)` of a key that is there; asserts the detail's `kind`.
fn detail(e: &Engine, key: &str, opts: &[(&str, JsValue)], kind: &str) -> JsValue {
    let opts = if opts.is_empty() { None } else { options(opts) };
    let d = e.key_detail(key.into(), opts).unwrap();
    assert_eq!(get(&d, "kind").as_string().unwrap(), kind, "{key}");
    d
}

fn geo_score(lon: f64, lat: f64) -> f64 {
    bitlens::geo::encode(lon, lat).unwrap() as f64
}

/// A file with, in db 0: `bm:a` (bits 0..=15 and 1023 set, 128 bytes), `bm:b` (expiring),
/// `hll:u` (PFADD of 300 elements), `geo:shops` (3 points), `n:1` (an integer string);
/// `blob` (1000 pseudo-random bytes); in db 1: `bm:other`; in db 2: 48 pseudo-random strings
/// of 64 KiB, so the file spans several progress steps.
fn browser_rdb() -> (Vec<u8>, Vec<u8>) {
    let mut bm = vec![0u8; 128];
    bm[0] = 0xff;
    bm[1] = 0xff;
    bm[127] = 0x01;
    let mut h = bitlens::hll::new_sparse();
    let elems: Vec<Vec<u8>> = (0..300).map(|i| format!("e{i}").into_bytes()).collect();
    let refs: Vec<&[u8]> = elems.iter().map(|e| e.as_slice()).collect();
    bitlens::hll::pfadd(&mut h, &refs).unwrap();
    let geo = bitlens::zset::ZSet::from_pairs(vec![
        (b"palermo".to_vec(), geo_score(13.361389, 38.115556)),
        (b"catania".to_vec(), geo_score(15.087269, 37.502669)),
        (b"paris".to_vec(), geo_score(2.349014, 48.864716)),
    ]);
    let mut blob = vec![0u8; 3 << 20];
    fastrand::Rng::with_seed(0x9E37_79B9_7F4A_7C15).fill(&mut blob);
    let mut w = bitlens::rdb::RdbWriter::new(Vec::new(), 10).unwrap();
    w.select_db(0).unwrap();
    w.write_string(b"bm:a", &bm, None).unwrap();
    w.write_string(b"bm:b", &[0x80], Some(4_102_444_800_000))
        .unwrap();
    w.write_string(b"hll:u", &h, None).unwrap();
    w.write_zset(b"geo:shops", &geo, None).unwrap();
    w.write_string(b"n:1", b"12345", None).unwrap();
    w.write_string(b"blob", &blob[..1000], None).unwrap();
    w.select_db(1).unwrap();
    w.write_string(b"bm:other", b"x", None).unwrap();
    w.select_db(2).unwrap();
    for (i, part) in blob.chunks(64 << 10).enumerate() {
        w.write_string(format!("r:{i}").as_bytes(), part, None)
            .unwrap();
    }
    (w.finish().unwrap(), h)
}

#[wasm_bindgen_test]
fn load_rdb_patterns_checksum_and_progress() {
    let (rdb, _) = browser_rdb();
    let mut e = Engine::new();
    // Patterns: only bm:* of db 0 (bm:other is in db 1).
    let pats: Array = ["bm:*", "n:?"]
        .iter()
        .map(|p| JsValue::from_str(p))
        .collect();
    let n = e
        .load_rdb(u8a(&rdb), None, options(&[("patterns", pats.into())]))
        .unwrap();
    assert_eq!(n, 3.0);
    assert_eq!(keys(&mut e, "*"), ["bm:a", "bm:b", "n:1"]);
    assert_eq!(e.load_rdb(u8a(&rdb), Some(1.0), None).unwrap(), 1.0);
    // A damaged checksum: the error names the offset of the trailer and how to skip it.
    let mut bad = rdb.clone();
    let last = bad.len() - 1;
    bad[last] ^= 0x55;
    let msg = error_message(e.load_rdb(u8a(&bad), None, None).unwrap_err());
    assert!(
        msg.contains(&format!("at byte offset {}", rdb.len() - 8)),
        "{msg}"
    );
    assert!(msg.contains("{ checksum: false }"), "{msg}");
    assert_eq!(e.dbsize(), 1.0, "content kept after a failed load");
    let n = e
        .load_rdb(u8a(&bad), None, options(&[("checksum", JsValue::FALSE)]))
        .unwrap();
    assert_eq!(n, 6.0);
    // Progress: increasing, at least 1 MiB apart, ending with (total, total).
    let calls = Array::new();
    let cb = js_sys::Function::new_with_args("d, t", "this.push([d, t]);");
    let cb = cb.bind0(&calls);
    e.load_rdb(u8a(&rdb), None, options(&[("onProgress", cb.into())]))
        .unwrap();
    let calls: Vec<Vec<f64>> = calls.iter().map(|c| numbers(&c)).collect();
    let total = rdb.len() as f64;
    assert!(calls.len() >= 3, "{calls:?}");
    assert!(
        calls.len() as f64 <= total / (1 << 20) as f64 + 1.0,
        "{calls:?}"
    );
    assert!(calls.iter().all(|c| c[1] == total && c[0] <= total));
    assert!(calls
        .windows(2)
        .all(|w| w[1][0] - w[0][0] >= (1 << 20) as f64 || w[1][0] == total));
    assert_eq!(calls.last().unwrap(), &vec![total, total]);
    // An exception in onProgress stops the load with its message; content is kept.
    let throwing = js_sys::Function::new_with_args("d, t", "throw new Error('user cancelled');");
    let msg = error_message(
        e.load_rdb(
            u8a(&rdb),
            Some(1.0),
            options(&[("onProgress", throwing.into())]),
        )
        .unwrap_err(),
    );
    assert!(msg.contains("user cancelled"), "{msg}");
    assert_eq!(e.dbsize(), 6.0);
    // Bad option types are errors.
    let msg = error_message(
        e.load_rdb(
            u8a(&rdb),
            None,
            options(&[("patterns", JsValue::from_str("bm:*"))]),
        )
        .unwrap_err(),
    );
    assert!(msg.contains("patterns"), "{msg}");
}

#[wasm_bindgen_test]
fn key_list_and_key_detail() {
    let (rdb, hll) = browser_rdb();
    let mut e = Engine::new();
    e.load_rdb(u8a(&rdb), None, None).unwrap();
    let list = e.key_list("*", 3.0, None).unwrap();
    assert_eq!(number(&get(&list, "total")), 6.0);
    let keys = get(&list, "keys").dyn_into::<Array>().unwrap();
    let names: Vec<String> = keys
        .iter()
        .map(|k| get(&k, "key").as_string().unwrap())
        .collect();
    assert_eq!(names, ["blob", "bm:a", "bm:b"]);
    let bma = keys.get(1);
    assert_eq!(get(&bma, "type").as_string().unwrap(), "string");
    assert_eq!(get(&bma, "encoding").as_string().unwrap(), "raw");
    assert_eq!(number(&get(&bma, "bytes")), 128.0);
    assert!(get(&bma, "ttlMs").is_null());
    let ttl = number(&get(&keys.get(2), "ttlMs"));
    let want = 4_102_444_800_000.0 - js_sys::Date::now();
    assert!((ttl - want).abs() < 60_000.0, "{ttl} vs {want}");
    let list = e.key_list("n:*", 10.0, None).unwrap();
    let n1 = get(&list, "keys").dyn_into::<Array>().unwrap().get(0);
    assert_eq!(get(&n1, "encoding").as_string().unwrap(), "int");

    // Bitmap: 17 set bits; 4 buckets of 256 bits: 16/256, 0, 0, 1/256.
    let d = detail(&e, "bm:a", &[("buckets", JsValue::from_f64(4.0))], "bitmap");
    assert_eq!(number(&get(&d, "bits")), 1024.0);
    assert_eq!(number(&get(&d, "bitcount")), 17.0);
    assert_eq!(
        numbers(&get(&d, "density")),
        vec![16.0 / 256.0, 0.0, 0.0, 1.0 / 256.0]
    );
    assert_eq!(
        number(&get(&d, "bitcount")),
        command_number(&mut e, &["BITCOUNT", "bm:a"])
    );

    // HLL: histogram of 64 counts summing to 16384, zero count = registers left 0.
    let d = detail(&e, "hll:u", &[], "hll");
    assert_eq!(get(&d, "hllEncoding").as_string().unwrap(), "sparse");
    let hist = numbers(&get(&d, "registerHistogram"));
    assert_eq!(hist.len(), 64);
    assert_eq!(hist.iter().sum::<f64>(), 16384.0);
    let regs = bitlens::hll::registers(&hll).unwrap();
    let zero = regs.0.iter().filter(|&&r| r == 0).count() as f64;
    assert_eq!(hist[0], zero);
    assert_eq!(
        number(&get(&d, "cardinality")),
        command_number(&mut e, &["PFCOUNT", "hll:u"])
    );

    // GEO: bbox and points as GEOPOS gives them, first maxPoints by score.
    let d = detail(
        &e,
        "geo:shops",
        &[("maxPoints", JsValue::from_f64(2.0))],
        "geo",
    );
    assert_eq!(number(&get(&d, "members")), 3.0);
    let pts = get(&d, "points").dyn_into::<Array>().unwrap();
    assert_eq!(pts.length(), 2);
    let first = strings(
        &e.command(&argv(&["ZRANGE", "geo:shops", "0", "1"]))
            .unwrap()
            .dyn_into::<Array>()
            .unwrap(),
    );
    for (p, m) in pts.iter().zip(&first) {
        assert_eq!(&get(&p, "member").as_string().unwrap(), m);
        let pos = e.command(&argv(&["GEOPOS", "geo:shops", m])).unwrap();
        let pos = pos
            .dyn_into::<Array>()
            .unwrap()
            .get(0)
            .dyn_into::<Array>()
            .unwrap();
        let lon: f64 = pos.get(0).as_string().unwrap().parse().unwrap();
        let lat: f64 = pos.get(1).as_string().unwrap().parse().unwrap();
        assert!((number(&get(&p, "lon")) - lon).abs() < 1e-9);
        assert!((number(&get(&p, "lat")) - lat).abs() < 1e-9);
    }
    let bbox = numbers(&get(&d, "bbox"));
    assert!(
        (bbox[0] - 2.349014).abs() < 1e-5 && (bbox[3] - 48.864716).abs() < 1e-5,
        "{bbox:?}"
    );
    assert!(
        (bbox[1] - 37.502669).abs() < 1e-5 && (bbox[2] - 15.087269).abs() < 1e-5,
        "{bbox:?}"
    );
    // Missing key: null. Bad buckets: error.
    assert!(e.key_detail("nope".into(), None).unwrap().is_null());
    let msg = error_message(
        e.key_detail(
            "bm:a".into(),
            options(&[("buckets", JsValue::from_f64(0.0))]),
        )
        .unwrap_err(),
    );
    assert!(msg.contains("buckets"), "{msg}");
}

#[wasm_bindgen_test]
fn load_dump_and_load_string() {
    let mut e = Engine::new();
    let payload = bitlens::rdb::dump_string(b"\x0f\xf0", 10);
    e.load_dump("d".into(), &payload, None).unwrap();
    assert_eq!(command_number(&mut e, &["BITCOUNT", "d"]), 8.0);
    // ttlMs: an expiry that far from now.
    e.load_dump(
        "t".into(),
        &payload,
        options(&[("ttlMs", JsValue::from_f64(60_000.0))]),
    )
    .unwrap();
    let list = e.key_list("t", 1.0, None).unwrap();
    let t = get(
        &get(&list, "keys").dyn_into::<Array>().unwrap().get(0),
        "ttlMs",
    );
    assert!((55_000.0..=60_000.0).contains(&number(&t)), "{t:?}");
    // A flipped CRC byte: error naming the trailer offset and how to skip the check.
    let mut bad = payload.clone();
    let n = bad.len();
    bad[n - 1] ^= 1;
    let msg = error_message(e.load_dump("x".into(), &bad, None).unwrap_err());
    assert!(msg.contains(&format!("at byte offset {}", n - 8)), "{msg}");
    assert!(msg.contains("\"x\""), "{msg}");
    e.load_dump("x".into(), &bad, options(&[("checksum", JsValue::FALSE)]))
        .unwrap();
    // A corrupt value (length byte past the end), checksum fixed up: error names offset 1.
    let mut body = vec![0u8, 0x3f, b'a'];
    body.extend_from_slice(&10u16.to_le_bytes());
    let crc = crc_of(&body);
    body.extend_from_slice(&crc.to_le_bytes());
    let msg = error_message(e.load_dump("y".into(), &body, None).unwrap_err());
    assert!(msg.contains("at byte offset 2"), "{msg}");
    assert!(e.load_dump("z".into(), b"short", None).is_err());
    assert_eq!(e.dbsize(), 3.0);
    // loadString: raw GET bytes.
    e.load_string("s".into(), &[0xff, 0x00, 0x01]).unwrap();
    assert_eq!(command_number(&mut e, &["BITCOUNT", "s"]), 9.0);
    assert_eq!(command_number(&mut e, &["STRLEN", "s"]), 3.0);
}

/// CRC-64 (Redis' Jones variant) of `bytes`, from the `crc` crate as an independent
/// reference.
fn crc_of(bytes: &[u8]) -> u64 {
    crc::Crc::<u64>::new(&crc::CRC_64_REDIS).checksum(bytes)
}

#[wasm_bindgen_test]
fn a_blob_outside_a_worker_says_so() {
    let parts: Array = [Uint8Array::from(&b"REDIS0010\xff\0\0\0\0\0\0\0\0"[..])]
        .into_iter()
        .collect();
    let blob = web_sys::Blob::new_with_u8_array_sequence(&parts).unwrap();
    let mut e = Engine::new();
    let msg = error_message(e.load_rdbs(parts_of(&blob), None, None).unwrap_err());
    assert!(msg.contains("Web Worker"), "{msg}");
}

/// The dialect and the clock of the engine (issue 14): the writer's profile by default
/// (redis-ver 7.4.1 here: ZSCORE 1.618 as recorded from Redis 7.4.1), `compat` another
/// server's (Redis 7.0.15 recorded 1.6180000000000001), the snapshot's ctime as the clock (a key
/// that expired before it is invisible), every database behind SELECT, and `info()`.
#[wasm_bindgen_test]
fn compat_clock_databases_and_info() {
    let z = bitlens::zset::ZSet::from_pairs(vec![(b"a".to_vec(), 1.618)]);
    let mut w = bitlens::rdb::RdbWriter::with_redis_ver(Vec::new(), 12, b"7.4.1").unwrap();
    w.aux(b"ctime", b"1700000000").unwrap();
    w.select_db(0).unwrap();
    w.write_zset(b"z", &z, None).unwrap();
    w.write_string(b"gone", b"x", Some(1_600_000_000_000))
        .unwrap();
    w.write_string(b"later", b"y", Some(1_800_000_000_000))
        .unwrap();
    w.select_db(3).unwrap();
    w.write_string(b"three", b"3", None).unwrap();
    let rdb = w.finish().unwrap();
    let mut e = Engine::new();
    assert_eq!(e.load_rdb(u8a(&rdb), None, None).unwrap(), 2.0);
    let run = |e: &mut Engine, a: &[&str]| e.command_cli(&argv(a)).unwrap();
    assert_eq!(run(&mut e, &["ZSCORE", "z", "a"]), "1.618\n");
    assert_eq!(run(&mut e, &["TYPE", "gone"]), "none\n");
    assert_eq!(run(&mut e, &["EXPIRETIME", "later"]), "1800000000\n");
    assert_eq!(run(&mut e, &["SELECT", "3"]), "OK\n");
    assert_eq!(run(&mut e, &["GET", "three"]), "3\n");
    let info = e.info().unwrap();
    assert_eq!(get(&info, "profile").as_string().unwrap(), "redis-7.4");
    assert_eq!(get(&info, "writer"), JsValue::TRUE);
    assert_eq!(number(&get(&info, "clockMs")), 1_700_000_000_999.0);
    assert_eq!(number(&get(&info, "selected")), 3.0);
    let dbs = get(&info, "databases").dyn_into::<Array>().unwrap();
    assert_eq!(dbs.length(), 2);
    assert_eq!(number(&get(&dbs.get(0), "expired")), 1.0);
    e.select(0.0).unwrap();
    let listed = e.key_list("*", 10.0, None).unwrap();
    assert_eq!(number(&get(&listed, "total")), 2.0);
    let all = e
        .key_list("*", 10.0, options(&[("expired", JsValue::TRUE)]))
        .unwrap();
    assert_eq!(number(&get(&all, "total")), 3.0);
    // compat and clock options.
    let opts = options(&[
        ("compat", JsValue::from_str("redis-7.0")),
        ("clock", JsValue::from_f64(1_900_000_000_000.0)),
    ]);
    assert_eq!(e.load_rdb(u8a(&rdb), None, opts).unwrap(), 1.0);
    assert_eq!(run(&mut e, &["ZSCORE", "z", "a"]), "1.6180000000000001\n");
    assert_eq!(run(&mut e, &["TYPE", "later"]), "none\n");
    assert_eq!(get(&e.info().unwrap(), "writer"), JsValue::FALSE);
    let bad = options(&[("compat", JsValue::from_str("redis-1.0"))]);
    let msg = error_message(e.load_rdb(u8a(&rdb), None, bad).unwrap_err());
    assert!(msg.contains("unknown profile"), "{msg}");
}

/// The key summary (`keyList` / `keyDetail`: `encoding`, `memory`, `bytes`) is computed from
/// the value the key holds now, never from what was recorded when some earlier value was
/// loaded under the same name. The hash's DUMP payload, OBJECT ENCODING `listpack` and
/// MEMORY USAGE 72 were recorded from Redis 7.4.1 (jemalloc 5.3.0) after `HSET h a 1 b 2`
/// and `DEBUG RELOAD`.
#[wasm_bindgen_test]
fn key_summary_follows_the_value_after_overwrites() {
    let hash = hex("101111000000040081610201018162020201ff0c00f53657ac7577e8d3");
    let redis74 = || options(&[("compat", JsValue::from_str("redis-7.4"))]);
    let summary = |e: &Engine, key: &str| {
        let list = e.key_list(key, 1.0, None).unwrap();
        let k = get(&list, "keys").dyn_into::<Array>().unwrap().get(0);
        let memory = get(&k, "memory");
        (
            get(&k, "type").as_string().unwrap(),
            get(&k, "encoding").as_string().unwrap(),
            memory.as_f64(),
            number(&get(&k, "bytes")),
        )
    };
    let object_encoding = |e: &mut Engine, key: &str| {
        e.command(&argv(&["OBJECT", "ENCODING", key]))
            .unwrap()
            .as_string()
            .unwrap()
    };
    let mut e = Engine::new();
    e.load_dump("h".into(), &hash, redis74()).unwrap();
    assert_eq!(
        summary(&e, "h"),
        ("hash".into(), "listpack".into(), Some(72.0), 72.0)
    );
    assert_eq!(object_encoding(&mut e, "h"), "listpack");

    // The hash deleted by a command and the name reused for a Bloom filter (BF.* built in
    // from Redis 8.0, so both engines answer as redis-8.0 now): the summary is the filter's,
    // the same as on an engine that never held the hash.
    let redis80 = || options(&[("compat", JsValue::from_str("redis-8.0"))]);
    e.load_dump("h0".into(), &hash, redis80()).unwrap();
    e.command(&argv(&["DEL", "h"])).unwrap();
    e.command(&argv(&["BF.ADD", "h", "x"])).unwrap();
    let mut fresh = Engine::new();
    fresh.load_dump("other".into(), &hash, redis80()).unwrap();
    fresh.command(&argv(&["BF.ADD", "h", "x"])).unwrap();
    let s = summary(&e, "h");
    assert_eq!(s, summary(&fresh, "h"));
    assert_eq!(s.1, object_encoding(&mut e, "h"));
    assert_eq!(s.1, "raw");
    assert!(s.2.is_some_and(|m| m > 0.0), "{s:?}");

    // loadRoaring and a BITOP overwrite turn the key into a string: summarised as one.
    e.load_dump("h2".into(), &hash, redis74()).unwrap();
    let roaring = e.export_roaring("none".into()).unwrap();
    e.load_roaring("h2".into(), &roaring).unwrap();
    let s = summary(&e, "h2");
    assert_eq!((s.0.as_str(), s.3), ("string", 0.0));
    assert_eq!(s.1, object_encoding(&mut e, "h2"));
    e.load_dump("h3".into(), &hash, redis74()).unwrap();
    e.command(&argv(&["SETBIT", "bits", "7", "1"])).unwrap();
    e.command(&argv(&["BITOP", "NOT", "h3", "bits"])).unwrap();
    let s = summary(&e, "h3");
    assert_eq!((s.0.as_str(), s.3), ("string", 1.0));
    assert_eq!(s.1, object_encoding(&mut e, "h3"));
    // BITOP's destination is a string the session wrote: raw on every server, whatever its
    // length (crates/difftest/tests/encoding_diff.rs).
    assert_eq!(s.1, "raw");
}

/// A thrown value's field `name` (undefined when absent).
fn error_field(err: &JsValue, name: &str) -> JsValue {
    Reflect::get(err, &name.into()).unwrap()
}

#[wasm_bindgen_test]
fn thrown_errors_carry_code_kind_offset_and_key() {
    let mut e = Engine::new();
    // Decoding errors: the native decoder's kind, offset and key for the same bytes.
    let (_, rdb, _, _) = SETS[3];
    let cuts = [5usize, 9, 20, rdb.len() / 2, rdb.len() - 1];
    let mut with_key = 0;
    for cut in cuts {
        let want = bitlens::rdb::load_rdb(&rdb[..cut], &Default::default()).unwrap_err();
        let err = JsValue::from(e.load_rdb(u8a(&rdb[..cut]), None, None).unwrap_err());
        assert_eq!(
            error_field(&err, "kind").as_string().as_deref(),
            Some(want.kind.name()),
            "cut at {cut}"
        );
        // An EngineError (www/engine-error.js), its code the native error's.
        assert_eq!(
            error_field(&err, "code").as_string().as_deref(),
            Some(want.code()),
            "cut at {cut}"
        );
        assert_eq!(
            error_field(&err, "name").as_string().as_deref(),
            Some("EngineError")
        );
        assert_eq!(
            error_field(&err, "offset").as_f64(),
            Some(want.offset as f64),
            "cut at {cut}"
        );
        let key = error_field(&err, "key").as_string();
        assert_eq!(
            key.as_deref().map(str::as_bytes),
            want.key.as_deref(),
            "cut at {cut}"
        );
        with_key += usize::from(key.is_some());
    }
    assert!(with_key > 0, "no cut fell inside a value");
    // A bad checksum, and a DUMP payload: the key given.
    let mut bad = rdb.to_vec();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    let err = JsValue::from(e.load_rdb(u8a(&bad), None, None).unwrap_err());
    assert_eq!(
        error_field(&err, "kind").as_string().as_deref(),
        Some("checksum")
    );
    let err = JsValue::from(
        e.load_dump("dumped".into(), b"\x00\x03abc", None)
            .unwrap_err(),
    );
    assert_eq!(
        error_field(&err, "key").as_string().as_deref(),
        Some("dumped")
    );
    assert!(error_field(&err, "offset").as_f64().is_some());
    // Two files holding a key: duplicate-key, naming it.
    let files = Array::of2(&u8a(rdb), &u8a(rdb));
    let err = JsValue::from(e.load_rdbs(files, None, None).unwrap_err());
    assert_eq!(
        error_field(&err, "kind").as_string().as_deref(),
        Some("duplicate-key")
    );
    let snap = bitlens::rdb::load_rdb(rdb, &Default::default()).unwrap();
    let key = error_field(&err, "key").as_string().unwrap();
    assert!(
        snap.entries().iter().any(|(_, k, _)| *k == key.as_bytes()),
        "{key}"
    );
    // An error reply (Redis' text) and the glue's own check.
    e.set_string("s".into(), b"abc").unwrap();
    let argv = Array::of2(&"PFCOUNT".into(), &"s".into());
    let err = e.command(&argv).unwrap_err();
    assert_eq!(
        error_field(&err, "kind").as_string().as_deref(),
        Some("reply")
    );
    assert_eq!(
        error_message(err.clone()),
        "WRONGTYPE Key is not a valid HyperLogLog string value."
    );
    assert!(error_field(&err, "offset").is_undefined());
    let err = JsValue::from(e.select(-1.0).unwrap_err());
    assert_eq!(
        error_field(&err, "kind").as_string().as_deref(),
        Some("reply")
    );
    let err = JsValue::from(e.pfadd_batch("h".into(), b"ab", &[0, 2, 1]).unwrap_err());
    assert_eq!(
        error_field(&err, "kind").as_string().as_deref(),
        Some("argument")
    );
}

/// `RdbStream.offloadLzf`: every LZF string handed out as a job, answered with
/// `lzfDecompress` (every third declined), loads what `loadRdb` loads; bad `minBytes` and bad
/// decompression inputs are refused.
#[wasm_bindgen_test]
fn offloaded_stream_loads_as_load_rdb() {
    use bitlens_wasm::stream::{lzf_decompress, RdbStream};
    let field = |v: &JsValue, k: &str| Reflect::get(v, &JsValue::from_str(k)).unwrap();
    let mut jobs_seen = 0;
    for (name, rdb, _, _) in SETS {
        let mut want = Engine::new();
        want.load_rdb(u8a(rdb), None, None).unwrap();
        let mut s = RdbStream::new(None, None).unwrap();
        s.offload_lzf(1.0).unwrap();
        let mut answered = 0;
        for piece in rdb.chunks(7) {
            s.push(piece).unwrap();
            loop {
                let jobs = s.take_jobs().unwrap();
                if jobs.is_empty() {
                    break;
                }
                for job in jobs {
                    let job: JsValue = job.js_value().clone();
                    let offset = number(&field(&job, "offset"));
                    let len = number(&field(&job, "len"));
                    let data = field(&job, "data")
                        .dyn_into::<Uint8Array>()
                        .unwrap()
                        .to_vec();
                    answered += 1;
                    let bytes = (answered % 3 != 0)
                        .then(|| lzf_decompress(&data, len))
                        .flatten();
                    s.supply(offset, bytes).unwrap();
                }
            }
        }
        assert_eq!(s.open_jobs(), 0.0, "{name}");
        jobs_seen += answered;
        let mut got = Engine::new();
        got.load_rdb_stream(s).unwrap();
        assert_eq!(got.dbsize(), want.dbsize(), "{name}");
        let run = |e: &mut Engine, args: &[&str]| e.command(&argv(args).into());
        let keys = |e: &mut Engine| strings(&run(e, &["KEYS", "*"]).unwrap().dyn_into().unwrap());
        let (mut a, mut b) = (keys(&mut got), keys(&mut want));
        a.sort();
        b.sort();
        assert_eq!(a, b, "{name}");
        for k in &a {
            for args in [
                &["TYPE", k][..],
                &["OBJECT", "ENCODING", k],
                &["STRLEN", k],
                &["BITCOUNT", k],
                &["PFCOUNT", k],
            ] {
                let reply = |e: &mut Engine| match run(e, args) {
                    Ok(v) => format!("{v:?}"),
                    Err(err) => error_message(err),
                };
                assert_eq!(reply(&mut got), reply(&mut want), "{name} {args:?}");
            }
        }
    }
    assert!(jobs_seen > 0, "the fixtures hold LZF strings");
    let mut s = RdbStream::new(None, None).unwrap();
    for bad in [0.0, -1.0, 1.5, f64::NAN] {
        let msg = error_message(s.offload_lzf(bad).unwrap_err());
        assert!(msg.contains("minBytes must be a positive integer"), "{msg}");
    }
    assert_eq!(lzf_decompress(b"\x00a", 1.0), Some(b"a".to_vec()));
    assert_eq!(lzf_decompress(b"\x00a", 2.0), None, "another length");
    assert_eq!(lzf_decompress(b"\xff\xff", 100.0), None, "corrupt");
    assert_eq!(lzf_decompress(b"\x00a", 1e12), None, "over 16 MiB");
}
