//! List read commands, as Redis 7 answers them: LLEN, LINDEX, LRANGE, LPOS. LRANGE and LPOS
//! parse their arguments before looking the key up (a bad index is an error even on a missing
//! key); LINDEX looks the key up first, as in Redis.

use super::args::{int_arg, is, not_integer, parse_i64};
use super::{CommandSpec, Ctx};
use crate::keyspace::{Keyspace, Value};
use crate::list::List;
use crate::reply::Reply;

/// List commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "llen",
        arity: 2,
        handler: llen,
    },
    CommandSpec {
        name: "lindex",
        arity: 3,
        handler: lindex,
    },
    CommandSpec {
        name: "lrange",
        arity: 4,
        handler: lrange,
    },
    CommandSpec {
        name: "lpos",
        arity: -3,
        handler: lpos,
    },
];

/// The list under `key`: `Ok(None)` when missing, WRONGTYPE for other types.
fn list_at<'a>(ks: &'a Keyspace, key: &[u8]) -> Result<Option<&'a List>, Reply> {
    match ks.get(key) {
        None => Ok(None),
        Some(Value::List(l)) => Ok(Some(l)),
        Some(_) => Err(Reply::wrong_type()),
    }
}

/// LLEN key: the number of elements, 0 for a missing key.
fn llen(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    match list_at(ctx.ks, &argv[1]) {
        Ok(l) => Reply::Integer(l.map_or(0, |l| l.len() as i64)),
        Err(e) => e,
    }
}

/// LINDEX key index: the element at `index` (negative from the tail), nil when out of range.
/// The key is looked up before the index is parsed (a missing key is nil whatever the index).
fn lindex(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let l = match list_at(ctx.ks, &argv[1]) {
        Ok(Some(l)) => l,
        Ok(None) => return Reply::NullBulk,
        Err(e) => return e,
    };
    let index = match int_arg(&argv[2]) {
        Ok(i) => i,
        Err(e) => return e,
    };
    let len = l.len() as i64;
    let i = if index < 0 { len + index } else { index };
    if i < 0 || i >= len {
        return Reply::NullBulk;
    }
    l.get(i as usize).map_or(Reply::NullBulk, Reply::Bulk)
}

/// LRANGE key start stop: elements `start..=stop` (negative from the tail, clamped).
fn lrange(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let (start, stop) = match (int_arg(&argv[2]), int_arg(&argv[3])) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return e,
    };
    let l = match list_at(ctx.ks, &argv[1]) {
        Ok(Some(l)) => l,
        Ok(None) => return Reply::Array(Vec::new()),
        Err(e) => return e,
    };
    let len = l.len() as i64;
    let start = if start < 0 {
        (len + start).max(0)
    } else {
        start
    };
    let stop = if stop < 0 { len + stop } else { stop };
    if start > stop || start >= len {
        return Reply::Array(Vec::new());
    }
    let stop = stop.min(len - 1);
    Reply::Array(
        l.range(start as usize, stop as usize)
            .into_iter()
            .map(Reply::Bulk)
            .collect(),
    )
}

/// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len], as Redis 7.4: RANK n skips
/// the first n−1 matches (negative: searching from the tail), COUNT 0 returns every match,
/// MAXLEN bounds the elements compared (0: all). Without COUNT the reply is the first match's
/// index or nil; with it, an array of indexes (counted from the head).
fn lpos(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let (mut rank, mut count, mut maxlen) = (1i64, None::<i64>, 0i64);
    let mut j = 3;
    while j < argv.len() {
        let more = j + 1 < argv.len();
        let opt = &argv[j];
        if !more || !(is(opt, "rank") || is(opt, "count") || is(opt, "maxlen")) {
            return Reply::syntax_error();
        }
        let v = match parse_i64(&argv[j + 1]) {
            Some(v) => v,
            // COUNT and MAXLEN take a non-negative integer and say so for any other text.
            None if is(opt, "count") => return Reply::err("ERR COUNT can't be negative"),
            None if is(opt, "maxlen") => return Reply::err("ERR MAXLEN can't be negative"),
            None => return not_integer(),
        };
        if is(opt, "rank") {
            // Before 7.2 RANK -9223372036854775808 is accepted and acts as -1.
            if v == i64::MIN && ctx.profile.lpos_rank_min_rejected {
                return Reply::err(
                    "ERR value is out of range, value must between -9223372036854775807 and \
                     9223372036854775807",
                );
            }
            if v == 0 {
                return Reply::err(ctx.profile.lpos_rank_zero);
            }
            // (accepted i64::MIN acts as -1: rec LPOS on 6.2.14 and 7.0.15)
            rank = if v == i64::MIN { -1 } else { v };
        } else if is(opt, "count") {
            if v < 0 {
                return Reply::err("ERR COUNT can't be negative");
            }
            count = Some(v);
        } else {
            if v < 0 {
                return Reply::err("ERR MAXLEN can't be negative");
            }
            maxlen = v;
        }
        j += 2;
    }
    let l = match list_at(ctx.ks, &argv[1]) {
        Ok(Some(l)) => l,
        Ok(None) => {
            return if count.is_some() {
                Reply::Array(Vec::new())
            } else {
                Reply::NullBulk
            }
        }
        Err(e) => return e,
    };
    let want = match count {
        Some(0) => usize::MAX,
        Some(n) => n as usize,
        None => 1,
    };
    let len = l.len();
    let mut skip = rank.unsigned_abs() - 1;
    let limit = if maxlen == 0 {
        usize::MAX
    } else {
        maxlen as usize
    };
    let mut found = Vec::new();
    let mut seen = 0usize;
    let element = &argv[2];
    let mut visit = |index: usize, item: &[u8]| -> bool {
        if seen >= limit || found.len() >= want {
            return false;
        }
        seen += 1;
        if item == element.as_slice() {
            if skip > 0 {
                skip -= 1;
            } else {
                found.push(index);
            }
        }
        true
    };
    if rank > 0 {
        let mut base = 0;
        'fwd: for (node, n) in l.nodes() {
            for (k, item) in node.items().iter().enumerate() {
                if !visit(base + k, item) {
                    break 'fwd;
                }
            }
            base += n;
        }
    } else {
        let mut end = len;
        'rev: for (node, n) in l.nodes().rev() {
            let items = node.items();
            let base = end - n;
            for (k, item) in items.iter().enumerate().rev() {
                if !visit(base + k, item) {
                    break 'rev;
                }
            }
            end = base;
        }
    }
    match count {
        Some(_) => Reply::Array(
            found
                .into_iter()
                .map(|i| Reply::Integer(i as i64))
                .collect(),
        ),
        None => found
            .first()
            .map_or(Reply::NullBulk, |&i| Reply::Integer(i as i64)),
    }
}

#[cfg(test)]
mod tests {
    use crate::command::execute_str;
    use crate::keyspace::{Keyspace, Value};
    use crate::list::List;
    use crate::reply::Reply;

    fn ks() -> Keyspace {
        let mut ks = Keyspace::new();
        ks.set(
            b"l",
            Value::list(List::from_elements(["a", "b", "c", "a", "b", "c"])),
        );
        ks.set(b"s", Value::Set(crate::set::Set::from_members(["x"])));
        ks
    }

    fn ints(v: &[i64]) -> Reply {
        Reply::Array(v.iter().map(|&i| Reply::Integer(i)).collect())
    }

    #[test]
    fn index_range_and_pos() {
        let mut ks = ks();
        assert_eq!(execute_str(&mut ks, &["LLEN", "l"]), Reply::Integer(6));
        assert_eq!(
            execute_str(&mut ks, &["LINDEX", "l", "-1"]),
            Reply::bulk("c")
        );
        assert_eq!(execute_str(&mut ks, &["LINDEX", "l", "6"]), Reply::NullBulk);
        // The key is looked up first (Redis 7.0 and 7.4 alike).
        assert_eq!(
            execute_str(&mut ks, &["LINDEX", "nokey", "x"]),
            Reply::NullBulk
        );
        assert_eq!(
            execute_str(&mut ks, &["LINDEX", "l", "x"]),
            Reply::err("ERR value is not an integer or out of range")
        );
        assert_eq!(
            execute_str(&mut ks, &["LRANGE", "nokey", "x", "1"]),
            Reply::err("ERR value is not an integer or out of range")
        );
        assert_eq!(
            execute_str(&mut ks, &["LRANGE", "l", "-2", "100"]),
            Reply::Array(vec![Reply::bulk("b"), Reply::bulk("c")])
        );
        assert_eq!(
            execute_str(&mut ks, &["LPOS", "l", "a", "RANK", "-1", "COUNT", "0"]),
            ints(&[3, 0])
        );
        assert_eq!(
            execute_str(&mut ks, &["LPOS", "l", "a", "COUNT", "2", "MAXLEN", "1"]),
            ints(&[0])
        );
        assert_eq!(
            execute_str(&mut ks, &["LPOS", "l", "a", "RANK", "2"]),
            Reply::Integer(3)
        );
        assert_eq!(
            execute_str(&mut ks, &["LPOS", "nokey", "a"]),
            Reply::NullBulk
        );
        assert_eq!(
            execute_str(&mut ks, &["LPOS", "l", "a", "RANK"]),
            Reply::syntax_error()
        );
        assert_eq!(
            execute_str(&mut ks, &["LPOS", "l", "a", "COUNT", "-1"]),
            Reply::err("ERR COUNT can't be negative")
        );
        assert_eq!(execute_str(&mut ks, &["LLEN", "s"]), Reply::wrong_type());
    }
}
