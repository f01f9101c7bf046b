//! The one way every front end (the CLI, Python, `export`, the panel's engine) opens
//! snapshots: a [`LoadSpec`] (patterns, checksum, compat, clock, on-duplicate, names, threads,
//! the limit on one value) opens one or more [`Source`]s (paths with the `fs` feature, byte
//! slices, chunk streams) into one [`Loaded`]: the session answering commands, the writer's
//! profile, per-file facts and the first file's header.
//!
//! Several sources are one keyspace (a cluster's shards), read one after the other into one
//! [`rdb::UnionBuilder`], whose keyspaces are sized before the first key from the sum of the
//! files' RESIZEDB counts (read from each file's first [`HEAD_BYTES`]); a key in two files is
//! decided by [`rdb::OnDuplicate`]. What users type for the options is parsed here once
//! ([`rdb::OnDuplicate`]'s and [`Clock`]'s `FromStr`, [`Profile::parse`]), and the hints an
//! error gets (the option that skips a failed checksum, the one that raises the limit on one
//! value) are one table per front end ([`Words`]: [`CLI`], [`PYTHON`]).

#[cfg(feature = "fs")]
pub mod fs;
#[cfg(feature = "fs")]
pub use fs::*;

use crate::dialect::Profile;
use crate::rdb::{self, ChunkSource, DuplicateKey, Header, LoadOptions, OnDuplicate, RdbError};
use crate::session::{Clock, Session};

/// Bytes of a file's start read to learn about it before loading it (its writer, its first
/// database's RESIZEDB count): 64 KiB, which holds the header and aux fields of every writer
/// (Valkey's `slot-info` fields come after the first SELECTDB).
pub const HEAD_BYTES: usize = 64 << 10;

/// Bytes an RDB file is read at a time per decoding thread (4 MiB). It was 8 MiB: the
/// 336 MB bench file loads as fast with 4 (0.77-0.86 s on 2 threads, 0.98-1.24 s on one, both
/// sizes in one run), and the key-heavy file's `query` peaks 8 MB lower on 2 threads.
pub const FILE_CHUNK: usize = 4 << 20;

/// How a front end names the options an error's reader can change: the words added to an
/// error whose cause one of them removes. One table per front end ([`CLI`], [`PYTHON`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Words {
    /// Added after a failed CRC-64 check ([`rdb::RdbErrorKind::Checksum`]): `: ` and this.
    pub no_checksum: &'static str,
    /// Added after a value over the limit ([`rdb::RdbErrorKind::TooLarge`]): `; ` and this.
    pub raise_limit: &'static str,
    /// Added after a key held by two files ([`DuplicateKey`]): `; ` and this.
    pub keep_one: &'static str,
}

/// The CLI's option names (`--no-checksum`, `--max-value-bytes`, `--on-duplicate`).
pub const CLI: Words = Words {
    no_checksum: "--no-checksum",
    raise_limit: "--max-value-bytes raises it",
    keep_one: "--on-duplicate first|last keeps one",
};

/// Python's argument names (`bitlens.open(..., checksum=False)`...).
pub const PYTHON: Words = Words {
    no_checksum: "checksum=False",
    raise_limit: "max_value_bytes= raises it",
    keep_one: "open(..., on_duplicate='first'|'last') keeps one",
};

impl Words {
    /// `e`'s text (the core's [`RdbError`] display) with the hint of the option that removes
    /// its cause, in this front end's words.
    pub fn error_text(&self, e: &RdbError) -> String {
        match e.kind {
            rdb::RdbErrorKind::Checksum => format!("{e}: {}", self.no_checksum),
            rdb::RdbErrorKind::TooLarge => format!("{e}; {}", self.raise_limit),
            _ => e.to_string(),
        }
    }

    /// `d`'s text ([`DuplicateKey::describe`], files named by `name`) with the hint of the
    /// option that keeps one of the two entries.
    pub fn duplicate_text(&self, d: &DuplicateKey, name: impl Fn(usize) -> String) -> String {
        format!("{}; {}", d.describe(name), self.keep_one)
    }
}

