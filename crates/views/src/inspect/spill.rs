//! The rows `inspect` keeps between its passes, written compactly to a spill: in memory up to a
//! budget, then to an unnamed temporary file (`tempfile::SpooledTempFile`, removed when
//! dropped). So the report's memory is bounded by its groups and the top N, not by the keys.
//!
//! A record is a key's [`KeyRow`] and its [`KeyStats`], in file order:
//! `db, key length, key, type index, encoding index` (LEB128 varints, the type and encoding
//! interned in the [`Spill`]), a flag byte, then the present fields: memory, value length,
//! longest element (varints), expiry (8 bytes LE), bitmap figures, HLL figures, sorted set
//! and GEO figures (the bounding box as 4 f64 LE), the ledger (7 varints), the record's facts
//! for `export` ([`RecordFacts`]: class index, file bytes, a presence byte, idle seconds, LFU
//! counter). The spill only ever
//! holds what this process wrote, but a short read is still an I/O error, not a panic.
//!
//! A spill made [`Spill::priced`] for several candidate allocators (`inspect` inferring the
//! writer's while it reads) holds each key's memory and ledger under every candidate: the
//! memory as a byte with a bit per candidate that has one, the first candidate's as a varint
//! and each other's as the zigzag varint of its difference from the first's (mostly one
//! byte: the candidates differ by a size class), in place of the single one; the ledger as
//! a presence byte and 7 varints per candidate. [`Spill::choose`] says which
//! candidate's figures the records read back carry, so the file is read once whatever the
//! inference settles on.

use std::io::{BufRead, BufReader, BufWriter, Read, Seek, Write};

use tempfile::SpooledTempFile;

use super::{BitmapStats, KeyRow, LedgerSum};
use crate::classify::{Class, Figures};
use bitlens::keyspace::Value;

/// The default in-memory budget of a spill, bytes (the rest goes to a temporary file).
pub const DEFAULT_BUDGET: usize = 16 << 20;

/// The HLL figure of one key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HllKind {
    /// A valid dense HLL and its PFCOUNT.
    Dense(u64),
    /// A valid sparse HLL and its PFCOUNT.
    Sparse(u64),
    /// A `HYLL` string PFCOUNT rejects.
    Invalid,
}

/// The GEO figures of one sorted set: whether every member is a GEO position, the member
/// count, and the bounding box (min lon, min lat, max lon, max lat).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ZsetStats {
    /// Every member is a GEO position.
    pub geo: bool,
    /// Members.
    pub members: u64,
    /// Bounding box (min lon, min lat, max lon, max lat), degrees; `None` for no member.
    pub bbox: Option<[f64; 4]>,
}

/// What one key adds to its group beyond its [`KeyRow`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KeyStats {
    /// A bitmap string's figures (`keys` 1), else all 0.
    pub bitmap: BitmapStats,
    /// A HyperLogLog's figure.
    pub hll: Option<HllKind>,
    /// A sorted set's figures.
    pub zset: Option<ZsetStats>,
    /// The ledger of a bitmap, integer-id set or BITFIELD state key (with `--ledger`).
    pub ledger: Option<LedgerSum>,
    /// What the key's record says beyond these, for a pass that writes every key out
    /// (`export`); `None` in `inspect`'s spill.
    pub record: Option<RecordFacts>,
}

/// What a key's record in the file says beyond its [`KeyRow`] and [`KeyStats`]: the export's
/// own columns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecordFacts {
    /// The value's class ([`crate::classify::classify`]).
    pub class: Class,
    /// Bytes the value's encoding takes in the file (after the key).
    pub rdb_bytes: u64,
    /// LRU idle seconds, when the file has them.
    pub idle_s: Option<u64>,
    /// LFU counter, when the file has it.
    pub lfu_freq: Option<u8>,
    /// Gone at the snapshot's save time ([`bitlens::keyspace::gone_at`]).
    pub expired: bool,
}

