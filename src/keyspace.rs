//! The keyspace: key bytes to typed values, one Redis database. Values of types bitlens does
//! not interpret (modules) are kept as [`Value::Other`] so that TYPE, EXISTS, KEYS and
//! WRONGTYPE errors still answer as Redis does.
//!
//! Expiry: a keyspace may carry a clock ([`Keyspace::set_clock`], Unix milliseconds). At that
//! clock a key whose expiry is past (`clock > expire_at_ms`, as Redis' `keyIsExpired`) is
//! invisible to every lookup and iteration ([`Keyspace::get`], [`Keyspace::iter`],
//! [`Keyspace::len`], ...), exactly as Redis hides it; [`Keyspace::iter_all`] and
//! [`Keyspace::entry_any`] still see it (for reports and writers). Without a clock nothing
//! expires. Hash fields with their own expiry ask [`Keyspace::is_past`].

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
    /// `string`.
    String,
    /// `list`.
    List,
    /// `set`.
    Set,
    /// `zset`.
    ZSet,
    /// `hash`.
    Hash,
    /// `stream`.
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
    /// A list (quicklist nodes kept encoded). Boxed, as [`Value::Set`] and [`Value::Hash`]
    /// are: every key's table slot holds a `Value`, so the rare large variants live behind a
    /// pointer and the slot stays the size of a string's (a 1M-key table is 40 % smaller).
    List(Box<List>),
    /// A set (intset, listpack or hashtable).
    Set(Box<Set>),
    /// A hash, with optional per-field expiry.
    Hash(Box<Hash>),
    /// A stream.
    Stream(Box<Stream>),
    /// A RedisBloom module value (Bloom, Count-Min, Top-K, ...), see [`crate::probabilistic`].
    Module(Box<crate::probabilistic::ModuleValue>),
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
            Value::Module(m) => RedisType::Module(m.name),
            Value::Other(t) => *t,
        }
    }
}

/// One key's value and its absolute expiry (Unix time in milliseconds), if any.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The value.
    pub value: Value,
    /// Absolute expiry, Unix ms; `None` when the key does not expire.
    pub expire_at_ms: Option<i64>,
}

/// One Redis database: key bytes to [`Entry`], seen at an optional clock (see the module
/// header).
#[derive(Debug, Clone, Default)]
pub struct Keyspace {
    /// foldhash (seeded per keyspace, DoS-resistant as its `quality` variant documents) in
    /// place of SipHash-1-3: about 220 instructions of a single-key command went to hashing
    /// the key (callgrind, `bitlens-bench run` of PFCOUNT and GETBIT).
    entries: HashMap<Vec<u8>, Entry, foldhash::quality::RandomState>,
    /// The clock expiry is judged at (Unix ms); `None`: nothing expires.
    clock_ms: Option<i64>,
    /// How many entries carry an expiry (0: no lookup needs the clock).
    expiring: usize,
    /// A RedisBloom value was stored here: the module was loaded on the writer, so its
    /// commands exist (sticky, as a loaded module stays loaded when its keys are deleted).
    module_values: bool,
}

/// The wall clock the engine reads when no clock is set: `None` until [`set_wall_clock`].
static WALL_CLOCK: std::sync::OnceLock<fn() -> i64> = std::sync::OnceLock::new();

/// Sets the engine's wall clock (Unix milliseconds) for targets whose standard library has
/// none: wasm32-unknown-unknown, where the wasm glue hands it `Date.now()`. The first call
/// wins; natively the system clock is used unless one is set.
pub fn set_wall_clock(now_ms: fn() -> i64) {
    let _ = WALL_CLOCK.set(now_ms);
}

/// The current wall-clock time in Unix milliseconds: the clock [`set_wall_clock`] set, else
/// the system's (0 on a target without one, such as wasm32 before the glue sets it).
pub fn wall_clock_ms() -> i64 {
    if let Some(f) = WALL_CLOCK.get() {
        return f();
    }
    #[cfg(target_arch = "wasm32")]
    {
        0
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64)
    }
}

impl Entry {
    /// True when this entry's expiry is past at `clock_ms` (Redis: `now > when`).
    /// A hash whose every field has expired at the clock is gone too (Redis 7.4 and Valkey 9
    /// delete a hash with its last field; recorded `hash:fe:allgone` on 7.4.1 and 9.1.2).
    pub fn expired_at(&self, clock_ms: Option<i64>) -> bool {
        match (self.expire_at_ms, clock_ms) {
            (Some(when), Some(now)) if now > when => true,
            (_, Some(_)) => {
                matches!(&self.value, Value::Hash(h) if h.has_field_expiry() && h.is_empty(clock_ms))
            }
            _ => false,
        }
    }

    /// True when this entry can expire: a key expiry or a hash field with its own.
    fn may_expire(&self) -> bool {
        self.expire_at_ms.is_some() || matches!(&self.value, Value::Hash(h) if h.has_field_expiry())
    }
}

impl Keyspace {
    /// An empty keyspace.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty keyspace with room for `keys` keys before its table grows (a loader sizing it
    /// from the file's RESIZEDB record, bounded by the input's size).
    pub fn with_capacity(keys: u64) -> Self {
        let mut ks = Self::default();
        ks.entries.reserve(keys.min(usize::MAX as u64) as usize);
        ks
    }

    /// How many keys the keyspace holds room for before its table grows.
    pub fn capacity(&self) -> usize {
        self.entries.capacity()
    }

