// Deleting (or disabling) a client ends its tokens: every live access token of the client — the
// client_credentials ones that no grant records included — is refused by /v1, /userinfo and /introspect,
// even on an instance that still remembers the client, and its refresh tokens no longer refresh. A refresh
// uses the client's current registration (scope and grant types as they are now).
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../../src/clock.js';
import { executeCommand } from '../../../src/cli/execute.js';
import { clientsRepository } from '../../../src/storage/repositories/clients-repository.js';
import type { User } from '../../../src/storage/repositories/users-repository.js';
import { createTestDatabase } from '../../helpers/database.js';
import type { Database } from '../../../src/storage/driver/database.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { codeGrantTokens, createClient, postToken, refreshWith, type ClientFixture } from '../../helpers/oauth-fixtures.js';
import { DEFAULT_REVOCATION_RECHECK_MS } from '../../../src/resource-server/auth/authenticator.js';
import { NO_LIMITS } from '../../helpers/env.js';
import { createUser } from '../../helpers/users.js';

const clock = manualClock();
let database: Database;
/** Two instances that remember client registrations for a minute (CLIENT_CACHE_TTL). */
let a: TestApp;
let b: TestApp;
let user: User;
before(async () => {
  database = await createTestDatabase();
  a = await startTestApp({ database, clock, env: { ...NO_LIMITS, CLIENT_CACHE_TTL: '60' } });
  // Two instances of one deployment: the same issuer (and so the same API audience), another port.
  const second = await startTestApp({
    database,
    clock,
    env: { ...NO_LIMITS, CLIENT_CACHE_TTL: '60', ISSUER: a.url, KEY_ENCRYPTION_KEY: String(a.config.KEY_ENCRYPTION_KEY) },
  });
  b = { ...second, url: `http://127.0.0.1:${(second.app.server.address() as AddressInfo).port}` };
  user = await createUser(a.core.db, clock);
});
after(async () => {
  await b.close();
  await a.close();
  await database.close();
});

const serviceClient = () => createClient(a.core.db, clock, { type: 'confidential', grantTypes: ['client_credentials'], scopes: ['orders:read', 'users:read'] });
const userClient = (scopes = ['openid', 'offline_access', 'users:read', 'orders:read']) => createClient(a.core.db, clock, { scopes });

