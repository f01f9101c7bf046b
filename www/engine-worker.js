// The Web Worker behind engine-client.js: one wasm `Engine` living off the page's main thread,
// so loading a large snapshot never freezes the host page.
//
// Protocol (structured-clone messages; engine-client.js is the only intended sender):
//   page -> worker  {type: 'init', wasmUrl?}                 instantiate the wasm module
//   worker -> page  {type: 'ready'} | {type: 'init-error', error: {name, message}}
//   page -> worker  {id, method, args, progress?, engine?}    call engine[method](...args) on
//                   the main engine, or (`engine`: a name) on a side engine of that name, made
//                   on its first call in this same worker and module (the online key browser's
//                   opened key); method 'release' frees a side engine
//   worker -> page  {id, progress: [doneBytes, totalBytes, phase, decodedBytes?]} while a load
//                   runs (progress: true); phase 'download' (bytes received; loadUrl adds the
//                   bytes decoded so far, as it decodes while downloading) or 'decode' (bytes
//                   decoded)
//   worker -> page  {id, ok: true, value} | {id, ok: false, error: {name, message, status?,
//                   component?, serverMessage?, refused?, tooLarge?} (snapshot.js's fields),
//                   kind?, offset?, key?} (the engine's: see EngineError in pkg/bitlens.d.ts)
// Special cases of `method`: 'profiles' and 'snapshotInfo' are the module's functions; 'loadRdb' with a Blob/File source reads it here (through the
// engine's `loadRdbBlob` when it has one: bounded chunks with FileReaderSync, never whole);
// 'loadUrl' [url, db, {token, maxBytes, ...load options}] downloads a snapshot here (fetch body reader,
// snapshot.js) and decodes each piece as it arrives (RdbStream): the page's thread never holds
// or decodes the bytes, and decoding overlaps the download.
// ArrayBuffers in results are transferred back, never copied twice.

import init, { Engine, RdbStream, profiles, snapshotInfo } from '../pkg/bitlens.js';
import { DecodePool, OffloadedLoad } from './decode-pool.js';
import { isMemoryFailure, memoryError, shownUrl, streamSnapshot } from './snapshot.js';

/** Epoch milliseconds on this worker's clock (the page converts them to its own timeline). */
const now = () => performance.timeOrigin + performance.now();
/** When this worker's module began to run (after its script and imports were fetched). */
const STARTED = now();

let engine = null;
/** Side engines by name (`engine` of a message): made on first use, freed by 'release'. */
const sides = new Map();
let wasmMemory = null;
/** The compiled engine module: instantiated here, and posted to the decode workers. */
let wasmModule = null;
/** The decode workers (decode-pool.js), started by the first load that uses them. */
let pool = null;
let ready = null;

/**
 * The decode pool for a load with option `decodeWorkers`, or null to decode in this worker
 * alone. This worker decodes too: the strings it waits on that no decode worker has taken.
 * Default: one worker per core the browser reports beside this worker's (at most 7) from 4
 * cores on, none below (MIN_POOL_CORES). A number is rounded down and capped at the cores the
 * browser reports; anything else, or below 1, means none. The pool is kept for the next loads
 * and started again when one asks for another size.
 */
function decodePool(decodeWorkers) {
  const cores = typeof navigator !== 'undefined' ? Number(navigator.hardwareConcurrency) || 1 : 1;
  const want = decodeWorkers === undefined || decodeWorkers === null
    ? (cores >= MIN_POOL_CORES ? Math.min(7, cores - 1) : 0)
    : Math.min(cores, Math.floor(Number(decodeWorkers)));
  if (!(want >= 1) || !wasmModule) return null;
  if (!pool || pool.size !== want) {
    if (pool) pool.terminate();
    pool = DecodePool.create(wasmModule, want);
  }
  return pool;
}

/**
 * Cores from which loads use decode workers by default. On 2 cores (the bench machine) the
 * pool measured 0.87-0.94x of this worker alone for a download of the 336 MB bench file and
 * 0.92-1.32x for a File (bench/RESULTS.md, runs of 2026-12-05): the LZF work splits evenly,
 * but a job's copies (its compressed bytes out of the engine's memory, the decompressed ones
 * back in) and the download or read compete for the same two cores.
 */
const MIN_POOL_CORES = 4;

/** Compiles the engine module at `url` (streaming when the server says application/wasm). */
async function compileModule(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`bitlens: cannot fetch the engine module ${url}: HTTP ${res.status}`);
  const type = res.headers.get('Content-Type') || '';
  if (typeof WebAssembly.compileStreaming === 'function' && type.startsWith('application/wasm')) {
    return WebAssembly.compileStreaming(res);
  }
  return WebAssembly.compile(await res.arrayBuffer());
}

