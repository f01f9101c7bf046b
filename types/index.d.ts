// Type declarations of the `bitlens` package entry (npm/index.js): the wasm engine and the
// Web Worker client. The <bitlens-panel> element is declared in ./bitlens-panel.d.ts.

export * from '../pkg/bitlens.js';
export { default, default as init } from '../pkg/bitlens.js';
export * from './engine-client.js';
