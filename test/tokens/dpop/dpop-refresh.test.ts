// RFC 9449 §5: a refresh token issued with a DPoP proof is bound to that key, for public and confidential
// clients alike. Refreshing needs a proof of the same key (else invalid_grant, and the token stays usable
// by its owner), and what it yields stays DPoP-bound — there is no way back to Bearer.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import * as oauth from 'oauth4webapi';
import { calculateJwkThumbprint, decodeJwt } from 'jose';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { browserlessLogin } from '../../helpers/browserless-login.js';
import { dpopKey, dpopProof, retryingDpopNonce, serverNonce, type DpopKey } from '../../helpers/dpop.js';
import { createClient, REDIRECT_URI, type ClientFixture } from '../../helpers/oauth-fixtures.js';
import { authorizationCodes } from '../../../src/oauth/codes/index.js';
import type { User } from '../../../src/storage/repositories/users-repository.js';
import { NO_LIMITS } from '../../helpers/env.js';
import { pkcePair } from '../../helpers/pkce.js';
import { createUser, PASSWORD } from '../../helpers/users.js';

let t: TestApp;
let tokenUrl: string;
let user: User;
let publicClient: ClientFixture;
let confidentialClient: ClientFixture;
const logLines: string[] = [];

before(async () => {
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => logLines.push(...chunk.toString().split('\n').filter(Boolean)));
  t = await startTestApp({ env: NO_LIMITS, logStream });
  tokenUrl = `${t.url}/token`;
  user = await createUser(t.core.db, t.core.clock);
  publicClient = await createClient(t.core.db, t.core.clock);
  confidentialClient = await createClient(t.core.db, t.core.clock, { type: 'confidential' });
});
after(() => t.close());

/** POST /token as `fixture`, with a proof of `key` (carrying the server's nonce) when one is given. */
async function tokenRequest(fixture: ClientFixture, params: Record<string, string>, key?: DpopKey) {
  const headers: Record<string, string> = {};
  if (key) headers.dpop = await dpopProof(key, tokenUrl, { nonce: await serverNonce(tokenUrl) });
  const form = new URLSearchParams(params);
  if (fixture.secret) headers.authorization = `Basic ${Buffer.from(`${fixture.client.id}:${fixture.secret}`).toString('base64')}`;
  else form.set('client_id', fixture.client.id);
  const response = await fetch(tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: form });
  return { status: response.status, body: (await response.json()) as Record<string, string>, headers: response.headers };
}

/** A code minted as the consent step would, exchanged with a proof of `key` (or none). */
async function codeExchange(fixture: ClientFixture, key: DpopKey | undefined, scope = ['openid', 'offline_access']) {
  const { verifier, challenge } = pkcePair();
  const code = await authorizationCodes(t.core).issue({
    clientId: fixture.client.id,
    redirectUri: REDIRECT_URI,
    codeChallenge: challenge,
    scope,
    userId: user.id,
    authTime: Math.floor(Date.now() / 1000),
  });
  const res = await tokenRequest(fixture, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier }, key);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.ok(res.body.refresh_token);
  return res.body;
}

const refresh = (fixture: ClientFixture, refreshToken: string, key?: DpopKey) =>
  tokenRequest(fixture, { grant_type: 'refresh_token', refresh_token: refreshToken }, key);

const jktOf = (accessToken: string) => (decodeJwt(accessToken) as { cnf?: { jkt?: string } }).cnf?.jkt;

function assertInvalidGrant(res: { status: number; body: Record<string, string> }, why: string) {
  assert.equal(res.status, 400, why);
  assert.equal(res.body.error, 'invalid_grant', why);
  assert.equal(res.body.access_token, undefined, why);
}

