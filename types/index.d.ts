// Type declarations of the `bitlens` package entry (npm/index.js): the wasm engine and the
// Web Worker client. The <bitlens-panel> element is declared in ./bitlens-panel.d.ts.

export * from '../pkg/bitlens.js';
export { default, default as init } from '../pkg/bitlens.js';
export * from './engine-client.js';
// (The class, not the engine's interface of the same name.)
export { EngineError } from './engine-client.js';

/**
 * Node only: the snapshot files at `paths`, each `{ name, bytes }` for `Engine.loadRdbs`
 * (`name`: the path as given). A directory, a FIFO, socket or device (without opening it) and
 * a path that cannot be read are refused with an {@link EngineError} of code `is-a-directory`,
 * `not-a-regular-file`, `not-found`, `permission-denied` or `io`, and the `path`.
 */
export declare function readSnapshotFiles(paths: string[]): Promise<{ name: string; bytes: Uint8Array }[]>;
