//! The command interpreter: one argv in, one [`Reply`] out, as the server of the context's
//! [`Profile`] answers it.
//!
//! Each command family lives in its own module and exports a table of [`CommandSpec`]s. This
//! module looks the name up (case-insensitively), asks the profile whether that server has the
//! command, checks the arity exactly as Redis does, and calls the handler. Unknown commands and
//! wrong arities give the server's exact error texts. Expiry is applied by the keyspace's clock
//! ([`Keyspace::set_clock`]), so handlers never see an expired key.

pub mod analytics;
pub mod args;
pub mod bitmap;
pub mod bloom;
pub mod cms;
pub mod cuckoo;
pub mod dump;
pub mod geo;
pub mod hash;
pub mod hll;
pub mod keys;
pub mod list;
pub mod module_keys;
pub mod random;
pub mod set;
pub mod sort;
pub mod stream;
pub mod strings;
pub mod tdigest;
pub mod topk;
pub mod vectorset;
pub mod zset;

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::dialect::Profile;
use crate::keyspace::Keyspace;
use crate::reply::Reply;

/// Prices a key as the server's `MEMORY USAGE key SAMPLES 0` counts it once it has loaded
/// the snapshot: bytes, or `None` for a value the model does not price. The engine keeps no
/// memory model; the views crate's (`bitlens_views::memory::Model`) implements this, and a
/// front end gives it to its session ([`crate::session::Session::set_memory_usage`]).
pub trait MemoryUsage: Send + Sync {
    /// `MEMORY USAGE` of `key` holding `value`, with a key expiry (`expiring`) or not.
    fn memory_usage(
        &self,
        key: &[u8],
        value: &crate::keyspace::Value,
        expiring: bool,
    ) -> Option<u64>;
}

/// What a command runs against: the selected database (with its clock) and the server
/// profile whose dialect the reply follows (see [`crate::dialect`]).
pub struct Ctx<'a> {
    /// The selected database. Its clock ([`Keyspace::clock`]) decides expiry.
    pub ks: &'a mut Keyspace,
    /// The server whose replies are reproduced.
    pub profile: &'static Profile,
    /// The selected database's number; SELECT sets it and the session then switches
    /// (see [`crate::session::Session`]).
    pub db: u64,
    /// How many databases SELECT accepts (`databases` of the server: 16, or more when the
    /// snapshot holds more).
    pub db_count: u64,
    /// What prices MEMORY USAGE (`None`: the session was given no memory model).
    pub memory: Option<&'a dyn MemoryUsage>,
}

impl Ctx<'_> {
    /// A context on one database (number 0, the only one SELECT accepts).
    pub fn single<'a>(ks: &'a mut Keyspace, profile: &'static Profile) -> Ctx<'a> {
        Ctx {
            ks,
            profile,
            db: 0,
            db_count: 1,
            memory: None,
        }
    }

    /// True when an absolute expiry (Unix ms) is past at the clock (see [`Keyspace::is_past`]).
    pub fn is_past(&self, expire_at_ms: i64) -> bool {
        self.ks.is_past(expire_at_ms)
    }
}

