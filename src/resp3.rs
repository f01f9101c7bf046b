//! RESP3 replies: the shape each command's reply takes when a client said `HELLO 3`.
//!
//! The engine answers every command as a RESP2 [`Reply`]; RESP3 carries the same values with
//! more types, and which type a value takes is fixed per command (Redis' `addReplyMap`,
//! `addReplySet`, `addReplyDouble`, `addReplyHumanLongDouble`, `addReplyNull`). So the RESP3
//! bytes are the RESP2 reply re-typed by the command's shape:
//!
//! - both nulls (`$-1`, `*-1`) are `_`;
//! - maps (`%n`): HGETALL, LCS `IDX`, XREAD (stream name to entries), XINFO STREAM (and FULL's groups and consumers), each entry of
//!   XINFO GROUPS / CONSUMERS, RedisBloom's `*.INFO`, VINFO;
//! - sets (`~n`): SMEMBERS, SINTER, SUNION, SDIFF;
//! - doubles (`,text`, the RESP2 bulk's text): ZSCORE, ZINCRBY, ZMSCORE's entries, scores of
//!   ZRANGE-family, ZUNION / ZINTER / ZDIFF and ZRANDMEMBER `WITHSCORES` (then `[member, score]` pairs), ZRANK
//!   `WITHSCORE`, GEOPOS and `WITHCOORD` coordinates, VEMB's components;
//! - `[field, value]` pairs: HRANDFIELD `WITHVALUES`;
//! - booleans (`#t`/`#f`): VISMEMBER;
//! - vector sets (Redis 8.0.2's vset.c): VSIM `WITHSCORES` a map of element to similarity
//!   (double; from 8.2 `WITHATTRIBS` maps to the attribute, or to `[score, attribute]` with
//!   both), VLINKS `WITHSCORES` one such map per level, VEMB `RAW` its norm (and Q8 range)
//!   as doubles.
//!
//! Everything else (integers, bulk and status strings, errors, arrays) is written as in RESP2.
//! The shapes were read from each server's source and are held byte for byte against the
//! real servers by `bitlens resp`'s differential test.

use crate::reply::Reply;

/// The RESP3 bytes of `reply`, the answer to `argv` (see the module header).
pub fn to_resp3(argv: &[Vec<u8>], reply: &Reply) -> Vec<u8> {
    let mut out = Vec::new();
    write_resp3(argv, reply, &mut out);
    out
}

