// Dynamic registration policy: what an initial access token lets a client registered at /register hold
// (RFC 7591 3, 3.2.2), how often it can be used, and that RFC 7592 updates stay within that policy.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { executeCommand } from '../../src/cli/execute.js';
import { UsageError } from '../../src/cli/command.js';
import { sha256 } from '../../src/crypto/random.js';
import { initialAccessTokensRepository } from '../../src/storage/repositories/initial-access-tokens-repository.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { basicAuth, postForm } from './fixtures.js';
import { NO_LIMITS } from '../helpers/env.js';

let t: TestApp;
before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
});
after(() => t.close());

const newToken = async (...flags: string[]) =>
  String(((await executeCommand(['registration-token', 'create', ...flags], t.core)) as { initial_access_token: string }).initial_access_token);

async function call(method: string, url: string, token: string, body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}
const register = (token: string, body: unknown) => call('POST', `${t.url}/register`, token, body);

const webApp = {
  client_name: 'Web',
  grant_types: ['authorization_code', 'refresh_token'],
  redirect_uris: ['https://app.example/cb'],
  scope: 'openid profile email address phone offline_access',
};
const service = { client_name: 'Svc', grant_types: ['client_credentials'], scope: 'orders:read', token_endpoint_auth_method: 'client_secret_basic' };

test('registration policy: a token without allowances registers no client_credentials client (invalid_client_metadata)', async () => {
  const res = await register(await newToken(), { ...service, scope: '' });
  assert.equal(res.status, 400);
  assert.equal(res.body.error, 'invalid_client_metadata');
  assert.match(String(res.body.error_description), /client_credentials/);
});

test('registration policy: a token without allowances registers no resource-API scope; the OIDC scopes stay allowed', async () => {
  const token = await newToken();
  for (const scope of ['openid orders:read', 'users:read', 'openid payments:write', 'reports:write']) {
    const res = await register(token, { ...webApp, scope });
    assert.equal(res.status, 400, scope);
    assert.equal(res.body.error, 'invalid_client_metadata', scope);
  }
  const ok = await register(token, webApp);
  assert.equal(ok.status, 201);
  assert.equal(ok.body.scope, webApp.scope);
});

test('registration policy: a token allowing client_credentials and some API scopes registers exactly that, and nothing wider', async () => {
  const flags = ['--allow-grant-types', 'client_credentials', '--allow-scope', 'orders:read', '--allow-scope', 'reports:read', '--uses', '3'];
  const token = await newToken(...flags);
  const wider = await register(token, { ...service, scope: 'orders:read orders:write' });
  assert.equal(wider.status, 400);
  assert.equal(wider.body.error, 'invalid_client_metadata');
  const res = await register(token, { ...service, scope: 'orders:read reports:read' });
  assert.equal(res.status, 201);
  const tokenRes = await postForm(
    `${t.url}/token`,
    { grant_type: 'client_credentials' },
    { authorization: basicAuth(String(res.body.client_id), String(res.body.client_secret)) },
  );
  assert.equal(tokenRes.status, 200);
  assert.equal(tokenRes.body.scope, 'orders:read reports:read');
});

test('initial access tokens are single use by default: two parallel registrations, exactly one succeeds', async () => {
  for (let round = 0; round < 3; round++) {
    const token = await newToken();
    const statuses = (await Promise.all([register(token, webApp), register(token, webApp)])).map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, 401]);
    assert.equal((await register(token, webApp)).status, 401, 'and it stays used');
  }
});

test('an initial access token with --uses N registers exactly N clients, even under 8 parallel requests', async () => {
  const token = await newToken('--uses', '3');
  const statuses = (await Promise.all(Array.from({ length: 8 }, () => register(token, webApp)))).map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 201).length, 3);
  assert.equal(statuses.filter((s) => s === 401).length, 5);
});

test('spending initial access token uses is atomic: 10 parallel spends of a 3-use token yield exactly 3', async () => {
  const repository = initialAccessTokensRepository(t.core.db, t.core.clock);
  const tokenHash = sha256(await newToken('--uses', '3'));
  const spent = await Promise.all(Array.from({ length: 10 }, () => repository.consume(tokenHash)));
  assert.equal(spent.filter(Boolean).length, 3);
  assert.equal(await repository.peek(tokenHash), undefined);
});

test('a registration refused for its metadata does not spend the initial access token', async () => {
  const token = await newToken();
  assert.equal((await register(token, { ...webApp, scope: 'orders:write' })).status, 400);
  assert.equal((await register(token, { ...webApp, redirect_uris: ['http://evil.example/cb'] })).status, 400);
  assert.equal((await register(token, webApp)).status, 201);
});

test('registration policy: an RFC 7592 update cannot widen a client beyond the policy of its initial access token', async () => {
  const created = (await register(await newToken(), webApp)).body as Record<string, string>;
  const uri = created.registration_client_uri!;
  const token = created.registration_access_token!;
  const same = { ...webApp, client_id: created.client_id, token_endpoint_auth_method: 'client_secret_basic' };
  for (const wider of [
    { ...same, scope: 'openid orders:write' },
    { ...same, grant_types: ['authorization_code', 'client_credentials'] },
  ]) {
    const res = await call('PUT', uri, token, wider);
    assert.equal(res.status, 400, JSON.stringify(wider));
    assert.equal(res.body.error, 'invalid_client_metadata');
  }
  const narrower = await call('PUT', uri, token, { ...same, scope: 'openid' });
  assert.equal(narrower.status, 200);
  assert.equal(narrower.body.scope, 'openid');

  // A client registered with allowances may use them in an update, and no more.
  const svc = (await register(await newToken('--allow-grant-types', 'client_credentials', '--allow-scope', 'orders:read reports:read'), service))
    .body as Record<string, string>;
  const svcSame = { ...service, client_id: svc.client_id };
  assert.equal((await call('PUT', svc.registration_client_uri!, svc.registration_access_token!, { ...svcSame, scope: 'reports:read' })).status, 200);
  assert.equal((await call('PUT', svc.registration_client_uri!, svc.registration_access_token!, { ...svcSame, scope: 'users:write' })).status, 400);
});

test('registration-token create validates --allow-grant-types, --allow-scope and --uses, and prints the policy', async () => {
  const printed = (await executeCommand(
    ['registration-token', 'create', '--allow-grant-types', 'client_credentials', '--allow-scope', 'orders:read users:read', '--uses', '2'],
    t.core,
  )) as Record<string, unknown>;
  assert.deepEqual(printed.allowed_grant_types, ['client_credentials']);
  assert.equal(printed.allowed_scope, 'orders:read users:read');
  assert.equal(printed.uses, 2);
  for (const flags of [
    ['--allow-grant-types', 'password'],
    ['--allow-scope', 'admin'],
    ['--uses', '0'],
    ['--uses', 'many'],
  ]) {
    await assert.rejects(executeCommand(['registration-token', 'create', ...flags], t.core), UsageError, flags.join(' '));
  }
});
