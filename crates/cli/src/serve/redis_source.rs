//! Exporting from a live Redis, through the read-only gate only. Every non-empty database is
//! exported, as a BGSAVE writes them (unless the `--redis` URL's `/N`, `--db` or a request's
//! `db=` narrows it to one): the databases are those INFO keyspace lists (a Redis Cluster has
//! only database 0); each gets a SELECTDB record, then a RESIZEDB record with INFO keyspace's
//! `keys` and `expires` when the whole database is exported, then its keys. Each database is
//! read over a connection of its own (the client library sends `SELECT n` on connecting), so
//! that concurrent requests on other databases never share a selected database. Per database:
//! SCAN MATCH in COUNT batches
//! (optionally paced), MEMORY USAGE of each key found, then PTTL + DUMP per key in pipelined
//! sub-batches (at most [`SUB_BATCH`] keys and about [`BATCH_BYTES`] of values), each DUMP
//! payload checked and written into the RDB stream as an entry. A key above [`BIG_KEY`] bytes
//! is not held whole: its DUMP reply is read in pieces from a plain RESP connection
//! ([`RawRedis`]) and copied through (type byte, then the value bytes; the payload's own
//! version + CRC-64 trailer is checked as it streams and left out). Memory per request is
//! thus bounded by one sub-batch of values plus a few pieces in the channel, whatever the
//! key sizes. (Only with `rediss://…#insecure` or a Unix socket do big keys go through the
//! pipelined path, held whole.)

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::http::StatusCode;
use redis::{IntoConnectionInfo, Value};
use serde_json::json;

use super::gate::{RawRedis, ReadOnlyRedis};
use super::{flush_chunk, ChunkTx, KeyFilter, KeyRow, Limits, SharedBuf, PIECE};
use bitlens::rdb::{DumpSplitter, Family, Format, RdbErrorKind, RdbWriter};

/// Most keys whose PTTL + DUMP go out in one pipeline.
const SUB_BATCH: usize = 8;
/// A pipeline of DUMPs is closed once its keys' MEMORY USAGE adds up to this many bytes.
const BATCH_BYTES: u64 = 1 << 20;
/// Keys whose MEMORY USAGE is above this many bytes have their DUMP streamed in pieces.
const BIG_KEY: u64 = 1 << 20;
/// Most SCAN steps behind one `/api/keys` page: a rare pattern over a big keyspace gives short
/// (even empty) pages with a cursor to go on, never one request walking the whole keyspace.
const PAGE_STEPS: usize = 64;
/// Keys whose MEMORY USAGE is asked in one pipeline.
const SIZE_BATCH: usize = 256;

/// A connected live Redis.
#[derive(Clone)]
pub struct RedisSource {
    /// The server, or every master (or replica) of a cluster.
    nodes: Vec<Node>,
    url: String,
    /// The one database exported when the URL (`/N`, `?db=N` for a socket) or `--db` names
    /// one; `None`: every non-empty database.
    db: Option<u64>,
    cluster: bool,
}

/// One database as INFO keyspace lists it (`db2:keys=5,expires=1,avg_ttl=0`): its number,
/// key count and count of keys with an expiry (what a BGSAVE writes in its RESIZEDB record).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DbCounts {
    pub db: u64,
    pub keys: u64,
    pub expires: u64,
}

/// The databases the text of `INFO keyspace` lists (the server lists only non-empty ones),
/// sorted by number; lines that are not `dbN:keys=K,expires=E,...` are skipped.
pub fn keyspace_of(info: &str) -> Vec<DbCounts> {
    let mut out: Vec<DbCounts> = info
        .lines()
        .filter_map(|l| {
            let (name, fields) = l.trim().split_once(':')?;
            let db = name.strip_prefix("db")?.parse().ok()?;
            let field = |f: &str| {
                fields
                    .split(',')
                    .find_map(|kv| kv.strip_prefix(f)?.strip_prefix('='))
                    .and_then(|v| v.parse().ok())
            };
            Some(DbCounts {
                db,
                keys: field("keys")?,
                expires: field("expires").unwrap_or(0),
            })
        })
        .collect();
    out.sort_by_key(|d| d.db);
    out
}

/// The database a `--redis` URL names: the path of `redis://host/N` (`rediss://` alike), the
/// `db` query parameter of `redis+unix:///path?db=N`; `None` when it names none (the client
/// library then uses database 0, and bitlens exports every database).
fn url_db(url: &str) -> Option<u64> {
    let u = redis::parse_redis_url(url)?;
    let unix = matches!(u.scheme(), "unix" | "redis+unix");
    if unix {
        return u
            .query_pairs()
            .find(|(k, _)| k == "db")
            .and_then(|(_, v)| v.parse().ok());
    }
    u.path().trim_matches('/').parse().ok()
}

/// One server the exporter scans.
#[derive(Clone)]
struct Node {
    redis: ReadOnlyRedis,
    addr: String,
    /// Address and credentials, for the plain connection of streamed DUMPs.
    info: redis::ConnectionInfo,
    /// A cluster replica (READONLY needed on every connection).
    readonly: bool,
    /// TLS settings for `rediss://` (verified, not `#insecure`).
    tls: Option<Arc<rustls::ClientConfig>>,
    /// The `--redis-ca` PEM, for the connections to other databases.
    ca_pem: Option<Arc<Vec<u8>>>,
    /// Connections to databases other than `info`'s, opened on first use and shared by the
    /// requests (each bound to its database for good: reconnections select it again).
    dbs: Arc<tokio::sync::Mutex<HashMap<u64, ReadOnlyRedis>>>,
}

impl Node {
    /// This node's connection to database `db`: `redis` for the URL's database, else one
    /// opened (PING checked) on first use and kept. An `Err` of a database the server does not
    /// have starts `db=N:` (the request's fault).
    async fn conn(&self, db: u64) -> Result<ReadOnlyRedis, String> {
        if i64::try_from(db).ok() == Some(self.info.redis.db) {
            return Ok(self.redis.clone());
        }
        let mut dbs = self.dbs.lock().await;
        if let Some(c) = dbs.get(&db) {
            return Ok(c.clone());
        }
        let mut info = self.info.clone();
        info.redis.db = i64::try_from(db).map_err(|_| format!("db={db}: no such database"))?;
        let c = open_node(info, self.ca_pem.as_deref().map(Vec::as_slice))
            .await
            .map_err(|e| {
                if e.contains("out of range") {
                    format!("db={db}: no such database on {} ({e})", self.addr)
                } else {
                    format!("SELECT {db} on {}: {e}", self.addr)
                }
            })?;
        dbs.insert(db, c.clone());
        Ok(c)
    }

