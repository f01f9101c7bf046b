// The same error everywhere (issue 51, item 4), JavaScript's part: every case of the shared
// table tests/errors.json (read by the CLI's crates/cli/tests/errors.rs and Python's
// crates/python/tests/test_errors.py too) fails with an EngineError whose `code` is the
// table's, and whose `offset` is the table's when the table fixes one:
// - in Node: paths read by www/node-files.js (a missing path, a directory and a FIFO refused
//   there, the FIFO at once: the test fails after 20 s), the bytes loaded by the wasm engine's
//   loadRdbs (the file's name as `path`) and, for one file, loadRdb;
// - in Chromium: the same bytes loaded through the worker client (createEngine) and in-page
//   ({ worker: false }), each rejecting with an EngineError of the same code; the panel, given
//   the truncated file and the one with a bad checksum, words its status line by the code
//   (www/i18n.js errorWords).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ROOT, launchBrowser, openOfflinePanel, staticPanel, tempDir } from './harness.mjs';
import { staticServer } from './static-server.mjs';
import { Engine, initSync } from '../../pkg/bitlens.js';
import { EngineError } from '../../www/engine-error.js';
import { readSnapshotFiles } from '../../www/node-files.js';
import { labelsFor } from '../../www/i18n.js';

initSync({ module: readFileSync(path.join(ROOT, 'pkg/bitlens_bg.wasm')) });

const TABLE = JSON.parse(readFileSync(path.join(ROOT, 'tests/errors.json'), 'utf8'));
const SNAPSHOT = path.join(ROOT, TABLE.snapshot);
const SNAPSHOT_LEN = statSync(SNAPSHOT).size;

/** The paths of a case's input, made in `dir` as the table's `about` says. */
function makeInput(dir, input) {
  if (input.missing) return [path.join(dir, 'missing.rdb')];
  if (input.directory) {
    const d = path.join(dir, 'a-directory');
    mkdirSync(d);
    return [d];
  }
  if (input.fifo) {
    const f = path.join(dir, 'a-fifo');
    execFileSync('mkfifo', [f]);
    return [f];
  }
  let bytes;
  if (input.bytes_hex !== undefined) {
    bytes = Buffer.from(input.bytes_hex, 'hex');
  } else {
    assert.equal(input.from, 'snapshot');
    bytes = readFileSync(SNAPSHOT);
    if (input.keep !== undefined) bytes = bytes.subarray(0, input.keep);
    if (input.flip_last) bytes[bytes.length - 1] ^= 0xff;
  }
  const f = path.join(dir, 'input.rdb');
  writeFileSync(f, bytes);
  if (input.twice) return [f, f];
  return [f];
}

/** The table's offset for a case (`-8`: before the snapshot's end), or undefined. */
const wantOffset = (c) => (c.offset === undefined ? undefined : c.offset < 0 ? SNAPSHOT_LEN + c.offset : c.offset);

/** The error `f()` throws (or the promise it returns rejects with); fails when none. */
async function thrown(f) {
  try {
    await f();
  } catch (e) {
    return e;
  }
  assert.fail('no error');
}

const dir = tempDir('bitlens-errors-');
const inputs = TABLE.cases.map((c, i) => {
  const own = path.join(dir, String(i));
  mkdirSync(own);
  return { ...c, paths: makeInput(own, c.input) };
});

test('the table has the eight bad inputs', () => {
  assert.deepEqual(TABLE.cases.map((c) => c.name), [
    'missing path', 'directory', 'fifo', 'empty file', 'truncated file', 'random bytes', 'bad checksum', 'a key in two files',
  ]);
});

for (const c of inputs) {
  test(`Node: ${c.name} is an EngineError of code ${c.code}`, { timeout: 20000 }, async () => {
    const errors = [];
    const e = await thrown(async () => {
      const files = await readSnapshotFiles(c.paths);
      const one = () => new Engine().loadRdb(files[0].bytes);
      if (files.length === 1) errors.push(await thrown(one));
      new Engine().loadRdbs(files.map((f) => f.bytes), null, { names: files.map((f) => f.name) });
    });
    errors.push(e);
    for (const err of errors) {
      assert.ok(err instanceof EngineError, `${err}`);
      assert.ok(err instanceof Error);
      assert.equal(err.name, 'EngineError');
      assert.equal(err.code, c.code, err.message);
      assert.equal(err.kind, c.code);
      assert.equal(err.offset, wantOffset(c) ?? err.offset, err.message);
    }
    // loadRdbs and the path reader name the file; the duplicate, the second one.
    assert.equal(e.path, c.paths[c.paths.length - 1], e.message);
    if (c.code === 'duplicate-key') assert.equal(typeof e.key, 'string');
  });
}

let browser;
let server;
before(async () => {
  browser = await launchBrowser();
  server = await staticServer(ROOT);
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('Chromium: the worker client and the in-page engine reject with the same EngineError', { timeout: 120000 }, async () => {
  const byteCases = inputs.filter((c) => c.input.bytes_hex !== undefined || c.input.from);
  const sources = byteCases.map((c) => c.paths.map((p) => [...readFileSync(p)]));
  const page = await browser.newPage();
  try {
    await page.goto(server.url + '/');
    const out = await page.evaluate(async (sources) => {
      const { createEngine, EngineError } = await import('/www/engine-client.js');
      const results = [];
      for (const worker of [true, false]) {
        const eng = await createEngine({ worker });
        for (const files of sources) {
          const r = await eng.loadRdbs(files.map((b) => new Uint8Array(b)), { names: files.map((_, i) => `f${i}`) }).then(
            () => null,
            (e) => ({ isEngineError: e instanceof EngineError, name: e.name, code: e.code, offset: e.offset, path: e.path, message: e.message }),
          );
          results.push({ worker, ...r });
        }
        eng.terminate();
      }
      return results;
    }, sources);
    assert.equal(out.length, byteCases.length * 2);
    out.forEach((r, i) => {
      const c = byteCases[i % byteCases.length];
      assert.equal(r.isEngineError, true, JSON.stringify(r));
      assert.equal(r.name, 'EngineError');
      assert.equal(r.code, c.code, `${c.name} (worker ${r.worker}): ${r.message}`);
      assert.equal(r.offset, wantOffset(c) ?? r.offset, r.message);
      assert.equal(r.path, `f${c.paths.length - 1}`, r.message);
    });
  } finally {
    await page.close();
  }
});

test('the panel words a failed load by its code', { timeout: 180000 }, async () => {
  const words = labelsFor('en').errorWords;
  const panel = await staticPanel();
  const { page, errors } = await openOfflinePanel(browser, panel.url);
  try {
    for (const c of inputs.filter((x) => x.code === 'truncated' || x.code === 'checksum')) {
      await page.evaluate(() => {
        document.querySelector('[data-testid=panel]').dataset.offline = 'pending';
      });
      await page.setInputFiles('[data-testid=file-input]', c.paths[0]);
      await page.waitForSelector('[data-testid=panel][data-offline=error]', { timeout: 60000 });
      const status = await page.textContent('[data-testid=status]');
      assert.ok(status.startsWith(`Snapshot could not be loaded: ${words[c.code]}: `), `${c.name}: ${status}`);
    }
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
    await panel.close();
  }
});
