// End to end: the panel's Engagement section (four charts drawn by the page's chart module on
// canvases from the worker engine's numbers; the page fetches no engine module).
// 1. `bitlens serve` on its built-in demo data (no Redis): the DAU, streak and retention canvases
//    are drawn (counted non-background pixels), the enum chart says its key is missing, and
//    every number the section shows equals what `bitlens query` prints for the same BITLENS.*
//    command on the same snapshot (the panel's own /api/snapshot request, downloaded again).
// 2. Live data: a real redis-server with daily bitmaps and a BITFIELD u4 level key written by
//    redis-cli, `bitlens serve --redis`: all four canvases drawn, numbers equal `bitlens query`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import {
  BITLENS, artifact, rng, serveAndBrowse, serveRedisAndBrowse, tempDir,
} from './harness.mjs';
import { dailyActivityCommands, levelCommand } from './activity.mjs';

const FIGURES = ['dau', 'streak', 'retention', 'enum'];

/** Opens the panel, waits for the section; returns the page and the snapshot URL it fetched. */
async function openPanel(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  let snapshotUrl = null;
  page.on('request', (r) => {
    if (r.url().includes('/api/snapshot')) snapshotUrl = r.url();
  });
  await page.goto(`${url}/`);
  await page.waitForSelector('[data-testid=engagement-section][data-state=ready]', { timeout: 300000 });
  assert.deepEqual(errors, []);
  assert.ok(snapshotUrl, 'the panel fetched a snapshot');
  // The page loads the chart module only; the engine module is the worker's (its fetches are
  // not the page's resources).
  const wasm = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname).filter((p) => p.endsWith('.wasm')));
  assert.deepEqual(wasm.map((p) => p.split('/').pop()), ['bitlens_charts_bg.wasm'], `wasm the page fetched: ${wasm}`);
  return { page, snapshotUrl };
}

/** Per figure: state, note, results and the count of canvas pixels that are not white. */
function readFigures(page) {
  return page.evaluate((ids) => {
    const out = {};
    for (const id of ids) {
      const fig = document.querySelector(`[data-testid=eng-${id}]`);
      const canvas = fig.querySelector('canvas');
      const { width, height } = canvas;
      const data = canvas.getContext('2d').getImageData(0, 0, width, height).data;
      let ink = 0;
      const colours = new Set();
      for (let i = 0; i < data.length; i += 4) {
        const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
        if (a > 0 && !(r > 245 && g > 245 && b > 245)) {
          ink++;
          colours.add((r << 16) | (g << 8) | b);
        }
      }
      out[id] = {
        state: fig.dataset.state,
        note: fig.querySelector('.eng-note').textContent,
        results: JSON.parse(fig.dataset.results || '[]'),
        hidden: canvas.hidden,
        ink,
        colours: colours.size,
        pixels: width * height,
        png: canvas.toDataURL('image/png').length,
      };
    }
    return out;
  }, FIGURES);
}

/** What `bitlens query --rdb file ARGV` prints. */
function query(file, argv) {
  return execFileSync(BITLENS, ['query', '--rdb', file, ...argv], { encoding: 'utf8', maxBuffer: 64 << 20 });
}

/** redis-cli (non-tty) text of a reply given as numbers / nested arrays / null. */
function cliText(value) {
  const flat = [];
  const walk = (v) => (Array.isArray(v) ? v.forEach(walk) : flat.push(v === null ? '' : String(v)));
  walk(value);
  return flat.join('\n') + '\n';
}

async function download(url) {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  const file = path.join(tempDir(), 'snapshot.rdb');
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return file;
}

function assertDrawn(figs, id) {
  const f = figs[id];
  assert.equal(f.state, 'drawn', `${id}: ${f.note}`);
  assert.equal(f.hidden, false);
  // Axes, labels and data: well over 2 % of the canvas is ink, in several colours.
  assert.ok(f.ink > f.pixels * 0.02, `${id} canvas is blank (${f.ink} of ${f.pixels} pixels)`);
  assert.ok(f.colours > 3, `${id} canvas has ${f.colours} colours`);
  assert.ok(f.results.length > 0);
}

