//! Differential test of the everyday read commands of issue 53 against every server of
//! `ServerKind::ALL` (each skipped, with a message, when not installed): MGET, LCS, ZREVRANGE,
//! ZREVRANGEBYSCORE, ZRANGEBYLEX, ZREVRANGEBYLEX, ZLEXCOUNT, ZUNION, ZINTER, ZDIFF,
//! ZINTERCARD, SORT_RO, and the random picks SRANDMEMBER, ZRANDMEMBER, HRANDFIELD, RANDOMKEY.
//!
//! Random strings, lists, sets, hashes and sorted sets (listpack and skiplist; one skiplist of
//! a single score, where BYLEX is defined) are written into the server and SAVEd; the file is
//! loaded into bitlens and into a fresh server of the same version, and the RESP2 replies of
//! random commands (errors included; on servers that lack a command, its unknown-command
//! error) are compared byte for byte. Compared otherwise:
//! - random picks, whose elements are each side's own draws: the errors and empty replies
//!   byte for byte; otherwise both replies have the same length and shape, every element is
//!   one of the value's (with its score or value), and a positive count's are distinct;
//!   RANDOMKEY names a key of the database;
//! - replies in a hashtable's order (SORT_RO BY nosort of a hashtable set; SORT_RO ALPHA BY a
//!   pattern, whose equal or missing weights leave qsort's order unspecified): as multisets.
//!
//! Scores and weights are multiples of 1/8 and small integers, whose sums and products are
//! exact in any order. Set `BITLENS_SEED` to replay a run.

use bitlens::command::{execute_in, Ctx};
use bitlens::dialect::Profile;
use bitlens::keyspace::Value;
use bitlens::rdb::{load_rdb, LoadOptions};
use bitlens::Keyspace;
use bitlens::Reply;
use bitlens_difftest::{RawConnection, RedisServer, ServerKind};

fn v(s: impl AsRef<[u8]>) -> Vec<u8> {
    s.as_ref().to_vec()
}

use bitlens_difftest::parse_resp as parse;

/// How a command's reply is compared.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Cmp {
    /// Byte for byte.
    Exact,
    /// As a multiset of groups of `n` elements.
    Unordered(usize),
    /// A random pick: groups of `n` (2 with scores / values), `distinct` for a positive count.
    Picks { n: usize, distinct: bool },
    /// RANDOMKEY.
    AnyKey,
    /// XPENDING's extended form: idle times (each side's clock) masked.
    Idle,
}

fn sorted_groups(r: &Reply, n: usize) -> Option<Vec<Vec<Reply>>> {
    let Reply::Array(items) = r else { return None };
    let mut g: Vec<Vec<Reply>> = items.chunks(n).map(|c| c.to_vec()).collect();
    g.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    Some(g)
}

/// Every (element, score-or-value) group of the value under `key`, as the full reads give
/// them on the server (`ZRANGE 0 -1 WITHSCORES`, `HGETALL`, `SMEMBERS`).
fn universe(server: &mut RawConnection, key: &[u8], n: usize) -> Vec<Vec<Reply>> {
    let t = parse(&server.query(&[v("TYPE"), key.to_vec()]), &mut 0);
    let argv: Vec<Vec<u8>> = match (&t, n) {
        (Reply::Status(s), 2) if s == "zset" => {
            vec![v("ZRANGE"), key.to_vec(), v("0"), v("-1"), v("WITHSCORES")]
        }
        (Reply::Status(s), 1) if s == "zset" => vec![v("ZRANGE"), key.to_vec(), v("0"), v("-1")],
        (Reply::Status(s), 2) if s == "hash" => vec![v("HGETALL"), key.to_vec()],
        (Reply::Status(s), 1) if s == "hash" => vec![v("HKEYS"), key.to_vec()],
        (Reply::Status(s), _) if s == "set" => vec![v("SMEMBERS"), key.to_vec()],
        _ => return Vec::new(),
    };
    sorted_groups(&parse(&server.query(&argv), &mut 0), n).unwrap_or_default()
}

struct Side<'a> {
    ks: &'a mut Keyspace,
    profile: &'static Profile,
}

impl Side<'_> {
    fn run(&mut self, argv: &[Vec<u8>]) -> Reply {
        execute_in(&mut Ctx::single(self.ks, self.profile), argv)
    }
}

fn show(r: &Reply) -> String {
    String::from_utf8_lossy(&r.to_resp())
        .chars()
        .take(600)
        .collect()
}

