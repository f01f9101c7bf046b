//! RedisBloom Bloom filter read commands: BF.EXISTS, BF.MEXISTS, BF.CARD, BF.INFO, with the
//! replies and errors of RedisBloom 2.8.2 on Redis 7.4.1 (RESP2).
//!
//! BF.EXISTS / BF.MEXISTS answer 0 for a missing key *and* for a key of another type
//! (the module treats any failed lookup as an empty filter); BF.CARD answers 0 for a missing
//! key and WRONGTYPE for another type; BF.INFO answers `ERR not found` / WRONGTYPE.

use super::{CommandSpec, Ctx};
use crate::keyspace::Value;
use crate::probabilistic::bloom::Bloom;
use crate::probabilistic::ModuleData;
use crate::reply::Reply;

/// Bloom filter commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "bf.exists",
        arity: 3,
        handler: bf_exists,
    },
    CommandSpec {
        name: "bf.mexists",
        arity: -3,
        handler: bf_exists,
    },
    CommandSpec {
        name: "bf.card",
        arity: 2,
        handler: bf_card,
    },
    CommandSpec {
        name: "bf.info",
        arity: -2,
        handler: bf_info,
    },
];

/// The Bloom filter under `key`: `Ok(None)` when missing, `Err(())` for another type.
fn lookup<'a>(ctx: &'a Ctx<'_>, key: &[u8]) -> Result<Option<&'a Bloom>, ()> {
    match ctx.ks.get(key) {
        None => Ok(None),
        Some(Value::Module(m)) => match &m.data {
            ModuleData::Bloom(b) => Ok(Some(b)),
            _ => Err(()),
        },
        Some(_) => Err(()),
    }
}

/// BF.EXISTS key item / BF.MEXISTS key item...: 1 or 0 per item (array for BF.MEXISTS).
fn bf_exists(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let bloom = lookup(ctx, &argv[1]).ok().flatten();
    let answers: Vec<Reply> = argv[2..]
        .iter()
        .map(|item| Reply::Integer(bloom.is_some_and(|b| b.contains(item)) as i64))
        .collect();
    if argv[0].eq_ignore_ascii_case(b"bf.mexists") {
        Reply::Array(answers)
    } else {
        answers.into_iter().next().unwrap_or(Reply::Integer(0))
    }
}

/// BF.CARD key: the items added (0 for a missing key).
fn bf_card(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    match lookup(ctx, &argv[1]) {
        Ok(b) => Reply::Integer(b.map_or(0, |b| b.size as i64)),
        Err(()) => Reply::wrong_type(),
    }
}

/// BF.INFO key [CAPACITY | SIZE | FILTERS | ITEMS | EXPANSION].
fn bf_info(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if argv.len() > 3 {
        return Reply::err("ERR wrong number of arguments for 'bf.info' command");
    }
    let b = match lookup(ctx, &argv[1]) {
        Ok(Some(b)) => b,
        Ok(None) => return Reply::err("ERR not found"),
        Err(()) => return Reply::wrong_type(),
    };
    let expansion = if b.scaling() {
        Reply::Integer(b.growth as i64)
    } else {
        Reply::NullBulk
    };
    let fields = [
        ("Capacity", "capacity", Reply::Integer(b.capacity() as i64)),
        ("Size", "size", Reply::Integer(b.memory() as i64)),
        (
            "Number of filters",
            "filters",
            Reply::Integer(b.links.len() as i64),
        ),
        (
            "Number of items inserted",
            "items",
            Reply::Integer(b.size as i64),
        ),
        ("Expansion rate", "expansion", expansion),
    ];
    match argv.get(2) {
        None => Reply::Array(
            fields
                .into_iter()
                .flat_map(|(name, _, v)| [Reply::Status(name.into()), v])
                .collect(),
        ),
        Some(which) => match fields
            .into_iter()
            .find(|(_, arg, _)| which.eq_ignore_ascii_case(arg.as_bytes()))
        {
            Some((_, _, v)) => Reply::Array(vec![v]),
            None => Reply::err("Invalid information value"),
        },
    }
}
