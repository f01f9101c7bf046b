// A promise API over the bitlens wasm Engine, running in a Web Worker by default so that
// loading a large snapshot never freezes the host page.
//
//   import { createEngine } from './engine-client.js';
//   const eng = await createEngine();                        // { worker: true } is the default
//   const { keys, writer } = await eng.load(fileOrBytesOrUrl, { patterns: ['uv:*'], onProgress(done, total) {} });
//   const n = await eng.loadRdb(fileOrBytes);                  // its key count
//   await eng.command(['PFCOUNT', 'uv:page:index:20240520']); // 1234
//   await eng.call('keyList', 'uv:*', 100);                   // any Engine method
//   await eng.memoryReport({ top: 20, days: 7 });             // biggest keys, per type/pattern, expiring per day
//   await eng.keyLedger('bm:1', { bitfield: ['level:*=u4'] }); // one key's memory ledger
//   await eng.call('profiles');                               // or the module's profiles / snapshotInfo
//   await eng.loadRdbs([node1, node2, node3], { names, onProgress(done, total, file) {} }); // shards as one
//   await eng.files();                                         // each file's keys, memory, slots
//   await eng.loadUrl('/api/snapshot?match=uv:*', { token, onProgress(done, total, phase, decoded) {} });
//   const side = eng.side('key');                              // a second Engine in the same worker
//   await side.loadUrl('/api/snapshot?match=user:1');          // its keys apart from eng's
//   side.terminate();                                          // frees that engine only
//   eng.terminate();
//
// Sources: Uint8Array | ArrayBuffer (transferred to the worker, so the caller's buffer is
// detached afterwards; `transfer: false` copies instead) | Blob | File (read inside the worker
// in pieces: a 1 GB file is never held whole in memory; a URL is downloaded there too).
// Aborting `signal` during a load rejects with a DOMException named "AbortError", terminates the
// worker and starts a fresh, empty one. Engine errors reject with an Error carrying the engine's
// message (Redis' text for command errors): an EngineError (engine-error.js) with its `code`,
// and `offset`, `key` and `path` when known, the same class in-page and through the worker.
// `createEngine({ worker: false })` gives the same API over an Engine on the page's own thread
// (for pages that cannot start workers).

import { EngineError } from './engine-error.js';

export { EngineError };

/** The DOMException a cancelled call rejects with. */
function abortError(message = 'The bitlens engine call was aborted') {
  return new DOMException(message, 'AbortError');
}

/** An absolute URL for `url` resolved against the page (or worker) that imports this module. */
function absoluteUrl(url) {
  if (url === undefined || url === null) return undefined;
  const base = typeof document !== 'undefined' ? document.baseURI : globalThis.location && globalThis.location.href;
  return new URL(String(url), base).href;
}

/** `{patterns, checksum, compat, clock}` of load options, without the fields that were not given. */
function engineOptions(opts, names) {
  const out = {};
  for (const n of names) if (opts[n] !== undefined) out[n] = opts[n];
  return out;
}

/** A Uint8Array over `bytes` (Uint8Array, other typed array/DataView or ArrayBuffer). */
function toBytes(bytes, what) {
  if (bytes instanceof Uint8Array) return bytes;
  if (bytes instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && bytes instanceof SharedArrayBuffer)) {
    return new Uint8Array(bytes);
  }
  if (ArrayBuffer.isView(bytes)) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  throw new TypeError(`${what} must be a Uint8Array, ArrayBuffer${what === 'source' ? ', Blob or File' : ''}`);
}

function isBlob(x) {
  return typeof Blob !== 'undefined' && x instanceof Blob;
}

function isDetached(buffer) {
  if (!(buffer instanceof ArrayBuffer)) return false;
  if (typeof buffer.detached === 'boolean') return buffer.detached;
  try {
    buffer.slice(0, 0);
    return false;
  } catch {
    return true;
  }
}

/**
 * Marks `name` on the page's performance timeline at `at`, epoch milliseconds (a worker's
 * `performance.timeOrigin + performance.now()`): the worker's start, its wasm instantiation,
 * a download's first response and last byte, the end of its decoding (bench/browser.mjs reads
 * them to say where the time goes).
 */
