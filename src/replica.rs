//! What a read-only replica refuses: the write commands of each server, as data.
//!
//! `bitlens resp` answers as a read-only replica of the snapshot's writer would: a command
//! flagged `write` in that server's command table gets `-READONLY You can't write against a
//! read only replica.` after the unknown-command and arity checks, as Redis' `processCommand`
//! orders them (lookup, arity, authentication, then the replica's read-only check). The table
//! below was recorded from `COMMAND` (with its subcommands) on Redis 6.0.9, 6.2.14, 7.0.15,
//! 7.4.1 and 8.0.2 (Debian 13's build, with its built-in `vectorset` module) and Valkey 8.1.1,
//! 8.1.8 and 9.1.2; RedisBloom 2.8.2's write commands were recorded from `COMMAND` on Redis
//! 7.4.1 with the module loaded (its `TOPK.COUNT` is flagged write, so a replica refuses it).
//! A release is the first profile line that has the command flagged write: Valkey's rows say
//! 7.2 for what Valkey 8.1.1 has (Valkey kept Redis 7.2.4's command table), 9.0 for what only
//! 9.1.2 has (bitlens has one Valkey 9 profile).

use crate::command::{self, Ctx};
use crate::dialect::{Family, Profile};
use crate::reply::Reply;

/// A (major, minor) release line no profile reaches: the command never exists there.
const NEVER: (u16, u16) = (u16::MAX, 0);

/// One write command (or `container|subcommand`) of the recorded command tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteCommand {
    /// Lower-case name; a subcommand is `container|subcommand` (`xgroup|create`).
    pub name: &'static str,
    /// Redis arity as `COMMAND` gives it (N > 0 exactly N words, N < 0 at least -N), counting
    /// the container's word for a subcommand.
    pub arity: i32,
    /// The first Redis release line that has it flagged write ([`NEVER`]: no Redis has it).
    pub redis: (u16, u16),
    /// The first Valkey release line that has it flagged write.
    pub valkey: (u16, u16),
    /// The Redis release line from which it is no longer flagged write as a whole (XGROUP,
    /// whose subcommands are from 7.0).
    pub redis_until: (u16, u16),
    /// An older arity and the release line that changed it (EXPIRE took no options before
    /// 7.0): `(arity, line)`, the older arity applying before `line`.
    pub was: Option<(i32, (u16, u16))>,
}

const fn w(name: &'static str, arity: i32, redis: (u16, u16), valkey: (u16, u16)) -> WriteCommand {
    WriteCommand {
        name,
        arity,
        redis,
        valkey,
        redis_until: NEVER,
        was: None,
    }
}

impl WriteCommand {
    const fn until(mut self, line: (u16, u16)) -> WriteCommand {
        self.redis_until = line;
        self
    }

    const fn was(mut self, arity: i32, line: (u16, u16)) -> WriteCommand {
        self.was = Some((arity, line));
        self
    }

    /// Whether `profile`'s server has this command flagged write.
    pub fn on(&self, profile: &Profile) -> bool {
        match profile.family {
            Family::Redis => profile.version >= self.redis && profile.version < self.redis_until,
            Family::Valkey => profile.version >= self.valkey,
        }
    }

    /// The arity `profile`'s server checks.
    pub fn arity_on(&self, profile: &Profile) -> i32 {
        match self.was {
            Some((old, line)) if profile.family == Family::Redis && profile.version < line => old,
            _ => self.arity,
        }
    }
}

