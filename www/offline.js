// Offline snapshots for the panel: a file the user opens or drops (a dump.rdb, DUMP payloads or
// raw GET bytes) is decoded in this browser — in a Web Worker through createEngine() of
// engine-client.js — and never uploaded. The worker engine answers the key browser; the keys the
// cards need are copied from it into the page's synchronous engine as a small RDB (strings and
// sorted sets only), so the cards and charts draw exactly as in online mode.
//
// When engine-client.js is not there (an older bundle), an in-page engine with the same
// promise API is used instead (the file is then read in 1 MiB slices, so the progress bar and
// Cancel still work between slices).

import init, { Engine } from '../pkg/bitlens.js';

/** Bytes read per slice by the in-page fallback loader. */
const SLICE = 1 << 20;

let clientModule;
/** engine-client.js when it exists next to this module, else null (looked up once). */
async function engineClient() {
  if (clientModule === undefined) {
    try {
      clientModule = await import('./engine-client.js');
    } catch {
      clientModule = null;
    }
  }
  return clientModule;
}

function abortError() {
  return new DOMException('The load was cancelled', 'AbortError');
}

/**
 * The promise API of engine-client.js over an Engine in this page, for when the client module
 * is missing. Same method names and shapes (see the helpers' contract).
 */
class PageEngine {
  constructor(engine) {
    this.engine = engine;
    this.inWorker = false;
  }

  async loadRdb(source, opts = {}) {
    const { db, patterns, checksum, onProgress, signal } = opts;
    let bytes;
    if (source instanceof Blob) {
      // Read in slices so progress is reported and Cancel is honoured between slices.
      bytes = new Uint8Array(source.size);
      for (let at = 0; at < source.size; at += SLICE) {
        if (signal?.aborted) throw abortError();
        const part = new Uint8Array(await source.slice(at, at + SLICE).arrayBuffer());
        bytes.set(part, at);
        onProgress?.(Math.min(at + SLICE, source.size) / 2, source.size);
      }
    } else {
      bytes = source instanceof Uint8Array ? source : new Uint8Array(source);
    }
    if (signal?.aborted) throw abortError();
    const half = bytes.length / 2;
    const options = { patterns, checksum, onProgress: onProgress && ((d, t) => onProgress(half + d / 2, t)) };
    const n = this.engine.loadRdb(bytes, db ?? 0, options);
    onProgress?.(bytes.length, bytes.length);
    return n;
  }

  async loadDump(key, bytes, opts) {
    if (typeof this.engine.loadDump !== 'function') throw new Error('this engine build cannot load DUMP payloads (loadDump is missing)');
    return this.engine.loadDump(key, bytes, opts);
  }

  async loadString(key, bytes) {
    if (typeof this.engine.loadString === 'function') return this.engine.loadString(key, bytes);
    return this.engine.setString(key, bytes);
  }

  async call(method, ...args) {
    if (typeof this.engine[method] !== 'function') throw new Error(`engine method ${method} is not a function`);
    return this.engine[method](...args);
  }

  async command(argv) {
    return this.engine.command(argv);
  }

  terminate() {
    this.engine.free?.();
    this.engine = null;
  }
}

/**
 * A promise-API engine for offline files: a Web Worker one by default (`worker: false` keeps
 * it in the page). Resolves with an object having loadRdb/loadDump/loadString/call/command/
 * terminate and `inWorker` (whether it runs in a worker).
 */
export async function openEngine({ worker = true } = {}) {
  const client = await engineClient();
  if (client && typeof client.createEngine === 'function') {
    const eng = await client.createEngine({ worker });
    if (eng.inWorker === undefined) eng.inWorker = typeof eng.worker === 'boolean' ? eng.worker : worker;
    return eng;
  }
  await init();
  return new PageEngine(new Engine());
}

/** The promise API over an existing in-page Engine (the key browser in online mode). */
export function wrapEngine(engine) {
  return new PageEngine(engine);
}

const MISSING = /not a function|unknown method|no such method|is not defined/i;

/**
 * `keyList(pattern, limit)` of the contract: {total, keys: [{key, type, encoding, bytes, ttlMs}]},
 * sorted by key. Engines without keyList get the same shape from KEYS/TYPE/STRLEN (encoding
 * unknown: '?').
 */
export async function keyList(eng, pattern, limit) {
  try {
    return await eng.call('keyList', pattern, limit);
  } catch (e) {
    if (!MISSING.test(e.message || '')) throw e;
  }
  const all = await eng.call('keys', pattern);
  const keys = [];
  for (const key of all.slice(0, limit)) {
    const type = await eng.command(['TYPE', key]);
    const bytes = type === 'string' ? await eng.command(['STRLEN', key]) : 0;
    keys.push({ key, type, encoding: '?', bytes, ttlMs: null });
  }
  return { total: all.length, keys };
}

/**
 * `keyDetail(key, {buckets, maxPoints})` of the contract; engines without it get bitmap and
 * GEO details from GET / ZRANGE / GEOPOS and HLL cardinalities from PFCOUNT (no register
 * histogram then).
 */
