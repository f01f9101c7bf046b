//! RedisBloom Cuckoo filter commands, with the replies and errors of RedisBloom 2.8.2 on Redis
//! 7.4.1 (RESP2): reads CF.EXISTS, CF.MEXISTS, CF.COUNT, CF.INFO; writes (to the in-memory
//! copy only) CF.RESERVE, CF.ADD, CF.ADDNX, CF.INSERT, CF.INSERTNX, CF.DEL.
//!
//! CF.RESERVE finds `BUCKETSIZE`, `MAXITERATIONS` and `EXPANSION` anywhere in argv (as the
//! module scans every argument); CF.INSERT reads `CAPACITY`, `NOCREATE` and `ITEMS` by their
//! first letter. Filters that CF.ADD / CF.INSERT create have capacity 1024, bucket size 2,
//! 20 iterations, expansion 1. A filter with 32 sub-filters refuses every insert.
//!
//! CF.EXISTS / CF.MEXISTS / CF.COUNT answer 0 for a missing key and for a key of another
//! type (the module treats any failed lookup as empty); CF.INFO answers `ERR not found` /
//! WRONGTYPE.

use super::args::parse_i64;
use super::module_keys::{self, lookup_mut, store, Lookup};
use super::{CommandSpec, Ctx};
use crate::keyspace::Value;
use crate::probabilistic::cuckoo::{Cuckoo, Insert, MAX_FILTERS};
use crate::probabilistic::{too_large, ModuleData};
use crate::reply::Reply;

/// Capacity of the filters CF.ADD / CF.INSERT create (the module's default).
const DEFAULT_CAPACITY: i64 = 1024;
/// The `MBbloomCF` encoding version RedisBloom 2.8 writes.
const ENCVER: u32 = 4;

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
    CommandSpec {
        name: "cf.reserve",
        arity: -1,
        handler: cf_reserve,
    },
    CommandSpec {
        name: "cf.add",
        arity: -1,
        handler: cf_add,
    },
    CommandSpec {
        name: "cf.addnx",
        arity: -1,
        handler: cf_add,
    },
    CommandSpec {
        name: "cf.insert",
        arity: -1,
        handler: cf_insert,
    },
    CommandSpec {
        name: "cf.insertnx",
        arity: -1,
        handler: cf_insert,
    },
    CommandSpec {
        name: "cf.del",
        arity: -1,
        handler: cf_del,
    },
];

fn arity(argv: &[Vec<u8>]) -> Reply {
    Reply::err(format!(
        "ERR wrong number of arguments for '{}' command",
        String::from_utf8_lossy(&argv[0]).to_ascii_lowercase()
    ))
}

/// The value after the first argument equal to `word` (any position, ignoring case):
/// `Ok(None)` when absent, `Err(())` when it does not parse (or is missing).
fn option(argv: &[Vec<u8>], word: &str) -> Result<Option<i64>, ()> {
    match argv
        .iter()
        .position(|a| a.eq_ignore_ascii_case(word.as_bytes()))
    {
        None => Ok(None),
        Some(at) => argv
            .get(at + 1)
            .and_then(|v| parse_i64(v))
            .map(Some)
            .ok_or(()),
    }
}

/// CF.RESERVE key capacity [BUCKETSIZE b] [MAXITERATIONS m] [EXPANSION e]: `OK`.
fn cf_reserve(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if argv.len() < 3 || argv.len().is_multiple_of(2) {
        return arity(argv);
    }
    let Some(capacity) = parse_i64(&argv[2]) else {
        return Reply::err("Bad capacity");
    };
    let max_iterations = match option(argv, "MAXITERATIONS") {
        Err(()) => return Reply::err("Couldn't parse MAXITERATIONS"),
        Ok(Some(m)) if !(1..=65535).contains(&m) => {
            return Reply::err(
                "MAXITERATIONS: value must be an integer between 1 and 65535, inclusive.",
            )
        }
        Ok(m) => m.unwrap_or(20),
    };
    let bucket_size = match option(argv, "BUCKETSIZE") {
        Err(()) => return Reply::err("Couldn't parse BUCKETSIZE"),
        Ok(Some(b)) if !(1..=255).contains(&b) => {
            return Reply::err("BUCKETSIZE: value must be an integer between 1 and 255, inclusive.")
        }
        Ok(b) => b.unwrap_or(2),
    };
    let expansion = match option(argv, "EXPANSION") {
        Err(()) => return Reply::err("Couldn't parse EXPANSION"),
        Ok(Some(e)) if !(0..=32768).contains(&e) => {
            return Reply::err(
                "EXPANSION: value must be an integer between 0 and 32768, inclusive.",
            )
        }
        Ok(e) => e.unwrap_or(1),
    };
    if bucket_size * 2 > capacity {
        return Reply::err("Capacity must be at least (BucketSize * 2)");
    }
    match ctx.ks.get(&argv[1]) {
        None => {}
        Some(Value::Module(m)) if matches!(m.data, ModuleData::Cuckoo(_)) => {
            return Reply::err("ERR item exists")
        }
        Some(_) => return Reply::wrong_type(),
    }
    match Cuckoo::reserve(
        capacity as u64,
        bucket_size as u16,
        max_iterations as u16,
        expansion as u16,
    ) {
        Ok(c) => {
            store(
                ctx.ks,
                &argv[1],
                b"MBbloomCF",
                ENCVER,
                ModuleData::Cuckoo(c),
            );
            Reply::ok()
        }
        Err(n) => too_large(n),
    }
}

