// Fetches an RDB snapshot from `bitlens serve` (GET {api}/snapshot?match=P&match=P..., or POST
// {api}/snapshot with the same parameters as a form body: `body`, for a key name no URL can
// carry), reporting progress while the bytes arrive. The panel runs it inside its engine's Web
// Worker (engine-worker.js, loadUrl); it works on a page too. Errors name the request by its
// method and URL, a long URL cut (shownUrl): never a whole 60 KB request echoed back.

/**
 * Most snapshot bytes the panel downloads and decodes (a wasm32 engine's memory stops at
 * 4 GiB, and the decoded keys need at least the snapshot's size; the download buffer is held
 * beside it until decoded). Larger snapshots are refused from their Content-Length, or once
 * that many bytes have arrived, with the `patterns` filter offered.
 */
export const MAX_SNAPSHOT_BYTES = 3 * 1024 ** 3;

/**
 * Bytes of a file's start read to say what it is and who wrote it (snapshotInfo): its header
 * and aux fields come first (64 KiB, as the engine's own head, bitlens::open::HEAD_BYTES).
 */
export const HEAD_BYTES = 64 * 1024;

/** A query-string value: a string percent-encoded as UTF-8, a Uint8Array byte by byte. */
function queryValue(v) {
  if (typeof v === 'string') return encodeURIComponent(v);
  return [...v].map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : '%' + b.toString(16).toUpperCase().padStart(2, '0'))).join('');
}

/**
 * The snapshot URL for a set of Redis glob patterns.
 * @param {string} api  API base, e.g. "/api" or "http://host:8080/api"
 * @param {(string|Uint8Array)[]} patterns (a Uint8Array: a pattern's bytes, for key names
 *   that are not UTF-8)
 * @param {number} [db] the one database to export (`db=`); without it every database the
 *   server exports (all its non-empty ones, unless `bitlens serve` was narrowed to one)
 */
export function snapshotUrl(api, patterns, db) {
  const parts = patterns.map((p) => 'match=' + queryValue(p));
  if (db !== undefined && db !== null) parts.push(`db=${Number(db)}`);
  const q = parts.join('&');
  return `${api.replace(/\/+$/, '')}/snapshot${q ? '?' + q : ''}`;
}

/**
 * The form body of a POST to `{api}/snapshot` (`bitlens serve` reads the same parameters as
 * from the query string): `match=P&match=P…&db=N`, every pattern percent-encoded byte by byte.
 * With `snapshotUrl(api, [])` as the URL: a request for a key name of any length (a GET's URL
 * holds at most 64 KB, a name of about 21 KB percent-encoded).
 */
export function snapshotForm(patterns, db) {
  const parts = patterns.map((p) => 'match=' + queryValue(p));
  if (db !== undefined && db !== null) parts.push(`db=${Number(db)}`);
  return parts.join('&');
}

/** Characters of a URL an error message shows (a longer one is cut, with its length). */
const URL_SHOWN = 200;

/**
 * `url` for an error message: whole up to 200 characters, else its start, `…` and its length
 * (`GET /api/keys?match=aaaa… (90,016 characters)`), so that no message echoes a whole URL.
 */
export function shownUrl(url) {
  const s = String(url);
  return s.length <= URL_SHOWN ? s : `${s.slice(0, URL_SHOWN)}… (${s.length.toLocaleString('en-US')} characters)`;
}

/** `METHOD url` of a request for an error message (`body`: a POST). */
function requestName(url, body) {
  return `${body === undefined || body === null ? 'GET' : 'POST'} ${shownUrl(url)}`;
}

/**
 * The Redis glob matching only `key` (its `* ? [ ] \` escaped): a string, or a Uint8Array of
 * the name's bytes (then a Uint8Array). `bitlens serve` reads such a pattern's key by name.
 */
export function exactGlob(key) {
  if (typeof key === 'string') return key.replace(/[*?[\]\\]/g, (c) => '\\' + c);
  const out = [];
  for (const b of key) {
    if ([0x2a, 0x3f, 0x5b, 0x5d, 0x5c].includes(b)) out.push(0x5c);
    out.push(b);
  }
  return Uint8Array.from(out);
}

