//! The opcode-tagged fields of an RDB module value (`RDB_TYPE_MODULE_2`), as a module's
//! `rdb_save` writes them through `RedisModule_Save*`: `2` unsigned / `1` signed integer (RDB
//! length encoding), `3` float (4 bytes), `4` double (8 bytes, little-endian IEEE 754), `5`
//! string buffer, ended by opcode `0`. [`Field`] is one of them with its byte offset;
//! [`Fields`] reads a value's fields in order for a type's decoder (RedisBloom's in
//! [`crate::probabilistic`], Redis 8's vector sets in [`crate::vectorset`]), each failure a
//! [`FieldError`] at the offending field's offset.

/// One opcode-tagged field of a module value, as `RedisModule_Save*` wrote it.
///
/// Two fields are equal when they hold the same bytes: floats compare by their bits, so a
/// NaN a module saved equals itself (a raw field is a record, not a number).
#[derive(Debug, Clone)]
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

impl PartialEq for Field {
    fn eq(&self, other: &Field) -> bool {
        match (self, other) {
            (Field::Signed(a), Field::Signed(b)) => a == b,
            (Field::Unsigned(a), Field::Unsigned(b)) => a == b,
            (Field::Float(a), Field::Float(b)) => a.to_bits() == b.to_bits(),
            (Field::Double(a), Field::Double(b)) => a.to_bits() == b.to_bits(),
            (Field::Buffer(a), Field::Buffer(b)) => a == b,
            _ => false,
        }
    }
}

/// A decoding failure at the byte offset (within the cursor's input) of the field at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// Byte offset of the field, within the cursor's input.
    pub at: usize,
    /// What is wrong with it.
    pub message: String,
}

/// Sequential reader over `(offset, field)` pairs, for the per-type decoders.
pub struct Fields<'a> {
    items: &'a [(usize, Field)],
    next: usize,
    end: usize,
    what: &'static str,
    kinds: &'a [StringKind],
}

/// How a string field was stored in the input (what decides how a loading server allocates
/// it: an integer or LZF string becomes a raw string object, a plain one up to 44 bytes an
/// embedded one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StringKind {
    /// A plain length-prefixed string (or not a string field).
    #[default]
    Plain,
    /// An integer encoding (`RDB_ENC_INT8/16/32`).
    Int,
    /// An LZF-compressed string.
    Lzf,
}

impl<'a> Fields<'a> {
    /// A reader over the fields of a `what` value; `end` is the offset after the last field.
    pub fn new(items: &'a [(usize, Field)], end: usize, what: &'static str) -> Self {
        Fields {
            items,
            next: 0,
            end,
            what,
            kinds: &[],
        }
    }

    /// The same reader knowing how each field's string was stored (`kinds[i]` for field `i`;
    /// fields past its end are [`StringKind::Plain`]).
    pub fn with_kinds(self, kinds: &'a [StringKind]) -> Self {
        Fields { kinds, ..self }
    }

    /// How the field read last was stored.
    pub fn last_kind(&self) -> StringKind {
        self.next
            .checked_sub(1)
            .and_then(|i| self.kinds.get(i))
            .copied()
            .unwrap_or_default()
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
