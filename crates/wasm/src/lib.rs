//! The JavaScript API of the bitlens engine (wasm32 only), generated with wasm-bindgen as the
//! `Engine` class. This crate only converts: JS values in, the engine's (`bitlens`) results out.
//!
//! ```js
//! import init, { Engine } from './pkg/bitlens.js';
//! await init();
//! const engine = new Engine();
//! engine.loadRdb(new Uint8Array(await (await fetch('/api/snapshot?match=uv:*')).arrayBuffer()));
//! engine.command(['PFCOUNT', 'uv:page:index:20240520']);   // 1234 (a number)
//! ```
//!
//! Value mapping of [`Engine::command`] (RESP2 reply -> JS): integer -> number (f64; exact up
//! to 2^53), bulk string -> string (UTF-8, invalid bytes replaced by U+FFFD), status -> string,
//! nil bulk / nil array -> `null`, array -> `Array` (nested), error reply -> a thrown `Error`
//! whose `message` is Redis' text (`WRONGTYPE ...`, `ERR syntax error`, ...). Arguments may be
//! strings (sent as UTF-8), numbers (formatted as JS `String(n)` does) or `Uint8Array`s (binary).
//! Counts are always numbers, never BigInt.

#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use std::collections::BTreeMap;

use bitlens::analytics::windows::DayBitmaps;
use bitlens::dialect::Profile;
use bitlens::keyspace::{Keyspace, Value};
use bitlens::rdb::{ChunkSource, LoadOptions, RdbFeeder};
use bitlens::reply::Reply;
use bitlens::session::{snapshot_time_ms, Clock, Session};
use bitlens::string::RedisString;
use bitlens_views::keydetail::{self, Detail, DetailOptions};
use bitlens_views::memory::{Allocator, Model};
use bitlens_views::report::{FileCounter, UnionSink};

/// The analytics behind the panel's charts, as numbers (`retention`, `enumDistribution`, …);
/// the page's chart module (`crates/wasm-charts`) draws them.
pub mod analytics;
/// The typed fast paths (`pfcount`, `getbit`, `commandPacked`, one-buffer argv), in their own
/// file: part of this module (they reach `Engine`'s fields and reply conversion).
pub mod fast;
/// `Engine.overview`: what a view asks after a load, in one call.
mod overview;
/// `Engine.memoryReport` (the panel's memory view), in its own file.
mod report;
/// `RdbStream` and `Engine.loadRdbStream`: decoding while downloading, in its own file.
pub mod stream;
/// The typed options and results (serde + tsify: their TypeScript is in `pkg/bitlens.d.ts`).
pub mod types;

use tsify::Ts;
use types::result;

/// Bytes [`Engine::load_rdbs`] reads from a `Blob` at a time (8 MiB, kept in JS memory: the
/// reader copies [`bitlens::rdb::PUSH_BYTES`] of it at a time into wasm memory).
pub const BLOB_CHUNK: usize = 8 << 20;

/// A `Uint8Array` left in JS memory, read window by window (`subarray` + `copy_to`).
struct JsBytes(Uint8Array);

impl ChunkSource for JsBytes {
    fn len(&self) -> u64 {
        self.0.length() as u64
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        Ok(copy_out(&self.0, offset, buf))
    }
}

/// Copies the bytes of `from` at `offset` into `buf` (as many as fit); returns how many.
fn copy_out(from: &Uint8Array, offset: u64, buf: &mut [u8]) -> usize {
    let end = (offset + buf.len() as u64).min(from.length() as u64);
    if offset >= end {
        return 0;
    }
    let n = (end - offset) as usize;
    from.subarray(offset as u32, end as u32)
        .copy_to(&mut buf[..n]);
    n
}

/// `bytes` as a `Uint8Array`: itself (a Node `Buffer` too), else a copy of an array of
/// numbers or a view of an `ArrayBuffer` (what `Uint8Array`'s constructor makes of it).
/// Anything else (a number would make that many zero bytes) is an `Error` of kind `argument`.
fn js_bytes(bytes: &JsValue) -> Result<Uint8Array, JsError> {
    match bytes.dyn_ref::<Uint8Array>() {
        Some(u) => Ok(u.clone()),
        None if Array::is_array(bytes) || bytes.is_instance_of::<js_sys::ArrayBuffer>() => {
            Ok(Uint8Array::new(bytes))
        }
        None => Err(throw(
            "a snapshot must be a Uint8Array, an array of numbers or an ArrayBuffer",
        )),
    }
}

/// A `Blob` read synchronously with `FileReaderSync` (Web Workers only), [`BLOB_CHUNK`] at a
/// time into JS memory.
struct BlobSource {
    blob: web_sys::Blob,
    reader: web_sys::FileReaderSync,
    /// The last window read: its offset and bytes.
    window: (u64, Uint8Array),
}

impl ChunkSource for BlobSource {
    fn len(&self) -> u64 {
        self.blob.size() as u64
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        let (start, w) = &self.window;
        if offset < *start || offset >= start + w.length() as u64 {
            let end = (offset + BLOB_CHUNK as u64).min(self.len());
            if offset >= end {
                return Ok(0);
            }
            let part = self
                .blob
                .slice_with_f64_and_f64(offset as f64, end as f64)
                .map_err(|e| std::io::Error::other(format!("Blob.slice failed: {e:?}")))?;
            let ab = self.reader.read_as_array_buffer(&part).map_err(|e| {
                std::io::Error::other(format!("FileReaderSync.readAsArrayBuffer failed: {e:?}"))
            })?;
            self.window = (offset, Uint8Array::new(&ab));
        }
        let (start, w) = &self.window;
        Ok(copy_out(w, offset - start, buf))
    }
}

/// The scratch key [`Engine::bitop_or_count`] uses when none is given.
const DEFAULT_SCRATCH: &str = "bitlens:scratch:bitop";

/// A bitlens engine: every database of a loaded snapshot (SELECT switches; the selected one
/// is `ks`), answering Redis read commands exactly as the profile's server does (the
/// snapshot's writer unless `compat` says otherwise), with expiry judged at the clock (the
/// snapshot's `ctime` unless `clock` says otherwise).
#[wasm_bindgen]
pub struct Engine {
    /// Every database, the selected one, the profile replies follow and the clock expiry is
    /// judged at (`None` on a fresh engine: nothing expires): the core's session, as the CLI
    /// has it.
    pub(crate) session: Session,
    /// The snapshot writer's profile.
    writer: &'static Profile,
    /// The loaded snapshot's `ctime`, Unix ms.
    snapshot_ms: Option<i64>,
    /// RDB version of the loaded snapshot (0: none loaded).
    rdb_version: u32,
    /// The loaded snapshot's `used-mem` aux field (what the allocator is inferred from).
    used_mem_aux: Vec<(Vec<u8>, Vec<u8>)>,
    /// The snapshot came from a cluster node (it holds slot records): the allocator
    /// inference then prices per-slot tables.
    cluster_node: bool,
    /// The files of the last [`Engine::load_rdbs`] (empty after any other load).
    pub(crate) files: Vec<FileRow>,
}

