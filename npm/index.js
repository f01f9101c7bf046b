// Entry point of the `bitlens` npm package (copied to the package root by scripts/package.sh):
// the wasm engine (init + Engine, synchronous API; snapshotInfo tells what a file is, profiles
// lists the server profiles `compat` takes), the Web Worker client (createEngine), the error
// class every engine error is (EngineError) and, in Node, readSnapshotFiles (paths to bytes).
// The <bitlens-panel> element is the separate entry `bitlens/panel`.
//
// `init()` with no argument finds `pkg/bitlens_bg.wasm` next to this module: with `fetch` in
// browsers and bundlers (wasm-bindgen's own default), and by reading the file in Node, whose
// `fetch` cannot load `file:` URLs. Any argument is passed to wasm-bindgen's init unchanged
// (a URL, a Response, bytes, a WebAssembly.Module, or `{ module_or_path }`).

import wasmInit from './pkg/bitlens.js';

export { initSync, Engine, profiles, snapshotInfo } from './pkg/bitlens.js';
export { createEngine, EngineError } from './www/engine-client.js';
export { readSnapshotFiles } from './www/node-files.js';

const inNode = typeof process !== 'undefined' && !!process.versions?.node
  && typeof window === 'undefined' && typeof WorkerGlobalScope === 'undefined';

/**
 * Loads and instantiates the wasm engine once (later calls return the same promise result).
 * @param {*} [input] what wasm-bindgen's init takes; omitted: the wasm next to this module.
 */
export default async function init(input) {
  if (input === undefined && inNode) {
    // A computed specifier, ignored by bundlers, so browser builds never see node:fs.
    const fsModule = 'node:fs/promises';
    const { readFile } = await import(/* webpackIgnore: true */ /* @vite-ignore */ fsModule);
    const bytes = await readFile(new URL('./pkg/bitlens_bg.wasm', import.meta.url));
    return wasmInit({ module_or_path: bytes });
  }
  return wasmInit(input);
}

export { init };
