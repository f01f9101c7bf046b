//! Redis RDB files and DUMP payloads: reading ([`load_rdb`], [`load_dump`], [`visit_rdb`]) and
//! writing ([`RdbWriter`]).
//!
//! # File layout
//! ```text
//! +-----------------+--------------------------------------------+-----+-------------+
//! | magic + version | records ...                                | EOF | CRC-64      |
//! | REDIS0011       | (opcode | type byte) ...                   | ff  | u64 LE      |
//! | VALKEY080       |                                            |     | (RDB >= 5)  |
//! +-----------------+--------------------------------------------+-----+-------------+
//!   9 bytes: `REDIS` + 4 digits (1..=15) or `VALKEY` + 3 digits (80..)
//!
//! record = opcode byte + its fields, or  type byte + key string + value encoding
//!
//!   fa AUX           string name, string value        (redis-ver, ctime, used-mem, ...)
//!   fe SELECTDB      length db
//!   fb RESIZEDB      length keys, length keys-with-expiry
//!   fd EXPIRETIME    u32 LE seconds   } prefix the next key
//!   fc EXPIRETIME_MS u64 LE millis    }
//!   f8 IDLE length / f9 FREQ u8       } (LRU / LFU, prefix the next key)
//!   f7 MODULE_AUX    length module id, when-opcode, module data
//!   f5/f6 FUNCTION   library code     f4 SLOT_INFO   slot id, size, expires size
//!   f3 KEY_META (Redis 8) / SLOT_IMPORT (Valkey)      f2 HASH_TEMPLATES (Redis 8.x)
//!   0..=25 (and Valkey's own ids) a value type: RDB_TYPE_STRING 0, RDB_TYPE_LIST 1, ...
//! ```
//! Which byte means what depends on the writer family and version: one table per family in
//! [`format`](mod@format) ([`Format::opcode`], [`Format::value_kind`]). The CRC-64 is Jones, reflected
//! ([`crc64()`]), over every byte before it; 0 means "not computed".
//!
//! # Length encoding
//! ```text
//! 00xxxxxx                       6-bit length (0..63)
//! 01xxxxxx yyyyyyyy              14-bit length, big-endian
//! 10000000 + u32 BE              32-bit length
//! 10000001 + u64 BE              64-bit length
//! 11xxxxxx                       special string encoding xxxxxx (below), not a length
//! ```
//! Every length is checked against the remaining input before anything is allocated
//! (`Cursor::count`).
//!
//! # String encodings
//! ```text
//! length n, then n raw bytes
//! c0 + i8                        integer (RDB_ENC_INT8), loaded as its decimal text
//! c1 + i16 LE                    integer (RDB_ENC_INT16)
//! c2 + i32 LE                    integer (RDB_ENC_INT32)
//! c3 + length clen, length ulen, clen bytes of LZF data (RDB_ENC_LZF; see [`lzf`])
//! ```
//! Aggregate values are built from these: counts and strings, or one string holding a
//! listpack / ziplist / intset / zipmap blob (decoded by `crate::encoded`).
//!
//! # DUMP payloads
//! One value (type byte + encoding) followed by the 2-byte little-endian RDB version and the
//! CRC-64 of everything before it (see [`DumpSplitter`]).
//!
//! # Values
//! Strings and sorted sets are decoded into [`Value::String`] / [`Value::ZSet`]; lists, sets,
//! hashes and streams into [`Value::List`] / [`Value::Set`] / [`Value::Hash`] /
//! [`Value::Stream`], their embedded listpacks, ziplists, intsets and zipmaps validated once
//! and kept as bytes (`values`); module values are walked and kept as [`Value::Other`] (or
//! [`Value::Module`] for the RedisBloom types). Bad input yields an [`RdbError`] with its
//! [`RdbErrorKind`], the byte offset and key, never a panic; no allocation exceeds what the
//! input's size justifies.
//!
//! # Examples
//! ```
//! use bitlens::rdb::{load_rdb, LoadOptions, RdbWriter};
//! use bitlens::{execute, Reply};
//!
//! // A file with one bitmap key, as SETBIT would leave it, then its BITCOUNT.
//! let mut w = RdbWriter::new(Vec::new(), 11)?;
//! w.select_db(0)?;
//! w.write_string(b"stats:active:20240501", &[0b1010_0000, 0xff], None)?;
//! let file = w.finish()?;
//! let mut snap = load_rdb(&file, &LoadOptions::default())?;
//! let ks = snap.databases.get_mut(&0).unwrap();
//! let argv = [b"BITCOUNT".to_vec(), b"stats:active:20240501".to_vec()];
//! assert_eq!(execute(ks, &argv), Reply::Integer(10));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bulk;
pub mod crc64;
pub mod detect;
mod dump;
mod error;
pub mod format;
mod input;
pub mod lzf;
#[cfg(test)]
pub(crate) mod mutate;
mod offload;
#[cfg(not(target_arch = "wasm32"))]
mod parallel;
mod push;
mod reader;
pub mod union;
mod values;
mod writer;

pub use crate::encoded::{
    blobs, intset, listpack, ziplist, zipmap, BlobError, BlobErrorKind, Item,
};
pub use detect::{detect, identify, Detected, Identity};
pub use dump::{dump_parts, dump_writer, split_dump, DumpParts, DumpPiece, DumpSplitter};
pub use error::{ErrorDetail, WrongKind};
pub use format::{type_info, Family, Format, FormatError, Opcode, ValueKind, Writer};
pub use input::ChunkSource;
pub use offload::{LzfSpan, MAX_LZF_JOB_BYTES};
pub use push::{FeedProgress, RdbFeeder, RecordSink, PUSH_BYTES};
pub use reader::module_name;
pub use union::{find_duplicate, union, DuplicateKey, OnDuplicate, UnionBuilder};
pub use writer::{dump_string, RdbWriter};

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use crate::keyspace::{Keyspace, Value};
use crate::string::{RedisString, StringBuilder};
use input::{ChunkedInput, Input, SliceInput};
use reader::Cursor;

/// The oldest Redis RDB version bitlens reads (Redis 1.x; Redis 7.4 still loads it).
pub const MIN_VERSION: u32 = format::REDIS_MIN_VERSION;
/// The newest Redis RDB version bitlens reads (Redis 8.10). Valkey's own format is
/// [`format::VALKEY_MIN_VERSION`] to [`format::VALKEY_MAX_VERSION`].
pub const MAX_VERSION: u32 = format::REDIS_MAX_VERSION;

/// The CRC-64 used by RDB files and DUMP payloads (see [`crc64`]: 4-lane slice-by-8).
pub(crate) static CRC64: crc64::Crc64Engine = crc64::Crc64Engine;

/// A running [`CRC64`].
pub(crate) type Crc64Digest = crc64::Crc64;

/// The CRC-64 of `bytes` as RDB files and DUMP payloads store it (Redis' CRC-64/Jones,
/// reflected, init 0: `crc::CRC_64_REDIS`); the check value of `123456789` is
/// `0xe9c6d914c4b8d9ca`.
///
/// # Examples
/// ```
/// assert_eq!(bitlens::rdb::crc64(b"123456789"), 0xe9c6_d914_c4b8_d9ca);
/// ```
pub fn crc64(bytes: &[u8]) -> u64 {
    CRC64.checksum(bytes)
}

