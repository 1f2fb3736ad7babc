// The audit log (docs/audit-log.md): typed append-only events for every admin change and for security
// events, each also one JSON log line; GET /admin/v1/audit-events with filters and cursor pages; retention.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { adminFixture, createBody, patchBody, problemOf, SERVICE_CLIENT, type AdminFixture } from './fixture.js';
import { authorizeQuery, loginAndConsent, openInteraction, submitLogin } from '../interaction/browserless.js';
import { createClient, postToken, REDIRECT_URI } from '../helpers/oauth-fixtures.js';
import { Browser } from '../helpers/browser.js';
import { SIGN_IN, createUser } from '../helpers/users.js';
import { RFC7636 } from '../helpers/pkce.js';

type Event = {
  id: string;
  type: string;
  actor: Record<string, string>;
  resource?: string;
  resource_id?: string;
  subject?: string;
  client_id?: string;
  changed_fields: string[];
  details: Record<string, unknown>;
  trace_id?: string;
  occurred_at: string;
};
type Page = { data: Event[]; pagination: { has_more: boolean; next_cursor: string | null } };

const clock = manualClock(Date.now());
let f: AdminFixture;
before(async () => {
  f = await adminFixture({ clock });
});
after(() => f.t.close());

async function events(query: string): Promise<Event[]> {
  const res = await f.api(`/admin/v1/audit-events?${query}`);
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as Page).data;
}

test('every admin change is an event naming the admin client, the resource, its id, the changed field names and the trace id', async () => {
  const created = await f.api('/admin/v1/clients', createBody(SERVICE_CLIENT, crypto.randomUUID()));
  const id = String(((await created.json()) as { client_id: string }).client_id);
  const etag = created.headers.get('etag')!;
  clock.advance(1000);
  const patched = await f.api(`/admin/v1/clients/${id}`, patchBody({ client_name: 'Renamed' }, etag));
  assert.equal(patched.status, 200);
  clock.advance(1000);
  assert.equal((await f.api(`/admin/v1/clients/${id}`, { method: 'DELETE', headers: { 'if-match': patched.headers.get('etag')! } })).status, 204);
  const log = await events(`subject=${id}`);
  assert.deepEqual(
    log.map((e) => e.type),
    ['admin.client.deleted', 'admin.client.updated', 'admin.client.created'],
  );
  for (const e of log) {
    assert.deepEqual(e.actor, { kind: 'admin-client', client_id: f.admin.id });
    assert.equal(e.resource, 'client');
    assert.equal(e.resource_id, id);
    assert.ok(e.trace_id);
  }
  assert.deepEqual(log[1]!.changed_fields, ['client_name']);
  assert.ok(log[2]!.changed_fields.includes('scope'));
});

test('the CLI records its changes too, as the operating-system user who ran it', async () => {
  const created = await f.cli(
    'clients',
    'create',
    '--name',
    'From CLI',
    '--type',
    'confidential',
    '--grant-types',
    'client_credentials',
    '--scope',
    'orders:read',
  );
  const [event] = await events(`subject=${created.client_id}&type=admin.client.created`);
  assert.equal(event!.actor.kind, 'cli');
  assert.ok(event!.actor.user);
});

test('secret rotation is a security event with the overlap, and names the field, never the value', async () => {
  const created = (await (await f.api('/admin/v1/clients', createBody(SERVICE_CLIENT, crypto.randomUUID()))).json()) as { client_id: string };
  const res = await f.api(`/admin/v1/clients/${created.client_id}/secrets`, createBody({}, crypto.randomUUID()));
  const { client_secret: secret } = (await res.json()) as { client_secret: string };
  const [event] = await events(`type=client.secret_rotated&client_id=${created.client_id}`);
  assert.deepEqual(event!.changed_fields, ['client_secret']);
  assert.ok(event!.details.previous_secret_expires_at);
  assert.ok(!JSON.stringify(event).includes(secret));
});

test('each event is also one JSON log line under "audit"', async () => {
  const created = (await (await f.api('/admin/v1/clients', createBody({ ...SERVICE_CLIENT, client_name: 'Logged' }, crypto.randomUUID()))).json()) as {
    client_id: string;
  };
  const lines = f
    .logText()
    .split('\n')
    .filter((l) => l.includes('"audit"') && l.includes(created.client_id));
  assert.equal(lines.length, 1);
  const parsed = JSON.parse(lines[0]!) as { audit: { type: string; resourceId: string } };
  assert.equal(parsed.audit.type, 'admin.client.created');
});

test('login success and failure and consent given are security events, with the user and client', async () => {
  const { client } = await createClient(f.t.core.db, f.t.core.clock, { skipConsent: false, scopes: ['openid'] });
  const user = await createUser(f.t.core.db, f.t.core.clock, SIGN_IN);
  const wrong = new Browser(f.t.url);
  const page = await openInteraction(wrong, authorizeQuery(client.id, REDIRECT_URI, { scope: 'openid' }));
  assert.equal((await submitLogin(wrong, page.form, user.username, 'not the password')).status, 303);
  await loginAndConsent(new Browser(f.t.url), authorizeQuery(client.id, REDIRECT_URI, { scope: 'openid' }), user);
  const log = await events(`subject=${user.id}`);
  const types = log.map((e) => e.type);
  assert.ok(types.includes('login.failed') && types.includes('login.succeeded') && types.includes('consent.given'), types.join(','));
  const failed = log.find((e) => e.type === 'login.failed')!;
  assert.equal(failed.client_id, client.id);
  assert.equal(failed.details.reason, 'wrong_password');
});

