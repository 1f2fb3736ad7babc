// RFC 9449 §10: the `dpop_jkt` authorization request parameter binds the code to the client's DPoP key,
// so a code stolen from the redirect cannot be redeemed without it. A malformed value is invalid_request
// at /authorize; at the exchange a proof of another key, or none, is invalid_grant and leaves the code
// unspent for its owner.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import { calculateJwkThumbprint, decodeJwt } from 'jose';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { browserlessLogin } from '../../helpers/browserless-login.js';
import { dpopKey, dpopProof, retryingDpopNonce, serverNonce, type DpopKey } from '../../helpers/dpop.js';
import { createClient, REDIRECT_URI, type ClientFixture } from '../../helpers/oauth-fixtures.js';
import type { User } from '../../../src/storage/repositories/users-repository.js';
import { NO_LIMITS } from '../../helpers/env.js';
import { pkcePair } from '../../helpers/pkce.js';
import { createUser, PASSWORD } from '../../helpers/users.js';

let t: TestApp;
let fixture: ClientFixture;
let user: User;
let as: oauth.AuthorizationServer;

before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
  fixture = await createClient(t.core.db, t.core.clock);
  user = await createUser(t.core.db, t.core.clock, { password: PASSWORD });
  as = await oauth.processDiscoveryResponse(new URL(t.url), await oauth.discoveryRequest(new URL(t.url), { [oauth.allowInsecureRequests]: true }));
});
after(() => t.close());

function authorizationUrl(challenge: string, extra: Record<string, string>): URL {
  const url = new URL(`${t.url}/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: fixture.client.id,
    redirect_uri: REDIRECT_URI,
    scope: 'openid offline_access',
    state: 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  }).toString();
  return url;
}

/** Logs in through the real pages with `dpop_jkt` in the request; returns the code and its verifier. */
async function codeFor(jkt: string): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = pkcePair();
  const callback = await browserlessLogin(authorizationUrl(challenge, { dpop_jkt: jkt }), { username: user.username });
  const code = callback.searchParams.get('code');
  assert.ok(code, callback.href);
  return { code, verifier };
}

async function exchange(code: string, verifier: string, key?: DpopKey) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (key) headers.dpop = await dpopProof(key, `${t.url}/token`, { nonce: await serverNonce(`${t.url}/token`) });
  const response = await fetch(`${t.url}/token`, {
    method: 'POST',
    headers,
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: fixture.client.id }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

test('RFC 9449 §10: a malformed dpop_jkt at /authorize is redirected back as invalid_request', async () => {
  const { challenge } = pkcePair();
  for (const bad of ['short', 'x'.repeat(44), `${'a'.repeat(42)}=`, `${'a'.repeat(42)}+`]) {
    const response = await fetch(authorizationUrl(challenge, { dpop_jkt: bad }), { redirect: 'manual' });
    assert.ok([302, 303].includes(response.status), bad);
    const location = new URL(response.headers.get('location')!);
    assert.equal(`${location.origin}${location.pathname}`, REDIRECT_URI, bad);
    assert.equal(location.searchParams.get('error'), 'invalid_request', bad);
    assert.equal(location.searchParams.get('state'), 'st');
    assert.equal(location.searchParams.get('code'), null);
  }
});

test('RFC 9449 §10: oauth4webapi sends dpop_jkt of its DPoP handle, and the code it gets redeems with that handle into DPoP-bound tokens', async () => {
  const keys = await dpopKey();
  const DPoP = oauth.DPoP({}, keys);
  const rp = { client_id: fixture.client.id };
  const verifier = oauth.generateRandomCodeVerifier();
  const url = authorizationUrl(await oauth.calculatePKCECodeChallenge(verifier), { dpop_jkt: await DPoP.calculateThumbprint() });
  const params = oauth.validateAuthResponse(as, rp, await browserlessLogin(url, { username: user.username }), 'st');
  const result = await retryingDpopNonce(async () =>
    oauth.processAuthorizationCodeResponse(
      as,
      rp,
      await oauth.authorizationCodeGrantRequest(as, rp, oauth.None(), params, REDIRECT_URI, verifier, { DPoP, [oauth.allowInsecureRequests]: true }),
    ),
  );
  assert.equal(result.token_type, 'dpop');
  assert.equal((decodeJwt(result.access_token) as { cnf?: { jkt: string } }).cnf?.jkt, await calculateJwkThumbprint(keys.jwk));
});

test('RFC 9449 §10: a code requested with dpop_jkt, exchanged with a proof of another key, is invalid_grant; the code stays redeemable by the right key', async () => {
  const key = await dpopKey();
  const { code, verifier } = await codeFor(await calculateJwkThumbprint(key.jwk));
  const other = await exchange(code, verifier, await dpopKey());
  assert.equal(other.status, 400);
  assert.equal(other.body.error, 'invalid_grant');
  assert.equal(other.body.access_token, undefined);
  const right = await exchange(code, verifier, key);
  assert.equal(right.status, 200, JSON.stringify(right.body));
  assert.equal(right.body.token_type, 'DPoP');
});

test('RFC 9449 §10: a code requested with dpop_jkt, exchanged without any DPoP proof, is invalid_grant (no Bearer tokens for a bound code)', async () => {
  const key = await dpopKey();
  const { code, verifier } = await codeFor(await calculateJwkThumbprint(key.jwk));
  const bare = await exchange(code, verifier);
  assert.equal(bare.status, 400);
  assert.equal(bare.body.error, 'invalid_grant');
  assert.equal(bare.body.access_token, undefined);
  const right = await exchange(code, verifier, key);
  assert.equal(right.status, 200);
  // The refresh token of that exchange is bound to the key as well (RFC 9449 §5).
  const refreshed = await fetch(`${t.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: right.body.refresh_token!, client_id: fixture.client.id }),
  });
  assert.equal(((await refreshed.json()) as { error: string }).error, 'invalid_grant');
});
