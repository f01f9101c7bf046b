//! Set read commands, as Redis 7.4 answers them: SCARD, SISMEMBER, SMISMEMBER, SMEMBERS,
//! SINTER, SINTERCARD, SUNION, SDIFF, SSCAN; and the cursor scan shared with HSCAN and ZSCAN.
//!
//! Member order: an intset replies ascending, a listpack in insertion order, as Redis does. A
//! hashtable-encoded set replies in file order: Redis' order comes from its randomly seeded
//! hash table and cannot be reproduced (tests compare those replies as multisets).
//!
//! SUNION and SDIFF build their result the way Redis does, and so reply in the order Redis'
//! result set would have: it starts as an intset (ascending) while every member is an integer
//! and there are at most 512, turns into a listpack (insertion order after the intset's
//! members) on the first non-integer while it has at most 128 members of at most 64 bytes, and
//! into a hashtable (file order here; not reproducible) past that.
//!
//! Scan cursors (SSCAN, HSCAN, ZSCAN): a small encoding (intset, listpack, ziplist) replies
//! with every element and cursor 0 whatever the cursor and COUNT, as Redis does. A hashtable
//! is scanned in file order: the cursor is the position of the next element, COUNT elements
//! a call, and 0 when done. Redis' cursors there are hash-table bucket positions, so cursors
//! and the split into calls differ; the elements of a complete scan are the same.

use super::args::{int_arg, is, parse_i64};
use super::{CommandSpec, Ctx};
use crate::glob;
use crate::keyspace::{Keyspace, Value};
use crate::reply::Reply;
use crate::set::Set;

/// Set commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "scard",
        arity: 2,
        handler: scard,
    },
    CommandSpec {
        name: "sismember",
        arity: 3,
        handler: sismember,
    },
    CommandSpec {
        name: "smismember",
        arity: -3,
        handler: smismember,
    },
    CommandSpec {
        name: "smembers",
        arity: 2,
        handler: smembers,
    },
    CommandSpec {
        name: "sinter",
        arity: -2,
        handler: sinter,
    },
    CommandSpec {
        name: "sintercard",
        arity: -3,
        handler: sintercard,
    },
    CommandSpec {
        name: "sunion",
        arity: -2,
        handler: sunion,
    },
    CommandSpec {
        name: "sdiff",
        arity: -2,
        handler: sdiff,
    },
    CommandSpec {
        name: "sscan",
        arity: -3,
        handler: sscan,
    },
];

/// Redis' default `set-max-intset-entries`.
const MAX_INTSET_ENTRIES: usize = 512;
/// Redis' default `set-max-listpack-entries` (7.2+).
const MAX_LISTPACK_ENTRIES: usize = 128;
/// Redis' default `set-max-listpack-value` (7.2+).
const MAX_LISTPACK_VALUE: usize = 64;

/// The set under `key`: `Ok(None)` when missing, WRONGTYPE for other types.
fn set_at<'a>(ks: &'a Keyspace, key: &[u8]) -> Result<Option<&'a Set>, Reply> {
    match ks.get(key) {
        None => Ok(None),
        Some(Value::Set(s)) => Ok(Some(s)),
        Some(_) => Err(Reply::wrong_type()),
    }
}

fn bulks(v: Vec<Vec<u8>>) -> Reply {
    Reply::Array(v.into_iter().map(Reply::Bulk).collect())
}

/// SCARD key.
fn scard(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    match set_at(ctx.ks, &argv[1]) {
        Ok(s) => Reply::Integer(s.map_or(0, |s| s.len() as i64)),
        Err(e) => e,
    }
}

/// SISMEMBER key member: 1 or 0.
fn sismember(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    match set_at(ctx.ks, &argv[1]) {
        Ok(s) => Reply::Integer(s.is_some_and(|s| s.contains(&argv[2])) as i64),
        Err(e) => e,
    }
}

/// SMISMEMBER key member [member ...]: 1 or 0 per member.
fn smismember(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    match set_at(ctx.ks, &argv[1]) {
        Ok(s) => Reply::Array(
            argv[2..]
                .iter()
                .map(|m| Reply::Integer(s.is_some_and(|s| s.contains(m)) as i64))
                .collect(),
        ),
        Err(e) => e,
    }
}

