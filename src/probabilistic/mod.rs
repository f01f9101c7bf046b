//! Probabilistic module values (RedisBloom 2.8: `MBbloom--`, `MBbloomCF`, `CMSk-TYPE`, `TopK-TYPE`,
//! `TDIS-TYPE`) decoded from `RDB_TYPE_MODULE_2` values.
//!
//! A module value in an RDB file is its 64-bit module id (54 bits of 9-character type name,
//! 10 bits of encoding version) followed by opcode-tagged fields written by the module's
//! `rdb_save`: `2` unsigned / `1` signed integer (RDB length encoding), `3` float (4 bytes),
//! `4` double (8 bytes, little-endian IEEE 754), `5` string buffer, ended by opcode `0`. The
//! fields are read into [`Field`]s with their byte offsets; each type's module then
//! interprets the sequence in the order RedisBloom writes it (see the per-type headers).

pub mod bloom;
pub mod cms;
pub mod cuckoo;
pub mod summary;
pub mod tdigest;
pub mod topk;

pub use crate::module_fields::{Field, FieldError, Fields, StringKind};
pub use summary::{summary, Figure, Figures, Summary};

/// The largest structure (bit array, bucket or counter array) a write command builds, in
/// bytes: 256 MiB. RedisBloom allocates whatever is asked (lazily, so a reserve of 10^14
/// entries answers OK on the server); bitlens refuses a larger one with
/// [`too_large`]'s error instead of exhausting memory, notably in wasm.
pub const MAX_ALLOC_BYTES: u64 = 256 << 20;

/// The error reply for a structure of `bytes` past [`MAX_ALLOC_BYTES`] (bitlens' own text,
/// the module has none).
pub fn too_large(bytes: u64) -> crate::reply::Reply {
    crate::reply::Reply::err(format!(
        "ERR bitlens: a structure of {bytes} bytes exceeds the in-memory limit of {MAX_ALLOC_BYTES} bytes"
    ))
}

/// A decoded module value: the module id and either a typed structure or the raw fields.
#[derive(Debug, Clone, PartialEq)]
pub struct ModuleValue {
    /// The module type's 9-character name (what TYPE replies).
    pub name: [u8; 9],
    /// The module's encoding version (low 10 bits of the module id).
    pub encver: u32,
    /// The typed structure.
    pub data: ModuleData,
}

/// The interpreted content of a module value.
#[derive(Debug, Clone, PartialEq)]
pub enum ModuleData {
    /// A scalable Bloom filter (`MBbloom--`).
    Bloom(bloom::Bloom),
    /// A Cuckoo filter (`MBbloomCF`).
    Cuckoo(cuckoo::Cuckoo),
    /// A Count-Min sketch (`CMSk-TYPE`).
    Cms(cms::Cms),
    /// A t-digest (`TDIS-TYPE`).
    TDigest(tdigest::TDigest),
    /// A Top-K (`TopK-TYPE`).
    TopK(topk::TopK),
    /// A Redis 8 vector set (`vectorset`, encoding version 0), see [`crate::vectorset`].
    VectorSet(Box<crate::vectorset::VectorSet>),
    /// A type (or encoding version) not interpreted yet: the raw fields in order.
    Raw(Vec<Field>),
}

impl ModuleData {
    /// The Bloom filter, if this is one.
    pub fn bloom_mut(&mut self) -> Option<&mut bloom::Bloom> {
        match self {
            ModuleData::Bloom(b) => Some(b),
            _ => None,
        }
    }

    /// The Cuckoo filter, if this is one.
    pub fn cuckoo_mut(&mut self) -> Option<&mut cuckoo::Cuckoo> {
        match self {
            ModuleData::Cuckoo(c) => Some(c),
            _ => None,
        }
    }

    /// The Count-Min sketch, if this is one.
    pub fn cms_mut(&mut self) -> Option<&mut cms::Cms> {
        match self {
            ModuleData::Cms(c) => Some(c),
            _ => None,
        }
    }

    /// The Top-K, if this is one.
    pub fn topk_mut(&mut self) -> Option<&mut topk::TopK> {
        match self {
            ModuleData::TopK(t) => Some(t),
            _ => None,
        }
    }

    /// The t-digest, if this is one.
    pub fn tdigest_mut(&mut self) -> Option<&mut tdigest::TDigest> {
        match self {
            ModuleData::TDigest(t) => Some(t),
            _ => None,
        }
    }
}

