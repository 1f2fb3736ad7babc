// /admin/v1/webhooks under the API conventions (docs/webhooks.md, docs/admin-api.md): the resource, its
// secret (shown once, never read back, sealed at rest), who may read it, the SSRF rule of its URL, the CLI
// and apply/export. Delivery is test/webhooks/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { exportConfiguration } from '../../src/admin-services/export-configuration.js';
import { formatConfigFile, parseConfigFile } from '../../src/admin-services/config-file.js';
import { applyConfiguration } from '../../src/admin-services/apply-configuration.js';
import { coreAuditSink } from '../../src/admin-services/index.js';
import { adminFixture, createBody, patchBody, SERVICE_CLIENT, type AdminFixture } from './fixture.js';

let f: AdminFixture;
let strict: AdminFixture;
before(async () => {
  // The receivers of these tests are on 127.0.0.1: the operator allow-lists that host.
  f = await adminFixture({ env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } });
  strict = await adminFixture();
});
after(async () => {
  await f.t.close();
  await strict.t.close();
});

let serial = 0;
const endpoint = (extra: Record<string, unknown> = {}) => ({
  name: `hook-${++serial}`,
  url: 'http://127.0.0.1:9/hook',
  event_types: ['user.created'],
  ...extra,
});

async function create(fixture: AdminFixture, body: Record<string, unknown>) {
  const res = await fixture.api('/admin/v1/webhooks', createBody(body, crypto.randomUUID()));
  return { res, body: (await res.json()) as Record<string, unknown> & { id: string; secret: string } };
}

