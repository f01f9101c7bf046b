//! RedisBloom Top-K commands, with the replies and errors of RedisBloom 2.8.2 (`TopK: key
//! does not exist`, WRONGTYPE, `WITHCOUNT keyword expected`): reads TOPK.QUERY, TOPK.COUNT,
//! TOPK.LIST \[WITHCOUNT\], TOPK.INFO; writes (to the in-memory copy only) TOPK.RESERVE,
//! TOPK.ADD, TOPK.INCRBY. Decay draws are random on the module and cannot be reproduced
//! (see [`crate::probabilistic::topk`]).

use super::args::{parse_f64, parse_i64};
use super::module_keys::{self, lookup_mut, store};
use super::{CommandSpec, Ctx};
use crate::probabilistic::topk::TopK;
use crate::probabilistic::{too_large, ModuleData};
use crate::reply::Reply;

/// TOPK.INCRBY's error for an increment outside 0..=100,000, with the run of spaces the
/// module's source line continuation leaves in it.
const INCREMENT_ERROR: &str = "TopK: increment must be an integer greater or equal to 0                            and smaller or equal to 100,000";

/// Top-K commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "topk.query",
        arity: -3,
        handler: topk_query,
    },
    CommandSpec {
        name: "topk.count",
        arity: -3,
        handler: topk_count,
    },
    CommandSpec {
        name: "topk.list",
        arity: -2,
        handler: topk_list,
    },
    CommandSpec {
        name: "topk.info",
        arity: 2,
        handler: topk_info,
    },
    CommandSpec {
        name: "topk.reserve",
        arity: -1,
        handler: topk_reserve,
    },
    CommandSpec {
        name: "topk.add",
        arity: -3,
        handler: topk_add,
    },
    CommandSpec {
        name: "topk.incrby",
        arity: -1,
        handler: topk_incrby,
    },
];

/// TOPK.RESERVE key k [width depth decay]: `OK` (defaults width 8, depth 7, decay 0.9). The
/// key is checked before the arguments. bitlens refuses k, width or depth past 2^32 - 1,
/// which the module truncates to 32 bits.
fn topk_reserve(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if argv.len() != 3 && argv.len() != 6 {
        return Reply::err("ERR wrong number of arguments for 'topk.reserve' command");
    }
    if ctx.ks.get(&argv[1]).is_some() {
        return Reply::err("TopK: key already exists");
    }
    let Some(k) = parse_i64(&argv[2]).filter(|&k| k >= 1) else {
        return Reply::err("TopK: invalid k");
    };
    let (mut width, mut depth, mut decay) = (8, 7, 0.9);
    if argv.len() == 6 {
        let Some(w) = parse_i64(&argv[3]).filter(|&w| w >= 1) else {
            return Reply::err("TopK: invalid width");
        };
        let Some(d) = parse_i64(&argv[4]).filter(|&d| d >= 1) else {
            return Reply::err("TopK: invalid depth");
        };
        let Some(y) = parse_f64(&argv[5]).filter(|&y| y > 0.0 && y <= 1.0) else {
            return Reply::err("TopK: invalid decay value. must be '<= 1' & '> 0'");
        };
        (width, depth, decay) = (w, d, y);
    }
    let (Ok(k), Ok(w), Ok(d)) = (u32::try_from(k), u32::try_from(width), u32::try_from(depth))
    else {
        return too_large(u64::MAX);
    };
    match TopK::new(k, w, d, decay) {
        Ok(t) => {
            store(ctx.ks, &argv[1], b"TopK-TYPE", 0, ModuleData::TopK(t));
            Reply::ok()
        }
        Err(n) => too_large(n),
    }
}

/// The reply for an expelled item: the item as a C string (up to its first NUL), or nil.
fn expelled(e: Option<Vec<u8>>) -> Reply {
    match e {
        Some(mut item) => {
            item.truncate(item.iter().position(|&b| b == 0).unwrap_or(item.len()));
            Reply::Bulk(item)
        }
        None => Reply::NullBulk,
    }
}

