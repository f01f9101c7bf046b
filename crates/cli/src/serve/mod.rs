//! `bitlens serve`: the panel (static files) and the snapshot API.
//!
//! - `GET /api/snapshot?match=P[&match=P...][&db=N]`: an RDB file (`application/octet-stream`)
//!   with the matching keys, streamed as it is produced (never buffered whole). From a live
//!   Redis it is built from INFO keyspace, then per database SCAN MATCH (COUNT batches) +
//!   PTTL + DUMP: every non-empty database, each under its SELECTDB record as a BGSAVE writes
//!   them, unless `db=N` (or the `--redis` URL's `/N`, or `--db`) narrows it to one; without
//!   `--redis` from the built-in demo data set (database 0). Per-key consistent: each value is a DUMP of that key at some moment during
//!   the walk; keys that vanish between SCAN and DUMP are left out. If the export fails midway
//!   (Redis gone, a limit hit) the HTTP body is aborted, never ended cleanly, so a client cannot
//!   mistake a truncated file for a complete one.
//! - `POST /api/snapshot` with the same parameters as an `application/x-www-form-urlencoded`
//!   body (at most [`POST_BODY_LIMIT`] bytes): the same answer, for requests a URL cannot
//!   carry (a key name over about 21 KB, percent-encoded, passes the 65,534-byte request
//!   target the HTTP layer holds; the panel opens every key so).
//! - `GET /api/keys?match=P[&db=N]`: JSON `[{"key","type","bytes","ttlMs"}]`, sorted by key, of
//!   one database: `db=N`, else the one the `--redis` URL or `--db` names, else 0. Paged with
//!   `cursor=0[&count=N]` (N from 1 to 10,000, default 1,000, a hint as SCAN's COUNT):
//!   `{"keys": [...], "cursor": C}`,
//!   each page sorted, C the cursor of the next page (`"0"` after the last one). As SCAN, a
//!   walk of a changing keyspace may give a key twice (clients keep each name once) and gives
//!   every key present from start to end at least once; no `--max-keys` bound then, the pages
//!   being the bound.
//!
//! A pattern without `*`, `?` or `[` names one key (`\x` a literal `x`): on a single server
//! it is read by name, without a SCAN of the keyspace (the panel fetches a key opened in its
//! key browser so).
//! - `GET /api/info`: JSON describing the source and the key conventions; from a live Redis its
//!   `databases` (INFO keyspace: `[{"db","keys","expires"}]`) and `db` (the one database
//!   exported, `null` for every one).
//!
//! A `db=` the source does not export (not the URL's database, not 0 on a cluster, beyond the
//! server's `databases`) is a 400.
//!
//! Without `match`, the `--match` patterns given at start-up apply (default `*`). With `--allow`,
//! a requested pattern must itself match one of the allowed patterns (else 403), and every
//! exported key must match one too.

mod demo_source;
mod gate;
mod listen;
mod redis_source;
mod uri_guard;

use std::io::{self, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::DefaultBodyLimit;
use axum::extract::{RawQuery, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use clap::Args;
use serde_json::json;
use tokio::sync::mpsc;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

/// Arguments of `bitlens serve`.
#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// Live Redis to export from (`redis://[user:password@]host:port[/db]`, `rediss://` for
    /// TLS); without it the built-in demo data set is served. Repeatable or comma-separated:
    /// seeds tried in order (e.g. several nodes of a cluster), the first reachable one is used.
    #[arg(long, value_name = "URL", value_delimiter = ',')]
    pub redis: Vec<String>,
    /// Export only database N of the `--redis` server (as `redis://host:port/N` does); without
    /// it (and without `/N` in the URL) every non-empty database is exported, as a BGSAVE
    /// writes them. Requests may narrow further with `db=N`.
    #[arg(long, value_name = "N")]
    pub db: Option<u64>,
    /// On a Redis Cluster, scan replicas instead of masters (READONLY), keeping the heavy reads
    /// off the primaries.
    #[arg(long)]
    pub read_replicas: bool,
    /// PEM file of the CA that signed the Redis server's certificate, for `rediss://` URLs
    /// (default: the system's trusted roots).
    #[arg(long, value_name = "FILE")]
    pub redis_ca: Option<PathBuf>,
    /// Address to listen on: `HOST:PORT`, `HOST` (port 8080), `[IPv6]:PORT` or `:PORT`
    /// (loopback); host names such as `localhost` are resolved. Loopback by default.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub bind: String,
    /// Default key patterns for requests without `match` (repeatable; default `*`).
    #[arg(long = "match", value_name = "PATTERN")]
    pub matches: Vec<String>,
    /// Allow-list of key patterns that may be exported (repeatable); other requests get 403.
    #[arg(long = "allow", value_name = "PATTERN")]
    pub allow: Vec<String>,
    /// Directory holding `index.html`, `www/` and `pkg/` (default: the repository root, found
    /// from the binary's location or the current directory).
    #[arg(long, value_name = "DIR")]
    pub static_dir: Option<PathBuf>,
    /// Require `Authorization: Bearer TOKEN` on `/api/*`. An empty or blank token is refused
    /// (as `--token "$TOKEN"` gives with TOKEN unset): leave the option out to serve without one.
    #[arg(long, value_name = "TOKEN", value_parser = parse_token)]
    pub token: Option<String>,
    /// Allow cross-origin requests from this origin, `scheme://host[:port]` (repeatable); CORS
    /// is off without it. `*` and `null` are refused.
    #[arg(long = "cors-origin", value_name = "ORIGIN", value_parser = parse_origin)]
    pub cors_origins: Vec<String>,
    /// Seconds a client has to send a request's headers, counted from when the server starts
    /// waiting for them: from the connection's opening, and on a kept-alive connection from
    /// the end of the previous answer. So it is also how long an idle connection stays open.
    #[arg(long, value_name = "SECS", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub header_timeout: u64,
    /// Seconds a response may wait for a client that does not read: a write that makes no
    /// progress for that long ends the response (and frees its `--max-exports` slot). A slow
    /// client that keeps reading is never cut off.
    #[arg(long, value_name = "SECS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub write_timeout: u64,
    /// Connections one client address may hold open at once; further ones are closed at once.
    /// (A browser opens about 6 per server; the load test runs 100 downloads from one address.)
    #[arg(long, value_name = "N", default_value_t = 128,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_conns_per_ip: u32,
    /// SCAN COUNT hint per batch.
    #[arg(long, default_value_t = 1000)]
    pub scan_count: u64,
    /// Pause between SCAN batches, in milliseconds (spreads the load of a big walk).
    #[arg(long, default_value_t = 0)]
    pub scan_pause_ms: u64,
    /// Snapshot exports that run at once (more requests wait their turn); with the small
    /// per-export buffers this bounds the exporter's memory.
    #[arg(long, default_value_t = 8)]
    pub max_exports: usize,
    /// Most keys one request may export.
    #[arg(long, default_value_t = 5_000_000)]
    pub max_keys: u64,
    /// Most bytes one snapshot may have.
    #[arg(long, default_value_t = 4 << 30)]
    pub max_bytes: u64,
    /// The profile and clock the panel answers with (`--compat`, `--clock`), passed to it in
    /// `/api/info` as `compat` (a profile name or null: the writer) and `clock`.
    #[command(flatten)]
    pub dialect: crate::DialectArgs,
}

/// Per-request limits and SCAN pacing.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_keys: u64,
    pub max_bytes: u64,
    pub scan_count: u64,
    pub scan_pause: Duration,
}

