// The operations panel: fetches a snapshot from `bitlens serve`, loads it into the wasm engine
// and draws the cards. Renders into any root (a page element or a shadow root), so the page
// (index.html) and the <bitlens-panel> element share it.

import init, { Engine } from '../pkg/bitlens.js';
import {
  CITIES, PAGE_SIZE, RADII, UNITS, computeActive, computeEngagement, computeNearby, computeUv,
  drawEngagementCard, drawMetricCard, drawNearbyResults, errorBox,
} from './cards.js';
import { buildEngagementSection, engagementPatterns } from './engagement.js';
import { labelsFor, langCode } from './i18n.js';
import { fetchSnapshot, snapshotUrl } from './snapshot.js';
import { capture, el, formatBytes, globFor, isoDate, parseDate, ymd } from './util.js';

/** The cards a panel can show, in `cards=` order. */
const KNOWN_CARDS = ['uv', 'active', 'nearby', 'engagement'];

let wasmReady = null;
/** Initialises the wasm module once per page. */
export function initWasm() {
  if (!wasmReady) wasmReady = init();
  return wasmReady;
}

/** Default settings; every one can be given as a URL parameter / element attribute. */
export const DEFAULTS = {
  api: '/api',
  date: '', // YYYYMMDD or YYYY-MM-DD; empty = latest date found in the snapshot
  uvKey: 'uv:page:index:{date}',
  activeKey: 'stats:active:{date}',
  geoKey: 'shop:geo:{type}',
  type: '',
  city: 'shanghai',
  lon: '',
  lat: '',
  radius: 3,
  unit: 'km',
  member: '', // centre the search on this shop (GEOSEARCH FROMMEMBER) instead of lon/lat
  cards: 'uv,active,nearby,engagement',
  lang: '',
  theme: '', // light | dark; empty = follow prefers-color-scheme
  token: '', // bearer token for `bitlens serve --token`
};

/** URL parameter / attribute name of each setting. */
export const PARAMS = {
  api: 'api', date: 'date', uvKey: 'uv-key', activeKey: 'active-key', geoKey: 'geo-key',
  type: 'type', city: 'city', lon: 'lon', lat: 'lat', radius: 'radius', unit: 'unit', member: 'member',
  cards: 'cards', lang: 'lang', theme: 'theme', token: 'token',
};

/** Settings whose change needs a new snapshot (the others only redraw). */
const FETCH_SETTINGS = ['api', 'uvKey', 'activeKey', 'geoKey', 'cards', 'token'];

/** Settings from URLSearchParams (or anything with get(name)), over the defaults. */
export function settingsFrom(params) {
  const s = { ...DEFAULTS };
  for (const [k, p] of Object.entries(PARAMS)) {
    const v = params.get(p);
    if (v !== null && v !== undefined && v !== '') s[k] = v;
  }
  return s;
}

export class Panel {
  /**
   * @param {Element|ShadowRoot} root where to draw
   * @param {object} settings see DEFAULTS
   * @param {{host?: EventTarget, onSettings?: (s: object) => void}} [opts]
   *   host receives `bitlens-loaded` / `bitlens-error` events; onSettings is called when the
   *   user changes a setting (the page mirrors them into the URL).
   */
  constructor(root, settings, opts = {}) {
    this.root = root;
    this.s = { ...DEFAULTS, ...settings };
    this.host = opts.host || null;
    this.onSettings = opts.onSettings || (() => {});
    this.engine = null;
    this.loaded = false;
    this.page = 0;
    this.loadSeq = 0;
    this.build();
  }

  get t() {
    return labelsFor(this.s.lang || document.documentElement.lang || navigator.language);
  }

  fmt = (n) => new Intl.NumberFormat(langCode(this.s.lang || document.documentElement.lang || navigator.language) === 'zh' ? 'zh-CN' : 'en-US').format(n);

  emit(name, detail) {
    if (this.host) this.host.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
  }

  changed() {
    this.onSettings({ ...this.s });
  }

  cards() {
    return String(this.s.cards).split(',').map((c) => c.trim()).filter((c) => KNOWN_CARDS.includes(c));
  }

