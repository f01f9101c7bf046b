// `npm run bench`: bitlens (wasm in Node, and native) against a real redis-server on the same
// data, in one run on one machine. Redis' time is its own server-side time (INFO commandstats
// usec, after CONFIG RESETSTAT), so network and client time are excluded; bitlens' time is the
// wall time of the command in-process (wasm: Engine.command from Node; native: bitlens::execute
// in `bitlens-bench run`). Every engine answers on the same bytes: `bitlens-bench gen` writes the
// data set as an RDB file that redis-server loads at start and bitlens loads with its reader.
// The table goes to stdout and to bench/RESULTS.md.

import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bloomMexistsRow } from './bloom.mjs';
import { browserSection } from './browser.mjs';
import { inspectSection } from './inspect.mjs';
import { exportSection } from './export.mjs';
import { peersSection } from './peers.mjs';
import { defaultPathSection } from './defaultpath.mjs';
import { shardsSection } from './shards.mjs';
import { keyspaceSection } from './keyspace.mjs';
import { signinsSection } from './signins.mjs';
import { cli, freePort, resp } from './redis.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GEN = path.join(ROOT, 'target/release/bitlens-bench');
const DATA_DIR = path.join(ROOT, 'target/bench-data');
const DUMP = path.join(DATA_DIR, 'dump.rdb');

const range = (n, f) => Array.from({ length: n }, (_, i) => f(i));
const pad2 = (i) => String(i).padStart(2, '0');
const bm = (i) => `bench:bm:${pad2(i)}`;
const hll = (i) => `bench:hll:${pad2(i)}`;
const MB = 12_500_000; // bytes in one 100,000,000-bit bitmap

/** The benchmarks: id, what, commands per round, rounds, bytes read per round (for GB/s). */
const SPECS = [
  { id: 'bitcount', what: 'BITCOUNT of a 100,000,000-bit key', commands: [['BITCOUNT', bm(0)]], iters: 30, bytes: MB },
  { id: 'bitcount-bit', what: 'BITCOUNT with a BIT range (13 .. 99,999,987)', commands: [['BITCOUNT', bm(1), '13', '99999987', 'BIT']], iters: 30, bytes: MB },
  { id: 'bitpos', what: 'BITPOS 0 over 100,000,000 bits (the first clear bit is the last)', commands: [['BITPOS', 'bench:ones', '0']], iters: 30, bytes: MB },
  { id: 'bitop-or-30', what: 'BITOP OR of 30 keys of 100,000,000 bits', commands: [['BITOP', 'OR', 'bench:dest', ...range(30, bm)]], iters: 3, bytes: 30 * MB },
  { id: 'bitop-and-7', what: 'BITOP AND of 7 keys of 100,000,000 bits', commands: [['BITOP', 'AND', 'bench:dest', ...range(7, bm)]], iters: 5, bytes: 7 * MB },
  { id: 'pfcount-1', what: 'PFCOUNT of one dense key (cached cardinality, as in Redis)', commands: [['PFCOUNT', hll(0)]], iters: 20000 },
  { id: 'pfcount-1-fast', what: 'PFCOUNT of one dense key, wasm typed `pfcount(key)` (Redis and native: the same PFCOUNT)', commands: [['PFCOUNT', hll(0)]], iters: 20000, wasmFast: ((k) => (e) => e.pfcount(k))(hll(0)) },
  { id: 'getbit', what: 'GETBIT of one bit of a 100,000,000-bit key', commands: [['GETBIT', bm(0), '12345678']], iters: 20000 },
  { id: 'getbit-fast', what: 'GETBIT, wasm typed `getbit(key, offset)`', commands: [['GETBIT', bm(0), '12345678']], iters: 20000, wasmFast: ((k) => (e) => e.getbit(k, 12345678))(bm(0)) },
  { id: 'pfcount-30', what: 'PFCOUNT over 30 dense keys (union)', commands: [['PFCOUNT', ...range(30, hll)]], iters: 100 },
  { id: 'pfmerge-30', what: 'PFMERGE of 30 dense keys', commands: [['PFMERGE', 'bench:merged', ...range(30, hll)]], iters: 100 },
  {
    id: 'pfadd-1m', what: 'PFADD of 1,000,000 elements (1,000 calls of 1,000)', iters: 1, warmup: false,
    commands: range(1000, (c) => ['PFADD', 'bench:pfadd', ...range(1000, (j) => `visitor:${c * 1000 + j}`)]),
  },
  {
    // The same PFADD commands for Redis and native; wasm passes each call's 1,000 elements in
    // one buffer to Engine.pfaddBatch (buffers built before timing, as the argv arrays are).
    id: 'pfadd-1m-batch', what: 'PFADD of 1,000,000 elements, wasm `pfaddBatch` (1,000 calls of 1,000 in one buffer)', iters: 1, warmup: false, wasmBatch: true,
    commands: range(1000, (c) => ['PFADD', 'bench:pfadd-batch', ...range(1000, (j) => `visitor:${c * 1000 + j}`)]),
  },
  { id: 'geosearch-desc', what: 'GEOSEARCH 3 km DESC COUNT 50 in a 1,000,000-member key', commands: [['GEOSEARCH', 'bench:geo', 'FROMLONLAT', '121.47', '31.23', 'BYRADIUS', '3', 'km', 'DESC', 'COUNT', '50']], iters: 200 },
  { id: 'geosearch-box', what: 'GEOSEARCH BYBOX 4 × 4 km ASC COUNT 50 in a 1,000,000-member key', commands: [['GEOSEARCH', 'bench:geo', 'FROMLONLAT', '121.47', '31.23', 'BYBOX', '4', '4', 'km', 'ASC', 'COUNT', '50']], iters: 200 },
  { id: 'geosearch', what: 'GEOSEARCH 3 km ASC COUNT 50 in a 1,000,000-member key', commands: [['GEOSEARCH', 'bench:geo', 'FROMLONLAT', '121.47', '31.23', 'BYRADIUS', '3', 'km', 'ASC', 'COUNT', '50']], iters: 200 },
  { id: 'streakhist-30', what: 'BITLENS.STREAKHIST over 30 days × 100,000,000 users (no Redis equivalent)', commands: [['BITLENS.STREAKHIST', ...range(30, bm)]], iters: 3, bytes: 30 * MB, redis: false },
];