enum Source {
    Demo(Arc<demo_source::Demo>),
    Redis(Box<redis_source::RedisSource>),
}

struct App {
    source: Source,
    /// Snapshot exports running at once; further requests wait for a permit.
    exports: Arc<tokio::sync::Semaphore>,
    defaults: Vec<Vec<u8>>,
    allow: Vec<Vec<u8>>,
    limits: Limits,
    dialect: crate::DialectArgs,
    /// The last snapshot export that failed after its body had started (the client only sees
    /// the body cut off): its message and when (Unix ms). Reported by `/api/info`, so that a
    /// client can say what failed.
    last_export_error: Mutex<Option<(String, u64)>>,
}

type Shared = Arc<App>;

/// A `Write` target whose bytes are taken out chunk by chunk while an RDB writer owns it.
#[derive(Clone, Default)]
pub struct SharedBuf(Arc<Mutex<Vec<u8>>>);

impl SharedBuf {
    /// Takes the bytes written so far.
    pub fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Number of bytes written and not yet taken.
    pub fn pending(&self) -> usize {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

impl Write for SharedBuf {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The sending half of a streamed response body.
pub type ChunkTx = mpsc::Sender<Result<Bytes, io::Error>>;

/// Sends the pending bytes of `buf` as one chunk; `Err` when the client has gone away.
/// Sent in pieces of at most [`PIECE`] bytes, each waiting for room in the bounded channel.
pub async fn flush_chunk(buf: &SharedBuf, tx: &ChunkTx) -> Result<(), String> {
    let mut bytes = Bytes::from(buf.take());
    while !bytes.is_empty() {
        let piece = bytes.split_to(bytes.len().min(PIECE));
        tx.send(Ok(piece))
            .await
            .map_err(|_| "client disconnected".to_string())?;
    }
    Ok(())
}

/// Largest body piece handed to the HTTP layer.
pub const PIECE: usize = 256 * 1024;

/// A response body fed by a producer task through a bounded channel (so memory stays bounded
/// by a few chunks). An `Err` item aborts the body.
fn streamed_body(first: Option<Bytes>, rx: mpsc::Receiver<Result<Bytes, io::Error>>) -> Body {
    let head = futures_util::stream::iter(first.map(Ok::<Bytes, io::Error>));
    let rest = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|item| (item, rx))
    });
    Body::from_stream(futures_util::StreamExt::chain(head, rest))
}

/// Runs `bitlens serve`.
pub fn run(args: ServeArgs) -> ExitCode {
    let rt = match crate::network_runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    rt.block_on(serve(args))
}

async fn serve(args: ServeArgs) -> ExitCode {
    let limits = Limits {
        max_keys: args.max_keys,
        max_bytes: args.max_bytes,
        scan_count: args.scan_count.max(1),
        scan_pause: Duration::from_millis(args.scan_pause_ms),
    };
    let source = if args.redis.is_empty() {
        Source::Demo(Arc::new(demo_source::Demo::generate()))
    } else {
        match redis_source::RedisSource::connect_first(
            &args.redis,
            args.redis_ca.as_deref(),
            args.read_replicas,
            args.db,
        )
        .await
        {
            Ok(s) => Source::Redis(Box::new(s)),
            Err(e) => {
                eprintln!("bitlens: {e}");
                return ExitCode::from(1);
            }
        }
    };
    let app = Arc::new(App {
        source,
        exports: Arc::new(tokio::sync::Semaphore::new(args.max_exports.max(1))),
        defaults: if args.matches.is_empty() {
            vec![b"*".to_vec()]
        } else {
            args.matches.iter().map(|m| m.as_bytes().to_vec()).collect()
        },
        allow: args.allow.iter().map(|m| m.as_bytes().to_vec()).collect(),
        dialect: args.dialect.clone(),
        limits,
        last_export_error: Mutex::new(None),
    });
    let static_root = args.static_dir.clone().unwrap_or_else(find_static_root);
    let router = match build_router(app, &args, &static_root) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("bitlens: {e}");
            return ExitCode::from(2);
        }
    };
    let bind = match bind_address(&args.bind) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("bitlens: {e}");
            return ExitCode::from(2);
        }
    };
    let listener = match tokio::net::TcpListener::bind(&bind).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("bitlens: cannot listen on {bind}: {e}");
            return ExitCode::from(1);
        }
    };
    let addr: SocketAddr = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("bitlens: {e}");
            return ExitCode::from(1);
        }
    };
    println!("bitlens serving on http://{addr}");
    let _ = io::stdout().flush();
    if !static_root.join("index.html").is_file() {
        eprintln!(
            "bitlens: note: no index.html in {} (use --static-dir); the API works regardless",
            static_root.display()
        );
    }
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let limits = listen::ConnLimits {
        header_timeout: Duration::from_secs(args.header_timeout),
        write_timeout: Duration::from_secs(args.write_timeout),
        max_per_ip: args.max_conns_per_ip as usize,
    };
    listen::serve(listener, router, limits, shutdown).await;
    ExitCode::SUCCESS
}

