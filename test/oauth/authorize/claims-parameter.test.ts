// The `claims` request parameter (OIDC Core 5.5; docs/claims-parameter.md): discovery says it is supported
// because it is honoured — an essential acr steps up (test/interaction/mfa/step-up.test.ts), individual
// claims are released in the id_token as far as the granted scopes release them, never beyond — and a value
// that is not the JSON 5.5 describes is refused with invalid_request at the client's redirect_uri, as are
// over-long and deeply nested values.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createClient, REDIRECT_URI, type ClientFixture } from '../../helpers/oauth-fixtures.js';
import { Browser } from '../../helpers/browser.js';
import { NO_LIMITS } from '../../helpers/env.js';
import { createUser, fullProfile, PASSWORD } from '../../helpers/users.js';
import type { User } from '../../../src/storage/repositories/users-repository.js';
import { MAX_CLAIMS_DEPTH } from '../../../src/oauth/authorize/check-claims.js';
import { authorizeQuery, loginAndConsent } from '../../interaction/browserless.js';
import { assertErrorRedirect } from './assertions.js';

const insecure = { [oauth.allowInsecureRequests]: true };

describe('the claims request parameter', () => {
  let t: TestApp;
  let fixture: ClientFixture;
  let user: User;
  before(async () => {
    t = await startTestApp({ env: NO_LIMITS });
    fixture = await createClient(t.core.db, t.core.clock);
    user = await createUser(t.core.db, t.core.clock, { password: PASSWORD, profile: fullProfile });
  });
  after(() => t.close());

  const authorize = (claims: string) => new Browser(t.url).get(authorizeQuery(fixture.client.id, REDIRECT_URI, { claims }));
  const refused = async (claims: string) => {
    const url = assertErrorRedirect(await authorize(claims), { error: 'invalid_request', redirectUri: REDIRECT_URI, state: 'state-123', issuer: t.url });
    return url.searchParams.get('error_description') ?? '';
  };

  test('discovery says claims_parameter_supported, and oauth4webapi reads it', async () => {
    const issuer = new URL(t.url);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
    assert.equal(as.claims_parameter_supported, true);
  });

  test('a claims value that is not JSON is refused with invalid_request at the redirect_uri', async () => {
    assert.match(await refused('{"id_token": {"acr": '), /not JSON/);
  });

  test('a claims value that is JSON but not the object OIDC Core 5.5 describes is refused with invalid_request', async () => {
    assert.match(await refused('["acr"]'), /JSON object/);
    assert.match(await refused('{"id_token": "acr"}'), /id_token must be an object/);
    assert.match(await refused('{"userinfo": {"email": 1}}'), /userinfo\.email must be null or an object/);
    assert.match(await refused('{"id_token": {"acr": {"essential": "yes"}}}'), /essential must be a boolean/);
    assert.match(await refused('{"id_token": {"acr": {"values": "urn:x"}}}'), /values must be an array/);
  });

  test('a deeply nested claims value is refused before it is parsed', async () => {
    const deep = `{"id_token":{"acr":{"value":${'['.repeat(MAX_CLAIMS_DEPTH)}${']'.repeat(MAX_CLAIMS_DEPTH)}}}}`;
    assert.match(await refused(deep), /nested more than/);
  });

  test('a huge claims value is refused with invalid_request, not truncated', async () => {
    const huge = JSON.stringify({ id_token: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`claim_${i}`, null])) });
    assert.match(await refused(huge), /claims is longer than/);
  });

  test('unknown members and unknown claims are ignored (OIDC Core 5.5), the flow completes', async () => {
    const location = await loginAndConsent(
      new Browser(t.url),
      authorizeQuery(fixture.client.id, REDIRECT_URI, { claims: JSON.stringify({ vp_token: {}, id_token: { shoe_size: null } }) }),
      user,
    );
    assert.ok(location.searchParams.get('code'));
  });

  test('individual claims are released within the granted scopes only: email (scope email) is in the id_token, phone_number (no phone scope) is not', async () => {
    const issuer = new URL(t.url);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
    const rp: oauth.Client = { client_id: fixture.client.id };
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const claims = JSON.stringify({ id_token: { email: { essential: true }, phone_number: null }, userinfo: { phone_number: { essential: true } } });
    const path = `/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: rp.client_id,
      redirect_uri: REDIRECT_URI,
      scope: 'openid email',
      state,
      claims,
      code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    })}`;
    const callback = await loginAndConsent(new Browser(t.url), path, user);
    const params = oauth.validateAuthResponse(as, rp, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(as, rp, oauth.None(), params, REDIRECT_URI, codeVerifier, insecure);
    const result = await oauth.processAuthorizationCodeResponse(as, rp, response, { requireIdToken: true });
    const idToken = oauth.getValidatedIdTokenClaims(result)!;
    assert.equal(idToken.email, fullProfile.email);
    assert.equal(idToken.phone_number, undefined, 'not released: the user consented to the email scope only');
    const userinfo = await oauth.processUserInfoResponse(as, rp, idToken.sub, await oauth.userInfoRequest(as, rp, result.access_token, insecure));
    assert.equal(userinfo.email, fullProfile.email);
    assert.equal(userinfo.phone_number, undefined);
  });
});
