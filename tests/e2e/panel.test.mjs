// End to end: a real redis-server with data written by a real client (redis-cli --pipe),
// `bitlens serve --redis` against it, the panel in headless Chromium; every number on the
// panel must equal what redis-cli returns for the same command on the same server, and the
// command each card shows must give that number when pasted into redis-cli.
// A second test runs `bitlens serve` on its built-in demo data.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { displayName } from '../../www/util.js';
import {
  BITLENS, artifact, launchBrowser, redisCli, redisPipe, rng, serveAndBrowse, startBitlens, startRedis,
  tempDir,
} from './harness.mjs';

const DATES = [];
for (let d = 8; d <= 21; d++) DATES.push(`202405${String(d).padStart(2, '0')}`);
const DATE = '20240520';
const TPL = { uv: 'e2e:uv:{date}', active: 'e2e:active:{date}', geo: 'e2e:geo:{type}' };
const key = (tpl, v) => tpl.replace(/\{\w+\}/, v);
const SHANGHAI = [121.4737, 31.2304];
const BEIJING = [116.4074, 39.9042];
const XSS_NAME = '<img src=x onerror="window.__xss=1">';
const ZH_NAME = '咖啡 & "店" <b>';

/** The last `n` of DATES ending at `date`, oldest first, with days before the data as keys too. */
function daysEnding(date, n) {
  const end = Date.UTC(+date.slice(0, 4), +date.slice(4, 6) - 1, +date.slice(6, 8));
  const out = [];
  for (let i = n - 1; i >= 0; i--) out.push(new Date(end - i * 86400000).toISOString().slice(0, 10).replace(/-/g, ''));
  return out;
}

/** Test data written with a real client: bitmaps (SET and SETBIT), HyperLogLogs, GEO sets. */
function writeData(port) {
  const rand = rng(20240520);
  const cmds = [];
  const users = 200000;
  DATES.forEach((d, i) => {
    const k = key(TPL.active, d);
    if (i % 2 === 0) {
      // Whole bitmap written at once: a loyal core plus a random crowd (weekday rhythm).
      const bytes = Buffer.alloc(users / 8);
      const p = 0.05 + 0.03 * (i % 3);
      for (let u = 0; u < users; u++) {
        if ((u < 2000 && rand() < 0.85) || rand() < p) bytes[u >> 3] |= 0x80 >> (u & 7);
      }
      cmds.push(['SET', k, bytes]);
    } else {
      // Bit by bit: the loyal core, then a sparse crowd, different lengths per day.
      for (let u = 0; u < 400; u++) if (rand() < 0.9) cmds.push(['SETBIT', k, u, 1]);
      const n = 1500 + Math.floor(rand() * 3000);
      for (let j = 0; j < n; j++) cmds.push(['SETBIT', k, Math.floor(rand() * users * (0.5 + i / 28)), 1]);
    }
    // HyperLogLogs: sparse (small days) and dense (big days), overlapping visitor pools.
    const uv = key(TPL.uv, d);
    const visitors = [40, 900, 5000, 20000][i % 4] + Math.floor(rand() * 200);
    let batch = [];
    for (let j = 0; j < visitors; j++) {
      batch.push(`visitor-${Math.floor(rand() * 60000)}`);
      if (batch.length === 500) {
        cmds.push(['PFADD', uv, ...batch]);
        batch = [];
      }
    }
    if (batch.length) cmds.push(['PFADD', uv, ...batch]);
  });
  // GEO sets: shops around two cities, plus names that must be shown as text.
  for (const type of ['food', 'cafe']) {
    const g = key(TPL.geo, type);
    for (const [city, [lon, lat]] of [['sh', SHANGHAI], ['bj', BEIJING]]) {
      const n = type === 'food' ? 400 : 150;
      const args = [];
      for (let j = 0; j < n; j++) {
        args.push((lon + (rand() - 0.5) * 0.16).toFixed(6), (lat + (rand() - 0.5) * 0.14).toFixed(6));
        args.push(`${type}:${city}:${String(j).padStart(4, '0')}`);
      }
      cmds.push(['GEOADD', g, ...args]);
    }
  }
  cmds.push(['GEOADD', key(TPL.geo, 'food'), '121.4741', '31.2301', XSS_NAME, '121.4730', '31.2310', ZH_NAME]);
  // Keys the panel must ignore or report: other names, a non-date suffix, a wrong type.
  cmds.push(['SET', 'other:key', 'x']);
  cmds.push(['SET', key(TPL.active, 'notadate'), 'zzz']);
  cmds.push(['GEOADD', `e2e:wrong:${DATE}`, '1', '2', 'm']);
  redisPipe(port, cmds);
}