/// Continues a CRC-64 over more bytes: `crc64_update(crc64(a), b) == crc64(a ++ b)`, and
/// `crc64_update(0, b) == crc64(b)`, for hashing a stream piece by piece.
///
/// # Examples
/// ```
/// use bitlens::rdb::{crc64, crc64_update};
/// assert_eq!(crc64_update(crc64(b"1234"), b"56789"), crc64(b"123456789"));
/// ```
pub fn crc64_update(crc: u64, bytes: &[u8]) -> u64 {
    // Reflected with no final XOR: the register is the CRC itself.
    crc64::update(crc, bytes)
}

/// What kind of problem an [`RdbError`] is, for callers that act on it (more kinds may come).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RdbErrorKind {
    /// The input ends inside a structure (header, length, string, value, trailer).
    Truncated,
    /// Not a header bitlens reads: bad magic, or an RDB / DUMP version it does not know.
    UnsupportedVersion,
    /// The CRC-64 trailer does not match the content.
    Checksum,
    /// A value type byte the file's (or payload's) format does not define.
    UnknownType,
    /// A record or encoding bitlens knows of but does not read (hash templates, pre-GA
    /// modules, unknown module opcodes).
    Unsupported,
    /// A structure that is not what the format allows (bad length or encoding byte, corrupt
    /// blob or LZF data, duplicate member, bytes after a value, ...).
    Corrupt,
    /// A DUMP payload whose format cannot go into the file being written.
    Incompatible,
    /// The input source failed (a chunked reader's I/O error).
    Read,
    /// Writing the output failed.
    Write,
    /// The progress callback stopped the load.
    Cancelled,
    /// A string longer than the load's limit on one value ([`LoadOptions::max_value_bytes`]:
    /// Redis' `proto-max-bulk-len`, 512 MiB, by default), refused before anything is
    /// allocated for it.
    TooLarge,
}

impl RdbErrorKind {
    /// The kind's stable name, as front ends report it (the wasm engine's `Error.kind`):
    /// `truncated`, `unsupported-version`, `checksum`, `unknown-type`, `unsupported`,
    /// `corrupt`, `incompatible`, `read`, `write`, `cancelled` or `too-large`.
    pub fn name(self) -> &'static str {
        match self {
            RdbErrorKind::Truncated => "truncated",
            RdbErrorKind::UnsupportedVersion => "unsupported-version",
            RdbErrorKind::Checksum => "checksum",
            RdbErrorKind::UnknownType => "unknown-type",
            RdbErrorKind::Unsupported => "unsupported",
            RdbErrorKind::Corrupt => "corrupt",
            RdbErrorKind::Incompatible => "incompatible",
            RdbErrorKind::Read => "read",
            RdbErrorKind::Write => "write",
            RdbErrorKind::Cancelled => "cancelled",
            RdbErrorKind::TooLarge => "too-large",
        }
    }
}

/// A decoding error: its kind, at which byte offset of the input, in which key when known,
/// and what is wrong as data ([`ErrorDetail`], whose variant implies the kind); `Display`
/// builds the text: `at byte offset N (key K): ` and the detail's words.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RdbError {
    /// What kind of problem it is (the detail's [`ErrorDetail::kind`]).
    pub kind: RdbErrorKind,
    /// Byte offset in the input where the problem was detected.
    pub offset: u64,
    /// The key being decoded, when known.
    pub key: Option<Vec<u8>>,
    /// What is wrong, with its values (shared: an error stays small in every `Result` of the
    /// reader, and a clone copies no detail).
    pub detail: std::sync::Arc<ErrorDetail>,
    /// The typed error underneath, when there is one ([`std::error::Error::source`] returns
    /// it): the blob codec's, the LZF decoder's or the reader's I/O error.
    pub cause: Option<Box<RdbErrorCause>>,
}

impl RdbError {
    /// The error `detail` (of its kind) at byte `offset`, with no key yet.
    #[cold]
    #[inline(never)]
    pub fn new(offset: u64, detail: ErrorDetail) -> RdbError {
        RdbError {
            kind: detail.kind(),
            offset,
            key: None,
            detail: std::sync::Arc::new(detail),
            cause: None,
        }
    }

    /// The same error with `cause` as its [`std::error::Error::source`].
    pub fn with_cause(mut self, cause: RdbErrorCause) -> RdbError {
        self.cause = Some(Box::new(cause));
        self
    }

    /// What is wrong in words ([`ErrorDetail`]'s text, naming the cause of a read or write
    /// error), without the offset and key that `Display` puts first.
    pub fn describe(&self) -> String {
        struct Words<'a>(&'a RdbError);
        impl fmt::Display for Words<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                error::write_detail(&self.0.detail, self.0.cause.as_deref(), f)
            }
        }
        Words(self).to_string()
    }

    /// The stable code front ends report it by: the kind's [`RdbErrorKind::name`]
    /// (`truncated`, `checksum`...), except for an input that is empty, whose code is `empty`.
    pub fn code(&self) -> &'static str {
        match *self.detail {
            ErrorDetail::NotRdb(WrongKind::Empty) => "empty",
            _ => self.kind.name(),
        }
    }
}

/// The typed error under an [`RdbError`]: what a lower layer reported before the reader put
/// it at a file offset (and key) in its message.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum RdbErrorCause {
    /// A listpack, ziplist, intset or zipmap blob failed validation; its offset is within
    /// the blob (decompressed, when the blob was an LZF string).
    Blob(BlobError),
    /// LZF data failed to decompress; its offset is within the compressed data.
    Lzf(lzf::LzfError),
    /// The input could not be read, or the output written (shared: an error is `Clone`).
    Io(std::sync::Arc<std::io::Error>),
}

impl RdbErrorCause {
    fn as_error(&self) -> &(dyn std::error::Error + 'static) {
        match self {
            RdbErrorCause::Blob(e) => e,
            RdbErrorCause::Lzf(e) => e,
            RdbErrorCause::Io(e) => e.as_ref(),
        }
    }
}

/// Causes are equal when they are the same typed error; I/O errors when their kind and text
/// are.
impl PartialEq for RdbErrorCause {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (RdbErrorCause::Blob(a), RdbErrorCause::Blob(b)) => a == b,
            (RdbErrorCause::Lzf(a), RdbErrorCause::Lzf(b)) => a == b,
            (RdbErrorCause::Io(a), RdbErrorCause::Io(b)) => {
                a.kind() == b.kind() && a.to_string() == b.to_string()
            }
            _ => false,
        }
    }
}

impl Eq for RdbErrorCause {}

impl From<std::io::Error> for RdbErrorCause {
    fn from(e: std::io::Error) -> Self {
        RdbErrorCause::Io(std::sync::Arc::new(e))
    }
}

