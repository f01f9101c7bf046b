//! Redis RDB files and DUMP payloads: reading ([`load_rdb`], [`load_dump`], [`visit_rdb`]) and
//! writing ([`RdbWriter`]).
//!
//! An RDB file is `REDIS` + a 4-digit version, then a sequence of records, each starting with
//! one byte: an opcode (aux field, SELECTDB, RESIZEDB, expiry in seconds or milliseconds,
//! LRU idle time, LFU frequency, module aux data, function library, slot info, EOF) or the
//! value type of the key that follows (key string, then the value in that type's encoding).
//! After EOF, version 5+ files end with the CRC-64 (Jones polynomial, reflected, as
//! `crc::CRC_64_REDIS`) of every preceding byte, little-endian; 0 means "not computed".
//!
//! A DUMP payload is one value (type byte + encoding) followed by the 2-byte little-endian RDB
//! version and the CRC-64 of everything before it.
//!
//! Strings and sorted sets are decoded into [`Value::String`] / [`Value::ZSet`]; lists, sets,
//! hashes and streams into [`Value::List`] / [`Value::Set`] / [`Value::Hash`] /
//! [`Value::Stream`], their embedded listpacks, ziplists, intsets and zipmaps validated once
//! and kept as bytes (`values`); module values are walked and kept as [`Value::Other`]. Bad input yields an [`RdbError`] with the byte offset and key,
//! never a panic; no allocation exceeds what the input's size justifies.

pub(crate) mod encoded;
mod input;
pub mod lzf;
mod reader;
mod values;
mod writer;

pub use encoded::{intset, listpack, ziplist, zipmap, BlobError, Item};
pub use input::ChunkSource;
pub use reader::{module_name, opcodes, type_info, types};
pub use writer::{dump_string, RdbWriter};

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use crate::keyspace::{Keyspace, Value};
use crate::string::{RedisString, StringBuilder};
use input::{ChunkedInput, Input, SliceInput};
use reader::Cursor;

/// The oldest RDB version bitlens reads (Redis 2.6).
pub const MIN_VERSION: u32 = 6;
/// The newest RDB version bitlens reads (Redis 7.4 / 8.0).
pub const MAX_VERSION: u32 = 12;

/// The CRC-64 used by RDB files and DUMP payloads, slice-by-16 (a 32 KiB table; several
/// times faster than byte-at-a-time on large files).
pub(crate) static CRC64: crc::Crc<u64, crc::Table<16>> =
    crc::Crc::<u64, crc::Table<16>>::new(&crc::CRC_64_REDIS);

