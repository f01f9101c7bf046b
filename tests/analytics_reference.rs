//! Every analytics computation checked against a naive bit-by-bit reference on random data:
//! keys of many lengths (empty, sub-word, crossing 64-bit words and 2 KiB blocks), densities
//! from sparse to full, long runs; plus the `BITLENS.*` command replies and argument errors.

use bitlens::analytics::{daily, enums, offsets, signin, tags};
use bitlens::command::execute_str;
use bitlens::keyspace::RedisType;
use bitlens::string::RedisString;
use bitlens::{Keyspace, Reply, Value};

/// Lengths that exercise every tail case of the word and block kernels.
const LENGTHS: &[usize] = &[
    0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 200, 2047, 2048, 2049, 5000,
];

/// Random bitmap of `len` bytes with set-bit probability `p_per_mille / 1000`, laid out in runs
/// so that streaks and gaps of many lengths occur.
fn random_bitmap(rng: &mut fastrand::Rng, len: usize, p_per_mille: u64) -> Vec<u8> {
    let mut b = vec![0u8; len];
    let mut i = 0;
    let nbits = len * 8;
    while i < nbits {
        let max_run = if rng.u64(..4) == 0 { 200 } else { 6 };
        let run = 1 + rng.u64(..max_run) as usize;
        let on = rng.u64(..1000) < p_per_mille;
        for j in i..(i + run).min(nbits) {
            if on {
                b[j / 8] |= 0x80 >> (j % 8);
            }
        }
        i += run;
    }
    b
}

fn bit(b: &[u8], i: u64) -> bool {
    (i / 8) < b.len() as u64 && (b[(i / 8) as usize] >> (7 - i % 8)) & 1 == 1
}

fn nbits(b: &[u8]) -> u64 {
    b.len() as u64 * 8
}

fn random_keys(rng: &mut fastrand::Rng, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            let len = LENGTHS[rng.u64(..LENGTHS.len() as u64) as usize];
            let p = [20, 300, 600, 900, 1000][rng.u64(..5) as usize];
            random_bitmap(rng, len, p)
        })
        .collect()
}

fn bulk_string(b: &[u8]) -> Value {
    Value::String(RedisString::from_bytes(b.to_vec()))
}

// ---- naive references -------------------------------------------------------------------------

fn naive_run_ending(b: &[u8], bit_pos: u64) -> u64 {
    let mut run = 0;
    while run <= bit_pos && bit(b, bit_pos - run) {
        run += 1;
    }
    run
}

fn naive_longest(b: &[u8], days: u64) -> u64 {
    let (mut best, mut cur) = (0, 0);
    for i in 0..days {
        cur = if bit(b, i) { cur + 1 } else { 0 };
        best = best.max(cur);
    }
    best
}

fn naive_streakhist(keys: &[Vec<u8>]) -> Vec<u64> {
    let n = keys.len();
    let mut h = vec![0u64; n];
    if n == 0 {
        return h;
    }
    for i in 0..nbits(&keys[n - 1]) {
        if !bit(&keys[n - 1], i) {
            continue;
        }
        let mut k = 1;
        while k < n && bit(&keys[n - 1 - k], i) {
            k += 1;
        }
        h[k - 1] += 1;
    }
    h
}

fn max_bits(keys: &[Vec<u8>]) -> u64 {
    keys.iter().map(|k| nbits(k)).max().unwrap_or(0)
}

fn naive_rolling(keys: &[Vec<u8>], w: usize) -> Vec<u64> {
    let w = w.max(1);
    (0..keys.len())
        .map(|e| {
            let s = (e + 1).saturating_sub(w);
            (0..max_bits(keys))
                .filter(|&i| (s..=e).any(|d| bit(&keys[d], i)))
                .count() as u64
        })
        .collect()
}

