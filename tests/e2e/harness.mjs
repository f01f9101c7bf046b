// Test harness for the end-to-end tests: free loopback ports, a throw-away redis-server,
// `bitlens serve`, headless Chromium through playwright-core, and cleanup of every process
// started here (also when a test fails or the runner is interrupted).

import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, mkdirSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';
import { staticServer } from './static-server.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Where `npm run setup` (scripts/servers.sh) installs the real servers: `$BITLENS_SERVERS_DIR`,
 * else the checkout's `.servers/` (its manifest is `servers.json` there). */
export const SERVERS_DIR = process.env.BITLENS_SERVERS_DIR || path.join(ROOT, '.servers');
export const ARTIFACTS = path.join(ROOT, 'test-artifacts');
export const BITLENS = path.join(ROOT, 'target/release/bitlens');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

const children = new Set();
const tempDirs = new Set();

function killAll() {
  for (const c of children) {
    try {
      c.kill('SIGKILL');
    } catch {
      /* gone */
    }
  }
  children.clear();
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
  tempDirs.clear();
}
process.on('exit', killAll);
// A child process keeps the test file's event loop alive, so 'exit' would never come: the
// file's last hook kills whatever a test left running.
// (Only under `node --test`: a bench script importing these helpers has no test to hook.)
if (process.env.NODE_TEST_CONTEXT) after(killAll);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    killAll();
    process.exit(130);
  });
}

