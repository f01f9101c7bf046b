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
