// The panel's memory view (issue 17 §6), offline: a real redis-server gets keys of every
// collection type in several sizes plus keys with EXPIRE within and beyond a week, SAVEs, and
// its dump.rdb is opened in the panel through "Open snapshot…" (index.html from a plain static
// server, no API). The view must answer "what are my 20 biggest keys, what do they cost, and
// what expires this week":
// - the top 20 keys are the server's 20 biggest by `MEMORY USAGE key SAMPLES 0`, in its order,
//   each within ±10% of it (issue 17's target), with the server's TYPE and OBJECT ENCODING —
//   measured on the server restarted on its own dump.rdb, as the estimate is defined; Redis
//   7.4.1 (bundled jemalloc) and Debian's 7.0.15 (system jemalloc), each priced with the
//   allocator the view infers from the file's used-mem by default (its line says which, as
//   `inspect` does), and the allocator select overrides it;
// - the same figures exactly as `bitlens inspect --json` (one implementation: crates/views/src/report.rs);
// - "expiring within 7 days" counts exactly the keys whose PEXPIRETIME the server reports within
//   7 days of the snapshot's time (LASTSAVE), per 24-hour day, and the CLI's `expiring`
//   section says the same;
// - the prefix treemap's tiles (top level, then zoomed into `big:` by keyboard, and back out)
//   are `inspect --json`'s prefix tree, a name with an ESC byte shown as the core escapes it;
//   the TTL histogram is its `ttl`; the memory ledger's rows are `inspect --ledger --bitfield`'s
//   per pattern, and the key browser's per-key ledger is that of `--match KEY`; the BITFIELD
//   key's price as a Hash is within ±10% of MEMORY USAGE of the same fields HSET on the server;
// - at 390 px nothing scrolls the page sideways (the key's ledger table scrolls in its box).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  BITLENS, SERVERS_DIR, artifact, freePort, launchBrowser, openFile, openOfflinePanel, redisCli, redisPipe,
  rng, start, staticPanel, tempDir,
} from './harness.mjs';

const DAY = 86400000;

/** The installed Redis 7.4.1 (bundled jemalloc: the memory model's default), or null. */
function redis74() {
  const dir = SERVERS_DIR;
  const manifest = path.join(dir, 'servers.json');
  if (!existsSync(manifest)) return null;
  const s = JSON.parse(readFileSync(manifest, 'utf8')).servers['redis-7.4.1'];
  return s && existsSync(s.server) ? s : null;
}

/**
 * Starts `server` ({server, env} of servers.json) as startRedis does the default one, in
 * `dir` (a dump.rdb there is loaded at start).
 */
async function startServer(server, dir = tempDir('bitlens-e2e-redis-')) {
  const port = await freePort();
  const proc = start(server.server, [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no',
    '--daemonize', 'no', '--protected-mode', 'yes',
  ], { env: { ...process.env, ...server.env } });
  await proc.waitFor(/Ready to accept connections/, 30000);
  return { port, dir, proc, server };
}

/**
 * Fills a fresh `server` with the data set, SAVEs, copies dump.rdb to `file`, then restarts it
 * on that file: the memory estimate is of the server that loaded its own snapshot (issue 17:
 * a server that built a big set by SADD may still hold the old table of an unfinished rehash,
 * which a load does not leave). Resolves with the restarted server and what it says of every
 * key: {redis, saved (LASTSAVE at the SAVE, ms), keys: [{key, memory, type, encoding, expireAt}]}.
 */
async function fill(server, file) {
  const writer = await startServer(server);
  let saved;
  try {
    redisPipe(writer.port, dataset());
    redisCli(writer.port, ['SAVE']);
    saved = Number(redisCli(writer.port, ['LASTSAVE']).trim()) * 1000;
    copyFileSync(path.join(writer.dir, 'dump.rdb'), file);
  } finally {
    await writer.proc.stop();
  }
  const redis = await startServer(server, writer.dir);
  const keys = redisCli(redis.port, ['--scan']).trim().split('\n');
  return {
    redis,
    saved,
    keys: keys.map((key) => ({
      key,
      memory: Number(redisCli(redis.port, ['MEMORY', 'USAGE', key, 'SAMPLES', '0']).trim()),
      type: redisCli(redis.port, ['TYPE', key]).trim(),
      encoding: redisCli(redis.port, ['OBJECT', 'ENCODING', key]).trim(),
      expireAt: Number(redisCli(redis.port, ['PEXPIRETIME', key]).trim()),
    })),
  };
}

