//! Differential test of the string and bitmap commands: a real `redis-server` on loopback and a
//! bitlens [`Keyspace`] get the same random strings (lengths 0 to 4096 bytes, varied densities,
//! all-ones / all-zeros runs, int-encoded numbers, wrong-type keys), then the same random
//! commands of every form (GET, STRLEN, GETRANGE, GETBIT, SETBIT, BITCOUNT, BITPOS, BITOP,
//! BITFIELD, BITFIELD_RO, with random, negative, out-of-range and malformed arguments), and
//! every reply must be byte-for-byte equal (RESP2).
//!
//! `BITLENS_SEED` fixes the seed (else the clock); `BITLENS_DIFF_COMMANDS` the command count
//! (default 30,000). The seed is printed; a failure prints the first differing command.

use bitlens::keyspace::RedisType;
use bitlens::string::RedisString;
use bitlens::{Keyspace, Value};
use bitlens_difftest::{RawConnection, RedisServer};

/// Test-data randomness: fastrand's seeded generator plus the shapes this test draws.
struct Rng(fastrand::Rng);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0.u64(..n.max(1))
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        self.0.i64(lo..=hi)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.0.usize(..items.len())]
    }
}

/// A random string value as Redis would hold it.
fn random_value(r: &mut Rng) -> Vec<u8> {
    match r.below(12) {
        0 => Vec::new(),
        1 => r
            .range(-99_999_999_999, 99_999_999_999)
            .to_string()
            .into_bytes(),
        2 => r.range(0, 999).to_string().into_bytes(),
        3 => vec![0xFF; r.range(1, 300) as usize],
        4 => vec![0; r.range(1, 300) as usize],
        _ => {
            let len = match r.below(4) {
                0 => r.range(1, 16),
                1 => r.range(1, 100),
                2 => r.range(100, 1100),
                _ => r.range(1000, 4096),
            } as usize;
            let density = r.below(9);
            let mut v = Vec::with_capacity(len);
            while v.len() < len {
                match r.below(12) {
                    0 => v.extend(std::iter::repeat_n(0xFF, r.below(200) as usize)),
                    1 => v.extend(std::iter::repeat_n(0, r.below(200) as usize)),
                    _ => {
                        let mut b = 0u8;
                        for i in 0..8 {
                            if r.below(8) < density {
                                b |= 1 << i;
                            }
                        }
                        v.push(b);
                    }
                }
            }
            v.truncate(len);
            v
        }
    }
}

/// Keys `k:0..k:39` get random strings; `k:40..k:43` are long sparse bitmaps (up to 4 MiB,
/// a few bits set with SETBIT), which bitlens stores in its paged form.
const KEYS: usize = 44;
const DENSE_KEYS: usize = 40;

fn key_name(r: &mut Rng) -> String {
    match r.below(20) {
        0 => format!("missing:{}", r.below(3)),
        1 => "list".into(),
        2 => "hash".into(),
        _ => format!("k:{}", r.below(KEYS as u64)),
    }
}

/// A signed integer argument near `scale`, with negatives, extremes and malformed text.
fn int_text(r: &mut Rng, scale: i64) -> String {
    match r.below(20) {
        0 => r
            .pick(&["abc", "", "1.5", " 1", "+1", "01", "-0", "0x10", "1e3"])
            .to_string(),
        1 => r
            .pick(&[
                "9223372036854775807",
                "-9223372036854775808",
                "9223372036854775808",
                "-9223372036854775809",
                "4294967295",
                "4294967296",
                "536870911",
                "536870912",
                "-4294967296",
            ])
            .to_string(),
        2 => r.range(-(1 << 25), 1 << 25).to_string(),
        3..=5 => r.range(-scale * 2, -1).to_string(),
        6 => r.range(scale, scale * 3).to_string(),
        _ => r.range(0, scale).to_string(),
    }
}

/// Malformed or out-of-range offsets (writes never get a valid huge offset, which would make
/// both sides allocate up to 512 MiB).
fn bad_offset(r: &mut Rng) -> String {
    r.pick(&[
        "abc",
        "",
        "-1",
        "4294967296",
        "9223372036854775807",
        "-9223372036854775808",
        "1.5",
        "+1",
        "01",
        "#1",
    ])
    .to_string()
}

