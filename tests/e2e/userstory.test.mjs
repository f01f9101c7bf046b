// One user's story and the sign-ins card (issue 19 §1–2, issue 20 §3 "seen before?"), end to
// end: a real Redis 7.4.1 with the real RedisBloom 2.8.2 module gets daily bitmaps (SETBIT),
// monthly sign-in bitmaps whose streaks cross April → May, Bloom and Cuckoo filters (BF.ADD,
// CF.ADD) and one non-filter key matching the filter pattern; it SAVEs, and the panel
// (index.html from a static server) opens that dump.rdb. Every number the user card and the
// sign-ins card show is compared with redis-cli on the same server: GETBIT per day, the
// streaks and counts recomputed from redis-cli GETBIT / BITCOUNT replies, GETBIT per crowd
// tag, BITFIELD_RO for the level, BF.EXISTS and CF.EXISTS per filter; the string id's bit offset with Java's String.hashCode written out
// here independently of the core. In en and zh, and at 390 px with no horizontal scroll.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  SERVERS_DIR, artifact, freePort, launchBrowser, openFile, openOfflinePanel, redisCli, redisPipe, start,
  startBitlens, staticPanel, tempDir,
} from './harness.mjs';

const SERVERS = SERVERS_DIR;
const MANIFEST = path.join(SERVERS, 'servers.json');

/** Starts Redis 7.4.1 with RedisBloom (from servers.json: `npm run setup` installs both). */
async function startBloomRedis() {
  assert.ok(existsSync(MANIFEST), `${MANIFEST} is missing: run npm run setup`);
  const m = JSON.parse(readFileSync(MANIFEST, 'utf8'));
  const bloom = m.modules && m.modules.redisbloom;
  assert.ok(bloom && existsSync(bloom.path), 'redisbloom.so is missing: run npm run setup');
  const srv = m.servers[bloom.server];
  const port = await freePort();
  const dir = tempDir('bitlens-e2e-bloom-');
  const proc = start(srv.server, [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no',
    '--daemonize', 'no', '--loadmodule', bloom.path,
  ], { env: { ...process.env, ...srv.env } });
  await proc.waitFor(/Ready to accept connections/, 30000);
  return { port, dir, proc };
}

/** Java's String.hashCode over UTF-16 code units, then Math.abs (null for Integer.MIN_VALUE). */
function javaOffset(id) {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (Math.imul(h, 31) + id.charCodeAt(i)) | 0;
  return h === -2147483648 ? null : Math.abs(h);
}

const DATES = [];
for (let d = 24; d <= 30; d++) DATES.push(`202404${d}`);
for (let d = 1; d <= 6; d++) DATES.push(`2024050${d}`);
const DATE = '20240506';
const ALICE = 'alice@example.com';
const USERS = ['1234', ALICE, '77'];
const SEEN = '[bc]f:*';

