// Every client created or changed at /register is audited in the transaction that writes it (docs/audit-log.md):
// RFC 7591 with an initial access token names the token's id (what `registration-token create` prints), RFC 7592
// updates and deletes by the registration access token name the changed fields. Open registration and metadata
// documents have their own tests (open-registration.test.ts, test/oauth/clients/metadata-document.test.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { executeCommand } from '../../../src/cli/execute.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { NO_LIMITS } from '../../helpers/env.js';

const REDIRECT = 'https://app.example/callback';
let t: TestApp;

before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
});
after(() => t.close());

async function call(method: string, url: string, token: string, body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}
const events = (type: string, clientId: string) =>
  t.core.db.selectFrom('audit_events').selectAll().where('type', '=', type).where('client_id', '=', clientId).orderBy('occurred_at').execute();
const app = { client_name: 'Registered app', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', scope: 'openid' };

test('audit: a client registered with an initial access token writes client.registered naming the token id, the client id, redirect URIs and scopes', async () => {
  const created = (await executeCommand(['registration-token', 'create'], t.core)) as { initial_access_token: string; id: string };
  assert.match(created.id, /^[A-Za-z0-9_-]{16}$/);
  const { status, body } = await call('POST', `${t.url}/register`, created.initial_access_token, app);
  assert.equal(status, 201, JSON.stringify(body));
  const [event] = await events('client.registered', String(body.client_id));
  assert.ok(event, 'client.registered written');
  assert.equal(event.actor_kind, 'system');
  assert.deepEqual(event.details, {
    initial_access_token_id: created.id,
    redirect_uris: REDIRECT,
    scope: 'openid',
    grant_types: 'authorization_code',
    token_endpoint_auth_method: 'none',
  });
  // The id names the token without revealing it.
  assert.ok(!JSON.stringify(event).includes(created.initial_access_token));
});

test('audit: a refused registration (invalid metadata) writes no event', async () => {
  const { initial_access_token: token } = (await executeCommand(['registration-token', 'create'], t.core)) as { initial_access_token: string };
  const before = await t.core.db.selectFrom('audit_events').select('id').where('type', '=', 'client.registered').execute();
  const first = await call('POST', `${t.url}/register`, token, { ...app, redirect_uris: ['not a uri'] });
  assert.equal(first.status, 400);
  const after = await t.core.db.selectFrom('audit_events').select('id').where('type', '=', 'client.registered').execute();
  assert.equal(after.length, before.length);
});

test('audit: an RFC 7592 update by the registration access token writes client.registration_updated with the changed fields; one that changes nothing writes none; a delete writes client.registration_deleted', async () => {
  const { initial_access_token: token } = (await executeCommand(['registration-token', 'create'], t.core)) as { initial_access_token: string };
  const { body } = await call('POST', `${t.url}/register`, token, app);
  const id = String(body.client_id);
  const access = String(body.registration_access_token);
  const uri = String(body.registration_client_uri);
  const changed = await call('PUT', uri, access, { ...app, client_id: id, redirect_uris: [REDIRECT, 'https://app.example/other'] });
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  const same = await call('PUT', uri, access, { ...app, client_id: id, redirect_uris: [REDIRECT, 'https://app.example/other'] });
  assert.equal(same.status, 200);
  const updates = await events('client.registration_updated', id);
  assert.equal(updates.length, 1, 'an update that changes nothing is not an event');
  assert.deepEqual(updates[0]!.changed_fields, ['redirect_uris']);
  assert.equal((updates[0]!.details as Record<string, unknown>).redirect_uris, `${REDIRECT} https://app.example/other`);
  assert.equal((updates[0]!.details as Record<string, unknown>).via, 'registration_access_token');

  assert.equal((await call('DELETE', uri, access)).status, 204);
  const [deleted] = await events('client.registration_deleted', id);
  assert.ok(deleted, 'client.registration_deleted written');
  assert.equal(deleted.resource_id, id);
});
