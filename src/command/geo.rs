//! GEO read commands, with the profile's argument rules, error texts and RESP2 reply shapes:
//! GEOSEARCH, GEOSEARCHSTORE, GEORADIUS, GEORADIUSBYMEMBER, GEORADIUS_RO, GEORADIUSBYMEMBER_RO,
//! GEOPOS, GEODIST, GEOHASH
//! (the sorted-set commands are in [`super::zset`]).
//!
//! Search replies list, per member: the name, then (when asked) the distance (4 decimals in
//! the requested unit, [`Profile::format_dist`]), the hash (integer score), and the coordinates
//! ([`Profile::format_coord`]), always in that order. The missing-member and missing-shape
//! errors are the profile's.

use super::args::{int_arg, is, not_float};
use super::zset::zset_at;
use super::{CommandSpec, Ctx};
use crate::dialect::{MemberMissing, Profile};
use crate::geo::geohash;
use crate::geo::search::{self, Order, Shape};
use crate::keyspace::{Keyspace, Value};
use crate::reply::Reply;
use crate::zset::ZSet;

/// GEO commands.
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
        name: "georadius",
        arity: -6,
        handler: georadius,
    },
    CommandSpec {
        name: "georadiusbymember",
        arity: -5,
        handler: georadiusbymember,
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
];

/// Metres per unit for `m`, `km`, `ft`, `mi` (case-insensitive).
fn unit(p: &Profile, arg: &[u8]) -> Result<f64, Reply> {
    let to_m = if is(arg, "m") {
        1.0
    } else if is(arg, "km") {
        1000.0
    } else if is(arg, "ft") {
        0.3048
    } else if is(arg, "mi") {
        1609.34
    } else {
        return Err(Reply::err(p.geo_unit_error));
    };
    Ok(to_m)
}

/// A float argument with a command-specific error text.
/// A GEO double argument as the profile parses it: `parse_f64`, without the `0x` form where
/// the profile has no `geo_hex_doubles` (Valkey 9).
fn geo_f64(p: &Profile, arg: &[u8]) -> Option<f64> {
    let body = arg
        .strip_prefix(b"-")
        .or(arg.strip_prefix(b"+"))
        .unwrap_or(arg);
    if !p.geo_hex_doubles && body.len() >= 2 && body[0] == b'0' && (body[1] | 0x20) == b'x' {
        return None;
    }
    crate::command::args::parse_f64(arg)
}

fn float_or(p: &Profile, arg: &[u8], msg: &str) -> Result<f64, Reply> {
    geo_f64(p, arg).ok_or_else(|| Reply::err(format!("ERR {msg}")))
}

