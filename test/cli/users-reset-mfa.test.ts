// `gatehouse users reset-mfa USER`: removes the second factors, ends the user's sessions and revokes the grants
// signed in with a second factor; the next sign-in is by password alone.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { executeCommand } from '../../src/cli/execute.js';
import { UsageError } from '../../src/cli/command.js';
import { manualClock } from '../../src/clock.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { codeGrantTokens, createClient, postToken, REDIRECT_URI, refreshWith } from '../helpers/oauth-fixtures.js';
import { authorizeQuery, openInteraction, submitLogin } from '../interaction/browserless.js';
import { enrollTotp, factorsOf } from '../interaction/mfa/enroll.js';
import { Browser, parseForm } from '../helpers/browser.js';
import { RFC7636 } from '../helpers/pkce.js';
import { totpAt } from '../helpers/totp.js';
import { basicAuth, postForm } from '../oauth/fixtures.js';
import { SIGN_IN, createUser } from '../helpers/users.js';
import { clientAnswer } from '../helpers/client-answer.js';

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
  await t.core.db
    .insertInto('browser_sessions')
    .values({
      id_hash: `h-${user.id}`,
      sid: `h-${user.id}`,
      user_id: user.id,
      auth_time: new Date(clock.now()),
      csrf_token: 'x',
      created_at: new Date(clock.now()),
      expires_at: new Date(clock.now() + 3_600_000),
    })
    .execute();

  const result = (await executeCommand(['users', 'reset-mfa', user.username], t.core)) as Record<string, unknown>;
  assert.deepEqual(result, { id: user.id, second_factors_removed: true, sessions_ended: 1, grants_revoked: 0 });
  assert.deepEqual(await factorsOf(t).status(user.id), { totp: 'none', recoveryCodes: 0, passkeys: 0 });
  assert.deepEqual(await factorsOf(t).status(other.id), { totp: 'active', recoveryCodes: 10, passkeys: 0 }, 'nobody else is touched');

  const again = new Browser(t.url);
  const opened = await openInteraction(again, authorizeQuery(client.id, REDIRECT_URI));
  assert.match((await clientAnswer(await submitLogin(again, opened.form, user.username))).href, /^https:\/\/client\.example\/cb\?code=/);
  await assert.rejects(executeCommand(['users', 'reset-mfa', 'nobody'], t.core), UsageError);
});

test('reset-mfa revokes the grants signed in with a second factor: a refresh token obtained after an MFA sign-in is refused (invalid_grant), its access token is revoked, a password-only grant keeps refreshing', async () => {
  const app = await createClient(t.core.db, t.core.clock, { type: 'confidential' });
  const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
  const { secret } = await enrollTotp(t, user);
  clock.advance(30_000);
  const browser = new Browser(t.url);
  const { form, path } = await openInteraction(browser, authorizeQuery(app.client.id, REDIRECT_URI, { scope: 'openid offline_access' }));
  await submitLogin(browser, form, user.username);
  const second = parseForm(await (await browser.get(path)).text());
  const done = await browser.post(second.action, { ...second.hidden, otp: totpAt(secret, clock.now()) });
  const code = (await clientAnswer(done)).searchParams.get('code')!;
  const mfa = await postToken(t.url, app, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: RFC7636.verifier });
  assert.equal(mfa.status, 200, JSON.stringify(mfa.body));
  const passwordOnly = await codeGrantTokens(t, app, user, ['openid', 'offline_access']);
  // Before the reset the mfa family refreshes (the test would prove nothing otherwise).
  const refreshed = await refreshWith(t.url, app, String(mfa.body.refresh_token));
  assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));

  const result = (await executeCommand(['users', 'reset-mfa', user.id], t.core)) as Record<string, unknown>;
  assert.equal(result.grants_revoked, 1);

  const refused = await refreshWith(t.url, app, String(refreshed.body.refresh_token));
  assert.equal(refused.status, 400);
  assert.equal(refused.body.error, 'invalid_grant');
  const introspection = await postForm(
    `${t.url}/introspect`,
    { token: String(refreshed.body.access_token) },
    { authorization: basicAuth(app.client.id, app.secret!) },
  );
  assert.deepEqual(introspection.body, { active: false }, 'the access token minted under the mfa grant is revoked too');
  const kept = await refreshWith(t.url, app, String(passwordOnly.refresh_token));
  assert.equal(kept.status, 200, 'a grant the factors played no part in keeps working');
});
