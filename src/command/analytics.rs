//! `BITLENS.*` extension commands: the analytics of [`crate::analytics`] with Redis-style
//! arguments, errors and replies (integers, arrays of integers, ratios as bulk strings with 4
//! decimals). Missing keys read as empty bitmaps; non-string keys give WRONGTYPE. Integer
//! arguments follow Redis' `string2ll`; a bad or out-of-range one gives
//! `ERR <name> is not an integer or out of range`.
//!
//! Sign-in keys (`sign:<uid>:YYYYMM`, bit = day − 1; days are 1-based):
//! - `BITLENS.SIGNINHIST pattern day` → `day + 1` integers: element `s` = number of string keys
//!   matching `pattern` whose run of set bits ending exactly at bit `day − 1` has length `s`.
//! - `BITLENS.SIGNINDAYS pattern days` → `days` integers: element `d − 1` = number of matching
//!   string keys with bit `d − 1` set (users signed in on day `d`), for every day in one pass.
//! - `BITLENS.DAYSHIST pattern days` → `days + 1` integers: element `n` = number of matching keys
//!   with exactly `n` of bits `0..days` set (days signed in that month).
//! - `BITLENS.SIGNED key day` → 1 when bit `day − 1` is set, else 0.
//! - `BITLENS.STREAK key day [CARRY | PREV prevkey prevdays]` → the run of set bits ending at
//!   bit `day − 1`; when it reaches day 1 it continues from the last day of the previous month's
//!   key: `CARRY` derives that key from a `YYYYMM` suffix (`sign:7:202401` → `sign:7:202312`,
//!   31 days), `PREV` names it and its number of days.
//! - `BITLENS.LONGESTSTREAK key [days]` → longest run of set bits in bits `0..days` (default: all).
//! - `BITLENS.DAYSSIGNED key [days]` → set bits in bits `0..days` (default: all).
//!
//! Daily bitmaps (`stats:active:YYYYMMDD`, bit = user id; key lists chronological):
//! - `BITLENS.STREAKHIST key1 … keyN` → N integers: element `k − 1` = users set in each of the
//!   last `k` keys and clear in key `N − k` (for `k = N`: set in all). Sums to BITCOUNT keyN.
//! - `BITLENS.DAU key1 … keyN` → N popcounts.
//! - `BITLENS.ROLLING window key1 … keyN` → N integers: users set in any of the `window` keys
//!   ending at each key (fewer at the start). `window` ≥ 1.
//! - `BITLENS.STICKINESS window key1 … keyN` → N bulk strings `"0.1234"`: DAU / ROLLING.
//! - `BITLENS.RETENTION lookback horizon key1 … keyN` → one array per cohort day `d` (key index
//!   `lookback` … `N − 1`): `[cohort size, returned on d+1, …, returned on d+horizon]`, where the
//!   cohort is the users set on `d` and on none of the `lookback` keys before; a day past keyN
//!   is a null.
//!
//! BITFIELD enums (`u<w> #N`: user N's value at bits `N·w .. N·w + w`):
//! - `BITLENS.ENUMDIST key u<w> [AMONG bitmap]` → `2^w` integers, element `v` = number of users
//!   with value `v`: over every field starting inside the string, or over the users set in
//!   `bitmap`. `w` in 1..=16.
//!
//! Crowd tags (one bitmap per tag):
//! - `BITLENS.TAGSIZE tag …` → popcounts.
//! - `BITLENS.TAGOVERLAP tag1 … tagM` → M arrays of M integers: users in both tags.
//! - `BITLENS.TAGREACH active tag …` → per tag, users also set in `active`.
//! - `BITLENS.TAGMEMBER uid tag …` → per tag, 1 when bit `uid` is set, else 0.
//!
//! A tag may be a bitmap or a Set of user ids (integers 0 … 2³² − 1; any other member is an
//! error naming it); `active` is a bitmap.
//!
//! Idempotency bitmaps (bit = message offset processed):
//! - `BITLENS.PROCESSED key [from to]` → set offsets in `from..=to` (default: all).
//! - `BITLENS.FIRSTUNPROCESSED key [from]` → lowest clear offset ≥ `from` (default 0).
//! - `BITLENS.GAPS key from to [LIMIT n]` → up to `n` (default 100, at most 100000) arrays
//!   `[first, last]`: the maximal runs of clear offsets inside `from..=to`, ascending.