/** Deterministic data: who is active when, who signed in when, which filter holds whom. */
function writeData(port) {
  const cmds = [];
  const offsets = { 1234: 1234, [ALICE]: javaOffset(ALICE), 77: 77 };
  // Active: 1234 on every day from 20240501 (a run of 6 ending at DATE) and two April days;
  // alice every other day; 77 never. Plus a crowd of others.
  DATES.forEach((d, i) => {
    const k = `stats:active:${d}`;
    if (d >= '20240501' || i === 0 || i === 3) cmds.push(['SETBIT', k, offsets[1234], 1]);
    if (i % 2 === 0) cmds.push(['SETBIT', k, offsets[ALICE], 1]);
    for (let u = 0; u < 50; u++) cmds.push(['SETBIT', k, 2000 + ((u * 37 + i * 11) % 600), 1]);
  });
  // Sign-ins (bit = day − 1): 1234 from April 20 through May 6 (streak 17 across the month);
  // alice on May 2, 3, 5, 6 (streak 2) and April 30; 77 has no key. Others for the card.
  for (let d = 20; d <= 30; d++) cmds.push(['SETBIT', 'sign:1234:202404', d - 1, 1]);
  for (let d = 1; d <= 6; d++) cmds.push(['SETBIT', 'sign:1234:202405', d - 1, 1]);
  cmds.push(['SETBIT', `sign:${ALICE}:202404`, 29, 1]);
  for (const d of [2, 3, 5, 6]) cmds.push(['SETBIT', `sign:${ALICE}:202405`, d - 1, 1]);
  for (let u = 0; u < 40; u++) {
    for (let d = 1; d <= 31; d++) if ((u * 7 + d * 3) % 5 < 2 + (u % 2)) cmds.push(['SETBIT', `sign:${500 + u}:202405`, d - 1, 1]);
  }
  // Filters: a Bloom filter with 1234 and alice among 300 items, a scaling one without them,
  // a Cuckoo filter with 1234, and a plain string matching the pattern (skipped).
  cmds.push(['BF.RESERVE', 'bf:campaign', '0.01', '500']);
  cmds.push(['BF.ADD', 'bf:campaign', '1234'], ['BF.ADD', 'bf:campaign', ALICE]);
  for (let i = 0; i < 300; i++) cmds.push(['BF.ADD', 'bf:campaign', `member-${i}`]);
  cmds.push(['BF.RESERVE', 'bf:newsletter', '0.001', '100', 'EXPANSION', '2']);
  for (let i = 0; i < 250; i++) cmds.push(['BF.ADD', 'bf:newsletter', `reader-${i}`]);
  cmds.push(['CF.RESERVE', 'cf:coupon', '1000']);
  cmds.push(['CF.ADD', 'cf:coupon', '1234'], ['CF.ADD', 'cf:coupon', 'member-3']);
  cmds.push(['SET', 'bf:note', 'not a filter']);
  // Crowd tags and the day's levels (BITFIELD u4 #offset, as the demo writes them).
  cmds.push(['SETBIT', 'tag:vip', offsets[1234], 1], ['SETBIT', 'tag:vip', 5, 1]);
  cmds.push(['SETBIT', 'tag:building:7', offsets[ALICE], 1], ['SETBIT', 'tag:building:7', offsets[1234] + 1, 1]);
  cmds.push(['SETBIT', 'tag:group-buy', 77, 1]);
  cmds.push(['BITFIELD', `stats:level:${DATE}`, 'SET', 'u4', `#${offsets[1234]}`, '9', 'SET', 'u4', '#77', '3']);
  redisPipe(port, cmds);
  return offsets;
}

