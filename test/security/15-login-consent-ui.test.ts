// Security suite, area 15: login and consent pages — CSRF, clickjacking, cookies, fixation, output encoding
// (RFC 6749 §10.12; RFC 9700 §4.11, §4.12, §4.16; OWASP session management).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loginAndConsent } from '../interaction/browserless.js';
import { registerClient, type RegisteredClient } from '../oauth/fixtures.js';
import { authorizeUrl, REG, startWorld, type World } from './helpers/world.js';
import { Browser, parseForm } from '../helpers/browser.js';
import { PASSWORD } from '../helpers/users.js';

let w: World;
before(async () => {
  w = await startWorld();
});
after(() => w.close());

/** Opens /authorize in a fresh browser and returns the login page. */
async function loginPage(browser = new Browser(w.url), clientId = w.A.id, params: Record<string, string> = {}) {
  const first = await browser.get(authorizeUrl(clientId, params));
  assert.equal(first.status, 303);
  const response = await browser.get(first.headers.get('location')!);
  const html = await response.text();
  return { browser, response, html, form: parseForm(html) };
}

/** Logs in and returns the consent page (A is a consent-asking client). */
async function consentPage(clientId = w.A.id) {
  const { browser, form } = await loginPage(new Browser(w.url), clientId, { prompt: 'consent', scope: 'openid profile email' });
  const afterLogin = await browser.post(form.action, { ...form.hidden, username: w.U1.username, password: PASSWORD });
  assert.equal(afterLogin.status, 303);
  const response = await browser.get(afterLogin.headers.get('location')!);
  const html = await response.text();
  assert.match(html, /name="decision"/);
  return { browser, response, html, form: parseForm(html) };
}

function assertPageHeaders(response: Response): void {
  const csp = response.headers.get('content-security-policy') ?? '';
  const directives = new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name!, values]),
  );
  const scripts = directives.get('script-src') ?? directives.get('default-src');
  assert.ok(scripts, 'script-src or default-src is set');
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.match(csp, /frame-ancestors 'none'/);
  // Resources load only from self; form-action may name the client's redirect origin (the form's 303 target).
  for (const name of ['default-src', 'script-src', 'style-src', 'img-src', 'font-src', 'connect-src']) {
    for (const value of directives.get(name) ?? []) assert.ok(["'self'", "'none'"].includes(value), `${name} allows ${value}`);
  }
  assert.equal(response.headers.get('x-frame-options'), 'DENY');
  assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
  assert.match(response.headers.get('cache-control') ?? '', /no-store/);
}

