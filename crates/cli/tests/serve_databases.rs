//! `bitlens serve --redis` exports every non-empty database of a live server, as a BGSAVE
//! writes them (issue 27, item 6), checked against each of the six servers (Redis 6.0.9,
//! 6.2.14, 7.0.15, 7.4.1, Valkey 8.1.8, 9.1.2) on random data: keys of every core type (and
//! bitmaps, HyperLogLogs, expiries, a 2 MiB key whose DUMP streams over a connection of its
//! own) in databases 0, 2, 15 and a few others, the same names often in several of them.
//!
//! For every database 0–15, `SELECT n` then DBSIZE on bitlens over the export answers the
//! server's bytes (and redis-cli's `-n n DBSIZE` for the non-empty ones), and per key of every
//! database the read commands of its type (ordered replies byte for byte, set and hash
//! members as sorted sets of RESP elements); the export's RESIZEDB key counts are those of
//! the server's own SAVE; `/api/info` lists INFO keyspace. Then the narrowed exports: a
//! request's `db=N`, a `redis://host/N` URL, `--db N` (each database N alone, with the same
//! answers), `/api/keys?db=N` (the names `KEYS *` gives in N), and the 400s of a `db=` the
//! source does not export.
//!
//! Randomized: the seed is printed, `BITLENS_SEED=N` replays it.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use bitlens::session::{Clock, Session};
use bitlens_difftest::{RawConnection, RedisServer, ServerKind};
use common::*;

/// Databases a server has by default.
const DATABASES: u64 = 16;

/// One key written: its database, name and type (`bitmap`/`hll` are strings to the server).
#[derive(Debug, Clone)]
struct Written {
    db: u64,
    key: Vec<u8>,
    kind: &'static str,
}

/// A short random value, sometimes with bytes that are not UTF-8, sometimes an integer.
fn value(rng: &mut fastrand::Rng) -> Vec<u8> {
    match rng.u8(0..4) {
        0 => rng.i64(-100_000..100_000).to_string().into_bytes(),
        1 => (0..rng.usize(0..6)).map(|_| rng.u8(..)).collect(),
        _ => (0..rng.usize(1..40))
            .map(|_| b"abcxyz:_-0123456789"[rng.usize(0..19)])
            .collect(),
    }
}

/// Writes one key of a random type into the selected database of `c` (a fresh name in that
/// database: the name pool is shared between databases, not within one).
fn write_key(
    c: &mut redis::Connection,
    rng: &mut fastrand::Rng,
    db: u64,
    key: &[u8],
    big: bool,
) -> Written {
    let run = |c: &mut redis::Connection, args: Vec<Vec<u8>>| {
        let mut cmd = redis::cmd(std::str::from_utf8(&args[0]).unwrap());
        for a in &args[1..] {
            cmd.arg(a.as_slice());
        }
        let _: redis::Value = cmd
            .query(c)
            .unwrap_or_else(|e| panic!("{:?}: {e}", String::from_utf8_lossy(&args[0])));
    };
    let kinds = [
        "string", "bitmap", "hll", "list", "set", "intset", "zset", "hash", "stream",
    ];
    let kind = if big {
        "bitmap"
    } else {
        kinds[rng.usize(0..kinds.len())]
    };
    let most = if rng.u8(0..6) == 0 { 200 } else { 8 };
    let n = rng.usize(1..most);
    let mut cmd: Vec<Vec<u8>>;
    match kind {
        "string" => cmd = argv(&[b"SET", key, &value(rng)]),
        "bitmap" => {
            if big {
                // 2 MiB: above the exporter's BIG_KEY, streamed over its own connection.
                run(c, argv(&[b"SETBIT", key, b"16777215", b"1"]));
            }
            for _ in 0..n {
                let bit = rng.u32(0..100_000).to_string();
                run(c, argv(&[b"SETBIT", key, bit.as_bytes(), b"1"]));
            }
            cmd = argv(&[b"SETBIT", key, b"7", b"1"]);
        }
        "hll" => {
            cmd = argv(&[b"PFADD", key]);
            for _ in 0..n * 3 {
                cmd.push(value(rng));
            }
        }
        "list" => {
            cmd = argv(&[b"RPUSH", key]);
            for _ in 0..n {
                cmd.push(value(rng));
            }
        }
        "set" => {
            cmd = argv(&[b"SADD", key]);
            for _ in 0..n {
                cmd.push(value(rng));
            }
        }
        "intset" => {
            cmd = argv(&[b"SADD", key]);
            for _ in 0..n {
                cmd.push(rng.i32(-1000..1000).to_string().into_bytes());
            }
        }
        "zset" => {
            cmd = argv(&[b"ZADD", key]);
            for _ in 0..n {
                let score = match rng.u8(0..3) {
                    0 => rng.i32(-50..50).to_string(),
                    1 => format!("{}", rng.f64() * 100.0 - 50.0),
                    _ => format!("{}.{}", rng.i32(-9..9), rng.u16(..)),
                };
                cmd.push(score.into_bytes());
                cmd.push(value(rng));
            }
        }
        "hash" => {
            cmd = argv(&[b"HSET", key]);
            for _ in 0..n {
                cmd.push(value(rng));
                cmd.push(value(rng));
            }
        }
        _ => {
            for i in 1..n {
                let id = format!("{i}-{}", rng.u8(0..3));
                run(c, argv(&[b"XADD", key, id.as_bytes(), b"f", &value(rng)]));
            }
            cmd = argv(&[b"XADD", key, b"*", b"last", &value(rng)]);
        }
    }
    run(c, cmd);
    if rng.u8(0..4) == 0 {
        run(c, argv(&[b"PEXPIRE", key, b"3600000"]));
    }
    let kind = match kind {
        "bitmap" | "hll" => kind,
        "intset" => "set",
        k => k,
    };
    Written {
        db,
        key: key.to_vec(),
        kind,
    }
}

