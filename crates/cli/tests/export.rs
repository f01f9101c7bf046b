//! `bitlens export`: the rows read back from Parquet (with the parquet crate) equal
//! `bitlens inspect --csv` row for row (db, type, key, memory, encoding, elements, largest
//! element, expiry) on the conformance snapshots of all six servers; the other formats hold
//! the same rows; the partition layout, the schema version, part rollover, collisions and a
//! truncated snapshot.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use bitlens_cli::inspect::render::{csv_key, iso8601};
use bitlens_export::arrow::array::{
    Array, BinaryArray, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
    TimestampMillisecondArray,
};
use bitlens_export::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

const SERVERS: [&str; 8] = [
    "redis-6.0.9",
    "redis-6.2.14",
    "redis-7.0.15",
    "redis-7.4.1",
    "redis-8.0.2",
    "valkey-8.1.1",
    "valkey-8.1.8",
    "valkey-9.1.2",
];

fn conformance(server: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/conformance")
        .join(server)
        .join("dump.rdb")
}

fn bitlens(args: &[&str]) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_bitlens"))
        .args(args)
        .output()
        .expect("run bitlens");
    assert!(
        out.status.success(),
        "bitlens {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `bitlens export FILE --out OUT --format FORMAT` of a snapshot small enough for one part:
/// that part's path.
fn export_one(file: &Path, out: &Path, format: &str) -> PathBuf {
    bitlens(&[
        "export",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--format",
        format,
    ]);
    let files = parts(out, format);
    assert_eq!(files.len(), 1, "{format}: {files:?}");
    files[0].clone()
}

/// Every part file under `dir` with extension `ext`, sorted.
fn parts(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = common::files_under(dir);
    out.retain(|p| p.extension().is_some_and(|x| x == ext));
    out.sort_by_key(|p| {
        // part-N by N, not by text.
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        (
            p.parent().unwrap().to_path_buf(),
            name.trim_start_matches("part-").parse::<u64>().unwrap_or(0),
        )
    });
    out
}

fn read_parquet(path: &Path) -> (Vec<RecordBatch>, Vec<(String, Option<String>)>) {
    let file = std::fs::File::open(path).unwrap();
    let b = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    let kv = b
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|kv| (kv.key, kv.value))
        .chain(
            // The Arrow schema stored in the file, with its metadata.
            b.schema()
                .metadata()
                .iter()
                .map(|(k, v)| (format!("arrow:{k}"), Some(v.clone()))),
        )
        .collect();
    (b.build().unwrap().map(|r| r.unwrap()).collect(), kv)
}

fn col<'a, T: 'static>(b: &'a RecordBatch, name: &str) -> &'a T {
    b.column_by_name(name)
        .unwrap_or_else(|| panic!("no column {name}"))
        .as_any()
        .downcast_ref::<T>()
        .unwrap_or_else(|| panic!("column {name} has another type"))
}

/// The rows of `batches` as `inspect --csv` would print them.
fn as_csv_rows(batches: &[RecordBatch]) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for b in batches {
        let db = col::<Int64Array>(b, "db");
        let ty = col::<StringArray>(b, "type");
        let key = col::<BinaryArray>(b, "key");
        let mem = col::<Int64Array>(b, "memory");
        let enc = col::<StringArray>(b, "encoding");
        let el = col::<Int64Array>(b, "elements");
        let big = col::<Int64Array>(b, "largest_element");
        let exp = col::<TimestampMillisecondArray>(b, "expire_at");
        for i in 0..b.num_rows() {
            rows.push(vec![
                db.value(i).to_string(),
                ty.value(i).to_string(),
                csv_key(key.value(i)),
                if mem.is_null(i) {
                    String::new()
                } else {
                    mem.value(i).to_string()
                },
                if enc.is_null(i) {
                    "?".into()
                } else {
                    enc.value(i).to_string()
                },
                el.value(i).to_string(),
                big.value(i).to_string(),
                if exp.is_null(i) {
                    String::new()
                } else {
                    iso8601(exp.value(i))
                },
            ]);
        }
    }
    rows
}

fn inspect_csv(file: &Path) -> Vec<Vec<String>> {
    let out = bitlens(&["inspect", "--csv", file.to_str().unwrap()]);
    let mut r = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(out.stdout.as_slice());
    r.records()
        .map(|rec| rec.unwrap().iter().map(str::to_string).collect())
        .collect()
}