/// Every write command of the recorded servers, sorted by name (see the module header).
pub const WRITE_COMMANDS: &[WriteCommand] = &[
    w("append", 3, (6, 0), (7, 2)),
    w("bitfield", -2, (6, 0), (7, 2)),
    w("bitop", -4, (6, 0), (7, 2)),
    w("blmove", 6, (6, 2), (7, 2)),
    w("blmpop", -5, (7, 0), (7, 2)),
    w("blpop", -3, (6, 0), (7, 2)),
    w("brpop", -3, (6, 0), (7, 2)),
    w("brpoplpush", 4, (6, 0), (7, 2)),
    w("bzmpop", -5, (7, 0), (7, 2)),
    w("bzpopmax", -3, (6, 0), (7, 2)),
    w("bzpopmin", -3, (6, 0), (7, 2)),
    w("cluster|flushslot", -3, NEVER, (9, 0)),
    w("copy", -3, (6, 2), (7, 2)),
    w("decr", 2, (6, 0), (7, 2)),
    w("decrby", 3, (6, 0), (7, 2)),
    w("del", -2, (6, 0), (7, 2)),
    w("delifeq", 3, NEVER, (9, 0)),
    w("expire", -3, (6, 0), (7, 2)).was(3, (7, 0)),
    w("expireat", -3, (6, 0), (7, 2)).was(3, (7, 0)),
    w("flushall", -1, (6, 0), (7, 2)),
    w("flushdb", -1, (6, 0), (7, 2)),
    w("function|delete", 3, (7, 0), (7, 2)),
    w("function|flush", -2, (7, 0), (7, 2)),
    w("function|load", -3, (7, 0), (7, 2)),
    w("function|restore", -3, (7, 0), (7, 2)),
    w("geoadd", -5, (6, 0), (7, 2)),
    w("georadius", -6, (6, 0), (7, 2)),
    w("georadiusbymember", -5, (6, 0), (7, 2)),
    w("geosearchstore", -8, (6, 2), (7, 2)),
    w("getdel", 2, (6, 2), (7, 2)),
    w("getex", -2, (6, 2), (7, 2)),
    w("getset", 3, (6, 0), (7, 2)),
    w("hdel", -3, (6, 0), (7, 2)),
    w("hexpire", -6, (7, 4), (9, 0)),
    w("hexpireat", -6, (7, 4), (9, 0)),
    w("hgetdel", -5, (8, 0), (9, 0)),
    w("hgetex", -5, (8, 0), (9, 0)),
    w("hincrby", 4, (6, 0), (7, 2)),
    w("hincrbyfloat", 4, (6, 0), (7, 2)),
    w("hmset", -4, (6, 0), (7, 2)),
    w("hpersist", -5, (7, 4), (9, 0)),
    w("hpexpire", -6, (7, 4), (9, 0)),
    w("hpexpireat", -6, (7, 4), (9, 0)),
    w("hset", -4, (6, 0), (7, 2)),
    w("hsetex", -6, (8, 0), (9, 0)),
    w("hsetnx", 4, (6, 0), (7, 2)),
    w("incr", 2, (6, 0), (7, 2)),
    w("incrby", 3, (6, 0), (7, 2)),
    w("incrbyfloat", 3, (6, 0), (7, 2)),
    w("linsert", 5, (6, 0), (7, 2)),
    w("lmove", 5, (6, 2), (7, 2)),
    w("lmpop", -4, (7, 0), (7, 2)),
    w("lpop", -2, (6, 0), (7, 2)).was(2, (6, 2)),
    w("lpush", -3, (6, 0), (7, 2)),
    w("lpushx", -3, (6, 0), (7, 2)),
    w("lrem", 4, (6, 0), (7, 2)),
    w("lset", 4, (6, 0), (7, 2)),
    w("ltrim", 4, (6, 0), (7, 2)),
    w("migrate", -6, (6, 0), (7, 2)),
    w("move", 3, (6, 0), (7, 2)),
    w("mset", -3, (6, 0), (7, 2)),
    w("msetex", -4, NEVER, (9, 0)),
    w("msetnx", -3, (6, 0), (7, 2)),
    w("persist", 2, (6, 0), (7, 2)),
    w("pexpire", -3, (6, 0), (7, 2)).was(3, (7, 0)),
    w("pexpireat", -3, (6, 0), (7, 2)).was(3, (7, 0)),
    w("pfadd", -2, (6, 0), (7, 2)),
    w("pfdebug", 3, (6, 0), (7, 2)).was(-3, (7, 0)),
    w("pfmerge", -2, (6, 0), (7, 2)),
    w("psetex", 4, (6, 0), (7, 2)),
    w("rename", 3, (6, 0), (7, 2)),
    w("renamenx", 3, (6, 0), (7, 2)),
    w("restore", -4, (6, 0), (7, 2)),
    w("restore-asking", -4, (6, 0), (7, 2)),
    w("rpop", -2, (6, 0), (7, 2)).was(2, (6, 2)),
    w("rpoplpush", 3, (6, 0), (7, 2)),
    w("rpush", -3, (6, 0), (7, 2)),
    w("rpushx", -3, (6, 0), (7, 2)),
    w("sadd", -3, (6, 0), (7, 2)),
    w("sdiffstore", -3, (6, 0), (7, 2)),
    w("set", -3, (6, 0), (7, 2)),
    w("setbit", 4, (6, 0), (7, 2)),
    w("setex", 4, (6, 0), (7, 2)),
    w("setnx", 3, (6, 0), (7, 2)),
    w("setrange", 4, (6, 0), (7, 2)),
    w("sinterstore", -3, (6, 0), (7, 2)),
    w("smove", 4, (6, 0), (7, 2)),
    w("sort", -2, (6, 0), (7, 2)),
    w("spop", -2, (6, 0), (7, 2)),
    w("srem", -3, (6, 0), (7, 2)),
    w("sunionstore", -3, (6, 0), (7, 2)),
    w("swapdb", 3, (6, 0), (7, 2)),
    w("unlink", -2, (6, 0), (7, 2)),
    w("vadd", -1, (8, 0), NEVER),
    w("vrem", -1, (8, 0), NEVER),
    w("vsetattr", -1, (8, 0), NEVER),
    w("xack", -4, (6, 0), (7, 2)),
    w("xadd", -5, (6, 0), (7, 2)),
    w("xautoclaim", -6, (6, 2), (7, 2)),
    w("xclaim", -6, (6, 0), (7, 2)),
    w("xdel", -3, (6, 0), (7, 2)),
    // Before 7.0 XGROUP was one command flagged write; from 7.0 its subcommands are.
    w("xgroup", -2, (6, 0), NEVER).until((7, 0)),
    w("xgroup|create", -5, (7, 0), (7, 2)),
    w("xgroup|createconsumer", 5, (7, 0), (7, 2)),
    w("xgroup|delconsumer", 5, (7, 0), (7, 2)),
    w("xgroup|destroy", 4, (7, 0), (7, 2)),
    w("xgroup|setid", -5, (7, 0), (7, 2)),
    w("xreadgroup", -7, (6, 0), (7, 2)),
    w("xsetid", -3, (6, 0), (7, 2)).was(3, (7, 0)),
    w("xtrim", -4, (6, 0), (7, 2)).was(-2, (6, 2)),
    w("zadd", -4, (6, 0), (7, 2)),
    w("zdiffstore", -4, (6, 2), (7, 2)),
    w("zincrby", 4, (6, 0), (7, 2)),
    w("zinterstore", -4, (6, 0), (7, 2)),
    w("zmpop", -4, (7, 0), (7, 2)),
    w("zpopmax", -2, (6, 0), (7, 2)),
    w("zpopmin", -2, (6, 0), (7, 2)),
    w("zrangestore", -5, (6, 2), (7, 2)),
    w("zrem", -3, (6, 0), (7, 2)),
    w("zremrangebylex", 4, (6, 0), (7, 2)),
    w("zremrangebyrank", 4, (6, 0), (7, 2)),
    w("zremrangebyscore", 4, (6, 0), (7, 2)),
    w("zunionstore", -4, (6, 0), (7, 2)),
];

