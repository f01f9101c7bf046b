//! What a value *is* beyond its Redis type: the one rule per kind that every view (the
//! `inspect` report, the key browser, the panel) uses.
//!
//! Redis has no GEO or HyperLogLog type: both are conventions on top of sorted sets and
//! strings. The rules, and where they come from:
//!
//! | class        | rule                                                                  | source |
//! |--------------|-----------------------------------------------------------------------|--------|
//! | [`Class::Counter`] | a string that is the canonical decimal text of an i64 (no `+`, no leading zeros, at most 20 bytes) | what Redis 7 stores `OBJECT ENCODING int` after loading a string (`INCR` works on it) |
//! | [`Class::Hll`]     | a string that starts with `HYLL` and that PFCOUNT accepts: header valid (16 bytes, encoding 0 with exactly 12,304 bytes or encoding 1) and, when the cached cardinality is invalid, sparse opcodes covering exactly 16,384 registers | Redis 7 PFCOUNT: `WRONGTYPE ... not a valid HyperLogLog` / `INVALIDOBJ Corrupted HLL object detected`, as [`bitlens::hll::count_readonly`] |
//! | [`Class::CorruptHll`] | a string that starts with `HYLL` that PFCOUNT rejects          | same |
//! | [`Class::Text`]    | a non-empty string of printable UTF-8 (no control character but tab, CR and LF; judged on its first [`TEXT_PREFIX_BYTES`]) | the evidence a value is text, not bits: a bitmap of user ids has zero bytes and control bytes within its first bytes unless nearly every bit is set |
//! | [`Class::Bitmap`]  | any other string (every string is a bitmap to GETBIT/BITCOUNT)        | Redis bitmaps are strings |
//! | [`Class::Geo`]     | a non-empty sorted set whose scores are all integers in [0, 2^54) (what GEOADD stores: a 52-bit interleaved geohash; longitude 180 or latitude ±85.05112878 carries into bits 52..53) and whose largest score is at least 2^40 | GEOADD/GEOPOS; the 2^40 floor rejects counter-scored sets, whose points would all lie within about 6° of (-180, -85) |
//! | [`Class::ZSet`]    | any other sorted set                                                  | |
//!
//! Classification never materialises more than a HyperLogLog's worst case (16 + 2 × 16,384
//! bytes: a sparse body covering exactly 16,384 registers has at most 16,384 opcodes of at
//! most 2 bytes), so a huge sparse bitmap is classified from its first bytes.

use bitlens::hll;
use bitlens::keyspace::{RedisType, Value};
use bitlens::string::RedisString;
use bitlens::zset::ZSet;

/// The kind of a value, as the views show it (see the module docs for each rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Class {
    /// A string holding a canonical 64-bit integer (`OBJECT ENCODING int`).
    Counter,
    /// A string of printable UTF-8 text (a name, a JSON document, a URL...): not counted as
    /// bits in the views.
    Text,
    /// A string read as bits (every string that is neither a counter, text, nor starts with
    /// `HYLL`).
    Bitmap,
    /// A HyperLogLog PFCOUNT accepts, in this encoding.
    Hll(hll::Encoding),
    /// A string starting with the `HYLL` magic that PFCOUNT rejects.
    CorruptHll,
    /// A sorted set of geohash scores (a GEO key).
    Geo,
    /// Any other sorted set.
    ZSet,
    /// A value of another type (list, set, hash, stream, module).
    Other(RedisType),
}

/// The class of a value (see the module docs).
///
/// # Examples
/// ```
/// use bitlens_views::classify::{classify, Class};
/// use bitlens::string::RedisString;
/// use bitlens::Value;
///
/// let counter = Value::String(RedisString::from_bytes(b"42".to_vec()));
/// assert_eq!(classify(&counter), Class::Counter);
/// let hll = Value::String(RedisString::from_bytes(bitlens::hll::new_sparse()));
/// assert_eq!(classify(&hll), Class::Hll(bitlens::hll::Encoding::Sparse));
/// let bits = Value::String(RedisString::from_bytes(vec![0xff, 0x01]));
/// assert_eq!(classify(&bits), Class::Bitmap);
/// ```
pub fn classify(value: &Value) -> Class {
    match value {
        Value::String(s) => classify_string(s),
        Value::ZSet(z) => {
            if is_geo_set(z) {
                Class::Geo
            } else {
                Class::ZSet
            }
        }
        other => Class::Other(other.redis_type()),
    }
}

/// Longest string that can be a HyperLogLog whose registers must be decoded (see the module
/// docs): 16-byte header + 16,384 opcodes of 2 bytes.
pub const MAX_DECODED_HLL_BYTES: u64 = (hll::HDR + 2 * hll::REGISTERS) as u64;

/// How much of a string [`classify_string`] reads to tell text from bits: 4 KiB.
pub const TEXT_PREFIX_BYTES: u64 = 4096;

