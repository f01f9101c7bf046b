//! Differential test of the vector set read commands against Redis 8.0.2 (Debian 13's build,
//! the manifest's `redis-8.0.2`, with its built-in `vectorset` module).
//!
//! Generated sets: every quantization (Q8, NOQUANT, BIN), with and without `REDUCE`, with and
//! without attributes (JSON objects, some elements without one), M from 4 to 32, 1 to 10,000
//! elements and dimensions 2 to 512 (many small sets, a few large ones), vectors random,
//! clustered, repeated (ties) or zero. The server SAVEs and is restarted on its own file (so
//! that its in-memory sets are the loaded ones: node order, entry point, `vset-uid`); bitlens
//! loads the same file. Every command's raw RESP2 reply is compared byte for byte: TYPE,
//! OBJECT ENCODING, VCARD, VDIM, VINFO, VEMB [RAW], VGETATTR, VISMEMBER, VLINKS [WITHSCORES],
//! VSIM (ELE / VALUES / FP32, COUNT, EF, EPSILON, FILTER, FILTER-EF, TRUTH, NOTHREAD,
//! WITHSCORES) and their errors; VRANDMEMBER by its properties (members of the set, distinct
//! for a positive count, as many as asked). `BITLENS_SEED` replays a run.
//!
//! Run it optimised: `cargo test -p bitlens-difftest --release --test vectorset_diff -- --nocapture`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use bitlens::command::{execute_in, Ctx};
use bitlens::dialect::Profile;
use bitlens::keyspace::Value;
use bitlens::probabilistic::ModuleData;
use bitlens::rdb::{load_dump, load_rdb, LoadOptions};

const SERVER: &str = "redis-8.0.2";