test('RFC 9449 §5: a public client (oauth4webapi) refreshes its DPoP-bound refresh token with its DPoP handle and gets DPoP-bound tokens again', async () => {
  const login = await createUser(t.core.db, t.core.clock, { password: PASSWORD });
  const keys = await dpopKey();
  const DPoP = oauth.DPoP({}, keys);
  const as = await oauth.processDiscoveryResponse(new URL(t.url), await oauth.discoveryRequest(new URL(t.url), { [oauth.allowInsecureRequests]: true }));
  const rp = { client_id: publicClient.client.id };
  const options = { DPoP, [oauth.allowInsecureRequests]: true } as const;
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: rp.client_id,
    redirect_uri: REDIRECT_URI,
    scope: 'openid offline_access',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const params = oauth.validateAuthResponse(as, rp, await browserlessLogin(url, { username: login.username }), state);
  const first = await retryingDpopNonce(async () =>
    oauth.processAuthorizationCodeResponse(as, rp, await oauth.authorizationCodeGrantRequest(as, rp, oauth.None(), params, REDIRECT_URI, verifier, options)),
  );
  const jkt = await calculateJwkThumbprint(keys.jwk);
  assert.equal(first.token_type, 'dpop');
  let refreshToken = first.refresh_token!;
  for (let round = 0; round < 2; round++) {
    const next = await retryingDpopNonce(async () =>
      oauth.processRefreshTokenResponse(as, rp, await oauth.refreshTokenGrantRequest(as, rp, oauth.None(), refreshToken, options)),
    );
    assert.equal(next.token_type, 'dpop', `round ${round}`);
    assert.equal(jktOf(next.access_token), jkt, `round ${round}`);
    assert.ok(next.refresh_token && next.refresh_token !== refreshToken);
    refreshToken = next.refresh_token;
  }
  // The handle's key is the only way in: the same client without it is refused.
  const withoutHandle = await oauth.refreshTokenGrantRequest(as, rp, oauth.None(), refreshToken, { [oauth.allowInsecureRequests]: true });
  await assert.rejects(
    oauth.processRefreshTokenResponse(as, rp, withoutHandle),
    (e: unknown) => e instanceof oauth.ResponseBodyError && e.error === 'invalid_grant',
  );
});

test('RFC 9449 §5: a DPoP-bound refresh token presented without a DPoP proof is invalid_grant — no downgrade to Bearer — and stays usable by its key', async () => {
  const key = await dpopKey();
  const issued = await codeExchange(publicClient, key);
  assert.equal(issued.token_type, 'DPoP');
  assertInvalidGrant(await refresh(publicClient, issued.refresh_token!), 'no proof');
  const next = await refresh(publicClient, issued.refresh_token!, key);
  assert.equal(next.status, 200, 'the refused attempt neither rotated nor revoked the token');
  assert.equal(next.body.token_type, 'DPoP');
});

test('RFC 9449 §5: a DPoP-bound refresh token presented with a proof of another key is invalid_grant', async () => {
  const key = await dpopKey();
  const issued = await codeExchange(publicClient, key);
  assertInvalidGrant(await refresh(publicClient, issued.refresh_token!, await dpopKey()), 'another key');
  assert.equal((await refresh(publicClient, issued.refresh_token!, key)).status, 200);
});

test('RFC 9449 §5: what a bound refresh yields stays bound — token_type DPoP, cnf.jkt of the key, and a successor that again needs the key', async () => {
  const key = await dpopKey();
  const jkt = await calculateJwkThumbprint(key.jwk);
  const issued = await codeExchange(publicClient, key);
  const next = await refresh(publicClient, issued.refresh_token!, key);
  assert.equal(next.body.token_type, 'DPoP');
  assert.equal(jktOf(next.body.access_token!), jkt);
  assertInvalidGrant(await refresh(publicClient, next.body.refresh_token!), 'successor without proof');
  assertInvalidGrant(await refresh(publicClient, next.body.refresh_token!, await dpopKey()), 'successor with another key');
  assert.equal((await refresh(publicClient, next.body.refresh_token!, key)).body.token_type, 'DPoP');
});

