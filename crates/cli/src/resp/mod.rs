//! `bitlens resp`: a snapshot (or a cluster's shard files as one keyspace) served as a
//! read-only Redis server, so that redis-cli, redis-py, node-redis and GUI browsers can
//! connect to it.
//!
//! - **Replies** are the engine's ([`bitlens::session::Session`]), in the snapshot writer's
//!   dialect (or `--compat`'s), expiry judged at `--clock`, exactly as `bitlens query` answers.
//! - **Writes** are refused as a read-only replica refuses them ([`bitlens::replica`]): the
//!   server's unknown-command and arity errors first, then `-NOAUTH` when a password is set and
//!   the client has not authenticated, then `-READONLY You can't write against a read only
//!   replica.`.
//! - **Connection commands** are answered here: `AUTH`, `HELLO` (protocol 2; 3 is refused with
//!   `-NOPROTO` until the engine renders RESP3), `CLIENT` (`ID`, `GETNAME`, `SETNAME`,
//!   `SETINFO`, `INFO`, `LIST`), `QUIT`, `RESET`, `MULTI`/`EXEC`/`DISCARD`, `INFO` (server,
//!   clients, replication and keyspace sections), `COMMAND` (`COUNT`, `LIST`, `INFO`, `DOCS`),
//!   `CONFIG GET` (`databases`) and `TIME` (the clock expiry is judged at).
//! - **Clients** each keep their own database, name and protocol; requests are read as Redis
//!   reads them ([`request`]), pipelined, and answered in order. One command runs at a time over
//!   the shared keyspace (a lock); the others wait for it.
//! - **Limits:** `--maxclients` open connections (further ones get Redis' `-ERR max number of
//!   clients reached` and are closed), `--client-query-buffer-limit` bytes buffered per client
//!   (a client past it is closed, as Redis closes one), `--proto-max-bulk-len` per argument, and
//!   a write timeout: a client that stops reading its replies is closed after `--write-timeout`
//!   seconds without progress.

pub mod request;

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bitlens::dialect::{Family, Profile};
use bitlens::replica::{self, Admission};
use bitlens::session::Session;
use bitlens::Reply;
use clap::Args;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use request::{Parsed, Parser};

/// Arguments of `bitlens resp`.
#[derive(Args, Debug)]
pub struct RespArgs {
    /// The RDB files to serve (a cluster's shards are served as one keyspace; a key in two
    /// files is an error unless `--on-duplicate` says which to keep).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The address to listen on; port 0 picks a free port. The first line printed is
    /// `listening on ADDR:PORT`.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:6379")]
    pub bind: SocketAddr,
    /// Require this password (`AUTH`, or `HELLO ... AUTH default PASSWORD`), as Redis'
    /// `requirepass`.
    #[arg(long, value_name = "PASSWORD")]
    pub requirepass: Option<String>,
    /// The most clients connected at once (Redis' `maxclients`).
    #[arg(long, default_value_t = 10_000)]
    pub maxclients: usize,
    /// The most bytes buffered for one client's unanswered requests (Redis'
    /// `client-query-buffer-limit`, lower by default: a snapshot is read with small commands).
    #[arg(long, value_name = "BYTES", default_value = "64mb", value_parser = bitlens_cli::source::parse_bytes)]
    pub client_query_buffer_limit: u64,
    /// The longest argument accepted (Redis' `proto-max-bulk-len`).
    #[arg(long, value_name = "BYTES", default_value = "64mb", value_parser = bitlens_cli::source::parse_bytes)]
    pub proto_max_bulk_len: u64,
    /// Seconds a reply may wait for a client that does not read it before the client is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub write_timeout: u64,
    /// With several files: `error`, `first` or `last` (as `bitlens query --on-duplicate`).
    #[arg(long, value_name = "error|first|last", default_value = "error", value_parser = bitlens_cli::source::parse_on_duplicate)]
    pub on_duplicate: bitlens::rdb::OnDuplicate,
    /// Load only the keys matching this glob (repeatable), as `bitlens query --match`.
    #[arg(long = "match", value_name = "GLOB", value_parser = clap::value_parser!(std::ffi::OsString))]
    pub matches: Vec<std::ffi::OsString>,
    /// Do not verify the RDB CRC-64 trailer.
    #[arg(long)]
    pub no_checksum: bool,
    /// The server profile and clock (`--compat`, `--clock`).
    #[command(flatten)]
    pub dialect: crate::DialectArgs,
    #[command(flatten)]
    pub limit: crate::LimitArgs,
}

