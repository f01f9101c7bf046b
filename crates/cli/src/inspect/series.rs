//! `bitlens inspect --series A.rdb B.rdb …`: snapshots of one instance over time (a week of
//! daily backups), each reported on its own, side by side.
//!
//! The files are ordered by their `ctime` aux field (when the server saved them; files
//! without one come last, in the order given), scanned a core's worth at a time as in
//! [`super::files`], and each gets the one-file report at its own clock (`--clock snapshot`:
//! its ctime) for its totals. The group patterns are found once over the keys of all the
//! snapshots (see [`series`]), so a key has one pattern throughout, and each row gives its
//! keys and memory in every file (0 where a file has none of them) and the growth from the
//! first file to the last, per pattern and in all. Output: text, one JSON document, or CSV (one row per
//! pattern, keys and memory per file, then the growth).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use serde_json::{json, Value as Json};

use super::files::{for_rows, scan_all, FilesError};
use super::patterns::{self, Grouper};
use super::render::{
    human, iso8601, name, name_json, path_json, path_text, path_width, NAME_WIDTH,
};
use super::{report_of, Options, Report, Scan};

/// One snapshot of a series.
#[derive(Debug, Clone)]
pub struct SeriesFile {
    /// The path as given.
    pub path: PathBuf,
    /// When the server saved it (the `ctime` aux field, Unix ms); `None` when absent.
    pub ctime_ms: Option<i64>,
    /// Its own report.
    pub report: Report,
}

/// One group pattern of a database across the series: keys and memory (bytes) in each file,
/// in the series' order (0 where the file has no such row).
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesRow {
    pub db: u64,
    pub pattern: Vec<u8>,
    pub keys: Vec<u64>,
    pub memory: Vec<u64>,
}

impl SeriesRow {
    /// Keys in the last file minus keys in the first.
    pub fn keys_growth(&self) -> i64 {
        growth(&self.keys)
    }
    /// Memory in the last file minus memory in the first, bytes.
    pub fn memory_growth(&self) -> i64 {
        growth(&self.memory)
    }
}

fn growth(v: &[u64]) -> i64 {
    match (v.first(), v.last()) {
        (Some(&a), Some(&b)) => b as i64 - a as i64,
        _ => 0,
    }
}

/// A series report: the files by ctime, and the patterns by the size of their memory growth
/// (largest change first, then database and pattern).
#[derive(Debug, Clone)]
pub struct Series {
    pub files: Vec<SeriesFile>,
    pub rows: Vec<SeriesRow>,
}

/// The `ctime` aux field as Unix ms.
fn ctime_ms(aux: &[(Vec<u8>, Vec<u8>)]) -> Option<i64> {
    aux.iter()
        .find(|(k, _)| k.as_slice() == b"ctime")
        .and_then(|(_, v)| std::str::from_utf8(v).ok()?.parse::<i64>().ok())
        .map(|s| s.saturating_mul(1000))
}

/// The series of the files at `paths` (see the module docs). Errors name the first file (in
/// the order given) that cannot be read.
///
/// The patterns are found over the keys of all the snapshots at once ([`Grouper::count_in`]:
/// a start group counts the most keys one snapshot holds of it), so that a key has the same
/// pattern in every snapshot and each row follows the same keys from the first to the last.
pub fn series(paths: &[PathBuf], opts: &Options) -> Result<Series, FilesError> {
    let scans = scan_all(paths, opts)?;
    // By ctime; files without one last, in the order given (the sort is stable).
    let mut order: Vec<(Option<i64>, PathBuf, Scan)> = paths
        .iter()
        .zip(scans)
        .map(|(p, sc)| (ctime_ms(&sc.header.aux), p.clone(), sc))
        .collect();
    order.sort_by_key(|(t, _, _)| (t.is_none(), *t));
    let n = order.len();
    let f = &opts.filter;
    // Pass 1: start groups over every snapshot's keys; pass 2: classes; then the rows.
    let mut groupers: BTreeMap<u64, Grouper> = BTreeMap::new();
    for (i, (_, _, sc)) in order.iter_mut().enumerate() {
        let clock = sc.clock_ms;
        for_rows(std::slice::from_mut(sc), &Default::default(), |r, _| {
            if f.admits_row(r, clock) {
                groupers.entry(r.db).or_default().count_in(&r.key, i as u32);
            }
        })?;
    }
    groupers.values_mut().for_each(Grouper::seal);
    for (_, _, sc) in order.iter_mut() {
        let clock = sc.clock_ms;
        for_rows(std::slice::from_mut(sc), &Default::default(), |r, _| {
            if f.admits_row(r, clock) {
                if let Some(g) = groupers.get_mut(&r.db) {
                    g.class(&r.key);
                }
            }
        })?;
    }
    let resolved: BTreeMap<u64, patterns::Resolved> =
        groupers.iter().map(|(db, g)| (*db, g.resolve())).collect();
    let mut by_pattern: BTreeMap<(u64, Vec<u8>), SeriesRow> = BTreeMap::new();
    for (i, (_, _, sc)) in order.iter_mut().enumerate() {
        let clock = sc.clock_ms;
        for_rows(std::slice::from_mut(sc), &Default::default(), |r, _| {
            if !f.admits_row(r, clock) {
                return;
            }
            let (Some(g), Some(res)) = (groupers.get(&r.db), resolved.get(&r.db)) else {
                return;
            };
            let pattern = match g.class_of(&r.key).map(|c| res.outcomes[c as usize]) {
                Some(patterns::Outcome::Row(p)) => res.patterns[p as usize].clone(),
                _ => patterns::exact(&r.key),
            };
            let row = by_pattern
                .entry((r.db, pattern))
                .or_insert_with_key(|(db, pattern)| SeriesRow {
                    db: *db,
                    pattern: pattern.clone(),
                    keys: vec![0; n],
                    memory: vec![0; n],
                });
            row.keys[i] += 1;
            row.memory[i] += r.memory_or_zero();
        })?;
    }
    let mut files = Vec::with_capacity(n);
    for (ctime_ms, path, sc) in order {
        files.push(SeriesFile {
            path,
            ctime_ms,
            report: report_of(sc, opts)?,
        });
    }
    let mut rows: Vec<SeriesRow> = by_pattern.into_values().collect();
    rows.sort_by(|a, b| {
        b.memory_growth()
            .unsigned_abs()
            .cmp(&a.memory_growth().unsigned_abs())
            .then_with(|| (a.db, &a.pattern).cmp(&(b.db, &b.pattern)))
    });
    Ok(Series { files, rows })
}

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

