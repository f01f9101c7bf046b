// The cards: what each one computes (as the exact Redis commands it runs on the engine: the
// promise client of engine-client.js, in a Web Worker by default) and how it is drawn. Every number carries a stable data-testid and its raw value
// in data-value; the command that produced it is shown beside it for redis-cli.
// A card that fails shows the error and the failed command; the other cards are unaffected.

import { attachTooltip } from './tooltip.js';
import {
  chartStyle, cliLine, displayName, el, fill, formatPercent, lastDays, nameLabel, onResize, shortName,
} from './util.js';

/** Scratch key the active-users card passes to BITOP OR (removed again right after). */
export const SCRATCH_7D = 'bitlens:tmp:active:7d';
export const SCRATCH_30D = 'bitlens:tmp:active:30d';

/** City presets for the nearby-shops card: [id, longitude, latitude] (degrees). */
export const CITIES = [
  ['shanghai', 121.4737, 31.2304],
  ['beijing', 116.4074, 39.9042],
];

/** Radius presets per GEO unit (the card offers the ones of the chosen unit). */
export const RADII = { km: [1, 3, 5], m: [500, 1000, 3000, 5000], mi: [1, 2, 3], ft: [1000, 5000, 10000] };
export const UNITS = Object.keys(RADII);
export const PAGE_SIZE = 20;

/** An error that remembers which command failed. */
class CommandError extends Error {
  constructor(argv, cause) {
    super(cause && cause.message ? cause.message : String(cause));
    this.argv = argv;
  }
}

async function run(argv, fn) {
  try {
    return await fn();
  } catch (e) {
    throw new CommandError(argv, e);
  }
}

/** Which of `keys` do not exist (EXISTS of each, through the client). */
async function absent(eng, keys) {
  const out = [];
  for (const k of keys) if (!(await eng.command(['EXISTS', k]))) out.push(k);
  return out;
}

/**
 * Unique visitors for `date` (a UTC Date): PFCOUNT of the day's HyperLogLog and of the 7-
 * and 30-day unions. Returns {rows: [{id, label, value, commands}], missing: [key]}.
 */
export async function computeUv(eng, settings, date, t) {
  const keys = (n) => lastDays(date, n).map((d) => fill(settings.uvKey, { date: d }));
  const rows = await Promise.all([
    ['uv-day', t.uvDay, keys(1)],
    ['uv-7d', t.uv7, keys(7)],
    ['uv-30d', t.uv30, keys(30)],
  ].map(async ([id, label, ks]) => {
    const argv = ['PFCOUNT', ...ks];
    const value = await run(argv, () => eng.command(argv));
    return { id, label, value, commands: [argv] };
  }));
  return { rows, missing: await absent(eng, keys(1)) };
}

/**
 * Active users for `date`: BITCOUNT of the day's bitmap, and of the OR of the last 7 and 30
 * days' bitmaps (BITOP OR into a scratch key, then BITCOUNT of it; the key is removed).
 */
export async function computeActive(eng, settings, date, t) {
  const keys = (n) => lastDays(date, n).map((d) => fill(settings.activeKey, { date: d }));
  const day = keys(1)[0];
  const rows = [];
  {
    const argv = ['BITCOUNT', day];
    rows.push({
      id: 'active-day',
      label: t.activeDay,
      value: await run(argv, () => eng.command(argv)),
      commands: [argv],
    });
  }
  for (const [id, label, n, scratch] of [
    ['active-7d', t.active7, 7, SCRATCH_7D],
    ['active-30d', t.active30, 30, SCRATCH_30D],
  ]) {
    const ks = keys(n);
    const commands = [
      ['BITOP', 'OR', scratch, ...ks],
      ['BITCOUNT', scratch],
    ];
    const value = await run(commands[0], () => eng.call('bitopOrCount', ks, scratch));
    rows.push({ id, label, value, commands, scratch: true });
  }
  return { rows, missing: await absent(eng, [day]) };
}