/// One file of [`Engine::load_rdbs`]: its name, writer and figures.
pub(crate) struct FileRow {
    pub(crate) name: String,
    pub(crate) writer: String,
    pub(crate) figures: bitlens_views::report::FileFigures,
}

impl Default for Engine {
    fn default() -> Self {
        Self::new()
    }
}

/// Gives the engine the page's clock (`Date.now()`): wasm32-unknown-unknown has none.
fn use_js_clock() {
    bitlens::keyspace::set_wall_clock(|| js_sys::Date::now() as i64);
}

/// Runs when the module is instantiated: the engine's wall clock is the page's.
#[wasm_bindgen(start)]
pub fn start() {
    use_js_clock();
}

#[wasm_bindgen]
impl Engine {
    /// An engine with an empty database.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Engine {
        use_js_clock();
        Engine {
            session: Session::empty(Profile::default_profile()),
            writer: Profile::default_profile(),
            snapshot_ms: None,
            used_mem_aux: Vec::new(),
            cluster_node: false,
            rdb_version: 0,
            files: Vec::new(),
        }
    }

    /// Loads a Redis RDB file (RDB versions 6 to 12: Redis 2.6 to 8.0) and replaces the
    /// engine's databases with all of its databases, selecting `db` (default 0; empty when
    /// the file has no such database). Returns the number of keys of the selected database
    /// alive at the clock.
    ///
    /// `options` (optional object):
    /// - `patterns: (string | Uint8Array)[]` — Redis globs (a `Uint8Array` is a glob's exact
    ///   bytes); keys matching none are skipped without being
    ///   materialised.
    /// - `compat: string` — answer as this profile (`redis-7.0`, `valkey-9.0`, ...) instead of
    ///   the writer (the file's `valkey-ver` / `redis-ver` aux field, else its RDB version).
    /// - `clock: 'snapshot' | 'now' | number` — the clock expiry is judged at (default
    ///   `'snapshot'`: the file's `ctime`, else now; a number is Unix milliseconds).
    /// - `checksum: boolean` — `false` skips the CRC-64 check (default `true`).
    /// - `onProgress(doneBytes, totalBytes)` — called at most every ~1 MiB of input and once
    ///   at the end; an exception it throws stops the load.
    ///
    /// Throws an `Error` naming the byte offset (and the key, when known) for a truncated or
    /// corrupt file; the engine's previous content is then kept.
    ///
    /// The bytes stay in JS memory: they are copied 1 MiB at a time into `RdbStream`'s reader
    /// (the same records, errors and offsets as a whole-buffer read), so the wasm memory
    /// holds the decoded keys and the record being read, not a second copy of the file.
    #[wasm_bindgen(js_name = loadRdb)]
    pub fn load_rdb(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array | number[]")] bytes: JsValue,
        db: Option<f64>,
        options: Option<Ts<types::LoadRdbOptions>>,
    ) -> Result<f64, JsError> {
        let options = types::options(options)?;
        let mut src = JsBytes(js_bytes(&bytes)?);
        let db = database(db)?;
        let opts = load_options(&options.patterns, options.checksum)?;
        let view = view_options(options.compat.as_deref(), &options.clock)?;
        let mut progress = js_progress(progress_function(&options.on_progress)?, None);
        let (header, sink) = RdbFeeder::new(opts, UnionSink::one_file())
            .read_all(&mut src, &mut progress)
            .map_err(|e| rdb_error(e, "cannot load RDB snapshot"))?;
        Ok(self.replace(sink.into_databases(), db, &header, view))
    }

    /// Loads several RDB files as one keyspace, as `bitlens query --rdb A --rdb B` does (a
    /// cluster's shards, one file per node, in the order given), and
    /// replaces the engine's content with it. `sources` holds each file as a `Uint8Array` or,
    /// inside a Web Worker, a `Blob`/`File` (read in bounded windows as
    /// 8 MiB at a time through `FileReaderSync`). Replies follow the first file's writer, expiry is
    /// judged at its clock. Returns the selected database's live key count.
    ///
    /// `options`: those of `loadRdb`, plus
    /// - `names: string[]` — the files' names, for errors and `files()` (default
    ///   `file 1`, `file 2`, ...);
    /// - `onDuplicate: 'error' | 'first' | 'last'` — a key held by two files is refused
    ///   (default; the `Error` names the key and both files), or the first / last file's entry
    ///   is kept;
    /// - `onProgress(doneBytes, totalBytes, fileIndex)` — per file.
    ///
    /// Throws an `Error` naming the file, the byte offset and the key for a bad file (the
    /// first bad one in the order given); the engine's previous content is then kept.
    #[wasm_bindgen(js_name = loadRdbs)]
    pub fn load_rdbs(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "(Uint8Array | Blob)[]")] sources: Array,
        db: Option<f64>,
        options: Option<Ts<types::LoadRdbsOptions>>,
    ) -> Result<f64, JsError> {
        let options = types::options(options)?;
        let db = database(db)?;
        let opts = load_options(&options.patterns, options.checksum)?;
        let view = view_options(options.compat.as_deref(), &options.clock)?;
        let on_progress = progress_function(&options.on_progress)?;
        let on = match options.on_duplicate.unwrap_or_default() {
            types::OnDuplicate::Error => bitlens::rdb::OnDuplicate::Error,
            types::OnDuplicate::First => bitlens::rdb::OnDuplicate::First,
            types::OnDuplicate::Last => bitlens::rdb::OnDuplicate::Last,
        };
        let given = options.names.unwrap_or_default();
        let names: Vec<String> = (0..sources.length() as usize)
            .map(|i| {
                given
                    .get(i)
                    .cloned()
                    .flatten()
                    .unwrap_or_else(|| format!("file {}", i + 1))
            })
            .collect();
        if sources.length() == 0 {
            return Err(throw("loadRdbs needs at least one file"));
        }
        // Each file as a chunk source (a Blob's fails outside a Web Worker: thrown when its
        // turn comes, after the errors of the files before it).
        let mut srcs: Vec<Result<Box<dyn ChunkSource>, JsError>> = (sources.iter())
            .map(|src| match src.dyn_into::<web_sys::Blob>() {
                Ok(blob) => web_sys::FileReaderSync::new()
                    .map(|reader| {
                        let window = (0, Uint8Array::new_with_length(0));
                        Box::new(BlobSource {
                            blob,
                            reader,
                            window,
                        }) as _
                    })
                    .map_err(|_| {
                        throw("loadRdbs reads a Blob only in a Web Worker; pass its bytes")
                    }),
                Err(src) => js_bytes(&src).map(|u| Box::new(JsBytes(u)) as _),
            })
            .collect();
        // The engine's union builder, sized from every file's RESIZEDB count; each file's
        // writer (its memory model) and the first file's clock, known before their keys.
        let spec = bitlens::open::LoadSpec {
            patterns: opts.patterns.clone(),
            on_duplicate: on,
            ..Default::default()
        };
        let mut aux = Vec::new();
        let mut profiles = vec![Profile::default_profile(); srcs.len()];
        let mut union = {
            // (A file that cannot be read is an empty one here: its error comes at its turn.)
            let mut heads: Vec<bitlens::open::Source<'_>> = srcs
                .iter_mut()
                .map(|s| match s {
                    Ok(s) => bitlens::open::Source::Chunks(&mut **s),
                    Err(_) => bitlens::open::Source::Bytes(&[]),
                })
                .collect();
            spec.union_builder(&mut heads, |i, start| {
                if let Ok((format, a)) = bitlens::rdb::peek_aux(start) {
                    profiles[i] = Profile::for_snapshot(&a, format.version);
                    if i == 0 {
                        aux = a;
                    }
                }
            })
        };
        let clock = view.1.resolve(&aux);
        let mut first_slots = 0;
        let mut files = Vec::with_capacity(names.len());
        for (i, src) in srcs.into_iter().enumerate() {
            let mut src = src?;
            union.start_file();
            let figures = Some(FileCounter::new(profiles[i], Some(clock)));
            let mut progress = js_progress(on_progress.clone(), Some(i));
            let sink = UnionSink { union, figures };
            let sink = RdbFeeder::new(opts.clone(), sink)
                .read_all(&mut *src, &mut progress)
                .and_then(|(header, mut sink)| {
                    if i == 0 {
                        first_slots = header.slot_infos;
                    }
                    if let Some(f) = sink.figures.take() {
                        let (name, writer) = (names[i].clone(), header.writer().describe());
                        let figures = f.finish(&header);
                        files.push(FileRow {
                            name,
                            writer,
                            figures,
                        });
                    }
                    sink.union.finish_file(Ok(header))?;
                    Ok(sink)
                })
                .map_err(|e| {
                    let context = format!("cannot load RDB snapshot {}", names[i]);
                    rdb_file_error(e, &context, Some(&names[i]))
                })?;
            union = sink.union;
        }
        let union = union.finish().map_err(|d| {
            throw_error(
                format!(
                    "cannot load RDB snapshots: {}; onDuplicate 'first' or 'last' keeps one",
                    d.describe(|i| names[i].clone())
                ),
                "duplicate-key",
                None,
                Some(&d.key),
                Some(&names[d.second]),
            )
        })?;
        // (The replies follow the first file: its header, whose aux fields the union kept.)
        let first = bitlens::rdb::Header {
            version: union.version,
            aux: union.aux,
            slot_infos: first_slots,
            ..Default::default()
        };
        let keys = self.replace(union.databases, db, &first, view);
        self.files = files;
        Ok(keys)
    }

    /// The files of the last `loadRdbs`, in the order given, each with its writer and figures
    /// (`LoadedFile`: keys alive at the clock, the estimated `MEMORY USAGE` sum on the file's
    /// own writer, the cluster hash slots of its keys). Empty after any other load.
    pub fn files(&self) -> Result<Ts<types::LoadedFiles>, JsError> {
        let files = self.files.iter().map(|f| {
            let g = &f.figures;
            types::LoadedFile {
                name: f.name.clone(),
                writer: f.writer.clone(),
                keys: g.keys as f64,
                expires: g.expires as f64,
                memory: g.memory as f64,
                slot_first: g.slot_range.map(|r| r.0 as f64),
                slot_last: g.slot_range.map(|r| r.1 as f64),
                slots_used: g.slots_used as f64,
                allocator: g.allocator.allocator.name().to_string(),
                allocator_reason: g.allocator.reason.clone(),
            }
        });
        result(&types::LoadedFiles(files.collect()))
    }

    /// Loads a `DUMP` payload (a value, its 2-byte RDB version and CRC-64 trailer) under
    /// `key` (a string or `Uint8Array`), replacing any previous value. `options` (optional):
    /// `checksum: false` skips the CRC-64 check; `ttlMs` gives the key an expiry that many
    /// milliseconds after the engine's clock (now on a fresh engine), so `PTTL` and `keyList`
    /// answer `ttlMs` back; `compat` (a profile name) sets the profile replies follow (without
    /// it, a fresh engine takes the payload's trailer RDB version's writer). Throws an `Error`
    /// naming the byte offset on bad input.
    #[wasm_bindgen(js_name = loadDump)]
    pub fn load_dump(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "KeyName")] key: JsValue,
        bytes: &[u8],
        options: Option<Ts<types::LoadDumpOptions>>,
    ) -> Result<(), JsError> {
        let options = types::options(options)?;
        let key = arg_bytes(&key, 0)?;
        let checksum = options.checksum.unwrap_or(true);
        let ttl = options.ttl_ms;
        // As RESTORE: the TTL is checked before the payload, and one below 0 is refused.
        let expire = match ttl {
            None => None,
            Some(t) if t.is_finite() && t >= 0.0 => {
                let clock = self
                    .session
                    .clock()
                    .map_or_else(js_sys::Date::now, |c| c as f64);
                Some((clock + t.trunc()) as i64)
            }
            Some(t) => return Err(throw(format!("invalid ttlMs {t}"))),
        };
        let value = bitlens::rdb::load_dump_with(bytes, checksum).map_err(|e| {
            let context = format!(
                "cannot load DUMP payload for key {:?}",
                String::from_utf8_lossy(&key)
            );
            // The payload's key is the one given (named in the context, not the error).
            let (kind, offset) = (e.code(), e.offset);
            throw_kind(
                format!("{context} {}", JsRdbError(e)),
                kind,
                Some(offset),
                Some(&key),
            )
        })?;
        if let Some(p) = options.compat.as_deref().map(profile).transpose()? {
            self.session.set_profile(p);
        } else if self.rdb_version == 0 && self.session.databases().values().all(Keyspace::is_empty)
        {
            if let Some(p) = bitlens::rdb::dump_writer(bytes) {
                self.writer = p;
                self.session.set_profile(p);
            }
        }
        self.session.keyspace_mut().insert(key, value, expire);
        Ok(())
    }

    /// Stores raw `GET` bytes under `key` (a string or `Uint8Array`) as a string, replacing
    /// any previous value (the same as `setString`).
    #[wasm_bindgen(js_name = loadString)]
    pub fn load_string(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "KeyName")] key: JsValue,
        bytes: &[u8],
    ) -> Result<(), JsError> {
        self.set_string(key, bytes)
    }

    /// The keys matching the Redis glob `pattern`, sorted by their bytes: how many match, and
    /// the first `limit` with type, encoding, size, memory estimate and TTL (`KeyList`; TTLs
    /// counted from the engine's clock). Keys already expired at the clock are left out unless
    /// `options.expired` is `true` (their `ttlMs` is then negative).
    #[wasm_bindgen(js_name = keyList)]
    pub fn key_list(
        &self,
        pattern: &str,
        limit: f64,
        options: Option<Ts<types::KeyListOptions>>,
    ) -> Result<Ts<types::KeyList>, JsError> {
        if limit.is_nan() || limit < 0.0 {
            return Err(throw(format!("invalid limit {limit}")));
        }
        let expired = types::options(options)?.expired.unwrap_or(false);
        let page = bitlens_views::keypage::key_page(
            self.ks(),
            pattern.as_bytes(),
            limit as usize,
            expired,
        );
        let (total, keys) = (page.total, page.keys);
        let now = self.now_ms();
        let keys = keys
            .iter()
            .map(|k| self.key_info(k, now))
            .collect::<Result<_, _>>()?;
        result(&types::KeyList {
            total: total as f64,
            keys,
        })
    }

    /// The detail view of `key` (`null` when missing): its `KeyInfo` plus, by `kind`, a
    /// bitmap's density, an HLL's register histogram, a GEO set's bounding box and first
    /// points, or a RedisBloom value's figures as its INFO command gives them (`KeyDetail`;
    /// see `bitlens_views::keydetail`). `options`: `buckets` (density ranges, default 256, 1 to
    /// 65536), `maxPoints` (GEO points listed, default 1000).
    #[wasm_bindgen(js_name = keyDetail, unchecked_return_type = "KeyDetail | null")]
    pub fn key_detail(
        &self,
        #[wasm_bindgen(unchecked_param_type = "KeyName")] key: JsValue,
        options: Option<Ts<types::KeyDetailOptions>>,
    ) -> Result<JsValue, JsError> {
        let options = types::options(options)?;
        let key = arg_bytes(&key, 0)?;
        let Some(entry) = self.ks().entry(&key) else {
            return Ok(JsValue::NULL);
        };
        let mut dopts = DetailOptions::default();
        if let Some(b) = options.buckets {
            dopts.buckets = b as usize;
        }
        if let Some(n) = options.max_points {
            dopts.max_points = n as usize;
        }
        let info = self.key_info(&key, self.now_ms())?;
        let detail = detail_kind(keydetail::detail(entry.value, &dopts).or_throw()?);
        types::nullable(Some(&types::KeyDetail { info, detail }))
    }

    /// Removes every key.
    pub fn clear(&mut self) {
        self.session.clear();
    }

    /// What the engine answers as: `{ profile, server, writer, writerProfile, clockMs,
    /// snapshotTimeMs, rdbVersion, selected, databases: [{ db, keys, expired }] }`. `profile`
    /// is the `--compat` name in force (`redis-7.4`), `server` its display name (`Redis
    /// 7.4`), `writer` true when it is the snapshot's writer; `clockMs` the clock expiry is
    /// judged at (`null`: nothing expires), `snapshotTimeMs` the snapshot's `ctime`;
    /// `databases` every loaded database with its live and expired key counts.
    pub fn info(&self) -> Result<Ts<types::EngineInfo>, JsError> {
        result(&self.info_of())
    }

    /// Answers as the profile `name` (`redis-7.0`, `valkey-9.0`, ... as the `compat` load
    /// option takes it) from now on; `null`/`undefined` goes back to the snapshot writer's
    /// profile. Throws for an unknown name, listing the known ones (see `profiles()`).
    #[wasm_bindgen(js_name = setCompat)]
    pub fn set_compat(&mut self, name: Option<String>) -> Result<(), JsError> {
        let compat = name.as_deref().map(profile).transpose()?;
        self.session.set_profile(compat.unwrap_or(self.writer));
        Ok(())
    }

    /// Selects database `db` as `SELECT db` does (throws Redis' error text when out of range).
    pub fn select(&mut self, db: f64) -> Result<(), JsError> {
        self.exec(vec![b"SELECT".to_vec(), js_number_text(db).into_bytes()])
            .map(|_| ())
    }

    /// Stores `value` (raw bytes, as `GET` returned them) under `key` as a string, replacing
    /// any previous value. `key` is a string or a `Uint8Array`.
    #[wasm_bindgen(js_name = setString)]
    pub fn set_string(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "KeyName")] key: JsValue,
        value: &[u8],
    ) -> Result<(), JsError> {
        let key = arg_bytes(&key, 0)?;
        self.session
            .keyspace_mut()
            .set(key, bitlens::rdb::load_string(value.to_vec()));
        Ok(())
    }

    /// Removes `key`; returns whether it existed.
    #[wasm_bindgen(js_name = deleteKey)]
    pub fn delete_key(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "KeyName")] key: JsValue,
    ) -> Result<bool, JsError> {
        let key = arg_bytes(&key, 0)?;
        Ok(self.session.keyspace_mut().remove(&key))
    }

    /// Number of keys (as Redis DBSIZE).
    pub fn dbsize(&self) -> f64 {
        self.ks().len() as f64
    }

    /// Runs one Redis command (`['BITCOUNT', 'k', '0', '-1']`) and returns its reply as plain
    /// JS values (see the module documentation). An error reply is thrown as an `Error` whose
    /// message is Redis' text; an `argv` that is not an array (a string such as
    /// `'BITCOUNT k'`) is a `TypeError`.
    #[wasm_bindgen(unchecked_return_type = "Reply")]
    pub fn command(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Arg[]")] argv: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let reply = self.run(argv_array(argv)?)?;
        Ok(reply_to_js(&reply, false)?)
    }

    /// As `command`, but bulk strings come back as `Uint8Array` (binary safe: raw
    /// bitmap or HyperLogLog bytes from `GET`).
    #[wasm_bindgen(js_name = commandRaw, unchecked_return_type = "RawReply")]
    pub fn command_raw(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Arg[]")] argv: &JsValue,
    ) -> Result<JsValue, JsValue> {
        let reply = self.run(argv_array(argv)?)?;
        Ok(reply_to_js(&reply, true)?)
    }

    /// Runs one command and returns the exact RESP2 bytes Redis would send (errors included,
    /// not thrown; a non-array `argv` is a `TypeError`).
    #[wasm_bindgen(js_name = commandResp)]
    pub fn command_resp(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Arg[]")] argv: &JsValue,
    ) -> Result<Vec<u8>, JsValue> {
        Ok(self.run(argv_array(argv)?)?.to_resp())
    }

    /// Runs one command and returns exactly what `redis-cli` prints for its reply when stdout
    /// is not a terminal (errors included, not thrown), as text (invalid UTF-8 replaced; a
    /// non-array `argv` is a `TypeError`).
    #[wasm_bindgen(js_name = commandCli)]
    pub fn command_cli(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Arg[]")] argv: &JsValue,
    ) -> Result<String, JsValue> {
        let out = self.run(argv_array(argv)?)?.to_redis_cli();
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// `PFADD key element...` with every element in one buffer, for adding many elements
    /// without one JS string per element: element i is `elements[offsets[i]..offsets[i + 1]]`
    /// (bytes), so `offsets` holds one more entry than there are elements (none or one entry:
    /// no element). The registers, the key's bytes and the reply (1 when the key was created or
    /// a register changed, else 0) are exactly those of `PFADD` with the same elements; Redis'
    /// errors (a key of another type, a string that is not a HyperLogLog) are thrown. Throws
    /// when `offsets` decreases or points past `elements`.
    #[wasm_bindgen(js_name = pfaddBatch)]
    pub fn pfadd_batch(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "KeyName")] key: JsValue,
        elements: &[u8],
        offsets: &[u32],
    ) -> Result<f64, JsError> {
        let key = arg_bytes(&key, 0)?;
        if let Some(i) = offsets.windows(2).position(|w| w[0] > w[1]) {
            return Err(throw(format!(
                "pfaddBatch: offsets[{}] = {} is below offsets[{i}] = {}",
                i + 1,
                offsets[i + 1],
                offsets[i]
            )));
        }
        if let Some(&last) = offsets.last().filter(|&&o| o as usize > elements.len()) {
            return Err(throw(format!(
                "pfaddBatch: offset {last} is past the {} element bytes",
                elements.len()
            )));
        }
        let items = offsets
            .windows(2)
            .map(|w| &elements[w[0] as usize..w[1] as usize]);
        let limit = self.session.profile().hll_sparse_max_bytes;
        match bitlens::command::hll::pfadd_elements(self.session.keyspace_mut(), limit, &key, items)
        {
            Reply::Integer(n) => Ok(n as f64),
            Reply::Error(text) => Err(reply_error(text)),
            other => Err(unexpected("PFADD", &other)),
        }
    }

    /// Loads a serialized Roaring bitmap (the portable format of the Java, Go and C
    /// libraries) as a bitmap string under `key`: value v becomes bit offset v. Sparse data
    /// stays sparse. Throws on a malformed Roaring bitmap.
    #[wasm_bindgen(js_name = loadRoaring)]
    pub fn load_roaring(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "KeyName")] key: JsValue,
        bytes: &[u8],
    ) -> Result<(), JsError> {
        let key = arg_bytes(&key, 0)?;
        let s = bitlens::string::roaring::from_roaring(bytes).or_throw()?;
        self.session.keyspace_mut().set(key, Value::String(s));
        Ok(())
    }

    /// The bitmap at `key` as a portable-format Roaring bitmap (`Uint8Array`): bit offset v
    /// becomes value v. A missing key gives an empty bitmap; a non-string key throws Redis'
    /// WRONGTYPE error.
    #[wasm_bindgen(js_name = exportRoaring)]
    pub fn export_roaring(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "KeyName")] key: JsValue,
    ) -> Result<Vec<u8>, JsError> {
        let key = arg_bytes(&key, 0)?;
        let empty = RedisString::default();
        let s = match self.ks().get(&key) {
            Some(Value::String(s)) => s,
            None => &empty,
            Some(_) => return Err(error_reply(Reply::wrong_type())),
        };
        bitlens::string::roaring::to_roaring(s).or_throw()
    }

    /// The number of bits set in any of the strings at `keys`: `BITOP OR scratch key...`
    /// then `BITCOUNT scratch`. The scratch key (default `bitlens:scratch:bitop`) is restored
    /// afterwards (removed, or its previous value put back), so nothing is left behind.
    #[wasm_bindgen(js_name = bitopOrCount)]
    pub fn bitop_or_count(
        &mut self,
        keys: Vec<String>,
        scratch: Option<String>,
    ) -> Result<f64, JsError> {
        let scratch = scratch.unwrap_or_else(|| DEFAULT_SCRATCH.to_string());
        let keys: Vec<&[u8]> = keys.iter().map(|k| k.as_bytes()).collect();
        bitlens_views::keypage::bitop_or_count(&mut self.session.ctx(), &keys, scratch.as_bytes())
            .map(|n| n as f64)
            .or_throw()
    }
}

