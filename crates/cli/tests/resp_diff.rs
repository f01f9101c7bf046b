//! `bitlens resp` against the real servers, byte for byte: each of the eight servers of the
//! matrix is filled with keys of every type (two databases, some expiring), SAVEs, and is then
//! made a read-only replica of an unreachable master (`REPLICAOF 127.0.0.1 1`: it keeps its
//! data and refuses writes, which is what `bitlens resp` stands for). `bitlens resp` serves
//! the saved file; the same requests (read commands, writes, wrong arities, unknown commands,
//! MULTI/EXEC, client names, protocol errors, pipelines) go to both over raw sockets and the
//! replies are compared as bytes. A second pair runs with `requirepass` on both (NOAUTH,
//! WRONGPASS, AUTH, and the unauthenticated request limits), and redis-cli's printed output is
//! compared for a few commands.
//!
//! Not compared (they differ by nature): the client id, HELLO's `id`/`version`, INFO's text
//! and TTL/PTTL (each side's clock; EXPIRETIME is compared instead where it exists).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use bitlens_difftest::{RedisServer, ServerKind};

/// A `bitlens resp` process serving one file.
struct Resp {
    child: Child,
    port: u16,
}

impl Resp {
    fn start(file: &std::path::Path, extra: &[&str]) -> Resp {
        let mut child = Command::new(env!("CARGO_BIN_EXE_bitlens"))
            .arg("resp")
            .arg(file)
            .args(["--bind", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start bitlens resp");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("first line");
        let port = line
            .trim()
            .strip_prefix("listening on 127.0.0.1:")
            .unwrap_or_else(|| panic!("first line {line:?}"))
            .parse()
            .expect("port");
        Resp { child, port }
    }
}

impl Drop for Resp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A raw client: sends bytes, reads whole replies (RESP2 and RESP3 types) as bytes.
struct Raw {
    r: BufReader<TcpStream>,
}

impl Raw {
    fn connect(port: u16) -> Raw {
        let s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        Raw {
            r: BufReader::new(s),
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        self.r.get_mut().write_all(bytes).expect("send");
    }

    fn request(argv: &[&[u8]]) -> Vec<u8> {
        let mut out = format!("*{}\r\n", argv.len()).into_bytes();
        for a in argv {
            out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
            out.extend_from_slice(a);
            out.extend_from_slice(b"\r\n");
        }
        out
    }

    fn reply(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        self.read_into(&mut out);
        out
    }

    fn read_into(&mut self, out: &mut Vec<u8>) {
        let start = out.len();
        self.r.read_until(b'\n', out).expect("read");
        assert!(out.len() > start, "connection closed");
        let line = out[start..out.len() - 2].to_vec();
        let n = || -> i64 { std::str::from_utf8(&line[1..]).unwrap().parse().unwrap() };
        match line[0] {
            b'$' | b'=' | b'!' if n() >= 0 => {
                let at = out.len();
                out.resize(at + n() as usize + 2, 0);
                self.r.read_exact(&mut out[at..]).expect("bulk");
            }
            b'*' | b'~' | b'>' => {
                for _ in 0..n().max(0) {
                    self.read_into(out);
                }
            }
            b'%' | b'|' => {
                for _ in 0..2 * n().max(0) {
                    self.read_into(out);
                }
            }
            _ => {}
        }
    }

    fn query(&mut self, argv: &[&[u8]]) -> Vec<u8> {
        self.send(&Raw::request(argv));
        self.reply()
    }

    /// True when the peer closed the connection (reads end of file).
    fn closed(&mut self) -> bool {
        let mut b = [0u8; 1];
        matches!(self.r.read(&mut b), Ok(0))
    }
}

fn words(line: &str) -> Vec<Vec<u8>> {
    line.split(' ').map(|w| w.as_bytes().to_vec()).collect()
}

/// The keys every server gets (database 0 and 3), as commands.
fn fill(server: &RedisServer) {
    let mut c = server.raw_connection();
    let mut cmds: Vec<String> = vec![
        "SET s:plain hello".into(),
        "SET s:int 12345".into(),
        "SETBIT b:days 7 1".into(),
        "SETBIT b:days 100 1".into(),
        "PFADD h:uv a b c d e".into(),
        "HSET hs:small f1 v1 f2 v2".into(),
        "RPUSH l:small a b c".into(),
        "SADD st:int 1 2 3".into(),
        "SADD st:small x y".into(),
        "ZADD z:small 1 a 2.5 b 3 c".into(),
        "GEOADD g:shops 13.361389 38.115556 palermo 15.087269 37.502669 catania".into(),
        "XADD x:s 1-1 k v".into(),
        "XADD x:s 2-1 k w".into(),
        "XGROUP CREATE x:s grp 0".into(),
        "XREADGROUP GROUP grp alice COUNT 1 STREAMS x:s >".into(),
        "XGROUP CREATE x:s later $".into(),
        "SET s:ttl v EX 100000".into(),
        "SELECT 3".into(),
        "SET other:k in-db-3".into(),
        "SELECT 0".into(),
    ];
    for i in 0..200 {
        cmds.push(format!("HSET hs:big f{i} {}", "x".repeat(i % 70)));
        cmds.push(format!("ZADD z:big {i} m{i}"));
        cmds.push(format!("SADD st:big member:{i}"));
    }
    for line in cmds {
        let r = c.query(&words(&line));
        assert!(
            !r.starts_with(b"-"),
            "{line}: {}",
            String::from_utf8_lossy(&r)
        );
    }
    c.query(&words("SELECT 0"));
}

/// The requests compared, one per line (space-separated words).
const REQUESTS: &[&str] = &[
    // Reads of every type, and their errors.
    "PING",
    "PING hi",
    "ECHO hello",
    "GET s:plain",
    "GET nosuch",
    "GET hs:small",
    "STRLEN s:int",
    "GETRANGE s:plain 1 3",
    "GETBIT b:days 7",
    "BITCOUNT b:days",
    "BITPOS b:days 1",
    "PFCOUNT h:uv",
    "HGET hs:small f2",
    "HGETALL hs:small",
    "HLEN hs:big",
    "HMGET hs:small f1 nosuch",
    "LRANGE l:small 0 -1",
    "LINDEX l:small 1",
    "SISMEMBER st:int 2",
    "SMEMBERS st:int",
    "SCARD st:big",
    "ZRANGE z:small 0 -1 WITHSCORES",
    "ZSCORE z:small b",
    "ZSCORE z:small nosuch",
    "ZCARD z:big",
    "ZRANK z:big m7",
    "GEOPOS g:shops palermo nosuch",
    "GEODIST g:shops palermo catania km",
    "GEOHASH g:shops palermo",
    "XLEN x:s",
    "XRANGE x:s - +",
    "TYPE x:s",
    "TYPE nosuch",
    "EXISTS s:plain nosuch hs:small",
    "OBJECT ENCODING st:int",
    "OBJECT ENCODING z:big",
    "DBSIZE",
    "EXPIRETIME s:ttl",
    "KEYS s:p*",
    "SMEMBERS st:small",
    "SINTER st:int st:int",
    "ZMSCORE z:small a nosuch c",
    "ZRANGEBYSCORE z:big 3 6 WITHSCORES",
    "ZRANK z:big m7 WITHSCORE",
    "GEOSEARCH g:shops FROMLONLAT 15 37 BYRADIUS 200 km ASC WITHCOORD WITHDIST WITHHASH",
    "GEORADIUS_RO g:shops 15 37 200 km ASC WITHCOORD",
    "XINFO STREAM x:s",
    "XINFO STREAM x:s FULL",
    "XINFO GROUPS x:s",
    "XINFO CONSUMERS x:s grp",
    "XINFO CONSUMERS x:s later",
    "XINFO CONSUMERS x:s nosuch",
    "XINFO CONSUMERS nosuch grp",
    "XINFO STREAM x:s FULL COUNT 1",
    "CONFIG GET databases",
    "TIME x",
    // Issue 53's everyday reads.
    "MGET s:plain nosuch hs:small",
    "LCS s:plain s:int",
    "LCS s:plain s:plain IDX MINMATCHLEN 2 WITHMATCHLEN",
    "LCS s:plain hs:small",
    "ZREVRANGE z:small 0 -1 WITHSCORES",
    "ZREVRANGEBYSCORE z:big 6 3 WITHSCORES LIMIT 1 2",
    "ZRANGEBYLEX z:small - +",
    "ZREVRANGEBYLEX z:small + [b",
    "ZLEXCOUNT z:small - +",
    "ZUNION 2 z:small st:int WITHSCORES",
    "ZINTER 2 z:small z:small WEIGHTS 1 2 AGGREGATE MAX WITHSCORES",
    "ZDIFF 2 z:small st:small WITHSCORES",
    "ZINTERCARD 2 z:small z:big LIMIT 1",
    "ZRANDMEMBER z:small 5 WITHSCORES",
    "ZRANDMEMBER z:small 0",
    "HRANDFIELD hs:small 5 WITHVALUES",
    "SRANDMEMBER st:int x",
    "SORT_RO l:small ALPHA DESC",
    "SORT_RO st:int GET # GET nosuch:*",
    "SORT_RO z:big BY nosort LIMIT 0 3",
    "XPENDING x:s grp",
    "XPENDING x:s nosuch",
    "XREAD COUNT 1 STREAMS x:s 0",
    "XREAD STREAMS x:s $",
    "OBJECT FREQ s:plain",
    "DUMP nosuch",
    // Writes, read-only style.
    "SET a b",
    "SET a",
    "SETBIT b:days 1 1",
    "DEL s:plain",
    "PFADD h:uv z",
    "PFMERGE h:uv h:uv",
    "EXPIRE s:plain 10",
    "LPOP l:small",
    "HSET hs:small f v",
    "ZADD z:small 1 q",
    "XADD x:s * a b",
    "XGROUP CREATE x:s g2 $",
    "XGROUP SETID x:s grp 0",
    "FLUSHALL",
    "FLUSHDB",
    "BITOP OR dest b:days",
    "BITFIELD b:days GET u8 0",
    "BITFIELD b:days SET u8 0 1",
    "GEOSEARCHSTORE d g:shops FROMMEMBER palermo BYRADIUS 10 km",
    "MSET a 1 b 2",
    "INCR s:int",
    "APPEND s:plain x",
    "RENAME s:plain s:x",
    "RESTORE k 0 x",
    // Unknown commands and arity.
    "NOSUCHCOMMAND a b",
    "GET",
    "HGETALL a b",
    // Databases.
    "SELECT 3",
    "GET other:k",
    "DBSIZE",
    "SELECT 0",
    "GET other:k",
    "SELECT 99",
    "SELECT x",
    // Transactions.
    "MULTI",
    "GET s:plain",
    "PFCOUNT h:uv",
    "EXEC",
    "MULTI",
    "GET s:plain",
    "SET a b",
    "EXEC",
    "MULTI",
    "NOSUCH",
    "EXEC",
    "MULTI",
    "MULTI",
    "DISCARD",
    "MULTI",
    "MULTI",
    "GET s:plain",
    "EXEC",
    "EXEC",
    "DISCARD",
    "WATCH s:plain h:uv",
    "GET s:plain",
    "UNWATCH",
    "WATCH",
    "UNWATCH x",
    "WATCH s:plain",
    "MULTI",
    "WATCH s:plain",
    "GET s:plain",
    "UNWATCH",
    "EXEC",
    "MULTI",
    "WATCH",
    "EXEC",
    // Server.
    "INFO keyspace",
    "INFO nosuch",
    "TOUCH s:plain s:plain nosuch",
    "TOUCH",
    "WAIT 0 0",
    "LASTSAVE x",
    "ROLE x",
    "LATENCY LATEST",
    "LATENCY HISTORY command",
    "LATENCY RESET",
    "LATENCY RESET a b",
    "LATENCY DOCTOR",
    "LATENCY NOSUCH",
    "LATENCY HISTORY",
    "LATENCY LATEST x",
    "LATENCY",
    "SLOWLOG RESET",
    "SLOWLOG GET",
    "SLOWLOG GET 5",
    "SLOWLOG GET -1",
    "SLOWLOG GET x",
    "SLOWLOG GET -2",
    "SLOWLOG GET 1 2",
    "SLOWLOG LEN",
    "SLOWLOG LEN x",
    "SLOWLOG RESET x",
    "SLOWLOG NOSUCH",
    "SLOWLOG",
    "ACL WHOAMI",
    "ACL USERS",
    "ACL WHOAMI x",
    "ACL NOSUCH",
    "CLUSTER INFO",
    "CLUSTER NODES",
    "CLUSTER",
    "READONLY",
    "READWRITE",
    "PUBLISH ch x",
    "PUBLISH a",
    "PUBSUB CHANNELS",
    "PUBSUB CHANNELS a*",
    "PUBSUB CHANNELS a b",
    "PUBSUB NUMSUB a b",
    "PUBSUB NUMSUB",
    "PUBSUB NUMPAT",
    "PUBSUB NUMPAT x",
    "PUBSUB SHARDNUMSUB a",
    "PUBSUB SHARDCHANNELS",
    "PUBSUB NOSUCH",
    // Connection.
    "CLIENT GETNAME",
    "CLIENT SETNAME shop-1",
    "CLIENT GETNAME",
    "CLIENT SETNAME bad name",
    "CLIENT SETINFO lib-name bad\nname",
    "CLIENT SETINFO lib-ver 1.0",
    "HELLO 2 SETNAME bad\tname",
    "CLIENT GETNAME",
    "CLIENT NOSUCH",
    "AUTH pw",
    "HELLO 4",
    "HELLO x",
];

/// The reply with the integer after each `idle` / `inactive` field replaced by `T`: they are
/// milliseconds until "now", which is each side's own clock (the server's at the request,
/// bitlens' the snapshot's time, saved in whole seconds). INFO keyspace's `avg_ttl` too: the
/// server's running estimate from the keys its expire cycle samples (Valkey 8.1.8 gave
/// 99999973 on a replica in one run, 0 in others); bitlens gives 0, as a server before its
/// first cycle.
fn mask_times(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        out.push(b[i]);
        i += 1;
        if out.ends_with(b"avg_ttl=") {
            let end = i + b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            out.push(b'T');
            i = end;
            continue;
        }
        for field in [&b"$4\r\nidle\r\n"[..], b"$8\r\ninactive\r\n"] {
            if out.ends_with(field) && b.get(i) == Some(&b':') {
                let end = i + b[i..].windows(2).position(|w| w == b"\r\n").unwrap_or(0);
                out.extend_from_slice(b":T");
                i = end;
            }
        }
    }
    // (The masked text's length with it.)
    if out.windows(9).any(|w| w == b"avg_ttl=T") && matches!(out.first(), Some(b'$' | b'=')) {
        let header = out.windows(2).position(|w| w == b"\r\n").unwrap_or(0);
        out.splice(1..header, *b"N");
    }
    out
}

/// Notes a difference between the server's reply `a` and bitlens' `b` to `what`.
fn note(failures: &mut Vec<String>, kind: ServerKind, what: &str, a: &[u8], b: &[u8]) {
    if a != b {
        failures.push(format!(
            "{}: {what}: {} vs {}",
            kind.name(),
            show(a),
            show(b)
        ));
    }
}

fn assert_no_differences(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).replace("\r\n", "\\r\\n")
}

fn compare_all(kind: ServerKind, real: &mut Raw, ours: &mut Raw, requests: &[&str]) -> Vec<String> {
    let mut failures = Vec::new();
    for line in requests {
        let argv = words(line);
        let argv: Vec<&[u8]> = argv.iter().map(|a| a.as_slice()).collect();
        let (want, got) = (real.query(&argv), ours.query(&argv));
        let (want, got) = (mask_times(&want), mask_times(&got));
        if want != got {
            failures.push(format!(
                "{}: {line}\n  server: {}\n  bitlens: {}",
                kind.name(),
                show(&want),
                show(&got)
            ));
        }
    }
    failures
}

/// Starts `kind` filled, saved and turned read-only replica (with `requirepass` when given),
/// and `bitlens resp` on its file with the same password.
fn pair(kind: ServerKind, password: Option<&str>) -> (RedisServer, Resp, tempfile::TempDir) {
    let server = RedisServer::start_kind(kind, &[]);
    fill(&server);
    let rdb = server.save_rdb();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dump.rdb");
    std::fs::write(&file, rdb).unwrap();
    let mut c = Raw::connect(server.port);
    let r = c.query(&[b"REPLICAOF", b"127.0.0.1", b"1"]);
    assert_eq!(r, b"+OK\r\n", "{}", show(&r));
    let mut extra = Vec::new();
    if let Some(pw) = password {
        let r = c.query(&[b"CONFIG", b"SET", b"requirepass", pw.as_bytes()]);
        assert_eq!(r, b"+OK\r\n", "{}", show(&r));
        extra = vec!["--requirepass", pw];
    }
    let ours = Resp::start(&file, &extra);
    (server, ours, dir)
}

#[test]
fn replies_match_a_read_only_replica() {
    let mut failures = Vec::new();
    for kind in ServerKind::ALL {
        let (server, ours, _dir) = pair(kind, None);
        let mut real = Raw::connect(server.port);
        let mut mine = Raw::connect(ours.port);
        failures.extend(compare_all(kind, &mut real, &mut mine, REQUESTS));

        // A pipeline: every request in one write, the replies read back in order.
        let batch: Vec<u8> = ["GET s:plain", "SET a b", "PFCOUNT h:uv", "NOSUCH"]
            .iter()
            .flat_map(|l| {
                let w = words(l);
                Raw::request(&w.iter().map(|a| a.as_slice()).collect::<Vec<_>>())
            })
            .collect();
        real.send(&batch);
        mine.send(&batch);
        for i in 0..4 {
            let (a, b) = (real.reply(), mine.reply());
            note(&mut failures, kind, &format!("pipeline #{i}"), &a, &b);
        }

        // Inline requests.
        real.send(b"GET \"s:plain\"\r\n");
        mine.send(b"GET \"s:plain\"\r\n");
        let (a, b) = (real.reply(), mine.reply());
        note(&mut failures, kind, "inline", &a, &b);

        // QUIT answers +OK and closes.
        let (a, b) = (real.query(&[b"QUIT"]), mine.query(&[b"QUIT"]));
        assert_eq!(a, b, "{}: QUIT", kind.name());
        assert!(
            real.closed() && mine.closed(),
            "{}: QUIT closes",
            kind.name()
        );

        // A protocol error is replied, then the connection is closed.
        for wire in [&b"*1\r\n+x\r\n"[..], b"*x\r\n", b"*1\r\n$-5\r\n"] {
            let mut real = Raw::connect(server.port);
            let mut mine = Raw::connect(ours.port);
            real.send(wire);
            mine.send(wire);
            let (a, b) = (real.reply(), mine.reply());
            note(&mut failures, kind, &format!("{wire:?}"), &a, &b);
            assert!(mine.closed(), "{}: closed after {wire:?}", kind.name());
        }

        // redis-cli prints the same for both.
        for line in [
            "GET s:plain",
            "ZRANGE z:small 0 -1 WITHSCORES",
            "SET a b",
            "HGETALL hs:small",
            "NOSUCH x",
        ] {
            let argv = words(line);
            let argv: Vec<&[u8]> = argv.iter().map(|a| a.as_slice()).collect();
            let (a, b) = (
                common::redis_cli(server.port, &argv, b""),
                common::redis_cli(ours.port, &argv, b""),
            );
            note(&mut failures, kind, &format!("redis-cli {line}"), &a, &b);
        }
    }
    assert_no_differences(&failures);
}

/// The same requests after `HELLO 3` on both sides: RESP3's maps, sets, doubles and nulls.
#[test]
fn resp3_replies_match() {
    let mut failures = Vec::new();
    for kind in ServerKind::ALL {
        let (server, ours, _dir) = pair(kind, None);
        let mut real = Raw::connect(server.port);
        let mut mine = Raw::connect(ours.port);
        let (a, b) = (real.query(&[b"HELLO", b"3"]), mine.query(&[b"HELLO", b"3"]));
        assert!(
            a.starts_with(b"%") && b.starts_with(b"%"),
            "{}: HELLO 3: {} / {}",
            kind.name(),
            show(&a),
            show(&b)
        );
        let requests: Vec<&str> = REQUESTS
            .iter()
            .copied()
            .filter(|r| !r.starts_with("HELLO"))
            .collect();
        failures.extend(compare_all(kind, &mut real, &mut mine, &requests));
    }
    assert_no_differences(&failures);
}

#[test]
fn requirepass_matches() {
    let mut failures = Vec::new();
    for kind in ServerKind::ALL {
        let (server, ours, _dir) = pair(kind, Some("s3cret"));
        let mut real = Raw::connect(server.port);
        let mut mine = Raw::connect(ours.port);
        failures.extend(compare_all(
            kind,
            &mut real,
            &mut mine,
            &[
                "GET s:plain",
                "NOSUCH",
                "GET",
                "SET a b",
                "AUTH wrong",
                "AUTH default wrong",
                "AUTH nobody s3cret",
                "AUTH s3cret",
                "GET s:plain",
                "SET a b",
            ],
        ));
        // Before authentication, a request of more than 10 words or a bulk over 16 KiB is a
        // protocol error.
        let big = vec![b'x'; 20_000];
        for wire in [
            Raw::request(&[&b"GET"[..]; 11]),
            Raw::request(&[b"GET", &big]),
        ] {
            let mut real = Raw::connect(server.port);
            let mut mine = Raw::connect(ours.port);
            real.send(&wire);
            mine.send(&wire);
            let (a, b) = (real.reply(), mine.reply());
            note(&mut failures, kind, "unauthenticated limit", &a, &b);
        }
    }
    assert_no_differences(&failures);
}

/// A client that pipelines requests for large replies and never reads them holds one batch of
/// replies in the server, not all of them, and is closed after `--write-timeout`: 300
/// `SRANDMEMBER set:big -200000` (3.4 MB of reply each, 1 GB in all) leave the server's peak
/// resident memory within 256 MiB of its start.
#[test]
fn a_client_that_never_reads_holds_one_batch() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/conformance/redis-7.4.1/dump.rdb");
    let ours = Resp::start(&file, &["--write-timeout", "2"]);
    let pid = ours.child.id();
    let base = common::vm_hwm_kib(pid);
    let mut s = std::net::TcpStream::connect(("127.0.0.1", ours.port)).unwrap();
    let one = b"*3\r\n$11\r\nSRANDMEMBER\r\n$7\r\nset:big\r\n$7\r\n-200000\r\n";
    s.write_all(&one.repeat(300)).unwrap();
    std::thread::sleep(Duration::from_secs(6));
    let grown = common::vm_hwm_kib(pid).saturating_sub(base);
    assert!(grown < 256 * 1024, "peak grew by {grown} KiB");
    // Closed by the server: what it wrote, then the end (or a reset), well before 300 replies.
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut got = 0usize;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) => {
                assert!(
                    !matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ),
                    "not closed after {got} bytes: {e}"
                );
                break;
            }
        }
    }
    assert!(
        got < 100 * 3_400_000,
        "{got} bytes read: the client was not closed"
    );
}