/// The `--token` value: refused when empty or blank (`--token "$TOKEN"` with TOKEN unset
/// would otherwise switch authentication off), when it starts or ends with whitespace, or
/// holds a character an `Authorization` header cannot carry.
fn parse_token(given: &str) -> Result<String, String> {
    if given.trim().is_empty() {
        return Err(format!(
            "the token is {}: give a secret (an unset variable in --token \"$TOKEN\" gives an \
             empty one), or leave --token out to serve the API without authentication",
            if given.is_empty() {
                "empty"
            } else {
                "blank (empty but for whitespace)"
            }
        ));
    }
    if given.trim() != given {
        return Err(
            "the token starts or ends with whitespace, which an Authorization header cannot carry"
                .into(),
        );
    }
    if !given.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return Err(
            "the token must be printable ASCII: it is sent in an Authorization header".into(),
        );
    }
    Ok(given.to_string())
}

/// A `--cors-origin` value, `scheme://host[:port]`, in the form browsers send in `Origin`
/// (scheme and host in lower case, no default port: `HTTPS://A.example:443` is
/// `https://a.example`). `*`, `null`, an empty value, a path, a query, user info, a port out
/// of range and a host that is not an ASCII name or an IP address are refused, named.
fn parse_origin(given: &str) -> Result<String, String> {
    const FORM: &str = "an origin is scheme://host[:port], such as https://dash.example.com";
    let bad = |why: &str| Err(format!("{why}; {FORM}"));
    match given.trim() {
        "" => return bad("the origin is empty"),
        "*" => {
            return bad(
                "`*` would let every web site read the API: list each origin allowed instead",
            )
        }
        n if n.eq_ignore_ascii_case("null") => {
            return bad(
                "`null` is the origin of sandboxed frames and local files, which any site can \
                 produce: list the real origin",
            )
        }
        _ => {}
    }
    let Some((scheme, rest)) = given.split_once("://") else {
        return bad(&format!("{given:?} has no scheme"));
    };
    if scheme.is_empty()
        || !scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        || !scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        return bad(&format!("{scheme:?} is not a URL scheme"));
    }
    let scheme = scheme.to_ascii_lowercase();
    if let Some(at) = rest.find(['/', '?', '#']) {
        let stripped = &given[..given.len() - rest.len() + at];
        return bad(&format!(
            "an origin has no path, query or fragment (did you mean {stripped}?)"
        ));
    }
    if rest.contains('@') {
        return bad("an origin has no user name or password");
    }
    let (host, port) = if let Some(v6) = rest.strip_prefix('[') {
        let Some((addr, after)) = v6.split_once(']') else {
            return bad(&format!("{rest:?}: an IPv6 address without its closing ]"));
        };
        if addr.parse::<std::net::Ipv6Addr>().is_err() {
            return bad(&format!("{addr:?} is not an IPv6 address"));
        }
        let port = match after {
            "" => None,
            p => match p.strip_prefix(':') {
                Some(p) => Some(p),
                None => return bad(&format!("{after:?} after the IPv6 address")),
            },
        };
        (format!("[{}]", addr.to_ascii_lowercase()), port)
    } else {
        let (host, port) = match rest.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (rest, None),
        };
        if host.is_empty() {
            return bad("the origin has no host");
        }
        if !host.is_ascii() {
            return bad(&format!(
                "{host:?} is not ASCII: write an international name in its xn-- form, as \
                 browsers send it"
            ));
        }
        if !host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
            || host.starts_with('.')
            || host.contains("..")
        {
            return bad(&format!("{host:?} is not a host name or an IP address"));
        }
        (host.to_ascii_lowercase(), port)
    };
    let port = match port {
        None => None,
        Some(p) => match p.parse::<u16>() {
            Ok(n) if n > 0 && p.bytes().all(|b| b.is_ascii_digit()) => Some(n),
            _ => return bad(&format!("{p:?} is not a port number (1 to 65535)")),
        },
    };
    let default_port = match scheme.as_str() {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        _ => None,
    };
    Ok(match port {
        Some(p) if Some(p) != default_port => format!("{scheme}://{host}:{p}"),
        _ => format!("{scheme}://{host}"),
    })
}

/// The security headers of every response (the connection guard's own 414 too): no MIME
/// sniffing, no framing (the panel embeds as a widget through its script, not in a frame), no
/// referrer, and a Content-Security-Policy that allows what the panel does: its scripts and
/// module workers from this origin (workers also from `blob:`, the way a panel loaded from
/// another origin starts them), compiling its wasm module (`'wasm-unsafe-eval'`), inline
/// styles (style attributes and `<style>` elements the panel creates), charts as `data:` and
/// `blob:` images, and requests to this server only.
pub const SECURITY_HEADERS: [(&str, &str); 4] = [
    ("x-content-type-options", "nosniff"),
    ("x-frame-options", "DENY"),
    ("referrer-policy", "no-referrer"),
    (
        "content-security-policy",
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; \
         style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; \
         object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
];

/// The `HOST:PORT` to listen on for a `--bind` value: `HOST` alone gets port 8080, `:PORT`
/// gets the loopback address, a bare IPv6 address gets brackets. Host names are resolved by
/// the listener. `Err` names the problem in plain words.
fn bind_address(given: &str) -> Result<String, String> {
    const PORT: u16 = 8080;
    let given = given.trim();
    if given.is_empty() {
        return Err("--bind needs an address such as 127.0.0.1:8080 or localhost".into());
    }
    if given.parse::<std::net::Ipv6Addr>().is_ok() {
        return Ok(format!("[{given}]:{PORT}"));
    }
    let (host, port) = match given.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(':') && (!h.contains(':') || h.ends_with(']')) => (h, Some(p)),
        _ => (given, None),
    };
    let host = if host.is_empty() { "127.0.0.1" } else { host };
    match port {
        None => Ok(format!("{host}:{PORT}")),
        Some(p) => match p.parse::<u16>() {
            Ok(p) => Ok(format!("{host}:{p}")),
            Err(_) => Err(format!(
                "--bind {given:?}: {p:?} is not a port number (0 to 65535)"
            )),
        },
    }
}

/// The repository root: the first ancestor of the binary's directory, then of the current
/// directory, that holds `index.html`; else the current directory.
fn find_static_root() -> PathBuf {
    let mut starts = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        if let Some(dir) = exe.parent() {
            starts.push(dir.to_path_buf());
        }
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    starts.push(cwd.clone());
    for start in starts {
        for dir in start.ancestors() {
            if dir.join("index.html").is_file() && dir.join("www").is_dir() {
                return dir.to_path_buf();
            }
        }
    }
    cwd
}

