//! The 52-bit interleaved geohash Redis stores as the score of a GEO member.
//!
//! Longitude (−180..180) and latitude (−85.05112878..85.05112878, the Web Mercator limit) are
//! each scaled to a 26-bit fixed-point offset inside their range; the two offsets are
//! interleaved bit by bit, latitude in the even bits and longitude in the odd bits. A hash of
//! `step` bits per axis names a cell of 360/2^step by 170.1/2^step degrees; a member's position
//! is the centre of its step-26 cell. GEOHASH re-encodes that centre with the standard
//! latitude range ±90 and prints it in base 32.

/// Smallest longitude accepted (degrees).
pub const LON_MIN: f64 = -180.0;
/// Largest longitude accepted (degrees).
pub const LON_MAX: f64 = 180.0;
/// Smallest latitude accepted (degrees), the Web Mercator limit.
pub const LAT_MIN: f64 = -85.05112878;
/// Largest latitude accepted (degrees), the Web Mercator limit.
pub const LAT_MAX: f64 = 85.05112878;
/// Bits per axis of a stored score.
pub const STEP_MAX: u8 = 26;

/// A geohash of `step` bits per axis (`bits` holds 2·step interleaved bits). `step == 0`
/// together with `bits == 0` marks an empty (excluded) neighbour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hash {
    /// The interleaved bits (latitude in the odd, longitude in the even positions).
    pub bits: u64,
    /// Bits per coordinate (precision), 1..=26.
    pub step: u8,
}

impl Hash {
    /// The excluded-cell marker.
    pub const ZERO: Hash = Hash { bits: 0, step: 0 };

    /// True for the excluded-cell marker.
    pub fn is_zero(&self) -> bool {
        self.bits == 0 && self.step == 0
    }

    /// The half-open score range `[min, max)` of the step-26 hashes inside this cell.
    pub fn score_range(&self) -> (u64, u64) {
        let shift = 52u32.wrapping_sub(self.step as u32 * 2);
        (
            self.bits.wrapping_shl(shift),
            self.bits.wrapping_add(1).wrapping_shl(shift),
        )
    }
}

/// A cell in degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Area {
    /// Western edge, degrees.
    pub lon_min: f64,
    /// Eastern edge, degrees.
    pub lon_max: f64,
    /// Southern edge, degrees.
    pub lat_min: f64,
    /// Northern edge, degrees.
    pub lat_max: f64,
}

/// Spreads the low 32 bits of `v` to the even bit positions.
fn spread(v: u32) -> u64 {
    let mut x = v as u64;
    x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF;
    x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x << 2)) & 0x3333_3333_3333_3333;
    x = (x | (x << 1)) & 0x5555_5555_5555_5555;
    x
}

/// Gathers the even bit positions of `x` into a 32-bit value.
fn gather(x: u64) -> u32 {
    let mut x = x & 0x5555_5555_5555_5555;
    x = (x | (x >> 1)) & 0x3333_3333_3333_3333;
    x = (x | (x >> 2)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x >> 4)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x >> 8)) & 0x0000_FFFF_0000_FFFF;
    x = (x | (x >> 16)) & 0x0000_0000_FFFF_FFFF;
    x as u32
}

/// Interleaves latitude bits (even positions) with longitude bits (odd positions).
pub fn interleave(lat: u32, lon: u32) -> u64 {
    spread(lat) | (spread(lon) << 1)
}

/// Splits an interleaved hash into (latitude bits, longitude bits).
pub fn deinterleave(bits: u64) -> (u32, u32) {
    (gather(bits), gather(bits >> 1))
}

/// Encodes a point at `step` bits per axis, with latitude range `±lat_limit`. `None` when the
/// point lies outside lon ±180 / lat ±85.05112878 or outside the latitude range.
/// A coordinate on the upper edge of its range encodes to offset 2^step (one bit past the
/// hash), as Redis does.
pub fn encode_step(lon: f64, lat: f64, step: u8, lat_limit: f64) -> Option<Hash> {
    if !(LON_MIN..=LON_MAX).contains(&lon) || !(LAT_MIN..=LAT_MAX).contains(&lat) {
        return None;
    }
    if !(-lat_limit..=lat_limit).contains(&lat) || step == 0 || step > 32 {
        return None;
    }
    let scale = (1u64 << step) as f64;
    let lat_off = (lat - -lat_limit) / (lat_limit - -lat_limit) * scale;
    let lon_off = (lon - LON_MIN) / (LON_MAX - LON_MIN) * scale;
    Some(Hash {
        bits: interleave(lat_off as u32, lon_off as u32),
        step,
    })
}

/// The cell of `hash` in degrees, with latitude range `±lat_limit`.
pub fn area(hash: Hash, lat_limit: f64) -> Area {
    let (ilat, ilon) = deinterleave(hash.bits);
    let scale = (1u64 << hash.step) as f64;
    let lat_span = lat_limit - -lat_limit;
    let lon_span = LON_MAX - LON_MIN;
    Area {
        lat_min: -lat_limit + (ilat as f64 / scale) * lat_span,
        lat_max: -lat_limit + (ilat.wrapping_add(1) as f64 / scale) * lat_span,
        lon_min: LON_MIN + (ilon as f64 / scale) * lon_span,
        lon_max: LON_MIN + (ilon.wrapping_add(1) as f64 / scale) * lon_span,
    }
}

/// The centre of a cell, clamped to the valid longitude/latitude ranges.
pub fn centre(a: &Area) -> (f64, f64) {
    let lon = ((a.lon_min + a.lon_max) / 2.0).clamp(LON_MIN, LON_MAX);
    let lat = ((a.lat_min + a.lat_max) / 2.0).clamp(LAT_MIN, LAT_MAX);
    (lon, lat)
}

