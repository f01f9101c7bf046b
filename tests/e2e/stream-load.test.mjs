// End to end: decoding while downloading (issue 16 §2). A real redis-server holds
// BITLENS_STREAM_MB (default 200) daily-active bitmaps of 1 MiB of pseudo-random bits
// (incompressible, so the snapshot is about that size) and a day's HyperLogLog of visitors;
// `bitlens serve --redis` exports it as /api/snapshot. The panel's worker pushes each piece of
// the fetch body into the engine's RdbStream as it arrives. The test asserts:
// - the cards equal redis-server's own answers (PFCOUNT and BITCOUNT of the latest day, DBSIZE
//   in the status line), as the whole-file load gave them;
// - decoding overlapped the download: a progress report of the download phase, before its last
//   byte, already said bytes were decoded (the status line's data-decoded, set from the
//   worker's [received, total, 'download', decoded] messages);
// - no main-thread task over 50 ms from the load's start to its end (PerformanceObserver of
//   `longtask`, installed before any page script; long animation frames are printed with the
//   scripts they ran, to tell what a long task was).
// - Cancel in the middle of the download stops the load (the status says so, no progress
//   follows).
// It prints the load's breakdown from the marks on the page's timeline (no timed assert).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, redisCli, redisPipe, rng, startBitlens, startRedis } from './harness.mjs';

const MB = Number(process.env.BITLENS_STREAM_MB || 200);
const KEY_BYTES = 1 << 20;

/** `n` days (YYYYMMDD) from 2024-01-01. */
function days(n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(new Date(Date.UTC(2024, 0, 1) + i * 86400000).toISOString().slice(0, 10).replace(/-/g, ''));
  return out;
}

