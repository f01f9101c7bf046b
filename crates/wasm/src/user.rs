//! The user-id → bit-offset rule of [`bitlens::analytics::userid`] for the panel's user lookup
//! (wasm32 only). Applications that key bitmaps by a string user id (the state-statistics
//! guide's `getIndexFromUserId`, seed 000) set bit `Math.abs(userId.hashCode())` in Java; the
//! panel asks this function for that offset rather than re-implementing the hash in JS.

use wasm_bindgen::prelude::*;

use bitlens::analytics::userid::java_abs_hash_offset;

/// The bit offset Java's `Math.abs(id.hashCode())` gives for `id` (hashed over its UTF-16
/// code units, as `java.lang.String.hashCode`), as a number in `0..=2^31 − 1`; `undefined` for
/// the ids whose hash is `Integer.MIN_VALUE`, where Java's result stays negative and is no bit
/// offset.
#[wasm_bindgen(js_name = javaUserOffset)]
pub fn java_user_offset(id: &str) -> Option<f64> {
    java_abs_hash_offset(id).map(|o| o as f64)
}
