// Every core in the browser (issue 29 §2): the engine worker hands the large LZF strings of a
// snapshot to its pool of decode workers (www/decode-pool.js). In headless Chromium, a file a
// real redis-server saved (compressed bitmaps, a hashtable hash and set of large compressed
// values, small keys) is loaded through the client from a URL (decoded while downloading) and
// from a File, with the pool (`decodeWorkers` 2) and without (0). Every answer must be the same:
// keys, info, memory report, and each key's replies; the pool must have done the decompression
// (the URL load's timing counts the jobs, the decode worker's script was fetched). A damaged
// copy and a cut copy fail with the same error (kind, offset, key, message) either way.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, launchBrowser, redisCli, redisPipe, startRedis, tempDir } from './harness.mjs';
import { staticServer } from './static-server.mjs';

/** A compressible value of `n` bytes (a bitmap of runs), different for each `seed`. */
function bitmap(n, seed) {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = ((i >> 6) * (seed + 3)) % 7 === 0 ? 0xff : (i % (seed + 5) === 0 ? 1 : 0);
  return b;
}

/** The data set: large strings to offload, values inside a hash and a set, small keys. */
function commands() {
  const out = [];
  for (let k = 0; k < 12; k++) out.push(['SET', `bm:${k}`, bitmap(200_000 + k * 60_000, k)]);
  const hash = ['HSET', 'big:hash'];
  for (let f = 0; f < 6; f++) hash.push(`f${f}`, bitmap(150_000, 20 + f));
  out.push(hash);
  const set = ['SADD', 'big:set'];
  for (let m = 0; m < 4; m++) set.push(bitmap(140_000, 40 + m));
  out.push(set);
  for (let i = 0; i < 300; i++) out.push(['SET', `user:${i}:name`, `name-${i}`]);
  for (let i = 0; i < 50; i++) out.push(['HSET', `profile:${i}`, 'city', 'Lyon', 'age', String(20 + i)]);
  out.push(['PEXPIREAT', 'bm:3', '4102444800000']);
  return out;
}

/**
 * Runs in the page: loads `source` ('url' or 'file', the file at `file`) into a fresh worker
 * client with `decodeWorkers`, and returns everything it answers, or the error.
 */
async function loadAndRead({ file, source, decodeWorkers }) {
  const { createEngine } = await import('/www/engine-client.js');
  const eng = await createEngine({ worker: true });
  const plain = (v) => {
    if (ArrayBuffer.isView(v)) return Array.from(v).join(',');
    if (Array.isArray(v)) return v.map(plain);
    if (v instanceof Error) return { error: v.message };
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
    return v;
  };
  const out = {};
  try {
    if (source === 'url') {
      out.loaded = plain(await eng.loadUrl(file, { decodeWorkers, checksum: false }));
      const busy = performance.getEntriesByName('bitlens-decode-busy').at(-1);
      out.timing = busy ? { jobs: busy.detail.offloadedJobs ?? 0, workers: busy.detail.decodeWorkers ?? 0 } : null;
    } else {
      const blob = await (await fetch(file)).blob();
      const progress = [];
      out.loaded = await eng.loadRdb(new File([blob], 'dump.rdb'), {
        decodeWorkers, checksum: false, onProgress: (d, t) => progress.push([d, t]),
      });
      out.lastProgress = progress.at(-1);
    }
  } catch (e) {
    out.error = { message: e.message, kind: e.kind, offset: e.offset, key: e.key };
    eng.terminate();
    return out;
  }
  out.info = plain(await eng.call('info'));
  const list = await eng.call('keyList', '*', 1000);
  out.keys = plain(list);
  out.report = plain(await eng.call('memoryReport'));
  out.replies = [];
  for (const k of list.keys.map((x) => x.key).sort()) {
    for (const argv of [['TYPE', k], ['OBJECT', 'ENCODING', k], ['PTTL', k]]) {
      out.replies.push([argv, plain(await eng.call('commandRaw', argv))]);
    }
    const type = await eng.call('command', ['TYPE', k]);
    const reads = { string: [['STRLEN', k], ['BITCOUNT', k], ['GETRANGE', k, '1000', '1063'], ['GETRANGE', k, '-64', '-1'], ['BITPOS', k, '0', '150000']], hash: [['HGETALL', k]], set: [['SMEMBERS', k]] }[type] || [];
    for (const argv of reads) out.replies.push([argv, plain(await eng.call('commandRaw', argv))]);
  }
  eng.terminate();
  return out;
}

