//! The one door to Redis: every command the exporter sends goes through [`ReadOnlyRedis`] (the
//! client library's connection) or [`RawRedis`] (a plain RESP2 connection that streams one big
//! DUMP reply in pieces), and both refuse anything outside a fixed allow-list of read commands.
//! The connections themselves are private to this module, so no other code path can reach
//! Redis.
//!
//! Allowed: SCAN, TYPE, DUMP, PTTL, STRLEN, `MEMORY USAGE`, INFO, PING, and for Redis Cluster
//! `CLUSTER SLOTS` and READONLY (replica reads); plus AUTH / HELLO / SELECT, which the client
//! library sends itself while connecting (SELECT: the database of the URL, or of each
//! connection the exporter opens per database it reads). A matching minimal ACL rule for a
//! dedicated user:
//! `ACL SETUSER bitlens on >PASSWORD ~* resetchannels -@all +scan +type +dump +pttl +strlen +memory|usage +info +ping +select`
//! (add `+cluster|slots +readonly` on a cluster; `+select` is needed for databases other
//! than 0, `+info` covers INFO keyspace, which lists the databases).

use std::sync::Arc;
use std::time::Duration;

use redis::aio::ConnectionManager;
use redis::{Cmd, Pipeline, RedisError, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

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

/// Longest wait for one read or write on a [`RawRedis`] connection.
const RAW_TIMEOUT: Duration = Duration::from_secs(120);

/// A byte stream to Redis: TCP, or TLS over TCP.
trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Stream for T {}

/// The TLS settings of a `rediss://` connection: the server's certificate is verified against
/// the CA in `ca_pem` (PEM) when given, else against the system's trusted roots.
pub fn tls_config(ca_pem: Option<&[u8]>) -> Result<Arc<rustls::ClientConfig>, String> {
    let mut roots = rustls::RootCertStore::empty();
    match ca_pem {
        Some(pem) => {
            for cert in rustls_pemfile::certs(&mut &pem[..]) {
                let cert = cert.map_err(|e| format!("CA file: {e}"))?;
                roots.add(cert).map_err(|e| format!("CA file: {e}"))?;
            }
        }
        None => {
            for cert in rustls_native_certs::load_native_certs().unwrap_or_default() {
                let _ = roots.add(cert);
            }
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// A RESP2 connection (plain TCP or TLS) for streaming big DUMP replies (see
/// [`RawRedis::dump`]); every command is checked against the allow-list like
/// [`ReadOnlyRedis`]'s.
pub struct RawRedis {
    io: BufReader<Box<dyn Stream>>,
    /// Bytes of the current DUMP bulk reply not read yet.
    left: u64,
}

impl RawRedis {
    /// Connects to `host:port` (5 s timeout; over TLS with `tls`, the certificate checked for
    /// `host`), then sends AUTH (with the user name when given), SELECT `db` when not 0, and
    /// READONLY when `readonly` (cluster replica reads).
    pub async fn connect(
        host: &str,
        port: u16,
        tls: Option<Arc<rustls::ClientConfig>>,
        user: Option<&str>,
        password: Option<&str>,
        db: i64,
        readonly: bool,
    ) -> Result<RawRedis, String> {
        let connect = async {
            let tcp = TcpStream::connect((host, port))
                .await
                .map_err(|e| format!("{host}:{port}: {e}"))?;
            let _ = tcp.set_nodelay(true);
            let stream: Box<dyn Stream> = match tls {
                Some(config) => {
                    let name = rustls::pki_types::ServerName::try_from(host.to_string())
                        .map_err(|e| format!("{host}: {e}"))?;
                    let tls = tokio_rustls::TlsConnector::from(config)
                        .connect(name, tcp)
                        .await
                        .map_err(|e| format!("TLS to {host}:{port}: {e}"))?;
                    Box::new(tls)
                }
                None => Box::new(tcp),
            };
            Ok::<_, String>(stream)
        };
        let stream = tokio::time::timeout(Duration::from_secs(5), connect)
            .await
            .map_err(|_| format!("connection to {host}:{port} timed out"))??;
        let mut raw = RawRedis {
            io: BufReader::with_capacity(64 * 1024, stream),
            left: 0,
        };
        if let Some(pw) = password {
            let mut argv = vec![b"AUTH".to_vec()];
            if let Some(u) = user {
                argv.push(u.as_bytes().to_vec());
            }
            argv.push(pw.as_bytes().to_vec());
            raw.simple(&argv).await?;
        }
        if db != 0 {
            raw.simple(&[b"SELECT".to_vec(), db.to_string().into_bytes()])
                .await?;
        }
        if readonly {
            raw.simple(&[b"READONLY".to_vec()]).await?;
        }
        Ok(raw)
    }

    async fn send(&mut self, argv: &[Vec<u8>]) -> Result<(), String> {
        if !is_allowed(argv) {
            return Err(refused(argv).to_string());
        }
        let mut req = format!("*{}\r\n", argv.len()).into_bytes();
        for a in argv {
            req.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
            req.extend_from_slice(a);
            req.extend_from_slice(b"\r\n");
        }
        tokio::time::timeout(RAW_TIMEOUT, self.io.get_mut().write_all(&req))
            .await
            .map_err(|_| "write to Redis timed out".to_string())?
            .map_err(|e| e.to_string())
    }

    /// One reply line without its CRLF.
    async fn line(&mut self) -> Result<Vec<u8>, String> {
        let mut line = Vec::new();
        let n = tokio::time::timeout(RAW_TIMEOUT, self.io.read_until(b'\n', &mut line))
            .await
            .map_err(|_| "read from Redis timed out".to_string())?
            .map_err(|e| e.to_string())?;
        if n == 0 || !line.ends_with(b"\r\n") {
            return Err("connection closed by Redis".into());
        }
        line.truncate(line.len() - 2);
        Ok(line)
    }

    /// Sends a command whose reply is a status (`+OK`); an error reply becomes `Err`.
    async fn simple(&mut self, argv: &[Vec<u8>]) -> Result<(), String> {
        self.send(argv).await?;
        let line = self.line().await?;
        match line.first() {
            Some(b'+') => Ok(()),
            _ => Err(format!(
                "{}: {}",
                String::from_utf8_lossy(&argv[0]),
                String::from_utf8_lossy(line.get(1..).unwrap_or_default())
            )),
        }
    }

    /// Sends `DUMP key` and reads the reply's header: `Some(payload length in bytes)`, or
    /// `None` when the key does not exist. The payload is then read with [`Self::read`] until
    /// it is all consumed (the connection cannot be used for anything else before).
    pub async fn dump(&mut self, key: &[u8]) -> Result<Option<u64>, String> {
        if self.left != 0 {
            return Err("previous DUMP reply not consumed".into());
        }
        self.send(&[b"DUMP".to_vec(), key.to_vec()]).await?;
        let line = self.line().await?;
        match line.split_first() {
            Some((b'$', n)) if n == b"-1" => Ok(None),
            Some((b'$', n)) => {
                let len = std::str::from_utf8(n)
                    .ok()
                    .and_then(|n| n.parse::<u64>().ok())
                    .ok_or("DUMP: bad bulk length")?;
                // The payload and its CRLF.
                self.left = len + 2;
                Ok(Some(len))
            }
            Some((b'-', e)) => Err(format!("DUMP: {}", String::from_utf8_lossy(e))),
            _ => Err("DUMP: unexpected reply".into()),
        }
    }

    /// Reads the next bytes of the DUMP payload into `buf` (0 when it is all read).
    pub async fn read(&mut self, buf: &mut [u8]) -> Result<usize, String> {
        if self.left <= 2 {
            if self.left == 2 {
                let mut crlf = [0u8; 2];
                tokio::time::timeout(RAW_TIMEOUT, self.io.read_exact(&mut crlf))
                    .await
                    .map_err(|_| "read from Redis timed out".to_string())?
                    .map_err(|e| e.to_string())?;
                self.left = 0;
                if &crlf != b"\r\n" {
                    return Err("DUMP: bulk reply not ended by CRLF".into());
                }
            }
            return Ok(0);
        }
        let want = buf.len().min((self.left - 2) as usize);
        let n = tokio::time::timeout(RAW_TIMEOUT, self.io.read(&mut buf[..want]))
            .await
            .map_err(|_| "read from Redis timed out".to_string())?
            .map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("connection closed by Redis during DUMP".into());
        }
        self.left -= n as u64;
        Ok(n)
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
