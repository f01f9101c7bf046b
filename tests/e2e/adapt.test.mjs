// The panel adapts to what it was given (issue 18, first bullet), index.html from a plain static
// server (no API), snapshots written by a real redis-server (SAVE) opened through the file input:
// - a snapshot holding only keys no card reads: every card collapses to one line naming its key
//   pattern ("no `uv:page:index:*` keys in this snapshot · Settings", en and zh), no metric
//   value is drawn (no big zeros), the Engagement charts are not shown, and the key browser is
//   put before the cards and scrolled into view, listing every key redis-server's DBSIZE counts;
// - a snapshot with a few daily keys of some cards, none of today: the date chosen is the
//   latest date those keys have, the active-users card equals redis-server's BITCOUNT for it,
//   and the card whose keys are absent (nearby) collapses while the others are drawn;
// - `cards=keys` alone is not an error: a notice, no error box, the panel not in the error state.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  ROOT, artifact, launchBrowser, redisCli, redisPipe, startRedis, tempDir,
} from './harness.mjs';
import { staticServer } from './static-server.mjs';

/** A dump.rdb written by a real redis-server (SAVE) holding `cmds`; copied to `dir/name`. */
async function snapshot(dir, name, cmds) {
  const redis = await startRedis();
  try {
    redisPipe(redis.port, cmds);
    redisCli(redis.port, ['SAVE']);
    const file = path.join(dir, name);
    copyFileSync(path.join(redis.dir, 'dump.rdb'), file);
    return { file, redis };
  } catch (e) {
    await redis.proc.stop();
    throw e;
  }
}

