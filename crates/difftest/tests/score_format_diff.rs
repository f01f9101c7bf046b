//! Differential test of score printing: thousands of doubles are written with ZADD into each
//! installed server (random finite bit patterns, decimal-looking values such as
//! 60004.29260604511 and 227.2205495124593, tiny/huge exponents, subnormals, integers near
//! 2^53 and 2^62, negative zero), the server SAVEs, and bitlens (the writer's default profile,
//! on the saved file) must answer `ZSCORE` for every member with the server's exact bytes.
//! Redis 7.0.15 prints `%.17g`; Redis 7.4.1 and Valkey 8.1.8 / 9.1.2 print fpconv's Grisu2
//! digits, which are sometimes one digit longer than the shortest round-trip digits (the
//! count of such members is printed: what a shortest-digits printer would get wrong).
//! Set `BITLENS_SEED` to replay a run.

use bitlens::rdb::{load_rdb, LoadOptions};
use bitlens::session::{Clock, Session};
use bitlens_difftest::{RedisServer, ServerKind};

/// The doubles to write: random bit patterns (finite), decimal-looking values, edge cases.
fn doubles(seed: u64) -> Vec<f64> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut v = vec![
        60004.29260604511,
        227.2205495124593,
        -0.0,
        0.0,
        1.618,
        0.1,
        5e-324,
        -5e-324,
        2.2250738585072014e-308,
        2.225073858507201e-308,
        f64::MAX,
        f64::MIN,
        f64::EPSILON,
        1e23,
        9007199254740993.0,
        4611686018427387904.0,
        -4611686018427387904.0,
        4611686018427388928.0,
    ];
    for _ in 0..3000 {
        let x = f64::from_bits(rng.u64(..));
        if x.is_finite() {
            v.push(x);
        }
    }
    for _ in 0..1500 {
        // A decimal with 1-17 significant digits and a moderate exponent.
        let digits = rng.u64(1..=99_999_999_999_999_999);
        let e = rng.i32(-20..=20);
        let s = format!("{}{digits}e{e}", if rng.bool() { "-" } else { "" });
        v.push(s.parse().unwrap());
    }
    for _ in 0..300 {
        // Tiny and huge exponents.
        let m = rng.f64() + 1.0;
        let e = if rng.bool() {
            rng.i32(-323..=-290)
        } else {
            rng.i32(290..=307)
        };
        v.push(format!("{m}e{e}").parse().unwrap());
    }
    for base in [2f64.powi(53), 2f64.powi(62), 2f64.powi(63)] {
        for _ in 0..40 {
            let x = f64::from_bits(base.to_bits().wrapping_add(rng.u64(0..8)) - 4);
            v.push(if rng.bool() { x } else { -x });
            v.push(x + 0.5);
        }
    }
    v
}

/// The shortest round-trip digits of `x` (as Rust's `{:e}` prints them), trailing zeros off.
fn shortest_digits(x: f64) -> String {
    let s = format!("{:e}", x.abs());
    s.split('e')
        .next()
        .unwrap_or("")
        .chars()
        .filter(char::is_ascii_digit)
        .collect::<String>()
        .trim_end_matches('0')
        .to_string()
}

/// The digits of a server reply such as `$21\r\n6.0004292606045106e+4\r\n`.
fn reply_digits(resp: &[u8]) -> String {
    let s = String::from_utf8_lossy(resp);
    let body = s.split("\r\n").nth(1).unwrap_or("");
    let mant = body.split('e').next().unwrap_or("");
    let d: String = mant.chars().filter(char::is_ascii_digit).collect();
    d.trim_start_matches('0').trim_end_matches('0').to_string()
}

