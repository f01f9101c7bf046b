//! What a file is, by its content: an RDB file (magic `REDIS` + 4 digits or `VALKEY` + 3
//! digits), a DUMP payload (a type byte valid in the format its 2-byte RDB version names, and a
//! CRC-64 trailer that matches), raw `GET` bytes (anything else), or nothing at all.
//!
//! The magic decides first: a header that looks like an RDB one but names a version bitlens
//! does not read is reported as such ([`Detected::UnsupportedRdb`]), not as raw bytes. A DUMP
//! payload is only recognised when its CRC-64 matches, so random bytes are not mistaken for
//! one.

use super::format::{Format, ValueKind, Writer};
use super::CRC64;

/// What [`detect`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detected {
    /// Zero bytes.
    Empty,
    /// An RDB file of this format.
    Rdb(Format),
    /// Starts like an RDB file (`REDIS` or `VALKEY`) but its header is not one bitlens reads;
    /// the header's error says why (e.g. a version newer than bitlens knows).
    UnsupportedRdb(super::FormatError),
    /// A DUMP payload: its format (from the trailer's RDB version) and value kind.
    Dump {
        /// The format the trailer's RDB version names.
        format: Format,
        /// What the type byte means in that format.
        kind: ValueKind,
    },
    /// Anything else: taken as the raw bytes of a string value.
    Raw,
}

impl Detected {
    /// A short description: `empty file`, `an RDB file (REDIS0010)`, `a DUMP payload
    /// (Valkey RDB 80, RDB_TYPE_STRING)`, `raw bytes`.
    pub fn describe(&self) -> String {
        match self {
            Detected::Empty => "empty file".into(),
            Detected::Rdb(f) => format!("an RDB file ({})", f.magic()),
            Detected::UnsupportedRdb(m) => format!("an RDB file bitlens cannot read: {m}"),
            Detected::Dump { format, kind } => {
                format!("a DUMP payload ({format}, {})", kind.name())
            }
            Detected::Raw => "raw bytes".into(),
        }
    }
}

/// Tells an RDB file, a DUMP payload, raw bytes and an empty input apart by content (see the
/// module docs). Reads at most the first 9 bytes and, for a DUMP candidate, hashes the input.
pub fn detect(bytes: &[u8]) -> Detected {
    if bytes.is_empty() {
        return Detected::Empty;
    }
    let head = &bytes[..bytes.len().min(9)];
    let rdb_like = (head.starts_with(b"REDIS") || head.starts_with(b"VALKEY"))
        && head.len() == 9
        && head[5..].iter().filter(|b| b.is_ascii_digit()).count() >= 3;
    if rdb_like {
        return match Format::from_magic(head) {
            Ok(f) => Detected::Rdb(f),
            Err(m) => Detected::UnsupportedRdb(m),
        };
    }
    if let Some((format, kind)) = dump_of(bytes) {
        return Detected::Dump { format, kind };
    }
    Detected::Raw
}

/// What a file is and who wrote it: [`detect`] plus, for an RDB file, the writer read from its
/// header and leading aux fields ([`super::peek_writer`]). This is what the wasm
/// `snapshotInfo` reports.
#[derive(Debug, Clone, PartialEq)]
pub struct Identity {
    /// What [`detect`] found.
    pub detected: Detected,
    /// The writer of an RDB file whose header and leading aux fields could be read.
    pub writer: Option<Writer>,
    /// Why an RDB file's header or aux fields could not be read, or why its header is not one
    /// bitlens reads ([`Detected::UnsupportedRdb`]).
    pub error: Option<String>,
}

impl Identity {
    /// The kind as a short name: `rdb`, `unsupported-rdb`, `dump`, `raw` or `empty`.
    pub fn kind(&self) -> &'static str {
        match &self.detected {
            Detected::Empty => "empty",
            Detected::Rdb(_) => "rdb",
            Detected::UnsupportedRdb(_) => "unsupported-rdb",
            Detected::Dump { .. } => "dump",
            Detected::Raw => "raw",
        }
    }

    /// The format of an RDB file or DUMP payload (`None` for raw, empty or unsupported input).
    pub fn format(&self) -> Option<Format> {
        match &self.detected {
            Detected::Rdb(f) | Detected::Dump { format: f, .. } => Some(*f),
            _ => None,
        }
    }
}

/// Identifies a file by content (see [`Identity`]). For an RDB file only the header and the
/// leading aux fields are read.
///
/// # Examples
/// ```
/// let id = bitlens::rdb::identify(b"REDIS0011\xff");
/// assert_eq!(id.kind(), "rdb");
/// assert_eq!(bitlens::rdb::identify(b"hello").kind(), "raw");
/// ```
pub fn identify(bytes: &[u8]) -> Identity {
    let detected = detect(bytes);
    let (writer, error) = match &detected {
        Detected::Rdb(_) => match super::peek_writer(bytes) {
            Ok(w) => (Some(w), None),
            Err(e) => (None, Some(e.to_string())),
        },
        Detected::UnsupportedRdb(m) => (None, Some(m.to_string())),
        _ => (None, None),
    };
    Identity {
        detected,
        writer,
        error,
    }
}

fn dump_of(bytes: &[u8]) -> Option<(Format, ValueKind)> {
    let n = bytes.len();
    if n < 11 {
        return None;
    }
    let version = u16::from_le_bytes([bytes[n - 10], bytes[n - 9]]);
    let format = Format::from_dump_version(version).ok()?;
    let kind = format.value_kind(bytes[0])?;
    let stored = u64::from_le_bytes(bytes[n - 8..].try_into().ok()?);
    (CRC64.checksum(&bytes[..n - 8]) == stored).then_some((format, kind))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rdb::{dump_string, RdbWriter};

    #[test]
    fn kinds_by_content() {
        assert_eq!(detect(b""), Detected::Empty);
        let rdb = RdbWriter::new(Vec::new(), 10).unwrap().finish().unwrap();
        assert_eq!(detect(&rdb), Detected::Rdb(Format::redis(10)));
        assert_eq!(detect(&rdb).describe(), "an RDB file (REDIS0010)");
        assert_eq!(detect(b"VALKEY080\xff"), Detected::Rdb(Format::VALKEY_9));
        assert!(matches!(
            detect(b"REDIS0099"),
            Detected::UnsupportedRdb(crate::rdb::FormatError::TooNew { version: 99, .. })
        ));
        assert!(detect(b"REDIS0099").describe().contains("99"));
        let d = dump_string(b"hello", 80);
        assert_eq!(
            detect(&d),
            Detected::Dump {
                format: Format::VALKEY_9,
                kind: ValueKind::String
            }
        );
        let mut bad = d.clone();
        bad[3] ^= 1;
        assert_eq!(detect(&bad), Detected::Raw);
        assert_eq!(detect(b"\x00\x01hello world"), Detected::Raw);
        assert_eq!(detect(b"REDIS"), Detected::Raw);
    }
}
