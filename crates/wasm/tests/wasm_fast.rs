//! The typed fast paths of the JavaScript API (`src/wasm_fast.rs`: `pfcount`, `getbit`,
//! `commandPacked`), run in headless Chromium by wasm-bindgen-test-runner
//! (`cargo test --target wasm32-unknown-unknown -p bitlens --test wasm_fast`).
//!
//! Every recorded case of the bitmaps and hll conformance sets (replies real Redis 7.0.15
//! sent, tests/data/conformance) goes through `commandPacked`; the single-key PFCOUNT and
//! GETBIT cases also through `pfcount` / `getbit`. Each answer must equal the recorded reply
//! (the integer, or the error text thrown) and what `command()` answers.
#![cfg(target_arch = "wasm32")]

mod wasm_common;

use bitlens_wasm::Engine;
use js_sys::Array;
use serde_json::Value as Json;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use wasm_common::u8a;

wasm_bindgen_test_configure!(run_in_browser);

const SETS: &[(&[u8], &str)] = &[
    (
        include_bytes!("../../../tests/data/conformance/bitmaps/dump.rdb"),
        include_str!("../../../tests/data/conformance/bitmaps/cases.jsonl"),
    ),
    (
        include_bytes!("../../../tests/data/conformance/hll/dump.rdb"),
        include_str!("../../../tests/data/conformance/hll/cases.jsonl"),
    ),
];

/// An argv `Array` as the `JsValue` `command()` takes.
fn jv(a: &Array) -> JsValue {
    a.clone().into()
}

/// A thrown value's message.
fn message(v: JsValue) -> String {
    v.dyn_into::<js_sys::Error>()
        .expect("a JS Error")
        .message()
        .into()
}

/// A result as comparable text: the value's JSON, or `ERR:` and the thrown message.
fn text<E: Into<JsValue>>(r: Result<JsValue, E>) -> String {
    match r {
        Ok(v) => js_sys::JSON::stringify(&v)
            .map(String::from)
            .unwrap_or_else(|_| "undefined".into()),
        Err(e) => format!("ERR:{}", message(e.into())),
    }
}

/// The recorded reply as the same text (integers and error replies only; `None` otherwise).
fn recorded(case: &Json) -> Option<String> {
    let resp = case["resp"].as_str()?.strip_suffix("\r\n")?;
    if let Some(n) = resp.strip_prefix(':') {
        return Some(n.to_string());
    }
    resp.strip_prefix('-').map(|e| format!("ERR:{e}"))
}

#[wasm_bindgen_test]
fn typed_and_packed_paths_answer_as_redis_and_command() {
    let mut checked = (0, 0, 0);
    for (rdb, cases) in SETS {
        let mut e = Engine::new();
        e.load_rdb(u8a(rdb), None, None)
            .map_err(|e| message(e.into()))
            .expect("conformance snapshot loads");
        for line in cases.lines().filter(|l| !l.trim().is_empty()) {
            let case: Json = serde_json::from_str(line).expect("case JSON");
            let argv: Vec<String> = case["argv"]
                .as_array()
                .expect("argv")
                .iter()
                .map(|a| a.as_str().unwrap_or_default().to_string())
                .collect();
            let arr: Array = argv.iter().map(|a| JsValue::from_str(a)).collect();
            let via_command = text(e.command(&jv(&arr)));
            let mut buf = Vec::new();
            let mut offsets = vec![0u32];
            for a in &argv {
                buf.extend_from_slice(a.as_bytes());
                offsets.push(buf.len() as u32);
            }
            let packed = text(e.command_packed(&buf, &offsets));
            assert_eq!(packed, via_command, "{}: {argv:?}", case["id"]);
            let want = recorded(&case);
            if let Some(w) = &want {
                assert_eq!(&packed, w, "{}: {argv:?}", case["id"]);
            }
            checked.0 += 1;
            let name = argv[0].to_ascii_uppercase();
            let as_num = |r: Result<f64, wasm_bindgen::JsError>| text(r.map(JsValue::from_f64));
            if name == "PFCOUNT" && argv.len() == 2 {
                let typed = as_num(e.pfcount(&argv[1]));
                assert_eq!(typed, via_command, "{}: {argv:?}", case["id"]);
                checked.1 += 1;
            }
            if name == "GETBIT" && argv.len() == 3 {
                if let Ok(off) = argv[2].parse::<i64>() {
                    if (off as f64) as i64 == off {
                        let typed = as_num(e.getbit(&argv[1], off as f64));
                        assert_eq!(typed, via_command, "{}: {argv:?}", case["id"]);
                        checked.2 += 1;
                    }
                }
            }
        }
    }
    assert!(
        checked.0 > 100 && checked.1 > 5 && checked.2 > 5,
        "{checked:?}"
    );
}