test(`a ${MB} MB snapshot from bitlens serve decodes while it downloads, the main thread free`, { timeout: 900000 }, async () => {
  const redis = await startRedis();
  const all = days(MB);
  const keys = all.map((d) => `stats:active:${d}`);
  const next = rng(25);
  for (let i = 0; i < keys.length; i += 16) {
    redisPipe(redis.port, keys.slice(i, i + 16).map((k) => {
      const words = new Uint32Array(KEY_BYTES / 4);
      for (let j = 0; j < words.length; j++) words[j] = next() * 4294967296;
      return ['SET', k, Buffer.from(words.buffer)];
    }));
  }
  const day = all[all.length - 1];
  const visitors = [];
  for (let i = 0; i < 5000; i++) visitors.push(`v${Math.floor(next() * 20000)}`);
  const cmds = [];
  for (let i = 0; i < visitors.length; i += 500) cmds.push(['PFADD', `uv:page:index:${day}`, ...visitors.slice(i, i + 500)]);
  redisPipe(redis.port, cmds);
  const int = (args) => Number(redisCli(redis.port, args).trim());
  const dbsize = int(['DBSIZE']);
  const bitcount = int(['BITCOUNT', `stats:active:${day}`]);
  const pfcount = int(['PFCOUNT', `uv:page:index:${day}`]);
  const api = await startBitlens(['--redis', `redis://127.0.0.1:${redis.port}`]);
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.addInitScript(() => {
      window.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
      }).observe({ type: 'longtask', buffered: true });
      window.__loaf = [];
      try {
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) if (e.duration > 50) window.__loaf.push({ start: e.startTime.toFixed(0), duration: e.duration.toFixed(0), blocking: e.blockingDuration, scripts: e.scripts.map((x) => `${x.invoker} ${x.sourceURL.replace(/^.*\//, '')}:${x.sourceFunctionName} ${x.duration.toFixed(0)}ms`) });
        }).observe({ type: 'long-animation-frame', buffered: true });
      } catch { /* no LoAF */ }
      // Every progress report the status line shows: [phase, done, decoded].
      window.__progress = [];
      new MutationObserver(() => {
        const s = document.querySelector('[data-testid=status]');
        if (s && s.dataset.phase) window.__progress.push([s.dataset.phase, Number(s.dataset.done), s.dataset.decoded === undefined ? null : Number(s.dataset.decoded)]);
      }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-done', 'data-decoded', 'data-phase'] });
    });
    await page.goto(`${api.url}/?lang=en&cards=uv,active`);
    await page.waitForSelector('[data-testid=panel][data-state=ready], [data-testid=panel][data-state=error]', { timeout: 600000 });
    const out = await page.evaluate(() => {
      const at = (n) => performance.getEntriesByName(n).at(-1)?.startTime ?? null;
      return {
        tasks: window.__longTasks,
        loaf: window.__loaf,
        progress: window.__progress,
        loadStart: at('bitlens-load-start'),
        loadEnd: at('bitlens-load-end'),
        marks: Object.fromEntries(['bitlens-worker-spawn', 'bitlens-worker-start', 'bitlens-wasm-ready', 'bitlens-download-request', 'bitlens-download-first-byte', 'bitlens-download-end', 'bitlens-decode-end', 'bitlens-load-end', 'bitlens-cards-end'].map((n) => [n.slice(8), at(n)?.toFixed(0)])),
        decodeBusy: performance.getEntriesByName('bitlens-decode-busy').at(-1)?.duration ?? null,
        wasmMemory: performance.getEntriesByName('bitlens-decode-busy').at(-1)?.detail?.wasmMemoryBytes ?? null,
      };
    });
    const status = await page.textContent('[data-testid=status]');
    assert.deepEqual(errors, []);
    assert.match(status, new RegExp(`^${dbsize.toLocaleString('en-US')} keys loaded`), status);
    assert.equal(Number(await page.getAttribute('[data-testid=active-day]', 'data-value')), bitcount);
    assert.equal(Number(await page.getAttribute('[data-testid=uv-day]', 'data-value')), pfcount);
    const downloads = out.progress.filter(([phase]) => phase === 'download');
    const received = Math.max(...downloads.map(([, done]) => done));
    const early = downloads.filter(([, done, decoded]) => decoded > 0 && done < received);
    console.log(`# ${MB} MB, ${dbsize} keys; marks (ms after navigation) ${JSON.stringify(out.marks)}; decoding busy ${out.decodeBusy?.toFixed(0)} ms; wasm memory after the load ${out.wasmMemory} bytes; ${downloads.length} download reports, ${early.length} with bytes decoded before the last byte (first: ${JSON.stringify(early[0])}); long tasks ${JSON.stringify(out.tasks)}; long animation frames ${JSON.stringify(out.loaf)}`);
    assert.ok(received > (MB - 2) * KEY_BYTES, `the download reports reach the snapshot's size: ${received}`);
    assert.ok(early.length > 0, 'bytes were decoded before the download finished');
    // Decoding went on through the download: more than half of the file decoded before the
    // last byte arrived, in some report.
    assert.ok(early.some(([, , decoded]) => decoded > received / 2), JSON.stringify(early.slice(-3)));
    assert.ok(out.loadStart !== null && out.loadEnd !== null, 'the load marks are on the timeline');
    // While the snapshot downloads and decodes (the load controller's marks). The cards drawn
    // after it are longtask.test.mjs's concern; their tasks are printed above.
    const during = out.tasks.filter((t) => t.duration > 50 && t.start >= out.loadStart && t.start < out.loadEnd);
    assert.deepEqual(during, [], 'main-thread tasks over 50 ms while the snapshot loads');

    // Cancel in the middle of the download (clicked from inside the page as soon as a report
    // says bytes were decoded): the load stops, and no progress follows.
    const second = await browser.newPage();
    await second.addInitScript(() => {
      window.__cancelledAt = null;
      new MutationObserver(() => {
        const s = document.querySelector('[data-testid=status]');
        if (window.__cancelledAt === null && s && s.dataset.phase === 'download' && Number(s.dataset.decoded) > 4 << 20) {
          window.__cancelledAt = [Number(s.dataset.done), Number(s.dataset.decoded)];
          document.querySelector('[data-testid=cancel]').click();
        }
      }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-decoded'] });
    });
    await second.goto(`${api.url}/?lang=en&cards=uv,active`);
    await second.waitForFunction(() => /cancelled/i.test(document.querySelector('[data-testid=status]')?.textContent || ''), null, { timeout: 120000 });
    const cancelledAt = await second.evaluate(() => window.__cancelledAt);
    const doneAfter = await second.evaluate(() => document.querySelector('[data-testid=status]').dataset.done);
    await new Promise((r) => setTimeout(r, 1000));
    assert.ok(cancelledAt && cancelledAt[0] < received, `cancelled at ${cancelledAt}`);
    assert.equal(await second.getAttribute('[data-testid=panel]', 'data-state'), 'error');
    assert.ok(await second.locator('[data-testid=cancel]').isHidden());
    assert.equal(await second.evaluate(() => document.querySelector('[data-testid=status]').dataset.done), doneAfter, 'no progress after Cancel');
  } finally {
    await browser.close();
    await api.proc.stop();
    await redis.proc.stop();
  }
});
