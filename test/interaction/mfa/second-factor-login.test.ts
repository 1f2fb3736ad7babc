// Sign-in of an account with a second factor (docs/second-factors.md): the password alone signs nothing in;
// the second-factor page (input `otp`, or `recovery_code`) has the login page's CSRF, framing and no-store
// rules; a code is accepted once (RFC 6238 5.2), a recovery code once; failures spend the login budget;
// and the consent step cannot be reached without the second factor.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../../src/clock.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createClient, REDIRECT_URI } from '../../helpers/oauth-fixtures.js';
import { totpAt } from '../../helpers/totp.js';
import type { Client } from '../../../src/storage/repositories/clients-repository.js';
import { authorizeQuery, openInteraction, submitLogin } from '../browserless.js';
import { enrollTotp } from './enroll.js';
import { Browser, parseForm } from '../../helpers/browser.js';
import { SIGN_IN, createUser } from '../../helpers/users.js';
import { clientAnswer } from '../../helpers/client-answer.js';

const LIMIT = 4;

describe('second factor at sign-in', () => {
  let t: TestApp;
  let client: Client;
  let consentClient: Client;
  const clock = manualClock(1_800_000_000_000);
  before(async () => {
    t = await startTestApp({ clock, env: { RATE_LIMIT_LOGIN_FAILURES: String(LIMIT) } });
    client = (await createClient(t.core.db, t.core.clock)).client;
    consentClient = (await createClient(t.core.db, t.core.clock, { skipConsent: false })).client;
  });
  after(() => t.close());

  async function enrolledUser() {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const factors = await enrollTotp(t, user);
    clock.advance(30_000);
    return { user, ...factors };
  }

  /** Password accepted: returns the browser at the second-factor page. */
  async function atSecondFactor(username: string, clientId = client.id) {
    const browser = new Browser(t.url);
    const { form, path } = await openInteraction(browser, authorizeQuery(clientId, REDIRECT_URI));
    const login = await submitLogin(browser, form, username);
    assert.equal(login.status, 303);
    assert.equal(login.headers.get('location'), path, 'the password alone goes back to the interaction, not to the client');
    const page = await browser.get(path);
    const html = await page.text();
    return { browser, path, page, html, form: parseForm(html) };
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

  test('the password is followed by the second-factor page, which has the login page headers and an otp input', async () => {
    const { user, secret } = await enrolledUser();
    const { browser, page, html, form } = await atSecondFactor(user.username);
    assert.equal(page.status, 200);
    assert.match(html, /<input id="otp" name="otp"/);
    assert.match(html, /<input id="recovery_code" name="recovery_code"/);
    assert.match(html, /<label for="otp">/);
    assert.doesNotMatch(html, /<script/);
    assert.match(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    assert.equal(page.headers.get('cache-control'), 'no-store');
    assert.ok(form.hidden.csrf);
    const done = await browser.post(form.action, { ...form.hidden, otp: totpAt(secret, clock.now()) });
    const location = await clientAnswer(done);
    assert.equal(location.origin + location.pathname, REDIRECT_URI);
    assert.ok(location.searchParams.get('code'));
  });

  test('a second factor cannot be skipped by posting straight to the consent step', async () => {
    const { user } = await enrolledUser();
    const { browser, path, form } = await atSecondFactor(user.username, consentClient.id);
    const before = await codesIssued();
    const skipped = await browser.post(`${path}/consent`, { csrf: form.hidden.csrf!, decision: 'allow' });
    assert.equal(skipped.status, 303);
    assert.equal(skipped.headers.get('location'), path, 'back to the interaction, not to the client');
    assert.equal(await codesIssued(), before);
    assert.match(await (await browser.get(path)).text(), /name="otp"/, 'the interaction still asks for the second factor');
  });

  test('a second-factor POST without the CSRF token is refused with 403', async () => {
    const { user, secret } = await enrolledUser();
    const { browser, form } = await atSecondFactor(user.username);
    const response = await browser.post(form.action, { otp: totpAt(secret, clock.now()) });
    assert.equal(response.status, 403);
  });

  test('a replayed TOTP code is refused within its window', async () => {
    const { user, secret } = await enrolledUser();
    const code = totpAt(secret, clock.now());
    const first = await atSecondFactor(user.username);
    const ok = await first.browser.post(first.form.action, { ...first.form.hidden, otp: code });
    assert.match((await clientAnswer(ok)).href, /^https:\/\/client\.example\/cb\?code=/);
    clock.advance(10_000); // same step
    const again = await atSecondFactor(user.username);
    const replay = await again.browser.post(again.form.action, { ...again.form.hidden, otp: code });
    assert.equal(replay.headers.get('location'), `${again.path}?failed=1`);
    assert.match(await (await again.browser.get(`${again.path}?failed=1`)).text(), /already used/);
  });

  test('a TOTP code sent twice at once signs in only one of the two requests (replay, in parallel)', async () => {
    const { user, secret } = await enrolledUser();
    const a = await atSecondFactor(user.username);
    const b = await atSecondFactor(user.username);
    const code = totpAt(secret, clock.now());
    const answers = await Promise.all([a, b].map((s) => s.browser.post(s.form.action, { ...s.form.hidden, otp: code })));
    // The loser goes back to the page (303 to ours); the winner is answered with the hand-over page.
    const toClient = answers.filter((r) => r.status === 200);
    assert.equal(toClient.length, 1);
    assert.ok((await clientAnswer(toClient[0]!)).href.startsWith(REDIRECT_URI));
    const loser = answers.find((r) => r.status !== 200)!;
    assert.equal(loser.status, 303);
    assert.ok(!loser.headers.get('location')!.startsWith(REDIRECT_URI));
  });

  test('a recovery code signs in once and never again', async () => {
    const { user, recoveryCodes } = await enrolledUser();
    const first = await atSecondFactor(user.username);
    const ok = await first.browser.post(first.form.action, { ...first.form.hidden, recovery_code: recoveryCodes[3]!.toLowerCase() });
    assert.match((await clientAnswer(ok)).href, /^https:\/\/client\.example\/cb\?code=/);
    const again = await atSecondFactor(user.username);
    const reused = await again.browser.post(again.form.action, { ...again.form.hidden, recovery_code: recoveryCodes[3]! });
    assert.equal(reused.headers.get('location'), `${again.path}?failed=1`);
  });

  test('wrong second-factor codes count against the login limits: past the limit even the right code gets a 429', async () => {
    const { user, secret } = await enrolledUser();
    const { browser, form } = await atSecondFactor(user.username); // the right password refunds its charge
    for (let i = 0; i < LIMIT; i++) {
      const wrong = await browser.post(form.action, { ...form.hidden, otp: '000000' === totpAt(secret, clock.now()) ? '111111' : '000000' });
      assert.equal(wrong.status, 303);
    }
    const blocked = await browser.post(form.action, { ...form.hidden, otp: totpAt(secret, clock.now()) });
    assert.equal(blocked.status, 429);
  });

  test('an account without a second factor still signs in with its password alone', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const browser = new Browser(t.url);
    const { form } = await openInteraction(browser, authorizeQuery(client.id, REDIRECT_URI));
    const done = await submitLogin(browser, form, user.username);
    assert.match((await clientAnswer(done)).href, /^https:\/\/client\.example\/cb\?code=/);
  });
});
