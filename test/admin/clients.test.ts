// /admin/v1/clients under the API conventions (docs/admin-api.md): one rule per test, on real HTTP.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { adminFixture, createBody, patchBody, problemOf, SERVICE_CLIENT, type AdminFixture, walk } from './fixture.js';

const clock = manualClock(Date.now());
let f: AdminFixture;
before(async () => {
  f = await adminFixture({ clock });
});
after(() => f.t.close());

async function create(body: unknown = SERVICE_CLIENT) {
  const res = await f.api('/admin/v1/clients', createBody(body, crypto.randomUUID()));
  assert.equal(res.status, 201, await res.clone().text());
  return { res, body: (await res.json()) as Record<string, unknown> };
}

async function read(id: string) {
  const res = await f.api(`/admin/v1/clients/${encodeURIComponent(id)}`);
  assert.equal(res.status, 200);
  return { etag: res.headers.get('etag')!, body: (await res.json()) as Record<string, unknown> };
}

test('create requires an Idempotency-Key: without one 400 missing-idempotency-key and no client is made', async () => {
  const res = await f.api('/admin/v1/clients', createBody({ ...SERVICE_CLIENT, client_name: 'No key' }));
  assert.equal(res.status, 400);
  assert.equal((await problemOf(res)).code, 'missing-idempotency-key');
  assert.equal((await f.t.core.db.selectFrom('clients').select('id').where('name', '=', 'No key').execute()).length, 0);
});

test('create answers 201 with Location, a strong ETag and the secret once; the secret obtains a token', async () => {
  const { res, body } = await create();
  assert.match(res.headers.get('location') ?? '', new RegExp(`/admin/v1/clients/${body.client_id}$`));
  assert.match(res.headers.get('etag') ?? '', /^"[^"]+"$/);
  assert.equal(typeof body.client_secret, 'string');
  const token = await f.tokenFor(String(body.client_id), String(body.client_secret), 'orders:read');
  assert.equal(token.status, 200);
});

test('secrets appear only in the create response: never in reads, lists, idempotent replays, audit events or logs', async () => {
  const key = crypto.randomUUID();
  const first = await f.api('/admin/v1/clients', createBody({ ...SERVICE_CLIENT, client_name: 'Secretive' }, key));
  const created = (await first.json()) as Record<string, unknown>;
  const secret = String(created.client_secret);
  const replay = await f.api('/admin/v1/clients', createBody({ ...SERVICE_CLIENT, client_name: 'Secretive' }, key));
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  const replayed = await replay.text();
  const { body } = await read(String(created.client_id));
  const list = await (await f.api('/admin/v1/clients?limit=100')).text();
  const events = await (await f.api(`/admin/v1/audit-events?subject=${created.client_id}`)).text();
  const stored = JSON.stringify(await f.t.core.db.selectFrom('idempotency_keys').selectAll().execute());
  for (const [where, text] of Object.entries({ replayed, read: JSON.stringify(body), list, events, stored, logs: f.logText() })) {
    assert.ok(!text.includes(secret), `the secret leaked into ${where}`);
  }
  assert.ok(!('client_secret' in body) && !('secret_hash' in body));
});

test('ten parallel creates with one Idempotency-Key make exactly one client', async () => {
  const key = crypto.randomUUID();
  const body = { ...SERVICE_CLIENT, client_name: 'Parallel once' };
  const answers = await Promise.all(Array.from({ length: 10 }, () => f.api('/admin/v1/clients', createBody(body, key))));
  const statuses = answers.map((r) => r.status);
  assert.ok(
    statuses.every((s) => s === 201 || s === 409),
    statuses.join(','),
  );
  assert.ok(statuses.includes(201));
  const rows = await f.t.core.db.selectFrom('clients').select('id').where('name', '=', 'Parallel once').execute();
  assert.equal(rows.length, 1);
});

test('the same Idempotency-Key with a different body is 422 idempotency-key-reuse', async () => {
  const key = crypto.randomUUID();
  await f.api('/admin/v1/clients', createBody({ ...SERVICE_CLIENT, client_name: 'A' }, key));
  const res = await f.api('/admin/v1/clients', createBody({ ...SERVICE_CLIENT, client_name: 'B' }, key));
  assert.equal(res.status, 422);
  assert.equal((await problemOf(res)).code, 'idempotency-key-reuse');
});

