// What the bench scripts (bench/run.mjs, bench/bloom.mjs, bench/pfadd.mjs) share to talk to a
// redis-server: RESP encoding of a command for `redis-cli --pipe`, a free local port, and
// redis-cli calls that throw on failure.

import { spawnSync } from 'node:child_process';
import net from 'node:net';

/** `argv` (strings) as one RESP array of bulk strings, as `redis-cli --pipe` reads it. */
export function resp(argv) {
  let s = `*${argv.length}\r\n`;
  for (const a of argv) s += `$${Buffer.byteLength(a)}\r\n${a}\r\n`;
  return s;
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Runs `cli -p port args...` (stdin `input`, environment `env`) and returns its stdout;
 * throws with its stderr when it exits non-zero.
 */
export function cli(port, args, input, { cli = 'redis-cli', env = process.env } = {}) {
  const r = spawnSync(cli, ['-p', String(port), ...args], { input, env, maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`redis-cli ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.toString();
}