fn naive_retention(keys: &[Vec<u8>], lookback: usize, horizon: usize) -> Vec<daily::CohortRow> {
    let n = keys.len();
    (lookback..n)
        .map(|d| {
            let cohort: Vec<u64> = (0..max_bits(keys))
                .filter(|&i| bit(&keys[d], i) && !(d - lookback..d).any(|p| bit(&keys[p], i)))
                .collect();
            daily::CohortRow {
                day: d,
                size: cohort.len() as u64,
                returned: (1..=horizon)
                    .map(|t| {
                        (d + t < n).then(|| {
                            cohort.iter().filter(|&&i| bit(&keys[d + t], i)).count() as u64
                        })
                    })
                    .collect(),
            }
        })
        .collect()
}

fn naive_field(b: &[u8], w: u32, idx: u64) -> u64 {
    (0..w as u64).fold(0, |v, j| (v << 1) | bit(b, idx * w as u64 + j) as u64)
}

fn naive_gaps(b: &[u8], from: u64, to: u64) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut i = from;
    while i <= to {
        if bit(b, i) {
            i += 1;
            continue;
        }
        let s = i;
        while i <= to && !bit(b, i) {
            i += 1;
        }
        out.push((s, i - 1));
    }
    out
}

// ---- library functions vs references -------------------------------------------------------

#[test]
fn signin_per_user_matches_reference() {
    let mut rng = fastrand::Rng::with_seed(0x5151_2024);
    for _ in 0..300 {
        let len = LENGTHS[rng.u64(..LENGTHS.len() as u64) as usize].min(300);
        let p = [100, 500, 900, 1000][rng.u64(..4) as usize];
        let b = random_bitmap(&mut rng, len, p);
        let plen = rng.u64(..5) as usize;
        let prev = random_bitmap(&mut rng, plen, 800);
        let prev_days = 28 + rng.u64(..4);
        for day in (1..=nbits(&b) + 9).step_by(1 + rng.u64(..5) as usize) {
            assert_eq!(signin::signed_in(&b, day), bit(&b, day - 1));
            let run = naive_run_ending(&b, day - 1);
            assert_eq!(signin::streak_in_month(&b, day), run, "day {day} {b:?}");
            let carried = if run == day {
                run + naive_run_ending(&prev, prev_days - 1)
            } else {
                run
            };
            assert_eq!(
                signin::current_streak(&b, day, Some((&prev, prev_days))),
                carried
            );
            assert_eq!(signin::longest_streak(&b, day), naive_longest(&b, day));
            let days = (0..day).filter(|&i| bit(&b, i)).count() as u64;
            assert_eq!(signin::days_signed_in(&b, day), days);
        }
        assert_eq!(signin::streak_in_month(&b, 0), 0);
        assert!(!signin::signed_in(&b, 0));
    }
}

#[test]
fn signin_histograms_match_reference() {
    let mut rng = fastrand::Rng::with_seed(0xabcdef);
    let mut ks = Keyspace::new();
    let mut users: Vec<Vec<u8>> = Vec::new();
    for uid in 0..400 {
        // Mostly 4-byte month keys, some short (written only up to an early day) or empty.
        let len = [4, 4, 4, 1, 2, 0, 5][rng.u64(..7) as usize];
        let p = [300, 700, 950][rng.u64(..3) as usize];
        let b = random_bitmap(&mut rng, len, p);
        ks.set(format!("sign:{uid}:202405").into_bytes(), bulk_string(&b));
        users.push(b);
    }
    // Keys that must not count: other month, and a non-string key matching the pattern.
    ks.set(b"sign:1:202404", bulk_string(&[0xff; 4]));
    ks.set(b"sign:x:202405", Value::Other(RedisType::Hash));
    for day in [1u64, 2, 7, 8, 9, 15, 30, 31, 33, 40] {
        let mut want = vec![0u64; day as usize + 1];
        for b in &users {
            want[naive_run_ending(b, day - 1) as usize] += 1;
        }
        assert_eq!(signin::streak_histogram(&ks, b"sign:*:202405", day), want);
        let argv_day = day.to_string();
        assert_eq!(
            execute_str(&mut ks, &["BITLENS.SIGNINHIST", "sign:*:202405", &argv_day]),
            Reply::Array(want.iter().map(|&n| Reply::Integer(n as i64)).collect())
        );
        let mut want = vec![0u64; day as usize + 1];
        for b in &users {
            want[(0..day).filter(|&i| bit(b, i)).count()] += 1;
        }
        assert_eq!(signin::days_histogram(&ks, b"sign:*:202405", day), want);
        // Users signed in on each day 1..=day, in one pass.
        let want: Vec<u64> = (0..day)
            .map(|i| users.iter().filter(|b| bit(b, i)).count() as u64)
            .collect();
        assert_eq!(signin::day_counts(&ks, b"sign:*:202405", day), want);
        assert_eq!(
            execute_str(&mut ks, &["BITLENS.SIGNINDAYS", "sign:*:202405", &argv_day]),
            Reply::Array(want.iter().map(|&n| Reply::Integer(n as i64)).collect())
        );
    }
    assert_eq!(
        execute_str(&mut ks, &["BITLENS.SIGNINDAYS", "sign:*:202405", "0"]),
        Reply::err("ERR days is not an integer or out of range")
    );
}

