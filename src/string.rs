//! The Redis string value. Redis stores bitmaps and HyperLogLogs as plain strings; bitlens keeps
//! their bytes exactly as Redis does (bit 0 = most significant bit of byte 0). Integer-encoded
//! strings are held as their decimal text, which is what every string command acts on.
//!
//! The representation is private so that the bitmap engine can keep very sparse strings without
//! materialising their full length (issue 3); callers use the accessors below. The bit-level
//! methods (`get_bit`, `count_bits`, `find_bit`, ...) answer without materialising.

use std::borrow::Cow;

use crate::bitmap::{self, BitOp};

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

    /// Bytes `[start, end]` (inclusive, clamped to the string), as GETRANGE after its index
    /// conversion.
    pub fn range(&self, start: u64, end: u64) -> Vec<u8> {
        let len = self.len();
        if start > end || start >= len {
            return Vec::new();
        }
        let end = end.min(len - 1);
        self.bytes[start as usize..=end as usize].to_vec()
    }

    /// The bit at `offset` (0 past the end), as GETBIT.
    pub fn get_bit(&self, offset: u64) -> bool {
        bitmap::get_bit(&self.bytes, offset)
    }

    /// Set bits in the whole string.
    pub fn popcount(&self) -> u64 {
        bitmap::popcount(&self.bytes)
    }

    /// Set bits in the inclusive bit range `[start_bit, end_bit]` (bits past the end are 0).
    pub fn count_bits(&self, start_bit: u64, end_bit: u64) -> u64 {
        bitmap::count_bits(&self.bytes, start_bit, end_bit)
    }

    /// First bit equal to `bit` in the inclusive bit range, not looking past the end.
    pub fn find_bit(&self, bit: bool, start_bit: u64, end_bit: u64) -> Option<u64> {
        bitmap::find_bit(&self.bytes, bit, start_bit, end_bit)
    }

    /// Grows the string with zero bytes so that bit `max_bit` exists (Redis pads strings this
    /// way before SETBIT / BITFIELD writes).
    pub fn grow_to_bit(&mut self, max_bit: u64) {
        let need = (max_bit >> 3) as usize + 1;
        if self.bytes.len() < need {
            self.bytes.resize(need, 0);
        }
    }

    /// Sets bit `offset` (growing the string as needed) and returns the previous bit, as SETBIT.
    pub fn set_bit(&mut self, offset: u64, value: bool) -> bool {
        self.grow_to_bit(offset);
        bitmap::set_bit(&mut self.bytes, offset, value)
    }

    /// The unsigned `bits`-bit field at bit `offset` (bits past the end read as 0).
    pub fn read_field(&self, offset: u64, bits: u32) -> u64 {
        bitmap::read_field(&self.bytes, offset, bits)
    }

    /// Writes the low `bits` bits of `value` at bit `offset`, growing the string as needed.
    pub fn write_field(&mut self, offset: u64, bits: u32, value: u64) {
        self.grow_to_bit(offset + bits as u64 - 1);
        bitmap::write_field(&mut self.bytes, offset, bits, value)
    }

    /// BITOP `op` over `srcs` (`None` = missing key, read as empty). The result's length is the
    /// longest source's. `srcs` must not be empty.
    pub fn bitop(op: BitOp, srcs: &[Option<&RedisString>]) -> RedisString {
        let slices: Vec<&[u8]> = srcs
            .iter()
            .map(|s| s.map_or(&[][..], |s| s.bytes.as_slice()))
            .collect();
        RedisString::from_bytes(bitmap::bitop(op, &slices))
    }
}