/** `{name, message}` of anything thrown (wasm-bindgen's JsError arrives as an `Error`). */
function errorInfo(e) {
  if (e && typeof e === 'object' && 'message' in e) {
    const info = { name: String(e.name || 'Error'), message: String(e.message) };
    if (typeof e.status === 'number') info.status = e.status;
    // What failed, as snapshot.js names it (and the server's own message, refused patterns);
    // the engine's kind, byte offset and key.
    for (const k of ['component', 'serverMessage', 'tooLarge', 'kind', 'offset', 'key']) if (e[k] !== undefined) info[k] = e[k];
    if (Array.isArray(e.refused)) info.refused = e.refused.map(String);
    return info;
  }
  return { name: 'Error', message: String(e) };
}

/** The ArrayBuffers of `value` (a typed array, or an array/object holding some) to transfer. */
function transferables(value, out = new Set(), depth = 0) {
  if (!value || typeof value !== 'object' || depth > 3) return out;
  if (ArrayBuffer.isView(value)) {
    const b = value.buffer;
    // Never the wasm memory itself (detaching it would break the engine), never shared memory.
    if (b instanceof ArrayBuffer && b !== (wasmMemory && wasmMemory.buffer)) out.add(b);
  } else if (Array.isArray(value)) {
    for (const v of value) transferables(v, out, depth + 1);
  } else if (Object.getPrototypeOf(value) === Object.prototype) {
    for (const v of Object.values(value)) transferables(v, out, depth + 1);
  }
  return out;
}

/**
 * `loadUrl(url, db, {token, ...options})`: downloads the snapshot at `url` (an absolute URL,
 * `Authorization: Bearer token` when given) with the fetch body reader and decodes it while it
 * downloads: each piece of the body is pushed into an `RdbStream` as it arrives, which decodes
 * every record the bytes so far complete; `engine.loadRdbStream` then ends the input and
 * installs the keys (the engine's previous keys stay until then, and after a failure).
 * Reports [received, total, 'download', decoded] (decoded: input bytes decoded so far), then
 * [decoded, total, 'decode'] once the last bytes are decoded. Resolves with {keys, bytes,
 * writer} (writer: snapshotInfo's of the file's first 64 KiB).
 */
async function loadUrl(engine, url, db, opts = {}, progressId) {
  const { token, onProgress, maxBytes, decodeWorkers, body, ...rest } = opts;
  const what = `loading ${shownUrl(url)}`;
  // At most one message per MiB (and the last one): the page redraws its progress bar for each.
  const post = (phase) => {
    let shown = -Infinity;
    return (done, total, decoded) => {
      if (progressId === undefined || (done - shown < 1 << 20 && done !== total)) return;
      shown = done;
      const progress = [done, total ?? 0, phase];
      if (decoded !== undefined) progress.push(decoded);
      self.postMessage({ id: progressId, progress });
    };
  };
  const downloadProgress = post('download');
  const decodeProgress = post('decode');
  const stream = new RdbStream(db, rest);
  const workers = decodePool(decodeWorkers);
  const offload = workers ? new OffloadedLoad(stream, workers) : null;
  // The file's first bytes, for snapshotInfo's writer.
  const head = new Uint8Array(HEAD_BYTES);
  let headLen = 0;
  let decoded = 0;
  let received;
  // Where the time goes (epoch ms; decodeMs: time spent decoding, overlapped or not).
  const timing = { request: now(), firstByte: null, lastByte: null, decodeEnd: null, decodeMs: 0 };
  let size = null;
  const facts = () => ({ at: decoded, size });
  try {
    received = await streamSnapshot(String(url), async (chunk, total) => {
      size = total;
      if (timing.firstByte === null) {
        timing.firstByte = now();
        // The Content-Length bounds the RESIZEDB hint that sizes the keyspace once.
        if (total !== null) stream.announceLen(total);
      }
      if (headLen < HEAD_BYTES) {
        const n = Math.min(HEAD_BYTES - headLen, chunk.length);
        head.set(chunk.subarray(0, n), headLen);
        headLen += n;
      }
      const t = performance.now();
      if (offload) {
        decoded = (await memoryGuard(what, () => offload.push(chunk), facts))[0];
      } else {
        decoded = memoryGuard(what, () => stream.push(chunk), facts)[0];
      }
      timing.decodeMs += performance.now() - t;
    }, (done, total) => downloadProgress(done, total, decoded), undefined, token, maxBytes, body);
    timing.lastByte = now();
    if (offload) {
      await memoryGuard(what, () => offload.settle(), facts);
      decoded = stream.progress()[0];
    }
  } catch (e) {
    stream.free();
    throw e;
  }
  if (offload) {
    timing.decodeWorkers = workers.size;
    timing.offloadedJobs = offload.jobs;
    timing.offloadedBytes = offload.jobBytes;
    timing.decodedHere = offload.here;
  }
  // (Consumes the stream, also when it throws.)
  const t = performance.now();
  const keys = memoryGuard(what, () => engine.loadRdbStream(stream), () => ({ at: received, size: received }));
  timing.decodeMs += performance.now() - t;
  timing.decodeEnd = now();
  timing.wasmMemoryBytes = wasmMemory ? wasmMemory.buffer.byteLength : null;
  decodeProgress(received, received);
  return { keys, bytes: received, writer: snapshotInfo(head.subarray(0, headLen)).writer ?? null, timing };
}