/** Runs a spec's rounds in Redis; returns server-side microseconds per round. */
function redisTime(port, spec) {
  const once = spec.commands.map(resp).join('');
  if (spec.warmup !== false) cli(port, ['--pipe'], once);
  cli(port, ['CONFIG', 'RESETSTAT']);
  cli(port, ['--pipe'], once.repeat(spec.iters));
  const stats = cli(port, ['INFO', 'commandstats']);
  const names = new Set(spec.commands.map((c) => c[0].toLowerCase()));
  let usec = 0;
  for (const line of stats.split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line.trim());
    if (m && names.has(m[1])) usec += Number(m[3]);
  }
  return usec / spec.iters;
}

/** Starts redis-server on `dbfilename` in DATA_DIR and waits until it has loaded it. */
async function startRedis(dir, dbfilename, logname, extra = []) {
  const port = await freePort();
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', DATA_DIR,
    '--dbfilename', dbfilename, '--save', '', '--appendonly', 'no', '--logfile', path.join(dir, logname), ...extra],
  { stdio: 'ignore' });
  for (let i = 0; ; i++) {
    const r = spawnSync('redis-cli', ['-p', String(port), 'PING']);
    if (r.stdout && r.stdout.toString().trim() === 'PONG') break;
    if (i > 600) {
      redis.kill('SIGKILL');
      throw new Error(`redis-server did not load ${dbfilename} within 60 s`);
    }
    await new Promise((res) => setTimeout(res, 100));
  }
  return { redis, port };
}

/**
 * The GEO load benchmark: an RDB holding only `bench:geo` (1,000,000 members) as redis-server
 * itself writes it (ZSET_2, skiplist order): bitlens-bench writes the key, redis-server loads and
 * SAVEs it. Redis' time is the "DB loaded from disk" time of its log; bitlens' is the best of
 * five (native) or three (wasm, in a fresh Node process; the first of them is reported too) loads
 * of the bytes already in memory.
 */
async function geoLoadTimes(dir) {
  const geo = path.join(DATA_DIR, 'geo.rdb');
  if (!existsSync(geo) || statSync(geo).mtimeMs < statSync(GEN).mtimeMs) {
    console.log('[bench] writing geo.rdb (bitlens-bench gen-geo, then redis-server SAVE)');
    // (dbfilename is a protected setting: Redis SAVEs over the very file it loaded.)
    execFileSync(GEN, ['gen-geo', geo], { stdio: 'inherit' });
    const { redis, port } = await startRedis(dir, 'geo.rdb', 'redis-geo-src.log');
    try {
      cli(port, ['SAVE']);
    } finally {
      redis.kill('SIGKILL');
    }
  }
  const { redis, port } = await startRedis(dir, 'geo.rdb', 'redis-geo.log');
  let redisMs;
  try {
    const card = cli(port, ['ZCARD', 'bench:geo']).trim();
    if (card !== '1000000') throw new Error(`geo.rdb holds ${card} members`);
    redisMs = redisLoadMs(path.join(dir, 'redis-geo.log'));
  } finally {
    redis.kill('SIGKILL');
  }
  return { redisMs, ...memoryLoadTimes(geo, 1) };
}

/**
 * The bench data set as Redis writes it with `rdbcompression no` (raw strings, no LZF):
 * redis-server loads a copy of dump.rdb with that setting and SAVEs it over the copy; then a
 * fresh redis-server loads it (its "DB loaded from disk" time) and bitlens loads the same bytes.
 */
async function rawLoadTimes(dir) {
  const raw = path.join(DATA_DIR, 'dump-raw.rdb');
  if (!existsSync(raw) || statSync(raw).mtimeMs < statSync(DUMP).mtimeMs) {
    console.log('[bench] writing dump-raw.rdb (redis-server SAVE with rdbcompression no)');
    copyFileSync(DUMP, raw);
    const { redis, port } = await startRedis(dir, 'dump-raw.rdb', 'redis-raw-src.log', ['--rdbcompression', 'no']);
    try {
      cli(port, ['SAVE']);
    } finally {
      redis.kill('SIGKILL');
    }
  }
  const { redis, port } = await startRedis(dir, 'dump-raw.rdb', 'redis-raw.log');
  let redisMs;
  try {
    const n = cli(port, ['DBSIZE']).trim();
    if (n !== '62') throw new Error(`dump-raw.rdb holds ${n} keys`);
    redisMs = redisLoadMs(path.join(dir, 'redis-raw.log'));
  } finally {
    redis.kill('SIGKILL');
  }
  return { redisMs, ...bitlensLoadTimes(raw, 62, ['--strings-raw']) };
}

