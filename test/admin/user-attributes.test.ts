// Custom attributes through /admin/v1/users (docs/admin-api.md, "Users"): shown in every representation,
// accepted by create, PUT (the whole set) and PATCH (RFC 7396), under the CLI's rules
// (src/admin-services/user-attributes.ts), written in the user's one version-guarded UPDATE, audited by name.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { manualClock } from '../../src/clock.js';
import { setUserAttribute } from '../../src/admin-services/user-attributes.js';
import { type AdminRuleError, cliActor, findUserRecord, updateUserRecord, userFields, userServiceDeps } from '../../src/admin-services/index.js';
import { usersRepository } from '../../src/storage/repositories/users-repository.js';
import { codeGrantTokens, createClient } from '../helpers/oauth-fixtures.js';
import { createBody, patchBody, problemOf, type AdminFixture } from './fixture.js';
import { PASSWORD, startUsersFixture, uniqueName, usersApi, type UserBody } from './users-fixture.js';

const clock = manualClock(Date.now());
let f: AdminFixture;
before(async () => ({ f } = await startUsersFixture(clock)));
after(() => f.t.close());
const { create, read, put, eventsOf } = usersApi(() => f);

type WithAttributes = UserBody & { attributes: Record<string, unknown> };
const patch = (id: string, body: unknown, etag: string) => f.api(`/admin/v1/users/${id}`, patchBody(body, etag));
const stored = async (id: string) => (await usersRepository(f.t.core.db, f.t.core.clock).findById(id))!.attributes;
const attributeDeps = () => ({ store: f.t.core.store, clock: f.t.core.clock, audit: f.t.core.audit });

/** A 422 naming exactly `fields`, after which the user is as it was (same ETag, same attributes). */
async function refused(res: Response, fields: string[], id: string, before: { etag: string; attributes: unknown }) {
  assert.equal(res.status, 422, await res.clone().text());
  const problem = await problemOf(res);
  assert.equal(problem.code, 'VALIDATION_ERROR');
  assert.deepEqual(
    problem.errors?.map((e) => e.field),
    fields,
  );
  assert.equal((await read(id)).etag, before.etag, 'the user did not change');
  assert.deepEqual(await stored(id), before.attributes);
}

test('attributes are shown ({} when none) and PATCH sets, replaces and deletes single ones, leaving the others; the ETag changes; the value reaches an id_token', async () => {
  const server = await f.cli(
    'resource-servers',
    'create',
    '--identifier',
    `https://${uniqueName('attrs')}.example`,
    '--name',
    'Attrs',
    '--scope',
    'attrs:read=Read attributes',
    '--claim',
    'attrs:read@team=access_token,id_token',
  );
  assert.ok(server.client_id);
  const { body } = await create();
  assert.deepEqual((body as WithAttributes).attributes, {});
  const first = await read(body.id);
  const set = await patch(body.id, { attributes: { team: 'red', old: 1, level: 2 } }, first.etag);
  assert.equal(set.status, 200, await set.clone().text());
  assert.notEqual(set.headers.get('etag'), first.etag);
  const res = await patch(body.id, { attributes: { team: 'blue', old: null } }, set.headers.get('etag')!);
  assert.equal(res.status, 200, await res.clone().text());
  assert.deepEqual(((await res.json()) as WithAttributes).attributes, { team: 'blue', level: 2 });
  const again = await read(body.id);
  assert.equal(again.etag, res.headers.get('etag'));
  assert.deepEqual((again.body as WithAttributes).attributes, { team: 'blue', level: 2 });
  const list = (await (await f.api(`/admin/v1/users?q=${encodeURIComponent(body.username)}`)).json()) as { data: WithAttributes[] };
  assert.deepEqual(list.data.find((u) => u.id === body.id)?.attributes, { team: 'blue', level: 2 });

  const client = await createClient(f.t.core.db, f.t.core.clock, { scopes: ['openid', 'attrs:read'] });
  const user = (await usersRepository(f.t.core.db, f.t.core.clock).findById(body.id))!;
  const tokens = await codeGrantTokens(f.t, client, user, ['openid', 'attrs:read']);
  assert.equal(decodeJwt(String(tokens.id_token)).team, 'blue');
});

