//! The one door to Redis: every command the exporter sends goes through [`ReadOnlyRedis`], which
//! refuses anything outside a fixed allow-list of read commands. The connection itself is
//! private to this module, so no other code path can reach Redis.
//!
//! Allowed: SCAN, TYPE, DUMP, PTTL, STRLEN, `MEMORY USAGE`, INFO, PING, and for Redis Cluster
//! `CLUSTER SLOTS` and READONLY (replica reads); plus AUTH / HELLO / SELECT, which the client
//! library sends itself while connecting, from the URL. A matching minimal ACL rule for a
//! dedicated user:
//! `ACL SETUSER bitlens on >PASSWORD ~* resetchannels -@all +scan +type +dump +pttl +strlen +memory|usage +info +ping`
//! (add `+cluster|slots +readonly` on a cluster).

use redis::aio::ConnectionManager;
use redis::{Cmd, Pipeline, RedisError, Value};

/// Commands (upper case, with the subcommand for container commands) that may be sent.
pub const ALLOWED: &[&str] = &[
    "SCAN",
    "TYPE",
    "DUMP",
    "PTTL",
    "STRLEN",
    "MEMORY USAGE",
    "INFO",
    "PING",
    "CLUSTER SLOTS",
    "READONLY",
    "AUTH",
    "HELLO",
    "SELECT",
];

/// Commands that take a subcommand; only `NAME SUB` pairs listed in [`ALLOWED`] pass.
const CONTAINERS: &[&str] = &["MEMORY", "CLUSTER"];

/// Whether `argv` may be sent to Redis.
pub fn is_allowed(argv: &[Vec<u8>]) -> bool {
    let Some(name) = argv.first() else {
        return false;
    };
    let name = String::from_utf8_lossy(name).to_ascii_uppercase();
    let full = if CONTAINERS.contains(&name.as_str()) {
        match argv.get(1) {
            Some(sub) => format!(
                "{name} {}",
                String::from_utf8_lossy(sub).to_ascii_uppercase()
            ),
            None => return false,
        }
    } else {
        name
    };
    ALLOWED.contains(&full.as_str())
}

fn refused(argv: &[Vec<u8>]) -> RedisError {
    let name = argv
        .first()
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .unwrap_or_default();
    RedisError::from((
        redis::ErrorKind::ClientError,
        "command refused by bitlens (read-only exporter)",
        name,
    ))
}

fn lost_connection(e: &RedisError) -> bool {
    e.is_connection_dropped() || e.is_io_error() || e.is_connection_refusal()
}

/// A read-only handle on a Redis connection.
#[derive(Clone)]
pub struct ReadOnlyRedis {
    conn: ConnectionManager,
}

impl ReadOnlyRedis {
    /// Wraps a connection; from now on only allowed commands can be sent through it.
    pub fn new(conn: ConnectionManager) -> Self {
        ReadOnlyRedis { conn }
    }

    /// Sends one command after checking it against the allow-list.
    pub async fn query(&mut self, argv: &[Vec<u8>]) -> Result<Value, RedisError> {
        if !is_allowed(argv) {
            return Err(refused(argv));
        }
        let mut cmd = Cmd::new();
        for a in argv {
            cmd.arg(a.as_slice());
        }
        match cmd.query_async(&mut self.conn).await {
            // The manager reconnects in the background after a dropped connection (a Redis
            // restart): one retry of a read command is safe.
            Err(e) if lost_connection(&e) => cmd.query_async(&mut self.conn).await,
            other => other,
        }
    }

    /// Sends several commands in one pipeline (one round trip) after checking every one.
    /// Returns one value per command; error replies come back as values, not as an `Err`.
    pub async fn pipeline(&mut self, cmds: &[Vec<Vec<u8>>]) -> Result<Vec<Value>, RedisError> {
        if let Some(bad) = cmds.iter().find(|c| !is_allowed(c)) {
            return Err(refused(bad));
        }
        if cmds.is_empty() {
            return Ok(Vec::new());
        }
        let mut pipe = Pipeline::with_capacity(cmds.len());
        for argv in cmds {
            let mut cmd = Cmd::new();
            for a in argv {
                cmd.arg(a.as_slice());
            }
            pipe.add_command(cmd);
        }
        match pipe.query_async(&mut self.conn).await {
            Err(e) if lost_connection(&e) => pipe.query_async(&mut self.conn).await,
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(a: &[&str]) -> Vec<Vec<u8>> {
        a.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    #[test]
    fn only_read_commands_pass() {
        for ok in [
            &["SCAN", "0", "MATCH", "x*", "COUNT", "100"][..],
            &["type", "k"],
            &["Dump", "k"],
            &["PTTL", "k"],
            &["STRLEN", "k"],
            &["memory", "usage", "k"],
            &["INFO", "server"],
            &["PING"],
            &["cluster", "slots"],
            &["READONLY"],
        ] {
            assert!(is_allowed(&v(ok)), "{ok:?}");
        }
        for bad in [
            &["SET", "k", "v"][..],
            &["DEL", "k"],
            &["FLUSHALL"],
            &["FLUSHDB"],
            &["CONFIG", "SET", "save", ""],
            &["MEMORY", "PURGE"],
            &["MEMORY"],
            &["CLUSTER", "RESET"],
            &["CLUSTER", "FAILOVER"],
            &["CLUSTER"],
            &["READWRITE"],
            &["EVAL", "return 1", "0"],
            &["RESTORE", "k", "0", "x"],
            &["SHUTDOWN"],
            &["KEYS", "*"],
            &["DEBUG", "SLEEP", "1"],
            &["SCANX"],
            &[],
        ] {
            assert!(!is_allowed(&v(bad)), "{bad:?}");
        }
    }
}
