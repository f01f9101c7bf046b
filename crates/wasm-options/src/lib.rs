//! Reading a JS options object (`{ top: 5, allocator: 'libc' }`) as a serde type, for the glue
//! of both wasm modules (`crates/wasm`'s options, `crates/wasm-charts`' chart style; wasm32
//! only). serde's own errors do not say which field is wrong: on failure each field of the
//! object is read again alone (every field of these types is optional), and the first that
//! fails is named (`options.top: invalid type: string "five", expected u32`). Only the error
//! path pays for that, with the same deserialisation code.

#![cfg(target_arch = "wasm32")]

use std::fmt;

use serde::de::DeserializeOwned;
use wasm_bindgen::{JsCast, JsValue};

/// Why an options object cannot be read: `what` (the argument's name, `options` or `style`),
/// the field at fault when one is, and serde's reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionError {
    /// The argument's name.
    pub what: &'static str,
    /// The field that cannot be read (`None`: the object as a whole).
    pub field: Option<String>,
    /// What is wrong (`invalid type: string "five", expected u32`, `must be an object`).
    pub reason: String,
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.field {
            Some(field) => write!(f, "{}.{field}: {}", self.what, self.reason),
            None if self.reason == "must be an object" => {
                write!(f, "{} {}", self.what, self.reason)
            }
            None => write!(f, "{}: {}", self.what, self.reason),
        }
    }
}

impl std::error::Error for OptionError {}

/// `value` (an object whose fields are all optional) read as `T`; `what` names the argument
/// in the error.
pub fn read<T: DeserializeOwned>(value: &JsValue, what: &'static str) -> Result<T, OptionError> {
    let error = |field, reason| OptionError {
        what,
        field,
        reason,
    };
    if !value.is_object() {
        return Err(error(None, "must be an object".to_string()));
    }
    serde_wasm_bindgen::from_value(value.clone()).map_err(|whole| {
        let object: &js_sys::Object = value.unchecked_ref();
        for name in js_sys::Object::keys(object).iter() {
            let alone = js_sys::Object::new();
            let field = js_sys::Reflect::get(object, &name).unwrap_or_default();
            let _ = js_sys::Reflect::set(&alone, &name, &field);
            if let Err(e) = serde_wasm_bindgen::from_value::<T>(alone.into()) {
                return error(name.as_string(), serde_text(&e));
            }
        }
        error(None, serde_text(&whole))
    })
}

/// A `serde-wasm-bindgen` error as text: serde's own words (`invalid type: string "x",
/// expected u32`), without the JS `Error: ` prefix; a JS `TypeError` met while reading (a
/// string where a list is expected) as `invalid type (...)`.
fn serde_text(e: &serde_wasm_bindgen::Error) -> String {
    let text = e.to_string();
    if let Some(rest) = text.strip_prefix("TypeError: ") {
        return format!("invalid type ({rest})");
    }
    text.strip_prefix("Error: ").unwrap_or(&text).to_string()
}
