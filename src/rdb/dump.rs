//! Splitting DUMP payloads, whole or as they arrive in pieces.
//!
//! A DUMP payload (the reply of Redis / Valkey `DUMP key`, the input of `RESTORE`) is:
//!
//! ```text
//! +-----------+----------------------------+------------------+------------------+
//! | type byte | value encoding (as in RDB) | RDB version u16  | CRC-64 u64       |
//! | 1 byte    | n bytes                    | little-endian    | little-endian,   |
//! |           |                            | (1..15 Redis,    | of every byte    |
//! |           |                            |  80.. Valkey)    | before it        |
//! +-----------+----------------------------+------------------+------------------+
//! ```
//!
//! [`DumpSplitter`] is the one splitter: [`dump_parts`] feeds it a whole payload; an exporter
//! copying a value from a live server feeds it the pieces as they arrive, so a large value is
//! never held whole.

use super::format::{Format, ValueKind};
use super::{Crc64Digest, ErrorDetail, RdbError, CRC64};

/// A DUMP payload split into its parts (see [`dump_parts`]).
#[derive(Debug, Clone, Copy)]
pub struct DumpParts<'a> {
    /// The type byte (byte 0).
    pub type_byte: u8,
    /// What the type byte means in the payload's format.
    pub kind: ValueKind,
    /// The value's encoding (after the type byte, before the trailer).
    pub body: &'a [u8],
    /// The format named by the 2-byte RDB version of the trailer (1–15 Redis, 80–81 Valkey).
    pub format: Format,
}

/// Splits and checks a DUMP payload: type byte + value + 2-byte little-endian RDB version +
/// CRC-64. Errors (offset in the payload) when it is too short
/// ([`super::RdbErrorKind::Truncated`]), its version is one bitlens does not read
/// ([`super::RdbErrorKind::UnsupportedVersion`]), (when `verify_checksum`) its CRC-64 does not match
/// ([`super::RdbErrorKind::Checksum`]), or its type byte is not a type of that format
/// ([`super::RdbErrorKind::UnknownType`]), in that order.
pub fn dump_parts(payload: &[u8], verify_checksum: bool) -> Result<DumpParts<'_>, RdbError> {
    let mut split = DumpSplitter::new(payload.len() as u64, verify_checksum)?;
    let piece = split.feed(payload)?;
    let format = split.finish()?;
    let t = payload[0];
    let kind = format.value_kind(t).ok_or_else(|| {
        RdbError::new(
            0,
            ErrorDetail::UnknownType {
                byte: t,
                format,
                dump: true,
            },
        )
    })?;
    Ok(DumpParts {
        type_byte: t,
        kind,
        body: piece.body,
        format,
    })
}

/// [`dump_parts`] as (type byte, value encoding, RDB version).
pub fn split_dump(payload: &[u8], verify_checksum: bool) -> Result<(u8, &[u8], u16), RdbError> {
    let p = dump_parts(payload, verify_checksum)?;
    Ok((p.type_byte, p.body, p.format.version as u16))
}

/// The profile of the server that wrote a DUMP payload, as far as the payload tells: the
/// oldest server writing its trailer's RDB version ([`crate::dialect::Profile::for_rdb_version`]; a payload
/// names no server). `None` when `payload` is no DUMP payload (the CRC is not checked).
pub fn dump_writer(payload: &[u8]) -> Option<&'static crate::dialect::Profile> {
    let (_, _, version) = split_dump(payload, false).ok()?;
    Some(crate::dialect::Profile::for_rdb_version(u32::from(version)))
}

/// What one piece fed to a [`DumpSplitter`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DumpPiece<'a> {
    /// The type byte, in the piece that holds byte 0 of the payload.
    pub type_byte: Option<u8>,
    /// The part of the value encoding in this piece (possibly empty).
    pub body: &'a [u8],
}

/// A DUMP payload of a known length split as it arrives in pieces (see the module docs).
///
/// # Examples
/// ```
/// use bitlens::rdb::{dump_string, DumpSplitter};
///
/// let payload = dump_string(b"hello", 10);
/// let mut split = DumpSplitter::new(payload.len() as u64, true)?;
/// let mut body = Vec::new();
/// for piece in payload.chunks(3) {
///     body.extend_from_slice(split.feed(piece)?.body);
/// }
/// assert_eq!(split.finish()?.version, 10);
/// assert_eq!(body, [5, b'h', b'e', b'l', b'l', b'o']); // string length 5, then the bytes
/// # Ok::<(), bitlens::rdb::RdbError>(())
/// ```
pub struct DumpSplitter {
    len: u64,
    off: u64,
    digest: Option<Crc64Digest>,
    trailer: [u8; 10],
}

impl DumpSplitter {
    /// A splitter for a payload of `len` bytes; `verify_checksum` hashes the pieces to check
    /// the CRC-64 in [`DumpSplitter::finish`]. Errors when `len` is below 11 bytes.
    pub fn new(len: u64, verify_checksum: bool) -> Result<DumpSplitter, RdbError> {
        if len < 11 {
            return Err(RdbError::new(0, ErrorDetail::DumpTooShort { len }));
        }
        Ok(DumpSplitter {
            len,
            off: 0,
            digest: verify_checksum.then(|| CRC64.digest()),
            trailer: [0; 10],
        })
    }