use std::borrow::Cow;

use super::args::{is, parse_i64};
use super::{CommandSpec, Ctx};
use crate::analytics::windows::DayBitmaps;
use crate::analytics::{self, enums, offsets, signin, tags, AnalyticsError};
use crate::keyspace::{Keyspace, Value};
use crate::reply::Reply;

/// Largest bit offset Redis accepts (strings are at most 512 MiB).
const MAX_BIT: u64 = (1 << 32) - 1;
/// Largest histogram length parameter (`day`, `days`) and retention horizon / look-back.
const MAX_DAYS: u64 = 1 << 16;
/// Default and largest `LIMIT` of BITLENS.GAPS.
const GAPS_DEFAULT: u64 = 100;
const GAPS_MAX: u64 = 100_000;

/// Extension commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "bitlens.signinhist",
        arity: 3,
        handler: signinhist,
    },
    CommandSpec {
        name: "bitlens.signindays",
        arity: 3,
        handler: signindays,
    },
    CommandSpec {
        name: "bitlens.dayshist",
        arity: 3,
        handler: dayshist,
    },
    CommandSpec {
        name: "bitlens.signed",
        arity: 3,
        handler: signed,
    },
    CommandSpec {
        name: "bitlens.streak",
        arity: -3,
        handler: streak,
    },
    CommandSpec {
        name: "bitlens.longeststreak",
        arity: -2,
        handler: longeststreak,
    },
    CommandSpec {
        name: "bitlens.dayssigned",
        arity: -2,
        handler: dayssigned,
    },
    CommandSpec {
        name: "bitlens.streakhist",
        arity: -2,
        handler: streakhist,
    },
    CommandSpec {
        name: "bitlens.dau",
        arity: -2,
        handler: dau,
    },
    CommandSpec {
        name: "bitlens.rolling",
        arity: -3,
        handler: rolling,
    },
    CommandSpec {
        name: "bitlens.stickiness",
        arity: -3,
        handler: stickiness,
    },
    CommandSpec {
        name: "bitlens.retention",
        arity: -4,
        handler: retention,
    },
    CommandSpec {
        name: "bitlens.enumdist",
        arity: -3,
        handler: enumdist,
    },
    CommandSpec {
        name: "bitlens.tagsize",
        arity: -2,
        handler: tagsize,
    },
    CommandSpec {
        name: "bitlens.tagoverlap",
        arity: -2,
        handler: tagoverlap,
    },
    CommandSpec {
        name: "bitlens.tagreach",
        arity: -3,
        handler: tagreach,
    },
    CommandSpec {
        name: "bitlens.tagmember",
        arity: -3,
        handler: tagmember,
    },
    CommandSpec {
        name: "bitlens.processed",
        arity: -2,
        handler: processed,
    },
    CommandSpec {
        name: "bitlens.firstunprocessed",
        arity: -2,
        handler: firstunprocessed,
    },
    CommandSpec {
        name: "bitlens.gaps",
        arity: -4,
        handler: gaps,
    },
];

type R<T> = Result<T, Reply>;

/// An integer argument in `min..=max`, else `ERR <what> is not an integer or out of range`.
fn int_in(arg: &[u8], what: &str, min: u64, max: u64) -> R<u64> {
    match parse_i64(arg) {
        Some(v) if v >= 0 && (v as u64) >= min && (v as u64) <= max => Ok(v as u64),
        _ => Err(Reply::err(format!(
            "ERR {what} is not an integer or out of range"
        ))),
    }
}

fn wrong(e: AnalyticsError) -> Reply {
    match e {
        AnalyticsError::WrongType { .. } => Reply::wrong_type(),
    }
}

fn load<'a>(ks: &'a Keyspace, key: &[u8]) -> R<Cow<'a, [u8]>> {
    analytics::bitmap(ks, key).map_err(wrong)
}