fn compare(
    cmp: Cmp,
    server: &mut RawConnection,
    side: &mut Side<'_>,
    argv: &[Vec<u8>],
    keys: &[Vec<u8>],
) -> Result<(), String> {
    let ours = side.run(argv);
    let raw = server.query(argv);
    let theirs = parse(&raw, &mut 0);
    let ok = match cmp {
        Cmp::Exact => ours.to_resp() == raw,
        Cmp::Unordered(n) => {
            theirs == ours
                || (sorted_groups(&theirs, n).is_some()
                    && sorted_groups(&theirs, n) == sorted_groups(&ours, n))
        }
        Cmp::Idle => {
            let mask = |r: &Reply| match r {
                Reply::Array(rows) => Reply::Array(
                    rows.iter()
                        .map(|row| match row {
                            Reply::Array(f)
                                if f.len() == 4 && matches!(f[2], Reply::Integer(_)) =>
                            {
                                let mut f = f.clone();
                                f[2] = Reply::Integer(0);
                                Reply::Array(f)
                            }
                            other => other.clone(),
                        })
                        .collect(),
                ),
                other => other.clone(),
            };
            mask(&theirs).to_resp() == mask(&ours).to_resp()
        }
        Cmp::AnyKey => match (&theirs, &ours) {
            (Reply::Bulk(a), Reply::Bulk(b)) => keys.contains(a) && keys.contains(b),
            _ => theirs == ours,
        },
        Cmp::Picks { n, distinct } => match (&theirs, &ours) {
            (Reply::Array(a), Reply::Array(b)) if a.len() == b.len() => {
                let all = universe(server, &argv[1], n);
                let groups = sorted_groups(&ours, n).unwrap_or_default();
                let theirs_g = sorted_groups(&theirs, n).unwrap_or_default();
                let mut dedup = groups.clone();
                dedup.dedup();
                groups.iter().all(|g| all.contains(g))
                    && theirs_g.iter().all(|g| all.contains(g))
                    && (!distinct || dedup.len() == groups.len())
            }
            (Reply::Bulk(a), Reply::Bulk(b)) => {
                let all = universe(server, &argv[1], 1);
                all.contains(&vec![Reply::Bulk(a.clone())])
                    && all.contains(&vec![Reply::Bulk(b.clone())])
            }
            _ => ours.to_resp() == raw,
        },
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{:?} ({cmp:?}):\n  server:  {:?}\n  bitlens: {:?}",
            argv.iter()
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect::<Vec<_>>(),
            show(&theirs),
            show(&ours),
        ))
    }
}

/// A random member / element: numbers (SORT's numeric reads), words, long strings (which make
/// a set, hash or sorted set a hashtable / skiplist when `long`).
fn word(rng: &mut fastrand::Rng, long: bool) -> Vec<u8> {
    match rng.u8(0..12) {
        0 => v(rng.i64(-1000..1000).to_string()),
        1 => v(format!("{}", rng.i64(-80..80) as f64 / 8.0)),
        2 => v([
            "a", "b", "c", "", "x y", "ünï", "07", "-0", "1e3", " 5", "5 ", "inf", "0x10",
        ][rng.usize(0..13)]),
        3 if long => (0..rng.usize(65..120))
            .map(|_| rng.alphanumeric() as u8)
            .collect(),
        4 => v(rng.i64(-30..30).to_string()),
        _ => v(format!("m{}", rng.u32(0..40))),
    }
}

struct Data {
    cmds: Vec<Vec<Vec<u8>>>,
    keys: Vec<Vec<u8>>,
    pool: Vec<Vec<u8>>,
}