#[test]
fn zscore_bytes_match_every_server() {
    let seed = bitlens_testseed::seed();
    let values = doubles(seed);
    let kinds = [
        ServerKind::Redis7_0,
        ServerKind::Redis7_4,
        ServerKind::Valkey8_1,
        ServerKind::Valkey9_1,
    ];
    let mut tested = 0;
    let mut failures = Vec::new();
    for kind in kinds {
        if !kind.available() {
            eprintln!("{}: not installed, skipped", kind.name());
            continue;
        }
        tested += 1;
        let server = RedisServer::start_kind(kind, &[]);
        let mut c = server.raw_connection();
        let mut members = Vec::new();
        let mut rejected = 0;
        for (i, x) in values.iter().enumerate() {
            // The big key is a skiplist (binary doubles in the file); the first 100 members
            // also go to a small listpack key (scores stored as strings).
            let member = format!("m{i}").into_bytes();
            let score = format!("{x:e}").into_bytes();
            let r = c.query(&[
                b"ZADD".to_vec(),
                b"zq".to_vec(),
                score.clone(),
                member.clone(),
            ]);
            if r != b":1\r\n" {
                rejected += 1;
                continue;
            }
            if members.len() < 100 {
                c.query(&[b"ZADD".to_vec(), b"zs".to_vec(), score, member.clone()]);
            }
            members.push((*x, member));
        }
        let file = server.save_rdb();
        let snap = load_rdb(&file, &LoadOptions::default()).expect("load the saved file");
        let mut s = Session::from_snapshot(snap, None, Clock::Snapshot);
        let mut mismatches = 0;
        let mut longer_than_shortest = 0;
        for (n, (x, member)) in members.iter().enumerate() {
            for key in [&b"zq"[..], &b"zs"[..]] {
                if key == b"zs" && n >= 100 {
                    continue;
                }
                let argv = vec![b"ZSCORE".to_vec(), key.to_vec(), member.clone()];
                let want = c.query(&argv);
                let got = s.execute(&argv).to_resp();
                let plain_integer = x.fract() == 0.0 && x.abs() <= 2f64.powi(62);
                if key == b"zq" && !plain_integer && reply_digits(&want) != shortest_digits(*x) {
                    longer_than_shortest += 1;
                }
                if want != got {
                    mismatches += 1;
                    if failures.len() < 20 {
                        failures.push(format!(
                            "{} ZSCORE {} for {x:e} (bits {:#x}): server {:?}, bitlens {:?}",
                            kind.name(),
                            String::from_utf8_lossy(key),
                            x.to_bits(),
                            String::from_utf8_lossy(&want),
                            String::from_utf8_lossy(&got)
                        ));
                    }
                }
            }
        }
        println!(
            "{}: {} members ({rejected} rejected by ZADD), {mismatches} mismatches, \
             {longer_than_shortest} non-integral scores printed with digits other than the shortest",
            kind.name(),
            members.len()
        );
        assert!(members.len() > 4000, "{}: too few members", kind.name());
        if kind != ServerKind::Redis7_0 {
            // 60004.29260604511 and 227.2205495124593 at least (recorded one digit longer).
            assert!(
                longer_than_shortest >= 2,
                "{}: Grisu2's longer digits not exercised",
                kind.name()
            );
        }
    }
    assert!(
        tested >= 2,
        "fewer than two servers installed: set BITLENS_SERVERS_DIR"
    );
    assert!(failures.is_empty(), "seed {seed}:\n{}", failures.join("\n"));
}

