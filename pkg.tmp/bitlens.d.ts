/* tslint:disable */
/* eslint-disable */

/**
 * A bitlens engine: every database of a loaded snapshot (SELECT switches; the selected one
 * is `ks`), answering Redis read commands exactly as the profile's server does (the
 * snapshot's writer unless `compat` says otherwise), with expiry judged at the clock (the
 * snapshot's `ctime` unless `clock` says otherwise).
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
     * is not a terminal (errors included, not thrown), as text (invalid UTF-8 replaced; a
     * non-array `argv` is a `TypeError`).
     */
    commandCli(argv: any): string;
    /**
     * Runs one command whose arguments are packed in one buffer: argument i is
     * `args[offsets[i]..offsets[i + 1]]` (bytes), so `offsets` holds one more entry than
     * there are arguments. The reply is that of [`Engine::command`] for the same arguments
     * (error replies thrown). Throws when `offsets` is empty, decreases or points past `args`.
     */
    commandPacked(args: Uint8Array | number[], offsets: Uint32Array | number[]): any;
    /**
     * As [`Engine::command`], but bulk strings come back as `Uint8Array` (binary safe: raw
     * bitmap or HyperLogLog bytes from `GET`).
     */
    commandRaw(argv: any): any;
    /**
     * Runs one command and returns the exact RESP2 bytes Redis would send (errors included,
     * not thrown; a non-array `argv` is a `TypeError`).
     */
    commandResp(argv: any): Uint8Array;
    /**
     * Runs one Redis command (`['BITCOUNT', 'k', '0', '-1']`) and returns its reply as plain
     * JS values (see the module documentation). An error reply is thrown as an `Error` whose
     * message is Redis' text; an `argv` that is not an array (a string such as
     * `'BITCOUNT k'`) is a `TypeError`.
     */
    command(argv: any): any;
    /**
     * The date labels (`YYYY-MM-DD`, from each key's trailing digits) of daily `keys`.
     */
    dateLabels(keys: string[]): Array<any>;
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
     * Engagement over the daily-active bitmaps at `keys` (chronological; missing keys are
     * empty days): `{labels, dau, wau, mau, stickiness}`, arrays of numbers, one per key —
     * daily actives, users active in the 7 / 30 keys ending at each key, and dau/mau (0..1);
     * `labels` are the days' dates (`YYYY-MM-DD` from each key's trailing digits).
     * Throws for a key that does not hold a string.
     */
    engagement(keys: string[]): object;
    /**
     * `BITLENS.ENUMDIST key u<width> [AMONG among]`: the `2^width` counts of the `u<width>`
     * BITFIELD values in `key`, over the users set in bitmap `among` when given, else over
     * every field. Throws when `key` does not exist (`no key …`) or `width` is not in 1..=16.
     */
    enumDistribution(key: string, width: number, among?: string | null): Array<any>;
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
     * `GETBIT key offset`, as a number (0 or 1): the same reply as
     * `command(['GETBIT', key, offset])` (Redis' errors thrown, e.g. for an offset that is
     * not an integer in range).
     */
    getbit(key: string, offset: number): number;
    /**
     * What the engine answers as: `{ profile, server, writer, writerProfile, clockMs,
     * snapshotTimeMs, rdbVersion, selected, databases: [{ db, keys, expired }] }`. `profile`
     * is the `--compat` name in force (`redis-7.4`), `server` its display name (`Redis
     * 7.4`), `writer` true when it is the snapshot's writer; `clockMs` the clock expiry is
     * judged at (`null`: nothing expires), `snapshotTimeMs` the snapshot's `ctime`;
     * `databases` every loaded database with its live and expired key counts.
     */
    info(): object;
    /**
     * The detail view of `key` (`null` when missing): `{ key, type, encoding, bytes, memory,
     * ttlMs }`
     * plus, by `kind`: `'bitmap'` `{ bits, bitcount, density }`, `'hll'` `{ hllEncoding,
     * cardinality, registerHistogram }` (64 counts summing to 16384), `'geo'` `{ members,
     * bbox: [minLon, minLat, maxLon, maxLat], points: [{ member, lon, lat }] }` (degrees),
     * `'bloom'` `{ capacity, items, errorRate, sizeBytes, filters, fillRatio, expansion }`
     * (`expansion` `null` when NONSCALING), `'cuckoo'` `{ buckets, filters, bucketSize, items,
     * deletes, sizeBytes, fillRatio, expansion, maxIterations }`, `'cms'` `{ width, depth,
     * count, sizeBytes }`, `'topk'` `{ k, width, depth, decay, listed, sizeBytes, list:
     * [{ item, count }] }` (TOPK.LIST WITHCOUNT), `'tdigest'` `{ compression, centroids,
     * observations, min, max, sizeBytes, quantiles: [{ q, value }] }` (`min`/`max` `null` and
     * values NaN when empty; q = 0, 0.05, …, 1) or `'other'` (see [`crate::keydetail`]). `options`: `buckets` (density ranges, default
     * 256, 1..65536), `maxPoints` (GEO points listed, default 1000).
     */
    keyDetail(key: any, options: any): any;
    /**
     * The memory ledger of `key` in the selected database (`inspect --ledger` of that key):
     * `{ members, current, asSet: {encoding, memory} | null, asBitmap, asRoaring,
     * asHash: {encoding, memory} | null }`, value bytes of the same members as they are and
     * as each other representation (`null`: the form does not apply), estimated for the
     * snapshot's writer ([`crate::memory::Model::ledger`],
     * [`crate::memory::Model::bitfield_ledger`]); `null` when the key is missing or no form
     * applies. `options`: `allocator`, `bitfield` as [`Engine::memory_report`]. Throws for a
     * bad option.
     */
    keyLedger(key: any, options: any): any;
    /**
     * The keys matching the Redis glob `pattern`, sorted by their bytes: `{ total, keys }`,
     * `total` the number of matches, `keys` the first `limit` of them as
     * `{ key, type, encoding, bytes, memory, ttlMs }` (see [`crate::keydetail::KeySummary`];
     * `ttlMs` is `null` without expiry, counted from the engine's clock). Keys already
     * expired at the clock are left out unless `options.expired` is `true` (their `ttlMs` is
     * then negative).
     */
    keyList(pattern: string, limit: number, options: any): object;
    /**
     * The keys matching a Redis glob `pattern` (as KEYS), sorted by their bytes, as strings.
     */
    keys(pattern: string): Array<any>;
    /**
     * Loads a `DUMP` payload (a value, its 2-byte RDB version and CRC-64 trailer) under
     * `key` (a string or `Uint8Array`), replacing any previous value. `options` (optional):
     * `checksum: false` skips the CRC-64 check; `ttlMs` gives the key an expiry that many
     * milliseconds after the engine's clock (now on a fresh engine), so `PTTL` and `keyList`
     * answer `ttlMs` back; `compat` (a profile name) sets the profile replies follow (without
     * it, a fresh engine takes the payload's trailer RDB version's writer). Throws an `Error`
     * naming the byte offset on bad input.
     */
    loadDump(key: any, bytes: Uint8Array | number[], options: any): void;
    /**
     * As [`Engine::load_rdb`], but reads the file from a `Blob` (or `File`) in bounded
     * windows of [`BLOB_CHUNK`] bytes through `FileReaderSync`, so the file is never held
     * whole in memory: the reader keeps one window plus the value being decoded (long raw
     * strings are streamed; keys outside `patterns` are skipped without being
     * materialised). Only available inside a Web Worker: elsewhere it throws an `Error`
     * saying so.
     */
    loadRdbBlob(blob: Blob, db: number | null | undefined, options: any): number;
    /**
     * Ends `stream`'s input (consuming the stream), decodes what is left, checks the
     * trailer, and replaces the engine's databases with the decoded ones, as `loadRdb` does
     * for the whole file: returns the number of keys of the selected database alive at the
     * clock. Throws `loadRdb`'s error for a truncated or corrupt file; the engine's previous
     * content is then kept.
     */
    loadRdbStream(stream: RdbStream): number;
    /**
     * Loads a Redis RDB file (RDB versions 6 to 12: Redis 2.6 to 8.0) and replaces the
     * engine's databases with all of its databases, selecting `db` (default 0; empty when
     * the file has no such database). Returns the number of keys of the selected database
     * alive at the clock.
     *
     * `options` (optional object):
     * - `patterns: string[]` — Redis globs; keys matching none are skipped without being
     *   materialised.
     * - `compat: string` — answer as this profile (`redis-7.0`, `valkey-9.0`, ...) instead of
     *   the writer (the file's `valkey-ver` / `redis-ver` aux field, else its RDB version).
     * - `clock: 'snapshot' | 'now' | number` — the clock expiry is judged at (default
     *   `'snapshot'`: the file's `ctime`, else now; a number is Unix milliseconds).
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
     * The memory view of every loaded database (expired keys included: they are in the
     * file), as `bitlens inspect` computes it ([`crate::report`]):
     * `{ clockMs, allocator, keys, memory, unknown, noExpiry,
     *    top: [{ db, key, keyDisplay, type, encoding, memory, len, ttlMs }],
     *    byType: [{ type, encoding, keys, memory }],
     *    byPattern: [{ db, pattern, patternDisplay, keys, memory, types: { type: keys } }],
     *    expiring: { days, keys, memory, expiredKeys, expiredMemory,
     *                perDay: [{ untilMs, keys, memory }] },
     *    ttl: [{ name, keys, memory }],
     *    prefixes: [{ depth, prefix, prefixDisplay, keys, memory }],
     *    ledger: [{ db, pattern, patternDisplay, keys, members, current, asSet, asBitmap,
     *               asRoaring, asHash }] | null }`.
     * `ttl` is `inspect`'s expiry histogram ([`crate::report::ttl_histogram`]: no expiry,
     * already expired, within 1 h / 1 d / 7 d, later); `prefixes` its prefix tree
     * ([`crate::report::prefix_tree`], depth-first); `ledger` the memory ledger of every
     * pattern with a bitmap, integer-id set or BITFIELD state key, memory descending
     * (`inspect --ledger`), `null` unless asked.
     * `memory` is the estimate of `MEMORY USAGE key SAMPLES 0` on the snapshot's writer
     * (bytes; `null` for values not modelled, counted as 0 and in `unknown`); `ttlMs` is
     * from the clock (`clockMs`: the snapshot's time unless the load's `clock` said
     * otherwise; now on an engine without a snapshot); `keyDisplay`/`patternDisplay` are the
     * names escaped as redis-cli prints them. `options` (optional): `top` (keys listed,
     * default 20), `patterns` (pattern rows listed, default 50), `days` (the expiry window,
     * default 7, 1..=366), `allocator` (`'jemalloc'` default, `'jemalloc16'`, `'libc'`),
     * `separators` (a string of ASCII separator characters, default `':'`), `depth` (prefix
     * tree depth, default 2), `ledger` (bool, default false), `bitfield` (an array of
     * `'GLOB=TYPE'`: keys priced as BITFIELD state, `inspect --bitfield`). Throws for a bad
     * option.
     */
    memoryReport(options: any): object;
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
     * `PFCOUNT key` for one key, as a number: the same reply as
     * `command(['PFCOUNT', key])` (Redis' errors thrown), without the argv `Array`.
     */
    pfcount(key: string): number;
    /**
     * `BITLENS.RETENTION lookback horizon keys…` as numbers: `{labels, rows}`, one row per
     * cohort day: `[cohort size, back on d+1, …, back on d+horizon]`, `null` past the last
     * key; `labels` are the cohort days' dates (`YYYY-MM-DD` from the key's digits).
     */
    retention(keys: string[], lookback: number, horizon: number): object;
    /**
     * Selects database `db` as `SELECT db` does (throws Redis' error text when out of range).
     */
    select(db: number): void;
    /**
     * Answers as the profile `name` (`redis-7.0`, `valkey-9.0`, ... as the `compat` load
     * option takes it) from now on; `null`/`undefined` goes back to the snapshot writer's
     * profile. Throws for an unknown name, listing the known ones (see [`profiles`]).
     */
    setCompat(name?: string | null): void;
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

/**
 * An RDB file being decoded while it arrives. `new RdbStream(db, options)` takes
 * `loadRdb`'s `db` and options (`patterns`, `checksum`, `compat`, `clock`; `onProgress` is
 * not used: `push` returns the progress). Feed it with `push(bytes)`, then hand it to
 * `engine.loadRdbStream(stream)`. Dropping it (`free()`) cancels the load and leaves the
 * engine untouched.
 */
export class RdbStream {
    free(): void;
    [Symbol.dispose](): void;
    /**
     * Notes the file's length as the download announced it (`Content-Length`): it bounds the
     * keyspace pre-sizing from the file's RESIZEDB record (none without it).
     */
    announceLength(bytes: number): void;
    /**
     * Keys decoded so far (every database).
     */
    keysDecoded(): number;
    /**
     * A stream selecting database `db` (default 0) with `loadRdb`'s options. Throws for bad
     * options.
     */
    constructor(db: number | null | undefined, options: any);
    /**
     * `[decodedBytes, receivedBytes]` so far.
     */
    progress(): Float64Array;
    /**
     * Takes the next bytes of the file and decodes every record they complete; returns
     * `[decodedBytes, receivedBytes]`. Throws `loadRdb`'s error (offset, key) for corrupt
     * input met so far; a truncated file is only known at `loadRdbStream`.
     */
    push(bytes: Uint8Array | number[]): Float64Array;
}

/**
 * Daily actives with the rolling 7/30-day actives (`dau`, `wau`, `mau`: one count per day, as
 * [`Engine::engagement`] gives them; `labels` the days' dates) as an SVG chart (module
 * header); a point per day.
 */
export function dauChart(labels: string[], dau: Float64Array | number[], wau: Float64Array | number[], mau: Float64Array | number[], title: string, style: any): object;

/**
 * A value distribution (`BITLENS.ENUMDIST` counts, [`Engine::enum_distribution`]) as an SVG
 * bar chart up to the last non-zero value; a point per bar.
 */
export function enumChart(hist: Float64Array | number[], title: string, style: any): object;

/**
 * The bit offset Java's `Math.abs(id.hashCode())` gives for `id` (hashed over its UTF-16
 * code units, as `java.lang.String.hashCode`), as a number in `0..=2^31 − 1`; `undefined` for
 * the ids whose hash is `Integer.MIN_VALUE`, where Java's result stays negative and is no bit
 * offset.
 */
export function javaUserOffset(id: string): number | undefined;

/**
 * A map of a nearby-shops search as an SVG chart: the circle of `radius_m` metres around
 * (`lon`, `lat`) in degrees, and the result points given as `coords = [lon0, lat0, lon1, lat1,
 * …]` (degrees), the first `highlight` of them (the page on screen) emphasised; a point per
 * result, in the given order. Axes in kilometres east / north of the centre.
 */
export function nearbyChart(lon: number, lat: number, radius_m: number, coords: Float64Array | number[], highlight: number, title: string, style: any): object;

/**
 * Every server profile the engine can answer as, oldest first per family: an array of
 * `{ name, server }` (`{ name: 'redis-7.4', server: 'Redis 7.4' }`); `name` is what the
 * `compat` option and [`Engine::set_compat`] take (see `crate::dialect::Profile`).
 */
export function profiles(): Array<any>;

/**
 * The retention heatmap of `rows` (as [`Engine::retention`] gives them, flattened:
 * `1 + horizon` numbers per cohort, `NaN` for `null`), rows labelled by `labels`, as an SVG
 * chart; a point per known cell (row = cohort, col = day after − 1).
 */
export function retentionChart(labels: string[], rows: Float64Array | number[], horizon: number, title: string, style: any): object;

/**
 * What a file is, by its content, and who wrote it (see [`crate::rdb::identify`]): an
 * object `{kind: "rdb"|"unsupported-rdb"|"dump"|"raw"|"empty", description, format:
 * {family, rdb_version, magic}|null, writer: {family, rdb_version, magic, server, redis_ver,
 * valkey_ver, description}|null, error: string|null}`. Reads only an RDB file's header and
 * leading aux fields.
 */
export function snapshotInfo(bytes: Uint8Array | number[]): any;

/**
 * A streak histogram (`BITLENS.STREAKHIST`: element `k − 1` = users set in exactly the last
 * `k` days) as an SVG bar chart; a point per bar.
 */
export function streakChart(hist: Float64Array | number[], title: string, style: any): object;

export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

export interface InitOutput {
    readonly memory: WebAssembly.Memory;
    readonly __wbg_engine_free: (a: number, b: number) => void;
    readonly __wbg_rdbstream_free: (a: number, b: number) => void;
    readonly dauChart: (a: number, b: number, c: number, d: number, e: number, f: number, g: number, h: number, i: number, j: number, k: any) => [number, number, number];
    readonly engine_bitcount: (a: number, b: number, c: number) => [number, number, number];
    readonly engine_bitopOrCount: (a: number, b: number, c: number, d: number, e: number) => [number, number, number];
    readonly engine_clear: (a: number) => void;
    readonly engine_command: (a: number, b: any) => [number, number, number];
    readonly engine_commandCli: (a: number, b: any) => [number, number, number, number];
    readonly engine_commandPacked: (a: number, b: number, c: number, d: number, e: number) => [number, number, number];
    readonly engine_commandRaw: (a: number, b: any) => [number, number, number];
    readonly engine_commandResp: (a: number, b: any) => [number, number, number, number];
    readonly engine_dateLabels: (a: number, b: number, c: number) => any;
    readonly engine_dauChartSvg: (a: number, b: number, c: number, d: number, e: number, f: number, g: number) => [number, number, number, number];
    readonly engine_dbsize: (a: number) => number;
    readonly engine_deleteKey: (a: number, b: any) => [number, number, number];
    readonly engine_engagement: (a: number, b: number, c: number) => [number, number, number];
    readonly engine_enumDistribution: (a: number, b: number, c: number, d: number, e: number, f: number) => [number, number, number];
    readonly engine_exportRoaring: (a: number, b: any) => [number, number, number, number];
    readonly engine_geosearch: (a: number, b: number, c: number, d: number, e: number, f: number, g: number, h: number, i: number, j: number) => [number, number, number];
    readonly engine_getbit: (a: number, b: number, c: number, d: number) => [number, number, number];
    readonly engine_info: (a: number) => [number, number, number];
    readonly engine_keyDetail: (a: number, b: any, c: any) => [number, number, number];
    readonly engine_keyLedger: (a: number, b: any, c: any) => [number, number, number];
    readonly engine_keyList: (a: number, b: number, c: number, d: number, e: any) => [number, number, number];
    readonly engine_keys: (a: number, b: number, c: number) => [number, number, number];
    readonly engine_loadDump: (a: number, b: any, c: number, d: number, e: any) => [number, number];
    readonly engine_loadRdb: (a: number, b: number, c: number, d: number, e: number, f: any) => [number, number, number];
    readonly engine_loadRdbBlob: (a: number, b: any, c: number, d: number, e: any) => [number, number, number];
    readonly engine_loadRdbStream: (a: number, b: number) => [number, number, number];
    readonly engine_loadRoaring: (a: number, b: any, c: number, d: number) => [number, number];
    readonly engine_loadString: (a: number, b: any, c: number, d: number) => [number, number];
    readonly engine_memoryReport: (a: number, b: any) => [number, number, number];
    readonly engine_new: () => number;
    readonly engine_pfaddBatch: (a: number, b: any, c: number, d: number, e: number, f: number) => [number, number, number];
    readonly engine_pfcount: (a: number, b: number, c: number) => [number, number, number];
    readonly engine_pfcountEach: (a: number, b: number, c: number) => [number, number, number, number];
    readonly engine_pfcountUnion: (a: number, b: number, c: number) => [number, number, number];
    readonly engine_retention: (a: number, b: number, c: number, d: number, e: number) => [number, number, number];
    readonly engine_select: (a: number, b: number) => [number, number];
    readonly engine_setCompat: (a: number, b: number, c: number) => [number, number];
    readonly engine_setString: (a: number, b: any, c: number, d: number) => [number, number];
    readonly engine_streakChartSvg: (a: number, b: number, c: number, d: number, e: number, f: number, g: number) => [number, number, number, number];
    readonly engine_streakHistogram: (a: number, b: number, c: number) => [number, number, number, number];
    readonly enumChart: (a: number, b: number, c: number, d: number, e: any) => [number, number, number];
    readonly javaUserOffset: (a: number, b: number) => [number, number];
    readonly nearbyChart: (a: number, b: number, c: number, d: number, e: number, f: number, g: number, h: number, i: any) => [number, number, number];
    readonly profiles: () => [number, number, number];
    readonly rdbstream_announceLength: (a: number, b: number) => void;
    readonly rdbstream_keysDecoded: (a: number) => number;
    readonly rdbstream_new: (a: number, b: number, c: any) => [number, number, number];
    readonly rdbstream_progress: (a: number) => [number, number];
    readonly rdbstream_push: (a: number, b: number, c: number) => [number, number, number, number];
    readonly retentionChart: (a: number, b: number, c: number, d: number, e: number, f: number, g: number, h: any) => [number, number, number];
    readonly snapshotInfo: (a: number, b: number) => [number, number, number];
    readonly streakChart: (a: number, b: number, c: number, d: number, e: any) => [number, number, number];
    readonly __wbindgen_exn_store: (a: number) => void;
    readonly __externref_table_alloc: () => number;
    readonly __wbindgen_externrefs: WebAssembly.Table;
    readonly __wbindgen_malloc: (a: number, b: number) => number;
    readonly __wbindgen_realloc: (a: number, b: number, c: number, d: number) => number;
    readonly __wbindgen_free: (a: number, b: number, c: number) => void;
    readonly __externref_drop_slice: (a: number, b: number) => void;
    readonly __externref_table_dealloc: (a: number) => void;
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
