// End to end: the panel on phones, HiDPI screens, in the dark and in Chinese (issue 18, points
// 6 and 7). `bitlens serve` on its built-in demo data (no Redis), opened at 390 px and 1400 px
// wide, devicePixelRatio 1 and 2, light and dark theme, English and Chinese: 16 full-page
// screenshots in test-artifacts/responsive-<width>-dpr<n>-<theme>-<lang>.png. For each:
// - the page does not scroll sideways (scrollWidth <= innerWidth);
// - every chart canvas is backed at its CSS size × devicePixelRatio (no 900×380 bitmap scaled
//   to fit), and is at least 300 CSS px wide at 390 px (not cut off);
// - the charts' background pixel follows the theme (dark in dark, light in light), and so does
//   the nearby map's SVG background;
// - the axis titles and legend names the wasm chart functions drew (exposed by engagement.js
//   as data-axis-x / data-axis-y / data-legend) are the label table's of that language
//   (www/i18n.js), and differ between en and zh;
// - a chart note's numbers are the cards' numbers in the page's locale (149,018, not 149018):
//   the DAU note holds the active-users card's day count, the streak note the engagement
//   card's "active on each of the last 7 days";
// And at 390 px, with the demo snapshot opened as a file (the key browser lists its keys):
// no sideways scroll and key names are not wrapped every few characters.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { artifact, serveAndBrowse, tempDir } from './harness.mjs';
import { labelsFor } from '../../www/i18n.js';

const WIDTHS = [390, 1400];
const DPRS = [1, 2];
const THEMES = ['light', 'dark'];
const LANGS = ['en', 'zh'];

/** What the page shows, measured in the page. */
function measure(page) {
  return page.evaluate(() => {
    const q = (id) => document.querySelector(`[data-testid=${id}]`);
    const lum = ([r, g, b]) => 0.299 * r + 0.587 * g + 0.114 * b;
    const canvases = [...document.querySelectorAll('canvas')].filter((c) => !c.hidden && c.offsetParent !== null).map((c) => {
      const rect = c.getBoundingClientRect();
      const px = c.getContext('2d').getImageData(3, 3, 1, 1).data;
      return {
        id: c.dataset.testid,
        width: c.width,
        height: c.height,
        cssWidth: rect.width,
        cssHeight: rect.height,
        right: rect.right,
        background: lum(px),
        axisX: c.dataset.axisX,
        axisY: c.dataset.axisY,
        legend: c.dataset.legend ? JSON.parse(c.dataset.legend) : null,
      };
    });
    const map = q('nearby-map');
    let mapBackground = null;
    if (map) {
      const svg = decodeURIComponent(map.src.split(',')[1]);
      const m = /<rect[^>]*fill="#([0-9A-Fa-f]{6})"/.exec(svg);
      if (m) mapBackground = lum([0, 2, 4].map((i) => parseInt(m[1].slice(i, i + 2), 16)));
    }
    return {
      scrollWidth: document.scrollingElement.scrollWidth,
      innerWidth: window.innerWidth,
      dpr: window.devicePixelRatio,
      canvases,
      mapBackground,
      mapWidth: map ? map.getBoundingClientRect().width : null,
      activeDay: Number(q('active-day').dataset.value),
      streak7: Number(q('engagement-streak7').dataset.value),
      dauNote: q('eng-dau-note').textContent,
      streakNote: q('eng-streak-note').textContent,
    };
  });
}

