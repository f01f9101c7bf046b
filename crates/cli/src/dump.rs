//! `bitlens dump FILE --format jsonl|resp`: every key of a snapshot, one at a time as the
//! file is read (values are decoded per key and dropped).
//!
//! - `jsonl`: one JSON object per key, `{"db", "key", "type", "expire_at_ms", "value"}`; names
//!   and elements are strings when valid UTF-8, else `{"hex": "…"}` (as `inspect --json`).
//!   Values: string → name; list / set → `[element]`; zset → `[[member, score]]` (a score is
//!   a JSON number, or the string `"inf"` / `"-inf"`, redis-cli's spelling, for the two
//!   infinities JSON numbers cannot hold); hash →
//!   `[[field, value, expire_at_ms|null]]`; stream → `{"entries": [{"id", "fields":
//!   [[f, v]]}], "last_id", "groups": [{"name", "last_id"}]}`; module values → `null`.
//! - `resp`: the commands that rebuild the data set, as RESP arrays (what an AOF holds):
//!   `SELECT db`, then per key `SET` / `RPUSH` / `SADD` / `ZADD` / `HSET` / `XADD` (explicit
//!   IDs) + `XSETID` + `XGROUP CREATE`, at most [`CHUNK`] elements per command, then
//!   `PEXPIREAT` (and `HPEXPIREAT … FIELDS 1 f` for hash fields with their own expiry).
//!   Pending entries and consumers are not commands and are not written; module values are
//!   skipped (named on stderr by the caller).

use bitlens::keyspace::Value;
use serde_json::{json, Value as Json};

use crate::inspect::render::name_json;

/// Most elements per rebuilding command.
pub const CHUNK: usize = 1000;

fn score_text(x: f64) -> Vec<u8> {
    // Exact: 17 significant digits read back to the same double.
    if x.is_infinite() {
        return if x > 0.0 {
            b"+inf".to_vec()
        } else {
            b"-inf".to_vec()
        };
    }
    format!("{x:.17e}").into_bytes()
}

/// The commands that rebuild `value` under `key` (see the module docs); empty for module
/// values.
pub fn commands(key: &[u8], value: &Value, expire_at_ms: Option<i64>) -> Vec<Vec<Vec<u8>>> {
    let k = key.to_vec();
    let mut out: Vec<Vec<Vec<u8>>> = Vec::new();
    let chunked = |out: &mut Vec<Vec<Vec<u8>>>, cmd: &[u8], items: Vec<Vec<u8>>, per: usize| {
        for c in items.chunks(CHUNK * per) {
            let mut argv = vec![cmd.to_vec(), k.clone()];
            argv.extend(c.iter().cloned());
            out.push(argv);
        }
    };
    match value {
        Value::String(s) => out.push(vec![b"SET".to_vec(), k.clone(), s.as_bytes().into_owned()]),
        Value::List(l) => chunked(&mut out, b"RPUSH", l.range(0, l.len().saturating_sub(1)), 1),
        Value::Set(s) => chunked(&mut out, b"SADD", s.members(), 1),
        Value::ZSet(z) => {
            let items = z
                .sorted()
                .iter()
                .flat_map(|(score, m)| [score_text(*score), m.to_vec()])
                .collect();
            chunked(&mut out, b"ZADD", items, 2);
        }
        Value::Hash(h) => {
            let fields = h.all();
            let items = fields
                .iter()
                .flat_map(|f| [f.field.clone(), f.value.clone()])
                .collect();
            chunked(&mut out, b"HSET", items, 2);
            for f in fields.iter().filter(|f| f.expire_at_ms.is_some()) {
                out.push(vec![
                    b"HPEXPIREAT".to_vec(),
                    k.clone(),
                    f.expire_at_ms.unwrap().to_string().into_bytes(),
                    b"FIELDS".to_vec(),
                    b"1".to_vec(),
                    f.field.clone(),
                ]);
            }
        }
        Value::Stream(s) => {
            let all = s.range(
                bitlens::stream::StreamId { ms: 0, seq: 0 },
                bitlens::stream::StreamId {
                    ms: u64::MAX,
                    seq: u64::MAX,
                },
                None,
            );
            for e in &all {
                let mut argv = vec![b"XADD".to_vec(), k.clone(), e.id.text().into_bytes()];
                for (f, v) in &e.fields {
                    argv.push(f.clone());
                    argv.push(v.clone());
                }
                out.push(argv);
            }
            if all.is_empty() {
                // An empty stream exists only as a key: create it with an entry, then trim.
                out.push(vec![
                    b"XADD".to_vec(),
                    k.clone(),
                    b"MAXLEN".to_vec(),
                    b"0".to_vec(),
                    b"0-1".to_vec(),
                    b"f".to_vec(),
                    b"v".to_vec(),
                ]);
            }
            out.push(vec![
                b"XSETID".to_vec(),
                k.clone(),
                s.last_id.text().into_bytes(),
                b"ENTRIESADDED".to_vec(),
                s.entries_added.to_string().into_bytes(),
                b"MAXDELETEDID".to_vec(),
                s.max_deleted_id.text().into_bytes(),
            ]);
            for g in &s.groups {
                let mut argv = vec![
                    b"XGROUP".to_vec(),
                    b"CREATE".to_vec(),
                    k.clone(),
                    g.name.clone(),
                    g.last_id.text().into_bytes(),
                ];
                if let Some(n) = g.entries_read {
                    argv.push(b"ENTRIESREAD".to_vec());
                    argv.push(n.to_string().into_bytes());
                }
                out.push(argv);
            }
        }
        Value::Module(_) | Value::Other(_) => return out,
    }
    if let Some(ms) = expire_at_ms {
        out.push(vec![b"PEXPIREAT".to_vec(), k, ms.to_string().into_bytes()]);
    }
    out
}

