// Type declarations for www/engine-client.js: the promise API over the bitlens Engine, running
// in a Web Worker by default.

import type { Arg, Engine, EngineError as EngineErrorFields, EngineErrorCode, SnapshotInfo, KeyDetail, KeyName, KeyDetailOptions, KeyList, LoadDumpOptions, LoadRdbOptions, LoadRdbsOptions, LoadedFile, MemoryReport, MemoryReportOptions, KeyLedger, KeyLedgerOptions, Reply } from '../pkg/bitlens.js';

/**
 * The one error class of the engine (www/engine-error.js): what the engine, the worker client
 * and readSnapshotFiles throw; see the fields' meaning in the engine's `EngineError` type.
 * `instanceof EngineError` holds for an error made by any copy of the class.
 */
export declare class EngineError extends Error implements EngineErrorFields {
  name: 'EngineError';
  code: EngineErrorCode;
  kind: EngineErrorCode;
  offset?: number;
  key?: string;
  path?: string;
  constructor(message: string, fields?: { code?: EngineErrorCode; offset?: number; key?: string; path?: string });
  /** The fields that cross postMessage. */
  toJSON(): { name: 'EngineError'; message: string; code: EngineErrorCode; offset?: number; key?: string; path?: string };
  /** An EngineError again from {@link EngineError.toJSON}'s data. */
  static from(data: { message: string; code?: EngineErrorCode; offset?: number; key?: string; path?: string }): EngineError;
}

/** Options of {@link createEngine}. */
export interface CreateEngineOptions {
  /** Run the Engine in a module Web Worker (default `true`); `false` runs it on the page's thread. */
  worker?: boolean;
  /** Where `bitlens_bg.wasm` is (default: `../pkg/bitlens_bg.wasm` next to engine-client.js). */
  wasmUrl?: string | URL;
  /** Where `engine-worker.js` is (default: next to engine-client.js). */
  workerUrl?: string | URL;
}

/** Bytes handed to the engine. */
export type Bytes = Uint8Array | ArrayBuffer;

/** An RDB file: bytes, or a Blob/File (read by the worker in bounded chunks). */
export type RdbSource = Bytes | Blob;

/** Options shared by the client's load methods. */
export interface ClientLoadOptions {
  /** Aborting rejects with a `DOMException` named `AbortError` and resets the engine (empty). */
  signal?: AbortSignal;
  /**
   * `true` (default): the bytes' ArrayBuffer is transferred to the worker and is detached for
   * the caller afterwards; `false` sends a copy.
   */
  transfer?: boolean;
}

/** Decode workers of a load in the Web Worker (ignored on the page's thread). */
export interface DecodeWorkerOptions {
  /**
   * How many decode workers decompress the file's large LZF strings (compressed bitmaps, big
   * listpacks) beside the engine's worker, which decodes too: default one per core the browser
   * reports beside it (`navigator.hardwareConcurrency - 1`, at most 7) from 4 cores on, none
   * below (on 2 cores the copies cost what the pool saves); 0: the engine's worker decodes
   * alone. Rounded down and capped at `navigator.hardwareConcurrency`; a value that is not a
   * number of 1 or more means none. Keys, errors and offsets are the same either way.
   */
  decodeWorkers?: number;
}

/** Options of {@link EngineClient.loadRdb}. */
export interface ClientLoadRdbOptions extends LoadRdbOptions, ClientLoadOptions, DecodeWorkerOptions {
  /** The database of the file to select (default 0); every database is loaded. */
  db?: number;
}

/** Options of {@link EngineClient.loadRdbs}. */
export interface ClientLoadRdbsOptions extends LoadRdbsOptions, ClientLoadOptions {
  /** The database to select (default 0); every database of every file is loaded. */
  db?: number;
}

/** Options of {@link EngineClient.loadUrl}. */
export interface ClientLoadUrlOptions extends LoadRdbOptions, DecodeWorkerOptions {
  /** The database of the file to select (default 0); every database is loaded. */
  db?: number;
  /** Sent as `Authorization: Bearer TOKEN` (for `bitlens serve --token`). */
  token?: string;
  /**
   * A form body (`match=P&db=N`, snapshot.js `snapshotForm`): the request is then a `POST` of it
   * to `url` (`bitlens serve` answers `POST /api/snapshot` as the GET), for a request no URL can
   * carry (a key name over about 21 KB).
   */
  body?: string;
  /** Aborting rejects with a `DOMException` named `AbortError` and resets the engine (empty). */
  signal?: AbortSignal;
  /**
   * Bytes received (`phase` `'download'`, with `decoded`: the bytes decoded so far, as the
   * worker decodes while downloading) then decoded (`'decode'`); `total` 0 when unknown.
   */
  onProgress?: (done: number, total: number, phase?: 'download' | 'decode', decoded?: number) => void;
}

