// /admin/v1/users under the API conventions (docs/admin-api.md): one rule per test, on real HTTP, with the
// rules shared with `gatehouse users ...` (src/admin-services/users-service.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { verifyPassword } from '../../src/crypto/passwords.js';
import { usersRepository } from '../../src/storage/repositories/users-repository.js';
import { codeGrantTokens, refreshWith, type ClientFixture } from '../helpers/oauth-fixtures.js';
import { createBody, patchBody, problemOf, type AdminFixture } from './fixture.js';
import { PASSWORD, startUsersFixture, uniqueName, usersApi, type UserBody } from './users-fixture.js';

const clock = manualClock(Date.now());
let f: AdminFixture, oauthClient: ClientFixture;
before(async () => ({ f, oauthClient } = await startUsersFixture(clock)));
after(() => f.t.close());
const { create, read, put, setPassword, eventsOf } = usersApi(() => f);

test('create requires an Idempotency-Key: without one 400 missing-idempotency-key and no user is made', async () => {
  const username = uniqueName('nokey');
  const res = await f.api('/admin/v1/users', createBody({ username, password: PASSWORD }));
  assert.equal(res.status, 400);
  assert.equal((await problemOf(res)).code, 'missing-idempotency-key');
  assert.equal(await usersRepository(f.t.core.db, f.t.core.clock).findByUsername(username), undefined);
});

test('create answers 201 with Location and a strong ETag; the password signs in (its hash is what the login checks)', async () => {
  const { res, body } = await create({ email: 'Ada@Example.com', name: 'Ada' });
  assert.match(res.headers.get('location') ?? '', new RegExp(`/admin/v1/users/${body.id}$`));
  assert.match(res.headers.get('etag') ?? '', /^"[^"]+"$/);
  assert.equal(body.email, 'Ada@Example.com');
  assert.equal(body.has_second_factor, false);
  assert.deepEqual(body.second_factors, []);
  assert.ok(typeof body.created_at === 'string' && typeof body.updated_at === 'string');
  const stored = await usersRepository(f.t.core.db, f.t.core.clock).findById(body.id);
  assert.ok(await verifyPassword(stored!.passwordHash, PASSWORD));
});

test('a password is required at create (400 without one), at least 8 characters (422 naming password); no user is made', async () => {
  const username = uniqueName('weak');
  const missing = await f.api('/admin/v1/users', createBody({ username }, crypto.randomUUID()));
  assert.equal(missing.status, 400);
  assert.match(JSON.stringify(await problemOf(missing)), /password/);
  const short = await f.api('/admin/v1/users', createBody({ username, password: 'short' }, crypto.randomUUID()));
  assert.equal(short.status, 422);
  assert.equal((await problemOf(short)).errors?.[0]?.field, 'password');
  assert.equal(await usersRepository(f.t.core.db, f.t.core.clock).findByUsername(username), undefined);
});

test("the username rule is the CLI's: an invalid one is 422 naming username; a taken one (any case) is 409 conflict", async () => {
  const bad = await f.api('/admin/v1/users', createBody({ username: 'has space', password: PASSWORD }, crypto.randomUUID()));
  assert.equal(bad.status, 422);
  assert.equal((await problemOf(bad)).errors?.[0]?.field, 'username');
  const { body } = await create();
  const taken = await f.api('/admin/v1/users', createBody({ username: body.username.toUpperCase(), password: PASSWORD }, crypto.randomUUID()));
  assert.equal(taken.status, 409);
  assert.equal((await problemOf(taken)).code, 'conflict');
});

test('a verified flag without its address is 422 (verified-claims rule), an operator may set one with its address', async () => {
  const res = await f.api('/admin/v1/users', createBody({ username: uniqueName(), password: PASSWORD, email_verified: true }, crypto.randomUUID()));
  assert.equal(res.status, 422);
  assert.equal((await problemOf(res)).errors?.[0]?.field, 'email_verified');
  const { body } = await create({ email: 'verified@example.com', email_verified: true });
  assert.equal(body.email_verified, true);
});

test('ten parallel creates with one Idempotency-Key make exactly one user; another body with that key is 422', async () => {
  const key = crypto.randomUUID();
  const doc = { username: uniqueName('parallel'), password: PASSWORD };
  const answers = await Promise.all(Array.from({ length: 10 }, () => f.api('/admin/v1/users', createBody(doc, key))));
  const statuses = answers.map((r) => r.status);
  assert.ok(
    statuses.every((s) => s === 201 || s === 409),
    statuses.join(','),
  );
  assert.ok(statuses.includes(201));
  const rows = await f.t.core.db.selectFrom('users').select('id').where('username', '=', doc.username).execute();
  assert.equal(rows.length, 1);
  const other = await f.api('/admin/v1/users', createBody({ ...doc, name: 'Different' }, key));
  assert.equal(other.status, 422);
  assert.equal((await problemOf(other)).code, 'idempotency-key-reuse');
});

