// The key browser of the panel (issue 6): search the loaded snapshot by Redis glob pattern
// (keyList), page through the matching keys with their type, encoding, size and TTL, and open a
// key's detail (keyDetail): a bitmap's density strip, a HyperLogLog's register histogram, or a
// GEO set's points in their bounding box. Drawn on <canvas> with the panel's theme colours;
// each answers a hover and keyboard focus with one bucket's, register value's or member's
// exact figures (www/tooltip.js, the panel's one tooltip).
// Keyboard: the pattern field submits on Enter, each key is a button, the detail heading takes
// the focus when a key opens, and Escape in the detail goes back to the key's button.
// The list is of the engine's selected database (the panel's database selector switches it),
// or of every database with "all databases" ticked; the db is shown on every row, and a key of
// another database is opened in its own database. Expiry is shown at the engine's clock (info().clockMs): a
// date and the time left ("2100-01-01 00:00 UTC, in 73 years"); keys already expired at the
// clock are hidden unless "show expired keys" is ticked, then shown as "expired at …".
// Lists, sets, hashes and sorted sets show their first elements as the engine answers them
// (LRANGE / SSCAN / HSCAN / ZRANGE WITHSCORES), so scores print as the profile's server does.
// Online (`bitlens serve`, apiKeySource) the list is the API's: every key of the pattern in the
// selected database through /api/keys paging (not only the cards' snapshot), and a key opened
// is fetched alone (POST /api/snapshot of its exact name and database: a name of any length,
// which a URL could not carry past about 21 KB) into a side engine of the panel's worker
// (engine-client.js side) for its detail. Long names (a 100 KB key) are shown shortened in the
// table, the detail's heading, its tables and tooltips (util.js shortName), whole on demand.

import { keyDetail, keyList } from './offline.js';
import { exactGlob, listKeys, snapshotForm, snapshotUrl } from './snapshot.js';
import { attachTooltip } from './tooltip.js';
import {
  displayName, el, formatBytes, formatPercent, formatRelative, formatUtc, nameLabel, nameTitle, shortName, wholeName,
} from './util.js';

/** An error's message as the browser shows it: at most 600 characters (a key in it shortened). */
const message = (e) => shortName(e && e.message ? e.message : String(e), 600);

/**
 * The key source of the online panel (`bitlens serve`): every key of a pattern in database
 * `db` through `/api/keys?db=` paging (`list`), and a key opened fetched alone (`fetch`:
 * `/api/snapshot` of its exact name in that database, read by name on the server) into the
 * side engine of the panel's engine client `engine` (engine-client.js `side`: a second
 * Engine in the same worker, so a panel runs one worker and one wasm module), with that
 * database selected. The key browser thus lists and opens keys the cards' snapshot does not
 * hold, in the database the panel's selector shows, without touching the cards' keys.
 * @param {{api: string, token?: string, engine: object, db?: number}} opts
 * @returns {{list(pattern: string): Promise<object[]>, fetch(key: string|Uint8Array):
 *   Promise<object>, db: number, close(): void}}
 */
export function apiKeySource({ api, token, engine, db = 0 }) {
  // One side engine per key opened (freed when the next is opened): a slower earlier fetch
  // still loading can never install its key where the later one is read.
  let side = null;
  let opened = 0;
  const drop = () => {
    if (side) side.terminate();
    side = null;
  };
  return {
    db,
    list: (pattern) => listKeys(api, pattern, { token: token || undefined, db }),
    async fetch(key) {
      drop();
      const mine = engine.side(`key-${++opened}`);
      side = mine;
      try {
        // By POST: the name goes in the body, so a key of any length opens (a GET's URL stops
        // at 64 KB, a 21 KB name percent-encoded).
        await mine.loadUrl(snapshotUrl(api, []), { token: token || undefined, body: snapshotForm([exactGlob(key)], db) });
        await mine.call('select', db);
      } catch (e) {
        mine.terminate();
        if (side === mine) side = null;
        throw e;
      }
      return mine;
    },
    close: drop,
  };
}

/** Keys per page of the list. */
export const KEYS_PAGE = 25;
/** Density buckets of the bitmap strip and points of the GEO scatter. */
const BUCKETS = 256;
const MAX_POINTS = 2000;
/** Elements of a list, set, hash or sorted set shown in its detail. */
const MAX_ELEMENTS = 20;