fn bit_offset_text(r: &mut Rng, read: bool) -> String {
    match r.below(12) {
        0 => bad_offset(r),
        1 if read => r.range(0, 4_294_967_295).to_string(),
        2 if read => r
            .pick(&["4294967295", "4294967296", "4294967294", "-1"])
            .to_string(),
        _ => r.range(0, 40_000).to_string(),
    }
}

fn field_type(r: &mut Rng) -> String {
    match r.below(25) {
        0 => r
            .pick(&[
                "u64", "i65", "i0", "u0", "x8", "I8", "U8", "", "i", "i08", "u-1", "i 8",
            ])
            .to_string(),
        _ => {
            let signed = r.chance(50);
            let bits = if r.chance(30) {
                *r.pick(&[1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63])
            } else {
                r.range(1, 63)
            };
            let bits = if signed && r.chance(10) { 64 } else { bits };
            format!("{}{}", if signed { 'i' } else { 'u' }, bits)
        }
    }
}

fn field_offset(r: &mut Rng, read: bool) -> String {
    match r.below(10) {
        0 => format!("#{}", r.range(0, 600)),
        1 if read => format!("#{}", int_text(r, 50)),
        1 => format!(
            "#{}",
            r.pick(&["-1", "x", "", "9223372036854775807", "70000"])
        ),
        2 if read => bit_offset_text(r, true),
        3 => bad_offset(r),
        _ => r.range(0, 33_000).to_string(),
    }
}

fn value_text(r: &mut Rng) -> String {
    match r.below(6) {
        0 => int_text(r, 1000),
        1 => r.range(i64::MIN, i64::MAX).to_string(),
        2 => r.range(-300, 300).to_string(),
        3 => r
            .pick(&[
                "9223372036854775807",
                "-9223372036854775808",
                "0",
                "-1",
                "1",
            ])
            .to_string(),
        _ => r.range(-(1 << 40), 1 << 40).to_string(),
    }
}

fn unit(r: &mut Rng) -> String {
    r.pick(&["BIT", "BYTE", "bit", "byte", "Bit", "bits", "x"])
        .to_string()
}

