// A decode worker of the engine worker's pool (decode-pool.js): it decompresses the large
// LZF strings of a snapshot being loaded (`RdbStream.offloadLzf`) with the engine module's
// `lzfDecompress`, so that a file of compressed bitmaps decodes on every core.
//
// Protocol (structured-clone messages; decode-pool.js is the only intended sender):
//   pool -> worker  {type: 'init', module}        instantiate the engine's compiled module
//   worker -> pool  {type: 'ready'} | {type: 'init-error', message}
//   pool -> worker  {id, data, len}               decompress `data` (transferred) into `len` bytes
//   worker -> pool  {id, bytes, broken?}          the bytes (transferred), or null when the data
//                                                 is corrupt (the stream then decompresses it
//                                                 itself and names the offset); `broken`: the
//                                                 module trapped, the pool drops this worker

import init, { lzfDecompress } from '../pkg/bitlens.js';

let ready = null;

self.onmessage = async (event) => {
  const msg = event.data;
  if (msg && msg.type === 'init') {
    ready = init({ module_or_path: msg.module });
    try {
      await ready;
      self.postMessage({ type: 'ready' });
    } catch (e) {
      self.postMessage({ type: 'init-error', message: String(e && e.message ? e.message : e) });
    }
    return;
  }
  let bytes = null;
  try {
    await ready;
    bytes = lzfDecompress(msg.data, msg.len) ?? null;
  } catch {
    // A trap (out of memory): this instance may be broken; the pool stops using it.
    self.postMessage({ id: msg.id, bytes: null, broken: true });
    return;
  }
  self.postMessage({ id: msg.id, bytes }, bytes ? [bytes.buffer] : []);
};