#[test]
fn streak_histogram_matches_reference() {
    let mut rng = fastrand::Rng::with_seed(77);
    for n in [0usize, 1, 2, 3, 7, 30] {
        for _ in 0..6 {
            let keys = random_keys(&mut rng, n);
            let h = daily::streak_histogram(&keys);
            assert_eq!(h, naive_streakhist(&keys), "n={n}");
            if let Some(today) = keys.last() {
                let bc = (0..nbits(today)).filter(|&i| bit(today, i)).count() as u64;
                assert_eq!(h.iter().sum::<u64>(), bc);
            }
        }
    }
    // Equal-length dense keys: long streaks across block boundaries.
    let keys: Vec<Vec<u8>> = (0..10)
        .map(|_| random_bitmap(&mut rng, 5000, 990))
        .collect();
    assert_eq!(daily::streak_histogram(&keys), naive_streakhist(&keys));
}

#[test]
fn dau_rolling_stickiness_match_reference() {
    let mut rng = fastrand::Rng::with_seed(1234567);
    for n in [1usize, 2, 6, 12] {
        let keys = random_keys(&mut rng, n);
        let dau: Vec<u64> = keys
            .iter()
            .map(|k| (0..nbits(k)).filter(|&i| bit(k, i)).count() as u64)
            .collect();
        assert_eq!(daily::dau(&keys), dau);
        for w in [0usize, 1, 2, 3, 5, 7, 30] {
            let want = naive_rolling(&keys, w);
            assert_eq!(daily::rolling_actives(&keys, w), want, "n={n} w={w}");
            let st = daily::stickiness(&keys, w);
            for i in 0..n {
                let r = if want[i] == 0 {
                    0.0
                } else {
                    dau[i] as f64 / want[i] as f64
                };
                assert_eq!(st[i], r);
            }
        }
        let e = daily::engagement(&keys);
        assert_eq!(e.dau, dau);
        assert_eq!(e.wau, naive_rolling(&keys, 7));
        assert_eq!(e.mau, naive_rolling(&keys, 30));
    }
}

#[test]
fn retention_matches_reference() {
    let mut rng = fastrand::Rng::with_seed(99);
    for n in [1usize, 3, 8, 12] {
        let keys = random_keys(&mut rng, n);
        for lookback in [0usize, 1, 2, 3, 7, 20] {
            for horizon in [0usize, 1, 3, 7] {
                assert_eq!(
                    daily::retention(&keys, lookback, horizon),
                    naive_retention(&keys, lookback, horizon),
                    "n={n} lookback={lookback} horizon={horizon}"
                );
            }
        }
    }
}

