// /admin/v1/consents (docs/admin-api.md): remembered consents by user or client, and revoking one — which,
// like the account page's "revoke app", also ends that user's grants at that client.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { adminFixture, problemOf, type AdminFixture } from './fixture.js';
import { del, readEtag, userWithGrant } from './user-access-fixture.js';
import { walk } from './fixture.js';
import { consentsRepository } from '../../src/storage/repositories/consents-repository.js';
import { refreshWith } from '../helpers/oauth-fixtures.js';

type Consent = { id: string; user_id: string; client_id: string; scope: string };

const clock = manualClock(Date.now());
let f: AdminFixture;
before(async () => {
  f = await adminFixture({ clock });
});
after(() => f.t.close());

/** A user with a grant at a client and the consent the consent page would have remembered for it. */
async function consented() {
  const g = await userWithGrant(f);
  await consentsRepository(f.t.core.db, f.t.core.clock).grant(g.user.id, g.client.client.id, ['openid', 'orders:read']);
  const res = await f.api(`/admin/v1/consents?user_id=${g.user.id}`);
  const [consent] = ((await res.json()) as { data: Consent[] }).data;
  return { ...g, consent: consent!, path: `/admin/v1/consents/${consent!.id}` };
}

const orders = (token: string) => fetch(`${f.t.url}/v1/orders`, { headers: { authorization: `Bearer ${token}` } });

test('consents are listed by user or by client with their scopes; a list without either is 400', async () => {
  const c = await consented();
  assert.equal(c.consent.client_id, c.client.client.id);
  assert.equal(c.consent.scope, 'openid orders:read');
  const byClient = await f.api(`/admin/v1/consents?client_id=${encodeURIComponent(c.client.client.id)}`);
  assert.deepEqual(
    ((await byClient.json()) as { data: Consent[] }).data.map((x) => x.id),
    [c.consent.id],
  );
  const none = await f.api('/admin/v1/consents');
  assert.equal(none.status, 400);
});

test("revoking a consent also ends the user's grants at that client: refresh invalid_grant, access token refused", async () => {
  const c = await consented();
  assert.equal((await del(f, c.path, await readEtag(f, c.path))).status, 204);
  assert.equal((await f.api(c.path)).status, 404);
  assert.equal((await orders(c.accessToken)).status, 401);
  const refresh = await refreshWith(f.t.url, c.client, c.refreshToken);
  assert.equal(refresh.status, 400);
  assert.equal(refresh.body.error, 'invalid_grant');
  assert.equal(await consentsRepository(f.t.core.db, f.t.core.clock).covers(c.user.id, c.client.client.id, ['openid']), false);
});

test('a consent re-approved with more scopes since it was read is 412 on DELETE and stays', async () => {
  const c = await consented();
  const etag = await readEtag(f, c.path);
  clock.advance(1000);
  await consentsRepository(f.t.core.db, f.t.core.clock).grant(c.user.id, c.client.client.id, ['profile']);
  const stale = await del(f, c.path, etag);
  assert.equal(stale.status, 412);
  assert.equal((await problemOf(stale)).code, 'precondition-failed');
  assert.equal((await f.api(c.path)).status, 200);
  assert.equal((await orders(c.accessToken)).status, 200);
});

test('DELETE of a consent without If-Match is 428 and changes nothing', async () => {
  const c = await consented();
  const res = await del(f, c.path);
  assert.equal(res.status, 428);
  assert.equal((await f.api(c.path)).status, 200);
});

test('two parallel DELETEs of one consent with the same ETag: exactly one 204, the other 404 or 412', async () => {
  const c = await consented();
  const etag = await readEtag(f, c.path);
  const answers = await Promise.all([del(f, c.path, etag), del(f, c.path, etag)]);
  const statuses = answers.map((r) => r.status).sort();
  assert.equal(statuses[0], 204);
  assert.ok([404, 412].includes(statuses[1]!), statuses.join(','));
  const events = await f.t.core.db
    .selectFrom('audit_events')
    .select('id')
    .where('type', '=', 'consent.revoked')
    .where('resource_id', '=', c.consent.id)
    .execute();
  assert.equal(events.length, 1);
});

test('unknown consent ids are 404 problems, never 500', async () => {
  for (const id of ['nope', 'x'.repeat(200)]) {
    assert.equal((await problemOf(await f.api(`/admin/v1/consents/${id}`))).code, 'not-found');
    assert.equal((await del(f, `/admin/v1/consents/${id}`, '"x"')).status, 404);
  }
});

test('admin:read cannot revoke a consent: 403 insufficient_scope', async () => {
  const c = await consented();
  const res = await f.api(c.path, { method: 'DELETE', headers: { 'if-match': await readEtag(f, c.path) }, token: f.readToken });
  assert.equal(res.status, 403);
  assert.match(res.headers.get('www-authenticate') ?? '', /insufficient_scope/);
});

test('405 with Allow on the consents list', async () => {
  const res = await f.api('/admin/v1/consents', { method: 'DELETE' });
  assert.equal(res.status, 405);
  assert.match(res.headers.get('allow') ?? '', /GET/);
});

test('consent lists are cursor pages, stable while consents are added', async () => {
  const c = await consented();
  const consents = consentsRepository(f.t.core.db, f.t.core.clock);
  const more = async () => {
    clock.advance(1000);
    const g = await userWithGrant(f, { client: c.client });
    await consents.grant(g.user.id, c.client.client.id, ['openid']);
  };
  for (let i = 0; i < 3; i++) await more();
  const seen = await walk<Consent>(f, `/admin/v1/consents?client_id=${encodeURIComponent(c.client.client.id)}&limit=2`, more);
  const ids = seen.map((x) => x.id);
  assert.equal(new Set(ids).size, ids.length, 'no duplicates');
  assert.equal(ids.length, 5, 'no gaps');
});

test('revoking a consent is a consent.revoked event naming the admin client, the user and the client', async () => {
  const c = await consented();
  await del(f, c.path, await readEtag(f, c.path));
  const res = await f.api(`/admin/v1/audit-events?type=consent.revoked&subject=${c.user.id}`);
  const [event] = ((await res.json()) as { data: { actor: Record<string, string>; client_id: string }[] }).data;
  assert.deepEqual(event!.actor, { kind: 'admin-client', client_id: f.admin.id });
  assert.equal(event!.client_id, c.client.client.id);
});
