//! RedisBloom Cuckoo filter read commands: CF.EXISTS, CF.MEXISTS, CF.COUNT, CF.INFO, with the
//! replies and errors of RedisBloom 2.8.2 on Redis 7.4.1 (RESP2).
//!
//! CF.EXISTS / CF.MEXISTS / CF.COUNT answer 0 for a missing key and for a key of another
//! type (the module treats any failed lookup as empty); CF.INFO answers `ERR not found` /
//! WRONGTYPE.

use super::{CommandSpec, Ctx};
use crate::keyspace::Value;
use crate::probabilistic::cuckoo::Cuckoo;
use crate::probabilistic::ModuleData;
use crate::reply::Reply;

/// Cuckoo filter commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "cf.exists",
        arity: 3,
        handler: cf_exists,
    },
    CommandSpec {
        name: "cf.mexists",
        arity: -3,
        handler: cf_exists,
    },
    CommandSpec {
        name: "cf.count",
        arity: 3,
        handler: cf_count,
    },
    CommandSpec {
        name: "cf.info",
        arity: 2,
        handler: cf_info,
    },
];

/// The Cuckoo filter under `key`: `Ok(None)` when missing, `Err(())` for another type.
fn lookup<'a>(ctx: &'a Ctx<'_>, key: &[u8]) -> Result<Option<&'a Cuckoo>, ()> {
    match ctx.ks.get(key) {
        None => Ok(None),
        Some(Value::Module(m)) => match &m.data {
            ModuleData::Cuckoo(c) => Ok(Some(c)),
            _ => Err(()),
        },
        Some(_) => Err(()),
    }
}

/// CF.EXISTS key item / CF.MEXISTS key item...: 1 or 0 per item (array for CF.MEXISTS).
fn cf_exists(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let cf = lookup(ctx, &argv[1]).ok().flatten();
    let answers: Vec<Reply> = argv[2..]
        .iter()
        .map(|item| Reply::Integer(cf.is_some_and(|c| c.contains(item)) as i64))
        .collect();
    if argv[0].eq_ignore_ascii_case(b"cf.mexists") {
        Reply::Array(answers)
    } else {
        answers.into_iter().next().unwrap_or(Reply::Integer(0))
    }
}

/// CF.COUNT key item: the item's fingerprint count.
fn cf_count(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let cf = lookup(ctx, &argv[1]).ok().flatten();
    Reply::Integer(cf.map_or(0, |c| c.count(&argv[2])) as i64)
}

/// CF.INFO key: size, buckets, filters, items, deletes, bucket size, expansion, iterations.
fn cf_info(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let c = match lookup(ctx, &argv[1]) {
        Ok(Some(c)) => c,
        Ok(None) => return Reply::err("ERR not found"),
        Err(()) => return Reply::wrong_type(),
    };
    let fields = [
        ("Size", c.memory()),
        ("Number of buckets", c.buckets),
        ("Number of filters", c.filters.len() as u64),
        ("Number of items inserted", c.items),
        ("Number of items deleted", c.deletes),
        ("Bucket size", c.bucket_size as u64),
        ("Expansion rate", c.expansion as u64),
        ("Max iterations", c.max_iterations as u64),
    ];
    Reply::Array(
        fields
            .into_iter()
            .flat_map(|(n, v)| [Reply::Status(n.into()), Reply::Integer(v as i64)])
            .collect(),
    )
}
