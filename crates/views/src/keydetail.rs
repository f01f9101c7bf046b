//! Per-key summaries and detail views for a key browser (`Engine.keyList` / `Engine.keyDetail`).
//!
//! A summary is the key's Redis type, its encoding as `OBJECT ENCODING` reports it once the
//! profile's server has loaded the value ([`bitlens::loaded::object_encoding`]), its estimated
//! `MEMORY USAGE` ([`crate::memory::Model::estimate`]), its size in bytes and its time to
//! live. Everything is computed from the value itself, so a key replaced by any means (a
//! command, `loadRoaring`, a DUMP) is summarised as what it holds now.
//!
//! The detail adds, by kind:
//! The kind comes from [`crate::classify::classify`]:
//! - bitmap (any string that is not a valid HyperLogLog): the bit length, BITCOUNT, and a
//!   density strip: the string's bits cut into `buckets` equal-width ranges
//!   (`[i·bits/buckets, (i+1)·bits/buckets)`), each giving its fraction of set bits (0..1;
//!   an empty range gives 0). Sparse strings are counted page-wise, never materialised.
//! - HyperLogLog (a string PFCOUNT accepts): its encoding, PFCOUNT (the cached cardinality
//!   when valid, as Redis 7 returns it), and the histogram of its 16,384 six-bit registers.
//! - GEO ([`crate::classify::Class::Geo`]: a sorted set whose scores are all geohashes):
//!   member count, bounding box of the decoded positions and the first points by score.
//! - RedisBloom values (Bloom, Cuckoo, Count-Min, Top-K, t-digest): their
//!   [`bitlens::probabilistic::Summary`], plus the Top-K list (TOPK.LIST WITHCOUNT) and a
//!   t-digest's quantile curve (TDIGEST.QUANTILE at 0, 0.05, …, 1).

use crate::classify::{classify, geo_position, Class};
use crate::memory::Model;
use bitlens::hll;
use bitlens::keyspace::{EntryRef, Value};
use bitlens::loaded::object_encoding;
use bitlens::probabilistic::{
    summary::summary as module_summary, ModuleData, ModuleValue, Summary,
};
use bitlens::string::RedisString;
use bitlens::zset::ZSet;

/// Density buckets when none are asked for.
pub const DEFAULT_BUCKETS: usize = 256;
/// Most density buckets one call may ask for.
pub const MAX_BUCKETS: usize = 1 << 16;
/// GEO points returned when no limit is given.
pub const DEFAULT_MAX_POINTS: usize = 1000;

/// A key's summary (serialised in the result documents' vocabulary: `key` as a name,
/// `type`, `encoding`, `memory`, `bytes`, `ttl_ms`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct KeySummary {
    /// The key bytes.
    #[serde(serialize_with = "crate::report::name")]
    pub key: Vec<u8>,
    /// Redis type name, as TYPE prints it.
    #[serde(rename = "type")]
    pub type_name: String,
    /// `OBJECT ENCODING` once the profile's server has loaded the value
    /// ([`object_encoding`]); `unknown` for a value bitlens keeps only as its type.
    pub encoding: &'static str,
    /// Estimated `MEMORY USAGE key SAMPLES 0` on the profile's server, bytes
    /// ([`Model::estimate`]); `None` for a value whose layout is not modelled.
    pub memory: Option<u64>,
    /// Size in bytes: STRLEN for strings; member bytes plus 8 per score for sorted sets; for
    /// other types [`KeySummary::memory`] (0 when not modelled).
    pub bytes: u64,
    /// Milliseconds from `now_ms` to the key's expiry (negative when already past), `None`
    /// without expiry.
    pub ttl_ms: Option<i64>,
}

