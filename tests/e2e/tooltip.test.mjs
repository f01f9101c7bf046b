// End to end: every chart of the panel answers a hover and keyboard focus with the exact value
// (issue 19.5). A real redis-server holds 14 daily bitmaps, a BITFIELD u4 level key and a GEO
// set of shops, written by redis-cli; `bitlens serve --redis` serves them. For each chart
// (DAU, streaks, retention, levels, the nearby map):
// - hovering a data point shows a tooltip whose text is, word for word, the chart's "Numbers
//   and commands" table row (column names and cells in the page's locale), and whose number
//   equals redis-cli's reply on the same server: BITCOUNT of that day's key (DAU), BITOP AND of
//   the window's keys then BITCOUNT (users on all 7 days of the streak window), BITOP OR / NOT /
//   AND of the cohort's keys then BITCOUNT (a retention cell), GEOSEARCH … WITHDIST (the map);
// - focus + ArrowLeft / ArrowRight (ArrowDown in the heatmap) moves to the neighbouring point
//   with its value; Escape hides the tooltip; the chart names the tooltip in aria-describedby
//   and the tooltip is a live region (role=status);
// - in Chinese and the dark theme at 390 px (dpr 2): the same values in zh words and zh-CN
//   number format, the page does not scroll sideways and the tooltip stays inside the viewport,
//   also at the last (rightmost) point.
// Screenshots: test-artifacts/tooltip-*.png.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { artifact, redisCli, rng, serveRedisAndBrowse } from './harness.mjs';
import { labelsFor } from '../../www/i18n.js';
import { dailyActivityCommands, levelCommand } from './activity.mjs';

const DAYS = [];
for (let d = 1; d <= 14; d++) DAYS.push(`202406${String(d).padStart(2, '0')}`);
const LAST = DAYS[DAYS.length - 1];
const SHANGHAI = [121.4737, 31.2304];
const USERS = 24000;

/** Integer of a number formatted in `locale` (grouping removed). */
const int = (s) => Number(String(s).replace(/[^\d.-]/g, ''));