#[wasm_bindgen]
impl Engine {
    /// Engagement over the daily-active bitmaps at `keys` (chronological; missing keys are
    /// empty days): `{labels, dau, wau, mau, stickiness}`, arrays of numbers, one per key —
    /// daily actives, users active in the 7 / 30 keys ending at each key, and dau/mau (0..1);
    /// `labels` are the days' dates (`YYYY-MM-DD` from each key's trailing digits).
    /// Throws for a key that does not hold a string.
    pub fn engagement(&self, keys: Vec<String>) -> Result<Ts<types::Engagement>, JsError> {
        let e = DayBitmaps::load(self.ks(), &keys).or_throw()?.engagement();
        let nums = |v: &[u64]| v.iter().map(|&n| n as f64).collect();
        result(&types::Engagement {
            dau: nums(&e.dau),
            wau: nums(&e.wau),
            mau: nums(&e.mau),
            stickiness: e.stickiness,
            labels: analytics::labels_of(&keys),
        })
    }

    /// `BITLENS.STREAKHIST` over the bitmaps at `keys` (chronological, the last is "today"):
    /// element `k - 1` is the number of users set in exactly the last `k` keys.
    #[wasm_bindgen(js_name = streakHistogram)]
    pub fn streak_histogram(&self, keys: Vec<String>) -> Result<Vec<f64>, JsError> {
        Ok(DayBitmaps::load(self.ks(), &keys)
            .or_throw()?
            .streak_histogram()
            .into_iter()
            .map(|n| n as f64)
            .collect())
    }
}