/// RedisBloom 2.8.2's write commands (arity -1: the module checks its own arguments, after
/// the replica's check). They exist where the module's commands do (see
/// [`command::module_commands_exist`]).
pub const MODULE_WRITE_COMMANDS: &[&str] = &[
    "bf.add",
    "bf.insert",
    "bf.loadchunk",
    "bf.madd",
    "bf.reserve",
    "cf.add",
    "cf.addnx",
    "cf.del",
    "cf.insert",
    "cf.insertnx",
    "cf.loadchunk",
    "cf.reserve",
    "cms.incrby",
    "cms.initbydim",
    "cms.initbyprob",
    "cms.merge",
    "tdigest.add",
    "tdigest.create",
    "tdigest.merge",
    "tdigest.reset",
    "topk.add",
    "topk.count",
    "topk.incrby",
    "topk.reserve",
];

/// `-READONLY You can't write against a read only replica.`, as every recorded server words it.
pub fn readonly_error() -> Reply {
    Reply::err("READONLY You can't write against a read only replica.")
}

/// What a read-only replica does with a command before running it.
#[derive(Debug, Clone, PartialEq)]
pub enum Admission {
    /// A command bitlens answers that the server does not flag write: run it.
    Read,
    /// A command the server flags write: after authentication, refuse it with
    /// [`readonly_error`].
    Write,
    /// Refused before authentication is looked at: the unknown-command or arity error the
    /// server gives.
    Refused(Reply),
}

