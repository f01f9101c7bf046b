// Opening files in the panel: what the user chose, dropped, or handed to the widget. What each
// file is comes from its content (the core's snapshotInfo), never its name: an RDB file is
// decoded as a snapshot, several RDB files as one keyspace (a cluster's shards, a progress
// bar per file), DUMP payloads and raw GET bytes as one key each (named after the file; the
// user corrects names and formats first), a file too large for this browser is refused with
// a key-pattern filter offered. Every load then goes through the panel's one `show` (the load
// controller, the facts, the cards).

import { identifyFile, keyFromFileName } from './offline.js';
import { abortError } from './load.js';
import { loadOptions } from './settings.js';
import { tooLargeError } from './snapshot.js';
import { el } from './util.js';

/** The file-opening flows of one panel (`panel`: its labels, status line, boxes and `show`). */
export class FileOpener {
  /** @param {import('./panel.js').Panel} panel */
  constructor(panel) {
    this.panel = panel;
  }

  /**
   * Opens files chosen or dropped by the user. What each file is comes from its content, as the
   * core tells it (snapshotInfo), never from its name: an RDB file (Redis or Valkey) is decoded
   * as a snapshot; DUMP payloads and raw GET bytes are one key each, named after the file (the
   * user can correct the names and formats before loading), loaded together with the RDB file
   * when one came with them. Empty files and RDB files bitlens cannot read are named with why.
   */
  async openFiles(files) {
    const t = this.panel.t;
    let infos;
    try {
      const info = await this.panel.snapshotInfo();
      infos = await Promise.all(files.map((f) => identifyFile(f, info)));
    } catch (e) {
      this.panel.status.textContent = `${t.snapshotFailed}: ${e.message || e}`;
      return undefined;
    }
    const notes = [];
    const rdbs = [];
    const others = [];
    files.forEach((file, i) => {
      const info = infos[i];
      if (info.kind === 'empty') notes.push(t.fileEmpty(file.name));
      else if (info.kind === 'unsupported-rdb') notes.push(`${file.name}: ${info.error || info.description}`);
      else if (info.kind === 'rdb') rdbs.push({ file, info });
      else others.push({ file, info });
    });
    // Several RDB files alone are one keyspace (a cluster's shards); with DUMP / raw files,
    // those load into the first.
    if (rdbs.length > 1 && others.length) notes.push(t.oneRdbOnly(rdbs[0].file.name, rdbs.slice(1).map((r) => r.file.name).join(', ')));
    this.showNotes(notes);
    if (rdbs.length > 1 && !others.length) return this.loadFiles(rdbs);
    const rdb = rdbs[0] || null;
    if (!rdb && !others.length) {
      // Nothing loadable: say why in the status line, keep what the panel showed.
      this.panel.status.textContent = notes.join(' ');
      this.panel.frame.dataset.offline = 'error';
      return undefined;
    }
    if (rdb && !others.length) return this.loadFile(rdb.file, rdb.info);
    // DUMP / raw files: a row per file with its key name and format, then Load.
    const rows = others.map(({ file, info }) => {
      const key = el('input', { type: 'text', value: keyFromFileName(file.name), spellcheck: 'false', 'data-testid': 'dump-key', 'aria-label': t.dumpKey(file.name), required: true });
      const kind = el('select', { 'data-testid': 'dump-kind', 'aria-label': t.dumpKind(file.name) },
        el('option', { value: 'dump' }, t.kindDump), el('option', { value: 'string' }, t.kindString));
      kind.value = info.kind === 'dump' ? 'dump' : 'string';
      return {
        file, key, kind,
        row: el('li', { 'data-kind': info.kind }, el('code', {}, file.name), ' = ', key, ' ', kind, ' ',
          el('span', { class: 'muted', 'data-testid': 'dump-what' }, info.description)),
      };
    });
    const form = el('form', {
      onsubmit: (e) => {
        e.preventDefault();
        this.panel.dumpBox.hidden = true;
        this.loadDumps(rows.map((r) => ({ file: r.file, key: r.key.value.trim(), kind: r.kind.value })), rdb);
      },
    },
    el('h2', {}, t.dumpTitle), el('p', { class: 'note' }, t.dumpHint),
    rdb ? el('p', { class: 'note', 'data-testid': 'dump-with-rdb' }, t.dumpsWithRdb(rdb.file.name)) : null,
    el('ol', {}, rows.map((r) => r.row)),
    el('button', { type: 'submit', 'data-testid': 'dump-load' }, t.loadFiles), ' ',
    el('button', { type: 'button', onclick: () => { this.panel.dumpBox.hidden = true; } }, t.cancel));
    this.panel.dumpBox.replaceChildren(form);
    this.panel.dumpBox.hidden = false;
    rows[0].key.focus();
    rows[0].key.select();
    return undefined;
  }

