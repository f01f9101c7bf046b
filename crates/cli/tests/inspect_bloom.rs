//! `bitlens inspect` on RedisBloom values: the "Probabilistic filters" rows and `--json`
//! figures equal the module's BF.INFO / CF.INFO / CMS.INFO / TOPK.INFO / TDIGEST.INFO replies,
//! and each value's memory equals the server's `MEMORY USAGE` (Redis 7.4.1 + RedisBloom
//! 2.8.2): once on the recorded dump (replies recorded in
//! tests/data/conformance/redis-7.4.1-bloom/cases.jsonl), once on a snapshot SAVEd by the
//! live module (skipped, with a message, when it is not installed).

use std::collections::HashMap;

use bitlens::probabilistic::Figure;
use bitlens::Reply;
use bitlens_cli::inspect::render::TextReport as _;
use bitlens_cli::inspect::{report, FilterRow, Options};
use bitlens_difftest::{query, RedisServer};

fn b(s: &str) -> Vec<u8> {
    s.as_bytes().to_vec()
}

/// An INFO reply (`[name, value, …]`) as name → integer or text.
fn info_map(r: &Reply) -> HashMap<String, String> {
    let Reply::Array(a) = r else { panic!("{r:?}") };
    let text = |r: &Reply| match r {
        Reply::Status(s) => s.clone(),
        Reply::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
        Reply::Integer(n) => n.to_string(),
        // BF.INFO Expansion rate of a NONSCALING filter.
        Reply::NullBulk => String::new(),
        other => panic!("{other:?}"),
    };
    a.chunks(2).map(|p| (text(&p[0]), text(&p[1]))).collect()
}

/// Which INFO field of RedisBloom 2.8.2 each figure of `Summary::figures` is, by kind.
const INFO_FIELDS: [(&str, &str, &str); 24] = [
    ("bloom", "capacity", "Capacity"),
    ("bloom", "items", "Number of items inserted"),
    ("bloom", "size_bytes", "Size"),
    ("bloom", "filters", "Number of filters"),
    ("bloom", "expansion", "Expansion rate"),
    ("cuckoo", "size_bytes", "Size"),
    ("cuckoo", "buckets", "Number of buckets"),
    ("cuckoo", "filters", "Number of filters"),
    ("cuckoo", "items", "Number of items inserted"),
    ("cuckoo", "deletes", "Number of items deleted"),
    ("cuckoo", "bucket_size", "Bucket size"),
    ("cuckoo", "expansion", "Expansion rate"),
    ("cuckoo", "max_iterations", "Max iterations"),
    ("cms", "width", "width"),
    ("cms", "depth", "depth"),
    ("cms", "count", "count"),
    ("topk", "k", "k"),
    ("topk", "width", "width"),
    ("topk", "depth", "depth"),
    ("topk", "decay", "decay"),
    ("tdigest", "compression", "Compression"),
    ("tdigest", "centroids", "Merged nodes"),
    ("tdigest", "observations", "Observations"),
    ("tdigest", "size_bytes", "Memory usage"),
];

/// Asserts a row's figures equal the module's INFO reply for its key.
fn check(f: &FilterRow, info: &HashMap<String, String>) {
    let key = String::from_utf8_lossy(&f.key);
    let figures = f.summary.figures();
    assert_ne!(figures.kind, "raw", "{key}: not interpreted");
    let mut checked = 0;
    for &(_, name, field) in INFO_FIELDS.iter().filter(|e| e.0 == figures.kind) {
        let want = &info[field];
        match figures.get(name) {
            // A NONSCALING filter's Expansion rate is a null bulk.
            Some(Figure::Absent) => assert!(want.is_empty(), "{key} {name}: {want:?}"),
            Some(figure) => {
                let want: f64 = want.parse().unwrap_or_else(|_| panic!("{key} {field}"));
                assert_eq!(figure.as_f64(), Some(want), "{key} {name}");
            }
            None => panic!("{key}: no figure {name}"),
        }
        checked += 1;
    }
    assert!(checked >= 3, "{key}: {checked} figures checked");
}

const INFO: [(&str, &str); 5] = [
    ("MBbloom--", "BF.INFO"),
    ("MBbloomCF", "CF.INFO"),
    ("CMSk-TYPE", "CMS.INFO"),
    ("TopK-TYPE", "TOPK.INFO"),
    ("TDIS-TYPE", "TDIGEST.INFO"),
];

fn info_command(type_name: &str) -> &'static str {
    INFO.iter()
        .find(|(t, _)| *t == type_name)
        .unwrap_or_else(|| panic!("{type_name}"))
        .1
}