fn lower(word: &[u8]) -> String {
    String::from_utf8_lossy(word).to_ascii_lowercase()
}

fn arity_error(profile: &Profile, name: &str, sub: bool) -> Reply {
    if sub {
        if let Some(text) = profile.subcommand_arity_error {
            return Reply::err(text.replace("{}", name));
        }
    }
    Reply::err(format!(
        "ERR wrong number of arguments for '{name}' command"
    ))
}

fn arity_ok(arity: i32, argc: usize) -> bool {
    let n = argc as i64;
    (arity > 0 && n == arity as i64) || (arity < 0 && n >= -(arity as i64))
}

/// Classifies `argv` as the snapshot writer's server, running as a read-only replica, would
/// before executing it: a write command of [`WRITE_COMMANDS`] (or a RedisBloom one where the
/// module's commands exist) is [`Admission::Write`] once its arity is right; a command bitlens
/// answers is [`Admission::Read`] (its arity is checked when it runs, with the same text); any
/// other command is the profile's unknown-command error. A container's subcommand
/// (`XGROUP CREATE`) is looked up as `xgroup|create`. Errors: the server's texts, as
/// [`Admission::Refused`].
pub fn admit(ctx: &Ctx<'_>, argv: &[Vec<u8>]) -> Admission {
    let Some(first) = argv.first() else {
        return Admission::Refused(Reply::err("ERR empty command"));
    };
    let name = lower(first);
    let profile = ctx.profile;
    // (A subcommand is a short word: a long first argument, a value, is not lowered and
    // copied to be looked up.)
    if let Some(sub) = argv.get(1).filter(|s| s.len() <= 64) {
        let full = format!("{name}|{}", lower(sub));
        if let Some(c) = WRITE_COMMANDS
            .iter()
            .find(|c| c.name == full && c.on(profile))
        {
            return if arity_ok(c.arity_on(profile), argv.len()) {
                Admission::Write
            } else {
                Admission::Refused(arity_error(profile, &full, true))
            };
        }
    }
    if let Some(c) = WRITE_COMMANDS
        .iter()
        .find(|c| c.name == name && c.on(profile))
    {
        return if arity_ok(c.arity_on(profile), argv.len()) {
            Admission::Write
        } else {
            Admission::Refused(arity_error(profile, &name, false))
        };
    }
    if MODULE_WRITE_COMMANDS.contains(&name.as_str()) && command::module_commands_exist(ctx) {
        return Admission::Write;
    }
    if command::is_known(ctx, first) {
        match command::lookup(first) {
            Some(spec) if !arity_ok(spec.arity, argv.len()) => {
                Admission::Refused(arity_error(profile, spec.name, false))
            }
            _ => Admission::Read,
        }
    } else {
        Admission::Refused(Reply::err(profile.unknown_command(argv)))
    }
}

