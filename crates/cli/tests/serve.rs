//! `bitlens serve --redis` against a real redis-server: the snapshot it streams loads into
//! another redis-server with the same values and expiries; only read commands reach Redis
//! (checked with MONITOR); ACL user with password; allow-list, token and CORS; a Redis that dies
//! mid-download aborts the body; an unreachable Redis stops start-up with a clear error. And
//! against every server kind of the harness (Redis 6.0.9, 6.2.14, 7.0.15, 7.4.1, Valkey 8.1.8,
//! 9.1.2): the export carries that server's RDB magic and version aux field, bitlens answers on
//! it as the server does, and the same server loads it back.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bitlens_difftest::{RedisServer, ServerKind};
use common::*;

fn cmd(conn: &mut redis::Connection, args: &[&str]) -> redis::Value {
    let mut c = redis::cmd(args[0]);
    for a in &args[1..] {
        c.arg(*a);
    }
    c.query(conn).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// Fills a server with keys of every kind the exporter must carry.
fn fill(server: &RedisServer, bulk: usize) {
    let mut c = server.connection();
    for (day, bits) in [("20240501", [1u32, 7, 100_000]), ("20240502", [3, 7, 9])] {
        for b in bits {
            cmd(
                &mut c,
                &[
                    "SETBIT",
                    &format!("stats:active:{day}"),
                    &b.to_string(),
                    "1",
                ],
            );
        }
    }
    cmd(
        &mut c,
        &["PFADD", "uv:page:index:20240501", "a", "b", "c", "d"],
    );
    cmd(
        &mut c,
        &[
            "GEOADD",
            "shop:geo:cafe",
            "121.47",
            "31.23",
            "c1",
            "121.48",
            "31.22",
            "c<2>",
        ],
    );
    cmd(&mut c, &["SET", "plain", "hello"]);
    cmd(&mut c, &["SET", "number", "12345"]);
    cmd(&mut c, &["SET", "big", &"abc".repeat(20_000)]);
    cmd(&mut c, &["RPUSH", "list", "a", "b"]);
    cmd(&mut c, &["HSET", "hash", "f", "v"]);
    cmd(&mut c, &["SADD", "set", "x", "y"]);
    cmd(&mut c, &["SET", "expiring", "v", "PX", "3600000"]);
    for i in 0..bulk {
        cmd(&mut c, &["SET", &format!("bulk:{i:04}"), &i.to_string()]);
    }
}

fn all_keys(server: &RedisServer) -> Vec<String> {
    let mut c = server.connection();
    let mut keys: Vec<String> = redis::cmd("KEYS").arg("*").query(&mut c).unwrap();
    keys.sort();
    keys
}

fn dump(c: &mut redis::Connection, key: &str) -> Option<Vec<u8>> {
    redis::cmd("DUMP").arg(key).query(c).unwrap()
}

/// Records the command names that reach a server while it is alive (MONITOR).
struct Monitor {
    seen: Arc<Mutex<Vec<String>>>,
    stream: TcpStream,
}

impl Monitor {
    fn start(port: u16) -> Monitor {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.write_all(b"MONITOR\r\n").unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut ok = String::new();
        reader.read_line(&mut ok).unwrap();
        assert_eq!(ok, "+OK\r\n");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let seen2 = seen.clone();
        std::thread::spawn(move || {
            for line in reader.lines() {
                let Ok(line) = line else { break };
                // +1700000000.123456 [0 127.0.0.1:5000] "SCAN" "0" ...
                if let Some(rest) = line.split_once("] ").map(|x| x.1) {
                    let mut parts = rest.split('"').skip(1).step_by(2);
                    let name = parts.next().unwrap_or("").to_ascii_uppercase();
                    let full = if name == "MEMORY" || name == "CLIENT" || name == "CONFIG" {
                        format!("{name} {}", parts.next().unwrap_or("").to_ascii_uppercase())
                    } else {
                        name
                    };
                    seen2.lock().unwrap().push(full);
                }
            }
        });
        Monitor { seen, stream }
    }

    fn stop(self) -> Vec<String> {
        // Give the last lines a moment to arrive, then close.
        std::thread::sleep(Duration::from_millis(300));
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
        let v = self.seen.lock().unwrap().clone();
        v
    }
}

#[test]
fn snapshot_reloads_into_redis_and_only_reads_are_sent() {
    let source = RedisServer::start(&[]);
    fill(&source, 300);
    let monitor = Monitor::start(source.port);
    let served = Served::start(&["--redis", &source.url(), "--scan-count", "50"]);

    let resp = served.get("/api/snapshot");
    assert_eq!(resp.status, 200);
    assert_eq!(
        resp.header("content-type"),
        Some("application/octet-stream")
    );
    assert!(resp.complete, "body was aborted: {}", served.stderr());
    assert!(resp.body.starts_with(b"REDIS0010"));

    let keys = served.get("/api/keys?match=stats:*");
    assert_eq!(keys.status, 200);
    let rows = keys.json();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["key"], "stats:active:20240501");
    assert_eq!(rows[0]["type"], "string");
    assert!(rows[0]["bytes"].as_u64().unwrap() >= 12_501);

    let info = served.get("/api/info").json();
    assert_eq!(info["source"], "redis");
    assert_eq!(
        info["redis_version"].as_str().unwrap().split('.').next(),
        Some("7")
    );

    let partial = served.get("/api/snapshot?match=stats:*&match=uv:*&match=stats:active:*");
    assert!(partial.complete);

    let seen = monitor.stop();
    assert!(seen.iter().any(|c| c == "SCAN"), "{seen:?}");
    assert!(seen.iter().any(|c| c == "DUMP"));
    let allowed = [
        "SCAN",
        "TYPE",
        "DUMP",
        "PTTL",
        "STRLEN",
        "MEMORY USAGE",
        "INFO",
        "PING",
        "AUTH",
        "HELLO",
        "SELECT",
    ];
    let bad: Vec<&String> = seen
        .iter()
        .filter(|c| !allowed.contains(&c.as_str()))
        .collect();
    assert!(bad.is_empty(), "non-read commands reached Redis: {bad:?}");

    // The full snapshot, loaded by a real Redis, holds the same keys, values and expiries.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("snap.rdb");
    std::fs::write(&file, &resp.body).unwrap();
    let copy = LoadedRedis::start(&file);
    assert_eq!(all_keys(&source), all_keys(&copy.server));
    let (mut a, mut b) = (source.connection(), copy.server.connection());
    for key in all_keys(&source) {
        let kind: String = redis::cmd("TYPE").arg(&key).query(&mut a).unwrap();
        if kind == "set" {
            // A hashtable set's DUMP lists members in hash order, which differs per server.
            let members = |c: &mut redis::Connection| {
                let mut m: Vec<String> = redis::cmd("SMEMBERS").arg(&key).query(c).unwrap();
                m.sort();
                m
            };
            assert_eq!(members(&mut a), members(&mut b), "{key}");
        } else {
            assert_eq!(dump(&mut a, &key), dump(&mut b, &key), "{key}");
        }
        let ttl: i64 = redis::cmd("PTTL").arg(&key).query(&mut b).unwrap();
        if key == "expiring" {
            assert!(ttl > 3_000_000 && ttl <= 3_600_000, "{ttl}");
        } else {
            assert_eq!(ttl, -1, "{key}");
        }
    }

    // Several patterns: each key once, only matching keys.
    let file2 = dir.path().join("partial.rdb");
    std::fs::write(&file2, &partial.body).unwrap();
    let copy2 = LoadedRedis::start(&file2);
    assert_eq!(
        all_keys(&copy2.server),
        [
            "stats:active:20240501",
            "stats:active:20240502",
            "uv:page:index:20240501"
        ]
    );
}

