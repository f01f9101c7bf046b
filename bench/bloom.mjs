// The BF.MEXISTS row of `npm run bench` (imported by bench/run.mjs; `node bench/bloom.mjs` runs
// it alone): BF.MEXISTS of 1,000 items (half of them added, half never added) against a
// 100,000-item Bloom filter that Redis 7.4.1 with RedisBloom 2.8.2 builds and SAVEs; bitlens
// loads that file. Redis' time is the module's own server-side time (INFO commandstats
// usec_per_call of bf.mexists after CONFIG RESETSTAT); bitlens native is `bitlens-bench run`
// on the same file, bitlens wasm is Engine.command() (when pkg/ is built).

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cli as redisCli, freePort, resp } from './redis.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SERVERS = process.env.BITLENS_SERVERS_DIR || path.join(ROOT, '.servers');
const ITEMS = 100_000;
const ROUNDS = 200;

const us = (x) => (x === undefined || Number.isNaN(x) ? 'n/a' : x >= 1000 ? `${(x / 1000).toFixed(2)} ms` : `${x.toFixed(1)} µs`);
const speedup = (a, b) => (a && b ? `${(a / b).toFixed(2)}×` : 'n/a');

/**
 * Measures the row; returns it as a table line of bench/run.mjs' table (what, Redis, wasm,
 * wasm speed-up, GB/s, native, native speed-up, GB/s), or a line saying why it was skipped.
 */
export async function bloomMexistsRow(wasmModule) {
  const what = `BF.MEXISTS of 1,000 items in a ${ITEMS.toLocaleString('en-US')}-item Bloom filter (RedisBloom 2.8.2 on Redis 7.4.1)`;
  const manifest = JSON.parse(readFileSync(path.join(SERVERS, 'servers.json'), 'utf8'));
  const mod = manifest.modules?.redisbloom?.path;
  const srv = manifest.servers?.[manifest.modules?.redisbloom?.server];
  if (!mod || !srv || !existsSync(mod)) return `| ${what} | not installed (npm run setup) | | | | | | |`;
  const env = { ...process.env, ...srv.env };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bitlens-bench-bloom-'));
  const port = await freePort();
  const cli = (args, input) => redisCli(port, args, input, { cli: srv.cli, env });
  const redis = spawn(srv.server, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '',
    '--appendonly', 'no', '--loadmodule', mod], { stdio: 'ignore', env });
  try {
    for (let i = 0; spawnSync(srv.cli, ['-p', String(port), 'PING'], { env }).stdout?.toString().trim() !== 'PONG'; i++) {
      if (i > 100) throw new Error('redis-server with redisbloom did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    let load = resp(['BF.RESERVE', 'bench:bf', '0.01', String(ITEMS)]);
    for (let c = 0; c < ITEMS; c += 1000) {
      load += resp(['BF.MADD', 'bench:bf', ...Array.from({ length: 1000 }, (_, j) => `user:${c + j}`)]);
    }
    cli(['--pipe'], load);
    cli(['SAVE']);
    // Half the probes were added, half never were.
    const probe = ['BF.MEXISTS', 'bench:bf', ...Array.from({ length: 1000 }, (_, j) => (j % 2 ? `user:${j * 97}` : `never:${j}`))];
    const once = resp(probe);
    cli(['--pipe'], once);
    cli(['CONFIG', 'RESETSTAT']);
    cli(['--pipe'], once.repeat(ROUNDS));
    const m = /cmdstat_bf\.mexists:calls=(\d+),usec=\d+,usec_per_call=([\d.]+)/.exec(cli(['INFO', 'commandstats']));
    const redisUs = m ? Number(m[2]) : undefined;
    const rdb = path.join(dir, 'dump.rdb');

    let nativeUs;
    const gen = path.join(ROOT, 'target/release/bitlens-bench');
    if (existsSync(gen)) {
      const spec = JSON.stringify([{ id: 'bf-mexists', commands: [probe], iters: ROUNDS }]);
      const nat = spawnSync(gen, ['run', rdb], { input: spec, maxBuffer: 1 << 26 });
      if (nat.status === 0) nativeUs = JSON.parse(nat.stdout.toString())['bf-mexists'];
    }
    let wasmUs;
    if (wasmModule && existsSync(path.join(ROOT, 'pkg/bitlens.js'))) {
      const w = await wasmModule();
      const engine = new w.Engine();
      engine.loadRdb(readFileSync(rdb));
      engine.command(probe);
      const t = performance.now();
      for (let i = 0; i < ROUNDS; i++) engine.command(probe);
      wasmUs = ((performance.now() - t) * 1000) / ROUNDS;
    }
    return `| ${what} | ${us(redisUs)} | ${us(wasmUs)} | ${speedup(redisUs, wasmUs)} |  | ${us(nativeUs)} | ${speedup(redisUs, nativeUs)} |  |`;
  } finally {
    redis.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  bloomMexistsRow().then((row) => console.log(row), (e) => {
    console.error(e);
    process.exit(1);
  });
}