/**
 * `loadRdb` of a Blob/File with decode workers: the file is read in pieces of BLOB_PIECE
 * bytes into an `RdbStream` whose large LZF strings the pool decompresses, then installed
 * (`loadRdbStream`) as `loadRdbBlob` would: the same keys, errors and progress callbacks
 * ([decodedBytes, totalBytes], at most one per MiB and the last).
 */
async function loadBlob(engine, blob, db, opts, workers) {
  const { onProgress, decodeWorkers: _, ...rest } = opts;
  const stream = new RdbStream(db, rest);
  const offload = new OffloadedLoad(stream, workers);
  const total = blob.size;
  stream.announceLen(total);
  let shown = -Infinity;
  const report = (done) => {
    if (typeof onProgress !== 'function' || (done - shown < 1 << 20 && done !== total)) return;
    shown = done;
    onProgress(done, total);
  };
  const what = `loading ${blob.name ? String(blob.name) : 'the file'}`;
  let decodedAt = 0;
  const facts = () => ({ at: decodedAt, size: total });
  try {
    for (let at = 0; at < total; at += BLOB_PIECE) {
      const piece = await readPiece(blob, at, Math.min(total, at + BLOB_PIECE));
      const done = (await memoryGuard(what, () => offload.push(piece), facts))[0];
      decodedAt = done;
      report(done);
    }
    await memoryGuard(what, () => offload.settle(), facts);
  } catch (e) {
    stream.free();
    throw e;
  }
  const keys = memoryGuard(what, () => engine.loadRdbStream(stream), () => ({ at: total, size: total }));
  report(total);
  return keys;
}

/**
 * Bytes `start..end` of `blob`; a failed read is the error `loadRdbBlob` gives (kind `read`,
 * the offset of the piece).
 */
async function readPiece(blob, start, end) {
  try {
    return new Uint8Array(await blob.slice(start, end).arrayBuffer());
  } catch (e) {
    const err = new Error(`cannot load RDB snapshot at byte offset ${start}: cannot read input: ${e && e.message ? e.message : e}`);
    err.kind = 'read';
    err.offset = start;
    throw err;
  }
}

/** Pieces a Blob is read in by loadBlob (as loadRdbBlob's windows). */
const BLOB_PIECE = 8 * 1024 * 1024;

/** Bytes of the file's start read for snapshotInfo's writer (its aux fields come first). */
const HEAD_BYTES = 64 * 1024;

/**
 * `run()`, with a failure to get memory said in plain words (snapshot.js memoryError): the
 * wasm memory could not grow (it stops at 4 GiB), so the engine aborts ("unreachable") or the
 * allocation throws; this worker's engine is then unusable and is dropped. `facts()` says how
 * far the input had got (`{at, size}`); the engine's memory size is added. A `run` returning
 * a promise gets a promise rejecting the same way.
 */
function memoryGuard(what, run, facts = () => ({})) {
  const rethrow = (e) => {
    throw isMemoryFailure(e) ? memoryError(what, e, { ...facts(), memory: memoryBytes() }) : e;
  };
  try {
    const value = run();
    return value instanceof Promise ? value.catch(rethrow) : value;
  } catch (e) {
    return rethrow(e);
  }
}

/** Bytes of the engine's wasm memory now (null before it is instantiated). */
function memoryBytes() {
  try {
    return wasmMemory ? wasmMemory.buffer.byteLength : null;
  } catch {
    return null;
  }
}

/**
 * What a call was doing when it ran out of memory: `loading NAME` for a load (the files'
 * names, or the key of a DUMP), else `running METHOD` (the Engine method).
 */
function memoryWhat(method, args) {
  const src = args && args[0];
  if (/^load/.test(method)) {
    const name = (x) => (typeof Blob !== 'undefined' && x instanceof Blob && x.name ? String(x.name)
      : ArrayBuffer.isView(x) ? `${x.byteLength.toLocaleString('en-US')} bytes` : null);
    const names = Array.isArray(src) ? src.map(name).filter(Boolean) : [name(src)].filter(Boolean);
    if (method === 'loadDump' || method === 'loadString') {
      const key = ArrayBuffer.isView(src) ? new TextDecoder().decode(src) : String(src);
      return `loading key ${JSON.stringify(key.slice(0, 200))}`;
    }
    return `loading ${names.length ? names.join(', ') : 'the snapshot'}`;
  }
  return `running ${method}`;
}

