//! `bitlens-bench`: the native half of `npm run bench` (driven by `bench/run.mjs`).
//!
//! - `bitlens-bench gen OUT.rdb` writes the benchmark data set as an RDB file that both a real
//!   `redis-server` and bitlens load, so that every engine answers on identical bytes:
//!   30 bitmaps of 100,000,000 bits (`bench:bm:00`..`29`, 12.5 % density), `bench:ones`
//!   (100,000,000 bits, all set but the last: BITPOS 0 scans it all), 30 dense HyperLogLogs
//!   (`bench:hll:00`..`29`, 20,000 elements each) and a GEO key of 1,000,000 members
//!   (`bench:geo`, spread over about 80 km × 90 km around Shanghai).
//! - `bitlens-bench gen-geo OUT.rdb` writes an RDB holding only `bench:geo` (the same
//!   1,000,000 members); `bench/run.mjs` has redis-server load it and `SAVE` it again, so the
//!   load benchmark reads the key as Redis itself writes it (ZSET_2, skiplist order).
//! - `bitlens-bench load IN.rdb` loads the file (already in memory) with [`load_rdb`] a few
//!   times and prints `{"ms": best, "keys": n}` (milliseconds for the best load).
//! - `bitlens-bench run IN.rdb` reads a JSON array of `{"id", "commands": [[arg...]...],
//!   "iters"}` on stdin, runs each spec's command list `iters` times (after one warm-up round)
//!   on the loaded snapshot with [`bitlens::execute`], and prints a JSON object mapping each id
//!   to the mean microseconds per round.
//! - `bitlens-bench gen-small OUT.rdb` writes 1,000,000 string keys of 100 bytes.
//! - `bitlens-bench load-file IN.rdb` loads the file once through the chunked reader (as the
//!   CLI does) and prints the time and the peak RSS against the RSS after the load.
//! - `bitlens-bench gen-big OUT.rdb` writes a file of about 1 GB for the inspection rows:
//!   48 bitmaps of 100,000,000 bits (`big:bm:00`..`47`, 12.5 % density, 600 MB) and 4,000,000
//!   string keys of 100 bytes (`big:s:<i>`, one in four with a TTL of up to 30 days).
//! - `bitlens-bench gen-signins OUT.rdb N` writes N per-user monthly sign-in keys
//!   `sign:<uid>:202405` (4 bytes, bit = day − 1; each user signs in on a random share of the
//!   days, most of them in runs), the sign-ins card's data at scale.
//! - `bitlens-bench keyheavy-resp N` writes to stdout, as RESP commands for `redis-cli --pipe`,
//!   the key-heavy data set of issues 29 and 31 scaled to N keys (3,000,000 in the bench): two
//!   thirds strings (`user:<i>:name`, a short name, and `user:<i>:visits`, an integer), one
//!   sixth 5-field hashes (`profile:<i>`), one fifteenth each 5-member sets (`tags:<i>`, half
//!   integers, half words) and 5-member zsets (`score:<i>`), one thirtieth 10-item lists
//!   (`events:<i>`); every tenth key gets an EXPIRE of a day. A real server then SAVEs it.
//!   `keyheavy-resp N I/K` writes only the keys of the I-th of K equal hash-slot ranges, as
//!   node I of a K-node cluster would hold them (the bench's shard files).
//! - `bitlens-bench kernels` prints the GB/s of the kernels under loading and scanning beside
//!   their references (memory read bandwidth, the `crc` and `lzf` crates).

use std::io::{BufWriter, Read};
use std::time::Instant;

use bitlens::rdb::{load_rdb, LoadOptions, RdbWriter};
use bitlens::zset::ZSet;

/// Bits per benchmark bitmap.
const BITS: usize = 100_000_000;

