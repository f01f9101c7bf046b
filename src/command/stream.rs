//! Stream read commands, as Redis 7.4 answers them: XLEN, XRANGE, XREVRANGE (COUNT,
//! exclusive `(` ids, `-`/`+`, `ms` alone meaning `ms-0` as a start and `ms-max` as an end),
//! XINFO STREAM (FULL only on streams without consumer groups) and XINFO GROUPS.
//!
//! XINFO STREAM's `radix-tree-nodes` is the node count of Redis' radix tree of node ids,
//! reproduced by replaying the insertions Redis makes when it loads the snapshot (ids in
//! ascending order) on a model of the tree's node splitting: the count a server that built the
//! stream by XADD alone also has; one that deleted or trimmed may have another.

use super::args::{int_arg, is, parse_i64};
use super::{CommandSpec, Ctx};
use crate::dialect::Profile;
use crate::keyspace::{Keyspace, Value};
use crate::reply::Reply;
use crate::stream::{Group, PendingEntry, Stream, StreamEntry, StreamId};

/// Stream commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "xlen",
        arity: 2,
        handler: xlen,
    },
    CommandSpec {
        name: "xrange",
        arity: -4,
        handler: xrange,
    },
    CommandSpec {
        name: "xrevrange",
        arity: -4,
        handler: xrevrange,
    },
    CommandSpec {
        name: "xinfo",
        arity: -2,
        handler: xinfo,
    },
    CommandSpec {
        name: "xpending",
        arity: -3,
        handler: xpending,
    },
    CommandSpec {
        name: "xread",
        arity: -4,
        handler: xread,
    },
];

/// Bytes up to the first NUL, as a C `%s` prints them in an error.
fn c_text(s: &[u8]) -> String {
    String::from_utf8_lossy(&s[..s.iter().position(|&c| c == 0).unwrap_or(s.len())]).into_owned()
}

/// The keyspace's clock, else the wall clock (idle times run to it).
fn now_ms(ks: &Keyspace) -> i64 {
    ks.clock().unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64)
    })
}

/// XPENDING key group [[IDLE min-idle-time] start end count [consumer]], as Redis 7.4's
/// `xpendingCommand`: the summary (count, smallest and largest pending id, consumers with
/// pending entries and their counts) or the extended form (id, consumer, ms since delivery
/// at the keyspace's clock, deliveries), ids and COUNT read before the key, `NOGROUP` for a
/// missing key or group. Redis 6.0 takes no IDLE ([`Profile::xpending_idle`]).
fn xpending(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let profile = ctx.profile;
    let argc = argv.len();
    let justinfo = argc == 3;
    let bad_argc = if profile.xpending_idle {
        argc != 3 && !(6..=9).contains(&argc)
    } else {
        argc != 3 && argc != 6 && argc != 7
    };
    if bad_argc {
        return Reply::syntax_error();
    }
    let (mut start, mut end, mut count, mut minidle) = (StreamId::MIN, StreamId::MAX, 0i64, 0i64);
    let mut consumer: Option<&[u8]> = None;
    if argc >= 6 {
        let mut at = 3;
        if profile.xpending_idle && is(&argv[3], "idle") {
            minidle = match int_arg(&argv[4]) {
                Ok(n) => n,
                Err(e) => return e,
            };
            if argc < 8 {
                return Reply::syntax_error();
            }
            at += 2;
        }
        count = match int_arg(&argv[at + 2]) {
            Ok(n) => n.max(0),
            Err(e) => return e,
        };
        let ex = profile.stream_exclusive_ranges;
        start = match interval_id(&argv[at], true, ex) {
            Ok(i) => i,
            Err(e) => return e,
        };
        end = match interval_id(&argv[at + 1], false, ex) {
            Ok(i) => i,
            Err(e) => return e,
        };
        if at + 3 < argc {
            consumer = Some(&argv[at + 3]);
        }
    }
    let s = match stream_at(ctx.ks, &argv[1]) {
        Ok(s) => s,
        Err(e) => return e,
    };
    let Some(g) = s.and_then(|s| s.groups.iter().find(|g| g.name == argv[2])) else {
        return Reply::err(format!(
            "NOGROUP No such key '{}' or consumer group '{}'",
            c_text(&argv[1]),
            c_text(&argv[2])
        ));
    };
    let owner = |id: StreamId| {
        g.consumers
            .iter()
            .find(|c| c.pending.contains(&id))
            .map(|c| c.name.clone())
            .unwrap_or_default()
    };
    if justinfo {
        let mut ids: Vec<StreamId> = g.pending.iter().map(|p| p.id).collect();
        ids.sort();
        let (Some(first), Some(last)) = (ids.first(), ids.last()) else {
            return Reply::Array(vec![
                Reply::Integer(0),
                Reply::NullBulk,
                Reply::NullBulk,
                Reply::NullArray,
            ]);
        };
        let mut consumers: Vec<&crate::stream::Consumer> = g
            .consumers
            .iter()
            .filter(|c| !c.pending.is_empty())
            .collect();
        consumers.sort_by(|a, b| a.name.cmp(&b.name));
        return Reply::Array(vec![
            Reply::Integer(ids.len() as i64),
            Reply::bulk(first.text()),
            Reply::bulk(last.text()),
            Reply::Array(
                consumers
                    .into_iter()
                    .map(|c| {
                        Reply::Array(vec![
                            Reply::Bulk(c.name.clone()),
                            Reply::bulk(c.pending.len().to_string()),
                        ])
                    })
                    .collect(),
            ),
        ]);
    }
    let pel: Vec<&PendingEntry> = match consumer {
        Some(name) => match g.consumers.iter().find(|c| c.name == name) {
            None => return Reply::Array(Vec::new()),
            Some(c) => g
                .pending
                .iter()
                .filter(|p| c.pending.contains(&p.id))
                .collect(),
        },
        None => g.pending.iter().collect(),
    };
    let mut pel = pel;
    pel.sort_by_key(|p| p.id);
    let now = now_ms(ctx.ks);
    let mut out = Vec::new();
    for p in pel {
        if count == 0 || p.id > end {
            break;
        }
        if p.id < start {
            continue;
        }
        let idle = now - p.delivery_time_ms as i64;
        if minidle != 0 && idle < minidle {
            continue;
        }
        count -= 1;
        out.push(Reply::Array(vec![
            Reply::bulk(p.id.text()),
            Reply::Bulk(owner(p.id)),
            Reply::Integer(idle.max(0)),
            Reply::Integer(p.delivery_count as i64),
        ]));
    }
    Reply::Array(out)
}

