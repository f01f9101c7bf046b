// The Web Worker behind engine-client.js: one wasm `Engine` living off the page's main thread,
// so loading a large snapshot never freezes the host page.
//
// Protocol (structured-clone messages; engine-client.js is the only intended sender):
//   page -> worker  {type: 'init', wasmUrl?}                 instantiate the wasm module
//   worker -> page  {type: 'ready'} | {type: 'init-error', error: {name, message}}
//   page -> worker  {id, method, args, progress?}             call engine[method](...args)
//   worker -> page  {id, progress: [doneBytes, totalBytes, phase]} while a load runs (progress:
//                   true); phase 'download' (bytes received) or 'decode' (bytes decoded)
//   worker -> page  {id, ok: true, value} | {id, ok: false, error: {name, message, status?,
//                   component?, serverMessage?, refused?, tooLarge?}} (snapshot.js's fields)
// Special cases of `method`: 'profiles' and 'snapshotInfo' are the module's functions; 'loadRdb' with a Blob/File source reads it here (through the
// engine's `loadRdbBlob` when it has one: bounded chunks with FileReaderSync, never whole);
// 'loadUrl' [url, db, {token, maxBytes, ...load options}] downloads a snapshot here (fetch body reader,
// snapshot.js) and decodes it here: the page's thread never holds or decodes the bytes.
// ArrayBuffers in results are transferred back, never copied twice.

import init, { Engine, profiles, snapshotInfo } from '../pkg/bitlens.js';
import { fetchSnapshot, memoryError } from './snapshot.js';

let engine = null;
let wasmMemory = null;
let ready = null;

/** `{name, message}` of anything thrown (wasm-bindgen's JsError arrives as an `Error`). */
function errorInfo(e) {
  if (e && typeof e === 'object' && 'message' in e) {
    const info = { name: String(e.name || 'Error'), message: String(e.message) };
    if (typeof e.status === 'number') info.status = e.status;
    // What failed, as snapshot.js names it (and the server's own message, refused patterns).
    for (const k of ['component', 'serverMessage', 'tooLarge']) if (e[k] !== undefined) info[k] = e[k];
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
 * `Authorization: Bearer token` when given), reporting [received, total, 'download'], then
 * decodes it with `loadRdb`, reporting [decoded, total, 'decode']. The download is read with
 * the fetch body reader. Resolves with {keys, bytes, writer} (writer: snapshotInfo's).
 */
async function loadUrl(url, db, opts = {}, progressId) {
  const { token, onProgress, maxBytes, ...rest } = opts;
  // At most one message per MiB (and the last one): the page redraws its progress bar for each.
  const post = (phase) => {
    let shown = -Infinity;
    return (done, total) => {
      if (progressId === undefined || (done - shown < 1 << 20 && done !== total)) return;
      shown = done;
      self.postMessage({ id: progressId, progress: [done, total ?? 0, phase] });
    };
  };
  const bytes = await fetchSnapshot(String(url), post('download'), undefined, token, maxBytes);
  const decodeProgress = post('decode');
  let keys;
  try {
    keys = engine.loadRdb(bytes, db, { ...rest, onProgress: (d, t) => decodeProgress(d, t) });
  } catch (e) {
    // The wasm memory could not grow (it stops at 4 GiB): the engine aborts ("unreachable")
    // or the allocation throws; this worker's engine is then unusable and is dropped.
    if (isMemoryFailure(e)) throw memoryError(`decoding ${bytes.length} bytes`, e);
    throw e;
  }
  return { keys, bytes: bytes.length, writer: snapshotInfo(bytes.subarray(0, 64 * 1024)).writer ?? null };
}

/** Whether `e` is a failure to get memory (wasm memory growth, an ArrayBuffer allocation). */
function isMemoryFailure(e) {
  const msg = String(e && e.message);
  return (typeof WebAssembly !== 'undefined' && e instanceof WebAssembly.RuntimeError && /unreachable|memory/i.test(msg))
    || (e instanceof RangeError && /memory|allocation|buffer/i.test(msg));
}

/** The wasm module's functions callable by name like Engine methods (they hold no data). */
const MODULE_FUNCTIONS = { profiles, snapshotInfo };

/** Runs one call on the engine; loads of a Blob/File are read here, in the worker. */
function run(method, args, progressId) {
  if (progressId !== undefined) {
    // The progress callback cannot cross postMessage: rebuild it here (options are the last
    // argument of every load method).
    const opts = { ...(args[args.length - 1] || {}) };
    opts.onProgress = (done, total) => self.postMessage({ id: progressId, progress: [done, total] });
    args = [...args.slice(0, -1), opts];
  }
  if (method === 'loadRdb' && typeof Blob !== 'undefined' && args[0] instanceof Blob) {
    const [blob, ...rest] = args;
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
      const exports = await init(msg.wasmUrl ? { module_or_path: msg.wasmUrl } : undefined);
      wasmMemory = exports && exports.memory;
      engine = new Engine();
    })();
    try {
      await ready;
      self.postMessage({ type: 'ready' });
    } catch (e) {
      self.postMessage({ type: 'init-error', error: errorInfo(e) });
    }
    return;
  }
  const { id, method, args, progress } = msg;
  try {
    if (!ready) throw new Error('bitlens engine worker: not initialised');
    await ready;
    const value = method === 'loadUrl'
      ? await loadUrl(args[0], args[1], args[2] || {}, progress ? id : undefined)
      : run(method, args || [], progress ? id : undefined);
    self.postMessage({ id, ok: true, value }, [...transferables(value)]);
  } catch (e) {
    self.postMessage({ id, ok: false, error: errorInfo(e) });
  }
};