/// SplitMix64: a small deterministic generator (the data set must be the same every run).
/// Bench-data randomness: fastrand's seeded generator.
struct Rng(fastrand::Rng);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0.u64(..)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn gen(out: &str) -> std::io::Result<()> {
    let file = std::fs::File::create(out)?;
    let mut w = RdbWriter::new(BufWriter::new(file), 10)?;
    w.select_db(0)?;
    let mut rng = Rng(fastrand::Rng::with_seed(0x5EED_B175));
    let bytes = BITS / 8;
    for k in 0..30 {
        // AND of three random words: each bit set with probability 1/8 (12.5 %).
        let mut v = vec![0u8; bytes];
        for chunk in v.chunks_mut(8) {
            let word = rng.next() & rng.next() & rng.next();
            chunk.copy_from_slice(&word.to_le_bytes()[..chunk.len()]);
        }
        w.write_string(format!("bench:bm:{k:02}").as_bytes(), &v, None)?;
    }
    // Dense (so it is scanned, not skipped page by page like a sparse key): all ones but
    // the very last bit, which BITPOS 0 must find.
    let mut ones = vec![0xffu8; bytes];
    ones[bytes - 1] = 0xfe;
    w.write_string(b"bench:ones", &ones, None)?;
    for k in 0..30 {
        let mut hll = Vec::new();
        let elements: Vec<Vec<u8>> = (0..20_000)
            .map(|_| format!("user:{}", rng.next() % 5_000_000).into_bytes())
            .collect();
        let refs: Vec<&[u8]> = elements.iter().map(|e| e.as_slice()).collect();
        bitlens::hll::pfadd(&mut hll, &refs).map_err(|e| std::io::Error::other(e.message()))?;
        w.write_string(format!("bench:hll:{k:02}").as_bytes(), &hll, None)?;
    }
    w.write_zset(b"bench:geo", &geo_set(), None)?;
    w.finish()?;
    Ok(())
}

/// The `bench:geo` key: 1,000,000 members `shop:N` spread uniformly over about
/// 80 km × 90 km around Shanghai (~140 shops per km²), from a fixed seed.
fn geo_set() -> ZSet {
    let mut rng = Rng(fastrand::Rng::with_seed(0x6E0_5E7));
    let mut pairs = Vec::with_capacity(1_000_000);
    for i in 0..1_000_000u32 {
        let (lon, lat) = (121.07 + rng.unit() * 0.8, 30.83 + rng.unit() * 0.8);
        let score = bitlens::geo::encode(lon, lat).expect("coordinates in range");
        pairs.push((format!("shop:{i}").into_bytes(), score as f64));
    }
    ZSet::from_pairs(pairs)
}

fn gen_geo(out: &str) -> std::io::Result<()> {
    let file = std::fs::File::create(out)?;
    let mut w = RdbWriter::new(BufWriter::new(file), 10)?;
    w.select_db(0)?;
    w.write_zset(b"bench:geo", &geo_set(), None)?;
    w.finish()?;
    Ok(())
}

/// 1,000,000 string keys `small:N` of 100 random (incompressible, so stored raw) bytes, with
/// the RESIZEDB record Redis writes.
fn gen_small(out: &str) -> std::io::Result<()> {
    let file = std::fs::File::create(out)?;
    let mut w = RdbWriter::new(BufWriter::new(file), 10)?;
    w.select_db(0)?;
    // As redis-server SAVEs it: the key count after SELECTDB.
    w.resize_db(1_000_000, 0)?;
    let mut rng = fastrand::Rng::with_seed(0x5A11);
    let mut v = [0u8; 100];
    for i in 0..1_000_000u32 {
        rng.fill(&mut v);
        w.write_string(format!("small:{i}").as_bytes(), &v, None)?;
    }
    w.finish()?;
    Ok(())
}

/// One RESP command (an array of bulk strings) appended to `out`.
fn resp(out: &mut Vec<u8>, args: &[&[u8]]) {
    use std::io::Write;
    let _ = write!(out, "*{}\r\n", args.len());
    for a in args {
        let _ = write!(out, "${}\r\n", a.len());
        out.extend_from_slice(a);
        out.extend_from_slice(b"\r\n");
    }
}

