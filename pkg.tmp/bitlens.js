/* @ts-self-types="./bitlens.d.ts" */

/**
 * A bitlens engine: every database of a loaded snapshot (SELECT switches; the selected one
 * is `ks`), answering Redis read commands exactly as the profile's server does (the
 * snapshot's writer unless `compat` says otherwise), with expiry judged at the clock (the
 * snapshot's `ctime` unless `clock` says otherwise).
 */
export class Engine {
    __destroy_into_raw() {
        const ptr = this.__wbg_ptr;
        this.__wbg_ptr = 0;
        EngineFinalization.unregister(this);
        return ptr;
    }
    free() {
        const ptr = this.__destroy_into_raw();
        wasm.__wbg_engine_free(ptr, 0);
    }
    /**
     * `BITCOUNT key`: the number of set bits in the string at `key` (0 when missing).
     * Throws Redis' WRONGTYPE error for a non-string key.
     * @param {string} key
     * @returns {number}
     */
    bitcount(key) {
        const ptr0 = passStringToWasm0(key, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.engine_bitcount(this.__wbg_ptr, ptr0, len0);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return ret[0];
    }
    /**
     * The number of bits set in any of the strings at `keys`: `BITOP OR scratch key...`
     * then `BITCOUNT scratch`. The scratch key (default `bitlens:scratch:bitop`) is restored
     * afterwards (removed, or its previous value put back), so nothing is left behind.
     * @param {string[]} keys
     * @param {string | null} [scratch]
     * @returns {number}
     */
    bitopOrCount(keys, scratch) {
        let ptr0, len0, ptr1, len1;
        try {
            ptr0 = passArrayJsValueToWasm0(keys, wasm.__wbindgen_malloc);
            len0 = WASM_VECTOR_LEN;
            ptr1 = isLikeNone(scratch) ? 0 : passStringToWasm0(scratch, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
            len1 = WASM_VECTOR_LEN;
        } catch (e) {
            if (ptr1) { wasm.__wbindgen_free(ptr1, len1 * 1, 1); }
            if (ptr0) { wasm.__externref_drop_slice(ptr0, len0); wasm.__wbindgen_free(ptr0, len0 * 4, 4); }
            throw e;
        }
        const ret = wasm.engine_bitopOrCount(this.__wbg_ptr, ptr0, len0, ptr1, len1);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return ret[0];
    }
    /**
     * Removes every key.
     */
    clear() {
        wasm.engine_clear(this.__wbg_ptr);
    }
    /**
     * Runs one command and returns exactly what `redis-cli` prints for its reply when stdout
     * is not a terminal (errors included, not thrown), as text (invalid UTF-8 replaced; a
     * non-array `argv` is a `TypeError`).
     * @param {any} argv
     * @returns {string}
     */
    commandCli(argv) {
        let deferred2_0;
        let deferred2_1;
        try {
            const ret = wasm.engine_commandCli(this.__wbg_ptr, argv);
            var ptr1 = ret[0];
            var len1 = ret[1];
            if (ret[3]) {
                ptr1 = 0; len1 = 0;
                throw takeFromExternrefTable0(ret[2]);
            }
            deferred2_0 = ptr1;
            deferred2_1 = len1;
            return getStringFromWasm0(ptr1, len1);
        } finally {
            wasm.__wbindgen_free(deferred2_0, deferred2_1, 1);
        }
    }
    /**
     * Runs one command whose arguments are packed in one buffer: argument i is
     * `args[offsets[i]..offsets[i + 1]]` (bytes), so `offsets` holds one more entry than
     * there are arguments. The reply is that of [`Engine::command`] for the same arguments
     * (error replies thrown). Throws when `offsets` is empty, decreases or points past `args`.
     * @param {Uint8Array | number[]} args
     * @param {Uint32Array | number[]} offsets
     * @returns {any}
     */
    commandPacked(args, offsets) {
        let ptr0, len0, ptr1, len1;
        try {
            ptr0 = passArray8ToWasm0(args, wasm.__wbindgen_malloc);
            len0 = WASM_VECTOR_LEN;
            ptr1 = passArray32ToWasm0(offsets, wasm.__wbindgen_malloc);
            len1 = WASM_VECTOR_LEN;
        } catch (e) {
            if (ptr1) { wasm.__wbindgen_free(ptr1, len1 * 4, 4); }
            if (ptr0) { wasm.__wbindgen_free(ptr0, len0 * 1, 1); }
            throw e;
        }
        const ret = wasm.engine_commandPacked(this.__wbg_ptr, ptr0, len0, ptr1, len1);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * As [`Engine::command`], but bulk strings come back as `Uint8Array` (binary safe: raw
     * bitmap or HyperLogLog bytes from `GET`).
     * @param {any} argv
     * @returns {any}
     */
    commandRaw(argv) {
        const ret = wasm.engine_commandRaw(this.__wbg_ptr, argv);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * Runs one command and returns the exact RESP2 bytes Redis would send (errors included,
     * not thrown; a non-array `argv` is a `TypeError`).
     * @param {any} argv
     * @returns {Uint8Array}
     */
    commandResp(argv) {
        const ret = wasm.engine_commandResp(this.__wbg_ptr, argv);
        if (ret[3]) {
            throw takeFromExternrefTable0(ret[2]);
        }
        var v1 = getArrayU8FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 1, 1);
        return v1;
    }
    /**
     * Runs one Redis command (`['BITCOUNT', 'k', '0', '-1']`) and returns its reply as plain
     * JS values (see the module documentation). An error reply is thrown as an `Error` whose
     * message is Redis' text; an `argv` that is not an array (a string such as
     * `'BITCOUNT k'`) is a `TypeError`.
     * @param {any} argv
     * @returns {any}
     */
    command(argv) {
        const ret = wasm.engine_command(this.__wbg_ptr, argv);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * The date labels (`YYYY-MM-DD`, from each key's trailing digits) of daily `keys`.
     * @param {string[]} keys
     * @returns {Array<any>}
     */
    dateLabels(keys) {
        const ptr0 = passArrayJsValueToWasm0(keys, wasm.__wbindgen_malloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.engine_dateLabels(this.__wbg_ptr, ptr0, len0);
        return ret;
    }
    /**
     * An SVG document (`width` × `height` pixels) charting daily actives with the rolling
     * 7- and 30-day actives of the bitmaps at `keys` (chronological), dates on the x axis.
     * @param {string[]} keys
     * @param {string} title
     * @param {number} width
     * @param {number} height
     * @returns {string}
     */
    dauChartSvg(keys, title, width, height) {
        let deferred6_0;
        let deferred6_1;
        try {
            const val3 = +width;
            const val4 = +height;
            let ptr0, len0, ptr1, len1;
            try {
                ptr0 = passArrayJsValueToWasm0(keys, wasm.__wbindgen_malloc);
                len0 = WASM_VECTOR_LEN;
                ptr1 = passStringToWasm0(title, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
                len1 = WASM_VECTOR_LEN;
            } catch (e) {
                if (ptr1) { wasm.__wbindgen_free(ptr1, len1 * 1, 1); }
                if (ptr0) { wasm.__externref_drop_slice(ptr0, len0); wasm.__wbindgen_free(ptr0, len0 * 4, 4); }
                throw e;
            }
            const ret = wasm.engine_dauChartSvg(this.__wbg_ptr, ptr0, len0, ptr1, len1, val3, val4);
            var ptr5 = ret[0];
            var len5 = ret[1];
            if (ret[3]) {
                ptr5 = 0; len5 = 0;
                throw takeFromExternrefTable0(ret[2]);
            }
            deferred6_0 = ptr5;
            deferred6_1 = len5;
            return getStringFromWasm0(ptr5, len5);
        } finally {
            wasm.__wbindgen_free(deferred6_0, deferred6_1, 1);
        }
    }
    /**
     * Number of keys (as Redis DBSIZE).
     * @returns {number}
     */
    dbsize() {
        const ret = wasm.engine_dbsize(this.__wbg_ptr);
        return ret;
    }
    /**
     * Removes `key`; returns whether it existed.
     * @param {any} key
     * @returns {boolean}
     */
    deleteKey(key) {
        const ret = wasm.engine_deleteKey(this.__wbg_ptr, key);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return ret[0] !== 0;
    }
    /**
     * Engagement over the daily-active bitmaps at `keys` (chronological; missing keys are
     * empty days): `{labels, dau, wau, mau, stickiness}`, arrays of numbers, one per key —
     * daily actives, users active in the 7 / 30 keys ending at each key, and dau/mau (0..1);
     * `labels` are the days' dates (`YYYY-MM-DD` from each key's trailing digits).
     * Throws for a key that does not hold a string.
     * @param {string[]} keys
     * @returns {object}
     */
    engagement(keys) {
        const ptr0 = passArrayJsValueToWasm0(keys, wasm.__wbindgen_malloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.engine_engagement(this.__wbg_ptr, ptr0, len0);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * `BITLENS.ENUMDIST key u<width> [AMONG among]`: the `2^width` counts of the `u<width>`
     * BITFIELD values in `key`, over the users set in bitmap `among` when given, else over
     * every field. Throws when `key` does not exist (`no key …`) or `width` is not in 1..=16.
     * @param {string} key
     * @param {number} width
     * @param {string | null} [among]
     * @returns {Array<any>}
     */
    enumDistribution(key, width, among) {
        const val3 = +width;
        let ptr0, len0, ptr1, len1;
        try {
            ptr0 = passStringToWasm0(key, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
            len0 = WASM_VECTOR_LEN;
            ptr1 = isLikeNone(among) ? 0 : passStringToWasm0(among, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
            len1 = WASM_VECTOR_LEN;
        } catch (e) {
            if (ptr1) { wasm.__wbindgen_free(ptr1, len1 * 1, 1); }
            if (ptr0) { wasm.__wbindgen_free(ptr0, len0 * 1, 1); }
            throw e;
        }
        const ret = wasm.engine_enumDistribution(this.__wbg_ptr, ptr0, len0, val3, ptr1, len1);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * The bitmap at `key` as a portable-format Roaring bitmap (`Uint8Array`): bit offset v
     * becomes value v. A missing key gives an empty bitmap; a non-string key throws Redis'
     * WRONGTYPE error.
     * @param {any} key
     * @returns {Uint8Array}
     */
    exportRoaring(key) {
        const ret = wasm.engine_exportRoaring(this.__wbg_ptr, key);
        if (ret[3]) {
            throw takeFromExternrefTable0(ret[2]);
        }
        var v1 = getArrayU8FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 1, 1);
        return v1;
    }
    /**
     * `GEOSEARCH key FROMLONLAT lon lat BYRADIUS radius unit ASC [COUNT count] WITHDIST
     * WITHCOORD`: the members within `radius` of (`lon`, `lat`) (degrees), nearest first, as
     * an array of `{member, dist, lon, lat}` (`dist` in `unit`: m, km, ft or mi, rounded to
     * 4 decimals as Redis prints it; `lon`/`lat` the member's stored position in degrees).
     * Numbers are sent to the command as JS `String(n)` formats them.
     * @param {string} key
     * @param {number} lon
     * @param {number} lat
     * @param {number} radius
     * @param {string} unit
     * @param {number | null} [count]
     * @returns {Array<any>}
     */
    geosearch(key, lon, lat, radius, unit, count) {
        const val3 = +lon;
        const val4 = +lat;
        const val5 = +radius;
        const val6 = +(isLikeNone(count) ? 0 : count);
        let ptr0, len0, ptr1, len1;
        try {
            ptr0 = passStringToWasm0(key, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
            len0 = WASM_VECTOR_LEN;
            ptr1 = passStringToWasm0(unit, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
            len1 = WASM_VECTOR_LEN;
        } catch (e) {
            if (ptr1) { wasm.__wbindgen_free(ptr1, len1 * 1, 1); }
            if (ptr0) { wasm.__wbindgen_free(ptr0, len0 * 1, 1); }
            throw e;
        }
        const ret = wasm.engine_geosearch(this.__wbg_ptr, ptr0, len0, val3, val4, val5, ptr1, len1, !isLikeNone(count), val6);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * `GETBIT key offset`, as a number (0 or 1): the same reply as
     * `command(['GETBIT', key, offset])` (Redis' errors thrown, e.g. for an offset that is
     * not an integer in range).
     * @param {string} key
     * @param {number} offset
     * @returns {number}
     */
    getbit(key, offset) {
        const val2 = +offset;
        const ptr0 = passStringToWasm0(key, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.engine_getbit(this.__wbg_ptr, ptr0, len0, val2);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return ret[0];
    }
    /**
     * What the engine answers as: `{ profile, server, writer, writerProfile, clockMs,
     * snapshotTimeMs, rdbVersion, selected, databases: [{ db, keys, expired }] }`. `profile`
     * is the `--compat` name in force (`redis-7.4`), `server` its display name (`Redis
     * 7.4`), `writer` true when it is the snapshot's writer; `clockMs` the clock expiry is
     * judged at (`null`: nothing expires), `snapshotTimeMs` the snapshot's `ctime`;
     * `databases` every loaded database with its live and expired key counts.
     * @returns {object}
     */
    info() {
        const ret = wasm.engine_info(this.__wbg_ptr);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
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
     * @param {any} key
     * @param {any} options
     * @returns {any}
     */
    keyDetail(key, options) {
        const ret = wasm.engine_keyDetail(this.__wbg_ptr, key, options);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * The memory ledger of `key` in the selected database (`inspect --ledger` of that key):
     * `{ members, current, asSet: {encoding, memory} | null, asBitmap, asRoaring,
     * asHash: {encoding, memory} | null }`, value bytes of the same members as they are and
     * as each other representation (`null`: the form does not apply), estimated for the
     * snapshot's writer ([`crate::memory::Model::ledger`],
     * [`crate::memory::Model::bitfield_ledger`]); `null` when the key is missing or no form
     * applies. `options`: `allocator`, `bitfield` as [`Engine::memory_report`]. Throws for a
     * bad option.
     * @param {any} key
     * @param {any} options
     * @returns {any}
     */
    keyLedger(key, options) {
        const ret = wasm.engine_keyLedger(this.__wbg_ptr, key, options);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * The keys matching the Redis glob `pattern`, sorted by their bytes: `{ total, keys }`,
     * `total` the number of matches, `keys` the first `limit` of them as
     * `{ key, type, encoding, bytes, memory, ttlMs }` (see [`crate::keydetail::KeySummary`];
     * `ttlMs` is `null` without expiry, counted from the engine's clock). Keys already
     * expired at the clock are left out unless `options.expired` is `true` (their `ttlMs` is
     * then negative).
     * @param {string} pattern
     * @param {number} limit
     * @param {any} options
     * @returns {object}
     */
    keyList(pattern, limit, options) {
        const val2 = +limit;
        const ptr0 = passStringToWasm0(pattern, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.engine_keyList(this.__wbg_ptr, ptr0, len0, val2, options);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * The keys matching a Redis glob `pattern` (as KEYS), sorted by their bytes, as strings.
     * @param {string} pattern
     * @returns {Array<any>}
     */
    keys(pattern) {
        const ptr0 = passStringToWasm0(pattern, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.engine_keys(this.__wbg_ptr, ptr0, len0);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * Loads a `DUMP` payload (a value, its 2-byte RDB version and CRC-64 trailer) under
     * `key` (a string or `Uint8Array`), replacing any previous value. `options` (optional):
     * `checksum: false` skips the CRC-64 check; `ttlMs` gives the key an expiry that many
     * milliseconds after the engine's clock (now on a fresh engine), so `PTTL` and `keyList`
     * answer `ttlMs` back; `compat` (a profile name) sets the profile replies follow (without
     * it, a fresh engine takes the payload's trailer RDB version's writer). Throws an `Error`
     * naming the byte offset on bad input.
     * @param {any} key
     * @param {Uint8Array | number[]} bytes
     * @param {any} options
     */
    loadDump(key, bytes, options) {
        const ptr0 = passArray8ToWasm0(bytes, wasm.__wbindgen_malloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.engine_loadDump(this.__wbg_ptr, key, ptr0, len0, options);
        if (ret[1]) {
            throw takeFromExternrefTable0(ret[0]);
        }
    }
    /**
     * As [`Engine::load_rdb`], but reads the file from a `Blob` (or `File`) in bounded
     * windows of [`BLOB_CHUNK`] bytes through `FileReaderSync`, so the file is never held
     * whole in memory: the reader keeps one window plus the value being decoded (long raw
     * strings are streamed; keys outside `patterns` are skipped without being
     * materialised). Only available inside a Web Worker: elsewhere it throws an `Error`
     * saying so.
     * @param {Blob} blob
     * @param {number | null | undefined} db
     * @param {any} options
     * @returns {number}
     */
    loadRdbBlob(blob, db, options) {
        const ret = wasm.engine_loadRdbBlob(this.__wbg_ptr, blob, !isLikeNone(db), isLikeNone(db) ? 0 : db, options);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return ret[0];
    }
    /**
     * Ends `stream`'s input (consuming the stream), decodes what is left, checks the
     * trailer, and replaces the engine's databases with the decoded ones, as `loadRdb` does
     * for the whole file: returns the number of keys of the selected database alive at the
     * clock. Throws `loadRdb`'s error for a truncated or corrupt file; the engine's previous
     * content is then kept.
     * @param {RdbStream} stream
     * @returns {number}
     */
    loadRdbStream(stream) {
        _assertClass(stream, RdbStream);
        var ptr0 = stream.__destroy_into_raw();
        const ret = wasm.engine_loadRdbStream(this.__wbg_ptr, ptr0);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return ret[0];
    }
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
     * @param {Uint8Array | number[]} bytes
     * @param {number | null | undefined} db
     * @param {any} options
     * @returns {number}
     */
    loadRdb(bytes, db, options) {
        const val2 = +(isLikeNone(db) ? 0 : db);
        const ptr0 = passArray8ToWasm0(bytes, wasm.__wbindgen_malloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.engine_loadRdb(this.__wbg_ptr, ptr0, len0, !isLikeNone(db), val2, options);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return ret[0];
    }
    /**
     * Loads a serialized Roaring bitmap (the portable format of the Java, Go and C
     * libraries) as a bitmap string under `key`: value v becomes bit offset v. Sparse data
     * stays sparse. Throws on a malformed Roaring bitmap.
     * @param {any} key
     * @param {Uint8Array | number[]} bytes
     */
    loadRoaring(key, bytes) {
        const ptr0 = passArray8ToWasm0(bytes, wasm.__wbindgen_malloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.engine_loadRoaring(this.__wbg_ptr, key, ptr0, len0);
        if (ret[1]) {
            throw takeFromExternrefTable0(ret[0]);
        }
    }
    /**
     * Stores raw `GET` bytes under `key` (a string or `Uint8Array`) as a string, replacing
     * any previous value (the same as [`Engine::set_string`]).
     * @param {any} key
     * @param {Uint8Array | number[]} bytes
     */
    loadString(key, bytes) {
        const ptr0 = passArray8ToWasm0(bytes, wasm.__wbindgen_malloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.engine_loadString(this.__wbg_ptr, key, ptr0, len0);
        if (ret[1]) {
            throw takeFromExternrefTable0(ret[0]);
        }
    }
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
     * @param {any} options
     * @returns {object}
     */
    memoryReport(options) {
        const ret = wasm.engine_memoryReport(this.__wbg_ptr, options);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * An engine with an empty database.
     */
    constructor() {
        const ret = wasm.engine_new();
        this.__wbg_ptr = ret;
        EngineFinalization.register(this, this.__wbg_ptr, this);
        return this;
    }
    /**
     * `PFADD key element...` with every element in one buffer, for adding many elements
     * without one JS string per element: element i is `elements[offsets[i]..offsets[i + 1]]`
     * (bytes), so `offsets` holds one more entry than there are elements (none or one entry:
     * no element). The registers, the key's bytes and the reply (1 when the key was created or
     * a register changed, else 0) are exactly those of `PFADD` with the same elements; Redis'
     * errors (a key of another type, a string that is not a HyperLogLog) are thrown. Throws
     * when `offsets` decreases or points past `elements`.
     * @param {any} key
     * @param {Uint8Array | number[]} elements
     * @param {Uint32Array | number[]} offsets
     * @returns {number}
     */
    pfaddBatch(key, elements, offsets) {
        let ptr0, len0, ptr1, len1;
        try {
            ptr0 = passArray8ToWasm0(elements, wasm.__wbindgen_malloc);
            len0 = WASM_VECTOR_LEN;
            ptr1 = passArray32ToWasm0(offsets, wasm.__wbindgen_malloc);
            len1 = WASM_VECTOR_LEN;
        } catch (e) {
            if (ptr1) { wasm.__wbindgen_free(ptr1, len1 * 4, 4); }
            if (ptr0) { wasm.__wbindgen_free(ptr0, len0 * 1, 1); }
            throw e;
        }
        const ret = wasm.engine_pfaddBatch(this.__wbg_ptr, key, ptr0, len0, ptr1, len1);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return ret[0];
    }
    /**
     * `PFCOUNT key` for each key of `keys` separately (for example unique visitors per shop),
     * in one call: returns a `Float64Array` of the counts, in order (0 for a missing key).
     * Each count refreshes that key's cached cardinality, as Redis' single-key PFCOUNT does.
     * Throws Redis' error for the first key that is not a valid HyperLogLog.
     * @param {string[]} keys
     * @returns {Float64Array}
     */
    pfcountEach(keys) {
        const ptr0 = passArrayJsValueToWasm0(keys, wasm.__wbindgen_malloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.engine_pfcountEach(this.__wbg_ptr, ptr0, len0);
        if (ret[3]) {
            throw takeFromExternrefTable0(ret[2]);
        }
        var v2 = getArrayF64FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 8, 8);
        return v2;
    }
    /**
     * `PFCOUNT key [key ...]`: the estimated number of distinct elements in the union of the
     * HyperLogLogs at `keys` (missing keys count as empty), as Redis 7 computes it.
     * @param {string[]} keys
     * @returns {number}
     */
    pfcountUnion(keys) {
        const ptr0 = passArrayJsValueToWasm0(keys, wasm.__wbindgen_malloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.engine_pfcountUnion(this.__wbg_ptr, ptr0, len0);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return ret[0];
    }
    /**
     * `PFCOUNT key` for one key, as a number: the same reply as
     * `command(['PFCOUNT', key])` (Redis' errors thrown), without the argv `Array`.
     * @param {string} key
     * @returns {number}
     */
    pfcount(key) {
        const ptr0 = passStringToWasm0(key, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.engine_pfcount(this.__wbg_ptr, ptr0, len0);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return ret[0];
    }
    /**
     * `BITLENS.RETENTION lookback horizon keys…` as numbers: `{labels, rows}`, one row per
     * cohort day: `[cohort size, back on d+1, …, back on d+horizon]`, `null` past the last
     * key; `labels` are the cohort days' dates (`YYYY-MM-DD` from the key's digits).
     * @param {string[]} keys
     * @param {number} lookback
     * @param {number} horizon
     * @returns {object}
     */
    retention(keys, lookback, horizon) {
        const val2 = +lookback;
        const val3 = +horizon;
        const ptr0 = passArrayJsValueToWasm0(keys, wasm.__wbindgen_malloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.engine_retention(this.__wbg_ptr, ptr0, len0, val2, val3);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return takeFromExternrefTable0(ret[0]);
    }
    /**
     * Selects database `db` as `SELECT db` does (throws Redis' error text when out of range).
     * @param {number} db
     */
    select(db) {
        const ret = wasm.engine_select(this.__wbg_ptr, db);
        if (ret[1]) {
            throw takeFromExternrefTable0(ret[0]);
        }
    }
    /**
     * Answers as the profile `name` (`redis-7.0`, `valkey-9.0`, ... as the `compat` load
     * option takes it) from now on; `null`/`undefined` goes back to the snapshot writer's
     * profile. Throws for an unknown name, listing the known ones (see [`profiles`]).
     * @param {string | null} [name]
     */
    setCompat(name) {
        var ptr0 = isLikeNone(name) ? 0 : passStringToWasm0(name, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        var len0 = WASM_VECTOR_LEN;
        const ret = wasm.engine_setCompat(this.__wbg_ptr, ptr0, len0);
        if (ret[1]) {
            throw takeFromExternrefTable0(ret[0]);
        }
    }
    /**
     * Stores `value` (raw bytes, as `GET` returned them) under `key` as a string, replacing
     * any previous value. `key` is a string or a `Uint8Array`.
     * @param {any} key
     * @param {Uint8Array | number[]} value
     */
    setString(key, value) {
        const ptr0 = passArray8ToWasm0(value, wasm.__wbindgen_malloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.engine_setString(this.__wbg_ptr, key, ptr0, len0);
        if (ret[1]) {
            throw takeFromExternrefTable0(ret[0]);
        }
    }
    /**
     * An SVG document (`width` × `height` pixels) charting [`Engine::streak_histogram`]
     * as bars.
     * @param {string[]} keys
     * @param {string} title
     * @param {number} width
     * @param {number} height
     * @returns {string}
     */
    streakChartSvg(keys, title, width, height) {
        let deferred6_0;
        let deferred6_1;
        try {
            const val3 = +width;
            const val4 = +height;
            let ptr0, len0, ptr1, len1;
            try {
                ptr0 = passArrayJsValueToWasm0(keys, wasm.__wbindgen_malloc);
                len0 = WASM_VECTOR_LEN;
                ptr1 = passStringToWasm0(title, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
                len1 = WASM_VECTOR_LEN;
            } catch (e) {
                if (ptr1) { wasm.__wbindgen_free(ptr1, len1 * 1, 1); }
                if (ptr0) { wasm.__externref_drop_slice(ptr0, len0); wasm.__wbindgen_free(ptr0, len0 * 4, 4); }
                throw e;
            }
            const ret = wasm.engine_streakChartSvg(this.__wbg_ptr, ptr0, len0, ptr1, len1, val3, val4);
            var ptr5 = ret[0];
            var len5 = ret[1];
            if (ret[3]) {
                ptr5 = 0; len5 = 0;
                throw takeFromExternrefTable0(ret[2]);
            }
            deferred6_0 = ptr5;
            deferred6_1 = len5;
            return getStringFromWasm0(ptr5, len5);
        } finally {
            wasm.__wbindgen_free(deferred6_0, deferred6_1, 1);
        }
    }
    /**
     * `BITLENS.STREAKHIST` over the bitmaps at `keys` (chronological, the last is "today"):
     * element `k - 1` is the number of users set in exactly the last `k` keys.
     * @param {string[]} keys
     * @returns {Float64Array}
     */
    streakHistogram(keys) {
        const ptr0 = passArrayJsValueToWasm0(keys, wasm.__wbindgen_malloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.engine_streakHistogram(this.__wbg_ptr, ptr0, len0);
        if (ret[3]) {
            throw takeFromExternrefTable0(ret[2]);
        }
        var v2 = getArrayF64FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 8, 8);
        return v2;
    }
}
if (Symbol.dispose) Engine.prototype[Symbol.dispose] = Engine.prototype.free;

/**
 * An RDB file being decoded while it arrives. `new RdbStream(db, options)` takes
 * `loadRdb`'s `db` and options (`patterns`, `checksum`, `compat`, `clock`; `onProgress` is
 * not used: `push` returns the progress). Feed it with `push(bytes)`, then hand it to
 * `engine.loadRdbStream(stream)`. Dropping it (`free()`) cancels the load and leaves the
 * engine untouched.
 */
export class RdbStream {
    __destroy_into_raw() {
        const ptr = this.__wbg_ptr;
        this.__wbg_ptr = 0;
        RdbStreamFinalization.unregister(this);
        return ptr;
    }
    free() {
        const ptr = this.__destroy_into_raw();
        wasm.__wbg_rdbstream_free(ptr, 0);
    }
    /**
     * Notes the file's length as the download announced it (`Content-Length`): it bounds the
     * keyspace pre-sizing from the file's RESIZEDB record (none without it).
     * @param {number} bytes
     */
    announceLength(bytes) {
        wasm.rdbstream_announceLength(this.__wbg_ptr, bytes);
    }
    /**
     * Keys decoded so far (every database).
     * @returns {number}
     */
    keysDecoded() {
        const ret = wasm.rdbstream_keysDecoded(this.__wbg_ptr);
        return ret;
    }
    /**
     * A stream selecting database `db` (default 0) with `loadRdb`'s options. Throws for bad
     * options.
     * @param {number | null | undefined} db
     * @param {any} options
     */
    constructor(db, options) {
        const ret = wasm.rdbstream_new(!isLikeNone(db), isLikeNone(db) ? 0 : db, options);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        this.__wbg_ptr = ret[0];
        RdbStreamFinalization.register(this, this.__wbg_ptr, this);
        return this;
    }
    /**
     * `[decodedBytes, receivedBytes]` so far.
     * @returns {Float64Array}
     */
    progress() {
        const ret = wasm.rdbstream_progress(this.__wbg_ptr);
        var v1 = getArrayF64FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 8, 8);
        return v1;
    }
    /**
     * Takes the next bytes of the file and decodes every record they complete; returns
     * `[decodedBytes, receivedBytes]`. Throws `loadRdb`'s error (offset, key) for corrupt
     * input met so far; a truncated file is only known at `loadRdbStream`.
     * @param {Uint8Array | number[]} bytes
     * @returns {Float64Array}
     */
    push(bytes) {
        const ptr0 = passArray8ToWasm0(bytes, wasm.__wbindgen_malloc);
        const len0 = WASM_VECTOR_LEN;
        const ret = wasm.rdbstream_push(this.__wbg_ptr, ptr0, len0);
        if (ret[3]) {
            throw takeFromExternrefTable0(ret[2]);
        }
        var v2 = getArrayF64FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 8, 8);
        return v2;
    }
}
if (Symbol.dispose) RdbStream.prototype[Symbol.dispose] = RdbStream.prototype.free;

/**
 * Daily actives with the rolling 7/30-day actives (`dau`, `wau`, `mau`: one count per day, as
 * [`Engine::engagement`] gives them; `labels` the days' dates) as an SVG chart (module
 * header); a point per day.
 * @param {string[]} labels
 * @param {Float64Array | number[]} dau
 * @param {Float64Array | number[]} wau
 * @param {Float64Array | number[]} mau
 * @param {string} title
 * @param {any} style
 * @returns {object}
 */
export function dauChart(labels, dau, wau, mau, title, style) {
    let ptr0, len0, ptr1, len1, ptr2, len2, ptr3, len3, ptr4, len4;
    try {
        ptr0 = passArrayJsValueToWasm0(labels, wasm.__wbindgen_malloc);
        len0 = WASM_VECTOR_LEN;
        ptr1 = passArrayF64ToWasm0(dau, wasm.__wbindgen_malloc);
        len1 = WASM_VECTOR_LEN;
        ptr2 = passArrayF64ToWasm0(wau, wasm.__wbindgen_malloc);
        len2 = WASM_VECTOR_LEN;
        ptr3 = passArrayF64ToWasm0(mau, wasm.__wbindgen_malloc);
        len3 = WASM_VECTOR_LEN;
        ptr4 = passStringToWasm0(title, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        len4 = WASM_VECTOR_LEN;
    } catch (e) {
        if (ptr4) { wasm.__wbindgen_free(ptr4, len4 * 1, 1); }
        if (ptr3) { wasm.__wbindgen_free(ptr3, len3 * 8, 8); }
        if (ptr2) { wasm.__wbindgen_free(ptr2, len2 * 8, 8); }
        if (ptr1) { wasm.__wbindgen_free(ptr1, len1 * 8, 8); }
        if (ptr0) { wasm.__externref_drop_slice(ptr0, len0); wasm.__wbindgen_free(ptr0, len0 * 4, 4); }
        throw e;
    }
    const ret = wasm.dauChart(ptr0, len0, ptr1, len1, ptr2, len2, ptr3, len3, ptr4, len4, style);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * A value distribution (`BITLENS.ENUMDIST` counts, [`Engine::enum_distribution`]) as an SVG
 * bar chart up to the last non-zero value; a point per bar.
 * @param {Float64Array | number[]} hist
 * @param {string} title
 * @param {any} style
 * @returns {object}
 */
export function enumChart(hist, title, style) {
    let ptr0, len0, ptr1, len1;
    try {
        ptr0 = passArrayF64ToWasm0(hist, wasm.__wbindgen_malloc);
        len0 = WASM_VECTOR_LEN;
        ptr1 = passStringToWasm0(title, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        len1 = WASM_VECTOR_LEN;
    } catch (e) {
        if (ptr1) { wasm.__wbindgen_free(ptr1, len1 * 1, 1); }
        if (ptr0) { wasm.__wbindgen_free(ptr0, len0 * 8, 8); }
        throw e;
    }
    const ret = wasm.enumChart(ptr0, len0, ptr1, len1, style);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * The bit offset Java's `Math.abs(id.hashCode())` gives for `id` (hashed over its UTF-16
 * code units, as `java.lang.String.hashCode`), as a number in `0..=2^31 − 1`; `undefined` for
 * the ids whose hash is `Integer.MIN_VALUE`, where Java's result stays negative and is no bit
 * offset.
 * @param {string} id
 * @returns {number | undefined}
 */
export function javaUserOffset(id) {
    const ptr0 = passStringToWasm0(id, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.javaUserOffset(ptr0, len0);
    return ret[0] === 0 ? undefined : ret[1];
}

/**
 * A map of a nearby-shops search as an SVG chart: the circle of `radius_m` metres around
 * (`lon`, `lat`) in degrees, and the result points given as `coords = [lon0, lat0, lon1, lat1,
 * …]` (degrees), the first `highlight` of them (the page on screen) emphasised; a point per
 * result, in the given order. Axes in kilometres east / north of the centre.
 * @param {number} lon
 * @param {number} lat
 * @param {number} radius_m
 * @param {Float64Array | number[]} coords
 * @param {number} highlight
 * @param {string} title
 * @param {any} style
 * @returns {object}
 */
export function nearbyChart(lon, lat, radius_m, coords, highlight, title, style) {
    const val3 = +lon;
    const val4 = +lat;
    const val5 = +radius_m;
    const val6 = +highlight;
    let ptr0, len0, ptr1, len1;
    try {
        ptr0 = passArrayF64ToWasm0(coords, wasm.__wbindgen_malloc);
        len0 = WASM_VECTOR_LEN;
        ptr1 = passStringToWasm0(title, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        len1 = WASM_VECTOR_LEN;
    } catch (e) {
        if (ptr1) { wasm.__wbindgen_free(ptr1, len1 * 1, 1); }
        if (ptr0) { wasm.__wbindgen_free(ptr0, len0 * 8, 8); }
        throw e;
    }
    const ret = wasm.nearbyChart(val3, val4, val5, ptr0, len0, val6, ptr1, len1, style);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * Every server profile the engine can answer as, oldest first per family: an array of
 * `{ name, server }` (`{ name: 'redis-7.4', server: 'Redis 7.4' }`); `name` is what the
 * `compat` option and [`Engine::set_compat`] take (see `crate::dialect::Profile`).
 * @returns {Array<any>}
 */
export function profiles() {
    const ret = wasm.profiles();
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * The retention heatmap of `rows` (as [`Engine::retention`] gives them, flattened:
 * `1 + horizon` numbers per cohort, `NaN` for `null`), rows labelled by `labels`, as an SVG
 * chart; a point per known cell (row = cohort, col = day after − 1).
 * @param {string[]} labels
 * @param {Float64Array | number[]} rows
 * @param {number} horizon
 * @param {string} title
 * @param {any} style
 * @returns {object}
 */
export function retentionChart(labels, rows, horizon, title, style) {
    const val4 = +horizon;
    let ptr0, len0, ptr1, len1, ptr2, len2;
    try {
        ptr0 = passArrayJsValueToWasm0(labels, wasm.__wbindgen_malloc);
        len0 = WASM_VECTOR_LEN;
        ptr1 = passArrayF64ToWasm0(rows, wasm.__wbindgen_malloc);
        len1 = WASM_VECTOR_LEN;
        ptr2 = passStringToWasm0(title, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        len2 = WASM_VECTOR_LEN;
    } catch (e) {
        if (ptr2) { wasm.__wbindgen_free(ptr2, len2 * 1, 1); }
        if (ptr1) { wasm.__wbindgen_free(ptr1, len1 * 8, 8); }
        if (ptr0) { wasm.__externref_drop_slice(ptr0, len0); wasm.__wbindgen_free(ptr0, len0 * 4, 4); }
        throw e;
    }
    const ret = wasm.retentionChart(ptr0, len0, ptr1, len1, val4, ptr2, len2, style);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * What a file is, by its content, and who wrote it (see [`crate::rdb::identify`]): an
 * object `{kind: "rdb"|"unsupported-rdb"|"dump"|"raw"|"empty", description, format:
 * {family, rdb_version, magic}|null, writer: {family, rdb_version, magic, server, redis_ver,
 * valkey_ver, description}|null, error: string|null}`. Reads only an RDB file's header and
 * leading aux fields.
 * @param {Uint8Array | number[]} bytes
 * @returns {any}
 */
export function snapshotInfo(bytes) {
    const ptr0 = passArray8ToWasm0(bytes, wasm.__wbindgen_malloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.snapshotInfo(ptr0, len0);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}

/**
 * A streak histogram (`BITLENS.STREAKHIST`: element `k − 1` = users set in exactly the last
 * `k` days) as an SVG bar chart; a point per bar.
 * @param {Float64Array | number[]} hist
 * @param {string} title
 * @param {any} style
 * @returns {object}
 */
export function streakChart(hist, title, style) {
    let ptr0, len0, ptr1, len1;
    try {
        ptr0 = passArrayF64ToWasm0(hist, wasm.__wbindgen_malloc);
        len0 = WASM_VECTOR_LEN;
        ptr1 = passStringToWasm0(title, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        len1 = WASM_VECTOR_LEN;
    } catch (e) {
        if (ptr1) { wasm.__wbindgen_free(ptr1, len1 * 1, 1); }
        if (ptr0) { wasm.__wbindgen_free(ptr0, len0 * 8, 8); }
        throw e;
    }
    const ret = wasm.streakChart(ptr0, len0, ptr1, len1, style);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return takeFromExternrefTable0(ret[0]);
}
function __wbg_get_imports() {
    const import0 = {
        __proto__: null,
        __wbg_Error_208446807d0d1e30: function(arg0, arg1) {
            const ret = Error(getStringFromWasm0(arg0, arg1));
            return ret;
        },
        __wbg_Function_5062278c19bb9643: function() { return handleError(function (arg0, arg1) {
            const ret = Function(getStringFromWasm0(arg0, arg1));
            return ret;
        }, arguments); },
        __wbg___wbindgen_boolean_get_4f1baf9a00be3c74: function(arg0) {
            const v = arg0;
            const ret = typeof(v) === 'boolean' ? v : undefined;
            return isLikeNone(ret) ? 0xFFFFFF : ret ? 1 : 0;
        },
        __wbg___wbindgen_debug_string_f249a2a76caa9a55: function(arg0, arg1) {
            const ret = debugString(arg1);
            const ptr1 = passStringToWasm0(ret, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
            const len1 = WASM_VECTOR_LEN;
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
        },
        __wbg___wbindgen_is_function_741ff2bb612836f5: function(arg0) {
            const ret = typeof(arg0) === 'function';
            return ret;
        },
        __wbg___wbindgen_is_null_c22311b1cc228e3a: function(arg0) {
            const ret = arg0 === null;
            return ret;
        },
        __wbg___wbindgen_is_object_8b968c3ab8e96595: function(arg0) {
            const val = arg0;
            const ret = typeof(val) === 'object' && val !== null;
            return ret;
        },
        __wbg___wbindgen_is_string_fc456fee5d3317de: function(arg0) {
            const ret = typeof(arg0) === 'string';
            return ret;
        },
        __wbg___wbindgen_is_undefined_be5b34249ff1fc15: function(arg0) {
            const ret = arg0 === undefined;
            return ret;
        },
        __wbg___wbindgen_number_get_934b640d0889af78: function(arg0, arg1) {
            const obj = arg1;
            const ret = typeof(obj) === 'number' ? obj : undefined;
            getDataViewMemory0().setFloat64((arg0 >>> 0) + 8 * 1, isLikeNone(ret) ? 0 : ret, true);
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, !isLikeNone(ret), true);
        },
        __wbg___wbindgen_string_get_7ce8eee7fd327545: function(arg0, arg1) {
            const obj = arg1;
            const ret = typeof(obj) === 'string' ? obj : undefined;
            var ptr1 = isLikeNone(ret) ? 0 : passStringToWasm0(ret, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
            var len1 = WASM_VECTOR_LEN;
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
            getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
        },
        __wbg___wbindgen_throw_4c88d8bf264fd984: function(arg0, arg1) {
            throw new Error(getStringFromWasm0(arg0, arg1));
        },
        __wbg___wbindgen_typeof_ee4990276e02f607: function(arg0) {
            const ret = typeof arg0;
            return ret;
        },
        __wbg_append_f59276caeca64f04: function() { return handleError(function (arg0, arg1) {
            arg0.append(arg1);
        }, arguments); },
        __wbg_body_5f971cbc6950ca4f: function(arg0) {
            const ret = arg0.body;
            return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
        },
        __wbg_call_40b008ba32f73991: function() { return handleError(function (arg0, arg1) {
            const ret = arg0.call(arg1);
            return ret;
        }, arguments); },
        __wbg_call_a410eb4b59ed5965: function() { return handleError(function (arg0, arg1, arg2) {
            const ret = arg0.call(arg1, arg2);
            return ret;
        }, arguments); },
        __wbg_call_fc92fee6137d452d: function() { return handleError(function (arg0, arg1, arg2, arg3) {
            const ret = arg0.call(arg1, arg2, arg3);
            return ret;
        }, arguments); },
        __wbg_createElement_de4a31ed2fb252be: function() { return handleError(function (arg0, arg1, arg2) {
            const ret = arg0.createElement(getStringFromWasm0(arg1, arg2));
            return ret;
        }, arguments); },
        __wbg_document_3b5c3071b43e97ee: function(arg0) {
            const ret = arg0.document;
            return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
        },
        __wbg_from_eac91875c8a5ffa4: function(arg0) {
            const ret = Array.from(arg0);
            return ret;
        },
        __wbg_get_2080c49015e35254: function() { return handleError(function (arg0, arg1) {
            const ret = Reflect.get(arg0, arg1);
            return ret;
        }, arguments); },
        __wbg_get_unchecked_e6325ad374eff861: function(arg0, arg1) {
            const ret = arg0[arg1 >>> 0];
            return ret;
        },
        __wbg_instanceof_Error_74e3cca0c4a69161: function(arg0) {
            let result;
            try {
                result = arg0 instanceof Error;
            } catch (_) {
                result = false;
            }
            const ret = result;
            return ret;
        },
        __wbg_instanceof_HtmlElement_ea32ea7121e0a496: function(arg0) {
            let result;
            try {
                result = arg0 instanceof HTMLElement;
            } catch (_) {
                result = false;
            }
            const ret = result;
            return ret;
        },
        __wbg_instanceof_Uint8Array_d7aeb0dcb3108fea: function(arg0) {
            let result;
            try {
                result = arg0 instanceof Uint8Array;
            } catch (_) {
                result = false;
            }
            const ret = result;
            return ret;
        },
        __wbg_instanceof_Window_5cf453f5639aa1a2: function(arg0) {
            let result;
            try {
                result = arg0 instanceof Window;
            } catch (_) {
                result = false;
            }
            const ret = result;
            return ret;
        },
        __wbg_isArray_bcf1376d0d732d08: function(arg0) {
            const ret = Array.isArray(arg0);
            return ret;
        },
        __wbg_length_186163212ffe79c3: function(arg0) {
            const ret = arg0.length;
            return ret;
        },
        __wbg_length_b03a0fabb109b1e9: function(arg0) {
            const ret = arg0.length;
            return ret;
        },
        __wbg_message_43d8c8f1d543a349: function(arg0) {
            const ret = arg0.message;
            return ret;
        },
        __wbg_new_13de428334042d26: function(arg0) {
            const ret = new Uint8Array(arg0);
            return ret;
        },
        __wbg_new_37eb45aaf5eeb820: function() {
            const ret = new Array();
            return ret;
        },
        __wbg_new_4416a2fe2fac9c65: function(arg0, arg1) {
            const ret = new TypeError(getStringFromWasm0(arg0, arg1));
            return ret;
        },
        __wbg_new_787b9fb330d55d78: function(arg0, arg1) {
            const ret = new Error(getStringFromWasm0(arg0, arg1));
            return ret;
        },
        __wbg_new_cd4348290afae586: function() {
            const ret = new Object();
            return ret;
        },
        __wbg_new_f2c208823248a2e7: function() { return handleError(function () {
            const ret = new FileReaderSync();
            return ret;
        }, arguments); },
        __wbg_new_from_slice_aaf85a9746711968: function(arg0, arg1) {
            const ret = new Float64Array(getArrayF64FromWasm0(arg0, arg1));
            return ret;
        },
        __wbg_new_from_slice_b8daf545a41c6aa0: function(arg0, arg1) {
            const ret = new Uint8Array(getArrayU8FromWasm0(arg0, arg1));
            return ret;
        },
        __wbg_now_463ac581d2fc7ea3: function() {
            const ret = Date.now();
            return ret;
        },
        __wbg_offsetHeight_91ca9e2be23502e5: function(arg0) {
            const ret = arg0.offsetHeight;
            return ret;
        },
        __wbg_offsetWidth_ec7d4ad6adc7e29d: function(arg0) {
            const ret = arg0.offsetWidth;
            return ret;
        },
        __wbg_prototypesetcall_13162965d1fe7aa3: function(arg0, arg1, arg2) {
            Uint8Array.prototype.set.call(getArrayU8FromWasm0(arg0, arg1), arg2);
        },
        __wbg_push_c9f4893fc209f768: function(arg0, arg1) {
            const ret = arg0.push(arg1);
            return ret;
        },
        __wbg_readAsArrayBuffer_b7018416df375ab3: function() { return handleError(function (arg0, arg1) {
            const ret = arg0.readAsArrayBuffer(arg1);
            return ret;
        }, arguments); },
        __wbg_remove_8228e91d7ddbc755: function(arg0) {
            arg0.remove();
        },
        __wbg_setAttribute_f75317b2b5cabfb4: function() { return handleError(function (arg0, arg1, arg2, arg3, arg4) {
            arg0.setAttribute(getStringFromWasm0(arg1, arg2), getStringFromWasm0(arg3, arg4));
        }, arguments); },
        __wbg_set_2793479888329cb6: function() { return handleError(function (arg0, arg1, arg2) {
            const ret = Reflect.set(arg0, arg1, arg2);
            return ret;
        }, arguments); },
        __wbg_set_textContent_0177b2a6d9293c2c: function(arg0, arg1, arg2) {
            arg0.textContent = arg1 === 0 ? undefined : getStringFromWasm0(arg1, arg2);
        },
        __wbg_size_9d1084e29743663c: function(arg0) {
            const ret = arg0.size;
            return ret;
        },
        __wbg_slice_b94f88ac0a502e53: function() { return handleError(function (arg0, arg1, arg2) {
            const ret = arg0.slice(arg1, arg2);
            return ret;
        }, arguments); },
        __wbg_static_accessor_GLOBAL_THIS_003ee833af9699fc: function() {
            const ret = typeof globalThis === 'undefined' ? undefined : globalThis;
            return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
        },
        __wbg_static_accessor_GLOBAL_e4293fb22cbe77da: function() {
            const ret = typeof global === 'undefined' ? undefined : global;
            return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
        },
        __wbg_static_accessor_SELF_53bb20457401453d: function() {
            const ret = typeof self === 'undefined' ? undefined : self;
            return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
        },
        __wbg_static_accessor_WINDOW_b5e0810bfecb7feb: function() {
            const ret = typeof window === 'undefined' ? undefined : window;
            return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
        },
        __wbg_subarray_58f388a9247ac0bb: function(arg0, arg1, arg2) {
            const ret = arg0.subarray(arg1 >>> 0, arg2 >>> 0);
            return ret;
        },
        __wbg_toString_6b1cac73c93ef5d1: function() { return handleError(function (arg0, arg1) {
            const ret = arg0.toString(arg1);
            return ret;
        }, arguments); },
        __wbindgen_generic_0000000000000001: function(arg0) {
            // Cast intrinsic for `F64 -> Externref`.
            const ret = arg0;
            return ret;
        },
        __wbindgen_generic_0000000000000002: function(arg0, arg1) {
            // Cast intrinsic for `Ref(String) -> Externref`.
            const ret = getStringFromWasm0(arg0, arg1);
            return ret;
        },
        __wbindgen_init_externref_table: function() {
            const table = wasm.__wbindgen_externrefs;
            table.set(0, undefined);
            table.set(1024, undefined);
            table.set(1025, null);
            table.set(1026, true);
            table.set(1027, false);
        },
    };
    return {
        __proto__: null,
        "./bitlens_bg.js": import0,
    };
}

const EngineFinalization = (typeof FinalizationRegistry === 'undefined')
    ? { register: () => {}, unregister: () => {} }
    : new FinalizationRegistry(ptr => wasm.__wbg_engine_free(ptr, 1));
const RdbStreamFinalization = (typeof FinalizationRegistry === 'undefined')
    ? { register: () => {}, unregister: () => {} }
    : new FinalizationRegistry(ptr => wasm.__wbg_rdbstream_free(ptr, 1));

function addToExternrefTable0(obj) {
    const idx = wasm.__externref_table_alloc();
    wasm.__wbindgen_externrefs.set(idx, obj);
    return idx;
}

function _assertClass(instance, klass) {
    if (!(instance instanceof klass)) {
        throw new Error(`expected instance of ${klass.name}`);
    }
}

function debugString(val) {
    switch (typeof val) {
        // primitive types
        case 'number':
        case 'boolean':
        case 'undefined':
        return `${val}`;
        case 'string':
        return JSON.stringify(val);
        case 'bigint':
        return `${val}n`;
        case 'symbol':
        return val.description !== undefined
            ? `Symbol(${val.description})`
            : 'Symbol';
        case 'function':
        return typeof val.name === 'string' && val.name !== ''
            ? `Function(${val.name})`
            : 'Function';
        case 'object': {
            if (val === null) {
                return 'null';
            }
            // objects
            if (Array.isArray(val)) {
                return '[' + Array.from(val, debugString).join(', ') + ']';
            }
            // errors
            if (val instanceof Error) {
                return `${val.name}: ${val.message}\n${val.stack}`;
            }

            const toStringOutput = toString.call(val);
            // Test for built-in
            const className = /\[object ([^\]]+)\]/.exec(toStringOutput)?.[1];

            // Failed to match the standard '[object ClassName]'
            if (className === undefined) {
                return toStringOutput;
            }
            if (className === 'Object') {
                // we're a user defined class or Object
                // JSON.stringify avoids problems with cycles, and is generally much
                // easier than looping through ownProperties of `val`.
                try {
                    return 'Object(' + JSON.stringify(val) + ')';
                } catch (_) {
                    return 'Object';
                }
            }
            // TODO we could test for more things here, like `Set`s and `Map`s.
            return className;
        }
        // Per MDN: 'This list of values is exhaustive.'
        // https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Operators/typeof#description
    }
}

function getArrayF64FromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    return getFloat64ArrayMemory0().subarray(ptr / 8, ptr / 8 + len);
}

function getArrayU8FromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    return getUint8ArrayMemory0().subarray(ptr / 1, ptr / 1 + len);
}

let cachedDataViewMemory0 = null;
function getDataViewMemory0() {
    if (cachedDataViewMemory0 === null || cachedDataViewMemory0.buffer.detached === true || (cachedDataViewMemory0.buffer.detached === undefined && cachedDataViewMemory0.buffer !== wasm.memory.buffer)) {
        cachedDataViewMemory0 = new DataView(wasm.memory.buffer);
    }
    return cachedDataViewMemory0;
}

let cachedFloat64ArrayMemory0 = null;
function getFloat64ArrayMemory0() {
    if (cachedFloat64ArrayMemory0 === null || cachedFloat64ArrayMemory0.byteLength === 0) {
        cachedFloat64ArrayMemory0 = new Float64Array(wasm.memory.buffer);
    }
    return cachedFloat64ArrayMemory0;
}

function getStringFromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    return decodeText(getUint8ArrayMemory0().subarray(ptr, ptr + len));
}

let cachedUint32ArrayMemory0 = null;
function getUint32ArrayMemory0() {
    if (cachedUint32ArrayMemory0 === null || cachedUint32ArrayMemory0.byteLength === 0) {
        cachedUint32ArrayMemory0 = new Uint32Array(wasm.memory.buffer);
    }
    return cachedUint32ArrayMemory0;
}

let cachedUint8ArrayMemory0 = null;
function getUint8ArrayMemory0() {
    if (cachedUint8ArrayMemory0 === null || cachedUint8ArrayMemory0.byteLength === 0) {
        cachedUint8ArrayMemory0 = new Uint8Array(wasm.memory.buffer);
    }
    return cachedUint8ArrayMemory0;
}

function handleError(f, args) {
    try {
        return f.apply(this, args);
    } catch (e) {
        const idx = addToExternrefTable0(e);
        wasm.__wbindgen_exn_store(idx);
    }
}

function isLikeNone(x) {
    return x === undefined || x === null;
}

function passArray32ToWasm0(arg, malloc) {
    const ptr = malloc(arg.length * 4, 4) >>> 0;
    getUint32ArrayMemory0().set(arg, ptr / 4);
    WASM_VECTOR_LEN = arg.length;
    return ptr;
}

function passArray8ToWasm0(arg, malloc) {
    const ptr = malloc(arg.length * 1, 1) >>> 0;
    getUint8ArrayMemory0().set(arg, ptr / 1);
    WASM_VECTOR_LEN = arg.length;
    return ptr;
}

function passArrayF64ToWasm0(arg, malloc) {
    const ptr = malloc(arg.length * 8, 8) >>> 0;
    getFloat64ArrayMemory0().set(arg, ptr / 8);
    WASM_VECTOR_LEN = arg.length;
    return ptr;
}

function passArrayJsValueToWasm0(array, malloc) {
    const ptr = malloc(array.length * 4, 4) >>> 0;
    for (let i = 0; i < array.length; i++) {
        const add = addToExternrefTable0(array[i]);
        getDataViewMemory0().setUint32(ptr + 4 * i, add, true);
    }
    WASM_VECTOR_LEN = array.length;
    return ptr;
}

function passStringToWasm0(arg, malloc, realloc) {
    if (realloc === undefined) {
        const buf = cachedTextEncoder.encode(arg);
        const ptr = malloc(buf.length, 1) >>> 0;
        getUint8ArrayMemory0().subarray(ptr, ptr + buf.length).set(buf);
        WASM_VECTOR_LEN = buf.length;
        return ptr;
    }

    let len = arg.length;
    let ptr = malloc(len, 1) >>> 0;

    const mem = getUint8ArrayMemory0();

    let offset = 0;

    for (; offset < len; offset++) {
        const code = arg.charCodeAt(offset);
        if (code > 0x7F) break;
        mem[ptr + offset] = code;
    }
    if (offset !== len) {
        if (offset !== 0) {
            arg = arg.slice(offset);
        }
        ptr = realloc(ptr, len, len = offset + arg.length * 3, 1) >>> 0;
        const view = getUint8ArrayMemory0().subarray(ptr + offset, ptr + len);
        const ret = cachedTextEncoder.encodeInto(arg, view);

        offset += ret.written;
        ptr = realloc(ptr, len, offset, 1) >>> 0;
    }

    WASM_VECTOR_LEN = offset;
    return ptr;
}

function takeFromExternrefTable0(idx) {
    const value = wasm.__wbindgen_externrefs.get(idx);
    wasm.__externref_table_dealloc(idx);
    return value;
}

let cachedTextDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
cachedTextDecoder.decode();
const MAX_SAFARI_DECODE_BYTES = 2146435072;
let numBytesDecoded = 0;
function decodeText(bytes) {
    numBytesDecoded += bytes.length;
    if (numBytesDecoded >= MAX_SAFARI_DECODE_BYTES) {
        cachedTextDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
        cachedTextDecoder.decode();
        numBytesDecoded = bytes.length;
    }
    return cachedTextDecoder.decode(bytes);
}

const cachedTextEncoder = new TextEncoder();

if (!('encodeInto' in cachedTextEncoder)) {
    cachedTextEncoder.encodeInto = function (arg, view) {
        const buf = cachedTextEncoder.encode(arg);
        view.set(buf);
        return {
            read: arg.length,
            written: buf.length
        };
    };
}

let WASM_VECTOR_LEN = 0;

let wasmModule, wasmInstance, wasm;
function __wbg_finalize_init(instance, module) {
    wasmInstance = instance;
    wasm = instance.exports;
    wasmModule = module;
    cachedDataViewMemory0 = null;
    cachedFloat64ArrayMemory0 = null;
    cachedUint32ArrayMemory0 = null;
    cachedUint8ArrayMemory0 = null;
    wasm.__wbindgen_start();
    return wasm;
}

async function __wbg_load(module, imports) {
    if (typeof Response === 'function' && module instanceof Response) {
        if (!module.ok) {
            throw new Error(`failed to fetch Wasm: ${module.status} ${module.statusText} fetching '${module.url}'`);
        }

        if (typeof WebAssembly.instantiateStreaming === 'function') {
            try {
                return await WebAssembly.instantiateStreaming(module, imports);
            } catch (e) {
                const validResponse = expectedResponseType(module.type);

                if (validResponse && module.headers.get('Content-Type') !== 'application/wasm') {
                    console.warn("`WebAssembly.instantiateStreaming` failed because your server does not serve Wasm with `application/wasm` MIME type. Falling back to `WebAssembly.instantiate` which is slower. Original error:\n", e);

                } else { throw e; }
            }
        }

        const bytes = await module.arrayBuffer();
        return await WebAssembly.instantiate(bytes, imports);
    } else {
        const instance = await WebAssembly.instantiate(module, imports);

        if (instance instanceof WebAssembly.Instance) {
            return { instance, module };
        } else {
            return instance;
        }
    }

    function expectedResponseType(type) {
        switch (type) {
            case 'basic': case 'cors': case 'default': return true;
        }
        return false;
    }
}

function initSync(module) {
    if (wasm !== undefined) return wasm;


    if (module !== undefined) {
        if (Object.getPrototypeOf(module) === Object.prototype) {
            ({module} = module)
        } else {
            console.warn('using deprecated parameters for `initSync()`; pass a single object instead')
        }
    }

    const imports = __wbg_get_imports();
    if (!(module instanceof WebAssembly.Module)) {
        module = new WebAssembly.Module(module);
    }
    const instance = new WebAssembly.Instance(module, imports);
    return __wbg_finalize_init(instance, module);
}

let __wbg_init_promise;
async function __wbg_init(module_or_path) {
    if (wasm !== undefined) return wasm;
    if (__wbg_init_promise === undefined) {
        __wbg_init_promise = __wbg_init_once(module_or_path);
        __wbg_init_promise.catch(() => { __wbg_init_promise = undefined; });
    }
    return __wbg_init_promise;
}

async function __wbg_init_once(module_or_path) {

    if (module_or_path !== undefined) {
        if (Object.getPrototypeOf(module_or_path) === Object.prototype) {
            ({module_or_path} = module_or_path)
        } else {
            console.warn('using deprecated parameters for the initialization function; pass a single object instead')
        }
    }

    if (module_or_path === undefined) {
        module_or_path = new URL('bitlens_bg.wasm', import.meta.url);
    }
    const imports = __wbg_get_imports();

    if (typeof module_or_path === 'string' || (typeof Request === 'function' && module_or_path instanceof Request) || (typeof URL === 'function' && module_or_path instanceof URL)) {
        module_or_path = fetch(module_or_path);
    }

    const { instance, module } = await __wbg_load(await module_or_path, imports);

    return __wbg_finalize_init(instance, module);
}

export { initSync, __wbg_init as default };
