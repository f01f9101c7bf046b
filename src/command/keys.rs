//! Keyspace commands: TYPE, EXISTS, TOUCH, DBSIZE, KEYS, SCAN, DEL (on the in-memory keyspace),
//! TTL, PTTL, EXPIRETIME, PEXPIRETIME, OBJECT ENCODING / FREQ / IDLETIME, SELECT, PING and ECHO, as the
//! profile's server answers them. Expired keys are already invisible (the keyspace's clock);
//! TTLs are relative to that clock.
//!
//! RANDOMKEY is in [`super::random`] (bitlens' own draw: Redis picks a random hash-table
//! bucket, so no snapshot reader can give the key a given server would have given); OBJECT
//! FREQ / IDLETIME answer from the file's LFU / LRU records (see `object_access`).

use super::args::{int_arg, is, parse_i64};
use super::{CommandSpec, Ctx};
use crate::glob;
use crate::keyspace::{wall_clock_ms, EntryRef};
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
    // TOUCH counts the keys that exist, as EXISTS (each repeat again); a snapshot keeps no
    // access time for it to update.
    CommandSpec {
        name: "touch",
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
    CommandSpec {
        name: "scan",
        arity: -2,
        handler: scan,
    },
    CommandSpec {
        name: "del",
        arity: -2,
        handler: del,
    },
    CommandSpec {
        name: "ttl",
        arity: 2,
        handler: ttl,
    },
    CommandSpec {
        name: "pttl",
        arity: 2,
        handler: pttl,
    },
    CommandSpec {
        name: "expiretime",
        arity: 2,
        handler: expiretime,
    },
    CommandSpec {
        name: "pexpiretime",
        arity: 2,
        handler: pexpiretime,
    },
    CommandSpec {
        name: "object",
        arity: -2,
        handler: object,
    },
    CommandSpec {
        name: "memory",
        arity: -2,
        handler: memory,
    },
    CommandSpec {
        name: "select",
        arity: 2,
        handler: select,
    },
    CommandSpec {
        name: "ping",
        arity: -1,
        handler: ping,
    },
    CommandSpec {
        name: "echo",
        arity: 2,
        handler: echo,
    },
];

/// DEL key [key ...]: removes the keys from the in-memory keyspace (never from any Redis);
/// replies with how many existed.
fn del(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    Reply::Integer(argv[1..].iter().filter(|k| ks.remove(k)).count() as i64)
}

/// PING [message]: `+PONG`, or the message as a bulk string; more arguments are an arity error.
fn ping(_ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    match argv.len() {
        1 => Reply::Status("PONG".into()),
        2 => Reply::Bulk(argv[1].clone()),
        _ => Reply::err("ERR wrong number of arguments for 'ping' command"),
    }
}

/// ECHO message: the message as a bulk string.
fn echo(_ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    Reply::Bulk(argv[1].clone())
}

/// TYPE key: `+string`, `+zset`, ..., or `+none` for a missing key.
fn type_cmd(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    match ks.get(&argv[1]) {
        Some(v) => Reply::Status(v.redis_type().name()),
        None => Reply::Status("none".into()),
    }
}

/// EXISTS key [key ...]: how many of the named keys exist (a repeated key counts each time).
fn exists(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    Reply::Integer(argv[1..].iter().filter(|k| ks.get(k).is_some()).count() as i64)
}

/// DBSIZE: the number of keys.
fn dbsize(ctx: &mut Ctx<'_>, _argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    Reply::Integer(ks.len() as i64)
}

/// KEYS pattern: every key matching the Redis glob, in unspecified order.
fn keys(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &mut *ctx.ks;
    let pattern = &argv[1];
    let all = pattern.as_slice() == b"*";
    Reply::Array(
        ks.iter()
            .filter(|(k, _)| all || glob::matches(pattern, k))
            .map(|(k, _)| Reply::Bulk(k.to_vec()))
            .collect(),
    )
}

