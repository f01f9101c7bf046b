// The panel's crowd and consumer-offset cards (issue 19 §3–4).
//
// Crowds (card `crowds`): the keys matching the user card's `tagKey` (default tag:*). A crowd
// kept as a bitmap (bit = user id) is sized by BITCOUNT; one kept as a Set (members = user ids)
// by SCARD. Over all crowds, the overlap matrix is BITLENS.TAGOVERLAP (users in both crowds;
// the diagonal is each crowd's size) and the reach among the chosen day's actives is
// BITLENS.TAGREACH <activeKey of the day> … . Both read a Set crowd of integer user ids as its
// members (a member that is not a user id is an error reply, shown on the card).
//
// Consumer offsets (card `offsets`): idempotency bitmaps `<topic>:<partition>:bitmap` (setting
// `offsetKey`, default *:*:bitmap; bit = message offset, set once processed). The window of
// each partition is its whole bitmap, offsets 0 … 8·STRLEN − 1. Per partition: the processed
// count (BITLENS.PROCESSED = BITCOUNT), the first unprocessed offset (BITLENS.FIRSTUNPROCESSED
// = BITPOS key 0) and the gaps (BITLENS.GAPS key 0 <last> LIMIT n: maximal runs of clear
// offsets), listed and drawn as a strip along the offset axis (plain HTML/CSS bars).
//
// Every number is the reply of the command printed next to it, asked of the panel's engine.

import { USER_DEFAULTS } from './userstory.js';
import {
  cliLine, el, fill, isoDate, keyNames, nameLabel, nameTitle, shortLine, shortName, ymd,
} from './util.js';

/** The cards of this module, in `cards=` names. */
export const CROWD_CARDS = ['crowds', 'offsets'];

/** Settings of these cards (merged into the panel's DEFAULTS); the crowds use `tagKey`. */
export const CROWD_DEFAULTS = {
  offsetKey: '*:*:bitmap', // idempotency bitmaps <topic>:<partition>:bitmap (a Redis glob)
};

/** URL parameter / attribute name of each setting. */
export const CROWD_PARAMS = { offsetKey: 'offset-key' };

/** Largest number of crowds sized and put in the matrix (the rest are counted). */
export const CROWD_LIMIT = 24;
/** Largest number of partitions shown (the rest are counted). */
export const PARTITION_LIMIT = 32;
/** Gaps listed per partition (BITLENS.GAPS … LIMIT GAP_LIMIT + 1 tells whether more follow). */
export const GAP_LIMIT = 50;
/** Gap lists up to this long are shown unfolded. */
const GAPS_OPEN = 8;

/** The Redis globs of the keys these cards read (for the API snapshot). */
export function crowdPatterns(s, cards) {
  const p = [];
  if (cards.includes('crowds')) p.push(String(s.tagKey || USER_DEFAULTS.tagKey));
  if (cards.includes('offsets')) p.push(String(s.offsetKey || CROWD_DEFAULTS.offsetKey));
  return p;
}

/** A key name that may wrap after each `:` (text and <wbr> nodes). */
function breakable(name) {
  return String(name).split(/(?<=:)/).flatMap((part, i) => (i ? [el('wbr'), part] : [part]));
}

/** `cmd → reply` as redis-cli prints an integer reply (a long key name shortened: shortLine). */
function proof(argv, reply) {
  return `${shortLine(argv)} → (integer) ${reply}`;
}