    /// Sets the clock expiry is judged at (Unix ms; `None`: nothing expires).
    pub fn set_clock(&mut self, clock_ms: Option<i64>) {
        self.clock_ms = clock_ms;
    }

    /// The clock expiry is judged at, if any.
    pub fn clock(&self) -> Option<i64> {
        self.clock_ms
    }

    /// True when an absolute expiry (Unix ms; a key's or a hash field's) is past at this
    /// keyspace's clock (Redis: `now > when`); always false without a clock.
    pub fn is_past(&self, expire_at_ms: i64) -> bool {
        self.clock_ms.is_some_and(|now| now > expire_at_ms)
    }

    fn alive(&self, e: &Entry) -> bool {
        self.expiring == 0 || !e.expired_at(self.clock_ms)
    }

    /// Number of keys alive at the clock (DBSIZE).
    pub fn len(&self) -> usize {
        if self.expiring == 0 || self.clock_ms.is_none() {
            return self.entries.len();
        }
        self.entries.values().filter(|e| self.alive(e)).count()
    }

    /// True when no key is alive at the clock.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value under `key` (`None` when missing or expired at the clock).
    pub fn get(&self, key: &[u8]) -> Option<&Value> {
        self.entry(key).map(|e| &e.value)
    }

    /// Mutable access to the value under `key` (`None` when missing or expired).
    pub fn get_mut(&mut self, key: &[u8]) -> Option<&mut Value> {
        let clock = self.clock_ms;
        self.entries
            .get_mut(key)
            .filter(|e| !e.expired_at(clock))
            .map(|e| &mut e.value)
    }

    /// The entry (value and expiry) under `key`, `None` when missing or expired.
    pub fn entry(&self, key: &[u8]) -> Option<&Entry> {
        self.entries.get(key).filter(|e| self.alive(e))
    }

    /// The entry under `key` even when expired at the clock (reports, writers).
    pub fn entry_any(&self, key: &[u8]) -> Option<&Entry> {
        self.entries.get(key)
    }

    /// Every key including those expired at the clock, in no particular order.
    pub fn iter_all(&self) -> impl Iterator<Item = (&[u8], &Entry)> {
        self.entries.iter().map(|(k, e)| (k.as_slice(), e))
    }

    /// How many keys are kept but already expired at the clock.
    pub fn expired_count(&self) -> usize {
        self.entries.len() - self.len()
    }

    /// Stores `value` under `key` with no expiry, replacing any previous value (as SET does).
    pub fn set(&mut self, key: Vec<u8>, value: Value) {
        self.insert(key, value, None);
    }

    /// Stores `value` under `key` with an optional absolute expiry in Unix milliseconds.
    pub fn insert(&mut self, key: Vec<u8>, value: Value, expire_at_ms: Option<i64>) {
        let entry = Entry {
            value,
            expire_at_ms,
        };
        self.expiring += entry.may_expire() as usize;
        self.module_values |= matches!(entry.value, Value::Module(_));
        let old = self.entries.insert(key, entry);
        if old.is_some_and(|o| o.may_expire()) {
            self.expiring -= 1;
        }
    }

    /// Stores `value` under `key` (as [`Keyspace::insert`]) only when `key` is not there at
    /// all, alive or expired; otherwise leaves the keyspace unchanged and gives `key` back.
    /// One hash and probe of the table (a loader's duplicate check and insert in one).
    pub fn insert_new(
        &mut self,
        key: Vec<u8>,
        value: Value,
        expire_at_ms: Option<i64>,
    ) -> Result<(), Vec<u8>> {
        match self.entries.entry(key) {
            std::collections::hash_map::Entry::Occupied(o) => Err(o.key().clone()),
            std::collections::hash_map::Entry::Vacant(slot) => {
                let entry = Entry {
                    value,
                    expire_at_ms,
                };
                self.expiring += entry.may_expire() as usize;
                self.module_values |= matches!(entry.value, Value::Module(_));
                slot.insert(entry);
                Ok(())
            }
        }
    }

    /// Removes `key`; returns whether it existed alive at the clock (an expired key is
    /// removed too, and counts as absent, as Redis' DEL).
    pub fn remove(&mut self, key: &[u8]) -> bool {
        let clock = self.clock_ms;
        match self.entries.remove(key) {
            Some(e) => {
                self.expiring -= e.may_expire() as usize;
                !e.expired_at(clock)
            }
            None => false,
        }
    }

    /// Iterates over the keys alive at the clock, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &Entry)> {
        self.entries
            .iter()
            .filter(|(_, e)| self.alive(e))
            .map(|(k, e)| (k.as_slice(), e))
    }

    /// Room for `additional` more keys before the table grows (a union of files sized once).
    pub fn reserve(&mut self, additional: usize) {
        self.entries.reserve(additional);
    }

    /// Removes and yields every key with its entry, expired ones included, in no particular
    /// order; the keyspace is empty afterwards (its clock stays).
    pub fn drain(&mut self) -> impl Iterator<Item = (Vec<u8>, Entry)> + '_ {
        self.expiring = 0;
        self.module_values = false;
        self.entries.drain()
    }

    /// Removes every key.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.expiring = 0;
        self.module_values = false;
    }

    /// True once a RedisBloom module value (Bloom, Cuckoo, Count-Min, Top-K, t-digest) has
    /// been stored here: the snapshot's writer had the module, so its commands exist.
    pub fn holds_module_values(&self) -> bool {
        self.module_values
    }
}
