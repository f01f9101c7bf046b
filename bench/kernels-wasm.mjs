// The hot wasm kernels alone, to compare builds of pkg/ (issue 15: bundle size must not cost
// kernel speed). Same data and timing method as bench/run.mjs (bitlens-bench gen / gen-geo,
// wall time of Engine.command / pfaddBatch / loadRdb in Node), but only these rows, and every
// pkg dir given is timed in its own Node process, alternating, so that all of them see the
// same machine load. Each figure is the best of ROUNDS rounds (and of PASSES processes).
// Usage: node bench/kernels-wasm.mjs [pkg-dir ...]   (default: pkg)
//   env ROUNDS (default 5), PASSES (default 2: A B A B ... process passes)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GEN = path.join(ROOT, 'target/release/bitlens-bench');
const DATA = path.join(ROOT, 'target/bench-data');
const DUMP = path.join(DATA, 'dump.rdb');
const GEO = path.join(DATA, 'geo.rdb');
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const PASSES = Number(process.env.PASSES ?? 2);

const range = (n, f) => Array.from({ length: n }, (_, i) => f(i));
const pad2 = (i) => String(i).padStart(2, '0');
const hll = (i) => `bench:hll:${pad2(i)}`;

/** One pkg dir timed in this process; prints one JSON line of best times (µs per call). */
async function child(pkg) {
  const mod = await import(path.join(pkg, 'bitlens.js'));
  mod.initSync({ module: readFileSync(path.join(pkg, 'bitlens_bg.wasm')) });
  // The best round: on a shared machine the least disturbed one is the closest to the cost.
  const best = (xs) => Math.min(...xs);
  const time = (iters, f) => {
    const t = performance.now();
    for (let i = 0; i < iters; i++) f();
    return ((performance.now() - t) * 1000) / iters;
  };
  const out = {};
  const geo = readFileSync(GEO);
  const loads = range(ROUNDS, () => {
    const e = new mod.Engine();
    const t = performance.now();
    const n = e.loadRdb(geo);
    const us = (performance.now() - t) * 1000;
    if (n !== 1) throw new Error(`geo.rdb gave ${n} keys`);
    e.free();
    return us;
  });
  out.loadRdb_geo20MB = best(loads);

  const engine = new mod.Engine();
  engine.loadRdb(readFileSync(DUMP));
  const rows = {
    pfcount30: [['PFCOUNT', ...range(30, hll)], 100],
    pfmerge30: [['PFMERGE', 'bench:merged', ...range(30, hll)], 100],
    bitpos0: [['BITPOS', 'bench:ones', '0'], 30],
    bitcount: [['BITCOUNT', 'bench:bm:00'], 30],
    geosearch: [['GEOSEARCH', 'bench:geo', 'FROMLONLAT', '121.47', '31.23', 'BYRADIUS', '3', 'km', 'ASC', 'COUNT', '50'], 200],
  };
  const replies = {};
  for (const [id, [cmd, iters]] of Object.entries(rows)) {
    replies[id] = engine.command(cmd);
    time(iters, () => engine.command(cmd)); // warm-up
    out[id] = best(range(ROUNDS, () => time(iters, () => engine.command(cmd))));
  }
  const enc = new TextEncoder();
  const calls = range(1000, (c) => {
    const parts = range(1000, (j) => enc.encode(`visitor:${c * 1000 + j}`));
    const offsets = new Uint32Array(parts.length + 1);
    parts.forEach((p, i) => { offsets[i + 1] = offsets[i] + p.length; });
    const buf = new Uint8Array(offsets[parts.length]);
    parts.forEach((p, i) => buf.set(p, offsets[i]));
    return { buf, offsets };
  });
  out.pfaddBatch_1000x1000 = best(range(ROUNDS, (r) => {
    const key = `bench:pfadd-batch:${r}`;
    const t = performance.now();
    for (const c of calls) engine.pfaddBatch(key, c.buf, c.offsets);
    return (performance.now() - t) * 1000;
  }));
  replies.pfadd = engine.command(['PFCOUNT', 'bench:pfadd-batch:0']);
  // The merged (dense, cache invalid) key's count and one key's register histogram check
  // pack, the body histogram and unpack.
  replies.merged = engine.command(['PFCOUNT', 'bench:merged']);
  replies.histogram = engine.keyDetail('bench:hll:00').registerHistogram.join(',');
  replies.bitpos1 = engine.command(['BITPOS', 'bench:bm:00', '1', '1000']);
  console.log(JSON.stringify({ out, replies }));
}

async function main() {
  const pkgs = process.argv.slice(2).map((p) => path.resolve(p));
  if (pkgs.length === 0) pkgs.push(path.join(ROOT, 'pkg'));
  mkdirSync(DATA, { recursive: true });
  if (!existsSync(DUMP)) execFileSync(GEN, ['gen', DUMP], { stdio: 'inherit' });
  if (!existsSync(GEO)) execFileSync(GEN, ['gen-geo', GEO], { stdio: 'inherit' });
  const results = pkgs.map(() => []);
  let replies0;
  for (let pass = 0; pass < PASSES; pass++) {
    pkgs.forEach((pkg, i) => {
      const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', pkg], { maxBuffer: 1 << 24, env: process.env });
      if (r.status !== 0) throw new Error(`${pkg}: ${r.stderr}`);
      const { out, replies } = JSON.parse(r.stdout.toString());
      const rs = JSON.stringify(replies);
      if (replies0 === undefined) replies0 = rs;
      else if (rs !== replies0) throw new Error(`${pkg}: replies differ: ${rs} vs ${replies0}`);
      results[i].push(out);
    });
  }
  const fmt = (us) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`);
  const ids = Object.keys(results[0][0]);
  console.log(`| kernel | ${pkgs.map((p) => path.basename(p)).join(' | ')} |`);
  console.log(`|---|${pkgs.map(() => '---').join('|')}|`);
  for (const id of ids) {
    // Best of the passes: the pass least disturbed by other work.
    console.log(`| ${id} | ${results.map((rs) => fmt(Math.min(...rs.map((o) => o[id])))).join(' | ')} |`);
  }
  for (const p of pkgs) {
    const w = readFileSync(path.join(p, 'bitlens_bg.wasm'));
    const gz = execFileSync('sh', ['-c', `gzip -9c '${path.join(p, 'bitlens_bg.wasm')}' | wc -c`]).toString().trim();
    console.log(`${path.basename(p)}: ${w.length} B raw, ${gz} B gzip -9`);
  }
}

if (process.argv[2] === '--child') await child(process.argv[3]);
else await main();
