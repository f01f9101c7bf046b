//! OBJECT ENCODING of strings written in the session, against every real server installed:
//! each server writes short strings, an integer and two short HyperLogLogs (one with a valid
//! cached cardinality), SAVEs, and is restarted on its own file (a cold load, as bitlens
//! reads it). Then the same commands go to the restarted server and to a bitlens session on
//! the file, one after the other, and every reply must be the same bytes: a string a command
//! writes (SETBIT, BITFIELD SET, BITOP's destination, PFADD, PFMERGE's destination, a one-key
//! PFCOUNT) is unshared to `raw`, as Redis' `dbUnshareStringValue` leaves it, while a read
//! (BITFIELD GET, a multi-key PFCOUNT) leaves the encoding the load gave (new-user trial:
//! `OBJECT ENCODING` after `PFCOUNT` said `embstr` where Redis says `raw`).

use bitlens::rdb::{load_rdb, LoadOptions};
use bitlens::session::{Clock, Session};
use bitlens_difftest::{RedisServer, ServerKind};

fn argv(line: &str) -> Vec<Vec<u8>> {
    line.split(' ').map(|a| a.as_bytes().to_vec()).collect()
}

const SETUP: &[&str] = &[
    "SET s abc",
    "SET n 12345",
    "SET e 12345678901234567890123456789012345678901234",
    "PFADD hll a b c",
    "PFADD hllv x y",
    "PFCOUNT hllv",
];

const CASES: &[&str] = &[
    "OBJECT ENCODING hll",
    "PFCOUNT hll",
    "OBJECT ENCODING hll",
    "OBJECT ENCODING hllv",
    "PFCOUNT hllv hll",
    "OBJECT ENCODING hllv",
    "PFCOUNT hllv",
    "OBJECT ENCODING hllv",
    "OBJECT ENCODING n",
    "SETBIT n 1 0",
    "OBJECT ENCODING n",
    "BITFIELD e GET u8 0",
    "OBJECT ENCODING e",
    "BITFIELD e SET u8 0 65",
    "OBJECT ENCODING e",
    "OBJECT ENCODING s",
    "BITOP OR bdst s",
    "OBJECT ENCODING bdst",
    "OBJECT ENCODING s",
    "PFADD hnew z",
    "OBJECT ENCODING hnew",
    "PFMERGE hllm hll",
    "OBJECT ENCODING hllm",
    "SETBIT s 100 1",
    "OBJECT ENCODING s",
];

#[test]
fn strings_written_in_the_session_are_raw_as_on_every_server() {
    let mut ran = 0;
    let mut bad = Vec::new();
    for kind in ServerKind::ALL {
        let Some(writer) = RedisServer::start_kind_if_installed(kind, &[]) else {
            eprintln!("{} is not installed: skipped", kind.name());
            continue;
        };
        let mut c = writer.raw_connection();
        for line in SETUP {
            c.query(&argv(line));
        }
        let file = writer.save_rdb();
        drop(c);
        drop(writer);
        // A cold load of the same file on the same server, as bitlens reads it.
        let server = RedisServer::start_kind_loading(kind, &file, &[]);
        let mut c = server.raw_connection();
        let snap = load_rdb(&file, &LoadOptions::default()).expect("bitlens loads the file");
        let mut s = Session::from_snapshot(snap, None, Clock::Snapshot);
        for line in CASES {
            let want = c.query(&argv(line));
            let got = s.execute(&argv(line)).to_resp();
            if want != got {
                bad.push(format!(
                    "{}: {line}\n    server  {:?}\n    bitlens {:?}",
                    kind.name(),
                    String::from_utf8_lossy(&want),
                    String::from_utf8_lossy(&got)
                ));
            }
        }
        ran += 1;
    }
    assert!(ran > 0, "no server installed (scripts/servers.sh)");
    assert!(
        bad.is_empty(),
        "{} differences:\n{}",
        bad.len(),
        bad.join("\n")
    );
    eprintln!(
        "OBJECT ENCODING after writes: {ran} servers × {} commands identical",
        CASES.len()
    );
}
