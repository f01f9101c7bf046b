//! Typed fast paths of the JavaScript API (wasm32 only): single-key commands and an argv
//! passed as one encoded buffer, so that a call from JS does not pay for converting an
//! `Array` of strings element by element.
//!
//! Where the time of `engine.command(['PFCOUNT', k])` goes (measured in Node, see
//! `bench/run.mjs`): the command itself takes about 0.1 µs; the rest is the boundary: the
//! argv `Array` is read element by element (one JS call per `Array.get`, one per
//! `JsValue::as_string`, each string copied through a fresh allocation), plus the reply
//! conversion. The methods here take `&str` / numbers / one byte buffer, which wasm-bindgen
//! passes with one copy and no per-element calls, and run exactly the same command path, so
//! their replies are those of [`Engine::command`] byte for byte.

use wasm_bindgen::prelude::*;

use super::{reply_to_js, throw, Engine};
use bitlens::reply::Reply;

/// Decimal text of a JS number as a command argument: integers exactly (as `String(n)`
/// writes them below 2^53), written into `buf` with no allocation; other values as Rust
/// writes them, which the command rejects with the same error Redis gives any non-integer
/// offset.
fn number_arg(n: f64, buf: &mut [u8; 24]) -> std::borrow::Cow<'_, [u8]> {
    if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
        let mut v = (n as i64).unsigned_abs();
        let mut i = buf.len();
        loop {
            i -= 1;
            buf[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        if n < 0.0 {
            i -= 1;
            buf[i] = b'-';
        }
        std::borrow::Cow::Borrowed(&buf[i..])
    } else {
        std::borrow::Cow::Owned(n.to_string().into_bytes())
    }
}

/// The reply as a count, or Redis' error thrown.
fn count(reply: Reply) -> Result<f64, JsError> {
    match reply {
        Reply::Integer(n) => Ok(n as f64),
        other => match reply_to_js(&other, false) {
            Err(e) => Err(e),
            Ok(_) => Err(throw("unexpected non-integer reply")),
        },
    }
}

#[wasm_bindgen]
impl Engine {
    /// `PFCOUNT key` for one key, as a number: the same reply as
    /// `command(['PFCOUNT', key])` (Redis' errors thrown), without the argv `Array`.
    pub fn pfcount(&mut self, key: &str) -> Result<f64, JsError> {
        // The handler's own single-key path, without building an argv (same reply).
        count(bitlens::command::hll::pfcount_one(
            self.session.keyspace_mut(),
            key.as_bytes(),
        ))
    }

    /// `GETBIT key offset`, as a number (0 or 1): the same reply as
    /// `command(['GETBIT', key, offset])` (Redis' errors thrown, e.g. for an offset that is
    /// not an integer in range).
    pub fn getbit(&mut self, key: &str, offset: f64) -> Result<f64, JsError> {
        let mut buf = [0u8; 24];
        let offset = number_arg(offset, &mut buf);
        count(bitlens::command::bitmap::getbit_of(
            self.ks(),
            key.as_bytes(),
            &offset,
        ))
    }

    /// Runs one command whose arguments are packed in one buffer: argument i is
    /// `args[offsets[i]..offsets[i + 1]]` (bytes), so `offsets` holds one more entry than
    /// there are arguments. The reply is that of `command` for the same arguments
    /// (error replies thrown). Throws when `offsets` is empty, decreases or points past `args`.
    #[wasm_bindgen(js_name = commandPacked, unchecked_return_type = "Reply")]
    pub fn command_packed(&mut self, args: &[u8], offsets: &[u32]) -> Result<JsValue, JsError> {
        if offsets.len() < 2 {
            return Err(throw("commandPacked: offsets must hold at least 2 entries"));
        }
        if let Some(i) = offsets.windows(2).position(|w| w[0] > w[1]) {
            return Err(throw(format!(
                "commandPacked: offsets[{}] = {} is below offsets[{i}] = {}",
                i + 1,
                offsets[i + 1],
                offsets[i]
            )));
        }
        let last = offsets[offsets.len() - 1] as usize;
        if last > args.len() {
            return Err(throw(format!(
                "commandPacked: offset {last} is past the {} argument bytes",
                args.len()
            )));
        }
        let argv: Vec<Vec<u8>> = offsets
            .windows(2)
            .map(|w| args[w[0] as usize..w[1] as usize].to_vec())
            .collect();
        let reply = self.execute(&argv);
        reply_to_js(&reply, false)
    }
}

