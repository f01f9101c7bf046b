//! Which snapshot format a file or payload is, and what its type and opcode bytes mean.
//!
//! An RDB file starts with a 9-byte magic: `REDIS` + 4 decimal digits (Redis, and Valkey up to
//! 8.x, which writes Redis' format 11) or `VALKEY` + 3 digits (Valkey 9+, RDB 80 and up). A
//! DUMP payload carries only its 2-byte RDB version: 1 to [`REDIS_MAX_VERSION`] is Redis'
//! format, 80 and up Valkey's. The [`Format`] (writer family + RDB version) decides how every
//! byte that follows is read: the same type or opcode byte means different things per family
//! (type 22 is Redis' 7.4-RC field-expiry hash but Valkey 9's `RDB_TYPE_HASH_2`; opcode 243 is
//! Redis 8's `RDB_OPCODE_KEY_META` but Valkey 9's `RDB_OPCODE_SLOT_IMPORT`). Each family has one
//! table of named type ids ([`REDIS_TYPES`], [`VALKEY_TYPES`]) and one of opcodes
//! ([`REDIS_OPCODES`], [`VALKEY_OPCODES`]); each entry records the first RDB version that
//! writes it. The decoders dispatch on the closed [`ValueKind`] / [`Opcode`] enums, never on a
//! bare byte.

use std::fmt;

use crate::keyspace::RedisType;

/// Who wrote a snapshot's wire format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// Redis' format (magic `REDIS` + 4 digits, versions 1–15); also what Valkey 7.2–8.x writes.
    Redis,
    /// Valkey's own format (magic `VALKEY` + 3 digits, versions 80+; Valkey 9.0+).
    Valkey,
}

impl Family {
    /// `"Redis"` or `"Valkey"`.
    pub fn name(self) -> &'static str {
        match self {
            Family::Redis => "Redis",
            Family::Valkey => "Valkey",
        }
    }
}

/// The oldest RDB version bitlens reads (Redis 1.x files; Redis 7.4 still loads them).
pub const REDIS_MIN_VERSION: u32 = 1;
/// The newest Redis RDB version bitlens reads (Redis 8.10 writes 15).
pub const REDIS_MAX_VERSION: u32 = 15;
/// The oldest Valkey-format RDB version (Valkey 9.0 writes 80).
pub const VALKEY_MIN_VERSION: u32 = 80;
/// The newest Valkey-format RDB version bitlens reads.
pub const VALKEY_MAX_VERSION: u32 = 81;

/// A snapshot format: writer family and RDB version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Format {
    /// Who writes this format (Redis or Valkey numbering of types and opcodes).
    pub family: Family,
    /// The RDB version (Redis 1..=15, Valkey 80..).
    pub version: u32,
}

impl Default for Format {
    fn default() -> Self {
        Format::REDIS_7_4
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} RDB {}", self.family.name(), self.version)
    }
}

/// The kind of one stored value: which RDB type id it was written as. Closed: every type id
/// of every family maps to one of these (see [`Format::value_kind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// `RDB_TYPE_STRING`.
    String,
    /// `RDB_TYPE_LIST`.
    List,
    /// `RDB_TYPE_SET`.
    Set,
    /// `RDB_TYPE_ZSET`.
    ZSet,
    /// `RDB_TYPE_HASH`.
    Hash,
    /// `RDB_TYPE_ZSET_2`.
    ZSet2,
    /// `RDB_TYPE_MODULE_PRE_GA`.
    ModulePreGa,
    /// `RDB_TYPE_MODULE_2`.
    Module2,
    /// `RDB_TYPE_HASH_ZIPMAP`.
    HashZipmap,
    /// `RDB_TYPE_LIST_ZIPLIST`.
    ListZiplist,
    /// `RDB_TYPE_SET_INTSET`.
    SetIntset,
    /// `RDB_TYPE_ZSET_ZIPLIST`.
    ZSetZiplist,
    /// `RDB_TYPE_HASH_ZIPLIST`.
    HashZiplist,
    /// `RDB_TYPE_LIST_QUICKLIST`.
    ListQuicklist,
    /// `RDB_TYPE_STREAM_LISTPACKS`.
    StreamListpacks,
    /// `RDB_TYPE_HASH_LISTPACK`.
    HashListpack,
    /// `RDB_TYPE_ZSET_LISTPACK`.
    ZSetListpack,
    /// `RDB_TYPE_LIST_QUICKLIST_2`.
    ListQuicklist2,
    /// `RDB_TYPE_STREAM_LISTPACKS_2`.
    StreamListpacks2,
    /// `RDB_TYPE_SET_LISTPACK`.
    SetListpack,
    /// `RDB_TYPE_STREAM_LISTPACKS_3`.
    StreamListpacks3,
    /// Redis 7.4 release candidates: hash with field expiry, no leading minimum TTL.
    HashMetadataPreGa,
    /// Redis 7.4 release candidates: listpack hash with field expiry, no leading minimum TTL.
    HashListpackExPreGa,
    /// `RDB_TYPE_HASH_METADATA`.
    HashMetadata,
    /// `RDB_TYPE_HASH_LISTPACK_EX`.
    HashListpackEx,
    /// Redis 8.6+ (RDB 13): stream with idempotent-producer (IDMP) state.
    StreamListpacks4,
    /// Redis 8.8+ (RDB 14): stream with NACKed entries.
    StreamListpacks5,
    /// Redis 8.x (RDB 14+): the array type.
    Array,
    /// Redis 8.x (RDB 15): hash templates.
    HashTmplLp,
    /// `RDB_TYPE_HASH_TMPL_LP_REF`.
    HashTmplLpRef,
    /// `RDB_TYPE_HASH_TMPL_ARRAY`.
    HashTmplArray,
    /// `RDB_TYPE_HASH_TMPL_ARRAY_REF`.
    HashTmplArrayRef,
    /// Redis 8.8+: the built-in GCRA rate limiter.
    Gcra,
    /// Valkey 9 (RDB 80): hash with per-field expiry: count, then (field, value, expiry ms
    /// as 8-byte little-endian, -1 = none) triples.
    Hash2,
}

