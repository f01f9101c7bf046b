// The "Engagement" section of the panel (issue 7): four charts whose numbers the engine computes
// (the panel's promise client, in a Web Worker) and that the page's chart module (pkg/bitlens_charts.js) draws as SVG
// from those numbers (plotters; no engine, no data on the page), painted on <canvas> elements
// at devicePixelRatio, each with the numbers it shows as a table and the BITLENS.*
// commands that give them (paste them into `bitlens query`). Every chart answers a hover and
// keyboard focus with the exact value of a point (www/tooltip.js), in the table's words:
// - DAU with rolling 7/30-day actives over the snapshot's daily bitmaps up to the chosen date;
// - the streak histogram (BITLENS.STREAKHIST) over the last N days;
// - the retention heatmap of new actives (BITLENS.RETENTION lookback horizon);
// - the distribution of a BITFIELD u<w> field (BITLENS.ENUMDIST key u<w> AMONG today's actives),
//   with a clear message when the field key is not in the snapshot.
// Daily keys come from the panel's `activeKey` template; missing days inside the range are
// empty bitmaps (as BITOP reads them), so the day axis is continuous.

import { dauChart, enumChart, retentionChart, streakChart } from '../pkg/bitlens_charts.js';
import { attachTooltip } from './tooltip.js';
import {
  capture, chartStyle, el, fill, formatPercent, globEscape, globFor, isoDate, keyCount, keyNames, onResize, paintSvg, parseDate, ymd,
} from './util.js';

/** Settings of the section (all can be overridden through the panel settings object). */
export const ENGAGEMENT_DEFAULTS = {
  levelKey: 'stats:level:{date}',
  levelField: 4, // u4: 16 values
  streakDays: 7,
  lookback: 7,
  horizon: 7,
  cohorts: 14,
  maxDays: 90,
};

const STREAK_CHOICES = [7, 14, 30];
/** CSS height of a chart for its CSS width: [width ratio, min, max] (retention has more rows). */
const HEIGHT = { chart: [0.5, 240, 380], retention: [0.62, 300, 460] };
const CSS_URL = new URL('./engagement.css', import.meta.url).href;

/** The Redis globs of the keys the section reads (added to the panel's snapshot request). */
export function engagementPatterns(settings) {
  const s = { ...ENGAGEMENT_DEFAULTS, ...settings };
  return [globFor(s.activeKey), globFor(s.levelKey)];
}

/** `n` calendar days (YYYYMMDD) ending at UTC date `end`, oldest first. */
function daysEnding(end, n) {
  const out = [];
  for (let i = n - 1; i >= 0; i--) out.push(ymd(new Date(end.getTime() - i * 86400000)));
  return out;
}

/** Whole days from `a` to `b` (UTC dates). */
function dayDiff(a, b) {
  return Math.round((b.getTime() - a.getTime()) / 86400000);
}

