// Access to /admin/v1: tokens for the audience {ISSUER}/admin with admin:read / admin:write, issued by
// client_credentials only to operator-made confidential clients; RFC 6750 challenges for everything refused.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as client from 'openid-client';
import { decodeJwt } from 'jose';
import { UsageError } from '../../src/cli/command.js';
import { adminFixture, createBody, problemOf, SERVICE_CLIENT, type AdminFixture } from './fixture.js';
import { registerClient } from '../oauth/fixtures.js';
import { initialAccessTokensRepository } from '../../src/storage/repositories/initial-access-tokens-repository.js';
import { randomToken, sha256 } from '../../src/crypto/random.js';

let f: AdminFixture;
before(async () => {
  f = await adminFixture({ env: { REGISTRATION_ENABLED: 'true' } });
});
after(() => f.t.close());

test('an operator-made admin client gets an admin token from openid-client: audience {ISSUER}/admin, and it reads /admin/v1', async () => {
  const config = await client.discovery(new URL(f.t.url), f.admin.id, undefined, client.ClientSecretBasic(f.admin.secret), {
    execute: [client.allowInsecureRequests],
  });
  const tokens = await client.clientCredentialsGrant(config, { scope: 'admin:read' });
  assert.equal(decodeJwt(tokens.access_token).aud, `${f.t.url}/admin`);
  const res = await f.api('/admin/v1/clients', { token: tokens.access_token });
  assert.equal(res.status, 200);
});

test('no token: 401 with a bare Bearer challenge, as Problem Details', async () => {
  const res = await fetch(`${f.t.url}/admin/v1/clients`);
  assert.equal(res.status, 401);
  assert.equal(res.headers.get('www-authenticate'), `Bearer resource_metadata="${f.t.url}/.well-known/oauth-protected-resource/admin"`);
  assert.equal((await problemOf(res)).code, 'unauthorized');
});

test('admin:write is required to change anything: an admin:read token gets 403 insufficient_scope naming admin:write', async () => {
  const res = await f.api('/admin/v1/clients', { ...createBody(SERVICE_CLIENT, crypto.randomUUID()), token: f.readToken });
  assert.equal(res.status, 403);
  assert.match(res.headers.get('www-authenticate') ?? '', /error="insufficient_scope".*scope="admin:write"/);
  assert.equal((await problemOf(res)).code, 'insufficient-scope');
});

test('a resource-API token (audience API_AUDIENCE) is refused by the admin API with 401 invalid_token', async () => {
  const svc = await registerClient(f.t.core, { grant_types: ['client_credentials'], scope: 'users:read' });
  const apiToken = String((await f.tokenFor(svc.id, svc.secret, 'users:read')).body.access_token);
  const res = await f.api('/admin/v1/clients', { token: apiToken });
  assert.equal(res.status, 401);
  assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
});

test('an admin token is refused by the resource API /v1 (wrong audience)', async () => {
  const res = await fetch(`${f.t.url}/v1/users/me`, { headers: { authorization: `Bearer ${f.token}` } });
  assert.equal(res.status, 401);
});

test('admin scopes are never granted by /register, whatever the initial access token allows', async () => {
  // An initial access token written as if its policy allowed the admin scopes (the CLI would refuse to make one).
  const token = randomToken(32);
  await initialAccessTokensRepository(f.t.core.db, f.t.core.clock).create({
    tokenHash: sha256(token),
    expiresAt: new Date(f.t.core.clock.now() + 600_000),
    uses: 5,
    allowedGrantTypes: ['client_credentials'],
    allowedScopes: ['admin:read', 'admin:write', 'orders:read'],
  });
  const res = await fetch(`${f.t.url}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({
      client_name: 'sneaky',
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'admin:read admin:write',
    }),
  });
  assert.equal(res.status, 400);
  assert.equal(((await res.json()) as { error: string }).error, 'invalid_client_metadata');
  const rows = await f.t.core.db.selectFrom('clients').select('id').where('name', '=', 'sneaky').execute();
  assert.equal(rows.length, 0);
});

test('admin scopes are for confidential client_credentials-only clients, alone: public, mixed grants and mixed scopes are refused', async () => {
  await assert.rejects(
    f.cli(
      'clients',
      'create',
      '--name',
      'P',
      '--type',
      'public',
      '--grant-types',
      'authorization_code',
      '--redirect-uri',
      'https://a.example/cb',
      '--scope',
      'admin:read',
    ),
    UsageError,
  );
  await assert.rejects(
    f.cli(
      'clients',
      'create',
      '--name',
      'M',
      '--type',
      'confidential',
      '--grant-types',
      'client_credentials,authorization_code',
      '--redirect-uri',
      'https://a.example/cb',
      '--scope',
      'admin:read',
    ),
    UsageError,
  );
  await assert.rejects(
    f.cli('clients', 'create', '--name', 'S', '--type', 'confidential', '--grant-types', 'client_credentials', '--scope', 'admin:read orders:read'),
    /cannot be combined/,
  );
  const res = await f.api(
    '/admin/v1/clients',
    createBody({ ...SERVICE_CLIENT, scope: 'admin:read', grant_types: ['client_credentials', 'refresh_token'] }, crypto.randomUUID()),
  );
  assert.equal(res.status, 422);
});

test('RFC 8707: an admin token request naming another resource is invalid_target', async () => {
  const res = await f.tokenFor(f.admin.id, f.admin.secret, 'admin:read');
  assert.equal(res.status, 200);
  const { postForm, basicAuth } = await import('../oauth/fixtures.js');
  const wrong = await postForm(
    `${f.t.url}/token`,
    { grant_type: 'client_credentials', scope: 'admin:read', resource: f.t.config.API_AUDIENCE },
    { authorization: basicAuth(f.admin.id, f.admin.secret) },
  );
  assert.equal(wrong.status, 400);
  assert.equal(wrong.body.error, 'invalid_target');
});

test('the admin API is a tagged part of /openapi.json, each operation naming its admin scope, and is rendered in /docs', async () => {
  const doc = (await (await fetch(`${f.t.url}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { tags?: string[]; security?: { oauth2: string[] }[] }>>;
    components: { securitySchemes: { oauth2: { flows: { clientCredentials: { scopes: Record<string, string> } } } } };
  };
  const create = doc.paths['/admin/v1/clients']?.post;
  assert.deepEqual(create?.tags, ['admin: clients']);
  assert.deepEqual(create?.security, [{ oauth2: ['admin:write'] }]);
  assert.deepEqual(doc.paths['/admin/v1/audit-events']?.get?.security, [{ oauth2: ['admin:read'] }]);
  assert.ok(doc.components.securitySchemes.oauth2.flows.clientCredentials.scopes['admin:write']);
  const html = await (await fetch(`${f.t.url}/docs`)).text();
  assert.ok(html.includes('/admin/v1/clients/{id}/secrets'));
});
