// The crowds card and the consumer-offsets card (issue 19 §3–4), end to end: a real Redis 7.4.1
// gets crowd tags (bitmaps by SETBIT, two crowds kept as Sets by SADD, one non-crowd key), two
// daily-active bitmaps and idempotency bitmaps `<topic>:<partition>:bitmap` (gaps at offset 0,
// in the middle and at the end; a partition with no gap; one with more gaps than the card
// lists; a list matching the pattern); it SAVEs, and the panel (index.html from a static
// server, default cards) opens that dump.rdb. Every number of both cards is compared with
// redis-cli on the same server (BITCOUNT, SCARD, STRLEN, BITPOS, BITOP AND + BITCOUNT for the
// overlaps and the reach, SINTERCARD between the Set crowds, EVAL of SMEMBERS + GETBIT between a
// Set and a bitmap, the gaps recomputed from GET's bytes) and with `bitlens query --rdb`
// on the server's saved RDB for the BITLENS.* commands the cards run. In en and zh, light and
// dark, desktop and 390 px (no horizontal scroll); the same numbers through `bitlens serve
// --redis` (the fetched snapshot holds both cards' keys), and with `--allow` refusing the offsets
// pattern only that card says so; absent keys collapse both cards to one line, and the offsets
// card's own setting redraws it. Screenshots test-artifacts/crowds-*.png and offsets-*.png.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  SERVERS_DIR, BITLENS, ROOT, artifact, freePort, launchBrowser, redisPipe, rng, start, startBitlens, tempDir,
} from './harness.mjs';
import { staticServer } from './static-server.mjs';

const SERVERS = SERVERS_DIR;
const MANIFEST = path.join(SERVERS, 'servers.json');

/** Starts Redis 7.4.1 (from servers.json: `npm run setup` installs it); its redis-cli too. */
async function startRedis741() {
  assert.ok(existsSync(MANIFEST), `${MANIFEST} is missing: run npm run setup`);
  const srv = JSON.parse(readFileSync(MANIFEST, 'utf8')).servers['redis-7.4.1'];
  assert.ok(srv && existsSync(srv.server), 'redis-7.4.1 is missing: run npm run setup');
  const port = await freePort();
  const dir = tempDir('bitlens-e2e-crowds-');
  const env = { ...process.env, ...srv.env };
  const proc = start(srv.server, [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no',
  ], { env });
  await proc.waitFor(/Ready to accept connections/, 30000);
  const cli = (args, encoding = 'utf8') => execFileSync(srv.cli, ['-h', '127.0.0.1', '-p', String(port), ...args], { env, encoding, maxBuffer: 64 << 20 });
  return { port, dir, proc, cli };
}

const DATE = '20240506';
const ACTIVE = `stats:active:${DATE}`;
const USERS = 6000;
const BITMAP_TAGS = ['tag:building:7', 'tag:coupon:618', 'tag:group-buy', 'tag:vip'];
/** Crowds kept as Sets of user ids (sorted). */
const SET_TAGS = ['tag:coupon-list', 'tag:vip-list'];
/** Partition bitmaps: [key, length in offsets, gaps (inclusive ranges)]. */
const PARTITIONS = [
  ['orders:0:bitmap', 10000, [[0, 4], [5000, 5009], [7777, 7777], [9990, 9999]]],
  ['orders:1:bitmap', 4000, [[1000, 1000], [2048, 2111]]],
  ['payments:0:bitmap', 2048, []],
  ['clicks:0:bitmap', 8000, Array.from({ length: 60 }, (_, i) => [100 + i * 97, 100 + i * 97])],
];