#[test]
fn acl_user_with_password_is_enough_and_password_never_shown() {
    let source = RedisServer::start(&[]);
    fill(&source, 10);
    let mut c = source.connection();
    // 2 MiB: its DUMP streams over the exporter's own connection, which must AUTH as the user.
    cmd(&mut c, &["SETBIT", "stats:big", "16777215", "1"]);
    // Another database, exported too (INFO keyspace lists it, SELECT reads it); a 2 MiB key
    // there streams over a connection of its own that AUTHs and SELECTs.
    cmd(&mut c, &["SELECT", "3"]);
    cmd(&mut c, &["SET", "in:three", "3"]);
    cmd(&mut c, &["SETBIT", "big:three", "16777215", "1"]);
    cmd(&mut c, &["SELECT", "0"]);
    cmd(
        &mut c,
        &[
            "ACL",
            "SETUSER",
            "bitlens",
            "on",
            ">s3cret-pw",
            "~*",
            "resetchannels",
            "-@all",
            "+scan",
            "+type",
            "+dump",
            "+pttl",
            "+strlen",
            "+memory|usage",
            "+info",
            "+ping",
            "+select",
        ],
    );
    let url = format!("redis://bitlens:s3cret-pw@127.0.0.1:{}/", source.port);
    let served = Served::start(&["--redis", &url]);
    let resp = served.get("/api/snapshot");
    assert!(resp.complete, "{}", served.stderr());
    let snap = bitlens::rdb::load_rdb(&resp.body, &Default::default()).unwrap();
    match snap.databases[&0].get(b"stats:big") {
        Some(bitlens::Value::String(s)) => assert_eq!(s.as_bytes().len(), 2 << 20),
        other => panic!("{other:?}"),
    }
    match snap.databases[&3].get(b"big:three") {
        Some(bitlens::Value::String(s)) => assert_eq!(s.as_bytes().len(), 2 << 20),
        other => panic!("{other:?}"),
    }
    assert_eq!(snap.databases[&3].len(), 2);
    assert!(snap.databases[&0].get(b"in:three").is_none());
    let keys = served.get("/api/keys");
    assert_eq!(keys.status, 200, "{}", String::from_utf8_lossy(&keys.body));
    assert_eq!(
        keys.json().as_array().unwrap().len(),
        all_keys(&source).len()
    );
    let info = served.get("/api/info");
    let text = String::from_utf8_lossy(&info.body).into_owned();
    assert!(!text.contains("s3cret"), "{text}");
    assert_eq!(
        info.json()["redis"],
        format!("redis://bitlens@127.0.0.1:{}/", source.port)
    );

    // A wrong password: start-up fails with a clear message, without the password.
    let bad = format!("redis://bitlens:wrong-pw@127.0.0.1:{}/", source.port);
    let out = bitlens(&["serve", "--bind", "127.0.0.1:0", "--redis", &bad], b"");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot reach Redis"), "{err}");
    assert!(!err.contains("wrong-pw"), "{err}");

    // The rule without +select: database 3 cannot be read, and the export says so (502,
    // naming SELECT and the server's NOPERM text); narrowed to database 0 it is enough.
    let mut rule: Vec<&str> = vec!["ACL", "SETUSER", "nosel", "on", ">pw2", "~*"];
    rule.extend(["resetchannels", "-@all", "+scan", "+type", "+dump", "+pttl"]);
    rule.extend(["+strlen", "+memory|usage", "+info", "+ping"]);
    cmd(&mut c, &rule);
    let nosel = format!("redis://nosel:pw2@127.0.0.1:{}", source.port);
    let served = Served::start(&["--redis", &nosel]);
    let r = served.get("/api/snapshot");
    assert_eq!(r.status, 502, "{}", String::from_utf8_lossy(&r.body));
    let e = r.json()["error"].as_str().unwrap().to_string();
    assert!(e.contains("SELECT 3") && e.contains("permissions"), "{e}");
    let served = Served::start(&["--redis", &format!("{nosel}/0")]);
    let r = served.get("/api/snapshot");
    assert!(r.complete, "{}", served.stderr());
    let snap = bitlens::rdb::load_rdb(&r.body, &Default::default()).unwrap();
    assert_eq!(snap.databases[&0].len(), all_keys(&source).len());
    assert!(snap.databases.get(&3).is_none_or(|ks| ks.is_empty()));
}

