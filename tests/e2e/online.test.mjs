// The online panel against a real redis-server through `bitlens serve --redis` (issue 18,
// points 2-4 and "Honest failures"), each value compared with redis-cli on the same server:
// - the key browser lists every key (through /api/keys paging), not only the cards' keys: its
//   count for sign:* equals `redis-cli --scan --pattern 'sign:*' | wc -l` (10,000 keys, none
//   in the cards' snapshot), and a key opened is fetched alone and shows BITCOUNT / STRLEN as
//   redis-cli answers them;
// - Redis stopped between loads, then Apply: the numbers already shown stay, marked stale with
//   the time of the last load, and the banner names Redis with the server's own message (the
//   JSON body's `error`, fetched here from the same API);
// - `--allow 'uv:*'`: the UV card works (PFCOUNT as redis-cli), only the active-users card
//   says that the allow-list refused its pattern;
// - the browser's snapshot cap (max-bytes, lowered for the test): a file over it is refused
//   up front with the patterns filter offered (the numbers shown stay), loading it filtered
//   gives the key count redis-cli gives for the pattern; a download growing past the cap
//   mid-load is stopped with a clear error and the numbers shown stay (stale-marked);
// - Redis killed mid-download: the banner names Redis with the failure the server recorded
//   (/api/info's last_export_error), not the browser's "network error".

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  launchBrowser, redisCli, redisPipe, rng, startBitlens, startRedis, tempDir,
} from './harness.mjs';

const SIGNS = 10000;
const DAY = '20240520';

/** Sign-in bitmaps of 10,000 users plus the cards' keys (a HyperLogLog and a bitmap). */
function writeData(port) {
  const rand = rng(18);
  const cmds = [];
  for (let u = 0; u < SIGNS; u++) {
    cmds.push(['SETBIT', `sign:${u}:202405`, 1 + Math.floor(rand() * 30), 1]);
    if (u % 3 === 0) cmds.push(['SETBIT', `sign:${u}:202405`, 1 + Math.floor(rand() * 30), 1]);
  }
  const visitors = [];
  for (let i = 0; i < 3000; i++) visitors.push(`v${Math.floor(rand() * 5000)}`);
  for (let i = 0; i < visitors.length; i += 500) cmds.push(['PFADD', `uv:page:index:${DAY}`, ...visitors.slice(i, i + 500)]);
  for (let i = 0; i < 400; i++) cmds.push(['SETBIT', `stats:active:${DAY}`, Math.floor(rand() * 100000), 1]);
  redisPipe(port, cmds);
}

const int = (port, args) => Number(redisCli(port, args).trim());