/// A strict stream id as XREAD reads one (`ms` or `ms-seq`; no `-`, `+` or `(`).
fn strict_id(arg: &[u8]) -> Result<StreamId, Reply> {
    if arg == b"-" || arg == b"+" || arg.len() > 127 {
        return Err(invalid_id());
    }
    interval_id(arg, true, false)
}

/// XREAD [COUNT n] [BLOCK ms] STREAMS key [key ...] id [id ...], as Redis 7.4's
/// `xreadCommand` serves a client synchronously: per stream with an entry after the id (`$`:
/// the stream's last id; `+`, 7.4+: from its last entry) its entries after it (COUNT at most,
/// 0 for all), streams with none left out, a nil array when none has any. BLOCK is parsed
/// with its errors but never waits: a snapshot gets no new entries, so an unserved read
/// answers at once the nil array a timeout gives (as Redis answers a client that cannot
/// block). GROUP / NOACK are XREADGROUP's errors.
fn xread(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let profile = ctx.profile;
    let mut count = 0i64;
    let mut streams_arg = 0;
    let mut i = 1;
    while i < argv.len() {
        let more = argv.len() - i - 1;
        let o = &argv[i];
        if is(o, "block") && more > 0 {
            i += 1;
            match parse_i64(&argv[i]) {
                None => return Reply::err("ERR timeout is not an integer or out of range"),
                Some(t) if t < 0 => return Reply::err("ERR timeout is negative"),
                Some(_) => {}
            }
        } else if is(o, "count") && more > 0 {
            i += 1;
            count = match int_arg(&argv[i]) {
                Ok(n) => n.max(0),
                Err(e) => return e,
            };
        } else if is(o, "streams") && more > 0 {
            streams_arg = i + 1;
            if !(argv.len() - streams_arg).is_multiple_of(2) {
                return Reply::err(profile.xread_unbalanced);
            }
            break;
        } else if is(o, "group") && more >= 2 {
            return Reply::err(
                "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.",
            );
        } else if is(o, "noack") {
            return Reply::err(
                "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.",
            );
        } else {
            return Reply::syntax_error();
        }
        i += 1;
    }
    if streams_arg == 0 {
        return Reply::syntax_error();
    }
    let n = (argv.len() - streams_arg) / 2;
    let mut ids = Vec::with_capacity(n);
    for k in 0..n {
        let key = &argv[streams_arg + k];
        let id_arg = &argv[streams_arg + n + k];
        let s = match stream_at(ctx.ks, key) {
            Ok(s) => s,
            Err(e) => return e,
        };
        let id = if id_arg == b"$" {
            s.map_or(StreamId::MIN, |s| s.last_id)
        } else if id_arg == b"+" && profile.xread_plus {
            match s {
                None => StreamId::MIN,
                Some(s) => match s.last_id.prev() {
                    Some(p) => p,
                    None => return Reply::err("ERR the stream last element ID is 0-0"),
                },
            }
        } else if id_arg == b">" {
            return Reply::err(
                "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.",
            );
        } else {
            match strict_id(id_arg) {
                Ok(i) => i,
                Err(e) => return e,
            }
        };
        ids.push(id);
    }
    let mut out = Vec::new();
    for (k, gt) in ids.into_iter().enumerate() {
        let key = &argv[streams_arg + k];
        let Ok(Some(s)) = stream_at(ctx.ks, key) else {
            continue;
        };
        if s.length == 0 {
            continue;
        }
        let Some(last) = s.last() else { continue };
        if last.id <= gt {
            continue;
        }
        let Some(start) = gt.next() else { continue };
        let limit = if count == 0 {
            None
        } else {
            Some(usize::try_from(count).unwrap_or(usize::MAX))
        };
        let entries = s.range(start, StreamId::MAX, limit);
        out.push(Reply::Array(vec![
            Reply::Bulk(key.clone()),
            Reply::Array(entries.into_iter().map(entry_reply).collect()),
        ]));
    }
    if out.is_empty() {
        Reply::NullArray
    } else {
        Reply::Array(out)
    }
}

