// The wasm RdbStream (decoding while downloading) against loadRdb, in Node (no browser): every
// fixture RDB and conformance snapshot pushed in pieces of 1, 7, 64 and 4,096 bytes and at
// random points gives an engine whose info(), key list and every key's keyDetail equal those of
// an engine that loaded the whole file with loadRdb; a cut or damaged file throws loadRdb's
// error message (offset and key included) from push or loadRdbStream, and leaves the engine's
// previous keys in place.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, rng } from './harness.mjs';
import { Engine, RdbStream, initSync } from '../../pkg/bitlens.js';

// A fixed clock (files without ctime would be judged at the wall clock, which moves).
const OPTS = { clock: 1700000000000 };

initSync({ module: readFileSync(path.join(ROOT, 'pkg/bitlens_bg.wasm')) });

const files = [
  ...readdirSync(path.join(ROOT, 'tests/data/fixtures')).filter((f) => f.endsWith('.rdb')).map((f) => path.join(ROOT, 'tests/data/fixtures', f)),
  ...['signin', 'hll', 'geo', 'bitmaps'].map((s) => path.join(ROOT, 'tests/data/conformance', s, 'dump.rdb')).filter(existsSync),
];

/** What an engine holds: info and every key's detail, or the error its load threw. */
function view(load) {
  const e = new Engine();
  e.loadString('previous', new Uint8Array([1]));
  try {
    load(e);
  } catch (err) {
    // The engine keeps what it held.
    return { error: err.message, kept: e.keyList('*', 10).keys.length };
  }
  const keys = e.keyList('*', 1e6).keys;
  const details = keys.map((k) => e.keyDetail(k.key));
  return { info: e.info(), keys, details };
}

/** `bytes` pushed into an RdbStream in pieces of `sizes` (cycled), then loaded. */
function pushed(e, bytes, sizes, announce = undefined) {
  const s = new RdbStream(0, OPTS);
  if (announce !== undefined) s.announceLen(announce);
  let at = 0;
  let i = 0;
  try {
    while (at < bytes.length) {
      const n = Math.min(sizes[i++ % sizes.length], bytes.length - at);
      const [decoded, received] = s.push(bytes.subarray(at, at + n));
      at += n;
      assert.equal(received, at);
      assert.ok(decoded <= received);
    }
  } catch (err) {
    s.free();
    throw err;
  }
  return e.loadRdbStream(s);
}

test('RdbStream pushed in pieces loads what loadRdb loads, errors included', () => {
  const next = rng(16);
  assert.ok(files.length >= 12, files.join(' '));
  for (const file of files) {
    const whole = new Uint8Array(readFileSync(file));
    const cut = whole.slice(0, Math.floor(next() * whole.length));
    const flipped = whole.slice();
    flipped[Math.floor(next() * flipped.length)] ^= 1 << Math.floor(next() * 8);
    for (const [what, bytes] of [['whole', whole], ['cut', cut], ['flipped', flipped]]) {
      const want = view((e) => e.loadRdb(bytes, 0, OPTS));
      const random = Array.from({ length: 32 }, () => 1 + Math.floor(next() * 20000));
      const schedules = bytes.length > 200000 ? [[4096], random] : [[1], [7], [64], [4096], random];
      for (const sizes of schedules) {
        assert.deepEqual(view((e) => pushed(e, bytes, sizes)), want, `${path.basename(path.dirname(file))}/${path.basename(file)} ${what} pieces ${sizes.slice(0, 3)}`);
      }
      // An announced length (a File's size, a Content-Length) only sizes the keyspace: right,
      // short or long, the load is the same.
      for (const announce of [bytes.length, whole.length, Math.floor(bytes.length / 3), bytes.length * 4 + 7]) {
        assert.deepEqual(view((e) => pushed(e, bytes, random, announce)), want, `${path.basename(file)} ${what} announced ${announce}`);
      }
    }
  }
});

test('RdbStream.announceLen takes a non-negative integer', () => {
  const s = new RdbStream(0, OPTS);
  try {
    for (const bad of [-1, 1.5, NaN, Infinity, 2 ** 54]) {
      assert.throws(() => s.announceLen(bad), /announceLen: bytes must be a non-negative integer/, String(bad));
    }
    s.announceLen(0);
  } finally {
    s.free();
  }
});