/// Interprets the fields of module type `name` at encoding version `encver`: a typed value
/// for the RedisBloom types and versions known here and Redis 8 vector sets (`vectorset`
/// version 0), the raw fields otherwise; `None` for a module that is neither (the caller
/// keeps only its type).
pub fn decode(
    name: [u8; 9],
    encver: u32,
    items: Vec<(usize, Field)>,
    end: usize,
) -> Result<Option<ModuleValue>, FieldError> {
    decode_with_kinds(name, encver, items, &[], end)
}

/// [`decode`] knowing how each field's string was stored (`kinds[i]` for field `i`), which
/// vector sets keep to price their strings as the loading server allocates them.
pub fn decode_with_kinds(
    name: [u8; 9],
    encver: u32,
    items: Vec<(usize, Field)>,
    kinds: &[StringKind],
    end: usize,
) -> Result<Option<ModuleValue>, FieldError> {
    let data =
        match &name {
            b"MBbloom--" if encver <= bloom::MAX_ENCVER => ModuleData::Bloom(bloom::Bloom::decode(
                Fields::new(&items, end, "Bloom filter"),
                encver,
            )?),
            b"MBbloomCF" if encver == 4 => ModuleData::Cuckoo(cuckoo::Cuckoo::decode(
                Fields::new(&items, end, "Cuckoo filter"),
            )?),
            b"CMSk-TYPE" if encver == 0 => ModuleData::Cms(cms::Cms::decode(Fields::new(
                &items,
                end,
                "Count-Min sketch",
            ))?),
            b"TDIS-TYPE" if encver == 0 => ModuleData::TDigest(tdigest::TDigest::decode(
                Fields::new(&items, end, "t-digest"),
            )?),
            b"TopK-TYPE" if encver == 0 => {
                ModuleData::TopK(topk::TopK::decode(Fields::new(&items, end, "Top-K"))?)
            }
            b"vectorset" if encver == crate::vectorset::ENCVER => {
                ModuleData::VectorSet(Box::new(crate::vectorset::VectorSet::decode(
                    Fields::new(&items, end, "vector set").with_kinds(kinds),
                )?))
            }
            b"MBbloom--" | b"CMSk-TYPE" | b"TopK-TYPE" | b"MBbloomCF" | b"TDIS-TYPE" => {
                ModuleData::Raw(items.into_iter().map(|(_, f)| f).collect())
            }
            _ => return Ok(None),
        };
    Ok(Some(ModuleValue { name, encver, data }))
}