/// A running [`CRC64`].
pub(crate) type Crc64Digest = crc::Digest<'static, u64, crc::Table<16>>;

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
    /// Only keys matching one of these Redis globs are materialised; empty = all keys.
    pub patterns: Vec<Vec<u8>>,
    /// Only keys of this database are materialised; `None` = every database.
    pub db: Option<u64>,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            verify_checksum: true,
            patterns: Vec::new(),
            db: None,
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
    pub fn selects_in(&self, db: u64, key: &[u8]) -> bool {
        self.db.is_none_or(|d| d == db) && self.selects(key)
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

impl Snapshot {
    /// Every key as (database, key, entry), by database then key bytes (for comparing
    /// snapshots).
    pub fn entries(&self) -> Vec<(u64, &[u8], &crate::keyspace::Entry)> {
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
    /// The RDB value type byte (see [`types`] and [`type_info`]).
    pub type_byte: u8,
    /// The value's encoding as stored in the file: for strings `int`, `lzf` or `raw`; for
    /// other types the container name from [`type_info`] (`listpack`, `quicklist(ziplist)`...).
    pub encoding: &'static str,
    /// The decoded value; `None` when the key was not selected by the patterns.
    pub value: Option<Value>,
    /// Absolute expiry, Unix milliseconds.
    pub expire_at_ms: Option<i64>,
    /// Offset of the type byte in the file.
    pub offset: u64,
    /// Bytes the value's encoding takes in the file (after the key).
    pub value_bytes: u64,
}

/// What [`visit_rdb`] found besides key records.
#[derive(Debug, Clone, Default)]
pub struct Header {
    /// RDB version.
    pub version: u32,
    /// Aux fields in file order.
    pub aux: Vec<(Vec<u8>, Vec<u8>)>,
    /// Databases announced by SELECTDB (some may hold no key).
    pub databases: Vec<u64>,
    /// The CRC-64 stored after EOF (0 = the writer did not compute one).
    pub stored_checksum: u64,
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
/// [`PROGRESS_STEP`] bytes of input (between records) and once at the end; an
/// `Err(message)` stops the load with that message.
pub type Progress<'p> = &'p mut dyn FnMut(u64, u64) -> Result<(), String>;

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

/// Reader state carried from record to record.
struct State {
    header: Header,
    db: u64,
    expire: Option<i64>,
}

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
        len: u64,
        header_bytes: u64,
        offset: u64,
        expire_at_ms: Option<i64>,
    },
}

/// Decodes one record from the cursor. The state is changed only once the record has been
/// read whole, so that a record cut by the end of a window can be decoded again.
fn read_record<'w>(
    c: &mut Cursor<'w>,
    st: &mut State,
    opts: &LoadOptions,
) -> Result<Step<'w>, RdbError> {
    let at = c.pos;
    let op = c.u8("record type")?;
    match op {
        opcodes::EOF => return Ok(Step::Eof),
        opcodes::AUX => {
            let k = c.string("aux field name")?.into_owned();
            let v = c.string("aux field value")?.into_owned();
            st.header.aux.push((k, v));
        }
        opcodes::SELECTDB => {
            st.db = c.length("database number")?;
            st.header.databases.push(st.db);
        }
        opcodes::RESIZEDB => {
            c.length("database size")?;
            c.length("expires size")?;
        }
        opcodes::EXPIRETIME_MS => st.expire = Some(c.u64_le("expire time")? as i64),
        opcodes::EXPIRETIME => st.expire = Some(c.i32_le("expire time")? as i64 * 1000),
        opcodes::IDLE => {
            c.length("LRU idle time")?;
        }
        opcodes::FREQ => {
            c.u8("LFU frequency")?;
        }
        opcodes::MODULE_AUX => c.module_aux()?,
        opcodes::FUNCTION2 => {
            c.skip_string("function library")?;
        }
        opcodes::FUNCTION_PRE_GA => {
            return Err(c.err_at(
                at,
                "function record of a Redis 7.0 release candidate (opcode 246) is not supported",
            ))
        }
        opcodes::SLOT_INFO => {
            c.length("slot id")?;
            c.length("slot size")?;
            c.length("slot expires size")?;
        }
        t => {
            if type_info(t).is_none() {
                return Err(c.err_at(at, format!("unknown RDB value type {t} (byte 0x{t:02x})")));
            }
            let key = c.string("key")?;
            let wanted = opts.selects_in(st.db, &key);
            let v_at = c.pos;
            if t == types::STRING && !c.eof {
                let raw = c
                    .raw_string_len("string value")
                    .map_err(|e| e.with_key(&key))?;
                if let Some(n) = raw {
                    if n > c.remaining() as u64 && n >= STREAM_STRING_BYTES {
                        return Ok(Step::LongString {
                            key,
                            wanted,
                            len: n,
                            header_bytes: (c.pos - v_at) as u64,
                            offset: c.base + at as u64,
                            expire_at_ms: st.expire.take(),
                        });
                    }
                    c.pos = v_at;
                }
            }
            let encoding = match (t, c.buf.get(c.pos)) {
                (types::STRING, Some(&b)) if b >> 6 == 3 => {
                    if b & 0x3F == 3 {
                        "lzf"
                    } else {
                        "int"
                    }
                }
                (types::STRING, _) => "raw",
                _ => type_info(t).map_or("unknown", |i| i.1),
            };
            let value = c.value(t, wanted).map_err(|e| e.with_key(&key))?;
            return Ok(Step::Key(Record {
                db: st.db,
                type_byte: t,
                encoding,
                value,
                expire_at_ms: st.expire.take(),
                offset: c.base + at as u64,
                value_bytes: (c.pos - v_at) as u64,
                key,
            }));
        }
    }
    Ok(Step::Opcode)
}

/// Calls `progress(done, total)`; a message it returns stops the load as an error at `done`.
fn report(
    progress: &mut dyn FnMut(u64, u64) -> Result<(), String>,
    done: u64,
    total: u64,
) -> Result<(), RdbError> {
    progress(done, total).map_err(|message| RdbError {
        offset: done,
        key: None,
        message,
    })
}

