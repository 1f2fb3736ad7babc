// Browser sessions: cookie attributes, a new id after login (no fixation), the 12 h lifetime on an injected
// clock, identical answers for unknown users and wrong passwords, and after every POST a 303 to our pages or
// the hand-over page to the client (never 307/308: the form is never re-posted).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClient, REDIRECT_URI } from '../helpers/oauth-fixtures.js';
import { authorizeQuery, loginAndConsent, openInteraction, submitLogin } from './browserless.js';
import { PLAIN_HTTP_SESSION_COOKIE } from '../../src/interaction/session/session-cookie.js';
import type { Client } from '../../src/storage/repositories/clients-repository.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import { Browser, parseForm } from '../helpers/browser.js';
import { clientAnswer } from '../helpers/client-answer.js';
import { startSignInWorld } from './sign-in-world.js';

describe('browser session', () => {
  const clock = manualClock();
  let t: TestApp, client: Client, user: User;
  before(async () => ({ t, client, user } = await startSignInWorld({ skipConsent: true, clock })));
  after(() => t.close());

  const promptNone = (browser: Browser) => browser.get(authorizeQuery(client.id, REDIRECT_URI, { prompt: 'none' }));

  test('session cookie flags: HttpOnly, SameSite=Lax, Path=/, no Domain; documented plain-http name on an http issuer', async () => {
    const browser = new Browser(t.url);
    const first = await browser.get(authorizeQuery(client.id, REDIRECT_URI));
    const cookie = first.headers.getSetCookie().find((c) => c.startsWith(`${PLAIN_HTTP_SESSION_COOKIE}=`));
    assert.ok(cookie, 'a session cookie is set');
    assert.match(cookie, /; HttpOnly/i);
    assert.match(cookie, /; SameSite=Lax/i);
    assert.match(cookie, /; Path=\//);
    assert.doesNotMatch(cookie, /Domain=/i);
    assert.match(cookie, /Max-Age=43200/);
  });

  test('session id stored only as a hash: the cookie value is not in the database', async () => {
    const browser = new Browser(t.url);
    await loginAndConsent(browser, authorizeQuery(client.id, REDIRECT_URI), user);
    const raw = browser.cookies.get(PLAIN_HTTP_SESSION_COOKIE)!;
    const rows = await t.core.db.selectFrom('browser_sessions').select('id_hash').execute();
    assert.ok(rows.length > 0);
    assert.ok(rows.every((r) => r.id_hash !== raw));
  });

  test('session fixation: login issues a new session id and the pre-login value is rejected', async () => {
    const browser = new Browser(t.url);
    const { form } = await openInteraction(browser, authorizeQuery(client.id, REDIRECT_URI));
    const before = browser.cookies.get(PLAIN_HTTP_SESSION_COOKIE)!;
    const response = await submitLogin(browser, form, user.username);
    assert.ok((await clientAnswer(response)).href.startsWith(`${REDIRECT_URI}?code=`), 'signed in: the client is answered');
    const afterLogin = browser.cookies.get(PLAIN_HTTP_SESSION_COOKIE)!;
    assert.notEqual(afterLogin, before);

    const attacker = new Browser(t.url);
    attacker.cookies.set(PLAIN_HTTP_SESSION_COOKIE, before);
    const replay = await promptNone(attacker);
    assert.equal(new URL(replay.headers.get('location')!).searchParams.get('error'), 'login_required');

    const victim = await promptNone(browser);
    assert.ok(new URL(victim.headers.get('location')!).searchParams.get('code'));
  });

  test('login errors are identical for an unknown user and a wrong password', async () => {
    const answers = [];
    for (const username of [user.username, 'nobody-by-this-name']) {
      const browser = new Browser(t.url);
      const { form, path } = await openInteraction(browser, authorizeQuery(client.id, REDIRECT_URI));
      const response = await submitLogin(browser, form, username, 'wrong password');
      assert.equal(response.status, 303);
      const location = response.headers.get('location')!;
      const page = await (await browser.get(location)).text();
      // Each attempt has its own interaction (its path, and its id in the self-service links): that differs by design.
      const id = path.split('/').pop()!;
      answers.push({
        location: location.replace(path, '<interaction>'),
        page: page
          .replaceAll(path, '<interaction>')
          .replaceAll(id, '<id>')
          .replace(/value="[^"]*"/g, ''),
      });
    }
    assert.deepEqual(answers[0], answers[1]);
    assert.match(answers[0]!.page, /username or password is not correct/);
  });

  test('every POST of the pages answers 303 See Other to our pages or the hand-over page to the client, never 307 or 308', async () => {
    const browser = new Browser(t.url);
    const { form } = await openInteraction(browser, authorizeQuery(client.id, REDIRECT_URI));
    const failed = await submitLogin(browser, form, user.username, 'nope');
    assert.equal(failed.status, 303);
    const ok = await submitLogin(browser, parseForm(await (await browser.get(failed.headers.get('location')!)).text()), user.username);
    assert.ok((await clientAnswer(ok)).href.startsWith(`${REDIRECT_URI}?code=`), 'the client is answered with the hand-over page');
  });

  test('a session ends after SESSION_TTL (12 h): prompt=none then answers login_required', async () => {
    const browser = new Browser(t.url);
    await loginAndConsent(browser, authorizeQuery(client.id, REDIRECT_URI), user);
    clock.advance((t.config.SESSION_TTL - 60) * 1000);
    assert.ok(new URL((await promptNone(browser)).headers.get('location')!).searchParams.get('code'));
    clock.advance(120 * 1000);
    assert.equal(new URL((await promptNone(browser)).headers.get('location')!).searchParams.get('error'), 'login_required');
  });
});

describe('browser session on an https issuer', () => {
  let t: TestApp;
  let client: Client;
  before(async () => {
    t = await startTestApp({ env: { ISSUER: 'https://login.example' } });
    client = (await createClient(t.core.db, t.core.clock)).client;
  });
  after(() => t.close());

  test('session cookie uses the __Host- prefix with Secure when the issuer is https', async () => {
    const response = await fetch(`http://127.0.0.1:${t.config.PORT}${authorizeQuery(client.id, REDIRECT_URI)}`, { redirect: 'manual' });
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith('__Host-gatehouse_session='));
    assert.ok(cookie, response.headers.getSetCookie().join(' | '));
    assert.match(cookie, /; Secure/i);
    assert.match(cookie, /; HttpOnly/i);
    assert.match(cookie, /; Path=\//);
    assert.doesNotMatch(cookie, /Domain=/i);
  });
});