#[test]
fn parquet_rows_equal_inspect_csv_on_all_six_servers() {
    for server in SERVERS {
        let rdb = conformance(server);
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().to_str().unwrap();
        bitlens(&[
            "export",
            rdb.to_str().unwrap(),
            "--out",
            out,
            "--cluster",
            "conf",
            "--instance",
            server,
        ]);
        let files = parts(dir.path(), "parquet");
        assert_eq!(files.len(), 1, "{server}: {files:?}");
        // The hive layout: cluster=conf/batch=<ctime>/instance=<server>/part-0.parquet.
        let rel = files[0].strip_prefix(dir.path()).unwrap();
        let comps: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let aux = bitlens::rdb::peek_aux(&std::fs::read(&rdb).unwrap())
            .unwrap()
            .1;
        let ctime = aux
            .iter()
            .find(|(k, _)| k == b"ctime")
            .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
            .expect("ctime aux");
        assert_eq!(
            comps,
            [
                "cluster=conf".to_string(),
                format!("batch={ctime}"),
                format!("instance={server}"),
                "part-0.parquet".into()
            ],
            "{server}"
        );
        let (batches, kv) = read_parquet(&files[0]);
        assert!(
            kv.contains(&("bitlens.schema_version".into(), Some("2".into()))),
            "{server}: {kv:?}"
        );
        assert!(
            kv.contains(&("arrow:bitlens.schema_version".into(), Some("2".into()))),
            "{server}: {kv:?}"
        );
        // The partition lives in the path only: every hive reader types it once, from there.
        for name in ["cluster", "batch", "instance"] {
            assert!(
                batches[0].schema().field_with_name(name).is_err(),
                "{server}: {name} stored in the file"
            );
        }
        let got = as_csv_rows(&batches);
        let want = inspect_csv(&rdb);
        assert!(want.len() > 50, "{server}: only {} keys", want.len());
        assert_eq!(got.len(), want.len(), "{server}: row count");
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "{server}: row {i}");
        }
        // The slot and the key's display form.
        for b in &batches {
            let key = col::<BinaryArray>(b, "key");
            let slot = col::<Int32Array>(b, "slot");
            let disp = col::<StringArray>(b, "key_display");
            for i in 0..b.num_rows() {
                assert_eq!(
                    slot.value(i),
                    i32::from(bitlens_views::report::key_slot(key.value(i)))
                );
                assert_eq!(disp.value(i), bitlens::escape::display(key.value(i)));
            }
        }
        println!("{server}: {} rows equal inspect --csv", got.len());
    }
}