impl fmt::Display for RdbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte offset {}", self.offset)?;
        if let Some(k) = &self.key {
            // redis-cli quoting (crate::escape): no raw byte of an untrusted key in a message.
            write!(f, " (key {})", crate::escape::quote(k))?;
        }
        f.write_str(": ")?;
        error::write_detail(&self.detail, self.cause.as_deref(), f)
    }
}

impl std::error::Error for RdbError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause.as_deref().map(RdbErrorCause::as_error)
    }
}

impl RdbError {
    fn with_key(mut self, key: &[u8]) -> Self {
        if self.key.is_none() {
            self.key = Some(key.to_vec());
        }
        self
    }
}

/// Options for [`load_rdb`].
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Verify the CRC-64 trailer when it is not zero (default true).
    pub verify_checksum: bool,
    /// The server whose loader to imitate where loaders differ (refusing what it refuses:
    /// [`crate::dialect::Profile::stream_counts_checked`],
    /// [`crate::dialect::Profile::function_pre_ga`]); `None` (default): as Redis 7.0, which
    /// loads both.
    pub loader: Option<&'static crate::dialect::Profile>,
    /// Only keys matching one of these Redis globs are materialised; empty = all keys.
    pub patterns: Vec<Vec<u8>>,
    /// Only keys of this database are materialised; `None` = every database.
    pub db: Option<u64>,
    /// Threads that decode values (default 1: all on the calling thread). Above 1, native
    /// builds frame runs of key records on the calling thread (lengths only) and decode them
    /// on the current rayon pool (`rayon::ThreadPool::install` picks the pool), except runs of
    /// small records (see [`LoadOptions::parallel_record_bytes`]); records still reach the
    /// visitor one at a time in file order, and every result and error, with its offset and
    /// key, is the one-thread reader's. wasm32 builds ignore it.
    pub threads: usize,
    /// Decode no value (default false): every record's `value` is `None`, as for a key the
    /// patterns do not select, so a pass lists names, types, expiries and offsets at framing
    /// speed. A corrupt value is then found only by a pass that decodes it.
    pub skip_values: bool,
    /// With [`LoadOptions::threads`] above 1, a batch whose key records average fewer bytes
    /// in the file than this is decoded on the calling thread alone, and the reader then
    /// reads the next 16 times its bytes (at most 16 MiB) with the one-thread step, framing
    /// nothing (default 1024; 0: every batch is shared, as tests of the parallel path ask). Small values
    /// decoded on another core reach the visitor out of its cache, which costs more than
    /// their decoding saves: on 3M small keys (the bench's key-heavy file) 2 threads were
    /// slower than one for `query` (1.93 s against 1.84 s) and `inspect --csv` (4.45 s
    /// against 3.56 s).
    pub parallel_record_bytes: usize,
    /// The longest string a load builds, in bytes (default [`DEFAULT_MAX_VALUE_BYTES`],
    /// Redis' own `proto-max-bulk-len` of 512 MiB): a key, a string value, an element of a
    /// collection, an embedded listpack / ziplist / intset / zipmap blob or an aux field whose
    /// length (raw, or declared uncompressed for LZF data) is larger is refused with an
    /// [`RdbErrorKind::TooLarge`] error at the string's first byte, naming its key, before any
    /// byte of it is allocated or decompressed. Values not decoded (keys the patterns or
    /// [`LoadOptions::db`] leave out, [`LoadOptions::skip_values`]) are skipped unchecked.
    /// `u64::MAX`: no limit but the input's (an LZF string expands at most 88 times its
    /// compressed bytes).
    pub max_value_bytes: u64,
}

/// Redis' default `proto-max-bulk-len` (512 MiB, 536,870,912 bytes), the default of
/// [`LoadOptions::max_value_bytes`]: no server built with defaults holds a longer string.
pub const DEFAULT_MAX_VALUE_BYTES: u64 = 512 << 20;

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            verify_checksum: true,
            loader: None,
            patterns: Vec::new(),
            db: None,
            threads: 1,
            skip_values: false,
            parallel_record_bytes: 1024,
            max_value_bytes: DEFAULT_MAX_VALUE_BYTES,
        }
    }
}

impl LoadOptions {
    /// True when `key` is selected by [`LoadOptions::patterns`].
    pub fn selects(&self, key: &[u8]) -> bool {
        self.patterns.is_empty() || self.patterns.iter().any(|p| crate::glob::matches(p, key))
    }

    /// True when `key` of database `db` is selected by [`LoadOptions::db`] and
    /// [`LoadOptions::patterns`].
    /// False for every key under [`LoadOptions::skip_values`].
    pub fn selects_in(&self, db: u64, key: &[u8]) -> bool {
        !self.skip_values && self.db.is_none_or(|d| d == db) && self.selects(key)
    }
}

/// A decoded RDB file.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// The RDB version from the header (same as `format.version`).
    pub version: u32,
    /// The writer family and RDB version from the header.
    pub format: Format,
    /// Aux fields (`redis-ver`, `ctime`, ...), in file order.
    pub aux: Vec<(Vec<u8>, Vec<u8>)>,
    /// Databases by number.
    pub databases: BTreeMap<u64, Keyspace>,
    /// Cluster slot records met ([`Header::slot_infos`]): non-zero for a file a cluster node
    /// of Redis 7.4+ or Valkey 8+ wrote.
    pub slot_infos: u64,
}

impl Snapshot {
    /// Who wrote the file: family, RDB version, `redis-ver` / `valkey-ver` aux fields.
    pub fn writer(&self) -> Writer {
        Writer::new(self.format, &self.aux)
    }

    /// Every key as (database, key, entry), by database then key bytes (for comparing
    /// snapshots).
    pub fn entries(&self) -> Vec<(u64, &[u8], crate::keyspace::EntryRef<'_>)> {
        let mut out: Vec<_> = self
            .databases
            .iter()
            .flat_map(|(&db, ks)| ks.iter().map(move |(k, e)| (db, k, e)))
            .collect();
        out.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        out
    }
}

/// One key record met while reading an RDB file (see [`visit_rdb`]).
#[derive(Debug)]
pub struct Record<'a> {
    /// Database number (from the last SELECTDB; 0 before any).
    pub db: u64,
    /// The key bytes.
    pub key: Cow<'a, [u8]>,
    /// The RDB value type byte as stored (its meaning depends on the file's [`Format`]).
    pub type_byte: u8,
    /// What the type byte means in the file's format.
    pub kind: ValueKind,
    /// The value's encoding as stored in the file: for strings `int`, `lzf` or `raw`; for
    /// other types the container name of the kind (`listpack`, `quicklist(ziplist)`...).
    pub encoding: &'static str,
    /// The decoded value; `None` when the key was not selected by the patterns.
    pub value: Option<Value>,
    /// Absolute expiry, Unix milliseconds.
    pub expire_at_ms: Option<i64>,
    /// The key's LRU idle time, seconds, as RDB_OPCODE_IDLE recorded it (written by servers
    /// with an LRU `maxmemory-policy`); `None` without the opcode.
    pub lru_idle_s: Option<u64>,
    /// The key's LFU counter, as RDB_OPCODE_FREQ recorded it (servers with an LFU
    /// `maxmemory-policy`); `None` without the opcode.
    pub lfu_freq: Option<u8>,
    /// Offset of the type byte in the file.
    pub offset: u64,
    /// Bytes the value's encoding takes in the file (after the key).
    pub value_bytes: u64,
    /// How many keys the file's RESIZEDB record announced for this database (Redis writes
    /// one after each SELECTDB), capped by what the rest of the input can hold at
    /// `MIN_KEY_RECORD_BYTES` (3) bytes a key, and `None` for a filtered load or when the
    /// input's length is not known: a hint for sizing the keyspace once.
    pub db_size_hint: Option<u64>,
}

