//! A session over a whole snapshot: every database, the selected one (SELECT), the server
//! profile whose dialect the replies follow, and the clock expiry is judged at.
//!
//! The profile defaults to the snapshot's writer ([`Profile::for_snapshot`]); the clock to
//! the snapshot's own time (its `ctime` aux field, Unix seconds), else the wall clock
//! ([`Clock`]). Every database of the session carries that clock, so expired keys are
//! invisible to every command (see [`crate::keyspace`]).

use std::collections::BTreeMap;

use crate::command::{execute_in, Ctx};
use crate::dialect::Profile;
use crate::keyspace::{wall_clock_ms, Keyspace};
use crate::rdb::Snapshot;
use crate::reply::Reply;

/// Redis' default `databases` setting.
pub const DEFAULT_DATABASES: u64 = 16;

/// A clock that is not `now`, `snapshot` or Unix milliseconds ([`Clock::parse`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockError {
    /// The text given.
    pub text: String,
}

impl std::fmt::Display for ClockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "expected now, snapshot or Unix milliseconds (0 or more), got {:?}",
            self.text
        )
    }
}

impl std::error::Error for ClockError {}

/// Which clock expiry is judged at (`--clock now|snapshot|<unix-ms>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Clock {
    /// The wall clock when the session starts.
    Now,
    /// The snapshot's `ctime` aux field (the wall clock when it has none). The default.
    #[default]
    Snapshot,
    /// A fixed instant, Unix milliseconds.
    At(i64),
}

impl Clock {
    /// Parses `now`, `snapshot` or a Unix time in milliseconds (0 or more).
    pub fn parse(text: &str) -> Result<Clock, ClockError> {
        match text {
            "now" => Ok(Clock::Now),
            "snapshot" => Ok(Clock::Snapshot),
            t => t
                .parse::<i64>()
                .ok()
                .filter(|&ms| ms >= 0)
                .map(Clock::At)
                .ok_or_else(|| ClockError {
                    text: t.to_string(),
                }),
        }
    }

    /// The instant (Unix ms) for a snapshot with these aux fields.
    pub fn resolve(&self, aux: &[(Vec<u8>, Vec<u8>)]) -> i64 {
        match self {
            Clock::Now => wall_clock_ms(),
            Clock::Snapshot => snapshot_time_ms(aux).unwrap_or_else(wall_clock_ms),
            Clock::At(ms) => *ms,
        }
    }
}

/// The snapshot's own time in Unix milliseconds: the last millisecond of the second its
/// `ctime` aux field (decimal Unix seconds) names. `ctime` has 1-second resolution and the
/// save happened somewhere inside that second, so a key whose expiry falls in the same second
/// reads as expired: a key given `PEXPIRE 1` just before SAVE (still written to the file)
/// is gone, as the server said (rec: every server in `crates/difftest/tests/dialect_diff.rs`).
pub fn snapshot_time_ms(aux: &[(Vec<u8>, Vec<u8>)]) -> Option<i64> {
    let (_, v) = aux.iter().find(|(k, _)| k.as_slice() == b"ctime")?;
    std::str::from_utf8(v)
        .ok()?
        .trim()
        .parse::<i64>()
        .ok()?
        .checked_mul(1000)?
        .checked_add(999)
}

/// Every database of a snapshot, the selected one, a profile and a clock.
#[derive(Debug, Clone)]
pub struct Session {
    dbs: BTreeMap<u64, Keyspace>,
    db: u64,
    db_count: u64,
    profile: &'static Profile,
    clock_ms: Option<i64>,
    memory: MemoryHook,
}

/// Database `db` of `dbs`, created empty at `clock_ms` when absent.
fn database(dbs: &mut BTreeMap<u64, Keyspace>, db: u64, clock_ms: Option<i64>) -> &mut Keyspace {
    dbs.entry(db).or_insert_with(|| {
        let mut ks = Keyspace::new();
        ks.set_clock(clock_ms);
        ks
    })
}

/// The session's MEMORY USAGE pricer, if given one.
#[derive(Clone, Default)]
struct MemoryHook(Option<std::sync::Arc<dyn crate::command::MemoryUsage>>);

impl std::fmt::Debug for MemoryHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "MemoryHook(set)"
        } else {
            "MemoryHook(none)"
        })
    }
}