#[wasm_bindgen_test]
fn packed_argv_is_checked() {
    let mut e = Engine::new();
    assert!(e.command_packed(b"PING", &[0]).is_err());
    assert!(e.command_packed(b"PING", &[0, 5]).is_err());
    assert!(e.command_packed(b"GETBITk", &[0, 6, 5]).is_err());
    // A non-integer offset gets Redis' own error, as through command().
    let want = text(e.command(&jv(&Array::of3(
        &"GETBIT".into(),
        &"k".into(),
        &"1.5".into(),
    ))));
    let got = text(e.getbit("k", 1.5).map(JsValue::from_f64));
    assert_eq!(got, want);
    assert!(got.starts_with("ERR:ERR bit offset"), "{got}");
    // Integers are written without allocation (number_arg): the edges of Redis' offset range
    // (0 … 2^32 − 1), negatives, −0 and 2^53 answer as command() with String(n).
    e.command(&jv(&Array::of4(
        &"SETBIT".into(),
        &"k".into(),
        &"7".into(),
        &"1".into(),
    )))
    .unwrap();
    for (n, s) in [
        (0.0, "0"),
        (-0.0, "0"),
        (7.0, "7"),
        (8.0, "8"),
        (-1.0, "-1"),
        (-10.0, "-10"),
        (4294967295.0, "4294967295"),
        (4294967296.0, "4294967296"),
        (9007199254740991.0, "9007199254740991"),
        (9007199254740992.0, "9007199254740992"),
    ] {
        let want = text(e.command(&jv(&Array::of3(&"GETBIT".into(), &"k".into(), &s.into()))));
        let got = text(e.getbit("k", n).map(JsValue::from_f64));
        assert_eq!(got, want, "getbit(k, {n})");
    }
}

/// The strings of the bulk argv test: quote, backslash, control characters,
/// multi-byte UTF-8, a surrogate pair, and lone surrogates (which wasm-bindgen's per-element
/// `as_string` turns into U+FFFD).
fn awkward_strings() -> Vec<JsValue> {
    let mut v: Vec<JsValue> = [
        "plain",
        "",
        "quote\"d",
        "back\\slash",
        "new\nline\ttab\r",
        "\u{1}\u{1f}\u{7f}",
        "/slash/",
        "é ü 中文",
        "emoji 😀",
    ]
    .iter()
    .map(|s| JsValue::from_str(s))
    .collect();
    v.push(js_sys::JsString::from_char_code(&[0x61, 0xd800, 0x62]).into());
    v.push(js_sys::JsString::from_char_code(&[0xdc00]).into());
    v.push(js_sys::JsString::from_char_code(&[0xd83d, 0xde00, 0xd83d]).into());
    v.extend((0..40).map(|i| JsValue::from_str(&format!("visitor:{i}"))));
    v
}

fn raw_get(e: &mut Engine, key: &str) -> Vec<u8> {
    let argv = Array::of2(&"GET".into(), &key.into());
    let v = e.command_raw(&jv(&argv)).expect("GET");
    v.dyn_ref::<js_sys::Uint8Array>().expect("bytes").to_vec()
}

/// An argv of 8 or more strings is converted in bulk (joined and encoded once); the registers it
/// sets must be those of the same strings converted one by one (forced by a trailing
/// `Uint8Array`, which the bulk path declines), and those of `pfaddBatch` with the strings'
/// UTF-8 (lone surrogates as U+FFFD).
#[wasm_bindgen_test]
fn bulk_string_argv_equals_per_element_conversion() {
    let strings = awkward_strings();
    let mut e = Engine::new();
    let bulk = Array::of2(&"PFADD".into(), &"bulk".into());
    let slow = Array::of2(&"PFADD".into(), &"slow".into());
    for s in &strings {
        bulk.push(s);
        slow.push(s);
    }
    slow.push(&js_sys::Uint8Array::new_with_length(0));
    let mut utf8 = Vec::new();
    let mut offsets = vec![0u32];
    for s in &strings {
        utf8.extend_from_slice(s.as_string().expect("a string").as_bytes());
        offsets.push(utf8.len() as u32);
    }
    utf8.extend_from_slice(b"");
    offsets.push(utf8.len() as u32);
    assert_eq!(text(e.command(&jv(&bulk))), "1");
    assert_eq!(text(e.command(&jv(&slow))), "1");
    assert_eq!(
        e.pfadd_batch("batch".into(), &utf8, &offsets)
            .map_err(|e| message(e.into()))
            .expect("pfaddBatch"),
        1.0
    );
    let want = raw_get(&mut e, "slow");
    assert_eq!(raw_get(&mut e, "bulk"), want);
    assert_eq!(raw_get(&mut e, "batch"), want);
    // Again: nothing changes, 0 through every path.
    assert_eq!(text(e.command(&jv(&bulk))), "0");
    // U+FFFD for the lone surrogates, as as_string gives them.
    assert!(utf8.windows(3).any(|w| w == "\u{fffd}".as_bytes()));
}