/// True when `bytes` (the first bytes of a string, cut anywhere) are printable UTF-8: valid
/// UTF-8 but for a character cut at the end, and no control character but tab, CR and LF.
fn is_text(bytes: &[u8]) -> bool {
    let valid = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        // Cut inside the last character: the part before it.
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return false,
    };
    valid
        .chars()
        .all(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r'))
}

/// The class of a string: [`Class::Counter`], [`Class::Hll`], [`Class::CorruptHll`],
/// [`Class::Text`] or [`Class::Bitmap`].
pub fn classify_string(s: &RedisString) -> Class {
    let n = s.len();
    if n <= 20 && bitlens::num::parse_i64(&s.as_bytes()).is_some() {
        return Class::Counter;
    }
    if n < 4 || s.range(0, 3) != b"HYLL" {
        if n > 0 && is_text(&s.range(0, n.min(TEXT_PREFIX_BYTES) - 1)) {
            return Class::Text;
        }
        return Class::Bitmap;
    }
    if n > MAX_DECODED_HLL_BYTES {
        // Too long for a dense HLL or a sparse body PFCOUNT can decode: only a sparse header
        // with a valid cached cardinality is answered (from the cache) without decoding.
        let head = s.range(0, hll::HDR as u64 - 1);
        return match hll::validate(&head) {
            Ok(hll::Encoding::Sparse) if hll::cached_cardinality(&head).is_some() => {
                Class::Hll(hll::Encoding::Sparse)
            }
            _ => Class::CorruptHll,
        };
    }
    let b = s.as_bytes();
    match (hll::validate(&b), hll::count_readonly(&b)) {
        (Ok(enc), Ok(_)) => Class::Hll(enc),
        _ => Class::CorruptHll,
    }
}

/// Sorted sets whose scores all stay below this are not GEO sets: their points would all lie
/// within about 6 degrees of (-180, -85), which is far likelier to be a counter-scored set.
pub const GEO_MIN_MAX_SCORE: f64 = (1u64 << 40) as f64;

/// The position (longitude, latitude in degrees) a GEO score decodes to, when the score is an
/// integer in [0, 2^54) (GEOADD at longitude 180 or latitude ±85.05112878 carries into bits
/// 52..53; Redis decodes those too, clamping the position), as GEOPOS.
pub fn geo_position(score: f64) -> Option<(f64, f64)> {
    if !(0.0..18014398509481984.0).contains(&score) || score.fract() != 0.0 {
        return None;
    }
    Some(bitlens::geo::decode(score as u64))
}

/// True when a sorted set is a GEO set: non-empty, every score a geohash
/// ([`geo_position`]), the largest at least [`GEO_MIN_MAX_SCORE`].
pub fn is_geo_set(z: &ZSet) -> bool {
    let mut max = f64::NEG_INFINITY;
    for (_, score) in z.iter() {
        if geo_position(score).is_none() {
            return false;
        }
        max = max.max(score);
    }
    max >= GEO_MIN_MAX_SCORE
}

/// The figures a view shows beside a value's [`Class`] (the `inspect` report's group
/// statistics, one row of `bitlens export`): each `Some` only for its class.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figures {
    /// The value's class ([`classify`]).
    pub class: Class,
    /// [`Class::Bitmap`]: set bits (BITCOUNT) and bits (8 × STRLEN).
    pub bitmap: Option<(u64, u64)>,
    /// [`Class::Hll`]: PFCOUNT as Redis 7 answers it on the stored value (without writing the
    /// cache back; a sparse HLL longer than [`MAX_DECODED_HLL_BYTES`] from its cached
    /// cardinality). `None` for every other class, [`Class::CorruptHll`] included.
    pub hll_count: Option<u64>,
    /// [`Class::Geo`]: the members' bounding box, degrees: min longitude, min latitude, max
    /// longitude, max latitude (as GEOPOS decodes each score).
    pub geo_bbox: Option<[f64; 4]>,
}

