// The operations panel: one engine (the promise client of engine-client.js, in a Web Worker
// unless worker=false) holds the snapshot shown; the cards, the charts' numbers and the key
// browser all ask it. Renders into any root (a page element or a shadow root), so the page
// (index.html) and the <bitlens-panel> element share it.
//
// Every load goes through one load controller (www/load.js: a fresh engine, progress, Cancel)
// and the panel's `show`: `/api/snapshot` is downloaded and decoded inside the worker (the
// page's thread never decodes); "Open snapshot…" (or a drop on the panel) hands the files to
// the file opener (www/open.js: RDB files, DUMP payloads, raw GET bytes, told apart by the
// core's snapshotInfo, never the file's name). When the snapshot API does not answer, the
// panel says so and offers the file instead, so index.html works from any static server.
//
// The panel's parts: the settings (www/settings.js), the cards (www/cards.js, the nearby card
// www/nearby.js, the engagement, user and crowd views), the key browser (www/keybrowser.js),
// the memory view (www/memory.js) and the facts bar (www/facts.js). Every database of a
// snapshot stays in the engine (online too: the API's snapshot holds every non-empty database
// of the server): the database selector starts on the first one holding the cards' keys and
// switches the cards and the key browser (online, the key browser then lists that database
// through /api/keys?db=). The facts
// bar says which server profile answers (the snapshot's writer, or the `compat` setting: the
// select next to it, or compat= in the URL) and the clock expiry is judged at ("as of" the
// snapshot's time).

import init from '../pkg/bitlens_charts.js';
import {
  PAGE_SIZE, computeActive, computeEngagement, computeUv, drawEngagementCard, drawMetricCard,
  errorBox,
} from './cards.js';
import { CROWD_CARDS, crowdPatterns, crowdViews } from './crowds.js';
import { buildEngagementSection, engagementPatterns } from './engagement.js';
import { labelsFor, langCode } from './i18n.js';
import { apiKeySource, buildKeyBrowser } from './keybrowser.js';
import {
  LoadController, failureText, loadAllowed, markStale,
} from './load.js';
import { buildMemoryView } from './memory.js';
import { MAX_SNAPSHOT_BYTES, snapshotUrl } from './snapshot.js';
import { nearbyView } from './nearby.js';
import { FactsBar } from './facts.js';
import { FileOpener } from './open.js';
import { DEFAULTS, FETCH_SETTINGS, PARAMS, loadOptions, settingErrors } from './settings.js';
import { USER_CARDS, userPatterns, userViews } from './userstory.js';
import { el, formatBytes, globFor, isoDate, keyNames, parseDate, shortName, ymd } from './util.js';

/**
 * The cards a panel can show, in `cards=` order. `keys` is the key browser: always shown for an
 * opened file, and over the fetched snapshot only when listed.
 */
const KNOWN_CARDS = ['uv', 'active', 'nearby', 'engagement', ...USER_CARDS, ...CROWD_CARDS, 'keys'];

let wasmReady = null;
/**
 * Initialises the page's chart module once per page (pkg/bitlens_charts.js: the chart functions
 * and the user-id rule; the engine module runs in the worker only).
 */