/// Fills `server` at random: databases 0, 2 and 15 and up to three others, 1–12 keys each
/// (names from one small pool, so that a name often exists in several databases), one of
/// them a 2 MiB bitmap one time in three, and a database whose keys are all deleted again
/// (INFO keyspace then leaves it out). Returns the keys written.
fn fill(server: &RedisServer, rng: &mut fastrand::Rng) -> Vec<Written> {
    let mut dbs: BTreeSet<u64> = [0, 2, 15].into();
    for _ in 0..rng.usize(0..4) {
        dbs.insert(rng.u64(1..DATABASES));
    }
    let big_db = (rng.u8(0..3) == 0).then(|| *dbs.iter().nth(rng.usize(0..dbs.len())).unwrap());
    let mut c = server.connection();
    let mut out = Vec::new();
    for &db in &dbs {
        let _: () = redis::cmd("SELECT").arg(db).query(&mut c).unwrap();
        let mut names: Vec<u32> = (0..24).collect();
        rng.shuffle(&mut names);
        let n = rng.usize(1..13);
        for (i, name) in names.iter().take(n).enumerate() {
            let key = format!("k{name}").into_bytes();
            out.push(write_key(
                &mut c,
                rng,
                db,
                &key,
                big_db == Some(db) && i == 0,
            ));
        }
    }
    // A database that held keys and is empty again.
    let gone = rng.u64(1..DATABASES);
    if !dbs.contains(&gone) {
        let _: () = redis::cmd("SELECT").arg(gone).query(&mut c).unwrap();
        let _: () = redis::cmd("SET")
            .arg("gone")
            .arg("1")
            .query(&mut c)
            .unwrap();
        let _: () = redis::cmd("DEL").arg("gone").query(&mut c).unwrap();
    }
    out
}

/// The read commands that show a key of `kind` whole, each with whether its reply is an
/// unordered collection (SMEMBERS; HGETALL as field-value pairs).
fn reads(kind: &str, key: &[u8]) -> Vec<(Vec<Vec<u8>>, Order)> {
    let a = |parts: &[&[u8]], o| (argv(parts), o);
    let mut v = vec![
        a(&[b"TYPE", key], Order::Exact),
        a(&[b"EXISTS", key], Order::Exact),
    ];
    v.extend(match kind {
        "string" => vec![
            a(&[b"GET", key], Order::Exact),
            a(&[b"STRLEN", key], Order::Exact),
        ],
        "bitmap" => vec![
            a(&[b"BITCOUNT", key], Order::Exact),
            a(&[b"STRLEN", key], Order::Exact),
            a(&[b"BITPOS", key, b"1"], Order::Exact),
            a(&[b"GETBIT", key, b"7"], Order::Exact),
        ],
        "hll" => vec![a(&[b"PFCOUNT", key], Order::Exact)],
        "list" => vec![
            a(&[b"LLEN", key], Order::Exact),
            a(&[b"LRANGE", key, b"0", b"-1"], Order::Exact),
        ],
        "set" => vec![
            a(&[b"SCARD", key], Order::Exact),
            a(&[b"SMEMBERS", key], Order::Members),
        ],
        "zset" => vec![
            a(&[b"ZCARD", key], Order::Exact),
            a(&[b"ZRANGE", key, b"0", b"-1", b"WITHSCORES"], Order::Exact),
        ],
        "hash" => vec![
            a(&[b"HLEN", key], Order::Exact),
            a(&[b"HGETALL", key], Order::Pairs),
        ],
        "stream" => vec![
            a(&[b"XLEN", key], Order::Exact),
            a(&[b"XRANGE", key, b"-", b"+"], Order::Exact),
        ],
        _ => vec![],
    });
    v
}

