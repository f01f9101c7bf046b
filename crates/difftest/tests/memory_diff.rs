//! `bitlens_views::memory` against the real servers (each skipped, with a message, when not
//! installed). Each server gets random data of every type and encoding (100,000 small keys as
//! a typical keyspace has them; bitmaps, HyperLogLogs, GEO sets, integers, embstr and raw
//! strings of every sds class, lists, intsets, listpack and hashtable sets, hashes and sorted
//! sets on both sides of every encoding boundary, streams with consumer groups and pending
//! entries, TTLs on a seventh of the keys), SAVEs it, and a fresh server of the same version
//! loads that file. bitlens loads the same file, infers the writer's allocator from it (no
//! allocator given, as `bitlens inspect` runs by default: `used-mem`, then the keys), and
//! estimates every key; each estimate and OBJECT ENCODING is compared with the loaded
//! server's `MEMORY USAGE key SAMPLES 0`. A decided inference must find the build's allocator
//! (`INFO memory` `mem_allocator`) and its figures are held to the bounds; an undecided one
//! (`AllocatorSource::Undecided`: the file cannot tell its candidates apart) must list the
//! build's among its candidates, and the range it reports (each key, each group, the file:
//! least to most over the candidates) must hold the server's figure.
//!
//! Bounds (issue 50), per group of type and encoding: every key byte-exact, except where the
//! server's own figure varies from load to load (`bitlens_difftest::memory_bound`): a
//! skiplist within five standard deviations of its random node levels as measured on the
//! servers, a Valkey 8.1+ hash table within five of its child buckets'. Each group's sum is
//! equal (exact groups) or within its stated bound, and the file's within 0.5%. The
//! estimates are those `bitlens inspect` prints by default, priced with the allocator it
//! infers; the table per type and encoding is printed (`--nocapture`). Randomized: the seed is
//! printed, `BITLENS_SEED` replays it; `MEMORY_DIFF_ONLY=prefix` keeps one family of keys,
//! `MEMORY_DIFF_REPORT_ONLY=1` prints without asserting.

use bitlens::dialect::Profile;
use bitlens::rdb::{load_rdb, LoadOptions};
use bitlens::Reply;
use bitlens_difftest::memory_bound::{
    glibc_remainder, key_bound, usable_chunks, KeyBound, GLIBC_REMAINDER_KEYS,
    GLIBC_REMAINDER_MIN_KEYS,
};
use bitlens_difftest::{query_pipeline, RedisServer, ServerKind};
use bitlens_views::memory::{Allocator, Model};

fn a(parts: &[&str]) -> Vec<Vec<u8>> {
    parts.iter().map(|p| p.as_bytes().to_vec()).collect()
}

fn word(rng: &mut fastrand::Rng, lo: usize, hi: usize) -> String {
    let n = rng.usize(lo..=hi);
    (0..n).map(|_| rng.alphanumeric()).collect()
}

