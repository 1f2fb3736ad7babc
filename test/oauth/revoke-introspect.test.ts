// POST /revoke (RFC 7009) and POST /introspect (RFC 7662), with real client libraries.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as client from 'openid-client';
import * as oauth from 'oauth4webapi';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { basicAuth, postForm, registerClient, type RegisteredClient } from './fixtures.js';
import { NO_LIMITS } from '../helpers/env.js';

let t: TestApp;
let a: RegisteredClient;
let b: RegisteredClient;
let publicClient: RegisteredClient;
let as: oauth.AuthorizationServer;
const insecure = { [oauth.allowInsecureRequests]: true };

before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
  a = await registerClient(t.core, { scope: 'orders:read users:read' });
  b = await registerClient(t.core, { token_endpoint_auth_method: 'client_secret_post', scope: 'orders:read' });
  publicClient = await registerClient(t.core, {
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code'],
    redirect_uris: ['https://p.example/cb'],
    scope: 'openid',
  });
  as = await oauth.processDiscoveryResponse(new URL(t.url), await oauth.discoveryRequest(new URL(t.url), insecure));
});
after(() => t.close());

async function tokenFor(who: RegisteredClient): Promise<string> {
  const params = { grant_type: 'client_credentials', scope: 'orders:read' };
  const res =
    who.client.authMethod === 'client_secret_post'
      ? await postForm(`${t.url}/token`, { ...params, client_id: who.id, client_secret: who.secret })
      : await postForm(`${t.url}/token`, params, { authorization: basicAuth(who.id, who.secret) });
  return String(res.body.access_token);
}

const introspect = async (token: string, who: RegisteredClient = a) =>
  oauth.processIntrospectionResponse(as, { client_id: who.id }, await oauth.introspectionRequest(as, { client_id: who.id }, authFor(who), token, insecure));

const authFor = (who: RegisteredClient) => (who === b ? oauth.ClientSecretPost(b.secret) : oauth.ClientSecretBasic(who.secret));

test('introspecting an active access token (openid-client) returns active with scope, client_id, sub, exp, iat, iss, aud and token_type', async () => {
  const token = await tokenFor(a);
  const config = await client.discovery(new URL(t.url), a.id, undefined, client.ClientSecretBasic(a.secret), { execute: [client.allowInsecureRequests] });
  const result = await client.tokenIntrospection(config, token);
  assert.equal(result.active, true);
  assert.equal(result.scope, 'orders:read');
  assert.equal(result.client_id, a.id);
  assert.equal(result.sub, a.id);
  assert.equal(result.iss, t.url);
  assert.equal(result.aud, t.config.API_AUDIENCE);
  assert.equal(result.token_type, 'Bearer');
  assert.ok(typeof result.exp === 'number' && typeof result.iat === 'number');
});

test('revoking an access token answers 200 and introspection then returns active false', async () => {
  const token = await tokenFor(a);
  assert.equal((await introspect(token)).active, true);
  const config = await client.discovery(new URL(t.url), a.id, undefined, client.ClientSecretBasic(a.secret), { execute: [client.allowInsecureRequests] });
  await client.tokenRevocation(config, token);
  assert.deepEqual(await introspect(token), { active: false });
});

test('revoked access tokens are remembered by jti until they expire', async () => {
  const token = await tokenFor(a);
  const jti = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).jti as string;
  await oauth.processRevocationResponse(await oauth.revocationRequest(as, { client_id: a.id }, authFor(a), token, insecure));
  const row = await t.core.db.selectFrom('revoked_access_tokens').selectAll().where('jti', '=', jti).executeTakeFirstOrThrow();
  const exp = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).exp as number;
  assert.equal(row.expires_at.getTime(), exp * 1000);
});

test('revoking an unknown, garbage or already revoked token answers 200', async () => {
  const token = await tokenFor(a);
  for (const value of ['garbage', 'a.b.c', token, token, 'x'.repeat(5000)]) {
    const res = await postForm(`${t.url}/revoke`, { token: value }, { authorization: basicAuth(a.id, a.secret) });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
  }
});

