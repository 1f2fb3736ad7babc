// Verified claims stay true: a verified flag is about one address, is cleared when that address changes
// through /v1, is raised only by the operator's CLI, and /userinfo (like the id_token, same claims code)
// never releases an address as verified that nobody verified.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { executeCommand } from '../../src/cli/execute.js';
import { UsageError } from '../../src/cli/command.js';
import { accessTokenIssuer } from '../../src/oauth/issued-tokens/access-tokens.js';
import { usersRepository, type User } from '../../src/storage/repositories/users-repository.js';
import { verifiedAfterWrite } from '../../src/user-rules/verified-claims.js';
import { json, problemOf, usersFixture, type UsersFixture } from '../api/users/fixture.js';

let f: UsersFixture;
before(async () => {
  f = await usersFixture();
});
after(() => f.t.close());

const repo = () => usersRepository(f.t.core.db, f.t.core.clock);
const run = (...argv: string[]) => executeCommand(argv, f.t.core) as Promise<Record<string, unknown>>;

/** A user whose e-mail and phone an operator verified, and a user token for it (with the OIDC claim scopes). */
async function verifiedUser(name: string): Promise<{ user: User; token: string }> {
  const created = await run(
    'users',
    'create',
    '--username',
    name,
    '--password',
    'long enough pw',
    '--email',
    `${name}@example.com`,
    '--email-verified',
    '--phone',
    '+41 44 000 00 00',
    '--phone-verified',
  );
  const user = (await repo().findById(String(created.id)))!;
  assert.equal(user.email_verified && user.phone_number_verified, true);
  const issuer = accessTokenIssuer({ keys: f.t.core.keys, clock: f.t.core.clock, config: f.t.core.config });
  const scope = ['openid', 'email', 'phone', 'users:read', 'users:write'];
  const { token } = await issuer.issue({ sub: user.id, clientId: 'web-app', scope, authTime: Math.floor(f.t.core.clock.now() / 1000) });
  return { user, token };
}

const patchUser = (user: User, token: string, body: unknown) =>
  f.api(`/v1/users/${user.id}`, { ...json(body, 'PATCH', 'application/merge-patch+json'), token });

async function userinfo(token: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${f.t.url}/userinfo`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200);
  return (await res.json()) as Record<string, unknown>;
}

test("changing one's own email through /v1 (PATCH) clears email_verified, and /userinfo no longer calls it verified", async () => {
  const { user, token } = await verifiedUser('vera');
  assert.equal((await userinfo(token)).email_verified, true);
  const res = await patchUser(user, token, { email: 'victim@example.com' });
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as { email_verified: boolean }).email_verified, false);
  const claims = await userinfo(token);
  assert.equal(claims.email, 'victim@example.com');
  assert.equal(claims.email_verified, false);
  assert.equal((await repo().findById(user.id))!.email_verified, false);
});

test("changing one's own email with PUT while repeating email_verified: true is refused (422), nothing changes", async () => {
  const { user, token } = await verifiedUser('petra');
  const res = await f.api(`/v1/users/${user.id}`, { ...json({ username: 'petra', email: 'victim@example.com', email_verified: true }, 'PUT'), token });
  assert.equal(res.status, 422);
  assert.deepEqual(
    (await problemOf(res)).errors?.map((e) => e.field),
    ['email_verified'],
  );
  assert.equal((await repo().findById(user.id))!.email, 'petra@example.com');
});

test("changing one's own phone_number through /v1 clears phone_number_verified", async () => {
  const { user, token } = await verifiedUser('phil');
  const res = await patchUser(user, token, { phone_number: '+41 79 999 99 99' });
  assert.equal(res.status, 200);
  const claims = await userinfo(token);
  assert.equal(claims.phone_number, '+41 79 999 99 99');
  assert.equal(claims.phone_number_verified, false);
});

test('a /v1 write that keeps the address keeps its verified flag', async () => {
  const { user, token } = await verifiedUser('keira');
  const res = await patchUser(user, token, { name: 'Keira' });
  assert.equal(res.status, 200);
  const stored = (await repo().findById(user.id))!;
  assert.equal(stored.email_verified && stored.phone_number_verified, true);
});

test('no /v1 write raises a verified flag: not the user, not a service client, not at creation', async () => {
  const user = await f.createUser('ursula');
  for (const token of [f.tokens.service]) {
    const res = await patchUser(user, token, { email_verified: true, phone_number: '+41 1', phone_number_verified: true });
    assert.equal(res.status, 422);
    assert.deepEqual((await problemOf(res)).errors?.map((e) => e.field).sort(), ['email_verified', 'phone_number_verified']);
  }
  const created = await f.api('/v1/users', {
    ...json({ username: 'sam', password: 'long enough pw', email: 'boss@example.com', email_verified: true }),
    token: f.tokens.service,
  });
  assert.equal(created.status, 422);
  assert.equal((await repo().findById(user.id))!.email_verified, false);
});

test('only the operator CLI raises a verified flag: users update --email-verified, and a new --email clears it unless re-verified', async () => {
  const user = await f.createUser('otto');
  const verified = await run('users', 'update', user.id, '--email-verified');
  assert.equal(verified.email_verified, true);
  const moved = await run('users', 'update', user.id, '--email', 'otto@elsewhere.example');
  assert.equal(moved.email_verified, false);
  const both = await run('users', 'update', user.id, '--email', 'otto@third.example', '--email-verified');
  assert.equal(both.email_verified, true);
  await assert.rejects(run('users', 'update', user.id, '--phone-verified'), UsageError, 'no phone number to verify');
});

test('verifiedAfterWrite: a flag survives only an unchanged address; the API can keep or clear, never raise', () => {
  const current = { email: 'a@x.example', email_verified: true, phone_number: null, phone_number_verified: false };
  const moved = { email: 'b@x.example', phone_number: null };
  assert.equal(verifiedAfterWrite('api', current, moved, { email_verified: undefined }).flags.email_verified, false);
  assert.equal(verifiedAfterWrite('api', current, moved, { email_verified: true }).errors[0]?.field, 'email_verified');
  assert.equal(verifiedAfterWrite('api', current, current, { email_verified: true }).flags.email_verified, true);
  assert.equal(verifiedAfterWrite('api', current, current, { email_verified: false }).flags.email_verified, false);
  assert.equal(verifiedAfterWrite('operator', current, moved, {}).flags.email_verified, false);
  assert.equal(verifiedAfterWrite('operator', current, moved, { email_verified: true }).flags.email_verified, true);
});
