//! A cluster's shards as one keyspace: 3 masters in cluster mode (started here on loopback,
//! joined with `--cluster create`, no replicas), of Redis 7.0.15 and of Valkey 9.1.2, get
//! random keys of every type, each on the node owning its slot. Every node SAVEs, and
//! `bitlens query --rdb n1 --rdb n2 --rdb n3` must answer like the cluster: DBSIZE is the sum
//! of the nodes' DBSIZE, and for every key, TYPE, EXPIRETIME and reads of its value print
//! what redis-cli prints on the node that owns it. The same files with one
//! repeated are refused, naming the key and both files; `--on-duplicate` keeps one. Decoding
//! on one thread or several prints the same. `bitlens inspect n1 n2 n3` reports the union: its
//! keys are the nodes' DBSIZE, its memory their MEMORY USAGE (each key within its
//! `bitlens_difftest::memory_bound`, on Redis and Valkey alike), one FILES row per
//! node. The seed is printed; `BITLENS_SEED` replays it.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use bitlens_difftest::memory_bound::{glibc_remainder, key_bound, usable_chunks, KeyBound};
use bitlens_difftest::{RedisServer, ServerKind};
use common::*;

/// Starts 3 cluster-mode masters of `kind` and joins them; waits (at most 30 s) for
/// `cluster_state:ok` on each.
fn start_cluster(kind: ServerKind) -> Option<Vec<RedisServer>> {
    let nodes: Vec<RedisServer> = (0..3)
        .map(|_| {
            RedisServer::start_kind_if_installed(
                kind,
                &[
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    "nodes.conf",
                    "--cluster-node-timeout",
                    "5000",
                ],
            )
        })
        .collect::<Option<_>>()?;
    let mut create = Command::new(kind.cli());
    for (k, v) in kind.env() {
        create.env(k, v);
    }
    create.arg("--cluster").arg("create");
    for n in &nodes {
        create.arg(format!("127.0.0.1:{}", n.port));
    }
    let out = create
        .args(["--cluster-replicas", "0", "--cluster-yes"])
        .output()
        .expect("--cluster create");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    for n in &nodes {
        loop {
            let info: String = redis::cmd("CLUSTER")
                .arg("INFO")
                .query(&mut n.connection())
                .unwrap();
            if info.contains("cluster_state:ok") {
                break;
            }
            assert!(Instant::now() < deadline, "cluster never became ok");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    Some(nodes)
}

/// The node (index into `nodes`) that serves `key`'s slot.
fn owner(nodes: &[RedisServer], key: &[u8]) -> usize {
    let slot: i64 = redis::cmd("CLUSTER")
        .arg("KEYSLOT")
        .arg(key)
        .query(&mut nodes[0].connection())
        .unwrap();
    nodes
        .iter()
        .position(|n| {
            node_slots(nodes, n.port)
                .iter()
                .any(|(lo, hi)| (*lo..=*hi).contains(&slot))
        })
        .unwrap_or_else(|| panic!("no node serves slot {slot}"))
}

/// Writes one random key of a random type on its node; returns the commands that read it.
fn write_key(
    c: &mut redis::Connection,
    rng: &mut fastrand::Rng,
    i: usize,
) -> (Vec<u8>, Vec<String>) {
    let tag = if rng.u8(..4) == 0 {
        format!("{{t{}}}", rng.u8(..5))
    } else {
        String::new()
    };
    let run = |c: &mut redis::Connection, argv: &[String]| {
        let mut cmd = redis::cmd(&argv[0]);
        for a in &argv[1..] {
            cmd.arg(a);
        }
        let _: redis::Value = cmd.query(c).unwrap();
    };
    let (key, reads): (String, Vec<String>) = match rng.u8(..7) {
        0 => {
            let k = format!("s:{tag}{i}");
            let v = if rng.bool() {
                rng.i64(-1000..1000).to_string()
            } else {
                "x".repeat(rng.usize(1..80))
            };
            run(c, &["SET".into(), k.clone(), v]);
            (k.clone(), vec![format!("GET {k}"), format!("STRLEN {k}")])
        }
        1 => {
            let k = format!("b:{tag}{i}");
            for _ in 0..rng.usize(1..40) {
                run(
                    c,
                    &[
                        "SETBIT".into(),
                        k.clone(),
                        rng.u32(..5000).to_string(),
                        "1".into(),
                    ],
                );
            }
            (
                k.clone(),
                vec![format!("BITCOUNT {k}"), format!("BITPOS {k} 1")],
            )
        }
        2 => {
            let k = format!("h:{tag}{i}");
            let n = if rng.bool() {
                rng.usize(1..6)
            } else {
                rng.usize(100..200)
            };
            for f in 0..n {
                run(
                    c,
                    &[
                        "HSET".into(),
                        k.clone(),
                        format!("f{f}"),
                        rng.u32(..).to_string(),
                    ],
                );
            }
            (
                k.clone(),
                vec![
                    format!("HLEN {k}"),
                    format!("HGET {k} f0"),
                    format!("HMGET {k} f1 f2 nope"),
                ],
            )
        }
        3 => {
            let k = format!("z:{tag}{i}");
            for m in 0..rng.usize(1..150) {
                run(
                    c,
                    &[
                        "ZADD".into(),
                        k.clone(),
                        format!("{}", rng.f64() * 100.0),
                        format!("m{m}"),
                    ],
                );
            }
            (
                k.clone(),
                vec![format!("ZRANGE {k} 0 -1 WITHSCORES"), format!("ZCARD {k}")],
            )
        }
        4 => {
            let k = format!("l:{tag}{i}");
            for _ in 0..rng.usize(1..200) {
                run(c, &["RPUSH".into(), k.clone(), rng.u32(..).to_string()]);
            }
            (
                k.clone(),
                vec![format!("LRANGE {k} 0 -1"), format!("LLEN {k}")],
            )
        }
        5 => {
            let k = format!("set:{tag}{i}");
            for _ in 0..rng.usize(1..20) {
                run(c, &["SADD".into(), k.clone(), rng.u16(..).to_string()]);
            }
            (
                k.clone(),
                vec![format!("SCARD {k}"), format!("SISMEMBER {k} 7")],
            )
        }
        _ => {
            let k = format!("uv:{tag}{i}");
            for _ in 0..rng.usize(1..30) {
                run(c, &["PFADD".into(), k.clone(), format!("u{}", rng.u32(..))]);
            }
            (k.clone(), vec![format!("PFCOUNT {k}")])
        }
    };
    if rng.u8(..5) == 0 {
        run(
            c,
            &[
                "PEXPIREAT".into(),
                key.clone(),
                (4_000_000_000_000i64 + i as i64).to_string(),
            ],
        );
    }
    // (Not OBJECT ENCODING: the live node reports what its writes left, e.g. `raw` after
    // SETBIT, where a server loading the file reports the loaded encoding, as bitlens does.)
    let mut all = vec![format!("TYPE {key}"), format!("EXPIRETIME {key}")];
    all.extend(reads);
    (key.into_bytes(), all)
}

fn check(kind: ServerKind) {
    let seed = bitlens_testseed::seed();
    let Some(nodes) = start_cluster(kind) else {
        eprintln!("{} not installed: skipped", kind.name());
        return;
    };
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut reads: Vec<Vec<String>> = vec![Vec::new(); nodes.len()];
    let mut conns: Vec<redis::Connection> = nodes.iter().map(|n| n.connection()).collect();
    for i in 0..300 {
        // The key's draws: its name first (to find the node owning its slot), then its value.
        let mut draws = fastrand::Rng::with_seed(rng.u64(..));
        let key = name_of(&mut draws.clone(), i);
        let at = owner(&nodes, &key);
        let (written, cmds) = write_key(&mut conns[at], &mut draws, i);
        assert_eq!(written, key);
        reads[at].extend(cmds);
    }
    let mut files = Vec::new();
    let mut dbsize = 0i64;
    let mut sizes = Vec::new();
    let mut saved = Vec::new();
    for n in &nodes {
        let size: i64 = redis::cmd("DBSIZE").query(&mut n.connection()).unwrap();
        dbsize += size;
        sizes.push(size);
        let rdb = n.save_rdb();
        let (dir, path) = temp_file("node.rdb", &rdb);
        files.push((dir, path));
        saved.push(rdb);
    }
    check_inspect(kind, seed, &nodes, &files, &sizes, &saved);
    let mut args: Vec<&str> = vec!["query"];
    for (_, p) in &files {
        args.extend(["--rdb", p.as_str()]);
    }
    let mut q = args.clone();
    q.push("DBSIZE");
    assert_eq!(
        String::from_utf8(bitlens_ok(&q)).unwrap().trim(),
        dbsize.to_string(),
        "{} seed {seed}: DBSIZE",
        kind.name()
    );
    for (i, n) in nodes.iter().enumerate() {
        let stdin = reads[i].join("\n") + "\n";
        let want = redis_cli(n.port, &[], stdin.as_bytes());
        let got = bitlens(&args, stdin.as_bytes());
        assert!(
            got.status.success(),
            "{}",
            String::from_utf8_lossy(&got.stderr)
        );
        if got.stdout != want {
            let (g, w) = (
                String::from_utf8_lossy(&got.stdout),
                String::from_utf8_lossy(&want),
            );
            let (g, w): (Vec<&str>, Vec<&str>) = (g.lines().collect(), w.lines().collect());
            let at = g
                .iter()
                .zip(&w)
                .position(|(a, b)| a != b)
                .unwrap_or(g.len().min(w.len()));
            let around = |v: &[&str]| v[at.saturating_sub(4)..(at + 3).min(v.len())].join(" | ");
            panic!(
                "{} seed {seed}: the keys of node {i} differ at output line {at}\n  redis-cli: {}\n  bitlens:   {}",
                kind.name(),
                around(&w),
                around(&g)
            );
        }
        let mut one = vec!["--threads", "1"];
        one.extend(&args);
        assert_eq!(
            bitlens(&one, stdin.as_bytes()).stdout,
            got.stdout,
            "one thread"
        );
    }
    // A file given twice: every key of it is duplicated.
    let mut twice = args.clone();
    twice.extend(["--rdb", files[0].1.as_str(), "DBSIZE"]);
    let out = bitlens(&twice, b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains(&format!("is in both {} and {}", files[0].1, files[0].1))
            && err.contains("--on-duplicate"),
        "{err}"
    );
    twice.splice(1..1, ["--on-duplicate", "last"]);
    assert_eq!(
        String::from_utf8(bitlens_ok(&twice)).unwrap().trim(),
        dbsize.to_string()
    );
    // Last: it writes to the nodes.
    check_dump_diff(kind, seed, &nodes, &mut conns, &files, &reads, dbsize);
}

/// On Valkey 9.1.2 (a glibc build), at most one key of the nodes' files in this many may be
/// `MEMORY USAGE` over its estimate by glibc's unsplit chunk remainders (16 or 32 bytes,
/// `memory_bound::glibc_remainder`) on a cluster node, whose loader frees and reuses far more
/// than a standalone server's (`memory_bound::GLIBC_REMAINDER_KEYS`). The same seed's data
/// gives other keys and counts from run to run (seed 12 three times: 15, 9, 13 keys), so it is
/// the allocator's reuse, not the model: measured over 19 runs of 300 keys (seeds 5-25),
/// 0-17 keys (at most 5.7%), 16 or 32 bytes each. The bound is 1 in 10 (30 of 300).
const CLUSTER_GLIBC_REMAINDER_KEYS: usize = 10;

/// `bitlens inspect n1 n2 n3` (`--json`): the union's keys are the sum of the nodes' DBSIZE
/// and its memory the sum of the files' own reports; each FILES row is its node's (keys,
/// memory, slots within the node's slot ranges); `--csv` of the union gives every key once,
/// its memory MEMORY USAGE (SAMPLES 0) on a fresh server loading the node's file, byte for
/// byte but where `memory_bound` states a cause (skiplists, child buckets, glibc remainders); the text report and one thread
/// agree; the files given twice are refused unless `--on-duplicate`.
fn check_inspect(
    kind: ServerKind,
    seed: u64,
    nodes: &[RedisServer],
    files: &[(tempfile::TempDir, String)],
    sizes: &[i64],
    saved: &[Vec<u8>],
) {
    let name = kind.name();
    let paths: Vec<&str> = files.iter().map(|(_, p)| p.as_str()).collect();
    // Inferred from each node's used-mem, the allocator is the build's, or said to be
    // assumed: never another one inferred. A 7.4+ / Valkey 8+ node's file says it comes from
    // a cluster node (slot records), so its prediction counts per-slot tables and a cluster
    // node's empty used_memory; with a few hundred keys the candidates are too close to tell
    // apart (`CLUSTER_INFERENCE_MARGIN`), so the figures below give the build's allocator.
    for path in &paths {
        let doc: serde_json::Value =
            serde_json::from_slice(&bitlens_ok(&["inspect", "--json", "--top", "1", path]))
                .expect("inspect --json");
        let reason = doc["allocator_reason"].as_str().unwrap_or_default();
        if doc["allocator_source"] == "inferred" {
            assert_eq!(
                doc["allocator"],
                kind.allocator().name(),
                "{name} seed {seed}: {reason}"
            );
        }
        if kind != ServerKind::Redis7_0 {
            assert!(
                reason.contains("of a cluster node"),
                "{name} seed {seed}: {reason}"
            );
        }
    }
    let allocator = kind.allocator().name();
    let mut args = vec!["inspect", "--json", "--top", "5", "--allocator", allocator];
    args.extend(&paths);
    let json = |a: &[&str]| -> serde_json::Value {
        serde_json::from_slice(&bitlens_ok(a)).expect("inspect --json")
    };
    let doc = json(&args);
    assert_eq!(
        doc["keys"],
        sizes.iter().sum::<i64>(),
        "{name} seed {seed}: keys"
    );
    let rows = doc["files"].as_array().expect("files");
    assert_eq!(rows.len(), 3);
    let mut memory_sum = 0u64;
    let (mut usage_sum, mut est_sum) = (0u64, 0u64);
    let mut remainders: Vec<String> = Vec::new();
    // The union's rows (every key once): key -> estimated memory.
    let mut csv = vec!["inspect", "--csv", "--allocator", allocator];
    csv.extend(&paths);
    let csv = String::from_utf8(bitlens_ok(&csv)).unwrap();
    assert_eq!(csv.lines().count() as i64 - 1, sizes.iter().sum::<i64>());
    let est: std::collections::HashMap<String, u64> = csv_key_memory(&csv).into_iter().collect();
    assert_eq!(est.len() as i64, sizes.iter().sum::<i64>(), "keys once");
    for (i, (row, n)) in rows.iter().zip(nodes).enumerate() {
        let one = json(&[
            "inspect",
            "--json",
            "--top",
            "5",
            "--allocator",
            allocator,
            paths[i],
        ]);
        assert_eq!(row["path"], paths[i]);
        assert_eq!(row["keys"], sizes[i], "{name} seed {seed}: node {i} keys");
        assert_eq!(row["keys"], one["keys"]);
        assert_eq!(
            row["memory"], one["memory"],
            "{name} seed {seed}: node {i} memory"
        );
        assert_eq!(row["allocator"], one["allocator"]);
        assert_eq!(row["shadowed"], 0);
        memory_sum += one["memory"].as_u64().unwrap();
        // The node's slots: every key's slot lies in them, so the range does too.
        let ranges = node_slots(nodes, n.port);
        for end in ["slot_min", "slot_max"] {
            let s = row[end].as_i64().unwrap();
            assert!(
                ranges.iter().any(|(lo, hi)| (*lo..=*hi).contains(&s)),
                "{name} seed {seed}: node {i} {end} {s} outside {ranges:?}"
            );
        }
        // MEMORY USAGE of every key on a fresh server loading the node's file; each key held
        // to its bound (`memory_bound`: byte-exact but where the server's own figure varies).
        let snap = bitlens::rdb::load_rdb(&saved[i], &bitlens::rdb::LoadOptions::default())
            .expect("the node's file loads");
        let profile = bitlens::dialect::Profile::for_snapshot(&snap.aux, snap.version);
        let values: std::collections::HashMap<Vec<u8>, &bitlens::Value> = snap
            .entries()
            .into_iter()
            .map(|(_, k, e)| (k.to_vec(), e.value))
            .collect();
        let loaded = RedisServer::start_kind_loading(kind, &saved[i], &[]);
        let mut c = loaded.connection();
        let keys: Vec<Vec<u8>> = redis::cmd("KEYS").arg("*").query(&mut c).unwrap();
        assert_eq!(keys.len() as i64, sizes[i]);
        for k in keys {
            let u: u64 = redis::cmd("MEMORY")
                .arg("USAGE")
                .arg(&k)
                .arg("SAMPLES")
                .arg(0)
                .query(&mut c)
                .unwrap();
            let enc: String = redis::cmd("OBJECT")
                .arg("ENCODING")
                .arg(&k)
                .query(&mut c)
                .unwrap();
            let bound = key_bound(profile, &k, values[&k], &enc);
            let chunks = usable_chunks(values[&k]);
            let ks = String::from_utf8(k).unwrap();
            let e = est[&ks];
            // (A libc build's unsplit chunk remainders: counted, bounded below.)
            if kind.allocator() == bitlens_views::memory::Allocator::Libc
                && bound == KeyBound::Exact
                && glibc_remainder(e, u, chunks)
            {
                remainders.push(format!("{ks} ({enc}) {e} vs {u}"));
            } else {
                assert!(
                    bound.holds(e, u),
                    "{name} seed {seed}: {ks} ({enc}) {e} vs MEMORY USAGE {u}, bound {bound:?}"
                );
            }
            usage_sum += u;
            est_sum += e;
        }
    }
    let keys: usize = sizes.iter().sum::<i64>() as usize;
    eprintln!(
        "{name} seed {seed}: {} of {keys} keys over by glibc's chunk remainders: {remainders:?}",
        remainders.len()
    );
    assert!(
        remainders.len() <= keys.div_ceil(CLUSTER_GLIBC_REMAINDER_KEYS),
        "{name} seed {seed}: {} of {keys} keys over by glibc's chunk remainders",
        remainders.len()
    );
    assert_eq!(
        est_sum, memory_sum,
        "{name} seed {seed}: CSV rows vs the files' reports"
    );
    assert_eq!(
        doc["memory"].as_u64(),
        Some(memory_sum),
        "{name} seed {seed}"
    );
    let off = (memory_sum as f64 - usage_sum as f64).abs() / usage_sum as f64;
    eprintln!("{name} seed {seed}: inspect memory {memory_sum}, MEMORY USAGE sum {usage_sum} ({:.3}% off)", off * 100.0);
    // One thread: the same document; the text report names every file.
    let mut one = vec!["--threads", "1"];
    one.extend(&args);
    assert_eq!(json(&one), doc, "{name} seed {seed}: one thread");
    let mut text = vec!["inspect", "--allocator", allocator];
    text.extend(&paths);
    let text = String::from_utf8(bitlens_ok(&text)).unwrap();
    assert!(text.contains("FILES: 3 read as one keyspace"), "{text}");
    for p in &paths {
        assert!(text.contains(p), "{p} in\n{text}");
    }
    // A file given twice.
    let mut twice = vec!["inspect", "--json", "--top", "5", "--allocator", allocator];
    twice.extend(&paths);
    twice.push(paths[1]);
    let out = bitlens(&twice, b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains(&format!("is in both {} and {}", paths[1], paths[1]))
            && err.contains(&format!(
                "({} copies of keys repeat an earlier file's)",
                sizes[1]
            )),
        "{err}"
    );
    twice.splice(1..1, ["--on-duplicate", "first"]);
    let dup = json(&twice);
    assert_eq!(dup["keys"], doc["keys"]);
    assert_eq!(dup["memory"], doc["memory"]);
    // The repeated file lost every key to its first copy; the table counts what is kept.
    assert_eq!(dup["files"][3]["shadowed"], sizes[1]);
    assert_eq!(dup["files"][3]["keys"], 0);
    assert_eq!(dup["files"][1]["shadowed"], 0);
    assert_eq!(dup["files"][1]["keys"], sizes[1]);
}

/// `bitlens dump n1 n2 n3 --format resp`, replayed into a fresh standalone server, rebuilds
/// the cluster's data: every node's reads print the same on it as on the node (redis-cli on
/// both). `diff --old n1 n2 n3 --new replay.rdb` finds nothing changed; after a key is
/// deleted, one added and one changed on the cluster, `diff --old replay.rdb --new` the nodes'
/// next files names exactly those. Files given twice are refused before anything is
/// written, and `--on-duplicate first` dumps each key once.
fn check_dump_diff(
    kind: ServerKind,
    seed: u64,
    nodes: &[RedisServer],
    conns: &mut [redis::Connection],
    files: &[(tempfile::TempDir, String)],
    reads: &[Vec<String>],
    dbsize: i64,
) {
    let name = kind.name();
    let paths: Vec<&str> = files.iter().map(|(_, p)| p.as_str()).collect();
    let mut dump = vec!["dump", "--format", "resp"];
    dump.extend(&paths);
    let resp = bitlens_ok(&dump);
    let replay = RedisServer::start_kind(kind, &[]);
    let mut r = replay.raw_connection();
    for cmd in parse_resp(&resp) {
        let rep = r.query(&cmd);
        assert!(
            !rep.starts_with(b"-"),
            "{name} seed {seed}: {cmd:?}: {rep:?}"
        );
    }
    // JSON lines: one per key of the union, whatever the thread count.
    let mut jsonl = vec!["dump"];
    jsonl.extend(&paths);
    let lines = bitlens_ok(&jsonl);
    assert_eq!(
        lines.iter().filter(|&&b| b == b'\n').count() as i64,
        dbsize,
        "{name} seed {seed}: JSON lines"
    );
    let mut one = vec!["--threads", "1"];
    one.extend(&jsonl);
    assert_eq!(bitlens_ok(&one), lines, "{name} seed {seed}: one thread");
    // A file twice: refused before a line is written; `first` keeps one copy.
    let mut twice = jsonl.clone();
    twice.push(paths[2]);
    let out = bitlens(&twice, b"");
    assert!(!out.status.success() && out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("is in both {} and {}", paths[2], paths[2])),
        "{err}"
    );
    twice.splice(1..1, ["--on-duplicate", "first"]);
    assert_eq!(
        bitlens_ok(&twice),
        lines,
        "{name} seed {seed}: --on-duplicate first"
    );

    // diff: the replayed data set equals the union.
    let replayed = replay.save_rdb();
    let (_dr, replayed) = temp_file("replay.rdb", &replayed);
    let mut same = vec!["diff", "--json", "--old"];
    same.extend(&paths);
    same.extend(["--new", replayed.as_str()]);
    let v: serde_json::Value = serde_json::from_slice(&bitlens_ok(&same)).unwrap();
    assert_eq!(
        (
            v["added"].as_array().unwrap().len(),
            v["removed"].as_array().unwrap().len(),
            v["changed"].as_array().unwrap().len(),
            v["unchanged"].as_i64()
        ),
        (0, 0, 0, Some(dbsize)),
        "{name} seed {seed}: diff of the union and its replay: {v}"
    );
    let size: i64 = redis::cmd("DBSIZE")
        .query(&mut replay.connection())
        .unwrap();
    assert_eq!(size, dbsize, "{name} seed {seed}: keys replayed");
    // (PFCOUNT caches the count in the HLL's header, on the replay and the nodes alike: the
    // replay is saved again after the reads, the old side of the next diff.)
    for (i, n) in nodes.iter().enumerate() {
        let stdin = reads[i].join("\n") + "\n";
        assert_eq!(
            String::from_utf8_lossy(&redis_cli(replay.port, &[], stdin.as_bytes())),
            String::from_utf8_lossy(&redis_cli(n.port, &[], stdin.as_bytes())),
            "{name} seed {seed}: node {i}'s keys after the replay of the union's dump"
        );
    }
    let replayed = replay.save_rdb();
    let (_dr2, replayed) = temp_file("replay-read.rdb", &replayed);
    // One key deleted, one added, one changed, each on the node owning it.
    let gone = reads
        .iter()
        .flatten()
        .find_map(|l| l.strip_prefix("TYPE "))
        .expect("a key")
        .to_string();
    let changed = reads
        .iter()
        .flatten()
        .filter_map(|l| l.strip_prefix("TYPE "))
        .find(|k| *k != gone)
        .expect("another key")
        .to_string();
    let added = format!("diff:added:{seed}");
    for (key, cmd) in [
        (&gone, vec!["DEL".to_string(), gone.clone()]),
        (
            &changed,
            vec![
                "PEXPIREAT".to_string(),
                changed.clone(),
                "4102444800123".into(),
            ],
        ),
        (&added, vec!["SET".to_string(), added.clone(), "x".into()]),
    ] {
        let at = owner(nodes, key.as_bytes());
        let _: redis::Value = redis::cmd(&cmd[0])
            .arg(&cmd[1..])
            .query(&mut conns[at])
            .unwrap();
    }
    let next: Vec<(tempfile::TempDir, String)> = nodes
        .iter()
        .map(|n| temp_file("next.rdb", &n.save_rdb()))
        .collect();
    let mut d = vec!["diff", "--json", "--old", replayed.as_str(), "--new"];
    d.extend(next.iter().map(|(_, p)| p.as_str()));
    let v: serde_json::Value = serde_json::from_slice(&bitlens_ok(&d)).unwrap();
    let keys = |s: &str| -> Vec<String> {
        v[s].as_array()
            .unwrap()
            .iter()
            .map(|k| k["key"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        (keys("added"), keys("removed"), keys("changed")),
        (vec![added], vec![gone], vec![changed]),
        "{name} seed {seed}: diff of the nodes' files before and after"
    );
    assert_eq!(v["unchanged"].as_i64(), Some(dbsize - 2));
}

/// The slot ranges `CLUSTER SLOTS` gives the node on `port`.
fn node_slots(nodes: &[RedisServer], port: u16) -> Vec<(i64, i64)> {
    let slots: redis::Value = redis::cmd("CLUSTER")
        .arg("SLOTS")
        .query(&mut nodes[0].connection())
        .unwrap();
    let redis::Value::Array(ranges) = slots else {
        panic!("CLUSTER SLOTS: {slots:?}")
    };
    let mut out = Vec::new();
    for r in ranges {
        let redis::Value::Array(r) = r else { continue };
        let (redis::Value::Int(lo), redis::Value::Int(hi), redis::Value::Array(node)) =
            (&r[0], &r[1], &r[2])
        else {
            continue;
        };
        if node[1] == redis::Value::Int(i64::from(port)) {
            out.push((*lo, *hi));
        }
    }
    out
}

/// The key name [`write_key`] draws for key `i` from the same generator state.
fn name_of(rng: &mut fastrand::Rng, i: usize) -> Vec<u8> {
    let tag = if rng.u8(..4) == 0 {
        format!("{{t{}}}", rng.u8(..5))
    } else {
        String::new()
    };
    let prefix = ["s:", "b:", "h:", "z:", "l:", "set:", "uv:"][rng.u8(..7) as usize];
    format!("{prefix}{tag}{i}").into_bytes()
}

#[test]
fn redis_7_0_shards_answer_as_the_cluster() {
    check(ServerKind::Redis7_0);
}

#[test]
fn valkey_9_1_shards_answer_as_the_cluster() {
    check(ServerKind::Valkey9_1);
}

#[test]
fn redis_8_0_shards_answer_as_the_cluster() {
    check(ServerKind::Redis8_0);
}

#[test]
fn valkey_8_1_1_shards_answer_as_the_cluster() {
    check(ServerKind::Valkey8_1_1);
}
