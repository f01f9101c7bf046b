// One timed, memory-measured run of a command for the bench sections: a small Python parent
// runs it and reports the wall time and the child's peak RSS (`ru_maxrss` of
// RUSAGE_CHILDREN, so the figure is the command's own, not Node's or Python's).

import { spawnSync } from 'node:child_process';

const RUSAGE = [
  'import resource, subprocess, sys, time',
  't = time.monotonic()',
  'p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)',
  'ms = (time.monotonic() - t) * 1000',
  'if p.returncode: sys.stderr.write(p.stderr.decode(errors="replace")); sys.exit(p.returncode)',
  'lines = p.stdout.count(b"\\n")',
  'ru = resource.getrusage(resource.RUSAGE_CHILDREN)',
  'print(ms, ru.ru_maxrss * 1024, lines, (ru.ru_utime + ru.ru_stime) * 1000)',
  'sys.stderr.write(p.stdout.decode(errors="replace")[-400:])',
].join('\n');

/**
 * Runs `argv` once: `{ ms, peak, lines, cpuMs, tail }` (wall milliseconds, peak RSS in bytes,
 * lines of stdout, CPU milliseconds (user + system, every thread), and stdout's last 400
 * characters). Throws with the command's stderr when it fails.
 */
export function measured(argv) {
  const r = spawnSync('python3', ['-c', RUSAGE, ...argv], { maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`${argv.join(' ')}: ${r.stderr}`);
  const [ms, peak, lines, cpuMs] = r.stdout.toString().trim().split(/\s+/).map(Number);
  return { ms, peak, lines, cpuMs, tail: r.stderr.toString() };
}