/** Commands building the data set: big keys of every type, small keys, expiring keys. */
function dataset() {
  const rand = rng(17);
  const word = (n) => Array.from({ length: n }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(rand() * 26)]).join('');
  const cmds = [];
  // 24 big keys, sizes ~1.35× apart so the ranking is clear beyond the ±10% of an estimate.
  const kinds = ['string', 'list', 'hash', 'set', 'zset', 'string-int-set'];
  for (let i = 0; i < 24; i++) {
    const target = Math.round(3000 * 1.35 ** i); // bytes of payload
    const kind = kinds[i % kinds.length];
    const key = `big:${kind}:${String(i).padStart(2, '0')}`;
    if (kind === 'string') cmds.push(['SET', key, word(target)]);
    else if (kind === 'list') {
      const n = Math.max(1, Math.round(target / 24));
      const items = Array.from({ length: n }, () => word(20));
      for (let j = 0; j < items.length; j += 500) cmds.push(['RPUSH', key, ...items.slice(j, j + 500)]);
    } else if (kind === 'hash') {
      const n = Math.max(1, Math.round(target / 40));
      const fv = [];
      for (let j = 0; j < n; j++) fv.push(`f${j}`, word(16));
      for (let j = 0; j < fv.length; j += 1000) cmds.push(['HSET', key, ...fv.slice(j, j + 1000)]);
    } else if (kind === 'set') {
      const n = Math.max(1, Math.round(target / 40));
      const m = Array.from({ length: n }, (_, j) => `m${j}:${word(12)}`);
      for (let j = 0; j < m.length; j += 500) cmds.push(['SADD', key, ...m.slice(j, j + 500)]);
    } else if (kind === 'zset') {
      const n = Math.max(1, Math.round(target / 60));
      const sm = [];
      for (let j = 0; j < n; j++) sm.push(String(j * 1.5), `z${j}:${word(10)}`);
      for (let j = 0; j < sm.length; j += 1000) cmds.push(['ZADD', key, ...sm.slice(j, j + 1000)]);
    } else {
      // Integer ids: an intset while small, a hashtable past set-max-intset-entries.
      const n = Math.max(1, Math.round(target / 8));
      const m = Array.from({ length: n }, (_, j) => String(1000 + j * 7));
      for (let j = 0; j < m.length; j += 1000) cmds.push(['SADD', key, ...m.slice(j, j + 1000)]);
    }
  }
  // Small keys: one pattern of users, a few counters and small hashes.
  for (let i = 0; i < 30; i++) cmds.push(['SET', `user:${1000 + i}`, word(8)]);
  for (let i = 0; i < 5; i++) cmds.push(['SET', `counter:${i}`, String(i * 12345)]);
  for (let i = 0; i < 5; i++) cmds.push(['HSET', `session:${word(6)}`, 'user', String(i), 'ip', '10.0.0.1']);
  // Expiring keys, well away from the day boundaries: within the week and beyond it.
  const expiring = [
    ['exp:1h', 3600], ['exp:5h', 5 * 3600], ['exp:30h', 30 * 3600], ['exp:3d', 3 * 86400 + 1800],
    ['exp:3d-b', 3 * 86400 + 7200], ['exp:6d12h', 6 * 86400 + 12 * 3600],
    ['exp:8d', 8 * 86400], ['exp:30d', 30 * 86400],
  ];
  for (const [key, secs] of expiring) {
    cmds.push(['SET', key, word(100)], ['EXPIRE', key, String(secs)]);
  }
  // A big key that expires this week too (it is in the top 20 and in the expiring section).
  cmds.push(['EXPIRE', 'big:string:18', String(2 * 86400 + 600)]);
  // Ledger keys: daily bitmaps, and BITFIELD u4 levels per user (#i is user i), 60 users
  // (a listpack as a Hash) and 700 (a hash table), with the same fields as Hashes (`hlvl:*`,
  // names as long as the `lvls:*` ones) for the server's MEMORY USAGE.
  for (let d = 1; d <= 3; d++) {
    for (let u = 0; u < 400; u++) if (rand() < 0.3) cmds.push(['SETBIT', `bm:day:${d}`, String(u * 7), '1']);
  }
  for (const [key, users] of [['a', 60], ['b', 700]]) {
    const hash = [];
    for (let u = 0; u < users * 2; u += 2) {
      const level = 1 + Math.floor(rand() * 15);
      cmds.push(['BITFIELD', `lvls:${key}`, 'SET', 'u4', `#${u}`, String(level)]);
      hash.push(String(u), String(level));
    }
    cmds.push(['HSET', `hlvl:${key}`, ...hash]);
  }
  // A name with an ESC sequence: the treemap shows it as the core escapes it, never raw.
  cmds.push(['SET', 'ctl\x1b[31m:a', 'x'.repeat(2000)]);
  // A key with no separator: the treemap's "other keys" tile at the top.
  cmds.push(['SET', 'standalone', word(300)]);
  return cmds;
}