/// Commands writing the random data set.
fn data(rng: &mut fastrand::Rng, kind: ServerKind) -> Vec<Vec<Vec<u8>>> {
    let mut c: Vec<Vec<Vec<u8>>> = Vec::new();
    // Bitmaps: sparse to dense, up to 256 KiB.
    for i in 0..40 {
        let max = [100u64, 5_000, 80_000, 2_000_000][i % 4];
        for _ in 0..rng.usize(1..60) {
            let off = rng.u64(0..max).to_string();
            c.push(a(&["SETBIT", &format!("bm:{i}"), &off, "1"]));
        }
    }
    // HyperLogLogs: sparse and dense.
    for i in 0..30 {
        let n = [5usize, 200, 3000][i % 3];
        let mut cmd = a(&["PFADD", &format!("hll:{i}")]);
        for _ in 0..n {
            cmd.push(word(rng, 4, 12).into_bytes());
        }
        c.push(cmd);
    }
    // GEO sets: listpack (few) and skiplist (many members).
    for i in 0..20 {
        let n = [5usize, 60, 400][i % 3];
        let mut cmd = a(&["GEOADD", &format!("geo:{i}")]);
        for j in 0..n {
            let lon = rng.f64() * 360.0 - 180.0;
            let lat = rng.f64() * 170.0 - 85.0;
            cmd.push(format!("{lon:.6}").into_bytes());
            cmd.push(format!("{lat:.6}").into_bytes());
            cmd.push(format!("m{j}").into_bytes());
        }
        c.push(cmd);
    }
    // The bulk of a typical keyspace: many small keys (what tells the allocators apart in
    // the file's used-mem).
    for i in 0..100_000 {
        let v = match i % 4 {
            0 => rng.u32(..).to_string(),
            1 | 2 => word(rng, 3, 30),
            _ => word(rng, 45, 120),
        };
        c.push(a(&["SET", &format!("user:{i}:{}", word(rng, 2, 8)), &v]));
    }
    // Strings: int, embstr, raw of many lengths.
    for i in 0..150 {
        let v = match i % 3 {
            0 => rng.i64(..).to_string(),
            1 => word(rng, 1, 44),
            _ => word(rng, 45, 3000),
        };
        c.push(a(&["SET", &format!("str:{i}:{}", word(rng, 0, 40)), &v]));
    }
    // Lists: small (listpack / one node) and large (many nodes).
    for i in 0..40 {
        let n = if i % 5 == 0 {
            rng.usize(2000..20000)
        } else {
            rng.usize(1..100)
        };
        let key = format!("list:{i}");
        let mut cmd = a(&["RPUSH", &key]);
        for _ in 0..n {
            cmd.push(
                if rng.bool() {
                    rng.u32(..).to_string()
                } else {
                    word(rng, 1, 30)
                }
                .into_bytes(),
            );
            if cmd.len() > 1000 {
                c.push(std::mem::replace(&mut cmd, a(&["RPUSH", &key])));
            }
        }
        if cmd.len() > 2 {
            c.push(cmd);
        }
    }
    // Sets: intset, listpack (7.2+), hashtable, large ones of both.
    for i in 0..60 {
        let (n, ints) = match i % 4 {
            0 => (rng.usize(1..400), true),
            1 => (rng.usize(1..120), false),
            2 => (rng.usize(129..510), false),
            _ => (rng.usize(600..5000), rng.bool()),
        };
        let key = format!("set:{i}");
        let mut cmd = a(&["SADD", &key]);
        for _ in 0..n {
            cmd.push(
                if ints {
                    rng.u32(..).to_string()
                } else {
                    word(rng, 1, 40)
                }
                .into_bytes(),
            );
        }
        c.push(cmd);
    }
    // Hashes: small, small with one long value (hashtable, grown), large.
    for i in 0..45 {
        let n = match i % 3 {
            0 => rng.usize(1..100),
            1 => rng.usize(1..300),
            _ => rng.usize(600..4000),
        };
        let key = format!("hash:{i}");
        let long_at = if i % 3 == 1 {
            rng.usize(0..n)
        } else {
            usize::MAX
        };
        let mut cmd = a(&["HSET", &key]);
        for j in 0..n {
            cmd.push(format!("f{j}:{}", word(rng, 0, 10)).into_bytes());
            let v = if j == long_at {
                word(rng, 65, 200)
            } else {
                word(rng, 1, 30)
            };
            cmd.push(v.into_bytes());
        }
        c.push(cmd);
    }
    // Sorted sets: listpack, skiplist.
    for i in 0..30 {
        let n = if i % 2 == 0 {
            rng.usize(1..120)
        } else {
            rng.usize(200..5000)
        };
        let key = format!("zset:{i}");
        let mut cmd = a(&["ZADD", &key]);
        for _ in 0..n {
            let score = if rng.bool() {
                rng.i32(..) as f64
            } else {
                rng.f64() * 1000.0
            };
            cmd.push(score.to_string().into_bytes());
            cmd.push(word(rng, 1, 24).into_bytes());
        }
        c.push(cmd);
    }
    // Streams: small, large (several nodes), with a consumer group and pending entries.
    for i in 0..16 {
        let key = format!("stream:{i}");
        let n = if i % 4 == 0 {
            rng.usize(500..3000)
        } else {
            rng.usize(1..40)
        };
        for j in 0..n {
            let mut cmd = a(&["XADD", &key, "*", "f", &j.to_string()]);
            if rng.bool() {
                cmd.push(b"name".to_vec());
                cmd.push(word(rng, 1, 20).into_bytes());
            }
            c.push(cmd);
        }
        if i % 2 == 1 {
            c.push(a(&["XGROUP", "CREATE", &key, "g1", "0"]));
            let count = rng.usize(1..=n).to_string();
            c.push(a(&[
                "XREADGROUP",
                "GROUP",
                "g1",
                "alice",
                "COUNT",
                &count,
                "STREAMS",
                &key,
                ">",
            ]));
            c.push(a(&[
                "XREADGROUP",
                "GROUP",
                "g1",
                "bob",
                "COUNT",
                "3",
                "STREAMS",
                &key,
                ">",
            ]));
        }
    }
    // Encoding boundaries: embstr/raw (44/45 value bytes; Valkey's key + value rule), sds
    // header classes of raw strings (255/256, 65535/65536), lists at one 8 KiB listpack node,
    // sets at 128/129 members and 64/65 bytes, intsets at 512/513, hashes at 512/513 fields
    // and 64/65-byte values, sorted sets at 128/129 members and 64/65-byte members.
    for (i, len) in [
        1usize, 20, 21, 39, 40, 44, 45, 46, 63, 64, 65, 255, 256, 4000, 65535, 65536, 70000,
    ]
    .into_iter()
    .enumerate()
    {
        c.push(a(&[
            "SET",
            &format!("str:edge:{i}:{}", word(rng, 0, 30)),
            &word(rng, len, len),
        ]));
    }
    for (i, n) in [100usize, 400, 700, 1000].into_iter().enumerate() {
        let key = format!("list:edge:{i}");
        let mut cmd = a(&["RPUSH", &key]);
        for _ in 0..n {
            cmd.push(word(rng, 5, 10).into_bytes());
        }
        c.push(cmd);
    }
    for (i, (n, len)) in [(128usize, 10usize), (129, 10), (20, 64), (20, 65)]
        .into_iter()
        .enumerate()
    {
        let mut cmd = a(&["SADD", &format!("set:edge:{i}")]);
        for j in 0..n {
            cmd.push(
                format!(
                    "{j}{}",
                    word(rng, len - j.to_string().len(), len - j.to_string().len())
                )
                .into_bytes(),
            );
        }
        c.push(cmd);
    }
    for (i, n) in [512usize, 513].into_iter().enumerate() {
        let mut cmd = a(&["SADD", &format!("set:edgeint:{i}")]);
        for j in 0..n {
            cmd.push((j * 7).to_string().into_bytes());
        }
        c.push(cmd);
    }
    for (i, (n, len)) in [(512usize, 8usize), (513, 8), (10, 64), (10, 65)]
        .into_iter()
        .enumerate()
    {
        let mut cmd = a(&["HSET", &format!("hash:edge:{i}")]);
        for j in 0..n {
            cmd.push(format!("f{j}").into_bytes());
            cmd.push(word(rng, len, len).into_bytes());
        }
        c.push(cmd);
    }
    for (i, (n, len)) in [(128usize, 8usize), (129, 8), (10, 64), (10, 65)]
        .into_iter()
        .enumerate()
    {
        let mut cmd = a(&["ZADD", &format!("zset:edge:{i}")]);
        for j in 0..n {
            cmd.push(j.to_string().into_bytes());
            cmd.push(format!("{j:04}{}", word(rng, len - 4, len - 4)).into_bytes());
        }
        c.push(cmd);
    }
    // TTLs on a share of the keys written so far (the expires table counts in used_memory).
    let keys: Vec<Vec<u8>> = c
        .iter()
        .filter(|cmd| cmd.len() > 1)
        .map(|cmd| cmd[1].clone())
        .collect();
    for k in keys.iter().step_by(7) {
        let ttl = rng.u64(100_000..10_000_000).to_string();
        c.push(vec![b"PEXPIRE".to_vec(), k.clone(), ttl.into_bytes()]);
    }
    let _ = kind;
    // MEMORY_DIFF_ONLY=prefix keeps one family of keys (to see where a gap comes from).
    if let Ok(only) = std::env::var("MEMORY_DIFF_ONLY") {
        c.retain(|cmd| {
            cmd.iter()
                .skip(1)
                .take(3)
                .any(|p| p.starts_with(only.as_bytes()))
        });
    }
    c
}