    /// A connection of our own to database `db` of this node for streaming big DUMPs; `None`
    /// over a Unix socket or `rediss://…#insecure` (big keys then go through the pipelined
    /// path).
    async fn raw(&self, db: u64) -> Option<Result<RawRedis, String>> {
        let (host, port, tls) = match &self.info.addr {
            redis::ConnectionAddr::Tcp(host, port) => (host, port, None),
            redis::ConnectionAddr::TcpTls {
                host,
                port,
                insecure: false,
                ..
            } => (host, port, Some(self.tls.clone()?)),
            _ => return None,
        };
        let r = &self.info.redis;
        Some(
            RawRedis::connect(
                host,
                *port,
                tls,
                r.username.as_deref(),
                r.password.as_deref(),
                i64::try_from(db).unwrap_or(i64::MAX),
                self.readonly,
            )
            .await,
        )
    }
}

/// Opens a reconnecting connection to one server and checks that it answers PING.
async fn open_node(
    info: redis::ConnectionInfo,
    ca_pem: Option<&[u8]>,
) -> Result<ReadOnlyRedis, String> {
    let client = match ca_pem {
        Some(pem) => redis::Client::build_with_tls(
            info,
            redis::TlsCertificates {
                client_tls: None,
                root_cert: Some(pem.to_vec()),
            },
        ),
        None => redis::Client::open(info),
    }
    .map_err(|e| e.to_string())?;
    let config = redis::aio::ConnectionManagerConfig::new()
        .set_number_of_retries(2)
        .set_max_delay(1000)
        .set_connection_timeout(Duration::from_secs(5))
        .set_response_timeout(Duration::from_secs(120));
    let conn = tokio::time::timeout(
        Duration::from_secs(15),
        redis::aio::ConnectionManager::new_with_config(client, config),
    )
    .await
    .map_err(|_| "connection timed out".to_string())?
    .map_err(|e| e.to_string())?;
    let mut redis = ReadOnlyRedis::new(conn);
    redis
        .query(&[b"PING".to_vec()])
        .await
        .map_err(|e| e.to_string())?;
    Ok(redis)
}

fn addr_text(addr: &redis::ConnectionAddr) -> String {
    match addr {
        redis::ConnectionAddr::Tcp(h, p) => format!("{h}:{p}"),
        redis::ConnectionAddr::TcpTls { host, port, .. } => format!("{host}:{port}"),
        redis::ConnectionAddr::Unix(p) => p.display().to_string(),
    }
}

/// `info` pointed at another host and port (same credentials and TLS settings).
fn with_addr(info: &redis::ConnectionInfo, host: &str, port: u16) -> redis::ConnectionInfo {
    let mut i = info.clone();
    i.addr = match &info.addr {
        redis::ConnectionAddr::TcpTls {
            insecure,
            tls_params,
            ..
        } => redis::ConnectionAddr::TcpTls {
            host: host.to_string(),
            port,
            insecure: *insecure,
            tls_params: tls_params.clone(),
        },
        _ => redis::ConnectionAddr::Tcp(host.to_string(), port),
    };
    i
}

/// The distinct (host, port) of the masters, or with `replicas` of one replica per slot range
/// where there is one, from a CLUSTER SLOTS reply; plus the slot ranges (`first-last`) that
/// have no replica listed (with `replicas`, they are read from their master).
fn cluster_nodes(
    slots: &Value,
    replicas: bool,
    seed_host: &str,
) -> (Vec<(String, u16)>, Vec<String>) {
    let mut out: Vec<(String, u16)> = Vec::new();
    let mut no_replica = Vec::new();
    let Value::Array(ranges) = slots else {
        return (out, no_replica);
    };
    for r in ranges {
        let Value::Array(parts) = r else { continue };
        if replicas && parts.len() <= 3 {
            if let (Some(Value::Int(a)), Some(Value::Int(b))) = (parts.first(), parts.get(1)) {
                no_replica.push(format!("{a}-{b}"));
            }
        }
        let pick = if replicas && parts.len() > 3 { 3 } else { 2 };
        let Some(Value::Array(node)) = parts.get(pick) else {
            continue;
        };
        let host = node
            .first()
            .and_then(text)
            .map(|h| String::from_utf8_lossy(&h).into_owned())
            .filter(|h| !h.is_empty() && h != "?")
            .unwrap_or_else(|| seed_host.to_string());
        let Some(Value::Int(port)) = node.get(1) else {
            continue;
        };
        let hp = (host, *port as u16);
        if !out.contains(&hp) {
            out.push(hp);
        }
    }
    (out, no_replica)
}

/// The URL with any password removed (for messages and `/api/info`).
pub fn display_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (auth_host, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    match auth_host.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split(':').next().unwrap_or("");
            if user.is_empty() {
                format!("{scheme}://{host}{path}")
            } else {
                format!("{scheme}://{user}@{host}{path}")
            }
        }
        None => url.to_string(),
    }
}

/// The source server as INFO server describes it. Valkey reports `valkey_version` beside a
/// compatibility `redis_version` (7.2.4 on Valkey 8.1 and 9.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceServer {
    /// `redis_version`.
    pub redis_version: String,
    /// `valkey_version`, on Valkey.
    pub valkey_version: Option<String>,
}

impl SourceServer {
    /// Parses the text of `INFO server`.
    pub fn from_info(info: &str) -> Result<SourceServer, String> {
        let field = |name: &str| {
            info.lines()
                .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
                .map(|s| s.trim().to_string())
        };
        Ok(SourceServer {
            redis_version: field("redis_version").ok_or("INFO: no redis_version")?,
            valkey_version: field("valkey_version"),
        })
    }

    /// `"Redis"` or `"Valkey"`.
    pub fn product(&self) -> &'static str {
        if self.valkey_version.is_some() {
            "Valkey"
        } else {
            "Redis"
        }
    }

    /// The server's own version (`valkey_version` on Valkey, else `redis_version`).
    pub fn version(&self) -> &str {
        self.valkey_version
            .as_deref()
            .unwrap_or(&self.redis_version)
    }

    /// The snapshot format this server writes (its SAVE files and DUMP trailers), as the core
    /// knows it ([`Format::for_server`]).
    pub fn format(&self) -> Format {
        Format::for_server(&self.redis_version, self.valkey_version.as_deref())
    }

    /// A writer of this server's format whose aux fields name it as the server itself does:
    /// `redis-ver` for Redis, `valkey-ver` for Valkey. (Valkey 7.2–8.x writes Redis' format,
    /// where the writer always starts with `redis-ver`: that is Valkey's compatibility
    /// `redis_version`, and `valkey-ver` follows.)
    pub fn writer<W: std::io::Write>(&self, w: W) -> std::io::Result<RdbWriter<W>> {
        let format = self.format();
        match (&self.valkey_version, format.family) {
            (Some(v), Family::Redis) => {
                let mut wr = RdbWriter::with_format(w, format, self.redis_version.as_bytes())?;
                wr.aux(b"valkey-ver", v.as_bytes())?;
                Ok(wr)
            }
            _ => RdbWriter::with_format(w, format, self.version().as_bytes()),
        }
    }
}