/// The connection-level texts and checks of one server line, as data ([`connection_dialect`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionDialect {
    /// `AUTH` with a wrong password (6.0 ends after "pair").
    pub wrongpass: &'static str,
    /// CLIENT's unknown subcommand (and, before 7.0, wrong arity), `{}` the subcommand as
    /// typed.
    pub client_unknown_subcommand: &'static str,
    /// `HELLO` with a protocol version that is not a number.
    pub hello_not_integer: &'static str,
    /// `MULTI` inside MULTI.
    pub nested_multi: &'static str,
    /// `WATCH key...` inside MULTI.
    pub watch_in_multi: &'static str,
    /// Those two refusals abort the transaction (its `EXEC` answers `EXECABORT`), as Valkey's
    /// generic "not allowed inside a transaction" does; Redis' own replies leave it queued.
    pub multi_refusal_aborts: bool,
    /// Requests of more than 10 words or with a bulk over 16 KiB are refused before
    /// authentication (6.2 on).
    pub unauthenticated_limits: bool,
    /// An unauthenticated client gets `-NOAUTH` even for an unknown command or a wrong arity
    /// (Valkey 9 checks authentication first).
    pub auth_before_lookup: bool,
    /// The field `INFO keyspace` adds after `avg_ttl` for the keys holding hash fields with
    /// an expiry: `subexpiry` (Redis 7.4+), `keys_with_volatile_items` (Valkey 9); `None`
    /// before (rec: `INFO keyspace` on each server of the matrix).
    pub info_subexpiry: Option<&'static str>,
    /// INFO server's name for `standalone`: `redis_mode`, Valkey 8.1+'s `server_mode`.
    pub info_mode_field: &'static str,
    /// `WAIT` on a replica (every read-only replica refuses it with this text).
    pub wait_on_replica: &'static str,
    /// `LATENCY DOCTOR` with latency monitoring disabled (the default).
    pub latency_doctor: &'static str,
    /// `READONLY` / `READWRITE` outside cluster mode: refused with "cluster support disabled"
    /// (`true`) or `+OK`.
    pub cluster_refuses: (bool, bool),
    /// `SLOWLOG GET count` with a count that is not an integer (7.0 on: or is below -1; 6.x
    /// takes any integer).
    pub slowlog_bad_count: &'static str,
    /// The least `SLOWLOG GET` count taken (7.0 on: -1, every entry).
    pub slowlog_min_count: Option<i64>,
    /// A subcommand given too many arguments for its own parsing (SLOWLOG GET 1 2), `{}` the
    /// subcommand as typed and `{C}` the command (`addReplySubcommandSyntaxError`).
    pub subcommand_syntax: &'static str,
}

/// Every CLIENT LIST / CLIENT INFO field in the servers' order, with the first Redis and
/// Valkey lines that give it (`None`: that family never does), as recorded on the eight
/// servers of the matrix (6.0.9: 21 fields ... Valkey 8.1+: 35; `watch` from Redis 7.4,
/// `lib-name`/`lib-ver` from 7.2, `io-thread` from 8.0; Valkey's from its 8.1 recordings and
/// its Redis 7.2 base).
/// The first (major, minor) line of a family that has a feature; `None`: none of its lines.
type Since = Option<(u16, u16)>;