/// SMEMBERS key: every member, in the set's reply order (module docs).
fn smembers(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    match set_at(ctx.ks, &argv[1]) {
        Ok(s) => bulks(s.map_or_else(Vec::new, Set::members)),
        Err(e) => e,
    }
}

/// The sets under `keys`, every key type-checked first (WRONGTYPE wins over a missing key, as
/// in Redis); `None` for missing keys.
fn sets_at<'a>(ks: &'a Keyspace, keys: &[Vec<u8>]) -> Result<Vec<Option<&'a Set>>, Reply> {
    keys.iter().map(|k| set_at(ks, k)).collect()
}

/// The intersection of `keys` in Redis' reply order: the members of the smallest set (the
/// first of equal-sized ones) that are in every other set; at most `limit` of them.
fn intersection(sets: &[Option<&Set>], limit: usize) -> Vec<Vec<u8>> {
    let mut sets: Vec<&Set> = match sets.iter().copied().collect::<Option<Vec<_>>>() {
        Some(s) => s,
        None => return Vec::new(),
    };
    // Stable, as glibc's qsort (a merge sort) is on the servers compared against.
    crate::sort::sort_by_key(&mut sets, |s| s.len());
    let mut out = Vec::new();
    if let Some((first, rest)) = sets.split_first() {
        for m in first.members() {
            if out.len() >= limit {
                break;
            }
            if rest.iter().all(|s| s.contains(&m)) {
                out.push(m);
            }
        }
    }
    out
}

/// SINTER key [key ...].
fn sinter(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    if ctx.profile.sinter_stops_at_missing {
        for k in &argv[1..] {
            match set_at(ctx.ks, k) {
                Ok(None) => return Reply::Array(vec![]),
                Err(e) => return e,
                Ok(Some(_)) => {}
            }
        }
    }
    match sets_at(ctx.ks, &argv[1..]) {
        Ok(sets) => bulks(intersection(&sets, usize::MAX)),
        Err(e) => e,
    }
}

/// SINTERCARD numkeys key [key ...] [LIMIT limit]: the intersection's size, counting stops at
/// LIMIT (0: no limit).
fn sintercard(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let numkeys = match parse_i64(&argv[1]) {
        Some(n) if n > 0 => n as u64,
        _ => return Reply::err("ERR numkeys should be greater than 0"),
    };
    if numkeys > (argv.len() - 2) as u64 {
        return Reply::err("ERR Number of keys can't be greater than number of args");
    }
    let keys_end = 2 + numkeys as usize;
    let mut limit = 0i64;
    let mut j = keys_end;
    while j < argv.len() {
        if is(&argv[j], "limit") && j + 1 < argv.len() {
            limit = match parse_i64(&argv[j + 1]) {
                Some(l) if l >= 0 => l,
                _ => return Reply::err("ERR LIMIT can't be negative"),
            };
            j += 2;
        } else {
            return Reply::syntax_error();
        }
    }
    let limit = if limit == 0 {
        usize::MAX
    } else {
        limit as usize
    };
    match sets_at(ctx.ks, &argv[2..keys_end]) {
        Ok(sets) => Reply::Integer(intersection(&sets, limit).len() as i64),
        Err(e) => e,
    }
}

/// The result set Redis builds for SUNION / SDIFF, in its reply order (module docs).
/// PROFILE HOOK (dialect): Valkey 8+ builds these results as hashtables (order not
/// reproducible; this order is then as good as any).
struct ResultSet {
    /// Integers while the result is an intset.
    ints: Vec<i64>,
    /// Members once it is a listpack or hashtable, in insertion order.
    members: Vec<Vec<u8>>,
    seen: std::collections::HashSet<Vec<u8>>,
    intset: bool,
}

impl ResultSet {
    fn new() -> Self {
        ResultSet {
            ints: Vec::new(),
            members: Vec::new(),
            seen: Default::default(),
            intset: true,
        }
    }