/// Inserts `items` (creating the filter with `capacity` when `create`): per item 1 when
/// stored, 0 when (`nx`) present; a full filter is `Filter is full` for CF.ADD, -1 in a list.
fn insert(
    ctx: &mut Ctx<'_>,
    key: &[u8],
    items: &[Vec<u8>],
    nx: bool,
    create: Option<i64>,
    multi: bool,
) -> Reply {
    if let (Lookup::Missing, Some(capacity)) =
        (lookup_mut(ctx.ks, key, ModuleData::cuckoo_mut), create)
    {
        match Cuckoo::reserve(capacity as u64, 2, 20, 1) {
            Ok(c) => store(ctx.ks, key, b"MBbloomCF", ENCVER, ModuleData::Cuckoo(c)),
            Err(n) => return too_large(n),
        }
    }
    let cf = match lookup_mut(ctx.ks, key, ModuleData::cuckoo_mut) {
        Lookup::Found(c) => c,
        Lookup::Missing => return Reply::err("ERR not found"),
        Lookup::WrongType => return Reply::wrong_type(),
    };
    if cf.filters.len() >= MAX_FILTERS {
        return Reply::err("Maximum expansions reached");
    }
    let mut replies = Vec::with_capacity(items.len());
    for item in items {
        replies.push(match cf.insert(item, nx) {
            Insert::Inserted => Reply::Integer(1),
            Insert::Exists => Reply::Integer(0),
            Insert::NoSpace if !multi => return Reply::err("Filter is full"),
            Insert::NoSpace => Reply::Integer(-1),
            Insert::TooLarge(n) => too_large(n),
        });
    }
    if multi {
        Reply::Array(replies)
    } else {
        replies.pop().unwrap_or(Reply::Integer(0))
    }
}

/// Whether the command name ends in `x` (CF.ADDNX, CF.INSERTNX).
fn is_nx(argv: &[Vec<u8>]) -> bool {
    argv[0]
        .last()
        .is_some_and(|c| c.eq_ignore_ascii_case(&b'x'))
}

/// CF.ADD key item / CF.ADDNX key item.
fn cf_add(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if argv.len() != 3 {
        return arity(argv);
    }
    insert(
        ctx,
        &argv[1],
        &argv[2..],
        is_nx(argv),
        Some(DEFAULT_CAPACITY),
        false,
    )
}

/// CF.INSERT / CF.INSERTNX key [CAPACITY c] [NOCREATE] ITEMS item...
fn cf_insert(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if argv.len() < 4 {
        return arity(argv);
    }
    let (mut capacity, mut create) = (DEFAULT_CAPACITY, true);
    let mut pos = 2;
    let mut items = None;
    while pos < argv.len() && items.is_none() {
        match argv[pos].first().map(|c| c.to_ascii_lowercase()) {
            Some(b'c') => {
                pos += 1;
                if pos == argv.len() {
                    return arity(argv);
                }
                match parse_i64(&argv[pos]) {
                    Some(c) => capacity = c,
                    None => return Reply::err("Bad capacity"),
                }
                if 4 > capacity {
                    return Reply::err("Capacity must be at least (BucketSize * 2)");
                }
                pos += 1;
            }
            Some(b'i') => {
                pos += 1;
                items = Some(pos);
            }
            Some(b'n') => {
                create = false;
                pos += 1;
            }
            _ => return Reply::err("Unknown argument received"),
        }
    }
    let start = match items {
        Some(s) if s < argv.len() => s,
        _ => return arity(argv),
    };
    insert(
        ctx,
        &argv[1],
        &argv[start..],
        is_nx(argv),
        create.then_some(capacity),
        true,
    )
}

/// CF.DEL key item: 1 when a fingerprint was removed, else 0; `Not found` without a filter.
fn cf_del(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if argv.len() != 3 {
        return arity(argv);
    }
    match lookup_mut(ctx.ks, &argv[1], ModuleData::cuckoo_mut) {
        Lookup::Found(c) => Reply::Integer(c.delete(&argv[2]) as i64),
        _ => Reply::err("Not found"),
    }
}

/// The Cuckoo filter under `key`: `Ok(None)` when missing, `Err(())` for another type.
fn lookup<'a>(ctx: &'a Ctx<'_>, key: &[u8]) -> Result<Option<&'a Cuckoo>, ()> {
    fn pick(d: &ModuleData) -> Option<&Cuckoo> {
        match d {
            ModuleData::Cuckoo(c) => Some(c),
            _ => None,
        }
    }
    module_keys::lookup(ctx.ks, key, pick).optional()
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