test('create takes attributes; PUT replaces the whole set (absent means none); "attributes": null in a PATCH removes all', async () => {
  const { body } = await create({ attributes: { team: 'green', tags: ['a', 'b'] } });
  assert.deepEqual((body as WithAttributes).attributes, { team: 'green', tags: ['a', 'b'] });
  const replaced = await put(body.id, { username: body.username, attributes: { level: 3 } }, (await read(body.id)).etag);
  assert.equal(replaced.status, 200, await replaced.clone().text());
  assert.deepEqual(((await replaced.json()) as WithAttributes).attributes, { level: 3 });
  const bare = await put(body.id, { username: body.username }, replaced.headers.get('etag')!);
  assert.deepEqual(((await bare.json()) as WithAttributes).attributes, {});
  await setUserAttribute(attributeDeps(), body.id, 'team', 'x', { actor: cliActor() });
  const cleared = await patch(body.id, { attributes: null }, (await read(body.id)).etag);
  assert.equal(cleared.status, 200);
  assert.deepEqual(await stored(body.id), {});
});

test('a reserved claim name (sub) or a standard OpenID Connect claim name (email) is 422 naming attributes.NAME and changes nothing', async () => {
  const { body } = await create({ attributes: { team: 'red' } });
  const before = { etag: (await read(body.id)).etag, attributes: { team: 'red' } };
  await refused(await patch(body.id, { attributes: { sub: 'someone-else' } }, before.etag), ['attributes.sub'], body.id, before);
  await refused(
    await patch(body.id, { name: 'Changed', attributes: { email: 'x@example.com', team: 'blue' } }, before.etag),
    ['attributes.email'],
    body.id,
    before,
  );
  await refused(
    await put(body.id, { username: body.username, attributes: { acr: 'high', iss: 'https://evil.example' } }, before.etag),
    ['attributes.acr', 'attributes.iss'],
    body.id,
    before,
  );
  const username = uniqueName('reserved');
  const created = await f.api('/admin/v1/users', createBody({ username, password: PASSWORD, attributes: { sub: 'x' } }, crypto.randomUUID()));
  assert.equal(created.status, 422);
  assert.deepEqual(
    (await problemOf(created)).errors?.map((e) => e.field),
    ['attributes.sub'],
  );
  assert.equal(await usersRepository(f.t.core.db, f.t.core.clock).findByUsername(username), undefined);
});

test("the CLI's value rules hold: null in a PUT, nesting deeper than 5, a value over 4 KiB, a lone surrogate and a bad name are 422 naming attributes.NAME", async () => {
  const { body } = await create();
  const before = { etag: (await read(body.id)).etag, attributes: {} };
  const doc = (attributes: unknown) => ({ username: body.username, attributes });
  await refused(await put(body.id, doc({ gone: null }), before.etag), ['attributes.gone'], body.id, before);
  await refused(await patch(body.id, { attributes: { deep: [[[[[[1]]]]]] } }, before.etag), ['attributes.deep'], body.id, before);
  await refused(await patch(body.id, { attributes: { big: 'x'.repeat(4096) } }, before.etag), ['attributes.big'], body.id, before);
  await refused(await patch(body.id, { attributes: { broken: '\ud800' } }, before.etag), ['attributes.broken'], body.id, before);
  await refused(await patch(body.id, { attributes: { '1st': 1, 'a b': 2 } }, before.etag), ['attributes.1st', 'attributes.a b'], body.id, before);
  const shape = await patch(body.id, { attributes: ['not', 'an', 'object'] }, before.etag);
  assert.equal(shape.status, 400);
});