/** Theme colours of the element (CSS custom properties of the panel). */
function colours(node) {
  const cs = getComputedStyle(node);
  const v = (name, dflt) => cs.getPropertyValue(name).trim() || dflt;
  return { fg: v('--fg', '#1d2330'), muted: v('--muted', '#5d6676'), accent: v('--accent', '#c2281f'), line: v('--line', '#dde1e7'), card: v('--card', '#fff') };
}

/** A canvas sized in CSS pixels, backed at the device pixel ratio. */
function canvas(testid, label, w, h) {
  const c = el('canvas', { 'data-testid': testid, role: 'img', 'aria-label': label, class: 'kb-canvas' });
  const r = window.devicePixelRatio || 1;
  c.width = Math.round(w * r);
  c.height = Math.round(h * r);
  c.style.aspectRatio = `${w} / ${h}`;
  const ctx = c.getContext('2d');
  ctx.scale(r, r);
  return { c, ctx, w, h };
}

/**
 * The canvas `cv` in a box that shows a tooltip per point: `pts` are [x, y] in the canvas' CSS
 * pixels at its drawn size `w` (the same pixels its drawing used), `describe(i)` the text of
 * point i; `nav` as tooltip.js ('x': nearest by x, 'xy': by distance).
 */
function withTooltip(cv, w, pts, describe, nav = 'x') {
  const box = el('div', { class: 'kb-chart' }, cv);
  const tip = attachTooltip(box, cv);
  tip.tip.dataset.testid = `${cv.dataset.testid}-tip`;
  tip.update({ width: w, points: pts.flatMap(([x, y], i) => [x, y, 0, i]) }, (_, i) => describe(i), nav);
  return box;
}

/**
 * Builds the (empty) key browser. Returns {section, setSource(eng), search(pattern)}; the panel
 * hands it a promise-API engine after every load.
 * @param {object} t labels (i18n.js)
 * @param {(n: number) => string} fmt number formatter of the panel's locale
 */