#[test]
fn unreachable_redis_stops_start_up() {
    let (port, port2) = (free_port(), free_port());
    let out = bitlens(
        &[
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--redis",
            &format!("redis://127.0.0.1:{port}/"),
        ],
        b"",
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("cannot reach Redis at redis://127.0.0.1:{port}/")),
        "{err}"
    );
    assert!(out.stdout.is_empty());

    // Several seeds, none reachable: every one is named.
    let out = bitlens(
        &[
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--redis",
            &format!("redis://127.0.0.1:{port}/,redis://:secret@127.0.0.1:{port2}/"),
        ],
        b"",
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "cannot reach Redis at redis://127.0.0.1:{port}/: "
        )) && err.contains(&format!(
            "; cannot reach Redis at redis://127.0.0.1:{port2}/: "
        )),
        "{err}"
    );
    assert!(!err.contains("secret"), "{err}");
}

#[test]
fn bad_redis_url_and_bind_address_are_named_in_plain_words() {
    let out = bitlens(&["serve", "--bind", "127.0.0.1:0", "--redis", "foo"], b"");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim_end(),
        "bitlens: not a Redis URL: foo (expected redis://host:port, redis://user:password@host:port/db, rediss://host:port for TLS, or unix:///path/to/redis.sock)"
    );
    // `--bind localhost:PORT` resolves the name and listens on loopback.
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_bitlens"))
        .args(["serve", "--bind", "localhost:0", "--static-dir"])
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        line.starts_with("bitlens serving on http://127.0.0.1:")
            || line.starts_with("bitlens serving on http://[::1]:"),
        "{line:?}"
    );
    let out = bitlens(&["serve", "--bind", "localhost:http"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"http\" is not a port number"));
}

#[test]
fn every_error_has_a_json_body_naming_the_component() {
    let served = Served::start(&[]);
    let cases: [(&str, &str, u16, &str); 6] = [
        ("GET", "/api/snapshot?match=%ZZ", 400, "request"),
        ("GET", "/api/keys?match=ab%2", 400, "request"),
        ("GET", "/api/info?x=1", 400, "request"),
        ("GET", "/api/keys?x=1", 400, "request"),
        ("PUT", "/api/snapshot", 405, "request"),
        ("DELETE", "/api/keys", 405, "request"),
    ];
    for (method, path, status, component) in cases {
        let r = http_request(served.port, method, path, &[]);
        assert_eq!(r.status, status, "{method} {path}");
        assert_eq!(
            r.header("content-type"),
            Some("application/json"),
            "{method} {path}"
        );
        let j = r.json();
        assert_eq!(j["component"], component, "{method} {path}");
        assert!(j["error"].as_str().is_some_and(|e| !e.is_empty()));
    }
    let r = http_request(served.port, "GET", "/api/info?x=1", &[]);
    assert_eq!(
        r.json()["error"],
        "unknown parameter \"x\": this endpoint takes no parameters"
    );
    let r = http_request(served.port, "POST", "/api/keys", &[]);
    assert_eq!(r.header("allow"), Some("GET, HEAD"));
}

#[test]
fn request_targets_past_the_uri_limit_get_a_json_414() {
    // The `http` crate holds request targets of at most 65,534 bytes; hyper answers longer
    // ones itself with a bare 414, so the server's connection guard answers them instead.
    let served = Served::start(&[]);
    let over = format!("/api/keys?match={}", "a".repeat(100_000));
    let r = http_request(served.port, "GET", &over, &[]);
    assert_eq!(r.status, 414);
    assert_eq!(r.header("content-type"), Some("application/json"));
    let j = r.json();
    assert_eq!(j["component"], "request");
    assert_eq!(
        j["error"],
        "the request target is longer than 65534 bytes, the most an HTTP request here can \
         carry: pass fewer or shorter match patterns"
    );
    // One byte under the limit reaches the API, which answers the query.
    let prefix = "/api/keys?match=";
    let at = format!("{prefix}{}", "a".repeat(65_534 - prefix.len()));
    let r = http_request(served.port, "GET", &at, &[]);
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    // No demo key matches: the list without a cursor is a bare array.
    assert_eq!(r.json(), serde_json::json!([]));
    // The server goes on answering after a refusal.
    assert_eq!(served.get("/api/info").status, 200);
}

#[test]
fn non_utf8_key_names_round_trip_through_the_api() {
    let source = RedisServer::start(&[]);
    let mut c = source.connection();
    let _: () = redis::cmd("SET")
        .arg(b"\xff\xfe:k".as_slice())
        .arg("v")
        .query(&mut c)
        .unwrap();
    let _: () = redis::cmd("SET")
        .arg("plain:k")
        .arg("v")
        .query(&mut c)
        .unwrap();
    let served = Served::start(&["--redis", &source.url()]);
    // The pattern's %FF is the byte 0xFF (a lossy decode would have made it U+FFFD).
    let rows = served.get("/api/keys?match=%FF*").json();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["key"], serde_json::json!({ "hex": "fffe3a6b" }));
    let memory: i64 = redis::cmd("MEMORY")
        .arg("USAGE")
        .arg(b"\xff\xfe:k".as_slice())
        .query(&mut c)
        .unwrap();
    assert_eq!(rows[0]["bytes"], memory);
    let rows = served.get("/api/keys?match=plain:*").json();
    assert_eq!(rows[0]["key"], "plain:k");
    let snap = served.get("/api/snapshot?match=%FF*");
    let snap = bitlens::rdb::load_rdb(&snap.body, &Default::default()).unwrap();
    let keys: Vec<Vec<u8>> = snap.databases[&0].iter().map(|(k, _)| k.to_vec()).collect();
    assert_eq!(keys, vec![b"\xff\xfe:k".to_vec()]);
}

