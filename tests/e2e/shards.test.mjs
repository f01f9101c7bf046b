// A cluster's shards in the panel (issue 29 §3): a real 3-node Redis Cluster (the default
// redis-server in cluster mode, joined with `redis-cli --cluster create`) gets the offline cards'
// data, each key on the node owning its slot; every node SAVEs. The three dump.rdb files are
// opened together through "Open snapshot…" (index.html on a plain static server) and load as one
// keyspace, each with its own progress bar:
// - every card equals what redis-server answers for the same data: the one-key cards (a day's
//   PFCOUNT, BITCOUNT, the GEOSEARCH count) against the live cluster node owning the key, the
//   multi-key ones (7 / 30 days, whose keys sit in different slots, which the cluster refuses
//   as CROSSSLOT) against a standalone server given the same writes;
// - the memory view's per-file table has one row per node: its keys are the node's DBSIZE, its
//   slots lie in the node's slot ranges, and its keys, expiring keys, memory and slot range are
//   `bitlens inspect n1 n2 n3 --json`'s FILES rows (the CLI's estimate is checked against each
//   node's MEMORY USAGE in crates/cli/tests/shards.rs);
// - the same file twice is refused, naming the key and the file, and the panel keeps its numbers;
// - `<bitlens-panel>`'s `snapshot = [url1, file2, bytes3]` loads the same union.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  ARTIFACTS, BITLENS, ROOT, artifact, freePort, launchBrowser, openFile, openOfflinePanel, redisCli, redisPipe, start,
  startRedis, tempDir,
} from './harness.mjs';
import { DATE, cardCommands, cardValues, expectedCards } from './carddata.mjs';
import { staticServer } from './static-server.mjs';

/** Starts a redis-server in cluster mode on a free loopback port, in its own directory. */
async function startNode() {
  const port = await freePort();
  const dir = tempDir('bitlens-e2e-node-');
  const proc = start('redis-server', [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no',
    '--daemonize', 'no', '--protected-mode', 'yes', '--cluster-enabled', 'yes',
    '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '5000',
  ]);
  await proc.waitFor(/Ready to accept connections/, 30000);
  return { port, dir, proc };
}

/** Each node's slot ranges ([[lo, hi], …]) from CLUSTER NODES, by port. */
function slotRanges(port) {
  const out = new Map();
  for (const line of redisCli(port, ['CLUSTER', 'NODES']).split('\n').filter(Boolean)) {
    const f = line.split(' ');
    const p = Number(f[1].split('@')[0].split(':').pop());
    out.set(p, f.slice(8).filter((s) => /^\d+(-\d+)?$/.test(s)).map((s) => {
      const [lo, hi = lo] = s.split('-').map(Number);
      return [lo, hi];
    }));
  }
  return out;
}

