//! Shared helpers of the wasm32 test files (`mod wasm_common;` in each).

use wasm_bindgen::{JsCast, JsValue};

/// The message of the JS `Error` an Engine method threw (panics when it is not an `Error`).
pub fn error_message(e: impl Into<JsValue>) -> String {
    let v: JsValue = e.into();
    v.dyn_into::<js_sys::Error>()
        .expect("a JS Error")
        .message()
        .into()
}
