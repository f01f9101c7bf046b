//! `bitlens inspect` and `bitlens export` read the file once whichever allocator they infer
//! (issue 52, item 1): with no `--allocator`, every key is priced under every candidate in the
//! one pass and the report (the export's rows) is read back as the inferred one's. Its output
//! must be byte-identical to the output with that allocator named (`--allocator X`; only the
//! lines saying how it was chosen differ), and to itself on one decoding thread and on
//! several.
//!
//! The file: every key of Redis 7.0.15's conformance snapshot (strings, bitmaps,
//! HyperLogLogs, lists, sets, sorted sets and GEO sets, hashes, streams with groups) written
//! again many times under new names over two databases, some with a TTL, about 6 MB with
//! records over 1 KiB on average, so that the reader decodes them on several threads. It is
//! written three times, its `used-mem` aux field set each time to what one candidate
//! allocator predicts for it ([`AllocatorInference::predictions`]), so that the inference
//! lands on each candidate in turn (the other two priced and then left unread).

mod common;

use bitlens::keyspace::Value;
use bitlens::rdb::{LoadOptions, RdbWriter};
use bitlens_views::memory::{Allocator, AllocatorInference};
use common::*;

/// Copies of the conformance keys in the generated file.
const COPIES: u64 = 110;

/// The keys of the generated file: (db, key, value, expiry), in file order.
fn keys() -> Vec<(u64, Vec<u8>, Value, Option<i64>)> {
    let vendored = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/conformance/redis-7.0.15/dump.rdb");
    let bytes = std::fs::read(&vendored).expect("the Redis 7.0.15 conformance snapshot");
    let snap = bitlens::rdb::load_rdb(&bytes, &LoadOptions::default()).unwrap();
    let mut base: Vec<(Vec<u8>, Value)> = Vec::new();
    for ks in snap.databases.values() {
        for (k, e) in ks.iter_all() {
            if !matches!(e.value, Value::Module(_) | Value::Other(_)) {
                base.push((k.to_vec(), e.value.clone()));
            }
        }
    }
    base.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = Vec::new();
    for c in 0..COPIES {
        for (i, (k, v)) in base.iter().enumerate() {
            let mut key = format!("c{c}:").into_bytes();
            key.extend_from_slice(k);
            // Every seventh key expires (far in the future, so none is dropped).
            let expiry = (c as usize + i)
                .is_multiple_of(7)
                .then_some(4_102_444_800_000 + i as i64);
            out.push((c % 2, key, v.clone(), expiry));
        }
    }
    out.sort_by_key(|k| k.0);
    out
}

/// The RDB file of `keys` with `used-mem` set to `used_mem`.
fn write(keys: &[(u64, Vec<u8>, Value, Option<i64>)], used_mem: u64) -> Vec<u8> {
    let mut w = RdbWriter::with_redis_ver(Vec::new(), 10, b"7.0.15").unwrap();
    // (The save time, which the report's clock is: else each run's clock is its own.)
    w.aux(b"ctime", b"1796676000").unwrap();
    w.aux(b"used-mem", used_mem.to_string().as_bytes()).unwrap();
    let mut db = None;
    for (d, k, v, e) in keys {
        if db != Some(*d) {
            w.select_db(*d).unwrap();
            db = Some(*d);
        }
        w.write_value(k, v, *e).unwrap();
    }
    w.finish().unwrap()
}

