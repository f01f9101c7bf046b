#!/usr/bin/env node
// Assembles the `bitlens` npm package in dist/npm/ from the wasm build (pkg/), the browser
// modules (www/: the worker client, the worker, the <bitlens-panel> element and every module or
// stylesheet they load, found by following their relative imports), the type declarations
// (types/) and npm/ (entry point, README). The layout mirrors the repository (pkg/, www/,
// types/), so the modules' relative imports work unchanged. Run by scripts/package.sh.
//
// Usage: node scripts/package.mjs [OUT_DIR]   (default dist/npm)

import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.resolve(process.argv[2] || path.join(ROOT, 'dist/npm'));

/** Entry modules of www/ shipped in the package. */
const WWW_ENTRIES = ['engine-client.js', 'engine-worker.js', 'bitlens-panel.js', 'node-files.js'];
/** The two wasm modules: the engine (pkg/bitlens*) and the page's chart module (pkg/bitlens_charts*). */
const PKG_FILES = [
  'bitlens.js', 'bitlens_bg.wasm', 'bitlens.d.ts', 'bitlens_bg.wasm.d.ts',
  'bitlens_charts.js', 'bitlens_charts_bg.wasm', 'bitlens_charts.d.ts', 'bitlens_charts_bg.wasm.d.ts',
];

function fail(msg) {
  console.error(`[package] ${msg}`);
  process.exit(1);
}

/** `[package]` fields of Cargo.toml (name, version, description, license). */
function cargoPackage() {
  const text = readFileSync(path.join(ROOT, 'Cargo.toml'), 'utf8');
  const section = /^\[package\]\n([\s\S]*?)(?=^\[)/m.exec(text);
  if (!section) fail('Cargo.toml has no [package] section');
  const field = (name) => {
    const m = new RegExp(`^${name}\\s*=\\s*"([^"]*)"`, 'm').exec(section[1]);
    return m ? m[1] : undefined;
  };
  return { version: field('version'), description: field('description'), license: field('license') };
}

/** Relative URLs a module or stylesheet loads: imports, dynamic imports, new URL(…, import.meta.url). */
function references(file) {
  const text = readFileSync(file, 'utf8');
  const out = new Set();
  const patterns = file.endsWith('.css')
    ? [/@import\s+(?:url\()?\s*['"]?(\.{1,2}\/[^'")\s]+)/g, /url\(\s*['"]?(\.{1,2}\/[^'")\s]+)/g]
    : [
        /\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/g,
        /\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g,
        /\bimport\s*['"](\.{1,2}\/[^'"]+)['"]/g,
        /new\s+URL\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*,\s*import\.meta\.url\s*\)/g,
      ];
  for (const re of patterns) for (const m of text.matchAll(re)) out.add(m[1]);
  return [...out];
}

/** The www/ files reachable from the entries (paths relative to the repository). */
function wwwClosure() {
  const seen = new Set();
  const queue = WWW_ENTRIES.map((f) => path.join('www', f));
  while (queue.length) {
    const rel = queue.shift();
    if (seen.has(rel)) continue;
    const abs = path.join(ROOT, rel);
    if (!existsSync(abs)) fail(`${rel} is missing (loaded by a packaged module)`);
    seen.add(rel);
    for (const ref of references(abs)) {
      const target = path.normalize(path.join(path.dirname(rel), ref));
      if (target.startsWith('pkg' + path.sep)) {
        if (!PKG_FILES.includes(path.basename(target))) fail(`${rel} loads ${ref}, which is not packaged`);
        continue;
      }
      if (!target.startsWith('www' + path.sep)) fail(`${rel} loads ${ref}, outside www/ and pkg/`);
      queue.push(target);
    }
  }
  return [...seen].sort();
}

/** Every file under the directory `rel` (relative paths), none when it is missing. */
function snippets(rel) {
  const abs = path.join(ROOT, rel);
  if (!existsSync(abs)) return [];
  return readdirSync(abs, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? snippets(path.join(rel, d.name)) : [path.join(rel, d.name)]);
}

function copy(rel, to = rel) {
  const dest = path.join(OUT, to);
  mkdirSync(path.dirname(dest), { recursive: true });
  copyFileSync(path.join(ROOT, rel), dest);
  return to;
}

for (const f of PKG_FILES) {
  if (!existsSync(path.join(ROOT, 'pkg', f))) fail(`pkg/${f} is missing: run bash scripts/build.sh --wasm-only`);
}
rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });

const files = [];
for (const f of PKG_FILES) files.push(copy(path.join('pkg', f)));
// The JS the engine module imports (pkg/snippets/CRATE-HASH/...: www/engine-error.js's copy).
for (const f of snippets(path.join('pkg', 'snippets'))) files.push(copy(f));
for (const f of wwwClosure()) files.push(copy(f));
for (const f of ['engine-client.d.ts', 'bitlens-panel.d.ts', 'index.d.ts']) files.push(copy(path.join('types', f)));
files.push(copy('npm/index.js', 'index.js'));
files.push(copy('npm/README.md', 'README.md'));

const cargo = cargoPackage();
const manifest = {
  name: 'bitlens',
  version: cargo.version,
  description: cargo.description,
  license: cargo.license,
  type: 'module',
  main: './index.js',
  module: './index.js',
  types: './types/index.d.ts',
  exports: {
    '.': { types: './types/index.d.ts', default: './index.js' },
    './client': { types: './types/engine-client.d.ts', default: './www/engine-client.js' },
    './panel': { types: './types/bitlens-panel.d.ts', default: './www/bitlens-panel.js' },
    './wasm': { types: './pkg/bitlens.d.ts', default: './pkg/bitlens.js' },
    './charts': { types: './pkg/bitlens_charts.d.ts', default: './pkg/bitlens_charts.js' },
    './worker': './www/engine-worker.js',
    './bitlens_bg.wasm': './pkg/bitlens_bg.wasm',
    './bitlens_charts_bg.wasm': './pkg/bitlens_charts_bg.wasm',
    './package.json': './package.json',
  },
  files: ['index.js', 'pkg/', 'www/', 'types/', 'README.md'],
  sideEffects: ['./www/bitlens-panel.js'],
  keywords: ['redis', 'bitmap', 'hyperloglog', 'geo', 'rdb', 'wasm', 'analytics', 'web-component'],
  engines: { node: '>=20' },
};
writeFileSync(path.join(OUT, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
files.push('package.json');

let total = 0;
for (const f of files.sort()) {
  const size = statSync(path.join(OUT, f)).size;
  total += size;
  console.log(`[package] ${f.padEnd(28)} ${size} bytes`);
}
console.log(`[package] ${path.relative(ROOT, OUT) || OUT}: bitlens@${manifest.version}, ${files.length} files, ${total} bytes`);