/// TOPK.ADD key item...: per item the item it pushed out of the list, or nil.
fn topk_add(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let t = match lookup_mut(ctx.ks, &argv[1], ModuleData::topk_mut).or_missing(MISSING) {
        Ok(t) => t,
        Err(e) => return e,
    };
    Reply::Array(
        argv[2..]
            .iter()
            .map(|i| expelled(t.add(i, 1).expelled))
            .collect(),
    )
}

/// TOPK.INCRBY key item increment [item increment ...]: as TOPK.ADD. A bad increment ends
/// the reply with the error after the items before it (the module declares the full count
/// and sends fewer elements; bitlens sends the elements it has).
fn topk_incrby(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if argv.len() < 4 || argv.len() % 2 == 1 {
        return Reply::err("ERR wrong number of arguments for 'topk.incrby' command");
    }
    let t = match lookup_mut(ctx.ks, &argv[1], ModuleData::topk_mut).or_missing(MISSING) {
        Ok(t) => t,
        Err(e) => return e,
    };
    let mut replies = Vec::with_capacity(argv.len() / 2);
    for p in argv[2..].chunks_exact(2) {
        match parse_i64(&p[1]).filter(|n| (0..=100_000).contains(n)) {
            Some(n) => replies.push(expelled(t.add(&p[0], n as u32).expelled)),
            None => {
                replies.push(Reply::err(INCREMENT_ERROR));
                break;
            }
        }
    }
    Reply::Array(replies)
}

/// The module's reply for a missing key.
const MISSING: &str = "TopK: key does not exist";

fn lookup<'a>(ctx: &'a Ctx<'_>, key: &[u8]) -> Result<&'a TopK, Reply> {
    fn pick(d: &ModuleData) -> Option<&TopK> {
        match d {
            ModuleData::TopK(t) => Some(t),
            _ => None,
        }
    }
    module_keys::lookup(ctx.ks, key, pick).or_missing(MISSING)
}

/// TOPK.QUERY key item...: 1 when the item is listed, else 0.
fn topk_query(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    match lookup(ctx, &argv[1]) {
        Ok(t) => Reply::Array(
            argv[2..]
                .iter()
                .map(|i| Reply::Integer(t.contains(i) as i64))
                .collect(),
        ),
        Err(e) => e,
    }
}

/// TOPK.COUNT key item...: the estimated count of each item.
fn topk_count(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    match lookup(ctx, &argv[1]) {
        Ok(t) => Reply::Array(
            argv[2..]
                .iter()
                .map(|i| Reply::Integer(t.count(i) as i64))
                .collect(),
        ),
        Err(e) => e,
    }
}

/// TOPK.LIST key [WITHCOUNT]: the listed items by decreasing count. The module accepts any
/// case-insensitive prefix of `WITHCOUNT` (it compares only the argument's length); the
/// argument is checked before the key.
fn topk_list(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if argv.len() > 3 {
        return Reply::err("ERR wrong number of arguments for 'topk.list' command");
    }
    let with_count = match argv.get(2) {
        None => false,
        Some(a) if a.len() <= 9 && b"WITHCOUNT"[..a.len()].eq_ignore_ascii_case(a) => true,
        Some(_) => return Reply::err("WITHCOUNT keyword expected"),
    };
    match lookup(ctx, &argv[1]) {
        Ok(t) => Reply::Array(
            t.list()
                .into_iter()
                .flat_map(|h| {
                    // The module replies with the item as a C string: up to its first NUL.
                    let end = h.item.iter().position(|&b| b == 0).unwrap_or(h.item.len());
                    let mut v = vec![Reply::Bulk(h.item[..end].to_vec())];
                    if with_count {
                        v.push(Reply::Integer(h.count as i64));
                    }
                    v
                })
                .collect(),
        ),
        Err(e) => e,
    }
}

/// TOPK.INFO key: k, width, depth, decay (the decay as its shortest round-trip text).
fn topk_info(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    match lookup(ctx, &argv[1]) {
        Ok(t) => Reply::Array(vec![
            Reply::Status("k".into()),
            Reply::Integer(t.k as i64),
            Reply::Status("width".into()),
            Reply::Integer(t.width as i64),
            Reply::Status("depth".into()),
            Reply::Integer(t.depth as i64),
            Reply::Status("decay".into()),
            Reply::Bulk(ctx.profile.format_score(t.decay).into_bytes()),
        ]),
        Err(e) => e,
    }
}