test("a confidential client's refresh token issued with a DPoP proof is bound as well (policy: bind whenever issued with a proof)", async () => {
  const key = await dpopKey();
  const issued = await codeExchange(confidentialClient, key, ['orders:read']);
  assertInvalidGrant(await refresh(confidentialClient, issued.refresh_token!), 'confidential, no proof');
  assertInvalidGrant(await refresh(confidentialClient, issued.refresh_token!, await dpopKey()), 'confidential, another key');
  assert.equal((await refresh(confidentialClient, issued.refresh_token!, key)).body.token_type, 'DPoP');
});

test('an unbound refresh token refreshed with a DPoP proof yields a refresh token bound to that key', async () => {
  const issued = await codeExchange(publicClient, undefined);
  assert.equal(issued.token_type, 'Bearer');
  const key = await dpopKey();
  const upgraded = await refresh(publicClient, issued.refresh_token!, key);
  assert.equal(upgraded.body.token_type, 'DPoP');
  assertInvalidGrant(await refresh(publicClient, upgraded.body.refresh_token!), 'now bound: no proof');
  assert.equal((await refresh(publicClient, upgraded.body.refresh_token!, key)).status, 200);
});

test('an unbound refresh token still refreshes as Bearer without a proof', async () => {
  const issued = await codeExchange(publicClient, undefined);
  const next = await refresh(publicClient, issued.refresh_token!);
  assert.equal(next.status, 200);
  assert.equal(next.body.token_type, 'Bearer');
  assert.equal(jktOf(next.body.access_token!), undefined);
});

test('a refused DPoP-bound refresh is logged as a security event with the family, never the token', async () => {
  const key = await dpopKey();
  const issued = await codeExchange(publicClient, key);
  logLines.length = 0;
  assertInvalidGrant(await refresh(publicClient, issued.refresh_token!), 'no proof');
  const event = logLines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.security_event === 'dpop_binding_mismatch');
  assert.ok(event, logLines.join('\n'));
  assert.equal(event.client_id, publicClient.client.id);
  assert.ok(!logLines.some((l) => l.includes(issued.refresh_token!)));
});

test('REFRESH_REUSE_GRACE: the successor of a DPoP-bound refresh token is handed out again only to a proof of its key', async () => {
  const grace = await startTestApp({ env: { ...NO_LIMITS, REFRESH_REUSE_GRACE: '30' } });
  try {
    const fixture = await createClient(grace.core.db, grace.core.clock);
    const owner = await createUser(grace.core.db, grace.core.clock);
    const key = await dpopKey();
    const graceToken = `${grace.url}/token`;
    const post = async (params: Record<string, string>, proofKey?: DpopKey) => {
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
      if (proofKey) headers.dpop = await dpopProof(proofKey, graceToken, { nonce: await serverNonce(graceToken) });
      const response = await fetch(graceToken, { method: 'POST', headers, body: new URLSearchParams({ ...params, client_id: fixture.client.id }) });
      return { status: response.status, body: (await response.json()) as Record<string, string> };
    };
    const { verifier, challenge } = pkcePair();
    const code = await authorizationCodes(grace.core).issue({
      clientId: fixture.client.id,
      redirectUri: REDIRECT_URI,
      codeChallenge: challenge,
      scope: ['openid', 'offline_access'],
      userId: owner.id,
      authTime: Math.floor(Date.now() / 1000),
    });
    const issued = (await post({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier }, key)).body;
    const rotated = await post({ grant_type: 'refresh_token', refresh_token: issued.refresh_token! }, key);
    assert.equal(rotated.status, 200);
    assertInvalidGrant(await post({ grant_type: 'refresh_token', refresh_token: issued.refresh_token! }), 'replay without proof');
    assertInvalidGrant(await post({ grant_type: 'refresh_token', refresh_token: issued.refresh_token! }, await dpopKey()), 'replay with another key');
    const replayed = await post({ grant_type: 'refresh_token', refresh_token: issued.refresh_token! }, key);
    assert.equal(replayed.status, 200, "the owner's retry within the grace window");
    assert.equal(replayed.body.refresh_token, rotated.body.refresh_token);
  } finally {
    await grace.close();
  }
});