/** redis-cli's integer reply for one command. */
function cliInt(port, argv) {
  const out = redisCli(port, argv).trim();
  assert.match(out, /^-?\d+$/, `redis-cli ${argv.join(' ')} printed ${out}`);
  return Number(out);
}

/**
 * Runs the command text a card shows (one command per line, as staff would paste it into
 * redis-cli) and returns what the last command printed.
 */
function pasteIntoCli(port, text) {
  const out = redisCli(port, [], text + '\n').trim().split('\n');
  return out[out.length - 1];
}

async function waitReady(page) {
  await page.waitForSelector('[data-testid=panel][data-state=ready], [data-testid=panel][data-state=error]', {
    timeout: 120000,
  });
  const state = await page.getAttribute('[data-testid=panel]', 'data-state');
  if (state !== 'ready') {
    throw new Error(`panel failed to load: ${await page.textContent('[data-testid=panel]')}`);
  }
}

const value = async (page, id) => Number(await page.getAttribute(`[data-testid="${id}"]`, 'data-value'));
const text = async (page, id) => (await page.textContent(`[data-testid="${id}"]`)).trim();

/**
 * The nearby-shops rows on screen: [[member, dist text], ...]; each member's name is shown as the
 * key browser shows names (www/util.js displayName: redis-cli's quoting), checked here.
 */
async function rows(page) {
  const got = await page.$$eval('[data-testid=nearby-row]', (lis) => lis.map((li) => [li.dataset.member, li.dataset.dist, li.querySelector('.member').textContent]));
  for (const [member, , shown] of got) assert.equal(shown, displayName(member), member);
  return got.map(([member, dist]) => [member, dist]);
}

/**
 * redis-cli GEOSEARCH ... ASC WITHDIST as [[member, dist], ...]; `from` is [lon, lat] or a
 * member name.
 */
function geosearchCli(port, geoKey, from, radius, unit = 'km') {
  const origin = Array.isArray(from) ? ['FROMLONLAT', String(from[0]), String(from[1])] : ['FROMMEMBER', from];
  const out = redisCli(port, ['GEOSEARCH', geoKey, ...origin, 'BYRADIUS', String(radius), unit, 'ASC', 'WITHDIST']);
  const lines = out.replace(/\n$/, '').split('\n');
  if (lines.length === 1 && lines[0] === '') return [];
  const pairs = [];
  for (let i = 0; i < lines.length; i += 2) pairs.push([lines[i], lines[i + 1]]);
  return pairs;
}

