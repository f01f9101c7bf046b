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
///
/// The object is first copied into plain objects and arrays ([`plain`]: own string-keyed
/// fields, functions and typed arrays kept as they are) through catching reads, so that a
/// getter or a Proxy trap that throws is an [`OptionError`] naming the field. serde's reads
/// catch nothing: a JS exception thrown inside them would unwind through the wasm frames and
/// leave the engine's borrow flag set, making the engine unusable.
pub fn read<T: DeserializeOwned>(value: &JsValue, what: &'static str) -> Result<T, OptionError> {
    let error = |field, reason| OptionError {
        what,
        field,
        reason,
    };
    if !value.is_object() || value.is_function() {
        return Err(error(None, "must be an object".to_string()));
    }
    let copy = plain(value, 0).map_err(|(field, e)| {
        let reason = e
            .dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .or_else(|| e.as_string())
            .unwrap_or_else(|| "a read threw".to_string());
        error(field, format!("cannot be read ({reason})"))
    })?;
    // Only on the copy: `isArray` throws on a revoked Proxy.
    if js_sys::Array::is_array(&copy) {
        return Err(error(None, "must be an object".to_string()));
    }
    read_unguarded(&copy, what).map_err(|e| OptionError {
        reason: tidy(&e.reason),
        ..e
    })
}

/// As [`read`], without the catching copy: for functions that hold no state (the chart
/// module's), where a getter that throws only unwinds through the read (leaking what the read
/// allocated) and breaks no object.
pub fn read_unguarded<T: DeserializeOwned>(
    value: &JsValue,
    what: &'static str,
) -> Result<T, OptionError> {
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

/// How deep [`plain`] copies (the options are at most two levels deep).
const MAX_DEPTH: u32 = 4;

/// The most elements an array of the options may have (a list of patterns or file names).
const MAX_ITEMS: u32 = 1 << 20;

/// `value` copied into plain objects and arrays, reading every field with `Reflect` (which
/// catches): a read that throws is `Err((the top-level field, the thrown value))`. Functions,
/// typed arrays and values deeper than [`MAX_DEPTH`] are kept as they are; symbol keys are
/// dropped.
fn plain(value: &JsValue, depth: u32) -> Result<JsValue, (Option<String>, JsValue)> {
    if !value.is_object() || value.is_function() || depth > MAX_DEPTH {
        return Ok(value.clone());
    }
    // First, as it catches a revoked Proxy (which `isView` and `isArray` would throw on).
    let keys = js_sys::Reflect::own_keys(value).map_err(|e| (None, e))?;
    if js_sys::ArrayBuffer::is_view(value) {
        return Ok(value.clone());
    }
    let field = |name: &JsValue| (depth == 0).then(|| name.as_string()).flatten();
    if js_sys::Array::is_array(value) {
        let length = js_sys::Reflect::get(value, &"length".into()).map_err(|e| (None, e))?;
        let length = length.as_f64().unwrap_or(0.0);
        if length > MAX_ITEMS as f64 {
            let e = js_sys::Error::new(&format!("more than {MAX_ITEMS} elements"));
            return Err((None, e.into()));
        }
        let out = js_sys::Array::new();
        for i in 0..length as u32 {
            let item = js_sys::Reflect::get_u32(value, i).map_err(|e| (None, e))?;
            out.push(&plain(&item, depth + 1)?);
        }
        return Ok(out.into());
    }
    let out = js_sys::Object::new();
    for name in keys.iter().filter(JsValue::is_string) {
        let item = js_sys::Reflect::get(value, &name).map_err(|e| (field(&name), e))?;
        let item = plain(&item, depth + 1).map_err(|(f, e)| (f.or_else(|| field(&name)), e))?;
        let _ = js_sys::Reflect::set(&out, &name, &item);
    }
    Ok(out.into())
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

/// serde-wasm-bindgen names a JS value it has no serde name for by its Rust Debug text
/// (`invalid type: JsValue(Object({"libc":null})), expected a string`): `text` with that
/// said in words (`invalid type: an object, expected a string`). Only [`read`] does it (the
/// chart module's size bound has no room for it).
fn tidy(text: &str) -> String {
    const DEBUG: &str = "invalid type: JsValue(";
    match (text.find(DEBUG), text.rfind("), expected ")) {
        (Some(at), Some(end)) if end > at => {
            let shown = &text[at + DEBUG.len()..end];
            let kind = if shown.starts_with("Object(") {
                "an object"
            } else if shown.starts_with('[') {
                "an array"
            } else if shown.ends_with('n') {
                "a BigInt"
            } else {
                "a JS value of another type"
            };
            format!("{}invalid type: {kind}{}", &text[..at], &text[end + 1..])
        }
        _ => text.to_string(),
    }
}
