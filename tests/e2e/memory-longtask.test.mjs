// End to end: the memory view of a large snapshot is computed in the engine's Web Worker and
// the page stays free (issue 17 §6). A real redis-server holds BITLENS_MEMORY_MB (default 300)
// daily-active bitmaps of 1 MiB of pseudo-random bits (incompressible: the saved dump.rdb is
// about that size; each is priced by the memory ledger, 4 M set bits as a Set and as Roaring)
// plus 100,000 small keys of several patterns, some with a TTL. The file is opened with "Open
// snapshot…"; a PerformanceObserver of `longtask` entries, installed before any page script,
// records every main-thread task over 50 ms. The test prints the time from the file's
// selection to the drawn memory view and every long task, split into those while the worker
// computed the report and the rest (a measurement: no timed assert), and asserts the view
// counts redis-server's DBSIZE and that its TTL histogram's keys with no expiry are DBSIZE
// less the server's `INFO keyspace` expires.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  ROOT, launchBrowser, redisCli, redisPipe, rng, startRedis,
} from './harness.mjs';
import { staticServer } from './static-server.mjs';

const MB = Number(process.env.BITLENS_MEMORY_MB || 300);
const KEY_BYTES = 1 << 20;
const SMALL = 100000;

test(`the memory view of a ${MB} MB snapshot is computed in the worker (long tasks measured)`, { timeout: 1800000 }, async (t) => {
  const redis = await startRedis();
  const next = rng(17);
  for (let i = 0; i < MB; i += 16) {
    const batch = [];
    for (let k = i; k < Math.min(MB, i + 16); k++) {
      const words = new Uint32Array(KEY_BYTES / 4);
      for (let j = 0; j < words.length; j++) words[j] = next() * 4294967296;
      batch.push(['SET', `stats:active:${String(k).padStart(4, '0')}`, Buffer.from(words.buffer)]);
    }
    redisPipe(redis.port, batch);
  }
  for (let i = 0; i < SMALL; i += 5000) {
    const batch = [];
    for (let k = i; k < i + 5000; k++) {
      if (k % 3 === 0) batch.push(['HSET', `user:${k}:profile`, 'name', `u${k}`, 'plan', k % 7 ? 'free' : 'pro']);
      else if (k % 3 === 1) batch.push(['SET', `session:${k}`, 'x'.repeat(40), 'EX', String(60 + (k % 100000))]);
      else batch.push(['SADD', `tags:${k % 5000}`, String(k)]);
    }
    redisPipe(redis.port, batch);
  }
  redisCli(redis.port, ['SAVE']);
  const rdb = path.join(redis.dir, 'dump.rdb');
  const size = statSync(rdb).size;
  const dbsize = Number(redisCli(redis.port, ['DBSIZE']).trim());
  const expires = Number(/expires=(\d+)/.exec(redisCli(redis.port, ['INFO', 'keyspace']))[1]);
  const web = await staticServer(ROOT, { '/': readFileSync(path.join(ROOT, 'index.html'), 'utf8') });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.addInitScript(() => {
      window.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
      }).observe({ type: 'longtask', buffered: true });
    });
    await page.goto(`${web.url}/?lang=en`);
    await page.waitForSelector('[data-testid=panel][data-state=error]', { timeout: 60000 });
    const t0 = await page.evaluate(() => performance.now());
    await page.setInputFiles('[data-testid=file-input]', rdb);
    await page.waitForSelector('[data-testid=panel][data-offline=ready]', { timeout: 900000 });
    const loaded = await page.evaluate(() => performance.now());
    // The view shows 'loading' while the worker computes, then 'ready'.
    await page.waitForSelector('[data-testid=memory-section][data-state=ready]', { timeout: 900000 });
    const ready = await page.evaluate(() => performance.now());
    const tasks = await page.evaluate(() => window.__longTasks);
    const summary = await page.$eval('[data-testid=mem-summary]', (e) => ({ keys: Number(e.dataset.keys), memory: Number(e.dataset.memory) }));
    const ttl = await page.$$eval('[data-testid=mem-ttl] tbody tr', (trs) => trs.map((tr) => [tr.dataset.name, Number(tr.dataset.keys)]));
    const ledgerRows = await page.$$eval('[data-testid=mem-ledger] tbody tr', (trs) => trs.length);
    const tiles = await page.$$eval('[data-testid=mem-tile]', (bs) => bs.length);
    const r = (x) => ({ start: Math.round(x.start), ms: Math.round(x.duration) });
    // While the worker computes the report: after the keys are loaded, before the view's draw
    // (the last task before `ready` is the draw itself, reported apart).
    const computing = tasks.filter((x) => x.start >= loaded && x.start + x.duration < ready).map(r);
    const loading = tasks.filter((x) => x.start >= t0 && x.start < loaded).map(r);
    t.diagnostic(`snapshot ${(size / 1e6).toFixed(1)} MB, ${dbsize} keys: keys loaded ${(loaded - t0).toFixed(0)} ms after the file's selection, memory view drawn ${(ready - t0).toFixed(0)} ms after it (report ${(ready - loaded).toFixed(0)} ms after the load); ${tiles} treemap tiles, ${ledgerRows} ledger rows; long tasks while loading ${JSON.stringify(loading)}, after the load until drawn ${JSON.stringify(computing)}; all ${JSON.stringify(tasks.map(r))}`);
    assert.equal(summary.keys, dbsize);
    assert.equal(ttl.find((x) => x[0] === 'no expiry')[1], dbsize - expires);
    assert.ok(ledgerRows > 0);
  } finally {
    await browser.close();
    await web.close();
    await redis.proc.stop();
  }
});
