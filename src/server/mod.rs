//! A read-only Redis server over a session, without the network: the requests of one
//! connection in, the bytes of its replies out. `bitlens resp` runs it over TCP; any front end
//! can run it over its own transport (a socket pair for an in-process client).
//!
//! - **Requests** are read as Redis reads them ([`request`]), pipelined, answered in order.
//! - **Replies** are the session's ([`Session`]), in RESP2, or RESP3 after `HELLO 3`
//!   ([`crate::resp3`]).
//! - **Writes** are refused as a read-only replica refuses them ([`crate::replica`]): the
//!   server's unknown-command and arity errors first, then `-NOAUTH` when a password is set and
//!   the client has not authenticated, then `-READONLY You can't write against a read only
//!   replica.`.
//! - **Connection commands** are answered here: `AUTH`, `HELLO` (2 or 3), `CLIENT` (`ID`,
//!   `GETNAME`, `SETNAME`, `SETINFO`, `INFO`, `LIST`), `QUIT`, `RESET`, `MULTI`/`EXEC`/`DISCARD`,
//!   `INFO` (server, clients, replication and keyspace sections), `COMMAND` (`COUNT`, `LIST`,
//!   `INFO`, `DOCS`), `CONFIG GET` (`databases`) and `TIME` (the clock expiry is judged at).
//!   Their texts per server line are data ([`crate::replica::connection_dialect`]).
//! - **Connections** each keep their own database, name, protocol and MULTI queue; one command
//!   runs at a time over the shared session (a lock).

pub mod request;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::dialect::{Family, Profile};
use crate::replica::{self, Admission};
use crate::reply::Reply;
use crate::session::Session;

use request::{Parsed, Parser};

/// Who the server says it is and how it guards itself (see [`Server::new`]).
#[derive(Debug, Clone, Default)]
pub struct ServerOptions {
    /// `AUTH` / `HELLO ... AUTH` password (Redis' `requirepass`); `None`: no password.
    pub requirepass: Option<String>,
    /// The TCP port INFO reports (0 when there is none).
    pub port: u16,
    /// How many snapshot files the session holds (INFO's `os` line).
    pub files: usize,
    /// The writer's `redis-ver` / `valkey-ver` aux fields, when the file has them: INFO's and
    /// HELLO's version when they name the profile's line.
    pub writer: Option<crate::rdb::Writer>,
}

/// What every connection shares: the session and the server's identity.
pub struct Server {
    session: Mutex<Session>,
    profile: &'static Profile,
    /// `redis_version` as INFO and HELLO give it (Valkey: 7.2.4, with `valkey_version`).
    redis_version: String,
    /// The Valkey release, for Valkey writers.
    valkey_version: Option<String>,
    requirepass: Option<String>,
    clients: AtomicUsize,
    next_id: AtomicU64,
    port: u16,
    files: usize,
}

/// One connection's state.
struct Client {
    id: u64,
    db: u64,
    name: Option<Vec<u8>>,
    authenticated: bool,
    /// Commands queued after MULTI, and whether one was refused while queueing.
    multi: Option<(Vec<Vec<Vec<u8>>>, bool)>,
    addr: String,
    lib: (Option<Vec<u8>>, Option<Vec<u8>>),
    /// The protocol its replies use: 2, or 3 after `HELLO 3`.
    proto: u8,
}

/// One request's answer, before it is written in the client's protocol.
enum Answer {
    /// The engine's reply (or one shaped like it), re-typed for RESP3 by the request's command
    /// ([`crate::resp3`]).
    Reply(Reply),
    /// A flat `[k1, v1, ...]` that RESP3 sends as a map (HELLO, CONFIG GET).
    Map(Vec<Reply>),
    /// Text that RESP3 sends as a verbatim string (`=len\r\ntxt:...`): INFO, CLIENT INFO.
    Verbatim(String),
    /// EXEC's replies, each with the request it answers.
    Exec(Vec<(Vec<Vec<u8>>, Answer)>),
}

impl From<Reply> for Answer {
    fn from(r: Reply) -> Answer {
        Answer::Reply(r)
    }
}

