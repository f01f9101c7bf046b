//! The command interpreter: one argv in, one [`Reply`] out, as Redis 7 answers it.
//!
//! Each command family lives in its own module and exports a table of [`CommandSpec`]s. This
//! module looks the name up (case-insensitively), checks the arity exactly as Redis does, and
//! calls the handler. Unknown commands and wrong arities give Redis' exact error texts.

pub mod analytics;
pub mod args;
pub mod bitmap;
pub mod geo;
pub mod hash;
pub mod hll;
pub mod keys;
pub mod list;
pub mod set;
pub mod stream;
pub mod zset;

use crate::dialect::Profile;
use crate::keyspace::Keyspace;
use crate::reply::Reply;

/// What a command runs against: the selected database and the server profile whose dialect
/// the reply follows (see [`crate::dialect`]).
pub struct Ctx<'a> {
    /// The selected database.
    pub ks: &'a mut Keyspace,
    /// The server whose replies are reproduced.
    pub profile: &'static Profile,
    /// The clock at which expiry is judged, Unix milliseconds; `None`: expiry is not applied
    /// (every key and hash field is alive).
    pub now_ms: Option<i64>,
}

/// A command handler: receives the context and the whole argv (argv\[0\] is the command name
/// as typed).
pub type Handler = fn(&mut Ctx<'_>, &[Vec<u8>]) -> Reply;

/// One command: lower-case name, Redis arity (N > 0: exactly N arguments including the name;
/// N < 0: at least -N), and handler.
pub struct CommandSpec {
    pub name: &'static str,
    pub arity: i32,
    pub handler: Handler,
}

fn tables() -> [&'static [CommandSpec]; 10] {
    [
        keys::COMMANDS,
        bitmap::COMMANDS,
        hll::COMMANDS,
        geo::COMMANDS,
        zset::COMMANDS,
        list::COMMANDS,
        set::COMMANDS,
        hash::COMMANDS,
        stream::COMMANDS,
        analytics::COMMANDS,
    ]
}

/// Finds the spec of a command by name, case-insensitively.
pub fn lookup(name: &[u8]) -> Option<&'static CommandSpec> {
    tables()
        .into_iter()
        .flat_map(|t| t.iter())
        .find(|c| c.name.as_bytes().eq_ignore_ascii_case(name))
}

/// Names of every command bitlens answers, lower case.
pub fn command_names() -> Vec<&'static str> {
    tables()
        .into_iter()
        .flat_map(|t| t.iter())
        .map(|c| c.name)
        .collect()
}

/// Runs one command on the keyspace and returns Redis' reply for it. Never panics on any
/// argv; an empty argv gets the reply Redis gives to an empty inline command (none: we
/// return an `ERR` for it).
pub fn execute(ks: &mut Keyspace, argv: &[Vec<u8>]) -> Reply {
    execute_in(
        &mut Ctx {
            ks,
            profile: Profile::default_profile(),
            now_ms: None,
        },
        argv,
    )
}

/// Runs one command in `ctx` (its database and profile) and returns that server's reply.
pub fn execute_in(ctx: &mut Ctx<'_>, argv: &[Vec<u8>]) -> Reply {
    let Some(name) = argv.first() else {
        return Reply::err("ERR empty command");
    };
    let Some(spec) = lookup(name) else {
        return unknown_command(argv);
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

/// Convenience: [`execute`] with string arguments.
pub fn execute_str(ks: &mut Keyspace, argv: &[&str]) -> Reply {
    let argv: Vec<Vec<u8>> = argv.iter().map(|a| a.as_bytes().to_vec()).collect();
    execute(ks, &argv)
}

/// Redis 7's text for an unknown command: the name, then up to 128 bytes of arguments, each
/// quoted and followed by a space; CR and LF become spaces.
fn unknown_command(argv: &[Vec<u8>]) -> Reply {
    let mut args = String::new();
    for a in &argv[1..] {
        if args.len() >= 128 {
            break;
        }
        let room = 128 - args.len();
        let a = String::from_utf8_lossy(&a[..a.len().min(room)]).into_owned();
        args.push('\'');
        args.push_str(&a);
        args.push_str("' ");
    }
    let name = String::from_utf8_lossy(&argv[0][..argv[0].len().min(128)]).into_owned();
    let text = format!("ERR unknown command '{name}', with args beginning with: {args}");
    Reply::err(text.replace(['\r', '\n'], " "))
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
}
