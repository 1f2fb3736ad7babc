// A browser on /account without Chromium: its sign-in form, the second-factor form, the passkey JSON
// endpoints, and the signed-in page's CSRF token. Not a test file.
import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app.js';
import { Browser, parseForm } from '../helpers/browser.js';
import type { SoftPasskey } from '../helpers/soft-passkey.js';
import { PASSWORD } from '../helpers/users.js';

export class AccountBrowser {
  readonly browser: Browser;
  constructor(readonly t: TestApp) {
    this.browser = new Browser(t.url);
  }

  /** The form the page shows now (sign-in, second factor, or the account page's first form). */
  async form() {
    return parseForm(await (await this.browser.get('/account')).text());
  }

  async password(username: string, password = PASSWORD): Promise<Response> {
    const login = await this.form();
    assert.equal(login.action, '/account/login');
    return this.browser.post(login.action, { ...login.hidden, username, password });
  }

  /** Posts `otp` or `recovery_code` to the second-factor form the page shows. */
  async secondFactor(field: 'otp' | 'recovery_code', code: string): Promise<Response> {
    const form = await this.form();
    assert.equal(form.action, '/account/second-factor');
    return this.browser.post(form.action, { ...form.hidden, [field]: code });
  }

  postJson(path: string, body: object): Promise<Response> {
    return this.browser.postJson(path, body);
  }

  /** A passkey sign-in (second factor when the page waits for one, else passwordless). */
  async passkey(key: SoftPasskey): Promise<Response> {
    // The page's CSRF token (a passkey-only second-factor page has no <form>, only the passkey section).
    const csrf = /name="csrf" value="([^"]+)"/.exec(await (await this.browser.get('/account')).text())![1]!;
    const options = (await (await this.postJson('/account/passkey/options', { csrf })).json()) as { challenge: string };
    return this.postJson('/account/passkey/verify', { csrf, response: key.assert(options.challenge, this.t.config.ISSUER) });
  }

  /** The signed-in page and its CSRF token (fails when the page is not the account page). */
  async page(): Promise<{ html: string; csrf: string }> {
    const html = await (await this.browser.get('/account')).text();
    assert.match(html, /<h1>Your account<\/h1>/);
    return { html, csrf: parseForm(html).hidden.csrf! };
  }
}