/// How two replies are compared.
#[derive(Clone, Copy, Debug)]
enum Order {
    /// Byte for byte.
    Exact,
    /// An array whose elements come in hash order: compared as sorted RESP elements.
    Members,
    /// As `Members`, for field-value pairs.
    Pairs,
}

/// The RESP bytes of an array reply's elements (or pairs of elements), sorted.
fn sorted_elements(reply: &bitlens::Reply, pairs: bool) -> Vec<Vec<u8>> {
    let bitlens::Reply::Array(items) = reply else {
        return vec![reply.to_resp()];
    };
    let step = if pairs { 2 } else { 1 };
    let mut v: Vec<Vec<u8>> = items
        .chunks(step)
        .map(|c| c.iter().flat_map(|r| r.to_resp()).collect())
        .collect();
    v.sort();
    v
}

/// Parses the RESP bytes of one reply as the server sent them (for unordered comparisons).
fn parse_resp(bytes: &[u8]) -> bitlens::Reply {
    fn one(b: &[u8], at: &mut usize) -> bitlens::Reply {
        let end = *at + b[*at..].windows(2).position(|w| w == b"\r\n").unwrap();
        let line = &b[*at + 1..end];
        let head = b[*at];
        *at = end + 2;
        let n = || std::str::from_utf8(line).unwrap().parse::<i64>().unwrap();
        match head {
            b'+' => bitlens::Reply::Status(String::from_utf8_lossy(line).into_owned()),
            b'-' => bitlens::Reply::Error(String::from_utf8_lossy(line).into_owned()),
            b':' => bitlens::Reply::Integer(n()),
            b'$' if n() < 0 => bitlens::Reply::NullBulk,
            b'$' => {
                let len = n() as usize;
                let v = b[*at..*at + len].to_vec();
                *at += len + 2;
                bitlens::Reply::Bulk(v)
            }
            b'*' => bitlens::Reply::Array((0..n().max(0)).map(|_| one(b, at)).collect()),
            _ => panic!("unexpected RESP {:?}", String::from_utf8_lossy(b)),
        }
    }
    one(bytes, &mut 0)
}

/// Compares bitlens on `rdb` with the live server, database by database: `SELECT n` + DBSIZE
/// for every database (bitlens must hold only `dbs`' keys: the others answer 0), and the
/// reads of every key written in `dbs`. `what` names the export in messages.
fn compare(
    name: &str,
    what: &str,
    rdb: &[u8],
    live: &mut RawConnection,
    keys: &[Written],
    dbs: &BTreeSet<u64>,
) {
    let snap = bitlens::rdb::load_rdb(rdb, &Default::default())
        .unwrap_or_else(|e| panic!("{name} {what}: bitlens cannot load the export: {e}"));
    let held: BTreeSet<u64> = snap
        .databases
        .iter()
        .filter(|(_, ks)| !ks.is_empty())
        .map(|(db, _)| *db)
        .collect();
    let mut session = Session::from_snapshot(snap, None, Clock::Snapshot);
    let names: BTreeSet<&[u8]> = keys.iter().map(|k| k.key.as_slice()).collect();
    let mut want_held = BTreeSet::new();
    for db in 0..DATABASES {
        let select = argv(&[b"SELECT", db.to_string().as_bytes()]);
        assert_eq!(live.query(&select), b"+OK\r\n");
        assert_eq!(session.execute(&select).to_resp(), b"+OK\r\n");
        let dbsize = argv(&[b"DBSIZE"]);
        let server = live.query(&dbsize);
        let got = session.execute(&dbsize).to_resp();
        if dbs.contains(&db) {
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&server),
                "{name} {what}: SELECT {db} + DBSIZE"
            );
            if server != b":0\r\n" {
                want_held.insert(db);
            }
        } else {
            assert_eq!(
                got, b":0\r\n",
                "{name} {what}: database {db} is not exported"
            );
        }
        if !dbs.contains(&db) {
            continue;
        }
        // Every name of the pool written anywhere: those of other databases answer as absent.
        for key in &names {
            let kind = keys
                .iter()
                .find(|k| k.db == db && k.key == *key)
                .map_or("none", |k| k.kind);
            for (cmd, order) in reads(kind, key) {
                let server = live.query(&cmd);
                let got = session.execute(&cmd);
                let shown = |c: &[Vec<u8>]| {
                    c.iter()
                        .map(|a| String::from_utf8_lossy(a).into_owned())
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                match order {
                    Order::Exact => assert_eq!(
                        String::from_utf8_lossy(&got.to_resp()),
                        String::from_utf8_lossy(&server),
                        "{name} {what}: db {db}: {}",
                        shown(&cmd)
                    ),
                    Order::Members | Order::Pairs => {
                        let pairs = matches!(order, Order::Pairs);
                        assert_eq!(
                            sorted_elements(&got, pairs),
                            sorted_elements(&parse_resp(&server), pairs),
                            "{name} {what}: db {db}: {}",
                            shown(&cmd)
                        );
                    }
                }
            }
            // An expiry is carried (its exact value moves with the clock).
            let pttl = argv(&[b"PTTL", key]);
            let server = parse_resp(&live.query(&pttl));
            let got = session.execute(&pttl);
            let sign = |r: &bitlens::Reply| match r {
                bitlens::Reply::Integer(n) if *n > 0 => 1,
                bitlens::Reply::Integer(n) => *n,
                _ => 99,
            };
            assert_eq!(sign(&got), sign(&server), "{name} {what}: db {db}: PTTL");
        }
    }
    assert_eq!(
        held, want_held,
        "{name} {what}: the databases the export holds"
    );
}

