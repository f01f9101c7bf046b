//! The built-in demo data set: what `bitlens serve` exports when no Redis is given, so the panel
//! works with no server at all. Deterministic: fastrand's generator with fixed seeds, no
//! clock, no floating-point functions beyond + − × ÷ (identical on every platform, wasm too).
//!
//! Keys (all in database 0, no expiry):
//! - `stats:active:YYYYMMDD`, 2024-05-01 .. 2024-05-30: daily-active bitmaps over user ids
//!   `0..1_000_000` (bit offset = user id, as SETBIT writes). Personas give ~12–15 % density: a
//!   loyal core active almost daily, regulars who drop on weekends, casuals who come more on
//!   weekends, dormant users; 2024-05-20 (a shopping festival) brings extra casual visits.
//! - `sign:<uid>:202405` for uids `1000..11000`: monthly sign-in bitmaps, bit = day − 1, built
//!   as a streaky Markov chain per user (signing in yesterday makes today likely). Users who never
//!   signed in have no key, as in Redis.
//! - `uv:page:index:YYYYMMDD` and `uv:shop:<id>:YYYYMMDD` (ids 1001..=1012): HyperLogLogs of the
//!   day's visitors (`u<uid>` for users, `a<n>` for anonymous visitors), built with the same
//!   PFADD as Redis, so their registers and encodings are what Redis would hold.
//! - `stats:level:YYYYMMDD` for the last [`LEVEL_DAYS`] days: each active user's level, 0..15,
//!   as `BITFIELD key SET u4 #<uid> <level>` writes it (4 bits per user, MSB first); users not
//!   active that day keep 0. Levels follow a skewed distribution, higher for the loyal core.
//! - `shop:geo:<type>` for types food, cafe, retail: GEO sets (sorted sets of 52-bit geohash
//!   scores) of shops clustered around Shanghai and Beijing, members `<type>:<sh|bj>:<nnnn>`,
//!   plus one member per type whose name needs HTML escaping.

use bitlens::keyspace::Keyspace;
use bitlens::string::RedisString;
use bitlens::zset::ZSet;
use bitlens::Value;

/// Number of user ids in the activity bitmaps (bit offsets `0..USERS`).
pub const USERS: u32 = 1_000_000;
/// Number of days (2024-05-01 onwards).
pub const DAYS: u32 = 30;
/// How many of the last demo days have a `stats:level:YYYYMMDD` key.
pub const LEVEL_DAYS: usize = 7;
/// The month of the sign-in bitmaps (`sign:<uid>:202405`).
pub const SIGN_MONTH: &str = "202405";
/// First and one-past-last user id with a sign-in bitmap.
pub const SIGN_UIDS: (u32, u32) = (1000, 11_000);
/// Shop ids of the `uv:shop:<id>:YYYYMMDD` HyperLogLogs.
pub const SHOP_IDS: (u32, u32) = (1001, 1012);
/// GEO set types: `shop:geo:<type>`, with the number of shops of each.
pub const GEO_TYPES: [(&str, u32); 3] = [("food", 1500), ("cafe", 900), ("retail", 1200)];
/// The two cities: short code, name, centre longitude and latitude (degrees), cos(latitude).
pub const CITIES: [(&str, &str, f64, f64, f64); 2] = [
    ("sh", "Shanghai", 121.4737, 31.2304, 0.855_089_3),
    ("bj", "Beijing", 116.4074, 39.9042, 0.767_118_1),
];

/// The demo dates as `YYYYMMDD`, 2024-05-01 .. 2024-05-30.
pub fn dates() -> Vec<String> {
    (1..=DAYS).map(|d| format!("202405{d:02}")).collect()
}

/// fastrand's seeded generator (wyrand: the same stream on every platform, wasm too) with the
/// draws the demo needs.
struct Rng(fastrand::Rng);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(fastrand::Rng::with_seed(seed))
    }

    fn next_u64(&mut self) -> u64 {
        self.0.u64(..)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        self.0.f64()
    }

    /// Uniform in `0..n`.
    fn below(&mut self, n: u32) -> u32 {
        self.0.u32(..n.max(1))
    }

    /// Approximately standard normal (Irwin–Hall sum of 12 uniforms − 6).
    fn normalish(&mut self) -> f64 {
        (0..12).map(|_| self.unit()).sum::<f64>() - 6.0
    }
}