fn text(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::BulkString(b) => Some(b.clone()),
        Value::SimpleString(s) => Some(s.as_bytes().to_vec()),
        Value::VerbatimString { text, .. } => Some(text.as_bytes().to_vec()),
        Value::Okay => Some(b"OK".to_vec()),
        _ => None,
    }
}

/// State of one request's SCAN walk over its databases, nodes and patterns.
struct Walk<'a> {
    patterns: &'a [Vec<u8>],
    filter: &'a KeyFilter,
    limits: Limits,
    /// The databases walked, in order, and the index of the current one.
    dbs: Vec<u64>,
    db_at: usize,
    node: usize,
    index: usize,
    cursor: Vec<u8>,
    started: bool,
    /// The keys of the current database met so far (each is exported once).
    seen: HashSet<Vec<u8>>,
    /// Keys met in the databases before the current one (for `--max-keys`).
    before: u64,
}

impl<'a> Walk<'a> {
    fn new(patterns: &'a [Vec<u8>], filter: &'a KeyFilter, limits: Limits, dbs: Vec<u64>) -> Self {
        Walk {
            patterns,
            filter,
            limits,
            dbs,
            db_at: 0,
            node: 0,
            index: 0,
            cursor: b"0".to_vec(),
            started: false,
            seen: HashSet::new(),
            before: 0,
        }
    }

