// The key browser's detail views of RedisBloom values (issue 20 §3), on the snapshot the real
// module wrote (Redis 7.4.1 + RedisBloom 2.8.2, tests/data/conformance/redis-7.4.1-bloom, whose
// cases.jsonl records that server's replies): index.html from a plain static server, the file
// opened through "Open snapshot…". A Bloom filter's facts equal BF.INFO, its "seen before?"
// answers equal the module's BF.EXISTS (its false positive included), a Cuckoo filter's
// equals CF.EXISTS, the Top-K table equals TOPK.LIST WITHCOUNT, and the t-digest curve's
// median equals TDIGEST.QUANTILE.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  ROOT, artifact, launchBrowser, openFile, openOfflinePanel, staticPanel,
} from './harness.mjs';

const DIR = path.join(ROOT, 'tests/data/conformance/redis-7.4.1-bloom');
const cases = readFileSync(path.join(DIR, 'cases.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
/** The recorded reply of `argv` on the real module. */
function recorded(...argv) {
  const c = cases.find((x) => JSON.stringify(x.argv) === JSON.stringify(argv));
  assert.ok(c, `no recorded case ${argv.join(' ')}`);
  return c.reply;
}
/** An INFO reply's value after the label `name`. */
function info(reply, name) {
  const i = reply.findIndex((x) => x && x.status === name);
  assert.ok(i >= 0, name);
  return reply[i + 1];
}

describe('key browser detail of RedisBloom values', { timeout: 180000 }, () => {
  let web;
  let browser;
  let page;
  const pageErrors = [];

  before(async () => {
    web = await staticPanel();
    browser = await launchBrowser();
    ({ page } = await openOfflinePanel(browser, web.url, { errors: pageErrors }));
    await openFile(page, path.join(DIR, 'dump.rdb'));
  });

  after(async () => {
    if (browser) await browser.close().catch(() => {});
    if (web) await web.close();
  });

  async function openKey(key) {
    await page.fill('[data-testid=kb-pattern]', key);
    await page.click('[data-testid=kb-search]');
    await page.waitForSelector(`.kb-key[data-key="${key}"]`);
    await page.click(`.kb-key[data-key="${key}"]`);
    await page.waitForSelector(`[data-testid=kb-detail][data-state=ready]`);
    assert.equal(await page.textContent('[data-testid=kb-detail-key]'), key);
  }
  const value = (id) => page.getAttribute(`[data-testid=kb-detail] [data-testid=kb-${id}]`, 'data-value');

  async function seen(item) {
    await page.fill('[data-testid=kb-seen-input]', item);
    await page.evaluate(() => { document.querySelector('[data-testid=kb-seen-answer]').dataset.value = ''; });
    await page.click('[data-testid=kb-seen-ask]');
    await page.waitForFunction(() => document.querySelector('[data-testid=kb-seen-answer]')?.dataset.value !== '');
    return Number(await page.getAttribute('[data-testid=kb-seen-answer]', 'data-value'));
  }

  test('Bloom: BF.INFO facts and BF.EXISTS answers, false positive included', async () => {
    await openKey('bf:scaling');
    const bi = recorded('BF.INFO', 'bf:scaling');
    assert.equal(Number(await value('capacity')), info(bi, 'Capacity'));
    assert.equal(Number(await value('items')), info(bi, 'Number of items inserted'));
    assert.equal(Number(await value('filters')), info(bi, 'Number of filters'));
    assert.equal(Number(await value('size')), info(bi, 'Size'));
    for (const item of ['item1', 'item49', 'user7', 'user299', 'only', 'nope']) {
      assert.equal(await seen(item), recorded('BF.EXISTS', 'bf:scaling', item), item);
    }
    assert.match(await page.textContent('[data-testid=kb-seen-answer]'), /BF\.EXISTS bf:scaling nope → \(integer\) 0/);
    await page.screenshot({ path: artifact('module-detail-bloom.png'), fullPage: false });
  });

  test('Cuckoo: CF.EXISTS answers', async () => {
    await openKey('cf:small');
    for (const c of cases.filter((x) => x.argv[0] === 'CF.EXISTS' && x.argv[1] === 'cf:small' && x.argv.length === 3)) {
      assert.equal(await seen(c.argv[2]), c.reply, c.argv[2]);
    }
  });

  test('Top-K list and t-digest curve', async () => {
    await openKey('topk:k5');
    const flat = recorded('TOPK.LIST', 'topk:k5', 'WITHCOUNT');
    const want = [];
    for (let i = 0; i < flat.length; i += 2) want.push([flat[i].bulk, String(flat[i + 1])]);
    const rows = await page.$$eval('[data-testid=kb-topk] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
    assert.deepEqual(rows, want);
    await openKey('td:lat');
    const q = await page.$$eval('[data-testid=kb-quantiles] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
    assert.equal(q.length, 21);
    // The module's own TDIGEST.QUANTILE td:lat 0 0.1 0.5 0.9 0.99 1, at the points both have.
    const multi = cases.find((x) => x.argv[0] === 'TDIGEST.QUANTILE' && x.argv[1] === 'td:lat' && x.argv.length === 8);
    assert.ok(multi);
    let compared = 0;
    multi.argv.slice(2).forEach((qs, i) => {
      const row = q.find((r) => Number(r[0]) === Number(qs));
      if (!row) return;
      assert.equal(Number(row[1]), Number(multi.reply[i].bulk), `q=${qs}`);
      compared += 1;
    });
    assert.ok(compared >= 4, `compared ${compared} quantiles`);
    assert.deepEqual(pageErrors, []);
  });
});