/**
 * A key name of `/api/keys` (a string, or `{hex}` for a name that is not UTF-8) as
 * `{name, bytes}`: `name` for display (`\xff` escapes in the hex case), `bytes` what to send
 * back (the string itself, or a Uint8Array).
 */
export function keyName(k) {
  if (typeof k === 'string') return { name: k, bytes: k };
  const hex = String(k.hex || '');
  const bytes = Uint8Array.from(hex.match(/../g) || [], (h) => parseInt(h, 16));
  const name = [...bytes].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`)).join('');
  return { name, bytes };
}

/**
 * Every key of `pattern` (in database `db` when given: `&db=N`, else the server's default one)
 * through `/api/keys?match=P&cursor=C&count=N` paging, each name once
 * (a SCAN walk may give one twice), sorted by name: [{key, raw: the name's bytes, type,
 * bytes: MEMORY USAGE, ttlMs: PTTL or null without expiry}]. `onPage(rowsSoFar)` after each page. Rejects as fetchSnapshot does (an Error with
 * status, component and the server's message).
 */
export async function listKeys(api, pattern, { token, signal, count = 1000, onPage, db } = {}) {
  const base = `${api.replace(/\/+$/, '')}/keys`;
  const inDb = db === undefined || db === null ? '' : `&db=${Number(db)}`;
  const seen = new Map();
  let cursor = '0';
  for (let pages = 0; ; pages++) {
    const url = `${base}?match=${queryValue(pattern)}${inDb}&cursor=${encodeURIComponent(cursor)}&count=${count}`;
    const res = await request(url, signal, token);
    if (!res.ok) throw await httpError(url, res);
    const page = await res.json();
    for (const r of page.keys) {
      const { name, bytes } = keyName(r.key);
      if (!seen.has(name)) seen.set(name, { key: name, raw: bytes, type: r.type, bytes: r.bytes, ttlMs: r.ttlMs });
    }
    if (onPage) onPage(seen.size);
    cursor = String(page.cursor);
    if (cursor === '0') break;
    if (pages > 1e6) throw new Error(`GET ${shownUrl(base)}: the key walk does not end`);
  }
  return [...seen.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * fetch() with the bearer token (a POST of the form `body` when given); a failure to get any
 * answer is an Error naming the network.
 */
async function request(url, signal, token, body) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const post = body !== undefined && body !== null;
  if (post) headers['Content-Type'] = 'application/x-www-form-urlencoded';
  try {
    return await fetch(url, post ? { method: 'POST', body, signal, headers } : { signal, headers });
  } catch (e) {
    if (e && e.name === 'AbortError') throw e;
    const err = new Error(`${requestName(url, body)}: ${e && e.message ? e.message : e}`);
    err.component = 'network';
    throw err;
  }
}

/**
 * The Error for a non-2xx answer: `GET url: HTTP status: message`, with `status`, and from
 * `bitlens serve`'s JSON body `{error, component, refused?}` the `component` that failed
 * (redis, allow-list, token, limit, request, api) and `serverMessage`; another server's HTML
 * error page is not shown (only its status).
 */
async function httpError(url, res, reqBody) {
  let detail = '';
  let body = null;
  try {
    const text = (await res.text()).trim();
    const type = res.headers.get('Content-Type') || '';
    if (type.includes('json')) {
      body = JSON.parse(text);
      detail = String(body.error ?? text);
    } else if (!type.includes('html')) detail = text;
  } catch {
    /* no body, or not the JSON it claimed */
  }
  const err = new Error(`${requestName(url, reqBody)}: HTTP ${res.status}${detail ? ': ' + detail.slice(0, 300) : ''}`);
  err.status = res.status;
  // Only bitlens serve names a component; another server's answer (a static server's 404:
  // no API there) leaves it unnamed.
  if (body && body.component) err.component = String(body.component);
  if (detail) err.serverMessage = detail.slice(0, 300);
  if (body && Array.isArray(body.refused)) err.refused = body.refused.map((k) => keyName(k).name);
  return err;
}

/** The error for a snapshot larger than `cap` bytes (`size`: its size, when known). */
export function tooLargeError(url, size, cap, body) {
  const err = new Error(`${requestName(url, body)}: the snapshot is ${size ? `${size} bytes` : `over ${cap} bytes`}, more than this browser can hold (${cap} bytes; a wasm32 engine's memory stops at 4 GiB): load fewer keys with narrower key patterns (the patterns filter)`);
  err.component = 'browser';
  err.tooLarge = true;
  return err;
}

/**
 * Downloads the snapshot, handing each piece of the body to `onChunk` as it arrives (the
 * worker decodes it at once: engine-worker.js loadUrl). Resolves with the bytes received.
 * @param {string} url
 * @param {(chunk: Uint8Array, total: number|null) => void|Promise<void>} onChunk called with
 *   each piece of the body, in order (the piece is the reader's own buffer: copy what must be
 *   kept); the next piece is read once its promise settles (the decode workers' backpressure);
 *   an exception it throws cancels the download and rejects with it
 * @param {(received: number, total: number|null) => void} onProgress called as chunks arrive
 *   (after onChunk); `total` is the Content-Length when the server sent one (a streamed
 *   snapshot has none)
 * @param {AbortSignal} [signal]
 * @param {string} [token] sent as `Authorization: Bearer TOKEN` (for `bitlens serve --token`)
 * @param {number} [maxBytes] most bytes taken (MAX_SNAPSHOT_BYTES): a larger snapshot is
 *   refused from its Content-Length, or once that many bytes arrived (err.tooLarge)
 * @param {string} [body] a form body (snapshotForm): the request is then a POST of it
 * @returns {Promise<number>}
 */
export async function streamSnapshot(url, onChunk, onProgress, signal, token, maxBytes = MAX_SNAPSHOT_BYTES, body = undefined) {
  const started = Date.now();
  const res = await request(url, signal, token, body);
  if (!res.ok) throw await httpError(url, res, body);
  const len = Number(res.headers.get('Content-Length'));
  const total = Number.isFinite(len) && len > 0 ? len : null;
  // Refused before a byte is held: the browser could not decode it.
  if (total !== null && total > maxBytes) {
    res.body?.cancel?.().catch?.(() => {});
    throw tooLargeError(url, total, maxBytes, body);
  }
  if (!res.body || !res.body.getReader) {
    const buf = new Uint8Array(await res.arrayBuffer());
    if (buf.length > maxBytes) throw tooLargeError(url, buf.length, maxBytes, body);
    await onChunk(buf, total);
    onProgress(buf.length, total);
    return buf.length;
  }
  const reader = res.body.getReader();
  let received = 0;
  onProgress(0, total);
  for (;;) {
    let step;
    try {
      step = await reader.read();
    } catch (e) {
      if (e && e.name === 'AbortError') throw e;
      throw await cutOff(url, e, started, token, body);
    }
    const { done, value } = step;
    if (done) break;
    if (received + value.length > maxBytes) {
      reader.cancel().catch(() => {});
      throw tooLargeError(url, null, maxBytes, body);
    }
    try {
      await onChunk(value, total);
    } catch (e) {
      reader.cancel().catch(() => {});
      throw e;
    }
    received += value.length;
    onProgress(received, total);
  }
  return received;
}

/**
 * Downloads the snapshot and returns its bytes (streamSnapshot into one buffer).
 * @param {string} url
 * @param {(received: number, total: number|null) => void} onProgress called as chunks arrive;
 *   `total` is the Content-Length when the server sent one (a streamed snapshot has none)
 * @param {AbortSignal} [signal]
 * @param {string} [token] sent as `Authorization: Bearer TOKEN` (for `bitlens serve --token`)
 * @param {number} [maxBytes] most bytes taken (MAX_SNAPSHOT_BYTES): a larger snapshot is
 *   refused from its Content-Length, or once that many bytes have arrived (err.tooLarge)
 * @param {string} [body] a form body (snapshotForm): the request is then a POST of it
 * @returns {Promise<Uint8Array>}
 */
export async function fetchSnapshot(url, onProgress, signal, token, maxBytes = MAX_SNAPSHOT_BYTES, body = undefined) {
  // One buffer sized from Content-Length when the server sends one (grown by doubling
  // otherwise, or when the body is longer than announced): no list of chunks plus a copy.
  let out = null;
  let received = 0;
  await streamSnapshot(url, (value, total) => {
    try {
      if (!out) out = new Uint8Array(Math.max(total ?? 1 << 20, value.length));
      if (received + value.length > out.length) {
        const grown = new Uint8Array(Math.min(maxBytes, Math.max(out.length * 2, received + value.length)));
        grown.set(out.subarray(0, received));
        out = grown;
      }
    } catch (e) {
      throw memoryError(`downloading ${shownUrl(url)}`, e);
    }
    out.set(value, received);
    received += value.length;
  }, onProgress, signal, token, maxBytes, body);
  if (!out) return new Uint8Array(0);
  return received === out.length ? out : out.subarray(0, received);
}

/**
 * Whether `e` is a failure to get memory: the engine's abort when its wasm memory cannot grow
 * (a `WebAssembly.RuntimeError`, "unreachable"), or a buffer the browser would not allocate (a
 * `RangeError`).
 */
export function isMemoryFailure(e) {
  const msg = String(e && e.message);
  return (typeof WebAssembly !== 'undefined' && e instanceof WebAssembly.RuntimeError && /unreachable|memory/i.test(msg))
    || (e instanceof RangeError && /memory|allocation|buffer/i.test(msg));
}

/** Most bytes of memory a wasm32 module can have: 65,536 pages of 64 KiB (4 GiB). */
export const WASM32_MAX_MEMORY = 4 * 1024 ** 3;

/**
 * An out-of-memory failure said in plain words, naming memory and what ran out of it: the
 * browser could not allocate a buffer (a RangeError), or the engine's wasm memory could not
 * grow (it stops at 4 GiB; the engine then aborts, "unreachable"). `what` is what was under
 * way (`loading big.rdb`, a URL is cut by shownUrl); `facts`, when known: `{at, size}` (the
 * input bytes decoded so far and in all) and `memory` (the engine's wasm memory in bytes when
 * it stopped). `err.kind` is `memory`; `component` `browser`.
 */
export function memoryError(what, e, facts = {}) {
  const f = (n) => Number(n).toLocaleString('en-US');
  const parts = [];
  if (facts.at !== undefined && facts.at !== null) {
    parts.push(`stopped near byte ${f(facts.at)}${facts.size ? ` of ${f(facts.size)}` : ''}, where a value needs more memory than is left`);
  }
  if (facts.memory) {
    parts.push(`the engine's memory had reached ${f(facts.memory)} bytes of the ${f(WASM32_MAX_MEMORY)} a browser gives WebAssembly at most`);
  }
  const cause = e && e.message ? e.message : String(e);
  const err = new Error(`out of memory while ${what}${parts.length ? `: ${parts.join('; ')}` : ''} (${cause}): load fewer keys with narrower key patterns (the patterns filter), or look at the file with \`bitlens inspect\`, which has no such limit`);
  err.component = 'browser';
  err.kind = 'memory';
  err.tooLarge = true;
  return err;
}

/**
 * The error for a body cut off mid-download: `bitlens serve` aborts the body when the export
 * fails (Redis gone, a limit), and its /api/info then reports the failure
 * (`last_export_error`); named the server's way when it has one since the download started,
 * else the network's.
 */
async function cutOff(url, e, started, token, body) {
  const reason = e && e.message ? e.message : String(e);
  try {
    const info = new URL(url, globalThis.location?.href);
    info.pathname = info.pathname.replace(/\/snapshot$/, '/info');
    info.search = '';
    const res = await request(info.href, undefined, token);
    const body = await res.json().catch(() => null);
    const last = body && body.last_export_error;
    if (last && last.at_ms >= started - 1000) {
      const err = new Error(`${requestName(url, body)}: the download was cut off: ${last.message}`);
      err.component = /^(more than|snapshot larger than)/.test(last.message) ? 'limit' : 'redis';
      err.serverMessage = last.message;
      return err;
    }
  } catch {
    /* the API is gone too: the network's error */
  }
  const err = new Error(`${requestName(url, body)}: the download was cut off: ${reason}`);
  err.component = 'network';
  return err;
}
