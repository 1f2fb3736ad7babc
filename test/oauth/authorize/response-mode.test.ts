// response_mode (OAuth 2.0 Multiple Response Type Encoding Practices §2.1, OAuth 2.0 Form Post Response
// Mode): query (the default) redirects as before; form_post answers with a page whose form the browser
// POSTs to the redirect_uri — success and errors alike — without any inline script; every other mode is
// refused with invalid_request.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../../src/clock.js';
import { INTERACTION_TTL_SECONDS } from '../../../src/interaction/index.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createClient } from '../../helpers/oauth-fixtures.js';
import { authorizeQuery, openInteraction } from '../../interaction/browserless.js';
import type { Client } from '../../../src/storage/repositories/clients-repository.js';
import { assertErrorPage, assertErrorRedirect } from './assertions.js';
import { Browser, parseForm } from '../../helpers/browser.js';
import { createUser, PASSWORD, SIGN_IN } from '../../helpers/users.js';

const REG = 'https://client.example/cb';

/** Asserts the form_post page and returns the form's fields. */
async function assertFormPost(response: Response, issuer: string): Promise<{ html: string; fields: Record<string, string> }> {
  assert.equal(response.status, 200, `expected the form_post page, got ${response.status} ${response.headers.get('location') ?? ''}`);
  assert.equal(response.headers.get('location'), null);
  assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  const csp = response.headers.get('content-security-policy') ?? '';
  assert.match(csp, new RegExp(`script-src ${issuer}/assets/form-post\\.js;`), csp);
  assert.match(csp, /form-action https:\/\/client\.example;/, csp);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|'self'[^;]*script|script-src[^;]*'self'/);
  const html = await response.text();
  const form = parseForm(html);
  assert.equal(form.action, REG);
  assert.match(html, /<script src="\/assets\/form-post\.js" defer><\/script>/);
  assert.equal([...html.matchAll(/<script\b[^>]*>([^<]*)<\/script>/g)].filter((m) => m[1]!.trim() !== '').length, 0, 'no inline script');
  assert.match(html, /<button type="submit">Continue<\/button>/, 'a visible button for browsers without JavaScript');
  return { html, fields: form.hidden };
}

describe('authorize: response_mode', () => {
  const clock = manualClock();
  let t: TestApp;
  let client: Client;
  before(async () => {
    t = await startTestApp({ clock, env: { RATE_LIMIT_ENABLED: 'false' } });
    client = (await createClient(t.core.db, t.core.clock, { redirectUris: [REG], scopes: ['openid', 'profile'], skipConsent: false })).client;
  });
  after(() => t.close());

  const get = (extra: Record<string, string | undefined>) => fetch(t.url + authorizeQuery(client.id, REG, extra), { redirect: 'manual' });

  /** A new user logs in on the interaction page and answers the consent page; returns the final response. */
  async function loginAndDecide(browser: Browser, extra: Record<string, string>, decision: 'allow' | 'deny'): Promise<Response> {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const { form } = await openInteraction(browser, authorizeQuery(client.id, REG, extra));
    const afterLogin = await browser.post(form.action, { ...form.hidden, username: user.username, password: PASSWORD });
    assert.equal(afterLogin.status, 303);
    const consent = parseForm(await (await browser.get(afterLogin.headers.get('location')!)).text());
    return browser.post(consent.action, { ...consent.hidden, decision });
  }

  test('response_mode=form_post delivers code, state and iss as a form POSTed to the redirect_uri, with no inline script', async () => {
    const response = await loginAndDecide(new Browser(t.url), { response_mode: 'form_post' }, 'allow');
    const { fields } = await assertFormPost(response, t.url);
    assert.deepEqual(Object.keys(fields).sort(), ['code', 'iss', 'state']);
    assert.match(fields.code!, /^[A-Za-z0-9_-]{43,}$/);
    assert.equal(fields.state, 'state-123');
    assert.equal(fields.iss, t.url);
  });

  test('form_post: a denied consent delivers error=access_denied by form POST', async () => {
    const { fields } = await assertFormPost(await loginAndDecide(new Browser(t.url), { response_mode: 'form_post' }, 'deny'), t.url);
    assert.equal(fields.error, 'access_denied');
    assert.equal(fields.state, 'state-123');
    assert.equal(fields.iss, t.url);
    assert.equal(fields.code, undefined);
  });

  test('form_post: a request error after the client is trusted is delivered by form POST (invalid_scope, prompt=none login_required)', async () => {
    const scope = await assertFormPost(await get({ response_mode: 'form_post', scope: 'openid launch-missiles' }), t.url);
    assert.equal(scope.fields.error, 'invalid_scope');
    assert.equal(scope.fields.state, 'state-123');
    const none = await assertFormPost(await get({ response_mode: 'form_post', prompt: 'none' }), t.url);
    assert.equal(none.fields.error, 'login_required');
  });

  test('form_post: an unknown client or unregistered redirect_uri is still an error page, never a form to that address', async () => {
    await assertErrorPage(await fetch(t.url + authorizeQuery('no-such-client', REG, { response_mode: 'form_post' }), { redirect: 'manual' }));
    const html = await assertErrorPage(
      await fetch(t.url + authorizeQuery(client.id, 'https://evil.example/cb', { response_mode: 'form_post' }), { redirect: 'manual' }),
    );
    assert.doesNotMatch(html, /evil\.example/);
  });

  test('form_post: markup in state is escaped in the page, and comes back unchanged in the form', async () => {
    const state = '"><script>alert(1)</script><input name="code" value="x';
    const { html, fields } = await assertFormPost(await get({ response_mode: 'form_post', prompt: 'none', state }), t.url);
    assert.doesNotMatch(html, /<script>alert/);
    assert.equal(fields.state, state);
    assert.equal(fields.code, undefined);
  });

  test('form_post: the expired page returns to the client by a form POST, not a link', async () => {
    const browser = new Browser(t.url);
    const { path } = await openInteraction(browser, authorizeQuery(client.id, REG, { response_mode: 'form_post' }));
    clock.advance((INTERACTION_TTL_SECONDS + 1) * 1000);
    const response = await browser.get(path);
    assert.equal(response.status, 400);
    assert.match(response.headers.get('content-security-policy') ?? '', /form-action 'self' https:\/\/client\.example/);
    const html = await response.text();
    const form = parseForm(html);
    assert.equal(form.action, REG);
    assert.equal(form.hidden.error, 'access_denied');
    assert.doesNotMatch(html, /href="https:\/\/client\.example/);
    assert.match(html, /response_mode=form_post/, 'starting again keeps the response mode');
  });

  test('response_mode=query works as without it: a 303 with the code in the query', async () => {
    const response = await get({ response_mode: 'query', prompt: 'none' });
    assertErrorRedirect(response, { error: 'login_required', redirectUri: REG, state: 'state-123', issuer: t.url });
  });

  for (const mode of ['fragment', 'jwt', 'query.jwt', 'form_post.jwt', 'FORM_POST', 'junk']) {
    test(`response_mode=${mode} is refused with invalid_request (by query redirect), not ignored`, async () => {
      const url = assertErrorRedirect(await get({ response_mode: mode }), { error: 'invalid_request', redirectUri: REG, state: 'state-123', issuer: t.url });
      assert.match(url.searchParams.get('error_description') ?? '', /response_mode/);
    });
  }

  test('the form-post script is served from our own origin as JavaScript', async () => {
    const response = await fetch(`${t.url}/assets/form-post.js`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.match(await response.text(), /submit\(\)/);
  });
});
