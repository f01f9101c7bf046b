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
//   worker -> page  {id, progress: [...]} while a load runs (progress: true; see `load`)
//   worker -> page  {id, ok: true, value} | {id, ok: false, error: {name, message, status?,
//                   component?, serverMessage?, refused?, tooLarge?} (snapshot.js's fields),
//                   kind?, code?, offset?, key?, path?} (the engine's: www/engine-error.js)
// Special cases of `method`: 'profiles' and 'snapshotInfo' are the module's functions;
// 'commands' runs a batch of commands; 'load' [sources, db, options] is every load of a
// snapshot (bytes, a Blob/File, a URL, several files): the one driver below, reading and
// downloading here, in the worker, so the page's thread never holds or decodes the bytes.
// ArrayBuffers in results are transferred back, never copied twice.

import init, { Engine, RdbStream, profiles, snapshotInfo } from '../pkg/bitlens.js';
import { DecodePool, OffloadedLoad } from './decode-pool.js';
import { EngineError } from './engine-error.js';
import { HEAD_BYTES, isMemoryFailure, memoryError, shownUrl, streamSnapshot } from './snapshot.js';

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
    // the engine's code (an EngineError's), byte offset, key and path.
    for (const k of ['component', 'serverMessage', 'tooLarge', 'kind', 'code', 'offset', 'key', 'path']) if (e[k] !== undefined) info[k] = e[k];
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

/** Pieces a Blob or bytes are pushed into the decoder in (as the engine's Blob windows). */
const PIECE = 8 * 1024 * 1024;

/**
 * The one load driver of this worker (method 'load', args [sources, db, options]): `sources`
 * is one snapshot — a Uint8Array, a Blob/File, or a URL (a string: downloaded with the fetch
 * body reader, `Authorization: Bearer token` when given) — or an array of
 * Uint8Arrays and Blobs read as one keyspace (a cluster's shards: the engine's `loadRdbs`,
 * whose `files()` then lists them). One snapshot is pushed into an `RdbStream` a piece at a
 * time as the bytes come (a download decodes while it downloads; a Blob is never held whole;
 * the decode workers take its large LZF strings), then installed with `loadRdbStream` (the
 * engine's previous keys stay until then, and after a failure).
 * Progress (posted when `progressId` is given, at most one per MiB and the last): a download
 * [received, total, 'download', decoded] then [decoded, total, 'decode']; bytes and Blobs
 * [decoded, total]; several files [done, total, 'decode', null, fileIndex] per file.
 * Resolves with {keys, bytes, writer, timing} (writer: snapshotInfo's of the first file's
 * first HEAD_BYTES; timing: epoch ms of the request, first and last byte and decoding end,
 * the ms spent decoding).
 */
async function load(engine, sources, db, opts = {}, progressId) {
  const post = (phase) => {
    let shown = -Infinity;
    return (done, total, decoded) => {
      if (progressId === undefined || (done - shown < 1 << 20 && done !== total)) return;
      shown = done;
      progressAt = { at: done, size: total };
      const progress = [done, total ?? 0];
      if (phase) progress.push(phase);
      if (decoded !== undefined) progress.push(decoded);
      self.postMessage({ id: progressId, progress });
    };
  };
  const { token, maxBytes, decodeWorkers, body, names, onDuplicate, onProgress: _, ...rest } = opts;
  if (Array.isArray(sources)) {
    // Several files as one keyspace: the engine's union of them (Blobs read in bounded windows).
    const first = sources[0];
    const head = first instanceof Blob
      ? new Uint8Array(new FileReaderSync().readAsArrayBuffer(first.slice(0, HEAD_BYTES)))
      : ArrayBuffer.isView(first) ? first.subarray(0, HEAD_BYTES) : new Uint8Array(0);
    // (The engine reports each file at most every ~1 MiB: every report is posted.)
    const onProgress = (done, total, file) => {
      progressAt = { at: done, size: total };
      if (progressId !== undefined) self.postMessage({ id: progressId, progress: [done, total, 'decode', null, file] });
    };
    const keys = engine.loadRdbs(sources, db, { ...rest, names, onDuplicate, onProgress });
    const bytes = sources.reduce((n, s) => n + (s instanceof Blob ? s.size : s.byteLength), 0);
    return { keys, bytes, writer: snapshotInfo(head).writer ?? null };
  }
  const url = typeof sources === 'string' ? sources : null;
  const src = sources;
  const what = `loading ${url !== null ? shownUrl(url) : src instanceof Blob && src.name ? String(src.name) : 'the snapshot'}`;
  const downloadProgress = post('download');
  const decodeProgress = post(url !== null ? 'decode' : undefined);
  const stream = new RdbStream(db, rest);
  const workers = decodePool(decodeWorkers);
  const offload = workers ? new OffloadedLoad(stream, workers) : null;
  // The file's first bytes, for snapshotInfo's writer.
  const head = new Uint8Array(HEAD_BYTES);
  let headLen = 0;
  let decoded = 0;
  let received = 0;
  // Where the time goes (epoch ms; decodeMs: time spent decoding, overlapped or not).
  const timing = { request: now(), firstByte: null, lastByte: null, decodeEnd: null, decodeMs: 0 };
  let size = null;
  const facts = () => ({ at: decoded, size });
  const push = async (chunk) => {
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
  };
  try {
    if (url !== null) {
      received = await streamSnapshot(String(url), async (chunk, total) => {
        size = total;
        if (timing.firstByte === null) {
          timing.firstByte = now();
          // The Content-Length bounds the RESIZEDB hint that sizes the keyspace once.
          if (total !== null) stream.announceLen(total);
        }
        await push(chunk);
      }, (done, total) => downloadProgress(done, total, decoded), undefined, token, maxBytes, body);
    } else {
      const blob = src instanceof Blob;
      // (The client sends bytes as a Uint8Array, transferred or copied.)
      const bytes = blob ? null : src;
      if (!blob && !(bytes instanceof Uint8Array)) throw new TypeError('a snapshot must be a Uint8Array, Blob, File or URL');
      size = blob ? src.size : bytes.length;
      stream.announceLen(size);
      timing.firstByte = now();
      for (let at = 0; at < size; at += PIECE) {
        const end = Math.min(size, at + PIECE);
        await push(blob ? await readPiece(src, at, end) : bytes.subarray(at, end));
        if (!offload) decodeProgress(decoded, size);
      }
      received = size;
    }
    timing.lastByte = now();
    if (offload) {
      await memoryGuard(what, () => offload.settle(), facts);
      decoded = stream.progress()[0];
    }
  } catch (e) {
    try {
      stream.free();
    } catch {
      // (A stream whose push ran out of memory is still borrowed: the engine is dropped anyway.)
    }
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
 * Bytes `start..end` of `blob`; a failed read is an error of kind `read` at the offset of the
 * piece (as the engine's reader says it).
 */
async function readPiece(blob, start, end) {
  try {
    return new Uint8Array(await blob.slice(start, end).arrayBuffer());
  } catch (e) {
    throw new EngineError(`cannot load RDB snapshot at byte offset ${start}: cannot read input: ${e && e.message ? e.message : e}`, { code: 'read', offset: start });
  }
}

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

/** Runs one call on `engine` (a load is `load`'s). */
function run(engine, method, args) {
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
    const value = method === 'load'
      ? await load(target, args[0], args[1], args[2] || {}, progress ? id : undefined)
      : run(target, method, args || []);
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
