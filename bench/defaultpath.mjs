// The rows of issue 52 (items 1–2): `bitlens inspect` on the key-heavy file with the allocator
// inferred (the default) against the same report with the allocator named, against Redis' own
// load of the file, and `inspect --csv` and `export` against librdb's `rdb-cli print`, every
// reference measured in the same run. The key-heavy file is written by the redis-server on
// PATH (Debian's 7.0.15 here: system jemalloc, 16-byte quantum, so the inferred allocator is
// not the version's usual one: the path that read the file twice before issue 52).
//
// Each command runs ROUNDS times, interleaved with its reference (A B A B ...), and the median
// is kept: the machine is shared, so a ratio is only taken between runs of the same rounds.
// Peak RSS: the child's `ru_maxrss`, the largest over the rounds. With BITLENS_BASELINE set to
// another bitlens binary (an older build), its default `inspect` is measured too, for the
// "peak memory no higher than before" target.
//
// Run alone: `node bench/defaultpath.mjs` (after `cargo build --release -p bitlens-cli -p
// bitlens-bench`; rdb-cli as bench/peers.mjs finds it); bench/run.mjs calls
// `defaultPathSection()`.

import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { keyheavyFile, redisHolding } from './keyspace.mjs';
import { measured } from './measure.mjs';
import { librdbVersion, rdbCli } from './peers.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BITLENS = path.join(ROOT, 'target/release/bitlens');
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;