fn gen_data(rng: &mut fastrand::Rng) -> Data {
    let mut d = Data {
        cmds: Vec::new(),
        keys: Vec::new(),
        pool: Vec::new(),
    };
    let add = |d: &mut Data, key: String, mut c: Vec<Vec<u8>>| {
        c.insert(1, v(&key));
        if !d.keys.contains(&v(&key)) {
            d.keys.push(v(&key));
        }
        d.cmds.push(c);
    };
    // Strings: text for LCS and MGET, numbers for SORT BY / GET patterns.
    let alphabet = b"abcdeACGT";
    for i in 0..6 {
        let n = rng.usize(0..if i < 4 { 30 } else { 300 });
        let s: Vec<u8> = (0..n)
            .map(|_| alphabet[rng.usize(0..alphabet.len())])
            .collect();
        add(&mut d, format!("str:{i}"), vec![v("SET"), s]);
    }
    for i in 0..40 {
        // w_<member>: weights, o_<member>: values to GET, hw_<member>: hashes with fields.
        let m = format!("m{i}");
        if rng.u8(0..5) > 0 {
            let w = if rng.u8(0..8) == 0 {
                v(["x", "", " 2", "0x1p3"][rng.usize(0..4)])
            } else {
                v(rng.i64(-50..50).to_string())
            };
            add(&mut d, format!("w_{m}"), vec![v("SET"), w]);
        }
        if rng.bool() {
            add(
                &mut d,
                format!("o_{m}"),
                vec![v("SET"), v(format!("obj{i}"))],
            );
        }
        if rng.bool() {
            add(
                &mut d,
                format!("hw_{m}"),
                vec![
                    v("HSET"),
                    v("f"),
                    v(rng.i64(-20..20).to_string()),
                    v("g"),
                    word(rng, false),
                ],
            );
        }
    }
    for i in 0..5 {
        // Lists: SORT_RO sources.
        let mut c = vec![v("RPUSH")];
        for _ in 0..rng.usize(1..if i < 3 { 20 } else { 200 }) {
            c.push(if i % 2 == 0 {
                v(format!("m{}", rng.u32(0..40)))
            } else {
                word(rng, false)
            });
        }
        add(&mut d, format!("l:{i}"), c);
        // Sets: intset, listpack / small, hashtable.
        let mut c = vec![v("SADD")];
        let n = [
            rng.usize(1..20),
            rng.usize(1..30),
            rng.usize(1..30),
            300,
            200,
        ][i];
        for _ in 0..n {
            c.push(match i {
                0 | 4 => v(rng.i64(-500..500).to_string()),
                1 => v(format!("m{}", rng.u32(0..40))),
                _ => word(rng, i == 3),
            });
        }
        add(&mut d, format!("s:{i}"), c);
        // Hashes: small and big.
        let mut c = vec![v("HSET")];
        for _ in 0..if i < 3 {
            rng.usize(1..20)
        } else {
            rng.usize(150..300)
        } {
            c.push(word(rng, i >= 3));
            c.push(word(rng, i >= 3));
        }
        add(&mut d, format!("h:{i}"), c);
        // Sorted sets: listpack (0-2), skiplist (3), one-score skiplist (4).
        let mut c = vec![v("ZADD")];
        for _ in 0..if i < 3 {
            rng.usize(1..40)
        } else {
            rng.usize(150..300)
        } {
            let s = if i == 4 { 0 } else { rng.i64(-200..200) };
            c.push(v((s as f64 / 8.0).to_string()));
            c.push(if i < 2 {
                v(format!("m{}", rng.u32(0..40)))
            } else {
                word(rng, i >= 3)
            });
        }
        add(&mut d, format!("z:{i}"), c);
    }
    // Streams with consumer groups and pending entries (XPENDING, XREAD).
    for i in 0..3 {
        let key = format!("x:{i}");
        let (mut ms, mut seq) = (rng.u64(1..1000), 0u64);
        for _ in 0..rng.usize(1..if i == 2 { 300 } else { 30 }) {
            if rng.bool() {
                ms += rng.u64(1..5000);
                seq = 0;
            } else {
                seq += 1;
            }
            add(
                &mut d,
                key.clone(),
                vec![
                    v("XADD"),
                    v(format!("{ms}-{seq}")),
                    v("f"),
                    word(rng, false),
                ],
            );
        }
        if i < 2 {
            for (g, from) in [("g1", "0"), ("g2", "$")] {
                d.cmds
                    .push(vec![v("XGROUP"), v("CREATE"), v(&key), v(g), v(from)]);
            }
            for consumer in ["alice", "bob", "carol"] {
                let n = rng.u8(0..6).to_string();
                d.cmds.push(vec![
                    v("XREADGROUP"),
                    v("GROUP"),
                    v("g1"),
                    v(consumer),
                    v("COUNT"),
                    v(n),
                    v("STREAMS"),
                    v(&key),
                    v(">"),
                ]);
            }
        }
    }
    for c in &d.cmds {
        if c[0] == b"XADD" {
            d.pool.push(c[2].clone());
            continue;
        }
        if c[0] == b"XGROUP" || c[0] == b"XREADGROUP" {
            continue;
        }
        if !c[1].starts_with(b"w_") && !c[1].starts_with(b"o_") {
            d.pool.extend(c.iter().skip(2).take(8).cloned());
        }
    }
    d.pool.extend([v("nope"), v(""), v("0")]);
    d
}

