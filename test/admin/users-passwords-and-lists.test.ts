// /admin/v1/users, continued from users.test.ts: passwords, second factors, search and pages, refusals,
// scopes, the CLI and the audit's atomicity (docs/admin-api.md).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { verifyPassword } from '../../src/crypto/passwords.js';
import { usersRepository } from '../../src/storage/repositories/users-repository.js';
import { createUserRecord, deleteUserRecord, setUserPassword, userServiceDeps } from '../../src/admin-services/index.js';
import { codeGrantTokens, refreshWith, type ClientFixture } from '../helpers/oauth-fixtures.js';
import { enrollTotp, factorsOf } from '../interaction/mfa/enroll.js';
import { createBody, problemOf, type AdminFixture, walk } from './fixture.js';
import { PASSWORD, startUsersFixture, uniqueName, usersApi, type UserBody } from './users-fixture.js';

const clock = manualClock(Date.now());
let f: AdminFixture, oauthClient: ClientFixture;
before(async () => ({ f, oauthClient } = await startUsersFixture(clock)));
after(() => f.t.close());
const { create, read, setPassword, eventsOf } = usersApi(() => f);

test("a password set through the API ends the user's refresh tokens (refresh → invalid_grant) and browser sessions", async () => {
  const { body } = await create();
  const user = (await usersRepository(f.t.core.db, f.t.core.clock).findById(body.id))!;
  const tokens = await codeGrantTokens(f.t, oauthClient, user, ['openid', 'offline_access']);
  const now = new Date(clock.now());
  await f.t.core.db
    .insertInto('browser_sessions')
    .values({
      id_hash: `h-${user.id}`,
      sid: `h-${user.id}`,
      user_id: user.id,
      auth_time: now,
      csrf_token: 'x',
      created_at: now,
      expires_at: new Date(clock.now() + 3_600_000),
    })
    .execute();
  const before = await read(body.id);
  const res = await setPassword(body.id, 'the operator chose this one');
  assert.equal(res.status, 204);
  assert.notEqual(res.headers.get('etag'), before.etag);
  assert.equal((await refreshWith(f.t.url, oauthClient, String(tokens.refresh_token))).body.error, 'invalid_grant');
  const sessions = await f.t.core.db.selectFrom('browser_sessions').select('id_hash').where('user_id', '=', user.id).execute();
  assert.equal(sessions.length, 0);
  const stored = await usersRepository(f.t.core.db, f.t.core.clock).findById(body.id);
  assert.ok(await verifyPassword(stored!.passwordHash, 'the operator chose this one'));
  const event = (await eventsOf(body.id)).data.find((e) => e.type === 'admin.user.password_set');
  assert.deepEqual(event?.changed_fields, ['password']);
});

test('setting a password: too short is 422; a stale If-Match is 412; admin:read cannot (403 insufficient_scope)', async () => {
  const { body } = await create();
  assert.equal((await setPassword(body.id, 'short')).status, 422);
  assert.equal((await setPassword(body.id, 'long enough again', { 'if-match': '"stale"' })).status, 412);
  const denied = await setPassword(body.id, 'long enough again', {}, f.readToken);
  assert.equal(denied.status, 403);
  assert.match(denied.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);
  const stored = await usersRepository(f.t.core.db, f.t.core.clock).findById(body.id);
  assert.ok(await verifyPassword(stored!.passwordHash, PASSWORD), 'nothing changed');
});

test("resetting second factors removes the authenticator and recovery codes and ends the user's sessions (the reset-mfa rule)", async () => {
  const { body } = await create();
  const user = (await usersRepository(f.t.core.db, f.t.core.clock).findById(body.id))!;
  await enrollTotp(f.t, user);
  const enrolled = await read(body.id);
  assert.equal(enrolled.body.has_second_factor, true);
  assert.deepEqual(enrolled.body.second_factors, ['totp', 'recovery_codes']);
  const now = new Date(clock.now());
  await f.t.core.db
    .insertInto('browser_sessions')
    .values({
      id_hash: `mfa-${user.id}`,
      sid: `mfa-${user.id}`,
      user_id: user.id,
      auth_time: now,
      csrf_token: 'x',
      created_at: now,
      expires_at: new Date(clock.now() + 3_600_000),
    })
    .execute();
  const res = await f.api(`/admin/v1/users/${body.id}/second-factors`, { method: 'DELETE' });
  assert.equal(res.status, 204);
  assert.deepEqual(await factorsOf(f.t).status(user.id), { totp: 'none', recoveryCodes: 0, passkeys: 0 });
  assert.equal((await f.t.core.db.selectFrom('browser_sessions').select('id_hash').where('user_id', '=', user.id).execute()).length, 0);
  const after = await read(body.id);
  assert.equal(after.body.has_second_factor, false);
  assert.notEqual(after.etag, enrolled.etag, 'the ETag follows the second factors');
  assert.ok((await eventsOf(body.id)).data.some((e) => e.type === 'admin.user.second_factors_reset'));
});

