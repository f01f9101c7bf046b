//! Analytics on the shared conformance data sets `signin` and `bitmaps` (snapshots of a real
//! Redis 7, loaded with `bitlens::rdb::load_rdb`), each checked against a naive bit-by-bit
//! reference: sign-in histograms and per-user figures on every `sign:*` key, streak histogram,
//! DAU / rolling actives / retention on the 30 `stats:active:*` days, enum distributions of the
//! BITFIELD-written `stats:level:*` fields, tags and idempotency queries on the other bitmaps.

mod common;

use common::conformance_dir;

use bitlens::analytics::{self, daily, enums, offsets, signin, tags};
use bitlens::command::execute_str;
use bitlens::rdb::{load_rdb, LoadOptions};
use bitlens::{Keyspace, Reply};

/// Database 0 of `<set>/dump.rdb`; `None` only while the RDB reader is still the stub on this
/// branch (it says so in its error text), so these tests start checking as soon as it lands.
fn load(set: &str) -> Option<Keyspace> {
    let path = conformance_dir().join(set).join("dump.rdb");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    match load_rdb(&bytes, &LoadOptions::default()) {
        Ok(mut snap) => Some(snap.databases.remove(&0).expect("database 0")),
        Err(e) if e.to_string().contains("not implemented") => {
            eprintln!("skipping: {e}");
            None
        }
        Err(e) => panic!("{set}/dump.rdb: {e}"),
    }
}

fn bit(b: &[u8], i: u64) -> bool {
    (i / 8) < b.len() as u64 && (b[(i / 8) as usize] >> (7 - i % 8)) & 1 == 1
}

fn naive_run_ending(b: &[u8], p: u64) -> u64 {
    let mut run = 0;
    while run <= p && bit(b, p - run) {
        run += 1;
    }
    run
}

fn bytes_of(ks: &Keyspace, key: &[u8]) -> Vec<u8> {
    analytics::bitmap(ks, key).unwrap().into_owned()
}

fn ints(v: &[u64]) -> Reply {
    Reply::Array(v.iter().map(|&n| Reply::Integer(n as i64)).collect())
}

#[test]
fn signin_set() {
    let Some(mut ks) = load("signin") else { return };
    for month in ["202404", "202405"] {
        let pattern = format!("sign:*:{month}");
        let keys = analytics::string_keys_matching(&ks, pattern.as_bytes());
        assert!(keys.len() > 100, "{pattern}: {} keys", keys.len());
        let users: Vec<Vec<u8>> = keys.iter().map(|k| bytes_of(&ks, k)).collect();
        for day in 1..=31u64 {
            let mut want = vec![0u64; day as usize + 1];
            let mut days_want = vec![0u64; day as usize + 1];
            for b in &users {
                want[naive_run_ending(b, day - 1) as usize] += 1;
                days_want[(0..day).filter(|&i| bit(b, i)).count()] += 1;
            }
            let d = day.to_string();
            assert_eq!(
                execute_str(&mut ks, &["BITLENS.SIGNINHIST", &pattern, &d]),
                ints(&want),
                "{pattern} day {day}"
            );
            assert_eq!(
                signin::days_histogram(&ks, pattern.as_bytes(), day),
                days_want
            );
        }
    }
    // Per user, with the streak carried from April into May when April's key exists.
    for key in analytics::string_keys_matching(&ks, b"sign:*:202405") {
        let b = bytes_of(&ks, &key);
        let april_key = signin::previous_month_key(&key).unwrap().0;
        let april = ks.get(&april_key).map(|_| bytes_of(&ks, &april_key));
        for day in 1..=31u64 {
            let m = signin::user_month(&ks, &key, day, true).unwrap();
            let run = naive_run_ending(&b, day - 1);
            let carried = match &april {
                Some(a) if run == day => run + naive_run_ending(a, 29),
                _ => run,
            };
            let (mut best, mut cur) = (0, 0);
            for i in 0..day {
                cur = if bit(&b, i) { cur + 1 } else { 0 };
                best = best.max(cur);
            }
            assert_eq!(m.signed_in, bit(&b, day - 1));
            assert_eq!(m.current_streak, carried, "{key:?} day {day}");
            assert_eq!(m.longest_streak, best);
            assert_eq!(
                m.days_signed_in,
                (0..day).filter(|&i| bit(&b, i)).count() as u64
            );
        }
    }
}

fn active_days(ks: &Keyspace) -> Vec<Vec<u8>> {
    let names = analytics::string_keys_matching(ks, b"stats:active:*");
    assert_eq!(names.len(), 30);
    names.iter().map(|k| bytes_of(ks, k)).collect()
}

