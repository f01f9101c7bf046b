//! GEO and sorted-set read commands, with the profile's argument rules, error texts and RESP2
//! reply shapes: GEOSEARCH, GEOSEARCHSTORE, GEORADIUS_RO, GEORADIUSBYMEMBER_RO, GEOPOS,
//! GEODIST, GEOHASH, ZSCORE, ZCARD, ZRANGE.
//!
//! Search replies list, per member: the name, then (when asked) the distance (4 decimals in
//! the requested unit, [`Profile::format_dist`]), the hash (integer score), and the coordinates
//! ([`Profile::format_coord`]), always in that order. The missing-member and missing-shape
//! errors are the profile's.

use super::args::{float_arg, int_arg, is};
use super::{CommandSpec, Ctx};
use crate::dialect::{MemberMissing, Profile};
use crate::geo::geohash;
use crate::geo::search::{self, Order, Shape};
use crate::keyspace::{Keyspace, Value};
use crate::reply::Reply;
use crate::zset::ZSet;

/// GEO and sorted-set commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "geosearch",
        arity: -7,
        handler: geosearch,
    },
    CommandSpec {
        name: "geosearchstore",
        arity: -8,
        handler: geosearchstore,
    },
    CommandSpec {
        name: "georadius_ro",
        arity: -6,
        handler: georadius_ro,
    },
    CommandSpec {
        name: "georadiusbymember_ro",
        arity: -5,
        handler: georadiusbymember_ro,
    },
    CommandSpec {
        name: "geopos",
        arity: -2,
        handler: geopos,
    },
    CommandSpec {
        name: "geodist",
        arity: -4,
        handler: geodist,
    },
    CommandSpec {
        name: "geohash",
        arity: -2,
        handler: geohash_cmd,
    },
    CommandSpec {
        name: "zscore",
        arity: 3,
        handler: zscore,
    },
    CommandSpec {
        name: "zcard",
        arity: 2,
        handler: zcard,
    },
    CommandSpec {
        name: "zrange",
        arity: -4,
        handler: zrange,
    },
];

/// The sorted set under `key`: `Ok(None)` when missing, WRONGTYPE for other types.
fn zset_at<'a>(ks: &'a Keyspace, key: &[u8]) -> Result<Option<&'a ZSet>, Reply> {
    match ks.get(key) {
        None => Ok(None),
        Some(Value::ZSet(z)) => Ok(Some(z)),
        Some(_) => Err(Reply::wrong_type()),
    }
}

/// Metres per unit for `m`, `km`, `ft`, `mi` (case-insensitive).
fn unit(arg: &[u8]) -> Result<f64, Reply> {
    let to_m = if is(arg, "m") {
        1.0
    } else if is(arg, "km") {
        1000.0
    } else if is(arg, "ft") {
        0.3048
    } else if is(arg, "mi") {
        1609.34
    } else {
        return Err(Reply::err(
            "ERR unsupported unit provided. please use M, KM, FT, MI",
        ));
    };
    Ok(to_m)
}

/// A float argument with a command-specific error text.
fn float_or(arg: &[u8], msg: &str) -> Result<f64, Reply> {
    crate::command::args::parse_f64(arg).ok_or_else(|| Reply::err(format!("ERR {msg}")))
}

/// Longitude and latitude arguments, range-checked.
fn lon_lat(lon: &[u8], lat: &[u8]) -> Result<(f64, f64), Reply> {
    let lon = float_arg(lon)?;
    let lat = float_arg(lat)?;
    if !(geohash::LON_MIN..=geohash::LON_MAX).contains(&lon)
        || !(geohash::LAT_MIN..=geohash::LAT_MAX).contains(&lat)
    {
        return Err(Reply::err(format!(
            "ERR invalid longitude,latitude pair {lon:.6},{lat:.6}"
        )));
    }
    Ok((lon, lat))
}

/// Radius and unit: (radius in units, metres per unit).
fn radius_unit(r: &[u8], u: &[u8]) -> Result<(f64, f64), Reply> {
    let r = float_or(r, "need numeric radius")?;
    if r < 0.0 {
        return Err(Reply::err("ERR radius cannot be negative"));
    }
    Ok((r, unit(u)?))
}

