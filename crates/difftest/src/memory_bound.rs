//! Bounds of the memory estimates against `MEMORY USAGE`, shared by the differential tests
//! (`memory_diff`, the CLI's `shards`): a key is byte-exact unless its encoding gives the
//! server's figure a cause to vary from load to load (a skiplist's random node levels, a
//! Valkey 8.1+ hash table's child buckets), and then within a bound stated with the cause.

use bitlens::dialect::{Profile, TableKind};
use bitlens::Value;

/// The bound a key's estimate is held to, by the cause that lets the server's figure vary
/// from load to load; every key without such a cause is byte-exact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KeyBound {
    /// Byte for byte.
    Exact,
    /// A skiplist of this many members: within [`skiplist_bound`].
    Skiplist(usize),
    /// A Valkey 8.1+ `hashtable` (set or hash): its child buckets are placed by the server's
    /// random hash seed and priced as their expected number, so the estimate is off by whole
    /// 64-byte buckets: within this many bytes (five standard deviations of their count,
    /// `Table::child_buckets_var_milli`, and one bucket of rounding). A table the loader left
    /// mid-rehash (a hash converted field by field, then expanded) spreads far more than one
    /// table of all its buckets: at seed 5 on Valkey 8.1.8, `hash:43` (120 fields, 16 + 32
    /// buckets) measured 8,096-8,368 bytes over 12 runs whose long field came past the 16th.
    ChildBuckets(u64),
    /// A Redis `dict` hash that the loader converted field by field and then expanded: the
    /// rehash its inserts advance ends, or not, by how many of the old table's buckets are
    /// non-empty, which the server's random hash seed decides (bitlens prices the expected
    /// count, `src/loaded.rs` `DictSim`), so `MEMORY USAGE` counts the old bucket array or
    /// not: within this many bytes (the old table is at most half the new one, a third of
    /// both: four bytes per bucket counted, and 32 for the allocator's rounding). Seen at
    /// seeds 2 and 3 on Redis 6.0.9, 6.2.14 and 7.4.1 (one hash each, 1,024 bytes either way).
    DictRehash(u64),
}

impl KeyBound {
    /// Whether `est` is within the bound of `real` (`MEMORY USAGE`).
    pub fn holds(self, est: u64, real: u64) -> bool {
        match self {
            KeyBound::Exact => est == real,
            KeyBound::Skiplist(members) => {
                (est as f64 / real as f64 - 1.0).abs() <= skiplist_bound(members)
            }
            KeyBound::ChildBuckets(bytes) | KeyBound::DictRehash(bytes) => {
                est.abs_diff(real) <= bytes
            }
        }
    }
}

impl KeyBound {
    /// The bound in bytes of a key whose `MEMORY USAGE` is `real`: 0 for an exact key. A
    /// group's sum of independent keys is bounded by the root of the sum of their squares
    /// (each is five of its standard deviations, so the root is five of the sum's): what a
    /// group of a few keys is held to, where the measured bound of a many-key group's sum
    /// (`SKIPLIST_SUM_BOUND` and `CHILD_BUCKETS_SUM_BOUND` in memory_diff) is too tight.
    pub fn allowance(self, real: u64) -> f64 {
        match self {
            KeyBound::Exact => 0.0,
            KeyBound::Skiplist(members) => skiplist_bound(members) * real as f64,
            KeyBound::ChildBuckets(bytes) | KeyBound::DictRehash(bytes) => bytes as f64,
        }
    }
}

/// The bound of a key: [`KeyBound`] by its encoding and the server's layout.
pub fn key_bound(
    profile: &Profile,
    key: &[u8],
    value: &bitlens::Value,
    encoding: &str,
) -> KeyBound {
    if encoding == "skiplist" {
        let members = match value {
            bitlens::Value::ZSet(z) => z.len(),
            _ => 0,
        };
        return KeyBound::Skiplist(members);
    }
    let loaded = bitlens::loaded::loaded(profile, key, value, false);
    match loaded.map(|l| l.shape) {
        Some(bitlens::loaded::Shape::Table(t))
            if encoding == "hashtable" && profile.load.table == TableKind::Dict =>
        {
            // Only a hash stored field by field (not a compact blob) of at most
            // `hash-max-listpack-entries` (512) fields is converted and then expanded at
            // load; a larger one is presized, a blob converted at once.
            match value {
                bitlens::Value::Hash(h)
                    if matches!(h.repr(), bitlens::hash::HashRef::Table(_))
                        && h.len(None) <= 512 =>
                {
                    KeyBound::DictRehash(4 * t.buckets + 32)
                }
                _ => KeyBound::Exact,
            }
        }
        Some(bitlens::loaded::Shape::Table(t)) if encoding == "hashtable" => {
            let var = t.child_buckets_var_milli as f64 / 1000.0;
            if var == 0.0 {
                KeyBound::Exact
            } else {
                KeyBound::ChildBuckets((64.0 * (5.0 * var.sqrt() + 1.0)) as u64)
            }
        }
        _ => KeyBound::Exact,
    }
}