    /// Keys met so far, every database counted.
    fn met(&self) -> u64 {
        self.before + self.seen.len() as u64
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

impl RedisSource {
    /// Connects through the first seed URL that answers (tried in order, see [`Self::connect`]);
    /// when none does, one message naming every seed (without passwords) and its error, as
    /// `cannot reach Redis at URL: reason`, joined by `; `.
    pub async fn connect_first(
        urls: &[String],
        ca: Option<&Path>,
        read_replicas: bool,
        db: Option<u64>,
    ) -> Result<RedisSource, String> {
        // A URL that is not one is a typo to fix before anything is tried.
        for url in urls {
            parse_url(url)?;
        }
        let mut errors = Vec::new();
        for url in urls {
            match Self::connect(url, ca, read_replicas, db).await {
                Ok(s) => {
                    if !errors.is_empty() {
                        eprintln!("bitlens: note: {}", errors.join("; "));
                    }
                    return Ok(s);
                }
                Err(e) => errors.push(format!("cannot reach Redis at {}: {e}", display_url(url))),
            }
        }
        Err(errors.join("; "))
    }

    /// Connects (5 s timeout per attempt, reconnecting later when the connection drops) and checks that the server answers PING.
    /// `rediss://` URLs use TLS, verified against `ca` (a PEM file) when given, else against
    /// the system's trusted roots.
    /// A Redis Cluster (INFO cluster says `cluster_enabled:1`) is discovered with CLUSTER SLOTS
    /// and every master is scanned (with `read_replicas`, a replica of each slot range instead,
    /// after READONLY).
    /// The database the URL names (`/N`), or `db` (`--db`), narrows every export to it; with
    /// neither, every non-empty database is exported. Both, different: `Err`.
    pub async fn connect(
        url: &str,
        ca: Option<&Path>,
        read_replicas: bool,
        db: Option<u64>,
    ) -> Result<RedisSource, String> {
        let mut info = parse_url(url)?;
        let db = match (url_db(url), db) {
            (Some(a), Some(b)) if a != b => {
                return Err(format!(
                    "the URL {} names database {a} but --db says {b}",
                    display_url(url)
                ))
            }
            (a, b) => a.or(b),
        };
        if let Some(d) = db {
            info.redis.db = i64::try_from(d).map_err(|_| format!("no database {d}"))?;
        }
        let pem = match ca {
            Some(path) => Some(
                std::fs::read(path)
                    .map_err(|e| format!("cannot read CA file {}: {e}", path.display()))?,
            ),
            None => None,
        };
        let tls = match &info.addr {
            redis::ConnectionAddr::TcpTls { .. } => Some(super::gate::tls_config(pem.as_deref())?),
            _ => None,
        };
        let mut seed = open_node(info.clone(), pem.as_deref()).await?;
        let ca_pem = pem.clone().map(Arc::new);
        let ci = seed
            .query(&[b"INFO".to_vec(), b"cluster".to_vec()])
            .await
            .map_err(|e| e.to_string())?;
        let cluster = text(&ci)
            .map(|t| String::from_utf8_lossy(&t).contains("cluster_enabled:1"))
            .unwrap_or(false);
        let mut nodes = Vec::new();
        if !cluster {
            nodes.push(Node {
                redis: seed,
                addr: addr_text(&info.addr),
                info: info.clone(),
                readonly: false,
                tls: tls.clone(),
                ca_pem: ca_pem.clone(),
                dbs: Default::default(),
            });
        } else {
            let slots = seed
                .query(&[b"CLUSTER".to_vec(), b"SLOTS".to_vec()])
                .await
                .map_err(|e| format!("CLUSTER SLOTS: {e}"))?;
            let seed_host = match &info.addr {
                redis::ConnectionAddr::Tcp(h, _) => h.clone(),
                redis::ConnectionAddr::TcpTls { host, .. } => host.clone(),
                redis::ConnectionAddr::Unix(_) => "127.0.0.1".into(),
            };
            let (hosts, no_replica) = cluster_nodes(&slots, read_replicas, &seed_host);
            if !no_replica.is_empty() {
                eprintln!(
                    "bitlens: warning: no replica listed for slot range(s) {}; reading them from their master",
                    no_replica.join(", ")
                );
            }
            for (host, port) in hosts {
                let node_info = with_addr(&info, &host, port);
                let mut redis = open_node(node_info.clone(), pem.as_deref())
                    .await
                    .map_err(|e| format!("cluster node {host}:{port}: {e}"))?;
                if read_replicas {
                    redis
                        .query(&[b"READONLY".to_vec()])
                        .await
                        .map_err(|e| format!("READONLY on {host}:{port}: {e}"))?;
                }
                nodes.push(Node {
                    redis,
                    addr: format!("{host}:{port}"),
                    info: node_info,
                    readonly: read_replicas,
                    tls: tls.clone(),
                    ca_pem: ca_pem.clone(),
                    dbs: Default::default(),
                });
            }
            if nodes.is_empty() {
                return Err("CLUSTER SLOTS lists no nodes".into());
            }
        }
        Ok(RedisSource {
            nodes,
            url: display_url(url),
            db,
            cluster,
        })
    }

    /// The source server (family and version) from INFO server.
    async fn server(&mut self) -> Result<SourceServer, String> {
        let v = self.nodes[0]
            .redis
            .query(&[b"INFO".to_vec(), b"server".to_vec()])
            .await
            .map_err(|e| e.to_string())?;
        let t = text(&v).ok_or("INFO: unexpected reply")?;
        SourceServer::from_info(&String::from_utf8_lossy(&t))
    }

    /// The databases INFO keyspace lists on every node, counts added up per database (a
    /// cluster's nodes each hold a part of database 0).
    async fn keyspace(&mut self) -> Result<Vec<DbCounts>, String> {
        let mut all: Vec<DbCounts> = Vec::new();
        for n in &mut self.nodes {
            let v = n
                .redis
                .query(&[b"INFO".to_vec(), b"keyspace".to_vec()])
                .await
                .map_err(|e| format!("INFO keyspace ({}): {e}", n.addr))?;
            let t = text(&v).ok_or("INFO keyspace: unexpected reply")?;
            for d in keyspace_of(&String::from_utf8_lossy(&t)) {
                match all.iter_mut().find(|a| a.db == d.db) {
                    Some(a) => {
                        a.keys += d.keys;
                        a.expires += d.expires;
                    }
                    None => all.push(d),
                }
            }
        }
        all.sort_by_key(|d| d.db);
        Ok(all)
    }

    /// The one database a request reads when it must name one (`/api/keys`): `want` (its
    /// `db=`), else the URL's, else 0. `Err` (starting `db=N:`) for a database this source
    /// does not export: not the URL's, or not 0 on a cluster.
    fn one_db(&self, want: Option<u64>) -> Result<u64, String> {
        match (want, self.db) {
            (Some(w), Some(d)) if w != d => Err(format!(
                "db={w}: this server exports database {d} only (the one its --redis URL or --db names)"
            )),
            (Some(w), _) if self.cluster && w != 0 => Err(format!(
                "db={w}: a Redis Cluster has database 0 only"
            )),
            (w, d) => Ok(w.or(d).unwrap_or(0)),
        }
    }

    /// The databases an export walks, in order, with INFO keyspace's counts: the one `want`
    /// (the request's `db=`) or the URL names ([`Self::one_db`]), else every database INFO
    /// keyspace lists (every non-empty one, as a BGSAVE writes them; on a cluster, database 0).
    /// A named database INFO does not list comes with zero counts (it is walked regardless).
    async fn export_dbs(&mut self, want: Option<u64>) -> Result<Vec<DbCounts>, String> {
        let one = match (want, self.db) {
            (None, None) => None,
            _ => Some(self.one_db(want)?),
        };
        let listed = self.keyspace().await?;
        Ok(match one {
            Some(db) => vec![listed
                .iter()
                .copied()
                .find(|d| d.db == db)
                .unwrap_or(DbCounts {
                    db,
                    keys: 0,
                    expires: 0,
                })],
            None => listed.into_iter().filter(|d| d.keys > 0).collect(),
        })
    }

    /// One SCAN step in database `db`: the next cursor and the keys of this batch.
    async fn scan(
        &mut self,
        node: usize,
        db: u64,
        cursor: &[u8],
        pattern: &[u8],
        count: u64,
    ) -> Result<(Vec<u8>, Vec<Vec<u8>>), String> {
        let v = self.nodes[node]
            .conn(db)
            .await?
            .query(&[
                b"SCAN".to_vec(),
                cursor.to_vec(),
                b"MATCH".to_vec(),
                pattern.to_vec(),
                b"COUNT".to_vec(),
                count.to_string().into_bytes(),
            ])
            .await
            .map_err(|e| format!("SCAN: {e}"))?;
        let Value::Array(parts) = v else {
            return Err("SCAN: unexpected reply".into());
        };
        let (Some(c), Some(Value::Array(keys))) = (parts.first().and_then(text), parts.get(1))
        else {
            return Err("SCAN: unexpected reply".into());
        };
        Ok((c, keys.iter().filter_map(text).collect()))
    }

    /// The next batch of new, permitted keys of the walk (each key once per database and
    /// request) with its database and node, or `None` when every database, node and pattern
    /// has been walked. Fails past `limits.max_keys` (every database counted).
    async fn next_batch(
        &mut self,
        w: &mut Walk<'_>,
    ) -> Result<Option<(u64, usize, Vec<Vec<u8>>)>, String> {
        if !w.started && !self.cluster {
            // Names alone past the limit: refused before any key is read, so a snapshot
            // request gets its 413 instead of a body cut off after the first keys.
            let named: HashSet<Vec<u8>> = w
                .patterns
                .iter()
                .filter_map(|p| bitlens::glob::literal(p))
                .filter(|k| w.filter.permits(k))
                .collect();
            if (named.len() as u64).saturating_mul(w.dbs.len() as u64) > w.limits.max_keys {
                return Err(super::too_many_keys(w.limits.max_keys));
            }
        }
        while w.db_at < w.dbs.len() {
            if w.node >= self.nodes.len() {
                w.db_at += 1;
                w.node = 0;
                w.index = 0;
                w.cursor = b"0".to_vec();
                w.before += w.seen.len() as u64;
                w.seen.clear();
                continue;
            }
            if w.index >= w.patterns.len() {
                w.node += 1;
                w.index = 0;
                continue;
            }
            if w.started && !w.limits.scan_pause.is_zero() {
                tokio::time::sleep(w.limits.scan_pause).await;
            }
            w.started = true;
            let (db, node) = (w.dbs[w.db_at], w.node);
            let pattern = &w.patterns[w.index];
            // A pattern naming one key is read by name, not by a SCAN of the whole keyspace
            // (on a cluster the key's node is not known here: SCAN then). A key that does not
            // exist is dropped later (MEMORY USAGE / TYPE / DUMP answer nil or none).
            if let Some(key) = (!self.cluster)
                .then(|| bitlens::glob::literal(pattern))
                .flatten()
            {
                w.index += 1;
                if w.filter.permits(&key) && w.seen.insert(key.clone()) {
                    // A named key counts as a match (new-user trial: `match=a&match=b&…` of
                    // literal names went past --max-keys).
                    if w.met() > w.limits.max_keys {
                        return Err(super::too_many_keys(w.limits.max_keys));
                    }
                    return Ok(Some((db, node, vec![key])));
                }
                continue;
            }
            let (next, keys) = self
                .scan(node, db, &w.cursor, pattern, w.limits.scan_count)
                .await
                .map_err(|e| format!("{} ({})", e, self.nodes[node].addr))?;
            if next == b"0" {
                w.index += 1;
                w.cursor = b"0".to_vec();
            } else {
                w.cursor = next;
            }
            let fresh: Vec<Vec<u8>> = keys
                .into_iter()
                .filter(|k| w.filter.permits(k) && w.seen.insert(k.clone()))
                .collect();
            if w.met() > w.limits.max_keys {
                return Err(super::too_many_keys(w.limits.max_keys));
            }
            if !fresh.is_empty() {
                return Ok(Some((db, node, fresh)));
            }
        }
        Ok(None)
    }

    /// Streams an RDB of the matching keys into `tx`, in the format the source writes
    /// ([`SourceServer::format`]: `REDIS0012` for Redis 7.4, `VALKEY080` for Valkey 9), naming
    /// the source's version as it does ([`SourceServer::writer`]). The databases are those of
    /// [`Self::export_dbs`] (`want`: the request's `db=`); each one holding a matching key gets
    /// a SELECTDB record before its first key, and when the export takes the whole database
    /// (a `*` pattern, no allow-list) a RESIZEDB record with INFO keyspace's counts, as a
    /// BGSAVE writes it (a narrowed export has none: the counts are not known before the walk,
    /// and a loader only sizes its tables from them).
    pub async fn write_snapshot(
        mut self,
        patterns: &[Vec<u8>],
        filter: &KeyFilter,
        limits: Limits,
        want: Option<u64>,
        tx: &ChunkTx,
    ) -> Result<(), String> {
        let server = self.server().await?;
        let dbs = self.export_dbs(want).await?;
        // Every database's connection (its SELECT) before the first byte: a database that
        // cannot be read (an ACL without +select) is a 502 naming it, not a body cut short.
        for d in &dbs {
            for n in &self.nodes {
                n.conn(d.db).await?;
            }
        }
        let whole = filter.permits_all() && patterns.iter().any(|p| p == b"*");
        let buf = SharedBuf::default();
        let writer = server
            .writer(buf.clone())
            .map_err(|e| format!("{} {} source: {e}", server.product(), server.version()))?;
        let mut out = Out {
            writer,
            buf,
            tx,
            total: 0,
            limits,
            next_db: None,
        };
        // The plain connection for big keys, opened on first use (node, database, connection).
        let mut raw: Option<(usize, u64, RawRedis)> = None;
        let mut walk = Walk::new(patterns, filter, limits, dbs.iter().map(|d| d.db).collect());
        let mut current = None;
        while let Some((db, node, keys)) = self.next_batch(&mut walk).await? {
            if current != Some(db) {
                current = Some(db);
                let sizes = dbs
                    .iter()
                    .find(|d| d.db == db)
                    .filter(|_| whole)
                    .map(|d| (d.keys, d.expires));
                out.next_db = Some((db, sizes));
            }
            let mut conn = self.nodes[node].conn(db).await?;
            for group in keys.chunks(SIZE_BATCH) {
                let cmds: Vec<Vec<Vec<u8>>> = group
                    .iter()
                    .map(|k| vec![b"MEMORY".to_vec(), b"USAGE".to_vec(), k.clone()])
                    .collect();
                let sizes = conn
                    .pipeline(&cmds)
                    .await
                    .map_err(|e| format!("MEMORY USAGE: {e}"))?;
                let mut batch: Vec<&[u8]> = Vec::new();
                let mut batch_bytes = 0;
                for (k, size) in group.iter().zip(&sizes) {
                    let size = match size {
                        Value::Int(n) => *n as u64,
                        // Vanished since SCAN.
                        Value::Nil => continue,
                        _ => 0,
                    };
                    if size > BIG_KEY {
                        if raw.as_ref().map(|r| (r.0, r.1)) != Some((node, db)) {
                            raw = match self.nodes[node].raw(db).await {
                                Some(r) => Some((node, db, r?)),
                                None => None,
                            };
                        }
                        if let Some((_, _, stream)) = raw.as_mut() {
                            stream_key(&mut conn, stream, k, &mut out).await?;
                            continue;
                        }
                    }
                    batch.push(k);
                    batch_bytes += size;
                    if batch.len() >= SUB_BATCH || batch_bytes >= BATCH_BYTES {
                        dump_batch(&mut conn, &batch, &mut out).await?;
                        batch.clear();
                        batch_bytes = 0;
                    }
                }
                if !batch.is_empty() {
                    dump_batch(&mut conn, &batch, &mut out).await?;
                }
            }
        }
        let Out {
            writer, buf, tx, ..
        } = out;
        writer.finish().map_err(|e| e.to_string())?;
        flush_chunk(&buf, tx).await
    }

    /// `/api/keys` rows: TYPE, MEMORY USAGE and PTTL of each matching key.
    /// The database is that of [`Self::one_db`] (`want`: the request's `db=`).
    pub async fn keys(
        mut self,
        patterns: &[Vec<u8>],
        filter: &KeyFilter,
        limits: Limits,
        want: Option<u64>,
    ) -> Result<Vec<KeyRow>, (StatusCode, String)> {
        let fail = |e: String| (super::export_error_status(&e), e);
        let db = self.one_db(want).map_err(fail)?;
        let mut rows = Vec::new();
        let mut walk = Walk::new(patterns, filter, limits, vec![db]);
        while let Some((db, node, keys)) = self.next_batch(&mut walk).await.map_err(fail)? {
            for chunk in keys.chunks(SUB_BATCH * 16) {
                self.rows_of(node, db, chunk, &mut rows)
                    .await
                    .map_err(fail)?;
            }
        }
        Ok(rows)
    }

    /// One page of `/api/keys?cursor=C&count=N`: SCAN steps over the patterns in turn (and
    /// the nodes of a cluster) until `count` rows are found, [`PAGE_STEPS`] steps were made or
    /// the walk ends (so a page may hold fewer than `count` rows, as a SCAN reply may; `count` is
    /// a hint as SCAN's COUNT is, each SCAN asking for the rows still wanted, so a page may
    /// also exceed it by the few keys of a hash bucket). The cursor is
    /// `NODE-PATTERN-SCANCURSOR` (`"0"` at the start and after the last page). A key matching
    /// an earlier pattern of the request is left to that pattern's walk, so that no state is
    /// kept between pages; like SCAN, a key may still come twice while the keyspace changes.
    /// The database is that of [`Self::one_db`] (`want`: the request's `db=`).
    #[allow(clippy::too_many_arguments)]
    pub async fn keys_page(
        mut self,
        patterns: &[Vec<u8>],
        filter: &KeyFilter,
        limits: Limits,
        want: Option<u64>,
        cursor: &str,
        count: u64,
    ) -> Result<super::KeyPage, (StatusCode, String)> {
        let bad = || {
            (
                StatusCode::BAD_REQUEST,
                format!("bad cursor {cursor:?}: give 0 to start, then the cursor of the last page"),
            )
        };
        let (mut node, mut index, mut scan) = if cursor == "0" {
            (0usize, 0usize, b"0".to_vec())
        } else {
            let mut parts = cursor.splitn(3, '-');
            let n = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
            let i = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
            let c = parts
                .next()
                .filter(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_digit()));
            (n, i, c.ok_or_else(bad)?.as_bytes().to_vec())
        };
        if node >= self.nodes.len() || index >= patterns.len() {
            return Err(bad());
        }
        let fail = |e: String| (super::export_error_status(&e), e);
        let db = self.one_db(want).map_err(fail)?;
        let mut found: Vec<Vec<u8>> = Vec::new();
        let mut found_on: Vec<usize> = Vec::new();
        let mut page: HashSet<Vec<u8>> = HashSet::new();
        let mut first = true;
        let mut steps = 0;
        while node < self.nodes.len() && (found.len() as u64) < count && steps < PAGE_STEPS {
            steps += 1;
            if !first && !limits.scan_pause.is_zero() {
                tokio::time::sleep(limits.scan_pause).await;
            }
            first = false;
            let pattern = &patterns[index];
            let literal = (!self.cluster)
                .then(|| bitlens::glob::literal(pattern))
                .flatten();
            let (next, keys) = match literal {
                Some(k) => (b"0".to_vec(), vec![k]),
                None => self
                    .scan(
                        node,
                        db,
                        &scan,
                        pattern,
                        limits.scan_count.min(count - found.len() as u64).max(1),
                    )
                    .await
                    .map_err(|e| fail(format!("{} ({})", e, self.nodes[node].addr)))?,
            };
            for k in keys {
                let earlier = patterns[..index]
                    .iter()
                    .any(|p| bitlens::glob::matches(p, &k));
                if filter.permits(&k) && !earlier && page.insert(k.clone()) {
                    found.push(k);
                    found_on.push(node);
                }
            }
            if next == b"0" {
                scan = b"0".to_vec();
                index += 1;
                if index >= patterns.len() {
                    index = 0;
                    node += 1;
                }
            } else {
                scan = next;
            }
        }
        let mut rows = Vec::with_capacity(found.len());
        let mut start = 0;
        while start < found.len() {
            // Runs of keys of one node, in pipelines of at most SUB_BATCH * 16 keys.
            let n = found_on[start];
            let mut end = start;
            while end < found.len() && found_on[end] == n && end - start < SUB_BATCH * 16 {
                end += 1;
            }
            self.rows_of(n, db, &found[start..end], &mut rows)
                .await
                .map_err(fail)?;
            start = end;
        }
        let cursor = if node >= self.nodes.len() {
            "0".to_string()
        } else {
            format!("{node}-{index}-{}", String::from_utf8_lossy(&scan))
        };
        Ok(super::KeyPage { rows, cursor })
    }

    /// TYPE and MEMORY USAGE of `keys` (in database `db` of node `node`, one pipeline) as
    /// `/api/keys` rows, appended to `rows`; keys gone since SCAN are left out.
    async fn rows_of(
        &mut self,
        node: usize,
        db: u64,
        keys: &[Vec<u8>],
        rows: &mut Vec<KeyRow>,
    ) -> Result<(), String> {
        let mut cmds = Vec::with_capacity(keys.len() * 3);
        for k in keys {
            cmds.push(vec![b"TYPE".to_vec(), k.clone()]);
            cmds.push(vec![b"MEMORY".to_vec(), b"USAGE".to_vec(), k.clone()]);
            cmds.push(vec![b"PTTL".to_vec(), k.clone()]);
        }
        let replies = self.nodes[node]
            .conn(db)
            .await?
            .pipeline(&cmds)
            .await
            .map_err(|e| format!("TYPE/MEMORY USAGE/PTTL: {e}"))?;
        for (k, three) in keys.iter().zip(replies.chunks(3)) {
            let kind = three.first().and_then(text).unwrap_or_default();
            let bytes = match three.get(1) {
                Some(Value::Int(n)) => *n as u64,
                _ => continue,
            };
            // PTTL: -2 the key is gone (expired or deleted since SCAN), -1 no expiry.
            let ttl_ms = match three.get(2) {
                Some(Value::Int(-1)) => None,
                Some(Value::Int(n)) if *n >= 0 => Some(*n),
                _ => continue,
            };
            if kind == b"none" {
                continue;
            }
            rows.push(KeyRow {
                key: k.to_vec(),
                kind: String::from_utf8_lossy(&kind).into_owned(),
                bytes,
                ttl_ms,
            });
        }
        Ok(())
    }

    /// `/api/info` for a live Redis: `db` is the one database exported (the URL's or
    /// `--db`'s; `null`: every non-empty one), `databases` INFO keyspace's list
    /// (`[{"db", "keys", "expires"}]`, a cluster's counts added up over its nodes).
    pub async fn info(mut self) -> Result<serde_json::Value, String> {
        let server = self.server().await?;
        let databases: Vec<serde_json::Value> = self
            .keyspace()
            .await?
            .iter()
            .map(|d| json!({ "db": d.db, "keys": d.keys, "expires": d.expires }))
            .collect();
        Ok(json!({
            "source": "redis",
            "redis": self.url,
            "db": self.db,
            "databases": databases,
            "cluster": self.cluster,
            "nodes": self.nodes.iter().map(|n| n.addr.clone()).collect::<Vec<_>>(),
            "redis_version": server.redis_version,
            "server": server.product(),
            "version": server.version(),
            "rdb_version": server.format().version,
            "rdb_format": server.format().magic(),
        }))
    }
}

/// The RDB being written for one request and where its bytes go.
struct Out<'a> {
    writer: RdbWriter<SharedBuf>,
    buf: SharedBuf,
    tx: &'a ChunkTx,
    /// Bytes of the file sent so far.
    total: u64,
    limits: Limits,
    /// The database whose SELECTDB (and RESIZEDB with these key and expiry counts) goes
    /// before the next key: written with it, so that a database without a key written gets
    /// no record.
    next_db: Option<(u64, Option<(u64, u64)>)>,
}

