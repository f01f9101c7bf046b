// The panel's one load controller: every snapshot the panel shows (the API's /api/snapshot,
// an opened RDB file, DUMP / raw files, bytes handed to the element) is decoded by a fresh
// promise-client engine (engine-client.js: a Web Worker unless worker=false) through one
// progress line (bytes received, then bytes decoded) and one Cancel button. The page's thread
// never decodes: the API snapshot is downloaded and decoded inside the worker (loadUrl).
//
// A load that fails or is cancelled leaves the engine the panel showed untouched (its worker
// keeps running); a load that succeeds hands its engine over and the previous one is stopped.

import { createEngine } from './engine-client.js';
import { formatBytes } from './util.js';

/** The DOMException a cancelled load rejects with. */
export function abortError() {
  return new DOMException('The load was cancelled', 'AbortError');
}

export class LoadController {
  /**
   * @param {{progress: HTMLProgressElement, status: Element, cancel: HTMLButtonElement,
   *   t: object, worker: () => boolean}} ui the progress bar, status line and Cancel button;
   *   `t` the label table; `worker()` whether engines run in a Web Worker (setting `worker`).
   */
  constructor(ui) {
    this.ui = ui;
    this.seq = 0;
    this.abort = null;
    ui.cancel.onclick = () => this.cancel();
    ui.cancel.hidden = true;
  }

  /** Points the controller at new UI elements (the panel rebuilt its frame). */
  attach(ui) {
    const busy = Boolean(this.abort);
    this.ui = ui;
    ui.cancel.onclick = () => this.cancel();
    ui.cancel.hidden = !busy;
  }

  /**
   * An engine started ahead of the next load, for asking it what files are (snapshotInfo)
   * before one is loaded; the next `run` decodes into it rather than starting another. One
   * at a time: repeated calls give the same engine until a load takes it.
   */
  spare() {
    if (!this.spareEngine) this.spareEngine = createEngine({ worker: this.ui.worker() });
    return this.spareEngine;
  }

  /** Cancels the load in progress (its engine is stopped). */
  cancel() {
    if (this.abort) this.abort.abort();
  }

  /** True while `seq` is the newest load (an older one's results are dropped). */
  current(seq) {
    return seq === this.seq;
  }

  /** A new sequence number that makes every load in progress stale (a db switch, say). */
  bump() {
    return ++this.seq;
  }

  /**
   * Runs one load: `decode(eng, onProgress, signal)` fills the fresh engine `eng` and resolves
   * with what it returns; `onProgress(done, total, phase)` with phase 'download' (received)
   * or 'decode' (decoded). Resolves `{eng, value, seq}`; rejects with an AbortError when
   * cancelled (or superseded by a newer load), else with the load's error. `name` labels the
   * status line.
   */
  async run(name, size, decode) {
    const { t } = this.ui;
    if (this.abort) this.abort.abort();
    const seq = ++this.seq;
    const ctl = new AbortController();
    this.abort = ctl;
    this.ui.cancel.hidden = false;
    this.ui.progress.max = Math.max(1, size || 1);
    this.ui.progress.value = 0;
    this.ui.status.textContent = name ? t.decoding(name) : t.loading;
    let eng = null;
    // `decoded`: bytes decoded so far while downloading (loadUrl decodes as the bytes arrive).
    const onProgress = (done, total, phase = 'decode', decoded = undefined) => {
      if (seq !== this.seq) return;
      const p = this.ui.progress;
      if (total) {
        p.max = Math.max(1, total);
        p.value = done;
      } else {
        p.removeAttribute('value');
      }
      const bytes = t.received(formatBytes(done), total ? formatBytes(total) : null);
      const also = decoded !== undefined && t.decodedSoFar ? t.decodedSoFar(formatBytes(decoded)) : '';
      this.ui.status.textContent = phase === 'download'
        ? `${t.downloading ?? t.loading} ${bytes}${also}`
        : `${name ? t.decoding(name) : t.decodingSnapshot ?? t.loading} ${bytes}`;
      this.ui.status.dataset.phase = phase;
      this.ui.status.dataset.done = String(done);
      if (decoded !== undefined) this.ui.status.dataset.decoded = String(decoded);
      else delete this.ui.status.dataset.decoded;
    };
    const finish = () => {
      if (this.abort === ctl) this.abort = null;
      if (!this.abort) this.ui.cancel.hidden = true;
    };
    // Marks for the page's performance timeline (the long-task e2e test reads them).
    performance.mark('bitlens-load-start');
    try {
      this.ui.status.textContent = t.loadingWasm;
      const spare = this.spareEngine;
      this.spareEngine = null;
      eng = await (spare || createEngine({ worker: this.ui.worker() }));
      this.ui.status.textContent = name ? t.decoding(name) : t.loading;
      const value = await decode(eng, onProgress, ctl.signal);
      if (ctl.signal.aborted || seq !== this.seq) throw abortError();
      finish();
      this.ui.progress.max = 1;
      this.ui.progress.value = 1;
      performance.mark('bitlens-load-end');
      return { eng, value, seq };
    } catch (e) {
      if (eng) eng.terminate();
      finish();
      if (seq === this.seq) {
        this.ui.progress.max = 1;
        this.ui.progress.value = 0;
      }
      if (ctl.signal.aborted || seq !== this.seq) throw abortError();
      throw e;
    }
  }
}