const CLIENT_FIELDS: &[(&str, Since, Since)] = &[
    ("id", Some((0, 0)), Some((0, 0))),
    ("addr", Some((0, 0)), Some((0, 0))),
    ("laddr", Some((6, 2)), Some((0, 0))),
    ("fd", Some((0, 0)), Some((0, 0))),
    ("name", Some((0, 0)), Some((0, 0))),
    ("age", Some((0, 0)), Some((0, 0))),
    ("idle", Some((0, 0)), Some((0, 0))),
    ("flags", Some((0, 0)), Some((0, 0))),
    ("capa", None, Some((8, 1))),
    ("db", Some((0, 0)), Some((0, 0))),
    ("sub", Some((0, 0)), Some((0, 0))),
    ("psub", Some((0, 0)), Some((0, 0))),
    ("ssub", Some((7, 0)), Some((0, 0))),
    ("multi", Some((0, 0)), Some((0, 0))),
    ("watch", Some((7, 4)), Some((8, 1))),
    ("qbuf", Some((0, 0)), Some((0, 0))),
    ("qbuf-free", Some((0, 0)), Some((0, 0))),
    ("argv-mem", Some((0, 0)), Some((0, 0))),
    ("multi-mem", Some((7, 0)), Some((0, 0))),
    ("rbs", Some((7, 0)), Some((0, 0))),
    ("rbp", Some((7, 0)), Some((0, 0))),
    ("obl", Some((0, 0)), Some((0, 0))),
    ("oll", Some((0, 0)), Some((0, 0))),
    ("omem", Some((0, 0)), Some((0, 0))),
    ("tot-mem", Some((0, 0)), Some((0, 0))),
    ("events", Some((0, 0)), Some((0, 0))),
    ("cmd", Some((0, 0)), Some((0, 0))),
    ("user", Some((0, 0)), Some((0, 0))),
    ("redir", Some((6, 2)), Some((0, 0))),
    ("resp", Some((7, 0)), Some((0, 0))),
    ("lib-name", Some((7, 2)), Some((0, 0))),
    ("lib-ver", Some((7, 2)), Some((0, 0))),
    ("io-thread", Some((8, 0)), None),
    ("tot-net-in", None, Some((8, 1))),
    ("tot-net-out", None, Some((8, 1))),
    ("tot-cmds", None, Some((8, 1))),
];

/// The fields of a CLIENT LIST / CLIENT INFO line on `profile`'s server, in order.
pub fn client_fields(profile: &Profile) -> impl Iterator<Item = &'static str> + '_ {
    CLIENT_FIELDS
        .iter()
        .filter_map(move |&(name, redis, valkey)| {
            let since = match profile.family {
                Family::Redis => redis,
                Family::Valkey => valkey,
            }?;
            (profile.version >= since).then_some(name)
        })
}

const WAIT_REDIS: &str = "ERR WAIT cannot be used with replica instances. Please also note that \
    since Redis 4.0 if a replica is configured to be writable (which is not the default) writes \
    to replicas are just local and are not propagated.";
/// `LATENCY DOCTOR` with monitoring disabled, up to the link each line ends with.
macro_rules! latency_disabled {
    ($server:literal, $tail:literal) => {
        concat!(
            "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this ",
            $server,
            " instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" \
             in order to enable it.",
            $tail,
            "\n"
        )
    };
}

const CONN_6_0: ConnectionDialect = ConnectionDialect {
    wrongpass: "WRONGPASS invalid username-password pair",
    client_unknown_subcommand:
        "ERR Unknown subcommand or wrong number of arguments for '{}'. Try CLIENT HELP",
    hello_not_integer: "NOPROTO unsupported protocol version",
    nested_multi: "ERR MULTI calls can not be nested",
    watch_in_multi: "ERR WATCH inside MULTI is not allowed",
    multi_refusal_aborts: false,
    unauthenticated_limits: false,
    auth_before_lookup: false,
    info_subexpiry: None,
    info_mode_field: "redis_mode",
    wait_on_replica: WAIT_REDIS,
    latency_doctor: latency_disabled!(
        "Redis",
        " If we weren't in a deep space mission I'd suggest to take a look at \
         http://redis.io/topics/latency-monitor."
    ),
    cluster_refuses: (true, false),
    slowlog_bad_count: "ERR value is not an integer or out of range",
    slowlog_min_count: None,
    subcommand_syntax:
        "ERR Unknown subcommand or wrong number of arguments for '{}'. Try {C} HELP.",
};

