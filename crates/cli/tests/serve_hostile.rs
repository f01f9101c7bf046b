//! `bitlens serve` against hostile or careless clients and operators (issue 54), each case on
//! the real binary listening on 127.0.0.1 with the demo data:
//!
//! - clients that ask for a snapshot and never read do not hold the `--max-exports` slots: a
//!   stalled export ends after `--write-timeout` and a further export completes, while a slow
//!   client that keeps reading gets its whole file;
//! - a connection that sends nothing, or stays idle after a response, or trickles its headers
//!   (slowloris) is closed after `--header-timeout`;
//! - one client address holds at most `--max-conns-per-ip` connections, further ones are
//!   closed at once;
//! - `--token ''` / `--token '  '` and `--cors-origin '*'` / `null` / `''` (and other
//!   non-origins) stop start-up with a usage error naming the flag, without a panic;
//! - a CORS preflight from an allowed origin is answered (asking for `authorization`), from
//!   another origin it gets no `Access-Control-Allow-Origin`;
//! - every response carries the security headers (`nosniff`, `X-Frame-Options`,
//!   `Referrer-Policy`, a `Content-Security-Policy` fit for the panel).
//!
//! Every wait is bounded in time and every loop in count; all traffic goes to 127.0.0.1.

mod common;

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{http_request, HttpResponse, Served};

/// A running `bitlens serve --bind 127.0.0.1:0 ARGS` with a static directory holding
/// `index.html` and `www/app.js` ([`Served`], killed when dropped).
struct Server(Served);

impl Server {
    fn start(args: &[&str]) -> Server {
        Server(Served::start_with_files(
            &[
                (
                    "index.html",
                    "<!doctype html><title>t</title><script type=module src=www/app.js></script>",
                ),
                ("www/app.js", "export const x = 1;\n"),
            ],
            args,
        ))
    }

    fn port(&self) -> u16 {
        self.0.port
    }

    fn get(&self, path: &str, headers: &[(&str, &str)]) -> HttpResponse {
        http_request(self.0.port, "GET", path, headers)
    }

    fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.0.port))
    }
}

/// Runs `bitlens serve --bind 127.0.0.1:0 ARGS`, expecting it to stop on its own within
/// `limit`: (exit code, stderr). A server still running then is killed and the test fails.
fn serve_expecting_exit(args: &[&str], limit: Duration) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let err_path = dir.path().join("stderr");
    let mut child = Command::new(env!("CARGO_BIN_EXE_bitlens"))
        .arg("serve")
        .args(["--bind", "127.0.0.1:0"])
        .args(args)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("run bitlens serve");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "bitlens serve {args:?} was still running after {limit:?} (it should refuse \
                 to start); stderr: {}",
                std::fs::read_to_string(&err_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    (
        status.code(),
        std::fs::read_to_string(&err_path).unwrap_or_default(),
    )
}

/// A connection with a small receive buffer (set before connecting, so the advertised window
/// stays small), as a client that does not read.
fn connect_with_rcvbuf(addr: SocketAddr, rcvbuf: usize) -> TcpStream {
    let s = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    s.set_recv_buffer_size(rcvbuf).unwrap();
    s.connect_timeout(&addr.into(), Duration::from_secs(5))
        .unwrap();
    s.into()
}

/// Whether the peer closed `s` within `limit` (end of input or a reset; any bytes the server
/// sent first are read and dropped): `Some(elapsed)` when it did, `None` when the connection
/// was still open at `limit`.
fn closed_within(s: &mut TcpStream, limit: Duration) -> Option<Duration> {
    let start = Instant::now();
    let mut buf = [0u8; 16 * 1024];
    // Bounded in count: at most 64 MiB read, at most `limit` waited.
    for _ in 0..4096 {
        let left = limit.checked_sub(start.elapsed())?;
        s.set_read_timeout(Some(left.max(Duration::from_millis(1))))
            .unwrap();
        match s.read(&mut buf) {
            Ok(0) => return Some(start.elapsed()),
            Ok(_) => continue,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return None
            }
            Err(_) => return Some(start.elapsed()),
        }
    }
    None
}

/// The size of the demo data's full snapshot, read by a well-behaved client.
fn full_snapshot(server: &Server) -> Vec<u8> {
    let r = server.get("/api/snapshot", &[]);
    assert_eq!(r.status, 200);
    assert!(r.complete, "the snapshot was cut off");
    r.body
}

