//! The keyspace: key bytes to typed values, one Redis database. Values of types bitlens does
//! not interpret (modules) are kept as [`Value::Other`] so that TYPE, EXISTS, KEYS and
//! WRONGTYPE errors still answer as Redis does.

use std::collections::HashMap;

use crate::hash::Hash;
use crate::list::List;
use crate::set::Set;
use crate::stream::Stream;
use crate::string::RedisString;
use crate::zset::ZSet;

/// A Redis data type, as the TYPE command names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedisType {
    String,
    List,
    Set,
    ZSet,
    Hash,
    Stream,
    /// A module value; TYPE prints the module's 9-character type name, which we keep.
    Module([u8; 9]),
}

impl RedisType {
    /// The name TYPE replies with (`string`, `list`, `set`, `zset`, `hash`, `stream`, module name).
    pub fn name(&self) -> String {
        match self {
            RedisType::String => "string".into(),
            RedisType::List => "list".into(),
            RedisType::Set => "set".into(),
            RedisType::ZSet => "zset".into(),
            RedisType::Hash => "hash".into(),
            RedisType::Stream => "stream".into(),
            RedisType::Module(n) => String::from_utf8_lossy(n).into_owned(),
        }
    }
}

/// A value stored under a key.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A string (bitmaps and HyperLogLogs are strings).
    String(RedisString),
    /// A sorted set (GEO keys are sorted sets).
    ZSet(ZSet),
    /// A list (quicklist nodes kept encoded).
    List(List),
    /// A set (intset, listpack or hashtable).
    Set(Set),
    /// A hash, with optional per-field expiry.
    Hash(Hash),
    /// A stream.
    Stream(Box<Stream>),
    /// A value of a type bitlens does not interpret (modules); only its type is kept.
    Other(RedisType),
}

impl Value {
    /// The Redis type of this value.
    pub fn redis_type(&self) -> RedisType {
        match self {
            Value::String(_) => RedisType::String,
            Value::ZSet(_) => RedisType::ZSet,
            Value::List(_) => RedisType::List,
            Value::Set(_) => RedisType::Set,
            Value::Hash(_) => RedisType::Hash,
            Value::Stream(_) => RedisType::Stream,
            Value::Other(t) => *t,
        }
    }
}

/// One key's value and its absolute expiry (Unix time in milliseconds), if any.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub value: Value,
    pub expire_at_ms: Option<i64>,
}

/// One Redis database: key bytes to [`Entry`]. Expiry times are kept but not enforced: a
/// snapshot is answered as it was when taken.
#[derive(Debug, Clone, Default)]
pub struct Keyspace {
    entries: HashMap<Vec<u8>, Entry>,
}

impl Keyspace {
    /// An empty keyspace.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of keys (DBSIZE).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there are no keys.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The value under `key`.
    pub fn get(&self, key: &[u8]) -> Option<&Value> {
        self.entries.get(key).map(|e| &e.value)
    }

    /// Mutable access to the value under `key`.
    pub fn get_mut(&mut self, key: &[u8]) -> Option<&mut Value> {
        self.entries.get_mut(key).map(|e| &mut e.value)
    }

    /// The entry (value and expiry) under `key`.
    pub fn entry(&self, key: &[u8]) -> Option<&Entry> {
        self.entries.get(key)
    }

    /// Stores `value` under `key` with no expiry, replacing any previous value (as SET does).
    pub fn set(&mut self, key: Vec<u8>, value: Value) {
        self.entries.insert(
            key,
            Entry {
                value,
                expire_at_ms: None,
            },
        );
    }

    /// Stores `value` under `key` with an optional absolute expiry in Unix milliseconds.
    pub fn insert(&mut self, key: Vec<u8>, value: Value, expire_at_ms: Option<i64>) {
        self.entries.insert(
            key,
            Entry {
                value,
                expire_at_ms,
            },
        );
    }

    /// Removes `key`; returns whether it existed.
    pub fn remove(&mut self, key: &[u8]) -> bool {
        self.entries.remove(key).is_some()
    }

    /// Iterates over all keys and entries, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &Entry)> {
        self.entries.iter().map(|(k, e)| (k.as_slice(), e))
    }

    /// Removes every key.
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}