fn keyheavy_resp(n: &str, shard: Option<&str>) -> Result<(), String> {
    use std::io::Write;
    let n: u64 = n.parse().map_err(|_| format!("{n}: not a key count"))?;
    // `I/K`: only the keys whose hash slot falls in the I-th of K equal slot ranges (0-based),
    // as node I of a K-node cluster holds them; the data are the same whatever the shard.
    let slots = match shard {
        None => 0..16384u32,
        Some(spec) => {
            let (i, k) = spec
                .split_once('/')
                .and_then(|(i, k)| Some((i.parse::<u32>().ok()?, k.parse::<u32>().ok()?)))
                .filter(|(i, k)| *k > 0 && i < k)
                .ok_or_else(|| format!("{spec}: expected SHARD/SHARDS, e.g. 0/4"))?;
            i * 16384 / k..(i + 1) * 16384 / k
        }
    };
    let mut rng = fastrand::Rng::with_seed(0x3_000_000);
    let words = [
        "red", "green", "blue", "amber", "cyan", "violet", "gold", "silver", "jade", "ruby",
    ];
    let cities = [
        "Shanghai", "Berlin", "Lagos", "Lima", "Osaka", "Austin", "Pune", "Oslo",
    ];
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let mut buf = Vec::with_capacity(1 << 16);
    // Per 30 keys: 20 strings, 5 hashes, 2 sets, 2 zsets, 1 list.
    let mut written = 0u64;
    let mut i = 0u64;
    while written < n {
        let kinds: [&str; 30] = [
            "name", "visits", "name", "visits", "name", "visits", "name", "visits", "name",
            "visits", "name", "visits", "name", "visits", "name", "visits", "name", "visits",
            "name", "visits", "hash", "hash", "hash", "hash", "hash", "set", "set", "zset", "zset",
            "list",
        ];
        for kind in kinds {
            if written == n {
                break;
            }
            let id = i.to_string();
            let mark = buf.len();
            let key = match kind {
                "name" | "visits" => format!("user:{id}:{kind}"),
                "hash" => format!("profile:{id}"),
                "set" => format!("tags:{id}"),
                "zset" => format!("score:{id}"),
                _ => format!("events:{id}"),
            };
            match kind {
                "name" => {
                    let name = format!(
                        "{}-{}",
                        words[rng.usize(..words.len())],
                        rng.u32(..1_000_000)
                    );
                    resp(&mut buf, &[b"SET", key.as_bytes(), name.as_bytes()]);
                }
                "visits" => {
                    let v = rng.u32(..100_000).to_string();
                    resp(&mut buf, &[b"SET", key.as_bytes(), v.as_bytes()]);
                }
                "hash" => {
                    let email = format!("u{id}@example.com");
                    let age = rng.u32(18..90).to_string();
                    let created = (1_700_000_000 + rng.u32(..50_000_000)).to_string();
                    let name = format!("{}-{}", words[rng.usize(..words.len())], id);
                    resp(
                        &mut buf,
                        &[
                            b"HSET",
                            key.as_bytes(),
                            b"name",
                            name.as_bytes(),
                            b"email",
                            email.as_bytes(),
                            b"city",
                            cities[rng.usize(..cities.len())].as_bytes(),
                            b"age",
                            age.as_bytes(),
                            b"created",
                            created.as_bytes(),
                        ],
                    );
                }
                "set" => {
                    let members: Vec<String> = if i.is_multiple_of(2) {
                        (0..5).map(|_| rng.u32(..1_000_000).to_string()).collect()
                    } else {
                        (0..5)
                            .map(|k| format!("{}{k}", words[rng.usize(..words.len())]))
                            .collect()
                    };
                    let mut args: Vec<&[u8]> = vec![b"SADD", key.as_bytes()];
                    args.extend(members.iter().map(|m| m.as_bytes()));
                    resp(&mut buf, &args);
                }
                "zset" => {
                    let pairs: Vec<(String, String)> = (0..5)
                        .map(|k| (rng.u32(..10_000).to_string(), format!("player{k}")))
                        .collect();
                    let mut args: Vec<&[u8]> = vec![b"ZADD", key.as_bytes()];
                    for (s, m) in &pairs {
                        args.push(s.as_bytes());
                        args.push(m.as_bytes());
                    }
                    resp(&mut buf, &args);
                }
                _ => {
                    let items: Vec<String> = (0..10)
                        .map(|k| format!("event:{k}:{}", rng.u32(..1_000)))
                        .collect();
                    let mut args: Vec<&[u8]> = vec![b"RPUSH", key.as_bytes()];
                    args.extend(items.iter().map(|m| m.as_bytes()));
                    resp(&mut buf, &args);
                }
            }
            if written % 10 == 9 {
                resp(&mut buf, &[b"EXPIRE", key.as_bytes(), b"86400"]);
            }
            if !slots.contains(&u32::from(bitlens_views::report::key_slot(key.as_bytes()))) {
                buf.truncate(mark);
            }
            written += 1;
            if kind != "name" {
                i += 1;
            }
            if buf.len() > 1 << 16 {
                stdout.write_all(&buf).map_err(|e| e.to_string())?;
                buf.clear();
            }
        }
    }
    stdout.write_all(&buf).map_err(|e| e.to_string())?;
    stdout.flush().map_err(|e| e.to_string())
}

