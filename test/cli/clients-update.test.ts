// `gatehouse clients update CLIENT_ID --token-exchange-impersonation on|off` (docs/token-exchange.md): an
// operator turns RFC 8693 impersonation on or off for an existing client. The change is audited like every
// client change, refused for a client not registered for token exchange, takes effect on the next exchange
// (this instance's client cache is forgotten), and the same command twice at once changes it once. The admin
// API's PATCH of the same member is in test/admin/token-exchange-policy.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { executeCommand } from '../../src/cli/execute.js';
import { UsageError } from '../../src/cli/command.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { NO_LIMITS } from '../helpers/env.js';
import { codeGrantTokens, createClient } from '../helpers/oauth-fixtures.js';
import { createUser } from '../helpers/users.js';
import { basicAuth, postForm } from '../oauth/fixtures.js';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';

let t: TestApp;
before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
});
after(() => t.close());

const run = (...argv: string[]) => executeCommand(argv, t.core) as Promise<Record<string, unknown>>;
const exchangeClient = async (name: string) => {
  const out = await run('clients', 'create', '--name', name, '--type', 'confidential', '--grant-types', EXCHANGE, '--scope', 'users:read');
  return { id: String(out.client_id), secret: String(out.client_secret) };
};
const updates = (clientId: string) =>
  t.core.db
    .selectFrom('audit_events')
    .select(['changed_fields', 'actor_kind'])
    .where('type', '=', 'admin.client.updated')
    .where('resource_id', '=', clientId)
    .execute();

test('clients update --token-exchange-impersonation on|off: the next exchange impersonates, then names the client again; each change audited', async () => {
  const backend = await exchangeClient('backend');
  await run('resource-servers', 'update', `${t.url}/v1`, '--token-exchange-clients', backend.id);
  const app = await createClient(t.core.db, t.core.clock, { type: 'confidential', grantTypes: ['authorization_code'], scopes: ['users:read'] });
  const user = await createUser(t.core.db, t.core.clock);
  const subject = String((await codeGrantTokens(t, app, user, ['users:read'])).access_token);
  const exchange = () =>
    postForm(
      `${t.url}/token`,
      { grant_type: EXCHANGE, subject_token: subject, subject_token_type: ACCESS_TOKEN, audience: `${t.url}/v1` },
      { authorization: basicAuth(backend.id, backend.secret) },
    );
  const actOf = async () => {
    const res = await exchange();
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return decodeJwt(String(res.body.access_token)).act;
  };
  assert.deepEqual(await actOf(), { sub: backend.id });

  const on = await run('clients', 'update', backend.id, '--token-exchange-impersonation', 'on');
  assert.equal(on.token_exchange_impersonation, true);
  assert.equal(on.client_id, backend.id);
  assert.equal(await actOf(), undefined, 'impersonation: no act');
  const off = await run('clients', 'update', backend.id, '--token-exchange-impersonation', 'off');
  assert.equal(off.token_exchange_impersonation, false);
  assert.deepEqual(await actOf(), { sub: backend.id });

  const events = await updates(backend.id);
  assert.equal(events.length, 2);
  for (const event of events) assert.deepEqual(event.changed_fields, ['token_exchange_impersonation']);
  // Setting what is already set changes nothing and writes no event.
  await run('clients', 'update', backend.id, '--token-exchange-impersonation', 'off');
  assert.equal((await updates(backend.id)).length, 2);
});

test('clients update --token-exchange-impersonation needs the token-exchange grant type, a known client and on|off', async () => {
  const cc = await run('clients', 'create', '--name', 'cc', '--type', 'confidential', '--grant-types', 'client_credentials', '--scope', 'users:read');
  await assert.rejects(run('clients', 'update', String(cc.client_id), '--token-exchange-impersonation', 'on'), (error: unknown) => {
    assert.ok(error instanceof UsageError);
    assert.match(error.message, /--token-exchange-impersonation needs the grant type urn:ietf:params:oauth:grant-type:token-exchange/);
    return true;
  });
  await assert.rejects(run('clients', 'update', 'no-such-client', '--token-exchange-impersonation', 'on'), /no client no-such-client/);
  await assert.rejects(run('clients', 'update', String(cc.client_id), '--token-exchange-impersonation', 'yes'), /must be one of on, off/);
  await assert.rejects(run('clients', 'update', String(cc.client_id)), /nothing to update/);
  await assert.rejects(run('clients', 'update', 'gatehouse-console', '--token-exchange-impersonation', 'on'), /built in/);
  assert.equal((await updates(String(cc.client_id))).length, 0);
});

test('the same clients update sent at once several times changes the client once: one audit event', async () => {
  const backend = await exchangeClient('concurrent');
  const answers = await Promise.all([1, 2, 3, 4].map(() => run('clients', 'update', backend.id, '--token-exchange-impersonation', 'on')));
  for (const answer of answers) assert.equal(answer.token_exchange_impersonation, true);
  assert.equal((await updates(backend.id)).length, 1);
  const row = await t.core.db.selectFrom('clients').select('token_exchange_impersonation').where('id', '=', backend.id).executeTakeFirstOrThrow();
  assert.equal(row.token_exchange_impersonation, true);
});
