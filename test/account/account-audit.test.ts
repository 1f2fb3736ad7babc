// S5: every credential change on /account is one audit event of the sign-in pipeline's shape (the user as
// actor and subject, the trace id, details naming the face and the factor): password changed (and a wrong
// current password is login.failed), a factor added or removed, recovery codes regenerated.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { newSoftPasskey } from '../helpers/soft-passkey.js';
import { secretOfUri, totpAt } from '../helpers/totp.js';
import { PASSWORD, SIGN_IN, createUser } from '../helpers/users.js';
import { AccountBrowser } from './account-browser.js';

let t: TestApp;
const clock = manualClock(1_800_000_000_000);
before(async () => {
  t = await startTestApp({ clock });
});
after(() => t.close());

const events = async (userId: string) =>
  (
    await t.core.db
      .selectFrom('audit_events')
      .select(['type', 'actor_kind', 'actor_user_id', 'details', 'trace_id'])
      .where('subject', '=', userId)
      .orderBy('occurred_at')
      .execute()
  ).map((e) => ({
    ...e,
    details: e.details as Record<string, unknown>,
  }));

test('every credential change on /account is one audit event of the same shape as a sign-in', async () => {
  const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
  const browser = new AccountBrowser(t);
  await browser.password(user.username);
  let { csrf } = await browser.page();

  assert.equal(
    (await browser.browser.post('/account/password', { csrf, current_password: 'not it', new_password: 'a new password' })).headers.get('location'),
    '/account?error=current_password',
  );
  assert.equal(
    (await browser.browser.post('/account/password', { csrf, current_password: PASSWORD, new_password: 'a new password' })).headers.get('location'),
    '/account?done=password',
  );

  await browser.browser.post('/account/totp', { csrf });
  const uri = /<code id="totp-uri">([^<]+)<\/code>/.exec(await (await browser.browser.get('/account')).text())![1]!.replace(/&amp;/g, '&');
  assert.equal((await browser.browser.post('/account/totp/confirm', { csrf, otp: totpAt(secretOfUri(uri), clock.now()) })).status, 200);
  ({ csrf } = await browser.page());
  assert.equal((await browser.browser.post('/account/recovery-codes', { csrf })).status, 200);

  const key = newSoftPasskey(user.id);
  const options = (await (await browser.postJson('/account/passkeys/options', { csrf })).json()) as { challenge: string };
  const registered = await browser.postJson('/account/passkeys/verify', { csrf, name: 'Laptop', response: key.register(options.challenge, t.config.ISSUER) });
  assert.equal(registered.status, 200, await registered.clone().text());
  assert.equal(
    (await browser.browser.post('/account/passkeys/remove', { csrf, credential: key.credentialId })).headers.get('location'),
    '/account?done=passkey_removed',
  );
  assert.equal((await browser.browser.post('/account/totp/remove', { csrf })).headers.get('location'), '/account?done=totp_removed');

  const found = await events(user.id);
  const changes = found.filter((e) => e.type.startsWith('account.') || e.type === 'login.failed');
  assert.deepEqual(
    changes.map((e) => [e.type, e.details.factor ?? e.details.reason ?? null]),
    [
      ['login.failed', 'wrong_current_password'],
      ['account.password_changed', null],
      ['account.second_factor_added', 'totp'],
      ['account.recovery_codes_regenerated', null],
      ['account.second_factor_added', 'passkey'],
      ['account.second_factor_removed', 'passkey'],
      ['account.second_factor_removed', 'totp'],
    ],
  );
  for (const e of changes) {
    assert.equal(e.details.face, 'account');
    assert.ok(e.trace_id, 'each names its request');
    if (e.type.startsWith('account.')) assert.deepEqual([e.actor_kind, e.actor_user_id], ['user', user.id]);
  }
});
