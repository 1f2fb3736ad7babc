// What a person sees on the login, logout and error pages when something goes wrong: the username they
// typed is still there, the logout question can be declined, and an error page is never a dead end.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClient, REDIRECT_URI } from '../helpers/oauth-fixtures.js';
import { authorizeQuery, loginAndConsent } from './browserless.js';
import type { Client } from '../../src/storage/repositories/clients-repository.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import { Browser, parseForm } from '../helpers/browser.js';
import { startSignInWorld } from './sign-in-world.js';

describe('newcomer-friendly pages', () => {
  let t: TestApp, client: Client, user: User;
  before(async () => ({ t, client, user } = await startSignInWorld({ skipConsent: false })));
  after(() => t.close());

  const loginPage = async (browser: Browser) => {
    const started = await browser.get(authorizeQuery(client.id, REDIRECT_URI));
    const location = started.headers.get('location')!;
    return { location, html: await (await browser.get(location)).text() };
  };

  test('after a failed login the form shows the username typed (escaped), never the password, and not in the URL', async () => {
    const browser = new Browser(t.url);
    const { html } = await loginPage(browser);
    const form = parseForm(html);
    const typed = `${user.username}"><script>x</script>`;
    const failed = await browser.post(form.action, { ...form.hidden, username: typed, password: 'wrong password 123' });
    assert.equal(failed.status, 303);
    const again = failed.headers.get('location')!;
    assert.doesNotMatch(again, /username|script/, 'the username does not travel in the redirect');
    const page = await (await browser.get(again)).text();
    assert.match(page, /The username or password is not correct/);
    assert.match(page, /value="[^"]*&quot;&gt;&lt;script&gt;x&lt;\/script&gt;"/);
    assert.doesNotMatch(page, /wrong password 123/);
  });

  test('another browser opening the same interaction does not see the username typed in the first', async () => {
    const browser = new Browser(t.url);
    const { location, html } = await loginPage(browser);
    const form = parseForm(html);
    await browser.post(form.action, { ...form.hidden, username: user.username, password: 'nope-nope-nope' });
    const stranger = await new Browser(t.url).get(`${location}?failed=1`);
    assert.doesNotMatch(await stranger.text(), new RegExp(user.username));
  });

  test('the logout confirmation offers Cancel, a plain link home that leaves the session alone', async () => {
    const browser = new Browser(t.url);
    await loginAndConsent(browser, authorizeQuery(client.id, REDIRECT_URI), user);
    const html = await (await browser.get('/logout')).text();
    assert.match(html, /<button type="submit" name="confirm" value="yes">Sign out<\/button>/);
    assert.match(html, /<a class="button secondary" href="\/">Cancel<\/a>/);
    const home = await browser.get('/');
    assert.equal(home.status, 200);
    const silent = await browser.get(authorizeQuery(client.id, REDIRECT_URI, { prompt: 'none' }));
    assert.equal(new URL(silent.headers.get('location')!).searchParams.get('error'), null, 'still signed in');
  });

  test('an error page offers a way forward (the home page) and explains the reference it shows', async () => {
    const response = await fetch(`${t.url}/authorize?client_id=nobody`);
    assert.equal(response.status, 400);
    const html = await response.text();
    assert.match(html, /<a class="button" href="\/">Go to the Gatehouse home page<\/a>/);
    const traceId = /Reference: <code>([^<]+)<\/code>/.exec(html)?.[1];
    assert.ok(traceId);
    assert.match(html, /quote this reference: it identifies the log lines of this request/);
  });

  test('a demo error page leads back to the demo rather than the home page', async () => {
    const demo = await startTestApp({ env: { DEMO_ENABLED: 'true' } });
    try {
      const html = await (await fetch(`${demo.url}/demo/callback?code=x&state=y`)).text();
      assert.match(html, /<a class="button" href="\/demo">Back to the demo<\/a>/);
    } finally {
      await demo.close();
    }
  });
});

test('a refused login form (stale CSRF token) leads back to the sign-in page, not a dead end', async () => {
  const t = await startTestApp();
  try {
    const client = (await createClient(t.core.db, t.core.clock)).client;
    const browser = new Browser(t.url);
    const location = (await browser.get(authorizeQuery(client.id, REDIRECT_URI))).headers.get('location')!;
    const form = parseForm(await (await browser.get(location)).text());
    const refused = await browser.post(form.action, { ...form.hidden, csrf: 'stale', username: 'a', password: 'b' });
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), new RegExp(`<a class="button" href="${location}">Back to sign-in</a>`));
  } finally {
    await t.close();
  }
});
