// The two wasm modules, each held to its size after gzip -9 (what a page downloads):
// - the engine module (pkg/bitlens_bg.wasm, crates/wasm), which the panel's Web Worker runs:
//   the whole engine at opt-level 3 (the kernels' speed), no plotters;
// - the page's chart module (pkg/bitlens_charts_bg.wasm, crates/wasm-charts): plotters, the
//   chart functions and the user-id rule, no engine, built for size.
// The bounds and how they were chosen are in Cargo.toml ([profile.wasm], [profile.wasm-charts]).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT } from './harness.mjs';
import { crateShares } from './wasm-shares.mjs';

/** Bytes after gzip -9 of pkg/`name`. */
function gzipped(name) {
  const file = path.join(ROOT, 'pkg', name);
  assert.ok(existsSync(file), `${file} is missing: run bash scripts/build.sh --wasm-only`);
  return gzipSync(readFileSync(file), { level: 9 }).length;
}

const MODULES = [
  // Issue 28 asked for 390 KB. Without plotters the engine module is 432 KB here (428 KB by
  // gzip -9), 61 KB less than the single module was; opt-level "s" would make it 368 KB at
  // 1.3-1.8x the kernels' time (Cargo.toml [profile.wasm]). So the bound was that size + 3%
  // (445,000). By stop 44 the module had grown to 446,734 bytes (the union builder, side
  // engines, sorted sets kept as their blob, allocation-free element lengths): the bound is
  // now 460,000 (+3% again), and issue 28's 390 KB stays open. Stop 46: the typed options and
  // results (serde + tsify, the catching copy of the options) cost about 14 KB of the engine
  // module and 5.6 KB of the chart module; one copy of the RDB reader for every load (4 KB)
  // and the stream loader's sorts through src/sort.rs (7.5 KB) paid for most of it: 453,726
  // bytes, the bound unchanged. The chart module is 119,978 bytes, 22 under the bound issue 28
  // set (120 KB): the style's three serde structs are most of the growth.
  // Stop 50: 460,061 bytes (459,459 at stop 48; out-of-line helpers had kept stop 49's load
  // arena at 458,775): a loaded sorted set or one-node list kept as one pointer to its blob
  // until read (9.6 MB less on the 3M-key file, `thin::Lazy`), the stream's `announceLen`
  // (the keyspace sized once: 38 MB less wasm memory there) and the loaders' skipping of
  // empty collections as Redis 6.2+ / Valkey do. Inlining the new code out of every read
  // site was tried (twiggy) and had brought it from 460,424. The bound is 461,000 (+0.2%).
  // Stop 51: 463,156 bytes: the loaders index keys a batch at a time in bucket order
  // (src/rdb/bulk.rs, Keyspace::index_pending) and refuse a key repeated in one file as the
  // native loaders do (the wasm loaders had kept its last value): 1M small keys load in
  // 1.01 s instead of 1.45 s, the 3M-key file in 2.19 s instead of 3.40 s (bench/RESULTS.md). The repeats'
  // sort goes through src/sort.rs (a new pair sort had cost 7 KB). The bound is 464,000 (+0.65%).
  // Stop 52 (issue 50): a bound is a ratchet. Each is the size measured at its last change
  // (by Node's zlib level 9, as below; the build is deterministic, so runs do not differ)
  // plus a stated margin, room for a small fix, not for a feature: engine 463,303 bytes
  // + 697 (0.15%) = 464,000; charts 119,966 + 34 = 120,000 (no room left: its next growth
  // needs a decision). Lower a bound whenever its module shrinks; raise one only with the
  // decision and its measured reason written here. Each run prints the modules' code bytes
  // per crate (before wasm-opt, from cargo's output: tests/e2e/wasm-shares.mjs), so growth
  // has a name. At this stop's end: engine 463,753 (the allocator inference's rehashing
  // alternative and the tables' child-bucket variance, 450 bytes), charts 119,989.
  // Issue 54 (hostile files): 465,530 bytes, 1,777 more than 463,753 (measured both ways from
  // the same toolchain): the limit on one value (LoadOptions::max_value_bytes, checked on every
  // string a load builds, its error), LZF output grown as it is decoded instead of allocated at
  // the declared length, a long raw string past the input's end refused at its header. The
  // readers' loops were kept small (the checks' errors and the long string's refusal out of
  // line, one LZF loop, StringBuilder's switch to plain bytes sharing SparseBitmap's): that
  // brought it from 466,146. Decided: the bound is 466,000 (+470, 0.1%).
  // Stop 57 (issues 53 and 55): 545,261 bytes (Node's zlib, as below), 79,731 more than
  // 465,530. Measured by building the same tree without one command table at a time (the
  // linker then drops that code; these deltas by GNU gzip -9, which gives about 2,000 bytes
  // less in total): the vector-set commands (VSIM's HNSW search, the FILTER expression
  // language and its JSON reader, the V* handlers) 19,063; the 20 read commands of issue 53
  // item 3 (MGET, LCS, ZREVRANGE*, *BYLEX, ZLEXCOUNT, ZUNION/ZINTER/ZDIFF/ZINTERCARD, SORT_RO,
  // SRANDMEMBER/ZRANDMEMBER/HRANDFIELD/RANDOMKEY, XPENDING, XREAD, OBJECT FREQ/IDLETIME, DUMP)
  // 45,392, of which DUMP (the RDB writer in the module) 8,441; the rest (the vector-set
  // loader and its MEMORY USAGE model, the undecided allocator's candidates and range in the
  // memory report, the memory layouts as a per-version table, XINFO STREAM FULL / CONSUMERS)
  // 13,254. Decided: the panel's engine answers every command the CLI answers (one engine,
  // no seam between them), so the bound follows the command set: 546,000 (+739, 0.14%).
  // Issue 51's 390 KB goal is further away; its item 6 (the glue's mirror layer and the
  // exports duplicating `command`) and cold command code built for size are the way back.
  // The chart module is 119,992 (its crates now take the engine without `fs`): bound kept.
  // Issue 51 items 5-6 (stop 58): 543,969 bytes, 1,292 less. Dropping the exports that
  // duplicate `command` (keys, bitcount, pfcountUnion, pfcountEach, geosearch, with GeoHit)
  // and loadRdbBlob saved about 4,400; `overview` (the first database, info, profiles and per
  // key template the count and dates, in one call) costs about 3,100 (4,100 with its dates in
  // a BTreeSet of strings; sorted as numbers instead). The bound is that measured number: 390 KB
  // is not in reach by the glue. Code bytes before wasm-opt (twiggy, the cargo output): the
  // engine crate 724 KB (47.6%), unattributed 237 KB, core 156 KB (formatting, sorts), views
  // 121 KB, the glue 120 KB (7.9%: memoryReport's mirror 15.9 KB, keyDetail's 10.9 KB, the
  // chunked reader's copy for loadRdb/loadRdbs 8.1 KB retained beside the stream reader's 10.4
  // KB, serde-wasm-bindgen result writing 30 KB with its serialize_field instances), alloc 52
  // KB, js_sys 31 KB, hashbrown 24 KB. opt-level "s" for the whole module measured 386,022
  // (issue 15) at 1.3-1.8x the kernels' time; the way to 390 KB is cold command code built for
  // size in its own crate, which this stop did not do.
  // Issue 51 item 4 (typed errors: RdbError's data-carrying ErrorDetail, whose one Display
  // writes the words the error sites used to format; the glue's EngineError): 545,836 bytes,
  // 575 more than 545,261 (twiggy: write_detail 4,632 B before wasm-opt; the detail is shared
  // through an Arc, as a derived clone of every variant had cost 6.8 KB).
  // Stop 58's merge, measured in this test after each step: 543,969 (the load driver above)
  // -> 547,282 (+3,313: the engine's MEMORY USAGE command and its pricing hook, strings
  // classed text, listpackEx priced at the clock, VSIM WITHATTRIBS by profile) -> 551,160
  // (+3,878: typed errors' one Display of every detail, 575 measured alone; inspect's
  // one-pass pricing under every candidate allocator in views' AllocatorInference; vector
  // sets' ordered name map). Decided as before: the panel's engine answers what the CLI
  // answers. Widened to the measured size; 390 KB needs cold command code built for size.
  // Stop 59: TOUCH in the engine's command table (issue 53: a read command every server
  // answers; the CLI, Python and `bitlens resp` answer it), measured 551,161 with the rest of
  // this stop's engine changes (RESP2 written in place; 551,198 while Reply::write_resp also
  // reserved ahead, which was dropped). Decided as before (the panel's engine answers what the
  // CLI answers); the bound is that size. Then, merged: loadRdbs reading every file into
  // the engine's one union builder and loadRdb/RdbStream sharing one push reader (the chunked
  // reader's copy gone; issue 51 item 1), and views' inspect pricing shared with export and
  // its prefix tree in one arena (issue 52): 550,586. The bound is that size.
  // The push reader then tells progress at least 1 MiB apart again (its reads can be shorter
  // than 1 MiB; loadRdb's onProgress contract, crates/wasm/tests/wasm_api.rs): +52 bytes,
  // 550,638. The bound is that size.
  { name: 'bitlens_bg.wasm', what: 'engine module', bound: 550_638, built: 'wasm/bitlens_wasm.wasm' },
  { name: 'bitlens_charts_bg.wasm', what: 'chart module', bound: 120_000, built: 'wasm-charts/bitlens_wasm_charts.wasm' },
];

for (const { name, built } of MODULES) {
  test(`code bytes per crate of pkg/${name}`, () => {
    const file = path.join(ROOT, 'target', 'wasm32-unknown-unknown', built);
    assert.ok(existsSync(file), `${file} is missing: run bash scripts/build.sh --wasm-only`);
    const shares = crateShares(file);
    assert.ok(shares.length > 1 && shares.some((s) => s.crate === 'bitlens'), 'no crate named in the name section');
    for (const { crate, bytes, share } of shares.slice(0, 15)) {
      console.log(`# ${name}: ${crate.padEnd(22)} ${String(bytes).padStart(9)} B  ${(100 * share).toFixed(1)}%`);
    }
  });
}

for (const { name, what, bound } of MODULES) {
  test(`the ${what} (pkg/${name}) is at most ${bound} bytes after gzip -9`, () => {
    const size = gzipped(name);
    console.log(`# pkg/${name}: ${size} bytes gzip -9 (bound ${bound})`);
    assert.ok(size <= bound, `pkg/${name} is ${size} bytes after gzip -9, over its bound of ${bound}`);
  });
}