/// One input of [`LoadSpec::open`].
pub enum Source<'a> {
    /// A file, opened through [`open_input`] (a FIFO, socket or device is refused at once)
    /// and read in windows.
    #[cfg(feature = "fs")]
    Path(&'a std::path::Path),
    /// The whole snapshot in memory.
    Bytes(&'a [u8]),
    /// A random-access stream of known length (a browser `Blob`, a file handle), read in
    /// windows of [`LoadSpec::window`] bytes.
    Chunks(&'a mut dyn ChunkSource),
}

/// What to open and how (see the module docs). `Default`: every key of every database,
/// checksums verified, the writer's profile, the snapshot's clock, a key in two files refused,
/// one decoding thread, Redis' own limit on one value.
#[derive(Debug, Clone)]
pub struct LoadSpec {
    /// Only keys matching one of these Redis globs are loaded (empty: every key).
    pub patterns: Vec<Vec<u8>>,
    /// Only keys of this database are loaded (`None`: every database).
    pub db: Option<u64>,
    /// Verify the CRC-64 trailer (when not zero).
    pub verify_checksum: bool,
    /// Answer as this server instead of the writer, refusing what its loader refuses.
    pub compat: Option<&'static Profile>,
    /// The clock expiry is judged at.
    pub clock: Clock,
    /// What a key held by two sources does.
    pub on_duplicate: OnDuplicate,
    /// The sources' names for messages (index = source; a missing name is the path's
    /// escaped display, or `#N` for a source that is no path).
    pub names: Vec<String>,
    /// Threads that decode values ([`LoadOptions::threads`]; 0 and 1: the calling thread).
    pub threads: usize,
    /// The longest string a load builds, bytes ([`LoadOptions::max_value_bytes`]).
    pub max_value_bytes: u64,
}

impl Default for LoadSpec {
    fn default() -> Self {
        LoadSpec {
            patterns: Vec::new(),
            db: None,
            verify_checksum: true,
            compat: None,
            clock: Clock::Snapshot,
            on_duplicate: OnDuplicate::Error,
            names: Vec::new(),
            threads: 1,
            max_value_bytes: rdb::DEFAULT_MAX_VALUE_BYTES,
        }
    }
}

/// What one source of a [`Loaded`] was.
#[derive(Debug, Clone)]
pub struct FileFacts {
    /// Its name ([`LoadSpec::names`]).
    pub name: String,
    /// Its size, bytes.
    pub bytes: u64,
    /// Its header (format, aux fields, databases, stored checksum, slot records).
    pub header: Header,
    /// Key records of it the union kept or replaced (the keys it contributed, before
    /// duplicates are decided).
    pub keys: u64,
}

/// Sources opened as one keyspace ([`LoadSpec::open`]).
#[derive(Debug)]
pub struct Loaded {
    /// The session answering commands: every database of every source, at the spec's clock,
    /// as [`LoadSpec::compat`] or the writer.
    pub session: Session,
    /// The profile of the first source's writer (from its aux fields and RDB version),
    /// whatever `compat` says.
    pub writer: &'static Profile,
    /// The union's header: the first source's, with every source's slot records counted.
    pub header: Header,
    /// Per source, in the order given.
    pub files: Vec<FileFacts>,
    /// What the caller should tell the user (the sources' writers differ; one file given
    /// twice), one sentence each, without a prefix.
    pub warnings: Vec<String>,
}

/// Why one source could not be loaded.
#[derive(Debug)]
pub enum FileError {
    /// It could not be opened or read (missing, a directory, a FIFO...).
    Io(std::io::Error),
    /// It is not an RDB file ([`wrong_kind`]'s diagnosis: empty, a DUMP payload...).
    WrongKind(rdb::WrongKind),
    /// The snapshot is bad (offset, key and kind inside).
    Rdb(RdbError),
}

/// The stable codes of opening errors, every front end's (the CLI's `error[CODE]`, JS's
/// `EngineError.code`, Python's exception classes): the reader's kinds
/// ([`rdb::RdbErrorKind::name`]: `truncated`, `unsupported-version`, `checksum`,
/// `unknown-type`, `unsupported`, `corrupt`, `incompatible`, `read`, `write`, `cancelled`,
/// `too-large`), `empty` (a 0-byte input), `duplicate-key` (a key in two sources), and for
/// paths `not-found`, `is-a-directory`, `not-a-regular-file` (a FIFO, socket or device,
/// refused without being opened for reading), `permission-denied` and `io` (any other I/O
/// error).
pub const CODES: &[&str] = &[
    "not-found",
    "is-a-directory",
    "not-a-regular-file",
    "permission-denied",
    "io",
    "empty",
    "duplicate-key",
    "truncated",
    "unsupported-version",
    "checksum",
    "unknown-type",
    "unsupported",
    "corrupt",
    "incompatible",
    "read",
    "write",
    "cancelled",
    "too-large",
];

/// The code ([`CODES`]) of an I/O error opening or reading a path: `not-found`,
/// `is-a-directory`, `not-a-regular-file` ([`open_input`]'s refusal), `permission-denied`,
/// else `io`.
pub fn io_code(e: &std::io::Error) -> &'static str {
    #[cfg(feature = "fs")]
    if e.get_ref().is_some_and(|r| r.is::<NotRegularFile>()) {
        return "not-a-regular-file";
    }
    match e.kind() {
        std::io::ErrorKind::NotFound => "not-found",
        std::io::ErrorKind::IsADirectory => "is-a-directory",
        std::io::ErrorKind::PermissionDenied => "permission-denied",
        _ => "io",
    }
}

impl FileError {
    /// The kind of the file's fault: the reader's; for a file that is not an RDB file, what
    /// the reader itself says of it: [`rdb::RdbErrorKind::Truncated`] (at offset 0) for an
    /// empty file, [`rdb::RdbErrorKind::UnsupportedVersion`] for another; `None` for a file
    /// that could not be read.
    pub fn kind(&self) -> Option<rdb::RdbErrorKind> {
        match self {
            FileError::Io(_) => None,
            FileError::WrongKind(rdb::WrongKind::Empty) => Some(rdb::RdbErrorKind::Truncated),
            FileError::WrongKind(_) => Some(rdb::RdbErrorKind::UnsupportedVersion),
            FileError::Rdb(e) => Some(e.kind),
        }
    }

    /// The stable code ([`CODES`]): [`io_code`] of an I/O error, `empty` for an empty file,
    /// `unsupported-version` for another file that is no RDB file, the reader's
    /// [`RdbError::code`].
    pub fn code(&self) -> &'static str {
        match self {
            FileError::Io(e) => io_code(e),
            FileError::WrongKind(rdb::WrongKind::Empty) => "empty",
            FileError::WrongKind(_) => rdb::RdbErrorKind::UnsupportedVersion.name(),
            FileError::Rdb(e) => e.code(),
        }
    }

    /// The byte offset the error is at: the reader's, 0 for a file that is not an RDB file,
    /// `None` for one that could not be read.
    pub fn offset(&self) -> Option<u64> {
        match self {
            FileError::Io(_) => None,
            FileError::WrongKind(_) => Some(0),
            FileError::Rdb(e) => Some(e.offset),
        }
    }

    /// The key the reader was in, when known.
    pub fn key(&self) -> Option<&[u8]> {
        match self {
            FileError::Rdb(e) => e.key.as_deref(),
            _ => None,
        }
    }

    /// The text in `words`' spelling of hints, without the file's name.
    pub fn text(&self, words: &Words) -> String {
        match self {
            FileError::Io(e) => e.to_string(),
            FileError::WrongKind(why) => why.to_string(),
            FileError::Rdb(e) => words.error_text(e),
        }
    }
}

