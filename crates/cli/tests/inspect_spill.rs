//! `bitlens inspect` in bounded memory (issue 17.5): the key rows go to a spill (memory up to a
//! budget, then a temporary file) and the report is built in passes over it, the group
//! patterns by [`patterns::Grouper`] classes. Here the budget is forced to 0 (every row on
//! disk) and the prefix tallies to 64 at once (the prefix tree counted level by level), and
//! the reports must equal the in-memory ones, the rows must be those of
//! [`patterns::group`] over all the keys, and every pattern, sent as `KEYS` to Redis 7.4.1,
//! must return exactly the keys its row counts.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use bitlens::glob::matches;
use bitlens::rdb::RdbWriter;
use bitlens::Reply;
use bitlens_cli::inspect::{for_each_key, patterns, report, Input, KeyRow, Options, TtlFilter};
use bitlens_difftest::{query_pipeline, RedisServer, ServerKind};
use common::*;

fn spilled(opts: &Options) -> Options {
    Options {
        spill_budget: 0,
        prefix_cap: 64,
        ..opts.clone()
    }
}

/// The rows `for_each_key` gives (after the filters), per database.
fn rows_of(rdb: &[u8], opts: &Options) -> BTreeMap<u64, Vec<KeyRow>> {
    let mut m: BTreeMap<u64, Vec<KeyRow>> = BTreeMap::new();
    for_each_key(Input::Bytes(rdb), opts, |r| {
        m.entry(r.db).or_default().push(r.clone())
    })
    .unwrap();
    m
}

/// Checks a report against its rows: each database's groups are [`patterns::group`]'s over
/// its keys, each pattern matches exactly `count` keys whose memory, lengths, expiries and
/// first three names (file order) are the row's, and every key is in one row.
fn check_rows(rdb: &[u8], opts: &Options) -> bitlens_cli::inspect::Report {
    let r = report(rdb, opts).unwrap();
    let r0 = report(rdb, &spilled(opts)).unwrap();
    assert_eq!(r0, r, "the spilled report is the in-memory one");
    let rows = rows_of(rdb, opts);
    assert_eq!(rows_of(rdb, &spilled(opts)), rows);
    assert_eq!(
        r.databases.iter().map(|d| d.db).collect::<Vec<_>>(),
        rows.keys().copied().collect::<Vec<_>>()
    );
    for d in &r.databases {
        let keys = &rows[&d.db];
        let names: Vec<&[u8]> = keys.iter().map(|k| k.key.as_slice()).collect();
        let want: BTreeSet<Vec<u8>> = patterns::group(&names)
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        let got: BTreeSet<Vec<u8>> = d.groups.iter().map(|g| g.pattern.clone()).collect();
        assert_eq!(got, want, "db {}: the in-memory grouping's patterns", d.db);
        let mut seen = vec![0; keys.len()];
        for g in &d.groups {
            let hit: Vec<usize> = (0..keys.len())
                .filter(|&i| matches(&g.pattern, &keys[i].key))
                .collect();
            let p = bitlens::escape::quote(&g.pattern);
            assert_eq!(hit.len() as u64, g.count, "{p}");
            let sum = |f: &dyn Fn(&KeyRow) -> u64| hit.iter().map(|&i| f(&keys[i])).sum::<u64>();
            assert_eq!(sum(&|k| k.memory_or_zero()), g.memory, "{p}");
            assert_eq!(sum(&|k| k.len), g.len, "{p}");
            assert_eq!(
                sum(&|k| k.expire_at_ms.is_some() as u64),
                g.with_expiry,
                "{p}"
            );
            let first: Vec<Vec<u8>> = hit.iter().take(3).map(|&i| keys[i].key.clone()).collect();
            assert_eq!(first, g.examples, "{p}");
            for i in hit {
                seen[i] += 1;
            }
        }
        assert!(
            seen.iter().all(|&n| n == 1),
            "db {}: every key in one row",
            d.db
        );
    }
    r
}

/// Keys that nearly collide: ids beside names (`bm:int:1` / `bm:int:big`), a key named `*`,
/// `utf8`, glob bytes, and a wildcard that takes one of a row's keys and not the other
/// (`k*-*` matches `k:2024-05-01`, not `k:20240501` and `k:20240502`, so the row `k:*` falls
/// apart and those two become exact rows).
const NEAR: [&str; 17] = [
    "bm:int:1",
    "bm:int:2",
    "bm:int:3",
    "bm:int:big",
    "bm:int:neg",
    "*",
    "utf8",
    "a?b[c]",
    "k:20240501",
    "k:20240502",
    "k:2024-05-01",
    "k1-2",
    "k3-4",
    "x:1:y",
    "x:2:y",
    "x:2:z",
    "x:10",
];

