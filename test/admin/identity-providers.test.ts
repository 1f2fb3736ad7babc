// /admin/v1/identity-providers under the admin API conventions (docs/admin-api.md, docs/federation.md), on
// real HTTP against a real upstream (node-oidc-provider) whose discovery document gives the endpoints.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { STRICT_OUTBOUND } from '../../src/http/outbound/outbound-policy.js';
import { startOidcUpstream, type OidcUpstream } from '../helpers/oidc-upstream.js';
import { adminFixture, createBody, problemOf, type AdminFixture } from './fixture.js';

let f: AdminFixture;
let upstream: OidcUpstream;
before(async () => {
  f = await adminFixture({ outbound: { ...STRICT_OUTBOUND, allowedClasses: ['loopback'], allowHttp: true } });
  upstream = await startOidcUpstream({ redirectUris: [] });
});
after(async () => {
  await upstream.close();
  await f.t.close();
});

const document = (slug: string) => ({ slug, name: `Upstream ${slug}`, issuer: upstream.issuer, client_id: 'downstream', client_secret_env: 'UPSTREAM_SECRET' });

async function create(slug: string) {
  const res = await f.api('/admin/v1/identity-providers', createBody(document(slug), crypto.randomUUID()));
  assert.equal(res.status, 201, await res.clone().text());
  return { res, body: (await res.json()) as Record<string, unknown> & { id: string } };
}

test('admin identity providers: create needs an Idempotency-Key, answers 201 with Location, a strong ETag and the redirect_uri; a retry replays', async () => {
  const missing = await f.api('/admin/v1/identity-providers', createBody(document('no-key')));
  assert.equal((await problemOf(missing)).code, 'missing-idempotency-key');
  const key = crypto.randomUUID();
  const first = await f.api('/admin/v1/identity-providers', createBody(document('acme'), key));
  assert.equal(first.status, 201);
  const body = (await first.json()) as Record<string, unknown>;
  assert.equal(first.headers.get('location'), `${f.t.config.ISSUER}/admin/v1/identity-providers/${body.id}`);
  assert.match(first.headers.get('etag') ?? '', /^"[^"]+"$/);
  assert.equal(body.redirect_uri, `${f.t.config.ISSUER}/federation/acme/callback`);
  assert.equal(body.token_endpoint, `${upstream.issuer}/token`);
  const replay = await f.api('/admin/v1/identity-providers', createBody(document('acme'), key));
  assert.equal(replay.status, 201);
  assert.equal(((await replay.json()) as Record<string, unknown>).id, body.id);
  const events = await f.t.core.db.selectFrom('audit_events').select(['type', 'actor_kind']).where('resource_id', '=', String(body.id)).execute();
  assert.deepEqual(events, [{ type: 'admin.identity_provider.created', actor_kind: 'admin-client' }]);
});

test('admin identity providers: a bad document is 400, a broken rule 422 naming the member, a taken slug 409', async () => {
  const shape = await f.api('/admin/v1/identity-providers', createBody({ ...document('x'), client_secret: 'literal' }, crypto.randomUUID()));
  assert.equal(shape.status, 400);
  const rule = await f.api('/admin/v1/identity-providers', createBody({ ...document('y'), client_secret_env: 'not a variable name' }, crypto.randomUUID()));
  assert.equal(rule.status, 422);
  assert.equal((await problemOf(rule)).errors?.[0]?.field, 'client_secret_env');
  await create('taken');
  const taken = await f.api('/admin/v1/identity-providers', createBody(document('taken'), crypto.randomUUID()));
  assert.equal(taken.status, 409);
});

