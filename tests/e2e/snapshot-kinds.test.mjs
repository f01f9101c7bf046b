// The panel on the snapshots people have (issues 13 and 14, panel side), index.html from a plain
// static server (no API), files opened through "Open snapshot…":
// - a Valkey 9.1.2 RDB with three databases (committed fixture, VALKEY080) named backup.bin
//   opens as an RDB by its content; the database selector lists the three databases with the
//   key counts that server recorded (the fixture's .json), and switching changes the key list;
// - an empty file says "empty file"; a DUMP file with a URL-encoded name proposes the decoded
//   key; an RDB file dropped with DUMP files loads both;
// - the profile line names the writer, and the override changes a reply: a real Redis 7.4.1
//   prints the score 1.618 as "1.618", a real Redis 7.0 as "1.6180000000000001", and the key
//   browser shows each as the profile in force says; a key expired at the snapshot's time (as
//   that server says: EXISTS 0) is hidden, and shown as "expired at …" with the checkbox.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  ROOT, SERVERS_DIR, artifact, freePort, launchBrowser, openFile, openOfflinePanel, redisCli, start, startRedis,
  staticPanel, tempDir,
} from './harness.mjs';

const FIXTURES = path.join(ROOT, 'tests/data/fixtures');
const YEAR_MS = 365.2425 * 86400000;

