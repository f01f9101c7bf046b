//! `bitlens inspect`: a report of an RDB snapshot, per database, with keys grouped by pattern.
//!
//! A key's pattern replaces its variable parts by `*`: each `:`-separated segment that is a
//! number (a user id, a day `YYYYMMDD`, a date `YYYY-MM-DD`) becomes `*`, except a month
//! `YYYYMM` in the last segment, which is kept because monthly keys are usually few and
//! meaningful (`sign:1001:202405` → `sign:*:202405`); digit runs inside other segments also
//! become `*` (`user42` → `user*`). Keys are grouped by (pattern, type); the group lists the
//! encodings met in the file.
//!
//! Per group: key count, bytes the keys and values take in the file, logical length (STRLEN /
//! ZCARD sum), expiry counts and range. Values are told apart by [`crate::classify`]: for
//! bitmaps, bitmap statistics (set bits, bits, density); for HyperLogLogs (strings starting
//! with `HYLL`): dense/sparse/invalid counts and the range of PFCOUNT over the group's keys
//! ([`crate::hll::count_readonly`]: the cached value when valid, else the estimate); for GEO
//! sets (a group whose sorted sets are all [`crate::classify::Class::Geo`]): member count and
//! bounding box in degrees ([`crate::geo::decode`], as GEOPOS).
//!
//! Values are decoded one key at a time and dropped, so a report needs memory for the largest
//! value, not for the snapshot.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{json, Value as Json};

use crate::classify::{classify, geo_position, Class};
use crate::keyspace::Value;
use crate::rdb::{visit_rdb, LoadOptions, RdbError};

/// The whole report.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// RDB version of the file.
    pub version: u32,
    /// Who wrote the file: format (family, RDB version) and `redis-ver`/`valkey-ver` aux.
    pub writer: crate::rdb::Writer,
    /// Module type names with module aux data in the file (skipped, named).
    pub module_aux: Vec<String>,
    /// Aux fields (name, value) as lossy UTF-8.
    pub aux: Vec<(String, String)>,
    /// The CRC-64 stored in the trailer (0 = none was computed).
    pub stored_checksum: u64,
    /// Whether the stored CRC-64 was checked against the file (false when it is 0 or checking
    /// was switched off, e.g. `bitlens inspect --no-checksum`).
    pub checksum_verified: bool,
    /// Size of the input in bytes.
    pub file_bytes: u64,
    /// Databases in ascending number.
    pub databases: Vec<DbReport>,
    /// (absolute expiry in Unix ms, bytes in the file) of every key with an expiry, ascending.
    pub expiring: Vec<(i64, u64)>,
    /// The dialect and clock the report is read at (set by [`Report::at`]).
    pub view: Option<View>,
}

/// The server profile and clock a report is read at (`bitlens inspect --compat --clock`).
#[derive(Debug, Clone, PartialEq)]
pub struct View {
    /// The profile answering queries on this snapshot (`redis-7.4`).
    pub profile: &'static str,
    /// The server as people name it (`Redis 7.4`).
    pub server: String,
    /// True when the profile is the snapshot's writer (no `--compat`).
    pub writer: bool,
    /// The clock expiry is judged at, Unix ms.
    pub clock_ms: i64,
    /// Keys already expired at the clock, and the bytes they take in the file.
    pub expired_keys: u64,
    pub expired_bytes: u64,
}

/// One database.
#[derive(Debug, Clone, PartialEq)]
pub struct DbReport {
    /// Database number.
    pub db: u64,
    /// Number of keys.
    pub keys: u64,
    /// Number of keys with an expiry.
    pub expires: u64,
    /// Groups ordered by key count (descending), then pattern.
    pub groups: Vec<Group>,
}

/// Keys sharing a pattern, type and encoding.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The pattern, e.g. `stats:active:*` (lossy UTF-8 of the key bytes).
    pub pattern: String,
    /// Redis type name, as TYPE prints it.
    pub type_name: String,
    /// Encodings as stored in the file (`raw`, `int`, `lzf`, `listpack`, `skiplist`...) with
    /// their key counts, by name.
    pub encodings: Vec<(String, u64)>,
    /// Number of keys.
    pub count: u64,
    /// Bytes the keys' records take in the file (type byte, key, value).
    pub bytes: u64,
    /// Sum of string lengths in bytes (STRLEN) or sorted-set sizes (ZCARD); 0 for other types.
    pub length: u64,
    /// Keys with an expiry.
    pub with_expiry: u64,
    /// Earliest and latest absolute expiry among them, Unix milliseconds.
    pub expiry_range_ms: Option<(i64, i64)>,
    /// Up to three example keys, in file order.
    pub examples: Vec<String>,
    /// Bitmap statistics over the group's non-HLL, non-integer strings.
    pub bitmap: Option<BitmapStats>,
    /// HyperLogLog statistics over the group's `HYLL` strings.
    pub hll: Option<HllStats>,
    /// GEO statistics when every sorted set of the group holds geohash scores.
    pub geo: Option<GeoStats>,
}