export async function keyDetail(eng, key, opts = {}) {
  try {
    return await eng.call('keyDetail', key, opts);
  } catch (e) {
    if (!MISSING.test(e.message || '')) throw e;
  }
  const type = await eng.command(['TYPE', key]);
  if (type === 'none') return null;
  const base = { key, type, encoding: '?', bytes: 0, ttlMs: null };
  if (type === 'string') {
    const raw = await eng.call('commandRaw', ['GET', key]);
    base.bytes = raw.length;
    if (raw.length >= 4 && String.fromCharCode(...raw.subarray(0, 4)) === 'HYLL') {
      return { ...base, kind: 'hll', hllEncoding: raw[4] === 0 ? 'dense' : 'sparse', cardinality: await eng.command(['PFCOUNT', key]), registerHistogram: null };
    }
    return { ...base, kind: 'bitmap', ...bitmapSummary(raw, opts.buckets || 256) };
  }
  if (type === 'zset') {
    const members = await eng.command(['ZCARD', key]);
    const names = await eng.command(['ZRANGE', key, '0', String((opts.maxPoints || 2000) - 1)]);
    const pos = names.length ? await eng.command(['GEOPOS', key, ...names]) : [];
    const points = names.map((m, i) => (pos[i] ? { member: m, lon: Number(pos[i][0]), lat: Number(pos[i][1]) } : null)).filter(Boolean);
    const lons = points.map((p) => p.lon);
    const lats = points.map((p) => p.lat);
    const bbox = points.length ? [Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats)] : null;
    return { ...base, kind: 'geo', members, bbox, points };
  }
  return { ...base, kind: 'other' };
}

/** bits, bitcount and per-bucket set-bit fractions of raw bitmap bytes. */
function bitmapSummary(raw, buckets) {
  const bits = raw.length * 8;
  const n = Math.max(1, Math.min(buckets, bits || 1));
  const counts = new Array(n).fill(0);
  let bitcount = 0;
  for (let i = 0; i < raw.length; i++) {
    let b = raw[i];
    if (!b) continue;
    for (let j = 0; j < 8; j++) {
      if (b & (0x80 >> j)) {
        bitcount++;
        counts[Math.floor(((i * 8 + j) * n) / bits)]++;
      }
    }
  }
  const density = counts.map((c, k) => {
    const width = Math.floor(((k + 1) * bits) / n) - Math.floor((k * bits) / n);
    return width ? c / width : 0;
  });
  return { bits, bitcount, density };
}

// ---- copying keys into the page engine -------------------------------------------------------

/** RDB length encoding (6-bit, 14-bit, 32-bit or 64-bit big-endian). */
function rdbLen(out, n) {
  if (n < 64) out.push(n);
  else if (n < 16384) out.push(0x40 | (n >> 8), n & 0xff);
  else if (n <= 0xffffffff) out.push(0x80, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
  else {
    out.push(0x81);
    const hi = Math.floor(n / 2 ** 32);
    for (const v of [hi, n >>> 0]) out.push((v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
  }
}

/**
 * A minimal RDB (version 9, database 0, checksum 0 = not checked, as Redis writes with
 * rdbchecksum no) holding `entries`: {key, string: Uint8Array} (type 0) or
 * {key, zset: [[member, score]...]} (type 5, scores as little-endian binary doubles).
 */
export function miniRdb(entries) {
  const enc = new TextEncoder();
  const parts = [];
  let head = [...enc.encode('REDIS0009'), 0xfe, 0];
  parts.push(Uint8Array.from(head));
  const str = (bytes) => {
    const h = [];
    rdbLen(h, bytes.length);
    parts.push(Uint8Array.from(h), bytes);
  };
  for (const e of entries) {
    parts.push(Uint8Array.of(e.zset ? 5 : 0));
    str(enc.encode(e.key));
    if (e.zset) {
      const h = [];
      rdbLen(h, e.zset.length);
      parts.push(Uint8Array.from(h));
      for (const [m, score] of e.zset) {
        str(enc.encode(m));
        const d = new Uint8Array(8);
        new DataView(d.buffer).setFloat64(0, score, true);
        parts.push(d);
      }
    } else {
      str(e.string);
    }
  }
  parts.push(Uint8Array.of(0xff, 0, 0, 0, 0, 0, 0, 0, 0));
  head = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(head);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Copies the keys matching `patterns` from promise-API engine `src` into the page's `engine`
 * (replacing its content): strings byte for byte, sorted sets (GEO sets) with their exact
 * scores. Other types are not needed by the cards and are skipped. Returns the keys copied.
 */
export async function copyKeys(src, engine, patterns, signal) {
  const keys = [...new Set((await Promise.all(patterns.map((p) => src.call('keys', p)))).flat())].sort();
  const entries = [];
  for (const key of keys) {
    if (signal?.aborted) throw abortError();
    const type = await src.command(['TYPE', key]);
    if (type === 'string') {
      entries.push({ key, string: await src.call('commandRaw', ['GET', key]) });
    } else if (type === 'zset') {
      const flat = await src.command(['ZRANGE', key, '0', '-1', 'WITHSCORES']);
      const zset = [];
      for (let i = 0; i < flat.length; i += 2) zset.push([flat[i], Number(flat[i + 1])]);
      entries.push({ key, zset });
    }
  }
  engine.loadRdb(miniRdb(entries));
  return entries.length;
}

/** True when `bytes` (the first bytes of a file) start an RDB file ("REDIS" magic). */
export function isRdb(bytes) {
  return bytes.length >= 5 && String.fromCharCode(...bytes.subarray(0, 5)) === 'REDIS';
}

/** The key a DUMP file is loaded as by default: its name without a .dump/.bin/.rdb extension. */
export function keyFromFileName(name) {
  return String(name).replace(/\.(dump|bin|raw|payload)$/i, '');
}