describe('decode workers', () => {
  let redis;
  let server;
  let browser;
  let page;
  const pageErrors = [];
  const dir = tempDir('bitlens-decode-workers-');
  const name = path.basename(dir);

  before(async () => {
    redis = await startRedis();
    redisPipe(redis.port, commands());
    redisCli(redis.port, ['SAVE']);
    const whole = readFileSync(path.join(redis.dir, 'dump.rdb'));
    // Served from a directory under the repository (the static server serves ROOT only).
    const served = path.join(ROOT, 'test-artifacts', name);
    (await import('node:fs')).mkdirSync(served, { recursive: true });
    copyFileSync(path.join(redis.dir, 'dump.rdb'), path.join(served, 'dump.rdb'));
    // A damaged copy (64 bytes changed in three places in the middle of the big strings, so
    // that LZF control bytes are hit: a single changed byte inside a literal run leaves a
    // well-formed string, and the file loads with the checksum off) and a cut one.
    const bad = Buffer.from(whole);
    for (const at of [0.3, 0.5, 0.7]) {
      const from = Math.floor(bad.length * at);
      for (let i = from; i < from + 64; i++) bad[i] ^= 0x5a;
    }
    writeFileSync(path.join(served, 'bad.rdb'), bad);
    writeFileSync(path.join(served, 'cut.rdb'), whole.subarray(0, Math.floor(whole.length * 0.6)));
    server = await staticServer(ROOT, { '/blank': '<!doctype html><html><head><meta charset="utf-8"></head><body></body></html>' });
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(server.url + '/blank');
  });

  after(async () => {
    if (browser) await browser.close().catch(() => {});
    if (server) await server.close();
    if (redis) await redis.proc.stop();
  });

  const url = (f) => `/test-artifacts/${name}/${f}`;

  for (const source of ['url', 'file']) {
    test(`a ${source} load answers the same with and without the pool, and the pool did the work`, async () => {
      const alone = await page.evaluate(loadAndRead, { file: url('dump.rdb'), source, decodeWorkers: 0 });
      const before = server.requests.filter((r) => r.endsWith('/decode-worker.js')).length;
      const pooled = await page.evaluate(loadAndRead, { file: url('dump.rdb'), source, decodeWorkers: 2 });
      assert.equal(alone.error, undefined, JSON.stringify(alone.error));
      assert.equal(pooled.error, undefined, JSON.stringify(pooled.error));
      assert.equal(alone.keys.total ?? alone.keys.keys.length, 364);
      assert.deepEqual(pooled.info, alone.info);
      assert.deepEqual(pooled.keys, alone.keys);
      assert.deepEqual(pooled.report, alone.report);
      assert.equal(pooled.replies.length, alone.replies.length);
      for (let i = 0; i < alone.replies.length; i++) assert.deepEqual(pooled.replies[i], alone.replies[i]);
      // Real values: the 12 bitmaps, the hash's and the set's values.
      const bitcounts = alone.replies.filter(([a]) => a[0] === 'BITCOUNT' && a[1].startsWith('bm:'));
      assert.equal(bitcounts.length, 12);
      assert.ok(bitcounts.every(([, r]) => typeof r === 'number' && r > 1000), JSON.stringify(bitcounts.slice(0, 2)));
      if (source === 'url') {
        assert.equal(alone.timing.jobs, 0);
        assert.equal(pooled.timing.workers, 2);
        // Every value of at least 128 KiB: 12 bitmaps, 6 hash values, 4 set members.
        assert.equal(pooled.timing.jobs, 22);
      } else {
        assert.deepEqual(pooled.lastProgress, alone.lastProgress);
      }
      // The pooled load started decode workers (each fetched its script).
      const after = server.requests.filter((r) => r.endsWith('/decode-worker.js')).length;
      assert.ok(after - before >= 2, `${after - before} decode workers started`);
      assert.deepEqual(pageErrors, []);
    });

    for (const bad of ['bad.rdb', 'cut.rdb']) {
      test(`a ${source} load of ${bad} fails the same with and without the pool`, async () => {
        const alone = await page.evaluate(loadAndRead, { file: url(bad), source, decodeWorkers: 0 });
        const pooled = await page.evaluate(loadAndRead, { file: url(bad), source, decodeWorkers: 2 });
        assert.ok(alone.error && alone.error.message, JSON.stringify(alone));
        assert.deepEqual(pooled.error, alone.error);
        assert.equal(typeof alone.error.offset, 'number');
      });
    }
  }
});