/// What [`visit_rdb`] found besides key records.
#[derive(Debug, Clone, Default)]
pub struct Header {
    /// RDB version (same as `format.version`).
    pub version: u32,
    /// Writer family and RDB version, from the magic.
    pub format: Format,
    /// Aux fields in file order.
    pub aux: Vec<(Vec<u8>, Vec<u8>)>,
    /// Databases announced by SELECTDB (some may hold no key).
    pub databases: Vec<u64>,
    /// The CRC-64 stored after EOF (0 = the writer did not compute one, or the format
    /// predates checksums: RDB 1–4).
    pub stored_checksum: u64,
    /// Cluster slot records met: Redis 7.4+ RDB_OPCODE_SLOT_INFO records and Valkey 8+
    /// `slot-info` aux fields (one per non-empty slot before its keys: slot, keys, keys with
    /// an expiry). Counted, not kept (in `aux`), as they are per-slot size hints; non-zero
    /// only for a file a cluster node wrote.
    pub slot_infos: u64,
    /// Module type names whose module aux data (RDB_OPCODE_MODULE_AUX) the file holds, in
    /// first-seen order; the data itself is walked and skipped.
    pub module_aux: Vec<[u8; 9]>,
}

/// The most databases a server can be configured with (`databases`, an `int` config of Redis
/// and Valkey): a SELECTDB of this number or above is refused.
pub const MAX_DATABASES: u64 = i32::MAX as u64;

/// The aux field Valkey 8+ writes per cluster slot before that slot's keys.
const SLOT_INFO_AUX: &[u8] = b"slot-info";

impl Header {
    /// Who wrote the file: family, RDB version, `redis-ver` / `valkey-ver` aux fields.
    pub fn writer(&self) -> Writer {
        Writer::new(self.format, &self.aux)
    }
}

/// Reads an RDB file record by record, calling `f` for each key (values materialised only for
/// keys selected by `opts`). Errors from `f` stop the walk and are returned.
pub fn visit_rdb<F>(bytes: &[u8], opts: &LoadOptions, f: F) -> Result<Header, RdbError>
where
    F: for<'r> FnMut(Record<'r>) -> Result<(), RdbError>,
{
    visit_rdb_progress(bytes, opts, &mut |_, _| Ok(()), f)
}

/// Reports progress of a load: called with (bytes read, total bytes) at most every
/// [`PROGRESS_STEP`] bytes of input (between records) and once at the end; an `Err(Stop)`
/// stops the load with an [`RdbErrorKind::Cancelled`] error at the bytes read, whose message
/// is the stop's reason.
pub type Progress<'p> = &'p mut dyn FnMut(u64, u64) -> Result<(), Stop>;

/// Why a [`Progress`] callback stopped a load (a user's cancel, a callback's exception).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stop {
    /// What stopped it, in the caller's words.
    pub reason: String,
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for Stop {}

/// Input bytes between two [`Progress`] calls (1 MiB).
pub const PROGRESS_STEP: u64 = 1 << 20;

/// Raw strings at least this long (1 MiB) that do not fit the chunked reader's window are
/// streamed through it rather than held whole.
const STREAM_STRING_BYTES: u64 = 1 << 20;

/// [`visit_rdb`] reporting progress.
pub fn visit_rdb_progress<F>(
    bytes: &[u8],
    opts: &LoadOptions,
    progress: Progress<'_>,
    f: F,
) -> Result<Header, RdbError>
where
    F: for<'r> FnMut(Record<'r>) -> Result<(), RdbError>,
{
    visit_input(&mut SliceInput::new(bytes), opts, progress, f)
}

/// [`visit_rdb_progress`] over a [`ChunkSource`] read `chunk` bytes (or more) at a time: the
/// reader holds one window of the input plus the record being decoded (a long raw string
/// is streamed, not held), never the whole file. Same records, errors and offsets as the
/// slice reader.
pub fn visit_rdb_chunked<S, F>(
    src: &mut S,
    chunk: usize,
    opts: &LoadOptions,
    progress: Progress<'_>,
    f: F,
) -> Result<Header, RdbError>
where
    S: ChunkSource + ?Sized,
    F: for<'r> FnMut(Record<'r>) -> Result<(), RdbError>,
{
    let mut input = ChunkedInput::new(src, chunk, opts.verify_checksum);
    visit_input(&mut input, opts, progress, f)
}

/// What the opcodes before a key record said of it (RDB_OPCODE_EXPIRETIME(_MS), _IDLE,
/// _FREQ): held until the key record they prefix takes them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct KeyPrefix {
    /// Absolute expiry, Unix milliseconds.
    expire: Option<i64>,
    /// LRU idle time, seconds.
    idle: Option<u64>,
    /// LFU counter.
    freq: Option<u8>,
}

/// Reader state carried from record to record.
#[derive(Clone)]
struct State {
    header: Header,
    db: u64,
    prefix: KeyPrefix,
    /// The current database's RESIZEDB key count, bounded (see [`Record::db_size_hint`]).
    db_size: Option<u64>,
    /// The input's full length when known ([`input::Input::known_len`]).
    known_len: Option<u64>,
}

/// The fewest bytes a key record takes (type byte, 1-byte key length, 1-byte empty string
/// value): a RESIZEDB count is never trusted beyond the remaining input over this.
const MIN_KEY_RECORD_BYTES: u64 = 3;

/// What one record was.
enum Step<'w> {
    /// EOF opcode.
    Eof,
    /// An opcode record (aux, SELECTDB, ...), already applied to the state.
    Opcode,
    /// A key record.
    Key(Record<'w>),
    /// A key whose raw string value does not fit the window: the cursor stands at its data.
    LongString {
        key: Cow<'w, [u8]>,
        wanted: bool,
        /// Wanted, and longer than [`LoadOptions::max_value_bytes`]: refused once its bytes
        /// are known to exist (as the slice reader refuses it), never built.
        too_large: bool,
        len: u64,
        header_bytes: u64,
        offset: u64,
        prefix: KeyPrefix,
    },
}

