// RFC 6749 10.12 / OWASP: every form POST carries the session's synchroniser token; a missing or foreign
// token, or a cross-site origin, is refused with 403 and nothing is approved. Approving is never a GET.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app.js';
import { REDIRECT_URI } from '../helpers/oauth-fixtures.js';
import { authorizeQuery, openInteraction, submitLogin } from './browserless.js';
import type { Client } from '../../src/storage/repositories/clients-repository.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import { Browser, parseForm } from '../helpers/browser.js';
import { startSignInWorld } from './sign-in-world.js';
import { clientAnswer } from '../helpers/client-answer.js';

describe('CSRF protection of the login and consent forms', () => {
  let t: TestApp, client: Client, user: User;
  before(async () => ({ t, client, user } = await startSignInWorld({ skipConsent: false })));
  after(() => t.close());

  /** A browser that is logged in and looking at the consent page. */
  async function atConsent(): Promise<{ browser: Browser; action: string; csrf: string; path: string }> {
    const browser = new Browser(t.url);
    const { form, path } = await openInteraction(browser, authorizeQuery(client.id, REDIRECT_URI, { prompt: 'consent' }));
    const login = await submitLogin(browser, form, user.username);
    assert.equal(login.headers.get('location'), path);
    const consent = parseForm(await (await browser.get(path)).text());
    return { browser, action: consent.action, csrf: consent.hidden.csrf!, path };
  }

  const codesIssued = async () =>
    Number(
      (
        await t.core.db
          .selectFrom('authorization_codes')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  test('login POST without the CSRF token is refused with 403', async () => {
    const browser = new Browser(t.url);
    const { form } = await openInteraction(browser, authorizeQuery(client.id, REDIRECT_URI));
    const response = await browser.post(form.action, { username: user.username, password: 'correct horse battery staple' });
    assert.equal(response.status, 403);
  });

  test('consent POST without the CSRF token is refused with 403 and issues no code', async () => {
    const { browser, action } = await atConsent();
    const before = await codesIssued();
    const response = await browser.post(action, { decision: 'allow' });
    assert.equal(response.status, 403);
    assert.equal(await codesIssued(), before);
  });

  test('consent POST with a foreign CSRF token (another browser session) is refused with 403', async () => {
    const victim = await atConsent();
    const attacker = await atConsent();
    const response = await victim.browser.post(victim.action, { csrf: attacker.csrf, decision: 'allow' });
    assert.equal(response.status, 403);
  });

  test('consent POST from a cross-site Origin is refused with 403 even with the right token', async () => {
    const { browser, action, csrf } = await atConsent();
    const before = await codesIssued();
    const response = await browser.post(action, { csrf, decision: 'allow' }, { origin: 'https://evil.example' });
    assert.equal(response.status, 403);
    const fetchSite = await browser.post(action, { csrf, decision: 'allow' }, { 'sec-fetch-site': 'cross-site' });
    assert.equal(fetchSite.status, 403);
    assert.equal(await codesIssued(), before);
  });

  test('an approving GET issues no code: approval needs the POST', async () => {
    const { browser, action, path } = await atConsent();
    const before = await codesIssued();
    for (const url of [`${action}?decision=allow`, `${path}?decision=allow&approve=1`]) {
      const response = await browser.get(url);
      assert.notEqual(response.status, 303, url);
      await response.body?.cancel();
    }
    assert.equal(await codesIssued(), before);
  });

  test('the same token with Origin null (our no-referrer pages) and same origin is accepted', async () => {
    const { browser, action, csrf } = await atConsent();
    const response = await browser.post(action, { csrf, decision: 'allow' }, { origin: 'null' });
    assert.ok((await clientAnswer(response)).searchParams.get('code'));
  });
});
