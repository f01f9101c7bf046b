// The hand-written TypeScript declarations (types/) cannot drift from the code:
// - every method of the built wasm module's Engine (pkg/bitlens.js, at run time) and of the
//   declarations wasm-bindgen generated (pkg/bitlens.d.ts) is declared in types/bitlens.d.ts,
//   with the same number of parameters and the same optional ones;
// - nothing is declared that the build lacks (except the contract's engine methods not merged
//   yet, listed by name in the test output);
// - tsc accepts types/bitlens.d.ts's Engine where the generated Engine is expected (compatible
//   parameter and result types);
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
const DECLARED = path.join(ROOT, 'types/bitlens.d.ts');
/** Engine methods of the shared contract that another helper adds to crates/wasm/src/lib.rs. */
const CONTRACT_METHODS = ['loadRdbBlob', 'loadDump', 'loadString', 'keyList', 'keyDetail'];
/** Engine methods the contract extends with trailing optional parameters (loadRdb's options). */
const CONTRACT_EXTENDED = ['loadRdb'];

function parse(file) {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

/** Members of class/interface `name` in `file`: method name -> [{optional}] per parameter. */
function members(file, name) {
  const sf = parse(file);
  const out = new Map();
  const visit = (node) => {
    if ((ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node)) && node.name && node.name.text === name) {
      // An interface's `extends` of another interface in the file brings that one's members
      // (a class merged with such an interface has them too).
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
        if (!out.has(key)) out.set(key, params);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

test('types/bitlens.d.ts declares every Engine method of the build, with matching parameters', async () => {
  for (const f of [GENERATED, path.join(ROOT, 'pkg/bitlens.js')]) {
    assert.ok(existsSync(f), `${f} is missing: run bash scripts/build.sh --wasm-only`);
  }
  const { Engine } = await import(pathToFileURL(path.join(ROOT, 'pkg/bitlens.js')).href);
  const runtime = Object.getOwnPropertyNames(Engine.prototype).filter((n) => n !== 'constructor' && !n.startsWith('__') && typeof Engine.prototype[n] === 'function');
  const generated = members(GENERATED, 'Engine');
  const declared = members(DECLARED, 'Engine');
  assert.ok(runtime.length >= 25, `only ${runtime.length} Engine methods found in pkg/bitlens.js`);

  const undeclared = runtime.filter((n) => !declared.has(n));
  assert.deepEqual(undeclared, [], `Engine methods of pkg/bitlens.js missing from types/bitlens.d.ts: ${undeclared.join(', ')}`);
  const genMethods = [...generated.keys()].filter((n) => n !== '[Symbol.dispose]');
  assert.deepEqual(genMethods.filter((n) => !declared.has(n)), []);
  // Same arity and optional parameters as wasm-bindgen's own declarations.
  const pendingParams = [];
  for (const n of genMethods) {
    let mine = declared.get(n);
    const theirs = generated.get(n);
    if (CONTRACT_EXTENDED.includes(n) && mine.length > theirs.length) {
      // The contract's extra parameters, not in this build yet: optional, after the others.
      assert.ok(mine.slice(theirs.length).every((p) => p.optional), `extra parameters of Engine.${n} must be optional`);
      pendingParams.push(`${n} (${mine.length - theirs.length} more)`);
      mine = mine.slice(0, theirs.length);
    }
    assert.equal(mine.length, theirs.length, `number of parameters of Engine.${n}: types/bitlens.d.ts vs pkg/bitlens.d.ts`);
    mine.forEach((p, i) => {
      const q = theirs[i];
      const where = `parameter ${i + 1} of Engine.${n}`;
      assert.equal(p.rest, q.rest, where);
      // Optional exactly where wasm-bindgen's is, or where its type accepts undefined anyway
      // (a JsValue options argument is \`any\`; an Option before a required one is \`T | undefined\`).
      if (q.optional) assert.ok(p.optional, `${where} must be optional`);
      else if (p.optional) assert.ok(/\bany\b|\bundefined\b/.test(q.type), `${where} is optional but pkg/bitlens.d.ts requires it (${q.type})`);
    });
  }
  if (pendingParams.length) console.log(`# contract parameters not in this build yet: ${pendingParams.join(', ')}`);
  // Nothing declared that the build lacks, but the contract's methods until they are merged.
  const stale = [...declared.keys()].filter((n) => !runtime.includes(n));
  const pending = stale.filter((n) => CONTRACT_METHODS.includes(n));
  assert.deepEqual(stale.filter((n) => !pending.includes(n)), [], 'declared Engine methods that pkg/bitlens.js does not have');
  if (pending.length) console.log(`# contract Engine methods not in this build yet: ${pending.join(', ')}`);
});

/** Exported function declarations of `file`: name -> [{optional}] per parameter (default export excluded). */
function functions(file) {
  const sf = parse(file);
  const out = new Map();
  sf.forEachChild((node) => {
    if (!ts.isFunctionDeclaration(node) || !node.name) return;
    const isDefault = (node.modifiers || []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
    if (isDefault) return;
    out.set(node.name.text, node.parameters.map((p) => ({ optional: Boolean(p.questionToken || p.initializer) })));
  });
  return out;
}

test('the two wasm modules: the engine draws no chart, the chart module holds no engine; types/bitlens-charts.d.ts declares its functions', async () => {
  const chartsJs = path.join(ROOT, 'pkg/bitlens_charts.js');
  const chartsGenerated = path.join(ROOT, 'pkg/bitlens_charts.d.ts');
  for (const f of [chartsJs, chartsGenerated]) assert.ok(existsSync(f), `${f} is missing: run bash scripts/build.sh --wasm-only`);
  const charts = await import(pathToFileURL(chartsJs).href);
  const engine = await import(pathToFileURL(path.join(ROOT, 'pkg/bitlens.js')).href);
  const drawing = ['dauChart', 'streakChart', 'retentionChart', 'enumChart', 'nearbyChart', 'javaUserOffset'];
  const chartExports = Object.keys(charts).filter((n) => n !== 'default' && n !== 'initSync').sort();
  assert.deepEqual(chartExports, [...drawing].sort(), 'pkg/bitlens_charts.js exports the chart functions and the user-id rule only');
  for (const n of drawing) assert.equal(engine[n], undefined, `the engine module exports ${n}`);
  assert.equal(charts.Engine, undefined, 'the chart module has no Engine');
  const svgMethods = Object.getOwnPropertyNames(engine.Engine.prototype).filter((n) => /Svg$|Chart$/.test(n));
  assert.deepEqual(svgMethods, [], 'Engine methods drawing charts');
  // The hand-written declarations list the same functions with the same parameters.
  const declared = functions(path.join(ROOT, 'types/bitlens-charts.d.ts'));
  const generated = functions(chartsGenerated);
  for (const n of drawing) {
    assert.ok(declared.has(n), `types/bitlens-charts.d.ts lacks ${n}`);
    assert.ok(generated.has(n), `pkg/bitlens_charts.d.ts lacks ${n}`);
    assert.equal(declared.get(n).length, generated.get(n).length, `number of parameters of ${n}`);
    declared.get(n).forEach((p, i) => {
      if (generated.get(n)[i].optional) assert.ok(p.optional, `parameter ${i + 1} of ${n} must be optional`);
    });
  }
  assert.deepEqual([...declared.keys()].filter((n) => n !== 'initSync' && !drawing.includes(n)), [], 'declared functions the chart module lacks');
});

test('tsc: the declared Engine is usable where the generated one is expected', () => {
  const dir = tempDir('bitlens-types-');
  writeFileSync(path.join(dir, 'check.ts'), `
import type { Engine as Generated } from ${JSON.stringify(path.join(ROOT, 'pkg/bitlens.js'))};
import type { Engine as Declared } from ${JSON.stringify(path.join(ROOT, 'types/bitlens.js'))};
declare const declared: Declared;
// Every generated method is declared, with compatible parameter and result types.
export const asGenerated: Omit<Generated, typeof Symbol.dispose> = declared;
`);
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', lib: ['ESNext', 'DOM'], strict: true, noEmit: true, types: [] },
    files: ['check.ts'],
  }));
  try {
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
  } catch (e) {
    assert.fail(`tsc:\n${e.stdout}${e.stderr}`);
  }
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
    assert.deepEqual(classes.get(t).filter((m) => declaredMethods.includes(m) && !['loadUrl', 'terminate'].includes(m)), [], `${t} repeats a client method`);
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