/// The profile named `name` (`redis-7.4`; see [`profiles`]); throws for an unknown name,
/// listing the known ones.
fn profile(name: &str) -> Result<&'static Profile, JsError> {
    Profile::from_name(name).ok_or_else(|| {
        throw(format!(
            "unknown profile {name:?}; one of: {}",
            Profile::names().join(", ")
        ))
    })
}

/// The `compat` and `clock` options: the profile and the clock (`clock` a preserved JS value:
/// `'snapshot'`, `'now'` or Unix milliseconds, `undefined`/`null` for the default).
fn view_options(
    compat: Option<&str>,
    clock: &JsValue,
) -> Result<(Option<&'static Profile>, Clock), JsError> {
    let compat = compat.map(profile).transpose()?;
    let clock = if clock.is_undefined() || clock.is_null() {
        Clock::Snapshot
    } else if let Some(n) = clock.as_f64() {
        // Unix milliseconds a JS Date can hold (±8.64e15), not before 1970 (as `--clock`).
        if !(0.0..=8.64e15).contains(&n) {
            return Err(throw(format!(
                "invalid options.clock {}",
                js_number_text(n)
            )));
        }
        Clock::At(n as i64)
    } else {
        let text = clock
            .as_string()
            .ok_or_else(|| throw("options.clock must be 'now', 'snapshot' or a number"))?;
        Clock::parse(&text).or_throw_in(|| "options.clock:".into())?
    };
    Ok((compat, clock))
}

