// <bitlens-panel> embedded in a page that `bitlens serve` does not serve: a plain static server
// on another port hosts the page plus a copy of www/ and pkg/ (as an app bundling bitlens
// would), and the widgets fetch snapshots cross-origin from `bitlens serve --cors-origin`.
// Numbers are checked against `bitlens query` on the same snapshot.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createReadStream, existsSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import {
  BITLENS, ROOT, artifact, freePort, launchBrowser, startBitlens, tempDir,
} from './harness.mjs';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' };

/** A static server for the host page: / is `html`, /bitlens/{www,pkg}/... are the repo's files
 * (with their folders, as an app copying www/ and pkg/ has them). */
async function hostServer(port, html) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(html(port));
      return;
    }
    // Folders too (the engine's JS snippets sit in pkg/snippets/CRATE-HASH/js/), never `..`.
    const m = /^\/bitlens\/((?:www|pkg)(?:\/[\w-][\w.-]*)+)$/.exec(url.pathname);
    const file = m && path.join(ROOT, m[1]);
    if (!file || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  return { port, url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

describe('<bitlens-panel> in a host page on another origin', { timeout: 600000 }, () => {
  let bitlens;
  let host;
  let browser;
  let page;
  const pageErrors = [];

  before(async () => {
    const hostPort = await freePort();
    bitlens = await startBitlens(['--cors-origin', `http://127.0.0.1:${hostPort}`]);
    const closed = await freePort(); // nothing listens there: an unreachable API
    const api = `${bitlens.url}/api`;
    host = await hostServer(hostPort, () => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>host</title>
<style>body { font-family: serif; background: #fff; margin: 0; } .bitlens { background: red !important; }</style>
<script type="module" src="/bitlens/www/bitlens-panel.js"></script></head>
<body>
<script>
  window.events = [];
  for (const n of ['bitlens-loaded', 'bitlens-error']) {
    document.addEventListener(n, (e) => window.events.push([e.target.id, n, e.detail && (e.detail.message || e.detail.keys)]));
  }
</script>
<h1>Host dashboard</h1>
<bitlens-panel id="a" api="${api}" cards="uv,active" date="2024-05-20" lang="zh" theme="light"></bitlens-panel>
<bitlens-panel id="b" api="${api}" cards="uv" uv-key="uv:missing:{date}" date="20240520" lang="en" theme="dark"></bitlens-panel>
<bitlens-panel id="c" api="http://127.0.0.1:${closed}/api" cards="active"></bitlens-panel>
</body></html>`);
    // The page is on another origin than the API.
    assert.notEqual(host.port, Number(new URL(bitlens.url).port));
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
  });

  after(async () => {
    if (browser) await browser.close().catch(() => {});
    if (host) await host.close();
    if (bitlens) await bitlens.proc.stop();
  });

  test('widgets load, show correct numbers, themes, Chinese labels, errors, keyboard order', async () => {
    await page.goto(host.url);
    for (const id of ['a', 'b']) {
      await page.waitForSelector(`#${id} [data-testid=panel][data-state=ready]`, { timeout: 120000 });
    }
    await page.waitForSelector('#c [data-testid=panel][data-state=error]', { timeout: 60000 });
    const v = async (sel) => Number(await page.getAttribute(sel, 'data-value'));

    // Numbers equal `bitlens query` on the same snapshot.
    const res = await fetch(`${bitlens.url}/api/snapshot?match=${encodeURIComponent('uv:page:index:*')}&match=${encodeURIComponent('stats:active:*')}`);
    const file = path.join(tempDir(), 'snap.rdb');
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const query = (...argv) => Number(execFileSync(BITLENS, ['query', '--rdb', file, ...argv], { encoding: 'utf8' }).trim());
    const day = query('PFCOUNT', 'uv:page:index:20240520');
    assert.ok(day > 0);
    assert.equal(await v('#a [data-testid=uv-day]'), day);
    assert.equal(await v('#a [data-testid=active-day]'), query('BITCOUNT', 'stats:active:20240520'));
    // Locale formatting: thousands separators.
    assert.equal(await page.textContent('#a [data-testid=uv-day]'), day.toLocaleString('zh-CN'));

    // Chinese labels in a, English in b; only the chosen cards.
    assert.equal(await page.textContent('#a [data-testid=card-uv] h2'), '独立访客');
    assert.equal(await page.textContent('#a [data-testid=card-active] h2'), '活跃用户');
    assert.equal(await page.textContent('#b [data-testid=card-uv] h2'), 'Unique visitors');
    assert.equal(await page.locator('#b [data-testid=card-active]').count(), 0);
    assert.equal(await page.locator('#a [data-testid=card-nearby]').count(), 0);

    // A card whose keys are all absent collapses to one line naming its pattern (issue 18): no 0.
    assert.match(await page.textContent('#b [data-testid=uv-absent]'), /no uv:missing:\* keys in this snapshot/);
    assert.equal(await page.locator('#b [data-testid=uv-day]').count(), 0);
    // An unreachable API: the error is in the card, and a bitlens-error event fired.
    assert.ok((await page.textContent('#c [data-testid=active-error-text]')).length > 0);
    const events = await page.evaluate(() => window.events);
    assert.deepEqual(events.filter((e) => e[1] === 'bitlens-loaded').map((e) => e[0]).sort(), ['a', 'b']);
    assert.deepEqual(events.filter((e) => e[1] === 'bitlens-error').map((e) => e[0]), ['c']);

    // Style isolation: the host's `.bitlens { background: red }` does not reach the widget.
    const bg = (id) => page.$eval(`#${id}`, (el) => getComputedStyle(el.shadowRoot.querySelector('.bitlens')).backgroundColor);
    assert.notEqual(await bg('a'), 'rgb(255, 0, 0)');
    // Themes: a is light, b is dark; switching a's attribute switches its colours.
    const lightBg = await bg('a');
    const darkBg = await bg('b');
    assert.notEqual(lightBg, darkBg);
    await page.screenshot({ path: artifact('widget-light.png'), fullPage: true });
    await page.$eval('#a', (el) => el.setAttribute('theme', 'dark'));
    await page.waitForFunction(() => document.querySelector('#a').shadowRoot.querySelector('.bitlens').dataset.theme === 'dark');
    assert.equal(await bg('a'), darkBg);
    // The numbers survive a redraw (no refetch needed for a theme change).
    assert.equal(await v('#a [data-testid=uv-day]'), day);
    await page.screenshot({ path: artifact('widget-dark.png'), fullPage: true });
    // Following prefers-color-scheme when no theme is forced.
    await page.$eval('#a', (el) => el.removeAttribute('theme'));
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForFunction(() => !document.querySelector('#a').shadowRoot.querySelector('.bitlens').dataset.theme);
    assert.equal(await bg('a'), darkBg);
    await page.emulateMedia({ colorScheme: 'light' });
    assert.equal(await bg('a'), lightBg);

    // JS properties mirror attributes; a property change redraws the card for another date.
    await page.$eval('#a', (el) => { el.date = '20240519'; });
    await page.waitForFunction(() => document.querySelector('#a').shadowRoot.querySelector('[data-testid=uv-day-cmd]')?.textContent.includes('20240519'));
    assert.equal(await v('#a [data-testid=uv-day]'), query('PFCOUNT', 'uv:page:index:20240519'));

    // Keyboard: Tab walks a's controls first (date picker first), then b's.
    await page.focus('body');
    const order = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      order.push(await page.evaluate(() => {
        const host = document.activeElement;
        const inner = host && host.shadowRoot && host.shadowRoot.activeElement;
        return inner ? `${host.id}:${inner.dataset.testid || inner.tagName.toLowerCase()}` : (host ? host.tagName.toLowerCase() : '');
      }));
    }
    assert.equal(order[0], 'a:date', order.join(' '));
    const firstB = order.indexOf('b:date');
    assert.ok(firstB > 0, order.join(' '));
    assert.ok(order.slice(0, firstB).every((o) => o.startsWith('a:')), order.join(' '));

    // Offline: an element given the snapshot bytes directly, no API.
    const offline = await page.evaluate(async (api) => {
      const bytes = new Uint8Array(await (await fetch(`${api}/snapshot?match=stats:active:*`)).arrayBuffer());
      const el = document.createElement('bitlens-panel');
      el.id = 'd';
      el.setAttribute('api', 'http://127.0.0.1:9/none');
      el.setAttribute('cards', 'active');
      el.setAttribute('date', '20240520');
      el.snapshot = bytes;
      document.body.append(el);
      await new Promise((r) => el.addEventListener('bitlens-loaded', r, { once: true }));
      return Number(el.shadowRoot.querySelector('[data-testid=active-day]').dataset.value);
    }, `${bitlens.url}/api`);
    assert.equal(offline, query('BITCOUNT', 'stats:active:20240520'));
    assert.deepEqual(pageErrors, []);
  });
});

// Issue 54: a widget on another origin, against `bitlens serve --token`. Its snapshot request
// carries `Authorization: Bearer …`, which Chromium sends only after a CORS preflight
// (OPTIONS) that the server answers for the allowed origin: a widget with the token loads and
// shows the numbers `bitlens query` gives; one without it shows the server's 401 in its card.
describe('<bitlens-panel token=…> in a host page on another origin', { timeout: 600000 }, () => {
  let bitlens;
  let host;
  let browser;
  let page;
  const pageErrors = [];

  before(async () => {
    const hostPort = await freePort();
    bitlens = await startBitlens(['--token', 's3cret-widget', '--cors-origin', `http://127.0.0.1:${hostPort}`]);
    const api = `${bitlens.url}/api`;
    host = await hostServer(hostPort, () => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>host</title>
<script type="module" src="/bitlens/www/bitlens-panel.js"></script></head>
<body>
<bitlens-panel id="t" api="${api}" token="s3cret-widget" cards="uv" date="2024-05-20" lang="en"></bitlens-panel>
<bitlens-panel id="n" api="${api}" cards="uv" date="2024-05-20" lang="en"></bitlens-panel>
</body></html>`);
    assert.notEqual(host.port, Number(new URL(bitlens.url).port));
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
  });

  after(async () => {
    if (browser) await browser.close().catch(() => {});
    if (host) await host.close();
    if (bitlens) await bitlens.proc.stop();
  });

  test('the widget with the token loads cross-origin (preflight answered); without it, 401 in its card', async () => {
    // The preflight itself, as Chromium sends it, answered for the host's origin.
    const pre = await fetch(`${bitlens.url}/api/snapshot`, {
      method: 'OPTIONS',
      headers: {
        origin: host.url.replace(/\/$/, ''),
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    assert.ok(pre.status < 300, `preflight answered ${pre.status}`);
    assert.equal(pre.headers.get('access-control-allow-origin'), host.url.replace(/\/$/, ''));
    assert.match(pre.headers.get('access-control-allow-headers') ?? '', /authorization/i);

    await page.goto(host.url);
    await page.waitForSelector('#t [data-testid=panel][data-state=ready]', { timeout: 120000 });
    await page.waitForSelector('#n [data-testid=panel][data-state=error]', { timeout: 60000 });
    const res = await fetch(`${bitlens.url}/api/snapshot?match=${encodeURIComponent('uv:page:index:*')}`, {
      headers: { authorization: 'Bearer s3cret-widget' },
    });
    assert.equal(res.status, 200);
    const file = path.join(tempDir(), 'snap-token.rdb');
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const day = Number(execFileSync(BITLENS, ['query', '--rdb', file, 'PFCOUNT', 'uv:page:index:20240520'], { encoding: 'utf8' }).trim());
    assert.ok(day > 0);
    assert.equal(Number(await page.getAttribute('#t [data-testid=uv-day]', 'data-value')), day);
    assert.match(await page.textContent('#n [data-testid=panel]'), /401/);
    assert.deepEqual(pageErrors, []);
  });
});