fn info_field(info: &str, name: &str) -> String {
    info.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}:")))
        .unwrap_or_default()
        .trim()
        .to_string()
}

fn bulk_text(r: &Reply) -> String {
    match r {
        Reply::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
        other => panic!("expected a bulk reply, got {other:?}"),
    }
}

/// One key's comparison: group (`type/encoding`), estimate, `MEMORY USAGE`, and the
/// members of a sorted set.
struct KeyResult {
    group: String,
    name: String,
    /// The figure `inspect` prints by default (the inferred, or best-fitting, allocator's).
    est: u64,
    /// The least and most over the allocators the inference leaves (both `est` when it
    /// decided).
    lo: u64,
    hi: u64,
    /// The glibc candidate's figure, when glibc is one (its unsplit remainders are counted
    /// from it).
    libc: Option<u64>,
    /// Allocations `MEMORY USAGE` counts by usable size ([`usable_chunks`]).
    chunks: u64,
    real: u64,
    /// How far the estimate may be from `MEMORY USAGE` ([`KeyBound`]).
    bound: KeyBound,
}

/// Per group: keys, byte-exact keys, largest relative error, estimate and real sums (and
/// the sums of the range's ends).
#[derive(Default)]
struct GroupStats {
    keys: usize,
    exact: usize,
    max_err: f64,
    est: u64,
    lo: u64,
    hi: u64,
    real: u64,
    /// What glibc's unsplit remainders add to `real` (over the range's top).
    excess: u64,
    /// Sum of the squares of the keys' bounds in bytes ([`KeyBound::allowance`]).
    allowance_sq: f64,
}

/// How far `real` is outside `[lo, hi]`, relative to `real` (0 inside).
fn outside(lo: u64, hi: u64, real: u64) -> f64 {
    if real < lo {
        lo as f64 / real as f64 - 1.0
    } else if real > hi {
        1.0 - hi as f64 / real as f64
    } else {
        0.0
    }
}

fn run(kind: ServerKind, seed: u64) {
    if !kind.available() {
        eprintln!("skipped: {} not installed", kind.name());
        return;
    }
    let mut rng = fastrand::Rng::with_seed(seed);
    let writer = RedisServer::start_kind(kind, &[]);
    let mut conn = writer.connection();
    for chunk in data(&mut rng, kind).chunks(500) {
        for r in query_pipeline(&mut conn, chunk) {
            assert!(!matches!(r, Reply::Error(_)), "{}: {r:?}", kind.name());
        }
    }
    // The data connection is closed first: its query buffer (grown by the pipelines) would
    // otherwise sit in the writer's used-mem, which the allocator inference reads.
    drop(conn);
    let rdb = writer.save_rdb();
    drop(writer);
    check_file(kind, &rdb, &format!("BITLENS_SEED={seed}"));
}