/// Arrays shorter than this keep the per-element conversion (two or three arguments cost
/// less that way than one more JS call).
const BULK_ARGV_MIN: u32 = 8;

/// The JS side of [`bulk_string_argv`]: `null` unless every element is a primitive string,
/// else the elements joined with U+0000 and encoded by one `TextEncoder.encode` (UTF-8, lone
/// surrogates as U+FFFD, as wasm-bindgen's `as_string` gives them). The loop and the encode
/// run in JS at JIT speed; only the one `Uint8Array` crosses into wasm.
const PACK_STRINGS_JS: &str = "const enc = new TextEncoder(); return function (a) { \
    for (let i = 0; i < a.length; i++) if (typeof a[i] !== 'string') return null; \
    return enc.encode(a.join('\\0')); };";

#[wasm_bindgen]
extern "C" {
    /// `Function(body)`: throws (caught) where a content security policy forbids it.
    #[wasm_bindgen(js_name = Function, catch)]
    fn js_function(body: &str) -> Result<js_sys::Function, JsValue>;
}

thread_local! {
    /// The packing function, made once; `None` where `Function` is not allowed.
    static PACK_STRINGS: Option<js_sys::Function> = js_function(PACK_STRINGS_JS)
        .ok()
        .and_then(|factory| factory.call0(&JsValue::UNDEFINED).ok())
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
}

/// Every element of `argv` as bytes when all of them are JS strings, converted in bulk.
///
/// Why: wasm-bindgen converts an `Array` element by element: one `Array.get`, one
/// `as_string` (which copies the string into wasm char by char in JS, `passStringToWasm0`)
/// and one allocation per element, about 0.3–1 µs each in Node, so `PFADD` of 1,000 elements
/// spent ~90 % of its time there (bench/pfadd.mjs). Here the elements are joined with U+0000
/// and encoded in JS in one go, copied once, and split at the zero bytes.
///
/// `None` (the caller converts element by element, with its own errors) when `argv` is short,
/// holds anything but primitive strings (numbers, `Uint8Array`s, holes), an element holds
/// U+0000 (the zero bytes would not split it right), or `Function` is forbidden.
pub(crate) fn bulk_string_argv(argv: &js_sys::Array) -> Option<PackedArgv> {
    let n = argv.length();
    if n < BULK_ARGV_MIN {
        return None;
    }
    let packed = PACK_STRINGS.with(|f| f.as_ref()?.call1(&JsValue::UNDEFINED, argv).ok())?;
    let bytes = packed.dyn_into::<js_sys::Uint8Array>().ok()?.to_vec();
    let mut ranges = Vec::with_capacity(n as usize);
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == 0 {
            ranges.push((start, i));
            start = i + 1;
        }
    }
    ranges.push((start, bytes.len()));
    (ranges.len() == n as usize).then_some(PackedArgv { bytes, ranges })
}

/// Command arguments in one buffer (no allocation per argument): argument i is
/// `bytes[ranges[i].0..ranges[i].1]`; at least [`BULK_ARGV_MIN`] of them.
pub(crate) struct PackedArgv {
    bytes: Vec<u8>,
    ranges: Vec<(usize, usize)>,
}

impl PackedArgv {
    /// The number of arguments.
    pub(crate) fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Argument `i` (< `len()`).
    pub(crate) fn arg(&self, i: usize) -> &[u8] {
        let (a, b) = self.ranges[i];
        &self.bytes[a..b]
    }

    /// Every argument as its own `Vec`, for the generic command path.
    pub(crate) fn to_vecs(&self) -> Vec<Vec<u8>> {
        (0..self.len()).map(|i| self.arg(i).to_vec()).collect()
    }
}