test('admin identity providers: read by id or slug with a strong ETag, list in cursor pages', async () => {
  const { body } = await create('readable');
  const byId = await f.api(`/admin/v1/identity-providers/${body.id}`);
  const bySlug = await f.api('/admin/v1/identity-providers/readable');
  assert.equal(byId.status, 200);
  assert.equal(byId.headers.get('etag'), bySlug.headers.get('etag'));
  const notModified = await f.api('/admin/v1/identity-providers/readable', { headers: { 'if-none-match': byId.headers.get('etag')! } });
  assert.equal(notModified.status, 304);
  const page = (await (await f.api('/admin/v1/identity-providers?limit=1')).json()) as {
    data: { slug: string }[];
    pagination: { next_cursor: string | null; has_more: boolean };
  };
  assert.equal(page.data.length, 1);
  assert.equal(page.pagination.has_more, true);
  const next = (await (await f.api(`/admin/v1/identity-providers?limit=1&cursor=${encodeURIComponent(page.pagination.next_cursor!)}`)).json()) as {
    data: { slug: string }[];
  };
  assert.notEqual(next.data[0]!.slug, page.data[0]!.slug);
  assert.equal((await f.api('/admin/v1/identity-providers/nope')).status, 404);
});

test('admin identity providers: replace and delete need If-Match (428 without, 412 when stale); the slug never changes', async () => {
  const { body, res } = await create('writable');
  const etag = res.headers.get('etag')!;
  const put = (
    headers: Record<string, string>,
    doc: Record<string, unknown> = { name: 'Renamed', issuer: upstream.issuer, client_id: 'downstream', client_secret_env: 'UPSTREAM_SECRET', provision: true },
  ) =>
    f.api(`/admin/v1/identity-providers/${body.id}`, { method: 'PUT', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(doc) });
  assert.equal((await put({})).status, 428);
  const replaced = await put({ 'if-match': etag });
  assert.equal(replaced.status, 200, await replaced.clone().text());
  const after = (await replaced.json()) as Record<string, unknown>;
  assert.deepEqual([after.name, after.provision, after.slug], ['Renamed', true, 'writable']);
  assert.equal((await put({ 'if-match': etag })).status, 412);
  const del = (headers: Record<string, string>) => f.api(`/admin/v1/identity-providers/${body.id}`, { method: 'DELETE', headers });
  assert.equal((await del({})).status, 428);
  assert.equal((await del({ 'if-match': etag })).status, 412);
  assert.equal((await del({ 'if-match': replaced.headers.get('etag')! })).status, 204);
  assert.equal((await f.api(`/admin/v1/identity-providers/${body.id}`)).status, 404);
});

test('admin identity providers: store_tokens is off unless asked, shown, and a replacement that turns it off deletes the stored upstream tokens', async () => {
  const { body } = await create('kept-tokens');
  assert.equal(body.store_tokens, false);
  const put = async (doc: Record<string, unknown>) => {
    const current = await f.api(`/admin/v1/identity-providers/${body.id}`);
    return f.api(`/admin/v1/identity-providers/${body.id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'if-match': current.headers.get('etag')! },
      body: JSON.stringify({ name: 'Kept', issuer: upstream.issuer, client_id: 'downstream', client_secret_env: 'UPSTREAM_SECRET', ...doc }),
    });
  };
  const on = await put({ store_tokens: true });
  assert.equal(on.status, 200, await on.clone().text());
  assert.equal(((await on.json()) as Record<string, unknown>).store_tokens, true);
  const user = await f.t.core.db.insertInto('users').values({ username: 'kept-tokens-user', password_hash: 'x' }).returning('id').executeTakeFirstOrThrow();
  await f.t.core.db.insertInto('federated_identities').values({ provider_id: body.id, subject: 's', user_id: user.id, email: null }).execute();
  await f.t.core.db
    .insertInto('federated_identity_tokens')
    .values({ provider_id: body.id, subject: 's', sealed: 'v1.sealed', expires_at: null, has_refresh_token: false, scope: null, stored_at: new Date() })
    .execute();
  const off = await put({});
  assert.equal(((await off.json()) as Record<string, unknown>).store_tokens, false, 'absent in a replacement: off');
  assert.deepEqual(await f.t.core.db.selectFrom('federated_identity_tokens').select('subject').where('provider_id', '=', body.id).execute(), []);
  assert.equal((await problemOf(await put({ store_tokens: 'yes' }))).status, 400);
});