fn random_command(r: &mut Rng) -> Vec<String> {
    let mut a: Vec<String> = Vec::new();
    let key = key_name(r);
    let scale = 5000;
    match r.below(100) {
        0..=3 => a.extend(["GET".into(), key]),
        4..=5 => a.extend(["STRLEN".into(), key]),
        6..=11 => a.extend([
            "GETRANGE".into(),
            key,
            int_text(r, scale),
            int_text(r, scale),
        ]),
        12..=19 => a.extend(["GETBIT".into(), key, bit_offset_text(r, true)]),
        20..=24 => {
            let v = if r.chance(95) {
                r.below(2).to_string()
            } else {
                r.pick(&["2", "-1", "x", "", "01"]).to_string()
            };
            a.extend(["SETBIT".into(), key, bit_offset_text(r, false), v]);
        }
        25..=39 => {
            a.extend(["BITCOUNT".into(), key]);
            let scale = if r.chance(50) { scale } else { scale * 8 };
            match r.below(10) {
                0 => {}
                1 => a.push(int_text(r, scale)),
                2..=4 => a.extend([int_text(r, scale), int_text(r, scale)]),
                5 => a.extend([int_text(r, scale), int_text(r, scale), unit(r), "x".into()]),
                _ => a.extend([int_text(r, scale), int_text(r, scale), unit(r)]),
            }
        }
        40..=59 => {
            a.extend(["BITPOS".into(), key]);
            a.push(if r.chance(95) {
                r.below(2).to_string()
            } else {
                r.pick(&["2", "-1", "x"]).to_string()
            });
            let scale = if r.chance(50) { scale } else { scale * 8 };
            match r.below(10) {
                0..=1 => {}
                2..=3 => a.push(int_text(r, scale)),
                4..=5 => a.extend([int_text(r, scale), int_text(r, scale)]),
                6 => a.extend([int_text(r, scale), int_text(r, scale), unit(r), "x".into()]),
                _ => a.extend([int_text(r, scale), int_text(r, scale), unit(r)]),
            }
        }
        60..=69 => {
            let op = if r.chance(97) {
                r.pick(&["AND", "OR", "XOR", "NOT", "and", "or", "xor", "not", "Not"])
            } else {
                r.pick(&["NAND", "", "ORR"])
            };
            let dest = if r.chance(80) {
                format!("dest:{}", r.below(4))
            } else {
                key_name(r)
            };
            a.extend(["BITOP".into(), op.to_string(), dest]);
            let n = if op.eq_ignore_ascii_case("not") && r.chance(90) {
                1
            } else {
                r.range(1, 6)
            };
            for _ in 0..n {
                a.push(if r.chance(15) {
                    format!("dest:{}", r.below(4))
                } else {
                    key_name(r)
                });
            }
        }
        _ => {
            let ro = r.chance(25);
            a.extend([if ro { "BITFIELD_RO" } else { "BITFIELD" }.into(), key]);
            for _ in 0..r.range(0, 5) {
                match r.below(if ro { 8 } else { 14 }) {
                    0..=5 => a.extend(["GET".into(), field_type(r), field_offset(r, true)]),
                    6 => a.extend([
                        "OVERFLOW".into(),
                        r.pick(&["WRAP", "SAT", "FAIL", "wrap", "sat", "fail", "bad"])
                            .to_string(),
                    ]),
                    7 => {
                        // A malformed or truncated subcommand.
                        a.push(
                            r.pick(&["GET", "SET", "INCRBY", "OVERFLOW", "FOO"])
                                .to_string(),
                        );
                        break;
                    }
                    8..=10 => a.extend([
                        "SET".into(),
                        field_type(r),
                        field_offset(r, false),
                        value_text(r),
                    ]),
                    _ => a.extend([
                        "INCRBY".into(),
                        field_type(r),
                        field_offset(r, false),
                        value_text(r),
                    ]),
                }
            }
        }
    }
    a
}