/// INFO's sections and fields: every section `bitlens resp` gives is one the replica gives
/// (in the same order), and its fields are ones the replica's section has, in the same
/// order. CLIENT LIST's fields are the server's, in its order, and list every connection.
/// `LASTSAVE` is the file's save time (the replica's own LASTSAVE: the same SAVE, to the
/// second), `ROLE` a replica's without a master, `DEBUG` refused as Redis 7 does by default.
#[test]
fn info_client_list_and_server_commands() {
    fn sections(text: &str) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for line in text.split("\r\n") {
            if let Some(title) = line.strip_prefix("# ") {
                out.push((title.to_string(), Vec::new()));
            } else if let (Some((k, _)), Some(last)) = (line.split_once(':'), out.last_mut()) {
                last.1.push(k.to_string());
            }
        }
        out
    }
    fn bulk_text(reply: &[u8]) -> String {
        let s = String::from_utf8_lossy(reply).into_owned();
        let body = s.split_once("\r\n").map_or("", |(_, b)| b);
        body.strip_suffix("\r\n").unwrap_or(body).to_string()
    }
    fn is_subsequence(ours: &[String], theirs: &[String]) -> bool {
        let mut it = theirs.iter();
        ours.iter().all(|o| it.any(|t| t == o))
    }
    let mut failures = Vec::new();
    for kind in ServerKind::ALL {
        let (server, ours, _dir) = pair(kind, None);
        let mut real = Raw::connect(server.port);
        let mut mine = Raw::connect(ours.port);
        let theirs = sections(&bulk_text(&real.query(&[b"INFO", b"everything"])));
        let given = sections(&bulk_text(&mine.query(&[b"INFO"])));
        assert!(given.len() >= 8, "{}: {given:?}", kind.name());
        let titles: Vec<String> = theirs.iter().map(|s| s.0.clone()).collect();
        let ours_titles: Vec<String> = given.iter().map(|s| s.0.clone()).collect();
        if !is_subsequence(&ours_titles, &titles) {
            failures.push(format!(
                "{}: sections {ours_titles:?} vs {titles:?}",
                kind.name()
            ));
        }
        for (title, fields) in &given {
            let Some((_, real_fields)) = theirs.iter().find(|s| &s.0 == title) else {
                continue;
            };
            if !is_subsequence(fields, real_fields) {
                failures.push(format!(
                    "{}: INFO {title}: {fields:?} not in order within {real_fields:?}",
                    kind.name()
                ));
            }
        }
        // CLIENT LIST: the server's fields, one line per connection.
        // (A request answered: the second connection is registered.)
        let mut second = Raw::connect(ours.port);
        assert_eq!(second.query(&[b"PING"]), b"+PONG\r\n");
        let field_names = |line: &str| -> Vec<String> {
            line.split(' ')
                .map(|f| f.split_once('=').map_or(f, |(k, _)| k).to_string())
                .collect()
        };
        let real_list = bulk_text(&real.query(&[b"CLIENT", b"LIST"]));
        let our_list = bulk_text(&mine.query(&[b"CLIENT", b"LIST"]));
        let real_line = real_list.lines().next().unwrap_or_default();
        let our_lines: Vec<&str> = our_list.lines().collect();
        if our_lines.len() != 2 {
            failures.push(format!("{}: CLIENT LIST of two: {our_list:?}", kind.name()));
        }
        for line in &our_lines {
            if field_names(line) != field_names(real_line) {
                failures.push(format!(
                    "{}: CLIENT LIST fields\n  server: {real_line}\n  bitlens: {line}",
                    kind.name()
                ));
            }
        }
        let info = bulk_text(&mine.query(&[b"CLIENT", b"INFO"]));
        if field_names(info.trim_end()) != field_names(real_line) {
            failures.push(format!("{}: CLIENT INFO {info:?}", kind.name()));
        }
        // LASTSAVE: the SAVE that wrote the file, on both sides (to the second).
        let number =
            |r: Vec<u8>| -> i64 { String::from_utf8_lossy(&r[1..r.len() - 2]).parse().unwrap() };
        let (a, b) = (
            number(real.query(&[b"LASTSAVE"])),
            number(mine.query(&[b"LASTSAVE"])),
        );
        if (a - b).abs() > 1 {
            failures.push(format!("{}: LASTSAVE {a} vs {b}", kind.name()));
        }
        assert_eq!(
            show(&mine.query(&[b"ROLE"])),
            "*5\\r\\n$5\\r\\nslave\\r\\n$0\\r\\n\\r\\n:0\\r\\n$4\\r\\nnone\\r\\n:-1\\r\\n",
            "{}",
            kind.name()
        );
        // DEBUG: Redis 6 runs it; from 7.0 on it is refused by default, as bitlens refuses it.
        if !kind.version().starts_with('6') {
            let (a, b) = (
                real.query(&[b"DEBUG", b"OBJECT", b"s:plain"]),
                mine.query(&[b"DEBUG", b"OBJECT", b"s:plain"]),
            );
            note(&mut failures, kind, "DEBUG", &a, &b);
        }
    }
    assert_no_differences(&failures);
}

