// The panel's "first numbers" in real headless Chromium (issue 16.2): time from navigation to the
// first card's number and to all cards drawn (the panel's data-state=ready), beside a bare fetch
// of the same /api/snapshot in the same page, on loopback. Two data sets: the built-in demo
// (`bitlens serve` without --redis) and the bench RDB served as /api/snapshot by a static server
// (its keys match no card, so with `cards=…,keys` "all cards" is the key browser listing them).
// Each is measured `ROUNDS` times in a fresh page; the median round is reported.

import { bareDownload, launchBrowser, startBitlens, ROOT } from '../tests/e2e/harness.mjs';
import { staticServer } from '../tests/e2e/static-server.mjs';

const ROUNDS = 3;

/** One navigation: { first, ready, download } in ms after navigation start. */
async function measure(browser, url) {
  const page = await browser.newPage();
  try {
    await page.addInitScript(() => {
      window.__firstNumber = null;
      new MutationObserver(() => {
        if (window.__firstNumber === null && document.querySelector('.metric-value[data-value], .kb-key')) {
          window.__firstNumber = performance.now();
        }
      }).observe(document, { subtree: true, childList: true, attributes: true });
    });
    await page.goto(url);
    await page.waitForSelector('[data-testid=panel][data-state=ready]', { timeout: 600000 });
    const ready = await page.evaluate(() => performance.now());
    const first = await page.evaluate(() => window.__firstNumber);
    const download = await bareDownload(page);
    return { first, ready, download: download.ms, bytes: download.bytes };
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
    const f = (x) => (x === null || x === undefined ? 'n/a' : `${x.toFixed(0)} ms`);
    const over = (r) => `${(r.ready / r.download).toFixed(2)}×`;
    const row = (what, r) => `| ${what} | ${f(r.first)} | ${f(r.ready)} | ${f(r.download)} (${(r.bytes / 1e6).toFixed(1)} MB) | ${over(r)} |`;
    return [
      '## The panel in Chromium (issue 16.2)',
      '',
      `Headless Chromium on loopback, median of ${ROUNDS} fresh pages: from navigation to the first card's number (the first \`.metric-value\` or key-browser row in the DOM) and to all cards drawn (\`data-state=ready\`), against a bare \`fetch\` of the same \`/api/snapshot\` in the same page afterwards. Target: all cards ≤ 1.15× the download.`,
      '',
      '| data set | first number | all cards | bare download | all cards ÷ download |',
      '|---|---|---|---|---|',
      row('built-in demo (`bitlens serve`)', d),
      row(`the ${mb.toFixed(0)} MB bench RDB (a static /api/snapshot, \`cards=…,keys\`: no card matches, the key browser lists its keys)`, b),
    ].join('\n');
  } finally {
    await browser.close().catch(() => {});
    await web.close();
    await demo.proc.stop();
  }
}
