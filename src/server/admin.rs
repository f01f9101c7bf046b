//! The server's own commands around the keyspace, as a read-only replica of an unreachable
//! master answers them with its default configuration (latency monitoring off, an empty slow
//! log, no cluster, no subscribers): `LASTSAVE`, `ROLE`, `WAIT`, `DEBUG`, `LATENCY`
//! (`LATEST`, `HISTORY`, `RESET`, `DOCTOR`), `SLOWLOG` (`GET`, `LEN`, `RESET`), `ACL`
//! (`WHOAMI`, `USERS`), `CLUSTER`, `READONLY`, `READWRITE`, `PUBLISH` and `PUBSUB`
//! (`CHANNELS`, `NUMSUB`, `NUMPAT`, `SHARDCHANNELS`, `SHARDNUMSUB`). Texts that differ by
//! server line are data ([`crate::replica::ConnectionDialect`]); every reply was recorded on
//! the eight servers of the matrix (`bitlens resp`'s differential test).
//!
//! `DEBUG` is refused with Redis 7's text ("not allowed") on every line: Redis 6 would run it,
//! and a snapshot has no process to debug.

use crate::dialect::Profile;
use crate::replica;
use crate::reply::Reply;

use super::lower;

/// The arity of each command this module answers (from the servers' COMMAND tables).
pub(super) fn arity(name: &str) -> Option<i32> {
    Some(match name {
        "lastsave" | "role" | "readonly" | "readwrite" => 1,
        "wait" | "publish" => 3,
        "debug" | "latency" | "slowlog" | "acl" | "cluster" | "pubsub" => -2,
        _ => return None,
    })
}

/// Answers `argv` (a command [`arity`] knows, arity checked); `lastsave` is the time
/// `LASTSAVE` gives (Unix seconds).
pub(super) fn answer(argv: &[Vec<u8>], profile: &Profile, lastsave: i64) -> Reply {
    let d = replica::connection_dialect(profile);
    let cluster_disabled = || Reply::err("ERR This instance has cluster support disabled");
    match lower(&argv[0]).as_str() {
        "lastsave" => Reply::Integer(lastsave),
        // A replica whose master is not set: no host, port 0, state "none", no offset.
        "role" => Reply::Array(vec![
            Reply::bulk("slave"),
            Reply::bulk(""),
            Reply::Integer(0),
            Reply::bulk("none"),
            Reply::Integer(-1),
        ]),
        "wait" => Reply::err(d.wait_on_replica),
        "debug" => Reply::err(
            "ERR DEBUG command not allowed. If the enable-debug-command option is set to \
             \"local\", you can run it from a local connection, otherwise you need to set this \
             option in the configuration file, and then restart the server.",
        ),
        "cluster" => cluster_disabled(),
        "readonly" if d.cluster_refuses.0 => cluster_disabled(),
        "readwrite" if d.cluster_refuses.1 => cluster_disabled(),
        "readonly" | "readwrite" => Reply::ok(),
        // Nobody can subscribe to a snapshot: no receivers.
        "publish" => Reply::Integer(0),
        "latency" => latency(argv, profile),
        "slowlog" => slowlog(argv, profile),
        "acl" => acl(argv, profile),
        "pubsub" => pubsub(argv, profile),
        _ => Reply::err(profile.unknown_command(argv)),
    }
}

/// A subcommand's reply after its arity check: `want` as Redis 7's subcommand table gives
/// it (`n` exact, `-n` at least `n`).
fn sub_arity(argv: &[Vec<u8>], want: i32, container: &str, profile: &Profile) -> Option<Reply> {
    let n = argv.len() as i32;
    if (want > 0 && n == want) || (want < 0 && n >= -want) {
        return None;
    }
    Some(match profile.subcommand_arity_error {
        Some(text) => Reply::err(text.replace(
            "{}",
            &format!("{}|{}", container.to_ascii_lowercase(), lower(&argv[1])),
        )),
        None => unknown(&argv[1], container, profile),
    })
}