/// The reader proper, over either kind of [`Input`].
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
    let total = inp.total();
    inp.fill(9)?;
    let version = {
        let (w, base, _) = inp.window();
        let mut c = Cursor::window(w, base, true);
        let magic = c.take(9, "RDB header")?;
        if &magic[..5] != b"REDIS" {
            return Err(c.err_at(0, "not an RDB file: missing REDIS magic"));
        }
        let version = std::str::from_utf8(&magic[5..9])
            .ok()
            .filter(|s| s.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|s| s.parse::<u32>().ok())
            .ok_or_else(|| c.err_at(5, "RDB version is not 4 digits"))?;
        if !(MIN_VERSION..=MAX_VERSION).contains(&version) {
            return Err(c.err_at(
                5,
                format!(
                    "unsupported RDB version {version} (bitlens reads {MIN_VERSION} to {MAX_VERSION})"
                ),
            ));
        }
        version
    };
    inp.consume(9);
    let mut st = State {
        header: Header {
            version,
            ..Header::default()
        },
        db: 0,
        expire: None,
    };
    let mut reported = 0u64;
    loop {
        let (w, base, eof) = inp.window();
        if base >= reported + PROGRESS_STEP {
            reported = base;
            report(progress, base, total)?;
        }
        let mut c = Cursor::window(w, base, eof);
        let step = read_record(&mut c, &mut st, opts);
        let used = c.pos;
        let need = c.need;
        match step {
            Ok(Step::Eof) => {
                inp.consume(used);
                break;
            }
            Ok(Step::Opcode) => inp.consume(used),
            Ok(Step::Key(rec)) => {
                let key_for_err = rec.key.clone().into_owned();
                f(rec).map_err(|e| e.with_key(&key_for_err))?;
                inp.consume(used);
            }
            Ok(Step::LongString {
                key,
                wanted,
                len,
                header_bytes,
                offset,
                expire_at_ms,
            }) => {
                let key = key.into_owned();
                let db = st.db;
                inp.consume(used);
                let (_, data_at, _) = inp.window();
                let mut builder = wanted.then(|| StringBuilder::new(len));
                inp.stream(
                    len,
                    &mut |off, piece| {
                        if let Some(b) = &mut builder {
                            b.write(off - data_at, piece);
                        }
                        let done = off + piece.len() as u64;
                        if done >= reported + PROGRESS_STEP {
                            reported = done;
                            report(progress, done, total)?;
                        }
                        Ok(())
                    },
                    "string value",
                )
                .map_err(|e| e.with_key(&key))?;
                let value = builder.map(|b| Value::String(b.finish()));
                let rec = Record {
                    db,
                    key: Cow::Borrowed(&key),
                    type_byte: types::STRING,
                    encoding: "raw",
                    value,
                    expire_at_ms,
                    offset,
                    value_bytes: header_bytes + len,
                };
                f(rec).map_err(|e| e.with_key(&key))?;
            }
            Err(e) => match need {
                Some(end) if !eof => inp.fill(end)?,
                _ => return Err(e),
            },
        }
    }
    let (w, eof_end, _) = inp.window();
    let stored = {
        let mut c = Cursor::window(w, eof_end, true);
        let trailer = match c.take(8, "CRC-64 trailer") {
            Ok(t) => t,
            Err(_) => {
                inp.fill(eof_end + 8)?;
                let (w, _, _) = inp.window();
                c = Cursor::window(w, eof_end, true);
                c.take(8, "CRC-64 trailer")?
            }
        };
        u64::from_le_bytes(trailer.try_into().expect("8 bytes"))
    };
    st.header.stored_checksum = stored;
    if stored != 0 && opts.verify_checksum {
        let actual = inp.crc_so_far();
        if actual != stored {
            return Err(RdbError {
                offset: eof_end,
                key: None,
                message: format!(
                    "CRC-64 mismatch: file says {stored:016x}, content hashes to {actual:016x} (file corrupt; to load it anyway skip the check: `--no-checksum` in the CLI, `{{ checksum: false }}` in the wasm API)"
                ),
            });
        }
    }
    inp.consume(8);
    report(progress, total, total)?;
    Ok(st.header)
}