  /** Shows messages about the files being opened (empty, unreadable, not loaded), or hides them. */
  showNotes(notes) {
    this.panel.fileNotes.hidden = !notes.length;
    this.panel.fileNotes.replaceChildren(...notes.map((n) => el('p', { 'data-testid': 'file-note' }, n)));
  }

  /**
   * Decodes an RDB file (File/Blob) locally and shows it. `info` is what snapshotInfo said of
   * it (the writer shown in the profile line); without it the file's head is read for it.
   */
  async loadFile(file, info, patterns = null) {
    // A file larger than this browser can hold is refused up front (never a crashed tab),
    // with the patterns filter offered: only the matching keys are then kept.
    if (file.size > this.panel.maxBytes() && !(patterns && patterns.length)) {
      this.offerFilter(file, info, tooLargeError(file.name, file.size, this.panel.maxBytes()));
      return undefined;
    }
    if (!info) info = await identifyFile(file, await this.panel.snapshotInfo());
    return this.panel.show({
      name: file.name || 'snapshot.rdb', size: file.size, offline: true, writer: info.writer,
      decode: (eng, onProgress, signal) => eng.loadRdb(file, { onProgress, signal, ...loadOptions(this.panel.s), ...(patterns ? { patterns } : {}) }),
    });
  }

  /**
   * Decodes several RDB files ([{file, info}]) as one keyspace (a cluster's shards: the engine's
   * loadRdbs, a key in two files refused naming both), with a progress bar per file; the memory
   * view then adds the per-file table. Replies follow the first file's writer.
   */
  async loadFiles(rdbs) {
    const t = this.panel.t;
    const size = rdbs.reduce((a, r) => a + r.file.size, 0);
    if (size > this.panel.maxBytes()) {
      this.panel.failed(tooLargeError(rdbs.map((r) => r.file.name).join(', '), size, this.panel.maxBytes()), true);
      return undefined;
    }
    const names = rdbs.map((r) => r.file.name || 'snapshot.rdb');
    const bars = names.map((n) => el('progress', { max: 1, value: 0, 'data-testid': 'file-progress', 'data-name': n, 'aria-label': n }));
    const kept = [...this.panel.fileNotes.children];
    this.panel.fileNotes.hidden = false;
    this.panel.fileNotes.append(...bars.map((b, i) => el('p', { class: 'file-progress' }, el('code', {}, names[i]), ' ', b)));
    const done = new Array(rdbs.length).fill(0);
    try {
      return await this.panel.show({
        name: t.filesName(rdbs.length, names[0]), size, offline: true, writer: rdbs[0].info.writer,
        decode: (eng, onProgress, signal) => eng.loadRdbs(rdbs.map((r) => r.file), {
          names, signal, ...loadOptions(this.panel.s),
          onProgress: (d, total, i) => {
            if (i === undefined || !bars[i]) return;
            bars[i].max = Math.max(1, total);
            bars[i].value = d;
            done[i] = d;
            onProgress(done.reduce((a, x) => a + x, 0), size);
          },
        }),
      });
    } finally {
      this.panel.fileNotes.replaceChildren(...kept);
      this.panel.fileNotes.hidden = !kept.length;
    }
  }