/// The files of `three` (the keys under the `used-mem` each candidate predicts), each
/// written under its candidate's name in one folder, and the allocator `inspect` infers for
/// each: (folder, paths, inferred allocator names).
fn three_files(
    keys: &[(u64, Vec<u8>, Value, Option<i64>)],
) -> (tempfile::TempDir, Vec<String>, Vec<String>) {
    let profile =
        bitlens::dialect::Profile::for_snapshot(&[(b"redis-ver".to_vec(), b"7.0.15".to_vec())], 10);
    let mut inf = AllocatorInference::new(profile);
    for (db, k, v, e) in keys {
        inf.add(*db, k, v, e.is_some());
    }
    let predictions = inf
        .predictions()
        .expect("a standalone server's predictions");
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    let mut inferred = Vec::new();
    for (i, a) in Allocator::ALL.iter().enumerate() {
        let path = dir.path().join(format!("used-mem-{}.rdb", a.name()));
        std::fs::write(&path, write(keys, predictions[i])).unwrap();
        let path = path.to_str().unwrap().to_string();
        let json = bitlens_ok(&["inspect", &path, "--json", "--top", "1"]);
        let doc: serde_json::Value = serde_json::from_slice(&json).unwrap();
        assert_eq!(doc["allocator_source"], "inferred", "{path}");
        inferred.push(doc["allocator"].as_str().unwrap().to_string());
        paths.push(path);
    }
    (dir, paths, inferred)
}

/// Every file `bitlens export` wrote under `out`, by its path under `out`, with its bytes.
fn tree(out: &std::path::Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut files: Vec<_> = files_under(out)
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p.strip_prefix(out).unwrap().to_path_buf(), bytes)
        })
        .collect();
    files.sort();
    files
}

/// `bitlens export` with `args` (before the files) of `files` into a new folder of `dir`:
/// what it wrote ([`tree`]).
fn export(
    dir: &std::path::Path,
    name: &str,
    args: &[&str],
    files: &[&str],
) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let out = dir.join(name);
    let out_s = out.to_str().unwrap();
    bitlens_ok(&[&["export", "--batch", "b", "--out", out_s], args, files].concat());
    tree(&out)
}

/// The export's rows are the inferred allocator's, byte for byte in Parquet and CSV, as with
/// that allocator named, for files whose inference is each candidate in turn (the version's
/// usual build, bundled jemalloc, among them and not), and the same on one decoding thread
/// and on several, one file at a time or several at once (`-j`).
#[test]
fn default_export_is_the_inferred_allocators_on_any_thread_count() {
    let keys = keys();
    let (dir, paths, inferred) = three_files(&keys);
    assert!(
        inferred.iter().any(|a| a != "jemalloc"),
        "a file whose inference is not the usual build: {inferred:?}"
    );
    let outs = tempfile::tempdir().unwrap();
    for format in ["parquet", "csv"] {
        for (path, inferred) in paths.iter().zip(&inferred) {
            let fmt = ["--format", format];
            let default = export(
                outs.path(),
                &format!("{format}-default-{inferred}"),
                &fmt,
                &[path],
            );
            assert_eq!(default.len(), 1, "{format}: one part: {default:?}");
            let named = export(
                outs.path(),
                &format!("{format}-named-{inferred}"),
                &[&fmt[..], &["--allocator", inferred]].concat(),
                &[path],
            );
            assert!(
                default == named,
                "{format}, {path}: default and --allocator {inferred} differ"
            );
            // The memory column depends on the allocator: another's rows differ.
            let other = Allocator::ALL
                .iter()
                .map(|a| a.name())
                .find(|a| a != inferred)
                .unwrap();
            let priced_other = export(
                outs.path(),
                &format!("{format}-other-{inferred}"),
                &[&fmt[..], &["--allocator", other]].concat(),
                &[path],
            );
            assert!(
                default != priced_other,
                "{format}: {inferred} and {other} price alike"
            );
        }
        // All three files at once: one decoding thread, several, and several files at once.
        let files: Vec<&str> = paths.iter().map(String::as_str).collect();
        let fmt = ["--format", format];
        let one = export(
            outs.path(),
            &format!("{format}-t1"),
            &[&["--threads", "1", "-j", "1"], &fmt[..]].concat(),
            &files,
        );
        assert_eq!(one.len(), 3, "{format}: a part per file");
        for (name, args) in [
            ("t4", ["--threads", "4", "-j", "1"]),
            ("j3", ["--threads", "4", "-j", "3"]),
        ] {
            let many = export(
                outs.path(),
                &format!("{format}-{name}"),
                &[&args[..], &fmt[..]].concat(),
                &files,
            );
            assert!(one == many, "{format}: {args:?} differs from one thread");
        }
    }
    drop(dir);
}

