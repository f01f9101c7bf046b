// Entry point of the `bitlens` npm package (copied to the package root by scripts/package.sh):
// the wasm engine (init + Engine, synchronous API; snapshotInfo tells what a file is, profiles
// lists the server profiles `compat` takes) and the Web Worker client (createEngine).
// The <bitlens-panel> element is the separate entry `bitlens/panel`.

export {
  default, default as init, initSync, Engine, profiles, snapshotInfo,
} from './pkg/bitlens.js';
export { createEngine } from './www/engine-client.js';
