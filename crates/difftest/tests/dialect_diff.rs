//! Differential tests of the dialect table (issue 14) against every real server installed
//! (`BITLENS_SERVERS_DIR`, see `scripts/servers.sh`): each server gets the same data in two
//! databases (a string, a sorted set with a score that prints differently, a GEO set, a key
//! with a fixed far expiry, a key that expires 1.5 s after it is set, or later on a loaded
//! machine: see [`SOON_TTLS_MS`]), SAVEs, and answers the
//! commands of issue 14's table and the keyspace commands. Then:
//!
//! 1. bitlens on the file that server wrote, with the default profile (the writer's, from the
//!    `valkey-ver`/`redis-ver` aux field), gives that server's exact RESP bytes;
//! 2. bitlens on every server's file (each must load) with `--compat` set to each server's profile gives that
//!    server's bytes (the data is the same everywhere, so only the dialect differs);
//! 3. after the short expiry passed, the server says the key is gone (TYPE none, EXISTS 0,
//!    DBSIZE, KEYS, SCAN, GET, TTL -2), and bitlens says the same at `--clock now`, while at the
//!    snapshot's own clock it still sees the key as the server did before it expired.

use std::time::Duration;

use bitlens::dialect::Profile;
use bitlens::rdb::{load_rdb, LoadOptions, Snapshot};
use bitlens::session::{Clock, Session};
use bitlens_difftest::{RedisServer, ServerKind};

/// 2100-01-01T00:00:00Z, the fixed expiry of `exp:far` (same on every server).
const FAR: &str = "4102444800";

fn argv(s: &[&str]) -> Vec<Vec<u8>> {
    s.iter().map(|a| a.as_bytes().to_vec()).collect()
}

/// The data set, written the same way to every server.
fn setup() -> Vec<Vec<&'static str>> {
    vec![
        vec!["SET", "k", "abc"],
        vec!["SET", "n", "12345"],
        vec!["SET", "e44", "12345678901234567890123456789012345678901234"],
        vec![
            "SET",
            "e45",
            "123456789012345678901234567890123456789012345",
        ],
        vec!["ZADD", "z", "1.618", "a", "2.5", "b", "0.1", "c"],
        vec![
            "GEOADD",
            "g",
            "13.361389",
            "38.115556",
            "Palermo",
            "15.087269",
            "37.502669",
            "Catania",
        ],
        vec!["SET", "exp:far", "v"],
        vec!["EXPIREAT", "exp:far", FAR],
        vec!["SELECT", "1"],
        vec!["SET", "one:k", "in db 1"],
        vec!["SELECT", "0"],
    ]
}

/// Commands whose replies depend only on the data and the dialect (not on when they run), one
/// a line, arguments split at spaces (none holds one).
const CASES: &[&str] = &[
    "ZSCORE z a",
    "ZSCORE z c",
    "ZRANGE z 0 -1 WITHSCORES",
    "ZRANGE z 0 -1 REV",
    "ZRANGE z -inf +inf BYSCORE",
    "BITCOUNT k 100 -100 BIT",
    "BITCOUNT k 2",
    "BITCOUNT k 0 -1 BIT",
    "BITCOUNT k -1 -5 foo",
    "BITCOUNT k 0 x bits",
    "BITCOUNT missing 0 -1 BIT",
    "BITCOUNT missing 0 x",
    "BITCOUNT missing 2",
    "BITPOS k 1 0 -1 BIT",
    "BITPOS missing 1 x",
    "BITPOS missing 0 0 -1 BITS",
    "BITOP DIFF d k k",
    "BITOP ONE d k",
    "GEOSEARCH g FROMMEMBER missing BYRADIUS 10 km",
    "GEOSEARCH g FROMLONLAT 15 37 WITHDIST ASC",
    "GEOSEARCH g FROMLONLAT 15 37 BYRADIUS 200 km WITHCOORD WITHDIST ASC",
    "GEORADIUSBYMEMBER_RO g missing 10 km",
    "GEORADIUS_RO nosuch x y 1 km",
    "GEORADIUS_RO g 15 37 200 km COUNT 1 ANY",
    "GEORADIUS_RO g 15 37 200 km COUNT 1 ASC",
    "GEORADIUS g 15 37 200 km WITHDIST ASC",
    "GEORADIUS g 15 37 200 km STORE gdst",
    "GEORADIUS g 15 37 200 km STOREDIST gdst WITHCOORD",
    "GEORADIUS nosuch 15 37 200 km STORE gdst",
    "GEORADIUS_RO g 15 37 200 km STORE gdst",
    "GEORADIUSBYMEMBER g Palermo 200 km STOREDIST gdst COUNT 1",
    "ZRANGE gdst 0 -1 WITHSCORES",
    "DEL gdst",
    "GEOSEARCHSTORE gdst g FROMLONLAT 15 37 BYRADIUS 200 km WITHHASH",
    "GEOPOS g Palermo nosuch",
    "GEODIST g Palermo Catania km",
    "GEODIST g Palermo Catania",
    "EXPIRETIME exp:far",
    "PEXPIRETIME exp:far",
    "EXPIRETIME k",
    "TTL k",
    "PTTL missing",
    "FOO a b",
    "FOO",
    "SELECT x",
    "SELECT 1.5",
    "SELECT 16",
    "SELECT -1",
    "SELECT 99999999999",
    "SCAN 0 TYPE nosuch",
    "SCAN 0 MATCH z TYPE zset",
    "SCAN -1 TYPE nosuch",
    "OBJECT ENCODING k",
    "OBJECT ENCODING n",
    "OBJECT ENCODING e44",
    "OBJECT ENCODING e45",
    "OBJECT ENCODING z",
    "OBJECT ENCODING missing",
    "OBJECT FOO k",
    "OBJECT ENCODING",
    "TYPE g",
    "EXISTS k k missing",
    "GET one:k",
    // Every database: the session switches and stays switched, as redis-cli's does.
    "SELECT 1",
    "GET one:k",
    "DBSIZE",
    "SELECT 0",
];

