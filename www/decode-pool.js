// Every core in the browser: the engine worker's pool of decode workers (decode-worker.js),
// and the offloaded load that feeds them.
//
// A snapshot of large compressed strings (bitmaps, big listpacks) spends most of its load in
// LZF decompression (91% of the 336 MB bench file's). The engine worker's `RdbStream` hands
// those strings out as jobs (`offloadLzf`, `takeJobs`): each is posted to a decode worker with
// its compressed bytes transferred, decompressed there by the same engine module (compiled
// once, posted as a `WebAssembly.Module`), and the bytes are transferred back and supplied to
// the stream (`supply`), which meanwhile decodes everything else. No SharedArrayBuffer: the
// widget works on hosts without COOP/COEP. Keys, errors and offsets are the plain stream's (a
// job a worker fails is decompressed by the stream itself).

import { lzfDecompress } from '../pkg/bitlens.js';

/** Strings of at least this many decompressed bytes go to the pool: below it a job's two
 * copies and its message round trip cost about what decompressing it here does. */
export const MIN_JOB_BYTES = 128 * 1024;

/** Bytes received and not yet decoded above which the load stops reading its input until
 * the pool catches up: the memory the stream holds while it waits for jobs. */
export const MAX_HELD_BYTES = 64 * 1024 * 1024;

/** A module worker for `url`, or null when this context cannot start one. A cross-origin
 * script (the engine worker loaded from a CDN) is started through a same-origin blob
 * worker that imports it, as engine-client.js does for the engine worker. */
function startWorker(url) {
  if (typeof Worker !== 'function') return null;
  try {
    return new Worker(url, { type: 'module' });
  } catch (e) {
    if (!(e && e.name === 'SecurityError') || typeof Blob !== 'function') return null;
    try {
      const blob = new Blob([`import ${JSON.stringify(String(url))};`], { type: 'text/javascript' });
      return new Worker(URL.createObjectURL(blob), { type: 'module' });
    } catch {
      return null;
    }
  }
}

/** A job a worker has not answered in this long (ms) fails the worker: its jobs go back to
 * the stream (a 16 MiB string decompresses in about 40 ms). */
const JOB_TIMEOUT_MS = 30000;

/** One decode worker: its jobs in flight, and whether it still works. */
class DecodeWorker {
  constructor(worker, module) {
    this.worker = worker;
    this.pending = new Map();
    this.alive = true;
    this.timer = null;
    worker.onmessage = (e) => {
      const m = e.data;
      if (!m || m.type === 'ready') return;
      // (A failed instantiation, or a trap that may have left its memory broken.)
      if (m.type === 'init-error' || m.broken) return this.fail();
      const resolve = this.pending.get(m.id);
      this.pending.delete(m.id);
      this.watch();
      if (resolve) resolve(m.bytes instanceof Uint8Array ? m.bytes : null);
    };
    worker.onerror = () => this.fail();
    worker.onmessageerror = () => this.fail();
    worker.postMessage({ type: 'init', module });
  }

  /** Stops using this worker: its jobs resolve null (the stream decompresses them). */
  fail() {
    if (!this.alive) return;
    this.alive = false;
    clearTimeout(this.timer);
    for (const resolve of this.pending.values()) resolve(null);
    this.pending.clear();
    this.worker.terminate();
  }

  /** (Re)arms the timeout while jobs are out. */
  watch() {
    clearTimeout(this.timer);
    this.timer = this.pending.size ? setTimeout(() => this.fail(), JOB_TIMEOUT_MS) : null;
  }

  run(id, job) {
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      try {
        this.worker.postMessage({ id, data: job.data, len: job.len }, [job.data.buffer]);
        this.watch();
      } catch {
        this.fail();
      }
    });
  }
}

/**
 * A pool of `size` decode workers over the compiled engine module `module`, each given one job
 * at a time: `idle()` says whether one is free, `run(job)` resolves with the job's decompressed
 * bytes, or null when no worker could do it.
 */
export class DecodePool {
  /** A pool, or null when this context cannot start workers (or `size` < 1). */
  static create(module, size) {
    if (!(size >= 1) || typeof Worker !== 'function') return null;
    const url = new URL('./decode-worker.js', import.meta.url);
    const workers = [];
    for (let i = 0; i < size; i++) {
      const w = startWorker(url);
      if (w) workers.push(new DecodeWorker(w, module));
    }
    return workers.length ? new DecodePool(workers) : null;
  }

  constructor(workers) {
    this.workers = workers;
    this.nextId = 1;
  }

  /** Workers still usable. */
  get size() {
    return this.workers.filter((w) => w.alive).length;
  }