/** Redis' "DB loaded from disk" time (ms) in a log, if there. */
function redisLoadMs(log) {
  const m = /DB loaded from disk: ([\d.]+) seconds/.exec(readFileSync(log, 'utf8'));
  return m ? Number(m[1]) * 1000 : undefined;
}

/**
 * bitlens' load of `file`'s bytes already in memory: native best of 5, wasm first and best of 3
 * in a fresh Node process (so that the first load also pays for growing the wasm memory, as it
 * does in a page that has just started). `keys` is the key count the file must give.
 */
function memoryLoadTimes(file, keys, loadArgs = []) {
  const nat = spawnSync(GEN, ['load', file, ...loadArgs], { maxBuffer: 1 << 20 });
  if (nat.status !== 0) throw new Error(`bitlens-bench load: ${nat.stderr}`);
  const { ms: nativeMs, phases } = JSON.parse(nat.stdout.toString());
  const child = `
    const { readFileSync } = await import('node:fs');
    const mod = await import(${JSON.stringify(path.join(ROOT, 'pkg/bitlens.js'))});
    mod.initSync({ module: readFileSync(${JSON.stringify(path.join(ROOT, 'pkg/bitlens_bg.wasm'))}) });
    const bytes = readFileSync(process.argv[1]);
    const ms = [];
    for (let i = 0; i < 3; i++) {
      const engine = new mod.Engine();
      const t = performance.now();
      const keys = engine.loadRdb(bytes);
      ms.push(performance.now() - t);
      if (keys !== ${keys}) throw new Error('wasm loaded ' + keys + ' keys from ${path.basename(file)}');
      engine.free();
    }
    console.log(JSON.stringify({ cold: ms[0], best: Math.min(...ms) }));`;
  const w = spawnSync(process.execPath, ['--input-type=module', '-e', child, file], { maxBuffer: 1 << 20 });
  if (w.status !== 0) throw new Error(`wasm load of ${path.basename(file)}: ${w.stderr}`);
  const { cold, best } = JSON.parse(w.stdout.toString());
  return { nativeMs, phases, wasmColdMs: cold, wasmMs: best, mb: statSync(file).size / 1e6 };
}

/**
 * Where a wasm load's time goes, in a fresh Node process: `snapshotInfo(bytes)` (it reads only
 * the header, so its time is the copy of the bytes into wasm memory) first while the memory
 * still has to grow (`copyColdMs`) and again once grown (`copyMs`); then `loadRdb` with the
 * CRC check off (`nocrcMs`) and on (`loadMs`), best of two each.
 */
function wasmLoadPhases(file) {
  const child = `
    const { readFileSync } = await import('node:fs');
    const mod = await import(${JSON.stringify(path.join(ROOT, 'pkg/bitlens.js'))});
    mod.initSync({ module: readFileSync(${JSON.stringify(path.join(ROOT, 'pkg/bitlens_bg.wasm'))}) });
    const bytes = readFileSync(process.argv[1]);
    const time = (f) => { const t = performance.now(); f(); return performance.now() - t; };
    const copyColdMs = time(() => mod.snapshotInfo(bytes));
    const copyMs = Math.min(time(() => mod.snapshotInfo(bytes)), time(() => mod.snapshotInfo(bytes)));
    const load = (opts) => Math.min(...[0, 1].map(() => {
      const engine = new mod.Engine();
      const ms = time(() => engine.loadRdb(bytes, undefined, opts));
      engine.free();
      return ms;
    }));
    const nocrcMs = load({ checksum: false });
    const loadMs = load({});
    console.log(JSON.stringify({ copyColdMs, copyMs, nocrcMs, loadMs }));`;
  const w = spawnSync(process.execPath, ['--input-type=module', '-e', child, file], { maxBuffer: 1 << 20 });
  if (w.status !== 0) throw new Error(`wasm load phases of ${path.basename(file)}: ${w.stderr}`);
  return JSON.parse(w.stdout.toString());
}

/**
 * The native load of `file`'s bytes decoded on one thread and on one per core (`bitlens-bench
 * load-threads`, best of 5 each, the same keys checked).
 */
