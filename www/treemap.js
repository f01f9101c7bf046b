// A zoomable treemap of key prefixes by memory (issue 17 §6), drawn as plain HTML: one
// absolutely placed <button> per prefix, its area proportional to the prefix's memory, laid
// out by the squarified algorithm (Bruls, Huizing, van Wijk 2000: rows are filled along the
// shorter side while the worst aspect ratio of the row improves). The tree is the engine's
// prefix tree (crates/views/src/report.rs prefix_tree, `inspect --separator/--depth`, depth-first); a
// level shows the children of the prefix zoomed into, plus one "other keys" tile for the
// keys under it that no listed child holds. Labels are the names as the core escapes them
// (prefixDisplay: src/escape.rs display, redis-cli quoting) and go in as text, never HTML.
//
// Keyboard: the treemap is one Tab stop (a roving tabindex over its tiles); arrow keys move,
// Enter/Space (a click) zooms into a prefix, Escape or Backspace goes back out, and the
// breadcrumb's buttons go to any level above.
//
// Test hooks: [data-testid=mem-treemap] carries data-prefix (the zoomed prefix, '' at the
// top); each [data-testid=mem-tile] data-prefix / data-keys / data-memory (data-rest on the
// "other keys" tile); [data-testid=mem-treemap-out] goes back out.

import { el, nameLabel, shortName } from './util.js';

/** The layout's box, in units (tiles are placed in % of it). */
const W = 1000;
const H = 420;

/**
 * Squarified layout of `items` ({value}, value > 0, any order) in the box (x, y, w, h):
 * returns [{item, x, y, w, h}] in the same units, largest first.
 */
export function squarify(items, x, y, w, h) {
  const sorted = [...items].filter((i) => i.value > 0).sort((a, b) => b.value - a.value);
  const total = sorted.reduce((s, i) => s + i.value, 0);
  const out = [];
  if (!total) return out;
  const scale = (w * h) / total;
  let rest = sorted.map((item) => ({ item, area: item.value * scale }));
  let box = { x, y, w, h };
  const worst = (row, side) => {
    const s = row.reduce((a, r) => a + r.area, 0);
    let m = 0;
    for (const r of row) m = Math.max(m, (side * side * r.area) / (s * s), (s * s) / (side * side * r.area));
    return m;
  };
  while (rest.length) {
    const side = Math.min(box.w, box.h);
    const row = [rest[0]];
    let i = 1;
    while (i < rest.length && worst([...row, rest[i]], side) <= worst(row, side)) row.push(rest[i++]);
    rest = rest.slice(i);
    const s = row.reduce((a, r) => a + r.area, 0);
    if (box.w >= box.h) {
      // A column on the left, as wide as the row's area over the box height.
      const cw = s / box.h;
      let cy = box.y;
      for (const r of row) {
        const ch = r.area / cw;
        out.push({ item: r.item, x: box.x, y: cy, w: cw, h: ch });
        cy += ch;
      }
      box = { x: box.x + cw, y: box.y, w: box.w - cw, h: box.h };
    } else {
      const rh = s / box.w;
      let cx = box.x;
      for (const r of row) {
        const rw = r.area / rh;
        out.push({ item: r.item, x: cx, y: box.y, w: rw, h: rh });
        cx += rw;
      }
      box = { x: box.x, y: box.y + rh, w: box.w, h: box.h - rh };
    }
  }
  return out;
}

/**
 * The prefix tree as nodes: the root {prefix: '', keys, memory, children} over `total`
 * keys/memory, each child {prefix, prefixDisplay, depth, keys, memory, children, parent}.
 */
export function prefixNodes(prefixes, keys, memory) {
  const root = { prefix: '', prefixDisplay: '', depth: 0, keys, memory, children: [], parent: null };
  const stack = [root];
  for (const p of prefixes) {
    while (stack.length > p.depth) stack.pop();
    const parent = stack[stack.length - 1];
    const node = { ...p, children: [], parent };
    parent.children.push(node);
    stack.push(node);
  }
  return root;
}

/**
 * Builds the treemap. Returns {element, setData(prefixes, keys, memory)}.
 * @param {object} t labels (i18n.js)
 * @param {(n: number) => string} fmt numbers in the panel's locale
 * @param {(n: number) => string} bytes bytes for people
 * @param {(part: number, total: number) => string} share a percentage never falsely 0/100%
 */
