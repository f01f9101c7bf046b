//! Shared helpers of the CLI integration tests: running the `bitlens` binary, `redis-cli`, a
//! redis-server loaded from an RDB file, and a minimal HTTP/1.1 client that tells a complete
//! chunked body from an aborted one.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use bitlens_difftest::RedisServer;

/// Every file under `dir` (its folders walked), in no particular order.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// Path of the conformance data: `$BITLENS_CONFORMANCE`, else `shared/conformance` beside the
/// repository or one of its ancestors, else the copy vendored in `tests/data/conformance`.
pub fn conformance_dir() -> PathBuf {
    if let Ok(d) = std::env::var("BITLENS_CONFORMANCE") {
        return PathBuf::from(d);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().unwrap_or(root);
    for dir in root.ancestors() {
        let d = dir.join("shared/conformance");
        if d.join("README.md").exists() {
            return d;
        }
    }
    let vendored = root.join("tests/data/conformance");
    assert!(
        vendored.join("README.md").exists(),
        "no conformance data: set BITLENS_CONFORMANCE"
    );
    vendored
}

/// Runs `bitlens ARGS` with `stdin` and returns its output.
pub fn bitlens(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bitlens"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run bitlens");
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().expect("bitlens output");
    writer.join().unwrap();
    out
}

/// Runs `bitlens ARGS` with no input and returns its stdout; panics with the arguments and
/// stderr when it fails.
pub fn bitlens_ok(args: &[&str]) -> Vec<u8> {
    let out = bitlens(args, b"");
    assert!(
        out.status.success(),
        "bitlens {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `parts` as an owned argv.
pub fn argv(parts: &[&[u8]]) -> Vec<Vec<u8>> {
    parts.iter().map(|p| p.to_vec()).collect()
}

/// A command from its space-separated words (`"SET k v"`), for arguments without spaces.
pub fn words(line: &str) -> Vec<Vec<u8>> {
    line.split(' ').map(|w| w.as_bytes().to_vec()).collect()
}

/// `bytes` written as `name` in a new temporary directory: the directory (the file lives as
/// long as it does) and the file's path.
pub fn temp_file(name: &str, bytes: &[u8]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).expect("write temporary file");
    let path = path.to_str().expect("UTF-8 temporary path").to_string();
    (dir, path)
}

/// Runs `redis-cli -p PORT ARGS` with `stdin` (stdout is a pipe, as in the issue) and returns
/// what it printed.
pub fn redis_cli(port: u16, args: &[&[u8]], stdin: &[u8]) -> Vec<u8> {
    let mut cmd = Command::new("redis-cli");
    cmd.arg("-p").arg(port.to_string());
    for a in args {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            cmd.arg(std::ffi::OsStr::from_bytes(a));
        }
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run redis-cli");
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().expect("redis-cli output");
    writer.join().unwrap();
    out.stdout
}

/// A redis-server started on a copy of `rdb` (as `dump.rdb` in a temporary `--dir`).
pub struct LoadedRedis {
    pub server: RedisServer,
    _dir: tempfile::TempDir,
}

impl LoadedRedis {
    pub fn start(rdb: &Path) -> LoadedRedis {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::copy(rdb, dir.path().join("dump.rdb")).expect("copy dump.rdb");
        let d = dir.path().to_str().unwrap().to_string();
        let server = RedisServer::start(&["--dir", &d, "--dbfilename", "dump.rdb"]);
        LoadedRedis { server, _dir: dir }
    }
}

/// One argument in redis-cli's double-quoted form (printable ASCII as is, the rest `\xHH`).
pub fn quote(arg: &[u8]) -> String {
    let mut s = String::from("\"");
    for &b in arg {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    s.push('"');
    s
}

/// A running `bitlens serve`, killed (by pid) when dropped.
pub struct Served {
    child: Child,
    pub port: u16,
    pub stderr_path: PathBuf,
    _dir: tempfile::TempDir,
}

impl Served {
    /// Starts `bitlens serve --bind 127.0.0.1:0 ARGS` and waits for its start-up line.
    pub fn start(args: &[&str]) -> Served {
        Served::start_with_files(&[], args)
    }

    /// As [`Served::start`], with `files` (path relative to the static directory, contents)
    /// written into its `--static-dir` first.
    pub fn start_with_files(files: &[(&str, &str)], args: &[&str]) -> Served {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let stderr_path = dir.path().join("stderr");
        let mut child = Command::new(env!("CARGO_BIN_EXE_bitlens"))
            .arg("serve")
            .args(["--bind", "127.0.0.1:0", "--static-dir"])
            .arg(dir.path())
            .args(args)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr_path).unwrap())
            .spawn()
            .expect("run bitlens serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .trim()
            .strip_prefix("bitlens serving on http://127.0.0.1:")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| {
                let _ = child.kill();
                let err = std::fs::read_to_string(&stderr_path).unwrap_or_default();
                panic!("unexpected start-up line {line:?}; stderr: {err}")
            });
        Served {
            child,
            port,
            stderr_path,
            _dir: dir,
        }
    }

    pub fn get(&self, path: &str) -> HttpResponse {
        http_get(self.port, path, &[])
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr_path).unwrap_or_default()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A response of [`http_get`].
#[derive(Debug)]
pub struct HttpResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The chunked body ended with its terminating chunk (false: the server aborted it).
    pub complete: bool,
}