/// Loads `rdb` (written by a `kind` server) into a fresh `kind` server and into bitlens, and
/// holds every key's default estimate to the bounds ([`report_and_check`]). Keys of every
/// database are compared; keys the server dropped at load (expired in the file) are left out.
/// `label` names the data in messages (the seed, or the file).
fn check_file(kind: ServerKind, rdb: &[u8], label: &str) {
    let server = RedisServer::start_kind_loading(kind, rdb, &[]);
    let mut conn = server.connection();
    let info = bulk_text(&query_pipeline(&mut conn, &[a(&["INFO", "memory"])])[0]);
    let mem_allocator = info_field(&info, "mem_allocator");

    let snap = load_rdb(rdb, &LoadOptions::default()).unwrap();
    let profile = Profile::for_snapshot(&snap.aux, snap.version);
    let inferred = bitlens_views::memory::infer_allocator(&snap);
    let want = kind.allocator();
    let candidates = inferred.candidates();
    println!(
        "{} (mem_allocator {mem_allocator}; used_memory {} once loaded): {} {:?}, candidates {:?} ({})",
        kind.name(),
        info_field(&info, "used_memory"),
        inferred.source.name(),
        inferred.allocator,
        candidates,
        inferred.reason
    );
    if std::env::var_os("MEMORY_DIFF_REPORT_ONLY").is_none() {
        // Decided: it must be the build's allocator. Undecided: the build's must be one of
        // the candidates, and the ranges below must hold the server's figures. No other
        // escape (issue 50 item 4: a tie used to be priced with the build's own allocator).
        use bitlens_views::memory::AllocatorSource;
        match inferred.source {
            AllocatorSource::Inferred => assert_eq!(
                inferred.allocator,
                want,
                "{}: allocator inferred: {}",
                kind.name(),
                inferred.reason
            ),
            AllocatorSource::Undecided => assert!(
                candidates.contains(&want),
                "{}: the build's {want:?} is not among the candidates {candidates:?}: {}",
                kind.name(),
                inferred.reason
            ),
            other => panic!(
                "{}: the file has used-mem, yet the allocator is {other:?}: {}",
                kind.name(),
                inferred.reason
            ),
        }
    }
    // Priced as `inspect` does by default: loaded at the snapshot's own time.
    let clock = bitlens::session::snapshot_time_ms(&snap.aux);
    let models: Vec<Model> = candidates
        .iter()
        .map(|&a| Model::new(profile, a).at(clock))
        .collect();
    let entries = snap.entries();
    // Per key: SELECT its database, MEMORY USAGE, OBJECT ENCODING.
    let cmds: Vec<Vec<Vec<u8>>> = entries
        .iter()
        .flat_map(|(db, k, _)| {
            [
                vec![b"SELECT".to_vec(), db.to_string().into_bytes()],
                vec![
                    b"MEMORY".to_vec(),
                    b"USAGE".to_vec(),
                    k.to_vec(),
                    b"SAMPLES".to_vec(),
                    b"0".to_vec(),
                ],
                vec![b"OBJECT".to_vec(), b"ENCODING".to_vec(), k.to_vec()],
            ]
        })
        .collect();
    let replies = query_pipeline(&mut conn, &cmds);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let mut results = Vec::new();
    for (i, (_, key, entry)) in entries.iter().enumerate() {
        let real = match &replies[3 * i + 1] {
            Reply::Integer(real) => *real,
            // Gone at the loading server's clock (its expiry, or every hash field's, is
            // past): the server dropped it at load.
            Reply::NullBulk
                if bitlens::keyspace::gone_at(entry.value, entry.expire_at_ms, Some(now)) =>
            {
                continue
            }
            other => panic!(
                "{label}: MEMORY USAGE {}: {other:?}",
                String::from_utf8_lossy(key)
            ),
        };
        let real_enc = bulk_text(&replies[3 * i + 2]);
        let ests: Vec<_> = models
            .iter()
            .map(|m| {
                m.estimate_with_expiry(key, entry.value, entry.expire_at_ms.is_some())
                    .expect("modelled type")
            })
            .collect();
        let est = ests[0];
        let lo = ests.iter().map(|e| e.bytes).min().unwrap_or(est.bytes);
        let hi = ests.iter().map(|e| e.bytes).max().unwrap_or(est.bytes);
        let libc = candidates
            .iter()
            .position(|&c| c == Allocator::Libc)
            .map(|i| ests[i].bytes);
        let name = String::from_utf8_lossy(key).into_owned();
        assert_eq!(
            est.encoding,
            real_enc,
            "{}: OBJECT ENCODING {name}",
            kind.name(),
        );
        results.push(KeyResult {
            group: format!("{}/{}", entry.value.redis_type().name(), est.encoding),
            name,
            est: est.bytes,
            lo,
            hi,
            libc,
            chunks: usable_chunks(entry.value),
            real: real as u64,
            bound: key_bound(profile, key, entry.value, est.encoding),
        });
    }
    report_and_check(kind, label, candidates.contains(&Allocator::Libc), &results);
}

/// Bounds on a group's sum of estimates against its sum of `MEMORY USAGE`, relative, for the
/// groups whose keys are not all byte-exact. Skiplists: the sum of n keys' independent level
/// draws spreads by √n less than one key's, and every sorted set here is within 0.5% (the
/// largest measured over seeds 1–30 on every server: 0.21%). Valkey 8.1+ hash tables: the
/// child buckets' placement, the same way (measured: 0.38% at most).
const SKIPLIST_SUM_BOUND: f64 = 0.005;
const CHILD_BUCKETS_SUM_BOUND: f64 = 0.005;