const CONN_6_2: ConnectionDialect = ConnectionDialect {
    wrongpass: "WRONGPASS invalid username-password pair or user is disabled.",
    client_unknown_subcommand:
        "ERR Unknown subcommand or wrong number of arguments for '{}'. Try CLIENT HELP.",
    hello_not_integer: "ERR Protocol version is not an integer or out of range",
    unauthenticated_limits: true,
    latency_doctor: latency_disabled!(
        "Redis",
        " If we weren't in a deep space mission I'd suggest to take a look at \
         https://redis.io/topics/latency-monitor."
    ),
    ..CONN_6_0
};

const CONN_7_0: ConnectionDialect = ConnectionDialect {
    client_unknown_subcommand: "ERR unknown subcommand '{}'. Try CLIENT HELP.",
    cluster_refuses: (true, true),
    slowlog_bad_count: "ERR count should be greater than or equal to -1",
    slowlog_min_count: Some(-1),
    subcommand_syntax:
        "ERR unknown subcommand or wrong number of arguments for '{}'. Try {C} HELP.",
    ..CONN_6_2
};

const CONN_7_4: ConnectionDialect = ConnectionDialect {
    info_subexpiry: Some("subexpiry"),
    ..CONN_7_0
};

const CONN_8_0: ConnectionDialect = ConnectionDialect {
    latency_doctor: latency_disabled!(
        "Redis",
        " If we weren't in a deep space mission I'd suggest to take a look at \
         https://redis.io/docs/latest/operate/oss_and_stack/management/optimization/latency-monitor."
    ),
    ..CONN_7_4
};

const CONN_VALKEY_8_1: ConnectionDialect = ConnectionDialect {
    nested_multi: "ERR Command not allowed inside a transaction",
    watch_in_multi: "ERR Command not allowed inside a transaction",
    multi_refusal_aborts: true,
    info_mode_field: "server_mode",
    wait_on_replica: "ERR WAIT cannot be used with replica instances. Please also note that if a \
        replica is configured to be writable (which is not the default) writes to replicas are \
        just local and are not propagated.",
    latency_doctor: latency_disabled!("Valkey", ""),
    cluster_refuses: (false, false),
    ..CONN_7_0
};

const CONN_VALKEY_9_0: ConnectionDialect = ConnectionDialect {
    nested_multi: "ERR Command 'multi' not allowed inside a transaction",
    watch_in_multi: "ERR Command 'watch' not allowed inside a transaction",
    multi_refusal_aborts: true,
    auth_before_lookup: true,
    info_subexpiry: Some("keys_with_volatile_items"),
    ..CONN_VALKEY_8_1
};

/// The connection dialects by family and first release line, recorded on Redis 6.0.9, 6.2.14,
/// 7.0.15, 7.4.1, 8.0.2 and Valkey 8.1.1, 8.1.8, 9.1.2 (`bitlens resp`'s differential test);
/// a line takes the last row at or before it. Valkey 7.2 and 8.0 are taken as Redis 7.2.
const CONNECTION_DIALECTS: &[(Family, (u16, u16), ConnectionDialect)] = &[
    (Family::Redis, (0, 0), CONN_6_0),
    (Family::Redis, (6, 2), CONN_6_2),
    (Family::Redis, (7, 0), CONN_7_0),
    (Family::Redis, (7, 4), CONN_7_4),
    (Family::Redis, (8, 0), CONN_8_0),
    (Family::Valkey, (0, 0), CONN_7_0),
    (Family::Valkey, (8, 1), CONN_VALKEY_8_1),
    (Family::Valkey, (9, 0), CONN_VALKEY_9_0),
];

/// The connection dialect of `profile`'s server line.
pub fn connection_dialect(profile: &Profile) -> &'static ConnectionDialect {
    CONNECTION_DIALECTS
        .iter()
        .filter(|(f, since, _)| *f == profile.family && profile.version >= *since)
        .map(|(_, _, d)| d)
        .next_back()
        .unwrap_or(&CONN_7_0)
}
