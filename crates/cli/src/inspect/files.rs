//! `bitlens inspect A.rdb B.rdb …`: several files as one report, the union of their keys (a
//! cluster's shards), as `bitlens query --rdb A --rdb B` builds one keyspace
//! ([`bitlens::rdb::union`]).
//!
//! Each file is scanned into its own [`super::spill`] (at most [`crate::source::load_threads`]
//! files at once, each spill's in-memory budget a share of [`super::Options::spill_budget`], so
//! memory stays bounded whatever the number of files). The report's passes then read the
//! spills one after the other, in the order given. The clock is the first file's.
//!
//! A key held by two files is an error naming it and both files, unless
//! [`OnDuplicate::First`]/[`OnDuplicate::Last`] says whose row counts. Finding such keys
//! costs nothing for a cluster's shards: a key's hash slot (CRC16) is a function of the key,
//! so only files whose keys share a slot are compared, first by a 64-bit hash of (database,
//! key) per key of the shared slots, then exactly for the hashes seen in two files.
//!
//! The report gains one [`FileRow`] per file: its keys, memory, keys with an expiry and the
//! range of its keys' slots.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
use std::path::PathBuf;

use bitlens::dialect::Profile;
use bitlens::memory::AllocatorChoice;
use bitlens::rdb::{DuplicateKey, OnDuplicate};

use super::spill::{self, KeyStats};
use super::{key_slot, scan, Input, KeyRow, Options, Report, Scan, VisitError};

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
    pub memory: u64,
    pub expires: u64,
    /// The smallest and largest hash slot (CRC16 of the key or its `{tag}`, mod 16384) of
    /// the keys counted, and how many distinct slots they occupy; `None` without keys.
    pub slot_range: Option<(u16, u16)>,
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

/// Rows of a file that another file's entry replaces: per file index, per database, the keys
/// left out. Empty for one file and for a cluster's shards.
#[derive(Debug, Default)]
pub(super) struct Shadowed(Vec<HashMap<u64, HashSet<Vec<u8>>>>);

impl Shadowed {
    /// Whether file `file`'s row of `key` in database `db` is left out.
    pub(super) fn contains(&self, file: usize, db: u64, key: &[u8]) -> bool {
        self.0
            .get(file)
            .and_then(|m| m.get(&db))
            .is_some_and(|s| s.contains(key))
    }

    fn of(&self, file: usize) -> Option<&HashMap<u64, HashSet<Vec<u8>>>> {
        self.0.get(file).filter(|m| !m.is_empty())
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

/// Scans every file, at most [`crate::source::load_threads`] at once (each decodes on the
/// shared pool), each spill holding a share of the budget in memory; the first error in the
/// order given wins.
pub(super) fn scan_all(paths: &[PathBuf], opts: &Options) -> Result<Vec<Scan>, FilesError> {
    let n = paths.len().max(1);
    let per_file = Options {
        spill_budget: (opts.spill_budget / n).max(opts.spill_budget.min(1 << 20)),
        progress: false,
        // Every key by name: its duplicates are found before `--type`/`--min-bytes` choose.
        filter: if n > 1 {
            opts.filter.by_name()
        } else {
            opts.filter.clone()
        },
        ..opts.clone()
    };
    let workers = crate::source::load_threads().clamp(1, n);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<Result<Scan, VisitError>>>> =
        paths.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(p) = paths.get(i) else { break };
                let r = scan(Input::File(p), &per_file);
                let failed = r.is_err();
                *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
                if failed {
                    // Files after this one are not needed for the error; earlier ones are
                    // finished by the other workers (the first error in order wins).
                    next.fetch_max(paths.len(), std::sync::atomic::Ordering::Relaxed);
                }
            });
        }
    });
    let mut scans = Vec::with_capacity(paths.len());
    for (i, m) in slots.into_iter().enumerate() {
        match m.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(Ok(sc)) => scans.push(sc),
            Some(Err(e)) => return Err(FilesError::File(i, e)),
            // Skipped after an earlier file's error; that error was returned above.
            None => unreachable!("a file before {i} failed and returned"),
        }
    }
    Ok(scans)
}

const SLOTS: usize = 16384;

/// A set of hash slots.
#[derive(Clone)]
struct SlotSet(Box<[u64; SLOTS / 64]>);