#[test]
fn near_collisions_stay_exact_through_the_spill_on_redis() {
    let Some(server) = RedisServer::start_kind_if_installed(ServerKind::Redis7_4, &[]) else {
        return;
    };
    let mut c = server.connection();
    let mut cmds: Vec<Vec<Vec<u8>>> = Vec::new();
    for db in [0, 3] {
        cmds.push(words(&format!("SELECT {db}")));
        for k in NEAR {
            cmds.push(argv(&[b"SET", k.as_bytes(), b"v"]));
        }
        // Many keys of few shapes (the rows the budget must not hold per key).
        for i in 0..3000 {
            cmds.push(words(&format!("SET big:s:{i} {}", "x".repeat(i % 50))));
            if i % 3 == 0 {
                cmds.push(words(&format!("SADD user:{i}:tags a b {i}")));
            }
        }
        cmds.push(words("PEXPIREAT big:s:7 4102444800000"));
        cmds.push(words("PFADD hll:1 a b c"));
        cmds.push(words("PFADD hll:2 d"));
        cmds.push(words("GEOADD geo:1 13.361389 38.115556 Palermo"));
        cmds.push(words("GEOADD geo:2 15.087269 37.502669 Catania"));
    }
    for r in query_pipeline(&mut c, &cmds) {
        assert!(!matches!(r, Reply::Error(_)), "{r:?}");
    }
    let rdb = server.save_rdb();
    let opts = Options {
        ledger: Some(Default::default()),
        ..Options::default()
    };
    let r = check_rows(&rdb, &opts);
    for d in &r.databases {
        query_pipeline(&mut c, &[words(&format!("SELECT {}", d.db))]);
        let pats: Vec<&[u8]> = d.groups.iter().map(|g| g.pattern.as_slice()).collect();
        for p in [
            &b"bm:int:*"[..],
            b"utf8",
            b"\\*",
            b"k:20240501",
            b"k:20240502",
            b"big:s:*",
        ] {
            assert!(pats.contains(&p), "{p:?} in {pats:?}");
        }
        for g in &d.groups {
            let real = match query_pipeline(&mut c, &[argv(&[b"KEYS", &g.pattern])]).remove(0) {
                Reply::Array(a) => a.len() as u64,
                o => panic!("{o:?}"),
            };
            let p = bitlens::escape::quote(&g.pattern);
            assert_eq!(real, g.count, "KEYS {p} on Redis 7.4.1, db {}", d.db);
        }
        let geo = d.groups.iter().find(|g| g.pattern == b"geo:*").unwrap();
        assert_eq!(geo.geo.unwrap().members, 2);
        let hll = d.groups.iter().find(|g| g.pattern == b"hll:*").unwrap();
        assert_eq!(hll.hll.unwrap().cardinality_range, Some((1, 3)));
    }
    // The TTL filter (applied in each pass over the spill) and the CSV rows.
    for ttl in [TtlFilter::None, TtlFilter::Range(None, None)] {
        check_rows(
            &rdb,
            &Options {
                filter: bitlens_cli::inspect::Filter {
                    ttl: Some(ttl),
                    ..Default::default()
                },
                ..Options::default()
            },
        );
    }
}

/// A file of random keys made of pieces that collide (numbers, dates, months, glob bytes),
/// in up to three databases, some with an expiry.
fn random_rdb(rng: &mut fastrand::Rng, n: usize) -> Vec<u8> {
    let mut w = RdbWriter::new(Vec::new(), 11).unwrap();
    for db in 0..rng.u64(1..4) {
        w.select_db(db).unwrap();
        let mut set = BTreeSet::new();
        for _ in 0..n {
            set.insert(bitlens_views::patterns::near_collision_key(|n| {
                rng.usize(..n)
            }));
        }
        let mut keys: Vec<Vec<u8>> = set.into_iter().collect();
        rng.shuffle(&mut keys);
        for k in keys {
            let v = vec![b'v'; rng.usize(0..200)];
            let ttl = rng
                .bool()
                .then(|| 1_700_000_000_000 + rng.i64(0..30 * 86_400_000));
            w.write_string(&k, &v, ttl).unwrap();
        }
    }
    w.finish().unwrap()
}

#[test]
fn spilled_reports_equal_the_in_memory_ones_on_random_keys() {
    let mut rng = fastrand::Rng::with_seed(0x17_05);
    for round in 0..40 {
        let rdb = random_rdb(&mut rng, if round % 8 == 0 { 2000 } else { 60 });
        let opts = Options {
            top: 5,
            clock: bitlens::session::Clock::At(1_700_000_000_000 + 10 * 86_400_000),
            ..Options::default()
        };
        let r = check_rows(&rdb, &opts);
        // The top N through the streaming cut: the biggest by memory, then db, then key.
        let mut all: Vec<KeyRow> = rows_of(&rdb, &opts).into_values().flatten().collect();
        all.sort_by(|a, b| {
            (b.memory_or_zero(), a.db, &a.key).cmp(&(a.memory_or_zero(), b.db, &b.key))
        });
        all.truncate(5);
        assert_eq!(r.top, all, "round {round}");
        check_rows(
            &rdb,
            &Options {
                filter: bitlens_cli::inspect::Filter {
                    ttl: Some(TtlFilter::Range(None, Some(7 * 86_400_000))),
                    ..Default::default()
                },
                ..opts.clone()
            },
        );
    }
}