const bearer = (app: TestApp, path: string, token: unknown) => fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${String(token)}` } });
const serviceToken = async (app: TestApp, client: ClientFixture) => {
  const res = await postToken(app.url, client, { grant_type: 'client_credentials' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return String(res.body.access_token);
};
const introspect = async (app: TestApp, client: ClientFixture, token: string) => {
  const basic = Buffer.from(`${client.client.id}:${client.secret}`).toString('base64');
  const res = await fetch(`${app.url}/introspect`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }),
  });
  return { status: res.status, body: (await res.json()) as { active?: boolean } };
};

test('deleting a client revokes its client_credentials access tokens: /v1 and /introspect refuse them, also where the client is still cached', async () => {
  const service = await serviceClient();
  const token = await serviceToken(a, service);
  assert.equal((await bearer(b, '/v1/orders', token)).status, 200);
  assert.equal((await introspect(b, service, token)).body.active, true, 'b now remembers the client');
  assert.deepEqual(await executeCommand(['clients', 'delete', service.client.id], a.core), { deleted: service.client.id });
  assert.equal((await bearer(a, '/v1/orders', token)).status, 401);
  assert.equal((await bearer(b, '/v1/orders', token)).status, 401, 'a token b had verified and cached is refused');
  assert.equal((await introspect(b, service, token)).body.active, false, 'b still authenticates the cached client, but the token is inactive');
  // b may still mint a token for the client it remembers (for CLIENT_CACHE_TTL); that token is born revoked.
  clock.advance(2_000);
  const late = await postToken(b.url, service, { grant_type: 'client_credentials' });
  assert.equal(late.status, 200);
  assert.equal((await bearer(b, '/v1/orders', late.body.access_token)).status, 401);
});

test('deleting a client revokes its user tokens: /v1 and /userinfo refuse them and its refresh token no longer refreshes', async () => {
  const client = await userClient();
  const tokens = await codeGrantTokens(a, client, user, ['openid', 'offline_access', 'users:read']);
  assert.equal((await bearer(a, '/userinfo', tokens.access_token)).status, 200);
  await executeCommand(['clients', 'delete', client.client.id], a.core);
  assert.equal((await bearer(a, '/v1/users/me', tokens.access_token)).status, 401);
  assert.equal((await bearer(b, '/userinfo', tokens.access_token)).status, 401);
  assert.notEqual((await refreshWith(a.url, client, String(tokens.refresh_token))).status, 200);
});

test('disabling a client (gatehouse clients disable) revokes its access tokens and its refresh-token families', async () => {
  const service = await serviceClient();
  const token = await serviceToken(a, service);
  const client = await userClient();
  const tokens = await codeGrantTokens(a, client, user, ['openid', 'offline_access', 'users:read']);
  for (const id of [service.client.id, client.client.id]) assert.deepEqual(await executeCommand(['clients', 'disable', id], a.core), { disabled: id });
  assert.equal((await bearer(b, '/v1/orders', token)).status, 401);
  assert.equal((await bearer(b, '/userinfo', tokens.access_token)).status, 401);
  const grants = await a.core.db.selectFrom('oauth_grants').select('revoked_at').where('client_id', '=', client.client.id).execute();
  assert.ok(grants.length > 0 && grants.every((g) => g.revoked_at !== null), 'every family of the client is revoked');
  assert.equal((await postToken(a.url, service, { grant_type: 'client_credentials' })).status, 401, 'a disabled client cannot authenticate');
});

test('a client revocation written by another instance reaches a token cached here within the re-check interval', async () => {
  const service = await serviceClient();
  const token = await serviceToken(a, service);
  assert.equal((await bearer(b, '/v1/orders', token)).status, 200);
  // What another process's `clients delete` leaves in the shared database (this process's counter does not move).
  await database.db
    .insertInto('revoked_clients')
    .values({
      client_id: service.client.id,
      revoked_at: new Date(clock.now()),
      covers_issued_until: new Date(clock.now()),
      expires_at: new Date(clock.now() + 3_600_000),
    })
    .execute();
  clock.advance(DEFAULT_REVOCATION_RECHECK_MS);
  assert.equal((await bearer(b, '/v1/orders', token)).status, 401);
});

test('a refresh issues only the scopes the client is registered for now', async () => {
  const client = await userClient();
  const tokens = await codeGrantTokens(a, client, user, ['openid', 'offline_access', 'users:read', 'orders:read']);
  await clientsRepository(a.core.db, clock).update(client.client.id, { scopes: ['openid', 'offline_access', 'orders:read'] });
  a.core.clients.forget(client.client.id);
  const refreshed = await refreshWith(a.url, client, String(tokens.refresh_token));
  assert.equal(refreshed.status, 200);
  assert.equal(refreshed.body.scope, 'openid offline_access orders:read');
  assert.equal((await bearer(a, '/v1/users/me', refreshed.body.access_token)).status, 403, 'the removed scope is not in the new token');
  const narrowed = await refreshWith(a.url, client, String(refreshed.body.refresh_token), { scope: 'users:read' });
  assert.equal(narrowed.body.error, 'invalid_scope', 'asking only for a removed scope');
});

test('a client no longer registered for refresh_token cannot refresh (unauthorized_client)', async () => {
  const client = await userClient();
  const tokens = await codeGrantTokens(a, client, user, ['openid', 'offline_access', 'users:read']);
  await clientsRepository(a.core.db, clock).update(client.client.id, { grantTypes: ['authorization_code'] });
  a.core.clients.forget(client.client.id);
  const res = await refreshWith(a.url, client, String(tokens.refresh_token));
  assert.equal(res.status, 400);
  assert.equal(res.body.error, 'unauthorized_client');
});
