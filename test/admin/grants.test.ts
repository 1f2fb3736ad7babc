// /admin/v1/grants (docs/admin-api.md): a user's or client's live grants, and revoking one through the one
// revocation path — its refresh token fails (invalid_grant) and its access token is refused by /v1 at once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as client from 'openid-client';
import { manualClock } from '../../src/clock.js';
import { adminFixture, problemOf, type AdminFixture } from './fixture.js';
import { del, readEtag, userWithGrant } from './user-access-fixture.js';
import { walk } from './fixture.js';
import { refreshWith } from '../helpers/oauth-fixtures.js';

type Grant = { id: string; user_id: string; client_id: string; scope: string };

const clock = manualClock(Date.now());
let f: AdminFixture;
before(async () => {
  f = await adminFixture({ clock });
});
after(() => f.t.close());

async function grantsOf(query: string): Promise<Grant[]> {
  const res = await f.api(`/admin/v1/grants?${query}`);
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as { data: Grant[] }).data;
}

const orders = (token: string) => fetch(`${f.t.url}/v1/orders`, { headers: { authorization: `Bearer ${token}` } });

test('grants are listed by user or by client, each with its scope; a list without either is 400', async () => {
  const g = await userWithGrant(f);
  const [byUser] = await grantsOf(`user_id=${g.user.id}`);
  assert.equal(byUser!.client_id, g.client.client.id);
  assert.equal(byUser!.scope, 'openid offline_access orders:read');
  assert.deepEqual(
    (await grantsOf(`client_id=${encodeURIComponent(g.client.client.id)}`)).map((x) => x.id),
    [byUser!.id],
  );
  const none = await f.api('/admin/v1/grants');
  assert.equal(none.status, 400);
  assert.equal((await problemOf(none)).code, 'bad-request');
});

test('revoking a grant ends its tokens: the refresh token is invalid_grant (openid-client) and /v1 refuses the access token at once', async () => {
  const g = await userWithGrant(f);
  assert.equal((await orders(g.accessToken)).status, 200);
  const [grant] = await grantsOf(`user_id=${g.user.id}`);
  const path = `/admin/v1/grants/${grant!.id}`;
  assert.equal((await del(f, path, await readEtag(f, path))).status, 204);
  assert.equal((await orders(g.accessToken)).status, 401);
  const config = await client.discovery(new URL(f.t.url), g.client.client.id, undefined, client.ClientSecretBasic(g.client.secret!), {
    execute: [client.allowInsecureRequests],
  });
  await assert.rejects(client.refreshTokenGrant(config, g.refreshToken), (error: { error?: string }) => error.error === 'invalid_grant');
  assert.equal((await f.api(path)).status, 404, 'a revoked grant is gone');
  assert.deepEqual(await grantsOf(`user_id=${g.user.id}`), []);
});

test("revoking one grant leaves the user's other grants working", async () => {
  const first = await userWithGrant(f);
  const second = await userWithGrant(f, { user: first.user, client: first.client });
  const grants = await grantsOf(`user_id=${first.user.id}`);
  assert.equal(grants.length, 2);
  const target = grants[0]!;
  assert.equal((await del(f, `/admin/v1/grants/${target.id}`, await readEtag(f, `/admin/v1/grants/${target.id}`))).status, 204);
  const alive = (await orders(first.accessToken)).status === 200 ? first : second;
  assert.equal((await orders(alive.accessToken)).status, 200);
  assert.equal((await refreshWith(f.t.url, alive.client, alive.refreshToken)).status, 200);
});

test('DELETE of a grant requires If-Match: 428 without, 412 when stale, and the grant keeps working', async () => {
  const g = await userWithGrant(f);
  const [grant] = await grantsOf(`user_id=${g.user.id}`);
  const without = await del(f, `/admin/v1/grants/${grant!.id}`);
  assert.equal(without.status, 428);
  assert.equal((await problemOf(without)).code, 'precondition-required');
  const stale = await del(f, `/admin/v1/grants/${grant!.id}`, '"stale"');
  assert.equal(stale.status, 412);
  assert.equal((await problemOf(stale)).code, 'precondition-failed');
  assert.equal((await orders(g.accessToken)).status, 200);
});