function threadLoadTimes(file) {
  const n = os.cpus().length;
  const r = spawnSync(GEN, ['load-threads', file, String(n)], { maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`bitlens-bench load-threads: ${r.stderr}`);
  const t = JSON.parse(r.stdout.toString());
  if (!t.same) throw new Error(`${path.basename(file)}: ${n} threads loaded other keys than one`);
  return t;
}

/** bitlens' load of `file`: [`memoryLoadTimes`], then `bitlens-bench load-file` (read from disk). */
function bitlensLoadTimes(file, keys, loadArgs = []) {
  const times = memoryLoadTimes(file, keys, loadArgs);
  const f = spawnSync(GEN, ['load-file', file], { maxBuffer: 1 << 20 });
  if (f.status !== 0) throw new Error(`bitlens-bench load-file: ${f.stderr}`);
  return { ...times, file: JSON.parse(f.stdout.toString()) };
}

/** The many-small-keys load: 1,000,000 string keys of 100 bytes, Redis' own load against bitlens'. */
async function smallLoadTimes(dir) {
  const small = path.join(DATA_DIR, 'small.rdb');
  if (!existsSync(small) || statSync(small).mtimeMs < statSync(GEN).mtimeMs) {
    console.log('[bench] writing small.rdb (bitlens-bench gen-small)');
    execFileSync(GEN, ['gen-small', small], { stdio: 'inherit' });
  }
  const { redis, port } = await startRedis(dir, 'small.rdb', 'redis-small.log');
  let redisMs;
  try {
    const n = cli(port, ['DBSIZE']).trim();
    if (n !== '1000000') throw new Error(`small.rdb holds ${n} keys`);
    redisMs = redisLoadMs(path.join(dir, 'redis-small.log'));
  } finally {
    redis.kill('SIGKILL');
  }
  return { redisMs, ...bitlensLoadTimes(small, 1000000) };
}

/**
 * GB/s of the system's C liblzf on the kernels' LZF input (bench/lzf_ref.c, built here with
 * `cc -O2`), or `n/a (why)` when cc or liblzf.so.1 is missing.
 */
function liblzfGbs(dir, lzfFile) {
  const exe = path.join(dir, 'lzf_ref');
  const cc = spawnSync('cc', ['-O2', '-o', exe, path.join(ROOT, 'bench/lzf_ref.c'), '-l:liblzf.so.1']);
  if (cc.status !== 0) return 'n/a (cc or liblzf.so.1 missing: apt-get install liblzf1)';
  const r = spawnSync(exe, [lzfFile]);
  return r.status === 0 ? r.stdout.toString().trim() : `n/a (${r.stderr.toString().trim()})`;
}

async function wasmModule() {
  const mod = await import(path.join(ROOT, 'pkg/bitlens.js'));
  mod.initSync({ module: readFileSync(path.join(ROOT, 'pkg/bitlens_bg.wasm')) });
  return mod;
}

async function wasmTimes(dump) {
  const mod = await wasmModule();
  const engine = new mod.Engine();
  const t0 = performance.now();
  engine.loadRdb(dump);
  const loadMs = performance.now() - t0;
  const out = {};
  for (const spec of SPECS) {
    if (spec.wasmBatch) {
      const enc = new TextEncoder();
      const calls = spec.commands.map(([, key, ...elements]) => {
        const parts = elements.map((e) => enc.encode(e));
        const offsets = new Uint32Array(parts.length + 1);
        parts.forEach((p, i) => { offsets[i + 1] = offsets[i] + p.length; });
        const buf = new Uint8Array(offsets[parts.length]);
        parts.forEach((p, i) => buf.set(p, offsets[i]));
        return { key, buf, offsets };
      });
      // The same calls on a scratch key first, so that V8 has compiled the PFADD code with its
      // optimizing tier (as in a page that has run for a while); the timed calls still start
      // from a missing key, as Redis' do.
      for (const c of calls) engine.pfaddBatch(`${c.key}:warm-up`, c.buf, c.offsets);
      for (const c of calls) engine.deleteKey(`${c.key}:warm-up`);
      const t = performance.now();
      for (let i = 0; i < spec.iters; i++) for (const c of calls) engine.pfaddBatch(c.key, c.buf, c.offsets);
      out[spec.id] = ((performance.now() - t) * 1000) / spec.iters;
      continue;
    }
    if (spec.wasmFast) {
      const want = engine.command(spec.commands[0]);
      if (spec.wasmFast(engine) !== want) throw new Error(`${spec.id}: typed path differs from command()`);
      for (let i = 0; i < spec.iters; i++) spec.wasmFast(engine); // warm-up (JIT tier-up)
      const t = performance.now();
      for (let i = 0; i < spec.iters; i++) spec.wasmFast(engine);
      out[spec.id] = ((performance.now() - t) * 1000) / spec.iters;
      continue;
    }
    if (spec.warmup !== false) {
      // Single-key specs run many rounds: warm up as many, so the JIT has tiered up.
      const rounds = spec.iters >= 1000 ? spec.iters : 1;
      for (let i = 0; i < rounds; i++) for (const c of spec.commands) engine.command(c);
    } else {
      // Commands that must start from a missing key (PFADD) warm up on a scratch key.
      const scratch = (c) => [c[0], `${c[1]}:warm-up`, ...c.slice(2)];
      for (const c of spec.commands) engine.command(scratch(c));
      for (const c of spec.commands) engine.deleteKey(scratch(c)[1]);
    }
    const t = performance.now();
    for (let i = 0; i < spec.iters; i++) for (const c of spec.commands) engine.command(c);
    out[spec.id] = ((performance.now() - t) * 1000) / spec.iters;
  }
  out.calls = callPhases(engine);
  return { times: out, loadMs };
}

/**
 * Where a typed call's time goes (µs per call, best of 5 rounds of 20,000 after a warm-up):
 * `bare` is `dbsize()` (no argument, a number back: the JS↔wasm call itself); `pfcountPacked`
 * is `commandPacked` of PFCOUNT with the argument bytes encoded once before the loop (no
 * string encoding, a JsValue reply); `pfcount` is `pfcount(key)` (the key string encoded on
 * every call, a number back); `command` is `command(['PFCOUNT', key])` (the argv Array read
 * element by element). The same for GETBIT.
 */
function callPhases(engine) {
  const enc = new TextEncoder();
  const packed = (args) => {
    const parts = args.map((a) => enc.encode(a));
    const offsets = new Uint32Array(parts.length + 1);
    parts.forEach((p, i) => { offsets[i + 1] = offsets[i] + p.length; });
    const buf = new Uint8Array(offsets[parts.length]);
    parts.forEach((p, i) => buf.set(p, offsets[i]));
    return [buf, offsets];
  };
  const [pb, po] = packed(['PFCOUNT', hll(0)]);
  const [gb, go] = packed(['GETBIT', bm(0), '12345678']);
  const fns = {
    bare: () => engine.dbsize(),
    pfcountPacked: () => engine.commandPacked(pb, po),
    pfcount: () => engine.pfcount(hll(0)),
    pfcountCommand: () => engine.command(['PFCOUNT', hll(0)]),
    getbitPacked: () => engine.commandPacked(gb, go),
    getbit: () => engine.getbit(bm(0), 12345678),
    getbitCommand: () => engine.command(['GETBIT', bm(0), '12345678']),
  };
  const n = 20000;
  const res = {};
  for (const [name, f] of Object.entries(fns)) {
    for (let i = 0; i < n; i++) f();
    let best = Infinity;
    for (let r = 0; r < 5; r++) {
      const t = performance.now();
      for (let i = 0; i < n; i++) f();
      best = Math.min(best, ((performance.now() - t) * 1000) / n);
    }
    res[name] = best;
  }
  return res;
}

/**
 * The "Where the time goes" section: each row's phases as the bench binaries measured them in
 * this run (`bitlens-bench load`'s `phases`, [`wasmLoadPhases`], [`callPhases`]), so that
 * every run states the measured cause of the figures above beside them.
 */
function whereTimeGoes({ big, par, small, raw, wasmPhases: w, calls, nativeUs, redisUs, k }) {
  const p = big.phases;
  const pct = (x, of) => `${((100 * x) / of).toFixed(0)} %`;
  const f0 = (x) => x.toFixed(0);
  const f2 = (x) => x.toFixed(2);
  const needMs = (p.bytes / 1.5e9) * 1000;
  const sp = small.phases;
  const us = (x) => (x === undefined ? 'n/a' : `${x.toFixed(2)} µs`);
  return [
    '## Where the time goes (measured in this run)',
    '',
    'Each phase timed alone on the same bytes by `bitlens-bench load` (native, best of three) and by a fresh Node process (wasm), beside the whole load. Being timed apart, the phases need not add up to the load, least of all when other work shares the machine (see the load average above).',
    '',
    `**Native load of the ${f0(p.bytes / 1e6)} MB bench RDB: ${f0(big.nativeMs)} ms.** 1.5 GB/s would be ${f0(needMs)} ms.`,
    '',
    par
      ? `**On every core** (\`LoadOptions::threads\`, \`bitlens --threads\`; target ≥ 1.8× with 2 threads): one thread ${f0(par.one_ms)} ms, ${par.threads} threads ${f0(par.many_ms)} ms = **${f2(par.one_ms / par.many_ms)}×**, the same keys (${par.keys}); rayon pool of ${par.pool} threads, best of 5 each, on the load average above.`
      : '**On every core**: n/a (see the error above).',
    '',
    '| phase | ms | share of the load |',
    '|---|---|---|',
    `| LZF decoding of the file's ${p.lzf_strings} compressed strings (${f0(p.lzf_in / 1e6)} MB → ${f0(p.lzf_out / 1e6)} MB, ${f0(p.lzf_tokens / 1e6)} M LZF instructions, ${f2(p.lzf_out / p.lzf_tokens)} bytes and ${f2((p.lzf_ms * 1e6) / p.lzf_tokens)} ns per instruction) | ${f0(p.lzf_ms)} | ${pct(p.lzf_ms, big.nativeMs)} |`,
    `| CRC-64 over the file | ${f0(p.crc_ms)} | ${pct(p.crc_ms, big.nativeMs)} |`,
    `| allocating and first writing every value's buffer (page faults) | ${f0(p.touch_ms)} | ${pct(p.touch_ms, big.nativeMs)} |`,
    `| the load with the CRC check off | ${f0(p.nocrc_ms)} | ${pct(p.nocrc_ms, big.nativeMs)} |`,
    `| the rest (parsing, the GEO key's index, copies): load − LZF − CRC | ${f0(big.nativeMs - p.lzf_ms - p.crc_ms)} | ${pct(big.nativeMs - p.lzf_ms - p.crc_ms, big.nativeMs)} |`,
    '',
    `LZF alone needs ${f0(p.lzf_ms)} ms of the ${f0(needMs)} ms that 1.5 GB/s allows: the 12.5 %-density bitmaps give LZF ${f2(p.lzf_out / p.lzf_tokens)} output bytes per instruction, so the load is bound by the instruction rate. Without LZF (the same data as Redis writes it with \`rdbcompression no\`): ${f0(raw.nativeMs)} ms for ${f0(raw.mb)} MB = ${f2(raw.mb / raw.nativeMs)} GB/s native (CRC ${f0(raw.phases.crc_ms)} ms of it), against Redis' ${f0(raw.redisMs)} ms. C liblzf on the kernels' bitmap: ${k.lzf_c} GB/s, bitlens ${k.lzf_bitlens} GB/s.`,
    '',
    `**wasm load of the same file (fresh Node process): ${f0(w.loadMs)} ms** (the table's cold figure also grows the memory).`,
    '',
    '| phase | ms | share |',
    '|---|---|---|',
    `| copy of the bytes from JS into wasm memory, the memory growing (first \`snapshotInfo(bytes)\`) | ${f0(w.copyColdMs)} | ${pct(w.copyColdMs, w.loadMs)} |`,
    `| the same copy once the memory is grown | ${f0(w.copyMs)} | ${pct(w.copyMs, w.loadMs)} |`,
    `| CRC-64 in wasm: load − load with the check off | ${f0(w.loadMs - w.nocrcMs)} | ${pct(w.loadMs - w.nocrcMs, w.loadMs)} |`,
    `| decoding (LZF, parsing, building values): load with the check off − copy | ${f0(w.nocrcMs - w.copyMs)} | ${pct(w.nocrcMs - w.copyMs, w.loadMs)} |`,
    '',
    `wasm ÷ native decoding: ${f2((w.nocrcMs - w.copyMs) / p.nocrc_ms)}× (the same LZF loop compiled to wasm32, 8-byte and 16-byte copies through the wasm memory's bounds checks).`,
    '',
    `**1,000,000 small keys, native in memory: ${f0(small.nativeMs)} ms = ${f2(small.nativeMs / 1000)} µs per key.**`,
    '',
    '| phase | ms | µs per key |',
    '|---|---|---|',
    `| inserting every key into a fresh keyspace (key copied, hashing, table growth; empty values) | ${f0(sp.insert_ms)} | ${f2(sp.insert_ms / 1000)} |`,
    `| allocating and first writing every value's buffer | ${f0(sp.touch_ms)} | ${f2(sp.touch_ms / 1000)} |`,
    `| CRC-64 over the file | ${f0(sp.crc_ms)} | ${f2(sp.crc_ms / 1000)} |`,
    `| the rest (parsing each record, building the value): load − the above | ${f0(small.nativeMs - sp.insert_ms - sp.touch_ms - sp.crc_ms)} | ${f2((small.nativeMs - sp.insert_ms - sp.touch_ms - sp.crc_ms) / 1000)} |`,
    '',
    `Peak RSS from the file: ${f0(small.file.peak_rss / 1e6)} MB against ${f0(small.file.rss_after / 1e6)} MB loaded.`,
    '',
    '**Single-key calls from JS (µs per call, wasm in Node, best of 5 × 20,000):**',
    '',
    '| call | PFCOUNT | GETBIT |',
    '|---|---|---|',
    `| the bare JS↔wasm call (\`dbsize()\`: no argument, a number back) | ${us(calls.bare)} | ${us(calls.bare)} |`,
    `| \`commandPacked\` with the bytes encoded before the loop (execute + a JsValue reply) | ${us(calls.pfcountPacked)} | ${us(calls.getbitPacked)} |`,
    `| typed \`pfcount(key)\` / \`getbit(key, offset)\` (the key string encoded per call) | ${us(calls.pfcount)} | ${us(calls.getbit)} |`,
    `| \`command([...])\` (the argv Array read element by element) | ${us(calls.pfcountCommand)} | ${us(calls.getbitCommand)} |`,
    `| native \`bitlens::execute\` of the same command (execute alone) | ${us(nativeUs['pfcount-1'])} | ${us(nativeUs.getbit)} |`,
    `| Redis, server side | ${us(redisUs['pfcount-1'])} | ${us(redisUs.getbit)} |`,
  ].join('\n');
}

function fmtUs(us) {
  if (us === undefined || Number.isNaN(us)) return 'n/a';
  return us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`;
}
const ratio = (a, b) => (a && b ? `${(a / b).toFixed(2)}×` : 'n/a');
const gbs = (bytes, us) => (bytes && us ? (bytes / (us * 1e3)).toFixed(1) : '');

/**
 * Runs one optional part of the bench: its value, or `{ failed: message }` after logging, so
 * that a part that cannot run on this machine leaves a "not measured" line instead of losing
 * the whole RESULTS.md.
 */
async function soft(what, f) {
  try {
    return await f();
  } catch (e) {
    console.error(`[bench] ${what}: not measured: ${e.stack || e}`);
    return { failed: String(e.message || e).split('\n')[0] };
  }
}

async function main() {
  const loadBefore = os.loadavg()[0];
  for (const f of [GEN, path.join(ROOT, 'pkg/bitlens.js')]) {
    if (!existsSync(f)) throw new Error(`${f} is missing: run npm run build first`);
  }
  mkdirSync(DATA_DIR, { recursive: true });
  if (!existsSync(DUMP) || statSync(DUMP).mtimeMs < statSync(GEN).mtimeMs) {
    console.log('[bench] generating the data set (bitlens-bench gen)');
    execFileSync(GEN, ['gen', DUMP], { stdio: 'inherit' });
  }
  const dump = readFileSync(DUMP);

  const dir = mkdtempSync(path.join(os.tmpdir(), 'bitlens-bench-'));
  const { redis, port } = await startRedis(dir, 'dump.rdb', 'redis.log');
  try {
    const redisVersion = cli(port, ['INFO', 'server']).match(/redis_version:(\S+)/)[1];
    const redisDumpLoadMs = redisLoadMs(path.join(dir, 'redis.log'));
    console.log(`[bench] redis-server ${redisVersion} loaded the data set; timing Redis`);
    const redisUs = {};
    for (const spec of SPECS) if (spec.redis !== false) redisUs[spec.id] = redisTime(port, spec);

    console.log('[bench] timing bitlens native');
    const specJson = JSON.stringify(SPECS.map(({ id, commands, iters, warmup }) => ({ id, commands, iters, warmup })));
    const nat = spawnSync(GEN, ['run', DUMP], { input: specJson, maxBuffer: 1 << 26 });
    if (nat.status !== 0) throw new Error(`bitlens-bench run: ${nat.stderr}`);
    const nativeUs = JSON.parse(nat.stdout.toString());

    console.log('[bench] timing bitlens wasm (Node)');
    const { times: wasmUs, loadMs } = await wasmTimes(dump);

    redis.kill('SIGKILL');
    console.log('[bench] timing the load of a 1,000,000-member GEO key');
    const geo = await geoLoadTimes(dir);
    console.log('[bench] timing the load of the data set and of 1,000,000 small keys');
    const big = bitlensLoadTimes(DUMP, 62);
    console.log('[bench] timing the load of the data set on one thread and on every core');
    const par = await soft('the load on every core', () => threadLoadTimes(DUMP));
    const small = await smallLoadTimes(dir);
    console.log('[bench] timing the load of the data set written with rdbcompression no');
    const raw = await soft('the rdbcompression no load', () => rawLoadTimes(dir));
    const wasmPhases = await soft('the wasm load phases', () => wasmLoadPhases(DUMP));
    const lzfFile = path.join(dir, 'lzf.bin');
    const kern = spawnSync(GEN, ['kernels'], { maxBuffer: 1 << 20, env: { ...process.env, KERNELS_LZF_OUT: lzfFile } });
    if (kern.status !== 0) throw new Error(`bitlens-bench kernels: ${kern.stderr}`);
    const k = JSON.parse(kern.stdout.toString());
    k.lzf_c = liblzfGbs(dir, lzfFile);
    const mbps = (mb, ms) => (mb && ms ? `${((mb / ms) * 1000).toFixed(0)} MB/s` : 'n/a');
    const loadRow = (what, r, redisMs) => `| ${what} | ${fmtUs(ms(redisMs))} (${mbps(r.mb, redisMs)}) | ${fmtUs(ms(r.wasmColdMs))} (${mbps(r.mb, r.wasmColdMs)}) | ${ratio(redisMs, r.wasmColdMs)} | ${fmtUs(ms(r.nativeMs))} (${mbps(r.mb, r.nativeMs)}) | ${ratio(redisMs, r.nativeMs)} | ${fmtUs(ms(r.file.ms))}, peak RSS ${(r.file.peak_rss / 1e6).toFixed(0)} MB = ${(r.file.peak_rss / r.file.rss_after).toFixed(2)}× the RSS loaded |`;
    const ms = (x) => (x === undefined ? undefined : x * 1000);
    console.log('[bench] timing the panel in Chromium');
    const browser = await browserSection(DUMP, dump.length / 1e6);
    console.log('[bench] timing inspect and query on big files');
    const inspection = await soft('inspect on big files', () => inspectSection(DUMP));
    console.log('[bench] timing export to Parquet and Arrow');
    const exporting = await soft('export to Parquet and Arrow', () => exportSection(DUMP));
    console.log('[bench] measuring keyspace memory against Redis (key-heavy file, 1,000,000 small keys)');
    const keyspaceMemory = await soft('keyspace memory', () => keyspaceSection());
    console.log('[bench] timing the key-heavy file against librdb');
    const peers = await soft('the key-heavy file against librdb', () => peersSection());
    console.log('[bench] timing the default path against the allocator named, Redis and librdb (issue 52)');
    const defaultPath = await soft('the default path (issue 52)', () => defaultPathSection());
    console.log('[bench] timing many files at once (4 shard files of the key-heavy data set)');
    const manyFiles = await soft('many files at once', () => shardsSection());
    console.log('[bench] timing the sign-ins card on 10,000,000 keys');
    const signins = await soft('the sign-ins card at scale', () => signinsSection());
    const whereTimes = await soft('where the time goes', () => whereTimeGoes({ big, par, small, raw, wasmPhases, calls: wasmUs.calls, nativeUs, redisUs, k }));
    const section = (x, title) => (x.failed ? [`## ${title}`, '', `Not measured in this run: ${x.failed}`] : x);

    const rows = SPECS.map((s) => `| ${s.what} | ${fmtUs(redisUs[s.id])} | ${fmtUs(wasmUs[s.id])} | ${ratio(redisUs[s.id], wasmUs[s.id])} | ${gbs(s.bytes, wasmUs[s.id])} | ${fmtUs(nativeUs[s.id])} | ${ratio(redisUs[s.id], nativeUs[s.id])} | ${gbs(s.bytes, nativeUs[s.id])} |`);
    rows.push(await bloomMexistsRow(wasmModule));
    const cpu = (os.cpus()[0] || {}).model || 'unknown CPU';
    const table = [
      '# bitlens benchmarks',
      '',
      `Measured ${new Date().toISOString()} on ${os.cpus().length} × ${cpu}, Node ${process.version}, redis-server ${redisVersion}, by \`npm run bench\` (bench/run.mjs). Load average (1 min) ${loadBefore.toFixed(1)} at the start and ${os.loadavg()[0].toFixed(1)} at the end of the run (other work on the machine makes every time longer).`,
      '',
      'Redis: server-side time per call from `INFO commandstats` (usec) after `CONFIG RESETSTAT`, so the network',
      'and redis-cli are excluded. bitlens wasm: `Engine.command()` called from Node (includes the JS↔wasm',
      'argument and reply conversion). bitlens native: `bitlens::execute` in `bitlens-bench run`. One warm-up',
      'round first (PFADD starts from a missing key in every engine; in wasm its calls run once on a scratch key',
      'first, so that V8 runs them in its optimizing tier as a page that has been open a while does). Speed-up = Redis time ÷',
      'bitlens time (above 1 means bitlens is faster). GB/s = bytes of bitmap input read per second.',
      'GEO load: Redis\' time is the "DB loaded from disk" line of its log; bitlens loads the same file',
      'from memory (native: best of 5; wasm: the first load in a fresh process), CRC-64 checked as Redis checks it.',
      '`pfaddBatch` row: Redis and native run the same PFADD commands as the row above it.',
      '',
      '| benchmark | Redis | bitlens wasm | wasm speed-up | wasm GB/s | bitlens native | native speed-up | native GB/s |',
      '|---|---|---|---|---|---|---|---|',
      ...rows,
      `| Load an RDB holding one GEO key of 1,000,000 members (${geo.mb.toFixed(1)} MB, ZSET_2 as redis-server SAVEs it) | ${fmtUs(ms(geo.redisMs))} | ${fmtUs(ms(geo.wasmColdMs))} | ${ratio(geo.redisMs, geo.wasmColdMs)} |  | ${fmtUs(ms(geo.nativeMs))} | ${ratio(geo.redisMs, geo.nativeMs)} |  |`,
      '',
      '## Loads (issue 16.1)',
      '',
      'Redis: "DB loaded from disk" of its log. wasm: the first `loadRdb` of the bytes in a fresh Node process (wasm memory growth included). native in memory: `load_rdb` best of 5 on the bytes already read. native from the file: one chunked load as `bitlens query --rdb` does it, with the process\' peak RSS against its RSS once loaded (≈ decoded size).',
      '',
      '| load | Redis | bitlens wasm | wasm speed-up | bitlens native (in memory) | native speed-up | native from the file (CLI path) |',
      '|---|---|---|---|---|---|---|',
      loadRow(`The ${big.mb.toFixed(0)} MB bench RDB (31 LZF-compressed bitmaps of 12.5 MB, 30 HLLs, 1M-member GEO key)`, big, redisDumpLoadMs),
      loadRow(`1,000,000 string keys of 100 bytes (${small.mb.toFixed(0)} MB)`, small, small.redisMs),
      raw.failed ? `| The same data set as Redis SAVEs it with \`rdbcompression no\` | not measured: ${raw.failed} |  |  |  |  |  |` : loadRow(`The same data set as Redis SAVEs it with \`rdbcompression no\` (${raw.mb.toFixed(0)} MB, raw strings)`, raw, raw.redisMs),
      '',
      '## Kernels against their physical limit or reference (GB/s of input, `bitlens-bench kernels`, same run)',
      '',
      '| kernel | GB/s | reference | GB/s |',
      '|---|---|---|---|',
      `| memory read, 12.5 MB (the bitmap size) | ${k.read_12mb} | memory read, 100 MB | ${k.read_100mb} |`,
      `| BITPOS 0 scan over 12.5 MB of ones | ${k.bitpos0_scan} | memory read, 12.5 MB | ${k.read_12mb} |`,
      `| AND of 2 sources (bytes read) | ${k.and_2_sources} | memory read, 12.5 MB | ${k.read_12mb} |`,
      `| CRC-64 (bitlens native: \`crc-fast\` carry-less-multiply folding) | ${k.crc64_bitlens} | memory read, 100 MB | ${k.read_100mb} |`,
    `| CRC-64 (bitlens 4-lane slice-by-8 tables, the wasm32 code) | ${k.crc64_tables} | \`crc\` crate slice-by-16 | ${k.crc64_crc_crate_slice16} |`,
      `| LZF decode of a 12.5 % density bitmap (ratio ${k.lzf_ratio}) | ${k.lzf_bitlens} | \`lzf\` crate | ${k.lzf_lzf_crate} |`,
      `| LZF decode, the same input | ${k.lzf_bitlens} | C liblzf (the system's liblzf.so.1, \`cc -O2\`, bench/lzf_ref.c) | ${k.lzf_c} |`,
      '',
      `Loading the ${(dump.length / 1e6).toFixed(0)} MB data-set RDB into the wasm engine took ${loadMs.toFixed(0)} ms.`,
      `The GEO-key load row gives the first wasm load in a fresh Node process (wasm memory growth included); the best of three loads there took ${geo.wasmMs.toFixed(0)} ms.`,
      '',
      browser,
      '',
      ...(whereTimes.failed ? section(whereTimes, 'Where the time goes') : [whereTimes]),
      '',
      ...section(inspection, 'Inspection and query on big files (issue 17.5)'),
      '',
      ...section(exporting, 'Export to Parquet and Arrow (issue 30)'),
      '',
      ...section(keyspaceMemory, 'Keyspace memory against Redis (issue 31)'),
      '',
      ...section(peers, 'The key-heavy file against librdb (issue 29)'),
      '',
      ...section(defaultPath, 'The default path as fast as the best one (issue 52)'),
      '',
      ...section(manyFiles, 'Many files at once (issue 29)'),
      '',
      ...section(signins, 'The sign-ins card on 10,000,000 keys (issue 19.1)'),
      '',
    ].join('\n');
    console.log(`\n${table}`);
    writeFileSync(path.join(ROOT, 'bench/RESULTS.md'), table);
    console.log('[bench] written to bench/RESULTS.md');
  } finally {
    redis.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(`[bench] ${e.stack || e}`);
  process.exit(1);
});