fn build_router(app: Shared, args: &ServeArgs, root: &Path) -> Result<Router, String> {
    // The API's own 405 answer is set before the token and CORS layers, so that they wrap it:
    // a CORS preflight (OPTIONS) is answered by the CORS layer instead of reaching it.
    let mut api = Router::new()
        .route(
            "/api/snapshot",
            get(snapshot)
                .post(snapshot_post)
                .layer(DefaultBodyLimit::max(POST_BODY_LIMIT)),
        )
        .route("/api/keys", get(keys))
        .route("/api/info", get(info))
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(app);
    if let Some(token) = args.token.clone() {
        let token = Arc::new(token);
        api = api.layer(middleware::from_fn(move |req: Request, next: Next| {
            let token = token.clone();
            async move { check_token(&token, req, next).await }
        }));
    }
    if !args.cors_origins.is_empty() {
        let origins = args
            .cors_origins
            .iter()
            .map(|o| HeaderValue::from_str(o).map_err(|_| format!("bad --cors-origin {o:?}")))
            .collect::<Result<Vec<_>, _>>()?;
        api = api.layer(
            CorsLayer::new()
                .allow_origin(AllowOrigin::list(origins))
                .allow_methods([Method::GET, Method::HEAD, Method::POST])
                .allow_headers([header::AUTHORIZATION, header::CONTENT_TYPE])
                .max_age(Duration::from_secs(600)),
        );
    }
    let not_found_svc = || axum::handler::HandlerWithoutStateExt::into_service(not_found);
    let mut router = Router::new()
        .route_service("/", ServeFile::new(root.join("index.html")))
        .route_service("/index.html", ServeFile::new(root.join("index.html")))
        .nest_service(
            "/www",
            ServeDir::new(root.join("www")).not_found_service(not_found_svc()),
        )
        .nest_service(
            "/pkg",
            ServeDir::new(root.join("pkg")).not_found_service(not_found_svc()),
        )
        .merge(api)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed);
    for (name, value) in SECURITY_HEADERS {
        router = router.layer(SetResponseHeaderLayer::if_not_present(
            header::HeaderName::from_static(name),
            HeaderValue::from_static(value),
        ));
    }
    Ok(router)
}

/// Characters of a path or pattern an error message shows: a longer one is cut (with its
/// length), so that an answer never echoes a whole 60 KB request back.
const SHOWN_MAX: usize = 200;

/// `text` for an error message: whole up to [`SHOWN_MAX`] characters, else its start, `…`
/// and its length in bytes.
fn shown(text: &str) -> String {
    match text.char_indices().nth(SHOWN_MAX) {
        None => text.to_string(),
        Some((at, _)) => format!("{}… ({} bytes)", &text[..at], text.len()),
    }
}

/// Any path the server does not have: 404 with a JSON error.
async fn not_found(axum::extract::OriginalUri(uri): axum::extract::OriginalUri) -> Response {
    api_error(
        StatusCode::NOT_FOUND,
        &format!(
            "no such path: {} (the API is /api/snapshot, /api/keys, /api/info)",
            shown(uri.path())
        ),
    )
}

/// A method a known path does not answer: 405 with a JSON error (`/api/snapshot` takes POST
/// too, the others GET and HEAD).
async fn method_not_allowed(
    method: Method,
    axum::extract::OriginalUri(uri): axum::extract::OriginalUri,
) -> Response {
    let snapshot = uri.path() == "/api/snapshot";
    let mut r = api_error(
        StatusCode::METHOD_NOT_ALLOWED,
        &format!(
            "method {method} is not allowed on {}: {}",
            shown(uri.path()),
            if snapshot {
                "it answers GET (and HEAD) and POST"
            } else {
                "the API answers GET (and HEAD) only"
            }
        ),
    );
    r.headers_mut().insert(
        header::ALLOW,
        HeaderValue::from_static(if snapshot {
            "GET, HEAD, POST"
        } else {
            "GET, HEAD"
        }),
    );
    r
}

async fn check_token(token: &str, req: Request, next: Next) -> Response {
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(bearer_credentials)
        .unwrap_or("");
    // Compare without an early exit on the first differing byte.
    let same = given.len() == token.len()
        && given
            .bytes()
            .zip(token.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
    if same {
        next.run(req).await
    } else {
        api_error(StatusCode::UNAUTHORIZED, "missing or wrong bearer token")
    }
}

/// The credentials of an `Authorization: Bearer TOKEN` header value. The scheme name is
/// case-insensitive and may be followed by several spaces (RFC 9110 §11.1, RFC 6750 §2.1).
fn bearer_credentials(value: &str) -> Option<&str> {
    let (scheme, rest) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| rest.trim_start_matches(' '))
}

/// A JSON error answer: `{"error": message, "component": c}`, where the component names what
/// failed: `"request"` (the client's request), `"token"`, `"allow-list"`, `"redis"` (the
/// Redis server behind the API), `"api"` (this server) or `"limit"` (a per-request limit).
/// A `"redis"` message always starts with `Redis: ` (the README's promise), whichever call
/// (SCAN, DUMP, the export) failed.
fn api_error(status: StatusCode, message: &str) -> Response {
    let component = match status {
        StatusCode::UNAUTHORIZED => "token",
        StatusCode::FORBIDDEN => "allow-list",
        StatusCode::BAD_GATEWAY | StatusCode::GATEWAY_TIMEOUT => "redis",
        StatusCode::PAYLOAD_TOO_LARGE => "limit",
        s if s.is_client_error() => "request",
        _ => "api",
    };
    let message = if component == "redis" && !message.starts_with("Redis: ") {
        format!("Redis: {message}")
    } else {
        message.to_string()
    };
    (
        status,
        Json(json!({ "error": message, "component": component })),
    )
        .into_response()
}