/// Longitude and latitude arguments, range-checked.
fn lon_lat(p: &Profile, lon: &[u8], lat: &[u8]) -> Result<(f64, f64), Reply> {
    let lon = geo_f64(p, lon).ok_or_else(not_float)?;
    let lat = geo_f64(p, lat).ok_or_else(not_float)?;
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
fn radius_unit(p: &Profile, r: &[u8], u: &[u8]) -> Result<(f64, f64), Reply> {
    let r = float_or(p, r, "need numeric radius")?;
    if r < 0.0 {
        return Err(Reply::err("ERR radius cannot be negative"));
    }
    Ok((r, unit(p, u)?))
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
    /// GEORADIUS (`true`: STORE / STOREDIST accepted) or GEORADIUS_RO (`false`).
    Radius(bool),
    /// GEORADIUSBYMEMBER (`true`) or GEORADIUSBYMEMBER_RO (`false`).
    ByMember(bool),
    Search,
    SearchStore,
}

#[derive(Clone)]
enum ShapeArg {
    Radius(f64),
    Box(f64, f64),
    Polygon(search::Polygon),
}

/// BYPOLYGON's arguments after the keyword, as Valkey 9.1.2 parses them: `num-vertices`
/// (an integer that fits 32 bits, else `invalid number of vertices`), at least 3 of them and
/// that many (longitude, latitude) pairs present (else `must have at least 3 vertices`),
/// each pair parsed and range-checked in turn as FROMLONLAT is. Returns the polygon and the
/// number of arguments taken after the keyword.
fn polygon_arg(p: &Profile, rest: &[Vec<u8>]) -> Result<(search::Polygon, usize), Reply> {
    let n = crate::command::args::parse_i64(&rest[0])
        .and_then(|n| i32::try_from(n).ok())
        .ok_or_else(|| Reply::err("ERR invalid number of vertices"))?;
    let too_few = || Reply::err("ERR GEOSEARCH BYPOLYGON must have at least 3 vertices");
    if n < 3 || (n as usize) * 2 > rest.len() - 1 {
        return Err(too_few());
    }
    let n = n as usize;
    let mut vertices = Vec::with_capacity(n);
    for pair in rest[1..1 + 2 * n].chunks_exact(2) {
        vertices.push(lon_lat(p, &pair[0], &pair[1])?);
    }
    let poly = search::Polygon::new(vertices).ok_or_else(too_few)?;
    Ok((poly, 1 + 2 * n))
}

fn geosearch(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    generic(ctx, argv, Kind::Search)
}

fn geosearchstore(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    generic(ctx, argv, Kind::SearchStore)
}

fn georadius(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    generic(ctx, argv, Kind::Radius(true))
}

fn georadiusbymember(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    generic(ctx, argv, Kind::ByMember(true))
}

fn georadius_ro(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    generic(ctx, argv, Kind::Radius(false))
}

fn georadiusbymember_ro(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    generic(ctx, argv, Kind::ByMember(false))
}

/// The shared GEOSEARCH / GEOSEARCHSTORE / GEORADIUS[BYMEMBER][_RO] implementation (as Redis'
/// `georadiusGeneric`: GEORADIUS and GEORADIUSBYMEMBER also take `STORE key` / `STOREDIST
/// key`, and answer as their `_RO` forms without them).
fn generic(ctx: &mut Ctx<'_>, argv: &[Vec<u8>], kind: Kind) -> Reply {
    match run_search(ctx.ks, ctx.profile, argv, kind) {
        Ok(r) | Err(r) => r,
    }
}

/// A search's outcome before its reply is formatted.
enum Searched {
    /// The reply is final: a store's count, or the empty reply for a missing key.
    Done(Reply),
    /// The members found.
    Members(Found),
}

/// The members a search found, in reply order (name, hit), with the requested unit's metres
/// and the fields asked for.
struct Found {
    members: Vec<(Vec<u8>, search::Hit)>,
    to_m: f64,
    withdist: bool,
    withhash: bool,
    withcoord: bool,
}

fn run_search(
    ks: &mut Keyspace,
    p: &Profile,
    argv: &[Vec<u8>],
    kind: Kind,
) -> Result<Reply, Reply> {
    let Found {
        members,
        to_m,
        withdist,
        withhash,
        withcoord,
    } = match search_members(ks, p, argv, kind)? {
        Searched::Done(reply) => return Ok(reply),
        Searched::Members(found) => found,
    };
    let fields = withdist || withhash || withcoord;
    let items = members
        .into_iter()
        .map(|(name, h)| {
            let member = Reply::Bulk(name);
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

/// Parses and runs a search (the arguments as [`run_search`] takes them): an error reply, a
/// final reply, or the members found.
fn search_members(
    ks: &mut Keyspace,
    p: &Profile,
    argv: &[Vec<u8>],
    kind: Kind,
) -> Result<Searched, Reply> {
    let src = if kind == Kind::SearchStore { 2 } else { 1 };
    let z = zset_at(ks, &argv[src])?;
    if z.is_none() && p.geo_lookup_first {
        return Ok(Searched::Done(Reply::Array(Vec::new())));
    }
    let is_search = matches!(kind, Kind::Search | Kind::SearchStore);
    let mut centre = (0.0, 0.0);
    let mut shape = ShapeArg::Radius(0.0);
    let mut to_m = 1.0;
    let base = match kind {
        Kind::Radius(_) => {
            centre = lon_lat(p, &argv[2], &argv[3])?;
            let (r, u) = radius_unit(p, &argv[4], &argv[5])?;
            shape = ShapeArg::Radius(r);
            to_m = u;
            6
        }
        Kind::ByMember(_) => {
            if let Some(z) = z {
                centre = member_pos(p, z, &argv[2])?;
                let (r, u) = radius_unit(p, &argv[3], &argv[4])?;
                shape = ShapeArg::Radius(r);
                to_m = u;
            }
            5
        }
        Kind::Search => 2,
        Kind::SearchStore => 3,
    };
    let radius_store = matches!(kind, Kind::Radius(true) | Kind::ByMember(true));
    // Where the results go: GEOSEARCHSTORE's destination, or GEORADIUS' STORE key.
    let mut store_key: Option<&[u8]> = (kind == Kind::SearchStore).then_some(&argv[1][..]);
    let (mut withdist, mut withhash, mut withcoord, mut any, mut storedist) =
        (false, false, false, false, false);
    let (mut frommember, mut fromloc, mut byradius, mut bybox) = (false, false, false, false);
    let mut bypolygon = false;
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
        } else if is(arg, "any") && p.geo_any {
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
        } else if is(arg, "storedist") && kind == Kind::SearchStore {
            storedist = true;
        } else if (is(arg, "store") || is(arg, "storedist")) && radius_store && left >= 1 {
            // The last STORE / STOREDIST given wins, as in Redis.
            store_key = Some(&rest[i + 1]);
            storedist = is(arg, "storedist");
            i += 1;
        } else if is(arg, "frommember") && left >= 1 && is_search && !fromloc && !bypolygon {
            if let Some(z) = z {
                centre = member_pos(p, z, &rest[i + 1])?;
            }
            frommember = true;
            i += 1;
        } else if is(arg, "fromlonlat") && left >= 2 && is_search && !frommember && !bypolygon {
            centre = lon_lat(p, &rest[i + 1], &rest[i + 2])?;
            fromloc = true;
            i += 2;
        } else if is(arg, "byradius") && left >= 2 && is_search && !bybox && !bypolygon {
            let (r, u) = radius_unit(p, &rest[i + 1], &rest[i + 2])?;
            shape = ShapeArg::Radius(r);
            to_m = u;
            byradius = true;
            i += 2;
        } else if is(arg, "bybox") && left >= 3 && is_search && !byradius && !bypolygon {
            let w = float_or(p, &rest[i + 1], "need numeric width")?;
            let h = float_or(p, &rest[i + 2], "need numeric height")?;
            if h < 0.0 || w < 0.0 {
                return Err(Reply::err("ERR height or width cannot be negative"));
            }
            to_m = unit(p, &rest[i + 3])?;
            shape = ShapeArg::Box(w, h);
            bybox = true;
            i += 3;
        } else if is(arg, "bypolygon")
            && left >= 1
            && is_search
            && p.geosearch_bypolygon
            && !(frommember || fromloc || byradius || bybox)
        {
            let (poly, used) = polygon_arg(p, &rest[i + 1..])?;
            centre = poly.centre;
            shape = ShapeArg::Polygon(poly);
            to_m = 1.0;
            bypolygon = true;
            i += used;
        } else {
            return Err(Reply::syntax_error());
        }
        i += 1;
    }
    let name = String::from_utf8_lossy(&argv[0]);
    if store_key.is_some() && (withdist || withhash || withcoord) {
        let which = if kind == Kind::SearchStore {
            "GEOSEARCHSTORE"
        } else {
            "STORE option in GEORADIUS"
        };
        return Err(Reply::err(p.geo_store_with_error.replace("{}", which)));
    }
    if is_search && !(frommember || fromloc || bypolygon) {
        return Err(Reply::err(format!(
            "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for {name}"
        )));
    }
    if is_search && !(byradius || bybox || bypolygon) {
        return Err(Reply::err(p.shape_error.replace("{}", &name)));
    }
    if any && count == 0 {
        return Err(Reply::err("ERR the ANY argument requires COUNT argument"));
    }
    let Some(z) = z else {
        if let Some(dst) = store_key {
            ks.remove(dst);
            return Ok(Searched::Done(Reply::Integer(0)));
        }
        return Ok(Searched::Done(Reply::Array(Vec::new())));
    };
    if count != 0 && order == Order::None && !any {
        order = Order::Asc;
    }
    let shape_m = match &shape {
        ShapeArg::Radius(r) => Shape::Radius(r * to_m),
        ShapeArg::Box(w, h) => Shape::Box {
            width: w * to_m,
            height: h * to_m,
        },
        ShapeArg::Polygon(poly) => Shape::Polygon(poly),
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
    if let Some(dst) = store_key {
        if hits.is_empty() {
            ks.remove(dst);
            return Ok(Searched::Done(Reply::Integer(0)));
        }
        let pairs: Vec<(Vec<u8>, f64)> = hits
            .iter()
            .map(|h| {
                let score = if storedist { h.dist / to_m } else { h.score };
                (sorted[h.index].1.to_vec(), score)
            })
            .collect();
        ks.set(dst, Value::zset(ZSet::from_pairs(pairs)));
        return Ok(Searched::Done(Reply::Integer(returned as i64)));
    }
    Ok(Searched::Members(Found {
        members: hits
            .into_iter()
            .map(|h| (sorted[h.index].1.to_vec(), h))
            .collect(),
        to_m,
        withdist,
        withhash,
        withcoord,
    }))
}

/// One member found by [`nearby`].
#[derive(Debug, Clone, PartialEq)]
pub struct NearbyMember {
    /// The member's name.
    pub member: Vec<u8>,
    /// Its distance from the centre in the unit asked, as the server prints it (4 decimals,
    /// [`Profile::format_dist`]) read back as a number.
    pub dist: f64,
    /// Its stored position (the geohash cell's centre), degrees, as the server prints it
    /// ([`Profile::format_coord`]) read back: longitude.
    pub lon: f64,
    /// Latitude, degrees.
    pub lat: f64,
}

/// The arguments of [`nearby`]: command text, parsed and checked as GEOSEARCH does (`lon`
/// `b"13.4"`, `unit` `m`, `km`, `ft` or `mi`, `count` a positive integer or none).
#[derive(Debug, Clone, Copy)]
pub struct NearbyQuery<'a> {
    /// The GEO key (a sorted set).
    pub key: &'a [u8],
    /// Centre longitude, degrees.
    pub lon: &'a [u8],
    /// Centre latitude, degrees.
    pub lat: &'a [u8],
    /// Radius, in `unit`.
    pub radius: &'a [u8],
    /// Unit of the radius and of the distances returned.
    pub unit: &'a [u8],
    /// At most this many members (COUNT), or all.
    pub count: Option<&'a [u8]>,
}

/// `GEOSEARCH key FROMLONLAT lon lat BYRADIUS radius unit ASC [COUNT count] WITHDIST
/// WITHCOORD` as `p`'s server answers it, with typed results: the members within the radius
/// of the centre, nearest first. Errors: the error reply the command gives (a key of another
/// type, a bad number, unit or COUNT; on a profile without GEOSEARCH, its unknown-command
/// error).
pub fn nearby(
    ks: &mut Keyspace,
    p: &Profile,
    q: &NearbyQuery<'_>,
) -> Result<Vec<NearbyMember>, Reply> {
    let NearbyQuery {
        key,
        lon,
        lat,
        radius,
        unit,
        count,
    } = *q;
    let mut argv: Vec<Vec<u8>> = vec![
        b"GEOSEARCH".to_vec(),
        key.to_vec(),
        b"FROMLONLAT".to_vec(),
        lon.to_vec(),
        lat.to_vec(),
        b"BYRADIUS".to_vec(),
        radius.to_vec(),
        unit.to_vec(),
        b"ASC".to_vec(),
    ];
    if let Some(n) = count {
        argv.push(b"COUNT".to_vec());
        argv.push(n.to_vec());
    }
    argv.push(b"WITHDIST".to_vec());
    argv.push(b"WITHCOORD".to_vec());
    if !p.has_command("geosearch") {
        return Err(Reply::err(p.unknown_command(&argv)));
    }
    // The printed number read back: the formatters print finite decimals.
    let number = |text: String| text.parse::<f64>().unwrap_or(f64::NAN);
    match search_members(ks, p, &argv, Kind::Search)? {
        Searched::Done(_) => Ok(Vec::new()),
        Searched::Members(Found { members, to_m, .. }) => Ok(members
            .into_iter()
            .map(|(member, h)| NearbyMember {
                member,
                dist: number(p.format_dist(h.dist / to_m)),
                lon: number(p.format_coord(h.lon)),
                lat: number(p.format_coord(h.lat)),
            })
            .collect()),
    }
}

/// GEOPOS key member...: per member `[lon, lat]` or a null array.
fn geopos(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let p = ctx.profile;
    per_member(ctx, argv, Reply::NullArray, |s| {
        let (lon, lat) = geohash::decode(geohash::score_bits(s));
        Reply::Array(vec![
            Reply::bulk(p.format_coord(lon)),
            Reply::bulk(p.format_coord(lat)),
        ])
    })
}

/// `key member...` commands (GEOPOS, GEOHASH): one reply per member, `missing` for a member
/// (or key) that is not there, `WRONGTYPE` for a key that is not a sorted set.
fn per_member(
    ctx: &mut Ctx<'_>,
    argv: &[Vec<u8>],
    missing: Reply,
    of_score: impl Fn(f64) -> Reply,
) -> Reply {
    let z = match zset_at(ctx.ks, &argv[1]) {
        Ok(z) => z,
        Err(e) => return e,
    };
    Reply::Array(
        argv[2..]
            .iter()
            .map(|m| match z.and_then(|z| z.score(m)) {
                None => missing.clone(),
                Some(s) => of_score(s),
            })
            .collect(),
    )
}

/// GEODIST key m1 m2 [unit]: `%.4f` distance or null bulk.
fn geodist(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let p = ctx.profile;
    let ks = &*ctx.ks;
    let to_m = match argv.len() {
        5 => match unit(p, &argv[4]) {
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
    per_member(ctx, argv, Reply::NullBulk, |s| {
        Reply::bulk(geohash::geohash_string(geohash::score_bits(s)))
    })
}

#[cfg(test)]
mod tests {
    use crate::dialect::{REDIS_6_2, REDIS_7_0, REDIS_8_0};

    /// `nearby` gives the members, distances and coordinates of the GEOSEARCH reply with
    /// WITHDIST WITHCOORD, its numbers read from the reply's text (here, as a test's
    /// reference), on profiles printing them differently; its errors are the command's.
    #[test]
    fn nearby_is_geosearch_typed() {
        use super::{nearby, NearbyQuery};
        use crate::command::execute_as;
        use crate::dialect::{REDIS_6_0, REDIS_7_4, VALKEY_9_0};
        use crate::reply::Reply;
        let mut ks = crate::keyspace::Keyspace::new();
        let mut rng = fastrand::Rng::with_seed(11);
        // 300 shops around Berlin, scored as GEOADD scores them (their 52-bit geohash).
        let pairs: Vec<(Vec<u8>, f64)> = (0..300)
            .map(|i| {
                let (lon, lat) = (13.0 + rng.f64(), 52.0 + rng.f64() * 0.6);
                let score = crate::geo::geohash::encode(lon, lat).unwrap() as f64;
                (format!("shop:{i}").into_bytes(), score)
            })
            .collect();
        ks.set(
            b"shops",
            crate::keyspace::Value::zset(crate::zset::ZSet::from_pairs(pairs)),
        );
        ks.set(
            b"text",
            crate::keyspace::Value::String(crate::string::RedisString::from_bytes(b"x".to_vec())),
        );
        let bulk = |r: &Reply| match r {
            Reply::Bulk(b) => b.clone(),
            other => panic!("{other:?}"),
        };
        let num = |r: &Reply| String::from_utf8(bulk(r)).unwrap().parse::<f64>().unwrap();
        for p in [&REDIS_6_2, &REDIS_7_4, &VALKEY_9_0] {
            for (radius, unit, count) in [
                ("20", "km", None),
                ("5000", "m", Some("7")),
                ("4", "mi", None),
            ] {
                let q = NearbyQuery {
                    key: b"shops",
                    lon: b"13.4",
                    lat: b"52.3",
                    radius: radius.as_bytes(),
                    unit: unit.as_bytes(),
                    count: count.map(str::as_bytes),
                };
                let mut argv = vec![
                    "GEOSEARCH",
                    "shops",
                    "FROMLONLAT",
                    "13.4",
                    "52.3",
                    "BYRADIUS",
                    radius,
                    unit,
                    "ASC",
                ];
                if let Some(n) = count {
                    argv.extend(["COUNT", n]);
                }
                argv.extend(["WITHDIST", "WITHCOORD"]);
                let Reply::Array(items) = execute_as(&mut ks, p, &argv) else {
                    panic!()
                };
                let want: Vec<super::NearbyMember> = items
                    .iter()
                    .map(|item| {
                        let Reply::Array(f) = item else {
                            panic!("{item:?}")
                        };
                        let Reply::Array(c) = &f[2] else {
                            panic!("{item:?}")
                        };
                        super::NearbyMember {
                            member: bulk(&f[0]),
                            dist: num(&f[1]),
                            lon: num(&c[0]),
                            lat: num(&c[1]),
                        }
                    })
                    .collect();
                assert!(!want.is_empty(), "{} {radius} {unit}", p.name);
                assert_eq!(
                    nearby(&mut ks, p, &q).unwrap(),
                    want,
                    "{} {radius} {unit}",
                    p.name
                );
            }
        }
        // Errors: the command's (the argv the query stands for, as the loop above builds it).
        let q =
            |key: &'static [u8], unit: &'static [u8], count: Option<&'static [u8]>| NearbyQuery {
                key,
                lon: b"13.4",
                lat: b"52.3",
                radius: b"20",
                unit,
                count,
            };
        for (p, q) in [
            (&REDIS_7_4, q(b"text", b"km", None)),
            (&REDIS_7_4, q(b"shops", b"parsec", None)),
            (&REDIS_7_4, q(b"shops", b"km", Some(b"0"))),
            (&REDIS_6_0, q(b"shops", b"km", None)),
        ] {
            let text = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
            let mut argv = vec!["GEOSEARCH".to_string(), text(q.key), "FROMLONLAT".into()];
            argv.extend([text(q.lon), text(q.lat), "BYRADIUS".into(), text(q.radius)]);
            argv.extend([text(q.unit), "ASC".into()]);
            if let Some(n) = q.count {
                argv.extend(["COUNT".into(), text(n)]);
            }
            argv.extend(["WITHDIST".into(), "WITHCOORD".into()]);
            let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
            let want = execute_as(&mut ks, p, &argv);
            assert!(want.is_error(), "{want:?}");
            assert_eq!(nearby(&mut ks, p, &q), Err(want));
        }
        // A missing key: no members.
        assert_eq!(
            nearby(&mut ks, &REDIS_7_4, &q(b"nosuch", b"km", None)),
            Ok(vec![])
        );
    }

    #[test]
    fn redis_6_0_georadius_rules() {
        use crate::command::execute_as;
        use crate::dialect::REDIS_6_0;
        let mut ks = crate::keyspace::Keyspace::new();
        // src 6.0.9 geo.c: a missing key answers before the arguments are read; no ANY.
        let bad = ["GEORADIUS_RO", "nosuch", "x", "y", "1", "km"];
        assert_eq!(
            execute_as(&mut ks, &REDIS_6_0, &bad),
            crate::reply::Reply::Array(vec![])
        );
        assert!(execute_as(&mut ks, &REDIS_7_0, &bad).is_error());
        let any = [
            "GEORADIUS_RO",
            "nosuch",
            "1",
            "2",
            "1",
            "km",
            "COUNT",
            "1",
            "ANY",
        ];
        assert_eq!(
            execute_as(&mut ks, &REDIS_7_0, &any),
            crate::reply::Reply::Array(vec![])
        );
        ks.set(
            b"g",
            crate::keyspace::Value::zset(crate::zset::ZSet::from_pairs(vec![(b"m".to_vec(), 1.0)])),
        );
        // The same ANY query on an existing key: 6.0 has no ANY.
        let any = any.map(|a| if a == "nosuch" { "g" } else { a });
        assert_eq!(
            execute_as(&mut ks, &REDIS_6_0, &any),
            crate::reply::Reply::syntax_error()
        );
    }

    /// Recorded on Valkey 9.1.2 (the polygon errors and replies; the same cases run against the
    /// server in `crates/difftest/tests/geo_polygon_diff.rs`); Redis 7.4.1 and Valkey 8.1.8
    /// answer BYPOLYGON with a syntax error, and every Redis profile (8.x included: no Redis
    /// release has BYPOLYGON) keeps that.
    #[test]
    fn bypolygon_as_valkey_9_1() {
        use crate::command::execute_as;
        use crate::dialect::{Profile, VALKEY_9_0};
        use crate::reply::Reply;
        let mut ks = crate::keyspace::Keyspace::new();
        let mut add = vec![];
        for (m, lon, lat) in [("a", 0.0, 0.0), ("c", 0.5, 0.5), ("d", 2.0, 2.0)] {
            add.push((
                m.as_bytes().to_vec(),
                crate::geo::encode(lon, lat).unwrap() as f64,
            ));
        }
        ks.set(
            b"g",
            crate::keyspace::Value::zset(crate::zset::ZSet::from_pairs(add)),
        );
        let q = |p: &'static Profile, ks: &mut crate::keyspace::Keyspace, a: &str| {
            execute_as(ks, p, &a.split(' ').collect::<Vec<_>>())
        };
        let err = |t: &str| Reply::err(t.to_string());
        let v9 = &VALKEY_9_0;
        // The unit square holds a (on its bottom-left vertex) and c; the distance is from the
        // vertices' mean direction, 2.0827 m from c.
        assert_eq!(
            q(
                v9,
                &mut ks,
                "GEOSEARCH g BYPOLYGON 4 0 0 1 0 1 1 0 1 WITHDIST ASC"
            ),
            Reply::Array(vec![
                Reply::Array(vec![Reply::bulk(b"c"), Reply::bulk(b"2.0827")]),
                Reply::Array(vec![Reply::bulk(b"a"), Reply::bulk(b"78649.5585")]),
            ])
        );
        let few = "ERR GEOSEARCH BYPOLYGON must have at least 3 vertices";
        for (cmd, want) in [
            ("GEOSEARCH g BYPOLYGON 2 0 0 1 1", few),
            ("GEOSEARCH g BYPOLYGON 4 0 0 1 1 2 2", few),
            ("GEOSEARCH g BYPOLYGON -3 0 0 1 1 2 2", few),
            (
                "GEOSEARCH g BYPOLYGON 2147483648 0 0 1 1 2 2",
                "ERR invalid number of vertices",
            ),
            (
                "GEOSEARCH g BYPOLYGON 03 0 0 1 1 2 2",
                "ERR invalid number of vertices",
            ),
            (
                "GEOSEARCH g BYPOLYGON 3 200 0 x 0 1 1",
                "ERR invalid longitude,latitude pair 200.000000,0.000000",
            ),
            (
                "GEOSEARCH g BYPOLYGON 3 0 0 x 0 200 1",
                "ERR value is not a valid float",
            ),
            (
                "GEOSEARCH g BYPOLYGON 3 0x10 0 1 1 2 2",
                "ERR value is not a valid float",
            ),
            (
                "GEOSEARCH g BYPOLYGON 3 0 0 1 1 2 2 BYRADIUS 1 km",
                "ERR syntax error",
            ),
            (
                "GEOSEARCH g FROMLONLAT 0 0 BYPOLYGON 3 0 0 1 1 2 2",
                "ERR syntax error",
            ),
            (
                "GEOSEARCH g FROMMEMBER zz BYPOLYGON 3 0 0 1 1 2 2",
                "ERR member zz does not exist",
            ),
        ] {
            assert_eq!(q(v9, &mut ks, cmd), err(want), "{cmd}");
        }
        // Around the pole the centre leaves the GEO latitudes: nothing is found.
        assert_eq!(
            q(v9, &mut ks, "GEOSEARCH g BYPOLYGON 3 0 84 120 84 -120 84"),
            Reply::Array(vec![])
        );
        let older = crate::dialect::PROFILES
            .iter()
            .filter(|p| !p.geosearch_bypolygon && p.has_command("geosearch"));
        for p in older {
            assert_eq!(
                q(p, &mut ks, "GEOSEARCH g BYPOLYGON 4 0 0 1 0 1 1 0 1"),
                Reply::syntax_error(),
                "{}",
                p.name
            );
        }
    }

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
