// The sign-ins card at scale (issue 19.1): its commands over 10,000,000 per-user monthly keys
// `sign:<uid>:202405` (`bitlens-bench gen-signins`), natively (`bitlens-bench run`, the file
// loaded first) and in wasm (Node, `Engine.command`), with the load times.
//
// The card asks BITLENS.SIGNINHIST for the chosen day, BITLENS.SIGNINDAYS for its per-day
// strip (every day so far in one pass) and BITLENS.DAYSHIST; its carried-streak table stops at
// 20,000 keys (CARRY_LIMIT in www/userstory.js) and says so, so it is not in these figures.
// Redis has no command for these questions (a client would GETBIT every key), so the rows
// have no Redis column; keys per second is the figure to compare.
//
// Run alone: `node bench/signins.mjs [N]` (after `cargo build --release -p bitlens-bench` and
// `npm run build`); bench/run.mjs calls `signinsSection()`.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GEN = path.join(ROOT, 'target/release/bitlens-bench');
const DATA_DIR = path.join(ROOT, 'target/bench-data');
const PATTERN = 'sign:*:202405';
const DAY = 20;

/** The card's commands: [id, label, argv list]. */
const SPECS = [
  ['hist', `\`BITLENS.SIGNINHIST ${PATTERN} ${DAY}\` (users signed in on day ${DAY}, their streaks)`, [['BITLENS.SIGNINHIST', PATTERN, String(DAY)]]],
  ['strip', `the per-day strip: \`BITLENS.SIGNINDAYS ${PATTERN} ${DAY}\` (users signed in on each day 1 … ${DAY}, one pass)`, [['BITLENS.SIGNINDAYS', PATTERN, String(DAY)]]],
  ['days', `\`BITLENS.DAYSHIST ${PATTERN} 31\` (days signed this month)`, [['BITLENS.DAYSHIST', PATTERN, '31']]],
];

const WASM_CHILD = `
  const { readFileSync } = await import('node:fs');
  const mod = await import(${JSON.stringify(path.join(ROOT, 'pkg/bitlens.js'))});
  mod.initSync({ module: readFileSync(${JSON.stringify(path.join(ROOT, 'pkg/bitlens_bg.wasm'))}) });
  const specs = JSON.parse(process.argv[2]);
  const bytes = readFileSync(process.argv[1]);
  const engine = new mod.Engine();
  let t = performance.now();
  engine.loadRdb(bytes);
  const loadMs = performance.now() - t;
  const out = { loadMs, keys: engine.dbsize(), ms: {} };
  for (const [id, , cmds] of specs) {
    let best = Infinity;
    for (let r = 0; r < 2; r++) {
      t = performance.now();
      for (const c of cmds) engine.command(c);
      best = Math.min(best, performance.now() - t);
    }
    out.ms[id] = best;
  }
  console.log(JSON.stringify(out));`;

/** The markdown lines of the section for `n` keys (the file is made on first use). */
export function signinsSection(n = 10_000_000) {
  const file = path.join(DATA_DIR, `signins-${n}.rdb`);
  if (!existsSync(file) || statSync(file).mtimeMs < statSync(GEN).mtimeMs) {
    console.log(`[bench] writing ${n} sign-in keys (bitlens-bench gen-signins)`);
    execFileSync(GEN, ['gen-signins', file, String(n)], { stdio: 'inherit' });
  }
  const mb = statSync(file).size / 1e6;
  const spec = SPECS.map(([id, , commands]) => ({ id, commands, iters: 2, warmup: true }));
  let t = performance.now();
  const nat = spawnSync(GEN, ['run', file], { input: JSON.stringify(spec), maxBuffer: 1 << 20 });
  const nativeTotalMs = performance.now() - t;
  if (nat.status !== 0) throw new Error(`bitlens-bench run ${file}: ${nat.stderr}`);
  const nativeUs = JSON.parse(nat.stdout.toString());
  const w = spawnSync(process.execPath, ['--max-old-space-size=4096', '--input-type=module', '-e', WASM_CHILD, file, JSON.stringify(SPECS)], { maxBuffer: 1 << 20 });
  const wasm = w.status === 0 ? JSON.parse(w.stdout.toString()) : null;
  const wasmWhy = wasm ? '' : String(w.stderr).trim().split('\n').filter(Boolean).at(-1) || `exit ${w.status}`;
  const fmtMs = (ms) => (ms === undefined ? 'n/a' : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
  const rate = (ms, calls) => (ms ? `${((n * calls) / (ms / 1000) / 1e6).toFixed(0)} M keys/s` : 'n/a');
  const rows = SPECS.map(([id, what, cmds]) => {
    const nativeMs = nativeUs[id] / 1000;
    const wasmMs = wasm ? wasm.ms[id] : undefined;
    return `| ${what} | ${fmtMs(wasmMs)} (${rate(wasmMs, cmds.length)}) | ${fmtMs(nativeMs)} (${rate(nativeMs, cmds.length)}) |`;
  });
  const cardNative = SPECS.reduce((a, [id]) => a + nativeUs[id] / 1000, 0);
  const cardWasm = wasm ? SPECS.reduce((a, [id]) => a + wasm.ms[id], 0) : undefined;
  return [
    `## The sign-ins card on ${n.toLocaleString('en-US')} keys (issue 19.1)`,
    '',
    `${n.toLocaleString('en-US')} keys \`sign:<uid>:202405\` of 4 bytes (${mb.toFixed(0)} MB RDB, \`bitlens-bench gen-signins\`). wasm: \`Engine.command\` in Node, best of 2${wasm ? `, after a ${fmtMs(wasm.loadMs)} \`loadRdb\` (${wasm.keys.toLocaleString('en-US')} keys)` : ` (not measured: ${wasmWhy})`}. native: \`bitlens::execute\`, mean of 2 after a warm-up (the whole \`bitlens-bench run\`, load included, took ${fmtMs(nativeTotalMs)}). No Redis column: Redis has no such command.`,
    '',
    '| the card asks | bitlens wasm | bitlens native |',
    '|---|---|---|',
    ...rows,
    `| the card's numbers in all (the rows above) | ${fmtMs(cardWasm)} | ${fmtMs(cardNative)} |`,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(signinsSection(Number(process.argv[2] || 10_000_000)).join('\n'));
}
