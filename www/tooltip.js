// Tooltips for the panel's charts (issue 19.5): one implementation for every chart the page's
// chart module draws (crates/charts, through crates/wasm-charts). A chart object (`dauChart`, `streakChart`, `retentionChart`,
// `enumChart`, `nearbyChart` of the chart module) carries its SVG size (`width`) and its data
// points (`points`: [x, y, row, col] per point, in SVG pixels); `describe(row, col)` gives the
// text of one point, in the words and number format of the chart's "Numbers and commands"
// table. The chart element (a canvas or an image) becomes focusable and answers:
// - a hover: the point nearest the pointer (by x for line and bar charts, by distance for the
//   heatmap and the map);
// - keyboard focus: the current point; ArrowRight / ArrowLeft the next / previous point,
//   ArrowUp / ArrowDown the point of the same column in the previous / next row (heatmap),
//   Home / End the first / last; Escape hides the tooltip until the next key or hover.
// HTML charts (the sign-ins card's per-day bars) pass `childPoints(target)`: their points are
// read from the layout when used.
// The tooltip is a live region (role=status) named by the chart's aria-describedby, so a
// screen reader announces each value; a ring marks the point; one tooltip shows at a time. Both stay inside the chart's
// host box and the viewport.

let serial = 0;
/** The hide function of the tooltip on screen: one tooltip at a time. */
let shown = null;

// Inline styles (the panel may live in a shadow root): the chart's own colours, inverted.
const TIP_CSS = [
  'position:absolute', 'z-index:5', 'pointer-events:none', 'box-sizing:border-box',
  'max-width:min(300px,calc(100vw - 8px))', 'padding:4px 8px', 'border-radius:6px',
  'font-size:0.85rem', 'line-height:1.35', 'font-variant-numeric:tabular-nums',
  'background:var(--chart-fg,#222)', 'color:var(--chart-bg,#fff)', 'box-shadow:0 2px 6px rgba(0,0,0,.3)',
].join(';');
const MARK_CSS = [
  'position:absolute', 'z-index:4', 'pointer-events:none', 'box-sizing:border-box', 'width:14px', 'height:14px',
  'margin:-7px 0 0 -7px', 'border-radius:50%', 'border:2px solid var(--chart-fg,#000)',
  'box-shadow:0 0 0 2px var(--chart-bg,#fff)',
].join(';');

/** The points of a chart object as [{x, y, row, col}] (SVG pixels). */
export function chartPoints(chart) {
  const p = chart.points || [];
  const out = [];
  for (let i = 0; i + 3 < p.length; i += 4) out.push({ x: p[i], y: p[i + 1], row: p[i + 2], col: p[i + 3] });
  return out;
}

/**
 * An HTML bar chart's points for `update`: a function giving, at each use, `{width, points}`
 * with one point per child of `target` (its top centre, in CSS px of `target`'s box).
 */
export function childPoints(target) {
  return () => {
    const box = target.getBoundingClientRect();
    const points = [];
    [...target.children].forEach((c, i) => {
      const r = c.getBoundingClientRect();
      points.push(r.left - box.left + r.width / 2, r.top - box.top, 0, i);
    });
    return { width: box.width, points };
  };
}

/**
 * Makes `target` (inside `host`, a positioned box) answer hovers and keys with tooltips.
 * Returns {update(chart, describe, nav), hide(), destroy()}; `nav` is 'x' (line, bars) or
 * 'xy' (heatmap, map). Call update after every redraw.
 */