const STYLE = `
.cr-h { font-size: .9rem; margin: 12px 0 4px; }
[data-absent] .cr-controls details:not([open]) { display: none; }
.cr-list { margin: 6px 0; padding-left: 0; list-style: none; font-size: .9rem; }
.cr-list li { margin: 4px 0; overflow-wrap: anywhere; }
.cr-list code, .cr-note code { font: 12px/1.4 ui-monospace, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
.cr-bar { display: block; height: 6px; background: var(--chart-bar, var(--accent)); border-radius: 3px; margin-top: 2px; min-width: 2px; max-width: 100%; }
.cr-scroll { overflow-x: auto; max-width: 100%; margin: 6px 0; }
.cr-matrix { border-collapse: collapse; font-size: .8rem; font-variant-numeric: tabular-nums; }
.cr-matrix th, .cr-matrix td { padding: 3px 6px; border: 1px solid var(--line); text-align: right; white-space: nowrap; }
.cr-matrix th { font-weight: 600; text-align: left; }
.cr-matrix tbody th { white-space: normal; min-width: 6em; max-width: 11em; }
.cr-matrix td[data-diag] { font-weight: 600; }
.cr-table { border-collapse: collapse; width: 100%; font-size: .8rem; font-variant-numeric: tabular-nums; table-layout: fixed; }
.cr-table th, .cr-table td { text-align: left; padding: 2px 6px; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
.cr-part { margin: 10px 0 14px; }
.cr-part h3 { font-size: .95rem; margin: 0 0 4px; overflow-wrap: anywhere; }
.cr-facts { display: flex; flex-wrap: wrap; gap: 4px 16px; margin: 4px 0; font-size: .9rem; }
.cr-facts > span { min-width: 0; overflow-wrap: anywhere; }
.cr-strip { position: relative; height: 18px; border-radius: 3px; background: var(--chart-bar, var(--accent)); margin: 6px 0 2px; overflow: hidden; }
.cr-strip span { position: absolute; top: 0; bottom: 0; min-width: 2px; background: var(--chart-highlight, var(--accent)); }
.cr-axis { display: flex; justify-content: space-between; font-size: .75rem; color: var(--muted); font-variant-numeric: tabular-nums; }
.cr-gaps { margin: 4px 0; padding-left: 1.4em; font-size: .85rem; }
.cr-gaps li { margin: 2px 0; overflow-wrap: anywhere; }
.cr-fold { margin: 6px 0; font-size: .85rem; }
.cr-fold summary { cursor: pointer; color: var(--muted); }
`;

/**
 * The crowd and offset cards of `panel` (a www/panel.js Panel: its engine, settings, labels,
 * date, number format and bodies). `controls(card)` gives the card's style and form (or null);
 * `present()` resolves with `{crowds, offsets}` for the cards shown: whether the selected
 * database holds their keys; `render()` redraws both cards (resolves when drawn).
 */