/**
 * Loads the API snapshot of `patterns` into `eng` (loadUrl; `url(patterns)` builds the URL).
 * When the export allow-list refuses some patterns (a 403 whose JSON lists them in `refused`),
 * asks again for the others alone, so that one refused pattern fails only the cards reading
 * it. Resolves with loadUrl's value plus `refused` (the patterns refused, [] when none);
 * rejects with the 403 when every pattern is refused.
 */
export async function loadAllowed(eng, url, patterns, opts) {
  try {
    return { ...(await eng.loadUrl(url(patterns), opts)), refused: [] };
  } catch (e) {
    const refused = e && e.status === 403 && Array.isArray(e.refused) ? e.refused : null;
    const rest = refused ? patterns.filter((p) => !refused.includes(p)) : [];
    if (!refused || !rest.length || rest.length === patterns.length) throw e;
    const value = await eng.loadUrl(url(rest), opts);
    return { ...value, refused, refusedMessage: e.serverMessage || e.message };
  }
}

/**
 * The banner text for a failed API load, naming what failed from the error's `component`
 * (snapshot.js): Redis behind the API, the API itself, its limits, the network, this browser;
 * with the server's own message. `null` for a refusal (token, allow-list: t.apiRefused).
 */
export function failureText(e, t, api) {
  // (A long URL is shown cut, `… (N characters)`: snapshot.js shownUrl.)
  const msg = e.serverMessage || String(e.message || e).replace(/^(GET|POST) \S+?(… \([\d,]+ characters\))?: (HTTP \d+: )?/, '');
  switch (e.component) {
    case 'redis':
      return t.failedRedis(api, e.status, msg);
    case 'limit':
      return t.failedLimit(api, msg);
    case 'network':
      return e.status ? t.failedNetwork(api, msg) : `${t.failedNetwork(api, msg)} ${t.apiUnreachable(api)}`;
    case 'browser':
      return t.failedBrowser(msg);
    case 'token':
    case 'allow-list':
      return null;
    case undefined:
    case null:
    case '':
      // Not bitlens serve's answer: nothing there (404, no answer), else the status it gave.
      return e.status && e.status !== 404 ? t.failedApi(api, e.status, msg) : t.apiUnreachable(api);
    default:
      return t.failedApi(api, e.status, msg);
  }
}

/**
 * Marks the cards in `box` (their `[data-card]` sections) stale: each keeps the numbers it
 * shows and gets a line "Stale: as of 14:02:11" (`at`: ms of the last load that succeeded,
 * shown in `locale`'s time); `at` null removes the marks.
 */
export function markStale(box, at, t, locale) {
  if (!box) return;
  for (const card of box.querySelectorAll('[data-card]')) {
    card.querySelector(':scope > .stale-note')?.remove();
    if (at === null || at === undefined || 'absent' in card.dataset) {
      delete card.dataset.stale;
      continue;
    }
    const time = new Date(at).toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
    card.dataset.stale = String(at);
    const note = document.createElement('p');
    note.className = 'stale-note warn';
    note.dataset.testid = 'stale-note';
    note.setAttribute('data-testid', 'stale-note');
    note.dataset.time = time;
    note.textContent = t.staleAsOf(time);
    card.querySelector(':scope > h2')?.after(note);
  }
}
