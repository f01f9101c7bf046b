//! RedisBloom module values (`bitlens::probabilistic`): the input's first byte picks one of
//! the five RedisBloom types (and a nearby encoding version), the rest is taken as that
//! value's opcode-tagged fields inside a DUMP payload (type 7, RDB_TYPE_MODULE_2, with a
//! valid version + CRC-64 trailer). A payload that decodes must answer every read command of
//! its family without a panic, then take every write command of every family (arguments
//! drawn from the input's tail) and answer the reads again.
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

/// Write commands; `A`/`B`/`N` are replaced by words and numbers taken from the input.
const WRITES: &[&[&str]] = &[
    &["BF.ADD", "k", "A"],
    &["BF.MADD", "k", "A", "B", "A"],
    &["BF.INSERT", "k", "CAPACITY", "N", "ERROR", "0.1", "EXPANSION", "N", "ITEMS", "A", "B"],
    &["BF.RESERVE", "k2", "0.01", "N", "EXPANSION", "N"],
    &["CF.ADD", "k", "A"],
    &["CF.ADDNX", "k", "B"],
    &["CF.INSERT", "k", "ITEMS", "A", "B"],
    &["CF.INSERTNX", "k", "CAPACITY", "N", "ITEMS", "A"],
    &["CF.DEL", "k", "A"],
    &["CF.RESERVE", "k3", "N", "BUCKETSIZE", "N", "MAXITERATIONS", "N", "EXPANSION", "N"],
    &["CMS.INCRBY", "k", "A", "N", "B", "N"],
    &["CMS.MERGE", "k", "2", "k", "k", "WEIGHTS", "N", "N"],
    &["CMS.INITBYDIM", "k4", "N", "N"],
    &["TOPK.ADD", "k", "A", "B", "A"],
    &["TOPK.INCRBY", "k", "A", "N"],
    &["TOPK.RESERVE", "k5", "N", "N", "N", "0.9"],
    &["TDIGEST.ADD", "k", "N", "A", "N"],
    &["TDIGEST.MERGE", "k", "2", "k", "k", "COMPRESSION", "N"],
    &["TDIGEST.CDF", "k", "N"],
    &["TDIGEST.RESET", "k"],
    &["TDIGEST.CREATE", "k6", "COMPRESSION", "N"],
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, fields)) = data.split_first() else {
        return;
    };
    let (name, encver) = TYPES[pick as usize % TYPES.len()];
    // Mostly the version RedisBloom 2.8 writes, sometimes an older or unknown one.
    let encver = if pick & 0x80 != 0 {
        (pick as u64 >> 3) & 7
    } else {
        encver
    };
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
        // Words and small numbers from the input drive the writes.
        let mut bytes = fields.iter().rev().copied().cycle().take(64);
        let mut word = || {
            let b = bytes.next().unwrap_or(0);
            match b % 4 {
                0 => format!("{}", b as u32 * b as u32 % 5000),
                1 => format!("{}", b % 8),
                2 => format!("item{b}"),
                _ => String::from_utf8_lossy(&[b, b.wrapping_mul(7)]).into_owned(),
            }
        };
        for w in WRITES {
            let argv: Vec<String> = w
                .iter()
                .map(|a| match *a {
                    "A" | "B" | "N" => word(),
                    other => other.to_string(),
                })
                .collect();
            let argv: Vec<&str> = argv.iter().map(|s| s.as_str()).collect();
            let _ = execute_as(&mut ks, profile, &argv);
        }
        for r in READS {
            let _ = execute_as(&mut ks, profile, r);
        }
    }
});
