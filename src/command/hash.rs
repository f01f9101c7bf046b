//! Hash read commands, as Redis 7.4 answers them: HGET, HMGET, HLEN, HEXISTS, HSTRLEN, HKEYS,
//! HVALS, HGETALL, HSCAN (MATCH/COUNT/NOVALUES), and the field-expiry reads HTTL, HPTTL,
//! HEXPIRETIME, HPEXPIRETIME (`key FIELDS numfields field...`).
//!
//! Expiry is judged at the keyspace clock (`Keyspace::clock`; `None`: nothing has expired); an expired field is
//! invisible to every command. Field order: small encodings reply in stored order, as Redis;
//! hashtable hashes in file order (Redis' is its hash table's, not reproducible). HSCAN
//! cursors follow [`super::set`]'s scan rules.

use super::set::{parse_default, parse_scan_cursor, parse_scan_opts, scan_reply};
use super::{CommandSpec, Ctx};
use crate::dialect::FieldExpiryArgs;
use crate::hash::Hash;
use crate::keyspace::{Keyspace, Value};
use crate::reply::Reply;

/// Hash commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "hget",
        arity: 3,
        handler: hget,
    },
    CommandSpec {
        name: "hmget",
        arity: -3,
        handler: hmget,
    },
    CommandSpec {
        name: "hlen",
        arity: 2,
        handler: hlen,
    },
    CommandSpec {
        name: "hexists",
        arity: 3,
        handler: hexists,
    },
    CommandSpec {
        name: "hstrlen",
        arity: 3,
        handler: hstrlen,
    },
    CommandSpec {
        name: "hkeys",
        arity: 2,
        handler: hkeys,
    },
    CommandSpec {
        name: "hvals",
        arity: 2,
        handler: hvals,
    },
    CommandSpec {
        name: "hgetall",
        arity: 2,
        handler: hgetall,
    },
    CommandSpec {
        name: "hscan",
        arity: -3,
        handler: hscan,
    },
    // PROFILE HOOK (dialect): HTTL, HPTTL, HEXPIRETIME, HPEXPIRETIME exist from Redis 7.4
    // (and Valkey 9) on; older servers answer `ERR unknown command`.
    CommandSpec {
        name: "httl",
        arity: -5,
        handler: httl,
    },
    CommandSpec {
        name: "hpttl",
        arity: -5,
        handler: hpttl,
    },
    CommandSpec {
        name: "hexpiretime",
        arity: -5,
        handler: hexpiretime,
    },
    CommandSpec {
        name: "hpexpiretime",
        arity: -5,
        handler: hpexpiretime,
    },
];

/// The hash under `key`: `Ok(None)` when missing, WRONGTYPE for other types.
fn hash_at<'a>(ks: &'a Keyspace, key: &[u8]) -> Result<Option<&'a Hash>, Reply> {
    match ks.get(key) {
        None => Ok(None),
        Some(Value::Hash(h)) => Ok(Some(h)),
        Some(_) => Err(Reply::wrong_type()),
    }
}

/// Runs `f` on the live value of `field`, or replies `missing`.
fn with_field(
    ctx: &mut Ctx<'_>,
    argv: &[Vec<u8>],
    missing: Reply,
    f: impl FnOnce(Vec<u8>) -> Reply,
) -> Reply {
    let now = ctx.ks.clock();
    match hash_at(ctx.ks, &argv[1]) {
        Ok(h) => match h.and_then(|h| h.get(&argv[2], now)) {
            Some((v, _)) => f(v),
            None => missing,
        },
        Err(e) => e,
    }
}

/// HGET key field.
fn hget(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    with_field(ctx, argv, Reply::NullBulk, Reply::Bulk)
}

/// HEXISTS key field.
fn hexists(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    with_field(ctx, argv, Reply::Integer(0), |_| Reply::Integer(1))
}

/// HSTRLEN key field: the value's length in bytes, 0 when missing.
fn hstrlen(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    with_field(ctx, argv, Reply::Integer(0), |v| {
        Reply::Integer(v.len() as i64)
    })
}

/// HMGET key field [field ...]: one value or nil per field.
fn hmget(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let now = ctx.ks.clock();
    match hash_at(ctx.ks, &argv[1]) {
        Ok(h) => Reply::Array(
            argv[2..]
                .iter()
                .map(|f| match h.and_then(|h| h.get(f, now)) {
                    Some((v, _)) => Reply::Bulk(v),
                    None => Reply::NullBulk,
                })
                .collect(),
        ),
        Err(e) => e,
    }
}

/// HLEN key.
fn hlen(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let now = ctx.ks.clock();
    match hash_at(ctx.ks, &argv[1]) {
        Ok(h) => Reply::Integer(h.map_or(0, |h| h.len(now) as i64)),
        Err(e) => e,
    }
}