describe('a cluster\'s shards opened together in the panel', () => {
  let web;
  let browser;
  let page;
  let ref;
  const nodes = [];
  const files = [];
  const dir = tempDir('bitlens-e2e-shards-');
  const pageErrors = [];

  before(async () => {
    for (let i = 0; i < 3; i++) nodes.push(await startNode());
    execFileSync('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`),
      '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8' });
    const deadline = Date.now() + 30000;
    for (const n of nodes) {
      while (!/cluster_state:ok/.test(redisCli(n.port, ['CLUSTER', 'INFO']))) {
        assert.ok(Date.now() < deadline, 'the cluster never became ok');
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    // Every key on the node owning its slot (each command touches one key, its argv[1]).
    const cmds = cardCommands();
    const keys = [...new Set(cmds.map((c) => c[1]))];
    const slots = redisCli(nodes[0].port, [], keys.map((k) => `CLUSTER KEYSLOT ${k}`).join('\n') + '\n')
      .trim().split('\n').map(Number);
    const ranges = slotRanges(nodes[0].port);
    const owner = new Map(keys.map((k, i) => [k, nodes.findIndex((n) => ranges.get(n.port).some(([lo, hi]) => slots[i] >= lo && slots[i] <= hi))]));
    nodes.forEach((n, i) => {
      const mine = cmds.filter((c) => owner.get(c[1]) === i);
      assert.ok(mine.length > 0, `node ${i} owns no key of the data set`);
      redisPipe(n.port, mine);
    });
    nodes.forEach((n, i) => {
      n.owns = (key) => owner.get(key) === i;
      n.ranges = ranges.get(n.port);
      redisCli(n.port, ['SAVE']);
      const f = path.join(dir, `node${i + 1}.rdb`);
      copyFileSync(path.join(n.dir, 'dump.rdb'), f);
      files.push(f);
    });
    ref = await startRedis();
    redisPipe(ref.port, cmds);
    // The files where the static server serves them, for the widget's URLs.
    mkdirSync(path.join(ARTIFACTS, 'shards'), { recursive: true });
    files.forEach((f, i) => copyFileSync(f, path.join(ARTIFACTS, 'shards', `node${i + 1}.rdb`)));
    web = await staticServer(ROOT, {
      '/': readFileSync(path.join(ROOT, 'index.html'), 'utf8'),
      '/widget.html': `<!doctype html><html lang="en"><head><meta charset="utf-8">
<script type="module" src="/www/bitlens-panel.js"></script></head>
<body><bitlens-panel id="w" api="/none" date="${DATE}" type="food"></bitlens-panel></body></html>`,
    });
    browser = await launchBrowser();
    ({ page } = await openOfflinePanel(browser, web.url, { query: `date=${DATE}&type=food&lang=en`, errors: pageErrors }));
  });

  after(async () => {
    if (browser) await browser.close().catch(() => {});
    if (web) await web.close();
    for (const n of [...nodes, ref]) if (n) await n.proc.stop();
  });

  test('the three files load as one keyspace: cards equal the cluster, the per-file table each node', async () => {
    // Every progress bar the load shows, by file.
    await page.evaluate(() => {
      window.fileBars = new Set();
      new MutationObserver(() => {
        for (const b of document.querySelectorAll('[data-testid=file-progress]')) window.fileBars.add(b.dataset.name);
      }).observe(document.querySelector('[data-testid=file-notes]'), { childList: true, subtree: true });
    });
    await openFile(page, files);
    await page.waitForSelector('[data-testid=memory-section][data-state=ready]', { timeout: 60000 });
    assert.deepEqual(pageErrors, []);
    assert.deepEqual((await page.evaluate(() => [...window.fileBars])).sort(), ['node1.rdb', 'node2.rdb', 'node3.rdb']);
    const total = nodes.reduce((a, n) => a + Number(redisCli(n.port, ['DBSIZE']).trim()), 0);
    assert.match(await page.textContent('[data-testid=status]'), new RegExp(`3 files \\(node1\\.rdb, …\\): ${total} keys`));

    const refCli = (...argv) => redisCli(ref.port, argv).trim();
    const want = expectedCards(refCli);
    assert.ok(want['uv-day'] > 0 && want['active-30d'] > want['active-day'] && want['nearby-count'] > 0, JSON.stringify(want));
    // The one-key cards, asked of the node that owns the key.
    const on = (key, ...argv) => redisCli(nodes.find((n) => n.owns(key)).port, argv).trim();
    assert.equal(Number(on(`uv:page:index:${DATE}`, 'PFCOUNT', `uv:page:index:${DATE}`)), want['uv-day']);
    assert.equal(Number(on(`stats:active:${DATE}`, 'BITCOUNT', `stats:active:${DATE}`)), want['active-day']);
    assert.equal(on('shop:geo:food', 'GEOSEARCH', 'shop:geo:food', 'FROMLONLAT', '121.4737', '31.2304', 'BYRADIUS', '3', 'km', 'ASC')
      .split('\n').filter(Boolean).length, want['nearby-count']);
    assert.deepEqual(await cardValues(page), want);

    // The per-file table: one row per node, as the node and `bitlens inspect` say.
    const cli = JSON.parse(execFileSync(BITLENS, ['inspect', '--json', ...files], { encoding: 'utf8', maxBuffer: 64 << 20 }));
    const rows = await page.$$eval('[data-testid=mem-files] tbody tr', (trs) => trs.map((tr) => ({ ...tr.dataset })));
    assert.equal(rows.length, 3);
    assert.equal(Number(await page.getAttribute('[data-testid=mem-summary]', 'data-keys')), total);
    rows.forEach((r, i) => {
      const n = nodes[i];
      const f = cli.files[i];
      assert.equal(r.name, `node${i + 1}.rdb`);
      assert.equal(Number(r.keys), Number(redisCli(n.port, ['DBSIZE']).trim()), `${r.name}: keys`);
      assert.deepEqual([Number(r.keys), Number(r.expires), Number(r.memory), Number(r.slotFirst), Number(r.slotLast), Number(r.slotsUsed), r.allocator],
        [f.keys, f.expires, f.memory, f.slot_min, f.slot_max, f.slots_used, f.allocator], `${r.name} vs bitlens inspect`);
      for (const s of [Number(r.slotFirst), Number(r.slotLast)]) {
        assert.ok(n.ranges.some(([lo, hi]) => s >= lo && s <= hi), `${r.name}: slot ${s} outside ${JSON.stringify(n.ranges)}`);
      }
    });
    await page.locator('[data-testid=memory-section]').screenshot({ path: artifact('shards-memory-view.png') });
  });

  test('the same file twice is refused, naming the key and the file; the numbers stay', async () => {
    const before = await cardValues(page);
    await openFile(page, [files[0], files[0]], { settle: false });
    await page.waitForSelector('[data-testid=panel][data-offline=error]', { timeout: 60000 });
    const status = await page.textContent('[data-testid=status]');
    assert.match(status, /key .* of database 0 is in both node1\.rdb and node1\.rdb/);
    assert.match(status, /onDuplicate/);
    assert.deepEqual(await cardValues(page), before);
  });

  test('<bitlens-panel>: snapshot = [URL, File, bytes] loads the shards as one keyspace', async () => {
    const p = await browser.newPage({ viewport: { width: 1000, height: 800 } });
    p.on('pageerror', (e) => pageErrors.push(e.message));
    await p.goto(`${web.url}/widget.html`);
    await p.waitForSelector('#w >> [data-testid=panel][data-state=error]');
    const rel = path.relative(ROOT, path.join(ARTIFACTS, 'shards')).split(path.sep).join('/');
    const detail = await p.evaluate(async ({ url, two, three }) => {
      const el = document.getElementById('w');
      const loaded = new Promise((r) => el.addEventListener('bitlens-loaded', (e) => r(e.detail), { once: true }));
      el.snapshot = [url, new File([new Uint8Array(two)], 'node2.rdb'), new Uint8Array(three)];
      return loaded;
    }, { url: `/${rel}/node1.rdb`, two: [...readFileSync(files[1])], three: [...readFileSync(files[2])] });
    const total = nodes.reduce((a, n) => a + Number(redisCli(n.port, ['DBSIZE']).trim()), 0);
    assert.equal(detail.keys, total);
    assert.deepEqual(await cardValues({ getAttribute: (sel, a) => p.getAttribute(`#w >> ${sel}`, a) }),
      expectedCards((...argv) => redisCli(ref.port, argv).trim()));
    await p.waitForSelector('#w >> [data-testid=memory-section][data-state=ready]', { timeout: 60000 });
    const names = await p.$$eval('#w >> [data-testid=mem-files] tbody tr', (trs) => trs.map((tr) => tr.dataset.name));
    assert.deepEqual(names, ['node1.rdb', 'node2.rdb', 'file 3']);
    assert.deepEqual(pageErrors, []);
    await p.close();
  });
});