impl std::fmt::Display for FileError {
    /// The CLI's words ([`FileError::text`] with [`CLI`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text(&CLI))
    }
}

impl std::error::Error for FileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FileError::Io(e) => Some(e),
            FileError::WrongKind(_) => None,
            FileError::Rdb(e) => Some(e),
        }
    }
}

/// Why `bytes` given with `flag` (`--rdb` for any command reading an RDB file, `--dump`)
/// are the wrong kind of file ([`rdb::WrongKind::of`]): an empty file, an RDB file given as a
/// DUMP payload, or a DUMP payload given as an RDB file; `None` when they may be right (the
/// reader's own error then says what is wrong). Every command says these the same way.
pub fn wrong_kind(bytes: &[u8], flag: &str) -> Option<rdb::WrongKind> {
    rdb::WrongKind::of(bytes, flag == "--dump")
}

/// Why [`LoadSpec::open`] failed: the one opening error of every front end, with its
/// [`OpenError::code`], [`OpenError::file`] (the index of the source at fault: its path is
/// the caller's `paths[i]`), [`OpenError::offset`] and [`OpenError::key`].
#[derive(Debug)]
pub enum OpenError {
    /// The source at this index (in the order given) could not be loaded: the first such.
    File(usize, FileError),
    /// A key is in two sources under [`OnDuplicate::Error`] (indices in the order given).
    Duplicate(DuplicateKey),
}

