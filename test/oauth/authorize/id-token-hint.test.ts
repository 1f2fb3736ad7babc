// The id_token_hint rule (OIDC Core 3.1.2.1, RP-Initiated Logout 1.0 §2; docs/security/tokens-and-operator-views.md):
// only an id_token of ours is a hint. An access token is signed by the same keys and may name a client in its
// `aud`; its header says `typ: at+jwt`, and the claims set has no `typ` to read.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeProtectedHeader } from 'jose';
import { accessTokenIssuer } from '../../../src/oauth/issued-tokens/access-tokens.js';
import { PLAIN_HTTP_SESSION_COOKIE } from '../../../src/interaction/session/session-cookie.js';
import type { Client } from '../../../src/storage/repositories/clients-repository.js';
import type { User } from '../../../src/storage/repositories/users-repository.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { Browser } from '../../helpers/browser.js';
import { createClient, REDIRECT_URI } from '../../helpers/oauth-fixtures.js';
import { createUser, SIGN_IN } from '../../helpers/users.js';
import { authorizeQuery, loginAndConsent } from '../../interaction/browserless.js';

const POST_LOGOUT = 'https://client.example/logged-out';
let t: TestApp, client: Client, user: User;
before(async () => {
  t = await startTestApp();
  client = (await createClient(t.core.db, t.core.clock, { postLogoutRedirectUris: [POST_LOGOUT] })).client;
  user = await createUser(t.core.db, t.core.clock, SIGN_IN);
});
after(() => t.close());

/** An access token of ours for this user whose audience is the client's id: every claim a hint needs. */
const accessTokenNamingTheClient = async () =>
  (
    await accessTokenIssuer(t.core).issue({
      sub: user.id,
      clientId: client.id,
      scope: ['profile'],
      authTime: Math.floor(t.core.clock.now() / 1000),
      audience: client.id,
    })
  ).token;
const idToken = () => {
  const now = Math.floor(t.core.clock.now() / 1000);
  return t.core.keys.sign({ iss: t.url, sub: user.id, aud: client.id, iat: now, exp: now + 600 }, { alg: 'RS256', typ: 'JWT' });
};
const signedIn = async () => {
  const browser = new Browser(t.url);
  await loginAndConsent(browser, authorizeQuery(client.id, REDIRECT_URI), user);
  return browser;
};
const stillSignedIn = async (browser: Browser) => {
  const probe = new Browser(t.url);
  probe.cookies.set(PLAIN_HTTP_SESSION_COOKIE, browser.cookies.get(PLAIN_HTTP_SESSION_COOKIE)!);
  const location = (await probe.get(authorizeQuery(client.id, REDIRECT_URI, { prompt: 'none' }))).headers.get('location')!;
  return new URL(location).searchParams.has('code');
};
const logout = (hint: string) => `/logout?${new URLSearchParams({ id_token_hint: hint, post_logout_redirect_uri: POST_LOGOUT, state: 's' })}`;

test('the id_token_hint rule: an access token of ours naming the client is no hint at /logout (confirmation page, no redirect, the session stays)', async () => {
  const token = await accessTokenNamingTheClient();
  assert.equal(decodeProtectedHeader(token).typ, 'at+jwt');
  const browser = await signedIn();
  const response = await browser.get(logout(token));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('location'), null);
  assert.match(await response.text(), /Sign out\?/);
  assert.equal(await stillSignedIn(browser), true, 'nothing was ended on the strength of an access token');
  // The same request with our id_token is a hint: it ends the session and redirects.
  const real = await browser.get(logout(await idToken()));
  assert.equal(real.status, 303);
  assert.equal(real.headers.get('location'), `${POST_LOGOUT}?state=s`);
});

test('the id_token_hint rule: an access token of ours naming the client is invalid_request at /authorize; our id_token is accepted', async () => {
  const browser = await signedIn();
  const refused = await browser.get(authorizeQuery(client.id, REDIRECT_URI, { prompt: 'none', id_token_hint: await accessTokenNamingTheClient() }));
  const error = new URL(refused.headers.get('location')!, t.url).searchParams;
  assert.equal(error.get('error'), 'invalid_request');
  assert.equal(error.has('code'), false);
  const accepted = await browser.get(authorizeQuery(client.id, REDIRECT_URI, { prompt: 'none', id_token_hint: await idToken() }));
  assert.ok(new URL(accepted.headers.get('location')!).searchParams.get('code'));
});