  /** Builds the static frame: toolbar, settings form, empty cards. */
  build() {
    const t = this.t;
    const s = this.s;
    this.dateInput = el('input', {
      type: 'date', 'data-testid': 'date', 'aria-label': t.date,
      onchange: () => {
        const d = parseDate(this.dateInput.value);
        if (d) {
          s.date = ymd(d);
          this.changed();
          this.render();
        }
      },
    });
    this.progress = el('progress', { 'data-testid': 'progress', max: 1 });
    this.status = el('span', { class: 'status', 'data-testid': 'status', 'aria-live': 'polite' });
    const field = (label, name) => el('label', {}, el('span', {}, label), el('input', { name, value: s[name], spellcheck: 'false' }));
    this.form = el(
      'form',
      {
        class: 'settings-form',
        onsubmit: (e) => {
          e.preventDefault();
          for (const name of ['uvKey', 'activeKey', 'geoKey', 'api']) s[name] = this.form.elements[name].value.trim();
          this.changed();
          this.load();
        },
      },
      field(t.uvKey, 'uvKey'),
      field(t.activeKey, 'activeKey'),
      field(t.geoKey, 'geoKey'),
      field(t.api, 'api'),
      el('button', { type: 'submit' }, t.apply),
    );
    const toolbar = el(
      'header',
      { class: 'toolbar' },
      el('h1', {}, t.title),
      el('label', { class: 'date' }, el('span', {}, t.date), this.dateInput),
      el('span', { class: 'load' }, this.progress, this.status),
      el('details', { class: 'settings' }, el('summary', {}, t.settings), this.form),
    );
    this.bodies = {};
    const cards = el('div', { class: 'cards' });
    const titles = { uv: t.uvTitle, active: t.activeTitle, nearby: t.nearbyTitle, engagement: t.engagementTitle };
    for (const c of this.cards()) {
      if (!titles[c]) continue;
      const body = el('div', { class: 'card-body', 'data-testid': `${c}-body` }, t.loading);
      const card = el('section', { class: 'card', 'data-card': c, 'data-testid': `card-${c}` }, el('h2', {}, titles[c]));
      if (c === 'nearby') card.append(this.buildNearbyControls());
      card.append(body);
      this.bodies[c] = body;
      cards.append(card);
    }
    this.frame = el('div', {
      class: 'bitlens', 'data-testid': 'panel', 'data-state': 'loading',
      'data-theme': ['light', 'dark'].includes(s.theme) ? s.theme : null,
      lang: langCode(s.lang || document.documentElement.lang || navigator.language),
    }, toolbar, cards);
    // The Engagement section (charts on canvases, www/engagement.js) under the cards.
    this.engagement = this.cards().includes('engagement') ? buildEngagementSection() : null;
    if (this.engagement) this.frame.append(this.engagement.section);
    this.root.replaceChildren(this.frame);
  }

