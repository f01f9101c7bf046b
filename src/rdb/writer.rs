//! A streaming RDB writer for strings, sorted sets and verbatim DUMP payloads, in any
//! [`Format`] bitlens reads.
//!
//! Output follows what the server itself writes: header (`REDIS%04d` or `VALKEY%03d`), aux
//! fields (RDB 7+), SELECTDB, per key an optional expiry (EXPIRETIME_MS from RDB 3, seconds
//! before), the type byte, the key and the value; then EOF and (RDB 5+) the CRC-64 of every
//! byte before it. Strings are int-encoded when Redis would (decimal text that round-trips
//! and fits in 32 bits) and LZF-compressed when longer than 20 bytes and the compressed form
//! saves at least 4 bytes. Sorted sets use RDB_TYPE_ZSET_2 (binary little-endian doubles)
//! where the format has it (RDB 8+), else RDB_TYPE_ZSET (scores as text). Every byte written
//! comes from the format's tables. The CRC is kept running, so nothing is buffered.

use std::io::{self, Write};

use super::format::{Family, Format, Opcode, ValueKind};
use super::reader::Cursor;
use super::{dump_parts, Crc64Digest, RdbError, CRC64};
use crate::hash::{Hash, HashRef};
use crate::keyspace::Value;
use crate::list::{List, Node, NodeRef};
use crate::num::parse_i64;
use crate::set::{Set, SetRef};
use crate::stream::{Stream, StreamId};
use crate::zset::ZSet;

/// Writes an RDB file to `W` as it goes (see the module docs for the format).
pub struct RdbWriter<W: Write> {
    w: W,
    digest: Crc64Digest,
    format: Format,
    written: u64,
}

impl<W: Write> RdbWriter<W> {
    /// Starts a Redis-format file of RDB `version` (1 to 15; Redis 7.0 writes 10, 7.4 writes
    /// 12): writes the header and (RDB 7+) the aux fields `redis-ver` (the oldest Redis
    /// writing that version) and `redis-bits` (64).
    pub fn new(w: W, version: u32) -> io::Result<Self> {
        let redis_ver: &[u8] = match version {
            1 => b"1.0.0",
            2 => b"2.4.0",
            3..=5 => b"2.6.0",
            6 => b"2.6.0",
            7 => b"3.2.0",
            8 => b"4.0.0",
            9 => b"5.0.0",
            10 => b"7.0.0",
            11 => b"7.2.0",
            12 => b"7.4.0",
            13 => b"8.6.0",
            14 => b"8.8.0",
            _ => b"8.10.0",
        };
        Self::with_redis_ver(w, version, redis_ver)
    }

    /// As [`Self::new`], with the aux field `redis-ver` set to `redis_ver` (e.g. the
    /// `redis_version` of the server the keys were exported from).
    pub fn with_redis_ver(w: W, version: u32, redis_ver: &[u8]) -> io::Result<Self> {
        Self::with_format(w, Format::redis(version), redis_ver)
    }

    /// Starts a file of `format`: writes its header and, when the format has aux fields,
    /// the server version (`redis-ver` for Redis, `valkey-ver` for Valkey, as each server
    /// writes) and `redis-bits` (64). Errors when bitlens does not read that format.
    pub fn with_format(w: W, format: Format, server_ver: &[u8]) -> io::Result<Self> {
        let format = format
            .checked()
            .map_err(|m| io::Error::new(io::ErrorKind::InvalidInput, m))?;
        let mut wr = RdbWriter {
            w,
            digest: CRC64.digest(),
            format,
            written: 0,
        };
        wr.put(format.magic().as_bytes())?;
        if format.opcode_byte(Opcode::Aux).is_some() {
            let name: &[u8] = match format.family {
                Family::Redis => b"redis-ver",
                Family::Valkey => b"valkey-ver",
            };
            wr.aux(name, server_ver)?;
            wr.aux(b"redis-bits", b"64")?;
        }
        Ok(wr)
    }

