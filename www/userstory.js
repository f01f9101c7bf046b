// The panel's user views (issue 19 §1–2, issue 20 §3): "one user's story" and the sign-ins card.
//
// One user's story (card `user`): the user types a user id. A number is the bit offset itself;
// any other id is mapped as the state-statistics guide's getIndexFromUserId does, Java's
// `Math.abs(id.hashCode())` (the core's analytics::userid, through the wasm export
// javaUserOffset). For that offset the view shows
//   - a day strip: GETBIT of each daily bitmap (`activeKey`, e.g. stats:active:{date}) in the
//     snapshot, and the current run of active days ending at the panel's date;
//   - the user's sign-in month (`signKey`, default sign:{uid}:{month}, bit = day − 1, keyed by
//     the id as typed): GETBIT per day, BITLENS.STREAK … PREV <previous month's key> (the streak
//     crosses the month boundary), BITLENS.LONGESTSTREAK and BITLENS.DAYSSIGNED;
//   - every crowd tag (`tagKey`, default tag:*) it is in or not (GETBIT tag offset), and the
//     day's BITFIELD level (`BITFIELD_RO stats:level:{date} GET u4 #offset`);
//   - "seen before?": BF.EXISTS (Bloom) / CF.EXISTS (Cuckoo) of the id against every key
//     matching `seenKey` (default bf:*), other types listed as skipped.
// The sign-ins card (card `signins`): for the panel's date, BITLENS.SIGNINHIST over the month's
// keys (users signed in that day, their in-month streaks), BITLENS.SIGNINDAYS for the users
// signed in on every day of the month so far (a per-day strip, one pass over the keys), the current streaks carried across the month boundary
// (BITLENS.STREAK … PREV per key, with the longest ones) and BITLENS.DAYSHIST (days signed).
// Every number on screen is the reply of the command printed next to it, asked of the panel's
// engine (engine-client.js), so it can be pasted into redis-cli (BITLENS.* into bitlens query).

import { javaUserOffset } from '../pkg/bitlens_charts.js';
import { ENGAGEMENT_DEFAULTS } from './engagement.js';
import {
  cliLine, el, fill, globEscape, globFor, isoDate, keyCount, keyNames, nameLabel, parseDate, capture, shortLine, ymd,
} from './util.js';
import { attachTooltip, childPoints } from './tooltip.js';

/** The cards of this module, in `cards=` names. */
export const USER_CARDS = ['user', 'signins'];

/** Settings of the user views (merged into the panel's DEFAULTS). */
export const USER_DEFAULTS = {
  user: '', // the user id looked up (a number = the bit offset; else Java's Math.abs(hashCode))
  signKey: 'sign:{uid}:{month}', // per-user monthly sign-in bitmaps, bit = day − 1
  seenKey: 'bf:*', // Bloom/Cuckoo filters asked "seen before?" (a Redis glob)
  tagKey: 'tag:*', // crowd tags, one bitmap per tag (a Redis glob)
};

/** URL parameter / attribute name of each setting. */
export const USER_PARAMS = { user: 'user', signKey: 'sign-key', seenKey: 'seen-key', tagKey: 'tag-key' };

/** Largest bit offset Redis accepts (GETBIT/SETBIT: strings are at most 512 MiB). */
const MAX_BIT = 2n ** 32n - 1n;

/** Most sign-in keys whose streak is carried across months one by one (BITLENS.STREAK each). */
export const CARRY_LIMIT = 20000;
/** Rows a sign-ins histogram table shows open; a longer one is folded (its summary counts them). */
const FOLD_ROWS = 12;
/** How many of the longest current streaks the sign-ins card lists. */
const LONGEST_SHOWN = 10;

/** Largest number of crowd tags asked (GETBIT each). */
const TAG_LIMIT = 100;

/** Largest number of filters asked "seen before?" (the rest are counted, not asked). */
export const SEEN_LIMIT = 50;

