//! Shared helpers of the wasm32 test files (`mod wasm_common;` in each).

use wasm_bindgen::{JsCast, JsValue};

/// The message of the JS `Error` an Engine method threw (panics when it is not an `Error`).
#[allow(dead_code)] // not every test file checks an error
pub fn error_message(e: impl Into<JsValue>) -> String {
    let v: JsValue = e.into();
    v.dyn_into::<js_sys::Error>()
        .expect("a JS Error")
        .message()
        .into()
}

/// `bytes` as the `Uint8Array` a page passes to `Engine.loadRdb`.
#[allow(dead_code)] // not every test file loads an RDB
pub fn u8a(bytes: &[u8]) -> JsValue {
    js_sys::Uint8Array::from(bytes).into()
}
