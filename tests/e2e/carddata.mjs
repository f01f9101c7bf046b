// The data the offline card tests write to a real redis-server (or spread over a cluster's
// nodes), what the cards must then show (asked of a server holding it), and what the panel's
// cards show.

import { rng } from './harness.mjs';

/** The cards' date. */
export const DATE = '20240520';
/** Days of HLLs and bitmaps written, ending with DATE. */
export const DAYS = 30;
/** The cards compared with the server. */
export const CARD_IDS = ['uv-day', 'uv-7d', 'uv-30d', 'active-day', 'active-7d', 'active-30d', 'nearby-count'];

/** `n` dates (YYYYMMDD) ending with `end`, oldest first. */
export function days(end, n) {
  const d = new Date(Date.UTC(+end.slice(0, 4), +end.slice(4, 6) - 1, +end.slice(6)));
  const out = [];
  for (let i = n - 1; i >= 0; i--) out.push(new Date(d.getTime() - i * 86400000).toISOString().slice(0, 10).replace(/-/g, ''));
  return out;
}

/**
 * The commands writing the test data (each command touches one key, its second argument): 30
 * days of HLLs and bitmaps, two GEO sets, a few other types, one TTL.
 */
export function cardCommands() {
  const rand = rng(20240520);
  const cmds = [];
  for (const [i, d] of days(DATE, DAYS).entries()) {
    // Small days stay sparse HLLs; the others become dense.
    const visitors = i % 3 === 0 ? 150 + i : 2500 + i * 97;
    for (let j = 0; j < visitors; j += 500) {
      const batch = [];
      for (let k = j; k < Math.min(visitors, j + 500); k++) batch.push(`u${Math.floor(rand() * 60000)}`);
      cmds.push(['PFADD', `uv:page:index:${d}`, ...batch]);
    }
    const active = 800 + Math.floor(rand() * 400);
    for (let k = 0; k < active; k++) cmds.push(['SETBIT', `stats:active:${d}`, String(Math.floor(rand() * 50000)), '1']);
  }
  for (const [type, n] of [['food', 180], ['cafe', 60]]) {
    const args = [];
    for (let k = 0; k < n; k++) args.push((121.35 + rand() * 0.25).toFixed(6), (31.15 + rand() * 0.16).toFixed(6), `${type}-${k}`);
    cmds.push(['GEOADD', `shop:geo:${type}`, ...args]);
  }
  // A sparse bitmap over 1 MiB (2 MB, one far bit): it crosses to the page as a Roaring bitmap.
  cmds.push(['SETBIT', `stats:active:${days(DATE, 3)[0]}`, '16000000', '1']);
  cmds.push(['RPUSH', 'queue:jobs', 'a', 'b', 'c']);
  cmds.push(['HSET', 'user:1', 'name', 'ann', 'city', 'shanghai']);
  cmds.push(['SET', 'session:abc', 'x']);
  cmds.push(['PEXPIRE', 'session:abc', '86400000']);
  return cmds;
}

/**
 * What the cards must show for DATE, asked with `cli(...argv)` (redis-cli's trimmed output) of a
 * server holding the data (its multi-key PFCOUNT / BITOP need every key on it).
 */
export function expectedCards(cli) {
  const num = (...argv) => Number(cli(...argv));
  const d = days(DATE, DAYS);
  const or = (n) => {
    cli('BITOP', 'OR', 'tmp:or', ...d.slice(-n).map((x) => `stats:active:${x}`));
    const c = num('BITCOUNT', 'tmp:or');
    cli('DEL', 'tmp:or');
    return c;
  };
  return {
    'uv-day': num('PFCOUNT', `uv:page:index:${DATE}`),
    'uv-7d': num('PFCOUNT', ...d.slice(-7).map((x) => `uv:page:index:${x}`)),
    'uv-30d': num('PFCOUNT', ...d.map((x) => `uv:page:index:${x}`)),
    'active-day': num('BITCOUNT', `stats:active:${DATE}`),
    'active-7d': or(7),
    'active-30d': or(30),
    'nearby-count': cli('GEOSEARCH', 'shop:geo:food', 'FROMLONLAT', '121.4737', '31.2304', 'BYRADIUS', '3', 'km', 'ASC').split('\n').filter(Boolean).length,
  };
}

/** The numbers the panel's cards on `page` show ({@link CARD_IDS}, their `data-value`). */
export async function cardValues(page) {
  const out = {};
  for (const id of CARD_IDS) out[id] = Number(await page.getAttribute(`[data-testid=${id}]`, 'data-value'));
  return out;
}