/// Sets bit `offset` as SETBIT does (bit 0 = most significant bit of byte 0), growing the
/// string as needed.
pub(crate) fn set_bit(bytes: &mut Vec<u8>, offset: u32) {
    let i = (offset >> 3) as usize;
    if bytes.len() <= i {
        bytes.resize(i + 1, 0);
    }
    bytes[i] |= 0x80 >> (offset & 7);
}

/// Probability thresholds (out of 2^32) per persona, for a weekday and a weekend day.
fn persona_thresholds(persona: usize, weekend: bool, festival: bool) -> u64 {
    // (weekday, weekend) probabilities per persona: loyal, regular, casual, dormant.
    const P: [(f64, f64); 4] = [(0.92, 0.82), (0.45, 0.20), (0.06, 0.09), (0.004, 0.004)];
    let (wd, we) = P[persona];
    let mut p = if weekend { we } else { wd };
    if festival && persona >= 2 {
        p *= 2.0;
    }
    (p * 4_294_967_296.0) as u64
}

/// Persona of a user: 6 % loyal, 14 % regular, 50 % casual, 30 % dormant.
pub(crate) fn persona(uid: u32) -> usize {
    let h = Rng::new(0x5eed_0001 ^ (u64::from(uid) << 20)).next_u64() % 100;
    match h {
        0..=5 => 0,
        6..=19 => 1,
        20..=69 => 2,
        _ => 3,
    }
}

/// The daily-active bitmaps, one per day.
fn active_bitmaps() -> Vec<Vec<u8>> {
    let mut maps: Vec<Vec<u8>> = (0..DAYS).map(|_| Vec::new()).collect();
    // 2024-05-01 is a Wednesday (Monday = 0).
    let thresholds: Vec<[u64; 4]> = (0..DAYS)
        .map(|d| {
            let weekday = (2 + d) % 7;
            let weekend = weekday >= 5;
            let festival = d + 1 == 20;
            [0, 1, 2, 3].map(|p| persona_thresholds(p, weekend, festival))
        })
        .collect();
    let mut rng = Rng::new(0xac71_5e00);
    for uid in 0..USERS {
        let p = persona(uid);
        for (d, t) in thresholds.iter().enumerate() {
            if rng.next_u64() >> 32 < t[p] {
                set_bit(&mut maps[d], uid);
            }
        }
    }
    maps
}

/// The level field strings (`u4 #uid`) of the last [`LEVEL_DAYS`] days: `(day index, bytes)`.
fn level_fields(active: &[Vec<u8>]) -> Vec<(usize, Vec<u8>)> {
    let first = active.len().saturating_sub(LEVEL_DAYS);
    let mut base = Rng::new(0x1e7e_1500);
    // A user's level: 1 + a geometric number of extra levels (mean about 2), more for the
    // loyal core, one more from the day the user levels up; capped at 15.
    let levels: Vec<(u8, u8)> = (0..USERS)
        .map(|uid| {
            let mut level = 1u8;
            while level < 12 && base.below(100) < 55 {
                level += 1;
            }
            if persona(uid) == 0 {
                level = (level + 3).min(14);
            }
            (level, base.below(LEVEL_DAYS as u32 * 3) as u8)
        })
        .collect();
    (first..active.len())
        .map(|d| {
            let mut field = Vec::new();
            for uid in 0..USERS {
                if !is_set(&active[d], uid) {
                    continue;
                }
                let (level, up_day) = levels[uid as usize];
                let level = (level + u8::from((d - first) as u8 >= up_day)).min(15);
                let byte = (uid / 2) as usize;
                if field.len() <= byte {
                    field.resize(byte + 1, 0);
                }
                field[byte] |= if uid % 2 == 0 { level << 4 } else { level };
            }
            (d, field)
        })
        .collect()
}