/// The kind-specific part of a key's detail (serialised with its variant's snake_case name
/// as `kind`, a module value's [`Summary`] as its figures by name).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Detail {
    /// A string viewed as a bitmap.
    Bitmap {
        /// Bit length (8 × STRLEN).
        bits: u64,
        /// Set bits (BITCOUNT).
        bitcount: u64,
        /// Set-bit fraction per equal-width bit range, `buckets` entries.
        density: Vec<f64>,
    },
    /// A HyperLogLog string.
    Hll {
        /// `dense` or `sparse`.
        encoding: &'static str,
        /// PFCOUNT (read-only: the cached value when valid).
        cardinality: u64,
        /// `h[v]` = registers holding value `v`; sums to 16,384.
        #[serde(serialize_with = "ser_seq")]
        register_histogram: Box<[u32; 64]>,
    },
    /// A GEO sorted set.
    Geo {
        /// Member count (ZCARD).
        members: u64,
        /// (min longitude, min latitude, max longitude, max latitude), degrees.
        bbox: [f64; 4],
        /// The first points by score: (member, longitude, latitude), degrees, as GEOPOS.
        #[serde(serialize_with = "ser_points")]
        points: Vec<(Vec<u8>, f64, f64)>,
    },
    /// A Bloom filter (`MBbloom--`): its [`Summary::Bloom`] (capacity, items, error rate,
    /// size, filters, fill ratio, expansion).
    Bloom {
        /// The module value's figures.
        #[serde(serialize_with = "ser_figures")]
        summary: Summary,
    },
    /// A Cuckoo filter (`MBbloomCF`): its [`Summary::Cuckoo`].
    Cuckoo {
        /// The module value's figures.
        #[serde(serialize_with = "ser_figures")]
        summary: Summary,
    },
    /// A Count-Min sketch (`CMSk-TYPE`): its [`Summary::Cms`].
    Cms {
        /// The module value's figures.
        #[serde(serialize_with = "ser_figures")]
        summary: Summary,
    },
    /// A Top-K (`TopK-TYPE`): its [`Summary::TopK`] and the listed items with their counts,
    /// by decreasing count, as `TOPK.LIST key WITHCOUNT` gives them (RedisBloom 2.8.2).
    TopK {
        /// The module value's figures.
        #[serde(serialize_with = "ser_figures")]
        summary: Summary,
        /// (item, count), by decreasing count.
        #[serde(serialize_with = "ser_listed")]
        list: Vec<(Vec<u8>, u64)>,
    },
    /// A t-digest (`TDIS-TYPE`): its [`Summary::TDigest`] and the quantile curve at
    /// [`QUANTILE_POINTS`] `(q, value)`, values as `TDIGEST.QUANTILE key 0 0.05 … 1` gives
    /// them (NaN for an empty digest, which the command prints as `nan`).
    TDigest {
        /// The module value's figures.
        #[serde(serialize_with = "ser_figures")]
        summary: Summary,
        /// (q, value) at each of [`QUANTILE_POINTS`].
        quantiles: Vec<(f64, f64)>,
    },
    /// Any other value (module values bitlens does not interpret included).
    Other,
}

/// A sequence of numbers.
fn ser_seq<S: serde::Serializer>(v: &[u32; 64], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(v.iter())
}

/// GEO points as `[name, longitude, latitude]`.
fn ser_points<S: serde::Serializer>(v: &[(Vec<u8>, f64, f64)], s: S) -> Result<S::Ok, S::Error> {
    struct P<'a>(&'a (Vec<u8>, f64, f64));
    impl serde::Serialize for P<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeTuple as _;
            let mut t = s.serialize_tuple(3)?;
            t.serialize_element(&N(&self.0 .0))?;
            t.serialize_element(&self.0 .1)?;
            t.serialize_element(&self.0 .2)?;
            t.end()
        }
    }
    s.collect_seq(v.iter().map(P))
}

/// Top-K items as `[name, count]`.
fn ser_listed<S: serde::Serializer>(v: &[(Vec<u8>, u64)], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(v.iter().map(|(k, n)| (N(k), n)))
}

/// A name ([`crate::report::name`]) as a value.
struct N<'a>(&'a [u8]);

impl serde::Serialize for N<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        crate::report::name(self.0, s)
    }
}

/// A module value's figures by name ([`Summary::figures`]: `{"kind", field: number | null}`).
fn ser_figures<S: serde::Serializer>(v: &Summary, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap as _;
    let mut m = s.serialize_map(None)?;
    crate::report::figure_entries(&mut m, v)?;
    m.end()
}

/// The quantiles of a t-digest's curve: 0, 0.05, …, 1 (21 points).
pub const QUANTILE_POINTS: [f64; 21] = [
    0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8,
    0.85, 0.9, 0.95, 1.0,
];

/// Options of [`detail`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DetailOptions {
    /// Density buckets for bitmaps (1..=[`MAX_BUCKETS`]).
    pub buckets: usize,
    /// Most GEO points to list.
    pub max_points: usize,
}

impl Default for DetailOptions {
    fn default() -> Self {
        DetailOptions {
            buckets: DEFAULT_BUCKETS,
            max_points: DEFAULT_MAX_POINTS,
        }
    }
}

