// The panel's settings: their defaults, the URL parameter / element attribute each is given
// by, which of them need a new snapshot, and the checks of the values a user typed. The page
// (www/app.js), the <bitlens-panel> element and the panel all read them from here.

import { CROWD_DEFAULTS, CROWD_PARAMS } from './crowds.js';
import { USER_DEFAULTS, USER_PARAMS } from './userstory.js';
import { parseDate } from './util.js';

/** Default settings; every one can be given as a URL parameter / element attribute. */
export const DEFAULTS = {
  api: '/api',
  date: '', // YYYYMMDD or YYYY-MM-DD; empty = latest date found in the snapshot
  uvKey: 'uv:page:index:{date}',
  activeKey: 'stats:active:{date}',
  geoKey: 'shop:geo:{type}',
  type: '',
  city: 'shanghai',
  lon: '',
  lat: '',
  radius: 3,
  unit: 'km',
  member: '', // centre the search on this shop (GEOSEARCH FROMMEMBER) instead of lon/lat
  // Every card by default; a card whose keys the snapshot lacks collapses to one line.
  cards: 'uv,active,nearby,engagement,user,signins,crowds,offsets',
  lang: '',
  theme: '', // light | dark; empty = follow prefers-color-scheme
  token: '', // bearer token for `bitlens serve --token`
  worker: true, // the engine runs in a Web Worker (false: in the page)
  compat: '', // answer as this server profile (redis-7.0, valkey-9.0, ...); empty = the snapshot's writer
  checksum: true, // false: skip the CRC-64 check of snapshots and DUMP payloads (warned)
  maxBytes: '', // most snapshot bytes this browser takes (empty: MAX_SNAPSHOT_BYTES, 3 GiB)
  ...USER_DEFAULTS, // the user views (www/userstory.js): user, signKey, seenKey, tagKey
  ...CROWD_DEFAULTS, // the crowd / offset cards (www/crowds.js): offsetKey
};

/** URL parameter / attribute name of each setting. */
export const PARAMS = {
  api: 'api', date: 'date', uvKey: 'uv-key', activeKey: 'active-key', geoKey: 'geo-key',
  type: 'type', city: 'city', lon: 'lon', lat: 'lat', radius: 'radius', unit: 'unit', member: 'member',
  cards: 'cards', lang: 'lang', theme: 'theme', token: 'token', worker: 'worker', compat: 'compat',
  checksum: 'checksum', maxBytes: 'max-bytes', ...USER_PARAMS, ...CROWD_PARAMS,
};

/** Settings whose change needs a new snapshot (the others only redraw). */
export const FETCH_SETTINGS = ['api', 'uvKey', 'activeKey', 'geoKey', 'cards', 'token', 'offsetKey'];

/** Settings from URLSearchParams (or anything with get(name)), over the defaults. */
export function settingsFrom(params) {
  const s = { ...DEFAULTS };
  for (const [k, p] of Object.entries(PARAMS)) {
    const v = params.get(p);
    if (v !== null && v !== undefined && v !== '') s[k] = v;
  }
  return s;
}

/**
 * Problems with the settings `s` given as URL parameters / attributes, each naming the
 * parameter: [{param, value, why}] (`why` from the label table `t`). Such values are not used
 * (never NaN in a card).
 */
export function settingErrors(s, t) {
  const out = [];
  const given = (v) => v !== undefined && v !== null && String(v).trim() !== '';
  if (given(s.date) && !parseDate(s.date)) out.push({ param: PARAMS.date, value: s.date, why: t.badDate });
  const num = (v) => (given(v) && /^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i.test(String(v)) ? Number(v) : NaN);
  if (given(s.lon) && !(Math.abs(num(s.lon)) <= 180)) out.push({ param: PARAMS.lon, value: s.lon, why: t.badLon });
  if (given(s.lat) && !(Math.abs(num(s.lat)) <= 85.05112878)) out.push({ param: PARAMS.lat, value: s.lat, why: t.badLat });
  if (!(num(s.radius) > 0)) out.push({ param: PARAMS.radius, value: s.radius, why: t.badRadius });
  return out;
}

/** Engine load options from the settings `s` (`checksum: false` with the CRC-skip setting). */
export function loadOptions(s) {
  return String(s.checksum) === 'false' ? { checksum: false } : {};
}