/** Deterministic data written with redis-cli --pipe. */
function writeData(port) {
  const rand = rng(20240506);
  const cmds = [];
  for (const d of ['20240505', DATE]) {
    for (let u = 0; u < USERS; u++) if (u < 300 ? rand() < 0.8 : rand() < 0.12) cmds.push(['SETBIT', `stats:active:${d}`, u, 1]);
  }
  // Crowds with real overlaps: two buildings' residents, group buyers mostly from them, VIPs
  // mostly among the low (loyal) ids, a coupon crowd favouring group buyers.
  const inB7 = (u) => u >= 1000 && u < 1800;
  for (let u = 0; u < USERS; u++) {
    if (inB7(u) && rand() < 0.7) cmds.push(['SETBIT', 'tag:building:7', u, 1]);
    const gb = (inB7(u) && rand() < 0.4) || rand() < 0.02;
    if (gb) cmds.push(['SETBIT', 'tag:group-buy', u, 1]);
    if ((u < 400 && rand() < 0.5) || rand() < 0.01) cmds.push(['SETBIT', 'tag:vip', u, 1]);
    if ((gb && rand() < 0.6) || rand() < 0.03) cmds.push(['SETBIT', 'tag:coupon:618', u, 1]);
  }
  // A crowd kept as a Set of user ids, and a key matching tag:* that is no crowd.
  const vips = [];
  const coupons = [];
  for (let u = 0; u < 500; u++) {
    if (rand() < 0.3) vips.push(String(u));
    if (rand() < (u < 250 ? 0.5 : 0.1)) coupons.push(String(u));
  }
  cmds.push(['SADD', 'tag:vip-list', ...vips], ['SADD', 'tag:coupon-list', ...coupons]);
  cmds.push(['HSET', 'tag:meta', 'owner', 'growth']);
  // Idempotency bitmaps: every offset below the length processed but the gaps. Written as
  // whole bytes (SET) and then SETBIT ... 0 per gap offset, as a consumer's replay would.
  for (const [key, len, gaps] of PARTITIONS) {
    const bytes = Buffer.alloc(len / 8, 0xff);
    cmds.push(['SET', key, bytes]);
    for (const [a, b] of gaps) for (let o = a; o <= b; o++) cmds.push(['SETBIT', key, o, 0]);
  }
  cmds.push(['RPUSH', 'audit:0:bitmap', 'not', 'a', 'bitmap']);
  redisPipe(port, cmds);
}

/** Maximal runs of clear bits in `buf` (MSB first), as [first, last] pairs. */
function clearRuns(buf) {
  const out = [];
  let start = -1;
  const n = buf.length * 8;
  for (let o = 0; o <= n; o++) {
    const set = o < n && (buf[o >> 3] & (0x80 >> (o & 7))) !== 0;
    if (o < n && !set) {
      if (start < 0) start = o;
    } else if (start >= 0) {
      out.push([start, o - 1]);
      start = -1;
    }
  }
  return out;
}