fn cases() -> Vec<Vec<&'static str>> {
    CASES.iter().map(|c| c.split(' ').collect()).collect()
}

/// Commands asked about the short-lived key, before and after it expired.
fn expiry_cases() -> Vec<Vec<&'static str>> {
    vec![
        vec!["TYPE", "exp:soon"],
        vec!["EXISTS", "exp:soon"],
        vec!["GET", "exp:soon"],
        vec!["STRLEN", "exp:soon"],
        vec!["DBSIZE"],
        vec!["KEYS", "exp:s*"],
        vec!["SCAN", "0", "MATCH", "exp:s*", "COUNT", "1000"],
        vec!["EXPIRETIME", "exp:soon"],
        vec!["BITCOUNT", "exp:soon"],
        vec!["OBJECT", "ENCODING", "exp:soon"],
    ]
}

/// Commands asked about the key given PEXPIRE 1 before SAVE.
fn gone_cases() -> Vec<Vec<&'static str>> {
    vec![
        vec!["TYPE", "exp:now"],
        vec!["EXISTS", "exp:now"],
        vec!["GET", "exp:now"],
        vec!["TTL", "exp:now"],
        vec!["PTTL", "exp:now"],
        vec!["KEYS", "exp:n*"],
        vec!["SCAN", "0", "MATCH", "exp:n*", "COUNT", "1000"],
    ]
}

struct Recorded {
    kind: ServerKind,
    /// The server's answers about exp:now (PEXPIRE 1 before SAVE), after SAVE.
    gone_now: Vec<Vec<u8>>,
    file: Vec<u8>,
    replies: Vec<Vec<u8>>,
    before: Vec<Vec<u8>>,
    after: Vec<Vec<u8>>,
    /// A Unix-ms instant past exp:soon's expiry.
    soon_ms: i64,
}

/// The TTLs `exp:soon` is given, one per attempt: the answers recorded before it expires must
/// all be asked within it, which a loaded machine may not manage in 1.5 s (a clean-clone CI
/// run once saw the server's DBSIZE after active expiry had already removed the key).
const SOON_TTLS_MS: [u64; 3] = [1500, 5000, 15000];

fn record(kind: ServerKind) -> Recorded {
    for ttl_ms in SOON_TTLS_MS {
        if let Some(r) = record_with(kind, ttl_ms) {
            return r;
        }
        println!(
            "{}: the answers before exp:soon's expiry took over {ttl_ms} ms; again with a longer TTL",
            kind.name()
        );
    }
    panic!(
        "{}: could not record the answers within exp:soon's TTL ({SOON_TTLS_MS:?} ms)",
        kind.name()
    );
}

