//! What an [`super::RdbError`] found, as data ([`ErrorDetail`]): each variant carries the
//! values it is about (lengths, bytes, type bytes, ids, the lower layer's typed error) and
//! implies its [`RdbErrorKind`]; the text users read is built from them by `Display` (the
//! reader's words, unchanged from when they were stored as text).

use super::{Format, FormatError, Opcode, RdbErrorKind, ValueKind};
use crate::module_fields::FieldError;
use crate::stream::{StreamCountError, StreamId};
use std::fmt;

/// What is wrong, with its values; [`ErrorDetail::kind`] is the error's kind and `Display`
/// its text (after the offset and key [`super::RdbError`]'s own `Display` puts first).
/// `what` fields name the structure being read (`"string length"`, `"hash field"`,
/// `"CRC-64 trailer"`...), as the reader's callers spell it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorDetail {
    // --- Truncated ---
    /// `what` needs `needed` bytes where only `left` remain.
    Short {
        /// The structure being read.
        what: &'static str,
        /// Bytes it needs.
        needed: u64,
        /// Bytes left in the input.
        left: u64,
    },
    /// A length (`what`, `length` bytes or elements) larger than the `left` bytes after it
    /// can hold.
    LengthPastEnd {
        /// The structure being read.
        what: &'static str,
        /// The length read.
        length: u64,
        /// Bytes left in the input.
        left: u64,
    },
    /// The input ended while an LZF string's decompressed bytes were awaited.
    LzfPending {
        /// The structure being read.
        what: &'static str,
    },
    /// A push reader was finished before the file's end.
    StoppedEarly,
    /// A DUMP payload shorter than the 11 bytes of type byte and trailer.
    DumpTooShort {
        /// Its length, bytes.
        len: u64,
    },
    /// A DUMP payload fed in pieces ended at `at` of its announced `len` bytes.
    DumpCut {
        /// Bytes received.
        at: u64,
        /// Bytes announced.
        len: u64,
    },
    // --- UnsupportedVersion ---
    /// A file header naming no format bitlens reads.
    Header(FormatError),
    /// A DUMP payload's trailer version naming no format bitlens reads.
    DumpVersion(FormatError),
    /// Not an RDB file, as judged from its first bytes ([`WrongKind::of`]).
    NotRdb(super::WrongKind),
    // --- Checksum ---
    /// The CRC-64 trailer (`stored`) is not the content's (`actual`); `dump`: of a DUMP
    /// payload, else of a file.
    Crc {
        /// The trailer's value.
        stored: u64,
        /// The content's CRC-64.
        actual: u64,
        /// A DUMP payload's trailer (else a file's).
        dump: bool,
    },
    // --- UnknownType ---
    /// A value type byte `byte` that `format` does not define; `dump`: in a DUMP payload.
    UnknownType {
        /// The type byte.
        byte: u8,
        /// The file's (or payload's) format.
        format: Format,
        /// In a DUMP payload (else a file).
        dump: bool,
    },
    // --- Unsupported ---
    /// A pre-release function record (opcode 246) under a loader (`server`) that refuses it.
    FunctionPreGa {
        /// The loader's profile name.
        server: &'static str,
    },
    /// A record (opcode `op`, byte `byte`) bitlens does not read yet.
    UnsupportedRecord {
        /// The opcode.
        op: Opcode,
        /// The file's format.
        format: Format,
        /// The opcode byte.
        byte: u8,
    },
    /// A module value of the pre-release format (type 6), which cannot be walked.
    ModulePreGa,
    /// A module opcode bitlens does not know.
    UnknownModuleOpcode {
        /// The opcode.
        op: u64,
    },
    /// A database with more keys than a keyspace holds (2^32 - 1).
    DatabaseFull {
        /// The database.
        db: u64,
    },
    // --- Corrupt ---
    /// A value type (Redis 8.6+) whose values bitlens does not read yet.
    UnsupportedValue {
        /// The value type.
        kind: ValueKind,
    },
    /// A database number beyond any server's `databases` setting.
    DatabaseBeyond {
        /// The number read.
        db: u64,
        /// The largest number any server allows.
        max: u64,
    },
    /// A length byte of no defined form.
    LengthByte {
        /// The byte.
        byte: u8,
    },
    /// A special (encoded) form where a length was expected.
    ExpectedLength {
        /// The structure being read.
        what: &'static str,
    },
    /// A length of 2^64-1, Redis' loader's error marker (`RDB_LENERR`).
    LengthErrorMarker {
        /// The structure being read.
        what: &'static str,
        /// The length (2^64-1).
        length: u64,
    },
    /// A string encoding number of no defined form.
    StringEncoding {
        /// The structure being read.
        what: &'static str,
        /// The encoding number.
        encoding: u8,
    },
    /// An LZF uncompressed length impossible for its compressed length.
    LzfLength {
        /// The structure being read.
        what: &'static str,
        /// The uncompressed length declared.
        uncompressed: u64,
        /// The compressed length.
        compressed: u64,
    },
    /// LZF data that does not decompress (the [`super::RdbErrorCause::Lzf`] cause says why).
    Lzf {
        /// The structure being read.
        what: &'static str,
        /// The LZF decoder's error.
        error: super::lzf::LzfError,
    },
    /// An embedded blob (listpack, ziplist, intset, zipmap) that fails validation;
    /// `lzf_at`: the offset within its decompressed content when it was LZF-compressed.
    Blob {
        /// The structure being read.
        what: &'static str,
        /// The blob codec's error.
        error: crate::encoded::BlobError,
        /// Offset within the decompressed content, for an LZF-compressed blob.
        lzf_at: Option<u64>,
    },
    /// A sorted set blob of an odd number of elements.
    OddEntries {
        /// The structure being read.
        what: &'static str,
        /// Its element count.
        count: usize,
    },
    /// A sorted set blob score that is not a number (`item`: the element's debug text).
    BlobScore {
        /// The structure being read.
        what: &'static str,
        /// The element, as its debug text.
        item: String,
    },
    /// A sorted set score that is not a number (`nan`: NaN; else unparsable).
    Score {
        /// The score is NaN (else it is not a number at all).
        nan: bool,
    },
    /// A module aux record's when-opcode other than 2.
    ModuleAuxWhen {
        /// The opcode read.
        op: u64,
    },
    /// A quicklist container number other than 1 (plain) or 2 (packed).
    QuicklistContainer {
        /// The number read.
        container: u64,
    },
    /// A set member twice.
    DuplicateMember,
    /// A hash field twice.
    DuplicateField,
    /// A hash field TTL (relative, ms) out of range.
    FieldTtl {
        /// The TTL read.
        ttl: u64,
    },
    /// A hash field expiry (absolute, ms) out of range.
    FieldExpiry {
        /// The expiry read.
        expiry: i64,
    },
    /// A stream node id of other than 16 bytes.
    StreamNodeId {
        /// Its length.
        len: usize,
    },
    /// A stream node id twice.
    StreamNodeTwice {
        /// The id.
        id: StreamId,
    },
    /// A stream length above 0 with no node.
    StreamNoNodes {
        /// The length.
        length: u64,
    },
    /// A consumer group name twice (lossy UTF-8).
    GroupTwice {
        /// The name.
        name: String,
    },
    /// A group PEL entry twice.
    PelTwice {
        /// The id.
        id: StreamId,
    },
    /// A consumer PEL id its group's PEL does not hold.
    ConsumerPelMissing {
        /// The id.
        id: StreamId,
    },
    /// A consumer PEL id twice.
    ConsumerPelTwice {
        /// The id.
        id: StreamId,
    },
    /// A consumer name twice in its group (lossy UTF-8).
    ConsumerTwice {
        /// The name.
        name: String,
    },
    /// A stream whose counts the loader (`server`) checks and refuses.
    StreamCounts {
        /// The counts' error.
        error: StreamCountError,
        /// The loader's profile name.
        server: &'static str,
    },
    /// A module value's fields do not decode (the module decoder's error).
    ModuleField(FieldError),
    /// Bytes after a value that should end its input.
    TrailingBytes {
        /// How many.
        count: usize,
    },
    /// A key twice in one database of one file.
    DuplicateKey {
        /// The database.
        db: u64,
    },
    /// DUMP payload pieces past the announced length.
    DumpTooLong {
        /// Bytes announced.
        len: u64,
    },
    // --- Incompatible ---
    /// A DUMP payload of `payload`'s format written into a `file` of another.
    IncompatiblePayload {
        /// The payload's format.
        payload: Format,
        /// The file's format.
        file: Format,
    },
    // --- Read / Write ---
    /// The input could not be read (the [`super::RdbErrorCause::Io`] cause says why).
    Read,
    /// The output could not be written (`what`: what was written; the cause says why).
    Write {
        /// What was being written (`""`: the RDB output).
        what: &'static str,
    },
    // --- Cancelled ---
    /// The progress callback (or the caller's sink) stopped the load, for `reason` (the
    /// caller's own words).
    Cancelled {
        /// The caller's reason.
        reason: String,
    },
    // --- TooLarge ---
    /// A string longer than the limit on one value.
    TooLarge {
        /// The structure being read.
        what: &'static str,
        /// Its length, bytes.
        len: u64,
        /// Its compressed length, for an LZF string.
        lzf: Option<u64>,
        /// The limit.
        max: u64,
    },
}

