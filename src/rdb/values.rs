//! Decoding of list, set, hash and stream values from RDB records into [`Value::List`],
//! [`Value::Set`], [`Value::Hash`] and [`Value::Stream`].
//!
//! Listpack, ziplist, intset and zipmap blobs are validated here once and then kept as their
//! bytes (see [`crate::list`], [`crate::set`], [`crate::hash`], [`crate::stream`]). Each
//! function reads one value body (after the key) from the [`Cursor`]; with `materialise`
//! false the value is only walked (every length checked, blobs skipped) and `Ok(None)`
//! returned. Formats, as Redis writes them:
//!
//! - RDB_TYPE_LIST / RDB_TYPE_SET: a count, then that many strings.
//! - RDB_TYPE_HASH: a count, then field and value strings.
//! - RDB_TYPE_HASH_METADATA (Redis 7.4): the minimum field expiry (8 bytes, Unix ms), a count,
//!   then per field a length-encoded TTL (0: none, else expiry − minimum + 1), field, value.
//!   The pre-release form (type 22) has no minimum and stores the absolute expiry.
//! - RDB_TYPE_HASH_LISTPACK_EX: the minimum expiry (8 bytes; absent in the pre-release type
//!   23), then a listpack of field, value, absolute expiry (0: none) triples.
//! - RDB_TYPE_LIST_QUICKLIST: a node count, then ziplist blobs. RDB_TYPE_LIST_QUICKLIST_2: a
//!   node count, then per node a container (1 plain: one element; 2 packed: a listpack).
//! - RDB_TYPE_STREAM_LISTPACKS 1/2/3: node count, (16-byte master id, listpack) per node;
//!   length, last id; in v2+ first id, max deleted id, entries added; consumer groups (name,
//!   last id, v2+ entries read, PEL of (16-byte id, 8-byte delivery time, delivery count),
//!   consumers (name, 8-byte seen time, v3+ 8-byte active time, PEL of 16-byte ids)).

use super::reader::Cursor;
use super::{ErrorDetail, RdbError};
use crate::encoded::BlobError;
use crate::hash::{Hash, HashTable};
use crate::keyspace::Value;
use crate::list::{List, Node};
use crate::set::{Set, StrTable};
use crate::stream::{Consumer, Group, PendingEntry, Stream, StreamId};

type Out = Result<Option<Value>, RdbError>;

/// One embedded blob, built into `T` by `build` (which validates it); skipped when not
/// materialising.
fn blob<T>(
    c: &mut Cursor<'_>,
    what: &'static str,
    materialise: bool,
    build: impl FnOnce(&[u8]) -> Result<T, BlobError>,
) -> Result<Option<T>, RdbError> {
    if !materialise {
        c.skip_string(what)?;
        return Ok(None);
    }
    let (b, at) = c.blob(what)?;
    build(&b).map(Some).map_err(|e| c.blob_err(at, what, e))
}

/// RDB_TYPE_LIST: a linked list of strings.
pub(super) fn list_linked(c: &mut Cursor<'_>, materialise: bool) -> Out {
    let n = c.count(1, "list element count")?;
    let mut list = List::new(crate::list::ListEncoding::Linkedlist);
    for _ in 0..n {
        if materialise {
            let e = c.string("list element")?;
            list.push_node(Node::plain(&e), 1);
        } else {
            c.skip_string("list element")?;
        }
    }
    Ok(materialise.then(|| Value::list(list)))
}

/// RDB_TYPE_LIST_ZIPLIST: one ziplist.
pub(super) fn list_ziplist(c: &mut Cursor<'_>, materialise: bool) -> Out {
    Ok(
        blob(c, "ziplist", materialise, |b| Node::ziplist(b))?.map(|(node, n)| {
            let mut list = List::new(crate::list::ListEncoding::Ziplist);
            list.push_node(node, n);
            Value::list(list)
        }),
    )
}

