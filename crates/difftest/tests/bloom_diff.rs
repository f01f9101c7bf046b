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
//! key's DUMP payload must decode to the same value as the file's. `BITLENS_SEED`
//! replays a run.
//!
//! Doubles are compared as printed: Redis prints them with fpconv's Grisu2 (17 digits now and
//! then where 16 read back exactly), and so does bitlens (`src/fpconv.rs`), so a reply whose
//! digits differ is a failure like any other.
//!
//! Run it optimised: `cargo test -p bitlens-difftest --release --test bloom_diff -- --nocapture`.

use bitlens::command::{execute_in, Ctx};
use bitlens::dialect::Profile;
use bitlens::rdb::{load_dump, load_rdb, LoadOptions};
use bitlens_difftest::{RawConnection, RedisServer};

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

fn send(raw: &mut RawConnection, argv: Vec<Vec<u8>>) -> Vec<u8> {
    raw.query(&argv)
}

/// The seed (`BITLENS_SEED`), its generator, a fresh redis-server with RedisBloom and a
/// connection to it; `None` (with a SKIP line) when the module is not installed.
fn start() -> Option<(u64, fastrand::Rng, RedisServer, RawConnection)> {
    if std::panic::catch_unwind(bitlens_difftest::redisbloom_module).is_err() {
        eprintln!("SKIP bloom_diff: redisbloom.so is not installed (npm run setup)");
        return None;
    }
    let seed = bitlens_testseed::seed();
    let server = RedisServer::start_kind_with_bloom(&[]);
    let raw = server.raw_connection();
    Some((seed, fastrand::Rng::with_seed(seed), server, raw))
}

