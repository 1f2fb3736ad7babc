// OIDC RP-Initiated Logout 1.0: with a valid id_token_hint the session ends and the browser goes to an
// exactly registered post_logout_redirect_uri with state; otherwise the user confirms (POST + CSRF) and
// there is no redirect. Afterwards the cookie is cleared and its old value no longer works.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPair, SignJWT } from 'jose';
import { epochSeconds } from '../../src/clock.js';
import { PLAIN_HTTP_SESSION_COOKIE } from '../../src/interaction/session/session-cookie.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClient, REDIRECT_URI } from '../helpers/oauth-fixtures.js';
import { authorizeQuery, loginAndConsent } from './browserless.js';
import type { Client } from '../../src/storage/repositories/clients-repository.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import { Browser, parseForm } from '../helpers/browser.js';
import { createUser, SIGN_IN } from '../helpers/users.js';

const POST_LOGOUT = 'https://client.example/logged-out';

describe('RP-initiated logout', () => {
  let t: TestApp;
  let client: Client;
  let other: Client;
  let user: User;
  before(async () => {
    t = await startTestApp();
    client = (await createClient(t.core.db, t.core.clock, { postLogoutRedirectUris: [POST_LOGOUT] })).client;
    other = (await createClient(t.core.db, t.core.clock, { postLogoutRedirectUris: ['https://other.example/bye'] })).client;
    user = await createUser(t.core.db, t.core.clock, SIGN_IN);
  });
  after(() => t.close());

  const idToken = (aud: string, sub = user.id) => {
    const now = epochSeconds(t.core.clock);
    return t.core.keys.sign({ iss: t.url, sub, aud, iat: now, exp: now + 600 }, { alg: 'RS256', typ: 'JWT' });
  };
  const loggedIn = async () => {
    const browser = new Browser(t.url);
    await loginAndConsent(browser, authorizeQuery(client.id, REDIRECT_URI), user);
    return { browser, cookie: browser.cookies.get(PLAIN_HTTP_SESSION_COOKIE)! };
  };
  const promptNoneError = async (cookie: string) => {
    const probe = new Browser(t.url);
    probe.cookies.set(PLAIN_HTTP_SESSION_COOKIE, cookie);
    const response = await probe.get(authorizeQuery(client.id, REDIRECT_URI, { prompt: 'none' }));
    return new URL(response.headers.get('location')!).searchParams.get('error');
  };
  const logoutQuery = (params: Record<string, string>) => `/logout?${new URLSearchParams(params).toString()}`;

  test('a valid id_token_hint and a registered post_logout_redirect_uri end the session and redirect with state', async () => {
    const { browser, cookie } = await loggedIn();
    const response = await browser.get(logoutQuery({ id_token_hint: await idToken(client.id), post_logout_redirect_uri: POST_LOGOUT, state: 'bye-1' }));
    assert.equal(response.status, 303);
    assert.equal(response.headers.get('location'), `${POST_LOGOUT}?state=bye-1`);
    const cleared = response.headers.getSetCookie().find((c) => c.startsWith(`${PLAIN_HTTP_SESSION_COOKIE}=`));
    assert.ok(cleared && /Expires=Thu, 01 Jan 1970|Max-Age=0/i.test(cleared), 'the cookie is cleared');
    assert.equal(await promptNoneError(cookie), 'login_required', 'the old cookie value is rejected after logout');
  });

  test('post_logout_redirect_uri not registered for the hint’s client gets an error page and no redirect', async () => {
    const { browser, cookie } = await loggedIn();
    for (const uri of ['https://evil.example/', `${POST_LOGOUT}/`, 'https://other.example/bye']) {
      const response = await browser.get(logoutQuery({ id_token_hint: await idToken(client.id), post_logout_redirect_uri: uri }));
      assert.equal(response.status, 400, uri);
      assert.equal(response.headers.get('location'), null);
    }
    assert.equal(await promptNoneError(cookie), null, 'the session is still alive');
  });

  test('without id_token_hint the user confirms on a page; post_logout_redirect_uri is not followed', async () => {
    const { browser, cookie } = await loggedIn();
    const response = await browser.get(logoutQuery({ post_logout_redirect_uri: POST_LOGOUT, state: 's' }));
    assert.equal(response.status, 200);
    const form = parseForm(await response.text());
    assert.equal(form.action, '/logout');
    assert.ok(form.hidden.csrf);
    assert.equal(await promptNoneError(cookie), null, 'showing the page does not end the session');

    const confirmed = await browser.post('/logout', { ...form.hidden, confirm: 'yes' });
    assert.equal(confirmed.status, 303);
    assert.equal(confirmed.headers.get('location'), '/logout/done');
    assert.equal(browser.cookies.get(PLAIN_HTTP_SESSION_COOKIE), undefined, 'the cookie is cleared');
    assert.equal(await promptNoneError(cookie), 'login_required');
  });

  test('the logout confirmation refuses a missing-session-token or foreign CSRF token with 403', async () => {
    const { browser, cookie } = await loggedIn();
    const { browser: otherBrowser } = await loggedIn();
    const foreign = parseForm(await (await otherBrowser.get('/logout')).text()).hidden.csrf!;
    const response = await browser.post('/logout', { csrf: foreign, confirm: 'yes' });
    assert.equal(response.status, 403);
    const crossSite = await browser.post(
      '/logout',
      { csrf: parseForm(await (await browser.get('/logout')).text()).hidden.csrf!, confirm: 'yes' },
      { origin: 'https://evil.example' },
    );
    assert.equal(crossSite.status, 403);
    assert.equal(await promptNoneError(cookie), null);
  });

  test('an id_token_hint signed by a foreign key is not trusted: confirmation page, no redirect', async () => {
    const { browser } = await loggedIn();
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT({ sub: user.id })
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuer(t.url)
      .setAudience(client.id)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(privateKey);
    const response = await browser.get(logoutQuery({ id_token_hint: forged, post_logout_redirect_uri: POST_LOGOUT }));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('location'), null);
    assert.match(await response.text(), /Sign out\?/);
  });

  test('a hint for another client cannot unlock this client’s post_logout_redirect_uri', async () => {
    const { browser } = await loggedIn();
    const response = await browser.get(logoutQuery({ id_token_hint: await idToken(other.id), post_logout_redirect_uri: POST_LOGOUT }));
    assert.equal(response.status, 400);
    assert.equal(response.headers.get('location'), null);
  });

  test('a hint for another user than the one signed in asks for confirmation', async () => {
    const { browser, cookie } = await loggedIn();
    const response = await browser.get(logoutQuery({ id_token_hint: await idToken(client.id, 'someone-else'), post_logout_redirect_uri: POST_LOGOUT }));
    assert.equal(response.status, 200);
    assert.match(await response.text(), /Sign out\?/);
    assert.equal(await promptNoneError(cookie), null);
  });
});