    /// Takes the next piece: returns the type byte (in the first piece) and the value bytes
    /// it holds; keeps the trailer. Errors when the pieces exceed the announced length.
    pub fn feed<'a>(&mut self, data: &'a [u8]) -> Result<DumpPiece<'a>, RdbError> {
        let start = self.off;
        let end = start + data.len() as u64;
        if end > self.len {
            return Err(RdbError::new(
                self.len,
                ErrorDetail::DumpTooLong { len: self.len },
            ));
        }
        let slice = |a: u64, b: u64| {
            &data[(a.clamp(start, end) - start) as usize..(b.clamp(start, end) - start) as usize]
        };
        if let Some(d) = &mut self.digest {
            d.update(slice(0, self.len - 8));
        }
        let body_end = self.len - 10;
        let tail = slice(body_end, self.len);
        let at = (start.max(body_end) - body_end) as usize;
        self.trailer[at..at + tail.len()].copy_from_slice(tail);
        self.off = end;
        Ok(DumpPiece {
            type_byte: (start == 0 && !data.is_empty()).then(|| data[0]),
            body: slice(1, body_end),
        })
    }

    /// Checks that the whole payload arrived, that bitlens reads its RDB version and (when
    /// asked) its CRC-64, and returns the format the version names. Errors as
    /// [`dump_parts`] (offsets in the payload).
    pub fn finish(self) -> Result<Format, RdbError> {
        let n = self.len;
        if self.off != n {
            return Err(RdbError::new(
                self.off,
                ErrorDetail::DumpCut {
                    at: self.off,
                    len: n,
                },
            ));
        }
        let version = u16::from_le_bytes([self.trailer[0], self.trailer[1]]);
        let format = Format::from_dump_version(version)
            .map_err(|m| RdbError::new(n - 10, ErrorDetail::DumpVersion(m)))?;
        let stored = u64::from_le_bytes(self.trailer[2..].try_into().expect("8 bytes"));
        if let Some(d) = self.digest {
            let actual = d.finalize();
            if actual != stored {
                return Err(RdbError::new(
                    n - 8,
                    ErrorDetail::Crc {
                        stored,
                        actual,
                        dump: true,
                    },
                ));
            }
        }
        Ok(format)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dump_payload_names_the_oldest_writer_of_its_rdb_version() {
        use crate::dialect::Profile;
        for version in [9u16, 10, 11, 12] {
            let payload = crate::rdb::dump_string(b"v", version);
            let p = dump_writer(&payload).expect("a payload");
            assert_eq!(p.name, Profile::for_rdb_version(u32::from(version)).name);
        }
        assert_ne!(
            dump_writer(&crate::rdb::dump_string(b"v", 9)).unwrap().name,
            dump_writer(&crate::rdb::dump_string(b"v", 11))
                .unwrap()
                .name
        );
        // A corrupt CRC still names the writer; bytes that are no payload name none.
        let mut bad = crate::rdb::dump_string(b"v", 11);
        let last = bad.len() - 1;
        bad[last] ^= 0xff;
        assert!(dump_writer(&bad).is_some());
        assert!(dump_writer(b"").is_none());
        assert!(dump_writer(b"plain text").is_none());
    }
    use crate::rdb::dump_string;

    #[test]
    fn pieces_give_what_the_whole_gives() {
        let value: Vec<u8> = (0..5000u32).map(|i| (i * 7919 % 251) as u8).collect();
        let payload = dump_string(&value, 10);
        let whole = dump_parts(&payload, true).unwrap();
        for piece in [1, 3, 9, 10, 11, 64, 4096, payload.len()] {
            let mut s = DumpSplitter::new(payload.len() as u64, true).unwrap();
            let (mut t, mut body) = (None, Vec::new());
            for p in payload.chunks(piece) {
                let got = s.feed(p).unwrap();
                t = t.or(got.type_byte);
                body.extend_from_slice(got.body);
            }
            assert_eq!(s.finish().unwrap(), whole.format, "{piece}");
            assert_eq!(
                (t, &body[..]),
                (Some(whole.type_byte), whole.body),
                "{piece}"
            );
        }
    }

    #[test]
    fn errors_name_kind_and_offset() {
        use crate::rdb::RdbErrorKind;
        let payload = dump_string(b"value", 10);
        let n = payload.len();
        let e = DumpSplitter::new(10, true).err().unwrap();
        assert_eq!((e.kind, e.offset), (RdbErrorKind::Truncated, 0));
        let mut s = DumpSplitter::new(n as u64, true).unwrap();
        s.feed(&payload[..n - 1]).unwrap();
        let e = s.finish().unwrap_err();
        assert_eq!(e.kind, RdbErrorKind::Truncated);
        assert_eq!(
            *e.detail,
            ErrorDetail::DumpCut {
                at: n as u64 - 1,
                len: n as u64
            }
        );
        assert!(e
            .to_string()
            .ends_with(&format!("DUMP payload cut at {} of {n} bytes", n - 1)));
        let mut s = DumpSplitter::new(n as u64 - 1, true).unwrap();
        assert_eq!(s.feed(&payload).unwrap_err().kind, RdbErrorKind::Corrupt);
        let mut bad = payload.clone();
        bad[2] ^= 1;
        let e = dump_parts(&bad, true).unwrap_err();
        assert_eq!((e.kind, e.offset), (RdbErrorKind::Checksum, n as u64 - 8));
        assert!(dump_parts(&bad, false).is_ok());
        let e = dump_parts(&dump_string(b"v", 16), true).unwrap_err();
        assert_eq!(e.kind, RdbErrorKind::UnsupportedVersion);
        let mut unknown = dump_string(b"v", 10);
        unknown[0] = 99;
        let e = dump_parts(&unknown, false).unwrap_err();
        assert_eq!((e.kind, e.offset), (RdbErrorKind::UnknownType, 0));
    }
}
