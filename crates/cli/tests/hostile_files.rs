//! Issue 54, hostile files: memory bounded by what a file really holds (a cap on one value,
//! large values streamed, per-database bookkeeping), named pipes and devices refused at once,
//! `export` reading each input through one handle. Each test starts the real binary and
//! measures its peak RSS (the kernel's `ru_maxrss` of the child) and time.

#![cfg(unix)]

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a run of the binary ended: exit code, stderr, peak RSS in bytes, wall time.
struct Run {
    code: i32,
    stderr: String,
    rss: u64,
    took: Duration,
}

/// Runs `bitlens ARGS` (stdin and stdout on /dev/null) and measures it; a run still going
/// after `limit` is killed and reported with code -1.
// (The child is reaped by wait4, which also gives its peak RSS.)
#[allow(clippy::zombie_processes)]
fn run_within(args: &[&str], limit: Duration) -> Run {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_bitlens"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run bitlens");
    let pid = child.id() as libc::pid_t;
    let mut err = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: pid is our child, status and usage point to live locals.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            break;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            // SAFETY: as above.
            unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
            return Run {
                code: -1,
                stderr: reader.join().unwrap_or_default(),
                rss: usage.ru_maxrss as u64 * 1024,
                took: start.elapsed(),
            };
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let took = start.elapsed();
    Run {
        code: if libc::WIFEXITED(status) {
            libc::WEXITSTATUS(status)
        } else {
            -(libc::WTERMSIG(status))
        },
        stderr: reader.join().unwrap_or_default(),
        rss: usage.ru_maxrss as u64 * 1024,
        took,
    }
}

fn run(args: &[&str]) -> Run {
    run_within(args, Duration::from_secs(120))
}

const MB: u64 = 1 << 20;

/// LZF data that decodes to `ulen` bytes (at least 35): a 32-byte printable literal, then
/// back-references of 264 bytes at distance 32 (about 88 times smaller than its output).
fn lzf_repeats(ulen: u64) -> Vec<u8> {
    let mut out = vec![31u8];
    out.extend_from_slice(b"abcdefghijklmnopqrstuvwxyz012345");
    let mut left = ulen - 32;
    out.reserve((left / 264 * 3 + 8) as usize);
    while left > 0 {
        let mut n = left.min(264);
        if matches!(left - n, 1 | 2) {
            n -= 3;
        }
        let l = n - 2;
        if l < 7 {
            out.extend_from_slice(&[(l as u8) << 5, 31]);
        } else {
            out.extend_from_slice(&[7 << 5, (l - 7) as u8, 31]);
        }
        left -= n;
    }
    out
}

fn len64(n: u64) -> Vec<u8> {
    let mut v = vec![0x81];
    v.extend_from_slice(&n.to_be_bytes());
    v
}

/// Writes `dir/name`: an RDB file whose one key `big` holds a string of `ulen` bytes stored
/// LZF-compressed (from small pieces: 12 MB for 1 GiB). The string's header is at byte 16.
fn big_string_file(dir: &Path, name: &str, ulen: u64) -> PathBuf {
    let data = lzf_repeats(ulen);
    let mut b = b"REDIS0011".to_vec();
    b.extend_from_slice(&[0xFE, 0x00, 0x00, 3]);
    b.extend_from_slice(b"big");
    b.push(0xC3);
    b.extend(len64(data.len() as u64));
    b.extend(len64(ulen));
    b.extend_from_slice(&data);
    b.push(0xFF);
    b.extend_from_slice(&[0; 8]);
    let p = dir.join(name);
    std::fs::write(&p, b).unwrap();
    p
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The 1 GiB (from 12 MB) and 4 GiB (claimed by 48 MB) LZF strings: every command that
/// reads a snapshot refuses them at once under the default limit (Redis' 512 MB
/// proto-max-bulk-len), naming the offset, the key and the option that raises it, in little
/// memory and time (they took 2.1 to 15 GB, or aborted on an allocation of 4 GiB).
#[test]
fn strings_over_the_limit_are_refused_by_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let svg = dir.path().join("x.svg");
    for (name, ulen) in [("1g.rdb", 1u64 << 30), ("4g.rdb", (4 << 30) - 66)] {
        let f = big_string_file(dir.path(), name, ulen);
        let f = s(&f);
        let commands: Vec<Vec<&str>> = vec![
            vec!["dump", f, "--format", "resp"],
            vec!["dump", f],
            vec!["diff", f, f],
            vec!["export", f, "--out", s(&out)],
            vec!["inspect", f],
            vec!["query", "--rdb", f, "STRLEN", "big"],
            vec!["chart", "dau", "--rdb", f, "--svg", s(&svg)],
        ];
        for args in commands {
            let r = run(&args);
            assert_eq!(r.code, 1, "{args:?}: {}", r.stderr);
            for part in [
                format!("at byte offset 16 (key \"big\"): string value of {ulen} bytes"),
                "longer than the limit on one value, 536870912 bytes".to_string(),
                "--max-value-bytes raises it".to_string(),
            ] {
                assert!(r.stderr.contains(&part), "{args:?}: {}", r.stderr);
            }
            assert!(r.rss < 200 * MB, "{args:?}: peak RSS {} MB", r.rss / MB);
            assert!(r.took < Duration::from_secs(20), "{args:?}: {:?}", r.took);
        }
    }
}