/// The database number to select (default 0).
fn database(db: Option<f64>) -> Result<u64, JsError> {
    match db {
        None => Ok(0),
        Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= u32::MAX as f64 => Ok(n as u64),
        Some(n) => Err(throw(format!("invalid database number {n}"))),
    }
}

/// A whole-number argument `what` (`"offloadLzf: minBytes"`) of at least `min` (and at most
/// 2^53); throws `WHAT must be a positive|non-negative integer, not N` otherwise.
pub(crate) fn whole_arg(what: &str, n: f64, min: f64) -> Result<u64, JsError> {
    if n >= min && n.fract() == 0.0 && n <= 2f64.powi(53) {
        return Ok(n as u64);
    }
    let sign = if min > 0.0 {
        "positive"
    } else {
        "non-negative"
    };
    Err(throw(format!("{what} must be a {sign} integer, not {n}")))
}

/// The `patterns` (a preserved JS value: an array of strings or `Uint8Array`s, or
/// `undefined`/`null`) and `checksum` options as the loader's.
fn load_options(patterns: &JsValue, checksum: Option<bool>) -> Result<LoadOptions, JsError> {
    let mut opts = LoadOptions::default();
    if let Some(c) = checksum {
        opts.verify_checksum = c;
    }
    if !patterns.is_undefined() && !patterns.is_null() {
        let list = patterns
            .dyn_ref::<Array>()
            .ok_or_else(|| throw("options.patterns must be an array of strings"))?;
        for (i, p) in list.iter().enumerate() {
            opts.patterns.push(
                arg_bytes(&p, i)
                    .map_err(|_| throw(format!("options.patterns[{i}] is not a string")))?,
            );
        }
    }
    Ok(opts)
}