test('invalid metadata is 422 VALIDATION_ERROR naming the field; an unknown member is 400', async () => {
  const bad = await f.api('/admin/v1/clients', createBody({ ...SERVICE_CLIENT, allowed_origins: ['not an origin'] }, crypto.randomUUID()));
  assert.equal(bad.status, 422);
  assert.equal((await problemOf(bad)).errors?.[0]?.field, 'allowed_origins');
  const unknown = await f.api('/admin/v1/clients', createBody({ ...SERVICE_CLIENT, colour: 'red' }, crypto.randomUUID()));
  assert.equal(unknown.status, 400);
});

test('reads carry a strong ETag; If-None-Match with it is 304', async () => {
  const { body } = await create();
  const { etag } = await read(String(body.client_id));
  assert.match(etag, /^"[^"]+"$/);
  const cached = await f.api(`/admin/v1/clients/${body.client_id}`, { headers: { 'if-none-match': etag } });
  assert.equal(cached.status, 304);
});

test('unknown ids are 404 problems on read, write and delete', async () => {
  assert.equal((await problemOf(await f.api('/admin/v1/clients/nope'))).code, 'not-found');
  assert.equal((await f.api('/admin/v1/clients/nope', patchBody({ client_name: 'x' }, '"x"'))).status, 404);
  assert.equal((await f.api('/admin/v1/clients/nope', { method: 'DELETE', headers: { 'if-match': '"x"' } })).status, 404);
});

test('PATCH, PUT and DELETE without If-Match are 428 precondition-required and change nothing', async () => {
  const { body } = await create();
  const before = await read(String(body.client_id));
  const patch = await f.api(`/admin/v1/clients/${body.client_id}`, patchBody({ client_name: 'Changed' }));
  assert.equal(patch.status, 428);
  assert.equal((await problemOf(patch)).code, 'precondition-required');
  const put = await f.api(`/admin/v1/clients/${body.client_id}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(SERVICE_CLIENT),
  });
  assert.equal(put.status, 428);
  assert.equal((await f.api(`/admin/v1/clients/${body.client_id}`, { method: 'DELETE' })).status, 428);
  assert.equal((await read(String(body.client_id))).etag, before.etag);
});

test('PATCH with the current ETag applies a merge patch and answers the new ETag; the old ETag is then 412', async () => {
  const { body } = await create();
  const { etag } = await read(String(body.client_id));
  const res = await f.api(`/admin/v1/clients/${body.client_id}`, patchBody({ client_name: 'Renamed', allowed_origins: ['https://app.example'] }, etag));
  assert.equal(res.status, 200);
  const patched = (await res.json()) as Record<string, unknown>;
  assert.equal(patched.client_name, 'Renamed');
  assert.deepEqual(patched.allowed_origins, ['https://app.example']);
  assert.equal(patched.scope, 'orders:read');
  assert.notEqual(res.headers.get('etag'), etag);
  const stale = await f.api(`/admin/v1/clients/${body.client_id}`, patchBody({ client_name: 'Again' }, etag));
  assert.equal(stale.status, 412);
  assert.equal((await problemOf(stale)).code, 'precondition-failed');
});

test('a merge patch changing a read-only member is 422 and changes nothing', async () => {
  const { body } = await create();
  const { etag } = await read(String(body.client_id));
  const res = await f.api(`/admin/v1/clients/${body.client_id}`, patchBody({ client_id: 'other', client_name: 'X' }, etag));
  assert.equal(res.status, 422);
  assert.equal((await problemOf(res)).errors?.[0]?.field, 'client_id');
  assert.equal((await read(String(body.client_id))).etag, etag);
});

test('two parallel PATCHes with the same ETag: exactly one wins, the other is 412', async () => {
  const { body } = await create();
  const { etag } = await read(String(body.client_id));
  const answers = await Promise.all(['First', 'Second'].map((name) => f.api(`/admin/v1/clients/${body.client_id}`, patchBody({ client_name: name }, etag))));
  assert.deepEqual(answers.map((r) => r.status).sort(), [200, 412]);
  const winner = (await answers.find((r) => r.status === 200)!.json()) as Record<string, unknown>;
  assert.equal((await read(String(body.client_id))).body.client_name, winner.client_name);
});

test('PUT replaces the settings (If-Match); a change of client type is 422', async () => {
  const { body } = await create();
  const { etag } = await read(String(body.client_id));
  const put = (doc: unknown, tag: string) =>
    f.api(`/admin/v1/clients/${body.client_id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'if-match': tag },
      body: JSON.stringify(doc),
    });
  const res = await put({ ...SERVICE_CLIENT, client_name: 'Replaced', scope: 'orders:read users:read' }, etag);
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as { scope: string }).scope, 'orders:read users:read');
  const typeChange = await put(
    { client_name: 'Pub', token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], redirect_uris: ['https://a.example/cb'] },
    res.headers.get('etag')!,
  );
  assert.equal(typeChange.status, 422);
});