describe('panel on a live Redis', { timeout: 600000 }, () => {
  let redis;
  let server;
  let browser;
  let page;
  const pageErrors = [];

  before(async () => {
    redis = await startRedis();
    writeData(redis.port);
    server = await startBitlens(['--redis', `redis://127.0.0.1:${redis.port}`]);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && pageErrors.push(m.text()));
  });

  after(async () => {
    if (browser) await browser.close().catch(() => {});
    if (server) await server.proc.stop();
    if (redis) await redis.proc.stop();
  });

  test('every number equals redis-cli on the same server', async () => {
    const q = new URLSearchParams({
      date: DATE, 'uv-key': TPL.uv, 'active-key': TPL.active, 'geo-key': TPL.geo,
      type: 'food', city: 'shanghai', radius: '5',
    });
    await page.goto(`${server.url}/?${q}`);
    await waitReady(page);
    assert.equal(await page.inputValue('[data-testid=date]'), '2024-05-20');
    // The profile line names the server the snapshot came from (INFO server's redis_version,
    // which the exporter records as the file's redis-ver).
    const version = /redis_version:(\S+)/.exec(redisCli(redis.port, ['INFO', 'server']))[1];
    assert.equal(await text(page, 'profile'), `answers as Redis ${version}, the writer of this snapshot`);
    assert.equal(await page.inputValue('[data-testid=db]'), '0');

    // Unique visitors: PFCOUNT of the day, and multi-key PFCOUNT over 7 and 30 days.
    for (const [id, n] of [['uv-day', 1], ['uv-7d', 7], ['uv-30d', 30]]) {
      const argv = ['PFCOUNT', ...daysEnding(DATE, n).map((d) => key(TPL.uv, d))];
      const want = cliInt(redis.port, argv);
      assert.ok(want > 0, `${id}: test data has visitors`);
      assert.equal(await value(page, id), want, id);
      assert.equal(await text(page, `${id}-cmd`), argv.join(' '), `${id} command`);
      assert.equal(pasteIntoCli(redis.port, await text(page, `${id}-cmd`)), String(want));
    }

    // Active users: BITCOUNT of the day; BITOP OR into a scratch key + BITCOUNT for windows.
    const day = cliInt(redis.port, ['BITCOUNT', key(TPL.active, DATE)]);
    assert.ok(day > 0);
    assert.equal(await value(page, 'active-day'), day);
    assert.equal(await text(page, 'active-day-cmd'), `BITCOUNT ${key(TPL.active, DATE)}`);
    for (const [id, n] of [['active-7d', 7], ['active-30d', 30]]) {
      const keys = daysEnding(DATE, n).map((d) => key(TPL.active, d));
      cliInt(redis.port, ['BITOP', 'OR', 'e2e:scratch', ...keys]);
      const want = cliInt(redis.port, ['BITCOUNT', 'e2e:scratch']);
      redisCli(redis.port, ['DEL', 'e2e:scratch']);
      assert.ok(want > day, `${id} exceeds the day`);
      assert.equal(await value(page, id), want, id);
      const shown = await text(page, `${id}-cmd`);
      assert.match(shown, new RegExp(`^BITOP OR \\S+ ${keys.join(' ')}\\nBITCOUNT \\S+$`), `${id} command`);
      assert.equal(pasteIntoCli(redis.port, shown), String(want));
    }

    // Engagement: users active on each of the last 7 days = BITCOUNT of the AND of the 7 days;
    // stickiness = day actives / 30-day actives (the charts: tests/e2e/engagement.test.mjs).
    {
      const keys = daysEnding(DATE, 7).map((d) => key(TPL.active, d));
      cliInt(redis.port, ['BITOP', 'AND', 'e2e:scratch', ...keys]);
      const all7 = cliInt(redis.port, ['BITCOUNT', 'e2e:scratch']);
      redisCli(redis.port, ['DEL', 'e2e:scratch']);
      assert.ok(all7 > 0);
      assert.equal(await value(page, 'engagement-streak7'), all7);
      assert.equal(await text(page, 'engagement-streak7-cmd'), `BITLENS.STREAKHIST ${keys.join(' ')}`);
      assert.equal(await value(page, 'engagement-stickiness'), (await value(page, 'active-day')) / (await value(page, 'active-30d')));
    }

    // Nearby shops: GEOSEARCH FROMLONLAT ... BYRADIUS 5 km ASC WITHDIST, paged by 20.
    let want = geosearchCli(redis.port, key(TPL.geo, 'food'), SHANGHAI, 5);
    assert.ok(want.length > 40, `enough shops for three pages (${want.length})`);
    assert.equal(await value(page, 'nearby-count'), want.length);
    assert.deepEqual(await rows(page), want.slice(0, 20));
    assert.equal(
      await text(page, 'nearby-cmd'),
      `GEOSEARCH ${key(TPL.geo, 'food')} FROMLONLAT ${SHANGHAI[0]} ${SHANGHAI[1]} BYRADIUS 5 km ASC WITHDIST WITHCOORD`,
    );
    // Member names are text, never HTML.
    assert.ok(want.slice(0, 20).some(([m]) => m === XSS_NAME) && want.slice(0, 20).some(([m]) => m === ZH_NAME));
    assert.equal(await page.evaluate(() => window.__xss), undefined);
    assert.equal(await page.locator('[data-testid=nearby-list] img').count(), 0);
    // The map (plotters SVG): one dot per shop within the radius, the 20 on this page emphasised.
    const mapSvg = await page.$eval('[data-testid=nearby-map]', (img) => decodeURIComponent(img.src.split(',')[1]));
    assert.equal((mapSvg.match(/r="4"/g) || []).length, 20);
    assert.equal((mapSvg.match(/r="2"/g) || []).length, want.length - 20);
    await page.screenshot({ path: artifact('panel.png'), fullPage: true });

    await page.click('[data-testid=nearby-next]');
    assert.deepEqual(await rows(page), want.slice(20, 40));
    await page.click('[data-testid=nearby-prev]');
    assert.deepEqual(await rows(page), want.slice(0, 20));

    // Other radius, type and city.
    await page.selectOption('[data-testid=city]', 'beijing');
    await page.selectOption('[data-testid=type]', 'cafe');
    await page.selectOption('[data-testid=radius]', '1');
    want = geosearchCli(redis.port, key(TPL.geo, 'cafe'), BEIJING, 1);
    assert.equal(await value(page, 'nearby-count'), want.length);
    assert.deepEqual(await rows(page), want.slice(0, 20));
    await page.selectOption('[data-testid=radius]', '3');
    want = geosearchCli(redis.port, key(TPL.geo, 'cafe'), BEIJING, 3);
    assert.ok(want.length > 0);
    assert.equal(await value(page, 'nearby-count'), want.length);
    assert.deepEqual(await rows(page), want.slice(0, 20));

    // Another unit: the radius presets follow it (3000 m).
    await page.selectOption('[data-testid=unit]', 'm');
    assert.equal(await page.inputValue('[data-testid=radius]'), '3000');
    want = geosearchCli(redis.port, key(TPL.geo, 'cafe'), BEIJING, 3000, 'm');
    assert.equal(await value(page, 'nearby-count'), want.length);
    assert.deepEqual(await rows(page), want.slice(0, 20));
    // Centred on a shop (FROMMEMBER), and a shop that does not exist (Redis' error in the card).
    await page.fill('[data-testid=member]', 'cafe:bj:0003');
    await page.dispatchEvent('[data-testid=member]', 'change');
    want = geosearchCli(redis.port, key(TPL.geo, 'cafe'), 'cafe:bj:0003', 3000, 'm');
    assert.equal(want[0][0], 'cafe:bj:0003');
    assert.equal(await value(page, 'nearby-count'), want.length);
    assert.deepEqual(await rows(page), want.slice(0, 20));
    assert.equal(await text(page, 'nearby-cmd'), `GEOSEARCH ${key(TPL.geo, 'cafe')} FROMMEMBER cafe:bj:0003 BYRADIUS 3000 m ASC WITHDIST WITHCOORD`);
    await page.fill('[data-testid=member]', 'no-such-shop');
    await page.dispatchEvent('[data-testid=member]', 'change');
    assert.equal(
      await text(page, 'nearby-error-text'),
      redisCli(redis.port, ['GEOSEARCH', key(TPL.geo, 'cafe'), 'FROMMEMBER', 'no-such-shop', 'BYRADIUS', '3000', 'm', 'ASC']).trim(),
    );

    // Another date from the picker: the cards follow it.
    await page.fill('[data-testid=date]', '2024-05-14');
    await page.dispatchEvent('[data-testid=date]', 'change');
    await page.waitForFunction(() => document.querySelector('[data-testid=uv-day-cmd]').textContent.includes('20240514'));
    assert.equal(await value(page, 'uv-day'), cliInt(redis.port, ['PFCOUNT', key(TPL.uv, '20240514')]));
    assert.equal(await value(page, 'active-day'), cliInt(redis.port, ['BITCOUNT', key(TPL.active, '20240514')]));
    assert.deepEqual(pageErrors, []);
  });

  test('the date defaults to the latest in the snapshot; a broken card leaves the others', async () => {
    const q = new URLSearchParams({ 'uv-key': 'e2e:wrong:{date}', 'active-key': TPL.active, 'geo-key': TPL.geo });
    await page.goto(`${server.url}/?${q}`);
    await waitReady(page);
    // e2e:wrong:20240520 is a GEO set: the latest date among the active and uv keys is 20240521.
    assert.equal(await page.inputValue('[data-testid=date]'), '2024-05-21');
    await page.fill('[data-testid=date]', '2024-05-20');
    await page.dispatchEvent('[data-testid=date]', 'change');
    await page.waitForFunction(() => document.querySelector('[data-testid=active-day-cmd]')?.textContent.includes('20240520'));
    const err = redisCli(redis.port, ['PFCOUNT', `e2e:wrong:${DATE}`]).trim();
    assert.match(err, /^WRONGTYPE/);
    assert.equal(await text(page, 'uv-error-text'), err);
    assert.equal(await text(page, 'uv-error-cmd'), `PFCOUNT e2e:wrong:${DATE}`);
    assert.equal(await value(page, 'active-day'), cliInt(redis.port, ['BITCOUNT', key(TPL.active, DATE)]));
    assert.ok((await value(page, 'nearby-count')) > 0);
  });
});