/** A fresh temporary directory, removed at exit. */
export function tempDir(prefix = 'bitlens-e2e-') {
  const d = mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.add(d);
  return d;
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Spawns a process that is killed at the end of the run. Its output is kept (last 64 KB)
 * for error messages; `waitFor(regex)` resolves with the first matching output line.
 */
export function start(cmd, args, opts = {}) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  children.add(child);
  let output = '';
  const waiters = [];
  const onData = (buf) => {
    output = (output + buf.toString()).slice(-65536);
    for (const w of [...waiters]) {
      const m = w.re.exec(output);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  let exited = null;
  child.on('exit', (code, signal) => {
    exited = { code, signal };
    children.delete(child);
    for (const w of waiters.splice(0)) {
      w.reject(new Error(`${cmd} exited (${code ?? signal}) before printing ${w.re}:\n${output}`));
    }
  });
  child.on('error', (e) => {
    for (const w of waiters.splice(0)) w.reject(new Error(`${cmd}: ${e.message}`));
  });
  return {
    child,
    output: () => output,
    waitFor(re, timeoutMs = 60000) {
      const m = re.exec(output);
      if (m) return Promise.resolve(m);
      if (exited) return Promise.reject(new Error(`${cmd} exited (${exited.code ?? exited.signal}):\n${output}`));
      return new Promise((resolve, reject) => {
        const w = { re, resolve, reject };
        waiters.push(w);
        setTimeout(() => {
          const i = waiters.indexOf(w);
          if (i >= 0) {
            waiters.splice(i, 1);
            reject(new Error(`timed out waiting for ${re} from ${cmd}:\n${output}`));
          }
        }, timeoutMs).unref();
      });
    },
    async stop() {
      if (exited || child.exitCode !== null) return;
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await done;
      clearTimeout(t);
    },
  };
}

/** redis-cli against a port; returns stdout (what redis-cli prints to a non-terminal). */
export function redisCli(port, args, input) {
  return execFileSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], {
    input,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** Starts a redis-server on a free loopback port with a temporary --dir and no persistence. */
export async function startRedis() {
  const port = await freePort();
  const dir = tempDir('bitlens-e2e-redis-');
  const proc = start('redis-server', [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no',
    '--daemonize', 'no', '--protected-mode', 'yes',
  ]);
  await proc.waitFor(/Ready to accept connections/, 30000);
  return { port, dir, proc };
}

/** Starts `bitlens serve ARGS` on a free port; resolves with its base URL once it is up. */
export async function startBitlens(args = []) {
  if (!existsSync(BITLENS)) throw new Error(`${BITLENS} is missing: run npm run build`);
  const port = await freePort();
  const proc = start(BITLENS, ['serve', '--bind', `127.0.0.1:${port}`, ...args], { cwd: ROOT });
  const m = await proc.waitFor(/bitlens serving on (http:\/\/\S+)/, 60000);
  return { url: m[1].replace(/\/+$/, ''), proc };
}

/** Launches Debian's Chromium headless through playwright-core. */
export async function launchBrowser() {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/**
 * In a `describe`: starts `bitlens serve ARGS` and a browser before its tests and stops both
 * after them. Returns `{ server, browser }`, filled in once the `before` hook has run.
 */
export function serveAndBrowse(args = []) {
  const ctx = { server: null, browser: null };
  before(async () => {
    ctx.server = await startBitlens(args);
    ctx.browser = await launchBrowser();
  });
  after(async () => {
    if (ctx.browser) await ctx.browser.close().catch(() => {});
    if (ctx.server) await ctx.server.proc.stop();
  });
  return ctx;
}

/**
 * In a `describe`: starts a redis-server (startRedis), writes `commands()` to it (redisPipe),
 * then `bitlens serve --redis` on it and a browser, before its tests; stops all three after.
 * Returns `{ redis, server, browser }`, filled in once the `before` hook has run.
 */
export function serveRedisAndBrowse(commands) {
  const ctx = { redis: null, server: null, browser: null };
  before(async () => {
    ctx.redis = await startRedis();
    redisPipe(ctx.redis.port, commands());
    ctx.server = await startBitlens(['--redis', `redis://127.0.0.1:${ctx.redis.port}`]);
    ctx.browser = await launchBrowser();
  });
  after(async () => {
    if (ctx.browser) await ctx.browser.close().catch(() => {});
    if (ctx.server) await ctx.server.proc.stop();
    if (ctx.redis) await ctx.redis.proc.stop();
  });
  return ctx;
}

/**
 * The panel without a server behind it: `index.html` at `/` and the repository's files from a
 * plain static server (no `/api`). Resolves with what `staticServer` resolves with.
 */
export function staticPanel() {
  return staticServer(ROOT, { '/': readFileSync(path.join(ROOT, 'index.html'), 'utf8') });
}

/**
 * A new page of `browser` on the panel at `url` (`query` appended after `/?`) that waits for the
 * panel's error state, the state it settles in when no `/api` answers. Page errors go to `errors`.
 * Resolves with `{ page, errors }`.
 */
export async function openOfflinePanel(browser, url, { query = 'lang=en', width = 1280, height = 1000, errors = [] } = {}) {
  const page = await browser.newPage({ viewport: { width, height } });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${url}/?${query}`);
  await page.waitForSelector('[data-testid=panel][data-state=error]', { timeout: 60000 });
  return { page, errors };
}

/**
 * Opens `files` (a path or a list of paths) through the panel's "Open snapshot…" input. With
 * `settle` (the default) it waits until the panel reports the files loaded (`data-offline=ready`)
 * and drawn (`data-state`);
 * without, it returns once the files are handed over (the panel's `data-offline` is `pending`).
 */
export async function openFile(page, files, { settle = true, timeout = 60000 } = {}) {
  await page.evaluate(() => {
    document.querySelector('[data-testid=panel]').dataset.offline = 'pending';
  });
  await page.setInputFiles('[data-testid=file-input]', files);
  // Decoded (data-offline) and then drawn: the cards, the key browser's first list and its
  // place on the page (data-state), so that a click lands where the page has settled.
  if (settle) await page.waitForSelector('[data-testid=panel][data-offline=ready]:is([data-state=ready], [data-state=error])', { timeout });
}

/**
 * A bare download of `url` from inside `page` (fetch, the body read to its end and dropped), to
 * set the panel's load time beside. Resolves with `{ ms, bytes }` (ms by the page's clock).
 */
export function bareDownload(page, url = '/api/snapshot') {
  return page.evaluate(async (u) => {
    const t0 = performance.now();
    const reader = (await fetch(u)).body.getReader();
    let bytes = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
    }
    return { ms: performance.now() - t0, bytes };
  }, url);
}

/**
 * Packs the npm package from the built pkg/ (`scripts/package.sh --no-build`) and installs the
 * tarball, offline, into a new project (a temporary folder whose package.json names `name`,
 * `type: module`). Returns `{ project, tarball }` (absolute paths).
 */
export function installPackedPackage(name) {
  for (const f of ['pkg/bitlens.js', 'pkg/bitlens_bg.wasm']) {
    if (!existsSync(path.join(ROOT, f))) throw new Error(`${f} is missing: run npm run build`);
  }
  const out = execFileSync('bash', [path.join(ROOT, 'scripts/package.sh'), '--no-build'], { cwd: ROOT, encoding: 'utf8' });
  const m = /\[package\] (dist\/bitlens-[\w.-]+\.tgz): (\d+) bytes/.exec(out);
  if (!m) throw new Error(`scripts/package.sh named no tarball:\n${out}`);
  const tarball = path.join(ROOT, m[1]);
  const project = tempDir(`bitlens-${name}-`);
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true, type: 'module' }, null, 2));
  // Offline, from the file: the package has no dependencies to fetch.
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], { cwd: project, encoding: 'utf8', stdio: 'pipe' });
  return { project, tarball };
}

/** Creates test-artifacts/ and returns the path of a file in it. */
export function artifact(name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  return path.join(ARTIFACTS, name);
}

/** RESP encoding of one command (binary-safe arguments: strings or Buffers). */
export function resp(argv) {
  const parts = [Buffer.from(`*${argv.length}\r\n`)];
  for (const a of argv) {
    const b = Buffer.isBuffer(a) ? a : Buffer.from(String(a));
    parts.push(Buffer.from(`$${b.length}\r\n`), b, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

/** Writes commands with `redis-cli --pipe` (mass insertion); throws if any reply is an error. */
export function redisPipe(port, commands) {
  const out = execFileSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), '--pipe'], {
    input: Buffer.concat(commands.map(resp)),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const m = /errors: (\d+), replies: (\d+)/.exec(out);
  if (!m || m[1] !== '0' || Number(m[2]) !== commands.length) {
    throw new Error(`redis-cli --pipe: ${out}`);
  }
}

/** A small deterministic PRNG (mulberry32) so test data is the same on every run. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