/**
 * Nearby shops: GEOSEARCH key FROMLONLAT lon lat (or FROMMEMBER name when `q.member` is set)
 * BYRADIUS r unit ASC WITHDIST WITHCOORD.
 * Returns {argv, key, results: [{member, raw, dist, lon, lat}], map} (nearest first; `member`
 * the name as text, invalid UTF-8 as U+FFFD, `raw` its bytes, which the card shows escaped as
 * the key browser shows names: util.js displayName); `map(first,
 * count, title, width, style)` draws the search as a `width`-pixel square SVG chart object
 * (`nearbyChart` of the page's chart module, from the results: no engine; `style` its colours and
 * words, util.js chartStyle), with `result(row)` the index in `results` of its point `row`.
 */
export async function computeNearby(eng, settings, q, nearbyChart) {
  const key = fill(settings.geoKey, { type: q.type });
  const from = q.member ? ['FROMMEMBER', q.member] : ['FROMLONLAT', String(q.lon), String(q.lat)];
  const argv = ['GEOSEARCH', key, ...from, 'BYRADIUS', String(q.radius), q.unit, 'ASC', 'WITHDIST', 'WITHCOORD'];
  // commandRaw: bulk strings as bytes, so that a member's name is its bytes (two names that
  // are not UTF-8 stay apart; the text form would make both U+FFFD).
  const text = new TextDecoder();
  const results = await run(argv, async () => (await eng.call('commandRaw', argv)).map(([member, dist, [lon, lat]]) => ({
    member: text.decode(member), raw: member, dist: Number(text.decode(dist)), lon: Number(text.decode(lon)), lat: Number(text.decode(lat)),
  })));
  // The map of the search (plotters, SVG): the radius circle, the centre, every result,
  // the shown page emphasised. FROMMEMBER searches are centred on the member (distance 0).
  const metres = Number(q.radius) * ({ m: 1, km: 1000, mi: 1609.344, ft: 0.3048 }[q.unit] || 1);
  const centre = q.member ? results?.[0] : { lon: q.lon, lat: q.lat };
  const map = (first, count, title, width = 480, style = undefined) => {
    if (!centre || !Array.isArray(results)) return null;
    const shown = results.slice(first, first + count);
    const coords = [...shown, ...results.slice(0, first), ...results.slice(first + count)]
      .flatMap((s) => [s.lon, s.lat]);
    const chart = nearbyChart(centre.lon, centre.lat, metres, coords, shown.length, title, { ...style, width, height: width });
    // Points are given page first, then the results before it, then those after it.
    chart.result = (row) => (row < shown.length ? first + row : row < shown.length + first ? row - shown.length : row);
    return chart;
  };
  return { argv, key, results, map };
}

/**
 * Engagement summary over the daily-active bitmaps (issue 7): users active on each of the last
 * 7 days (BITLENS.STREAKHIST, a bitlens extension command) and stickiness DAU/MAU of the day.
 * The charts are in the Engagement section below the cards (www/engagement.js).
 */
export async function computeEngagement(eng, settings, date, t) {
  const keys = lastDays(date, 30).map((d) => fill(settings.activeKey, { date: d }));
  const week = keys.slice(-7);
  const argv = ['BITLENS.STREAKHIST', ...week];
  const hist = await run(argv, () => eng.command(argv));
  const e = await run(['BITLENS.DAU', ...keys], () => eng.call('engagement', keys));
  const last = e.dau.length - 1;
  const rows = [
    { id: 'engagement-streak7', label: t.streak7, value: hist[hist.length - 1], commands: [argv] },
  ];
  const stickiness = e.mau[last] ? e.dau[last] / e.mau[last] : 0;
  return { rows, stickiness, missing: [] };
}