/// A `-0` score after a load, on all six servers: sorted sets written by bitlens' RDB writer
/// (skiplist records, RDB_TYPE_ZSET_2: two members, the loader converts them to a listpack;
/// 200 members and a 100-byte member, which stay skiplists) and, from Redis 6.2.14 (ZADD -0
/// there keeps the text `-0`), a ziplist (DUMP of a small set) and a small skiplist record (a
/// set grown past 128 members, then cut back to two with ZREMRANGEBYRANK), copied into each
/// server's file format. Each server loads the file; ZSCORE, ZMSCORE, ZRANGE WITHSCORES,
/// ZRANGEBYSCORE WITHSCORES, ZSCAN (of listpacks) and ZRANK WITHSCORE (where the server has them) must match
/// bitlens under that server's profile byte for byte. Redis 7.0+ and Valkey print the small
/// skiplist record's `-0` as `0` (their listpack stores it as integer 0); 6.x prints `-0`.
#[test]
fn negative_zero_after_load_matches_every_server() {
    use bitlens::dialect::Profile;
    use bitlens::rdb::{Format, RdbWriter};
    use bitlens::zset::ZSet;
    let w = |s: &str| s.as_bytes().to_vec();
    // From Redis 6.2.14: a ziplist holding "-0" and a small skiplist record holding -0.
    let mut payloads = Vec::new();
    if ServerKind::Redis6_2.available() {
        let server = RedisServer::start_kind(ServerKind::Redis6_2, &[]);
        let mut c = server.raw_connection();
        c.query(&[w("ZADD"), w("zl"), w("-0"), w("m"), w("1"), w("n")]);
        let mut big = vec![w("ZADD"), w("sk"), w("-0"), w("m")];
        for i in 0..200 {
            big.extend([
                format!("{}", i + 1).into_bytes(),
                format!("x{i}").into_bytes(),
            ]);
        }
        c.query(&big);
        c.query(&[w("ZREMRANGEBYRANK"), w("sk"), w("2"), w("-1")]);
        assert_eq!(
            c.query(&[w("OBJECT"), w("ENCODING"), w("sk")]),
            b"$8\r\nskiplist\r\n"
        );
        for key in ["zl", "sk"] {
            let d = c.query(&[w("DUMP"), w(key)]);
            let body = d[d.iter().position(|&b| b == b'\n').unwrap() + 1..d.len() - 2].to_vec();
            payloads.push((format!("r62:{key}"), body));
        }
    } else {
        eprintln!("redis-6.2.14 not installed: its ziplist and skiplist payloads are skipped");
    }
    let pairs = |n: usize, long: bool| {
        let mut v = vec![(w("m"), -0.0), (w("n"), 1.0)];
        if long {
            v.push((vec![b'L'; 100], 2.0));
        }
        v.extend((2..n).map(|i| (format!("x{i}").into_bytes(), i as f64)));
        ZSet::from_pairs(v)
    };
    let sets = [
        ("w:small", pairs(2, false)),
        ("w:big", pairs(200, false)),
        ("w:long", pairs(2, true)),
    ];
    let mut tested = 0;
    let mut failures = Vec::new();
    for kind in ServerKind::ALL {
        if !kind.available() {
            eprintln!("{}: not installed, skipped", kind.name());
            continue;
        }
        tested += 1;
        let format = Format::from_magic(kind.rdb_magic()).unwrap();
        let mut wr = RdbWriter::with_format(Vec::new(), format, kind.version().as_bytes()).unwrap();
        wr.select_db(0).unwrap();
        let mut keys = Vec::new();
        for (k, z) in &sets {
            wr.write_zset(k.as_bytes(), z, None).unwrap();
            keys.push(k.to_string());
        }
        for (k, p) in &payloads {
            wr.write_dump_payload(k.as_bytes(), p, None).unwrap();
            keys.push(k.clone());
        }
        let file = wr.finish().unwrap();
        let server = RedisServer::start_kind_loading(kind, &file, &[]);
        let mut c = server.raw_connection();
        let profile = Profile::from_name(kind.profile_name()).unwrap();
        let snap = load_rdb(&file, &LoadOptions::default()).expect("load");
        let mut ks = snap.databases[&0].clone();
        let mut reads = 0;
        for k in &keys {
            let k = k.as_bytes();
            let mut argvs = vec![
                vec![w("ZSCORE"), k.to_vec(), w("m")],
                vec![w("ZRANGE"), k.to_vec(), w("0"), w("1"), w("WITHSCORES")],
                vec![
                    w("ZRANGEBYSCORE"),
                    k.to_vec(),
                    w("-1"),
                    w("0"),
                    w("WITHSCORES"),
                ],
            ];
            // ZSCAN in order only over listpacks (a skiplist's follows its hash table).
            if !k.starts_with(b"w:big") && !k.starts_with(b"w:long") {
                argvs.push(vec![w("ZSCAN"), k.to_vec(), w("0"), w("COUNT"), w("1000")]);
            }
            if profile.has_command("zmscore") {
                argvs.push(vec![w("ZMSCORE"), k.to_vec(), w("n"), w("m")]);
            }
            if profile.zrank_withscore {
                argvs.push(vec![w("ZRANK"), k.to_vec(), w("m"), w("WITHSCORE")]);
            }
            for argv in argvs {
                reads += 1;
                let want = c.query(&argv);
                let got = bitlens::command::execute_in(
                    &mut bitlens::command::Ctx::single(&mut ks, profile),
                    &argv,
                )
                .to_resp();
                if want != got {
                    failures.push(format!(
                        "{} {:?}: server {:?}, bitlens {:?}",
                        kind.name(),
                        argv.iter()
                            .map(|a| String::from_utf8_lossy(a).into_owned())
                            .collect::<Vec<_>>(),
                        String::from_utf8_lossy(&want[..want.len().min(300)]),
                        String::from_utf8_lossy(&got[..got.len().min(300)])
                    ));
                }
            }
        }
        // The state this test is about: the small skiplist record's -0.
        let want = if profile.zset_listpack_integer_scores {
            "0"
        } else {
            "-0"
        };
        assert_eq!(
            c.query(&[w("ZSCORE"), w("w:small"), w("m")]),
            format!("${}\r\n{want}\r\n", want.len()).into_bytes(),
            "{}",
            kind.name()
        );
        println!("{}: {reads} reads", kind.name());
    }
    assert!(
        tested >= 2,
        "fewer than two servers installed: set BITLENS_SERVERS_DIR"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