/// What every connection shares: the keyspace and the server's identity.
struct Shared {
    session: Mutex<Session>,
    profile: &'static Profile,
    /// `redis_version` as INFO and HELLO give it (Valkey: 7.2.4, with `valkey_version`).
    redis_version: String,
    /// The Valkey release, for Valkey writers.
    valkey_version: Option<String>,
    requirepass: Option<String>,
    clients: AtomicUsize,
    next_id: AtomicU64,
    started: std::time::Instant,
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
    addr: SocketAddr,
    lib: (Option<Vec<u8>>, Option<Vec<u8>>),
    /// The protocol its replies use: 2, or 3 after `HELLO 3`.
    proto: u8,
}

/// One request's answer, before it is written in the client's protocol.
enum Answer {
    /// The engine's reply (or one shaped like it), re-typed for RESP3 by the request's command
    /// ([`bitlens::resp3`]).
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
        (Answer::Reply(r), 3) => bitlens::resp3::write_resp3(argv, r, out),
        (Answer::Reply(r), _) => out.extend_from_slice(&r.to_resp()),
        (Answer::Map(items), 3) => {
            out.extend_from_slice(format!("%{}\r\n", items.len() / 2).as_bytes());
            for i in items {
                bitlens::resp3::write_resp3(&[], i, out);
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

/// Runs `bitlens resp`.
pub fn run(args: RespArgs) -> ExitCode {
    let query = crate::query::QueryArgs {
        rdb: args.files.clone(),
        on_duplicate: args.on_duplicate,
        dumps: Vec::new(),
        strings: Vec::new(),
        roarings: Vec::new(),
        save_roarings: Vec::new(),
        matches: args.matches.clone(),
        db: 0,
        no_checksum: args.no_checksum,
        dialect: crate::DialectArgs {
            compat: args.dialect.compat,
            clock: args.dialect.clock,
        },
        limit: args.limit,
        verbose: false,
        raw: false,
        no_raw: false,
        command: Vec::new(),
    };
    let session = match crate::query::load_session(&query) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let writer = first_writer(&args.files);
    let profile = session.profile();
    let (redis_version, valkey_version) = versions(profile, writer.as_ref());
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("bitlens: cannot start the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    rt.block_on(async move {
        let listener = match TcpListener::bind(args.bind).await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("bitlens resp: cannot listen on {}: {e}", args.bind);
                return ExitCode::from(1);
            }
        };
        let local = match listener.local_addr() {
            Ok(a) => a,
            Err(e) => {
                eprintln!("bitlens resp: {e}");
                return ExitCode::from(1);
            }
        };
        println!("listening on {local}");
        let _ = std::io::stdout().flush();
        let shared = Arc::new(Shared {
            session: Mutex::new(session),
            profile,
            redis_version,
            valkey_version,
            requirepass: args.requirepass.clone(),
            clients: AtomicUsize::new(0),
            next_id: AtomicU64::new(1),
            started: std::time::Instant::now(),
            port: local.port(),
            files: args.files.len(),
        });
        let limits = ConnLimits {
            max_bulk: args.proto_max_bulk_len.min(usize::MAX as u64) as usize,
            max_buffer: args.client_query_buffer_limit.min(usize::MAX as u64) as usize,
            write_timeout: Duration::from_secs(args.write_timeout.max(1)),
        };
        loop {
            let (mut stream, addr) = tokio::select! {
                r = listener.accept() => match r {
                    Ok(c) => c,
                    Err(_) => {
                        // Out of descriptors or an aborted handshake: wait a little, go on.
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    }
                },
                _ = tokio::signal::ctrl_c() => return ExitCode::SUCCESS,
            };
            if shared.clients.fetch_add(1, Ordering::SeqCst) >= args.maxclients {
                shared.clients.fetch_sub(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    let _ = tokio::time::timeout(
                        Duration::from_secs(1),
                        stream.write_all(b"-ERR max number of clients reached\r\n"),
                    )
                    .await;
                });
                continue;
            }
            let shared = shared.clone();
            tokio::spawn(async move {
                let _ = stream.set_nodelay(true);
                connection(stream, addr, &shared, limits).await;
                shared.clients.fetch_sub(1, Ordering::SeqCst);
            });
        }
    })
}

/// The first file's writer, from its head (`None` when it cannot be read: its load said so).
fn first_writer(files: &[PathBuf]) -> Option<bitlens::rdb::Writer> {
    use std::io::Read as _;
    let mut head = Vec::new();
    bitlens_cli::source::open_input(files.first()?)
        .ok()?
        .take(64 << 10)
        .read_to_end(&mut head)
        .ok()?;
    bitlens::rdb::identify(&head).writer
}

