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
use bitlens_difftest::{seed_from_env, RedisServer, ServerKind};

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
    let seed = seed_from_env("SCORE_DIFF_SEED");
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
