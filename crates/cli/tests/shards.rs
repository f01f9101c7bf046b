//! A cluster's shards as one keyspace: 3 masters in cluster mode (started here on loopback,
//! joined with `--cluster create`, no replicas), of Redis 7.0.15 and of Valkey 9.1.2, get
//! random keys of every type, each on the node owning its slot. Every node SAVEs, and
//! `bitlens query --rdb n1 --rdb n2 --rdb n3` must answer like the cluster: DBSIZE is the sum
//! of the nodes' DBSIZE, and for every key, TYPE, EXPIRETIME and reads of its value print
//! what redis-cli prints on the node that owns it. The same files with one
//! repeated are refused, naming the key and both files; `--on-duplicate` keeps one. Decoding
//! on one thread or several prints the same. The seed is printed; `BITLENS_SEED` replays it.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

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
    let slots: redis::Value = redis::cmd("CLUSTER")
        .arg("SLOTS")
        .query(&mut nodes[0].connection())
        .unwrap();
    let redis::Value::Array(ranges) = slots else {
        panic!("CLUSTER SLOTS: {slots:?}")
    };
    for r in ranges {
        let redis::Value::Array(r) = r else { continue };
        let (redis::Value::Int(lo), redis::Value::Int(hi)) = (&r[0], &r[1]) else {
            continue;
        };
        if (*lo..=*hi).contains(&slot) {
            let redis::Value::Array(node) = &r[2] else {
                continue;
            };
            let redis::Value::Int(port) = node[1] else {
                continue;
            };
            return nodes
                .iter()
                .position(|n| i64::from(n.port) == port)
                .unwrap();
        }
    }
    panic!("no node serves slot {slot}")
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
    let seed = bitlens_difftest::seed_from_env("SHARDS_SEED");
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
    for n in &nodes {
        let size: i64 = redis::cmd("DBSIZE").query(&mut n.connection()).unwrap();
        dbsize += size;
        let (dir, path) = temp_file("node.rdb", &n.save_rdb());
        files.push((dir, path));
    }
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
