// The facts bar above the cards: what the loaded snapshot is. Its databases (the selector
// switches the cards and the key browser), the server profile answering (the snapshot's
// writer, or the override chosen in the select next to it) and the clock expiry is judged at.
// The panel (www/panel.js) owns the engine: it passes the engine's info() to `show` and is
// called back when the user picks a database or a profile.

import { el, formatUtc } from './util.js';

export class FactsBar {
  /**
   * @param {object} t the labels (www/i18n.js)
   * @param {{onDb: (db: number) => void, onCompat: (name: string) => void}} on called when the
   *   user picks a database, or a profile (`''`: the writer's)
   */
  constructor(t, { onDb, onCompat }) {
    this.dbSelect = el('select', {
      'data-testid': 'db', 'aria-label': t.database, disabled: true,
      onchange: () => onDb(Number(this.dbSelect.value)),
    });
    this.compatSelect = el('select', {
      'data-testid': 'compat', 'aria-label': t.compatLabel,
      onchange: () => onCompat(this.compatSelect.value),
    });
    this.profileLine = el('span', { class: 'profile', 'data-testid': 'profile' });
    this.clockLine = el('span', { class: 'clock', 'data-testid': 'clock' });
    /** The bar's element (hidden until the first `show`). */
    this.element = el('div', { class: 'facts', 'data-testid': 'snapshot-facts', hidden: true },
      el('label', { class: 'db' }, el('span', {}, t.database), this.dbSelect), ' ',
      this.profileLine, ' ',
      el('label', { class: 'compat' }, el('span', {}, t.compatLabel), this.compatSelect), ' ',
      this.clockLine);
  }

  /**
   * Draws `info` (the engine's `EngineInfo`): the database selector, the profile in force with
   * the override select, and the clock.
   * @param {object} info `Engine.info()`
   * @param {{t: object, fmt: (n: number) => string, profiles: {name: string, server: string}[],
   *   writerName?: string, forced: boolean}} how the labels and number format; the engine's
   *   profile list (empty: only the writer's); the writer as the file names it (`Redis 7.4.1`),
   *   else its profile's display name is used; whether an override is in force
   */
  show(info, { t, fmt, profiles, writerName, forced }) {
    this.element.hidden = false;
    this.dbSelect.replaceChildren(...info.databases.map((d) => el('option', { value: d.db }, t.dbOption(d.db, fmt(d.keys)))));
    this.dbSelect.value = String(info.selected);
    this.dbSelect.disabled = info.databases.length < 2;
    this.dbSelect.dataset.count = String(info.databases.length);
    const writer = writerName || profiles.find((p) => p.name === info.writerProfile)?.server || info.writerProfile;
    this.compatSelect.replaceChildren(el('option', { value: '' }, t.compatWriter(writer)),
      ...profiles.map((p) => el('option', { value: p.name }, p.server)));
    this.compatSelect.value = forced ? info.profile : '';
    this.profileLine.textContent = forced ? t.answersCompat(info.server, info.profile, writer) : t.answersWriter(writer);
    this.profileLine.dataset.profile = info.profile;
    this.profileLine.dataset.writer = info.writerProfile;
    this.clockLine.textContent = info.clockMs === null ? '' : t.asOf(formatUtc(info.clockMs, true), info.snapshotTimeMs !== null);
    this.clockLine.dataset.clockMs = info.clockMs === null ? '' : String(info.clockMs);
  }
}
