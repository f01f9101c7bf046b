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
pub mod tdigest;
pub mod topk;

/// One opcode-tagged field of a module value, as `RedisModule_Save*` wrote it.
#[derive(Debug, Clone, PartialEq)]
pub enum Field {
    /// Opcode 1, `RedisModule_SaveSigned`.
    Signed(i64),
    /// Opcode 2, `RedisModule_SaveUnsigned`.
    Unsigned(u64),
    /// Opcode 3, `RedisModule_SaveFloat`.
    Float(f32),
    /// Opcode 4, `RedisModule_SaveDouble`.
    Double(f64),
    /// Opcode 5, `RedisModule_SaveStringBuffer`.
    Buffer(Vec<u8>),
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
    /// A type (or encoding version) not interpreted yet: the raw fields in order.
    Raw(Vec<Field>),
}

/// A decoding failure at the byte offset (within the cursor's input) of the field at fault.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldError {
    pub at: usize,
    pub message: String,
}

/// Sequential reader over `(offset, field)` pairs, for the per-type decoders.
pub struct Fields<'a> {
    items: &'a [(usize, Field)],
    next: usize,
    end: usize,
    what: &'static str,
}

impl<'a> Fields<'a> {
    /// A reader over the fields of a `what` value; `end` is the offset after the last field.
    pub fn new(items: &'a [(usize, Field)], end: usize, what: &'static str) -> Self {
        Fields {
            items,
            next: 0,
            end,
            what,
        }
    }

    /// Fields not read yet.
    pub fn remaining(&self) -> usize {
        self.items.len() - self.next
    }

    fn at(&self) -> usize {
        self.items.get(self.next).map_or(self.end, |(a, _)| *a)
    }

    /// An error at the current field.
    pub fn err(&self, message: impl std::fmt::Display) -> FieldError {
        FieldError {
            at: self.at(),
            message: format!("{} {}", self.what, message),
        }
    }

    fn take(&mut self, name: &str, kind: &str) -> Result<&'a Field, FieldError> {
        match self.items.get(self.next) {
            Some((_, f)) => {
                self.next += 1;
                Ok(f)
            }
            None => Err(self.err(format!("ends before its {name} ({kind})"))),
        }
    }

    /// The next field, which must be an unsigned (or non-negative signed) integer.
    pub fn unsigned(&mut self, name: &str) -> Result<u64, FieldError> {
        let at = self.next;
        match self.take(name, "unsigned")? {
            Field::Unsigned(v) => Ok(*v),
            Field::Signed(v) if *v >= 0 => Ok(*v as u64),
            other => {
                self.next = at;
                Err(self.err(format!(
                    "{name}: expected an unsigned integer, got {other:?}"
                )))
            }
        }
    }

    /// The next field, which must be a signed (or unsigned, below 2^63) integer.
    pub fn signed(&mut self, name: &str) -> Result<i64, FieldError> {
        let at = self.next;
        match self.take(name, "signed")? {
            Field::Signed(v) => Ok(*v),
            Field::Unsigned(v) if *v <= i64::MAX as u64 => Ok(*v as i64),
            other => {
                self.next = at;
                Err(self.err(format!("{name}: expected a signed integer, got {other:?}")))
            }
        }
    }

    /// The next field, which must be a double (a float is widened).
    pub fn double(&mut self, name: &str) -> Result<f64, FieldError> {
        let at = self.next;
        match self.take(name, "double")? {
            Field::Double(v) => Ok(*v),
            Field::Float(v) => Ok(*v as f64),
            other => {
                self.next = at;
                Err(self.err(format!("{name}: expected a double, got {other:?}")))
            }
        }
    }

    /// The next field, which must be a string buffer.
    pub fn buffer(&mut self, name: &str) -> Result<&'a [u8], FieldError> {
        let at = self.next;
        match self.take(name, "buffer")? {
            Field::Buffer(b) => Ok(b),
            other => {
                self.next = at;
                Err(self.err(format!("{name}: expected a string buffer, got {other:?}")))
            }
        }
    }

    /// Fails unless every field was read.
    pub fn finish(self) -> Result<(), FieldError> {
        if self.remaining() == 0 {
            Ok(())
        } else {
            Err(self.err(format!(
                "has {} unexpected trailing field(s)",
                self.remaining()
            )))
        }
    }
}

/// Interprets the fields of module type `name` at encoding version `encver`: a typed value
/// for the RedisBloom types and versions known here, the raw fields otherwise; `None` for a
/// module that is not a RedisBloom type (the caller keeps only its type).
pub fn decode(
    name: [u8; 9],
    encver: u32,
    items: Vec<(usize, Field)>,
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
