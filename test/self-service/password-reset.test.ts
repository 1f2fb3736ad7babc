// Forgotten passwords over real HTTP (src/self-service/password-reset.ts, docs/email.md), the mail read from
// the development mailbox (the SMTP path is self-service.browser.test.ts). Each test is named after the rule
// it holds.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Browser } from '../helpers/browser.js';
import { createClient, REDIRECT_URI } from '../helpers/oauth-fixtures.js';
import { totpAt } from '../helpers/totp.js';
import { createUser, PASSWORD, SIGN_IN } from '../helpers/users.js';
import { authorizeQuery, loginAndConsent, openInteraction, submitLogin } from '../interaction/browserless.js';
import { enrollTotp } from '../interaction/mfa/enroll.js';
import { verifyPassword } from '../../src/crypto/passwords.js';
import { secondFactorFailuresRepository } from '../../src/storage/repositories/second-factor-failures-repository.js';
import { usersRepository } from '../../src/storage/repositories/users-repository.js';
import {
  assertNoUsableDifference,
  freshClientAddress,
  linkIn,
  mailsTo,
  observable,
  pairedTiming,
  postForm,
  selfServiceApp,
  settle,
} from './self-service-world.js';

let t: TestApp;
let shift = 0;
const clock = { now: () => Date.now() + shift, advance: (ms: number) => void (shift += ms) };
let clientId: string;
before(async () => {
  t = await selfServiceApp({ RATE_LIMIT_MAIL_PER_ADDRESS: '1000', RATE_LIMIT_MAIL_PER_RECIPIENT: '1000' }, { clock });
  clientId = (await createClient(t.core.db, t.core.clock, { skipConsent: true })).client.id;
});
after(() => t.close());

const userWith = (email: string, extra: { password?: string } = {}) =>
  createUser(t.core.db, t.core.clock, { ...SIGN_IN, ...extra, profile: { name: 'R', email, email_verified: true } });
const forgot = (email: string, from = freshClientAddress(), app = t) => postForm(app, '/password/forgot', { email }, { 'x-forwarded-for': from });
const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;
const reset = (token: string, password: string, confirm = password) => postForm(t, '/password/reset', { token, password, confirm });
const userById = async (id: string) => (await usersRepository(t.core.db, t.core.clock).findById(id))!;

async function resetLinkFor(email: string): Promise<string> {
  assert.equal((await forgot(email)).status, 200);
  await settle(t);
  return linkIn(t, email, '/password/reset');
}

test('forgot password: the login page offers it, and a reset link sets a new password once, under the password rules', async () => {
  const { html } = await openInteraction(new Browser(t.url), authorizeQuery(clientId, REDIRECT_URI));
  assert.match(html, /href="\/password\/forgot\?interaction=[\w-]+">Forgot your password\?<\/a>/);

  const user = await userWith('reset-me@example.test');
  const link = await resetLinkFor('reset-me@example.test');
  assert.match(mailsTo(t, 'reset-me@example.test')[0]!.subject, /Reset your Gatehouse password/);
  assert.equal((await fetch(link)).status, 200, 'showing the page does not use the link');
  assert.equal((await fetch(link)).status, 200);
  const short = await reset(tokenOf(link), 'short');
  assert.equal(short.status, 422);
  assert.match(await short.text(), /at least 8 characters/);
  assert.equal((await reset(tokenOf(link), 'a brand new password', 'another')).status, 422);
  assert.equal((await reset(tokenOf(link), 'a brand new password')).status, 200);
  assert.equal(await verifyPassword((await userById(user.id)).passwordHash, 'a brand new password'), true);
  const again = await reset(tokenOf(link), 'yet another password');
  assert.equal(again.status, 410, 'single use');
  assert.equal((await fetch(link)).status, 410);
  assert.equal(await verifyPassword((await userById(user.id)).passwordHash, 'a brand new password'), true);
});

