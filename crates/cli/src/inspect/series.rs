//! `bitlens inspect --series`' text and CSV ([`bitlens_views::inspect::series`] holds the
//! model and its JSON document).

use std::fmt::Write as _;

use bitlens_views::inspect::series::{growth, Series, SeriesRow};

use super::render::{human, iso8601, name, path_text, path_width, NAME_WIDTH};

/// `+1.5 KiB` / `-512 B` / `0 B`.
fn signed_human(v: i64) -> String {
    match v.signum() {
        1 => format!("+{}", human(v as u64)),
        -1 => format!("-{}", human(v.unsigned_abs())),
        _ => "0 B".into(),
    }
}

fn when(ms: Option<i64>) -> String {
    ms.map_or_else(|| "no ctime".to_string(), iso8601)
}

/// The text report: the files with their totals, the growth, then per database one row
/// per pattern (memory in each file, the growth in keys and memory).
pub fn series_text(s: &Series) -> String {
    let mut out = String::new();
    let (keys, memory) = s.totals();
    let _ = writeln!(
            out,
            "SERIES: {} snapshots, by ctime; each reported at its own clock, MEMORY estimated on its writer",
            s.files.len()
        );
    let pw = path_width(s.files.iter().map(|f| f.path.as_path()));
    let _ = writeln!(
        out,
        "  {:>3}  {:<pw$}  {:<24} {:>10} {:>10}  ALLOCATOR",
        "#", "FILE", "CTIME (UTC)", "KEYS", "MEMORY"
    );
    for (i, f) in s.files.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {:>3}  {:<pw$}  {:<24} {:>10} {:>10}  {}",
            i + 1,
            path_text(&f.path, pw),
            when(f.ctime_ms),
            f.report.keys,
            human(f.report.memory),
            f.report.allocator.name()
        );
    }
    let _ = writeln!(
        out,
        "growth from #1 to #{}: {:+} keys, {} memory",
        s.files.len(),
        growth(&keys),
        signed_human(growth(&memory))
    );
    let mut dbs: Vec<u64> = s.rows.iter().map(|r| r.db).collect();
    dbs.sort_unstable();
    dbs.dedup();
    for db in dbs {
        let rows: Vec<&SeriesRow> = s.rows.iter().filter(|r| r.db == db).collect();
        let w = rows
            .iter()
            .map(|r| name(&r.pattern).chars().count())
            .max()
            .unwrap_or(0)
            .clamp(7, NAME_WIDTH);
        let _ = write!(out, "\ndb{db}: MEMORY per snapshot\n  {:<w$}", "PATTERN");
        for i in 0..s.files.len() {
            let _ = write!(out, " {:>10}", format!("#{}", i + 1));
        }
        let _ = writeln!(out, " {:>10} {:>11}", "Δ KEYS", "Δ MEMORY");
        for r in rows {
            let _ = write!(out, "  {:<w$}", name(&r.pattern));
            for m in &r.memory {
                let _ = write!(out, " {:>10}", human(*m));
            }
            let _ = writeln!(
                out,
                " {:>10} {:>11}",
                format!("{:+}", r.keys_growth()),
                signed_human(r.memory_growth())
            );
        }
    }
    out
}

/// CSV: `database,pattern`, then `keys_i,memory_i` (i from 1) per file in the series' order (the
/// files' paths and ctimes are the JSON's and the text's), then `keys_growth,memory_growth`;
/// patterns as the rdbtools-style key cell ([`super::render::csv_key`], then
/// [`super::render::csv_text`]: a pattern such as `-*` is guarded as `"'-*"`); the growth
/// columns are numbers, a negative one written as it is.
pub fn series_csv(s: &Series) -> csv::Result<Vec<u8>> {
    let mut w = super::render::csv_writer(Vec::new());
    let mut header = vec!["database".to_string(), "pattern".to_string()];
    for i in 1..=s.files.len() {
        header.push(format!("keys_{i}"));
        header.push(format!("memory_{i}"));
    }
    header.push("keys_growth".into());
    header.push("memory_growth".into());
    w.write_record(&header)?;
    for r in &s.rows {
        let mut rec = vec![
            r.db.to_string(),
            super::render::csv_text(&super::render::csv_key(&r.pattern)),
        ];
        for (k, m) in r.keys.iter().zip(&r.memory) {
            rec.push(k.to_string());
            rec.push(m.to_string());
        }
        rec.push(r.keys_growth().to_string());
        rec.push(r.memory_growth().to_string());
        w.write_record(&rec)?;
    }
    w.into_inner().map_err(|e| e.into_error().into())
}