  /** Whether a usable worker has no job. */
  idle() {
    return this.workers.some((w) => w.alive && w.pending.size === 0);
  }

  /** Decompresses `job` ({data, len}; `data` is transferred) on a free worker (else the least
   * busy); resolves null when no worker could (never rejects). */
  run(job) {
    const live = this.workers.filter((w) => w.alive);
    if (!live.length) return Promise.resolve(null);
    const w = live.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    return w.run(this.nextId++, job).catch(() => null);
  }

  terminate() {
    for (const w of this.workers) if (w.alive) w.fail();
  }
}

/**
 * An `RdbStream` load whose large LZF strings are decompressed by `pool` and by this thread:
 * jobs wait in file order until a decode worker is free, and the one the stream waits on is
 * decompressed by the stream itself (declined: no copies) when no worker has taken it, so the
 * engine's worker decodes too instead of waiting. `push` each piece of the file (awaiting it:
 * it waits while more than MAX_HELD_BYTES are held undecoded), then `settle()` before
 * `engine.loadRdbStream(stream)`. The first error (a corrupt record met while supplying) is
 * thrown by the next `push` or by `settle`.
 */
export class OffloadedLoad {
  constructor(stream, pool, minBytes = MIN_JOB_BYTES) {
    this.stream = stream;
    this.pool = pool;
    this.queue = [];
    this.inFlight = 0;
    this.error = null;
    this.waiters = [];
    /** Jobs planned, their decompressed bytes, and those this thread decompressed. */
    this.jobs = 0;
    this.jobBytes = 0;
    this.here = 0;
    this.again = null;
    stream.offloadLzf(minBytes);
  }

  /** Pushes `chunk`, hands out the jobs it planned; resolves with [decoded, received]. */
  async push(chunk) {
    if (this.error) throw this.error;
    const progress = this.stream.push(chunk);
    this.pump();
    while (!this.error && this.inFlight > 0 && progress[1] - this.stream.progress()[0] > MAX_HELD_BYTES) {
      await this.change();
    }
    if (this.error) throw this.error;
    return this.stream.progress();
  }

  /** Resolves once every job sent is back and supplied (throws the load's error); jobs still
   * queued are left to `loadRdbStream`, which decompresses them. A worker that never answers
   * is failed after JOB_TIMEOUT_MS, so this always ends. */
  async settle() {
    while (!this.error && this.inFlight > 0) await this.change();
    clearTimeout(this.again);
    this.again = null;
    if (this.error) throw this.error;
  }

  /** Takes the stream's new jobs (dropping queued ones the stream has decoded past) and sends
   * them to free workers in file order. While the stream waits on a job that is still queued
   * (every worker busy), the stream decodes it itself (declined: no copies); while it waits on
   * one a worker has, this thread decompresses one queued job (`lzfDecompress`) per turn of
   * its event loop rather than idle, so that the workers' answers are taken as they come. */
  pump() {
    if (this.error) return;
    try {
      for (;;) {
        for (const job of this.stream.takeJobs()) {
          this.jobs++;
          this.jobBytes += job.len;
          this.queue.push(job);
        }
        const decoded = this.stream.progress()[0];
        if (this.queue.length && this.queue[0].offset < decoded) this.queue = this.queue.filter((j) => j.offset >= decoded);
        while (this.queue.length && this.pool.idle()) this.send(this.queue.shift());
        const waiting = this.stream.awaiting();
        if (waiting === undefined || !this.queue.length) return;
        const i = this.queue.findIndex((j) => j.offset === waiting);
        if (i < 0) break;
        this.here++;
        this.queue.splice(i, 1);
        this.stream.supply(waiting, null);
      }
      // Waiting on a worker: one queued job here, then back to the event loop.
      const job = this.queue.shift();
      this.here++;
      this.stream.supply(job.offset, lzfDecompress(job.data, job.len) ?? null);
      if (!this.again) {
        this.again = setTimeout(() => {
          this.again = null;
          this.pump();
        }, 0);
      }
    } catch (e) {
      this.fail(e);
    }
  }

  /** Records the load's first error and wakes whoever waits on the load. */
  fail(e) {
    if (!this.error) this.error = e;
    this.wake();
  }

  wake() {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  send(job) {
    this.inFlight++;
    this.pool.run(job).then((bytes) => {
      this.inFlight--;
      if (!this.error) {
        try {
          this.stream.supply(job.offset, bytes);
        } catch (e) {
          this.fail(e);
        }
        this.pump();
      }
      this.wake();
    });
  }

  /** Resolves at the next job's return. */
  change() {
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
