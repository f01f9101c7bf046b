//! The RDB byte-level reader: a bounds-checked cursor over the input and the decoding of one
//! value of each RDB type.
//!
//! Lengths use Redis' variable encoding: the top two bits of the first byte select 6-bit,
//! 14-bit (big-endian), 32-bit or 64-bit (big-endian, after `0x80`/`0x81`) lengths, or (`11`)
//! a special string encoding: 8/16/32-bit little-endian integers or an LZF-compressed string
//! (compressed length, uncompressed length, data). Every length is checked against the
//! remaining input before anything is allocated.

use std::borrow::Cow;

use super::format::ValueKind;
use super::offload::{Lookup, LzfSpan, Offload};
use super::values;
use super::{ErrorDetail, RdbError};
use crate::encoded::BlobError;
use crate::keyspace::Value;
use crate::string::RedisString;
use crate::zset::{BlobFormat, ZSet, ZSetBlobError};

/// Where an embedded blob (listpack, ziplist, intset, zipmap) is: the offset in the cursor's
/// buffer of its first byte, or of its compressed string when `compressed`.
#[derive(Debug, Clone, Copy)]
pub(super) struct BlobAt {
    at: usize,
    compressed: bool,
}

/// A bounds-checked cursor over RDB bytes. `base` is the offset of `buf[0]` in the caller's
/// input, so that errors report absolute offsets.
///
/// `buf` may be a window of a longer input (`eof` false): running past its end then fails
/// as at the end of input but records in `need` the absolute offset the window must reach,
/// so that a chunked reader can extend the window and decode the record again.
pub(crate) struct Cursor<'a> {
    pub buf: &'a [u8],
    pub pos: usize,
    pub base: u64,
    /// True when the end of `buf` is the end of the input.
    pub eof: bool,
    /// Set when a read ran past the end of a window that is not the end of input: the
    /// absolute offset up to which input is needed.
    pub need: Option<u64>,
    /// Offloaded LZF strings ([`super::offload`]): supplied bytes are used, and a large
    /// string not supplied stops the read (see `awaiting`).
    pub pre: Option<&'a Offload>,
    /// Set when the read stopped at an LZF string whose bytes are offloaded and not back.
    pub awaiting: Option<LzfSpan>,
    /// When set, every LZF string passed (read or skipped) is noted here (framing ahead).
    pub spans: Option<Vec<LzfSpan>>,
    /// The longest string built, bytes ([`super::LoadOptions::max_value_bytes`]; default
    /// [`super::DEFAULT_MAX_VALUE_BYTES`]): a longer one is refused before it is read
    /// ([`Cursor::check_len`]). Skipped strings are not checked.
    pub max_string: u64,
}

/// An LZF string's content, after its header: supplied decompressed bytes, or the compressed
/// data to decompress here (`data_at`: its offset in the cursor's buffer).
enum Lzf<'a> {
    Supplied(Vec<u8>),
    Data {
        data: &'a [u8],
        ulen: u64,
        data_at: usize,
    },
}

/// A decoded length field: a plain length or a special string encoding (0..=3).
enum Len {
    Plain(u64),
    Special(u8),
}

/// The length Redis' loader returns for a read error (`RDB_LENERR`, 2^64-1): a file holding
/// it as a length is refused by Redis, and by us.
const RDB_LENERR: u64 = u64::MAX;

/// The LZF worst-case expansion: a 3-byte back-reference yields at most 264 bytes.
const LZF_MAX_RATIO: u64 = 88;

impl<'a> Cursor<'a> {
    pub fn new(buf: &'a [u8], base: u64) -> Self {
        Self::window(buf, base, true)
    }

    /// A cursor over a window of the input starting at absolute offset `base`; `eof` tells
    /// whether the window reaches the end of the input.
    pub fn window(buf: &'a [u8], base: u64, eof: bool) -> Self {
        Cursor {
            buf,
            pos: 0,
            base,
            eof,
            need: None,
            pre: None,
            awaiting: None,
            spans: None,
            max_string: super::DEFAULT_MAX_VALUE_BYTES,
        }
    }