const SERVER74 = redis74();

describe('the panel\'s memory view, offline', { timeout: 300000, skip: SERVER74 ? false : 'Redis 7.4.1 is not installed (scripts/servers.sh)' }, () => {
  const dir = tempDir('bitlens-e2e-memory-');
  const file = path.join(dir, 'dump.rdb');
  const debianFile = path.join(dir, 'debian.rdb');
  let redis;
  let debian;
  let web;
  let browser;
  let page;
  let server; // what Redis 7.4.1 says of its keys
  let debianServer; // what the default redis-server (Debian's 7.0.15, system jemalloc) says
  const pageErrors = [];

  /** Opens `f` through "Open snapshot…" and waits for the memory view. */
  async function open(f) {
    await page.evaluate(() => {
      const m = document.querySelector('[data-testid=memory-section]');
      if (m) m.dataset.state = 'pending';
    });
    await openFile(page, f);
    await page.waitForSelector('[data-testid=memory-section][data-state=ready]', { timeout: 60000 });
  }

  before(async () => {
    server = await fill(SERVER74, file);
    redis = server.redis;
    debianServer = await fill({ server: 'redis-server', env: {} }, debianFile);
    debian = debianServer.redis;
    web = await staticPanel();
    browser = await launchBrowser();
    ({ page } = await openOfflinePanel(browser, web.url, { errors: pageErrors }));
    await open(file);
  });

  after(async () => {
    if (browser) await browser.close().catch(() => {});
    if (web) await web.close();
    if (redis) await redis.proc.stop();
    if (debian) await debian.proc.stop();
  });

  const topRows = () => page.$$eval('[data-testid=mem-top] tbody tr', (trs) => trs.map((tr) => ({
    key: tr.dataset.key,
    memory: Number(tr.dataset.memory),
    cells: [...tr.children].map((td) => td.textContent),
  })));

  /** The panel's top 20 are `srv`'s 20 biggest by MEMORY USAGE, in its order, within ±10%. */
  async function assertTop(srv) {
    const rows = await topRows();
    assert.equal(rows.length, 20);
    const byServer = [...srv.keys].sort((a, b) => b.memory - a.memory || (a.key < b.key ? -1 : 1));
    assert.deepEqual(rows.map((r) => r.key), byServer.slice(0, 20).map((k) => k.key));
    let worst = 0;
    for (const r of rows) {
      const s = srv.keys.find((k) => k.key === r.key);
      const off = Math.abs(r.memory - s.memory) / s.memory;
      assert.ok(off <= 0.1, `${r.key}: panel ${r.memory} vs MEMORY USAGE ${s.memory} (${(100 * off).toFixed(1)}%)`);
      worst = Math.max(worst, off);
      // Columns: #, db, key, type, encoding, memory, share, length, TTL.
      assert.equal(r.cells[3], s.type, r.key);
      assert.equal(r.cells[4], s.encoding, r.key);
      // The page's locale (en-US) groups the digits.
      assert.equal(r.cells[5], r.memory.toLocaleString('en-US'), r.key);
    }
    return `top 20 within ${(100 * worst).toFixed(2)}% of MEMORY USAGE`;
  }

  test('the 20 biggest keys are Redis 7.4.1\'s, in its order, within ±10% of MEMORY USAGE', async (t) => {
    t.diagnostic(`Redis 7.4.1: ${await assertTop(server)}`);
    await page.locator('[data-testid=memory-section]').screenshot({ path: artifact('memory-view.png') });
  });

  test('the same figures as `bitlens inspect --json` (top keys, types, patterns, expiring)', async () => {
    assert.ok(existsSync(BITLENS), `${BITLENS} is missing: cargo build --release -p bitlens-cli`);
    // Both infer the writer's allocator from used-mem the same way. This build's is the
    // bundled jemalloc: inferred, or (issue 55: a difference of a few bytes per key that
    // used-mem's measured band cannot separate on this 318 MB file is never presented as
    // certain) undecided with it among the candidates and its figures the ones shown.
    const cli = JSON.parse(execFileSync(BITLENS, ['inspect', '--json', '--top', '20', file], { encoding: 'utf8', maxBuffer: 64 << 20 }));
    assert.equal(await page.inputValue('[data-testid=mem-allocator]'), 'auto');
    assert.equal(cli.allocator, 'jemalloc');
    assert.ok(['inferred', 'undecided'].includes(cli.allocator_source), cli.allocator_source);
    if (cli.allocator_source === 'undecided') {
      assert.ok(cli.allocator_candidates.includes('jemalloc'), JSON.stringify(cli.allocator_candidates));
    }
    const choice = await page.$eval('[data-testid=mem-allocator-choice]', (e) => [e.dataset.allocator, e.dataset.source, e.textContent]);
    assert.deepEqual(choice, ['jemalloc', cli.allocator_source, `Sizes priced with jemalloc (Redis' bundled build) (${cli.allocator_source}): ${cli.allocator_reason}`]);
    const rows = await topRows();
    assert.deepEqual(rows.map((r) => [r.key, r.memory]), cli.top.map((k) => [k.key, k.memory]));
    const summary = await page.$eval('[data-testid=mem-summary]', (e) => ({ keys: Number(e.dataset.keys), memory: Number(e.dataset.memory) }));
    assert.deepEqual(summary, { keys: cli.keys, memory: cli.memory });
    assert.equal(summary.keys, server.keys.length);
    const types = await page.$$eval('[data-testid=mem-by-type] tbody tr', (trs) => trs.map((tr) => [`${tr.dataset.type}/${tr.dataset.encoding}`, Number(tr.dataset.keys), Number(tr.dataset.memory)]));
    assert.deepEqual(types, cli.by_type.map((t) => [t.name, t.keys, t.memory]));
    // Patterns: the inspect report's groups (pattern, count, memory), the same rows.
    const patterns = await page.$$eval('[data-testid=mem-by-pattern] tbody tr', (trs) => trs.map((tr) => [tr.dataset.pattern, Number(tr.dataset.keys), Number(tr.dataset.memory)]));
    const groups = cli.databases[0].groups.map((g) => [g.pattern, g.count, g.memory]);
    const sorted = (a) => [...a].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
    assert.deepEqual(sorted(patterns), sorted(groups));
    const users = patterns.find((p) => p[0] === 'user:*');
    assert.ok(users && users[1] === 30, JSON.stringify(users));
    const days = await page.$$eval('[data-testid=mem-expiring-days] tbody tr', (trs) => trs.map((tr) => [Number(tr.dataset.until), Number(tr.dataset.keys), Number(tr.dataset.memory)]));
    assert.deepEqual(days, cli.expiring.per_day.map((d) => [d.until_ms, d.keys, d.memory]));
  });

  test('"expiring within 7 days" counts the keys whose TTL the server says ends this week', async () => {
    const withExpiry = server.keys.filter((k) => k.expireAt > 0);
    assert.equal(withExpiry.length, 9);
    const left = (k) => k.expireAt - server.saved;
    const week = withExpiry.filter((k) => left(k) >= 0 && left(k) <= 7 * DAY);
    assert.deepEqual(week.map((k) => k.key).sort(), ['big:string:18', 'exp:1h', 'exp:30h', 'exp:3d', 'exp:3d-b', 'exp:5h', 'exp:6d12h']);
    const e = await page.$eval('[data-testid=mem-expiring]', (x) => ({ keys: Number(x.dataset.keys), memory: Number(x.dataset.memory), text: x.textContent }));
    assert.equal(e.keys, week.length);
    assert.match(e.text, /^7 keys \(.+\) expire within 7 days of /);
    // Per 24-hour day from the snapshot's time, as the server's expiry times fall.
    const want = Array(7).fill(0);
    for (const k of week) want[Math.max(0, Math.ceil(left(k) / DAY) - 1)] += 1;
    const days = await page.$$eval('[data-testid=mem-expiring-days] tbody tr', (trs) => trs.map((tr) => Number(tr.dataset.keys)));
    assert.deepEqual(days, want);
    // The bytes of the week are the panel's own per-key figures of those keys.
    const big = (await topRows()).find((r) => r.key === 'big:string:18');
    assert.ok(big, 'big:string:18 is in the top 20');
    assert.ok(e.memory > big.memory);
    // A top key opens in the key browser.
    await page.click('[data-testid=mem-top] tr[data-key="big:string:18"] [data-testid=mem-open-key]');
    await page.waitForSelector('[data-testid=kb-detail][data-state=ready]');
    assert.equal(await page.textContent('[data-testid=kb-detail-key]'), 'big:string:18');
    assert.deepEqual(pageErrors, []);
  });

  test('the prefix treemap, the TTL histogram and the ledger are `inspect --json --ledger`\'s', async (t) => {
    const cli = JSON.parse(execFileSync(BITLENS, ['inspect', '--json', '--ledger', '--bitfield', 'lvls:*=u4', file], { encoding: 'utf8', maxBuffer: 64 << 20 }));
    await page.evaluate(() => { document.querySelector('[data-testid=memory-section]').dataset.state = 'pending'; });
    await page.fill('[data-testid=mem-bitfield]', 'lvls:*=u4');
    await page.press('[data-testid=mem-bitfield]', 'Enter');
    await page.waitForSelector('[data-testid=memory-section][data-state=ready]', { timeout: 60000 });
    const tiles = () => page.$$eval('[data-testid=mem-tile]', (bs) => bs.map((b) => ({
      prefix: b.dataset.prefix, keys: Number(b.dataset.keys), memory: Number(b.dataset.memory), rest: b.dataset.rest === '1', label: b.getAttribute('aria-label'),
    })));
    const children = (parent) => {
      // The CLI's prefix rows are depth-first: a parent's children follow it at depth + 1.
      const at = parent === '' ? -1 : cli.prefixes.findIndex((p) => p.prefix === parent);
      const depth = parent === '' ? 1 : cli.prefixes[at].depth + 1;
      const out = [];
      for (let i = at + 1; i < cli.prefixes.length && cli.prefixes[i].depth >= depth; i++) {
        if (cli.prefixes[i].depth === depth) out.push(cli.prefixes[i]);
      }
      return out;
    };
    const norm = (a) => [...a].sort((x, y) => y.memory - x.memory || (x.prefix < y.prefix ? -1 : 1)).map((p) => [p.prefix, p.keys, p.memory]);
    // Top level: one tile per first-segment prefix, plus the keys with no separator.
    let got = await tiles();
    assert.deepEqual(norm(got.filter((x) => !x.rest)), norm(children('')));
    const rest = got.find((x) => x.rest);
    assert.ok(rest, 'the keys with no separator (standalone) have their tile');
    assert.equal(rest.memory, cli.memory - children('').reduce((s, p) => s + p.memory, 0));
    assert.equal(rest.keys, cli.keys - children('').reduce((s, p) => s + p.keys, 0));
    // The ESC key's prefix: labelled as the core escapes it (the CLI's text prints the same).
    const ctl = got.find((x) => x.prefix === 'ctl\x1b[31m:');
    assert.ok(ctl, JSON.stringify(got.map((x) => x.prefix)));
    assert.ok(ctl.label.startsWith('"ctl\\x1b[31m:"'), ctl.label);
    const text = execFileSync(BITLENS, ['inspect', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
    assert.ok(text.includes('"ctl\\x1b[31m:"'), 'the CLI prints the same escaped prefix');
    assert.ok(!(await page.textContent('[data-testid=mem-treemap]')).includes('\x1b'), 'no raw ESC in the page');
    // Zoom into `big:` with the keyboard (Tab stop, arrows, Enter), then back out with Escape.
    const big = got.findIndex((x) => x.prefix === 'big:');
    await page.focus('[data-testid=mem-tile]');
    for (let i = 0; i < big; i++) await page.keyboard.press('ArrowRight');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.prefix), 'big:');
    await page.keyboard.press('Enter');
    assert.equal(await page.getAttribute('[data-testid=mem-treemap]', 'data-prefix'), 'big:');
    got = await tiles();
    assert.deepEqual(norm(got.filter((x) => !x.rest)), norm(children('big:')));
    assert.equal(got.length, children('big:').length, 'every big: key is under a second-level prefix');
    await page.keyboard.press('Escape');
    assert.equal(await page.getAttribute('[data-testid=mem-treemap]', 'data-prefix'), '');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.prefix), 'big:', 'focus returns to the tile zoomed into');
    // The TTL histogram.
    const ttl = await page.$$eval('[data-testid=mem-ttl] tbody tr', (trs) => trs.map((tr) => [tr.dataset.name, Number(tr.dataset.keys), Number(tr.dataset.memory)]));
    assert.deepEqual(ttl, cli.ttl.map((x) => [x.name, x.keys, x.memory]));
    assert.deepEqual(ttl.map((x) => x[1]), [server.keys.length - 9, 0, 1, 1, 5, 2]);
    // The ledger per pattern.
    const figures = ['keys', 'members', 'current', 'asSet', 'asBitmap', 'asRoaring', 'asHash'];
    const ledger = await page.$$eval('[data-testid=mem-ledger] tbody tr', (trs, f) => trs.map((tr) => [tr.dataset.pattern,
      ...f.map((c) => Number(tr.dataset[c]))]), figures);
    const want = cli.databases[0].groups.filter((g) => g.ledger).map((g) => [g.pattern, g.ledger.keys, g.ledger.members, g.ledger.current,
      g.ledger.as_set, g.ledger.as_bitmap, g.ledger.as_roaring, g.ledger.as_hash]);
    const byName = (a) => [...a].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
    assert.deepEqual(byName(ledger), byName(want));
    for (const pat of ['bm:day:', 'lvls:a', 'lvls:b', 'big:string-int-set:']) assert.ok(ledger.some((l) => l[0].startsWith(pat)), `${pat} ${JSON.stringify(ledger.map((l) => l[0]))}`);
    // One key's ledger in the key browser: `inspect --ledger --match KEY`'s figures.
    const keyLedger = async (key) => {
      await page.fill('[data-testid=kb-pattern]', key);
      await page.click('[data-testid=kb-search]');
      await page.waitForSelector(`[data-testid=kb-row][data-key="${key}"]`);
      await page.click(`[data-testid=kb-row][data-key="${key}"] button`);
      await page.waitForSelector('[data-testid=kb-detail][data-state=ready]');
      assert.equal(await page.textContent('[data-testid=kb-detail-key]'), key);
      const rows = await page.$$eval('[data-testid=kb-ledger] tbody tr', (trs) => Object.fromEntries(trs.map((tr) => [tr.dataset.form,
        { memory: tr.dataset.memory === '' ? null : Number(tr.dataset.memory), encoding: tr.dataset.encoding }])));
      const one = JSON.parse(execFileSync(BITLENS, ['inspect', '--json', '--ledger', '--bitfield', 'lvls:*=u4', '--match', key, file], { encoding: 'utf8' }));
      return { rows, cli: one.databases[0].groups[0].ledger };
    };
    const lv = await keyLedger('lvls:b');
    assert.equal(lv.rows.current.memory, lv.cli.current);
    assert.equal(lv.rows.asHash.memory, lv.cli.as_hash);
    assert.equal(lv.rows.asHash.encoding, 'hashtable');
    assert.equal(lv.rows.asSet.memory, null);
    const bm = await keyLedger('bm:day:1');
    assert.deepEqual([bm.rows.asSet.memory, bm.rows.asRoaring.memory, bm.rows.asSet.encoding], [bm.cli.as_set, bm.cli.as_roaring, 'intset']);
    // The BITFIELD key as a Hash against the server: the same fields HSET, MEMORY USAGE less
    // the key's own part (the same for names of the same length: MEMORY USAGE lvls:x less its
    // value bytes).
    for (const [k, enc] of [['a', 'listpack'], ['b', 'hashtable']]) {
      const mu = (key) => server.keys.find((x) => x.key === key).memory;
      const l = (await keyLedger(`lvls:${k}`)).rows;
      assert.equal(l.asHash.encoding, enc);
      assert.equal(server.keys.find((x) => x.key === `hlvl:${k}`).encoding, enc);
      const keyPart = mu(`lvls:${k}`) - l.current.memory;
      const est = l.asHash.memory + keyPart;
      const off = Math.abs(est - mu(`hlvl:${k}`)) / mu(`hlvl:${k}`);
      t.diagnostic(`lvls:${k} as a Hash: ${est} vs MEMORY USAGE hlvl:${k} ${mu(`hlvl:${k}`)} (${(100 * off).toFixed(2)}%)`);
      assert.ok(off <= 0.1, `${k}: ${est} vs ${mu(`hlvl:${k}`)}`);
    }
    await page.locator('[data-testid=memory-section]').screenshot({ path: artifact('memory-treemap.png') });
    assert.deepEqual(pageErrors, []);
  });

  test('at 390 px the view, its inputs and the treemap scroll nothing sideways', async () => {
    await page.setViewportSize({ width: 390, height: 900 });
    try {
      await page.waitForFunction(() => document.querySelector('[data-testid=mem-treemap]').getBoundingClientRect().width > 0);
      const m = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth, width: window.innerWidth,
        treemap: document.querySelector('[data-testid=mem-treemap]').getBoundingClientRect().right,
        bitfield: document.querySelector('[data-testid=mem-bitfield]').getBoundingClientRect().right,
      }));
      const wide = await page.evaluate(() => [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5 && !((x) => { for (let a = x.parentElement; a; a = a.parentElement) if (['auto', 'hidden', 'scroll'].includes(getComputedStyle(a).overflowX)) return true; return false; })(e))
        .slice(0, 8).map((e) => `${e.tagName}.${e.className}[${e.dataset.testid || ''}] ${Math.round(e.getBoundingClientRect().right)}`));
      assert.ok(m.scroll <= m.width, `${JSON.stringify(m)} ${wide.join('; ')}`);
      assert.ok(m.treemap <= m.width && m.bitfield <= m.width, JSON.stringify(m));
      await page.locator('[data-testid=mem-treemap]').screenshot({ path: artifact('memory-treemap-390.png') });
    } finally {
      await page.setViewportSize({ width: 1280, height: 1000 });
    }
  });

  test('a system-jemalloc build (Debian\'s 7.0.15): its allocator inferred, and the select overrides it', async (t) => {
    await open(debianFile);
    // From the file's used-mem: the 16-byte-quantum jemalloc, as inspect finds it; where
    // glibc predicts as near as the writer's own extra memory varies, both say the file is
    // undecided, show jemalloc16's figures (the best fit) and give the range over both.
    assert.equal(await page.inputValue('[data-testid=mem-allocator]'), 'auto');
    const choice = () => page.$eval('[data-testid=mem-allocator-choice]', (e) => [e.dataset.allocator, e.dataset.source]);
    const [shown, source] = await choice();
    assert.equal(shown, 'jemalloc16');
    assert.ok(['inferred', 'undecided'].includes(source), source);
    t.diagnostic(`Debian 7.0.15, ${source} jemalloc16: ${await assertTop(debianServer)}`);
    const cli = JSON.parse(execFileSync(BITLENS, ['inspect', '--json', debianFile], { encoding: 'utf8', maxBuffer: 64 << 20 }));
    assert.deepEqual([cli.allocator, cli.allocator_source], [shown, source]);
    if (source === 'undecided') {
      assert.ok(cli.allocator_candidates.includes('jemalloc16'), JSON.stringify(cli.allocator_candidates));
      const range = await page.$eval('[data-testid=mem-range]', (e) => [Number(e.dataset.min), Number(e.dataset.max)]);
      assert.deepEqual(range, [cli.memory_range.min, cli.memory_range.max]);
    }
    assert.deepEqual((await topRows()).map((r) => [r.key, r.memory]), cli.top.map((k) => [k.key, k.memory]));
    // The select overrides it: bundled jemalloc's figures, as `inspect --allocator jemalloc`.
    await page.evaluate(() => { document.querySelector('[data-testid=memory-section]').dataset.state = 'pending'; });
    await page.selectOption('[data-testid=mem-allocator]', 'jemalloc');
    await page.waitForSelector('[data-testid=memory-section][data-state=ready]', { timeout: 60000 });
    assert.deepEqual(await choice(), ['jemalloc', 'given']);
    const given = JSON.parse(execFileSync(BITLENS, ['inspect', '--json', '--allocator', 'jemalloc', debianFile], { encoding: 'utf8', maxBuffer: 64 << 20 }));
    assert.deepEqual((await topRows()).map((r) => [r.key, r.memory]), given.top.map((k) => [k.key, k.memory]));
    assert.notDeepEqual(given.top.map((k) => k.memory), cli.top.map((k) => k.memory));
    await page.selectOption('[data-testid=mem-allocator]', 'auto');
    assert.deepEqual(pageErrors, []);
  });
});
