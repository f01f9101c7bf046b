// Offline snapshots for the panel: what a file the user opens or drops is (a dump.rdb, DUMP
// payloads or raw GET bytes, as the core tells it) and the key a DUMP file loads as (the
// database the panel opens first is the engine's overview's). Files are decoded in this
// browser by the panel's engine (www/load.js, engine-client.js: a Web Worker) and never
// uploaded.

import { HEAD_BYTES } from './snapshot.js';

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

/**
 * What `file` (a File/Blob) is, by its content, as the core decides it (`snapshotInfo` of the
 * wasm module, `crate::inspect::identify`): `{kind: 'rdb'|'unsupported-rdb'|'dump'|'raw'|'empty',
 * description, format, writer, error}`. Reads the file's head first (an RDB is told by its
 * magic); a DUMP payload is told by its trailer and CRC, so other files are read whole.
 * `snapshotInfo(bytes)` answers (or resolves with) the engine's snapshotInfo of `bytes`: the
 * panel asks its worker engine (`eng.call('snapshotInfo', bytes)`), the page holds no engine.
 */
export async function identifyFile(file, snapshotInfo) {
  const head = new Uint8Array(await file.slice(0, Math.min(file.size, HEAD_BYTES)).arrayBuffer());
  const info = await snapshotInfo(head);
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