/// Static facts about a [`ValueKind`].
#[derive(Debug, Clone, Copy)]
pub struct KindInfo {
    /// The `RDB_TYPE_…` name of the id.
    pub name: &'static str,
    /// The Redis type (TYPE reply) of such a value; `None` when no Redis type is known.
    pub redis_type: Option<RedisType>,
    /// The container as stored (`ziplist`, `quicklist(listpack)`, ...).
    pub encoding: &'static str,
}

impl ValueKind {
    /// Names, types and encodings of the kind.
    pub fn info(self) -> KindInfo {
        use RedisType as T;
        use ValueKind::*;
        let (name, t, enc): (&'static str, Option<RedisType>, &'static str) = match self {
            String => ("RDB_TYPE_STRING", Some(T::String), "string"),
            List => ("RDB_TYPE_LIST", Some(T::List), "linkedlist"),
            Set => ("RDB_TYPE_SET", Some(T::Set), "hashtable"),
            ZSet => ("RDB_TYPE_ZSET", Some(T::ZSet), "skiplist"),
            Hash => ("RDB_TYPE_HASH", Some(T::Hash), "hashtable"),
            ZSet2 => ("RDB_TYPE_ZSET_2", Some(T::ZSet), "skiplist"),
            ModulePreGa => ("RDB_TYPE_MODULE_PRE_GA", None, "module"),
            Module2 => ("RDB_TYPE_MODULE_2", None, "module"),
            HashZipmap => ("RDB_TYPE_HASH_ZIPMAP", Some(T::Hash), "zipmap"),
            ListZiplist => ("RDB_TYPE_LIST_ZIPLIST", Some(T::List), "ziplist"),
            SetIntset => ("RDB_TYPE_SET_INTSET", Some(T::Set), "intset"),
            ZSetZiplist => ("RDB_TYPE_ZSET_ZIPLIST", Some(T::ZSet), "ziplist"),
            HashZiplist => ("RDB_TYPE_HASH_ZIPLIST", Some(T::Hash), "ziplist"),
            ListQuicklist => (
                "RDB_TYPE_LIST_QUICKLIST",
                Some(T::List),
                "quicklist(ziplist)",
            ),
            StreamListpacks => (
                "RDB_TYPE_STREAM_LISTPACKS",
                Some(T::Stream),
                "stream(listpacks v1)",
            ),
            HashListpack => ("RDB_TYPE_HASH_LISTPACK", Some(T::Hash), "listpack"),
            ZSetListpack => ("RDB_TYPE_ZSET_LISTPACK", Some(T::ZSet), "listpack"),
            ListQuicklist2 => (
                "RDB_TYPE_LIST_QUICKLIST_2",
                Some(T::List),
                "quicklist(listpack)",
            ),
            StreamListpacks2 => (
                "RDB_TYPE_STREAM_LISTPACKS_2",
                Some(T::Stream),
                "stream(listpacks v2)",
            ),
            SetListpack => ("RDB_TYPE_SET_LISTPACK", Some(T::Set), "listpack"),
            StreamListpacks3 => (
                "RDB_TYPE_STREAM_LISTPACKS_3",
                Some(T::Stream),
                "stream(listpacks v3)",
            ),
            HashMetadataPreGa => (
                "RDB_TYPE_HASH_METADATA_PRE_GA",
                Some(T::Hash),
                "hashtable(field expiry)",
            ),
            HashListpackExPreGa => (
                "RDB_TYPE_HASH_LISTPACK_EX_PRE_GA",
                Some(T::Hash),
                "listpack(field expiry)",
            ),
            HashMetadata => (
                "RDB_TYPE_HASH_METADATA",
                Some(T::Hash),
                "hashtable(field expiry)",
            ),
            HashListpackEx => (
                "RDB_TYPE_HASH_LISTPACK_EX",
                Some(T::Hash),
                "listpack(field expiry)",
            ),
            StreamListpacks4 => (
                "RDB_TYPE_STREAM_LISTPACKS_4",
                Some(T::Stream),
                "stream(listpacks v4)",
            ),
            StreamListpacks5 => (
                "RDB_TYPE_STREAM_LISTPACKS_5",
                Some(T::Stream),
                "stream(listpacks v5)",
            ),
            Array => ("RDB_TYPE_ARRAY", None, "array"),
            HashTmplLp => ("RDB_TYPE_HASH_TMPL_LP", Some(T::Hash), "listpack(template)"),
            HashTmplLpRef => (
                "RDB_TYPE_HASH_TMPL_LP_REF",
                Some(T::Hash),
                "listpack(template ref)",
            ),
            HashTmplArray => ("RDB_TYPE_HASH_TMPL_ARRAY", Some(T::Hash), "array(template)"),
            HashTmplArrayRef => (
                "RDB_TYPE_HASH_TMPL_ARRAY_REF",
                Some(T::Hash),
                "array(template ref)",
            ),
            Gcra => ("RDB_TYPE_GCRA", None, "gcra"),
            Hash2 => ("RDB_TYPE_HASH_2", Some(T::Hash), "hashtable(field expiry)"),
        };
        KindInfo {
            name,
            redis_type: t,
            encoding: enc,
        }
    }

