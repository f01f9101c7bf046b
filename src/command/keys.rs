//! Keyspace commands: TYPE, EXISTS, DBSIZE, KEYS (and SCAN), as Redis 7 answers them.

use super::CommandSpec;
use crate::glob;
use crate::keyspace::Keyspace;
use crate::reply::Reply;

/// Keyspace commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "type",
        arity: 2,
        handler: type_cmd,
    },
    CommandSpec {
        name: "exists",
        arity: -2,
        handler: exists,
    },
    CommandSpec {
        name: "dbsize",
        arity: 1,
        handler: dbsize,
    },
    CommandSpec {
        name: "keys",
        arity: 2,
        handler: keys,
    },
];

/// TYPE key: `+string`, `+zset`, ..., or `+none` for a missing key.
fn type_cmd(ks: &mut Keyspace, argv: &[Vec<u8>]) -> Reply {
    match ks.get(&argv[1]) {
        Some(v) => Reply::Status(v.redis_type().name()),
        None => Reply::Status("none".into()),
    }
}

/// EXISTS key [key ...]: how many of the named keys exist (a repeated key counts each time).
fn exists(ks: &mut Keyspace, argv: &[Vec<u8>]) -> Reply {
    Reply::Integer(argv[1..].iter().filter(|k| ks.get(k).is_some()).count() as i64)
}

/// DBSIZE: the number of keys.
fn dbsize(ks: &mut Keyspace, _argv: &[Vec<u8>]) -> Reply {
    Reply::Integer(ks.len() as i64)
}

/// KEYS pattern: every key matching the Redis glob, in unspecified order.
fn keys(ks: &mut Keyspace, argv: &[Vec<u8>]) -> Reply {
    let pattern = &argv[1];
    let all = pattern.as_slice() == b"*";
    Reply::Array(
        ks.iter()
            .filter(|(k, _)| all || glob::matches(pattern, k))
            .map(|(k, _)| Reply::Bulk(k.to_vec()))
            .collect(),
    )
}