/** The fixture's record of what the server held: {keys: [{db, key, type, pexpireat, dump}]}. */
function fixture(name) {
  const j = JSON.parse(readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8'));
  return {
    ...j,
    keys: j.keys.map((k) => ({ ...k, key: Buffer.from(k.key_hex, 'hex').toString('latin1'), dump: k.dump_hex ? Buffer.from(k.dump_hex, 'hex') : null })),
  };
}

/** One RDB string (length-prefixed, or an integer encoding) at `at`: [text, next offset]. */
function rdbString(b, at) {
  const first = b[at];
  const kind = first >> 6;
  if (kind === 3) {
    const enc = first & 0x3f;
    if (enc === 0) return [String(b.readInt8(at + 1)), at + 2];
    if (enc === 1) return [String(b.readInt16LE(at + 1)), at + 3];
    if (enc === 2) return [String(b.readInt32LE(at + 1)), at + 5];
    throw new Error(`aux string encoding ${enc} at ${at}`);
  }
  let len;
  let p;
  if (kind === 0) [len, p] = [first & 0x3f, at + 1];
  else if (kind === 1) [len, p] = [((first & 0x3f) << 8) | b[at + 1], at + 2];
  else if (first === 0x80) [len, p] = [b.readUInt32BE(at + 1), at + 5];
  else throw new Error(`length byte ${first} at ${at}`);
  return [b.subarray(p, p + len).toString('latin1'), p + len];
}

/** The aux fields (opcode 0xFA) right after an RDB file's 9-byte magic. */
function auxFields(file) {
  const b = readFileSync(file);
  const out = {};
  let at = 9;
  while (b[at] === 0xfa) {
    const [k, n] = rdbString(b, at + 1);
    const [v, m] = rdbString(b, n);
    out[k] = v;
    at = m;
  }
  return out;
}

/** `ms` ahead as "in N years" when N ≥ 1 (the only case these tests need). */
const inYears = (ms) => `in ${Math.floor(ms / YEAR_MS)} years`;

/** The manifest of the real servers installed by scripts/servers.sh (null when absent). */
function servers() {
  const f = path.join(SERVERS_DIR, 'servers.json');
  return existsSync(f) ? JSON.parse(readFileSync(f, 'utf8')).servers : null;
}

/** Starts a server of the manifest on a free port with a temporary --dir. */
async function startServer(entry, extra = []) {
  const port = await freePort();
  const dir = tempDir('bitlens-e2e-server-');
  const proc = start(entry.server, [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no',
    '--daemonize', 'no', ...extra,
  ], { env: { ...process.env, ...(entry.env || {}) } });
  await proc.waitFor(/Ready to accept connections/, 30000);
  const cli = (...argv) => execFileSync(entry.cli, ['-h', '127.0.0.1', '-p', String(port), ...argv], {
    encoding: 'utf8', env: { ...process.env, ...(entry.env || {}) },
  }).trim();
  return { port, dir, proc, cli };
}

describe('panel: every database, files known by content, profile and clock', { timeout: 300000 }, () => {
  let web;
  let browser;
  let page;
  const dir = tempDir('bitlens-e2e-kinds-');
  const pageErrors = [];

  before(async () => {
    web = await staticPanel();
    browser = await launchBrowser();
    ({ page } = await openOfflinePanel(browser, web.url, { errors: pageErrors }));
  });

  after(async () => {
    if (browser) await browser.close().catch(() => {});
    if (web) await web.close();
  });

  const status = () => page.textContent('[data-testid=status]');

  /** Opens `files` through the file input; `settled()` then waits for ready or error. */
  const open = (files) => openFile(page, files, { settle: false });
  // Decoded or refused, and then drawn (data-state): the key browser has listed and moved to
  // its place, so a click lands where the page has settled.
  const settled = () => page.waitForSelector('[data-testid=panel]:is([data-offline=ready], [data-offline=error]):is([data-state=ready], [data-state=error])', { timeout: 60000 });

  /** The keys the key browser lists for `pattern` once its summary says `total`. */
  async function listed(pattern, total, db) {
    await page.fill('[data-testid=kb-pattern]', pattern);
    await page.click('[data-testid=kb-search]');
    return shown(total, db);
  }

  /**
   * The key browser's rows once its summary says `total` keys in database `db`. A database
   * switch lists again by itself, and may move the key browser (to the top when the cards'
   * keys are not in that database): the test waits for that list instead of clicking search
   * while the page moves under the pointer.
   */
  async function shown(total, db) {
    await page.waitForFunction(([n, d]) => {
      const s = document.querySelector('[data-testid=kb-summary]');
      return s && s.dataset.total === String(n) && s.dataset.db === String(d) && document.querySelector('[data-testid=keys-section]').dataset.state === 'ready';
    }, [total, db]);
    return page.$$eval('[data-testid=kb-row]', (rows) => rows.map((r) => [r.dataset.key, r.dataset.db]));
  }

  test('a Valkey 9.1.2 RDB named backup.bin opens as an RDB; its three databases are all there', async () => {
    const name = 'valkey-9.1.2-default';
    const fx = fixture(name);
    const file = path.join(dir, 'backup.bin');
    copyFileSync(path.join(FIXTURES, `${name}.rdb`), file);
    assert.equal(readFileSync(file).subarray(0, 9).toString('latin1'), 'VALKEY080');
    await open(file);
    await settled();
    assert.equal(await page.getAttribute('[data-testid=panel]', 'data-offline'), 'ready');
    // The key counts per database the server recorded (fixture .json dbsize).
    const total = Object.values(fx.dbsize).reduce((a, b) => a + b, 0);
    assert.match(await status(), new RegExp(`^backup\\.bin: ${total} keys in 3 databases`));
    const options = await page.$$eval('[data-testid=db] option', (o) => o.map((x) => [x.value, x.textContent]));
    assert.deepEqual(options, Object.entries(fx.dbsize).map(([db, n]) => [db, `db ${db} (${n} keys)`]));
    assert.equal(await page.isDisabled('[data-testid=db]'), false);
    // Database 0 holds the cards' keys (uv:page:index:*, stats:active:*): selected first.
    assert.equal(await page.inputValue('[data-testid=db]'), '0');
    assert.ok(fx.keys.some((k) => k.db === 0 && k.key.startsWith('stats:active:')));
    const db0 = fx.keys.filter((k) => k.db === 0).map((k) => k.key).sort();
    assert.deepEqual((await listed('*', db0.length, 0)).map((r) => r[0]), db0.slice(0, 25));
    // The writer, from the file's valkey-ver aux field; the clock is the snapshot's ctime.
    const aux = auxFields(file);
    assert.equal(aux['valkey-ver'], '9.1.2');
    assert.equal(await page.textContent('[data-testid=profile]'), 'answers as Valkey 9.1.2, the writer of this snapshot');
    const ctimeMs = Number(aux.ctime) * 1000;
    const clockMs = Number(await page.getAttribute('[data-testid=clock]', 'data-clock-ms'));
    assert.ok(clockMs >= ctimeMs && clockMs < ctimeMs + 1000, `${clockMs} vs ctime ${aux.ctime}`);
    assert.equal(await page.textContent('[data-testid=clock]'), `as of ${new Date(ctimeMs).toISOString().slice(0, 19).replace('T', ' ')} UTC (the snapshot's time)`);
    // An expiry (PEXPIREAT 4102444800000 recorded by the server) as a date and the time left.
    const short = fx.keys.find((k) => k.key === 'str:short');
    assert.equal(short.pexpireat, 4102444800000);
    await listed('str:*', fx.keys.filter((k) => k.db === 0 && k.key.startsWith('str:')).length, 0);
    assert.equal(await page.textContent('[data-testid=kb-row][data-key="str:short"] [data-testid=kb-row-ttl]'),
      `2100-01-01 00:00 UTC, ${inYears(short.pexpireat - clockMs)}`);

    // Switching databases switches the key list (with the pattern in the box).
    await listed('*', db0.length, 0);
    for (const db of ['5', '1']) {
      await page.selectOption('[data-testid=db]', db);
      const want = fx.keys.filter((k) => k.db === Number(db)).map((k) => k.key).sort();
      assert.deepEqual(await shown(want.length, db), want.map((k) => [k, db]));
    }
    const db1key = fx.keys.find((k) => k.key === 'db1:key');
    assert.equal(await page.textContent('[data-testid=kb-row][data-key="db1:key"] [data-testid=kb-row-ttl]'),
      `2100-01-01 00:00 UTC, ${inYears(db1key.pexpireat - clockMs)}`);
    await page.screenshot({ path: artifact('kinds-three-databases.png'), fullPage: true });
    await page.selectOption('[data-testid=db]', '0');
    await shown(db0.length, 0);

    // "all databases": every database's keys, by db then name, the db on each row; a key of
    // another database opens in its database.
    await page.check('[data-testid=kb-all-dbs]');
    const all = Object.keys(fx.dbsize).map(Number).flatMap((db) => fx.keys.filter((k) => k.db === db).map((k) => k.key).sort().map((k) => [k, String(db)]));
    assert.equal(all.length, total);
    await page.waitForFunction((n) => document.querySelector('[data-testid=kb-summary]')?.dataset.total === String(n), total);
    assert.equal(await page.textContent('[data-testid=kb-summary]'), `${total} keys match * in every database`);
    const rowsOf = () => page.$$eval('[data-testid=kb-row]', (rows) => rows.map((r) => [r.dataset.key, r.dataset.db]));
    assert.deepEqual(await rowsOf(), all.slice(0, 25));
    await page.click('[data-testid=kb-next]');
    await page.waitForFunction(() => document.querySelector('[data-testid=kb-page]')?.textContent === 'Page 2 of 2');
    assert.deepEqual(await rowsOf(), all.slice(25));
    await page.click('.kb-key[data-key="db1:zset"]');
    await page.waitForSelector('[data-testid=kb-detail][data-state=ready] [data-testid=kb-values]');
    assert.equal(await page.textContent('[data-testid=kb-detail] [data-testid=kb-db]'), '1');
    assert.equal(await page.textContent('[data-testid=kb-detail] [data-testid=kb-type]'), 'zset');
    // ZRANGE db1:zset 0 -1 WITHSCORES as the server answered it (fixture zrange).
    const zr = fx.keys.find((k) => k.key === 'db1:zset').zrange.map(([m, sc]) => [Buffer.from(m, 'hex').toString(), sc]);
    assert.deepEqual(await page.$$eval('[data-testid=kb-value-row] td', (c) => c.map((x) => x.textContent)), zr.flat());
    // The cards' database is still the selected one.
    assert.equal(await page.inputValue('[data-testid=db]'), '0');
    await page.uncheck('[data-testid=kb-all-dbs]');
    await listed('*', db0.length, 0);
  });

  test('an empty file says "empty file" and the panel keeps the snapshot', async () => {
    const file = path.join(dir, 'empty.rdb');
    writeFileSync(file, Buffer.alloc(0));
    await open(file);
    await settled();
    assert.equal(await page.getAttribute('[data-testid=panel]', 'data-offline'), 'error');
    assert.equal(await status(), 'empty.rdb: empty file');
    assert.equal(await page.textContent('[data-testid=file-note]'), 'empty.rdb: empty file');
    assert.equal(await page.getAttribute('[data-testid=panel]', 'data-state'), 'ready');
    assert.equal(await page.inputValue('[data-testid=db]'), '0');
  });

  test('a URL-encoded DUMP file name proposes the decoded key; the payload and raw bytes are told apart', async () => {
    const fx = fixture('valkey-9.1.2-default');
    const short = fx.keys.find((k) => k.key === 'str:short');
    const dumpFile = path.join(dir, 'str%3Ashort.bin');
    writeFileSync(dumpFile, short.dump);
    // The raw GET bytes of the same key (no DUMP trailer).
    const rawFile = path.join(dir, 'greeting%20raw.dump');
    writeFileSync(rawFile, Buffer.from(short.value_hex, 'hex'));
    await open([dumpFile, rawFile]);
    await page.waitForSelector('[data-testid=dump-form]:not([hidden])');
    const keys = page.locator('[data-testid=dump-key]');
    assert.equal(await keys.nth(0).inputValue(), 'str:short');
    assert.equal(await keys.nth(1).inputValue(), 'greeting raw');
    const kinds = page.locator('[data-testid=dump-kind]');
    assert.equal(await kinds.nth(0).inputValue(), 'dump');
    assert.equal(await kinds.nth(1).inputValue(), 'string');
    assert.match(await page.locator('[data-testid=dump-what]').nth(0).textContent(), /^a DUMP payload \(Valkey RDB 80, RDB_TYPE_STRING\)$/);
    assert.equal(await page.locator('[data-testid=dump-what]').nth(1).textContent(), 'raw bytes');
    await page.click('[data-testid=dump-load]');
    await settled();
    assert.equal(await page.getAttribute('[data-testid=panel]', 'data-offline'), 'ready');
    assert.deepEqual(await listed('*', 2, 0), [['greeting raw', '0'], ['str:short', '0']]);
    // Both are strings of the server's 5 bytes (strlen in the fixture).
    for (const k of ['str:short', 'greeting raw']) {
      assert.equal(await page.textContent(`[data-testid=kb-row][data-key="${k}"] td`), 'string');
      assert.equal(await page.textContent(`[data-testid=kb-row][data-key="${k}"] td:nth-of-type(3)`), `${short.strlen} B`);
    }
    // A fresh engine of DUMP payloads answers as the payload's trailer says (Valkey RDB 80).
    assert.equal(await page.textContent('[data-testid=profile]'), 'answers as Valkey 9.0, the writer of this snapshot');
  });

  test('an RDB file dropped together with a DUMP file loads both', async () => {
    const name = 'redis-7.4.1-default';
    const fx = fixture(name);
    const rdb = path.join(dir, 'snapshot.dat');
    copyFileSync(path.join(FIXTURES, `${name}.rdb`), rdb);
    const short = fx.keys.find((k) => k.key === 'str:short');
    const dumpFile = path.join(dir, 'extra%3Akey.dump');
    writeFileSync(dumpFile, short.dump);
    const bytes = { rdb: [...readFileSync(rdb)], dump: [...readFileSync(dumpFile)] };
    await page.evaluate(() => {
      document.querySelector('[data-testid=panel]').dataset.offline = 'pending';
    });
    await page.evaluate((b) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(b.rdb)], 'snapshot.dat'));
      dt.items.add(new File([new Uint8Array(b.dump)], 'extra%3Akey.dump'));
      const panel = document.querySelector('[data-testid=panel]');
      panel.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, bytes);
    await page.waitForSelector('[data-testid=dump-form]:not([hidden])');
    assert.match(await page.textContent('[data-testid=dump-with-rdb]'), /database 0 of snapshot\.dat/);
    assert.equal(await page.locator('[data-testid=dump-key]').count(), 1);
    assert.equal(await page.locator('[data-testid=dump-key]').inputValue(), 'extra:key');
    await page.click('[data-testid=dump-load]');
    await settled();
    assert.equal(await page.getAttribute('[data-testid=panel]', 'data-offline'), 'ready');
    const db0 = fx.keys.filter((k) => k.db === 0).map((k) => k.key);
    const total = Object.values(fx.dbsize).reduce((a, b) => a + b, 0) + 1;
    assert.match(await status(), new RegExp(`^2 files: ${total} keys in 3 databases`));
    const rows = await listed('extra:*', 1, 0);
    assert.deepEqual(rows, [['extra:key', '0']]);
    await listed('*', db0.length + 1, 0);
    assert.equal(await page.textContent('[data-testid=profile]'), 'answers as Redis 7.4.1, the writer of this snapshot');
  });

  test('profile override changes the reply; an expired key is hidden unless asked for (real Redis 7.4.1 and 7.0)', async (t) => {
    const m = servers();
    if (!m || !m['redis-7.4.1']) {
      t.skip(`no Redis 7.4.1 in ${SERVERS_DIR} (scripts/servers.sh installs it; BITLENS_SERVERS_DIR names another folder)`);
      return;
    }
    // Redis 7.4.1 writes the snapshot: a score of 1.618, a key expiring in 2100 and one already
    // expired when SAVE ran (active expiry off, so the key is still in the file).
    const r74 = await startServer(m['redis-7.4.1'], ['--enable-debug-command', 'yes']);
    const r70 = await startRedis(); // Debian's redis-server 7.0.15
    try {
      r74.cli('ZADD', 'z:golden', '1.618', 'phi');
      r74.cli('SET', 'far', 'x', 'PXAT', '4102444800000');
      r74.cli('DEBUG', 'SET-ACTIVE-EXPIRE', '0');
      r74.cli('SET', 'gone', 'x', 'PX', '1');
      await new Promise((r) => setTimeout(r, 20));
      r74.cli('SAVE');
      // What each server answers: 7.4.1 prints the shortest form, 7.0 17 digits; the key is gone.
      const score74 = r74.cli('ZSCORE', 'z:golden', 'phi');
      assert.equal(r74.cli('EXISTS', 'gone'), '0');
      redisCli(r70.port, ['ZADD', 'z:golden', '1.618', 'phi']);
      const score70 = redisCli(r70.port, ['ZSCORE', 'z:golden', 'phi']).trim();
      assert.equal(score74, '1.618');
      assert.equal(score70, '1.6180000000000001');
      const file = path.join(dir, 'redis-7.4.1-dump.rdb');
      copyFileSync(path.join(r74.dir, 'dump.rdb'), file);
      const aux = auxFields(file);

      await open(file);
      await settled();
      assert.equal(await page.getAttribute('[data-testid=panel]', 'data-offline'), 'ready');
      assert.equal(await page.textContent('[data-testid=profile]'), `answers as Redis ${aux['redis-ver']}, the writer of this snapshot`);
      assert.equal(aux['redis-ver'], '7.4.1');
      const scoreShown = async () => {
        await listed('z:*', 1, 0);
        await page.click('.kb-key[data-key="z:golden"]');
        await page.waitForSelector('[data-testid=kb-detail][data-state=ready] [data-testid=kb-values]');
        return page.$$eval('[data-testid=kb-value-row] td', (c) => c.map((x) => x.textContent));
      };
      assert.deepEqual(await scoreShown(), ['phi', score74]);
      // The override: answer as Redis 7.0.
      const names = await page.$$eval('[data-testid=compat] option', (o) => o.map((x) => x.value));
      assert.ok(names.includes('redis-7.0') && names.includes('valkey-9.0') && names[0] === '', names.join());
      await page.selectOption('[data-testid=compat]', 'redis-7.0');
      await page.waitForFunction(() => document.querySelector('[data-testid=profile]').dataset.profile === 'redis-7.0');
      assert.equal(await page.textContent('[data-testid=profile]'), 'answers as Redis 7.0 (--compat redis-7.0); written by Redis 7.4.1');
      assert.deepEqual(await scoreShown(), ['phi', score70]);
      // The setting is mirrored into the URL.
      assert.match(page.url(), /[?&]compat=redis-7\.0(&|$)/);
      await page.selectOption('[data-testid=compat]', '');
      await page.waitForFunction(() => document.querySelector('[data-testid=profile]').dataset.profile === 'redis-7.4');
      assert.deepEqual(await scoreShown(), ['phi', score74]);

      // Expiry at the snapshot's clock: "gone" is hidden (as EXISTS 0 said), "far" has a date.
      const clockMs = Number(await page.getAttribute('[data-testid=clock]', 'data-clock-ms'));
      assert.ok(clockMs >= Number(aux.ctime) * 1000 && clockMs < Number(aux.ctime) * 1000 + 1000);
      const live = await listed('*', 2, 0);
      assert.deepEqual(live.map((r) => r[0]), ['far', 'z:golden']);
      assert.equal(await page.textContent('[data-testid=kb-row][data-key=far] [data-testid=kb-row-ttl]'),
        `2100-01-01 00:00 UTC, ${inYears(4102444800000 - clockMs)}`);
      await page.check('[data-testid=kb-expired]');
      await page.waitForFunction(() => document.querySelector('[data-testid=kb-summary]')?.dataset.total === '3');
      const row = page.locator('[data-testid=kb-row][data-key=gone]');
      assert.equal(await row.getAttribute('data-expired'), 'true');
      assert.match(await row.locator('[data-testid=kb-row-ttl]').textContent(), /^expired at \d{4}-\d\d-\d\d \d\d:\d\d UTC \(\d+ (milli)?seconds? ago\)$/);
      const ttlMs = Number(await row.locator('[data-testid=kb-row-ttl]').getAttribute('data-ttl-ms'));
      assert.ok(ttlMs < 0 && ttlMs > -60000, String(ttlMs));
      // Its detail says it expired (every command answers as for a missing key at the clock).
      await row.locator('.kb-key').click();
      await page.waitForSelector('[data-testid=kb-detail][data-state=missing]');
      assert.match(await page.textContent('[data-testid=kb-gone]'), /^expired at \d{4}-/);
      await page.screenshot({ path: artifact('kinds-expired-shown.png'), fullPage: true });
      await page.uncheck('[data-testid=kb-expired]');
      await page.waitForFunction(() => document.querySelector('[data-testid=kb-summary]')?.dataset.total === '2');
    } finally {
      await r74.proc.stop();
      await r70.proc.stop();
    }
  });

  test('two RDB files: one keyspace, or refused naming a key both hold; an RDB version bitlens does not read is named', async () => {
    const a = path.join(dir, 'a.rdb');
    const b = path.join(dir, 'b.rdb');
    const c = path.join(dir, 'c.rdb');
    copyFileSync(path.join(FIXTURES, 'redis-7.0.15-default.rdb'), a);
    copyFileSync(path.join(FIXTURES, 'redis-6.2.14-default.rdb'), b);
    copyFileSync(path.join(FIXTURES, 'valkey-9.1.2-cluster.rdb'), c);
    const sum = (fx) => Object.values(fx.dbsize).reduce((x, y) => x + y, 0);
    // No key in both (a cluster's shards): one keyspace, answering as the first file's writer.
    await open([a, c]);
    await settled();
    assert.equal(await page.getAttribute('[data-testid=panel]', 'data-offline'), 'ready');
    const total = sum(fixture('redis-7.0.15-default')) + sum(fixture('valkey-9.1.2-cluster'));
    assert.match(await status(), new RegExp(`^2 files \\(a\\.rdb, …\\): ${total} keys in \\d+ databases`));
    assert.equal(await page.textContent('[data-testid=profile]'), 'answers as Redis 7.0.15, the writer of this snapshot');
    // Two snapshots of the same data set share keys: refused, naming a key and both files; the
    // panel keeps what it showed.
    await open([a, b]);
    await settled();
    assert.equal(await page.getAttribute('[data-testid=panel]', 'data-offline'), 'error');
    assert.match(await status(), /key .* of database \d+ is in both a\.rdb and b\.rdb/);
    assert.equal(await page.textContent('[data-testid=profile]'), 'answers as Redis 7.0.15, the writer of this snapshot');
    // A header of a version newer than any known: refused by the core, with its reason.
    const future = path.join(dir, 'future.rdb');
    writeFileSync(future, Buffer.concat([Buffer.from('REDIS0099'), Buffer.from([0xff])]));
    await open(future);
    await settled();
    assert.equal(await page.getAttribute('[data-testid=panel]', 'data-offline'), 'error');
    assert.match(await page.textContent('[data-testid=file-note]'), /^future\.rdb: .*99/);
    // The panel keeps the union.
    assert.match(await status(), /future\.rdb/);
    assert.equal(await page.textContent('[data-testid=profile]'), 'answers as Redis 7.0.15, the writer of this snapshot');
  });

  test('compat= in the URL: a known profile answers from the load on, an unknown one is named and not used', async () => {
    const file = path.join(FIXTURES, 'valkey-9.1.2-default.rdb');
    const p2 = await browser.newPage();
    p2.on('pageerror', (e) => pageErrors.push(e.message));
    for (const [compat, line, error] of [
      ['redis-6.0', 'answers as Redis 6.0 (--compat redis-6.0); written by Valkey 9.1.2', false],
      ['redis-9.9', 'answers as Valkey 9.1.2, the writer of this snapshot', true],
    ]) {
      await p2.goto(`${web.url}/?lang=en&compat=${compat}`);
      await p2.waitForSelector('[data-testid=panel][data-state=error]');
      await p2.setInputFiles('[data-testid=file-input]', file);
      await p2.waitForSelector('[data-testid=panel][data-offline=ready]');
      assert.equal(await p2.textContent('[data-testid=profile]'), line);
      assert.equal(await p2.inputValue('[data-testid=compat]'), error ? '' : compat);
      assert.equal(await p2.locator('[data-testid=param-error-compat]').count(), error ? 1 : 0);
      if (error) assert.match(await p2.textContent('[data-testid=param-error-compat]'), /^Parameter compat="redis-9\.9" ignored: unknown profile/);
    }
    await p2.close();
  });

  test('bytes handed to the page engine (the online path): every database, the selector switches the cards\' engine', async () => {
    const fx = fixture('valkey-9.1.2-default');
    const { page: p3 } = await openOfflinePanel(browser, web.url, { query: 'lang=en&cards=uv,active,keys', height: 720, errors: pageErrors });
    await p3.evaluate(async () => {
      const bytes = new Uint8Array(await (await fetch('/tests/data/fixtures/valkey-9.1.2-default.rdb')).arrayBuffer());
      await window.bitlensPanel.load(bytes);
    });
    await p3.waitForSelector('[data-testid=panel][data-state=ready]');
    const total = Object.values(fx.dbsize).reduce((a, b) => a + b, 0);
    assert.match(await p3.textContent('[data-testid=status]'), new RegExp(`^${total} keys in 3 databases loaded`));
    assert.deepEqual(await p3.$$eval('[data-testid=db] option', (o) => o.map((x) => x.value)), Object.keys(fx.dbsize));
    assert.equal(await p3.textContent('[data-testid=profile]'), 'answers as Valkey 9.1.2, the writer of this snapshot');
    // The cards read db 0: the day's bitmap popcount (value_hex recorded by the server).
    const active = fx.keys.find((k) => k.key === 'stats:active:20240502');
    const popcount = [...Buffer.from(active.value_hex, 'hex')].reduce((n, b) => n + b.toString(2).split('1').length - 1, 0);
    assert.equal(Number(await p3.getAttribute('[data-testid=active-day]', 'data-value')), popcount);
    await p3.selectOption('[data-testid=db]', '5');
    await p3.waitForFunction(() => document.querySelector('[data-testid=kb-summary]')?.dataset.db === '5');
    assert.deepEqual(await p3.$$eval('[data-testid=kb-row]', (r) => r.map((x) => x.dataset.key)), ['db5:bitmap', 'db5:list']);
    assert.equal(await p3.evaluate(async () => (await window.bitlensPanel.eng.call('info')).selected), 5);
    await p3.close();
  });

  test('zh labels for the new lines', async () => {
    const { page: p2 } = await openOfflinePanel(browser, web.url, { query: 'lang=zh', height: 720, errors: pageErrors });
    await openFile(p2, path.join(FIXTURES, 'valkey-9.1.2-default.rdb'));
    // The file is decoded (offline=ready) before the key browser has listed its keys: wait
    // for the listing (its summary carries the count) before reading its text.
    await p2.waitForFunction(() => document.querySelector('[data-testid=kb-summary]')?.dataset.total !== undefined);
    assert.equal(await p2.textContent('[data-testid=profile]'), '按 Valkey 9.1.2（本快照的写入者）应答');
    assert.match(await p2.textContent('[data-testid=clock]'), /^截至 .* UTC（快照时间）$/);
    assert.match(await p2.textContent('[data-testid=kb-summary]'), /^db 0 中 \d+ 个键匹配 \*$/);
    assert.equal(await p2.textContent('.kb-expired'), ' 显示已过期的键');
    await p2.close();
    assert.deepEqual(pageErrors, []);
  });
});