/// A command handler: receives the context and the whole argv (argv\[0\] is the command name
/// as typed).
pub type Handler = fn(&mut Ctx<'_>, &[Vec<u8>]) -> Reply;

/// One command: lower-case name, Redis arity (N > 0: exactly N arguments including the name;
/// N < 0: at least -N), and handler.
pub struct CommandSpec {
    /// The command name, lower case (`bitcount`).
    pub name: &'static str,
    /// Redis arity: N > 0 exactly N arguments including the name, N < 0 at least -N.
    pub arity: i32,
    /// The function answering it.
    pub handler: Handler,
}

fn tables() -> [&'static [CommandSpec]; 20] {
    [
        keys::COMMANDS,
        dump::COMMANDS,
        strings::COMMANDS,
        random::COMMANDS,
        sort::COMMANDS,
        bitmap::COMMANDS,
        hll::COMMANDS,
        geo::COMMANDS,
        zset::COMMANDS,
        list::COMMANDS,
        set::COMMANDS,
        hash::COMMANDS,
        stream::COMMANDS,
        analytics::COMMANDS,
        vectorset::COMMANDS,
        bloom::COMMANDS,
        cuckoo::COMMANDS,
        cms::COMMANDS,
        topk::COMMANDS,
        tdigest::COMMANDS,
    ]
}

/// How many of [`tables`]' last entries are RedisBloom's (BF.*, CF.*, CMS.*, TOPK.*,
/// TDIGEST.*): those commands exist where the profile has them built in (Redis 8.0+) or where
/// the snapshot shows the module was loaded (it holds its values). Told by table position, not
/// by comparing addresses: each use of a `const` table may be its own copy, so a pointer
/// comparison with one made elsewhere can fail (it did in a release build).
const MODULE_TABLES: usize = 5;

/// Every command by lower-case name, with whether it is a module's ([`MODULE_TABLES`]); built once. A scan of
/// the tables cost about 450 instructions per call (callgrind, `bitlens-bench run` of
/// PFCOUNT): a third of a single-key command's time.
struct CommandIndex {
    by_name: HashMap<Box<[u8]>, (&'static CommandSpec, bool), foldhash::fast::FixedState>,
    longest: usize,
}

fn index() -> &'static CommandIndex {
    static INDEX: OnceLock<CommandIndex> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut by_name = HashMap::with_hasher(foldhash::fast::FixedState::default());
        let mut longest = 0;
        let tables = tables();
        let first_module = tables.len() - MODULE_TABLES;
        for (t, spec) in tables
            .into_iter()
            .enumerate()
            .flat_map(|(t, table)| table.iter().map(move |s| (t, s)))
        {
            let name = spec
                .name
                .to_ascii_lowercase()
                .into_bytes()
                .into_boxed_slice();
            longest = longest.max(name.len());
            // The first table entry of a name wins, as the scan found it first.
            by_name.entry(name).or_insert((spec, t >= first_module));
        }
        CommandIndex { by_name, longest }
    })
}

/// The spec of a command by name (case-insensitively) and whether it is a RedisBloom one.
fn lookup_with_module(name: &[u8]) -> Option<(&'static CommandSpec, bool)> {
    let index = index();
    let mut lower = [0u8; 64];
    if name.len() > index.longest || name.len() > lower.len() {
        return None;
    }
    let lower = &mut lower[..name.len()];
    lower.copy_from_slice(name);
    lower.make_ascii_lowercase();
    index.by_name.get(&*lower).copied()
}

/// Finds the spec of a command by name, case-insensitively.
pub fn lookup(name: &[u8]) -> Option<&'static CommandSpec> {
    lookup_with_module(name).map(|(spec, _)| spec)
}

/// Names of every command bitlens answers, lower case.
pub fn command_names() -> Vec<&'static str> {
    tables()
        .into_iter()
        .flat_map(|t| t.iter())
        .map(|c| c.name)
        .collect()
}

/// Runs one command on the keyspace and returns Redis 7.0's reply for it (one database; the
/// keyspace's own clock, none by default). Never panics on any argv; an empty argv gets an
/// `ERR` (Redis gives no reply to an empty inline command).
///
/// # Examples
/// ```
/// use bitlens::{execute, Keyspace, Reply};
///
/// let mut ks = Keyspace::new();
/// let argv = |a: &[&str]| a.iter().map(|s| s.as_bytes().to_vec()).collect::<Vec<_>>();
/// // The keyspace answers reads only; a missing key reads as empty, as in Redis.
/// assert_eq!(execute(&mut ks, &argv(&["BITCOUNT", "nosuch"])), Reply::Integer(0));
/// assert_eq!(
///     execute(&mut ks, &argv(&["NOSUCHCMD"])),
///     Reply::err("ERR unknown command 'NOSUCHCMD', with args beginning with: ")
/// );
/// ```
pub fn execute(ks: &mut Keyspace, argv: &[Vec<u8>]) -> Reply {
    execute_in(&mut Ctx::single(ks, Profile::default_profile()), argv)
}

