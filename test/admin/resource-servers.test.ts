// /admin/v1/resource-servers under the API conventions (docs/admin-api.md): one rule per test, on real HTTP.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { adminFixture, createBody, patchBody, problemOf, type AdminFixture, walk } from './fixture.js';

const clock = manualClock(Date.now());
let f: AdminFixture;
before(async () => {
  f = await adminFixture({ clock });
});
after(() => f.t.close());

let serial = 0;
const NOTES = () => {
  serial += 1;
  return {
    identifier: `https://notes${serial}.example/api`,
    name: `Notes ${serial}`,
    scopes: [{ name: `notes${serial}:read`, description: 'Read your notes' }],
  };
};
const path = (identifier: string) => `/admin/v1/resource-servers/${encodeURIComponent(identifier)}`;

async function create(body: Record<string, unknown> = NOTES()) {
  const res = await f.api('/admin/v1/resource-servers', createBody(body, crypto.randomUUID()));
  assert.equal(res.status, 201, await res.clone().text());
  return { res, body: (await res.json()) as Record<string, unknown> & { identifier: string } };
}

async function read(identifier: string) {
  const res = await f.api(path(identifier));
  assert.equal(res.status, 200, await res.clone().text());
  return { etag: res.headers.get('etag')!, body: (await res.json()) as Record<string, unknown> };
}

test('create requires an Idempotency-Key: without one 400 missing-idempotency-key and nothing is registered', async () => {
  const body = NOTES();
  const res = await f.api('/admin/v1/resource-servers', createBody(body));
  assert.equal(res.status, 400);
  assert.equal((await problemOf(res)).code, 'missing-idempotency-key');
  assert.equal((await f.t.core.db.selectFrom('resource_servers').select('identifier').where('identifier', '=', body.identifier).execute()).length, 0);
});

test('create answers 201 with Location (the identifier percent-encoded), a strong ETag and the introspection secret, which works at /introspect', async () => {
  const { res, body } = await create();
  assert.equal(res.headers.get('location'), `${f.t.config.ISSUER}${path(body.identifier)}`);
  assert.match(res.headers.get('etag') ?? '', /^"[^"]+"$/);
  assert.equal(body.built_in, false);
  const introspect = await fetch(`${f.t.url}/introspect`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${body.client_id}:${body.client_secret}`).toString('base64')}`,
    },
    body: 'token=nothing',
  });
  assert.equal(introspect.status, 200);
  assert.deepEqual(await introspect.json(), { active: false });
});

test("the change reaches this instance's registry at once: a new scope can be given to a client right after the create", async () => {
  const { body } = await create();
  const scope = (body.scopes as { name: string }[])[0]!.name;
  const client = await f.api(
    '/admin/v1/clients',
    createBody(
      { client_name: 'Uses notes', grant_types: ['client_credentials'], scope, token_endpoint_auth_method: 'client_secret_basic' },
      crypto.randomUUID(),
    ),
  );
  assert.equal(client.status, 201, await client.clone().text());
  const created = (await client.json()) as { client_id: string; client_secret: string };
  const token = await f.tokenFor(created.client_id, created.client_secret, scope);
  assert.equal(token.status, 200);
});

test('secrets appear only in the create response: never in reads, lists, idempotent replays, audit events or logs', async () => {
  const key = crypto.randomUUID();
  const document = NOTES();
  const first = await f.api('/admin/v1/resource-servers', createBody(document, key));
  const created = (await first.json()) as Record<string, unknown>;
  const secret = String(created.client_secret);
  assert.ok(secret.length > 20);
  const replay = await f.api('/admin/v1/resource-servers', createBody(document, key));
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  const replayed = await replay.text();
  const { body } = await read(document.identifier);
  const list = await (await f.api('/admin/v1/resource-servers?limit=100')).text();
  const events = await (await f.api('/admin/v1/audit-events?type=admin.resource_server.created')).text();
  const stored = JSON.stringify(await f.t.core.db.selectFrom('idempotency_keys').selectAll().execute());
  for (const [where, text] of Object.entries({ replayed, read: JSON.stringify(body), list, events, stored, logs: f.logText() })) {
    assert.ok(!text.includes(secret), `the secret leaked into ${where}`);
  }
  assert.ok(!('client_secret' in body));
});