impl KeyStats {
    /// The stats of `value`, whose figures are `fig` ([`crate::classify::figures`]): its
    /// bitmap, HLL and sorted-set figures (no ledger, no record facts).
    pub fn of(value: &Value, fig: &Figures) -> KeyStats {
        let mut stats = KeyStats::default();
        match fig.class {
            Class::Hll(enc) => {
                let c = fig.hll_count.unwrap_or(0);
                stats.hll = Some(match enc {
                    bitlens::hll::Encoding::Dense => HllKind::Dense(c),
                    bitlens::hll::Encoding::Sparse => HllKind::Sparse(c),
                });
            }
            Class::CorruptHll => stats.hll = Some(HllKind::Invalid),
            _ => {}
        }
        if let Some((set_bits, bits)) = fig.bitmap {
            stats.bitmap = BitmapStats {
                keys: 1,
                set_bits,
                bits,
            };
        }
        if let Value::ZSet(z) = value {
            let geo = fig.class == Class::Geo;
            stats.zset = Some(ZsetStats {
                geo,
                members: if geo { z.len() as u64 } else { 0 },
                bbox: fig.geo_bbox,
            });
        }
        stats
    }

    /// The [`Figures`] of a value of class `class` whose stats these are ([`KeyStats::of`]
    /// read backwards).
    pub fn figures(&self, class: Class) -> Figures {
        Figures {
            class,
            bitmap: (self.bitmap.keys > 0).then_some((self.bitmap.set_bits, self.bitmap.bits)),
            hll_count: match self.hll {
                Some(HllKind::Dense(c) | HllKind::Sparse(c)) => Some(c),
                _ => None,
            },
            geo_bbox: self.zset.and_then(|z| z.bbox),
        }
    }
}

const MEMORY: u8 = 1;
const EXPIRY: u8 = 2;
const BITMAP: u8 = 4;
const HLL: u8 = 8;
const ZSET: u8 = 16;
const BBOX: u8 = 32;
const LEDGER: u8 = 64;
const RECORD: u8 = 128;
/// [`RecordFacts`]' presence bits.
const IDLE: u8 = 1;
const LFU: u8 = 2;
const EXPIRED: u8 = 4;

/// The rows of one `inspect` pass, in file order (see the module docs).
pub struct Spill {
    out: Option<BufWriter<SpooledTempFile>>,
    file: Option<SpooledTempFile>,
    types: Vec<String>,
    encodings: Vec<&'static str>,
    classes: Vec<Class>,
    buf: Vec<u8>,
    /// Records written.
    pub len: u64,
    /// Candidates priced per record (1: one memory and ledger, as the row has them).
    prices: usize,
    /// The candidate whose figures the records read back carry.
    pick: usize,
}