/// The position of a member (its cell centre), or the profile's missing-member error.
fn member_pos(p: &Profile, z: &ZSet, member: &[u8]) -> Result<(f64, f64), Reply> {
    z.score(member)
        .map(|s| geohash::decode(geohash::score_bits(s)))
        .ok_or_else(|| match p.frommember_missing {
            MemberMissing::CouldNotDecode => {
                Reply::err("ERR could not decode requested zset member")
            }
            MemberMissing::DoesNotExist => Reply::err(format!(
                "ERR member {} does not exist",
                String::from_utf8_lossy(member)
            )),
        })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    RadiusRo,
    ByMemberRo,
    Search,
    SearchStore,
}

#[derive(Clone, Copy)]
enum ShapeArg {
    Radius(f64),
    Box(f64, f64),
}

fn geosearch(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    generic(ctx, argv, Kind::Search)
}

fn geosearchstore(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    generic(ctx, argv, Kind::SearchStore)
}

fn georadius_ro(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    generic(ctx, argv, Kind::RadiusRo)
}

fn georadiusbymember_ro(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    generic(ctx, argv, Kind::ByMemberRo)
}

/// The shared GEOSEARCH / GEORADIUS*_RO / GEOSEARCHSTORE implementation.
fn generic(ctx: &mut Ctx<'_>, argv: &[Vec<u8>], kind: Kind) -> Reply {
    match run_search(ctx.ks, ctx.profile, argv, kind) {
        Ok(r) | Err(r) => r,
    }
}