test('ten parallel creates with one Idempotency-Key make exactly one resource server', async () => {
  const key = crypto.randomUUID();
  const body = NOTES();
  const answers = await Promise.all(Array.from({ length: 10 }, () => f.api('/admin/v1/resource-servers', createBody(body, key))));
  const statuses = answers.map((r) => r.status);
  assert.ok(
    statuses.every((s) => s === 201 || s === 409),
    statuses.join(','),
  );
  assert.ok(statuses.includes(201));
  assert.equal((await f.t.core.db.selectFrom('resource_servers').select('identifier').where('identifier', '=', body.identifier).execute()).length, 1);
  assert.equal((await f.t.core.db.selectFrom('clients').select('id').where('name', '=', `${body.name} (resource server)`).execute()).length, 1);
});

test('invalid values are 422 naming the field; an unknown member is 400; a taken identifier or scope name is 409', async () => {
  const bad = await f.api('/admin/v1/resource-servers', createBody({ ...NOTES(), identifier: 'http://api.example' }, crypto.randomUUID()));
  assert.equal(bad.status, 422);
  assert.equal((await problemOf(bad)).errors?.[0]?.field, 'identifier');
  const oidc = await f.api('/admin/v1/resource-servers', createBody({ ...NOTES(), scopes: [{ name: 'openid', description: 'x' }] }, crypto.randomUUID()));
  assert.equal(oidc.status, 422);
  assert.equal((await problemOf(oidc)).errors?.[0]?.field, 'scopes');
  const unknown = await f.api('/admin/v1/resource-servers', createBody({ ...NOTES(), operator_only: true }, crypto.randomUUID()));
  assert.equal(unknown.status, 400);
  const { body } = await create();
  const again = await f.api('/admin/v1/resource-servers', createBody({ ...NOTES(), identifier: body.identifier }, crypto.randomUUID()));
  assert.equal(again.status, 409);
  const taken = await f.api('/admin/v1/resource-servers', createBody({ ...NOTES(), scopes: body.scopes }, crypto.randomUUID()));
  assert.equal(taken.status, 409);
});

test('reads carry a strong ETag; If-None-Match with it is 304', async () => {
  const { body } = await create();
  const { etag } = await read(body.identifier);
  const res = await f.api(path(body.identifier), { headers: { 'if-none-match': etag } });
  assert.equal(res.status, 304);
});

test('unknown identifiers are 404 problems on read, write and delete', async () => {
  const unknown = path('https://nobody.example/api');
  assert.equal((await problemOf(await f.api(unknown))).code, 'not-found');
  assert.equal((await f.api(unknown, patchBody({ name: 'x' }, '"x"'))).status, 404);
  assert.equal((await f.api(unknown, { method: 'DELETE', headers: { 'if-match': '"x"' } })).status, 404);
});

test('PATCH, PUT and DELETE without If-Match are 428 precondition-required and change nothing', async () => {
  const { body } = await create();
  const patch = await f.api(path(body.identifier), patchBody({ name: 'Changed' }));
  assert.equal(patch.status, 428);
  assert.equal((await problemOf(patch)).code, 'precondition-required');
  const put = await f.api(path(body.identifier), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Changed', scopes: body.scopes }),
  });
  assert.equal(put.status, 428);
  assert.equal((await f.api(path(body.identifier), { method: 'DELETE' })).status, 428);
  assert.equal((await read(body.identifier)).body.name, body.name);
});