test('at most 50 attributes and 16 KiB together, counted on the resulting set: 51 or more bytes is 422 naming attributes', async () => {
  const many = (n: number, stem = 'a') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${stem}${i}`, i]));
  const { body } = await create({ attributes: many(50) });
  const before = { etag: (await read(body.id)).etag, attributes: many(50) };
  await refused(await patch(body.id, { attributes: { one_more: true } }, before.etag), ['attributes'], body.id, before);
  const swapped = await patch(body.id, { attributes: { a0: null, one_more: true } }, before.etag);
  assert.equal(swapped.status, 200, 'a patch that removes one and adds one stays at 50');
  const fresh = await create();
  const large = { etag: (await read(fresh.body.id)).etag, attributes: {} };
  const quarters = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`part${i}`, 'x'.repeat(3500)]));
  await refused(await patch(fresh.body.id, { attributes: quarters }, large.etag), ['attributes'], fresh.body.id, large);
  const tooMany = await f.api('/admin/v1/users', createBody({ username: uniqueName(), password: PASSWORD, attributes: many(51) }, crypto.randomUUID()));
  assert.equal(tooMany.status, 422);
});

test("an attribute set through the CLI's service after a GET (or between the service's read and write) makes the write 412/stale, and the CLI's attribute is not lost", async () => {
  const { body } = await create({ attributes: { team: 'red' } });
  const { etag } = await read(body.id);
  await setUserAttribute(attributeDeps(), body.id, 'level', 7, { actor: cliActor() });
  assert.notEqual((await read(body.id)).etag, etag, "the CLI's change moved the ETag");
  const res = await patch(body.id, { attributes: { team: 'blue' } }, etag);
  assert.equal(res.status, 412);
  assert.equal((await problemOf(res)).code, 'precondition-failed');
  assert.deepEqual(await stored(body.id), { team: 'red', level: 7 });
  // The same change landing between the route's read and its write: the UPDATE itself holds the version.
  const current = await findUserRecord(f.t.core, body.id);
  await setUserAttribute(attributeDeps(), body.id, 'level', 8, { actor: cliActor() });
  const write = updateUserRecord(
    userServiceDeps(f.t.core, f.t.core.audit),
    current,
    { ...userFields(current), attributes: { team: 'blue' } },
    { actor: cliActor() },
    current.version,
  );
  await assert.rejects(write, (e: AdminRuleError) => e.code === 'stale');
  assert.deepEqual(await stored(body.id), { team: 'red', level: 8 });
});

test("two parallel PATCHes of attributes with one ETag: exactly one 200, one 412, and only the winner's attribute is stored", async () => {
  const { body } = await create({ attributes: { keep: true } });
  const { etag } = await read(body.id);
  const answers = await Promise.all(['first', 'second'].map((name) => patch(body.id, { attributes: { [name]: 1 } }, etag)));
  assert.deepEqual(answers.map((r) => r.status).sort(), [200, 412]);
  const winner = ['first', 'second'][answers.findIndex((r) => r.status === 200)]!;
  assert.deepEqual(await stored(body.id), { keep: true, [winner]: 1 });
});

test('the audit events name attributes.NAME (with the other changed fields) and never hold a value, nor do the logs', async () => {
  const secret = `value-${crypto.randomUUID()}`;
  const { body } = await create({ name: 'Ada', attributes: { badge: secret, old: 1 } });
  const { etag } = await read(body.id);
  const res = await patch(body.id, { name: 'Grace', attributes: { badge: `${secret}-2`, old: null, added: secret } }, etag);
  assert.equal(res.status, 200);
  const events = (await eventsOf(body.id)).data;
  assert.deepEqual(events.find((e) => e.type === 'admin.user.created')?.changed_fields, ['attributes.badge', 'attributes.old', 'name', 'password', 'username']);
  assert.deepEqual(events.find((e) => e.type === 'admin.user.updated')?.changed_fields, ['attributes.added', 'attributes.badge', 'attributes.old', 'name']);
  const rows = await f.t.core.db.selectFrom('audit_events').selectAll().where('subject', '=', body.id).execute();
  assert.ok(rows.length >= 2);
  for (const [where, text] of Object.entries({ events: JSON.stringify(events), rows: JSON.stringify(rows), logs: f.logText() })) {
    assert.ok(!text.includes(secret), `an attribute value leaked into ${where}`);
  }
});

test('a deeply nested or a huge body is a 4xx problem, never a 500', async () => {
  const { body } = await create();
  const { etag } = await read(body.id);
  const nested = `{"attributes":{"x":${'['.repeat(40)}${']'.repeat(40)}}}`;
  const deep = await f.api(`/admin/v1/users/${body.id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/merge-patch+json', 'if-match': etag },
    body: nested,
  });
  assert.equal(deep.status, 400);
  assert.equal((await problemOf(deep)).code, 'json-too-deep');
  const huge = await patch(body.id, { attributes: { x: 'x'.repeat(2 * 1024 * 1024) } }, etag);
  assert.equal(huge.status, 413);
  await problemOf(huge);
  const wide = await patch(body.id, { attributes: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i])) }, etag);
  assert.equal(wide.status, 422);
  assert.equal((await read(body.id)).etag, etag);
});