/// HKEYS / HVALS / HGETALL: fields, values, or both, in the hash's order.
fn listing(ctx: &mut Ctx<'_>, argv: &[Vec<u8>], keys: bool, vals: bool) -> Reply {
    let now = ctx.ks.clock();
    match hash_at(ctx.ks, &argv[1]) {
        Ok(h) => {
            let mut out = Vec::new();
            for f in h.map_or_else(Vec::new, |h| h.fields(now)) {
                if keys {
                    out.push(Reply::Bulk(f.field));
                }
                if vals {
                    out.push(Reply::Bulk(f.value));
                }
            }
            Reply::Array(out)
        }
        Err(e) => e,
    }
}

fn hkeys(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    listing(ctx, argv, true, false)
}

fn hvals(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    listing(ctx, argv, false, true)
}

fn hgetall(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    listing(ctx, argv, true, true)
}

/// HSCAN key cursor [MATCH pattern] [COUNT count] [NOVALUES].
fn hscan(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let now = ctx.ks.clock();
    let cursor = match parse_scan_cursor(&argv[2], ctx.profile) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let h = match hash_at(ctx.ks, &argv[1]) {
        Ok(Some(h)) => h,
        Ok(None) => return scan_reply(Vec::new(), true, 0, &parse_default()),
        Err(e) => return e,
    };
    let o = match parse_scan_opts(argv, true, ctx.profile) {
        Ok(o) => o,
        Err(e) => return e,
    };
    let compact = !matches!(h.repr(), crate::hash::HashRef::Table(_));
    let groups = h
        .fields(now)
        .into_iter()
        .map(|f| vec![f.field, f.value])
        .collect();
    scan_reply(groups, compact, cursor, &o)
}

/// What a field-expiry read replies per field.
#[derive(Clone, Copy)]
enum ExpiryRead {
    /// HTTL: remaining seconds, rounded up.
    Ttl,
    /// HPTTL: remaining milliseconds.
    Pttl,
    /// HEXPIRETIME: absolute Unix seconds, rounded up.
    ExpireTime,
    /// HPEXPIRETIME: absolute Unix milliseconds.
    PexpireTime,
}

/// `key FIELDS numfields field...` as Redis 7.4: the key's type is checked first, then the
/// FIELDS keyword, numfields (a positive integer equal to the number of fields given). Per
/// field: -2 when the key or field does not exist, -1 when it has no expiry, else the time.
/// With no clock remaining times are counted from Unix time 0.
fn expiry_read(ctx: &mut Ctx<'_>, argv: &[Vec<u8>], what: ExpiryRead) -> Reply {
    let now = ctx.ks.clock();
    let h = match hash_at(ctx.ks, &argv[1]) {
        Ok(h) => h,
        Err(e) => return e,
    };
    let valkey = ctx.profile.field_expiry_args == FieldExpiryArgs::Valkey;
    let named = |text: &'static str| Reply::err(if valkey { "ERR syntax error" } else { text });
    if !super::args::is(&argv[2], "fields") {
        return named("ERR Mandatory argument FIELDS is missing or not at the right position");
    }
    let n = match super::args::parse_i64(&argv[3]) {
        Some(n) if n > 0 => n as u64,
        None if valkey => return super::args::not_integer(),
        _ => return named("ERR Number of fields must be a positive integer"),
    };
    if n != (argv.len() - 4) as u64 {
        return named("ERR The `numfields` parameter must match the number of arguments");
    }
    let secs = |ms: i64| {
        if valkey {
            ms.saturating_add(500) / 1000
        } else {
            ms.saturating_add(999) / 1000
        }
    };
    let base = now.unwrap_or(0);
    Reply::Array(
        argv[4..]
            .iter()
            .map(|f| match h.and_then(|h| h.get(f, now)) {
                None => Reply::Integer(-2),
                Some((_, None)) => Reply::Integer(-1),
                Some((_, Some(at))) => Reply::Integer(match what {
                    ExpiryRead::Ttl => (at - base).max(0).saturating_add(999) / 1000,
                    ExpiryRead::Pttl => (at - base).max(0),
                    ExpiryRead::ExpireTime => secs(at),
                    ExpiryRead::PexpireTime => at,
                }),
            })
            .collect(),
    )
}

fn httl(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    expiry_read(ctx, argv, ExpiryRead::Ttl)
}

fn hpttl(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    expiry_read(ctx, argv, ExpiryRead::Pttl)
}

fn hexpiretime(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    expiry_read(ctx, argv, ExpiryRead::ExpireTime)
}

fn hpexpiretime(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    expiry_read(ctx, argv, ExpiryRead::PexpireTime)
}