describe('the panel adapts to the snapshot it was given', { timeout: 180000 }, () => {
  const dir = tempDir('bitlens-e2e-adapt-');
  let web;
  let browser;
  let unrelated; // only keys no card reads
  let partial; // a few daily keys of the uv and active cards, no GEO set
  const pageErrors = [];

  before(async () => {
    unrelated = await snapshot(dir, 'unrelated.rdb', [
      ['RPUSH', 'queue:jobs', 'a', 'b', 'c'],
      ['HSET', 'user:1', 'name', 'ann', 'city', 'shanghai'],
      ['SET', 'session:abc', 'x'],
      ['SADD', 'tags', 'red', 'green'],
      ['SETBIT', 'flags:beta', '7', '1'],
    ]);
    partial = await snapshot(dir, 'partial.rdb', [
      ['PFADD', 'uv:page:index:20231101', 'a', 'b', 'c'],
      ['SETBIT', 'stats:active:20231103', '5', '1'],
      ['SETBIT', 'stats:active:20231105', '1', '1'],
      ['SETBIT', 'stats:active:20231105', '9', '1'],
      ['SETBIT', 'stats:active:20231105', '1000', '1'],
      ['SET', 'other', 'y'],
    ]);
    web = await staticServer(ROOT, { '/': readFileSync(path.join(ROOT, 'index.html'), 'utf8') });
    browser = await launchBrowser();
  });

  after(async () => {
    if (browser) await browser.close().catch(() => {});
    if (web) await web.close();
    for (const s of [unrelated, partial]) if (s) await s.redis.proc.stop();
  });

  const open = async (query, file, viewport = { width: 1280, height: 900 }) => {
    const page = await browser.newPage({ viewport });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${web.url}/?${query}`);
    await page.waitForSelector('[data-testid=panel][data-state=error], [data-testid=panel][data-state=idle]', { timeout: 60000 });
    if (file) {
      await page.setInputFiles('[data-testid=file-input]', file);
      await page.waitForSelector('[data-testid=panel][data-state=ready][data-offline=ready]', { timeout: 60000 });
    }
    return page;
  };

  test('keys no card reads: one line per card, no zeros, the key browser first and in view', async () => {
    const page = await open('lang=en', unrelated.file);
    const want = {
      uv: 'uv:page:index:*', active: 'stats:active:*', nearby: 'shop:geo:*', engagement: 'stats:active:*',
    };
    for (const [c, glob] of Object.entries(want)) {
      const line = page.locator(`[data-testid=${c}-absent]`);
      assert.ok(await line.isVisible(), c);
      assert.equal(await line.getAttribute('data-pattern'), glob);
      assert.match(await line.textContent(), new RegExp(`no ${glob.replace(/[*]/g, '\\*')} keys in this snapshot · Settings$`));
      assert.equal(await page.locator(`[data-testid=card-${c}]`).getAttribute('data-absent'), '');
      // One line: the collapsed card is no taller than two lines of text plus its padding.
      const box = await page.locator(`[data-testid=card-${c}]`).boundingBox();
      assert.ok(box.height < 60, `${c}: ${box.height}px`);
    }
    // No number drawn, no "missing key" warning, no Engagement charts.
    assert.equal(await page.locator('.metric-value').count(), 0);
    assert.equal(await page.locator('[data-testid$=-missing]').count(), 0);
    assert.ok(await page.locator('[data-testid=engagement-section], #eng-title').first().isHidden());
    // The key browser comes before the cards, is in view, and lists every key of the file.
    assert.equal(await page.getAttribute('[data-testid=panel]', 'data-view'), 'keys');
    const before = await page.evaluate(() => {
      const kb = document.querySelector('[data-testid=keys-section]');
      const cards = document.querySelector('[data-testid=cards]');
      return Boolean(kb.compareDocumentPosition(cards) & Node.DOCUMENT_POSITION_FOLLOWING);
    });
    assert.ok(before, 'key browser before the cards');
    const kb = await page.locator('[data-testid=keys-section]').boundingBox();
    // In view: scrolled to its top (scrollIntoView snaps the scroll offset to whole pixels, so
    // with the page tall enough to scroll that far the top may sit a fraction of a pixel above).
    assert.ok(kb.y > -1 && kb.y < 900, `key browser at y=${kb.y}`);
    await page.waitForSelector('[data-testid=kb-summary][data-total]');
    assert.equal(Number(await page.getAttribute('[data-testid=kb-summary]', 'data-total')),
      Number(redisCli(unrelated.redis.port, ['DBSIZE']).trim()));
    // The settings link opens the settings.
    await page.click('[data-testid=uv-absent-settings]');
    assert.ok(await page.locator('details.settings').evaluate((d) => d.open));
    await page.screenshot({ path: artifact('adapt-unrelated-en.png'), fullPage: true });
    await page.close();

    const zh = await open('lang=zh', unrelated.file);
    assert.match(await zh.textContent('[data-testid=uv-absent]'), /快照中没有 uv:page:index:\* 键 · 设置$/);
    assert.equal(await zh.locator('.metric-value').count(), 0);
    await zh.screenshot({ path: artifact('adapt-unrelated-zh.png'), fullPage: true });
    await zh.close();
  });

  test('a few daily keys: the date is their latest, the absent card collapses, the others count', async () => {
    const page = await open('lang=en', partial.file);
    // The latest date any card's keys have (20231105 of stats:active:*, after uv's 20231101).
    assert.equal(await page.inputValue('[data-testid=date]'), '2023-11-05');
    assert.equal(await page.textContent('[data-testid=active-day-cmd]'), 'BITCOUNT stats:active:20231105');
    assert.equal(Number(await page.getAttribute('[data-testid=active-day]', 'data-value')),
      Number(redisCli(partial.redis.port, ['BITCOUNT', 'stats:active:20231105']).trim()));
    assert.equal(Number(await page.getAttribute('[data-testid=uv-30d]', 'data-value')),
      Number(redisCli(partial.redis.port, ['PFCOUNT', 'uv:page:index:20231101']).trim()));
    // The uv card has keys, only not of that day: it is drawn, with the day's key named missing.
    assert.match(await page.textContent('[data-testid=uv-missing]'), /uv:page:index:20231105/);
    assert.ok(await page.locator('[data-testid=nearby-absent]').isVisible());
    assert.equal(await page.locator('[data-testid=nearby-count]').count(), 0);
    for (const c of ['uv', 'active', 'engagement']) assert.equal(await page.locator(`[data-testid=${c}-absent]`).count(), 0, c);
    // Some card has keys: the cards come first.
    assert.equal(await page.getAttribute('[data-testid=panel]', 'data-view'), 'cards');
    await page.screenshot({ path: artifact('adapt-partial.png'), fullPage: true });
    await page.close();
  });

  test('cards=keys alone is a notice, not an error', async () => {
    const page = await open('cards=keys&lang=en');
    assert.equal(await page.getAttribute('[data-testid=panel]', 'data-state'), 'idle');
    const notice = page.locator('[data-testid=api-unreachable]');
    assert.ok(await notice.isVisible());
    assert.equal(await notice.getAttribute('data-kind'), 'keys-only');
    assert.match(await notice.textContent(), /Only the key browser is shown/);
    assert.doesNotMatch(await page.textContent('[data-testid=panel]'), /could not be loaded|No card in/);
    assert.equal(await page.locator('.error').count(), 0);
    // The file opens on the key browser.
    await page.setInputFiles('[data-testid=file-input]', partial.file);
    await page.waitForSelector('[data-testid=panel][data-state=ready][data-offline=ready]', { timeout: 60000 });
    await page.waitForSelector('[data-testid=kb-summary][data-total]');
    assert.equal(Number(await page.getAttribute('[data-testid=kb-summary]', 'data-total')),
      Number(redisCli(partial.redis.port, ['DBSIZE']).trim()));
    await page.close();
    assert.deepEqual(pageErrors, []);
  });
});
