// The npm package end to end: scripts/package.sh builds dist/bitlens-<version>.tgz (`npm pack`);
// a throw-away plain HTML/JS project in a temp dir `npm install`s that tarball (offline, from the
// file), a plain static server (not `bitlens serve`) serves the project, and headless Chromium
// imports the package through an import map (no bundler): the synchronous Engine, the worker
// client and <bitlens-panel> load a Redis 7.0.15 RDB fixture and must answer what that Redis
// answered (recorded in the fixture's JSON). A TypeScript consumer of the installed package is
// type-checked with `tsc --noEmit`; its `@ts-expect-error` lines must not compile (so loose
// `any` declarations would fail the check).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, artifact, installPackedPackage, launchBrowser } from './harness.mjs';
import { staticServer } from './static-server.mjs';

const FIXTURE = path.join(ROOT, 'tests/data/fixtures/redis-7.0.15-default');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

const INDEX_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>host app</title>
<script type="importmap">
{ "imports": {
  "bitlens": "./node_modules/bitlens/index.js",
  "bitlens/client": "./node_modules/bitlens/www/engine-client.js",
  "bitlens/panel": "./node_modules/bitlens/www/bitlens-panel.js",
  "bitlens/charts": "./node_modules/bitlens/pkg/bitlens_charts.js"
} }
</script>
<script type="module" src="./app.js"></script>
</head><body><h1>Host app</h1><div id="widgets"></div></body></html>
`;

// The host app's own script: plain JavaScript using the package by its bare name.
const APP_JS = `import init, { Engine, EngineError, createEngine } from 'bitlens';
import { createEngine as createFromClient } from 'bitlens/client';
import 'bitlens/panel';
import initCharts, { dauChart } from 'bitlens/charts';

const hex = (u8) => Array.from(u8, (b) => b.toString(16).padStart(2, '0')).join('');
// A rejection's message and name, and the engine's kind, offset and key when it gives them.
const settle = (p) => p.then((ok) => ({ ok }), (e) => {
  const out = { err: e.message, name: e.name, isEngineError: e instanceof EngineError };
  for (const k of ['code', 'kind', 'offset', 'key']) if (e[k] !== undefined) out[k] = e[k];
  return out;
});

async function main() {
  const res = await fetch('./data/dump.rdb');
  const bytes = new Uint8Array(await res.arrayBuffer());
  const expect = await (await fetch('./data/dump.json')).json();
  const out = { sameFactory: createEngine === createFromClient, strings: {}, zsets: {}, dbsize: {} };

  // The synchronous API.
  await init();
  const sync = new Engine();
  out.syncLoaded = sync.loadRdb(bytes.slice());
  out.syncTypes = Object.fromEntries(sync.command(['KEYS', '*']).sort().map((k) => [k, sync.command(['TYPE', k])]));

  // The chart module draws the numbers it is given (no engine of its own).
  await initCharts();
  const chart = dauChart(['2024-05-01', '2024-05-02', '2024-05-03'], [3, 5, 4], [3, 6, 7], [3, 6, 7], 'DAU', { width: 640, height: 320 });
  out.chart = { width: chart.width, points: chart.points.length / 4, hasDate: chart.svg.includes('2024-05-02'), svgTag: chart.svg.trimStart().startsWith('<svg') };

  // The worker client, given a Blob (read inside the worker).
  const eng = await createEngine();
  out.worker = eng.worker;
  for (const db of Object.keys(expect.dbsize)) {
    out.dbsize[db] = await eng.loadRdb(new Blob([bytes]), { db: Number(db) });
  }
  out.loaded = await eng.loadRdb(bytes.slice(), { db: 0 });
  for (const k of expect.keys) {
    if (k.db !== 0) continue;
    const name = new TextDecoder().decode(new Uint8Array(k.key_hex.match(/../g).map((h) => parseInt(h, 16))));
    if (k.type === 'string' && k.value_hex !== undefined) {
      const raw = await eng.call('commandRaw', ['GET', name]);
      out.strings[name] = { value_hex: hex(raw), strlen: await eng.command(['STRLEN', name]) };
    }
    if (k.type === 'zset' && k.zrange) {
      out.zsets[name] = await eng.command(['ZRANGE', name, '0', '-1', 'WITHSCORES']);
    }
  }
  out.activeCount = await eng.command(['BITCOUNT', 'stats:active:20240502']);
  out.wrongType = await settle(eng.command(['PFCOUNT', 'str:short']));
  out.badFile = await settle(eng.loadRdb(bytes.slice(0, 64)));
  const ac = new AbortController();
  const aborted = settle(eng.loadRdb(new Blob([bytes]), { signal: ac.signal }));
  ac.abort();
  out.aborted = await aborted;
  out.afterAbort = await eng.command(['DBSIZE']);
  eng.terminate();
  // An explicit wasmUrl, relative to the page, in both modes.
  for (const worker of [true, false]) {
    const e2 = await createEngine({ worker, wasmUrl: './node_modules/bitlens/pkg/bitlens_bg.wasm' });
    out['explicit' + worker] = [e2.worker, await e2.loadRdb(bytes.slice(), { db: 5 }), (await e2.command(['KEYS', '*'])).sort()];
    e2.terminate();
  }

  // The widget, handed the snapshot bytes directly (no API).
  const el = document.createElement('bitlens-panel');
  el.setAttribute('api', 'http://127.0.0.1:9/none');
  el.setAttribute('cards', 'active');
  el.setAttribute('date', '20240502');
  el.setAttribute('lang', 'zh');
  const loaded = new Promise((r) => el.addEventListener('bitlens-loaded', (e) => r(e.detail), { once: true }));
  el.snapshot = bytes.slice();
  document.getElementById('widgets').append(el);
  out.widgetLoaded = await loaded;
  const cell = el.shadowRoot.querySelector('[data-testid=active-day]');
  out.widgetActive = cell ? Number(cell.dataset.value) : null;
  out.widgetTitle = el.shadowRoot.querySelector('[data-testid=card-active] h2')?.textContent;
  return out;
}