/// RDB_TYPE_LIST_QUICKLIST (`v2` false: ziplist nodes) and RDB_TYPE_LIST_QUICKLIST_2 (`v2`:
/// plain or listpack nodes).
pub(super) fn quicklist(c: &mut Cursor<'_>, materialise: bool, v2: bool) -> Out {
    let n = c.count(if v2 { 2 } else { 1 }, "quicklist node count")?;
    let mut list = List::new(crate::list::ListEncoding::Quicklist);
    for _ in 0..n {
        if !v2 {
            if let Some((node, k)) =
                blob(c, "quicklist ziplist", materialise, |b| Node::ziplist(b))?
            {
                list.push_node(node, k);
            }
            continue;
        }
        let c_at = c.pos;
        match c.length("quicklist container")? {
            1 => {
                if materialise {
                    let e = c.string("quicklist plain node")?;
                    list.push_node(Node::plain(&e), 1);
                } else {
                    c.skip_string("quicklist plain node")?;
                }
            }
            2 => {
                if let Some((node, k)) =
                    blob(c, "quicklist listpack", materialise, |b| Node::listpack(b))?
                {
                    list.push_node(node, k);
                }
            }
            k => return Err(c.err_at(c_at, ErrorDetail::QuicklistContainer { container: k })),
        }
    }
    Ok(materialise.then(|| Value::list(list)))
}

/// RDB_TYPE_SET: a hashtable set of strings. A repeated member is an error, as in Redis.
pub(super) fn set_table(c: &mut Cursor<'_>, materialise: bool) -> Out {
    let n = c.count(1, "set member count")?;
    if !materialise {
        for _ in 0..n {
            c.skip_string("set member")?;
        }
        return Ok(None);
    }
    let mut t = StrTable::with_capacity(1, n as usize, 0);
    for _ in 0..n {
        let at = c.pos;
        let m = c.string("set member")?;
        if !t.insert(&[&m]) {
            return Err(c.err_at(at, ErrorDetail::DuplicateMember));
        }
    }
    t.shrink();
    Ok(Some(Value::Set(Set::from_table(t))))
}

/// RDB_TYPE_SET_INTSET.
pub(super) fn set_intset(c: &mut Cursor<'_>, materialise: bool) -> Out {
    Ok(blob(c, "intset", materialise, |b| Set::from_intset(b))?.map(Value::Set))
}

/// RDB_TYPE_SET_LISTPACK.
pub(super) fn set_listpack(c: &mut Cursor<'_>, materialise: bool) -> Out {
    Ok(blob(c, "listpack", materialise, |b| Set::from_listpack(b))?.map(Value::Set))
}

/// RDB_TYPE_HASH_ZIPMAP.
pub(super) fn hash_zipmap(c: &mut Cursor<'_>, materialise: bool) -> Out {
    Ok(blob(c, "zipmap", materialise, |b| Hash::from_zipmap(b))?.map(Value::Hash))
}

/// RDB_TYPE_HASH_ZIPLIST.
pub(super) fn hash_ziplist(c: &mut Cursor<'_>, materialise: bool) -> Out {
    Ok(blob(c, "ziplist", materialise, |b| Hash::from_ziplist(b))?.map(Value::Hash))
}

/// RDB_TYPE_HASH_LISTPACK.
pub(super) fn hash_listpack(c: &mut Cursor<'_>, materialise: bool) -> Out {
    Ok(blob(c, "listpack", materialise, |b| Hash::from_listpack(b))?.map(Value::Hash))
}

/// RDB_TYPE_HASH_LISTPACK_EX (`pre_ga` false: with the 8-byte minimum expiry first) and its
/// pre-release form.
pub(super) fn hash_listpack_ex(c: &mut Cursor<'_>, materialise: bool, pre_ga: bool) -> Out {
    if !pre_ga {
        c.take(8, "hash minimum field expiry")?;
    }
    Ok(blob(c, "listpack", materialise, |b| Hash::from_listpack_ex(b))?.map(Value::Hash))
}

