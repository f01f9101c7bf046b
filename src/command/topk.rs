//! RedisBloom Top-K read commands: TOPK.QUERY, TOPK.COUNT, TOPK.LIST [WITHCOUNT], TOPK.INFO,
//! with the replies and errors of RedisBloom 2.8.2 (`TopK: key does not exist`, WRONGTYPE,
//! `WITHCOUNT keyword expected`).

use super::{CommandSpec, Ctx};
use crate::keyspace::Value;
use crate::probabilistic::topk::TopK;
use crate::probabilistic::ModuleData;
use crate::reply::Reply;

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
];

fn lookup<'a>(ctx: &'a Ctx<'_>, key: &[u8]) -> Result<&'a TopK, Reply> {
    match ctx.ks.get(key) {
        None => Err(Reply::err("TopK: key does not exist")),
        Some(Value::Module(m)) => match &m.data {
            ModuleData::TopK(t) => Ok(t),
            _ => Err(Reply::wrong_type()),
        },
        Some(_) => Err(Reply::wrong_type()),
    }
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