/// Decodes one record from the cursor. The state is changed only once the record has been
/// read whole, so that a record cut by the end of a window can be decoded again. With `frame`
/// a key's value is only walked (every length checked, nothing built: `value` is `None`), to
/// find where the record ends.
fn read_record<'w>(
    c: &mut Cursor<'w>,
    st: &mut State,
    opts: &LoadOptions,
    frame: bool,
) -> Result<Step<'w>, RdbError> {
    let at = c.pos;
    let byte = c.u8("record type")?;
    let format = st.header.format;
    if let Some(op) = format.opcode(byte) {
        match op {
            Opcode::Eof => return Ok(Step::Eof),
            Opcode::Aux => {
                let k = c.string("aux field name")?;
                if k.as_ref() == SLOT_INFO_AUX {
                    c.skip_string("slot-info aux value")?;
                    st.header.slot_infos += 1;
                } else {
                    let k = k.into_owned();
                    let v = c.string("aux field value")?.into_owned();
                    st.header.aux.push((k, v));
                }
            }
            Opcode::SelectDb => {
                let db = c.length_not_lenerr("database number")?;
                // No server loads it: `databases` is at most INT_MAX, and a database number
                // must be below it (rdb.c rdbLoad: "configured to handle more than %d
                // databases").
                if db >= MAX_DATABASES {
                    return Err(c.err_at(
                        at,
                        ErrorDetail::DatabaseBeyond {
                            db,
                            max: MAX_DATABASES,
                        },
                    ));
                }
                st.db = db;
                st.header.databases.push(st.db);
                st.db_size = None;
            }
            Opcode::ResizeDb => {
                let keys = c.length_not_lenerr("database size")?;
                c.length_not_lenerr("expires size")?;
                // A sizing hint for the keyspace of a full load only (a filtered one keeps a
                // few keys), never more keys than the rest of the input can hold.
                let left = st
                    .known_len
                    .map(|len| len.saturating_sub(c.base + c.pos as u64));
                st.db_size = left
                    .filter(|_| {
                        !opts.skip_values
                            && opts.patterns.is_empty()
                            && opts.db.is_none_or(|d| d == st.db)
                    })
                    .map(|left| keys.min(left / MIN_KEY_RECORD_BYTES));
            }
            // -1 is the loaders' "no expiry" sentinel (`expiretime != -1` in Redis' and
            // Valkey's rdbLoad): a key stored with it loads without an expiry.
            Opcode::ExpireTimeMs => {
                let at = c.u64_le("expire time")? as i64;
                st.prefix.expire = (at != -1).then_some(at);
            }
            Opcode::ExpireTime => st.prefix.expire = Some(c.i32_le("expire time")? as i64 * 1000),
            Opcode::Idle => st.prefix.idle = Some(c.length("LRU idle time")?),
            Opcode::Freq => st.prefix.freq = Some(c.u8("LFU frequency")?),
            Opcode::ModuleAux => {
                let name = c.module_aux()?;
                if !st.header.module_aux.contains(&name) {
                    st.header.module_aux.push(name);
                }
            }
            Opcode::Function2 => {
                c.skip_string("function library")?;
            }
            Opcode::FunctionPreGa if opts.loader.is_some_and(|p| !p.function_pre_ga) => {
                return Err(c.err_at(
                    at,
                    ErrorDetail::FunctionPreGa {
                        server: opts.loader.map_or("", |p| p.name),
                    },
                ))
            }
            Opcode::FunctionPreGa => {
                // Redis 7.0 rc1/rc2 (rdbFunctionLoad's old format, read by 7.0.x; 7.2+
                // refuse it): library name, engine name, a description flag, the
                // description when the flag is set, then the code.
                c.skip_string("function library name")?;
                c.skip_string("function engine name")?;
                if c.length("function description flag")? != 0 {
                    c.skip_string("function library description")?;
                }
                c.skip_string("function library code")?;
            }
            Opcode::SlotInfo => {
                c.length("slot id")?;
                c.length("slot size")?;
                c.length("slot expires size")?;
                st.header.slot_infos += 1;
            }
            Opcode::SlotImport => c.slot_import()?,
            Opcode::RamLru => {
                c.length("Redis Enterprise RAM LRU")?;
            }
            Opcode::SlotNum => {
                c.length("Redis Enterprise slot number")?;
            }
            Opcode::KeyMeta => c.key_meta()?,
            Opcode::HashTemplates => {
                return Err(c.err_at(at, ErrorDetail::UnsupportedRecord { op, format, byte }))
            }
        }
        return Ok(Step::Opcode);
    }
    let Some(kind) = format.value_kind(byte) else {
        return Err(c.err_at(
            at,
            ErrorDetail::UnknownType {
                byte,
                format,
                dump: false,
            },
        ));
    };
    {
        {
            let key = c.string("key")?;
            let wanted = !frame && opts.selects_in(st.db, &key);
            let v_at = c.pos;
            if kind == ValueKind::String && !c.eof {
                let raw = c
                    .raw_string_len("string value")
                    .map_err(|e| e.with_key(&key))?;
                if let Some(n) = raw {
                    if n > c.remaining() as u64 && n >= STREAM_STRING_BYTES {
                        return Ok(Step::LongString {
                            key,
                            wanted,
                            too_large: wanted && n > c.max_string,
                            len: n,
                            header_bytes: (c.pos - v_at) as u64,
                            offset: c.base + at as u64,
                            prefix: std::mem::take(&mut st.prefix),
                        });
                    }
                    c.pos = v_at;
                }
            }
            let encoding = match (kind, c.buf.get(c.pos)) {
                (ValueKind::String, Some(&b)) if b >> 6 == 3 => {
                    if b & 0x3F == 3 {
                        "lzf"
                    } else {
                        "int"
                    }
                }
                (ValueKind::String, _) => "raw",
                _ => kind.info().encoding,
            };
            let value = c.value(kind, wanted).map_err(|e| e.with_key(&key))?;
            if let (Some(Value::Stream(s)), Some(p)) = (&value, opts.loader) {
                if p.stream_counts_checked {
                    s.check_counts().map_err(|m| {
                        c.err_at(
                            v_at,
                            ErrorDetail::StreamCounts {
                                error: m,
                                server: p.name,
                            },
                        )
                        .with_key(&key)
                    })?;
                }
            }
            let prefix = std::mem::take(&mut st.prefix);
            Ok(Step::Key(Record {
                db: st.db,
                type_byte: byte,
                kind,
                encoding,
                value,
                expire_at_ms: prefix.expire,
                lru_idle_s: prefix.idle,
                lfu_freq: prefix.freq,
                offset: c.base + at as u64,
                value_bytes: (c.pos - v_at) as u64,
                db_size_hint: st.db_size,
                key,
            }))
        }
    }
}

/// Calls `progress(done, total)`; a [`Stop`] it returns stops the load as an error at `done`.
fn report(progress: Progress<'_>, done: u64, total: u64) -> Result<(), RdbError> {
    progress(done, total).map_err(|stop| {
        RdbError::new(
            done,
            ErrorDetail::Cancelled {
                reason: stop.reason,
            },
        )
    })
}

/// The reader proper, over any kind of [`Input`]: a [`Walk`] advanced until it is done,
/// extending the input's window whenever the walk waits for more bytes.
fn visit_input<I, F>(
    inp: &mut I,
    opts: &LoadOptions,
    progress: Progress<'_>,
    mut f: F,
) -> Result<Header, RdbError>
where
    I: Input,
    F: for<'r> FnMut(Record<'r>) -> Result<(), RdbError>,
{
    let mut walk = Walk::new();
    loop {
        match walk.advance(inp, opts, None, progress, &mut f)? {
            Poll::Ready => return Ok(walk.into_header()),
            Poll::Pending(need) => {
                let (w, base, _) = inp.window();
                inp.fill(need.unwrap_or(base + w.len() as u64 + 1))?;
            }
            Poll::Awaiting(_) => unreachable!("no offload without a feeder"),
        }
    }
}