describe('Panel at 390 / 1400 px, dpr 1 / 2, light / dark, en / zh', { timeout: 900000 }, () => {
  const demo = serveAndBrowse([]);

  for (const width of WIDTHS) {
    for (const dpr of DPRS) {
      for (const theme of THEMES) {
        for (const lang of LANGS) {
          const name = `responsive-${width}-dpr${dpr}-${theme}-${lang}`;
          test(name, async () => {
            const context = await demo.browser.newContext({ viewport: { width, height: 900 }, deviceScaleFactor: dpr, colorScheme: theme });
            const page = await context.newPage();
            const errors = [];
            page.on('pageerror', (e) => errors.push(e.message));
            try {
              await page.goto(`${demo.server.url}/?theme=${theme}&lang=${lang}`);
              await page.waitForSelector('[data-testid=panel][data-state=ready]', { timeout: 300000 });
              await page.waitForSelector('[data-testid=engagement-section][data-state=ready]', { timeout: 300000 });
              await page.waitForSelector('[data-testid=nearby-map]', { timeout: 60000 });
              await page.screenshot({ path: artifact(`${name}.png`), fullPage: true });
              const m = await measure(page);
              assert.deepEqual(errors, []);
              assert.equal(m.dpr, dpr);

              // No sideways scroll.
              assert.ok(m.scrollWidth <= m.innerWidth, `scrollWidth ${m.scrollWidth} > innerWidth ${m.innerWidth}`);

              // Four engagement charts, each backed at CSS size × dpr, inside the viewport.
              const charts = m.canvases.filter((c) => /^eng-/.test(c.id));
              assert.equal(charts.length, 4, JSON.stringify(m.canvases.map((c) => c.id)));
              for (const c of m.canvases) {
                assert.ok(Math.abs(c.width - c.cssWidth * dpr) <= 1, `${c.id}: backing width ${c.width} for ${c.cssWidth} CSS px at dpr ${dpr}`);
                assert.ok(Math.abs(c.height - c.cssHeight * dpr) <= 1, `${c.id}: backing height ${c.height} for ${c.cssHeight} CSS px at dpr ${dpr}`);
                assert.ok(c.right <= m.innerWidth, `${c.id} is cut off (right edge ${c.right})`);
                if (width === 390) assert.ok(c.cssWidth >= 300 && c.cssWidth <= 390, `${c.id}: ${c.cssWidth} CSS px wide`);
                // Background pixel follows the theme.
                if (theme === 'dark') assert.ok(c.background < 80, `${c.id}: background luminance ${c.background} in the dark theme`);
                else assert.ok(c.background > 200, `${c.id}: background luminance ${c.background} in the light theme`);
              }
              assert.notEqual(m.mapBackground, null, 'the nearby map has a background rect');
              if (theme === 'dark') assert.ok(m.mapBackground < 80, `map background ${m.mapBackground}`);
              else assert.ok(m.mapBackground > 200, `map background ${m.mapBackground}`);
              assert.ok(m.mapWidth <= m.innerWidth);

              // Axis titles and legends are the label table's of the page's language.
              const w = labelsFor(lang).chartWords;
              const other = labelsFor(lang === 'zh' ? 'en' : 'zh').chartWords;
              const byId = Object.fromEntries(charts.map((c) => [c.id, c]));
              assert.deepEqual(
                [byId['eng-dau-canvas'].axisX, byId['eng-dau-canvas'].axisY, byId['eng-dau-canvas'].legend],
                [w.day, w.users, [w.dau, w.wau, w.mau]],
              );
              assert.notEqual(w.users, other.users);
              assert.deepEqual([byId['eng-streak-canvas'].axisX, byId['eng-streak-canvas'].axisY], [w.streakDays, w.users]);
              assert.deepEqual([byId['eng-retention-canvas'].axisX, byId['eng-retention-canvas'].axisY], [w.daysAfter, w.cohort]);
              assert.deepEqual([byId['eng-enum-canvas'].axisX, byId['eng-enum-canvas'].axisY], [w.value, w.users]);

              // Chart notes print the cards' numbers in the locale.
              const locale = labelsFor(lang).locale;
              const fmt = (n) => new Intl.NumberFormat(locale).format(n);
              assert.ok(m.activeDay >= 1000 && m.streak7 >= 1000, `demo counts ${m.activeDay}, ${m.streak7}`);
              assert.ok(m.dauNote.includes(fmt(m.activeDay)), `DAU note "${m.dauNote}" lacks ${fmt(m.activeDay)}`);
              assert.ok(!m.dauNote.includes(String(m.activeDay)), `DAU note "${m.dauNote}" has the raw ${m.activeDay}`);
              assert.ok(m.streakNote.includes(fmt(m.streak7)), `streak note "${m.streakNote}" lacks ${fmt(m.streak7)}`);
            } finally {
              await context.close();
            }
          });
        }
      }
    }
  }

  test('key browser at 390 px: names readable, no sideways scroll', async () => {
    // The demo snapshot, downloaded from the server and opened as a file.
    const res = await fetch(`${demo.server.url}/api/snapshot`);
    assert.equal(res.status, 200);
    const file = path.join(tempDir(), 'demo.rdb');
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const context = await demo.browser.newContext({ viewport: { width: 390, height: 900 }, deviceScaleFactor: 2 });
    const page = await context.newPage();
    try {
      await page.goto(`${demo.server.url}/?cards=keys`);
      await page.setInputFiles('[data-testid=file-input]', file);
      await page.waitForSelector('[data-testid=panel][data-state=ready][data-offline=ready]', { timeout: 120000 });
      await page.waitForSelector('.kb-key', { timeout: 60000 });
      await page.screenshot({ path: artifact('responsive-390-keys.png'), fullPage: true });
      const m = await page.evaluate(() => ({
        scrollWidth: document.scrollingElement.scrollWidth,
        keys: [...document.querySelectorAll('.kb-key')].slice(0, 30).map((b) => {
          const lh = parseFloat(getComputedStyle(b).lineHeight) || 17;
          return { key: b.textContent, lines: Math.max(1, Math.round(b.getBoundingClientRect().height / lh)) };
        }),
      }));
      assert.ok(m.scrollWidth <= 390, `scrollWidth ${m.scrollWidth}`);
      assert.ok(m.keys.length > 0);
      // At least 10 characters per line (it was about 3).
      for (const k of m.keys) assert.ok(k.lines === 1 || k.key.length / k.lines >= 10, `key ${k.key} wraps onto ${k.lines} lines`);
      assert.ok(m.keys.some((k) => k.key.length > 14), 'some key names are long enough to have wrapped');
    } finally {
      await context.close();
    }
  });

  test('charts redraw at the new size when the window is resized', async () => {
    const context = await demo.browser.newContext({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 2 });
    const page = await context.newPage();
    try {
      await page.goto(`${demo.server.url}/?lang=en`);
      await page.waitForSelector('[data-testid=engagement-section][data-state=ready]', { timeout: 300000 });
      const wide = await page.$eval('[data-testid=eng-dau-canvas]', (c) => c.width);
      await page.setViewportSize({ width: 390, height: 900 });
      await page.waitForFunction(() => {
        const c = document.querySelector('[data-testid=eng-dau-canvas]');
        return Math.abs(c.width - c.getBoundingClientRect().width * 2) <= 1;
      }, null, { timeout: 10000 });
      const narrow = await page.$eval('[data-testid=eng-dau-canvas]', (c) => c.width);
      assert.ok(narrow < wide, `${narrow} < ${wide}`);
      assert.ok(await page.evaluate(() => document.scrollingElement.scrollWidth <= innerWidth));
    } finally {
      await context.close();
    }
  });
});
