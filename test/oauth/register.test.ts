// Dynamic client registration: RFC 7591 POST /register and RFC 7592 client configuration endpoint.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import { manualClock } from '../../src/clock.js';
import { executeCommand } from '../../src/cli/execute.js';
import { sha256 } from '../../src/crypto/random.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { basicAuth, postForm } from './fixtures.js';
import { NO_LIMITS } from '../helpers/env.js';

const clock = manualClock(Date.now());
let t: TestApp;

before(async () => {
  t = await startTestApp({ clock, env: NO_LIMITS });
});

/** A fresh initial access token; `backend` clients need the allowances a service client needs. */
const newToken = async (...flags: string[]) =>
  String(
    ((await executeCommand(['registration-token', 'create', '--ttl', '3600', ...flags], t.core)) as { initial_access_token: string }).initial_access_token,
  );
const SERVICE = ['--allow-grant-types', 'client_credentials', '--allow-scope', 'orders:read reports:read'];
after(() => t.close());

async function call(method: string, url: string, token: string | undefined, body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

const backend = { client_name: 'Reg backend', grant_types: ['client_credentials'], scope: 'orders:read', token_endpoint_auth_method: 'client_secret_basic' };
const register = async (body: unknown = backend, token?: string) => call('POST', `${t.url}/register`, token ?? (await newToken(...SERVICE)), body);

test('registration without an initial access token is 401 invalid_token with a Bearer challenge', async () => {
  for (const token of [undefined, 'wrong-token']) {
    const res = await call('POST', `${t.url}/register`, token, backend);
    assert.equal(res.status, 401);
    assert.equal(res.body.error, 'invalid_token');
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer /);
  }
});

test('a registered confidential client gets a secret, a registration access token and URI, and can obtain tokens', async () => {
  const res = await register();
  assert.equal(res.status, 201);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  const { client_id, client_secret, registration_access_token, registration_client_uri } = res.body as Record<string, string>;
  assert.ok(client_id && client_secret && registration_access_token);
  assert.equal(registration_client_uri, `${t.url}/register/${client_id}`);
  assert.equal(res.body.client_secret_expires_at, 0);
  const response = await oauth.clientCredentialsGrantRequest(
    { issuer: t.url, token_endpoint: `${t.url}/token` },
    { client_id: client_id! },
    oauth.ClientSecretBasic(client_secret!),
    {},
    {
      [oauth.allowInsecureRequests]: true,
    },
  );
  assert.equal(response.status, 200);
  const row = await t.core.db.selectFrom('clients').select(['registration_token_hash', 'skip_consent']).where('id', '=', client_id!).executeTakeFirstOrThrow();
  assert.equal(row.registration_token_hash, sha256(registration_access_token!));
});

test('registration applies the same metadata rules as the CLI (invalid_redirect_uri, invalid_client_metadata)', async () => {
  const badUri = await register({ grant_types: ['authorization_code'], redirect_uris: ['http://evil.example/cb'], scope: 'openid' });
  assert.equal(badUri.status, 400);
  assert.equal(badUri.body.error, 'invalid_redirect_uri');
  for (const body of [{ grant_types: ['password'] }, { grant_types: ['client_credentials'], token_endpoint_auth_method: 'none' }, [1, 2]]) {
    const res = await register(body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.error, 'invalid_client_metadata', JSON.stringify(body));
  }
});

test('a dynamically registered client can never skip consent', async () => {
  const res = await register({
    client_name: 'x',
    grant_types: ['authorization_code'],
    redirect_uris: ['https://a.example/cb'],
    scope: 'openid',
    skip_consent: true,
  });
  assert.equal(res.status, 201);
  assert.equal(res.body.skip_consent, false);
});

test('RFC 7592: read, update and delete with the registration access token only; an update or delete takes effect at once on this instance', async () => {
  const created = (await register()).body as Record<string, string>;
  const uri = created.registration_client_uri!;
  const token = created.registration_access_token!;

  const read = await call('GET', uri, token);
  assert.equal(read.status, 200);
  assert.equal(read.body.client_id, created.client_id);
  assert.equal(read.body.client_secret, undefined);
  assert.equal((await call('GET', uri, await newToken())).status, 401);
  assert.equal((await call('GET', uri, undefined)).status, 401);

  const other = (await register()).body as Record<string, string>;
  assert.equal((await call('GET', uri, other.registration_access_token)).status, 401, "another client's registration token");

  const mismatch = await call('PUT', uri, token, { ...backend, client_id: other.client_id });
  assert.equal(mismatch.status, 400);
  const typeChange = await call('PUT', uri, token, {
    client_id: created.client_id,
    grant_types: ['authorization_code'],
    redirect_uris: ['https://a.example/cb'],
    token_endpoint_auth_method: 'none',
  });
  assert.equal(typeChange.status, 400);
  const beforeUpdate = await postForm(
    `${t.url}/token`,
    { grant_type: 'client_credentials' },
    { authorization: basicAuth(created.client_id!, created.client_secret!) },
  );
  assert.equal(beforeUpdate.status, 200, "the client is now in this instance's client cache");
  const updated = await call('PUT', uri, token, { ...backend, client_id: created.client_id, scope: 'reports:read' });
  assert.equal(updated.status, 200);
  assert.equal(updated.body.scope, 'reports:read');
  const tokenRes = await postForm(
    `${t.url}/token`,
    { grant_type: 'client_credentials' },
    { authorization: basicAuth(created.client_id!, created.client_secret!) },
  );
  assert.equal(tokenRes.body.scope, 'reports:read', 'the secret survives an update, and the update takes effect at once');

  assert.equal((await call('DELETE', uri, token)).status, 204);
  assert.equal((await call('GET', uri, token)).status, 401);
  // Deleted through this instance: its client cache forgets the client at once (no CLIENT_CACHE_TTL wait).
  const afterDelete = await postForm(
    `${t.url}/token`,
    { grant_type: 'client_credentials' },
    { authorization: basicAuth(created.client_id!, created.client_secret!) },
  );
  assert.equal(afterDelete.status, 401);
});

test('an unknown client id at the configuration endpoint is the same 401 as a wrong token', async () => {
  const res = await call('GET', `${t.url}/register/no-such-client`, 'whatever');
  assert.equal(res.status, 401);
  assert.equal(res.body.error, 'invalid_token');
});

test('an expired initial access token is refused', async () => {
  const token = await newToken(...SERVICE);
  clock.advance(3601 * 1000);
  const res = await register(backend, token);
  assert.equal(res.status, 401);
});

test('with REGISTRATION_ENABLED=false there is no /register route and discovery does not advertise it', async () => {
  const off = await startTestApp({ env: { ...NO_LIMITS, REGISTRATION_ENABLED: 'false' } });
  try {
    const res = await fetch(`${off.url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(res.status, 404);
    const metadata = (await (await fetch(`${off.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    assert.equal(metadata.registration_endpoint, undefined);
  } finally {
    await off.close();
  }
});
