//! Differential test of the RedisBloom read commands against Redis 7.4.1 with RedisBloom
//! 2.8.2 loaded (skipped, with a message, when the module is not installed).
//!
//! Random data is written with the module's own write commands: Bloom filters by BF.ADD /
//! BF.MADD (default filters) and BF.RESERVE with error rates from 0.5 to 1e-6, capacities 1
//! to 5,000, EXPANSION 1–4 and NONSCALING, filled past capacity so that they scale; Cuckoo
//! filters by CF.RESERVE (BUCKETSIZE, MAXITERATIONS, EXPANSION) and CF.ADD / CF.ADDNX / CF.DEL;
//! Count-Min sketches by CMS.INITBYDIM / CMS.INITBYPROB and CMS.INCRBY; Top-K by
//! TOPK.RESERVE (k, width, depth, decay) and TOPK.ADD / TOPK.INCRBY on skewed items;
//! t-digests by TDIGEST.CREATE [COMPRESSION] and TDIGEST.ADD. The server SAVEs; bitlens loads
//! the file and every read command (BF.EXISTS, BF.MEXISTS, BF.CARD, BF.INFO and its fields,
//! CF.EXISTS, CF.MEXISTS, CF.COUNT, CF.INFO, CMS.QUERY, CMS.INFO, TOPK.QUERY, TOPK.COUNT,
//! TOPK.LIST [WITHCOUNT], TOPK.INFO, TDIGEST.*) is compared byte for byte (RESP2) on random
//! probes, most of them items never added, so that false positives must match too. Each
//! key's DUMP payload must decode to the same value as the file's. `BLOOM_DIFF_SEED`
//! replays a run.
//!
//! One known gap is reported, not failed: Redis prints doubles with fpconv's Grisu2, which
//! now and then gives 17 digits where 16 read back exactly; bitlens (`format_shortest`, as for
//! ZSCORE on 7.2+) prints the shortest. Such t-digest replies are checked to hold exactly the
//! same double values and counted as `DIGITS` lines.
//!
//! Run it optimised: `cargo test -p bitlens-difftest --release --test bloom_diff -- --nocapture`.

use bitlens::command::{execute_in, Ctx};
use bitlens::dialect::Profile;
use bitlens::rdb::{load_dump, load_rdb, LoadOptions};
use bitlens_difftest::{seed_from_env, RawConnection, RedisServer};

fn cmd(parts: &[&[u8]]) -> Vec<Vec<u8>> {
    parts.iter().map(|p| p.to_vec()).collect()
}

fn s(x: impl ToString) -> Vec<u8> {
    x.to_string().into_bytes()
}

/// Item `id`: mostly `item:N`, some integers, some binary strings.
fn item(id: u64) -> Vec<u8> {
    match id % 5 {
        0 => id.to_string().into_bytes(),
        1 => id.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes()[..(id % 8 + 1) as usize].to_vec(),
        _ => format!("item:{id}").into_bytes(),
    }
}

