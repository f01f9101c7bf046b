//! `inspect::report` on the conformance snapshots (Redis 7.0): every key is counted once, in
//! a group of its recorded type, and group lengths add up to the recorded STRLEN / ZCARD.

mod common;

use common::{conformance_dir, url_decode};
use std::collections::BTreeMap;

use bitlens::inspect::{key_pattern, report};
use bitlens::rdb::LoadOptions;

#[test]
fn report_accounts_for_every_recorded_key() {
    for set in ["bitmaps", "signin", "hll", "geo"] {
        let dir = conformance_dir().join(set);
        let bytes = std::fs::read(dir.join("dump.rdb")).unwrap();
        let r = report(&bytes, &LoadOptions::default()).unwrap();
        assert_eq!(r.version, 10);
        assert_eq!(r.databases.len(), 1);
        // (pattern, type) -> (count, length sum) from keys.tsv
        let mut want: BTreeMap<(String, String), (u64, u64)> = BTreeMap::new();
        let tsv = std::fs::read_to_string(dir.join("keys.tsv")).unwrap();
        for line in tsv.lines().skip(1) {
            let f: Vec<&str> = line.split('\t').collect();
            let pat = String::from_utf8_lossy(&key_pattern(&url_decode(f[0]))).into_owned();
            let len: u64 = match f[1] {
                "string" | "zset" => f[3].parse().unwrap(),
                _ => 0,
            };
            let e = want.entry((pat, f[1].to_string())).or_default();
            e.0 += 1;
            e.1 += len;
        }
        let got: BTreeMap<(String, String), (u64, u64)> = r.databases[0]
            .groups
            .iter()
            .map(|g| {
                (
                    (g.pattern.clone(), g.type_name.clone()),
                    (g.count, g.length),
                )
            })
            .collect();
        assert_eq!(got, want, "{set}");
        let json = r.to_json();
        assert_eq!(
            json["databases"][0]["keys"].as_u64().unwrap(),
            (tsv.lines().count() - 1) as u64
        );
    }
}

#[test]
fn report_respects_patterns() {
    let bytes = std::fs::read(conformance_dir().join("signin/dump.rdb")).unwrap();
    let opts = LoadOptions {
        patterns: vec![b"sign:*:202404".to_vec()],
        ..LoadOptions::default()
    };
    let r = report(&bytes, &opts).unwrap();
    let groups = &r.databases[0].groups;
    assert_eq!(groups.len(), 1);
    assert_eq!(groups[0].pattern, "sign:*:202404");
    let text = r.to_text();
    assert!(text.contains("sign:*:202404"), "{text}");
    assert!(!text.contains("202405"), "{text}");
}
