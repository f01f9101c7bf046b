//! SORT_RO (Redis 7.0+), as Redis 7.4's `sortCommandGeneric` answers it read-only: ASC/DESC,
//! ALPHA, LIMIT, BY (a pattern with `*`; without one, `BY nosort`, the value's own order),
//! GET (`#` the element itself, `pattern`, `pattern->field` of a hash), the numeric
//! conversion error, and Redis' LIMIT clamping. Elements compare as Redis compares them:
//! numbers by value, ties by the elements' bytes; ALPHA by bytes up to a NUL (`strcoll` in
//! the C / C.UTF-8 locales the servers run in). Where Redis' qsort leaves an order unspecified
//! (ALPHA BY weights that tie or are missing) the order here is one of the allowed ones; a set
//! stored as a hashtable sorts `BY nosort` in file order (Redis' comes from its hash table).

use std::cmp::Ordering;

use super::args::{is, parse_f64, parse_i64};
use super::{CommandSpec, Ctx};
use crate::keyspace::{Keyspace, Value};
use crate::reply::Reply;

/// SORT_RO.
pub const COMMANDS: &[CommandSpec] = &[CommandSpec {
    name: "sort_ro",
    arity: -2,
    handler: sort_ro,
}];

/// Redis' `lookupKeyByPattern`: `#` is the element; otherwise the first `*` (before any NUL)
/// is replaced by the element, a `->field` after it (not at the end) reads that hash field,
/// else the key must hold a string. `None`: no `*`, a missing key or field, another type.
fn by_pattern(ks: &Keyspace, pattern: &[u8], subst: &[u8]) -> Option<Vec<u8>> {
    if pattern.first() == Some(&b'#') && pattern.get(1).is_none_or(|&c| c == 0) {
        return Some(subst.to_vec());
    }
    let cstr = &pattern[..pattern
        .iter()
        .position(|&c| c == 0)
        .unwrap_or(pattern.len())];
    let star = cstr.iter().position(|&c| c == b'*')?;
    let after = &cstr[star + 1..];
    let field = after
        .windows(2)
        .position(|w| w == b"->")
        .map(|i| star + 1 + i)
        .filter(|&f| f + 2 < cstr.len());
    let field_bytes = field.map(|f| &pattern[f + 2..]);
    let key_end = field.unwrap_or(pattern.len());
    let mut key = pattern[..star].to_vec();
    key.extend_from_slice(subst);
    key.extend_from_slice(&pattern[star + 1..key_end]);
    match (ks.get(&key)?, field_bytes) {
        (Value::Hash(h), Some(f)) => h.get(f, ks.clock()).map(|(v, _)| v),
        (Value::String(s), None) => Some(s.as_bytes().into_owned()),
        _ => None,
    }
}

/// C `strtod` as SORT reads a weight: leading spaces allowed, nothing but the end (or a NUL)
/// after the number; NaN, overflow and underflow (ERANGE) refused; an empty string is 0.
fn sort_strtod(s: &[u8]) -> Option<f64> {
    let s = &s[..s.iter().position(|&c| c == 0).unwrap_or(s.len())];
    if s.is_empty() {
        return Some(0.0);
    }
    let start = s
        .iter()
        .position(|c| !matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))?;
    parse_f64(&s[start..])
}

