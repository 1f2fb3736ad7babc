// DPoP at the resource API (RFC 9449 §7): a token bound to a key (cnf.jkt) works only with the DPoP
// scheme and a proof of that key for this request; real clients (oauth4webapi, openid-client) obtain the
// bound token at /token and call /v1 with it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { basicAuth, postForm, registerClient, type RegisteredClient } from '../../oauth/fixtures.js';
import { retryingDpopNonce, serverNonce } from '../../helpers/dpop.js';
import { NO_LIMITS } from '../../helpers/env.js';

let t: TestApp;
let service: RegisteredClient;
let keys: { publicKey: CryptoKey; privateKey: CryptoKey };
let publicJwk: JWK;
let ordersUrl: string;

before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
  service = await registerClient(t.core, { scope: 'orders:read' });
  keys = await generateKeyPair('ES256', { extractable: true });
  publicJwk = await exportJWK(keys.publicKey);
  ordersUrl = `${t.url}/v1/orders`;
});
after(() => t.close());

const now = () => Math.floor(Date.now() / 1000);
const ath = (token: string) => createHash('sha256').update(token).digest('base64url');

/** A proof for GET /v1/orders bound to `token`, with any claim or header overridden. */
async function proof(token: string, overrides: JWTPayload = {}, options: { key?: CryptoKey; jwk?: JWK } = {}): Promise<string> {
  return new SignJWT({ jti: randomUUID(), htm: 'GET', htu: ordersUrl, iat: now(), ath: ath(token), ...overrides })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: options.jwk ?? publicJwk })
    .sign(options.key ?? keys.privateKey);
}

/** A client_credentials token bound to `keys` (a proof at /token), or a plain bearer token. */
async function tokenFor(bound: boolean): Promise<string> {
  const headers: Record<string, string> = { authorization: basicAuth(service.id, service.secret) };
  if (bound) {
    // DPOP_NONCE_REQUIRED defaults to `token`: the proof at /token carries the server's nonce.
    headers.dpop = await new SignJWT({ jti: randomUUID(), htm: 'POST', htu: `${t.url}/token`, iat: now(), nonce: await serverNonce(`${t.url}/token`) })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: publicJwk })
      .sign(keys.privateKey);
  }
  const res = await postForm(`${t.url}/token`, { grant_type: 'client_credentials' }, headers);
  assert.equal(res.status, 200);
  assert.equal(res.body.token_type, bound ? 'DPoP' : 'Bearer');
  return res.body.access_token as string;
}

const getOrders = (headers: Record<string, string>) => fetch(ordersUrl, { headers });

async function assertDpopRefusal(res: Response, error: 'invalid_token' | 'invalid_dpop_proof') {
  const text = await res.text();
  assert.equal(res.status, 401, text);
  const challenge = res.headers.get('www-authenticate') ?? '';
  assert.match(challenge, new RegExp(`^DPoP algs="ES256 RS256 PS256", error="${error}"`));
  assert.doesNotMatch(challenge, /[\r\n]/);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal((JSON.parse(text) as { code: string }).code, error === 'invalid_token' ? 'invalid-token' : 'invalid-dpop-proof');
}

test('oauth4webapi: a DPoP-bound token calls the API with the DPoP scheme and a proof of its key', async () => {
  const as = { issuer: t.url, token_endpoint: `${t.url}/token` };
  const handle = oauth.DPoP({}, keys);
  const options = { DPoP: handle, [oauth.allowInsecureRequests]: true };
  const granted = await retryingDpopNonce(async () =>
    oauth.processClientCredentialsResponse(
      as,
      { client_id: service.id },
      await oauth.clientCredentialsGrantRequest(as, { client_id: service.id }, oauth.ClientSecretBasic(service.secret), {}, options),
    ),
  );
  assert.equal(granted.token_type, 'dpop');
  const res = await oauth.protectedResourceRequest(granted.access_token, 'GET', new URL(ordersUrl), new Headers(), null, options);
  assert.equal(res.status, 200, await res.clone().text());
  assert.match(res.headers.get('content-type') ?? '', /json/);
});

