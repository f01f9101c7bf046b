//! RedisBloom Bloom filter commands, with the replies and errors of RedisBloom 2.8.2 on Redis
//! 7.4.1 (RESP2): reads BF.EXISTS, BF.MEXISTS, BF.CARD, BF.INFO; writes (to the in-memory
//! copy only) BF.RESERVE, BF.ADD, BF.MADD, BF.INSERT.
//!
//! BF.RESERVE finds its `NONSCALING` and `EXPANSION` keywords anywhere in argv (the module
//! scans every argument, the command name and key included, and ignores unknown words);
//! BF.INSERT reads its options by their first letter(s) up to `ITEMS`. New filters default to
//! error 0.01, capacity 100, expansion 2 (the module's defaults). A structure past
//! [`crate::probabilistic::MAX_ALLOC_BYTES`] is refused with bitlens' own error.
//!
//! BF.EXISTS / BF.MEXISTS answer 0 for a missing key *and* for a key of another type
//! (the module treats any failed lookup as an empty filter); BF.CARD answers 0 for a missing
//! key and WRONGTYPE for another type; BF.INFO answers `ERR not found` / WRONGTYPE.

use super::args::{parse_f64, parse_i64};
use super::module_keys::{self, lookup_mut, store, Lookup};
use super::{CommandSpec, Ctx};
use crate::keyspace::Value;
use crate::probabilistic::bloom::{AddError, Bloom};
use crate::probabilistic::{too_large, ModuleData};
use crate::reply::Reply;

/// The module's default error rate for filters BF.ADD / BF.INSERT create.
const DEFAULT_ERROR: f64 = 0.01;
/// The module's default capacity.
const DEFAULT_CAPACITY: i64 = 100;
/// The module's default expansion.
const DEFAULT_EXPANSION: i64 = 2;
/// The `MBbloom--` encoding version RedisBloom 2.8 writes.
const ENCVER: u32 = 4;

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
    CommandSpec {
        name: "bf.reserve",
        arity: -1,
        handler: bf_reserve,
    },
    CommandSpec {
        name: "bf.add",
        arity: -1,
        handler: bf_add,
    },
    CommandSpec {
        name: "bf.madd",
        arity: -1,
        handler: bf_add,
    },
    CommandSpec {
        name: "bf.insert",
        arity: -1,
        handler: bf_insert,
    },
];

fn arity(argv: &[Vec<u8>]) -> Reply {
    Reply::err(format!(
        "ERR wrong number of arguments for '{}' command",
        String::from_utf8_lossy(&argv[0]).to_ascii_lowercase()
    ))
}

/// The first argument (the command name and key included) equal to `word`, ignoring case.
fn arg_index(argv: &[Vec<u8>], word: &str) -> Option<usize> {
    argv.iter()
        .position(|a| a.eq_ignore_ascii_case(word.as_bytes()))
}

/// BF.RESERVE key error_rate capacity [EXPANSION n] [NONSCALING]: `OK`.
fn bf_reserve(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if !(4..=7).contains(&argv.len()) {
        return arity(argv);
    }
    let error = match parse_f64(&argv[2]) {
        None => return Reply::err("ERR bad error rate"),
        Some(e) if e >= 1.0 || e <= 0.0 => return Reply::err("ERR (0 < error rate range < 1) "),
        Some(e) => e,
    };
    let capacity = match parse_i64(&argv[3]) {
        None => return Reply::err("ERR bad capacity"),
        Some(c) if c <= 0 => return Reply::err("ERR (capacity should be larger than 0)"),
        Some(c) => c,
    };
    let scaling = arg_index(argv, "NONSCALING").is_none();
    let mut expansion = DEFAULT_EXPANSION;
    if let Some(at) = arg_index(argv, "EXPANSION") {
        if at + 1 == argv.len() {
            return Reply::err("ERR no expansion");
        }
        if !scaling {
            return Reply::err("Nonscaling filters cannot expand");
        }
        expansion = match parse_i64(&argv[at + 1]) {
            None => return Reply::err("ERR bad expansion"),
            Some(x) if x < 1 => return Reply::err("ERR expansion should be greater or equal to 1"),
            Some(x) => x,
        };
    }
    match ctx.ks.get(&argv[1]) {
        None => {}
        Some(Value::Module(m)) if matches!(m.data, ModuleData::Bloom(_)) => {
            return Reply::err("ERR item exists")
        }
        Some(_) => return Reply::wrong_type(),
    }
    // The module keeps the expansion as a C `unsigned`.
    match Bloom::reserve(error, capacity as u64, expansion as u32, scaling) {
        Ok(b) => {
            store(ctx.ks, &argv[1], b"MBbloom--", ENCVER, ModuleData::Bloom(b));
            Reply::ok()
        }
        Err(AddError::TooLarge(n)) => too_large(n),
        Err(_) => Reply::err("ERR could not create filter"),
    }
}

/// Options of a Bloom insertion (BF.ADD, BF.MADD, BF.INSERT).
struct Insert {
    error: f64,
    capacity: i64,
    expansion: i64,
    scaling: bool,
    create: bool,
    multi: bool,
}

