// Durability of the embedded default: what Gatehouse answered as committed survives kill -9 of Gatehouse and of
// its embedded PostgreSQL server, and a server orphaned by a killed Gatehouse is adopted by the next start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startServerProcess } from '../helpers/server-process.js';
import { clusterDir, runningPid } from '../../src/storage/driver/embedded-postgres.js';
import { seedClients, serviceToken, attempt } from '../security/faults/helpers.js';
import { loginAndConsent } from '../interaction/browserless.js';
import { authorizeUrl } from '../security/helpers/world.js';
import { pkcePair } from '../helpers/pkce.js';
import { systemClock } from '../../src/clock.js';
import { newDataDir, openEmbedded, waitUntilGone } from './embedded-fixtures.js';
import { Browser } from '../helpers/browser.js';
import { SIGN_IN, createUser } from '../helpers/users.js';

test('a committed code redemption, refresh rotation and payment survive kill -9 of Gatehouse and of the embedded server', { timeout: 180_000 }, async (t) => {
  const { dataDir, env } = newDataDir(t);
  let server = await startServerProcess(env);
  let { server: embedded, database } = await openEmbedded(dataDir);
  try {
    const { service, app } = await seedClients(database);
    const user = await createUser(database.db, systemClock, SIGN_IN);
    const token = await serviceToken(server.url, service);

    const p = pkcePair();
    const location = await loginAndConsent(new Browser(server.url), authorizeUrl(app.id, { scope: 'openid offline_access' }, p.challenge), user);
    const codeForm = {
      grant_type: 'authorization_code',
      code: location.searchParams.get('code')!,
      redirect_uri: 'https://client.example/cb',
      code_verifier: p.verifier,
      client_id: app.id,
    };
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const exchanged = await attempt(`${server.url}/token`, { method: 'POST', headers: form, body: new URLSearchParams(codeForm) });
    assert.equal(exchanged?.status, 200);
    const first = String(exchanged!.json!.refresh_token);
    const rotated = await attempt(`${server.url}/token`, {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first, client_id: app.id }),
    });
    assert.equal(rotated?.status, 200);
    const second = String(rotated!.json!.refresh_token);
    const key = randomUUID();
    const paid = await attempt(`${server.url}/v1/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ amount: '7.00', currency: 'EUR', account: key }),
    });
    assert.equal(paid?.status, 201, JSON.stringify(paid?.json));

    // kill -9 of Gatehouse, then of the server it started (its postmaster).
    const postmaster = runningPid(clusterDir(dataDir))!;
    await server.stop('SIGKILL');
    process.kill(postmaster, 'SIGKILL');
    await waitUntilGone(postmaster);
    await database.close().catch(() => {});

    server = await startServerProcess(env);
    ({ server: embedded, database } = await openEmbedded(dataDir));
    assert.notEqual(runningPid(clusterDir(dataDir)), postmaster, 'a new server recovered the directory');
    const row = await database.db.selectFrom('payments').select(['id', 'account']).where('id', '=', String(paid!.json!.id)).executeTakeFirst();
    assert.equal(row?.account, key, 'the confirmed payment is there');
    const refresh = (token: string) =>
      attempt(`${server.url}/token`, {
        method: 'POST',
        headers: form,
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: app.id }),
      });
    const after = await refresh(second);
    assert.equal(after?.status, 200, 'the token the committed rotation issued works');

    // kill -9 of Gatehouse alone leaves its server orphaned: the next start adopts it, and still answers.
    const orphan = runningPid(clusterDir(dataDir))!;
    await server.stop('SIGKILL');
    server = await startServerProcess(env);
    assert.equal(runningPid(clusterDir(dataDir)), orphan, 'the orphaned server was adopted, not replaced');
    assert.equal((await refresh(String(after!.json!.refresh_token)))?.status, 200);
    // The token rotated away before the crash stays rotated: presenting it is reuse (the family is revoked).
    assert.equal((await refresh(first))?.json?.error, 'invalid_grant');
    // The code redeemed before the crash stays redeemed (a replay is refused, and revokes what the code issued: RFC 6749 §4.1.2).
    const replayedCode = await attempt(`${server.url}/token`, { method: 'POST', headers: form, body: new URLSearchParams(codeForm) });
    assert.equal(replayedCode?.status, 400, 'the redeemed code stays redeemed');
  } finally {
    await server.stop('SIGTERM');
    await embedded.release();
    await database.close();
  }
});
