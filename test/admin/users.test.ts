// /admin/v1/users under the API conventions (docs/admin-api.md): one rule per test, on real HTTP, with the
// rules shared with `gatehouse users ...` (src/admin-services/users-service.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { verifyPassword } from '../../src/crypto/passwords.js';
import { usersRepository } from '../../src/storage/users-repository.js';
import { createUserRecord, deleteUserRecord, setUserPassword, userServiceDeps } from '../../src/admin-services/index.js';
import { codeGrantTokens, createClient, refreshWith, type ClientFixture } from '../helpers/oauth-fixtures.js';
import { enrollTotp, factorsOf } from '../interaction/mfa/enroll.js';
import { adminFixture, createBody, patchBody, problemOf, type AdminFixture, walk } from './fixture.js';

const clock = manualClock(Date.now());
let f: AdminFixture;
let oauthClient: ClientFixture;
before(async () => {
  f = await adminFixture({ clock });
  oauthClient = await createClient(f.t.core.db, f.t.core.clock, { scopes: ['openid', 'offline_access'] });
});
after(() => f.t.close());

const PASSWORD = 'a long enough password';
type UserBody = Record<string, unknown> & { id: string; username: string };

let counter = 0;
const uniqueName = (stem = 'user') => `${stem}-${Date.now().toString(36)}-${counter++}`;

async function create(body: Record<string, unknown> = {}) {
  const res = await f.api('/admin/v1/users', createBody({ username: uniqueName(), password: PASSWORD, ...body }, crypto.randomUUID()));
  assert.equal(res.status, 201, await res.clone().text());
  return { res, body: (await res.json()) as UserBody };
}

async function read(id: string) {
  const res = await f.api(`/admin/v1/users/${encodeURIComponent(id)}`);
  assert.equal(res.status, 200, await res.clone().text());
  return { etag: res.headers.get('etag')!, body: (await res.json()) as UserBody };
}

const put = (id: string, doc: unknown, etag?: string) =>
  f.api(`/admin/v1/users/${id}`, { method: 'PUT', headers: { 'content-type': 'application/json', ...(etag ? { 'if-match': etag } : {}) }, body: JSON.stringify(doc) });

const setPassword = (id: string, password: string, headers: Record<string, string> = {}, token?: string) =>
  f.api(`/admin/v1/users/${id}/password`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ password }), ...(token ? { token } : {}) });

const eventsOf = async (id: string) =>
  (await (await f.api(`/admin/v1/audit-events?subject=${encodeURIComponent(id)}&limit=100`)).json()) as { data: { type: string; changed_fields: string[]; actor: Record<string, unknown> }[] };

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

test('the username rule is the CLI\'s: an invalid one is 422 naming username; a taken one (any case) is 409 conflict', async () => {
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
  assert.ok(statuses.every((s) => s === 201 || s === 409), statuses.join(','));
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

test('DELETE with a stale ETag is 412; with the current one 204, the user\'s refresh tokens stop working and it is gone', async () => {
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

test('a password set through the API ends the user\'s refresh tokens (refresh → invalid_grant) and browser sessions', async () => {
  const { body } = await create();
  const user = (await usersRepository(f.t.core.db, f.t.core.clock).findById(body.id))!;
  const tokens = await codeGrantTokens(f.t, oauthClient, user, ['openid', 'offline_access']);
  const now = new Date(clock.now());
  await f.t.core.db.insertInto('browser_sessions').values({ id_hash: `h-${user.id}`, user_id: user.id, auth_time: now, csrf_token: 'x', created_at: now, expires_at: new Date(clock.now() + 3_600_000) }).execute();
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

test('resetting second factors removes the authenticator and recovery codes and ends the user\'s sessions (the reset-mfa rule)', async () => {
  const { body } = await create();
  const user = (await usersRepository(f.t.core.db, f.t.core.clock).findById(body.id))!;
  await enrollTotp(f.t, user);
  const enrolled = await read(body.id);
  assert.equal(enrolled.body.has_second_factor, true);
  assert.deepEqual(enrolled.body.second_factors, ['totp', 'recovery_codes']);
  const now = new Date(clock.now());
  await f.t.core.db.insertInto('browser_sessions').values({ id_hash: `mfa-${user.id}`, user_id: user.id, auth_time: now, csrf_token: 'x', created_at: now, expires_at: new Date(clock.now() + 3_600_000) }).execute();
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
  const post = (body: string) => f.api('/admin/v1/users', { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() }, body });
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
  const deepPatch = await f.api(`/admin/v1/users/${body.id}`, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json', 'if-match': etag }, body: `{"address":${'['.repeat(5000)}${']'.repeat(5000)}}` });
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
  assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer');
  const foreign = await f.api('/admin/v1/users', { token: 'not-a-token' });
  assert.equal(foreign.status, 401);
  assert.match(foreign.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
});

test('the CLI and the API share the rules: users created by either are listed by both, and the CLI\'s changes are audited as the CLI', async () => {
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
  const operations = Object.values(doc.paths).flatMap((p) => Object.values(p)).filter((o) => o.tags?.includes('admin: users')).map((o) => o.operationId);
  for (const id of ['adminCreateUser', 'adminListUsers', 'adminGetUser', 'adminReplaceUser', 'adminPatchUser', 'adminDeleteUser', 'adminSetUserPassword', 'adminResetUserSecondFactors']) {
    assert.ok(operations.includes(id), `${id} missing`);
  }
});

test('a change and its audit event commit together: when the event cannot be written, the create, password set and delete do not happen', async () => {
  const failing = { ...f.t.core.audit, emit: async () => { throw new Error('audit store unavailable'); } };
  const deps = userServiceDeps(f.t.core, failing);
  const as = { actor: { kind: 'system' as const } };
  const username = uniqueName('unaudited');
  await assert.rejects(createUserRecord(deps, { username, password: PASSWORD, name: null, given_name: null, family_name: null, email: null, phone_number: null, address: null }, as), /audit store unavailable/);
  assert.equal(await usersRepository(f.t.core.db, f.t.core.clock).findByUsername(username), undefined);
  const { body } = await create();
  await assert.rejects(setUserPassword(deps, body.id, 'an unaudited password', as), /audit store unavailable/);
  const stored = await usersRepository(f.t.core.db, f.t.core.clock).findById(body.id);
  assert.ok(await verifyPassword(stored!.passwordHash, PASSWORD), 'the password did not change');
  await assert.rejects(deleteUserRecord(deps, body.id, as), /audit store unavailable/);
  assert.equal((await read(body.id)).body.id, body.id, 'the user still exists');
});
