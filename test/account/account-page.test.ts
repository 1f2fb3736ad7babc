// /account (docs/second-factors.md, "The account page"): its own sign-in (password, then the second factor),
// TOTP enrollment that completes only after a correct code, recovery codes shown once, password change
// through the one password-change path, sessions and granted apps — each POST with the session's CSRF token.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { codeGrantTokens, createClient, refreshWith } from '../helpers/oauth-fixtures.js';
import { secretOfUri, totpAt } from '../helpers/totp.js';

import { enrollTotp } from '../interaction/mfa/enroll.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import { Browser, parseForm } from '../helpers/browser.js';
import { PASSWORD, SIGN_IN, createUser } from '../helpers/users.js';

const unescapeHtml = (s: string) =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"');

describe('the account page', () => {
  let t: TestApp;
  const clock = manualClock(1_800_000_000_000);
  before(async () => {
    t = await startTestApp({ clock, env: {} });
  });
  after(() => t.close());

  /** A browser signed in to /account with the password (and the TOTP code when `secret` is given). */
  async function signedIn(user: User, secret?: string, userAgent = 'TestBrowser/1.0'): Promise<{ browser: Browser; csrf: string; html: string }> {
    const browser = new Browser(t.url);
    const headers = { 'user-agent': userAgent };
    const login = parseForm(await (await browser.get('/account', headers)).text());
    assert.equal(login.action, '/account/login');
    const afterPassword = await browser.post(login.action, { ...login.hidden, username: user.username, password: PASSWORD }, headers);
    assert.equal(afterPassword.headers.get('location'), '/account');
    if (secret) {
      const second = await (await browser.get('/account', headers)).text();
      assert.match(second, /name="otp"/, 'an account with a second factor is asked for it');
      const form = parseForm(second);
      const done = await browser.post(form.action, { ...form.hidden, otp: totpAt(secret, clock.now()) }, headers);
      assert.equal(done.headers.get('location'), '/account');
    }
    const html = await (await browser.get('/account', headers)).text();
    assert.match(html, /<h1>Your account<\/h1>/);
    return { browser, csrf: parseForm(html).hidden.csrf!, html };
  }

  test('TOTP enrollment completes only after a correct code, shows the QR code as SVG and the URI as text, and the ten recovery codes once', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const { browser, csrf } = await signedIn(user);
    assert.equal((await browser.post('/account/totp', { csrf })).headers.get('location'), '/account');
    const page = await (await browser.get('/account')).text();
    assert.match(page, /<figure class="qr"[^>]*><svg /);
    const uri = unescapeHtml(/<code id="totp-uri">([^<]+)<\/code>/.exec(page)![1]!);
    const secret = secretOfUri(uri);
    // No inline script: only the passkey files of our own origin.
    assert.doesNotMatch(page.replace(/<script src="\/assets\/[a-z-]+\.js" defer><\/script>/g, ''), /<script/);

    const wrong = await browser.post('/account/totp/confirm', { csrf, otp: totpAt(secret, clock.now() + 120_000) });
    assert.equal(wrong.headers.get('location'), '/account?error=totp_code');
    assert.match(await (await browser.get('/account')).text(), /Turn on/, 'still waiting for a correct code');

    const confirmed = await browser.post('/account/totp/confirm', { csrf, otp: totpAt(secret, clock.now()) });
    assert.equal(confirmed.status, 200);
    assert.equal(confirmed.headers.get('cache-control'), 'no-store');
    const codes = [...(await confirmed.text()).matchAll(/<li><code>([A-Z2-7-]{19})<\/code><\/li>/g)].map((m) => m[1]);
    assert.equal(codes.length, 10);
    assert.match(await (await browser.get('/account')).text(), /Recovery codes left: <strong>10<\/strong>/);
  });

  test('password guessing at the account sign-in draws on the login failure budget: past it even the right password gets a 429', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const browser = new Browser(t.url);
    const login = parseForm(await (await browser.get('/account')).text());
    const attempt = (password: string) => browser.post(login.action, { ...login.hidden, username: user.username, password });
    const guesses = await Promise.all(Array.from({ length: t.core.config.RATE_LIMIT_LOGIN_FAILURES + 5 }, (_, i) => attempt(`wrong-${i}`)));
    assert.ok(
      guesses.some((r) => r.status === 429),
      'parallel guesses run into the budget',
    );
    assert.equal((await attempt(PASSWORD)).status, 429, 'the budget is spent: the right password waits too');
    clock.advance(61_000);
  });

  test('an account-page POST without the CSRF token is refused with 403', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const { browser } = await signedIn(user);
    assert.equal((await browser.post('/account/totp', {})).status, 403);
    assert.equal((await browser.post('/account/password', { current_password: PASSWORD, new_password: 'another password' })).status, 403);
    assert.match(await (await browser.get('/account')).text(), /Set up authenticator app/, 'nothing was started');
  });

  test('an account with a second factor signs in to the account page with its code, and a password-only session is stepped up', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const early = await signedIn(user); // password only, before the factor existed
    const { secret } = await enrollTotp(t, user);
    clock.advance(30_000);
    const stepUp = await (await early.browser.get('/account')).text();
    assert.match(stepUp, /name="otp"/, 'the older session must complete the second factor');
    await signedIn(user, secret);
  });

  test('changing the password needs the current one, ends the other sessions and revokes refresh tokens', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const fixture = await createClient(t.core.db, t.core.clock);
    const tokens = await codeGrantTokens(t, fixture, user, ['openid', 'offline_access']);
    const other = await signedIn(user, undefined, 'OtherDevice/2.0');
    const { browser, csrf } = await signedIn(user);
    const wrong = await browser.post('/account/password', { csrf, current_password: 'not it', new_password: 'a new password' });
    assert.equal(wrong.headers.get('location'), '/account?error=current_password');
    assert.equal((await refreshWith(t.url, fixture, tokens.refresh_token as string)).status, 200, 'a wrong current password changes nothing');
    const fresh = await codeGrantTokens(t, fixture, user, ['openid', 'offline_access']);

    const ok = await browser.post('/account/password', { csrf, current_password: PASSWORD, new_password: 'a new password' });
    assert.equal(ok.headers.get('location'), '/account?done=password');
    assert.match(await (await browser.get('/account')).text(), /Your account/, 'this session stays');
    assert.match(await (await other.browser.get('/account')).text(), /name="password"/, 'the other session was ended');
    assert.equal((await refreshWith(t.url, fixture, fresh.refresh_token as string)).body.error, 'invalid_grant');
  });

  test('sessions are listed with device, time and address; another user’s session cannot be ended from the account page', async () => {
    const alice = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const bob = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const bobsPhone = await signedIn(bob, undefined, 'BobPhone/9');
    const aliceLaptop = await signedIn(alice, undefined, 'AliceLaptop/1');
    const alicePhone = await signedIn(alice, undefined, 'AlicePhone/3');
    assert.match(alicePhone.html, /AliceLaptop\/1/);
    assert.match(alicePhone.html, /from 127\.0\.0\.1/);
    assert.doesNotMatch(alicePhone.html, /BobPhone/);

    const bobsId = /name="session" value="([^"]+)"/.exec(bobsPhone.html)![1]!;
    await alicePhone.browser.post('/account/sessions/end', { csrf: alicePhone.csrf, session: bobsId });
    assert.match(await (await bobsPhone.browser.get('/account')).text(), /Your account/, 'Bob is still signed in');

    const laptopId = [...alicePhone.html.matchAll(/<strong>AliceLaptop\/1<\/strong>[\s\S]*?name="session" value="([^"]+)"/g)][0]![1]!;
    const ended = await alicePhone.browser.post('/account/sessions/end', { csrf: alicePhone.csrf, session: laptopId });
    assert.equal(ended.headers.get('location'), '/account?done=session_ended');
    assert.match(await (await aliceLaptop.browser.get('/account')).text(), /name="password"/);
  });

  test('revoking an app from the account page ends its refresh tokens at once, and is a consent.revoked audit event', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const fixture = await createClient(t.core.db, t.core.clock, { name: 'Photo Printer' });
    const kept = await createClient(t.core.db, t.core.clock, { name: 'Calendar' });
    const tokens = await codeGrantTokens(t, fixture, user, ['openid', 'offline_access']);
    const keptTokens = await codeGrantTokens(t, kept, user, ['openid', 'offline_access']);
    const { browser, csrf, html } = await signedIn(user);
    assert.match(html, /<strong>Photo Printer<\/strong>/);
    assert.match(html, /offline_access openid/);
    const revoked = await browser.post('/account/apps/revoke', { csrf, client_id: fixture.client.id });
    assert.equal(revoked.headers.get('location'), '/account?done=app_revoked');
    assert.equal((await refreshWith(t.url, fixture, tokens.refresh_token as string)).body.error, 'invalid_grant');
    assert.equal((await refreshWith(t.url, kept, keptTokens.refresh_token as string)).status, 200, 'other apps keep their access');
    assert.doesNotMatch(await (await browser.get('/account')).text(), /Photo Printer/);
    const events = await t.core.db
      .selectFrom('audit_events')
      .selectAll()
      .where('type', '=', 'consent.revoked')
      .where('client_id', '=', fixture.client.id)
      .execute();
    assert.equal(events.length, 1, 'one consent.revoked event for the revoked app');
    assert.equal(events[0]?.subject, user.id);
  });

  test('removing the last second factor needs a fresh login', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const { secret } = await enrollTotp(t, user);
    clock.advance(30_000);
    const { browser, csrf } = await signedIn(user, secret);
    clock.advance(10 * 60_000);
    const stale = await browser.post('/account/totp/remove', { csrf });
    assert.equal(stale.headers.get('location'), '/account?error=reauth');
    assert.match(await (await browser.get('/account')).text(), /An authenticator app is set up/);

    const again = await signedIn(user, secret);
    const removed = await again.browser.post('/account/totp/remove', { csrf: again.csrf });
    assert.equal(removed.headers.get('location'), '/account?done=totp_removed');
    assert.match(await (await again.browser.get('/account')).text(), /Set up authenticator app/);
  });
});