/// The RESIZEDB key count of each database of an RDB file (as its first key record reports
/// it), by database.
fn resize_counts(rdb: &[u8]) -> BTreeMap<u64, Option<u64>> {
    let mut out = BTreeMap::new();
    bitlens::rdb::visit_rdb(rdb, &Default::default(), |r| {
        out.entry(r.db).or_insert(r.db_size_hint);
        Ok(())
    })
    .unwrap();
    out
}

/// INFO keyspace of the server as `/api/info` lists it.
fn info_keyspace(server: &RedisServer) -> serde_json::Value {
    let text = String::from_utf8(server.cli_output(&[b"INFO", b"keyspace"])).unwrap();
    let dbs: Vec<serde_json::Value> = text
        .lines()
        .filter_map(|l| {
            let (db, rest) = l.trim().split_once(':')?;
            let db: u64 = db.strip_prefix("db")?.parse().ok()?;
            let field = |f: &str| -> u64 {
                rest.split(',')
                    .find_map(|kv| kv.strip_prefix(f)?.strip_prefix('='))
                    .unwrap()
                    .parse()
                    .unwrap()
            };
            Some(serde_json::json!({"db": db, "keys": field("keys"), "expires": field("expires")}))
        })
        .collect();
    serde_json::Value::Array(dbs)
}

fn get_ok(served: &Served, path: &str, name: &str) -> Vec<u8> {
    let r = served.get(path);
    assert_eq!(
        r.status,
        200,
        "{name}: GET {path}: {} / {}",
        String::from_utf8_lossy(&r.body),
        served.stderr()
    );
    assert!(
        r.complete,
        "{name}: GET {path}: body aborted: {}",
        served.stderr()
    );
    r.body
}

/// The `error` of a 400 answer to `GET path`.
fn refused(served: &Served, path: &str, name: &str) -> String {
    let r = served.get(path);
    assert_eq!(
        r.status,
        400,
        "{name}: GET {path}: {}",
        String::from_utf8_lossy(&r.body)
    );
    r.json()["error"].as_str().unwrap().to_string()
}