/** Opens the panel and waits for the Engagement section and the nearby map. */
async function open(browser, url, { width = 1280, dpr = 1, theme = 'light', lang = 'en' } = {}) {
  const context = await browser.newContext({ viewport: { width, height: 1000 }, deviceScaleFactor: dpr, colorScheme: theme });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${url}/?theme=${theme}&lang=${lang}`);
  await page.waitForSelector('[data-testid=engagement-section][data-state=ready]', { timeout: 300000 });
  await page.waitForSelector('[data-testid=nearby-map]', { timeout: 60000 });
  return { context, page, errors };
}

/** The Numbers table of figure `id`: {head, rows} as the page shows them (text). */
function table(page, id) {
  return page.$eval(`[data-testid=eng-${id}] details table`, (t) => ({
    head: [...t.querySelectorAll('thead th')].map((c) => c.textContent),
    rows: [...t.querySelectorAll('tbody tr')].map((r) => [...r.children].map((c) => c.textContent)),
  }));
}

/** The tooltip text the table gives for columns `cols` of row `r` (www/i18n.js tipPair/tipJoin). */
function expected(t, tab, r, cols) {
  return cols.map((i) => t.tipPair(tab.head[i], tab.rows[r][i])).join(t.tipJoin);
}

/** Points of a chart element in CSS px of its box (tooltip.js). */
function points(page, sel) {
  return page.$eval(sel, (c) => c.tooltipPoints());
}

/** Moves the mouse onto point `p` of the chart `sel`; returns the tooltip's text and box. */
async function hover(page, sel, tipSel, p) {
  const box = await page.$eval(sel, (c) => {
    const r0 = c.getBoundingClientRect();
    if (r0.top < 0 || r0.bottom > innerHeight) c.scrollIntoView({ block: 'center' });
    const r = c.getBoundingClientRect();
    return { left: r.left, top: r.top };
  });
  const x = box.left + p.x;
  const y = box.top + p.y;
  await page.mouse.move(x, y);
  const tp = await tip(page, tipSel);
  // Next to its point: just above or below it, over it horizontally unless at an edge.
  if (!tp.hidden) {
    const gap = tp.bottom <= y ? y - tp.bottom : tp.top - y;
    assert.ok(gap >= 0 && gap <= 24, `tooltip ${JSON.stringify(tp)} is ${gap} px from its point (${x}, ${y})`);
    assert.ok((tp.left <= x + 1 && x - 1 <= tp.right) || tp.left <= 6 || tp.right >= (await page.evaluate(() => innerWidth)) - 6,
      `tooltip ${tp.left}..${tp.right} is not over x=${x}`);
  }
  return tp;
}

function tip(page, tipSel) {
  return page.$eval(tipSel, (e) => {
    const r = e.getBoundingClientRect();
    return {
      hidden: e.hidden, text: e.textContent, row: Number(e.dataset.row), col: Number(e.dataset.col),
      left: r.left, right: r.right, top: r.top, bottom: r.bottom, role: e.getAttribute('role'), id: e.id,
    };
  });
}

describe('Chart tooltips on live Redis data', { timeout: 900000 }, () => {
  const live = serveRedisAndBrowse(() => {
    const rand = rng(19);
    const cmds = dailyActivityCommands(DAYS, rand, { users: USERS, loyal: 2500, loyalP: 0.85, base: 0.05, weekday: 0.03 });
    cmds.push(levelCommand(`stats:level:${LAST}`, rand, { users: USERS, step: 5 }));
    const geo = ['GEOADD', 'shop:geo:food'];
    for (let i = 0; i < 30; i++) {
      geo.push(String(SHANGHAI[0] + (rand() - 0.5) * 0.05), String(SHANGHAI[1] + (rand() - 0.5) * 0.04), `shop-${i}`);
    }
    cmds.push(geo);
    return cmds;
  });
  const cli = (...args) => redisCli(live.redis.port, args).trim();

  test('en, light, 1280 px: hover and keys give the table row and the redis-cli reply', async () => {
    const t = labelsFor('en');
    const { context, page, errors } = await open(live.browser, live.server.url);
    try {
      // DAU: hover day 10; its DAU is BITCOUNT of that day's key.
      const dauSel = '[data-testid=eng-dau-canvas]';
      const dauTip = '[data-testid=eng-dau-tip]';
      const dau = await table(page, 'dau');
      const pts = await points(page, dauSel);
      assert.equal(pts.length, DAYS.length);
      assert.equal(dau.rows.length, DAYS.length);
      let tp = await hover(page, dauSel, dauTip, pts[9]);
      assert.equal(tp.hidden, false);
      assert.equal(tp.row, 9);
      assert.equal(tp.text, expected(t, dau, 9, [0, 1, 2, 3]));
      assert.ok(tp.text.startsWith('day: 2024-06-10 · DAU: '), tp.text);
      assert.equal(int(dau.rows[9][1]), Number(cli('BITCOUNT', `stats:active:${DAYS[9]}`)));
      assert.ok(int(dau.rows[9][1]) >= 1000, 'a number with a grouping separator');
      assert.ok(tp.text.includes(new Intl.NumberFormat('en-US').format(Number(cli('BITCOUNT', `stats:active:${DAYS[9]}`)))));
      await page.screenshot({ path: artifact('tooltip-dau-hover-en.png') });
      // The tooltip is a live region the chart names.
      assert.equal(tp.role, 'status');
      assert.equal(await page.getAttribute(dauSel, 'aria-describedby'), tp.id);
      assert.equal(await page.getAttribute(dauSel, 'tabindex'), '0');

      // Keyboard: focus shows the current point; ArrowRight moves to day 11, ArrowLeft back.
      await page.mouse.move(0, 0);
      await page.focus(dauSel);
      await page.keyboard.press('ArrowRight');
      tp = await tip(page, dauTip);
      assert.equal(tp.row, 10);
      assert.equal(tp.text, expected(t, dau, 10, [0, 1, 2, 3]));
      assert.equal(int(dau.rows[10][1]), Number(cli('BITCOUNT', `stats:active:${DAYS[10]}`)));
      await page.keyboard.press('End');
      tp = await tip(page, dauTip);
      assert.equal(tp.row, DAYS.length - 1);
      assert.equal(int(dau.rows[DAYS.length - 1][1]), Number(cli('BITCOUNT', `stats:active:${LAST}`)));
      await page.keyboard.press('ArrowLeft');
      assert.equal((await tip(page, dauTip)).row, DAYS.length - 2);
      await page.keyboard.press('Escape');
      assert.equal((await tip(page, dauTip)).hidden, true);
      await page.keyboard.press('ArrowRight');
      tp = await tip(page, dauTip);
      assert.equal(tp.hidden, false);
      assert.equal(tp.row, DAYS.length - 1);

      // Streaks (last 7 days): the last bar is the users active on all 7 days =
      // BITCOUNT of BITOP AND of the 7 keys.
      const stSel = '[data-testid=eng-streak-canvas]';
      const st = await table(page, 'streak');
      const spts = await points(page, stSel);
      assert.equal(spts.length, 7);
      tp = await hover(page, stSel, '[data-testid=eng-streak-tip]', spts[6]);
      assert.equal(tp.text, expected(t, st, 6, [0, 1]));
      cli('BITOP', 'AND', 'tmp:all7', ...DAYS.slice(-7).map((d) => `stats:active:${d}`));
      assert.equal(int(st.rows[6][1]), Number(cli('BITCOUNT', 'tmp:all7')));
      assert.ok(tp.text.startsWith('streak (days): 7 · users: '), tp.text);
      await page.screenshot({ path: artifact('tooltip-streak-hover-en.png') });

      // Retention: the first cohort's +1 cell, by hover; ArrowDown moves to the next cohort.
      const reSel = '[data-testid=eng-retention-canvas]';
      const reTip = '[data-testid=eng-retention-tip]';
      const re = await table(page, 'retention');
      const rpts = await points(page, reSel);
      const first = rpts.findIndex((p) => p.row === 0 && p.col === 0);
      tp = await hover(page, reSel, reTip, rpts[first]);
      assert.equal([tp.row, tp.col].join(), '0,0');
      assert.ok(tp.text.startsWith(expected(t, re, 0, [0, 1, 2])), `${tp.text} vs ${expected(t, re, 0, [0, 1, 2])}`);
      // The cohort of day D (the first cohort: day 8) is its actives absent the 7 days before;
      // back on D+1.
      const lookback = 7;
      const d0 = lookback; // index of the first cohort day in DAYS
      assert.equal(re.rows[0][0], `${DAYS[d0].slice(0, 4)}-${DAYS[d0].slice(4, 6)}-${DAYS[d0].slice(6)}`);
      cli('BITOP', 'OR', 'tmp:before', ...DAYS.slice(d0 - lookback, d0).map((d) => `stats:active:${d}`));
      cli('BITOP', 'NOT', 'tmp:notbefore', 'tmp:before');
      cli('BITOP', 'AND', 'tmp:cohort', `stats:active:${DAYS[d0]}`, 'tmp:notbefore');
      cli('BITOP', 'AND', 'tmp:back1', 'tmp:cohort', `stats:active:${DAYS[d0 + 1]}`);
      assert.equal(int(re.rows[0][1]), Number(cli('BITCOUNT', 'tmp:cohort')));
      assert.equal(int(re.rows[0][2]), Number(cli('BITCOUNT', 'tmp:back1')));
      await page.screenshot({ path: artifact('tooltip-retention-hover-en.png') });
      await page.focus(reSel);
      await page.keyboard.press('ArrowDown');
      tp = await tip(page, reTip);
      assert.equal([tp.row, tp.col].join(), '1,0');
      assert.ok(tp.text.startsWith(expected(t, re, 1, [0, 1, 2])), tp.text);
      await page.keyboard.press('ArrowRight');
      tp = await tip(page, reTip);
      assert.equal([tp.row, tp.col].join(), '1,1');
      assert.ok(tp.text.startsWith(expected(t, re, 1, [0, 1, 3])), tp.text);

      // Levels: every bar's tooltip is its table row.
      const enSel = '[data-testid=eng-enum-canvas]';
      const en = await table(page, 'enum');
      const epts = await points(page, enSel);
      assert.equal(epts.length, en.rows.length);
      tp = await hover(page, enSel, '[data-testid=eng-enum-tip]', epts[2]);
      assert.equal(tp.text, expected(t, en, 2, [0, 1]));

      // The nearby map: the nearest shop's dot gives its rank, distance and name, as
      // redis-cli GEOSEARCH … WITHDIST has them.
      const mapSel = '[data-testid=nearby-map]';
      const mpts = await points(page, mapSel);
      const want = cli('GEOSEARCH', 'shop:geo:food', 'FROMLONLAT', String(SHANGHAI[0]), String(SHANGHAI[1]),
        'BYRADIUS', '3', 'km', 'ASC', 'WITHDIST').split('\n');
      assert.equal(mpts.length, want.length / 2);
      const p0 = mpts.find((p) => p.row === 0);
      await page.$eval(mapSel, (m) => m.scrollIntoView({ block: 'center' }));
      tp = await hover(page, mapSel, '[data-testid=nearby-tip]', p0);
      assert.equal(tp.text, `1. ${Number(want[1]).toFixed(4)} km · ${want[0]}`);
      await page.screenshot({ path: artifact('tooltip-map-hover-en.png') });
      await page.focus(mapSel);
      await page.keyboard.press('Home');
      await page.keyboard.press('ArrowRight');
      tp = await tip(page, '[data-testid=nearby-tip]');
      assert.equal(tp.text, `2. ${Number(want[3]).toFixed(4)} km · ${want[2]}`);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  for (const dpr of [1, 2]) {
    test(`zh, dark, 390 px, dpr ${dpr}: zh words and numbers, inside the viewport, no sideways scroll`, async () => {
      const t = labelsFor('zh');
      const { context, page, errors } = await open(live.browser, live.server.url, { width: 390, dpr, theme: 'dark', lang: 'zh' });
      try {
        const dauSel = '[data-testid=eng-dau-canvas]';
        const dauTip = '[data-testid=eng-dau-tip]';
        await page.$eval(dauSel, (c) => c.scrollIntoView({ block: 'center' }));
        const dau = await table(page, 'dau');
        const pts = await points(page, dauSel);
        let tp = await hover(page, dauSel, dauTip, pts[4]);
        assert.equal(tp.text, expected(t, dau, 4, [0, 1, 2, 3]));
        assert.ok(tp.text.startsWith('日期：2024-06-05 · 日活：'), tp.text);
        const bc = Number(cli('BITCOUNT', `stats:active:${DAYS[4]}`));
        assert.equal(int(dau.rows[4][1]), bc);
        assert.ok(tp.text.includes(`日活：${new Intl.NumberFormat('zh-CN').format(bc)}`), tp.text);
        // The last point, at the right edge: the tooltip stays inside the viewport.
        for (const p of [pts[pts.length - 1], pts[0]]) {
          tp = await hover(page, dauSel, dauTip, p);
          assert.ok(tp.left >= 0 && tp.right <= 390, `tooltip spans ${tp.left}..${tp.right}`);
        }
        await page.screenshot({ path: artifact(`tooltip-390-dark-zh-dpr${dpr}.png`) });
        assert.ok(await page.evaluate(() => document.scrollingElement.scrollWidth <= innerWidth), 'no sideways scroll');
        // Keyboard on the streak chart.
        const stSel = '[data-testid=eng-streak-canvas]';
        const st = await table(page, 'streak');
        await page.mouse.move(0, 0);
        await page.focus(stSel);
        await page.keyboard.press('Home');
        await page.keyboard.press('ArrowRight');
        tp = await tip(page, '[data-testid=eng-streak-tip]');
        assert.equal(tp.row, 1);
        assert.equal(tp.text, expected(t, st, 1, [0, 1]));
        assert.ok(tp.left >= 0 && tp.right <= 390, `tooltip spans ${tp.left}..${tp.right}`);
        await page.screenshot({ path: artifact(`tooltip-390-dark-zh-streak-dpr${dpr}.png`) });
        assert.ok(await page.evaluate(() => document.scrollingElement.scrollWidth <= innerWidth), 'no sideways scroll with a tooltip');
        // Chart captions are drawn whole (wrapped, never cut with "…"): the canvas' pixels
        // cannot be read as text, so check the chart functions directly at this width.
        const cut = await page.evaluate(async () => {
          const m = await import('/pkg/bitlens_charts.js');
          const out = [];
          for (const w of [390, 1400]) {
            const style = { width: w * 2, height: 600, scale: 2 };
            const c = m.streakChart([1, 2, 3], 'Current streaks as of 2024-06-14 (last 30 days) among the users who signed in this month', style);
            out.push(/…/.test(c.svg));
          }
          return out;
        });
        assert.deepEqual(cut, [false, false]);
        assert.deepEqual(errors, []);
      } finally {
        await context.close();
      }
    });
  }
});
