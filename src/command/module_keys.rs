//! Module values of the keyspace as the RedisBloom command handlers see them: the value of one
//! type under a key (missing, of another type, or found) and storing a new one. The types
//! themselves are in [`crate::probabilistic`]; this is the command layer's view of the keyspace.

use crate::keyspace::{Keyspace, Value};
use crate::probabilistic::{ModuleData, ModuleValue};

/// A module value of one type looked up for a command.
pub enum Lookup<T> {
    /// No (live) key.
    Missing,
    /// A key of another type.
    WrongType,
    /// The value.
    Found(T),
}

impl<T> Lookup<T> {
    /// The value, or the reply for its absence: `missing` (the module's text for a missing
    /// key, as `CMS: key does not exist`) or WRONGTYPE.
    pub fn or_missing(self, missing: &'static str) -> Result<T, crate::reply::Reply> {
        match self {
            Lookup::Found(t) => Ok(t),
            Lookup::Missing => Err(crate::reply::Reply::err(missing)),
            Lookup::WrongType => Err(crate::reply::Reply::wrong_type()),
        }
    }

    /// `Ok(Some(value))`, `Ok(None)` for a missing key, `Err(())` for another type (for the
    /// commands that answer on a missing key, as BF.EXISTS).
    pub(crate) fn optional(self) -> Result<Option<T>, ()> {
        match self {
            Lookup::Found(t) => Ok(Some(t)),
            Lookup::Missing => Ok(None),
            Lookup::WrongType => Err(()),
        }
    }
}

/// The `T` under `key` (as `pick` extracts it from the module data).
pub fn lookup<'a, T>(
    ks: &'a Keyspace,
    key: &[u8],
    pick: fn(&ModuleData) -> Option<&T>,
) -> Lookup<&'a T> {
    match ks.get(key) {
        None => Lookup::Missing,
        Some(Value::Module(m)) => pick(&m.data).map_or(Lookup::WrongType, Lookup::Found),
        Some(_) => Lookup::WrongType,
    }
}

/// The `T` under `key` (as `pick` extracts it from the module data), mutably.
pub fn lookup_mut<'a, T>(
    ks: &'a mut Keyspace,
    key: &[u8],
    pick: fn(&mut ModuleData) -> Option<&mut T>,
) -> Lookup<&'a mut T> {
    match ks.get_mut(key) {
        None => Lookup::Missing,
        Some(Value::Module(m)) => pick(&mut m.data).map_or(Lookup::WrongType, Lookup::Found),
        Some(_) => Lookup::WrongType,
    }
}

/// Stores a new value of RedisBloom type `name` (encoding version `encver`) under `key`.
pub fn store(ks: &mut Keyspace, key: &[u8], name: &[u8; 9], encver: u32, data: ModuleData) {
    ks.set(
        key,
        Value::Module(Box::new(ModuleValue {
            name: *name,
            encver,
            data,
        })),
    );
}
