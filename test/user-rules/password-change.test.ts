// A password is changed by its owner, not by a token: through /v1 only the user's own token together with
// the current password changes it, and every change (API or operator CLI) ends the user's other browser
// sessions and revokes every refresh-token family of the user.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { executeCommand } from '../../src/cli/execute.js';
import { verifyPassword } from '../../src/crypto/passwords.js';
import { usersRepository, type User } from '../../src/storage/repositories/users-repository.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { codeGrantTokens, createClient, postToken, REDIRECT_URI, refreshWith, type ClientFixture } from '../helpers/oauth-fixtures.js';
import { authorizationCodes } from '../../src/oauth/codes/index.js';
import { authorizeQuery, loginAndConsent } from '../interaction/browserless.js';
import { Browser } from '../helpers/browser.js';
import { pkcePair } from '../helpers/pkce.js';
import { createUser, PASSWORD, SIGN_IN } from '../helpers/users.js';

let t: TestApp;
let client: ClientFixture;
before(async () => {
  t = await startTestApp({ env: { OVERLOAD_MAX_EVENT_LOOP_DELAY: '0', RATE_LIMIT_LOGIN_FAILURES: '3' } });
  client = await createClient(t.core.db, t.core.clock, {
    scopes: ['openid', 'offline_access', 'users:read', 'users:write'],
  });
});
after(() => t.close());

const NEW_PASSWORD = 'a completely new passphrase';
const SCOPE = ['openid', 'offline_access', 'users:read', 'users:write'];

/** A user signed in twice in browsers and holding two refresh-token families. */
async function signedInUser(): Promise<{ user: User; families: { access: string; refresh: string }[] }> {
  const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
  for (let i = 0; i < 2; i++) await loginAndConsent(new Browser(t.url), authorizeQuery(client.client.id, REDIRECT_URI, { scope: 'openid' }), user);
  const families = [];
  for (let i = 0; i < 2; i++) {
    const tokens = await codeGrantTokens(t, client, user, SCOPE);
    families.push({ access: String(tokens.access_token), refresh: String(tokens.refresh_token) });
  }
  assert.equal(await sessionsOf(user), 2);
  return { user, families };
}

const sessionsOf = async (user: User) => (await t.core.db.selectFrom('browser_sessions').select('id_hash').where('user_id', '=', user.id).execute()).length;

