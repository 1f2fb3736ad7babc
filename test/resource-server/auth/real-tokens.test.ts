// Real tokens obtained from this server's /token by real OAuth client libraries (openid-client), used at
// the resource API: a service token (client_credentials), a user token (code flow with PKCE), the
// id_token of that flow (refused as a bearer), and a token revoked at /revoke (refused).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as client from 'openid-client';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { basicAuth, postForm, registerClient, type RegisteredClient } from '../../oauth/fixtures.js';
import { loginAndConsent } from '../../interaction/browserless.js';
import type { User } from '../../../src/storage/repositories/users-repository.js';
import { Browser } from '../../helpers/browser.js';
import { NO_LIMITS } from '../../helpers/env.js';
import { createUser, SIGN_IN } from '../../helpers/users.js';

const REDIRECT = 'https://client.example/cb';
let t: TestApp;
let service: RegisteredClient;
let webApp: RegisteredClient;
let alice: User;
let bob: User;

before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
  service = await registerClient(t.core, { grant_types: ['client_credentials'], scope: 'users:read users:write' });
  webApp = await registerClient(
    t.core,
    { grant_types: ['authorization_code'], response_types: ['code'], redirect_uris: [REDIRECT], scope: 'openid users:read users:write' },
    { skipConsent: true },
  );
  alice = await createUser(t.core.db, t.core.clock, { ...SIGN_IN, username: 'alice' });
  bob = await createUser(t.core.db, t.core.clock, { ...SIGN_IN, username: 'bob' });
});
after(() => t.close());

const discover = (c: RegisteredClient) =>
  client.discovery(new URL(t.url), c.id, undefined, client.ClientSecretBasic(c.secret), { execute: [client.allowInsecureRequests] });

const api = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${t.url}${path}`, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` } });

async function userTokens(user: User) {
  const config = await discover(webApp);
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'openid users:read users:write',
    state,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const location = await loginAndConsent(new Browser(t.url), url.pathname + url.search, user);
  return client.authorizationCodeGrant(config, location, { pkceCodeVerifier: verifier, expectedState: state });
}

test('a client_credentials token from openid-client creates and reads users as a service principal', async () => {
  const tokens = await client.clientCredentialsGrant(await discover(service), { scope: 'users:read users:write' });
  const created = await api('/v1/users', tokens.access_token, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'svc-made', password: 'long enough pw' }),
  });
  assert.equal(created.status, 201);
  const { id } = (await created.json()) as { id: string };
  assert.equal((await api(`/v1/users/${id}`, tokens.access_token)).status, 200);
  assert.equal((await api(`/v1/users/${alice.id}`, tokens.access_token)).status, 200);
  assert.equal((await api('/v1/users/me', tokens.access_token)).status, 404);
});

test('a user token from the code flow (openid-client, PKCE) reads its own user and gets 404 for another (IDOR)', async () => {
  const tokens = await userTokens(alice);
  const me = await api('/v1/users/me', tokens.access_token);
  assert.equal(me.status, 200);
  assert.equal(((await me.json()) as { id: string }).id, alice.id);
  assert.equal((await api(`/v1/users/${alice.id}`, tokens.access_token)).status, 200);
  assert.equal((await api(`/v1/users/${bob.id}`, tokens.access_token)).status, 404);
  const patch = await api(`/v1/users/${bob.id}`, tokens.access_token, {
    method: 'PATCH',
    headers: { 'content-type': 'application/merge-patch+json' },
    body: '{"name":"owned"}',
  });
  assert.equal(patch.status, 404);
});

test('the genuine id_token of that flow is refused as a bearer token (401 invalid_token)', async () => {
  const tokens = await userTokens(bob);
  assert.ok(tokens.id_token);
  const res = await api('/v1/users/me', tokens.id_token!);
  assert.equal(res.status, 401);
  assert.match(res.headers.get('www-authenticate') ?? '', /invalid_token/);
});

test('an access token revoked at /revoke is refused by the API', async () => {
  const tokens = await client.clientCredentialsGrant(await discover(service), { scope: 'users:read' });
  const revoked = await postForm(`${t.url}/revoke`, { token: tokens.access_token }, { authorization: basicAuth(service.id, service.secret) });
  assert.equal(revoked.status, 200);
  const res = await api(`/v1/users/${alice.id}`, tokens.access_token);
  assert.equal(res.status, 401);
  assert.match(res.headers.get('www-authenticate') ?? '', /invalid_token/);
});
