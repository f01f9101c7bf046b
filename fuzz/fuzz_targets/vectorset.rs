//! Redis 8 vector sets (`bitlens::vectorset`): a `vectorset` module value (encoding version 0)
//! inside a DUMP payload (type 7 with a valid version + CRC-64 trailer). With the input's first
//! byte even, the rest is taken as the value's opcode-tagged fields as they are; odd, the input
//! drives a well-formed value (dimension, element count, quantization, M, projection,
//! attributes, levels and links chosen from its bytes), so that the search code is reached. A
//! payload that decodes must answer every vector set command without a panic.
#![no_main]
use bitlens::command::execute_as;
use bitlens::dialect::Profile;
use bitlens::rdb::load_dump;
use bitlens::Keyspace;
use libfuzzer_sys::fuzz_target;

fn module_id(name: &[u8; 9], encver: u64) -> u64 {
    const CHARSET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut id = 0u64;
    for c in name {
        id = (id << 6) | CHARSET.iter().position(|x| x == c).unwrap_or(0) as u64;
    }
    (id << 10) | encver
}

fn len(out: &mut Vec<u8>, v: u64) {
    if v < 64 {
        out.push(v as u8);
    } else if v < 16384 {
        out.extend_from_slice(&[0x40 | (v >> 8) as u8, v as u8]);
    } else if v <= u32::MAX as u64 {
        out.push(0x80);
        out.extend_from_slice(&(v as u32).to_be_bytes());
    } else {
        out.push(0x81);
        out.extend_from_slice(&v.to_be_bytes());
    }
}

fn unsigned(out: &mut Vec<u8>, v: u64) {
    len(out, 2);
    len(out, v);
}

fn buffer(out: &mut Vec<u8>, b: &[u8]) {
    len(out, 5);
    len(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// A well-formed value from the input's bytes.
fn structured(data: &[u8]) -> Vec<u8> {
    let mut it = data.iter().copied().chain(std::iter::repeat(7)).enumerate();
    let mut next = || it.next().map(|(i, b)| b ^ (i as u8)).unwrap_or(0);
    let dim = 1 + next() as u64 % 70;
    let n = 1 + next() as u64 % 40;
    let quant = next() as u64 % 3;
    let m = 4 + next() as u64 % 8;
    let flags = next() as u64 % 4;
    let mut out = Vec::new();
    unsigned(&mut out, dim);
    unsigned(&mut out, n);
    unsigned(&mut out, quant | m << 8);
    unsigned(&mut out, flags);
    if flags & 1 != 0 {
        let input = dim + next() as u64 % 5;
        unsigned(&mut out, input);
        let m: Vec<u8> = (0..input * dim * 4).map(|_| next()).collect();
        buffer(&mut out, &m);
    }
    let vbytes = match quant {
        0 => dim * 4,
        1 => dim,
        _ => dim.div_ceil(64) * 8,
    };
    for i in 0..n {
        buffer(&mut out, format!("e{i}").as_bytes());
        if flags & 2 != 0 {
            let a: &[u8] = match next() % 4 {
                0 => b"",
                1 => b"{\"n\": 3, \"s\": \"x\"}",
                2 => b"{\"n\": [1, 2], \"t\": true}",
                _ => b"{\"n\": -1.5e3",
            };
            buffer(&mut out, a);
        }
        let v: Vec<u8> = (0..vbytes).map(|_| next()).collect();
        buffer(&mut out, &v);
        let level = (next() % 4) as u64;
        let mut params = vec![i + 1, level];
        for l in 0..=level {
            let k = next() as u64 % if l == 0 { 2 * m + 1 } else { m + 1 };
            params.push(k);
            params.push(if l == 0 { 2 * m } else { m });
            for _ in 0..k {
                params.push(1 + next() as u64 % n);
            }
        }
        params.push(u64::from_le_bytes([next(), next(), next(), 0x3f, next(), next(), 0, 0x3f]));
        unsigned(&mut out, params.len() as u64);
        for p in params {
            unsigned(&mut out, p);
        }
    }
    out
}

const COMMANDS: &[&[&str]] = &[
    &["VCARD", "k"],
    &["VDIM", "k"],
    &["VINFO", "k"],
    &["VEMB", "k", "e0"],
    &["VEMB", "k", "e1", "RAW"],
    &["VGETATTR", "k", "e2"],
    &["VISMEMBER", "k", "e3"],
    &["VLINKS", "k", "e0", "WITHSCORES"],
    &["VLINKS", "k", "e5"],
    &["VRANDMEMBER", "k"],
    &["VRANDMEMBER", "k", "3"],
    &["VRANDMEMBER", "k", "-4"],
    &["VRANDMEMBER", "k", "100"],
    &["VSIM", "k", "ELE", "e0", "WITHSCORES"],
    &["VSIM", "k", "ELE", "e1", "TRUTH", "COUNT", "5"],
    &["VSIM", "k", "ELE", "e2", "FILTER", ".n > 1 and .s == 'x'", "FILTER-EF", "3"],
    &["VSIM", "k", "ELE", "e3", "FILTER", "2 in .n or .t", "EF", "1"],
    &["VSIM", "k", "VALUES", "2", "1", "-1", "EPSILON", "0.5"],
    &["VSIM", "k", "VALUES", "3", "1", "0.5", "-1"],
    &["VSIM", "k", "FP32", "\u{0}\u{0}\u{80}?\u{0}\u{0}\u{0}\u{0}"],
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let fields = if pick & 1 == 0 {
        rest.to_vec()
    } else {
        let mut f = structured(rest);
        len(&mut f, 0); // EOF opcode
        f
    };
    let mut p = vec![7u8, 0x81];
    p.extend_from_slice(&module_id(b"vectorset", 0).to_be_bytes());
    p.extend_from_slice(&fields);
    p.extend_from_slice(&12u16.to_le_bytes());
    let crc = bitlens::rdb::crc64(&p);
    p.extend_from_slice(&crc.to_le_bytes());
    if let Ok(v) = load_dump(&p) {
        let mut ks = Keyspace::new();
        ks.set(b"k".to_vec(), v);
        let profile = Profile::from_name("redis-8.0").unwrap();
        for c in COMMANDS {
            let _ = execute_as(&mut ks, profile, c);
        }
    }
});