impl Out<'_> {
    /// Writes the pending SELECTDB / RESIZEDB records, if any (before a key).
    fn enter_db(&mut self) -> Result<(), String> {
        if let Some((db, sizes)) = self.next_db.take() {
            self.writer.select_db(db).map_err(|e| e.to_string())?;
            if let Some((keys, expires)) = sizes {
                self.writer
                    .resize_db(keys, expires)
                    .map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    }

    /// Sends what the writer produced since the last call; fails past `limits.max_bytes`.
    async fn flush(&mut self) -> Result<(), String> {
        self.total += self.buf.pending() as u64;
        if self.total > self.limits.max_bytes {
            return Err(format!(
                "snapshot larger than {} bytes; narrow the pattern or raise --max-bytes",
                self.limits.max_bytes
            ));
        }
        flush_chunk(&self.buf, self.tx).await
    }
}

/// PTTL + DUMP of `keys` in one pipeline, each payload checked and written as an entry.
async fn dump_batch(
    redis: &mut ReadOnlyRedis,
    keys: &[&[u8]],
    out: &mut Out<'_>,
) -> Result<(), String> {
    let mut cmds = Vec::with_capacity(keys.len() * 2);
    for k in keys {
        cmds.push(vec![b"PTTL".to_vec(), k.to_vec()]);
        cmds.push(vec![b"DUMP".to_vec(), k.to_vec()]);
    }
    let replies = redis
        .pipeline(&cmds)
        .await
        .map_err(|e| format!("PTTL/DUMP: {e}"))?;
    let now = now_ms();
    for (k, pair) in keys.iter().zip(replies.chunks(2)) {
        let (pttl, payload) = match pair {
            // Vanished between SCAN and DUMP (PTTL -2 / DUMP nil): skip.
            [_, Value::Nil] | [Value::Int(-2), _] => continue,
            [Value::Int(p), Value::BulkString(d)] => (*p, d),
            other => {
                return Err(format!(
                    "unexpected PTTL/DUMP reply for key {:?}: {other:?}",
                    String::from_utf8_lossy(k)
                ))
            }
        };
        let expire = (pttl >= 0).then(|| now + pttl);
        out.enter_db()?;
        out.writer
            .write_dump_payload(k, payload, expire)
            .map_err(|e| e.to_string())?;
    }
    out.flush().await
}

/// PTTL of `key`, then its DUMP read from `raw` in pieces and copied into the file: the type
/// byte starts the entry, the value bytes follow as they arrive, and the payload's trailer
/// (2-byte RDB version, CRC-64 of everything before it) is checked at the end, when a
/// mismatch fails the export (the body is aborted, never ended cleanly).
async fn stream_key(
    redis: &mut ReadOnlyRedis,
    raw: &mut RawRedis,
    key: &[u8],
    out: &mut Out<'_>,
) -> Result<(), String> {
    let name = || String::from_utf8_lossy(key).into_owned();
    let pttl = match redis
        .query(&[b"PTTL".to_vec(), key.to_vec()])
        .await
        .map_err(|e| format!("PTTL: {e}"))?
    {
        Value::Int(-2) => return Ok(()),
        Value::Int(p) => p,
        other => {
            return Err(format!(
                "unexpected PTTL reply for key {:?}: {other:?}",
                name()
            ))
        }
    };
    let expire = (pttl >= 0).then(|| now_ms() + pttl);
    let Some(len) = raw.dump(key).await? else {
        return Ok(());
    };
    out.enter_db()?;
    let mut split = DumpSplit::new(len).map_err(|e| format!("key {:?}: {e}", name()))?;
    let mut piece = vec![0u8; PIECE];
    loop {
        let n = raw.read(&mut piece).await?;
        if n == 0 {
            break;
        }
        split
            .feed(&piece[..n], key, expire, &mut out.writer)
            .map_err(|e| format!("key {:?}: {e}", name()))?;
        out.flush().await?;
    }
    split
        .finish(out.writer.format())
        .map_err(|e| format!("key {:?}: {e}", name()))
}

/// Copies a DUMP payload arriving in pieces into the snapshot being written, through the
/// core's [`DumpSplitter`]: the entry starts on the type byte, value bytes are written through.
struct DumpSplit(DumpSplitter);

impl DumpSplit {
    fn new(len: u64) -> Result<DumpSplit, String> {
        DumpSplitter::new(len, true)
            .map(DumpSplit)
            .map_err(|e| e.describe())
    }

    /// Takes the next piece: starts the entry on the first byte, writes value bytes through.
    fn feed(
        &mut self,
        data: &[u8],
        key: &[u8],
        expire: Option<i64>,
        w: &mut RdbWriter<SharedBuf>,
    ) -> Result<(), String> {
        let piece = self.0.feed(data).map_err(|e| e.describe())?;
        if let Some(t) = piece.type_byte {
            if w.format().value_kind(t).is_none() {
                return Err(format!("unknown RDB value type {t} (byte 0x{t:02x})"));
            }
            w.begin_value(key, t, expire).map_err(|e| e.to_string())?;
        }
        w.write_value_piece(piece.body).map_err(|e| e.to_string())
    }

    /// Checks the whole payload arrived, its CRC-64, and that its format (trailer version)
    /// can go into a file of `format` ([`Format::accepts_payload`]).
    fn finish(self, format: Format) -> Result<(), String> {
        let payload = self.0.finish().map_err(|e| match e.kind {
            RdbErrorKind::Checksum => "DUMP payload CRC-64 mismatch".to_string(),
            _ => e.describe(),
        })?;
        if !format.accepts_payload(payload) {
            return Err(format!(
                "DUMP payload of {payload} cannot go into a {format} file"
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rdb_version_for(redis_version: &str) -> u32 {
        SourceServer::from_info(&format!("redis_version:{redis_version}\r\n"))
            .unwrap()
            .format()
            .version
    }

    #[test]
    fn versions_map_to_rdb_versions() {
        assert_eq!(rdb_version_for("6.2.14"), 9);
        assert_eq!(rdb_version_for("7.0.15"), 10);
        assert_eq!(rdb_version_for("7.2.4"), 11);
        assert_eq!(rdb_version_for("7.4.1"), 12);
        assert_eq!(rdb_version_for("8.0.2"), 12);
    }

    /// The first aux fields of a file `SourceServer::writer` starts.
    fn header_of(info: &str) -> Vec<u8> {
        let buf = SharedBuf::default();
        let w = SourceServer::from_info(info)
            .unwrap()
            .writer(buf.clone())
            .unwrap();
        w.finish().unwrap();
        buf.take()
    }

    #[test]
    fn valkey_is_told_by_valkey_version_and_named_as_it_names_itself() {
        // INFO server of Valkey 8.1.8 and 9.1.2 (redis_version is their compatibility value);
        // their own SAVE files start REDIS0011 + valkey-ver 8.1.8 and VALKEY080 + valkey-ver
        // 9.1.2 (tests/data/conformance/valkey-*/dump.rdb).
        let v8 =
            "# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\nvalkey_version:8.1.8\r\n";
        let s8 = SourceServer::from_info(v8).unwrap();
        assert_eq!((s8.product(), s8.version()), ("Valkey", "8.1.8"));
        assert_eq!(s8.format().magic(), "REDIS0011");
        let h8 = header_of(v8);
        assert!(
            h8.starts_with(b"REDIS0011\xfa\x09redis-ver\x057.2.4"),
            "{h8:?}"
        );
        assert!(
            h8.windows(16).any(|w| w == b"valkey-ver\x058.1.8"),
            "{h8:?}"
        );
        let v9 = "redis_version:7.2.4\r\nvalkey_version:9.1.2\r\n";
        assert_eq!(
            SourceServer::from_info(v9).unwrap().format().magic(),
            "VALKEY080"
        );
        let h9 = header_of(v9);
        assert!(
            h9.starts_with(b"VALKEY080\xfa\x0avalkey-ver\x059.1.2"),
            "{h9:?}"
        );
        assert!(!h9.windows(9).any(|w| w == b"redis-ver"), "{h9:?}");
        let r = SourceServer::from_info("redis_version:7.4.1\r\n").unwrap();
        assert_eq!((r.product(), r.version()), ("Redis", "7.4.1"));
        assert!(header_of("redis_version:7.4.1\r\n")
            .starts_with(b"REDIS0012\xfa\x09redis-ver\x057.4.1"));
        assert!(SourceServer::from_info("nothing").is_err());
    }

    #[test]
    fn replicas_picked_per_slot_range() {
        let node = |h: &str, p: i64| {
            Value::Array(vec![
                Value::BulkString(h.as_bytes().to_vec()),
                Value::Int(p),
                Value::BulkString(b"id".to_vec()),
            ])
        };
        let slots = Value::Array(vec![
            Value::Array(vec![
                Value::Int(0),
                Value::Int(8191),
                node("10.0.0.1", 7000),
                node("10.0.0.2", 7001),
            ]),
            Value::Array(vec![Value::Int(8192), Value::Int(16383), node("", 7002)]),
        ]);
        let (masters, none) = cluster_nodes(&slots, false, "seed");
        assert_eq!(
            masters,
            [("10.0.0.1".to_string(), 7000), ("seed".to_string(), 7002)]
        );
        assert!(none.is_empty());
        let (picked, none) = cluster_nodes(&slots, true, "seed");
        assert_eq!(
            picked,
            [("10.0.0.2".to_string(), 7001), ("seed".to_string(), 7002)]
        );
        assert_eq!(none, ["8192-16383"]);
    }

    /// A payload fed in pieces of `piece` bytes writes what `write_dump_payload` writes.
    fn split_in_pieces(payload: &[u8], piece: usize) -> Result<Vec<u8>, String> {
        let buf = SharedBuf::default();
        let mut w = RdbWriter::new(buf.clone(), 10).unwrap();
        let mut s = DumpSplit::new(payload.len() as u64)?;
        for p in payload.chunks(piece) {
            s.feed(p, b"k", Some(5), &mut w)?;
        }
        s.finish(w.format())?;
        w.finish().unwrap();
        Ok(buf.take())
    }

    #[test]
    fn dump_payload_streams_in_pieces() {
        let value: Vec<u8> = (0..5000u32).map(|i| (i * 7919 % 251) as u8).collect();
        let payload = bitlens::rdb::dump_string(&value, 10);
        let whole = {
            let buf = SharedBuf::default();
            let mut w = RdbWriter::new(buf.clone(), 10).unwrap();
            w.write_dump_payload(b"k", &payload, Some(5)).unwrap();
            w.finish().unwrap();
            buf.take()
        };
        for piece in [1, 3, 9, 10, 11, 64, 4096, payload.len()] {
            assert_eq!(split_in_pieces(&payload, piece).unwrap(), whole, "{piece}");
        }
        let mut bad = payload.clone();
        bad[100] ^= 1;
        assert_eq!(
            split_in_pieces(&bad, 7).unwrap_err(),
            "DUMP payload CRC-64 mismatch"
        );
        let newer = bitlens::rdb::dump_string(&value, 11);
        assert!(split_in_pieces(&newer, 100)
            .unwrap_err()
            .contains("DUMP payload of Redis RDB 11 cannot go into a Redis RDB 10 file"));
        assert!(DumpSplit::new(10).is_err());
    }

    #[test]
    fn passwords_never_shown() {
        assert_eq!(
            display_url("redis://bob:secret@127.0.0.1:6379/2"),
            "redis://bob@127.0.0.1:6379/2"
        );
        assert_eq!(display_url("redis://:secret@host:1"), "redis://host:1");
        assert_eq!(display_url("redis://host:1/0"), "redis://host:1/0");
        assert_eq!(display_url("rediss://u:p@a@host"), "rediss://u@host");
    }
}

/// The connection info of a `--redis` URL; `Err` says in plain words what a URL looks like.
fn parse_url(url: &str) -> Result<redis::ConnectionInfo, String> {
    const EXPECTED: &str = "expected redis://host:port, redis://user:password@host:port/db, rediss://host:port for TLS, or unix:///path/to/redis.sock";
    let known = ["redis://", "rediss://", "unix://", "redis+unix://"];
    let lower = url.to_ascii_lowercase();
    if !known.iter().any(|k| lower.starts_with(k)) {
        return Err(format!(
            "not a Redis URL: {} ({EXPECTED})",
            display_url(url)
        ));
    }
    url.into_connection_info().map_err(|e| {
        let why = e.detail().unwrap_or("it did not parse");
        format!("not a Redis URL: {} ({why}; {EXPECTED})", display_url(url))
    })
}

#[cfg(test)]
mod url_tests {
    use super::{keyspace_of, parse_url, url_db, DbCounts};

    #[test]
    fn the_database_a_url_names() {
        assert_eq!(url_db("redis://127.0.0.1:6379"), None);
        assert_eq!(url_db("redis://127.0.0.1:6379/"), None);
        assert_eq!(url_db("redis://127.0.0.1:6379/0"), Some(0));
        assert_eq!(url_db("redis://u:p@127.0.0.1:6379/15"), Some(15));
        assert_eq!(url_db("rediss://host:1/2#insecure"), Some(2));
        assert_eq!(url_db("redis+unix:///tmp/r.sock?db=3"), Some(3));
        assert_eq!(url_db("unix:///tmp/r.sock"), None);
    }

    #[test]
    fn info_keyspace_lists_the_non_empty_databases() {
        // INFO keyspace of Redis 7.4.1 (with subexpiry) and of Redis 6.0.9, as they print it.
        let v74 = "# Keyspace\r\ndb0:keys=3,expires=1,avg_ttl=3599000,subexpiry=0\r\ndb15:keys=1,expires=0,avg_ttl=0,subexpiry=0\r\ndb2:keys=7,expires=2,avg_ttl=10\r\n";
        let d = |db, keys, expires| DbCounts { db, keys, expires };
        assert_eq!(keyspace_of(v74), [d(0, 3, 1), d(2, 7, 2), d(15, 1, 0)]);
        assert_eq!(keyspace_of("# Keyspace\r\n"), []);
        assert_eq!(keyspace_of("dbx:keys=1\r\ndb1:nothing\r\n"), []);
    }

    #[test]
    fn bad_urls_are_named_in_plain_words() {
        let e = parse_url("foo").unwrap_err();
        assert!(
            e.starts_with("not a Redis URL: foo (expected redis://host:port"),
            "{e}"
        );
        let e = parse_url("redis://host:notaport").unwrap_err();
        assert!(
            e.starts_with("not a Redis URL: redis://host:notaport ("),
            "{e}"
        );
        assert!(!e.contains("InvalidClientConfig"), "{e}");
        assert!(parse_url("redis://127.0.0.1:6379/2").is_ok());
    }
}
