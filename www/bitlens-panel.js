// <bitlens-panel>: the operations panel as a custom element, for embedding in any page.
//
//   <script type="module" src="http://bitlens-host:8080/www/bitlens-panel.js"></script>
//   <bitlens-panel api="http://bitlens-host:8080/api" date="2024-05-20" cards="uv,active"
//                  uv-key="uv:page:index:{date}" lang="zh" theme="dark"></bitlens-panel>
//
// Attributes (and the same-named camelCase properties): api, date, uv-key, active-key,
// geo-key, type, city, lon, lat, radius, unit, cards, lang, theme, token (bearer token for
// `bitlens serve --token`). Style is isolated in a
// shadow root. Events: `bitlens-loaded` ({keys, bytes, db, databases}) and `bitlens-error` ({message}).
// `element.snapshot = uint8Array` loads an RDB file directly (no API needed); a File or Blob
// is decoded in a Web Worker with a progress bar (attribute worker="false" keeps it in the
// page); `element.open(files)` opens files as the panel's "Open snapshot…" button does.

import { Panel } from './panel.js';
import { DEFAULTS, PARAMS } from './settings.js';

const CSS_URL = new URL('./panel.css', import.meta.url).href;
const ATTRS = Object.values(PARAMS);
const KEY_OF = Object.fromEntries(Object.entries(PARAMS).map(([k, a]) => [a, k]));

export class BitlensPanel extends HTMLElement {
  static get observedAttributes() {
    return ATTRS;
  }

  constructor() {
    super();
    this.attachShadow({ mode: 'open' });
    this._snapshot = null;
    this._panel = null;
    this._pending = false;
  }

  /** The current settings, from the attributes over the defaults. */
  settings() {
    const s = { ...DEFAULTS };
    for (const a of ATTRS) {
      const v = this.getAttribute(a);
      if (v !== null && v !== '') s[KEY_OF[a]] = v;
    }
    if (!s.lang) s.lang = this.closest('[lang]')?.getAttribute('lang') || document.documentElement.lang || navigator.language;
    return s;
  }

  connectedCallback() {
    if (this._panel) return;
    const style = document.createElement('link');
    style.rel = 'stylesheet';
    style.href = CSS_URL;
    const host = document.createElement('style');
    host.textContent = ':host { display: block; } :host([hidden]) { display: none; }';
    const root = document.createElement('div');
    this.shadowRoot.replaceChildren(style, host, root);
    this._panel = new Panel(root, this.settings(), {
      host: this,
      onSettings: (s) => {
        // Mirror changes made inside the panel into the attributes, without a redraw.
        this._silent = true;
        for (const [k, a] of Object.entries(PARAMS)) {
          if (s[k] !== undefined && s[k] !== '' && String(s[k]) !== String(DEFAULTS[k])) this.setAttribute(a, s[k]);
        }
        this._silent = false;
      },
    });
    if (this._files) this._panel.opener.loadSources(this._files);
    else if (this._file) this._panel.opener.loadFile(this._file);
    else this._panel.load(this._snapshot || undefined);
  }

  attributeChangedCallback() {
    if (!this._panel || this._silent || this._pending) return;
    this._pending = true;
    queueMicrotask(() => {
      this._pending = false;
      this._panel.update(this.settings());
    });
  }

  /**
   * An RDB file (Uint8Array, ArrayBuffer, Blob or File) to show instead of fetching from the
   * API; or an array of them and of URLs (a cluster's shards), loaded as one keyspace.
   */
  get snapshot() {
    return this._files || this._snapshot;
  }

  set snapshot(bytes) {
    this._files = null;
    if (Array.isArray(bytes)) {
      this._snapshot = null;
      this._file = null;
      this._files = [...bytes];
      if (this._panel) this._panel.opener.loadSources(this._files);
      return;
    }
    if (bytes instanceof Blob) {
      // A File / Blob is decoded like an opened file: in a Web Worker, with progress.
      this._snapshot = null;
      this._file = bytes;
      if (this._panel) this._panel.opener.loadFile(bytes);
      return;
    }
    this._file = null;
    this._snapshot = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    if (this._panel) this._panel.load(this._snapshot);
  }

  /** Opens files as the "Open snapshot…" button does (dump.rdb files, a cluster's shards as one, or DUMP files). */
  open(files) {
    return this._panel ? this._panel.opener.openFiles([...files]) : Promise.resolve();
  }

  /** The wasm engine of this panel (for custom queries), once loaded. */
  get engine() {
    return this._panel ? this._panel.engine : null;
  }

  /** Refetches the snapshot from the API. */
  reload() {
    this._snapshot = null;
    this._file = null;
    this._files = null;
    return this._panel ? this._panel.load() : Promise.resolve();
  }
}

// JS properties for every attribute: el.uvKey = '...' is el.setAttribute('uv-key', '...').
for (const [k, a] of Object.entries(PARAMS)) {
  Object.defineProperty(BitlensPanel.prototype, k, {
    get() {
      return this.getAttribute(a) ?? DEFAULTS[k];
    },
    set(v) {
      if (v === null || v === undefined) this.removeAttribute(a);
      else this.setAttribute(a, String(v));
    },
  });
}

if (!customElements.get('bitlens-panel')) customElements.define('bitlens-panel', BitlensPanel);