export function crowdViews(panel) {
  const s = panel.s;
  const t = panel.t;
  let seq = 0;
  const run = (argv) => panel.eng.command(argv);
  const tagPattern = () => String(s.tagKey || USER_DEFAULTS.tagKey);
  const offsetPattern = () => String(s.offsetKey || CROWD_DEFAULTS.offsetKey);

  // The offsets card's setting (the crowds card reads the user card's tag-key setting).
  const offsetInput = el('input', { type: 'text', value: s.offsetKey, name: 'offsetKey', 'data-testid': 'offsets-key', spellcheck: 'false' });
  const offsetForm = el('form', {
    class: 'us-form', 'data-testid': 'offsets-form',
    onsubmit: (e) => {
      e.preventDefault();
      // A new pattern may need a new snapshot (online): update() compares with the old one.
      const done = panel.update({ ...s, offsetKey: offsetInput.value.trim() || CROWD_DEFAULTS.offsetKey });
      panel.changed();
      return done;
    },
  }, el('details', { class: 'cr-fold card-settings' }, el('summary', {}, t.ofSettings),
    el('label', {}, el('span', {}, t.ofKey), ' ', offsetInput), ' ',
    el('button', { type: 'submit', 'data-testid': 'offsets-apply' }, t.apply)));

  function controls(card) {
    if (card === 'offsets') return el('div', { class: 'cr-controls' }, el('style', {}, STYLE), offsetForm);
    return card === 'crowds' ? el('style', {}, STYLE) : null;
  }

  /** The keys matching `pattern` with their TYPE (`string`, `set`, …). */
  async function typed(pattern, limit = Infinity) {
    const keys = await keyNames(panel.eng, pattern);
    const out = [];
    for (const key of keys.slice(0, limit)) out.push({ key, type: await run(['TYPE', key]) });
    return { all: keys.length, keys: out };
  }

  async function present() {
    const has = async (pattern, types) => {
      for (const key of await keyNames(panel.eng, pattern)) if (types.includes(await run(['TYPE', key]))) return true;
      return false;
    };
    // Only the cards shown are asked about (a card not shown reads no key).
    const out = {};
    if (panel.bodies.crowds) out.crowds = await has(tagPattern(), ['string', 'set']);
    if (panel.bodies.offsets) out.offsets = await has(offsetPattern(), ['string']);
    return out;
  }

  async function render() {
    const my = ++seq;
    const jobs = [];
    for (const [card, draw] of [['crowds', crowds], ['offsets', offsets]]) {
      const body = panel.bodies[card];
      if (!body || !panel.eng || !panel.loaded || !panel.isPresent(card) || panel.refusedCards().has(card)) continue;
      jobs.push(draw1(body, card, draw, () => my === seq));
    }
    await Promise.all(jobs);
  }

  async function draw1(body, card, draw, current) {
    body.dataset.state = 'loading';
    let parts;
    try {
      parts = await draw();
    } catch (e) {
      if (!current()) return;
      body.replaceChildren(el('div', { class: 'error', role: 'alert', 'data-testid': `${card}-error` }, e.message || String(e)));
      body.dataset.state = 'error';
      return;
    }
    if (!current()) return;
    body.replaceChildren(...parts);
    body.dataset.state = 'ready';
  }

  /** The crowds card: sizes, the overlap matrix and the reach among the day's actives. */
  async function crowds() {
    const fmt = panel.fmt;
    const date = panel.date();
    const { all, keys } = await typed(tagPattern(), CROWD_LIMIT);
    const bitmaps = keys.filter((k) => k.type === 'string');
    const sets = keys.filter((k) => k.type === 'set');
    const other = keys.filter((k) => k.type !== 'string' && k.type !== 'set');
    const out = [];
    // Sizes: BITCOUNT of a bitmap crowd, SCARD of a Set crowd.
    const sizes = [];
    for (const k of [...bitmaps, ...sets]) {
      const argv = [k.type === 'set' ? 'SCARD' : 'BITCOUNT', k.key];
      sizes.push({ ...k, argv, value: await run(argv) });
    }
    const max = Math.max(1, ...sizes.map((x) => x.value));
    out.push(el('h3', { class: 'cr-h' }, t.crSizes),
      el('ul', { class: 'cr-list', 'data-testid': 'crowds-sizes' }, sizes.map((x) => el('li', {
        'data-key': x.key, 'data-type': x.type, 'data-value': x.value,
      }, nameLabel(x.key, {}, 'code'), x.type === 'set' ? ` (${t.crSet})` : '', `${t.usColon}`,
      el('strong', {}, fmt(x.value)), ' · ', el('code', { class: 'muted' }, proof(x.argv, x.value)),
      el('span', { class: 'cr-bar', 'aria-hidden': 'true', style: `width:${Math.max(0.5, (x.value / max) * 100).toFixed(2)}%` })))));
    if (all > keys.length) out.push(el('p', { class: 'note', 'data-testid': 'crowds-limit' }, t.crLimit(fmt(keys.length), fmt(all))));
    if (other.length) out.push(el('p', { class: 'note', 'data-testid': 'crowds-other' }, t.crOther(other.map((k) => `${shortName(k.key)} (${k.type})`).join(', '))));
    // Set crowds (integer user ids) count like bitmaps in BITLENS.TAGOVERLAP / TAGREACH.
    if (sets.length) {
      out.push(el('p', { class: 'note', 'data-testid': 'crowds-sets-note' },
        ...t.crSetsNote(el('code', {}, sets.map((k) => shortName(k.key)).join(', ')))));
    }
    const crowdKeys = [...bitmaps, ...sets];
    if (!crowdKeys.length) return out;
    const names = crowdKeys.map((k) => k.key);
    // The overlap matrix (users in both crowds; the diagonal is the crowd's size).
    const overArgv = ['BITLENS.TAGOVERLAP', ...names];
    const m = await run(overArgv);
    out.push(el('h3', { class: 'cr-h' }, t.crOverlap), matrixTable(names, m, 'crowds-overlap', fmt),
      el('pre', { class: 'cmd', 'data-testid': 'crowds-overlap-cmd' }, cliLine(overArgv)));
    // Reach among the chosen day's actives.
    const activeKey = fill(s.activeKey, { date: ymd(date) });
    out.push(el('h3', { class: 'cr-h' }, t.crReach(isoDate(date))));
    if (!(await run(['EXISTS', activeKey]))) {
      out.push(el('p', { class: 'note', 'data-testid': 'crowds-no-active' }, ...t.crNoActive(el('code', {}, activeKey))));
    } else {
      const reachArgv = ['BITLENS.TAGREACH', activeKey, ...names];
      const reach = await run(reachArgv);
      const dayArgv = ['BITCOUNT', activeKey];
      const actives = await run(dayArgv);
      out.push(el('p', { class: 'cr-note' }, t.crActives(isoDate(date), fmt(actives)), ' ',
        el('code', { class: 'muted', 'data-testid': 'crowds-actives', 'data-value': actives }, proof(dayArgv, actives))),
      el('table', { class: 'cr-table', 'data-testid': 'crowds-reach' },
        el('thead', {}, el('tr', {}, t.crReachHead.map((h) => el('th', { scope: 'col' }, h)))),
        el('tbody', {}, names.map((n, i) => {
          const size = m[i][i];
          const share = size ? reach[i] / size : 0;
          return el('tr', { 'data-key': n, 'data-value': reach[i] },
            el('td', { title: n.length > 64 ? nameTitle(n) : null }, el('code', {}, breakable(shortName(n)))), el('td', {}, fmt(reach[i])),
            el('td', {}, new Intl.NumberFormat(t.locale, { style: 'percent', maximumFractionDigits: 1 }).format(share)));
        }))),
      el('pre', { class: 'cmd', 'data-testid': 'crowds-reach-cmd' }, cliLine(reachArgv)));
    }
    out.push(el('p', { class: 'note' }, t.extensionNote));
    return out;
  }

  /**
   * The overlap matrix `m` of crowds `names` (users in both; the diagonal is the crowd) in a box
   * that scrolls on its own; `titles[i][j]`, when given, is each cell's command.
   */
  function matrixTable(names, m, testid, fmt, titles = null) {
    return el('div', { class: 'cr-scroll', 'data-testid': `${testid}-box` },
      el('table', { class: 'cr-matrix', 'data-testid': testid },
        el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, ''), names.map((n, j) => el('th', { scope: 'col', title: nameTitle(n) }, `${j + 1}`)))),
        el('tbody', {}, m.map((row, i) => el('tr', {},
          el('th', { scope: 'row', title: nameTitle(names[i]) }, `${i + 1}. `, breakable(shortName(names[i]))),
          row.map((v, j) => el('td', {
            'data-i': i, 'data-j': j, 'data-value': v, 'data-diag': i === j ? '' : null,
            title: titles ? `${titles[i][j]} → (integer) ${v}` : `${shortName(names[i])} ∩ ${shortName(names[j])}: ${fmt(v)}`,
            style: heat(v, Math.min(m[i][i], m[j][j]), i === j),
          }, fmt(v))))))));
  }

  /** A matrix cell's shade: the overlap's share of the smaller crowd (none on the diagonal). */
  function heat(v, smaller, diag) {
    if (diag || !smaller || !v) return null;
    return `background: color-mix(in srgb, var(--chart-heat-high, #08306b) ${Math.round((v / smaller) * 45)}%, transparent)`;
  }

  /** The gaps as a list (folded when long), or the "no gap" line. */
  function gapList(shown, fmt) {
    if (!shown.length) return el('p', { class: 'note', 'data-testid': 'offsets-no-gaps' }, t.ofNoGaps);
    const list = el('ol', { class: 'cr-gaps', 'data-testid': 'offsets-gaps' }, shown.map(([a, b]) => el('li', { 'data-first': a, 'data-last': b },
      a === b ? t.ofGapOne(fmt(a)) : t.ofGapRange(fmt(a), fmt(b), fmt(b - a + 1)))));
    return el('details', { class: 'cr-fold', open: shown.length <= GAPS_OPEN }, el('summary', {}, t.ofGapList(fmt(shown.length))), list);
  }

  /** The offsets card: per partition bitmap, processed count, first unprocessed, gaps. */
  async function offsets() {
    const fmt = panel.fmt;
    const { all, keys } = await typed(offsetPattern(), PARTITION_LIMIT);
    const out = [];
    for (const { key, type } of keys) {
      if (type !== 'string') continue;
      const lenArgv = ['STRLEN', key];
      const bytes = await run(lenArgv);
      const size = bytes * 8; // offsets 0 … size − 1
      const procArgv = ['BITLENS.PROCESSED', key];
      const firstArgv = ['BITLENS.FIRSTUNPROCESSED', key];
      const processed = await run(procArgv);
      const first = await run(firstArgv);
      const part = el('section', { class: 'cr-part', 'data-testid': 'offsets-partition', 'data-key': key });
      part.append(el('h3', {}, nameLabel(key, {}, 'code')),
        el('p', { class: 'cr-note muted' }, t.ofWindow(fmt(0), fmt(Math.max(0, size - 1))), ' ', el('code', {}, proof(lenArgv, bytes))));
      const fact = (testid, label, argv, v) => el('span', {}, `${label}${t.usColon}`,
        el('strong', { 'data-testid': testid, 'data-value': v }, fmt(v)), ' ', el('code', { class: 'muted' }, proof(argv, v)));
      part.append(el('div', { class: 'cr-facts' },
        fact('offsets-processed', t.ofProcessed, procArgv, processed),
        fact('offsets-first', t.ofFirst, firstArgv, first)));
      if (size > 0) {
        const gapArgv = ['BITLENS.GAPS', key, 0, size - 1, 'LIMIT', GAP_LIMIT + 1];
        const gaps = await run(gapArgv);
        const shown = gaps.slice(0, GAP_LIMIT);
        const missing = size - processed;
        part.append(el('p', { class: 'cr-note' }, t.ofGaps(gaps.length > GAP_LIMIT ? `${fmt(GAP_LIMIT)}+` : fmt(gaps.length), fmt(missing))),
          el('div', {
            class: 'cr-strip', 'data-testid': 'offsets-strip', role: 'img',
            'aria-label': t.ofStrip(shortName(key), fmt(shown.length)),
          }, shown.map(([a, b]) => el('span', {
            'data-first': a, 'data-last': b, title: `${fmt(a)} … ${fmt(b)}`,
            style: `left:${((a / size) * 100).toFixed(4)}%;width:${(((b - a + 1) / size) * 100).toFixed(4)}%`,
          }))),
          el('div', { class: 'cr-axis', 'aria-hidden': 'true' }, el('span', {}, fmt(0)), el('span', {}, fmt(size - 1))),
          gapList(shown, fmt),
          ...(gaps.length > GAP_LIMIT ? [el('p', { class: 'note', 'data-testid': 'offsets-more' }, t.ofMore(fmt(GAP_LIMIT), fmt(shown[shown.length - 1][1] + 1)))] : []),
          el('pre', { class: 'cmd', 'data-testid': 'offsets-gaps-cmd' }, cliLine(gapArgv)));
      }
      out.push(part);
    }
    if (all > keys.length) out.push(el('p', { class: 'note', 'data-testid': 'offsets-limit' }, t.ofLimit(fmt(keys.length), fmt(all))));
    const other = keys.filter((k) => k.type !== 'string');
    if (other.length) out.push(el('p', { class: 'note', 'data-testid': 'offsets-other' }, t.crOther(other.map((k) => `${k.key} (${k.type})`).join(', '))));
    out.push(el('p', { class: 'note' }, t.ofNote), el('p', { class: 'note' }, t.extensionNote));
    return out;
  }

  return { controls, present, render };
}