test('search by username or e-mail prefix, case-insensitive; LIKE wildcards in q mean themselves', async () => {
  const stem = uniqueName('Srch');
  const a = await create({ username: `${stem}-alpha`, email: 'one@example.com' });
  const b = await create({ username: uniqueName('zz'), email: `${stem.toUpperCase()}@mail.example` });
  await create({ username: uniqueName('other'), email: 'other@example.com' });
  const res = await f.api(`/admin/v1/users?q=${encodeURIComponent(stem.toLowerCase())}`);
  assert.equal(res.status, 200);
  const found = ((await res.json()) as { data: UserBody[] }).data.map((u) => u.id).sort();
  assert.deepEqual(found, [a.body.id, b.body.id].sort());
  const wildcard = (await (await f.api('/admin/v1/users?q=%25')).json()) as { data: unknown[] };
  assert.equal(wildcard.data.length, 0);
});

test('lists are cursor pages with Link rel="next", stable while users are added; a cursor is bound to its search', async () => {
  for (let i = 0; i < 3; i++) await create();
  const firstPage = (await (await f.api('/admin/v1/users?limit=2')).json()) as { pagination: { next_cursor: string | null } };
  const firstCursor = firstPage.pagination.next_cursor ?? undefined;
  const seen = (
    await walk<UserBody>(f, '/admin/v1/users?limit=2', async () => {
      clock.advance(1000);
      await create();
    })
  ).map((u) => u.id);
  assert.equal(new Set(seen).size, seen.length, 'no duplicates');
  const all = await f.t.core.db.selectFrom('users').select('id').execute();
  assert.equal(seen.length, all.length, 'no gaps');
  const other = await f.api(`/admin/v1/users?q=a&cursor=${encodeURIComponent(firstCursor!)}`);
  assert.equal(other.status, 400);
  assert.equal((await problemOf(other)).code, 'invalid-cursor');
});

test('405 with Allow for an unsupported method; 415 for a non-JSON body and for a PATCH that is not merge-patch', async () => {
  const res = await f.api('/admin/v1/users', { method: 'DELETE' });
  assert.equal(res.status, 405);
  assert.equal((await problemOf(res)).code, 'method-not-allowed');
  assert.match(res.headers.get('allow') ?? '', /GET/);
  assert.match(res.headers.get('allow') ?? '', /POST/);
  const text = await f.api('/admin/v1/users', { method: 'POST', headers: { 'content-type': 'text/plain', 'idempotency-key': crypto.randomUUID() }, body: 'x' });
  assert.equal(text.status, 415);
  assert.equal((await problemOf(text)).code, 'unsupported-media-type');
  const { body } = await create();
  const { etag } = await read(body.id);
  const patch = await f.api(`/admin/v1/users/${body.id}`, { method: 'PATCH', headers: { 'content-type': 'application/json', 'if-match': etag }, body: '{}' });
  assert.equal(patch.status, 415);
});

test('406 for a read that accepts only something other than JSON', async () => {
  const res = await f.api('/admin/v1/users', { headers: { accept: 'text/html' } });
  assert.equal(res.status, 406);
});