#[test]
fn bearer_scheme_is_case_insensitive() {
    let served = Served::start(&["--token", "tok123"]);
    for value in ["Bearer tok123", "bearer tok123", "BEARER  tok123"] {
        let r = http_get(served.port, "/api/info", &[("Authorization", value)]);
        assert_eq!(r.status, 200, "{value}");
    }
    let r = http_get(
        served.port,
        "/api/info",
        &[("Authorization", "Basic tok123")],
    );
    assert_eq!(r.status, 401);
    assert_eq!(r.json()["component"], "token");
}

#[test]
fn first_reachable_seed_is_used() {
    let source = RedisServer::start(&[]);
    let _: () = redis::cmd("SET")
        .arg("stats:active:20240501")
        .arg("x")
        .query(&mut source.connection())
        .unwrap();
    let dead = format!("redis://127.0.0.1:{}/", free_port());
    // Repeated --redis: the dead seed first.
    let served = Served::start(&["--redis", &dead, "--redis", &source.url()]);
    let info = served.get("/api/info").json();
    assert_eq!(info["redis"], source.url());
    let snap = served.get("/api/snapshot");
    assert!(snap.complete, "{}", served.stderr());
    let ks = bitlens::rdb::load_rdb(&snap.body, &Default::default()).unwrap();
    assert_eq!(ks.databases[&0].len(), 1);
    assert!(served
        .stderr()
        .contains(&format!("cannot reach Redis at {dead}")));
}

#[test]
fn bad_requests_get_json_errors_and_snapshots_name_the_source_version() {
    let source = RedisServer::start(&[]);
    fill(&source, 0);
    let served = Served::start(&["--redis", &source.url()]);
    for path in [
        "/api/snapshot?match=",
        "/api/snapshot?match=stats:*&match=",
        "/api/keys?match=",
    ] {
        let r = served.get(path);
        assert_eq!(r.status, 400, "{path}");
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert!(
            r.json()["error"]
                .as_str()
                .unwrap()
                .starts_with("empty match pattern"),
            "{path}"
        );
    }
    for path in ["/api/nope", "/nope", "/www/missing.js", "/pkg/missing.wasm"] {
        let r = served.get(path);
        assert_eq!(r.status, 404, "{path}");
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(
            r.json()["error"],
            format!("no such path: {path} (the API is /api/snapshot, /api/keys, /api/info)")
        );
    }
    // The snapshot's aux field redis-ver is the source's redis_version (INFO server).
    let info: String = redis::cmd("INFO")
        .arg("server")
        .query(&mut source.connection())
        .unwrap();
    let version = info
        .lines()
        .find_map(|l| l.strip_prefix("redis_version:"))
        .unwrap()
        .trim()
        .to_string();
    let snap = served.get("/api/snapshot?match=stats:*");
    assert!(snap.complete);
    let snap = bitlens::rdb::load_rdb(&snap.body, &Default::default()).unwrap();
    let aux: Vec<(String, String)> = snap
        .aux
        .iter()
        .map(|(k, v)| {
            (
                String::from_utf8_lossy(k).into_owned(),
                String::from_utf8_lossy(v).into_owned(),
            )
        })
        .collect();
    assert_eq!(
        aux,
        [
            ("redis-ver".to_string(), version),
            ("redis-bits".to_string(), "64".to_string())
        ]
    );
}

#[test]
fn allow_list_token_and_cors() {
    let source = RedisServer::start(&[]);
    fill(&source, 0);
    let served = Served::start(&[
        "--redis",
        &source.url(),
        "--allow",
        "stats:*",
        "--token",
        "tok123",
        "--cors-origin",
        "http://panel.example",
    ]);
    let auth = [("Authorization", "Bearer tok123")];
    assert_eq!(
        http_get(served.port, "/api/keys?match=stats:*", &[]).status,
        401
    );
    assert_eq!(
        http_get(
            served.port,
            "/api/keys?match=stats:*",
            &[("Authorization", "Bearer nope")]
        )
        .status,
        401
    );
    let ok = http_get(served.port, "/api/keys?match=stats:active:*", &auth);
    assert_eq!(ok.status, 200);
    assert_eq!(ok.json().as_array().unwrap().len(), 2);
    let refused = http_get(served.port, "/api/snapshot?match=*", &auth);
    assert_eq!(refused.status, 403);
    assert!(String::from_utf8_lossy(&refused.body).contains("allow-list"));
    assert_eq!(
        http_get(served.port, "/api/snapshot?match=plain", &auth).status,
        403
    );
    // Without `match`, the default `*` is not allowed either.
    assert_eq!(http_get(served.port, "/api/snapshot", &auth).status, 403);

    let cors = http_get(
        served.port,
        "/api/info",
        &[
            ("Authorization", "Bearer tok123"),
            ("Origin", "http://panel.example"),
        ],
    );
    assert_eq!(
        cors.header("access-control-allow-origin"),
        Some("http://panel.example")
    );
    let other = http_get(
        served.port,
        "/api/info",
        &[
            ("Authorization", "Bearer tok123"),
            ("Origin", "http://evil.example"),
        ],
    );
    assert_eq!(other.header("access-control-allow-origin"), None);

    // No --cors-origin: no CORS headers at all.
    let plain = Served::start(&["--redis", &source.url()]);
    let r = http_get(
        plain.port,
        "/api/info",
        &[("Origin", "http://panel.example")],
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.header("access-control-allow-origin"), None);
}