impl OpenError {
    /// The stable code ([`CODES`]): the file's [`FileError::code`], or `duplicate-key`.
    pub fn code(&self) -> &'static str {
        match self {
            OpenError::File(_, e) => e.code(),
            OpenError::Duplicate(_) => "duplicate-key",
        }
    }

    /// The index of the source at fault (for a key in two sources, the second).
    pub fn file(&self) -> usize {
        match self {
            OpenError::File(i, _) => *i,
            OpenError::Duplicate(d) => d.second,
        }
    }

    /// The byte offset in that source, when the reader found the error ([`FileError::offset`]).
    pub fn offset(&self) -> Option<u64> {
        match self {
            OpenError::File(_, e) => e.offset(),
            OpenError::Duplicate(_) => None,
        }
    }

    /// The key concerned, when known (the duplicate's key).
    pub fn key(&self) -> Option<&[u8]> {
        match self {
            OpenError::File(_, e) => e.key(),
            OpenError::Duplicate(d) => Some(&d.key),
        }
    }
}

/// The first bytes (up to [`HEAD_BYTES`]) and length of a source, read before loading it.
fn head(src: &mut Source<'_>) -> Option<(Vec<u8>, u64)> {
    match src {
        #[cfg(feature = "fs")]
        Source::Path(p) => {
            use std::io::Read as _;
            // (A FIFO or device is refused here, never opened: its error comes when read.)
            let f = open_input(p).ok()?;
            let len = f.metadata().ok()?.len();
            let mut start = Vec::new();
            f.take(HEAD_BYTES as u64).read_to_end(&mut start).ok()?;
            Some((start, len))
        }
        Source::Bytes(b) => Some((b[..b.len().min(HEAD_BYTES)].to_vec(), b.len() as u64)),
        Source::Chunks(c) => {
            let len = c.len();
            let mut start = vec![0; len.min(HEAD_BYTES as u64) as usize];
            let mut at = 0;
            while at < start.len() {
                match c.read_at(at as u64, &mut start[at..]) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => at += n,
                }
            }
            start.truncate(at);
            Some((start, len))
        }
    }
}

/// The format and aux fields at the start of `src` ([`rdb::peek_aux`] of its first MiB, or of
/// its first 64 MiB when its aux fields run past that): the writer, and so the memory model,
/// known before any key is read. Errors: the source's read error ([`FileError::Io`]) or the
/// reader's error on the start ([`FileError::Rdb`]).
pub fn peek_header(src: &mut dyn ChunkSource) -> Result<(rdb::Format, rdb::AuxFields), FileError> {
    let size = src.len();
    let mut last = None;
    for head_len in [1u64 << 20, 64 << 20] {
        let mut head = vec![0u8; head_len.min(size) as usize];
        let mut got = 0;
        while got < head.len() {
            match src
                .read_at(got as u64, &mut head[got..])
                .map_err(FileError::Io)?
            {
                0 => break,
                n => got += n,
            }
        }
        head.truncate(got);
        match rdb::peek_aux(&head) {
            Ok(w) => return Ok(w),
            Err(e) if size > head_len => last = Some(e),
            Err(e) => return Err(FileError::Rdb(e)),
        }
    }
    Err(FileError::Rdb(last.expect("a failed peek")))
}

