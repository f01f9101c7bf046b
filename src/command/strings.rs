//! String read commands beside GET: MGET and LCS, as Redis 7.4 answers them (t_string.c
//! `mgetCommand`, `lcsCommand`).

use super::args::{is, parse_i64};
use super::{CommandSpec, Ctx};
use crate::keyspace::Value;
use crate::reply::Reply;

/// String commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "mget",
        arity: -2,
        handler: mget,
    },
    CommandSpec {
        name: "lcs",
        arity: -3,
        handler: lcs,
    },
];

/// Redis' default `proto-max-bulk-len` (512 MiB): LCS refuses a table larger than it.
const PROTO_MAX_BULK_LEN: u64 = 512 * 1024 * 1024;

/// MGET key [key ...]: each key's string, nil for a missing key or one of another type (as
/// Redis 7.4 MGET: never WRONGTYPE).
fn mget(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    Reply::Array(
        argv[1..]
            .iter()
            .map(|k| match ctx.ks.get(k) {
                Some(Value::String(s)) => Reply::Bulk(s.as_bytes().into_owned()),
                _ => Reply::NullBulk,
            })
            .collect(),
    )
}

/// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN] (Redis 7.0+): the longest
/// common subsequence of two strings (a missing key reads as empty), as Redis 7.4's
/// `lcsCommand` computes and walks its dynamic-programming table: the same subsequence, the
/// same match ranges (from the strings' ends backwards), the same errors, and its refusal of
/// a table larger than `proto-max-bulk-len` (so the table here is bounded by it too).
fn lcs(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let read = |k: &[u8]| match ctx.ks.get(k) {
        None => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(s.as_bytes().into_owned()),
        Some(_) => Err(()),
    };
    let (a, b) = match (read(&argv[1]), read(&argv[2])) {
        (Ok(a), Ok(b)) => (a, b),
        _ => return Reply::err("ERR The specified keys must contain string values"),
    };
    let (mut getlen, mut getidx, mut withmatchlen, mut minmatchlen) = (false, false, false, 0i64);
    let mut j = 3;
    while j < argv.len() {
        let opt = &argv[j];
        let more = argv.len() - 1 - j;
        if is(opt, "idx") {
            getidx = true;
        } else if is(opt, "len") {
            getlen = true;
        } else if is(opt, "withmatchlen") {
            withmatchlen = true;
        } else if is(opt, "minmatchlen") && more > 0 {
            match parse_i64(&argv[j + 1]) {
                Some(n) => minmatchlen = n.max(0),
                None => return Reply::err("ERR value is not an integer or out of range"),
            }
            j += 1;
        } else {
            return Reply::syntax_error();
        }
        j += 1;
    }
    if getlen && getidx {
        return Reply::err("ERR If you want both the length and indexes, please just use IDX.");
    }
    if a.len() as u64 >= u32::MAX as u64 - 1 || b.len() as u64 >= u32::MAX as u64 - 1 {
        return Reply::err("ERR String too long for LCS");
    }
    let (alen, blen) = (a.len(), b.len());
    let cells = (alen as u64 + 1) * (blen as u64 + 1);
    if cells * 4 > PROTO_MAX_BULK_LEN {
        return Reply::err(
            "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len",
        );
    }
    let w = blen + 1;
    let mut t = vec![0u32; cells as usize];
    for i in 1..=alen {
        for jj in 1..=blen {
            t[i * w + jj] = if a[i - 1] == b[jj - 1] {
                t[(i - 1) * w + jj - 1] + 1
            } else {
                t[(i - 1) * w + jj].max(t[i * w + jj - 1])
            };
        }
    }
    let total = t[alen * w + blen];
    if getlen {
        return Reply::Integer(total as i64);
    }
    let mut result = vec![0u8; total as usize];
    let mut idx = total as usize;
    let mut matches = Vec::new();
    // `arange_start == alen` marks "no range open", as in Redis.
    let (mut astart, mut aend, mut bstart, mut bend) = (alen, 0usize, 0usize, 0usize);
    let (mut i, mut jj) = (alen, blen);
    while i > 0 && jj > 0 {
        let mut emit = false;
        if a[i - 1] == b[jj - 1] {
            result[idx - 1] = a[i - 1];
            if astart == alen {
                astart = i - 1;
                aend = i - 1;
                bstart = jj - 1;
                bend = jj - 1;
            } else if astart == i && bstart == jj {
                astart -= 1;
                bstart -= 1;
            } else {
                emit = true;
            }
            if astart == 0 || bstart == 0 {
                emit = true;
            }
            idx -= 1;
            i -= 1;
            jj -= 1;
        } else {
            if t[(i - 1) * w + jj] > t[i * w + jj - 1] {
                i -= 1;
            } else {
                jj -= 1;
            }
            if astart != alen {
                emit = true;
            }
        }
        let match_len = (aend as i64) - (astart as i64) + 1;
        if emit {
            if (minmatchlen == 0 || match_len >= minmatchlen) && getidx {
                let mut m = vec![
                    Reply::Array(vec![
                        Reply::Integer(astart as i64),
                        Reply::Integer(aend as i64),
                    ]),
                    Reply::Array(vec![
                        Reply::Integer(bstart as i64),
                        Reply::Integer(bend as i64),
                    ]),
                ];
                if withmatchlen {
                    m.push(Reply::Integer(match_len));
                }
                matches.push(Reply::Array(m));
            }
            astart = alen;
        }
    }
    if getidx {
        Reply::Array(vec![
            Reply::bulk("matches"),
            Reply::Array(matches),
            Reply::bulk("len"),
            Reply::Integer(total as i64),
        ])
    } else {
        Reply::Bulk(result)
    }
}

#[cfg(test)]
mod tests {
    use crate::command::execute_str;
    use crate::keyspace::{Keyspace, Value};
    use crate::reply::Reply;
    use crate::string::RedisString;

    #[test]
    fn lcs_as_redis_docs() {
        let mut ks = Keyspace::new();
        ks.set(b"key1", Value::String(RedisString::from_slice(b"ohmytext")));
        ks.set(
            b"key2",
            Value::String(RedisString::from_slice(b"mynewtext")),
        );
        assert_eq!(
            execute_str(&mut ks, &["LCS", "key1", "key2"]),
            Reply::bulk("mytext")
        );
        assert_eq!(
            execute_str(&mut ks, &["LCS", "key1", "key2", "LEN"]),
            Reply::Integer(6)
        );
        let r = |a: i64, b: i64| Reply::Array(vec![Reply::Integer(a), Reply::Integer(b)]);
        assert_eq!(
            execute_str(
                &mut ks,
                &[
                    "LCS",
                    "key1",
                    "key2",
                    "IDX",
                    "MINMATCHLEN",
                    "4",
                    "WITHMATCHLEN"
                ]
            ),
            Reply::Array(vec![
                Reply::bulk("matches"),
                Reply::Array(vec![Reply::Array(vec![
                    r(4, 7),
                    r(5, 8),
                    Reply::Integer(4)
                ])]),
                Reply::bulk("len"),
                Reply::Integer(6),
            ])
        );
        assert_eq!(
            execute_str(&mut ks, &["MGET", "key1", "nokey"]),
            Reply::Array(vec![Reply::bulk("ohmytext"), Reply::NullBulk])
        );
    }
}
