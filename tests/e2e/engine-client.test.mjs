// www/engine-client.js (the promise API over the wasm Engine, in a Web Worker or in-page) in
// headless Chromium: a snapshot loaded through the client answers every command exactly as the
// synchronous Engine does on the same bytes; sources (Uint8Array, ArrayBuffer, Blob, File), db
// selection, transfer instead of copy, engine errors, abort (AbortError, fresh empty worker).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, launchBrowser } from './harness.mjs';
import { staticServer } from './static-server.mjs';

const FIXTURE = 'tests/data/fixtures/redis-7.0.15-default.rdb';

/**
 * Runs in the page: loads the fixture into a sync Engine and into a client made by
 * createEngine(options), runs the same commands on both and returns both transcripts.
 */
async function compareInPage({ fixture, options }) {
  const { createEngine } = await import('/www/engine-client.js');
  const mod = await import('/pkg/bitlens.js');
  const wasm = await mod.default();
  const bytes = new Uint8Array(await (await fetch(fixture)).arrayBuffer());
  const sync = new mod.Engine();
  const eng = await createEngine(options);
  const plain = (v) => {
    if (ArrayBuffer.isView(v)) return { [v.constructor.name]: Array.from(v) };
    if (Array.isArray(v)) return v.map(plain);
    if (v instanceof Error) return { error: v.message };
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
    return v;
  };
  const syncRun = (f) => {
    try {
      return { ok: plain(f()) };
    } catch (e) {
      return { err: e.message, isError: e instanceof Error };
    }
  };
  const asyncRun = async (f) => {
    try {
      return { ok: plain(await f()) };
    } catch (e) {
      return { err: e.message, isError: e instanceof Error };
    }
  };
  const out = { sync: [], client: [] };
  /** sync[method](...args), failing as the client does for a method this build lacks. */
  const syncCall = (method, ...args) => {
    if (typeof sync[method] !== 'function') throw new Error(`bitlens Engine: no such method ${JSON.stringify(method)}`);
    return sync[method](...args);
  };

  // Load: same count; the Uint8Array's buffer is transferred (detached here), not copied.
  const mine = bytes.slice();
  out.syncCount = sync.loadRdb(bytes.slice());
  const progress = [];
  out.clientCount = await eng.loadRdb(mine, { onProgress: (d, t) => progress.push([d, t]) });
  out.progress = progress;
  out.total = bytes.length;
  out.detached = mine.buffer.byteLength === 0;

  // Commands derived from the keys, errors included.
  const argvs = [['DBSIZE'], ['BITCOUNT'], ['NOSUCHCOMMAND', 'x'], ['BITCOUNT', 'missing'],
    ['PFCOUNT', 'uv:page:index:20240501', 'uv:page:index:20240502'],
    ['BITOP', 'AND', 'dest', 'stats:active:20240501', 'stats:active:20240502'], ['BITCOUNT', 'dest'],
    ['GEOSEARCH', 'shop:geo:food', 'FROMLONLAT', '116.4', '39.9', 'BYRADIUS', '50', 'km', 'ASC', 'WITHDIST', 'WITHCOORD'],
    ['BITFIELD', 'sign:1001:202405', 'GET', 'u4', '#2', 'GET', 'i8', '3']];
  for (const k of sync.command(['KEYS', '*']).sort()) {
    const type = sync.command(['TYPE', k]);
    argvs.push(['TYPE', k], ['OBJECT', 'ENCODING', k]);
    if (type === 'string') {
      argvs.push(['STRLEN', k], ['BITCOUNT', k], ['BITCOUNT', k, '1', '-2', 'BIT'], ['BITPOS', k, '1'],
        ['BITPOS', k, '0'], ['GETBIT', k, '13'], ['PFCOUNT', k], ['GET', k]);
    } else if (type === 'zset') {
      argvs.push(['ZCARD', k], ['ZRANGE', k, '0', '3', 'WITHSCORES'], ['GEOHASH', k, 'a', 'nope'], ['BITCOUNT', k]);
    } else {
      argvs.push(['BITCOUNT', k], ['PFCOUNT', k]);
    }
  }
  for (const argv of argvs) {
    out.sync.push([argv, syncRun(() => sync.command(argv))]);
    out.client.push([argv, await asyncRun(() => eng.command(argv))]);
  }
  // commands(): the same commands in one batch give the same replies; an error rejects it.
  const okArgvs = argvs.filter((a, i) => !out.sync[i][1].isError);
  // (After the first pass, so the one write, BITOP into dest, gives the same state to both.)
  const got = await asyncRun(() => eng.commands(okArgvs));
  const want = [];
  for (const argv of okArgvs) want.push(await eng.command(argv));
  out.batch = { want, got };
  out.batchErr = await asyncRun(() => eng.commands([['DBSIZE'], ['BITCOUNT'], ['DBSIZE']]));
  // call(): other Engine methods, including binary results (transferred back).
  const calls = [['commandRaw', ['GET', 'str:binary']], ['commandResp', ['BITCOUNT', 'nosuch', 'x']],
    ['commandCli', ['ZRANGE', 'zset:small', '0', '-1']], ['dbsize'], ['exportRoaring', 'stats:active:20240501'],
    ['overview', ['uv:*'], ['uv:page:index:{date}', 'stats:active:{date}', 'shop:geo:{type}', 'none:{date}']],
    ['keyList', '*', 5], ['keyList', 'uv:*', 100], ['keyDetail', 'uv:page:index:20240502'],
    ['keyDetail', 'stats:active:20240501', { buckets: 16 }], ['keyDetail', 'shop:geo:cafe', { maxPoints: 3 }],
    ['keyDetail', 'hash:small'], ['keyDetail', 'missing'], ['noSuchMethod']];
  for (const [method, ...args] of calls) {
    out.sync.push([method, syncRun(() => syncCall(method, ...args))]);
    out.client.push([method, await asyncRun(() => eng.call(method, ...args))]);
  }

  // overview's counts and dates per template, as the panel's own globFor/capture read the
  // key names KEYS lists.
  const { capture, globFor } = await import('/www/util.js');
  out.overviewWant = [];
  for (const tpl of ['uv:page:index:{date}', 'stats:active:{date}', 'shop:geo:{type}', 'none:{date}']) {
    const names = await eng.command(['KEYS', globFor(tpl)]);
    const dates = [...new Set(names.map((k) => capture(tpl, k, 'date')).filter(Boolean))].sort();
    out.overviewWant.push({ template: tpl, keys: names.length, dates });
  }
  out.overviewInfo = await eng.call('info');
  out.overviewProfiles = await eng.call('profiles');

  // The client's keyList / keyDetail shortcuts are call('keyList' / 'keyDetail').
  out.shortcuts = [await asyncRun(() => eng.keyList('uv:*', 100)), await asyncRun(() => eng.keyDetail('uv:page:index:20240502'))];
  out.viaCall = [await asyncRun(() => eng.call('keyList', 'uv:*', 100)), await asyncRun(() => eng.call('keyDetail', 'uv:page:index:20240502'))];

  // DUMP payloads (recorded from Redis) and raw GET bytes, through the client and the sync Engine.
  const fromHex = (h) => new Uint8Array(h.match(/../g).map((x) => parseInt(x, 16)));
  const recorded = (await (await fetch(fixture.replace(/\.rdb$/, '.json'))).json()).keys.filter((k) => k.dump_hex).slice(0, 4);
  out.dumps = { sync: [], client: [] };
  for (const [i, k] of recorded.entries()) {
    const key = `restored:${i}`;
    out.dumps.sync.push(syncRun(() => syncCall('loadDump', key, fromHex(k.dump_hex), { ttlMs: 60000 })));
    out.dumps.client.push(await asyncRun(() => eng.loadDump(key, fromHex(k.dump_hex), { ttlMs: 60000 })));
    for (const argv of [['TYPE', key], ['OBJECT', 'ENCODING', key]]) {
      out.dumps.sync.push(syncRun(() => sync.command(argv)));
      out.dumps.client.push(await asyncRun(() => eng.command(argv)));
    }
    // The TTL (ttlMs) as keyList reports it: set, at most the 60 s given.
    const ttl = (list) => list.keys.length === 1 && list.keys[0].ttlMs > 0 && list.keys[0].ttlMs <= 60000;
    out.dumps.sync.push(syncRun(() => ttl(syncCall('keyList', key, 1))));
    out.dumps.client.push(await asyncRun(async () => ttl(await eng.keyList(key, 1))));
  }
  out.dumps.types = recorded.map((k) => k.type);
  out.dumps.sync.push(syncRun(() => syncCall('loadDump', 'bad', fromHex(recorded[0].dump_hex).slice(0, 5))));
  out.dumps.client.push(await asyncRun(() => eng.loadDump('bad', fromHex(recorded[0].dump_hex).slice(0, 5))));
  const raw = new Uint8Array([0xff, 0, 0x81]);
  out.dumps.sync.push(syncRun(() => syncCall('loadString', 'raw', raw.slice())), syncRun(() => sync.command(['BITCOUNT', 'raw'])));
  out.dumps.client.push(await asyncRun(() => eng.loadString('raw', raw.slice())), await asyncRun(() => eng.command(['BITCOUNT', 'raw'])));
  out.hasDump = typeof sync.loadDump === 'function';
  // Bytes in a buffer that cannot be transferred (a view of wasm memory) are copied instead.
  const view = new Uint8Array(wasm.memory.buffer, 0, 16);
  out.memView = [await asyncRun(() => eng.loadString('mem', view)), await asyncRun(() => eng.command(['STRLEN', 'mem'])), view.byteLength];

  // Other sources and db selection.
  out.dbSync = sync.loadRdb(bytes.slice(), 5);
  out.dbClient = await eng.loadRdb(bytes.slice().buffer, { db: 5 });
  out.db5Keys = (await eng.command(['KEYS', '*'])).sort();
  out.blobCount = await eng.loadRdb(new Blob([bytes]));
  out.fileCount = await eng.loadRdb(new File([bytes], 'dump.rdb'));
  out.keptCount = await eng.loadRdb(mine.buffer.byteLength ? mine : bytes, { transfer: false });
  out.keptBytes = bytes.buffer.byteLength;

  // Engine errors: the same message as the sync Engine throws.
  const bad = bytes.slice(0, 100);
  out.badSync = syncRun(() => new mod.Engine().loadRdb(bad.slice()));
  out.badClient = await asyncRun(() => eng.loadRdb(bad.slice()));
  out.afterBad = await eng.call('dbsize');
  out.detachedReuse = await asyncRun(() => eng.loadRdb(mine));

  // Abort right after the call: AbortError (a DOMException), then a fresh, empty engine.
  const ac = new AbortController();
  const pending = eng.loadRdb(new Blob([bytes]), { signal: ac.signal });
  ac.abort();
  out.abort = await pending.then(() => 'resolved', (e) => [e.name, e instanceof DOMException]);
  out.afterAbortSize = await eng.call('dbsize');
  out.afterAbortLoad = await eng.loadRdb(bytes.slice());
  out.afterAbortCmd = await eng.command(['PFCOUNT', 'uv:page:index:20240501']);
  out.syncPf = sync.loadRdb(bytes.slice()) && sync.command(['PFCOUNT', 'uv:page:index:20240501']);
  // With progress reports (engines that have them): abort from inside the load's first
  // progress callback, while the worker is still busy with it.
  if (mod.Engine.prototype.loadRdb.length >= 3) {
    const ac2 = new AbortController();
    const inFlight = eng.loadRdb(bytes.slice(), { signal: ac2.signal, onProgress: () => ac2.abort() });
    out.abortInFlight = await inFlight.then(() => 'resolved', (e) => e.name);
    out.afterInFlight = await eng.call('dbsize');
    out.afterInFlightLoad = await eng.loadRdb(bytes.slice());
  }
  // An already-aborted signal rejects at once and keeps the data.
  out.preAborted = await eng.loadRdb(bytes.slice(), { signal: AbortSignal.abort() }).then(() => 'resolved', (e) => e.name);
  out.afterPreAbort = await eng.call('dbsize');

  eng.terminate();
  out.afterTerminate = await asyncRun(() => eng.command(['DBSIZE']));
  out.worker = eng.worker;
  out.newApi = mod.Engine.prototype.loadRdb.length >= 3;
  return out;
}

