/* tslint:disable */
/* eslint-disable */

/**
 * A bitlens engine: one in-memory Redis database (db 0 of a loaded snapshot) answering Redis
 * read commands exactly as Redis 7 does.
 */
export class Engine {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * `BITCOUNT key`: the number of set bits in the string at `key` (0 when missing).
     * Throws Redis' WRONGTYPE error for a non-string key.
     */
    bitcount(key: string): number;
    /**
     * The number of bits set in any of the strings at `keys`: `BITOP OR scratch key...`
     * then `BITCOUNT scratch`. The scratch key (default `bitlens:scratch:bitop`) is restored
     * afterwards (removed, or its previous value put back), so nothing is left behind.
     */
    bitopOrCount(keys: string[], scratch?: string | null): number;
    /**
     * Removes every key.
     */
    clear(): void;
    /**
     * Runs one command and returns exactly what `redis-cli` prints for its reply when stdout
     * is not a terminal (errors included, not thrown), as text (invalid UTF-8 replaced).
     */
    commandCli(argv: Array<any>): string;
    /**
     * As [`Engine::command`], but bulk strings come back as `Uint8Array` (binary safe: raw
     * bitmap or HyperLogLog bytes from `GET`).
     */
    commandRaw(argv: Array<any>): any;
    /**
     * Runs one command and returns the exact RESP2 bytes Redis would send (errors included,
     * not thrown).
     */
    commandResp(argv: Array<any>): Uint8Array;
    /**
     * Runs one Redis command (`['BITCOUNT', 'k', '0', '-1']`) and returns its reply as plain
     * JS values (see the module documentation). An error reply is thrown as an `Error` whose
     * message is Redis' text.
     */
    command(argv: Array<any>): any;
    /**
     * An SVG document (`width` × `height` pixels) charting daily actives with the rolling
     * 7- and 30-day actives of the bitmaps at `keys` (chronological), dates on the x axis.
     */
    dauChartSvg(keys: string[], title: string, width: number, height: number): string;
    /**
     * Number of keys (as Redis DBSIZE).
     */
    dbsize(): number;
    /**
     * Removes `key`; returns whether it existed.
     */
    deleteKey(key: any): boolean;
    /**
     * Draws daily actives with rolling 7/30-day actives of the daily bitmaps `keys`
     * (chronological) on `canvas`; returns `{labels, dau, wau, mau, stickiness}`
     * (dates as `YYYY-MM-DD`, counts as numbers, stickiness = dau/mau in 0..1).
     */
    drawDauChart(canvas: any, keys: string[], title?: string | null): object;
    /**
     * Draws the distribution of the `u<width>` BITFIELD values in `key` (`BITLENS.ENUMDIST
     * key u<width> [AMONG among]`) on `canvas`: over the users set in bitmap `among`
     * when given, else over every field. Returns the `2^width` counts. Throws when `key` does
     * not exist (`no key …`) or `width` is not in 1..=16.
     */
    drawEnumChart(canvas: any, key: string, width: number, among?: string | null, title?: string | null): Array<any>;
    /**
     * Draws the retention heatmap (`BITLENS.RETENTION lookback horizon keys…`) on canvas
     * `canvasId`, rows labelled by cohort date; returns one array per cohort day:
     * `[cohort size, back on d+1, …, back on d+horizon]`, `null` past the last key.
     */
    drawRetentionChart(canvas: any, keys: string[], lookback: number, horizon: number, title?: string | null): Array<any>;
    /**
     * Draws the streak histogram (`BITLENS.STREAKHIST keys…`, the last key is "today") on
     * `canvas`; returns it: element `k − 1` = users set in exactly the last `k` keys.
     */
    drawStreakChart(canvas: any, keys: string[], title?: string | null): Array<any>;
    /**
     * Engagement over the daily-active bitmaps at `keys` (chronological; missing keys are
     * empty days): `{dau, wau, mau, stickiness}`, arrays of numbers, one per key — daily
     * actives, users active in the 7 / 30 keys ending at each key, and dau/mau (0..1).
     * Throws for a key that does not hold a string.
     */
    engagement(keys: string[]): object;
    /**
     * The bitmap at `key` as a portable-format Roaring bitmap (`Uint8Array`): bit offset v
     * becomes value v. A missing key gives an empty bitmap; a non-string key throws Redis'
     * WRONGTYPE error.
     */
    exportRoaring(key: any): Uint8Array;
    /**
     * `GEOSEARCH key FROMLONLAT lon lat BYRADIUS radius unit ASC [COUNT count] WITHDIST
     * WITHCOORD`: the members within `radius` of (`lon`, `lat`) (degrees), nearest first, as
     * an array of `{member, dist, lon, lat}` (`dist` in `unit`: m, km, ft or mi, rounded to
     * 4 decimals as Redis prints it; `lon`/`lat` the member's stored position in degrees).
     * Numbers are sent to the command as JS `String(n)` formats them.
     */
    geosearch(key: string, lon: number, lat: number, radius: number, unit: string, count?: number | null): Array<any>;
    /**
     * The detail view of `key` (`null` when missing): `{ key, type, encoding, bytes, ttlMs }`
     * plus, by `kind`: `'bitmap'` `{ bits, bitcount, density }`, `'hll'` `{ hllEncoding,
     * cardinality, registerHistogram }` (64 counts summing to 16384), `'geo'` `{ members,
     * bbox: [minLon, minLat, maxLon, maxLat], points: [{ member, lon, lat }] }` (degrees) or
     * `'other'` (see [`crate::keydetail`]). `options`: `buckets` (density ranges, default
     * 256, 1..65536), `maxPoints` (GEO points listed, default 1000).
     */
    keyDetail(key: any, options: any): any;
    /**
     * The keys matching the Redis glob `pattern`, sorted by their bytes: `{ total, keys }`,
     * `total` the number of matches, `keys` the first `limit` of them as
     * `{ key, type, encoding, bytes, ttlMs }` (see [`crate::keydetail::KeySummary`];
     * `ttlMs` is `null` without expiry).
     */
    keyList(pattern: string, limit: number): object;
    /**
     * The keys matching a Redis glob `pattern` (as KEYS), sorted by their bytes, as strings.
     */
    keys(pattern: string): Array<any>;
    /**
     * Loads a `DUMP` payload (a value, its 2-byte RDB version and CRC-64 trailer) under
     * `key` (a string or `Uint8Array`), replacing any previous value. `options` (optional):
     * `checksum: false` skips the CRC-64 check; `ttlMs` gives the key an expiry that many
     * milliseconds from now. Throws an `Error` naming the byte offset on bad input.
     */
    loadDump(key: any, bytes: Uint8Array | number[], options: any): void;
    /**
     * Loads a Redis RDB file (RDB versions 6 to 12: Redis 2.6 to 8.0) and replaces the
     * engine's database with its database `db` (default 0; empty when the file has no such
     * database). Returns the number of keys loaded.
     *
     * `options` (optional object):
     * - `patterns: string[]` — Redis globs; keys matching none (and keys of other databases)
     *   are skipped without being materialised.
     * - `checksum: boolean` — `false` skips the CRC-64 check (default `true`).
     * - `onProgress(doneBytes, totalBytes)` — called at most every ~1 MiB of input and once
     *   at the end; an exception it throws stops the load.
     *
     * Throws an `Error` naming the byte offset (and the key, when known) for a truncated or
     * corrupt file; the engine's previous content is then kept.
     */
    loadRdb(bytes: Uint8Array | number[], db: number | null | undefined, options: any): number;
    /**
     * Loads a serialized Roaring bitmap (the portable format of the Java, Go and C
     * libraries) as a bitmap string under `key`: value v becomes bit offset v. Sparse data
     * stays sparse. Throws on a malformed Roaring bitmap.
     */
    loadRoaring(key: any, bytes: Uint8Array | number[]): void;
    /**
     * Stores raw `GET` bytes under `key` (a string or `Uint8Array`) as a string, replacing
     * any previous value (the same as [`Engine::set_string`]).
     */
    loadString(key: any, bytes: Uint8Array | number[]): void;
    /**
     * An SVG document (`width` × `height` pixels) mapping a nearby-shops search: the circle
     * of `radius_m` metres around (`lon`, `lat`) in degrees, and the result points given as
     * `coords = [lon0, lat0, lon1, lat1, …]` (degrees), the first `highlight` of them (the
     * page on screen) emphasised. Axes in kilometres east / north of the centre.
     */
    nearbyMapSvg(lon: number, lat: number, radius_m: number, coords: Float64Array | number[], highlight: number, title: string, width: number, height: number): string;
    /**
     * An engine with an empty database.
     */
    constructor();
    /**
     * `PFADD key element...` with every element in one buffer, for adding many elements
     * without one JS string per element: element i is `elements[offsets[i]..offsets[i + 1]]`
     * (bytes), so `offsets` holds one more entry than there are elements (none or one entry:
     * no element). The registers, the key's bytes and the reply (1 when the key was created or
     * a register changed, else 0) are exactly those of `PFADD` with the same elements; Redis'
     * errors (a key of another type, a string that is not a HyperLogLog) are thrown. Throws
     * when `offsets` decreases or points past `elements`.
     */
    pfaddBatch(key: any, elements: Uint8Array | number[], offsets: Uint32Array | number[]): number;
    /**
     * `PFCOUNT key` for each key of `keys` separately (for example unique visitors per shop),
     * in one call: returns a `Float64Array` of the counts, in order (0 for a missing key).
     * Each count refreshes that key's cached cardinality, as Redis' single-key PFCOUNT does.
     * Throws Redis' error for the first key that is not a valid HyperLogLog.
     */
    pfcountEach(keys: string[]): Float64Array;
    /**
     * `PFCOUNT key [key ...]`: the estimated number of distinct elements in the union of the
     * HyperLogLogs at `keys` (missing keys count as empty), as Redis 7 computes it.
     */
    pfcountUnion(keys: string[]): number;
    /**
     * Stores `value` (raw bytes, as `GET` returned them) under `key` as a string, replacing
     * any previous value. `key` is a string or a `Uint8Array`.
     */
    setString(key: any, value: Uint8Array | number[]): void;
    /**
     * An SVG document (`width` × `height` pixels) charting [`Engine::streak_histogram`]
     * as bars.
     */
    streakChartSvg(keys: string[], title: string, width: number, height: number): string;
    /**
     * `BITLENS.STREAKHIST` over the bitmaps at `keys` (chronological, the last is "today"):
     * element `k - 1` is the number of users set in exactly the last `k` keys.
     */
    streakHistogram(keys: string[]): Float64Array;
}