/// With the limit raised, a large string goes from the decoder to the output without a
/// second full copy: `dump` (RESP and JSON lines), `diff` and `export` of a 64 MiB string
/// peak under 1.4 times its size plus the process's own 48 MB (`dump --format resp` held
/// four copies, `dump` three, `diff` one per escaped JSON text of each file).
#[test]
fn a_raised_limit_streams_large_values() {
    let dir = tempfile::tempdir().unwrap();
    let size = 64 * MB;
    let f = big_string_file(dir.path(), "64m.rdb", size);
    let g = big_string_file(dir.path(), "64m-b.rdb", size);
    let out = dir.path().join("out");
    let (f, g) = (s(&f), s(&g));
    let raise = ["--max-value-bytes", "1gb"];
    let commands: Vec<Vec<&str>> = vec![
        [&["dump", f, "--format", "resp"][..], &raise].concat(),
        [&["dump", f][..], &raise].concat(),
        [&["diff", f, g][..], &raise].concat(),
        [&["export", f, "--out", s(&out)][..], &raise].concat(),
        [&["query", "--rdb", f][..], &raise, &["STRLEN", "big"]].concat(),
    ];
    let bound = size * 14 / 10 + 48 * MB;
    for args in commands {
        let r = run(&args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert!(
            r.rss < bound,
            "{args:?}: peak RSS {} MB, bound {} MB",
            r.rss / MB,
            bound / MB
        );
    }
    // Below the string's size the limit refuses it.
    let r = run(&["dump", f, "--max-value-bytes", "32mb"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("33554432 bytes"), "{}", r.stderr);
}

/// A file of 100,000 databases of one key each (1.35 MB): `inspect` at most 150 MB (it was
/// 520 MB), `diff` and `export` far less (1.4 and 1.25 GB), `dump` a few MB.
#[test]
fn many_databases_cost_megabytes() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = b"REDIS0011".to_vec();
    for db in 0u32..100_000 {
        b.push(0xFE);
        if db < 64 {
            b.push(db as u8);
        } else if db < 16384 {
            b.extend_from_slice(&[0x40 | (db >> 8) as u8, db as u8]);
        } else {
            b.push(0x80);
            b.extend_from_slice(&db.to_be_bytes());
        }
        b.extend_from_slice(&[0xFB, 1, 0, 0x00, 1, b'k', 1, b'v']);
    }
    b.push(0xFF);
    b.extend_from_slice(&[0; 8]);
    let f = dir.path().join("dbs.rdb");
    std::fs::write(&f, b).unwrap();
    let out = dir.path().join("out");
    let f = s(&f);
    for (args, bound) in [
        (vec!["inspect", f], 150 * MB),
        (vec!["inspect", f, "--csv"], 150 * MB),
        (vec!["diff", f, f], 150 * MB),
        (vec!["export", f, "--out", s(&out)], 150 * MB),
        (vec!["dump", f], 100 * MB),
    ] {
        let r = run(&args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert!(
            r.rss <= bound,
            "{args:?}: peak RSS {} MB, bound {} MB",
            r.rss / MB,
            bound / MB
        );
    }
}

/// A named pipe with no writer: every command refuses it at once (`query --rdb` blocked in
/// open() forever), as an input of any kind (`--rdb`, `--string`, `--dump`, `--roaring`).
#[test]
fn fifos_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    let c = std::ffi::CString::new(s(&fifo)).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let f = s(&fifo);
    let out = dir.path().join("out");
    let svg = dir.path().join("x.svg");
    let spec = format!("k={f}");
    let commands: Vec<Vec<&str>> = vec![
        vec!["query", "--rdb", f, "DBSIZE"],
        vec!["query", "--rdb", f, "--rdb", f, "DBSIZE"],
        vec!["query", "--string", &spec, "STRLEN", "k"],
        vec!["query", "--dump", &spec, "TYPE", "k"],
        vec!["query", "--roaring", &spec, "BITCOUNT", "k"],
        vec!["inspect", f],
        vec!["inspect", f, f],
        vec!["dump", f],
        vec!["diff", f, f],
        vec!["export", f, "--out", s(&out)],
        vec!["chart", "dau", "--rdb", f, "--svg", s(&svg)],
    ];
    for args in commands {
        let r = run_within(&args, Duration::from_secs(10));
        assert_eq!(r.code, 1, "{args:?}: {}", r.stderr);
        assert!(r.took < Duration::from_secs(1), "{args:?}: {:?}", r.took);
        assert!(
            r.stderr
                .contains("not a regular file (a pipe, FIFO, socket or device)"),
            "{args:?}: {}",
            r.stderr
        );
    }
}

/// A device (`/dev/zero` never ends) is refused as a value file and as a snapshot, not read;
/// a value file longer than `--max-value-bytes` is refused before it is read.
#[test]
fn devices_and_oversized_value_files_are_refused() {
    for flag in ["--string", "--dump", "--roaring"] {
        let spec = "k=/dev/zero";
        let r = run_within(&["query", flag, spec, "TYPE", "k"], Duration::from_secs(10));
        assert_eq!(r.code, 1, "{flag}: {}", r.stderr);
        assert!(r.took < Duration::from_secs(2), "{flag}: {:?}", r.took);
        assert!(
            r.stderr.contains("not a regular file"),
            "{flag}: {}",
            r.stderr
        );
        assert!(r.rss < 100 * MB, "{flag}: {} MB", r.rss / MB);
    }
    let r = run_within(&["inspect", "/dev/zero"], Duration::from_secs(10));
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("not a regular file"), "{}", r.stderr);
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.bin");
    std::fs::write(&big, vec![1u8; 4096]).unwrap();
    let spec = format!("k={}", s(&big));
    let r = run(&[
        "query",
        "--max-value-bytes",
        "1kb",
        "--string",
        &spec,
        "STRLEN",
        "k",
    ]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .contains("4096 bytes, longer than the limit on one value (1024 bytes)"),
        "{}",
        r.stderr
    );
    let r = run(&["query", "--string", &spec, "STRLEN", "k"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

/// `export` opens each input once: every pass (its start, the rows) reads that handle
/// (traced with strace when it is installed; skipped otherwise).
#[test]
fn export_opens_its_input_once() {
    let Ok(probe) = Command::new("strace").arg("-V").output() else {
        eprintln!("strace not installed: skipped");
        return;
    };
    if !probe.status.success() {
        eprintln!("strace cannot run here: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // A file with used-mem (the allocator is inferred in a pass of its own).
    let mut w = bitlens::rdb::RdbWriter::new(Vec::new(), 11).unwrap();
    w.aux(b"used-mem", b"1000000").unwrap();
    w.select_db(0).unwrap();
    for i in 0..100 {
        w.write_string(format!("k:{i}").as_bytes(), b"v", None)
            .unwrap();
    }
    let f = dir.path().join("once.rdb");
    std::fs::write(&f, w.finish().unwrap()).unwrap();
    let log = dir.path().join("trace");
    let out = dir.path().join("out");
    let st = Command::new("strace")
        .args(["-f", "-e", "trace=open,openat", "-o", s(&log)])
        .arg(env!("CARGO_BIN_EXE_bitlens"))
        .args(["export", s(&f), "--out", s(&out)])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    if !st.success() {
        eprintln!("strace could not trace here: skipped");
        return;
    }
    let trace = std::fs::read_to_string(&log).unwrap();
    let opens = trace
        .lines()
        .filter(|l| l.contains(s(&f)) && !l.contains("ENOENT"))
        .count();
    assert_eq!(opens, 1, "{trace}");
}