test('garbage, huge and deeply nested bodies are 400/413 problems, never 500', async () => {
  const post = (body: string) =>
    f.api('/admin/v1/users', { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() }, body });
  const garbage = await post('{"username": ');
  assert.equal(garbage.status, 400);
  await problemOf(garbage);
  const huge = await post(JSON.stringify({ username: uniqueName(), password: 'x'.repeat(f.t.config.JSON_BODY_LIMIT + 10) }));
  assert.equal(huge.status, 413);
  assert.equal((await problemOf(huge)).code, 'payload-too-large');
  const deep = await post(`{"username":"deep","password":"long enough pw","address":${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}}`);
  assert.equal(deep.status, 400);
  await problemOf(deep);
  const wrongType = await post(JSON.stringify({ username: ['array'], password: 42 }));
  assert.equal(wrongType.status, 400);
  const { body } = await create();
  const { etag } = await read(body.id);
  const deepPatch = await f.api(`/admin/v1/users/${body.id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/merge-patch+json', 'if-match': etag },
    body: `{"address":${'['.repeat(5000)}${']'.repeat(5000)}}`,
  });
  assert.equal(deepPatch.status, 400);
  await problemOf(deepPatch);
});

test('admin:read reads but cannot write (403 insufficient_scope); a token without admin scopes gets an RFC 6750 challenge', async () => {
  assert.equal((await f.api('/admin/v1/users', { token: f.readToken })).status, 200);
  const denied = await f.api('/admin/v1/users', { ...createBody({ username: uniqueName(), password: PASSWORD }, crypto.randomUUID()), token: f.readToken });
  assert.equal(denied.status, 403);
  assert.match(denied.headers.get('www-authenticate') ?? '', /error="insufficient_scope".*scope="admin:write"/);
  assert.equal((await problemOf(denied)).code, 'insufficient-scope');
  const anonymous = await fetch(`${f.t.url}/admin/v1/users`);
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.headers.get('www-authenticate'), `Bearer resource_metadata="${f.t.url}/.well-known/oauth-protected-resource/admin"`);
  const foreign = await f.api('/admin/v1/users', { token: 'not-a-token' });
  assert.equal(foreign.status, 401);
  assert.match(foreign.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
});

test("the CLI and the API share the rules: users created by either are listed by both, and the CLI's changes are audited as the CLI", async () => {
  const username = uniqueName('cli');
  const made = await f.cli('users', 'create', '--username', username, '--password', PASSWORD, '--email', `${username}@example.com`);
  const { body } = await read(String(made.id));
  assert.equal(body.username, username);
  await f.cli('users', 'update', String(made.id), '--email-verified');
  const events = await eventsOf(String(made.id));
  assert.deepEqual(events.data.map((e) => e.type).sort(), ['admin.user.created', 'admin.user.updated']);
  assert.ok(events.data.every((e) => e.actor.kind === 'cli'));
});

test('the admin users routes are in the OpenAPI document with their operationIds under the tag "admin: users"', async () => {
  const res = await fetch(`${f.t.url}/openapi.json`);
  assert.equal(res.status, 200);
  const doc = (await res.json()) as { paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>> };
  const operations = Object.values(doc.paths)
    .flatMap((p) => Object.values(p))
    .filter((o) => o.tags?.includes('admin: users'))
    .map((o) => o.operationId);
  for (const id of [
    'adminCreateUser',
    'adminListUsers',
    'adminGetUser',
    'adminReplaceUser',
    'adminPatchUser',
    'adminDeleteUser',
    'adminSetUserPassword',
    'adminResetUserSecondFactors',
  ]) {
    assert.ok(operations.includes(id), `${id} missing`);
  }
});

test('a change and its audit event commit together: when the event cannot be written, the create, password set and delete do not happen', async () => {
  const failing = {
    ...f.t.core.audit,
    emit: async () => {
      throw new Error('audit store unavailable');
    },
  };
  const deps = userServiceDeps(f.t.core, failing);
  const as = { actor: { kind: 'system' as const } };
  const username = uniqueName('unaudited');
  await assert.rejects(
    createUserRecord(
      deps,
      { username, password: PASSWORD, name: null, given_name: null, family_name: null, email: null, phone_number: null, address: null },
      as,
    ),
    /audit store unavailable/,
  );
  assert.equal(await usersRepository(f.t.core.db, f.t.core.clock).findByUsername(username), undefined);
  const { body } = await create();
  await assert.rejects(setUserPassword(deps, body.id, 'an unaudited password', as), /audit store unavailable/);
  const stored = await usersRepository(f.t.core.db, f.t.core.clock).findById(body.id);
  assert.ok(await verifyPassword(stored!.passwordHash, PASSWORD), 'the password did not change');
  await assert.rejects(deleteUserRecord(deps, body.id, as), /audit store unavailable/);
  assert.equal((await read(body.id)).body.id, body.id, 'the user still exists');
});