fn run_search(
    ks: &mut Keyspace,
    p: &Profile,
    argv: &[Vec<u8>],
    kind: Kind,
) -> Result<Reply, Reply> {
    let src = if kind == Kind::SearchStore { 2 } else { 1 };
    let z = zset_at(ks, &argv[src])?;
    let is_search = matches!(kind, Kind::Search | Kind::SearchStore);
    let mut centre = (0.0, 0.0);
    let mut shape = ShapeArg::Radius(0.0);
    let mut to_m = 1.0;
    let base = match kind {
        Kind::RadiusRo => {
            centre = lon_lat(&argv[2], &argv[3])?;
            let (r, u) = radius_unit(&argv[4], &argv[5])?;
            shape = ShapeArg::Radius(r);
            to_m = u;
            6
        }
        Kind::ByMemberRo => {
            if let Some(z) = z {
                centre = member_pos(p, z, &argv[2])?;
                let (r, u) = radius_unit(&argv[3], &argv[4])?;
                shape = ShapeArg::Radius(r);
                to_m = u;
            }
            5
        }
        Kind::Search => 2,
        Kind::SearchStore => 3,
    };
    let store = kind == Kind::SearchStore;
    let (mut withdist, mut withhash, mut withcoord, mut any, mut storedist) =
        (false, false, false, false, false);
    let (mut frommember, mut fromloc, mut byradius, mut bybox) = (false, false, false, false);
    let mut order = Order::None;
    let mut count: i64 = 0;
    let rest = &argv[base..];
    let mut i = 0;
    while i < rest.len() {
        let arg = &rest[i];
        let left = rest.len() - i - 1;
        if is(arg, "withdist") {
            withdist = true;
        } else if is(arg, "withhash") {
            withhash = true;
        } else if is(arg, "withcoord") {
            withcoord = true;
        } else if is(arg, "any") {
            any = true;
        } else if is(arg, "asc") {
            order = Order::Asc;
        } else if is(arg, "desc") {
            order = Order::Desc;
        } else if is(arg, "count") && left >= 1 {
            count = int_arg(&rest[i + 1])?;
            if count <= 0 {
                return Err(Reply::err("ERR COUNT must be > 0"));
            }
            i += 1;
        } else if is(arg, "storedist") && store {
            storedist = true;
        } else if is(arg, "frommember") && left >= 1 && is_search && !fromloc {
            if let Some(z) = z {
                centre = member_pos(p, z, &rest[i + 1])?;
            }
            frommember = true;
            i += 1;
        } else if is(arg, "fromlonlat") && left >= 2 && is_search && !frommember {
            centre = lon_lat(&rest[i + 1], &rest[i + 2])?;
            fromloc = true;
            i += 2;
        } else if is(arg, "byradius") && left >= 2 && is_search && !bybox {
            let (r, u) = radius_unit(&rest[i + 1], &rest[i + 2])?;
            shape = ShapeArg::Radius(r);
            to_m = u;
            byradius = true;
            i += 2;
        } else if is(arg, "bybox") && left >= 3 && is_search && !byradius {
            let w = float_or(&rest[i + 1], "need numeric width")?;
            let h = float_or(&rest[i + 2], "need numeric height")?;
            if h < 0.0 || w < 0.0 {
                return Err(Reply::err("ERR height or width cannot be negative"));
            }
            to_m = unit(&rest[i + 3])?;
            shape = ShapeArg::Box(w, h);
            bybox = true;
            i += 3;
        } else if is(arg, "bypolygon") && is_search && p.geosearch_bypolygon {
            return Err(Reply::err(
                "ERR bitlens does not answer GEOSEARCH BYPOLYGON (Valkey 9) yet",
            ));
        } else {
            return Err(Reply::syntax_error());
        }
        i += 1;
    }
    let name = String::from_utf8_lossy(&argv[0]);
    if store && (withdist || withhash || withcoord) {
        return Err(Reply::err(
            "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options",
        ));
    }
    if is_search && !(frommember || fromloc) {
        return Err(Reply::err(format!(
            "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for {name}"
        )));
    }
    if is_search && !(byradius || bybox) {
        return Err(Reply::err(p.shape_error.replace("{}", &name)));
    }
    if any && count == 0 {
        return Err(Reply::err("ERR the ANY argument requires COUNT argument"));
    }
    let Some(z) = z else {
        if store {
            ks.remove(&argv[1]);
            return Ok(Reply::Integer(0));
        }
        return Ok(Reply::Array(Vec::new()));
    };
    if count != 0 && order == Order::None && !any {
        order = Order::Asc;
    }
    let shape_m = match shape {
        ShapeArg::Radius(r) => Shape::Radius(r * to_m),
        ShapeArg::Box(w, h) => Shape::Box {
            width: w * to_m,
            height: h * to_m,
        },
    };
    let count = count as usize;
    let limit = if any { count } else { 0 };
    // ASC/DESC with COUNT (without ANY): read only what can be among the first results.
    let fast = if count > 0 && !any {
        search::best_first(z, centre.0, centre.1, shape_m, order, count)
    } else {
        None
    };
    let hits = match fast {
        Some(hits) => hits,
        None => {
            let mut hits = search::search(z, centre.0, centre.1, shape_m, limit);
            let returned = if count == 0 || hits.len() < count {
                hits.len()
            } else {
                count
            };
            search::sort_hits(&mut hits, order, returned);
            hits.truncate(returned);
            hits
        }
    };
    let returned = hits.len();
    let sorted = z.sorted();
    if store {
        if hits.is_empty() {
            ks.remove(&argv[1]);
            return Ok(Reply::Integer(0));
        }
        let pairs: Vec<(Vec<u8>, f64)> = hits
            .iter()
            .map(|h| {
                let score = if storedist { h.dist / to_m } else { h.score };
                (sorted[h.index].1.clone(), score)
            })
            .collect();
        ks.set(argv[1].clone(), Value::ZSet(ZSet::from_pairs(pairs)));
        return Ok(Reply::Integer(returned as i64));
    }
    let fields = withdist || withhash || withcoord;
    let items = hits
        .iter()
        .map(|h| {
            let member = Reply::bulk(&sorted[h.index].1);
            if !fields {
                return member;
            }
            let mut item = vec![member];
            if withdist {
                item.push(Reply::bulk(p.format_dist(h.dist / to_m)));
            }
            if withhash {
                item.push(Reply::Integer(geohash::score_i64(h.score)));
            }
            if withcoord {
                item.push(Reply::Array(vec![
                    Reply::bulk(p.format_coord(h.lon)),
                    Reply::bulk(p.format_coord(h.lat)),
                ]));
            }
            Reply::Array(item)
        })
        .collect();
    Ok(Reply::Array(items))
}