#[test]
fn redis_dying_mid_download_aborts_the_body_and_the_next_request_works() {
    let port = free_port();
    let redis = RedisServer::start_on_port(port, &[]);
    let url = redis.url();
    {
        let mut c = redis.connection();
        for i in 0..400 {
            cmd(&mut c, &["SET", &format!("k:{i:04}"), &"x".repeat(1000)]);
        }
    }
    // Small batches with a pause: the walk takes several seconds.
    let served = Served::start(&[
        "--redis",
        &url,
        "--scan-count",
        "10",
        "--scan-pause-ms",
        "150",
    ]);
    let sport = served.port;
    let download = std::thread::spawn(move || http_get(sport, "/api/snapshot", &[]));
    std::thread::sleep(Duration::from_millis(1200));
    drop(redis); // killed, and waited for
    let resp = download.join().unwrap();
    assert_eq!(resp.status, 200);
    assert!(
        !resp.complete,
        "a truncated snapshot was ended as if complete"
    );
    assert!(
        served.stderr().contains("snapshot aborted"),
        "{}",
        served.stderr()
    );
    // The client that saw its body cut off asks /api/info: Redis is named, as the component
    // and with the export's own failure.
    let info = served.get("/api/info");
    assert_eq!(info.status, 502);
    let j = info.json();
    assert_eq!(j["component"], "redis");
    assert!(j["error"].as_str().unwrap().starts_with("Redis: "), "{j}");
    let last = j["last_export_error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        served
            .stderr()
            .contains(&format!("snapshot aborted: {last}")),
        "{last}"
    );
    assert!(j["last_export_error"]["at_ms"].as_u64().unwrap() > 1_700_000_000_000);
    // Every endpoint names Redis the same way while it is down (new-user trial: /api/keys said
    // "SCAN: …" and /api/snapshot the client library's words).
    for path in ["/api/snapshot", "/api/keys?match=*"] {
        let r = served.get(path);
        assert_eq!(r.status, 502, "{path}");
        let j = r.json();
        assert_eq!(j["component"], "redis", "{path}: {j}");
        assert!(
            j["error"].as_str().unwrap().starts_with("Redis: "),
            "{path}: {j}"
        );
    }

    // Redis comes back: the next request works.
    let redis = RedisServer::start_on_port(port, &[]);
    {
        let mut c = redis.connection();
        cmd(&mut c, &["SET", "again", "1"]);
    }
    let next = http_get(sport, "/api/snapshot", &[]);
    drop(redis);
    assert!(next.complete, "{}", served.stderr());
    assert!(next.body.windows(5).any(|w| w == b"again"));
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Makes a CA and a server certificate for 127.0.0.1 with the openssl command-line tool.
fn make_certs(dir: &std::path::Path) {
    let run = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("openssl");
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-days",
        "2",
        "-subj",
        "/CN=bitlens test CA",
    ]);
    run(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=localhost",
    ]);
    std::fs::write(
        dir.join("san.ext"),
        "subjectAltName=IP:127.0.0.1,DNS:localhost\n",
    )
    .unwrap();
    run(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.crt",
        "-days",
        "2",
        "-extfile",
        "san.ext",
    ]);
}

#[test]
fn rediss_url_uses_tls_verified_against_the_given_ca() {
    let dir = tempfile::tempdir().unwrap();
    make_certs(dir.path());
    let p = |f: &str| dir.path().join(f).to_str().unwrap().to_string();
    let tls_port = free_port();
    let source = RedisServer::start(&[
        "--tls-port",
        &tls_port.to_string(),
        "--tls-cert-file",
        &p("server.crt"),
        "--tls-key-file",
        &p("server.key"),
        "--tls-ca-cert-file",
        &p("ca.crt"),
        "--tls-auth-clients",
        "no",
    ]);
    fill(&source, 20);
    // 48 MiB: its DUMP streams over the exporter's own TLS connection, never held whole.
    const BIG: usize = 48 << 20;
    let mut c = source.connection();
    for i in 0..BIG >> 20 {
        let _: i64 = redis::cmd("APPEND")
            .arg("big")
            .arg(noise(i as u64, 1 << 20))
            .query(&mut c)
            .unwrap();
    }
    let url = format!("rediss://127.0.0.1:{tls_port}/");
    let served = Served::start(&["--redis", &url, "--redis-ca", &p("ca.crt")]);
    // What the export adds to the process' peak (the binary's own pages, larger since it
    // links the Parquet writer, are there before it).
    let before = vm_hwm_kib(served.pid());
    let resp = served.get("/api/snapshot");
    assert!(resp.complete, "{}", served.stderr());
    let peak = vm_hwm_kib(served.pid());
    assert!(
        (peak - before) * 1024 < BIG as u64 / 2,
        "exporter peak RSS {peak} KiB ({before} KiB before the export) for a {BIG}-byte key over TLS"
    );
    let file = dir.path().join("snap.rdb");
    std::fs::write(&file, &resp.body).unwrap();
    let copy = LoadedRedis::start(&file);
    assert_eq!(all_keys(&source), all_keys(&copy.server));
    assert_eq!(
        dump(&mut c, "big"),
        dump(&mut copy.server.connection(), "big")
    );
    assert_eq!(served.get("/api/info").json()["redis"], url);

    // Without the CA the server's certificate is not trusted: start-up fails clearly.
    let out = bitlens(&["serve", "--bind", "127.0.0.1:0", "--redis", &url], b"");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot reach Redis at rediss://"), "{err}");
}

