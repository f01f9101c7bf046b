//! Redis RDB files and DUMP payloads (to be filled in by the RDB work).
//!
//! The API below is fixed so that other modules can build against it.

use std::collections::BTreeMap;
use std::fmt;

use crate::keyspace::Keyspace;

/// A decoding error: what went wrong, at which byte offset of the input, and in which key
/// when known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RdbError {
    /// Byte offset in the input where the problem was detected.
    pub offset: u64,
    /// The key being decoded, when known.
    pub key: Option<Vec<u8>>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for RdbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte offset {}", self.offset)?;
        if let Some(k) = &self.key {
            write!(f, " (key {:?})", String::from_utf8_lossy(k))?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for RdbError {}

/// Options for [`load_rdb`].
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Verify the CRC-64 trailer when it is not zero (default true).
    pub verify_checksum: bool,
    /// Only keys matching one of these Redis globs are materialised; empty = all keys.
    pub patterns: Vec<Vec<u8>>,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            verify_checksum: true,
            patterns: Vec::new(),
        }
    }
}

/// A decoded RDB file.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// The 4-digit RDB version from the header.
    pub version: u32,
    /// Aux fields (`redis-ver`, `ctime`, ...), in file order.
    pub aux: Vec<(Vec<u8>, Vec<u8>)>,
    /// Databases by number.
    pub databases: BTreeMap<u64, Keyspace>,
}

/// Decodes a whole RDB file.
pub fn load_rdb(_bytes: &[u8], _opts: &LoadOptions) -> Result<Snapshot, RdbError> {
    Err(RdbError {
        offset: 0,
        key: None,
        message: "RDB reader not implemented yet".into(),
    })
}