export function buildKeyBrowser(t, fmt, locale = 'en-US') {
  let source = null;
  let remote = null; // apiKeySource() when the keys are listed by the API (online)
  let info = null; // the engine's info(): clock and selected database
  let excursion = Promise.resolve(); // the latest withDb() visit to another database
  let page = 0;
  let last = null; // {pattern, total, keys}
  let seq = 0; // latest search
  let detailSeq = 0; // latest detail opened
  const showExpired = el('input', {
    type: 'checkbox', 'data-testid': 'kb-expired',
    onchange: () => {
      page = 0;
      search(pattern.value || '*');
    },
  });
  const allDbs = el('input', {
    type: 'checkbox', 'data-testid': 'kb-all-dbs',
    onchange: () => {
      page = 0;
      search(pattern.value || '*');
    },
  });
  const pattern = el('input', { type: 'search', name: 'pattern', value: '*', spellcheck: 'false', 'data-testid': 'kb-pattern', 'aria-label': t.kbPattern });
  const summary = el('p', { class: 'kb-summary', 'data-testid': 'kb-summary', 'aria-live': 'polite' });
  const list = el('div', { class: 'kb-list', 'data-testid': 'kb-list' });
  const pager = el('div', { class: 'pager' });
  const detail = el('div', { class: 'kb-detail', 'data-testid': 'kb-detail', hidden: true });
  const form = el('form', {
    class: 'kb-form', role: 'search',
    onsubmit: (e) => {
      e.preventDefault();
      page = 0;
      search(pattern.value);
    },
  }, el('label', {}, el('span', {}, t.kbPattern), pattern), el('button', { type: 'submit', 'data-testid': 'kb-search' }, t.search),
  el('label', { class: 'kb-expired' }, showExpired, ' ', t.kbShowExpired),
  el('label', { class: 'kb-expired' }, allDbs, ' ', t.kbAllDbs));
  const section = el('section', { class: 'kb', 'data-testid': 'keys-section', 'aria-labelledby': 'kb-title', hidden: true },
    el('h2', { id: 'kb-title' }, t.kbTitle), form, summary,
    el('div', { class: 'kb-body' }, el('div', { class: 'kb-left' }, list, pager), detail));

  async function search(p) {
    if (!source && !remote) return;
    const my = ++seq;
    section.dataset.state = 'searching';
    const want = (page + 1) * KEYS_PAGE;
    try {
      if (remote) {
        // Every key of the pattern, listed by the API (pages of /api/keys), not only those of
        // the cards' snapshot, with the PTTL the server gave (null: no expiry); the encoding
        // is known once a key is opened (OBJECT ENCODING is not among the exporter's reads).
        const rows = await remote.list(p || '*');
        if (my !== seq) return;
        last = {
          pattern: p, total: rows.length, db: remote.db, remote: true,
          keys: rows.map((r) => ({ key: r.key, raw: r.raw, type: r.type, encoding: '–', bytes: r.bytes, ttlMs: r.ttlMs === undefined ? undefined : r.ttlMs, db: remote.db })),
        };
        drawList();
        section.dataset.state = 'ready';
        return;
      }
      info = await source.call('info');
      const opts = { expired: showExpired.checked };
      let r;
      if (allDbs.checked) {
        // Every database in turn (the engine's selected one is put back): keys by db, then name.
        const keys = [];
        let total = 0;
        await withDb(undefined, async () => {
          for (const d of info.databases) {
            await source.call('select', d.db);
            const part = await keyList(source, p, want, opts);
            total += part.total;
            keys.push(...part.keys.map((k) => ({ ...k, db: d.db })));
          }
        });
        r = { total, keys: keys.slice(0, want), db: 'all' };
      } else {
        r = await keyList(source, p, want, opts);
        r = { ...r, keys: r.keys.map((k) => ({ ...k, db: info.selected })), db: info.selected };
      }
      if (my !== seq) return;
      last = { pattern: p, ...r };
      drawList();
      section.dataset.state = 'ready';
    } catch (e) {
      if (my !== seq) return;
      list.replaceChildren(el('div', { class: 'error', role: 'alert', 'data-testid': 'kb-error' }, message(e)));
      summary.textContent = '';
      pager.replaceChildren();
      section.dataset.state = 'error';
    }
  }

  function drawList() {
    const { total, keys } = last;
    const pages = Math.max(1, Math.ceil(total / KEYS_PAGE));
    summary.textContent = last.db === 'all' ? t.kbMatchesAll(fmt(total), last.pattern) : t.kbMatchesIn(fmt(total), last.pattern, last.db);
    summary.dataset.total = total;
    summary.dataset.db = last.db;
    summary.dataset.source = last.remote ? 'api' : 'snapshot';
    const rows = keys.slice(page * KEYS_PAGE, (page + 1) * KEYS_PAGE);
    const table = el('table', { class: 'kb-table' },
      el('thead', {}, el('tr', {}, [t.kbKey, t.kbType, t.kbEncoding, t.kbSize, t.kbTtl, t.kbDb].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, rows.map((k) => el('tr', { 'data-testid': 'kb-row', 'data-key': k.key, 'data-db': k.db, 'data-expired': k.ttlMs !== null && k.ttlMs < 0 ? 'true' : null },
        el('th', { scope: 'row' }, nameLabel(displayName(k.raw ?? k.key), { type: 'button', class: 'kb-key', 'data-key': k.key, onclick: (e) => open(k.key, e.currentTarget, k.db, k.ttlMs, k.raw) }, 'button')),
        el('td', {}, k.type), el('td', {}, k.encoding), el('td', { class: 'num' }, formatBytes(k.bytes)),
        el('td', { class: 'num', 'data-testid': 'kb-row-ttl', 'data-ttl-ms': k.ttlMs ?? '' }, k.ttlMs === undefined ? '–' : ttl(k.ttlMs)),
        el('td', { class: 'num' }, String(k.db))))));
    list.replaceChildren(rows.length ? table : el('p', { class: 'note' }, t.kbNone));
    const go = (p) => {
      page = p;
      // keyList has no offset: ask for enough keys to fill the wanted page.
      if ((page + 1) * KEYS_PAGE > last.keys.length && last.keys.length < last.total) search(last.pattern);
      else drawList();
    };
    pager.replaceChildren(...(pages > 1 ? [
      el('button', { type: 'button', 'data-testid': 'kb-prev', disabled: page === 0, onclick: () => go(page - 1) }, t.prev),
      el('span', { 'data-testid': 'kb-page' }, t.page(page + 1, pages)),
      el('button', { type: 'button', 'data-testid': 'kb-next', disabled: page >= pages - 1, onclick: () => go(page + 1) }, t.next),
    ] : []));
  }

  /**
   * An expiry `ms` milliseconds after the clock as a date plus the time left; a negative one
   * (already expired at the clock) as "expired at …"; none as "none".
   */
  const ttl = (ms) => {
    if (ms === null || ms === undefined) return t.kbNoTtl;
    const clock = info && info.clockMs !== null ? info.clockMs : Date.now();
    const date = formatUtc(clock + ms);
    return ms < 0 ? t.kbExpiredAt(date, formatRelative(ms, locale)) : t.kbExpires(date, formatRelative(ms, locale));
  };

  /**
   * Runs `fn` with database `db` selected in the engine, then selects the one that was
   * (`db` undefined: only restores the selection afterwards).
   */
  function withDb(db, fn) {
    const run = async () => {
      const selected = (await source.call('info')).selected;
      if (db !== undefined && db !== selected) await source.call('select', db);
      try {
        return await fn();
      } finally {
        if (db !== selected) await source.call('select', selected);
      }
    };
    // One at a time, so that a selection put back never undoes another's (see idle()).
    const result = excursion.then(run, run);
    excursion = result.catch(() => {});
    return result;
  }

  const MODULE_KINDS = ['bloom', 'cuckoo', 'cms', 'topk', 'tdigest'];

  /** The engine a detail reads (the snapshot's, or the opened key's own when online). */
  let detailEng = null;
  /** (engine, key) => Promise<Element | null>: the key's memory ledger block (setLedgerHook). */
  let ledgerHook = null;
  /** Runs `fn` in database `db` of the snapshot's engine (online: the key's engine, as is). */
  const via = (db, fn) => (remote ? fn() : withDb(db, fn));

  async function open(key, from, db, ttlMs, raw = key) {
    const my = ++detailSeq;
    detail.hidden = false;
    detail.dataset.state = 'loading';
    detail.replaceChildren(el('p', {}, t.loading));
    let d;
    try {
      // Online the key is fetched alone from the API (the cards' snapshot may not hold it).
      detailEng = remote ? await remote.fetch(raw) : source;
      if (my !== detailSeq) return;
      d = await via(db, () => keyDetail(detailEng, raw, { buckets: BUCKETS, maxPoints: MAX_POINTS }));
    } catch (e) {
      if (my !== detailSeq) return;
      detail.replaceChildren(el('div', { class: 'error', role: 'alert', 'data-testid': 'kb-detail-error' }, message(e)));
      detail.dataset.state = 'error';
      return;
    }
    if (my !== detailSeq) return;
    // A long name shortened, with its whole text on demand (a box that scrolls, a copy button).
    const shown = displayName(raw);
    const heading = el('h3', { tabindex: '-1', 'data-testid': 'kb-detail-key', title: shown.length > 64 ? nameTitle(shown) : null }, shortName(shown));
    const whole = wholeName(shown, t);
    const close = el('button', { type: 'button', class: 'kb-close', 'data-testid': 'kb-close', 'aria-label': t.kbClose, onclick: () => back() }, '×');
    const back = () => {
      detail.hidden = true;
      detail.replaceChildren();
      if (from && from.isConnected) from.focus();
    };
    detail.onkeydown = (e) => {
      if (e.key === 'Escape' && !e.defaultPrevented) back(); // not when it hid a chart's tooltip
    };
    if (!d) {
      // A key listed with "show expired keys" is gone for every command at the clock.
      const expired = ttlMs !== null && ttlMs !== undefined && ttlMs < 0;
      detail.replaceChildren(close, heading, ...(whole ? [whole] : []), el('p', { class: 'warn', 'data-testid': 'kb-gone' }, expired ? ttl(ttlMs) : t.kbGone));
      detail.dataset.state = 'missing';
      heading.focus();
      return;
    }
    const facts = [[t.kbType, d.type, 'type'], [t.kbEncoding, d.encoding, 'encoding'], [t.kbSize, formatBytes(d.bytes), 'bytes'], [t.kbTtl, ttl(d.ttlMs), 'ttl']];
    const dl = el('dl', { class: 'kb-facts' });
    const fact = (label, shown, id, raw) => dl.append(el('dt', {}, label), el('dd', { 'data-testid': `kb-${id}`, 'data-value': raw ?? shown }, shown));
    for (const [l, v, id] of facts) fact(l, v, id);
    if (db !== undefined) fact(t.kbDb, String(db), 'db');
    if (remote) detail.dataset.source = 'api';
    detail.replaceChildren(close, heading, ...(whole ? [whole] : []), dl);
    detail.dataset.kind = d.kind;
    const c = colours(detail);
    if (d.kind === 'bitmap') {
      fact(t.kbBits, fmt(d.bits), 'bits', d.bits);
      fact(t.kbBitcount, fmt(d.bitcount), 'bitcount', d.bitcount);
      fact(t.kbDensity, formatPercent(d.bits ? d.bitcount / d.bits : 0, locale, 2), 'density', d.bits ? d.bitcount / d.bits : 0);
      detail.append(el('h4', {}, t.kbDensityStrip), densityStrip(d.density, d.bits, c, t, fmt, locale));
    } else if (d.kind === 'hll') {
      fact(t.kbHllEncoding, d.hllEncoding, 'hll-encoding');
      fact(t.kbCardinality, fmt(d.cardinality), 'cardinality', d.cardinality);
      if (d.registerHistogram) detail.append(el('h4', {}, t.kbRegisters), registerHistogram(d.registerHistogram, c, t, fmt));
    } else if (d.kind === 'geo') {
      fact(t.kbMembers, fmt(d.members), 'members', d.members);
      if (d.bbox) fact(t.kbBbox, d.bbox.map((x) => x.toFixed(5)).join(', '), 'bbox', d.bbox.join(','));
      detail.append(el('h4', {}, t.kbPoints(fmt(d.points.length), fmt(d.members))), geoScatter(d.points, d.bbox, c, t));
    } else if (MODULE_KINDS.includes(d.kind)) {
      moduleDetail(d, key, db, fact, raw);
    } else if (['zset', 'list', 'set', 'hash'].includes(d.type)) {
      try {
        detail.append(await via(db, () => elements(d.type, raw)));
      } catch (e) {
        // An engine without this type's read commands says so as Redis would: no preview then.
        const msg = message(e);
        detail.append(/^ERR unknown command/.test(msg)
          ? el('p', { class: 'note' }, t.kbOther)
          : el('div', { class: 'error', role: 'alert', 'data-testid': 'kb-values-error' }, msg));
      }
      if (my !== detailSeq) return;
    } else {
      detail.append(el('p', { class: 'note' }, t.kbOther));
    }
    // The memory ledger of this key (www/memory.js keyLedger), when the panel set the hook.
    if (ledgerHook) {
      const block = await via(db, () => ledgerHook(detailEng, raw)).catch(() => null);
      if (my !== detailSeq) return;
      if (block) detail.append(block);
    }
    detail.dataset.state = 'ready';
    heading.focus();
  }

  /**
   * A RedisBloom value: its INFO figures as facts, then per type a Bloom/Cuckoo "seen before?"
   * check (BF.EXISTS / CF.EXISTS on this filter, shown with the command), the Top-K list
   * (TOPK.LIST WITHCOUNT) or the t-digest's quantile curve (TDIGEST.QUANTILE) as tables.
   */
  function moduleDetail(d, key, db, fact, raw = key) {
    const num = (v) => (v === null || v === undefined ? '–' : typeof v === 'number' && !Number.isInteger(v) ? String(v) : fmt(v));
    const pct = (r) => (r === null || r === undefined ? '–' : formatPercent(r, locale, 2));
    const rows = {
      bloom: [[t.kbCapacity, num(d.capacity), 'capacity', d.capacity], [t.kbItems, num(d.items), 'items', d.items],
        [t.kbErrorRate, String(d.errorRate), 'error-rate', d.errorRate], [t.kbFilters, num(d.filters), 'filters', d.filters],
        [t.kbFill, pct(d.fillRatio), 'fill', d.fillRatio], [t.kbModuleSize, formatBytes(d.sizeBytes), 'size', d.sizeBytes]],
      cuckoo: [[t.kbBuckets, num(d.buckets), 'buckets', d.buckets], [t.kbItems, num(d.items), 'items', d.items],
        [t.kbDeletes, num(d.deletes), 'deletes', d.deletes], [t.kbFilters, num(d.filters), 'filters', d.filters],
        [t.kbFill, pct(d.fillRatio), 'fill', d.fillRatio], [t.kbModuleSize, formatBytes(d.sizeBytes), 'size', d.sizeBytes]],
      cms: [[t.kbWidth, num(d.width), 'width', d.width], [t.kbDepth, num(d.depth), 'depth', d.depth],
        [t.kbCount, num(d.count), 'count', d.count]],
      topk: [[t.kbTopK, num(d.k), 'k', d.k], [t.kbWidth, num(d.width), 'width', d.width], [t.kbDepth, num(d.depth), 'depth', d.depth],
        [t.kbDecay, String(d.decay), 'decay', d.decay]],
      tdigest: [[t.kbCompression, num(d.compression), 'compression', d.compression], [t.kbCentroids, num(d.centroids), 'centroids', d.centroids],
        [t.kbObservations, num(d.observations), 'observations', d.observations],
        [t.kbMinMax, d.min === null ? '–' : `${d.min} … ${d.max}`, 'min-max', d.min === null ? '' : `${d.min},${d.max}`]],
    }[d.kind];
    for (const [label, shown, id, raw] of rows) fact(label, shown, id, raw);
    const table = (head, body, testid) => el('table', { class: 'kb-table', 'data-testid': testid },
      el('thead', {}, el('tr', {}, head.map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, body.map((r) => el('tr', {}, r.map((c) => el('td', {}, nameLabel(c)))))));
    if (d.kind === 'topk') {
      detail.append(el('h4', {}, `${t.kbTopList} · TOPK.LIST ${shortName(key)} WITHCOUNT`),
        table([t.kbItem, t.kbCount], d.list.map((r) => [r.item, fmt(r.count)]), 'kb-topk'));
    } else if (d.kind === 'tdigest') {
      detail.append(el('h4', {}, `${t.kbQuantiles} · TDIGEST.QUANTILE ${shortName(key)} q…`),
        table(['q', t.kbValue], d.quantiles.map((r) => [String(r.q), Number.isNaN(r.value) ? 'nan' : String(r.value)]), 'kb-quantiles'));
    } else if (d.kind === 'bloom' || d.kind === 'cuckoo') {
      const cmd = d.kind === 'bloom' ? 'BF.EXISTS' : 'CF.EXISTS';
      const input = el('input', { type: 'text', 'data-testid': 'kb-seen-input', 'aria-label': t.kbSeenItem, placeholder: t.kbSeenItem });
      const out = el('output', { 'data-testid': 'kb-seen-answer', 'aria-live': 'polite' });
      const ask = async () => {
        try {
          const r = await via(db, () => detailEng.command([cmd, raw, input.value]));
          out.dataset.value = String(r);
          out.textContent = `${r === 1 ? t.kbSeenMaybe : t.kbSeenNo} · ${cmd} ${shortName(key)} ${shortName(input.value)} → (integer) ${r}`;
        } catch (e) {
          out.dataset.value = 'error';
          out.textContent = message(e);
        }
      };
      const form = el('form', { class: 'kb-seen', 'data-testid': 'kb-seen', onsubmit: (e) => { e.preventDefault(); ask(); } },
        el('label', {}, t.kbSeenBefore, ' ', input), el('button', { type: 'submit', 'data-testid': 'kb-seen-ask' }, t.kbSeenAsk), ' ', out);
      detail.append(form);
    }
  }

  /**
   * The first elements of a list, set, hash or sorted set as the engine answers its read
   * commands (so a score is printed as the profile's server prints it), in a table.
   */
  async function elements(type, key) {
    const n = String(MAX_ELEMENTS);
    let head;
    let rows;
    let total;
    if (type === 'zset') {
      total = await detailEng.command(['ZCARD', key]);
      const flat = await detailEng.command(['ZRANGE', key, '0', String(MAX_ELEMENTS - 1), 'WITHSCORES']);
      head = [t.kbMember, t.kbScore];
      rows = [];
      for (let i = 0; i < flat.length; i += 2) rows.push([flat[i], flat[i + 1]]);
    } else if (type === 'list') {
      total = await detailEng.command(['LLEN', key]);
      head = [t.kbIndex, t.kbElement];
      rows = (await detailEng.command(['LRANGE', key, '0', String(MAX_ELEMENTS - 1)])).map((v, i) => [String(i), v]);
    } else if (type === 'hash') {
      total = await detailEng.command(['HLEN', key]);
      const [, flat] = await detailEng.command(['HSCAN', key, '0', 'COUNT', n]);
      head = [t.kbField, t.kbValue];
      rows = [];
      for (let i = 0; i < flat.length && rows.length < MAX_ELEMENTS; i += 2) rows.push([flat[i], flat[i + 1]]);
    } else {
      total = await detailEng.command(['SCARD', key]);
      const [, members] = await detailEng.command(['SSCAN', key, '0', 'COUNT', n]);
      head = [t.kbMember];
      rows = members.slice(0, MAX_ELEMENTS).map((m) => [m]);
    }
    return el('div', { class: 'kb-values', 'data-testid': 'kb-values', 'data-total': total },
      el('h4', {}, t.kbValues(fmt(rows.length), fmt(total))),
      el('table', { class: 'kb-table' },
        el('thead', {}, el('tr', {}, head.map((h) => el('th', { scope: 'col' }, h)))),
        el('tbody', {}, rows.map((r) => el('tr', { 'data-testid': 'kb-value-row' }, r.map((c) => el('td', {}, nameLabel(c))))))));
  }

  return {
    section,
    /** Sets the hook that draws a key's memory ledger under its detail (www/memory.js). */
    setLedgerHook(fn) {
      ledgerHook = fn;
    },
    /**
     * Settles once no visit to another database (all databases, a key of another one) is under
     * way: the panel waits for it before selecting a database itself.
     */
    idle: () => excursion,
    /** Lists again with the current pattern (after a database or profile change). */
    refresh() {
      if (!source && !remote) return Promise.resolve();
      detail.hidden = true;
      detail.replaceChildren();
      page = 0;
      return search(pattern.value || '*');
    },
    /**
     * Points the browser at a (promise-API) engine and lists its keys with the current
     * pattern; with `api` (apiKeySource(), online) the keys are listed by the API and opened
     * from it instead (the engine's keys are a subset).
     */
    setSource(eng, api = null) {
      if (remote && remote !== api) remote.close();
      source = eng;
      remote = api;
      section.hidden = !eng && !api;
      section.dataset.source = api ? 'api' : 'snapshot';
      // Expired keys are the snapshot's notion, and the API lists one database (the panel's
      // selector picks it): neither box online.
      for (const box of [showExpired, allDbs]) box.closest('label').hidden = Boolean(api);
      detail.hidden = true;
      detail.replaceChildren();
      page = 0;
      if (eng || api) return search(pattern.value || '*');
      return Promise.resolve();
    },
    search(p) {
      pattern.value = p;
      page = 0;
      return search(p);
    },
    open: (key) => open(key, null),
  };
}

/** The bitmap's set-bit density per bucket as a strip of shaded cells, with a scale line. */
function densityStrip(density, bits, c, t, fmt, locale) {
  const { c: cv, ctx, w, h } = canvas('kb-density-canvas', t.kbDensityStrip, 720, 70);
  const max = Math.max(...density, 0);
  const bw = w / Math.max(1, density.length);
  ctx.fillStyle = c.card;
  ctx.fillRect(0, 0, w, h);
  ctx.fillStyle = c.accent;
  density.forEach((v, i) => {
    if (!v) return;
    // Opacity proportional to the bucket's density relative to the densest bucket.
    ctx.globalAlpha = 0.15 + 0.85 * (max ? v / max : 0);
    ctx.fillRect(i * bw, 4, Math.max(1, bw), h - 24);
  });
  ctx.globalAlpha = 1;
  ctx.strokeStyle = c.line;
  ctx.strokeRect(0.5, 4.5, w - 1, h - 24);
  ctx.fillStyle = c.muted;
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'bottom';
  ctx.fillText(t.kbBit(0), 2, h - 2);
  const end = t.kbBit(fmt(Math.max(0, bits - 1)));
  ctx.fillText(end, w - ctx.measureText(end).width - 2, h - 2);
  const mid = t.kbMaxDensity(`${(max * 100).toFixed(1)}%`);
  ctx.fillText(mid, (w - ctx.measureText(mid).width) / 2, h - 2);
  cv.dataset.buckets = String(density.length);
  // A bucket's bits a … b − 1 (the cut of keydetail::density) and its set bits (density × width).
  const edge = (i) => Math.floor((bits * i) / Math.max(1, density.length));
  const pts = density.map((_, i) => [i * bw + bw / 2, 4 + (h - 24) / 2]);
  return withTooltip(cv, w, pts, (i) => {
    const [a, b] = [edge(i), edge(i + 1)];
    const n = Math.round(density[i] * (b - a));
    return t.kbTipDensity(fmt(a), fmt(Math.max(a, b - 1)), fmt(n), formatPercent(b > a ? n / (b - a) : 0, locale));
  });
}

/** The HLL register-value histogram (values 0..last non-empty), bars on a log scale. */
function registerHistogram(hist, c, t, fmt) {
  const last = Math.max(1, hist.reduce((m, v, i) => (v > 0 ? i : m), 0));
  const data = hist.slice(0, last + 1);
  const { c: cv, ctx, w, h } = canvas('kb-registers-canvas', t.kbRegisters, 720, 220);
  const pad = { l: 52, r: 10, t: 10, b: 34 };
  const pw = w - pad.l - pad.r;
  const ph = h - pad.t - pad.b;
  const max = Math.max(...data, 1);
  const y = (v) => (v > 0 ? (Math.log10(v + 1) / Math.log10(max + 1)) * ph : 0);
  ctx.fillStyle = c.card;
  ctx.fillRect(0, 0, w, h);
  const bw = pw / data.length;
  ctx.fillStyle = c.accent;
  data.forEach((v, i) => {
    const bh = y(v);
    ctx.fillRect(pad.l + i * bw + 1, pad.t + ph - bh, Math.max(1, bw - 2), bh);
  });
  ctx.strokeStyle = c.line;
  ctx.beginPath();
  ctx.moveTo(pad.l, pad.t);
  ctx.lineTo(pad.l, pad.t + ph);
  ctx.lineTo(pad.l + pw, pad.t + ph);
  ctx.stroke();
  ctx.fillStyle = c.muted;
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'top';
  const step = Math.ceil(data.length / 16);
  for (let i = 0; i < data.length; i += step) ctx.fillText(String(i), pad.l + i * bw + bw / 2 - 3, pad.t + ph + 3);
  ctx.fillText(t.kbRegisterValue, pad.l + pw / 2 - 40, pad.t + ph + 18);
  ctx.textBaseline = 'middle';
  ctx.fillText(fmt(max), 4, pad.t + 6);
  ctx.fillText('0', 4, pad.t + ph);
  cv.dataset.values = JSON.stringify(data);
  const pts = data.map((v, i) => [pad.l + i * bw + bw / 2, pad.t + ph - y(v)]);
  return withTooltip(cv, w, pts, (i) => t.kbTipRegisters(fmt(i), fmt(data[i])));
}

/** GEO points as a scatter in their bounding box (equirectangular, lon scaled by cos(lat)). */
function geoScatter(points, bbox, c, t) {
  const { c: cv, ctx, w, h } = canvas('kb-geo-canvas', t.kbGeoMap, 480, 360);
  ctx.fillStyle = c.card;
  ctx.fillRect(0, 0, w, h);
  const pad = 20;
  const pts = [];
  if (points.length && bbox) {
    const [x0, y0, x1, y1] = bbox;
    const k = Math.cos((((y0 + y1) / 2) * Math.PI) / 180) || 1;
    const sx = (x1 - x0) * k || 1e-9;
    const sy = y1 - y0 || 1e-9;
    const scale = Math.min((w - 2 * pad) / sx, (h - 2 * pad) / sy);
    const ox = (w - sx * scale) / 2;
    const oy = (h - sy * scale) / 2;
    ctx.strokeStyle = c.line;
    ctx.strokeRect(ox, oy, sx * scale, sy * scale);
    ctx.fillStyle = c.accent;
    for (const p of points) {
      const px = ox + (p.lon - x0) * k * scale;
      const py = oy + (y1 - p.lat) * scale;
      ctx.beginPath();
      ctx.arc(px, py, 2.5, 0, 2 * Math.PI);
      ctx.fill();
      pts.push([px, py]);
    }
    ctx.fillStyle = c.muted;
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'bottom';
    ctx.fillText(`${x0.toFixed(4)}, ${y0.toFixed(4)}`, 2, h - 2);
    const ne = `${x1.toFixed(4)}, ${y1.toFixed(4)}`;
    ctx.textBaseline = 'top';
    ctx.fillText(ne, w - ctx.measureText(ne).width - 2, 2);
  }
  cv.dataset.points = String(points.length);
  // A member's name and its position as GEOPOS gives it (degrees, 6 decimals shown).
  // The member as the key browser shows every name (util.js displayName: no control or bidi
  // character takes effect), shortened for the tooltip.
  return withTooltip(cv, w, pts, (i) => t.kbTipGeo(shortName(displayName(points[i].member)), points[i].lon.toFixed(6), points[i].lat.toFixed(6)), 'xy');
}