#[test]
fn export_failing_before_any_byte_gets_an_error_status() {
    let source = RedisServer::start(&[]);
    let mut c = source.connection();
    for i in 0..20 {
        cmd(&mut c, &["SET", &format!("k:{i:02}"), "v"]);
    }
    // More keys match than allowed: the limit is hit while scanning, before the first DUMP.
    let served = Served::start(&["--redis", &source.url(), "--max-keys", "3"]);
    let resp = http_get(served.port, "/api/snapshot?match=k:*", &[]);
    assert_eq!(resp.status, 413, "{}", String::from_utf8_lossy(&resp.body));
    let msg = resp.json()["error"].as_str().unwrap().to_string();
    assert!(msg.starts_with("more than 3 keys match"), "{msg}");
    // Within the limit the same request streams a snapshot.
    let resp = http_get(served.port, "/api/snapshot?match=k:0[0-2]", &[]);
    assert_eq!(resp.status, 200);
    assert!(resp.body.starts_with(b"REDIS"));
    // Keys named one by one count too (new-user trial: four names passed --max-keys 3), on
    // both endpoints, and a name given twice counts once.
    let named = "match=k:00&match=k:01&match=k:02&match=k:03";
    for path in ["/api/snapshot", "/api/keys"] {
        let resp = http_get(served.port, &format!("{path}?{named}"), &[]);
        assert_eq!(
            resp.status,
            413,
            "{path}: {}",
            String::from_utf8_lossy(&resp.body)
        );
        let msg = resp.json()["error"].as_str().unwrap().to_string();
        assert!(msg.starts_with("more than 3 keys match"), "{msg}");
    }
    let resp = http_get(
        served.port,
        "/api/snapshot?match=k:00&match=k:01&match=k:00",
        &[],
    );
    assert_eq!(resp.status, 200);
    let snap = bitlens::rdb::load_rdb(&resp.body, &Default::default()).unwrap();
    assert_eq!(snap.databases[&0].len(), 2);
    // One key allowed: the message says "key".
    let one = Served::start(&["--redis", &source.url(), "--max-keys", "1"]);
    let resp = http_get(one.port, "/api/snapshot?match=k:00&match=k:01", &[]);
    assert_eq!(resp.status, 413);
    assert!(resp.json()["error"]
        .as_str()
        .unwrap()
        .starts_with("more than 1 key matches;"));
}

// ---- every server kind ---------------------------------------------------------------------

/// Fills `server` with one key of each core type, one of them 2 MiB, a key expiring in an
/// hour, and, where the server has field TTLs (Redis 7.4, Valkey 9), a hash with a field
/// expiring in an hour.
fn fill_core_types(server: &RedisServer) {
    let mut c = server.connection();
    cmd(&mut c, &["SET", "str", "hello"]);
    cmd(&mut c, &["SET", "int", "-42"]);
    // 2 MiB: above BIG_KEY, so its DUMP streams in pieces over the exporter's own connection.
    cmd(&mut c, &["SETBIT", "bm", "16777215", "1"]);
    cmd(&mut c, &["PFADD", "hll", "a", "b", "c"]);
    cmd(
        &mut c,
        &["GEOADD", "geo", "13.361389", "38.115556", "Palermo"],
    );
    // 1.618 prints as 1.6180000000000001 up to Redis 7.0 and as 1.618 from 7.2 and on
    // Valkey: the export must name its writer for bitlens to answer as the source.
    cmd(
        &mut c,
        &[
            "ZADD", "zset", "1", "a", "2.5", "b", "-3", "c", "1.618", "phi",
        ],
    );
    cmd(&mut c, &["RPUSH", "list", "a", "b", "c"]);
    cmd(&mut c, &["SADD", "set", "x", "y", "1"]);
    cmd(&mut c, &["SADD", "intset", "1", "2", "3"]);
    cmd(&mut c, &["HSET", "hash", "f", "v", "g", "w"]);
    cmd(&mut c, &["XADD", "stream", "1-1", "k", "v"]);
    cmd(&mut c, &["SET", "expiring", "v", "PX", "3600000"]);
    if has_field_ttl(server.kind()) {
        cmd(&mut c, &["HSET", "hfe", "a", "1", "b", "2"]);
        cmd(&mut c, &["HPEXPIRE", "hfe", "3600000", "FIELDS", "1", "a"]);
    }
}

fn has_field_ttl(kind: ServerKind) -> bool {
    matches!(
        kind,
        ServerKind::Redis7_4 | ServerKind::Redis8_0 | ServerKind::Valkey9_1
    )
}

/// The read that shows a value of `kind` in full, and whether its order is the server's hash
/// order (sets and hashes: compared sorted).
fn read_all(kind: &str, key: &str) -> (Vec<Vec<u8>>, bool) {
    let argv: &[&str] = match kind {
        "string" => &["GET", key],
        "list" => &["LRANGE", key, "0", "-1"],
        "set" => &["SMEMBERS", key],
        "zset" => &["ZRANGE", key, "0", "-1", "WITHSCORES"],
        "hash" => &["HGETALL", key],
        "stream" => &["XRANGE", key, "-", "+"],
        _ => &["TYPE", key],
    };
    (
        argv.iter().map(|a| a.as_bytes().to_vec()).collect(),
        matches!(kind, "set" | "hash"),
    )
}

fn sorted_lines(redis_cli: Vec<u8>) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = redis_cli
        .split(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    v.sort();
    v
}