test('PATCH with the current ETag applies a merge patch (name, scopes, lifetime, offline access) and the old ETag is then 412', async () => {
  const { body } = await create();
  const { etag } = await read(body.identifier);
  const scopes = [...(body.scopes as object[]), { name: `${body.identifier.slice(8, 14)}:write`, description: 'Write your notes' }];
  const res = await f.api(path(body.identifier), patchBody({ name: 'Renamed', scopes, access_token_ttl: 120, offline_access: false }, etag));
  assert.equal(res.status, 200, await res.clone().text());
  const changed = (await res.json()) as Record<string, unknown>;
  assert.deepEqual([changed.name, (changed.scopes as unknown[]).length, changed.access_token_ttl, changed.offline_access], ['Renamed', 2, 120, false]);
  assert.notEqual(res.headers.get('etag'), etag);
  const stale = await f.api(path(body.identifier), patchBody({ name: 'Again' }, etag));
  assert.equal(stale.status, 412);
  const catalogue = await f.t.core.resources.catalogue();
  assert.equal(catalogue.find(body.identifier)?.name, 'Renamed', 'the registry snapshot of this instance has the change at once');
});

test("claim mappings: create and PATCH write a scope's claims, a scope sent without claims keeps its mapping, and the registry has them at once", async () => {
  const document = NOTES();
  const scope = document.scopes[0]!.name;
  const { body } = await create({ ...document, scopes: [{ ...document.scopes[0]!, claims: { access_token: ['department'], id_token: [] } }] });
  assert.deepEqual((body.scopes as { claims?: unknown }[])[0]!.claims, { access_token: ['department'] }, 'an empty list is not stored');
  const { etag } = await read(body.identifier);
  const mapped = await f.api(
    path(body.identifier),
    patchBody({ scopes: [{ name: scope, description: 'Read your notes', claims: { access_token: ['department', 'level'], id_token: ['department'] } }] }, etag),
  );
  assert.equal(mapped.status, 200, await mapped.clone().text());
  const claims = { access_token: ['department', 'level'], id_token: ['department'] };
  assert.deepEqual(((await mapped.json()) as { scopes: { claims?: unknown }[] }).scopes[0]!.claims, claims);
  assert.deepEqual(
    (await f.t.core.resources.catalogue()).find(body.identifier)?.scopes.find((s) => s.name === scope)?.claims,
    claims,
    'issuance reads the new mapping',
  );
  // A document that only describes the scope (as before claims were writable here) leaves the mapping alone.
  const described = await f.api(path(body.identifier), patchBody({ scopes: [{ name: scope, description: 'Read the notes' }] }, mapped.headers.get('etag')!));
  assert.equal(described.status, 200, await described.clone().text());
  assert.deepEqual(((await described.json()) as { scopes: { claims?: unknown }[] }).scopes[0]!.claims, claims);
  // An empty mapping removes it.
  const cleared = await f.api(
    path(body.identifier),
    patchBody({ scopes: [{ name: scope, description: 'Read the notes', claims: {} }] }, described.headers.get('etag')!),
  );
  assert.equal(cleared.status, 200);
  assert.equal(((await cleared.json()) as { scopes: { claims?: unknown }[] }).scopes[0]!.claims, undefined);
  const events = (await (await f.api(`/admin/v1/audit-events?type=admin.resource_server.updated&subject=${encodeURIComponent(body.identifier)}`)).json()) as {
    data: { changed_fields: string[] }[];
  };
  assert.ok(events.data.length >= 2 && events.data.every((e) => e.changed_fields.includes('scopes')), 'each mapping change is audited as a change of scopes');
});