/// The stream under `key`: `Ok(None)` when missing, WRONGTYPE for other types.
fn stream_at<'a>(ks: &'a Keyspace, key: &[u8]) -> Result<Option<&'a Stream>, Reply> {
    match ks.get(key) {
        None => Ok(None),
        Some(Value::Stream(s)) => Ok(Some(s)),
        Some(_) => Err(Reply::wrong_type()),
    }
}

/// XLEN key.
fn xlen(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    match stream_at(ctx.ks, &argv[1]) {
        Ok(s) => Reply::Integer(s.map_or(0, |s| s.length as i64)),
        Err(e) => e,
    }
}

fn invalid_id() -> Reply {
    Reply::err("ERR Invalid stream ID specified as stream command argument")
}

/// An id part as Redis reads it (`strtoull`): leading blanks and `+` allowed, digits, no
/// sign `-`, no overflow, nothing after.
fn id_part(s: &[u8]) -> Option<u64> {
    let s = &s[s
        .iter()
        .position(|c| !matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))
        .unwrap_or(s.len())..];
    let s = s.strip_prefix(b"+").unwrap_or(s);
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    s.iter().try_fold(0u64, |v, &c| {
        v.checked_mul(10)?.checked_add((c - b'0') as u64)
    })
}

/// One end of an XRANGE interval: `-`, `+`, `ms`, `ms-seq`, optionally after `(` (exclusive:
/// the next id for a start, the previous for an end).
/// Servers without exclusive ranges (`exclusive_ok` false, Redis 6.0) refuse `(`.
fn interval_id(arg: &[u8], is_start: bool, exclusive_ok: bool) -> Result<StreamId, Reply> {
    let (exclusive, body) = match arg.strip_prefix(b"(") {
        Some(rest) if arg.len() > 1 && exclusive_ok => (true, rest),
        _ => (false, arg),
    };
    let id = match body {
        b"-" if !exclusive => StreamId::MIN,
        b"+" if !exclusive => StreamId::MAX,
        _ => {
            let (ms, seq) = match body.iter().position(|&c| c == b'-') {
                Some(d) => (
                    id_part(&body[..d]).ok_or_else(invalid_id)?,
                    id_part(&body[d + 1..]).ok_or_else(invalid_id)?,
                ),
                None => (
                    id_part(body).ok_or_else(invalid_id)?,
                    if is_start { 0 } else { u64::MAX },
                ),
            };
            StreamId { ms, seq }
        }
    };
    if !exclusive {
        return Ok(id);
    }
    if is_start {
        id.next()
            .ok_or_else(|| Reply::err("ERR invalid start ID for the interval"))
    } else {
        id.prev()
            .ok_or_else(|| Reply::err("ERR invalid end ID for the interval"))
    }
}

fn entry_reply(e: StreamEntry) -> Reply {
    let mut kv = Vec::with_capacity(e.fields.len() * 2);
    for (f, v) in e.fields {
        kv.push(Reply::Bulk(f));
        kv.push(Reply::Bulk(v));
    }
    Reply::Array(vec![Reply::bulk(e.id.text()), Reply::Array(kv)])
}

