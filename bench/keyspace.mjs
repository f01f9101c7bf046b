// The keyspace-memory rows of `npm run bench` (issue 31): how much memory a loaded snapshot
// takes in bitlens against what Redis itself needs for the same data, in the same run.
//
// Files:
// - the key-heavy file: 3,000,000 small keys (2M strings, 500k 5-field hashes, 200k sets,
//   200k zsets, 100k lists, every tenth key with a TTL; `bitlens-bench keyheavy-resp`) that
//   redis-server itself writes: the commands go through `redis-cli --pipe`, then SAVE;
// - the 1,000,000 × 100-byte string file (`bitlens-bench gen-small`, bench/run.mjs).
//
// Redis: `used_memory` of a redis-server that has just loaded the file (and its "DB loaded
// from disk" time). bitlens native: `bitlens query --rdb FILE DBSIZE`, wall time and the
// process' peak RSS (`ru_maxrss` of the child), with all cores and with `--threads 1`.
// bitlens wasm: a fresh Node process pushes the file in 4 MiB pieces through `RdbStream`, its
// size announced first (as the panel's worker does, so the file itself never sits in wasm
// memory and the keyspace is sized once) and reports the wasm memory's size once loaded, and
// the time.
//
// Run alone: `node bench/keyspace.mjs` (after `cargo build --release -p bitlens-cli -p
// bitlens-bench`, `npm run build` and one `npm run bench` for small.rdb); bench/run.mjs calls
// `keyspaceSection()`.

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { measured } from './measure.mjs';
import { cli, freePort } from './redis.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GEN = path.join(ROOT, 'target/release/bitlens-bench');
const BITLENS = path.join(ROOT, 'target/release/bitlens');
const DATA_DIR = path.join(ROOT, 'target/bench-data');
const KEYHEAVY = path.join(DATA_DIR, 'keyheavy.rdb');
const KEYHEAVY_KEYS = 3_000_000;

/** Starts redis-server in `dir` on `dbfilename` (loading it when present); waits for PING. */
async function startRedis(dir, dbfilename) {
  const port = await freePort();
  const log = path.join(dir, `${dbfilename}.log`);
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir,
    '--dbfilename', dbfilename, '--save', '', '--appendonly', 'no', '--logfile', log], { stdio: 'ignore' });
  for (let i = 0; ; i++) {
    const r = spawnSync('redis-cli', ['-p', String(port), 'PING']);
    if (r.stdout && r.stdout.toString().trim() === 'PONG') break;
    if (i > 1200) {
      redis.kill('SIGKILL');
      throw new Error(`redis-server did not start on ${dbfilename} within 120 s`);
    }
    await new Promise((res) => setTimeout(res, 100));
  }
  return { redis, port, log };
}

/** Writes the key-heavy file (or, with `shard` `I/K`, the keys of node I of a K-node cluster)
 * with redis-server itself, as `out` (made once; kept in target/bench-data); returns its key
 * count. */
async function makeKeyheavy(dir, out = KEYHEAVY, shard = undefined) {
  const countFile = `${out}.keys`;
  if (existsSync(out) && existsSync(countFile) && statSync(out).mtimeMs >= statSync(GEN).mtimeMs) {
    return Number(readFileSync(countFile, 'utf8'));
  }
  console.log(`[bench] writing ${path.basename(out)} (${KEYHEAVY_KEYS.toLocaleString('en-US')} keys${shard ? `, shard ${shard}` : ''} through redis-cli --pipe, then SAVE)`);
  const { redis, port } = await startRedis(dir, 'keyheavy-new.rdb');
  let n;
  try {
    const cmds = execFileSync(GEN, ['keyheavy-resp', String(KEYHEAVY_KEYS), ...(shard ? [shard] : [])], { maxBuffer: 1 << 30 });
    cli(port, ['--pipe'], cmds);
    n = Number(cli(port, ['DBSIZE']).trim());
    if (!shard && n !== KEYHEAVY_KEYS) throw new Error(`keyheavy: the server holds ${n} keys`);
    cli(port, ['SAVE']);
  } finally {
    redis.kill('SIGKILL');
  }
  renameSync(path.join(dir, 'keyheavy-new.rdb'), out);
  writeFileSync(countFile, String(n));
  return n;
}

/** The key-heavy file's path and key count, written first when missing or older than the
 * generator (redis-server does the writing, in a temporary directory). */