/// MurmurHash2 (Austin Appleby's 32-bit hash), the hash RedisBloom's Count-Min, Top-K and
/// 32-bit Bloom filters use: `m = 0x5bd1e995`, `r = 24`, words read little-endian, the
/// length folded into the seed as a 32-bit value.
pub fn murmur2(data: &[u8], seed: u32) -> u32 {
    const M: u32 = 0x5bd1_e995;
    let mut h = seed ^ (data.len() as u32);
    let mut words = data.chunks_exact(4);
    for w in &mut words {
        let mut k = u32::from_le_bytes(w.try_into().expect("4-byte chunk"));
        k = k.wrapping_mul(M);
        k ^= k >> 24;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M) ^ k;
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        for (i, b) in tail.iter().enumerate() {
            h ^= (*b as u32) << (8 * i);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^ (h >> 15)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::execute_as;
    use crate::dialect::Profile;
    use crate::keyspace::Value;
    use crate::rdb::{load_rdb, LoadOptions};

    /// Written by Redis 7.4.1 + RedisBloom 2.8.2 (see the folder's README).
    const DUMP: &[u8] = include_bytes!("../../tests/data/conformance/redis-7.4.1-bloom/dump.rdb");

    #[test]
    fn raw_fields_compare_by_bits() {
        // The fuzzer's case: a raw module value holding a NaN double decoded twice.
        assert_eq!(Field::Double(f64::NAN), Field::Double(f64::NAN));
        assert_eq!(Field::Float(f32::NAN), Field::Float(f32::NAN));
        assert_ne!(Field::Double(0.0), Field::Double(-0.0));
        assert_ne!(Field::Signed(1), Field::Unsigned(1));
    }

    fn module<'a>(ks: &'a crate::keyspace::Keyspace, key: &str) -> &'a ModuleValue {
        match ks.get(key.as_bytes()) {
            Some(Value::Module(m)) => m,
            other => panic!("{key}: {other:?}"),
        }
    }

    #[test]
    fn the_recorded_file_decodes_into_typed_values() {
        let snap = load_rdb(DUMP, &LoadOptions::default()).unwrap();
        let ks = &snap.databases[&0];
        let m = module(ks, "bf:scaling");
        assert_eq!((&m.name, m.encver), (b"MBbloom--", 4));
        let ModuleData::Bloom(b) = &m.data else {
            panic!()
        };
        // Recorded BF.INFO: capacity 350 in 3 filters, 299 items, size 1016.
        assert_eq!(
            (b.links.len(), b.capacity(), b.size, b.memory()),
            (3, 350, 299, 1016)
        );
        assert!(b.options & bloom::OPT_FORCE64 != 0 && b.scaling());
        assert_eq!(b.links.iter().map(|l| l.size).sum::<u64>(), 299);
        assert!(b.contains(b"user7") && !b.contains(b"nope"));
        let ModuleData::Cuckoo(c) = &module(ks, "cf:small").data else {
            panic!()
        };
        assert_eq!(
            (c.filters.len(), c.buckets, c.items, c.bucket_size),
            (2, 32, 41, 2)
        );
        assert_eq!((c.count(b"c1"), c.count(b"nope")), (2, 0));
        let ModuleData::Cms(s) = &module(ks, "cms:dim").data else {
            panic!()
        };
        assert_eq!((s.width, s.depth, s.count), (200, 5, 666));
        assert_eq!((s.query(b"w1"), s.query(b"w5")), (16, 11));
        let ModuleData::TopK(t) = &module(ks, "topk:k5").data else {
            panic!()
        };
        assert_eq!((t.k, t.width, t.depth, t.decay), (5, 50, 4, 0.9));
        let listed: Vec<&[u8]> = t.list().iter().map(|h| h.item.as_slice()).collect();
        assert_eq!(listed, [&b"w1"[..], b"w2", b"w3", b"w5", b"w4"]);
        assert_eq!(t.count(b"w1"), 280);
        let ModuleData::TDigest(d) = &module(ks, "td:small").data else {
            panic!()
        };
        assert_eq!(
            (d.means.len(), d.merged_weight, d.min, d.max),
            (6, 6, 1.0, 10.0)
        );
        assert_eq!(d.cdf(5.0), 0.75);
        // A module that is not RedisBloom keeps only its type.
        assert_eq!(decode(*b"ReJSON-RL", 3, vec![], 0), Ok(None));
    }

    /// The recorded file's deterministic values, rebuilt by bitlens' write commands from the
    /// recording script's own command sequence, equal the values the module saved.
    #[test]
    fn write_commands_rebuild_the_recorded_values() {
        let snap = load_rdb(DUMP, &LoadOptions::default()).unwrap();
        let mut ks = snap.databases[&0].clone();
        let p = Profile::from_name("redis-7.4").unwrap();
        let mut run = |argv: Vec<String>| {
            let a: Vec<&str> = argv.iter().map(|s| s.as_str()).collect();
            execute_as(&mut ks, p, &a)
        };
        let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        use crate::reply::Reply;
        assert_eq!(
            run(v(&["BF.RESERVE", "n:bf:small", "0.01", "100"])),
            Reply::ok()
        );
        let mut madd = v(&["BF.MADD", "n:bf:small"]);
        madd.extend((0..50).map(|i| format!("item{i}")));
        assert_eq!(run(madd), Reply::Array(vec![Reply::Integer(1); 50]));
        assert_eq!(
            run(v(&[
                "BF.RESERVE",
                "n:bf:scaling",
                "0.001",
                "50",
                "EXPANSION",
                "2"
            ])),
            Reply::ok()
        );
        let mut madd = v(&["BF.MADD", "n:bf:scaling"]);
        madd.extend((0..300).map(|i| format!("user{i}")));
        let Reply::Array(added) = run(madd) else {
            panic!()
        };
        // Recorded BF.CARD 299: one of the 300 was a false positive.
        assert_eq!(
            added.iter().filter(|r| **r == Reply::Integer(1)).count(),
            299
        );
        assert_eq!(
            run(v(&["BF.ADD", "n:bf:default", "only"])),
            Reply::Integer(1)
        );
        assert_eq!(run(v(&["CF.RESERVE", "n:cf:small", "64"])), Reply::ok());
        for i in 0..40 {
            assert_eq!(
                run(vec![
                    "CF.ADD".into(),
                    "n:cf:small".into(),
                    format!("c{}", i % 30)
                ]),
                Reply::Integer(1)
            );
        }
        assert_eq!(
            run(v(&["CF.ADDNX", "n:cf:small", "unique"])),
            Reply::Integer(1)
        );
        assert_eq!(
            run(v(&["CMS.INITBYPROB", "n:cms:prob", "0.001", "0.01"])),
            Reply::ok()
        );
        assert_eq!(
            run(v(&["CMS.INCRBY", "n:cms:prob", "a", "5", "b", "7"])),
            Reply::Array(vec![Reply::Integer(5), Reply::Integer(7)])
        );
        assert_eq!(run(v(&["TDIGEST.CREATE", "n:td:small"])), Reply::ok());
        assert_eq!(
            run(v(&[
                "TDIGEST.ADD",
                "n:td:small",
                "1",
                "2",
                "3",
                "4",
                "5",
                "10"
            ])),
            Reply::ok()
        );
        assert_eq!(run(v(&["TDIGEST.CREATE", "n:td:empty"])), Reply::ok());
        // The module compresses before saving; a CDF compresses too.
        assert_eq!(
            run(v(&["TDIGEST.CDF", "n:td:small", "5"])),
            Reply::Array(vec![Reply::Bulk(b"0.75".to_vec())])
        );
        let keys = [
            "bf:small",
            "bf:scaling",
            "bf:default",
            "cf:small",
            "cms:prob",
            "td:small",
            "td:empty",
        ];
        for k in keys {
            assert_eq!(
                ks.get(format!("n:{k}").as_bytes()),
                ks.get(k.as_bytes()),
                "{k}"
            );
        }
    }

    #[test]
    fn bad_field_sequences_are_offset_errors() {
        let f = |v: Vec<Field>| {
            v.into_iter()
                .enumerate()
                .map(|(i, f)| (100 + i, f))
                .collect()
        };
        // A chain declaring 2^40 links has too few fields: refused before allocating.
        let e = decode(
            *b"MBbloom--",
            4,
            f(vec![
                Field::Unsigned(0),
                Field::Unsigned(1 << 40),
                Field::Unsigned(4),
                Field::Unsigned(2),
            ]),
            104,
        )
        .unwrap_err();
        assert!(e.message.contains("too few fields"), "{e:?}");
        assert_eq!(e.at, 104);
        // A Count-Min array shorter than width x depth.
        let e = decode(
            *b"CMSk-TYPE",
            0,
            f(vec![
                Field::Unsigned(4),
                Field::Unsigned(2),
                Field::Unsigned(0),
                Field::Buffer(vec![0; 31]),
            ]),
            104,
        )
        .unwrap_err();
        assert_eq!(e.at, 104, "{e:?}");
        // A double where an unsigned belongs.
        let e = decode(*b"TopK-TYPE", 0, f(vec![Field::Double(1.0)]), 101).unwrap_err();
        assert_eq!(e.at, 100, "{e:?}");
        // Truncated t-digest.
        let e = decode(*b"TDIS-TYPE", 0, f(vec![Field::Double(100.0)]), 101).unwrap_err();
        assert_eq!(e.at, 101, "{e:?}");
    }

    /// Byte flips and truncations of the recorded file: each load either fails with an error
    /// or gives values on which every module read command answers (never a panic).
    #[test]
    fn mutated_module_files_load_or_fail_and_never_panic_later() {
        let profile = Profile::from_name("redis-7.4").unwrap();
        let reads: &[&[&str]] = &[
            &["BF.MEXISTS", "K", "item1", "nope", ""],
            &["BF.INFO", "K"],
            &["CF.MEXISTS", "K", "c1", "nope"],
            &["CF.COUNT", "K", "c1"],
            &["CF.INFO", "K"],
            &["CMS.QUERY", "K", "w1", "a"],
            &["CMS.INFO", "K"],
            &["TOPK.LIST", "K", "WITHCOUNT"],
            &["TOPK.COUNT", "K", "w1", ""],
            &["TOPK.INFO", "K"],
            &["TDIGEST.QUANTILE", "K", "0", "0.5", "1", "0.2"],
            &["TDIGEST.CDF", "K", "0", "5", "1e300"],
            &["TDIGEST.RANK", "K", "5"],
            &["TDIGEST.BYREVRANK", "K", "0", "3", "1000"],
            &["TDIGEST.TRIMMED_MEAN", "K", "0.1", "0.9"],
            &["TDIGEST.INFO", "K"],
        ];
        crate::rdb::mutate::load_or_fail_then_read(
            DUMP,
            1500,
            0x2545_f491_4f6c_dd1d,
            reads,
            profile,
        );
    }
}