/// Non-string elements in a long argv keep the per-element conversion and its errors: a
/// number is its `String(n)` text, a `Date` and `null` are rejected; an element holding
/// U+0000 (the bulk path's separator) is still one argument.
#[wasm_bindgen_test]
fn bulk_argv_declines_non_strings() {
    let mut e = Engine::new();
    let with = |last: JsValue| {
        let a = Array::of2(&"PFADD".into(), &"k".into());
        for i in 0..10 {
            a.push(&JsValue::from_str(&format!("e{i}")));
        }
        a.push(&last);
        a
    };
    let n = text(e.command(&jv(&with(JsValue::from_f64(12.0)))));
    assert_eq!(n, "1");
    // "12" is already in: the number was added as its text.
    assert_eq!(text(e.command(&jv(&with("12".into())))), "0");
    let date = js_sys::Date::new(&JsValue::from_f64(0.0));
    assert_eq!(
        text(e.command(&jv(&with(date.into())))),
        "ERR:argument 12 is not a string, number or Uint8Array"
    );
    assert_eq!(
        text(e.command(&jv(&with(JsValue::NULL)))),
        "ERR:argument 12 is not a string, number or Uint8Array"
    );
    // "a\0b" is one element (not "a" and "b"): the registers equal pfaddBatch's with it.
    assert_eq!(text(e.command(&jv(&with("a\0b".into())))), "1");
    assert_eq!(text(e.command(&jv(&with("a\0b".into())))), "0");
    let mut f = Engine::new();
    let via_batch = f
        .pfadd_batch(
            "k".into(),
            b"e0e1e2e3e4e5e6e7e8e912a\0b",
            &[0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 25],
        )
        .map_err(|e| message(e.into()))
        .expect("pfaddBatch");
    assert_eq!(via_batch, 1.0);
    assert_eq!(raw_get(&mut f, "k"), raw_get(&mut e, "k"));
}

/// BITPOS's SIMD block skip (`bitmap::simd::skip_blocks`: 128-byte pairs, then 64-byte
/// blocks, then bytes) against a bit-by-bit scan, on strings whose first wanted bit sits at
/// every distance from a block edge.
#[wasm_bindgen_test]
fn bitpos_block_skip_matches_a_bit_scan() {
    let naive = |s: &[u8], bit: bool| -> i64 {
        (0..s.len() * 8)
            .find(|&i| (s[i / 8] >> (7 - i % 8)) & 1 == bit as u8)
            .map_or(-1, |i| i as i64)
    };
    let mut rng = fastrand::Rng::with_seed(29);
    let mut e = Engine::new();
    for round in 0..400 {
        let run = if round < 300 {
            round
        } else {
            rng.usize(0..3000)
        };
        for (fill, bit) in [(0xFFu8, false), (0x00u8, true)] {
            let mut s = vec![fill; run];
            // Then one byte holding the wanted bit somewhere, then random bytes.
            let wanted = 1u8 << rng.u32(0..8);
            s.push(if bit { wanted } else { !wanted });
            s.extend((0..rng.usize(0..300)).map(|_| rng.u8(..)));
            e.set_string(JsValue::from_str("k"), &s).unwrap();
            let argv = Array::of3(
                &"BITPOS".into(),
                &"k".into(),
                &(if bit { "1" } else { "0" }).into(),
            );
            let got = e.command(&jv(&argv)).unwrap().as_f64().unwrap() as i64;
            assert_eq!(got, naive(&s, bit), "run {run}, bit {bit}");
        }
    }
}
