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
        self.name_str().into_owned()
    }

    /// [`RedisType::name`] without an allocation for the built-in types.
    pub fn name_str(&self) -> std::borrow::Cow<'_, str> {
        match self {
            RedisType::String => "string".into(),
            RedisType::List => "list".into(),
            RedisType::Set => "set".into(),
            RedisType::ZSet => "zset".into(),
            RedisType::Hash => "hash".into(),
            RedisType::Stream => "stream".into(),
            RedisType::Module(n) => String::from_utf8_lossy(n),
        }
    }
}

/// A value stored under a key.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A string (bitmaps and HyperLogLogs are strings).
    String(RedisString),
    /// A sorted set (GEO keys are sorted sets). One pointer: every key's table slot holds a
    /// `Value` of 16 bytes (a tag and one pointer, or a string of at most
    /// [`crate::string::INLINE_BYTES`] inline), so every other variant is one pointer. A
    /// loaded set kept as its listpack or ziplist points at the blob until its first read
    /// (see [`ZSet::into_value`]); it dereferences to the [`ZSet`].
    ZSet(crate::thin::Lazy<ZSet>),
    /// A list (quicklist nodes kept encoded). One pointer, as [`Value::ZSet`]: a loaded list
    /// of one listpack or ziplist node points at that blob until its first read (see
    /// [`List::into_value`]).
    List(crate::thin::Lazy<List>),
    /// A set (intset, listpack or hashtable): one thin pointer to its blob or table (a
    /// `Box<Set>` would cost every small set an allocation more; issue 31).
    Set(Set),
    /// A hash, with optional per-field expiry: one thin pointer, as [`Value::Set`].
    Hash(Hash),
    /// A stream.
    Stream(Box<Stream>),
    /// A RedisBloom module value (Bloom, Count-Min, Top-K, ...), see [`crate::probabilistic`].
    Module(Box<crate::probabilistic::ModuleValue>),
    /// A value of a type bitlens does not interpret (modules); only its type is kept.
    Other(RedisType),
}

// Every key's slot holds a `Value`: it stays the size of a string (see `Value::ZSet`).
const _: () = assert!(std::mem::size_of::<Value>() == 16);

impl Value {
    /// A sorted-set value.
    pub fn zset(z: ZSet) -> Value {
        Value::ZSet(z.into_value())
    }

    /// A list value.
    pub fn list(l: List) -> Value {
        Value::List(l.into_value())
    }

    /// True for a set, list, sorted set or hash holding nothing (no field or member at all,
    /// expired or not), as only a crafted or damaged snapshot stores one: Redis 6.2+ and
    /// Valkey skip such a record at load, 6.0 keeps it
    /// ([`crate::dialect::Profile::load_skips_empty_keys`]). Reads headers and lengths only:
    /// a sorted set or list kept as its blob is never empty, and is not built.
    pub fn is_empty_collection(&self) -> bool {
        match self {
            Value::Set(s) => s.is_empty(),
            Value::Hash(h) => h.stores_nothing(),
            Value::ZSet(z) => z.is_built() && z.is_empty(),
            Value::List(l) => l.is_built() && l.is_empty(),
            Value::String(_) | Value::Stream(_) | Value::Module(_) | Value::Other(_) => false,
        }
    }

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

/// A borrowed view of one key's entry: its value and its absolute expiry (Unix ms), as the
/// keyspace's lookups and iterations yield it (the expiry is not stored beside the value; see
/// [`Keyspace`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EntryRef<'a> {
    /// The value.
    pub value: &'a Value,
    /// Absolute expiry, Unix ms; `None` when the key does not expire.
    pub expire_at_ms: Option<i64>,
}

impl<'a> From<&'a Entry> for EntryRef<'a> {
    fn from(e: &'a Entry) -> Self {
        EntryRef {
            value: &e.value,
            expire_at_ms: e.expire_at_ms,
        }
    }
}

/// True when a key holding `value`, with the key expiry `expire_at_ms` (Unix ms), is gone at
/// `clock_ms` (`None`: nothing expires): its expiry is past (Redis: `now > when`), or it is a
/// hash whose every field has expired (Redis 7.4 and Valkey 9 delete a hash with its last
/// field; recorded `hash:fe:allgone` on 7.4.1 and 9.1.2). What DBSIZE leaves out.
pub fn gone_at(value: &Value, expire_at_ms: Option<i64>, clock_ms: Option<i64>) -> bool {
    match (expire_at_ms, clock_ms) {
        (Some(when), Some(now)) if now > when => true,
        (_, Some(_)) => {
            matches!(value, Value::Hash(h) if h.has_field_expiry() && h.is_empty(clock_ms))
        }
        _ => false,
    }
}

impl EntryRef<'_> {
    /// An owned copy of the entry (the value cloned).
    pub fn to_owned(self) -> Entry {
        Entry {
            value: self.value.clone(),
            expire_at_ms: self.expire_at_ms,
        }
    }
}