test('the password never appears in responses, replays, the idempotency store, logs or audit events', async () => {
  const secret = `pw-${crypto.randomUUID()}`;
  const key = crypto.randomUUID();
  const doc = { username: uniqueName('secretive'), password: secret };
  const first = await f.api('/admin/v1/users', createBody(doc, key));
  const created = (await first.json()) as UserBody;
  const replay = await f.api('/admin/v1/users', createBody(doc, key));
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  const second = `pw-${crypto.randomUUID()}`;
  assert.equal((await setPassword(created.id, second)).status, 204);
  const texts = {
    created: JSON.stringify(created),
    replayed: await replay.text(),
    read: JSON.stringify((await read(created.id)).body),
    list: await (await f.api('/admin/v1/users?limit=100')).text(),
    events: JSON.stringify(await eventsOf(created.id)),
    stored: JSON.stringify(await f.t.core.db.selectFrom('idempotency_keys').selectAll().execute()),
    audit: JSON.stringify(await f.t.core.db.selectFrom('audit_events').selectAll().execute()),
    logs: f.logText(),
  };
  for (const [where, text] of Object.entries(texts)) {
    assert.ok(!text.includes(secret) && !text.includes(second), `a password leaked into ${where}`);
    assert.ok(!text.includes('$argon2'), `a password hash leaked into ${where}`);
  }
  assert.ok(!('password' in created) && !('password_hash' in created));
});

test('reads carry a strong ETag; If-None-Match with it is 304; unknown ids are 404 on read, write, delete and password', async () => {
  const { body } = await create();
  const { etag } = await read(body.id);
  assert.equal((await f.api(`/admin/v1/users/${body.id}`, { headers: { 'if-none-match': etag } })).status, 304);
  assert.equal((await problemOf(await f.api('/admin/v1/users/nope'))).code, 'not-found');
  assert.equal((await f.api('/admin/v1/users/nope', patchBody({ name: 'x' }, '"x"'))).status, 404);
  assert.equal((await f.api('/admin/v1/users/nope', { method: 'DELETE', headers: { 'if-match': '"x"' } })).status, 404);
  assert.equal((await setPassword('nope', PASSWORD)).status, 404);
  assert.equal((await f.api('/admin/v1/users/nope/second-factors', { method: 'DELETE' })).status, 404);
});

test('PATCH, PUT and DELETE without If-Match are 428 precondition-required and change nothing', async () => {
  const { body } = await create();
  const before = await read(body.id);
  const patch = await f.api(`/admin/v1/users/${body.id}`, patchBody({ name: 'Changed' }));
  assert.equal(patch.status, 428);
  assert.equal((await problemOf(patch)).code, 'precondition-required');
  assert.equal((await put(body.id, { username: body.username })).status, 428);
  assert.equal((await f.api(`/admin/v1/users/${body.id}`, { method: 'DELETE' })).status, 428);
  assert.equal((await read(body.id)).etag, before.etag);
});

test('PATCH with the current ETag applies a merge patch and answers the new ETag; the old one is then 412', async () => {
  const { body } = await create({ name: 'Old', address: { locality: 'Basel', country: 'CH' } });
  const { etag } = await read(body.id);
  const res = await f.api(`/admin/v1/users/${body.id}`, patchBody({ name: 'New', address: { locality: 'Zürich' } }, etag));
  assert.equal(res.status, 200, await res.clone().text());
  const patched = (await res.json()) as UserBody;
  assert.equal(patched.name, 'New');
  assert.deepEqual(patched.address, { locality: 'Zürich', country: 'CH' });
  assert.notEqual(res.headers.get('etag'), etag);
  const stale = await f.api(`/admin/v1/users/${body.id}`, patchBody({ name: 'Again' }, etag));
  assert.equal(stale.status, 412);
  assert.equal((await problemOf(stale)).code, 'precondition-failed');
  const events = await eventsOf(body.id);
  const updated = events.data.find((e) => e.type === 'admin.user.updated');
  assert.deepEqual(updated?.changed_fields, ['address', 'name']);
  assert.equal(updated?.actor.client_id, f.admin.id);
});