impl SlotSet {
    fn new() -> SlotSet {
        SlotSet(Box::new([0; SLOTS / 64]))
    }
    fn insert(&mut self, s: u16) {
        self.0[s as usize / 64] |= 1 << (s % 64);
    }
    fn contains(&self, s: u16) -> bool {
        self.0[s as usize / 64] >> (s % 64) & 1 == 1
    }
    fn len(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    fn first(&self) -> Option<u16> {
        (0..SLOTS as u16).find(|&s| self.contains(s))
    }
    fn last(&self) -> Option<u16> {
        (0..SLOTS as u16).rev().find(|&s| self.contains(s))
    }
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
        let mut all = SlotSet::new();
        for_rows(std::slice::from_mut(sc), &Shadowed::default(), |r, _| {
            all.insert(key_slot(&r.key));
        })?;
        slot_sets.push(all);
    }
    let dups = duplicates(&mut scans, &slot_sets)?;
    let mut shadowed = Shadowed(vec![HashMap::new(); scans.len()]);
    let mut lost = vec![0u64; scans.len()];
    if !dups.is_empty() && on == OnDuplicate::Error {
        let ((db, key), files) = dups.iter().min_by(|a, b| a.0.cmp(b.0)).expect("not empty");
        return Err(FilesError::Duplicate(DuplicateKey {
            db: *db,
            key: key.clone(),
            first: files[0],
            second: files[1],
            count: dups.values().map(|f| f.len() as u64 - 1).sum(),
        }));
    }
    for ((db, key), files) in dups {
        let keep = if on == OnDuplicate::First {
            files[0]
        } else {
            files[files.len() - 1]
        };
        for f in files.into_iter().filter(|&f| f != keep) {
            lost[f] += 1;
            shadowed.0[f].entry(db).or_default().insert(key.clone());
        }
    }
    // Each file's row: the keys the report counts of it (filters applied, duplicates
    // dropped).
    let mut rows = Vec::with_capacity(scans.len());
    for (i, (p, sc)) in paths.iter().zip(scans.iter_mut()).enumerate() {
        let mut counted = SlotSet::new();
        let (mut keys, mut memory, mut expires) = (0u64, 0u64, 0u64);
        let one = Shadowed(vec![shadowed.0[i].clone()]);
        for_rows(std::slice::from_mut(sc), &one, |r, _| {
            if opts.filter.admits_row(r, clock_ms) {
                counted.insert(key_slot(&r.key));
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
            shadowed: lost[i],
        });
    }
    Ok((scans, shadowed, rows))
}

/// (database, key) pairs, each with the indices of the files holding it (ascending).
type Holders = HashMap<(u64, Vec<u8>), Vec<usize>>;

/// The (database, key) pairs held by two or more files. Only keys of slots used by two or
/// more files are looked at.
fn duplicates(scans: &mut [Scan], slot_sets: &[SlotSet]) -> std::io::Result<Holders> {
    let mut shared = SlotSet::new();
    let mut seen = SlotSet::new();
    for set in slot_sets {
        for (w, (sh, se)) in set.0.iter().zip(shared.0.iter_mut().zip(seen.0.iter_mut())) {
            *sh |= *se & w;
            *se |= w;
        }
    }
    if shared.len() == 0 {
        return Ok(HashMap::new());
    }
    // A fixed hasher (the same hash in every run), over the keys of shared slots.
    let hasher = BuildHasherDefault::<DefaultHasher>::default();
    let hash = |db: u64, key: &[u8]| hasher.hash_one((db, key));
    let mut first_file: HashMap<u64, usize> = HashMap::new();
    let mut candidates: HashSet<u64> = HashSet::new();
    for (i, sc) in scans.iter_mut().enumerate() {
        for_rows(std::slice::from_mut(sc), &Shadowed::default(), |r, _| {
            if shared.contains(key_slot(&r.key)) {
                let h = hash(r.db, &r.key);
                match first_file.get(&h) {
                    Some(&f) if f != i => {
                        candidates.insert(h);
                    }
                    Some(_) => {}
                    None => {
                        first_file.insert(h, i);
                    }
                }
            }
        })?;
    }
    drop(first_file);
    let mut holders = Holders::new();
    if candidates.is_empty() {
        return Ok(holders);
    }
    for (i, sc) in scans.iter_mut().enumerate() {
        for_rows(std::slice::from_mut(sc), &Shadowed::default(), |r, _| {
            if candidates.contains(&hash(r.db, &r.key)) {
                holders.entry((r.db, r.key.clone())).or_default().push(i);
            }
        })?;
    }
    holders.retain(|_, files| files.len() > 1);
    Ok(holders)
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
