//! Every server kind of the harness starts, reports the version it is named after, and SAVEs a
//! file with the magic the notes record for it (`../shared/notes/redis-versions.md`, checked
//! against these servers on 2026-12-01: REDIS0009 for 6.0/6.2, REDIS0010 for 7.0, REDIS0012 for
//! 7.4, REDIS0011 for Valkey 8.1, VALKEY080 for Valkey 9.1). A server that is not installed is
//! a failure naming `npm run setup`, not a skip.

use bitlens_difftest::{RedisServer, ServerKind};

fn info_field(info: &str, field: &str) -> Option<String> {
    info.lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .map(|v| v.trim_end().to_string())
}

#[test]
fn every_server_kind_starts_reports_its_version_and_saves_its_rdb_magic() {
    for kind in ServerKind::ALL {
        assert!(
            kind.available(),
            "{} is not installed: run `npm run setup`",
            kind.name()
        );
        let server = RedisServer::start_kind(kind, &[]);
        assert_eq!(server.kind(), kind);
        let mut conn = server.connection();
        let info: String = redis::cmd("INFO").arg("server").query(&mut conn).unwrap();
        let field = if kind.is_valkey() {
            "valkey_version"
        } else {
            "redis_version"
        };
        assert_eq!(
            info_field(&info, field).as_deref(),
            Some(kind.version()),
            "{}: INFO {field}",
            kind.name()
        );
        if kind.is_valkey() {
            // Valkey reports Redis compatibility 7.2.4 in redis_version.
            assert_eq!(info_field(&info, "redis_version").as_deref(), Some("7.2.4"));
        }
        let _: () = redis::cmd("SET")
            .arg("k")
            .arg("v")
            .query(&mut conn)
            .unwrap();
        let rdb = server.save_rdb();
        assert_eq!(
            &rdb[..9],
            kind.rdb_magic(),
            "{}: magic {:?}",
            kind.name(),
            String::from_utf8_lossy(&rdb[..9])
        );
        // The kind's own cli answers, in the piped (non-terminal) form.
        assert_eq!(
            server.cli_output(&[b"GET", b"k"]),
            b"v\n",
            "{}",
            kind.name()
        );
        assert_eq!(
            server.cli_output_in(1, &[b"DBSIZE"]),
            b"0\n",
            "{}",
            kind.name()
        );
        assert_eq!(
            server.cli_output(&[b"SETBIT"]),
            b"ERR wrong number of arguments for 'setbit' command\n\n",
            "{}",
            kind.name()
        );
    }
}

#[test]
fn redis_7_4_starts_with_redisbloom_2_8_2() {
    let server = RedisServer::start_kind_with_bloom(&[]);
    let mut conn = server.connection();
    let _: () = redis::cmd("BF.ADD")
        .arg("bf")
        .arg("x")
        .query(&mut conn)
        .unwrap();
    let list = server.cli_output(&[b"MODULE", b"LIST"]);
    let text = String::from_utf8_lossy(&list);
    assert!(text.contains("\nbf\nver\n20802\n"), "MODULE LIST: {text}");
    let rdb = server.save_rdb();
    assert_eq!(&rdb[..9], b"REDIS0012");
}

#[test]
fn a_server_loads_the_rdb_it_is_given() {
    let src = RedisServer::start_kind(ServerKind::Redis6_2, &[]);
    let _: () = redis::cmd("SET")
        .arg("a")
        .arg("1")
        .query(&mut src.connection())
        .unwrap();
    let rdb = src.save_rdb();
    let dst = RedisServer::start_kind_loading(ServerKind::Redis7_4, &rdb, &[]);
    assert_eq!(dst.cli_output(&[b"GET", b"a"]), b"1\n");
}