#[test]
fn enum_distributions_match_reference() {
    let mut rng = fastrand::Rng::with_seed(4242);
    for w in 1..=16u32 {
        for &len in &[0usize, 1, 3, 7, 8, 9, 17, 100, 2049] {
            let b = random_bitmap(&mut rng, len, 500);
            let fields = (nbits(&b)).div_ceil(w as u64);
            let mut want = vec![0u64; 1 << w];
            for i in 0..fields {
                want[naive_field(&b, w, i) as usize] += 1;
            }
            assert_eq!(enums::distribution(&b, w, None), want, "w={w} len={len}");
            for i in 0..fields + 3 {
                assert_eq!(enums::field(&b, w, i), naive_field(&b, w, i));
            }
            // A population larger or smaller than the covered fields.
            let users = rng.u64(..fields + 50);
            let mut want = vec![0u64; 1 << w];
            for i in 0..users {
                want[naive_field(&b, w, i) as usize] += 1;
            }
            assert_eq!(enums::distribution(&b, w, Some(users)), want);
            // Restricted to members of a bitmap, which may reach past the field string.
            let mlen = rng.u64(..len as u64 * 2 + 3) as usize;
            let m = random_bitmap(&mut rng, mlen, 300);
            let mut want = vec![0u64; 1 << w];
            for i in 0..nbits(&m) {
                if bit(&m, i) {
                    want[naive_field(&b, w, i) as usize] += 1;
                }
            }
            assert_eq!(enums::distribution_among(&b, w, &m), want, "among w={w}");
        }
    }
}

#[test]
fn tags_match_reference() {
    let mut rng = fastrand::Rng::with_seed(31337);
    for m in [0usize, 1, 2, 5] {
        let t = random_keys(&mut rng, m);
        let active = random_bitmap(&mut rng, 3000, 500);
        let size = |b: &[u8]| (0..nbits(b)).filter(|&i| bit(b, i)).count() as u64;
        assert_eq!(
            tags::sizes(&t),
            t.iter().map(|b| size(b)).collect::<Vec<_>>()
        );
        let ov = tags::overlap(&t);
        for i in 0..m {
            for j in 0..m {
                let want = (0..max_bits(&t))
                    .filter(|&x| bit(&t[i], x) && bit(&t[j], x))
                    .count() as u64;
                assert_eq!(ov[i][j], want);
            }
        }
        let reach: Vec<u64> = t
            .iter()
            .map(|b| {
                (0..nbits(b))
                    .filter(|&x| bit(b, x) && bit(&active, x))
                    .count() as u64
            })
            .collect();
        assert_eq!(tags::reach(&active, &t), reach);
        for uid in [0u64, 1, 7, 8, 63, 64, 1000, 40_000, 1 << 32] {
            let want: Vec<bool> = t.iter().map(|b| bit(b, uid)).collect();
            assert_eq!(tags::membership(uid, &t), want);
        }
    }
}

#[test]
fn offsets_match_reference() {
    let mut rng = fastrand::Rng::with_seed(2718);
    for &len in LENGTHS {
        let p = [50, 500, 950, 1000][rng.u64(..4) as usize];
        let b = random_bitmap(&mut rng, len.min(600), p);
        let top = nbits(&b) + 100;
        for _ in 0..40 {
            let from = rng.u64(..top);
            let to = from + rng.u64(..top);
            let want = (from..=to).filter(|&i| bit(&b, i)).count() as u64;
            assert_eq!(offsets::processed(&b, from, to), want);
            let first = (from..).find(|&i| !bit(&b, i)).unwrap();
            assert_eq!(offsets::first_unprocessed(&b, from), first);
            let all = naive_gaps(&b, from, to);
            for limit in [0usize, 1, 2, 5, 1000] {
                let g = offsets::gaps(&b, from, to, limit);
                let k = all.len().min(limit);
                assert_eq!(g.ranges, all[..k].to_vec(), "{from}..={to} limit {limit}");
                assert_eq!(g.truncated, all.len() > limit);
            }
        }
    }
}

// ---- command layer ---------------------------------------------------------------------------

fn ints(v: &[u64]) -> Reply {
    Reply::Array(v.iter().map(|&n| Reply::Integer(n as i64)).collect())
}

fn daily_keyspace(rng: &mut fastrand::Rng, n: usize) -> (Keyspace, Vec<Vec<u8>>, Vec<String>) {
    let mut ks = Keyspace::new();
    let keys = random_keys(rng, n);
    let names: Vec<String> = (0..n)
        .map(|d| format!("stats:active:202405{:02}", d + 1))
        .collect();
    for (name, k) in names.iter().zip(&keys) {
        ks.set(name.clone().into_bytes(), bulk_string(k));
    }
    (ks, keys, names)
}