test('openid-client: fetchProtectedResource with the DPoP handle that obtained the token succeeds', async () => {
  const config = await client.discovery(new URL(t.url), service.id, undefined, client.ClientSecretBasic(service.secret), {
    execute: [client.allowInsecureRequests],
  });
  const DPoP = client.getDPoPHandle(config, keys);
  const tokens = await client.clientCredentialsGrant(config, {}, { DPoP });
  const res = await client.fetchProtectedResource(config, tokens.access_token, new URL(ordersUrl), 'GET', undefined, undefined, { DPoP });
  assert.equal(res.status, 200);
});

test('RFC 9449 §7.1: a DPoP-bound token sent with the Bearer scheme is 401 with a DPoP invalid_token challenge', async () => {
  const token = await tokenFor(true);
  await assertDpopRefusal(await getOrders({ authorization: `Bearer ${token}`, dpop: await proof(token) }), 'invalid_token');
});

test('an unbound token sent with the DPoP scheme is 401 invalid_token (it has no key to prove)', async () => {
  const token = await tokenFor(false);
  await assertDpopRefusal(await getOrders({ authorization: `DPoP ${token}`, dpop: await proof(token) }), 'invalid_token');
});

test('RFC 9449 §7.1: a DPoP-bound token without a proof, or with two, is 401 invalid_dpop_proof', async () => {
  const token = await tokenFor(true);
  await assertDpopRefusal(await getOrders({ authorization: `DPoP ${token}` }), 'invalid_dpop_proof');
  await assertDpopRefusal(await getOrders({ authorization: `DPoP ${token}`, dpop: `${await proof(token)}, ${await proof(token)}` }), 'invalid_dpop_proof');
});

test('RFC 9449 §4.3: a proof naming another method or URL, or without ath or jti, or stale, is 401 invalid_dpop_proof', async () => {
  const token = await tokenFor(true);
  const bad: Array<[string, JWTPayload]> = [
    ['htm', { htm: 'POST' }],
    ['htu', { htu: `${t.url}/v1/payments` }],
    ['ath of another token', { ath: ath(`${token}x`) }],
    ['no ath', { ath: undefined }],
    ['no jti', { jti: undefined }],
    ['stale iat', { iat: now() - 600 }],
  ];
  for (const [why, overrides] of bad) {
    const res = await getOrders({ authorization: `DPoP ${token}`, dpop: await proof(token, overrides) });
    assert.equal(res.status, 401, why);
    await assertDpopRefusal(res, 'invalid_dpop_proof');
  }
});

test('RFC 9449 §7.1: a proof signed by another key than the bound one is 401 invalid_dpop_proof', async () => {
  const token = await tokenFor(true);
  const other = await generateKeyPair('ES256', { extractable: true });
  const res = await getOrders({
    authorization: `DPoP ${token}`,
    dpop: await proof(token, {}, { key: other.privateKey, jwk: await exportJWK(other.publicKey) }),
  });
  await assertDpopRefusal(res, 'invalid_dpop_proof');
});

test('RFC 9449 §11.1: a proof is accepted once; the same proof replayed is 401 invalid_dpop_proof', async () => {
  const token = await tokenFor(true);
  const once = await proof(token);
  assert.equal((await getOrders({ authorization: `DPoP ${token}`, dpop: once })).status, 200);
  await assertDpopRefusal(await getOrders({ authorization: `DPoP ${token}`, dpop: once }), 'invalid_dpop_proof');
  assert.equal((await getOrders({ authorization: `DPoP ${token}`, dpop: await proof(token) })).status, 200, 'a fresh proof works again');
});

test('the htu of a proof ignores the query, as RFC 9449 §4.3 says', async () => {
  const token = await tokenFor(true);
  const res = await fetch(`${ordersUrl}?limit=1`, { headers: { authorization: `DPoP ${token}`, dpop: await proof(token) } });
  assert.equal(res.status, 200);
});