test("a client cannot revoke another client's token: the token stays active", async () => {
  const token = await tokenFor(a);
  const res = await postForm(`${t.url}/revoke`, { token }, { authorization: basicAuth(b.id, b.secret) });
  assert.ok(res.status === 200 || res.status === 401);
  const viaPost = await postForm(`${t.url}/revoke`, { token, client_id: b.id, client_secret: b.secret });
  assert.equal(viaPost.status, 200);
  assert.equal((await introspect(token)).active, true);
});

test("a client introspecting another client's token gets active false", async () => {
  const token = await tokenFor(a);
  assert.deepEqual(await introspect(token, b), { active: false });
});

test('an unknown or unusual token_type_hint still revokes the token', async () => {
  for (const hint of ['refresh_token', 'foo']) {
    const token = await tokenFor(a);
    const res = await postForm(`${t.url}/revoke`, { token, token_type_hint: hint }, { authorization: basicAuth(a.id, a.secret) });
    assert.equal(res.status, 200);
    assert.deepEqual(await introspect(token), { active: false });
  }
});

test('introspecting unknown or garbage tokens returns 200 with active false only', async () => {
  for (const value of ['garbage', 'eyJ.eyJ.sig', '']) {
    const res = await postForm(`${t.url}/introspect`, value ? { token: value } : {}, { authorization: basicAuth(a.id, a.secret) });
    if (value === '') {
      assert.equal(res.status, 400);
      assert.equal(res.body.error, 'invalid_request');
      continue;
    }
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { active: false });
  }
});

test('introspection without caller authentication is 401', async () => {
  const token = await tokenFor(a);
  const res = await postForm(`${t.url}/introspect`, { token });
  assert.equal(res.status, 401);
  assert.equal(res.body.error, 'invalid_client');
  const wrong = await postForm(`${t.url}/introspect`, { token }, { authorization: basicAuth(a.id, 'wrong') });
  assert.equal(wrong.status, 401);
  assert.equal(wrong.headers.get('www-authenticate'), 'Basic realm="gatehouse"');
});

test('a public client cannot introspect (no credential to authorise it) but may call /revoke with its client_id', async () => {
  const token = await tokenFor(a);
  const res = await postForm(`${t.url}/introspect`, { token, client_id: publicClient.id });
  assert.equal(res.status, 401);
  const revoke = await postForm(`${t.url}/revoke`, { token, client_id: publicClient.id });
  assert.equal(revoke.status, 200);
  assert.equal((await introspect(token)).active, true);
});

test('an expired access token introspects as active false', async () => {
  const { manualClock } = await import('../../src/clock.js');
  const clock = manualClock(Date.now());
  const timed = await startTestApp({ clock, env: NO_LIMITS });
  try {
    const c = await registerClient(timed.core);
    const res = await postForm(`${timed.url}/token`, { grant_type: 'client_credentials' }, { authorization: basicAuth(c.id, c.secret) });
    const token = String(res.body.access_token);
    const ask = () => postForm(`${timed.url}/introspect`, { token }, { authorization: basicAuth(c.id, c.secret) });
    assert.equal((await ask()).body.active, true);
    clock.advance((timed.config.ACCESS_TOKEN_TTL + timed.config.CLOCK_SKEW + 1) * 1000);
    assert.deepEqual((await ask()).body, { active: false });
  } finally {
    await timed.close();
  }
});

test('GET /introspect and GET /revoke are 405', async () => {
  for (const path of ['/introspect', '/revoke']) {
    const res = await fetch(`${t.url}${path}?token=x`);
    assert.equal(res.status, 405);
    // OPTIONS answers CORS preflights of browser apps.
    assert.equal(res.headers.get('allow'), 'OPTIONS, POST');
  }
});
