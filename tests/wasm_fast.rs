//! The typed fast paths of the JavaScript API (`src/wasm_fast.rs`: `pfcount`, `getbit`,
//! `commandPacked`), run in headless Chromium by wasm-bindgen-test-runner
//! (`cargo test --target wasm32-unknown-unknown -p bitlens --test wasm_fast`).
//!
//! Every recorded case of the bitmaps and hll conformance sets (replies real Redis 7.0.15
//! sent, tests/data/conformance) goes through `commandPacked`; the single-key PFCOUNT and
//! GETBIT cases also through `pfcount` / `getbit`. Each answer must equal the recorded reply
//! (the integer, or the error text thrown) and what `command()` answers.
#![cfg(target_arch = "wasm32")]

use bitlens::wasm::Engine;
use js_sys::Array;
use serde_json::Value as Json;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const SETS: &[(&[u8], &str)] = &[
    (
        include_bytes!("data/conformance/bitmaps/dump.rdb"),
        include_str!("data/conformance/bitmaps/cases.jsonl"),
    ),
    (
        include_bytes!("data/conformance/hll/dump.rdb"),
        include_str!("data/conformance/hll/cases.jsonl"),
    ),
];

/// A thrown value's message.
fn message(v: JsValue) -> String {
    v.dyn_into::<js_sys::Error>()
        .expect("a JS Error")
        .message()
        .into()
}

/// A result as comparable text: the value's JSON, or `ERR:` and the thrown message.
fn text(r: Result<JsValue, wasm_bindgen::JsError>) -> String {
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
        e.load_rdb(rdb, None, JsValue::UNDEFINED)
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
            let via_command = text(e.command(&arr));
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
    let want = text(e.command(&Array::of3(&"GETBIT".into(), &"k".into(), &"1.5".into())));
    let got = text(e.getbit("k", 1.5).map(JsValue::from_f64));
    assert_eq!(got, want);
    assert!(got.starts_with("ERR:ERR bit offset"), "{got}");
}