/// RDB_TYPE_HASH (`ttl` None) and RDB_TYPE_HASH_METADATA (`ttl` Some(pre_ga)): a hashtable
/// hash, with per-field TTLs for the latter. A repeated field is an error, as in Redis.
fn hash_records(c: &mut Cursor<'_>, materialise: bool, ttl: Option<bool>) -> Out {
    let min_expire = match ttl {
        Some(false) => Some(c.u64_le("hash minimum field expiry")?),
        _ => None,
    };
    let n = c.count(if ttl.is_some() { 3 } else { 2 }, "hash field count")?;
    if !materialise {
        for _ in 0..n {
            if ttl.is_some() {
                c.length("hash field TTL")?;
            }
            c.skip_string("hash field")?;
            c.skip_string("hash value")?;
        }
        return Ok(None);
    }
    let mut records = StrTable::with_capacity(2, n as usize, 0);
    let mut expires = Vec::new();
    for _ in 0..n {
        if ttl.is_some() {
            let t_at = c.pos;
            let t = c.length("hash field TTL")?;
            let at = match (t, min_expire) {
                (0, _) => 0,
                (t, Some(min)) => t.checked_add(min).map(|v| v - 1).unwrap_or(u64::MAX),
                (t, None) => t,
            };
            let at =
                i64::try_from(at).map_err(|_| c.err_at(t_at, ErrorDetail::FieldTtl { ttl: t }))?;
            expires.push(at);
        }
        let at = c.pos;
        let f = c.string("hash field")?;
        let v = c.string("hash value")?;
        if !records.insert(&[&f, &v]) {
            return Err(c.err_at(at, ErrorDetail::DuplicateField));
        }
    }
    records.shrink();
    let expires = expires.iter().any(|&e| e != 0).then_some(expires);
    Ok(Some(Value::Hash(Hash::from_table(HashTable {
        records,
        expires,
    }))))
}

/// RDB_TYPE_HASH.
pub(super) fn hash_table(c: &mut Cursor<'_>, materialise: bool) -> Out {
    hash_records(c, materialise, None)
}

/// RDB_TYPE_HASH_METADATA (`pre_ga` false) and its pre-release form (`pre_ga` true).
pub(super) fn hash_metadata(c: &mut Cursor<'_>, materialise: bool, pre_ga: bool) -> Out {
    hash_records(c, materialise, Some(pre_ga))
}

/// Valkey 9 RDB_TYPE_HASH_2: a field count, then per field its name, its value and its
/// absolute expiry as 8 little-endian bytes of Unix milliseconds (-1: none). Observed on
/// files written by Valkey 9.1.2. A repeated field is an error, as for RDB_TYPE_HASH.
pub(super) fn hash_2(c: &mut Cursor<'_>, materialise: bool) -> Out {
    let n = c.count(10, "hash field count")?;
    if !materialise {
        for _ in 0..n {
            c.skip_string("hash field")?;
            c.skip_string("hash value")?;
            c.take(8, "hash field expiry")?;
        }
        return Ok(None);
    }
    let mut records = StrTable::with_capacity(2, n as usize, 0);
    let mut expires = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let at = c.pos;
        let f = c.string("hash field")?;
        let v = c.string("hash value")?;
        let e_at = c.pos;
        let e = c.u64_le("hash field expiry")? as i64;
        let e = match e {
            -1 => 0,
            e if e > 0 => e,
            e => return Err(c.err_at(e_at, ErrorDetail::FieldExpiry { expiry: e })),
        };
        if !records.insert(&[&f, &v]) {
            return Err(c.err_at(at, ErrorDetail::DuplicateField));
        }
        expires.push(e);
    }
    records.shrink();
    let expires = expires.iter().any(|&e| e != 0).then_some(expires);
    Ok(Some(Value::Hash(Hash::from_table(HashTable {
        records,
        expires,
    }))))
}

/// A 16-byte big-endian id (PEL entries).
fn raw_id(c: &mut Cursor<'_>, what: &'static str) -> Result<StreamId, RdbError> {
    let b = c.take(16, what)?;
    Ok(StreamId::from_key(b.try_into().expect("16 bytes")))
}

fn stream_id(c: &mut Cursor<'_>, what: &'static str) -> Result<StreamId, RdbError> {
    Ok(StreamId {
        ms: c.length(what)?,
        seq: c.length(what)?,
    })
}

