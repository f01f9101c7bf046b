//! Decoding while downloading (wasm32 only): an [`RdbStream`] takes the snapshot's bytes as
//! the fetch body reader delivers them and decodes every complete record at once (the core's
//! push reader, [`RdbFeeder`], the one reader of every load of the glue);
//! [`Engine::load_rdb_stream`] then installs the decoded databases. The keys, errors and
//! offsets are those of `loadRdb` on the whole file.
//!
//! ```js
//! const s = new RdbStream(0, { patterns: ['uv:*'] });
//! s.announceLen(Number(res.headers.get('Content-Length'))); // when known
//! for await (const chunk of res.body) {
//!   const [decoded, received] = s.push(chunk);
//! }
//! const keys = engine.loadRdbStream(s); // consumes `s`
//! ```

use wasm_bindgen::prelude::*;

use super::{database, load_options, progress_function, view_options, Engine};
use crate::types::{LoadRdbOptions, LzfJob};
use bitlens::dialect::Profile;
use bitlens::rdb::{FeedProgress, RdbFeeder};
use bitlens::session::Clock;
use bitlens_views::report::UnionSink;
use tsify::Ts;

/// An RDB file being decoded while it arrives. `new RdbStream(db, options)` takes
/// `loadRdb`'s `db` and options (`patterns`, `checksum`, `compat`, `clock`; `onProgress` is
/// not used: `push` returns the progress). Feed it with `push(bytes)`, then hand it to
/// `engine.loadRdbStream(stream)`. Dropping it (`free()`) cancels the load and leaves the
/// engine untouched.
#[wasm_bindgen]
pub struct RdbStream {
    feeder: RdbFeeder<UnionSink>,
    db: u64,
    view: (Option<&'static Profile>, Clock),
}

fn progress_array(p: FeedProgress) -> Vec<f64> {
    vec![p.decoded as f64, p.received as f64]
}

#[wasm_bindgen]
impl RdbStream {
    /// A stream selecting database `db` (default 0) with `loadRdb`'s options. Throws for bad
    /// options.
    #[wasm_bindgen(constructor)]
    pub fn new(db: Option<f64>, options: Option<Ts<LoadRdbOptions>>) -> Result<RdbStream, JsError> {
        let options = crate::types::options(options)?;
        let db = database(db)?;
        let opts = load_options(&options.patterns, options.checksum)?;
        let view = view_options(options.compat.as_deref(), &options.clock)?;
        // `onProgress` is not called (the caller pushes the bytes), but checked as loadRdb does.
        progress_function(&options.on_progress)?;
        Ok(RdbStream {
            feeder: RdbFeeder::new(opts, UnionSink::one_file()),
            db,
            view,
        })
    }

    /// Takes the next bytes of the file and decodes every record they complete; returns
    /// `[decodedBytes, receivedBytes]`. Throws `loadRdb`'s error (offset, key) for corrupt
    /// input met so far; a truncated file is only known at `loadRdbStream`.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<f64>, JsError> {
        let p = self
            .feeder
            .push(bytes)
            .map_err(|e| crate::rdb_error(e, "cannot load RDB snapshot"))?;
        Ok(progress_array(p))
    }

    /// Notes the file's full length in bytes (a `File`'s size, a download's Content-Length)
    /// before the first `push`: the bound under which the file's RESIZEDB key count sizes
    /// the keyspace once, instead of growing it while the keys arrive (in wasm, grown memory
    /// is never given back). A hint only: bytes beyond it are still read, and fewer are a
    /// truncation as ever. Throws for a length that is not a non-negative integer.
    #[wasm_bindgen(js_name = announceLen)]
    pub fn announce_len(&mut self, bytes: f64) -> Result<(), JsError> {
        let bytes = crate::whole_arg("announceLen: bytes", bytes, 0.0)?;
        self.feeder.announce_len(bytes);
        Ok(())
    }

    /// `[decodedBytes, receivedBytes]` so far.
    pub fn progress(&self) -> Vec<f64> {
        progress_array(self.feeder.progress())
    }