impl Series {
    /// Keys and memory of the whole of each file, in the series' order.
    fn totals(&self) -> (Vec<u64>, Vec<u64>) {
        self.files
            .iter()
            .map(|f| (f.report.keys, f.report.memory))
            .unzip()
    }

    /// The text report: the files with their totals, the growth, then per database one row
    /// per pattern (memory in each file, the growth in keys and memory).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let (keys, memory) = self.totals();
        let _ = writeln!(
            out,
            "SERIES: {} snapshots, by ctime; each reported at its own clock, MEMORY estimated on its writer",
            self.files.len()
        );
        let pw = path_width(self.files.iter().map(|f| f.path.as_path()));
        let _ = writeln!(
            out,
            "  {:>3}  {:<pw$}  {:<24} {:>10} {:>10}  ALLOCATOR",
            "#", "FILE", "CTIME (UTC)", "KEYS", "MEMORY"
        );
        for (i, f) in self.files.iter().enumerate() {
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
            self.files.len(),
            growth(&keys),
            signed_human(growth(&memory))
        );
        let mut dbs: Vec<u64> = self.rows.iter().map(|r| r.db).collect();
        dbs.sort_unstable();
        dbs.dedup();
        for db in dbs {
            let rows: Vec<&SeriesRow> = self.rows.iter().filter(|r| r.db == db).collect();
            let w = rows
                .iter()
                .map(|r| name(&r.pattern).chars().count())
                .max()
                .unwrap_or(0)
                .clamp(7, NAME_WIDTH);
            let _ = write!(out, "\ndb{db}: MEMORY per snapshot\n  {:<w$}", "PATTERN");
            for i in 0..self.files.len() {
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

    /// One JSON document: `files` (path, ctime_ms, keys, memory, allocator), `growth` (keys,
    /// memory), `patterns` (db, pattern, keys and memory per file, growth).
    pub fn to_json(&self) -> Json {
        let (keys, memory) = self.totals();
        json!({
            "files": self.files.iter().map(|f| json!({
                "path": path_json(&f.path),
                "ctime_ms": f.ctime_ms,
                "keys": f.report.keys,
                "memory": f.report.memory,
                "expires": f.report.databases.iter().map(|d| d.expires).sum::<u64>(),
                "allocator": f.report.allocator.name(),
                "allocator_reason": f.report.allocator_choice.reason,
            })).collect::<Vec<_>>(),
            "growth": {"keys": growth(&keys), "memory": growth(&memory)},
            "patterns": self.rows.iter().map(|r| json!({
                "db": r.db,
                "pattern": name_json(&r.pattern),
                "keys": r.keys,
                "memory": r.memory,
                "growth": {"keys": r.keys_growth(), "memory": r.memory_growth()},
            })).collect::<Vec<_>>(),
        })
    }

    /// CSV: `database,pattern`, then `keys_i,memory_i` (i from 1) per file in the series' order (the
    /// files' paths and ctimes are the JSON's and the text's), then `keys_growth,memory_growth`;
    /// patterns as the rdbtools-style key cell ([`super::render::csv_key`], then
    /// [`super::render::csv_text`]: a pattern such as `-*` is guarded as `"'-*"`); the growth
    /// columns are numbers, a negative one written as it is.
    pub fn to_csv(&self) -> csv::Result<Vec<u8>> {
        let mut w = super::render::csv_writer(Vec::new());
        let mut header = vec!["database".to_string(), "pattern".to_string()];
        for i in 1..=self.files.len() {
            header.push(format!("keys_{i}"));
            header.push(format!("memory_{i}"));
        }
        header.push("keys_growth".into());
        header.push("memory_growth".into());
        w.write_record(&header)?;
        for r in &self.rows {
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
}