    fn add(&mut self, m: Vec<u8>) {
        if self.seen.contains(&m) {
            return;
        }
        if self.intset {
            match parse_i64(&m) {
                Some(v) if self.ints.len() < MAX_INTSET_ENTRIES => {
                    let at = self.ints.partition_point(|&x| x < v);
                    self.ints.insert(at, v);
                    self.seen.insert(m);
                    return;
                }
                _ => {
                    // PROFILE HOOK (dialect): Redis < 7.2 has no listpack sets: the intset
                    // becomes a hashtable here (order not reproducible either way but for
                    // the intset prefix kept by this listpack path).
                    self.intset = false;
                    self.members = self
                        .ints
                        .drain(..)
                        .map(|v| v.to_string().into_bytes())
                        .collect();
                }
            }
        }
        self.seen.insert(m.clone());
        self.members.push(m);
    }

    fn into_members(self) -> Vec<Vec<u8>> {
        if self.intset {
            self.ints
                .into_iter()
                .map(|v| v.to_string().into_bytes())
                .collect()
        } else {
            self.members
        }
    }
}

/// True when the members fit a listpack set (Redis 7.2+ defaults): the result replies in
/// insertion order; otherwise Redis' result is a hashtable.
pub fn fits_listpack(members: &[Vec<u8>]) -> bool {
    members.len() <= MAX_LISTPACK_ENTRIES && members.iter().all(|m| m.len() <= MAX_LISTPACK_VALUE)
}

/// SUNION key [key ...]: every member of any set, in Redis' result order (module docs).
fn sunion(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let sets = match sets_at(ctx.ks, &argv[1..]) {
        Ok(s) => s,
        Err(e) => return e,
    };
    let mut out = ResultSet::new();
    for s in sets.into_iter().flatten() {
        for m in s.members() {
            out.add(m);
        }
    }
    bulks(out.into_members())
}

/// SDIFF key [key ...]: the members of the first set in none of the others.
fn sdiff(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let sets = match sets_at(ctx.ks, &argv[1..]) {
        Ok(s) => s,
        Err(e) => return e,
    };
    let mut out = ResultSet::new();
    if let Some(Some(first)) = sets.first() {
        for m in first.members() {
            if !sets[1..].iter().flatten().any(|s| s.contains(&m)) {
                out.add(m);
            }
        }
    }
    bulks(out.into_members())
}

/// Options of SSCAN / HSCAN / ZSCAN after the cursor.
pub(super) struct ScanOpts<'a> {
    pub pattern: Option<&'a [u8]>,
    pub count: usize,
    pub novalues: bool,
}

/// Parses the cursor of SSCAN / HSCAN / ZSCAN as the profile's SCAN does
/// ([`super::keys::scan_cursor`]: `strtoul` before Redis 7.4, `string2ull` from it).
pub(super) fn parse_scan_cursor(
    arg: &[u8],
    profile: &crate::dialect::Profile,
) -> Result<u64, Reply> {
    super::keys::scan_cursor(arg, profile).ok_or_else(|| Reply::err("ERR invalid cursor"))
}

/// Parses `[MATCH pattern] [COUNT count] [NOVALUES]` from `argv[3..]`; `hash` tells whether
/// NOVALUES is allowed (HSCAN, Redis 7.4+).
pub(super) fn parse_scan_opts<'a>(
    argv: &'a [Vec<u8>],
    hash: bool,
    profile: &crate::dialect::Profile,
) -> Result<ScanOpts<'a>, Reply> {
    parse_scan_opts_of(argv, hash, false, profile)
}

/// [`parse_scan_opts`] for ZSCAN (`zset`): NOSCORES keeps the members only where the profile
/// has it (Valkey 9).
pub(super) fn parse_scan_opts_of<'a>(
    argv: &'a [Vec<u8>],
    hash: bool,
    zset: bool,
    profile: &crate::dialect::Profile,
) -> Result<ScanOpts<'a>, Reply> {
    let mut o = ScanOpts {
        pattern: None,
        count: 10,
        novalues: false,
    };
    let mut j = 3;
    while j < argv.len() {
        let more = j + 1 < argv.len();
        if is(&argv[j], "count") && more {
            let n = int_arg(&argv[j + 1])?;
            if n < 1 {
                return Err(Reply::syntax_error());
            }
            o.count = n as usize;
            j += 2;
        } else if is(&argv[j], "match") && more {
            o.pattern = Some(&argv[j + 1]);
            j += 2;
        } else if zset && is(&argv[j], "noscores") && profile.zscan_noscores {
            o.novalues = true;
            j += 1;
        } else if is(&argv[j], "novalues") && profile.hscan_novalues {
            // Servers without NOVALUES answer `ERR syntax error` for it (the else branch).
            if !hash {
                return Err(Reply::err("ERR NOVALUES option can only be used in HSCAN"));
            }
            o.novalues = true;
            j += 1;
        } else {
            return Err(Reply::syntax_error());
        }
    }
    Ok(o)
}