fn put(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push(v as u8 | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

/// A signed difference as an unsigned varint's value: 0, -1, 1, -2, 2 ... as 0, 1, 2, 3, 4 ...
fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// The inverse of [`zigzag`].
fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn intern<T: PartialEq + Clone>(table: &mut Vec<T>, v: &T) -> u64 {
    match table.iter().position(|t| t == v) {
        Some(i) => i as u64,
        None => {
            table.push(v.clone());
            (table.len() - 1) as u64
        }
    }
}

impl Spill {
    /// An empty spill holding up to `budget` bytes in memory.
    pub fn new(budget: usize) -> Spill {
        Spill::priced(budget, 1)
    }

    /// An empty spill whose records hold their memory and ledger under `prices` candidates
    /// (at least 1; see the module docs), read back as the first's until [`Spill::choose`].
    pub fn priced(budget: usize, prices: usize) -> Spill {
        Spill {
            out: Some(BufWriter::with_capacity(
                64 << 10,
                tempfile::spooled_tempfile(budget),
            )),
            file: None,
            types: Vec::new(),
            encodings: Vec::new(),
            classes: Vec::new(),
            buf: Vec::new(),
            len: 0,
            prices: prices.max(1),
            pick: 0,
        }
    }

    /// Makes the records read back carry candidate `i`'s memory and ledger (`i` below the
    /// spill's candidates; others are taken as the last).
    pub fn choose(&mut self, i: usize) {
        self.pick = i.min(self.prices - 1);
    }

    /// Appends one record (of a spill of one candidate).
    pub fn push(&mut self, row: &KeyRow, stats: &KeyStats) -> std::io::Result<()> {
        self.push_priced(row, stats, &[], &[])
    }

    /// Appends one record: `row.memory` and `stats.ledger` are the first candidate's,
    /// `memory` and `ledger` the others' in order (one each per further candidate; missing
    /// ones are written as none).
    pub fn push_priced(
        &mut self,
        row: &KeyRow,
        stats: &KeyStats,
        memory: &[Option<u64>],
        ledger: &[Option<LedgerSum>],
    ) -> std::io::Result<()> {
        let priced = self.prices > 1;
        let b = &mut self.buf;
        b.clear();
        put(b, row.db);
        put(b, row.key.len() as u64);
        b.extend_from_slice(&row.key);
        let t = intern(&mut self.types, &row.type_name);
        put(b, t);
        let e = intern(&mut self.encodings, &row.encoding);
        put(b, e);
        let mut flags = 0;
        if priced || row.memory.is_some() {
            flags |= MEMORY;
        }
        if row.expire_at_ms.is_some() {
            flags |= EXPIRY;
        }
        if stats.bitmap.keys > 0 {
            flags |= BITMAP;
        }
        if stats.hll.is_some() {
            flags |= HLL;
        }
        if let Some(z) = &stats.zset {
            flags |= ZSET;
            if z.bbox.is_some() {
                flags |= BBOX;
            }
        }
        if stats.ledger.is_some() || ledger.iter().any(Option::is_some) {
            flags |= LEDGER;
        }
        if stats.record.is_some() {
            flags |= RECORD;
        }
        b.push(flags);
        if priced {
            let m = |i: usize| match i {
                0 => row.memory,
                _ => memory.get(i - 1).copied().flatten(),
            };
            let present = (0..self.prices).fold(0u8, |p, i| p | (u8::from(m(i).is_some()) << i));
            b.push(present);
            let base = row.memory.unwrap_or(0);
            for i in 0..self.prices {
                match (i, m(i)) {
                    (_, None) => {}
                    (0, Some(v)) => put(b, v),
                    (_, Some(v)) => put(b, zigzag(v.wrapping_sub(base) as i64)),
                }
            }
        } else if let Some(m) = row.memory {
            put(b, m);
        }
        put(b, row.len);
        put(b, row.largest);
        if let Some(e) = row.expire_at_ms {
            b.extend_from_slice(&e.to_le_bytes());
        }
        if stats.bitmap.keys > 0 {
            put(b, stats.bitmap.set_bits);
            put(b, stats.bitmap.bits);
        }
        match stats.hll {
            Some(HllKind::Dense(c)) => {
                b.push(0);
                put(b, c);
            }
            Some(HllKind::Sparse(c)) => {
                b.push(1);
                put(b, c);
            }
            Some(HllKind::Invalid) => b.push(2),
            None => {}
        }
        if let Some(z) = &stats.zset {
            b.push(z.geo as u8);
            put(b, z.members);
            if let Some(bbox) = z.bbox {
                for v in bbox {
                    b.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
        let put_ledger = |b: &mut Vec<u8>, l: &LedgerSum| {
            for v in [
                l.keys,
                l.members,
                l.current,
                l.as_set,
                l.as_bitmap,
                l.as_roaring,
                l.as_hash,
            ] {
                put(b, v);
            }
        };
        if flags & LEDGER != 0 {
            if priced {
                for i in 0..self.prices {
                    let l = if i == 0 {
                        stats.ledger.as_ref()
                    } else {
                        ledger.get(i - 1).and_then(Option::as_ref)
                    };
                    b.push(l.is_some() as u8);
                    if let Some(l) = l {
                        put_ledger(b, l);
                    }
                }
            } else if let Some(l) = &stats.ledger {
                put_ledger(b, l);
            }
        }
        if let Some(f) = &stats.record {
            put(b, intern(&mut self.classes, &f.class));
            put(b, f.rdb_bytes);
            b.push(
                (u8::from(f.idle_s.is_some()) * IDLE)
                    | (u8::from(f.lfu_freq.is_some()) * LFU)
                    | (u8::from(f.expired) * EXPIRED),
            );
            if let Some(i) = f.idle_s {
                put(b, i);
            }
            if let Some(l) = f.lfu_freq {
                b.push(l);
            }
        }
        self.len += 1;
        match &mut self.out {
            Some(w) => w.write_all(b),
            None => Err(std::io::Error::other("spill already read")),
        }
    }

    /// Reads the records from the start (every call starts again from the first). Writing
    /// ends at the first call.
    pub fn read(&mut self) -> std::io::Result<Records<'_>> {
        if let Some(w) = self.out.take() {
            self.file = Some(w.into_inner().map_err(|e| e.into_error())?);
        }
        let file = self.file.as_mut().expect("written or read");
        file.rewind()?;
        Ok(Records {
            r: BufReader::with_capacity(64 << 10, file),
            types: &self.types,
            encodings: &self.encodings,
            classes: &self.classes,
            left: self.len,
            prices: self.prices,
            pick: self.pick,
        })
    }
}

/// The records of a [`Spill`], one at a time into reused buffers.
pub struct Records<'a> {
    r: BufReader<&'a mut SpooledTempFile>,
    types: &'a [String],
    encodings: &'a [&'static str],
    classes: &'a [Class],
    left: u64,
    prices: usize,
    pick: usize,
}

/// A LEB128 varint (as [`put`] writes it).
fn read_varint(r: &mut impl Read) -> std::io::Result<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let mut b = [0u8];
        r.read_exact(&mut b)?;
        v |= u64::from(b[0] & 0x7f) << shift;
        if b[0] < 0x80 {
            return Ok(v);
        }
    }
    Err(short())
}