/// GEOPOS key member...: per member `[lon, lat]` or a null array.
fn geopos(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let p = ctx.profile;
    let ks = &*ctx.ks;
    let z = match zset_at(ks, &argv[1]) {
        Ok(z) => z,
        Err(e) => return e,
    };
    Reply::Array(
        argv[2..]
            .iter()
            .map(|m| match z.and_then(|z| z.score(m)) {
                None => Reply::NullArray,
                Some(s) => {
                    let (lon, lat) = geohash::decode(geohash::score_bits(s));
                    Reply::Array(vec![
                        Reply::bulk(p.format_coord(lon)),
                        Reply::bulk(p.format_coord(lat)),
                    ])
                }
            })
            .collect(),
    )
}

/// GEODIST key m1 m2 [unit]: `%.4f` distance or null bulk.
fn geodist(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let p = ctx.profile;
    let ks = &*ctx.ks;
    let to_m = match argv.len() {
        5 => match unit(&argv[4]) {
            Ok(u) => u,
            Err(e) => return e,
        },
        4 => 1.0,
        _ => return Reply::syntax_error(),
    };
    let z = match zset_at(ks, &argv[1]) {
        Ok(Some(z)) => z,
        Ok(None) => return Reply::NullBulk,
        Err(e) => return e,
    };
    let (Some(a), Some(b)) = (z.score(&argv[2]), z.score(&argv[3])) else {
        return Reply::NullBulk;
    };
    let (a, b) = (
        geohash::decode(geohash::score_bits(a)),
        geohash::decode(geohash::score_bits(b)),
    );
    Reply::bulk(p.format_dist(crate::geo::distance_m(a.0, a.1, b.0, b.1) / to_m))
}

/// GEOHASH key member...: 11-character strings or null bulks.
fn geohash_cmd(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    let z = match zset_at(ks, &argv[1]) {
        Ok(z) => z,
        Err(e) => return e,
    };
    Reply::Array(
        argv[2..]
            .iter()
            .map(|m| match z.and_then(|z| z.score(m)) {
                None => Reply::NullBulk,
                Some(s) => Reply::bulk(geohash::geohash_string(geohash::score_bits(s))),
            })
            .collect(),
    )
}

/// ZSCORE key member.
fn zscore(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    match zset_at(ks, &argv[1]) {
        Err(e) => e,
        Ok(z) => match z.and_then(|z| z.score(&argv[2])) {
            Some(s) => Reply::bulk(ctx.profile.format_score(s)),
            None => Reply::NullBulk,
        },
    }
}

/// ZCARD key.
fn zcard(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    match zset_at(ks, &argv[1]) {
        Err(e) => e,
        Ok(z) => Reply::Integer(z.map_or(0, |z| z.len() as i64)),
    }
}

/// ZRANGE key start stop [BYSCORE | BYLEX] [REV] [LIMIT offset count] [WITHSCORES], as Redis
/// 7: index ranges (negative from the end), score ranges (`(` exclusive, `-inf`/`+inf`) and
/// lexical ranges (`[a`, `(a`, `-`, `+`; the first member at or above the minimum, then while
/// at or below the maximum). With REV the range is given as max then min.
fn zrange(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    match zrange_inner(ctx.ks, ctx.profile, argv) {
        Ok(r) | Err(r) => r,
    }
}

#[derive(PartialEq, Clone, Copy)]
enum RangeBy {
    Rank,
    Score,
    Lex,
}

/// A lexical range bound.
enum LexBound {
    Min,
    Max,
    Incl(Vec<u8>),
    Excl(Vec<u8>),
}

/// `strtod` as ZRANGE BYSCORE uses it: leading spaces allowed, overflow to ±inf and an empty
/// string (0) accepted, NaN and trailing bytes rejected.
fn lenient_float(s: &[u8]) -> Option<f64> {
    let s = &s[..s.iter().position(|&c| c == 0).unwrap_or(s.len())];
    let start = s
        .iter()
        .position(|c| !matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))
        .unwrap_or(s.len());
    if s.is_empty() {
        return Some(0.0);
    }
    if start == s.len() {
        return None;
    }
    let t = &s[start..];
    if let Some(v) = crate::command::args::parse_f64(t) {
        return Some(v);
    }
    // parse_f64 refuses overflow and underflow; strtod returns ±inf / 0 for them.
    let text = std::str::from_utf8(t).ok()?;
    let lower = text.to_ascii_lowercase();
    let body = lower.trim_start_matches(['+', '-']);
    if body.is_empty()
        || body.contains("nan")
        || !body
            .bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'+' | b'-'))
    {
        return None;
    }
    text.parse::<f64>().ok()
}

