// The export rows of `npm run bench` (issue 30): `bitlens export` (Parquet with zstd, and Arrow
// IPC) beside `bitlens inspect --csv` in the same run, on the 336 MB bench data set, on the
// key-heavy file of bench/keyspace.mjs (3,000,000 small keys of five types that redis-server
// writes) and on the generated 1 GB file (`bitlens-bench gen-big`: 48 bitmaps of 12.5 MB and 4,000,000
// keys of 100 bytes). One run each of the release CLI; MB/s is file bytes per second of wall
// time, keys/s the rows written per second, peak RSS the child's `ru_maxrss` (as
// bench/inspect.mjs measures it).
//
// Run alone: `node bench/export.mjs` (after `cargo build --release -p bitlens-cli -p
// bitlens-bench` and one `npm run bench`, or `bitlens-bench gen` / `gen-big` into
// target/bench-data); bench/run.mjs calls `exportSection()`.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { keyheavyFile } from './keyspace.mjs';
import { measured } from './measure.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GEN = path.join(ROOT, 'target/release/bitlens-bench');
const BITLENS = path.join(ROOT, 'target/release/bitlens');
const DATA_DIR = path.join(ROOT, 'target/bench-data');
const BIG = path.join(DATA_DIR, 'big.rdb');

const mb = (b) => `${(b / 1e6).toFixed(0)} MB`;
const perS = (n, ms) => Math.round(n / (ms / 1000)).toLocaleString('en-US');

/** The markdown lines of the export section for `dump` (the data set), the key-heavy file of
 * bench/keyspace.mjs (3,000,000 small keys written by redis-server) and the 1 GB file. */
export async function exportSection(dump) {
  const keyheavy = await keyheavyFile();
  if (!existsSync(BIG) || statSync(BIG).mtimeMs < statSync(GEN).mtimeMs) {
    console.log('[bench] generating the 1 GB inspection file (bitlens-bench gen-big)');
    execFileSync(GEN, ['gen-big', BIG], { stdio: 'inherit' });
  }
  const rows = [];
  for (const [label, file] of [
    ['the 336 MB bench RDB', dump],
    [`the key-heavy file (${keyheavy.keys.toLocaleString('en-US')} small keys of five types, written by redis-server)`, keyheavy.file],
    ['the key-heavy 1 GB RDB (4,000,000 keys of 100 bytes, 48 bitmaps of 12.5 MB)', BIG],
  ]) {
    const size = statSync(file).size;
    const out = mkdtempSync(path.join(os.tmpdir(), 'bitlens-export-'));
    try {
      // inspect --csv prints a header and one line per key.
      const csv = measured([BITLENS, 'inspect', file, '--csv']);
      const keys = csv.lines - 1;
      const runs = [
        ['`inspect FILE --csv`', csv],
        ['`export FILE --out DIR` (Parquet, zstd)', measured([BITLENS, 'export', file, '--out', out])],
        ['`export FILE --out DIR --format arrow`', measured([BITLENS, 'export', file, '--out', out, '--format', 'arrow'])],
      ];
      if (file === keyheavy.file) {
        // Issue 29's key-heavy rows: the full report and the JSON-lines dump of the same file.
        runs.push(['`inspect FILE` (the full text report)', measured([BITLENS, 'inspect', file])]);
        runs.push(['`dump FILE` (JSON lines)', measured([BITLENS, 'dump', file])]);
      }
      for (const [what, r] of runs) {
        if (what.startsWith('`export') && !r.tail.includes(`: ${keys} keys ->`)) {
          throw new Error(`${what} on ${file}: expected ${keys} keys, got ${r.tail}`);
        }
        rows.push(
          `| ${what} on ${label} | ${(r.ms / 1000).toFixed(2)} s | ${((size / 1e6) / (r.ms / 1000)).toFixed(0)} MB/s | ${perS(keys, r.ms)} keys/s | ${mb(r.peak)} |`,
        );
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }
  return [
    '## Export to Parquet and Arrow (issue 30)',
    '',
    'One run each of the release CLI in the same run: `bitlens export` (one row per key, rows streamed out in batches of 65,536) beside `inspect --csv` (the same per-key figures as rdbtools\' CSV); on the key-heavy file also the full `inspect` report and `dump` (JSON lines). Redis\' own load of that file is in the keyspace section below. MB/s: file bytes per second of wall time; keys/s: keys per second.',
    '',
    '| command | time | MB/s | keys/s | peak RSS |',
    '|---|---|---|---|---|',
    ...rows,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dump = path.join(DATA_DIR, 'dump.rdb');
  for (const f of [GEN, BITLENS, dump]) {
    if (!existsSync(f)) throw new Error(`${f} is missing: run npm run bench once (or build and bitlens-bench gen)`);
  }
  console.log((await exportSection(dump)).join('\n'));
}