describe('15. login and consent UI', () => {
  test('15.184 consent approval POST from a cross-site Origin (no valid CSRF token) → 403, no code', async () => {
    const { browser, form } = await consentPage();
    const { csrf: _csrf, ...withoutToken } = form.hidden;
    const attempts = [
      browser.post(form.action, { ...withoutToken, decision: 'allow' }, { origin: 'https://evil.example' }),
      browser.post(form.action, { ...form.hidden, decision: 'allow' }, { origin: 'https://evil.example' }),
      browser.post(form.action, { ...form.hidden, csrf: 'forged', decision: 'allow' }),
    ];
    for (const response of await Promise.all(attempts)) {
      assert.equal(response.status, 403);
      assert.doesNotMatch(response.headers.get('location') ?? '', /code=/);
    }
  });

  test('15.184+ login POST without the CSRF token, or cross-site, → 403; the session is not logged in', async () => {
    const { browser, form } = await loginPage();
    const tokenName = Object.keys(form.hidden).find((k) => /csrf/i.test(k));
    assert.ok(tokenName, 'the login form carries a CSRF token');
    const { [tokenName!]: _t, ...without } = form.hidden;
    assert.equal((await browser.post(form.action, { ...without, username: w.U1.username, password: PASSWORD })).status, 403);
    assert.equal(
      (await browser.post(form.action, { ...form.hidden, username: w.U1.username, password: PASSWORD }, { origin: 'https://evil.example' })).status,
      403,
    );
    const none = await browser.get(authorizeUrl(w.A.id, { prompt: 'none', state: 's' }));
    assert.equal(new URL(none.headers.get('location')!).searchParams.get('error'), 'login_required');
  });

  test('15.185 GET /consent?approve=1 or any approving GET → no code issued', async () => {
    const { browser, form } = await consentPage();
    const query = new URLSearchParams({ ...form.hidden, decision: 'allow', approve: '1' });
    for (const path of [`${form.action}?${query}`, `/consent?approve=1`, `/interaction/consent?${query}`]) {
      const response = await browser.get(path);
      assert.doesNotMatch(response.headers.get('location') ?? '', /code=/, path);
      assert.ok(response.status < 500);
    }
  });

  test('15.187 login, consent and error pages → strict CSP, no third-party resources, no-referrer, no-store, DENY framing', async () => {
    const login = await loginPage();
    assertPageHeaders(login.response);
    const consent = await consentPage();
    assertPageHeaders(consent.response);
    const error = await fetch(`${w.url}${authorizeUrl('nope')}`, { redirect: 'manual' });
    assertPageHeaders(error);
    for (const html of [login.html, consent.html]) {
      // The only scripts: the passkey files of our own origin, as empty <script src> tags (no inline script).
      assert.doesNotMatch(html.replace(/<script src="\/assets\/[a-z-]+\.js" defer><\/script>/g, ''), /<script/i, 'no other script');
      assert.doesNotMatch(html, /(src|href)="https?:\/\/(?!127\.0\.0\.1)/, 'no third-party resource');
      assert.doesNotMatch(html, /\son[a-z]+=/i, 'no inline event handlers');
    }
  });

  test('15.188 successful login POST → 303 See Other, never 307/308; credentials never re-posted to the client', async () => {
    const { browser, form } = await loginPage();
    const response = await browser.post(form.action, { ...form.hidden, username: w.U1.username, password: PASSWORD });
    assert.equal(response.status, 303);
    assert.doesNotMatch(response.headers.get('location') ?? '', /password|username/);
    const location = await loginAndConsent(browser, authorizeUrl(w.A.id), w.U1);
    assert.doesNotMatch(location.href, /password/);
  });

  test('15.188+ a failed login answers the same page for an unknown user and a wrong password', async () => {
    const strip = (s: string) => s.replace(/value="[^"]*"/g, '').replace(/action="[^"]*"/g, '');
    const a = await loginPage();
    const wrong = await a.browser.post(a.form.action, { ...a.form.hidden, username: w.U1.username, password: 'wrong-password' });
    const b = await loginPage();
    const unknown = await b.browser.post(b.form.action, { ...b.form.hidden, username: 'nobody-here', password: 'wrong-password' });
    assert.equal(wrong.status, unknown.status);
    assert.equal(strip(await wrong.text()).replace(w.U1.username, 'X'), strip(await unknown.text()).replace('nobody-here', 'X'));
  });

  test('15.190 session cookie after login differs from the pre-login value; the pre-login value gives no session', async () => {
    const { browser, form } = await loginPage();
    const before = new Map(browser.cookies);
    assert.ok(before.size > 0, 'a pre-login cookie exists');
    await browser.post(form.action, { ...form.hidden, username: w.U1.username, password: PASSWORD });
    for (const [name, value] of before) if (browser.cookies.has(name)) assert.notEqual(browser.cookies.get(name), value, `${name} rotated`);
    const attacker = new Browser(w.url);
    for (const [name, value] of before) attacker.cookies.set(name, value);
    const none = await attacker.get(authorizeUrl(w.A.id, { prompt: 'none', state: 's' }));
    assert.equal(new URL(none.headers.get('location')!).searchParams.get('error'), 'login_required');
  });

  test('15.190+ cookies are HttpOnly and SameSite', async () => {
    const { browser, form } = await loginPage();
    const response = await browser.post(form.action, { ...form.hidden, username: w.U1.username, password: PASSWORD });
    for (const line of response.headers.getSetCookie()) {
      assert.match(line, /HttpOnly/i);
      assert.match(line, /SameSite=(Lax|Strict)/i);
    }
  });

  test('15.191 consent page shows client name and each scope; <script>/javascript: in client metadata rendered inert', async () => {
    const evilName = '<script>alert(1)</script><img src=x onerror=alert(2)>';
    let evil: RegisteredClient;
    try {
      evil = await registerClient(w.t.core, {
        client_name: evilName,
        grant_types: ['authorization_code'],
        redirect_uris: [REG],
        scope: 'openid profile email',
        token_endpoint_auth_method: 'none',
        logo_uri: 'javascript:alert(3)',
      } as never);
    } catch {
      evil = await registerClient(w.t.core, {
        client_name: evilName,
        grant_types: ['authorization_code'],
        redirect_uris: [REG],
        scope: 'openid profile email',
        token_endpoint_auth_method: 'none',
      });
    }
    const { html } = await consentPage(evil.id);
    assert.doesNotMatch(html, /<script>alert/);
    assert.doesNotMatch(html, /<img src=x/);
    assert.doesNotMatch(html, /javascript:/i);
    assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    for (const scope of ['profile', 'email']) assert.match(html, new RegExp(scope, 'i'));
    const plain = await consentPage();
    assert.match(plain.html, /Client A/);
  });

  test('15.193 after logout → cookie cleared, the old value rejected, prompt=none gives login_required', async () => {
    const browser = new Browser(w.url);
    await loginAndConsent(browser, authorizeUrl(w.A.id), w.U1);
    const old = new Map(browser.cookies);
    const page = await browser.get('/logout');
    assert.ok(page.status === 200 || page.status === 303);
    if (page.status === 200) {
      const html = await page.text();
      const form = parseForm(html);
      const out = await browser.post(form.action, { ...form.hidden });
      assert.ok([200, 303].includes(out.status));
      assert.ok(
        out.headers.getSetCookie().some((l) => /max-age=0|expires=Thu, 01 Jan 1970/i.test(l)),
        'cookie cleared',
      );
    }
    const replay = new Browser(w.url);
    for (const [name, value] of old) replay.cookies.set(name, value);
    for (const b of [browser, replay]) {
      const none = await b.get(authorizeUrl(w.A.id, { prompt: 'none', state: 's' }));
      assert.equal(new URL(none.headers.get('location')!).searchParams.get('error'), 'login_required');
    }
  });

  test('15.x the login form posts to the same origin and autocompletes no password into a GET', async () => {
    const { html, form } = await loginPage();
    assert.ok(form.action.startsWith('/'), form.action);
    assert.match(html, /<form method="post"/);
    assert.match(html, /type="password"/);
  });
});
