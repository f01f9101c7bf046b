// Fetches an RDB snapshot from `bitlens serve` (GET {api}/snapshot?match=P&match=P...),
// reporting progress while the bytes arrive. The panel runs it inside its engine's Web Worker
// (engine-worker.js, loadUrl); it works on a page too.

/**
 * The snapshot URL for a set of Redis glob patterns.
 * @param {string} api  API base, e.g. "/api" or "http://host:8080/api"
 * @param {string[]} patterns
 */
export function snapshotUrl(api, patterns) {
  const q = patterns.map((p) => 'match=' + encodeURIComponent(p)).join('&');
  return `${api.replace(/\/+$/, '')}/snapshot${q ? '?' + q : ''}`;
}

/**
 * Downloads the snapshot and returns its bytes.
 * @param {string} url
 * @param {(received: number, total: number|null) => void} onProgress called as chunks arrive;
 *   `total` is the Content-Length when the server sent one (a streamed snapshot has none)
 * @param {AbortSignal} [signal]
 * @param {string} [token] sent as `Authorization: Bearer TOKEN` (for `bitlens serve --token`)
 * @returns {Promise<Uint8Array>}
 */
export async function fetchSnapshot(url, onProgress, signal, token) {
  let res;
  try {
    res = await fetch(url, { signal, headers: token ? { Authorization: `Bearer ${token}` } : {} });
  } catch (e) {
    if (e && e.name === 'AbortError') throw e;
    throw new Error(`GET ${url}: ${e && e.message ? e.message : e}`);
  }
  if (!res.ok) {
    // `bitlens serve` answers errors as JSON {"error": "..."}; another server's HTML error
    // page is not shown (only its status).
    let detail = '';
    try {
      const body = (await res.text()).trim();
      const type = res.headers.get('Content-Type') || '';
      if (type.includes('json')) detail = String(JSON.parse(body).error ?? body);
      else if (!type.includes('html')) detail = body;
    } catch {
      /* no body, or not the JSON it claimed */
    }
    const err = new Error(`GET ${url}: HTTP ${res.status}${detail ? ': ' + detail.slice(0, 300) : ''}`);
    err.status = res.status;
    throw err;
  }
  const len = Number(res.headers.get('Content-Length'));
  const total = Number.isFinite(len) && len > 0 ? len : null;
  if (!res.body || !res.body.getReader) {
    const buf = new Uint8Array(await res.arrayBuffer());
    onProgress(buf.length, total);
    return buf;
  }
  const reader = res.body.getReader();
  // One buffer sized from Content-Length when the server sends one (grown by doubling
  // otherwise, or when the body is longer than announced): no list of chunks plus a copy.
  let out = new Uint8Array(total ?? 1 << 20);
  let received = 0;
  onProgress(0, total);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (received + value.length > out.length) {
      const grown = new Uint8Array(Math.max(out.length * 2, received + value.length));
      grown.set(out.subarray(0, received));
      out = grown;
    }
    out.set(value, received);
    received += value.length;
    onProgress(received, total);
  }
  return received === out.length ? out : out.subarray(0, received);
}
