//! Differential test of PFADD / PFCOUNT / PFMERGE against a live redis-server.
//!
//! Random element sets (0 to 200,000 elements; integers, `user:N` strings and binary
//! strings drawn from one shared universe so that keys overlap) are PFADDed in the same
//! calls into Redis and into bitlens; then GET bytes, single-key and multi-key PFCOUNT and
//! PFMERGE results (reply and GET bytes of the destination) are compared byte for byte.
//! Keys cover sparse, dense and the sparse-to-dense promotion boundary. Crafted invalid and
//! corrupt strings check the error replies. The seed is printed; set `BITLENS_SEED` to
//! replay a run and `HLL_DIFF_KEYS` to change the number of keys (default 2,000).
//!
//! Run it optimised: `cargo test -p bitlens-difftest --release --test hll_diff -- --nocapture`.

use std::collections::BTreeMap;

use bitlens::keyspace::RedisType;
use bitlens::string::RedisString;
use bitlens::{Keyspace, Reply, Value};
use bitlens_difftest::{query, query_pipeline, RedisServer};

/// Test-data randomness: fastrand's seeded generator plus the shapes this test draws.
struct Rng(fastrand::Rng);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0.u64(..)
    }
    /// Uniform in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: u64) -> u64 {
        self.0.u64(..n.max(1))
    }
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo)
    }
    fn unit(&mut self) -> f64 {
        self.0.f64()
    }
    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    fn log_range(&mut self, lo: u64, hi: u64) -> u64 {
        let u = self.unit();
        ((lo as f64).ln() + u * ((hi as f64).ln() - (lo as f64).ln())).exp() as u64
    }
}

/// Element `id` of the shared universe: an integer, a `user:N` string or 8 binary bytes.
fn element(id: u64) -> Vec<u8> {
    match id % 3 {
        0 => id.to_string().into_bytes(),
        1 => format!("user:{id}").into_bytes(),
        _ => id
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .to_le_bytes()
            .to_vec(),
    }
}

fn argv(parts: &[&[u8]]) -> Vec<Vec<u8>> {
    parts.iter().map(|p| p.to_vec()).collect()
}

fn show(argv: &[Vec<u8>]) -> String {
    let mut s = String::new();
    for (i, a) in argv.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        if i >= 6 {
            s.push_str(&format!("... ({} arguments)", argv.len()));
            break;
        }
        s.push_str(&format!("{:?}", String::from_utf8_lossy(a)));
    }
    s
}

struct Diff {
    ks: Keyspace,
    conn: redis::Connection,
    seed: u64,
    counts: BTreeMap<String, usize>,
}

impl Diff {
    fn compare(&mut self, argv: &[Vec<u8>], ours: &Reply, theirs: &Reply) {
        if ours != theirs {
            let fmt = |r: &Reply| {
                let b = r.to_resp();
                let s = String::from_utf8_lossy(&b[..b.len().min(200)]).into_owned();
                format!("{s:?} ({} bytes)", b.len())
            };
            panic!(
                "seed {}: first differing command: {}\n  redis:   {}\n  bitlens: {}",
                self.seed,
                show(argv),
                fmt(theirs),
                fmt(ours)
            );
        }
        let name = String::from_utf8_lossy(&argv[0]).to_uppercase();
        let name = if name == "PFCOUNT" && argv.len() > 2 {
            "PFCOUNT (multi-key)".to_string()
        } else {
            name
        };
        *self.counts.entry(name).or_default() += 1;
    }

    /// bitlens' reply; GET is answered from the keyspace while the bitmap work that
    /// implements it has not landed.
    fn ours(&mut self, argv: &[Vec<u8>]) -> Reply {
        if argv[0] == b"GET" && bitlens::command::lookup(b"get").is_none() {
            return match self.ks.get(&argv[1]) {
                Some(Value::String(s)) => Reply::Bulk(s.as_bytes().into_owned()),
                Some(_) => Reply::wrong_type(),
                None => Reply::NullBulk,
            };
        }
        bitlens::execute(&mut self.ks, argv)
    }

