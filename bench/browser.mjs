// The panel's "first numbers" in real headless Chromium (issue 16.2): time from navigation to the
// first card's number and to all cards drawn (the panel's data-state=ready), beside a bare fetch
// of the same /api/snapshot in the same page, on loopback. Two data sets: the built-in demo
// (`bitlens serve` without --redis) and the bench RDB served as /api/snapshot by a static server
// (its keys match no card, so with `cards=…,keys` "all cards" is the key browser listing them).
// Each is measured `ROUNDS` times in a fresh page; the median round is reported.

import { bareDownload, launchBrowser, startBitlens, ROOT } from '../tests/e2e/harness.mjs';
import { staticServer } from '../tests/e2e/static-server.mjs';

const ROUNDS = Number(process.env.BENCH_BROWSER_ROUNDS || 3);

/** One navigation: { first, ready, download } in ms after navigation start. */
async function measure(browser, url) {
  const page = await browser.newPage();
  try {
    // Both times are taken in the page, when the DOM changes: the first number, and the
    // panel's data-state turning 'ready' (playwright's waitForSelector only notices it 150 to
    // 450 ms later on this machine, which is its polling, not the panel).
    await page.addInitScript(() => {
      window.__firstNumber = null;
      window.__ready = null;
      new MutationObserver(() => {
        if (window.__firstNumber === null && document.querySelector('.metric-value[data-value], .kb-key')) {
          window.__firstNumber = performance.now();
        }
        if (window.__ready === null && document.querySelector('[data-testid=panel][data-state=ready]')) {
          window.__ready = performance.now();
        }
      }).observe(document, { subtree: true, childList: true, attributes: true });
    });
    await page.goto(url);
    await page.waitForSelector('[data-testid=panel][data-state=ready]', { timeout: 600000 });
    const ready = await page.evaluate(() => window.__ready);
    const first = await page.evaluate(() => window.__firstNumber);
    const steps = await page.evaluate(breakdown);
    const download = await bareDownload(page);
    return { first, ready, download: download.ms, bytes: download.bytes, steps };
  } finally {
    await page.close();
  }
}

/**
 * Runs in the page once the panel is ready: where the time went after navigation, from the
 * marks the panel, its engine client and worker leave on the page's performance timeline
 * (www/load.js, engine-client.js, engine-worker.js, panel.js, util.js paintSvg), all in ms
 * after navigation start (null when a mark is missing: an older panel).
 */
function breakdown() {
  const at = (n) => performance.getEntriesByName(n).at(-1)?.startTime ?? null;
  const span = (a, b) => (a === null || b === null ? null : b - a);
  const loadStart = at('bitlens-load-start');
  const cardsStart = at('bitlens-cards-start');
  const after = (list, t) => (t === null ? [] : list.filter((e) => e.startTime >= t));
  // The wall time the engine calls of the cards took: the union of their round trips.
  const calls = after(performance.getEntriesByName('bitlens-call'), cardsStart)
    .map((e) => [e.startTime, e.startTime + e.duration]).sort((a, b) => a[0] - b[0]);
  let wall = 0;
  let end = -Infinity;
  for (const [a, b] of calls) {
    if (b > end) {
      wall += b - Math.max(a, end);
      end = b;
    }
  }
  const paints = after(performance.getEntriesByName('bitlens-paint'), cardsStart);
  const busy = performance.getEntriesByName('bitlens-decode-busy').at(-1);
  return {
    loadStart,
    workerStart: span(at('bitlens-worker-spawn'), at('bitlens-worker-start')),
    wasm: span(at('bitlens-worker-start'), at('bitlens-wasm-ready')),
    request: at('bitlens-download-request'),
    firstByte: span(at('bitlens-download-request'), at('bitlens-download-first-byte')),
    download: span(at('bitlens-download-request'), at('bitlens-download-end')),
    decodeBusy: busy ? busy.duration : null,
    decodeTail: span(at('bitlens-download-end'), at('bitlens-decode-end')),
    wasmMemory: busy && busy.detail ? busy.detail.wasmMemoryBytes : null,
    loadEnd: at('bitlens-load-end'),
    loadTotal: span(loadStart, at('bitlens-load-end')),
    toCards: span(at('bitlens-load-end'), cardsStart),
    cards: span(cardsStart, at('bitlens-cards-end')),
    calls: calls.length,
    callWall: calls.length ? wall : null,
    paints: paints.length,
    paintMs: paints.length ? paints.reduce((a, e) => a + e.duration, 0) : null,
    afterCards: span(at('bitlens-cards-end'), window.__ready),
  };
}