/// TTL / PTTL / EXPIRETIME / PEXPIRETIME of a key, as Redis' `ttlGenericCommand`: -2 for a
/// missing (or expired) key, -1 without an expiry; otherwise the remaining time at the clock
/// (the wall clock when the keyspace has none), or the absolute expiry, never below 0; in
/// seconds rounded half up, or in milliseconds.
fn ttl_generic(ctx: &mut Ctx<'_>, key: &[u8], ms: bool, absolute: bool) -> Reply {
    let Some(entry) = ctx.ks.entry(key) else {
        return Reply::Integer(-2);
    };
    let Some(when) = entry.expire_at_ms else {
        return Reply::Integer(-1);
    };
    let t = if absolute {
        when
    } else {
        when.saturating_sub(ctx.ks.clock().unwrap_or_else(wall_clock_ms))
    }
    .max(0);
    Reply::Integer(if ms { t } else { t.saturating_add(500) / 1000 })
}

/// TTL key: seconds left.
fn ttl(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    ttl_generic(ctx, &argv[1], false, false)
}

/// PTTL key: milliseconds left.
fn pttl(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    ttl_generic(ctx, &argv[1], true, false)
}

/// EXPIRETIME key: the absolute expiry in Unix seconds (Redis 7.0+).
fn expiretime(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    ttl_generic(ctx, &argv[1], false, true)
}

/// PEXPIRETIME key: the absolute expiry in Unix milliseconds (Redis 7.0+).
fn pexpiretime(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    ttl_generic(ctx, &argv[1], true, true)
}

pub use crate::loaded::object_encoding;

/// OBJECT ENCODING key: the encoding name (see [`object_encoding`]), or a null bulk for a
/// missing key. Other OBJECT subcommands (REFCOUNT, IDLETIME, FREQ) describe a live server's
/// memory, not a snapshot, and get an error saying so.
/// OBJECT FREQ / OBJECT IDLETIME key, as a server with the writer's `maxmemory-policy`
/// answers right after loading the snapshot: an LFU writer (keys carry RDB_OPCODE_FREQ)
/// gives each key's counter (5, Redis' LFU_INIT_VAL, for a key without one) and refuses
/// IDLETIME; otherwise FREQ is refused and IDLETIME is the idle seconds RDB_OPCODE_IDLE
/// recorded (0 without it: the key was just loaded). Errors as Redis 7.4 `objectCommand`.
fn object_access(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if ctx.ks.entry(&argv[2]).is_none() {
        return Reply::NullBulk;
    }
    let lfu = ctx.ks.lfu_policy();
    let (idle, freq) = ctx.ks.access_of(&argv[2]);
    const ADJUST: &str = "Please note that when switching between policies at runtime LRU and \
                          LFU data will take some time to adjust.";
    if is(&argv[1], "freq") {
        if !lfu {
            return Reply::err(format!(
                "ERR An LFU maxmemory policy is not selected, access frequency not tracked. {ADJUST}"
            ));
        }
        Reply::Integer(freq.unwrap_or(5) as i64)
    } else {
        if lfu {
            return Reply::err(format!(
                "ERR An LFU maxmemory policy is selected, idle time not tracked. {ADJUST}"
            ));
        }
        Reply::Integer(idle.unwrap_or(0) as i64)
    }
}

fn object(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let sub = &argv[1];
    let name = String::from_utf8_lossy(sub);
    if (is(sub, "freq") || is(sub, "idletime")) && argv.len() == 3 {
        return object_access(ctx, argv);
    }
    if !is(sub, "encoding") {
        if ["refcount", "idletime", "freq", "help"]
            .iter()
            .any(|s| is(sub, s))
        {
            return Reply::err(format!(
                "ERR bitlens answers OBJECT ENCODING only (OBJECT {} describes a live server)",
                name.to_ascii_uppercase()
            ));
        }
        return Reply::err(ctx.profile.object_unknown_subcommand.replace("{}", &name));
    }
    if argv.len() != 3 {
        return Reply::err(match ctx.profile.subcommand_arity_error {
            Some(text) => text.replace("{}", "object|encoding"),
            None => ctx.profile.object_unknown_subcommand.replace("{}", &name),
        });
    }
    let Some(entry) = ctx.ks.entry(&argv[2]) else {
        return Reply::NullBulk;
    };
    let value = entry.value;
    match object_encoding(ctx.profile, &argv[2], value, entry.expire_at_ms.is_some()) {
        Some(enc) => Reply::bulk(enc),
        None => Reply::err(format!(
            "ERR bitlens keeps this {} only as its type; its encoding is not known",
            value.redis_type().name()
        )),
    }
}