#[cfg(test)]
mod tests {
    use crate::command::{execute_in, Ctx};
    use crate::encoded::test_blobs::{listpack_ex, listpack_strs};
    use crate::hash::Hash;
    use crate::keyspace::{Keyspace, Value};
    use crate::reply::Reply;

    fn run(ks: &mut Keyspace, now: Option<i64>, argv: &[&str]) -> Reply {
        let argv: Vec<Vec<u8>> = argv.iter().map(|a| a.as_bytes().to_vec()).collect();
        ks.set_clock(now);
        // Redis 7.4: the field-expiry reads and HSCAN NOVALUES exist.
        execute_in(&mut Ctx::single(ks, &crate::dialect::REDIS_7_4), &argv)
    }

    fn b(v: &[&str]) -> Reply {
        Reply::Array(v.iter().map(Reply::bulk).collect())
    }

    fn ks() -> Keyspace {
        let mut ks = Keyspace::new();
        ks.set(
            b"h",
            Value::Hash(Hash::from_listpack(listpack_strs(&[b"f", b"1", b"g", b"xyz"])).unwrap()),
        );
        let ex = listpack_ex(&[(b"a", b"va", 10_500), (b"b", b"vb", 0)]);
        ks.set(b"x", Value::Hash(Hash::from_listpack_ex(ex).unwrap()));
        ks.set(b"l", Value::list(crate::list::List::from_elements(["a"])));
        ks
    }

    #[test]
    fn reads() {
        let mut ks = ks();
        assert_eq!(run(&mut ks, None, &["HGET", "h", "g"]), Reply::bulk("xyz"));
        assert_eq!(
            run(&mut ks, None, &["HSTRLEN", "h", "g"]),
            Reply::Integer(3)
        );
        assert_eq!(
            run(&mut ks, None, &["HGETALL", "h"]),
            b(&["f", "1", "g", "xyz"])
        );
        assert_eq!(run(&mut ks, None, &["HVALS", "h"]), b(&["1", "xyz"]));
        assert_eq!(
            run(&mut ks, None, &["HMGET", "h", "f", "zz"]),
            Reply::Array(vec![Reply::bulk("1"), Reply::NullBulk])
        );
        assert_eq!(run(&mut ks, None, &["HGET", "l", "a"]), Reply::wrong_type());
        assert_eq!(
            run(&mut ks, None, &["HSCAN", "h", "0", "NOVALUES"]),
            Reply::Array(vec![Reply::bulk("0"), b(&["f", "g"])])
        );
    }

    #[test]
    fn field_expiry() {
        let mut ks = ks();
        assert_eq!(
            run(&mut ks, Some(10_499), &["HLEN", "x"]),
            Reply::Integer(2)
        );
        assert_eq!(
            run(&mut ks, Some(10_500), &["HLEN", "x"]),
            Reply::Integer(1)
        );
        assert_eq!(run(&mut ks, Some(10_500), &["HKEYS", "x"]), b(&["b"]));
        let ints = |v: &[i64]| Reply::Array(v.iter().map(|&i| Reply::Integer(i)).collect());
        assert_eq!(
            run(
                &mut ks,
                Some(9_000),
                &["HTTL", "x", "FIELDS", "3", "a", "b", "c"]
            ),
            ints(&[2, -1, -2])
        );
        assert_eq!(
            run(&mut ks, Some(9_000), &["HPTTL", "x", "FIELDS", "1", "a"]),
            ints(&[1_500])
        );
        assert_eq!(
            run(
                &mut ks,
                Some(9_000),
                &["HEXPIRETIME", "x", "FIELDS", "1", "a"]
            ),
            ints(&[11])
        );
        assert_eq!(
            run(
                &mut ks,
                Some(11_000),
                &["HPEXPIRETIME", "x", "FIELDS", "1", "a"]
            ),
            ints(&[-2])
        );
        assert_eq!(
            run(&mut ks, None, &["HTTL", "nokey", "FIELDS", "2", "a", "b"]),
            ints(&[-2, -2])
        );
        assert_eq!(
            run(&mut ks, None, &["HTTL", "x", "FIELDS", "2", "a"]),
            Reply::err("ERR The `numfields` parameter must match the number of arguments")
        );
        assert_eq!(
            run(&mut ks, None, &["HTTL", "l", "FILEDS", "1", "a"]),
            Reply::wrong_type()
        );
        assert_eq!(
            run(&mut ks, None, &["HTTL", "x", "FILEDS", "1", "a"]),
            Reply::err("ERR Mandatory argument FIELDS is missing or not at the right position")
        );
        assert_eq!(
            run(&mut ks, None, &["HTTL", "x", "FIELDS", "0", "a"]),
            Reply::err("ERR Number of fields must be a positive integer")
        );
    }
}