/// The parameters of a query string, percent-decoded, in order; `Err` (a 400 answer) when a
/// `%` is not followed by two hex digits, or when a parameter is not one of `allowed`.
fn query_params(
    query: Option<&str>,
    allowed: &[&str],
) -> Result<Vec<(String, Vec<u8>)>, Box<Response>> {
    let raw = query.unwrap_or("");
    let bytes = raw.as_bytes();
    if let Some(at) = (0..bytes.len()).find(|&i| {
        bytes[i] == b'%'
            && !(i + 2 < bytes.len()
                && bytes[i + 1].is_ascii_hexdigit()
                && bytes[i + 2].is_ascii_hexdigit())
    }) {
        let end = (at + 3).min(raw.len());
        let shown = String::from_utf8_lossy(&bytes[at..end]).into_owned();
        return Err(Box::new(api_error(
            StatusCode::BAD_REQUEST,
            &format!(
                "bad percent-encoding {shown:?} at byte {at} of the query: a % must be followed by two hex digits (%25 for a literal %)"
            ),
        )));
    }
    // Decoded as bytes: a pattern may hold any byte (`%FF`), which a UTF-8 decode would
    // silently turn into U+FFFD.
    let decode = |part: &str| -> Vec<u8> {
        let spaced = part.replace('+', " ");
        percent_encoding::percent_decode_str(&spaced).collect()
    };
    let params: Vec<(String, Vec<u8>)> = raw
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (String::from_utf8_lossy(&decode(k)).into_owned(), decode(v))
        })
        .collect();
    if let Some((name, _)) = params.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
        let expected = if allowed.is_empty() {
            "this endpoint takes no parameters".to_string()
        } else {
            format!(
                "the parameters are {}",
                allowed
                    .iter()
                    .map(|a| format!("{a}="))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        return Err(Box::new(api_error(
            StatusCode::BAD_REQUEST,
            &format!("unknown parameter {name:?}: {expected}"),
        )));
    }
    Ok(params)
}

/// The patterns a request asks for; 400 when one is empty (`match=`), 403 when the allow-list
/// does not cover one of them.
#[cfg(test)]
fn request_patterns(app: &App, query: Option<&str>) -> Result<Vec<Vec<u8>>, Box<Response>> {
    Ok(request_params(app, query, &[])?.0)
}

/// The parameters of a request other than `match`, in order: (name, decoded value).
type OtherParams = Vec<(String, Vec<u8>)>;

/// As [`request_patterns`], with the endpoint's `extra` parameters (besides `match`) taken too
/// and returned apart, in order.
fn request_params(
    app: &App,
    query: Option<&str>,
    extra: &[&str],
) -> Result<(Vec<Vec<u8>>, OtherParams), Box<Response>> {
    // Any other parameter is a mistake (a typo such as `matches=` would otherwise export the
    // default patterns, or everything): refuse it by name.
    let allowed: Vec<&str> = std::iter::once("match")
        .chain(extra.iter().copied())
        .collect();
    let (matches, others): (Vec<_>, Vec<_>) = query_params(query, &allowed)?
        .into_iter()
        .partition(|(k, _)| k == "match");
    let mut patterns: Vec<Vec<u8>> = matches.into_iter().map(|(_, v)| v).collect();
    if patterns.iter().any(|p| p.is_empty()) {
        return Err(Box::new(api_error(
            StatusCode::BAD_REQUEST,
            "empty match pattern: give a Redis glob pattern (match=stats:*), or no match parameter for the defaults",
        )));
    }
    if patterns.is_empty() {
        patterns = app.defaults.clone();
    }
    if !app.allow.is_empty() {
        let refused: Vec<&Vec<u8>> = patterns
            .iter()
            .filter(|p| !app.allow.iter().any(|a| bitlens::glob::matches(a, p)))
            .collect();
        if let Some(bad) = refused.first() {
            // Every refused pattern is listed (`refused`, names in the JSON form of `key`), so
            // that a client can ask again for the others alone (the panel's per-card answer).
            let names: Vec<serde_json::Value> = refused
                .iter()
                .map(|p| serde_json::from_str(&bitlens::escape::json(p)).unwrap_or_default())
                .collect();
            return Err(Box::new(
                (
                    StatusCode::FORBIDDEN,
                    Json(json!({
                        "error": format!(
                            "pattern {:?} is not in the export allow-list",
                            shown(&String::from_utf8_lossy(bad))
                        ),
                        "component": "allow-list",
                        "refused": names,
                    })),
                )
                    .into_response(),
            ));
        }
    }
    Ok((patterns, others))
}

/// A key filter: the key matches the allow-list (when there is one).
#[derive(Clone)]
pub struct KeyFilter {
    allow: Arc<Vec<Vec<u8>>>,
}

impl KeyFilter {
    /// Whether `key` may be exported.
    pub fn permits(&self, key: &[u8]) -> bool {
        self.allow.is_empty() || self.allow.iter().any(|a| bitlens::glob::matches(a, key))
    }

    /// Whether every key may be exported (no allow-list).
    pub fn permits_all(&self) -> bool {
        self.allow.is_empty()
    }
}

/// The `db=N` of a request (the last one given), `None` without one; 400 when it is not a
/// database number (decimal digits, at most 2^31-1 as a server's `databases` setting).
fn db_request(others: &[(String, Vec<u8>)]) -> Result<Option<u64>, Box<Response>> {
    let Some((_, v)) = others.iter().rev().find(|(k, _)| k == "db") else {
        return Ok(None);
    };
    std::str::from_utf8(v)
        .ok()
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|d| d.parse::<u64>().ok())
        .filter(|&d| d <= i32::MAX as u64)
        .map(Some)
        .ok_or_else(|| {
            Box::new(api_error(
                StatusCode::BAD_REQUEST,
                &format!(
                    "bad db {:?}: a database number (0, 1, 2, ...)",
                    String::from_utf8_lossy(v)
                ),
            ))
        })
}

/// The patterns a request gives the demo source for database `db`: the demo data set is
/// database 0, any other database is empty (no pattern then).
fn demo_patterns(patterns: Vec<Vec<u8>>, db: Option<u64>) -> Vec<Vec<u8>> {
    if db.unwrap_or(0) == 0 {
        patterns
    } else {
        Vec::new()
    }
}

/// Most bytes of a `POST /api/snapshot` body: 16 MiB, a key name of 5 MiB percent-encoded
/// byte by byte (Redis' own limit is 512 MB, but a name that long is not a panel's).
pub const POST_BODY_LIMIT: usize = 16 << 20;