    /// The `RDB_TYPE_…` name.
    pub fn name(self) -> &'static str {
        self.info().name
    }
}

/// A record opcode (a byte that is not a value type). Closed over every family's opcodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Opcode {
    /// Redis 8.x: hash templates shared by template-encoded hashes (not readable yet).
    HashTemplates,
    /// Redis 8.6+: per-key metadata before a key (class count, then per class a 4-byte
    /// class spec and module-opcode-tagged fields up to their EOF).
    KeyMeta,
    /// Valkey 9: slot import state (job name, range count, start/end pairs).
    SlotImport,
    /// Cluster slot sizes: slot id, keys, keys with expiry (Redis 7.4+; in Valkey "foreign
    /// slot info, safe to ignore").
    SlotInfo,
    /// `RDB_OPCODE_FUNCTION2`.
    Function2,
    /// `RDB_OPCODE_FUNCTION_PRE_GA`.
    FunctionPreGa,
    /// `RDB_OPCODE_MODULE_AUX`.
    ModuleAux,
    /// `RDB_OPCODE_IDLE`.
    Idle,
    /// `RDB_OPCODE_FREQ`.
    Freq,
    /// `RDB_OPCODE_AUX`.
    Aux,
    /// `RDB_OPCODE_RESIZEDB`.
    ResizeDb,
    /// `RDB_OPCODE_EXPIRETIME_MS`.
    ExpireTimeMs,
    /// `RDB_OPCODE_EXPIRETIME`.
    ExpireTime,
    /// `RDB_OPCODE_SELECTDB`.
    SelectDb,
    /// `RDB_OPCODE_EOF`.
    Eof,
    /// Redis Enterprise: RAM LRU of the next key (one length), skipped.
    RamLru,
    /// Redis Enterprise: cluster slot number of the next key (one length), skipped.
    SlotNum,
}

impl Opcode {
    /// True for the opcodes that only qualify the key record after them (its expiry, LRU idle
    /// time, LFU frequency, Redis 8 key metadata, Redis Enterprise's per-key fields): they
    /// change no reader state but the pending expiry, so a run of key records with them
    /// between can be decoded out of order (the parallel reader's batches).
    pub fn prefixes_key(self) -> bool {
        matches!(
            self,
            Opcode::ExpireTimeMs
                | Opcode::ExpireTime
                | Opcode::Idle
                | Opcode::Freq
                | Opcode::KeyMeta
                | Opcode::RamLru
                | Opcode::SlotNum
        )
    }