test('a password reset ends every session and refresh token, is an audit event, and mails a "password changed" notice', async () => {
  const user = await userWith('sessions@example.test');
  const browser = new Browser(t.url);
  const callback = await loginAndConsent(browser, authorizeQuery(clientId, REDIRECT_URI), user);
  assert.ok(callback.searchParams.get('code'));
  const sessionsOf = () => t.core.db.selectFrom('browser_sessions').select('id_hash').where('user_id', '=', user.id).execute();
  assert.equal((await sessionsOf()).length, 1);

  const link = await resetLinkFor('sessions@example.test');
  assert.equal((await reset(tokenOf(link), 'after the reset')).status, 200);
  assert.equal((await sessionsOf()).length, 0, 'every browser session ended');
  // The code issued before the reset is discarded with the grants (src/user-rules/end-user-access.ts).
  const codes = await t.core.db.selectFrom('authorization_codes').select('code_hash').where('user_id', '=', user.id).execute();
  assert.equal(codes.length, 0);
  const events = await t.core.db.selectFrom('audit_events').select('type').where('subject', '=', user.id).execute();
  assert.ok(
    events.some((e) => e.type === 'user.password_reset'),
    JSON.stringify(events),
  );
  await settle(t);
  const notice = mailsTo(t, 'sessions@example.test')[0]!;
  assert.match(notice.subject, /password was changed/);
  assert.doesNotMatch(notice.text, /password\/reset\?token/, 'the notice carries no link token');
});

test('a password reset does not bypass the second factor, and clears the account-wide second-factor failure count', async () => {
  const user = await userWith('mfa-reset@example.test');
  const { secret } = await enrollTotp(t, user);
  const failures = secondFactorFailuresRepository(t.core.db, t.core.clock);
  for (let i = 0; i < 7; i++) await failures.charge(user.id, { free: 100, maxDelaySeconds: 60, stop: 200 });
  const count = async () =>
    (await t.core.db.selectFrom('second_factor_failures').selectAll().where('user_id', '=', user.id).executeTakeFirst())?.consecutive ?? 0;
  assert.ok((await count()) >= 7);

  const link = await resetLinkFor('mfa-reset@example.test');
  const done = await reset(tokenOf(link), 'new password with factor');
  assert.equal(done.status, 200);
  assert.match(await done.text(), /An authenticator app/, "the page lists the account's factors");
  assert.equal(await count(), 0, 'the failure count starts again');

  clock.advance(30_000);
  const browser = new Browser(t.url);
  const { form, path } = await openInteraction(browser, authorizeQuery(clientId, REDIRECT_URI));
  const afterPassword = await submitLogin(browser, form, user.username, 'new password with factor');
  assert.equal(afterPassword.headers.get('location'), path, 'the password alone signs nobody in');
  const page = await (await browser.get(path)).text();
  assert.match(page, /name="otp"/, 'the second factor is still asked for');
  assert.ok(totpAt(secret, clock.now()));
});

test('reset links are single use under parallel submissions: of 8 at once exactly one sets its password', async () => {
  const user = await userWith('parallel@example.test');
  const token = tokenOf(await resetLinkFor('parallel@example.test'));
  const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => reset(token, `parallel password ${i}`)));
  assert.deepEqual(answers.map((r) => r.status).sort(), [200, 410, 410, 410, 410, 410, 410, 410]);
  const hash = (await userById(user.id)).passwordHash;
  const matches = await Promise.all(Array.from({ length: 8 }, (_, i) => verifyPassword(hash, `parallel password ${i}`)));
  assert.equal(matches.filter(Boolean).length, 1);
});

test('a reset link is refused once the password it was for has changed, and once it expired', async () => {
  const user = await userWith('changed@example.test');
  const first = tokenOf(await resetLinkFor('changed@example.test'));
  const second = tokenOf(await resetLinkFor('changed@example.test'));
  assert.equal((await reset(second, 'changed by the second link')).status, 200);
  assert.equal((await reset(first, 'the first link again')).status, 410, 'issued under the old password');
  assert.equal(await verifyPassword((await userById(user.id)).passwordHash, 'changed by the second link'), true);

  const third = tokenOf(await resetLinkFor('changed@example.test'));
  clock.advance((t.config.PASSWORD_RESET_TTL + 1) * 1000);
  try {
    assert.equal((await reset(third, 'too late for this link')).status, 410, 'expired');
  } finally {
    clock.advance(-(t.config.PASSWORD_RESET_TTL + 1) * 1000);
  }
});