test('a claim mapping must name a claimable attribute: a reserved or standard claim, a name given twice, a bad name or an unknown token is refused (422 naming scopes, 400 for the shape)', async () => {
  const document = NOTES();
  const withClaims = (claims: unknown) => ({ ...document, scopes: [{ ...document.scopes[0]!, claims }] });
  for (const claims of [
    { access_token: ['sub'] },
    { id_token: ['email'] },
    { access_token: ['team', 'team'] },
    { access_token: ['has space'] },
    { access_token: ['__proto__'] },
  ]) {
    const res = await f.api('/admin/v1/resource-servers', createBody(withClaims(claims), crypto.randomUUID()));
    assert.equal(res.status, 422, JSON.stringify(claims));
    assert.equal((await problemOf(res)).errors?.[0]?.field, 'scopes');
  }
  const shape = await f.api('/admin/v1/resource-servers', createBody(withClaims({ refresh_token: ['team'] }), crypto.randomUUID()));
  assert.equal(shape.status, 400);
  assert.equal(
    (await f.t.core.db.selectFrom('resource_servers').select('identifier').where('identifier', '=', document.identifier).execute()).length,
    0,
    'nothing registered',
  );
  // The same rule on a write to an existing resource server.
  const { body } = await create();
  const { etag } = await read(body.identifier);
  const scope = (body.scopes as { name: string; description: string }[])[0]!;
  const res = await f.api(path(body.identifier), patchBody({ scopes: [{ ...scope, claims: { id_token: ['acr'] } }] }, etag));
  assert.equal(res.status, 422);
  assert.equal((await read(body.identifier)).etag, etag, 'unchanged');
});

test('a merge patch changing a read-only member is 422; a lifetime above ACCESS_TOKEN_TTL is 422', async () => {
  const { body } = await create();
  const { etag } = await read(body.identifier);
  const res = await f.api(path(body.identifier), patchBody({ operator_only: true }, etag));
  assert.equal(res.status, 422);
  const ttl = await f.api(path(body.identifier), patchBody({ access_token_ttl: f.t.config.ACCESS_TOKEN_TTL + 1 }, etag));
  assert.equal(ttl.status, 422);
  assert.equal((await problemOf(ttl)).errors?.[0]?.field, 'access_token_ttl');
});

test('two parallel PATCHes with the same ETag: exactly one wins, the other is 412', async () => {
  const { body } = await create();
  const { etag } = await read(body.identifier);
  const answers = await Promise.all(['First', 'Second'].map((name) => f.api(path(body.identifier), patchBody({ name }, etag))));
  assert.deepEqual(answers.map((r) => r.status).sort(), [200, 412]);
  const winner = (await answers.find((r) => r.status === 200)!.json()) as Record<string, unknown>;
  assert.equal((await read(body.identifier)).body.name, winner.name);
});

test('built-in resource servers are not deletable: 409 conflict, and they stay', async () => {
  for (const identifier of [f.t.config.API_AUDIENCE, `${f.t.config.ISSUER}/admin`]) {
    const { etag, body } = await read(identifier);
    assert.equal(body.built_in, true);
    const res = await f.api(path(identifier), { method: 'DELETE', headers: { 'if-match': etag } });
    assert.equal(res.status, 409);
    assert.equal((await problemOf(res)).code, 'conflict');
    await read(identifier);
  }
});

test('operator-only rules kept: the admin resource server cannot be given offline access, nor can a built-in lose its scopes', async () => {
  const admin = `${f.t.config.ISSUER}/admin`;
  const { etag, body } = await read(admin);
  const offline = await f.api(path(admin), patchBody({ offline_access: true }, etag));
  assert.equal(offline.status, 422);
  const fewer = await f.api(path(admin), patchBody({ scopes: (body.scopes as unknown[]).slice(0, 1) }, etag));
  assert.equal(fewer.status, 422);
  const operatorOnly = await f.api(path(admin), patchBody({ operator_only: false }, etag));
  assert.equal(operatorOnly.status, 422);
});

test('DELETE with a stale ETag is 412; with the current one 204, its introspection client and it are gone, with an audit event', async () => {
  const { body } = await create();
  const { etag } = await read(body.identifier);
  const fresh = await f.api(path(body.identifier), patchBody({ name: 'Changed' }, etag));
  assert.equal(fresh.status, 200);
  assert.equal((await f.api(path(body.identifier), { method: 'DELETE', headers: { 'if-match': etag } })).status, 412);
  const res = await f.api(path(body.identifier), { method: 'DELETE', headers: { 'if-match': fresh.headers.get('etag')! } });
  assert.equal(res.status, 204);
  assert.equal((await f.api(path(body.identifier))).status, 404);
  assert.equal((await f.t.core.db.selectFrom('clients').select('id').where('id', '=', String(body.client_id)).execute()).length, 0);
  const events = (await (await f.api('/admin/v1/audit-events?type=admin.resource_server.deleted')).json()) as {
    data: { resource_id: string; actor: unknown }[];
  };
  assert.ok(
    events.data.some((e) => e.resource_id === body.identifier),
    JSON.stringify(events),
  );
});

