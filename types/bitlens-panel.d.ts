// Type declarations for www/bitlens-panel.js: the `<bitlens-panel>` custom element. Importing the
// module defines the element (once).

import type { Engine } from '../pkg/bitlens.js';

/** The panel's settings: each is an attribute (kebab-case) and a property (camelCase). */
export interface BitlensPanelSettings {
  /** API base of `bitlens serve`, e.g. `/api` or `http://host:8080/api`. */
  api: string;
  /** `YYYYMMDD` or `YYYY-MM-DD`; empty = the latest date found in the snapshot. */
  date: string;
  /** HyperLogLog key template of the unique-visitor card (`{date}` is replaced). */
  uvKey: string;
  /** Daily-active bitmap key template (`{date}` is replaced). */
  activeKey: string;
  /** GEO key template of the nearby card (`{type}` is replaced). */
  geoKey: string;
  /** Shop type of the nearby card. */
  type: string;
  /** City whose centre the nearby search starts from when `lon`/`lat` are empty. */
  city: string;
  /** Centre of the nearby search, degrees. */
  lon: string;
  lat: string;
  /** Radius of the nearby search, in `unit`. */
  radius: string | number;
  /** `m`, `km`, `ft` or `mi`. */
  unit: string;
  /** Centre the nearby search on this member (GEOSEARCH FROMMEMBER) instead of lon/lat. */
  member: string;
  /**
   * Comma-separated cards: `uv`, `active`, `nearby`, `engagement`, `user`, `signins`, `crowds`,
   * `offsets` (all by default), `keys` (the key browser over the fetched snapshot).
   */
  cards: string;
  /** `zh` or `en`; empty = the page's language. */
  lang: string;
  /** `light` or `dark`; empty = follow `prefers-color-scheme`. */
  theme: string;
  /** Bearer token for `bitlens serve --token` (sent as `Authorization: Bearer …`). */
  token: string;
  /** `false` runs the panel's engine on the page's thread instead of in a Web Worker. */
  worker: string;
  /** Answer as this server profile (`redis-7.0`, `valkey-9.0`, …); empty: the snapshot's writer. */
  compat: string;
  /** `false` skips the CRC-64 check of snapshots and DUMP payloads (a warning is shown). */
  checksum: string;
  /** Most snapshot bytes the panel takes (empty: 3 GiB, below wasm32's 4 GiB memory); a larger one is refused up front. */
  maxBytes: string;
  /** The user id the user card looks up (a number is its bit offset). */
  user: string;
  /** Per-user monthly sign-in bitmap template (`{uid}`, `{month}` = YYYYMM; bit = day − 1). */
  signKey: string;
  /** Redis glob of the Bloom / Cuckoo filters the user card asks "seen before?". */
  seenKey: string;
  /** Redis glob of the crowd tags (bitmaps, bit = user id, or Sets of user ids). */
  tagKey: string;
  /** Redis glob of the consumers' idempotency bitmaps `<topic>:<partition>:bitmap`. */
  offsetKey: string;
}

/** `detail` of the `bitlens-loaded` event. */
export interface BitlensLoadedDetail {
  /** Keys loaded, in every database (alive at the snapshot's clock). */
  keys: number;
  /** The database the cards read (the first holding their keys). */
  db: number;
  /** Every database of the snapshot with its live and already-expired key counts. */
  databases: { db: number; keys: number; expired: number }[];
  /** Snapshot size in bytes. */
  bytes: number;
  /** Name of the opened file, when one was opened. */
  file?: string;
}

/** `detail` of the `bitlens-error` event. */
export interface BitlensErrorDetail {
  error: unknown;
  message: string;
}

/**
 * Every setting is also a property of the element (`maxBytes` is the attribute `max-bytes`):
 * this interface merges them into the class below.
 */
export interface BitlensPanel extends BitlensPanelSettings {}

/**
 * `<bitlens-panel api="/api" date="2024-05-20" cards="uv,active" uv-key="uv:page:index:{date}">`:
 * the bitlens cards in a shadow root. Events `bitlens-loaded` and `bitlens-error` bubble out of it.
 */
export declare class BitlensPanel extends HTMLElement {
  static readonly observedAttributes: string[];
  /** The current settings: attributes over the defaults. */
  settings(): BitlensPanelSettings;
  /** An RDB file to show instead of fetching from the API (a Blob/File is decoded in a worker). */
  /** The snapshot shown instead of the API's: one file, or several (a cluster's shards, URLs allowed) loaded as one keyspace. */
  get snapshot(): Uint8Array | Blob | (Uint8Array | ArrayBuffer | Blob | string | URL)[] | null;
  set snapshot(value: Uint8Array | ArrayBuffer | Blob | (Uint8Array | ArrayBuffer | Blob | string | URL)[]);
  /** Opens files as the panel's "Open snapshot…" button does (dump.rdb files, a cluster's shards as one, or DUMP files). */
  open(files: Iterable<File>): Promise<void>;
  /** The panel's in-page wasm engine (for custom queries), once loaded. */
  readonly engine: Engine | null;
  /** Refetches the snapshot from the API. */
  reload(): Promise<void>;
  addEventListener<K extends keyof BitlensPanelEventMap>(type: K, listener: (this: BitlensPanel, ev: BitlensPanelEventMap[K]) => any, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

/** Events of `<bitlens-panel>`. */
export interface BitlensPanelEventMap extends HTMLElementEventMap {
  'bitlens-loaded': CustomEvent<BitlensLoadedDetail>;
  'bitlens-error': CustomEvent<BitlensErrorDetail>;
}

declare global {
  interface HTMLElementTagNameMap {
    'bitlens-panel': BitlensPanel;
  }
}