test('create answers 201 with the whsec_ secret once; GET, the list, the CLI and export never show it, and the database holds it sealed', async () => {
  const { res, body } = await create(f, endpoint());
  assert.equal(res.status, 201, JSON.stringify(body));
  assert.match(body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.match(res.headers.get('location') ?? '', /\/admin\/v1\/webhooks\/wh_/);
  const read = await f.api(`/admin/v1/webhooks/${body.id}`);
  const readText = await read.text();
  assert.equal(read.status, 200);
  assert.equal(readText.includes(body.secret), false);
  assert.equal('secret' in JSON.parse(readText), false);
  const list = await (await f.api('/admin/v1/webhooks?limit=100')).text();
  assert.equal(list.includes(body.secret) || list.includes(body.secret.slice(6)), false);
  const shown = JSON.stringify(await f.cli('webhooks', 'show', String(body.name)));
  assert.equal(shown.includes(body.secret.slice(6)), false);
  const exported = formatConfigFile(await exportConfiguration(f.t.core));
  assert.ok(exported.includes(`name: ${String(body.name)}`));
  assert.equal(exported.includes(body.secret.slice(6)), false);
  assert.match(exported, /secret_env: GATEHOUSE_WEBHOOK_SECRET_HOOK_\d+/);
  const row = await f.t.core.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
  assert.equal(JSON.stringify(row).includes(body.secret.slice(6)), false);
});

test('a non-admin token cannot list webhooks (401/403), an admin:read token can list but not create (403)', async () => {
  const client = await f.api('/admin/v1/clients', createBody(SERVICE_CLIENT, crypto.randomUUID()));
  const { client_id, client_secret } = (await client.json()) as { client_id: string; client_secret: string };
  const ordinary = await f.tokenFor(client_id, client_secret, 'orders:read');
  const refused = await f.api('/admin/v1/webhooks', { token: String(ordinary.body.access_token) });
  assert.ok(refused.status === 401 || refused.status === 403, String(refused.status));
  assert.equal((await f.api('/admin/v1/webhooks', { token: f.readToken })).status, 200);
  const write = await f.api('/admin/v1/webhooks', { ...createBody(endpoint(), crypto.randomUUID()), token: f.readToken });
  assert.equal(write.status, 403);
});

test('SSRF rule: a webhook endpoint at a loopback or cloud-metadata address is refused unless its host is allow-listed (WEBHOOK_ALLOWED_HOSTS)', async () => {
  for (const url of [
    'https://127.0.0.1/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/hook',
    'https://localhost/hook',
    'http://example.com/hook',
  ]) {
    const { res, body } = await create(strict, endpoint({ url }));
    assert.equal(res.status, 422, url);
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.equal((body as unknown as { errors: { field: string }[] }).errors[0]?.field, 'url');
  }
  // The same URL, its host allow-listed by the operator: accepted (over http too).
  const { res } = await create(f, endpoint({ url: 'http://127.0.0.1:9/hook' }));
  assert.equal(res.status, 201);
  // 169.254.169.254 is not in f's list: still refused there.
  assert.equal((await create(f, endpoint({ url: 'https://169.254.169.254/' }))).res.status, 422);
});

test('event types are checked against the catalogue; a taken name is 409; bad input is a Problem Details 4xx, never a 500', async () => {
  const bad = await create(f, endpoint({ event_types: ['user.exploded'] }));
  assert.equal(bad.res.status, 422);
  const first = await create(f, endpoint());
  assert.equal((await create(f, { ...endpoint(), name: first.body.name })).res.status, 409);
  const shape = await f.api('/admin/v1/webhooks', createBody({ name: 'x', url: 42 }, crypto.randomUUID()));
  assert.equal(shape.status, 400);
  assert.equal((await f.api('/admin/v1/webhooks/nope')).status, 404);
});

test('PATCH and PUT need If-Match; a stale ETag is 412; a patch changes only what it names', async () => {
  const { body } = await create(f, endpoint());
  const read = await f.api(`/admin/v1/webhooks/${body.id}`);
  const etag = read.headers.get('etag')!;
  assert.equal((await f.api(`/admin/v1/webhooks/${body.id}`, patchBody({ enabled: false }))).status, 428);
  const patched = await f.api(`/admin/v1/webhooks/${body.id}`, patchBody({ enabled: false, event_types: [] }, etag));
  assert.equal(patched.status, 200, await patched.clone().text());
  const after = (await patched.json()) as Record<string, unknown>;
  assert.equal(after.enabled, false);
  assert.deepEqual(after.event_types, []);
  assert.equal(after.url, body.url);
  assert.equal((await f.api(`/admin/v1/webhooks/${body.id}`, patchBody({ enabled: true }, etag))).status, 412);
});

test('rotate-secret answers a new secret once, with previous_secret_expires_at after the grace period; the read shows the date, never a secret', async () => {
  const { body } = await create(f, endpoint());
  const res = await f.api(`/admin/v1/webhooks/${body.id}/rotate-secret`, createBody({ grace_period: 3600 }, crypto.randomUUID()));
  assert.equal(res.status, 201, await res.clone().text());
  const rotated = (await res.json()) as { secret: string; previous_secret_expires_at: string };
  assert.notEqual(rotated.secret, body.secret);
  assert.ok(Date.parse(rotated.previous_secret_expires_at) > Date.now() + 3000_000);
  const text = await (await f.api(`/admin/v1/webhooks/${body.id}`)).text();
  assert.equal(text.includes(rotated.secret.slice(6)) || text.includes(body.secret.slice(6)), false);
  assert.equal((JSON.parse(text) as Record<string, unknown>).previous_secret_expires_at, rotated.previous_secret_expires_at);
});

test('the CLI creates, updates, rotates and deletes an endpoint by name, with the secret only in create and rotate-secret', async () => {
  const name = `cli-${++serial}`;
  const created = await f.cli('webhooks', 'create', '--name', name, '--url', 'http://127.0.0.1:9/x', '--events', 'user.created,user.deleted');
  assert.match(String(created.secret), /^whsec_/);
  const updated = await f.cli('webhooks', 'update', name, '--disable', '--events', 'session.ended');
  assert.equal(updated.enabled, false);
  assert.deepEqual(updated.event_types, ['session.ended']);
  const rotated = await f.cli('webhooks', 'rotate-secret', name, '--grace-period', '0');
  assert.match(String(rotated.secret), /^whsec_/);
  assert.equal(rotated.previous_secret_expires_at, null);
  const listed = JSON.stringify(await f.cli('webhooks', 'list'));
  assert.ok(listed.includes(name));
  assert.equal(listed.includes(String(rotated.secret).slice(6)), false);
  await f.cli('webhooks', 'delete', name);
  await assert.rejects(f.cli('webhooks', 'show', name), /no webhook endpoint/);
});

test('apply creates webhooks with the secret from secret_env, a second run plans nothing, a changed secret rotates it; a literal secret in the file is refused', async () => {
  const name = `applied-${++serial}`;
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const text = `webhooks:\n  - name: ${name}\n    url: http://127.0.0.1:9/applied\n    event_types: [user.created]\n    secret_env: HOOK_SECRET\n`;
  const deps = { ...f.t.core, audit: coreAuditSink(f.t.core) };
  const as = { actor: { kind: 'cli' as const, user: 'test' } };
  const first = await applyConfiguration(deps, parseConfigFile(text), { HOOK_SECRET: secret }, { dryRun: false, prune: false }, as);
  assert.deepEqual(
    first.plan.filter((s) => s.resource === 'webhook'),
    [{ action: 'create', resource: 'webhook', id: name }],
  );
  const again = await applyConfiguration(deps, parseConfigFile(text), { HOOK_SECRET: secret }, { dryRun: false, prune: false }, as);
  assert.equal(again.plan.filter((s) => s.resource === 'webhook').length, 0);
  const next = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
  const third = await applyConfiguration(deps, parseConfigFile(text), { HOOK_SECRET: next }, { dryRun: false, prune: false }, as);
  assert.deepEqual(
    third.plan.filter((s) => s.resource === 'webhook'),
    [{ action: 'update', resource: 'webhook', id: name, fields: ['secret'] }],
  );
  const exported = formatConfigFile(await exportConfiguration(f.t.core));
  assert.ok(exported.includes('secret_env: HOOK_SECRET'));
  assert.equal(exported.includes(next.slice(6)), false);
  assert.throws(
    () => parseConfigFile(`webhooks:\n  - name: x\n    url: https://example.com/\n    secret: ${secret}\n    secret_env: X\n`),
    /never written in the file/,
  );
});
