// The packed npm tarball used from Node (no browser, no bundler): a throw-away project
// `npm install`s dist/bitlens-<version>.tgz offline, and a plain Node script imports `bitlens`,
// calls `init()` with no argument (the wasm is read from beside the module, since Node's fetch
// cannot load file: URLs), loads the Redis 7.0.15 fixture and must answer what that Redis
// answered (recorded in the fixture's JSON). `command()` given a string instead of an argv
// array is a TypeError, not a command named after its first character.

import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, installPackedPackage } from './harness.mjs';

const FIXTURE = path.join(ROOT, 'tests/data/fixtures/redis-7.0.15-default');

const SCRIPT = `import init, { Engine, snapshotInfo } from 'bitlens';
import { readFileSync } from 'node:fs';
const bytes = new Uint8Array(readFileSync('./dump.rdb'));
const expect = JSON.parse(readFileSync('./dump.json', 'utf8'));
await init();
const e = new Engine();
const out = { loaded: e.loadRdb(bytes.slice()), dbsize: e.dbsize(), strings: {}, info: snapshotInfo(bytes.slice(0, 64)) };
const hex = (u8) => Array.from(u8, (b) => b.toString(16).padStart(2, '0')).join('');
for (const k of expect.keys) {
  if (k.db !== 0 || k.type !== 'string' || k.value_hex === undefined) continue;
  out.strings[k.key_hex] = hex(e.commandRaw(['GET', Buffer.from(k.key_hex, 'hex').toString()]));
}
for (const arg of ['BITCOUNT str:short', 42, null]) {
  try { e.command(arg); out['bad' + String(arg)] = 'no error'; }
  catch (err) { out['bad' + String(arg)] = { name: err.name, message: err.message }; }
}
console.log(JSON.stringify(out));
`;

describe('the npm package in Node', { timeout: 300000 }, () => {
  let project;
  before(() => {
    ({ project } = installPackedPackage('node-app'));
    copyFileSync(FIXTURE + '.rdb', path.join(project, 'dump.rdb'));
    copyFileSync(FIXTURE + '.json', path.join(project, 'dump.json'));
    writeFileSync(path.join(project, 'main.mjs'), SCRIPT);
  });

  test('init() with no argument, then the Redis 7.0.15 answers', () => {
    const out = JSON.parse(execFileSync('node', ['main.mjs'], { cwd: project, encoding: 'utf8' }));
    const expect = JSON.parse(readFileSync(FIXTURE + '.json', 'utf8'));
    assert.equal(out.loaded, expect.dbsize['0']);
    assert.equal(out.dbsize, expect.dbsize['0']);
    const strings = expect.keys.filter((k) => k.db === 0 && k.type === 'string' && k.value_hex !== undefined);
    assert.ok(strings.length >= 3, 'the fixture has string keys');
    for (const k of strings) assert.equal(out.strings[k.key_hex], k.value_hex, k.key_hex);
    for (const bad of ['BITCOUNT str:short', '42', 'null']) {
      assert.equal(out['bad' + bad].name, 'TypeError', bad);
      assert.match(out['bad' + bad].message, /argv must be an array of arguments/, bad);
    }
  });
});
