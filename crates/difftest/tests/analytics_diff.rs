//! The `BITLENS.*` analytics against answers computed by a live `redis-server` with its own
//! commands (BITOP AND/OR + BITCOUNT, BITCOUNT … BIT, BITPOS, BITFIELD GET), on random bitmaps of
//! different lengths written into Redis with SET and mirrored into bitlens with GET:
//! - STREAKHIST: users set in the last k keys = BITCOUNT of BITOP AND of those keys; the
//!   histogram is the difference of consecutive counts.
//! - ROLLING: BITCOUNT of BITOP OR of each window. DAU: BITCOUNT.
//! - RETENTION: cohort ∩ day d+t = |d ∩ (d+t)| − |d ∩ (d+t) ∩ OR(prior)|, all by BITOP/BITCOUNT.
//! - TAGOVERLAP / TAGREACH: BITCOUNT of BITOP AND; TAGMEMBER: GETBIT.
//! - ENUMDIST: BITFIELD GET u<w> #i for every field.
//! - PROCESSED / FIRSTUNPROCESSED: BITCOUNT … BIT and BITPOS 0.
//!
//! The seed is printed; `BITLENS_SEED` replays a run.

use bitlens::command::execute;
use bitlens::keyspace::Value;
use bitlens::string::RedisString;
use bitlens::{Keyspace, Reply};
use bitlens_difftest::{query, RedisServer};

struct Both {
    conn: redis::Connection,
    ks: Keyspace,
}

impl Both {
    fn redis(&mut self, argv: &[&[u8]]) -> Reply {
        let argv: Vec<Vec<u8>> = argv.iter().map(|a| a.to_vec()).collect();
        query(&mut self.conn, &argv)
    }
    fn int(&mut self, argv: &[&[u8]]) -> i64 {
        match self.redis(argv) {
            Reply::Integer(n) => n,
            other => panic!("{:?}: {other:?}", String::from_utf8_lossy(argv[0])),
        }
    }
    fn bitlens(&mut self, argv: &[&[u8]]) -> Reply {
        let argv: Vec<Vec<u8>> = argv.iter().map(|a| a.to_vec()).collect();
        execute(&mut self.ks, &argv)
    }
    /// Writes `bytes` under `key` in Redis and mirrors Redis' GET into bitlens.
    fn set(&mut self, key: &str, bytes: &[u8]) {
        assert_eq!(
            self.redis(&[b"SET", key.as_bytes(), bytes]),
            Reply::Status("OK".into())
        );
        let Reply::Bulk(got) = self.redis(&[b"GET", key.as_bytes()]) else {
            panic!("GET {key}")
        };
        self.ks
            .set(key.as_bytes(), Value::String(RedisString::from_bytes(got)));
    }
    /// BITCOUNT of BITOP `op` over `keys` (a single key is counted directly).
    fn op_count(&mut self, op: &str, keys: &[&str]) -> i64 {
        if keys.len() == 1 {
            return self.int(&[b"BITCOUNT", keys[0].as_bytes()]);
        }
        let mut argv: Vec<&[u8]> = vec![b"BITOP", op.as_bytes(), b"scratch"];
        argv.extend(keys.iter().map(|k| k.as_bytes()));
        self.int(&argv);
        self.int(&[b"BITCOUNT", b"scratch"])
    }
}

fn ints(v: &[i64]) -> Reply {
    Reply::Array(v.iter().map(|&n| Reply::Integer(n)).collect())
}

fn random_bitmap(rng: &mut fastrand::Rng, len: usize, per_mille: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            let mut byte = 0u8;
            for bit in 0..8 {
                if rng.u64(..1000) < per_mille {
                    byte |= 0x80 >> bit;
                }
            }
            byte
        })
        .collect()
}