/** The Redis globs of the keys the user views read (for the API snapshot). */
export function userPatterns(s, cards) {
  const p = [];
  if (cards.includes('user')) p.push(globFor(s.activeKey));
  if (cards.includes('user') || cards.includes('signins')) p.push(globFor(s.signKey));
  if (cards.includes('user')) {
    p.push(String(s.seenKey || ''), String(s.tagKey || ''));
    p.push(globFor({ ...ENGAGEMENT_DEFAULTS, ...s }.levelKey));
  }
  return p.filter(Boolean);
}

/**
 * The bit offset of user `id`: `{offset, rule}` with rule 'number' (a decimal integer is the
 * offset itself) or 'java' (Math.abs(id.hashCode()), null when the hash is Integer.MIN_VALUE).
 */
export function userOffset(id) {
  const s = String(id).trim();
  if (/^\d+$/.test(s)) return { offset: s.replace(/^0+(?=\d)/, ''), rule: 'number' };
  const o = javaUserOffset(s);
  return { offset: o === undefined ? null : String(o), rule: 'java' };
}

/** `YYYYMM` of a UTC date, the month `n` months before, and its number of days. */
function month(date, back = 0) {
  const d = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - back, 1));
  const days = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  return { ym: ymd(d).slice(0, 6), days };
}

/** The glob of a template with some placeholders filled (escaped) and the others as `*`. */
function globWith(template, values) {
  return template
    .split(/(\{\w+\})/)
    .map((part, i) => {
      if (i % 2 === 0) return globEscape(part);
      const n = part.slice(1, -1);
      return n in values ? globEscape(String(values[n])) : '*';
    })
    .join('');
}

/** `cmd → reply` as redis-cli prints an integer reply on a terminal. */
function proof(argv, reply) {
  return `${shortLine(argv)} → ${typeof reply === 'number' ? `(integer) ${reply}` : JSON.stringify(reply)}`;
}

/** Styles of these views (kept with them: the card is self-contained in page or shadow root). */
const STYLE = `
[data-absent] [data-testid=user-form] { display: none; }
.us-form { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; margin-bottom: 10px; }
.us-form label { display: inline-flex; flex-direction: column; gap: 2px; font-size: .85rem; color: var(--muted); flex: 1 1 12em; min-width: 0; }
.us-form input { min-width: 0; width: 100%; }
.us-h { font-size: .9rem; margin: 12px 0 4px; }
.us-line { margin: 6px 0; font-size: .9rem; overflow-wrap: anywhere; }
.us-strip { display: flex; flex-wrap: wrap; gap: 3px; margin: 6px 0; padding: 0; list-style: none; }
.us-strip li { width: 22px; height: 22px; border-radius: 4px; border: 1px solid var(--line); font-size: 10px; line-height: 20px; text-align: center; font-variant-numeric: tabular-nums; }
.us-strip li[data-value="1"] { background: var(--accent); color: #fff; border-color: var(--accent); }
.us-strip li[data-chosen] { outline: 2px solid var(--fg); outline-offset: 1px; }
.us-cal { display: grid; grid-template-columns: repeat(7, minmax(0, 1fr)); gap: 3px; max-width: 280px; margin: 6px 0; padding: 0; list-style: none; }
.us-cal li { height: 26px; border-radius: 4px; border: 1px solid var(--line); font-size: 11px; line-height: 24px; text-align: center; }
.us-cal li[data-value="1"] { background: var(--accent); color: #fff; border-color: var(--accent); }
.us-cal li[data-chosen] { outline: 2px solid var(--fg); outline-offset: 1px; }
.us-seen { margin: 6px 0; padding-left: 1.2em; font-size: .85rem; }
.us-seen li { margin: 3px 0; overflow-wrap: anywhere; }
.us-seen code, .us-line code { font: 12px/1.4 ui-monospace, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
.us-table { border-collapse: collapse; width: 100%; font-size: .8rem; font-variant-numeric: tabular-nums; table-layout: fixed; }
.us-table th, .us-table td { text-align: left; padding: 2px 6px; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
.us-fold { margin: 6px 0; font-size: .85rem; }
.us-fold summary { cursor: pointer; color: var(--muted); }
.us-bars { display: flex; align-items: flex-end; gap: 2px; height: 60px; margin: 6px 0; }
.us-bars span { flex: 1 1 0; min-width: 0; background: var(--accent); border-radius: 2px 2px 0 0; }
.us-bars span[data-chosen] { background: var(--fg); }
`;