#[test]
fn redisbloom_read_commands_match_the_module() {
    let Some((seed, mut rng, server, mut raw)) = start() else {
        return;
    };
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
    for p in &probes {
        let want = send(&mut raw, p.clone());
        let got = execute_in(&mut Ctx::single(&mut ks, profile), p).to_resp();
        if p[0] == b"BF.EXISTS" && want == b":1\r\n" {
            positives += 1;
            if p[2].starts_with(b"absent:") {
                false_positives += 1;
            }
        }
        if want != got {
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
         ({false_positives} on items never added), {scaled} scaled Bloom filters",
        probes.len()
    );
    assert!(false_positives > 0, "no false positive was exercised");
    assert!(scaled > 0, "no Bloom filter scaled");
    assert_eq!(
        failures,
        0,
        "BITLENS_SEED={seed}: {failures} of {} probes differ",
        probes.len()
    );
}

/// The Top-K under `key` in bitlens' keyspace, if any.
fn topk_of<'a>(
    ks: &'a bitlens::Keyspace,
    key: &[u8],
) -> Option<&'a bitlens::probabilistic::topk::TopK> {
    match ks.get(key) {
        Some(bitlens::Value::Module(m)) => match &m.data {
            bitlens::probabilistic::ModuleData::TopK(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// Whether running the Top-K write `argv` on bitlens' copy makes a decay draw (then the
/// module's `rand()` decides, and the result can no longer be compared exactly).
fn topk_draws(ks: &bitlens::Keyspace, argv: &[Vec<u8>]) -> bool {
    let Some(t) = topk_of(ks, &argv[1]) else {
        return false;
    };
    if t.decay == 1.0 {
        // Every draw decays (unless `rand()` returns RAND_MAX exactly, a 2^-31 chance).
        return false;
    }
    let mut t = t.clone();
    let adds: Vec<(&[u8], u32)> = if argv[0] == b"TOPK.ADD" {
        argv[2..].iter().map(|i| (i.as_slice(), 1)).collect()
    } else {
        argv[2..]
            .chunks_exact(2)
            .map_while(|p| {
                let n: u32 = std::str::from_utf8(&p[1]).ok()?.parse().ok()?;
                (n <= 100_000).then_some((p[0].as_slice(), n))
            })
            .collect()
    };
    adds.into_iter().any(|(i, n)| t.add(i, n).draws > 0)
}

/// The value as it reads back from an RDB file: Top-K heap items end at their first NUL (the
/// module saves them as C strings); t-digests are compressed (the module compresses before
/// saving).
fn as_saved(v: &bitlens::Value) -> bitlens::Value {
    let mut v = v.clone();
    if let bitlens::Value::Module(m) = &mut v {
        match &mut m.data {
            bitlens::probabilistic::ModuleData::TopK(t) => {
                for h in &mut t.heap {
                    if let Some(end) = h.item.iter().position(|&b| b == 0) {
                        h.item.truncate(end);
                    }
                }
            }
            bitlens::probabilistic::ModuleData::TDigest(t) => {
                let _ = t.compress();
            }
            _ => {}
        }
    }
    v
}

/// The server's SAVE compresses its t-digests in place; bitlens' copy follows.
fn compress_digests(ks: &mut bitlens::Keyspace) {
    let keys: Vec<Vec<u8>> = ks.iter().map(|(k, _)| k.to_vec()).collect();
    for k in keys {
        if let Some(bitlens::Value::Module(m)) = ks.get_mut(&k) {
            if let bitlens::probabilistic::ModuleData::TDigest(t) = &mut m.data {
                let _ = t.compress();
            }
        }
    }
}

/// Differential test of the write commands: the server and bitlens start from the same
/// SAVEd file; a random sequence of BF.RESERVE (EXPANSION, NONSCALING, bad arguments),
/// BF.ADD, BF.MADD, BF.INSERT (every option), CF.RESERVE (BUCKETSIZE, MAXITERATIONS,
/// EXPANSION), CF.ADD, CF.ADDNX, CF.INSERT, CF.INSERTNX, CF.DEL, CMS.INITBYDIM,
/// CMS.INITBYPROB, CMS.INCRBY, CMS.MERGE (WEIGHTS), TOPK.RESERVE, TOPK.ADD, TOPK.INCRBY,
/// TDIGEST.CREATE (COMPRESSION), TDIGEST.ADD, TDIGEST.RESET, TDIGEST.MERGE (COMPRESSION,
/// OVERRIDE), interleaved with t-digest reads (which compress) runs on both and every reply is
/// compared byte for byte (t-digest doubles: equal values, digits as the read test); then
/// read probes (most items never added) on every key; then the server's SAVE and DUMP must
/// decode to bitlens' in-memory values.
///
/// Top-K decay draws use the module's unseeded-for-us `rand()`: a Top-K key is compared
/// exactly until bitlens' copy would make its first draw (always for decay 1, where every
/// draw decays), and afterwards only for TOPK.INFO; the count of such keys is printed.
#[test]
fn redisbloom_write_commands_match_the_module() {
    let Some((seed, mut rng, server, mut raw)) = start() else {
        return;
    };
    // A common start: a few values written on the server, SAVEd, loaded by bitlens.
    send(&mut raw, cmd(&[b"BF.RESERVE", b"bf:start", b"0.01", b"20"]));
    send(&mut raw, cmd(&[b"BF.MADD", b"bf:start", b"a", b"b", b"c"]));
    send(&mut raw, cmd(&[b"CF.RESERVE", b"cf:start", b"64"]));
    send(&mut raw, cmd(&[b"CF.ADD", b"cf:start", b"a"]));
    send(
        &mut raw,
        cmd(&[b"CMS.INITBYDIM", b"cms:start", b"50", b"4"]),
    );
    send(&mut raw, cmd(&[b"CMS.INCRBY", b"cms:start", b"a", b"3"]));
    send(
        &mut raw,
        cmd(&[b"TOPK.RESERVE", b"topk:start", b"4", b"20", b"3", b"1"]),
    );
    send(
        &mut raw,
        cmd(&[b"TDIGEST.CREATE", b"td:start", b"COMPRESSION", b"40"]),
    );
    send(
        &mut raw,
        cmd(&[b"TDIGEST.ADD", b"td:start", b"1", b"2.5", b"7"]),
    );
    send(&mut raw, cmd(&[b"SET", b"str", b"plain"]));
    let snap = load_rdb(&server.save_rdb(), &LoadOptions::default()).expect("start file");
    let mut ks = snap.databases.get(&0).cloned().unwrap_or_default();
    let profile = Profile::from_name("redis-7.4").expect("profile");

    // Per type: `n` fresh names (`bf:0`..) plus the value written on the server (`bf:start`).
    let names = |prefix: &str, n: usize| -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| s(format!("{prefix}:{i}")))
            .chain([s(format!("{prefix}:start"))])
            .collect()
    };
    let bf = names("bf", 12);
    let cf = names("cf", 10);
    let cms = names("cms", 6);
    let topk = names("topk", 8);
    let td = names("td", 6);
    let others = [s("str"), s("missing")];
    let mut random_topk: std::collections::HashSet<Vec<u8>> = Default::default();
    let mut next_id = 0u64;
    let (mut writes, mut failures, mut error_replies) = (0, 0, 0);
    let check = |raw: &mut RawConnection,
                 ks: &mut bitlens::Keyspace,
                 argv: Vec<Vec<u8>>,
                 exact: bool,
                 failures: &mut usize,
                 errors: &mut usize| {
        let want = send(raw, argv.clone());
        let got = execute_in(&mut Ctx::single(ks, profile), &argv).to_resp();
        if want.starts_with(b"-") || want.windows(3).any(|w| w == b"\n-E" || w == b"\n-C") {
            *errors += 1;
            if std::env::var_os("BLOOM_DIFF_ERRORS").is_some() {
                eprintln!(
                    "ERROR-REPLY {} -> {:?}",
                    show(&argv),
                    String::from_utf8_lossy(&want)
                );
            }
        }
        if exact && want != got {
            *failures += 1;
            if *failures <= 20 {
                eprintln!(
                    "MISMATCH {}\n  want {:?}\n  got  {:?}",
                    show(&argv),
                    String::from_utf8_lossy(&want),
                    String::from_utf8_lossy(&got)
                );
            }
        }
    };
    let pick = |rng: &mut fastrand::Rng, own: &[Vec<u8>]| -> Vec<u8> {
        if rng.u8(..12) == 0 {
            others[rng.usize(..2)].clone()
        } else {
            own[rng.usize(..own.len())].clone()
        }
    };
    for _ in 0..3000 {
        writes += 1;
        let fam = rng.u8(..12);
        let mut items = |rng: &mut fastrand::Rng, n: usize| -> Vec<Vec<u8>> {
            (0..n)
                .map(|_| {
                    if rng.u8(..4) == 0 {
                        next_id += 1;
                        item(next_id)
                    } else {
                        item(rng.u64(0..next_id.max(1) + 50))
                    }
                })
                .collect()
        };
        let argv: Vec<Vec<u8>> = match fam {
            // Bloom.
            0..=2 => {
                let key = pick(&mut rng, &bf);
                match rng.u8(..10) {
                    0 => {
                        let error = [
                            &b"0.5"[..],
                            b"0.1",
                            b"0.01",
                            b"0.001",
                            b"1e-6",
                            b"0",
                            b"1",
                            b"x",
                        ][rng.usize(..8)];
                        let cap = [&b"1"[..], b"3", b"10", b"50", b"200", b"0", b"-1", b"x"]
                            [rng.usize(..8)];
                        let mut c = cmd(&[b"BF.RESERVE", &key, error, cap]);
                        match rng.u8(..6) {
                            0 | 1 => c.extend([s("EXPANSION"), s(rng.u64(0..5))]),
                            2 => c.push(s("NONSCALING")),
                            3 => c.extend([s("NONSCALING"), s("EXPANSION"), s(2)]),
                            4 => c.push(s("EXPANSION")),
                            _ => {}
                        }
                        c
                    }
                    1..=3 => {
                        let mut c = cmd(&[b"BF.ADD", &key]);
                        c.extend(items(&mut rng, 1));
                        c
                    }
                    4..=7 => {
                        let mut c = cmd(&[b"BF.MADD", &key]);
                        let n = rng.usize(1..60);
                        c.extend(items(&mut rng, n));
                        c
                    }
                    _ => {
                        let mut c = cmd(&[b"BF.INSERT", &key]);
                        if rng.bool() {
                            c.extend([s("CAPACITY"), s([1u64, 5, 30, 0][rng.usize(..4)])]);
                        }
                        if rng.bool() {
                            c.extend([s("ERROR"), s([0.2, 0.01, 1.5][rng.usize(..3)])]);
                        }
                        if rng.bool() {
                            c.extend([s("EXPANSION"), s(rng.u64(0..4))]);
                        }
                        if rng.u8(..4) == 0 {
                            c.push(s("NOCREATE"));
                        }
                        if rng.u8(..4) == 0 {
                            c.push(s("NONSCALING"));
                        }
                        if rng.u8(..20) == 0 {
                            c.push(s("BOGUS"));
                        }
                        c.push(s("ITEMS"));
                        let n = rng.usize(0..40);
                        c.extend(items(&mut rng, n));
                        c
                    }
                }
            }
            // Cuckoo.
            3..=4 => {
                let key = pick(&mut rng, &cf);
                match rng.u8(..10) {
                    0 => {
                        let cap = [&b"4"[..], b"10", b"32", b"100", b"3", b"x"][rng.usize(..6)];
                        let mut c = cmd(&[b"CF.RESERVE", &key, cap]);
                        if rng.bool() {
                            c.extend([s("BUCKETSIZE"), s(rng.u64(0..6))]);
                        }
                        if rng.bool() {
                            c.extend([s("MAXITERATIONS"), s(rng.u64(0..30))]);
                        }
                        if rng.bool() {
                            c.extend([s("EXPANSION"), s(rng.u64(0..5))]);
                        }
                        c
                    }
                    1..=4 => {
                        let op: &[u8] = if rng.bool() { b"CF.ADD" } else { b"CF.ADDNX" };
                        let mut c = cmd(&[op, &key]);
                        c.extend(items(&mut rng, 1));
                        c
                    }
                    5..=6 => {
                        let op: &[u8] = if rng.bool() {
                            b"CF.INSERT"
                        } else {
                            b"CF.INSERTNX"
                        };
                        let mut c = cmd(&[op, &key]);
                        if rng.u8(..3) == 0 {
                            c.extend([s("CAPACITY"), s([2u64, 8, 40][rng.usize(..3)])]);
                        }
                        if rng.u8(..4) == 0 {
                            c.push(s("NOCREATE"));
                        }
                        c.push(s("ITEMS"));
                        let n = rng.usize(1..30);
                        c.extend(items(&mut rng, n));
                        c
                    }
                    _ => {
                        let mut c = cmd(&[b"CF.DEL", &key]);
                        c.extend(items(&mut rng, 1));
                        c
                    }
                }
            }
            // Count-Min.
            5..=6 => {
                let key = pick(&mut rng, &cms);
                match rng.u8(..10) {
                    0 => cmd(&[
                        b"CMS.INITBYDIM",
                        &key,
                        &s(rng.i64(-1..300)),
                        &s(rng.i64(0..6)),
                    ]),
                    1 => cmd(&[
                        b"CMS.INITBYPROB",
                        &key,
                        [&b"0.1"[..], b"0.01", b"0.05", b"0", b"1"][rng.usize(..5)],
                        [&b"0.1"[..], b"0.01", b"0.002", b"1"][rng.usize(..4)],
                    ]),
                    2 => {
                        let n = rng.usize(1..4);
                        let mut c = cmd(&[b"CMS.MERGE", &key, &s(n)]);
                        for _ in 0..n {
                            c.push(pick(&mut rng, &cms));
                        }
                        if rng.bool() {
                            c.push(s("WEIGHTS"));
                            for _ in 0..n {
                                c.push(s(rng.i64(-2..4)));
                            }
                        }
                        c
                    }
                    _ => {
                        let mut c = cmd(&[b"CMS.INCRBY", &key]);
                        let n = rng.usize(1..20);
                        for i in items(&mut rng, n) {
                            c.push(i);
                            c.push(match rng.u8(..40) {
                                0 => s(-1),
                                1 => s(4_000_000_000u64),
                                _ => s(rng.u64(0..1000)),
                            });
                        }
                        c
                    }
                }
            }
            // t-digest, with the reads that compress.
            10..=11 => {
                let key = pick(&mut rng, &td);
                let value = |rng: &mut fastrand::Rng| {
                    s((rng.f64() * rng.f64() * 1000.0 * 100.0).round() / 100.0)
                };
                match rng.u8(..20) {
                    0 => {
                        let mut c = cmd(&[b"TDIGEST.CREATE", &key]);
                        match rng.u8(..5) {
                            0 => {}
                            1 => c.extend([s("COMPRESSION"), s([0i64, -1, 5][rng.usize(..3)])]),
                            2 => c.extend([s("FOO"), s(10)]),
                            _ => c.extend([s("COMPRESSION"), s(rng.u64(1..300))]),
                        }
                        c
                    }
                    1..=8 => {
                        let mut c = cmd(&[b"TDIGEST.ADD", &key]);
                        for _ in 0..rng.usize(1..80) {
                            c.push(match rng.u8(..200) {
                                0 => s("inf"),
                                1 => s("x"),
                                _ => value(&mut rng),
                            });
                        }
                        c
                    }
                    9 => cmd(&[b"TDIGEST.RESET", &key]),
                    10..=11 => {
                        let n = rng.usize(1..4);
                        let mut c = cmd(&[b"TDIGEST.MERGE", &key, &s(n)]);
                        for _ in 0..n {
                            c.push(pick(&mut rng, &td));
                        }
                        match rng.u8(..6) {
                            0 => c.extend([s("COMPRESSION"), s(rng.u64(1..200))]),
                            1 => c.push(s("OVERRIDE")),
                            2 => c.extend([s("COMPRESSION"), s(rng.u64(1..200)), s("OVERRIDE")]),
                            3 => c.push(s("BOGUS")),
                            _ => {}
                        }
                        c
                    }
                    12..=13 => {
                        let mut c = cmd(&[b"TDIGEST.CDF", &key]);
                        c.push(value(&mut rng));
                        c
                    }
                    14..=15 => {
                        let q = s((rng.f64() * 100.0).round() / 100.0);
                        cmd(&[b"TDIGEST.QUANTILE", &key, &q, b"1"])
                    }
                    16 => cmd(&[b"TDIGEST.RANK", &key, &value(&mut rng)]),
                    17 => cmd(&[b"TDIGEST.BYRANK", &key, &s(rng.u64(0..50))]),
                    18 => cmd(&[b"TDIGEST.TRIMMED_MEAN", &key, b"0.1", b"0.9"]),
                    _ => cmd(&[b"TDIGEST.INFO", &key]),
                }
            }
            // Top-K.
            _ => {
                let key = pick(&mut rng, &topk);
                match rng.u8(..10) {
                    0 => {
                        let mut c = cmd(&[b"TOPK.RESERVE", &key, &s(rng.i64(0..12))]);
                        if rng.u8(..4) > 0 {
                            let decay =
                                [&b"1"[..], b"1", b"0.9", b"0.5", b"0", b"1.5"][rng.usize(..6)];
                            c.extend([s(rng.i64(0..300)), s(rng.i64(0..6)), decay.to_vec()]);
                        }
                        c
                    }
                    1..=6 => {
                        let mut c = cmd(&[b"TOPK.ADD", &key]);
                        let n = rng.usize(1..30);
                        // Skewed: low ids far more often.
                        c.extend((0..n).map(|_| {
                            let hi = rng.u64(1..80);
                            item(rng.u64(0..hi))
                        }));
                        c
                    }
                    _ => {
                        let mut c = cmd(&[b"TOPK.INCRBY", &key]);
                        let n = rng.usize(1..6);
                        for i in 0..n {
                            c.push(item(rng.u64(0..40)));
                            // A bad increment only last: before the end, the module declares
                            // more elements than it sends and the connection desynchronises.
                            c.push(match rng.u8(..30) {
                                0 if i == n - 1 => s(100_001),
                                _ => s(rng.u64(0..50)),
                            });
                        }
                        c
                    }
                }
            }
        };
        let is_topk_write = argv[0] == b"TOPK.ADD" || argv[0] == b"TOPK.INCRBY";
        if is_topk_write && topk_draws(&ks, &argv) {
            random_topk.insert(argv[1].clone());
        }
        let exact = !(is_topk_write && random_topk.contains(&argv[1]));
        check(
            &mut raw,
            &mut ks,
            argv,
            exact,
            &mut failures,
            &mut error_replies,
        );
    }

    // Reads on every key, most items never added.
    let mut probes = 0;
    let all: Vec<&Vec<u8>> = bf
        .iter()
        .chain(&cf)
        .chain(&cms)
        .chain(&topk)
        .chain(&td)
        .chain(&others)
        .collect();
    for key in &all {
        for _ in 0..60 {
            probes += 1;
            let it = if rng.bool() {
                item(rng.u64(0..next_id + 50))
            } else {
                s(format!("absent:{}", rng.u64(..)))
            };
            // Mostly a command of the key's own family, sometimes any.
            let fam = match key.split(|&b| b == b':').next().unwrap_or(b"") {
                _ if rng.u8(..6) == 0 => 0..15,
                b"bf" => 0..4,
                b"cf" => 4..7,
                b"cms" => 7..9,
                b"topk" => 9..12,
                b"td" => 12..15,
                _ => 0..15,
            };
            let argv = match rng.u8(fam) {
                12 => cmd(&[b"TDIGEST.INFO", key]),
                13 => cmd(&[b"TDIGEST.QUANTILE", key, b"0.1", b"0.5", b"0.99"]),
                14 => cmd(&[b"TDIGEST.MAX", key]),
                0 => cmd(&[b"BF.EXISTS", key, &it]),
                1 => cmd(&[b"BF.MEXISTS", key, &it, b"a", b"b"]),
                2 => cmd(&[b"BF.CARD", key]),
                3 => cmd(&[b"BF.INFO", key]),
                4 => cmd(&[b"CF.EXISTS", key, &it]),
                5 => cmd(&[b"CF.COUNT", key, &it]),
                6 => cmd(&[b"CF.INFO", key]),
                7 => cmd(&[b"CMS.QUERY", key, &it, b"a"]),
                8 => cmd(&[b"CMS.INFO", key]),
                9 => cmd(&[b"TOPK.LIST", key, b"WITHCOUNT"]),
                10 => cmd(&[b"TOPK.COUNT", key, &it, &item(3)]),
                _ => cmd(&[b"TOPK.INFO", key]),
            };
            let exact = !(random_topk.contains(*key) && argv[0] != b"TOPK.INFO");
            check(
                &mut raw,
                &mut ks,
                argv,
                exact,
                &mut failures,
                &mut error_replies,
            );
        }
    }

    // The server's SAVE and DUMP read back as bitlens' in-memory values.
    let saved = load_rdb(&server.save_rdb(), &LoadOptions::default()).expect("saved file");
    compress_digests(&mut ks);
    let saved = saved.databases.get(&0).cloned().unwrap_or_default();
    assert_eq!(saved.len(), ks.len(), "key count after the writes");
    let mut compared = 0;
    let mut families: std::collections::BTreeMap<&str, usize> = Default::default();
    for key in all.iter().filter(|k| ks.get(k).is_some()) {
        if random_topk.contains(*key) {
            continue;
        }
        compared += 1;
        if let Some(bitlens::Value::Module(m)) = ks.get(key) {
            let fam = match &m.data {
                bitlens::probabilistic::ModuleData::Bloom(b) if b.links.len() > 1 => "scaled bf",
                bitlens::probabilistic::ModuleData::Bloom(_) => "bf",
                bitlens::probabilistic::ModuleData::Cuckoo(c) if c.filters.len() > 1 => "grown cf",
                bitlens::probabilistic::ModuleData::Cuckoo(_) => "cf",
                bitlens::probabilistic::ModuleData::Cms(_) => "cms",
                bitlens::probabilistic::ModuleData::TopK(_) => "topk",
                bitlens::probabilistic::ModuleData::TDigest(_) => "td",
                _ => "other",
            };
            *families.entry(fam).or_insert(0) += 1;
        }
        let mine = as_saved(ks.get(key).unwrap());
        assert_eq!(
            saved.get(key),
            Some(&mine),
            "SAVE of {}",
            show(&[key.to_vec()])
        );
        let r = send(&mut raw, cmd(&[b"DUMP", key]));
        let start = r.iter().position(|&b| b == b'\n').unwrap() + 1;
        let v = load_dump(&r[start..r.len() - 2]).expect("DUMP loads");
        assert_eq!(v, mine, "DUMP of {}", show(&[key.to_vec()]));
    }
    println!(
        "{writes} writes ({error_replies} with error replies), {probes} read probes, \
         {failures} mismatches; \
         {compared} values equal to the server's SAVE and DUMP ({families:?}); \
         {} Top-K keys left exact comparison after a random decay draw",
        random_topk.len()
    );
    assert_eq!(
        failures, 0,
        "BITLENS_SEED={seed}: {failures} replies differ"
    );
    for fam in ["scaled bf", "cf", "cms", "td"] {
        assert!(families.contains_key(fam), "no {fam} value was compared");
    }
}
