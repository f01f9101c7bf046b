//! What a server makes of a value when it loads it from a snapshot: OBJECT ENCODING's name
//! and the in-memory shape ([`Loaded`]) its memory is priced from.
//!
//! A snapshot keeps a value in the encoding its writer held (a zipmap, a ziplist, a hash
//! stored field by field); the loading server converts it by its own rules (the profile's
//! [`crate::dialect::LoadRules`], as its `rdbLoadObject` does): lists become quicklists of 8 KiB
//! nodes (or one listpack from 7.2), ziplists become listpacks from 7.0, sets, hashes and
//! sorted sets become hash tables or skiplists past their size limits. [`loaded`] is the one
//! decision OBJECT ENCODING ([`object_encoding`]), the memory estimate and the ledger (the
//! views crate's memory model) share, so they cannot disagree.
//!
//! The compact blob sizes ([`listpack_bytes`], [`ziplist_bytes`]) and the hash table bucket
//! counts ([`presized_buckets`], [`grown_buckets`]: `dictExpand` and the incremental rehash
//! replayed) are the parts of the shape the price depends on.

use crate::dialect::{Profile, TableKind};
use crate::keyspace::Value;

/// A value as a server holds it once it has loaded it from a snapshot ([`loaded`]): the name
/// OBJECT ENCODING reports and the shape its memory is priced from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    /// What OBJECT ENCODING reports.
    pub encoding: &'static str,
    /// What the memory is priced from.
    pub shape: Shape,
}

/// The in-memory shape of a loaded value, as far as its price depends on the loader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// Priced from the value itself (strings, skiplists, streams, module values).
    Value,
    /// One compact blob (listpack, ziplist or intset) of this many bytes.
    Blob(u64),
    /// A listpack of `bytes` the loader converted from a ziplist of `from` bytes in an
    /// allocation of that size, then shrank to fit (`lpNew(ziplist bytes)`, `lpShrinkToFit`:
    /// a hash or sorted set stored as a ziplist, from 7.0), which an allocator may leave
    /// larger than one made at its size.
    ShrunkBlob {
        /// Bytes of the listpack.
        bytes: u64,
        /// Bytes of the ziplist it was converted from.
        from: u64,
    },
    /// A `listpackEx` (Redis 7.4 hash with field expiry) around a listpack of this many bytes.
    ListpackEx(u64),
    /// A quicklist of these nodes.
    Quicklist(Vec<QuicklistNode>),
    /// A hash table (set or hash).
    Table(Table),
    /// A skiplist with its member table.
    Skiplist(Table),
}

/// A loaded hash table's buckets, as far as its price depends on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Table {
    /// Top-level buckets, of both tables while a rehash runs.
    pub buckets: u64,
    /// The expected number of child buckets, in thousandths: a Valkey 8.1+ `hashtable`
    /// chains a bucket that gets an eighth entry to a child, and which buckets do depends on
    /// the server's random hash seed ([`expected_child_buckets`]); 0 for a `dict`.
    pub child_buckets_milli: u64,
    /// The variance of that number, in thousandths of a squared bucket (the random hash
    /// seed's spread; while a rehash runs, the old table's unmoved buckets and the new
    /// table's, each as independent buckets); 0 for a `dict`.
    pub child_buckets_var_milli: u64,
}

impl Table {
    /// A `dict` of `buckets` buckets.
    pub fn dict(buckets: u64) -> Table {
        Table {
            buckets,
            child_buckets_milli: 0,
            child_buckets_var_milli: 0,
        }
    }

    /// The table sized up front for `n` entries (`dictExpand(n)`, `hashtableTryExpand(n)`).
    pub fn presized(kind: TableKind, n: usize) -> Table {
        match kind {
            TableKind::Dict => Table::dict(presized_buckets(n)),
            TableKind::Hashtable => {
                // Sized for all of them: the inserts never find it full.
                let mut t = HashtableSim::sized(n as u64);
                t.used = n as u64;
                t.table()
            }
        }
    }

    /// The table that `n` inserts one at a time leave, from an empty one.
    pub fn grown(kind: TableKind, n: usize) -> Table {
        Self::grow(kind, n, false)
    }

    /// As [`Self::grown`], with a rehash still running finished: a server's cron rehashes its
    /// keyspace tables in the background.
    pub fn grown_rehashed(kind: TableKind, n: usize) -> Table {
        Self::grow(kind, n, true)
    }

    fn grow(kind: TableKind, n: usize, rehashed: bool) -> Table {
        match kind {
            TableKind::Dict => {
                let mut d = DictSim::default();
                for _ in 0..n {
                    d.add();
                }
                Table::dict(if rehashed && d.size1 != 0 {
                    d.size1
                } else {
                    d.buckets()
                })
            }
            TableKind::Hashtable => {
                let mut t = HashtableSim::default();
                for _ in 0..n {
                    t.add();
                }
                if rehashed && t.size1 != 0 {
                    t.size0 = t.size1;
                    t.size1 = 0;
                }
                t.table()
            }
        }
    }
}

/// One node of a loaded quicklist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuicklistNode {
    /// Bytes of its listpack or ziplist (of its element for a plain node).
    pub bytes: u64,
    /// Elements in it.
    pub count: u64,
    /// A plain node (one element stored as is).
    pub plain: bool,
    /// Bytes of the ziplist the loader converted it from in an allocation of that size,
    /// then shrank to fit (a node of RDB_TYPE_LIST_QUICKLIST from 7.0); 0 for a node made at
    /// its size.
    pub from: u64,
}