/// The JSON report without the fields saying how the allocator was chosen (given or
/// inferred, the reason, the candidates, the range over them).
fn without_choice(json: &[u8]) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_slice(json).unwrap();
    let o = v.as_object_mut().unwrap();
    for f in [
        "allocator_source",
        "allocator_reason",
        "allocator_candidates",
        "memory_range",
    ] {
        o.remove(f);
    }
    v
}

#[test]
fn default_inspect_is_the_inferred_allocators_on_any_thread_count() {
    let keys = keys();
    let (_dir, paths, mut inferred_seen) = three_files(&keys);
    for (path, inferred) in paths.iter().zip(inferred_seen.clone()) {
        let size = std::fs::metadata(path).unwrap().len();
        assert!(
            size > 4 << 20,
            "{size} bytes: big enough for several threads"
        );
        let json = bitlens_ok(&["inspect", path, "--json", "--top", "50"]);
        eprintln!("{path}: inferred {inferred}");
        // Named: the same figures, byte for byte, in JSON, CSV and the text's key lines.
        let named = ["--allocator", inferred.as_str()];
        let json_named =
            bitlens_ok(&[&["inspect", path, "--json", "--top", "50"], &named[..]].concat());
        assert_eq!(
            without_choice(&json),
            without_choice(&json_named),
            "{inferred}"
        );
        // The ledger (bitmaps and integer-id sets priced as the other forms) is priced per
        // candidate too.
        let ledger = bitlens_ok(&["inspect", path, "--json", "--ledger"]);
        let ledger_named =
            bitlens_ok(&[&["inspect", path, "--json", "--ledger"], &named[..]].concat());
        assert!(
            String::from_utf8_lossy(&ledger).contains("\"ledger\""),
            "the report has ledger figures"
        );
        assert!(
            without_choice(&ledger) == without_choice(&ledger_named),
            "--ledger: default and --allocator {inferred} differ"
        );
        let csv = bitlens_ok(&["inspect", path, "--csv"]);
        let csv_named = bitlens_ok(&[&["inspect", path, "--csv"], &named[..]].concat());
        assert!(csv.len() > 100_000, "every key's row");
        assert!(
            csv == csv_named,
            "--csv, default and --allocator {inferred}"
        );
        let text = bitlens_ok(&["inspect", path]);
        let text_named = bitlens_ok(&[&["inspect", path], &named[..]].concat());
        // All but the ALLOCATOR and MEMORY RANGE lines (how it was chosen), which end
        // before the first database's section.
        let keep = |t: &[u8]| -> Vec<String> {
            let t = String::from_utf8_lossy(t);
            let lines: Vec<&str> = t.lines().collect();
            let head = lines.iter().take_while(|l| !l.starts_with("ALLOCATOR:"));
            let body = lines.iter().skip_while(|l| !l.starts_with("db"));
            head.chain(body).map(|l| l.to_string()).collect()
        };
        assert_eq!(keep(&text), keep(&text_named), "text, {inferred}");
        // One decoding thread and several: the same bytes.
        for args in [
            vec!["inspect", path.as_str()],
            vec!["inspect", path.as_str(), "--json", "--top", "50"],
            vec!["inspect", path.as_str(), "--csv"],
        ] {
            let many = bitlens_ok(&[&["--threads", "4"], &args[..]].concat());
            let one = bitlens_ok(&[&["--threads", "1"], &args[..]].concat());
            assert!(one == many, "{args:?}: --threads 1 and 4 differ");
        }
        let one = bitlens_ok(&["--threads", "1", "inspect", path, "--json", "--top", "50"]);
        assert!(one == json, "--threads 1 and the default");
    }
    // The inference was led to at least two allocators, so the default read at least one
    // report back as another candidate's than the first.
    inferred_seen.sort();
    inferred_seen.dedup();
    assert!(inferred_seen.len() >= 2, "inferred: {inferred_seen:?}");
    assert!(inferred_seen.iter().any(|a| a != "jemalloc"));
}