fn score_bound(arg: &[u8]) -> Option<(f64, bool)> {
    match arg.split_first() {
        Some((b'(', rest)) => lenient_float(rest).map(|v| (v, true)),
        _ => lenient_float(arg).map(|v| (v, false)),
    }
}

fn lex_bound(arg: &[u8]) -> Option<LexBound> {
    match arg {
        b"+" => Some(LexBound::Max),
        b"-" => Some(LexBound::Min),
        [b'(', rest @ ..] => Some(LexBound::Excl(rest.to_vec())),
        [b'[', rest @ ..] => Some(LexBound::Incl(rest.to_vec())),
        _ => None,
    }
}

fn lex_gte_min(m: &[u8], min: &LexBound) -> bool {
    match min {
        LexBound::Min => true,
        LexBound::Max => false,
        LexBound::Incl(v) => m >= v.as_slice(),
        LexBound::Excl(v) => m > v.as_slice(),
    }
}

fn lex_lte_max(m: &[u8], max: &LexBound) -> bool {
    match max {
        LexBound::Min => false,
        LexBound::Max => true,
        LexBound::Incl(v) => m <= v.as_slice(),
        LexBound::Excl(v) => m < v.as_slice(),
    }
}

fn zrange_inner(ks: &mut Keyspace, p: &Profile, argv: &[Vec<u8>]) -> Result<Reply, Reply> {
    if !p.zrange_by {
        // Redis 6.0: ZRANGE key start stop [WITHSCORES], indexes parsed first.
        int_arg(&argv[2])?;
        int_arg(&argv[3])?;
        if argv.len() > 5 || (argv.len() == 5 && !is(&argv[4], "withscores")) {
            return Err(Reply::syntax_error());
        }
    }
    let (mut rev, mut withscores) = (false, false);
    let mut by = None;
    let (mut offset, mut limit) = (0i64, -1i64);
    let mut j = 4;
    while j < argv.len() {
        let a = &argv[j];
        let left = argv.len() - j - 1;
        if is(a, "withscores") {
            withscores = true;
        } else if is(a, "limit") && left >= 2 {
            offset = int_arg(&argv[j + 1])?;
            limit = int_arg(&argv[j + 2])?;
            j += 2;
        } else if !rev && is(a, "rev") {
            rev = true;
        } else if by.is_none() && is(a, "bylex") {
            by = Some(RangeBy::Lex);
        } else if by.is_none() && is(a, "byscore") {
            by = Some(RangeBy::Score);
        } else {
            return Err(Reply::syntax_error());
        }
        j += 1;
    }
    let by = by.unwrap_or(RangeBy::Rank);
    if limit != -1 && by == RangeBy::Rank {
        return Err(Reply::err(
            "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX",
        ));
    }
    if withscores && by == RangeBy::Lex {
        return Err(Reply::err(
            "ERR syntax error, WITHSCORES not supported in combination with BYLEX",
        ));
    }
    let (lo_arg, hi_arg) = if rev && by != RangeBy::Rank {
        (&argv[3], &argv[2])
    } else {
        (&argv[2], &argv[3])
    };
    // Indexes into `sorted`, in reply order.
    let picked: Vec<usize> = match by {
        RangeBy::Rank => {
            let start = int_arg(lo_arg)?;
            let stop = int_arg(hi_arg)?;
            let Some(z) = zset_at(ks, &argv[1])? else {
                return Ok(Reply::Array(Vec::new()));
            };
            let len = z.len() as i64;
            let start = if start < 0 { len + start } else { start }.max(0);
            let stop = if stop < 0 { len + stop } else { stop };
            if start > stop || start >= len {
                return Ok(Reply::Array(Vec::new()));
            }
            let stop = stop.min(len - 1);
            (start..=stop)
                .map(|i| if rev { len - 1 - i } else { i } as usize)
                .collect()
        }
        RangeBy::Score => {
            let (Some((min, minex)), Some((max, maxex))) =
                (score_bound(lo_arg), score_bound(hi_arg))
            else {
                return Err(Reply::err("ERR min or max is not a float"));
            };
            let Some(z) = zset_at(ks, &argv[1])? else {
                return Ok(Reply::Array(Vec::new()));
            };
            let gte = |s: f64| if minex { s > min } else { s >= min };
            let lte = |s: f64| if maxex { s < max } else { s <= max };
            let sorted = z.sorted();
            let idx: Vec<usize> = if rev {
                (0..sorted.len())
                    .rev()
                    .skip_while(|&i| !lte(sorted[i].0))
                    .take_while(|&i| gte(sorted[i].0))
                    .collect()
            } else {
                (0..sorted.len())
                    .skip_while(|&i| !gte(sorted[i].0))
                    .take_while(|&i| lte(sorted[i].0))
                    .collect()
            };
            window(idx, offset, limit, z.len())
        }
        RangeBy::Lex => {
            let (Some(min), Some(max)) = (lex_bound(lo_arg), lex_bound(hi_arg)) else {
                return Err(Reply::err("ERR min or max not valid string range item"));
            };
            let Some(z) = zset_at(ks, &argv[1])? else {
                return Ok(Reply::Array(Vec::new()));
            };
            let sorted = z.sorted();
            let idx: Vec<usize> = if rev {
                (0..sorted.len())
                    .rev()
                    .skip_while(|&i| !lex_lte_max(&sorted[i].1, &max))
                    .take_while(|&i| lex_gte_min(&sorted[i].1, &min))
                    .collect()
            } else {
                (0..sorted.len())
                    .skip_while(|&i| !lex_gte_min(&sorted[i].1, &min))
                    .take_while(|&i| lex_lte_max(&sorted[i].1, &max))
                    .collect()
            };
            window(idx, offset, limit, z.len())
        }
    };
    let Some(Value::ZSet(z)) = ks.get(&argv[1]) else {
        return Ok(Reply::Array(Vec::new()));
    };
    let sorted = z.sorted();
    let mut out = Vec::with_capacity(picked.len() * (1 + withscores as usize));
    for i in picked {
        let (s, m) = &sorted[i];
        out.push(Reply::bulk(m));
        if withscores {
            out.push(Reply::bulk(p.format_score(*s)));
        }
    }
    Ok(Reply::Array(out))
}