/// The crowds under `keys`: bitmaps as they are, Sets as their sorted user ids.
fn load_crowds<'a>(ks: &'a Keyspace, keys: &[Vec<u8>]) -> R<Vec<tags::Crowd<'a>>> {
    keys.iter()
        .map(|k| match ks.get(k) {
            Some(Value::Set(set)) => {
                let mut ids = Vec::with_capacity(set.len());
                for m in set.members() {
                    match crate::num::parse_i64(&m) {
                        Some(v) if (0..=MAX_BIT as i64).contains(&v) => ids.push(v as u64),
                        _ => {
                            return Err(Reply::err(format!(
                                "ERR crowd set member {} is not a user id (an integer from 0 \
                                 to {MAX_BIT})",
                                crate::escape::quote(&m)
                            )))
                        }
                    }
                }
                ids.sort_unstable();
                Ok(tags::Crowd::Ids(ids))
            }
            _ => load(ks, k).map(tags::Crowd::Bitmap),
        })
        .collect()
}

/// Daily bitmaps for the multi-key questions (sparse keys stay sparse).
fn days<'a>(ks: &'a Keyspace, keys: &[Vec<u8>]) -> R<DayBitmaps<'a>> {
    DayBitmaps::load(ks, keys).map_err(wrong)
}

fn ints(v: impl IntoIterator<Item = u64>) -> Reply {
    Reply::Array(v.into_iter().map(|n| Reply::Integer(n as i64)).collect())
}

fn run(f: impl FnOnce() -> R<Reply>) -> Reply {
    f().unwrap_or_else(|e| e)
}

fn signinhist(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    run(|| {
        let day = int_in(&argv[2], "day", 1, MAX_DAYS)?;
        Ok(ints(signin::streak_histogram(ks, &argv[1], day)))
    })
}

fn signindays(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    run(|| {
        let days = int_in(&argv[2], "days", 1, MAX_DAYS)?;
        Ok(ints(signin::day_counts(ks, &argv[1], days)))
    })
}

fn dayshist(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    run(|| {
        let days = int_in(&argv[2], "days", 1, MAX_DAYS)?;
        Ok(ints(signin::days_histogram(ks, &argv[1], days)))
    })
}

fn signed(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    run(|| {
        let day = int_in(&argv[2], "day", 1, MAX_BIT + 1)?;
        let bits = load(ks, &argv[1])?;
        Ok(Reply::Integer(signin::signed_in(&bits, day) as i64))
    })
}

fn streak(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    run(|| {
        let day = int_in(&argv[2], "day", 1, MAX_BIT + 1)?;
        let bits = load(ks, &argv[1])?;
        let prev: Option<(Cow<[u8]>, u64)> = match &argv[3..] {
            [] => None,
            [opt] if is(opt, "carry") => match signin::previous_month_key(&argv[1]) {
                Some((k, days)) => Some((load(ks, &k)?, days)),
                None => None,
            },
            [opt, key, days] if is(opt, "prev") => {
                let days = int_in(days, "prevdays", 1, MAX_BIT + 1)?;
                Some((load(ks, key)?, days))
            }
            _ => return Err(Reply::syntax_error()),
        };
        let prev = prev.as_ref().map(|(b, d)| (&b[..], *d));
        Ok(Reply::Integer(
            signin::current_streak(&bits, day, prev) as i64
        ))
    })
}

/// Optional `[days]` argument at `argv[2]`; default: every bit of the key.
fn days_opt(argv: &[Vec<u8>]) -> R<u64> {
    match &argv[2..] {
        [] => Ok(MAX_BIT + 1),
        [d] => int_in(d, "days", 0, MAX_BIT + 1),
        _ => Err(Reply::syntax_error()),
    }
}

fn longeststreak(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    run(|| {
        let days = days_opt(argv)?;
        let bits = load(ks, &argv[1])?;
        Ok(Reply::Integer(signin::longest_streak(&bits, days) as i64))
    })
}

fn dayssigned(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    run(|| {
        let days = days_opt(argv)?;
        let bits = load(ks, &argv[1])?;
        Ok(Reply::Integer(signin::days_signed_in(&bits, days) as i64))
    })
}

fn streakhist(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    run(|| Ok(ints(days(ks, &argv[1..])?.streak_histogram())))
}

fn dau(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    run(|| Ok(ints(days(ks, &argv[1..])?.dau())))
}

fn rolling(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    run(|| {
        let w = int_in(&argv[1], "window", 1, MAX_DAYS)?;
        Ok(ints(days(ks, &argv[2..])?.rolling_actives(w as usize)))
    })
}

/// A ratio as Redis-style bulk text with 4 decimals.
pub fn ratio_reply(r: f64) -> Reply {
    Reply::bulk(format!("{r:.4}"))
}

