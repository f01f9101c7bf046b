// A plain static file server for the browser tests (not `bitlens serve`): serves the files under
// `root` on a free loopback port, with `pages` (path -> HTML text) answered first.

import http from 'node:http';
import { createReadStream, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { freePort } from './harness.mjs';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.rdb': 'application/octet-stream',
};

/**
 * Serves `root` (paths outside it are refused) and `pages`; resolves with
 * `{ port, url, requests, close() }` once listening. `requests` lists the paths asked for.
 * `cors: true` adds `Access-Control-Allow-Origin: *` (files loadable from other origins).
 * `snapshot: FILE` answers `/api/snapshot` with that file (with its Content-Length, streamed in
 * 1 MiB chunks), as `bitlens serve` answers it; `/` is then `index.html`.
 */
export async function staticServer(root, pages = {}, { cors = false, snapshot = null } = {}) {
  const port = await freePort();
  const requests = [];
  const rootAbs = path.resolve(root);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    requests.push(url.pathname);
    if (cors) res.setHeader('access-control-allow-origin', '*');
    if (snapshot && url.pathname === '/api/snapshot') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': statSync(snapshot).size });
      createReadStream(snapshot, { highWaterMark: 1 << 20 }).pipe(res);
      return;
    }
    if (snapshot && url.pathname === '/') url.pathname = '/index.html';
    if (Object.hasOwn(pages, url.pathname)) {
      res.writeHead(200, { 'content-type': TYPES['.html'] });
      res.end(pages[url.pathname]);
      return;
    }
    const file = path.resolve(rootAbs, '.' + decodeURIComponent(url.pathname));
    if (!(file === rootAbs || file.startsWith(rootAbs + path.sep)) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((r) => {
      server.closeAllConnections();
      server.close(r);
    }),
  };
}