/// The class figures against the engine's own commands on the same snapshot: BITCOUNT for
/// bitmaps, PFCOUNT for HLLs, GEOPOS of every member inside the bounding box (and some on
/// each edge).
#[test]
fn class_figures_match_the_commands() {
    let rdb = conformance("redis-7.4.1");
    let dir = tempfile::tempdir().unwrap();
    let mut batches = Vec::new();
    let opts = bitlens_export::ScanOptions::default();
    let src = bitlens_export::Source::new(&rdb, std::fs::File::open(&rdb).unwrap());
    bitlens_export::scan_file(&src, &opts, &mut |b| {
        batches.push(b);
        Ok(())
    })
    .unwrap();
    drop(dir);
    let snap = bitlens::rdb::load_rdb(&std::fs::read(&rdb).unwrap(), &Default::default()).unwrap();
    let mut session =
        bitlens::session::Session::from_snapshot(snap, None, bitlens::session::Clock::At(0));
    let int = |r: bitlens::Reply| match r {
        bitlens::Reply::Integer(n) => n,
        other => panic!("{other:?}"),
    };
    let (mut bitmaps, mut hlls, mut geos) = (0, 0, 0);
    for b in &batches {
        let key = col::<BinaryArray>(b, "key");
        let db = col::<Int64Array>(b, "db");
        let class = col::<StringArray>(b, "class");
        let bits = col::<Int64Array>(b, "bits_set");
        let hll = col::<Int64Array>(b, "hll_count");
        let geo: Vec<&Float64Array> = ["geo_min_lon", "geo_min_lat", "geo_max_lon", "geo_max_lat"]
            .iter()
            .map(|c| col::<Float64Array>(b, c))
            .collect();
        for i in 0..b.num_rows() {
            if db.value(i) != 0 {
                continue;
            }
            let k = key.value(i).to_vec();
            match class.value(i) {
                "bitmap" => {
                    bitmaps += 1;
                    let want = int(session.execute(&[b"BITCOUNT".to_vec(), k]));
                    assert_eq!(bits.value(i), want);
                }
                "hll" => {
                    hlls += 1;
                    let want = int(session.execute(&[b"PFCOUNT".to_vec(), k]));
                    assert_eq!(hll.value(i), want);
                }
                "geo" => {
                    geos += 1;
                    let members = session.execute(&[
                        b"ZRANGE".to_vec(),
                        k.clone(),
                        b"0".to_vec(),
                        b"-1".to_vec(),
                    ]);
                    let bitlens::Reply::Array(ms) = members else {
                        panic!()
                    };
                    let mut argv = vec![b"GEOPOS".to_vec(), k];
                    for m in ms {
                        let bitlens::Reply::Bulk(m) = m else { panic!() };
                        argv.push(m);
                    }
                    let bitlens::Reply::Array(pos) = session.execute(&argv) else {
                        panic!()
                    };
                    let (mut lo, mut hi) = ([f64::MAX; 2], [f64::MIN; 2]);
                    for p in pos {
                        let bitlens::Reply::Array(xy) = p else {
                            panic!()
                        };
                        for (j, c) in xy.iter().enumerate() {
                            let bitlens::Reply::Bulk(t) = c else { panic!() };
                            let v: f64 = std::str::from_utf8(t).unwrap().parse().unwrap();
                            lo[j] = lo[j].min(v);
                            hi[j] = hi[j].max(v);
                        }
                    }
                    // GEOPOS prints 17 significant digits of the same decoded position.
                    let got = [
                        geo[0].value(i),
                        geo[1].value(i),
                        geo[2].value(i),
                        geo[3].value(i),
                    ];
                    let want = [lo[0], lo[1], hi[0], hi[1]];
                    for j in 0..4 {
                        assert!((got[j] - want[j]).abs() < 1e-9, "{got:?} vs {want:?}");
                    }
                }
                _ => {
                    assert!(bits.is_null(i) && hll.is_null(i) && geo[0].is_null(i));
                }
            }
        }
    }
    assert!(
        bitmaps > 0 && hlls > 0 && geos > 0,
        "{bitmaps} {hlls} {geos}"
    );
}