#[test]
fn daily_commands_reply_like_reference() {
    let mut rng = fastrand::Rng::with_seed(555);
    let (mut ks, keys, names) = daily_keyspace(&mut rng, 9);
    let mut argv: Vec<&str> = vec!["BITLENS.STREAKHIST"];
    argv.extend(names.iter().map(String::as_str));
    assert_eq!(execute_str(&mut ks, &argv), ints(&naive_streakhist(&keys)));
    argv[0] = "bitlens.dau";
    let dau: Vec<u64> = keys
        .iter()
        .map(|k| (0..nbits(k)).filter(|&i| bit(k, i)).count() as u64)
        .collect();
    assert_eq!(execute_str(&mut ks, &argv), ints(&dau));

    let mut argv: Vec<&str> = vec!["BITLENS.ROLLING", "3"];
    argv.extend(names.iter().map(String::as_str));
    let roll = naive_rolling(&keys, 3);
    assert_eq!(execute_str(&mut ks, &argv), ints(&roll));
    argv[0] = "BITLENS.STICKINESS";
    let want: Vec<Reply> = dau
        .iter()
        .zip(&roll)
        .map(|(&d, &r)| {
            let x = if r == 0 { 0.0 } else { d as f64 / r as f64 };
            Reply::bulk(format!("{x:.4}"))
        })
        .collect();
    assert_eq!(execute_str(&mut ks, &argv), Reply::Array(want));

    // A missing key is an empty day.
    let with_missing = [
        "BITLENS.STREAKHIST",
        names[0].as_str(),
        "nokey",
        names[2].as_str(),
    ];
    let k3 = vec![keys[0].clone(), Vec::new(), keys[2].clone()];
    assert_eq!(
        execute_str(&mut ks, &with_missing),
        ints(&naive_streakhist(&k3))
    );

    let mut argv: Vec<&str> = vec!["BITLENS.RETENTION", "2", "3"];
    argv.extend(names.iter().map(String::as_str));
    let want = Reply::Array(
        naive_retention(&keys, 2, 3)
            .into_iter()
            .map(|r| {
                let mut v = vec![Reply::Integer(r.size as i64)];
                v.extend(r.returned.iter().map(|x| match x {
                    Some(n) => Reply::Integer(*n as i64),
                    None => Reply::NullBulk,
                }));
                Reply::Array(v)
            })
            .collect(),
    );
    assert_eq!(execute_str(&mut ks, &argv), want);
}

