// Security suite, area 10: revocation (RFC 7009) and introspection (RFC 7662), with oauth4webapi as the client.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import { basicAuth, postForm } from '../oauth/fixtures.js';
import { bearer, clientAuth, startWorld, token, tokensFor, type World } from './helpers/world.js';

let w: World;
let as: oauth.AuthorizationServer;
before(async () => {
  w = await startWorld();
  as = await oauth.processDiscoveryResponse(new URL(w.url), await oauth.discoveryRequest(new URL(w.url), { [oauth.allowInsecureRequests]: true }));
});
after(() => w.close());

const insecure = { [oauth.allowInsecureRequests]: true };
const introspect = async (client: World['A'], value: string) => {
  const auth = client.client.authMethod === 'client_secret_post' ? oauth.ClientSecretPost(client.secret) : oauth.ClientSecretBasic(client.secret);
  const response = await oauth.introspectionRequest(as, { client_id: client.id }, auth, value, insecure);
  return oauth.processIntrospectionResponse(as, { client_id: client.id }, response);
};
const revoke = (client: World['A'], value: string, extra: Record<string, string> = {}) => {
  const auth = clientAuth(client);
  return postForm(`${w.url}/revoke`, { ...auth.form, token: value, ...extra }, auth.headers);
};

describe('10. revocation and introspection', () => {
  test('10.112 revoke an access token → 200; introspection then returns {"active":false}', async () => {
    const t = await tokensFor(w, w.A);
    assert.equal((await introspect(w.A, t.access_token)).active, true);
    const response = await oauth.revocationRequest(as, { client_id: w.A.id }, oauth.ClientSecretBasic(w.A.secret), t.access_token, insecure);
    await oauth.processRevocationResponse(response);
    assert.deepEqual(await introspect(w.A, t.access_token), { active: false });
    assert.equal((await bearer(w, '/userinfo', t.access_token)).status, 401);
  });

  test('10.112+ revoking a refresh token revokes it and the access tokens of its grant', async () => {
    const t = await tokensFor(w, w.A);
    assert.equal((await revoke(w.A, t.refresh_token!)).status, 200);
    assert.deepEqual(await introspect(w.A, t.refresh_token!), { active: false });
    assert.equal((await token(w, w.A, { grant_type: 'refresh_token', refresh_token: t.refresh_token! })).status, 400);
  });

  test('10.113 revoke an unknown, garbage or already-revoked token → 200', async () => {
    const t = await tokensFor(w, w.A);
    for (const value of ['unknown-token', 'a.b.c', 'x'.repeat(4000), t.access_token, t.access_token, '\u00e9\u4e2d']) {
      assert.equal((await revoke(w.A, value)).status, 200, value.slice(0, 20));
    }
  });

  test('10.113+ revoke without a token parameter → 400 invalid_request', async () => {
    const r = await postForm(`${w.url}/revoke`, {}, { authorization: basicAuth(w.A.id, w.A.secret) });
    assert.equal(r.status, 400);
    assert.equal(r.body.error, 'invalid_request');
  });

  test("10.115 client B revokes A's token → the token stays active", async () => {
    const t = await tokensFor(w, w.A);
    for (const value of [t.access_token, t.refresh_token!]) {
      const r = await revoke(w.B, value);
      assert.ok([200, 400].includes(r.status), String(r.status));
      if (r.status === 400) assert.ok(['unauthorized_client', 'invalid_grant'].includes(String(r.body.error)));
    }
    assert.equal((await introspect(w.A, t.access_token)).active, true);
    assert.equal((await introspect(w.A, t.refresh_token!)).active, true);
    assert.equal((await bearer(w, '/userinfo', t.access_token)).status, 200);
  });

  test('10.116 refresh token sent with token_type_hint=access_token, or hint=foo → still revoked (200)', async () => {
    for (const hint of ['access_token', 'foo']) {
      const t = await tokensFor(w, w.A);
      const r = await revoke(w.A, t.refresh_token!, { token_type_hint: hint });
      assert.ok(r.status === 200 || (hint === 'foo' && r.status === 400 && r.body.error === 'unsupported_token_type'));
      if (r.status === 200) assert.deepEqual(await introspect(w.A, t.refresh_token!), { active: false });
    }
  });

  test('10.116+ access token sent with token_type_hint=refresh_token → still revoked', async () => {
    const t = await tokensFor(w, w.A);
    assert.equal((await revoke(w.A, t.access_token, { token_type_hint: 'refresh_token' })).status, 200);
    assert.deepEqual(await introspect(w.A, t.access_token), { active: false });
  });

  test('10.118 POST /introspect without caller authentication → 401', async () => {
    const t = await tokensFor(w, w.A);
    for (const headers of [{}, { authorization: `Bearer ${t.access_token}` }, { authorization: basicAuth(w.A.id, 'wrong') }] as Array<Record<string, string>>) {
      const r = await postForm(`${w.url}/introspect`, { token: t.access_token }, headers);
      assert.equal(r.status, 401);
      assert.equal(r.body.error, 'invalid_client');
      assert.equal('active' in r.body, false);
    }
  });

  test('10.118+ a public client cannot introspect (no way to authenticate it)', async () => {
    const t = await tokensFor(w, w.P);
    const r = await postForm(`${w.url}/introspect`, { token: t.access_token, client_id: w.P.id });
    assert.ok(r.status === 401 || r.status === 400);
    assert.equal('active' in r.body, false);
  });

  test('10.118+ POST /revoke without caller authentication → 401, and the token is not revoked', async () => {
    const t = await tokensFor(w, w.A);
    const r = await postForm(`${w.url}/revoke`, { token: t.access_token });
    assert.equal(r.status, 401);
    assert.equal((await introspect(w.A, t.access_token)).active, true);
  });

  test('10.119 introspect an active access token → active:true with scope, client_id, sub, exp, iat, iss, aud, token_type', async () => {
    const t = await tokensFor(w, w.A);
    const result = await introspect(w.A, t.access_token);
    assert.equal(result.active, true);
    for (const field of ['scope', 'client_id', 'sub', 'exp', 'iat', 'iss', 'aud', 'token_type']) assert.ok(result[field] !== undefined, `missing ${field}`);
    assert.equal(result.client_id, w.A.id);
    assert.equal(result.sub, w.U1.id);
    assert.equal(result.iss, w.url);
  });

  test("10.119+ B introspecting A's token learns nothing beyond active (or active:false)", async () => {
    const t = await tokensFor(w, w.A);
    const result = await introspect(w.B, t.access_token);
    if (result.active) assert.equal(result.client_id, w.A.id);
    else assert.deepEqual(result, { active: false });
  });

  test('10.x /revoke and /introspect answer errors in RFC 6749 JSON, never problem+json; GET is 405', async () => {
    for (const path of ['/revoke', '/introspect']) {
      const r = await postForm(`${w.url}${path}`, 'token=%%%', { authorization: 'Basic !!' });
      assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(typeof r.body.error, 'string');
      assert.equal((await fetch(`${w.url}${path}`)).status, 405);
    }
  });

  test('10.x revoke with a client_id containing NUL → 401, not 500', async () => {
    const r = await postForm(`${w.url}/revoke`, { token: 'x', client_id: '\u0000' });
    assert.equal(r.status, 401);
  });
});