main().then((r) => { window.result = r; }, (e) => { window.result = { fatal: String(e && e.stack || e) }; });
`;

// A TypeScript consumer of the installed package (checked with tsc --noEmit).
const MAIN_TS = `import init, { Engine, EngineError, createEngine, readSnapshotFiles, type KeyDetail, type Reply, type EngineClient } from 'bitlens';
import { createEngine as fromClient } from 'bitlens/client';
import 'bitlens/panel';
import initCharts, { dauChart, type Chart } from 'bitlens/charts';
import type { BitlensPanel, BitlensLoadedDetail } from 'bitlens/panel';

export async function run(file: File): Promise<void> {
  await init();
  const e = new Engine();
  const n: number = e.loadRdb(new Uint8Array(0), 0, { patterns: ['uv:*'], onProgress: (d: number, t: number) => console.log(d / t) });
  const r: Reply = e.command(['PFCOUNT', 'k', 3]);
  const o = e.overview(['uv:*'], ['uv:{date}']);
  const days: string[] = o.templates[0].dates;
  const firstDb: number = o.db;
  try {
    e.loadRdbs((await readSnapshotFiles(['a.rdb'])).map((f) => f.bytes));
  } catch (err) {
    const where: string | undefined = err instanceof EngineError && err.code === 'truncated' ? err.path : undefined;
    console.log(where, err instanceof EngineError ? err.offset : 0);
  }
  const eg = e.engagement(['a', 'b']);
  const dau: number[] = eg.dau;
  const client: EngineClient = await createEngine({ worker: true, wasmUrl: '/wasm/bitlens_bg.wasm' });
  const keys: number = await client.loadRdb(file, { db: 0, checksum: false, signal: new AbortController().signal, onProgress: (done, total) => console.log(done, total) });
  const list = await client.keyList('*', 10);
  const first: string = list.keys[0].key;
  const ttl: number | null = list.keys[0].ttlMs;
  const d: KeyDetail | null = await client.keyDetail(first, { buckets: 64 });
  if (d && d.kind === 'hll') console.log(d.registerHistogram.length, d.hllEncoding);
  if (d && d.kind === 'geo') console.log(d.bbox[0], d.points[0].lat);
  const loaded: { keys: number; bytes: number } = await client.load([file, new Uint8Array(0)], { names: ['a', 'b'] });
  await initCharts();
  const chart: Chart = dauChart(eg.labels, eg.dau, eg.wau, eg.mau, 'DAU', { width: 640, height: 320, colors: { dau: '#123456' } });
  const svg: string = chart.svg;
  const points: Float64Array = chart.points;
  await client.loadDump('k', new Uint8Array(1), { ttlMs: 1000, transfer: false });
  await client.loadString('s', new ArrayBuffer(4));
  // @ts-expect-error a number is not an RDB source
  await client.loadRdb(42);
  // @ts-expect-error the chart module draws no engine's keys: it takes the numbers
  dauChart(['a'], 'DAU');
  // @ts-expect-error no such engine method
  await client.call('noSuchMethod');
  // @ts-expect-error wrong argument type for overview
  await client.call('overview', null, 3);
  // @ts-expect-error command results are replies, not Uint8Array
  const bad: Uint8Array = await client.command(['GET', 'k']);
  const el = document.createElement('bitlens-panel');
  const panel: BitlensPanel = el;
  panel.uvKey = 'uv:page:index:{date}';
  panel.snapshot = new Uint8Array(8);
  panel.addEventListener('bitlens-loaded', (ev) => {
    const detail: BitlensLoadedDetail = ev.detail;
    console.log(detail.keys + detail.bytes);
  });
  // @ts-expect-error the theme is a string attribute
  panel.theme = 3;
  client.terminate();
  await fromClient({ worker: false });
  console.log(n, r, days, firstDb, dau, keys, ttl, loaded, svg, points, bad);
}
`;

// The raw wasm-bindgen module (its declarations use Symbol.dispose: ESNext lib).
const RAW_TS = `import initRaw, { Engine } from 'bitlens/wasm';
export async function raw(): Promise<number> {
  await initRaw();
  using e = new Engine();
  return e.dbsize();
}
`;

function tsconfig(files, lib) {
  return JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', lib, strict: true, noEmit: true, skipLibCheck: false, types: [] },
    files,
  });
}

describe('the npm package in a plain HTML/JS project', { timeout: 300000 }, () => {
  let project;
  let tarball;
  let server;
  let browser;

  before(() => {
    ({ project, tarball } = installPackedPackage('host-app'));
    mkdirSync(path.join(project, 'data'));
    copyFileSync(FIXTURE + '.rdb', path.join(project, 'data/dump.rdb'));
    copyFileSync(FIXTURE + '.json', path.join(project, 'data/dump.json'));
    writeFileSync(path.join(project, 'index.html'), INDEX_HTML);
    writeFileSync(path.join(project, 'app.js'), APP_JS);
    writeFileSync(path.join(project, 'main.ts'), MAIN_TS);
    writeFileSync(path.join(project, 'raw.ts'), RAW_TS);
  });

  after(async () => {
    if (browser) await browser.close().catch(() => {});
    if (server) await server.close();
  });

  test('the tarball is a complete, installable package', () => {
    const installed = path.join(project, 'node_modules/bitlens');
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
    assert.equal(manifest.name, 'bitlens');
    assert.equal(manifest.type, 'module');
    assert.match(manifest.version, /^\d+\.\d+\.\d+/);
    assert.equal(path.basename(tarball), `bitlens-${manifest.version}.tgz`);
    assert.deepEqual(Object.keys(manifest.exports).sort(), ['.', './bitlens_bg.wasm', './bitlens_charts_bg.wasm', './charts', './client', './package.json', './panel', './wasm', './worker']);
    for (const [sub, target] of Object.entries(manifest.exports)) {
      for (const file of typeof target === 'string' ? [target] : Object.values(target)) {
        assert.ok(existsSync(path.join(installed, file)), `${sub} -> ${file} is missing`);
      }
    }
    assert.ok(existsSync(path.join(installed, manifest.types)));
    // The wasm installed is the one built.
    for (const wasm of ['pkg/bitlens_bg.wasm', 'pkg/bitlens_charts_bg.wasm']) {
      assert.equal(statSync(path.join(installed, wasm)).size, statSync(path.join(ROOT, wasm)).size, wasm);
    }
    const readme = readFileSync(path.join(installed, 'README.md'), 'utf8');
    assert.match(readme, /createEngine/);
    assert.ok(!existsSync(path.join(installed, 'www/app.js')), 'the demo app is not packaged');
  });

  test('tsc --noEmit accepts a TypeScript consumer and rejects wrong calls', () => {
    writeFileSync(path.join(project, 'tsconfig.json'), tsconfig(['main.ts'], ['ES2022', 'DOM', 'DOM.Iterable']));
    writeFileSync(path.join(project, 'tsconfig.raw.json'), tsconfig(['raw.ts'], ['ESNext', 'DOM']));
    for (const cfg of ['tsconfig.json', 'tsconfig.raw.json']) {
      try {
        execFileSync(process.execPath, [TSC, '--noEmit', '-p', cfg], { cwd: project, encoding: 'utf8' });
      } catch (e) {
        assert.fail(`tsc -p ${cfg}:\n${e.stdout}${e.stderr}`);
      }
    }
  });

  test('the installed package answers as Redis 7.0.15 did, in Chromium', async () => {
    const expect = JSON.parse(readFileSync(FIXTURE + '.json', 'utf8'));
    server = await staticServer(project);
    browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 900, height: 700 } });
    const pageErrors = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${server.url}/index.html`);
    await page.waitForFunction(() => window.result, null, { timeout: 120000 });
    const out = await page.evaluate(() => window.result);
    await page.screenshot({ path: artifact('npm-package-host.png'), fullPage: true });
    assert.equal(out.fatal, undefined, out.fatal);
    assert.equal(out.sameFactory, true);
    assert.equal(out.worker, true);

    // Key counts per database, as Redis' DBSIZE.
    for (const [db, n] of Object.entries(expect.dbsize)) assert.equal(out.dbsize[db], n, `db ${db}`);
    assert.equal(out.syncLoaded, expect.dbsize['0']);
    assert.equal(out.loaded, expect.dbsize['0']);
    const dec = (h) => Buffer.from(h, 'hex').toString('utf8');
    const db0 = expect.keys.filter((k) => k.db === 0);
    // TYPE of every key, as Redis recorded it.
    for (const k of db0) assert.equal(out.syncTypes[dec(k.key_hex)], k.type, dec(k.key_hex));
    // GET / STRLEN of every string, ZRANGE WITHSCORES of every sorted set, through the worker.
    let strings = 0;
    let zsets = 0;
    for (const k of db0) {
      const name = dec(k.key_hex);
      if (k.type === 'string' && k.value_hex !== undefined) {
        assert.equal(out.strings[name].value_hex, k.value_hex, `GET ${name}`);
        if (k.strlen !== undefined) assert.equal(out.strings[name].strlen, k.strlen, `STRLEN ${name}`);
        strings++;
      }
      if (k.type === 'zset' && k.zrange) {
        const flat = k.zrange.flatMap(([m, s]) => [Buffer.from(m, 'hex').toString('utf8'), s]);
        assert.deepEqual(out.zsets[name], flat, `ZRANGE ${name}`);
        zsets++;
      }
    }
    assert.ok(strings >= 5 && zsets >= 2, `${strings} strings, ${zsets} zsets checked`);
    // Errors: Redis' WRONGTYPE text; a truncated file names the offset.
    // The worker's errors are EngineErrors again (the package's class), code, offset and key kept.
    assert.deepEqual(out.wrongType, { err: 'WRONGTYPE Key is not a valid HyperLogLog string value.', name: 'EngineError', isEngineError: true, code: 'reply', kind: 'reply' });
    assert.equal(out.badFile.code, 'truncated');
    assert.equal(out.badFile.isEngineError, true);
    assert.equal(typeof out.badFile.offset, 'number');
    assert.match(out.badFile.err, new RegExp(`offset ${out.badFile.offset}\\b`));
    assert.equal(out.aborted.name, 'AbortError');
    assert.equal(out.afterAbort, 0);
    assert.deepEqual(out.explicittrue, [true, 2, ['db5:bitmap', 'db5:list']]);
    assert.deepEqual(out.explicitfalse, [false, 2, ['db5:bitmap', 'db5:list']]);

    // The widget shows BITCOUNT of the day's bitmap (popcount of the bytes Redis recorded).
    const active = db0.find((k) => dec(k.key_hex) === 'stats:active:20240502');
    const popcount = [...Buffer.from(active.value_hex, 'hex')].reduce((s, b) => s + b.toString(2).split('1').length - 1, 0);
    assert.ok(popcount > 0);
    assert.equal(out.activeCount, popcount);
    assert.equal(out.widgetActive, popcount);
    // The chart module, by its bare name: one point per day of the DAU line.
    assert.deepEqual(out.chart, { width: 640, points: 3, hasDate: true, svgTag: true });
    // Every database is loaded (keys counts all of them); the cards read db 0, where their keys are.
    assert.equal(out.widgetLoaded.keys, Object.values(expect.dbsize).reduce((a, b) => a + b, 0));
    assert.equal(out.widgetLoaded.db, 0);
    assert.deepEqual(out.widgetLoaded.databases.map((d) => [String(d.db), d.keys]), Object.entries(expect.dbsize));
    assert.equal(out.widgetTitle, '活跃用户');

    // Everything came from the installed package, over the plain static server.
    for (const f of ['/node_modules/bitlens/index.js', '/node_modules/bitlens/www/engine-worker.js', '/node_modules/bitlens/pkg/bitlens_bg.wasm', '/node_modules/bitlens/www/bitlens-panel.js']) {
      assert.ok(server.requests.includes(f), `${f} was not requested: ${server.requests.join(' ')}`);
    }
    assert.deepEqual(pageErrors, []);
  });
});