/// XRANGE key start end [COUNT n] / XREVRANGE key end start [COUNT n]. Ids and COUNT are read
/// before the key; a COUNT of 0 or less on an existing stream replies a nil array.
fn range(ctx: &mut Ctx<'_>, argv: &[Vec<u8>], rev: bool) -> Reply {
    let (start_arg, end_arg) = if rev {
        (&argv[3], &argv[2])
    } else {
        (&argv[2], &argv[3])
    };
    let start = match interval_id(start_arg, true, ctx.profile.stream_exclusive_ranges) {
        Ok(i) => i,
        Err(e) => return e,
    };
    let end = match interval_id(end_arg, false, ctx.profile.stream_exclusive_ranges) {
        Ok(i) => i,
        Err(e) => return e,
    };
    let mut count = None;
    let mut j = 4;
    while j < argv.len() {
        if is(&argv[j], "count") && j + 1 < argv.len() {
            count = match int_arg(&argv[j + 1]) {
                Ok(n) => Some(n.max(0) as u64),
                Err(e) => return e,
            };
            j += 2;
        } else {
            return Reply::syntax_error();
        }
    }
    let s = match stream_at(ctx.ks, &argv[1]) {
        Ok(Some(s)) => s,
        Ok(None) => return Reply::Array(Vec::new()),
        Err(e) => return e,
    };
    if count == Some(0) {
        return Reply::NullArray;
    }
    let count = count.map(|c| usize::try_from(c).unwrap_or(usize::MAX));
    let entries = if rev {
        s.rev_range(start, end, count)
    } else {
        s.range(start, end, count)
    };
    Reply::Array(entries.into_iter().map(entry_reply).collect())
}

fn xrange(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    range(ctx, argv, false)
}

fn xrevrange(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    range(ctx, argv, true)
}

/// XINFO STREAM key [FULL [COUNT n]]: the Redis 7 summary (length, radix-tree-keys,
/// radix-tree-nodes, last-generated-id, max-deleted-entry-id, entries-added,
/// recorded-first-entry-id, groups, first-entry, last-entry), or with FULL the same head, the
/// first COUNT entries (default 10, also for a negative COUNT; 0 for all) and the groups.
/// FULL on a stream with consumer groups and XINFO CONSUMERS (idle times) are refused with
/// an error saying so; XINFO GROUPS is [`xinfo_groups`].
fn xinfo(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let sub = &argv[1];
    let sub_text = String::from_utf8_lossy(sub).into_owned();
    let profile = ctx.profile;
    let unknown = || {
        Reply::err(
            profile
                .object_unknown_subcommand
                .replace("OBJECT HELP", "XINFO HELP")
                .replace("{}", &sub_text),
        )
    };
    let arity_err = |name: &str| match profile.subcommand_arity_error {
        Some(text) => Reply::err(text.replace("{}", &format!("xinfo|{name}"))),
        None => unknown(),
    };
    if is(sub, "groups") {
        return if argv.len() != 3 {
            arity_err("groups")
        } else {
            xinfo_groups(ctx, &argv[2])
        };
    }
    if is(sub, "consumers") {
        return if argv.len() != 4 {
            arity_err("consumers")
        } else {
            xinfo_consumers(ctx, &argv[2], &argv[3])
        };
    }
    if is(sub, "help") {
        return if argv.len() != 2 {
            arity_err("help")
        } else {
            Reply::err("ERR bitlens does not answer XINFO HELP")
        };
    }
    if !is(sub, "stream") {
        return unknown();
    }
    if argv.len() < 3 {
        if profile.xinfo_bare_syntax_error {
            return Reply::err("ERR syntax error, try 'XINFO HELP'");
        }
        return arity_err("stream");
    }
    let s = match stream_at(ctx.ks, &argv[2]) {
        Ok(Some(s)) => s,
        Ok(None) => return Reply::err("ERR no such key"),
        Err(e) => return e,
    };
    let bad = || {
        Reply::err(
            profile
                .object_unknown_subcommand
                .replace("OBJECT HELP", "XINFO HELP")
                .replace(
                    "unknown subcommand '{}'",
                    "unknown subcommand or wrong number of arguments for '{}'",
                )
                .replace("{}", "STREAM"),
        )
    };
    let full = match argv.len() {
        3 => None,
        4 if is(&argv[3], "full") => Some(10),
        6 if is(&argv[3], "full") && is(&argv[4], "count") => match int_arg(&argv[5]) {
            Ok(n) => Some(n),
            Err(e) => return e,
        },
        _ => return bad(),
    };
    let entry = |e: Option<StreamEntry>| e.map_or(Reply::NullBulk, entry_reply);
    let mut out = vec![
        Reply::bulk("length"),
        Reply::Integer(s.length as i64),
        Reply::bulk("radix-tree-keys"),
        Reply::Integer(s.nodes.len() as i64),
        Reply::bulk("radix-tree-nodes"),
        Reply::Integer(rax_nodes(s.nodes.iter().map(|(id, _)| key_of(id))) as i64),
        Reply::bulk("last-generated-id"),
        Reply::bulk(s.last_id.text()),
    ];
    if profile.stream_v7_fields {
        out.extend([
            Reply::bulk("max-deleted-entry-id"),
            Reply::bulk(s.max_deleted_id.text()),
            Reply::bulk("entries-added"),
            Reply::Integer(s.entries_added as i64),
            Reply::bulk("recorded-first-entry-id"),
            Reply::bulk(s.first_id.text()),
        ]);
    }
    match full {
        None => out.extend([
            Reply::bulk("groups"),
            Reply::Integer(s.groups.len() as i64),
            Reply::bulk("first-entry"),
            entry(s.first()),
            Reply::bulk("last-entry"),
            entry(s.last()),
        ]),
        Some(count) => {
            // COUNT 0 lists every entry; a negative COUNT is the default 10.
            let count = match count {
                0 => None,
                n if n < 0 => Some(10),
                n => Some(usize::try_from(n).unwrap_or(usize::MAX)),
            };
            let entries = s.range(StreamId::MIN, StreamId::MAX, count);
            out.extend([
                Reply::bulk("entries"),
                Reply::Array(entries.into_iter().map(entry_reply).collect()),
                Reply::bulk("groups"),
                Reply::Array(
                    s.groups
                        .iter()
                        .map(|g| full_group(s, g, count, profile))
                        .collect(),
                ),
            ]);
        }
    }
    Reply::Array(out)
}