test('a merge patch that moves the e-mail address clears email_verified unless the patch itself sets it', async () => {
  const { body } = await create({ email: 'first@example.com', email_verified: true });
  const first = await read(body.id);
  const moved = await f.api(`/admin/v1/users/${body.id}`, patchBody({ email: 'second@example.com' }, first.etag));
  assert.equal(moved.status, 200);
  assert.equal(((await moved.json()) as UserBody).email_verified, false);
  const again = await f.api(`/admin/v1/users/${body.id}`, patchBody({ email: 'third@example.com', email_verified: true }, moved.headers.get('etag')!));
  assert.equal(((await again.json()) as UserBody).email_verified, true);
});

test('a merge patch of a read-only member or the password is 422 and changes nothing', async () => {
  const { body } = await create();
  const { etag } = await read(body.id);
  for (const patch of [{ id: 'other' }, { has_second_factor: true }, { password: 'sneaky new password' }]) {
    const res = await f.api(`/admin/v1/users/${body.id}`, patchBody(patch, etag));
    assert.equal(res.status, 422);
    assert.equal((await problemOf(res)).errors?.[0]?.field, Object.keys(patch)[0]);
  }
  assert.equal((await read(body.id)).etag, etag);
});

test('a merge patch says why a member cannot be patched: the password is set elsewhere, and a member named like an object built-in is refused like any other (422, never 500)', async () => {
  const { body } = await create();
  const { etag } = await read(body.id);
  const password = await f.api(`/admin/v1/users/${body.id}`, patchBody({ password: 'sneaky new password' }, etag));
  assert.deepEqual((await problemOf(password)).errors, [{ field: 'password', message: 'is set with POST /users/{id}/password' }]);
  for (const name of ['constructor', 'toString']) {
    const res = await f.api(`/admin/v1/users/${body.id}`, { ...patchBody({}, etag), body: `{"${name}": 1}` });
    assert.equal(res.status, 422, `${name}: ${await res.clone().text()}`);
    const problem = await problemOf(res);
    assert.equal(problem.errors?.[0]?.field, name);
    assert.equal(typeof problem.errors?.[0]?.message, 'string');
    assert.doesNotMatch(problem.errors![0]!.message, /function|native code/);
  }
  assert.equal((await read(body.id)).etag, etag);
});

test('two parallel PATCHes with the same ETag: exactly one wins, the other is 412', async () => {
  const { body } = await create();
  const { etag } = await read(body.id);
  const answers = await Promise.all(['First', 'Second'].map((name) => f.api(`/admin/v1/users/${body.id}`, patchBody({ name }, etag))));
  assert.deepEqual(answers.map((r) => r.status).sort(), [200, 412]);
  const winner = (await answers.find((r) => r.status === 200)!.json()) as UserBody;
  assert.equal((await read(body.id)).body.name, winner.name);
});

test('PUT replaces the profile (absent members become null); renaming to a taken username is 409', async () => {
  const { body } = await create({ name: 'Full', email: 'put@example.com' });
  const { etag } = await read(body.id);
  const renamed = uniqueName('renamed');
  const res = await put(body.id, { username: renamed, given_name: 'Only' }, etag);
  assert.equal(res.status, 200, await res.clone().text());
  const replaced = (await res.json()) as UserBody;
  assert.equal(replaced.username, renamed);
  assert.equal(replaced.name, null);
  assert.equal(replaced.email, null);
  assert.equal(replaced.given_name, 'Only');
  const other = await create();
  const clash = await put(body.id, { username: other.body.username }, res.headers.get('etag')!);
  assert.equal(clash.status, 409);
});

test("DELETE with a stale ETag is 412; with the current one 204, the user's refresh tokens stop working and it is gone", async () => {
  const { body } = await create();
  const user = (await usersRepository(f.t.core.db, f.t.core.clock).findById(body.id))!;
  const tokens = await codeGrantTokens(f.t, oauthClient, user, ['openid', 'offline_access']);
  const { etag } = await read(body.id);
  assert.equal((await f.api(`/admin/v1/users/${body.id}`, { method: 'DELETE', headers: { 'if-match': '"stale"' } })).status, 412);
  assert.equal((await f.api(`/admin/v1/users/${body.id}`, { method: 'DELETE', headers: { 'if-match': etag } })).status, 204);
  assert.equal((await f.api(`/admin/v1/users/${body.id}`)).status, 404);
  assert.equal((await refreshWith(f.t.url, oauthClient, String(tokens.refresh_token))).body.error, 'invalid_grant');
  assert.ok((await eventsOf(body.id)).data.some((e) => e.type === 'admin.user.deleted'));
});