describe('panel on the built-in demo data', { timeout: 600000 }, () => {
  const demo = serveAndBrowse([]);

  test('shows non-zero numbers that bitlens query confirms', async () => {
    const page = await demo.browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.goto(`${demo.server.url}/`);
    await waitReady(page);
    const date = (await page.inputValue('[data-testid=date]')).replace(/-/g, '');
    assert.match(date, /^\d{8}$/);
    for (const id of ['uv-day', 'uv-7d', 'uv-30d', 'active-day', 'active-7d', 'active-30d', 'nearby-count', 'engagement-streak7']) {
      assert.ok((await value(page, id)) > 0, `${id} is ${await value(page, id)}`);
    }
    assert.ok((await value(page, 'uv-7d')) >= (await value(page, 'uv-day')));
    assert.ok((await value(page, 'active-7d')) >= (await value(page, 'active-day')));
    await page.screenshot({ path: artifact('panel-demo.png'), fullPage: true });

    // The same snapshot through the CLI gives the same numbers.
    const res = await fetch(`${demo.server.url}/api/snapshot?match=${encodeURIComponent('uv:page:index:*')}&match=${encodeURIComponent('stats:active:*')}`);
    assert.equal(res.status, 200);
    const file = path.join(tempDir(), 'demo.rdb');
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const query = (...argv) => execFileSync(BITLENS, ['query', '--rdb', file, ...argv], { encoding: 'utf8' }).trim();
    assert.equal(Number(query('PFCOUNT', `uv:page:index:${date}`)), await value(page, 'uv-day'));
    assert.equal(Number(query('BITCOUNT', `stats:active:${date}`)), await value(page, 'active-day'));
    await page.close();
  });
});