/// RDB_TYPE_STREAM_LISTPACKS (`version` 1), _2 (2) and _3 (3), as Redis 7.4's
/// rdbLoadObject reads them with `sanitize-dump-payload` at its default (`no`): the recorded
/// length is kept even when the nodes' live entries differ (XLEN answers it, the range
/// commands walk the nodes); nodes may come in any order (they are sorted by master id) but
/// not twice. Refused as the server refuses them: a node id not 16 bytes, a repeated node id,
/// an empty node listpack, a length above 0 with no nodes, a repeated group name, global PEL
/// id, consumer name or consumer PEL id, and a consumer PEL id missing from the group's
/// global PEL. A version 1 stream gets what Redis 7 derives for it at load: the first live
/// entry's id as its first id (`u64::MAX-u64::MAX` when none), the length as entries added,
/// and each group's entries read estimated from its last delivered id
/// ([`Stream::estimate_entries_read`]).
pub(super) fn stream(c: &mut Cursor<'_>, materialise: bool, version: u8) -> Out {
    let nodes = c.count(2, "stream listpack count")?;
    let mut s = Stream::default();
    let mut ids = std::collections::BTreeSet::new();
    for _ in 0..nodes {
        let at = c.pos;
        let key = c.string("stream node id")?;
        let Ok(key) = <[u8; 16]>::try_from(&key[..]) else {
            return Err(c.err_at(at, ErrorDetail::StreamNodeId { len: key.len() }));
        };
        let master = StreamId::from_key(&key);
        if !ids.insert(master) {
            return Err(c.err_at(at, ErrorDetail::StreamNodeTwice { id: master }));
        }
        if let Some(b) = blob(c, "stream listpack", materialise, |b| {
            Stream::check_node(master, b).map(|_| Box::<[u8]>::from(b))
        })? {
            s.nodes.push((master, b));
        }
    }
    // The crate's one sort (crate::sort) rather than one instantiation each (7.5 KB of the
    // wasm module for these five): Redis writes the nodes in order, so this sort only checks,
    // and groups, consumers and PELs are small.
    crate::sort::sort_by_key(&mut s.nodes, |(m, _)| *m);
    let len_at = c.pos;
    s.length = c.length("stream length")?;
    s.last_id = stream_id(c, "stream last id")?;
    s.entries_added = s.length;
    if version >= 2 {
        s.first_id = stream_id(c, "stream first id")?;
        s.max_deleted_id = stream_id(c, "stream max deleted id")?;
        s.entries_added = c.length("stream entries added")?;
    } else if materialise {
        s.first_id = s.first().map_or(StreamId::MAX, |e| e.id);
    }
    if s.length != 0 && nodes == 0 {
        return Err(c.err_at(len_at, ErrorDetail::StreamNoNodes { length: s.length }));
    }
    let groups = c.count(3, "stream consumer group count")?;
    for _ in 0..groups {
        let at = c.pos;
        let name = if materialise {
            c.string("consumer group name")?.into_owned()
        } else {
            c.skip_string("consumer group name")?;
            Vec::new()
        };
        let last_id = stream_id(c, "consumer group last id")?;
        // Redis writes its "unknown" marker (SCG_INVALID_ENTRIES_READ, -1) as 2^64 − 1. A
        // version 1 file has no count: Redis 7 estimates it.
        let entries_read = if version >= 2 {
            Some(c.length("consumer group entries read")?).filter(|&n| n != u64::MAX)
        } else {
            // (Redis' rule: a Valkey 8.1+ loader may estimate fewer; see StreamLag.)
            s.estimate_entries_read(last_id, crate::dialect::StreamLag::Redis)
        };
        if materialise && s.groups.iter().any(|g| g.name == name) {
            return Err(c.err_at(
                at,
                ErrorDetail::GroupTwice {
                    name: String::from_utf8_lossy(&name).into_owned(),
                },
            ));
        }
        let n = c.count(25, "consumer group PEL size")?;
        let mut pending: Vec<PendingEntry> =
            Vec::with_capacity(if materialise { n as usize } else { 0 });
        let mut pel = std::collections::BTreeSet::new();
        for _ in 0..n {
            let id_at = c.pos;
            let id = raw_id(c, "PEL entry id")?;
            let delivery_time_ms = c.u64_le("PEL delivery time")?;
            let delivery_count = c.length("PEL delivery count")?;
            if materialise && !pel.insert(id) {
                return Err(c.err_at(id_at, ErrorDetail::PelTwice { id }));
            }
            if materialise {
                pending.push(PendingEntry {
                    id,
                    delivery_time_ms,
                    delivery_count,
                });
            }
        }
        let n = c.count(10, "consumer count")?;
        let mut consumers = Vec::new();
        let mut owned = std::collections::BTreeSet::new();
        for _ in 0..n {
            let name_at = c.pos;
            let name = if materialise {
                c.string("consumer name")?.into_owned()
            } else {
                c.skip_string("consumer name")?;
                Vec::new()
            };
            let seen_time_ms = c.u64_le("consumer seen time")?;
            let active_time_ms = if version >= 3 {
                Some(c.u64_le("consumer active time")?)
            } else {
                None
            };
            let k = c.count(16, "consumer PEL size")?;
            let mut ids = Vec::with_capacity(if materialise { k as usize } else { 0 });
            for _ in 0..k {
                let id_at = c.pos;
                let id = raw_id(c, "consumer PEL id")?;
                if materialise {
                    if !pel.contains(&id) {
                        return Err(c.err_at(id_at, ErrorDetail::ConsumerPelMissing { id }));
                    }
                    if !owned.insert(id) {
                        return Err(c.err_at(id_at, ErrorDetail::ConsumerPelTwice { id }));
                    }
                    ids.push(id);
                }
            }
            if materialise {
                if consumers.iter().any(|x: &Consumer| x.name == name) {
                    return Err(c.err_at(
                        name_at,
                        ErrorDetail::ConsumerTwice {
                            name: String::from_utf8_lossy(&name).into_owned(),
                        },
                    ));
                }
                crate::sort::sort_by(&mut ids, Ord::cmp);
                consumers.push(Consumer {
                    name,
                    seen_time_ms,
                    active_time_ms,
                    pending: ids,
                });
            }
        }
        if materialise {
            // Redis keeps groups, consumers and PELs in radix trees: in byte order.
            crate::sort::sort_by_key(&mut pending, |p| p.id);
            crate::sort::sort_by(&mut consumers, |a, b| a.name.cmp(&b.name));
            s.groups.push(Group {
                name,
                last_id,
                entries_read,
                pending,
                consumers,
            });
        }
    }
    crate::sort::sort_by(&mut s.groups, |a, b| a.name.cmp(&b.name));
    Ok(materialise.then(|| Value::Stream(Box::new(s))))
}

