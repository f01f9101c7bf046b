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
    const onProgress = (done, total, phase = 'decode') => {
      if (seq !== this.seq) return;
      const p = this.ui.progress;
      if (total) {
        p.max = Math.max(1, total);
        p.value = done;
      } else {
        p.removeAttribute('value');
      }
      const bytes = t.received(formatBytes(done), total ? formatBytes(total) : null);
      this.ui.status.textContent = phase === 'download'
        ? `${t.downloading ?? t.loading} ${bytes}`
        : `${name ? t.decoding(name) : t.decodingSnapshot ?? t.loading} ${bytes}`;
      this.ui.status.dataset.phase = phase;
    };
    const finish = () => {
      if (this.abort === ctl) this.abort = null;
      if (!this.abort) this.ui.cancel.hidden = true;
    };
    // Marks for the page's performance timeline (the long-task e2e test reads them).
    performance.mark('bitlens-load-start');
    try {
      this.ui.status.textContent = t.loadingWasm;
      eng = await createEngine({ worker: this.ui.worker() });
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