/** Replies of many commands through one redis-cli (one line each: integers here). */
function cliMany(port, argvs) {
  const input = argvs.map((a) => a.map((x) => (/[\s"]/.test(x) ? JSON.stringify(x) : x)).join(' ')).join('\n') + '\n';
  const lines = redisCli(port, [], input).trim().split('\n');
  assert.equal(lines.length, argvs.length);
  return lines.map((l) => (/^-?\d+$/.test(l) ? Number(l) : l));
}

describe('one user\'s story and the sign-ins card against Redis 7.4.1 + RedisBloom', { timeout: 300000 }, () => {
  let redis;
  let web;
  let browser;
  let offsets;
  let rdb;

  before(async () => {
    redis = await startBloomRedis();
    offsets = writeData(redis.port);
    redisCli(redis.port, ['SAVE']);
    rdb = path.join(redis.dir, 'dump.rdb');
    web = await staticPanel();
    browser = await launchBrowser();
  });

  after(async () => {
    if (browser) await browser.close().catch(() => {});
    if (web) await web.close();
    if (redis) await redis.proc.stop();
  });

  /** A page on the panel with `query`, the server's dump.rdb opened through "Open snapshot…". */
  async function openPanel(query, width = 1280) {
    const opened = await openOfflinePanel(browser, web.url, { query, width });
    await openFile(opened.page, rdb);
    return opened;
  }

  /** Looks `id` up in the user card and waits for its story. */
  async function lookUp(page, id) {
    await page.fill('[data-testid=user-id]', id);
    await page.click('[data-testid=user-lookup]');
    await page.waitForFunction((x) => {
      const b = document.querySelector('[data-testid=user-body]');
      return b && b.dataset.state === 'ready' && b.dataset.user === x;
    }, id, { timeout: 30000 });
  }

  /** Checks every number of the user card for `id` against redis-cli. */
  async function checkUser(page, id) {
    const port = redis.port;
    const offset = offsets[id];
    assert.equal(await page.getAttribute('[data-testid=user-offset]', 'data-offset'), String(offset), `${id}: offset`);
    assert.equal(await page.getAttribute('[data-testid=user-offset]', 'data-rule'), /^\d+$/.test(id) ? 'number' : 'java');
    // Day strip: one cell per daily bitmap, each GETBIT's reply.
    const cells = await page.$$eval('[data-testid=user-strip] li', (lis) => lis.map((li) => [li.dataset.key, Number(li.dataset.value)]));
    assert.deepEqual(cells.map((c) => c[0]), DATES.map((d) => `stats:active:${d}`));
    const bits = cliMany(port, DATES.map((d) => ['GETBIT', `stats:active:${d}`, String(offset)]));
    assert.deepEqual(cells.map((c) => c[1]), bits, `${id}: GETBIT per day`);
    let run = 0;
    for (let i = bits.length - 1; i >= 0 && bits[i] === 1; i--) run += 1;
    assert.equal(Number(await page.getAttribute('[data-testid=user-active-streak]', 'data-value')), run, `${id}: active run`);
    assert.equal(Number(await page.getAttribute('[data-testid=user-active-total]', 'data-value')), bits.reduce((a, b) => a + b, 0));
    // Sign-ins of May: GETBIT per day, the streak across April, longest, days signed.
    const may = `sign:${id}:202405`;
    if (cliMany(port, [['EXISTS', may]])[0] === 0) {
      assert.ok(await page.$('[data-testid=user-no-sign]'), `${id}: no sign-in key said`);
    } else {
      const cal = await page.$$eval('[data-testid=user-calendar] li[data-day]', (lis) => lis.map((li) => Number(li.dataset.value)));
      const mayBits = cliMany(port, Array.from({ length: 31 }, (_, d) => ['GETBIT', may, String(d)]));
      assert.deepEqual(cal, mayBits, `${id}: May calendar`);
      const aprBits = cliMany(port, Array.from({ length: 30 }, (_, d) => ['GETBIT', `sign:${id}:202404`, String(d)]));
      const chain = [...aprBits, ...mayBits.slice(0, 6)];
      let streak = 0;
      for (let i = chain.length - 1; i >= 0 && chain[i] === 1; i--) streak += 1;
      assert.equal(Number(await page.getAttribute('[data-testid=user-sign-streak]', 'data-value')), streak, `${id}: streak across months`);
      let longest = 0;
      let cur = 0;
      for (const b of mayBits) {
        cur = b ? cur + 1 : 0;
        longest = Math.max(longest, cur);
      }
      assert.equal(Number(await page.getAttribute('[data-testid=user-sign-longest]', 'data-value')), longest);
      assert.equal(Number(await page.getAttribute('[data-testid=user-sign-days]', 'data-value')), cliMany(port, [['BITCOUNT', may]])[0]);
    }
    // Crowd tags: GETBIT of the offset in each tag:* key; the day's level: BITFIELD_RO.
    const tags = redisCli(port, ['KEYS', 'tag:*']).trim().split('\n').sort();
    const inTags = await page.$$eval('[data-testid=user-tags] li', (lis) => lis.map((li) => [li.dataset.key, Number(li.dataset.value)]));
    assert.deepEqual(inTags, tags.map((k, i) => [k, cliMany(port, [['GETBIT', k, String(offset)]])[0]]), `${id}: crowd tags`);
    const level = cliMany(port, [['BITFIELD_RO', `stats:level:${DATE}`, 'GET', 'u4', `#${offset}`]])[0];
    if (typeof level === 'number') {
      assert.equal(Number(await page.getAttribute('[data-testid=user-level]', 'data-value')), level, `${id}: level`);
    } else {
      // Past the last u4 field Redis can address (offset × 4 > 2^32 − 1): Redis' own error.
      assert.match(level, /^ERR /);
      assert.ok((await page.textContent('[data-testid=user-level-error]')).endsWith(`(error) ${level}`), `${id}: level error`);
    }
    // Seen before: every Bloom/Cuckoo key matching the pattern, asked with its own command.
    const keys = redisCli(port, ['KEYS', SEEN]).trim().split('\n').sort();
    const types = cliMany(port, keys.map((k) => ['TYPE', k]));
    const want = [];
    keys.forEach((k, i) => {
      const cmd = { 'MBbloom--': 'BF.EXISTS', MBbloomCF: 'CF.EXISTS' }[types[i]];
      if (cmd) want.push([k, cmd, cliMany(port, [[cmd, k, id]])[0]]);
    });
    assert.equal(want.length, 3);
    const seen = await page.$$eval('[data-testid=user-seen] li', (lis) => lis.map((li) => [li.dataset.key, li.dataset.cmd, Number(li.dataset.value)]));
    assert.deepEqual(seen, want, `${id}: seen before`);
    const text = await page.textContent('[data-testid=user-seen]');
    for (const [k, cmd, r] of want) assert.ok(text.includes(`${cmd} ${k} ${id} → (integer) ${r}`), `${cmd} ${k} shown`);
    assert.match(await page.textContent('[data-testid=user-seen-skipped]'), /^1\D/);
    return { seen: want };
  }

  /** Checks the sign-ins card for DATE against redis-cli GETBIT of every May key. */
  async function checkSignins(page) {
    const port = redis.port;
    await page.waitForSelector('[data-testid=signins-body][data-state=ready]');
    const keys = redisCli(port, ['KEYS', 'sign:*:202405']).trim().split('\n').sort();
    const day = Number(DATE.slice(6));
    const bits = keys.map((k) => cliMany(port, Array.from({ length: day }, (_, d) => ['GETBIT', k, String(d)])));
    const perDay = Array.from({ length: day }, (_, d) => bits.filter((b) => b[d] === 1).length);
    assert.equal(Number(await page.getAttribute('[data-testid=signins-day]', 'data-value')), perDay[day - 1]);
    const bars = await page.$$eval('[data-testid=signins-bars] span', (s) => s.map((x) => Number(x.dataset.value)));
    assert.deepEqual(bars, perDay);
    // A bar answers a hover and the keyboard with its day, count and command (tooltip.js).
    const stripArgv = `BITLENS.SIGNINDAYS sign:*:202405 ${day}`;
    const barTip = async () => page.textContent('[data-testid=signins-bars-tip]');
    const pts = await page.$eval('[data-testid=signins-bars]', (b) => {
      b.scrollIntoView({ block: 'center' });
      const r = b.getBoundingClientRect();
      return b.tooltipPoints().map((p) => ({ x: r.left + p.x, y: r.top + p.y + 2 }));
    });
    assert.equal(pts.length, day);
    await page.mouse.move(pts[1].x, pts[1].y);
    await page.waitForSelector('[data-testid=signins-bars-tip]:not([hidden])');
    assert.equal(await barTip(), `${DATE.slice(0, 4)}-${DATE.slice(4, 6)}-02: ${perDay[1]} · ${stripArgv}`);
    await page.mouse.move(0, 0);
    await page.focus('[data-testid=signins-bars]');
    await page.keyboard.press('End');
    assert.equal(await barTip(), `${DATE.slice(0, 4)}-${DATE.slice(4, 6)}-${DATE.slice(6)}: ${perDay[day - 1]} · ${stripArgv}`);
    await page.keyboard.press('Escape');
    const streaks = new Map();
    const daysHist = new Map();
    for (const b of bits) {
      let s = 0;
      for (let i = day - 1; i >= 0 && b[i] === 1; i--) s += 1;
      if (s) streaks.set(s, (streaks.get(s) || 0) + 1);
      const n = b.reduce((a, x) => a + x, 0);
      if (n) daysHist.set(n, (daysHist.get(n) || 0) + 1);
    }
    const rows = await page.$$eval('[data-testid=signins-streaks] tbody tr', (trs) => trs.map((tr) => [Number(tr.dataset.streak), Number(tr.dataset.value)]));
    assert.deepEqual(rows, [...streaks].sort((a, b) => a[0] - b[0]));
    // Carried across April → May: the run ending on DATE over April's 30 bits then May's.
    const carried = keys.map((k, i) => {
      const uid = k.slice('sign:'.length, -':202405'.length);
      const apr = cliMany(port, Array.from({ length: 30 }, (_, d) => ['GETBIT', `sign:${uid}:202404`, String(d)]));
      const chain = [...apr, ...bits[i]];
      let s = 0;
      for (let j = chain.length - 1; j >= 0 && chain[j] === 1; j--) s += 1;
      return { uid, key: k, s };
    }).filter((x) => x.s > 0);
    const carriedHist = new Map();
    for (const x of carried) carriedHist.set(x.s, (carriedHist.get(x.s) || 0) + 1);
    const crows = await page.$$eval('[data-testid=signins-carried] tbody tr', (trs) => trs.map((tr) => [Number(tr.dataset.streak), Number(tr.dataset.value)]));
    assert.deepEqual(crows, [...carriedHist].sort((a, b) => a[0] - b[0]), 'streaks carried across months');
    assert.ok(crows.some(([s]) => s > day), 'some streak began in April');
    const top = [...carried].sort((a, b) => b.s - a.s || (a.key < b.key ? -1 : 1)).slice(0, 10).map((x) => [x.uid, x.s]);
    const shown = await page.$$eval('[data-testid=signins-longest] li', (lis) => lis.map((li) => [li.dataset.uid, Number(li.dataset.value)]));
    assert.deepEqual(shown, top, 'longest current streaks');
    assert.deepEqual(shown[0], ['1234', 17]);
    const dh = await page.$$eval('[data-testid=signins-dayshist] tbody tr', (trs) => trs.map((tr) => [Number(tr.dataset.days), Number(tr.dataset.value)]));
    assert.deepEqual(dh, [...daysHist].sort((a, b) => a[0] - b[0]));
  }

  for (const lang of ['en', 'zh']) {
    test(`user card and sign-ins card equal redis-cli (${lang})`, async () => {
      const q = new URLSearchParams({ lang, cards: 'user,signins', user: '1234', 'seen-key': SEEN, date: DATE });
      const { page, errors } = await openPanel(q.toString());
      await page.waitForSelector('[data-testid=user-body][data-state=ready]');
      assert.equal(await page.textContent('[data-testid=card-user] h2'), lang === 'zh' ? '单个用户的故事' : "One user's story");
      const r1234 = await checkUser(page, '1234');
      assert.deepEqual(r1234.seen.map((x) => x[2]), [1, 0, 1], '1234 was added to bf:campaign and cf:coupon');
      assert.equal(await page.getAttribute('[data-testid=user-level]', 'data-value'), '9');
      assert.deepEqual(await page.$$eval('[data-testid=user-tags] li', (lis) => lis.map((li) => li.dataset.value)), ['0', '0', '1']);
      await page.screenshot({ path: artifact(`userstory-${lang}.png`), fullPage: true });
      await lookUp(page, ALICE);
      const ra = await checkUser(page, ALICE);
      assert.equal(ra.seen[0][2], 1, 'alice was added to bf:campaign');
      await lookUp(page, '77');
      await checkUser(page, '77');
      // An offset past Redis' last bit (2^32 − 1): said so, no GETBIT asked (Redis would refuse
      // it: checked here), and the filters are still asked for the id.
      const big = '4294967296';
      assert.match(cliMany(redis.port, [['GETBIT', 'stats:active:20240501', big]])[0], /ERR bit offset is not an integer or out of range/);
      await lookUp(page, big);
      assert.ok(await page.$('[data-testid=user-offset-range]'));
      assert.equal(await page.$('[data-testid=user-strip]'), null);
      const bigSeen = await page.$$eval('[data-testid=user-seen] li', (lis) => lis.map((li) => Number(li.dataset.value)));
      assert.deepEqual(bigSeen, cliMany(redis.port, [['BF.EXISTS', 'bf:campaign', big], ['BF.EXISTS', 'bf:newsletter', big], ['CF.EXISTS', 'cf:coupon', big]]));
      await checkSignins(page);
      if (lang === 'zh') assert.match(await page.textContent('[data-testid=card-signins] h2'), /签到/);
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

  test('bitlens serve --redis: the snapshot fetched for the user cards holds their keys (sign-ins, filters)', async () => {
    const bl = await startBitlens(['--redis', `redis://127.0.0.1:${redis.port}`]);
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      const q = new URLSearchParams({ lang: 'en', cards: 'user,signins', user: ALICE, 'seen-key': SEEN, date: DATE, theme: 'dark' });
      await page.goto(`${bl.url}/?${q}`);
      await page.waitForSelector('[data-testid=panel][data-state=ready]', { timeout: 60000 });
      await page.waitForSelector('[data-testid=user-body][data-state=ready]');
      await checkUser(page, ALICE);
      await checkSignins(page);
      await page.screenshot({ path: artifact('userstory-serve-dark.png'), fullPage: true });
      assert.deepEqual(errors, []);
      await page.close();
    } finally {
      await bl.proc.stop();
    }
  });

  for (const [lang, theme] of [['zh', 'light'], ['en', 'dark'], ['zh', 'dark']]) {
    test(`390 px wide, ${lang}, ${theme}: the user card and the sign-ins card equal redis-cli and fit without horizontal scrolling`, async () => {
      const q = new URLSearchParams({ lang, theme, cards: 'user,signins', user: ALICE, 'seen-key': SEEN, date: DATE });
      const { page, errors } = await openPanel(q.toString(), 390);
      assert.equal(await page.getAttribute('[data-testid=panel]', 'data-theme'), theme);
      await page.waitForSelector('[data-testid=user-body][data-state=ready]');
      await checkUser(page, ALICE);
      await checkSignins(page);
      const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
      assert.ok(scroll <= client, `horizontal scroll at 390 px: scrollWidth ${scroll} > ${client}`);
      await page.screenshot({ path: artifact(`userstory-390-${lang}-${theme}.png`), fullPage: true });
      await page.locator('[data-testid=card-user]').screenshot({ path: artifact(`userstory-390-${lang}-${theme}-user.png`) });
      await page.locator('[data-testid=card-signins]').screenshot({ path: artifact(`userstory-390-${lang}-${theme}-signins.png`) });
      assert.deepEqual(errors, []);
      await page.close();
    });
  }
});