/// `serve --redis` against a server of `kind`: the snapshot has that server's RDB magic and
/// names its version in `redis-ver` / `valkey-ver`; bitlens loads it, takes that server's
/// profile from it, and answers DBSIZE, TYPE, EXISTS, GET and ZRANGE as the server does; the same server kind loads it back with the same keys,
/// values and expiries.
fn export_round_trip(kind: ServerKind) {
    let name = kind.name();
    let source = RedisServer::start_kind(kind, &[]);
    fill_core_types(&source);
    let served = Served::start(&["--redis", &source.url()]);
    let info = served.get("/api/info").json();
    assert_eq!(info["version"], kind.version(), "{name}: {info}");
    let resp = served.get("/api/snapshot");
    assert_eq!(
        resp.status,
        200,
        "{name}: {} / {}",
        String::from_utf8_lossy(&resp.body),
        served.stderr()
    );
    assert!(resp.complete, "{name}: body aborted: {}", served.stderr());
    assert_eq!(
        &resp.body[..9],
        kind.rdb_magic(),
        "{name}: header {:?}",
        String::from_utf8_lossy(&resp.body[..9])
    );

    // bitlens reads it: the writer's version aux, and the server's answers.
    let snap = bitlens::rdb::load_rdb(&resp.body, &Default::default())
        .unwrap_or_else(|e| panic!("{name}: bitlens cannot load the export: {e}"));
    let aux = |field: &[u8]| {
        snap.aux
            .iter()
            .find(|(k, _)| k == field)
            .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
    };
    let version_aux: &[u8] = if kind.is_valkey() {
        b"valkey-ver"
    } else {
        b"redis-ver"
    };
    assert_eq!(
        aux(version_aux).as_deref(),
        Some(kind.version()),
        "{name}: aux"
    );
    // With no flags bitlens answers as the writer the aux fields name: the source's profile.
    let mut session =
        bitlens::session::Session::from_snapshot(snap, None, bitlens::session::Clock::Snapshot);
    assert_eq!(
        session.profile().name,
        kind.profile_name(),
        "{name}: default profile of the export"
    );
    let mut raw = source.raw_connection();
    let keys = all_keys(&source);
    let mut probes: Vec<Vec<Vec<u8>>> = vec![vec![b"DBSIZE".to_vec()]];
    for key in &keys {
        probes.push(vec![b"TYPE".to_vec(), key.as_bytes().to_vec()]);
        probes.push(vec![b"EXISTS".to_vec(), key.as_bytes().to_vec()]);
        let kind: String = redis::cmd("TYPE")
            .arg(key)
            .query(&mut source.connection())
            .unwrap();
        match kind.as_str() {
            "string" => probes.push(vec![b"GET".to_vec(), key.as_bytes().to_vec()]),
            "zset" => probes.push(read_all("zset", key).0),
            _ => {}
        }
    }
    for argv in &probes {
        let want = raw.query(argv);
        let got = session.execute(argv).to_resp();
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want),
            "{name}: bitlens on the export answers {argv:?} differently"
        );
    }

    // The same server kind loads it back.
    let copy = RedisServer::start_kind_loading(kind, &resp.body, &[]);
    assert_eq!(
        copy.cli_output(&[b"DBSIZE"]),
        source.cli_output(&[b"DBSIZE"]),
        "{name}: DBSIZE after loading the export"
    );
    let mut c = copy.connection();
    for key in &keys {
        let t = source.cli_output(&[b"TYPE", key.as_bytes()]);
        assert_eq!(
            copy.cli_output(&[b"TYPE", key.as_bytes()]),
            t,
            "{name}: {key}"
        );
        let (argv, unordered) = read_all(String::from_utf8_lossy(&t).trim(), key);
        let argv: Vec<&[u8]> = argv.iter().map(Vec::as_slice).collect();
        let (a, b) = (source.cli_output(&argv), copy.cli_output(&argv));
        if unordered {
            assert_eq!(sorted_lines(a), sorted_lines(b), "{name}: {key}");
        } else {
            assert_eq!(a, b, "{name}: {key}");
        }
        let pttl: i64 = redis::cmd("PTTL").arg(key).query(&mut c).unwrap();
        if key == "expiring" {
            assert!(pttl > 3_000_000 && pttl <= 3_600_000, "{name}: PTTL {pttl}");
        } else {
            assert_eq!(pttl, -1, "{name}: {key}");
        }
    }
    if has_field_ttl(kind) {
        let ttl = copy.cli_output(&[b"HPTTL", b"hfe", b"FIELDS", b"2", b"a", b"b"]);
        let ttl = String::from_utf8_lossy(&ttl).into_owned();
        let mut lines = ttl.lines();
        let a: i64 = lines.next().and_then(|l| l.parse().ok()).unwrap_or(0);
        assert!(a > 3_000_000 && a <= 3_600_000, "{name}: HPTTL {ttl:?}");
        assert_eq!(lines.next(), Some("-1"), "{name}: HPTTL {ttl:?}");
    }
}

#[test]
fn export_from_redis_6_0_loads_in_bitlens_and_back() {
    export_round_trip(ServerKind::Redis6_0);
}

#[test]
fn export_from_redis_6_2_loads_in_bitlens_and_back() {
    export_round_trip(ServerKind::Redis6_2);
}

#[test]
fn export_from_redis_7_0_loads_in_bitlens_and_back() {
    export_round_trip(ServerKind::Redis7_0);
}

#[test]
fn export_from_redis_7_4_loads_in_bitlens_and_back() {
    export_round_trip(ServerKind::Redis7_4);
}

#[test]
fn export_from_valkey_8_1_loads_in_bitlens_and_back() {
    export_round_trip(ServerKind::Valkey8_1);
}

/// Valkey 9.1's DUMP payloads end in RDB version 80: the export must be a `VALKEY080` file.
/// Needs the RDB format families (Format { family, version }) in the core reader and writer.
#[test]
fn export_from_valkey_9_1_is_a_valkey080_file_that_loads_in_bitlens_and_back() {
    export_round_trip(ServerKind::Valkey9_1);
}

/// Debian 13's Redis 8.0.2 (its `vectorset` module loaded; hash field TTLs as 7.4).
#[test]
fn export_from_redis_8_0_loads_in_bitlens_and_back() {
    export_round_trip(ServerKind::Redis8_0);
}