impl ErrorDetail {
    /// The kind this detail is of.
    pub fn kind(&self) -> RdbErrorKind {
        use ErrorDetail::*;
        match self {
            Short { .. }
            | LengthPastEnd { .. }
            | LzfPending { .. }
            | StoppedEarly
            | DumpTooShort { .. }
            | DumpCut { .. } => RdbErrorKind::Truncated,
            Header(_) | DumpVersion(_) | NotRdb(_) => RdbErrorKind::UnsupportedVersion,
            Crc { .. } => RdbErrorKind::Checksum,
            UnknownType { .. } => RdbErrorKind::UnknownType,
            FunctionPreGa { .. }
            | UnsupportedRecord { .. }
            | ModulePreGa
            | UnknownModuleOpcode { .. }
            | DatabaseFull { .. } => RdbErrorKind::Unsupported,
            IncompatiblePayload { .. } => RdbErrorKind::Incompatible,
            Read => RdbErrorKind::Read,
            Write { .. } => RdbErrorKind::Write,
            Cancelled { .. } => RdbErrorKind::Cancelled,
            TooLarge { .. } => RdbErrorKind::TooLarge,
            _ => RdbErrorKind::Corrupt,
        }
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The detail's text; `cause` is the error's I/O cause, which `Read` and `Write` name.
pub(super) fn write_detail(
    d: &ErrorDetail,
    cause: Option<&super::RdbErrorCause>,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    use ErrorDetail::*;
    let io = |f: &mut fmt::Formatter<'_>| match cause {
        Some(super::RdbErrorCause::Io(e)) => write!(f, "{e}"),
        Some(c) => write!(f, "{}", c.as_error()),
        None => f.write_str("I/O error"),
    };
    match d {
        Short { what, needed, left } => write!(
            f,
            "truncated input: {what} needs {needed} byte{}, only {left} remain",
            plural(*needed)
        ),
        LengthPastEnd { what, length, left } => write!(
            f,
            "{what} {length} exceeds what the remaining {left} bytes can hold"
        ),
        LzfPending { what } => {
            write!(f, "{what}: waiting for the LZF string's decompressed bytes")
        }
        StoppedEarly => {
            f.write_str("truncated input: the reader stopped before the end of the file")
        }
        DumpTooShort { len } => {
            write!(f, "DUMP payload of {len} bytes is too short (at least 11)")
        }
        DumpCut { at, len } => write!(f, "DUMP payload cut at {at} of {len} bytes"),
        Header(e) => write!(f, "{e}"),
        DumpVersion(e) => write!(f, "DUMP payload: {e}"),
        NotRdb(w) => write!(f, "{w}"),
        Crc {
            stored,
            actual,
            dump: false,
        } => write!(
            f,
            "CRC-64 mismatch: file says {stored:016x}, content hashes to {actual:016x} (file \
             corrupt); the check can be skipped"
        ),
        Crc {
            stored,
            actual,
            dump: true,
        } => write!(
            f,
            "DUMP payload CRC-64 mismatch: payload says {stored:016x}, content hashes to \
             {actual:016x}; the check can be skipped"
        ),
        UnknownType { byte, format, dump } => write!(
            f,
            "unknown RDB value type {byte} (byte 0x{byte:02x}) in a {format} {}",
            if *dump { "DUMP payload" } else { "file" }
        ),
        FunctionPreGa { server } => write!(
            f,
            "pre-release function format (RDB_OPCODE_FUNCTION_PRE_GA, 246) not supported by \
             {server}"
        ),
        UnsupportedRecord { op, format, byte } => write!(
            f,
            "{} records ({format}, byte {byte}) are not supported yet",
            op.name()
        ),
        ModulePreGa => f.write_str(
            "module value of pre-release format (RDB_TYPE_MODULE_PRE_GA, type 6) cannot be walked",
        ),
        UnknownModuleOpcode { op } => write!(f, "unknown module opcode {op}"),
        DatabaseFull { db } => write!(f, "database {db} holds more than 2^32 - 1 keys"),
        UnsupportedValue { kind } => write!(
            f,
            "values of {} (Redis 8.6+) are not supported yet",
            kind.name()
        ),
        DatabaseBeyond { db, max } => write!(
            f,
            "database number {db} is beyond any server's databases setting (at most {max})"
        ),
        LengthByte { byte } => write!(f, "invalid length byte 0x{byte:02x}"),
        ExpectedLength { what } => write!(f, "{what}: expected a length"),
        LengthErrorMarker { what, length } => write!(
            f,
            "{what}: {length} (2^64-1) is the value Redis' loader reports a read error with \
             (RDB_LENERR); Redis refuses this file"
        ),
        StringEncoding { what, encoding } => {
            write!(f, "{what}: unknown string encoding {encoding}")
        }
        LzfLength {
            what,
            uncompressed,
            compressed,
        } => write!(
            f,
            "{what}: LZF uncompressed length {uncompressed} impossible for {compressed} \
             compressed bytes"
        ),
        Lzf { what, error } => write!(f, "{what}: LZF data corrupt: {}", error.description()),
        Blob {
            what,
            error,
            lzf_at: Some(at),
        } => write!(
            f,
            "corrupt {what} (in the LZF-compressed string here, at byte {at} of its \
             decompressed content): {}",
            error.message
        ),
        Blob {
            what,
            error,
            lzf_at: None,
        } => write!(f, "corrupt {what}: {}", error.message),
        OddEntries { what, count } => write!(f, "{what}: odd number of entries {count}"),
        BlobScore { what, item } => write!(f, "{what}: score {item} is not a number"),
        Score { nan: true } => f.write_str("sorted set score is NaN"),
        Score { nan: false } => f.write_str("sorted set score is not a number"),
        ModuleAuxWhen { op } => write!(f, "module aux when-opcode {op}, expected 2"),
        QuicklistContainer { container } => {
            write!(f, "unknown quicklist container {container}")
        }
        DuplicateMember => f.write_str("duplicate set member"),
        DuplicateField => f.write_str("duplicate hash field"),
        FieldTtl { ttl } => write!(f, "hash field TTL {ttl} out of range"),
        FieldExpiry { expiry } => write!(f, "hash field expiry {expiry} out of range"),
        StreamNodeId { len } => write!(f, "stream node id of {len} bytes, expected 16"),
        StreamNodeTwice { id } => write!(f, "stream node id {} appears twice", id.text()),
        StreamNoNodes { length } => write!(f, "stream length {length} but no nodes"),
        GroupTwice { name } => write!(f, "consumer group {name:?} appears twice"),
        PelTwice { id } => write!(f, "PEL entry {} appears twice in its group", id.text()),
        ConsumerPelMissing { id } => {
            write!(f, "consumer PEL id {} not in its group's PEL", id.text())
        }
        ConsumerPelTwice { id } => write!(f, "consumer PEL id {} appears twice", id.text()),
        ConsumerTwice { name } => write!(f, "consumer {name:?} appears twice in its group"),
        StreamCounts { error, server } => write!(f, "{error} (refused by {server} at load)"),
        ModuleField(e) => f.write_str(&e.message),
        TrailingBytes { count } => write!(f, "{count} unexpected bytes after the value"),
        DuplicateKey { db } => write!(
            f,
            "duplicated key in database {db} (Redis refuses such a file)"
        ),
        DumpTooLong { len } => write!(f, "DUMP payload longer than the announced {len} bytes"),
        IncompatiblePayload { payload, file } => {
            write!(f, "DUMP payload of {payload} cannot go into a {file} file")
        }
        Read => {
            f.write_str("cannot read input: ")?;
            io(f)
        }
        Write { what: "" } => {
            f.write_str("write failed: ")?;
            io(f)
        }
        Write { what } => {
            write!(f, "{what}: ")?;
            io(f)
        }
        Cancelled { reason } => f.write_str(reason),
        TooLarge {
            what,
            len,
            lzf,
            max,
        } => {
            write!(f, "{what} of {len} bytes")?;
            if let Some(c) = lzf {
                write!(f, " (LZF-compressed in {c} bytes)")?;
            }
            write!(
                f,
                " is longer than the limit on one value, {max} bytes (Redis' \
                 proto-max-bulk-len is 512 MB by default)"
            )
        }
    }
}

/// Why bytes are the wrong kind of input, judged from their first bytes ([`super::detect()`]):
/// what `bitlens::open::wrong_kind` reports before any reader's error.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WrongKind {
    /// Zero bytes.
    Empty,
    /// An RDB file where a DUMP payload was expected (its format).
    RdbNotDump(Format),
    /// An RDB file bitlens cannot read where a DUMP payload was expected (the header's
    /// problem, as [`super::Detected::UnsupportedRdb`] holds it).
    UnsupportedRdbNotDump(FormatError),
    /// A DUMP payload where an RDB file was expected.
    DumpNotRdb {
        /// The format its trailer names.
        format: Format,
        /// What its type byte means in that format.
        kind: ValueKind,
    },
}