/// `the files' writers differ: W1 (A and N more), W2 (B)` when `writers` (per file, its name
/// and its writer's [`rdb::Writer::describe`]) are not all one, each writer with the first
/// file it wrote and how many more; `None` when they agree.
pub fn mixed_writers_of(writers: &[(String, String)]) -> Option<String> {
    // Each distinct writer, in the order first met: its first file and how many more.
    let mut groups: Vec<(&str, usize, usize)> = Vec::new();
    for (i, (_, w)) in writers.iter().enumerate() {
        match groups.iter_mut().find(|g| g.0 == w) {
            Some(g) => g.2 += 1,
            None => groups.push((w, i, 0)),
        }
    }
    if groups.len() < 2 {
        return None;
    }
    let each: Vec<String> = groups
        .iter()
        .map(|&(w, i, more)| match more {
            0 => format!("{w} ({})", writers[i].0),
            n => format!("{w} ({} and {n} more)", writers[i].0),
        })
        .collect();
    Some(format!("the files' writers differ: {}", each.join(", ")))
}

impl LoadSpec {
    /// The reader's options for this spec.
    pub fn load_options(&self) -> LoadOptions {
        LoadOptions {
            verify_checksum: self.verify_checksum,
            loader: self.compat,
            patterns: self.patterns.clone(),
            db: self.db,
            threads: self.threads.max(1),
            max_value_bytes: self.max_value_bytes,
            ..Default::default()
        }
    }

    /// Bytes a stream or file is read at a time: [`FILE_CHUNK`] per decoding thread.
    pub fn window(&self) -> usize {
        FILE_CHUNK * self.threads.max(1)
    }

    /// The name of source `i` ([`LoadSpec::names`], else `fallback`).
    fn name(&self, i: usize, fallback: impl FnOnce() -> String) -> String {
        self.names.get(i).cloned().unwrap_or_else(fallback)
    }

    /// The files at `paths` opened as one keyspace ([`LoadSpec::open`]), named by their
    /// escaped paths unless [`LoadSpec::names`] names them; adds the warning of a file given
    /// twice.
    #[cfg(feature = "fs")]
    pub fn open_paths(&self, paths: &[std::path::PathBuf]) -> Result<Loaded, OpenError> {
        let mut spec = self.clone();
        for (i, p) in paths.iter().enumerate().skip(spec.names.len()) {
            let _ = i;
            spec.names.push(path_display(p));
        }
        let mut sources: Vec<Source<'_>> = paths.iter().map(|p| Source::Path(p)).collect();
        let mut loaded = spec.open(&mut sources)?;
        if let Some(w) = repeated_file(paths) {
            loaded.warnings.push(w);
        }
        Ok(loaded)
    }

