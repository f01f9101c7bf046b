//! Random picks: SRANDMEMBER, ZRANDMEMBER, HRANDFIELD and RANDOMKEY, with Redis 7.4's count
//! and uniqueness rules and errors (t_set.c `srandmemberWithCountCommand`, t_zset.c
//! `zrandmemberCommand`, t_hash.c `hrandfieldCommand`, db.c `randomkeyCommand`):
//!
//! - no count: one element (a bulk string), nil for a missing key;
//! - count 0: an empty array; a positive count: that many distinct elements, at most the
//!   whole value; a negative count: exactly |count| elements, repeats allowed;
//! - the count is read before the key (`ERR value is not an integer or out of range`; from
//!   6.2, -2^63 is `ERR value is out of range, value must between ...`), and with WITHSCORES /
//!   WITHVALUES a count past ±2^62 is `ERR value is out of range`.
//!
//! The picks are this process' own draws: the elements a server would pick come from its
//! random generator and cannot be reproduced, so the tests check the rules, not the picks.
//! A negative count whose reply would hold more than [`MAX_PICKS`] elements is refused
//! (`ERR bitlens: ...`), where a server streams the reply until memory runs out.

use std::cell::Cell;

use super::args::{is, parse_i64};
use super::{CommandSpec, Ctx};
use crate::keyspace::Value;
use crate::reply::Reply;

/// Random-pick commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "srandmember",
        arity: -2,
        handler: srandmember,
    },
    CommandSpec {
        name: "zrandmember",
        arity: -2,
        handler: zrandmember,
    },
    CommandSpec {
        name: "hrandfield",
        arity: -2,
        handler: hrandfield,
    },
    CommandSpec {
        name: "randomkey",
        arity: 1,
        handler: randomkey,
    },
];

/// The most elements a negative-count pick replies with (16 Mi); past it the reply is
/// refused rather than built.
pub const MAX_PICKS: u64 = 1 << 24;

thread_local! {
    static RNG: Cell<u64> = Cell::new({
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_usize(&h as *const _ as usize);
        h.finish() | 1
    });
}

/// A uniform index below `n` (> 0), from a per-thread xorshift64* generator.
fn below(n: usize) -> usize {
    RNG.with(|r| {
        let mut x = r.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        r.set(x);
        let v = x.wrapping_mul(0x2545_F491_4F6C_DD1D);
        ((v as u128 * n as u128) >> 64) as usize
    })
}

/// How a count-taking pick was asked: the count and whether pairs (WITHSCORES /
/// WITHVALUES) were asked.
struct Count {
    n: i64,
    pairs: bool,
}

/// Reads `[count [WITH...]]` as Redis 7.4: `Ok(None)` without a count.
fn parse_count(
    ctx: &Ctx<'_>,
    argv: &[Vec<u8>],
    with: Option<&str>,
) -> Result<Option<Count>, Reply> {
    if argv.len() < 3 {
        return Ok(None);
    }
    if with.is_none() && argv.len() > 3 {
        // SRANDMEMBER: more than a count is a syntax error before the count is read.
        return Err(Reply::syntax_error());
    }
    let n = parse_i64(&argv[2])
        .ok_or_else(|| Reply::err("ERR value is not an integer or out of range"))?;
    if n == i64::MIN && ctx.profile.commands_of >= (6, 2) {
        return Err(Reply::err(format!(
            "ERR value is out of range, value must between {} and {}",
            -i64::MAX,
            i64::MAX
        )));
    }
    let pairs = match with {
        None => false,
        Some(word) => {
            if argv.len() > 4 || (argv.len() == 4 && !is(&argv[3], word)) {
                return Err(Reply::syntax_error());
            }
            if argv.len() == 4 && !(-(i64::MAX / 2)..=i64::MAX / 2).contains(&n) {
                return Err(Reply::err("ERR value is out of range"));
            }
            argv.len() == 4
        }
    };
    Ok(Some(Count { n, pairs }))
}

/// Indexes into `size` elements as a count asks: |count| draws with repeats when negative
/// (or 1), else min(count, size) distinct ones (in random order, but the whole value in its
/// own order, as Redis' "return the whole set" case; ZRANDMEMBER reverses it).
fn pick_indexes(n: i64, size: usize) -> Result<Vec<usize>, Reply> {
    let count = n.unsigned_abs();
    if count == 0 || size == 0 {
        return Ok(Vec::new());
    }
    if n < 0 || count == 1 {
        if count > MAX_PICKS {
            return Err(Reply::err(format!(
                "ERR bitlens: a reply of {count} random picks is past bitlens' limit of {MAX_PICKS}"
            )));
        }
        return Ok((0..count).map(|_| below(size)).collect());
    }
    if count >= size as u64 {
        return Ok((0..size).collect());
    }
    // A partial Fisher-Yates shuffle of the first `count` positions.
    let count = count as usize;
    let mut all: Vec<usize> = (0..size).collect();
    for i in 0..count {
        let j = i + below(size - i);
        all.swap(i, j);
    }
    all.truncate(count);
    Ok(all)
}