#[test]
fn analytics_against_live_redis() {
    let seed = bitlens_testseed::seed();
    let server = RedisServer::start(&[]);
    let mut t = Both {
        conn: server.connection(),
        ks: Keyspace::new(),
    };
    let mut rng = fastrand::Rng::with_seed(seed | 1);
    let mut checked = 0usize;
    for round in 0..4 {
        // Daily keys: a core of regulars plus noise, lengths varying per day (some empty).
        let n = 10 + rng.u64(..8) as usize;
        let names: Vec<String> = (0..n)
            .map(|d| format!("r{round}:active:202405{:02}", d + 1))
            .collect();
        let core = random_bitmap(&mut rng, 3000, 500);
        for name in &names {
            let len = [0usize, 1, 9, 64, 700, 2049, 3000][rng.u64(..7) as usize];
            let keep = random_bitmap(&mut rng, len, 850);
            let noise = random_bitmap(&mut rng, len, 50);
            let day: Vec<u8> = (0..len).map(|i| (core[i] & keep[i]) | noise[i]).collect();
            t.set(name, &day);
        }
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();

        // STREAKHIST
        let mut in_last = vec![0i64; n + 2];
        for k in 1..=n {
            in_last[k] = t.op_count("AND", &refs[n - k..]);
        }
        let want: Vec<i64> = (1..=n).map(|k| in_last[k] - in_last[k + 1]).collect();
        let mut argv: Vec<&[u8]> = vec![b"BITLENS.STREAKHIST"];
        argv.extend(refs.iter().map(|k| k.as_bytes()));
        assert_eq!(t.bitlens(&argv), ints(&want), "STREAKHIST round {round}");
        checked += 1;

        // DAU and ROLLING
        let dau: Vec<i64> = refs
            .iter()
            .map(|k| t.int(&[b"BITCOUNT", k.as_bytes()]))
            .collect();
        argv[0] = b"BITLENS.DAU";
        assert_eq!(t.bitlens(&argv), ints(&dau));
        checked += 1;
        for w in [1usize, 3, 7, 30] {
            let want: Vec<i64> = (0..n)
                .map(|e| t.op_count("OR", &refs[(e + 1).saturating_sub(w)..=e]))
                .collect();
            let ws = w.to_string();
            let mut argv: Vec<&[u8]> = vec![b"BITLENS.ROLLING", ws.as_bytes()];
            argv.extend(refs.iter().map(|k| k.as_bytes()));
            assert_eq!(t.bitlens(&argv), ints(&want), "ROLLING {w} round {round}");
            checked += 1;
        }

        // RETENTION lookback 3, horizon 4
        let (lookback, horizon) = (3usize, 4usize);
        t.int(&[b"DEL", b"prior"]);
        let mut rows = Vec::new();
        for d in lookback..n {
            let mut argv: Vec<&[u8]> = vec![b"BITOP", b"OR", b"prior"];
            argv.extend(refs[d - lookback..d].iter().map(|k| k.as_bytes()));
            t.int(&argv);
            let size = t.op_count("AND", &[refs[d]]) - t.op_count("AND", &[refs[d], "prior"]);
            let mut row = vec![Reply::Integer(size)];
            for step in 1..=horizon {
                row.push(if d + step < n {
                    let both = t.op_count("AND", &[refs[d], refs[d + step]]);
                    let old = t.op_count("AND", &[refs[d], refs[d + step], "prior"]);
                    Reply::Integer(both - old)
                } else {
                    Reply::NullBulk
                });
            }
            rows.push(Reply::Array(row));
        }
        let mut argv: Vec<&[u8]> = vec![b"BITLENS.RETENTION", b"3", b"4"];
        argv.extend(refs.iter().map(|k| k.as_bytes()));
        assert_eq!(
            t.bitlens(&argv),
            Reply::Array(rows),
            "RETENTION round {round}"
        );
        checked += 1;

        // Tags: overlap, reach among the last day, membership.
        let tags: Vec<&str> = refs[..4].to_vec();
        let today = refs[n - 1];
        let mut argv: Vec<&[u8]> = vec![b"BITLENS.TAGOVERLAP"];
        argv.extend(tags.iter().map(|k| k.as_bytes()));
        let want = Reply::Array(
            (0..4)
                .map(|i| {
                    ints(
                        &(0..4)
                            .map(|j| t.op_count("AND", &[tags[i], tags[j]]))
                            .collect::<Vec<_>>(),
                    )
                })
                .collect(),
        );
        assert_eq!(t.bitlens(&argv), want);
        let want: Vec<i64> = tags
            .iter()
            .map(|g| t.op_count("AND", &[today, g]))
            .collect();
        let mut argv: Vec<&[u8]> = vec![b"BITLENS.TAGREACH", today.as_bytes()];
        argv.extend(tags.iter().map(|k| k.as_bytes()));
        assert_eq!(t.bitlens(&argv), ints(&want));
        for _ in 0..20 {
            let uid = rng.u64(..30_000).to_string();
            let want: Vec<i64> = tags
                .iter()
                .map(|g| t.int(&[b"GETBIT", g.as_bytes(), uid.as_bytes()]))
                .collect();
            let mut argv: Vec<&[u8]> = vec![b"BITLENS.TAGMEMBER", uid.as_bytes()];
            argv.extend(tags.iter().map(|k| k.as_bytes()));
            assert_eq!(t.bitlens(&argv), ints(&want));
        }
        checked += 3;

        // Idempotency: processed ranges and first unprocessed offset.
        let idem = format!("r{round}:idem:orders:0");
        let len = 1 + rng.u64(..900) as usize;
        let density = [500, 990, 1000][rng.u64(..3) as usize];
        let bytes = random_bitmap(&mut rng, len, density);
        t.set(&idem, &bytes);
        for _ in 0..30 {
            let from = rng.u64(..len as u64 * 8 + 50);
            let to = from + rng.u64(..len as u64 * 8);
            let (f, e) = (from.to_string(), to.to_string());
            let want = t.int(&[
                b"BITCOUNT",
                idem.as_bytes(),
                f.as_bytes(),
                e.as_bytes(),
                b"BIT",
            ]);
            let got = t.bitlens(&[
                b"BITLENS.PROCESSED",
                idem.as_bytes(),
                f.as_bytes(),
                e.as_bytes(),
            ]);
            assert_eq!(got, Reply::Integer(want), "PROCESSED {from} {to}");
        }
        let want = t.int(&[b"BITPOS", idem.as_bytes(), b"0"]);
        assert_eq!(
            t.bitlens(&[b"BITLENS.FIRSTUNPROCESSED", idem.as_bytes()]),
            Reply::Integer(want)
        );
        checked += 2;

        // ENUMDIST over u<w> fields, all users and among today's actives.
        let w = [2u32, 3, 4, 8][round % 4];
        let fkey = format!("r{round}:level");
        let flen = 1 + rng.u64(..400) as usize;
        let fbytes = random_bitmap(&mut rng, flen, 400);
        t.set(&fkey, &fbytes);
        let nfields = (flen as u64 * 8).div_ceil(w as u64);
        let ty = format!("u{w}");
        let mut values = Vec::new();
        for chunk in (0..nfields).collect::<Vec<_>>().chunks(200) {
            let idx: Vec<String> = chunk.iter().map(|i| format!("#{i}")).collect();
            let mut argv: Vec<&[u8]> = vec![b"BITFIELD", fkey.as_bytes()];
            for i in &idx {
                argv.extend([&b"GET"[..], ty.as_bytes(), i.as_bytes()]);
            }
            let Reply::Array(vals) = t.redis(&argv) else {
                panic!("BITFIELD")
            };
            values.extend(vals.into_iter().map(|v| match v {
                Reply::Integer(n) => n as usize,
                other => panic!("{other:?}"),
            }));
        }
        let mut want = vec![0i64; 1 << w];
        for &v in &values {
            want[v] += 1;
        }
        assert_eq!(
            t.bitlens(&[b"BITLENS.ENUMDIST", fkey.as_bytes(), ty.as_bytes()]),
            ints(&want)
        );
        let mut want = vec![0i64; 1 << w];
        let today_bytes = match t.redis(&[b"GET", today.as_bytes()]) {
            Reply::Bulk(x) => x,
            _ => Vec::new(),
        };
        for uid in 0..today_bytes.len() as u64 * 8 {
            if today_bytes[(uid / 8) as usize] & (0x80 >> (uid % 8)) != 0 {
                want[values.get(uid as usize).copied().unwrap_or(0)] += 1;
            }
        }
        assert_eq!(
            t.bitlens(&[
                b"BITLENS.ENUMDIST",
                fkey.as_bytes(),
                ty.as_bytes(),
                b"AMONG",
                today.as_bytes()
            ]),
            ints(&want)
        );
        checked += 2;
    }
    eprintln!("analytics differential: {checked} command checks passed");
}
