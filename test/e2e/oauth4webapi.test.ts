// The whole code flow through oauth4webapi (panva's low-level OAuth 2 / OIDC client) as a public client:
// discovery, PKCE, state, RFC 9207 iss check, nonce, id_token claims and signature, userinfo, refresh.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { browserlessLogin } from '../helpers/browserless-login.js';
import { createClient, REDIRECT_URI, type ClientFixture } from '../helpers/oauth-fixtures.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import { NO_LIMITS } from '../helpers/env.js';
import { createUser, PASSWORD } from '../helpers/users.js';

const insecure = { [oauth.allowInsecureRequests]: true };
let t: TestApp;
let fixture: ClientFixture;
let user: User;
let as: oauth.AuthorizationServer;
let rp: oauth.Client;
const auth = oauth.None();

before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
  fixture = await createClient(t.core.db, t.core.clock, { skipConsent: false, name: 'oauth4webapi SPA' });
  user = await createUser(t.core.db, t.core.clock, { password: PASSWORD });
  const issuer = new URL(t.url);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  rp = { client_id: fixture.client.id };
});
after(async () => {
  await t.close();
});

async function signIn(scope: string) {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: rp.client_id,
    redirect_uri: REDIRECT_URI,
    scope,
    state,
    nonce,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  }).toString();
  const callback = await browserlessLogin(url, { username: user.username });
  const params = oauth.validateAuthResponse(as, rp, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(as, rp, auth, params, REDIRECT_URI, codeVerifier, insecure);
  const result = await oauth.processAuthorizationCodeResponse(as, rp, response, { expectedNonce: nonce, requireIdToken: true });
  return { result, nonce };
}

describe('oauth4webapi end to end', () => {
  test('discovery, PKCE, state, iss, nonce, id_token signature and claims, userinfo', async () => {
    const { result, nonce } = await signIn('openid profile phone offline_access');
    const claims = oauth.getValidatedIdTokenClaims(result)!;
    assert.equal(claims.sub, user.id);
    assert.equal(claims.nonce, nonce);
    assert.equal(claims.phone_number, '+44 20 7946 0000');
    const { protectedHeader } = await jwtVerify(result.id_token!, createRemoteJWKSet(new URL(as.jwks_uri!)), { issuer: t.url, audience: rp.client_id });
    assert.equal(protectedHeader.alg, 'RS256');
    const info = await oauth.processUserInfoResponse(as, rp, claims.sub, await oauth.userInfoRequest(as, rp, result.access_token, insecure));
    assert.equal(info.sub, claims.sub);
    assert.equal(info.given_name, 'Ada');
    assert.equal(info.phone_number_verified, false);
  });

  test('refresh through oauth4webapi: a public client rotates; replaying the old token revokes the family', async () => {
    const { result } = await signIn('openid offline_access');
    const first = await oauth.processRefreshTokenResponse(as, rp, await oauth.refreshTokenGrantRequest(as, rp, auth, result.refresh_token!, insecure));
    assert.ok(first.refresh_token && first.refresh_token !== result.refresh_token);
    assert.equal(oauth.getValidatedIdTokenClaims(first)!.sub, user.id);

    await assert.rejects(
      oauth.processRefreshTokenResponse(as, rp, await oauth.refreshTokenGrantRequest(as, rp, auth, result.refresh_token!, insecure)),
      (error: unknown) => error instanceof oauth.ResponseBodyError && error.error === 'invalid_grant',
    );
    await assert.rejects(
      oauth.processRefreshTokenResponse(as, rp, await oauth.refreshTokenGrantRequest(as, rp, auth, first.refresh_token, insecure)),
      (error: unknown) => error instanceof oauth.ResponseBodyError && error.error === 'invalid_grant',
    );
    const userinfo = await oauth.userInfoRequest(as, rp, first.access_token, insecure);
    assert.equal(userinfo.status, 401);
  });

  test('refresh with a narrower scope through oauth4webapi, then the full scope again', async () => {
    const { result } = await signIn('openid offline_access orders:read');
    const narrowed = await oauth.processRefreshTokenResponse(
      as,
      rp,
      await oauth.refreshTokenGrantRequest(as, rp, auth, result.refresh_token!, { ...insecure, additionalParameters: { scope: 'orders:read' } }),
    );
    assert.equal(narrowed.scope, 'orders:read');
    const restored = await oauth.processRefreshTokenResponse(as, rp, await oauth.refreshTokenGrantRequest(as, rp, auth, narrowed.refresh_token!, insecure));
    assert.equal(restored.scope, 'openid offline_access orders:read');
  });
});