impl HttpResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("bad JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
}

/// `GET path` over HTTP/1.1 with `Connection: close`; decodes a chunked body.
pub fn http_get(port: u16, path: &str, headers: &[(&str, &str)]) -> HttpResponse {
    http_request(port, "GET", path, headers)
}

/// `METHOD path` (no request body) over HTTP/1.1 with `Connection: close`; decodes a chunked
/// body.
pub fn http_request(port: u16, method: &str, path: &str, headers: &[(&str, &str)]) -> HttpResponse {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: 0\r\n"
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let head_end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("HTTP head");
    let head = String::from_utf8_lossy(&raw[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .expect("status");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let rest = &raw[head_end + 4..];
    let chunked = headers.iter().any(|(k, v)| {
        k.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    if !chunked {
        return HttpResponse {
            status,
            headers,
            body: rest.to_vec(),
            complete: true,
        };
    }
    let mut body = Vec::new();
    let mut i = 0;
    let mut complete = false;
    while let Some(eol) = rest[i..].windows(2).position(|w| w == b"\r\n") {
        let size_text = String::from_utf8_lossy(&rest[i..i + eol]).into_owned();
        let size = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16)
            .expect("chunk size");
        i += eol + 2;
        if size == 0 {
            complete = true;
            break;
        }
        if i + size + 2 > rest.len() {
            body.extend_from_slice(&rest[i..]);
            break;
        }
        body.extend_from_slice(&rest[i..i + size]);
        i += size + 2;
    }
    HttpResponse {
        status,
        headers,
        body,
        complete,
    }
}

/// `GET path`, streaming the chunked body into `sink` piece by piece without keeping it
/// (reads time out after `timeout`): returns (status, complete, body length). `complete` is
/// false when the body was cut off (no terminating chunk).
pub fn http_get_streamed(
    port: u16,
    path: &str,
    headers: &[(&str, &str)],
    timeout: Duration,
    sink: &mut dyn FnMut(&[u8]),
) -> (u16, bool, u64) {
    let s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(timeout)).unwrap();
    let mut req = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    (&s).write_all(req.as_bytes()).unwrap();
    let mut r = BufReader::with_capacity(64 * 1024, s);
    let mut line = String::new();
    r.read_line(&mut line).unwrap_or(0);
    let status: u16 = line
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let mut chunked = false;
    loop {
        line.clear();
        if r.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        let l = line.to_ascii_lowercase();
        chunked |= l.starts_with("transfer-encoding:") && l.contains("chunked");
    }
    let mut len = 0u64;
    let mut buf = vec![0u8; 64 * 1024];
    if !chunked {
        loop {
            match r.read(&mut buf) {
                Ok(0) => return (status, true, len),
                Ok(n) => {
                    sink(&buf[..n]);
                    len += n as u64;
                }
                Err(_) => return (status, false, len),
            }
        }
    }
    loop {
        line.clear();
        if r.read_line(&mut line).unwrap_or(0) == 0 {
            return (status, false, len);
        }
        let Ok(size) = usize::from_str_radix(line.trim(), 16) else {
            return (status, false, len);
        };
        if size == 0 {
            return (status, true, len);
        }
        let mut left = size;
        while left > 0 {
            let n = left.min(buf.len());
            if r.read_exact(&mut buf[..n]).is_err() {
                return (status, false, len);
            }
            sink(&buf[..n]);
            len += n as u64;
            left -= n;
        }
        line.clear();
        let _ = r.read_line(&mut line);
    }
}

/// Peak resident set size (`VmHWM` of /proc/PID/status) of process `pid`, in KiB.
pub fn vm_hwm_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

/// `len` incompressible bytes (fastrand), the same for the same `seed`.
pub fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    fastrand::Rng::with_seed(seed).fill(&mut v);
    v
}

/// Parses consecutive RESP arrays of bulk strings.
pub fn parse_resp(mut b: &[u8]) -> Vec<Vec<Vec<u8>>> {
    fn line(b: &mut &[u8]) -> usize {
        let end = b.windows(2).position(|w| w == b"\r\n").unwrap();
        let n = std::str::from_utf8(&b[1..end]).unwrap().parse().unwrap();
        *b = &b[end + 2..];
        n
    }
    let mut out = Vec::new();
    while !b.is_empty() {
        assert_eq!(b[0], b'*');
        let n = line(&mut b);
        let mut cmd = Vec::new();
        for _ in 0..n {
            assert_eq!(b[0], b'$');
            let len = line(&mut b);
            cmd.push(b[..len].to_vec());
            b = &b[len + 2..];
        }
        out.push(cmd);
    }
    out
}

/// The (key, memory) of each row of `bitlens inspect --csv` output (columns 3 and 4; keys
/// without a comma, as the tests write them).
pub fn csv_key_memory(csv: &str) -> Vec<(String, u64)> {
    csv.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[2].to_string(), f[3].parse().unwrap())
        })
        .collect()
}