#[test]
fn recorded_dump_figures_are_the_modules_info_replies() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/conformance/redis-7.4.1-bloom"
    );
    let dump = std::fs::read(format!("{dir}/dump.rdb")).unwrap();
    let cases = std::fs::read_to_string(format!("{dir}/cases.jsonl")).unwrap();
    let mut recorded: HashMap<(String, String), HashMap<String, String>> = HashMap::new();
    for line in cases.lines() {
        let c: serde_json::Value = serde_json::from_str(line).unwrap();
        let argv: Vec<String> = c["argv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap_or("").to_string())
            .collect();
        if argv.len() == 2 && argv[0].ends_with(".INFO") && c["reply"].is_array() {
            let reply = c["reply"].as_array().unwrap();
            let text = |v: &serde_json::Value| {
                v.get("status")
                    .or_else(|| v.get("bulk"))
                    .and_then(|s| s.as_str())
                    .map(str::to_string)
                    .unwrap_or_else(|| v.to_string())
            };
            let map = reply
                .chunks(2)
                .map(|p| (text(&p[0]), text(&p[1])))
                .collect();
            recorded.insert((argv[0].clone(), argv[1].clone()), map);
        }
    }
    let r = report(&dump, &Options::default()).unwrap();
    assert_eq!(r.filters.len(), 10);
    for f in &r.filters {
        let key = String::from_utf8(f.key.clone()).unwrap();
        let cmd = info_command(&f.type_name);
        let info = recorded
            .get(&(cmd.to_string(), key.clone()))
            .unwrap_or_else(|| panic!("no recorded {cmd} {key}"));
        check(f, info);
    }
    let text = r.to_text();
    assert!(text.contains("Probabilistic filters:"));
    let json = r.to_json();
    let rows = json["probabilistic"].as_array().unwrap();
    assert_eq!(rows.len(), 10);
    let scaling = rows.iter().find(|j| j["key"] == "bf:scaling").unwrap();
    // BF.INFO bf:scaling: Capacity 350, Size 1016, 3 filters, 299 items; MEMORY USAGE 1056.
    assert_eq!(
        (
            &scaling["capacity"],
            &scaling["items"],
            &scaling["size_bytes"],
            &scaling["filters"],
            &scaling["memory"]
        ),
        (
            &serde_json::json!(350),
            &serde_json::json!(299),
            &serde_json::json!(1016),
            &serde_json::json!(3),
            &serde_json::json!(1056)
        )
    );
}

#[test]
fn saved_module_values_match_info_and_memory_usage() {
    if std::panic::catch_unwind(bitlens_difftest::redisbloom_module).is_err() {
        eprintln!("SKIP inspect_bloom: redisbloom.so is not installed (npm run setup)");
        return;
    }
    let server = RedisServer::start_kind_with_bloom(&[]);
    let mut c = server.connection();
    let name_esc = "bf:\x1b[31mred";
    let setup: Vec<Vec<&str>> = vec![
        vec!["BF.RESERVE", "bf:a", "0.02", "500", "EXPANSION", "4"],
        vec!["BF.RESERVE", "bf:ns", "0.001", "50", "NONSCALING"],
        vec!["BF.RESERVE", name_esc, "0.1", "10"],
        vec![
            "CF.RESERVE",
            "cf:a",
            "300",
            "BUCKETSIZE",
            "4",
            "MAXITERATIONS",
            "30",
        ],
        vec!["CF.RESERVE", "cf:long-name-of-a-cuckoo-filter", "64"],
        vec!["CMS.INITBYPROB", "cms:p", "0.01", "0.002"],
        vec!["CMS.INITBYDIM", "cms:d", "33", "3"],
        vec!["TOPK.RESERVE", "topk:a", "7", "30", "3", "0.8"],
        vec!["TDIGEST.CREATE", "td:a", "COMPRESSION", "50"],
        vec!["TDIGEST.CREATE", "td:empty"],
    ];
    for argv in &setup {
        let argv: Vec<Vec<u8>> = argv.iter().map(|a| b(a)).collect();
        assert!(!query(&mut c, &argv).is_error(), "{argv:?}");
    }
    for i in 0..400 {
        let item = format!("item{i}");
        let cmds: Vec<Vec<String>> = vec![
            vec!["BF.ADD".into(), "bf:a".into(), item.clone()],
            vec!["BF.ADD".into(), "bf:ns".into(), item.clone()],
            vec!["BF.ADD".into(), name_esc.into(), item.clone()],
            vec!["CF.ADD".into(), "cf:a".into(), item.clone()],
            vec![
                "CMS.INCRBY".into(),
                "cms:p".into(),
                item.clone(),
                "3".into(),
            ],
            vec![
                "CMS.INCRBY".into(),
                "cms:d".into(),
                item.clone(),
                "1".into(),
            ],
            vec![
                "TOPK.INCRBY".into(),
                "topk:a".into(),
                format!("t{}", i % 13),
                "2".into(),
            ],
            vec![
                "TDIGEST.ADD".into(),
                "td:a".into(),
                format!("{}.5", i * 7 % 101),
            ],
        ];
        for argv in cmds {
            let argv: Vec<Vec<u8>> = argv.iter().map(|a| b(a)).collect();
            let _ = query(&mut c, &argv); // a full NONSCALING filter errors: expected
        }
        if i % 3 == 0 {
            let _ = query(
                &mut c,
                &[b("CF.ADD"), b("cf:long-name-of-a-cuckoo-filter"), b(&item)],
            );
        }
    }
    let _ = query(&mut c, &[b("CF.DEL"), b("cf:a"), b("item7")]);
    let rdb = server.save_rdb();
    let r = report(&rdb, &Options::default()).unwrap();
    assert_eq!(r.filters.len(), setup.len());
    for f in &r.filters {
        let cmd = info_command(&f.type_name);
        let info = info_map(&query(&mut c, &[b(cmd), f.key.clone()]));
        check(f, &info);
        let usage = query(&mut c, &[b("MEMORY"), b("USAGE"), f.key.clone()]);
        assert_eq!(
            Reply::Integer(f.memory.unwrap() as i64),
            usage,
            "MEMORY USAGE {}",
            String::from_utf8_lossy(&f.key)
        );
    }
    let text = r.to_text();
    assert!(!text.contains('\x1b'), "raw ESC on stdout");
}