    /// Hands the decompression of the file's LZF strings of `minBytes` to 16 MiB
    /// (decompressed) to the caller, for a pool of decode workers: from now on the stream
    /// stops before a record holding such a string until its bytes are supplied, and lists
    /// it, with the other large strings of the bytes held after it (at most 128 MiB in
    /// flight), in `takeJobs`. Call `takeJobs` after every `push` and `supply`, decompress
    /// each job with `lzfDecompress(job.data, job.len)` and give the result to
    /// `supply(job.offset, bytes)` (`null` when that failed: the stream decompresses it
    /// itself). Keys, errors and offsets stay those of `loadRdb`; jobs still open at
    /// `loadRdbStream` are decompressed there. Call before the first `push`; throws for a
    /// `minBytes` that is not a positive integer.
    #[wasm_bindgen(js_name = offloadLzf)]
    pub fn offload_lzf(&mut self, min_bytes: f64) -> Result<(), JsError> {
        let min_bytes = crate::whole_arg("offloadLzf: minBytes", min_bytes, 1.0)?;
        self.feeder.offload_lzf(min_bytes);
        Ok(())
    }

    /// The decompression jobs planned since the last call, in file order (each with a copy of
    /// its compressed bytes); none unless `offloadLzf` was called.
    #[wasm_bindgen(js_name = takeJobs)]
    pub fn take_jobs(&mut self) -> Result<Vec<Ts<LzfJob>>, JsError> {
        let jobs = self.feeder.take_jobs();
        jobs.iter()
            .map(|job| {
                let data = self.feeder.job_data(job).unwrap_or_default();
                crate::types::result(&LzfJob {
                    offset: job.offset as f64,
                    len: job.len as f64,
                    data: js_sys::Uint8Array::from(data),
                })
            })
            .collect()
    }

    /// Hands back the job at `offset` (`LzfJob.offset`): its decompressed bytes, or `null`
    /// to have the stream decompress it; then decodes what the bytes held and supplied
    /// complete, as `push` does. Returns `[decodedBytes, receivedBytes]`; throws `push`'s
    /// errors. Bytes of another length than the job's, and offsets of no open job, are
    /// ignored (the stream decompresses that string itself).
    pub fn supply(&mut self, offset: f64, bytes: Option<Vec<u8>>) -> Result<Vec<f64>, JsError> {
        let p = self
            .feeder
            .supply(offset as u64, bytes)
            .map_err(|e| crate::rdb_error(e, "cannot load RDB snapshot"))?;
        Ok(progress_array(p))
    }

    /// The offset of the job the stream waits on (`LzfJob.offset`), if it waits on one:
    /// declining it (`supply(offset, null)`) when no decode worker has started it has the
    /// stream decompress it at once, with no copies.
    pub fn awaiting(&self) -> Option<f64> {
        self.feeder.awaiting().map(|o| o as f64)
    }

    /// Jobs handed out by `takeJobs` and not yet supplied.
    #[wasm_bindgen(js_name = openJobs)]
    pub fn open_jobs(&self) -> f64 {
        self.feeder.open_jobs() as f64
    }

    /// Keys decoded so far (every database).
    #[wasm_bindgen(js_name = keysDecoded)]
    pub fn keys_decoded(&self) -> f64 {
        self.feeder.sink().union.keys() as f64
    }
}

#[wasm_bindgen]
impl Engine {
    /// Ends `stream`'s input (consuming the stream), decodes what is left, checks the
    /// trailer, and replaces the engine's databases with the decoded ones, as `loadRdb` does
    /// for the whole file: returns the number of keys of the selected database alive at the
    /// clock. Throws `loadRdb`'s error for a truncated or corrupt file; the engine's previous
    /// content is then kept.
    #[wasm_bindgen(js_name = loadRdbStream)]
    pub fn load_rdb_stream(&mut self, stream: RdbStream) -> Result<f64, JsError> {
        let RdbStream { feeder, db, view } = stream;
        let (header, loaded) = feeder
            .finish()
            .map_err(|e| crate::rdb_error(e, "cannot load RDB snapshot"))?;
        Ok(self.replace(loaded.into_databases(), db, &header, view))
    }
}

/// Decompresses `data`, an RDB LZF string's compressed bytes, into exactly `len` bytes (a
/// decode worker's half of `RdbStream.offloadLzf`). Returns `undefined` when the data is
/// corrupt or of another length: the stream then decompresses it itself, and its error names
/// the offset.
#[wasm_bindgen(js_name = lzfDecompress)]
pub fn lzf_decompress(data: &[u8], len: f64) -> Option<Vec<u8>> {
    if !(len >= 0.0 && len.fract() == 0.0 && len <= bitlens::rdb::MAX_LZF_JOB_BYTES as f64) {
        return None;
    }
    bitlens::rdb::lzf::decompress(data, len as usize).ok()
}