/// `POST /api/snapshot`: the parameters of [`snapshot`] as an
/// `application/x-www-form-urlencoded` body, for a request no URL can carry (a long key name).
/// Another content type is a 415, a body over [`POST_BODY_LIMIT`] a 413, both JSON.
async fn snapshot_post(
    State(app): State<Shared>,
    RawQuery(q): RawQuery,
    headers: axum::http::HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| {
            v.trim()
                .eq_ignore_ascii_case("application/x-www-form-urlencoded")
        });
    if !form {
        return api_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "POST /api/snapshot takes its parameters as an application/x-www-form-urlencoded body (match=P&db=N)",
        );
    }
    if q.as_deref().is_some_and(|q| !q.is_empty()) {
        return api_error(
            StatusCode::BAD_REQUEST,
            "POST /api/snapshot takes its parameters in the body, not the URL",
        );
    }
    let body = match body {
        Ok(b) => b,
        Err(e) => {
            let status = e.status();
            let message = if status == StatusCode::PAYLOAD_TOO_LARGE {
                format!("the request body is over {POST_BODY_LIMIT} bytes, the most POST /api/snapshot takes")
            } else {
                format!("cannot read the request body: {}", e.body_text())
            };
            return api_error(status, &message);
        }
    };
    // Percent-encoded, a form body is ASCII: anything else is not one.
    let Ok(params) = std::str::from_utf8(&body) else {
        return api_error(
            StatusCode::BAD_REQUEST,
            "the request body is not application/x-www-form-urlencoded (bytes that are not ASCII: percent-encode them)",
        );
    };
    snapshot_answer(app, Some(params)).await
}

async fn snapshot(State(app): State<Shared>, RawQuery(q): RawQuery) -> Response {
    snapshot_answer(app, q.as_deref()).await
}

/// The answer of `/api/snapshot` to the parameters `q` (a query string, or a POST's form body).
async fn snapshot_answer(app: Shared, q: Option<&str>) -> Response {
    let (patterns, db) = match request_params(&app, q, &["db"])
        .and_then(|(p, others)| Ok((p, db_request(&others)?)))
    {
        Ok(p) => p,
        Err(r) => return *r,
    };
    let filter = KeyFilter {
        allow: Arc::new(app.allow.clone()),
    };
    let (tx, rx) = mpsc::channel(2);
    let limits = app.limits;
    let exports = app.exports.clone();
    let app2 = app.clone();
    match &app.source {
        Source::Demo(demo) => {
            let demo = demo.clone();
            tokio::spawn(async move {
                let Ok(_permit) = exports.acquire_owned().await else {
                    return;
                };
                let patterns = demo_patterns(patterns, db);
                let res = demo.write_snapshot(&patterns, &filter, limits, &tx).await;
                finish_stream(&app2, res, &tx).await;
            });
        }
        Source::Redis(src) => {
            let src = (**src).clone();
            tokio::spawn(async move {
                let Ok(_permit) = exports.acquire_owned().await else {
                    return;
                };
                let res = src
                    .write_snapshot(&patterns, &filter, limits, db, &tx)
                    .await;
                finish_stream(&app2, res, &tx).await;
            });
        }
    }
    // Hold the response until the first chunk (up to one piece of the file) or an error: an
    // export that fails before any byte is ready (too many keys, Redis unreachable) gets a
    // real error status and JSON body instead of a 200 cut short. Later failures abort the body.
    let mut rx = rx;
    let first = match rx.recv().await {
        Some(Ok(chunk)) => chunk,
        Some(Err(e)) => {
            let e = e.to_string();
            return api_error(export_error_status(&e), &e);
        }
        None => return api_error(StatusCode::INTERNAL_SERVER_ERROR, "export ended early"),
    };
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "application/octet-stream")
        .header(
            header::CONTENT_DISPOSITION,
            "attachment; filename=\"snapshot.rdb\"",
        )
        // Live key data is never stored by browsers. (Chromium's DevTools report a `no-store`
        // response read through a ReadableStream, as the panel does, as `net::ERR_ABORTED` even
        // though every byte and the final chunk arrive; the fetch itself succeeds.)
        .header(header::CACHE_CONTROL, "no-store")
        .body(streamed_body(Some(first), rx))
        .unwrap_or_else(|_| api_error(StatusCode::INTERNAL_SERVER_ERROR, "response"))
}

/// The HTTP status for an export that failed: 413 when a per-request limit was exceeded
/// (`more than N keys match`, `snapshot larger than N bytes`), 502 when Redis failed.
/// The 413 message of a request that reaches more keys than `--max-keys` allows (the keys its
/// patterns match plus those it names, each counted once).
pub(crate) fn too_many_keys(max_keys: u64) -> String {
    let keys = if max_keys == 1 {
        "key matches"
    } else {
        "keys match"
    };
    format!("more than {max_keys} {keys}; narrow the pattern or raise --max-keys")
}

/// 400 when the request's `db=` names a database the source does not export (messages
/// starting `db=N:`).
pub(crate) fn export_error_status(message: &str) -> StatusCode {
    if message.starts_with("more than") || message.starts_with("snapshot larger than") {
        StatusCode::PAYLOAD_TOO_LARGE
    } else if message.starts_with("db=") {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::BAD_GATEWAY
    }
}

async fn finish_stream(app: &App, res: Result<(), String>, tx: &ChunkTx) {
    if let Err(e) = res {
        if e != "client disconnected" {
            eprintln!("bitlens: snapshot aborted: {e}");
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis() as u64)
                .unwrap_or(0);
            *app.last_export_error
                .lock()
                .unwrap_or_else(|p| p.into_inner()) = Some((e.clone(), now));
            let _ = tx.send(Err(io::Error::other(e))).await;
        }
    }
}

/// One row of `/api/keys`: `{"key", "type", "bytes", "ttlMs"}`, where `key` is a JSON string
/// when the name is valid UTF-8 and `{"hex": "…"}` otherwise (`bitlens::escape::json`, so
/// that every name round-trips), `bytes` is `MEMORY USAGE` (live Redis) or the estimate of
/// it, and `ttlMs` the key's `PTTL` in milliseconds when it has an expiry (`null` when not).
#[derive(serde::Serialize, Debug, Clone, PartialEq)]
pub struct KeyRow {
    #[serde(serialize_with = "key_json")]
    pub key: Vec<u8>,
    #[serde(rename = "type")]
    pub kind: String,
    pub bytes: u64,
    #[serde(rename = "ttlMs")]
    pub ttl_ms: Option<i64>,
}

fn key_json<S: serde::Serializer>(key: &[u8], s: S) -> Result<S::Ok, S::Error> {
    use serde::Serialize;
    let v: serde_json::Value =
        serde_json::from_str(&bitlens::escape::json(key)).map_err(serde::ser::Error::custom)?;
    v.serialize(s)
}