/// The `onProgress` option: a function, or `None` when `undefined`/`null`.
fn progress_function(v: &JsValue) -> Result<Option<js_sys::Function>, JsError> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    v.clone()
        .dyn_into::<js_sys::Function>()
        .map(Some)
        .map_err(|_| throw("options.onProgress must be a function"))
}

/// A progress reporter calling `cb(done, total)`, or `cb(done, total, file)` for file index
/// `file`; an exception it throws stops the load.
fn js_progress(
    cb: Option<js_sys::Function>,
    file: Option<usize>,
) -> impl FnMut(u64, u64) -> Result<(), bitlens::rdb::Stop> {
    move |done, total| match &cb {
        None => Ok(()),
        Some(f) => {
            let (d, t) = (
                JsValue::from_f64(done as f64),
                JsValue::from_f64(total as f64),
            );
            match file {
                None => f.call2(&JsValue::NULL, &d, &t),
                Some(i) => f.call3(&JsValue::NULL, &d, &t, &JsValue::from_f64(i as f64)),
            }
            .map(|_| ())
            .map_err(|e| {
                let msg = e
                    .dyn_ref::<js_sys::Error>()
                    .map(|e| String::from(e.message()))
                    .or_else(|| e.as_string())
                    .unwrap_or_else(|| format!("{e:?}"));
                bitlens::rdb::Stop {
                    reason: format!("load stopped by onProgress: {msg}"),
                }
            })
        }
    }
}

/// The one conversion of errors to thrown JavaScript `Error`s, for every export of the glue
/// (`lib.rs`, `fast.rs`, `charts.rs`): the engine's typed errors (`RdbError`, `BlobError`,
/// `LzfError`, `ChartError`, the Roaring codec's, the analytics' and key views' texts) through
/// [`IntoJs`], Redis error replies and the glue's own argument checks through [`throw`]. The
/// thrown `Error`'s `message` is the error's `Display` text, after a context when one is given.
pub(crate) trait IntoJs<T> {
    /// `Err(e)` becomes an `Error` whose message is `e`'s text.
    fn or_throw(self) -> Result<T, JsError>;
    /// `Err(e)` becomes an `Error` whose message is `context()`, a space and `e`'s text
    /// (`cannot load RDB snapshot at offset 9: ...`).
    fn or_throw_in(self, context: impl FnOnce() -> String) -> Result<T, JsError>;
}

impl<T, E: std::fmt::Display> IntoJs<T> for Result<T, E> {
    fn or_throw(self) -> Result<T, JsError> {
        self.map_err(|e| throw(e.to_string()))
    }

    fn or_throw_in(self, context: impl FnOnce() -> String) -> Result<T, JsError> {
        self.map_err(|e| throw(format!("{} {e}", context())))
    }
}

/// A decoding error in the wasm API's words: the core's text, plus the option that skips the
/// check when the CRC-64 trailer does not match.
pub(crate) struct JsRdbError(pub(crate) bitlens::rdb::RdbError);

impl std::fmt::Display for JsRdbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)?;
        if self.0.kind == bitlens::rdb::RdbErrorKind::Checksum {
            f.write_str(": { checksum: false }")?;
        }
        Ok(())
    }
}

#[wasm_bindgen(module = "/js/engine-error.js")]
extern "C" {
    /// `www/engine-error.js`'s `adoptEngineError`: makes the `Error` `err` an `EngineError`.
    #[wasm_bindgen(js_name = adoptEngineError)]
    fn adopt_engine_error(
        err: &JsValue,
        code: &str,
        offset: Option<f64>,
        key: Option<String>,
        path: Option<String>,
    );
}

/// The one place a thrown error is made: an `EngineError` (`www/engine-error.js`) of
/// `message` and `code` (what went wrong, for callers that act on it; also as `kind`), with
/// `offset` (a byte offset of the input), `key` (the key's bytes as UTF-8, lossy for others;
/// the message quotes them exactly, as redis-cli does) and `path` (the file's name) when
/// known. Codes: an RDB or DUMP decoding error's [`bitlens::rdb::RdbError::code`] (its kind's
/// name, or `empty`), `duplicate-key` (two files hold a key), `reply` (a Redis error reply: the
/// message is the server's text) and `argument` (the glue's own checks and every other error).
pub(crate) fn throw_error(
    message: impl AsRef<str>,
    code: &str,
    offset: Option<u64>,
    key: Option<&[u8]>,
    path: Option<&str>,
) -> JsError {
    let error = JsError::new(message.as_ref());
    // A JsError is a handle on the one JS `Error` object: it is adopted through a clone.
    adopt_engine_error(
        &JsValue::from(error.clone()),
        code,
        offset.map(|o| o as f64),
        key.map(|k| String::from_utf8_lossy(k).into_owned()),
        path.map(str::to_string),
    );
    error
}

/// [`throw_error`] of no file.
pub(crate) fn throw_kind(
    message: impl AsRef<str>,
    kind: &str,
    offset: Option<u64>,
    key: Option<&[u8]>,
) -> JsError {
    throw_error(message, kind, offset, key, None)
}

/// An `Error` of kind `argument` (see [`throw_kind`]).
pub(crate) fn throw(message: impl AsRef<str>) -> JsError {
    throw_kind(message, "argument", None, None)
}

/// A decoding error as the `Error` it is thrown as: message `context`, a space and the
/// error's text ([`JsRdbError`]), code, offset and key from the error.
pub(crate) fn rdb_error(e: bitlens::rdb::RdbError, context: &str) -> JsError {
    rdb_file_error(e, context, None)
}

/// [`rdb_error`] of the file named `path`.
pub(crate) fn rdb_file_error(
    e: bitlens::rdb::RdbError,
    context: &str,
    path: Option<&str>,
) -> JsError {
    let (code, offset, key) = (e.code(), e.offset, e.key.clone());
    throw_error(
        format!("{context} {}", JsRdbError(e)),
        code,
        Some(offset),
        key.as_deref(),
        path,
    )
}

