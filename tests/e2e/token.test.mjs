// The snapshot fetch of the panel (www/snapshot.js) against `bitlens serve --token`: without
// the token the server answers 401 and fetchSnapshot rejects with that status; with it the
// bytes of an RDB file arrive. No browser needed (Node's fetch).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fetchSnapshot, snapshotUrl } from '../../www/snapshot.js';
import { startBitlens } from './harness.mjs';

describe('bearer token', { timeout: 120000 }, () => {
  let server;
  before(async () => {
    server = await startBitlens(['--token', 's3cret']);
  });
  after(async () => {
    await server?.proc.stop();
  });

  test('fetchSnapshot sends Authorization: Bearer TOKEN', async () => {
    const url = snapshotUrl(`${server.url}/api`, ['stats:active:*']);
    // The status is on the error, and the server's JSON error is shown as its text.
    await assert.rejects(fetchSnapshot(url, () => {}), (e) => {
      assert.equal(e.status, 401);
      assert.match(e.message, /HTTP 401: .*missing or wrong bearer token/);
      assert.ok(!e.message.includes('{'), e.message);
      return true;
    });
    await assert.rejects(fetchSnapshot(url, () => {}, undefined, 'wrong'), /HTTP 401/);
    let last = 0;
    const bytes = await fetchSnapshot(url, (got) => (last = got), undefined, 's3cret');
    assert.equal(new TextDecoder().decode(bytes.slice(0, 5)), 'REDIS');
    assert.equal(last, bytes.length);
    assert.ok(bytes.length > 1000, `${bytes.length} bytes`);
  });
});