  buildNearbyControls() {
    const t = this.t;
    const s = this.s;
    const preset = CITIES.find((c) => c[0] === s.city);
    if (s.lon === '' || s.lat === '') {
      const c = preset || CITIES[0];
      s.lon = c[1];
      s.lat = c[2];
    }
    const update = () => {
      this.page = 0;
      this.changed();
      this.renderNearby();
    };
    this.citySelect = el(
      'select',
      {
        'data-testid': 'city', 'aria-label': t.city,
        onchange: () => {
          s.city = this.citySelect.value;
          s.member = '';
          this.memberInput.value = '';
          const c = CITIES.find((x) => x[0] === s.city);
          if (c) {
            s.lon = c[1];
            s.lat = c[2];
            this.lonInput.value = c[1];
            this.latInput.value = c[2];
          }
          update();
        },
      },
      CITIES.map(([id]) => el('option', { value: id }, this.t[id])),
      el('option', { value: 'custom' }, t.custom),
    );
    this.citySelect.value = preset && +s.lon === preset[1] && +s.lat === preset[2] ? s.city : 'custom';
    const coord = (name, label) =>
      el('input', {
        type: 'number', step: 'any', value: s[name], 'data-testid': name, 'aria-label': label,
        onchange: (e) => {
          const v = Number(e.target.value);
          if (e.target.value !== '' && Number.isFinite(v)) {
            s[name] = v;
            s.city = 'custom';
            s.member = '';
            this.memberInput.value = '';
            this.citySelect.value = 'custom';
            update();
          }
        },
      });
    this.lonInput = coord('lon', t.lon);
    this.latInput = coord('lat', t.lat);
    this.radiusSelect = el('select', {
      'data-testid': 'radius', 'aria-label': t.radius,
      onchange: () => { s.radius = Number(this.radiusSelect.value); update(); },
    });
    const fillRadii = () => {
      const presets = RADII[s.unit] || [];
      const radii = [...new Set([...presets, Number(s.radius)])].filter((r) => r > 0).sort((a, b) => a - b);
      this.radiusSelect.replaceChildren(...radii.map((r) => el('option', { value: r }, `${r} ${s.unit}`)));
      this.radiusSelect.value = String(Number(s.radius));
    };
    fillRadii();
    this.unitSelect = el(
      'select',
      {
        'data-testid': 'unit', 'aria-label': t.unit,
        onchange: () => {
          s.unit = this.unitSelect.value;
          const presets = RADII[s.unit];
          s.radius = presets[Math.floor(presets.length / 2)];
          fillRadii();
          update();
        },
      },
      [...new Set([...UNITS, s.unit])].map((u) => el('option', { value: u }, u)),
    );
    this.unitSelect.value = s.unit;
    this.memberInput = el('input', {
      type: 'search', value: s.member, 'data-testid': 'member', 'aria-label': t.member,
      placeholder: t.memberHint, spellcheck: 'false',
      onchange: () => { s.member = this.memberInput.value.trim(); update(); },
    });
    this.typeSelect = el('select', {
      'data-testid': 'type', 'aria-label': t.type,
      onchange: () => { s.type = this.typeSelect.value; update(); },
    });
    return el(
      'div',
      { class: 'controls' },
      el('label', {}, el('span', {}, t.city), this.citySelect),
      el('label', {}, el('span', {}, t.lon), this.lonInput),
      el('label', {}, el('span', {}, t.lat), this.latInput),
      el('label', {}, el('span', {}, t.radius), this.radiusSelect),
      el('label', {}, el('span', {}, t.unit), this.unitSelect),
      el('label', {}, el('span', {}, t.type), this.typeSelect),
      el('label', { class: 'wide' }, el('span', {}, t.member), this.memberInput),
    );
  }

  /**
   * Applies new settings: refetches the snapshot when a key template, the API or the card set
   * changed, else only redraws (the loaded snapshot is kept).
   */
  update(settings) {
    const before = this.s;
    this.s = { ...DEFAULTS, ...settings };
    const refetch = FETCH_SETTINGS.some((k) => String(before[k]) !== String(this.s[k]));
    if (String(before.city) !== String(this.s.city) && !settings.lon) {
      this.s.lon = '';
      this.s.lat = '';
    }
    const state = this.frame.dataset.state;
    const status = this.status.textContent;
    const progress = [this.progress.max, this.progress.value];
    this.build();
    this.status.textContent = status;
    [this.progress.max, this.progress.value] = progress;
    this.page = 0;
    if (refetch || !this.loaded) return this.load(this.snapshotBytes || undefined);
    this.discover();
    this.render();
    this.setState(state);
    return Promise.resolve();
  }

  setState(state) {
    this.frame.dataset.state = state;
  }

  /**
   * Loads a snapshot — `bytes` (an RDB file) when given, else fetched from the API for the
   * configured keys — and draws the cards.
   */
  async load(bytes) {
    const seq = ++this.loadSeq;
    // Bytes handed over directly (offline use) are kept for reloads after a settings change.
    this.snapshotBytes = bytes || null;
    const t = this.t;
    this.setState('loading');
    this.loaded = false;
    for (const b of Object.values(this.bodies)) b.replaceChildren(t.loading);
    try {
      this.status.textContent = t.loadingWasm;
      await initWasm();
      if (!this.engine) this.engine = new Engine();
      if (!bytes) {
        const patterns = [...new Set(this.patterns())];
        // No known card means no key pattern: never ask for a snapshot of the whole database.
        if (!patterns.length) throw new Error(t.noCards(this.s.cards, KNOWN_CARDS.join(',')));
        const url = snapshotUrl(this.s.api, patterns);
        this.status.textContent = t.loading;
        bytes = await fetchSnapshot(url, (got, total) => {
          if (seq !== this.loadSeq) return;
          if (total) {
            this.progress.max = total;
            this.progress.value = got;
          } else {
            this.progress.removeAttribute('value');
          }
          this.status.textContent = t.received(formatBytes(got), total ? formatBytes(total) : null);
        }, undefined, this.s.token);
      }
      if (seq !== this.loadSeq) return;
      const n = this.engine.loadRdb(bytes);
      this.progress.max = 1;
      this.progress.value = 1;
      this.status.textContent = t.loaded(this.fmt(n), formatBytes(bytes.length));
      this.loaded = true;
      this.discover();
      this.render();
      this.setState('ready');
      this.emit('bitlens-loaded', { keys: n, bytes: bytes.length });
    } catch (e) {
      if (seq !== this.loadSeq) return;
      this.progress.value = 0;
      const noCard = !Object.keys(this.bodies).length;
      this.status.textContent = noCard ? `${t.snapshotFailed}: ${e.message || e}` : t.snapshotFailed;
      for (const [c, b] of Object.entries(this.bodies)) b.replaceChildren(errorBox(c, e, t, t.snapshotFailed));
      this.setState('error');
      this.emit('bitlens-error', { error: e, message: e.message || String(e) });
    }
  }