/** Draws the engagement card. */
export async function drawEngagementCard(body, compute, fmt, t) {
  let r;
  try {
    r = await compute();
  } catch (e) {
    body.replaceChildren(errorBox('engagement', e, t));
    return;
  }
  body.replaceChildren();
  const list = el('div', { class: 'metrics' });
  for (const row of r.rows) {
    list.append(
      el(
        'div',
        { class: 'metric' },
        el('div', { class: 'metric-label' }, row.label),
        el('div', { class: 'metric-value', 'data-testid': row.id, 'data-value': row.value }, fmt(row.value)),
        commandBlock(row.id, row.commands, t, true),
      ),
    );
  }
  list.append(
    el(
      'div',
      { class: 'metric' },
      el('div', { class: 'metric-label' }, t.stickiness),
      el('div', { class: 'metric-value', 'data-testid': 'engagement-stickiness', 'data-value': r.stickiness }, formatPercent(r.stickiness, t.locale)),
    ),
  );
  body.append(list, el('p', { class: 'note' }, t.extensionNote));
}

// ---- drawing ---------------------------------------------------------------------------------

/**
 * The Redis commands behind a number, one per line, ready to paste into redis-cli. Long ones
 * (many keys) are folded under a one-line summary; the full text stays in the <pre>.
 */
function commandBlock(id, commands, t, fold = false) {
  const pre = el('pre', { class: 'cmd', 'data-testid': `${id}-cmd`, title: t.commands }, commands.map(cliLine).join('\n'));
  const head = (c) => (String(c[0]).toUpperCase() === 'BITOP' ? 4 : 2);
  const keys = Math.max(...commands.map((c) => c.length - head(c) + 1));
  if (!fold || keys <= 8) return pre;
  const summary = commands
    .map((c) => (c.length <= head(c) + 1 ? cliLine(c) : `${cliLine(c.slice(0, head(c)))} … ${cliLine(c.slice(-1))}`))
    .join(' ; ');
  return el('details', { class: 'cmd-fold' }, el('summary', {}, summary, ' ', el('span', { class: 'muted' }, t.keysCount(keys))), pre);
}

/**
 * A GEO member's name as the panel shows names (the key browser's escaping, util.js
 * displayName: redis-cli's quoting, so no control, newline or bidi character takes effect and
 * two names that are not UTF-8 differ): from its bytes when known.
 */
function memberName(s) {
  return displayName(s.raw ?? s.member);
}

/** The error box of a card: message and the command that failed. */
export function errorBox(id, err, t, title = t.failed) {
  return el(
    'div',
    { class: 'error', role: 'alert', 'data-testid': `${id}-error` },
    el('strong', {}, title + ': '),
    el('span', { class: 'error-text', 'data-testid': `${id}-error-text` }, shortName(err && err.message ? err.message : String(err), 600)),
    err && err.argv ? el('pre', { class: 'cmd', 'data-testid': `${id}-error-cmd` }, cliLine(err.argv)) : null,
  );
}

/** Draws a metric card (uv or active) into `body`. */
export async function drawMetricCard(body, id, compute, fmt, t) {
  let result;
  try {
    result = await compute();
  } catch (e) {
    body.replaceChildren(errorBox(id, e, t));
    return;
  }
  body.replaceChildren();
  for (const k of result.missing) {
    body.append(el('p', { class: 'warn', 'data-testid': `${id}-missing` }, t.missingKey(shortName(k))));
  }
  const list = el('div', { class: 'metrics' });
  for (const r of result.rows) {
    list.append(
      el(
        'div',
        { class: 'metric' },
        el('div', { class: 'metric-label' }, r.label),
        el('div', { class: 'metric-value', 'data-testid': r.id, 'data-value': r.value }, fmt(r.value)),
        commandBlock(r.id, r.commands, t, true),
      ),
    );
  }
  body.append(list);
  if (result.rows.some((r) => r.scratch)) body.append(el('p', { class: 'note' }, t.scratchNote));
}

