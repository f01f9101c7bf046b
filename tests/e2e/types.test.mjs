// The published TypeScript declarations of the two wasm modules are the ones wasm-bindgen and
// tsify generate from the Rust types (pkg/bitlens.d.ts, pkg/bitlens_charts.d.ts); types/ keeps
// only the hand-written client, widget and package-entry declarations. These tests fail when
// the declarations and the code disagree:
// - every method and function of the built modules is declared, and no parameter or result is
//   left untyped (`any`, `object`, `unknown`);
// - tsc accepts typed uses of the options and results, and rejects wrong ones;
// - at run time, every result object has exactly the declared fields with the declared types
//   (checked against the declarations with the TypeScript checker, over every key of two
//   fixtures);
// - the worker client's declared methods are those www/engine-client.js implements, and every
//   <bitlens-panel> setting (PARAMS in www/settings.js) is a declared property.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { ROOT, tempDir } from './harness.mjs';

const GENERATED = path.join(ROOT, 'pkg/bitlens.d.ts');
const CHARTS_GENERATED = path.join(ROOT, 'pkg/bitlens_charts.d.ts');
const FIXTURES = path.join(ROOT, 'tests/data/fixtures');

function parse(file) {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

/** Members of class/interface `name` in `file`: name -> [{optional, type}] per parameter, plus `returns`. */
function members(file, name) {
  const sf = parse(file);
  const out = new Map();
  const visit = (node) => {
    if ((ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node)) && node.name && node.name.text === name) {
      if (ts.isInterfaceDeclaration(node)) {
        for (const h of node.heritageClauses || []) {
          for (const t of h.types) {
            const base = t.expression.getText(sf);
            if (base !== name) for (const [k, v] of members(file, base)) if (!out.has(k)) out.set(k, v);
          }
        }
      }
      for (const m of node.members) {
        if (!m.name || ts.isConstructorDeclaration(m)) continue;
        const key = ts.isComputedPropertyName(m.name) ? `[${m.name.expression.getText(sf)}]` : m.name.getText(sf);
        const params = m.parameters
          ? m.parameters.map((p) => ({ optional: Boolean(p.questionToken || p.initializer), rest: Boolean(p.dotDotDotToken), type: p.type ? p.type.getText(sf) : 'any' }))
          : null;
        if (params) params.returns = m.type ? m.type.getText(sf) : 'any';
        if (!out.has(key)) out.set(key, params);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Exported function declarations of `file`: name -> [{optional, type}] per parameter, plus `returns`. */
function functions(file) {
  const sf = parse(file);
  const out = new Map();
  sf.forEachChild((node) => {
    if (!ts.isFunctionDeclaration(node) || !node.name) return;
    const isDefault = (node.modifiers || []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
    if (isDefault) return;
    const params = node.parameters.map((p) => ({ optional: Boolean(p.questionToken || p.initializer), type: p.type ? p.type.getText(sf) : 'any' }));
    params.returns = node.type ? node.type.getText(sf) : 'any';
    out.set(node.name.text, params);
  });
  return out;
}

const UNTYPED = /^(any|object|unknown)$|\bany\b/;

/** The signatures of `sigs` (name -> params) whose parameters or result are left untyped. */
function untyped(sigs, where, skip = []) {
  const out = [];
  for (const [n, params] of sigs) {
    if (!params || skip.includes(n)) continue;
    params.forEach((p, i) => { if (UNTYPED.test(p.type)) out.push(`${where}${n} parameter ${i + 1}: ${p.type}`); });
    if (UNTYPED.test(params.returns)) out.push(`${where}${n} returns ${params.returns}`);
  }
  return out;
}

test('pkg/bitlens.d.ts (generated) declares every export of the engine module, every parameter and result typed', async () => {
  for (const f of [GENERATED, path.join(ROOT, 'pkg/bitlens.js')]) {
    assert.ok(existsSync(f), `${f} is missing: run bash scripts/build.sh --wasm-only`);
  }
  const mod = await import(pathToFileURL(path.join(ROOT, 'pkg/bitlens.js')).href);
  const methods = (cls) => Object.getOwnPropertyNames(cls.prototype).filter((n) => n !== 'constructor' && !n.startsWith('__') && typeof cls.prototype[n] === 'function');
  const runtime = methods(mod.Engine);
  assert.ok(runtime.length >= 35, `only ${runtime.length} Engine methods found in pkg/bitlens.js`);
  const engine = members(GENERATED, 'Engine');
  assert.deepEqual(runtime.filter((n) => !engine.has(n)), [], 'Engine methods of pkg/bitlens.js not declared');
  const stream = members(GENERATED, 'RdbStream');
  assert.deepEqual(methods(mod.RdbStream).filter((n) => !stream.has(n)), [], 'RdbStream methods not declared');
  const fns = functions(GENERATED);
  const exported = Object.keys(mod).filter((n) => typeof mod[n] === 'function' && !['default', 'Engine', 'RdbStream'].includes(n));
  assert.deepEqual(exported.filter((n) => !fns.has(n)), [], 'exported functions not declared');
  // Typed options and results: nothing left as `any`/`object` (wasm-bindgen's own free() and
  // init's InitInput excepted).
  assert.deepEqual([
    ...untyped(engine, 'Engine.', ['free']),
    ...untyped(stream, 'RdbStream.', ['free']),
    ...untyped(fns, '', ['initSync', 'start']),
  ], []);
  // The options and results are declared types of the module.
  const text = readFileSync(GENERATED, 'utf8');
  for (const t of ['LoadRdbOptions', 'LoadRdbsOptions', 'LoadDumpOptions', 'KeyListOptions', 'KeyDetailOptions', 'MemoryReportOptions',
    'KeyLedgerOptions', 'EngineInfo', 'KeyInfo', 'KeyList', 'KeyDetail', 'MemoryReport', 'KeyLedger', 'LoadedFile', 'SnapshotInfo',
    'Overview', 'TemplateCount', 'Engagement', 'Retention', 'EngineError', 'Reply', 'RawReply', 'KeyName', 'Arg']) {
    assert.match(text, new RegExp(`export (interface|type) ${t}\\b`), `pkg/bitlens.d.ts declares ${t}`);
  }
});

test('the published package takes its engine and chart declarations from pkg/', () => {
  const pack = readFileSync(path.join(ROOT, 'scripts/package.mjs'), 'utf8');
  assert.match(pack, /'bitlens\.d\.ts'/, 'scripts/package.mjs ships pkg/bitlens.d.ts');
  assert.match(pack, /'bitlens_charts\.d\.ts'/, 'scripts/package.mjs ships pkg/bitlens_charts.d.ts');
  assert.match(pack, /'\.\/charts': \{ types: '\.\/pkg\/bitlens_charts\.d\.ts'/);
  assert.ok(!existsSync(path.join(ROOT, 'types/bitlens.d.ts')), 'no hand-kept engine declarations');
  assert.ok(!existsSync(path.join(ROOT, 'types/bitlens-charts.d.ts')), 'no hand-kept chart declarations');
  assert.match(readFileSync(path.join(ROOT, 'types/index.d.ts'), 'utf8'), /export \* from '\.\.\/pkg\/bitlens\.js'/);
});

test('the two wasm modules: the engine draws no chart, the chart module holds no engine; pkg/bitlens_charts.d.ts types its functions', async () => {
  const chartsJs = path.join(ROOT, 'pkg/bitlens_charts.js');
  for (const f of [chartsJs, CHARTS_GENERATED]) assert.ok(existsSync(f), `${f} is missing: run bash scripts/build.sh --wasm-only`);
  const charts = await import(pathToFileURL(chartsJs).href);
  const engine = await import(pathToFileURL(path.join(ROOT, 'pkg/bitlens.js')).href);
  const drawing = ['dauChart', 'streakChart', 'retentionChart', 'enumChart', 'nearbyChart', 'javaUserOffset'];
  const chartExports = Object.keys(charts).filter((n) => n !== 'default' && n !== 'initSync').sort();
  assert.deepEqual(chartExports, [...drawing].sort(), 'pkg/bitlens_charts.js exports the chart functions and the user-id rule only');
  for (const n of drawing) assert.equal(engine[n], undefined, `the engine module exports ${n}`);
  assert.equal(charts.Engine, undefined, 'the chart module has no Engine');
  const svgMethods = Object.getOwnPropertyNames(engine.Engine.prototype).filter((n) => /Svg$|Chart$/.test(n));
  assert.deepEqual(svgMethods, [], 'Engine methods drawing charts');
  const generated = functions(CHARTS_GENERATED);
  for (const n of drawing) assert.ok(generated.has(n), `pkg/bitlens_charts.d.ts lacks ${n}`);
  assert.deepEqual(untyped(generated, '', ['initSync']), []);
  for (const n of drawing.filter((d) => d.endsWith('Chart'))) {
    assert.equal(generated.get(n).returns, 'Chart', `${n} returns a Chart`);
    assert.equal(generated.get(n).at(-1).type, 'ChartStyle | null', `${n}'s style`);
  }
});

test('tsc: typed options and results of both modules, and the client and widget declarations over them', () => {
  const dir = tempDir('bitlens-types-');
  const mod = (f) => JSON.stringify(path.join(ROOT, f));
  writeFileSync(path.join(dir, 'check.ts'), `
import { Engine, RdbStream, snapshotInfo, profiles, type MemoryReport, type KeyDetail, type EngineError } from ${mod('pkg/bitlens.js')};
import { dauChart, type ChartStyle } from ${mod('pkg/bitlens_charts.js')};
import type { EngineClient } from ${mod('types/engine-client.js')};
import type { BitlensPanel } from ${mod('types/bitlens-panel.js')};
import init, { createEngine } from ${mod('types/index.js')};

const e = new Engine();
e.loadRdb(new Uint8Array(0), 0, { patterns: ['uv:*'], clock: 'now', compat: 'redis-7.4', onProgress: (done, total) => done / total });
e.loadRdb(new Uint8Array(0));
e.loadRdbs([new Uint8Array(0)], null, { names: ['a'], onDuplicate: 'first', onProgress: (d, t, file) => file });
const r: MemoryReport = e.memoryReport({ top: 5, allocator: 'jemalloc16', ledger: true, bitfield: ['x:*=u4'] });
const mem: number | null = r.top[0].memory;
const source: 'given' | 'inferred' | 'assumed' | 'undecided' = r.allocatorSource;
const range: number[] | null = r.memoryRange;
const candidates: string[] = r.allocatorCandidates;
const ledgerRows: number = r.ledger?.length ?? 0;
const typesOfPattern: number | undefined = r.byPattern[0].types['string'];
const d: KeyDetail | null = e.keyDetail('k', { buckets: 64 });
if (d && d.kind === 'hll') { const h: 'sparse' | 'dense' = d.hllEncoding; }
if (d && d.kind === 'bloom') { const x: number | null = d.expansion; }
const raw: Uint8Array = e.keyList('*', 10, { expired: true }).keys[0].raw;
const ttl: number | null = e.info().clockMs;
const slot: number | null = e.files()[0].slotFirst;
const dayCount: number = e.overview(null, ['a:{date}']).templates[0].keys;
const rows: (number | null)[][] = e.retention(['a', 'b'], 1, 1).rows;
const family: string = snapshotInfo(new Uint8Array(0)).writer?.family ?? '';
const names: string[] = profiles().map((p) => p.name);
const s = new RdbStream(0, { checksum: false });
const c = dauChart(['2024-01-01'], [1], [1], [1], 'DAU', { width: 600, height: 300, colors: { dau: '#f00' }, words: { day: 'Tag' } });
const pts: Float64Array = c.points;
const x0: number = c.plot.xRange[0];
const kind = (err: EngineError) => err.kind === 'duplicate-key' && err.offset;

// @ts-expect-error a number where a count is not a string
e.memoryReport({ top: '5' });
// @ts-expect-error an allocator that does not exist
e.memoryReport({ allocator: 'tcmalloc' });
// @ts-expect-error onDuplicate has three values
e.loadRdbs([], 0, { onDuplicate: 'both' });
// @ts-expect-error a misspelt option
e.keyList('*', 10, { expird: true });
// @ts-expect-error no such field on a report
r.totalMemory;
// @ts-expect-error a bitmap has no hllEncoding
if (d && d.kind === 'bitmap') d.hllEncoding;
// @ts-expect-error the chart style's colours are strings
dauChart([], [], [], [], 't', { colors: { dau: 0xff0000 } });

declare const client: EngineClient;
declare const panel: BitlensPanel;
export { init, createEngine, client, panel, mem, source, ledgerRows, typesOfPattern, raw, ttl, slot, dayCount, rows, family, names, s, pts, x0, kind };
`);
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', lib: ['ESNext', 'DOM'], strict: true, noEmit: true, noUnusedLocals: false, types: [] },
    files: ['check.ts'],
  }));
  try {
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
  } catch (e) {
    assert.fail(`tsc:\n${e.stdout}${e.stderr}`);
  }
});

/** The declared types of `file` by name, and its checker. */
function declarations(file) {
  const program = ts.createProgram([file], { target: ts.ScriptTarget.ES2022, lib: ['lib.esnext.d.ts', 'lib.dom.d.ts'], strict: true, noEmit: true, types: [] });
  const checker = program.getTypeChecker();
  const sf = program.getSourceFile(file);
  const named = new Map();
  sf.forEachChild((n) => {
    if ((ts.isInterfaceDeclaration(n) || ts.isTypeAliasDeclaration(n)) && n.name) named.set(n.name.text, checker.getTypeAtLocation(n.name));
  });
  return { checker, sf, named };
}

/**
 * The ways `value` does not fit `type` (empty when it fits): every declared field present
 * (optional ones may be missing), no field that is not declared, each of the declared type.
 */
function misfits({ checker, sf }, type, value, where) {
  const show = () => checker.typeToString(type);
  const F = ts.TypeFlags;
  if (type.isUnion()) {
    const each = type.types.map((t) => misfits({ checker, sf }, t, value, where));
    if (each.some((p) => p.length === 0)) return [];
    // A union of objects told apart by `kind`: report the member of the same kind.
    const same = type.types.findIndex((t) => {
      const k = t.getProperty && t.getProperty('kind');
      return k && value && typeof value === 'object' && checker.typeToString(checker.getTypeOfSymbolAtLocation(k, sf)) === JSON.stringify(value.kind);
    });
    return same >= 0 ? each[same] : [`${where}: ${JSON.stringify(value)?.slice(0, 80)} is not ${show()}`];
  }
  if (type.flags & F.Any) return [];
  if (type.flags & F.Null) return value === null ? [] : [`${where}: not null`];
  if (type.flags & F.Undefined) return value === undefined ? [] : [`${where}: not undefined`];
  if (type.flags & F.StringLiteral) return value === type.value ? [] : [`${where}: ${JSON.stringify(value)} is not ${show()}`];
  if (type.flags & F.NumberLiteral) return value === type.value ? [] : [`${where}: ${value} is not ${show()}`];
  if (type.flags & F.BooleanLiteral) return value === (show() === 'true') ? [] : [`${where}: ${value} is not ${show()}`];
  if (type.flags & F.String) return typeof value === 'string' ? [] : [`${where}: ${typeof value} is not string`];
  if (type.flags & F.Number) return typeof value === 'number' ? [] : [`${where}: ${typeof value} is not number`];
  if (type.flags & F.Boolean) return typeof value === 'boolean' ? [] : [`${where}: ${typeof value} is not boolean`];
  if (checker.isTupleType(type) || checker.isArrayType(type)) {
    if (!Array.isArray(value)) return [`${where}: not an array (${show()})`];
    const args = checker.getTypeArguments(type);
    if (checker.isTupleType(type) && value.length !== args.length) return [`${where}: ${value.length} elements, not ${args.length}`];
    return value.flatMap((v, i) => misfits({ checker, sf }, checker.isTupleType(type) ? args[i] : args[0], v, `${where}[${i}]`));
  }
  const builtin = type.symbol && ['Uint8Array', 'Float64Array', 'Uint32Array', 'Error'].find((n) => n === type.symbol.name);
  if (builtin) return value instanceof globalThis[builtin] ? [] : [`${where}: not a ${builtin}`];
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [`${where}: ${JSON.stringify(value)} is not an object (${show()})`];
  const index = checker.getIndexTypeOfType(type, ts.IndexKind.String);
  if (index) return Object.entries(value).flatMap(([k, v]) => misfits({ checker, sf }, index, v, `${where}.${k}`));
  const props = checker.getPropertiesOfType(type);
  const out = [];
  for (const k of Object.keys(value)) if (!props.some((p) => p.name === k)) out.push(`${where}.${k}: not declared in ${show()}`);
  for (const p of props) {
    const optional = (p.flags & ts.SymbolFlags.Optional) !== 0;
    if (!(p.name in value)) {
      if (!optional) out.push(`${where}.${p.name}: declared, missing`);
      continue;
    }
    const t = checker.getTypeOfSymbolAtLocation(p, sf);
    out.push(...misfits({ checker, sf }, t, value[p.name], `${where}.${p.name}`));
  }
  return out;
}

test('every result of the engine module has exactly its declared fields and types (two fixtures, every key)', async () => {
  const mod = await import(pathToFileURL(path.join(ROOT, 'pkg/bitlens.js')).href);
  mod.initSync({ module: readFileSync(path.join(ROOT, 'pkg/bitlens_bg.wasm')) });
  const decl = declarations(GENERATED);
  const check = (typeName, value, where) => {
    const type = decl.named.get(typeName);
    assert.ok(type, `${typeName} is declared`);
    const problems = misfits(decl, type, value, where);
    assert.deepEqual(problems, [], `${where} vs ${typeName}`);
  };
  const kinds = new Set();
  for (const name of ['redis-7.4.1-default', 'redis-7.4.1-modules']) {
    const bytes = new Uint8Array(readFileSync(path.join(FIXTURES, `${name}.rdb`)));
    check('SnapshotInfo', mod.snapshotInfo(bytes), `snapshotInfo(${name})`);
    const e = new mod.Engine();
    e.loadRdb(bytes);
    check('EngineInfo', e.info(), `info(${name})`);
    const list = e.keyList('*', 1e6, { expired: true });
    check('KeyList', list, `keyList(${name})`);
    assert.ok(list.keys.length > 5);
    for (const k of list.keys) {
      const d = e.keyDetail(k.raw, { buckets: 16, maxPoints: 5 });
      kinds.add(d.kind);
      check('KeyDetail', d, `keyDetail(${name}, ${k.key})`);
      const l = e.keyLedger(k.raw);
      if (l !== null) check('KeyLedger', l, `keyLedger(${name}, ${k.key})`);
    }
    const report = e.memoryReport({ ledger: true, top: 5 });
    check('MemoryReport', report, `memoryReport(${name})`);
    check('Overview', e.overview(['*'], ['{a}:{date}', 'none']), `overview(${name})`);
    assert.ok(report.byPattern.length > 0 && report.prefixes.length > 0 && report.ledger !== null);
    e.loadRdbs([bytes, bytes], 0, { names: ['a', 'b'], onDuplicate: 'last' });
    check('LoadedFiles', e.files(), `files(${name})`);
    e.free();
  }
  for (const k of ['bitmap', 'hll', 'geo', 'bloom', 'cuckoo', 'cms', 'topk', 'tdigest', 'other']) assert.ok(kinds.has(k), `a ${k} key among the fixtures`);
  check('Profiles', mod.profiles(), 'profiles()');
  // The analytics results, on keys made here.
  const e = new mod.Engine();
  for (const [i, day] of ['20240101', '20240102', '20240103'].entries()) {
    e.setString(`active:${day}`, new Uint8Array([0xff >> i, 1]));
  }
  const days = ['active:20240101', 'active:20240102', 'active:20240103'];
  check('Engagement', e.engagement(days), 'engagement');
  check('Retention', e.retention(days, 2, 2), 'retention');
  e.free();
});

test('a bad option throws an Error of kind argument naming the option, and the engine keeps working', async () => {
  const mod = await import(pathToFileURL(path.join(ROOT, 'pkg/bitlens.js')).href);
  mod.initSync({ module: readFileSync(path.join(ROOT, 'pkg/bitlens_bg.wasm')) });
  const e = new mod.Engine();
  const rdb = new Uint8Array(readFileSync(path.join(FIXTURES, 'redis-7.4.1-default.rdb')));
  const keys = e.loadRdb(rdb);
  assert.ok(keys > 5);
  const throwing = { get top() { throw new Error('getter boom'); } };
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  const cases = [
    [() => e.memoryReport({ top: 'five' }), /^options\.top: invalid type: string "five", expected u32$/],
    [() => e.memoryReport({ allocator: 'tcmalloc' }), /^options\.allocator: "tcmalloc" is not one of 'jemalloc', 'jemalloc16', 'libc'$/],
    // An enum is a name: not serde's map form of a variant.
    [() => e.memoryReport({ allocator: { libc: null } }), /^options\.allocator: invalid type: an object, expected a string$/],
    [() => e.memoryReport({ days: 0 }), /^options\.days must be 1 to 366, got 0$/],
    [() => e.memoryReport(throwing), /^options\.top: cannot be read \(getter boom\)$/],
    [() => e.memoryReport(revoked.proxy), /^options: cannot be read/],
    [() => e.memoryReport([1, 2]), /^options must be an object$/],
    [() => e.loadRdbs([rdb], 0, { onDuplicate: 'both' }), /^options\.onDuplicate: "both" is not one of 'error', 'first', 'last'$/],
    [() => e.loadRdbs([rdb], 0, { get compat() { throw new Error('no'); } }), /^options\.compat: cannot be read \(no\)$/],
    [() => e.loadRdbs([5]), /^a snapshot must be a Uint8Array/],
    [() => e.loadRdb(rdb, 0, { onProgress: 5 }), /^options\.onProgress must be a function$/],
    [() => e.loadRdb(rdb, 0, { clock: 'yesterday' }), /^options\.clock:/],
    [() => e.loadRdb(rdb, 0, { clock: true }), /^options\.clock must be 'now', 'snapshot' or a number$/],
    [() => e.loadRdb(rdb, 0, { clock: -1 }), /^invalid options\.clock -1$/],
    [() => e.loadRdb(rdb, 0, { clock: 1e300 }), /^invalid options\.clock 1e\+300$/],
    [() => e.loadRdb(rdb, 0, { patterns: 'uv:*' }), /^options\.patterns must be an array of strings$/],
    [() => e.loadRdb(rdb, 0, { patterns: [{}] }), /^options\.patterns\[0\] is not a string$/],
    [() => e.loadRdb(rdb, 0, 'uv:*'), /^options must be an object$/],
    [() => e.loadDump('d', new Uint8Array(4), { ttlMs: -1 }), /^invalid ttlMs -1$/],
    [() => new mod.RdbStream(0, { onProgress: 5 }), /^options\.onProgress must be a function$/],
    [() => e.keyDetail('k', { buckets: -1 }), /^options\.buckets: /],
  ];
  for (const [run, message] of cases) {
    assert.throws(run, (err) => err instanceof Error && err.kind === 'argument' && message.test(err.message), String(message));
    // A failed call leaves the engine as it was, usable.
    assert.equal(e.dbsize(), keys, `after ${message}`);
  }
  assert.equal(e.command(['DBSIZE']), keys);
  // Options left out or null take their defaults; a null name is the default name.
  assert.ok(e.memoryReport(null).top.length > 0);
  assert.ok(e.keyList('*', 10, undefined).total > 0);
  e.loadRdbs([rdb], 0, { names: [null] });
  assert.equal(e.files()[0].name, 'file 1');
  // A pattern may be the exact bytes of a glob.
  assert.ok(e.loadRdb(rdb, 0, { patterns: [new TextEncoder().encode('*')] }) === keys);
  e.free();
});

test('engine-client and <bitlens-panel> declarations match their modules', () => {
  // The client's public methods (both implementations) are exactly those declared.
  const sf = parse(path.join(ROOT, 'www/engine-client.js'));
  const classes = new Map();
  sf.forEachChild((node) => {
    if (ts.isClassDeclaration(node) && node.name) {
      classes.set(node.name.text, node.members
        .filter((m) => (ts.isMethodDeclaration(m) || ts.isGetAccessor(m)) && m.name && !m.name.getText(sf).startsWith('_'))
        .map((m) => m.name.getText(sf)).sort());
    }
  });
  const declared = members(path.join(ROOT, 'types/engine-client.d.ts'), 'EngineClient');
  const declaredMethods = [...declared.entries()].filter(([, p]) => p !== null).map(([n]) => n).sort();
  // One client class over either transport (the transports' own methods are not the API).
  assert.deepEqual(classes.get('EngineClient'), declaredMethods, 'EngineClient in www/engine-client.js vs types/engine-client.d.ts');
  assert.ok(classes.has('WorkerTransport') && classes.has('LocalTransport'));
  for (const t of ['WorkerTransport', 'LocalTransport']) {
    assert.deepEqual(classes.get(t).filter((m) => declaredMethods.includes(m) && !['load', 'terminate'].includes(m)), [], `${t} repeats a client method`);
  }
  assert.ok(declared.has('worker'));
  // Every panel setting is an attribute-backed property of the element.
  const settingsSrc = readFileSync(path.join(ROOT, 'www/settings.js'), 'utf8');
  const params = /export const PARAMS = \{([\s\S]*?)\};/.exec(settingsSrc);
  assert.ok(params, 'PARAMS not found in www/settings.js');
  const keys = [...params[1].matchAll(/(\w+)\s*:\s*'[^']*'/g)].map((m) => m[1]);
  assert.ok(keys.includes('uvKey') && keys.length >= 10);
  const element = members(path.join(ROOT, 'types/bitlens-panel.d.ts'), 'BitlensPanel');
  const settings = members(path.join(ROOT, 'types/bitlens-panel.d.ts'), 'BitlensPanelSettings');
  for (const k of keys) {
    assert.ok(element.has(k), `BitlensPanel property ${k} (PARAMS in www/settings.js) is not declared`);
    assert.ok(settings.has(k), `BitlensPanelSettings.${k} is not declared`);
  }
  // And the element's own methods.
  const elSrc = parse(path.join(ROOT, 'www/bitlens-panel.js'));
  elSrc.forEachChild((node) => {
    if (ts.isClassDeclaration(node) && node.name && node.name.text === 'BitlensPanel') {
      for (const m of node.members) {
        const n = m.name && m.name.getText(elSrc);
        if (!n || n.startsWith('_') || ts.isConstructorDeclaration(m) || /Callback$/.test(n)) continue;
        assert.ok(element.has(n), `BitlensPanel.${n} (www/bitlens-panel.js) is not declared`);
      }
    }
  });
});