function markAt(name, at) {
  if (typeof at !== 'number' || typeof performance === 'undefined' || !performance.mark) return;
  try {
    performance.mark(name, { startTime: Math.max(0, at - performance.timeOrigin) });
  } catch {
    /* an old browser without mark options */
  }
}

/** Rejects when `signal` is already aborted. */
function checkSignal(signal) {
  if (signal && signal.aborted) throw abortError();
}

/** Options of Engine.loadRdb the client passes on. */
const LOAD_OPTIONS = ['patterns', 'checksum', 'compat', 'clock'];

/** The worker's load driver's own options (engine-worker.js `load`). */
const MORE_LOAD_OPTIONS = ['decodeWorkers', 'token', 'maxBytes', 'body', 'names', 'onDuplicate'];

/**
 * The promise API (types/engine-client.d.ts EngineClient), one implementation over either
 * transport: a Web Worker ({@link WorkerTransport}) or the page's own thread
 * ({@link LocalTransport}).
 */
class EngineClient {
  constructor(transport) {
    this._t = transport;
    /** Whether the Engine runs in a Web Worker. */
    this.worker = transport.worker;
  }

  /**
   * Loads a snapshot, replacing the engine's keys: `sources` is one snapshot (bytes, a
   * Blob/File, or a URL string downloaded and decoded as it arrives) or an array of bytes and
   * Blobs read as one keyspace (`files()` then lists them). Options: `db`, `patterns`,
   * `checksum`, `compat`, `clock`, `signal`, `onProgress`, `transfer`; `decodeWorkers` for one
   * snapshot; `token`, `maxBytes`, `body` for a URL; `names`, `onDuplicate` for several.
   * Resolves with `{keys, bytes, writer}` (writer: snapshotInfo's of the first file).
   */
  async load(sources, opts = {}) {
    const url = typeof sources === 'string' ? absoluteUrl(sources) : null;
    return this._t.load(url ?? sources, opts, engineOptions(opts, [...LOAD_OPTIONS, ...MORE_LOAD_OPTIONS]));
  }

  /** `load` of one snapshot (bytes or a Blob/File): resolves with its live key count. */
  async loadRdb(source, opts = {}) {
    return (await this.load(isBlob(source) ? source : toBytes(source, 'source'), opts)).keys;
  }

  /** `load` of several files as one keyspace: resolves with the live key count. */
  async loadRdbs(sources, opts = {}) {
    return (await this.load([...sources], opts)).keys;
  }

  /** Each file of the last loadRdbs: its keys, memory and slots (Engine.files). */
  async files() {
    return this._t.send('files', []);
  }

  /** `load` of the snapshot at `url`: resolves with `{keys, bytes, writer}`. */
  async loadUrl(url, opts = {}) {
    return this.load(String(absoluteUrl(url)), opts);
  }

  async loadDump(key, bytes, opts = {}) {
    const engineOpts = engineOptions(opts, ['checksum', 'ttlMs', 'compat']);
    return this._t.send('loadDump', [key, bytes, engineOpts], { signal: opts.signal, bytesAt: 1, transfer: opts.transfer });
  }

  async loadString(key, bytes, opts = {}) {
    return this._t.send('loadString', [key, bytes], { signal: opts.signal, bytesAt: 1, transfer: opts.transfer });
  }

  /** Any Engine method, or the module's profiles / snapshotInfo. */
  async call(method, ...args) {
    return this._t.send(String(method), args);
  }

  async command(argv) {
    return this._t.send('command', [argv]);
  }

  /** Many commands in one message (replies in order; the first error reply rejects the batch). */
  async commands(argvs) {
    return this._t.send('commands', [argvs]);
  }

  async keyList(pattern = '*', limit = 1000, options = undefined) {
    return this._t.send('keyList', options === undefined ? [pattern, limit] : [pattern, limit, options]);
  }

  async keyDetail(key, options) {
    return this._t.send('keyDetail', options === undefined ? [key] : [key, options]);
  }

  /** The memory view of every loaded database (Engine.memoryReport: top keys, per type and pattern, expiring per day). */
  async memoryReport(options) {
    return this._t.send('memoryReport', options === undefined ? [] : [options]);
  }