/// Whether user `uid` was active on day index `d` (0-based).
fn is_set(bitmap: &[u8], uid: u32) -> bool {
    bitmap
        .get((uid >> 3) as usize)
        .is_some_and(|b| b & (0x80 >> (uid & 7)) != 0)
}

/// Sign-in bitmaps: `(uid, bytes)` for users with at least one sign-in.
fn sign_bitmaps() -> Vec<(u32, Vec<u8>)> {
    let mut rng = Rng::new(0x5167_0000);
    let mut out = Vec::new();
    for uid in SIGN_UIDS.0..SIGN_UIDS.1 {
        let habit = match rng.below(10) {
            0 | 1 => 0.95,
            2..=4 => 0.8,
            5..=7 => 0.55,
            _ => 0.3,
        };
        let mut bits = Vec::new();
        let mut yesterday = false;
        for day in 1..=DAYS {
            let p = if yesterday {
                habit
            } else if day == 1 {
                habit * 0.7
            } else {
                habit * 0.45
            };
            yesterday = rng.unit() < p;
            if yesterday {
                set_bit(&mut bits, day - 1);
            }
        }
        if !bits.is_empty() {
            out.push((uid, bits));
        }
    }
    out
}

/// Appends the decimal digits of `n` after `prefix` into `buf`.
fn member(buf: &mut Vec<u8>, prefix: u8, n: u32) {
    buf.clear();
    buf.push(prefix);
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    let mut n = n;
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[i..]);
}

/// Adds members to an HLL string as PFADD does, in batches.
struct HllBuilder {
    hll: Vec<u8>,
    arena: Vec<Vec<u8>>,
    used: usize,
}

impl HllBuilder {
    fn new() -> Self {
        HllBuilder {
            hll: Vec::new(),
            arena: (0..1024).map(|_| Vec::with_capacity(12)).collect(),
            used: 0,
        }
    }