/// One group of XINFO STREAM FULL, as Redis 7.4's `xinfoReplyWithStreamInfo`: name,
/// last-delivered-id, (7.0+) entries-read and lag, pel-count, pending (`[id, consumer,
/// delivery time ms, delivery count]`, at most `count` of them, all for `None`), consumers
/// (name, seen-time, (7.2+) active-time, pel-count, pending `[id, delivery time, delivery
/// count]`). Groups, consumers and pending entries come in the order the file stores them
/// (name and id order, as the server's radix trees keep them).
fn full_group(s: &Stream, g: &Group, count: Option<usize>, profile: &Profile) -> Reply {
    let limit = count.unwrap_or(usize::MAX);
    let owner: std::collections::HashMap<StreamId, &[u8]> = g
        .consumers
        .iter()
        .flat_map(|c| c.pending.iter().map(move |id| (*id, c.name.as_slice())))
        .collect();
    let pel: std::collections::HashMap<StreamId, &PendingEntry> =
        g.pending.iter().map(|p| (p.id, p)).collect();
    let mut out = vec![
        Reply::bulk("name"),
        Reply::Bulk(g.name.clone()),
        Reply::bulk("last-delivered-id"),
        Reply::bulk(g.last_id.text()),
    ];
    if profile.stream_v7_fields {
        out.extend([
            Reply::bulk("entries-read"),
            g.entries_read
                .map_or(Reply::NullBulk, |n| Reply::Integer(n as i64)),
            Reply::bulk("lag"),
            s.group_lag(g.last_id, g.entries_read, profile.stream_lag)
                .map_or(Reply::NullBulk, Reply::Integer),
        ]);
    }
    out.extend([
        Reply::bulk("pel-count"),
        Reply::Integer(g.pending.len() as i64),
        Reply::bulk("pending"),
        Reply::Array(
            g.pending
                .iter()
                .take(limit)
                .map(|p| {
                    Reply::Array(vec![
                        Reply::bulk(p.id.text()),
                        Reply::Bulk(owner.get(&p.id).map_or(Vec::new(), |n| n.to_vec())),
                        Reply::Integer(p.delivery_time_ms as i64),
                        Reply::Integer(p.delivery_count as i64),
                    ])
                })
                .collect(),
        ),
        Reply::bulk("consumers"),
        Reply::Array(
            g.consumers
                .iter()
                .map(|c| {
                    let mut m = vec![
                        Reply::bulk("name"),
                        Reply::Bulk(c.name.clone()),
                        Reply::bulk("seen-time"),
                        Reply::Integer(c.seen_time_ms as i64),
                    ];
                    if profile.stream_consumer_active_time {
                        m.extend([
                            Reply::bulk("active-time"),
                            Reply::Integer(c.active_time_ms.unwrap_or(c.seen_time_ms) as i64),
                        ]);
                    }
                    m.extend([
                        Reply::bulk("pel-count"),
                        Reply::Integer(c.pending.len() as i64),
                        Reply::bulk("pending"),
                        Reply::Array(
                            c.pending
                                .iter()
                                .take(limit)
                                .map(|id| {
                                    let (time, n) = pel.get(id).map_or((0, 0), |p| {
                                        (p.delivery_time_ms as i64, p.delivery_count as i64)
                                    });
                                    Reply::Array(vec![
                                        Reply::bulk(id.text()),
                                        Reply::Integer(time),
                                        Reply::Integer(n),
                                    ])
                                })
                                .collect(),
                        ),
                    ]);
                    Reply::Array(m)
                })
                .collect(),
        ),
    ]);
    Reply::Array(out)
}

