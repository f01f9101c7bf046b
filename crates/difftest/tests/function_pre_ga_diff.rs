//! A function library record of Redis 7.0's release candidates (RDB_OPCODE_FUNCTION_PRE_GA,
//! 246), written by bitlens' RDB writer into an RDB 10 file with keys after it, against Redis
//! 7.0.15 (skipped when not installed): the server loads the file (FUNCTION LIST names the
//! library, so the record was read, not skipped) and DBSIZE, TYPE, GET and ZRANGE WITHSCORES match
//! bitlens byte for byte, with and without the optional description. Redis 7.4.1 and Valkey
//! 8.1.8 / 9.1.2 refuse such a file ("Pre-release function format not supported", since 7.2):
//! checked, and so does bitlens loading as those servers (`LoadOptions::loader`,
//! `Profile::function_pre_ga`); by default it loads as 7.0 does. A record cut short is refused by bitlens with its offset.

use bitlens::command::{execute_in, Ctx};
use bitlens::dialect::Profile;
use bitlens::rdb::{load_rdb, Format, LoadOptions, RdbWriter};
use bitlens_difftest::{RedisServer, ServerKind};

fn v(s: &str) -> Vec<u8> {
    s.as_bytes().to_vec()
}

const CODE: &[u8] = b"redis.register_function('pre_ga_one', function(keys, args) return 1 end)";

fn file(description: Option<&[u8]>) -> Vec<u8> {
    let mut w = RdbWriter::with_format(Vec::new(), Format::redis(10), b"7.0.0").unwrap();
    w.function_library_pre_ga(b"prega", b"LUA", description, CODE)
        .unwrap();
    w.select_db(0).unwrap();
    w.write_string(b"k", b"value", None).unwrap();
    let z = bitlens::zset::ZSet::from_pairs(vec![(v("m"), 1.5), (v("n"), 2.0)]);
    w.write_zset(b"z", &z, None).unwrap();
    w.finish().unwrap()
}

#[test]
fn pre_ga_function_record_loads_as_redis_7_0() {
    for description in [None, Some(&b"a library from 7.0-rc2"[..])] {
        let bytes = file(description);
        let snap = load_rdb(&bytes, &LoadOptions::default()).expect("bitlens loads the file");
        let mut ks = snap.databases[&0].clone();
        let kind = ServerKind::Redis7_0;
        let Some(server) = RedisServer::start_kind_if_installed(kind, &[]).map(|s| {
            drop(s);
            RedisServer::start_kind_loading(kind, &bytes, &[])
        }) else {
            return;
        };
        let mut raw = server.raw_connection();
        let list = raw.query(&[v("FUNCTION"), v("LIST")]);
        assert!(
            list.windows(5).any(|w| w == b"prega") && list.windows(10).any(|w| w == b"pre_ga_one"),
            "FUNCTION LIST: {}",
            String::from_utf8_lossy(&list)
        );
        let profile = Profile::from_name(kind.profile_name()).unwrap();
        for argv in [
            vec![v("DBSIZE")],
            vec![v("TYPE"), v("k")],
            vec![v("GET"), v("k")],
            vec![v("ZRANGE"), v("z"), v("0"), v("-1"), v("WITHSCORES")],
        ] {
            let ours = execute_in(&mut Ctx::single(&mut ks, profile), &argv).to_resp();
            assert_eq!(
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&raw.query(&argv)),
                "{argv:?}"
            );
        }
    }
    // 7.2+ servers refuse the record.
    let bytes = file(None);
    for kind in [
        ServerKind::Redis7_4,
        ServerKind::Valkey8_1,
        ServerKind::Valkey9_1,
    ] {
        if !kind.available() {
            continue;
        }
        let started =
            std::panic::catch_unwind(|| RedisServer::start_kind_loading(kind, &bytes, &[]));
        assert!(
            started.is_err(),
            "{} loaded a pre-GA function record",
            kind.name()
        );
        // So does bitlens loading as that server.
        let opts = LoadOptions {
            loader: Profile::from_name(kind.profile_name()),
            ..LoadOptions::default()
        };
        let err = load_rdb(&bytes, &opts).expect_err("refused as 7.2+");
        assert!(err.to_string().contains("offset"), "{err}");
        eprintln!(
            "{}: refuses the pre-GA function record; bitlens: {err}",
            kind.name()
        );
    }
    // Cut inside the code string: an error with its offset, no panic.
    let cut = &bytes[..bytes.len() - 60];
    let err = load_rdb(cut, &LoadOptions::default()).expect_err("truncated file");
    assert!(err.to_string().contains("offset"), "{err}");
}