/// Bit statistics of bitmap strings.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BitmapStats {
    /// Number of strings counted.
    pub keys: u64,
    /// Set bits over all of them (sum of BITCOUNT).
    pub set_bits: u64,
    /// Total bits (8 × sum of STRLEN).
    pub bits: u64,
}

impl BitmapStats {
    /// Set bits / bits (0 for empty strings).
    pub fn density(&self) -> f64 {
        if self.bits == 0 {
            0.0
        } else {
            self.set_bits as f64 / self.bits as f64
        }
    }
}

/// HyperLogLog statistics.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct HllStats {
    /// Valid HLLs in dense encoding.
    pub dense: u64,
    /// Valid HLLs in sparse encoding.
    pub sparse: u64,
    /// Strings with the `HYLL` magic that PFCOUNT would reject (bad header, dense length or
    /// corrupt sparse data).
    pub invalid: u64,
    /// Smallest and largest PFCOUNT among the valid ones.
    pub cardinality_range: Option<(u64, u64)>,
    /// Sum of PFCOUNT over the valid ones (not a union).
    pub cardinality_sum: u64,
}

/// GEO statistics: members and the bounding box of their decoded positions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeoStats {
    /// Members over all keys of the group.
    pub members: u64,
    /// Bounding box (min longitude, min latitude, max longitude, max latitude), degrees.
    pub bbox: Option<[f64; 4]>,
}

/// The grouping pattern of a key (see the module docs).
pub fn key_pattern(key: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(key.len());
    let last = key.split(|&b| b == b':').count() - 1;
    for (i, seg) in key.split(|&b| b == b':').enumerate() {
        if i > 0 {
            out.push(b':');
        }
        let all_digits = !seg.is_empty() && seg.iter().all(u8::is_ascii_digit);
        let is_month = all_digits
            && i == last
            && i > 0
            && seg.len() == 6
            && matches!(&seg[..2], b"19" | b"20")
            && matches!((seg[4] - b'0') * 10 + (seg[5] - b'0'), 1..=12);
        let is_date = !seg.is_empty()
            && seg
                .iter()
                .all(|b| b.is_ascii_digit() || b"-_/.".contains(b))
            && seg.iter().filter(|b| b.is_ascii_digit()).count() >= 6
            && seg.first().is_some_and(u8::is_ascii_digit);
        if is_month {
            out.extend_from_slice(seg);
        } else if all_digits || is_date {
            out.push(b'*');
        } else {
            let mut in_digits = false;
            for &b in seg {
                if b.is_ascii_digit() {
                    if !in_digits {
                        out.push(b'*');
                    }
                    in_digits = true;
                } else {
                    out.push(b);
                    in_digits = false;
                }
            }
        }
    }
    out
}

#[derive(Default)]
struct Acc {
    count: u64,
    bytes: u64,
    length: u64,
    with_expiry: u64,
    expiry: Option<(i64, i64)>,
    examples: Vec<String>,
    bitmap: BitmapStats,
    hll: HllStats,
    hll_seen: bool,
    geo_members: u64,
    geo_bbox: Option<[f64; 4]>,
    geo_ok: bool,
    zsets: u64,
    encodings: BTreeMap<&'static str, u64>,
}