/// The encoding OBJECT ENCODING reports for `value` under `key` (with an expiry or not)
/// once the profile's server has loaded it from a snapshot: see [`loaded`], of which this is
/// the name. `None` for values bitlens keeps only as their type.
pub fn object_encoding(
    profile: &crate::dialect::Profile,
    key: &[u8],
    value: &Value,
    expiring: bool,
) -> Option<&'static str> {
    loaded(profile, key, value, expiring).map(|l| l.encoding)
}

/// What the profile's server makes of `value` (stored under `key`) when it loads it from a
/// snapshot, as its `rdbLoadObject` does (the rules are the profile's
/// [`crate::dialect::LoadRules`]): the one decision OBJECT ENCODING, the memory estimate and
/// the ledger share.
///
/// - strings: `int` (a `long long` in canonical form), `embstr` or `raw` (the profile's rule);
/// - lists: pushed element by element into 8 KiB nodes (RDB_TYPE_LIST, RDB_TYPE_LIST_ZIPLIST),
///   node per stored ziplist (RDB_TYPE_LIST_QUICKLIST: kept on 6.x, converted to listpacks
///   from 7.0) or node per stored node (RDB_TYPE_LIST_QUICKLIST_2); from 7.2 a list of one
///   packed node within 8 KiB is a `listpack`, except one stored as RDB_TYPE_LIST_ZIPLIST;
/// - sets: an intset or listpack blob is kept unless it has more members than allowed (then
///   a hash table); members stored one by one are an `intset` (integers only, at most 512),
///   a `listpack` (7.2+, at most 128 of at most 64 bytes) or a `hashtable`;
/// - hashes: a listpack or ziplist blob is kept (converted to a listpack from 7.0) unless it
///   has more than 512 fields; zipmaps and fields stored one by one are compact when at most
///   512 fields of at most 64 bytes, else a `hashtable`; with field expiry the profile's
///   `listpackex` or `hashtable`;
/// - sorted sets: compact within `zset-max-listpack-entries`/`-value`, else `skiplist`;
/// - streams `stream`; RedisBloom values `raw`.
pub fn loaded(
    profile: &crate::dialect::Profile,
    key: &[u8],
    value: &Value,
    expiring: bool,
) -> Option<Loaded> {
    loaded_at(profile, key, value, expiring, None)
}

/// [`loaded`] by a server loading the snapshot at `now_ms` (Unix ms; `None`: nothing has
/// expired): a compact hash with field expiry (`listpackex`) holds only the fields live at
/// that time, as Redis 7.4+ deletes the expired ones while it loads (rec: `hash:fe` of the
/// conformance files of Redis 7.4.1 and 8.0.2, one field of four expired in the file:
/// `MEMORY USAGE` prices the listpack of three).
pub fn loaded_at(
    profile: &crate::dialect::Profile,
    key: &[u8],
    value: &Value,
    expiring: bool,
    now_ms: Option<i64>,
) -> Option<Loaded> {
    let rules = &profile.load;
    let compact = profile.compact_encoding();
    let done = |encoding: &'static str, shape: Shape| Some(Loaded { encoding, shape });
    match value {
        Value::String(s) => {
            let len = s.len();
            let encoding = if s.rewritten() {
                // Written in the session: unshared to a raw string, as the server leaves it.
                "raw"
            } else if len <= 20 && crate::num::parse_i64(&s.as_bytes()).is_some() {
                "int"
            } else if profile.is_embstr(key.len(), len as usize, expiring) {
                "embstr"
            } else {
                "raw"
            };
            done(encoding, Shape::Value)
        }
        Value::ZSet(z) => {
            // (A stored blob is converted by its count alone: ZSet::loads_compact.)
            if !z.loads_compact(profile) {
                let n = z.len();
                let table = if z.stored_compact() && !rules.zset_convert_presized {
                    Table::grown(rules.table, n)
                } else {
                    Table::presized(rules.table, n)
                };
                return done("skiplist", Shape::Skiplist(table));
            }
            let mut items: Vec<Vec<u8>> = Vec::with_capacity(2 * z.len());
            for (score, m) in z.sorted() {
                items.push(m.to_vec());
                items.push(listpack_score(profile, *score));
            }
            let iter = items.iter().map(|v| v.as_slice());
            if !rules.ziplist_to_listpack {
                return done(compact, Shape::Blob(ziplist_bytes(iter) as u64));
            }
            let bytes = listpack_bytes(iter) as u64;
            // (A ziplist kept unordered was decoded at load; its size is not kept.)
            done(
                compact,
                match z.kept_ziplist_bytes() {
                    Some(from) => Shape::ShrunkBlob {
                        bytes,
                        from: from as u64,
                    },
                    None => Shape::Blob(bytes),
                },
            )
        }
        Value::List(l) => Some(loaded_list(rules, l)),
        Value::Set(set) => Some(loaded_set(rules, set)),
        Value::Hash(h) => Some(loaded_hash(profile, h, now_ms)),
        // Streams have one encoding everywhere (rec: every server's OBJECT ENCODING stream:*).
        Value::Stream(_) => done("stream", Shape::Value),
        // Module values are `raw` objects (rec: every RedisBloom type on 7.4.1).
        Value::Other(crate::keyspace::RedisType::Module(_)) | Value::Module(_) => {
            done("raw", Shape::Value)
        }
        Value::Other(_) => None,
    }
}

