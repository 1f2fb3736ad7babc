// The login → consent → code flow over real HTTP with a cookie jar (no browser).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClient, REDIRECT_URI } from '../helpers/oauth-fixtures.js';
import { authorizeQuery, loginAndConsent } from './browserless.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import type { Client } from '../../src/storage/repositories/clients-repository.js';
import { Browser, parseForm } from '../helpers/browser.js';
import { createUser, SIGN_IN } from '../helpers/users.js';

describe('login and consent flow', () => {
  let t: TestApp;
  let client: Client;
  let user: User;
  before(async () => {
    t = await startTestApp();
    client = (await createClient(t.core.db, t.core.clock, { skipConsent: false, name: 'Shop <b>App</b>' })).client;
    user = await createUser(t.core.db, t.core.clock, SIGN_IN);
  });
  after(() => t.close());

  test('a user logs in and consents: the client receives code, state and iss', async () => {
    const browser = new Browser(t.url);
    const location = await loginAndConsent(browser, authorizeQuery(client.id, REDIRECT_URI), user);
    assert.equal(location.origin + location.pathname, REDIRECT_URI);
    assert.match(location.searchParams.get('code') ?? '', /^[A-Za-z0-9_-]{43,}$/);
    assert.equal(location.searchParams.get('state'), 'state-123');
    assert.equal(location.searchParams.get('iss'), t.url);
    assert.equal(location.searchParams.get('error'), null);
  });

  test('consent deny redirects with error=access_denied and state, never a code', async () => {
    const browser = new Browser(t.url);
    const location = await loginAndConsent(browser, authorizeQuery(client.id, REDIRECT_URI, { scope: 'openid email' }), user, 'deny');
    assert.equal(location.searchParams.get('error'), 'access_denied');
    assert.equal(location.searchParams.get('state'), 'state-123');
    assert.equal(location.searchParams.get('iss'), t.url);
    assert.equal(location.searchParams.get('code'), null);
  });

  test('the consent page shows the client name escaped, who is signed in, and each scope in plain words', async () => {
    const browser = new Browser(t.url);
    let r = await browser.get(authorizeQuery(client.id, REDIRECT_URI, { scope: 'openid phone orders:read' }));
    r = await browser.get(r.headers.get('location')!);
    const login = parseForm(await r.text());
    r = await browser.post(login.action, { ...login.hidden, username: user.username, password: 'correct horse battery staple' });
    assert.equal(r.status, 303);
    r = await browser.get(r.headers.get('location')!);
    const html = await r.text();
    assert.match(html, /Shop &lt;b&gt;App&lt;\/b&gt;/);
    assert.doesNotMatch(html, /<b>App<\/b>/);
    assert.ok(html.includes(`Signed in as ${user.username}.`), 'the consent page names the signed-in user');
    assert.match(html, /Your phone number/);
    assert.match(html, /See your orders/);
    assert.match(html, /name="decision" value="allow"/);
    assert.match(html, /name="decision" value="deny"/);
  });
});