/** redis-cli style line of an argv (quoted when needed). */
function cliLine(argv) {
  return argv.map((a) => (/^[\w:.*\-{}]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
}

/**
 * One chart block: heading, canvas, note line, folded table and commands. `results` holds
 * {argv, value} pairs (the reply of each command, as numbers / arrays) for tests and readers.
 */
function figure(id, title, height = HEIGHT.chart) {
  const canvas = el('canvas', { 'data-testid': `eng-${id}-canvas`, role: 'img', 'aria-label': title });
  const host = el('div', { class: 'eng-chart' }, canvas);
  const note = el('p', { class: 'eng-note', 'data-testid': `eng-${id}-note` });
  const details = el('details', { class: 'eng-numbers', hidden: true });
  const fig = el('figure', { class: 'eng-figure', 'data-testid': `eng-${id}` }, el('h3', {}, title), host, note, details);
  const tip = attachTooltip(host, canvas);
  tip.tip.dataset.testid = `eng-${id}-tip`;
  return { fig, canvas, note, details, title, height, tip, gen: 0, redraw: null };
}

/**
 * A tooltip's text: the Numbers table's columns `cols` of `row`, as "column: cell" pairs in
 * the page's locale (`cell`).
 */
function rowTip(t, head, row, cols) {
  return cols.map((i) => t.tipPair(head[i], cell(row[i], t))).join(t.tipJoin);
}

/**
 * Draws figure `f` with `draw(style)` (a wasm chart function bound to its numbers, returning
 * {svg, width, height, …, points}) at the canvas' CSS width, a height that follows it (at least
 * `o.minHeight` CSS px), and devicePixelRatio; the theme's colours and the label table's words.
 * The texts the chart drew (axis titles, legend) are exposed as data-axis-x / data-axis-y /
 * data-legend and in the canvas' aria-label; its points answer hovers and keys with
 * `o.describe(row, col)` (`o.nav`: 'x' or 'xy', tooltip.js). Kept as f.redraw for resizes and
 * theme changes.
 */
async function paint(f, t, draw, o = {}) {
  const gen = ++f.gen;
  f.canvas.hidden = false;
  const [ratio, min, max] = f.height;
  const width = f.canvas.getBoundingClientRect().width || f.fig.getBoundingClientRect().width;
  const height = Math.round(Math.max(Math.min(Math.max(width * ratio, min), max), o.minHeight || 0));
  f.canvas.style.height = `${height}px`;
  const chart = draw(chartStyle(f.canvas, t, width, height));
  if (!(await paintSvg(f.canvas, chart, () => gen === f.gen))) return;
  f.canvas.dataset.axisX = chart.xDesc;
  f.canvas.dataset.axisY = chart.yDesc;
  f.canvas.dataset.legend = JSON.stringify(chart.legend);
  f.canvas.dataset.points = String(chart.points.length / 4);
  f.canvas.setAttribute('aria-label', [f.title, `${chart.yDesc} / ${chart.xDesc}`, ...chart.legend].join(' · '));
  f.tip.update(chart, o.describe || (() => ''), o.nav || 'x');
  f.redraw = () => paint(f, t, draw, o).catch((e) => fail(f, e.message || String(e)));
}

/** Fills a figure's table, command list and `data-results` attribute. */
function showNumbers(f, head, rows, results, t) {
  const table = el(
    'table',
    {},
    el('thead', {}, el('tr', {}, head.map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, rows.map((r) => el('tr', {}, r.map((c, i) => el(i ? 'td' : 'th', i ? {} : { scope: 'row' }, cell(c, t)))))),
  );
  const cmds = el('pre', { class: 'cmd' }, results.map((r) => cliLine(r.argv)).join('\n'));
  f.details.replaceChildren(el('summary', {}, t.engNumbers), table, cmds);
  f.details.hidden = false;
  f.fig.dataset.results = JSON.stringify(results);
  f.fig.dataset.state = 'drawn';
}

/** A table cell: numbers in the page's locale (149,018), null empty, the rest as text. */
function cell(c, t) {
  if (c === null || c === undefined) return '';
  return typeof c === 'number' ? new Intl.NumberFormat(t.locale).format(c) : String(c);
}

function fail(f, message, state = 'error') {
  f.gen++;
  f.tip.update({ width: 1, points: [] }, () => '');
  f.tip.hide();
  const ctx = f.canvas.getContext('2d');
  ctx.clearRect(0, 0, f.canvas.width, f.canvas.height);
  f.canvas.hidden = true;
  f.redraw = null;
  f.note.textContent = message;
  f.note.setAttribute('role', state === 'error' ? 'alert' : 'status');
  f.details.replaceChildren();
  f.details.hidden = true;
  f.fig.dataset.results = '[]';
  f.fig.dataset.state = state;
}

/**
 * Builds the (empty) section. Returns {section, draw(eng, settings, date)} (`eng` the promise
 * client; draw resolves once every figure is drawn); the panel calls draw after every load /
 * date change (the chart module initialised). `t` is the panel's label table (i18n.js, en / zh).
 */
export function buildEngagementSection(t) {
  const section = el('section', { class: 'eng', 'data-testid': 'engagement-section', 'aria-labelledby': 'eng-title' },
    el('link', { rel: 'stylesheet', href: CSS_URL }),
    el('h2', { id: 'eng-title' }, t.engTitle));
  const streakSelect = el('select', { 'data-testid': 'eng-streak-days', 'aria-label': t.engStreakWindow },
    STREAK_CHOICES.map((n) => el('option', { value: n }, t.engLastDays(n))));
  const figs = {
    dau: figure('dau', t.engDauTitle),
    streak: figure('streak', t.engStreakTitle),
    retention: figure('retention', t.engRetentionTitle, HEIGHT.retention),
    enum: figure('enum', t.engEnumTitle),
  };
  const fmt = (n) => new Intl.NumberFormat(t.locale).format(n);
  figs.streak.fig.insertBefore(el('label', { class: 'eng-control' }, t.engWindow, ' ', streakSelect), figs.streak.canvas.parentNode);
  const grid = el('div', { class: 'eng-grid' }, Object.values(figs).map((f) => f.fig));
  section.append(grid);
  // Charts follow their container's width (and the theme): redrawn from the numbers they hold.
  onResize(grid, () => {
    for (const f of Object.values(figs)) if (f.redraw) f.redraw();
  });
  let last = null;
  streakSelect.onchange = () => {
    if (last) drawStreak(last.engine, last.s, last.date, Number(streakSelect.value));
  };

  const drawStreak = async (eng, s, date, n) => {
    const f = figs.streak;
    const keys = daysEnding(date, n).map((d) => fill(s.activeKey, { date: d }));
    try {
      const hist = Array.from(await eng.call('streakHistogram', keys));
      const title = t.engStreakChart(isoDate(date), n);
      const rows = hist.map((c, i) => [i + 1, c]);
      await paint(f, t, (style) => streakChart(hist, title, style), {
        describe: (r) => rowTip(t, t.engStreakHead, rows[r], [0, 1]),
      });
      const total = hist.reduce((a, b) => a + b, 0);
      f.note.textContent = t.engStreakNote(fmt(total), isoDate(date), fmt(hist[hist.length - 1]), n);
      showNumbers(f, t.engStreakHead, rows,
        [{ argv: ['BITLENS.STREAKHIST', ...keys], value: hist }], t);
    } catch (e) {
      fail(f, e.message || String(e));
    }
  };

  const draw = async (eng, settings, date) => {
    const s = { ...ENGAGEMENT_DEFAULTS, ...settings };
    last = { engine: eng, s, date };
    if (!STREAK_CHOICES.includes(Number(streakSelect.value))) streakSelect.value = String(s.streakDays);
    // The daily keys present, and the continuous day range from the first one to `date`.
    const present = (await keyNames(eng, globFor(s.activeKey)))
      .map((k) => capture(s.activeKey, k, 'date'))
      .filter((d) => d && parseDate(d) && d <= ymd(date))
      .sort();
    section.dataset.days = String(present.length);
    if (!present.length) {
      const msg = t.engNoDaily(fill(s.activeKey, { date: '*' }), isoDate(date));
      for (const f of [figs.dau, figs.streak, figs.retention]) fail(f, msg, 'empty');
    } else {
      const span = Math.min(dayDiff(parseDate(present[0]), date) + 1, s.maxDays);
      const keys = daysEnding(date, span).map((d) => fill(s.activeKey, { date: d }));
      // DAU and rolling actives.
      const f = figs.dau;
      try {
        const e = await eng.call('engagement', keys);
        const title = t.engDauChart(firstDate(keys, s), isoDate(date));
        const rows = e.labels.map((l, j) => [l, e.dau[j], e.wau[j], e.mau[j]]);
        await paint(f, t, (style) => dauChart(e.labels, e.dau, e.wau, e.mau, title, style), {
          describe: (r) => rowTip(t, t.engDauHead, rows[r], [0, 1, 2, 3]),
        });
        const i = e.dau.length - 1;
        f.note.textContent = t.engDauNote(isoDate(date), fmt(e.dau[i]), fmt(e.wau[i]), fmt(e.mau[i]), formatPercent(e.stickiness[i], t.locale));
        showNumbers(f, t.engDauHead, rows, [
          { argv: ['BITLENS.DAU', ...keys], value: e.dau },
          { argv: ['BITLENS.ROLLING', '7', ...keys], value: e.wau },
          { argv: ['BITLENS.ROLLING', '30', ...keys], value: e.mau },
        ], t);
      } catch (err) {
        fail(f, err.message || String(err));
      }
      await drawStreak(eng, s, date, Number(streakSelect.value));
      // Retention: `cohorts` cohort days ending at `date`, each with its look-back window.
      const r = figs.retention;
      const rkeys = keys.slice(-Math.min(keys.length, s.lookback + s.cohorts));
      if (rkeys.length <= s.lookback) {
        fail(r, t.engRetentionShort(s.lookback, fill(s.activeKey, { date: '*' }), rkeys.length, isoDate(date)), 'empty');
      } else {
        try {
          const { labels: rowLabels, rows } = await eng.call('retention', rkeys, s.lookback, s.horizon);
          const flat = rows.flat().map((v) => (v === null ? NaN : v));
          const title = t.engRetentionChart(s.lookback, s.horizon);
          const labels = rkeys.slice(s.lookback).map((k) => isoDate(parseDate(capture(s.activeKey, k, 'date'))));
          const head = [...t.engRetentionHead];
          for (let d = 1; d <= s.horizon; d++) head.push(`+${d}`);
          const table = rows.map((row, j) => [labels[j], ...row]);
          // A cell's tooltip: its cohort, the cohort's size, the day's count and its share.
          const describe = (j, c) => {
            const row = table[j];
            const back = row[2 + c];
            const share = row[1] ? formatPercent(back / row[1], t.locale) : '';
            return `${rowTip(t, head, row, [0, 1, 2 + c])} (${share})`;
          };
          // Rows of at least 18 CSS px (13 px labels) under the caption and the day axis.
          await paint(r, t, (style) => retentionChart(rowLabels, flat, s.horizon, title, style), {
            minHeight: rows.length * 18 + 150, describe, nav: 'xy',
          });
          r.note.textContent = t.engRetentionNote(fmt(rows.length));
          showNumbers(r, head, table,
            [{ argv: ['BITLENS.RETENTION', String(s.lookback), String(s.horizon), ...rkeys], value: rows }], t);
        } catch (err) {
          fail(r, err.message || String(err));
        }
      }
    }
    // Enum distribution of the day's field key among the day's actives.
    const g = figs.enum;
    const key = fill(s.levelKey, { date: ymd(date) });
    const among = fill(s.activeKey, { date: ymd(date) });
    if (!(await keyCount(eng, globEscape(key)))) {
      fail(g, t.engNoField(key, s.levelField), 'empty');
    } else {
      try {
        const hasAmong = (await keyCount(eng, globEscape(among))) > 0;
        const hist = await eng.call('enumDistribution', key, s.levelField, hasAmong ? among : undefined);
        const title = t.engEnumChart(key, hasAmong ? among : null);
        const argv = ['BITLENS.ENUMDIST', key, `u${s.levelField}`, ...(hasAmong ? ['AMONG', among] : [])];
        const lastNonZero = hist.reduce((m, c, i) => (c > 0 ? i : m), 0);
        const rows = Array.from(hist).slice(0, lastNonZero + 1).map((c, i) => [i, c]);
        await paint(g, t, (style) => enumChart(hist, title, style), {
          describe: (r) => rowTip(t, t.engEnumHead, rows[r], [0, 1]),
        });
        g.note.textContent = t.engEnumNote(fmt(hist.reduce((a, b) => a + b, 0)), hasAmong);
        showNumbers(g, t.engEnumHead, rows, [{ argv, value: hist }], t);
      } catch (err) {
        fail(g, err.message || String(err));
      }
    }
    section.dataset.state = 'ready';
  };
  return { section, draw };
}

/** ISO date of the first key of a list (for titles). */
function firstDate(keys, s) {
  const d = parseDate(capture(s.activeKey, keys[0], 'date'));
  return d ? isoDate(d) : keys[0];
}