export function attachTooltip(host, target) {
  const id = `chart-tip-${++serial}`;
  const tip = document.createElement('div');
  tip.className = 'chart-tip';
  tip.id = id;
  tip.setAttribute('role', 'status');
  tip.setAttribute('aria-live', 'polite');
  tip.dataset.testid = 'chart-tip';
  tip.hidden = true;
  tip.style.cssText = TIP_CSS;
  const mark = document.createElement('div');
  mark.className = 'chart-mark';
  mark.setAttribute('aria-hidden', 'true');
  mark.hidden = true;
  mark.style.cssText = MARK_CSS;
  // The host is the tooltip's containing block (it may not be in the document yet).
  if (!host.style.position) host.style.position = 'relative';
  host.append(mark, tip);
  target.tabIndex = 0;
  target.setAttribute('aria-describedby', id);

  let chart = null;
  let provider = null; // a function giving the chart when it is laid out (HTML charts)
  let points = [];
  /** An HTML chart's points are read from its layout at each use (it may have reflowed). */
  const refresh = () => {
    if (!provider) return;
    chart = provider();
    points = chartPoints(chart);
  };
  let describe = () => '';
  let nav = 'x';
  let current = -1;

  /** The target's box in the host's coordinates, and CSS px per SVG px. */
  const frame = () => {
    const t = target.getBoundingClientRect();
    const h = host.getBoundingClientRect();
    const k = chart && chart.width ? t.width / chart.width : 1;
    return { left: t.left - h.left, top: t.top - h.top, k, host: h };
  };

  const hide = () => {
    if (shown === hide) shown = null;
    tip.hidden = true;
    mark.hidden = true;
    delete target.dataset.tipIndex;
  };

  const show = (i) => {
    if (!points.length) return hide();
    if (shown && shown !== hide) shown();
    shown = hide;
    current = Math.min(Math.max(i, 0), points.length - 1);
    const p = points[current];
    tip.textContent = describe(p.row, p.col);
    tip.dataset.row = String(p.row);
    tip.dataset.col = String(p.col);
    target.dataset.tipIndex = String(current);
    tip.hidden = false;
    mark.hidden = false;
    const f = frame();
    const x = f.left + p.x * f.k;
    const y = f.top + p.y * f.k;
    mark.style.left = `${x}px`;
    mark.style.top = `${y}px`;
    // Above the point, centred, kept inside the host and the viewport; below when no room.
    // Measured at the host's left edge, where it has the whole width to lay out in.
    // Its width is then fixed, so it lays out the same wherever it is put.
    tip.style.left = '0px';
    tip.style.top = '0px';
    tip.style.width = '';
    const w = Math.ceil(tip.getBoundingClientRect().width);
    tip.style.width = `${w}px`;
    const h = tip.offsetHeight;
    const minLeft = Math.max(0, 4 - f.host.left);
    const maxLeft = Math.min(f.host.width, window.innerWidth - 4 - f.host.left) - w;
    const left = Math.max(minLeft, Math.min(x - w / 2, maxLeft));
    let top = y - h - 12;
    if (top + f.host.top < 0 || top < 0) top = y + 14;
    tip.style.left = `${Math.round(left)}px`;
    tip.style.top = `${Math.round(top)}px`;
  };

  /** The point nearest (cx, cy) in CSS px of the target. */
  const nearest = (cx, cy) => {
    const { k } = frame();
    let best = -1;
    let bestD = Infinity;
    points.forEach((p, i) => {
      const dx = p.x * k - cx;
      const dy = p.y * k - cy;
      const d = nav === 'x' ? Math.abs(dx) * 1e6 + Math.abs(dy) : dx * dx + dy * dy;
      if (d < bestD) {
        bestD = d;
        best = i;
      }
    });
    return best;
  };

  /** Index of the point `step` rows away with the same column (heatmap), else -1. */
  const vertical = (step) => {
    const p = points[current];
    if (!p) return -1;
    for (let r = p.row + step; r >= 0 && r <= points[points.length - 1].row; r += step) {
      const j = points.findIndex((q) => q.row === r && q.col === p.col);
      if (j >= 0) return j;
    }
    return -1;
  };

  const onMove = (e) => {
    refresh();
    if (!points.length) return;
    const r = target.getBoundingClientRect();
    show(nearest(e.clientX - r.left, e.clientY - r.top));
  };
  const onLeave = () => {
    if (document.activeElement !== target) hide();
  };
  const onFocus = () => {
    refresh();
    show(current >= 0 ? current : points.length - 1);
  };
  const onKey = (e) => {
    refresh();
    if (!points.length) return;
    const at = current >= 0 ? current : points.length - 1;
    let next = null;
    if (e.key === 'ArrowRight') next = at + 1;
    else if (e.key === 'ArrowLeft') next = at - 1;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = points.length - 1;
    else if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && nav === 'xy') {
      const j = vertical(e.key === 'ArrowDown' ? 1 : -1);
      next = j >= 0 ? j : at;
    } else if (e.key === 'Escape') {
      if (!tip.hidden) {
        hide();
        e.preventDefault();
      }
      return;
    }
    if (next === null) return;
    e.preventDefault();
    show(Math.min(Math.max(next, 0), points.length - 1));
  };
  // For tests and automation: the points in CSS px of the target's box.
  target.tooltipPoints = () => {
    refresh();
    const { k } = frame();
    return points.map((p) => ({ x: p.x * k, y: p.y * k, row: p.row, col: p.col }));
  };
  target.addEventListener('pointermove', onMove);
  target.addEventListener('pointerdown', onMove);
  target.addEventListener('pointerleave', onLeave);
  target.addEventListener('focus', onFocus);
  target.addEventListener('blur', hide);
  target.addEventListener('keydown', onKey);

  return {
    tip,
    update(newChart, newDescribe, newNav = 'x') {
      provider = typeof newChart === 'function' ? newChart : null;
      chart = provider ? null : newChart;
      points = provider ? [] : chartPoints(newChart);
      describe = newDescribe;
      nav = newNav;
      if (current >= points.length) current = points.length - 1;
      if (!tip.hidden && current >= 0) show(current);
    },
    hide,
    destroy() {
      hide();
      for (const [ev, fn] of [['pointermove', onMove], ['pointerdown', onMove], ['pointerleave', onLeave],
        ['focus', onFocus], ['blur', hide], ['keydown', onKey]]) target.removeEventListener(ev, fn);
      tip.remove();
      mark.remove();
    },
  };
}