/// The 52-bit score GEOADD stores for (lon, lat) in degrees; `None` outside lon ±180 /
/// lat ±85.05112878 (GEOADD's "invalid longitude,latitude pair").
pub fn encode(lon: f64, lat: f64) -> Option<u64> {
    encode_step(lon, lat, STEP_MAX, LAT_MAX).map(|h| h.bits)
}

/// The position (lon, lat) in degrees that GEOPOS shows for a stored score: the centre of its
/// step-26 cell.
pub fn decode(score: u64) -> (f64, f64) {
    centre(&area(
        Hash {
            bits: score,
            step: STEP_MAX,
        },
        LAT_MAX,
    ))
}

/// Truncates a double to a signed 64-bit integer the way x86-64 does (`cvttsd2si`): values
/// out of range and NaN give `i64::MIN`. Redis' WITHHASH shows scores converted this way.
pub fn score_i64(x: f64) -> i64 {
    if !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&x) {
        i64::MIN
    } else {
        x as i64
    }
}

/// Converts a sorted-set score to geohash bits as Redis on x86-64 does: truncation toward
/// zero, negative scores wrap (−1 → all ones), scores ≥ 2^64 give 0. Scores GEOADD wrote are
/// integers below 2^53 and convert exactly.
pub fn score_bits(score: f64) -> u64 {
    const TWO63: f64 = 9_223_372_036_854_775_808.0;
    if score >= TWO63 {
        (score_i64(score - TWO63) as u64) ^ (1 << 63)
    } else {
        score_i64(score) as u64
    }
}

/// Base-32 alphabet of geohash strings.
const ALPHABET: &[u8; 32] = b"0123456789bcdefghjkmnpqrstuvwxyz";

/// The 11-character GEOHASH string of a stored score: the cell centre re-encoded with the
/// standard ±90° latitude range; the 11th character is always `0` (52 bits only).
pub fn geohash_string(score: u64) -> [u8; 11] {
    let (lon, lat) = decode(score);
    let bits = encode_step(lon, lat, STEP_MAX, 90.0).map_or(0, |h| h.bits);
    let mut out = [b'0'; 11];
    for (i, c) in out.iter_mut().enumerate().take(10) {
        let idx = (bits >> (52 - (i + 1) * 5)) & 0x1f;
        *c = ALPHABET[idx as usize];
    }
    out
}

/// Moves a hash one cell east (`d > 0`) or west (`d < 0`), wrapping around the antimeridian.
fn move_x(h: &mut Hash, d: i8) {
    if d == 0 {
        return;
    }
    let width = 64 - h.step as u32 * 2;
    let x = h.bits & 0xaaaa_aaaa_aaaa_aaaa;
    let y = h.bits & 0x5555_5555_5555_5555;
    let zz = 0x5555_5555_5555_5555u64 >> width;
    let x = if d > 0 {
        x.wrapping_add(zz + 1)
    } else {
        (x | zz).wrapping_sub(zz + 1)
    };
    h.bits = (x & (0xaaaa_aaaa_aaaa_aaaa >> width)) | y;
}

/// Moves a hash one cell north (`d > 0`) or south (`d < 0`), wrapping at the poles.
fn move_y(h: &mut Hash, d: i8) {
    if d == 0 {
        return;
    }
    let width = 64 - h.step as u32 * 2;
    let x = h.bits & 0xaaaa_aaaa_aaaa_aaaa;
    let y = h.bits & 0x5555_5555_5555_5555;
    let zz = 0xaaaa_aaaa_aaaa_aaaau64 >> width;
    let y = if d > 0 {
        y.wrapping_add(zz + 1)
    } else {
        (y | zz).wrapping_sub(zz + 1)
    };
    h.bits = x | (y & (0x5555_5555_5555_5555 >> width));
}

/// The cell `dx` columns east and `dy` rows north of `h` (each −1, 0 or 1).
pub fn neighbour(h: Hash, dx: i8, dy: i8) -> Hash {
    let mut n = h;
    move_x(&mut n, dx);
    move_y(&mut n, dy);
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleave_roundtrip() {
        let b = interleave(0x3ff_ffff, 0);
        assert_eq!(b, 0x0005_5555_5555_5555);
        assert_eq!(deinterleave(interleave(12345, 678910)), (12345, 678910));
    }

    #[test]
    fn known_scores() {
        // GEOADD k 13.361389 38.115556 Palermo → ZSCORE 3479099956230698 (Redis docs example).
        assert_eq!(encode(13.361389, 38.115556), Some(3479099956230698));
        assert_eq!(encode(15.087269, 37.502669), Some(3479447370796909));
        assert_eq!(encode(180.1, 0.0), None);
        assert_eq!(encode(0.0, 85.06), None);
    }

    #[test]
    fn decode_is_cell_centre() {
        let (lon, lat) = decode(encode(13.361389, 38.115556).unwrap());
        assert_eq!(format!("{lon:.17}"), "13.36138933897018433");
        assert_eq!(format!("{lat:.17}"), "38.11555639549629859");
    }

    #[test]
    fn odd_scores_convert_like_x86() {
        assert_eq!(score_bits(-1.0), u64::MAX);
        assert_eq!(score_bits(1e20), 0);
        assert_eq!(score_bits(1.5), 1);
        assert_eq!(score_bits(4503599627370496.0), 1 << 52);
        assert_eq!(score_i64(1e20), i64::MIN);
    }

    #[test]
    fn geohash_strings() {
        let s = geohash_string(encode(13.361389, 38.115556).unwrap());
        assert_eq!(&s, b"sqc8b49rny0");
        let s = geohash_string(encode(15.087269, 37.502669).unwrap());
        assert_eq!(&s, b"sqdtr74hyu0");
    }
}
