// The online panel's database selector (issue 27, item 6): `bitlens serve --redis` exports
// every non-empty database of a live redis-server, so the selector that offline files have
// works online too. Keys go into databases 0 and 2 (the cards' keys in both, with different
// values, and sign-in bitmaps in 2 only); the panel's numbers for each database are compared
// with redis-cli's `-n N` answers:
// - the selector lists databases 0 and 2 and starts on 0 (the first holding the cards' keys);
// - the UV card's PFCOUNT and the active-users card's BITCOUNT are redis-cli's in database 0,
//   then, database 2 selected, redis-cli -n 2's;
// - the key browser lists database 2 through /api/keys?db=2: its total under `*` is
//   `redis-cli -n 2 DBSIZE`, and a key of database 2 only, opened, shows redis-cli -n 2's
//   BITCOUNT and STRLEN;
// - the API itself: /api/info lists INFO keyspace's two databases.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  launchBrowser, redisCli, redisPipe, rng, startBitlens, startRedis,
} from './harness.mjs';

const DAY = '20240520';

/** The cards' keys in databases 0 and 2 (different sizes), sign-in bitmaps in 2 only. */
function writeData(port) {
  const rand = rng(27);
  const cmds = [];
  for (const [db, visitors, bits, signs] of [[0, 700, 300, 0], [2, 2500, 90, 40]]) {
    cmds.push(['SELECT', db]);
    const v = [];
    for (let i = 0; i < visitors; i++) v.push(`v${db}:${Math.floor(rand() * 100000)}`);
    for (let i = 0; i < v.length; i += 500) cmds.push(['PFADD', `uv:page:index:${DAY}`, ...v.slice(i, i + 500)]);
    for (let i = 0; i < bits; i++) cmds.push(['SETBIT', `stats:active:${DAY}`, Math.floor(rand() * 50000), 1]);
    for (let u = 0; u < signs; u++) cmds.push(['SETBIT', `sign:${u}:202405`, 1 + Math.floor(rand() * 30), 1]);
  }
  redisPipe(port, cmds);
}

const int = (port, db, args) => Number(redisCli(port, ['-n', String(db), ...args]).trim());

describe('the online panel: every database of the server, chosen with the selector', { timeout: 300000 }, () => {
  let browser;
  let redis;
  let api;
  const pageErrors = [];

  before(async () => {
    redis = await startRedis();
    writeData(redis.port);
    api = await startBitlens(['--redis', `redis://127.0.0.1:${redis.port}`]);
    browser = await launchBrowser();
  });
  after(async () => {
    if (browser) await browser.close().catch(() => {});
    if (api) await api.proc.stop();
    if (redis) await redis.proc.stop();
  });

  const value = async (page, id) => Number(await page.getAttribute(`[data-testid=${id}]`, 'data-value'));

  test('the selector lists databases 0 and 2; each one\'s numbers are redis-cli\'s', async () => {
    const info = await (await fetch(`${api.url}/api/info`)).json();
    assert.equal(info.db, null);
    assert.deepEqual(info.databases.map((d) => [d.db, d.keys]),
      [[0, int(redis.port, 0, ['DBSIZE'])], [2, int(redis.port, 2, ['DBSIZE'])]]);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${api.url}/?cards=uv,active,keys`);
    await page.waitForSelector('[data-testid=panel][data-state=ready], [data-testid=panel][data-state=error]', { timeout: 90000 });
    assert.equal(await page.getAttribute('[data-testid=panel]', 'data-state'), 'ready');
    assert.equal(await page.isHidden('[data-testid=snapshot-facts]'), false);
    assert.equal(await page.isDisabled('[data-testid=db]'), false);
    assert.deepEqual(await page.$$eval('[data-testid=db] option', (o) => o.map((x) => x.value)), ['0', '2']);
    assert.equal(await page.inputValue('[data-testid=db]'), '0');

    // Database 0.
    assert.equal(await value(page, 'uv-day'), int(redis.port, 0, ['PFCOUNT', `uv:page:index:${DAY}`]));
    assert.equal(await value(page, 'active-day'), int(redis.port, 0, ['BITCOUNT', `stats:active:${DAY}`]));
    await page.waitForFunction(() => document.querySelector('[data-testid=kb-summary]')?.dataset.db === '0');
    assert.equal(Number(await page.getAttribute('[data-testid=kb-summary]', 'data-total')), int(redis.port, 0, ['DBSIZE']));

    // Database 2: the cards and the key browser follow the selector.
    await page.selectOption('[data-testid=db]', '2');
    const uv2 = int(redis.port, 2, ['PFCOUNT', `uv:page:index:${DAY}`]);
    const active2 = int(redis.port, 2, ['BITCOUNT', `stats:active:${DAY}`]);
    assert.notEqual(uv2, int(redis.port, 0, ['PFCOUNT', `uv:page:index:${DAY}`]));
    await page.waitForFunction((n) => Number(document.querySelector('[data-testid=uv-day]')?.dataset.value) === n, uv2, { timeout: 30000 });
    assert.equal(await value(page, 'active-day'), active2);
    await page.waitForFunction(() => document.querySelector('[data-testid=kb-summary]')?.dataset.db === '2', null, { timeout: 30000 });
    assert.equal(await page.getAttribute('[data-testid=keys-section]', 'data-source'), 'api');
    assert.equal(Number(await page.getAttribute('[data-testid=kb-summary]', 'data-total')), int(redis.port, 2, ['DBSIZE']));

    // A key of database 2 only, opened: fetched alone from database 2.
    const key = 'sign:17:202405';
    assert.equal(int(redis.port, 0, ['EXISTS', key]), 0);
    await page.fill('[data-testid=kb-pattern]', 'sign:17:*');
    await page.click('[data-testid=kb-search]');
    await page.waitForSelector(`[data-testid=kb-row][data-key="${key}"][data-db="2"]`);
    await page.click(`[data-testid=kb-row][data-key="${key}"] button`);
    await page.waitForSelector('[data-testid=kb-detail][data-state=ready]', { timeout: 60000 });
    assert.equal(await value(page, 'kb-bitcount'), int(redis.port, 2, ['BITCOUNT', key]));
    assert.equal(await value(page, 'kb-bits'), 8 * int(redis.port, 2, ['STRLEN', key]));

    // Back to database 0: its numbers again.
    await page.selectOption('[data-testid=db]', '0');
    const uv0 = int(redis.port, 0, ['PFCOUNT', `uv:page:index:${DAY}`]);
    await page.waitForFunction((n) => Number(document.querySelector('[data-testid=uv-day]')?.dataset.value) === n, uv0, { timeout: 30000 });
    await page.waitForFunction(() => document.querySelector('[data-testid=kb-summary]')?.dataset.db === '0', null, { timeout: 30000 });
    assert.deepEqual(pageErrors, []);
    await page.close();
  });
});