/// Decodes a whole RDB file (versions 6 to 12). Keys not selected by `opts.patterns` are
/// skipped without being materialised.
pub fn load_rdb(bytes: &[u8], opts: &LoadOptions) -> Result<Snapshot, RdbError> {
    load_rdb_progress(bytes, opts, &mut |_, _| Ok(()))
}

/// [`load_rdb`] reporting progress.
pub fn load_rdb_progress(
    bytes: &[u8],
    opts: &LoadOptions,
    progress: Progress<'_>,
) -> Result<Snapshot, RdbError> {
    let mut databases: BTreeMap<u64, Keyspace> = BTreeMap::new();
    let header = visit_rdb_progress(bytes, opts, progress, |rec| {
        collect(&mut databases, rec);
        Ok(())
    })?;
    Ok(Snapshot {
        version: header.version,
        aux: header.aux,
        databases,
    })
}

/// [`load_rdb_progress`] over a [`ChunkSource`] read `chunk` bytes (or more) at a time (see
/// [`visit_rdb_chunked`]): the same snapshot without holding the whole input.
pub fn load_rdb_chunked<S: ChunkSource + ?Sized>(
    src: &mut S,
    chunk: usize,
    opts: &LoadOptions,
    progress: Progress<'_>,
) -> Result<Snapshot, RdbError> {
    let mut databases: BTreeMap<u64, Keyspace> = BTreeMap::new();
    let header = visit_rdb_chunked(src, chunk, opts, progress, |rec| {
        collect(&mut databases, rec);
        Ok(())
    })?;
    Ok(Snapshot {
        version: header.version,
        aux: header.aux,
        databases,
    })
}

fn collect(databases: &mut BTreeMap<u64, Keyspace>, rec: Record<'_>) {
    if let Some(v) = rec.value {
        databases
            .entry(rec.db)
            .or_default()
            .insert(rec.key.into_owned(), v, rec.expire_at_ms);
    }
}

/// Splits and checks a DUMP payload: returns (type byte, value encoding, RDB version).
/// Errors when it is too short, its version is newer than [`MAX_VERSION`], or (when
/// `verify_checksum`) its CRC-64 does not match.
pub fn split_dump(payload: &[u8], verify_checksum: bool) -> Result<(u8, &[u8], u16), RdbError> {
    let err = |offset: usize, message: String| RdbError {
        offset: offset as u64,
        key: None,
        message,
    };
    if payload.len() < 11 {
        return Err(err(
            0,
            format!(
                "DUMP payload of {} bytes is too short (at least 11)",
                payload.len()
            ),
        ));
    }
    let n = payload.len();
    let version = u16::from_le_bytes([payload[n - 10], payload[n - 9]]);
    if version as u32 > MAX_VERSION {
        return Err(err(
            n - 10,
            format!("DUMP payload RDB version {version} is newer than {MAX_VERSION}"),
        ));
    }
    let stored = u64::from_le_bytes(payload[n - 8..].try_into().expect("8 bytes"));
    if verify_checksum {
        let actual = CRC64.checksum(&payload[..n - 8]);
        if actual != stored {
            return Err(err(
                n - 8,
                format!("DUMP payload CRC-64 mismatch: payload says {stored:016x}, content hashes to {actual:016x} (to load it anyway skip the check: `--no-checksum` in the CLI, `{{ checksum: false }}` in the wasm API)"),
            ));
        }
    }
    Ok((payload[0], &payload[1..n - 10], version))
}

/// Decodes a DUMP payload (as returned by Redis `DUMP key`), checking its RDB version and
/// CRC-64 trailer.
pub fn load_dump(payload: &[u8]) -> Result<Value, RdbError> {
    load_dump_with(payload, true)
}

/// [`load_dump`] with the CRC-64 check optional.
pub fn load_dump_with(payload: &[u8], verify_checksum: bool) -> Result<Value, RdbError> {
    let (t, body, _) = split_dump(payload, verify_checksum)?;
    if type_info(t).is_none() {
        return Err(RdbError {
            offset: 0,
            key: None,
            message: format!("unknown RDB value type {t} (byte 0x{t:02x})"),
        });
    }
    let mut c = Cursor::new(body, 1);
    let v = c.value(t, true)?.expect("materialised");
    if c.remaining() != 0 {
        return Err(c.err_at(
            c.pos,
            format!("{} unexpected bytes after the value", c.remaining()),
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
