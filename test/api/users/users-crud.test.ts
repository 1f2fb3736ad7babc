// /v1/users: methods, status codes, validation, object-level access (IDOR → 404) and write-only password.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { usersRepository } from '../../../src/storage/repositories/users-repository.js';
import { verifyPassword } from '../../../src/crypto/passwords.js';
import { json, problemOf, usersFixture, type UsersFixture } from './fixture.js';

let f: UsersFixture;
before(async () => {
  f = await usersFixture();
});
after(() => f.t.close());

const svc = () => f.tokens.service;

test('POST /v1/users by a service token creates the user: 201, absolute Location, representation without password', async () => {
  const res = await f.api('/v1/users', { ...json({ username: 'carol', password: 'long enough pw', name: 'Carol' }), token: svc() });
  assert.equal(res.status, 201);
  const body = (await res.json()) as Record<string, unknown>;
  const location = res.headers.get('location') ?? '';
  assert.equal(location, `${f.t.url}/v1/users/${body.id}`);
  assert.equal(body.name, 'Carol');
  assert.ok(!('password' in body) && !('passwordHash' in body) && !('password_hash' in body));
  const again = await f.api(new URL(location).pathname, { token: svc() });
  assert.equal(again.status, 200);
});

test('POST /v1/users with a user token, even with users:write, is 403: only service clients create users', async () => {
  const res = await f.api('/v1/users', { ...json({ username: 'mallory', password: 'long enough pw' }), token: f.tokens.u1 });
  assert.equal(res.status, 403);
  assert.equal((await problemOf(res)).code, 'forbidden');
});

test('POST /v1/users without users:write is 403 insufficient_scope', async () => {
  const res = await f.api('/v1/users', { ...json({ username: 'x1', password: 'long enough pw' }), token: f.tokens.serviceReadOnly });
  assert.equal(res.status, 403);
  assert.match(res.headers.get('www-authenticate') ?? '', /insufficient_scope.*scope="users:write"/);
});

test('POST /v1/users with a taken username (case-insensitive) is 409 conflict', async () => {
  const res = await f.api('/v1/users', { ...json({ username: 'U1', password: 'long enough pw' }), token: svc() });
  assert.equal(res.status, 409);
  assert.equal((await problemOf(res)).code, 'conflict');
});

test('semantic validation failures are 422 VALIDATION_ERROR listing every field', async () => {
  const res = await f.api('/v1/users', { ...json({ username: 'bad name!', password: 'short', email: 'not-an-email', phone_number: 'call me' }), token: svc() });
  assert.equal(res.status, 422);
  const problem = await problemOf(res);
  assert.equal(problem.code, 'VALIDATION_ERROR');
  assert.deepEqual(problem.errors?.map((e) => e.field).sort(), ['email', 'password', 'phone_number', 'username']);
});

test('wrong JSON types and missing required fields are 400, malformed JSON is 400', async () => {
  for (const body of [
    { username: 5, password: 'long enough pw' },
    { username: 'x2' },
    { username: 'x3', password: 'long enough pw', email_verified: 'yes' },
    '{"username":',
  ]) {
    const res = await f.api('/v1/users', { ...json(body), token: svc() });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal((await problemOf(res)).code, 'bad-request');
  }
});

test('unknown fields in the body are ignored, not stored and not echoed', async () => {
  const res = await f.api('/v1/users', {
    ...json({ username: 'dave', password: 'long enough pw', admin: true, address: { locality: 'Bern', planet: 'Mars' } }),
    token: svc(),
  });
  assert.equal(res.status, 201);
  const body = (await res.json()) as Record<string, unknown>;
  assert.ok(!('admin' in body));
  assert.deepEqual(body.address, { locality: 'Bern' });
});

test('a POST/PUT body that is not JSON (text/plain, form, none) is 415', async () => {
  const cases: RequestInit[] = [
    { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' },
    { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'username=x&password=yyyyyyyy' },
    { method: 'POST', body: new Uint8Array(Buffer.from('{"username":"x","password":"yyyyyyyy"}')) },
  ];
  for (const init of cases) {
    const res = await f.api('/v1/users', { ...init, token: svc() });
    assert.equal(res.status, 415);
    assert.equal((await problemOf(res)).code, 'unsupported-media-type');
  }
  const put = await f.api(`/v1/users/${f.u1.id}`, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'x' });
  assert.equal(put.status, 415);
});

test('GET /v1/users/me answers the token user; a service token has no "me" (404)', async () => {
  const res = await f.api('/v1/users/me');
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as { id: string }).id, f.u1.id);
  assert.equal((await f.api('/v1/users/me', { token: svc() })).status, 404);
});

test('IDOR: a user token reading another user gets the same 404 as a user that does not exist', async () => {
  const other = await f.api(`/v1/users/${f.u2.id}`);
  const missing = await f.api('/v1/users/00000000-0000-0000-0000-000000000000');
  assert.equal(other.status, 404);
  assert.equal(missing.status, 404);
  const [a, b] = [await problemOf(other), await problemOf(missing)];
  assert.equal(a.code, b.code);
  assert.equal(other.headers.get('etag'), null);
});

test('IDOR: a user token cannot replace, patch or delete another user (404) and the user is unchanged', async () => {
  const target = `/v1/users/${f.u2.id}`;
  assert.equal((await f.api(target, json({ username: 'u2', name: 'pwned' }, 'PUT'))).status, 404);
  assert.equal((await f.api(target, json({ name: 'pwned' }, 'PATCH', 'application/merge-patch+json'))).status, 404);
  assert.equal((await f.api(target, { method: 'DELETE' })).status, 404);
  assert.equal(
    (await f.api(target, { method: 'PUT', headers: { 'if-match': '*', 'content-type': 'application/json' }, body: '{"username":"u2"}' })).status,
    404,
  );
  const stored = await usersRepository(f.t.core.db, f.t.core.clock).findById(f.u2.id);
  assert.equal(stored?.name, null);
  assert.equal(stored?.version, f.u2.version);
});