/// Writes `answer` to `argv` in protocol `proto`.
fn render(answer: &Answer, argv: &[Vec<u8>], proto: u8, out: &mut Vec<u8>) {
    match (answer, proto) {
        (Answer::Reply(r), 3) => crate::resp3::write_resp3(argv, r, out),
        (Answer::Reply(r), _) => out.extend_from_slice(&r.to_resp()),
        (Answer::Map(items), 3) => {
            out.extend_from_slice(format!("%{}\r\n", items.len() / 2).as_bytes());
            for i in items {
                crate::resp3::write_resp3(&[], i, out);
            }
        }
        (Answer::Map(items), _) => out.extend_from_slice(&Reply::Array(items.clone()).to_resp()),
        (Answer::Verbatim(text), 3) => {
            out.extend_from_slice(format!("={}\r\ntxt:", text.len() + 4).as_bytes());
            out.extend_from_slice(text.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        (Answer::Verbatim(text), _) => out.extend_from_slice(&Reply::bulk(text).to_resp()),
        (Answer::Exec(items), _) => {
            out.extend_from_slice(format!("*{}\r\n", items.len()).as_bytes());
            for (argv, a) in items {
                render(a, argv, proto, out);
            }
        }
    }
}

/// What a request does to the connection after its reply.
#[derive(PartialEq)]
enum After {
    Continue,
    Close,
}

impl Server {
    /// A server answering from `session` as its profile's server would.
    pub fn new(session: Session, opts: ServerOptions) -> Server {
        let profile = session.profile();
        let (redis_version, valkey_version) = versions(profile, opts.writer.as_ref());
        Server {
            session: Mutex::new(session),
            profile,
            redis_version,
            valkey_version,
            requirepass: opts.requirepass,
            clients: AtomicUsize::new(0),
            next_id: AtomicU64::new(1),
            port: opts.port,
            files: opts.files,
        }
    }

    /// Counts a connection in (INFO's `connected_clients`) when fewer than `max` are open;
    /// `false` (nothing counted) at the limit: the caller then writes
    /// [`Server::MAX_CLIENTS_REPLY`] and closes.
    pub fn try_connect(&self, max: usize) -> bool {
        if self.clients.fetch_add(1, Ordering::SeqCst) >= max {
            self.clients.fetch_sub(1, Ordering::SeqCst);
            return false;
        }
        true
    }

    /// Counts a connection out (after [`Server::try_connect`]).
    pub fn disconnect(&self) {
        self.clients.fetch_sub(1, Ordering::SeqCst);
    }

    /// What Redis writes to a client past `maxclients` before closing it.
    pub const MAX_CLIENTS_REPLY: &'static [u8] = b"-ERR max number of clients reached\r\n";
}

/// One client connection's state: feed it the bytes the client sent, write back what
/// [`Connection::feed`] returns.
pub struct Connection {
    parser: Parser,
    client: Client,
}

/// The result of [`Connection::feed`].
#[derive(Debug, Default)]
pub struct Fed {
    /// The replies to every whole request received so far, in order.
    pub out: Vec<u8>,
    /// Close the connection after writing `out` (QUIT, a protocol error).
    pub close: bool,
}

impl Connection {
    /// A new connection from `addr` (as CLIENT LIST shows it), refusing arguments longer than
    /// `max_bulk` bytes (Redis' `proto-max-bulk-len`).
    pub fn new(server: &Server, addr: impl Into<String>, max_bulk: usize) -> Connection {
        Connection {
            parser: Parser::new(max_bulk),
            client: Client {
                id: server.next_id.fetch_add(1, Ordering::SeqCst),
                db: 0,
                name: None,
                authenticated: server.requirepass.is_none(),
                multi: None,
                addr: addr.into(),
                lib: (None, None),
                proto: 2,
            },
        }
    }

    /// Bytes received and not yet answered (a partial request): the caller's query-buffer
    /// limit is checked against it.
    pub fn pending(&self) -> usize {
        self.parser.pending()
    }

    /// Takes bytes from the client and answers every request they complete.
    pub fn feed(&mut self, server: &Server, bytes: &[u8]) -> Fed {
        self.receive(bytes);
        self.answer(server, usize::MAX)
    }

    /// Takes bytes from the client without answering them ([`Self::answer`] does).
    pub fn receive(&mut self, bytes: &[u8]) {
        self.parser.extend(bytes);
    }

    /// Answers the whole requests received, in order, until `budget` bytes of replies are
    /// ready (at least one request is answered when one is whole) or none is left: a network
    /// front end writes each batch before asking for the next, so a client that pipelines
    /// large replies and does not read them holds one batch of replies, not all of them. An
    /// empty `out` (and no `close`) means no whole request is left.
    pub fn answer(&mut self, server: &Server, budget: usize) -> Fed {
        let (out, after) = answer_all(&mut self.parser, &mut self.client, server, budget);
        Fed {
            out,
            close: after == After::Close,
        }
    }
}

/// `redis_version` (and Valkey's `valkey_version`) as the writer's INFO gives them: the
/// file's `redis-ver` / `valkey-ver`, else the profile's line with patch 0. Valkey reports
/// `redis_version:7.2.4`, the Redis release it stays compatible with.
fn versions(
    profile: &'static Profile,
    writer: Option<&crate::rdb::Writer>,
) -> (String, Option<String>) {
    let line = format!(
        "{}.{}.{}",
        profile.version.0, profile.version.1, profile.first_patch
    );
    match profile.family {
        Family::Redis => (
            writer
                .and_then(|w| w.redis_ver.clone())
                .filter(|v| Profile::for_version(Family::Redis, v) == Some(profile))
                .unwrap_or(line),
            None,
        ),
        Family::Valkey => (
            "7.2.4".to_string(),
            Some(
                writer
                    .and_then(|w| w.valkey_ver.clone())
                    .filter(|v| Profile::for_version(Family::Valkey, v) == Some(profile))
                    .unwrap_or(line),
            ),
        ),
    }
}

/// Answers the whole requests buffered, in order, into one output buffer, until it holds
/// `budget` bytes or more.
fn answer_all(
    parser: &mut Parser,
    client: &mut Client,
    shared: &Server,
    budget: usize,
) -> (Vec<u8>, After) {
    let mut out = Vec::new();
    loop {
        if out.len() >= budget {
            return (out, After::Continue);
        }
        match parser.next(
            client.authenticated
                || !replica::connection_dialect(shared.profile).unauthenticated_limits,
        ) {
            Parsed::Incomplete => return (out, After::Continue),
            Parsed::Error(text) => {
                out.extend_from_slice(&Reply::err(text).to_resp());
                return (out, After::Close);
            }
            Parsed::Request(argv) => {
                let (reply, after) = answer(&argv, client, shared);
                render(&reply, &argv, client.proto, &mut out);
                if after == After::Close {
                    return (out, After::Close);
                }
            }
        }
    }
}

fn lower(word: &[u8]) -> String {
    String::from_utf8_lossy(word).to_ascii_lowercase()
}

fn noauth() -> Reply {
    Reply::err("NOAUTH Authentication required.")
}

fn wrong_args(name: &str) -> Reply {
    Reply::err(format!(
        "ERR wrong number of arguments for '{name}' command"
    ))
}

/// One request's reply, with MULTI's queueing around [`answer_one`].
fn answer(argv: &[Vec<u8>], client: &mut Client, shared: &Server) -> (Answer, After) {
    let name = lower(&argv[0]);
    if client.multi.is_some() {
        match name.as_str() {
            "exec" => {
                let (queued, aborted) = client.multi.take().unwrap_or_default();
                if aborted {
                    return (
                        Reply::err("EXECABORT Transaction discarded because of previous errors.")
                            .into(),
                        After::Continue,
                    );
                }
                let replies = queued
                    .into_iter()
                    .map(|argv| {
                        let a = answer_one(&argv, client, shared).0;
                        (argv, a)
                    })
                    .collect();
                return (Answer::Exec(replies), After::Continue);
            }
            "discard" => {
                client.multi = None;
                return (Reply::ok().into(), After::Continue);
            }
            "multi" | "watch" if argv.len() >= 2 || name == "multi" => {
                // Recorded on every server of the matrix (MULTI, WATCH k, GET k, EXEC).
                let d = replica::connection_dialect(shared.profile);
                let text = if name == "multi" {
                    d.nested_multi
                } else {
                    d.watch_in_multi
                };
                if d.multi_refusal_aborts {
                    if let Some(m) = client.multi.as_mut() {
                        m.1 = true;
                    }
                }
                return (Reply::err(text).into(), After::Continue);
            }
            "quit" | "reset" => {}
            _ => {
                // Queue-time checks: unknown, arity, auth, read-only, as Redis makes them.
                let refusal = classify(argv, client, shared).err();
                let multi = client.multi.as_mut().expect("in MULTI");
                return match refusal {
                    Some(r) => {
                        multi.1 = true;
                        (r.into(), After::Continue)
                    }
                    None => {
                        multi.0.push(argv.to_vec());
                        (Reply::Status("QUEUED".into()).into(), After::Continue)
                    }
                };
            }
        }
    }
    answer_one(argv, client, shared)
}

/// The checks a command passes before it runs: `Ok` with whether the connection layer answers
/// it, or the refusal (unknown command, arity, `NOAUTH`, `READONLY`).
fn classify(argv: &[Vec<u8>], client: &Client, shared: &Server) -> Result<bool, Reply> {
    let name = lower(&argv[0]);
    if let Some(arity) = connection_arity(&name, shared.profile) {
        let n = argv.len() as i32;
        if (arity > 0 && n != arity) || (arity < 0 && n < -arity) {
            return Err(wrong_args(&name));
        }
        if !client.authenticated && !matches!(name.as_str(), "auth" | "hello" | "quit") {
            return Err(noauth());
        }
        return Ok(true);
    }
    let dialect = replica::connection_dialect(shared.profile);
    if !client.authenticated && dialect.auth_before_lookup {
        return Err(noauth());
    }
    let admission = {
        let mut session = shared.session.lock().unwrap_or_else(|p| p.into_inner());
        session.select_database(client.db);
        replica::admit(&session.ctx(), argv)
    };
    match admission {
        Admission::Refused(r) => Err(r),
        _ if !client.authenticated => Err(noauth()),
        Admission::Write => Err(replica::readonly_error()),
        Admission::Read => Ok(false),
    }
}

/// The arity of a command the connection layer answers on `profile`'s server (`None`: the
/// engine answers it, or the server has no such command). From the recorded `COMMAND` tables.
fn connection_arity(name: &str, profile: &Profile) -> Option<i32> {
    let since_6_2 = profile.family == Family::Valkey || profile.version >= (6, 2);
    Some(match name {
        "auth" => -2,
        "hello" => -1,
        "client" => -2,
        "quit" => -1,
        "reset" if since_6_2 => 1,
        "multi" => 1,
        "exec" => 1,
        "discard" => 1,
        "info" => -1,
        "command" => -1,
        "config" => -2,
        "time" => 1,
        "watch" => -2,
        "unwatch" => 1,
        _ => return None,
    })
}

/// Answers one request outside MULTI's queueing.
fn answer_one(argv: &[Vec<u8>], client: &mut Client, shared: &Server) -> (Answer, After) {
    match classify(argv, client, shared) {
        Err(r) => (r.into(), After::Continue),
        Ok(true) => connection_command(argv, client, shared),
        Ok(false) => {
            let mut session = shared.session.lock().unwrap_or_else(|p| p.into_inner());
            session.select_database(client.db);
            let reply = session.execute(argv);
            client.db = session.selected();
            (reply.into(), After::Continue)
        }
    }
}

fn unknown_subcommand(sub: &[u8], container: &str, profile: &Profile) -> Reply {
    let text = profile
        .object_unknown_subcommand
        .replace("OBJECT", container)
        .replace("{}", &String::from_utf8_lossy(sub));
    Reply::err(text)
}

fn bulk(s: impl AsRef<[u8]>) -> Reply {
    Reply::bulk(s)
}

fn connection_command(argv: &[Vec<u8>], client: &mut Client, shared: &Server) -> (Answer, After) {
    let name = lower(&argv[0]);
    let profile = shared.profile;
    let reply = match name.as_str() {
        "quit" => return (Reply::ok().into(), After::Close),
        "auth" => auth(&argv[1..], client, shared),
        "hello" => return (hello(argv, client, shared), After::Continue),
        "reset" => {
            client.db = 0;
            client.name = None;
            client.multi = None;
            client.authenticated = shared.requirepass.is_none();
            client.proto = 2;
            Reply::Status("RESET".into())
        }
        "multi" => {
            client.multi = Some((Vec::new(), false));
            Reply::ok()
        }
        "exec" => Reply::err("ERR EXEC without MULTI"),
        "discard" => Reply::err("ERR DISCARD without MULTI"),
        // Nothing in a snapshot changes, so no watched key is ever touched: EXEC runs.
        "watch" | "unwatch" => Reply::ok(),
        "client" => return (client_command(argv, client, shared), After::Continue),
        "info" => return (Answer::Verbatim(info(&argv[1..], shared)), After::Continue),
        "command" => return (command_command(argv, shared), After::Continue),
        "config" => match lower(&argv[1]).as_str() {
            "get" if argv.len() >= 3 => {
                let mut items = Vec::new();
                for pattern in &argv[2..] {
                    if crate::glob::matches(pattern, b"databases") && items.is_empty() {
                        let count = shared
                            .session
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .db_count();
                        items.push(bulk("databases"));
                        items.push(bulk(count.to_string()));
                    }
                }
                return (Answer::Map(items), After::Continue);
            }
            "get" => wrong_args("config|get"),
            _ => unknown_subcommand(&argv[1], "CONFIG", profile),
        },
        "time" => {
            let clock = shared
                .session
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clock()
                .unwrap_or(0);
            Reply::Array(vec![
                bulk(clock.div_euclid(1000).to_string()),
                bulk((clock.rem_euclid(1000) * 1000).to_string()),
            ])
        }
        _ => Reply::err(profile.unknown_command(argv)),
    };
    (reply.into(), After::Continue)
}

/// `AUTH [username] password`, as Redis 6+ answers it (the only user is `default`).
fn auth(args: &[Vec<u8>], client: &mut Client, shared: &Server) -> Reply {
    if args.len() > 2 {
        return Reply::syntax_error();
    }
    let Some(pass) = &shared.requirepass else {
        if args.len() == 1 {
            return Reply::err(
                "ERR AUTH <password> called without any password configured for the default \
                 user. Are you sure your configuration is correct?",
            );
        }
        // `AUTH default x` with no password set: the default user accepts any password.
        client.authenticated = args[0] == b"default";
        return if client.authenticated {
            Reply::ok()
        } else {
            wrongpass(shared)
        };
    };
    let (user, given) = match args {
        [p] => (&b"default"[..], p),
        [u, p] => (&u[..], p),
        _ => return Reply::syntax_error(),
    };
    if user == b"default" && given.as_slice() == pass.as_bytes() {
        client.authenticated = true;
        Reply::ok()
    } else {
        wrongpass(shared)
    }
}

fn wrongpass(shared: &Server) -> Reply {
    Reply::err(replica::connection_dialect(shared.profile).wrongpass)
}

/// `HELLO [protover [AUTH username password] [SETNAME clientname]]`: protocol 2 or 3; the
/// reply (a map) is in the protocol chosen.
fn hello(argv: &[Vec<u8>], client: &mut Client, shared: &Server) -> Answer {
    let mut i = 1;
    let mut proto = None;
    if let Some(ver) = argv.get(1) {
        match std::str::from_utf8(ver)
            .ok()
            .and_then(|v| v.parse::<i64>().ok())
        {
            Some(v @ (2 | 3)) => proto = Some(v as u8),
            Some(_) => return Reply::err("NOPROTO unsupported protocol version").into(),
            None => {
                return Reply::err(replica::connection_dialect(shared.profile).hello_not_integer)
                    .into()
            }
        }
        i = 2;
    }
    let mut setname = None;
    while i < argv.len() {
        let more = argv.len() - i - 1;
        match lower(&argv[i]).as_str() {
            "auth" if more >= 2 => {
                let r = auth(&argv[i + 1..i + 3], client, shared);
                if r.is_error() {
                    return r.into();
                }
                i += 3;
            }
            "setname" if more >= 1 => {
                setname = Some(argv[i + 1].clone());
                i += 2;
            }
            _ => {
                return Reply::err(format!(
                    "ERR Syntax error in HELLO option '{}'",
                    String::from_utf8_lossy(&argv[i])
                ))
                .into()
            }
        }
    }
    if !client.authenticated {
        return Answer::Reply(Reply::err(
            "NOAUTH HELLO must be called with the client already authenticated, otherwise the \
             HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and \
             select the RESP protocol version at the same time",
        ));
    }
    if let Some(n) = setname {
        // As CLIENT SETNAME, before the protocol changes (Redis 7.4 helloCommand).
        if n.iter().any(|&b| b <= b' ' || b > b'~') {
            return Answer::Reply(Reply::err(
                "ERR Client names cannot contain spaces, newlines or special characters.",
            ));
        }
        client.name = (!n.is_empty()).then_some(n);
    }
    if let Some(p) = proto {
        client.proto = p;
    }
    let (server, version) = match &shared.valkey_version {
        Some(v) => ("valkey", v.clone()),
        None => ("redis", shared.redis_version.clone()),
    };
    Answer::Map(vec![
        bulk("server"),
        bulk(server),
        bulk("version"),
        bulk(version),
        bulk("proto"),
        Reply::Integer(client.proto.into()),
        bulk("id"),
        Reply::Integer(client.id as i64),
        bulk("mode"),
        bulk("standalone"),
        bulk("role"),
        bulk("replica"),
        bulk("modules"),
        Reply::Array(Vec::new()),
    ])
}

fn client_line(client: &Client) -> String {
    format!(
        "id={} addr={} laddr=127.0.0.1 fd=8 name={} db={} resp={} lib-name={} lib-ver={}\n",
        client.id,
        client.addr,
        String::from_utf8_lossy(client.name.as_deref().unwrap_or_default()),
        client.db,
        client.proto,
        String::from_utf8_lossy(client.lib.0.as_deref().unwrap_or_default()),
        String::from_utf8_lossy(client.lib.1.as_deref().unwrap_or_default()),
    )
}

fn client_command(argv: &[Vec<u8>], client: &mut Client, shared: &Server) -> Answer {
    match (lower(&argv[1]).as_str(), argv.len()) {
        ("info" | "list", 2) => Answer::Verbatim(client_line(client)),
        _ => client_reply(argv, client, shared).into(),
    }
}

fn client_reply(argv: &[Vec<u8>], client: &mut Client, shared: &Server) -> Reply {
    let profile = shared.profile;
    let sub = lower(&argv[1]);
    let setinfo = profile.family == Family::Valkey || profile.version >= (7, 2);
    match (sub.as_str(), argv.len()) {
        ("id", 2) => Reply::Integer(client.id as i64),
        ("getname", 2) => client.name.clone().map_or(Reply::NullBulk, Reply::Bulk),
        ("setname", 3) => {
            if argv[2].iter().any(|&b| b <= b' ' || b > b'~') {
                return Reply::err(
                    "ERR Client names cannot contain spaces, newlines or special characters.",
                );
            }
            client.name = (!argv[2].is_empty()).then(|| argv[2].clone());
            Reply::ok()
        }
        ("setinfo", 4) if setinfo => {
            let option = lower(&argv[2]);
            if matches!(option.as_str(), "lib-name" | "lib-ver")
                && argv[3].iter().any(|&b| b <= b' ' || b > b'~')
            {
                // Recorded on Redis 7.4.1 and Valkey 9.1.2.
                return Reply::err(format!(
                    "ERR {option} cannot contain spaces, newlines or special characters."
                ));
            }
            match option.as_str() {
                "lib-name" => client.lib.0 = Some(argv[3].clone()),
                "lib-ver" => client.lib.1 = Some(argv[3].clone()),
                _ => {
                    return Reply::err(format!(
                        "ERR Unrecognized option '{}'",
                        String::from_utf8_lossy(&argv[2])
                    ))
                }
            }
            Reply::ok()
        }
        ("id" | "getname" | "setname" | "info" | "list", _) => {
            match profile.subcommand_arity_error {
                Some(text) => Reply::err(text.replace("{}", &format!("client|{sub}"))),
                None => client_unknown(&argv[1], profile),
            }
        }
        ("setinfo", _) if setinfo => wrong_args("client|setinfo"),
        _ => client_unknown(&argv[1], profile),
    }
}

fn client_unknown(sub: &[u8], profile: &Profile) -> Reply {
    let text = replica::connection_dialect(profile).client_unknown_subcommand;
    Reply::err(text.replace("{}", &String::from_utf8_lossy(sub)))
}

/// INFO's text: the server, clients, replication and keyspace sections (all of them for no
/// argument, `all`, `default` or `everything`; else the ones named).
fn info(args: &[Vec<u8>], shared: &Server) -> String {
    let wanted: Vec<String> = args.iter().map(|a| lower(a)).collect();
    let all = wanted.is_empty()
        || wanted
            .iter()
            .any(|w| matches!(w.as_str(), "all" | "default" | "everything"));
    let want = |s: &str| all || wanted.iter().any(|w| w == s);
    let mut out = String::new();
    let mut section = |title: &str, body: String| {
        if !out.is_empty() {
            out.push_str("\r\n");
        }
        out.push_str(&format!("# {title}\r\n{body}"));
    };
    if want("server") {
        let mut s = format!("redis_version:{}\r\n", shared.redis_version);
        if let Some(v) = &shared.valkey_version {
            s.push_str(&format!("server_name:valkey\r\nvalkey_version:{v}\r\n"));
        }
        s.push_str(&format!(
            "redis_mode:standalone\r\nos:bitlens snapshot ({} file{})\r\ntcp_port:{}\r\n",
            shared.files,
            if shared.files == 1 { "" } else { "s" },
            shared.port,
        ));
        section("Server", s);
    }
    if want("clients") {
        section(
            "Clients",
            format!(
                "connected_clients:{}\r\n",
                shared.clients.load(Ordering::SeqCst)
            ),
        );
    }
    if want("replication") {
        section(
            "Replication",
            "role:slave\r\nmaster_host:\r\nmaster_link_status:down\r\nslave_read_only:1\r\nconnected_slaves:0\r\n".into(),
        );
    }
    if want("keyspace") {
        let session = shared.session.lock().unwrap_or_else(|p| p.into_inner());
        let mut s = String::new();
        let sub = replica::connection_dialect(shared.profile).info_subexpiry;
        for (db, ks) in session.databases() {
            let (mut keys, mut expires, mut volatile) = (0u64, 0u64, 0u64);
            for (_, e) in ks.iter() {
                keys += 1;
                expires += u64::from(e.expire_at_ms.is_some());
                volatile += u64::from(
                    matches!(e.value, crate::keyspace::Value::Hash(h) if h.has_field_expiry()),
                );
            }
            if keys == 0 {
                continue;
            }
            s.push_str(&format!("db{db}:keys={keys},expires={expires},avg_ttl=0"));
            if let Some(name) = sub {
                s.push_str(&format!(",{name}={volatile}"));
            }
            s.push_str("\r\n");
        }
        section("Keyspace", s);
    }
    // As the servers: the last section's last line ends the text (an unknown section: empty).
    out
}

/// `COMMAND`, `COMMAND COUNT`, `COMMAND LIST`, `COMMAND INFO name...` and `COMMAND DOCS`
/// over the commands bitlens answers (each entry: name, arity, flags, first key, last key,
/// step); DOCS answers an empty array (clients then use their own help).
fn command_command(argv: &[Vec<u8>], shared: &Server) -> Answer {
    let names = crate::command::command_names();
    let entry = |name: &str| -> Reply {
        let arity = crate::command::lookup(name.as_bytes()).map_or(-1, |s| s.arity);
        Reply::Array(vec![
            bulk(name),
            Reply::Integer(arity as i64),
            Reply::Array(vec![Reply::Status("readonly".into())]),
            Reply::Integer(1),
            Reply::Integer(1),
            Reply::Integer(1),
        ])
    };
    let Some(sub) = argv.get(1) else {
        return Reply::Array(names.iter().map(|n| entry(n)).collect()).into();
    };
    let reply = match lower(sub).as_str() {
        "count" => Reply::Integer(names.len() as i64),
        "list" => Reply::Array(names.iter().map(bulk).collect()),
        "docs" => return Answer::Map(Vec::new()),
        "info" => Reply::Array(
            argv[2..]
                .iter()
                .map(|n| {
                    let n = lower(n);
                    if names.contains(&n.as_str()) {
                        entry(&n)
                    } else {
                        Reply::NullArray
                    }
                })
                .collect(),
        ),
        _ => unknown_subcommand(sub, "COMMAND", shared.profile),
    };
    reply.into()
}