/// Appends the RESP3 bytes of `reply`, the answer to `argv`, to `out`.
pub fn write_resp3(argv: &[Vec<u8>], reply: &Reply, out: &mut Vec<u8>) {
    let name = argv
        .first()
        .map(|n| n.to_ascii_lowercase())
        .unwrap_or_default();
    let has = |opt: &[u8]| argv.iter().skip(1).any(|a| a.eq_ignore_ascii_case(opt));
    let sub = argv
        .get(1)
        .map(|s| s.to_ascii_lowercase())
        .unwrap_or_default();
    if reply.is_error() {
        plain(reply, out);
        return;
    }
    match name.as_slice() {
        b"hgetall" | b"bf.info" | b"cf.info" | b"cms.info" | b"topk.info" | b"tdigest.info"
        | b"vinfo" => map(reply, out, &|_, v, out| plain(v, out)),
        b"lcs" if has(b"idx") => map(reply, out, &|_, v, out| plain(v, out)),
        b"xread" => stream_map(reply, out),
        b"smembers" | b"sinter" | b"sunion" | b"sdiff" => set(reply, out),
        b"zscore" | b"zincrby" => double(reply, out),
        b"zmscore" | b"vemb" if !has(b"raw") => each(reply, out, &|v, out| double(v, out)),
        b"zrange" | b"zrevrange" | b"zrangebyscore" | b"zrevrangebyscore" | b"zrandmember"
        | b"zunion" | b"zinter" | b"zdiff"
            if has(b"withscores") =>
        {
            pairs(reply, out, true)
        }
        b"zrank" | b"zrevrank" if has(b"withscore") => match reply {
            Reply::Array(items) if items.len() == 2 => {
                header(b'*', 2, out);
                plain(&items[0], out);
                double(&items[1], out);
            }
            other => plain(other, out),
        },
        b"hrandfield" if has(b"withvalues") => pairs(reply, out, false),
        b"geopos" => each(reply, out, &coords),
        b"geosearch"
        | b"georadius"
        | b"georadiusbymember"
        | b"georadius_ro"
        | b"georadiusbymember_ro"
            if has(b"withcoord") =>
        {
            each(reply, out, &|item, out| match item {
                Reply::Array(parts) if !parts.is_empty() => {
                    header(b'*', parts.len(), out);
                    for p in &parts[..parts.len() - 1] {
                        plain(p, out);
                    }
                    coords(&parts[parts.len() - 1], out);
                }
                other => plain(other, out),
            })
        }
        b"xinfo" if sub == b"stream" => map(reply, out, &stream_field),
        b"xinfo" if sub == b"groups" || sub == b"consumers" => each(reply, out, &|v, out| {
            map(v, out, &|_, v, out| plain(v, out))
        }),
        b"vsim" if has(b"withscores") || has(b"withattribs") => {
            vsim_map(reply, has(b"withscores"), has(b"withattribs"), out)
        }
        b"vlinks" if has(b"withscores") => each(reply, out, &|level, out| {
            map(level, out, &|_, v, out| double(v, out))
        }),
        // [quantization, blob, l2 norm, (q8: range)]: the figures are doubles.
        b"vemb" => match reply {
            Reply::Array(items) if items.len() >= 2 => {
                header(b'*', items.len(), out);
                plain(&items[0], out);
                plain(&items[1], out);
                for v in &items[2..] {
                    double(v, out);
                }
            }
            other => plain(other, out),
        },
        b"vismember" => match reply {
            Reply::Integer(n) => out.extend_from_slice(if *n != 0 { b"#t\r\n" } else { b"#f\r\n" }),
            other => plain(other, out),
        },
        _ => plain(reply, out),
    }
}

/// VSIM's flat `[item, score?, attribute?, ...]` as a map of item to its score (a double), its
/// attribute, or both as `[score, attribute]` (vset.c `VSIM_execute` from Redis 8.2).
fn vsim_map(reply: &Reply, scores: bool, attribs: bool, out: &mut Vec<u8>) {
    let per = 1 + scores as usize + attribs as usize;
    match reply {
        Reply::Array(items) if items.len() % per == 0 => {
            header(b'%', items.len() / per, out);
            for e in items.chunks(per) {
                plain(&e[0], out);
                if scores && attribs {
                    header(b'*', 2, out);
                }
                if scores {
                    double(&e[1], out);
                }
                if attribs {
                    plain(&e[per - 1], out);
                }
            }
        }
        other => plain(other, out),
    }
}

/// XINFO STREAM's fields: with FULL, `groups` is an array of maps whose `consumers` is an
/// array of maps.
fn stream_field(key: &Reply, value: &Reply, out: &mut Vec<u8>) {
    match key {
        Reply::Bulk(k) if k == b"groups" && matches!(value, Reply::Array(_)) => {
            each(value, out, &|g, out| {
                map(g, out, &|k, v, out| match k {
                    Reply::Bulk(k) if k == b"consumers" && matches!(v, Reply::Array(_)) => {
                        each(v, out, &|c, out| map(c, out, &|_, v, out| plain(v, out)))
                    }
                    _ => plain(v, out),
                })
            })
        }
        _ => plain(value, out),
    }
}

fn header(kind: u8, n: usize, out: &mut Vec<u8>) {
    out.push(kind);
    out.extend_from_slice(n.to_string().as_bytes());
    out.extend_from_slice(b"\r\n");
}

/// A value with RESP2's types, nulls as `_`.
fn plain(reply: &Reply, out: &mut Vec<u8>) {
    match reply {
        Reply::NullBulk | Reply::NullArray => out.extend_from_slice(b"_\r\n"),
        Reply::Array(items) => {
            header(b'*', items.len(), out);
            for i in items {
                plain(i, out);
            }
        }
        other => out.extend_from_slice(&other.to_resp()),
    }
}