/// Debian 13's Valkey 8.1.1.
#[test]
fn export_from_valkey_8_1_1_loads_in_bitlens_and_back() {
    export_round_trip(ServerKind::Valkey8_1_1);
}

/// `/api/keys` paged with `cursor` / `count` over a real redis-server: the pages together hold
/// every key `KEYS` lists (each once), non-UTF-8 names as `{"hex"}`; a key matching two
/// patterns of the request comes once; bad cursors and counts are 400s. A pattern naming one
/// key is exported without SCAN (MONITOR). A 403 lists every refused pattern.
#[test]
fn keys_are_paged_and_one_key_is_read_by_name() {
    let source = RedisServer::start(&[]);
    let mut c = source.connection();
    for i in 0..2500 {
        cmd(&mut c, &["SETBIT", &format!("sign:{i}:202405"), "3", "1"]);
    }
    cmd(&mut c, &["SET", "other", "x"]);
    redis::cmd("SET")
        .arg(&b"bin:\xff\x00"[..])
        .arg("v")
        .query::<()>(&mut c)
        .unwrap();
    let served = Served::start(&["--redis", &source.url(), "--scan-count", "300"]);

    let mut cursor = "0".to_string();
    let mut seen: Vec<serde_json::Value> = Vec::new();
    let mut pages = 0;
    loop {
        let r = served.get(&format!(
            "/api/keys?match=sign:*&match=sign:1*&match=bin:*&cursor={cursor}&count=700"
        ));
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
        let v = r.json();
        let rows = v["keys"].as_array().unwrap();
        // COUNT is a hint: a SCAN step may give the few more keys of one hash bucket.
        assert!(rows.len() <= 720, "{} rows", rows.len());
        seen.extend(rows.iter().map(|r| r["key"].clone()));
        pages += 1;
        cursor = v["cursor"].as_str().unwrap().to_string();
        if cursor == "0" {
            break;
        }
        assert!(pages < 100, "the walk does not end");
    }
    assert!(pages >= 4, "{pages} pages for 2501 keys of 700");
    let mut names: Vec<String> = seen
        .iter()
        .map(|k| match k.as_str() {
            Some(s) => s.to_string(),
            None => format!("hex:{}", k["hex"].as_str().unwrap()),
        })
        .collect();
    names.sort();
    let before = names.len();
    names.dedup();
    // SCAN of a keyspace that does not change gives each key once; a key matching sign:* and
    // sign:1* is left to the first pattern.
    assert_eq!(names.len(), before, "a key came twice");
    let mut want: Vec<String> = redis::cmd("KEYS").arg("sign:*").query(&mut c).unwrap();
    want.push("hex:62696e3aff00".into());
    want.sort();
    assert_eq!(names, want);

    for bad in [
        "/api/keys?cursor=zz",
        "/api/keys?cursor=0-9-0",
        "/api/keys?cursor=0&count=0",
        "/api/keys?cursor=0&count=10001",
        "/api/keys?count=5",
    ] {
        let r = served.get(bad);
        assert_eq!(r.status, 400, "{bad}");
        assert_eq!(r.json()["component"], "request", "{bad}");
    }

    let monitor = Monitor::start(source.port);
    let one = served.get("/api/snapshot?match=sign:7:202405");
    assert!(one.complete);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("one.rdb");
    std::fs::write(&path, &one.body).unwrap();
    let out = bitlens(
        &["query", "--rdb", path.to_str().unwrap(), "KEYS", "*"],
        b"",
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "sign:7:202405\n");
    let absent = served.get("/api/snapshot?match=sign:no\\*such");
    assert!(absent.complete);
    let seen = monitor.stop();
    assert!(!seen.iter().any(|c| c == "SCAN"), "{seen:?}");
    assert!(seen.iter().any(|c| c == "DUMP"), "{seen:?}");

    let limited = Served::start(&["--redis", &source.url(), "--allow", "sign:*"]);
    let r = limited.get("/api/snapshot?match=sign:*&match=uv:*&match=other");
    assert_eq!(r.status, 403);
    let v = r.json();
    assert_eq!(v["component"], "allow-list");
    assert_eq!(v["refused"], serde_json::json!(["uv:*", "other"]));
}

/// `/api/keys` gives each key's PTTL as `ttlMs` (`null` without an expiry), whole and paged:
/// between what `PTTL` answers just after the request and the expiry that was set.
#[test]
fn keys_carry_their_pttl() {
    let source = RedisServer::start(&[]);
    let mut c = source.connection();
    cmd(&mut c, &["SET", "t:plain", "x"]);
    cmd(&mut c, &["SET", "t:soon", "x", "PX", "600000"]);
    cmd(&mut c, &["SETBIT", "t:bits", "7", "1"]);
    cmd(&mut c, &["PEXPIRE", "t:bits", "3600000"]);
    let served = Served::start(&["--redis", &source.url()]);
    let whole = served.get("/api/keys?match=t:*").json();
    let paged = served.get("/api/keys?match=t:*&cursor=0&count=10").json();
    for rows in [whole.as_array().unwrap(), paged["keys"].as_array().unwrap()] {
        assert_eq!(rows.len(), 3, "{rows:?}");
        for row in rows {
            let key = row["key"].as_str().unwrap();
            let pttl = match cmd(&mut c, &["PTTL", key]) {
                redis::Value::Int(n) => n,
                other => panic!("{other:?}"),
            };
            match key {
                "t:plain" => assert!(row["ttlMs"].is_null(), "{row}"),
                "t:soon" | "t:bits" => {
                    let set = if key == "t:soon" { 600_000 } else { 3_600_000 };
                    let got = row["ttlMs"].as_i64().unwrap_or_else(|| panic!("{row}"));
                    assert!(pttl <= got && got <= set, "{key}: {got} (PTTL now {pttl})");
                }
                other => panic!("{other}"),
            }
        }
    }
}