function assertNumbersMatchCli(figs, file) {
  let n = 0;
  for (const id of FIGURES) {
    for (const { argv, value } of figs[id].results) {
      assert.equal(cliText(value), query(file, argv), `${id}: ${argv.slice(0, 3).join(' ')} …`);
      n++;
    }
  }
  return n;
}

describe('Engagement section on the built-in demo data', { timeout: 900000 }, () => {
  const demo = serveAndBrowse([]);

  test('four charts drawn, numbers equal bitlens query', async () => {
    const { page, snapshotUrl } = await openPanel(demo.browser, demo.server.url);
    const u = new URL(snapshotUrl);
    assert.ok(u.searchParams.getAll('match').includes('stats:active:*'), snapshotUrl);
    assert.ok(u.searchParams.getAll('match').includes('stats:level:*'), snapshotUrl);
    const figs = await readFigures(page);
    // The demo has stats:level:* for its last 7 days, so the level distribution draws too.
    for (const id of ['dau', 'streak', 'retention', 'enum']) assertDrawn(figs, id);
    // The demo has 30 days: DAU over 30 keys, default 7-day streak window, 14 cohorts.
    assert.equal(figs.dau.results[0].argv.length, 1 + 30);
    assert.equal(figs.streak.results[0].value.length, 7);
    assert.equal(figs.retention.results[0].value.length, 14);
    await page.locator('[data-testid=engagement-section]').screenshot({ path: artifact('engagement.png') });
    await page.screenshot({ path: artifact('engagement-page.png'), fullPage: true });

    const file = await download(snapshotUrl);
    const checked = assertNumbersMatchCli(figs, file);
    assert.equal(checked, 3 + 1 + 1 + 1);

    // A 30-day streak window redraws the histogram with 30 buckets, still equal to the CLI.
    await page.selectOption('[data-testid=eng-streak-days]', '30');
    await page.waitForFunction(() => JSON.parse(document.querySelector('[data-testid=eng-streak]').dataset.results)[0].value.length === 30);
    const again = await readFigures(page);
    assertDrawn(again, 'streak');
    const { argv, value } = again.streak.results[0];
    assert.equal(cliText(value), query(file, argv));
    await page.close();
  });
});

describe('Engagement section on live Redis data', { timeout: 900000 }, () => {
  const DAYS = [];
  for (let d = 1; d <= 21; d++) DAYS.push(`202406${String(d).padStart(2, '0')}`);
  const LAST = DAYS[DAYS.length - 1];
  const live = serveRedisAndBrowse(() => {
    const rand = rng(7);
    const users = 40000;
    const cmds = dailyActivityCommands(DAYS, rand, { users, loyal: 3000, loyalP: 0.8, base: 0.04, weekday: 0.02 });
    // Levels 0..15 as BITFIELD u4 #uid, for some users, written with a real client.
    cmds.push(levelCommand(`stats:level:${LAST}`, rand, { users, step: 7 }));
    return cmds;
  });

  test('four charts drawn and numbers equal bitlens query', async () => {
    const { page, snapshotUrl } = await openPanel(live.browser, live.server.url);
    const figs = await readFigures(page);
    for (const id of FIGURES) assertDrawn(figs, id);
    assert.equal(figs.dau.results[0].argv.length, 1 + DAYS.length);
    assert.deepEqual(figs.enum.results[0].argv, ['BITLENS.ENUMDIST', `stats:level:${LAST}`, 'u4', 'AMONG', `stats:active:${LAST}`]);
    assert.ok(figs.enum.results[0].value.filter((c) => c > 0).length > 3);
    await page.locator('[data-testid=engagement-section]').screenshot({ path: artifact('engagement-live.png') });
    const file = await download(snapshotUrl);
    assert.equal(assertNumbersMatchCli(figs, file), 3 + 1 + 1 + 1);
    await page.close();
  });
});