/// Arrow IPC holds the same batches as Parquet; CSV and JSON lines the same rows and columns.
#[test]
fn every_format_holds_the_same_rows() {
    let rdb = conformance("valkey-9.1.2");
    let dir = tempfile::tempdir().unwrap();
    let export = |format: &str| export_one(&rdb, &dir.path().join(format), format);
    let (pq, _) = read_parquet(&export("parquet"));
    let pq = bitlens_export::arrow::compute::concat_batches(&pq[0].schema(), &pq).unwrap();
    let ipc = std::fs::File::open(export("arrow")).unwrap();
    let reader = bitlens_export::arrow::ipc::reader::FileReader::try_new(ipc, None).unwrap();
    let schema = reader.schema();
    assert_eq!(
        schema
            .metadata()
            .get("bitlens.schema_version")
            .map(String::as_str),
        Some("2")
    );
    let ipc: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    let ipc = bitlens_export::arrow::compute::concat_batches(&schema, &ipc).unwrap();
    assert_eq!(pq.columns(), ipc.columns());
    let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    let csv = std::fs::read_to_string(export("csv")).unwrap();
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    assert_eq!(
        r.headers().unwrap().iter().collect::<Vec<_>>(),
        names.iter().map(String::as_str).collect::<Vec<_>>()
    );
    let recs: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    assert_eq!(recs.len(), pq.num_rows());
    let mem = col::<Int64Array>(&pq, "memory");
    let disp = col::<StringArray>(&pq, "key_display");
    for (i, rec) in recs.iter().enumerate() {
        assert_eq!(&rec[2], disp.value(i));
        assert_eq!(rec[5], mem.value(i).to_string());
    }
    let jsonl = std::fs::read_to_string(export("jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), pq.num_rows());
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(l["key_display"], disp.value(i));
        assert_eq!(l["memory"], mem.value(i));
    }
}

/// Small batches and parts: part-0 … part-N hold every row once, in file order.
#[test]
fn rows_roll_over_into_parts() {
    let rdb = conformance("redis-7.0.15");
    let dir = tempfile::tempdir().unwrap();
    bitlens(&[
        "export",
        rdb.to_str().unwrap(),
        "--out",
        dir.path().to_str().unwrap(),
        "--batch-rows",
        "7",
        "--rows-per-file",
        "20",
        "--batch",
        "b1",
    ]);
    let files = parts(dir.path(), "parquet");
    let mut all = Vec::new();
    for f in &files {
        let (b, _) = read_parquet(f);
        let rows: usize = b.iter().map(|b| b.num_rows()).sum();
        assert!(rows <= 21, "{f:?}: {rows} rows");
        assert!(f.to_string_lossy().contains("/batch=b1/instance=dump.rdb/"));
        all.extend(as_csv_rows(&b));
    }
    let want = inspect_csv(&rdb);
    assert!(files.len() >= want.len() / 21, "{} parts", files.len());
    assert_eq!(all, want);
}

/// Several files at once (two jobs): files sharing a name are named by their folders (every
/// node's dump.rdb), a collision is refused under `--instance-from file`, and a truncated
/// snapshot is reported with its offset while the other files are exported.
#[test]
fn many_files_collisions_and_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let a = conformance("redis-6.0.9");
    let b = conformance("valkey-8.1.8");
    let bytes = std::fs::read(&b).unwrap();
    let cut = dir.path().join("cut.rdb");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let out = dir.path().join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_bitlens"))
        .args(["export", "-j", "2", "--batch", "x", "--out"])
        .arg(&out)
        .args([&a, &b, &cut])
        .output()
        .unwrap();
    // a and b share the name dump.rdb: each is named by its folder; cut.rdb fails with an
    // offset.
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("would both be"), "{err}");
    assert!(err.contains("cut.rdb") && err.contains("offset"), "{err}");
    let mut files = parts(&out, "parquet");
    files.sort();
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(files[0].ends_with("cluster=default/batch=x/instance=redis-6.0.9/part-0.parquet"));
    assert!(files[1].ends_with("cluster=default/batch=x/instance=valkey-8.1.8/part-0.parquet"));
    // By file name only, the second dump.rdb is refused, naming both.
    let out2 = dir.path().join("out2");
    let o = Command::new(env!("CARGO_BIN_EXE_bitlens"))
        .args(["export", "--instance-from", "file", "--batch", "x", "--out"])
        .arg(&out2)
        .args([&a, &b])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("would both be"), "{err}");
    assert_eq!(parts(&out2, "parquet").len(), 1);
    // No half-written part is left behind.
    let leftovers: Vec<PathBuf> = parts(&out, "tmp");
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// A snapshot without keys still gets its partition (one empty part with the schema); a file
/// that is not an RDB snapshot is refused before anything is written; `--instance` names one
/// file only.
#[test]
fn empty_snapshots_and_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.rdb");
    // RDB 11 header, EOF, no checksum.
    std::fs::write(&empty, b"REDIS0011\xff\0\0\0\0\0\0\0\0").unwrap();
    let out = dir.path().join("out");
    bitlens(&[
        "export",
        empty.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let files = parts(&out, "parquet");
    assert_eq!(files.len(), 1);
    assert!(files[0].ends_with("cluster=default/batch=unknown/instance=empty.rdb/part-0.parquet"));
    let (batches, kv) = read_parquet(&files[0]);
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 0);
    assert!(kv.contains(&("bitlens.schema_version".into(), Some("2".into()))));

    let junk = dir.path().join("junk.rdb");
    std::fs::write(&junk, b"").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_bitlens"))
        .args(["export", "--out"])
        .arg(dir.path().join("out2"))
        .arg(&junk)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("empty file"));
    assert!(!dir.path().join("out2").exists());

    let o = Command::new(env!("CARGO_BIN_EXE_bitlens"))
        .args(["export", "--instance", "x", "--out"])
        .arg(dir.path().join("out3"))
        .args([&empty, &empty])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    // A partition value that cannot name a directory.
    let o = Command::new(env!("CARGO_BIN_EXE_bitlens"))
        .args(["export", "--batch", "a/b", "--out"])
        .arg(dir.path().join("out4"))
        .arg(&empty)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot name a partition directory"));
}

