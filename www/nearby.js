// The nearby card (GEOSEARCH over the shops' GEO sets): its controls (city preset or
// longitude/latitude, radius, unit, shop type, or a member to search around) and its results,
// a chart and a paged table. The search runs in the panel's engine (computeNearby in
// www/cards.js); the settings it changes are the panel's (`city`, `lon`, `lat`, `radius`,
// `unit`, `type`, `member`), so they reach the URL like every other setting.

import { nearbyChart } from '../pkg/bitlens_charts.js';
import {
  CITIES, RADII, UNITS, computeNearby, drawNearbyResults, errorBox,
} from './cards.js';
import { PARAMS } from './settings.js';
import { capture, el, fill, nameTitle, shortName } from './util.js';

/**
 * The nearby card of `panel` (a Panel: its settings `s`, labels `t`, engine `eng`, card
 * bodies). Built once per panel build: `controls()` is the card's control row, `setTypes`
 * fills the type select from the GEO keys found, `render()` draws the results (the latest
 * call wins; the page shown is kept while only the results change).
 */
export function nearbyView(panel) {
  const s = panel.s;
  const t = panel.t;
  const ui = {};
  let page = 0;
  let seq = 0;

  function controls() {
    const preset = CITIES.find((c) => c[0] === s.city);
    if (s.lon === '' || s.lat === '') {
      const c = preset || CITIES[0];
      s.lon = c[1];
      s.lat = c[2];
    }
    const update = () => {
      page = 0;
      panel.showParamErrors();
      panel.changed();
      render();
    };
    ui.citySelect = el(
      'select',
      {
        'data-testid': 'city', 'aria-label': t.city,
        onchange: () => {
          s.city = ui.citySelect.value;
          s.member = '';
          ui.memberInput.value = '';
          const c = CITIES.find((x) => x[0] === s.city);
          if (c) {
            s.lon = c[1];
            s.lat = c[2];
            ui.lonInput.value = c[1];
            ui.latInput.value = c[2];
          }
          update();
        },
      },
      CITIES.map(([id]) => el('option', { value: id }, t[id])),
      el('option', { value: 'custom' }, t.custom),
    );
    ui.citySelect.value = preset && +s.lon === preset[1] && +s.lat === preset[2] ? s.city : 'custom';
    const coord = (name, label) =>
      el('input', {
        type: 'number', step: 'any', value: s[name], 'data-testid': name, 'aria-label': label,
        onchange: (e) => {
          const v = Number(e.target.value);
          if (e.target.value !== '' && Number.isFinite(v)) {
            s[name] = v;
            s.city = 'custom';
            s.member = '';
            ui.memberInput.value = '';
            ui.citySelect.value = 'custom';
            update();
          }
        },
      });
    ui.lonInput = coord('lon', t.lon);
    ui.latInput = coord('lat', t.lat);
    ui.radiusSelect = el('select', {
      'data-testid': 'radius', 'aria-label': t.radius,
      onchange: () => { s.radius = Number(ui.radiusSelect.value); update(); },
    });
    const fillRadii = () => {
      const presets = RADII[s.unit] || [];
      const radii = [...new Set([...presets, Number(s.radius)])].filter((r) => r > 0).sort((a, b) => a - b);
      ui.radiusSelect.replaceChildren(...radii.map((r) => el('option', { value: r }, `${r} ${s.unit}`)));
      ui.radiusSelect.value = String(Number(s.radius));
    };
    fillRadii();
    ui.unitSelect = el(
      'select',
      {
        'data-testid': 'unit', 'aria-label': t.unit,
        onchange: () => {
          s.unit = ui.unitSelect.value;
          const presets = RADII[s.unit];
          s.radius = presets[Math.floor(presets.length / 2)];
          fillRadii();
          update();
        },
      },
      [...new Set([...UNITS, s.unit])].map((u) => el('option', { value: u }, u)),
    );
    ui.unitSelect.value = s.unit;
    ui.memberInput = el('input', {
      type: 'search', value: s.member, 'data-testid': 'member', 'aria-label': t.member,
      placeholder: t.memberHint, spellcheck: 'false',
      onchange: () => { s.member = ui.memberInput.value.trim(); update(); },
    });
    ui.typeSelect = el('select', {
      'data-testid': 'type', 'aria-label': t.type,
      onchange: () => { s.type = ui.typeSelect.value; update(); },
    });
    return el(
      'div',
      { class: 'controls' },
      el('label', {}, el('span', {}, t.city), ui.citySelect),
      el('label', {}, el('span', {}, t.lon), ui.lonInput),
      el('label', {}, el('span', {}, t.lat), ui.latInput),
      el('label', {}, el('span', {}, t.radius), ui.radiusSelect),
      el('label', {}, el('span', {}, t.unit), ui.unitSelect),
      el('label', {}, el('span', {}, t.type), ui.typeSelect),
      el('label', { class: 'wide' }, el('span', {}, t.member), ui.memberInput),
    );
  }

  /**
   * Fills the shop-type select from the GEO keys found (`geoKey`'s `{type}` captures). With
   * `fresh` (a snapshot just opened or loaded in place of another), a type or a centre member
   * the snapshot does not hold is dropped for what it holds (its first type, no member): the
   * settings of the file before never stay selected over one that lacks them ("0 shops" for a
   * `cafe` the new file has no key of). Otherwise a type given that the snapshot lacks stays
   * listed (the card then says no shop is within the radius). `eng` answers whether the member
   * is in the type's set. Resolves true when a setting changed.
   */
  async function setTypes(geoKeys, { fresh = false, eng = null } = {}) {
    if (!ui.typeSelect) return false;
    const types = s.geoKey.includes('{type}')
      ? [...new Set(geoKeys.map((k) => capture(s.geoKey, k, 'type')).filter(Boolean))].sort()
      : [];
    let changed = false;
    if (fresh && s.type && types.length && !types.includes(s.type)) {
      s.type = types[0];
      changed = true;
    }
    if (fresh && s.type && !types.length && s.geoKey.includes('{type}')) {
      // No GEO key of the template at all: no type to keep.
      s.type = '';
      changed = true;
    }
    if (fresh && s.member && eng) {
      const key = fill(s.geoKey, { type: s.type });
      const there = await eng.command(['ZSCORE', key, s.member]).catch(() => null);
      if (there === null) {
        s.member = '';
        if (ui.memberInput) ui.memberInput.value = '';
        changed = true;
      }
    }
    if (s.type && !types.includes(s.type)) types.unshift(s.type);
    if (!s.type && types.length) s.type = types[0];
    // A long type (from a long key name) is shown shortened; its value stays whole.
    ui.typeSelect.replaceChildren(...types.map((ty) => el('option', { value: ty, title: ty.length > 64 ? nameTitle(ty) : null }, shortName(ty))));
    ui.typeSelect.value = s.type;
    ui.typeSelect.disabled = !s.geoKey.includes('{type}');
    return changed;
  }

  async function render() {
    const body = panel.bodies.nearby;
    if (!body || !panel.loaded || !panel.eng || !panel.isPresent('nearby')) return;
    const bad = panel.paramErrors().filter((e) => [PARAMS.lon, PARAMS.lat, PARAMS.radius].includes(e.param));
    if (bad.length && !(s.member && !bad.some((e) => e.param === PARAMS.radius))) {
      const err = new Error(`${t.nearbyBadParams} ${bad.map((e) => t.badParam(e.param, e.value, e.why)).join(' ')}`);
      body.replaceChildren(errorBox('nearby', err, t));
      return;
    }
    const q = {
      lon: Number(s.lon), lat: Number(s.lat), radius: Number(s.radius), unit: s.unit,
      type: s.type, member: s.member,
    };
    const my = ++seq;
    let nearby;
    try {
      nearby = await computeNearby(panel.eng, s, q, nearbyChart);
    } catch (e) {
      if (my === seq) body.replaceChildren(errorBox('nearby', e, t));
      return;
    }
    if (my !== seq) return;
    const draw = (p) => {
      page = p;
      drawNearbyResults(body, nearby, q, p, draw, panel.fmt, t);
    };
    draw(page);
  }

  return { controls, setTypes, render };
}