/// fast_float's `from_chars` as Redis 8.0's SORT reads a weight (up to a NUL): an optional
/// `-`, then decimal digits with an optional fraction and exponent, or `inf` / `infinity`
/// / `nan` (refused as NaN); no spaces, `+` or hex. Overflow is ±inf, underflow 0 (fast_float
/// stops after the number either way, and SORT only refuses ERANGE). An empty string is 0.
fn sort_fast_float(s: &[u8]) -> Option<f64> {
    let s = &s[..s.iter().position(|&c| c == 0).unwrap_or(s.len())];
    if s.is_empty() {
        return Some(0.0);
    }
    let body = s.strip_prefix(b"-").unwrap_or(s);
    let lower = body.to_ascii_lowercase();
    if lower == b"inf" || lower == b"infinity" {
        return Some(if body.len() == s.len() {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        });
    }
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < body.len() && body[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    let mut n = digits(&mut i);
    if i < body.len() && body[i] == b'.' {
        i += 1;
        n += digits(&mut i);
    }
    if n == 0 {
        return None;
    }
    if i < body.len() && matches!(body[i], b'e' | b'E') {
        i += 1;
        if i < body.len() && matches!(body[i], b'+' | b'-') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return None;
        }
    }
    if i != body.len() {
        return None;
    }
    std::str::from_utf8(s).ok()?.parse::<f64>().ok()
}

/// Bytes up to the first NUL: what `strcoll` compares.
fn cstr(s: &[u8]) -> &[u8] {
    &s[..s.iter().position(|&c| c == 0).unwrap_or(s.len())]
}

struct Item {
    obj: Vec<u8>,
    score: f64,
    cmp: Option<Vec<u8>>,
}

/// SORT_RO key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC|DESC] [ALPHA].
fn sort_ro(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let (mut desc, mut alpha, mut dontsort) = (false, false, false);
    let (mut limit_start, mut limit_count) = (0i64, -1i64);
    let mut sortby: Option<&[u8]> = None;
    let mut gets: Vec<&[u8]> = Vec::new();
    let mut j = 2;
    while j < argv.len() {
        let left = argv.len() - j - 1;
        let a = &argv[j];
        if is(a, "asc") {
            desc = false;
        } else if is(a, "desc") {
            desc = true;
        } else if is(a, "alpha") {
            alpha = true;
        } else if is(a, "limit") && left >= 2 {
            match (parse_i64(&argv[j + 1]), parse_i64(&argv[j + 2])) {
                (Some(s), Some(c)) => (limit_start, limit_count) = (s, c),
                _ => return Reply::err("ERR value is not an integer or out of range"),
            }
            j += 2;
        } else if is(a, "by") && left >= 1 {
            let p = &argv[j + 1];
            // A pattern without `*` turns sorting off for good (a later BY does not undo it).
            if !cstr(p).contains(&b'*') {
                dontsort = true;
            }
            sortby = Some(p);
            j += 1;
        } else if is(a, "get") && left >= 1 {
            gets.push(&argv[j + 1]);
            j += 1;
        } else {
            return Reply::syntax_error();
        }
        j += 1;
    }
    let ks = &*ctx.ks;
    let items: Vec<Vec<u8>> = match ks.get(&argv[1]) {
        None => Vec::new(),
        Some(Value::List(l)) => l.range(0, l.len().saturating_sub(1)),
        Some(Value::Set(s)) => s.members(),
        Some(Value::ZSet(z)) => z.iter().map(|(m, _)| m.to_vec()).collect(),
        Some(_) => return Reply::wrong_type(),
    };
    let vectorlen = items.len() as i64;
    let mut start = limit_start.max(0).min(vectorlen);
    let limit_count = limit_count.max(-1).min(vectorlen);
    let mut end = if limit_count < 0 {
        vectorlen - 1
    } else {
        start + limit_count - 1
    };
    if start >= vectorlen {
        start = vectorlen - 1;
        end = vectorlen - 2;
    }
    if end >= vectorlen {
        end = vectorlen - 1;
    }
    let is_set = matches!(ks.get(&argv[1]), Some(Value::Set(_)));
    let mut vector: Vec<Item>;
    if dontsort && !is_set {
        // A list or sorted set in its own order (DESC from the end), the range only.
        vector = Vec::new();
        if end >= start {
            let n = (end - start + 1) as usize;
            let it: Box<dyn Iterator<Item = &Vec<u8>>> = if desc {
                Box::new(items.iter().rev().skip(start as usize))
            } else {
                Box::new(items.iter().skip(start as usize))
            };
            vector = it
                .take(n)
                .map(|o| Item {
                    obj: o.clone(),
                    score: 0.0,
                    cmp: None,
                })
                .collect();
            end -= start;
            start = 0;
        }
    } else {
        vector = items
            .into_iter()
            .map(|o| Item {
                obj: o,
                score: 0.0,
                cmp: None,
            })
            .collect();
    }
    let mut conversion_error = false;
    if !dontsort {
        for it in vector.iter_mut() {
            let byval = match sortby {
                Some(p) => match by_pattern(ks, p, &it.obj) {
                    Some(v) => v,
                    None => continue,
                },
                None => it.obj.clone(),
            };
            if alpha {
                if sortby.is_some() {
                    it.cmp = Some(byval);
                }
            } else {
                let parsed = if byval.is_empty() && ctx.profile.sort_empty_weight_error {
                    None
                } else if ctx.profile.sort_fast_float {
                    sort_fast_float(&byval)
                } else {
                    sort_strtod(&byval)
                };
                match parsed {
                    Some(s) => it.score = s,
                    None => conversion_error = true,
                }
            }
        }
        let by = sortby.is_some();
        vector.sort_by(|a, b| {
            let c = if !alpha {
                a.score
                    .partial_cmp(&b.score)
                    .unwrap_or(Ordering::Equal)
                    .then_with(|| a.obj.cmp(&b.obj))
            } else if by {
                match (&a.cmp, &b.cmp) {
                    (Some(x), Some(y)) => cstr(x).cmp(cstr(y)),
                    (None, None) => Ordering::Equal,
                    (None, _) => Ordering::Less,
                    (_, None) => Ordering::Greater,
                }
            } else {
                cstr(&a.obj).cmp(cstr(&b.obj))
            };
            if desc {
                c.reverse()
            } else {
                c
            }
        });
    }
    if conversion_error {
        return Reply::err("ERR One or more scores can't be converted into double");
    }
    let mut out = Vec::new();
    if end >= start {
        for it in &vector[start as usize..=end as usize] {
            if gets.is_empty() {
                out.push(Reply::bulk(&it.obj));
            }
            for g in &gets {
                out.push(match by_pattern(ks, g, &it.obj) {
                    Some(v) => Reply::Bulk(v),
                    None => Reply::NullBulk,
                });
            }
        }
    }
    Reply::Array(out)
}

