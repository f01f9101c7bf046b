// Offline snapshots for the panel: a file the user opens or drops (a dump.rdb, DUMP payloads or
// raw GET bytes) is decoded in this browser — in a Web Worker through createEngine() of
// engine-client.js — and never uploaded. The worker engine answers the key browser; the keys the
// cards need are copied from it into the page's synchronous engine as a small RDB (strings and
// sorted sets only), so the cards and charts draw exactly as in online mode.

import { createEngine } from './engine-client.js';

function abortError() {
  return new DOMException('The load was cancelled', 'AbortError');
}

/**
 * A promise-API engine for offline files (engine-client.js): in a Web Worker by default,
 * `worker: false` keeps it in the page. `inWorker` tells which one it got.
 */
export async function openEngine({ worker = true } = {}) {
  const eng = await createEngine({ worker });
  eng.inWorker = eng.worker === true;
  return eng;
}

/**
 * The call/command part of the promise API over an existing in-page Engine (the key browser
 * over a fetched snapshot). `terminate()` leaves the engine alone: the panel owns it.
 */
export function wrapEngine(engine) {
  return {
    engine,
    inWorker: false,
    async call(method, ...args) {
      if (typeof engine[method] !== 'function') throw new Error(`bitlens Engine: no such method ${JSON.stringify(method)}`);
      return engine[method](...args);
    },
    async command(argv) {
      return engine.command(argv);
    },
    terminate() {},
  };
}

/**
 * `keyList(pattern, limit, {expired})`: {total, keys: [{key, type, encoding, bytes, ttlMs}]},
 * sorted by key, of the selected database; keys already expired at the engine's clock only with
 * `expired: true` (their ttlMs is then negative).
 */
export function keyList(eng, pattern, limit, options = {}) {
  return eng.call('keyList', pattern, limit, options);
}

/**
 * `keyDetail(key, {buckets, maxPoints})`: the bitmap density, HLL register histogram or GEO
 * points of a key (null when it does not exist).
 */
export function keyDetail(eng, key, opts = {}) {
  return eng.call('keyDetail', key, opts);
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

/** RDB type bytes of the empty stand-ins for other types: list, set, hash (0 elements). */
const OTHER_TYPE_BYTE = { list: 1, set: 2, hash: 4 };

/**
 * A minimal RDB (version 9, database 0, checksum 0 = not checked, as Redis writes with
 * rdbchecksum no) holding `entries`: {key, string: Uint8Array} (type 0),
 * {key, zset: [[member, score]...]} (type 5, scores as little-endian binary doubles) or
 * {key, other: typeByte} (an empty list, set or hash: only its type matters).
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
    parts.push(Uint8Array.of(e.other ?? (e.zset ? 5 : 0)));
    str(enc.encode(e.key));
    if (e.other !== undefined) {
      parts.push(Uint8Array.of(0)); // no elements
    } else if (e.zset) {
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

/** Strings longer than this that are not HyperLogLogs cross to the page as Roaring bitmaps. */
const ROARING_OVER = 1 << 20;

/**
 * Copies the keys matching `patterns` from promise-API engine `src` into the page's `engine`
 * (replacing its content): strings byte for byte — except big bitmaps, which go over as
 * Roaring bitmaps so a sparse one stays small (same bits, trailing zero bytes dropped) —
 * and sorted sets (GEO sets) with their exact scores. Keys of other types become empty values
 * of their type (so a card reading one gets WRONGTYPE, as from Redis). Returns the number of
 * keys copied.
 */
export async function copyKeys(src, engine, patterns, signal) {
  const keys = [...new Set((await Promise.all(patterns.map((p) => src.call('keys', p)))).flat())].sort();
  const entries = [];
  const roaring = [];
  for (const key of keys) {
    if (signal?.aborted) throw abortError();
    const type = await src.command(['TYPE', key]);
    if (type === 'string') {
      const big = (await src.command(['STRLEN', key])) > ROARING_OVER && (await src.command(['GETRANGE', key, '0', '3'])) !== 'HYLL';
      if (big) roaring.push({ key, bytes: await src.call('exportRoaring', key) });
      else entries.push({ key, string: await src.call('commandRaw', ['GET', key]) });
    } else if (type === 'zset') {
      const flat = await src.command(['ZRANGE', key, '0', '-1', 'WITHSCORES']);
      const zset = [];
      for (let i = 0; i < flat.length; i += 2) zset.push([flat[i], Number(flat[i + 1])]);
      entries.push({ key, zset });
    } else if (type !== 'none') {
      // A key of another type: the cards only need to get WRONGTYPE for it, as Redis gives, so
      // an empty value of that type (a hash for types without an empty form here) stands in.
      entries.push({ key, other: OTHER_TYPE_BYTE[type] ?? OTHER_TYPE_BYTE.hash });
    }
  }
  engine.loadRdb(miniRdb(entries));
  for (const { key, bytes } of roaring) engine.loadRoaring(key, bytes);
  return entries.length + roaring.length;
}

/** Bytes of a file's head enough for an RDB header and its leading aux fields. */
const HEAD_BYTES = 64 * 1024;

/**
 * What `file` (a File/Blob) is, by its content, as the core decides it (`snapshotInfo` of the
 * wasm module, `crate::inspect::identify`): `{kind: 'rdb'|'unsupported-rdb'|'dump'|'raw'|'empty',
 * description, format, writer, error}`. Reads the file's head first (an RDB is told by its
 * magic); a DUMP payload is told by its trailer and CRC, so other files are read whole.
 * `snapshotInfo` is the wasm module's function (the module must be initialised).
 */
export async function identifyFile(file, snapshotInfo) {
  const head = new Uint8Array(await file.slice(0, Math.min(file.size, HEAD_BYTES)).arrayBuffer());
  const info = snapshotInfo(head);
  if (info.kind === 'rdb' || info.kind === 'unsupported-rdb' || info.kind === 'empty' || file.size <= HEAD_BYTES) return info;
  return snapshotInfo(new Uint8Array(await file.arrayBuffer()));
}

/**
 * The key a DUMP (or raw) file is loaded as by default: its name without a
 * .dump/.bin/.raw/.payload extension, URL-decoded (`bm%3Aone.bin` is key `bm:one`; a name
 * that is not valid percent-encoding is kept as it is).
 */
export function keyFromFileName(name) {
  const base = String(name).replace(/\.(dump|bin|raw|payload)$/i, '');
  try {
    return decodeURIComponent(base);
  } catch {
    return base;
  }
}

/**
 * The database the panel opens first: the first one holding a key matching one of `patterns`
 * (the cards' keys), else the first one holding any key, else 0. `info` is the engine's info().
 * Leaves `eng` with that database selected.
 */
export async function firstDbWithKeys(eng, info, patterns) {
  const dbs = info.databases.filter((d) => d.keys > 0).map((d) => d.db);
  let chosen = dbs.length ? dbs[0] : info.selected;
  for (const db of dbs) {
    await eng.call('select', db);
    let hit = false;
    for (const p of patterns) {
      if ((await eng.call('keyList', p, 0)).total > 0) {
        hit = true;
        break;
      }
    }
    if (hit) {
      chosen = db;
      break;
    }
  }
  await eng.call('select', chosen);
  return chosen;
}
