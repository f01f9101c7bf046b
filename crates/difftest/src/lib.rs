//! Harness for differential tests: starts a real `redis-server` on a free 127.0.0.1 port in a
//! temporary directory, hands out connections, and stops it (by pid) when dropped.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `redis-server` owned by a test.
pub struct RedisServer {
    child: Child,
    /// The loopback port it listens on.
    pub port: u16,
    dir: PathBuf,
}

impl RedisServer {
    /// Starts `redis-server` (from PATH, or `$REDIS_SERVER`) with `extra` arguments appended,
    /// and waits until it answers PING. Panics with a clear message when it cannot start.
    pub fn start(extra: &[&str]) -> RedisServer {
        let port = free_port();
        let dir =
            std::env::temp_dir().join(format!("bitlens-redis-{}-{}", std::process::id(), port));
        std::fs::create_dir_all(&dir).expect("create redis dir");
        let bin = std::env::var("REDIS_SERVER").unwrap_or_else(|_| "redis-server".into());
        let mut cmd = Command::new(&bin);
        cmd.args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ])
        .arg("--dir")
        .arg(&dir)
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
        let child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {bin}: {e} (install redis-server)"));
        let server = RedisServer { child, port, dir };
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(mut c) = server.try_connection() {
                if redis::cmd("PING").query::<String>(&mut c).is_ok() {
                    return server;
                }
            }
            if Instant::now() > deadline {
                panic!("redis-server on port {port} did not answer within 10 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn try_connection(&self) -> redis::RedisResult<redis::Connection> {
        redis::Client::open(format!("redis://127.0.0.1:{}/", self.port))?.get_connection()
    }

    /// A new connection to the server.
    pub fn connection(&self) -> redis::Connection {
        self.try_connection().expect("connect to test redis-server")
    }

    /// `redis://127.0.0.1:PORT/`
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

/// Sends `argv` to Redis and returns the reply converted to a bitlens [`bitlens::Reply`]
/// (RESP2 shapes: status, error, integer, bulk, null bulk, array; a nil array reply is reported
/// by the redis crate as `Nil` too, so compare RESP bytes only where that cannot matter).
pub fn query(conn: &mut redis::Connection, argv: &[Vec<u8>]) -> bitlens::Reply {
    let mut cmd = redis::cmd(std::str::from_utf8(&argv[0]).unwrap_or("?"));
    for a in &argv[1..] {
        cmd.arg(a.as_slice());
    }
    match cmd.query::<redis::Value>(conn) {
        Ok(v) => from_value(v),
        Err(e) => bitlens::Reply::Error(error_text(&e)),
    }
}

fn error_text(e: &redis::RedisError) -> String {
    match (e.code(), e.detail()) {
        (Some(code), Some(detail)) => format!("{code} {detail}"),
        (Some(code), None) => code.to_string(),
        _ => e.to_string(),
    }
}

fn from_value(v: redis::Value) -> bitlens::Reply {
    use bitlens::Reply;
    match v {
        redis::Value::Nil => Reply::NullBulk,
        redis::Value::Int(n) => Reply::Integer(n),
        redis::Value::BulkString(b) => Reply::Bulk(b),
        redis::Value::Array(items) => Reply::Array(items.into_iter().map(from_value).collect()),
        redis::Value::SimpleString(s) => Reply::Status(s),
        redis::Value::Okay => Reply::Status("OK".into()),
        other => Reply::Error(format!("unexpected reply shape {other:?}")),
    }
}

/// A plain RESP2 connection that returns each reply's exact bytes, for byte-for-byte
/// comparison with [`bitlens::Reply::to_resp`] (no client library reshaping statuses, nils or
/// error texts).
pub struct RawConnection {
    reader: std::io::BufReader<std::net::TcpStream>,
}

impl RedisServer {
    /// A new [`RawConnection`] to the server.
    pub fn raw_connection(&self) -> RawConnection {
        let stream =
            std::net::TcpStream::connect(("127.0.0.1", self.port)).expect("connect to redis");
        stream.set_nodelay(true).ok();
        RawConnection {
            reader: std::io::BufReader::new(stream),
        }
    }
}

impl RawConnection {
    /// Sends `argv` as a RESP array and returns the exact bytes of the (one) reply.
    pub fn query(&mut self, argv: &[Vec<u8>]) -> Vec<u8> {
        use std::io::Write;
        let mut req = format!("*{}\r\n", argv.len()).into_bytes();
        for a in argv {
            req.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
            req.extend_from_slice(a);
            req.extend_from_slice(b"\r\n");
        }
        self.reader
            .get_mut()
            .write_all(&req)
            .expect("write to redis");
        let mut out = Vec::new();
        self.read_reply(&mut out);
        out
    }

    fn read_line(&mut self, out: &mut Vec<u8>) -> Vec<u8> {
        use std::io::BufRead;
        let start = out.len();
        self.reader.read_until(b'\n', out).expect("read from redis");
        assert!(out.ends_with(b"\r\n"), "truncated RESP line from redis");
        out[start..out.len() - 2].to_vec()
    }

    fn read_reply(&mut self, out: &mut Vec<u8>) {
        use std::io::Read;
        let line = self.read_line(out);
        let n = || -> i64 {
            std::str::from_utf8(&line[1..])
                .ok()
                .and_then(|s| s.parse().ok())
                .expect("RESP length")
        };
        match line.first() {
            Some(b'$') if n() >= 0 => {
                let start = out.len();
                out.resize(start + n() as usize + 2, 0);
                self.reader
                    .read_exact(&mut out[start..])
                    .expect("read bulk from redis");
            }
            Some(b'*') => {
                for _ in 0..n().max(0) {
                    self.read_reply(out);
                }
            }
            _ => {}
        }
    }
}

/// Sends several commands in one pipeline (one round trip) and returns their replies in
/// order, converted like [`query`]. Meant for commands that do not fail: the redis crate
/// reports an error reply inside a pipeline as a failure of the whole pipeline, which comes
/// back here as that error repeated for every command (nothing is re-sent).
pub fn query_pipeline(conn: &mut redis::Connection, cmds: &[Vec<Vec<u8>>]) -> Vec<bitlens::Reply> {
    let mut pipe = redis::pipe();
    for argv in cmds {
        let c = pipe.cmd(std::str::from_utf8(&argv[0]).unwrap_or("?"));
        for a in &argv[1..] {
            c.arg(a.as_slice());
        }
    }
    match pipe.query::<Vec<redis::Value>>(conn) {
        Ok(vals) if vals.len() == cmds.len() => vals.into_iter().map(from_value).collect(),
        Ok(vals) => vec![
            bitlens::Reply::Error(format!("pipeline returned {} replies", vals.len()));
            cmds.len()
        ],
        Err(e) => vec![bitlens::Reply::Error(error_text(&e)); cmds.len()],
    }
}

/// The seed of a random differential run: the integer in environment variable `var` (to replay
/// a run), else one taken from the clock. Printed as `var=seed` so that a failure can be replayed.
pub fn seed_from_env(var: &str) -> u64 {
    let seed = std::env::var(var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        });
    println!("{var}={seed}");
    seed
}