/// The reply of a scan over `groups` (one element, or an element and its value/score):
/// `compact` encodings reply with everything; others from position `cursor`, COUNT groups at
/// a time (module docs). MATCH applies to the first element of each group; NOVALUES keeps
/// only it.
pub(super) fn scan_reply(
    groups: Vec<Vec<Vec<u8>>>,
    compact: bool,
    cursor: u64,
    o: &ScanOpts<'_>,
) -> Reply {
    let (from, to) = if compact {
        (0, groups.len())
    } else {
        let from = usize::try_from(cursor)
            .unwrap_or(usize::MAX)
            .min(groups.len());
        (from, from.saturating_add(o.count).min(groups.len()))
    };
    let next = if to >= groups.len() { 0 } else { to };
    let mut out = Vec::new();
    for g in groups.into_iter().take(to).skip(from) {
        let keep = o
            .pattern
            .is_none_or(|p| p == b"*" || g.first().is_some_and(|m| glob::matches(p, m)));
        if keep {
            for (k, e) in g.into_iter().enumerate() {
                if k == 0 || !o.novalues {
                    out.push(Reply::Bulk(e));
                }
            }
        }
    }
    Reply::Array(vec![
        Reply::Bulk(next.to_string().into_bytes()),
        Reply::Array(out),
    ])
}

/// SSCAN key cursor [MATCH pattern] [COUNT count] (cursor semantics in the module docs).
fn sscan(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let cursor = match parse_scan_cursor(&argv[2], ctx.profile) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let s = match set_at(ctx.ks, &argv[1]) {
        Ok(Some(s)) => s,
        Ok(None) => return scan_reply(Vec::new(), true, 0, &parse_default()),
        Err(e) => return e,
    };
    let o = match parse_scan_opts(argv, false, ctx.profile) {
        Ok(o) => o,
        Err(e) => return e,
    };
    let compact = !matches!(
        s.repr(),
        crate::set::SetRef::Table(_) | crate::set::SetRef::SmallTable(_)
    );
    let groups = s.members().into_iter().map(|m| vec![m]).collect();
    scan_reply(groups, compact, cursor, &o)
}

/// Scan options for a missing key (not parsed: Redis replies before reading them).
pub(super) fn parse_default() -> ScanOpts<'static> {
    ScanOpts {
        pattern: None,
        count: 10,
        novalues: false,
    }
}

#[cfg(test)]
mod tests {
    use crate::command::execute_str;
    use crate::encoded::test_blobs::{intset, listpack_strs};
    use crate::keyspace::{Keyspace, Value};
    use crate::reply::Reply;
    use crate::set::Set;

    fn b(v: &[&str]) -> Reply {
        Reply::Array(v.iter().map(Reply::bulk).collect())
    }

    fn ks() -> Keyspace {
        let mut ks = Keyspace::new();
        ks.set(
            b"i",
            Value::Set(Set::from_intset(intset(2, &[1, 2, 3])).unwrap()),
        );
        ks.set(
            b"p",
            Value::Set(Set::from_listpack(listpack_strs(&[b"c", b"3", b"a"])).unwrap()),
        );
        ks.set(b"t", Value::Set(Set::from_members(["x", "3", "y"])));
        ks.set(
            b"str",
            Value::String(crate::string::RedisString::from_slice(b"v")),
        );
        ks
    }