test('authorization-code reuse and refresh-token reuse are security events naming the client', async () => {
  const fixture = await createClient(f.t.core.db, f.t.core.clock, { scopes: ['openid', 'offline_access'] });
  const user = await createUser(f.t.core.db, f.t.core.clock, SIGN_IN);
  const location = await loginAndConsent(new Browser(f.t.url), authorizeQuery(fixture.client.id, REDIRECT_URI, { scope: 'openid offline_access' }), user);
  const code = location.searchParams.get('code')!;
  const exchange = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: RFC7636.verifier };
  const first = await postToken(f.t.url, fixture, exchange);
  assert.equal(first.status, 200);
  const refresh = { grant_type: 'refresh_token', refresh_token: String(first.body.refresh_token) };
  assert.equal((await postToken(f.t.url, fixture, refresh)).status, 200);
  assert.equal((await postToken(f.t.url, fixture, refresh)).status, 400);
  assert.equal((await postToken(f.t.url, fixture, exchange)).status, 400);
  const types = (await events(`client_id=${fixture.client.id}`)).map((e) => e.type);
  assert.ok(types.includes('refresh_token.reused') && types.includes('authorization_code.reused'), types.join(','));
});

test('filters: type, subject, client and time range; an unknown type or a bad time is 400', async () => {
  const since = new Date(clock.now() + 5_000);
  clock.advance(10_000);
  const created = (await (await f.api('/admin/v1/clients', createBody({ ...SERVICE_CLIENT, client_name: 'Later' }, crypto.randomUUID()))).json()) as {
    client_id: string;
  };
  const later = await events(`since=${since.toISOString()}&type=admin.client.created`);
  assert.deepEqual(
    later.map((e) => e.resource_id),
    [created.client_id],
  );
  assert.equal((await events(`until=${since.toISOString()}&subject=${created.client_id}`)).length, 0);
  assert.ok((await events(`client_id=${f.admin.id}`)).length > 0);
  const bad = await f.api('/admin/v1/audit-events?type=made.up');
  assert.equal(bad.status, 400);
  assert.equal((await problemOf(bad)).code, 'bad-request');
  assert.equal((await f.api('/admin/v1/audit-events?since=yesterday')).status, 400);
});

test('the actor filter finds what one user or CLI user did, and nothing of anyone else; a cursor is bound to it', async () => {
  const fromCli = await f.cli(
    'clients',
    'create',
    '--name',
    'By actor',
    '--type',
    'confidential',
    '--grant-types',
    'client_credentials',
    '--scope',
    'orders:read',
  );
  const [byCli] = await events(`subject=${fromCli.client_id}&type=admin.client.created`);
  const cliUser = String(byCli!.actor.user);
  await f.api('/admin/v1/clients', createBody(SERVICE_CLIENT, crypto.randomUUID()));
  const mine = await events(`actor=${encodeURIComponent(cliUser)}&limit=100`);
  assert.ok(mine.some((e) => e.resource_id === fromCli.client_id));
  assert.ok(
    mine.every((e) => e.actor.kind === 'cli' && e.actor.user === cliUser),
    "only the CLI user's events",
  );
  assert.deepEqual(await events('actor=nobody-at-all'), []);
  const first = (await (await f.api(`/admin/v1/audit-events?actor=${encodeURIComponent(cliUser)}&limit=1`)).json()) as Page;
  const foreign = await f.api(`/admin/v1/audit-events?actor=someone-else&cursor=${first.pagination.next_cursor}`);
  assert.equal((await problemOf(foreign)).code, 'invalid-cursor');
});

test('pages: newest first, Link rel="next", a cursor is bound to its filter', async () => {
  for (let i = 0; i < 3; i++) await f.api('/admin/v1/clients', createBody({ ...SERVICE_CLIENT, client_name: `Page ${i}` }, crypto.randomUUID()));
  const first = await f.api('/admin/v1/audit-events?type=admin.client.created&limit=2');
  const page = (await first.json()) as Page;
  assert.equal(page.data.length, 2);
  assert.ok(page.data[0]!.occurred_at >= page.data[1]!.occurred_at);
  assert.match(first.headers.get('link') ?? '', /rel="next"/);
  const next = await f.api(`/admin/v1/audit-events?type=admin.client.created&limit=2&cursor=${page.pagination.next_cursor}`);
  const second = (await next.json()) as Page;
  assert.ok(second.data.every((e) => !page.data.some((p) => p.id === e.id)));
  const foreign = await f.api(`/admin/v1/audit-events?type=login.failed&cursor=${page.pagination.next_cursor}`);
  assert.equal((await problemOf(foreign)).code, 'invalid-cursor');
});

test('audit events are append-only: an UPDATE is refused by the database', async () => {
  await assert.rejects(f.t.core.db.updateTable('audit_events').set({ type: 'login.succeeded' }).execute(), /append-only/);
});

// Retention (the purge up to a signed checkpoint, which keeps the chain verifiable) is test/audit/audit-chain.test.ts.

test('audit events are read-only over HTTP (405) and need admin:read', async () => {
  const res = await f.api('/admin/v1/audit-events', { method: 'DELETE' });
  assert.equal(res.status, 405);
  assert.equal((await fetch(`${f.t.url}/admin/v1/audit-events`)).status, 401);
});