/// Adds `items` to the filter under `key` (creating it when allowed): one 1/0 per item, an
/// error for a full non-scaling filter (which ends the list) or a link that failed.
fn insert(ctx: &mut Ctx<'_>, key: &[u8], items: &[Vec<u8>], o: &Insert) -> Reply {
    let pick = ModuleData::bloom_mut;
    if matches!(lookup_mut(ctx.ks, key, pick), Lookup::Missing) && o.create {
        match Bloom::reserve(o.error, o.capacity as u64, o.expansion as u32, o.scaling) {
            Ok(b) => store(ctx.ks, key, b"MBbloom--", ENCVER, ModuleData::Bloom(b)),
            Err(AddError::TooLarge(n)) => return too_large(n),
            Err(_) => return Reply::err("ERR could not create filter"),
        }
    }
    let bloom = match lookup_mut(ctx.ks, key, pick) {
        Lookup::Found(b) => b,
        Lookup::Missing => return Reply::err("ERR not found"),
        Lookup::WrongType => return Reply::wrong_type(),
    };
    let mut replies = Vec::with_capacity(items.len());
    for item in items {
        let r = bloom.add(item);
        replies.push(match &r {
            Ok(added) => Reply::Integer(*added as i64),
            Err(AddError::Full) => Reply::err("ERR non scaling filter is full"),
            Err(AddError::Problem) => Reply::err("ERR problem inserting into filter"),
            Err(AddError::TooLarge(n)) => too_large(*n),
        });
        if matches!(r, Err(AddError::Full | AddError::TooLarge(_))) {
            break;
        }
    }
    if o.multi {
        Reply::Array(replies)
    } else {
        replies.pop().unwrap_or(Reply::Integer(0))
    }
}

/// BF.ADD key item / BF.MADD key item...: 1 when added, 0 when (maybe) present.
fn bf_add(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let multi = argv[0]
        .get(3)
        .is_some_and(|c| c.eq_ignore_ascii_case(&b'm'));
    if (multi && argv.len() < 3) || (!multi && argv.len() != 3) {
        return arity(argv);
    }
    let o = Insert {
        error: DEFAULT_ERROR,
        capacity: DEFAULT_CAPACITY,
        expansion: DEFAULT_EXPANSION,
        scaling: true,
        create: true,
        multi,
    };
    insert(ctx, &argv[1], &argv[2..], &o)
}

/// BF.INSERT key [CAPACITY c] [ERROR e] [EXPANSION x] [NOCREATE] [NONSCALING] ITEMS item...
/// Options are told apart by their first letter (`E`RROR vs `EX`PANSION by the second,
/// `NOC`REATE vs `NO`NSCALING by the third), as the module does.
fn bf_insert(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if argv.len() < 4 {
        return arity(argv);
    }
    let mut o = Insert {
        error: DEFAULT_ERROR,
        capacity: DEFAULT_CAPACITY,
        expansion: DEFAULT_EXPANSION,
        scaling: true,
        create: true,
        multi: true,
    };
    let mut pos = 2;
    let mut items = None;
    while pos < argv.len() && items.is_none() {
        let a = &argv[pos];
        let lower = |i: usize| a.get(i).map(|c| c.to_ascii_lowercase());
        match lower(0) {
            Some(b'i') => {
                pos += 1;
                items = Some(pos);
            }
            Some(b'e') => {
                pos += 1;
                if pos == argv.len() {
                    return arity(argv);
                }
                if lower(1) == Some(b'r') {
                    match parse_f64(&argv[pos]) {
                        Some(e) => o.error = e,
                        None => return Reply::err("Bad error rate"),
                    }
                } else {
                    match parse_i64(&argv[pos]) {
                        Some(x) => o.expansion = x,
                        None => return Reply::err("Bad expansion"),
                    }
                }
                pos += 1;
            }
            Some(b'c') => {
                pos += 1;
                if pos == argv.len() {
                    return arity(argv);
                }
                match parse_i64(&argv[pos]) {
                    Some(c) => o.capacity = c,
                    None => return Reply::err("Bad capacity"),
                }
                pos += 1;
            }
            Some(b'n') => {
                if lower(2) == Some(b'c') {
                    o.create = false;
                } else {
                    o.scaling = false;
                }
                pos += 1;
            }
            _ => return Reply::err("Unknown argument received"),
        }
    }
    let start = match items {
        Some(s) if s < argv.len() => s,
        _ => return arity(argv),
    };
    if o.error <= 0.0 || o.error >= 1.0 || o.capacity < 1 || o.expansion < 1 {
        return Reply::err("Bad argument received");
    }
    insert(ctx, &argv[1], &argv[start..], &o)
}

/// The Bloom filter under `key`: `Ok(None)` when missing, `Err(())` for another type.
fn lookup<'a>(ctx: &'a Ctx<'_>, key: &[u8]) -> Result<Option<&'a Bloom>, ()> {
    fn pick(d: &ModuleData) -> Option<&Bloom> {
        match d {
            ModuleData::Bloom(b) => Some(b),
            _ => None,
        }
    }
    module_keys::lookup(ctx.ks, key, pick).optional()
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