fn short() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::UnexpectedEof,
        "inspect spill: short record",
    )
}

impl Records<'_> {
    fn byte(&mut self) -> std::io::Result<u8> {
        if let Some(&b) = self.r.buffer().first() {
            self.r.consume(1);
            return Ok(b);
        }
        let mut b = [0u8];
        self.r.read_exact(&mut b)?;
        Ok(b[0])
    }

    /// A varint, decoded from the reader's buffer when it holds the whole of it (the usual
    /// case: one bounds check a byte, no call per byte), else byte by byte.
    fn varint(&mut self) -> std::io::Result<u64> {
        let buf = self.r.buffer();
        let mut v = 0u64;
        for (i, &b) in buf.iter().take(10).enumerate() {
            v |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                self.r.consume(i + 1);
                return Ok(v);
            }
        }
        read_varint(&mut self.r)
    }

    fn eight(&mut self) -> std::io::Result<[u8; 8]> {
        let mut b = [0u8; 8];
        self.r.read_exact(&mut b)?;
        Ok(b)
    }

    fn ledger(&mut self) -> std::io::Result<LedgerSum> {
        let mut v = [0u64; 7];
        for x in &mut v {
            *x = self.varint()?;
        }
        Ok(LedgerSum {
            keys: v[0],
            members: v[1],
            current: v[2],
            as_set: v[3],
            as_bitmap: v[4],
            as_roaring: v[5],
            as_hash: v[6],
        })
    }

    /// The next record into `row` and `stats`; `false` after the last.
    pub fn next_into(&mut self, row: &mut KeyRow, stats: &mut KeyStats) -> std::io::Result<bool> {
        if self.left == 0 {
            return Ok(false);
        }
        self.left -= 1;
        row.db = self.varint()?;
        let n = usize::try_from(self.varint()?).map_err(|_| short())?;
        row.key.clear();
        if let Some(k) = self.r.buffer().get(..n) {
            row.key.extend_from_slice(k);
            self.r.consume(n);
        } else {
            // The length is ours (written above), but read it through `take` all the same.
            (&mut self.r).take(n as u64).read_to_end(&mut row.key)?;
            if row.key.len() != n {
                return Err(short());
            }
        }
        let t = self.types.get(self.varint()? as usize).ok_or_else(short)?;
        if row.type_name != *t {
            row.type_name.clear();
            row.type_name.push_str(t);
        }
        let e = self.varint()? as usize;
        row.encoding = self.encodings.get(e).ok_or_else(short)?;
        let flags = self.byte()?;
        row.memory = if self.prices > 1 {
            let present = self.byte()?;
            let mut base = 0u64;
            let mut chosen = None;
            for i in (0..self.prices).filter(|i| present & (1 << i) != 0) {
                let v = self.varint()?;
                let m = if i == 0 {
                    base = v;
                    v
                } else {
                    base.wrapping_add(unzigzag(v) as u64)
                };
                if i == self.pick {
                    chosen = Some(m);
                }
            }
            chosen
        } else if flags & MEMORY != 0 {
            Some(self.varint()?)
        } else {
            None
        };
        row.len = self.varint()?;
        row.largest = self.varint()?;
        row.expire_at_ms = if flags & EXPIRY != 0 {
            Some(i64::from_le_bytes(self.eight()?))
        } else {
            None
        };
        stats.bitmap = if flags & BITMAP != 0 {
            BitmapStats {
                keys: 1,
                set_bits: self.varint()?,
                bits: self.varint()?,
            }
        } else {
            BitmapStats::default()
        };
        stats.hll = if flags & HLL != 0 {
            Some(match self.byte()? {
                0 => HllKind::Dense(self.varint()?),
                1 => HllKind::Sparse(self.varint()?),
                _ => HllKind::Invalid,
            })
        } else {
            None
        };
        stats.zset = if flags & ZSET != 0 {
            let geo = self.byte()? != 0;
            let members = self.varint()?;
            let bbox = if flags & BBOX != 0 {
                let mut v = [0f64; 4];
                for x in &mut v {
                    *x = f64::from_le_bytes(self.eight()?);
                }
                Some(v)
            } else {
                None
            };
            Some(ZsetStats { geo, members, bbox })
        } else {
            None
        };
        stats.ledger = None;
        if flags & LEDGER != 0 {
            for i in 0..self.prices {
                if self.prices > 1 && self.byte()? == 0 {
                    continue;
                }
                let l = self.ledger()?;
                if i == self.pick {
                    stats.ledger = Some(l);
                }
            }
        }
        stats.record = if flags & RECORD != 0 {
            let class = *self
                .classes
                .get(self.varint()? as usize)
                .ok_or_else(short)?;
            let rdb_bytes = self.varint()?;
            let present = self.byte()?;
            let idle_s = if present & IDLE != 0 {
                Some(self.varint()?)
            } else {
                None
            };
            let lfu_freq = if present & LFU != 0 {
                Some(self.byte()?)
            } else {
                None
            };
            Some(RecordFacts {
                class,
                rdb_bytes,
                idle_s,
                lfu_freq,
                expired: present & EXPIRED != 0,
            })
        } else {
            None
        };
        Ok(true)
    }
}