test('a service token with users:read reads any user', async () => {
  const res = await f.api(`/v1/users/${f.u2.id}`, { token: f.tokens.serviceReadOnly });
  assert.equal(res.status, 200);
});

test('a token without users:read is 403 insufficient_scope on GET', async () => {
  const res = await f.api('/v1/users/me', { token: f.tokens.noScope });
  assert.equal(res.status, 403);
  assert.match(res.headers.get('www-authenticate') ?? '', /scope="users:read"/);
});

test('PUT replaces the whole user: omitted fields are reset, the password is kept when not sent', async () => {
  const user = await f.createUser('erin');
  const path = `/v1/users/${user.id}`;
  const res = await f.api(path, { ...json({ username: 'erin', name: 'Erin', address: { country: 'CH' } }, 'PUT'), token: svc() });
  assert.equal(res.status, 200);
  const body = (await res.json()) as Record<string, unknown>;
  assert.equal(body.email, null, 'omitted email reset');
  assert.equal(body.name, 'Erin');
  const repo = usersRepository(f.t.core.db, f.t.core.clock);
  assert.ok(await verifyPassword((await repo.findById(user.id))!.passwordHash, 'correct horse battery'));
});

test('nobody raises a verified flag through the API (422), neither the user nor a service client', async () => {
  for (const token of [f.tokens.u1, svc()]) {
    const res = await f.api(`/v1/users/${f.u1.id}`, { ...json({ email_verified: true }, 'PATCH', 'application/merge-patch+json'), token });
    assert.equal(res.status, 422);
    assert.equal((await problemOf(res)).errors?.[0]?.field, 'email_verified');
  }
});

test('DELETE answers 204 without a body, and a repeat answers 404', async () => {
  const user = await f.createUser('frank');
  const first = await f.api(`/v1/users/${user.id}`, { method: 'DELETE', token: svc() });
  assert.equal(first.status, 204);
  assert.equal(await first.text(), '');
  assert.equal((await f.api(`/v1/users/${user.id}`, { method: 'DELETE', token: svc() })).status, 404);
  assert.equal((await f.api(`/v1/users/${user.id}`, { token: svc() })).status, 404);
});

test('HEAD answers like GET without a body', async () => {
  const get = await f.api('/v1/users/me');
  const head = await f.api('/v1/users/me', { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(await head.text(), '');
  assert.equal(head.headers.get('etag'), get.headers.get('etag'));
  assert.equal(head.headers.get('last-modified'), get.headers.get('last-modified'));
  assert.equal(head.headers.get('content-type'), get.headers.get('content-type'));
});

test('OPTIONS answers 204 with Allow, without needing a token; an unknown path is 404', async () => {
  const res = await f.api(`/v1/users/${f.u1.id}`, { method: 'OPTIONS', token: undefined });
  assert.equal(res.status, 204);
  assert.equal(res.headers.get('allow'), 'DELETE, GET, HEAD, OPTIONS, PATCH, PUT');
  const collection = await f.api('/v1/users', { method: 'OPTIONS', token: undefined });
  assert.equal(collection.headers.get('allow'), 'OPTIONS, POST');
  assert.equal((await f.api('/v1/nothing-here', { method: 'OPTIONS', token: undefined })).status, 404);
  assert.equal((await f.api('/v1/nothing-here', { token: undefined })).status, 404);
});

test('a resource that takes PATCH says which patch format in Accept-Patch (OPTIONS, GET, and the 415 of a wrong one)', async () => {
  const url = `/v1/users/${f.u1.id}`;
  assert.equal((await f.api(url, { method: 'OPTIONS', token: undefined })).headers.get('accept-patch'), 'application/merge-patch+json');
  assert.equal((await f.api(url)).headers.get('accept-patch'), 'application/merge-patch+json');
  const wrong = await f.api(url, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{}' });
  assert.equal(wrong.status, 415);
  assert.equal(wrong.headers.get('accept-patch'), 'application/merge-patch+json');
  const collection = await f.api('/v1/users', { method: 'OPTIONS', token: undefined });
  assert.equal(collection.headers.get('accept-patch'), null, 'no PATCH here, no Accept-Patch');
});

test('a method the resource does not support is 405 with Allow', async () => {
  const res = await f.api(`/v1/users/${f.u1.id}`, json({}, 'POST'));
  assert.equal(res.status, 405);
  assert.equal(res.headers.get('allow'), 'DELETE, GET, HEAD, OPTIONS, PATCH, PUT');
});

test('the password and its hash never appear in any users response', async () => {
  const responses = await Promise.all([
    f.api('/v1/users/me'),
    f.api(`/v1/users/${f.u1.id}`, json({ name: 'One' }, 'PATCH', 'application/merge-patch+json')),
    f.api('/v1/users', { ...json({ username: 'gina', password: 'secret password 1' }), token: svc() }),
  ]);
  for (const res of responses) {
    const text = await res.text();
    assert.doesNotMatch(text, /password|argon2|secret password 1/i);
  }
});

test('authenticated responses are private, no-cache; never public', async () => {
  for (const res of [await f.api('/v1/users/me'), await f.api('/v1/users', { ...json({ username: 'hank', password: 'long enough pw' }), token: svc() })]) {
    assert.equal(res.headers.get('cache-control'), 'private, no-cache');
  }
});