#[test]
fn stalled_readers_do_not_block_exports() {
    // The 8 default export slots, each taken by a client that never reads its snapshot.
    let server = Server::start(&["--write-timeout", "2"]);
    let whole = full_snapshot(&server).len();
    assert!(whole > 4 << 20, "the demo snapshot is {whole} bytes");
    let mut stalled: Vec<TcpStream> = (0..8)
        .map(|_| {
            let mut s = connect_with_rcvbuf(server.addr(), 4096);
            s.write_all(b"GET /api/snapshot HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                .unwrap();
            s
        })
        .collect();
    // Let their exports start and fill every buffer on the way.
    std::thread::sleep(Duration::from_millis(500));

    // A ninth export completes within a bounded time (the stalled ones are ended after
    // --write-timeout of no progress, freeing their slots).
    let start = Instant::now();
    let (tx, rx) = std::sync::mpsc::channel();
    let port = server.port();
    std::thread::spawn(move || {
        let mut len = 0u64;
        let r = common::http_get_streamed(
            port,
            "/api/snapshot",
            &[],
            Duration::from_secs(40),
            &mut |b| len += b.len() as u64,
        );
        let _ = tx.send(r);
    });
    let (status, complete, len) = rx
        .recv_timeout(Duration::from_secs(45))
        .expect("the ninth export did not finish within 45 s");
    assert_eq!(status, 200);
    assert!(
        complete && len == whole as u64,
        "the ninth export was cut off ({len} of {whole} bytes, {:?})",
        start.elapsed()
    );
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "the ninth export took {:?}",
        start.elapsed()
    );

    // The stalled exports were ended, not completed: reading now gets less than the whole
    // file, then the end of the connection.
    for s in &mut stalled {
        let mut got = 0usize;
        let mut buf = vec![0u8; 256 * 1024];
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        // Bounded: 64 reads of up to 256 KiB.
        for _ in 0..64 {
            match s.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => got += n,
            }
        }
        assert!(got < whole, "a stalled export was sent whole ({got} bytes)");
    }
}

