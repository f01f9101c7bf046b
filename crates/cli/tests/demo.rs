//! The demo data set as `bitlens serve` exports it: a real redis-server loads the snapshot
//! (copied into its --dir as dump.rdb), and BITCOUNT / BITOP / PFCOUNT / GEOSEARCH replies from
//! that Redis equal bitlens' replies on the same snapshot.

mod common;

use bitlens::rdb::{load_rdb, LoadOptions};
use common::*;

fn argv(parts: &[&str]) -> Vec<Vec<u8>> {
    parts.iter().map(|p| p.as_bytes().to_vec()).collect()
}

#[test]
fn demo_snapshot_loads_into_redis_and_answers_agree() {
    let served = Served::start(&[]);
    let resp = served.get("/api/snapshot");
    assert_eq!(resp.status, 200);
    assert!(resp.complete);

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("demo.rdb");
    std::fs::write(&file, &resp.body).unwrap();
    let redis = LoadedRedis::start(&file);
    let mut conn = redis.server.connection();

    let mut snap = load_rdb(&resp.body, &LoadOptions::default()).expect("bitlens reads it");
    let mut ks = snap.databases.remove(&0).expect("db 0");

    let dates = bitlens_cli::demo::dates();
    let mut cmds: Vec<Vec<Vec<u8>>> = vec![argv(&["DBSIZE"])];
    for (i, d) in dates.iter().enumerate() {
        let active = format!("stats:active:{d}");
        cmds.push(argv(&["BITCOUNT", &active]));
        cmds.push(argv(&["BITCOUNT", &active, "1000", "-1000"]));
        cmds.push(argv(&["BITCOUNT", &active, "5", "999999", "BIT"]));
        cmds.push(argv(&["PFCOUNT", &format!("uv:page:index:{d}")]));
        let shop = format!("uv:shop:{}:{d}", 1001 + (i % 12));
        cmds.push(argv(&["PFCOUNT", &shop]));
        cmds.push(argv(&["STRLEN", &shop]));
        if i >= 6 {
            let week: Vec<String> = dates[i - 6..=i]
                .iter()
                .map(|d| format!("uv:page:index:{d}"))
                .collect();
            let mut c = vec!["PFCOUNT".to_string()];
            c.extend(week);
            cmds.push(c.into_iter().map(String::into_bytes).collect());
            let mut op = vec!["BITOP".to_string(), "OR".into(), "scratch:7d".into()];
            op.extend(dates[i - 6..=i].iter().map(|d| format!("stats:active:{d}")));
            cmds.push(op.into_iter().map(String::into_bytes).collect());
            cmds.push(argv(&["BITCOUNT", "scratch:7d"]));
        }
    }
    let mut month = vec!["PFCOUNT".to_string()];
    month.extend(dates.iter().map(|d| format!("uv:page:index:{d}")));
    cmds.push(month.into_iter().map(String::into_bytes).collect());
    let (first, end) = bitlens_cli::demo::SIGN_UIDS;
    for uid in (first..end).step_by(97) {
        let key = format!("sign:{uid}:{}", bitlens_cli::demo::SIGN_MONTH);
        cmds.push(argv(&["BITCOUNT", &key]));
        cmds.push(argv(&["BITPOS", &key, "0"]));
        cmds.push(argv(&["GETBIT", &key, "29"]));
    }
    for (kind, _) in bitlens_cli::demo::GEO_TYPES {
        let key = format!("shop:geo:{kind}");
        cmds.push(argv(&["ZCARD", &key]));
        for (_, _, lon, lat, _) in bitlens_cli::demo::CITIES {
            for km in ["1", "3", "5"] {
                cmds.push(argv(&[
                    "GEOSEARCH",
                    &key,
                    "FROMLONLAT",
                    &lon.to_string(),
                    &lat.to_string(),
                    "BYRADIUS",
                    km,
                    "km",
                    "ASC",
                    "COUNT",
                    "40",
                    "WITHDIST",
                    "WITHCOORD",
                ]));
            }
        }
        cmds.push(argv(&[
            "GEOSEARCH",
            &key,
            "FROMMEMBER",
            &format!("{kind}:sh:\"Tom & Jerry's\" <b>&amp;</b>"),
            "BYBOX",
            "2",
            "2",
            "km",
            "DESC",
            "WITHDIST",
        ]));
    }
    let mut checked = 0;
    for c in &cmds {
        let want = bitlens_difftest::query(&mut conn, c);
        let got = bitlens::execute(&mut ks, c);
        assert_eq!(
            got.to_resp(),
            want.to_resp(),
            "{:?}",
            c.iter()
                .map(|a| String::from_utf8_lossy(a))
                .collect::<Vec<_>>()
        );
        // The data is not empty: every count and every search has something.
        let name = String::from_utf8_lossy(&c[0]).into_owned();
        if ["BITCOUNT", "PFCOUNT", "GEOSEARCH"].contains(&name.as_str()) {
            checked += 1;
            match &want {
                bitlens::Reply::Integer(n) => assert!(*n > 0, "{c:?}"),
                bitlens::Reply::Array(a) => assert!(!a.is_empty(), "{c:?}"),
                other => panic!("{c:?}: {other:?}"),
            }
        }
    }
    assert!(checked > 300);
    println!("demo: {} commands agree with redis-server", cmds.len());
}

#[test]
fn demo_api_filters_and_describes() {
    let served = Served::start(&["--match", "stats:*"]);
    let part = served.get("/api/snapshot?match=stats:active:2024050*");
    assert!(part.complete);
    let snap = load_rdb(&part.body, &LoadOptions::default()).unwrap();
    let mut keys: Vec<String> = snap.databases[&0]
        .iter()
        .map(|(k, _)| String::from_utf8_lossy(k).into_owned())
        .collect();
    keys.sort();
    let want: Vec<String> = (1..=9)
        .map(|d| format!("stats:active:2024050{d}"))
        .collect();
    assert_eq!(keys, want);

    // Without `match`, the --match default applies: every stats:active:* and stats:level:* key.
    let default = served.get("/api/snapshot");
    let snap = load_rdb(&default.body, &LoadOptions::default()).unwrap();
    assert_eq!(
        snap.databases[&0].len(),
        bitlens_cli::demo::DAYS as usize + bitlens_cli::demo::LEVEL_DAYS
    );

    let geo = served.get("/api/keys?match=shop:geo:*").json();
    let rows = geo.as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| r["type"] == "zset"));
    assert_eq!(rows[0]["key"], "shop:geo:cafe");

    let info = served.get("/api/info").json();
    assert_eq!(info["source"], "demo");
    assert_eq!(info["demo"]["dates"].as_array().unwrap().len(), 30);
    assert_eq!(info["default_match"][0], "stats:*");
    assert_eq!(info["conventions"]["active"], "stats:active:{YYYYMMDD}");
}
