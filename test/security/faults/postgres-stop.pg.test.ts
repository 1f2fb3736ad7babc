// Fault injection: stop PostgreSQL under load and start it again. While it is down every request that needs
// it answers 503 with Retry-After (never 500, never a hang); when it is back the same Gatehouse process
// recovers by itself — no restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startCluster } from '../../../scripts/pg-cluster.mjs';
import { assertNoLeak } from '../helpers/invariants.js';
import { attempt, openDatabase, seedClients, serverEnv, serviceToken, startServer } from './helpers.js';
import { basicAuth } from '../../oauth/fixtures.js';

test('PostgreSQL stopped mid-load → 503 + Retry-After (never 500), then recovery without restarting Gatehouse', { timeout: 180_000 }, async () => {
  const cluster = await startCluster({ maxConnections: 50 });
  const server = await startServer(serverEnv(cluster.url, { DATABASE_POOL_SIZE: '4' }));
  const database = await openDatabase(cluster.url);
  try {
    const { service } = await seedClients(database);
    await database.close();
    const token = await serviceToken(server.url, service);
    const pay = () =>
      attempt(`${server.url}/v1/payments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({ amount: '1.00', currency: 'EUR', account: 'A' }),
      });
    const tokenRequest = () =>
      attempt(`${server.url}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(service.id, service.secret) },
        body: 'grant_type=client_credentials&scope=payments:write',
      });
    const ready = () => attempt(`${server.url}/readyz`, {});

    assert.equal((await pay())?.status, 201);

    // Load in flight while the server goes away.
    const inflight = Array.from({ length: 10 }, (_, i) => (i % 2 ? pay() : tokenRequest()));
    cluster.pause();
    const during = await Promise.all([...inflight, ...Array.from({ length: 10 }, (_, i) => (i % 2 ? pay() : tokenRequest())), ready()]);
    let unavailable = 0;
    for (const r of during) {
      assert.ok(r, 'every request got an answer (no hang, no dropped connection)');
      assert.notEqual(r!.status, 500);
      assert.ok([200, 201, 503].includes(r!.status), `status ${r!.status}`);
      if (r!.status === 503) {
        unavailable += 1;
        assert.ok(Number(r!.headers.get('retry-after')) > 0, 'Retry-After on 503');
        assertNoLeak(JSON.stringify(r!.json ?? {}));
      }
    }
    // Payments need the database; a client_credentials token may still be served from the client cache.
    assert.ok(unavailable >= 10, `${unavailable} answers were 503 while PostgreSQL was down`);
    const payDown = await pay();
    assert.equal(payDown?.status, 503);
    assert.match(payDown!.headers.get('content-type') ?? '', /^application\/problem\+json/);
    const tokenDown = await tokenRequest();
    assert.ok(
      tokenDown?.status === 200 || (tokenDown?.status === 503 && tokenDown.json?.error === 'temporarily_unavailable'),
      `token while down: ${tokenDown?.status}`,
    );
    assert.equal((await attempt(`${server.url}/healthz`, {}))?.status, 200, 'the process itself stays healthy');

    cluster.resume();
    assert.equal((await ready())?.status, 200);
    assert.equal((await pay())?.status, 201);
    assert.equal((await tokenRequest())?.status, 200);
    assert.equal(server.child.exitCode, null, 'the same process served before, during and after');
  } finally {
    await server.stop().catch(() => {});
    await database.close().catch(() => {});
    cluster.stop();
  }
});
