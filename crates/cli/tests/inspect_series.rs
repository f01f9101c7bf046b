//! `bitlens inspect --series`: three snapshots one Redis 7.4.1 saved a second or more apart,
//! while random keys of a few patterns were added, grown and deleted. Given out of order, the
//! series orders them by ctime; each file's totals equal its own one-file report and the
//! server's DBSIZE at that SAVE; each row's column is the number of that snapshot's keys its
//! pattern matches (KEYS rules), every key in exactly one row; the growth is the last column
//! minus the first; text, JSON and CSV say the same. The seed is printed;
//! `BITLENS_SEED` replays it.

mod common;

use bitlens_difftest::{RedisServer, ServerKind};
use common::*;

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_slice(&bitlens_ok(args)).expect("JSON")
}

#[test]
fn series_of_three_snapshots_lines_up_their_patterns() {
    let seed = bitlens_testseed::seed();
    let Some(server) = RedisServer::start_kind_if_installed(ServerKind::Redis7_4, &[]) else {
        eprintln!("redis 7.4.1 not installed: skipped");
        return;
    };
    let mut c = server.connection();
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut files = Vec::new();
    let mut dbsizes = Vec::new();
    for step in 0..3 {
        for _ in 0..rng.usize(50..150) {
            let id = rng.u32(..400);
            let _: () = match rng.u8(..4) {
                0 => redis::cmd("SET")
                    .arg(format!("user:{id}:name"))
                    .arg("x".repeat(rng.usize(1..60)))
                    .query(&mut c)
                    .unwrap(),
                1 => redis::cmd("HSET")
                    .arg(format!("session:{id}"))
                    .arg(format!("f{}", rng.u8(..20)))
                    .arg(rng.u32(..))
                    .query(&mut c)
                    .map(|_: i64| ())
                    .unwrap(),
                2 => redis::cmd("SETBIT")
                    .arg(format!("active:2024050{step}"))
                    .arg(rng.u32(..100_000))
                    .arg(1)
                    .query(&mut c)
                    .map(|_: i64| ())
                    .unwrap(),
                _ => redis::cmd("DEL")
                    .arg(format!("user:{id}:name"))
                    .query(&mut c)
                    .map(|_: i64| ())
                    .unwrap(),
            };
        }
        let n: u64 = redis::cmd("DBSIZE").query(&mut c).unwrap();
        dbsizes.push(n);
        files.push(temp_file("s.rdb", &server.save_rdb()));
        // ctime has a resolution of one second.
        std::thread::sleep(std::time::Duration::from_millis(1100));
    }
    let paths: Vec<&str> = files.iter().map(|(_, p)| p.as_str()).collect();
    // Out of order on the command line.
    let given = [paths[2], paths[0], paths[1]];
    let mut args = vec!["inspect", "--series", "--json"];
    args.extend(given);
    let doc = json(&args);
    let got_paths: Vec<&str> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(got_paths, paths, "seed {seed}: ordered by ctime");
    let singles: Vec<serde_json::Value> = paths
        .iter()
        .map(|p| json(&["inspect", "--json", p]))
        .collect();
    for (i, one) in singles.iter().enumerate() {
        let f = &doc["files"][i];
        assert_eq!(
            f["keys"], dbsizes[i],
            "seed {seed}: file {i} keys vs DBSIZE"
        );
        assert_eq!(f["keys"], one["keys"]);
        assert_eq!(f["memory"], one["memory"]);
        assert!(f["ctime_ms"].as_i64().unwrap() > 0);
    }
    // Each row's column is the number of that snapshot's keys its pattern matches (KEYS
    // rules), and every key of every snapshot is in exactly one row: one grouping for all.
    let keys_of: Vec<Vec<Vec<u8>>> = paths
        .iter()
        .map(|p| {
            bitlens_ok(&["query", "--rdb", p, "KEYS", "*"])
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .map(<[u8]>::to_vec)
                .collect()
        })
        .collect();
    for (i, keys) in keys_of.iter().enumerate() {
        assert_eq!(keys.len() as u64, dbsizes[i]);
    }
    let rows = doc["patterns"].as_array().unwrap();
    let mut memory = [0u64; 3];
    for r in rows {
        let pattern = r["pattern"].as_str().unwrap();
        for (i, keys) in keys_of.iter().enumerate() {
            let n = keys
                .iter()
                .filter(|k| bitlens::glob::matches(pattern.as_bytes(), k))
                .count();
            assert_eq!(r["keys"][i], n as u64, "seed {seed}: {pattern} in file {i}");
            memory[i] += r["memory"][i].as_u64().unwrap();
        }
        let (k0, k2) = (
            r["keys"][0].as_i64().unwrap(),
            r["keys"][2].as_i64().unwrap(),
        );
        let (m0, m2) = (
            r["memory"][0].as_i64().unwrap(),
            r["memory"][2].as_i64().unwrap(),
        );
        assert_eq!(r["growth"]["keys"], k2 - k0);
        assert_eq!(r["growth"]["memory"], m2 - m0);
    }
    for (i, keys) in keys_of.iter().enumerate() {
        for k in keys {
            let n = rows
                .iter()
                .filter(|r| bitlens::glob::matches(r["pattern"].as_str().unwrap().as_bytes(), k))
                .count();
            assert_eq!(
                n,
                1,
                "seed {seed}: {} in file {i}",
                String::from_utf8_lossy(k)
            );
        }
        assert_eq!(
            Some(memory[i]),
            singles[i]["memory"].as_u64(),
            "file {i} memory"
        );
    }
    // Keys in several snapshots keep one row: the user:<id>:name keys are one row.
    let name_rows = rows
        .iter()
        .filter(|r| r["pattern"].as_str().unwrap().ends_with(":name"))
        .count();
    assert_eq!(name_rows, 1, "seed {seed}");
    assert_eq!(doc["growth"]["keys"], dbsizes[2] as i64 - dbsizes[0] as i64);
    // Largest memory change first.
    let changes: Vec<u64> = rows
        .iter()
        .map(|r| r["growth"]["memory"].as_i64().unwrap().unsigned_abs())
        .collect();
    assert!(changes.windows(2).all(|w| w[0] >= w[1]), "{changes:?}");
    // CSV: one row per pattern, the same numbers.
    let mut csv_args = vec!["inspect", "--series", "--csv"];
    csv_args.extend(given);
    let csv = String::from_utf8(bitlens_ok(&csv_args)).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "database,pattern,keys_1,memory_1,keys_2,memory_2,keys_3,memory_3,keys_growth,memory_growth"
    );
    for (line, r) in lines.zip(rows) {
        let want = format!(
            "0,{},{},{},{},{},{},{},{},{}",
            r["pattern"].as_str().unwrap(),
            r["keys"][0],
            r["memory"][0],
            r["keys"][1],
            r["memory"][1],
            r["keys"][2],
            r["memory"][2],
            r["growth"]["keys"],
            r["growth"]["memory"]
        );
        assert_eq!(line, want);
    }
    assert_eq!(csv.lines().count(), rows.len() + 1);
    // Text: the files in order, and the growth line.
    let mut text_args = vec!["inspect", "--series"];
    text_args.extend(given);
    let text = String::from_utf8(bitlens_ok(&text_args)).unwrap();
    assert!(text.starts_with("SERIES: 3 snapshots"), "{text}");
    let at: Vec<usize> = paths.iter().map(|p| text.find(p).unwrap()).collect();
    assert!(at[0] < at[1] && at[1] < at[2], "{text}");
    assert!(
        text.contains(&format!(
            "growth from #1 to #3: {:+} keys",
            dbsizes[2] as i64 - dbsizes[0] as i64
        )),
        "{text}"
    );
    // A bad file is named.
    let out = bitlens(&["inspect", "--series", paths[0], "/no/such.rdb"], b"");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such.rdb"));
}