/// The summary of one key, computed from its value with `model` (the profile's encodings and
/// memory layout) at the clock `now_ms`.
pub fn summary(key: &[u8], entry: EntryRef<'_>, model: &Model, now_ms: i64) -> KeySummary {
    let value = entry.value;
    let memory = model
        .estimate_with_expiry(key, value, entry.expire_at_ms.is_some())
        .map(|e| e.bytes);
    let bytes = match value {
        Value::String(s) => s.len(),
        Value::ZSet(z) => z.iter().map(|(m, _)| m.len() as u64 + 8).sum(),
        _ => memory.unwrap_or(0),
    };
    KeySummary {
        key: key.to_vec(),
        type_name: value.redis_type().name(),
        encoding: object_encoding(model.profile, key, value, entry.expire_at_ms.is_some())
            .unwrap_or("unknown"),
        memory,
        bytes,
        ttl_ms: entry.expire_at_ms.map(|t| t.saturating_sub(now_ms)),
    }
}

/// `DetailOptions::buckets` outside 1..=[`MAX_BUCKETS`] ([`detail`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BucketsError {
    /// The count given.
    pub buckets: usize,
}

impl std::fmt::Display for BucketsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "buckets must be 1 to {MAX_BUCKETS}, got {}",
            self.buckets
        )
    }
}

impl std::error::Error for BucketsError {}

/// The detail of one value. Errors when `opts.buckets` is outside 1..=[`MAX_BUCKETS`].
pub fn detail(value: &Value, opts: &DetailOptions) -> Result<Detail, BucketsError> {
    if !(1..=MAX_BUCKETS).contains(&opts.buckets) {
        return Err(BucketsError {
            buckets: opts.buckets,
        });
    }
    Ok(match value {
        Value::String(s) => match classify(value) {
            Class::Hll(encoding) => hll_detail(s, encoding),
            _ => None,
        }
        .unwrap_or_else(|| bitmap_detail(s, opts.buckets)),
        Value::ZSet(z) => match classify(value) {
            Class::Geo => geo_detail(z, opts.max_points),
            _ => Detail::Other,
        },
        Value::Module(m) => module_detail(m),
        Value::List(_) | Value::Set(_) | Value::Hash(_) | Value::Stream(_) | Value::Other(_) => {
            Detail::Other
        }
    })
}

/// The detail of a RedisBloom value (see [`Detail::Bloom`] to [`Detail::TDigest`]).
fn module_detail(m: &ModuleValue) -> Detail {
    let summary = module_summary(m);
    match &m.data {
        ModuleData::Bloom(_) => Detail::Bloom { summary },
        ModuleData::Cuckoo(_) => Detail::Cuckoo { summary },
        ModuleData::Cms(_) => Detail::Cms { summary },
        ModuleData::TopK(t) => Detail::TopK {
            summary,
            list: t
                .list()
                .into_iter()
                .map(|h| (h.item.clone(), h.count as u64))
                .collect(),
        },
        ModuleData::TDigest(d) => {
            // TDIGEST.QUANTILE merges pending observations first; so does the curve, on a copy.
            let mut d = d.clone();
            let _ = d.compress();
            Detail::TDigest {
                summary,
                quantiles: QUANTILE_POINTS
                    .iter()
                    .copied()
                    .zip(d.quantiles(&QUANTILE_POINTS))
                    .collect(),
            }
        }
        ModuleData::VectorSet(_) | ModuleData::Raw(_) => Detail::Other,
    }
}

/// The density strip of a string: set-bit fraction of each of `buckets` equal-width bit
/// ranges.
pub fn density(s: &RedisString, buckets: usize) -> Vec<f64> {
    let bits = s.len() * 8;
    let edge = |i: usize| ((bits as u128 * i as u128) / buckets as u128) as u64;
    (0..buckets)
        .map(|i| {
            let (a, b) = (edge(i), edge(i + 1));
            if b <= a {
                0.0
            } else {
                s.count_bits(a, b - 1) as f64 / (b - a) as f64
            }
        })
        .collect()
}

fn bitmap_detail(s: &RedisString, buckets: usize) -> Detail {
    Detail::Bitmap {
        bits: s.len() * 8,
        bitcount: s.popcount(),
        density: density(s, buckets),
    }
}