/// Builds the report of an RDB file. Only keys selected by `opts.patterns` are counted.
/// Errors as [`crate::rdb::load_rdb`].
pub fn report(bytes: &[u8], opts: &LoadOptions) -> Result<Report, RdbError> {
    // db -> (pattern, type) -> accumulator
    let mut dbs: BTreeMap<u64, BTreeMap<(Vec<u8>, String), Acc>> = BTreeMap::new();
    let mut expiring = Vec::new();
    let header = visit_rdb(bytes, opts, |rec| {
        let Some(value) = rec.value else {
            return Ok(());
        };
        let acc = dbs
            .entry(rec.db)
            .or_default()
            .entry((key_pattern(&rec.key), value.redis_type().name()))
            .or_insert_with(|| Acc {
                geo_ok: true,
                ..Acc::default()
            });
        acc.count += 1;
        *acc.encodings.entry(rec.encoding).or_default() += 1;
        acc.bytes += 1 + rec.value_bytes + (rec.key.len() as u64);
        if let Some(ms) = rec.expire_at_ms {
            expiring.push((ms, 1 + rec.value_bytes + (rec.key.len() as u64)));
            acc.with_expiry += 1;
            acc.expiry = Some(match acc.expiry {
                None => (ms, ms),
                Some((a, b)) => (a.min(ms), b.max(ms)),
            });
        }
        if acc.examples.len() < 3 {
            acc.examples
                .push(String::from_utf8_lossy(&rec.key).into_owned());
        }
        match (&value, classify(&value)) {
            (Value::String(s), class) => {
                acc.length += s.len();
                match class {
                    Class::Hll(enc) => {
                        acc.hll_seen = true;
                        match enc {
                            crate::hll::Encoding::Dense => acc.hll.dense += 1,
                            crate::hll::Encoding::Sparse => acc.hll.sparse += 1,
                        }
                        // Valid by classification; a string that long is never materialised.
                        let c = if s.len() > crate::classify::MAX_DECODED_HLL_BYTES {
                            crate::hll::cached_cardinality(&s.range(0, 15)).unwrap_or(0)
                        } else {
                            crate::hll::count_readonly(&s.as_bytes()).unwrap_or(0)
                        };
                        acc.hll.cardinality_sum += c;
                        acc.hll.cardinality_range = Some(match acc.hll.cardinality_range {
                            None => (c, c),
                            Some((a, z)) => (a.min(c), z.max(c)),
                        });
                    }
                    Class::CorruptHll => {
                        acc.hll_seen = true;
                        acc.hll.invalid += 1;
                    }
                    Class::Bitmap => {
                        acc.bitmap.keys += 1;
                        acc.bitmap.set_bits += s.popcount();
                        acc.bitmap.bits += 8 * s.len();
                    }
                    _ => {}
                }
            }
            (Value::ZSet(z), class) => {
                acc.zsets += 1;
                acc.length += z.len() as u64;
                if acc.geo_ok && class == Class::Geo {
                    for (_, score) in z.iter() {
                        if let Some((lon, lat)) = geo_position(score) {
                            acc.geo_bbox = Some(match acc.geo_bbox {
                                None => [lon, lat, lon, lat],
                                Some([a, b, c, d]) => {
                                    [a.min(lon), b.min(lat), c.max(lon), d.max(lat)]
                                }
                            })
                        }
                    }
                    acc.geo_members += z.len() as u64;
                } else {
                    acc.geo_ok = false;
                }
            }
            _ => {}
        }
        Ok(())
    })?;
    let databases = dbs
        .into_iter()
        .map(|(db, groups)| {
            let mut groups: Vec<Group> = groups
                .into_iter()
                .map(|((pattern, type_name), a)| Group {
                    pattern: String::from_utf8_lossy(&pattern).into_owned(),
                    type_name,
                    encodings: a
                        .encodings
                        .iter()
                        .map(|(e, n)| (e.to_string(), *n))
                        .collect(),
                    count: a.count,
                    bytes: a.bytes,
                    length: a.length,
                    with_expiry: a.with_expiry,
                    expiry_range_ms: a.expiry,
                    examples: a.examples,
                    bitmap: (a.bitmap.keys > 0).then_some(a.bitmap),
                    hll: a.hll_seen.then_some(a.hll),
                    geo: (a.zsets > 0 && a.geo_ok).then_some(GeoStats {
                        members: a.geo_members,
                        bbox: a.geo_bbox,
                    }),
                })
                .collect();
            groups.sort_by(|a, b| {
                b.count
                    .cmp(&a.count)
                    .then_with(|| a.pattern.cmp(&b.pattern))
            });
            DbReport {
                db,
                keys: groups.iter().map(|g| g.count).sum(),
                expires: groups.iter().map(|g| g.with_expiry).sum(),
                groups,
            }
        })
        .collect();
    Ok(Report {
        version: header.version,
        writer: header.writer(),
        module_aux: header
            .module_aux
            .iter()
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .collect(),
        aux: header
            .aux
            .iter()
            .map(|(k, v)| {
                (
                    String::from_utf8_lossy(k).into_owned(),
                    String::from_utf8_lossy(v).into_owned(),
                )
            })
            .collect(),
        stored_checksum: header.stored_checksum,
        checksum_verified: opts.verify_checksum && header.stored_checksum != 0,
        file_bytes: bytes.len() as u64,
        databases,
        expiring: {
            expiring.sort_unstable();
            expiring
        },
        view: None,
    })
}