  /**
   * Loads `sources` (the widget's `snapshot = [...]`: Blobs/Files, Uint8Arrays, ArrayBuffers and
   * URLs, fetched here) as one keyspace, as several opened `.rdb` files are; one source is one
   * file. A source that is not an RDB file, or a URL that does not answer, fails the load,
   * named.
   */
  async loadSources(sources) {
    let files;
    try {
      files = await Promise.all(sources.map(async (s, i) => {
        if (typeof s === 'string' || s instanceof URL) {
          const url = new URL(String(s), document.baseURI);
          const res = await fetch(url, this.panel.s.token ? { headers: { authorization: `Bearer ${this.panel.s.token}` } } : {});
          if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
          return new File([await res.blob()], decodeURIComponent(url.pathname.split('/').pop() || `file ${i + 1}`));
        }
        if (s instanceof File) return s;
        // Blob, ArrayBuffer or a typed array as they are; a plain array of numbers as bytes.
        return new File([s instanceof Blob || s instanceof ArrayBuffer || ArrayBuffer.isView(s) ? s : new Uint8Array(s)], `file ${i + 1}`);
      }));
      const info = await this.panel.snapshotInfo();
      const infos = await Promise.all(files.map((f) => identifyFile(f, info)));
      const bad = infos.findIndex((x) => x.kind !== 'rdb');
      if (bad >= 0) throw new Error(`${files[bad].name}: ${infos[bad].error || infos[bad].description || infos[bad].kind}`);
      const rdbs = files.map((file, i) => ({ file, info: infos[i] }));
      return rdbs.length === 1 ? this.loadFile(rdbs[0].file, rdbs[0].info) : this.loadFiles(rdbs);
    } catch (e) {
      this.panel.failed(e, true);
      return undefined;
    }
  }

  /** A file too large to hold: says so (the panel keeps what it shows) and offers a filter. */
  offerFilter(file, info, err) {
    const t = this.panel.t;
    const input = el('input', { type: 'text', 'data-testid': 'filter-patterns', value: [...new Set(this.panel.patterns())].join(','), spellcheck: 'false', 'aria-label': t.filterTitle });
    const form = el('form', {
      'data-testid': 'too-large',
      onsubmit: (e) => {
        e.preventDefault();
        const p = input.value.split(',').map((x) => x.trim()).filter(Boolean);
        if (!p.length) return;
        this.panel.dumpBox.hidden = true;
        this.loadFile(file, info, p);
      },
    }, el('p', { class: 'error', role: 'alert', 'data-testid': 'too-large-text' }, t.failedBrowser(err.message)),
    el('label', {}, el('span', {}, t.filterTitle), ' ', input), ' ',
    el('button', { type: 'submit', 'data-testid': 'filter-load' }, t.filterLoad));
    this.panel.dumpBox.replaceChildren(form);
    this.panel.dumpBox.hidden = false;
    this.panel.status.textContent = `${t.snapshotFailed}: ${err.message}`;
    this.panel.frame.dataset.offline = 'error';
    this.panel.emit('bitlens-error', { error: err, message: err.message });
  }

  /**
   * Loads DUMP payloads / raw GET bytes, one key per file: [{file, key, kind}]; with `rdb`
   * ({file, info}), into database 0 of that RDB file, decoded first (a key of the file with
   * the same name is replaced by the payload).
   */
  loadDumps(entries, rdb = null) {
    const files = rdb ? [rdb.file, ...entries.map((e) => e.file)] : entries.map((e) => e.file);
    const total = files.reduce((n, f) => n + f.size, 0);
    const name = files.length === 1 ? files[0].name : this.panel.t.nFiles(files.length);
    return this.panel.show({
      name, size: total, offline: true, writer: rdb ? rdb.info.writer : null,
      decode: async (eng, onProgress, signal) => {
        let done = 0;
        onProgress(0, total);
        if (rdb) {
          await eng.loadRdb(rdb.file, { signal, onProgress: (d) => onProgress(d, total), ...loadOptions(this.panel.s) });
          done = rdb.file.size;
        }
        for (const { file, key, kind } of entries) {
          if (signal.aborted) throw abortError();
          if (!key) throw new Error(`${file.name}: no key name`);
          const bytes = new Uint8Array(await file.arrayBuffer());
          try {
            if (kind === 'string') await eng.loadString(key, bytes);
            else await eng.loadDump(key, bytes, loadOptions(this.panel.s));
          } catch (e) {
            throw new Error(`${file.name} (key ${key}): ${e.message || e}`);
          }
          done += file.size;
          onProgress(done, total);
        }
        return entries.length;
      },
    });
  }
}
