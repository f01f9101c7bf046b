// Code bytes per Rust crate in a wasm module, read from its `name` section: the shares that
// tests/e2e/wasm-size.test.mjs prints, so that a module's growth has a name.
//
// A module is a sequence of sections (id byte, LEB128 size); the code section (10) holds one
// body per defined function, in function-index order after the imported functions (import
// section 2, kind 0), and the custom section `name` maps function indices to symbol names
// (subsection 1). A legacy-mangled Rust symbol (`_ZN` + length-prefixed path segments) names
// its crate in the first segment, or, for an impl (`_<Type as Trait>`), in the type's path.
// wasm-opt drops the name section, so the shares are taken from cargo's output before it:
// raw code bytes, not gzip, which is what the bound measures.

import { readFileSync } from 'node:fs';

function reader(buf) {
  let pos = 0;
  const r = {
    get pos() { return pos; },
    set pos(p) { pos = p; },
    byte() { return buf[pos++]; },
    u32() {
      let result = 0, shift = 0, b;
      do {
        b = buf[pos++];
        result += (b & 0x7f) * 2 ** shift;
        shift += 7;
      } while (b & 0x80);
      return result;
    },
    bytes(n) { const s = buf.subarray(pos, pos + n); pos += n; return s; },
    name() { return Buffer.from(r.bytes(r.u32())).toString('utf8'); },
  };
  return r;
}

/** The crate a Rust symbol (legacy-mangled, or demangled as rustc writes most names into
 * the name section) belongs to, or `(other)` (C symbols, wasm-bindgen's glue). */
export function crateOf(symbol) {
  const m = /^_?_ZN(\d+)/.exec(symbol);
  if (!m) {
    if (!symbol.includes('::')) return '(other)';
    // `<bitlens::x::Y as core::fmt::Debug>::fmt`, `<&mut T as ...>`, `<[T] as ...>`: the
    // first path's crate.
    const path = symbol.replace(/^(<|&|\*|\[|\(|mut |const |dyn |impl )+/g, '');
    const crate = /^([A-Za-z_][A-Za-z0-9_]*)::/.exec(path);
    return crate ? crate[1] : '(other)';
  }
  const start = m.index + m[0].length;
  let seg = symbol.slice(start, start + Number(m[1]));
  // An impl: `_$LT$path..Type$u20$as$u20$Trait$GT$` names the type's crate first.
  seg = seg.replace(/^_?\$LT\$/, '').replace(/^\$RF\$/, '').replace(/^(mut\$u20\$|\$u5b\$)/, '');
  const crate = /^[A-Za-z_][A-Za-z0-9_]*/.exec(seg);
  return crate ? crate[0] : '(other)';
}

/** Code bytes per crate of the module at `file`, largest first: [{crate, bytes, share}]. */
export function crateShares(file) {
  const buf = readFileSync(file);
  const r = reader(buf);
  r.pos = 8; // magic and version
  let imported = 0;
  const bodies = [];
  const names = new Map();
  while (r.pos < buf.length) {
    const id = r.byte();
    const size = r.u32();
    const end = r.pos + size;
    if (id === 2) {
      for (let n = r.u32(); n > 0; n--) {
        r.name();
        r.name();
        const kind = r.byte();
        if (kind === 0) { r.u32(); imported++; }
        else if (kind === 1) { r.byte(); const f = r.byte(); r.u32(); if (f & 1) r.u32(); }
        else if (kind === 2) { const f = r.byte(); r.u32(); if (f & 1) r.u32(); }
        else if (kind === 3) { r.byte(); r.byte(); }
        else if (kind === 4) { r.byte(); r.u32(); }
      }
    } else if (id === 10) {
      for (let n = r.u32(); n > 0; n--) {
        const len = r.u32();
        bodies.push(len);
        r.pos += len;
      }
    } else if (id === 0 && r.name() === 'name') {
      while (r.pos < end) {
        const sub = r.byte();
        const subEnd = r.u32() + r.pos;
        if (sub === 1) {
          for (let n = r.u32(); n > 0; n--) {
            const idx = r.u32();
            names.set(idx, r.name());
          }
        }
        r.pos = subEnd;
      }
    }
    r.pos = end;
  }
  const total = bodies.reduce((a, b) => a + b, 0);
  const per = new Map();
  bodies.forEach((len, i) => {
    const name = names.get(imported + i);
    const crate = name === undefined ? '(unnamed)' : crateOf(name);
    per.set(crate, (per.get(crate) ?? 0) + len);
  });
  return [...per.entries()]
    .map(([crate, bytes]) => ({ crate, bytes, share: bytes / total }))
    .sort((a, b) => b.bytes - a.bytes);
}