fn gen_big(out: &str) -> std::io::Result<()> {
    let file = std::fs::File::create(out)?;
    let mut w = RdbWriter::new(BufWriter::new(file), 10)?;
    w.select_db(0)?;
    let mut rng = Rng(fastrand::Rng::with_seed(0xB16_F11E));
    let mut v = vec![0u8; BITS / 8];
    for k in 0..48 {
        for chunk in v.chunks_mut(8) {
            let word = rng.next() & rng.next() & rng.next();
            chunk.copy_from_slice(&word.to_le_bytes()[..chunk.len()]);
        }
        w.write_string(format!("big:bm:{k:02}").as_bytes(), &v, None)?;
    }
    // TTLs are relative to a fixed instant (2026-12-01T00:00:00Z), so the file is the same
    // every run; inspect buckets them at the clock it is given or its own.
    const BASE_MS: i64 = 1_796_083_200_000;
    let mut small = [0u8; 100];
    for i in 0..4_000_000u32 {
        rng.0.fill(&mut small);
        let ttl = (i % 4 == 0).then(|| BASE_MS + rng.0.i64(0..30 * 86_400_000));
        w.write_string(format!("big:s:{i}").as_bytes(), &small, ttl)?;
    }
    w.finish()?;
    Ok(())
}

fn gen_signins(out: &str, n: &str) -> std::io::Result<()> {
    let n: u64 = n
        .parse()
        .map_err(|_| std::io::Error::other(format!("not a key count: {n}")))?;
    let file = std::fs::File::create(out)?;
    let mut w = RdbWriter::new(BufWriter::new(file), 10)?;
    w.select_db(0)?;
    let mut rng = Rng(fastrand::Rng::with_seed(0x5161_1415));
    for uid in 0..n {
        // A run of signed-in days ending at a random day, plus scattered days.
        let end = rng.0.u32(0..31);
        let len = rng.0.u32(0..=end + 1);
        let run = if len == 0 {
            0
        } else {
            (u32::MAX >> (32 - len)) << (31 - end)
        };
        let bits = run | (rng.next() as u32 & rng.next() as u32 & rng.next() as u32);
        w.write_string(
            format!("sign:{uid}:202405").as_bytes(),
            &(bits & !1).to_be_bytes(),
            None,
        )?;
    }
    w.finish()?;
    Ok(())
}

/// A `/proc/self/status` figure in bytes (`VmHWM`: peak RSS; `VmRSS`: RSS now); 0 elsewhere.
fn proc_status_bytes(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with(field)).and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|n| n.parse::<u64>().ok())
            })
        })
        .map_or(0, |kb| kb * 1024)
}

