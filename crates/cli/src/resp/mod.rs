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
//! - **Connection and server commands** (`AUTH`, `HELLO` 2 or 3, `CLIENT`, `MULTI`/`EXEC`,
//!   `WATCH`, `INFO`, `COMMAND`, `CONFIG GET databases`, `TIME`, `LASTSAVE`, `ROLE`, `LATENCY`,
//!   `SLOWLOG`, `ACL`, `PUBSUB`, ...) are answered by [`bitlens::server`], the network-free
//!   server this module runs over TCP.
//! - **Clients** each keep their own database, name and protocol; requests are read as Redis
//!   reads them ([`request`]), pipelined, and answered in order. One command runs at a time over
//!   the shared keyspace (a lock); the others wait for it.
//! - **Limits:** `--maxclients` open connections (further ones get Redis' `-ERR max number of
//!   clients reached` and are closed; lowered, with a warning, to what the open-file limit allows
//!   less 32, as Redis lowers it), `--client-query-buffer-limit` bytes buffered per client
//!   (a client past it is closed, as Redis closes one), `--proto-max-bulk-len` per argument, and
//!   a write timeout: a client that stops reading its replies is closed after `--write-timeout`
//!   seconds without progress. Pipelined requests are answered in batches of 64 KiB of replies,
//!   each written before the next is made, so a client that does not read holds one batch
//!   (or one reply larger than that), not every reply it asked for.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use bitlens::server::{Connection, Server, ServerOptions};
use clap::Args;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

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
    #[arg(long, value_name = "BYTES", default_value = "64mb", value_parser = bitlens::open::parse_bytes)]
    pub client_query_buffer_limit: u64,
    /// The longest argument accepted (Redis' `proto-max-bulk-len`).
    #[arg(long, value_name = "BYTES", default_value = "64mb", value_parser = bitlens::open::parse_bytes)]
    pub proto_max_bulk_len: u64,
    /// Seconds a reply may wait for a client that does not read it before the client is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub write_timeout: u64,
    /// With several files: `error`, `first` or `last` (as `bitlens query --on-duplicate`).
    #[arg(long, value_name = "error|first|last", default_value = "error")]
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
    /// The allocator of the writer's build, for MEMORY USAGE (as `query --allocator`).
    #[arg(long, value_parser = crate::parse_allocator)]
    pub allocator: Option<bitlens_views::memory::Allocator>,
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
        allocator: args.allocator,
        verbose: false,
        raw: false,
        no_raw: false,
        command: Vec::new(),
    };
    let session = match crate::query::load_session(&query) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let writer = args
        .files
        .first()
        .and_then(|f| bitlens::open::file_writer(f));
    let maxclients = fit_maxclients(args.maxclients as u64) as usize;
    let rt = match crate::network_runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
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
        let shared = Arc::new(Server::new(
            session,
            ServerOptions {
                requirepass: args.requirepass.clone(),
                port: local.port(),
                files: args.files.len(),
                writer,
                maxclients: args.maxclients,
            },
        ));
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
            if !shared.try_connect(maxclients) {
                tokio::spawn(async move {
                    let _ = tokio::time::timeout(
                        Duration::from_secs(1),
                        stream.write_all(Server::MAX_CLIENTS_REPLY),
                    )
                    .await;
                });
                continue;
            }
            let shared = shared.clone();
            tokio::spawn(async move {
                let _ = stream.set_nodelay(true);
                connection(stream, addr, &shared, limits).await;
                shared.disconnect();
            });
        }
    })
}

/// Descriptors a server keeps for itself beside its clients (Redis' `CONFIG_MIN_RESERVED_FDS`).
const RESERVED_FDS: u64 = 32;

/// `maxclients` as the process' open-file limit allows it, as Redis' `adjustOpenFilesLimit`
/// does: the soft limit is raised toward `wanted + 32` (up to the hard limit); when it stays
/// short, `maxclients` is lowered to what it allows and a warning says so. Without this, the
/// clients past the descriptors were never accepted and hung instead of getting Redis'
/// `-ERR max number of clients reached`.
fn fit_maxclients(wanted: u64) -> u64 {
    #[cfg(unix)]
    {
        let need = wanted.saturating_add(RESERVED_FDS);
        let mut rl = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit/setrlimit read and write the one struct passed.
        let got = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) } == 0;
        if !got {
            return wanted;
        }
        if rl.rlim_cur < need {
            let raised = libc::rlimit {
                rlim_cur: need.min(rl.rlim_max),
                rlim_max: rl.rlim_max,
            };
            // SAFETY: as above.
            if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
                rl.rlim_cur = raised.rlim_cur;
            }
        }
        let have: u64 = rl.rlim_cur;
        if have < need {
            let reduced = have.saturating_sub(RESERVED_FDS).max(1);
            eprintln!(
                "bitlens resp: warning: maxclients {wanted} needs {need} open files; the \
                 limit is {have}: maxclients reduced to {reduced}"
            );
            return reduced;
        }
    }
    wanted
}

#[derive(Debug, Clone, Copy)]
struct ConnLimits {
    max_bulk: usize,
    max_buffer: usize,
    write_timeout: Duration,
}

async fn connection(mut stream: TcpStream, addr: SocketAddr, server: &Server, limits: ConnLimits) {
    let mut conn = Connection::new(server, addr.to_string(), limits.max_bulk);
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if conn.pending() + n > limits.max_buffer {
            // As Redis: "closing client that reached max query buffer length", no reply.
            return;
        }
        conn.receive(&buf[..n]);
        // Answer in batches, each written before the next is made: a client that pipelines
        // large replies and reads none holds one batch here (and stalls on its own socket
        // until --write-timeout closes it), not every reply it asked for.
        loop {
            let fed = tokio::task::block_in_place(|| conn.answer(server, REPLY_BATCH_BYTES));
            if !fed.out.is_empty() {
                match tokio::time::timeout(limits.write_timeout, stream.write_all(&fed.out)).await {
                    Ok(Ok(())) => {}
                    _ => return,
                }
            }
            if fed.close {
                let _ = stream.shutdown().await;
                return;
            }
            if fed.out.is_empty() {
                break;
            }
        }
    }
}

/// Replies made for one client before they are written (one reply larger than this is made
/// and written whole): 64 KiB.
const REPLY_BATCH_BYTES: usize = 64 * 1024;