/// The bytes of a compact blob holding `items` in the loader's compact format (listpack from
/// 7.0, else ziplist).
fn compact_bytes(rules: &crate::dialect::LoadRules, items: &[Vec<u8>]) -> u64 {
    let iter = items.iter().map(|v| v.as_slice());
    (if rules.ziplist_to_listpack {
        listpack_bytes(iter)
    } else {
        ziplist_bytes(iter)
    }) as u64
}

/// A list as the loader builds it (see [`loaded`]).
fn loaded_list(rules: &crate::dialect::LoadRules, l: &crate::list::List) -> Loaded {
    use crate::list::NodeRef;
    let nodes: Vec<QuicklistNode> = match l.encoding() {
        // RDB_TYPE_LIST and RDB_TYPE_LIST_ZIPLIST: every element pushed at the tail.
        "linkedlist" | "ziplist" => push_nodes(rules, l),
        // RDB_TYPE_LIST_QUICKLIST / _2 (and lists of the session): node for node.
        _ => l
            .nodes()
            .map(|(n, count)| match n.repr() {
                NodeRef::Plain(b) => QuicklistNode {
                    bytes: b.len() as u64,
                    count: 1,
                    plain: true,
                    from: 0,
                },
                NodeRef::Ziplist(b) if rules.ziplist_to_listpack => QuicklistNode {
                    bytes: listpack_bytes(n.items().iter().map(|v| v.as_slice())) as u64,
                    count: count as u64,
                    plain: false,
                    from: b.len() as u64,
                },
                NodeRef::Ziplist(b) | NodeRef::Listpack(b) => QuicklistNode {
                    bytes: b.len() as u64,
                    count: count as u64,
                    plain: false,
                    from: 0,
                },
            })
            .collect(),
    };
    let one_small_node =
        nodes.len() == 1 && !nodes[0].plain && nodes[0].bytes <= rules.list_node_bytes as u64;
    if rules.list_one_node_listpack && one_small_node && l.encoding() != "ziplist" {
        let (bytes, from) = (nodes[0].bytes, nodes[0].from);
        return Loaded {
            encoding: "listpack",
            shape: if from > 0 {
                Shape::ShrunkBlob { bytes, from }
            } else {
                Shape::Blob(bytes)
            },
        };
    }
    Loaded {
        encoding: "quicklist",
        shape: Shape::Quicklist(nodes),
    }
}

/// The nodes a quicklist makes of the list's elements pushed one by one at its tail
/// (`quicklistPushTail` with `list-max-listpack-size` -2), by the profile's [`ListPush`] rule.
///
/// [`ListPush`]: crate::dialect::ListPush
fn push_nodes(rules: &crate::dialect::LoadRules, l: &crate::list::List) -> Vec<QuicklistNode> {
    use crate::dialect::ListPush;
    let limit = rules.list_node_bytes;
    let mut nodes: Vec<QuicklistNode> = Vec::new();
    let mut items: Vec<Vec<u8>> = Vec::new(); // elements of the open (last) node
    let mut open_bytes = 0usize; // its blob bytes
    let close = |nodes: &mut Vec<QuicklistNode>, items: &mut Vec<Vec<u8>>, bytes: usize| {
        if !items.is_empty() {
            nodes.push(QuicklistNode {
                bytes: bytes as u64,
                count: items.len() as u64,
                plain: false,
                from: 0,
            });
            items.clear();
        }
    };
    for (node, _) in l.nodes() {
        for e in node.items() {
            let sz = e.len();
            if rules.list_push == ListPush::Estimate8Plain && sz > limit {
                close(&mut nodes, &mut items, open_bytes);
                nodes.push(QuicklistNode {
                    bytes: sz as u64,
                    count: 1,
                    plain: true,
                    from: 0,
                });
                continue;
            }
            let overhead = match rules.list_push {
                ListPush::ZiplistOverhead => {
                    (if sz < 254 { 1 } else { 5 })
                        + if sz < 64 {
                            1
                        } else if sz < 16384 {
                            2
                        } else {
                            5
                        }
                }
                ListPush::Estimate8 | ListPush::Estimate8Plain => 8,
            };
            let fits = !items.is_empty() && open_bytes + sz + overhead <= limit;
            if !fits {
                close(&mut nodes, &mut items, open_bytes);
            }
            items.push(e);
            open_bytes = compact_bytes(rules, &items) as usize;
        }
    }
    close(&mut nodes, &mut items, open_bytes);
    nodes
}

/// Whether a member is an integer an intset holds (`isSdsRepresentableAsLongLong`).
fn intset_member(m: &[u8]) -> Option<i64> {
    crate::num::parse_i64(m).filter(|_| m.len() <= 20)
}