/// XINFO CONSUMERS key group, as Redis 7.4: per consumer (name order) its name, pending
/// count, idle (ms since it was last seen, at the keyspace's clock) and, 7.2+, inactive (ms
/// since its last successful read; a file without it counts from the last sight, as 7.2+
/// loaders do). Errors: `ERR no such key`, and the
/// server's `NOGROUP` text for a missing group.
fn xinfo_consumers(ctx: &mut Ctx<'_>, key: &[u8], group: &[u8]) -> Reply {
    let s = match stream_at(ctx.ks, key) {
        Ok(Some(s)) => s,
        Ok(None) => return Reply::err("ERR no such key"),
        Err(e) => return e,
    };
    let Some(g) = s.groups.iter().find(|g| g.name == group) else {
        return Reply::err(format!(
            "NOGROUP No such consumer group '{}' for key name '{}'",
            String::from_utf8_lossy(group),
            String::from_utf8_lossy(key)
        ));
    };
    // Without a clock (a keyspace where nothing expires) there is no "now": idle times are
    // then counted from the consumer's own last sight (0).
    Reply::Array(
        g.consumers
            .iter()
            .map(|c| {
                let now = ctx.ks.clock().unwrap_or(c.seen_time_ms as i64);
                let mut m = vec![
                    Reply::bulk("name"),
                    Reply::Bulk(c.name.clone()),
                    Reply::bulk("pending"),
                    Reply::Integer(c.pending.len() as i64),
                    Reply::bulk("idle"),
                    Reply::Integer(now - c.seen_time_ms as i64),
                ];
                if ctx.profile.stream_consumer_active_time {
                    m.extend([
                        Reply::bulk("inactive"),
                        Reply::Integer(now - c.active_time_ms.unwrap_or(c.seen_time_ms) as i64),
                    ]);
                }
                Reply::Array(m)
            })
            .collect(),
    )
}

/// XINFO GROUPS key, as Redis 7: per group (in name order, as stored) its name, consumers,
/// pending, last-delivered-id, entries-read (nil when unknown) and lag ([`Stream::group_lag`],
/// nil when it cannot be told).
fn xinfo_groups(ctx: &mut Ctx<'_>, key: &[u8]) -> Reply {
    let s = match stream_at(ctx.ks, key) {
        Ok(Some(s)) => s,
        Ok(None) => return Reply::err("ERR no such key"),
        Err(e) => return e,
    };
    let v7 = ctx.profile.stream_v7_fields;
    Reply::Array(
        s.groups
            .iter()
            .map(|g| {
                let entries_read = g.entries_read;
                let mut out = vec![
                    Reply::bulk("name"),
                    Reply::Bulk(g.name.clone()),
                    Reply::bulk("consumers"),
                    Reply::Integer(g.consumers.len() as i64),
                    Reply::bulk("pending"),
                    Reply::Integer(g.pending.len() as i64),
                    Reply::bulk("last-delivered-id"),
                    Reply::bulk(g.last_id.text()),
                ];
                if v7 {
                    out.extend([
                        Reply::bulk("entries-read"),
                        entries_read.map_or(Reply::NullBulk, |n| Reply::Integer(n as i64)),
                        Reply::bulk("lag"),
                        s.group_lag(g.last_id, entries_read, ctx.profile.stream_lag)
                            .map_or(Reply::NullBulk, Reply::Integer),
                    ]);
                }
                Reply::Array(out)
            })
            .collect(),
    )
}

fn key_of(id: &StreamId) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&id.ms.to_be_bytes());
    k[8..].copy_from_slice(&id.seq.to_be_bytes());
    k
}

/// One node of the radix-tree model: compressed (a chain of bytes to one child) or not (one
/// byte per child).
struct RaxNode {
    compressed: bool,
    chars: Vec<u8>,
    children: Vec<usize>,
}