/// Reads an RDB_TYPE_MODULE_2 value: the module id, then its opcode-tagged fields up to the
/// EOF opcode. With `materialise`, RedisBloom's types become [`Value::Module`] (see
/// [`crate::probabilistic`]; a field out of place is an error at its offset) and every other
/// module keeps only its type ([`Value::Other`]).
pub fn module_2(c: &mut Cursor<'_>, materialise: bool) -> Result<Option<Value>, RdbError> {
    use crate::probabilistic::{Field, StringKind};
    let start = c.pos;
    let mut kinds = Vec::new();
    let id = c.length("module id")?;
    let name = super::reader::module_name(id);
    let encver = (id & 1023) as u32;
    let mut fields = Vec::new();
    loop {
        let at = c.pos;
        let field = match c.length("module opcode")? {
            0 => break,
            1 => Field::Signed(c.length("module integer")? as i64),
            2 => Field::Unsigned(c.length("module integer")?),
            3 => {
                let b = c.take(4, "module float")?;
                Field::Float(f32::from_le_bytes(b.try_into().expect("4 bytes")))
            }
            4 => {
                let b = c.take(8, "module double")?;
                Field::Double(f64::from_le_bytes(b.try_into().expect("8 bytes")))
            }
            5 => {
                if materialise {
                    // The string's first byte tells an integer (0xC0-0xC2) or LZF (0xC3).
                    let kind = match c.buf.get(c.pos) {
                        Some(0xC0..=0xC2) => StringKind::Int,
                        Some(0xC3) => StringKind::Lzf,
                        _ => StringKind::Plain,
                    };
                    kinds.resize(fields.len(), StringKind::Plain);
                    kinds.push(kind);
                    Field::Buffer(c.string("module string")?.into_owned())
                } else {
                    c.skip_string("module string")?;
                    Field::Buffer(Vec::new())
                }
            }
            op => return Err(c.err_at(at, ErrorDetail::UnknownModuleOpcode { op })),
        };
        if materialise {
            fields.push((at, field));
        }
    }
    if !materialise {
        return Ok(None);
    }
    let end = c.pos;
    match crate::probabilistic::decode_with_kinds(name, encver, fields, &kinds, end) {
        Ok(Some(mut m)) => {
            if let crate::probabilistic::ModuleData::VectorSet(v) = &mut m.data {
                // Where it sits in the input: the order a loading server numbers vector sets.
                v.load_pos = c.base + start as u64;
            }
            Ok(Some(Value::Module(Box::new(m))))
        }
        Ok(None) => Ok(Some(Value::Other(crate::keyspace::RedisType::Module(name)))),
        Err(e) => Err(c.err_at(e.at, ErrorDetail::ModuleField(e))),
    }
}