    /// The `RDB_OPCODE_…` name.
    pub fn name(self) -> &'static str {
        match self {
            Opcode::HashTemplates => "RDB_OPCODE_HASH_TEMPLATES",
            Opcode::KeyMeta => "RDB_OPCODE_KEY_META",
            Opcode::SlotImport => "RDB_OPCODE_SLOT_IMPORT",
            Opcode::SlotInfo => "RDB_OPCODE_SLOT_INFO",
            Opcode::Function2 => "RDB_OPCODE_FUNCTION2",
            Opcode::FunctionPreGa => "RDB_OPCODE_FUNCTION_PRE_GA",
            Opcode::ModuleAux => "RDB_OPCODE_MODULE_AUX",
            Opcode::Idle => "RDB_OPCODE_IDLE",
            Opcode::Freq => "RDB_OPCODE_FREQ",
            Opcode::Aux => "RDB_OPCODE_AUX",
            Opcode::ResizeDb => "RDB_OPCODE_RESIZEDB",
            Opcode::ExpireTimeMs => "RDB_OPCODE_EXPIRETIME_MS",
            Opcode::ExpireTime => "RDB_OPCODE_EXPIRETIME",
            Opcode::SelectDb => "RDB_OPCODE_SELECTDB",
            Opcode::Eof => "RDB_OPCODE_EOF",
            Opcode::RamLru => "RDB_OPCODE_RAM_LRU",
            Opcode::SlotNum => "RDB_OPCODE_SLOT_NUM",
        }
    }
}

/// One row of a family's table: wire byte, meaning, first RDB version that writes it.
#[derive(Debug, Clone, Copy)]
pub struct Id<K> {
    /// The byte in the file.
    pub byte: u8,
    /// What it means.
    pub kind: K,
    /// The first RDB version of the family that writes it.
    pub since: u32,
}

const fn id<K>(byte: u8, kind: K, since: u32) -> Id<K> {
    Id { byte, kind, since }
}

use ValueKind as K;

/// Redis' RDB type ids (rdb.h of Redis 2.x–8.10), with the RDB version that introduced each
/// (for 26–33 as public descriptions of Redis 8.6–8.10 give them; no such server runs here).
pub const REDIS_TYPES: &[Id<ValueKind>] = &[
    id(0, K::String, 1),
    id(1, K::List, 1),
    id(2, K::Set, 1),
    id(3, K::ZSet, 1),
    id(4, K::Hash, 1),
    id(5, K::ZSet2, 8),
    id(6, K::ModulePreGa, 8),
    id(7, K::Module2, 8),
    id(9, K::HashZipmap, 2),
    id(10, K::ListZiplist, 2),
    id(11, K::SetIntset, 2),
    id(12, K::ZSetZiplist, 2),
    id(13, K::HashZiplist, 4),
    id(14, K::ListQuicklist, 7),
    id(15, K::StreamListpacks, 9),
    id(16, K::HashListpack, 10),
    id(17, K::ZSetListpack, 10),
    id(18, K::ListQuicklist2, 10),
    id(19, K::StreamListpacks2, 10),
    id(20, K::SetListpack, 11),
    id(21, K::StreamListpacks3, 11),
    id(22, K::HashMetadataPreGa, 12),
    id(23, K::HashListpackExPreGa, 12),
    id(24, K::HashMetadata, 12),
    id(25, K::HashListpackEx, 12),
    id(26, K::StreamListpacks4, 13),
    id(27, K::StreamListpacks5, 14),
    id(28, K::Array, 14),
    id(29, K::HashTmplLp, 15),
    id(30, K::HashTmplLpRef, 15),
    id(31, K::HashTmplArray, 15),
    id(32, K::HashTmplArrayRef, 15),
    id(33, K::Gcra, 14),
];

/// Valkey's RDB type ids (its rdb.h of 9.x): Redis' up to 21, then its own 22.
pub const VALKEY_TYPES: &[Id<ValueKind>] = &[
    id(0, K::String, 80),
    id(1, K::List, 80),
    id(2, K::Set, 80),
    id(3, K::ZSet, 80),
    id(4, K::Hash, 80),
    id(5, K::ZSet2, 80),
    id(6, K::ModulePreGa, 80),
    id(7, K::Module2, 80),
    id(9, K::HashZipmap, 80),
    id(10, K::ListZiplist, 80),
    id(11, K::SetIntset, 80),
    id(12, K::ZSetZiplist, 80),
    id(13, K::HashZiplist, 80),
    id(14, K::ListQuicklist, 80),
    id(15, K::StreamListpacks, 80),
    id(16, K::HashListpack, 80),
    id(17, K::ZSetListpack, 80),
    id(18, K::ListQuicklist2, 80),
    id(19, K::StreamListpacks2, 80),
    id(20, K::SetListpack, 80),
    id(21, K::StreamListpacks3, 80),
    id(22, K::Hash2, 80),
];

use Opcode as O;

/// Redis' opcodes, with the RDB version that introduced each. 107 and 121 are written only by
/// Redis Enterprise (each one length, skipped); bitlens never writes them.
pub const REDIS_OPCODES: &[Id<Opcode>] = &[
    id(107, O::RamLru, 12),
    id(121, O::SlotNum, 12),
    id(242, O::HashTemplates, 15),
    id(243, O::KeyMeta, 13),
    id(244, O::SlotInfo, 12),
    id(245, O::Function2, 10),
    id(246, O::FunctionPreGa, 10),
    id(247, O::ModuleAux, 8),
    id(248, O::Idle, 8),
    id(249, O::Freq, 8),
    id(250, O::Aux, 7),
    id(251, O::ResizeDb, 7),
    id(252, O::ExpireTimeMs, 3),
    id(253, O::ExpireTime, 1),
    id(254, O::SelectDb, 1),
    id(255, O::Eof, 1),
];