/// The number of nodes of a radix tree (Redis' `rax`) after inserting `keys` in order: a
/// lookup walks compressed chains and per-byte branches; a key that leaves a chain midway
/// splits it into (prefix chain) + branch node + (rest chain); a key ending midway splits it
/// into two chains; new bytes below a childless node become one chain to a new leaf, below a
/// branching node one more branch.
fn rax_nodes(keys: impl Iterator<Item = [u8; 16]>) -> usize {
    let mut nodes = vec![RaxNode {
        compressed: false,
        chars: Vec::new(),
        children: Vec::new(),
    }];
    let new_node = |nodes: &mut Vec<RaxNode>, compressed, chars: Vec<u8>, children| {
        nodes.push(RaxNode {
            compressed,
            chars,
            children,
        });
        nodes.len() - 1
    };
    for key in keys {
        let (mut h, mut i) = (0usize, 0usize);
        // Walk; `split` is set when the walk stops inside a compressed chain.
        let mut split = None;
        while i < key.len() {
            let n = &nodes[h];
            if n.compressed {
                let mut j = 0;
                while j < n.chars.len() && i < key.len() && n.chars[j] == key[i] {
                    j += 1;
                    i += 1;
                }
                if j != n.chars.len() {
                    split = Some(j);
                    break;
                }
                h = n.children[0];
            } else {
                match n.chars.iter().position(|&c| c == key[i]) {
                    Some(p) => {
                        h = n.children[p];
                        i += 1;
                    }
                    None => break,
                }
            }
        }
        if let Some(split) = split {
            let chars = std::mem::take(&mut nodes[h].chars);
            let child = nodes[h].children[0];
            if i == key.len() {
                // Ends midway: prefix chain to rest chain.
                let post = new_node(&mut nodes, true, chars[split..].to_vec(), vec![child]);
                nodes[h] = RaxNode {
                    compressed: true,
                    chars: chars[..split].to_vec(),
                    children: vec![post],
                };
                continue;
            }
            // Leaves the chain at `split`: (prefix chain), branch node, (rest chain).
            let post = chars[split + 1..].to_vec();
            let after = if post.is_empty() {
                child
            } else {
                new_node(&mut nodes, true, post, vec![child])
            };
            if split > 0 {
                let b = new_node(&mut nodes, false, vec![chars[split]], vec![after]);
                nodes[h] = RaxNode {
                    compressed: true,
                    chars: chars[..split].to_vec(),
                    children: vec![b],
                };
                h = b;
            } else {
                nodes[h] = RaxNode {
                    compressed: false,
                    chars: vec![chars[0]],
                    children: vec![after],
                };
            }
        }
        // Insert the remaining bytes.
        while i < key.len() {
            if nodes[h].children.is_empty() && key.len() - i > 1 {
                let leaf = new_node(&mut nodes, false, Vec::new(), Vec::new());
                nodes[h] = RaxNode {
                    compressed: true,
                    chars: key[i..].to_vec(),
                    children: vec![leaf],
                };
                break;
            }
            let child = new_node(&mut nodes, false, Vec::new(), Vec::new());
            nodes[h].compressed = false;
            nodes[h].chars.push(key[i]);
            nodes[h].children.push(child);
            h = child;
            i += 1;
        }
    }
    nodes.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::StreamLag;

    #[test]
    fn ids_parse_as_redis() {
        assert_eq!(interval_id(b"-", true, true).unwrap(), StreamId::MIN);
        assert_eq!(interval_id(b"+", false, true).unwrap(), StreamId::MAX);
        assert_eq!(
            interval_id(b"5", false, true).unwrap(),
            StreamId {
                ms: 5,
                seq: u64::MAX
            }
        );
        assert_eq!(
            interval_id(b"(1-1", true, true).unwrap(),
            StreamId { ms: 1, seq: 2 }
        );
        assert_eq!(
            interval_id(b" +01-01", true, true).unwrap(),
            StreamId { ms: 1, seq: 1 }
        );
        for bad in [
            &b"(-"[..],
            b"-1",
            b"1-",
            b"-0",
            b"1-18446744073709551616",
            b"x",
        ] {
            assert_eq!(interval_id(bad, true, true), Err(invalid_id()), "{bad:?}");
        }
        assert_eq!(
            interval_id(b"(0-0", false, true),
            Err(Reply::err("ERR invalid end ID for the interval"))
        );
    }

    /// Lags as Redis 7.0.15 and 7.4.1 replied (XINFO GROUPS) for: 4 entries 1-1..1-4 and
    /// groups at 0-0, at $, at 1-2 and one that read 2; then after XDEL 1-3; and an emptied
    /// stream; and (s3) after XDEL of the group's last delivered id, then of the first.
    #[test]
    fn group_lags_as_redis() {
        let id = |seq| StreamId { ms: 1, seq };
        let mut s = Stream {
            length: 4,
            last_id: id(4),
            first_id: id(1),
            entries_added: 4,
            ..Stream::default()
        };
        assert_eq!(s.group_lag(StreamId::MIN, None, StreamLag::Redis), Some(4));
        assert_eq!(s.group_lag(id(4), None, StreamLag::Redis), Some(0));
        assert_eq!(s.group_lag(id(2), None, StreamLag::Redis), None);
        assert_eq!(s.group_lag(id(2), Some(2), StreamLag::Redis), Some(2));
        s.length = 3;
        s.max_deleted_id = id(3);
        assert_eq!(s.group_lag(StreamId::MIN, None, StreamLag::Redis), None);
        assert_eq!(s.group_lag(id(4), None, StreamLag::Redis), Some(0));
        assert_eq!(s.group_lag(id(2), Some(2), StreamLag::Redis), None);
        let empty = Stream {
            length: 0,
            last_id: id(1),
            first_id: StreamId::MIN,
            max_deleted_id: id(1),
            entries_added: 1,
            ..Stream::default()
        };
        assert_eq!(
            empty.group_lag(StreamId::MIN, None, StreamLag::Redis),
            Some(0)
        );
        let mut s3 = Stream {
            length: 3,
            last_id: id(4),
            first_id: id(1),
            max_deleted_id: id(2),
            entries_added: 4,
            ..Stream::default()
        };
        assert_eq!(s3.group_lag(id(1), None, StreamLag::Redis), None);
        assert_eq!(s3.group_lag(id(2), Some(2), StreamLag::Redis), None);
        s3.length = 2;
        s3.first_id = id(3);
        assert_eq!(s3.group_lag(id(1), None, StreamLag::Redis), Some(2));
        assert_eq!(s3.group_lag(id(2), Some(2), StreamLag::Redis), Some(2));
    }

    /// Lags recorded from Redis 8.0.2 (Debian 13) for streams of XADD 1-1, 2-1, 3-1 and then
    /// (a) XDEL of all three, (b) XDEL 1-1, (c) XDEL 2-1, each with a group created at 0-0
    /// ENTRIESREAD 0, and (d) XDEL 1-1 with a group at 1-5 ENTRIESREAD 1: 0, 2, nil, 2, where
    /// Redis 7.4.1 answered 3, 3, nil, 2 (and Valkey 8.1.8 3 for (a), nil for (c), 2 for (d)).
    #[test]
    fn group_lags_as_redis_8_0() {
        let e = |ms| StreamId { ms, seq: 1 };
        let three = |length, first_id, max_deleted_id| Stream {
            length,
            last_id: e(3),
            first_id,
            max_deleted_id,
            entries_added: 3,
            ..Stream::default()
        };
        let emptied = three(0, StreamId::MIN, e(3));
        let first_gone = three(2, e(2), e(1));
        let middle_gone = three(2, e(1), e(2));
        let at_1_5 = StreamId { ms: 1, seq: 5 };
        let (r8, r7) = (StreamLag::Redis8, StreamLag::Redis);
        assert_eq!(emptied.group_lag(StreamId::MIN, Some(0), r8), Some(0));
        assert_eq!(first_gone.group_lag(StreamId::MIN, Some(0), r8), Some(2));
        assert_eq!(middle_gone.group_lag(StreamId::MIN, Some(0), r8), None);
        assert_eq!(first_gone.group_lag(at_1_5, Some(1), r8), Some(2));
        assert_eq!(emptied.group_lag(StreamId::MIN, Some(0), r7), Some(3));
        assert_eq!(first_gone.group_lag(StreamId::MIN, Some(0), r7), Some(3));
        assert_eq!(middle_gone.group_lag(StreamId::MIN, Some(0), r7), None);
        assert_eq!(first_gone.group_lag(at_1_5, Some(1), r7), Some(2));
    }

    /// Lags recorded from Redis 7.4.1 and Valkey 8.1.8 / 9.1.2 (and, last column, Redis
    /// 8.0.2) for: XADD 1-1..1-6, XDEL 1-2 and 1-3, XTRIM MAXLEN 2 (first 1-5, largest
    /// deleted 1-3, before it), then groups created at (id, ENTRIESREAD).
    #[test]
    fn group_lags_as_redis_and_valkey() {
        let id = |seq| StreamId { ms: 1, seq };
        let s = Stream {
            length: 2,
            last_id: id(6),
            first_id: id(5),
            max_deleted_id: id(3),
            entries_added: 6,
            ..Stream::default()
        };
        let cases = [
            (StreamId::MIN, None, Some(2), Some(2), Some(2)),
            (id(1), None, Some(2), None, Some(2)),
            (id(3), None, Some(2), Some(2), Some(2)),
            (id(4), None, Some(2), Some(2), Some(2)),
            (id(2), Some(1), Some(5), None, Some(2)),
            (id(4), Some(3), Some(3), Some(3), Some(2)),
            (StreamId::MIN, Some(0), Some(6), Some(2), Some(2)),
            (id(5), None, Some(1), Some(1), Some(1)),
            (id(6), None, Some(0), Some(0), Some(0)),
        ];
        for (last, read, redis, valkey, redis8) in cases {
            assert_eq!(
                s.group_lag(last, read, StreamLag::Redis8),
                redis8,
                "{last:?} {read:?}"
            );
            assert_eq!(
                s.group_lag(last, read, StreamLag::Redis),
                redis,
                "{last:?} {read:?}"
            );
            assert_eq!(
                s.group_lag(last, read, StreamLag::Valkey),
                valkey,
                "{last:?} {read:?}"
            );
        }
    }

    #[test]
    fn rax_node_counts() {
        let k = |ms: u64, seq: u64| key_of(&StreamId { ms, seq });
        // One key: a chain and its leaf (XINFO STREAM on a one-node stream says 2).
        assert_eq!(rax_nodes([k(1, 1)].into_iter()), 2);
        assert_eq!(rax_nodes(std::iter::empty()), 1);
    }
}