/// Removes every key whose value is an empty collection
/// ([`crate::keyspace::Value::is_empty_collection`]), the others kept in their order (KEYS'
/// and SCAN's file order): one pass over the values' headers, and a copy of the rest only
/// when one was found (never in a snapshot a server wrote).
#[inline(never)]
fn drop_empty_collections(ks: &mut Keyspace) {
    if !ks.iter_all().any(|(_, e)| e.value.is_empty_collection()) {
        return;
    }
    let mut kept = Keyspace::with_capacity(ks.len() as u64);
    kept.set_clock(ks.clock());
    for (key, e) in ks.iter_all() {
        if !e.value.is_empty_collection() {
            kept.insert(key, e.value.clone(), e.expire_at_ms);
        }
    }
    *ks = kept;
}

impl Session {
    /// A session over `dbs` answering as `profile`, with expiry judged at `clock_ms` (`None`:
    /// nothing expires). SELECT accepts `0..max(16, highest database + 1)`; database 0 is
    /// selected. Keys holding an empty set, list, sorted set or hash are dropped when the
    /// profile's loader skips them ([`Profile::load_skips_empty_keys`]), as that server would
    /// have at load.
    pub fn new(
        mut dbs: BTreeMap<u64, Keyspace>,
        profile: &'static Profile,
        clock_ms: Option<i64>,
    ) -> Session {
        for ks in dbs.values_mut() {
            ks.set_clock(clock_ms);
            if profile.load_skips_empty_keys {
                drop_empty_collections(ks);
            }
        }
        let db_count = dbs
            .keys()
            .next_back()
            .map_or(0, |&d| d.saturating_add(1))
            .max(DEFAULT_DATABASES);
        let mut session = Session {
            dbs,
            db: 0,
            db_count,
            profile,
            clock_ms,
            memory: MemoryHook::default(),
        };
        session.ensure_selected();
        session
    }

    /// Gives the session what prices MEMORY USAGE (see [`crate::command::MemoryUsage`]);
    /// without one, MEMORY USAGE answers an error saying so.
    pub fn set_memory_usage(&mut self, pricer: std::sync::Arc<dyn crate::command::MemoryUsage>) {
        self.memory = MemoryHook(Some(pricer));
    }

    /// A session over no data, answering as `profile`, nothing expiring.
    pub fn empty(profile: &'static Profile) -> Session {
        Session::new(BTreeMap::new(), profile, None)
    }

    /// Keeps the selected database in `dbs` (created empty, at the session's clock), so that
    /// [`Self::selected_keyspace`] is the one writes go to.
    fn ensure_selected(&mut self) {
        self.keyspace_mut();
    }

    /// A session over a loaded snapshot: the profile `compat` or else the writer's, the clock
    /// `clock` resolved against the snapshot's aux fields.
    pub fn from_snapshot(
        snap: Snapshot,
        compat: Option<&'static Profile>,
        clock: Clock,
    ) -> Session {
        let profile = compat.unwrap_or_else(|| Profile::for_snapshot(&snap.aux, snap.version));
        let now = clock.resolve(&snap.aux);
        Session::new(snap.databases, profile, Some(now))
    }

    /// Runs one command in the selected database and returns the profile's reply; SELECT
    /// switches the selected database.
    pub fn execute(&mut self, argv: &[Vec<u8>]) -> Reply {
        let (reply, db) = {
            let mut ctx = self.ctx();
            let reply = execute_in(&mut ctx, argv);
            (reply, ctx.db)
        };
        self.db = db;
        self.ensure_selected();
        reply
    }