/// A row with empty buffers, for [`Records::next_into`].
pub fn empty_row() -> KeyRow {
    KeyRow::empty()
}

/// One level of the prefix tree, as (prefix, keys, memory) counts split over partitions by
/// [`PrefixTree::partition_of`] (a record: the prefix's length and bytes, the keys and their
/// memory, as varints), each in memory up to its share of a budget, then in an unnamed
/// temporary file. `inspect` counts a level in memory until it holds more distinct prefixes
/// than its cap, then moves them here with the rest of the level's keys, and tallies one
/// partition at a time: a level of millions of distinct prefixes (`user:{id}:`) costs one
/// pass over the rows, not one per partition, in memory bounded by the largest partition.
///
/// [`PrefixTree::partition_of`]: crate::report::PrefixTree::partition_of
pub struct PrefixPartitions {
    parts: Vec<BufWriter<SpooledTempFile>>,
    buf: Vec<u8>,
    /// Records written per partition.
    lens: Vec<u64>,
}

impl PrefixPartitions {
    /// `n` empty partitions (at least 1) holding `budget` bytes in memory between them.
    pub fn new(n: u64, budget: usize) -> PrefixPartitions {
        let n = n.max(1) as usize;
        let share = budget / n;
        PrefixPartitions {
            parts: (0..n)
                .map(|_| BufWriter::with_capacity(16 << 10, tempfile::spooled_tempfile(share)))
                .collect(),
            buf: Vec::new(),
            lens: vec![0; n],
        }
    }