/// `redis_version` (and Valkey's `valkey_version`) as the writer's INFO gives them: the
/// file's `redis-ver` / `valkey-ver`, else the profile's line with patch 0. Valkey reports
/// `redis_version:7.2.4`, the Redis release it stays compatible with.
fn versions(
    profile: &'static Profile,
    writer: Option<&bitlens::rdb::Writer>,
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

#[derive(Debug, Clone, Copy)]
struct ConnLimits {
    max_bulk: usize,
    max_buffer: usize,
    write_timeout: Duration,
}

async fn connection(mut stream: TcpStream, addr: SocketAddr, shared: &Shared, limits: ConnLimits) {
    let mut client = Client {
        id: shared.next_id.fetch_add(1, Ordering::SeqCst),
        db: 0,
        name: None,
        authenticated: shared.requirepass.is_none(),
        multi: None,
        addr,
        lib: (None, None),
        proto: 2,
    };
    let mut parser = Parser::new(limits.max_bulk);
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if parser.pending() + n > limits.max_buffer {
            // As Redis: "closing client that reached max query buffer length", no reply.
            return;
        }
        parser.extend(&buf[..n]);
        let (out, after) =
            tokio::task::block_in_place(|| answer_all(&mut parser, &mut client, shared));
        if !out.is_empty() {
            match tokio::time::timeout(limits.write_timeout, stream.write_all(&out)).await {
                Ok(Ok(())) => {}
                _ => return,
            }
        }
        if after == After::Close {
            let _ = stream.shutdown().await;
            return;
        }
    }
}

/// Answers every whole request buffered, in order, into one output buffer.
fn answer_all(parser: &mut Parser, client: &mut Client, shared: &Shared) -> (Vec<u8>, After) {
    let mut out = Vec::new();
    loop {
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
fn answer(argv: &[Vec<u8>], client: &mut Client, shared: &Shared) -> (Answer, After) {
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
            "multi" => {
                let text = replica::connection_dialect(shared.profile).nested_multi;
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
fn classify(argv: &[Vec<u8>], client: &Client, shared: &Shared) -> Result<bool, Reply> {
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
        _ => return None,
    })
}

/// Answers one request outside MULTI's queueing.
fn answer_one(argv: &[Vec<u8>], client: &mut Client, shared: &Shared) -> (Answer, After) {
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

fn connection_command(argv: &[Vec<u8>], client: &mut Client, shared: &Shared) -> (Answer, After) {
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
        "client" => return (client_command(argv, client, shared), After::Continue),
        "info" => return (Answer::Verbatim(info(&argv[1..], shared)), After::Continue),
        "command" => return (command_command(argv, shared), After::Continue),
        "config" => match lower(&argv[1]).as_str() {
            "get" if argv.len() >= 3 => {
                let mut items = Vec::new();
                for pattern in &argv[2..] {
                    if bitlens::glob::matches(pattern, b"databases") && items.is_empty() {
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
fn auth(args: &[Vec<u8>], client: &mut Client, shared: &Shared) -> Reply {
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

fn wrongpass(shared: &Shared) -> Reply {
    Reply::err(replica::connection_dialect(shared.profile).wrongpass)
}

/// `HELLO [protover [AUTH username password] [SETNAME clientname]]`: protocol 2 or 3; the
/// reply (a map) is in the protocol chosen.
fn hello(argv: &[Vec<u8>], client: &mut Client, shared: &Shared) -> Answer {
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
        client.name = Some(n);
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

fn client_command(argv: &[Vec<u8>], client: &mut Client, shared: &Shared) -> Answer {
    match (lower(&argv[1]).as_str(), argv.len()) {
        ("info" | "list", 2) => Answer::Verbatim(client_line(client)),
        _ => client_reply(argv, client, shared).into(),
    }
}

fn client_reply(argv: &[Vec<u8>], client: &mut Client, shared: &Shared) -> Reply {
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
            match lower(&argv[2]).as_str() {
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
fn info(args: &[Vec<u8>], shared: &Shared) -> String {
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
            "redis_mode:standalone\r\nos:bitlens snapshot ({} file{})\r\ntcp_port:{}\r\nuptime_in_seconds:{}\r\n",
            shared.files,
            if shared.files == 1 { "" } else { "s" },
            shared.port,
            shared.started.elapsed().as_secs()
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
        for (db, ks) in session.databases() {
            let (mut keys, mut expires) = (0u64, 0u64);
            for (_, e) in ks.iter() {
                keys += 1;
                expires += u64::from(e.expire_at_ms.is_some());
            }
            if keys == 0 {
                continue;
            }
            s.push_str(&format!(
                "db{db}:keys={keys},expires={expires},avg_ttl=0\r\n"
            ));
        }
        section("Keyspace", s);
    }
    out.push_str("\r\n");
    out
}

/// `COMMAND`, `COMMAND COUNT`, `COMMAND LIST`, `COMMAND INFO name...` and `COMMAND DOCS`
/// over the commands bitlens answers (each entry: name, arity, flags, first key, last key,
/// step); DOCS answers an empty array (clients then use their own help).
fn command_command(argv: &[Vec<u8>], shared: &Shared) -> Answer {
    let names = bitlens::command::command_names();
    let entry = |name: &str| -> Reply {
        let arity = bitlens::command::lookup(name.as_bytes()).map_or(-1, |s| s.arity);
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