fn int_arg(rng: &mut fastrand::Rng) -> Vec<u8> {
    v(match rng.u8(0..14) {
        0 => "x".to_string(),
        1 => "9223372036854775807".to_string(),
        2 => "-9223372036854775808".to_string(),
        3 => "".to_string(),
        4 => "4611686018427387904".to_string(),
        5 => "-4611686018427387904".to_string(),
        6 => rng.i64(-5000..5000).to_string(),
        _ => rng.i64(-30..30).to_string(),
    })
}

fn score_arg(rng: &mut fastrand::Rng) -> Vec<u8> {
    v(match rng.u8(0..8) {
        0 => "-inf".to_string(),
        1 => "+inf".to_string(),
        2 => "x".to_string(),
        3 => format!("({}", rng.i64(-50..50) as f64 / 8.0),
        _ => (rng.i64(-60..60) as f64 / 8.0).to_string(),
    })
}

fn is_skiplist(ks: &Keyspace, k: &[u8]) -> bool {
    matches!(ks.get(k), Some(Value::ZSet(z)) if z.len() > 128 || z.iter().any(|(m, _)| m.len() > 64))
}

fn hashtable_set(ks: &Keyspace, k: &[u8]) -> bool {
    matches!(ks.get(k), Some(Value::Set(s)) if s.encoding() == "hashtable")
}

