import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, decodeJwt, exportJWK, SignJWT, generateKeyPair } from 'jose';
import { manualClock } from '../../src/clock.js';
import { accessTokenIssuer } from '../../src/oauth/issued-tokens/access-tokens.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { codeGrantTokens, createClient, postToken, type ClientFixture } from '../helpers/oauth-fixtures.js';
import { NO_LIMITS } from '../helpers/env.js';
import { createUser } from '../helpers/users.js';

const clock = manualClock();
let t: TestApp;
/** A request without a token gets a bare Bearer challenge naming /userinfo's RFC 9728 metadata (5.1). */
const BARE_CHALLENGE = () => `Bearer resource_metadata="${t.url}/.well-known/oauth-protected-resource/userinfo"`;
let fixture: ClientFixture;

before(async () => {
  t = await startTestApp({ clock, env: NO_LIMITS });
  fixture = await createClient(t.core.db, clock, { type: 'confidential', grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'] });
});
after(async () => {
  await t.close();
});

async function tokensFor(scope: string[]) {
  const user = await createUser(t.core.db, clock);
  return { user, ...(await codeGrantTokens(t, fixture, user, scope)) } as unknown as { user: { id: string }; access_token: string; id_token?: string };
}

const get = (headers: Record<string, string> = {}, query = '') => fetch(`${t.url}/userinfo${query}`, { headers });
const post = (body: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${t.url}/userinfo`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(body) });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('/userinfo', () => {
  test('GET with a bearer token returns the claims; sub equals the id_token sub', async () => {
    const tokens = await tokensFor(['openid', 'email']);
    const response = await get(bearer(tokens.access_token));
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    const body = (await response.json()) as Record<string, unknown>;
    assert.equal(body.sub, decodeJwt(tokens.id_token!).sub);
    assert.equal(body.email, 'ada@example.com');
    assert.equal(body.email_verified, true);
  });

  test('POST with the Authorization header and POST with access_token in the form body both work', async () => {
    const tokens = await tokensFor(['openid']);
    assert.equal((await post({}, bearer(tokens.access_token))).status, 200);
    const viaBody = await post({ access_token: tokens.access_token });
    assert.equal(viaBody.status, 200);
    assert.deepEqual(await viaBody.json(), { sub: tokens.user.id });
  });

  test('userinfo errors: no token → 401 with a bare Bearer challenge', async () => {
    const response = await get();
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), BARE_CHALLENGE());
  });

  test('userinfo errors: a token only in the query is not accepted', async () => {
    const tokens = await tokensFor(['openid']);
    const response = await get({}, `?access_token=${tokens.access_token}`);
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), BARE_CHALLENGE());
  });

  test('userinfo errors: a token in both header and body is invalid_request', async () => {
    const tokens = await tokensFor(['openid']);
    const response = await post({ access_token: tokens.access_token }, bearer(tokens.access_token));
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as { error: string }).error, 'invalid_request');
  });

  test('userinfo errors: garbage, alg none, foreign-signed, id_token and non-Bearer schemes get 401', async () => {
    const tokens = await tokensFor(['openid']);
    const payload = decodeJwt(tokens.access_token);
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.`;
    const { privateKey } = await generateKeyPair('ES256');
    const foreign = await new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'x' }).sign(privateKey);
    for (const token of ['garbage', none, foreign, tokens.id_token!, `${tokens.access_token}x`]) {
      const response = await get(bearer(token));
      assert.equal(response.status, 401, token.slice(0, 20));
      assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token"/);
    }
    assert.equal((await get({ authorization: `Basic ${tokens.access_token}` })).headers.get('www-authenticate'), BARE_CHALLENGE());
  });

  test('userinfo errors: an expired access token gets 401 invalid_token', async () => {
    const tokens = await tokensFor(['openid']);
    clock.advance((t.config.ACCESS_TOKEN_TTL + t.config.CLOCK_SKEW + 1) * 1000);
    const response = await get(bearer(tokens.access_token));
    assert.equal(response.status, 401);
    assert.match(response.headers.get('www-authenticate') ?? '', /invalid_token/);
  });

  test('userinfo errors: a revoked access token gets 401 invalid_token', async () => {
    const tokens = await tokensFor(['openid']);
    const payload = decodeJwt(tokens.access_token);
    await t.core.db
      .insertInto('revoked_access_tokens')
      .values({ jti: payload.jti!, expires_at: new Date(payload.exp! * 1000), revoked_at: new Date(clock.now()) })
      .execute();
    assert.equal((await get(bearer(tokens.access_token))).status, 401);
  });

  test('userinfo errors: a DPoP-bound access token presented as Bearer gets 401 invalid_token with a DPoP challenge', async () => {
    const user = await createUser(t.core.db, clock);
    const keys = await generateKeyPair('ES256', { extractable: true });
    const bound = await accessTokenIssuer(t.core).issue({
      sub: user.id,
      clientId: fixture.client.id,
      scope: ['openid'],
      authTime: 1,
      cnfJkt: await calculateJwkThumbprint(await exportJWK(keys.publicKey)),
    });
    const response = await get(bearer(bound.token));
    assert.equal(response.status, 401);
    assert.match(response.headers.get('www-authenticate') ?? '', /^DPoP algs="[^"]+", error="invalid_token"/);
  });

  test('userinfo with DPoP (RFC 9449 7): the bound token with the DPoP scheme and a proof of its key gets the claims; a proof for another URL does not', async () => {
    const user = await createUser(t.core.db, clock);
    const keys = await generateKeyPair('ES256', { extractable: true });
    const jwk = await exportJWK(keys.publicKey);
    const bound = await accessTokenIssuer(t.core).issue({
      sub: user.id,
      clientId: fixture.client.id,
      scope: ['openid'],
      authTime: 1,
      cnfJkt: await calculateJwkThumbprint(jwk),
    });
    const proof = (htu: string) =>
      new SignJWT({
        jti: randomUUID(),
        htm: 'GET',
        htu,
        iat: Math.floor(clock.now() / 1000),
        ath: createHash('sha256').update(bound.token).digest('base64url'),
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
        .sign(keys.privateKey);
    const ok = await get({ authorization: `DPoP ${bound.token}`, dpop: await proof(`${t.url}/userinfo`) });
    assert.equal(ok.status, 200);
    assert.equal(((await ok.json()) as { sub: string }).sub, user.id);
    const wrongUrl = await get({ authorization: `DPoP ${bound.token}`, dpop: await proof(`${t.url}/v1/users/me`) });
    assert.equal(wrongUrl.status, 401);
    assert.match(wrongUrl.headers.get('www-authenticate') ?? '', /error="invalid_dpop_proof"/);
    assert.equal(((await wrongUrl.json()) as { error: string }).error, 'invalid_dpop_proof');
  });

  test('userinfo errors: a token without openid gets 403 insufficient_scope', async () => {
    const tokens = await tokensFor(['orders:read']);
    const response = await get(bearer(tokens.access_token));
    assert.equal(response.status, 403);
    assert.match(response.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);
  });

  test('userinfo errors: a client_credentials token (no user) gets 403 insufficient_scope', async () => {
    const cc = await postToken(t.url, fixture, { grant_type: 'client_credentials', scope: 'orders:read' });
    assert.equal(cc.status, 200);
    const response = await get(bearer(cc.body.access_token as string));
    assert.equal(response.status, 403);
  });

  test('userinfo claims per granted scope: openid alone gives only sub; all scopes give typed claims', async () => {
    const alone = await tokensFor(['openid']);
    assert.deepEqual(await (await get(bearer(alone.access_token))).json(), { sub: alone.user.id });
    const all = await tokensFor(['openid', 'profile', 'email', 'address', 'phone']);
    const body = (await (await get(bearer(all.access_token))).json()) as Record<string, unknown>;
    assert.equal(body.name, 'Ada Lovelace');
    assert.equal(typeof body.updated_at, 'number');
    assert.equal(body.phone_number_verified, false);
    assert.deepEqual(body.address, { street_address: '12 St James Square', locality: 'London', postal_code: 'SW1Y 4JH', country: 'GB' });
  });
});