#[cfg(test)]
mod tests {
    use crate::encoded::test_blobs::{intset, items, listpack_ex, listpack_strs, ziplist};
    use crate::hash::Hash;
    use crate::keyspace::Value;
    use crate::list::{List, Node};
    use crate::rdb::{load_rdb, LoadOptions, RdbWriter};
    use crate::set::Set;
    use crate::stream::{tests::node, Group, Stream, StreamId};

    fn round_trip(version: u32, values: &[(&str, Value, Option<i64>)]) -> crate::rdb::Snapshot {
        let mut w = RdbWriter::new(Vec::new(), version).unwrap();
        w.select_db(0).unwrap();
        for (k, v, e) in values {
            w.write_value(k.as_bytes(), v, *e).unwrap();
        }
        let bytes = w.finish().unwrap();
        load_rdb(&bytes, &LoadOptions::default()).unwrap()
    }

    fn sample() -> Vec<(&'static str, Value, Option<i64>)> {
        let mut qlist = List::new(crate::list::ListEncoding::Quicklist);
        let (n, c) = Node::listpack(listpack_strs(&[b"a", b"7", b"b"])).unwrap();
        qlist.push_node(n, c);
        qlist.push_node(Node::plain(&[b'x'; 5000]), 1);
        let mut zlist = List::new(crate::list::ListEncoding::Quicklist);
        let (n, c) = Node::ziplist(ziplist(&items(&[b"z1", b"-3"]))).unwrap();
        zlist.push_node(n, c);
        let ex = listpack_ex(&[(b"f", b"v", 1_700_000_000_000), (b"g", b"w", 0)]);
        let master = StreamId { ms: 5, seq: 0 };
        let stream = Stream {
            nodes: vec![(
                master,
                node(
                    &[b"f"],
                    &[
                        (0, 0, vec![(b"f", b"1")], false),
                        (1, 2, vec![(b"g", b"2")], false),
                    ],
                )
                .into(),
            )],
            length: 2,
            last_id: StreamId { ms: 6, seq: 2 },
            first_id: master,
            max_deleted_id: StreamId::MIN,
            entries_added: 2,
            groups: vec![Group {
                name: b"g1".to_vec(),
                last_id: master,
                entries_read: Some(1),
                pending: vec![crate::stream::PendingEntry {
                    id: master,
                    delivery_time_ms: 1_700_000_000_123,
                    delivery_count: 2,
                }],
                consumers: vec![crate::stream::Consumer {
                    name: b"alice".to_vec(),
                    seen_time_ms: 1_700_000_000_200,
                    active_time_ms: Some(1_700_000_000_100),
                    pending: vec![master],
                }],
            }],
        };
        vec![
            ("qlist", Value::list(qlist), None),
            ("zlist", Value::list(zlist), Some(99)),
            ("linked", Value::list(List::from_elements(["p", "q"])), None),
            (
                "iset",
                Value::Set(Set::from_intset(intset(8, &[-1, 1 << 40])).unwrap()),
                None,
            ),
            (
                "lset",
                Value::Set(Set::from_listpack(listpack_strs(&[b"m", b"1"])).unwrap()),
                None,
            ),
            ("tset", Value::Set(Set::from_members(["u", "v"])), None),
            (
                "lhash",
                Value::Hash(Hash::from_listpack(listpack_strs(&[b"f", b"1"])).unwrap()),
                None,
            ),
            (
                "exhash",
                Value::Hash(Hash::from_listpack_ex(ex).unwrap()),
                None,
            ),
            (
                "thash",
                Value::Hash(Hash::from_fields([
                    ("a", "1", Some(1_700_000_000_500)),
                    ("b", "2", None),
                ])),
                None,
            ),
            (
                "plainhash",
                Value::Hash(Hash::from_fields([("a", "1", None)])),
                None,
            ),
            ("st", Value::Stream(Box::new(stream)), None),
        ]
    }