  /** One key's memory ledger in the selected database (Engine.keyLedger), or null. */
  async keyLedger(key, options) {
    return this._t.send('keyLedger', options === undefined ? [key] : [key, options]);
  }

  /**
   * A client of the side engine `name` (default `'side'`): a second Engine in the same worker
   * (or page) and the same wasm module, empty until loaded, whose keys never mix with this
   * one's. The online key browser opens each key in one, so a panel runs one worker. Its
   * `terminate()` frees that engine only. An aborted load resets the whole worker, as on the
   * main engine.
   */
  side(name = 'side') {
    return new EngineClient(new SideTransport(this._t, String(name)));
  }

  terminate() {
    this._t.terminate();
  }
}

/**
 * The transport of a side engine: every call goes to the base transport naming the engine
 * (`engine` of the worker's messages); terminating it frees that engine only.
 */
class SideTransport {
  constructor(base, name) {
    this._base = base;
    this._name = name;
    this.worker = base.worker;
  }

  send(method, args, opts = {}) {
    return this._base.send(method, args, { ...opts, engine: this._name });
  }

  load(sources, opts, engineOpts) {
    return this._base.load(sources, opts, engineOpts, this._name);
  }

  terminate() {
    this._base.release(this._name);
  }
}

/** The transport of an {@link EngineClient} over a Web Worker (engine-worker.js). */
class WorkerTransport {
  constructor({ wasmUrl, workerUrl } = {}) {
    this.worker = true;
    this._wasmUrl = absoluteUrl(wasmUrl);
    this._workerUrl = workerUrl === undefined ? undefined : absoluteUrl(workerUrl);
    this._nextId = 1;
    this._pending = new Map();
    this._closed = false;
    this._spawn();
  }

  /** Starts a worker; `this._ready` settles once its wasm module is instantiated. */
  _spawn() {
    let w;
    try {
      w = this._workerUrl
        ? new Worker(this._workerUrl, { type: 'module' })
        : new Worker(new URL('./engine-worker.js', import.meta.url), { type: 'module' });
    } catch (e) {
      if (!(e && e.name === 'SecurityError')) throw e;
      // This module was loaded from another origin (a CDN): a worker script must be same-origin,
      // so start a same-origin blob worker that imports the real one (needs CORS on that host).
      const url = this._workerUrl || new URL('./engine-worker.js', import.meta.url).href;
      const blob = new Blob([`import ${JSON.stringify(url)};`], { type: 'text/javascript' });
      w = new Worker(URL.createObjectURL(blob), { type: 'module' });
    }
    this._w = w;
    if (typeof performance !== 'undefined' && performance.mark) performance.mark('bitlens-worker-spawn');
    this._ready = new Promise((resolve, reject) => {
      let started = false;
      w.onmessage = (e) => {
        const m = e.data;
        if (m && m.type === 'ready') {
          started = true;
          if (m.timing) {
            markAt('bitlens-worker-start', m.timing.start);
            markAt('bitlens-wasm-ready', m.timing.ready);
          }
          resolve();
        } else if (m && m.type === 'init-error') {
          reject(new Error(`bitlens engine worker: cannot load the wasm module: ${m.error.message}`));
        } else {
          this._onReply(m);
        }
      };
      w.onerror = (e) => {
        if (e && e.preventDefault) e.preventDefault();
        const msg = (e && e.message) || 'the worker script failed to load';
        if (!started) {
          reject(new Error(`bitlens engine worker: ${msg}`));
        } else {
          this._failAll(new Error(`bitlens engine worker: ${msg}`));
        }
      };
      w.onmessageerror = () => this._failAll(new Error('bitlens engine worker: a reply could not be deserialised'));
    });
    // Nobody may be waiting yet; the failure is reported by the next call.
    this._ready.catch(() => {});
    w.postMessage({ type: 'init', wasmUrl: this._wasmUrl });
  }