/// Whether RedisBloom's commands (BF.*, CF.*, CMS.*, TOPK.*, TDIGEST.*) exist in `ctx`: where
/// the profile has them built in (Redis 8.0+) or the snapshot holds the module's values.
pub fn module_commands_exist(ctx: &Ctx<'_>) -> bool {
    ctx.profile.probabilistic_builtin || ctx.ks.holds_module_values()
}

/// The spec of a command bitlens answers in `ctx`: one the profile's server has (and, for a
/// RedisBloom command, where [`module_commands_exist`]).
fn known_spec(ctx: &Ctx<'_>, name: &[u8]) -> Option<&'static CommandSpec> {
    lookup_with_module(name)
        .filter(|&(s, module)| {
            ctx.profile.has_command(s.name) && (!module || module_commands_exist(ctx))
        })
        .map(|(s, _)| s)
}

/// Whether bitlens answers the command `name` (any case) in `ctx`, rather than the profile's
/// unknown-command error.
pub fn is_known(ctx: &Ctx<'_>, name: &[u8]) -> bool {
    known_spec(ctx, name).is_some()
}

/// Runs one command in `ctx` (its database and profile) and returns that server's reply.
pub fn execute_in(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let Some(name) = argv.first() else {
        return Reply::err("ERR empty command");
    };
    let Some(spec) = known_spec(ctx, name) else {
        return Reply::err(ctx.profile.unknown_command(argv));
    };
    let n = argv.len() as i32;
    if (spec.arity > 0 && n != spec.arity) || (spec.arity < 0 && n < -spec.arity) {
        return Reply::err(format!(
            "ERR wrong number of arguments for '{}' command",
            spec.name
        ));
    }
    (spec.handler)(ctx, argv)
}

/// Convenience: one command with string arguments on one database, as `profile` answers it.
pub fn execute_as(ks: &mut Keyspace, profile: &'static Profile, argv: &[&str]) -> Reply {
    let argv: Vec<Vec<u8>> = argv.iter().map(|a| a.as_bytes().to_vec()).collect();
    execute_in(&mut Ctx::single(ks, profile), &argv)
}

/// Convenience: [`execute`] with string arguments.
pub fn execute_str(ks: &mut Keyspace, argv: &[&str]) -> Reply {
    let argv: Vec<Vec<u8>> = argv.iter().map(|a| a.as_bytes().to_vec()).collect();
    execute(ks, &argv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_and_arity() {
        let mut ks = Keyspace::new();
        assert_eq!(
            execute_str(&mut ks, &["GETBITX", "edge:text", "0"]),
            Reply::err("ERR unknown command 'GETBITX', with args beginning with: 'edge:text' '0' ")
        );
        assert_eq!(
            execute_str(&mut ks, &["dbsize", "x"]),
            Reply::err("ERR wrong number of arguments for 'dbsize' command")
        );
    }

    #[test]
    fn module_commands_exist_where_the_module_does() {
        use crate::dialect::{REDIS_7_4, REDIS_8_0};
        let mut ks = Keyspace::new();
        // Redis 7.4 without RedisBloom: an unknown command (as redis-server without
        // --loadmodule answers); Redis 8.0 has the probabilistic types built in.
        assert_eq!(
            execute_as(&mut ks, &REDIS_7_4, &["BF.EXISTS", "bf", "x"]),
            Reply::err("ERR unknown command 'BF.EXISTS', with args beginning with: 'bf' 'x' ")
        );
        assert_eq!(
            execute_as(&mut ks, &REDIS_8_0, &["BF.EXISTS", "bf", "x"]),
            Reply::Integer(0)
        );
    }
}
