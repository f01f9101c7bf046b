// End to end: the page's main thread stays free while a large snapshot loads (issue 16 §2).
// A real redis-server holds BITLENS_LONGTASK_MB (default 300) daily-active bitmaps of 1 MiB of
// pseudo-random bits (incompressible, so the saved dump.rdb is about that size); its dump.rdb
// is served as /api/snapshot (Content-Length, streamed from disk) next to index.html, www/ and
// pkg/. The panel downloads and decodes it inside its Web Worker; a PerformanceObserver of
// `longtask` entries, installed before any page script, records every main-thread task over
// 50 ms; from the start of the load (a mark the load controller sets) until the cards are drawn
// the test asserts there is none (tasks of the page's start-up before it are printed), that the
// active-users card equals redis-server's BITCOUNT of the latest day and that the panel counts
// redis-server's DBSIZE; it prints the load time beside the time of a bare download of the same
// URL in the same page (no timed assert).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import path from 'node:path';
import {
  ROOT, bareDownload, launchBrowser, redisCli, redisPipe, rng, startRedis,
} from './harness.mjs';
import { staticServer } from './static-server.mjs';

const MB = Number(process.env.BITLENS_LONGTASK_MB || 300);
const KEY_BYTES = 1 << 20;

/** `n` days (YYYYMMDD) from 2024-01-01. */
function days(n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(new Date(Date.UTC(2024, 0, 1) + i * 86400000).toISOString().slice(0, 10).replace(/-/g, ''));
  return out;
}

test(`no main-thread task over 50 ms while a ${MB} MB snapshot downloads and decodes`, { timeout: 900000 }, async () => {
  const redis = await startRedis();
  const keys = days(MB).map((d) => `stats:active:${d}`);
  const next = rng(16);
  for (let i = 0; i < keys.length; i += 16) {
    const batch = keys.slice(i, i + 16).map((k) => {
      const words = new Uint32Array(KEY_BYTES / 4);
      for (let j = 0; j < words.length; j++) words[j] = next() * 4294967296;
      return ['SET', k, Buffer.from(words.buffer)];
    });
    redisPipe(redis.port, batch);
  }
  redisCli(redis.port, ['SAVE']);
  const rdb = path.join(redis.dir, 'dump.rdb');
  const size = statSync(rdb).size;
  const dbsize = Number(redisCli(redis.port, ['DBSIZE']).trim());
  const last = keys[keys.length - 1];
  const bitcount = Number(redisCli(redis.port, ['BITCOUNT', last]).trim());
  const web = await staticServer(ROOT, {}, { snapshot: rdb });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    await page.addInitScript(() => {
      window.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
      }).observe({ type: 'longtask', buffered: true });
    });
    await page.goto(`${web.url}/?cards=active`);
    await page.waitForSelector('[data-testid=panel][data-state=ready]', { timeout: 600000 });
    const out = await page.evaluate(() => ({
      ready: performance.now(),
      loadStart: performance.getEntriesByName('bitlens-load-start').at(-1)?.startTime ?? null,
      loadEnd: performance.getEntriesByName('bitlens-load-end').at(-1)?.startTime ?? null,
      tasks: window.__longTasks,
      // When the page's scripts and wasm arrived, to tell what a long task was next to.
      resources: performance.getEntriesByType('resource')
        .filter((r) => /\.(js|wasm)$/.test(r.name))
        .map((r) => `${r.name.replace(/^.*\//, '')}@${r.responseEnd.toFixed(0)}`),
    }));
    // A bare download of the same URL in the same page, for comparison.
    const download = await bareDownload(page);
    const longest = out.tasks.reduce((m, t) => Math.max(m, t.duration), 0);
    console.log(`# snapshot ${(size / 1e6).toFixed(1)} MB, ${dbsize} keys: load (worker start, download, decode) from ${out.loadStart?.toFixed(0)} to ${out.loadEnd?.toFixed(0)} ms, cards drawn ${out.ready.toFixed(0)} ms after navigation; bare download ${download.ms.toFixed(0)} ms; long tasks: ${JSON.stringify(out.tasks)} (longest ${longest.toFixed(0)} ms); loaded: ${out.resources.join(' ')}`);
    assert.equal(download.bytes, size);
    assert.equal(Number(await page.getAttribute('[data-testid=active-day]', 'data-value')), bitcount);
    assert.match(await page.textContent('[data-testid=status]'), new RegExp(`^${dbsize.toLocaleString('en-US')} keys loaded`));
    // From the moment the load starts (the page's own start-up, module evaluation and first
    // layout, comes before and is printed above) until the cards are drawn.
    assert.ok(out.loadStart !== null && out.loadEnd !== null, 'the load marks are on the timeline');
    // A task that began before the mark is the page's start-up task the load was started from.
    const during = out.tasks.filter((t) => t.duration > 50 && t.start >= out.loadStart);
    assert.deepEqual(during, [], 'main-thread tasks over 50 ms while the snapshot loads');
  } finally {
    await browser.close();
    await web.close();
    await redis.proc.stop();
  }
});