#[test]
fn slow_client_that_keeps_reading_gets_the_whole_snapshot() {
    // --write-timeout bounds each wait for the client, not the download: a client reading
    // 64 KiB every 100 ms takes several times the timeout and still gets every byte.
    let server = Server::start(&["--write-timeout", "2"]);
    let path = "/api/snapshot?match=stats:active:*";
    let whole = server.get(path, &[]);
    assert!(whole.complete);
    let want = whole.body.len();
    assert!(want > 2 << 20, "only {want} bytes: too small to pace");

    let mut s = connect_with_rcvbuf(server.addr(), 64 * 1024);
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let start = Instant::now();
    let mut raw = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    // Bounded: at most 2,000 reads (about 200 s of pacing at most; the file takes ~6 s).
    for _ in 0..2000 {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
            Err(e) => panic!("read failed after {} bytes: {e}", raw.len()),
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let took = start.elapsed();
    assert!(
        took > Duration::from_secs(4),
        "the download took {took:?}: not slower than the write timeout, the test proves nothing"
    );
    // Chunked: the body ends with the terminating chunk and holds the whole file.
    assert!(raw.starts_with(b"HTTP/1.1 200"));
    assert!(
        raw.ends_with(b"\r\n0\r\n\r\n"),
        "the slow download was cut off after {} bytes ({took:?})",
        raw.len()
    );
    assert!(raw.len() > want);
}

#[test]
fn idle_connections_are_closed() {
    let server = Server::start(&["--header-timeout", "1"]);
    // A connection that never sends a byte.
    let mut silent = TcpStream::connect(server.addr()).unwrap();
    let t = closed_within(&mut silent, Duration::from_secs(8))
        .expect("a silent connection was still open after 8 s (--header-timeout 1)");
    assert!(t >= Duration::from_millis(500), "closed after {t:?} only");

    // A kept-alive connection, idle after its first answer.
    let mut kept = TcpStream::connect(server.addr()).unwrap();
    kept.write_all(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .unwrap();
    kept.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut r = BufReader::new(kept.try_clone().unwrap());
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    assert!(line.starts_with("HTTP/1.1 200"), "{line:?}");
    let mut length = None;
    // Bounded: at most 100 header lines.
    for _ in 0..100 {
        line.clear();
        r.read_line(&mut line).unwrap();
        if line == "\r\n" {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0u8; length.expect("content-length")];
    r.read_exact(&mut body).unwrap();
    assert!(
        closed_within(&mut kept, Duration::from_secs(8)).is_some(),
        "an idle kept-alive connection was still open after 8 s (--header-timeout 1)"
    );
    // The server goes on answering.
    assert_eq!(server.get("/api/info", &[]).status, 200);
}

#[test]
fn slowloris_headers_are_cut_off() {
    let server = Server::start(&["--header-timeout", "2"]);
    let mut s = TcpStream::connect(server.addr()).unwrap();
    s.write_all(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .unwrap();
    let start = Instant::now();
    let mut closed = None;
    // One more header line every 250 ms, at most 40 of them (10 s).
    for i in 0..40 {
        if let Some(t) = closed_within(&mut s, Duration::from_millis(250)) {
            let _ = t;
            closed = Some(start.elapsed());
            break;
        }
        if s.write_all(format!("X-Slow-{i}: 1\r\n").as_bytes())
            .is_err()
        {
            closed = Some(start.elapsed());
            break;
        }
    }
    let t = closed.expect("a connection trickling its headers was still open after 10 s");
    assert!(t < Duration::from_secs(8), "closed after {t:?}");
    assert_eq!(server.get("/api/info", &[]).status, 200);
}

#[test]
fn connections_per_client_address_are_capped() {
    let server = Server::start(&["--max-conns-per-ip", "3", "--header-timeout", "30"]);
    let mut held: Vec<TcpStream> = (0..3)
        .map(|_| TcpStream::connect(server.addr()).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    // The fourth is closed at once.
    let mut fourth = TcpStream::connect(server.addr()).unwrap();
    let t = closed_within(&mut fourth, Duration::from_secs(5))
        .expect("a connection over --max-conns-per-ip was kept open");
    assert!(t < Duration::from_secs(2), "closed after {t:?}");
    // The held ones still work.
    let first = &mut held[0];
    first
        .write_all(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .unwrap();
    first
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut answer = Vec::new();
    let _ = first.read_to_end(&mut answer);
    assert!(answer.starts_with(b"HTTP/1.1 200"));
    // Once one is closed, a new connection is served.
    drop(held.remove(0));
    let start = Instant::now();
    let mut served = false;
    // Bounded: 20 tries over at most about 10 s.
    for _ in 0..20 {
        let mut s = TcpStream::connect(server.addr()).unwrap();
        s.set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        if s.write_all(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            .is_ok()
        {
            let mut answer = Vec::new();
            let _ = s.read_to_end(&mut answer);
            if answer.starts_with(b"HTTP/1.1 200") {
                served = true;
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(
        served,
        "no new connection served {:?} after one closed",
        start.elapsed()
    );
}

#[test]
fn empty_token_is_refused_at_start_up() {
    // `--token "$TOKEN"` with TOKEN unset or blank.
    for token in ["", "  ", "\t"] {
        let (code, stderr) = serve_expecting_exit(&["--token", token], Duration::from_secs(20));
        assert_eq!(code, Some(2), "--token {token:?}: {stderr}");
        assert!(stderr.contains("--token"), "--token {token:?}: {stderr}");
        assert!(stderr.contains("empty"), "--token {token:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    // A real token still guards the API.
    let server = Server::start(&["--token", "s3cret"]);
    assert_eq!(server.get("/api/info", &[]).status, 401);
    assert_eq!(
        server
            .get("/api/info", &[("Authorization", "Bearer s3cret")])
            .status,
        200
    );
}

#[test]
fn bad_cors_origins_are_refused_without_a_panic() {
    for origin in [
        "*",
        "null",
        "",
        " ",
        "panel.example",
        "http://",
        "http://panel.example/",
        "http://panel.example/app",
        "http://panel.example?x",
        "http://user@panel.example",
        "http://panel.example:99999",
        "http://panel example",
        "http://pänel.example",
    ] {
        let (code, stderr) =
            serve_expecting_exit(&["--cors-origin", origin], Duration::from_secs(20));
        assert_eq!(code, Some(2), "--cors-origin {origin:?}: {stderr}");
        assert!(
            stderr.contains("--cors-origin"),
            "--cors-origin {origin:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{origin:?}: {stderr}");
    }
    let (_, stderr) = serve_expecting_exit(&["--cors-origin", "*"], Duration::from_secs(20));
    assert!(stderr.contains("scheme://host[:port]"), "{stderr}");
}

fn preflight(server: &Server, path: &str, origin: &str) -> HttpResponse {
    http_request(
        server.port(),
        "OPTIONS",
        path,
        &[
            ("Origin", origin),
            ("Access-Control-Request-Method", "GET"),
            ("Access-Control-Request-Headers", "authorization"),
        ],
    )
}

#[test]
fn cors_preflights_are_answered_for_allowed_origins_only() {
    let server = Server::start(&[
        "--token",
        "tok",
        "--cors-origin",
        "http://panel.example",
        // Written as a browser would not send it: normalized (case, default port).
        "--cors-origin",
        "HTTPS://Other.Example:443",
    ]);
    for path in ["/api/info", "/api/snapshot", "/api/keys"] {
        let r = preflight(&server, path, "http://panel.example");
        assert!(
            (200..300).contains(&r.status),
            "{path}: {} {:?}",
            r.status,
            r.headers
        );
        assert_eq!(
            r.header("access-control-allow-origin"),
            Some("http://panel.example"),
            "{path}"
        );
        let allowed_headers = r
            .header("access-control-allow-headers")
            .unwrap_or_default()
            .to_ascii_lowercase();
        assert!(allowed_headers.contains("authorization"), "{path}");
        assert!(
            r.header("access-control-allow-methods")
                .unwrap_or_default()
                .contains("GET"),
            "{path}"
        );
        assert_eq!(r.header("x-content-type-options"), Some("nosniff"));

        let evil = preflight(&server, path, "http://evil.example");
        assert_eq!(evil.header("access-control-allow-origin"), None, "{path}");
    }
    let r = preflight(&server, "/api/info", "https://other.example");
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("https://other.example")
    );
    // The request the preflight announced.
    let r = server.get(
        "/api/info",
        &[
            ("Origin", "http://panel.example"),
            ("Authorization", "Bearer tok"),
        ],
    );
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("http://panel.example")
    );
    // A 401 still names the origin, so that the page can read the error.
    let r = server.get("/api/info", &[("Origin", "http://panel.example")]);
    assert_eq!(r.status, 401);
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("http://panel.example")
    );
    let r = server.get(
        "/api/info",
        &[
            ("Origin", "http://evil.example"),
            ("Authorization", "Bearer tok"),
        ],
    );
    assert_eq!(r.header("access-control-allow-origin"), None);
}

fn assert_security_headers(what: &str, r: &HttpResponse) {
    assert_eq!(
        r.header("x-content-type-options"),
        Some("nosniff"),
        "{what}"
    );
    assert_eq!(r.header("x-frame-options"), Some("DENY"), "{what}");
    assert_eq!(r.header("referrer-policy"), Some("no-referrer"), "{what}");
    let csp = r
        .header("content-security-policy")
        .unwrap_or_else(|| panic!("{what}: no Content-Security-Policy"));
    for part in [
        "default-src 'self'",
        "script-src 'self' 'wasm-unsafe-eval'",
        "worker-src 'self' blob:",
        "frame-ancestors 'none'",
        "object-src 'none'",
    ] {
        assert!(csp.contains(part), "{what}: {part} not in {csp}");
    }
}

#[test]
fn every_response_carries_the_security_headers() {
    let server = Server::start(&[]);
    let cases: [(&str, &str, u16); 7] = [
        ("GET", "/", 200),
        ("GET", "/index.html", 200),
        ("GET", "/www/app.js", 200),
        ("GET", "/api/info", 200),
        ("GET", "/no/such/path", 404),
        ("GET", "/www/missing.js", 404),
        ("POST", "/api/info", 405),
    ];
    for (method, path, status) in cases {
        let r = http_request(server.port(), method, path, &[]);
        assert_eq!(r.status, status, "{method} {path}");
        assert_security_headers(&format!("{method} {path}"), &r);
    }
    let r = server.get("/api/snapshot?match=stats:active:*", &[]);
    assert_eq!(r.status, 200);
    assert_security_headers("snapshot", &r);
    // The guard's own 414 too.
    let r = server.get(&format!("/api/keys?match={}", "a".repeat(70_000)), &[]);
    assert_eq!(r.status, 414);
    assert_security_headers("414", &r);
    // And a 401.
    let guarded = Server::start(&["--token", "tok"]);
    let r = guarded.get("/api/info", &[]);
    assert_eq!(r.status, 401);
    assert_security_headers("401", &r);
}

#[test]
fn timeout_flags_are_checked() {
    for args in [
        &["--header-timeout", "0"][..],
        &["--write-timeout", "0"],
        &["--max-conns-per-ip", "0"],
        &["--header-timeout", "x"],
    ] {
        let (code, stderr) = serve_expecting_exit(args, Duration::from_secs(20));
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(args[0]), "{args:?}: {stderr}");
    }
}
