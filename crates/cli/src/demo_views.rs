//! The demo keys of the panel's seed views (sign-ins across months, crowds, consumer offsets),
//! added to [`crate::demo::demo_keyspace`]. Deterministic: `fastrand` with fixed seeds.
//!
//! Keys (database 0, no expiry):
//! - `sign:<uid>:202404`: the April sign-in bitmaps (bit = day − 1, 30 days) of the users of
//!   the May keys. Every user signed in on May 1 has a run of 1..=20 days ending on April 30,
//!   so current streaks cross the month boundary (`BITLENS.STREAK … CARRY`); about a third of
//!   the others signed in on scattered April days.
//! - `tag:<name>`: crowd tags over user ids `0..USERS`, with the overlaps of real crowds:
//!   residents of two buildings (`tag:building:7`, `tag:building:12`), a group-buy crowd drawn
//!   mostly from those buildings (`tag:group-buy`), VIPs drawn mostly from the daily-active
//!   loyal core (`tag:vip`), new users among the highest ids (`tag:new-user`) and a coupon crowd
//!   that favours group buyers (`tag:coupon:618`).
//! - `orders:<partition>:bitmap` for partitions 0 and 1: idempotency bitmaps of a message
//!   consumer (bit = offset processed), every offset below [`PARTITION_ENDS`] processed except
//!   the gaps listed in [`PARTITION_GAPS`].

use bitlens::keyspace::Keyspace;
use bitlens::string::RedisString;
use bitlens::Value;

use crate::demo::{persona, set_bit, SIGN_MONTH, USERS};

/// The month before [`SIGN_MONTH`], whose keys carry the streaks into May.
pub const PREV_SIGN_MONTH: &str = "202404";
/// Days in [`PREV_SIGN_MONTH`].
pub const PREV_MONTH_DAYS: u32 = 30;
/// The crowd tags, in the order the panel lists them.
pub const TAGS: [&str; 6] = [
    "tag:building:7",
    "tag:building:12",
    "tag:group-buy",
    "tag:vip",
    "tag:new-user",
    "tag:coupon:618",
];
/// One past the last offset written to `orders:<p>:bitmap`, per partition.
pub const PARTITION_ENDS: [u64; 2] = [120_000, 95_000];
/// The unprocessed offset ranges (inclusive) below each partition's end.
pub const PARTITION_GAPS: [&[(u64, u64)]; 2] = [
    &[(40_000, 40_011), (88_888, 88_888), (100_500, 100_999)],
    &[(12_345, 12_350), (70_001, 70_001)],
];

fn string(bytes: Vec<u8>) -> Value {
    Value::String(RedisString::from_bytes(bytes))
}

/// Adds the April sign-in keys (read from the May keys already in `ks`), the crowd tags and
/// the consumer-offset bitmaps to `ks`.
pub fn add(ks: &mut Keyspace) {
    let april = april_sign_ins(ks);
    for (uid, bits) in april {
        ks.set(
            format!("sign:{uid}:{PREV_SIGN_MONTH}").into_bytes(),
            string(bits),
        );
    }
    for (name, bits) in crowd_tags() {
        ks.set(name.as_bytes(), string(bits));
    }
    for (p, bits) in partitions().into_iter().enumerate() {
        ks.set(format!("orders:{p}:bitmap").into_bytes(), string(bits));
    }
}

/// `(uid, April bytes)` for the users of the May sign-in keys.
fn april_sign_ins(ks: &Keyspace) -> Vec<(u32, Vec<u8>)> {
    let mut rng = fastrand::Rng::with_seed(0x5167_0404);
    let suffix = format!(":{SIGN_MONTH}");
    let mut users: Vec<(u32, bool)> = ks
        .iter()
        .filter_map(|(k, e)| {
            let rest = k.strip_prefix(b"sign:")?.strip_suffix(suffix.as_bytes())?;
            let uid: u32 = std::str::from_utf8(rest).ok()?.parse().ok()?;
            let Value::String(s) = &e.value else {
                return None;
            };
            let first = s.as_bytes().first().is_some_and(|b| b & 0x80 != 0);
            Some((uid, first))
        })
        .collect();
    users.sort_unstable();
    let mut out = Vec::new();
    for (uid, signed_may_1) in users {
        let mut bits = Vec::new();
        if signed_may_1 {
            let run = rng.u32(1..=20);
            for day in PREV_MONTH_DAYS - run + 1..=PREV_MONTH_DAYS {
                set_bit(&mut bits, day - 1);
            }
            // The day before the run is a miss; earlier days are scattered.
            for day in 1..PREV_MONTH_DAYS - run {
                if rng.u32(0..100) < 40 {
                    set_bit(&mut bits, day - 1);
                }
            }
        } else if rng.u32(0..3) == 0 {
            for day in 1..=PREV_MONTH_DAYS {
                if rng.u32(0..100) < 25 {
                    set_bit(&mut bits, day - 1);
                }
            }
        }
        if !bits.is_empty() {
            out.push((uid, bits));
        }
    }
    out
}

/// The crowd tag bitmaps, in [`TAGS`] order.
fn crowd_tags() -> Vec<(&'static str, Vec<u8>)> {
    let mut rng = fastrand::Rng::with_seed(0x7a95_0001);
    let mut maps: Vec<Vec<u8>> = TAGS.iter().map(|_| Vec::new()).collect();
    for uid in 0..USERS {
        let b7 = (70_000..72_000).contains(&uid) && rng.u32(0..100) < 90;
        let b12 = (120_000..123_000).contains(&uid) && rng.u32(0..100) < 80;
        let group = if b7 {
            rng.u32(0..100) < 45
        } else if b12 {
            rng.u32(0..100) < 20
        } else {
            rng.u32(0..1000) < 4
        };
        let vip = match persona(uid) {
            0 => rng.u32(0..100) < 30,
            1 => rng.u32(0..100) < 5,
            _ => rng.u32(0..1000) < 2,
        };
        let new_user = uid >= USERS - 50_000 && rng.u32(0..100) < 70 && !vip;
        let coupon = if group {
            rng.u32(0..100) < 35
        } else {
            rng.u32(0..100) < 8
        };
        for (i, member) in [b7, b12, group, vip, new_user, coupon]
            .into_iter()
            .enumerate()
        {
            if member {
                set_bit(&mut maps[i], uid);
            }
        }
    }
    TAGS.into_iter().zip(maps).collect()
}

/// The `orders:<p>:bitmap` bytes per partition.
fn partitions() -> Vec<Vec<u8>> {
    PARTITION_ENDS
        .iter()
        .zip(PARTITION_GAPS)
        .map(|(&end, gaps)| {
            let mut bits = vec![0xffu8; end.div_ceil(8) as usize];
            // Offsets at and past `end` in the last byte were not written.
            for offset in end..bits.len() as u64 * 8 {
                bits[(offset / 8) as usize] &= !(0x80 >> (offset % 8));
            }
            for &(from, to) in gaps {
                for offset in from..=to {
                    bits[(offset / 8) as usize] &= !(0x80 >> (offset % 8));
                }
            }
            bits
        })
        .collect()
}