/// The manifest's Redis 8.0.2: its server binary and environment.
fn manifest_entry() -> (PathBuf, Vec<(String, String)>) {
    let dir = bitlens_difftest::servers_dir();
    let path = dir.join("servers.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}: run `npm run setup` (or `bash scripts/servers.sh`)",
            path.display()
        )
    });
    let m: serde_json::Value = serde_json::from_str(&text).expect("servers.json is JSON");
    let e = m["servers"][SERVER].as_object().unwrap_or_else(|| {
        panic!(
            "{SERVER} is not in {}: run `npm run setup` (or `bash scripts/servers.sh`)",
            path.display()
        )
    });
    let server = PathBuf::from(e["server"].as_str().expect("server path"));
    let env = e
        .get("env")
        .and_then(|v| v.as_object())
        .map(|o| {
            o.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default();
    (server, env)
}

/// A Redis 8.0.2 process in its own directory, stopped by pid when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start(dir: PathBuf) -> Server {
        let (bin, env) = manifest_entry();
        for _ in 0..5 {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .expect("free port")
                .port();
            let child = Command::new(&bin)
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
                .args(["--save", "", "--appendonly", "no", "--dir"])
                .arg(&dir)
                .envs(env.iter().map(|(k, v)| (k, v)))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start {}: {e}", bin.display()));
            let mut s = Server { child, port };
            let deadline = Instant::now() + Duration::from_secs(20);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = s.child.try_wait() {
                    break;
                }
                if let Ok(mut c) = s.try_connect() {
                    let info = c.query(&[b"INFO".to_vec(), b"server".to_vec()]);
                    let info = String::from_utf8_lossy(&info);
                    if info.contains(&format!("process_id:{}", s.child.id())) {
                        return s;
                    }
                    if !info.contains("loading") {
                        break; // another server's port
                    }
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = s.child.kill();
        }
        panic!("{SERVER} did not start in {}", dir.display());
    }

    fn try_connect(&self) -> std::io::Result<Conn> {
        let s = TcpStream::connect(("127.0.0.1", self.port))?;
        s.set_read_timeout(Some(Duration::from_secs(120)))?;
        Ok(Conn {
            w: s.try_clone()?,
            r: BufReader::new(s),
        })
    }

    fn connect(&self) -> Conn {
        self.try_connect().expect("connect to redis-server")
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A RESP2 connection that returns replies as their raw bytes.
struct Conn {
    w: TcpStream,
    r: BufReader<TcpStream>,
}

fn encode(argv: &[Vec<u8>], out: &mut Vec<u8>) {
    out.extend_from_slice(format!("*{}\r\n", argv.len()).as_bytes());
    for a in argv {
        out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
        out.extend_from_slice(a);
        out.extend_from_slice(b"\r\n");
    }
}

impl Conn {
    fn read_reply(&mut self, out: &mut Vec<u8>) {
        let mut line = Vec::new();
        self.r.read_until(b'\n', &mut line).expect("read reply");
        assert!(line.ends_with(b"\r\n"), "truncated reply {line:?}");
        out.extend_from_slice(&line);
        let n: i64 = std::str::from_utf8(&line[1..line.len() - 2])
            .ok()
            .and_then(|t| t.parse().ok())
            .unwrap_or(0);
        match line[0] {
            b'$' if n >= 0 => {
                let mut buf = vec![0; n as usize + 2];
                self.r.read_exact(&mut buf).expect("read bulk");
                out.extend_from_slice(&buf);
            }
            b'*' | b'%' => {
                let k = if line[0] == b'%' { 2 * n } else { n };
                for _ in 0..k.max(0) {
                    self.read_reply(out);
                }
            }
            _ => {}
        }
    }

    fn query(&mut self, argv: &[Vec<u8>]) -> Vec<u8> {
        let mut buf = Vec::new();
        encode(argv, &mut buf);
        self.w.write_all(&buf).expect("send");
        let mut out = Vec::new();
        self.read_reply(&mut out);
        out
    }

    /// Sends every command, then reads every reply (in batches, so that neither side's
    /// buffers fill).
    fn pipeline(&mut self, cmds: &[Vec<Vec<u8>>]) -> Vec<Vec<u8>> {
        let mut replies = Vec::with_capacity(cmds.len());
        for chunk in cmds.chunks(500) {
            let mut buf = Vec::new();
            for c in chunk {
                encode(c, &mut buf);
            }
            self.w.write_all(&buf).expect("send");
            for _ in chunk {
                let mut out = Vec::new();
                self.read_reply(&mut out);
                replies.push(out);
            }
        }
        replies
    }
}

fn s(x: impl ToString) -> Vec<u8> {
    x.to_string().into_bytes()
}

fn b(x: &str) -> Vec<u8> {
    x.as_bytes().to_vec()
}

fn show(argv: &[Vec<u8>]) -> String {
    argv.iter()
        .take(12)
        .map(|p| {
            if p.len() > 40 {
                format!("<{} bytes>", p.len())
            } else {
                format!("{:?}", String::from_utf8_lossy(p))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// One generated set.
struct Spec {
    key: Vec<u8>,
    quant: &'static str,
    n: usize,
    /// Dimension of the vectors given (before REDUCE).
    input_dim: usize,
    reduce: Option<usize>,
    attrs: bool,
    m: Option<u32>,
    members: Vec<Vec<u8>>,
}

fn fp32(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn random_vector(rng: &mut fastrand::Rng, dim: usize, centers: &[Vec<f32>]) -> Vec<f32> {
    match rng.u8(0..20) {
        0 => vec![0.0; dim],
        1..=9 if !centers.is_empty() => {
            let c = &centers[rng.usize(0..centers.len())];
            c.iter().map(|x| x + (rng.f32() - 0.5) * 0.1).collect()
        }
        _ => (0..dim).map(|_| rng.f32() * 2.0 - 1.0).collect(),
    }
}

fn random_attr(rng: &mut fastrand::Rng, i: usize) -> Vec<u8> {
    match rng.u8(0..12) {
        8 => b(&format!(
            "  {{ \"n\" :{} , \"f\":+{}e1,\"tags\":[ \"a\" ,\"b\\\"q\" ], \"n\": 99 }}",
            i % 9,
            i % 4
        )),
        9 => b(&format!("{{\"ok\": truex, \"n\": {}}}", i % 6)),
        10 => b(&format!(
            "{{\"x\\\"y\": 1, \"n\": {}.5, \"s\": \"unterminated",
            i % 5
        )),
        11 => b(&format!(
            "{{\"n\": [{}, [1], 3], \"f\": -{}e-2}}",
            i % 3,
            i % 7
        )),
        0 => Vec::new(), // no attribute
        1 => b(&format!("{{\"n\": {}, \"s\": \"x\\ty{}\"}}", i % 7, i % 3)),
        2 => b(&format!(
            "{{\"tags\": [\"a\", {} , \"c\"], \"ok\": {}}}",
            i % 5,
            if i.is_multiple_of(2) { "true" } else { "false" }
        )),
        3 => b("not json"),
        4 => b(&format!(
            "{{\"n\": \"{}\", \"nested\": {{\"n\": 1}}}}",
            i % 11
        )),
        _ => b(&format!(
            "{{\"n\": {}, \"f\": {}, \"name\": \"item{}\", \"g\": null}}",
            i % 10,
            (i as f64) * 0.25 - 3.0,
            i % 4
        )),
    }
}

const FILTERS: &[&str] = &[
    ".n > 3",
    ".n == 2 or .n == 5",
    ".f >= 0 and .n < 8",
    ".name == \"item1\"",
    "'a' in .tags",
    ".n in [1, 3, \"5\"]",
    "!(.n % 2)",
    ".n * 2 + 1 > .f",
    ".ok",
    "not .ok",
    ".s == \"x\\ty1\"",
    ".g",
    ".missing == 1",
    ".n ** 2 > 10 && .f < 1",
    "(.n - 1) / 2 >= 1 || .name == 'item3'",
    "-3 < .f",
];

const BAD_FILTERS: &[&str] = &[
    ".n == 1 +",
    "(.n",
    ".n == #",
    "'abc",
    ".n == null",
    ".n )",
    "[1, 2",
    "..n",
    "1 2",
    "",
];

/// A random FILTER expression: atoms and operators in any order, so that valid and invalid
/// ones (and their error offsets) are both compared.
fn random_filter(rng: &mut fastrand::Rng) -> Vec<u8> {
    const ATOMS: &[&str] = &[
        ".n",
        ".f",
        ".s",
        ".name",
        ".tags",
        ".ok",
        ".g",
        ".missing",
        "1",
        "2.5",
        "-3",
        "1e2",
        "0",
        "'a'",
        "\"item1\"",
        "'5'",
        "\"x\\ty1\"",
        "[1, 2, 'a']",
        "[]",
        "null",
        "true",
    ];
    const OPS: &[&str] = &[
        "+", "-", "*", "/", "%", "**", ">", ">=", "<", "<=", "==", "!=", "in", "and", "or", "&&",
        "||", "not", "!", "(", ")", "#", "=", "&", "|", "andx",
    ];
    let mut out = String::new();
    let n = rng.usize(1..10);
    for k in 0..n {
        let t = if k % 2 == 0 && rng.u8(0..5) != 0 {
            ATOMS[rng.usize(0..ATOMS.len())]
        } else {
            OPS[rng.usize(0..OPS.len())]
        };
        if !out.is_empty() && rng.u8(0..4) != 0 {
            out.push(' ');
        }
        out.push_str(t);
    }
    out.into_bytes()
}

fn make_spec(rng: &mut fastrand::Rng, i: usize, n: usize, dim: usize) -> Spec {
    let quant = ["Q8", "NOQUANT", "BIN"][i % 3];
    let reduce = (dim >= 4 && rng.u8(0..4) == 0).then(|| rng.usize(2..dim));
    Spec {
        key: s(format!("vs:{i}")),
        quant,
        n,
        input_dim: dim,
        reduce,
        attrs: rng.bool(),
        m: (rng.u8(0..3) == 0).then(|| rng.u32(4..33)),
        members: Vec::new(),
    }
}

fn vadd_commands(rng: &mut fastrand::Rng, spec: &mut Spec) -> Vec<Vec<Vec<u8>>> {
    let centers: Vec<Vec<f32>> = (0..rng.usize(0..4))
        .map(|_| (0..spec.input_dim).map(|_| rng.f32() * 2.0 - 1.0).collect())
        .collect();
    let mut cmds = Vec::new();
    let mut previous: Vec<Vec<f32>> = Vec::new();
    for i in 0..spec.n {
        let v = if !previous.is_empty() && rng.u8(0..15) == 0 {
            previous[rng.usize(0..previous.len())].clone() // a tie
        } else {
            random_vector(rng, spec.input_dim, &centers)
        };
        let name = match rng.u8(0..6) {
            0 => s(i),
            1 => {
                let mut x = b"bin\x00\xff".to_vec();
                x.extend_from_slice(&(i as u32).to_le_bytes());
                x
            }
            _ => s(format!("e:{i}")),
        };
        let mut c = vec![b("VADD"), spec.key.clone()];
        if let Some(r) = spec.reduce {
            c.push(b("REDUCE"));
            c.push(s(r));
        }
        if rng.u8(0..4) == 0 {
            c.push(b("VALUES"));
            c.push(s(v.len()));
            c.extend(v.iter().map(s));
        } else {
            c.push(b("FP32"));
            c.push(fp32(&v));
        }
        c.push(name.clone());
        c.push(b(spec.quant));
        if let Some(m) = spec.m {
            c.push(b("M"));
            c.push(s(m));
        }
        if spec.attrs {
            let a = random_attr(rng, i);
            if !a.is_empty() {
                c.push(b("SETATTR"));
                c.push(a);
            }
        }
        previous.push(v);
        spec.members.push(name);
        cmds.push(c);
    }
    cmds
}

fn vsim_commands(rng: &mut fastrand::Rng, spec: &Spec, probes: usize) -> Vec<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    for p in 0..probes {
        let mut c = vec![b("VSIM"), spec.key.clone()];
        match rng.u8(0..4) {
            0 | 1 => {
                c.push(b("ELE"));
                c.push(spec.members[rng.usize(0..spec.members.len())].clone());
            }
            2 => {
                let dim = if spec.reduce.is_some() && rng.u8(0..3) == 0 {
                    spec.reduce.unwrap_or(spec.input_dim)
                } else {
                    spec.input_dim
                };
                let v: Vec<f32> = (0..dim).map(|_| rng.f32() * 2.0 - 1.0).collect();
                c.push(b("VALUES"));
                c.push(s(dim));
                c.extend(v.iter().map(s));
            }
            _ => {
                let v: Vec<f32> = (0..spec.input_dim).map(|_| rng.f32() * 2.0 - 1.0).collect();
                c.push(b("FP32"));
                c.push(fp32(&v));
            }
        }
        if rng.bool() {
            c.push(b("COUNT"));
            c.push(s(*rng.choice(&[1u32, 3, 10, 25, 100, 300]).expect("count")));
        }
        if rng.u8(0..3) == 0 {
            c.push(b("EF"));
            c.push(s(*rng.choice(&[1u32, 5, 50, 200, 500]).expect("ef")));
        }
        if rng.bool() {
            c.push(b("WITHSCORES"));
        }
        if rng.u8(0..4) == 0 {
            c.push(b("TRUTH"));
        }
        if spec.attrs && rng.u8(0..3) == 0 {
            c.push(b("FILTER"));
            c.push(b(FILTERS[rng.usize(0..FILTERS.len())]));
            if rng.bool() {
                c.push(b("FILTER-EF"));
                c.push(s(*rng.choice(&[1u32, 10, 100, 5000]).expect("filter-ef")));
            }
        }
        if rng.u8(0..6) == 0 {
            c.push(b("EPSILON"));
            c.push(b(rng.choice(&["0.1", "0.5", "1", "1.9"]).expect("eps")));
        }
        // NOTHREAD on half, so that both server paths are compared.
        if p.is_multiple_of(2) {
            c.push(b("NOTHREAD"));
        }
        out.push(c);
    }
    out
}

#[test]
fn vector_set_commands_match_redis_8_0_2() {
    let seed = bitlens_testseed::seed();
    let mut rng = fastrand::Rng::with_seed(seed);
    let dir =
        std::env::temp_dir().join(format!("bitlens-vectorset-{}-{}", std::process::id(), seed));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut server = Server::start(dir.clone());
    let mut conn = server.connect();

    // Many small sets, a few medium, one large: 1 to 10,000 elements, dimensions 2 to 512.
    let mut specs = Vec::new();
    for i in 0..18 {
        let n = if i < 3 { 1 + i } else { rng.usize(1..80) };
        let dim = rng.usize(2..40);
        specs.push(make_spec(&mut rng, i, n, dim));
    }
    for i in 18..21 {
        let (n, dim) = (rng.usize(200..1200), rng.usize(8..130));
        specs.push(make_spec(&mut rng, i, n, dim));
    }
    let n = rng.usize(100..400);
    specs.push(make_spec(&mut rng, 21, n, 512));
    let (n, dim) = if seed.is_multiple_of(2) {
        (10_000, rng.usize(2..9))
    } else {
        (rng.usize(1500..2500), rng.usize(200..513))
    };
    specs.push(make_spec(&mut rng, 22, n, dim));
    let started = Instant::now();
    for spec in &mut specs {
        let cmds = vadd_commands(&mut rng, spec);
        for (c, r) in cmds.iter().zip(conn.pipeline(&cmds)) {
            assert!(
                r.starts_with(b":"),
                "seed {seed}: {} answered {:?}",
                show(c),
                String::from_utf8_lossy(&r)
            );
        }
    }
    conn.query(&[b("SET"), b("str"), b("x")]);
    eprintln!(
        "seed {seed}: {} sets written in {:.1} s",
        specs.len(),
        started.elapsed().as_secs_f64()
    );
    assert_eq!(conn.query(&[b("SAVE")]), b"+OK\r\n");
    let bytes = std::fs::read(dir.join("dump.rdb")).expect("dump.rdb");
    // Restart on the file: the server's sets are then the loaded ones.
    drop(conn);
    server.stop();
    let server = Server::start(dir.clone());
    let mut conn = server.connect();

    let snap = load_rdb(&bytes, &LoadOptions::default()).expect("bitlens loads the snapshot");
    let mut ks = snap.databases.get(&0).cloned().unwrap_or_default();
    let profile = Profile::from_name("redis-8.0").expect("profile");

    let mut cmds: Vec<Vec<Vec<u8>>> = Vec::new();
    let missing = b("no-such-member");
    for spec in &specs {
        let k = &spec.key;
        for c in [
            vec![b("TYPE"), k.clone()],
            vec![b("OBJECT"), b("ENCODING"), k.clone()],
            vec![b("VCARD"), k.clone()],
            vec![b("VDIM"), k.clone()],
            vec![b("VINFO"), k.clone()],
            vec![b("VCARD"), k.clone(), b("x")],
            vec![b("VINFO")],
            vec![b("VEMB"), k.clone(), missing.clone()],
            vec![
                b("VEMB"),
                k.clone(),
                spec.members[0].clone(),
                b("RAW"),
                b("x"),
            ],
            vec![b("VLINKS"), k.clone(), missing.clone()],
            vec![b("VLINKS"), k.clone(), spec.members[0].clone(), b("SCORES")],
            vec![b("VGETATTR"), k.clone(), missing.clone()],
            vec![b("VISMEMBER"), k.clone(), missing.clone()],
            vec![b("VSIM"), k.clone(), b("ELE"), missing.clone()],
            vec![
                b("VSIM"),
                k.clone(),
                b("ELE"),
                spec.members[0].clone(),
                b("WITHATTRIBS"),
            ],
            vec![
                b("VSIM"),
                k.clone(),
                b("ELE"),
                spec.members[0].clone(),
                b("COUNT"),
                b("0"),
            ],
            vec![
                b("VSIM"),
                k.clone(),
                b("ELE"),
                spec.members[0].clone(),
                b("EF"),
                b("-1"),
            ],
            vec![
                b("VSIM"),
                k.clone(),
                b("ELE"),
                spec.members[0].clone(),
                b("EPSILON"),
                b("0"),
            ],
            vec![
                b("VSIM"),
                k.clone(),
                b("ELE"),
                spec.members[0].clone(),
                b("FILTER-EF"),
                b("x"),
            ],
            vec![
                b("VSIM"),
                k.clone(),
                b("ELE"),
                spec.members[0].clone(),
                b("COUNT"),
            ],
            vec![b("VSIM"), k.clone(), b("VALUES"), b("2"), b("1")],
            vec![b("VSIM"), k.clone(), b("VALUES"), b("x"), b("1")],
            vec![
                b("VSIM"),
                k.clone(),
                b("VALUES"),
                b("3"),
                b("1"),
                b("2"),
                b("3"),
            ],
            vec![b("VSIM"), k.clone(), b("FP32"), b("abc")],
            vec![
                b("VSIM"),
                k.clone(),
                b("FP32"),
                fp32(&[1.0, 2.0, 3.0, 4.0, 5.0]),
            ],
            vec![b("VSIM"), k.clone(), b("XYZ"), b("1")],
            vec![b("VRANDMEMBER"), k.clone(), b("x")],
        ] {
            cmds.push(c);
        }
        for bad in BAD_FILTERS {
            cmds.push(vec![
                b("VSIM"),
                k.clone(),
                b("ELE"),
                spec.members[0].clone(),
                b("FILTER"),
                b(bad),
            ]);
        }
        let sample: Vec<&Vec<u8>> = if spec.members.len() <= 25 {
            spec.members.iter().collect()
        } else {
            (0..25)
                .map(|_| &spec.members[rng.usize(0..spec.members.len())])
                .collect()
        };
        for m in sample {
            for c in [
                vec![b("VEMB"), k.clone(), m.clone()],
                vec![b("VEMB"), k.clone(), m.clone(), b("raw")],
                vec![b("VGETATTR"), k.clone(), m.clone()],
                vec![b("VISMEMBER"), k.clone(), m.clone()],
                vec![b("VLINKS"), k.clone(), m.clone()],
                vec![b("VLINKS"), k.clone(), m.clone(), b("withscores")],
            ] {
                cmds.push(c);
            }
        }
        if spec.attrs {
            for _ in 0..12 {
                cmds.push(vec![
                    b("VSIM"),
                    k.clone(),
                    b("ELE"),
                    spec.members[rng.usize(0..spec.members.len())].clone(),
                    b("TRUTH"),
                    b("COUNT"),
                    b("20"),
                    b("FILTER"),
                    random_filter(&mut rng),
                ]);
            }
        }
        let probes = if spec.n > 1000 { 40 } else { 15 };
        cmds.extend(vsim_commands(&mut rng, spec, probes));
    }
    // Missing keys and another type.
    for name in ["VCARD", "VDIM", "VINFO"] {
        cmds.push(vec![b(name), b("missing")]);
        cmds.push(vec![b(name), b("str")]);
    }
    for name in ["VEMB", "VGETATTR", "VISMEMBER", "VLINKS"] {
        cmds.push(vec![b(name), b("missing"), b("m")]);
        cmds.push(vec![b(name), b("str"), b("m")]);
        cmds.push(vec![b(name), b("missing")]);
    }
    cmds.push(vec![b("VSIM"), b("missing"), b("ELE"), b("m")]);
    cmds.push(vec![b("VSIM"), b("str"), b("ELE"), b("m")]);
    cmds.push(vec![b("VSIM"), b("str"), b("ELE")]);
    cmds.push(vec![b("VRANDMEMBER"), b("missing")]);
    cmds.push(vec![b("VRANDMEMBER"), b("missing"), b("3")]);
    cmds.push(vec![b("VRANDMEMBER"), b("str")]);
    cmds.push(vec![b("VRANDMEMBER"), b("str"), b("0")]);
    cmds.push(vec![b("VRANDMEMBER")]);

    let replies = conn.pipeline(&cmds);
    let mut compared = 0;
    let mut found = 0;
    for (c, want) in cmds.iter().zip(&replies) {
        if c[0] == b"VSIM" && want.starts_with(b"*") && !want.starts_with(b"*0\r\n") {
            found += 1;
        }
        let got = execute_in(&mut Ctx::single(&mut ks, profile), c).to_resp();
        assert!(
            got == *want,
            "seed {seed}: {}\n server: {:?}\nbitlens: {:?}",
            show(c),
            String::from_utf8_lossy(want),
            String::from_utf8_lossy(&got)
        );
        compared += 1;
    }

    assert!(
        found > 100,
        "seed {seed}: only {found} VSIM replies found elements"
    );

    // MEMORY USAGE: the module's mem_usage callback over the loaded set, priced with Debian
    // 8.0.2's jemalloc (16-byte quantum), byte for byte.
    let model =
        bitlens_views::memory::Model::new(profile, bitlens_views::memory::Allocator::Jemalloc16);
    for spec in &specs {
        let want = conn.query(&[b("MEMORY"), b("USAGE"), spec.key.clone()]);
        let value = ks.get(&spec.key).expect("loaded set");
        let est = model
            .estimate(&spec.key, value)
            .expect("vector sets are priced");
        assert_eq!(
            String::from_utf8_lossy(&want),
            format!(":{}\r\n", est.bytes),
            "seed {seed}: MEMORY USAGE {}",
            String::from_utf8_lossy(&spec.key)
        );
    }

    // DUMP payloads of the loaded sets decode to the file's values.
    for spec in &specs {
        let r = conn.query(&[b("DUMP"), spec.key.clone()]);
        let start = r.iter().position(|&c| c == b'\n').expect("bulk header") + 1;
        let payload = &r[start..r.len() - 2];
        let from_dump = load_dump(payload).expect("bitlens loads the DUMP payload");
        let (Value::Module(a), Some(Value::Module(f))) = (&from_dump, ks.get(&spec.key)) else {
            panic!("seed {seed}: {:?} is not a module value", spec.key);
        };
        let (ModuleData::VectorSet(a), ModuleData::VectorSet(f)) = (&a.data, &f.data) else {
            panic!("seed {seed}: {:?} is not a vector set", spec.key);
        };
        // The server saves its node list, which its load reversed: the payload holds the
        // file's elements in the opposite order.
        assert_eq!(a.len(), f.len());
        for (i, j) in a.list_order().zip(0..f.len() as u32) {
            let (x, y) = (&a.nodes[i as usize], &f.nodes[j as usize]);
            assert_eq!(
                (&x.item, &x.attrib, x.id, x.l2.to_bits(), x.range.to_bits()),
                (&y.item, &y.attrib, y.id, y.l2.to_bits(), y.range.to_bits()),
                "seed {seed}: DUMP of {:?}",
                spec.key
            );
            assert_eq!(a.raw_vector(i), f.raw_vector(j), "seed {seed}");
        }
        assert_eq!(
            (a.dim, a.quant, a.m, a.max_level),
            (f.dim, f.quant, f.m, f.max_level)
        );
        assert_eq!(a.projection, f.projection, "seed {seed}");
    }

    // VRANDMEMBER: members a server could return.
    for spec in &specs {
        let members: std::collections::HashSet<&Vec<u8>> = spec.members.iter().collect();
        let mut run = |argv: Vec<Vec<u8>>| execute_in(&mut Ctx::single(&mut ks, profile), &argv);
        match run(vec![b("VRANDMEMBER"), spec.key.clone()]) {
            bitlens::Reply::Bulk(m) => assert!(members.contains(&m), "seed {seed}: not a member"),
            other => panic!("seed {seed}: VRANDMEMBER {other:?}"),
        }
        for count in [
            1i64,
            2,
            5,
            spec.n as i64,
            spec.n as i64 + 3,
            -1,
            -7,
            -(spec.n as i64) * 2,
        ] {
            let r = run(vec![b("VRANDMEMBER"), spec.key.clone(), s(count)]);
            let bitlens::Reply::Array(items) = r else {
                panic!("seed {seed}: VRANDMEMBER {count}: {r:?}");
            };
            let want = if count > 0 {
                (count as usize).min(spec.n)
            } else {
                count.unsigned_abs() as usize
            };
            assert_eq!(items.len(), want, "seed {seed}: VRANDMEMBER {count}");
            let mut seen = std::collections::HashSet::new();
            for it in items {
                let bitlens::Reply::Bulk(m) = it else {
                    panic!("seed {seed}: {it:?}");
                };
                assert!(members.contains(&m), "seed {seed}: not a member");
                if count > 0 {
                    assert!(seen.insert(m), "seed {seed}: VRANDMEMBER {count} repeats");
                }
            }
        }
        // The server's counts agree.
        let r = conn.query(&[b("VRANDMEMBER"), spec.key.clone(), s(spec.n + 3)]);
        assert!(r.starts_with(format!("*{}\r\n", spec.n).as_bytes()));
    }
    eprintln!(
        "seed {seed}: {compared} replies identical over {} sets ({} elements), {:.1} s",
        specs.len(),
        specs.iter().map(|s| s.n).sum::<usize>(),
        started.elapsed().as_secs_f64()
    );
    drop(conn);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