/// What [`Walk::advance`] stopped at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Poll {
    /// The file is read to its end (EOF opcode and trailer checked).
    Ready,
    /// The window ends inside a record and is not the end of the input: more bytes are
    /// needed, up to this absolute offset when the decoder knows it. The record's bytes are
    /// left unconsumed, to be decoded again once the window holds more.
    Pending(Option<u64>),
    /// The record at the window's start holds this offloaded LZF string, whose bytes are not
    /// supplied yet ([`offload`]); the record is left unconsumed.
    Awaiting(LzfSpan),
}

/// Where a [`Walk`] stands in the file.
enum Phase {
    /// Before the 9-byte magic.
    Magic,
    /// Between records.
    Records,
    /// Inside the data of a long raw string value, passed through piece by piece.
    Long(LongString),
    /// After the EOF opcode (at this absolute offset): the CRC-64 trailer, if any.
    Trailer(u64),
    /// Finished.
    Done,
}

/// Why a long raw string value (header at absolute offset `at`, `header_bytes` long, `len`
/// data bytes; `too_large`: wanted and over `max`) is refused before it is streamed, given the
/// input's certain length `exact` (`None`: not known yet): its bytes run past the input's end
/// (the whole-input reader's truncation), or, its bytes known to exist, it is longer than
/// `max`. `None`: stream it (one over `max` in an input of unknown length is passed through
/// unbuilt and refused at its end). Out of line: the streaming readers' loops stay small (the
/// wasm module's size).
#[inline(never)]
fn long_refused(
    exact: Option<u64>,
    at: u64,
    header_bytes: u64,
    len: u64,
    too_large: bool,
    max: u64,
) -> Option<RdbError> {
    let data_at = at + header_bytes;
    let end = exact?;
    if data_at.saturating_add(len) > end {
        let left = end.saturating_sub(data_at);
        return Some(input::truncated(data_at, "string value", len, left));
    }
    too_large.then(|| reader::too_large(at, "string value", len, None, max))
}

/// A raw string value being streamed (see [`Step::LongString`]).
struct LongString {
    key: Vec<u8>,
    db: u64,
    builder: Option<StringBuilder>,
    /// Longer than the load's limit: passed through unbuilt, then refused.
    too_large: bool,
    len: u64,
    /// Absolute offset of the string's first data byte.
    data_at: u64,
    /// Data bytes passed through so far.
    done: u64,
    header_bytes: u64,
    offset: u64,
    prefix: KeyPrefix,
}

impl LongString {
    /// The error of this string over the limit `max` (its bytes all came), with its key. Out
    /// of line (the wasm module's size).
    #[cold]
    #[inline(never)]
    fn refused(&self, max: u64) -> RdbError {
        let at = self.data_at - self.header_bytes;
        reader::too_large(at, "string value", self.len, None, max).with_key(&self.key)
    }
}

/// The resumable RDB reader: it decodes what its input's window holds, record by record,
/// and when a record runs past the window's end (and the window is not the end of the
/// input) it stops with [`Poll::Pending`], leaving that record's bytes unconsumed and its own
/// state as before the record. Advanced again after the window grew, it continues from
/// there. Pull readers ([`visit_input`]) extend the window themselves; the push reader
/// ([`RdbFeeder`]) waits for the next bytes to arrive.
struct Walk {
    st: State,
    phase: Phase,
    /// Input offset of the last progress report.
    reported: u64,
    /// Below this input offset, records are read by the one-thread step (after a batch of
    /// small records; see `parallel::serial_span`). wasm32 builds read on one thread.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    serial_until: u64,
}

impl Walk {
    pub fn new() -> Walk {
        Walk {
            st: State {
                header: Header::default(),
                db: 0,
                prefix: KeyPrefix::default(),
                db_size: None,
                known_len: None,
            },
            phase: Phase::Magic,
            reported: 0,
            serial_until: 0,
        }
    }

    /// The reader state before the next record.
    fn state(&self) -> &State {
        &self.st
    }

    /// What the file held besides its keys (complete once [`Poll::Ready`]).
    pub fn into_header(self) -> Header {
        self.st.header
    }

