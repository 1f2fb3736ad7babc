// `gatehouse users reset-mfa USER`: removes the second factors and ends the user's sessions; the next
// sign-in is by password alone.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { executeCommand } from '../../src/cli/execute.js';
import { UsageError } from '../../src/cli/command.js';
import { manualClock } from '../../src/clock.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClient, REDIRECT_URI } from '../helpers/oauth-fixtures.js';
import { authorizeQuery, openInteraction, submitLogin } from '../interaction/browserless.js';
import { enrollTotp, factorsOf } from '../interaction/mfa/enroll.js';
import { Browser } from '../helpers/browser.js';
import { SIGN_IN, createUser } from '../helpers/users.js';

const clock = manualClock(1_800_000_000_000);
let t: TestApp;
before(async () => {
  t = await startTestApp({ clock, env: {} });
});
after(() => t.close());

test('reset-mfa removes the authenticator and recovery codes and ends the user’s sessions (by username or id)', async () => {
  const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
  const other = await createUser(t.core.db, t.core.clock, SIGN_IN);
  await enrollTotp(t, user);
  await enrollTotp(t, other);
  const { client } = await createClient(t.core.db, t.core.clock);
  const browser = new Browser(t.url);
  const { form } = await openInteraction(browser, authorizeQuery(client.id, REDIRECT_URI));
  assert.equal((await submitLogin(browser, form, user.username)).headers.get('location')?.startsWith('/interaction/'), true, 'a second factor is asked for');
  await t.core.db.insertInto('browser_sessions').values({ id_hash: `h-${user.id}`, user_id: user.id, auth_time: new Date(clock.now()), csrf_token: 'x', created_at: new Date(clock.now()), expires_at: new Date(clock.now() + 3_600_000) }).execute();

  const result = (await executeCommand(['users', 'reset-mfa', user.username], t.core)) as Record<string, unknown>;
  assert.deepEqual(result, { id: user.id, second_factors_removed: true, sessions_ended: 1 });
  assert.deepEqual(await factorsOf(t).status(user.id), { totp: 'none', recoveryCodes: 0, passkeys: 0 });
  assert.deepEqual(await factorsOf(t).status(other.id), { totp: 'active', recoveryCodes: 10, passkeys: 0 }, 'nobody else is touched');

  const again = new Browser(t.url);
  const opened = await openInteraction(again, authorizeQuery(client.id, REDIRECT_URI));
  assert.match((await submitLogin(again, opened.form, user.username)).headers.get('location') ?? '', /^https:\/\/client\.example\/cb\?code=/);
  await assert.rejects(executeCommand(['users', 'reset-mfa', 'nobody'], t.core), UsageError);
});
