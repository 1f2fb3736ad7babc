// RFC 9700 4.16 / 4.2.4: every page of the browser face refuses framing (X-Frame-Options DENY and CSP
// frame-ancestors 'none'), runs no inline script, sends no referrer and is never cached; and allows form
// targets of its own origin only (form-action 'self' alone): the client is answered after our forms with the
// hand-over page, never a redirect checked against form-action (src/interaction/pages/hand-over-page.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app.js';
import { REDIRECT_URI } from '../helpers/oauth-fixtures.js';
import { authorizeQuery, openInteraction, submitLogin } from './browserless.js';
import type { Client } from '../../src/storage/repositories/clients-repository.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import { Browser, parseForm } from '../helpers/browser.js';
import { createClient } from '../helpers/oauth-fixtures.js';
import { totpAt } from '../helpers/totp.js';
import { createUser, SIGN_IN } from '../helpers/users.js';
import { enrollTotp } from './mfa/enroll.js';
import { startSignInWorld } from './sign-in-world.js';

function assertPageHeaders(response: Response, name: string): void {
  const h = response.headers;
  assert.equal(h.get('x-frame-options'), 'DENY', name);
  const csp = h.get('content-security-policy') ?? '';
  assert.match(csp, /frame-ancestors 'none'/, name);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, name);
  assert.match(csp, /default-src 'none'/, name);
  assert.equal(h.get('referrer-policy'), 'no-referrer', name);
  assert.equal(h.get('cache-control'), 'no-store', name);
}

describe('page security headers', () => {
  let t: TestApp, client: Client, user: User;
  before(async () => ({ t, client, user } = await startSignInWorld({ skipConsent: false })));
  after(() => t.close());

  test('frame and CSP headers on the login page, and no inline script in it', async () => {
    const { response, html } = await openInteraction(new Browser(t.url), authorizeQuery(client.id, REDIRECT_URI));
    assertPageHeaders(response, 'login');
    // The only scripts are the passkey files of our own origin (script-src 'self'), empty <script src> tags.
    const ownScripts = /<script src="\/assets\/[a-z-]+\.js" defer><\/script>/g;
    assert.match(html, ownScripts);
    assert.doesNotMatch(html.replace(ownScripts, ''), /<script|javascript:|\son[a-z]+=/i);
  });

  test('frame and CSP headers on the consent page', async () => {
    const browser = new Browser(t.url);
    const { form, path } = await openInteraction(browser, authorizeQuery(client.id, REDIRECT_URI));
    await submitLogin(browser, form, user.username);
    const response = await browser.get(path);
    assert.match(await response.text(), /name="decision"/);
    assertPageHeaders(response, 'consent');
  });

  test('frame and CSP headers on the /authorize error page and on the 403 CSRF page', async () => {
    assertPageHeaders(await fetch(t.url + authorizeQuery('unknown', REDIRECT_URI), { redirect: 'manual' }), 'authorize error page');
    const browser = new Browser(t.url);
    const { form } = await openInteraction(browser, authorizeQuery(client.id, REDIRECT_URI));
    const refused = await browser.post(form.action, { username: 'x', password: 'y' });
    assert.equal(refused.status, 403);
    assertPageHeaders(refused, 'csrf refusal');
  });

  test("the login, second-factor and consent pages' CSP has form-action 'self' and nothing else, whatever the client's redirect_uri (another origin, a native app's scheme)", async () => {
    for (const redirectUri of ['https://elsewhere.example:8443/cb', 'com.example.app:/cb']) {
      const other = (await createClient(t.core.db, t.core.clock, { skipConsent: false, redirectUris: [redirectUri] })).client;
      const someone = await createUser(t.core.db, t.core.clock, SIGN_IN);
      const { secret } = await enrollTotp(t, someone);
      const browser = new Browser(t.url);
      const { response, form, path } = await openInteraction(browser, authorizeQuery(other.id, redirectUri));
      const formAction = (page: Response) => /(?:^|;)\s*form-action ([^;]*)/.exec(page.headers.get('content-security-policy') ?? '')?.[1];
      assert.equal(formAction(response), "'self'", `login page, ${redirectUri}`);
      await submitLogin(browser, form, someone.username);
      const second = await browser.get(path);
      const secondForm = parseForm(await second.clone().text());
      assert.equal(formAction(second), "'self'", `second-factor page, ${redirectUri}`);
      await browser.post(secondForm.action, { ...secondForm.hidden, otp: totpAt(secret, t.core.clock.now() + 30_000) });
      const consent = await browser.get(path);
      assert.match(await consent.clone().text(), /name="decision"/);
      assert.equal(formAction(consent), "'self'", `consent page, ${redirectUri}`);
    }
  });

  test('frame and CSP headers on the logout pages', async () => {
    assertPageHeaders(await fetch(`${t.url}/logout`), 'logout');
    assertPageHeaders(await fetch(`${t.url}/logout/done`), 'logged out');
  });
});