/// A set as the loader builds it (see [`loaded`]).
fn loaded_set(rules: &crate::dialect::LoadRules, set: &crate::set::Set) -> Loaded {
    use crate::set::SetRef;
    let n = set.len();
    let table = |n: usize| Loaded {
        encoding: "hashtable",
        shape: Shape::Table(Table::presized(rules.table, n)),
    };
    match set.repr() {
        SetRef::Intset(b) if n <= rules.set_max_intset_entries => Loaded {
            encoding: "intset",
            shape: Shape::Blob(b.len() as u64),
        },
        SetRef::Listpack(b) if rules.set_max_listpack.is_some_and(|(max, _)| n <= max) => Loaded {
            encoding: "listpack",
            shape: Shape::Blob(b.len() as u64),
        },
        SetRef::Intset(_) | SetRef::Listpack(_) => table(n),
        SetRef::Table(_) | SetRef::SmallTable(_) => {
            let members = set.members();
            if n > rules.set_max_intset_entries {
                return table(n);
            }
            let ints: Option<Vec<i64>> = members.iter().map(|m| intset_member(m)).collect();
            if let Some(ints) = ints {
                let width = ints
                    .iter()
                    .map(|&v| {
                        if i16::try_from(v).is_ok() {
                            2
                        } else if i32::try_from(v).is_ok() {
                            4
                        } else {
                            8
                        }
                    })
                    .max()
                    .unwrap_or(2);
                return Loaded {
                    encoding: "intset",
                    shape: Shape::Blob(8 + width * n as u64),
                };
            }
            match rules.set_max_listpack {
                Some((max, len)) if n <= max && members.iter().all(|m| m.len() <= len) => Loaded {
                    encoding: "listpack",
                    shape: Shape::Blob(listpack_bytes(members.iter().map(|m| m.as_slice())) as u64),
                },
                _ => table(n),
            }
        }
    }
}

/// A hash as the loader builds it (see [`loaded`]).
fn loaded_hash(
    profile: &crate::dialect::Profile,
    h: &crate::hash::Hash,
    now_ms: Option<i64>,
) -> Loaded {
    use crate::hash::HashRef;
    let rules = &profile.load;
    let (max_entries, max_value) = rules.hash_max;
    let compact = profile.compact_encoding();
    let n = h.stored_len();
    // Decoded only where the fields decide (a listpack within the limits is kept as it is).
    let decoded = std::cell::OnceCell::new();
    let fields = || -> &Vec<crate::hash::Field> { decoded.get_or_init(|| h.all()) };
    // A blob converted to a table: presized (7.0+) or grown from empty (6.x).
    let converted = |n: usize| Loaded {
        encoding: "hashtable",
        shape: Shape::Table(if rules.hash_convert_presized {
            Table::presized(rules.table, n)
        } else {
            Table::grown(rules.table, n)
        }),
    };
    let pairs = || -> Vec<Vec<u8>> {
        fields()
            .iter()
            .flat_map(|f| [f.field.clone(), f.value.clone()])
            .collect()
    };
    match h.repr() {
        HashRef::ListpackEx(b) if n <= max_entries => {
            let live = |f: &crate::hash::Field| match (f.expire_at_ms, now_ms) {
                (Some(when), Some(now)) => now <= when,
                _ => true,
            };
            // The stored listpack, or the one left once the expired fields are deleted.
            let bytes = if fields().iter().all(live) {
                b.len() as u64
            } else {
                let kept: Vec<crate::hash::Field> =
                    fields().iter().filter(|f| live(f)).cloned().collect();
                listpack_bytes_ex(&kept)
            };
            Loaded {
                encoding: profile.hash_ex_encoding,
                shape: Shape::ListpackEx(bytes),
            }
        }
        HashRef::Listpack(b) if n <= max_entries => Loaded {
            encoding: compact,
            shape: Shape::Blob(b.len() as u64),
        },
        HashRef::Ziplist(b) if n <= max_entries => Loaded {
            encoding: compact,
            shape: if rules.ziplist_to_listpack {
                Shape::ShrunkBlob {
                    bytes: compact_bytes(rules, &pairs()),
                    from: b.len() as u64,
                }
            } else {
                Shape::Blob(b.len() as u64)
            },
        },
        HashRef::Listpack(_) | HashRef::Ziplist(_) | HashRef::ListpackEx(_) => converted(n),
        HashRef::Zipmap(_) => {
            let long = fields()
                .iter()
                .any(|f| f.field.len() > max_value || f.value.len() > max_value);
            if n > max_entries || long {
                converted(n)
            } else {
                Loaded {
                    encoding: compact,
                    shape: Shape::Blob(compact_bytes(rules, &pairs())),
                }
            }
        }
        HashRef::Table(_) => {
            if n > max_entries {
                return Loaded {
                    encoding: "hashtable",
                    shape: Shape::Table(Table::presized(rules.table, n)),
                };
            }
            // Compact until the first field or value over the limit.
            let first = fields()
                .iter()
                .position(|f| f.field.len() > max_value || f.value.len() > max_value);
            let expiring = fields().iter().any(|f| f.expire_at_ms.is_some());
            match first {
                None if expiring && profile.hash_ex_encoding != "hashtable" => Loaded {
                    encoding: profile.hash_ex_encoding,
                    shape: Shape::ListpackEx(listpack_bytes_ex(fields())),
                },
                None if !expiring => Loaded {
                    encoding: compact,
                    shape: Shape::Blob(compact_bytes(rules, &pairs())),
                },
                None => Loaded {
                    encoding: "hashtable",
                    shape: Shape::Table(Table::presized(rules.table, n)),
                },
                Some(first) => Loaded {
                    encoding: "hashtable",
                    shape: Shape::Table(match rules.table {
                        TableKind::Dict => Table::dict(converted_hash_buckets(
                            rules.hash_convert_presized,
                            first,
                            n,
                        )),
                        TableKind::Hashtable => converted_hashtable(first, n),
                    }),
                },
            }
        }
    }
}