test('a reset link is bound to its purpose: an invitation-purpose lookup and a sign-up verification do not accept it', async () => {
  await userWith('purpose@example.test');
  const token = tokenOf(await resetLinkFor('purpose@example.test'));
  assert.equal((await postForm(t, '/invitation', { token, password: 'invited password', confirm: 'invited password' })).status, 410);
  assert.equal((await postForm(t, '/email/verify', { token })).status, 410);
  assert.equal((await postForm(t, '/signup/verify', { token })).status, 410);
  assert.equal((await reset(token, 'still works here')).status, 200);
});

test('forgot password: the answer is identical for an address with an account and an unknown one (status, headers, body)', async () => {
  await userWith('known@example.test');
  const known = await observable(await forgot('known@example.test', '203.0.113.10'), 'known@example.test');
  const unknown = await observable(await forgot('nokno@example.test', '203.0.113.11'), 'nokno@example.test');
  assert.equal(known.status, 200);
  assert.deepEqual(unknown, known);
  await settle(t);
  assert.equal(mailsTo(t, 'nokno@example.test').length, 0, 'no mail to an address without an account');
  assert.equal(mailsTo(t, 'known@example.test').length, 1);
});

test('forgot password: no usable timing difference between an address with an account and an unknown one (60 paired, interleaved requests)', async () => {
  await userWith('timed@example.test');
  // Warm-up: the first requests of a process pay for compiling and connecting.
  for (let i = 0; i < 5; i++) await forgot(`warm${i}@example.test`);
  const result = await pairedTiming(
    60,
    () => forgot('timed@example.test', '203.0.113.20'),
    () => forgot('untimed@example.test', '203.0.113.20'),
    () => settle(t),
  );
  assertNoUsableDifference(result, 5);
});

test('mail budgets: one recipient gets at most RATE_LIMIT_MAIL_PER_RECIPIENT messages an hour, whoever asks, and the answer does not change', async () => {
  const budgeted = await startTestApp({ env: { TRUST_PROXY: '127.0.0.1', RATE_LIMIT_MAIL_PER_RECIPIENT: '3' } });
  try {
    await createUser(budgeted.core.db, budgeted.core.clock, { ...SIGN_IN, profile: { email: 'victim@example.test' } });
    const answers: Awaited<ReturnType<typeof observable>>[] = [];
    for (let i = 0; i < 6; i++) answers.push(await observable(await forgot('victim@example.test', `192.0.2.${i + 1}`, budgeted), 'victim@example.test'));
    assert.ok(answers.every((a) => a.status === 200 && a.body === answers[0]!.body));
    await settle(budgeted);
    assert.equal(mailsTo(budgeted, 'victim@example.test').length, 3);
  } finally {
    await budgeted.close();
  }
});

test('mail budgets: one client address gets RATE_LIMIT_MAIL_PER_ADDRESS submissions an hour (then 429), other addresses are unaffected', async () => {
  const budgeted = await startTestApp({ env: { TRUST_PROXY: '127.0.0.1', RATE_LIMIT_MAIL_PER_ADDRESS: '4' } });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await forgot(`someone${i}@example.test`, '192.0.2.200', budgeted)).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 429]);
    const refused = await forgot('someone@example.test', '192.0.2.200', budgeted);
    assert.match(refused.headers.get('content-type') ?? '', /text\/html/, 'a page, not JSON');
    assert.ok(Number(refused.headers.get('retry-after')) > 60, 'an hour window');
    assert.equal((await forgot('someone@example.test', '192.0.2.201', budgeted)).status, 200);
  } finally {
    await budgeted.close();
  }
});

test('forgot password: bad input gets the form again with a message, never an error', async () => {
  for (const email of ['', 'not an address', 'x'.repeat(300)]) {
    const res = await forgot(email);
    assert.equal(res.status, 422, email);
    assert.match(await res.text(), /Type an e-mail address/);
  }
  const strange = await postForm(t, '/password/forgot', { email: 'a@b.test', interaction: '"><script>' });
  assert.equal(strange.status, 200);
  assert.doesNotMatch(await strange.text(), /<script>/);
  assert.equal((await fetch(`${t.url}/password/reset?token=${'x'.repeat(500)}`)).status, 410);
  assert.equal((await postForm(t, '/password/reset', {})).status, 410);
  assert.equal(
    (
      await fetch(`${t.url}/password/forgot`, {
        method: 'POST',
        headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
        body: 'email=a@b.test',
      })
    ).status,
    403,
  );
  void PASSWORD;
});