/// Loads the file once through the chunked reader, as `bitlens query --rdb` does (the file
/// is never held whole), and prints `{"ms", "keys", "peak_rss", "rss_after"}`: the peak RSS
/// of the process against its RSS with the snapshot loaded (≈ the decoded size).
fn load_file(input: &str) -> Result<(), String> {
    let mut file = std::fs::File::open(input).map_err(|e| format!("{input}: {e}"))?;
    let t = Instant::now();
    let snapshot =
        bitlens::rdb::load_rdb_chunked(&mut file, 8 << 20, &LoadOptions::default(), &mut |_, _| {
            Ok(())
        })
        .map_err(|e| format!("{input}: {e}"))?;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let keys: usize = snapshot.databases.values().map(|db| db.len()).sum();
    let (peak, now) = (proc_status_bytes("VmHWM:"), proc_status_bytes("VmRSS:"));
    println!(
        "{}",
        serde_json::json!({ "ms": ms, "keys": keys, "peak_rss": peak, "rss_after": now })
    );
    drop(std::hint::black_box(snapshot));
    Ok(())
}

/// Times [`load_rdb`] on a file already read into memory: the best of five loads, and
/// where that time goes, each phase timed alone on the same bytes (best of three) and printed
/// beside the total: `crc_ms` (CRC-64 over the whole file, as the load checks it),
/// `nocrc_ms` (the load with the check off), `lzf_ms` (decoding every LZF-compressed string
/// of the file, i.e. those `bitlens-bench gen`'s writer compressed: the string values longer
/// than 20 bytes that LZF shrinks, compressed again the same way outside the timing; none
/// with `--strings-raw`, for a file Redis wrote with `rdbcompression no`),
/// `lzf_in`/`lzf_out` (their compressed and decoded bytes), `lzf_tokens` (LZF instructions),
/// `touch_ms` (allocating and first writing a buffer of every decoded value's size: the
/// page faults of the output memory), `insert_ms` (a fresh keyspace given every key, its
/// bytes copied, with an empty string: hashing, the key allocation, the table's growth), and
/// `keys`, `key_bytes`. Prints
/// `{"ms": best, "keys": n, "phases": {...}}`.
/// `load-threads FILE N`: the load of FILE's bytes (already in memory) decoded on one thread
/// and on N (`LoadOptions::threads`, on rayon's global pool: one thread per core), best of 5
/// each, and whether both gave the same keys. Prints `{"one_ms", "many_ms", "threads",
/// "pool", "keys", "same"}`.
fn load_threads(input: &str, threads: usize) -> Result<(), String> {
    let bytes = std::fs::read(input).map_err(|e| format!("{input}: {e}"))?;
    let timed = |threads: usize| -> Result<(f64, bitlens::rdb::Snapshot), String> {
        let opts = LoadOptions {
            threads,
            ..LoadOptions::default()
        };
        let mut best = f64::INFINITY;
        let mut last = None;
        for _ in 0..5 {
            drop(last.take());
            let t = Instant::now();
            let snapshot = load_rdb(&bytes, &opts).map_err(|e| format!("{input}: {e}"))?;
            best = best.min(t.elapsed().as_secs_f64() * 1e3);
            last = Some(snapshot);
        }
        Ok((best, last.expect("five loads")))
    };
    let (one_ms, one) = timed(1)?;
    let keys: usize = one.databases.values().map(|db| db.len()).sum();
    let one_entries = format!("{:?}", one.entries());
    drop(one);
    let (many_ms, many) = timed(threads)?;
    let same = format!("{:?}", many.entries()) == one_entries;
    println!(
        "{{\"one_ms\":{one_ms:.2},\"many_ms\":{many_ms:.2},\"threads\":{threads},\"pool\":{},\"keys\":{keys},\"same\":{same}}}",
        rayon::current_num_threads()
    );
    Ok(())
}