/// Prints the table per type and encoding and asserts the bounds per group: every key of a
/// group byte-exact unless its encoding has a cause to vary ([`KeyBound`], each key within
/// its own bound), each group's sum equal (exact groups) or within its stated bound, and the
/// whole file's sum within 0.5%.
fn report_and_check(kind: ServerKind, label: &str, libc: bool, results: &[KeyResult]) {
    let mut groups: std::collections::BTreeMap<&str, GroupStats> = Default::default();
    let (mut est_sum, mut real_sum) = (0u64, 0u64);
    let mut worst: Vec<(f64, &KeyResult)> = Vec::new();
    let mut failures = Vec::new();
    let mut remainders: Vec<&str> = Vec::new();
    for r in results {
        let err = r.est as f64 / r.real as f64 - 1.0;
        let g = groups.entry(&r.group).or_default();
        g.keys += 1;
        g.exact += usize::from(r.est == r.real);
        g.max_err = if err.abs() > g.max_err.abs() {
            err
        } else {
            g.max_err
        };
        g.est += r.est;
        g.lo += r.lo;
        g.hi += r.hi;
        g.real += r.real;
        est_sum += r.est;
        real_sum += r.real;
        if r.est != r.real {
            worst.push((err, r));
        }
        // Within the bound of some figure of the range (decided: the one figure).
        let in_range = (r.lo..=r.hi).contains(&r.real);
        let holds = match r.bound {
            KeyBound::Exact => in_range,
            b => in_range || b.holds(r.lo, r.real) || b.holds(r.hi, r.real),
        };
        let remainder = r.libc.is_some_and(|l| glibc_remainder(l, r.real, r.chunks));
        g.allowance_sq += r.bound.allowance(r.real).powi(2);
        if libc && r.bound == KeyBound::Exact && !holds && remainder {
            remainders.push(&r.name);
            g.excess += r.real.saturating_sub(r.hi);
        } else if !holds {
            failures.push(format!(
                "{} ({}): est {} (range {}..={}) real {} ({:+.2}%), bound {:?}",
                r.name,
                r.group,
                r.est,
                r.lo,
                r.hi,
                r.real,
                100.0 * err,
                r.bound
            ));
        }
    }
    worst.sort_by(|a, b| b.0.abs().total_cmp(&a.0.abs()));
    let sum_err = est_sum as f64 / real_sum as f64 - 1.0;
    println!(
        "{} ({label}): {} keys, sum {est_sum} vs {real_sum} ({:+.3}%)",
        kind.name(),
        results.len(),
        100.0 * sum_err
    );
    println!("  | type/encoding | keys | exact | max error | sum error | range's sums |");
    for (g, s) in &groups {
        println!(
            "  | {g} | {} | {} ({:.1}%) | {:+.2}% | {:+.3}% | {}..={} (real {}) |",
            s.keys,
            s.exact,
            100.0 * s.exact as f64 / s.keys as f64,
            100.0 * s.max_err,
            100.0 * (s.est as f64 / s.real as f64 - 1.0),
            s.lo,
            s.hi,
            s.real
        );
    }
    for (err, r) in worst.iter().take(15) {
        println!(
            "  off {:+.2}% {} ({}) est {} real {}",
            100.0 * err,
            r.name,
            r.group,
            r.est,
            r.real
        );
    }
    if std::env::var_os("MEMORY_DIFF_REPORT_ONLY").is_some() {
        return;
    }
    let max_remainders = results
        .len()
        .div_ceil(GLIBC_REMAINDER_KEYS)
        .max(GLIBC_REMAINDER_MIN_KEYS);
    println!(
        "  {} keys over by glibc's unsplit remainders (at most {max_remainders})",
        remainders.len()
    );
    if remainders.len() > max_remainders {
        failures.push(format!(
            "{} keys over by whole 16-byte remainders, more than {max_remainders}: {:?}",
            remainders.len(),
            &remainders[..remainders.len().min(20)]
        ));
    }
    // Each group's sum: exact where every key must be, else within the group's bound (the
    // glibc remainders aside: the group's sum may be over by theirs).
    for (g, s) in &groups {
        let bounded: Vec<KeyBound> = results
            .iter()
            .filter(|r| r.group == *g)
            .map(|r| r.bound)
            .filter(|b| *b != KeyBound::Exact)
            .collect();
        // Against the range of sums (one sum when decided), without the glibc remainders'
        // excess; a group of few bounded keys within its keys' combined bound.
        let real = s.real - s.excess;
        let off = outside(s.lo, s.hi, real);
        let combined = s.allowance_sq.sqrt() / real as f64;
        let ok = match bounded.first() {
            None if libc => s.lo <= real && off <= 0.005,
            None => off == 0.0,
            Some(KeyBound::Skiplist(_)) => off <= SKIPLIST_SUM_BOUND.max(combined),
            Some(_) => off <= CHILD_BUCKETS_SUM_BOUND.max(combined),
        };
        if !ok {
            failures.push(format!(
                "group {g}: sum {} (range {}..={}) vs {} ({:+.3}% outside)",
                s.est,
                s.lo,
                s.hi,
                s.real,
                100.0 * off
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{}: {} bounds fail ({label}):\n{}",
        kind.name(),
        failures.len(),
        failures.join("\n")
    );
    let (lo_sum, hi_sum): (u64, u64) = (
        results.iter().map(|r| r.lo).sum(),
        results.iter().map(|r| r.hi).sum(),
    );
    assert!(
        outside(lo_sum, hi_sum, real_sum) <= 0.005,
        "{}: sum {est_sum} (range {lo_sum}..={hi_sum}) off {real_sum} by {:+.3}% ({label})",
        kind.name(),
        100.0 * sum_err
    );
}

fn seed() -> u64 {
    bitlens_testseed::seed()
}

/// Every recorded conformance file (`tests/data/conformance/<server>/dump.rdb`, written by
/// `scripts/record-conformance.py`: every type and encoding, TTLs, hash-field TTLs, streams
/// with groups, vector sets on Redis 8, keys in databases 0, 1 and 5) held to the same
/// bounds against the server that wrote it, loaded fresh: issue 55's "every recorded
/// conformance file of the eight servers". The RedisBloom file is not here: its module
/// values are priced by `bloom_diff`.
#[test]
fn memory_usage_conformance_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/conformance");
    // Every server is checked (and its table printed) before the test fails.
    let mut failed = Vec::new();
    for kind in ServerKind::ALL {
        if !kind.available() {
            eprintln!("skipped: {} not installed", kind.name());
            continue;
        }
        let path = dir.join(kind.name()).join("dump.rdb");
        let rdb = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let label = format!("conformance/{}/dump.rdb", kind.name());
        if std::panic::catch_unwind(|| check_file(kind, &rdb, &label)).is_err() {
            failed.push(kind.name());
        }
    }
    assert!(
        failed.is_empty(),
        "bounds fail on the conformance files of {failed:?}"
    );
}

#[test]
fn memory_usage_redis_6_0() {
    run(ServerKind::Redis6_0, seed());
}

#[test]
fn memory_usage_redis_6_2() {
    run(ServerKind::Redis6_2, seed());
}

#[test]
fn memory_usage_redis_7_0() {
    run(ServerKind::Redis7_0, seed());
}

#[test]
fn memory_usage_redis_7_4() {
    run(ServerKind::Redis7_4, seed());
}

/// Valkey 8.1+ keeps keys embedded in their objects in its own `hashtable`
/// (`memory::EmbeddedKey`, `bitlens::loaded::Table`). Its glibc build is told from bundled
/// jemalloc by used-mem, but not always from jemalloc16: the inference then says it is
/// undecided, and the range over both must hold every figure (see `run`).
#[test]
fn memory_usage_valkey_8_1() {
    run(ServerKind::Valkey8_1, seed());
}

/// See [`memory_usage_valkey_8_1`].
#[test]
fn memory_usage_valkey_9_1() {
    run(ServerKind::Valkey9_1, seed());
}

/// Debian 13's Redis 8.0.2 (jemalloc, 16-byte quantum; the `vectorset` module loaded).
#[test]
fn memory_usage_redis_8_0() {
    run(ServerKind::Redis8_0, seed());
}

/// Debian 13's Valkey 8.1.1 (jemalloc, 16-byte quantum): 8.1's key layout with the
/// accounting of 8.1.0-8.1.2 (`memory::LAYOUT_VALKEY_8_1_0`) and their string embedding.
#[test]
fn memory_usage_valkey_8_1_1() {
    run(ServerKind::Valkey8_1_1, seed());
}

/// A file in the encodings older servers wrote (RDB 9, which every server here loads), each
/// value on one side or the other of a loader threshold: zipmaps, ziplist lists (RDB type 10),
/// quicklists of ziplists (14), linked lists (1) with and without an element over 8 KiB,
/// hashes stored field by field (4) small, with a long value and large, ziplist hashes (13)
/// with many fields or a long value, sets stored member by member (2) of integers, of
/// strings and large, intsets (11) small and large, ziplist sorted sets (12) small, large and
/// with a long member.
fn old_encodings_file() -> Vec<u8> {
    use bitlens::hash::Hash;
    use bitlens::keyspace::Value;
    use bitlens::list::{List, Node};
    use bitlens::rdb::blobs;
    use bitlens::rdb::RdbWriter;
    use bitlens::rdb::ValueKind;
    use bitlens::set::Set;

    let s = |i: usize, len: usize| -> Vec<u8> {
        let mut v = format!("v{i}-").into_bytes();
        v.resize(len.max(v.len()), b'x');
        v.truncate(len);
        v
    };
    let strs = |n: usize, len: usize| -> Vec<Vec<u8>> { (0..n).map(|i| s(i, len)).collect() };
    let refs = |v: &[Vec<u8>]| -> Vec<Vec<u8>> { v.to_vec() };
    let ziplist_of = |v: &[Vec<u8>]| -> Vec<u8> {
        let r: Vec<&[u8]> = v.iter().map(|x| x.as_slice()).collect();
        blobs::ziplist(&blobs::items(&r))
    };
    let pairs_of = |n: usize, long_at: Option<usize>| -> Vec<(Vec<u8>, Vec<u8>)> {
        (0..n)
            .map(|i| {
                let len = if Some(i) == long_at { 100 } else { 12 };
                (format!("field:{i}").into_bytes(), s(i, len))
            })
            .collect()
    };
    let flat = |p: &[(Vec<u8>, Vec<u8>)]| -> Vec<Vec<u8>> {
        p.iter().flat_map(|(f, v)| [f.clone(), v.clone()]).collect()
    };

    let mut w = RdbWriter::new(Vec::new(), 9).unwrap();
    w.select_db(0).unwrap();
    // Zipmaps (type 9).
    for (key, n, long_at) in [
        ("zipmap:small", 5, None),
        ("zipmap:long", 5, Some(2)),
        ("zipmap:many", 600, None),
    ] {
        let p = pairs_of(n, long_at);
        let r: Vec<(&[u8], &[u8])> = p
            .iter()
            .map(|(f, v)| (f.as_slice(), v.as_slice()))
            .collect();
        w.write_blob(
            key.as_bytes(),
            ValueKind::HashZipmap,
            &blobs::zipmap(&r),
            None,
        )
        .unwrap();
    }
    // Ziplist lists (type 10): small, and one long ziplist the loader re-packs into nodes.
    for (key, n, len) in [("ziplist:small", 5, 10), ("ziplist:large", 2000, 10)] {
        let zl = ziplist_of(&strs(n, len));
        w.write_blob(key.as_bytes(), ValueKind::ListZiplist, &zl, None)
            .unwrap();
    }
    // Quicklists of ziplists (type 14): one small node, three nodes, one node over 8 KiB.
    for (key, nodes, n, len) in [
        ("quicklist1:one", 1, 20, 10),
        ("quicklist1:three", 3, 200, 12),
        ("quicklist1:big", 1, 1000, 12),
    ] {
        let mut l = List::new(bitlens::list::ListEncoding::Quicklist);
        for k in 0..nodes {
            let items: Vec<Vec<u8>> = (0..n).map(|i| s(k * n + i, len)).collect();
            let (node, count) = Node::ziplist(ziplist_of(&items)).unwrap();
            l.push_node(node, count);
        }
        w.write_value(key.as_bytes(), &Value::list(l), None)
            .unwrap();
    }
    // Linked lists (type 1): small, large, with integers, with one element over 8 KiB.
    let mut with_big = strs(30, 20);
    with_big.insert(10, vec![b'b'; 9000]);
    let ints: Vec<Vec<u8>> = (0..300)
        .map(|i| (i * 37).to_string().into_bytes())
        .collect();
    for (key, items) in [
        ("linked:small", strs(5, 10)),
        ("linked:large", strs(1500, 16)),
        ("linked:ints", ints),
        ("linked:bigelem", with_big),
    ] {
        let l = List::from_elements(refs(&items));
        w.write_value(key.as_bytes(), &Value::list(l), None)
            .unwrap();
    }
    // Hashes stored field by field (type 4).
    for (key, n, long_at) in [
        ("hash:five", 5, None),
        ("hash:long", 5, Some(2)),
        ("hash:long-late", 40, Some(30)),
        ("hash:512", 512, None),
        ("hash:513", 513, None),
    ] {
        let p = pairs_of(n, long_at);
        let h = Hash::from_fields(p.iter().map(|(f, v)| (f.clone(), v.clone(), None)));
        w.write_value(key.as_bytes(), &Value::Hash(h), None)
            .unwrap();
    }
    // Ziplist hashes (type 13): the loader checks the count only, not the value length.
    for (key, n, long_at) in [
        ("hashzl:small", 8, None),
        ("hashzl:longvalue", 8, Some(3)),
        ("hashzl:many", 600, None),
    ] {
        let zl = ziplist_of(&flat(&pairs_of(n, long_at)));
        w.write_blob(key.as_bytes(), ValueKind::HashZiplist, &zl, None)
            .unwrap();
    }
    // Sets stored member by member (type 2).
    let int_members = |n: usize| -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| (i * 1000 + 7).to_string().into_bytes())
            .collect()
    };
    for (key, members) in [
        ("set:ints", int_members(10)),
        ("set:ints600", int_members(600)),
        ("set:strs", strs(10, 12)),
        ("set:strs200", strs(200, 12)),
        ("set:long", {
            let mut m = strs(10, 12);
            m.push(vec![b'L'; 70]);
            m
        }),
    ] {
        let set = Set::from_members(members);
        w.write_value(key.as_bytes(), &Value::Set(set), None)
            .unwrap();
    }
    // Intsets (type 11): small, and over set-max-intset-entries.
    for (key, n) in [("intset:small", 10usize), ("intset:600", 600)] {
        let vals: Vec<i64> = (0..n as i64).map(|i| i * 3).collect();
        w.write_blob(
            key.as_bytes(),
            ValueKind::SetIntset,
            &blobs::intset(2, &vals),
            None,
        )
        .unwrap();
    }
    // Ziplist sorted sets (type 12): member, score pairs.
    for (key, n, long_member) in [
        ("zsetzl:small", 5, false),
        ("zsetzl:200", 200, false),
        ("zsetzl:longmember", 5, true),
    ] {
        let mut items = Vec::new();
        for i in 0..n {
            let m = if long_member && i == 2 {
                s(i, 100)
            } else {
                s(i, 10)
            };
            items.push(m);
            items.push((i * 2).to_string().into_bytes());
        }
        w.write_blob(
            key.as_bytes(),
            ValueKind::ZSetZiplist,
            &ziplist_of(&items),
            None,
        )
        .unwrap();
    }
    w.finish().unwrap()
}