    #[test]
    fn every_type_round_trips_through_the_writer() {
        for version in [9, 10, 11, 12] {
            let values: Vec<_> = sample()
                .into_iter()
                .filter(|(k, _, _)| {
                    version >= 12 || !k.contains("hash") || *k == "lhash" || *k == "plainhash"
                })
                .collect();
            let snap = round_trip(version, &values);
            let db = &snap.databases[&0];
            for (k, v, e) in &values {
                let got = db.entry(k.as_bytes()).unwrap();
                assert_eq!(got.expire_at_ms, *e, "{k} v{version}");
                match (v, &got.value) {
                    (Value::List(a), Value::List(b)) => {
                        assert_eq!(a.range(0, a.len()), b.range(0, b.len()), "{k} v{version}")
                    }
                    (Value::Set(a), Value::Set(b)) => assert_eq!(a.members(), b.members(), "{k}"),
                    (Value::Hash(a), Value::Hash(b)) => assert_eq!(a.all(), b.all(), "{k}"),
                    (Value::Stream(a), Value::Stream(b)) => {
                        assert_eq!(
                            a.range(StreamId::MIN, StreamId::MAX, None),
                            b.range(StreamId::MIN, StreamId::MAX, None)
                        );
                        assert_eq!(a.last_id, b.last_id);
                        assert_eq!(a.groups.len(), b.groups.len());
                        assert_eq!(a.groups[0].pending, b.groups[0].pending);
                        assert_eq!(
                            a.groups[0].consumers[0].pending,
                            b.groups[0].consumers[0].pending
                        );
                        if version >= 11 {
                            assert_eq!(**a, **b, "{k} v{version}");
                        }
                    }
                    _ => panic!("{k}: type changed"),
                }
            }
        }
    }

    #[test]
    fn field_expiry_needs_rdb_12() {
        let mut w = RdbWriter::new(Vec::new(), 11).unwrap();
        let h = Value::Hash(Hash::from_fields([("a", "1", Some(5))]));
        assert!(w.write_value(b"h", &h, None).is_err());
    }

    #[test]
    fn corrupt_blobs_are_refused_at_load_with_offsets() {
        // A set listpack whose count says 3 but holds 2 entries.
        let mut lp = listpack_strs(&[b"a", b"b"]);
        lp[4] = 3;
        let mut w = RdbWriter::new(Vec::new(), 11).unwrap();
        w.begin_value(
            b"s",
            crate::rdb::Format::REDIS_7_4
                .type_byte(crate::rdb::ValueKind::SetListpack)
                .unwrap(),
            None,
        )
        .unwrap();
        w.write_value_piece(&[lp.len() as u8]).unwrap();
        w.write_value_piece(&lp).unwrap();
        let bytes = w.finish().unwrap();
        let e = load_rdb(&bytes, &LoadOptions::default()).unwrap_err();
        assert!(e.to_string().contains("listpack"), "{e}");
        assert_eq!(e.key.as_deref(), Some(&b"s"[..]));
        // Zipmaps (RDB_TYPE_HASH_ZIPMAP) as Redis' zipmapValidateIntegrity refuses them: a
        // header count above or below the pairs held, no pairs, a repeated field.
        let zipmap = crate::encoded::test_blobs::zipmap;
        let two: &[(&[u8], &[u8])] = &[(b"a", b"1"), (b"b", b"2")];
        let mut above = zipmap(two);
        above[0] = 3;
        let mut below = zipmap(two);
        below[0] = 1;
        for (blob, says) in [
            (zipmap(two), None),
            (above, Some("says 3 entries, it holds 2")),
            (below, Some("says 1 entries, it holds 2")),
            (zipmap(&[]), Some("empty zipmap")),
            (zipmap(&[(b"a", b"1"), (b"a", b"2")]), Some("appears twice")),
        ] {
            let mut w = RdbWriter::new(Vec::new(), 9).unwrap();
            w.begin_value(b"h", 9, None).unwrap();
            w.write_value_piece(&[blob.len() as u8]).unwrap();
            w.write_value_piece(&blob).unwrap();
            let bytes = w.finish().unwrap();
            match (load_rdb(&bytes, &LoadOptions::default()), says) {
                (Ok(snap), None) => assert_eq!(snap.databases[&0].len(), 1),
                (Err(e), Some(text)) => {
                    assert!(e.to_string().contains(text), "{e}");
                    assert_eq!(e.key.as_deref(), Some(&b"h"[..]));
                    // The value's blob starts after the key record's type, key and length.
                    assert!(e.offset > 9, "{e}");
                }
                (r, _) => panic!("zipmap {blob:?}: {:?}", r.map(|s| s.databases.len())),
            }
        }
        // Every truncation of a file with every type fails cleanly, never panics.
        let mut w = RdbWriter::new(Vec::new(), 12).unwrap();
        for (k, v, e) in sample() {
            w.write_value(k.as_bytes(), &v, e).unwrap();
        }
        let bytes = w.finish().unwrap();
        for cut in (0..bytes.len() - 8).step_by(7) {
            assert!(load_rdb(&bytes[..cut], &LoadOptions::default()).is_err());
        }
    }