/// A Redis error reply's text as an `Error` of kind `reply` (see [`throw_kind`]).
pub(crate) fn reply_error(text: impl AsRef<str>) -> JsError {
    throw_kind(text, "reply", None, None)
}

/// An error reply as the `Error` it is thrown as ([`reply_error`]); any other reply is
/// unexpected here.
fn error_reply(reply: Reply) -> JsError {
    match reply {
        Reply::Error(text) => reply_error(text),
        other => unexpected("a command", &other),
    }
}

impl Engine {
    /// What [`Engine::info`] reports.
    pub(crate) fn info_of(&self) -> types::EngineInfo {
        let profile = self.session.profile();
        let selected = self.session.selected();
        let databases = self
            .session
            .databases()
            .iter()
            .filter(|(&d, ks)| ks.iter_all().next().is_some() || d == selected)
            .map(|(&d, ks)| types::DatabaseInfo {
                db: d as f64,
                keys: ks.len() as f64,
                expired: ks.expired_count() as f64,
            })
            .collect();
        types::EngineInfo {
            profile: profile.name.to_string(),
            server: profile.display_name(),
            writer: profile == self.writer,
            writer_profile: self.writer.name.to_string(),
            clock_ms: self.session.clock().map(|t| t as f64),
            snapshot_time_ms: self.snapshot_ms.map(|t| t as f64),
            rdb_version: self.rdb_version as f64,
            selected: selected as f64,
            databases,
        }
    }