/// One Redis database: key bytes to [`Entry`], seen at an optional clock (see the module
/// header).
///
/// Layout (issue 31, read-mostly snapshots): the values sit in one dense vector of slots
/// (key reference + value, 24 bytes), the key bytes in a `KeyArena` of large
/// chunks (no heap allocation per key), and the hash index is a table of `u32` slot numbers
/// (one control byte and four bytes per bucket). A key's expiry, when it has one, is kept in
/// the key arena as the 8 bytes before its name; a flag in the slot's key reference says it
/// is there (8 bytes per expiring key, no side table). A key's removal moves the last slot into its place. A database holds at most
/// `u32::MAX` keys ([`InsertError::Full`]).
#[derive(Debug, Clone, Default)]
pub struct Keyspace {
    /// foldhash (seeded per keyspace, DoS-resistant as its `quality` variant documents) in
    /// place of SipHash-1-3: about 220 instructions of a single-key command went to hashing
    /// the key (callgrind, `bitlens-bench run` of PFCOUNT and GETBIT).
    hasher: foldhash::quality::RandomState,
    /// Slot numbers, hashed by their key's bytes.
    index: hashbrown::HashTable<u32>,
    /// Every key's slot, in no particular order.
    slots: Vec<Slot>,
    /// The key bytes the slots refer to, and their expiries.
    keys: KeyArena,
    /// The clock expiry is judged at (Unix ms); `None`: nothing expires.
    clock_ms: Option<i64>,
    /// How many entries carry an expiry (0: no lookup needs the clock).
    expiring: usize,
    /// A RedisBloom value was stored here: the module was loaded on the writer, so its
    /// commands exist (sticky, as a loaded module stays loaded when its keys are deleted).
    module_values: bool,
    /// What the file's RDB_OPCODE_IDLE / _FREQ records said of keys (written only by servers
    /// with an LRU or LFU `maxmemory-policy`); `None` when no key had one.
    access: Option<Box<AccessInfo>>,
}

/// Keys' LRU idle times and LFU counters as a snapshot recorded them
/// ([`Keyspace::set_access`]).
#[derive(Debug, Clone, Default)]
struct AccessInfo {
    /// Some key had an LFU counter: its writer ran an LFU policy.
    lfu: bool,
    /// Per key: (idle seconds, LFU counter).
    keys: std::collections::HashMap<Box<[u8]>, Access>,
}

/// A key's (LRU idle seconds, LFU counter) as RDB_OPCODE_IDLE / _FREQ recorded them.
type Access = (Option<u64>, Option<u8>);

/// One key: where its bytes are (and whether it has an expiry), and its value.
#[derive(Debug, Clone)]
struct Slot {
    key: KeyRef,
    value: Value,
}

/// What [`Keyspace::try_insert`] did not store: why, and the value handed back.
#[derive(Debug)]
pub struct Rejected {
    /// Why nothing was stored.
    pub why: InsertError,
    /// The value given.
    pub value: Value,
}

impl Rejected {
    fn full(value: Value) -> Self {
        Rejected {
            why: InsertError::Full,
            value,
        }
    }
}

/// Why [`Keyspace::insert_new`] stored nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InsertError {
    /// The key is already there (alive or expired).
    Duplicate,
    /// The database already holds `u32::MAX` keys (or its key arena `2^23` chunks).
    Full,
}

/// Where one key's bytes are in a [`KeyArena`], packed in 64 bits: a flag ([`KeyRef::EXPIRES`],
/// the key's expiry is the 8 bytes before it), chunk number (23 bits), start within the chunk
/// (20 bits) and length (20 bits; [`KeyRef::WHOLE`]: the key fills its own chunk from its
/// start, after its expiry if any, for keys of [`KeyArena::OWN_CHUNK`] bytes or more).
#[derive(Debug, Clone, Copy)]
struct KeyRef(u64);

impl KeyRef {
    const WHOLE: u64 = (1 << 20) - 1;
    /// Set when the key has an expiry.
    const EXPIRES: u64 = 1 << 63;
    /// Chunks a [`KeyRef`] can number.
    const MAX_CHUNKS: usize = 1 << 23;

    fn new(chunk: usize, start: usize, len: u64) -> KeyRef {
        KeyRef(((chunk as u64) << 40) | ((start as u64) << 20) | len)
    }
    fn chunk(self) -> usize {
        ((self.0 & !Self::EXPIRES) >> 40) as usize
    }
    fn expires(self) -> bool {
        self.0 & Self::EXPIRES != 0
    }
    fn with_expires(self, on: bool) -> KeyRef {
        KeyRef(self.0 | if on { Self::EXPIRES } else { 0 })
    }
    fn start(self) -> usize {
        ((self.0 >> 20) & ((1 << 20) - 1)) as usize
    }
    fn len_field(self) -> u64 {
        self.0 & Self::WHOLE
    }
}