    /// Byte flips and truncations of a file holding every type: each load either fails with
    /// an error or gives values on which every read command answers (never a panic).
    #[test]
    fn mutated_files_load_or_fail_and_never_panic_later() {
        let mut w = RdbWriter::new(Vec::new(), 12).unwrap();
        w.select_db(0).unwrap();
        for (k, v, e) in sample() {
            w.write_value(k.as_bytes(), &v, e).unwrap();
        }
        let good = w.finish().unwrap();
        let reads: &[&[&str]] = &[
            &["LRANGE", "K", "0", "-1"],
            &["LINDEX", "K", "-1"],
            &["LPOS", "K", "a", "RANK", "-1", "COUNT", "0"],
            &["SMEMBERS", "K"],
            &["SISMEMBER", "K", "1"],
            &["SUNION", "K", "K"],
            &["SSCAN", "K", "0"],
            &["HGETALL", "K"],
            &["HGET", "K", "f"],
            &["HTTL", "K", "FIELDS", "1", "f"],
            &["HSCAN", "K", "0"],
            &["XRANGE", "K", "-", "+"],
            &["XREVRANGE", "K", "+", "-", "COUNT", "2"],
            &["XINFO", "STREAM", "K"],
            &["XLEN", "K"],
        ];
        crate::rdb::mutate::load_or_fail_then_read(
            &good,
            3000,
            0x9e37_79b9_7f4a_7c15,
            reads,
            crate::dialect::Profile::default_profile(),
        );
    }

    /// Heap bytes of a loaded 1,000,000-field hashtable hash over its RDB file size (printed;
    /// asserted under 2.5, "not several times").
    #[test]
    fn million_field_hash_memory_ratio() {
        let n = 1_000_000;
        let mut w = RdbWriter::new(Vec::new(), 10).unwrap();
        w.begin_value(
            b"big",
            crate::rdb::Format::REDIS_7_4
                .type_byte(crate::rdb::ValueKind::Hash)
                .unwrap(),
            None,
        )
        .unwrap();
        let mut body = Vec::new();
        body.extend_from_slice(&[0x80]);
        body.extend_from_slice(&(n as u32).to_be_bytes());
        for i in 0..n {
            let f = format!("user:{:08}", i * 7919 % 100_000_000);
            let v = format!("state-{}", i % 1000);
            body.push(f.len() as u8);
            body.extend_from_slice(f.as_bytes());
            body.push(v.len() as u8);
            body.extend_from_slice(v.as_bytes());
        }
        w.write_value_piece(&body).unwrap();
        let bytes = w.finish().unwrap();
        let snap = load_rdb(&bytes, &LoadOptions::default()).unwrap();
        let Some(Value::Hash(h)) = snap.databases[&0].get(b"big") else {
            panic!("not a hash")
        };
        assert_eq!(h.len(None), n);
        assert_eq!(
            h.get(b"user:00007919", None).map(|v| v.0),
            Some(b"state-1".to_vec())
        );
        let ratio = h.heap_bytes() as f64 / bytes.len() as f64;
        println!(
            "1M-field hash: file {} bytes, heap {} bytes, ratio {ratio:.2}",
            bytes.len(),
            h.heap_bytes()
        );
        assert!(ratio < 2.5, "ratio {ratio:.2}");
    }
}