/// RESP array of bulk strings for `argv`.
pub fn resp(argv: &[Vec<u8>]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", argv.len()).into_bytes();
    for a in argv {
        out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
        out.extend_from_slice(a);
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// Calls `f` with the bytes of `s` in order: one borrowed slice for a plain string, pieces of
/// at most [`PIECE`] bytes for a sparse one (never the whole string copied).
pub fn string_pieces(
    s: &bitlens::string::RedisString,
    mut f: impl FnMut(&[u8]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    if s.as_sparse().is_none() {
        return f(&s.as_bytes());
    }
    let mut at = 0u64;
    while at < s.len() {
        let end = (at + PIECE as u64).min(s.len());
        f(&s.range(at, end - 1))?;
        at = end;
    }
    Ok(())
}

/// Bytes of a sparse string handed on at a time by [`string_pieces`] (1 MiB).
const PIECE: usize = 1 << 20;

/// Writes the RESP commands that rebuild `value` under `key` ([`commands`]) to `out`, a
/// string's bytes streamed from the value (no copy of them); false when no command rebuilds
/// it (a module value: nothing written).
pub fn write_resp(
    out: &mut impl std::io::Write,
    key: &[u8],
    value: &Value,
    expire_at_ms: Option<i64>,
) -> std::io::Result<bool> {
    if let Value::String(s) = value {
        write!(out, "*3\r\n$3\r\nSET\r\n${}\r\n", key.len())?;
        out.write_all(key)?;
        write!(out, "\r\n${}\r\n", s.len())?;
        string_pieces(s, |p| out.write_all(p))?;
        out.write_all(b"\r\n")?;
        if let Some(ms) = expire_at_ms {
            let argv = [
                b"PEXPIREAT".to_vec(),
                key.to_vec(),
                ms.to_string().into_bytes(),
            ];
            out.write_all(&resp(&argv))?;
        }
        return Ok(true);
    }
    let cmds = commands(key, value, expire_at_ms);
    for c in &cmds {
        out.write_all(&resp(c))?;
    }
    Ok(!cmds.is_empty())
}

/// Writes [`json_line`] of the key (no newline) to `out`, a string value's bytes streamed
/// from the value, escaped (or in hex) piece by piece: the same bytes as `json_line`'s
/// text, without a copy of the string.
pub fn write_json_line(
    out: &mut impl std::io::Write,
    db: u64,
    key: &[u8],
    value: &Value,
    expire_at_ms: Option<i64>,
) -> std::io::Result<()> {
    let Value::String(s) = value else {
        return serde_json::to_writer(out, &json_line(db, key, value, expire_at_ms))
            .map_err(std::io::Error::from);
    };
    // "value" is the object's last member (in key order and in insertion order alike): the
    // line is the others', then the value.
    let head = json!({"db": db, "key": name_json(key), "type": value.redis_type().name(), "expire_at_ms": expire_at_ms})
        .to_string();
    out.write_all(&head.as_bytes()[..head.len() - 1])?;
    out.write_all(b",\"value\":")?;
    if string_is_utf8(s)? {
        out.write_all(b"\"")?;
        // Escaped a whole character at a time: a piece's cut-off last character waits
        // for the next piece.
        let mut carry: Vec<u8> = Vec::new();
        string_pieces(s, |p| {
            if carry.is_empty() {
                return escape_piece(out, p, &mut carry);
            }
            let joined = [std::mem::take(&mut carry).as_slice(), p].concat();
            escape_piece(out, &joined, &mut carry)
        })?;
        out.write_all(b"\"")?;
    } else {
        out.write_all(b"{\"hex\":\"")?;
        let mut hex = Vec::new();
        string_pieces(s, |p| {
            for chunk in p.chunks(ESCAPED) {
                hex.clear();
                for b in chunk {
                    hex.extend_from_slice(format!("{b:02x}").as_bytes());
                }
                out.write_all(&hex)?;
            }
            Ok(())
        })?;
        out.write_all(b"\"}")?;
    }
    out.write_all(b"}")
}

/// Bytes of a string escaped (or written in hex) at a time in a JSON line (64 KiB).
const ESCAPED: usize = 64 << 10;

/// Writes the JSON escaping (without quotes) of the valid UTF-8 start of `bytes` to `out`,
/// [`ESCAPED`] bytes at a time; an incomplete last character goes to `carry`.
fn escape_piece(
    out: &mut impl std::io::Write,
    bytes: &[u8],
    carry: &mut Vec<u8>,
) -> std::io::Result<()> {
    let valid = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            carry.extend_from_slice(&bytes[e.valid_up_to()..]);
            std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default()
        }
    };
    let mut at = 0;
    while at < valid.len() {
        let mut end = (at + ESCAPED).min(valid.len());
        while !valid.is_char_boundary(end) {
            end -= 1;
        }
        // serde_json escapes character by character: pieces escaped apart join as the whole.
        let text = serde_json::to_string(&valid[at..end]).map_err(std::io::Error::from)?;
        out.write_all(&text.as_bytes()[1..text.len() - 1])?;
        at = end;
    }
    Ok(())
}

/// Whether the string's bytes are UTF-8 (as [`name_json`] judges them), read piece by piece.
fn string_is_utf8(s: &bitlens::string::RedisString) -> std::io::Result<bool> {
    let mut carry: Vec<u8> = Vec::new();
    let mut ok = true;
    string_pieces(s, |p| {
        if !ok {
            return Ok(());
        }
        let joined;
        let bytes = if carry.is_empty() {
            p
        } else {
            joined = [std::mem::take(&mut carry).as_slice(), p].concat();
            &joined[..]
        };
        match std::str::from_utf8(bytes) {
            Ok(_) => {}
            // An incomplete character at the end: judged with the next piece.
            Err(e) if e.error_len().is_none() => carry = bytes[e.valid_up_to()..].to_vec(),
            Err(_) => ok = false,
        }
        Ok(())
    })?;
    Ok(ok && carry.is_empty())
}

/// A sorted-set score in a JSON line: a number, or `"inf"` / `"-inf"` (serde_json would
/// write an infinity as `null`, which would also read as a missing score).
fn score_json(score: f64) -> Json {
    if score.is_infinite() {
        json!(if score > 0.0 { "inf" } else { "-inf" })
    } else {
        json!(score)
    }
}

/// The JSON line of one key (see the module docs).
pub fn json_line(db: u64, key: &[u8], value: &Value, expire_at_ms: Option<i64>) -> Json {
    let names = |v: &[Vec<u8>]| v.iter().map(|e| name_json(e)).collect::<Vec<_>>();
    let val = match value {
        Value::String(s) => name_json(&s.as_bytes()),
        Value::List(l) => json!(names(&l.range(0, l.len().saturating_sub(1)))),
        Value::Set(s) => json!(names(&s.members())),
        Value::ZSet(z) => json!(z
            .sorted()
            .iter()
            .map(|(s, m)| json!([name_json(m), score_json(*s)]))
            .collect::<Vec<_>>()),
        Value::Hash(h) => json!(h
            .all()
            .iter()
            .map(|f| json!([name_json(&f.field), name_json(&f.value), f.expire_at_ms]))
            .collect::<Vec<_>>()),
        Value::Stream(s) => {
            let entries = s.range(
                bitlens::stream::StreamId { ms: 0, seq: 0 },
                bitlens::stream::StreamId {
                    ms: u64::MAX,
                    seq: u64::MAX,
                },
                None,
            );
            json!({
                "entries": entries.iter().map(|e| json!({"id": e.id.text(),
                    "fields": e.fields.iter().map(|(f, v)| json!([name_json(f), name_json(v)])).collect::<Vec<_>>()})).collect::<Vec<_>>(),
                "last_id": s.last_id.text(),
                "groups": s.groups.iter().map(|g| json!({"name": name_json(&g.name), "last_id": g.last_id.text()})).collect::<Vec<_>>(),
            })
        }
        Value::Module(_) | Value::Other(_) => Json::Null,
    };
    json!({"db": db, "key": name_json(key), "type": value.redis_type().name(), "expire_at_ms": expire_at_ms, "value": val})
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitlens::zset::ZSet;

    /// Strings of every kind (plain UTF-8 with escapes, binary, sparse with a character cut
    /// by a piece boundary, sparse binary) stream to the bytes `json_line` and `commands`
    /// give.
    #[test]
    fn streamed_strings_are_the_built_lines() {
        use bitlens::string::RedisString;
        let mut sparse_text = vec![0u8; 3 << 20];
        sparse_text[(1 << 20) - 1..(1 << 20) + 1].copy_from_slice("é".as_bytes());
        sparse_text[2 << 20] = b'"';
        let mut sparse_bin = vec![0u8; 3 << 20];
        sparse_bin[5] = 0xff;
        let values = [
            RedisString::from_bytes(b"h\xc3\xa9\"\\\n\x01 ok".to_vec()),
            RedisString::from_bytes(vec![0xff, 0, 1]),
            RedisString::from_bytes(Vec::new()),
            RedisString::from_bytes(sparse_text),
            RedisString::from_bytes(sparse_bin),
        ];
        for (i, s) in values.into_iter().enumerate() {
            let sparse = s.is_sparse();
            assert_eq!(sparse, i >= 3, "value {i}");
            let v = Value::String(s);
            for exp in [None, Some(1_900_000_000_000)] {
                let mut got = Vec::new();
                write_json_line(&mut got, 3, b"k\xff", &v, exp).unwrap();
                let want = json_line(3, b"k\xff", &v, exp).to_string();
                assert!(got == want.as_bytes(), "value {i}");
                let mut got = Vec::new();
                assert!(write_resp(&mut got, b"k", &v, exp).unwrap());
                let want: Vec<u8> = commands(b"k", &v, exp)
                    .iter()
                    .flat_map(|c| resp(c))
                    .collect();
                assert!(got == want, "value {i}");
            }
        }
    }

    #[test]
    fn infinite_scores_are_named_not_null() {
        let z = ZSet::from_pairs([
            (b"lo".to_vec(), f64::NEG_INFINITY),
            (b"mid".to_vec(), 1.5),
            (b"hi".to_vec(), f64::INFINITY),
        ]);
        let line = json_line(0, b"z", &Value::zset(z), None);
        assert_eq!(
            line["value"],
            json!([["lo", "-inf"], ["mid", 1.5], ["hi", "inf"]])
        );
    }
}