/** The input bytes the load under way had decoded, as its onProgress last said: {at, size}. */
let progressAt = {};


/** The wasm module's functions callable by name like Engine methods (they hold no data). */
const MODULE_FUNCTIONS = { profiles, snapshotInfo };

/**
 * The engine a message names: the main one (no `name`), else the side engine `name`, made on
 * its first call (a side engine shares this worker's module and memory).
 */
function engineNamed(name) {
  if (name === undefined || name === null) return engine;
  let e = sides.get(String(name));
  if (!e) {
    e = new Engine();
    sides.set(String(name), e);
  }
  return e;
}

/** Frees the side engine `name` (its keys are gone; a later call makes an empty one). */
function release(name) {
  const e = sides.get(String(name));
  sides.delete(String(name));
  if (e) e.free();
}

/** Runs one call on `engine`; loads of a Blob/File are read here, in the worker. */
function run(engine, method, args, progressId) {
  if (progressId !== undefined) {
    // The progress callback cannot cross postMessage: rebuild it here (options are the last
    // argument of every load method).
    const opts = { ...(args[args.length - 1] || {}) };
    // (loadRdbs adds the file's index: [done, total, phase, decoded, file].)
    opts.onProgress = (done, total, file) => {
      progressAt = { at: done, size: total };
      self.postMessage({
        id: progressId, progress: file === undefined ? [done, total] : [done, total, 'decode', null, file],
      });
    };
    args = [...args.slice(0, -1), opts];
  }
  if (method === 'loadRdb' && typeof Blob !== 'undefined' && args[0] instanceof Blob) {
    const [blob, db, opts = {}] = args;
    const workers = decodePool(opts && opts.decodeWorkers);
    if (workers) return loadBlob(engine, blob, db, opts || {}, workers);
    const rest = [db, opts];
    if (typeof engine.loadRdbBlob === 'function') return engine.loadRdbBlob(blob, ...rest);
    // An engine without loadRdbBlob: read the file whole (synchronously, inside the worker).
    const bytes = new Uint8Array(new FileReaderSync().readAsArrayBuffer(blob));
    return engine.loadRdb(bytes, ...rest);
  }
  if (Object.hasOwn(MODULE_FUNCTIONS, method)) return MODULE_FUNCTIONS[method](...args);
  // A batch of commands in one message: a card asking one command per key (thousands of
  // sign-in keys) pays one postMessage round trip instead of one per key.
  if (method === 'commands') return args[0].map((argv) => engine.command(argv));
  if (method === 'constructor' || method.startsWith('_') || typeof engine[method] !== 'function') {
    throw new Error(`bitlens Engine: no such method ${JSON.stringify(method)}`);
  }
  return engine[method](...args);
}

self.onmessage = async (event) => {
  const msg = event.data;
  if (msg && msg.type === 'init') {
    ready = (async () => {
      wasmModule = await compileModule(msg.wasmUrl || new URL('../pkg/bitlens_bg.wasm', import.meta.url));
      const exports = await init({ module_or_path: wasmModule });
      wasmMemory = exports && exports.memory;
      engine = new Engine();
    })();
    try {
      await ready;
      self.postMessage({ type: 'ready', timing: { start: STARTED, ready: now() } });
    } catch (e) {
      self.postMessage({ type: 'init-error', error: errorInfo(e) });
    }
    return;
  }
  const { id, method, args, progress } = msg;
  progressAt = {};
  try {
    if (!ready) throw new Error('bitlens engine worker: not initialised');
    await ready;
    if (method === 'release') {
      if (msg.engine === undefined || msg.engine === null) throw new Error('bitlens engine worker: only a side engine is released');
      release(msg.engine);
      self.postMessage({ id, ok: true, value: null });
      return;
    }
    const target = engineNamed(msg.engine);
    const value = method === 'loadUrl'
      ? await loadUrl(target, args[0], args[1], args[2] || {}, progress ? id : undefined)
      : await run(target, method, args || [], progress ? id : undefined);
    self.postMessage({ id, ok: true, value }, [...transferables(value)]);
  } catch (e) {
    // Any call that ran out of memory (a file loaded by the engine's own reader, a big report)
    // says so, and how far it got, instead of the engine's bare "unreachable".
    const err = isMemoryFailure(e) && !(e && e.kind === 'memory')
      ? memoryError(memoryWhat(method, args), e, { ...progressAt, memory: memoryBytes() })
      : e;
    self.postMessage({ id, ok: false, error: errorInfo(err) });
  }
};