/**
 * Draws the nearby-shops results (one page of PAGE_SIZE rows) into `body`.
 * @param {{argv, results}} result from computeNearby
 * @param {number} page 0-based
 * @param {(page: number) => void} goto
 */
export function drawNearbyResults(body, result, q, page, goto, fmt, t) {
  body.replaceChildren();
  const n = result.results.length;
  const pages = Math.max(1, Math.ceil(n / PAGE_SIZE));
  page = Math.min(Math.max(0, page), pages - 1);
  body.append(
    el(
      'div',
      { class: 'metric' },
      el('div', { class: 'metric-label' }, t.within(fmt(n), q.radius, q.unit)),
      el('div', { class: 'metric-value', 'data-testid': 'nearby-count', 'data-value': n }, fmt(n)),
      commandBlock('nearby', [result.argv], t),
    ),
  );
  if (n === 0) {
    body.append(el('p', { class: 'note' }, t.noShops));
    return;
  }
  const ol = el('ol', { class: 'shops', start: page * PAGE_SIZE + 1, 'data-testid': 'nearby-list' });
  for (const s of result.results.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE)) {
    ol.append(
      el(
        'li',
        { 'data-testid': 'nearby-row', 'data-member': s.member, 'data-dist': s.dist.toFixed(4) },
        el('span', { class: 'dist' }, `${s.dist.toFixed(4)} ${q.unit}`),
        // Escaped as the key browser shows names, and shortened when long.
        nameLabel(memberName(s), { class: 'member' }),
      ),
    );
  }
  body.append(ol);
  if (result.map) {
    // The map (SVG, one CSS pixel per SVG pixel) is as wide as the card (at most 560 px) and
    // in the theme's colours; redrawn when the card's width or the colour scheme changes.
    // Each dot answers a hover and the arrow keys with its shop and distance (tooltip.js).
    const img = el('img', { class: 'chart nearby-map', 'data-testid': 'nearby-map', alt: t.mapTitle || 'Map' });
    const host = el('div', { class: 'nearby-map-host' }, img);
    host.style.maxWidth = '100%';
    body.append(host);
    const tip = attachTooltip(host, img);
    tip.tip.dataset.testid = 'nearby-tip';
    const km = new Intl.NumberFormat(t.locale, { minimumFractionDigits: 4, maximumFractionDigits: 4 });
    const drawMap = () => {
      if (!img.isConnected) return false;
      const width = Math.max(200, Math.min(560, Math.floor(body.clientWidth || 480)));
      const style = chartStyle(body, t);
      const chart = result.map(page * PAGE_SIZE, PAGE_SIZE, t.mapTitle || 'Map', width, style);
      if (!chart) {
        host.remove();
        return false;
      }
      img.width = width;
      img.height = width;
      img.dataset.axisX = chart.xDesc;
      img.dataset.axisY = chart.yDesc;
      img.dataset.points = String(chart.points.length / 4);
      img.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(chart.svg);
      tip.update(chart, (row) => {
        const i = chart.result(row);
        const s = result.results[i];
        return `${i + 1}. ${km.format(s.dist)} ${q.unit}${t.tipJoin}${shortName(memberName(s))}`;
      }, 'xy');
      return true;
    };
    if (drawMap()) {
      if (body.stopMapResize) body.stopMapResize();
      body.stopMapResize = onResize(body, drawMap);
    }
  }
  if (pages > 1) {
    body.append(
      el(
        'div',
        { class: 'pager' },
        el('button', { type: 'button', 'data-testid': 'nearby-prev', disabled: page === 0, onclick: () => goto(page - 1) }, t.prev),
        el('span', { 'data-testid': 'nearby-page' }, t.page(page + 1, pages)),
        el('button', { type: 'button', 'data-testid': 'nearby-next', disabled: page >= pages - 1, onclick: () => goto(page + 1) }, t.next),
      ),
    );
  }
}
