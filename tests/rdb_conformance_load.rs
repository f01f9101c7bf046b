//! Every conformance `dump.rdb` (written by Redis 7.0, RDB 10) loads, and every key listed in
//! its `keys.tsv` (recorded from the same Redis) has the recorded type, length and expiry.

mod common;

use common::{conformance_dir, url_decode};

use bitlens::keyspace::Value;
use bitlens::rdb::{load_rdb, LoadOptions};

#[test]
fn conformance_dumps_load_with_recorded_types_lengths_expiries() {
    let dir = conformance_dir();
    let mut sets = 0;
    for set in ["bitmaps", "signin", "hll", "geo"] {
        let bytes = std::fs::read(dir.join(set).join("dump.rdb")).unwrap();
        let snap = load_rdb(&bytes, &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{set}/dump.rdb: {e}"));
        assert_eq!(snap.version, 10);
        let db = &snap.databases[&0];
        let tsv = std::fs::read_to_string(dir.join(set).join("keys.tsv")).unwrap();
        let mut rows = 0;
        for line in tsv.lines().skip(1) {
            let f: Vec<&str> = line.split('\t').collect();
            let key = url_decode(f[0]);
            let entry = db
                .entry(&key)
                .unwrap_or_else(|| panic!("{set}: key {} missing", f[0]));
            assert_eq!(entry.value.redis_type().name(), f[1], "{set} {}", f[0]);
            let len: u64 = f[3].parse().unwrap();
            match &entry.value {
                Value::String(s) => assert_eq!(s.len(), len, "{set} {}", f[0]),
                Value::ZSet(z) => assert_eq!(z.len() as u64, len, "{set} {}", f[0]),
                Value::List(l) => assert_eq!(l.len() as u64, len, "{set} {}", f[0]),
                Value::Set(v) => assert_eq!(v.len() as u64, len, "{set} {}", f[0]),
                Value::Hash(h) => assert_eq!(h.len(None) as u64, len, "{set} {}", f[0]),
                Value::Stream(x) => assert_eq!(x.length, len, "{set} {}", f[0]),
                Value::Module(_) | Value::Other(_) => {}
            }
            let pexp: i64 = f[4].parse().unwrap();
            assert_eq!(entry.expire_at_ms.unwrap_or(-1), pexp, "{set} {}", f[0]);
            rows += 1;
        }
        assert_eq!(db.len(), rows, "{set}: key count");
        sets += 1;
    }
    assert_eq!(sets, 4);
}