/// The server's answers with `exp:soon` given `ttl_ms`; `None` when the answers that must see
/// it alive were not all given within its TTL (less a 250 ms margin), on this clock.
fn record_with(kind: ServerKind, ttl_ms: u64) -> Option<Recorded> {
    let server = RedisServer::start_kind(kind, &[]);
    let mut c = server.raw_connection();
    for cmd in setup() {
        let r = c.query(&argv(&cmd));
        assert!(!r.starts_with(b"-"), "{}: {cmd:?}: {:?}", kind.name(), r);
    }
    let ttl = ttl_ms.to_string();
    c.query(&argv(&["SET", "exp:soon", "v", "PX", &ttl]));
    let set_at = std::time::Instant::now();
    // PEXPIRE 1 before SAVE: expired when the file is written (whether the server still
    // writes it is the server's business; either way it must be invisible past its expiry).
    c.query(&argv(&["SET", "exp:now", "v"]));
    c.query(&argv(&["PEXPIRE", "exp:now", "1"]));
    std::thread::sleep(Duration::from_millis(5));
    let file = server.save_rdb();
    let gone_now: Vec<Vec<u8>> = gone_cases().iter().map(|a| c.query(&argv(a))).collect();
    let before: Vec<Vec<u8>> = expiry_cases().iter().map(|a| c.query(&argv(a))).collect();
    let replies: Vec<Vec<u8>> = cases().iter().map(|a| c.query(&argv(a))).collect();
    if set_at.elapsed() + Duration::from_millis(250) >= Duration::from_millis(ttl_ms) {
        return None;
    }
    // PTTL (6.x has no PEXPIRETIME) plus the local clock, with a margin: a clock past it is
    // past the expiry stored in the file.
    let pttl = c.query(&argv(&["PTTL", "exp:soon"]));
    let left: i64 = std::str::from_utf8(&pttl[1..pttl.len() - 2])
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{}: PTTL {:?}", kind.name(), pttl));
    let soon_ms = bitlens::keyspace::wall_clock_ms() + left + 1000;
    std::thread::sleep(Duration::from_millis(ttl_ms + 200));
    let after: Vec<Vec<u8>> = expiry_cases().iter().map(|a| c.query(&argv(a))).collect();
    Some(Recorded {
        kind,
        gone_now,
        file,
        replies,
        before,
        after,
        soon_ms,
    })
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs `cmds` in a fresh session over `snap`, returns the RESP bytes.
fn run(
    snap: &Snapshot,
    compat: Option<&'static Profile>,
    clock: Clock,
    cmds: &[Vec<&str>],
) -> Vec<Vec<u8>> {
    let mut s = Session::from_snapshot(snap.clone(), compat, clock);
    cmds.iter().map(|a| s.execute(&argv(a)).to_resp()).collect()
}

fn compare(
    what: &str,
    cmds: &[Vec<&str>],
    want: &[Vec<u8>],
    got: &[Vec<u8>],
    bad: &mut Vec<String>,
) {
    for ((cmd, w), g) in cmds.iter().zip(want).zip(got) {
        if w != g {
            bad.push(format!(
                "{what}: {cmd:?}\n    server  {:?}\n    bitlens {:?}",
                show(w),
                show(g)
            ));
        }
    }
}

#[test]
fn each_server_answers_as_bitlens_with_its_profile_and_with_compat() {
    let kinds: Vec<ServerKind> = ServerKind::ALL
        .into_iter()
        .filter(|k| k.available())
        .collect();
    for k in ServerKind::ALL {
        if !k.available() {
            eprintln!("{}: not installed, skipped (npm run setup)", k.name());
        }
    }
    assert!(
        kinds.len() >= 2,
        "fewer than two servers installed: set BITLENS_SERVERS_DIR (see scripts/servers.sh)"
    );
    let recorded: Vec<Recorded> = kinds.iter().map(|&k| record(k)).collect();
    let mut bad = Vec::new();
    // Every installed server's file must load: a file that does not is a failure, never a
    // server dropped from the comparison.
    let loadable: Vec<_> = recorded
        .iter()
        .map(|r| match load_rdb(&r.file, &LoadOptions::default()) {
            Ok(snap) => (r, snap),
            Err(e) => panic!("{}: its file does not load: {e}", r.kind.name()),
        })
        .collect();
    for (r, snap) in &loadable {
        // 1. The writer's profile by default.
        let writer = Profile::for_snapshot(&snap.aux, snap.version);
        let want = Profile::from_name(r.kind.profile_name()).expect("profile of the kind");
        assert_eq!(writer, want, "{}: default profile", r.kind.name());
        let got = run(snap, None, Clock::Snapshot, &cases());
        compare(
            &format!("{} file, default profile", r.kind.name()),
            &cases(),
            &r.replies,
            &got,
            &mut bad,
        );
        // 2. --compat gives each other server's answers on this file.
        for other in &recorded {
            let p = Profile::from_name(other.kind.profile_name()).unwrap();
            let got = run(snap, Some(p), Clock::Snapshot, &cases());
            compare(
                &format!("{} file, --compat {}", r.kind.name(), p.name),
                &cases(),
                &other.replies,
                &got,
                &mut bad,
            );
        }
        // 3. The clock: at the snapshot's time the key is there (as the server said before
        // it expired); past its expiry it is gone everywhere (as the server said after).
        let exp = expiry_cases();
        let at_snapshot = run(snap, None, Clock::Snapshot, &exp);
        compare(
            &format!("{} file at the snapshot clock", r.kind.name()),
            &exp,
            &r.before,
            &at_snapshot,
            &mut bad,
        );
        let past = run(snap, None, Clock::At(r.soon_ms + 1), &exp);
        compare(
            &format!("{} file at a clock past the expiry", r.kind.name()),
            &exp,
            &r.after,
            &past,
            &mut bad,
        );
        let gone = gone_cases();
        for clock in [Clock::Now, Clock::At(r.soon_ms)] {
            let got = run(snap, None, clock, &gone);
            compare(
                &format!("{} file, PEXPIRE 1 before SAVE, {clock:?}", r.kind.name()),
                &gone,
                &r.gone_now,
                &got,
                &mut bad,
            );
        }
        let now = run(snap, None, Clock::Now, &exp);
        compare(
            &format!("{} file at --clock now", r.kind.name()),
            &exp,
            &r.after,
            &now,
            &mut bad,
        );
    }
    assert!(
        bad.is_empty(),
        "{} differences:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