/// One random command and how to compare it.
fn gen_cmd(rng: &mut fastrand::Rng, d: &Data, ks: &Keyspace) -> (Vec<Vec<u8>>, Cmp) {
    let of = |rng: &mut fastrand::Rng, prefix: &[u8]| -> Vec<u8> {
        if rng.u8(0..10) == 0 {
            return v(["nokey", "str:0", "h:0", "l:0", "z:0", "s:0"][rng.usize(0..6)]);
        }
        let ks: Vec<&Vec<u8>> = d.keys.iter().filter(|k| k.starts_with(prefix)).collect();
        ks[rng.usize(0..ks.len())].clone()
    };
    let pick = |rng: &mut fastrand::Rng| d.pool[rng.usize(0..d.pool.len())].clone();
    match rng.u8(0..27) {
        0 => {
            let mut c = vec![v("MGET")];
            for _ in 0..rng.usize(1..6) {
                c.push(of(rng, b"str:"));
            }
            (c, Cmp::Exact)
        }
        1 | 2 => {
            let mut c = vec![v("LCS"), of(rng, b"str:"), of(rng, b"str:")];
            for _ in 0..rng.usize(0..4) {
                match rng.u8(0..6) {
                    0 => c.push(v("LEN")),
                    1 | 2 => c.push(v("IDX")),
                    3 => c.push(v("WITHMATCHLEN")),
                    4 => c.extend([v("MINMATCHLEN"), int_arg(rng)]),
                    _ => c.push(v(["MINMATCHLEN", "FOO", "idx"][rng.usize(0..3)])),
                }
            }
            (c, Cmp::Exact)
        }
        3 => {
            let mut c = vec![v("ZREVRANGE"), of(rng, b"z:"), int_arg(rng), int_arg(rng)];
            if rng.bool() {
                c.push(v(
                    ["WITHSCORES", "withscores", "LIMIT", "REV", "BYSCORE"][rng.usize(0..5)]
                ));
            }
            (c, Cmp::Exact)
        }
        4 => {
            let mut c = vec![
                v("ZREVRANGEBYSCORE"),
                of(rng, b"z:"),
                score_arg(rng),
                score_arg(rng),
            ];
            if rng.bool() {
                c.push(v("WITHSCORES"));
            }
            if rng.u8(0..3) == 0 {
                c.extend([v("LIMIT"), v(rng.i64(0..20).to_string()), int_arg(rng)]);
            }
            if rng.u8(0..10) == 0 {
                c.push(v("REV"));
            }
            (c, Cmp::Exact)
        }
        5..=7 => {
            let mut key = of(rng, b"z:");
            if is_skiplist(ks, &key) && key != b"z:4" {
                key = v("z:4"); // BYLEX over a skiplist of differing scores: not reproducible
            }
            let lex = |rng: &mut fastrand::Rng| {
                let mut p = v(["[", "(", "-", "+", "", "x"][rng.usize(0..6)]);
                if p == b"[" || p == b"(" {
                    p.extend(pick(rng));
                }
                p
            };
            let name = ["ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZLEXCOUNT"][rng.usize(0..3)];
            let mut c = vec![v(name), key, lex(rng), lex(rng)];
            if name != "ZLEXCOUNT" {
                if rng.u8(0..4) == 0 {
                    c.extend([v("LIMIT"), v(rng.i64(0..20).to_string()), int_arg(rng)]);
                }
                if rng.u8(0..8) == 0 {
                    c.push(v(["WITHSCORES", "LIMIT", "REV"][rng.usize(0..3)]));
                }
            }
            (c, Cmp::Exact)
        }
        8..=11 => {
            let name = ["ZUNION", "ZINTER", "ZDIFF", "ZINTERCARD"][rng.usize(0..4)];
            let n = rng.usize(1..4);
            let mut c = vec![
                v(name),
                if rng.u8(0..12) == 0 {
                    v(["0", "-1", "x", "9"][rng.usize(0..4)])
                } else {
                    v(n.to_string())
                },
            ];
            for _ in 0..n {
                c.push(if rng.u8(0..3) == 0 {
                    of(rng, b"s:")
                } else {
                    of(rng, b"z:")
                });
            }
            for _ in 0..rng.usize(0..3) {
                match rng.u8(0..5) {
                    0 => {
                        c.push(v("WEIGHTS"));
                        for _ in 0..n {
                            c.push(v(if rng.u8(0..15) == 0 {
                                "x".to_string()
                            } else {
                                rng.i64(-2..4).to_string()
                            }));
                        }
                    }
                    1 => c.extend([
                        v("AGGREGATE"),
                        v(["SUM", "min", "MAX", "avg"][rng.usize(0..4)]),
                    ]),
                    2 => c.push(v("WITHSCORES")),
                    3 => c.extend([v("LIMIT"), int_arg(rng)]),
                    _ => c.push(v(["WEIGHTS", "LIMIT", "FOO"][rng.usize(0..3)])),
                }
            }
            (c, Cmp::Exact)
        }
        12..=14 => {
            // SORT converts a listpack sorted set into a skiplist on the server (t_sort.c
            // zsetConvert): the small ones are sorted in a last phase (see run_kind), after
            // which their BYLEX replies would depend on skiplist levels.
            let src = match rng.u8(0..4) {
                0 => v(["l:0", "l:1", "l:2", "l:3", "l:4"][rng.usize(0..5)]),
                1 => v(["s:0", "s:1", "s:2", "s:3", "s:4"][rng.usize(0..5)]),
                2 => v(["z:3", "z:4"][rng.usize(0..2)]),
                _ => v(["nokey", "str:0", "h:0"][rng.usize(0..3)]),
            };
            let mut c = vec![v("SORT_RO"), src.clone()];
            let (mut by_pattern, mut nosort, mut alpha) = (false, false, false);
            for _ in 0..rng.usize(0..5) {
                match rng.u8(0..8) {
                    0 => c.push(v(["ASC", "DESC", "desc"][rng.usize(0..3)])),
                    1 => {
                        c.push(v("ALPHA"));
                        alpha = true;
                    }
                    2 => c.extend([v("LIMIT"), int_arg(rng), int_arg(rng)]),
                    3 => {
                        let p = ["w_*", "nosort", "hw_*->f", "hw_*->g", "hw_*->", "w_*x"]
                            [rng.usize(0..6)];
                        nosort |= !p.contains('*');
                        by_pattern |= p.contains('*');
                        c.extend([v("BY"), v(p)]);
                    }
                    4 | 5 => c.extend([
                        v("GET"),
                        v(["#", "o_*", "hw_*->f", "hw_*->g", "const", "w_*"][rng.usize(0..6)]),
                    ]),
                    6 => c.push(v(["STORE", "FOO", "LIMIT", "BY"][rng.usize(0..4)])),
                    _ => c.extend([v("STORE"), v("dst")]),
                }
            }
            // What Redis' parse saw: any BY followed by a pattern without `*` turns sorting off.
            for w in c.windows(2) {
                if w[0].eq_ignore_ascii_case(b"by") {
                    nosort |= !w[1].contains(&b'*');
                    by_pattern |= w[1].contains(&b'*');
                }
            }
            alpha |= c.iter().any(|a| a.eq_ignore_ascii_case(b"alpha"));
            if (alpha && by_pattern) || (nosort && hashtable_set(ks, &src)) {
                // Weights that tie leave qsort's order unspecified, a hashtable's order is the
                // server's: which elements a LIMIT keeps is too.
                while let Some(at) = c.iter().position(|a| a == b"LIMIT") {
                    let end = (at + 3).min(c.len());
                    c.drain(at..end);
                }
            }
            let cmp = if (nosort && hashtable_set(ks, &src)) || (alpha && by_pattern && !nosort) {
                // ALPHA BY weights that tie or are missing leave qsort's order unspecified.
                Cmp::Unordered(1.max(c.iter().filter(|a| a.eq_ignore_ascii_case(b"get")).count()))
            } else {
                Cmp::Exact
            };
            (c, cmp)
        }
        15..=19 => {
            let (name, with, prefix): (&str, Option<&str>, &[u8]) = match rng.u8(0..3) {
                0 => ("SRANDMEMBER", None, b"s:"),
                1 => ("ZRANDMEMBER", Some("WITHSCORES"), b"z:"),
                _ => ("HRANDFIELD", Some("WITHVALUES"), b"h:"),
            };
            let mut c = vec![v(name), of(rng, prefix)];
            let mut n = 1;
            let mut distinct = false;
            if rng.u8(0..5) > 0 {
                let count = if rng.u8(0..6) == 0 {
                    int_arg(rng)
                } else {
                    v(rng.i64(-400..400).to_string())
                };
                distinct = !count.starts_with(b"-");
                c.push(count);
                if rng.bool() {
                    c.push(match with {
                        Some(w) if rng.u8(0..6) > 0 => v(w),
                        _ => v(["FOO", "WITHSCORES", "WITHVALUES"][rng.usize(0..3)]),
                    });
                    if with.is_some_and(|w| c[3].eq_ignore_ascii_case(w.as_bytes())) {
                        n = 2;
                    }
                    if rng.u8(0..10) == 0 {
                        c.push(v("x"));
                    }
                }
            }
            // A server streams a reply of |count| picks however large: past -5000 the count
            // goes to a missing key only, or with pairs past -2^62 (the range error).
            let huge = c
                .get(2)
                .and_then(|a| bitlens::command::args::parse_i64(a))
                .is_some_and(|n| n < -5000 && !(c.len() == 4 && n < -(i64::MAX / 2)));
            if huge {
                c[1] = v("nokey");
            }
            (c, Cmp::Picks { n, distinct })
        }
        20 => (vec![v("RANDOMKEY")], Cmp::AnyKey),
        21 => (
            vec![
                v(["RANDOMKEY", "ZLEXCOUNT", "LCS", "ZINTERCARD", "MGET"][rng.usize(0..5)]),
                of(rng, b"z:"),
            ],
            Cmp::Exact,
        ),
        22..=24 => {
            let id = |rng: &mut fastrand::Rng| {
                if rng.u8(0..3) == 0 {
                    v(["-", "+", "(0-1", "x", "0", "(+"][rng.usize(0..6)])
                } else {
                    let mut p = pick(rng);
                    if rng.u8(0..4) == 0 {
                        p.insert(0, b'(');
                    }
                    p
                }
            };
            let mut c = vec![
                v("XPENDING"),
                of(rng, b"x:"),
                v(["g1", "g2", "nog"][rng.usize(0..3)]),
            ];
            if rng.u8(0..4) > 0 {
                if rng.bool() {
                    c.extend([v("IDLE"), v(["0", "-5", "3600000", "x"][rng.usize(0..4)])]);
                }
                c.extend([id(rng), id(rng), int_arg(rng)]);
                if rng.bool() {
                    c.push(v(["alice", "bob", "carol", "dave"][rng.usize(0..4)]));
                }
                if rng.u8(0..8) == 0 {
                    c.push(v("extra"));
                }
            }
            (c, Cmp::Idle)
        }
        25 | 26 => {
            let mut c = vec![v("XREAD")];
            if rng.bool() {
                c.extend([v("COUNT"), int_arg(rng)]);
            }
            if rng.u8(0..6) == 0 {
                c.extend([v("BLOCK"), v(["x", "-1"][rng.usize(0..2)])]);
            }
            if rng.u8(0..10) == 0 {
                c.push(v(["NOACK", "GROUP", "FOO"][rng.usize(0..3)]));
            }
            c.push(v("STREAMS"));
            let n = rng.usize(1..4);
            for _ in 0..n {
                c.push(of(rng, b"x:"));
            }
            for _ in 0..n {
                c.push(match rng.u8(0..6) {
                    0 => v("$"),
                    1 => v("+"),
                    2 => v([">", "-", "(0-1", "x", "0"][rng.usize(0..5)]),
                    _ => pick(rng),
                });
            }
            if rng.u8(0..15) == 0 {
                c.pop();
            }
            (c, Cmp::Exact)
        }
        _ => (vec![v("XPENDING"), v("x:0"), v("g1")], Cmp::Exact),
    }
}