/** Options of {@link EngineClient.loadDump}. */
export interface ClientLoadDumpOptions extends LoadDumpOptions, ClientLoadOptions {}

/** Names of the Engine methods {@link EngineClient.call} can run. */
export type EngineMethod = {
  [K in keyof Engine]: K extends 'free' | 'constructor' ? never : Engine[K] extends (...args: any[]) => any ? K : never;
}[keyof Engine] & string;

/**
 * An engine behind a promise API. Every result is structured-cloned from the worker (typed
 * arrays stay typed arrays); engine errors reject with an `Error` carrying the engine's message.
 */
export interface EngineClient {
  /** Whether the engine runs in a Web Worker. */
  readonly worker: boolean;
  /**
   * Every load of a snapshot, by the worker's one load driver: one snapshot (bytes, a Blob/File,
   * or a URL string, downloaded and decoded as it arrives) or an array of bytes and Blobs read
   * as one keyspace (`files()` then lists them). Resolves with the number of keys of the
   * selected database, the bytes read and the (first) file's writer (`snapshotInfo(head).writer`).
   */
  load(
    sources: RdbSource | string | RdbSource[],
    options?: ClientLoadRdbOptions & ClientLoadRdbsOptions & ClientLoadUrlOptions,
  ): Promise<{ keys: number; bytes: number; writer: SnapshotInfo['writer'] }>;
  /** `load` of one RDB file; resolves with the number of keys loaded. */
  loadRdb(source: RdbSource, options?: ClientLoadRdbOptions): Promise<number>;
  /**
   * Loads several RDB files as one keyspace (a cluster's shards; Engine.loadRdbs); resolves with
   * the number of keys of the selected database. Each file's progress names its index.
   */
  loadRdbs(sources: RdbSource[], options?: ClientLoadRdbsOptions): Promise<number>;
  /** The files of the last `loadRdbs` (Engine.files). */
  files(): Promise<LoadedFile[]>;
  /**
   * Downloads an RDB snapshot (`GET url`, fetch body reader) and decodes it, both inside the
   * worker; resolves with the number of keys of the selected database, the snapshot's size
   * and its writer (`snapshotInfo(head).writer`). An HTTP error rejects with
   * `GET url: HTTP status: message` and the error's `status`.
   */
  loadUrl(url: string | URL, options?: ClientLoadUrlOptions): Promise<{ keys: number; bytes: number; writer: SnapshotInfo['writer'] }>;
  /** Stores a `DUMP` payload under `key`. */
  loadDump(key: KeyName, bytes: Bytes, options?: ClientLoadDumpOptions): Promise<void>;
  /** Stores raw `GET` bytes under `key` as a string. */
  loadString(key: KeyName, bytes: Bytes, options?: ClientLoadOptions): Promise<void>;
  /**
   * Runs any Engine method. Arguments and results must be structured-cloneable in worker mode
   * (so the canvas-drawing methods work only with `worker: false`).
   */
  call<M extends EngineMethod>(method: M, ...args: Parameters<Engine[M]>): Promise<ReturnType<Engine[M]>>;
  /** `call('command', argv)`: one Redis command; an error reply rejects with Redis' text. */
  command(argv: Arg[]): Promise<Reply>;
  /** Many commands in one round trip; replies in order, the first error reply rejects the batch. */
  commands(argvs: Arg[][]): Promise<Reply[]>;
  /**
   * `call('keyList', pattern, limit, options)` (defaults `'*'`, 1000) over the selected
   * database; `options.expired: true` also lists keys already expired at the engine's clock.
   */
  keyList(pattern?: string, limit?: number, options?: { expired?: boolean }): Promise<KeyList>;
  /** `call('keyDetail', key, options)`. */
  keyDetail(key: KeyName, options?: KeyDetailOptions): Promise<KeyDetail | null>;
  /** `call('memoryReport', options)`: top keys, memory per type/pattern, expiring per day. */
  memoryReport(options?: MemoryReportOptions): Promise<MemoryReport>;
  /** `call('keyLedger', key, options)`: one key's memory ledger, or null. */
  keyLedger(key: string | Uint8Array, options?: KeyLedgerOptions): Promise<KeyLedger | null>;
  /**
   * A client of the side engine `name` (default `'side'`): a second Engine in the same worker
   * (or page) and wasm module, empty until loaded, whose keys never mix with this client's.
   * Its `terminate()` frees that engine only; an aborted load resets the whole worker.
   */
  side(name?: string): EngineClient;
  /** Stops the worker (or frees the in-page engine); later calls reject. */
  terminate(): void;
}

/** Creates an engine client; resolves once the wasm module is instantiated. */
export declare function createEngine(options?: CreateEngineOptions): Promise<EngineClient>;
