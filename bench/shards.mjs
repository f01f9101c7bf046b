// The "many files" rows of `npm run bench` (issue 29): the key-heavy data set of
// bench/keyspace.mjs as 4 shard files (node i of a 4-node cluster holds the keys of the i-th
// quarter of the hash slots; each file written by redis-server), read all at once by one
// `bitlens` process against the four read one by one, in the same run. One run each of the
// release CLI; time is wall time, peak RSS the child's `ru_maxrss` (bench/measure.mjs).
//
// Run alone: `node bench/shards.mjs` (after `cargo build --release -p bitlens-cli -p
// bitlens-bench`); bench/run.mjs calls `shardsSection()`.

import os from 'node:os';
import path from 'node:path';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { keyheavyShards } from './keyspace.mjs';
import { measured } from './measure.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BITLENS = path.join(ROOT, 'target/release/bitlens');
const SHARDS = 4;

const mb = (b) => `${(b / 1e6).toFixed(0)} MB`;
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;

/** The markdown lines of the many-files section. */
export async function shardsSection() {
  const shards = await keyheavyShards(SHARDS);
  const files = shards.map((x) => x.file);
  const keys = shards.reduce((a, x) => a + x.keys, 0);
  const bytes = files.reduce((a, f) => a + statSync(f).size, 0);
  const rows = [];
  for (const [what, together, alone, verify] of [
    [
      '`query --rdb` × 4 `DBSIZE` (load all four as one keyspace)',
      [BITLENS, 'query', ...files.flatMap((f) => ['--rdb', f]), 'DBSIZE'],
      (f) => [BITLENS, 'query', '--rdb', f, 'DBSIZE'],
      (r) => r.tail.trim() === String(keys),
    ],
    [
      '`inspect` (the full text report of the union)',
      [BITLENS, 'inspect', ...files],
      (f) => [BITLENS, 'inspect', f],
      () => true,
    ],
    [
      '`inspect --csv` (every key once)',
      [BITLENS, 'inspect', '--csv', ...files],
      (f) => [BITLENS, 'inspect', '--csv', f],
      (r) => r.lines - 1 === keys,
    ],
  ]) {
    const all = measured(together);
    if (!verify(all)) throw new Error(`${what}: ${all.tail} (${all.lines} lines)`);
    const one = files.map((f) => measured(alone(f)));
    const sum = one.reduce((a, r) => a + r.ms, 0);
    const peakOne = Math.max(...one.map((r) => r.peak));
    rows.push(`| ${what} | ${s(all.ms)}, peak RSS ${mb(all.peak)} | ${s(sum)} (${one.map((r) => s(r.ms)).join(' + ')}), largest peak RSS ${mb(peakOne)} | ${(sum / all.ms).toFixed(2)}× |`);
  }
  return [
    '## Many files at once (issue 29)',
    '',
    `The key-heavy data set as ${SHARDS} shard files, as the nodes of a ${SHARDS}-node cluster hold it (node i: the keys of the i-th quarter of the hash slots; ${keys.toLocaleString('en-US')} keys, ${mb(bytes)} in all, each file written by redis-server). One \`bitlens\` process given all four against four processes given one each, one after the other, in the same run, with every core (${os.cpus().length}) for each. Target: all four at once ≥ 1.8× faster than one by one.`,
    '',
    '| command | all four at once | one by one (sum) | speed-up |',
    '|---|---|---|---|',
    ...rows,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log((await shardsSection()).join('\n'));
}