/**
 * Runs in a blank page: loads `/api/snapshot` through a fresh worker client as a File (the
 * body fetched first, then `loadRdb(file)`) or as a URL (`loadUrl`, decoded while
 * downloading) with `decodeWorkers`; returns the load's ms and the URL load's offload counts.
 */
async function timedLoad({ source, decodeWorkers }) {
  const { createEngine } = await import('/www/engine-client.js');
  const eng = await createEngine({ worker: true });
  // (One File for every load of the page: a fresh 336 MB Blob per load exhausts Chromium's
  // blob storage, and the fetch fails.)
  if (source === 'file' && !window.__benchFile) {
    window.__benchFile = new File([await (await fetch('/api/snapshot')).blob()], 'dump.rdb');
  }
  const file = source === 'file' ? window.__benchFile : null;
  const t0 = performance.now();
  const keys = file ? await eng.loadRdb(file, { decodeWorkers }) : await eng.loadUrl('/api/snapshot', { decodeWorkers });
  const ms = performance.now() - t0;
  const busy = performance.getEntriesByName('bitlens-decode-busy').at(-1);
  eng.terminate();
  const d = busy?.detail ?? {};
  return { ms, keys: typeof keys === 'number' ? keys : keys.keys, jobs: d.offloadedJobs ?? null, here: d.decodedHere ?? null, workers: d.decodeWorkers ?? null };
}

/**
 * The bench RDB loaded in Chromium with and without decode workers, as a File and from a
 * URL: the median of ROUNDS loads each, alternating. Returns the table's lines (`rows`) and
 * the cores the browser reports.
 */
export async function decodeWorkerRows(browser, web, mb) {
  const page = await browser.newPage();
  try {
    await page.goto(`${web.url}/www/engine-client.js`);
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    const med = (xs) => xs.sort((a, b) => a.ms - b.ms)[Math.floor(xs.length / 2)];
    const rows = [];
    // 0: the engine's worker alone; cores - 1 decode workers (the default from 4 cores on);
    // one per core.
    const variants = [['alone', 0], ['pooled', Math.max(1, cores - 1)], ['wide', cores]];
    for (const source of ['file', 'url']) {
      const runs = { alone: [], pooled: [], wide: [] };
      for (let i = 0; i < ROUNDS; i++) {
        for (const [k, n] of i % 2 ? [...variants].reverse() : variants) {
          runs[k].push(await page.evaluate(timedLoad, { source, decodeWorkers: n }));
        }
      }
      const [a, p, w] = [med(runs.alone), med(runs.pooled), med(runs.wide)];
      if (a.keys !== p.keys || a.keys !== w.keys) throw new Error(`decode workers: ${a.keys}, ${p.keys}, ${w.keys} keys`);
      const what = source === 'file'
        ? `\`loadRdb(File)\` of the ${mb.toFixed(0)} MB bench RDB (read from memory)`
        : `\`loadUrl\` of the ${mb.toFixed(0)} MB bench RDB (decoded while downloading over loopback)`;
      const cell = (r, n) => `${r.ms.toFixed(0)} ms (${n} decode worker${n === 1 ? '' : 's'}${r.jobs === null ? '' : `; ${r.jobs} strings offloaded, ${r.here} of them decoded by the engine's worker`}) = ${(a.ms / r.ms).toFixed(2)}×`;
      rows.push(`| ${what} | ${a.ms.toFixed(0)} ms | ${cell(p, Math.max(1, cores - 1))} | ${cell(w, cores)} |`);
    }
    return { rows, cores };
  } finally {
    await page.close();
  }
}

async function median(browser, url) {
  const runs = [];
  for (let i = 0; i < ROUNDS; i++) runs.push(await measure(browser, url));
  runs.sort((a, b) => a.ready - b.ready);
  return runs[Math.floor(runs.length / 2)];
}

/**
 * The markdown section of RESULTS.md for the panel in Chromium: `dump` is the bench RDB's path,
 * `mb` its size in MB. Needs target/release/bitlens, pkg/ and Chromium (as the e2e tests do).
 */