fn unknown(sub: &[u8], container: &str, profile: &Profile) -> Reply {
    super::unknown_subcommand(sub, container, profile)
}

/// `LATENCY`: monitoring is off, so nothing was ever recorded.
fn latency(argv: &[Vec<u8>], profile: &Profile) -> Reply {
    let (want, reply) = match lower(&argv[1]).as_str() {
        "latest" => (2, Reply::Array(Vec::new())),
        "history" => (3, Reply::Array(Vec::new())),
        "reset" => (-2, Reply::Integer(0)),
        "doctor" => (
            2,
            Reply::bulk(replica::connection_dialect(profile).latency_doctor),
        ),
        _ => return unknown(&argv[1], "LATENCY", profile),
    };
    sub_arity(argv, want, "LATENCY", profile).unwrap_or(reply)
}

/// `SLOWLOG`: the log is empty (no command of a snapshot's server is slow enough to be kept;
/// bitlens keeps none).
fn slowlog(argv: &[Vec<u8>], profile: &Profile) -> Reply {
    let d = replica::connection_dialect(profile);
    let (want, reply) = match lower(&argv[1]).as_str() {
        "get" if argv.len() > 3 => {
            return Reply::err(
                d.subcommand_syntax
                    .replace("{}", &String::from_utf8_lossy(&argv[1]))
                    .replace("{C}", "SLOWLOG"),
            )
        }
        "get" => {
            let count = argv.get(2).map(|c| {
                std::str::from_utf8(c)
                    .ok()
                    .and_then(|c| c.parse::<i64>().ok())
            });
            match (count, d.slowlog_min_count) {
                (Some(None), _) => return Reply::err(d.slowlog_bad_count),
                (Some(Some(n)), Some(min)) if n < min => return Reply::err(d.slowlog_bad_count),
                _ => (-2, Reply::Array(Vec::new())),
            }
        }
        "len" => (2, Reply::Integer(0)),
        "reset" => (2, Reply::ok()),
        _ => return unknown(&argv[1], "SLOWLOG", profile),
    };
    sub_arity(argv, want, "SLOWLOG", profile).unwrap_or(reply)
}

/// `ACL`: the only user is `default`.
fn acl(argv: &[Vec<u8>], profile: &Profile) -> Reply {
    let reply = match lower(&argv[1]).as_str() {
        "whoami" => Reply::bulk("default"),
        "users" => Reply::Array(vec![Reply::bulk("default")]),
        _ => return unknown(&argv[1], "ACL", profile),
    };
    sub_arity(argv, 2, "ACL", profile).unwrap_or(reply)
}

/// `PUBSUB`: no channel has a subscriber.
fn pubsub(argv: &[Vec<u8>], profile: &Profile) -> Reply {
    let shard = profile.family == crate::dialect::Family::Valkey || profile.version >= (7, 0);
    let zeros = || {
        Reply::Array(
            argv[2..]
                .iter()
                .flat_map(|c| [Reply::Bulk(c.clone()), Reply::Integer(0)])
                .collect(),
        )
    };
    let (want, reply) = match lower(&argv[1]).as_str() {
        "channels" => (-2, Reply::Array(Vec::new())),
        "numsub" => (-2, zeros()),
        "numpat" => (2, Reply::Integer(0)),
        "shardchannels" if shard => (-2, Reply::Array(Vec::new())),
        "shardnumsub" if shard => (-2, zeros()),
        _ => return unknown(&argv[1], "PUBSUB", profile),
    };
    if matches!(lower(&argv[1]).as_str(), "channels" | "shardchannels") && argv.len() > 3 {
        return Reply::err(
            replica::connection_dialect(profile)
                .subcommand_syntax
                .replace("{}", &String::from_utf8_lossy(&argv[1]))
                .replace("{C}", "PUBSUB"),
        );
    }
    sub_arity(argv, want, "PUBSUB", profile).unwrap_or(reply)
}