fn show(argv: &[Vec<u8>]) -> String {
    argv.iter()
        .take(6)
        .map(|a| format!("{:?}", String::from_utf8_lossy(a)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether two RESP2 replies differ only in the digits of doubles that read back as the same
/// value (bulk lengths aside): Redis' fpconv (Grisu2) sometimes prints 17 digits where 16
/// round-trip (`227.22054951245931` for `227.2205495124593`); bitlens prints the shortest.
fn same_doubles(want: &[u8], got: &[u8]) -> bool {
    let w: Vec<&[u8]> = want.split(|&b| b == b'\n').collect();
    let g: Vec<&[u8]> = got.split(|&b| b == b'\n').collect();
    w.len() == g.len()
        && w.iter().zip(&g).all(|(a, b)| {
            a == b
                || a.first() == Some(&b'$') && b.first() == Some(&b'$')
                || match (
                    std::str::from_utf8(a)
                        .ok()
                        .and_then(|t| t.trim_end().parse::<f64>().ok()),
                    std::str::from_utf8(b)
                        .ok()
                        .and_then(|t| t.trim_end().parse::<f64>().ok()),
                ) {
                    (Some(x), Some(y)) => x == y,
                    _ => false,
                }
        })
}

fn send(raw: &mut RawConnection, argv: Vec<Vec<u8>>) -> Vec<u8> {
    raw.query(&argv)
}

#[test]
fn redisbloom_read_commands_match_the_module() {
    if std::panic::catch_unwind(bitlens_difftest::redisbloom_module).is_err() {
        eprintln!("SKIP bloom_diff: redisbloom.so is not installed (npm run setup)");
        return;
    }
    let seed = seed_from_env("BLOOM_DIFF_SEED");
    let mut rng = fastrand::Rng::with_seed(seed);
    let server = RedisServer::start_kind_with_bloom(&[]);
    let mut raw = server.raw_connection();
    let mut keys: Vec<(Vec<u8>, &str)> = Vec::new();
    let mut next_id = 0u64;
    let mut fresh = |n: u64| {
        let start = next_id;
        next_id += n;
        start..next_id
    };

    // Bloom filters.
    for k in 0..40 {
        let key = format!("bf:{k}").into_bytes();
        // bf:1 (error 0.5) always gives false positives, bf:2 always scales.
        let n_items = match k {
            1 => 300,
            2 => 1000,
            _ => [0u64, 1, 10, 100, 1000, 6000][rng.usize(..6)],
        };
        if k % 4 != 0 {
            let error = match k {
                1 => 0.5,
                2 => 0.01,
                _ => [0.5, 0.1, 0.01, 0.001, 1e-4, 1e-6][rng.usize(..6)],
            };
            let cap = match k {
                1 => 300,
                2 => 50,
                _ => [1u64, 2, 7, 50, 100, 999, 5000][rng.usize(..7)],
            };
            let mut c = cmd(&[b"BF.RESERVE", &key, &s(error), &s(cap)]);
            if k <= 2 {
            } else if rng.bool() {
                c.push(b"EXPANSION".to_vec());
                c.push(s(rng.u64(1..5)));
            } else if rng.u8(..4) == 0 {
                c.push(b"NONSCALING".to_vec());
            }
            let r = send(&mut raw, c);
            assert_eq!(r, b"+OK\r\n", "BF.RESERVE");
        }
        let ids: Vec<u64> = fresh(n_items).collect();
        for chunk in ids.chunks(500) {
            let mut c = cmd(&[b"BF.MADD", &key]);
            c.extend(chunk.iter().map(|&i| item(i)));
            send(&mut raw, c);
        }
        if n_items == 0 && k % 4 == 0 {
            send(&mut raw, cmd(&[b"BF.ADD", &key, b"only"]));
        }
        keys.push((key, "bf"));
    }
    // Cuckoo filters.
    for k in 0..15 {
        let key = format!("cf:{k}").into_bytes();
        let cap = [10u64, 20, 100, 1000][rng.usize(..4)];
        let mut c = cmd(&[b"CF.RESERVE", &key, &s(cap)]);
        if rng.bool() {
            c.extend([b"BUCKETSIZE".to_vec(), s(rng.u64(1..5))]);
        }
        if rng.bool() {
            c.extend([b"MAXITERATIONS".to_vec(), s(rng.u64(1..50))]);
        }
        if rng.bool() {
            c.extend([b"EXPANSION".to_vec(), s(rng.u64(1..4))]);
        }
        assert_eq!(send(&mut raw, c), b"+OK\r\n", "CF.RESERVE");
        let ids: Vec<u64> = fresh(rng.u64(0..3 * cap + 1)).collect();
        for &i in &ids {
            let op: &[u8] = if i % 3 == 0 { b"CF.ADDNX" } else { b"CF.ADD" };
            send(&mut raw, cmd(&[op, &key, &item(i)]));
        }
        for &i in ids.iter().step_by(7) {
            send(&mut raw, cmd(&[b"CF.DEL", &key, &item(i)]));
        }
        keys.push((key, "cf"));
    }
    // Count-Min sketches.
    for k in 0..10 {
        let key = format!("cms:{k}").into_bytes();
        let c = if k % 2 == 0 {
            cmd(&[
                b"CMS.INITBYDIM",
                &key,
                &s(rng.u64(1..500)),
                &s(rng.u64(1..8)),
            ])
        } else {
            let e = [0.1, 0.01, 0.001][rng.usize(..3)];
            let p = [0.1, 0.01, 0.001][rng.usize(..3)];
            cmd(&[b"CMS.INITBYPROB", &key, &s(e), &s(p)])
        };
        assert_eq!(send(&mut raw, c), b"+OK\r\n");
        for _ in 0..rng.usize(0..50) {
            let mut c = cmd(&[b"CMS.INCRBY", &key]);
            for _ in 0..20 {
                c.push(item(rng.u64(0..300)));
                c.push(s(rng.u64(1..100)));
            }
            send(&mut raw, c);
        }
        keys.push((key, "cms"));
    }
    // Top-K.
    for k in 0..10 {
        let key = format!("topk:{k}").into_bytes();
        let mut c = cmd(&[b"TOPK.RESERVE", &key, &s(rng.u64(1..30))]);
        if rng.bool() {
            let decay = [0.9, 0.5, 0.99, 1.0][rng.usize(..4)];
            c.extend([s(rng.u64(5..200)), s(rng.u64(1..7)), s(decay)]);
        }
        assert_eq!(send(&mut raw, c), b"+OK\r\n");
        for _ in 0..rng.usize(0..40) {
            let mut c = cmd(&[b"TOPK.ADD", &key]);
            // Skewed: small ids far more often.
            c.extend((0..30).map(|_| {
                let hi = rng.u64(1..400);
                item(rng.u64(0..hi))
            }));
            send(&mut raw, c);
        }
        if rng.bool() {
            send(
                &mut raw,
                cmd(&[b"TOPK.INCRBY", &key, &item(3), b"50", &item(7), b"5"]),
            );
        }
        keys.push((key, "topk"));
    }
    // t-digests.
    for k in 0..10 {
        let key = format!("td:{k}").into_bytes();
        let mut c = cmd(&[b"TDIGEST.CREATE", &key]);
        if rng.bool() {
            c.extend([b"COMPRESSION".to_vec(), s(rng.u64(10..500))]);
        }
        assert_eq!(send(&mut raw, c), b"+OK\r\n");
        for _ in 0..rng.usize(0..20) {
            let mut c = cmd(&[b"TDIGEST.ADD", &key]);
            let scale = rng.f64() * 1000.0;
            c.extend((0..rng.usize(1..100)).map(|_| {
                let x = (rng.f64() * rng.f64() * scale * 1000.0).round() / 1000.0;
                s(x)
            }));
            send(&mut raw, c);
        }
        keys.push((key, "td"));
    }
    send(&mut raw, cmd(&[b"SET", b"str", b"plain"]));

    let bytes = server.save_rdb();
    let snap = load_rdb(&bytes, &LoadOptions::default()).expect("bitlens loads the snapshot");
    let mut ks = snap.databases.get(&0).cloned().unwrap_or_default();
    assert_eq!(ks.len(), keys.len() + 1, "key count");

    // DUMP payloads decode to the file's values.
    for (key, _) in &keys {
        let r = send(&mut raw, cmd(&[b"DUMP", key]));
        let start = r.iter().position(|&b| b == b'\n').unwrap() + 1;
        let payload = &r[start..r.len() - 2];
        let v = load_dump(payload)
            .unwrap_or_else(|e| panic!("DUMP {}: {e}", show(std::slice::from_ref(key))));
        assert_eq!(
            Some(&v),
            ks.get(key),
            "DUMP of {:?}",
            String::from_utf8_lossy(key)
        );
    }

    let profile = Profile::from_name("redis-7.4").expect("profile");
    let mut probes: Vec<Vec<Vec<u8>>> = Vec::new();
    let probe_item = |rng: &mut fastrand::Rng| -> Vec<u8> {
        if rng.bool() {
            item(rng.u64(0..next_id.max(1)))
        } else {
            // Never added.
            format!("absent:{}", rng.u64(..)).into_bytes()
        }
    };
    let all_keys: Vec<Vec<u8>> = keys
        .iter()
        .map(|(k, _)| k.clone())
        .chain([b"str".to_vec(), b"missing".to_vec()])
        .collect();
    for _ in 0..6000 {
        let fam = ["bf", "cf", "cms", "topk", "td"][rng.usize(..5)];
        let own: Vec<&Vec<u8>> = keys
            .iter()
            .filter(|(_, f)| *f == fam)
            .map(|(k, _)| k)
            .collect();
        // Mostly a key of the family the command is drawn from, sometimes any key.
        let key = if rng.u8(..5) > 0 {
            own[rng.usize(..own.len())].clone()
        } else {
            all_keys[rng.usize(..all_keys.len())].clone()
        };
        let items: Vec<Vec<u8>> = (0..rng.usize(1..6)).map(|_| probe_item(&mut rng)).collect();
        let mut with = |name: &[u8], rest: Vec<Vec<u8>>| {
            let mut c = vec![name.to_vec(), key.clone()];
            c.extend(rest);
            probes.push(c);
        };
        let pick = match fam {
            "bf" => rng.u8(0..8),
            "cf" => rng.u8(8..13),
            "cms" => rng.u8(13..15),
            "topk" => rng.u8(15..19),
            _ => rng.u8(19..22),
        };
        match pick {
            0..=3 => with(b"BF.EXISTS", vec![items[0].clone()]),
            4..=5 => with(b"BF.MEXISTS", items),
            6 => with(b"BF.CARD", vec![]),
            7 => {
                let f = [
                    &b"CAPACITY"[..],
                    b"SIZE",
                    b"FILTERS",
                    b"ITEMS",
                    b"EXPANSION",
                    b"x",
                ];
                if rng.bool() {
                    with(b"BF.INFO", vec![])
                } else {
                    with(b"BF.INFO", vec![f[rng.usize(..f.len())].to_vec()])
                }
            }
            8..=9 => with(b"CF.EXISTS", vec![items[0].clone()]),
            10 => with(b"CF.MEXISTS", items),
            11 => with(b"CF.COUNT", vec![items[0].clone()]),
            12 => with(b"CF.INFO", vec![]),
            13 => with(b"CMS.QUERY", items),
            14 => with(b"CMS.INFO", vec![]),
            15 => with(b"TOPK.QUERY", items),
            16 => with(b"TOPK.COUNT", items),
            17 => with(
                b"TOPK.LIST",
                if rng.bool() {
                    vec![b"WITHCOUNT".to_vec()]
                } else {
                    vec![]
                },
            ),
            18 => with(b"TOPK.INFO", vec![]),
            19 => {
                let qs: Vec<Vec<u8>> = (0..rng.usize(1..6))
                    .map(|_| s((rng.f64() * 1000.0).round() / 1000.0))
                    .collect();
                with(
                    [&b"TDIGEST.QUANTILE"[..], b"TDIGEST.CDF"][rng.usize(..2)],
                    qs,
                )
            }
            20 => {
                let vs: Vec<Vec<u8>> = (0..rng.usize(1..6)).map(|_| s(rng.u64(0..2000))).collect();
                let c = [
                    &b"TDIGEST.RANK"[..],
                    b"TDIGEST.REVRANK",
                    b"TDIGEST.BYRANK",
                    b"TDIGEST.BYREVRANK",
                ];
                with(c[rng.usize(..4)], vs)
            }
            _ => {
                let c = [&b"TDIGEST.MIN"[..], b"TDIGEST.MAX", b"TDIGEST.INFO"];
                if rng.bool() {
                    with(c[rng.usize(..3)], vec![])
                } else {
                    let lo = (rng.f64() * 0.5 * 100.0).round() / 100.0;
                    let hi = 0.5 + (rng.f64() * 0.5 * 100.0).round() / 100.0;
                    with(b"TDIGEST.TRIMMED_MEAN", vec![s(lo), s(hi)])
                }
            }
        }
    }
    let mut failures = 0;
    let mut positives = 0;
    let mut false_positives = 0;
    let mut digit_forms = 0;
    for p in &probes {
        let want = send(&mut raw, p.clone());
        let got = execute_in(&mut Ctx::single(&mut ks, profile), p).to_resp();
        if p[0] == b"BF.EXISTS" && want == b":1\r\n" {
            positives += 1;
            if p[2].starts_with(b"absent:") {
                false_positives += 1;
            }
        }
        if want != got && p[0].starts_with(b"TDIGEST") && same_doubles(&want, &got) {
            digit_forms += 1;
            eprintln!(
                "DIGITS {}\n  want {:?}\n  got  {:?}",
                show(p),
                String::from_utf8_lossy(&want),
                String::from_utf8_lossy(&got)
            );
        } else if want != got {
            failures += 1;
            if failures <= 20 {
                eprintln!(
                    "MISMATCH {}\n  want {:?}\n  got  {:?}",
                    show(p),
                    String::from_utf8_lossy(&want),
                    String::from_utf8_lossy(&got)
                );
            }
        }
    }
    let scaled = ks
        .iter()
        .filter(|(_, e)| match &e.value {
            bitlens::Value::Module(m) => {
                matches!(&m.data, bitlens::probabilistic::ModuleData::Bloom(b) if b.links.len() > 1)
            }
            _ => false,
        })
        .count();
    println!(
        "{} probes, {failures} mismatches, {positives} BF.EXISTS positives \
         ({false_positives} on items never added), {scaled} scaled Bloom filters, \
         {digit_forms} t-digest replies equal in value but not in digits (Grisu2)",
        probes.len()
    );
    assert!(false_positives > 0, "no false positive was exercised");
    assert!(scaled > 0, "no Bloom filter scaled");
    assert_eq!(
        failures,
        0,
        "BLOOM_DIFF_SEED={seed}: {failures} of {} probes differ",
        probes.len()
    );
}
