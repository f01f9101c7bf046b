//! Empty collections in a snapshot against every server (each skipped, with a message, when not
//! installed): an RDB 9 file (which all six load) holding a string and one empty set, list,
//! sorted set and hash record in each encoding a server loads empty (hashtable/skiplist
//! records of 0 elements, quicklists of 0 nodes or of one empty ziplist node, empty ziplists).
//! Servers never write such records, but a crafted or damaged file can hold them: Redis 6.2+
//! and Valkey skip each at load ("empty keys skipped"), Redis 6.0 loads them as empty keys
//! (`Profile::load_skips_empty_keys`, applied by `Session::new`). DBSIZE and, per key, EXISTS,
//! TYPE and the type's length command must match the server byte for byte. (An empty intset or
//! zipmap is refused by 6.2+ as an integrity failure and is not part of the file.)

use bitlens::dialect::Profile;
use bitlens::rdb::{load_rdb, LoadOptions};
use bitlens::session::Session;
use bitlens_difftest::{RedisServer, ServerKind};

/// A length or string of fewer than 64 bytes, RDB-encoded.
fn short(bytes: &[u8]) -> Vec<u8> {
    assert!(bytes.len() < 64);
    [&[bytes.len() as u8][..], bytes].concat()
}

/// An empty ziplist: zlbytes 11, zltail 10, zllen 0, the end byte.
fn empty_ziplist() -> Vec<u8> {
    let mut z = Vec::new();
    z.extend_from_slice(&11u32.to_le_bytes());
    z.extend_from_slice(&10u32.to_le_bytes());
    z.extend_from_slice(&0u16.to_le_bytes());
    z.push(0xff);
    z
}

/// The empty records: key, RDB type byte and payload, with the command that measures them.
fn records() -> Vec<(&'static str, u8, Vec<u8>, &'static str)> {
    let zl = short(&empty_ziplist());
    vec![
        ("e:set", 2, vec![0], "SCARD"),
        ("e:list", 1, vec![0], "LLEN"),
        ("e:zset", 3, vec![0], "ZCARD"),
        ("e:zset2", 5, vec![0], "ZCARD"),
        ("e:hash", 4, vec![0], "HLEN"),
        ("e:quicklist", 14, vec![0], "LLEN"),
        ("e:quicklist1", 14, [&[1u8][..], &zl].concat(), "LLEN"),
        ("e:listzl", 10, zl.clone(), "LLEN"),
        ("e:zsetzl", 12, zl.clone(), "ZCARD"),
        ("e:hashzl", 13, zl, "HLEN"),
    ]
}

/// The file: aux `redis-ver` `writer`, database 0, the string `k`, the empty records, EOF and
/// a zero checksum (not checked).
fn file(writer: &str) -> Vec<u8> {
    let mut f = b"REDIS0009".to_vec();
    f.push(0xfa);
    f.extend(short(b"redis-ver"));
    f.extend(short(writer.as_bytes()));
    f.extend([0xfe, 0]);
    f.push(0);
    f.extend(short(b"k"));
    f.extend(short(b"v"));
    for (key, ty, payload, _) in records() {
        f.push(ty);
        f.extend(short(key.as_bytes()));
        f.extend(payload);
    }
    f.push(0xff);
    f.extend([0; 8]);
    f
}

fn argv(words: &[&str]) -> Vec<Vec<u8>> {
    words.iter().map(|w| w.as_bytes().to_vec()).collect()
}

#[test]
fn empty_collections_load_as_each_server_loads_them() {
    let bytes = file("6.0.9");
    let snap = load_rdb(&bytes, &LoadOptions::default()).expect("bitlens loads the file");
    let mut commands = vec![argv(&["DBSIZE"]), argv(&["EXISTS", "k"])];
    for (key, _, _, len) in records() {
        commands.push(argv(&["EXISTS", key]));
        commands.push(argv(&["TYPE", key]));
        commands.push(argv(&[len, key]));
    }
    let mut compared = 0;
    for kind in ServerKind::ALL {
        let Some(probe) = RedisServer::start_kind_if_installed(kind, &[]) else {
            continue;
        };
        drop(probe);
        let server = RedisServer::start_kind_loading(kind, &bytes, &[]);
        let mut raw = server.raw_connection();
        let profile = Profile::from_name(kind.profile_name()).unwrap();
        let mut session = Session::new(snap.databases.clone(), profile, None);
        for cmd in &commands {
            assert_eq!(
                String::from_utf8_lossy(&session.execute(cmd).to_resp()),
                String::from_utf8_lossy(&raw.query(cmd)),
                "{}: {cmd:?}",
                kind.name()
            );
        }
        compared += 1;
    }
    eprintln!("empty collections compared on {compared} servers");
    // Without --compat the writer's profile decides: the `redis-ver` aux field.
    for (writer, keys) in [("6.0.9", 11), ("6.2.14", 1), ("7.0.15", 1)] {
        let snap = load_rdb(&file(writer), &LoadOptions::default()).unwrap();
        let profile = Profile::for_snapshot(&snap.aux, snap.version);
        let mut session = Session::new(snap.databases, profile, None);
        assert_eq!(
            session.execute(&argv(&["DBSIZE"])).to_resp(),
            format!(":{keys}\r\n").into_bytes(),
            "written by {writer}"
        );
    }
}
