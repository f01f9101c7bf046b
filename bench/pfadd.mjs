// The two PFADD rows of bench/run.mjs alone (issue 16.3), same method: Redis' server-side
// time from INFO commandstats after CONFIG RESETSTAT; wasm: wall time of Engine.command /
// Engine.pfaddBatch in this process, starting from a missing key. Also times the parts of one
// command() call (argv conversion, the PFADD kernel) so the per-call tax can be named.
// Usage: node bench/pfadd.mjs [pkg-dir]   (needs redis-server and redis-cli on PATH)
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cli, freePort, resp } from './redis.mjs';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const PKG = path.resolve(process.argv[2] ?? path.join(ROOT, 'pkg'));
const range = (n, f) => Array.from({ length: n }, (_, i) => f(i));
const commands = (key) => range(1000, (c) => ['PFADD', key, ...range(1000, (j) => `visitor:${c * 1000 + j}`)]);

async function redisUsec(cmds) {
  const port = await freePort();
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) { try { cli(port, ['PING']); break; } catch { await new Promise((r) => setTimeout(r, 50)); } }
  cli(port, ['CONFIG', 'RESETSTAT']);
  cli(port, ['--pipe'], cmds.map(resp).join(''));
  const m = /cmdstat_pfadd:calls=(\d+),usec=(\d+)/.exec(cli(port, ['INFO', 'commandstats']));
  redis.kill();
  return Number(m[2]);
}

const mod = await import(path.join(PKG, 'bitlens.js'));
mod.initSync({ module: readFileSync(path.join(PKG, 'bitlens_bg.wasm')) });
const fmt = (us) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`);
const enc = new TextEncoder();

const cmdCalls = commands('bench:pfadd');
const redisCmd = await redisUsec(cmdCalls);
let e = new mod.Engine();
let t = performance.now();
for (const c of cmdCalls) e.command(c);
const wasmCmd = (performance.now() - t) * 1000;

const batch = cmdCalls.map(([, key, ...els]) => {
  const parts = els.map((x) => enc.encode(x));
  const offsets = new Uint32Array(parts.length + 1);
  parts.forEach((p, i) => { offsets[i + 1] = offsets[i] + p.length; });
  const buf = new Uint8Array(offsets[parts.length]);
  parts.forEach((p, i) => buf.set(p, offsets[i]));
  return { key: 'bench:pfadd-batch', buf, offsets };
});
const redisBatch = await redisUsec(commands('bench:pfadd-batch'));
e = new mod.Engine();
t = performance.now();
for (const c of batch) e.pfaddBatch(c.key, c.buf, c.offsets);
const wasmBatch = (performance.now() - t) * 1000;

console.log(`PFADD 1M via command(): Redis ${fmt(redisCmd)}, wasm ${fmt(wasmCmd)}, ${(redisCmd / wasmCmd).toFixed(2)}×`);
console.log(`PFADD 1M via pfaddBatch: Redis ${fmt(redisBatch)}, wasm ${fmt(wasmBatch)}, ${(redisBatch / wasmBatch).toFixed(2)}×`);

// Parts of one call, on a dense key (what 999 of the 1,000 calls meet): the same elements
// again (no register changes), command() vs pfaddBatch vs the argv conversion alone.
const reps = 200;
const time = (f) => { f(); const t0 = performance.now(); for (let i = 0; i < reps; i++) f(); return ((performance.now() - t0) * 1000) / reps; };
const c0 = cmdCalls[500];
const b0 = batch[500];
const tCmd = time(() => e.command(['PFADD', 'bench:pfadd-batch', ...c0.slice(2)]));
const tBatch = time(() => e.pfaddBatch(b0.key, b0.buf, b0.offsets));
const tHll = time(() => e.command(['PFCOUNT', 'bench:pfadd-batch']));
const tArgv = time(() => { try { e.command(['NOSUCHCMD', ...c0.slice(1)]); } catch {} });
const tStr = time(() => JSON.stringify(c0));
console.log(`one call of 1,000 on a dense key: command() ${fmt(tCmd)}, pfaddBatch ${fmt(tBatch)}, ` +
  `argv conversion + unknown-command error ${fmt(tArgv)}, JSON.stringify(argv) in JS ${fmt(tStr)}, PFCOUNT ${fmt(tHll)}`);
