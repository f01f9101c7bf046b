// Hostile snapshots in the panel (issue 54, items 10-13), in headless Chromium:
// - 100 KB names (a key, a crowd tag, a GEO member): the page stays under twice its height with
//   the same data without them, no table is wider than the viewport (plus a small bound), the
//   names are shortened with an ellipsis and the whole name is there on demand;
// - GEO member names with a right-to-left override, a newline and bytes that are not UTF-8 are
//   shown in the nearby card's list and map tooltip as the key browser shows names (escaped,
//   two different invalid names different);
// - online (`bitlens serve --redis`), a key whose name is over 21 KB opens (POST), and an error
//   never echoes a whole URL;
// - after opening a file without the selected shop type (`cafe`), the type (and the centre
//   member) reset to what the file holds;
// - a value the engine's memory cannot hold (an LZF string of about 3 GB) fails with a message
//   naming memory, not "unreachable".

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, copyFileSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import {
  artifact, launchBrowser, openFile, openOfflinePanel, redisCli, redisPipe, serveRedisAndBrowse, startRedis,
  staticPanel, tempDir,
} from './harness.mjs';
import { DATE, cardCommands } from './carddata.mjs';

/** The nearby card's default centre (Shanghai). */
const CENTRE = [121.4737, 31.2304];
const LONG = 100 * 1024;
const longKey = `long:${'k'.repeat(LONG)}`;
const longTag = `tag:${'t'.repeat(LONG)}`;
const longMember = `m${'g'.repeat(LONG)}`;
/** GEO members no page may show raw: a right-to-left override, a newline, two invalid UTF-8 names. */
const HOSTILE = [
  Buffer.from('evil\u202egnp.exe'),
  Buffer.from('line1\nline2'),
  Buffer.from([0x62, 0x61, 0x64, 0xff]),
  Buffer.from([0x62, 0x61, 0x64, 0xfe]),
];

/** A dump.rdb of `commands` written by a fresh save of `redis` (flushed first), copied to `file`. */
function save(redis, commands, file) {
  redisCli(redis.port, ['FLUSHALL']);
  redisPipe(redis.port, commands);
  redisCli(redis.port, ['SAVE']);
  copyFileSync(path.join(redis.dir, 'dump.rdb'), file);
  return file;
}

/**
 * An RDB (version 9, no checksum) holding `keys` strings (`huge`, `huge1`, …) stored
 * LZF-compressed, each of uncompressed length `ulen` = 1 + 264·k bytes of `a`: one literal,
 * then back references of 264 bytes each (the most LZF has: 3 bytes each, 88:1). About 34 MB
 * of file for 3 GB of value.
 */