    /// The command context of the selected database (for callers that run a handler's
    /// helpers directly). A SELECT run through it is not seen by the session.
    pub fn ctx(&mut self) -> Ctx<'_> {
        let (profile, db, db_count) = (self.profile, self.db, self.db_count);
        let memory = self.memory.0.as_deref();
        Ctx {
            ks: database(&mut self.dbs, db, self.clock_ms),
            profile,
            db,
            db_count,
            memory,
        }
    }

    /// Selects database `db` as a loader chooses it, without SELECT's range check (created
    /// empty when the snapshot has none of that number).
    pub fn select_database(&mut self, db: u64) {
        self.db = db;
        self.ensure_selected();
    }

    /// The selected database (empty when the snapshot has none of that number).
    pub fn selected_keyspace(&self) -> &Keyspace {
        // Every change of `db` is followed by `ensure_selected`; the empty one is a fallback.
        static EMPTY: std::sync::LazyLock<Keyspace> = std::sync::LazyLock::new(Keyspace::new);
        self.dbs.get(&self.db).unwrap_or(&EMPTY)
    }

    /// Removes every key of every database.
    pub fn clear(&mut self) {
        self.dbs.clear();
        self.ensure_selected();
    }

    /// Selects database `db` as `SELECT db` would; the error is the server's.
    pub fn select(&mut self, db: u64) -> Result<(), Reply> {
        match self.execute(&[b"SELECT".to_vec(), db.to_string().into_bytes()]) {
            Reply::Error(e) => Err(Reply::Error(e)),
            _ => Ok(()),
        }
    }

    /// The selected database's number.
    pub fn selected(&self) -> u64 {
        self.db
    }

    /// How many databases SELECT accepts.
    pub fn db_count(&self) -> u64 {
        self.db_count
    }

    /// The selected database (created empty when the snapshot has none of that number).
    pub fn keyspace_mut(&mut self) -> &mut Keyspace {
        database(&mut self.dbs, self.db, self.clock_ms)
    }

    /// The selected database (always present: empty when the snapshot has none of that
    /// number).
    pub fn keyspace(&self) -> Option<&Keyspace> {
        self.dbs.get(&self.db)
    }

    /// Every database by number.
    pub fn databases(&self) -> &BTreeMap<u64, Keyspace> {
        &self.dbs
    }

    /// The profile the replies follow.
    pub fn profile(&self) -> &'static Profile {
        self.profile
    }

    /// Switches the profile (the keys stay those the session was made with: empty
    /// collections a 6.0 session kept stay; see [`Session::new`]).
    pub fn set_profile(&mut self, profile: &'static Profile) {
        self.profile = profile;
    }

    /// The clock (Unix ms) expiry is judged at.
    pub fn clock(&self) -> Option<i64> {
        self.clock_ms
    }

    /// Keys (over every database) already expired at the clock.
    pub fn expired_keys(&self) -> usize {
        self.dbs.values().map(Keyspace::expired_count).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::{REDIS_6_0, REDIS_6_2, REDIS_7_0};
    use crate::keyspace::Value;
    use crate::string::RedisString;

    fn argv(a: &[&str]) -> Vec<Vec<u8>> {
        a.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    fn s(v: &str) -> Value {
        Value::String(RedisString::from_bytes(v.as_bytes().to_vec()))
    }

    fn session(profile: &'static Profile) -> Session {
        let mut dbs = BTreeMap::new();
        let mut d0 = Keyspace::new();
        d0.insert(b"live", s("a"), Some(10_000));
        d0.insert(b"gone", s("b"), Some(999));
        d0.set(b"plain", s("c"));
        // Expires exactly at the clock: still alive (Redis: expired when now > when).
        d0.insert(b"edge", s("e"), Some(1000));
        let mut d3 = Keyspace::new();
        d3.set(b"three", s("d"));
        dbs.insert(0, d0);
        dbs.insert(3, d3);
        Session::new(dbs, profile, Some(1000))
    }

    /// The selected database is the one reads and writes see, whatever selected it (SELECT,
    /// a loader's choice beyond SELECT's range, a fresh session), at the session's clock.
    #[test]
    fn the_selected_database_is_where_reads_and_writes_go() {
        let mut ses = session(&REDIS_7_0);
        assert_eq!(ses.selected_keyspace().len(), 3); // "gone" expired at the clock
        assert_eq!(ses.execute(&argv(&["SELECT", "5"])), Reply::ok());
        assert_eq!(ses.selected(), 5);
        assert!(ses.selected_keyspace().is_empty());
        ses.keyspace_mut().insert(b"k", s("v"), Some(999));
        // Inserted at the session's clock: already expired.
        assert_eq!(ses.selected_keyspace().len(), 0);
        assert_eq!(ses.execute(&argv(&["DBSIZE"])), Reply::Integer(0));
        ses.select_database(40);
        assert_eq!(ses.selected(), 40);
        assert!(ses.selected_keyspace().is_empty());
        assert!(ses.select(40).is_err(), "SELECT keeps its range");
        ses.select(3).unwrap();
        assert_eq!(ses.ctx().ks.len(), 1);
        assert_eq!(ses.ctx().db, 3);
        ses.clear();
        assert_eq!(ses.selected(), 3);
        assert!(ses.databases().values().all(Keyspace::is_empty));
        let fresh = Session::empty(&REDIS_6_2);
        assert_eq!((fresh.selected(), fresh.selected_keyspace().len()), (0, 0));
        assert_eq!(fresh.clock(), None);
    }

    #[test]
    fn select_and_expiry_as_redis() {
        let mut s = session(&REDIS_7_0);
        let r = |s: &mut Session, a: &[&str]| s.execute(&argv(a));
        // Replies as recorded from redis-server 7.0.15 (SELECT errors; TYPE/EXISTS of an
        // expired key; TTL rounding).
        assert_eq!(r(&mut s, &["DBSIZE"]), Reply::Integer(3));
        assert_eq!(r(&mut s, &["PTTL", "edge"]), Reply::Integer(0));
        // The analytics read an expired key as missing, like every command.
        assert_eq!(
            r(&mut s, &["BITLENS.DAU", "gone", "live"]),
            Reply::Array(vec![Reply::Integer(0), Reply::Integer(3)])
        );
        assert_eq!(
            r(&mut s, &["SCAN", "0", "MATCH", "gone"]),
            Reply::Array(vec![Reply::bulk("0"), Reply::Array(vec![])])
        );
        assert_eq!(r(&mut s, &["TYPE", "gone"]), Reply::Status("none".into()));
        assert_eq!(r(&mut s, &["EXISTS", "gone", "live"]), Reply::Integer(1));
        assert_eq!(r(&mut s, &["GET", "gone"]), Reply::NullBulk);
        assert_eq!(r(&mut s, &["TTL", "gone"]), Reply::Integer(-2));
        assert_eq!(r(&mut s, &["TTL", "live"]), Reply::Integer(9));
        assert_eq!(r(&mut s, &["PTTL", "live"]), Reply::Integer(9000));
        assert_eq!(r(&mut s, &["EXPIRETIME", "live"]), Reply::Integer(10));
        assert_eq!(r(&mut s, &["PEXPIRETIME", "live"]), Reply::Integer(10_000));
        assert_eq!(r(&mut s, &["TTL", "plain"]), Reply::Integer(-1));
        assert_eq!(r(&mut s, &["KEYS", "*o*"]), Reply::Array(vec![]));
        assert_eq!(s.expired_keys(), 1);
        assert_eq!(r(&mut s, &["DEL", "gone"]), Reply::Integer(0));
        assert_eq!(
            r(&mut s, &["SELECT", "16"]),
            Reply::err("ERR DB index is out of range")
        );
        assert_eq!(
            r(&mut s, &["SELECT", "x"]),
            Reply::err("ERR value is not an integer or out of range")
        );
        assert_eq!(
            r(&mut s, &["SELECT", "-1"]),
            Reply::err("ERR DB index is out of range")
        );
        assert_eq!(r(&mut s, &["SELECT", "3"]), Reply::ok());
        assert_eq!(r(&mut s, &["GET", "three"]), Reply::bulk("d"));
        assert_eq!(r(&mut s, &["SELECT", "15"]), Reply::ok());
        assert_eq!(r(&mut s, &["DBSIZE"]), Reply::Integer(0));
        // Recorded from redis-server 6.0.9 and 6.2.14.
        let mut s60 = session(&REDIS_6_0);
        assert_eq!(
            s60.execute(&argv(&["SELECT", "x"])),
            Reply::err("ERR invalid DB index")
        );
        assert_eq!(
            s60.execute(&argv(&["SELECT", "99999999999"])),
            Reply::err("ERR DB index is out of range")
        );
        let mut s6 = session(&REDIS_6_2);
        assert_eq!(
            s6.execute(&argv(&["SELECT", "1.5"])),
            Reply::err("ERR value is not an integer or out of range")
        );
        assert_eq!(
            s6.execute(&argv(&["EXPIRETIME", "live"])),
            Reply::err("ERR unknown command `EXPIRETIME`, with args beginning with: `live`, ")
        );
    }

    #[test]
    fn clocks() {
        let aux = vec![(b"ctime".to_vec(), b"1700000000".to_vec())];
        assert_eq!(snapshot_time_ms(&aux), Some(1_700_000_000_999));
        assert_eq!(Clock::Snapshot.resolve(&aux), 1_700_000_000_999);
        assert_eq!(Clock::parse("123"), Ok(Clock::At(123)));
        assert_eq!(Clock::parse("now"), Ok(Clock::Now));
        assert_eq!(Clock::parse("0"), Ok(Clock::At(0)));
        assert!(Clock::parse("-5").is_err());
        assert_eq!(
            Clock::parse("yesterday"),
            Err(ClockError {
                text: "yesterday".into()
            })
        );
    }
}