    fn check(&mut self, argv: Vec<Vec<u8>>) -> Reply {
        let theirs = query(&mut self.conn, &argv);
        let ours = self.ours(&argv);
        self.compare(&argv, &ours, &theirs);
        ours
    }

    fn check_all(&mut self, cmds: &[Vec<Vec<u8>>]) {
        for chunk in cmds.chunks(256) {
            let theirs = query_pipeline(&mut self.conn, chunk);
            for (argv, t) in chunk.iter().zip(theirs) {
                let ours = self.ours(argv);
                self.compare(argv, &ours, &t);
            }
        }
    }

    /// Stores the same raw string under `key` on both sides.
    fn set_raw(&mut self, key: &[u8], value: &[u8]) {
        let _: () = redis::cmd("SET")
            .arg(key)
            .arg(value)
            .query(&mut self.conn)
            .expect("SET");
        self.ks
            .set(key, Value::String(RedisString::from_bytes(value.to_vec())));
    }

    fn bytes(&self, key: &[u8]) -> Option<Vec<u8>> {
        match self.ks.get(key) {
            Some(Value::String(s)) => Some(s.as_bytes().into_owned()),
            _ => None,
        }
    }
}

#[test]
fn hll_matches_redis() {
    let seed = bitlens_testseed::seed();
    println!("hll_diff seed {seed} (replay with BITLENS_SEED={seed})");
    let nkeys: usize = std::env::var("HLL_DIFF_KEYS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let server = RedisServer::start(&[]);
    let mut d = Diff {
        ks: Keyspace::new(),
        conn: server.connection(),
        seed,
        counts: BTreeMap::new(),
    };
    let mut rng = Rng(fastrand::Rng::with_seed(seed));
    const UNIVERSE: u64 = 400_000;

    // 1. PFADD random element sets, in several calls per key, with PFCOUNTs in between.
    let mut keys: Vec<Vec<u8>> = Vec::new();
    let mut sizes = [0usize; 4];
    let mut total = 0usize;
    for i in 0..nkeys {
        let key = format!("hll:{i}").into_bytes();
        let bucket = match rng.below(100) {
            0..=34 => 0,
            35..=69 => 1,
            70..=98 => 2,
            _ => 3,
        };
        let n = match bucket {
            0 => rng.below(800),
            1 => rng.range(800, 4000),
            2 => rng.log_range(4000, 25_000),
            _ => rng.range(25_000, 200_001),
        } as usize;
        sizes[bucket] += 1;
        total += n;
        // A contiguous stretch of the universe (overlapping other keys) plus random ids.
        let start = rng.below(UNIVERSE);
        let contiguous = rng.below(n as u64 + 1);
        let ids: Vec<u64> = (0..n as u64)
            .map(|j| {
                if j < contiguous {
                    (start + j) % UNIVERSE
                } else {
                    rng.below(UNIVERSE * 4)
                }
            })
            .collect();
        let mut cmds = Vec::new();
        if ids.is_empty() {
            cmds.push(argv(&[b"PFADD", &key]));
        }
        let mut pos = 0;
        while pos < ids.len() {
            let take = (rng.range(1, 3000) as usize).min(ids.len() - pos);
            let mut c = argv(&[b"PFADD", &key]);
            c.extend(ids[pos..pos + take].iter().map(|&id| element(id)));
            cmds.push(c);
            pos += take;
            if rng.chance(0.15) {
                cmds.push(argv(&[b"PFCOUNT", &key]));
            }
        }
        d.check_all(&cmds);
        keys.push(key);
    }
    println!(
        "keys: {} small (<800 elements), {} near promotion (800..4000), {} dense (4000..25000), \
         {} large (25000..200000); {total} elements",
        sizes[0], sizes[1], sizes[2], sizes[3]
    );

    // 2. GET bytes, single-key PFCOUNT (writes the cache), GET again.
    let gets: Vec<_> = keys.iter().map(|k| argv(&[b"GET", k])).collect();
    let counts: Vec<_> = keys.iter().map(|k| argv(&[b"PFCOUNT", k])).collect();
    d.check_all(&gets);
    d.check_all(&counts);
    d.check_all(&gets);
    let is_sparse = |d: &Diff, k: &[u8]| d.bytes(k).is_some_and(|b| b[4] == 1);
    let small: Vec<Vec<u8>> = keys.iter().filter(|k| is_sparse(&d, k)).cloned().collect();
    let near_limit = small
        .iter()
        .filter(|k| d.bytes(k).is_some_and(|b| b.len() > 2500))
        .count();
    println!(
        "{} keys sparse ({near_limit} of them over 2500 bytes), {} dense",
        small.len(),
        keys.len() - small.len()
    );
    if nkeys >= 500 {
        assert!(small.len() > 100 && keys.len() - small.len() > 100 && near_limit > 10);
    }

    // 3. Multi-key PFCOUNT over random subsets (some keys missing).
    let mut cmds = Vec::new();
    for _ in 0..800 {
        let n = rng.range(2, 31);
        let pool = if rng.chance(0.3) { &small } else { &keys };
        let mut c = argv(&[b"PFCOUNT"]);
        for _ in 0..n {
            if rng.chance(0.05) {
                c.push(format!("missing:{}", rng.below(10)).into_bytes());
            } else {
                c.push(pool[rng.below(pool.len() as u64) as usize].clone());
            }
        }
        cmds.push(c);
    }
    d.check_all(&cmds);

    // 4. PFMERGE into new keys, existing keys and earlier destinations; then GET, PFCOUNT,
    //    GET and sometimes PFADD more into the destination.
    let mut dests: Vec<Vec<u8>> = Vec::new();
    for j in 0..500 {
        let dest = match rng.below(4) {
            0 | 1 => format!("merged:{j}").into_bytes(),
            2 => keys[rng.below(keys.len() as u64) as usize].clone(),
            _ if !dests.is_empty() => dests[rng.below(dests.len() as u64) as usize].clone(),
            _ => format!("merged:{j}").into_bytes(),
        };
        let pool = if rng.chance(0.6) { &small } else { &keys };
        let n = if rng.chance(0.5) {
            rng.range(1, 4)
        } else {
            rng.range(0, 31)
        };
        let mut c = argv(&[b"PFMERGE", &dest]);
        for _ in 0..n {
            c.push(pool[rng.below(pool.len() as u64) as usize].clone());
        }
        let mut after = vec![
            c,
            argv(&[b"GET", &dest]),
            argv(&[b"PFCOUNT", &dest]),
            argv(&[b"GET", &dest]),
        ];
        if rng.chance(0.3) {
            let mut add = argv(&[b"PFADD", &dest]);
            let m = rng.below(50);
            add.extend((0..m).map(|_| element(rng.below(UNIVERSE * 4))));
            after.push(add);
            after.push(argv(&[b"GET", &dest]));
        }
        d.check_all(&after);
        dests.push(dest);
    }

    // 5. Invalid and corrupt strings: error replies (and what PFADD does to them).
    let base = keys
        .iter()
        .find(|k| d.bytes(k).is_some_and(|b| b[4] == 1 && b.len() > 40))
        .cloned()
        .expect("a sparse key");
    let good = d.bytes(&base).expect("sparse bytes");
    let dense_good = keys
        .iter()
        .find_map(|k| d.bytes(k).filter(|b| b[4] == 0))
        .expect("a dense key");
    let with = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut v = good.clone();
        f(&mut v);
        v[15] |= 0x80;
        v
    };
    // (string, also run PFADD on it)
    let mut crafted: Vec<(Vec<u8>, bool)> = vec![
        (with(&|v| v.truncate(v.len() - 1)), true),
        (with(&|v| v.push(0x00)), true),
        (with(&|v| v.push(0x80)), true),
        (with(&|v| v.push(0x40)), true),
        (with(&|v| v[3] = b'X'), true),
        (with(&|v| v[4] = 2), true),
        (with(&|v| v[4] = 0), true),
        (b"HYL".to_vec(), true),
        (b"not an hll at all".to_vec(), true),
        (b"12345".to_vec(), true),
    ];
    let mut cached = with(&|v| v.truncate(v.len() - 2));
    cached[15] = 0;
    cached[8] = 77;
    crafted.push((cached, true));
    let mut short_dense = dense_good.clone();
    short_dense.pop();
    crafted.push((short_dense, true));
    // Every register at 63: the estimate overflows (Redis replies i64::MIN).
    let mut all63 = dense_good.clone();
    all63[16..].fill(0xff);
    all63[15] |= 0x80;
    crafted.push((all63, true));
    let mut dense_as_sparse = dense_good.clone();
    dense_as_sparse[4] = 1;
    dense_as_sparse[15] |= 0x80;
    crafted.push((dense_as_sparse, false));
    // Random byte changes in the body (no PFADD on these: Redis 7.0 may assert on some).
    for _ in 0..300 {
        let mut v = good.clone();
        for _ in 0..rng.range(1, 4) {
            let i = 16 + rng.below((v.len() - 16) as u64) as usize;
            v[i] = rng.next() as u8;
        }
        if rng.chance(0.3) {
            let n = rng.range(16, v.len() as u64 + 1) as usize;
            v.truncate(n);
        }
        v[15] |= 0x80;
        crafted.push((v, false));
    }
    let _: () = redis::cmd("ZADD")
        .arg("wrong:zset")
        .arg(1)
        .arg("m")
        .query(&mut d.conn)
        .expect("ZADD");
    d.ks.set(b"wrong:zset", Value::Other(RedisType::ZSet));
    for (i, (value, pfadd)) in crafted.iter().enumerate() {
        let k = format!("bad:{i}").into_bytes();
        d.set_raw(&k, value);
        let dest = format!("baddest:{i}").into_bytes();
        d.check(argv(&[b"PFCOUNT", &k]));
        d.check(argv(&[b"PFCOUNT", &k, &base]));
        d.check(argv(&[b"PFCOUNT", &base, &k, b"wrong:zset"]));
        d.check(argv(&[b"PFCOUNT", b"wrong:zset", &k]));
        d.check(argv(&[b"PFMERGE", &dest, &base, &k]));
        d.check(argv(&[b"GET", &dest]));
        d.check(argv(&[b"PFMERGE", &k, &base]));
        d.check(argv(&[b"GET", &k]));
        if *pfadd {
            let mut add = argv(&[b"PFADD", &k]);
            add.extend((0..20).map(|_| element(rng.below(UNIVERSE * 4))));
            d.check(add);
            d.check(argv(&[b"GET", &k]));
            d.check(argv(&[b"PFCOUNT", &k]));
        }
    }
    // Strings too short for the header, the empty one included (helper-20: PFADD made an
    // empty string a HyperLogLog where Redis refuses it).
    for (i, short) in [&b""[..], b"H", b"HYLL", b"HYLL\x01"].iter().enumerate() {
        let k = format!("short:{i}").into_bytes();
        d.set_raw(&k, short);
        d.check(argv(&[b"PFADD", &k, b"a"]));
        d.check(argv(&[b"PFADD", &k]));
        d.check(argv(&[b"GET", &k]));
        d.check(argv(&[b"PFCOUNT", &k]));
        d.check(argv(&[b"PFMERGE", &k]));
        d.check(argv(&[b"GET", &k]));
    }
    d.check(argv(&[b"PFADD", b"wrong:zset", b"x"]));
    d.check(argv(&[b"PFCOUNT", b"wrong:zset"]));
    d.check(argv(&[b"PFMERGE", b"wrong:zset", &base]));
    d.check(argv(&[b"PFMERGE", b"newdest", &base, b"wrong:zset"]));
    d.check(argv(&[b"EXISTS", b"newdest"]));
    d.check(argv(&[b"PFCOUNT"]));
    d.check(argv(&[b"PFADD"]));

    let total: usize = d.counts.values().sum();
    println!("hll_diff: {total} commands identical to Redis:");
    for (name, n) in &d.counts {
        println!("  {name:<22} {n}");
    }
}