/// Rows per `/api/keys` page when `cursor` is given without `count`.
pub const KEYS_PAGE: u64 = 1000;
/// Most rows one `/api/keys` page may ask for.
pub const KEYS_PAGE_MAX: u64 = 10_000;

/// One page of `/api/keys?cursor=C[&count=N]`: the rows found and the cursor to ask next
/// (`"0"` once the walk is over, as SCAN says it).
#[derive(Debug, Clone, PartialEq)]
pub struct KeyPage {
    pub rows: Vec<KeyRow>,
    pub cursor: String,
}

/// `cursor` and `count` of a paged `/api/keys` request (`None`: the whole list at once).
fn page_request(others: &[(String, Vec<u8>)]) -> Result<Option<(String, u64)>, Box<Response>> {
    let get = |name: &str| others.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v);
    let bad = |m: String| Box::new(api_error(StatusCode::BAD_REQUEST, &m));
    let cursor = match get("cursor") {
        None => None,
        Some(c) => Some(
            String::from_utf8(c.clone())
                .ok()
                .filter(|c| !c.is_empty())
                .ok_or_else(|| {
                    bad("bad cursor: give 0 to start, then the cursor of the last page".into())
                })?,
        ),
    };
    let count = match get("count") {
        None => KEYS_PAGE,
        Some(n) => std::str::from_utf8(n)
            .ok()
            .and_then(|n| n.parse::<u64>().ok())
            .filter(|n| (1..=KEYS_PAGE_MAX).contains(n))
            .ok_or_else(|| {
                bad(format!(
                    "bad count {:?}: a number of keys from 1 to {KEYS_PAGE_MAX}",
                    String::from_utf8_lossy(n)
                ))
            })?,
    };
    if cursor.is_none() && get("count").is_some() {
        return Err(bad("count= pages the list: give cursor=0 with it".into()));
    }
    Ok(cursor.map(|c| (c, count)))
}

async fn keys(State(app): State<Shared>, RawQuery(q): RawQuery) -> Response {
    let (patterns, others) = match request_params(&app, q.as_deref(), &["cursor", "count", "db"]) {
        Ok(p) => p,
        Err(r) => return *r,
    };
    let db = match db_request(&others) {
        Ok(d) => d,
        Err(r) => return *r,
    };
    let filter = KeyFilter {
        allow: Arc::new(app.allow.clone()),
    };
    let page = match page_request(&others) {
        Ok(p) => p,
        Err(r) => return *r,
    };
    if let Some((cursor, count)) = page {
        let page = match &app.source {
            Source::Demo(demo) => {
                demo.keys_page(&demo_patterns(patterns, db), &filter, &cursor, count)
            }
            Source::Redis(src) => {
                (**src)
                    .clone()
                    .keys_page(&patterns, &filter, app.limits, db, &cursor, count)
                    .await
            }
        };
        return match page {
            Ok(mut p) => {
                p.rows.sort_by(|a, b| a.key.cmp(&b.key));
                Json(json!({ "keys": p.rows, "cursor": p.cursor })).into_response()
            }
            Err((status, msg)) => api_error(status, &msg),
        };
    }
    let rows = match &app.source {
        Source::Demo(demo) => demo.keys(&demo_patterns(patterns, db), &filter, app.limits),
        Source::Redis(src) => {
            (**src)
                .clone()
                .keys(&patterns, &filter, app.limits, db)
                .await
        }
    };
    match rows {
        Ok(mut rows) => {
            rows.sort_by(|a, b| a.key.cmp(&b.key));
            Json(rows).into_response()
        }
        Err((status, msg)) => api_error(status, &msg),
    }
}