#[test]
fn signin_enum_tag_offset_commands() {
    let mut ks = Keyspace::new();
    // Days 1-3, 29 and 30 of 2024-04 (a 30-day month); days 1-4 and 6 of 2024-05.
    let mut april = [0u8; 4];
    for d in [1u64, 2, 3, 29, 30] {
        april[(d - 1) as usize / 8] |= 0x80 >> ((d - 1) % 8);
    }
    ks.set(b"sign:7:202404", bulk_string(&april));
    ks.set(b"sign:7:202405", bulk_string(&[0b1111_0100]));
    let q = |ks: &mut Keyspace, a: &[&str]| execute_str(ks, a);
    assert_eq!(
        q(&mut ks, &["BITLENS.SIGNED", "sign:7:202405", "4"]),
        Reply::Integer(1)
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.SIGNED", "sign:7:202405", "5"]),
        Reply::Integer(0)
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.STREAK", "sign:7:202405", "4"]),
        Reply::Integer(4)
    );
    // April's last day (30) ends a 2-day run (days 29, 30): CARRY adds 2. Read as a 31-day
    // month (PREV ... 31), day 31 is clear and nothing is added.
    assert_eq!(
        q(&mut ks, &["BITLENS.STREAK", "sign:7:202405", "4", "CARRY"]),
        Reply::Integer(6)
    );
    assert_eq!(
        q(
            &mut ks,
            &[
                "BITLENS.STREAK",
                "sign:7:202405",
                "4",
                "prev",
                "sign:7:202404",
                "31"
            ]
        ),
        Reply::Integer(4)
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.STREAK", "sign:7:202405", "6"]),
        Reply::Integer(1)
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.LONGESTSTREAK", "sign:7:202404"]),
        Reply::Integer(3)
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.DAYSSIGNED", "sign:7:202404", "29"]),
        Reply::Integer(4)
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.DAYSSIGNED", "sign:7:202404"]),
        Reply::Integer(5)
    );

    // u4 fields: user 0 = 3, user 1 = 15, user 2 = 3, user 3 = 0.
    ks.set(b"level", bulk_string(&[0x3f, 0x30]));
    ks.set(b"today", bulk_string(&[0b1010_0000]));
    let mut want = vec![0u64; 16];
    want[3] = 2;
    want[15] = 1;
    want[0] = 1;
    assert_eq!(
        q(&mut ks, &["BITLENS.ENUMDIST", "level", "u4"]),
        ints(&want)
    );
    let mut want = vec![0u64; 16];
    want[3] = 2;
    assert_eq!(
        q(
            &mut ks,
            &["BITLENS.ENUMDIST", "level", "u4", "AMONG", "today"]
        ),
        ints(&want)
    );
    for bad in ["i4", "u0", "u17", "u", "4", "u04"] {
        assert_eq!(
            q(&mut ks, &["BITLENS.ENUMDIST", "level", bad]),
            Reply::err("ERR enum type must be u1 .. u16")
        );
    }

    ks.set(b"tag:vip", bulk_string(&[0b1100_0000]));
    ks.set(b"tag:new", bulk_string(&[0b0110_0000, 0x01]));
    assert_eq!(
        q(&mut ks, &["BITLENS.TAGSIZE", "tag:vip", "tag:new", "none"]),
        ints(&[2, 3, 0])
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.TAGOVERLAP", "tag:vip", "tag:new"]),
        Reply::Array(vec![ints(&[2, 1]), ints(&[1, 3])])
    );
    assert_eq!(
        q(
            &mut ks,
            &["BITLENS.TAGREACH", "today", "tag:vip", "tag:new"]
        ),
        ints(&[1, 1])
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.TAGMEMBER", "15", "tag:vip", "tag:new"]),
        ints(&[0, 1])
    );
    // A crowd kept as a Set of user ids counts as its members: tag:vip = {0, 1}, tag:new =
    // {1, 2, 15}, today = {0, 2} (see above); the Set {2, 15, 99}.
    ks.set(
        b"tag:set",
        Value::Set(bitlens::set::Set::from_members(["15", "2", "99"])),
    );
    assert_eq!(
        q(
            &mut ks,
            &["BITLENS.TAGOVERLAP", "tag:vip", "tag:set", "tag:new"]
        ),
        Reply::Array(vec![ints(&[2, 0, 1]), ints(&[0, 3, 2]), ints(&[1, 2, 3])])
    );
    assert_eq!(q(&mut ks, &["BITLENS.TAGSIZE", "tag:set"]), ints(&[3]));
    assert_eq!(
        q(&mut ks, &["BITLENS.TAGREACH", "today", "tag:set"]),
        ints(&[1])
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.TAGMEMBER", "99", "tag:set", "tag:vip"]),
        ints(&[1, 0])
    );
    ks.set(
        b"tag:names",
        Value::Set(bitlens::set::Set::from_members(["7", "bob"])),
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.TAGSIZE", "tag:names"]),
        Reply::err(
            "ERR crowd set member \"bob\" is not a user id (an integer from 0 to 4294967295)"
        )
    );

    // Offsets 0-9 processed except 3 and 7..=8.
    ks.set(b"idem:orders:0", bulk_string(&[0b1110_1110, 0b0100_0000]));
    assert_eq!(
        q(&mut ks, &["BITLENS.PROCESSED", "idem:orders:0"]),
        Reply::Integer(7)
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.PROCESSED", "idem:orders:0", "2", "6"]),
        Reply::Integer(4)
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.FIRSTUNPROCESSED", "idem:orders:0"]),
        Reply::Integer(3)
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.FIRSTUNPROCESSED", "idem:orders:0", "4"]),
        Reply::Integer(7)
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.GAPS", "idem:orders:0", "0", "12"]),
        Reply::Array(vec![ints(&[3, 3]), ints(&[7, 8]), ints(&[10, 12])])
    );
    assert_eq!(
        q(
            &mut ks,
            &["BITLENS.GAPS", "idem:orders:0", "0", "12", "LIMIT", "2"]
        ),
        Reply::Array(vec![ints(&[3, 3]), ints(&[7, 8])])
    );
}