/// A skiplist's `MEMORY USAGE` spreads around its expectation because each node's level is
/// drawn at random (p = 1/4) and, on Valkey 8.1+, because its member table's child buckets
/// fall where the server's random hash seed puts them. Measured on the servers themselves
/// (2026-12-07: 150 copies of one sorted set written by ZADD on each server, `MEMORY USAGE
/// key SAMPLES 0` of every copy), its relative standard deviation falls as one over the square
/// root of the members: `SKIPLIST_SPREAD / sqrt(members)`. Measured `sd / mean * sqrt(n)`:
/// 0.03-0.09 for 3-100 members of 70 bytes, 0.09-0.14 for 129-5000 members of 1-24 bytes,
/// 0.10-0.17 for 200-400 members of 1-3 bytes (GEO-like names), on Redis 6.0.9, 6.2.14,
/// 7.0.15, 7.4.1 and Valkey 8.1.8, 9.1.2; the largest, Valkey 9.1.2's 0.169 (400 members),
/// rounded up for the sampling error of 150 copies (about 6%).
pub const SKIPLIST_SPREAD: f64 = 0.18;

/// The bound of a skiplist of `members` members: within five of the servers' measured
/// standard deviations of its expectation ([`SKIPLIST_SPREAD`]), a chance below one in a
/// million per key. Holds every skiplist, small ones included.
pub fn skiplist_bound(members: usize) -> f64 {
    5.0 * SKIPLIST_SPREAD / (members.max(1) as f64).sqrt()
}

/// On a glibc build, at most one key in this many may be priced over by glibc's reuse of a
/// freed chunk whose remainder is too small to split: a chunk 16 bytes larger than asked (or
/// 32, seen on Valkey 9.1.2: `user:80599:OeY3Ob`, a raw string, 176 bytes estimated and 208
/// in MEMORY USAGE at seed 2 in one run of five, exact in the others), so `MEMORY USAGE` over
/// the estimate by one or two such remainders (a key of one allocation) or by whole ones
/// within 0.5% (a key of many). Measured over seeds 1-3 (of 100,466 keys): Redis
/// 6.2.14 9-12 keys, Valkey 8.1.8 15-25, Valkey 9.1.2 56-80 (its loader frees and allocates
/// more while it reads); the bound is twice Valkey 9.1.2's 0.08%.
pub const GLIBC_REMAINDER_KEYS: usize = 600;

/// The most keys any file may have over by glibc's remainders, however small the file: in a
/// file of a few dozen keys the loader's first frees decide them, not the keyspace's size.
/// Measured on Valkey 9.1.2's 63-key conformance file (`tests/data/conformance`), 80 loads,
/// keys of one or few allocations 16 or 32 bytes over: 0 keys in 5 loads, 1 in 15, 2 in 36,
/// 3 in 21, 4 in 3 (`str:int` and `list:huge` in most; `set:small`, `zset:ties`,
/// `hll:dense`, `hash:longval` now and then; an int string like `str:int` is exact when written
/// in a fresh file). Twice
/// the most seen.
pub const GLIBC_REMAINDER_MIN_KEYS: usize = 8;

/// Whether `real` is over `est` by what glibc's unsplit remainders make (see
/// [`GLIBC_REMAINDER_KEYS`]): whole 16-byte remainders, give or take the byte a hash or set
/// table's sum loses or keeps in `objectComputeSize`'s doubles once one element grew (rec:
/// Redis 6.2.14 at seed 7, `hash:29`, a hashtable hash, 15 over in one run of three). Each of
/// the key's `chunks` allocations that `MEMORY USAGE` counts by usable size
/// ([`usable_chunks`]) may carry one remainder, or the whole may be within 0.5%.
pub fn glibc_remainder(est: u64, real: u64, chunks: u64) -> bool {
    let over = real.saturating_sub(est);
    let whole = matches!(over % 16, 0 | 1 | 15);
    over >= 15 && whole && (over <= 16 * chunks.max(2) + 1 || over as f64 <= 0.005 * real as f64)
}

/// How many allocations of `value` `MEMORY USAGE` counts by their usable size, each of which
/// glibc may hand out with an unsplit remainder ([`glibc_remainder`]). A stream counts every
/// node of its radix trees (`raxAllocSize`, Valkey 8.1+), its listpacks and its consumers'
/// names: rec. on Valkey 9.1.2 at seed 17564230671035411148, `stream:5` (one listpack, 35
/// pending entries, two consumers) 16, 32 or 48 bytes over in 3 runs of 10, and `stream:8`
/// (24 listpacks) 96 in one. Every other value counts as two (its object and its one
/// allocation beside it: a `raw` string 32 over, Valkey 9.1.2 `user:80599:OeY3Ob`).
pub fn usable_chunks(value: &bitlens::Value) -> u64 {
    use bitlens_views::memory::{id_key as key, rax_alloc_bytes};
    let Value::Stream(s) = value else {
        return 2;
    };
    // Nodes, each counted once (the struct's allocation included).
    let rax = |keys: Vec<[u8; 16]>| rax_alloc_bytes(keys, |_| 1);
    let mut chunks = s.nodes.len() as u64 + rax(s.nodes.iter().map(|(id, _)| key(id)).collect());
    for g in &s.groups {
        chunks += rax(g.pending.iter().map(|p| key(&p.id)).collect());
        for c in &g.consumers {
            chunks += 1 + rax(c.pending.iter().map(key).collect());
        }
    }
    chunks
}