export function initWasm() {
  if (!wasmReady) wasmReady = init();
  return wasmReady;
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
    this.eng = null; // the promise-client engine holding the snapshot shown
    this.loaded = false;
    this.offline = null; // {name, keys, bytes} of the opened file(s), while in offline mode
    this.opener = new FileOpener(this);
    this.build();
  }

  get t() {
    return labelsFor(this.s.lang || document.documentElement.lang || navigator.language);
  }

  /** The locale numbers and relative times are written in (zh-CN or en-US). */
  locale() {
    return langCode(this.s.lang || document.documentElement.lang || navigator.language) === 'zh' ? 'zh-CN' : 'en-US';
  }

  fmt = (n) => new Intl.NumberFormat(this.locale()).format(n);

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
          this.showParamErrors();
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
    this.fileInput = el('input', {
      type: 'file', multiple: true, hidden: true, 'data-testid': 'file-input', 'aria-label': t.openFile,
      onchange: () => {
        const files = [...this.fileInput.files];
        this.fileInput.value = '';
        if (files.length) this.opener.openFiles(files);
      },
    });
    this.cancelButton = el('button', {
      type: 'button', class: 'cancel', 'data-testid': 'cancel', hidden: true,
    }, t.cancel);
    const ui = { progress: this.progress, status: this.status, cancel: this.cancelButton, t, worker: () => String(this.s.worker) !== 'false' };
    if (this.loader) this.loader.attach(ui);
    else this.loader = new LoadController(ui);
    const openButton = () => el('button', { type: 'button', class: 'open-file', 'data-testid': 'open-file', onclick: () => this.fileInput.click() }, t.openFile);
    const toolbar = el(
      'header',
      { class: 'toolbar' },
      el('h1', {}, t.title),
      el('label', { class: 'date' }, el('span', {}, t.date), this.dateInput),
      el('span', { class: 'load' }, this.progress, this.status, this.cancelButton),
      el('span', { class: 'offline' }, openButton(), this.fileInput, el('span', { class: 'muted hint' }, t.openFileHint)),
      el('details', { class: 'settings' }, el('summary', {}, t.settings), this.form),
    );
    // Messages above the cards: bad URL parameters, an unreachable API (with the file option),
    // the key names of DUMP files being opened.
    this.paramBox = el('div', { class: 'warn-box', role: 'alert', 'data-testid': 'param-errors', hidden: true });
    this.apiBox = el('div', { class: 'notice', role: 'alert', 'data-testid': 'api-unreachable', hidden: true },
      el('span', { class: 'notice-text' }), ' ', openButton());
    this.dumpBox = el('div', { class: 'dump-box', 'data-testid': 'dump-form', hidden: true });
    // What the loaded snapshot is: its databases (the selector), the profile answering (with
    // the override) and the clock expiry is judged at.
    this.fileNotes = el('div', { class: 'warn-box', role: 'status', 'data-testid': 'file-notes', hidden: true });
    this.facts = new FactsBar(t, {
      onDb: (db) => this.selectDb(db),
      onCompat: (name) => this.setCompat(name),
    });
    this.showParamErrors();
    this.bodies = {};
    const cards = el('div', { class: 'cards', 'data-testid': 'cards' });
    this.cardsBox = cards;
    const titles = { uv: t.uvTitle, active: t.activeTitle, nearby: t.nearbyTitle, engagement: t.engagementTitle, user: t.userTitle, signins: t.signinsTitle, crowds: t.crowdsTitle, offsets: t.offsetsTitle };
    this.nearbyView = nearbyView(this);
    this.userViews = userViews(this, initWasm);
    this.crowdViews = crowdViews(this);
    for (const c of this.cards()) {
      if (!titles[c]) continue;
      const body = el('div', { class: 'card-body', 'data-testid': `${c}-body` }, t.loading);
      const card = el('section', { class: 'card', 'data-card': c, 'data-testid': `card-${c}` }, el('h2', {}, titles[c]));
      if (c === 'nearby') card.append(this.nearbyView.controls());
      if (USER_CARDS.includes(c)) card.append(this.userViews.controls(c));
      if (CROWD_CARDS.includes(c)) card.append(this.crowdViews.controls(c));
      card.append(body);
      this.bodies[c] = body;
      cards.append(card);
    }
    this.frame = el('div', {
      class: 'bitlens', 'data-testid': 'panel', 'data-state': 'loading',
      'data-theme': ['light', 'dark'].includes(s.theme) ? s.theme : null,
      lang: langCode(s.lang || document.documentElement.lang || navigator.language),
    }, toolbar, this.facts.element, this.paramBox, this.apiBox, this.fileNotes, this.dumpBox, cards);
    // The Engagement section (charts on canvases, www/engagement.js) under the cards.
    this.engagement = this.cards().includes('engagement') ? buildEngagementSection(t) : null;
    if (this.engagement) {
      // Shown once there is something to draw (render), not as empty canvases.
      this.engagement.section.hidden = !this.loaded;
      this.frame.append(this.engagement.section);
    }
    // The key browser: over the opened file, or over the fetched snapshot.
    this.keyBrowser = buildKeyBrowser(t, this.fmt, this.locale());
    this.frame.append(this.keyBrowser.section);
    // The memory view (www/memory.js): biggest keys, memory per type/pattern, what expires soon.
    this.memory = buildMemoryView(t, this.fmt, this.locale(), (key) => {
      this.keyBrowser.open(key);
      this.keyBrowser.section.scrollIntoView({ block: 'start' });
    });
    this.frame.append(this.memory.section);
    this.keyBrowser.setLedgerHook(this.memory.keyLedger); // a key's ledger under its detail
    // It goes with the key browser: an opened file, or `cards=…,keys` online.
    if (this.loaded && this.eng) this.memory.setSource(this.browserSource());
    this.placeKeyBrowser();
    if (this.loaded) this.keyBrowser.setSource(this.browserSource(), this.apiKeys());
    if (this.view) this.showFacts();
    this.dropTarget();
    this.root.replaceChildren(this.frame);
  }

  /** Dropping files anywhere on the panel opens them (the frame is highlighted while dragging). */
  dropTarget() {
    const f = this.frame;
    const has = (e) => e.dataTransfer && [...e.dataTransfer.types].includes('Files');
    f.addEventListener('dragover', (e) => {
      if (!has(e)) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = 'copy';
      f.dataset.drop = 'over';
    });
    f.addEventListener('dragleave', (e) => {
      if (e.target === f || !f.contains(e.relatedTarget)) delete f.dataset.drop;
    });
    f.addEventListener('drop', (e) => {
      if (!has(e)) return;
      e.preventDefault();
      delete f.dataset.drop;
      const files = [...e.dataTransfer.files];
      if (files.length) this.opener.openFiles(files);
    });
    f.dataset.dropHint = this.t.dropHere;
  }

  /** The settings' problems ([`settingErrors`](./settings.js)), in this panel's language. */
  paramErrors() {
    return settingErrors(this.s, this.t);
  }

  showParamErrors() {
    const errs = this.paramErrors();
    this.paramBox.hidden = !errs.length;
    this.paramBox.replaceChildren(...errs.map((e) => el('p', { 'data-testid': `param-error-${e.param}`, 'data-param': e.param }, this.t.badParam(e.param, e.value, e.why))));
  }

  /**
   * The promise-API engine the key browser reads: the panel's engine (the one that decoded
   * the snapshot shown) for an opened file, or online when `keys` is among the cards; else
   * null (no key browser).
   */
  browserSource() {
    if (!this.eng) return null;
    if (this.offline || this.cards().includes('keys')) return this.eng;
    return null;
  }

  /**
   * Online (the API's snapshot) with `keys` among the cards: the API lists the key browser's keys (every key, by
   * /api/keys paging) and serves each key opened (keybrowser.js apiKeySource); else null.
   */
  apiKeys() {
    // Bytes handed to the panel (load(bytes)) are the whole snapshot: their engine is listed.
    if (this.offline || this.snapshotBytes || !this.eng || !this.cards().includes('keys')) return null;
    return apiKeySource({ api: this.s.api, token: this.s.token, engine: this.eng, db: this.view ? this.view.selected : 0 });
  }

  /** Most snapshot bytes this browser takes (setting max-bytes, else MAX_SNAPSHOT_BYTES). */
  maxBytes() {
    const n = Number(this.s.maxBytes);
    return Number.isFinite(n) && n > 0 ? n : MAX_SNAPSHOT_BYTES;
  }

  /**
   * The engine's snapshotInfo, asked of a worker engine (the page holds no engine module): the
   * engine showing the snapshot, else the one the next load will decode into (load.js spare).
   * Resolves with a function `bytes => Promise<info>`.
   */
  async snapshotInfo() {
    const eng = this.eng || (await this.loader.spare());
    return (bytes) => eng.call('snapshotInfo', bytes);
  }

  /**
   * Every load of the panel (the API, an RDB file, DUMP files, bytes): one load controller
   * (a fresh engine, progress, Cancel), then the database holding the cards' keys selected,
   * the facts, the cards and the key browser drawn from the new engine. `decode(eng,
   * onProgress, signal)` fills the engine; `offline` marks a local file (the key browser is
   * then always shown); `writer` is snapshotInfo's writer (or comes from `decode`'s result).
   * A cancelled or failed load leaves what the panel showed on screen.
   */
  async show({ name, size, decode, offline, writer = null }) {
    const t = this.t;
    const before = this.frame.dataset.state;
    this.setState('loading');
    if (offline) this.frame.dataset.offline = 'loading';
    let r;
    try {
      // The page's own wasm module is not started here: it only draws charts (render).
      r = await this.loader.run(offline ? name : null, size, decode);
      const { eng, value, seq } = r;
      const patterns = [...new Set(this.patterns())];
      if (this.s.compat) await this.trySetCompat(eng);
      // Every database stays in the engine; the cards start on the first one holding their keys
      // (selected by the engine's overview, which also counts the templates' keys: discover).
      const overview = await eng.call('overview', patterns, this.templates());
      const info = overview.info;
      if (!this.loader.current(seq)) {
        eng.terminate();
        return;
      }
      const n = info.databases.reduce((a, d) => a + d.keys, 0);
      if (this.eng && this.eng !== eng) this.eng.terminate();
      this.eng = eng;
      const bytes = value && typeof value === 'object' && 'bytes' in value ? value.bytes : size;
      this.offline = offline ? { name, keys: n, bytes } : null;
      if (offline) this.frame.dataset.offline = 'ready';
      else delete this.frame.dataset.offline;
      this.writerName = writerName(value && typeof value === 'object' && 'writer' in value ? value.writer : writer);
      this.view = info;
      this.profileList = overview.profiles;
      this.showFacts();
      this.status.textContent = offline
        ? t.decoded(name, this.fmt(n), formatBytes(bytes), eng.worker === true, info.databases.length)
        : t.loaded(this.fmt(n), formatBytes(bytes), info.databases.length);
      this.apiBox.hidden = true;
      this.loaded = true;
      // The numbers are fresh: no stale marks; the patterns the allow-list refused (per card).
      this.loadedAt = Date.now();
      markStale(this.cardsBox, null);
      delete this.frame.dataset.stale;
      this.refused = !offline && value && Array.isArray(value.refused) ? value : null;
      performance.mark('bitlens-cards-start'); // (bench/browser.mjs: where the time goes)
      // A file opened, or a snapshot in place of another: the cards' settings (the shop type,
      // the centre member) follow what it holds, not what the one before held.
      const fresh = Boolean(offline || this.shownBefore);
      this.shownBefore = true;
      await this.discover({ fresh, overview });
      await this.render();
      performance.mark('bitlens-cards-end');
      if (!this.loader.current(seq)) return;
      // Ready once the key browser has listed its keys too.
      await this.keyBrowser.setSource(this.browserSource(), this.apiKeys());
      if (!this.loader.current(seq)) return;
      this.memory.setSource(this.browserSource()); // drawn when the worker answers; not awaited
      this.placeKeyBrowser(true);
      this.setState('ready');
      this.emit('bitlens-loaded', offline
        ? { keys: n, bytes, file: name, db: info.selected, databases: info.databases }
        : { keys: n, bytes, db: info.selected, databases: info.databases });
    } catch (e) {
      if (e && e.name === 'AbortError') {
        if (r && !this.loader.current(r.seq)) return;
        this.status.textContent = t.cancelled;
        this.setState(before === 'loading' ? (this.loaded ? 'ready' : 'error') : before);
        if (offline) this.frame.dataset.offline = 'cancelled';
        return;
      }
      this.failed(e, offline);
    }
  }

  /**
   * A failed load: a local file's error goes to the status line (the cards keep what they
   * showed); an API error also goes to the cards, with the file option offered when the API
   * did not answer or refused.
   */
  failed(e, offline) {
    const t = this.t;
    if (offline) {
      this.status.textContent = failedText(e, t);
      this.setState(this.loaded ? 'ready' : 'error');
      this.frame.dataset.offline = 'error';
      this.emit('bitlens-error', { error: e, message: e.message || String(e) });
      return;
    }
    // The API did not answer (or is not there: a static server): offer the file instead.
    if (/^(GET|POST) /.test(e.message || '')) {
      // 401/403: the API is there but refused (token, allow-list); else what failed, named.
      const refused = e.status === 401 || e.status === 403;
      this.apiBox.dataset.kind = refused ? 'refused' : 'unreachable';
      this.apiBox.dataset.component = e.component || '';
      this.apiBox.querySelector('.notice-text').textContent = refused
        ? t.apiRefused(this.s.api, e.status)
        : failureText(e, t, this.s.api) || t.apiUnreachable(this.s.api);
      this.apiBox.hidden = false;
    }
    if (this.loaded && this.eng && this.loadedAt) {
      // Numbers already shown stay, marked stale with their time, until new ones arrive.
      this.status.textContent = failedText(e, t);
      markStale(this.cardsBox, this.loadedAt, t, this.locale());
      this.frame.dataset.stale = String(this.loadedAt);
      this.setState('error');
      this.emit('bitlens-error', { error: e, message: e.message || String(e) });
      return;
    }
    const noCard = !Object.keys(this.bodies).length;
    this.status.textContent = noCard ? failedText(e, t) : t.snapshotFailed;
    // Errors stay in the cards (issue 8); with the file option offered above when unreachable.
    for (const [c, b] of Object.entries(this.bodies)) b.replaceChildren(errorBox(c, e, t, t.snapshotFailed));
    if (this.engagement) this.engagement.section.hidden = true;
    this.loaded = false;
    this.setState('error');
    this.emit('bitlens-error', { error: e, message: e.message || String(e) });
  }

  /** After a settings change in offline mode: the engine holds the whole file; redraw. */
  async refreshOffline() {
    const seq = this.loader.bump();
    try {
      this.loaded = true;
      await this.discover();
      await this.render();
      this.placeKeyBrowser();
      if (this.loader.current(seq)) this.setState('ready');
    } catch (e) {
      if (!this.loader.current(seq)) return;
      for (const [c, b] of Object.entries(this.bodies)) b.replaceChildren(errorBox(c, e, this.t, this.t.snapshotFailed));
      this.setState('error');
    }
  }

  /** Draws the facts bar (www/facts.js) from `this.view`, the engine's info(). */
  showFacts() {
    if (!this.view) return;
    this.facts.show(this.view, {
      t: this.t,
      fmt: this.fmt,
      profiles: this.profileList || [],
      writerName: this.writerName,
      // An override in force (an unknown name in the URL is reported and not used).
      forced: Boolean(this.s.compat) && !this.paramBox.querySelector('[data-param=compat]'),
    });
  }

  /** The profile override (`''`: the writer's) from the select: applied, mirrored, redrawn. */
  async setCompat(name) {
    this.s.compat = name;
    this.changed();
    await this.applyCompat();
    await this.discover();
    await this.render();
  }

  /** Applies `s.compat` to the engine and refreshes the facts and the key browser. */
  async applyCompat() {
    const eng = this.eng;
    if (!eng) return;
    await this.trySetCompat(eng);
    this.view = await eng.call('info');
    this.showFacts();
    await this.keyBrowser.refresh();
  }

  /**
   * `setCompat(s.compat)` on `eng`; an unknown profile name is reported as a bad parameter
   * (the engine keeps the writer's profile), never a failed load.
   */
  async trySetCompat(eng) {
    this.paramBox.querySelector('[data-param=compat]')?.remove();
    try {
      await eng.call('setCompat', this.s.compat || null);
    } catch (e) {
      await eng.call('setCompat', null);
      this.paramBox.hidden = false;
      this.paramBox.append(el('p', { 'data-testid': 'param-error-compat', 'data-param': 'compat' }, this.t.badParam(PARAMS.compat, this.s.compat, e.message || String(e))));
    }
    this.paramBox.hidden = !this.paramBox.childElementCount;
  }

  /** Switches the cards and the key browser to database `db`. */
  async selectDb(db) {
    const eng = this.eng;
    if (!eng) return;
    const seq = this.loader.bump();
    try {
      await this.keyBrowser.idle();
      await eng.call('select', db);
      if (!this.loader.current(seq)) return;
      this.view = await eng.call('info');
      this.showFacts();
      await this.discover();
      await this.render();
      this.placeKeyBrowser();
      // Online the API lists the keys of the database selected: a source for it.
      const api = this.apiKeys();
      if (api) await this.keyBrowser.setSource(this.browserSource(), api);
      else await this.keyBrowser.refresh();
      this.emit('bitlens-db', { db });
    } catch (e) {
      if (!this.loader.current(seq)) return;
      this.status.textContent = `${this.t.snapshotFailed}: ${e.message || e}`;
    }
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
    if (this.loaded && this.view && String(before.compat) !== String(this.s.compat) && !refetch) {
      return this.applyCompat().then(async () => {
        await this.discover();
        await this.render();
        this.setState(state);
      });
    }
    if (this.offline && this.eng && String(before.api) === String(this.s.api)) {
      if (refetch) return this.refreshOffline();
    } else if (refetch || !this.loaded) return this.load(this.snapshotBytes || undefined);
    return (async () => {
      await this.discover();
      await this.render();
      this.setState(state);
    })();
  }

  setState(state) {
    this.frame.dataset.state = state;
  }

  /**
   * Loads a snapshot — `bytes` (an RDB file) when given, else `/api/snapshot` for the
   * configured keys, downloaded and decoded in the engine's worker — and draws the cards.
   */
  async load(bytes) {
    // Bytes handed over directly (offline use) are kept for reloads after a settings change.
    this.snapshotBytes = bytes || null;
    const t = this.t;
    // What is shown stays until new numbers arrive (marked stale if the load fails).
    if (!this.loaded) {
      this.keyBrowser.setSource(null);
      for (const b of Object.values(this.bodies)) b.replaceChildren(t.loading);
    }
    if (bytes) {
      return this.show({
        name: null, size: bytes.length,
        decode: async (eng, onProgress, signal) => {
          return eng.load(bytes, { transfer: false, onProgress, signal, ...loadOptions(this.s) });
        },
      });
    }
    const patterns = [...new Set(this.patterns())];
    // No known card means no key pattern: never ask for a snapshot of the whole database.
    if (!patterns.length) {
      if (this.cards().includes('keys')) {
        // The key browser alone: nothing to fetch, and nothing wrong; it opens on a file.
        this.apiBox.querySelector('.notice-text').textContent = t.keysOnly;
        this.apiBox.dataset.kind = 'keys-only';
        this.apiBox.hidden = false;
        this.status.textContent = '';
        this.setState('idle');
        return undefined;
      }
      this.failed(new Error(t.noCards(this.s.cards, KNOWN_CARDS.filter((c) => c !== 'keys').join(','))), false);
      return undefined;
    }
    const url = (p) => snapshotUrl(this.s.api, p);
    return this.show({
      name: null, size: 0,
      decode: (eng, onProgress, signal) => loadAllowed(eng, url, patterns, {
        token: this.s.token || undefined, onProgress, signal, maxBytes: this.maxBytes(), ...loadOptions(this.s),
      }),
    });
  }

  /** The key templates whose keys discover() counts and dates (the overview's templates). */
  templates() {
    return [this.s.activeKey, this.s.uvKey];
  }

  /** The Redis globs of the keys the cards need. */
  patterns() {
    const p = [];
    const c = this.cards();
    if (c.includes('uv')) p.push(globFor(this.s.uvKey));
    if (c.includes('active') || c.includes('engagement')) p.push(globFor(this.s.activeKey));
    if (c.includes('nearby')) p.push(globFor(this.s.geoKey));
    if (c.includes('engagement')) p.push(...engagementPatterns(this.s));
    p.push(...userPatterns(this.s, c));
    p.push(...crowdPatterns(this.s, c));
    return p;
  }

  /**
   * Finds the latest date and the shop types present in the snapshot (through the engine).
   * `fresh`: a new snapshot is shown, so a shop type or member it lacks is reset (nearby.js).
   */
  async discover({ fresh = false, overview = null } = {}) {
    const s = this.s;
    const eng = this.eng;
    if (!eng) return;
    // How many keys each template matches (a card with none collapses to one line), and their
    // dates: the engine's overview (the load's, else asked now), never the key names.
    const templates = this.templates();
    const given = overview && overview.templates.length === templates.length
      && overview.templates.every((c, i) => c.template === templates[i]) ? overview : null;
    const counted = (given || (await eng.call('overview', null, templates))).templates;
    const counts = Object.fromEntries(counted.map((c) => [c.template, c.keys]));
    const dates = [...new Set(counted.flatMap((c) => c.dates))].filter((d) => parseDate(d));
    const geoKeys = this.bodies.nearby ? await keyNames(eng, globFor(s.geoKey)) : [];
    this.present = {
      uv: counts[s.uvKey] > 0,
      active: counts[s.activeKey] > 0,
      engagement: counts[s.activeKey] > 0,
      nearby: geoKeys.length > 0,
      ...(await this.userViews.present()),
      ...(await this.crowdViews.present()),
    };
    // The date (when none is given) is the latest date any card's keys have.
    dates.sort();
    this.latestDate = dates.length ? dates[dates.length - 1] : ymd(new Date());
    this.dates = dates;
    if (await this.nearbyView.setTypes(geoKeys, { fresh, eng })) this.changed();
  }

  /** The chosen date (UTC Date). */
  date() {
    return parseDate(this.s.date) || parseDate(this.latestDate) || new Date();
  }

  /** Draws every card from the engine; resolves once all are drawn. */
  async render() {
    if (!this.loaded || !this.eng) return;
    const eng = this.eng;
    const date = this.date();
    this.dateInput.value = isoDate(date);
    if (this.dates && this.dates.length) {
      this.dateInput.min = isoDate(parseDate(this.dates[0]));
      this.dateInput.max = isoDate(parseDate(this.dates[this.dates.length - 1]));
    }
    const t = this.t;
    // The page's wasm module draws the charts and the map (from the engine's numbers).
    if (this.engagement || this.bodies.nearby) await initWasm();
    // The metric cards are computed first and drawn together (one date on screen at a time).
    const settle = (f) => f().then((v) => () => v, (e) => () => { throw e; });
    const refused = this.refusedCards();
    const here = (c) => this.bodies[c] && this.isPresent(c) && !refused.has(c);
    for (const c of Object.keys(this.bodies)) this.collapse(c, !refused.has(c) && !this.isPresent(c));
    for (const [c, pats] of refused) {
      // Only this card fails: its patterns are not in the API's export allow-list.
      const err = new Error(`${this.refused.refusedMessage} (${pats.join(', ')})`);
      this.bodies[c].replaceChildren(errorBox(c, err, t, t.refusedCard(pats.join(', '))));
      this.bodies[c].closest('[data-card]').dataset.refused = pats.join(',');
    }
    const [uv, active, engagement] = await Promise.all([
      here('uv') ? settle(() => computeUv(eng, this.s, date, t)) : null,
      here('active') ? settle(() => computeActive(eng, this.s, date, t)) : null,
      here('engagement') ? settle(() => computeEngagement(eng, this.s, date, t)) : null,
    ]);
    const jobs = [];
    if (uv) jobs.push(drawMetricCard(this.bodies.uv, 'uv', uv, this.fmt, t));
    if (active) jobs.push(drawMetricCard(this.bodies.active, 'active', active, this.fmt, t));
    if (engagement) jobs.push(drawEngagementCard(this.bodies.engagement, engagement, this.fmt, t));
    if (this.engagement && this.isPresent('engagement') && !refused.has('engagement')) {
      this.engagement.section.hidden = false;
      jobs.push(this.engagement.draw(eng, this.s, date));
    }
    jobs.push(this.nearbyView.render());
    jobs.push(this.userViews.render());
    jobs.push(this.crowdViews.render());
    await Promise.all(jobs);
  }

  /**
   * The cards whose key patterns the API's allow-list refused (the last load's `refused`), as
   * Map card → its refused patterns.
   */
  refusedCards() {
    const out = new Map();
    const refused = (this.refused && this.refused.refused) || [];
    if (!refused.length) return out;
    const s = this.s;
    const of = {
      uv: [globFor(s.uvKey)], active: [globFor(s.activeKey)], nearby: [globFor(s.geoKey)],
      engagement: [globFor(s.activeKey), ...engagementPatterns(s)],
      ...Object.fromEntries([...USER_CARDS, ...CROWD_CARDS].map((c) => [c, [...userPatterns(s, [c]), ...crowdPatterns(s, [c])]])),
    };
    for (const c of Object.keys(this.bodies)) {
      const pats = (of[c] || []).filter((p) => refused.includes(p));
      if (pats.length) out.set(c, pats);
    }
    return out;
  }

  /** Whether the snapshot (its selected database) holds any key of card `c` (true until known). */
  isPresent(c) {
    return !this.present || this.present[c] !== false;
  }

  /** The key glob card `c` reads (shown in its collapsed line). */
  cardGlob(c) {
    const s = this.s;
    if (c === 'user' || c === 'signins') return this.userViews.glob(c);
    if (c === 'crowds') return String(s.tagKey);
    if (c === 'offsets') return String(s.offsetKey);
    return globFor({ uv: s.uvKey, active: s.activeKey, engagement: s.activeKey, nearby: s.geoKey }[c]);
  }

  /**
   * Collapses card `c` to one line ("no `uv:page:index:*` keys in this snapshot · settings")
   * when `absent`, or restores it (its body is redrawn by render).
   */
  collapse(c, absent) {
    const body = this.bodies[c];
    const card = body && body.closest('[data-card]');
    if (!card) return;
    if (!absent) {
      if ('absent' in card.dataset) {
        delete card.dataset.absent;
        body.replaceChildren(this.t.loading);
      }
      return;
    }
    card.dataset.absent = '';
    const t = this.t;
    const title = card.querySelector('h2')?.textContent || c;
    const settings = el('a', {
      href: '#', class: 'absent-settings', 'data-testid': `${c}-absent-settings`,
      onclick: (e) => {
        e.preventDefault();
        // The card's own settings when it has some (www/crowds.js), else the panel's.
        const d = card.querySelector('details.card-settings') || this.frame.querySelector('details.settings');
        if (d) {
          d.open = true;
          d.scrollIntoView({ block: 'nearest' });
        }
      },
    }, t.settings);
    body.replaceChildren(el('p', { class: 'absent', 'data-testid': `${c}-absent`, 'data-pattern': this.cardGlob(c) },
      el('strong', {}, title), ' · ', ...t.noCardKeys(el('code', {}, this.cardGlob(c))), ' · ', settings));
    if (c === 'engagement' && this.engagement) this.engagement.section.hidden = true;
  }

  /**
   * Puts the key browser first (before the cards, scrolled into view) when the opened file
   * holds no key of any card; else after the cards. `scroll`: scroll it into view then.
   */
  placeKeyBrowser(scroll = false) {
    const kb = this.keyBrowser && this.keyBrowser.section;
    if (!kb || !this.cardsBox) return;
    const first = Boolean(this.offline && this.present && Object.keys(this.bodies).every((c) => !this.isPresent(c)));
    this.frame.dataset.view = first ? 'keys' : 'cards';
    if (first) {
      this.cardsBox.before(kb);
      if (scroll) kb.scrollIntoView({ block: 'start' });
    } else if (kb.nextSibling) this.frame.append(kb);
  }
}

/**
 * The writer of a snapshot as a person names it (`Valkey 9.1.2`, `Redis 7.4.1`), from
 * snapshotInfo's `writer`; null when unknown (the profile's own name is shown then).
 */
/**
 * The status line of a failed load: the words for the engine error's `code` (t.errorWords;
 * chosen by code, never by the message's text), then the message itself, shortened.
 */
function failedText(e, t) {
  const msg = shortName((e && e.message) || String(e), 600);
  const words = e && typeof e.code === 'string' && Object.hasOwn(t.errorWords, e.code) ? t.errorWords[e.code] : '';
  return words ? `${t.snapshotFailed}: ${words}: ${msg}` : `${t.snapshotFailed}: ${msg}`;
}

function writerName(writer) {
  if (!writer) return null;
  const ver = writer.valkey_ver || writer.redis_ver;
  return ver ? `${writer.server} ${ver}` : null;
}

export { PAGE_SIZE };

