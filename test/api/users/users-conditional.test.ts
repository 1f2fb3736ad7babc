// RFC 9110 §13 conditional requests and §12 content negotiation on /v1/users, one rule per test.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { usersRepository } from '../../../src/storage/repositories/users-repository.js';
import { json, problemOf, usersFixture, type UsersFixture } from './fixture.js';

let f: UsersFixture;
before(async () => {
  f = await usersFixture();
});
after(() => f.t.close());

const me = () => `/v1/users/${f.u1.id}`;
async function current() {
  const res = await f.api(me());
  assert.equal(res.status, 200);
  return { etag: res.headers.get('etag')!, lastModified: res.headers.get('last-modified')!, res };
}
const patch = (body: unknown, headers: Record<string, string> = {}) =>
  f.api(me(), { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json', ...headers }, body: JSON.stringify(body) });

test('GET answers a strong quoted ETag and Last-Modified', async () => {
  const { etag, lastModified } = await current();
  assert.match(etag, /^"[^"]+"$/);
  assert.ok(!Number.isNaN(Date.parse(lastModified)));
});

test('If-None-Match with the current ETag answers 304 with no body, keeping ETag, Cache-Control and Vary', async () => {
  const { etag, res } = await current();
  const cached = await f.api(me(), { headers: { 'if-none-match': etag } });
  assert.equal(cached.status, 304);
  assert.equal(await cached.text(), '');
  assert.equal(cached.headers.get('etag'), etag);
  assert.equal(cached.headers.get('cache-control'), res.headers.get('cache-control'));
  assert.equal(cached.headers.get('vary'), res.headers.get('vary'));
});

test('If-None-Match uses weak comparison: W/"<current>" answers 304', async () => {
  const { etag } = await current();
  assert.equal((await f.api(me(), { headers: { 'if-none-match': `W/${etag}` } })).status, 304);
});

test('If-None-Match with a stale tag answers 200; with * on an existing user answers 304; a list matches any member', async () => {
  const { etag } = await current();
  assert.equal((await f.api(me(), { headers: { 'if-none-match': '"stale"' } })).status, 200);
  assert.equal((await f.api(me(), { headers: { 'if-none-match': '*' } })).status, 304);
  assert.equal((await f.api(me(), { headers: { 'if-none-match': `"a", ${etag}, "b"` } })).status, 304);
});

test('If-Modified-Since at or after Last-Modified answers 304; before it answers 200 (one-second granularity)', async () => {
  const { lastModified } = await current();
  assert.equal((await f.api(me(), { headers: { 'if-modified-since': lastModified } })).status, 304);
  const earlier = new Date(Date.parse(lastModified) - 1000).toUTCString();
  assert.equal((await f.api(me(), { headers: { 'if-modified-since': earlier } })).status, 200);
});

test('If-Modified-Since is ignored when If-None-Match is present', async () => {
  const later = new Date(Date.now() + 3_600_000).toUTCString();
  const res = await f.api(me(), { headers: { 'if-none-match': '"stale"', 'if-modified-since': later } });
  assert.equal(res.status, 200);
});

test('an invalid If-Modified-Since date is ignored', async () => {
  assert.equal((await f.api(me(), { headers: { 'if-modified-since': 'yesterday' } })).status, 200);
});

test('HEAD honours If-None-Match like GET', async () => {
  const { etag } = await current();
  assert.equal((await f.api(me(), { method: 'HEAD', headers: { 'if-none-match': etag } })).status, 304);
});

test('If-Match uses strong comparison: W/"<current>" on PATCH is 412 and nothing changes', async () => {
  const { etag } = await current();
  const res = await patch({ name: 'weak' }, { 'if-match': `W/${etag}` });
  assert.equal(res.status, 412);
  assert.equal((await problemOf(res)).code, 'precondition-failed');
  assert.equal((await current()).etag, etag);
});

test('If-Match with the current ETag succeeds and answers the new ETag; the old one then fails with 412', async () => {
  const { etag } = await current();
  const res = await patch({ name: 'v2' }, { 'if-match': etag });
  assert.equal(res.status, 200);
  const next = res.headers.get('etag');
  assert.ok(next && next !== etag);
  assert.equal((await patch({ name: 'v3' }, { 'if-match': etag })).status, 412);
  assert.equal((await patch({ name: 'v3' }, { 'if-match': next })).status, 200);
});

test('If-Match: * succeeds on an existing user and is 412 on one that does not exist', async () => {
  assert.equal((await patch({ name: 'star' }, { 'if-match': '*' })).status, 200);
  const gone = await f.createUser('gone-soon');
  await usersRepository(f.t.core.db, f.t.core.clock).delete(gone.id);
  const res = await f.api(`/v1/users/${gone.id}`, {
    ...json({ username: 'gone-soon' }, 'PUT'),
    headers: { 'content-type': 'application/json', 'if-match': '*' },
    token: f.tokens.service,
  });
  assert.equal(res.status, 412);
});

test('PUT with If-None-Match: * on an existing user is 412', async () => {
  const res = await f.api(me(), {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'if-none-match': '*' },
    body: JSON.stringify({ username: 'u1' }),
  });
  assert.equal(res.status, 412);
});

test('If-Unmodified-Since before Last-Modified is 412; at Last-Modified the write proceeds', async () => {
  const { lastModified } = await current();
  const earlier = new Date(Date.parse(lastModified) - 5000).toUTCString();
  assert.equal((await patch({ name: 'ius' }, { 'if-unmodified-since': earlier })).status, 412);
  assert.equal((await patch({ name: 'ius' }, { 'if-unmodified-since': lastModified })).status, 200);
});

test('DELETE with a stale If-Match is 412 and the user survives', async () => {
  const user = await f.createUser('keeper');
  const res = await f.api(`/v1/users/${user.id}`, { method: 'DELETE', headers: { 'if-match': '"stale"' }, token: f.tokens.service });
  assert.equal(res.status, 412);
  assert.ok(await usersRepository(f.t.core.db, f.t.core.clock).findById(user.id));
});

test('two parallel PUTs with the same If-Match: exactly one wins, the other gets 412 (no lost update)', async () => {
  const { etag } = await current();
  const put = (name: string) =>
    f.api(me(), { method: 'PUT', headers: { 'content-type': 'application/json', 'if-match': etag }, body: JSON.stringify({ username: 'u1', name }) });
  const statuses = (await Promise.all([put('A'), put('B'), put('C'), put('D')])).map((r) => r.status).sort();
  assert.deepEqual(statuses, [200, 412, 412, 412]);
});

test('Accept: application/xml or application/json;q=0 is 406 problem; the 200 carries Vary: Accept', async () => {
  for (const accept of ['application/xml', 'application/json;q=0', 'text/html']) {
    const res = await f.api(me(), { headers: { accept } });
    assert.equal(res.status, 406, accept);
    assert.equal((await problemOf(res)).code, 'not-acceptable');
  }
  assert.match((await current()).res.headers.get('vary') ?? '', /Accept/);
});

test('Accept absent, */*, application/* or a list preferring JSON answers application/json', async () => {
  for (const accept of [undefined, '*/*', 'application/*', 'text/html;q=0.9, application/json;q=0.5', 'APPLICATION/JSON']) {
    const res = await f.api(me(), { headers: accept ? { accept } : {} });
    assert.equal(res.status, 200, accept);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  }
});

test('merge patch follows RFC 7396: null removes, nested objects merge, arrays and scalars replace', async () => {
  await patch({ name: 'Full Name', given_name: 'Given', address: { locality: 'Bern', country: 'CH' } });
  const res = await patch({ name: null, address: { locality: 'Zürich', country: null, region: 'ZH' } });
  assert.equal(res.status, 200);
  const body = (await res.json()) as Record<string, unknown>;
  assert.equal(body.name, null);
  assert.equal(body.given_name, 'Given');
  assert.deepEqual(body.address, { locality: 'Zürich', region: 'ZH' });
});

test('PATCH requires application/merge-patch+json: application/json is 415', async () => {
  const res = await f.api(me(), json({ name: 'x' }, 'PATCH'));
  assert.equal(res.status, 415);
});

test('a non-object merge patch on the typed user is 422 and the user is unchanged', async () => {
  const { etag } = await current();
  for (const body of [['a'], 'bar', null, 42, true]) {
    const res = await patch(body);
    assert.equal(res.status, 422, JSON.stringify(body));
    assert.equal((await problemOf(res)).code, 'VALIDATION_ERROR');
  }
  assert.equal((await current()).etag, etag);
});

test('a merge patch changing a read-only field (id, created_at, updated_at) is 422 and nothing changes', async () => {
  const { etag } = await current();
  for (const body of [{ id: 'someone-else' }, { created_at: '2000-01-01T00:00:00.000Z' }, { updated_at: null }, { id: null, name: 'x' }]) {
    const res = await patch(body);
    assert.equal(res.status, 422, JSON.stringify(body));
  }
  assert.equal((await current()).etag, etag);
});

test('a merge patch repeating the current id unchanged is accepted', async () => {
  assert.equal((await patch({ id: f.u1.id, family_name: 'Same' })).status, 200);
});

test('a merge patch nulling a required field (username, password, email_verified) is 422', async () => {
  for (const body of [{ username: null }, { password: null }, { email_verified: null }]) {
    const res = await patch(body);
    assert.equal(res.status, 422, JSON.stringify(body));
  }
});

test('a merge patch with a wrong JSON type is 400; with an invalid value 422; unknown members are ignored', async () => {
  assert.equal((await patch({ name: 5 })).status, 400);
  assert.equal((await patch({ email: 'nope' })).status, 422);
  const res = await patch({ shoe_size: 44, family_name: 'Known' });
  assert.equal(res.status, 200);
  assert.ok(!('shoe_size' in ((await res.json()) as object)));
});

test('a merge patch changes the password (write-only) when it is a valid string sent with the current one', async () => {
  const res = await patch({ password: 'another long password', current_password: 'correct horse battery' });
  assert.equal(res.status, 200);
  assert.doesNotMatch(await res.text(), /password/);
});