function writeHugeLzf(file, k, keys = 1) {
  const ulen = 1 + 264 * k;
  const clen = 2 + 3 * k;
  const be32 = (n) => [0x80, (n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
  const fd = openSync(file, 'w');
  writeSync(fd, Buffer.from('REDIS0009\xfe\x00', 'latin1'));
  const chunk = Buffer.alloc(3 * (1 << 20));
  for (let i = 0; i < chunk.length; i += 3) chunk.set([0xe0, 0xff, 0x00], i);
  for (let key = 0; key < keys; key++) {
    const name = Buffer.from(key === 0 ? 'huge' : `huge${key}`);
    writeSync(fd, Buffer.concat([
      Buffer.from([0, name.length]), name,
      Buffer.from([0xc3, ...be32(clen), ...be32(ulen)]),
      Buffer.from([0x00, 0x61]),
    ]));
    for (let left = k; left > 0;) {
      const n = Math.min(left, 1 << 20);
      writeSync(fd, chunk, 0, 3 * n);
      left -= n;
    }
  }
  writeSync(fd, Buffer.from([0xff, 0, 0, 0, 0, 0, 0, 0, 0]));
  closeSync(fd);
  return ulen;
}

/** Waits until the panel, its key browser and its memory view have drawn the opened file. */
async function settled(page) {
  await page.waitForSelector('[data-testid=panel][data-state=ready]', { timeout: 120000 });
  await page.waitForSelector('[data-testid=memory-section][data-state=ready]', { timeout: 120000 });
  await page.waitForSelector('[data-testid=keys-section][data-state=ready]', { timeout: 60000 });
}

/** The page's height, its width, and every table wider than the viewport. */
function layout(page) {
  return page.evaluate(() => ({
    height: document.documentElement.scrollHeight,
    width: document.documentElement.scrollWidth,
    viewport: window.innerWidth,
    tables: [...document.querySelectorAll('table')].map((t) => ({
      testid: t.dataset.testid || t.className, width: Math.round(t.getBoundingClientRect().width),
    })),
  }));
}

describe('hostile names offline: long names, bidi and invalid GEO members, stale shop type, memory', { timeout: 600000 }, () => {
  let redis;
  let web;
  let browser;
  const dir = tempDir('bitlens-e2e-hostile-');
  const files = {};

  before(async () => {
    redis = await startRedis();
    const base = cardCommands();
    files.normal = save(redis, base, path.join(dir, 'normal.rdb'));
    files.long = save(redis, [
      ...base,
      ['SET', longKey, 'x'],
      ['SETBIT', longTag, '7', '1'],
      ['GEOADD', 'shop:geo:food', String(CENTRE[0] + 0.001), String(CENTRE[1]), longMember],
    ], path.join(dir, 'long.rdb'));
    files.bidi = save(redis, [
      ...base,
      // Nearest the centre, one after the other eastwards: the list's and the map's first points.
      ...HOSTILE.map((m, i) => ['GEOADD', 'shop:geo:food', String(CENTRE[0] + 0.0002 * (i + 1)), String(CENTRE[1]), m]),
    ], path.join(dir, 'bidi.rdb'));
    files.nocafe = save(redis, [
      ['GEOADD', 'shop:geo:bar', String(CENTRE[0] + 0.001), String(CENTRE[1]), 'bar-1', String(CENTRE[0] + 0.002), String(CENTRE[1]), 'bar-2'],
      ['SET', 'other', 'x'],
    ], path.join(dir, 'nocafe.rdb'));
    web = await staticPanel();
    browser = await launchBrowser();
  });

  after(async () => {
    if (browser) await browser.close().catch(() => {});
    if (web) await web.close();
    if (redis) await redis.proc.stop();
  });

  test('100 KB names: the page under twice its height, tables within the viewport, names shortened and whole on demand', async () => {
    const errors = [];
    const { page } = await openOfflinePanel(browser, web.url, { query: `date=${DATE}&type=food&lang=en`, errors });
    try {
      await openFile(page, files.normal, { timeout: 120000 });
      await settled(page);
      const usual = await layout(page);
      await openFile(page, files.long, { timeout: 120000 });
      await settled(page);
      // The long names are in the page's data: the key browser, the memory view, the crowds.
      await page.waitForSelector('[data-testid=kb-row][data-key^="long:"]');
      await page.waitForSelector('[data-testid=crowds-sizes] li[data-key^="tag:tt"]');
      const got = await layout(page);
      await page.screenshot({ path: artifact('hostile-long-names.png') });
      assert.ok(got.height < 2 * usual.height, `page ${got.height} px tall, ${usual.height} px without the long names`);
      assert.ok(got.width <= got.viewport + 16, `page ${got.width} px wide in a ${got.viewport} px viewport`);
      const BOUND = 64;
      const wide = got.tables.filter((t) => t.width > got.viewport + BOUND);
      assert.deepEqual(wide, [], `tables wider than ${got.viewport} + ${BOUND} px`);
      // Shortened with an ellipsis, the whole name (up to its cap) in the title.
      const button = await page.$eval('[data-testid=kb-row][data-key^="long:"] .kb-key', (b) => ({ text: b.textContent, title: b.title }));
      assert.ok(button.text.length < 100 && button.text.includes('…'), button.text);
      assert.ok(button.title.startsWith('long:kkkk') && button.title.length > 1000 && button.title.length < 1200, `title of ${button.title.length}`);
      const memKey = await page.$$eval('[data-testid=mem-top] tr[data-key^="long:"] .kb-key', (b) => b.map((x) => x.textContent));
      assert.equal(memKey.length, 1);
      assert.ok(memKey[0].length < 100 && memKey[0].includes('…'));
      const patterns = await page.$$eval('[data-testid=mem-by-pattern] code', (c) => c.map((x) => x.textContent.length));
      assert.ok(Math.max(...patterns) < 100, `pattern cells of ${Math.max(...patterns)} characters`);
      const members = await page.$$eval('[data-testid=nearby-row] .member', (m) => m.map((x) => x.textContent.length));
      assert.ok(members.length && Math.max(...members) < 100);
      // The detail: a shortened heading, the whole name on demand (in a box that scrolls).
      await page.click('[data-testid=kb-row][data-key^="long:"] .kb-key');
      await page.waitForSelector('[data-testid=kb-detail][data-state=ready]');
      assert.ok((await page.textContent('[data-testid=kb-detail-key]')).length < 100);
      assert.equal(await page.isHidden('[data-testid=name-whole]'), true);
      const before = await layout(page);
      await page.click('[data-testid=name-more]');
      assert.equal(await page.textContent('[data-testid=name-whole]'), longKey);
      const open = await layout(page);
      assert.ok(open.height < before.height + 400, `the whole name took ${open.height - before.height} px`);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('GEO members with a right-to-left override, a newline or invalid UTF-8 show escaped in the list and the map tooltip', async () => {
    const errors = [];
    const { page } = await openOfflinePanel(browser, web.url, { query: `date=${DATE}&type=food&lang=en`, errors });
    try {
      await openFile(page, files.bidi, { timeout: 120000 });
      await page.waitForSelector('[data-testid=nearby-row]');
      const rows = await page.$$eval('[data-testid=nearby-row] .member', (m) => m.map((x) => x.textContent));
      const shown = rows.slice(0, HOSTILE.length);
      // As the key browser shows names (redis-cli's quoting: util.js displayName).
      assert.deepEqual(shown, [
        '"evil\\xe2\\x80\\xaegnp.exe"',
        '"line1\\nline2"',
        '"bad\\xff"',
        '"bad\\xfe"',
      ]);
      for (const r of rows) assert.ok(!/[\u202e\n\ufffd]/.test(r), JSON.stringify(r));
      // The map's tooltip, point by point from the nearest.
      const map = '[data-testid=nearby-map]';
      await page.$eval(map, (m) => m.scrollIntoView({ block: 'center' }));
      await page.focus(map);
      await page.keyboard.press('Home');
      const tips = [];
      for (let i = 0; i < HOSTILE.length; i++) {
        if (i) await page.keyboard.press('ArrowRight');
        tips.push(await page.textContent('[data-testid=nearby-tip]'));
      }
      for (const [i, tip] of tips.entries()) {
        assert.ok(!/[\u202e\n\ufffd]/.test(tip), JSON.stringify(tip));
        assert.ok(tip.endsWith(` · ${shown[i]}`), `${JSON.stringify(tip)} should end with ${shown[i]}`);
      }
      assert.notEqual(tips[2], tips[3]);
      await page.screenshot({ path: artifact('hostile-geo-members.png') });
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('a file without the chosen shop type: the type and the centre member reset to what it holds', async () => {
    const errors = [];
    const { page } = await openOfflinePanel(browser, web.url, { query: `date=${DATE}&lang=en`, errors });
    try {
      await openFile(page, files.normal, { timeout: 120000 });
      await page.waitForSelector('[data-testid=nearby-row]');
      await page.selectOption('[data-testid=type]', 'food');
      await page.selectOption('[data-testid=type]', 'cafe');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('type') === 'cafe');
      await page.fill('[data-testid=member]', 'cafe-3');
      await page.press('[data-testid=member]', 'Tab');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('member') === 'cafe-3');
      await openFile(page, files.nocafe, { timeout: 120000 });
      await page.waitForSelector('[data-testid=nearby-count]');
      assert.equal(await page.inputValue('[data-testid=type]'), 'bar');
      assert.deepEqual(await page.$$eval('[data-testid=type] option', (o) => o.map((x) => x.value)), ['bar']);
      assert.equal(await page.inputValue('[data-testid=member]'), '');
      assert.equal(Number(await page.getAttribute('[data-testid=nearby-count]', 'data-value')), 2);
      const url = new URL(page.url());
      assert.equal(url.searchParams.get('type'), 'bar');
      assert.equal(url.searchParams.get('member'), null);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  /** Opens `file` in a fresh offline panel and returns the status text of its failed load. */
  async function failedLoadStatus(file, screenshot) {
    const errors = [];
    const { page } = await openOfflinePanel(browser, web.url, { query: `date=${DATE}&lang=en`, errors });
    try {
      await openFile(page, file, { settle: false });
      await page.waitForSelector('[data-testid=panel][data-offline=error]', { timeout: 240000 });
      if (screenshot) await page.screenshot({ path: artifact(screenshot) });
      return await page.textContent('[data-testid=status]');
    } finally {
      await page.close();
    }
  }

  test('a value over the limit on one value (3 GB): the error names the key and the limit', async () => {
    const file = path.join(dir, 'huge-one.rdb');
    assert.equal(writeHugeLzf(file, 11_363_636), 2_999_999_905);
    const status = await failedLoadStatus(file);
    assert.match(status, /key "huge"\): string value of 2999999905 bytes .* longer than the limit on one value, 536870912 bytes/, status);
    assert.ok(!/unreachable/.test(status), status);
  });

  test('values the engine cannot hold (9 of 500 MB, each under the limit): the error names memory, not "unreachable"', async () => {
    const file = path.join(dir, 'huge.rdb');
    const ulen = writeHugeLzf(file, 1_893_939, 9);
    assert.equal(ulen, 499_999_897);
    const status = await failedLoadStatus(file, 'hostile-out-of-memory.png');
    assert.match(status, /out of memory while loading huge\.rdb/, status);
    assert.match(status, /memory had reached [\d,]+ bytes of the 4,294,967,296 a browser gives WebAssembly at most/, status);
    assert.ok(!/^Snapshot could not be loaded: unreachable$/.test(status.trim()), status);
    console.log(status);
  });
});

describe('hostile names online: a key over 21 KB opens by POST, errors never echo a whole URL', { timeout: 240000 }, () => {
  // 22 KB of `:`, each percent-encoded as `%3A`: 66 KB in a URL, over the 65,534 bytes a
  // request target may have (a GET of it is a 414).
  const big = `big:${':'.repeat(22 * 1024)}`;
  const live = serveRedisAndBrowse(() => [
    ['SET', big, 'hello'],
    ['SETBIT', `stats:active:${DATE}`, '5', '1'],
  ]);

  test('the key browser opens a 22 KB key name from bitlens serve', async () => {
    const page = await live.browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const requests = [];
    // The worker's requests too (the side engine fetches the key from the engine's worker).
    page.context().on('request', (r) => {
      if (r.url().includes('/api/snapshot')) requests.push({ method: r.method(), url: r.url(), body: r.postData() });
    });
    try {
      await page.goto(`${live.server.url}/?cards=active,keys&date=${DATE}&lang=en`);
      await page.waitForSelector('[data-testid=panel][data-state=ready]', { timeout: 60000 });
      await page.fill('[data-testid=kb-pattern]', 'big:*');
      await page.click('[data-testid=kb-search]');
      await page.waitForSelector('[data-testid=kb-row][data-key^="big:"]');
      await page.click('[data-testid=kb-row][data-key^="big:"] .kb-key');
      await page.waitForSelector('[data-testid=kb-detail]:is([data-state=ready], [data-state=error])', { timeout: 60000 });
      const err = await page.$('[data-testid=kb-detail-error]');
      assert.equal(err ? await err.textContent() : null, null);
      assert.equal(await page.getAttribute('[data-testid=kb-detail]', 'data-source'), 'api');
      assert.equal(await page.getAttribute('[data-testid=kb-type]', 'data-value'), 'string');
      assert.equal(await page.getAttribute('[data-testid=kb-bytes]', 'data-value'), '5 B');
      const post = requests.find((r) => r.method === 'POST');
      assert.ok(post, JSON.stringify(requests.map((r) => [r.method, r.url.length])));
      assert.ok(post.body.startsWith('match=') && post.body.length > 3 * 22 * 1024, `${post.body.length}`);
      // A pattern too long for any URL: the error says so without echoing the URL whole.
      await page.fill('[data-testid=kb-pattern]', 'x'.repeat(70_000));
      await page.click('[data-testid=kb-search]');
      await page.waitForSelector('[data-testid=kb-error]');
      const text = await page.textContent('[data-testid=kb-error]');
      assert.match(text, /HTTP 414/);
      assert.ok(text.length < 800, `an error of ${text.length} characters`);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });
});
