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
use std::path::PathBuf;

use serde_json::{json, Value as Json};

use super::files::{for_rows, scan_all, FilesError};
use super::json::{name_json, path_json};
use super::patterns::{self, Grouper};
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
    /// The database number.
    pub db: u64,
    /// The group pattern.
    pub pattern: Vec<u8>,
    /// Keys per file, in the series' order.
    pub keys: Vec<u64>,
    /// Memory per file, bytes.
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

/// The last value minus the first (0 for none).
pub fn growth(v: &[u64]) -> i64 {
    match (v.first(), v.last()) {
        (Some(&a), Some(&b)) => b as i64 - a as i64,
        _ => 0,
    }
}

/// A series report: the files by ctime, and the patterns by the size of their memory growth
/// (largest change first, then database and pattern).
#[derive(Debug, Clone)]
pub struct Series {
    /// The files by ctime.
    pub files: Vec<SeriesFile>,
    /// The patterns, largest memory change first.
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

impl Series {
    /// Keys and memory of the whole of each file, in the series' order.
    pub fn totals(&self) -> (Vec<u64>, Vec<u64>) {
        self.files
            .iter()
            .map(|f| (f.report.keys, f.report.memory))
            .unzip()
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
}