fn stickiness(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    run(|| {
        let w = int_in(&argv[1], "window", 1, MAX_DAYS)?;
        Ok(Reply::Array(
            days(ks, &argv[2..])?
                .stickiness(w as usize)
                .into_iter()
                .map(ratio_reply)
                .collect(),
        ))
    })
}

fn retention(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    run(|| {
        let lookback = int_in(&argv[1], "lookback", 0, MAX_DAYS)? as usize;
        let horizon = int_in(&argv[2], "horizon", 0, MAX_DAYS)? as usize;
        let rows = days(ks, &argv[3..])?.retention(lookback, horizon);
        Ok(Reply::Array(
            rows.into_iter()
                .map(|row| {
                    let mut v = vec![Reply::Integer(row.size as i64)];
                    v.extend(row.returned.into_iter().map(|r| match r {
                        Some(n) => Reply::Integer(n as i64),
                        None => Reply::NullBulk,
                    }));
                    Reply::Array(v)
                })
                .collect(),
        ))
    })
}

fn enumdist(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    run(|| {
        let t = &argv[2];
        let width = match t.split_first() {
            Some((b'u' | b'U', digits)) => parse_i64(digits)
                .filter(|w| (1..=enums::MAX_WIDTH as i64).contains(w))
                .map(|w| w as u32),
            _ => None,
        }
        .ok_or_else(|| Reply::err("ERR enum type must be u1 .. u16"))?;
        let among = match &argv[3..] {
            [] => None,
            [opt, key] if is(opt, "among") => Some(key),
            _ => return Err(Reply::syntax_error()),
        };
        let fields = load(ks, &argv[1])?;
        let hist = match among {
            None => enums::distribution(&fields, width, None),
            Some(k) => enums::distribution_among(&fields, width, &load(ks, k)?),
        };
        Ok(ints(hist))
    })
}

fn tagsize(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    run(|| Ok(ints(tags::crowd_sizes(&load_crowds(ks, &argv[1..])?))))
}

fn tagoverlap(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    run(|| {
        let m = tags::crowd_overlap(&load_crowds(ks, &argv[1..])?);
        Ok(Reply::Array(m.into_iter().map(ints).collect()))
    })
}

fn tagreach(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    run(|| {
        let active = load(ks, &argv[1])?;
        Ok(ints(tags::crowd_reach(
            &active,
            &load_crowds(ks, &argv[2..])?,
        )))
    })
}

fn tagmember(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    run(|| {
        let uid = int_in(&argv[1], "uid", 0, MAX_BIT)?;
        let t = load_crowds(ks, &argv[2..])?;
        Ok(ints(
            tags::crowd_membership(uid, &t).into_iter().map(u64::from),
        ))
    })
}

fn processed(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    run(|| {
        let (from, to) = match &argv[2..] {
            [] => (0, u64::MAX),
            [f, t] => (
                int_in(f, "offset", 0, MAX_BIT)?,
                int_in(t, "offset", 0, MAX_BIT)?,
            ),
            _ => return Err(Reply::syntax_error()),
        };
        let bits = load(ks, &argv[1])?;
        Ok(Reply::Integer(offsets::processed(&bits, from, to) as i64))
    })
}

fn firstunprocessed(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    run(|| {
        let from = match &argv[2..] {
            [] => 0,
            [f] => int_in(f, "offset", 0, MAX_BIT)?,
            _ => return Err(Reply::syntax_error()),
        };
        let bits = load(ks, &argv[1])?;
        Ok(Reply::Integer(
            offsets::first_unprocessed(&bits, from) as i64
        ))
    })
}

fn gaps(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    run(|| {
        let from = int_in(&argv[2], "offset", 0, MAX_BIT)?;
        let to = int_in(&argv[3], "offset", 0, MAX_BIT)?;
        let limit = match &argv[4..] {
            [] => GAPS_DEFAULT,
            [opt, n] if is(opt, "limit") => int_in(n, "limit", 1, GAPS_MAX)?,
            _ => return Err(Reply::syntax_error()),
        };
        let bits = load(ks, &argv[1])?;
        let g = offsets::gaps(&bits, from, to, limit as usize);
        Ok(Reply::Array(
            g.ranges.into_iter().map(|(a, b)| ints([a, b])).collect(),
        ))
    })
}