/** The markdown lines of the issue-52 section. */
export async function defaultPathSection() {
  const { file, keys } = await keyheavyFile();
  const size = statSync(file).size;
  const cores = os.cpus().length;
  const loadBefore = os.loadavg()[0];
  const peer = rdbCli();
  const out = mkdtempSync(path.join(os.tmpdir(), 'bitlens-defaultpath-'));
  const baseline = process.env.BITLENS_BASELINE;
  // name -> argv (a function of the round, for outputs that must not exist yet).
  const cmds = {
    inspect: () => [BITLENS, 'inspect', file],
    named: () => [BITLENS, 'inspect', file, '--allocator', 'jemalloc16'],
    csv: () => [BITLENS, 'inspect', file, '--csv'],
    csvNamed: () => [BITLENS, 'inspect', file, '--csv', '--allocator', 'jemalloc16'],
    exportPq: (i) => [BITLENS, 'export', file, '--out', path.join(out, `pq${i}`)],
  };
  if (peer.bin) cmds.print = () => [peer.bin, file, '-l', '/dev/null', 'print', '-k', '%d,%k,%t,%e,%i', '-o', '/dev/null'];
  if (baseline && existsSync(baseline)) cmds.baseline = () => [baseline, 'inspect', file];
  const runs = Object.fromEntries(Object.keys(cmds).map((k) => [k, []]));
  const redisLoads = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      console.error(`[bench] issue 52 round ${i + 1} of ${ROUNDS}`);
      // A fresh directory a round: redis-server appends to its log, whose first "DB loaded"
      // line is the one read.
      const dir = mkdtempSync(path.join(os.tmpdir(), 'bitlens-defaultpath-redis-'));
      try {
        redisLoads.push((await redisHolding(dir, file, keys)).loadMs);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      for (const [k, argv] of Object.entries(cmds)) runs[k].push(measured(argv(i)));
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  const t = (k) => median(runs[k].map((r) => r.ms));
  const cpu = (k) => median(runs[k].map((r) => r.cpuMs));
  const peak = (k) => Math.max(...runs[k].map((r) => r.peak));
  const all = (k) => runs[k].map((r) => (r.ms / 1000).toFixed(2)).join(', ');
  const redisMs = median(redisLoads);
  const x = (a, b) => `${(a / b).toFixed(2)}×`;
  const verdict = (ok) => (ok ? 'met' : 'not met');
  const rows = [];
  const row = (target, what, k, refWhat, refMs, ratio, ok) => rows.push(
    `| ${target} | ${what} | ${s(t(k))} (${all(k)}); CPU ${s(cpu(k))} | ${(peak(k) / 1e6).toFixed(0)} MB | ${refWhat} | ${s(refMs)} | ${ratio} | ${verdict(ok)} |`,
  );
  const cpuX = (k, ref) => `; CPU ${(cpu(k) / cpu(ref)).toFixed(2)}×`;
  row('default `inspect` ≤ Redis\' own load of the file', '`inspect FILE` (allocator inferred)', 'inspect',
    `redis-server's "DB loaded from disk" (${redisLoads.map((m) => (m / 1000).toFixed(2)).join(', ')} s)`, redisMs, x(t('inspect'), redisMs), t('inspect') <= redisMs);
  row('default `inspect` within 5% of the allocator named', '`inspect FILE`', 'inspect',
    `\`inspect FILE --allocator jemalloc16\` (${all('named')} s; CPU ${s(cpu('named'))})`, t('named'), x(t('inspect'), t('named')) + cpuX('inspect', 'named'), t('inspect') <= 1.05 * t('named'));
  if (peer.bin) {
    row('`inspect --csv` ≤ 0.6× librdb `rdb-cli print`', '`inspect FILE --csv` (allocator inferred)', 'csv',
      `\`rdb-cli FILE print -k "%d,%k,%t,%e,%i"\` (${all('print')} s; CPU ${s(cpu('print'))})`, t('print'), x(t('csv'), t('print')) + cpuX('csv', 'print'), t('csv') <= 0.6 * t('print'));
    row('`export` ≤ 1.0× librdb `rdb-cli print`', '`export FILE --out DIR` (Parquet, allocator inferred)', 'exportPq',
      '`rdb-cli … print` (as above)', t('print'), x(t('exportPq'), t('print')) + cpuX('exportPq', 'print'), t('exportPq') <= t('print'));
  } else {
    rows.push(`| \`inspect --csv\` and \`export\` against librdb | not measured: ${peer.missing} | | | | | | |`);
  }
  row('default `inspect --csv` within 5% of the allocator named', '`inspect FILE --csv` (allocator inferred)', 'csv',
    `\`inspect FILE --csv --allocator jemalloc16\` (${all('csvNamed')} s; CPU ${s(cpu('csvNamed'))})`, t('csvNamed'), x(t('csv'), t('csvNamed')) + cpuX('csv', 'csvNamed'), t('csv') <= 1.05 * t('csvNamed'));
  if (runs.baseline) {
    row('peak memory of default `inspect` no higher than before', '`inspect FILE`', 'inspect',
      `BITLENS_BASELINE's \`inspect FILE\` (${all('baseline')} s, peak ${(peak('baseline') / 1e6).toFixed(0)} MB)`, t('baseline'), `peak ${x(peak('inspect'), peak('baseline'))}, time ${x(t('inspect'), t('baseline'))}`, peak('inspect') <= peak('baseline'));
  }
  return [
    '## The default path as fast as the best one (issue 52)',
    '',
    `The key-heavy file (${keys.toLocaleString('en-US')} keys, ${(size / 1e6).toFixed(0)} MB, written by the redis-server on PATH: Debian's 7.0.15, whose allocator, jemalloc with a 16-byte quantum, is inferred from \`used-mem\`). ${ROUNDS} rounds, each command and its reference run one after the other in every round; the time is the median wall time (every round's in brackets), CPU the median user + system time of all threads (less disturbed by other work than wall time), peak RSS the largest. bitlens on every core (${cores} threads). ` +
      (peer.bin ? `Peer: librdb's \`rdb-cli\` (${librdbVersion(peer.bin)}; one thread), printing every key's db, name, type, expiry and info to /dev/null. ` : '') +
      `Load average (1 min) ${loadBefore.toFixed(1)} at the start, ${os.loadavg()[0].toFixed(1)} at the end. Ratio: bitlens' time ÷ the reference's (below 1: bitlens is faster).`,
    '',
    '| target | command | time (median; rounds) | peak RSS | reference | reference time | ratio | target |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log((await defaultPathSection()).join('\n'));
}