    /// The union builder [`LoadSpec::open`] reads `sources` into: deciding a key in two of
    /// them by [`LoadSpec::on_duplicate`], its keyspaces reserved before the first key for the
    /// sum of the sources' RESIZEDB counts (from each one's first [`HEAD_BYTES`], read here;
    /// not when [`LoadSpec::patterns`] select keys), so that no keyspace grows from file to
    /// file. `each_head(i, start)` sees the start read of each source `i` that could be read
    /// (a source that cannot be read is passed over: its error comes when it is loaded).
    pub fn union_builder(
        &self,
        sources: &mut [Source<'_>],
        mut each_head: impl FnMut(usize, &[u8]),
    ) -> rdb::UnionBuilder {
        let mut b = rdb::UnionBuilder::new(self.on_duplicate);
        for (i, s) in sources.iter_mut().enumerate() {
            let Some((start, len)) = head(s) else {
                continue;
            };
            each_head(i, &start);
            if let Some((db, keys)) = rdb::peek_db_size(&start, len) {
                if self.patterns.is_empty() && self.db.is_none_or(|d| d == db) {
                    b.reserve(db, keys);
                }
            }
        }
        b
    }

    /// The sources as one keyspace (see the module docs): errors are the first source's in
    /// the order given ([`OpenError::File`]), or a key in two of them under
    /// [`OnDuplicate::Error`] once every source is read ([`OpenError::Duplicate`]). The
    /// warnings say when the sources' writers differ (the replies follow the first's).
    pub fn open(&self, sources: &mut [Source<'_>]) -> Result<Loaded, OpenError> {
        let opts = self.load_options();
        let mut writers = Vec::new();
        let mut b = self.union_builder(sources, |i, start| {
            if let Some(w) = rdb::identify(start).writer {
                writers.push((self.name(i, || format!("#{i}")), w.describe()));
            }
        });
        let mut files = Vec::with_capacity(sources.len());
        let window = self.window();
        for (i, s) in sources.iter_mut().enumerate() {
            b.start_file();
            let mut keys = 0u64;
            let mut add = |r: rdb::Record<'_>| {
                keys += u64::from(r.value.is_some());
                b.add(r)
            };
            let mut tick = |_: u64, _: u64| Ok(());
            let (visited, bytes) = match s {
                #[cfg(feature = "fs")]
                Source::Path(p) => match open_snapshot(p)
                    .map_err(|e| OpenError::File(i, FileError::Io(e)))?
                {
                    Opened::Rdb(mut file) => {
                        let len = file.metadata().map_or(0, |m| m.len());
                        (
                            rdb::visit_rdb_chunked(&mut file, window, &opts, &mut tick, &mut add),
                            len,
                        )
                    }
                    Opened::Other(bytes) => {
                        if let Some(why) = wrong_kind(&bytes, "--rdb") {
                            return Err(OpenError::File(i, FileError::WrongKind(why)));
                        }
                        (rdb::visit_rdb(&bytes, &opts, &mut add), bytes.len() as u64)
                    }
                },
                Source::Bytes(bytes) => {
                    if let Some(why) = wrong_kind(bytes, "--rdb") {
                        return Err(OpenError::File(i, FileError::WrongKind(why)));
                    }
                    (rdb::visit_rdb(bytes, &opts, &mut add), bytes.len() as u64)
                }
                Source::Chunks(c) => {
                    if c.is_empty() {
                        return Err(OpenError::File(
                            i,
                            FileError::WrongKind(rdb::WrongKind::Empty),
                        ));
                    }
                    let len = c.len();
                    (
                        rdb::visit_rdb_chunked(&mut **c, window, &opts, &mut tick, &mut add),
                        len,
                    )
                }
            };
            let header = visited.as_ref().ok().cloned();
            b.finish_file(visited)
                .map_err(|e| OpenError::File(i, FileError::Rdb(e)))?;
            files.push(FileFacts {
                name: self.name(i, || format!("#{i}")),
                bytes,
                header: header.unwrap_or_default(),
                keys,
            });
        }
        let snap = b.finish().map_err(OpenError::Duplicate)?;
        let header = Header {
            version: snap.version,
            format: snap.format,
            aux: snap.aux.clone(),
            slot_infos: snap.slot_infos,
            ..files.first().map(|f| f.header.clone()).unwrap_or_default()
        };
        let writer = Profile::for_snapshot(&snap.aux, snap.version);
        let session = Session::from_snapshot(snap, self.compat, self.clock);
        let warnings = mixed_writers_of(&writers)
            .map(|w| format!("{w}; replies follow the first file's"))
            .into_iter()
            .collect();
        Ok(Loaded {
            session,
            writer,
            header,
            files,
            warnings,
        })
    }
}

impl Profile {
    /// The profile `name` names ([`Profile::from_name`]), or the error every front end gives:
    /// `unknown profile "x"; one of: redis-6.0, …`.
    pub fn parse(name: &str) -> Result<&'static Profile, String> {
        Profile::from_name(name).ok_or_else(|| {
            format!(
                "unknown profile {name:?}; one of: {}",
                Profile::names().join(", ")
            )
        })
    }
}

impl std::str::FromStr for Clock {
    type Err = crate::session::ClockError;

    /// [`Clock::parse`].
    fn from_str(s: &str) -> Result<Clock, Self::Err> {
        Clock::parse(s)
    }
}

impl std::str::FromStr for OnDuplicate {
    type Err = String;

