// iovalkey (the Node.js client of the Valkey project, ioredis' API) against `bitlens resp`:
// each server of the manifest is filled, SAVEs and becomes a read-only replica of an
// unreachable master; `bitlens resp` serves the saved file, and the same client calls, reads
// of every type, writes (refused on both), a pipeline and a transaction, must give the same
// results or the same error text on both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, copyFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import Valkey from 'iovalkey';
import { BITLENS, SERVERS_DIR, freePort, start, tempDir } from './harness.mjs';

const manifest = existsSync(path.join(SERVERS_DIR, 'servers.json'))
  ? JSON.parse(readFileSync(path.join(SERVERS_DIR, 'servers.json'), 'utf8')).servers
  : {};

async function fill(c) {
  await c.set('s:plain', 'hello');
  await c.set('s:int', '12345');
  await c.setbit('b:days', 7, 1);
  await c.pfadd('h:uv', 'a', 'b', 'c');
  await c.hset('hs:small', 'f1', 'v1', 'f2', 'v2');
  await c.rpush('l:small', 'a', 'b', 'c');
  await c.sadd('st:int', 1, 2, 3);
  await c.zadd('z:small', 1, 'a', 2.5, 'b', 3, 'c');
  await c.geoadd('g:shops', 13.361389, 38.115556, 'palermo', 15.087269, 37.502669, 'catania');
  await c.xadd('x:s', '1-1', 'k', 'v');
  await c.select(3);
  await c.set('other:k', 'in-db-3');
  await c.select(0);
}

const reads = [
  ['get', (c) => c.get('s:plain')],
  ['get missing', (c) => c.get('nosuch')],
  ['get wrongtype', (c) => c.get('hs:small')],
  ['getbit', (c) => c.getbit('b:days', 7)],
  ['bitcount', (c) => c.bitcount('b:days')],
  ['pfcount', (c) => c.pfcount('h:uv')],
  ['hgetall', (c) => c.hgetall('hs:small')],
  ['hmget', (c) => c.hmget('hs:small', 'f1', 'nosuch')],
  ['lrange', (c) => c.lrange('l:small', 0, -1)],
  ['smembers', (c) => c.smembers('st:int')],
  ['zrange withscores', (c) => c.zrange('z:small', 0, -1, 'WITHSCORES')],
  ['zscore', (c) => c.zscore('z:small', 'b')],
  ['geopos', (c) => c.geopos('g:shops', 'palermo', 'nosuch')],
  ['geosearch', (c) => c.geosearch('g:shops', 'FROMLONLAT', 15, 37, 'BYRADIUS', 200, 'km', 'ASC', 'WITHDIST')],
  ['xrange', (c) => c.xrange('x:s', '-', '+')],
  ['type', (c) => c.type('z:small')],
  ['dbsize', (c) => c.dbsize()],
  ['object encoding', (c) => c.object('ENCODING', 'st:int')],
  ['unknown command', (c) => c.call('NOSUCHCOMMAND', 'a')],
  ['set (write)', (c) => c.set('a', 'b')],
  ['del (write)', (c) => c.del('s:plain')],
  ['pfadd (write)', (c) => c.pfadd('h:uv', 'z')],
];

async function outcome(fn) {
  try {
    return ['ok', await fn()];
  } catch (e) {
    return ['error', e.message];
  }
}

for (const [name, entry] of Object.entries(manifest).sort()) {
  test(`iovalkey: ${name} and bitlens resp give the same results`, { timeout: 120000 }, async () => {
    const dir = tempDir();
    const port = await freePort();
    const server = start(entry.server, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir], {
      env: { ...process.env, ...(entry.env || {}) },
    });
    await server.waitFor(/Ready to accept connections/);
    const real = new Valkey({ port, host: '127.0.0.1', maxRetriesPerRequest: 0 });
    let ours;
    let bitlens;
    try {
      await fill(real);
      await real.save();
      const file = path.join(tempDir(), 'dump.rdb');
      copyFileSync(path.join(dir, 'dump.rdb'), file);
      await real.call('REPLICAOF', '127.0.0.1', '1');
      bitlens = start(BITLENS, ['resp', file, '--bind', '127.0.0.1:0']);
      const m = await bitlens.waitFor(/listening on 127\.0\.0\.1:(\d+)/);
      ours = new Valkey({ port: Number(m[1]), host: '127.0.0.1', maxRetriesPerRequest: 0 });
      for (const [label, fn] of reads) {
        assert.deepEqual(await outcome(() => fn(ours)), await outcome(() => fn(real)), `${name}: ${label}`);
      }
      const batch = (c) => c.pipeline().get('s:plain').set('a', 'b').pfcount('h:uv').exec();
      assert.deepEqual(
        JSON.stringify(await batch(ours)),
        JSON.stringify(await batch(real)),
        `${name}: pipeline`,
      );
      const tx = (c) => outcome(() => c.multi().get('s:plain').dbsize().exec());
      assert.deepEqual(await tx(ours), await tx(real), `${name}: MULTI/EXEC`);
      const db3 = async (p) => {
        const c = new Valkey({ port: p, host: '127.0.0.1', db: 3, maxRetriesPerRequest: 0 });
        try {
          return [await c.get('other:k'), await c.dbsize()];
        } finally {
          c.disconnect();
        }
      };
      assert.deepEqual(await db3(Number(m[1])), await db3(port), `${name}: db 3`);
    } finally {
      real.disconnect();
      ours?.disconnect();
      bitlens?.child.kill();
      server.child.kill();
    }
  });
}
