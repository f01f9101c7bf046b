//! The RDB writer against real Redis 7: files written by `RdbWriter` pass `redis-check-rdb` and
//! load into `redis-server` with the same values; real DUMP payloads of every type decode with
//! `load_dump`, and copied through `write_dump_payload` they load back into Redis unchanged.

use std::path::{Path, PathBuf};
use std::process::Command;

use bitlens::keyspace::Value;
use bitlens::rdb::{load_dump, load_rdb, LoadOptions, RdbWriter};
use bitlens::zset::ZSet;
use bitlens_difftest::RedisServer;

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bitlens-rdbw-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn check_rdb(path: &Path) {
    let out = Command::new("redis-check-rdb")
        .arg(path)
        .output()
        .expect("redis-check-rdb (Debian redis-tools) must be installed");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && text.contains("RDB looks OK"),
        "{text}"
    );
}

fn q(conn: &mut redis::Connection, args: &[&[u8]]) -> redis::Value {
    let mut c = redis::cmd(std::str::from_utf8(args[0]).unwrap());
    for a in &args[1..] {
        c.arg(*a);
    }
    c.query(conn).unwrap()
}

fn bulk(v: redis::Value) -> Vec<u8> {
    match v {
        redis::Value::BulkString(b) => b,
        other => panic!("{other:?}"),
    }
}

fn zrange(conn: &mut redis::Connection, key: &[u8]) -> Vec<(Vec<u8>, f64)> {
    match q(conn, &[b"ZRANGE", key, b"0", b"-1", b"WITHSCORES"]) {
        redis::Value::Array(a) => a
            .chunks(2)
            .map(|p| {
                let m = bulk(p[0].clone());
                let s = String::from_utf8(bulk(p[1].clone())).unwrap();
                let s = match s.as_str() {
                    "inf" => f64::INFINITY,
                    "-inf" => f64::NEG_INFINITY,
                    t => t.parse().unwrap(),
                };
                (m, s)
            })
            .collect(),
        other => panic!("{other:?}"),
    }
}

/// (database, key, value, absolute expiry in ms)
type StringKey = (u64, Vec<u8>, Vec<u8>, Option<i64>);