test('admin:read cannot write: 403 insufficient_scope on create, patch and delete', async () => {
  const res = await f.api('/admin/v1/resource-servers', { ...createBody(NOTES(), crypto.randomUUID()), token: f.readToken });
  assert.equal(res.status, 403);
  assert.match(res.headers.get('www-authenticate') ?? '', /insufficient_scope/);
  const { body } = await create();
  const { etag } = await read(body.identifier);
  assert.equal((await f.api(path(body.identifier), { ...patchBody({ name: 'x' }, etag), token: f.readToken })).status, 403);
  assert.equal((await f.api(path(body.identifier), { method: 'DELETE', headers: { 'if-match': etag }, token: f.readToken })).status, 403);
  assert.equal((await f.api('/admin/v1/resource-servers', { token: f.readToken })).status, 200);
});

test('lists are cursor pages with Link rel="next", stable while resource servers are added', async () => {
  for (let i = 0; i < 3; i++) await create();
  const seen = (
    await walk<{ identifier: string }>(f, '/admin/v1/resource-servers?limit=2', async () => {
      clock.advance(1000);
      await create();
    })
  ).map((s) => s.identifier);
  assert.equal(new Set(seen).size, seen.length, 'no duplicates');
  const all = await f.t.core.db.selectFrom('resource_servers').select('identifier').execute();
  assert.equal(seen.length, all.length, 'no gaps');
});

test('405 with Allow for an unsupported method', async () => {
  const res = await f.api('/admin/v1/resource-servers', { method: 'DELETE' });
  assert.equal(res.status, 405);
  assert.equal((await problemOf(res)).code, 'method-not-allowed');
  assert.match(res.headers.get('allow') ?? '', /GET/);
  assert.match(res.headers.get('allow') ?? '', /POST/);
});

test('415 for a body that is not JSON (and for PATCH that is not merge-patch)', async () => {
  const res = await f.api('/admin/v1/resource-servers', {
    method: 'POST',
    headers: { 'content-type': 'text/plain', 'idempotency-key': crypto.randomUUID() },
    body: 'x',
  });
  assert.equal(res.status, 415);
  assert.equal((await problemOf(res)).code, 'unsupported-media-type');
  const { body } = await create();
  const { etag } = await read(body.identifier);
  const patch = await f.api(path(body.identifier), { method: 'PATCH', headers: { 'content-type': 'application/json', 'if-match': etag }, body: '{}' });
  assert.equal(patch.status, 415);
});

test('413 for a body over the JSON size limit', async () => {
  const huge = { ...NOTES(), name: 'x'.repeat(f.t.config.JSON_BODY_LIMIT + 10) };
  const res = await f.api('/admin/v1/resource-servers', createBody(huge, crypto.randomUUID()));
  assert.equal(res.status, 413);
  assert.equal((await problemOf(res)).code, 'payload-too-large');
});

test('the OpenAPI document lists the routes under the tag "admin: resource-servers"', async () => {
  const doc = (await (await fetch(`${f.t.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { tags?: string[]; operationId?: string }>> };
  const operations = Object.entries(doc.paths)
    .filter(([p]) => p.startsWith('/admin/v1/resource-servers'))
    .flatMap(([, ops]) => Object.values(ops));
  assert.ok(operations.length >= 6, JSON.stringify(Object.keys(doc.paths)));
  assert.ok(operations.every((o) => o.tags?.includes('admin: resource-servers')));
  assert.ok(operations.some((o) => o.operationId === 'adminPatchResourceServer'));
});