test('DELETE with a stale ETag is 412; with the current one 204, its tokens stop working and it is gone', async () => {
  const { body } = await create();
  const token = String((await f.tokenFor(String(body.client_id), String(body.client_secret), 'orders:read')).body.access_token);
  const { etag } = await read(String(body.client_id));
  assert.equal((await f.api(`/admin/v1/clients/${body.client_id}`, { method: 'DELETE', headers: { 'if-match': '"stale"' } })).status, 412);
  assert.equal((await f.api(`/admin/v1/clients/${body.client_id}`, { method: 'DELETE', headers: { 'if-match': etag } })).status, 204);
  assert.equal((await f.api(`/admin/v1/clients/${body.client_id}`)).status, 404);
  const orders = await fetch(`${f.t.url}/v1/orders`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(orders.status, 401);
});

test('lists are cursor pages with Link rel="next", stable while clients are added', async () => {
  for (let i = 0; i < 3; i++) await create({ ...SERVICE_CLIENT, client_name: `Paged ${i}` });
  const seen = (
    await walk<{ client_id: string }>(f, '/admin/v1/clients?limit=2', async () => {
      clock.advance(1000);
      await create({ ...SERVICE_CLIENT, client_name: 'Added while paging' });
    })
  ).map((c) => c.client_id);
  assert.equal(new Set(seen).size, seen.length, 'no duplicates');
  const all = await f.t.core.db.selectFrom('clients').select('id').execute();
  assert.equal(seen.length, all.length, 'no gaps');
});

test('a forged cursor is 400 invalid-cursor', async () => {
  const res = await f.api('/admin/v1/clients?cursor=abc.def');
  assert.equal(res.status, 400);
  assert.equal((await problemOf(res)).code, 'invalid-cursor');
});

test('405 with Allow for an unsupported method; OPTIONS lists the methods', async () => {
  const res = await f.api('/admin/v1/clients', { method: 'DELETE' });
  assert.equal(res.status, 405);
  assert.equal((await problemOf(res)).code, 'method-not-allowed');
  assert.match(res.headers.get('allow') ?? '', /GET/);
  assert.match(res.headers.get('allow') ?? '', /POST/);
});

test('415 for a body that is not JSON (and for PATCH that is not merge-patch)', async () => {
  const res = await f.api('/admin/v1/clients', {
    method: 'POST',
    headers: { 'content-type': 'text/plain', 'idempotency-key': crypto.randomUUID() },
    body: 'x',
  });
  assert.equal(res.status, 415);
  assert.equal((await problemOf(res)).code, 'unsupported-media-type');
  const { body } = await create();
  const { etag } = await read(String(body.client_id));
  const patch = await f.api(`/admin/v1/clients/${body.client_id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', 'if-match': etag },
    body: '{}',
  });
  assert.equal(patch.status, 415);
  assert.equal(patch.headers.get('accept-patch'), 'application/merge-patch+json', 'the 415 names the patch format (RFC 5789 §3.1)');
  assert.equal((await f.api(`/admin/v1/clients/${body.client_id}`)).headers.get('accept-patch'), 'application/merge-patch+json');
});

test('413 for a body over the JSON size limit', async () => {
  const huge = { ...SERVICE_CLIENT, client_name: 'x'.repeat(f.t.config.JSON_BODY_LIMIT + 10) };
  const res = await f.api('/admin/v1/clients', createBody(huge, crypto.randomUUID()));
  assert.equal(res.status, 413);
  assert.equal((await problemOf(res)).code, 'payload-too-large');
});

test('secret rotation: both secrets work until the chosen time, then only the new one; the response is the only place the new secret appears', async () => {
  const { body } = await create();
  const id = String(body.client_id);
  const oldSecret = String(body.client_secret);
  const expires = new Date(clock.now() + 60_000).toISOString();
  const res = await f.api(`/admin/v1/clients/${id}/secrets`, createBody({ previous_secret_expires_at: expires }, crypto.randomUUID()));
  assert.equal(res.status, 201);
  const rotated = (await res.json()) as { client_secret: string; previous_secret_expires_at: string };
  assert.equal(rotated.previous_secret_expires_at, expires);
  assert.equal((await f.tokenFor(id, oldSecret, 'orders:read')).status, 200);
  assert.equal((await f.tokenFor(id, rotated.client_secret, 'orders:read')).status, 200);
  clock.advance(61_000);
  assert.equal((await f.tokenFor(id, oldSecret, 'orders:read')).status, 401);
  assert.equal((await f.tokenFor(id, rotated.client_secret, 'orders:read')).status, 200);
  assert.ok(!JSON.stringify((await read(id)).body).includes(rotated.client_secret));
  assert.ok(!f.logText().includes(rotated.client_secret));
});

test('secret rotation without an expiry ends the old secret at once; an expiry in the past or beyond 30 days is 422', async () => {
  const { body } = await create();
  const id = String(body.client_id);
  const past = await f.api(
    `/admin/v1/clients/${id}/secrets`,
    createBody({ previous_secret_expires_at: new Date(clock.now() - 1000).toISOString() }, crypto.randomUUID()),
  );
  assert.equal(past.status, 422);
  const far = await f.api(
    `/admin/v1/clients/${id}/secrets`,
    createBody({ previous_secret_expires_at: new Date(clock.now() + 31 * 86400_000).toISOString() }, crypto.randomUUID()),
  );
  assert.equal(far.status, 422);
  const res = await f.api(`/admin/v1/clients/${id}/secrets`, createBody({}, crypto.randomUUID()));
  assert.equal(res.status, 201);
  assert.equal((await f.tokenFor(id, String(body.client_secret), 'orders:read')).status, 401);
});

test('secret rotation requires an Idempotency-Key; a stale If-Match is 412', async () => {
  const { body } = await create();
  const id = String(body.client_id);
  assert.equal((await f.api(`/admin/v1/clients/${id}/secrets`, createBody({}))).status, 400);
  const stale = await f.api(`/admin/v1/clients/${id}/secrets`, {
    ...createBody({}, crypto.randomUUID()),
    headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID(), 'if-match': '"stale"' },
  });
  assert.equal(stale.status, 412);
});

test("require_mfa is read, set at create and changed by PATCH and PUT (the CLI's --require-mfa)", async () => {
  const { body } = await create({ ...SERVICE_CLIENT, client_name: 'Strict', require_mfa: true });
  assert.equal(body.require_mfa, true);
  const stored = await f.t.core.db.selectFrom('clients').select('require_mfa').where('id', '=', String(body.client_id)).executeTakeFirstOrThrow();
  assert.equal(stored.require_mfa, true);
  const { etag, body: read1 } = await read(String(body.client_id));
  assert.equal(read1.require_mfa, true);
  const patched = await f.api(`/admin/v1/clients/${body.client_id}`, patchBody({ require_mfa: false }, etag));
  assert.equal(patched.status, 200);
  assert.equal(((await patched.json()) as Record<string, unknown>).require_mfa, false);
  const put = await f.api(`/admin/v1/clients/${body.client_id}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'if-match': patched.headers.get('etag')! },
    body: JSON.stringify({ ...SERVICE_CLIENT, require_mfa: true }),
  });
  assert.equal(put.status, 200);
  assert.equal(((await put.json()) as Record<string, unknown>).require_mfa, true);
  const { body: plain } = await create();
  assert.equal(plain.require_mfa, false);
});