/// LIMIT offset count over a range: a negative offset or one past the set gives nothing; a
/// negative count takes everything after the offset.
fn window(idx: Vec<usize>, offset: i64, limit: i64, len: usize) -> Vec<usize> {
    if offset < 0 || (offset > 0 && offset as u64 >= len as u64) {
        return Vec::new();
    }
    let it = idx.into_iter().skip(offset as usize);
    if limit < 0 {
        it.collect()
    } else {
        it.take(limit as usize).collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::dialect::{REDIS_6_2, REDIS_7_0, REDIS_8_0};

    #[test]
    fn distances_round_the_scaled_value() {
        let p = &REDIS_7_0;
        assert_eq!(p.format_dist(17_500_510.565_75), "17500510.5658");
        assert_eq!(p.format_dist(0.0), "0.0000");
        assert_eq!(p.format_dist(0.00004), "0.0000");
        assert_eq!(p.format_dist(166274.15156960033), "166274.1516");
        assert_eq!(p.format_dist(1.23), "1.2300");
        // Redis 6.x: C's %.4f of the double (src 6.2.14 geo.c).
        assert_eq!(REDIS_6_2.format_dist(166274.15156960033), "166274.1516");
    }

    #[test]
    fn coordinates_trim_zeros() {
        let p = &REDIS_7_0;
        assert_eq!(p.format_coord(180.0), "180");
        for text in ["-73.93389254808425903", "2.0000001856465488"] {
            assert_eq!(p.format_coord(text.parse().unwrap()), text);
        }
        assert_eq!(p.format_coord(-1e-30), "0");
        // Redis 8.0: the shortest form of the same double (GEORADIUS WITHCOORD of Palermo on
        // 8.0 vs 7.4, quoted in redis/redis#13494, which switched GEOPOS/WITHCOORD to
        // addReplyDouble).
        for (text, want) in [
            ("13.36138933897018433", "13.361389338970184"),
            ("38.11555639549629859", "38.1155563954963"),
        ] {
            let x: f64 = text.parse().unwrap();
            assert_eq!(REDIS_8_0.format_coord(x), want);
            assert_eq!(p.format_coord(x), text);
        }
    }
}