/// `redis-cli --stat` on `bitlens resp`: every column a number, the keys those of the file's
/// databases and the memory the writer's `used_memory` at save, as redis-cli prints them.
#[test]
fn redis_cli_stat() {
    let kind = ServerKind::Redis7_4;
    let (server, ours, _dir) = pair(kind, None);
    let mut real = Raw::connect(server.port);
    let keys: i64 = [0u8, 3]
        .iter()
        .map(|db| {
            real.query(&[b"SELECT", db.to_string().as_bytes()]);
            let r = real.query(&[b"DBSIZE"]);
            String::from_utf8_lossy(&r[1..r.len() - 2])
                .parse::<i64>()
                .unwrap()
        })
        .sum();
    let mut child = Command::new("stdbuf")
        .args([
            "-o0",
            "redis-cli",
            "-p",
            &ours.port.to_string(),
            "--stat",
            "-i",
            "0.2",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run redis-cli --stat");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut rows = Vec::new();
    for _ in 0..5 {
        match lines.next() {
            Some(Ok(l)) => rows.push(l),
            _ => break,
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(rows.len() == 5, "{rows:?}");
    assert!(rows[0].starts_with("------- data ------"), "{rows:?}");
    for row in &rows[2..] {
        let cols: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cols[0], keys.to_string(), "keys: {row}");
        assert!(cols[1].ends_with(['B', 'K', 'M', 'G']), "mem: {row}");
        for c in [cols[2], cols[3], cols[4], cols[cols.len() - 1]] {
            assert!(c.parse::<u64>().is_ok(), "a number: {c} in {row}");
        }
    }
}

/// Under an open-file limit below `--maxclients`, maxclients is lowered to what the limit
/// allows (less Redis' 32 reserved descriptors), with a warning: the clients past it get
/// `-ERR max number of clients reached` instead of never being accepted.
#[test]
fn maxclients_fits_the_open_file_limit() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/conformance/redis-7.4.1/dump.rdb");
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "ulimit -n 64 && exec '{}' resp '{}' --bind 127.0.0.1:0",
            env!("CARGO_BIN_EXE_bitlens"),
            file.display()
        ))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port: u16 = line.trim().rsplit(':').next().unwrap().parse().unwrap();
    let mut socks: Vec<TcpStream> = (0..40)
        .map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap())
        .collect();
    let mut pong = 0;
    let mut refused = 0;
    // Every socket stays open until the end: one closed early frees a client slot, and a
    // server still accepting the later ones (a loaded machine) then serves one more (35 of 40
    // in one run of 15 when each socket was dropped after its reply).
    for s in socks.iter_mut() {
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(b"PING\r\n").unwrap();
        let mut buf = [0u8; 64];
        let n = s.read(&mut buf).expect("a reply, not a hang");
        match &buf[..n] {
            b"+PONG\r\n" => pong += 1,
            b"-ERR max number of clients reached\r\n" => refused += 1,
            other => panic!("{:?}", String::from_utf8_lossy(other)),
        }
    }
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!((pong, refused), (32, 8), "{err}");
    assert!(err.contains("maxclients reduced to 32"), "{err}");
}