export async function browserSection(dump, mb) {
  const browser = await launchBrowser();
  const demo = await startBitlens();
  const web = await staticServer(ROOT, {}, { snapshot: dump });
  try {
    const d = await median(browser, `${demo.url}/?lang=en`);
    const b = await median(browser, `${web.url}/?lang=en&cards=uv,active,nearby,engagement,keys`);
    const workers = await decodeWorkerRows(browser, web, mb);
    const f = (x) => (x === null || x === undefined ? 'n/a' : `${x.toFixed(0)} ms`);
    const over = (r) => `${(r.ready / r.download).toFixed(2)}×`;
    const row = (what, r) => `| ${what} | ${f(r.first)} | ${f(r.ready)} | ${f(r.download)} (${(r.bytes / 1e6).toFixed(1)} MB) | ${over(r)} |`;
    const steps = (what, r) => {
      const x = r.steps || {};
      return `| ${what} | ${f(x.loadStart)} | ${f(x.loadTotal)} | ${f(x.workerStart)} | ${f(x.wasm)} | ${f(x.download)} (first byte ${f(x.firstByte)}) | ${f(x.decodeBusy)}; ${f(x.decodeTail)} after the last byte; wasm memory ${x.wasmMemory ? `${(x.wasmMemory / 1e6).toFixed(0)} MB` : 'n/a'} | ${f(x.toCards)} | ${f(x.cards)}: ${x.calls ?? 'n/a'} engine calls, ${f(x.callWall)} waiting on them | ${f(x.paintMs)} (${x.paints ?? 'n/a'} charts) | ${f(x.afterCards)} |`;
    };
    return [
      '## The panel in Chromium (issue 16.2)',
      '',
      `Headless Chromium on loopback, median of ${ROUNDS} fresh pages: from navigation to the first card's number (the first \`.metric-value\` or key-browser row in the DOM) and to all cards drawn (\`data-state=ready\`; both seen in the page by a MutationObserver), against a bare \`fetch\` of the same \`/api/snapshot\` in the same page afterwards. Target: all cards ≤ 1.15× the download.`,
      '',
      '| data set | first number | all cards | bare download | all cards ÷ download |',
      '|---|---|---|---|---|',
      row('built-in demo (`bitlens serve`)', d),
      row(`the ${mb.toFixed(0)} MB bench RDB (a static /api/snapshot, \`cards=…,keys\`: no card matches, the key browser lists its keys)`, b),
      '',
      '### Where the time goes in the panel (the median page of each row above)',
      '',
      'From the marks the panel leaves on the page\'s performance timeline: the load starts (page scripts evaluated, ms after navigation) and its length (worker, wasm, download, decode: the load controller\'s marks); within it, the Web Worker\'s start (spawn to its module running); the wasm module\'s fetch, compile and instantiation; the download in the worker (request to last byte); decoding, overlapped with the download (the worker\'s time inside `RdbStream.push` and `loadRdbStream`) and what is left of it after the last byte; from the load\'s end to the cards\' start (database choice, facts); the cards (their engine calls, as the union of the round trips); painting the charts\' SVG onto canvases; after the cards (the key browser) until `data-state=ready`.',
      '',
      '| data set | load starts | load (start → end) | worker start | wasm fetch + instantiate | download | decode (busy; tail) | load end → cards | cards | chart painting | key browser → ready |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
      steps('built-in demo', d),
      steps(`the ${mb.toFixed(0)} MB bench RDB`, b),
      '',
      '### Decode workers (issue 29 §2)',
      '',
      `The engine's Web Worker hands the file's LZF strings of 128 KiB or more to a pool of decode workers (\`www/decode-pool.js\`; buffers transferred, no SharedArrayBuffer), decodes the ones it waits on that no worker has taken itself (and the next queued one while it waits), and everything else. The bench RDB loaded through a fresh worker client in a blank page, with the pool and without (\`decodeWorkers: 0\`), median of ${ROUNDS} loads each, alternating; the same keys either way.`,
      '',
      `| load (${workers.cores} cores) | the engine\'s worker alone (\`decodeWorkers: 0\`; the default below 4 cores) | cores − 1 decode workers (the default from 4 cores) | one decode worker per core |`,
      '|---|---|---|---|',
      ...workers.rows,
    ].join('\n');
  } finally {
    await browser.close().catch(() => {});
    await web.close();
    await demo.proc.stop();
  }
}

// `node bench/browser.mjs DUMP.rdb`: only this section, printed (for measuring by hand).
if (import.meta.url === `file://${process.argv[1]}`) {
  const { statSync } = await import('node:fs');
  const dump = process.argv[2];
  if (!dump) throw new Error('usage: node bench/browser.mjs DUMP.rdb');
  console.log(await browserSection(dump, statSync(dump).size / 1e6));
}
