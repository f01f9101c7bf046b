//! `Engine.pfaddBatch` (all elements in one buffer) against `PFADD` through `Engine.command`:
//! the same replies, the same HyperLogLog bytes (sparse, across the sparse-to-dense promotion,
//! and dense), and the same errors. Runs in Node:
//! `cargo test --release --target wasm32-unknown-unknown -p bitlens --test wasm_pfadd_batch`.
#![cfg(target_arch = "wasm32")]

mod wasm_common;

use bitlens_wasm::Engine;
use js_sys::{Array, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use wasm_common::error_message;

/// A random element: empty, binary, text with a counter, or UTF-8.
fn element(r: &mut fastrand::Rng, i: usize) -> Vec<u8> {
    match r.u8(0..5) {
        0 => Vec::new(),
        1 => {
            let n = r.usize(0..40);
            (0..n).map(|_| r.u8(..)).collect()
        }
        2 => format!("user:{}", r.u32(0..1_000_000)).into_bytes(),
        3 => format!("访客-{i}-é").into_bytes(),
        _ => r.u32(0..100_000).to_string().into_bytes(),
    }
}

/// `PFADD key element...` through the generic command path (elements as Uint8Array).
fn pfadd_command(e: &mut Engine, key: &str, elements: &[Vec<u8>]) -> Result<f64, String> {
    let argv = Array::new();
    argv.push(&JsValue::from_str("PFADD"));
    argv.push(&JsValue::from_str(key));
    for el in elements {
        argv.push(&Uint8Array::from(el.as_slice()));
    }
    e.command(&argv)
        .map(|v| v.as_f64().expect("a number"))
        .map_err(error_message)
}

fn pfadd_batch(e: &mut Engine, key: &str, elements: &[Vec<u8>]) -> Result<f64, String> {
    let mut buf = Vec::new();
    let mut offsets = vec![0u32];
    for el in elements {
        buf.extend_from_slice(el);
        offsets.push(buf.len() as u32);
    }
    e.pfadd_batch(JsValue::from_str(key), &buf, &offsets)
        .map_err(error_message)
}

/// The key's raw bytes (GET), or None when missing.
fn get(e: &mut Engine, key: &str) -> Option<Vec<u8>> {
    let argv: Array = [JsValue::from_str("GET"), JsValue::from_str(key)]
        .into_iter()
        .collect();
    let v = e.command_raw(&argv).unwrap();
    v.dyn_ref::<Uint8Array>().map(|a| a.to_vec())
}

#[wasm_bindgen_test]
fn batch_equals_pfadd_through_sparse_promotion_and_dense() {
    let mut r = fastrand::Rng::with_seed(0x9e37_79b9);
    let (mut a, mut b) = (Engine::new(), Engine::new());
    // Batch sizes chosen to stay sparse, cross the 3000-byte promotion, then work dense.
    let mut ones = 0;
    for (round, n) in [0usize, 1, 5, 60, 300, 1200, 2500, 4000, 20_000, 3, 0]
        .into_iter()
        .enumerate()
    {
        let elements: Vec<Vec<u8>> = (0..n).map(|i| element(&mut r, i)).collect();
        let want = pfadd_command(&mut a, "h", &elements).unwrap();
        let got = pfadd_batch(&mut b, "h", &elements).unwrap();
        assert_eq!(got, want, "reply of round {round} ({n} elements)");
        ones += want as usize;
        let bytes = get(&mut a, "h").expect("key exists");
        assert_eq!(
            get(&mut b, "h"),
            Some(bytes.clone()),
            "bytes after round {round}"
        );
        // The same elements again change nothing.
        assert_eq!(pfadd_batch(&mut b, "h", &elements).unwrap(), 0.0);
        assert_eq!(get(&mut b, "h"), Some(bytes));
    }
    assert!(ones >= 6, "most rounds changed a register");
    // The header says dense (encoding byte 0) after the large rounds.
    assert_eq!(get(&mut b, "h").unwrap()[4], 0);
    let count = |e: &mut Engine| {
        let argv: Array = [JsValue::from_str("PFCOUNT"), JsValue::from_str("h")]
            .into_iter()
            .collect();
        e.command(&argv).unwrap().as_f64().unwrap()
    };
    assert_eq!(count(&mut a), count(&mut b));
}

#[wasm_bindgen_test]
fn empty_batch_creates_the_key_like_pfadd() {
    let (mut a, mut b) = (Engine::new(), Engine::new());
    assert_eq!(pfadd_command(&mut a, "k", &[]).unwrap(), 1.0);
    assert_eq!(pfadd_batch(&mut b, "k", &[]).unwrap(), 1.0);
    assert_eq!(get(&mut a, "k"), get(&mut b, "k"));
    assert_eq!(pfadd_batch(&mut b, "k", &[]).unwrap(), 0.0);
    // No offsets at all is no element too.
    assert_eq!(
        b.pfadd_batch(JsValue::from_str("k2"), &[], &[]).unwrap(),
        1.0
    );
    assert_eq!(get(&mut b, "k2"), get(&mut a, "k"));
}

#[wasm_bindgen_test]
fn errors_are_those_of_pfadd() {
    let (mut a, mut b) = (Engine::new(), Engine::new());
    for e in [&mut a, &mut b] {
        e.set_string(JsValue::from_str("s"), b"not an hll").unwrap();
    }
    let want = pfadd_command(&mut a, "s", &[b"x".to_vec()]).unwrap_err();
    assert_eq!(
        want,
        "WRONGTYPE Key is not a valid HyperLogLog string value."
    );
    assert_eq!(
        pfadd_batch(&mut b, "s", &[b"x".to_vec()]).unwrap_err(),
        want
    );
    // A corrupt sparse body (opcodes that do not add up to 16384 registers).
    let mut corrupt = b"HYLL".to_vec();
    corrupt.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x7f]);
    for e in [&mut a, &mut b] {
        e.set_string(JsValue::from_str("c"), &corrupt).unwrap();
    }
    let want = pfadd_command(&mut a, "c", &[b"x".to_vec()]).unwrap_err();
    assert_eq!(
        pfadd_batch(&mut b, "c", &[b"x".to_vec()]).unwrap_err(),
        want
    );
    assert!(want.starts_with("INVALIDOBJ"), "{want}");
}

#[wasm_bindgen_test]
fn bad_offsets_throw() {
    let mut e = Engine::new();
    let msg = error_message(
        e.pfadd_batch(JsValue::from_str("h"), b"abc", &[0, 2, 1])
            .unwrap_err(),
    );
    assert!(
        msg.contains("offsets[2] = 1 is below offsets[1] = 2"),
        "{msg}"
    );
    let msg = error_message(
        e.pfadd_batch(JsValue::from_str("h"), b"abc", &[0, 4])
            .unwrap_err(),
    );
    assert!(
        msg.contains("offset 4 is past the 3 element bytes"),
        "{msg}"
    );
    assert_eq!(get(&mut e, "h"), None, "nothing was added");
}