    /// Appends `keys` keys of `mem` bytes in all under `prefix` to its partition.
    pub fn push(&mut self, prefix: &[u8], keys: u64, mem: u64) -> std::io::Result<()> {
        let i = crate::report::PrefixTree::partition_of(prefix, self.parts.len() as u64);
        let b = &mut self.buf;
        b.clear();
        put(b, prefix.len() as u64);
        b.extend_from_slice(prefix);
        put(b, keys);
        put(b, mem);
        self.parts[i as usize].write_all(b)?;
        self.lens[i as usize] += 1;
        Ok(())
    }

    /// Reads the partitions back in order: `f(Some((prefix, keys, mem)))` for each record,
    /// then `f(None)` after each partition.
    pub fn replay(self, mut f: impl FnMut(Option<(&[u8], u64, u64)>)) -> std::io::Result<()> {
        let mut prefix = Vec::new();
        for (w, len) in self.parts.into_iter().zip(self.lens) {
            let mut file = w.into_inner().map_err(|e| e.into_error())?;
            file.rewind()?;
            let mut r = BufReader::with_capacity(64 << 10, file);
            for _ in 0..len {
                // (A key's prefix, so under 4 GiB; only this process wrote the file.)
                let n = read_varint(&mut r)?;
                if n > u64::from(u32::MAX) {
                    return Err(short());
                }
                prefix.resize(n as usize, 0);
                r.read_exact(&mut prefix)?;
                let keys = read_varint(&mut r)?;
                f(Some((&prefix, keys, read_varint(&mut r)?)));
            }
            f(None);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(key: &[u8], memory: Option<u64>, expire_at_ms: Option<i64>) -> KeyRow {
        KeyRow {
            db: 3,
            key: key.to_vec(),
            type_name: "set".into(),
            encoding: "intset",
            memory,
            len: 7,
            largest: 300,
            expire_at_ms,
        }
    }

    fn ledger(n: u64) -> LedgerSum {
        LedgerSum {
            keys: 1,
            members: n,
            current: 2 * n,
            as_set: 3 * n,
            as_bitmap: 4 * n,
            as_roaring: 5 * n,
            as_hash: 6 * n,
        }
    }

    /// A record's facts (an export's columns) and its figures read back as written, beside
    /// a record without them, in a priced spill and a plain one.
    #[test]
    fn record_facts_and_figures_read_back() {
        let facts = |class, idle_s, lfu_freq, expired| RecordFacts {
            class,
            rdb_bytes: 1 << 33,
            idle_s,
            lfu_freq,
            expired,
        };
        let geo = KeyStats {
            zset: Some(ZsetStats {
                geo: true,
                members: 3,
                bbox: Some([-1.5, 2.0, 3.25, 4.0]),
            }),
            record: Some(facts(Class::Geo, Some(0), None, true)),
            ..KeyStats::default()
        };
        let hll = KeyStats {
            hll: Some(HllKind::Sparse(42)),
            record: Some(facts(
                Class::Hll(bitlens::hll::Encoding::Sparse),
                None,
                Some(255),
                false,
            )),
            ..KeyStats::default()
        };
        let bitmap = KeyStats {
            bitmap: BitmapStats {
                keys: 1,
                set_bits: 5,
                bits: 800,
            },
            record: Some(facts(Class::Bitmap, Some(u64::MAX), Some(0), false)),
            ..KeyStats::default()
        };
        let plain = KeyStats::default();
        for prices in [1, 3] {
            let mut s = Spill::priced(0, prices);
            let records = [&geo, &plain, &hll, &bitmap];
            for st in records {
                s.push_priced(&row(b"k", Some(9), None), st, &[Some(10), None], &[])
                    .unwrap();
            }
            let mut recs = s.read().unwrap();
            let (mut r, mut st) = (empty_row(), KeyStats::default());
            for want in records {
                assert!(recs.next_into(&mut r, &mut st).unwrap());
                assert_eq!(&st, want, "{prices} candidates");
            }
            assert!(!recs.next_into(&mut r, &mut st).unwrap());
        }
        assert_eq!(
            geo.figures(Class::Geo).geo_bbox,
            Some([-1.5, 2.0, 3.25, 4.0])
        );
        let h = hll.figures(Class::CorruptHll);
        assert_eq!((h.hll_count, h.bitmap), (Some(42), None));
        assert_eq!(bitmap.figures(Class::Bitmap).bitmap, Some((5, 800)));
    }

    /// A spill priced for three candidates reads back each candidate's memory and ledger
    /// (none where that candidate has none), the rest of the record whichever is chosen, on
    /// disk (budget 0) as in memory.
    #[test]
    fn priced_records_read_back_as_the_candidate_chosen() {
        for budget in [0, 1 << 20] {
            let mut s = Spill::priced(budget, 3);
            let stats = |l: Option<LedgerSum>| KeyStats {
                ledger: l,
                ..KeyStats::default()
            };
            let a = row(b"a", Some(100), Some(-5));
            s.push_priced(
                &a,
                &stats(Some(ledger(1))),
                &[Some(112), None],
                &[None, Some(ledger(3))],
            )
            .unwrap();
            let b = row(&[0xff; 300], None, None);
            s.push_priced(&b, &stats(None), &[Some(1 << 40), Some(0)], &[None, None])
                .unwrap();
            let c = row(b"c", Some(u64::MAX), None);
            s.push_priced(
                &c,
                &stats(None),
                &[Some(0), Some(u64::MAX - 1)],
                &[None, None],
            )
            .unwrap();
            let want = [
                [
                    (Some(100), Some(ledger(1))),
                    (None, None),
                    (Some(u64::MAX), None),
                ],
                [(Some(112), None), (Some(1 << 40), None), (Some(0), None)],
                [
                    (None, Some(ledger(3))),
                    (Some(0), None),
                    (Some(u64::MAX - 1), None),
                ],
            ];
            for (i, want) in want.iter().enumerate() {
                s.choose(i);
                let mut recs = s.read().unwrap();
                let (mut r, mut st) = (empty_row(), KeyStats::default());
                for (base, (memory, ledger)) in [&a, &b, &c].into_iter().zip(want) {
                    assert!(recs.next_into(&mut r, &mut st).unwrap());
                    let expected = KeyRow {
                        memory: *memory,
                        ..base.clone()
                    };
                    assert_eq!(r, expected, "candidate {i}, budget {budget}");
                    assert_eq!(st.ledger, *ledger, "candidate {i}, budget {budget}");
                }
                assert!(!recs.next_into(&mut r, &mut st).unwrap());
            }
        }
    }
}
