//! Interop with the portable Roaring bitmap serialization format (the one the Java, Go and C
//! implementations share; decoded and encoded by the `roaring` crate). Value `v` of the Roaring
//! set is bit offset `v` of the Redis string (Redis numbering: byte `v / 8`, mask
//! `0x80 >> (v % 8)`); the string is as long as Redis would make it with SETBIT of the highest
//! value (`max / 8 + 1` bytes; an empty set gives an empty string).

use roaring::RoaringBitmap;

use crate::string::RedisString;

/// A malformed Roaring payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoaringError(pub String);

impl std::fmt::Display for RoaringError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid Roaring bitmap: {}", self.0)
    }
}

impl std::error::Error for RoaringError {}

/// The portable format's first 4 bytes, little-endian: `SERIAL_COOKIE_NO_RUNCONTAINER`
/// (12346, then a 4-byte container count) or, in the low 16 bits, `SERIAL_COOKIE` (12347,
/// the high 16 bits the container count minus one), as the Roaring format specification
/// (RoaringFormatSpec) defines them.
const SERIAL_COOKIE_NO_RUNCONTAINER: u32 = 12346;
const SERIAL_COOKIE: u16 = 12347;

/// Decodes a serialized (portable format) Roaring bitmap into a bitmap string, sparse when
/// that pays, without allocating the full string length for sparse data. Errors say what is
/// wrong: an empty input, a start that is not the format's cookie (the first bytes shown in
/// hex), a payload shorter than its header and containers announce, bytes after the bitmap,
/// or what the decoder found otherwise.
pub fn from_roaring(bytes: &[u8]) -> Result<RedisString, RoaringError> {
    let hex = |b: &[u8]| {
        b.iter()
            .map(|x| format!("{x:02x}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    if bytes.is_empty() {
        return Err(RoaringError(
            "empty input (a portable-format Roaring bitmap starts with a 4-byte cookie)".into(),
        ));
    }
    let head = &bytes[..bytes.len().min(4)];
    let cookie_ok = bytes.len() >= 4 && {
        let c = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        c == SERIAL_COOKIE_NO_RUNCONTAINER || c as u16 == SERIAL_COOKIE
    };
    if !cookie_ok {
        return Err(RoaringError(format!(
            "not the portable Roaring format: it starts with {}, not the cookie 3a 30 00 00 \
             (no run containers) or 3b 30 (with run containers)",
            hex(head)
        )));
    }
    let mut rest = bytes;
    let rb = RoaringBitmap::deserialize_from(&mut rest).map_err(|e| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            RoaringError(format!(
                "truncated: its header and containers need more than the {} bytes given",
                bytes.len()
            ))
        } else {
            RoaringError(format!("at a container of the {} bytes: {e}", bytes.len()))
        }
    })?;
    if !rest.is_empty() {
        return Err(RoaringError(format!(
            "{} bytes follow the bitmap's {} bytes",
            rest.len(),
            bytes.len() - rest.len()
        )));
    }
    let len = rb.max().map_or(0, |m| m as u64 / 8 + 1);
    Ok(RedisString::from_sparse_bits(len, rb.iter().map(u64::from)))
}

/// Encodes the set bits of a bitmap string as a portable-format Roaring bitmap. Fails only
/// for a bit at offset 2^32 or above (Roaring values are 32-bit; Redis never sets such bits,
/// but a BITFIELD write near the last offset can).
pub fn to_roaring(s: &RedisString) -> Result<Vec<u8>, RoaringError> {
    let mut rb = RoaringBitmap::new();
    let mut run: Vec<u32> = Vec::with_capacity(4096);
    let mut too_far = None;
    s.for_each_set_bit(|b| {
        let Ok(v) = u32::try_from(b) else {
            too_far.get_or_insert(b);
            return;
        };
        run.push(v);
        if run.len() == run.capacity() {
            rb.append(run.drain(..))
                .expect("bits come in increasing order");
        }
    });
    if let Some(b) = too_far {
        return Err(RoaringError(format!(
            "bit offset {b} does not fit a 32-bit Roaring value"
        )));
    }
    rb.append(run).expect("bits come in increasing order");
    rb.optimize();
    let mut out = Vec::with_capacity(rb.serialized_size());
    rb.serialize_into(&mut out)
        .expect("writing to a Vec cannot fail");
    Ok(out)
}