/// Valkey's opcodes (9.x).
pub const VALKEY_OPCODES: &[Id<Opcode>] = &[
    id(243, O::SlotImport, 80),
    id(244, O::SlotInfo, 80),
    id(245, O::Function2, 80),
    id(246, O::FunctionPreGa, 80),
    id(247, O::ModuleAux, 80),
    id(248, O::Idle, 80),
    id(249, O::Freq, 80),
    id(250, O::Aux, 80),
    id(251, O::ResizeDb, 80),
    id(252, O::ExpireTimeMs, 80),
    id(253, O::ExpireTime, 80),
    id(254, O::SelectDb, 80),
    id(255, O::Eof, 80),
];

/// A family's tables indexed by byte (built at compile time from the lists above).
struct Tables {
    types: [Option<ValueKind>; 256],
    opcodes: [Option<Opcode>; 256],
}

const fn index(types: &[Id<ValueKind>], opcodes: &[Id<Opcode>]) -> Tables {
    let mut t = Tables {
        types: [None; 256],
        opcodes: [None; 256],
    };
    let mut i = 0;
    while i < types.len() {
        t.types[types[i].byte as usize] = Some(types[i].kind);
        i += 1;
    }
    let mut i = 0;
    while i < opcodes.len() {
        t.opcodes[opcodes[i].byte as usize] = Some(opcodes[i].kind);
        i += 1;
    }
    t
}

static REDIS: Tables = index(REDIS_TYPES, REDIS_OPCODES);
static VALKEY: Tables = index(VALKEY_TYPES, VALKEY_OPCODES);

impl Format {
    /// Redis 7.0 (RDB 10).
    pub const REDIS_7_0: Format = Format::redis(10);
    /// Redis 7.4 (RDB 12).
    pub const REDIS_7_4: Format = Format::redis(12);
    /// Valkey 9.0/9.1 (RDB 80).
    pub const VALKEY_9: Format = Format {
        family: Family::Valkey,
        version: 80,
    };

    /// Redis' format of RDB `version`.
    pub const fn redis(version: u32) -> Format {
        Format {
            family: Family::Redis,
            version,
        }
    }

    /// The format of a 9-byte file header: `REDIS` + 4 digits or `VALKEY` + 3 digits, with
    /// the version in the family's known range. The error names what was found.
    pub fn from_magic(magic: &[u8]) -> Result<Format, FormatError> {
        let head = || magic[..magic.len().min(9)].to_vec();
        let (family, digits) = if magic.starts_with(b"REDIS") {
            (Family::Redis, magic.get(5..9))
        } else if magic.starts_with(b"VALKEY") {
            (Family::Valkey, magic.get(6..9))
        } else {
            return Err(FormatError::NotRdb { head: head() });
        };
        let version = digits
            .filter(|d| d.iter().all(u8::is_ascii_digit))
            .and_then(|d| std::str::from_utf8(d).ok()?.parse::<u32>().ok())
            .ok_or_else(|| FormatError::NoVersion {
                head: head(),
                family,
            })?;
        Format { family, version }.checked()
    }

    /// The format a DUMP payload's 2-byte RDB version names: 1–15 Redis, 80–81 Valkey.
    pub fn from_dump_version(version: u16) -> Result<Format, FormatError> {
        let v = version as u32;
        let family = if v >= VALKEY_MIN_VERSION {
            Family::Valkey
        } else {
            Family::Redis
        };
        Format { family, version: v }.checked()
    }

    /// `Ok(self)` when bitlens reads this family and version, else an error naming the
    /// version and the range read.
    pub fn checked(self) -> Result<Format, FormatError> {
        let (lo, hi) = self.family_range();
        if (lo..=hi).contains(&self.version) {
            return Ok(self);
        }
        let (family, version) = (self.family, self.version);
        Err(if version > hi {
            FormatError::TooNew {
                family,
                version,
                newest: hi,
            }
        } else {
            FormatError::Unsupported {
                family,
                version,
                oldest: lo,
                newest: hi,
            }
        })
    }

    fn family_range(self) -> (u32, u32) {
        match self.family {
            Family::Redis => (REDIS_MIN_VERSION, REDIS_MAX_VERSION),
            Family::Valkey => (VALKEY_MIN_VERSION, VALKEY_MAX_VERSION),
        }
    }

    /// The 9-byte header of a file in this format (`REDIS0012`, `VALKEY080`).
    pub fn magic(self) -> String {
        match self.family {
            Family::Redis => format!("REDIS{:04}", self.version),
            Family::Valkey => format!("VALKEY{:03}", self.version),
        }
    }

