// The whole code flow through openid-client (panva), the certified relying-party library: discovery,
// PKCE, state, nonce, id_token validation (signature included), userinfo, refresh with rotation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as client from 'openid-client';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { browserlessLogin } from '../helpers/browserless-login.js';
import { createClient, REDIRECT_URI, type ClientFixture } from '../helpers/oauth-fixtures.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import { NO_LIMITS } from '../helpers/env.js';
import { createUser, PASSWORD } from '../helpers/users.js';

let t: TestApp;
let fixture: ClientFixture;
let user: User;
let config: client.Configuration;

before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
  fixture = await createClient(t.core.db, t.core.clock, { type: 'confidential', skipConsent: false, name: 'openid-client RP' });
  user = await createUser(t.core.db, t.core.clock, { password: PASSWORD });
  config = await client.discovery(new URL(t.url), fixture.client.id, undefined, client.ClientSecretBasic(fixture.secret), {
    execute: [client.allowInsecureRequests],
  });
  client.enableNonRepudiationChecks(config);
});
after(async () => {
  await t.close();
});

async function signIn(scope: string) {
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  const callback = await browserlessLogin(url, { username: user.username });
  const tokens = await client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: codeVerifier,
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  return { tokens, nonce };
}

describe('openid-client end to end', () => {
  test('discovery, PKCE, state, nonce, validated id_token, userinfo', async () => {
    const { tokens, nonce } = await signIn('openid profile email offline_access');
    const claims = tokens.claims()!;
    assert.equal(claims.iss, t.url);
    assert.equal(claims.aud, fixture.client.id);
    assert.equal(claims.sub, user.id);
    assert.equal(claims.nonce, nonce);
    assert.equal(claims.email, 'ada@example.com');
    assert.equal(typeof claims.auth_time, 'number');
    assert.equal(tokens.scope, 'openid profile email offline_access');
    const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
    assert.equal(info.sub, user.id);
    assert.equal(info.name, 'Ada Lovelace');
    assert.equal(info.email_verified, true);
  });

  test('refresh through openid-client rotates the refresh token; the old one then fails with invalid_grant', async () => {
    const { tokens } = await signIn('openid offline_access');
    assert.ok(tokens.refresh_token);
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token);
    assert.ok(refreshed.refresh_token && refreshed.refresh_token !== tokens.refresh_token);
    assert.equal(refreshed.claims()!.sub, user.id);
    assert.equal(refreshed.claims()!.auth_time, tokens.claims()!.auth_time);
    await assert.rejects(client.refreshTokenGrant(config, tokens.refresh_token), (error: unknown) => {
      assert.ok(error instanceof client.ResponseBodyError);
      assert.equal(error.error, 'invalid_grant');
      return true;
    });
    await assert.rejects(
      client.refreshTokenGrant(config, refreshed.refresh_token),
      (error: unknown) => error instanceof client.ResponseBodyError && error.error === 'invalid_grant',
    );
  });

  test('no refresh token without offline_access under OIDC', async () => {
    const { tokens } = await signIn('openid');
    assert.equal(tokens.refresh_token, undefined);
    assert.ok(tokens.id_token);
  });
});