fn run_kind(kind: ServerKind) {
    if !kind.available() {
        eprintln!("reads_diff: {} not installed, skipped", kind.name());
        return;
    }
    let seed = bitlens_testseed::seed();
    let mut rng = fastrand::Rng::with_seed(seed);
    let server = RedisServer::start_kind(kind, &[]);
    let mut raw = server.raw_connection();
    let data = gen_data(&mut rng);
    for c in &data.cmds {
        let r = raw.query(c);
        assert!(
            !r.starts_with(b"-"),
            "{}: setup {:?}: {}",
            kind.name(),
            c[0],
            String::from_utf8_lossy(&r)
        );
    }
    let bytes = server.save_rdb();
    drop(raw);
    drop(server);
    let server = RedisServer::start_kind_loading(kind, &bytes, &[]);
    let mut raw = server.raw_connection();
    let snap = load_rdb(&bytes, &LoadOptions::default())
        .unwrap_or_else(|e| panic!("{}: load: {e}", kind.name()));
    let mut ks = snap.databases.get(&0).cloned().unwrap_or_default();
    assert_eq!(ks.len(), data.keys.len(), "{}: key count", kind.name());
    let profile = Profile::from_name(kind.profile_name()).unwrap_or_else(Profile::default_profile);
    let mut failures = Vec::new();
    let n = 3000;
    let mut by_name: std::collections::BTreeMap<String, usize> = Default::default();
    for _ in 0..n {
        let (c, cmp) = gen_cmd(&mut rng, &data, &ks);
        *by_name
            .entry(String::from_utf8_lossy(&c[0]).into_owned())
            .or_default() += 1;
        let mut side = Side {
            ks: &mut ks,
            profile,
        };
        if let Err(e) = compare(cmp, &mut raw, &mut side, &c, &data.keys) {
            failures.push(e);
        }
    }
    // Last phase: SORT_RO over the small (listpack) sorted sets, which it converts on the
    // server.
    for key in ["z:0", "z:1", "z:2"] {
        for opts in [
            &[][..],
            &["BY", "w_*", "GET", "#", "GET", "o_*"][..],
            &["BY", "nosort", "DESC", "LIMIT", "1", "5"][..],
            &["BY", "hw_*->f", "GET", "hw_*->g"][..],
            &["ALPHA", "DESC"][..],
        ] {
            let mut c = vec![v("SORT_RO"), v(key)];
            c.extend(opts.iter().map(v));
            let mut side = Side {
                ks: &mut ks,
                profile,
            };
            if let Err(e) = compare(Cmp::Exact, &mut raw, &mut side, &c, &data.keys) {
                failures.push(e);
            }
        }
    }
    // DUMP: every key's payload from bitlens RESTOREd into the server reads as the key.
    let mut restored = 0;
    for key in data.keys.clone() {
        let payload = match (Side {
            ks: &mut ks,
            profile,
        })
        .run(&[v("DUMP"), key.clone()])
        {
            Reply::Bulk(p) => p,
            other => {
                failures.push(format!(
                    "DUMP {:?}: {}",
                    String::from_utf8_lossy(&key),
                    show(&other)
                ));
                continue;
            }
        };
        let mut copy = b"copy:".to_vec();
        copy.extend_from_slice(&key);
        let r = raw.query(&[v("RESTORE"), copy.clone(), v("0"), payload]);
        if r != b"+OK\r\n" {
            failures.push(format!(
                "RESTORE of bitlens' DUMP of {:?}: {}",
                String::from_utf8_lossy(&key),
                String::from_utf8_lossy(&r)
            ));
            continue;
        }
        restored += 1;
        let reads: Vec<(Vec<&[u8]>, usize)> = vec![
            (vec![b"TYPE"], 0),
            (vec![b"GET"], 0),
            (vec![b"LRANGE", b"0", b"-1"], 0),
            (vec![b"SMEMBERS"], 1),
            (vec![b"HGETALL"], 2),
            (vec![b"ZRANGE", b"0", b"-1", b"WITHSCORES"], 0),
            (vec![b"XRANGE", b"-", b"+"], 0),
            (vec![b"XINFO", b"GROUPS"], 0),
            (vec![b"XPENDING", b"g1"], 0),
        ];
        for (parts, group) in reads {
            let with = |k: &[u8]| {
                let mut a: Vec<Vec<u8>> = vec![parts[0].to_vec()];
                if parts[0] == b"XINFO" {
                    a.push(parts[1].to_vec());
                    a.push(k.to_vec());
                } else {
                    a.push(k.to_vec());
                    a.extend(parts[1..].iter().map(|p| p.to_vec()));
                }
                a
            };
            let a = parse(&raw.query(&with(&key)), &mut 0);
            let b = parse(&raw.query(&with(&copy)), &mut 0);
            let same = a == b
                || (group > 0
                    && sorted_groups(&a, group).is_some()
                    && sorted_groups(&a, group) == sorted_groups(&b, group))
                || format!("{a:?}").replace("copy:", "") == format!("{b:?}").replace("copy:", "");
            if !same {
                failures.push(format!(
                    "RESTOREd DUMP of {:?}, {:?}:\n  original: {}\n  restored: {}",
                    String::from_utf8_lossy(&key),
                    String::from_utf8_lossy(parts[0]),
                    show(&a),
                    show(&b)
                ));
            }
        }
    }
    eprintln!(
        "reads_diff {}: {restored} DUMP payloads RESTOREd",
        kind.name()
    );
    eprintln!(
        "reads_diff {}: BITLENS_SEED={seed}, {n} commands ({by_name:?}), {} differ",
        kind.name(),
        failures.len()
    );
    for f in failures.iter().take(30) {
        eprintln!("{f}");
    }
    assert!(
        failures.is_empty(),
        "{}: {} replies differ (BITLENS_SEED={seed})",
        kind.name(),
        failures.len()
    );
}

