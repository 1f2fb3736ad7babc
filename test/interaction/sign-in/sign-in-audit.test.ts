// The one sign-in pipeline (src/interaction/sign-in/): every method — password, TOTP, recovery code,
// passkey — on both faces (/authorize's pages and /account) leaves exactly one audit row of the same shape:
// login.succeeded naming the user, the face, the method and the amr; login.failed with the reason; and a
// used-up budget is login.locked_out.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../../src/clock.js';
import type { Client } from '../../../src/storage/repositories/clients-repository.js';
import { AccountBrowser } from '../../account/account-browser.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { Browser, parseForm } from '../../helpers/browser.js';
import { createClient, REDIRECT_URI } from '../../helpers/oauth-fixtures.js';
import { addSoftPasskey } from '../../helpers/soft-passkey.js';
import { totpAt } from '../../helpers/totp.js';
import { SIGN_IN, createUser } from '../../helpers/users.js';
import { authorizeQuery, openInteraction, submitLogin } from '../browserless.js';
import { enrollTotp } from '../mfa/enroll.js';
import { clientAnswer } from '../../helpers/client-answer.js';

interface Row {
  type: string;
  subject: string | null;
  client_id: string | null;
  actor_kind: string;
  details: Record<string, unknown>;
}

describe('sign-in audit: one row per attempt, one shape, every method on both faces', () => {
  let t: TestApp;
  let client: Client;
  const clock = manualClock(1_800_000_000_000);
  before(async () => {
    t = await startTestApp({ clock, env: { RATE_LIMIT_LOGIN_FAILURES: '3' } });
    client = (await createClient(t.core.db, t.core.clock, { skipConsent: true })).client;
  });
  after(() => t.close());

  const rows = async (userId: string): Promise<Row[]> =>
    (await t.core.db
      .selectFrom('audit_events')
      .select(['type', 'subject', 'client_id', 'actor_kind', 'details'])
      .where('subject', '=', userId)
      .where('type', 'like', 'login.%')
      .orderBy('occurred_at')
      .execute()) as Row[];

  /** A user with TOTP (its secret and recovery codes) and a software passkey; the clock is past the enrollment step. */
  async function userWithFactors() {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const { secret, recoveryCodes } = await enrollTotp(t, user);
    const key = await addSoftPasskey(t.core.db, t.core.clock, user.id);
    clock.advance(30_000);
    return { user, secret, recoveryCodes, key };
  }

  async function atSecondFactor(username: string) {
    const browser = new Browser(t.url);
    const { form, path } = await openInteraction(browser, authorizeQuery(client.id, REDIRECT_URI));
    assert.equal((await submitLogin(browser, form, username)).status, 303);
    return { browser, path, form: parseForm(await (await browser.get(path)).text()) };
  }

  const expectOne = (found: Row[], type: string, details: Record<string, unknown>, clientId: string | null) => {
    const matching = found.filter((r) => r.type === type);
    assert.equal(matching.length, 1, `one ${type}: ${JSON.stringify(found)}`);
    assert.equal(matching[0]!.client_id, clientId);
    for (const [name, value] of Object.entries(details)) assert.equal(matching[0]!.details[name], value, `${type}.details.${name}`);
  };

  test('password on /authorize: login.failed (wrong_password) then login.succeeded, with the client', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const browser = new Browser(t.url);
    const { form } = await openInteraction(browser, authorizeQuery(client.id, REDIRECT_URI));
    await submitLogin(browser, form, user.username, 'not it');
    const again = await openInteraction(new Browser(t.url), authorizeQuery(client.id, REDIRECT_URI));
    await submitLogin(new Browser(t.url), again.form, user.username);
    const retry = new Browser(t.url);
    const page = await openInteraction(retry, authorizeQuery(client.id, REDIRECT_URI));
    assert.ok((await clientAnswer(await submitLogin(retry, page.form, user.username))).searchParams.get('code'), 'signed in');
    const found = await rows(user.id);
    expectOne(found, 'login.failed', { face: 'interaction', method: 'password', reason: 'wrong_password' }, client.id);
    expectOne(found, 'login.succeeded', { face: 'interaction', method: 'password', amr: 'pwd' }, client.id);
  });

  test('a sign-in commits with its login.succeeded or not at all: when the event cannot be written, no session, no cookie, no amr', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    // The audit write fails for this user's sign-in (a subscriber after the database's, in the same transaction).
    t.core.audit.subscribe((event) => {
      if (event.type === 'login.succeeded' && event.subject === user.id) throw new Error('the audit log is unavailable');
    });
    const browser = new Browser(t.url);
    const { form } = await openInteraction(browser, authorizeQuery(client.id, REDIRECT_URI));
    const cookiesBefore = new Map(browser.cookies);
    const answer = await submitLogin(browser, form, user.username);
    assert.equal(answer.status, 500, 'the sign-in failed');
    assert.deepEqual(browser.cookies, cookiesBefore, 'no new session cookie');
    const sessions = await t.core.db.selectFrom('browser_sessions').select(['id_hash']).where('user_id', '=', user.id).execute();
    assert.deepEqual(sessions, [], 'no signed-in session was left behind');
    const amr = await t.core.db
      .selectFrom('session_authentications as a')
      .innerJoin('browser_sessions as s', 's.id_hash', 'a.session_hash')
      .select('a.amr')
      .where('s.user_id', '=', user.id)
      .execute();
    assert.deepEqual(amr, []);
    assert.deepEqual(
      (await rows(user.id)).filter((r) => r.type === 'login.succeeded'),
      [],
    );
  });

  test('TOTP on /authorize: a wrong code is login.failed, the right one login.succeeded with amr pwd otp mfa', async () => {
    const { user, secret } = await userWithFactors();
    const { browser, form } = await atSecondFactor(user.username);
    await browser.post(form.action, { ...form.hidden, otp: totpAt(secret, clock.now() + 300_000) });
    await browser.post(form.action, { ...form.hidden, otp: totpAt(secret, clock.now()) });
    const found = await rows(user.id);
    expectOne(found, 'login.failed', { face: 'interaction', method: 'totp', reason: 'wrong_otp' }, client.id);
    expectOne(found, 'login.succeeded', { face: 'interaction', method: 'totp', amr: 'pwd otp mfa' }, client.id);
  });

  test('recovery code on /authorize: login.succeeded with the method recovery_code', async () => {
    const { user, recoveryCodes } = await userWithFactors();
    const { browser, form } = await atSecondFactor(user.username);
    await browser.post(form.action, { ...form.hidden, recovery_code: recoveryCodes[0]! });
    expectOne(await rows(user.id), 'login.succeeded', { face: 'interaction', method: 'recovery_code', amr: 'pwd otp mfa' }, client.id);
  });

  test('passkey on /authorize (passwordless): login.succeeded with the method passkey', async () => {
    const { user, key } = await userWithFactors();
    const browser = new Browser(t.url);
    const { form, path } = await openInteraction(browser, authorizeQuery(client.id, REDIRECT_URI));
    const post = (endpoint: string, body: object) =>
      fetch(`${t.url}${path}/passkey/${endpoint}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: browser.cookieHeader() },
        body: JSON.stringify(body),
      });
    const options = (await (await post('options', { csrf: form.hidden.csrf })).json()) as { challenge: string };
    const verified = await post('verify', { csrf: form.hidden.csrf, response: key.assert(options.challenge, t.config.ISSUER) });
    assert.equal(verified.status, 200, await verified.clone().text());
    expectOne(await rows(user.id), 'login.succeeded', { face: 'interaction', method: 'passkey', amr: 'hwk user mfa' }, client.id);
  });

  test('password on /account: login.failed then login.succeeded, without a client', async () => {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    await new AccountBrowser(t).password(user.username, 'not it');
    const browser = new AccountBrowser(t);
    assert.equal((await browser.password(user.username)).headers.get('location'), '/account');
    await browser.page();
    const found = await rows(user.id);
    expectOne(found, 'login.failed', { face: 'account', method: 'password', reason: 'wrong_password' }, null);
    expectOne(found, 'login.succeeded', { face: 'account', method: 'password', amr: 'pwd' }, null);
  });

  test('TOTP on /account: a wrong code is login.failed, the right one login.succeeded', async () => {
    const { user, secret } = await userWithFactors();
    const browser = new AccountBrowser(t);
    await browser.password(user.username);
    await browser.secondFactor('otp', totpAt(secret, clock.now() + 300_000));
    await browser.secondFactor('otp', totpAt(secret, clock.now()));
    await browser.page();
    const found = await rows(user.id);
    expectOne(found, 'login.failed', { face: 'account', method: 'totp', reason: 'wrong_otp' }, null);
    expectOne(found, 'login.succeeded', { face: 'account', method: 'totp', amr: 'pwd otp mfa' }, null);
  });

  test('recovery code on /account: login.succeeded with the method recovery_code', async () => {
    const { user, recoveryCodes } = await userWithFactors();
    const browser = new AccountBrowser(t);
    await browser.password(user.username);
    await browser.secondFactor('recovery_code', recoveryCodes[1]!);
    await browser.page();
    expectOne(await rows(user.id), 'login.succeeded', { face: 'account', method: 'recovery_code', amr: 'pwd otp mfa' }, null);
  });

  test('passkey on /account (second factor after the password): login.succeeded with the method passkey', async () => {
    const { user, key } = await userWithFactors();
    const browser = new AccountBrowser(t);
    await browser.password(user.username);
    const verified = await browser.passkey(key);
    assert.equal(verified.status, 200, await verified.clone().text());
    await browser.page();
    expectOne(await rows(user.id), 'login.succeeded', { face: 'account', method: 'passkey', amr: 'pwd hwk mfa' }, null);
  });

  test('a used-up budget on /account is login.locked_out (the second factor names its user)', async () => {
    const { user, secret } = await userWithFactors();
    const browser = new AccountBrowser(t);
    await browser.password(user.username);
    const form = await browser.form();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await browser.browser.post(form.action, { ...form.hidden, otp: totpAt(secret, clock.now() + 600_000) })).status);
    assert.deepEqual(statuses, [303, 303, 303, 429, 429], 'three points: the right password was refunded');
    const found = await rows(user.id);
    assert.equal(found.filter((r) => r.type === 'login.locked_out').length, 2);
    assert.equal(found.find((r) => r.type === 'login.locked_out')!.details.method, 'totp');
    clock.advance(61_000);
  });
});
