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
//!   `INFO` (server, clients, memory, persistence, stats, replication, cluster and keyspace
//!   sections), `COMMAND` (`COUNT`, `LIST`, `INFO`, `DOCS`), `CONFIG GET` (`databases`) and
//!   `TIME` (the clock expiry is judged at); the server commands around them ([`admin`]).
//!   Their texts per server line are data ([`crate::replica::connection_dialect`]).
//! - **Connections** each keep their own database, name, protocol and MULTI queue, and publish
//!   their CLIENT LIST row to the server after each batch of requests; one command runs at a
//!   time over the shared session (a lock).

mod admin;
pub mod request;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

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
    /// HELLO's version when they name the profile's line; its `used-mem` (INFO memory's
    /// `used_memory`) and `ctime` (`LASTSAVE`, INFO's `rdb_last_save_time`).
    pub writer: Option<crate::rdb::Writer>,
    /// The most clients the front end admits (INFO's `maxclients`).
    pub maxclients: usize,
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
    maxclients: usize,
    /// The writer's `used_memory` at save (INFO memory), when the file says.
    used_memory: Option<u64>,
    /// When the file was saved (Unix seconds): its `ctime`, else the session's clock.
    lastsave: i64,
    /// When the server started (Unix ms) and its random run id, as INFO gives them.
    started_ms: i64,
    run_id: String,
    /// Every open connection's CLIENT LIST row, by id (each connection publishes its own).
    registry: Arc<Mutex<BTreeMap<u64, ClientRow>>>,
    /// INFO stats' counters: commands answered, bytes in and out, connections refused.
    stats: Stats,
}

/// INFO stats' counters.
#[derive(Default)]
struct Stats {
    commands: AtomicU64,
    net_in: AtomicU64,
    net_out: AtomicU64,
    rejected: AtomicU64,
}

/// What CLIENT LIST shows of one connection.
#[derive(Clone, Debug, Default)]
struct ClientRow {
    id: u64,
    addr: String,
    name: Vec<u8>,
    db: u64,
    proto: u8,
    lib: (Vec<u8>, Vec<u8>),
    /// Unix ms of the connection and of its last request.
    created_ms: i64,
    last_ms: i64,
    /// The last command, as CLIENT LIST's `cmd` (`NULL` before any).
    cmd: String,
    /// Commands queued in MULTI (`None`: not in MULTI).
    multi: Option<usize>,
    commands: u64,
    net_in: u64,
    net_out: u64,
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
    /// Since when (Unix ms), the last request, and the counters of its CLIENT LIST row.
    created_ms: i64,
    last_ms: i64,
    cmd: String,
    commands: u64,
    net_in: u64,
    net_out: u64,
    /// Bytes received and not yet added to the server's `total_net_input_bytes`.
    net_in_unsaid: u64,
}