#[test]
fn written_file_passes_redis_check_rdb_and_loads_into_redis() {
    let dir = tmpdir("w");
    let path = dir.join("dump.rdb");
    let far = 4_102_444_800_000i64; // 2100-01-01, so Redis keeps the key
    let mut strings: Vec<StringKey> = vec![
        (0, b"s:short".to_vec(), b"hello".to_vec(), None),
        (0, b"s:int".to_vec(), b"-2147483648".to_vec(), Some(far)),
        (0, b"s:i8".to_vec(), b"7".to_vec(), None),
        (0, b"s:notint".to_vec(), b"0123".to_vec(), None),
        (0, b"s:empty".to_vec(), Vec::new(), None),
        (
            0,
            b"s:bitmap".to_vec(),
            {
                let mut v = vec![0u8; 100_000];
                for i in (0..v.len()).step_by(997) {
                    v[i] = 0x81;
                }
                v
            },
            None,
        ),
        (2, b"s:db2".to_vec(), (0..=255u8).collect(), Some(far + 1)),
        // -1 ms is rdbLoad's "no expiry" sentinel: the key loads without one (helper-20).
        (0, b"s:minus1".to_vec(), b"x".to_vec(), Some(-1)),
    ];
    strings.push((0, b"s:long".to_vec(), b"abc".repeat(1000), None));
    let zsets: Vec<(u64, Vec<u8>, ZSet)> = vec![
        (
            0,
            b"z:small".to_vec(),
            ZSet::from_pairs(vec![
                (b"a".to_vec(), 1.5),
                (b"b".to_vec(), f64::NEG_INFINITY),
                (b"c".to_vec(), f64::INFINITY),
                (b"d".to_vec(), -0.1),
            ]),
        ),
        (
            2,
            b"z:big".to_vec(),
            ZSet::from_pairs((0..500).map(|i| (format!("m{i}").into_bytes(), i as f64 * 0.25))),
        ),
    ];
    {
        let f = std::fs::File::create(&path).unwrap();
        let mut w = RdbWriter::new(std::io::BufWriter::new(f), 10).unwrap();
        for db in [0u64, 2] {
            w.select_db(db).unwrap();
            for (d, k, v, e) in &strings {
                if *d == db {
                    w.write_string(k, v, *e).unwrap();
                }
            }
            for (d, k, z) in &zsets {
                if *d == db {
                    w.write_zset(k, z, None).unwrap();
                }
            }
        }
        w.finish().unwrap();
    }
    check_rdb(&path);
    let bytes = std::fs::read(&path).unwrap();
    let snap = load_rdb(&bytes, &LoadOptions::default()).unwrap();
    for db in [0u64, 2] {
        let n = strings.iter().filter(|s| s.0 == db).count()
            + zsets.iter().filter(|z| z.0 == db).count();
        assert_eq!(snap.databases[&db].len(), n);
    }
    let minus1 = snap.databases[&0].entry_any(b"s:minus1").unwrap();
    assert_eq!(minus1.expire_at_ms, None, "stored expiry -1 is none");

    let server = RedisServer::start(&["--dir", dir.to_str().unwrap(), "--dbfilename", "dump.rdb"]);
    let mut conn = server.connection();
    for db in [0u64, 2] {
        q(&mut conn, &[b"SELECT", db.to_string().as_bytes()]);
        for (d, k, v, e) in &strings {
            if *d != db {
                continue;
            }
            assert_eq!(
                &bulk(q(&mut conn, &[b"GET", k])),
                v,
                "{:?}",
                String::from_utf8_lossy(k)
            );
            let pexp = q(&mut conn, &[b"PEXPIRETIME", k]);
            assert_eq!(pexp, redis::Value::Int(e.unwrap_or(-1)));
        }
        for (d, k, z) in &zsets {
            if *d != db {
                continue;
            }
            let want: Vec<(Vec<u8>, f64)> = z.iter().map(|(m, s)| (m.to_vec(), s)).collect();
            assert_eq!(zrange(&mut conn, k), want);
        }
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn real_dump_payloads_decode_and_copy_back_into_redis() {
    let src = RedisServer::start(&[]);
    let mut c = src.connection();
    let setup: &[&[&[u8]]] = &[
        &[b"SET", b"str", b"hello"],
        &[b"SET", b"int", b"12345"],
        &[b"SETBIT", b"bm", b"100000", b"1"],
        &[b"PFADD", b"hll", b"a", b"b", b"c"],
        &[b"RPUSH", b"list", b"a", b"1", b"b"],
        &[b"SADD", b"iset", b"1", b"2", b"3"],
        &[b"SADD", b"set", b"x", b"y"],
        &[b"HSET", b"hash", b"f", b"v", b"g", b"2"],
        &[b"ZADD", b"zs", b"1.5", b"a", b"2", b"b", b"-3", b"c"],
        &[b"GEOADD", b"geo", b"13.361389", b"38.115556", b"Palermo"],
        &[b"XADD", b"stream", b"1-1", b"f", b"v"],
        &[b"XGROUP", b"CREATE", b"stream", b"g", b"0"],
        &[
            b"XREADGROUP",
            b"GROUP",
            b"g",
            b"c1",
            b"COUNT",
            b"1",
            b"STREAMS",
            b"stream",
            b">",
        ],
    ];
    for cmd in setup {
        q(&mut c, cmd);
    }
    // Large encodings: hashtable set/hash, skiplist zset, quicklist with several nodes.
    for i in 0..300 {
        let m = format!("member-{i}");
        q(&mut c, &[b"SADD", b"bigset", m.as_bytes()]);
        q(&mut c, &[b"HSET", b"bighash", m.as_bytes(), b"v"]);
        q(
            &mut c,
            &[b"ZADD", b"bigzs", i.to_string().as_bytes(), m.as_bytes()],
        );
        q(&mut c, &[b"RPUSH", b"biglist", m.repeat(20).as_bytes()]);
    }
    let keys: Vec<&[u8]> = vec![
        b"str", b"int", b"bm", b"hll", b"list", b"iset", b"set", b"hash", b"zs", b"geo", b"stream",
        b"bigset", b"bighash", b"bigzs", b"biglist",
    ];
    let dir = tmpdir("d");
    let path = dir.join("dump.rdb");
    let f = std::fs::File::create(&path).unwrap();
    let mut w = RdbWriter::new(std::io::BufWriter::new(f), 10).unwrap();
    w.select_db(0).unwrap();
    for k in &keys {
        let payload = bulk(q(&mut c, &[b"DUMP", k]));
        let v =
            load_dump(&payload).unwrap_or_else(|e| panic!("{}: {e}", String::from_utf8_lossy(k)));
        let ty = match q(&mut c, &[b"TYPE", k]) {
            redis::Value::SimpleString(s) => s,
            other => panic!("{other:?}"),
        };
        assert_eq!(v.redis_type().name(), ty, "{}", String::from_utf8_lossy(k));
        match &v {
            Value::String(s) => {
                assert_eq!(s.as_bytes().into_owned(), bulk(q(&mut c, &[b"GET", k])))
            }
            Value::ZSet(z) => {
                let want = zrange(&mut c, k);
                let got: Vec<(Vec<u8>, f64)> = z.iter().map(|(m, s)| (m.to_vec(), s)).collect();
                assert_eq!(got, want);
            }
            Value::List(_)
            | Value::Set(_)
            | Value::Hash(_)
            | Value::Stream(_)
            | Value::Module(_)
            | Value::Other(_) => {}
        }
        // A flipped byte is caught by the CRC.
        let mut bad = payload.clone();
        bad[1] ^= 0x20;
        assert!(load_dump(&bad).is_err());
        w.write_dump_payload(k, &payload, None).unwrap();
    }
    w.finish().unwrap();
    check_rdb(&path);
    let dst = RedisServer::start(&["--dir", dir.to_str().unwrap(), "--dbfilename", "dump.rdb"]);
    let mut d = dst.connection();
    for k in &keys {
        let name = String::from_utf8_lossy(k);
        // Hashtable-encoded sets and hashes are re-hashed on load, so their DUMP order may
        // change: compare their sorted contents instead.
        let unordered: &[(&[u8], &[u8])] = &[
            (b"set", b"SMEMBERS"),
            (b"bigset", b"SMEMBERS"),
            (b"bighash", b"HGETALL"),
        ];
        if let Some((_, cmd)) = unordered.iter().find(|(n, _)| n == k) {
            let sorted = |v: redis::Value| match v {
                redis::Value::Array(a) => {
                    let mut a: Vec<Vec<u8>> = a.into_iter().map(bulk).collect();
                    a.sort();
                    a
                }
                other => panic!("{other:?}"),
            };
            assert_eq!(
                sorted(q(&mut d, &[cmd, k])),
                sorted(q(&mut c, &[cmd, k])),
                "{name}"
            );
            assert!(!sorted(q(&mut d, &[cmd, k])).is_empty());
        } else {
            assert_eq!(q(&mut d, &[b"DUMP", k]), q(&mut c, &[b"DUMP", k]), "{name}");
        }
    }
    drop(dst);
    let _ = std::fs::remove_dir_all(&dir);
}