fn load(input: &str, strings_raw: bool) -> Result<(), String> {
    let bytes = std::fs::read(input).map_err(|e| format!("{input}: {e}"))?;
    let timed = |opts: &LoadOptions, reps: usize| -> Result<(f64, usize), String> {
        let mut best = f64::INFINITY;
        let mut keys = 0;
        for _ in 0..reps {
            let t = Instant::now();
            let snapshot = load_rdb(&bytes, opts).map_err(|e| format!("{input}: {e}"))?;
            best = best.min(t.elapsed().as_secs_f64() * 1e3);
            keys = snapshot.databases.values().map(|db| db.len()).sum();
            drop(std::hint::black_box(snapshot));
        }
        Ok((best, keys))
    };
    let (best, keys) = timed(&LoadOptions::default(), 5)?;
    let nocrc = LoadOptions {
        verify_checksum: false,
        ..LoadOptions::default()
    };
    let (nocrc_ms, _) = timed(&nocrc, 3)?;
    let crc_ms = best_of(3, || {
        std::hint::black_box(bitlens::rdb::crc64::crc64(&bytes));
    }) * 1e3;
    // The file's LZF strings, compressed again as the writer did (outside the timing).
    let snapshot = load_rdb(&bytes, &LoadOptions::default()).map_err(|e| e.to_string())?;
    let (mut packed, mut sizes, mut key_bytes) = (Vec::new(), Vec::new(), 0usize);
    let mut names: Vec<Vec<u8>> = Vec::new();
    for db in snapshot.databases.values() {
        for (key, entry) in db.iter_all() {
            key_bytes += key.len();
            names.push(key.to_vec());
            if let bitlens::keyspace::Value::String(s) = &entry.value {
                let raw = s.as_bytes();
                sizes.push(raw.len());
                if raw.len() > 20 && !strings_raw {
                    if let Ok(c) = lzf::compress(&raw) {
                        if c.len() < raw.len() {
                            packed.push((c, raw.len()));
                        }
                    }
                }
            }
        }
    }
    drop(snapshot);
    let lzf_ms = best_of(3, || {
        for (c, n) in &packed {
            std::hint::black_box(bitlens::rdb::lzf::decompress(c, *n).unwrap());
        }
    }) * 1e3;
    let touch_ms = best_of(3, || {
        for &n in &sizes {
            let mut v = Vec::<u8>::with_capacity(n);
            v.resize(n, 1);
            std::hint::black_box(&v);
        }
    }) * 1e3;
    let insert_ms = best_of(3, || {
        let mut ks = bitlens::Keyspace::new();
        for k in &names {
            let empty = bitlens::string::RedisString::from_bytes(Vec::new());
            ks.insert(k.clone(), bitlens::Value::String(empty), None);
        }
        std::hint::black_box(ks);
    }) * 1e3;
    let lzf_tokens: usize = packed.iter().map(|(c, _)| lzf_token_count(c)).sum();
    let phases = serde_json::json!({
        "crc_ms": crc_ms, "nocrc_ms": nocrc_ms, "lzf_ms": lzf_ms, "touch_ms": touch_ms,
        "insert_ms": insert_ms,
        "lzf_strings": packed.len(),
        "lzf_in": packed.iter().map(|(c, _)| c.len()).sum::<usize>(),
        "lzf_out": packed.iter().map(|(_, n)| n).sum::<usize>(),
        "lzf_tokens": lzf_tokens, "key_bytes": key_bytes, "bytes": bytes.len(),
    });
    println!(
        "{}",
        serde_json::json!({ "ms": best, "keys": keys, "phases": phases })
    );
    Ok(())
}

/// Instructions (literal runs and back-references) in an LZF stream (the module header of
/// `bitlens::rdb::lzf` gives the format); stops at a truncated instruction.
fn lzf_token_count(c: &[u8]) -> usize {
    let (mut i, mut n) = (0, 0);
    while i < c.len() {
        let ctrl = c[i] as usize;
        i += if ctrl < 32 {
            ctrl + 2
        } else if ctrl >> 5 == 7 {
            3
        } else {
            2
        };
        n += 1;
    }
    n
}