/// Key bytes packed end to end in chunks of at most [`KeyArena::CHUNK`] bytes, so that a key
/// costs its length and 8 bytes of [`KeyRef`] (no allocation and allocator rounding per key),
/// and 8 bytes more when it has an expiry (Unix ms, little-endian, just before its name).
/// Chunks start small (a database of a few keys holds a few KiB) and double up to the limit.
/// Removed keys leave dead bytes, reclaimed by [`Keyspace`] once they outweigh the live ones.
#[derive(Debug, Clone, Default)]
struct KeyArena {
    chunks: Vec<Vec<u8>>,
    /// The chunk small keys go to (keys of [`KeyArena::OWN_CHUNK`] bytes or more get their own).
    open: Option<usize>,
    /// Bytes of keys removed since the last compaction.
    dead: usize,
    /// Bytes of live keys.
    live: usize,
}

impl KeyArena {
    /// Largest chunk.
    const CHUNK: usize = 1 << 20;
    /// Keys this long or longer get a chunk of their own.
    const OWN_CHUNK: usize = 1 << 16;
    /// First chunk.
    const FIRST: usize = 1 << 10;

    /// Room for about `bytes` more key bytes in the current chunk run (a loader's estimate).
    fn reserve(&mut self, bytes: usize) {
        let want = bytes.clamp(Self::FIRST, Self::CHUNK);
        let room = self.open.map_or(0, |o| {
            let c = &self.chunks[o];
            c.capacity() - c.len()
        });
        if room < want && self.chunks.len() < KeyRef::MAX_CHUNKS {
            self.chunks.push(Vec::with_capacity(want));
            self.open = Some(self.chunks.len() - 1);
        }
    }

    /// Copies `key` in, after its expiry (Unix ms) if any; `None` when a new chunk would be
    /// past [`KeyRef::MAX_CHUNKS`]. Not inlined into its four callers (the wasm module's size).
    #[inline(never)]
    fn push(&mut self, key: &[u8], expiry: Option<i64>) -> Option<KeyRef> {
        let prefix = expiry.map(i64::to_le_bytes);
        let prefix = prefix.as_ref().map_or(&[][..], |p| &p[..]);
        let bytes = prefix.len() + key.len();
        if key.len() >= Self::OWN_CHUNK {
            if self.chunks.len() >= KeyRef::MAX_CHUNKS {
                return None;
            }
            self.live += bytes;
            self.chunks.push([prefix, key].concat());
            let r = KeyRef::new(self.chunks.len() - 1, prefix.len(), KeyRef::WHOLE);
            return Some(r.with_expires(expiry.is_some()));
        }
        let open = self.open.filter(|&o| {
            let c = &self.chunks[o];
            c.capacity() - c.len() >= bytes
        });
        let n = match open {
            Some(o) => o,
            None => {
                if self.chunks.len() >= KeyRef::MAX_CHUNKS {
                    return None;
                }
                let next = self
                    .open
                    .map_or(Self::FIRST, |o| {
                        (self.chunks[o].capacity() * 2).min(Self::CHUNK)
                    })
                    .max(bytes);
                self.chunks.push(Vec::with_capacity(next));
                self.open = Some(self.chunks.len() - 1);
                self.chunks.len() - 1
            }
        };
        self.live += bytes;
        let c = &mut self.chunks[n];
        c.extend_from_slice(prefix);
        let start = c.len();
        c.extend_from_slice(key);
        Some(KeyRef::new(n, start, key.len() as u64).with_expires(expiry.is_some()))
    }

    fn get(&self, r: KeyRef) -> &[u8] {
        let c = &self.chunks[r.chunk()];
        if r.len_field() == KeyRef::WHOLE {
            &c[r.start()..]
        } else {
            &c[r.start()..r.start() + r.len_field() as usize]
        }
    }

    /// The expiry (Unix ms) stored before key `r`, if it has one.
    fn expiry(&self, r: KeyRef) -> Option<i64> {
        r.expires().then(|| self.read_expiry(r))
    }

    /// The expiry stored before key `r`, which has one. Not inlined into every lookup (the
    /// wasm module's size).
    #[inline(never)]
    fn read_expiry(&self, r: KeyRef) -> i64 {
        let at = r.start() - 8;
        let mut b = [0u8; 8];
        b.copy_from_slice(&self.chunks[r.chunk()][at..at + 8]);
        i64::from_le_bytes(b)
    }

    /// Overwrites the expiry of key `r`, which has one.
    fn write_expiry(&mut self, r: KeyRef, when: i64) {
        debug_assert!(r.expires());
        let at = r.start() - 8;
        self.chunks[r.chunk()][at..at + 8].copy_from_slice(&when.to_le_bytes());
    }

    fn forget(&mut self, r: KeyRef) {
        let n = self.get(r).len() + if r.expires() { 8 } else { 0 };
        self.live -= n;
        self.dead += n;
    }

