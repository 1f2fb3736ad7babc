// RFC 6749 4.4 client_credentials, driven by real client libraries (openid-client, oauth4webapi); tokens
// are verified with jose against the JWKS the server publishes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as client from 'openid-client';
import * as oauth from 'oauth4webapi';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { basicAuth, postForm, registerClient, type RegisteredClient } from '../fixtures.js';
import { NO_LIMITS } from '../../helpers/env.js';

let t: TestApp;
let service: RegisteredClient;
let tokenUrl: string;

before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
  tokenUrl = `${t.url}/token`;
  service = await registerClient(t.core, { grant_types: ['client_credentials'], scope: 'orders:read reports:read openid' });
});
after(() => t.close());

const ccRequest = (params: Record<string, string>, who: RegisteredClient = service) =>
  postForm(tokenUrl, { grant_type: 'client_credentials', ...params }, { authorization: basicAuth(who.id, who.secret) });

test('openid-client obtains a client_credentials token that verifies against the served JWKS as an ES256 at+jwt', async () => {
  const config = await client.discovery(new URL(t.url), service.id, undefined, client.ClientSecretBasic(service.secret), {
    execute: [client.allowInsecureRequests],
  });
  const tokens = await client.clientCredentialsGrant(config, { scope: 'orders:read' });
  assert.equal(tokens.token_type.toLowerCase(), 'bearer');
  assert.equal(tokens.scope, 'orders:read');
  assert.ok(Number.isInteger(tokens.expires_in) && tokens.expires_in === t.config.ACCESS_TOKEN_TTL);
  const jwks = createRemoteJWKSet(new URL(`${t.url}/.well-known/jwks.json`));
  const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, {
    issuer: t.url,
    audience: t.config.API_AUDIENCE,
    algorithms: ['ES256'],
    typ: 'at+jwt',
  });
  assert.equal(protectedHeader.alg, 'ES256');
  assert.equal(payload.sub, service.id);
  assert.equal(payload.client_id, service.id);
  assert.equal(payload.scope, 'orders:read');
  for (const claim of ['iss', 'sub', 'aud', 'exp', 'iat', 'jti', 'client_id', 'scope']) assert.ok(claim in payload, claim);
});

test('oauth4webapi obtains a client_credentials token with client_secret_basic', async () => {
  const as = await oauth.processDiscoveryResponse(new URL(t.url), await oauth.discoveryRequest(new URL(t.url), { [oauth.allowInsecureRequests]: true }));
  const response = await oauth.clientCredentialsGrantRequest(
    as,
    { client_id: service.id },
    oauth.ClientSecretBasic(service.secret),
    { scope: 'reports:read' },
    {
      [oauth.allowInsecureRequests]: true,
    },
  );
  const result = await oauth.processClientCredentialsResponse(as, { client_id: service.id }, response);
  assert.equal(result.scope, 'reports:read');
  assert.equal(result.token_type, 'bearer');
});

test('client_credentials issues neither a refresh token nor an id_token', async () => {
  const res = await ccRequest({ scope: 'orders:read' });
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(res.body).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
  assert.equal(res.body.token_type, 'Bearer');
});

test('without a scope parameter the client gets its registered API scopes (never OIDC scopes)', async () => {
  const res = await ccRequest({});
  assert.equal(res.status, 200);
  assert.equal(res.body.scope, 'orders:read reports:read');
});

test('client_credentials refuses openid and offline_access with invalid_scope', async () => {
  for (const scope of ['openid', 'offline_access', 'orders:read openid']) {
    const res = await ccRequest({ scope });
    assert.equal(res.status, 400, scope);
    assert.equal(res.body.error, 'invalid_scope', scope);
  }
});

test('client_credentials refuses a scope outside the client registration with invalid_scope', async () => {
  for (const scope of ['orders:write', 'payments:write', 'unknown:scope']) {
    const res = await ccRequest({ scope });
    assert.equal(res.status, 400, scope);
    assert.equal(res.body.error, 'invalid_scope', scope);
  }
});

test('RFC 8707 resource naming the API audience is accepted; any other resource is invalid_target', async () => {
  const ok = await ccRequest({ scope: 'orders:read', resource: t.config.API_AUDIENCE });
  assert.equal(ok.status, 200);
  for (const resource of ['https://other.example/api', `${t.config.API_AUDIENCE}/`, 'not a uri']) {
    const res = await ccRequest({ scope: 'orders:read', resource });
    assert.equal(res.status, 400, resource);
    assert.equal(res.body.error, 'invalid_target', resource);
  }
});

test('50 parallel client_credentials requests all succeed with distinct jti', async () => {
  const responses = await Promise.all(Array.from({ length: 50 }, () => ccRequest({ scope: 'orders:read' })));
  assert.deepEqual(
    responses.map((r) => r.status),
    Array(50).fill(200),
  );
  const jtis = responses.map((r) => JSON.parse(Buffer.from(String(r.body.access_token).split('.')[1]!, 'base64url').toString()).jti as string);
  assert.equal(new Set(jtis).size, 50);
  const tokens = responses.map((r) => String(r.body.access_token));
  assert.equal(new Set(tokens).size, 50);
  for (const token of tokens) assert.match(token, /^[\x20-\x7E]+$/);
});

test('access tokens are signed with a key published in the JWKS (kid resolvable)', async () => {
  const res = await ccRequest({ scope: 'orders:read' });
  const { kid } = decodeProtectedHeader(String(res.body.access_token));
  const jwks = (await (await fetch(`${t.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
  assert.ok(jwks.keys.some((k) => k.kid === kid));
});