#[test]
fn bitmaps_set_daily() {
    let Some(mut ks) = load("bitmaps") else {
        return;
    };
    let names = analytics::string_keys_matching(&ks, b"stats:active:*");
    let days = active_days(&ks);
    let n = days.len();
    let top = days.iter().map(|d| d.len() as u64 * 8).max().unwrap();
    // Per user: the days set, as one bit-by-bit row.
    let mut streak = vec![0u64; n];
    let mut roll7 = vec![0u64; n];
    let mut roll30 = vec![0u64; n];
    let (lookback, horizon) = (7usize, 7usize);
    let mut ret_size = vec![0u64; n - lookback];
    let mut ret = vec![vec![0u64; horizon]; n - lookback];
    for i in 0..top {
        let row: Vec<bool> = days.iter().map(|d| bit(d, i)).collect();
        if row[n - 1] {
            let k = (1..n).find(|&k| !row[n - 1 - k]).unwrap_or(n);
            streak[k - 1] += 1;
        }
        for e in 0..n {
            roll7[e] += row[e.saturating_sub(6)..=e].iter().any(|&x| x) as u64;
            roll30[e] += row[e.saturating_sub(29)..=e].iter().any(|&x| x) as u64;
        }
        for d in lookback..n {
            if row[d] && !row[d - lookback..d].iter().any(|&x| x) {
                ret_size[d - lookback] += 1;
                for t in 1..=horizon {
                    if d + t < n && row[d + t] {
                        ret[d - lookback][t - 1] += 1;
                    }
                }
            }
        }
    }
    let mut argv: Vec<&str> = vec!["BITLENS.STREAKHIST"];
    let name_strs: Vec<String> = names
        .iter()
        .map(|k| String::from_utf8(k.clone()).unwrap())
        .collect();
    argv.extend(name_strs.iter().map(String::as_str));
    assert_eq!(execute_str(&mut ks, &argv), ints(&streak));
    assert!(streak.iter().filter(|&&c| c > 0).count() > 3, "{streak:?}");
    let e = daily::engagement(&days);
    assert_eq!(e.wau, roll7);
    assert_eq!(e.mau, roll30);
    let rows = daily::retention(&days, lookback, horizon);
    assert_eq!(rows.len(), n - lookback);
    for (r, row) in rows.iter().enumerate() {
        assert_eq!(row.size, ret_size[r]);
        for (t, (&got, &want)) in row.returned.iter().zip(&ret[r]).enumerate() {
            assert_eq!(got, (row.day + t + 1 < n).then_some(want));
        }
    }
}

#[test]
fn bitmaps_set_enums_tags_offsets() {
    let Some(ks) = load("bitmaps") else { return };
    let active = bytes_of(&ks, b"stats:active:20240501");
    for name in analytics::string_keys_matching(&ks, b"stats:level:*") {
        let f = bytes_of(&ks, &name);
        for w in [1u32, 3, 4, 8, 12, 16] {
            let field = |i: u64| {
                (0..w as u64).fold(0u64, |v, j| (v << 1) | bit(&f, i * w as u64 + j) as u64)
            };
            let mut all = vec![0u64; 1 << w];
            for i in 0..(f.len() as u64 * 8).div_ceil(w as u64) {
                all[field(i) as usize] += 1;
            }
            assert_eq!(enums::distribution(&f, w, None), all);
            let mut among = vec![0u64; 1 << w];
            for i in 0..active.len() as u64 * 8 {
                if bit(&active, i) {
                    among[field(i) as usize] += 1;
                }
            }
            assert_eq!(enums::distribution_among(&f, w, &active), among);
        }
    }
    let tag_names: Vec<&[u8]> = vec![
        b"stats:active:20240510",
        b"stats:flags:20240501",
        b"stats:sparse:1k",
        b"stats:sparse:1m",
        b"edge:ones:257",
        b"edge:empty",
    ];
    let t: Vec<Vec<u8>> = tag_names.iter().map(|k| bytes_of(&ks, k)).collect();
    let ov = tags::overlap(&t);
    let reach = tags::reach(&active, &t);
    for i in 0..t.len() {
        let top = t[i].len() as u64 * 8;
        assert_eq!(
            reach[i],
            (0..top)
                .filter(|&x| bit(&t[i], x) && bit(&active, x))
                .count() as u64
        );
        for j in 0..t.len() {
            let top = top.min(t[j].len() as u64 * 8);
            assert_eq!(
                ov[i][j],
                (0..top).filter(|&x| bit(&t[i], x) && bit(&t[j], x)).count() as u64
            );
        }
    }
    for key in [
        &b"stats:sparse:1m"[..],
        b"stats:sparse:1k",
        b"edge:ones:65",
        b"edge:lastzero:1000",
        b"edge:empty",
    ] {
        let b = bytes_of(&ks, key);
        let top = b.len() as u64 * 8;
        let first = (0..).find(|&i| !bit(&b, i)).unwrap();
        assert_eq!(offsets::first_unprocessed(&b, 0), first);
        assert_eq!(
            offsets::processed(&b, 0, top),
            (0..top).filter(|&i| bit(&b, i)).count() as u64
        );
        let (from, to) = (top / 3, top / 3 + 5000);
        let mut want = Vec::new();
        let mut i = from;
        while i <= to && want.len() < 50 {
            if bit(&b, i) {
                i += 1;
                continue;
            }
            let s = i;
            while i <= to && !bit(&b, i) {
                i += 1;
            }
            want.push((s, i - 1));
        }
        assert_eq!(offsets::gaps(&b, from, to, 50).ranges, want, "{key:?}");
    }
}
