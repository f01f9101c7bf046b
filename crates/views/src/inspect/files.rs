//! `bitlens inspect A.rdb B.rdb …`: several files as one report, the union of their keys (a
//! cluster's shards), as `bitlens query --rdb A --rdb B` builds one keyspace
//! ([`bitlens::rdb::union`]).
//!
//! Each file is scanned into its own [`super::spill`] (at most [`bitlens::open::load_threads`]
//! files at once, each spill's in-memory budget a share of [`super::Options::spill_budget`], so
//! memory stays bounded whatever the number of files). The report's passes then read the
//! spills one after the other, in the order given. The clock is the first file's.
//!
//! A key held by two files is an error naming it and both files, unless
//! [`OnDuplicate::First`]/[`OnDuplicate::Last`] says whose row counts. Such keys are found
//! from the spills by [`crate::overlap`] (nothing to compare for a cluster's shards, which
//! share no hash slot).
//!
//! The report gains one [`FileRow`] per file: its keys, memory, keys with an expiry and the
//! range of its keys' slots.

use std::collections::HashSet;
use std::path::PathBuf;

use crate::memory::AllocatorChoice;
use bitlens::dialect::Profile;
use bitlens::rdb::{DuplicateKey, OnDuplicate};

pub(super) use crate::overlap::Shadowed;
use crate::overlap::{self, SlotSet};

use super::spill::{self, KeyStats};
use super::{scan, Input, KeyRow, Options, Report, Scan, VisitError};

/// One file of a report over several files: what it holds of the keys the report counts
/// (filters applied, expiry judged at the report's clock, the entries another file's copy
/// replaces left out).
#[derive(Debug, Clone, PartialEq)]
pub struct FileRow {
    /// The path as given.
    pub path: PathBuf,
    /// Who wrote it.
    pub writer: bitlens::rdb::Writer,
    /// Its size, bytes.
    pub file_bytes: u64,
    /// Key records in the file, before any filter.
    pub file_keys: u64,
    /// Keys counted, their estimated memory (bytes) and how many have an expiry.
    pub keys: u64,
    /// Memory of its keys counted (after filters and duplicates), bytes.
    pub memory: u64,
    /// Its keys counted with an expiry.
    pub expires: u64,
    /// The smallest and largest hash slot (CRC16 of the key or its `{tag}`, mod 16384) of
    /// the keys counted, and how many distinct slots they occupy; `None` without keys.
    pub slot_range: Option<(u16, u16)>,
    /// Distinct cluster hash slots its keys use.
    pub slots_used: u32,
    /// The allocator its memory is estimated for, and why.
    pub allocator: AllocatorChoice,
    /// Its CRC-64 trailer when it was verified; `None` when absent (0) or not checked.
    pub checksum: Option<u64>,
    /// Its keys left out because another file's entry is kept (`--on-duplicate`).
    pub shadowed: u64,
}

/// Why [`report_files`] or [`for_each_key_files`] stopped.
#[derive(Debug)]
pub enum FilesError {
    /// The file at this index (in the order given) could not be read; the first such file.
    File(usize, VisitError),
    /// A key is in two files under [`OnDuplicate::Error`] (indices in the order given).
    Duplicate(DuplicateKey),
    /// The spill (a temporary file) failed.
    Io(std::io::Error),
}

impl From<std::io::Error> for FilesError {
    fn from(e: std::io::Error) -> Self {
        FilesError::Io(e)
    }
}

/// Calls `f` with every spilled row of `scans`, file by file in order, less the shadowed ones.
pub(super) fn for_rows(
    scans: &mut [Scan],
    shadowed: &Shadowed,
    mut f: impl FnMut(&KeyRow, &KeyStats),
) -> std::io::Result<()> {
    let (mut row, mut stats) = (spill::empty_row(), KeyStats::default());
    for (i, sc) in scans.iter_mut().enumerate() {
        let skip = shadowed.of(i);
        let mut recs = sc.spill.read()?;
        while recs.next_into(&mut row, &mut stats)? {
            if skip.is_some_and(|m| m.get(&row.db).is_some_and(|s| s.contains(&row.key))) {
                continue;
            }
            f(&row, &stats);
        }
    }
    Ok(())
}

/// Scans every file, at most [`bitlens::open::load_threads`] at once (each decodes on the
/// shared pool), each spill holding a share of the budget in memory; the first error in the
/// order given wins.
pub(super) fn scan_all(paths: &[PathBuf], opts: &Options) -> Result<Vec<Scan>, FilesError> {
    let n = paths.len().max(1);
    let per_file = Options {
        spill_budget: (opts.spill_budget / n).max(opts.spill_budget.min(1 << 20)),
        progress: None,
        // Every key by name: its duplicates are found before `--type`/`--min-bytes` choose.
        filter: if n > 1 {
            opts.filter.by_name()
        } else {
            opts.filter.clone()
        },
        ..opts.clone()
    };
    let load = bitlens::rdb::LoadOptions {
        max_value_bytes: opts.max_value_bytes,
        ..Default::default()
    };
    let workers = bitlens::open::file_workers(&load);
    bitlens::open::per_file_at_most(workers, paths, |_, p| scan(Input::File(p), &per_file))
        .map_err(|(i, e)| FilesError::File(i, e))
}