    /// Replaces the databases with loaded ones, selects `db`, sets the profile (`compat` or
    /// the writer named by `aux` / `version`) and the clock; returns the selected database's
    /// live key count.
    fn replace(
        &mut self,
        loaded: BTreeMap<u64, Keyspace>,
        db: u64,
        header: &bitlens::rdb::Header,
        (compat, clock): (Option<&'static Profile>, Clock),
    ) -> f64 {
        let (aux, version) = (header.aux.as_slice(), header.version);
        self.cluster_node = header.slot_infos > 0;
        self.files.clear();
        self.writer = Profile::for_snapshot(aux, version);
        self.snapshot_ms = snapshot_time_ms(aux);
        self.used_mem_aux = aux
            .iter()
            .filter(|(k, _)| k.as_slice() == b"used-mem")
            .cloned()
            .collect();
        self.rdb_version = version;
        self.session = Session::new(
            loaded,
            compat.unwrap_or(self.writer),
            Some(clock.resolve(aux)),
        );
        self.session.select_database(db);
        self.ks().len() as f64
    }

    /// The selected database.
    pub(crate) fn ks(&self) -> &Keyspace {
        self.session.selected_keyspace()
    }

    /// The clock (Unix ms) expiry is judged at, or the wall clock on a fresh engine.
    pub(crate) fn now_ms(&self) -> i64 {
        self.session
            .clock()
            .unwrap_or_else(|| js_sys::Date::now() as i64)
    }

    /// Runs argv in the selected database as the profile's server; SELECT switches.
    pub(crate) fn execute(&mut self, argv: &[Vec<u8>]) -> Reply {
        self.session.execute(argv)
    }

    /// The [`types::KeyInfo`] of an existing key, computed from its value as the engine's
    /// profile (jemalloc) would hold it ([`keydetail::summary`]).
    fn key_info(&self, key: &[u8], now_ms: i64) -> Result<types::KeyInfo, JsError> {
        let entry = self
            .ks()
            .entry_any(key)
            .ok_or_else(|| throw("key vanished while listing"))?;
        let model = Model::new(self.session.profile(), Allocator::Jemalloc);
        let s = keydetail::summary(key, entry, &model, now_ms);
        Ok(types::KeyInfo {
            key: String::from_utf8_lossy(&s.key).into_owned(),
            // The exact bytes (a name that is not UTF-8 is not lost; the panel shows them
            // escaped).
            raw: Uint8Array::from(&s.key[..]),
            type_name: s.type_name.to_string(),
            encoding: s.encoding.to_string(),
            bytes: s.bytes as f64,
            memory: s.memory.map(|m| m as f64),
            ttl_ms: s.ttl_ms.map(|t| t as f64),
        })
    }

    fn run(&mut self, argv: &Array) -> Result<Reply, JsError> {
        if let Some(packed) = fast::bulk_string_argv(argv) {
            // PFADD, the command with many arguments on a hot path, runs on slices of the
            // packed buffer: the same handler body as the command table's, without one
            // allocation per element (about a third of a 1,000-element call in Node).
            let profile = self.session.profile();
            if packed.arg(0).eq_ignore_ascii_case(b"PFADD") && profile.has_command("pfadd") {
                let limit = profile.hll_sparse_max_bytes;
                let elements = (2..packed.len()).map(|i| packed.arg(i));
                let key = packed.arg(1);
                return Ok(bitlens::command::hll::pfadd_elements(
                    self.session.keyspace_mut(),
                    limit,
                    key,
                    elements,
                ));
            }
            return Ok(self.execute(&packed.to_vecs()));
        }
        let mut args = Vec::with_capacity(argv.length() as usize);
        for (i, v) in argv.iter().enumerate() {
            args.push(arg_bytes(&v, i)?);
        }
        Ok(self.execute(&args))
    }

    /// Runs argv; an error reply becomes a `JsError` with Redis' text.
    fn exec(&mut self, argv: Vec<Vec<u8>>) -> Result<Reply, JsError> {
        match self.execute(&argv) {
            Reply::Error(text) => Err(reply_error(text)),
            reply => Ok(reply),
        }
    }
}

/// One command argument from JS: a string (UTF-8), a `Uint8Array` (raw bytes) or a number
/// (its JS `String(n)` text).
fn arg_bytes(v: &JsValue, index: usize) -> Result<Vec<u8>, JsError> {
    if let Some(s) = v.as_string() {
        Ok(s.into_bytes())
    } else if let Some(a) = v.dyn_ref::<Uint8Array>() {
        Ok(a.to_vec())
    } else if let Some(n) = v.as_f64() {
        Ok(js_number_text(n).into_bytes())
    } else {
        Err(throw(format!(
            "argument {index} is not a string, number or Uint8Array"
        )))
    }
}

/// `String(n)` as JavaScript formats it.
fn js_number_text(n: f64) -> String {
    js_sys::Number::from(n)
        .to_string_with_radix(10)
        .map(String::from)
        .unwrap_or_else(|_| n.to_string())
}

/// Converts a reply to JS values; a top-level error reply is returned as `Err`, nested error
/// replies become `Error` objects in the array.
pub(crate) fn reply_to_js(reply: &Reply, binary: bool) -> Result<JsValue, JsError> {
    match reply {
        Reply::Error(text) => Err(reply_error(text)),
        other => Ok(to_js(other, binary)),
    }
}

fn to_js(reply: &Reply, binary: bool) -> JsValue {
    match reply {
        Reply::Integer(n) => JsValue::from_f64(*n as f64),
        Reply::Bulk(b) if binary => Uint8Array::from(b.as_slice()).into(),
        Reply::Bulk(b) => JsValue::from_str(&String::from_utf8_lossy(b)),
        Reply::NullBulk | Reply::NullArray => JsValue::NULL,
        Reply::Status(s) => JsValue::from_str(s),
        Reply::Error(e) => reply_error(e).into(),
        Reply::Array(items) => items
            .iter()
            .map(|r| to_js(r, binary))
            .collect::<Array>()
            .into(),
    }
}

fn unexpected(cmd: &str, reply: &Reply) -> JsError {
    let text = String::from_utf8_lossy(&reply.to_redis_cli()).into_owned();
    throw(format!("unexpected {cmd} reply: {}", text.trim_end()))
}

/// What a file is, by its content, and who wrote it (the core's `bitlens::rdb::identify`). Reads
/// only an RDB file's header and leading aux fields.
#[wasm_bindgen(js_name = snapshotInfo)]
pub fn snapshot_info(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array | number[]")] bytes: &[u8],
) -> Result<Ts<types::SnapshotInfo>, JsError> {
    let id = bitlens::rdb::identify(bytes);
    let format = id.format().map(|f| types::SnapshotFormat {
        family: f.family.name().to_string(),
        rdb_version: f.version as f64,
        magic: f.magic(),
    });
    let writer = id.writer.as_ref().map(|w| types::SnapshotWriter {
        family: w.format.family.name().to_string(),
        rdb_version: w.format.version as f64,
        magic: w.format.magic(),
        server: w.server().to_string(),
        redis_ver: w.redis_ver.clone(),
        valkey_ver: w.valkey_ver.clone(),
        description: w.describe(),
    });
    result(&types::SnapshotInfo {
        kind: id.kind().to_string(),
        description: id.detected.describe(),
        format,
        writer,
        error: id.error.clone(),
    })
}

/// Every server profile the engine can answer as, oldest first per family (`{ name:
/// 'redis-7.4', server: 'Redis 7.4' }`); `name` is what the `compat` option and
/// `Engine.setCompat` take (see `bitlens::dialect::Profile`).
#[wasm_bindgen]
pub fn profiles() -> Result<Ts<types::Profiles>, JsError> {
    result(&types::Profiles(profile_names()))
}

/// What [`profiles`] lists.
pub(crate) fn profile_names() -> Vec<types::ProfileName> {
    let all = bitlens::dialect::PROFILES.iter();
    all.map(|p| types::ProfileName {
        name: p.name.to_string(),
        server: p.display_name(),
    })
    .collect()
}

/// A key view's [`Detail`] as the figures `keyDetail` adds for its kind.
fn detail_kind(detail: Detail) -> types::DetailKind {
    use bitlens::probabilistic::Summary;
    use types::DetailKind as K;
    let n = |v: u64| v as f64;
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let module = |summary: Summary| match summary {
        Summary::Bloom {
            capacity,
            items,
            error_rate,
            size_bytes,
            filters,
            fill_ratio,
            expansion,
        } => K::Bloom {
            capacity: n(capacity),
            items: n(items),
            error_rate,
            size_bytes: n(size_bytes),
            filters: n(filters),
            fill_ratio,
            expansion: expansion.map(n),
        },
        Summary::Cuckoo {
            buckets,
            filters,
            bucket_size,
            items,
            deletes,
            size_bytes,
            fill_ratio,
            expansion,
            max_iterations,
        } => K::Cuckoo {
            buckets: n(buckets),
            filters: n(filters),
            bucket_size: n(bucket_size),
            items: n(items),
            deletes: n(deletes),
            size_bytes: n(size_bytes),
            fill_ratio,
            expansion: n(expansion),
            max_iterations: n(max_iterations),
        },
        Summary::Cms {
            width,
            depth,
            count,
            size_bytes,
        } => K::Cms {
            width: n(width),
            depth: n(depth),
            count: n(count),
            size_bytes: n(size_bytes),
        },
        // A Top-K or t-digest summary comes with its own detail below; a value bitlens does
        // not interpret is `Detail::Other` already.
        Summary::TopK { .. }
        | Summary::TDigest { .. }
        | Summary::VectorSet { .. }
        | Summary::Raw { .. } => K::Other,
    };
    match detail {
        Detail::Bitmap {
            bits,
            bitcount,
            density,
        } => K::Bitmap {
            bits: n(bits),
            bitcount: n(bitcount),
            density,
        },
        Detail::Hll {
            encoding,
            cardinality,
            register_histogram,
        } => K::Hll {
            hll_encoding: encoding.to_string(),
            cardinality: n(cardinality),
            register_histogram: register_histogram.iter().map(|&c| c as f64).collect(),
        },
        Detail::Geo {
            members,
            bbox,
            points,
        } => K::Geo {
            members: n(members),
            bbox,
            points: points
                .into_iter()
                .map(|(m, lon, lat)| types::GeoPoint {
                    member: text(&m),
                    lon,
                    lat,
                })
                .collect(),
        },
        Detail::Bloom { summary } => module(summary),
        Detail::Cuckoo { summary } => module(summary),
        Detail::Cms { summary } => module(summary),
        Detail::TopK { summary, list } => match summary {
            Summary::TopK {
                k,
                width,
                depth,
                decay,
                listed,
                size_bytes,
            } => K::Topk {
                k: n(k),
                width: n(width),
                depth: n(depth),
                decay,
                listed: n(listed),
                size_bytes: n(size_bytes),
                list: list
                    .into_iter()
                    .map(|(item, count)| types::TopKItem {
                        item: text(&item),
                        count: count as f64,
                    })
                    .collect(),
            },
            other => module(other),
        },
        Detail::TDigest { summary, quantiles } => match summary {
            Summary::TDigest {
                compression,
                centroids,
                observations,
                min_max,
                size_bytes,
            } => K::Tdigest {
                compression,
                centroids: n(centroids),
                observations: observations as f64,
                min: min_max.map(|m| m.0),
                max: min_max.map(|m| m.1),
                size_bytes: n(size_bytes),
                quantiles: quantiles
                    .into_iter()
                    .map(|(q, value)| types::QuantilePoint { q, value })
                    .collect(),
            },
            other => module(other),
        },
        Detail::Other => K::Other,
    }
}

/// `argv` as an `Array`, or a `TypeError` naming what was given instead: a string is not split
/// (a command named after its first character would answer otherwise).
fn argv_array(argv: &JsValue) -> Result<&Array, JsValue> {
    if Array::is_array(argv) {
        Ok(argv.unchecked_ref())
    } else {
        let given = if argv.is_string() {
            "a string (split it into arguments first)".to_string()
        } else if argv.is_null() {
            "null".to_string()
        } else {
            format!("a {}", argv.js_typeof().as_string().unwrap_or_default())
        };
        Err(js_sys::TypeError::new(&format!(
            "argv must be an array of arguments, such as ['BITCOUNT', 'key'], not {given}"
        ))
        .into())
    }
}
