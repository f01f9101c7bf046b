// The panel's memory view (issue 17 §6): over the loaded snapshot, offline (no server), the
// answers of `bitlens inspect`: the biggest keys with their estimated MEMORY USAGE, type and
// encoding; memory per type/encoding and per exact key pattern (pasted into KEYS, a pattern
// matches exactly its row's keys); and what expires within 7 days of the snapshot's time, per
// day. Every figure comes from the engine's memoryReport (crates/views/src/report.rs, run in the worker);
// this file only draws it, numbers in the page's locale. Key names are shown as redis-cli
// quotes them (keyDisplay), so no control byte of an untrusted snapshot reaches the page raw,
// and a long one (a 100 KB key) shortened with the whole name in its title (util.js nameLabel).
// Also `inspect`'s prefix tree as a zoomable treemap (www/treemap.js; separators and depth as
// `--separator`/`--depth`), its TTL histogram (no expiry, already expired, within 1 h / 1 d /
// 7 d, later) and its memory ledger per pattern (`--ledger`, BITFIELD state keys named as
// `--bitfield GLOB=TYPE`); keyLedger draws one key's ledger under its key-browser detail.
//
// Test hooks: [data-testid=memory-section][data-state=loading|ready|error], rows of
// [data-testid=mem-top] carry data-key / data-memory, [data-testid=mem-expiring] carries
// data-keys / data-memory, its per-day rows data-keys / data-memory / data-until; rows of
// [data-testid=mem-ttl] data-name / data-keys / data-memory; rows of [data-testid=mem-ledger]
// data-db / data-pattern and one data-* per figure (keys, members, current, as-set,
// as-bitmap, as-roaring, as-hash); [data-testid=kb-ledger] rows data-form / data-memory /
// data-encoding (the key's ledger). Inputs: mem-separators, mem-depth, mem-bitfield.

import { el, nameLabel } from './util.js';
import { buildTreemap } from './treemap.js';

/** Keys listed in the top table; days of the expiry window. */
export const MEMORY_TOP = 20;
export const MEMORY_DAYS = 7;
/**
 * The allocator select's choices: `auto` (the default: inferred from the snapshot's used-mem,
 * as `bitlens inspect` does) and the allocators memoryReport models (crates/views/src/memory.rs `Allocator`).
 */
const ALLOCATORS = ['auto', 'jemalloc', 'jemalloc16', 'libc'];

/** The engine's `allocator` option for a select value (`auto`: none, so it infers). */
const allocatorOption = (v) => (v === 'auto' ? undefined : v);

/** Intl.NumberFormat instances by locale and options (built once: each costs ~0.1 ms). */
const FORMATS = new Map();
function numberFormat(locale, options) {
  const k = `${locale}|${JSON.stringify(options)}`;
  let f = FORMATS.get(k);
  if (!f) FORMATS.set(k, (f = new Intl.NumberFormat(locale, options)));
  return f;
}

/**
 * `part` of `total` as a percentage (one decimal, the locale's digits), never 0% or 100%
 * unless exact (as `bitlens inspect` prints them).
 */
function percent(part, total, locale) {
  const f = (x) => numberFormat(locale, { style: 'percent', maximumFractionDigits: 1, minimumFractionDigits: 1 }).format(x);
  if (!total || !part) return numberFormat(locale, { style: 'percent' }).format(0);
  if (part === total) return numberFormat(locale, { style: 'percent' }).format(1);
  const p = part / total;
  if (p < 0.001) return `<${f(0.001)}`;
  if (p > 0.999) return `>${f(0.999)}`;
  return f(p);
}