  /** The Redis globs of the keys the cards need. */
  patterns() {
    const p = [];
    const c = this.cards();
    if (c.includes('uv')) p.push(globFor(this.s.uvKey));
    if (c.includes('active') || c.includes('engagement')) p.push(globFor(this.s.activeKey));
    if (c.includes('nearby')) p.push(globFor(this.s.geoKey));
    if (c.includes('engagement')) p.push(...engagementPatterns(this.s));
    return p;
  }

  /** Finds the latest date and the shop types present in the snapshot. */
  discover() {
    const s = this.s;
    const dates = [];
    for (const tpl of [s.activeKey, s.uvKey]) {
      if (!tpl.includes('{date}')) continue;
      for (const k of this.engine.keys(globFor(tpl))) {
        const d = capture(tpl, k, 'date');
        if (d && parseDate(d)) dates.push(d);
      }
    }
    dates.sort();
    this.latestDate = dates.length ? dates[dates.length - 1] : ymd(new Date());
    this.dates = dates;
    if (this.typeSelect) {
      const types = s.geoKey.includes('{type}')
        ? [...new Set(this.engine.keys(globFor(s.geoKey)).map((k) => capture(s.geoKey, k, 'type')).filter(Boolean))].sort()
        : [];
      if (s.type && !types.includes(s.type)) types.unshift(s.type);
      if (!s.type && types.length) s.type = types[0];
      this.typeSelect.replaceChildren(...types.map((ty) => el('option', { value: ty }, ty)));
      this.typeSelect.value = s.type;
      this.typeSelect.disabled = !s.geoKey.includes('{type}');
    }
  }

  /** The chosen date (UTC Date). */
  date() {
    return parseDate(this.s.date) || parseDate(this.latestDate) || new Date();
  }

  render() {
    if (!this.loaded) return;
    const date = this.date();
    this.dateInput.value = isoDate(date);
    if (this.dates && this.dates.length) {
      this.dateInput.min = isoDate(parseDate(this.dates[0]));
      this.dateInput.max = isoDate(parseDate(this.dates[this.dates.length - 1]));
    }
    const t = this.t;
    if (this.bodies.uv) drawMetricCard(this.bodies.uv, 'uv', () => computeUv(this.engine, this.s, date, t), this.fmt, t);
    if (this.bodies.active) drawMetricCard(this.bodies.active, 'active', () => computeActive(this.engine, this.s, date, t), this.fmt, t);
    if (this.bodies.engagement) {
      drawEngagementCard(this.bodies.engagement, () => computeEngagement(this.engine, this.s, date, t), this.fmt, t);
    }
    if (this.engagement) this.engagement.draw(this.engine, this.s, date);
    this.renderNearby();
  }

  renderNearby() {
    const body = this.bodies.nearby;
    if (!body || !this.loaded) return;
    const t = this.t;
    const q = {
      lon: Number(this.s.lon), lat: Number(this.s.lat), radius: Number(this.s.radius), unit: this.s.unit,
      type: this.s.type, member: this.s.member,
    };
    try {
      this.nearby = computeNearby(this.engine, this.s, q);
    } catch (e) {
      body.replaceChildren(errorBox('nearby', e, t));
      return;
    }
    const draw = (page) => {
      this.page = page;
      drawNearbyResults(body, this.nearby, q, page, draw, this.fmt, t);
    };
    draw(this.page);
  }
}

export { PAGE_SIZE };