test('two parallel DELETEs of one grant with the same ETag: exactly one 204, the other 404 (already revoked)', async () => {
  const g = await userWithGrant(f);
  const [grant] = await grantsOf(`user_id=${g.user.id}`);
  const path = `/admin/v1/grants/${grant!.id}`;
  const etag = await readEtag(f, path);
  const answers = await Promise.all([del(f, path, etag), del(f, path, etag)]);
  assert.deepEqual(answers.map((r) => r.status).sort(), [204, 404]);
  const events = await f.t.core.db
    .selectFrom('audit_events')
    .select('id')
    .where('type', '=', 'admin.grant.revoked')
    .where('resource_id', '=', grant!.id)
    .execute();
  assert.equal(events.length, 1, 'one revocation, one event');
});

test('unknown grant ids are 404 problems on read and delete, never 500', async () => {
  for (const id of ['nope', '00000000-0000-0000-0000-000000000000', 'x'.repeat(200)]) {
    assert.equal((await problemOf(await f.api(`/admin/v1/grants/${id}`))).code, 'not-found');
    assert.equal((await del(f, `/admin/v1/grants/${id}`, '"x"')).status, 404);
  }
  assert.deepEqual(await grantsOf('user_id=no-such-user'), []);
});

test('reads carry a strong ETag; If-None-Match with it is 304', async () => {
  const g = await userWithGrant(f);
  const [grant] = await grantsOf(`user_id=${g.user.id}`);
  const etag = await readEtag(f, `/admin/v1/grants/${grant!.id}`);
  assert.match(etag, /^"[^"]+"$/);
  assert.equal((await f.api(`/admin/v1/grants/${grant!.id}`, { headers: { 'if-none-match': etag } })).status, 304);
});

test('admin:read cannot revoke a grant: 403 insufficient_scope', async () => {
  const g = await userWithGrant(f);
  const [grant] = await grantsOf(`user_id=${g.user.id}`);
  const path = `/admin/v1/grants/${grant!.id}`;
  const res = await f.api(path, { method: 'DELETE', headers: { 'if-match': await readEtag(f, path) }, token: f.readToken });
  assert.equal(res.status, 403);
  assert.match(res.headers.get('www-authenticate') ?? '', /insufficient_scope/);
  assert.equal((await orders(g.accessToken)).status, 200);
});

test('405 with Allow for an unsupported method on the list and on a grant', async () => {
  const list = await f.api('/admin/v1/grants', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  assert.equal(list.status, 405);
  assert.equal((await problemOf(list)).code, 'method-not-allowed');
  assert.match(list.headers.get('allow') ?? '', /GET/);
  const one = await f.api('/admin/v1/grants/x', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
  assert.equal(one.status, 405);
  assert.match(one.headers.get('allow') ?? '', /DELETE/);
});

test('grant lists are cursor pages, stable while grants are added; a cursor is bound to its filter', async () => {
  const g = await userWithGrant(f);
  for (let i = 0; i < 4; i++) {
    clock.advance(1000);
    await userWithGrant(f, { user: g.user, client: g.client });
  }
  const seen = await walk<Grant>(f, `/admin/v1/grants?user_id=${g.user.id}&limit=2`, async () => {
    clock.advance(1000);
    await userWithGrant(f, { user: g.user, client: g.client });
  });
  const ids = seen.map((x) => x.id);
  assert.equal(new Set(ids).size, ids.length, 'no duplicates');
  assert.equal(ids.length, 6, 'no gaps, and the grant added while paging comes last');
  const res = await f.api(`/admin/v1/grants?user_id=${g.user.id}&limit=2`);
  const cursor = ((await res.json()) as { pagination: { next_cursor: string } }).pagination.next_cursor;
  const foreign = await f.api(`/admin/v1/grants?user_id=someone-else&cursor=${encodeURIComponent(cursor)}`);
  assert.equal(foreign.status, 400);
  assert.equal((await problemOf(foreign)).code, 'invalid-cursor');
});

test('revoking a grant is an audit event naming the admin client, the grant, the user and the client', async () => {
  const g = await userWithGrant(f);
  const [grant] = await grantsOf(`user_id=${g.user.id}`);
  const path = `/admin/v1/grants/${grant!.id}`;
  await del(f, path, await readEtag(f, path));
  const res = await f.api(`/admin/v1/audit-events?type=admin.grant.revoked&subject=${g.user.id}`);
  const [event] = ((await res.json()) as { data: { actor: Record<string, string>; resource_id: string; client_id: string; subject: string }[] }).data;
  assert.deepEqual(event!.actor, { kind: 'admin-client', client_id: f.admin.id });
  assert.equal(event!.resource_id, grant!.id);
  assert.equal(event!.client_id, g.client.client.id);
});