/// MEMORY USAGE key [SAMPLES count]: the bytes the session's memory model
/// ([`crate::command::MemoryUsage`]) prices the key at, as the writer's server counts it once
/// loaded under `SAMPLES 0` (whatever `count`: a sampled figure depends on the server's
/// hash-table order, which no snapshot holds), or a null bulk for a missing key. Arguments
/// and errors as Redis 8.0 `memoryCommand`: SAMPLES must be an integer (else the integer
/// error) and not negative, anything else is a syntax error. MEMORY STATS, DOCTOR,
/// MALLOC-STATS, PURGE and HELP describe a live server and get an error saying so.
fn memory(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let sub = &argv[1];
    let name = String::from_utf8_lossy(sub);
    if !is(sub, "usage") {
        if ["stats", "doctor", "malloc-stats", "purge", "help"]
            .iter()
            .any(|s| is(sub, s))
            && argv.len() == 2
        {
            return Reply::err(format!(
                "ERR bitlens answers MEMORY USAGE only (MEMORY {} describes a live server)",
                name.to_ascii_uppercase()
            ));
        }
        return Reply::err(
            ctx.profile
                .object_unknown_subcommand
                .replace("OBJECT", "MEMORY")
                .replace("{}", &name),
        );
    }
    if argv.len() < 3 {
        return Reply::err(match ctx.profile.subcommand_arity_error {
            Some(text) => text.replace("{}", "memory|usage"),
            None => ctx
                .profile
                .object_unknown_subcommand
                .replace("OBJECT", "MEMORY")
                .replace("{}", &name),
        });
    }
    let mut j = 3;
    while j < argv.len() {
        if is(&argv[j], "samples") && j + 1 < argv.len() {
            match parse_i64(&argv[j + 1]) {
                None => return Reply::err("ERR value is not an integer or out of range"),
                Some(n) if n < 0 => return Reply::err("ERR syntax error"),
                Some(_) => j += 2,
            }
        } else {
            return Reply::err("ERR syntax error");
        }
    }
    let Some(entry) = ctx.ks.entry(&argv[2]) else {
        return Reply::NullBulk;
    };
    let Some(model) = ctx.memory else {
        return Reply::err("ERR bitlens was given no memory model for MEMORY USAGE");
    };
    match model.memory_usage(&argv[2], entry.value, entry.expire_at_ms.is_some()) {
        Some(bytes) => Reply::Integer(bytes as i64),
        None => Reply::err(format!(
            "ERR bitlens keeps this {} only as its type; its memory is not known",
            entry.value.redis_type().name()
        )),
    }
}

/// SELECT index: switches the session to database `index` (the session does the switch when
/// it sees [`Ctx::db`] change). Errors as the profile's server: a non-integer index, one
/// outside the C `int` range (6.2+), or one outside `0..databases`.
fn select(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let Some(n) = parse_i64(&argv[1]) else {
        return Reply::err(ctx.profile.select_not_integer);
    };
    if !ctx.profile.select_long_index && i32::try_from(n).is_err() {
        // getIntFromObjectOrReply's range error (rec: 6.2.14, 7.0.15, 7.4.1, Valkey 8.1.8/9.1.2).
        return Reply::err(
            "ERR value is out of range, value must between -2147483648 and 2147483647",
        );
    }
    if n < 0 || n as u64 >= ctx.db_count {
        return Reply::err("ERR DB index is out of range");
    }
    ctx.db = n as u64;
    Reply::ok()
}