/// A bulk string as a double (`,text`), anything else as [`plain`].
fn double(reply: &Reply, out: &mut Vec<u8>) {
    match reply {
        Reply::Bulk(text) => {
            out.push(b',');
            out.extend_from_slice(text);
            out.extend_from_slice(b"\r\n");
        }
        other => plain(other, out),
    }
}

/// An array whose every element is written by `f` (a null as `_`).
fn each(reply: &Reply, out: &mut Vec<u8>, f: &dyn Fn(&Reply, &mut Vec<u8>)) {
    match reply {
        Reply::Array(items) => {
            header(b'*', items.len(), out);
            for i in items {
                f(i, out);
            }
        }
        other => plain(other, out),
    }
}

/// A `[longitude, latitude]` pair as two doubles.
fn coords(reply: &Reply, out: &mut Vec<u8>) {
    each(reply, out, &|v, out| double(v, out))
}

/// A flat `[k1, v1, k2, v2 ...]` array as a map, each value written by `f(key, value)`.
fn map(reply: &Reply, out: &mut Vec<u8>, f: &dyn Fn(&Reply, &Reply, &mut Vec<u8>)) {
    match reply {
        Reply::Array(items) if items.len() % 2 == 0 => {
            header(b'%', items.len() / 2, out);
            for kv in items.chunks(2) {
                plain(&kv[0], out);
                f(&kv[0], &kv[1], out);
            }
        }
        other => plain(other, out),
    }
}

/// XREAD's `[[key, entries], ...]` as a map of key to entries (Redis 7.4 `xreadCommand`'s
/// RESP3 reply).
fn stream_map(reply: &Reply, out: &mut Vec<u8>) {
    match reply {
        Reply::Array(items)
            if items
                .iter()
                .all(|i| matches!(i, Reply::Array(kv) if kv.len() == 2)) =>
        {
            header(b'%', items.len(), out);
            for i in items {
                if let Reply::Array(kv) = i {
                    plain(&kv[0], out);
                    plain(&kv[1], out);
                }
            }
        }
        other => plain(other, out),
    }
}

/// An array as a set.
fn set(reply: &Reply, out: &mut Vec<u8>) {
    match reply {
        Reply::Array(items) => {
            header(b'~', items.len(), out);
            for i in items {
                plain(i, out);
            }
        }
        other => plain(other, out),
    }
}

/// A flat `[a1, b1, a2, b2 ...]` array as `[[a1, b1], ...]`, the second of each pair a double
/// when `score`.
fn pairs(reply: &Reply, out: &mut Vec<u8>, score: bool) {
    match reply {
        Reply::Array(items) if items.len() % 2 == 0 => {
            header(b'*', items.len() / 2, out);
            for kv in items.chunks(2) {
                header(b'*', 2, out);
                plain(&kv[0], out);
                if score {
                    double(&kv[1], out);
                } else {
                    plain(&kv[1], out);
                }
            }
        }
        other => plain(other, out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &str) -> Vec<Vec<u8>> {
        line.split(' ').map(|w| w.as_bytes().to_vec()).collect()
    }

    #[test]
    fn shapes() {
        let b = Reply::bulk;
        let flat = Reply::Array(vec![b("a"), b("1.5"), b("b"), b("2")]);
        assert_eq!(
            to_resp3(&argv("ZRANGE z 0 -1 WITHSCORES"), &flat),
            b"*2\r\n*2\r\n$1\r\na\r\n,1.5\r\n*2\r\n$1\r\nb\r\n,2\r\n"
        );
        assert_eq!(
            to_resp3(&argv("HGETALL h"), &flat),
            b"%2\r\n$1\r\na\r\n$3\r\n1.5\r\n$1\r\nb\r\n$1\r\n2\r\n"
        );
        assert_eq!(to_resp3(&argv("GET x"), &Reply::NullBulk), b"_\r\n");
        assert_eq!(to_resp3(&argv("ZSCORE z a"), &b("inf")), b",inf\r\n");
        assert_eq!(
            to_resp3(&argv("SMEMBERS s"), &Reply::Array(vec![b("x")])),
            b"~1\r\n$1\r\nx\r\n"
        );
        assert_eq!(
            to_resp3(&argv("HGETALL h"), &Reply::wrong_type()),
            Reply::wrong_type().to_resp()
        );
    }
}