  _onReply(m) {
    const p = this._pending.get(m.id);
    if (!p) return;
    if (m.progress) {
      if (p.onProgress) {
        try {
          p.onProgress(m.progress[0], m.progress[1], m.progress[2] || 'decode', m.progress[3], m.progress[4]);
        } catch (e) {
          setTimeout(() => {
            throw e;
          });
        }
      }
      return;
    }
    this._pending.delete(m.id);
    if (p.cleanup) p.cleanup();
    // Each call's round trip on the page's timeline (bench/browser.mjs: the cards' commands).
    if (p.sent !== undefined && performance.measure) {
      performance.measure('bitlens-call', { start: p.sent, end: performance.now(), detail: p.method });
    }
    if (m.ok) {
      p.resolve(m.value);
    } else {
      // The engine's errors are EngineErrors again (they crossed postMessage as plain data).
      const err = m.error.code !== undefined ? EngineError.from(m.error) : new Error(m.error.message);
      if (m.error.name && m.error.name !== 'Error') err.name = m.error.name;
      if (typeof m.error.status === 'number') err.status = m.error.status;
      for (const k of ['component', 'serverMessage', 'refused', 'tooLarge', 'kind']) if (m.error[k] !== undefined) err[k] = m.error[k];
      p.reject(err);
    }
  }

  /** Rejects every pending call with `err`. */
  _failAll(err) {
    const pending = [...this._pending.values()];
    this._pending.clear();
    for (const p of pending) {
      if (p.cleanup) p.cleanup();
      p.reject(err);
    }
  }

  /** Kills the worker (its data is gone) and starts a fresh, empty one. */
  _restart(reason) {
    this._w.terminate();
    this._failAll(reason);
    if (!this._closed) this._spawn();
  }

  /**
   * Sends one call. `transfer`: ArrayBuffers moved to the worker; `signal`: aborts the call
   * (and resets the worker, from the moment the call is made); `onProgress`: receives the
   * worker's progress messages.
   */
  _send(method, args, { transfer = [], signal, onProgress, engine } = {}) {
    if (this._closed) return Promise.reject(new Error('bitlens engine: terminated'));
    if (signal && signal.aborted) return Promise.reject(abortError());
    const id = this._nextId++;
    return new Promise((resolve, reject) => {
      const p = { resolve, reject, onProgress, method, sent: typeof performance !== 'undefined' ? performance.now() : undefined };
      if (signal) {
        const onAbort = () => {
          if (!this._pending.has(id)) return;
          this._pending.delete(id);
          reject(abortError());
          this._restart(abortError('The bitlens engine was reset by an aborted load'));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        p.cleanup = () => signal.removeEventListener('abort', onAbort);
      }
      this._pending.set(id, p);
      this._post(id, { id, method, args, progress: onProgress ? true : undefined, engine }, transfer);
    });
  }

  /** Posts call `id` once the current worker is ready (unless it was aborted meanwhile). */
  async _post(id, msg, transfer) {
    const fail = (e) => {
      const p = this._pending.get(id);
      if (!p) return;
      this._pending.delete(id);
      if (p.cleanup) p.cleanup();
      p.reject(e);
    };
    try {
      // Wait for the current worker (a reset during the wait starts another one).
      let ready;
      do {
        ready = this._ready;
        await ready;
      } while (ready !== this._ready);
    } catch (e) {
      fail(e);
      return;
    }
    if (!this._pending.has(id)) return;
    try {
      this._w.postMessage(msg, transfer);
    } catch (e) {
      if (!transfer.length) {
        fail(e);
        return;
      }
      // A buffer that cannot be detached (wasm memory, for one): send a copy instead (a message
      // that cannot be cloned at all fails again, with the browser's error).
      try {
        this._w.postMessage(msg);
      } catch (e2) {
        fail(e2);
      }
    }
  }

  /** `bytes` for postMessage: the buffer to transfer (none for `transfer: false`). */
  _bytesArg(bytes, what, transfer) {
    const u8 = toBytes(bytes, what);
    if (isDetached(u8.buffer)) {
      throw new TypeError(`${what}: its ArrayBuffer is detached (an earlier call transferred it to the worker; pass transfer: false to keep the bytes)`);
    }
    if (transfer === false) return { arg: u8.slice(), list: [] };
    return { arg: u8, list: u8.buffer instanceof ArrayBuffer ? [u8.buffer] : [] };
  }

  /**
   * One call of `method` with `args`: `bytesAt`, an index of `args` holding bytes (transferred
   * to the worker unless `transfer` is false); `signal` aborts it, `onProgress` receives progress.
   */
  send(method, args, { signal, onProgress, bytesAt, transfer, engine } = {}) {
    let list = [];
    if (bytesAt !== undefined) {
      const b = this._bytesArg(args[bytesAt], 'bytes', transfer);
      args = args.map((a, i) => (i === bytesAt ? b.arg : a));
      list = b.list;
    }
    return this._send(method, args, { signal, onProgress, transfer: list, engine });
  }

  /**
   * A load (EngineClient.load) into the main engine or the side engine `engine`, by the
   * worker's one load driver: Blobs and URLs are read there, bytes transferred. Marks the
   * worker's timings on the page.
   */
  async load(sources, opts, engineOpts, engine) {
    const list = [];
    const arg = (s) => {
      if (isBlob(s) || typeof s === 'string') return s;
      const b = this._bytesArg(s, 'source', opts.transfer);
      list.push(...b.list);
      return b.arg;
    };
    const many = Array.isArray(sources);
    const onProgress = many && opts.onProgress ? (d, t, _phase, _decoded, file) => opts.onProgress(d, t, file) : opts.onProgress;
    const { timing, ...value } = await this._send('load', [many ? sources.map(arg) : arg(sources), opts.db, engineOpts], { signal: opts.signal, onProgress, transfer: list, engine });
    if (timing) {
      markAt('bitlens-download-request', timing.request);
      markAt('bitlens-download-first-byte', timing.firstByte);
      markAt('bitlens-download-end', timing.lastByte);
      markAt('bitlens-decode-end', timing.decodeEnd);
      if (performance.measure) {
        performance.measure('bitlens-decode-busy', { start: 0, duration: timing.decodeMs, detail: timing });
      }
    }
    return value;
  }

  /** Frees the worker's side engine `name` (nothing to do once the worker is gone). */
  release(name) {
    if (this._closed) return;
    this._send('release', [], { engine: name }).catch(() => {});
  }

  terminate() {
    if (this._closed) return;
    this._closed = true;
    this._w.terminate();
    this._failAll(new Error('bitlens engine: terminated'));
  }
}

/** The transport of an {@link EngineClient} over an Engine on the page's own thread. */
class LocalTransport {
  constructor(Engine, moduleFunctions = {}) {
    this.worker = false;
    this._Engine = Engine;
    this._module = moduleFunctions;
    this._engine = new Engine();
    /** Side engines by name (EngineClient.side), made on first use. */
    this._sides = new Map();
    this._closed = false;
  }