fn printable(argv: &[Vec<u8>]) -> String {
    argv.iter()
        .map(|a| format!("{:?}", String::from_utf8_lossy(a)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A reply for a failure message: short ones whole, long ones by length and first bytes.
fn show(reply: &[u8]) -> String {
    if reply.len() <= 200 {
        format!("{:?}", String::from_utf8_lossy(reply))
    } else {
        format!(
            "{} bytes: {:?}...",
            reply.len(),
            String::from_utf8_lossy(&reply[..120])
        )
    }
}

/// Sends `argv` to both sides and panics with the command and both replies when they differ.
fn run(
    conn: &mut RawConnection,
    ks: &mut Keyspace,
    argv: Vec<Vec<u8>>,
    step: usize,
    seed: u64,
) -> Result<(), String> {
    let want = conn.query(&argv);
    let got = bitlens::execute(ks, &argv).to_resp();
    if want != got {
        let at = want.iter().zip(&got).position(|(a, b)| a != b);
        return Err(format!(
            "seed {seed}: command #{step} differs: {}\n  redis:   {}\n  bitlens: {}\n  first differing reply byte: {at:?}",
            printable(&argv),
            show(&want),
            show(&got)
        ));
    }
    Ok(())
}

/// Fills both sides with the same fresh data set.
fn setup(r: &mut Rng, ks: &mut Keyspace, conn: &mut RawConnection) {
    conn.query(&[b"FLUSHALL".to_vec()]);
    ks.clear();
    for i in 0..DENSE_KEYS {
        let key = format!("k:{i}").into_bytes();
        let v = random_value(r);
        conn.query(&[b"SET".to_vec(), key.clone(), v.clone()]);
        ks.set(key, Value::String(RedisString::from_bytes(v)));
    }
    for i in DENSE_KEYS..KEYS {
        let key = format!("k:{i}").into_bytes();
        let top: u64 = if i == KEYS - 1 { 1 << 25 } else { 1 << 22 };
        for run_no in 0..r.range(1, 30) {
            // The last key's first run ends at its top bit, so that it is 4 MiB long whatever
            // the other offsets drawn (with every run near offset 0 it was a short dense
            // string: seed 1796277762108114060).
            let off = if i == KEYS - 1 && run_no == 0 {
                top - 20
            } else {
                r.below(top)
            };
            // At least one bit per run, so that every sparse key exists after its setup.
            for b in off..off + 1 + r.below(20) {
                let argv = vec![
                    b"SETBIT".to_vec(),
                    key.clone(),
                    b.to_string().into_bytes(),
                    b"1".to_vec(),
                ];
                run(conn, ks, argv, 0, 0).expect("setup SETBIT");
            }
        }
        // Growth by SETBIT may have kept it dense; store it in the paged form when that pays.
        let Some(Value::String(s)) = ks.get_mut(&key) else {
            panic!("sparse key missing")
        };
        s.compact();
        if i == KEYS - 1 {
            assert!(
                s.is_sparse(),
                "k:{i} (4 MiB, a few bits) should be stored sparse"
            );
        }
    }
    conn.query(&[b"RPUSH".to_vec(), b"list".to_vec(), b"a".to_vec()]);
    ks.set(b"list", Value::Other(RedisType::List));
    conn.query(&[
        b"HSET".to_vec(),
        b"hash".to_vec(),
        b"f".to_vec(),
        b"v".to_vec(),
    ]);
    ks.set(b"hash", Value::Other(RedisType::Hash));
}

/// Panics with the difference and the earlier commands that name the same key.
fn fail(message: &str, history: &[String], key: &[u8]) -> ! {
    let needle = format!("{:?}", String::from_utf8_lossy(key));
    let related: Vec<&String> = history
        .iter()
        .filter(|h| key.is_empty() || h.contains(&needle))
        .collect();
    let tail = &related[related.len().saturating_sub(40)..];
    panic!(
        "{message}\n  earlier commands on this key since the data set was written (last 40):\n    {}",
        tail.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n    ")
    );
}

#[test]
fn bitmap_commands_match_redis() {
    let seed = bitlens_testseed::seed();
    let total: usize = std::env::var("BITLENS_DIFF_COMMANDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30_000);
    println!("bitmap_diff seed {seed} (BITLENS_SEED={seed} to replay), {total} commands");
    let mut r = Rng(fastrand::Rng::with_seed(seed));
    let server = RedisServer::start(&[]);
    let mut conn = server.raw_connection();
    let mut ks = Keyspace::new();
    let mut history: Vec<String> = Vec::new();
    let mut per_command: std::collections::BTreeMap<String, usize> = Default::default();
    for step in 0..total {
        if step % 5000 == 0 {
            if step > 0 {
                println!("bitmap_diff: {step} commands identical so far");
            }
            setup(&mut r, &mut ks, &mut conn);
            history.clear();
        }
        let argv: Vec<Vec<u8>> = random_command(&mut r)
            .into_iter()
            .map(String::into_bytes)
            .collect();
        *per_command
            .entry(String::from_utf8_lossy(&argv[0]).into_owned())
            .or_default() += 1;
        history.push(printable(&argv));
        let key = argv.get(1).cloned().unwrap_or_default();
        if let Err(e) = run(&mut conn, &mut ks, argv, step, seed) {
            fail(&e, &history, &key);
        }
        // Now and then, check every key's full value and type.
        if step % 500 == 499 {
            let mut checks: Vec<Vec<Vec<u8>>> = (0..DENSE_KEYS)
                .map(|i| vec![b"GET".to_vec(), format!("k:{i}").into_bytes()])
                .collect();
            for i in 0..4 {
                let k = format!("dest:{i}").into_bytes();
                checks.push(vec![b"TYPE".to_vec(), k.clone()]);
                checks.push(vec![b"GET".to_vec(), k]);
            }
            for argv in checks {
                let k = argv[1].clone();
                if let Err(e) = run(&mut conn, &mut ks, argv, step, seed) {
                    fail(&e, &history, &k);
                }
            }
        }
    }
    println!("bitmap_diff: {total} random commands identical to redis-server: {per_command:?}");
}