fn every_database_of(kind: ServerKind) {
    let name = kind.name();
    let seed = bitlens_testseed::seed();
    let mut rng = fastrand::Rng::with_seed(seed ^ (kind as u64).wrapping_mul(0x9e37_79b9));
    let server = RedisServer::start_kind(kind, &[]);
    let keys = fill(&server, &mut rng);
    let mut live = server.raw_connection();
    let non_empty: BTreeSet<u64> = keys.iter().map(|k| k.db).collect();

    // Everything: every non-empty database, with the counts the server's SAVE writes.
    let served = Served::start(&["--redis", &server.url()]);
    let info = served.get("/api/info").json();
    assert_eq!(info["db"], serde_json::Value::Null, "{name}: {info}");
    assert_eq!(info["databases"], info_keyspace(&server), "{name}: {info}");
    let all = get_ok(&served, "/api/snapshot", name);
    let every: BTreeSet<u64> = (0..DATABASES).collect();
    compare(name, "export", &all, &mut live, &keys, &every);
    let saved = server.save_rdb();
    assert_eq!(
        resize_counts(&all),
        resize_counts(&saved),
        "{name}: RESIZEDB key counts of the export and of the server's SAVE"
    );
    for db in &non_empty {
        let n = server.cli_output_in(*db as u32, &[b"DBSIZE"]);
        let mut s = Session::from_snapshot(
            bitlens::rdb::load_rdb(&all, &Default::default()).unwrap(),
            None,
            Clock::Snapshot,
        );
        s.select(*db).unwrap();
        let got = match s.execute(&argv(&[b"DBSIZE"])) {
            bitlens::Reply::Integer(n) => format!("{n}\n"),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            got,
            String::from_utf8_lossy(&n),
            "{name}: redis-cli -n {db} DBSIZE"
        );
    }

    // Narrowed by the request (`db=`), one database at a time; `/api/keys?db=` lists it.
    let pick = *non_empty.iter().nth(rng.usize(0..non_empty.len())).unwrap();
    for db in [pick, 2] {
        let one = get_ok(&served, &format!("/api/snapshot?db={db}"), name);
        compare(
            name,
            &format!("db={db}"),
            &one,
            &mut live,
            &keys,
            &[db].into(),
        );
        let rows = served.get(&format!("/api/keys?db={db}")).json();
        let mut listed: Vec<String> = rows
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["key"].as_str().unwrap().to_string())
            .collect();
        listed.sort();
        let mut c = server.connection();
        let _: () = redis::cmd("SELECT").arg(db).query(&mut c).unwrap();
        let mut want: Vec<String> = redis::cmd("KEYS").arg("*").query(&mut c).unwrap();
        want.sort();
        assert_eq!(listed, want, "{name}: /api/keys?db={db}");
    }
    // A database the server does not have.
    let e = refused(&served, "/api/snapshot?db=16", name);
    assert!(e.contains("db=16: no such database"), "{name}: {e}");
    refused(&served, "/api/keys?db=x", name);
    drop(served);

    // Narrowed by the URL (`/15`) and by --db: that database only, db= another one is a 400.
    let url15 = format!("redis://127.0.0.1:{}/15", server.port);
    for args in [
        vec!["--redis", &url15],
        vec!["--redis", &server.url(), "--db", "15"],
    ] {
        let served = Served::start(&args);
        assert_eq!(served.get("/api/info").json()["db"], 15, "{name}: {args:?}");
        let one = get_ok(&served, "/api/snapshot", name);
        compare(
            name,
            &format!("{args:?}"),
            &one,
            &mut live,
            &keys,
            &[15].into(),
        );
        let same = get_ok(&served, "/api/snapshot?db=15", name);
        compare(name, "db=15 of /15", &same, &mut live, &keys, &[15].into());
        let e = refused(&served, "/api/snapshot?db=2", name);
        assert!(e.contains("exports database 15 only"), "{name}: {e}");
        let keys15 = served.get("/api/keys").json();
        assert_eq!(
            keys15.as_array().unwrap().len().to_string() + "\n",
            String::from_utf8_lossy(&server.cli_output_in(15, &[b"DBSIZE"])),
            "{name}: /api/keys of /15"
        );
    }
    // The URL and --db disagreeing stop start-up.
    let out = bitlens(
        &[
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--redis",
            &url15,
            "--db",
            "2",
        ],
        b"",
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("names database 15 but --db says 2"), "{err}");
}

#[test]
fn every_database_of_redis_6_0() {
    every_database_of(ServerKind::Redis6_0);
}

#[test]
fn every_database_of_redis_6_2() {
    every_database_of(ServerKind::Redis6_2);
}

#[test]
fn every_database_of_redis_7_0() {
    every_database_of(ServerKind::Redis7_0);
}

#[test]
fn every_database_of_redis_7_4() {
    every_database_of(ServerKind::Redis7_4);
}

#[test]
fn every_database_of_valkey_8_1() {
    every_database_of(ServerKind::Valkey8_1);
}

#[test]
fn every_database_of_valkey_9_1() {
    every_database_of(ServerKind::Valkey9_1);
}

#[test]
fn every_database_of_redis_8_0() {
    every_database_of(ServerKind::Redis8_0);
}

#[test]
fn every_database_of_valkey_8_1_1() {
    every_database_of(ServerKind::Valkey8_1_1);
}