describe('the online panel: every key, stale numbers, per-card allow-list, size cap', { timeout: 300000 }, () => {
  let browser;
  const pageErrors = [];

  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    if (browser) await browser.close().catch(() => {});
  });

  const open = async (url, query) => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${url}/?${query}`);
    await page.waitForSelector('[data-testid=panel][data-state=ready], [data-testid=panel][data-state=error]', { timeout: 90000 });
    return page;
  };
  const value = async (page, id) => Number(await page.getAttribute(`[data-testid=${id}]`, 'data-value'));

  test('the key browser lists every key through /api/keys paging and opens any of them', async () => {
    const redis = await startRedis();
    writeData(redis.port);
    const api = await startBitlens(['--redis', `redis://127.0.0.1:${redis.port}`]);
    try {
      const page = await open(api.url, 'cards=uv,active,keys');
      assert.equal(await page.getAttribute('[data-testid=panel]', 'data-state'), 'ready');
      // The cards' snapshot holds only their 2 keys; the browser lists from the API.
      assert.equal(await page.getAttribute('[data-testid=keys-section]', 'data-source'), 'api');
      await page.fill('[data-testid=kb-pattern]', 'sign:*');
      await page.click('[data-testid=kb-search]');
      await page.waitForFunction(() => document.querySelector('[data-testid=kb-summary]')?.textContent.includes('match sign:* in'), null, { timeout: 60000 });
      const scanned = redisCli(redis.port, ['--scan', '--pattern', 'sign:*']).trim().split('\n').filter(Boolean).length;
      assert.equal(scanned, SIGNS);
      assert.equal(Number(await page.getAttribute('[data-testid=kb-summary]', 'data-total')), scanned);
      // Every key: the whole keyspace under `*` equals DBSIZE.
      await page.fill('[data-testid=kb-pattern]', '*');
      await page.click('[data-testid=kb-search]');
      await page.waitForFunction(() => document.querySelector('[data-testid=kb-summary]')?.textContent.includes('match * in'), null, { timeout: 60000 });
      assert.equal(Number(await page.getAttribute('[data-testid=kb-summary]', 'data-total')), int(redis.port, ['DBSIZE']));
      // TTLs come with the listing (/api/keys' ttlMs, PTTL): an expiring key shows its
      // expiry, within the PTTL redis-cli answers after the listing and the one set.
      redisCli(redis.port, ['PEXPIRE', 'sign:77:202405', '7200000']);
      await page.fill('[data-testid=kb-pattern]', 'sign:7?:*');
      await page.click('[data-testid=kb-search]');
      await page.waitForSelector('[data-testid=kb-row][data-key="sign:77:202405"]');
      const ttlCell = '[data-testid=kb-row][data-key="sign:77:202405"] [data-testid=kb-row-ttl]';
      const shownMs = Number(await page.getAttribute(ttlCell, 'data-ttl-ms'));
      const pttl = int(redis.port, ['PTTL', 'sign:77:202405']);
      assert.ok(shownMs >= pttl && shownMs <= 7200000, `shown ${shownMs}, PTTL ${pttl}`);
      assert.match(await page.textContent(ttlCell), /^\d{4}-\d\d-\d\d \d\d:\d\d UTC, /);
      assert.equal(await page.getAttribute('[data-testid=kb-row][data-key="sign:76:202405"] [data-testid=kb-row-ttl]', 'data-ttl-ms'), '');
      // Open a sign-in bitmap the cards never loaded: fetched alone, its numbers are Redis'.
      await page.fill('[data-testid=kb-pattern]', 'sign:4321:*');
      await page.click('[data-testid=kb-search]');
      await page.waitForSelector('[data-testid=kb-row][data-key="sign:4321:202405"]');
      const spawns = () => page.evaluate(() => performance.getEntriesByName('bitlens-worker-spawn').length);
      const workersBefore = await spawns();
      await page.click('[data-testid=kb-row][data-key="sign:4321:202405"] button');
      await page.waitForSelector('[data-testid=kb-detail][data-state=ready]', { timeout: 60000 });
      assert.equal(await page.getAttribute('[data-testid=kb-detail]', 'data-source'), 'api');
      // Opened in a side engine of the panel's one worker (engine-client.js side), not a new worker.
      assert.equal(await spawns(), workersBefore);
      assert.equal(Number(await page.getAttribute('[data-testid=kb-bitcount]', 'data-value')), int(redis.port, ['BITCOUNT', 'sign:4321:202405']));
      assert.equal(Number(await page.getAttribute('[data-testid=kb-bits]', 'data-value')), 8 * int(redis.port, ['STRLEN', 'sign:4321:202405']));
      assert.equal(await page.getAttribute('[data-testid=kb-type]', 'data-value'), redisCli(redis.port, ['TYPE', 'sign:4321:202405']).trim());
      await page.close();
    } finally {
      await api.proc.stop();
      await redis.proc.stop();
    }
  });

  test('Redis stopped between loads: the numbers stay, marked stale, and the banner names Redis', async () => {
    const redis = await startRedis();
    writeData(redis.port);
    const api = await startBitlens(['--redis', `redis://127.0.0.1:${redis.port}`]);
    try {
      const page = await open(api.url, 'cards=uv,active');
      const uv = int(redis.port, ['PFCOUNT', `uv:page:index:${DAY}`]);
      const active = int(redis.port, ['BITCOUNT', `stats:active:${DAY}`]);
      assert.equal(await value(page, 'uv-day'), uv);
      assert.equal(await value(page, 'active-day'), active);
      await redis.proc.stop();
      // What the API itself says now (its JSON error body).
      const res = await fetch(`${api.url}/api/snapshot?match=uv:page:index:*`);
      assert.equal(res.status, 502);
      const body = await res.json();
      assert.equal(body.component, 'redis');
      await page.click('details.settings summary');
      await page.click('form.settings-form button[type=submit]');
      await page.waitForSelector('[data-testid=panel][data-state=error][data-stale]', { timeout: 60000 });
      // Still the numbers Redis gave, each card marked stale with the time of the last load.
      assert.equal(await value(page, 'uv-day'), uv);
      assert.equal(await value(page, 'active-day'), active);
      const at = Number(await page.getAttribute('[data-testid=panel]', 'data-stale'));
      const want = await page.evaluate((ms) => new Date(ms).toLocaleTimeString('en-US', { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false }), at);
      const notes = await page.locator('[data-testid=stale-note]').allTextContents();
      assert.equal(notes.length, 2);
      for (const n of notes) assert.ok(n.includes(`as of ${want}`), n);
      const banner = page.locator('[data-testid=api-unreachable]');
      assert.ok(await banner.isVisible());
      assert.equal(await banner.getAttribute('data-component'), 'redis');
      const text = await banner.locator('.notice-text').textContent();
      assert.ok(text.startsWith('Redis failed'), text);
      assert.ok(text.includes('HTTP 502'), text);
      assert.ok(text.includes(body.error), `${text} lacks ${body.error}`);
      assert.ok(!text.includes('did not answer'), text);
      await page.close();
    } finally {
      await api.proc.stop();
      await redis.proc.stop();
    }
  });

  test("--allow 'uv:*': the UV card works, only the active-users card is refused", async () => {
    const redis = await startRedis();
    writeData(redis.port);
    const api = await startBitlens(['--redis', `redis://127.0.0.1:${redis.port}`, '--allow', 'uv:*']);
    try {
      const page = await open(api.url, 'cards=uv,active');
      assert.equal(await page.getAttribute('[data-testid=panel]', 'data-state'), 'ready');
      assert.equal(await value(page, 'uv-day'), int(redis.port, ['PFCOUNT', `uv:page:index:${DAY}`]));
      assert.equal(await page.getAttribute('[data-testid=card-active]', 'data-refused'), 'stats:active:*');
      const err = await page.locator('[data-testid=active-error]').textContent();
      assert.ok(err.includes('allow-list') && err.includes('stats:active:*'), err);
      assert.equal(await page.locator('[data-testid=uv-error]').count(), 0);
      await page.close();
    } finally {
      await api.proc.stop();
      await redis.proc.stop();
    }
  });

  test('over the size cap: a file is refused up front with the filter offered; a download is stopped', async () => {
    const redis = await startRedis();
    writeData(redis.port);
    redisCli(redis.port, ['SAVE']);
    const dir = tempDir('bitlens-e2e-online-');
    const file = path.join(dir, 'dump.rdb');
    copyFileSync(path.join(redis.dir, 'dump.rdb'), file);
    const size = statSync(file).size;
    const api = await startBitlens(['--redis', `redis://127.0.0.1:${redis.port}`]);
    try {
      // The cards' snapshot (2 keys) is far under the cap, the file of 10,002 keys over it.
      const cap = Math.floor(size / 2);
      const page = await open(api.url, `cards=uv,active&max-bytes=${cap}`);
      const uv = int(redis.port, ['PFCOUNT', `uv:page:index:${DAY}`]);
      assert.equal(await value(page, 'uv-day'), uv);
      await page.setInputFiles('[data-testid=file-input]', file);
      await page.waitForSelector('[data-testid=too-large]');
      const why = await page.locator('[data-testid=too-large-text]').textContent();
      assert.ok(why.includes(`${size} bytes`) && why.includes(`${cap} bytes`) && why.includes('patterns'), why);
      // Nothing was decoded: the numbers shown stay.
      assert.equal(await value(page, 'uv-day'), uv);
      assert.equal(await page.getAttribute('[data-testid=panel]', 'data-state'), 'ready');
      // Loaded filtered: only the matching keys are kept.
      await page.fill('[data-testid=filter-patterns]', 'sign:12*');
      await page.click('[data-testid=filter-load]');
      await page.waitForSelector('[data-testid=panel][data-state=ready][data-offline=ready]', { timeout: 60000 });
      await page.waitForSelector('[data-testid=kb-summary][data-total]');
      const want = redisCli(redis.port, ['--scan', '--pattern', 'sign:12*']).trim().split('\n').filter(Boolean).length;
      assert.equal(Number(await page.getAttribute('[data-testid=kb-summary]', 'data-total')), want);
      await page.close();

      // Online, a download that grows past the cap mid-load: a clear error, numbers kept.
      const online = await open(api.url, 'cards=uv,active');
      assert.equal(await value(online, 'uv-day'), uv);
      await online.evaluate(() => { window.bitlensPanel.s.maxBytes = 100; });
      await online.click('details.settings summary');
      await online.click('form.settings-form button[type=submit]');
      await online.waitForSelector('[data-testid=panel][data-state=error][data-stale]', { timeout: 60000 });
      assert.equal(await value(online, 'uv-day'), uv);
      assert.equal(await online.getAttribute('[data-testid=api-unreachable]', 'data-component'), 'browser');
      const text = await online.locator('[data-testid=api-unreachable] .notice-text').textContent();
      assert.ok(text.includes('cannot hold') && text.includes('100 bytes') && text.includes('patterns'), text);
      await online.close();
    } finally {
      await api.proc.stop();
      await redis.proc.stop();
    }
  });

  test('Redis killed mid-download: the banner names Redis with the export\'s own failure', async () => {
    const redis = await startRedis();
    const cmds = [];
    for (let i = 0; i < 400; i++) cmds.push(['SET', `uv:page:index:x${String(i).padStart(4, '0')}`, 'x'.repeat(1000)]);
    redisPipe(redis.port, cmds);
    // Small SCAN steps with a pause: the export takes several seconds.
    const api = await startBitlens(['--redis', `redis://127.0.0.1:${redis.port}`, '--scan-count', '10', '--scan-pause-ms', '150']);
    try {
      const page = await browser.newPage();
      page.on('pageerror', (e) => pageErrors.push(e.message));
      await page.goto(`${api.url}/?cards=uv`);
      await page.waitForSelector('[data-testid=status][data-phase=download]', { timeout: 60000 });
      redis.proc.child.kill('SIGKILL');
      await page.waitForSelector('[data-testid=panel][data-state=error]', { timeout: 60000 });
      const info = await (await fetch(`${api.url}/api/info`)).json();
      const last = info.last_export_error && info.last_export_error.message;
      assert.ok(last, JSON.stringify(info));
      assert.equal(await page.getAttribute('[data-testid=api-unreachable]', 'data-component'), 'redis');
      const text = await page.locator('[data-testid=api-unreachable] .notice-text').textContent();
      assert.ok(text.startsWith('Redis failed') && text.includes(last), `${text} lacks ${last}`);
      assert.ok(!/network error/i.test(text), text);
      await page.close();
    } finally {
      await api.proc.stop();
      await redis.proc.stop();
    }
    assert.deepEqual(pageErrors, []);
  });
});