async fn info(State(app): State<Shared>, RawQuery(q): RawQuery) -> Response {
    if let Err(r) = query_params(q.as_deref(), &[]) {
        return *r;
    }
    let conventions = json!({
        "active": "stats:active:{YYYYMMDD}",
        "sign": "sign:{uid}:{YYYYMM}",
        "uv_page": "uv:page:index:{YYYYMMDD}",
        "uv_shop": "uv:shop:{id}:{YYYYMMDD}",
        "geo": "shop:geo:{type}",
        "tags": "tag:*",
        "offsets": "{topic}:{partition}:bitmap",
    });
    let defaults: Vec<String> = app
        .defaults
        .iter()
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    let allow: Vec<String> = app
        .allow
        .iter()
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    let last_error = app
        .last_export_error
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
        .map(|(message, at_ms)| json!({ "message": message, "at_ms": at_ms }));
    let mut v = match &app.source {
        Source::Demo(demo) => demo.info(),
        Source::Redis(src) => match (**src).clone().info().await {
            Ok(v) => v,
            Err(e) => {
                let mut r = api_error(StatusCode::BAD_GATEWAY, &format!("Redis: {e}"));
                if let Some(last) = last_error {
                    // Rebuilt with the last export failure, which is what a client that saw
                    // its download cut off wants to know.
                    r = (
                        StatusCode::BAD_GATEWAY,
                        Json(json!({
                            "error": format!("Redis: {e}"),
                            "component": "redis",
                            "last_export_error": last,
                        })),
                    )
                        .into_response();
                }
                return r;
            }
        },
    };
    v["last_export_error"] = last_error.unwrap_or(serde_json::Value::Null);
    v["conventions"] = conventions;
    v["default_match"] = json!(defaults);
    v["allow"] = json!(allow);
    v["compat"] = json!(app.dialect.compat.map(|p| p.name));
    v["clock"] = match app.dialect.clock {
        bitlens::session::Clock::Now => json!("now"),
        bitlens::session::Clock::Snapshot => json!("snapshot"),
        bitlens::session::Clock::At(ms) => json!(ms),
    };
    Json(v).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_params_decode_repeat_and_refuse() {
        let p = query_params(Some("match=stats%3A*&match=uv:*+x&match=%ff"), &["match"]).unwrap();
        assert_eq!(
            p.into_iter().map(|(_, v)| v).collect::<Vec<_>>(),
            vec![b"stats:*".to_vec(), b"uv:* x".to_vec(), vec![0xff]]
        );
        assert!(query_params(None, &["match"]).unwrap().is_empty());
        for bad in ["match=%ZZ", "match=abc%", "match=a%2", "%zz=1"] {
            let r = query_params(Some(bad), &["match"]).unwrap_err();
            assert_eq!(r.status(), StatusCode::BAD_REQUEST, "{bad}");
        }
        assert_eq!(
            query_params(Some("x=1"), &[]).unwrap_err().status(),
            StatusCode::BAD_REQUEST
        );
        assert!(query_params(Some(""), &[]).unwrap().is_empty());
    }

    #[test]
    fn db_parameter_is_a_database_number() {
        let p = |v: &[u8]| vec![("db".to_string(), v.to_vec())];
        assert_eq!(db_request(&[]).unwrap(), None);
        assert_eq!(db_request(&p(b"0")).unwrap(), Some(0));
        assert_eq!(db_request(&p(b"15")).unwrap(), Some(15));
        assert_eq!(db_request(&p(b"2147483647")).unwrap(), Some(2147483647));
        for bad in [&b""[..], b"-1", b"+1", b"1.0", b"x", b"2147483648", b"\xff"] {
            let r = db_request(&p(bad)).unwrap_err();
            assert_eq!(r.status(), StatusCode::BAD_REQUEST, "{bad:?}");
        }
        // The last one given counts, as for the other parameters.
        let two = vec![
            ("db".to_string(), b"x".to_vec()),
            ("db".to_string(), b"3".to_vec()),
        ];
        assert_eq!(db_request(&two).unwrap(), Some(3));
    }

    #[test]
    fn bind_addresses() {
        assert_eq!(bind_address("localhost").unwrap(), "localhost:8080");
        assert_eq!(bind_address("localhost:9000").unwrap(), "localhost:9000");
        assert_eq!(bind_address(":9000").unwrap(), "127.0.0.1:9000");
        assert_eq!(bind_address("0.0.0.0").unwrap(), "0.0.0.0:8080");
        assert_eq!(bind_address("::1").unwrap(), "[::1]:8080");
        assert_eq!(bind_address("[::1]:81").unwrap(), "[::1]:81");
        assert!(bind_address("localhost:http")
            .unwrap_err()
            .contains("not a port number"));
        assert!(bind_address("").is_err());
    }

    #[test]
    fn cors_origins_are_checked_and_normalized() {
        for (given, want) in [
            ("http://panel.example", "http://panel.example"),
            ("HTTPS://Panel.Example:443", "https://panel.example"),
            ("http://panel.example:80", "http://panel.example"),
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
            ("https://[::1]:8443", "https://[::1]:8443"),
            ("http://[::1]", "http://[::1]"),
            ("chrome-extension://abcdef", "chrome-extension://abcdef"),
            (
                "https://xn--pnel-5qa.example",
                "https://xn--pnel-5qa.example",
            ),
        ] {
            assert_eq!(parse_origin(given).as_deref(), Ok(want), "{given}");
        }
        for bad in [
            "*",
            "null",
            "NULL",
            "",
            " ",
            "panel.example",
            "://panel.example",
            "1http://x",
            "http://",
            "http://panel.example/",
            "http://panel.example/app",
            "http://panel.example?x=1",
            "http://panel.example#x",
            "http://user:pw@panel.example",
            "http://panel.example:0",
            "http://panel.example:65536",
            "http://panel.example:+80",
            "http://panel.example:",
            "http://panel example",
            "http://pänel.example",
            "http://a..b",
            "http://[::1",
            "http://[nope]",
            "http://[::1]x",
            " http://panel.example",
        ] {
            let e = parse_origin(bad).unwrap_err();
            assert!(e.contains("scheme://host[:port]"), "{bad:?}: {e}");
        }
        assert!(parse_origin("http://panel.example/")
            .unwrap_err()
            .contains("did you mean http://panel.example?"));
    }

    #[test]
    fn blank_tokens_are_refused() {
        assert_eq!(parse_token("s3cret").as_deref(), Ok("s3cret"));
        assert_eq!(parse_token("a b").as_deref(), Ok("a b"));
        for bad in ["", " ", "\t", "\n  "] {
            let e = parse_token(bad).unwrap_err();
            assert!(e.contains("empty"), "{bad:?}: {e}");
            assert!(e.contains("--token"), "{bad:?}: {e}");
        }
        assert!(parse_token(" tok").unwrap_err().contains("whitespace"));
        assert!(parse_token("tök").unwrap_err().contains("ASCII"));
        assert!(parse_token("t\x01k").unwrap_err().contains("ASCII"));
    }

    #[test]
    fn bearer_scheme_is_case_insensitive() {
        assert_eq!(bearer_credentials("Bearer tok"), Some("tok"));
        assert_eq!(bearer_credentials("bearer tok"), Some("tok"));
        assert_eq!(bearer_credentials("BEARER   tok"), Some("tok"));
        assert_eq!(bearer_credentials("Basic tok"), None);
        assert_eq!(bearer_credentials("Bearertok"), None);
    }

    #[test]
    fn allow_list_refuses_uncovered_patterns() {
        let app = App {
            exports: Arc::new(tokio::sync::Semaphore::new(1)),
            source: Source::Demo(Arc::new(demo_source::Demo::from_keyspace(
                bitlens::Keyspace::new(),
            ))),
            defaults: vec![b"*".to_vec()],
            allow: vec![b"stats:*".to_vec()],
            dialect: Default::default(),
            last_export_error: Mutex::new(None),
            limits: Limits {
                max_keys: 1,
                max_bytes: 1,
                scan_count: 1,
                scan_pause: Duration::ZERO,
            },
        };
        assert_eq!(
            request_patterns(&app, Some("match=stats:active:*")).unwrap(),
            vec![b"stats:active:*".to_vec()]
        );
        let r = request_patterns(&app, Some("match=sign:*")).unwrap_err();
        assert_eq!(r.status(), StatusCode::FORBIDDEN);
        // The default `*` is not covered by `stats:*` either.
        assert!(request_patterns(&app, None).is_err());
        // A misspelt parameter is refused by name, not taken as "no match given".
        let r = request_patterns(&app, Some("matches=stats:*")).unwrap_err();
        assert_eq!(r.status(), StatusCode::BAD_REQUEST);
        let r = request_patterns(&app, Some("match=stats:*&foo=bar")).unwrap_err();
        assert_eq!(r.status(), StatusCode::BAD_REQUEST);
        let f = KeyFilter {
            allow: Arc::new(app.allow.clone()),
        };
        assert!(f.permits(b"stats:active:20240501"));
        assert!(!f.permits(b"sign:1:202405"));
    }
}