    #[test]
    fn membership_and_algebra() {
        let mut ks = ks();
        assert_eq!(execute_str(&mut ks, &["SCARD", "p"]), Reply::Integer(3));
        assert_eq!(
            execute_str(&mut ks, &["SMEMBERS", "i"]),
            b(&["1", "2", "3"])
        );
        assert_eq!(
            execute_str(&mut ks, &["SMEMBERS", "p"]),
            b(&["c", "3", "a"])
        );
        assert_eq!(
            execute_str(&mut ks, &["SMISMEMBER", "p", "3", "x"]),
            Reply::Array(vec![Reply::Integer(1), Reply::Integer(0)])
        );
        assert_eq!(execute_str(&mut ks, &["SINTER", "p", "i"]), b(&["3"]));
        assert_eq!(execute_str(&mut ks, &["SINTER", "p", "nokey"]), b(&[]));
        assert_eq!(
            execute_str(&mut ks, &["SINTER", "nokey", "str"]),
            Reply::wrong_type()
        );
        assert_eq!(
            execute_str(&mut ks, &["SUNION", "i", "p"]),
            b(&["1", "2", "3", "c", "a"])
        );
        assert_eq!(execute_str(&mut ks, &["SDIFF", "p", "i"]), b(&["c", "a"]));
        assert_eq!(
            execute_str(&mut ks, &["SINTERCARD", "2", "p", "t", "LIMIT", "0"]),
            Reply::Integer(1)
        );
        assert_eq!(
            execute_str(&mut ks, &["SINTERCARD", "3", "p", "t"]),
            Reply::err("ERR Number of keys can't be greater than number of args")
        );
        assert_eq!(
            execute_str(&mut ks, &["SINTERCARD", "1", "p", "LIMIT", "x"]),
            Reply::err("ERR LIMIT can't be negative")
        );
    }

    #[test]
    fn scans() {
        let mut ks = ks();
        let r = |c: &str, v: &[&str]| Reply::Array(vec![Reply::bulk(c), b(v)]);
        assert_eq!(
            execute_str(&mut ks, &["SSCAN", "i", "7", "COUNT", "1"]),
            r("0", &["1", "2", "3"])
        );
        assert_eq!(
            execute_str(&mut ks, &["SSCAN", "t", "0", "COUNT", "2"]),
            r("2", &["x", "3"])
        );
        assert_eq!(
            execute_str(&mut ks, &["SSCAN", "t", "2", "COUNT", "2"]),
            r("0", &["y"])
        );
        assert_eq!(
            execute_str(&mut ks, &["SSCAN", "p", "0", "MATCH", "[ac]"]),
            r("0", &["c", "a"])
        );
        assert_eq!(
            execute_str(&mut ks, &["SSCAN", "nokey", "0", "FOO"]),
            r("0", &[])
        );
        // The cursor as each profile's SCAN reads it (helper-20: SSCAN refused what Redis 7.0
        // accepts): strtoul before 7.4 (`-1` wraps, "" is 0), string2ull from 7.4.
        use crate::command::execute_as;
        use crate::dialect::{REDIS_7_0, REDIS_7_4};
        for cursor in ["-1", "", "-0", "+0"] {
            assert_eq!(
                execute_as(&mut ks, &REDIS_7_0, &["SSCAN", "p", cursor]),
                r("0", &["c", "3", "a"]),
                "7.0 {cursor:?}"
            );
        }
        for (cursor, ok) in [
            ("-1", false),
            ("", false),
            ("x", false),
            ("-0", true),
            (" 0", true),
        ] {
            let got = execute_as(&mut ks, &REDIS_7_4, &["SSCAN", "p", cursor]);
            assert_eq!(got.is_error(), !ok, "7.4 {cursor:?}: {got:?}");
        }
        assert_eq!(
            execute_as(&mut ks, &REDIS_7_4, &["SSCAN", "p", "-1"]),
            Reply::err("ERR invalid cursor")
        );
        assert_eq!(
            execute_str(&mut ks, &["SSCAN", "p", "x"]),
            Reply::err("ERR invalid cursor")
        );
        assert_eq!(
            execute_str(&mut ks, &["SSCAN", "p", "0", "COUNT", "0"]),
            Reply::syntax_error()
        );
    }
}