describe('the crowds and consumer-offsets cards against Redis 7.4.1', { timeout: 300000 }, () => {
  let redis;
  let web;
  let browser;
  let rdb;
  const int = (args) => Number(redis.cli(args).trim());
  /** `bitlens query --rdb <the server's dump.rdb> ARGV` as printed (redis-cli's format). */
  const query = (...argv) => execFileSync(BITLENS, ['query', '--rdb', rdb, ...argv.map(String)], { encoding: 'utf8' }).trim();
  /** A reply printed as lines of integers (an array of integers, nested arrays flattened). */
  const ints = (text) => text.split('\n').filter((l) => l.trim() !== '').map(Number);

  before(async () => {
    redis = await startRedis741();
    writeData(redis.port);
    redis.cli(['SAVE']);
    rdb = path.join(redis.dir, 'dump.rdb');
    web = await staticServer(ROOT, { '/': readFileSync(path.join(ROOT, 'index.html'), 'utf8') });
    browser = await launchBrowser();
  });

  after(async () => {
    if (browser) await browser.close().catch(() => {});
    if (web) await web.close();
    if (redis) await redis.proc.stop();
  });

  /** The panel with `query` (default cards), the server's dump.rdb opened through the file input. */
  async function openPanel(q, width = 1280, colorScheme = 'light', drawn = true) {
    const page = await browser.newPage({ viewport: { width, height: 1000 }, colorScheme });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${web.url}/?${q}`);
    await page.waitForSelector('[data-testid=panel][data-state=error]', { timeout: 60000 });
    await page.evaluate(() => { document.querySelector('[data-testid=panel]').dataset.offline = 'pending'; });
    await page.setInputFiles('[data-testid=file-input]', rdb);
    await page.waitForSelector('[data-testid=panel][data-offline=ready][data-state=ready]', { timeout: 90000 });
    if (drawn) {
      await page.waitForSelector('[data-testid=crowds-body][data-state=ready]', { timeout: 60000 });
      await page.waitForSelector('[data-testid=offsets-body][data-state=ready]', { timeout: 60000 });
    }
    return { page, errors };
  }

  /** Every number of the crowds card against redis-cli and bitlens query. */
  async function checkCrowds(page) {
    const sizes = await page.$$eval('[data-testid=crowds-sizes] li', (lis) => lis.map((li) => ({
      key: li.dataset.key, type: li.dataset.type, value: Number(li.dataset.value), text: li.textContent,
    })));
    // Every bitmap crowd by BITCOUNT, the Set crowd by SCARD; the hash is no crowd.
    assert.deepEqual(sizes.map((s) => s.key), [...BITMAP_TAGS, ...SET_TAGS]);
    for (const s of sizes) {
      const cmd = s.type === 'set' ? 'SCARD' : 'BITCOUNT';
      const want = int([cmd, s.key]);
      assert.ok(want > 0, s.key);
      assert.equal(s.value, want, s.key);
      assert.ok(s.text.includes(`${cmd} ${s.key} → (integer) ${want}`), s.text);
    }
    for (const k of SET_TAGS) assert.equal(sizes.find((s) => s.key === k).type, 'set');
    assert.match(await page.textContent('[data-testid=crowds-other]'), /tag:meta \(hash\)/);
    // Set crowds count as their members beside the bitmap crowds (the note names them).
    assert.ok((await page.textContent('[data-testid=crowds-sets-note]')).includes(SET_TAGS.join(', ')));
    // The overlap matrix over every crowd: BITLENS.TAGOVERLAP as bitlens query prints it, and
    // each cell from the server: BITOP AND + BITCOUNT of two bitmaps, SINTERCARD of two Sets,
    // SCARD on a Set's diagonal, and for a Set and a bitmap the server counting the Set's
    // members whose bit is set (EVAL of SMEMBERS + GETBIT).
    const ALL = [...BITMAP_TAGS, ...SET_TAGS];
    const isSet = (k) => SET_TAGS.includes(k);
    const setInBitmap = (set, bitmap) => int(['EVAL', "local n = 0 for _, m in ipairs(redis.call('SMEMBERS', KEYS[1])) do n = n + redis.call('GETBIT', KEYS[2], m) end return n", '2', set, bitmap]);
    const onServer = (a, b) => {
      if (isSet(a) && isSet(b)) return a === b ? int(['SCARD', a]) : int(['SINTERCARD', '2', a, b]);
      if (isSet(a) || isSet(b)) return isSet(a) ? setInBitmap(a, b) : setInBitmap(b, a);
      redis.cli(['BITOP', 'AND', 'e2e:tmp', a, b]);
      return int(['BITCOUNT', 'e2e:tmp']);
    };
    assert.equal(await page.textContent('[data-testid=crowds-overlap-cmd]'), `BITLENS.TAGOVERLAP ${ALL.join(' ')}`);
    const cells = await page.$$eval('[data-testid=crowds-overlap] td', (tds) => tds.map((td) => [Number(td.dataset.i), Number(td.dataset.j), Number(td.dataset.value)]));
    assert.equal(cells.length, ALL.length ** 2);
    const matrix = ints(query('BITLENS.TAGOVERLAP', ...ALL));
    for (const [i, j, v] of cells) {
      assert.equal(v, matrix[i * ALL.length + j], `${i},${j}`);
      assert.equal(v, onServer(ALL[i], ALL[j]), `${ALL[i]} ∩ ${ALL[j]}`);
    }
    assert.ok(cells.some(([i, j, v]) => i !== j && v > 0 && !isSet(ALL[i]) && !isSet(ALL[j])), 'some bitmap crowds overlap');
    assert.ok(cells.some(([i, j, v]) => i !== j && v > 0 && isSet(ALL[i]) && isSet(ALL[j])), 'the Set crowds overlap');
    assert.ok(cells.some(([i, j, v]) => v > 0 && isSet(ALL[i]) !== isSet(ALL[j])), 'a Set crowd overlaps a bitmap crowd');
    // Reach among the day's actives: BITLENS.TAGREACH, and the server's count for each crowd.
    assert.equal(await page.textContent('[data-testid=crowds-reach-cmd]'), `BITLENS.TAGREACH ${ACTIVE} ${ALL.join(' ')}`);
    assert.equal(Number(await page.getAttribute('[data-testid=crowds-actives]', 'data-value')), int(['BITCOUNT', ACTIVE]));
    const reach = await page.$$eval('[data-testid=crowds-reach] tbody tr', (trs) => trs.map((tr) => [tr.dataset.key, Number(tr.dataset.value)]));
    const want = ints(query('BITLENS.TAGREACH', ACTIVE, ...ALL));
    assert.deepEqual(reach, ALL.map((k, i) => [k, want[i]]));
    for (const [k, v] of reach) assert.equal(v, onServer(ACTIVE, k), k);
    redis.cli(['DEL', 'e2e:tmp']);
  }

  /** Every number of the offsets card against redis-cli and bitlens query. */
  async function checkOffsets(page) {
    const parts = await page.$$eval('[data-testid=offsets-partition]', (ss) => ss.map((s) => ({
      key: s.dataset.key,
      processed: Number(s.querySelector('[data-testid=offsets-processed]').dataset.value),
      first: Number(s.querySelector('[data-testid=offsets-first]').dataset.value),
      gaps: [...s.querySelectorAll('[data-testid=offsets-gaps] li')].map((li) => [Number(li.dataset.first), Number(li.dataset.last)]),
      strip: [...s.querySelectorAll('[data-testid=offsets-strip] span')].map((x) => [Number(x.dataset.first), Number(x.dataset.last), x.style.left, x.style.width]),
      cmd: s.querySelector('[data-testid=offsets-gaps-cmd]')?.textContent,
      more: Boolean(s.querySelector('[data-testid=offsets-more]')),
      none: Boolean(s.querySelector('[data-testid=offsets-no-gaps]')),
    })));
    // Sorted key order; the list matching the pattern is named, not drawn.
    assert.deepEqual(parts.map((p) => p.key), PARTITIONS.map((p) => p[0]).sort());
    assert.match(await page.textContent('[data-testid=offsets-other]'), /audit:0:bitmap \(list\)/);
    for (const p of parts) {
      const [, len, written] = PARTITIONS.find((x) => x[0] === p.key);
      const strlen = int(['STRLEN', p.key]);
      assert.equal(strlen * 8, len);
      assert.equal(p.processed, int(['BITCOUNT', p.key]), p.key);
      assert.equal(p.processed, Number(query('BITLENS.PROCESSED', p.key)), p.key);
      assert.equal(p.first, int(['BITPOS', p.key, '0']), p.key);
      assert.equal(p.first, Number(query('BITLENS.FIRSTUNPROCESSED', p.key)), p.key);
      // The gaps: the runs of clear bits of the server's bytes (GET), all of them.
      const raw = redis.cli(['GET', p.key], 'buffer').subarray(0, strlen);
      const runs = clearRuns(raw);
      assert.deepEqual(runs, written, p.key);
      assert.equal(p.cmd, `BITLENS.GAPS ${p.key} 0 ${len - 1} LIMIT 51`);
      const q = ints(query('BITLENS.GAPS', p.key, 0, len - 1, 'LIMIT', 51));
      const qPairs = [];
      for (let i = 0; i < q.length; i += 2) qPairs.push([q[i], q[i + 1]]);
      assert.deepEqual(qPairs, runs.slice(0, 51), p.key);
      assert.deepEqual(p.gaps, runs.slice(0, 50), p.key);
      assert.equal(p.more, runs.length > 50, p.key);
      assert.equal(p.none, runs.length === 0, p.key);
      // The strip: one bar per gap listed, placed along the offset axis.
      assert.deepEqual(p.strip.map(([a, b]) => [a, b]), p.gaps);
      for (const [a, b, left, width] of p.strip) {
        assert.ok(Math.abs(parseFloat(left) - (a / len) * 100) < 1e-3, `${p.key} ${a}: ${left}`);
        assert.ok(Math.abs(parseFloat(width) - ((b - a + 1) / len) * 100) < 1e-3, `${p.key} ${a}: ${width}`);
      }
    }
    // The gaps at offset 0 and at the end of orders:0.
    const o0 = parts.find((p) => p.key === 'orders:0:bitmap');
    assert.equal(o0.first, 0);
    assert.deepEqual(o0.gaps[0], [0, 4]);
    assert.deepEqual(o0.gaps[o0.gaps.length - 1], [9990, 9999]);
  }

  const noSideScroll = (page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

  for (const [lang, theme, width] of [['en', 'light', 1280], ['zh', 'dark', 1280], ['en', 'dark', 390], ['zh', 'light', 390]]) {
    test(`${lang}, ${theme}, ${width} px: every number equals redis-cli / bitlens query`, async () => {
      const { page, errors } = await openPanel(`lang=${lang}&theme=${theme}&date=${DATE}`, width, theme);
      // Both cards are among the default cards, drawn (not collapsed).
      for (const c of ['crowds', 'offsets']) assert.equal(await page.getAttribute(`[data-testid=card-${c}]`, 'data-absent'), null, c);
      assert.equal(await page.getAttribute('[data-testid=panel]', 'data-theme'), theme);
      await checkCrowds(page);
      await checkOffsets(page);
      const title = await page.textContent('[data-testid=card-crowds] h2');
      assert.equal(title, lang === 'zh' ? '人群' : 'Crowds');
      assert.equal(await page.textContent('[data-testid=card-offsets] h2'), lang === 'zh' ? '消费位点' : 'Consumer offsets');
      if (lang === 'zh') assert.match(await page.textContent('[data-testid=crowds-sets-note]'), /以 Set 保存的人群/);
      assert.ok(await noSideScroll(page), `horizontal scroll at ${width}px`);
      const tag = `${lang}-${theme}-${width}`;
      await page.locator('[data-testid=card-crowds]').screenshot({ path: artifact(`crowds-${tag}.png`) });
      await page.locator('[data-testid=card-offsets]').screenshot({ path: artifact(`offsets-${tag}.png`) });
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

  test('bitlens serve --redis: the fetched snapshot holds both cards\' keys; --allow refuses only the offsets card', async () => {
    const bl = await startBitlens(['--redis', `redis://127.0.0.1:${redis.port}`]);
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1000 }, colorScheme: 'dark' });
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${bl.url}/?lang=en&theme=dark&date=${DATE}`);
      await page.waitForSelector('[data-testid=panel][data-state=ready]', { timeout: 90000 });
      await page.waitForSelector('[data-testid=crowds-body][data-state=ready]');
      await page.waitForSelector('[data-testid=offsets-body][data-state=ready]');
      await checkCrowds(page);
      await checkOffsets(page);
      await page.locator('[data-testid=card-offsets]').screenshot({ path: artifact('offsets-serve-dark.png') });
      assert.deepEqual(errors, []);
      await page.close();
    } finally {
      await bl.proc.stop();
    }
    // With the offsets pattern outside the export allow-list, only that card says so.
    const allowed = await startBitlens(['--redis', `redis://127.0.0.1:${redis.port}`, '--allow', 'tag:*', '--allow', 'stats:*']);
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
      await page.goto(`${allowed.url}/?lang=en&date=${DATE}&cards=active,crowds,offsets`);
      await page.waitForSelector('[data-testid=panel][data-state=ready]', { timeout: 90000 });
      await page.waitForSelector('[data-testid=crowds-body][data-state=ready]');
      const err = await page.textContent('[data-testid=offsets-error]');
      assert.ok(err.includes('*:*:bitmap'), err);
      assert.equal(await page.getAttribute('[data-testid=card-offsets]', 'data-refused'), '*:*:bitmap');
      await checkCrowds(page);
      await page.close();
    } finally {
      await allowed.proc.stop();
    }
  });

  test('absent keys: both cards collapse to one line naming their pattern; the offsets setting redraws; a day without actives', async () => {
    const { page, errors } = await openPanel('lang=en&tag-key=crowd:*&offset-key=nothing:*:bitmap', 1280, 'light', false);
    for (const [c, glob] of [['crowds', 'crowd:*'], ['offsets', 'nothing:*:bitmap']]) {
      const line = page.locator(`[data-testid=${c}-absent]`);
      assert.ok(await line.isVisible(), c);
      assert.equal(await line.getAttribute('data-pattern'), glob);
      const box = await page.locator(`[data-testid=card-${c}]`).boundingBox();
      assert.ok(box.height < 60, `${c}: ${box.height}px`);
    }
    // The collapsed offsets card's Settings link opens its own setting; a new pattern redraws it.
    await page.click('[data-testid=offsets-absent-settings]');
    await page.fill('[data-testid=offsets-key]', 'orders:*:bitmap');
    await page.click('[data-testid=offsets-apply]');
    await page.waitForSelector('[data-testid=offsets-body][data-state=ready]', { timeout: 60000 });
    const keys = await page.$$eval('[data-testid=offsets-partition]', (ss) => ss.map((x) => x.dataset.key));
    assert.deepEqual(keys, ['orders:0:bitmap', 'orders:1:bitmap']);
    for (const k of keys) {
      const v = await page.getAttribute(`[data-testid=offsets-partition][data-key="${k}"] [data-testid=offsets-processed]`, 'data-value');
      assert.equal(Number(v), int(['BITCOUNT', k]), k);
    }
    assert.match(page.url(), /offset-key=orders%3A\*%3Abitmap|offset-key=orders:\*:bitmap/);
    assert.deepEqual(errors, []);
    await page.close();
    // A day without a daily bitmap: the crowds are sized, the reach names the missing key (no 0s).
    const day = await openPanel('lang=en&date=20240501');
    assert.match(await day.page.textContent('[data-testid=crowds-no-active]'), /No daily bitmap stats:active:20240501 in this snapshot/);
    assert.equal(await day.page.locator('[data-testid=crowds-reach]').count(), 0);
    assert.equal(await day.page.locator('[data-testid=crowds-sizes] li').count(), BITMAP_TAGS.length + SET_TAGS.length);
    assert.deepEqual(day.errors, []);
    await day.page.close();
  });
});