/// Scans the files, finds the keys held by more than one and decides their rows per `on`;
/// returns the scans, the rows left out and each file's row of the report.
fn scan_files(
    paths: &[PathBuf],
    opts: &Options,
    on: OnDuplicate,
) -> Result<(Vec<Scan>, Shadowed, Vec<FileRow>), FilesError> {
    let mut scans = scan_all(paths, opts)?;
    // One clock for the union: the first file's.
    let clock_ms = scans[0].clock_ms;
    for sc in &mut scans {
        sc.clock_ms = clock_ms;
    }
    let mut slot_sets = Vec::with_capacity(scans.len());
    for sc in scans.iter_mut() {
        let mut all = SlotSet::default();
        for_rows(std::slice::from_mut(sc), &Shadowed::default(), |r, _| {
            all.insert_key(&r.key);
        })?;
        slot_sets.push(all);
    }
    let dups = overlap::duplicates(&slot_sets, |i, f| {
        for_rows(
            std::slice::from_mut(&mut scans[i]),
            &Shadowed::default(),
            |r, _| f(r.db, &r.key),
        )
    })?;
    let shadowed = overlap::decide(dups, scans.len(), on).map_err(FilesError::Duplicate)?;
    // Each file's row: the keys the report counts of it (filters applied, duplicates
    // dropped).
    let mut rows = Vec::with_capacity(scans.len());
    for (i, (p, sc)) in paths.iter().zip(scans.iter_mut()).enumerate() {
        let mut counted = SlotSet::default();
        let (mut keys, mut memory, mut expires) = (0u64, 0u64, 0u64);
        let one = Shadowed(vec![shadowed.0[i].clone()]);
        for_rows(std::slice::from_mut(sc), &one, |r, _| {
            if opts.filter.admits_row(r, clock_ms) {
                counted.insert_key(&r.key);
                keys += 1;
                memory += r.memory_or_zero();
                expires += r.expire_at_ms.is_some() as u64;
            }
        })?;
        rows.push(FileRow {
            path: p.clone(),
            writer: sc.header.writer(),
            file_bytes: sc.size,
            file_keys: sc.file_keys.values().sum(),
            keys,
            memory,
            expires,
            slot_range: counted.first().zip(counted.last()),
            slots_used: counted.len(),
            allocator: sc.allocator.clone(),
            checksum: (sc.header.stored_checksum != 0 && opts.verify_checksum)
                .then_some(sc.header.stored_checksum),
            shadowed: shadowed.count(i),
        });
    }
    Ok((scans, shadowed, rows))
}

/// The report of the files at `paths` as one (see the module docs): the figures of the union
/// of their keys, in the order given, plus [`Report::files`] for two or more files (one file:
/// [`super::report_from`]'s report). Errors name the first file that
/// cannot be read, or a key held by two files under [`OnDuplicate::Error`].
pub fn report_files(
    paths: &[PathBuf],
    opts: &Options,
    on: OnDuplicate,
) -> Result<Report, FilesError> {
    let (mut scans, shadowed, files) = scan_files(paths, opts, on)?;
    let profile = opts
        .compat
        .unwrap_or_else(|| Profile::for_snapshot(&scans[0].header.aux, scans[0].header.version));
    let file_keys = files.iter().map(|f| f.file_keys).sum();
    let mut dbs: HashSet<u64> = HashSet::new();
    for sc in &scans {
        dbs.extend(sc.file_keys.keys());
    }
    let mut r = super::build(&mut scans, &shadowed, profile, opts)?;
    r.file_keys = file_keys;
    r.file_databases = dbs.len() as u64;
    r.filtered = opts.filter.is_active();
    if files.len() < 2 {
        // One file: the one-file report, without a FILES table.
        return Ok(r);
    }
    if files
        .iter()
        .any(|f| f.allocator.allocator != files[0].allocator.allocator)
    {
        r.allocator_choice.reason = format!(
            "per file (the files' writers differ; see FILES); the first: {}",
            r.allocator_choice.reason
        );
    }
    // Verified only when every file's trailer was.
    r.checksum_verified = files.iter().all(|f| f.checksum.is_some());
    r.files = files;
    Ok(r)
}

/// Calls `f` with every key the filter admits of the files at `paths` as one (file by file,
/// each in file order, duplicates decided by `on`), for the CSV; returns each file's
/// allocator choice.
pub fn for_each_key_files(
    paths: &[PathBuf],
    opts: &Options,
    on: OnDuplicate,
    mut f: impl FnMut(&KeyRow),
) -> Result<Vec<AllocatorChoice>, FilesError> {
    let (mut scans, shadowed, files) = scan_files(paths, opts, on)?;
    let clock_ms = scans[0].clock_ms;
    for_rows(&mut scans, &shadowed, |row, _| {
        if opts.filter.admits_row(row, clock_ms) {
            f(row);
        }
    })?;
    Ok(files.into_iter().map(|f| f.allocator).collect())
}