#[test]
fn reads_against_redis_6_0() {
    run_kind(ServerKind::Redis6_0);
}

#[test]
fn reads_against_redis_6_2() {
    run_kind(ServerKind::Redis6_2);
}

#[test]
fn reads_against_redis_7_0() {
    run_kind(ServerKind::Redis7_0);
}

#[test]
fn reads_against_redis_7_4() {
    run_kind(ServerKind::Redis7_4);
}

#[test]
fn reads_against_redis_8_0() {
    run_kind(ServerKind::Redis8_0);
}

#[test]
fn reads_against_valkey_8_1_1() {
    run_kind(ServerKind::Valkey8_1_1);
}

#[test]
fn reads_against_valkey_8_1() {
    run_kind(ServerKind::Valkey8_1);
}

#[test]
fn reads_against_valkey_9_1() {
    run_kind(ServerKind::Valkey9_1);
}

/// OBJECT FREQ / IDLETIME: a snapshot written under an LFU policy (RDB_OPCODE_FREQ) and one
/// under an LRU policy (RDB_OPCODE_IDLE), each loaded by a server with the writer's policy;
/// FREQ byte for byte, IDLETIME within 2 s (the server adds the seconds since its load), and
/// both policies' refusals of the other subcommand byte for byte.
fn access_kind(kind: ServerKind) {
    if !kind.available() {
        eprintln!("reads_diff: {} not installed, skipped", kind.name());
        return;
    }
    for policy in ["allkeys-lfu", "allkeys-lru"] {
        let args = ["--maxmemory-policy", policy];
        let server = RedisServer::start_kind(kind, &args);
        let mut raw = server.raw_connection();
        for i in 0..20 {
            raw.query(&[v("SET"), v(format!("k{i}")), v("x")]);
        }
        if policy == "allkeys-lru" {
            std::thread::sleep(std::time::Duration::from_millis(2100));
        }
        for i in 0..10 {
            for _ in 0..i * 30 {
                raw.query(&[v("GET"), v(format!("k{i}"))]);
            }
        }
        let bytes = server.save_rdb();
        drop(raw);
        drop(server);
        let server = RedisServer::start_kind_loading(kind, &bytes, &args);
        let mut raw = server.raw_connection();
        let snap = load_rdb(&bytes, &LoadOptions::default()).unwrap();
        let mut ks = snap.databases.get(&0).cloned().unwrap_or_default();
        let profile =
            Profile::from_name(kind.profile_name()).unwrap_or_else(Profile::default_profile);
        let mut failures = Vec::new();
        for i in 0..21 {
            for sub in ["FREQ", "IDLETIME"] {
                let c = vec![v("OBJECT"), v(sub), v(format!("k{i}"))];
                let theirs = raw.query(&c);
                let ours = (Side {
                    ks: &mut ks,
                    profile,
                })
                .run(&c);
                let ok = match (parse(&theirs, &mut 0), &ours) {
                    (Reply::Integer(a), Reply::Integer(b)) if sub == "IDLETIME" => {
                        (a - b).abs() <= 2
                    }
                    _ => ours.to_resp() == theirs,
                };
                if !ok {
                    failures.push(format!(
                        "{policy} OBJECT {sub} k{i}: server {:?}, bitlens {:?}",
                        String::from_utf8_lossy(&theirs),
                        show(&ours)
                    ));
                }
            }
        }
        assert!(failures.is_empty(), "{}: {failures:#?}", kind.name());
    }
}

#[test]
fn object_freq_idletime_all_servers() {
    for kind in ServerKind::ALL {
        access_kind(kind);
    }
}
