// The peer rows of `npm run bench` (issue 29): bitlens on the key-heavy file of
// bench/keyspace.mjs (3,000,000 small keys that redis-server 7.x writes) beside librdb's
// `rdb-cli` (https://github.com/redis/librdb, Redis Ltd.'s C RDB parser) on the same file, in
// the same run. One run each; keys/s is the file's key count per second of wall time, peak RSS
// the child's `ru_maxrss` (bench/measure.mjs).
//
// rdb-cli is not installed by any package manager: it is found at $BITLENS_RDB_CLI, or at
// target/peers/librdb/bin/rdb-cli, built there with `make` when the source tree (librdb with its
// deps/hiredis submodule) is present. Without it the section says so and keeps Redis' own load
// (the keyspace section) as the reference.
//
// Run alone: `node bench/peers.mjs` (after `cargo build --release -p bitlens-cli -p
// bitlens-bench`); bench/run.mjs calls `peersSection()`.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { keyheavyFile } from './keyspace.mjs';
import { measured } from './measure.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BITLENS = path.join(ROOT, 'target/release/bitlens');
const LIBRDB = path.join(ROOT, 'target/peers/librdb');

/** The path of a usable rdb-cli, building it from target/peers/librdb when only the source is
 * there; `{ missing }` with the reason otherwise. */
export function rdbCli() {
  const given = process.env.BITLENS_RDB_CLI;
  if (given) return existsSync(given) ? { bin: given } : { missing: `BITLENS_RDB_CLI=${given} does not exist` };
  const bin = path.join(LIBRDB, 'bin/rdb-cli');
  if (existsSync(bin)) return { bin };
  if (!existsSync(path.join(LIBRDB, 'Makefile')) || !existsSync(path.join(LIBRDB, 'deps/hiredis/hiredis.c'))) {
    return { missing: 'librdb\'s source is not in target/peers/librdb (clone https://github.com/redis/librdb with its deps/hiredis submodule there, or set BITLENS_RDB_CLI)' };
  }
  console.log('[bench] building librdb\'s rdb-cli (make)');
  execFileSync('make', ['-C', LIBRDB, '-j', '2'], { stdio: 'ignore' });
  return existsSync(bin) ? { bin } : { missing: '`make` in target/peers/librdb gave no bin/rdb-cli' };
}

/** The librdb version and commit, as far as the tree says. */
export function librdbVersion(bin) {
  let usage = '';
  try {
    execFileSync(bin, [], { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    usage = `${e.stdout || ''}${e.stderr || ''}`;
  }
  const v = /\[v([0-9.]+)\]/.exec(usage);
  let commit = '';
  try {
    // A clone, or a source tree unpacked with its commit written in COMMIT (not a tree
    // inside another repository's: git would name that one's HEAD).
    commit = existsSync(path.join(LIBRDB, '.git'))
      ? execFileSync('git', ['-C', LIBRDB, 'rev-parse', '--short', 'HEAD']).toString().trim()
      : readFileSync(path.join(LIBRDB, 'COMMIT'), 'utf8').trim();
  } catch {
    // Not a git tree and no COMMIT (BITLENS_RDB_CLI elsewhere).
  }
  return `${v ? `v${v[1]}` : 'unknown version'}${commit ? `, commit ${commit}` : ''}`;
}

/** The markdown lines of the peers section. */
export async function peersSection() {
  const { file, keys } = await keyheavyFile();
  const size = statSync(file).size;
  const peer = rdbCli();
  const rows = [];
  const row = (tool, what, r, reference) => {
    const vs = reference ? `${(reference.ms / r.ms).toFixed(2)}×` : '';
    rows.push(`| ${tool} | ${what} | ${(r.ms / 1000).toFixed(2)} s | ${Math.round(keys / (r.ms / 1000)).toLocaleString('en-US')} | ${(r.peak / 1e6).toFixed(0)} MB | ${vs} |`);
  };
  const cores = os.cpus().length;
  let print;
  let json;
  if (peer.bin) {
    // Every key with its value, one line each (rdb-cli's default `print` format), and the JSON
    // form; both to a pipe, as bitlens writes them. A peer that fails on the file loses its
    // rows, not bitlens'.
    try {
      print = measured([peer.bin, file, '-l', '/dev/null', 'print']);
      json = measured([peer.bin, file, '-l', '/dev/null', 'json']);
    } catch (e) {
      peer.missing = `rdb-cli failed on the file: ${String(e.message).slice(0, 300)}`;
      delete peer.bin;
    }
  }
  const runs = [
    [`\`query --rdb FILE DBSIZE\` (load, ${cores} threads)`, measured([BITLENS, 'query', '--rdb', file, 'DBSIZE']), print],
    ['`query --rdb FILE DBSIZE` (load, 1 thread)', measured([BITLENS, '--threads', '1', 'query', '--rdb', file, 'DBSIZE']), print],
    ['`inspect FILE` (the full report, memory estimated)', measured([BITLENS, 'inspect', file]), print],
    // Where the full report's time goes: the prefix tree's second level (`user:{id}:`, one
    // prefix per key here: more than the tally's cap, so counted in one more pass over the
    // spilled rows, in partitions on disk), then the whole tree.
    ['`inspect FILE --depth 1` (the report, prefix tree one level deep)', measured([BITLENS, 'inspect', file, '--depth', '1']), print],
    ['`inspect FILE --depth 0` (the report without a prefix tree)', measured([BITLENS, 'inspect', file, '--depth', '0']), print],
    ['`inspect FILE --csv` (every key, memory estimated)', measured([BITLENS, 'inspect', file, '--csv']), print],
    ['`dump FILE` (every key and value, JSON lines)', measured([BITLENS, 'dump', file]), json],
  ];
  if (print) {
    row('librdb', '`rdb-cli FILE print` (every key and value, one line each; no memory estimate)', print);
    row('librdb', '`rdb-cli FILE json`', json);
  }
  for (const [what, r, ref] of runs) row('bitlens', what, r, ref);
  return [
    '## The key-heavy file against librdb (issue 29)',
    '',
    `The key-heavy file (${keys.toLocaleString('en-US')} small keys of five types, ${(size / 1e6).toFixed(0)} MB, written by redis-server), one run each in the same run; bitlens with every core (${cores}) unless told. ` +
      (peer.bin
        ? `Peer: librdb's \`rdb-cli\` (${librdbVersion(peer.bin)}, built with \`make\`; one thread: it has no parallel mode). "vs librdb": rdb-cli's time ÷ bitlens' (above 1: bitlens is faster), against \`print\` for the load and inspect rows and \`json\` for \`dump\`. Redis' own load of the file is in the keyspace section.`
        : `librdb's rdb-cli was not measured: ${peer.missing}. Redis' own load of the file (the keyspace section) is the reference.`),
    '',
    '| tool | command | time | keys/s | peak RSS | vs librdb |',
    '|---|---|---|---|---|---|',
    ...rows,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log((await peersSection()).join('\n'));
}
