//! Sorted-set read commands, with Redis 7.4's argument rules, error texts and RESP2 reply
//! shapes: ZSCORE, ZMSCORE, ZCARD, ZRANK, ZREVRANK (WITHSCORE), ZCOUNT, ZRANGE
//! (BYSCORE/BYLEX/REV/LIMIT/WITHSCORES), ZRANGEBYSCORE, ZSCAN. Every score printed goes
//! through the profile's [`crate::dialect::Profile::format_score`].
//!
//! ZSCAN: a set that Redis keeps as a listpack (at most 128 members of at most 64 bytes, the
//! `zset-max-listpack-*` defaults) replies with every member and cursor 0, in score order,
//! as Redis does; a larger (skiplist) set is scanned in score order COUNT members at a time,
//! the cursor being the position (Redis' cursors and order there come from its hash table).

use super::args::{int_arg, is, parse_i64};
use super::set::{parse_default, parse_scan_cursor, parse_scan_opts_of, scan_reply};
use super::{CommandSpec, Ctx};
use crate::keyspace::{Keyspace, Value};
use crate::reply::Reply;
use crate::zset::ZSet;

/// Sorted-set commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "zscore",
        arity: 3,
        handler: zscore,
    },
    CommandSpec {
        name: "zmscore",
        arity: -3,
        handler: zmscore,
    },
    CommandSpec {
        name: "zcard",
        arity: 2,
        handler: zcard,
    },
    // Before Redis 7.2 (profile `zrank_withscore`) ZRANK/ZREVRANK take exactly 3 arguments:
    // `rank` gives the arity error for a 4th.
    CommandSpec {
        name: "zrank",
        arity: -3,
        handler: zrank,
    },
    CommandSpec {
        name: "zrevrank",
        arity: -3,
        handler: zrevrank,
    },
    CommandSpec {
        name: "zcount",
        arity: 4,
        handler: zcount,
    },
    CommandSpec {
        name: "zrange",
        arity: -4,
        handler: zrange,
    },
    CommandSpec {
        name: "zrangebyscore",
        arity: -4,
        handler: zrangebyscore,
    },
    CommandSpec {
        name: "zscan",
        arity: -3,
        handler: zscan,
    },
    CommandSpec {
        name: "zrevrange",
        arity: -4,
        handler: zrevrange,
    },
    CommandSpec {
        name: "zrevrangebyscore",
        arity: -4,
        handler: zrevrangebyscore,
    },
    CommandSpec {
        name: "zrangebylex",
        arity: -4,
        handler: zrangebylex,
    },
    CommandSpec {
        name: "zrevrangebylex",
        arity: -4,
        handler: zrevrangebylex,
    },
    CommandSpec {
        name: "zlexcount",
        arity: 4,
        handler: zlexcount,
    },
    CommandSpec {
        name: "zunion",
        arity: -3,
        handler: zunion,
    },
    CommandSpec {
        name: "zinter",
        arity: -3,
        handler: zinter,
    },
    CommandSpec {
        name: "zdiff",
        arity: -3,
        handler: zdiff,
    },
    CommandSpec {
        name: "zintercard",
        arity: -3,
        handler: zintercard,
    },
];

/// Redis' default `zset-max-listpack-entries`.
const MAX_LISTPACK_ENTRIES: usize = 128;
/// Redis' default `zset-max-listpack-value`.
const MAX_LISTPACK_VALUE: usize = 64;

/// The sorted set under `key`: `Ok(None)` when missing, WRONGTYPE for other types.
pub(super) fn zset_at<'a>(ks: &'a Keyspace, key: &[u8]) -> Result<Option<&'a ZSet>, Reply> {
    match ks.get(key) {
        None => Ok(None),
        Some(Value::ZSet(z)) => Ok(Some(z)),
        Some(_) => Err(Reply::wrong_type()),
    }
}

