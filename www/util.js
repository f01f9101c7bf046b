// Small helpers shared by the panel: key templates, dates, redis-cli quoting, DOM building.

/** Replaces `{name}` placeholders in a key template: fill('uv:{date}', {date: '20240520'}). */
export function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (m, name) => (name in values ? String(values[name]) : m));
}

/**
 * The names of the live keys matching the Redis glob `pattern` (KEYS through the engine
 * client `eng`), sorted (by UTF-16 code units: bytewise for every name without characters past
 * U+FFFF). For a count alone, `keyCount` sends no name.
 */
export async function keyNames(eng, pattern) {
  return (await eng.command(['KEYS', pattern])).sort();
}

/** How many live keys match the Redis glob `pattern` (the engine's keyList total: no names sent). */
export async function keyCount(eng, pattern) {
  return (await eng.keyList(pattern, 0)).total;
}

/** Escapes Redis glob metacharacters (`* ? [ ] \`) so a literal string matches only itself. */
export function globEscape(s) {
  return s.replace(/[*?[\]\\]/g, (c) => '\\' + c);
}

/**
 * The Redis glob that matches every key a template can produce: placeholders become `*`,
 * the rest is literal. globFor('stats:active:{date}') === 'stats:active:*'.
 */
export function globFor(template) {
  return template
    .split(/(\{\w+\})/)
    .map((part, i) => (i % 2 ? '*' : globEscape(part)))
    .join('');
}

/**
 * Extracts the value of placeholder `name` from `key` if `key` matches `template`;
 * null otherwise. capture('shop:geo:{type}', 'shop:geo:food', 'type') === 'food'.
 */
export function capture(template, key, name) {
  const names = [];
  const re = template
    .split(/(\{\w+\})/)
    .map((part, i) => {
      if (i % 2 === 0) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const n = part.slice(1, -1);
      names.push(n);
      return n === 'date' ? '(\\d{8})' : '(.+?)';
    })
    .join('');
  const m = new RegExp('^' + re + '$').exec(key);
  if (!m) return null;
  const i = names.indexOf(name);
  return i < 0 ? null : m[i + 1];
}

/** Parses `20240520` or `2024-05-20` into a UTC Date at midnight; null when invalid. */
export function parseDate(s) {
  const m = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(String(s || '').trim());
  if (!m) return null;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3] ? d : null;
}

/** `YYYYMMDD` of a UTC date (the form used in key names). */
export function ymd(d) {
  return d.toISOString().slice(0, 10).replace(/-/g, '');
}

/** `YYYY-MM-DD` of a UTC date (the form of `<input type=date>`). */
export function isoDate(d) {
  return d.toISOString().slice(0, 10);
}

/** The `n` days ending with `date` (inclusive), oldest first, as YYYYMMDD strings. */
export function lastDays(date, n) {
  const out = [];
  for (let i = n - 1; i >= 0; i--) {
    out.push(ymd(new Date(date.getTime() - i * 86400000)));
  }
  return out;
}

/**
 * One argv as a line to paste into redis-cli: arguments with spaces, quotes, backslashes or
 * non-printable characters are double-quoted with redis-cli's escapes.
 */
export function cliLine(argv) {
  return argv.map(cliArg).join(' ');
}

