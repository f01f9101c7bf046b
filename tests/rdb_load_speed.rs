//! Load-speed probe (not a pass/fail test): `BITLENS_LOAD_RDB=path cargo test --release -p
//! bitlens --test rdb_load_speed -- --ignored --nocapture` prints the whole-file load rate
//! of the slice and chunked readers and the decode time per (type, encoding).

use std::collections::BTreeMap;
use std::time::Instant;

use bitlens::rdb::{load_rdb, load_rdb_chunked, visit_rdb, LoadOptions};

#[test]
#[ignore]
fn load_speed() {
    let Ok(path) = std::env::var("BITLENS_LOAD_RDB") else {
        eprintln!("set BITLENS_LOAD_RDB to an RDB file");
        return;
    };
    let bytes = std::fs::read(&path).unwrap();
    let mb = bytes.len() as f64 / 1e6;
    for round in 0..2 {
        let t = Instant::now();
        let snap = load_rdb(&bytes, &LoadOptions::default()).unwrap();
        let s = t.elapsed().as_secs_f64();
        println!(
            "round {round}: slice load {mb:.0} MB in {s:.2} s = {:.0} MB/s ({} keys)",
            mb / s,
            snap.databases.values().map(|k| k.len()).sum::<usize>()
        );
    }
    let t = Instant::now();
    let mut src: &[u8] = &bytes;
    load_rdb_chunked(&mut src, 8 << 20, &LoadOptions::default(), &mut |_, _| {
        Ok(())
    })
    .unwrap();
    let s = t.elapsed().as_secs_f64();
    println!(
        "chunked load (8 MiB windows): {s:.2} s = {:.0} MB/s",
        mb / s
    );
    let t = Instant::now();
    let opts = LoadOptions {
        patterns: vec![b"no-such-key".to_vec()],
        ..LoadOptions::default()
    };
    load_rdb(&bytes, &opts).unwrap();
    let s = t.elapsed().as_secs_f64();
    println!("skip every key: {s:.2} s = {:.0} MB/s", mb / s);
    let mut per: BTreeMap<String, (u64, u64, f64)> = BTreeMap::new();
    let mut last = Instant::now();
    let mut last_end = 0u64;
    visit_rdb(&bytes, &LoadOptions::default(), |rec| {
        let el = last.elapsed().as_secs_f64();
        let name = format!(
            "{} {}",
            rec.value
                .as_ref()
                .map_or("-".into(), |v| v.redis_type().name()),
            rec.encoding
        );
        let e = per.entry(name).or_default();
        e.0 += 1;
        e.1 += rec.offset + 1 + rec.value_bytes - last_end.min(rec.offset);
        e.2 += el;
        last_end = rec.offset + 1 + rec.value_bytes;
        drop(rec);
        last = Instant::now();
        Ok(())
    })
    .unwrap();
    for (k, (n, b, s)) in per {
        println!(
            "{k:30} {n:6} keys {:8.1} MB {s:7.3} s {:8.0} MB/s",
            b as f64 / 1e6,
            b as f64 / 1e6 / s
        );
    }
}