/// ZSCORE key member.
fn zscore(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    match zset_at(ks, &argv[1]) {
        Err(e) => e,
        Ok(z) => match z.and_then(|z| z.score(&argv[2]).map(|s| z.loaded_score(s, ctx.profile))) {
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
    match zrange_inner(ctx, argv, None) {
        Ok(r) | Err(r) => r,
    }
}

/// ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]: ZRANGE BYSCORE without REV
/// (REV, BYSCORE and BYLEX are syntax errors here).
fn zrangebyscore(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    match zrange_inner(ctx, argv, Some((RangeBy::Score, false))) {
        Ok(r) | Err(r) => r,
    }
}

/// ZREVRANGE key start stop [WITHSCORES]: as Redis 7.4's ZRANGE ... REV over ranks (LIMIT
/// is the BYSCORE/BYLEX error, REV and BY* syntax errors).
fn zrevrange(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    match zrange_inner(ctx, argv, Some((RangeBy::Rank, true))) {
        Ok(r) | Err(r) => r,
    }
}

/// ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count]: as Redis 7.4's ZRANGE
/// BYSCORE REV.
fn zrevrangebyscore(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    match zrange_inner(ctx, argv, Some((RangeBy::Score, true))) {
        Ok(r) | Err(r) => r,
    }
}

/// ZRANGEBYLEX key min max [LIMIT offset count]: as Redis 7.4's ZRANGE BYLEX (WITHSCORES
/// refused with its BYLEX error). On a skiplist whose scores differ Redis' reply depends on
/// its random levels (see [`in_lex_range`]).
fn zrangebylex(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    match zrange_inner(ctx, argv, Some((RangeBy::Lex, false))) {
        Ok(r) | Err(r) => r,
    }
}

/// ZREVRANGEBYLEX key max min [LIMIT offset count]: as Redis 7.4's ZRANGE BYLEX REV.
fn zrevrangebylex(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    match zrange_inner(ctx, argv, Some((RangeBy::Lex, true))) {
        Ok(r) | Err(r) => r,
    }
}

/// ZLEXCOUNT key min max: the members from the first at or above `min` while at or below
/// `max`, as Redis 7.4 counts them on a listpack (range parsed before the key is read).
fn zlexcount(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let (Some(min), Some(max)) = (lex_bound(&argv[2]), lex_bound(&argv[3])) else {
        return Reply::err("ERR min or max not valid string range item");
    };
    let z = match zset_at(ctx.ks, &argv[1]) {
        Ok(Some(z)) => z,
        Ok(None) => return Reply::Integer(0),
        Err(e) => return e,
    };
    let sorted = z.sorted();
    if !in_lex_range(sorted, &min, &max) {
        return Reply::Integer(0);
    }
    let n = sorted
        .iter()
        .skip_while(|(_, m)| !lex_gte_min(m, &min))
        .take_while(|(_, m)| lex_lte_max(m, &max))
        .count();
    Reply::Integer(n as i64)
}

/// Which of ZUNION, ZINTER, ZDIFF (ZINTERCARD is ZINTER counting).
#[derive(PartialEq, Clone, Copy)]
enum SetOp {
    Union,
    Inter,
    Diff,
}

/// An input of ZUNION & co.: a sorted set's (member, score) pairs, or a set's members with
/// score 1 (Redis' `zuiNext` over a set), or nothing for a missing key.
struct OpSource<'a> {
    /// Members and scores in the input's own order.
    items: Vec<(std::borrow::Cow<'a, [u8]>, f64)>,
    /// The key index in argv, to tell one key given twice.
    key: usize,
    weight: f64,
}

/// Redis' `zunionInterAggregate`: SUM (a NaN sum of opposite infinities is 0), MIN, MAX.
fn aggregate(target: &mut f64, val: f64, how: u8) {
    match how {
        b's' => {
            *target += val;
            if target.is_nan() {
                *target = 0.0;
            }
        }
        b'n' => {
            if val < *target {
                *target = val
            }
        }
        _ => {
            if val > *target {
                *target = val
            }
        }
    }
}

/// ZUNION / ZINTER / ZDIFF / ZINTERCARD numkeys key [key ...] and their options, as Redis 7.4's
/// `zunionInterDiffGenericCommand`: numkeys read first, then every key (WRONGTYPE for one
/// neither a sorted set nor a set), then WEIGHTS / AGGREGATE / WITHSCORES / LIMIT. The result
/// is ordered as Redis' skiplist: by score, ties by member bytes.
fn zsetop(ctx: &mut Ctx<'_>, argv: &[Vec<u8>], op: SetOp, card: bool) -> Reply {
    let profile = ctx.profile;
    let setnum = match int_arg(&argv[1]) {
        Ok(n) => n,
        Err(e) => return e,
    };
    let name = argv[0].to_ascii_lowercase();
    if setnum < 1 {
        return Reply::err(
            profile
                .zsetop_numkeys_error
                .replace("{}", &String::from_utf8_lossy(&name)),
        );
    }
    if setnum > (argv.len() - 2) as i64 {
        return Reply::syntax_error();
    }
    let setnum = setnum as usize;
    let ks = &*ctx.ks;
    let mut src: Vec<OpSource<'_>> = Vec::with_capacity(setnum);
    for (i, key) in argv[2..2 + setnum].iter().enumerate() {
        let items: Vec<(std::borrow::Cow<'_, [u8]>, f64)> = match ks.get(key) {
            None => Vec::new(),
            Some(Value::ZSet(z)) => z
                .iter()
                .map(|(m, s)| (std::borrow::Cow::Borrowed(m), z.loaded_score(s, profile)))
                .collect(),
            Some(Value::Set(s)) => s
                .members()
                .into_iter()
                .map(|m| (std::borrow::Cow::Owned(m), 1.0))
                .collect(),
            Some(_) => return Reply::wrong_type(),
        };
        // One key given twice is one input (Redis compares the objects).
        let first = argv[2..2 + i].iter().position(|k| k == key).unwrap_or(i);
        src.push(OpSource {
            items,
            key: first,
            weight: 1.0,
        });
    }
    let mut j = 2 + setnum;
    let (mut how, mut withscores, mut limit) = (b's', false, 0i64);
    while j < argv.len() {
        let remaining = argv.len() - j;
        let a = &argv[j];
        if op != SetOp::Diff && !card && remaining > setnum && is(a, "weights") {
            j += 1;
            for s in src.iter_mut() {
                match crate::command::args::parse_f64(&argv[j]) {
                    Some(w) => s.weight = w,
                    None => return Reply::err("ERR weight value is not a float"),
                }
                j += 1;
            }
        } else if op != SetOp::Diff && !card && remaining >= 2 && is(a, "aggregate") {
            let v = &argv[j + 1];
            how = if is(v, "sum") {
                b's'
            } else if is(v, "min") {
                b'n'
            } else if is(v, "max") {
                b'x'
            } else {
                return Reply::syntax_error();
            };
            j += 2;
        } else if !card && is(a, "withscores") {
            withscores = true;
            j += 1;
        } else if card && remaining >= 2 && is(a, "limit") {
            // getPositiveLongFromObjectOrReply with a message: one text for both.
            match parse_i64(&argv[j + 1]) {
                Some(l) if l >= 0 => limit = l,
                _ => return Reply::err("ERR LIMIT can't be negative"),
            }
            j += 2;
        } else {
            return Reply::syntax_error();
        }
    }
    if op != SetOp::Diff {
        // Smallest first (Redis' qsort by cardinality; equal sizes in any order, which
        // changes no member nor, for the scores of one input order, the aggregate).
        src.sort_by_key(|s| s.items.len());
    }
    let mut out: Vec<(f64, Vec<u8>)> = Vec::new();
    let mut count = 0i64;
    match op {
        SetOp::Inter => {
            if src[0].items.is_empty() {
                // Skip everything when the smallest input is empty.
            } else {
                let maps: Vec<std::collections::HashMap<&[u8], f64>> = src[1..]
                    .iter()
                    .map(|s| s.items.iter().map(|(m, sc)| (&m[..], *sc)).collect())
                    .collect();
                for (m, sc) in &src[0].items {
                    let mut score = src[0].weight * sc;
                    if score.is_nan() {
                        score = 0.0;
                    }
                    let mut all = true;
                    for (k, s) in src[1..].iter().enumerate() {
                        let value = if s.key == src[0].key {
                            *sc
                        } else if let Some(v) = maps[k].get(&m[..]) {
                            *v
                        } else {
                            all = false;
                            break;
                        };
                        aggregate(&mut score, value * s.weight, how);
                    }
                    if !all {
                        continue;
                    }
                    if card {
                        count += 1;
                        if limit != 0 && count >= limit {
                            break;
                        }
                    } else {
                        out.push((score, m.to_vec()));
                    }
                }
            }
        }
        SetOp::Union => {
            let mut acc: std::collections::HashMap<&[u8], usize> = std::collections::HashMap::new();
            for s in &src {
                for (m, sc) in &s.items {
                    let mut score = s.weight * sc;
                    if score.is_nan() {
                        score = 0.0;
                    }
                    match acc.get(&m[..]) {
                        Some(&at) => aggregate(&mut out[at].0, score, how),
                        None => {
                            acc.insert(&m[..], out.len());
                            out.push((score, m.to_vec()));
                        }
                    }
                }
            }
        }
        SetOp::Diff => {
            let first = &src[0];
            if !first.items.is_empty() && !src[1..].iter().any(|s| s.key == first.key) {
                let others: std::collections::HashSet<&[u8]> = src[1..]
                    .iter()
                    .flat_map(|s| s.items.iter().map(|(m, _)| &m[..]))
                    .collect();
                out = first
                    .items
                    .iter()
                    .filter(|(m, _)| !others.contains(&m[..]))
                    .map(|(m, sc)| (*sc, m.to_vec()))
                    .collect();
            }
        }
    }
    if card {
        return Reply::Integer(count);
    }
    out.sort_by(|a, b| {
        a.0.partial_cmp(&b.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.1.cmp(&b.1))
    });
    let mut reply = Vec::with_capacity(out.len() * (1 + withscores as usize));
    for (s, m) in out {
        reply.push(Reply::Bulk(m));
        if withscores {
            reply.push(Reply::bulk(profile.format_score(s)));
        }
    }
    Reply::Array(reply)
}

/// ZUNION numkeys key [key ...] [WEIGHTS w ...] [AGGREGATE SUM|MIN|MAX] [WITHSCORES] (6.2+).
fn zunion(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    zsetop(ctx, argv, SetOp::Union, false)
}

/// ZINTER numkeys key [key ...] [WEIGHTS w ...] [AGGREGATE SUM|MIN|MAX] [WITHSCORES] (6.2+).
fn zinter(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    zsetop(ctx, argv, SetOp::Inter, false)
}

/// ZDIFF numkeys key [key ...] [WITHSCORES] (6.2+): the first input's members in none of the
/// others, with the first input's scores.
fn zdiff(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    zsetop(ctx, argv, SetOp::Diff, false)
}

/// ZINTERCARD numkeys key [key ...] [LIMIT limit] (7.0+): ZINTER's size, stopping at LIMIT
/// (0: no limit).
fn zintercard(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    zsetop(ctx, argv, SetOp::Inter, true)
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

/// Redis' check before any lexical range walk: the range is not empty (min at most max,
/// and not equal with an exclusive end), the last member is at or above the minimum and the
/// first at or below the maximum. On a listpack Redis then scans linearly, as
/// [`zrange_inner`] does; on a skiplist whose scores differ it searches the skiplist's random
/// levels, which orders members by score, not bytes: such replies cannot be reproduced.
fn in_lex_range(sorted: &[(f64, crate::zset::Member)], min: &LexBound, max: &LexBound) -> bool {
    let rank = |b: &LexBound| match b {
        LexBound::Min => (0, None),
        LexBound::Incl(v) | LexBound::Excl(v) => (1, Some(v.clone())),
        LexBound::Max => (2, None),
    };
    let excl = |b: &LexBound| matches!(b, LexBound::Excl(_));
    match rank(min).cmp(&rank(max)) {
        std::cmp::Ordering::Greater => return false,
        std::cmp::Ordering::Equal if excl(min) || excl(max) => return false,
        _ => {}
    }
    match (sorted.first(), sorted.last()) {
        (Some(first), Some(last)) => lex_gte_min(&last.1, min) && lex_lte_max(&first.1, max),
        _ => false,
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

/// ZRANGE (`fixed` None) or a ZRANGEBYx form (`fixed` its range kind).
fn zrange_inner(
    ctx: &mut Ctx<'_>,
    argv: &[Vec<u8>],
    fixed: Option<(RangeBy, bool)>,
) -> Result<Reply, Reply> {
    let profile = ctx.profile;
    let ks = &mut *ctx.ks;
    let old = !profile.zrange_by;
    if old && matches!(fixed, None | Some((RangeBy::Rank, _))) {
        // Redis 6.0: ZRANGE / ZREVRANGE key start stop [WITHSCORES], indexes parsed first.
        int_arg(&argv[2])?;
        int_arg(&argv[3])?;
        if argv.len() > 5 || (argv.len() == 5 && !is(&argv[4], "withscores")) {
            return Err(Reply::syntax_error());
        }
    }
    if let (true, Some((by @ (RangeBy::Score | RangeBy::Lex), rev))) = (old, fixed) {
        // Redis 6.0's ZRANGEBYSCORE / ZRANGEBYLEX family parse the range before the options.
        let (lo, hi) = if rev {
            (&argv[3], &argv[2])
        } else {
            (&argv[2], &argv[3])
        };
        if by == RangeBy::Score && (score_bound(lo).is_none() || score_bound(hi).is_none()) {
            return Err(Reply::err("ERR min or max is not a float"));
        }
        if by == RangeBy::Lex && (lex_bound(lo).is_none() || lex_bound(hi).is_none()) {
            return Err(Reply::err("ERR min or max not valid string range item"));
        }
    }
    // Redis 6.0's ZRANGEBYLEX takes LIMIT only (WITHSCORES is a plain syntax error).
    let lex60 = old && matches!(fixed, Some((RangeBy::Lex, _)));
    let (mut rev, mut withscores) = (fixed.is_some_and(|f| f.1), false);
    let mut by = fixed.map(|f| f.0);
    let free = fixed.is_none();
    let (mut offset, mut limit) = (0i64, -1i64);
    let mut j = 4;
    while j < argv.len() {
        let a = &argv[j];
        let left = argv.len() - j - 1;
        if is(a, "withscores") && !lex60 {
            withscores = true;
        } else if is(a, "limit") && left >= 2 {
            offset = int_arg(&argv[j + 1])?;
            limit = int_arg(&argv[j + 2])?;
            j += 2;
        } else if free && !rev && is(a, "rev") {
            rev = true;
        } else if free && by.is_none() && is(a, "bylex") {
            by = Some(RangeBy::Lex);
        } else if free && by.is_none() && is(a, "byscore") {
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
            window(idx, offset, limit, z, profile)
        }
        RangeBy::Lex => {
            let (Some(min), Some(max)) = (lex_bound(lo_arg), lex_bound(hi_arg)) else {
                return Err(Reply::err("ERR min or max not valid string range item"));
            };
            let Some(z) = zset_at(ks, &argv[1])? else {
                return Ok(Reply::Array(Vec::new()));
            };
            let sorted = z.sorted();
            if !in_lex_range(sorted, &min, &max) {
                return Ok(Reply::Array(Vec::new()));
            }
            if !is_skiplist(z) {
                // A listpack: Redis finds the first member in range (the last with REV), steps
                // LIMIT's offset members from it without looking at them, then replies while
                // members stay at or below the maximum (at or above the minimum with REV).
                let n = sorted.len();
                let first = if rev {
                    (0..n)
                        .rev()
                        .find(|&i| lex_lte_max(&sorted[i].1, &max))
                        .filter(|&i| lex_gte_min(&sorted[i].1, &min))
                } else {
                    (0..n)
                        .find(|&i| lex_gte_min(&sorted[i].1, &min))
                        .filter(|&i| lex_lte_max(&sorted[i].1, &max))
                };
                let Some(first) = first else {
                    return Ok(Reply::Array(Vec::new()));
                };
                let at = if rev {
                    first as i64 - offset
                } else {
                    first as i64 + offset
                };
                if offset < 0 || at < 0 || at >= n as i64 {
                    return Ok(Reply::Array(Vec::new()));
                }
                let at = at as usize;
                let walk: Vec<usize> = if rev {
                    (0..=at)
                        .rev()
                        .take_while(|&i| lex_gte_min(&sorted[i].1, &min))
                        .collect()
                } else {
                    (at..n)
                        .take_while(|&i| lex_lte_max(&sorted[i].1, &max))
                        .collect()
                };
                let take = if limit < 0 {
                    usize::MAX
                } else {
                    limit as usize
                };
                walk.into_iter().take(take).collect()
            } else {
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
                window(idx, offset, limit, z, profile)
            }
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
            out.push(Reply::bulk(
                profile.format_score(z.loaded_score(*s, profile)),
            ));
        }
    }
    Ok(Reply::Array(out))
}

/// True when Redis keeps `z` as a skiplist rather than a listpack (more than 128 members or
/// one longer than 64 bytes, the `zset-max-listpack-*` defaults).
fn is_skiplist(z: &ZSet) -> bool {
    z.len() > MAX_LISTPACK_ENTRIES || z.iter().any(|(m, _)| m.len() > MAX_LISTPACK_VALUE)
}

/// LIMIT offset count over a range (`idx`, in reply order): an offset at or past the set's
/// size gives nothing; a negative count takes everything after the offset. A negative offset
/// gives nothing on a listpack; on a skiplist Redis 7.4 counts it back from the end of the
/// range (nothing when it reaches before the range's start).
fn window(
    idx: Vec<usize>,
    offset: i64,
    limit: i64,
    z: &ZSet,
    profile: &crate::dialect::Profile,
) -> Vec<usize> {
    let negative_from_end = profile.zrange_negative_offset_from_end;
    let offset = if offset < 0 && negative_from_end && is_skiplist(z) {
        idx.len() as i64 + offset
    } else {
        offset
    };
    if offset < 0 || (offset > 0 && offset as u64 >= z.len() as u64) {
        return Vec::new();
    }
    let it = idx.into_iter().skip(offset as usize);
    if limit < 0 {
        it.collect()
    } else {
        it.take(limit as usize).collect()
    }
}

/// ZMSCORE key member [member ...]: one score or nil per member.
fn zmscore(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    match zset_at(ctx.ks, &argv[1]) {
        Err(e) => e,
        Ok(z) => Reply::Array(
            argv[2..]
                .iter()
                .map(
                    |m| match z.and_then(|z| z.score(m).map(|s| z.loaded_score(s, ctx.profile))) {
                        Some(s) => Reply::bulk(ctx.profile.format_score(s)),
                        None => Reply::NullBulk,
                    },
                )
                .collect(),
        ),
    }
}

/// ZRANK / ZREVRANK key member [WITHSCORE]: the member's rank (from the lowest, or highest,
/// score), with its score as a two-element array under WITHSCORE (Redis 7.2+); nil (a nil
/// array under WITHSCORE) when the key or member is missing.
fn rank(ctx: &mut Ctx<'_>, argv: &[Vec<u8>], rev: bool) -> Reply {
    if argv.len() > if ctx.profile.zrank_withscore { 4 } else { 3 } {
        return Reply::err(format!(
            "ERR wrong number of arguments for '{}' command",
            if rev { "zrevrank" } else { "zrank" }
        ));
    }
    let withscore = argv.len() == 4;
    if withscore && !is(&argv[3], "withscore") {
        return Reply::syntax_error();
    }
    let missing = if withscore {
        Reply::NullArray
    } else {
        Reply::NullBulk
    };
    let z = match zset_at(ctx.ks, &argv[1]) {
        Ok(Some(z)) => z,
        Ok(None) => return missing,
        Err(e) => return e,
    };
    let Some(pos) = z.position(&argv[2]) else {
        return missing;
    };
    let r = if rev { z.len() - 1 - pos } else { pos } as i64;
    if withscore {
        let score = z.loaded_score(z.sorted()[pos].0, ctx.profile);
        Reply::Array(vec![
            Reply::Integer(r),
            Reply::bulk(ctx.profile.format_score(score)),
        ])
    } else {
        Reply::Integer(r)
    }
}

fn zrank(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    rank(ctx, argv, false)
}

fn zrevrank(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    rank(ctx, argv, true)
}

/// ZCOUNT key min max: members with min <= score <= max (`(` exclusive, `-inf`/`+inf`).
fn zcount(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let (Some((min, minex)), Some((max, maxex))) = (score_bound(&argv[2]), score_bound(&argv[3]))
    else {
        return Reply::err("ERR min or max is not a float");
    };
    let z = match zset_at(ctx.ks, &argv[1]) {
        Ok(Some(z)) => z,
        Ok(None) => return Reply::Integer(0),
        Err(e) => return e,
    };
    let n = z
        .iter()
        .filter(|&(_, s)| {
            (if minex { s > min } else { s >= min }) && (if maxex { s < max } else { s <= max })
        })
        .count();
    Reply::Integer(n as i64)
}

/// ZSCAN key cursor [MATCH pattern] [COUNT count] (cursor rules in the module docs).
fn zscan(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let cursor = match parse_scan_cursor(&argv[2], ctx.profile) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let z = match zset_at(ctx.ks, &argv[1]) {
        Ok(Some(z)) => z,
        Ok(None) => return scan_reply(Vec::new(), true, 0, &parse_default()),
        Err(e) => return e,
    };
    let o = match parse_scan_opts_of(argv, false, true, ctx.profile) {
        Ok(o) => o,
        Err(e) => return e,
    };
    let compact =
        z.len() <= MAX_LISTPACK_ENTRIES && z.iter().all(|(m, _)| m.len() <= MAX_LISTPACK_VALUE);
    // A skiplist's scores are printed `%.17g` by every server, 7.2+ and Valkey included
    // (rec ZSCAN zset:big on 7.4.1, Valkey 8.1.8 and 9.1.2); a listpack's as the profile's.
    let fmt = |s: f64| {
        if compact {
            ctx.profile.format_score(z.loaded_score(s, ctx.profile))
        } else {
            crate::dialect::format_g17(s)
        }
    };
    let groups = z
        .iter()
        .map(|(m, s)| vec![m.to_vec(), fmt(s).into_bytes()])
        .collect();
    scan_reply(groups, compact, cursor, &o)
}

#[cfg(test)]
mod tests {
    use crate::command::execute_str;
    use crate::keyspace::{Keyspace, Value};
    use crate::reply::Reply;
    use crate::zset::ZSet;

    fn ks() -> Keyspace {
        let mut ks = Keyspace::new();
        ks.set(
            b"z",
            Value::zset(ZSet::from_pairs(vec![
                (b"a".to_vec(), 1.0),
                (b"b".to_vec(), 2.5),
                (b"c".to_vec(), 3.0),
            ])),
        );
        ks
    }

    #[test]
    fn ranks_counts_scores() {
        let mut ks = ks();
        assert_eq!(
            execute_str(&mut ks, &["ZRANK", "z", "b"]),
            Reply::Integer(1)
        );
        assert_eq!(
            // WITHSCORE: Redis 7.2+.
            crate::command::execute_as(
                &mut ks,
                &crate::dialect::REDIS_7_4,
                &["ZREVRANK", "z", "a", "WITHSCORE"]
            ),
            Reply::Array(vec![Reply::Integer(2), Reply::bulk("1")])
        );
        assert_eq!(
            crate::command::execute_as(
                &mut ks,
                &crate::dialect::REDIS_7_4,
                &["ZRANK", "nokey", "a", "WITHSCORE"]
            ),
            Reply::NullArray
        );
        assert_eq!(
            crate::command::execute_as(
                &mut ks,
                &crate::dialect::REDIS_7_4,
                &["ZRANK", "z", "a", "FOO"]
            ),
            Reply::syntax_error()
        );
        assert_eq!(
            crate::command::execute_as(
                &mut ks,
                &crate::dialect::REDIS_7_4,
                &["ZRANK", "z", "a", "WITHSCORE", "x"]
            ),
            Reply::err("ERR wrong number of arguments for 'zrank' command")
        );
        assert_eq!(
            execute_str(&mut ks, &["ZCOUNT", "z", "(1", "+inf"]),
            Reply::Integer(2)
        );
        assert_eq!(
            execute_str(&mut ks, &["ZMSCORE", "z", "b", "x"]),
            Reply::Array(vec![Reply::bulk("2.5"), Reply::NullBulk])
        );
        assert_eq!(
            execute_str(
                &mut ks,
                &[
                    "ZRANGEBYSCORE",
                    "z",
                    "-inf",
                    "+inf",
                    "WITHSCORES",
                    "LIMIT",
                    "1",
                    "1"
                ]
            ),
            Reply::Array(vec![Reply::bulk("b"), Reply::bulk("2.5")])
        );
        assert_eq!(
            execute_str(&mut ks, &["ZRANGEBYSCORE", "z", "0", "1", "REV"]),
            Reply::syntax_error()
        );
        assert_eq!(
            execute_str(&mut ks, &["ZSCAN", "z", "5", "COUNT", "1"]),
            Reply::Array(vec![
                Reply::bulk("0"),
                Reply::Array(
                    ["a", "1", "b", "2.5", "c", "3"]
                        .iter()
                        .map(Reply::bulk)
                        .collect()
                )
            ])
        );
    }
}