    fn tables(self) -> &'static Tables {
        match self.family {
            Family::Redis => &REDIS,
            Family::Valkey => &VALKEY,
        }
    }

    /// The family's table of type ids.
    pub fn type_table(self) -> &'static [Id<ValueKind>] {
        match self.family {
            Family::Redis => REDIS_TYPES,
            Family::Valkey => VALKEY_TYPES,
        }
    }

    /// The family's table of opcodes.
    pub fn opcode_table(self) -> &'static [Id<Opcode>] {
        match self.family {
            Family::Redis => REDIS_OPCODES,
            Family::Valkey => VALKEY_OPCODES,
        }
    }

    /// What type byte `b` means in this family (`None`: not a type id of the family).
    /// Loading does not gate ids by version: as Redis does, a file may use any id its
    /// family defines.
    pub fn value_kind(self, b: u8) -> Option<ValueKind> {
        self.tables().types[b as usize]
    }

    /// What opcode byte `b` means in this family.
    pub fn opcode(self, b: u8) -> Option<Opcode> {
        self.tables().opcodes[b as usize]
    }

    /// The byte this family writes `kind` as, when files of this version may hold it.
    pub fn type_byte(self, kind: ValueKind) -> Option<u8> {
        self.type_table()
            .iter()
            .find(|i| i.kind == kind && i.since <= self.version)
            .map(|i| i.byte)
    }

    /// The byte this family writes opcode `op` as, when files of this version have it.
    pub fn opcode_byte(self, op: Opcode) -> Option<u8> {
        self.opcode_table()
            .iter()
            .find(|i| i.kind == op && i.since <= self.version)
            .map(|i| i.byte)
    }

    /// True when files of this format end with a CRC-64 after EOF (RDB 5+).
    pub fn has_checksum(self) -> bool {
        self.family == Family::Valkey || self.version >= 5
    }

    /// True when `other`'s payloads can be written verbatim into a file of this format:
    /// same family (or a Redis-format payload into a Valkey file) and not newer.
    pub fn accepts_payload(self, other: Format) -> bool {
        match (self.family, other.family) {
            (Family::Redis, Family::Redis) | (Family::Valkey, Family::Valkey) => {
                other.version <= self.version
            }
            // Valkey 9 loads Redis-format payloads up to the Redis version it forked from.
            (Family::Valkey, Family::Redis) => other.version <= 11,
            (Family::Redis, Family::Valkey) => false,
        }
    }

    /// The format a server writes, from its `redis_version` and, for Valkey, its
    /// `valkey_version` (INFO server): Valkey 9+ writes RDB 80; Valkey 7.2–8.x RDB 11; Redis
    /// 2.6→6, 2.8→7, 4.0→8, 5.0–6.2→9, 7.0→10, 7.2→11, 7.4–8.4→12, 8.6→13, 8.8→14, 8.10+→15.
    pub fn for_server(redis_version: &str, valkey_version: Option<&str>) -> Format {
        let parse = |v: &str| -> (u32, u32) {
            let mut it = v.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
            (it.next().unwrap_or(0), it.next().unwrap_or(0))
        };
        if let Some(vk) = valkey_version {
            let (major, _) = parse(vk);
            return if major >= 9 {
                Format::VALKEY_9
            } else {
                Format::redis(11)
            };
        }
        let (major, minor) = parse(redis_version);
        Format::redis(match (major, minor) {
            (0..=2, 0..=5) => 6,
            (0..=2, _) => 7,
            (3, _) => 7,
            (4, _) => 8,
            (5 | 6, _) => 9,
            (7, 0..=1) => 10,
            (7, 2..=3) => 11,
            (7, _) => 12,
            (8, 0..=5) => 12,
            (8, 6..=7) => 13,
            (8, 8..=9) => 14,
            _ => 15,
        })
    }
}

/// The Redis type and stored encoding of Redis type byte `t` (as the newest Redis format
/// reads it); module values answer `module???` (their name is in the value). Kept for
/// callers that hold a bare Redis-format byte; prefer [`Format::value_kind`].
pub fn type_info(t: u8) -> Option<(RedisType, &'static str)> {
    let kind = Format::redis(REDIS_MAX_VERSION).value_kind(t)?;
    let info = kind.info();
    let rt = match (info.redis_type, kind) {
        (Some(rt), _) => rt,
        (None, ValueKind::Module2 | ValueKind::ModulePreGa) => RedisType::Module(*b"module???"),
        (None, _) => return None,
    };
    Some((rt, info.encoding))
}