    /// A [`super::RdbErrorKind::TooLarge`] error when a string of `n` bytes (its header at `at` in
    /// this cursor's buffer; `lzf`: its declared uncompressed length, `clen` compressed
    /// bytes) is longer than [`Cursor::max_string`].
    #[inline]
    pub fn check_len(
        &self,
        at: usize,
        what: &'static str,
        n: u64,
        lzf: Option<u64>,
    ) -> Result<(), RdbError> {
        if n <= self.max_string {
            return Ok(());
        }
        Err(too_large(
            self.base + at as u64,
            what,
            n,
            lzf,
            self.max_string,
        ))
    }
    /// Notes that `n` bytes from the current position are needed (when not at the end of
    /// input).
    fn want(&mut self, n: u64) {
        if !self.eof {
            // Saturating: a corrupt length near 2^64 must ask for more input than exists
            // (and so end in a truncation error), never wrap to a small demand.
            self.need = Some((self.base + self.pos as u64).saturating_add(n));
        }
    }

    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// The error `detail` (its kind implied) at `at` (an offset in this cursor's buffer).
    #[cold]
    #[inline(never)]
    pub fn err_at(&self, at: usize, detail: ErrorDetail) -> RdbError {
        RdbError::new(self.base + at as u64, detail)
    }

    /// An error inside an embedded blob. For a raw blob the offset is the bad byte itself; an
    /// LZF-compressed blob's bytes do not exist in the input, so the error points at the
    /// compressed string and names the offset within its decompressed content.
    pub(super) fn blob_err(&self, blob: BlobAt, what: &'static str, e: BlobError) -> RdbError {
        let (at, lzf_at) = if blob.compressed {
            (blob.at, Some(e.offset as u64))
        } else {
            (blob.at + e.offset, None)
        };
        let detail = ErrorDetail::Blob {
            what,
            error: e.clone(),
            lzf_at,
        };
        self.err_at(at, detail)
            .with_cause(super::RdbErrorCause::Blob(e))
    }