/// The [`Figures`] of a value: its class, then that class's figures (a bitmap's popcount, an
/// HLL's PFCOUNT, a GEO set's bounding box; a pass over the value, nothing kept).
pub fn figures(value: &Value) -> Figures {
    let class = classify(value);
    let mut f = Figures {
        class,
        bitmap: None,
        hll_count: None,
        geo_bbox: None,
    };
    match (value, class) {
        (Value::String(s), Class::Hll(_)) => {
            f.hll_count = Some(if s.len() > MAX_DECODED_HLL_BYTES {
                hll::cached_cardinality(&s.range(0, hll::HDR as u64 - 1)).unwrap_or(0)
            } else {
                hll::count_readonly(&s.as_bytes()).unwrap_or(0)
            });
        }
        (Value::String(s), Class::Bitmap) => f.bitmap = Some((s.popcount(), 8 * s.len())),
        (Value::ZSet(z), Class::Geo) => {
            for (_, score) in z.iter() {
                if let Some((lon, lat)) = geo_position(score) {
                    f.geo_bbox = Some(match f.geo_bbox {
                        None => [lon, lat, lon, lat],
                        Some([a, b, c, d]) => [a.min(lon), b.min(lat), c.max(lon), d.max(lat)],
                    });
                }
            }
        }
        _ => {}
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(b: &[u8]) -> RedisString {
        RedisString::from_bytes(b.to_vec())
    }

    #[test]
    fn counters_are_canonical_integers() {
        assert_eq!(classify_string(&s(b"12")), Class::Counter);
        assert_eq!(classify_string(&s(b"-9223372036854775808")), Class::Counter);
        // Not canonical: text, not counters.
        assert_eq!(classify_string(&s(b"9223372036854775808")), Class::Text);
        assert_eq!(classify_string(&s(b"012")), Class::Text);
        assert_eq!(classify_string(&s(b"")), Class::Bitmap);
        // Printable UTF-8 is text; control bytes, zero bytes and invalid UTF-8 are bits.
        assert_eq!(classify_string(&s(b"alice")), Class::Text);
        assert_eq!(classify_string(&s("Zoë, 東京\n".as_bytes())), Class::Text);
        assert_eq!(classify_string(&s(b"{\"a\": 1}\t")), Class::Text);
        assert_eq!(classify_string(&s(b"+1")), Class::Text);
        assert_eq!(classify_string(&s(b"\x01\x80")), Class::Bitmap);
        assert_eq!(classify_string(&s(b"ab\x00")), Class::Bitmap);
        assert_eq!(classify_string(&s(b"\xff\xfe")), Class::Bitmap);
        // Judged on the first 4 KiB, cut inside a character: still text.
        let mut long = "é".repeat(3000).into_bytes();
        long.extend([0u8; 10]);
        assert_eq!(classify_string(&s(&long)), Class::Text);
    }

    #[test]
    fn hll_rules_follow_pfcount() {
        assert_eq!(
            classify_string(&s(&hll::new_sparse())),
            Class::Hll(hll::Encoding::Sparse)
        );
        let mut dense = b"HYLL\0\0\0\0".to_vec();
        dense.resize(hll::DENSE_SIZE, 0);
        assert_eq!(
            classify_string(&s(&dense)),
            Class::Hll(hll::Encoding::Dense)
        );
        // A dense header with a wrong length: PFCOUNT says WRONGTYPE.
        dense.push(0);
        assert_eq!(classify_string(&s(&dense)), Class::CorruptHll);
        // Short or unknown encoding.
        assert_eq!(classify_string(&s(b"HYLL")), Class::CorruptHll);
        assert_eq!(
            classify_string(&s(b"HYLL\x02\0\0\0\0\0\0\0\0\0\0\0")),
            Class::CorruptHll
        );
        // Sparse, cache invalid, opcodes not covering 16,384 registers: INVALIDOBJ.
        let mut bad = b"HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80".to_vec();
        bad.push(0x00); // ZERO of 1 register
        assert_eq!(classify_string(&s(&bad)), Class::CorruptHll);
        // The same body with a valid cache: PFCOUNT answers from the cache.
        bad[15] = 0;
        assert_eq!(classify_string(&s(&bad)), Class::Hll(hll::Encoding::Sparse));
        // Too long to decode: only the cache can make it valid.
        let mut long = bad.clone();
        long.resize(MAX_DECODED_HLL_BYTES as usize + 1, 0);
        assert_eq!(
            classify_string(&s(&long)),
            Class::Hll(hll::Encoding::Sparse)
        );
        long[15] = 0x80;
        assert_eq!(classify_string(&s(&long)), Class::CorruptHll);
    }

    #[test]
    fn geo_sets_need_geohash_scores_above_the_floor() {
        // GEOADD k 13.361389 38.115556 Palermo stores 3479099956230698 (GEOPOS 13.3613893...).
        let (lon, lat) = geo_position(3479099956230698.0).unwrap();
        assert!((lon - 13.361389338970184).abs() < 1e-9 && (lat - 38.1155563954963).abs() < 1e-9);
        assert!(geo_position(1.5).is_none());
        assert!(geo_position(-1.0).is_none());
        assert!(geo_position(18014398509481984.0).is_none());
        let z = |scores: &[f64]| {
            ZSet::from_pairs(
                scores
                    .iter()
                    .enumerate()
                    .map(|(i, sc)| (vec![b'a' + i as u8], *sc)),
            )
        };
        let palermo = 3479099956230698.0;
        assert!(is_geo_set(&z(&[palermo, 3479447370796909.0])));
        assert!(!is_geo_set(&z(&[palermo, 0.5])));
        assert!(!is_geo_set(&z(&[1.0, 2.0, 300.0])));
        assert!(!is_geo_set(&z(&[])));
        assert_eq!(classify(&Value::zset(z(&[palermo]))), Class::Geo);
        assert_eq!(classify(&Value::zset(z(&[3.0]))), Class::ZSet);
    }
}