/// `idle_s` and `lfu_freq` are what the writer recorded (RDB_OPCODE_IDLE / _FREQ), on each
/// installed server: under `allkeys-lfu` (with `lfu-decay-time 0`, so nothing decays) every
/// key's `lfu_freq` is its `OBJECT FREQ` at the SAVE and `idle_s` is null; under
/// `allkeys-lru` `idle_s` lies between `OBJECT IDLETIME` read just before and just after the
/// SAVE (keys left alone 2 s, others touched) and `lfu_freq` is null; with the default
/// `noeviction` both are null. The server's own replies are the reference.
#[test]
fn idle_and_lfu_columns_are_the_writers() {
    use bitlens_difftest::{RedisServer, ServerKind};
    let servers: Vec<RedisServer> = ServerKind::ALL
        .into_iter()
        .filter_map(|k| RedisServer::start_kind_if_installed(k, &["--lfu-decay-time", "0"]))
        .collect();
    if servers.is_empty() {
        eprintln!("skipped: no server installed (scripts/servers.sh)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let int = |s: &RedisServer, argv: &[&[u8]]| -> i64 {
        String::from_utf8_lossy(&s.cli_output(argv))
            .trim()
            .parse()
            .unwrap_or_else(|e| panic!("{}: {argv:?}: {e}", s.kind().name()))
    };
    // One export of `rdb` as JSON lines: key -> (idle_s, lfu_freq).
    let export = |name: &str,
                  rdb: &[u8]|
     -> std::collections::BTreeMap<String, (Option<i64>, Option<i64>)> {
        let file = dir.path().join(format!("{name}.rdb"));
        std::fs::write(&file, rdb).unwrap();
        let part = export_one(&file, &dir.path().join(name), "jsonl");
        let text = std::fs::read_to_string(part).unwrap();
        text.lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (
                    v["key_display"].as_str().unwrap().to_string(),
                    (v["idle_s"].as_i64(), v["lfu_freq"].as_i64()),
                )
            })
            .collect()
    };
    let keys: Vec<String> = (0..20).map(|i| format!("k:{i}")).collect();
    // Commands on one connection per server (`cli_output` starts a client per command).
    let send = |s: &RedisServer, argv: &[&[u8]]| {
        let argv: Vec<Vec<u8>> = argv.iter().map(|a| a.to_vec()).collect();
        let reply = s.raw_connection().query(&argv);
        assert!(
            !reply.starts_with(b"-"),
            "{}: {argv:?}: {reply:?}",
            s.kind().name()
        );
    };
    let gets = |s: &RedisServer, key: &str, n: usize| {
        let mut c = s.raw_connection();
        for _ in 0..n {
            c.query(&[b"GET".to_vec(), key.as_bytes().to_vec()]);
        }
    };
    for s in &servers {
        for (i, k) in keys.iter().enumerate() {
            send(s, &[b"SET", k.as_bytes(), format!("v{i}").as_bytes()]);
        }
    }
    // noeviction (the default): neither opcode is written.
    for s in &servers {
        let rows = export(&format!("{}-noeviction", s.kind().name()), &s.save_rdb());
        assert_eq!(rows.len(), keys.len(), "{}", s.kind().name());
        assert!(
            rows.values().all(|r| *r == (None, None)),
            "{}: {rows:?}",
            s.kind().name()
        );
    }
    // allkeys-lfu: counters raised by reads (logarithmic, randomized: the server says).
    for s in &servers {
        send(s, &[b"CONFIG", b"SET", b"maxmemory-policy", b"allkeys-lfu"]);
        for (i, k) in keys.iter().enumerate() {
            gets(s, k, i * 20);
        }
        let freq: Vec<i64> = keys
            .iter()
            .map(|k| int(s, &[b"OBJECT", b"FREQ", k.as_bytes()]))
            .collect();
        assert!(freq.iter().any(|&f| f > 5), "{}: {freq:?}", s.kind().name());
        let rows = export(&format!("{}-lfu", s.kind().name()), &s.save_rdb());
        for (k, f) in keys.iter().zip(&freq) {
            assert_eq!(rows[k], (None, Some(*f)), "{}: {k}", s.kind().name());
        }
    }
    // allkeys-lru: half the keys idle for 2 s, the others touched just before the SAVE.
    for s in &servers {
        send(s, &[b"CONFIG", b"SET", b"maxmemory-policy", b"allkeys-lru"]);
        for k in &keys {
            gets(s, k, 1);
        }
    }
    std::thread::sleep(std::time::Duration::from_millis(2100));
    for s in &servers {
        for k in keys.iter().step_by(2) {
            gets(s, k, 1);
        }
        let idle = |s: &RedisServer| -> Vec<i64> {
            keys.iter()
                .map(|k| int(s, &[b"OBJECT", b"IDLETIME", k.as_bytes()]))
                .collect()
        };
        let before = idle(s);
        let rdb = s.save_rdb();
        let after = idle(s);
        assert!(
            before.iter().skip(1).step_by(2).all(|&t| t >= 2),
            "{}: {before:?}",
            s.kind().name()
        );
        let rows = export(&format!("{}-lru", s.kind().name()), &rdb);
        for (i, k) in keys.iter().enumerate() {
            let (idle_s, freq) = rows[k];
            let idle_s = idle_s.unwrap_or_else(|| panic!("{}: {k}: no idle_s", s.kind().name()));
            assert!(
                (before[i]..=after[i]).contains(&idle_s) && freq.is_none(),
                "{}: {k}: idle_s {idle_s}, OBJECT IDLETIME {} before and {} after the SAVE",
                s.kind().name(),
                before[i],
                after[i]
            );
        }
    }
}