/// The HLL detail of a string [`classify`] found valid; `None` when its registers cannot be
/// decoded (a sparse body behind a valid cache, which PFCOUNT answers from the cache).
fn hll_detail(s: &RedisString, encoding: hll::Encoding) -> Option<Detail> {
    if s.len() > crate::classify::MAX_DECODED_HLL_BYTES {
        return None;
    }
    let b = s.as_bytes();
    let regs = hll::registers(&b).ok()?;
    let cardinality = hll::count_readonly(&b).ok()?;
    Some(Detail::Hll {
        encoding: match encoding {
            hll::Encoding::Dense => "dense",
            hll::Encoding::Sparse => "sparse",
        },
        cardinality,
        register_histogram: Box::new(regs.histogram()),
    })
}

/// The GEO detail of a sorted set [`classify`] found to be a GEO set.
fn geo_detail(z: &ZSet, max_points: usize) -> Detail {
    let mut bbox = [
        f64::INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NEG_INFINITY,
    ];
    for (_, score) in z.iter() {
        if let Some((lon, lat)) = geo_position(score) {
            bbox = [
                bbox[0].min(lon),
                bbox[1].min(lat),
                bbox[2].max(lon),
                bbox[3].max(lat),
            ];
        }
    }
    let points = z
        .iter()
        .take(max_points)
        .map(|(m, score)| {
            let (lon, lat) = bitlens::geo::decode(score as u64);
            (m.to_vec(), lon, lat)
        })
        .collect();
    Detail::Geo {
        members: z.len() as u64,
        bbox,
        points,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitlens::keyspace::{Entry, Keyspace, RedisType};
    use std::collections::HashMap;

    fn string_entry(bytes: Vec<u8>, exp: Option<i64>) -> Entry {
        Entry {
            value: Value::String(RedisString::from_bytes(bytes)),
            expire_at_ms: exp,
        }
    }

    fn model(name: &str) -> Model {
        let p = bitlens::dialect::Profile::from_name(name).expect("profile");
        Model::new(p, crate::memory::Allocator::Jemalloc)
    }

    #[test]
    fn string_encodings_follow_redis_rules() {
        let m = model("redis-7.0");
        let enc =
            |b: &[u8]| summary(b"k", (&string_entry(b.to_vec(), None)).into(), &m, 0).encoding;
        assert_eq!(enc(b"12345"), "int");
        assert_eq!(enc(b"-9223372036854775808"), "int");
        assert_eq!(enc(b"9223372036854775808"), "embstr"); // overflows i64
        assert_eq!(enc(b"007"), "embstr");
        assert_eq!(enc(b"+7"), "embstr");
        assert_eq!(enc(&[b'a'; 44]), "embstr");
        assert_eq!(enc(&[b'a'; 45]), "raw");
    }

    #[test]
    fn summary_of_string_zset_and_other() {
        let m = model("redis-7.0");
        let s = summary(
            b"k",
            (&string_entry(vec![0; 100], Some(10_000))).into(),
            &m,
            4_000,
        );
        assert_eq!(s.type_name, "string");
        assert_eq!(s.encoding, "raw");
        assert_eq!(s.bytes, 100);
        assert_eq!(s.ttl_ms, Some(6_000));
        let z = Entry {
            value: Value::zset(ZSet::from_pairs(vec![
                (b"ab".to_vec(), 1.0),
                (b"cde".to_vec(), 2.0),
            ])),
            expire_at_ms: None,
        };
        let s = summary(b"z", (&z).into(), &m, 0);
        assert_eq!((s.type_name.as_str(), s.encoding), ("zset", "listpack"));
        assert_eq!(s.bytes, 2 + 8 + 3 + 8);
        assert_eq!(s.ttl_ms, None);
        // A value kept only as its type has no encoding or estimate.
        let o = Entry {
            value: Value::Other(RedisType::Hash),
            expire_at_ms: None,
        };
        let s = summary(b"h", (&o).into(), &m, 0);
        assert_eq!(
            (s.type_name.as_str(), s.encoding, s.memory, s.bytes),
            ("hash", "unknown", None, 0)
        );
    }

    /// The summary is computed from the value: OBJECT ENCODING and MEMORY USAGE as a real
    /// Redis 7.4.1 (jemalloc 5.3.0, RedisBloom 2.8.2) reports them after `DEBUG RELOAD`, for
    /// the DUMP payloads that server gave of the same keys (recorded: `HSET h a 1 b 2`,
    /// `RPUSH l x y z`, `SADD s 1 2 3`, `SADD sm apple pear`, `BF.ADD bf x`, `SET str hello`).
    #[test]
    fn summary_matches_redis_7_4_after_load() {
        let m = model("redis-7.4");
        let cases: [(&str, &str, &str, u64); 6] = [
            ("h", "101111000000040081610201018162020201ff0c00f53657ac7577e8d3", "listpack", 72),
            ("l", "12010210100000000300817802817902817a02ff0c002a0507a38246ef52", "listpack", 64),
            ("s", "0b0e02000000030000000100020003000c006e7468229744d352", "intset", 64),
            ("sm", "1414140000000200856170706c6506847065617205ff0c0043d29f52b2d311ac", "listpack", 72),
            (
                "bf",
                "07813016e5a289bef8040201020102050202024064047b14ae47e17a743f020804e9862fb2350e2640\
                 024480020005c3164090010000e03a00024040402045a004400ae02f000100000201000c000a42e14b35180409",
                "raw",
                272,
            ),
            ("str", "000568656c6c6f0c00a804ebb69f1ebe43", "embstr", 64),
        ];
        for (key, hex, encoding, memory) in cases {
            let bytes: Vec<u8> = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            let value = bitlens::rdb::load_dump_with(&bytes, true).expect(key);
            let entry = Entry {
                value,
                expire_at_ms: None,
            };
            let s = summary(key.as_bytes(), (&entry).into(), &m, 0);
            assert_eq!((s.encoding, s.memory), (encoding, Some(memory)), "{key}");
            if !matches!(entry.value, Value::String(_)) {
                assert_eq!(s.bytes, memory, "{key}");
            }
        }
    }

    #[test]
    fn density_of_known_bits() {
        // 64 bytes = 512 bits; set every bit of the first 128, one bit in the last 128.
        let mut v = vec![0u8; 64];
        v[..16].fill(0xff);
        v[63] = 0x01;
        let s = RedisString::from_bytes(v);
        let Detail::Bitmap {
            bits,
            bitcount,
            density,
        } = detail(
            &Value::String(s.clone()),
            &DetailOptions {
                buckets: 4,
                max_points: 0,
            },
        )
        .unwrap()
        else {
            panic!("bitmap expected")
        };
        assert_eq!((bits, bitcount), (512, 129));
        assert_eq!(density, vec![1.0, 0.0, 0.0, 1.0 / 128.0]);
        // More buckets than bits: ranges of 0 or 1 bit.
        let d = density_of(&RedisString::from_bytes(vec![0x80]), 16);
        assert_eq!(d.len(), 16);
        assert_eq!(d.iter().sum::<f64>(), 1.0);
        assert_eq!(d.iter().position(|&x| x == 1.0), Some(1));
    }

    fn density_of(s: &RedisString, n: usize) -> Vec<f64> {
        density(s, n)
    }

    #[test]
    fn density_of_sparse_string_is_paged() {
        // 64 MiB string with bits 0 and the last bit set: stays sparse.
        let len = 64u64 << 20;
        let s = RedisString::from_sparse_bits(len, [0, len * 8 - 1]);
        assert!(s.is_sparse());
        let d = density(&s, 8);
        let per = (len * 8 / 8) as f64;
        assert_eq!(d[0], 1.0 / per);
        assert_eq!(d[7], 1.0 / per);
        assert_eq!(d[1..7].iter().sum::<f64>(), 0.0);
    }

    #[test]
    fn bucket_limits_are_errors() {
        let v = Value::String(RedisString::from_bytes(vec![1]));
        for buckets in [0, MAX_BUCKETS + 1] {
            let e = detail(
                &v,
                &DetailOptions {
                    buckets,
                    max_points: 1,
                },
            )
            .unwrap_err();
            assert_eq!(e, BucketsError { buckets });
            assert!(e.to_string().contains("buckets must be 1 to 65536"), "{e}");
        }
    }

    #[test]
    fn hll_histogram_sums_to_registers() {
        let mut h = hll::new_sparse();
        let elems: Vec<Vec<u8>> = (0..500).map(|i| format!("u{i}").into_bytes()).collect();
        let refs: Vec<&[u8]> = elems.iter().map(|e| e.as_slice()).collect();
        hll::pfadd(&mut h, &refs).unwrap();
        let expect_card = hll::count_readonly(&h).unwrap();
        let regs = hll::registers(&h).unwrap();
        let nonzero = regs.0.iter().filter(|&&r| r != 0).count() as u32;
        let v = Value::String(RedisString::from_bytes(h));
        let Detail::Hll {
            encoding,
            cardinality,
            register_histogram,
        } = detail(&v, &DetailOptions::default()).unwrap()
        else {
            panic!("hll expected")
        };
        assert_eq!(encoding, "sparse");
        assert_eq!(cardinality, expect_card);
        assert!((480..=520).contains(&cardinality), "{cardinality}");
        assert_eq!(register_histogram.iter().sum::<u32>(), 16384);
        assert_eq!(16384 - register_histogram[0], nonzero);
        // A HYLL string with a bad encoding byte is a plain bitmap.
        let mut bad = b"HYLL".to_vec();
        bad.extend_from_slice(&[7; 20]);
        assert!(matches!(
            detail(
                &Value::String(RedisString::from_bytes(bad)),
                &DetailOptions::default()
            )
            .unwrap(),
            Detail::Bitmap { .. }
        ));
    }

    #[test]
    fn geo_points_and_bbox() {
        let places = [
            (b"a".to_vec(), 13.361389, 38.115556),
            (b"b".to_vec(), 15.087269, 37.502669),
            (b"c".to_vec(), 2.349014, 48.864716),
        ];
        let pairs: Vec<(Vec<u8>, f64)> = places
            .iter()
            .map(|(m, lon, lat)| (m.clone(), bitlens::geo::encode(*lon, *lat).unwrap() as f64))
            .collect();
        let z = Value::zset(ZSet::from_pairs(pairs));
        let Detail::Geo {
            members,
            bbox,
            points,
        } = detail(
            &z,
            &DetailOptions {
                buckets: 1,
                max_points: 2,
            },
        )
        .unwrap()
        else {
            panic!("geo expected")
        };
        assert_eq!(members, 3);
        assert_eq!(points.len(), 2);
        // Positions decode to within GEOPOS precision of the input.
        for (m, lon, lat) in &points {
            let (_, elon, elat) = places.iter().find(|p| &p.0 == m).unwrap();
            assert!((lon - elon).abs() < 1e-5 && (lat - elat).abs() < 1e-5);
        }
        assert!((bbox[0] - 2.349014).abs() < 1e-5);
        assert!((bbox[1] - 37.502669).abs() < 1e-5);
        assert!((bbox[2] - 15.087269).abs() < 1e-5);
        assert!((bbox[3] - 48.864716).abs() < 1e-5);
        // Small integer scores (a counter set) are not GEO.
        let counters = Value::zset(ZSet::from_pairs(vec![(b"x".to_vec(), 3.0)]));
        assert_eq!(
            detail(&counters, &DetailOptions::default()).unwrap(),
            Detail::Other
        );
    }

    /// The recorded RedisBloom dump (Redis 7.4.1 + RedisBloom 2.8.2) loaded into a keyspace.
    fn bloom_keyspace() -> Keyspace {
        let dump = include_bytes!("../../../tests/data/conformance/redis-7.4.1-bloom/dump.rdb");
        let mut snap = bitlens::rdb::load_rdb(dump, &bitlens::rdb::LoadOptions::default()).unwrap();
        snap.databases.remove(&0).unwrap()
    }

    fn module_detail_of(ks: &Keyspace, key: &str) -> Detail {
        detail(
            &ks.get(key.as_bytes()).unwrap().clone(),
            &DetailOptions::default(),
        )
        .unwrap()
    }

    fn int(r: &bitlens::reply::Reply) -> u64 {
        match r {
            bitlens::reply::Reply::Integer(n) => *n as u64,
            other => panic!("{other:?}"),
        }
    }

    /// `INFO`-style replies (`[name, value, …]`) as a name → reply map.
    fn info(ks: &mut Keyspace, argv: &[&str]) -> HashMap<String, bitlens::reply::Reply> {
        let bitlens::reply::Reply::Array(a) =
            bitlens::command::execute_as(ks, &bitlens::dialect::REDIS_7_4, argv)
        else {
            panic!("{argv:?}")
        };
        a.chunks(2)
            .map(|p| {
                let name = match &p[0] {
                    bitlens::reply::Reply::Status(s) => s.clone(),
                    bitlens::reply::Reply::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
                    other => panic!("{other:?}"),
                };
                (name, p[1].clone())
            })
            .collect()
    }

    #[test]
    fn bloom_and_cuckoo_details_match_info() {
        let mut ks = bloom_keyspace();
        for key in ["bf:default", "bf:scaling", "bf:small"] {
            let Detail::Bloom {
                summary:
                    Summary::Bloom {
                        capacity,
                        items,
                        size_bytes,
                        filters,
                        fill_ratio,
                        expansion,
                        ..
                    },
            } = module_detail_of(&ks, key)
            else {
                panic!("{key}")
            };
            let i = info(&mut ks, &["BF.INFO", key]);
            assert_eq!(capacity, int(&i["Capacity"]), "{key}");
            assert_eq!(items, int(&i["Number of items inserted"]), "{key}");
            assert_eq!(size_bytes, int(&i["Size"]), "{key}");
            assert_eq!(filters, int(&i["Number of filters"]), "{key}");
            assert_eq!(expansion.unwrap_or(0), int(&i["Expansion rate"]), "{key}");
            assert!((0.0..=1.0).contains(&fill_ratio));
        }
        let Detail::Cuckoo {
            summary:
                Summary::Cuckoo {
                    buckets,
                    items,
                    deletes,
                    size_bytes,
                    ..
                },
        } = module_detail_of(&ks, "cf:small")
        else {
            panic!()
        };
        let i = info(&mut ks, &["CF.INFO", "cf:small"]);
        assert_eq!(buckets, int(&i["Number of buckets"]));
        assert_eq!(items, int(&i["Number of items inserted"]));
        assert_eq!(deletes, int(&i["Number of items deleted"]));
        assert_eq!(size_bytes, int(&i["Size"]));
        for key in ["cms:dim", "cms:prob"] {
            let Detail::Cms {
                summary:
                    Summary::Cms {
                        width,
                        depth,
                        count,
                        ..
                    },
            } = module_detail_of(&ks, key)
            else {
                panic!("{key}")
            };
            let i = info(&mut ks, &["CMS.INFO", key]);
            assert_eq!(
                (width, depth, count),
                (int(&i["width"]), int(&i["depth"]), int(&i["count"]))
            );
        }
    }

    #[test]
    fn topk_list_matches_topk_list_withcount() {
        let mut ks = bloom_keyspace();
        let Detail::TopK { list, .. } = module_detail_of(&ks, "topk:k5") else {
            panic!()
        };
        let bitlens::reply::Reply::Array(reply) = bitlens::command::execute_as(
            &mut ks,
            &bitlens::dialect::REDIS_7_4,
            &["TOPK.LIST", "topk:k5", "WITHCOUNT"],
        ) else {
            panic!()
        };
        let want: Vec<(Vec<u8>, u64)> = reply
            .chunks(2)
            .map(|p| match &p[0] {
                bitlens::reply::Reply::Bulk(b) => (b.clone(), int(&p[1])),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(list.len(), 5);
        assert_eq!(list, want);
        // As recorded from the module: w1 280, w2 81, w3 41, w5 22, w4 19.
        assert_eq!(list[0], (b"w1".to_vec(), 280));
    }

    #[test]
    fn tdigest_curve_matches_tdigest_quantile() {
        let mut ks = bloom_keyspace();
        for key in ["td:lat", "td:small", "td:empty"] {
            let Detail::TDigest { quantiles, .. } = module_detail_of(&ks, key) else {
                panic!("{key}")
            };
            let mut argv = vec!["TDIGEST.QUANTILE".to_string(), key.to_string()];
            argv.extend(QUANTILE_POINTS.iter().map(|q| q.to_string()));
            let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
            let bitlens::reply::Reply::Array(reply) =
                bitlens::command::execute_as(&mut ks, &bitlens::dialect::REDIS_7_4, &argv)
            else {
                panic!("{key}")
            };
            assert_eq!(quantiles.len(), 21);
            for ((q, v), r) in quantiles.iter().zip(&reply) {
                let bitlens::reply::Reply::Bulk(b) = r else {
                    panic!("{r:?}")
                };
                let want: f64 = std::str::from_utf8(b).unwrap().parse().unwrap();
                assert!(
                    v.to_bits() == want.to_bits() || (v.is_nan() && want.is_nan()),
                    "{key} q={q}: {v} vs {want}"
                );
            }
            if key == "td:empty" {
                assert!(quantiles.iter().all(|(_, v)| v.is_nan()));
            } else {
                assert!(quantiles.windows(2).all(|w| w[0].1 <= w[1].1), "{key}");
            }
        }
    }
}