/// The SCAN cursor of a key: a 64-bit FNV-1a hash of its bytes mapped into `1..=2^63`, so that
/// cursor 0 means "start / done". A full iteration visits keys in cursor order, so every key
/// present for the whole iteration is returned exactly once, even if other keys come and go.
fn scan_cursor_of(key: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in key {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    (h >> 1) + 1
}

/// Parses a SCAN cursor as Redis 7.0 (`strtoul`: optional sign, decimal digits, no leading
/// space, no overflow; a `-` wraps around as C does; the empty string is cursor 0).
fn parse_cursor(arg: &[u8]) -> Option<u64> {
    if arg.is_empty() {
        return Some(0);
    }
    let (neg, digits) = match arg.first() {
        Some(b'-') => (true, &arg[1..]),
        Some(b'+') => (false, &arg[1..]),
        _ => (false, arg),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut v: u64 = 0;
    for &c in digits {
        v = v.checked_mul(10)?.checked_add((c - b'0') as u64)?;
    }
    Some(if neg { v.wrapping_neg() } else { v })
}

/// The type names SCAN TYPE knows (`getObjectTypeByName`).
const TYPE_NAMES: [&str; 6] = ["string", "list", "set", "zset", "hash", "stream"];

/// Parses a SCAN cursor as Redis 7.4's `string2ull`: a canonical non-negative integer, or
/// else what `strtoull` reads completely (leading spaces, `+`, leading zeros; a `-` wraps) when
/// it does not overflow; the empty string and negative canonical integers are refused.
fn parse_cursor_strict(arg: &[u8]) -> Option<u64> {
    if let Some(v) = parse_i64(arg) {
        return u64::try_from(v).ok();
    }
    let start = arg
        .iter()
        .position(|c| !matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))?;
    parse_cursor(&arg[start..])
}

/// A SCAN / SSCAN / HSCAN / ZSCAN cursor as the profile's `parseScanCursorOrReply` reads it
/// ([`crate::dialect::Profile::scan_cursor_strict`]); `None`: `ERR invalid cursor`.
pub(super) fn scan_cursor(arg: &[u8], profile: &crate::dialect::Profile) -> Option<u64> {
    if profile.scan_cursor_strict {
        parse_cursor_strict(arg)
    } else {
        parse_cursor(arg)
    }
}

/// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]: visits about COUNT keys (default
/// 10) starting at `cursor`, and returns the next cursor (0 when done) and the visited keys
/// that pass the MATCH glob and the TYPE filter (compared case-insensitively; an unknown type
/// matches nothing, as in Redis 7.0).
fn scan(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let ks = &*ctx.ks;
    let Some(cursor) = scan_cursor(&argv[1], ctx.profile) else {
        return Reply::err("ERR invalid cursor");
    };
    let mut count: i64 = 10;
    let mut pattern: Option<&[u8]> = None;
    let mut type_name: Option<&[u8]> = None;
    let mut i = 2;
    while i < argv.len() {
        let more = i + 1 < argv.len();
        if is(&argv[i], "count") && more {
            count = match int_arg(&argv[i + 1]) {
                Ok(n) => n,
                Err(e) => return e,
            };
            if count < 1 {
                return Reply::syntax_error();
            }
        } else if is(&argv[i], "match") && more {
            pattern = Some(&argv[i + 1]);
        } else if is(&argv[i], "type") && more {
            let t = &argv[i + 1];
            if ctx.profile.scan_unknown_type_error && !TYPE_NAMES.iter().any(|n| is(t, n)) {
                return Reply::err(format!(
                    "ERR unknown type name '{}'",
                    String::from_utf8_lossy(t)
                ));
            }
            type_name = Some(t);
        } else {
            return Reply::syntax_error();
        }
        i += 2;
    }
    let mut keys: Vec<(u64, &[u8], EntryRef<'_>)> = ks
        .iter()
        .map(|(k, e)| (scan_cursor_of(k), k, e))
        .filter(|(c, _, _)| *c >= cursor)
        .collect();
    keys.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
    // Never split keys that share a cursor value across two calls.
    let mut take = (count as usize).min(keys.len());
    while take < keys.len() && take > 0 && keys[take].0 == keys[take - 1].0 {
        take += 1;
    }
    let next = keys.get(take).map_or(0, |k| k.0);
    let items = keys[..take]
        .iter()
        .filter(|(_, k, _)| pattern.is_none_or(|p| p == b"*" || glob::matches(p, k)))
        .filter(|(_, _, e)| {
            type_name.is_none_or(|t| {
                e.value
                    .redis_type()
                    .name()
                    .as_bytes()
                    .eq_ignore_ascii_case(t)
            })
        })
        .map(|(_, k, _)| Reply::Bulk(k.to_vec()))
        .collect();
    Reply::Array(vec![
        Reply::Bulk(next.to_string().into_bytes()),
        Reply::Array(items),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::execute_str;
    use crate::keyspace::{Keyspace, Value};
    use crate::string::RedisString;
    use std::collections::HashMap;

    #[test]
    fn del_ping_echo_as_redis() {
        let mut ks = Keyspace::new();
        for k in ["a", "b"] {
            ks.set(k, Value::String(RedisString::from_bytes(b"x".to_vec())));
        }
        // Replies observed from redis-server 7.0.15.
        assert_eq!(
            execute_str(&mut ks, &["DEL", "a", "a", "zz"]),
            Reply::Integer(1)
        );
        assert_eq!(
            execute_str(&mut ks, &["EXISTS", "a", "b"]),
            Reply::Integer(1)
        );
        assert_eq!(
            execute_str(&mut ks, &["PING"]),
            Reply::Status("PONG".into())
        );
        assert_eq!(
            execute_str(&mut ks, &["ping", "hello"]),
            Reply::bulk("hello")
        );
        assert_eq!(
            execute_str(&mut ks, &["PING", "a", "b"]),
            Reply::err("ERR wrong number of arguments for 'ping' command")
        );
        assert_eq!(execute_str(&mut ks, &["ECHO", "hi"]), Reply::bulk("hi"));
        assert_eq!(
            execute_str(&mut ks, &["DEL"]),
            Reply::err("ERR wrong number of arguments for 'del' command")
        );
    }

    fn scan_all(ks: &mut Keyspace, extra: &[&str]) -> Vec<Vec<u8>> {
        let mut cursor = "0".to_string();
        let mut seen = Vec::new();
        let mut calls = 0;
        loop {
            let mut argv = vec!["SCAN", cursor.as_str()];
            argv.extend_from_slice(extra);
            let Reply::Array(parts) = execute_str(ks, &argv) else {
                panic!("SCAN reply shape")
            };
            let (Reply::Bulk(c), Reply::Array(items)) = (&parts[0], &parts[1]) else {
                panic!("SCAN reply parts")
            };
            for it in items {
                let Reply::Bulk(k) = it else { panic!() };
                seen.push(k.clone());
            }
            cursor = String::from_utf8(c.clone()).unwrap();
            calls += 1;
            assert!(calls < 10_000, "SCAN does not terminate");
            if cursor == "0" {
                return seen;
            }
        }
    }

    #[test]
    fn full_scan_returns_each_key_once() {
        let mut ks = Keyspace::new();
        for i in 0..1000 {
            ks.set(
                format!("k:{i}").into_bytes(),
                Value::String(RedisString::from_bytes(vec![1])),
            );
        }
        ks.set(b"z", Value::Other(crate::keyspace::RedisType::List));
        for count in ["1", "7", "10", "1000", "5000"] {
            let seen = scan_all(&mut ks, &["COUNT", count]);
            let mut counts: HashMap<Vec<u8>, usize> = HashMap::new();
            for k in seen {
                *counts.entry(k).or_default() += 1;
            }
            assert_eq!(counts.len(), 1001, "COUNT {count}");
            assert!(counts.values().all(|&n| n == 1), "COUNT {count}");
        }
        let matched = scan_all(&mut ks, &["MATCH", "k:1?", "COUNT", "3"]);
        assert_eq!(matched.len(), 10);
        let lists = scan_all(&mut ks, &["TYPE", "LIST"]);
        assert_eq!(lists, vec![b"z".to_vec()]);
        assert!(scan_all(&mut ks, &["TYPE", "nosuch"]).is_empty());
    }

    #[test]
    fn scan_errors() {
        let mut ks = Keyspace::new();
        for bad in ["x", "-", " 1", "18446744073709551616"] {
            assert_eq!(
                execute_str(&mut ks, &["SCAN", bad]),
                Reply::err("ERR invalid cursor")
            );
        }
        for ok in ["", "+5", "00"] {
            assert!(!execute_str(&mut ks, &["SCAN", ok]).is_error());
        }
        assert_eq!(
            execute_str(&mut ks, &["SCAN", "0", "COUNT", "0"]),
            Reply::syntax_error()
        );
        assert_eq!(
            execute_str(&mut ks, &["SCAN", "0", "COUNT", "x"]),
            Reply::err("ERR value is not an integer or out of range")
        );
        assert_eq!(
            execute_str(&mut ks, &["SCAN", "0", "MATCH"]),
            Reply::syntax_error()
        );
        assert_eq!(
            execute_str(&mut ks, &["SCAN", "0"]),
            Reply::Array(vec![Reply::bulk("0"), Reply::Array(vec![])])
        );
    }
}