/// What a snapshot says about its writer: the format plus the server version aux fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Writer {
    /// The file's format (from its magic).
    pub format: Format,
    /// The `redis-ver` aux field, when present.
    pub redis_ver: Option<String>,
    /// The `valkey-ver` aux field, when present (Valkey 8+ writes it instead of, or besides,
    /// `redis-ver`).
    pub valkey_ver: Option<String>,
    /// The `used-mem` aux field (the server's `used_memory` at save, bytes), when present and
    /// a number.
    pub used_mem: Option<u64>,
    /// The `ctime` aux field (when the server saved the file, decimal Unix seconds), when
    /// present.
    pub ctime: Option<String>,
}

impl Writer {
    /// The writer described by a format and a file's aux fields.
    pub fn new(format: Format, aux: &[(Vec<u8>, Vec<u8>)]) -> Writer {
        let get = |name: &[u8]| {
            aux.iter()
                .find(|(k, _)| k.as_slice() == name)
                .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
        };
        Writer {
            format,
            redis_ver: get(b"redis-ver"),
            valkey_ver: get(b"valkey-ver"),
            used_mem: get(b"used-mem").and_then(|v| v.parse().ok()),
            ctime: get(b"ctime"),
        }
    }

    /// The server product that wrote the file: `"Valkey"` when a `valkey-ver` aux field or
    /// the Valkey magic says so, else `"Redis"`.
    pub fn server(&self) -> &'static str {
        if self.valkey_ver.is_some() || self.format.family == Family::Valkey {
            "Valkey"
        } else {
            "Redis"
        }
    }

    /// One line: `Valkey 9.1.2 (VALKEY080: Valkey RDB 80)`, `Redis 7.4.1 (REDIS0012: Redis RDB 12)`.
    pub fn describe(&self) -> String {
        let ver = self
            .valkey_ver
            .as_deref()
            .or(self.redis_ver.as_deref())
            .unwrap_or("(version not recorded)");
        format!(
            "{} {ver} ({}: {})",
            self.server(),
            self.format.magic(),
            self.format
        )
    }
}

/// Why a header or a DUMP payload's version is not a format bitlens reads
/// ([`Format::from_magic`], [`Format::from_dump_version`], [`Format::checked`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormatError {
    /// The first bytes (`head`, at most 9) are neither `REDIS` nor `VALKEY`.
    NotRdb {
        /// The bytes found.
        head: Vec<u8>,
    },
    /// The magic is not followed by the family's version digits (4 for Redis, 3 for Valkey).
    NoVersion {
        /// The bytes found.
        head: Vec<u8>,
        /// The family the magic names.
        family: Family,
    },
    /// A version newer than any bitlens reads.
    TooNew {
        /// The family.
        family: Family,
        /// The version found.
        version: u32,
        /// The newest version read of the family.
        newest: u32,
    },
    /// A version older than bitlens reads, or between the families' ranges.
    Unsupported {
        /// The family.
        family: Family,
        /// The version found.
        version: u32,
        /// The oldest version read of the family.
        oldest: u32,
        /// The newest version read of the family.
        newest: u32,
    },
}

impl std::fmt::Display for FormatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The first bytes as redis-cli quotes a name (`"\x1b[31mREDI"`): printable, exact.
        let shown = |h: &[u8]| crate::escape::quote(h);
        match self {
            FormatError::NotRdb { head } => write!(
                f,
                "not an RDB file: starts with {}, not REDIS + 4 digits or VALKEY + 3 digits",
                shown(head)
            ),
            FormatError::NoVersion { head, family } => write!(
                f,
                "RDB header {} has no {} version",
                shown(head),
                match family {
                    Family::Redis => "4-digit",
                    Family::Valkey => "3-digit",
                }
            ),
            FormatError::TooNew {
                family,
                version,
                newest,
            } => write!(
                f,
                "{} RDB version {version} is newer than bitlens knows; the newest it reads is {newest}",
                family.name()
            ),
            FormatError::Unsupported {
                family,
                version,
                oldest,
                newest,
            } => write!(
                f,
                "unsupported {} RDB version {version} (bitlens reads {oldest} to {newest})",
                family.name()
            ),
        }
    }
}