export function buildTreemap(t, fmt, bytes, share) {
  const crumbs = el('nav', { class: 'mem-crumbs', 'aria-label': t.memTreemap });
  const box = el('div', {
    class: 'mem-treemap', 'data-testid': 'mem-treemap', role: 'group', 'aria-label': t.memTreemap,
    style: 'position:relative;width:100%;aspect-ratio:1000/420;min-height:180px;overflow:hidden;',
  });
  const hint = el('p', { class: 'note' }, t.memTreemapHint);
  const element = el('div', { class: 'mem-treemap-wrap' }, crumbs, box, hint);
  let root = null;
  let at = null;
  let total = 0;

  function zoom(node, focus = true) {
    at = node;
    box.dataset.prefix = node.prefix;
    const pathNodes = [];
    for (let n = node; n; n = n.parent) pathNodes.unshift(n);
    crumbs.replaceChildren(
      el('button', { type: 'button', 'data-testid': 'mem-treemap-out', disabled: node === root, onclick: () => out() }, t.memTreemapOut),
      ' ',
      ...pathNodes.flatMap((n, i) => [i ? ' › ' : '', n === node
        ? nameLabel(n === root ? t.memTreemapAll : n.prefixDisplay, { 'aria-current': 'true' }, 'strong')
        : nameLabel(n === root ? t.memTreemapAll : n.prefixDisplay, { type: 'button', class: 'kb-key', onclick: () => zoom(n) }, 'button')]),
    );
    const kids = node.children.map((c) => ({ value: c.memory, node: c }));
    const restKeys = node.keys - node.children.reduce((s, c) => s + c.keys, 0);
    const restMemory = node.memory - node.children.reduce((s, c) => s + c.memory, 0);
    if (restMemory > 0 || (restKeys > 0 && !kids.length)) kids.push({ value: Math.max(restMemory, 1), node: null, keys: restKeys, memory: restMemory });
    const tiles = squarify(kids, 0, 0, W, H).map((r, i) => {
      const n = r.item.node;
      // A long prefix (a 100 KB key is its own prefix) shortened in the tile, its title and label.
      const label = n ? shortName(n.prefixDisplay) : t.memTreemapRest;
      const k = n ? n.keys : r.item.keys;
      const m = n ? n.memory : r.item.memory;
      const name = t.memTile(label, fmt(k), bytes(m), share(m, total));
      const hue = n ? (i * 47) % 360 : 0;
      const big = r.w > 70 && r.h > 34;
      const tile = el('button', {
        type: 'button', class: 'mem-tile', 'data-testid': 'mem-tile', tabindex: '-1',
        'data-prefix': n ? n.prefix : '', 'data-keys': k, 'data-memory': m, 'data-rest': n ? null : '1',
        'data-zoom': n && n.children.length ? '1' : null,
        'aria-label': name, title: name,
        style: `position:absolute;left:${(100 * r.x) / W}%;top:${(100 * r.y) / H}%;width:${(100 * r.w) / W}%;height:${(100 * r.h) / H}%;`
          + `box-sizing:border-box;border:1px solid var(--card,#fff);margin:0;padding:2px 4px;overflow:hidden;text-align:left;display:flex;flex-direction:column;justify-content:flex-start;align-items:flex-start;`
          + `font:inherit;font-size:12px;line-height:1.25;color:#111;cursor:${n && n.children.length ? 'zoom-in' : 'default'};`
          + `background:${n ? `hsl(${hue} 55% ${72 - Math.min(n.depth, 4) * 4}%)` : 'hsl(0 0% 82%)'};`,
        onclick: () => { if (n && n.children.length) zoom(n); },
      }, big ? [el('span', { style: 'display:block;font-weight:600;word-break:break-all;' }, label), el('span', {}, bytes(m))] : []);
      return tile;
    });
    box.replaceChildren(...tiles);
    if (tiles.length) tiles[0].tabIndex = 0;
    if (focus && tiles.length) tiles[0].focus();
  }

  function out() {
    if (at && at.parent) {
      const from = at;
      zoom(at.parent);
      const back = [...box.children].find((b) => b.dataset.prefix === from.prefix);
      if (back) {
        for (const b of box.children) b.tabIndex = -1;
        back.tabIndex = 0;
        back.focus();
      }
    }
  }

  box.addEventListener('keydown', (e) => {
    const tiles = [...box.children];
    const i = tiles.indexOf(document.activeElement);
    if (e.key === 'Escape' || e.key === 'Backspace') {
      if (at && at.parent) {
        e.preventDefault();
        e.stopPropagation();
        out();
      }
      return;
    }
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
    if (step === undefined || i < 0) return;
    e.preventDefault();
    const j = (i + step + tiles.length) % tiles.length;
    tiles[i].tabIndex = -1;
    tiles[j].tabIndex = 0;
    tiles[j].focus();
  });

  return {
    element,
    /** Draws the tree of `prefixes` (memoryReport's) over `keys`/`memory` in all, at the top. */
    setData(prefixes, keys, memory) {
      total = memory;
      root = prefixNodes(prefixes, keys, memory);
      zoom(root, false);
    },
  };
}