    /// `error`, `first` or `last` (what a front end given several files does with a key held
    /// by two of them); anything else is `expected error, first or last, got "x"`.
    fn from_str(s: &str) -> Result<OnDuplicate, String> {
        match s {
            "error" => Ok(OnDuplicate::Error),
            "first" => Ok(OnDuplicate::First),
            "last" => Ok(OnDuplicate::Last),
            _ => Err(format!("expected error, first or last, got {s:?}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest RDB 11 file holding `key` = `value` in database 0, no checksum.
    fn rdb_with(key: &[u8], value: &[u8]) -> Vec<u8> {
        let mut f = b"REDIS0011\xfe\x00\x00".to_vec();
        f.push(key.len() as u8);
        f.extend_from_slice(key);
        f.push(value.len() as u8);
        f.extend_from_slice(value);
        f.extend_from_slice(b"\xff\0\0\0\0\0\0\0\0");
        f
    }

    #[test]
    fn bytes_and_chunks_open_alike_and_duplicates_are_refused() {
        let a = rdb_with(b"k", b"1");
        let b = rdb_with(b"j", b"2");
        let spec = LoadSpec::default();
        let mut one = spec
            .open(&mut [Source::Bytes(&a), Source::Bytes(&b)])
            .unwrap();
        let mut a_src: &[u8] = &a;
        let mut b_src: &[u8] = &b;
        let mut two = spec
            .open(&mut [Source::Chunks(&mut a_src), Source::Chunks(&mut b_src)])
            .unwrap();
        for l in [&mut one, &mut two] {
            assert_eq!(l.files.len(), 2);
            assert_eq!((l.files[0].keys, l.files[1].keys), (1, 1));
            assert_eq!(l.files[0].bytes, a.len() as u64);
            assert_eq!(
                l.session.execute(&[b"GET".to_vec(), b"j".to_vec()]),
                crate::Reply::Bulk(b"2".to_vec())
            );
            assert!(l.warnings.is_empty());
        }
        let dup = spec.open(&mut [Source::Bytes(&a), Source::Bytes(&a)]);
        let Err(OpenError::Duplicate(d)) = dup else {
            panic!("{dup:?}")
        };
        assert_eq!((d.key.as_slice(), d.first, d.second), (&b"k"[..], 0, 1));
        let empty = spec.open(&mut [Source::Bytes(&a), Source::Bytes(b"")]);
        let Err(OpenError::File(1, e)) = empty else {
            panic!("{empty:?}")
        };
        assert_eq!(
            (e.kind(), e.code(), e.offset(), e.to_string()),
            (
                Some(rdb::RdbErrorKind::Truncated),
                "empty",
                Some(0),
                "empty file".into()
            )
        );
        let mut nothing: &[u8] = b"";
        let Err(OpenError::File(0, e)) = spec.open(&mut [Source::Chunks(&mut nothing)]) else {
            panic!()
        };
        assert_eq!(e.kind(), Some(rdb::RdbErrorKind::Truncated));
    }

    #[test]
    fn options_parse_once() {
        assert_eq!("last".parse::<OnDuplicate>(), Ok(OnDuplicate::Last));
        assert_eq!(
            "newest".parse::<OnDuplicate>().unwrap_err(),
            "expected error, first or last, got \"newest\""
        );
        assert_eq!("123".parse::<Clock>(), Ok(Clock::At(123)));
        assert!(Profile::parse("redis-9.9x")
            .unwrap_err()
            .starts_with("unknown profile"));
    }

    #[cfg(all(feature = "fs", unix))]
    #[test]
    fn a_fifo_a_directory_and_a_missing_file_are_refused_at_once() {
        let dir = std::env::temp_dir().join(format!("bitlens-open-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("fifo");
        let _ = std::fs::remove_file(&fifo);
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let spec = LoadSpec::default();
        let kind = |p: &std::path::Path| match spec.open_paths(&[p.to_path_buf()]) {
            Err(OpenError::File(0, FileError::Io(e))) => e.kind(),
            other => panic!("{other:?}"),
        };
        assert_eq!(kind(&fifo), std::io::ErrorKind::InvalidInput);
        assert_eq!(kind(&dir), std::io::ErrorKind::IsADirectory);
        assert_eq!(kind(&dir.join("missing")), std::io::ErrorKind::NotFound);
        let null = spec.open_paths(&["/dev/null".into()]).unwrap_err();
        assert!(matches!(
            null,
            OpenError::File(0, FileError::WrongKind(rdb::WrongKind::Empty))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