#[test]
fn argument_errors_are_redis_style() {
    let mut ks = Keyspace::new();
    ks.set(b"h", Value::Other(RedisType::Hash));
    ks.set(b"s", bulk_string(&[0xff]));
    let q = |ks: &mut Keyspace, a: &[&str]| execute_str(ks, a);
    let e = Reply::err;
    assert_eq!(
        q(&mut ks, &["BITLENS.SIGNINHIST", "*", "0"]),
        e("ERR day is not an integer or out of range")
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.SIGNINHIST", "*", "x"]),
        e("ERR day is not an integer or out of range")
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.SIGNINHIST", "*", "65537"]),
        e("ERR day is not an integer or out of range")
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.SIGNINHIST", "*"]),
        e("ERR wrong number of arguments for 'bitlens.signinhist' command")
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.SIGNED", "s", "-1"]),
        e("ERR day is not an integer or out of range")
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.SIGNED", "h", "1"]),
        Reply::wrong_type()
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.STREAK", "s", "1", "BOGUS"]),
        Reply::syntax_error()
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.STREAK", "s", "1", "PREV", "h", "30"]),
        Reply::wrong_type()
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.STREAKHIST", "s", "h"]),
        Reply::wrong_type()
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.ROLLING", "0", "s"]),
        e("ERR window is not an integer or out of range")
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.RETENTION", "1", "-2", "s"]),
        e("ERR horizon is not an integer or out of range")
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.ENUMDIST", "s", "u4", "AMONG"]),
        Reply::syntax_error()
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.TAGMEMBER", "4294967296", "s"]),
        e("ERR uid is not an integer or out of range")
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.PROCESSED", "s", "1"]),
        Reply::syntax_error()
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.GAPS", "s", "0", "9", "LIMIT", "0"]),
        e("ERR limit is not an integer or out of range")
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.GAPS", "s", "0", "01"]),
        e("ERR offset is not an integer or out of range")
    );
    // The largest histogram length is accepted: key `s` (8 set bits) counts under 8; `h` is
    // not a string and is skipped.
    let mut want = vec![0u64; 65537];
    want[8] = 1;
    assert_eq!(q(&mut ks, &["BITLENS.DAYSHIST", "*", "65536"]), ints(&want));
}

#[test]
fn extreme_arguments_answer_without_blowing_up() {
    let mut ks = Keyspace::new();
    ks.set(b"s", bulk_string(&[0xff, 0x0f]));
    let q = |ks: &mut Keyspace, a: &[&str]| execute_str(ks, a);
    // The whole offset space past a 2-byte key is one gap.
    assert_eq!(
        q(
            &mut ks,
            &["BITLENS.GAPS", "s", "0", "4294967295", "LIMIT", "100000"]
        ),
        Reply::Array(vec![ints(&[8, 11]), ints(&[16, 4294967295])])
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.RETENTION", "65536", "65536", "s"]),
        Reply::Array(vec![])
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.STREAK", "s", "4294967296"]),
        Reply::Integer(0)
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.ROLLING", "65536", "s", "s"]),
        ints(&[12, 12])
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.PROCESSED", "s", "4294967295", "0"]),
        Reply::Integer(0)
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.FIRSTUNPROCESSED", "s", "4294967295"]),
        Reply::Integer(4294967295)
    );
    assert_eq!(
        q(&mut ks, &["BITLENS.LONGESTSTREAK", "s", "4294967296"]),
        Reply::Integer(8)
    );
    let Reply::Array(h) = q(&mut ks, &["BITLENS.ENUMDIST", "s", "u16", "AMONG", "s"]) else {
        panic!()
    };
    // Members 0..=7 and 12..=15: member 0 reads field 0 (0xff0f), all others past the field
    // string read 0.
    assert_eq!(h.len(), 65536);
    assert_eq!(h[0xff0f], Reply::Integer(1));
    assert_eq!(h[0], Reply::Integer(11));
}