fn encodings_text(g: &Group) -> String {
    if g.encodings.len() == 1 {
        return g.encodings[0].0.clone();
    }
    g.encodings
        .iter()
        .map(|(e, n)| format!("{e}:{n}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn details(g: &Group) -> String {
    let mut parts = Vec::new();
    if let Some(b) = &g.bitmap {
        parts.push(format!(
            "bitmap: {} of {} bits set ({:.2}%)",
            b.set_bits,
            b.bits,
            100.0 * b.density()
        ));
    }
    if let Some(h) = &g.hll {
        let mut s = format!("hll: {} dense, {} sparse", h.dense, h.sparse);
        if h.invalid > 0 {
            let _ = write!(s, ", {} invalid", h.invalid);
        }
        match h.cardinality_range {
            Some((a, b)) if a == b => {
                let _ = write!(s, ", PFCOUNT {a}");
            }
            Some((a, b)) => {
                let _ = write!(s, ", PFCOUNT {a}..{b} (sum {})", h.cardinality_sum);
            }
            None => {}
        }
        parts.push(s);
    }
    if let Some(geo) = &g.geo {
        let mut s = format!("geo: {} members", geo.members);
        if let Some([a, b, c, d]) = geo.bbox {
            let _ = write!(s, ", lon {a:.6}..{c:.6}, lat {b:.6}..{d:.6}");
        }
        parts.push(s);
    }
    parts.join("; ")
}

impl Report {
    /// The report read as `profile` (the writer's when `compat` is `None`) at `clock`: sets
    /// [`Report::view`], with the keys and bytes already expired at that clock (Redis:
    /// expired when `clock > expiry`).
    pub fn at(
        mut self,
        compat: Option<&'static crate::dialect::Profile>,
        clock: crate::session::Clock,
    ) -> Report {
        let aux: Vec<(Vec<u8>, Vec<u8>)> = self
            .aux
            .iter()
            .map(|(k, v)| (k.clone().into_bytes(), v.clone().into_bytes()))
            .collect();
        let profile =
            compat.unwrap_or_else(|| crate::dialect::Profile::for_snapshot(&aux, self.version));
        let clock_ms = clock.resolve(&aux);
        let n = self.expiring.partition_point(|&(ms, _)| ms < clock_ms);
        self.view = Some(View {
            profile: profile.name,
            server: profile.display_name(),
            writer: compat.is_none(),
            clock_ms,
            expired_keys: n as u64,
            expired_bytes: self.expiring[..n].iter().map(|e| e.1).sum(),
        });
        self
    }

    /// Plain text for people: a header line, then per database a table of groups.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let w = &self.writer;
        let ver = match w.valkey_ver.as_deref().or(w.redis_ver.as_deref()) {
            Some(v) => format!(", written by {} {v}", w.server()),
            None => format!(", written by {} (version not recorded)", w.server()),
        };
        let keys: u64 = self.databases.iter().map(|d| d.keys).sum();
        let _ = writeln!(
            out,
            "RDB version {} ({}){ver}, {} bytes, {keys} keys in {} database(s), checksum {}",
            self.version,
            w.format.magic(),
            self.file_bytes,
            self.databases.len(),
            if self.stored_checksum == 0 {
                "absent".to_string()
            } else if self.checksum_verified {
                format!("{:016x} (verified)", self.stored_checksum)
            } else {
                format!("{:016x} (not verified)", self.stored_checksum)
            }
        );
        if !self.module_aux.is_empty() {
            let _ = writeln!(
                out,
                "module aux data of module type(s): {}",
                self.module_aux.join(", ")
            );
        }
        if let Some(v) = &self.view {
            let _ = writeln!(
                out,
                "answers as {} ({}{}); clock {} ms: {} keys ({} bytes) already expired",
                v.server,
                v.profile,
                if v.writer {
                    ", the writer"
                } else {
                    ", --compat"
                },
                v.clock_ms,
                v.expired_keys,
                v.expired_bytes
            );
        }
        for db in &self.databases {
            let _ = writeln!(
                out,
                "\ndb{}: {} keys, {} with expiry",
                db.db, db.keys, db.expires
            );
            let w = db
                .groups
                .iter()
                .map(|g| g.pattern.chars().count())
                .max()
                .unwrap_or(0)
                .max(7);
            let _ = writeln!(
                out,
                "  {:<w$}  {:<7} {:<22} {:>8} {:>12} {:>8}  DETAILS",
                "PATTERN", "TYPE", "ENCODING", "KEYS", "BYTES", "EXPIRY"
            );
            for g in &db.groups {
                let _ = writeln!(
                    out,
                    "  {:<w$}  {:<7} {:<22} {:>8} {:>12} {:>8}  {}",
                    g.pattern,
                    g.type_name,
                    encodings_text(g),
                    g.count,
                    g.bytes,
                    g.with_expiry,
                    details(g)
                );
            }
        }
        out
    }

    /// JSON for tools: `{"version", "aux": {..}, "stored_checksum", "checksum_verified", "file_bytes",
    /// "profile"?: {"name", "server", "writer"}, "clock_ms"?, "expired"?: {"keys", "bytes"},
    /// "databases": [{"db", "keys", "expires", "groups": [{"pattern", "type", "encoding",
    /// "count", "bytes", "length", "with_expiry", "expiry_min_ms", "expiry_max_ms",
    /// "examples", "bitmap"?: {"keys", "set_bits", "bits", "density"}, "hll"?: {"dense",
    /// "sparse", "invalid", "pfcount_min", "pfcount_max", "pfcount_sum"}, "geo"?: {"members",
    /// "bbox": [min_lon, min_lat, max_lon, max_lat]}}]}]}`.
    pub fn to_json(&self) -> Json {
        let dbs: Vec<Json> = self
            .databases
            .iter()
            .map(|d| {
                let groups: Vec<Json> = d
                    .groups
                    .iter()
                    .map(|g| {
                        let mut o = json!({
                            "pattern": g.pattern,
                            "type": g.type_name,
                            "encodings": g.encodings.iter()
                                .map(|(e, n)| (e.clone(), json!(n)))
                                .collect::<serde_json::Map<String, Json>>(),
                            "count": g.count,
                            "bytes": g.bytes,
                            "length": g.length,
                            "with_expiry": g.with_expiry,
                            "expiry_min_ms": g.expiry_range_ms.map(|r| r.0),
                            "expiry_max_ms": g.expiry_range_ms.map(|r| r.1),
                            "examples": g.examples,
                        });
                        if let Some(b) = &g.bitmap {
                            o["bitmap"] = json!({"keys": b.keys, "set_bits": b.set_bits,
                                "bits": b.bits, "density": b.density()});
                        }
                        if let Some(h) = &g.hll {
                            o["hll"] = json!({"dense": h.dense, "sparse": h.sparse,
                                "invalid": h.invalid,
                                "pfcount_min": h.cardinality_range.map(|r| r.0),
                                "pfcount_max": h.cardinality_range.map(|r| r.1),
                                "pfcount_sum": h.cardinality_sum});
                        }
                        if let Some(geo) = &g.geo {
                            o["geo"] = json!({"members": geo.members, "bbox": geo.bbox});
                        }
                        o
                    })
                    .collect();
                json!({"db": d.db, "keys": d.keys, "expires": d.expires, "groups": groups})
            })
            .collect();
        let aux: serde_json::Map<String, Json> = self
            .aux
            .iter()
            .map(|(k, v)| (k.clone(), Json::String(v.clone())))
            .collect();
        let mut o = json!({
            "version": self.version,
            "writer": writer_json(&self.writer),
            "module_aux": self.module_aux,
            "aux": aux,
            "stored_checksum": format!("{:016x}", self.stored_checksum),
            "checksum_verified": self.checksum_verified,
            "file_bytes": self.file_bytes,
            "databases": dbs,
        });
        if let Some(v) = &self.view {
            o["profile"] = json!({"name": v.profile, "server": v.server, "writer": v.writer});
            o["clock_ms"] = json!(v.clock_ms);
            o["expired"] = json!({"keys": v.expired_keys, "bytes": v.expired_bytes});
        }
        o
    }
}

/// The writer as JSON: `{"family": "Redis"|"Valkey", "rdb_version", "magic", "server",
/// "redis_ver", "valkey_ver" (null when absent), "description"}`.
pub fn writer_json(w: &crate::rdb::Writer) -> Json {
    json!({
        "family": w.format.family.name(),
        "rdb_version": w.format.version,
        "magic": w.format.magic(),
        "server": w.server(),
        "redis_ver": w.redis_ver,
        "valkey_ver": w.valkey_ver,
        "description": w.describe(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rdb::RdbWriter;
    use crate::zset::ZSet;

    #[test]
    fn patterns_replace_ids_and_days_keep_months() {
        let p = |k: &str| String::from_utf8(key_pattern(k.as_bytes())).unwrap();
        assert_eq!(p("stats:active:20240501"), "stats:active:*");
        assert_eq!(p("sign:1001635:202405"), "sign:*:202405");
        assert_eq!(p("uv:shop:12:20240501"), "uv:shop:*:*");
        assert_eq!(p("uv:page:index:2024-05-01"), "uv:page:index:*");
        assert_eq!(p("shop:geo:cafe"), "shop:geo:cafe");
        assert_eq!(p("user42:x7y"), "user*:x*y");
        assert_eq!(p("month:202413"), "month:*");
        assert_eq!(p("sign:205801:202405"), "sign:*:202405");
        assert_eq!(p("202405"), "*");
    }

    #[test]
    fn report_groups_and_stats() {
        let mut w = RdbWriter::new(Vec::new(), 10).unwrap();
        w.select_db(0).unwrap();
        w.write_string(b"stats:active:20240501", &[0xFF, 0x00, 0x01], None)
            .unwrap();
        w.write_string(b"stats:active:20240502", &[0x0F], Some(1000))
            .unwrap();
        w.write_string(b"n:1", b"12", None).unwrap();
        let mut hll = b"HYLL\x01\0\0\0".to_vec();
        hll.extend_from_slice(&42u64.to_le_bytes());
        hll.extend_from_slice(&[0x7F, 0xFF]);
        w.write_string(b"uv:page:20240501", &hll, None).unwrap();
        let geo = ZSet::from_pairs(vec![
            (b"a".to_vec(), 3479099956230698.0),
            (b"b".to_vec(), 3479447370796909.0),
        ]);
        w.write_zset(b"shop:geo:cafe", &geo, None).unwrap();
        w.select_db(1).unwrap();
        w.write_zset(
            b"plain",
            &ZSet::from_pairs(vec![(b"x".to_vec(), 0.5)]),
            None,
        )
        .unwrap();
        let bytes = w.finish().unwrap();
        let r = report(&bytes, &LoadOptions::default()).unwrap();
        assert_eq!(r.databases.len(), 2);
        let db0 = &r.databases[0];
        assert_eq!(db0.keys, 5);
        assert_eq!(db0.expires, 1);
        let g = &db0.groups[0];
        assert_eq!(g.pattern, "stats:active:*");
        assert_eq!(g.count, 2);
        assert_eq!(g.encodings, vec![("raw".to_string(), 2)]);
        assert_eq!(g.expiry_range_ms, Some((1000, 1000)));
        assert_eq!(
            g.bitmap,
            Some(BitmapStats {
                keys: 2,
                set_bits: 13,
                bits: 32
            })
        );
        let n = db0.groups.iter().find(|g| g.pattern == "n:*").unwrap();
        assert_eq!((n.encodings[0].0.as_str(), n.bitmap), ("int", None));
        let h = db0
            .groups
            .iter()
            .find(|g| g.pattern == "uv:page:*")
            .unwrap();
        assert_eq!(
            h.hll,
            Some(HllStats {
                dense: 0,
                sparse: 1,
                invalid: 0,
                cardinality_range: Some((42, 42)),
                cardinality_sum: 42,
            })
        );
        let geo = db0
            .groups
            .iter()
            .find(|g| g.pattern == "shop:geo:cafe")
            .unwrap();
        let gs = geo.geo.unwrap();
        assert_eq!(gs.members, 2);
        let bb = gs.bbox.unwrap();
        assert!(
            bb[0] > 13.36 && bb[2] < 15.1 && bb[1] > 37.5 && bb[3] < 38.2,
            "{bb:?}"
        );
        assert_eq!(r.databases[1].groups[0].geo, None);
        let text = r.to_text();
        assert!(text.contains("stats:active:*"), "{text}");
        assert!(text.contains("13 of 32 bits set (40.62%)"), "{text}");
        let j = r.to_json();
        assert_eq!(j["databases"][0]["groups"][0]["bitmap"]["set_bits"], 13);
        assert_eq!(j["aux"]["redis-bits"], "64");
    }
}