  /** The main engine, or the side engine `engine` (made on its first call). */
  _live(engine) {
    if (this._closed) throw new Error('bitlens engine: terminated');
    if (engine === undefined) return this._engine;
    if (!this._sides.has(engine)) this._sides.set(engine, new this._Engine());
    return this._sides.get(engine);
  }

  /** Drops every engine's data (as an aborted load does in a worker). */
  _reset() {
    for (const e of [this._engine, ...this._sides.values()]) {
      try {
        e.free();
      } catch {
        /* already freed */
      }
    }
    this._sides.clear();
    this._engine = new this._Engine();
  }

  _aborted(signal) {
    if (signal && signal.aborted) {
      this._reset();
      throw abortError();
    }
  }

  /** Frees the side engine `name`. */
  release(name) {
    const e = this._sides.get(name);
    this._sides.delete(name);
    if (e) e.free();
  }

  /**
   * A load (EngineClient.load) on the page's thread: a URL downloaded (snapshot.js), Blobs read
   * into bytes, progress passed through, and an abort (seen by the progress callback, the
   * page's thread being busy during the load) ending as in a worker: AbortError, empty engine.
   */
  async load(sources, opts, engineOpts, engine) {
    this._live(engine);
    checkSignal(opts.signal);
    const { signal } = opts;
    const snapshot = await import('./snapshot.js');
    const many = Array.isArray(sources);
    let onProgress = opts.onProgress;
    let list = many ? sources : [sources];
    if (typeof sources === 'string') {
      const report = onProgress || (() => {});
      list = [await snapshot.fetchSnapshot(sources, (d, t) => report(d, t ?? 0, 'download'), signal, opts.token, opts.maxBytes, opts.body)];
      onProgress = (d, t) => report(d, t, 'decode');
    }
    engineOpts = engineOptions(engineOpts, many ? [...LOAD_OPTIONS, 'names', 'onDuplicate'] : LOAD_OPTIONS);
    if (onProgress || signal) {
      // Throwing from the callback stops engines that propagate callback errors.
      engineOpts.onProgress = (...progress) => {
        if (onProgress) onProgress(...progress);
        if (signal && signal.aborted) throw abortError();
      };
    }
    const bytes = [];
    for (const s of list) {
      if (isBlob(s)) {
        bytes.push(new Uint8Array(await s.arrayBuffer()));
        this._aborted(signal);
      } else {
        bytes.push(toBytes(s, 'source'));
      }
    }
    const writer = snapshotInfoOf(this._module, bytes[0]);
    let keys;
    try {
      const e = this._live(engine);
      keys = many ? e.loadRdbs(bytes, opts.db, engineOpts) : e.loadRdb(bytes[0], opts.db, engineOpts);
    } catch (e) {
      this._aborted(signal);
      // Out of memory (the engine's abort, "unreachable"): said so, as the worker says it.
      if (snapshot.isMemoryFailure(e)) {
        const names = list.map((x) => (isBlob(x) && x.name ? String(x.name) : null)).filter(Boolean);
        throw snapshot.memoryError(`loading ${names.length ? names.join(', ') : 'the snapshot'}`, e);
      }
      throw e;
    }
    this._aborted(signal);
    return { keys, bytes: bytes.reduce((n, b) => n + b.length, 0), writer };

    /** snapshotInfo's writer of the file's first HEAD_BYTES, or null. */
    function snapshotInfoOf(module, first) {
      if (!first || typeof module.snapshotInfo !== 'function') return null;
      return module.snapshotInfo(first.subarray(0, snapshot.HEAD_BYTES)).writer ?? null;
    }
  }