    /// Decodes as far as the input's window allows; `f` receives each key record.
    fn advance<I, F>(
        &mut self,
        inp: &mut I,
        opts: &LoadOptions,
        pre: Option<&offload::Offload>,
        progress: Progress<'_>,
        f: &mut F,
    ) -> Result<Poll, RdbError>
    where
        I: Input,
        F: for<'r> FnMut(Record<'r>) -> Result<(), RdbError>,
    {
        let total = inp.total();
        self.st.known_len = inp.known_len();
        loop {
            match &mut self.phase {
                Phase::Magic => {
                    let (w, base, eof) = inp.window();
                    if w.len() < 9 && !eof {
                        return Ok(Poll::Pending(Some(base + 9)));
                    }
                    let mut c = Cursor::window(w, base, true);
                    let magic = c.take(9, "RDB header")?;
                    let format =
                        Format::from_magic(magic).map_err(|m| magic_error(&c, magic, m))?;
                    inp.consume(9);
                    self.st.header.version = format.version;
                    self.st.header.format = format;
                    self.phase = Phase::Records;
                }
                Phase::Records => {
                    let (w, base, eof) = inp.window();
                    if base >= self.reported + PROGRESS_STEP {
                        self.reported = base;
                        report(progress, base, total)?;
                    }
                    #[cfg(not(target_arch = "wasm32"))]
                    if opts.threads > 1 && base >= self.serial_until {
                        match parallel::batch(w, base, eof, &mut self.st, opts, f)? {
                            parallel::Batch::Consumed(0, _) => {}
                            parallel::Batch::Consumed(used, small) => {
                                if small {
                                    self.serial_until =
                                        base + used as u64 + parallel::serial_span(used);
                                }
                                inp.consume(used);
                                continue;
                            }
                            parallel::Batch::Need(end) => return Ok(Poll::Pending(Some(end))),
                        }
                    }
                    let mut c = Cursor::window(w, base, eof);
                    c.pre = pre;
                    c.max_string = opts.max_value_bytes;
                    let step = read_record(&mut c, &mut self.st, opts, false);
                    let used = c.pos;
                    let need = c.need;
                    if let (Err(_), Some(span)) = (&step, c.awaiting) {
                        return Ok(Poll::Awaiting(span));
                    }
                    match step {
                        Ok(Step::Eof) => {
                            inp.consume(used);
                            self.phase = Phase::Trailer(base + used as u64);
                        }
                        Ok(Step::Opcode) => inp.consume(used),
                        Ok(Step::Key(rec)) => {
                            // (Borrowed from the window unless the key was compressed: no
                            // copy per key for an error that rarely comes.)
                            let key_for_err = rec.key.clone();
                            f(rec).map_err(|e| e.with_key(&key_for_err))?;
                            inp.consume(used);
                        }
                        Ok(Step::LongString {
                            key,
                            wanted,
                            too_large,
                            len,
                            header_bytes,
                            offset,
                            prefix,
                        }) => {
                            let data_at = base + used as u64;
                            let max = opts.max_value_bytes;
                            let (exact, at) = (inp.exact_len(), data_at - header_bytes);
                            if let Some(e) =
                                long_refused(exact, at, header_bytes, len, too_large, max)
                            {
                                return Err(e.with_key(&key));
                            }
                            let long = LongString {
                                key: key.into_owned(),
                                db: self.st.db,
                                builder: (wanted && !too_large).then(|| StringBuilder::new(len)),
                                too_large,
                                len,
                                data_at: base + used as u64,
                                done: 0,
                                header_bytes,
                                offset,
                                prefix,
                            };
                            inp.consume(used);
                            self.phase = Phase::Long(long);
                        }
                        Err(e) => {
                            return match need {
                                Some(end) if !eof => Ok(Poll::Pending(Some(end))),
                                _ => Err(e),
                            }
                        }
                    }
                }
                Phase::Long(long) => {
                    let (w, at, eof) = inp.window();
                    let left = long.len - long.done;
                    if eof && (w.len() as u64) < left {
                        // As a whole-input read says it: from the string's first data byte.
                        let remain = long.done + w.len() as u64;
                        let e = input::truncated(long.data_at, "string value", long.len, remain);
                        return Err(e.with_key(&long.key));
                    }
                    // In pieces of at most 1 MiB, so that progress is reported within it.
                    let k = left.min(w.len() as u64).min(1 << 20) as usize;
                    if let Some(b) = &mut long.builder {
                        b.write(long.done, &w[..k]);
                    }
                    inp.consume(k);
                    long.done += k as u64;
                    let done = at + k as u64;
                    if done >= self.reported + PROGRESS_STEP {
                        self.reported = done;
                        report(progress, done, total).map_err(|e| e.with_key(&long.key))?;
                    }
                    if long.done < long.len {
                        if k == 0 {
                            return Ok(Poll::Pending(None));
                        }
                        continue;
                    }
                    let Phase::Long(long) = std::mem::replace(&mut self.phase, Phase::Records)
                    else {
                        unreachable!("in the long-string phase")
                    };
                    if long.too_large {
                        // Every byte of it came (a download of no known length): the slice
                        // reader's error.
                        return Err(long.refused(opts.max_value_bytes));
                    }
                    let format = self.st.header.format;
                    let rec = Record {
                        db: long.db,
                        key: Cow::Borrowed(&long.key),
                        type_byte: format.type_byte(ValueKind::String).unwrap_or(0),
                        kind: ValueKind::String,
                        encoding: "raw",
                        value: long.builder.map(|b| Value::String(b.finish())),
                        expire_at_ms: long.prefix.expire,
                        lru_idle_s: long.prefix.idle,
                        lfu_freq: long.prefix.freq,
                        offset: long.offset,
                        value_bytes: long.header_bytes + long.len,
                        db_size_hint: self.st.db_size,
                    };
                    f(rec).map_err(|e| e.with_key(&long.key))?;
                }
                Phase::Trailer(eof_end) => {
                    let eof_end = *eof_end;
                    if !self.st.header.format.has_checksum() {
                        self.phase = Phase::Done;
                        report(progress, total, total)?;
                        continue;
                    }
                    let (w, _, eof) = inp.window();
                    if w.len() < 8 && !eof {
                        return Ok(Poll::Pending(Some(eof_end + 8)));
                    }
                    let mut c = Cursor::window(w, eof_end, true);
                    let trailer = c.take(8, "CRC-64 trailer")?;
                    let stored = u64::from_le_bytes(trailer.try_into().expect("8 bytes"));
                    self.st.header.stored_checksum = stored;
                    if stored != 0 && opts.verify_checksum {
                        let actual = inp.crc_so_far();
                        if actual != stored {
                            return Err(RdbError::new(
                                eof_end,
                                ErrorDetail::Crc {
                                    stored,
                                    actual,
                                    dump: false,
                                },
                            ));
                        }
                    }
                    inp.consume(8);
                    self.phase = Phase::Done;
                    report(progress, total, total)?;
                }
                Phase::Done => return Ok(Poll::Ready),
            }
        }
    }
}

/// Reads only the start of an RDB file: its header and the aux fields before the first other
/// record (where every server writes `redis-ver` / `valkey-ver`), without walking the keys.
/// Errors like [`load_rdb`] on a bad header or a truncated aux field.
pub fn peek_writer(bytes: &[u8]) -> Result<Writer, RdbError> {
    let (format, aux) = peek_aux(bytes)?;
    Ok(Writer::new(format, &aux))
}

/// Aux fields: (name, value) pairs in file order.
pub type AuxFields = Vec<(Vec<u8>, Vec<u8>)>;

/// The error of a file header `magic` that names no format bitlens reads: at the version's
/// first digit for a `REDIS` or `VALKEY` magic of an unknown version, else at byte 0.
fn magic_error(c: &Cursor<'_>, magic: &[u8], e: FormatError) -> RdbError {
    let version_at = if magic.starts_with(b"REDIS") {
        5
    } else if magic.starts_with(b"VALKEY") {
        6
    } else {
        0
    };
    c.err_at(version_at, ErrorDetail::Header(e))
}

/// The format and the aux fields (name, value; in file order) before the first other record
/// of an RDB file's start (`redis-ver`, `ctime`, `used-mem`...), as [`peek_writer`] reads
/// them. Errors like [`load_rdb`] on a bad header or a truncated aux field.
pub fn peek_aux(bytes: &[u8]) -> Result<(Format, AuxFields), RdbError> {
    let mut c = Cursor::new(bytes, 0);
    let (format, aux) = read_aux_prefix(&mut c)?;
    Ok((format, aux))
}

/// The header and the aux fields at the start of `c`, left after them.
fn read_aux_prefix(c: &mut Cursor<'_>) -> Result<(Format, AuxFields), RdbError> {
    let magic = c.take(9, "RDB header")?;
    let format = Format::from_magic(magic).map_err(|m| magic_error(c, magic, m))?;
    let mut aux = Vec::new();
    while c.remaining() > 0 && format.opcode(c.buf[c.pos]) == Some(Opcode::Aux) {
        c.pos += 1;
        let k = c.string("aux field name")?.into_owned();
        let v = c.string("aux field value")?.into_owned();
        aux.push((k, v));
    }
    Ok((format, aux))
}