#[cfg(test)]
mod tests {
    use crate::command::execute_str;
    use crate::keyspace::{Keyspace, Value};
    use crate::list::List;
    use crate::reply::Reply;
    use crate::string::RedisString;

    #[test]
    fn by_and_get() {
        let mut ks = Keyspace::new();
        ks.set(b"l", Value::list(List::from_elements(["b", "a", "c"])));
        ks.set(b"w_a", Value::String(RedisString::from_slice(b"3")));
        ks.set(b"w_b", Value::String(RedisString::from_slice(b"1")));
        let b = Reply::bulk;
        assert_eq!(
            execute_str(
                &mut ks,
                &["SORT_RO", "l", "BY", "w_*", "GET", "#", "GET", "w_*"]
            ),
            Reply::Array(vec![
                b("c"),
                Reply::NullBulk,
                b("b"),
                b("1"),
                b("a"),
                b("3")
            ])
        );
        assert_eq!(
            execute_str(
                &mut ks,
                &["SORT_RO", "l", "ALPHA", "DESC", "LIMIT", "1", "5"]
            ),
            Reply::Array(vec![b("b"), b("a")])
        );
        assert_eq!(
            execute_str(&mut ks, &["SORT_RO", "l"]),
            Reply::err("ERR One or more scores can't be converted into double")
        );
        assert_eq!(
            execute_str(&mut ks, &["SORT_RO", "l", "BY", "nosort", "DESC"]),
            Reply::Array(vec![b("c"), b("a"), b("b")])
        );
    }
}
