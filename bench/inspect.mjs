// The inspection rows of `npm run bench` (issue 17.5): `bitlens inspect` and `bitlens query`
// streaming a file through the chunked reader, timed, with the peak RSS of the process.
//
// Files: the 336 MB bench data set and a generated file of about 1 GB
// (`bitlens-bench gen-big`: 48 bitmaps of 12.5 MB and 4,000,000 keys of 100 bytes).
// Peak RSS is the child's `ru_maxrss` (getrusage RUSAGE_CHILDREN, read by a python3 one-liner,
// as Node has no rusage of a child). Targets: `inspect` under 128 MiB plus the top-N, `query`
// under 1.2× the decoded size of the keys it loads (here the bitmaps selected by `--match`,
// whose decoded size is their byte length).
//
// Run alone: `node bench/inspect.mjs` (after `cargo build --release -p bitlens-cli -p
// bitlens-bench`); bench/run.mjs calls `inspectSection()`.

import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { measured } from './measure.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GEN = path.join(ROOT, 'target/release/bitlens-bench');
const BITLENS = path.join(ROOT, 'target/release/bitlens');
const DATA_DIR = path.join(ROOT, 'target/bench-data');
const BIG = path.join(DATA_DIR, 'big.rdb');

const MiB = 1 << 20;
const mb = (b) => `${(b / 1e6).toFixed(0)} MB`;

/**
 * The markdown lines of the inspection section for the files `dump` (the data set) and the
 * generated 1 GB file (made on first use).
 */
export function inspectSection(dump) {
  if (!existsSync(BIG) || statSync(BIG).mtimeMs < statSync(GEN).mtimeMs) {
    console.log('[bench] generating the 1 GB inspection file (bitlens-bench gen-big)');
    execFileSync(GEN, ['gen-big', BIG], { stdio: 'inherit' });
  }
  const rows = [];
  for (const [label, file] of [
    ['the 336 MB bench RDB', dump],
    ['the generated 1 GB RDB (48 bitmaps of 12.5 MB, 4,000,000 keys of 100 bytes)', BIG],
  ]) {
    const size = statSync(file).size;
    for (const [what, argv] of [
      ['`inspect FILE` (text report, top 20)', ['inspect', file]],
      ['`inspect FILE --json --top 100`', ['inspect', file, '--json', '--top', '100']],
    ]) {
      const r = measured([BITLENS, ...argv]);
      const verdict = r.peak <= 128 * MiB + 16 * MiB ? 'within' : 'over';
      rows.push(
        `| ${what} on ${label} | ${(r.ms / 1000).toFixed(2)} s | ${((size / 1e6) / (r.ms / 1000)).toFixed(0)} MB/s | ${mb(r.peak)} | ${verdict} 128 MiB (+ top-N) |`,
      );
    }
  }
  // query --match: the decoded size of the keys it loads is known (12.5 MB per bitmap).
  const q = measured([BITLENS, 'query', '--rdb', BIG, '--match', 'big:bm:*', 'DBSIZE']);
  const decoded = 48 * 12_500_000;
  rows.push(
    `| \`query --rdb FILE --match 'big:bm:*' DBSIZE\` on the 1 GB RDB (loads the 48 bitmaps, ${mb(decoded)} decoded) | ${(q.ms / 1000).toFixed(2)} s | ${((statSync(BIG).size / 1e6) / (q.ms / 1000)).toFixed(0)} MB/s | ${mb(q.peak)} | ${(q.peak / decoded).toFixed(2)}× the decoded size (target ≤ 1.2×) |`,
  );
  return [
    '## Inspection and query on big files (issue 17.5)',
    '',
    'One run each of the release CLI, streaming the file through the chunked reader (the file is never held whole; `inspect` spills its key rows past 16 MiB to a temporary file and builds the report in passes over them). Peak RSS: the process\' `ru_maxrss`. MB/s: file bytes per second of wall time.',
    '',
    '| command | time | MB/s | peak RSS | target |',
    '|---|---|---|---|---|',
    ...rows,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dump = path.join(DATA_DIR, 'dump.rdb');
  for (const f of [GEN, BITLENS, dump]) {
    if (!existsSync(f)) throw new Error(`${f} is missing: run npm run bench once (or build and bitlens-bench gen)`);
  }
  console.log(inspectSection(dump).join('\n'));
}