/// The bytes of a `listpackEx`'s listpack of (field, value, expiry ms or 0) triples.
fn listpack_bytes_ex(fields: &[crate::hash::Field]) -> u64 {
    let items: Vec<Vec<u8>> = fields
        .iter()
        .flat_map(|f| {
            [
                f.field.clone(),
                f.value.clone(),
                f.expire_at_ms.unwrap_or(0).to_string().into_bytes(),
            ]
        })
        .collect();
    listpack_bytes(items.iter().map(|v| v.as_slice())) as u64
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

/// Buckets of a hash table sized for `n` entries up front (`dictExpand(n)`): the next power
/// of two, at least 4.
pub fn presized_buckets(n: usize) -> u64 {
    (n.max(4) as u64).next_power_of_two()
}

/// A Redis `dict` replayed for its bucket counts only: the loader's expansions and inserts,
/// with the incremental rehash each insert advances by one bucket (a rehash of a table of
/// `m` buckets holding `k` entries takes the expected `m(1 - (1 - 1/m)^k)` non-empty
/// buckets, rounded). Sizes are powers of two, at least 4 (`_dictNextPower`).
#[derive(Debug, Clone, Copy, Default)]
struct DictSim {
    /// Buckets of the main table (0: not allocated yet).
    size0: u64,
    /// Entries in the main table.
    used0: u64,
    /// Buckets of the table being rehashed into (0: no rehash).
    size1: u64,
    /// Non-empty main-table buckets the rehash still has to move.
    steps_left: u64,
}

impl DictSim {
    /// A table made by `dictExpand(n)` on an empty dict.
    fn sized(n: u64) -> DictSim {
        DictSim {
            size0: presized_buckets(n as usize),
            ..DictSim::default()
        }
    }

    /// `dictExpand(n)`: refused while rehashing, below the entries held or to the same size;
    /// the first allocation is immediate, a later one starts a rehash.
    fn expand(&mut self, n: u64) {
        if self.size1 != 0 || self.used0 > n {
            return;
        }
        let size = presized_buckets(n as usize);
        if size == self.size0 {
            return;
        }
        if self.size0 == 0 {
            self.size0 = size;
            return;
        }
        let m = self.size0 as f64;
        let nonempty = (m * (1.0 - (1.0 - 1.0 / m).powf(self.used0 as f64))).round() as u64;
        self.size1 = size;
        self.steps_left = nonempty;
        if self.used0 == 0 {
            self.finish_rehash();
        }
    }

    fn finish_rehash(&mut self) {
        self.size0 = self.size1;
        self.size1 = 0;
        self.steps_left = 0;
    }

    /// `dictAdd` of a new entry: one rehash step if a rehash runs, else an expansion when
    /// the table is full; the entry goes to the new table while rehashing.
    fn add(&mut self) {
        if self.size1 != 0 {
            self.steps_left = self.steps_left.saturating_sub(1);
            if self.steps_left == 0 {
                self.finish_rehash();
            }
        }
        if self.size1 != 0 {
            // `_dictExpandIfNeeded` waits for the rehash.
        } else if self.size0 == 0 {
            self.size0 = 4;
        } else if self.used0 >= self.size0 {
            self.expand(self.used0 + 1);
        }
        // Entries are counted as one table: what matters is when the next expansion comes.
        self.used0 += 1;
    }

    /// Buckets counted by `MEMORY USAGE` (`dictSlots`: both tables while rehashing).
    fn buckets(&self) -> u64 {
        self.size0 + self.size1
    }
}

/// Buckets of a hash loaded field by field (RDB_TYPE_HASH, at most `hash-max-listpack-entries`
/// fields) whose field `first` (0-based) is the first over `hash-max-listpack-value`: the
/// listpack of the `first` fields before it is converted (`hashTypeConvert`: a table sized for
/// them on 7.0+, an empty one on 6.x, filled one by one), the long field added, the table
/// expanded for the `n - first - 1` fields left when more than 4, and those added.
fn converted_hash_buckets(presized: bool, first: usize, n: usize) -> u64 {
    let mut d = if presized {
        DictSim::sized(first as u64)
    } else {
        DictSim::default()
    };
    for _ in 0..=first {
        d.add();
    }
    let left = (n - first - 1) as u64;
    if left > 4 {
        d.expand(left);
    }
    for _ in 0..left {
        d.add();
    }
    d.buckets()
}

/// Buckets of a table made by `dictExpand(start)` (none for 0) that then takes `n` inserts
/// one at a time (a `dict` replayed for its bucket counts).
pub fn grown_buckets(start: usize, n: usize) -> u64 {
    let mut d = if start == 0 {
        DictSim::default()
    } else {
        DictSim::sized(start as u64)
    };
    for _ in 0..n {
        d.add();
    }
    d.buckets()
}

/// A Valkey 8.1+ `hashtable` replayed for its buckets only (hashtable.c): `resize` to
/// `2^ceil(log2(ceil(5n / 32)))` buckets for `n` entries (at least 1), an insert that finds
/// the table full (as many entries as 7 per bucket) resizing it for one more, and each
/// insert's lookup moving one bucket of the old table while a rehash runs (a resize of an
/// empty table completes at once).
#[derive(Debug, Clone, Copy, Default)]
struct HashtableSim {
    /// Buckets of the main table (0: none allocated).
    size0: u64,
    /// Buckets of the table being rehashed into (0: no rehash).
    size1: u64,
    /// Main-table buckets moved so far by the running rehash.
    moved: u64,
    /// Entries held.
    used: u64,
    /// Entries held when the running rehash began.
    used_at_resize: u64,
}

impl HashtableSim {
    /// Buckets for `n` entries (`nextBucketExp`).
    fn buckets_for(n: u64) -> u64 {
        (5 * n.max(1)).div_ceil(32).next_power_of_two()
    }

    /// An empty table sized for `n` entries (`hashtableTryExpand` of a new table).
    fn sized(n: u64) -> HashtableSim {
        HashtableSim {
            size0: Self::buckets_for(n),
            ..HashtableSim::default()
        }
    }

    fn resize(&mut self, n: u64) {
        let size = Self::buckets_for(n);
        if size == self.size0 {
            return;
        }
        if self.size0 == 0 || self.used == 0 {
            self.size0 = size;
        } else {
            self.size1 = size;
            self.moved = 0;
            self.used_at_resize = self.used;
        }
    }

    /// `hashtableExpand(n)`: refused while a rehash runs or below the entries held.
    fn expand(&mut self, n: u64) {
        if self.size1 == 0 && n >= self.used {
            self.resize(n);
        }
    }

    /// `hashtableAdd` of a new entry.
    fn add(&mut self) {
        if self.size1 != 0 && self.used > 0 {
            self.moved += 1;
            if self.moved == self.size0 {
                self.size0 = self.size1;
                self.size1 = 0;
            }
        }
        if self.size1 == 0 && self.used + 1 > 7 * self.size0 {
            self.resize(self.used + 1);
        }
        self.used += 1;
    }

    /// The buckets of both tables and the expected child buckets: while a rehash runs, the
    /// old table's unmoved buckets keep their share of the entries it held, at the fill it
    /// had, and the new table takes the rest.
    /// (The variance likewise: the unmoved share of the old table's, each bucket counted as
    /// independent, and the new table's.)
    fn table(&self) -> Table {
        let (children, var) = if self.size1 == 0 {
            child_buckets_moments(self.used, self.size0)
        } else {
            let left = (self.size0 - self.moved) as f64 / self.size0 as f64;
            let (old_mean, old_var) = child_buckets_moments(self.used_at_resize, self.size0);
            let in_old = (left * self.used_at_resize as f64).round() as u64;
            let (new_mean, new_var) =
                child_buckets_moments(self.used.saturating_sub(in_old), self.size1);
            (left * old_mean + new_mean, left * old_var + new_var)
        };
        Table {
            buckets: self.size0 + self.size1,
            child_buckets_milli: (children * 1000.0).round() as u64,
            child_buckets_var_milli: (var * 1000.0).round() as u64,
        }
    }
}

/// The table of a hash Valkey 8.1+ loads field by field (RDB_TYPE_HASH, at most
/// `hash-max-listpack-entries` fields) whose field `first` (0-based, in file order) is the
/// first over `hash-max-listpack-value` (rdb.c): the listpack of the fields before it is
/// converted into a table sized for them (`hashTypeConvertListpack`), the long field is
/// added, the table is expanded for the `n - first - 1` fields left (`hashtableTryExpand`,
/// refused below the entries held or while a rehash runs), and those are added.
fn converted_hashtable(first: usize, n: usize) -> Table {
    let mut t = HashtableSim::sized(first as u64);
    t.used = first as u64;
    t.add();
    let left = (n - first - 1) as u64;
    t.expand(left);
    for _ in 0..left {
        t.add();
    }
    t.table()
}

/// The expected number of child buckets of a Valkey 8.1+ `hashtable` holding `n` entries in
/// `buckets` top-level buckets, each entry in a uniformly random bucket (hashtable.c: a
/// bucket has 7 slots; when an eighth entry comes, its last slot becomes the pointer to a
/// child bucket, so a chain of `k > 7` entries has `ceil((k - 7) / 6)` children). See
/// [`child_buckets_moments`].
pub fn expected_child_buckets(n: u64, buckets: u64) -> f64 {
    child_buckets_moments(n, buckets).0
}

/// The mean and variance of the number of child buckets of a Valkey 8.1+ `hashtable` (see
/// [`expected_child_buckets`]). The load of one bucket is binomial (`n`, `1 / buckets`); its
/// terms are summed until they vanish. The variance treats the buckets as independent,
/// which overstates it a little (their loads are negatively correlated). Above 500 entries a
/// bucket (never a server's table), each bucket is taken at the mean load.
pub fn child_buckets_moments(n: u64, buckets: u64) -> (f64, f64) {
    if n <= 7 || buckets == 0 {
        return (0.0, 0.0);
    }
    let children = |k: u64| if k > 7 { (k - 7).div_ceil(6) } else { 0 };
    if buckets == 1 {
        return (children(n) as f64, 0.0);
    }
    let p = 1.0 / buckets as f64;
    let mean = n as f64 * p;
    if mean > 500.0 {
        // Far past any load a server leaves (a table grows at 7 a bucket), where P(K = 0)
        // underflows: each bucket holds about the mean, chained 6 a child.
        let per = (mean - 7.0) / 6.0 + 0.5;
        return (buckets as f64 * per, buckets as f64 * mean / 36.0);
    }
    let ratio = p / (1.0 - p);
    // P(K = 0), then P(K = k + 1) = P(K = k) · (n - k) / (k + 1) · p / (1 - p).
    let mut pk = (n as f64 * (-p).ln_1p()).exp();
    let (mut m1, mut m2) = (0.0, 0.0);
    let mut k = 0;
    while k <= n {
        let c = children(k) as f64;
        m1 += pk * c;
        m2 += pk * c * c;
        if k == n {
            break;
        }
        pk *= (n - k) as f64 / (k + 1) as f64 * ratio;
        k += 1;
        // Past the mean, the terms only shrink: stop once they no longer count.
        if k as f64 > mean + 8.0 && pk < 1e-18 {
            break;
        }
    }
    let b = buckets as f64;
    (b * m1, b * (m2 - m1 * m1).max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What each loader makes of old encodings (the rules `memory_diff`'s `old_encodings_*`
    /// checks against the servers): zipmaps become ziplists (6.x) or listpacks (7.0+), a
    /// ziplist list (RDB type 10) is a quicklist even where one small node would be a
    /// listpack, a quicklist of one small ziplist node is a listpack from 7.2, blob hashes and
    /// sorted sets stay compact whatever their elements' length, field-by-field ones do not.
    #[test]
    fn loader_conversions_per_profile() {
        use crate::encoded::test_blobs::{intset, items, ziplist, zipmap};
        let p = |name| crate::dialect::Profile::from_name(name).unwrap();
        let enc = |name, v: &Value| object_encoding(p(name), b"k", v, false).unwrap();
        let zl = |strs: &[&[u8]]| ziplist(&items(strs));
        let long = [b'x'; 100];

        let zm = Value::Hash(crate::hash::Hash::from_zipmap(zipmap(&[(b"f", b"v")])).unwrap());
        assert_eq!(enc("redis-6.2", &zm), "ziplist");
        assert_eq!(enc("redis-7.4", &zm), "listpack");

        let mut l = crate::list::List::new(crate::list::ListEncoding::Ziplist);
        let (node, n) = crate::list::Node::ziplist(zl(&[b"a", b"b"])).unwrap();
        l.push_node(node, n);
        assert_eq!(enc("redis-7.4", &Value::list(l)), "quicklist");
        let mut q = crate::list::List::new(crate::list::ListEncoding::Quicklist);
        let (node, n) = crate::list::Node::ziplist(zl(&[b"a", b"b"])).unwrap();
        q.push_node(node, n);
        let q = Value::list(q);
        assert_eq!(enc("redis-7.0", &q), "quicklist");
        assert_eq!(enc("redis-7.4", &q), "listpack");

        let hz = Value::Hash(crate::hash::Hash::from_ziplist(zl(&[b"f", &long])).unwrap());
        assert_eq!(enc("redis-7.0", &hz), "listpack");
        let ht = Value::Hash(crate::hash::Hash::from_fields([(
            b"f".as_slice(),
            long.as_slice(),
            None,
        )]));
        assert_eq!(enc("redis-7.0", &ht), "hashtable");
        let five = Value::Hash(crate::hash::Hash::from_fields(
            (0..5).map(|i| (format!("f{i}"), format!("v{i}"), None)),
        ));
        assert_eq!(enc("redis-7.0", &five), "listpack");
        // Its listpack: 7 bytes of header and end, 4 per 2-byte element.
        let lp = listpack_bytes(
            [
                b"f0", b"v0", b"f1", b"v1", b"f2", b"v2", b"f3", b"v3", b"f4", b"v4",
            ]
            .iter()
            .map(|b| b.as_slice()),
        );
        assert_eq!(lp, 7 + 10 * 4);
        assert_eq!(
            loaded(p("redis-7.0"), b"k", &five, false).unwrap().shape,
            Shape::Blob(lp as u64)
        );
        let zs = Value::zset(
            crate::zset::ZSet::from_pairs([(long.to_vec(), 1.0)]).with_stored_compact(),
        );
        assert_eq!(enc("redis-7.4", &zs), "listpack");
        let zs = Value::zset(crate::zset::ZSet::from_pairs([(long.to_vec(), 1.0)]));
        assert_eq!(enc("redis-7.4", &zs), "skiplist");

        let big = Value::Set(
            crate::set::Set::from_intset(intset(2, &(0..600).collect::<Vec<_>>())).unwrap(),
        );
        assert_eq!(enc("redis-6.0", &big), "hashtable");
    }

    /// [`expected_child_buckets`] against tables filled slot by slot as hashtable.c's
    /// `findBucketForInsert` fills them (7 slots a bucket; a full bucket's last entry moves
    /// to a new child, whose pointer takes its slot), each entry in a random bucket: the mean
    /// over many tables lies within 5 standard errors of the expectation. Randomized
    /// (`BITLENS_SEED`).
    #[test]
    fn child_buckets_expected_as_tables_fill() {
        let mut rng = fastrand::Rng::with_seed(bitlens_testseed::seed());
        // (n, buckets): the loader's sizes for n (5n / 32 rounded up to a power of two)
        // and a few fuller ones.
        for (n, buckets) in [
            (8u64, 1u64),
            (12, 2),
            (13, 2),
            (14, 2),
            (20, 2),
            (129, 32),
            (400, 64),
            (700, 128),
            (1000, 256),
            (20_000, 4096),
        ] {
            let trials = 400;
            let mut counts = Vec::new();
            for _ in 0..trials {
                // Per top-level bucket: its chain, as (slots, filled) per bucket.
                let mut chains: Vec<Vec<(u32, u32)>> = vec![vec![(7, 0)]; buckets as usize];
                let mut children = 0u64;
                for _ in 0..n {
                    let chain = &mut chains[rng.usize(..buckets as usize)];
                    let last = chain.len() - 1;
                    if chain[last].1 == chain[last].0 {
                        // Full: the last entry and the new one go to a child.
                        chain[last] = (6, 6);
                        chain.push((7, 2));
                        children += 1;
                    } else {
                        chain[last].1 += 1;
                    }
                }
                counts.push(children as f64);
            }
            let mean = counts.iter().sum::<f64>() / trials as f64;
            let var = counts.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / trials as f64;
            let se = (var / trials as f64).sqrt();
            let expected = expected_child_buckets(n, buckets);
            assert!(
                (mean - expected).abs() <= 5.0 * se + 1e-9,
                "n {n}, {buckets} buckets: simulated {mean:.3} ± {se:.3}, expected {expected:.3}"
            );
        }
        // Exact cases: no child below 8 entries, one bucket holds them all.
        assert_eq!(expected_child_buckets(7, 1), 0.0);
        assert_eq!(expected_child_buckets(8, 1), 1.0);
        assert_eq!(expected_child_buckets(13, 1), 1.0);
        assert_eq!(expected_child_buckets(14, 1), 2.0);
        assert_eq!(expected_child_buckets(0, 0), 0.0);
        // The keyspace of 100,000 keys (16,384 buckets): about 4,500 children.
        let big = expected_child_buckets(100_000, 16_384);
        assert!((4400.0..4600.0).contains(&big), "{big}");
    }

    /// A Valkey 8.1+ `hashtable` replayed (hashtable.c's sizes and growth, rdb.c's hash
    /// loading); 600 and 2,000 fields sized up front give the 128 and 512 buckets Valkey
    /// 8.1.8's `DEBUG HTSTATS-KEY` showed once loaded.
    #[test]
    fn hashtable_growth_as_valkey_loads() {
        let grown = |n| Table::grown(TableKind::Hashtable, n).buckets;
        let sized = |n| Table::presized(TableKind::Hashtable, n).buckets;
        assert_eq!(grown(150), 32);
        // The 225th insert finds 32 buckets full; 25 lookups move 25 of them.
        assert_eq!(grown(250), 96);
        assert_eq!(grown(100), 16);
        assert_eq!(grown(300), 64);
        assert_eq!(sized(600), 128);
        assert_eq!(sized(2000), 512);
        // Field by field: 3 short fields, a long one, 246 left: the table of 1 bucket is
        // expanded to 64 for the 246 (its rehash ends with the next insert).
        assert_eq!(converted_hashtable(3, 250).buckets, 64);
        // 240 short fields (a table of 64), the long one, 9 left: no expansion.
        assert_eq!(converted_hashtable(240, 250).buckets, 64);
        // 10 short fields (2 buckets), the long one, 139 left: expanded to 32 for them, the
        // 2 old buckets moved by the next inserts, then 150 fit in 32.
        assert_eq!(converted_hashtable(10, 150).buckets, 32);
        // 200 short (32 buckets), long, 600 left: 128 for the 600, a rehash of 32 buckets
        // that 600 inserts finish, then 801 entries fit 128 buckets (896 slots).
        assert_eq!(converted_hashtable(200, 801).buckets, 128);
        // A load no server leaves still counts its chains (P(K = 0) would underflow).
        let (mean, _) = child_buckets_moments(1_000_000, 16);
        assert!((mean - 166_660.0).abs() < 200.0, "{mean}");
        assert_eq!(grown(0), 0);
        assert_eq!(grown(1), 1);
        assert_eq!(grown(7), 1);
        // The 8th entry starts a rehash of the one bucket into 2, the 9th's lookup ends it.
        assert_eq!(grown(8), 3);
        assert_eq!(grown(9), 2);
        // Mid-rehash, the 7 unmoved old buckets hold about 7 entries each, and chain more
        // than a table at its final fill would.
        let mid = Table::grown(TableKind::Hashtable, 250).child_buckets_milli;
        let settled = Table::presized(TableKind::Hashtable, 250).child_buckets_milli;
        assert!(mid > settled, "{mid} {settled}");
        let dict = Table::grown(TableKind::Dict, 250);
        assert_eq!(dict, Table::dict(grown_buckets(0, 250)));
        // The keyspace: a rehash left running by the last insert is finished.
        assert_eq!(Table::grown_rehashed(TableKind::Hashtable, 250).buckets, 64);
        assert_eq!(Table::grown_rehashed(TableKind::Dict, 5).buckets, 8);
        assert_eq!(grown_buckets(0, 5), 12);
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
