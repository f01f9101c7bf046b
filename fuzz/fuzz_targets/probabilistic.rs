//! RedisBloom module values (`bitlens::probabilistic`): the input's first byte picks one of
//! the five RedisBloom types (and a nearby encoding version), the rest is taken as that
//! value's opcode-tagged fields inside a DUMP payload (type 7, RDB_TYPE_MODULE_2, with a
//! valid version + CRC-64 trailer). A payload that decodes must answer every read command of
//! its family without a panic.
#![no_main]
use bitlens::command::execute_as;
use bitlens::dialect::Profile;
use bitlens::rdb::load_dump;
use bitlens::Keyspace;
use libfuzzer_sys::fuzz_target;

const TYPES: [(&[u8; 9], u64); 5] = [
    (b"MBbloom--", 4),
    (b"MBbloomCF", 4),
    (b"CMSk-TYPE", 0),
    (b"TopK-TYPE", 0),
    (b"TDIS-TYPE", 0),
];

fn module_id(name: &[u8; 9], encver: u64) -> u64 {
    const CHARSET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut id = 0u64;
    for c in name {
        id = (id << 6) | CHARSET.iter().position(|x| x == c).unwrap_or(0) as u64;
    }
    (id << 10) | encver
}

const READS: &[&[&str]] = &[
    &["BF.MEXISTS", "k", "a", "item1", ""],
    &["BF.INFO", "k"],
    &["BF.CARD", "k"],
    &["CF.MEXISTS", "k", "a", "c1"],
    &["CF.COUNT", "k", "c1"],
    &["CF.INFO", "k"],
    &["CMS.QUERY", "k", "a", "w1"],
    &["CMS.INFO", "k"],
    &["TOPK.QUERY", "k", "a"],
    &["TOPK.COUNT", "k", "a", "w1"],
    &["TOPK.LIST", "k", "WITHCOUNT"],
    &["TOPK.INFO", "k"],
    &["TDIGEST.QUANTILE", "k", "0", "0.3", "1", "0.5"],
    &["TDIGEST.CDF", "k", "-1", "5", "1e300"],
    &["TDIGEST.RANK", "k", "5"],
    &["TDIGEST.REVRANK", "k", "5"],
    &["TDIGEST.BYRANK", "k", "0", "2", "100"],
    &["TDIGEST.BYREVRANK", "k", "0", "2", "100"],
    &["TDIGEST.TRIMMED_MEAN", "k", "0.1", "0.9"],
    &["TDIGEST.MIN", "k"],
    &["TDIGEST.INFO", "k"],
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, fields)) = data.split_first() else {
        return;
    };
    let (name, encver) = TYPES[pick as usize % TYPES.len()];
    // Mostly the version RedisBloom 2.8 writes, sometimes an older or unknown one.
    let encver = if pick & 0x80 != 0 { (pick as u64 >> 3) & 7 } else { encver };
    let mut p = vec![7u8, 0x81];
    p.extend_from_slice(&module_id(name, encver).to_be_bytes());
    p.extend_from_slice(fields);
    p.extend_from_slice(&12u16.to_le_bytes());
    let crc = bitlens::rdb::crc64(&p);
    p.extend_from_slice(&crc.to_le_bytes());
    if let Ok(v) = load_dump(&p) {
        let mut ks = Keyspace::new();
        ks.set(b"k".to_vec(), v);
        let profile = Profile::from_name("redis-7.4").unwrap();
        for r in READS {
            let _ = execute_as(&mut ks, profile, r);
        }
    }
});