    /// Bytes held (capacity of every chunk).
    fn heap_bytes(&self) -> usize {
        self.chunks.iter().map(Vec::capacity).sum()
    }
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

impl EntryRef<'_> {
    /// True when this entry's expiry is past at `clock_ms` (Redis: `now > when`).
    /// A hash whose every field has expired at the clock is gone too (Redis 7.4 and Valkey 9
    /// delete a hash with its last field; recorded `hash:fe:allgone` on 7.4.1 and 9.1.2).
    pub fn expired_at(self, clock_ms: Option<i64>) -> bool {
        gone_at(self.value, self.expire_at_ms, clock_ms)
    }

    /// True when this entry can expire: a key expiry or a hash field with its own.
    fn may_expire(self) -> bool {
        self.expire_at_ms.is_some() || matches!(self.value, Value::Hash(h) if h.has_field_expiry())
    }
}

impl Entry {
    /// True when this entry's expiry is past at `clock_ms` (see [`EntryRef::expired_at`]).
    pub fn expired_at(&self, clock_ms: Option<i64>) -> bool {
        EntryRef::from(self).expired_at(clock_ms)
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
        ks.reserve(keys.min(u32::MAX as u64) as usize);
        ks
    }

    /// How many keys the keyspace holds room for before its table grows.
    pub fn capacity(&self) -> usize {
        self.index.capacity().min(self.slots.capacity())
    }

    /// Bytes of this keyspace's own table: the index, the slots and the key arena (the
    /// values' own buffers are not counted).
    pub fn table_bytes(&self) -> usize {
        self.index.capacity() * (std::mem::size_of::<u32>() + 1)
            + self.slots.capacity() * std::mem::size_of::<Slot>()
            + self.keys.heap_bytes()
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

    fn alive(&self, e: EntryRef<'_>) -> bool {
        self.expiring == 0 || !e.expired_at(self.clock_ms)
    }

    fn hash(&self, key: &[u8]) -> u64 {
        use std::hash::BuildHasher;
        self.hasher.hash_one(key)
    }

    /// The slot number of `key`, alive or expired.
    fn find(&self, key: &[u8]) -> Option<usize> {
        let (slots, keys) = (&self.slots, &self.keys);
        self.index
            .find(self.hash(key), |&i| keys.get(slots[i as usize].key) == key)
            .map(|&i| i as usize)
    }

    /// The expiry of slot `i`, if it has one.
    fn expiry_of(&self, i: usize) -> Option<i64> {
        self.keys.expiry(self.slots[i].key)
    }

    /// Slot `i` as an entry view.
    fn entry_at(&self, i: usize) -> EntryRef<'_> {
        EntryRef {
            value: &self.slots[i].value,
            expire_at_ms: self.expiry_of(i),
        }
    }

    /// Sets (or clears) slot `i`'s expiry.
    ///
    /// A key that gains or loses its expiry is copied again in the arena, with or without
    /// the 8 bytes before it (its old bytes become dead, reclaimed by compaction).
    fn set_expiry(&mut self, i: usize, expire_at_ms: Option<i64>) {
        let r = self.slots[i].key;
        match expire_at_ms {
            Some(when) if r.expires() => self.keys.write_expiry(r, when),
            None if !r.expires() => {}
            _ => self.move_key(i, expire_at_ms),
        }
    }

    /// Copies slot `i`'s key again in the arena with `expire_at_ms` before it (or none).
    #[inline(never)]
    fn move_key(&mut self, i: usize, expire_at_ms: Option<i64>) {
        let key = self.keys.get(self.slots[i].key).to_vec();
        let moved = match self.keys.push(&key, expire_at_ms) {
            Some(moved) => moved,
            None => {
                // Past KeyRef::MAX_CHUNKS chunks: dead bytes are reclaimed first.
                self.compact_keys();
                self.keys
                    .push(&key, expire_at_ms)
                    .expect("a compacted arena has room for one more key")
            }
        };
        self.keys.forget(self.slots[i].key);
        self.slots[i].key = moved;
    }

    /// Every slot as an entry view, with its key.
    fn slot_entries(&self) -> impl Iterator<Item = (&[u8], EntryRef<'_>)> {
        (0..self.slots.len()).map(|i| self.slot_entry(i))
    }

    /// Slot `i`'s key and entry view: one call, not inlined into every walk of the keyspace
    /// (the wasm module's size).
    #[inline(never)]
    fn slot_entry(&self, i: usize) -> (&[u8], EntryRef<'_>) {
        (self.keys.get(self.slots[i].key), self.entry_at(i))
    }

    /// Number of keys alive at the clock (DBSIZE).
    pub fn len(&self) -> usize {
        if self.expiring == 0 || self.clock_ms.is_none() {
            return self.slots.len();
        }
        (0..self.slots.len())
            .filter(|&i| self.alive(self.entry_at(i)))
            .count()
    }

    /// True when no key is alive at the clock.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value under `key` (`None` when missing or expired at the clock).
    pub fn get(&self, key: &[u8]) -> Option<&Value> {
        self.entry(key).map(|e| e.value)
    }

