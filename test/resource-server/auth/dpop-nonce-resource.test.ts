// RFC 9449 §9: the resource server's nonce. With DPOP_NONCE_REQUIRED=all, /v1 and /userinfo answer a
// proof without a nonce (or with a stale or forged one) with 401, `WWW-Authenticate: DPoP
// error="use_dpop_nonce"` and a DPoP-Nonce header; by default (token) a nonce is not required there, but
// one that is sent is checked.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { dpopKey, dpopProof, retryingDpopNonce, serverNonce, type DpopKey } from '../../helpers/dpop.js';
import { createClient, REDIRECT_URI } from '../../helpers/oauth-fixtures.js';
import { basicAuth, registerClient, type RegisteredClient } from '../../oauth/fixtures.js';
import { authorizationCodes } from '../../../src/oauth/codes/index.js';
import { NO_LIMITS } from '../../helpers/env.js';
import { pkcePair } from '../../helpers/pkce.js';
import { createUser } from '../../helpers/users.js';

let strict: TestApp;
let lenient: TestApp;
let key: DpopKey;

before(async () => {
  strict = await startTestApp({ env: { ...NO_LIMITS, DPOP_NONCE_REQUIRED: 'all' } });
  lenient = await startTestApp({ env: NO_LIMITS });
  key = await dpopKey();
});
after(async () => {
  await strict.close();
  await lenient.close();
});

const ath = (token: string) => createHash('sha256').update(token).digest('base64url');

async function serviceToken(app: TestApp): Promise<{ token: string; service: RegisteredClient }> {
  const service = await registerClient(app.core, { scope: 'orders:read' });
  const dpop = await dpopProof(key, `${app.url}/token`, { nonce: await serverNonce(`${app.url}/token`) });
  const response = await fetch(`${app.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(service.id, service.secret), dpop },
    body: 'grant_type=client_credentials',
  });
  const body = (await response.json()) as Record<string, string>;
  assert.equal(body.token_type, 'DPoP');
  return { token: body.access_token!, service };
}

/** A user token with openid, bound to `key`, for /userinfo. */
async function userToken(app: TestApp): Promise<string> {
  const fixture = await createClient(app.core.db, app.core.clock);
  const user = await createUser(app.core.db, app.core.clock);
  const { verifier, challenge } = pkcePair();
  const code = await authorizationCodes(app.core).issue({
    clientId: fixture.client.id,
    redirectUri: REDIRECT_URI,
    codeChallenge: challenge,
    scope: ['openid'],
    userId: user.id,
    authTime: Math.floor(Date.now() / 1000),
  });
  const dpop = await dpopProof(key, `${app.url}/token`, { nonce: await serverNonce(`${app.url}/token`) });
  const response = await fetch(`${app.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', dpop },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: fixture.client.id }),
  });
  return ((await response.json()) as Record<string, string>).access_token!;
}

const call = async (url: string, token: string, claims: Record<string, unknown> = {}) =>
  fetch(url, { headers: { authorization: `DPoP ${token}`, dpop: await dpopProof(key, url, { htm: 'GET', ath: ath(token), ...claims }) } });

async function assertUseNonce(res: Response, why: string): Promise<string> {
  const text = await res.text();
  assert.equal(res.status, 401, `${why}: ${text}`);
  assert.match(res.headers.get('www-authenticate') ?? '', /^DPoP algs="[^"]+", error="use_dpop_nonce"/, why);
  const nonce = res.headers.get('dpop-nonce');
  assert.ok(nonce, `${why}: DPoP-Nonce header`);
  return nonce;
}

test('RFC 9449 §9: with DPOP_NONCE_REQUIRED=all, /v1 answers a proof without a nonce with 401 use_dpop_nonce (Problem Details) and a DPoP-Nonce; the retry with it succeeds', async () => {
  const { token } = await serviceToken(strict);
  const url = `${strict.url}/v1/orders`;
  const refused = await call(url, token);
  assert.match(refused.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const nonce = await assertUseNonce(refused.clone(), 'no nonce');
  assert.equal(((await refused.json()) as { code: string }).code, 'use-dpop-nonce');
  const retried = await call(url, token, { nonce });
  assert.equal(retried.status, 200, await retried.text());
});

test('RFC 9449 §9: with DPOP_NONCE_REQUIRED=all, /userinfo answers a proof without a nonce with 401 use_dpop_nonce and a DPoP-Nonce; the retry succeeds', async () => {
  const token = await userToken(strict);
  const url = `${strict.url}/userinfo`;
  const refused = await call(url, token);
  const nonce = await assertUseNonce(refused.clone(), 'no nonce');
  assert.equal(((await refused.json()) as { error: string }).error, 'use_dpop_nonce');
  const retried = await call(url, token, { nonce });
  assert.equal(retried.status, 200, await retried.text());
});

test('RFC 9449 §9: oauth4webapi retries a protected-resource request after use_dpop_nonce and succeeds', async () => {
  const service = await registerClient(strict.core, { scope: 'orders:read' });
  const as = { issuer: strict.url, token_endpoint: `${strict.url}/token` };
  const keys = await dpopKey();
  const options = { DPoP: oauth.DPoP({}, keys), [oauth.allowInsecureRequests]: true } as const;
  const granted = await retryingDpopNonce(async () =>
    oauth.processClientCredentialsResponse(
      as,
      { client_id: service.id },
      await oauth.clientCredentialsGrantRequest(as, { client_id: service.id }, oauth.ClientSecretBasic(service.secret), {}, options),
    ),
  );
  // A second handle of the same key, its nonce cache empty: the resource server asks for a nonce first.
  const resourceOptions = { DPoP: oauth.DPoP({}, keys), [oauth.allowInsecureRequests]: true } as const;
  let attempts = 0;
  const res = await retryingDpopNonce(() => {
    attempts++;
    return oauth.protectedResourceRequest(granted.access_token, 'GET', new URL(`${strict.url}/v1/orders`), new Headers(), null, resourceOptions);
  });
  assert.equal(attempts, 2);
  assert.equal(res.status, 200);
});

test('a stale or forged nonce at /v1 is 401 use_dpop_nonce, even where nonces are not required', async () => {
  for (const app of [strict, lenient]) {
    const { token } = await serviceToken(app);
    const url = `${app.url}/v1/orders`;
    await assertUseNonce(await call(url, token, { nonce: 'A'.repeat(30) }), `forged (${app === strict ? 'all' : 'token'})`);
  }
});

test('by default (DPOP_NONCE_REQUIRED=token) /v1 accepts a proof without a nonce, and one with the server nonce', async () => {
  const { token } = await serviceToken(lenient);
  const url = `${lenient.url}/v1/orders`;
  assert.equal((await call(url, token)).status, 200);
  assert.equal((await call(url, token, { nonce: await serverNonce(`${lenient.url}/token`) })).status, 200);
});
