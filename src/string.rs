//! The Redis string value. Redis stores bitmaps and HyperLogLogs as plain strings; bitlens keeps
//! their bytes exactly as Redis does (bit 0 = most significant bit of byte 0). Integer-encoded
//! strings are held as their decimal text, which is what every string command acts on.
//!
//! The representation is private so that the bitmap engine can keep very sparse strings without
//! materialising their full length (issue 3); callers use the accessors below.

use std::borrow::Cow;

/// A Redis string value (binary safe). Length is in bytes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RedisString {
    bytes: Vec<u8>,
}

impl RedisString {
    /// A string holding exactly `bytes`.
    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        RedisString { bytes }
    }

    /// Length in bytes, as Redis STRLEN.
    pub fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// True when the string has zero bytes.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The full byte content (may materialise a sparse string).
    pub fn as_bytes(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(&self.bytes)
    }

    /// Mutable access to the full byte content (a sparse string becomes dense).
    pub fn bytes_mut(&mut self) -> &mut Vec<u8> {
        &mut self.bytes
    }

    /// Consumes the value and returns its bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}
