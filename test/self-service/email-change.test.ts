// The e-mail change on /account and the security notices (src/self-service/email-change.ts, notices.ts,
// src/account/account-events.ts; docs/email.md) over real HTTP, mail from the development mailbox.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app.js';
import { createUser, PASSWORD, SIGN_IN } from '../helpers/users.js';
import { secretOfUri, totpAt } from '../helpers/totp.js';
import { AccountBrowser } from '../account/account-browser.js';
import { usersRepository } from '../../src/storage/repositories/users-repository.js';
import { linkIn, mailsTo, postForm, selfServiceApp, settle } from './self-service-world.js';

let t: TestApp;
let shift = 0;
const clock = { now: () => Date.now() + shift };
before(async () => {
  t = await selfServiceApp({}, { clock });
});
after(() => t.close());

const userWith = (email: string) => createUser(t.core.db, t.core.clock, { ...SIGN_IN, profile: { name: 'E', email, email_verified: true } });
async function signedIn(username: string): Promise<AccountBrowser> {
  const account = new AccountBrowser(t);
  assert.equal((await account.password(username)).status, 303);
  return account;
}
const userById = async (id: string) => (await usersRepository(t.core.db, t.core.clock).findById(id))!;

test('e-mail change: the new address is verified before it replaces the old one, and the old address is told', async () => {
  const user = await userWith('old@example.test');
  const account = await signedIn(user.username);
  const { csrf, html } = await account.page();
  assert.match(html, /old@example\.test/);
  const asked = await account.browser.post('/account/email', { csrf, email: 'new@example.test' });
  assert.equal(asked.headers.get('location'), '/account?done=email_sent');
  await settle(t);
  assert.equal((await userById(user.id)).email, 'old@example.test', 'not replaced before the link is followed');
  const link = linkIn(t, 'new@example.test', '/email/verify');
  assert.equal((await fetch(link)).status, 200, 'showing the page does not use the link');
  const token = new URL(link).searchParams.get('token')!;
  assert.equal((await postForm(t, '/email/verify', { token })).status, 200);
  const after = await userById(user.id);
  assert.deepEqual([after.email, after.email_verified], ['new@example.test', true]);
  assert.equal((await postForm(t, '/email/verify', { token })).status, 410, 'single use');
  await settle(t);
  const notice = mailsTo(t, 'old@example.test')[0]!;
  assert.match(notice.subject, /e-mail address of your Gatehouse account was changed/);
  assert.match(notice.text, /new@example\.test/);
  const events = await t.core.db.selectFrom('audit_events').select('type').where('subject', '=', user.id).orderBy('occurred_at').execute();
  assert.deepEqual(
    events.map((e) => e.type).filter((type) => type.startsWith('account.')),
    ['account.email_change_requested', 'account.email_changed'],
  );
});

test('changing the e-mail address needs a fresh proof (REAUTH_MAX_AGE): a stale session is asked to confirm it is them, and nothing is sent', async () => {
  const user = await userWith('stale@example.test');
  const account = await signedIn(user.username);
  shift += (t.config.REAUTH_MAX_AGE + 5) * 1000;
  try {
    const { csrf } = await account.page();
    const asked = await account.browser.post('/account/email', { csrf, email: 'attacker@example.test' });
    assert.equal(asked.headers.get('location'), '/account?error=reauth');
    await settle(t);
    assert.equal(mailsTo(t, 'attacker@example.test').length, 0);
  } finally {
    shift = 0;
  }
});

test('an e-mail change link is refused once the address or the password it was for changed, and a reset link sent to the old address dies with the change', async () => {
  const user = await userWith('first@example.test');
  const account = await signedIn(user.username);
  const { csrf } = await account.page();
  await account.browser.post('/account/email', { csrf, email: 'second@example.test' });
  await account.browser.post('/account/email', { csrf, email: 'third@example.test' });
  assert.equal((await postForm(t, '/password/forgot', { email: 'first@example.test' }, { 'x-forwarded-for': '203.0.113.90' })).status, 200);
  await settle(t);
  const tokenTo = (email: string, path: string) => new URL(linkIn(t, email, path)).searchParams.get('token')!;
  const reset = tokenTo('first@example.test', '/password/reset');
  assert.equal((await postForm(t, '/email/verify', { token: tokenTo('third@example.test', '/email/verify') })).status, 200);
  assert.equal((await postForm(t, '/email/verify', { token: tokenTo('second@example.test', '/email/verify') })).status, 410, 'issued under the old address');
  assert.equal(
    (await postForm(t, '/password/reset', { token: reset, password: 'some new password', confirm: 'some new password' })).status,
    410,
    'the reset link went to the old address',
  );
  assert.equal((await userById(user.id)).email, 'third@example.test');
});

test('security notices: a password change and a new authenticator app on /account each mail the account, written with the audit event', async () => {
  const user = await userWith('notices@example.test');
  const account = await signedIn(user.username);
  let { csrf } = await account.page();
  await account.browser.post('/account/password', { csrf, current_password: PASSWORD, new_password: 'a changed password' });
  await settle(t);
  assert.match(mailsTo(t, 'notices@example.test')[0]!.subject, /password was changed/);

  ({ csrf } = await account.page());
  await account.browser.post('/account/totp', { csrf });
  const { html } = await account.page();
  const uri = /id="totp-uri">([^<]+)</.exec(html)![1]!.replace(/&amp;/g, '&');
  const confirmed = await account.browser.post('/account/totp/confirm', { csrf, otp: totpAt(secretOfUri(uri), clock.now()) });
  assert.equal(confirmed.status, 200);
  await settle(t);
  const notice = mailsTo(t, 'notices@example.test')[0]!;
  assert.match(notice.subject, /sign-in method was added/);
  assert.match(notice.text, /authenticator app was added/);
  // Written in the transaction of the audit event: one outbox row per event, none without it.
  const rows = await t.core.db.selectFrom('outbox_messages').select('kind').where('recipient', '=', 'notices@example.test').execute();
  assert.deepEqual(rows.map((r) => r.kind).sort(), ['factor_added', 'password_changed']);
});