/// The first database of an RDB file and its RESIZEDB key count, when `start` (the file's
/// first bytes; `file_len` its whole length) holds them right after the aux fields, as Redis
/// and Valkey write them: a union of files sizes its keyspace for all of them before reading
/// any ([`UnionBuilder::reserve`]). The count is bounded as a load bounds its own hint (no
/// more keys than the rest of the file can hold). `None` when the start holds no such record.
pub fn peek_db_size(start: &[u8], file_len: u64) -> Option<(u64, u64)> {
    let mut c = Cursor::new(start, 0);
    let (format, _) = read_aux_prefix(&mut c).ok()?;
    let next = |c: &mut Cursor<'_>, op: Opcode| -> Option<u64> {
        (format.opcode(*c.buf.get(c.pos)?) == Some(op)).then_some(())?;
        c.pos += 1;
        c.length("database number or size").ok()
    };
    let db = next(&mut c, Opcode::SelectDb)?;
    let keys = next(&mut c, Opcode::ResizeDb)?;
    let left = file_len.saturating_sub(c.pos as u64);
    Some((db, keys.min(left / MIN_KEY_RECORD_BYTES)))
}

/// Decodes a whole RDB file (Redis RDB 1 to 15, Valkey RDB 80 to 81). Keys not selected by `opts.patterns` are
/// skipped without being materialised.
///
/// # Examples
/// ```
/// use bitlens::rdb::{load_rdb, LoadOptions, RdbErrorKind};
///
/// // The smallest RDB 11 file: header, EOF, no checksum.
/// let snap = load_rdb(b"REDIS0011\xff\0\0\0\0\0\0\0\0", &LoadOptions::default())?;
/// assert_eq!(snap.version, 11);
/// assert!(snap.databases.is_empty());
/// let e = load_rdb(b"REDIS0011", &LoadOptions::default()).unwrap_err();
/// assert_eq!((e.kind, e.offset), (RdbErrorKind::Truncated, 9));
/// # Ok::<(), bitlens::rdb::RdbError>(())
/// ```
pub fn load_rdb(bytes: &[u8], opts: &LoadOptions) -> Result<Snapshot, RdbError> {
    load_rdb_progress(bytes, opts, &mut |_, _| Ok(()))
}

/// [`load_rdb`] reporting progress.
pub fn load_rdb_progress(
    bytes: &[u8],
    opts: &LoadOptions,
    progress: Progress<'_>,
) -> Result<Snapshot, RdbError> {
    collect(|f| visit_rdb_progress(bytes, opts, progress, f))
}

/// [`load_rdb_progress`] over a [`ChunkSource`] read `chunk` bytes (or more) at a time (see
/// [`visit_rdb_chunked`]): the same snapshot without holding the whole input.
pub fn load_rdb_chunked<S: ChunkSource + ?Sized>(
    src: &mut S,
    chunk: usize,
    opts: &LoadOptions,
    progress: Progress<'_>,
) -> Result<Snapshot, RdbError> {
    collect(|f| visit_rdb_chunked(src, chunk, opts, progress, f))
}

/// A snapshot of the records a visitor (`visit(record callback)`) walks: each materialised
/// value goes into its database's keyspace (see [`Collector::add`]).
fn collect(
    visit: impl FnOnce(&mut dyn FnMut(Record<'_>) -> Result<(), RdbError>) -> Result<Header, RdbError>,
) -> Result<Snapshot, RdbError> {
    let mut c = Collector::default();
    let visited = visit(&mut |rec| c.add(rec));
    let header = c.settle(visited)?;
    Ok(c.into_snapshot(header))
}

/// The keyspaces of a load being built (the sink of [`RdbFeeder::load`]), keys indexed a batch
/// at a time (see the `bulk` module).
#[derive(Debug, Default)]
pub struct Collector {
    databases: BTreeMap<u64, Keyspace>,
    bulk: bulk::BulkLoad,
}

impl Collector {
    /// Keys collected so far, over every database.
    pub fn keys(&self) -> usize {
        self.databases.values().map(|ks| ks.slot_count()).sum()
    }

    /// The collected keyspaces by database number (after [`Collector::settle`]).
    pub fn into_databases(self) -> BTreeMap<u64, Keyspace> {
        self.databases
    }

    /// The snapshot of the collected keyspaces and `header`'s version and aux fields (after
    /// [`Collector::settle`]).
    pub fn into_snapshot(self, header: Header) -> Snapshot {
        Snapshot {
            version: header.version,
            format: header.format,
            aux: header.aux,
            databases: self.databases,
            slot_infos: header.slot_infos,
        }
    }

    /// Adds a record's materialised value to its database's keyspace. A key met twice in one
    /// database is an error at its second record, as Redis and Valkey refuse such a file on
    /// load ("Duplicated key found in RDB file"); it is found when its batch is indexed, at
    /// the latest by [`Collector::settle`].
    pub fn add(&mut self, rec: Record<'_>) -> Result<(), RdbError> {
        let Some(v) = rec.value else {
            return Ok(());
        };
        let repeats = self.bulk.before(&mut self.databases, rec.db);
        self.refuse(&repeats)?;
        if rec.lru_idle_s.is_some() || rec.lfu_freq.is_some() {
            self.databases.entry(rec.db).or_default().set_access(
                &rec.key,
                rec.lru_idle_s,
                rec.lfu_freq,
            );
        }
        self.bulk
            .push(
                &mut self.databases,
                rec.db,
                rec.db_size_hint.unwrap_or(0),
                &rec.key,
                v,
                rec.expire_at_ms,
                rec.offset,
            )
            .map_err(|_| RdbError::new(rec.offset, ErrorDetail::DatabaseFull { db: rec.db }))
    }

    /// Ends a load that `visited` returned: indexes the last batch; a key repeated before the
    /// load's own error (or its end) is the error, as a one-at-a-time load meets it first.
    pub fn settle<T>(&mut self, visited: Result<T, RdbError>) -> Result<T, RdbError> {
        let repeats = self.bulk.settle(&mut self.databases);
        self.refuse(&repeats)?;
        visited
    }

    /// The error for the first of `repeats`, if any.
    fn refuse(&self, repeats: &[bulk::Repeat]) -> Result<(), RdbError> {
        match repeats.first() {
            None => Ok(()),
            Some(r) => Err(
                RdbError::new(r.offset, ErrorDetail::DuplicateKey { db: r.db })
                    .with_key(self.databases[&r.db].key_at(r.slot)),
            ),
        }
    }
}

/// Decodes a DUMP payload (as returned by Redis or Valkey `DUMP key`), checking its RDB
/// version and CRC-64 trailer.
pub fn load_dump(payload: &[u8]) -> Result<Value, RdbError> {
    load_dump_with(payload, true)
}

/// [`load_dump`] with the CRC-64 check optional.
pub fn load_dump_with(payload: &[u8], verify_checksum: bool) -> Result<Value, RdbError> {
    let p = dump_parts(payload, verify_checksum)?;
    let mut c = Cursor::new(p.body, 1);
    let v = c.value(p.kind, true)?.expect("materialised");
    if c.remaining() != 0 {
        return Err(c.err_at(
            c.pos,
            ErrorDetail::TrailingBytes {
                count: c.remaining(),
            },
        ));
    }
    Ok(v)
}

/// The value of raw `GET key` bytes: a string holding exactly them.
pub fn load_string(bytes: Vec<u8>) -> Value {
    Value::String(RedisString::from_bytes(bytes))
}

#[cfg(test)]
mod tests;
