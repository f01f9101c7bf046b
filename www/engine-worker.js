// The Web Worker behind engine-client.js: one wasm `Engine` living off the page's main thread,
// so loading a large snapshot never freezes the host page.
//
// Protocol (structured-clone messages; engine-client.js is the only intended sender):
//   page -> worker  {type: 'init', wasmUrl?}                 instantiate the wasm module
//   worker -> page  {type: 'ready'} | {type: 'init-error', error: {name, message}}
//   page -> worker  {id, method, args, progress?}             call engine[method](...args)
//   worker -> page  {id, progress: [doneBytes, totalBytes]}   while a load runs (progress: true)
//   worker -> page  {id, ok: true, value} | {id, ok: false, error: {name, message}}
// Special cases of `method`: 'loadRdb' with a Blob/File source reads it here (through the
// engine's `loadRdbBlob` when it has one: bounded chunks with FileReaderSync, never whole).
// ArrayBuffers in results are transferred back, never copied twice.

import init, { Engine } from '../pkg/bitlens.js';

let engine = null;
let wasmMemory = null;
let ready = null;

/** `{name, message}` of anything thrown (wasm-bindgen's JsError arrives as an `Error`). */
function errorInfo(e) {
  if (e && typeof e === 'object' && 'message' in e) {
    return { name: String(e.name || 'Error'), message: String(e.message) };
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
    const value = run(method, args || [], progress ? id : undefined);
    self.postMessage({ id, ok: true, value }, [...transferables(value)]);
  } catch (e) {
    self.postMessage({ id, ok: false, error: errorInfo(e) });
  }
};