  /**
   * One call of `method` with `args` (`bytesAt`: an index of `args` holding bytes); the
   * module's functions (profiles, snapshotInfo) and `commands` (each argv in turn) as the
   * worker answers them.
   */
  async send(method, args, { signal, bytesAt, engine } = {}) {
    checkSignal(signal);
    const e = this._live(engine);
    if (bytesAt !== undefined) args = args.map((a, i) => (i === bytesAt ? toBytes(a, 'bytes') : a));
    if (method === 'commands') return args[0].map((argv) => e.command(argv));
    if (Object.hasOwn(this._module, method)) return this._module[method](...args);
    if (method === 'constructor' || method.startsWith('_') || method === 'free' || typeof e[method] !== 'function') {
      throw new Error(`bitlens Engine: no such method ${JSON.stringify(method)}`);
    }
    return e[method](...args);
  }

  terminate() {
    if (this._closed) return;
    this._closed = true;
    for (const e of [this._engine, ...this._sides.values()]) {
      try {
        e.free();
      } catch {
        /* already freed */
      }
    }
    this._sides.clear();
  }
}

/**
 * Creates an engine client. Options:
 * - `worker` (default true): run the Engine in a module Web Worker; false runs it in-page (as
 *   does a context without `Worker`; the client's `worker` property tells which it got).
 * - `wasmUrl`: where bitlens_bg.wasm is (default: ../pkg/bitlens_bg.wasm next to this module).
 * - `workerUrl`: where engine-worker.js is (default: next to this module).
 * Resolves once the wasm module is instantiated; rejects if it cannot be loaded.
 */
export async function createEngine({ worker = true, wasmUrl, workerUrl } = {}) {
  if (worker && typeof Worker !== 'undefined') {
    const t = new WorkerTransport({ wasmUrl, workerUrl });
    try {
      await t._ready;
    } catch (e) {
      t.terminate();
      throw e;
    }
    return new EngineClient(t);
  }
  const mod = await import('../pkg/bitlens.js');
  const url = absoluteUrl(wasmUrl);
  await mod.default(url ? { module_or_path: url } : undefined);
  return new EngineClient(new LocalTransport(mod.Engine, { profiles: mod.profiles, snapshotInfo: mod.snapshotInfo }));
}