impl Client {
    fn row(&self) -> ClientRow {
        ClientRow {
            id: self.id,
            addr: self.addr.clone(),
            name: self.name.clone().unwrap_or_default(),
            db: self.db,
            proto: self.proto,
            lib: (
                self.lib.0.clone().unwrap_or_default(),
                self.lib.1.clone().unwrap_or_default(),
            ),
            created_ms: self.created_ms,
            last_ms: self.last_ms,
            cmd: self.cmd.clone(),
            multi: self.multi.as_ref().map(|m| m.0.len()),
            commands: self.commands,
            net_in: self.net_in,
            net_out: self.net_out,
        }
    }
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
        (Answer::Reply(r), _) => r.write_resp(out),
        (Answer::Map(items), 3) => {
            out.extend_from_slice(format!("%{}\r\n", items.len() / 2).as_bytes());
            for i in items {
                crate::resp3::write_resp3(&[], i, out);
            }
        }
        (Answer::Map(items), _) => {
            out.extend_from_slice(format!("*{}\r\n", items.len()).as_bytes());
            for i in items {
                i.write_resp(out);
            }
        }
        (Answer::Verbatim(text), 3) => {
            out.extend_from_slice(format!("={}\r\ntxt:", text.len() + 4).as_bytes());
            out.extend_from_slice(text.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        (Answer::Verbatim(text), _) => {
            out.extend_from_slice(format!("${}\r\n", text.len()).as_bytes());
            out.extend_from_slice(text.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
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
        let started_ms = crate::keyspace::wall_clock_ms();
        let lastsave = opts
            .writer
            .as_ref()
            .and_then(|w| w.ctime.as_deref()?.trim().parse::<i64>().ok())
            .unwrap_or_else(|| session.clock().unwrap_or(started_ms).div_euclid(1000));
        Server {
            maxclients: opts.maxclients,
            used_memory: opts.writer.as_ref().and_then(|w| w.used_mem),
            lastsave,
            started_ms,
            run_id: run_id(started_ms),
            registry: Arc::default(),
            stats: Stats::default(),
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
            self.stats.rejected.fetch_add(1, Ordering::Relaxed);
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
    /// The server's CLIENT LIST rows: this connection's is removed when it is dropped.
    registry: Arc<Mutex<BTreeMap<u64, ClientRow>>>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        lock(&self.registry).remove(&self.client.id);
    }
}

/// Locks `m`, taking the data of a poisoned lock as it is (a panicked request leaves rows
/// and the session whole).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A run id as Redis gives it (40 hex digits), from the start time and process.
fn run_id(started_ms: i64) -> String {
    let mut x = (started_ms as u64) ^ (u64::from(std::process::id()) << 32) ^ 0x9e37_79b9_7f4a_7c15;
    (0..5)
        .map(|_| {
            // splitmix64
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            format!("{:08x}", (z ^ (z >> 31)) as u32)
        })
        .collect()
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
        let now = crate::keyspace::wall_clock_ms();
        let client = Client {
            id: server.next_id.fetch_add(1, Ordering::SeqCst),
            db: 0,
            name: None,
            authenticated: server.requirepass.is_none(),
            multi: None,
            addr: addr.into(),
            lib: (None, None),
            proto: 2,
            created_ms: now,
            last_ms: now,
            cmd: "NULL".into(),
            commands: 0,
            net_in: 0,
            net_out: 0,
            net_in_unsaid: 0,
        };
        lock(&server.registry).insert(client.id, client.row());
        Connection {
            parser: Parser::new(max_bulk),
            client,
            registry: server.registry.clone(),
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
        self.client.net_in += bytes.len() as u64;
        self.client.net_in_unsaid += bytes.len() as u64;
        self.parser.extend(bytes);
    }

    /// Answers the whole requests received, in order, until `budget` bytes of replies are
    /// ready (at least one request is answered when one is whole) or none is left: a network
    /// front end writes each batch before asking for the next, so a client that pipelines
    /// large replies and does not read them holds one batch of replies, not all of them. An
    /// empty `out` (and no `close`) means no whole request is left.
    pub fn answer(&mut self, server: &Server, budget: usize) -> Fed {
        let (out, after) = answer_all(&mut self.parser, &mut self.client, server, budget);
        self.client.net_out += out.len() as u64;
        let stats = &server.stats;
        stats.net_out.fetch_add(out.len() as u64, Ordering::Relaxed);
        stats.net_in.fetch_add(
            std::mem::take(&mut self.client.net_in_unsaid),
            Ordering::Relaxed,
        );
        lock(&server.registry).insert(self.client.id, self.client.row());
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
                client.last_ms = crate::keyspace::wall_clock_ms();
                client.commands += 1;
                shared.stats.commands.fetch_add(1, Ordering::Relaxed);
                client.cmd = row_command(&argv, shared.profile);
                let (reply, after) = answer(&argv, client, shared);
                // RESP2 is written without the request: its arguments are freed first (a
                // large one is then held twice at most, as its reply and its bytes out, as
                // Redis holds it).
                let argv = if client.proto == 3 {
                    argv
                } else {
                    drop(argv);
                    Vec::new()
                };
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
        other => return admin::arity(other),
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
        // LATENCY DOCTOR's report is a verbatim string in RESP3.
        _ => match admin::answer(argv, profile, shared.lastsave) {
            Reply::Bulk(text) if name == "latency" => {
                return (
                    Answer::Verbatim(String::from_utf8_lossy(&text).into_owned()),
                    After::Continue,
                )
            }
            r => r,
        },
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

/// Commands whose CLIENT LIST `cmd` names the subcommand too (`client|list`) from Redis 7.0
/// on (the servers with subcommand tables).
const CONTAINERS: &[&str] = &[
    "acl", "client", "cluster", "command", "config", "function", "latency", "memory", "module",
    "object", "pubsub", "script", "slowlog", "xgroup", "xinfo",
];

/// CLIENT LIST's `cmd` for a request: its name in lower case, with `|subcommand` on the
/// lines that have subcommand tables.
fn row_command(argv: &[Vec<u8>], profile: &Profile) -> String {
    let name = lower(&argv[0]);
    match argv.get(1) {
        Some(sub)
            if profile.subcommand_arity_error.is_some()
                && CONTAINERS.contains(&name.as_str())
                && sub.len() <= 64 =>
        {
            format!("{name}|{}", lower(sub))
        }
        _ => name,
    }
}

/// One CLIENT LIST / CLIENT INFO line, with the fields of `profile`'s server in its order.
/// What a snapshot's connection does not have is given as an idle client's: no
/// subscriptions, empty buffers; `fd=-1` (the connection layer has no descriptor of its own).
fn client_line(row: &ClientRow, shared: &Server, now_ms: i64) -> String {
    use std::fmt::Write as _;
    let mut line = String::new();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    for (i, field) in replica::client_fields(shared.profile).enumerate() {
        let value = match field {
            "id" => row.id.to_string(),
            "addr" => row.addr.clone(),
            "laddr" => format!("127.0.0.1:{}", shared.port),
            "fd" | "redir" => "-1".into(),
            "name" => text(&row.name),
            "age" => ((now_ms - row.created_ms).max(0) / 1000).to_string(),
            "idle" => ((now_ms - row.last_ms).max(0) / 1000).to_string(),
            "flags" => if row.multi.is_some() { "x" } else { "N" }.into(),
            "capa" => String::new(),
            "lib-name" => text(&row.lib.0),
            "lib-ver" => text(&row.lib.1),
            "db" => row.db.to_string(),
            "multi" => row.multi.map_or(-1, |n| n as i64).to_string(),
            "events" => "r".into(),
            "cmd" => row.cmd.clone(),
            "user" => "default".into(),
            "resp" => row.proto.to_string(),
            "tot-net-in" => row.net_in.to_string(),
            "tot-net-out" => row.net_out.to_string(),
            "tot-cmds" => row.commands.to_string(),
            _ => "0".into(),
        };
        if i > 0 {
            line.push(' ');
        }
        let _ = write!(line, "{field}={value}");
    }
    line.push('\n');
    line
}

/// `CLIENT LIST` (every connection, by id) and `CLIENT INFO` (the caller's), with the
/// caller's row as it is now.
fn client_command(argv: &[Vec<u8>], client: &mut Client, shared: &Server) -> Answer {
    let now = crate::keyspace::wall_clock_ms();
    match (lower(&argv[1]).as_str(), argv.len()) {
        ("info", 2) => Answer::Verbatim(client_line(&client.row(), shared, now)),
        ("list", 2) => {
            let mut rows = lock(&shared.registry).clone();
            rows.insert(client.id, client.row());
            Answer::Verbatim(rows.values().map(|r| client_line(r, shared, now)).collect())
        }
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

/// Bytes as Redis' `bytesToHuman` writes them: `B` below 1 KiB, else two decimals and
/// `K`, `M`, `G`, `T`, `P` (binary units).
fn bytes_to_human(n: u64) -> String {
    if n < 1024 {
        return format!("{n}B");
    }
    let mut v = n as f64 / 1024.0;
    for unit in ["K", "M", "G", "T"] {
        if v < 1024.0 {
            return format!("{v:.2}{unit}");
        }
        v /= 1024.0;
    }
    format!("{v:.2}P")
}

/// INFO's text: the sections named (all of them for no argument, `all`, `default` or
/// `everything`), in the servers' order: Server, Clients, Memory, Persistence, Stats,
/// Replication, Cluster, Keyspace. Each gives, of the fields every server of the matrix has
/// in that section (replication: a replica's), the ones a snapshot can answer, in the
/// server's order; INFO memory's `used_memory` is the writer's at save (`used-mem`), 0 when
/// the file does not say. CPU, modules, command and error statistics are not given.
fn info(args: &[Vec<u8>], shared: &Server) -> String {
    let wanted: Vec<String> = args.iter().map(|a| lower(a)).collect();
    let all = wanted.is_empty()
        || wanted
            .iter()
            .any(|w| matches!(w.as_str(), "all" | "default" | "everything"));
    let want = |s: &str| all || wanted.iter().any(|w| w == s);
    let mut out = String::new();
    let mut section = |title: &str, fields: &[(&str, String)]| {
        if !out.is_empty() {
            out.push_str("\r\n");
        }
        out.push_str(&format!("# {title}\r\n"));
        for (k, v) in fields {
            out.push_str(&format!("{k}:{v}\r\n"));
        }
    };
    let d = replica::connection_dialect(shared.profile);
    let now = crate::keyspace::wall_clock_ms();
    let uptime = (now - shared.started_ms).max(0) / 1000;
    let n = |v: u64| v.to_string();
    if want("server") {
        let mut f = vec![("redis_version", shared.redis_version.clone())];
        if let Some(v) = &shared.valkey_version {
            f.push(("server_name", "valkey".into()));
            f.push(("valkey_version", v.clone()));
        }
        f.extend([
            ("redis_git_sha1", "00000000".into()),
            ("redis_git_dirty", "0".into()),
            (d.info_mode_field, "standalone".into()),
            (
                "os",
                format!(
                    "bitlens snapshot ({} file{})",
                    shared.files,
                    if shared.files == 1 { "" } else { "s" }
                ),
            ),
            ("arch_bits", (usize::BITS).to_string()),
            ("process_id", std::process::id().to_string()),
            ("run_id", shared.run_id.clone()),
            ("tcp_port", shared.port.to_string()),
            ("uptime_in_seconds", uptime.to_string()),
            ("uptime_in_days", (uptime / 86_400).to_string()),
            ("hz", "10".into()),
            ("configured_hz", "10".into()),
            ("config_file", String::new()),
        ]);
        section("Server", &f);
    }
    if want("clients") {
        let connected = shared.clients.load(Ordering::SeqCst);
        let mut f = vec![("connected_clients", connected.to_string())];
        // (`maxclients` from 6.2 on.)
        if shared.profile.family == Family::Valkey || shared.profile.version >= (6, 2) {
            f.push(("maxclients", shared.maxclients.to_string()));
        }
        f.extend([
            ("client_recent_max_input_buffer", "0".into()),
            ("client_recent_max_output_buffer", "0".into()),
            ("blocked_clients", "0".into()),
            ("tracking_clients", "0".into()),
            ("clients_in_timeout_table", "0".into()),
        ]);
        section("Clients", &f);
    }
    if want("memory") {
        let used = shared.used_memory.unwrap_or(0);
        section(
            "Memory",
            &[
                ("used_memory", n(used)),
                ("used_memory_human", bytes_to_human(used)),
                ("used_memory_peak", n(used)),
                ("used_memory_peak_human", bytes_to_human(used)),
                ("maxmemory", "0".into()),
                ("maxmemory_human", "0B".into()),
                ("maxmemory_policy", "noeviction".into()),
            ],
        );
    }
    if want("persistence") {
        section(
            "Persistence",
            &[
                ("loading", "0".into()),
                ("rdb_changes_since_last_save", "0".into()),
                ("rdb_bgsave_in_progress", "0".into()),
                ("rdb_last_save_time", shared.lastsave.to_string()),
                ("rdb_last_bgsave_status", "ok".into()),
                ("aof_enabled", "0".into()),
                ("aof_rewrite_in_progress", "0".into()),
                ("aof_rewrite_scheduled", "0".into()),
            ],
        );
    }
    if want("stats") {
        let st = &shared.stats;
        let get = |c: &AtomicU64| n(c.load(Ordering::Relaxed));
        section(
            "Stats",
            &[
                (
                    "total_connections_received",
                    n(shared.next_id.load(Ordering::SeqCst) - 1),
                ),
                ("total_commands_processed", get(&st.commands)),
                ("instantaneous_ops_per_sec", "0".into()),
                ("total_net_input_bytes", get(&st.net_in)),
                ("total_net_output_bytes", get(&st.net_out)),
                ("rejected_connections", get(&st.rejected)),
                ("expired_keys", "0".into()),
                ("evicted_keys", "0".into()),
                ("keyspace_hits", "0".into()),
                ("keyspace_misses", "0".into()),
                ("pubsub_channels", "0".into()),
                ("pubsub_patterns", "0".into()),
            ],
        );
    }
    if want("replication") {
        section(
            "Replication",
            &[
                ("role", "slave".into()),
                ("master_host", String::new()),
                ("master_port", "0".into()),
                ("master_link_status", "down".into()),
                ("slave_read_only", "1".into()),
                ("connected_slaves", "0".into()),
            ],
        );
    }
    if want("cluster") {
        section("Cluster", &[("cluster_enabled", "0".into())]);
    }
    if want("keyspace") {
        let session = lock(&shared.session);
        let mut rows = Vec::new();
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
            let mut v = format!("keys={keys},expires={expires},avg_ttl=0");
            if let Some(name) = d.info_subexpiry {
                v.push_str(&format!(",{name}={volatile}"));
            }
            rows.push((format!("db{db}"), v));
        }
        let rows: Vec<(&str, String)> = rows.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
        section("Keyspace", &rows);
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