impl WrongKind {
    /// Why `bytes` are the wrong kind of input for a DUMP payload (`dump`) or an RDB file;
    /// `None` when they may be right (the reader's own error then says what is wrong).
    pub fn of(bytes: &[u8], dump: bool) -> Option<WrongKind> {
        match (super::detect(bytes), dump) {
            (super::Detected::Empty, _) => Some(WrongKind::Empty),
            (super::Detected::Rdb(f), true) => Some(WrongKind::RdbNotDump(f)),
            (super::Detected::UnsupportedRdb(m), true) => Some(WrongKind::UnsupportedRdbNotDump(m)),
            (super::Detected::Dump { format, kind }, false) => {
                Some(WrongKind::DumpNotRdb { format, kind })
            }
            _ => None,
        }
    }
}

impl fmt::Display for WrongKind {
    /// The CLI's words: `empty file`, `this is an RDB file (REDIS0011); use --rdb`, `this is a
    /// DUMP payload (...); use `bitlens query --dump KEY=FILE``.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WrongKind::Empty => f.write_str("empty file"),
            WrongKind::RdbNotDump(format) => {
                write!(f, "this is an RDB file ({}); use --rdb", format.magic())
            }
            WrongKind::UnsupportedRdbNotDump(m) => {
                write!(f, "this is an RDB file; use --rdb ({m})")
            }
            WrongKind::DumpNotRdb { format, kind } => write!(
                f,
                "this is {}; use `bitlens query --dump KEY=FILE`",
                super::Detected::Dump {
                    format: *format,
                    kind: *kind
                }
                .describe()
            ),
        }
    }
}