describe('engine-client.js: the worker wrapper', { timeout: 300000 }, () => {
  let server;
  let browser;
  let page;
  const pageErrors = [];

  before(async () => {
    for (const f of ['pkg/bitlens.js', 'pkg/bitlens_bg.wasm', FIXTURE]) {
      if (!existsSync(path.join(ROOT, f))) throw new Error(`${f} is missing: run npm run build`);
    }
    server = await staticServer(ROOT, { '/': '<!doctype html><html><head><meta charset="utf-8"><title>engine-client</title></head><body></body></html>' });
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(server.url + '/');
  });

  after(async () => {
    if (browser) await browser.close().catch(() => {});
    if (server) await server.close();
  });

  for (const worker of [true, false]) {
    test(`createEngine({ worker: ${worker} }) answers as the sync Engine`, async () => {
      const out = await page.evaluate(compareInPage, { fixture: '/' + FIXTURE, options: { worker } });
      assert.equal(out.worker, worker);
      assert.equal(out.clientCount, out.syncCount);
      assert.equal(out.syncCount, 26);
      assert.ok(out.batch.want.length > 50, `${out.batch.want.length} commands in the batch`);
      assert.deepEqual(out.batch.got, { ok: out.batch.want });
      assert.deepEqual(out.batchErr, { err: "ERR wrong number of arguments for 'bitcount' command", isError: true });
      // Command by command, replies and errors identical to the sync Engine.
      assert.equal(out.client.length, out.sync.length);
      for (let i = 0; i < out.sync.length; i++) assert.deepEqual(out.client[i], out.sync[i]);
      const byArgv = new Map(out.client.map(([a, r]) => [JSON.stringify(a), r]));
      assert.deepEqual(byArgv.get('["DBSIZE"]'), { ok: 26 });
      assert.deepEqual(byArgv.get('["BITCOUNT"]'), { err: "ERR wrong number of arguments for 'bitcount' command", isError: true });
      assert.match(byArgv.get('["BITCOUNT","hash:small"]').err, /^WRONGTYPE /);
      assert.deepEqual(byArgv.get('"noSuchMethod"'), { err: 'bitlens Engine: no such method "noSuchMethod"', isError: true });
      assert.ok(byArgv.get('"commandRaw"').ok.Uint8Array.length > 0);
      assert.ok(byArgv.get('["PFCOUNT","uv:page:index:20240501"]').ok > 0);
      const overview = byArgv.get('"overview"').ok;
      assert.deepEqual(overview.templates, out.overviewWant);
      assert.deepEqual(overview.templates.map((c) => c.keys), [2, 2, 2, 0]);
      assert.deepEqual(overview.templates[0].dates, ['20240501', '20240502']);
      assert.deepEqual({ db: overview.db, info: overview.info, profiles: overview.profiles },
        { db: 0, info: out.overviewInfo, profiles: out.overviewProfiles });
      if (worker) {
        assert.equal(out.detached, true, 'the Uint8Array was transferred to the worker, not copied');
        assert.deepEqual(out.detachedReuse.isError, true);
        assert.match(out.detachedReuse.err, /detached/);
      } else {
        assert.equal(out.detached, false);
      }
      if (out.newApi) {
        // onProgress: done bytes never decrease and the last call reports the whole file.
        assert.ok(out.progress.length >= 1);
        assert.deepEqual(out.progress.at(-1), [out.total, out.total]);
        for (let i = 1; i < out.progress.length; i++) assert.ok(out.progress[i][0] >= out.progress[i - 1][0]);
      }
      // keyList / keyDetail shortcuts, DUMP payloads and raw strings as in the sync Engine.
      assert.deepEqual(out.shortcuts, out.viaCall);
      assert.deepEqual(out.dumps.client, out.dumps.sync);
      if (out.hasDump) {
        assert.deepEqual(out.shortcuts[0].ok.keys.map((k) => k.key), ['uv:page:index:20240501', 'uv:page:index:20240502']);
        assert.equal(out.shortcuts[1].ok.kind, 'hll');
        const types = out.dumps.client.filter((r, i) => i % 4 === 1).slice(0, out.dumps.types.length).map((r) => r.ok);
        assert.deepEqual(types, out.dumps.types, 'TYPE of each restored DUMP payload, as Redis recorded');
        assert.ok(out.dumps.client.filter((r, i) => i % 4 === 3).slice(0, out.dumps.types.length).every((r) => r.ok === true), 'ttlMs gives a PTTL');
        assert.equal(out.dumps.client.at(-3).isError, true, 'a truncated DUMP payload is an error');
        assert.deepEqual(out.dumps.client.at(-1), { ok: 10 });
        assert.equal(out.memView[0].err, undefined);
        assert.deepEqual(out.memView.slice(1), [{ ok: 16 }, 16]);
      }
      assert.equal(out.dbClient, out.dbSync);
      assert.equal(out.dbSync, 2);
      assert.deepEqual(out.db5Keys, ['db5:bitmap', 'db5:list']);
      assert.equal(out.blobCount, 26);
      assert.equal(out.fileCount, 26);
      assert.equal(out.keptCount, 26);
      assert.equal(out.keptBytes, out.total, 'transfer: false leaves the caller\'s bytes alone');
      // An engine error rejects with the engine's own message, and the data is kept.
      assert.equal(out.badClient.isError, true);
      assert.equal(out.badClient.err, out.badSync.err);
      assert.match(out.badClient.err, /offset/);
      assert.equal(out.afterBad, 26);
      // Abort: AbortError, then an empty engine that loads again.
      assert.deepEqual(out.abort, ['AbortError', true]);
      assert.equal(out.afterAbortSize, 0);
      assert.equal(out.afterAbortLoad, 26);
      assert.equal(out.afterAbortCmd, out.syncPf);
      if (out.newApi) {
        assert.equal(out.abortInFlight, 'AbortError');
        assert.equal(out.afterInFlight, 0);
        assert.equal(out.afterInFlightLoad, 26);
      }
      assert.equal(out.preAborted, 'AbortError');
      assert.equal(out.afterPreAbort, 26);
      assert.deepEqual(out.afterTerminate, { err: 'bitlens engine: terminated', isError: true });
      assert.deepEqual(pageErrors, []);
    });
  }

  for (const worker of [true, false]) {
    test(`createEngine({ worker: ${worker} }).loadRdbs: several files as one keyspace, as bitlens query --rdb A --rdb B`, async () => {
      const out = await page.evaluate(async ({ a, b, worker: w }) => {
        const { createEngine } = await import('/www/engine-client.js');
        const get = async (u) => new Uint8Array(await (await fetch(u)).arrayBuffer());
        const [ba, bb] = [await get(a), await get(b)];
        const eng = await createEngine({ worker: w });
        const size = async () => {
          let n = 0;
          for (const db of (await eng.call('info')).databases) n += db.keys;
          return n;
        };
        // Each file alone: its keys over every database.
        await eng.loadRdb(ba.slice());
        const alone = [await size()];
        await eng.loadRdb(bb.slice());
        alone.push(await size());
        const progress = [];
        const names = ['a.rdb', 'b.rdb'];
        // A Blob and bytes in one call.
        await eng.loadRdbs([new Blob([ba]), bb.slice()], { names, onProgress: (d, t, i) => progress.push([d, t, i]) });
        const union = await size();
        const files = await eng.files();
        const dup = await eng.loadRdbs([ba.slice(), ba.slice()], { names: ['a.rdb', 'again.rdb'] }).then(() => 'loaded', (e) => e.message);
        const kept = await size();
        await eng.loadRdbs([ba.slice(), ba.slice()], { onDuplicate: 'last' });
        const last = await size();
        const badName = await eng.loadRdbs([ba.slice(), bb.slice(0, 100)], { names }).then(() => 'loaded', (e) => e.message);
        await eng.loadRdb(bb.slice());
        const afterOne = await eng.files();
        eng.terminate();
        return { alone, union, files, dup, kept, last, badName, progress, afterOne, sizes: [ba.length, bb.length] };
      }, { a: '/' + FIXTURE, b: '/tests/data/fixtures/valkey-9.1.2-cluster.rdb', worker });
      // No key in both: the union holds both files' keys; each row holds its file's.
      const [na, nb] = out.alone;
      assert.ok(na > 20 && nb > 0, JSON.stringify(out.alone));
      assert.equal(out.union, na + nb);
      assert.deepEqual(out.files.map((f) => [f.name, f.keys]), [['a.rdb', na], ['b.rdb', nb]]);
      assert.ok(out.files.every((f) => f.memory > 0 && f.slotsUsed > 0 && f.slotFirst <= f.slotLast && /Redis|Valkey/.test(f.writer)), JSON.stringify(out.files));
      assert.match(out.dup, /^cannot load RDB snapshots: key .* of database \d+ is in both a\.rdb and again\.rdb \((\d+) copies of keys repeat an earlier file's\); onDuplicate/);
      assert.equal(Number(/\((\d+) copies/.exec(out.dup)[1]), na);
      assert.equal(out.kept, na + nb, 'a refused load keeps what the engine held');
      assert.equal(out.last, na);
      assert.match(out.badName, /^cannot load RDB snapshot b\.rdb at byte offset \d+: truncated/);
      // Progress per file: each file's last call reports its whole size, under its index.
      for (const i of [0, 1]) assert.deepEqual(out.progress.filter((p) => p[2] === i).at(-1), [out.sizes[i], out.sizes[i], i]);
      assert.deepEqual(out.afterOne, [], 'files() is empty after a one-file load');
    });
  }

  for (const worker of [true, false]) {
    test(`createEngine({ worker: ${worker} }).side(name): a second engine in the same worker, its keys apart`, async () => {
      const out = await page.evaluate(async ({ a, b, worker: w }) => {
        const { createEngine } = await import('/www/engine-client.js');
        const get = async (u) => new Uint8Array(await (await fetch(u)).arrayBuffer());
        const eng = await createEngine({ worker: w });
        const spawns = () => performance.getEntriesByName('bitlens-worker-spawn').length;
        const spawned = spawns();
        const keys = async (e) => (await e.command(['KEYS', '*'])).sort();
        await eng.loadRdb(await get(a));
        const mainKeys = await keys(eng);
        const side = eng.side('key-1');
        const emptyAtFirst = await side.command(['DBSIZE']);
        // Downloaded and decoded by the side engine (the worker's loadUrl), not the main one.
        const loaded = await side.loadUrl(b);
        const sideKeys = await keys(side);
        const mainAfter = await keys(eng);
        const other = eng.side('key-2');
        await other.loadRdb(await get(a));
        const otherSize = await other.command(['DBSIZE']);
        // Freeing a side engine leaves the others; calling it again makes an empty one.
        side.terminate();
        const sideAgain = await side.command(['DBSIZE']);
        const stillMain = await keys(eng);
        const stillOther = await other.command(['DBSIZE']);
        const badSide = await other.loadRdb((await get(a)).slice(0, 100)).then(() => 'loaded', (e) => [e.message, e.kind]);
        const afterBad = [await other.command(['DBSIZE']), (await keys(eng)).length];
        const workersStarted = spawns() - spawned;
        eng.terminate();
        return { workersStarted, mainKeys, emptyAtFirst, loaded, sideKeys, mainAfter, otherSize, sideAgain, stillMain, stillOther, badSide, afterBad };
      }, { a: '/' + FIXTURE, b: '/tests/data/fixtures/valkey-9.1.2-cluster.rdb', worker });
      assert.ok(out.mainKeys.length > 20);
      assert.equal(out.emptyAtFirst, 0);
      assert.equal(out.loaded.keys, out.sideKeys.length);
      assert.ok(out.sideKeys.length > 0 && out.sideKeys.every((k) => !out.mainKeys.includes(k)), 'the fixtures share no key');
      assert.deepEqual(out.mainAfter, out.mainKeys, 'the side engine\'s load left the main engine\'s keys');
      assert.equal(out.otherSize, out.mainKeys.length);
      assert.equal(out.sideAgain, 0);
      assert.deepEqual(out.stillMain, out.mainKeys);
      assert.equal(out.stillOther, out.mainKeys.length);
      assert.match(out.badSide[0], /^cannot load RDB snapshot at byte offset \d+: truncated/);
      assert.equal(out.badSide[1], 'truncated');
      assert.deepEqual(out.afterBad, [out.mainKeys.length, out.mainKeys.length], 'a failed side load keeps what each engine held');
      assert.equal(out.workersStarted, 0, 'the side engines run in the main engine\'s worker');
    });
  }

  test('engine-client.js loaded from another origin (a CDN) still runs its worker', async () => {
    // The modules and the wasm come from a second server with CORS; a worker script must be
    // same-origin, so the client falls back to a same-origin blob worker importing it.
    const cdn = await staticServer(ROOT, {}, { cors: true });
    const p = await browser.newPage();
    const errors = [];
    p.on('pageerror', (e) => errors.push(e.message));
    try {
      await p.goto(server.url + '/');
      const out = await p.evaluate(async ({ cdnUrl, fixture }) => {
        const { createEngine } = await import(`${cdnUrl}/www/engine-client.js`);
        const eng = await createEngine();
        const bytes = new Uint8Array(await (await fetch(fixture)).arrayBuffer());
        const n = await eng.loadRdb(new Blob([bytes]));
        const r = [eng.worker, n, await eng.command(['TYPE', 'uv:page:index:20240501']), await eng.command(['BITCOUNT', 'stats:active:20240501'])];
        eng.terminate();
        return r;
      }, { cdnUrl: cdn.url, fixture: '/' + FIXTURE });
      assert.deepEqual(out.slice(0, 3), [true, 26, 'string']);
      // BITCOUNT = popcount of the bytes Redis recorded for the key.
      const rec = JSON.parse(readFileSync(path.join(ROOT, FIXTURE.replace(/\.rdb$/, '.json')), 'utf8'))
        .keys.find((k) => Buffer.from(k.key_hex, 'hex').toString() === 'stats:active:20240501');
      const popcount = [...Buffer.from(rec.value_hex, 'hex')].reduce((a, b) => a + b.toString(2).replaceAll('0', '').length, 0);
      assert.ok(popcount > 0);
      assert.equal(out[3], popcount);
      assert.ok(cdn.requests.includes('/www/engine-worker.js') && cdn.requests.includes('/pkg/bitlens_bg.wasm'), cdn.requests.join(' '));
      assert.deepEqual(errors, []);
    } finally {
      await p.close();
      await cdn.close();
    }
  });

  test('a wrong wasmUrl rejects createEngine with a clear error', async () => {
    for (const worker of [true, false]) {
      // A fresh page: the in-page wasm module is instantiated once per page.
      const p = await browser.newPage();
      await p.goto(server.url + '/');
      const msg = await p.evaluate(async (w) => {
        const { createEngine } = await import('/www/engine-client.js');
        return createEngine({ worker: w, wasmUrl: '/nowhere/bitlens_bg.wasm' }).then(() => 'resolved', (e) => e.message);
      }, worker);
      await p.close();
      assert.notEqual(msg, 'resolved');
      if (worker) assert.match(msg, /^bitlens engine worker: cannot load the wasm module: /);
      else assert.ok(msg.length > 0);
    }
  });
});