/// Loads [`old_encodings_file`] into `kind` and compares OBJECT ENCODING of every key with
/// bitlens under that server's profile, and (on the Redis servers, whose layouts bitlens
/// models) `MEMORY USAGE key SAMPLES 0` byte for byte but for the causes `memory_bound`
/// states (skiplists' node levels, Valkey 8.1+ tables' child buckets) and, on the libc
/// builds, glibc's chunk reuse (below), the estimate priced with the build's allocator (the
/// file has no used-mem to infer it from).
fn run_old_encodings(kind: ServerKind) {
    if !kind.available() {
        eprintln!("skipped: {} not installed", kind.name());
        return;
    }
    let rdb = old_encodings_file();
    let server = RedisServer::start_kind_loading(kind, &rdb, &[]);
    let mut conn = server.connection();
    let snap = load_rdb(&rdb, &LoadOptions::default()).unwrap();
    let profile = Profile::from_name(kind.profile_name()).unwrap();
    let model = Model::new(profile, kind.allocator());
    let entries = snap.entries();
    let cmds: Vec<Vec<Vec<u8>>> = entries
        .iter()
        .flat_map(|(_, k, _)| {
            [
                vec![
                    b"MEMORY".to_vec(),
                    b"USAGE".to_vec(),
                    k.to_vec(),
                    b"SAMPLES".to_vec(),
                    b"0".to_vec(),
                ],
                vec![b"OBJECT".to_vec(), b"ENCODING".to_vec(), k.to_vec()],
            ]
        })
        .collect();
    let replies = query_pipeline(&mut conn, &cmds);
    let mut failures = Vec::new();
    // Keys a libc build priced over the estimate by glibc's unsplit remainders (below).
    let mut chunk_remainders = Vec::new();
    for (i, (_, key, entry)) in entries.iter().enumerate() {
        let name = String::from_utf8_lossy(key);
        let Reply::Integer(real) = replies[2 * i] else {
            panic!("{name}: {:?}", replies[2 * i])
        };
        let real_enc = bulk_text(&replies[2 * i + 1]);
        let est = model.estimate(key, entry.value).expect("modelled type");
        // glibc may hand out a chunk 16 bytes larger than asked when it reuses freed memory
        // (a free chunk whose remainder would be under its 32-byte minimum is not split; the
        // loader's conversions free blobs), differently from run to run: exact on jemalloc,
        // within 0.5% on the libc builds (a 1,000-field hash converted from a zipmap measured
        // 0.00% to 0.20% over several runs: 112 B in 55,760), and a value of one blob exact
        // or 16 bytes over (Valkey 9.1.2's `set:ints`, an 80-byte intset: 96 B in one clean
        // CI run, 80 B in every other). That remainder is one reused chunk: at most
        // [`MAX_CHUNK_REMAINDERS`] keys of the file may show it.
        // Skiplists and Valkey 8.1+ hash tables: within their stated bounds (`memory_bound`).
        let err = (est.bytes as f64 / real as f64 - 1.0).abs();
        let bound = key_bound(profile, key, entry.value, est.encoding);
        let bytes_ok = if bound != KeyBound::Exact {
            bound.holds(est.bytes, real as u64)
        } else if kind.allocator() == Allocator::Libc {
            let remainder = glibc_remainder(est.bytes, real as u64, usable_chunks(entry.value));
            if remainder && err > 0.005 {
                chunk_remainders.push(name.to_string());
            }
            err <= 0.005 || remainder
        } else {
            est.bytes == real as u64
        };
        println!(
            "{} {name}: OBJECT ENCODING {real_enc} (bitlens {}), MEMORY USAGE {real} (bitlens {})",
            kind.name(),
            est.encoding,
            est.bytes
        );
        if est.encoding != real_enc || !bytes_ok {
            failures.push(format!(
                "{name}: server {real_enc} {real} B, bitlens {} {} B",
                est.encoding, est.bytes
            ));
        }
    }
    assert!(
        chunk_remainders.len() <= MAX_CHUNK_REMAINDERS,
        "{}: {} keys over their estimate by glibc remainders (at most {MAX_CHUNK_REMAINDERS} may be): {chunk_remainders:?}",
        kind.name(),
        chunk_remainders.len()
    );
    assert!(
        failures.is_empty(),
        "{}: {} keys differ:\n{}",
        kind.name(),
        failures.len(),
        failures.join("\n")
    );
}