/** Bytes for people in binary units, the number in the locale: `1,234.5 KiB`. */
function human(n, locale) {
  if (n < 1024) return `${numberFormat(locale, {}).format(n)} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return `${numberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(v)} ${units[u]}`;
}

/** A UTC time in the locale: `Dec 8, 2026, 10:00 UTC`. */
function utc(ms, locale) {
  const d = new Date(ms);
  if (!Number.isFinite(d.getTime())) return String(ms);
  return `${new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(d)} UTC`;
}

/** A TTL from the clock in the locale's relative form (`in 3 days`), `—` without one. */
function ttl(ms, locale, none) {
  if (ms === null || ms === undefined) return none;
  const rtf = new Intl.RelativeTimeFormat(locale, { numeric: 'always' });
  const abs = Math.abs(ms);
  for (const [unit, size] of [['day', 86400000], ['hour', 3600000], ['minute', 60000]]) {
    if (abs >= size) return rtf.format(Math.sign(ms) * Math.floor(abs / size), unit);
  }
  return rtf.format(Math.sign(ms) * Math.floor(abs / 1000), 'second');
}

/** A table in its own horizontal scroll box, so that a narrow screen never scrolls the page. */
function table(testid, head, rows) {
  return el('div', { class: 'mem-scroll' }, el('table', { class: 'kb-table', 'data-testid': testid },
    el('thead', {}, el('tr', {}, head.map(([label, num]) => el('th', num ? { class: 'num' } : {}, label)))),
    el('tbody', {}, rows)));
}

const td = (v, num = false) => el('td', num ? { class: 'num' } : {}, v);

/**
 * Builds the (hidden) memory view. Returns {section, setSource(eng)}: the panel hands it the
 * promise-API engine after every load (`null` hides it); the allocator select asks again.
 * @param {object} t labels (i18n.js)
 * @param {(n: number) => string} fmt number formatter of the panel's locale
 * @param {string} locale the panel's locale (dates, percentages)
 * @param {((key: string) => void) | null} openKey opens a key of the selected database in the
 *   key browser (a top key's name is then a button)
 */
export function buildMemoryView(t, fmt, locale = 'en-US', openKey = null) {
  const body = el('div', { class: 'mem-body' });
  // The writer build's allocator: the snapshot does not name it, and size classes differ
  // (Redis' bundled jemalloc, a distribution's system jemalloc, glibc malloc). By default the
  // engine infers it from the snapshot's used-mem; the line under the form says which and why.
  const allocator = el('select', { 'data-testid': 'mem-allocator', onchange: () => setSource(source) },
    ...ALLOCATORS.map((a) => el('option', { value: a }, t.memAllocators[a])));
  // `inspect --separator` (each character one separator), `--depth`, `--bitfield GLOB=TYPE`.
  const separators = el('input', { type: 'text', 'data-testid': 'mem-separators', value: ':', size: 4, onchange: () => setSource(source) });
  const depth = el('input', { type: 'number', 'data-testid': 'mem-depth', value: '2', min: 1, max: 16, step: 1, style: 'width:4em', onchange: () => setSource(source) });
  const bitfield = el('input', { type: 'text', 'data-testid': 'mem-bitfield', placeholder: 'level:*=u4', size: 24, onchange: () => setSource(source) });
  const treemap = buildTreemap(t, fmt, (n) => human(n, locale), (a, b) => percent(a, b, locale));
  const section = el('section', { class: 'kb mem', 'data-testid': 'memory-section', 'aria-labelledby': 'mem-title', hidden: true },
    el('h2', { id: 'mem-title' }, t.memTitle),
    el('form', { class: 'kb-form', onsubmit: (e) => { e.preventDefault(); setSource(source); } },
      el('label', {}, el('span', {}, t.memAllocator), allocator), ' ',
      el('label', {}, el('span', {}, t.memSeparators), separators), ' ',
      el('label', {}, el('span', {}, t.memDepth), depth), ' ',
      el('label', {}, el('span', {}, t.memBitfield), bitfield)),
    body);
  /** The `bitfield` option: the field's comma-separated GLOB=TYPE specs. */
  const bitfieldSpecs = () => bitfield.value.split(',').map((x) => x.trim()).filter(Boolean);
  let seq = 0;
  let source = null;

  function draw(r, selected, files = []) {
    const keyCell = (k) => (openKey && k.db === selected
      ? nameLabel(k.keyDisplay, { type: 'button', class: 'kb-key', 'data-testid': 'mem-open-key', onclick: () => openKey(k.key) }, 'button')
      : nameLabel(k.keyDisplay, {}, 'code'));
    const total = r.memory;
    const parts = [el('p', { class: 'note', 'data-testid': 'mem-allocator-choice', 'data-allocator': r.allocator, 'data-source': r.allocatorSource },
      t.memAllocatorChoice(t.memAllocators[r.allocator] || r.allocator, r.allocatorSource, r.allocatorReason)),
    ...(r.memoryRange ? [el('p', { class: 'note', 'data-testid': 'mem-range', 'data-min': r.memoryRange[0], 'data-max': r.memoryRange[1] },
      t.memRange(human(r.memoryRange[0], locale), human(r.memoryRange[1], locale),
        (r.allocatorCandidates || []).map((a) => t.memAllocators[a] || a).join(' / ')))] : []),
    el('p', { class: 'kb-summary', 'data-testid': 'mem-summary', 'data-keys': r.keys, 'data-memory': r.memory },
      t.memSummary(fmt(r.keys), human(r.memory, locale), fmt(r.byType.length), fmt(r.patternCount)),
      r.unknown ? ` ${t.memUnknown(fmt(r.unknown))}` : '')];
    if (files.length > 1) {
      // Several files as one keyspace: what each holds (bitlens inspect A B's FILES table).
      parts.push(el('h3', {}, t.memFiles(fmt(files.length))), table('mem-files',
        [[t.memFile], [t.memWriter], [t.memKeys, true], [t.memMemory, true], [t.memShare, true], [t.memExpires, true], [t.memSlots], [t.memSlotsUsed, true], [t.memAllocator]],
        files.map((f) => el('tr', {
          'data-name': f.name, 'data-keys': f.keys, 'data-memory': f.memory, 'data-expires': f.expires,
          'data-slot-first': f.slotFirst ?? '', 'data-slot-last': f.slotLast ?? '', 'data-slots-used': f.slotsUsed, 'data-allocator': f.allocator,
        }, el('td', {}, nameLabel(f.name, {}, 'code')), td(f.writer), td(fmt(f.keys), true), td(fmt(f.memory), true),
        td(percent(f.memory, files.reduce((a, x) => a + x.memory, 0), locale), true), td(fmt(f.expires), true),
        td(f.slotFirst === null ? '' : `${f.slotFirst}–${f.slotLast}`), td(fmt(f.slotsUsed), true),
        el('td', { title: f.allocatorReason }, t.memAllocators[f.allocator] || f.allocator)))));
    }
    if (!r.keys) {
      parts.push(el('p', {}, t.memNone));
      body.replaceChildren(...parts);
      return;
    }
    parts.push(el('h3', {}, t.memTop(fmt(r.top.length))), table('mem-top',
      [[t.memRank, true], [t.kbDb, true], [t.kbKey], [t.kbType], [t.kbEncoding], [t.memMemory, true], [t.memShare, true], [t.memLen, true], [t.kbTtl]],
      r.top.map((k, i) => el('tr', { 'data-key': k.key, 'data-db': k.db, 'data-memory': k.memory ?? '' },
        td(fmt(i + 1), true), td(fmt(k.db), true), el('td', { class: 'mem-key' }, keyCell(k)), td(k.type), td(k.encoding),
        td(k.memory === null ? '?' : fmt(k.memory), true), td(k.memory === null ? '' : percent(k.memory, total, locale), true),
        td(fmt(k.len), true), td(ttl(k.ttlMs, locale, t.kbNoTtl))))));
    parts.push(el('h3', {}, t.memByType), table('mem-by-type',
      [[t.kbType], [t.kbEncoding], [t.memKeys, true], [t.memMemory, true], [t.memShare, true]],
      r.byType.map((x) => el('tr', { 'data-type': x.type, 'data-encoding': x.encoding, 'data-keys': x.keys, 'data-memory': x.memory },
        td(x.type), td(x.encoding), td(fmt(x.keys), true), td(fmt(x.memory), true), td(percent(x.memory, total, locale), true)))));
    parts.push(el('h3', {}, t.memByPattern), table('mem-by-pattern',
      [[t.kbDb, true], [t.memPattern], [t.kbType], [t.memKeys, true], [t.memMemory, true], [t.memShare, true]],
      r.byPattern.map((p) => el('tr', { 'data-pattern': p.pattern, 'data-db': p.db, 'data-keys': p.keys, 'data-memory': p.memory },
        td(fmt(p.db), true), el('td', {}, nameLabel(p.patternDisplay, {}, 'code')),
        td(Object.entries(p.types).map(([ty, n]) => (Object.keys(p.types).length > 1 ? `${ty}:${fmt(n)}` : ty)).join(', ')),
        td(fmt(p.keys), true), td(fmt(p.memory), true), td(percent(p.memory, total, locale), true)))));
    if (r.byPattern.length < r.patternCount) parts.push(el('p', { class: 'kb-summary' }, t.memMorePatterns(fmt(r.byPattern.length), fmt(r.patternCount))));
    // The prefix treemap: zoomable, over every key's memory.
    treemap.setData(r.prefixes, r.keys, r.memory);
    parts.push(el('h3', {}, t.memTreemap), treemap.element);
    // The TTL histogram, `inspect`'s "expiry (at the clock)" section, with a bar per class.
    const most = Math.max(1, ...r.ttl.map((x) => x.memory));
    parts.push(el('h3', {}, t.memTtl), table('mem-ttl',
      [[t.memTtlClass], [t.memKeys, true], [t.memMemory, true], [t.memShare, true], ['']],
      r.ttl.map((x) => el('tr', { 'data-name': x.name, 'data-keys': x.keys, 'data-memory': x.memory },
        td(t.memTtlNames[x.name] || x.name), td(fmt(x.keys), true), td(fmt(x.memory), true), td(percent(x.memory, total, locale), true),
        el('td', { style: 'min-width:8em' }, el('span', { 'aria-hidden': 'true', style: `display:inline-block;height:0.8em;background:var(--accent,#c2281f);width:${(100 * x.memory) / most}%` }))))));
    // The memory ledger per pattern (`inspect --ledger`).
    const cols = ['members', 'current', 'asSet', 'asBitmap', 'asRoaring', 'asHash'];
    const dash = (c) => c.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`);
    parts.push(el('h3', {}, t.memLedger));
    if (!r.ledger || !r.ledger.length) parts.push(el('p', { class: 'kb-summary', 'data-testid': 'mem-ledger-none' }, t.memLedgerNone));
    else {
      parts.push(table('mem-ledger', [[t.kbDb, true], [t.memPattern], [t.memKeys, true], ...cols.map((c) => [t.memLedgerCols[c], true])],
        r.ledger.map((l) => el('tr', { 'data-db': l.db, 'data-pattern': l.pattern, 'data-keys': l.keys, ...Object.fromEntries(cols.map((c) => [`data-${dash(c)}`, l[c]])) },
          td(fmt(l.db), true), el('td', {}, nameLabel(l.patternDisplay, {}, 'code')), td(fmt(l.keys), true),
          ...cols.map((c) => td(c === 'members' ? fmt(l[c]) : human(l[c], locale), true))))),
      el('p', { class: 'note' }, t.memLedgerNote));
    }
    const e = r.expiring;
    parts.push(el('h3', {}, t.memExpiring(fmt(e.days))),
      el('p', { class: 'kb-summary', 'data-testid': 'mem-expiring', 'data-keys': e.keys, 'data-memory': e.memory, 'data-expired': e.expiredKeys },
        t.memExpiringSummary(fmt(e.keys), human(e.memory, locale), fmt(e.days), utc(r.clockMs, locale)),
        e.expiredKeys ? ` ${t.memExpired(fmt(e.expiredKeys), human(e.expiredMemory, locale))}` : ''),
      table('mem-expiring-days', [[t.memDay, true], [t.memUntil], [t.memKeys, true], [t.memMemory, true]],
        e.perDay.map((d, i) => el('tr', { 'data-keys': d.keys, 'data-memory': d.memory, 'data-until': d.untilMs },
          td(fmt(i + 1), true), td(utc(d.untilMs, locale)), td(fmt(d.keys), true), td(fmt(d.memory), true)))));
    body.replaceChildren(...parts);
  }

  async function setSource(eng) {
    const my = ++seq;
    source = eng;
    if (!eng || typeof eng.memoryReport !== 'function') {
      section.hidden = true;
      body.replaceChildren();
      delete section.dataset.state;
      return;
    }
    section.hidden = false;
    section.dataset.state = 'loading';
    try {
      const r = await eng.memoryReport({
        top: MEMORY_TOP, days: MEMORY_DAYS, allocator: allocatorOption(allocator.value), separators: separators.value || ':',
        depth: Math.max(1, Math.floor(Number(depth.value) || 2)), ledger: true, bitfield: bitfieldSpecs(),
      });
      const { selected } = await eng.call('info');
      const files = typeof eng.files === 'function' ? await eng.files() : [];
      if (my !== seq) return;
      draw(r, selected, files);
      section.dataset.state = 'ready';
    } catch (e) {
      if (my !== seq) return;
      body.replaceChildren(el('div', { class: 'error', role: 'alert', 'data-testid': 'mem-error' }, e.message || String(e)));
      section.dataset.state = 'error';
    }
  }

  /**
   * One key's memory ledger as a block for the key browser's detail (the view's allocator and
   * BITFIELD specs), or null when no representation applies or the engine has no keyLedger.
   */
  async function keyLedger(eng, key) {
    if (!eng || typeof eng.keyLedger !== 'function') return null;
    const l = await eng.keyLedger(key, { allocator: allocatorOption(allocator.value), bitfield: bitfieldSpecs() });
    if (!l) return null;
    const forms = [['current', l.current, null], ['asSet', l.asSet && l.asSet.memory, l.asSet && l.asSet.encoding],
      ['asBitmap', l.asBitmap, null], ['asRoaring', l.asRoaring, null], ['asHash', l.asHash && l.asHash.memory, l.asHash && l.asHash.encoding]];
    return el('div', { class: 'kb-ledger' },
      el('h4', {}, `${t.memLedgerKey} · ${t.memLedgerCols.members}: ${fmt(l.members)}`),
      // In its own scroll box: a narrow detail never scrolls the page sideways.
      el('div', { class: 'mem-scroll' }, el('table', { class: 'kb-table', 'data-testid': 'kb-ledger', 'data-members': l.members },
        el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, t.memLedgerForm), el('th', { scope: 'col' }, t.kbEncoding), el('th', { scope: 'col', class: 'num' }, t.memMemory))),
        el('tbody', {}, forms.map(([f, m, enc]) => el('tr', { 'data-form': f, 'data-memory': m ?? '', 'data-encoding': enc ?? '' },
          td(t.memLedgerCols[f]), td(enc ?? ''), td(m === null || m === undefined ? t.memLedgerNa : fmt(m), true)))))));
  }

  return { section, setSource, keyLedger };
}