export async function keyheavyFile() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bitlens-keyheavy-'));
  try {
    return { file: KEYHEAVY, keys: await makeKeyheavy(dir) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The key-heavy data set as `k` shard files (node i of a k-node cluster: the keys of the i-th
 * of k equal hash-slot ranges), each written by redis-server: `[{ file, keys }]`. */
export async function keyheavyShards(k) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bitlens-keyheavy-'));
  try {
    const out = [];
    for (let i = 0; i < k; i++) {
      const file = path.join(DATA_DIR, `keyheavy-shard-${i}-of-${k}.rdb`);
      out.push({ file, keys: await makeKeyheavy(dir, file, `${i}/${k}`) });
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Redis' `used_memory` and load time once it has loaded `file` (copied into `dir`). */
export async function redisHolding(dir, file, keys) {
  const name = path.basename(file);
  execFileSync('cp', [file, path.join(dir, name)]);
  const { redis, port, log } = await startRedis(dir, name);
  try {
    const n = cli(port, ['DBSIZE']).trim();
    if (n !== String(keys)) throw new Error(`${name}: redis-server holds ${n} keys, not ${keys}`);
    const used = Number(/used_memory:(\d+)/.exec(cli(port, ['INFO', 'memory']))[1]);
    const m = /DB loaded from disk: ([\d.]+) seconds/.exec(readFileSync(log, 'utf8'));
    return { used, loadMs: m ? Number(m[1]) * 1000 : NaN };
  } finally {
    redis.kill('SIGKILL');
    rmSync(path.join(dir, name), { force: true });
  }
}

const WASM_LOAD = `
import { readFileSync, openSync, readSync, closeSync, fstatSync } from 'node:fs';
const mod = await import(process.argv[1]);
const wasm = mod.initSync({ module: readFileSync(process.argv[2]) });
const engine = new mod.Engine();
const fd = openSync(process.argv[3], 'r');
const buf = Buffer.alloc(4 << 20);
const t0 = performance.now();
const stream = new mod.RdbStream(undefined, undefined);
stream.announceLen(fstatSync(fd).size); // as the panel's worker does with a File's size
for (;;) {
  const n = readSync(fd, buf, 0, buf.length, null);
  if (n === 0) break;
  stream.push(buf.subarray(0, n));
}
const keys = engine.loadRdbStream(stream);
const ms = performance.now() - t0;
closeSync(fd);
console.log(JSON.stringify({ ms, keys, memory: wasm.memory.buffer.byteLength }));
`;

/** A fresh Node process streams `file` into the wasm engine: `{ ms, keys, memory }`. */
function wasmHolding(file) {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', WASM_LOAD,
    path.join(ROOT, 'pkg/bitlens.js'), path.join(ROOT, 'pkg/bitlens_bg.wasm'), file], { maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`wasm load of ${file}: ${r.stderr}`);
  return JSON.parse(r.stdout.toString());
}

const mb = (b) => `${(b / 1e6).toFixed(0)} MB`;
const perKey = (b, n) => `${Math.round(b / n)} B`;
const x = (a, b) => `${(a / b).toFixed(2)}×`;

/** The markdown lines of the keyspace-memory section. */
export async function keyspaceSection() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bitlens-keyspace-'));
  try {
    await makeKeyheavy(dir);
    const files = [
      [`the key-heavy file (${KEYHEAVY_KEYS.toLocaleString('en-US')} small keys of five types, written by redis-server)`, KEYHEAVY, KEYHEAVY_KEYS],
      ['1,000,000 string keys of 100 bytes', path.join(DATA_DIR, 'small.rdb'), 1_000_000],
    ];
    const rows = [];
    for (const [label, file, keys] of files) {
      if (!existsSync(file)) {
        rows.push(`| ${label} | ${path.basename(file)} is missing (run \`npm run bench\` once) | | | | | |`);
        continue;
      }
      const redis = await redisHolding(dir, file, keys);
      const all = measured([BITLENS, 'query', '--rdb', file, 'DBSIZE']);
      const one = measured([BITLENS, 'query', '--rdb', file, '--threads', '1', 'DBSIZE']);
      for (const r of [all, one]) {
        if (r.tail.trim() !== String(keys)) throw new Error(`bitlens query DBSIZE on ${file}: ${r.tail}`);
      }
      const wasm = wasmHolding(file);
      if (wasm.keys !== keys) throw new Error(`wasm load of ${file}: ${wasm.keys} keys`);
      rows.push(
        `| ${label} (${mb(statSync(file).size)}) | ${mb(redis.used)} (${perKey(redis.used, keys)}/key), loaded in ${(redis.loadMs / 1000).toFixed(2)} s | ${mb(all.peak)} (${perKey(all.peak, keys)}/key) = ${x(all.peak, redis.used)} (${os.cpus().length} threads); ${mb(one.peak)} = ${x(one.peak, redis.used)} (1 thread) | ${(all.ms / 1000).toFixed(2)} s (${os.cpus().length} threads), ${(one.ms / 1000).toFixed(2)} s (1 thread) | ${mb(wasm.memory)} (${perKey(wasm.memory, keys)}/key) = ${x(wasm.memory, redis.used)} | ${(wasm.ms / 1000).toFixed(2)} s |`,
      );
    }
    return [
      '## Keyspace memory against Redis (issue 31)',
      '',
      'Redis: `used_memory` of redis-server right after it loaded the file, and its "DB loaded from disk" time. bitlens native: peak RSS of `bitlens query --rdb FILE DBSIZE` (the whole process: binary, read buffers, keyspace) and its wall time, with every core and with `--threads 1`. bitlens wasm: the wasm memory once a fresh Node process has streamed the file through `RdbStream` in 4 MiB pieces, the file\'s size announced first (as the panel\'s worker does with a File or a Content-Length), and the time. Target: ≤ 0.6× Redis\' `used_memory` for both.',
      '',
      '| file | Redis used_memory | bitlens native peak RSS | native time | bitlens wasm memory | wasm time |',
      '|---|---|---|---|---|---|',
      ...rows,
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log((await keyspaceSection()).join('\n'));
}