    /// Mutable access to the value under `key` (`None` when missing or expired).
    pub fn get_mut(&mut self, key: &[u8]) -> Option<&mut Value> {
        let i = self.find(key)?;
        if self.entry_at(i).expired_at(self.clock_ms) {
            return None;
        }
        Some(&mut self.slots[i].value)
    }

    /// The entry (value and expiry) under `key`, `None` when missing or expired.
    pub fn entry(&self, key: &[u8]) -> Option<EntryRef<'_>> {
        self.entry_any(key).filter(|&e| self.alive(e))
    }

    /// The entry under `key` even when expired at the clock (reports, writers).
    pub fn entry_any(&self, key: &[u8]) -> Option<EntryRef<'_>> {
        self.find(key).map(|i| self.entry_at(i))
    }

    /// Every key including those expired at the clock, in no particular order.
    pub fn iter_all(&self) -> impl Iterator<Item = (&[u8], EntryRef<'_>)> {
        self.slot_entries()
    }

    /// How many keys are kept but already expired at the clock.
    pub fn expired_count(&self) -> usize {
        self.slots.len() - self.len()
    }

    /// Stores `value` under `key` with no expiry, replacing any previous value (as SET does).
    pub fn set(&mut self, key: impl AsRef<[u8]>, value: Value) {
        self.insert(key, value, None);
    }

    /// Stores `value` under `key` with an optional absolute expiry in Unix milliseconds,
    /// replacing any previous entry. A new key in a full database (`u32::MAX` keys) is not
    /// stored; only [`Keyspace::insert_new`] reports that.
    pub fn insert(&mut self, key: impl AsRef<[u8]>, value: Value, expire_at_ms: Option<i64>) {
        let key = key.as_ref();
        // A replace only looks the key up (the index's entry API may grow the table first).
        let Some(i) = self.find(key) else {
            let _ = self.try_insert(key, value, expire_at_ms);
            return;
        };
        let new = EntryRef {
            value: &value,
            expire_at_ms,
        };
        self.expiring += new.may_expire() as usize;
        self.expiring -= self.entry_at(i).may_expire() as usize;
        self.module_values |= matches!(value, Value::Module(_));
        self.slots[i].value = value;
        self.set_expiry(i, expire_at_ms);
    }

    /// Stores `value` under `key` (as [`Keyspace::insert`]) only when `key` is not there at
    /// all, alive or expired; otherwise leaves the keyspace unchanged
    /// ([`InsertError::Duplicate`]). One hash and probe of the table (a loader's duplicate
    /// check and insert in one).
    pub fn insert_new(
        &mut self,
        key: &[u8],
        value: Value,
        expire_at_ms: Option<i64>,
    ) -> Result<(), InsertError> {
        self.try_insert(key, value, expire_at_ms).map_err(|r| r.why)
    }

    /// [`Keyspace::insert_new`] handing the value back when nothing was stored.
    pub fn try_insert(
        &mut self,
        key: &[u8],
        value: Value,
        expire_at_ms: Option<i64>,
    ) -> Result<(), Rejected> {
        let n = u32::try_from(self.slots.len()).unwrap_or(u32::MAX);
        let hash = self.hash(key);
        let (slots, keys, hasher) = (&self.slots, &self.keys, &self.hasher);
        let vacant = match self.index.entry(
            hash,
            |&i| keys.get(slots[i as usize].key) == key,
            |&i| {
                use std::hash::BuildHasher;
                hasher.hash_one(keys.get(slots[i as usize].key))
            },
        ) {
            hashbrown::hash_table::Entry::Occupied(_) => {
                return Err(Rejected {
                    why: InsertError::Duplicate,
                    value,
                })
            }
            hashbrown::hash_table::Entry::Vacant(v) => v,
        };
        if n == u32::MAX {
            return Err(Rejected::full(value));
        }
        vacant.insert(n);
        if let Err(r) = self.push_unindexed(key, value, expire_at_ms) {
            // (The key arena is full: the index forgets the slot it was given.)
            if let Ok(e) = self.index.find_entry(hash, |&i| i == n) {
                e.remove();
            }
            return Err(r);
        }
        Ok(())
    }

    /// Appends `key` without indexing it: a loader's bulk insert, indexed later in one pass by
    /// [`Keyspace::index_pending`]. Until then lookups do not find it, and a key already held
    /// is not detected. Errors: [`InsertError::Full`] (the value handed back). Not inlined
    /// into its two callers (the wasm module's size).
    #[inline(never)]
    pub(crate) fn push_unindexed(
        &mut self,
        key: &[u8],
        value: Value,
        expire_at_ms: Option<i64>,
    ) -> Result<(), Rejected> {
        if self.slots.len() >= u32::MAX as usize {
            return Err(Rejected::full(value));
        }
        let Some(r) = self.keys.push(key, expire_at_ms) else {
            return Err(Rejected::full(value));
        };
        let e = EntryRef {
            value: &value,
            expire_at_ms,
        };
        self.expiring += e.may_expire() as usize;
        self.module_values |= matches!(value, Value::Module(_));
        self.slots.push(Slot { key: r, value });
        Ok(())
    }

    /// Indexes the slots from number `from` on (appended by [`Keyspace::push_unindexed`]).
    /// A slot whose key the index already holds (an earlier slot's, or an earlier one of
    /// these) is not indexed: `(slot, earlier slot)` is appended to `dups`, in no particular
    /// order, and the keyspace is then inconsistent (that slot is counted and iterated but not
    /// found): a loader meeting a duplicate refuses the load and drops the keyspace.
    ///
    /// Why in one pass: a key inserted as it is read costs two cache misses (the bucket's
    /// control group, then its entry) in a table larger than the cache. Here the slots are
    /// inserted in the order of the bucket their hash starts probing at (hashbrown probes from
    /// `hash & (buckets - 1)`), by ranges of buckets, so the table is walked in ascending
    /// order, which the hardware prefetches, and each range's inserts share its cache lines.
    /// (Only speed depends on that order.)
    pub(crate) fn index_pending(&mut self, from: usize, dups: &mut Vec<(usize, usize)>) {
        /// Slots ordered at a time.
        const RUN: usize = 1 << 20;
        /// The table is cut into 2^BIN_BITS ranges of buckets, and a run's slots are taken
        /// range after range (a counting sort, stable: file order within a range).
        const BIN_BITS: u32 = 12;
        let total = self.slots.len().saturating_sub(from);
        self.index_reserve(total);
        let mask = self.index.num_buckets().max(1) as u64 - 1;
        let shift = mask.count_ones().saturating_sub(BIN_BITS);
        let bin = |h: u64| ((h & mask) >> shift) as usize;
        let (slots, keys, hasher, index) = (&self.slots, &self.keys, &self.hasher, &mut self.index);
        let key_of = |i: usize| keys.get(slots[i].key);
        let mut hashes = Vec::new();
        let mut order = Vec::new();
        let mut starts = vec![0u32; (1 << BIN_BITS) + 1];
        for run in (from..slots.len()).step_by(RUN) {
            let end = (run + RUN).min(slots.len());
            hashes.clear();
            starts.fill(0);
            for i in run..end {
                use std::hash::BuildHasher;
                let h = hasher.hash_one(key_of(i));
                hashes.push(h);
                starts[bin(h) + 1] += 1;
            }
            for b in 1..starts.len() {
                starts[b] += starts[b - 1];
            }
            order.clear();
            order.resize(hashes.len(), 0u32);
            for (j, &h) in hashes.iter().enumerate() {
                let at = &mut starts[bin(h)];
                order[*at as usize] = j as u32;
                *at += 1;
            }
            for &j in &order {
                let slot = run + j as usize;
                // (The slot's key is read only when a control byte matches: reading the slot
                // itself, out of file order, was half the time.)
                match index.entry(
                    hashes[j as usize],
                    |&i| key_of(i as usize) == key_of(slot),
                    |&i| {
                        use std::hash::BuildHasher;
                        hasher.hash_one(key_of(i as usize))
                    },
                ) {
                    hashbrown::hash_table::Entry::Occupied(e) => {
                        dups.push((slot, *e.get() as usize))
                    }
                    hashbrown::hash_table::Entry::Vacant(v) => {
                        v.insert(slot as u32);
                    }
                }
            }
        }
    }

    /// The key of slot number `slot` (a loader naming a repeated key).
    pub(crate) fn key_at(&self, slot: usize) -> &[u8] {
        self.keys.get(self.slots[slot].key)
    }

    /// Room in the index for `additional` more keys.
    fn index_reserve(&mut self, additional: usize) {
        let (slots, keys, hasher) = (&self.slots, &self.keys, &self.hasher);
        self.index.reserve(additional, |&i| {
            use std::hash::BuildHasher;
            hasher.hash_one(keys.get(slots[i as usize].key))
        });
    }

    /// How many slots the keyspace holds, expired keys included: the next key inserted takes
    /// slot number `slot_count()` (no key was removed meanwhile).
    pub(crate) fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// The slot number of `key` (alive or expired): keys inserted one after the other into a
    /// keyspace nothing was removed from are numbered in that order.
    pub(crate) fn slot_of(&self, key: &[u8]) -> Option<usize> {
        self.find(key)
    }

    /// Removes `key`; returns whether it existed alive at the clock (an expired key is
    /// removed too, and counts as absent, as Redis' DEL).
    pub fn remove(&mut self, key: &[u8]) -> bool {
        if let Some(a) = self.access.as_mut() {
            a.keys.remove(key);
        }
        let clock = self.clock_ms;
        let hash = self.hash(key);
        let (slots, keys) = (&self.slots, &self.keys);
        let Ok(found) = self
            .index
            .find_entry(hash, |&i| keys.get(slots[i as usize].key) == key)
        else {
            return false;
        };
        let (i, _) = found.remove();
        let i = i as usize;
        let (may_expire, was_alive) = {
            let e = self.entry_at(i);
            (e.may_expire(), !e.expired_at(clock))
        };
        self.expiring -= may_expire as usize;
        let last = self.slots.len() - 1;
        let gone = self.slots.swap_remove(i);
        if i != last {
            // The last slot moved to `i` (its expiry with its key): point its index entry there.
            let moved = self.hash(self.keys.get(self.slots[i].key));
            if let Some(e) = self.index.find_mut(moved, |&j| j as usize == last) {
                *e = i as u32;
            }
        }
        self.keys.forget(gone.key);
        if self.keys.dead > self.keys.live.max(KeyArena::CHUNK) {
            self.compact_keys();
        }
        was_alive
    }

    /// Rewrites the key arena with the live keys only.
    #[inline(never)]
    fn compact_keys(&mut self) {
        let old = std::mem::take(&mut self.keys);
        self.keys.reserve(old.live);
        for s in &mut self.slots {
            // Fewer bytes than before in fewer chunks: the arena has room for them.
            let r = self.keys.push(old.get(s.key), old.expiry(s.key));
            s.key = r.expect("compaction needs no more chunks");
        }
    }

    /// The names of the keys alive at the clock that match the Redis glob `pattern` (KEYS'
    /// set of keys, as Redis 7.4 `KEYS pattern` matches them), sorted bytewise: a stable order
    /// for a key list, where KEYS itself answers in table order.
    pub fn matching_keys(&self, pattern: &[u8]) -> Vec<Vec<u8>> {
        self.matching_keys_where(pattern, |_| true)
    }

    /// [`Self::matching_keys`] of the keys whose value `keep` accepts (a type, say).
    pub fn matching_keys_where(
        &self,
        pattern: &[u8],
        keep: impl Fn(&Value) -> bool,
    ) -> Vec<Vec<u8>> {
        let all = pattern == b"*";
        let mut keys: Vec<Vec<u8>> = self
            .iter()
            .filter(|(k, e)| keep(e.value) && (all || crate::glob::matches(pattern, k)))
            .map(|(k, _)| k.to_vec())
            .collect();
        crate::sort::sort_by(&mut keys, |a, b| a.cmp(b));
        keys
    }

    /// Records what a snapshot's RDB_OPCODE_IDLE (`idle_s`, seconds) and RDB_OPCODE_FREQ
    /// (`freq`, the LFU counter) said of `key`; nothing when both are `None`.
    pub fn set_access(&mut self, key: &[u8], idle_s: Option<u64>, freq: Option<u8>) {
        if idle_s.is_none() && freq.is_none() {
            return;
        }
        let a = self.access.get_or_insert_with(Default::default);
        a.lfu |= freq.is_some();
        a.keys.insert(key.into(), (idle_s, freq));
    }

    /// Whether the snapshot's writer ran an LFU `maxmemory-policy` (some key carried an LFU
    /// counter): OBJECT FREQ is then answered and OBJECT IDLETIME refused, as by a server
    /// with that policy.
    pub fn lfu_policy(&self) -> bool {
        self.access.as_ref().is_some_and(|a| a.lfu)
    }

    /// The LRU idle seconds and LFU counter the snapshot recorded for `key`.
    pub fn access_of(&self, key: &[u8]) -> (Option<u64>, Option<u8>) {
        self.access
            .as_ref()
            .and_then(|a| a.keys.get(key).copied())
            .unwrap_or((None, None))
    }

    /// A key alive at the clock chosen by `pick` (called with a bound, returning an index
    /// below it; RANDOMKEY's draw), `None` when none is alive: up to 100 random slots are
    /// tried, then a random one of the live keys.
    pub fn random_key(&self, mut pick: impl FnMut(usize) -> usize) -> Option<&[u8]> {
        if self.slots.is_empty() {
            return None;
        }
        for _ in 0..100 {
            let i = pick(self.slots.len());
            if self.alive(self.entry_at(i)) {
                return Some(self.keys.get(self.slots[i].key));
            }
        }
        let n = self.len();
        if n == 0 {
            return None;
        }
        let nth = pick(n);
        self.iter().nth(nth).map(|(k, _)| k)
    }

    /// Iterates over the keys alive at the clock, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], EntryRef<'_>)> {
        self.slot_entries().filter(|&(_, e)| self.alive(e))
    }

    /// Room for `additional` more keys before the table grows (a union of files sized once).
    pub fn reserve(&mut self, additional: usize) {
        self.index_reserve(additional);
        self.slots.reserve_exact(additional);
        self.keys.reserve(additional.saturating_mul(16));
    }

    /// Removes and yields every key with its entry, expired ones included, in no particular
    /// order; the keyspace is empty afterwards (its clock stays).
    pub fn drain(&mut self) -> impl Iterator<Item = (Vec<u8>, Entry)> + '_ {
        self.expiring = 0;
        self.module_values = false;
        self.index.clear();
        let slots = std::mem::take(&mut self.slots);
        let keys = std::mem::take(&mut self.keys);
        slots.into_iter().map(move |s| {
            let expire_at_ms = keys.expiry(s.key);
            (
                keys.get(s.key).to_vec(),
                Entry {
                    value: s.value,
                    expire_at_ms,
                },
            )
        })
    }

    /// Removes every key.
    pub fn clear(&mut self) {
        self.index.clear();
        self.slots.clear();
        self.keys = KeyArena::default();
        self.expiring = 0;
        self.module_values = false;
    }

    /// True once a RedisBloom module value (Bloom, Cuckoo, Count-Min, Top-K, t-digest) has
    /// been stored here: the snapshot's writer had the module, so its commands exist.
    pub fn holds_module_values(&self) -> bool {
        self.module_values
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expiries kept before the key names: keys that gain, change and lose one, long keys
    /// (their own chunk), removal moving the last slot, and compaction keep every key's name
    /// and expiry (checked against a map after each step).
    #[test]
    fn expiries_in_the_key_arena_follow_their_keys() {
        use std::collections::BTreeMap;
        let mut ks = Keyspace::new();
        let mut model: BTreeMap<Vec<u8>, Option<i64>> = BTreeMap::new();
        let v = || Value::String(RedisString::from_bytes(b"v".to_vec()));
        let name = |i: u64| -> Vec<u8> {
            let mut k = format!("k{i}:").into_bytes();
            if i.is_multiple_of(97) {
                k.resize(KeyArena::OWN_CHUNK + i as usize % 5, b'x');
            }
            k
        };
        let check = |ks: &Keyspace, model: &BTreeMap<Vec<u8>, Option<i64>>| {
            assert_eq!(ks.slots.len(), model.len());
            for (k, want) in model {
                let e = ks.entry_any(k).expect("present");
                assert_eq!(
                    e.expire_at_ms,
                    *want,
                    "{}",
                    String::from_utf8_lossy(&k[..8])
                );
            }
        };
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for step in 0..6000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let k = name(x % 700);
            let expiry = (!x.is_multiple_of(3)).then_some((x >> 20) as i64 % 1_000_000);
            match x % 5 {
                0 | 1 => {
                    ks.insert(&k, v(), expiry);
                    model.insert(k, expiry);
                }
                2 => {
                    assert_eq!(ks.remove(&k), model.remove(&k).is_some());
                }
                _ => {
                    if ks.insert_new(&k, v(), expiry).is_ok() {
                        model.insert(k, expiry);
                    }
                }
            }
            if step % 500 == 0 {
                check(&ks, &model);
            }
        }
        check(&ks, &model);
        ks.compact_keys();
        check(&ks, &model);
        let drained: BTreeMap<Vec<u8>, Option<i64>> =
            ks.drain().map(|(k, e)| (k, e.expire_at_ms)).collect();
        assert_eq!(drained, model);
    }

    #[test]
    fn matching_keys_are_the_live_matches_sorted_bytewise() {
        let mut ks = Keyspace::new();
        let v = || Value::String(RedisString::from_bytes(b"v".to_vec()));
        for k in [
            &b"user:2"[..],
            b"user:10",
            b"shop:1",
            b"user:1",
            b"user:\xff",
        ] {
            ks.set(k, v());
        }
        ks.insert(b"user:old", v(), Some(1_000));
        ks.set_clock(Some(2_000));
        let want: Vec<Vec<u8>> = vec![
            b"user:1".to_vec(),
            b"user:10".to_vec(),
            b"user:2".to_vec(),
            b"user:\xff".to_vec(),
        ];
        assert_eq!(
            ks.matching_keys(b"user:*"),
            want,
            "user:old expired at the clock"
        );
        assert_eq!(ks.matching_keys(b"*").len(), 5);
        assert_eq!(
            ks.matching_keys(b"user:?"),
            vec![
                b"user:1".to_vec(),
                b"user:2".to_vec(),
                b"user:\xff".to_vec()
            ]
        );
        assert!(ks.matching_keys(b"nothing*").is_empty());
        ks.set_clock(Some(500));
        assert_eq!(ks.matching_keys(b"user:o*"), vec![b"user:old".to_vec()]);
        // Of one type: a sorted set among the strings is left out.
        ks.set(
            b"user:z",
            Value::zset(crate::zset::ZSet::from_pairs(vec![(b"m".to_vec(), 1.0)])),
        );
        assert_eq!(ks.matching_keys(b"user:?").len(), 4);
        let strings = ks.matching_keys_where(b"user:?", |v| matches!(v, Value::String(_)));
        assert_eq!(strings.len(), 3);
        assert!(!strings.contains(&b"user:z".to_vec()));
    }
}