    fn add(&mut self, prefix: u8, n: u32) {
        member(&mut self.arena[self.used], prefix, n);
        self.used += 1;
        if self.used == self.arena.len() {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.used > 0 {
            let items: Vec<&[u8]> = self.arena[..self.used]
                .iter()
                .map(|m| m.as_slice())
                .collect();
            hll_add(&mut self.hll, &items);
            self.used = 0;
        }
    }

    fn finish(mut self) -> Vec<u8> {
        self.flush();
        self.hll
    }
}

/// PFADD into an HLL string (empty vector = new key).
fn hll_add(hll: &mut Vec<u8>, items: &[&[u8]]) {
    // The demo builds only valid HLL strings, so PFADD cannot fail here.
    let _ = bitlens::hll::pfadd(hll, items);
}

/// The 52-bit geohash score GEOADD stores for a point, or `None` outside GEO's range.
fn geo_score(lon: f64, lat: f64) -> Option<f64> {
    bitlens::geo::encode(lon, lat).map(|s| s as f64)
}

/// The HLLs: `(key, hll string)`.
fn hlls(active: &[Vec<u8>]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let dates = dates();
    let mut rng = Rng::new(0x0011_1100);
    for (d, date) in dates.iter().enumerate() {
        // Index page: about 70 % of the day's active users, plus anonymous visitors drawn from
        // a pool of 300,000 (so the same anonymous visitor comes back on other days).
        let mut page = HllBuilder::new();
        let bitmap = &active[d];
        for (i, byte) in bitmap.iter().enumerate() {
            if *byte == 0 {
                continue;
            }
            for bit in 0..8 {
                if byte & (0x80 >> bit) != 0 && rng.below(10) < 7 {
                    page.add(b'u', (i as u32) * 8 + bit);
                }
            }
        }
        let anon = 15_000 + rng.below(10_000);
        for _ in 0..anon {
            page.add(b'a', rng.below(300_000));
        }
        let page = page.finish();
        if !page.is_empty() {
            out.push((format!("uv:page:index:{date}"), page));
        }
        // Shops: popularity from 40 to ~4,000 visitors a day, weekends busier; visitors are
        // active users of the day.
        let weekend = (2 + d as u32) % 7 >= 5;
        for (s, id) in (SHOP_IDS.0..=SHOP_IDS.1).enumerate() {
            let base = 40u32 << (s % 7);
            let n = base + rng.below(base / 2 + 1) + if weekend { base / 2 } else { 0 };
            let mut shop = HllBuilder::new();
            let mut added = 0;
            let mut tries = 0;
            while added < n && tries < n * 40 {
                tries += 1;
                let uid = rng.below(USERS);
                if is_set(bitmap, uid) {
                    shop.add(b'u', uid);
                    added += 1;
                }
            }
            let shop = shop.finish();
            if !shop.is_empty() {
                out.push((format!("uv:shop:{id}:{date}"), shop));
            }
        }
    }
    out
}

/// The GEO sets: `(key, zset)`.
fn geo_sets() -> Vec<(String, ZSet)> {
    let mut rng = Rng::new(0x0006_e000);
    let mut out = Vec::new();
    for (kind, count) in GEO_TYPES {
        let mut pairs = Vec::new();
        for n in 0..count {
            // 60 % Shanghai, 40 % Beijing; 30 % in a dense centre (σ ≈ 1.5 km), the rest
            // spread over the city (σ ≈ 7 km).
            let (code, _, lon0, lat0, coslat) = CITIES[usize::from(rng.below(10) >= 6)];
            let sigma_km = if rng.below(10) < 3 { 1.5 } else { 7.0 };
            let dy = rng.normalish() * sigma_km;
            let dx = rng.normalish() * sigma_km;
            let lat = lat0 + dy / 111.2;
            let lon = lon0 + dx / (111.2 * coslat);
            if let Some(score) = geo_score(lon, lat) {
                pairs.push((format!("{kind}:{code}:{n:04}").into_bytes(), score));
            }
        }
        // A member whose name must be escaped by any page that shows it.
        if let Some(score) = geo_score(121.4751, 31.2286) {
            pairs.push((
                format!("{kind}:sh:\"Tom & Jerry's\" <b>&amp;</b>").into_bytes(),
                score,
            ));
        }
        if !pairs.is_empty() {
            out.push((format!("shop:geo:{kind}"), ZSet::from_pairs(pairs)));
        }
    }
    out
}

/// Generates the whole demo keyspace (database 0). Takes a fraction of a second in a release
/// build; the result is identical on every run and platform.
pub fn demo_keyspace() -> Keyspace {
    let mut ks = Keyspace::new();
    let active = active_bitmaps();
    for (key, hll) in hlls(&active) {
        ks.set(
            key.into_bytes(),
            Value::String(RedisString::from_bytes(hll)),
        );
    }
    let dates = dates();
    for (d, field) in level_fields(&active) {
        ks.set(
            format!("stats:level:{}", dates[d]).into_bytes(),
            Value::String(RedisString::from_bytes(field)),
        );
    }
    for (date, bitmap) in dates.iter().zip(active) {
        ks.set(
            format!("stats:active:{date}").into_bytes(),
            Value::String(RedisString::from_bytes(bitmap)),
        );
    }
    for (uid, bits) in sign_bitmaps() {
        ks.set(
            format!("sign:{uid}:{SIGN_MONTH}").into_bytes(),
            Value::String(RedisString::from_bytes(bits)),
        );
    }
    for (key, zset) in geo_sets() {
        ks.set(key.into_bytes(), Value::zset(zset));
    }
    crate::demo_views::add(&mut ks);
    ks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn popcount(b: &[u8]) -> u64 {
        b.iter().map(|x| u64::from(x.count_ones())).sum()
    }

    fn string(ks: &Keyspace, key: &str) -> Vec<u8> {
        match ks.get(key.as_bytes()) {
            Some(Value::String(s)) => s.as_bytes().into_owned(),
            other => panic!("{key}: {other:?}"),
        }
    }

    #[test]
    fn activity_has_realistic_density_and_rhythm() {
        let maps = active_bitmaps();
        assert_eq!(maps.len(), DAYS as usize);
        let counts: Vec<u64> = maps.iter().map(|m| popcount(m)).collect();
        for (d, c) in counts.iter().enumerate() {
            let density = *c as f64 / f64::from(USERS);
            assert!((0.10..=0.20).contains(&density), "day {d}: {density}");
            // Bitmaps are as long as SETBIT would make them: no trailing zero byte.
            assert_ne!(*maps[d].last().unwrap(), 0);
        }
        // Weekdays (Wed 1 May, Thu 2 May) above the weekend (Sat 4, Sun 5 May).
        assert!(counts[0].min(counts[1]) > counts[3].max(counts[4]));
        // The loyal core: users active on all 30 days exist (≈ 6 % × 0.9^22 × 0.8^8).
        let all_days = (0..USERS)
            .filter(|&u| maps.iter().all(|m| is_set(m, u)))
            .count();
        assert!(all_days > 1_000, "{all_days}");
    }

    #[test]
    fn sign_ins_have_streaks_and_fit_the_month() {
        let signs = sign_bitmaps();
        assert!(signs.len() > 9_000);
        let mut longest = 0;
        for (_, bits) in &signs {
            assert!(bits.len() <= 4);
            assert_ne!(*bits.last().unwrap(), 0);
            let mut run = 0;
            for day in 0..DAYS {
                if is_set(bits, day) {
                    run += 1;
                    longest = longest.max(run);
                } else {
                    run = 0;
                }
            }
        }
        assert_eq!(longest, DAYS);
    }

    #[test]
    fn deterministic() {
        assert_eq!(sign_bitmaps(), sign_bitmaps());
        assert_eq!(geo_sets(), geo_sets());
        assert_eq!(active_bitmaps()[..3], active_bitmaps()[..3]);
    }

    fn count_suffix(ks: &Keyspace, suffix: &str) -> usize {
        ks.iter()
            .filter(|(k, _)| k.starts_with(b"sign:") && k.ends_with(suffix.as_bytes()))
            .count()
    }

    #[test]
    fn every_family_is_present() {
        let ks = demo_keyspace();
        let count = |prefix: &str| {
            ks.iter()
                .filter(|(k, _)| k.starts_with(prefix.as_bytes()))
                .count()
        };
        assert_eq!(count("stats:active:"), 30);
        assert_eq!(count("stats:level:"), LEVEL_DAYS);
        // Every user active on the last day has a level in 1..=15 (BITFIELD GET u4 #uid), and
        // every user not active has none.
        let active = string(&ks, "stats:active:20240530");
        let level = string(&ks, "stats:level:20240530");
        for uid in (0..USERS).step_by(997) {
            let l =
                level.get((uid / 2) as usize).map_or(
                    0,
                    |b| {
                        if uid % 2 == 0 {
                            b >> 4
                        } else {
                            b & 15
                        }
                    },
                );
            assert_eq!(l > 0, is_set(&active, uid), "uid {uid} level {l}");
        }
        assert_eq!(count("uv:page:index:"), 30);
        assert_eq!(count("uv:shop:"), 30 * 12);
        assert_eq!(
            count("sign:") - count_suffix(&ks, crate::demo_views::PREV_SIGN_MONTH),
            sign_bitmaps().len()
        );
        assert_eq!(count("shop:geo:"), 3);
        let Some(Value::ZSet(food)) = ks.get(b"shop:geo:food") else {
            panic!("no shop:geo:food")
        };
        // Every generated point is in GEO range, plus the one escaping-test member.
        assert_eq!(food.len(), 1501);
        // HLL strings start with Redis' HYLL magic; a busy day's page HLL is dense (byte 4 = 0).
        let page = string(&ks, "uv:page:index:20240501");
        assert_eq!(&page[..4], b"HYLL");
        assert_eq!(page[4], 0);
        let small = string(&ks, "uv:shop:1001:20240501");
        assert_eq!(&small[..4], b"HYLL");
        assert_eq!(small[4], 1, "a small shop's HLL stays sparse");
        assert_eq!(string(&ks, "stats:active:20240501"), active_bitmaps()[0]);
    }

    #[test]
    fn member_formats_decimal() {
        let mut b = Vec::new();
        member(&mut b, b'u', 0);
        assert_eq!(b, b"u0");
        member(&mut b, b'a', 4_294_967_295);
        assert_eq!(b, b"a4294967295");
    }
}