    pub fn take(&mut self, n: u64, what: &'static str) -> Result<&'a [u8], RdbError> {
        if n > self.remaining() as u64 {
            self.want(n);
            let left = self.remaining() as u64;
            return Err(self.err_at(
                self.pos,
                ErrorDetail::Short {
                    what,
                    needed: n,
                    left,
                },
            ));
        }
        let s = &self.buf[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(s)
    }

    pub fn u8(&mut self, what: &'static str) -> Result<u8, RdbError> {
        Ok(self.take(1, what)?[0])
    }

    pub fn u64_le(&mut self, what: &'static str) -> Result<u64, RdbError> {
        let s = self.take(8, what)?;
        Ok(u64::from_le_bytes(s.try_into().expect("8 bytes")))
    }

    pub fn i32_le(&mut self, what: &'static str) -> Result<i32, RdbError> {
        let s = self.take(4, what)?;
        Ok(i32::from_le_bytes(s.try_into().expect("4 bytes")))
    }

    fn len_field(&mut self, what: &'static str) -> Result<Len, RdbError> {
        let at = self.pos;
        let b = self.u8(what)?;
        Ok(match b >> 6 {
            0 => Len::Plain((b & 0x3F) as u64),
            1 => Len::Plain((((b & 0x3F) as u64) << 8) | self.u8(what)? as u64),
            2 => match b {
                0x80 => {
                    let s = self.take(4, what)?;
                    Len::Plain(u32::from_be_bytes(s.try_into().expect("4 bytes")) as u64)
                }
                0x81 => {
                    let s = self.take(8, what)?;
                    Len::Plain(u64::from_be_bytes(s.try_into().expect("8 bytes")))
                }
                _ => return Err(self.err_at(at, ErrorDetail::LengthByte { byte: b })),
            },
            _ => Len::Special(b & 0x3F),
        })
    }

    /// Reads a string's length header: `Some(n)` for a plain (raw) string of `n` bytes,
    /// `None` for an integer or LZF encoding (position then back at the header).
    pub fn raw_string_len(&mut self, what: &'static str) -> Result<Option<u64>, RdbError> {
        let at = self.pos;
        match self.len_field(what)? {
            Len::Plain(n) => Ok(Some(n)),
            Len::Special(_) => {
                self.pos = at;
                Ok(None)
            }
        }
    }

    /// A plain length (a special string encoding here is an error).
    pub fn length(&mut self, what: &'static str) -> Result<u64, RdbError> {
        let at = self.pos;
        match self.len_field(what)? {
            Len::Plain(n) => Ok(n),
            Len::Special(_) => Err(self.err_at(at, ErrorDetail::ExpectedLength { what })),
        }
    }

    /// A length where Redis' loader treats its error marker 2^64-1 (`RDB_LENERR`) as a
    /// failed read and refuses the file (RESIZEDB sizes, SELECTDB numbers); other lengths
    /// (stream ids, entries read) may legitimately hold it.
    pub fn length_not_lenerr(&mut self, what: &'static str) -> Result<u64, RdbError> {
        let at = self.pos;
        let n = self.length(what)?;
        if n == RDB_LENERR {
            return Err(self.err_at(at, ErrorDetail::LengthErrorMarker { what, length: n }));
        }
        Ok(n)
    }

    /// A count of items that each take at least `min_item_bytes` bytes: rejected when the
    /// remaining input cannot hold that many.
    pub fn count(&mut self, min_item_bytes: u64, what: &'static str) -> Result<u64, RdbError> {
        let at = self.pos;
        let n = self.length(what)?;
        if n.saturating_mul(min_item_bytes) > self.remaining() as u64 {
            self.want(n.saturating_mul(min_item_bytes));
            let left = self.remaining() as u64;
            return Err(self.err_at(
                at,
                ErrorDetail::LengthPastEnd {
                    what,
                    length: n,
                    left,
                },
            ));
        }
        Ok(n)
    }

    /// A string: raw bytes (borrowed), an integer as decimal text, or LZF-decompressed bytes.
    pub fn string(&mut self, what: &'static str) -> Result<Cow<'a, [u8]>, RdbError> {
        let at = self.pos;
        match self.len_field(what)? {
            Len::Plain(n) => {
                // (Its bytes are in the input: a length past its end is a truncation.)
                let bytes = self.take(n, what)?;
                self.check_len(at, what, n, None)?;
                Ok(Cow::Borrowed(bytes))
            }
            Len::Special(0) => Ok(Cow::Owned((self.u8(what)? as i8).to_string().into_bytes())),
            Len::Special(1) => {
                let s = self.take(2, what)?;
                Ok(Cow::Owned(
                    i16::from_le_bytes([s[0], s[1]]).to_string().into_bytes(),
                ))
            }
            Len::Special(2) => Ok(Cow::Owned(self.i32_le(what)?.to_string().into_bytes())),
            Len::Special(3) => match self.lzf(at, what, false)? {
                Lzf::Supplied(b) => Ok(Cow::Owned(b)),
                Lzf::Data {
                    data,
                    ulen,
                    data_at,
                } => super::lzf::decompress(data, ulen as usize)
                    .map(Cow::Owned)
                    .map_err(|e| self.lzf_err(what, data_at, e)),
            },
            Len::Special(e) => {
                Err(self.err_at(at, ErrorDetail::StringEncoding { what, encoding: e }))
            }
        }
    }

    /// A string value as a [`RedisString`]. LZF data is decoded straight into the string's
    /// own representation, so a long, mostly-zero bitmap never exists at its full length;
    /// raw bytes that are mostly zero are paged from the input without a full copy.
    pub fn string_value(&mut self, what: &'static str) -> Result<RedisString, RdbError> {
        let at = self.pos;
        if let Len::Special(3) = self.len_field(what)? {
            return match self.lzf(at, what, true)? {
                Lzf::Supplied(b) => Ok(RedisString::from_bytes(b)),
                Lzf::Data {
                    data,
                    ulen,
                    data_at,
                } => super::lzf::decompress_string(data, ulen)
                    .map_err(|e| self.lzf_err(what, data_at, e)),
            };
        }
        self.pos = at;
        Ok(match self.string(what)? {
            Cow::Borrowed(raw) => RedisString::from_slice(raw),
            Cow::Owned(text) => RedisString::from_bytes(text),
        })
    }

    /// Reads the header of an LZF string and returns (compressed data, uncompressed length),
    /// after checking that the uncompressed length is possible for that much data. With
    /// `built` (the string's header offset: it is to be decompressed), a possible length
    /// longer than [`Cursor::max_string`] is refused before the data is read.
    fn lzf_parts(
        &mut self,
        what: &'static str,
        built: Option<usize>,
    ) -> Result<(&'a [u8], u64), RdbError> {
        let clen = self.length(what)?;
        let ul_at = self.pos;
        let ulen = self.length(what)?;
        let possible =
            clen != 0 && ulen <= clen.saturating_mul(LZF_MAX_RATIO) && ulen <= usize::MAX as u64;
        if let (Some(at), true) = (built, possible) {
            self.check_len(at, what, ulen, Some(clen))?;
        }
        let data = self.take(clen, what)?;
        if !possible {
            return Err(self.err_at(
                ul_at,
                ErrorDetail::LzfLength {
                    what,
                    uncompressed: ulen,
                    compressed: clen,
                },
            ));
        }
        if let Some(spans) = &mut self.spans {
            spans.push(LzfSpan {
                offset: self.base + (self.pos - data.len()) as u64,
                compressed_len: clen,
                len: ulen,
            });
        }
        Ok((data, ulen))
    }

    /// An LZF string after its special length byte (the string's header at `at`): its
    /// supplied bytes when the feeder holds them (`take`: handed over rather than copied, for
    /// a string value), else its compressed data. A string longer than
    /// [`Cursor::max_string`] is refused before either. A large string whose bytes are
    /// offloaded and not supplied stops the read: `awaiting` is set and a `Truncated` error
    /// returned (the feeder then waits, as for a record cut by the window's end).
    fn lzf(&mut self, at: usize, what: &'static str, take: bool) -> Result<Lzf<'a>, RdbError> {
        let (data, ulen) = self.lzf_parts(what, Some(at))?;
        let data_at = self.pos - data.len();
        if let Some(pre) = self.pre {
            let span = LzfSpan {
                offset: self.base + data_at as u64,
                compressed_len: data.len() as u64,
                len: ulen,
            };
            match pre.lookup(span, take) {
                Lookup::Use(b) => return Ok(Lzf::Supplied(b)),
                Lookup::Await => {
                    self.awaiting = Some(span);
                    return Err(self.err_at(data_at, ErrorDetail::LzfPending { what }));
                }
                Lookup::Decode => {}
            }
        }
        Ok(Lzf::Data {
            data,
            ulen,
            data_at,
        })
    }

    /// The error of corrupt LZF data at `data_at` (the compressed data's first byte).
    fn lzf_err(&self, what: &'static str, data_at: usize, e: super::lzf::LzfError) -> RdbError {
        self.err_at(
            data_at + e.offset(),
            ErrorDetail::Lzf {
                what,
                error: e.clone(),
            },
        )
        .with_cause(super::RdbErrorCause::Lzf(e))
    }

    /// Skips a string without decompressing it; returns its (uncompressed) length in bytes.
    pub fn skip_string(&mut self, what: &'static str) -> Result<u64, RdbError> {
        let at = self.pos;
        match self.len_field(what)? {
            Len::Plain(n) => self.take(n, what).map(|_| n),
            Len::Special(0) => self
                .take(1, what)
                .map(|s| (s[0] as i8).to_string().len() as u64),
            Len::Special(1) => self
                .take(2, what)
                .map(|s| i16::from_le_bytes([s[0], s[1]]).to_string().len() as u64),
            Len::Special(2) => self.i32_le(what).map(|v| v.to_string().len() as u64),
            Len::Special(3) => self.lzf_parts(what, None).map(|(_, u)| u),
            Len::Special(e) => {
                Err(self.err_at(at, ErrorDetail::StringEncoding { what, encoding: e }))
            }
        }
    }

    /// A string that holds an embedded blob, with where it is in `buf` (blobs are only stored
    /// raw or LZF-compressed).
    pub(super) fn blob(&mut self, what: &'static str) -> Result<(Cow<'a, [u8]>, BlobAt), RdbError> {
        let at = self.pos;
        let s = self.string(what)?;
        // For raw strings the blob starts after the length header.
        let blob_at = match &s {
            Cow::Borrowed(b) => BlobAt {
                at: self.pos - b.len(),
                compressed: false,
            },
            Cow::Owned(_) => BlobAt {
                at,
                compressed: true,
            },
        };
        Ok((s, blob_at))
    }

    fn zset_blob(&mut self, what: &'static str, format: BlobFormat) -> Result<ZSet, RdbError> {
        let (b, at) = self.blob(what)?;
        ZSet::from_blob(&b, format).map_err(|e| match e {
            ZSetBlobError::Blob(e) => self.blob_err(at, what, e),
            ZSetBlobError::OddLength(n) => {
                self.err_at(at.at, ErrorDetail::OddEntries { what, count: n })
            }
            ZSetBlobError::Score(item) => self.err_at(at.at, ErrorDetail::BlobScore { what, item }),
        })
    }

    fn module_opcodes(&mut self) -> Result<(), RdbError> {
        loop {
            let at = self.pos;
            match self.length("module opcode")? {
                0 => return Ok(()),
                1 | 2 => {
                    self.length("module integer")?;
                }
                3 => {
                    self.take(4, "module float")?;
                }
                4 => {
                    self.take(8, "module double")?;
                }
                5 => {
                    self.skip_string("module string")?;
                }
                op => return Err(self.err_at(at, ErrorDetail::UnknownModuleOpcode { op })),
            }
        }
    }

    /// Skips a Valkey 9 RDB_OPCODE_SLOT_IMPORT record body: job name, then a count of
    /// (start slot, end slot) ranges.
    pub fn slot_import(&mut self) -> Result<(), RdbError> {
        self.skip_string("slot import job name")?;
        let n = self.count(2, "slot import range count")?;
        for _ in 0..n {
            self.length("slot range start")?;
            self.length("slot range end")?;
        }
        Ok(())
    }

    /// Skips a Redis 8.6+ RDB_OPCODE_KEY_META record body (the metadata of the key that
    /// follows): a class count, then per class a 4-byte class spec and module-opcode-tagged
    /// fields up to their EOF.
    pub fn key_meta(&mut self) -> Result<(), RdbError> {
        let n = self.count(5, "key metadata class count")?;
        for _ in 0..n {
            self.take(4, "key metadata class spec")?;
            self.module_opcodes()?;
        }
        Ok(())
    }

    /// Skips a MODULE_AUX record body (after the opcode byte).
    /// Returns the module's 9-character type name.
    pub fn module_aux(&mut self) -> Result<[u8; 9], RdbError> {
        let id = self.length("module id")?;
        let at = self.pos;
        let when_op = self.length("module aux when opcode")?;
        if when_op != 2 {
            return Err(self.err_at(at, ErrorDetail::ModuleAuxWhen { op: when_op }));
        }
        self.length("module aux when")?;
        self.module_opcodes()?;
        Ok(module_name(id))
    }

    /// Reads one value of kind `kind` (the type byte already mapped through the file's
    /// [`super::Format`]). With `materialise` false the value is walked (every length
    /// checked) but not built, and `Ok(None)` is returned; with it true, the value is built
    /// and its embedded blobs are fully validated.
    pub fn value(&mut self, kind: ValueKind, materialise: bool) -> Result<Option<Value>, RdbError> {
        use crate::zset::ZSet; // the type (the glob below brings the ValueKind variant)
        use ValueKind::*;
        // A snapshot's small values are laid in shared arena chunks (issue 31).
        let _arena = materialise.then(crate::thin::arena_scope);
        let at = self.pos;
        match kind {
            String => {
                if materialise {
                    Ok(Some(Value::String(self.string_value("string value")?)))
                } else {
                    self.skip_string("string value")?;
                    Ok(None)
                }
            }
            List => values::list_linked(self, materialise),
            Set => values::set_table(self, materialise),
            Hash => values::hash_table(self, materialise),
            ZSet | ZSet2 => {
                let n = self.count(if kind == ZSet { 2 } else { 9 }, "sorted set size")?;
                // `count` bounds n by the bytes left (9 or 2 bytes per entry at least).
                let mut pairs = Vec::with_capacity(if materialise { n as usize } else { 0 });
                for _ in 0..n {
                    let member = if materialise {
                        Some(self.string("sorted set member")?.into_owned())
                    } else {
                        self.skip_string("sorted set member")?;
                        None
                    };
                    let s_at = self.pos;
                    let score = if kind == ZSet2 {
                        f64::from_bits(self.u64_le("sorted set score")?)
                    } else {
                        match self.u8("sorted set score")? {
                            253 => f64::NAN,
                            254 => f64::INFINITY,
                            255 => f64::NEG_INFINITY,
                            n => {
                                let txt = self.take(n as u64, "sorted set score")?;
                                std::str::from_utf8(txt)
                                    .ok()
                                    .and_then(|s| s.parse::<f64>().ok())
                                    .ok_or_else(|| {
                                        self.err_at(s_at, ErrorDetail::Score { nan: false })
                                    })?
                            }
                        }
                    };
                    if score.is_nan() {
                        return Err(self.err_at(s_at, ErrorDetail::Score { nan: true }));
                    }
                    if let Some(m) = member {
                        pairs.push((m, score));
                    }
                }
                Ok(materialise.then(|| {
                    let mut z = ZSet::from_pairs(pairs);
                    z.mark_skiplist_record();
                    Value::zset(z)
                }))
            }
            HashZipmap => values::hash_zipmap(self, materialise),
            ListZiplist => values::list_ziplist(self, materialise),
            HashZiplist => values::hash_ziplist(self, materialise),
            SetIntset => values::set_intset(self, materialise),
            SetListpack => values::set_listpack(self, materialise),
            HashListpack => values::hash_listpack(self, materialise),
            ZSetZiplist | ZSetListpack => {
                let (name, format) = if kind == ZSetZiplist {
                    ("ziplist", BlobFormat::Ziplist)
                } else {
                    ("listpack", BlobFormat::Listpack)
                };
                if materialise {
                    Ok(Some(Value::zset(self.zset_blob(name, format)?)))
                } else {
                    self.skip_string(name)?;
                    Ok(None)
                }
            }
            ListQuicklist => values::quicklist(self, materialise, false),
            ListQuicklist2 => values::quicklist(self, materialise, true),
            StreamListpacks => values::stream(self, materialise, 1),
            StreamListpacks2 => values::stream(self, materialise, 2),
            StreamListpacks3 => values::stream(self, materialise, 3),
            HashMetadataPreGa => values::hash_metadata(self, materialise, true),
            HashMetadata => values::hash_metadata(self, materialise, false),
            HashListpackExPreGa => values::hash_listpack_ex(self, materialise, true),
            HashListpackEx => values::hash_listpack_ex(self, materialise, false),
            Module2 => values::module_2(self, materialise),
            Hash2 => values::hash_2(self, materialise),
            ModulePreGa => Err(self.err_at(at, ErrorDetail::ModulePreGa)),
            StreamListpacks4 | StreamListpacks5 | Array | HashTmplLp | HashTmplLpRef
            | HashTmplArray | HashTmplArrayRef | Gcra => {
                Err(self.err_at(at, ErrorDetail::UnsupportedValue { kind }))
            }
        }
    }
}

/// The [`super::RdbErrorKind::TooLarge`] error of a string of `n` bytes (`what`; `lzf`: stored
/// LZF-compressed in that many bytes) whose header is at absolute offset `at`, over the limit
/// `max` ([`super::LoadOptions::max_value_bytes`]).
#[cold]
#[inline(never)]
pub(super) fn too_large(
    at: u64,
    what: &'static str,
    n: u64,
    lzf: Option<u64>,
    max: u64,
) -> RdbError {
    RdbError::new(
        at,
        ErrorDetail::TooLarge {
            what,
            len: n,
            lzf,
            max,
        },
    )
}

/// The 9-character module type name encoded in the top 54 bits of a module id.
pub fn module_name(id: u64) -> [u8; 9] {
    const CHARSET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut name = [0u8; 9];
    for (j, c) in name.iter_mut().enumerate() {
        *c = CHARSET[((id >> (64 - 6 * (j + 1))) & 63) as usize];
    }
    name
}