/// The export of every recorded server's file is byte for byte the same on one decoding thread
/// as with the default thread count (every core), in every format, files decoded in parallel
/// included (`-j 3`).
#[test]
fn one_thread_writes_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = SERVERS.iter().map(|s| conformance(s)).collect();
    for format in ["parquet", "csv", "jsonl", "arrow"] {
        let mut trees = Vec::new();
        for (name, threads) in [
            ("one", &["--threads", "1"][..]),
            ("default", &[][..]),
            ("j3", &["-j", "3"][..]),
        ] {
            let out = dir.path().join(format!("{format}-{name}"));
            let mut args = vec!["export", "--batch", "b", "--format", format];
            args.extend(threads);
            args.extend(["--out", out.to_str().unwrap()]);
            args.extend(files.iter().map(|f| f.to_str().unwrap()));
            bitlens(&args);
            let tree: Vec<(PathBuf, Vec<u8>)> = parts(&out, format)
                .into_iter()
                .map(|p| {
                    (
                        p.strip_prefix(&out).unwrap().to_path_buf(),
                        std::fs::read(&p).unwrap(),
                    )
                })
                .collect();
            assert_eq!(tree.len(), SERVERS.len(), "{format} {name}: {tree:?}");
            trees.push((name, tree));
        }
        for (name, tree) in &trees[1..] {
            assert!(
                tree == &trees[0].1,
                "{format}: {name} differs from one thread"
            );
        }
    }
}

/// A file that cannot be opened (missing, a directory, empty) is reported with its code and
/// left out, as a bad snapshot is; the other files are exported and the exit status is 1. The
/// same file under another spelling is refused rather than exported as a second instance.
#[test]
fn unopenable_files_are_left_out_and_repeats_refused() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("a").join("dump.rdb");
    std::fs::create_dir_all(good.parent().unwrap()).unwrap();
    std::fs::copy(conformance("redis-7.4.1"), &good).unwrap();
    let empty = dir.path().join("empty.rdb");
    std::fs::write(&empty, b"").unwrap();
    let again = dir.path().join("a").join("..").join("a").join("dump.rdb");
    let out = dir.path().join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_bitlens"))
        .args(["export", "--batch", "x", "--out"])
        .arg(&out)
        .arg(&good)
        .arg(dir.path().join("missing.rdb"))
        .arg(dir.path())
        .arg(&empty)
        .arg(&again)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    for code in ["error[not-found]", "error[is-a-directory]", "error[empty]"] {
        assert!(err.contains(code), "{code}: {err}");
    }
    assert!(err.contains("are the same file, given twice"), "{err}");
    let files = parts(&out, "parquet");
    assert_eq!(files.len(), 1, "{files:?}");
    // The one exported file is the good one, whole.
    let out_text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out_text.lines().count(), 1, "{out_text}");
    let keys = inspect_csv(&good).len();
    assert!(
        out_text.starts_with(&format!("{}: {keys} keys -> ", good.display())),
        "{out_text}"
    );
}