/// SRANDMEMBER key [count] (count rules in the module header).
fn srandmember(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let count = match parse_count(ctx, argv, None) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let set = match ctx.ks.get(&argv[1]) {
        None => {
            return if count.is_some() {
                Reply::Array(Vec::new())
            } else {
                Reply::NullBulk
            }
        }
        Some(Value::Set(s)) => s,
        Some(_) => return Reply::wrong_type(),
    };
    let members = set.members();
    match count {
        None => Reply::Bulk(members[below(members.len())].clone()),
        Some(c) => match pick_indexes(c.n, members.len()) {
            Ok(idx) => Reply::Array(idx.into_iter().map(|i| Reply::bulk(&members[i])).collect()),
            Err(e) => e,
        },
    }
}

/// ZRANDMEMBER key [count [WITHSCORES]] (Redis 6.2+; rules in the module header).
fn zrandmember(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let count = match parse_count(ctx, argv, Some("withscores")) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let z = match ctx.ks.get(&argv[1]) {
        None => {
            return if count.is_some() {
                Reply::Array(Vec::new())
            } else {
                Reply::NullBulk
            }
        }
        Some(Value::ZSet(z)) => z,
        Some(_) => return Reply::wrong_type(),
    };
    let sorted = z.sorted();
    match count {
        None => Reply::bulk(&sorted[below(sorted.len())].1),
        Some(c) => match pick_indexes(c.n, sorted.len()) {
            Ok(mut idx) => {
                if c.n > 0 && c.n as u64 >= sorted.len() as u64 {
                    // The whole set, as Redis' zuiNext walks it: from the highest score down.
                    idx.reverse();
                }
                let mut out = Vec::with_capacity(idx.len() * (1 + c.pairs as usize));
                for i in idx {
                    let (s, m) = &sorted[i];
                    out.push(Reply::bulk(m));
                    if c.pairs {
                        out.push(Reply::bulk(
                            ctx.profile.format_score(z.loaded_score(*s, ctx.profile)),
                        ));
                    }
                }
                Reply::Array(out)
            }
            Err(e) => e,
        },
    }
}

/// HRANDFIELD key [count [WITHVALUES]] (Redis 6.2+; rules in the module header; fields
/// expired at the clock are not picked).
fn hrandfield(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let count = match parse_count(ctx, argv, Some("withvalues")) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let now = ctx.ks.clock();
    let fields = match ctx.ks.get(&argv[1]) {
        None => Vec::new(),
        Some(Value::Hash(h)) => h.fields(now),
        Some(_) => return Reply::wrong_type(),
    };
    if fields.is_empty() {
        return if count.is_some() {
            Reply::Array(Vec::new())
        } else {
            Reply::NullBulk
        };
    }
    match count {
        None => Reply::bulk(&fields[below(fields.len())].field),
        Some(c) => match pick_indexes(c.n, fields.len()) {
            Ok(idx) => {
                let mut out = Vec::with_capacity(idx.len() * (1 + c.pairs as usize));
                for i in idx {
                    out.push(Reply::bulk(&fields[i].field));
                    if c.pairs {
                        out.push(Reply::bulk(&fields[i].value));
                    }
                }
                Reply::Array(out)
            }
            Err(e) => e,
        },
    }
}

/// RANDOMKEY: a key alive at the clock, nil when the database has none (as Redis 7.4's
/// `dbRandomKey`; which key is this process' draw).
fn randomkey(ctx: &mut Ctx<'_>, _argv: &[Vec<u8>]) -> Reply {
    match ctx.ks.random_key(below) {
        Some(k) => Reply::bulk(k),
        None => Reply::NullBulk,
    }
}

#[cfg(test)]
mod tests {
    use crate::command::execute_str;
    use crate::keyspace::{Keyspace, Value};
    use crate::reply::Reply;
    use crate::set::Set;

    #[test]
    fn counts() {
        let mut ks = Keyspace::new();
        ks.set(b"s", Value::Set(Set::from_members(["a", "b", "c"])));
        let len = |r: Reply| match r {
            Reply::Array(a) => a.len(),
            other => panic!("{other:?}"),
        };
        assert_eq!(len(execute_str(&mut ks, &["SRANDMEMBER", "s", "10"])), 3);
        assert_eq!(len(execute_str(&mut ks, &["SRANDMEMBER", "s", "2"])), 2);
        assert_eq!(len(execute_str(&mut ks, &["SRANDMEMBER", "s", "-10"])), 10);
        assert_eq!(
            len(execute_str(&mut ks, &["SRANDMEMBER", "nokey", "-10"])),
            0
        );
        assert!(execute_str(&mut ks, &["SRANDMEMBER", "s", "-99999999999"]).is_error());
        assert_eq!(
            execute_str(&mut ks, &["SRANDMEMBER", "nokey"]),
            Reply::NullBulk
        );
        assert!(matches!(
            execute_str(&mut ks, &["RANDOMKEY"]),
            Reply::Bulk(k) if k == b"s"
        ));
    }
}