export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

export interface InitOutput {
    readonly memory: WebAssembly.Memory;
    readonly __wbg_engine_free: (a: number, b: number) => void;
    readonly engine_bitcount: (a: number, b: number, c: number) => [number, number, number];
    readonly engine_bitopOrCount: (a: number, b: number, c: number, d: number, e: number) => [number, number, number];
    readonly engine_clear: (a: number) => void;
    readonly engine_command: (a: number, b: any) => [number, number, number];
    readonly engine_commandCli: (a: number, b: any) => [number, number, number, number];
    readonly engine_commandRaw: (a: number, b: any) => [number, number, number];
    readonly engine_commandResp: (a: number, b: any) => [number, number, number, number];
    readonly engine_dauChartSvg: (a: number, b: number, c: number, d: number, e: number, f: number, g: number) => [number, number, number, number];
    readonly engine_dbsize: (a: number) => number;
    readonly engine_deleteKey: (a: number, b: any) => [number, number, number];
    readonly engine_drawDauChart: (a: number, b: any, c: number, d: number, e: number, f: number) => [number, number, number];
    readonly engine_drawEnumChart: (a: number, b: any, c: number, d: number, e: number, f: number, g: number, h: number, i: number) => [number, number, number];
    readonly engine_drawRetentionChart: (a: number, b: any, c: number, d: number, e: number, f: number, g: number, h: number) => [number, number, number];
    readonly engine_drawStreakChart: (a: number, b: any, c: number, d: number, e: number, f: number) => [number, number, number];
    readonly engine_engagement: (a: number, b: number, c: number) => [number, number, number];
    readonly engine_exportRoaring: (a: number, b: any) => [number, number, number, number];
    readonly engine_geosearch: (a: number, b: number, c: number, d: number, e: number, f: number, g: number, h: number, i: number, j: number) => [number, number, number];
    readonly engine_keyDetail: (a: number, b: any, c: any) => [number, number, number];
    readonly engine_keyList: (a: number, b: number, c: number, d: number) => [number, number, number];
    readonly engine_keys: (a: number, b: number, c: number) => [number, number, number];
    readonly engine_loadDump: (a: number, b: any, c: number, d: number, e: any) => [number, number];
    readonly engine_loadRdb: (a: number, b: number, c: number, d: number, e: number, f: any) => [number, number, number];
    readonly engine_loadRoaring: (a: number, b: any, c: number, d: number) => [number, number];
    readonly engine_loadString: (a: number, b: any, c: number, d: number) => [number, number];
    readonly engine_nearbyMapSvg: (a: number, b: number, c: number, d: number, e: number, f: number, g: number, h: number, i: number, j: number, k: number) => [number, number, number, number];
    readonly engine_new: () => number;
    readonly engine_pfaddBatch: (a: number, b: any, c: number, d: number, e: number, f: number) => [number, number, number];
    readonly engine_pfcountEach: (a: number, b: number, c: number) => [number, number, number, number];
    readonly engine_pfcountUnion: (a: number, b: number, c: number) => [number, number, number];
    readonly engine_setString: (a: number, b: any, c: number, d: number) => [number, number];
    readonly engine_streakChartSvg: (a: number, b: number, c: number, d: number, e: number, f: number, g: number) => [number, number, number, number];
    readonly engine_streakHistogram: (a: number, b: number, c: number) => [number, number, number, number];
    readonly __wbindgen_malloc: (a: number, b: number) => number;
    readonly __wbindgen_realloc: (a: number, b: number, c: number, d: number) => number;
    readonly __wbindgen_free: (a: number, b: number, c: number) => void;
    readonly __wbindgen_exn_store: (a: number) => void;
    readonly __externref_table_alloc: () => number;
    readonly __wbindgen_externrefs: WebAssembly.Table;
    readonly __externref_table_dealloc: (a: number) => void;
    readonly __externref_drop_slice: (a: number, b: number) => void;
    readonly __wbindgen_start: () => void;
}

export type SyncInitInput = BufferSource | WebAssembly.Module;

/**
 * Instantiates the given `module`, which can either be bytes or
 * a precompiled `WebAssembly.Module`.
 *
 * @param {{ module: SyncInitInput }} module - Passing `SyncInitInput` directly is deprecated.
 *
 * @returns {InitOutput}
 */
export function initSync(module: { module: SyncInitInput } | SyncInitInput): InitOutput;

/**
 * If `module_or_path` is {RequestInfo} or {URL}, makes a request and
 * for everything else, calls `WebAssembly.instantiate` directly.
 *
 * @param {{ module_or_path: InitInput | Promise<InitInput> }} module_or_path - Passing `InitInput` directly is deprecated.
 *
 * @returns {Promise<InitOutput>}
 */
export default function __wbg_init (module_or_path?: { module_or_path: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>): Promise<InitOutput>;
