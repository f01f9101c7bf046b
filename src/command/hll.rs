//! HyperLogLog commands: PFADD, PFCOUNT, PFMERGE, with Redis' replies and errors (the sparse
//! limit is the profile's `hll-sparse-max-bytes`).
//!
//! Keys that hold another type give the generic `WRONGTYPE Operation against a key holding
//! the wrong kind of value`; strings that are not HyperLogLogs give
//! `WRONGTYPE Key is not a valid HyperLogLog string value.`; corrupt sparse bodies give
//! `INVALIDOBJ Corrupted HLL object detected` (see [`crate::hll`]). Keys are checked in
//! argument order and the first bad one decides the error, as in Redis.

use super::{CommandSpec, Ctx};
use crate::hll::{self, Encoding, Registers};
use crate::keyspace::{Keyspace, Value};
use crate::reply::Reply;
use crate::string::RedisString;

/// The error reply Redis 7 sends for an HLL error ([`hll::HllError::message`]).
fn hll_error(e: hll::HllError) -> Reply {
    Reply::err(e.message())
}

/// HyperLogLog commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "pfadd",
        arity: -2,
        handler: pfadd,
    },
    CommandSpec {
        name: "pfcount",
        arity: -2,
        handler: pfcount,
    },
    CommandSpec {
        name: "pfmerge",
        arity: -2,
        handler: pfmerge,
    },
];

/// PFADD key [element ...]: 1 when the key was created or a register changed, else 0.
fn pfadd(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let limit = ctx.profile.hll_sparse_max_bytes;
    pfadd_elements(
        ctx.ks,
        limit,
        &argv[1],
        argv[2..].iter().map(|e| e.as_slice()),
    )
}

/// PFADD of `key` with the elements of any sequence (the wasm API passes them in one
/// buffer): the same reply, errors and register bytes as `PFADD key element...`; a sparse
/// HyperLogLog growing past `sparse_max_bytes` (the profile's `hll-sparse-max-bytes`) turns
/// dense.
pub fn pfadd_elements<'a>(
    ks: &mut Keyspace,
    sparse_max_bytes: usize,
    key: &[u8],
    elements: impl Iterator<Item = &'a [u8]>,
) -> Reply {
    let limit = sparse_max_bytes;
    let result = match ks.get_mut(key) {
        // An empty string is not a new HyperLogLog: too short for the header, as Redis'
        // `isHLLObjectOrReply` refuses it (pfadd_iter would start one in an empty buffer).
        Some(Value::String(s)) if s.is_empty() => Err(hll::HllError::NotHll),
        Some(Value::String(s)) => {
            let r = hll::pfadd_iter(s.bytes_mut(), elements, limit);
            if r.is_ok() {
                s.mark_rewritten();
            }
            r
        }
        Some(_) => return Reply::wrong_type(),
        None => {
            let mut bytes = Vec::new();
            let r = hll::pfadd_iter(&mut bytes, elements, limit);
            ks.set(key, Value::String(rewritten(bytes)));
            r
        }
    };
    match result {
        Ok(updated) => Reply::Integer(updated as i64),
        Err(e) => hll_error(e),
    }
}

/// Merges the registers of `keys` (in order; missing keys are empty) into `acc`; returns
/// whether any of them is dense, or the error reply of the first bad key.
fn merge_keys(ks: &Keyspace, keys: &[Vec<u8>], acc: &mut Registers) -> Result<bool, Reply> {
    let mut any_dense = false;
    for key in keys {
        match ks.get(key) {
            None => continue,
            Some(Value::String(s)) => match hll::merge_into(acc, &s.as_bytes()) {
                Ok(enc) => any_dense |= enc == Encoding::Dense,
                Err(e) => return Err(hll_error(e)),
            },
            Some(_) => return Err(Reply::wrong_type()),
        }
    }
    Ok(any_dense)
}

/// PFCOUNT key [key ...]: one key answers from (and refreshes) its cached cardinality;
/// several keys answer the cardinality of their union without touching caches.
fn pfcount(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    if argv.len() > 2 {
        let mut acc = Registers::boxed();
        return match merge_keys(ks, &argv[1..], &mut acc) {
            Ok(_) => Reply::Integer(acc.estimate() as i64),
            Err(r) => r,
        };
    }
    pfcount_one(ks, &argv[1])
}

/// A string a command has just written (see [`RedisString::mark_rewritten`]).
fn rewritten(bytes: Vec<u8>) -> RedisString {
    let mut s = RedisString::from_bytes(bytes);
    s.mark_rewritten();
    s
}

/// `PFCOUNT key` of one key: the command's reply (the cached cardinality when valid, else
/// counted and cached), for callers that hold the key as a slice (the wasm glue's typed fast path), as Redis PFCOUNT.
pub fn pfcount_one(ks: &mut Keyspace, key: &[u8]) -> Reply {
    match ks.get_mut(key) {
        None => Reply::Integer(0),
        Some(Value::String(s)) => {
            // Answer from a valid cache without taking the string mutably.
            let cached = {
                let bytes = s.as_bytes();
                if let Err(e) = hll::validate(&bytes) {
                    return hll_error(e);
                }
                hll::cached_cardinality(&bytes)
            };
            // A valid HLL is unshared even when its cache answers (OBJECT ENCODING: raw).
            s.mark_rewritten();
            match cached.map_or_else(|| hll::count(s.bytes_mut()), Ok) {
                Ok(n) => Reply::Integer(n as i64),
                Err(e) => hll_error(e),
            }
        }
        Some(_) => Reply::wrong_type(),
    }
}

/// PFMERGE destkey [sourcekey ...]: the destination becomes the register-wise maximum of
/// itself and the sources (created if missing); `+OK`.
fn pfmerge(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let limit = ctx.profile.hll_sparse_max_bytes;
    let ks = &mut *ctx.ks;
    let mut acc = Registers::boxed();
    let use_dense = match merge_keys(ks, &argv[1..], &mut acc) {
        Ok(d) => d,
        Err(r) => return r,
    };
    let result = match ks.get_mut(&argv[1]) {
        Some(Value::String(s)) => {
            s.mark_rewritten();
            hll::store_merged(s.bytes_mut(), &acc, use_dense, limit)
        }
        Some(_) => return Reply::wrong_type(),
        None => {
            let mut bytes = Vec::new();
            let r = hll::store_merged(&mut bytes, &acc, use_dense, limit);
            ks.set(argv[1].clone(), Value::String(rewritten(bytes)));
            r
        }
    };
    match result {
        Ok(()) => Reply::ok(),
        Err(e) => hll_error(e),
    }
}