/// On a libc build, how many keys of [`old_encodings_file`] may be priced over the
/// estimate by glibc's reuse of a freed chunk whose remainder is too small to split: one (seen
/// once, on one key, in every clean CI run and local run so far; more would be a pattern the
/// model misses, not a reused chunk).
const MAX_CHUNK_REMAINDERS: usize = 1;

#[test]
fn old_encodings_redis_6_0() {
    run_old_encodings(ServerKind::Redis6_0);
}

#[test]
fn old_encodings_redis_6_2() {
    run_old_encodings(ServerKind::Redis6_2);
}

#[test]
fn old_encodings_redis_7_0() {
    run_old_encodings(ServerKind::Redis7_0);
}

#[test]
fn old_encodings_redis_7_4() {
    run_old_encodings(ServerKind::Redis7_4);
}

#[test]
fn old_encodings_valkey_8_1() {
    run_old_encodings(ServerKind::Valkey8_1);
}

#[test]
fn old_encodings_valkey_9_1() {
    run_old_encodings(ServerKind::Valkey9_1);
}

#[test]
fn old_encodings_redis_8_0() {
    run_old_encodings(ServerKind::Redis8_0);
}

#[test]
fn old_encodings_valkey_8_1_1() {
    run_old_encodings(ServerKind::Valkey8_1_1);
}