function cliArg(a) {
  a = String(a);
  if (a !== '' && /^[\x21-\x7e]+$/.test(a) && !/["'\\]/.test(a)) return a;
  let out = '"';
  for (const ch of a) {
    const c = ch.codePointAt(0);
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + '"';
}

/**
 * Builds a DOM element: el('div', {class: 'x', 'data-testid': 'y'}, 'text', child...).
 * Text is always set as text (never parsed as HTML), so key and member names are safe.
 */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else if (k === 'value') e.value = v;
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/** A human byte count: 1.5 MB. */
export function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * A Unix-millisecond time as UTC text: `2100-01-01 00:00 UTC` (`seconds`: `… 00:00:00 UTC`).
 */
export function formatUtc(ms, seconds = false) {
  const d = new Date(ms);
  if (!Number.isFinite(d.getTime())) return String(ms);
  return `${d.toISOString().slice(0, seconds ? 19 : 16).replace('T', ' ')} UTC`;
}

/** Units of a relative time, largest first (a year is 365.2425 days, the Gregorian mean). */
const REL_UNITS = [
  ['year', 365.2425 * 86400000], ['day', 86400000], ['hour', 3600000], ['minute', 60000], ['second', 1000],
];

/**
 * `ms` (positive: ahead, negative: past) as the locale says it in its largest whole unit:
 * `in 73 years`, `5 days ago`, `73年后` (Intl.RelativeTimeFormat).
 */
export function formatRelative(ms, locale) {
  const rtf = new Intl.RelativeTimeFormat(locale, { numeric: 'always' });
  const abs = Math.abs(ms);
  for (const [unit, size] of REL_UNITS) {
    if (abs >= size || unit === 'second') return rtf.format(Math.sign(ms) * Math.floor(abs / size), unit);
  }
  return rtf.format(0, 'second');
}

/**
 * `fraction` (0.5) as the locale writes a percentage with `digits` decimals: `50.0%`. Never
 * 0 or 100 % unless exact: a share that would round there reads `<0.1%` / `>99.9%` (as
 * `bitlens inspect`'s percentages, crates/cli/src/inspect/render.rs).
 */
export function formatPercent(fraction, locale, digits = 1) {
  const f = new Intl.NumberFormat(locale, { style: 'percent', minimumFractionDigits: digits, maximumFractionDigits: digits });
  const step = 10 ** -(digits + 2);
  if (fraction > 0 && fraction < step / 2) return `<${f.format(step)}`;
  if (fraction < 1 && fraction >= 1 - step / 2) return `>${f.format(1 - step)}`;
  return f.format(fraction);
}

/** The chart colours: style field → the panel.css custom property that holds it. */
const CHART_COLORS = {
  background: '--chart-bg', text: '--chart-fg', grid: '--chart-grid', dau: '--chart-1', wau: '--chart-2',
  mau: '--chart-3', bar: '--chart-bar', heatLow: '--chart-heat-low', heatHigh: '--chart-heat-high',
  highlight: '--chart-highlight', point: '--chart-point', circle: '--chart-circle',
};

/**
 * The `style` argument of the wasm chart functions (crates/wasm-charts) for a chart inside
 * `node`: the theme's colours (the computed --chart-* custom properties of panel.css), the axis
 * titles and legend names of the label table `t` (t.chartWords), its locale, and, given a CSS
 * size, the backing size in device pixels at devicePixelRatio with that ratio as the scale.
 */
export function chartStyle(node, t, cssWidth, cssHeight) {
  const css = getComputedStyle(node);
  const colors = {};
  for (const [name, prop] of Object.entries(CHART_COLORS)) {
    const v = css.getPropertyValue(prop).trim();
    if (v) colors[name] = v;
  }
  const style = { colors, words: t.chartWords, locale: t.locale, scale: 1 };
  if (cssWidth > 0 && cssHeight > 0) {
    const dpr = Math.min(Math.max(window.devicePixelRatio || 1, 0.25), 8);
    style.scale = dpr;
    style.width = Math.max(1, Math.round(cssWidth * dpr));
    style.height = Math.max(1, Math.round(cssHeight * dpr));
  }
  return style;
}

/**
 * Paints a chart object of the wasm module (`{svg, width, height}`, crates/wasm-charts) on
 * `canvas`, backed at the SVG's size (CSS size × devicePixelRatio, as chartStyle asks), once
 * the SVG has decoded; skipped (false) when `wanted()` says a newer paint has started.
 */
export async function paintSvg(canvas, chart, wanted = () => true) {
  const url = URL.createObjectURL(new Blob([chart.svg], { type: 'image/svg+xml' }));
  // On the page's performance timeline (bench/browser.mjs sums the chart painting).
  const start = performance.now();
  try {
    const img = new Image(chart.width, chart.height);
    img.src = url;
    await img.decode();
    if (!wanted()) return false;
    canvas.width = chart.width;
    canvas.height = chart.height;
    canvas.getContext('2d').drawImage(img, 0, 0, chart.width, chart.height);
    return true;
  } finally {
    URL.revokeObjectURL(url);
    performance.measure('bitlens-paint', { start, end: performance.now() });
  }
}

/**
 * Calls `fn()` (debounced by `ms`) when `node`'s width changes, and when the colour scheme the
 * page prefers changes (the charts' colours follow it). Returns a function that stops both.
 */
export function onResize(node, fn, ms = 150) {
  let timer = null;
  let width = null;
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(fn, ms);
  };
  const ro = new ResizeObserver((entries) => {
    const w = Math.round(entries[entries.length - 1].contentRect.width);
    if (width !== null && w !== width) later();
    width = w;
  });
  ro.observe(node);
  const mq = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;
  if (mq) mq.addEventListener('change', later);
  return () => {
    clearTimeout(timer);
    ro.disconnect();
    if (mq) mq.removeEventListener('change', later);
  };
}

/**
 * A key or member name as the panel shows it: redis-cli's form, the rules of the core's
 * `bitlens::escape::display` (src/escape.rs), so that no byte of an untrusted snapshot reaches
 * the page raw. Bare when it is printable ASCII without space, quote or backslash; else in
 * double quotes with `\\`, `\"`, `\n`, `\r`, `\t`, `\a`, `\b` and every byte outside
 * printable ASCII as `\xhh` (`"esc\x1b[31mred"`, `"bin:\x00\xff"`). `name`: a string (its
 * UTF-8 bytes) or a Uint8Array (the name's bytes).
 */
export function displayName(name) {
  const bytes = typeof name === 'string' ? new TextEncoder().encode(name) : name;
  const plain = bytes.length > 0 && bytes.every((b) => b >= 0x21 && b <= 0x7e && b !== 0x22 && b !== 0x27 && b !== 0x5c);
  if (plain) return new TextDecoder().decode(bytes);
  const named = { 0x5c: '\\\\', 0x22: '\\"', 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t', 0x07: '\\a', 0x08: '\\b' };
  let out = '"';
  for (const b of bytes) {
    if (named[b]) out += named[b];
    else if (b >= 0x20 && b <= 0x7e) out += String.fromCharCode(b);
    else out += `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return `${out}"`;
}

/** Characters of a name shown in a table, list, heading or tooltip before it is shortened. */
export const NAME_MAX = 64;
/** Characters of a name a `title` attribute (the browser's own tooltip) holds at most. */
export const TITLE_MAX = 1024;

/** `s` cut to about `n` UTF-16 units from its start (`end`: from its end), never inside a surrogate pair. */
function cut(s, n, end = false) {
  if (end) {
    let b = s.slice(s.length - n);
    if (/^[\uDC00-\uDFFF]/.test(b)) b = b.slice(1);
    return b;
  }
  let a = s.slice(0, n);
  if (/[\uD800-\uDBFF]$/.test(a)) a = a.slice(0, -1);
  return a;
}

/**
 * A name as a table cell, list item, heading or tooltip shows it: whole up to `max` characters,
 * else its start and end around an ellipsis (`user:aaaaaaaa…aaaa:1`), so that a 100 KB key name
 * never makes the page tall or a table wide. (`nameTitle` gives the whole name up to
 * TITLE_MAX; `wholeName` shows all of it on demand.)
 */
export function shortName(text, max = NAME_MAX) {
  const s = String(text);
  if (s.length <= max) return s;
  const tail = Math.max(8, Math.floor(max / 4));
  return `${cut(s, max - tail - 1)}…${cut(s, tail, true)}`;
}

/** Whether `shortName` shortens `text`. */
export function isLongName(text, max = NAME_MAX) {
  return String(text).length > max;
}

/** A name for a `title` attribute: whole up to TITLE_MAX characters, else cut with its length. */
export function nameTitle(text) {
  const s = String(text);
  return s.length <= TITLE_MAX ? s : `${cut(s, TITLE_MAX)}… (${s.length.toLocaleString('en-US')} characters)`;
}

/**
 * An element (`tag`, `attrs`) showing name `text` shortened (shortName), with the name in its
 * `title` (nameTitle) and its length in `data-length` when it was shortened.
 */
export function nameLabel(text, attrs = {}, tag = 'span') {
  const s = String(text);
  const long = isLongName(s);
  return el(tag, { ...attrs, title: long ? nameTitle(s) : attrs.title, 'data-length': long ? s.length : null }, shortName(s));
}

/**
 * One argv as cliLine writes it, each argument shortened (shortName) for a line of text that is
 * shown, not pasted (the `<pre>` command blocks keep the whole line).
 */
export function shortLine(argv) {
  return argv.map((a) => shortName(cliArg(a))).join(' ');
}

/**
 * A long name's whole text on demand, for a heading that shows it shortened: a "whole name"
 * toggle opening a scrolling box (bounded height, wraps anywhere) with every character, and a
 * copy button (the Clipboard API). `t` the panel's labels. Null for a name that is not long.
 */
export function wholeName(text, t) {
  const s = String(text);
  if (!isLongName(s)) return null;
  const box = el('div', { class: 'name-whole', 'data-testid': 'name-whole', tabindex: '0', hidden: true }, s);
  const toggle = el('button', {
    type: 'button', class: 'name-more', 'data-testid': 'name-more', 'aria-expanded': 'false',
    onclick: () => {
      box.hidden = !box.hidden;
      toggle.setAttribute('aria-expanded', String(!box.hidden));
    },
  }, t.nameWhole(s.length.toLocaleString(t.locale)));
  const copy = el('button', {
    type: 'button', class: 'name-more', 'data-testid': 'name-copy',
    onclick: async () => {
      try {
        await navigator.clipboard.writeText(s);
        copy.textContent = t.nameCopied;
      } catch {
        // No clipboard here (an insecure page): open the box to select from instead.
        box.hidden = false;
        toggle.setAttribute('aria-expanded', 'true');
      }
    },
  }, t.nameCopy);
  return el('div', { class: 'name-tools' }, toggle, ' ', copy, box);
}