const patch = (user: User, token: string, body: unknown) =>
  fetch(`${t.url}/v1/users/${user.id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/merge-patch+json' },
    body: JSON.stringify(body),
  });

const me = (token: string) => fetch(`${t.url}/v1/users/me`, { headers: { authorization: `Bearer ${token}` } });
const passwordIs = async (user: User, password: string) =>
  verifyPassword((await usersRepository(t.core.db, t.core.clock).findById(user.id))!.passwordHash, password);

/** Every browser session ended, every family's refresh token refused and its access token revoked. */
async function assertEverythingEnded(user: User, families: { access: string; refresh: string }[]): Promise<void> {
  assert.equal(await sessionsOf(user), 0, 'browser sessions ended');
  for (const family of families) {
    assert.equal((await refreshWith(t.url, client, family.refresh)).body.error, 'invalid_grant', 'refresh-token family revoked');
    assert.equal((await me(family.access)).status, 401, 'access token of the family revoked');
  }
}

test("a bare users:write access token cannot set the user's password: without current_password it is 422 and nothing changes", async () => {
  const { user, families } = await signedInUser();
  const res = await patch(user, families[0]!.access, { password: NEW_PASSWORD });
  assert.equal(res.status, 422);
  assert.deepEqual(
    ((await res.json()) as { errors: { field: string }[] }).errors.map((e) => e.field),
    ['current_password'],
  );
  assert.ok(await passwordIs(user, PASSWORD));
  assert.equal((await refreshWith(t.url, client, families[1]!.refresh)).status, 200, 'nothing was revoked');
});

test("a service token with users:write cannot set a user's password (403), with or without a current_password", async () => {
  const service = await createClient(t.core.db, t.core.clock, {
    type: 'confidential',
    grantTypes: ['client_credentials'],
    scopes: ['users:read', 'users:write'],
  });
  const { body } = await postToken(t.url, service, { grant_type: 'client_credentials' });
  const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
  for (const attempt of [{ password: NEW_PASSWORD }, { password: NEW_PASSWORD, current_password: PASSWORD }]) {
    const res = await patch(user, String(body.access_token), attempt);
    assert.equal(res.status, 403);
  }
  assert.ok(await passwordIs(user, PASSWORD));
});

test('a wrong current_password is refused and counts as a failed login: past the limit even the right one is 429', async () => {
  const { user, families } = await signedInUser();
  for (let i = 0; i < 3; i++)
    assert.equal((await patch(user, families[0]!.access, { password: NEW_PASSWORD, current_password: `wrong guess ${i}` })).status, 422);
  const blocked = await patch(user, families[0]!.access, { password: NEW_PASSWORD, current_password: PASSWORD });
  assert.equal(blocked.status, 429);
  assert.ok(blocked.headers.get('retry-after'));
  assert.ok(await passwordIs(user, PASSWORD));
});

test('parallel current_password guesses cannot overrun the failed-login budget', async () => {
  const { user, families } = await signedInUser();
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) => patch(user, families[0]!.access, { password: NEW_PASSWORD, current_password: `parallel guess ${i}` })),
  );
  const statuses = results.map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 422).length, 3, statuses.join(' '));
  assert.equal(statuses.filter((s) => s === 429).length, 7);
});

test("changing one's password with the current one ends the user's browser sessions and revokes every refresh-token family", async () => {
  const { user, families } = await signedInUser();
  const bystander = await signedInUser();
  const res = await patch(user, families[0]!.access, { password: NEW_PASSWORD, current_password: PASSWORD });
  assert.equal(res.status, 200);
  assert.ok(await passwordIs(user, NEW_PASSWORD));
  await assertEverythingEnded(user, families);
  assert.equal(await sessionsOf(bystander.user), 2, 'another user keeps their sessions');
  assert.equal((await refreshWith(t.url, client, bystander.families[0]!.refresh)).status, 200, 'and their tokens');
});

test('an authorization code issued before a password change can no longer be redeemed after it', async () => {
  const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
  const { verifier, challenge } = pkcePair();
  const code = await authorizationCodes(t.core).issue({
    clientId: client.client.id,
    redirectUri: REDIRECT_URI,
    codeChallenge: challenge,
    scope: SCOPE,
    userId: user.id,
    authTime: Math.floor(t.core.clock.now() / 1000),
  });
  await executeCommand(['users', 'set-password', user.id, '--password', NEW_PASSWORD], t.core);
  const res = await postToken(t.url, client, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier });
  assert.equal(res.body.error, 'invalid_grant');
});

test("gatehouse users set-password ends the user's browser sessions and revokes every refresh-token family", async () => {
  const { user, families } = await signedInUser();
  const result = (await executeCommand(['users', 'set-password', user.id, '--password', NEW_PASSWORD], t.core)) as Record<string, unknown>;
  assert.equal(result.id, user.id);
  assert.ok(await passwordIs(user, NEW_PASSWORD));
  await assertEverythingEnded(user, families);
});

test("gatehouse users delete ends the user's sessions and tokens; users list shows accounts without password hashes", async () => {
  const { user, families } = await signedInUser();
  const listed = (await executeCommand(['users', 'list'], t.core)) as { users: Record<string, unknown>[] };
  assert.ok(listed.users.some((u) => u.id === user.id));
  assert.doesNotMatch(JSON.stringify(listed), /argon2|password/i);
  assert.deepEqual(await executeCommand(['users', 'delete', user.id], t.core), { deleted: user.id });
  await assertEverythingEnded(user, families);
  await assert.rejects(executeCommand(['users', 'delete', user.id], t.core), /no user/);
});