fn run(input: &str) -> Result<(), String> {
    let bytes = std::fs::read(input).map_err(|e| format!("{input}: {e}"))?;
    let mut snapshot =
        load_rdb(&bytes, &LoadOptions::default()).map_err(|e| format!("{input}: {e}"))?;
    drop(bytes);
    let mut ks = snapshot.databases.remove(&0).unwrap_or_default();
    let mut spec = String::new();
    std::io::stdin()
        .read_to_string(&mut spec)
        .map_err(|e| e.to_string())?;
    let spec: serde_json::Value = serde_json::from_str(&spec).map_err(|e| e.to_string())?;
    let mut out = serde_json::Map::new();
    for s in spec.as_array().ok_or("spec must be an array")? {
        let id = s["id"].as_str().ok_or("spec id")?;
        let iters = s["iters"].as_u64().unwrap_or(1).max(1);
        let commands: Vec<Vec<Vec<u8>>> = s["commands"]
            .as_array()
            .ok_or("spec commands")?
            .iter()
            .map(|c| {
                c.as_array()
                    .map(|a| {
                        a.iter()
                            .map(|x| x.as_str().unwrap_or("").as_bytes().to_vec())
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .collect();
        let warm = s["warmup"].as_bool().unwrap_or(true);
        if warm {
            for c in &commands {
                std::hint::black_box(bitlens::execute(&mut ks, c));
            }
        }
        let t = Instant::now();
        for _ in 0..iters {
            for c in &commands {
                let r = bitlens::execute(&mut ks, c);
                if r.is_error() {
                    return Err(format!("{id}: {r:?}"));
                }
                std::hint::black_box(r);
            }
        }
        let usec = t.elapsed().as_secs_f64() * 1e6 / iters as f64;
        out.insert(id.to_string(), serde_json::json!(usec));
    }
    println!("{}", serde_json::Value::Object(out));
    Ok(())
}

/// Best wall time of `reps` runs of `f`, in seconds.
fn best_of(reps: usize, mut f: impl FnMut()) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

/// The kernels under the load and the slow commands, in GB/s of input (best of several
/// runs), each beside its reference: memory read bandwidth (an XOR over every word, the
/// physical limit of a scan), bitlens' CRC-64 against the `crc` crate's slice-by-16,
/// bitlens' LZF decoder against the `lzf` crate's, BITPOS 0's scan over all-ones data,
/// and a 2-source AND. With `KERNELS_LZF_OUT=path` the LZF test input is also written there
/// (4-byte little-endian uncompressed length, then the compressed bytes) for a C comparison.
fn kernels() -> Result<(), String> {
    let mut rng = Rng(fastrand::Rng::with_seed(0x5EED_B175));
    let bytes = BITS / 8;
    let mut bm = vec![0u8; bytes];
    for chunk in bm.chunks_mut(8) {
        let word = rng.next() & rng.next() & rng.next();
        chunk.copy_from_slice(&word.to_le_bytes()[..chunk.len()]);
    }
    let gbs = |n: usize, s: f64| n as f64 / s / 1e9;
    let mut out = serde_json::Map::new();
    let mut put = |k: &str, v: f64| {
        out.insert(k.into(), serde_json::json!((v * 100.0).round() / 100.0));
    };
    // Read bandwidth over the bitmap and over 8 times as much (past any cache).
    let big: Vec<u8> = (0..8).flat_map(|_| bm.iter().copied()).collect();
    for (name, buf) in [("read_12mb", &bm), ("read_100mb", &big)] {
        let s = best_of(7, || {
            let mut acc = 0u64;
            for w in buf.chunks_exact(64) {
                let mut a = 0u64;
                for i in 0..8 {
                    a ^= u64::from_ne_bytes(w[i * 8..i * 8 + 8].try_into().unwrap());
                }
                acc ^= a;
            }
            std::hint::black_box(acc);
        });
        put(name, gbs(buf.len(), s));
    }
    let crc_ref = crc::Crc::<u64, crc::Table<16>>::new(&crc::CRC_64_REDIS);
    let a = bitlens::rdb::crc64::crc64(&big);
    if a != crc_ref.checksum(&big) {
        return Err("CRC-64 differs from the crc crate".into());
    }
    put(
        "crc64_bitlens",
        gbs(
            big.len(),
            best_of(3, || {
                std::hint::black_box(bitlens::rdb::crc64::crc64(&big));
            }),
        ),
    );
    // The 4-lane tables alone: what wasm32 runs (no carry-less multiply there).
    put(
        "crc64_tables",
        gbs(
            big.len(),
            best_of(3, || {
                std::hint::black_box(bitlens::rdb::crc64::update_tables(0, &big));
            }),
        ),
    );
    put(
        "crc64_crc_crate_slice16",
        gbs(
            big.len(),
            best_of(3, || {
                std::hint::black_box(crc_ref.checksum(&big));
            }),
        ),
    );
    let packed = lzf::compress(&bm).map_err(|e| format!("lzf compress: {e:?}"))?;
    if let Ok(path) = std::env::var("KERNELS_LZF_OUT") {
        let mut f = (bm.len() as u32).to_le_bytes().to_vec();
        f.extend_from_slice(&packed);
        std::fs::write(&path, f).map_err(|e| format!("{path}: {e}"))?;
    }
    let ours = bitlens::rdb::lzf::decompress(&packed, bm.len()).map_err(|e| e.to_string())?;
    if ours != bm {
        return Err("LZF round trip differs".into());
    }
    put("lzf_ratio", packed.len() as f64 / bm.len() as f64);
    put(
        "lzf_bitlens",
        gbs(
            bm.len(),
            best_of(7, || {
                std::hint::black_box(bitlens::rdb::lzf::decompress(&packed, bm.len()).unwrap());
            }),
        ),
    );
    put(
        "lzf_lzf_crate",
        gbs(
            bm.len(),
            best_of(7, || {
                std::hint::black_box(lzf::decompress(&packed, bm.len()).unwrap());
            }),
        ),
    );
    let mut ones = vec![0xffu8; bytes];
    ones[bytes - 1] = 0xfe;
    put(
        "bitpos0_scan",
        gbs(
            bytes,
            best_of(15, || {
                std::hint::black_box(bitlens::bitmap::find_bit_in_bytes(&ones, false));
            }),
        ),
    );
    let mut dst = bm.clone();
    put(
        "and_2_sources",
        gbs(
            2 * bytes,
            best_of(15, || {
                bitlens::bitmap::simd::and_assign(&mut dst, &ones);
                std::hint::black_box(&dst);
            }),
        ),
    );
    println!("{}", serde_json::Value::Object(out));
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let result = match (args.get(1).map(String::as_str), args.get(2)) {
        (Some("gen"), Some(out)) => gen(out).map_err(|e| format!("{out}: {e}")),
        (Some("gen-geo"), Some(out)) => gen_geo(out).map_err(|e| format!("{out}: {e}")),
        (Some("load"), Some(input)) => load(
            input,
            args.get(3).map(String::as_str) == Some("--strings-raw"),
        ),
        (Some("load-threads"), Some(input)) => load_threads(
            input,
            args.get(3)
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(rayon::current_num_threads),
        ),
        (Some("run"), Some(input)) => run(input),
        (Some("kernels"), _) => kernels(),
        (Some("gen-small"), Some(out)) => gen_small(out).map_err(|e| format!("{out}: {e}")),
        (Some("load-file"), Some(input)) => load_file(input),
        (Some("keyheavy-resp"), Some(n)) => keyheavy_resp(n, args.get(3).map(String::as_str)),
        (Some("gen-big"), Some(out)) => gen_big(out).map_err(|e| format!("{out}: {e}")),
        (Some("gen-signins"), Some(out)) => {
            gen_signins(out, args.get(3).map_or("10000000", String::as_str))
                .map_err(|e| format!("{out}: {e}"))
        }
        _ => Err(
            "usage: bitlens-bench gen OUT.rdb | gen-geo OUT.rdb | gen-small OUT.rdb | \
                  gen-big OUT.rdb | gen-signins OUT.rdb [N] | keyheavy-resp N [SHARD/SHARDS] | load IN.rdb [--strings-raw] | load-threads IN.rdb [N] | load-file IN.rdb | \
                  run IN.rdb < spec.json | kernels"
                .into(),
        ),
    };
    if let Err(e) = result {
        eprintln!("bitlens-bench: {e}");
        std::process::exit(1);
    }
}
