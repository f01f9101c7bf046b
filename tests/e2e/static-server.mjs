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
 */
export async function staticServer(root, pages = {}, { cors = false } = {}) {
  const port = await freePort();
  const requests = [];
  const rootAbs = path.resolve(root);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    requests.push(url.pathname);
    if (cors) res.setHeader('access-control-allow-origin', '*');
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