    /// The RDB version being written.
    pub fn version(&self) -> u32 {
        self.format.version
    }

    /// The format being written.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The byte of opcode `op` in this format (an error when the format predates it).
    fn op(&self, op: Opcode) -> io::Result<u8> {
        self.format.opcode_byte(op).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} has no {}", self.format, op.name()),
            )
        })
    }

    /// The type byte of `kind` in this format (an error when the format predates it).
    fn type_byte(&self, kind: ValueKind) -> io::Result<u8> {
        self.format.type_byte(kind).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} has no {}", self.format, kind.name()),
            )
        })
    }

    /// Bytes written so far.
    pub fn bytes_written(&self) -> u64 {
        self.written
    }

    fn put(&mut self, b: &[u8]) -> io::Result<()> {
        self.w.write_all(b)?;
        self.digest.update(b);
        self.written += b.len() as u64;
        Ok(())
    }

    fn put_len(&mut self, n: u64) -> io::Result<()> {
        if n < 1 << 6 {
            self.put(&[n as u8])
        } else if n < 1 << 14 {
            self.put(&[0x40 | (n >> 8) as u8, n as u8])
        } else if n <= u32::MAX as u64 {
            let mut b = [0x80u8; 5];
            b[1..].copy_from_slice(&(n as u32).to_be_bytes());
            self.put(&b)
        } else {
            let mut b = [0x81u8; 9];
            b[1..].copy_from_slice(&n.to_be_bytes());
            self.put(&b)
        }
    }

    fn put_string(&mut self, s: &[u8]) -> io::Result<()> {
        if s.len() <= 11 {
            if let Some(v) = parse_i64(s) {
                if let Ok(v8) = i8::try_from(v) {
                    return self.put(&[0xC0, v8 as u8]);
                }
                if let Ok(v16) = i16::try_from(v) {
                    let b = v16.to_le_bytes();
                    return self.put(&[0xC1, b[0], b[1]]);
                }
                if let Ok(v32) = i32::try_from(v) {
                    let b = v32.to_le_bytes();
                    return self.put(&[0xC2, b[0], b[1], b[2], b[3]]);
                }
            }
        }
        if self.put_lzf(s)? {
            return Ok(());
        }
        self.put_len(s.len() as u64)?;
        self.put(s)
    }

    /// Writes the expiry opcode: EXPIRETIME_MS where the format has it, else EXPIRETIME in
    /// whole seconds (rounded up, so the key is not expired earlier than asked).
    fn put_expire(&mut self, expire_at_ms: Option<i64>) -> io::Result<()> {
        if let Some(ms) = expire_at_ms {
            if let Some(b) = self.format.opcode_byte(Opcode::ExpireTimeMs) {
                self.put(&[b])?;
                self.put(&ms.to_le_bytes())?;
            } else {
                let secs = i32::try_from(ms.div_euclid(1000) + i64::from(ms.rem_euclid(1000) != 0))
                    .map_err(|_| {
                        io::Error::new(
                            io::ErrorKind::InvalidInput,
                            format!("expiry {ms} ms does not fit a {} file", self.format),
                        )
                    })?;
                let b = self.op(Opcode::ExpireTime)?;
                self.put(&[b])?;
                self.put(&secs.to_le_bytes())?;
            }
        }
        Ok(())
    }

    /// Writes an aux field (e.g. `ctime` as decimal Unix seconds).
    pub fn aux(&mut self, name: &[u8], value: &[u8]) -> io::Result<()> {
        let b = self.op(Opcode::Aux)?;
        self.put(&[b])?;
        self.put_string(name)?;
        self.put_string(value)
    }

    /// Writes a function library record in the format of Redis 7.0's release candidates
    /// (RDB_OPCODE_FUNCTION_PRE_GA, 246; rdb.c rdbFunctionLoad): library name, engine name
    /// (`LUA`), a description flag and the description when given, then the library code
    /// without its `#!` line. Redis 7.0.x loads it as the library `#!<engine> name=<name>`
    /// + code; 7.2+ refuse the file. Errors when the format has no such opcode (RDB < 10).
    pub fn function_library_pre_ga(
        &mut self,
        name: &[u8],
        engine: &[u8],
        description: Option<&[u8]>,
        code: &[u8],
    ) -> io::Result<()> {
        let b = self.op(Opcode::FunctionPreGa)?;
        self.put(&[b])?;
        self.put_string(name)?;
        self.put_string(engine)?;
        self.put_len(description.is_some() as u64)?;
        if let Some(d) = description {
            self.put_string(d)?;
        }
        self.put_string(code)
    }

    /// Starts database `db`; keys written next belong to it.
    pub fn select_db(&mut self, db: u64) -> io::Result<()> {
        let b = self.op(Opcode::SelectDb)?;
        self.put(&[b])?;
        self.put_len(db)
    }

    /// Writes a RESIZEDB record (as Redis writes one after each SELECTDB): the database's
    /// key count and how many of them have an expiry (sizing hints for a loader).
    pub fn resize_db(&mut self, keys: u64, expires: u64) -> io::Result<()> {
        let b = self.op(Opcode::ResizeDb)?;
        self.put(&[b])?;
        self.put_len(keys)?;
        self.put_len(expires)
    }

    /// Writes an RDB_OPCODE_IDLE record: the LRU idle time, seconds, of the key written next
    /// (as Redis writes it under an LRU `maxmemory-policy`).
    pub fn lru_idle(&mut self, seconds: u64) -> io::Result<()> {
        let b = self.op(Opcode::Idle)?;
        self.put(&[b])?;
        self.put_len(seconds)
    }

    /// Writes an RDB_OPCODE_FREQ record: the LFU counter of the key written next (as Redis
    /// writes it under an LFU `maxmemory-policy`).
    pub fn lfu_freq(&mut self, counter: u8) -> io::Result<()> {
        let b = self.op(Opcode::Freq)?;
        self.put(&[b, counter])
    }

    /// Writes a string key (absolute expiry in Unix milliseconds, if any).
    pub fn write_string(
        &mut self,
        key: &[u8],
        value: &[u8],
        expire_at_ms: Option<i64>,
    ) -> io::Result<()> {
        self.put_expire(expire_at_ms)?;
        let b = self.type_byte(ValueKind::String)?;
        self.put(&[b])?;
        self.put_string(key)?;
        self.put_string(value)
    }

    /// Writes a sorted set key: RDB_TYPE_ZSET_2 (binary doubles) from RDB 8, RDB_TYPE_ZSET
    /// (scores as shortest round-trip text; `inf`/`-inf` as Redis' markers 254/255) before.
    pub fn write_zset(
        &mut self,
        key: &[u8],
        zset: &ZSet,
        expire_at_ms: Option<i64>,
    ) -> io::Result<()> {
        self.put_expire(expire_at_ms)?;
        let binary = self.format.type_byte(ValueKind::ZSet2);
        let b = match binary {
            Some(b) => b,
            None => self.type_byte(ValueKind::ZSet)?,
        };
        self.put(&[b])?;
        self.put_string(key)?;
        self.put_len(zset.len() as u64)?;
        for (member, score) in zset.iter() {
            self.put_string(member)?;
            if binary.is_some() {
                self.put(&score.to_le_bytes())?;
            } else if score == f64::INFINITY {
                self.put(&[254])?;
            } else if score == f64::NEG_INFINITY {
                self.put(&[255])?;
            } else {
                let mut text = format!("{score}");
                if text.len() > 24 {
                    text = format!("{score:e}");
                }
                self.put(&[text.len() as u8])?;
                self.put(text.as_bytes())?;
            }
        }
        Ok(())
    }

    fn begin_key(&mut self, key: &[u8], t: u8, expire_at_ms: Option<i64>) -> io::Result<()> {
        self.put_expire(expire_at_ms)?;
        self.put(&[t])?;
        self.put_string(key)
    }

    /// Writes any value: strings, sorted sets, lists, sets, hashes and streams (module values,
    /// kept only as their type, cannot be written: `InvalidInput`).
    pub fn write_value(
        &mut self,
        key: &[u8],
        value: &Value,
        expire_at_ms: Option<i64>,
    ) -> io::Result<()> {
        match value {
            Value::String(s) => self.write_string(key, &s.as_bytes(), expire_at_ms),
            Value::ZSet(z) => self.write_zset(key, z, expire_at_ms),
            Value::List(l) => self.write_list(key, l, expire_at_ms),
            Value::Set(v) => self.write_set(key, v, expire_at_ms),
            Value::Hash(h) => self.write_hash(key, h, expire_at_ms),
            Value::Stream(x) => self.write_stream(key, x, expire_at_ms),
            Value::Module(m) => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "a {} module value cannot be written",
                    String::from_utf8_lossy(&m.name)
                ),
            )),
            Value::Other(t) => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "a {} value kept only as its type cannot be written",
                    t.name()
                ),
            )),
        }
    }

    /// Writes a list: as RDB_TYPE_LIST_QUICKLIST_2 (listpack and plain nodes verbatim) from
    /// RDB 10 on when it has no ziplist node, as RDB_TYPE_LIST_QUICKLIST (ziplist nodes
    /// verbatim) before RDB 10 when all its nodes are ziplists, else element by element as
    /// RDB_TYPE_LIST (which every Redis loads).
    pub fn write_list(
        &mut self,
        key: &[u8],
        list: &List,
        expire_at_ms: Option<i64>,
    ) -> io::Result<()> {
        let v2 = self.version() >= 10;
        let all = |f: fn(&Node) -> bool| list.nodes().all(|(n, _)| f(n));
        if v2 && all(|n| !matches!(n.repr(), NodeRef::Ziplist(_))) {
            self.begin_key(
                key,
                self.type_byte(ValueKind::ListQuicklist2)?,
                expire_at_ms,
            )?;
            self.put_len(list.nodes().count() as u64)?;
            for (n, _) in list.nodes() {
                match n.repr() {
                    NodeRef::Plain(b) => {
                        self.put_len(1)?;
                        self.put_string(b)?;
                    }
                    NodeRef::Listpack(b) | NodeRef::Ziplist(b) => {
                        self.put_len(2)?;
                        self.put_blob(b)?;
                    }
                }
            }
            return Ok(());
        }
        if !v2 && all(|n| matches!(n.repr(), NodeRef::Ziplist(_))) {
            self.begin_key(key, self.type_byte(ValueKind::ListQuicklist)?, expire_at_ms)?;
            self.put_len(list.nodes().count() as u64)?;
            for (n, _) in list.nodes() {
                if let NodeRef::Ziplist(b) = n.repr() {
                    self.put_blob(b)?;
                }
            }
            return Ok(());
        }
        self.begin_key(key, self.type_byte(ValueKind::List)?, expire_at_ms)?;
        self.put_len(list.len() as u64)?;
        for (n, _) in list.nodes() {
            for e in n.items() {
                self.put_string(&e)?;
            }
        }
        Ok(())
    }

    /// Writes `blob` verbatim as the value of a single-blob RDB type: RDB_TYPE_HASH_ZIPMAP,
    /// _LIST_ZIPLIST, _SET_INTSET, _ZSET_ZIPLIST, _HASH_ZIPLIST, _SET_LISTPACK,
    /// _ZSET_LISTPACK or _HASH_LISTPACK (e.g. to write a file in the encodings an older
    /// server wrote; [`crate::rdb::blobs`] builds them). The blob is not checked. Errors
    /// (`InvalidInput`) for another kind, or one this file's format has no type byte for.
    pub fn write_blob(
        &mut self,
        key: &[u8],
        kind: ValueKind,
        blob: &[u8],
        expire_at_ms: Option<i64>,
    ) -> io::Result<()> {
        use ValueKind::*;
        if !matches!(
            kind,
            HashZipmap
                | ListZiplist
                | SetIntset
                | ZSetZiplist
                | HashZiplist
                | SetListpack
                | ZSetListpack
                | HashListpack
        ) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{kind:?} is not a single-blob type"),
            ));
        }
        self.begin_key(key, self.type_byte(kind)?, expire_at_ms)?;
        self.put_blob(blob)
    }

    /// Writes a set: an intset verbatim (RDB_TYPE_SET_INTSET), a listpack verbatim
    /// (RDB_TYPE_SET_LISTPACK) from RDB 11 on, else member by member (RDB_TYPE_SET).
    pub fn write_set(
        &mut self,
        key: &[u8],
        set: &Set,
        expire_at_ms: Option<i64>,
    ) -> io::Result<()> {
        match set.repr() {
            SetRef::Intset(b) => {
                self.begin_key(key, self.type_byte(ValueKind::SetIntset)?, expire_at_ms)?;
                self.put_blob(b)
            }
            SetRef::Listpack(b) if self.version() >= 11 => {
                self.begin_key(key, self.type_byte(ValueKind::SetListpack)?, expire_at_ms)?;
                self.put_blob(b)
            }
            _ => {
                let members = set.members();
                self.begin_key(key, self.type_byte(ValueKind::Set)?, expire_at_ms)?;
                self.put_len(members.len() as u64)?;
                for m in members {
                    self.put_string(&m)?;
                }
                Ok(())
            }
        }
    }

    /// Writes a hash: listpack (RDB 10+), ziplist and zipmap blobs verbatim; a listpack with
    /// field expiry as RDB_TYPE_HASH_LISTPACK_EX and a hashtable with expiring fields as
    /// RDB_TYPE_HASH_METADATA (both RDB 12+; `InvalidInput` before, rather than drop the
    /// expiry); otherwise field by field (RDB_TYPE_HASH).
    pub fn write_hash(
        &mut self,
        key: &[u8],
        hash: &Hash,
        expire_at_ms: Option<i64>,
    ) -> io::Result<()> {
        let fields = hash.all();
        let min_expire = fields.iter().filter_map(|f| f.expire_at_ms).min();
        if min_expire.is_some() && self.version() < 12 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "hash field expiry needs RDB 12, this file is RDB {}",
                    self.version()
                ),
            ));
        }
        match hash.repr() {
            HashRef::Listpack(b) if self.version() >= 10 => {
                self.begin_key(key, self.type_byte(ValueKind::HashListpack)?, expire_at_ms)?;
                return self.put_blob(b);
            }
            HashRef::Ziplist(b) => {
                self.begin_key(key, self.type_byte(ValueKind::HashZiplist)?, expire_at_ms)?;
                return self.put_blob(b);
            }
            HashRef::Zipmap(b) => {
                self.begin_key(key, self.type_byte(ValueKind::HashZipmap)?, expire_at_ms)?;
                return self.put_blob(b);
            }
            HashRef::ListpackEx(b) => {
                self.begin_key(
                    key,
                    self.type_byte(ValueKind::HashListpackEx)?,
                    expire_at_ms,
                )?;
                // With no expiring field left, any minimum will do: Redis rereads them all.
                self.put(&min_expire.unwrap_or(0).to_le_bytes())?;
                return self.put_blob(b);
            }
            _ => {}
        }
        if let Some(min) = min_expire {
            self.begin_key(key, self.type_byte(ValueKind::HashMetadata)?, expire_at_ms)?;
            self.put(&min.to_le_bytes())?;
            self.put_len(fields.len() as u64)?;
            for f in &fields {
                self.put_len(f.expire_at_ms.map_or(0, |e| (e - min) as u64 + 1))?;
                self.put_string(&f.field)?;
                self.put_string(&f.value)?;
            }
            return Ok(());
        }
        self.begin_key(key, self.type_byte(ValueKind::Hash)?, expire_at_ms)?;
        self.put_len(fields.len() as u64)?;
        for f in &fields {
            self.put_string(&f.field)?;
            self.put_string(&f.value)?;
        }
        Ok(())
    }

    /// Writes a stream as RDB_TYPE_STREAM_LISTPACKS (RDB < 10), _2 (RDB 10) or _3 (RDB 11+),
    /// node listpacks verbatim, with its consumer groups (PELs and consumers; entries read
    /// from _2 on, consumer active times from _3 on: a missing active time is written as the
    /// seen time).
    pub fn write_stream(
        &mut self,
        key: &[u8],
        s: &Stream,
        expire_at_ms: Option<i64>,
    ) -> io::Result<()> {
        let v = match self.version() {
            ..=9 => 1,
            10 => 2,
            _ => 3,
        };
        let t = self.type_byte(
            [
                ValueKind::StreamListpacks,
                ValueKind::StreamListpacks2,
                ValueKind::StreamListpacks3,
            ][v - 1],
        )?;
        self.begin_key(key, t, expire_at_ms)?;
        self.put_len(s.nodes.len() as u64)?;
        for (id, blob) in &s.nodes {
            self.put_len(16)?;
            self.put(&key16(*id))?;
            self.put_blob(blob)?;
        }
        self.put_len(s.length)?;
        self.put_id(s.last_id)?;
        if v >= 2 {
            self.put_id(s.first_id)?;
            self.put_id(s.max_deleted_id)?;
            self.put_len(s.entries_added)?;
        }
        self.put_len(s.groups.len() as u64)?;
        for g in &s.groups {
            self.put_string(&g.name)?;
            self.put_id(g.last_id)?;
            if v >= 2 {
                self.put_len(g.entries_read.unwrap_or(u64::MAX))?;
            }
            self.put_len(g.pending.len() as u64)?;
            for p in &g.pending {
                self.put(&key16(p.id))?;
                self.put(&p.delivery_time_ms.to_le_bytes())?;
                self.put_len(p.delivery_count)?;
            }
            self.put_len(g.consumers.len() as u64)?;
            for c in &g.consumers {
                self.put_string(&c.name)?;
                self.put(&c.seen_time_ms.to_le_bytes())?;
                if v >= 3 {
                    self.put(&c.active_time_ms.unwrap_or(c.seen_time_ms).to_le_bytes())?;
                }
                self.put_len(c.pending.len() as u64)?;
                for id in &c.pending {
                    self.put(&key16(*id))?;
                }
            }
        }
        Ok(())
    }

    fn put_id(&mut self, id: StreamId) -> io::Result<()> {
        self.put_len(id.ms)?;
        self.put_len(id.seq)
    }

    /// Writes `s` LZF-compressed (RDB_ENC_LZF) when it is longer than 20 bytes and that saves
    /// at least 4 bytes, as Redis' rdbSaveRawString decides; false when nothing was written.
    fn put_lzf(&mut self, s: &[u8]) -> io::Result<bool> {
        if s.len() <= 20 {
            return Ok(false);
        }
        let Some(c) = super::lzf::compress(s, s.len() - 4) else {
            return Ok(false);
        };
        self.put(&[0xC3])?;
        self.put_len(c.len() as u64)?;
        self.put_len(s.len() as u64)?;
        self.put(&c)?;
        Ok(true)
    }

    /// An embedded blob as a raw string (never int-encoded; LZF when Redis would compress).
    fn put_blob(&mut self, b: &[u8]) -> io::Result<()> {
        if self.put_lzf(b)? {
            return Ok(());
        }
        self.put_len(b.len() as u64)?;
        self.put(b)
    }

    /// Writes a key from a DUMP payload (type byte + value + 2-byte RDB version + CRC-64),
    /// after checking its CRC-64, that its format fits this file's (same family, not newer;
    /// see [`Format::accepts_payload`]), and that the value's structure is well formed. The
    /// value bytes are copied verbatim.
    pub fn write_dump_payload(
        &mut self,
        key: &[u8],
        payload: &[u8],
        expire_at_ms: Option<i64>,
    ) -> Result<(), RdbError> {
        let keyed = |e: RdbError| RdbError {
            key: Some(key.to_vec()),
            ..e
        };
        let p = dump_parts(payload, true).map_err(keyed)?;
        if !self.format.accepts_payload(p.format) {
            return Err(keyed(RdbError::new(
                payload.len() as u64 - 10,
                super::ErrorDetail::IncompatiblePayload {
                    payload: p.format,
                    file: self.format,
                },
            )));
        }
        let (t, body) = (p.type_byte, p.body);
        let mut c = Cursor::new(body, 1);
        c.value(p.kind, false).map_err(keyed)?;
        if c.remaining() != 0 {
            return Err(keyed(c.err_at(
                c.pos,
                super::ErrorDetail::TrailingBytes {
                    count: c.remaining(),
                },
            )));
        }
        let io_err = |e: io::Error| RdbError {
            key: Some(key.to_vec()),
            ..RdbError::new(0, super::ErrorDetail::Write { what: "" }).with_cause(e.into())
        };
        self.put_expire(expire_at_ms).map_err(io_err)?;
        self.put(&[t]).map_err(io_err)?;
        self.put_string(key).map_err(io_err)?;
        self.put(body).map_err(io_err)
    }

    /// Starts a key whose value bytes follow in pieces through [`Self::write_value_piece`]:
    /// for a value streamed from a DUMP payload too large to hold whole. `t` is the RDB value
    /// type byte; the pieces together must be exactly one value of that type (unlike
    /// [`Self::write_dump_payload`], nothing is checked: the caller verifies the payload).
    pub fn begin_value(&mut self, key: &[u8], t: u8, expire_at_ms: Option<i64>) -> io::Result<()> {
        self.put_expire(expire_at_ms)?;
        self.put(&[t])?;
        self.put_string(key)
    }

    /// Appends bytes of the value started with [`Self::begin_value`].
    pub fn write_value_piece(&mut self, piece: &[u8]) -> io::Result<()> {
        self.put(piece)
    }

    /// Writes EOF and the CRC-64 trailer; returns the inner writer (flushed).
    pub fn finish(mut self) -> io::Result<W> {
        let b = self.op(Opcode::Eof)?;
        self.put(&[b])?;
        if self.format.has_checksum() {
            let crc = self.digest.finalize();
            self.w.write_all(&crc.to_le_bytes())?;
        }
        self.w.flush()?;
        Ok(self.w)
    }
}

/// A stream id as its 16-byte big-endian form (node keys, PEL ids).
fn key16(id: StreamId) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&id.ms.to_be_bytes());
    k[8..].copy_from_slice(&id.seq.to_be_bytes());
    k
}

/// Builds a DUMP payload for a string value, as Redis or Valkey `DUMP` would (RDB `version`
/// trailer: 1–15 Redis, 80+ Valkey).
pub fn dump_string(value: &[u8], version: u16) -> Vec<u8> {
    let mut v = Vec::new();
    {
        let format = Format::from_dump_version(version).unwrap_or(Format::REDIS_7_4);
        let mut w = RdbWriter {
            w: &mut v,
            digest: CRC64.digest(),
            format,
            written: 0,
        };
        let t = format.type_byte(ValueKind::String).unwrap_or(0);
        w.put(&[t]).expect("vec write");
        w.put_string(value).expect("vec write");
    }
    v.extend_from_slice(&version.to_le_bytes());
    let crc = CRC64.checksum(&v);
    v.extend_from_slice(&crc.to_le_bytes());
    v
}