impl std::error::Error for FormatError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_decides_family_and_version() {
        assert_eq!(Format::from_magic(b"REDIS0012"), Ok(Format::redis(12)));
        assert_eq!(Format::from_magic(b"REDIS0003"), Ok(Format::redis(3)));
        assert_eq!(Format::from_magic(b"VALKEY080"), Ok(Format::VALKEY_9));
        let e = Format::from_magic(b"GARBAGE00").unwrap_err();
        assert_eq!(
            e,
            FormatError::NotRdb {
                head: b"GARBAGE00".to_vec()
            }
        );
        assert!(e.to_string().contains("\"GARBAGE00\""), "{e}");
        // Bytes that are not printable come out as redis-cli quotes them (new-user trial:
        // they were Rust debug text with U+FFFD).
        let e = Format::from_magic(b"\x1b[31mREDI").unwrap_err().to_string();
        assert!(e.contains("starts with \"\\x1b[31mREDI\","), "{e}");
        let e = Format::from_magic(b"\xffE\x1ee\xf0")
            .unwrap_err()
            .to_string();
        assert!(e.contains("starts with \"\\xffE\\x1ee\\xf0\","), "{e}");
        let e = Format::from_magic(b"REDIS0099").unwrap_err();
        assert_eq!(
            e,
            FormatError::TooNew {
                family: Family::Redis,
                version: 99,
                newest: 15
            }
        );
        assert!(e.to_string().contains("newest it reads is 15"), "{e}");
        let e = Format::from_magic(b"VALKEY099").unwrap_err().to_string();
        assert!(
            e.contains("Valkey RDB version 99") && e.contains("81"),
            "{e}"
        );
        assert!(matches!(
            Format::from_magic(b"REDIS00x1"),
            Err(FormatError::NoVersion {
                family: Family::Redis,
                ..
            })
        ));
        assert!(Format::from_magic(b"VALKEY012").is_err());
        assert!(Format::from_magic(b"REDIS00x1").is_err());
        assert!(Format::from_magic(b"REDIS0000").is_err());
    }

    #[test]
    fn same_byte_differs_per_family() {
        let r = Format::REDIS_7_4;
        let v = Format::VALKEY_9;
        assert_eq!(r.value_kind(22), Some(ValueKind::HashMetadataPreGa));
        assert_eq!(v.value_kind(22), Some(ValueKind::Hash2));
        assert_eq!(v.value_kind(23), None);
        assert_eq!(v.value_kind(24), None);
        assert_eq!(r.opcode(243), Some(Opcode::KeyMeta));
        assert_eq!(v.opcode(243), Some(Opcode::SlotImport));
        assert_eq!(r.opcode(242), Some(Opcode::HashTemplates));
        assert_eq!(v.opcode(242), None);
        assert_eq!(r.value_kind(8), None);
        assert_eq!(r.opcode(0), None);
    }

    #[test]
    fn tables_are_consistent() {
        for f in [Format::redis(REDIS_MAX_VERSION), Format::VALKEY_9] {
            for i in f.type_table() {
                assert_eq!(f.value_kind(i.byte), Some(i.kind));
                assert_eq!(
                    f.opcode(i.byte),
                    None,
                    "byte {} both type and opcode",
                    i.byte
                );
                assert_eq!(f.type_byte(i.kind), Some(i.byte));
            }
            for i in f.opcode_table() {
                assert_eq!(f.opcode(i.byte), Some(i.kind));
                assert_eq!(f.opcode_byte(i.kind), Some(i.byte));
            }
        }
        // Versions gate what a writer may emit.
        assert_eq!(Format::redis(6).opcode_byte(Opcode::Aux), None);
        assert_eq!(Format::redis(7).opcode_byte(Opcode::Aux), Some(250));
        assert_eq!(Format::redis(7).type_byte(ValueKind::ZSet2), None);
        assert_eq!(Format::redis(8).type_byte(ValueKind::ZSet2), Some(5));
    }

    #[test]
    fn dump_versions() {
        assert_eq!(Format::from_dump_version(9), Ok(Format::redis(9)));
        assert_eq!(Format::from_dump_version(80), Ok(Format::VALKEY_9));
        assert_eq!(
            Format::from_dump_version(81).map(|f| f.family),
            Ok(Family::Valkey)
        );
        assert!(Format::from_dump_version(0).is_err());
        assert!(Format::from_dump_version(40).is_err());
        assert!(Format::from_dump_version(65284).is_err());
    }

    #[test]
    fn server_versions() {
        assert_eq!(Format::for_server("6.2.14", None), Format::redis(9));
        assert_eq!(Format::for_server("7.0.15", None), Format::redis(10));
        assert_eq!(Format::for_server("7.2.4", None), Format::redis(11));
        assert_eq!(Format::for_server("7.4.1", None), Format::redis(12));
        assert_eq!(Format::for_server("8.0.2", None), Format::redis(12));
        assert_eq!(Format::for_server("8.6.0", None), Format::redis(13));
        assert_eq!(
            Format::for_server("7.2.4", Some("8.1.8")),
            Format::redis(11)
        );
        assert_eq!(Format::for_server("7.2.4", Some("9.1.2")), Format::VALKEY_9);
    }

    #[test]
    fn writer_description() {
        let aux = vec![(b"valkey-ver".to_vec(), b"9.1.2".to_vec())];
        let w = Writer::new(Format::VALKEY_9, &aux);
        assert_eq!(w.describe(), "Valkey 9.1.2 (VALKEY080: Valkey RDB 80)");
        let aux = vec![(b"redis-ver".to_vec(), b"7.4.1".to_vec())];
        let w = Writer::new(Format::redis(12), &aux);
        assert_eq!(w.describe(), "Redis 7.4.1 (REDIS0012: Redis RDB 12)");
    }
}