/** A folded table of rows `[label, command, reply]`: the numbers and the commands behind them. */
function numbersTable(t, rows, testid) {
  return el('details', { class: 'us-fold', 'data-testid': testid },
    el('summary', {}, t.usNumbers),
    el('table', { class: 'us-table' },
      el('thead', {}, el('tr', {}, t.usNumbersHead.map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, rows.map(([label, argv, reply]) => el('tr', {},
        el('td', {}, label), el('td', {}, el('code', {}, shortLine(argv))), el('td', {}, String(reply)))))));
}

/**
 * The user views of `panel` (a www/panel.js Panel: its engine, settings, labels, date and
 * number format); `initWasm()` starts the page's chart module (for javaUserOffset). `controls(card)` gives the card's form (or null); `render()` redraws every
 * user card the panel shows (resolves when drawn).
 */
export function userViews(panel, initWasm) {
  const s = panel.s;
  const t = panel.t;
  let seq = 0;
  const input = el('input', {
    type: 'search', value: s.user, name: 'user', 'data-testid': 'user-id', 'aria-label': t.usUserId,
    placeholder: t.usUserHint, spellcheck: 'false', autocomplete: 'off',
  });
  const signInput = el('input', { type: 'text', value: s.signKey, name: 'signKey', 'data-testid': 'user-sign-key', spellcheck: 'false' });
  const seenInput = el('input', { type: 'text', value: s.seenKey, name: 'seenKey', 'data-testid': 'user-seen-key', spellcheck: 'false' });
  const tagInput = el('input', { type: 'text', value: s.tagKey, name: 'tagKey', 'data-testid': 'user-tag-key', spellcheck: 'false' });
  const form = el('form', {
    class: 'us-form', 'data-testid': 'user-form',
    onsubmit: (e) => {
      e.preventDefault();
      s.user = input.value.trim();
      s.signKey = signInput.value.trim() || USER_DEFAULTS.signKey;
      s.seenKey = seenInput.value.trim() || USER_DEFAULTS.seenKey;
      s.tagKey = tagInput.value.trim() || USER_DEFAULTS.tagKey;
      panel.changed();
      render();
    },
  },
  el('label', {}, el('span', {}, t.usUserId), input),
  el('button', { type: 'submit', 'data-testid': 'user-lookup' }, t.usLookup),
  el('details', { class: 'us-fold', style: 'flex: 1 1 100%' }, el('summary', {}, t.usSettings),
    el('div', { class: 'us-form' },
      el('label', {}, el('span', {}, t.usSignKey), signInput),
      el('label', {}, el('span', {}, t.usSeenKey), seenInput),
      el('label', {}, el('span', {}, t.usTagKey), tagInput))));

  function controls(card) {
    if (card === 'signins') return el('style', {}, STYLE);
    if (card !== 'user') return null;
    return el('div', {}, el('style', {}, STYLE), form);
  }

  async function render() {
    const my = ++seq;
    const jobs = [];
    const here = (c) => panel.bodies[c] && panel.isPresent(c);
    if (here('user')) jobs.push(renderUser(panel.bodies.user, () => my === seq));
    if (here('signins')) jobs.push(renderSignins(panel.bodies.signins, () => my === seq));
    await Promise.all(jobs);
  }

  /** Runs `argv` on the panel's engine; resolves with the reply. */
  const run = (argv) => panel.eng.command(argv);

  async function renderUser(body, current) {
    const eng = panel.eng;
    if (!eng || !panel.loaded) return;
    const id = String(s.user || '').trim();
    if (!id) {
      body.replaceChildren(el('p', { class: 'note', 'data-testid': 'user-empty' }, t.usEnterId));
      body.dataset.state = 'empty';
      return;
    }
    body.dataset.state = 'loading';
    let parts;
    try {
      await initWasm();
      parts = await userStory(id);
    } catch (e) {
      if (!current()) return;
      body.replaceChildren(el('div', { class: 'error', role: 'alert', 'data-testid': 'user-error' }, e.message || String(e)));
      body.dataset.state = 'error';
      return;
    }
    if (!current()) return;
    body.replaceChildren(...parts);
    body.dataset.state = 'ready';
    body.dataset.user = id;
  }

  /** The elements of one user's story. */
  async function userStory(id) {
    const date = panel.date();
    const fmt = panel.fmt;
    const out = [];
    const { offset, rule } = userOffset(id);
    const offsetLine = el('p', { class: 'us-line', 'data-testid': 'user-offset', 'data-offset': offset ?? '', 'data-rule': rule });
    if (rule === 'number') offsetLine.append(...t.usOffsetNumber(el('code', {}, offset)));
    else if (offset === null) offsetLine.append(...t.usOffsetNone(el('code', {}, `Math.abs(${JSON.stringify(id)}.hashCode())`)));
    else offsetLine.append(...t.usOffsetJava(el('code', {}, `Math.abs(${JSON.stringify(id)}.hashCode())`), el('code', {}, offset)));
    out.push(offsetLine);
    // Redis' bitmaps end at bit 2^32 − 1 (512 MiB strings): a larger offset was never SETBIT.
    const inRange = offset !== null && BigInt(offset) <= MAX_BIT;
    if (offset !== null && !inRange) out.push(el('p', { class: 'note', 'data-testid': 'user-offset-range' }, t.usOffsetRange(String(MAX_BIT))));

    // Active days: GETBIT of every daily bitmap in the snapshot.
    if (inRange) {
      const tpl = s.activeKey;
      const keys = await keyNames(panel.eng, globFor(tpl));
      const days = keys.map((k) => ({ key: k, date: capture(tpl, k, 'date') })).filter((d) => d.date && parseDate(d.date));
      days.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
      out.push(el('h3', { class: 'us-h' }, t.usActiveDays));
      if (!days.length) {
        out.push(el('p', { class: 'note', 'data-testid': 'user-no-days' }, ...t.usNoDays(el('code', {}, globFor(tpl)))));
      } else {
        const rows = [];
        for (const d of days) d.value = await run(['GETBIT', d.key, offset]);
        const chosen = ymd(date);
        const strip = el('ul', { class: 'us-strip', 'data-testid': 'user-strip', 'aria-label': t.usActiveDays });
        for (const d of days) {
          const argv = ['GETBIT', d.key, offset];
          rows.push([isoDate(parseDate(d.date)), argv, d.value]);
          strip.append(el('li', {
            'data-date': d.date, 'data-key': d.key, 'data-value': d.value, 'data-chosen': d.date === chosen,
            title: proof(argv, d.value), 'aria-label': `${isoDate(parseDate(d.date))}: ${d.value ? t.usActive : t.usInactive}`,
          }, String(Number(d.date.slice(6)))));
        }
        // The run of active days ending at the panel's date, over consecutive calendar days.
        const byDate = new Map(days.map((d) => [d.date, d.value]));
        let streak = 0;
        let day = date;
        while (byDate.get(ymd(day)) === 1) {
          streak += 1;
          day = new Date(day.getTime() - 86400000);
        }
        const open = streak > 0 && !byDate.has(ymd(day));
        const total = days.reduce((a, d) => a + d.value, 0);
        out.push(strip,
          el('p', { class: 'us-line' }, el('span', { 'data-testid': 'user-active-total', 'data-value': total }, t.usActiveTotal(fmt(total), fmt(days.length)))),
          el('p', { class: 'us-line' }, el('span', { 'data-testid': 'user-active-streak', 'data-value': streak }, t.usActiveStreak(fmt(streak), isoDate(date), open))),
          numbersTable(t, rows, 'user-strip-numbers'));
      }
    }

    // Sign-ins of the panel's month, the streak carried from the previous month's key.
    const m = month(date);
    const prev = month(date, 1);
    const key = fill(s.signKey, { uid: id, month: m.ym });
    const prevKey = fill(s.signKey, { uid: id, month: prev.ym });
    out.push(el('h3', { class: 'us-h' }, t.usSignIns(m.ym)));
    const exists = await run(['EXISTS', key]);
    if (!exists) {
      out.push(el('p', { class: 'note', 'data-testid': 'user-no-sign' }, ...t.usNoSign(el('code', {}, key))));
    } else {
      const day = date.getUTCDate();
      const cal = el('ul', { class: 'us-cal', 'data-testid': 'user-calendar', 'aria-label': t.usSignIns(m.ym) });
      // Monday-first weekday of the 1st: blank cells before it.
      const first = (new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1)).getUTCDay() + 6) % 7;
      for (let i = 0; i < first; i++) cal.append(el('li', { 'aria-hidden': 'true', style: 'visibility:hidden' }));
      const rows = [];
      for (let d = 1; d <= m.days; d++) {
        const argv = ['GETBIT', key, d - 1];
        const v = await run(argv);
        rows.push([`${m.ym}${String(d).padStart(2, '0')}`, argv, v]);
        cal.append(el('li', { 'data-day': d, 'data-value': v, 'data-chosen': d === day, title: proof(argv, v) }, String(d)));
      }
      const streakArgv = ['BITLENS.STREAK', key, day, 'PREV', prevKey, prev.days];
      const longArgv = ['BITLENS.LONGESTSTREAK', key, m.days];
      const daysArgv = ['BITLENS.DAYSSIGNED', key, m.days];
      const [streak, longest, signed] = [await run(streakArgv), await run(longArgv), await run(daysArgv)];
      rows.push([t.usSignStreak, streakArgv, streak], [t.usSignLongest, longArgv, longest], [t.usSignDays, daysArgv, signed]);
      const fact = (testid, label, argv, v) => el('p', { class: 'us-line' }, `${label}${t.usColon}`,
        el('strong', { 'data-testid': testid, 'data-value': v }, fmt(v)), ' ', el('code', { class: 'muted' }, proof(argv, v)));
      out.push(cal,
        fact('user-sign-streak', t.usSignStreakOn(isoDate(date)), streakArgv, streak),
        fact('user-sign-longest', t.usSignLongest, longArgv, longest),
        fact('user-sign-days', t.usSignDays, daysArgv, signed),
        numbersTable(t, rows, 'user-sign-numbers'));
    }

    // Crowd tags (one bitmap per tag): GETBIT of the offset in each key matching tagKey.
    if (inRange) {
      out.push(el('h3', { class: 'us-h' }, t.usTags));
      const tagPattern = String(s.tagKey || USER_DEFAULTS.tagKey);
      const tags = (await keyNames(panel.eng, tagPattern)).slice(0, TAG_LIMIT);
      if (!tags.length) out.push(el('p', { class: 'note', 'data-testid': 'user-no-tags' }, ...t.usNoTags(el('code', {}, tagPattern))));
      else {
        const list = el('ul', { class: 'us-seen', 'data-testid': 'user-tags' });
        for (const k of tags) {
          const argv = ['GETBIT', k, offset];
          let r;
          try {
            r = await run(argv);
          } catch (e) {
            list.append(el('li', { 'data-key': k, 'data-value': 'error' }, el('code', {}, `${shortLine(argv)} → (error) ${e.message || e}`)));
            continue;
          }
          list.append(el('li', { 'data-key': k, 'data-value': r },
            el('strong', {}, r === 1 ? t.usInTag : t.usNotInTag), ' ', nameLabel(k, {}, 'code'), ' · ', el('code', { class: 'muted' }, proof(argv, r))));
        }
        out.push(list);
      }
      // The day's BITFIELD level (u<w> #offset) of the engagement section's level key.
      const lv = { ...ENGAGEMENT_DEFAULTS, ...s };
      const levelKey = fill(lv.levelKey, { date: ymd(date) });
      out.push(el('h3', { class: 'us-h' }, t.usLevel));
      if (!(await run(['EXISTS', levelKey]))) {
        out.push(el('p', { class: 'note', 'data-testid': 'user-no-level' }, ...t.usNoLevel(el('code', {}, levelKey))));
      } else {
        const argv = ['BITFIELD_RO', levelKey, 'GET', `u${lv.levelField}`, `#${offset}`];
        try {
          const [v] = await run(argv);
          out.push(el('p', { class: 'us-line' }, `${t.usLevelOn(isoDate(date))}${t.usColon}`,
            el('strong', { 'data-testid': 'user-level', 'data-value': v }, fmt(v)), ' ', el('code', { class: 'muted' }, `${cliLine(argv)} → 1) (integer) ${v}`)));
        } catch (e) {
          out.push(el('p', { class: 'error', 'data-testid': 'user-level-error' }, `${cliLine(argv)} → (error) ${e.message || e}`));
        }
      }
    }

    // Seen before? BF.EXISTS / CF.EXISTS of the id in every filter matching seenKey.
    out.push(el('h3', { class: 'us-h' }, t.usSeenBefore));
    const pattern = String(s.seenKey || USER_DEFAULTS.seenKey);
    const filters = await keyNames(panel.eng, pattern);
    const list = el('ul', { class: 'us-seen', 'data-testid': 'user-seen' });
    let asked = 0;
    let skipped = 0;
    for (const k of filters) {
      if (asked >= SEEN_LIMIT) break;
      const type = await run(['TYPE', k]);
      const cmd = type === 'MBbloom--' ? 'BF.EXISTS' : type === 'MBbloomCF' ? 'CF.EXISTS' : null;
      if (!cmd) {
        skipped += 1;
        continue;
      }
      asked += 1;
      const argv = [cmd, k, id];
      const r = await run(argv);
      list.append(el('li', { 'data-key': k, 'data-cmd': cmd, 'data-value': r },
        el('strong', {}, r === 1 ? t.usSeenMaybe : t.usSeenNo), ' · ', el('code', {}, proof(argv, r))));
    }
    if (!asked) out.push(el('p', { class: 'note', 'data-testid': 'user-no-filters' }, ...t.usNoFilters(el('code', {}, pattern))));
    else out.push(list);
    const rest = filters.length - asked - skipped;
    if (skipped || rest > 0) out.push(el('p', { class: 'note', 'data-testid': 'user-seen-skipped' }, t.usSeenSkipped(fmt(skipped), fmt(Math.max(0, rest)), SEEN_LIMIT)));
    return out;
  }

  async function renderSignins(body, current) {
    const eng = panel.eng;
    if (!eng || !panel.loaded) return;
    body.dataset.state = 'loading';
    let parts;
    try {
      parts = await signins();
    } catch (e) {
      if (!current()) return;
      body.replaceChildren(el('div', { class: 'error', role: 'alert', 'data-testid': 'signins-error' }, e.message || String(e)));
      body.dataset.state = 'error';
      return;
    }
    if (!current()) return;
    body.replaceChildren(...parts);
    body.dataset.state = 'ready';
  }

  /**
   * A histogram table kept short: past FOLD_ROWS rows it sits folded in a <details> whose
   * summary counts them (the rows stay in the page, for readers and tests).
   */
  function folded(table) {
    const rows = table.querySelectorAll('tbody tr').length;
    if (rows <= FOLD_ROWS) return table;
    return el('details', { class: 'us-fold', 'data-testid': `${table.dataset.testid}-fold` },
      el('summary', {}, t.siRows(panel.fmt(rows))), table);
  }

  /** The sign-ins card's elements for the panel's date. */
  async function signins() {
    const date = panel.date();
    const fmt = panel.fmt;
    const m = month(date);
    const day = date.getUTCDate();
    const pattern = globWith(s.signKey, { month: m.ym });
    const out = [];
    // The day's streak histogram, and the users signed in on every day so far in one pass.
    const todayArgv = ['BITLENS.SIGNINHIST', pattern, day];
    const today = { argv: todayArgv, h: await run(todayArgv) };
    const perDayArgv = ['BITLENS.SIGNINDAYS', pattern, day];
    const hists = (await run(perDayArgv)).map((v, i) => ({ d: i + 1, argv: perDayArgv, v }));
    const keys = today.h.reduce((a, n) => a + n, 0);
    if (!keys) {
      out.push(el('p', { class: 'absent', 'data-testid': 'signins-absent', 'data-pattern': pattern }, ...t.noCardKeys(el('code', {}, pattern))));
      return out;
    }
    const signedOn = (h) => h.slice(1).reduce((a, n) => a + n, 0);
    const n = signedOn(today.h);
    out.push(el('div', { class: 'metric' },
      el('div', { class: 'metric-label' }, t.siSignedOn(isoDate(date), fmt(keys))),
      el('div', { class: 'metric-value', 'data-testid': 'signins-day', 'data-value': n }, fmt(n)),
      el('pre', { class: 'cmd', 'data-testid': 'signins-day-cmd' }, cliLine(today.argv))));
    // Per-day sign-ins of the month so far.
    const max = Math.max(1, ...hists.map((x) => x.v));
    const bars = el('div', { class: 'us-bars', 'data-testid': 'signins-bars', role: 'img', 'aria-label': t.siPerDay(m.ym) },
      hists.map((x) => {
        const v = x.v;
        return el('span', { 'data-day': x.d, 'data-value': v, 'data-chosen': x.d === day, style: `height:${Math.max(2, Math.round((v / max) * 100))}%` });
      }));
    // Hover and keyboard focus give a day's figure and its command (tooltip.js).
    const barsBox = el('div', { class: 'us-bars-box' }, bars);
    const tip = attachTooltip(barsBox, bars);
    tip.tip.dataset.testid = 'signins-bars-tip';
    tip.update(childPoints(bars), (_, i) => `${isoDate(new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), hists[i].d)))}: ${fmt(hists[i].v)} · ${shortLine(hists[i].argv)}`);
    out.push(el('h3', { class: 'us-h' }, t.siPerDay(m.ym)), barsBox,
      numbersTable(t, hists.map((x) => [`${m.ym}${String(x.d).padStart(2, '0')}`, x.argv, x.v]), 'signins-per-day'));
    // Current streaks on the day (within the month; a streak of `day` days began on the 1st and
    // may continue from the previous month: BITLENS.STREAK … CARRY per user, see the user card).
    const streakRows = today.h.map((u, s2) => [s2, u]).filter(([s2, u]) => s2 > 0 && u > 0);
    out.push(el('h3', { class: 'us-h' }, t.siStreaks(isoDate(date))),
      folded(el('table', { class: 'us-table', 'data-testid': 'signins-streaks' },
        el('thead', {}, el('tr', {}, t.siStreakHead.map((h) => el('th', { scope: 'col' }, h)))),
        el('tbody', {}, streakRows.map(([s2, u]) => el('tr', { 'data-streak': s2, 'data-value': u },
          el('td', {}, s2 === day ? t.siFromFirst(fmt(s2)) : fmt(s2)), el('td', {}, fmt(u))))),
      )),
      el('p', { class: 'note' }, t.siCarryNote));
    out.push(...await carried(pattern, m, day, fmt, keys));
    const daysArgv = ['BITLENS.DAYSHIST', pattern, day];
    const dh = await run(daysArgv);
    out.push(el('h3', { class: 'us-h' }, t.siDaysHist(fmt(day))),
      folded(el('table', { class: 'us-table', 'data-testid': 'signins-dayshist' },
        el('thead', {}, el('tr', {}, t.siDaysHead.map((h) => el('th', { scope: 'col' }, h)))),
        el('tbody', {}, dh.map((u, k) => [k, u]).filter(([, u]) => u > 0).map(([k, u]) => el('tr', { 'data-days': k, 'data-value': u },
          el('td', {}, fmt(k)), el('td', {}, fmt(u))))))),
      el('pre', { class: 'cmd', 'data-testid': 'signins-dayshist-cmd' }, cliLine(daysArgv)),
      el('p', { class: 'note' }, t.extensionNote));
    return out;
  }

  /**
   * Current streaks carried across the month boundary: BITLENS.STREAK key day PREV <the same
   * user's previous-month key> days, per key of the month (up to CARRY_LIMIT keys), as a
   * histogram and the longest [LONGEST_SHOWN] of them. `count`: the month's string keys matching
   * `pattern` (the sum of the day's SIGNINHIST).
   */
  async function carried(pattern, m, day, fmt, count) {
    const prev = month(panel.date(), 1);
    // `count` (the month's sign-in keys, from SIGNINHIST) decides before any key name is listed:
    // 10 million names are never copied out of the engine only to be refused.
    if (count > CARRY_LIMIT) return [el('p', { class: 'note', 'data-testid': 'signins-carry-limit' }, t.siCarryLimit(fmt(count), fmt(CARRY_LIMIT)))];
    const keys = await keyNames(panel.eng, pattern);
    if (keys.length > CARRY_LIMIT) return [el('p', { class: 'note', 'data-testid': 'signins-carry-limit' }, t.siCarryLimit(fmt(keys.length), fmt(CARRY_LIMIT)))];
    const jobs = [];
    for (const k of keys) {
      const uid = capture(s.signKey, k, 'uid');
      if (uid === null) continue;
      jobs.push({ uid, key: k, argv: ['BITLENS.STREAK', k, day, 'PREV', fill(s.signKey, { uid, month: prev.ym }), prev.days] });
    }
    // One batch for every key (one worker message, not one per key).
    const replies = await panel.eng.commands(jobs.map((j) => j.argv));
    const all = jobs.map((j, i) => ({ ...j, v: replies[i] })).filter((x) => x.v > 0);
    const hist = new Map();
    for (const x of all) hist.set(x.v, (hist.get(x.v) || 0) + 1);
    const top = [...all].sort((a, b) => b.v - a.v || (a.key < b.key ? -1 : 1)).slice(0, LONGEST_SHOWN);
    return [
      el('h3', { class: 'us-h' }, t.siCarried(isoDate(panel.date()))),
      folded(el('table', { class: 'us-table', 'data-testid': 'signins-carried' },
        el('thead', {}, el('tr', {}, t.siStreakHead.map((h) => el('th', { scope: 'col' }, h)))),
        el('tbody', {}, [...hist].sort((a, b) => a[0] - b[0]).map(([v, u]) => el('tr', { 'data-streak': v, 'data-value': u },
          el('td', {}, v > day ? t.siAcross(fmt(v)) : fmt(v)), el('td', {}, fmt(u))))))),
      el('h3', { class: 'us-h' }, t.siLongest),
      el('ol', { class: 'us-seen', 'data-testid': 'signins-longest' }, top.map((x) => el('li', { 'data-uid': x.uid, 'data-value': x.v },
        el('strong', {}, x.uid), ` · ${fmt(x.v)} · `, el('code', {}, proof(x.argv, x.v))))),
    ];
  }

  /**
   * Whether the selected database holds keys of the cards shown: `{user, signins}` (user: any key
   * of its patterns; signins: any sign-in key of any month).
   */
  async function present() {
    const any = async (patterns) => {
      for (const p of patterns) if (await keyCount(panel.eng, p)) return true;
      return false;
    };
    const out = {};
    if (panel.bodies.user) out.user = await any(userPatterns(s, ['user']));
    if (panel.bodies.signins) out.signins = await any([globFor(s.signKey)]);
    return out;
  }

  /** The key glob named in card `c`'s collapsed line. */
  const glob = (c) => (c === 'user' ? userPatterns(s, ['user']).join(', ') : globFor(s.signKey));

  return { controls, render, present, glob };
}
