// /admin/v1/signing-keys (docs/admin-api.md, docs/key-rotation.md): the keys with their schedule and never
// private material, and rotation shared with `gatehouse keys rotate` (one service, one audit event per key).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { adminFixture, createBody, problemOf, type AdminFixture } from './fixture.js';
import { walk } from './fixture.js';

type Key = { kid: string; alg: string; state: string; published_at: string; activates_at: string; retires_at: string | null; expires_at: string | null };

const clock = manualClock(Date.now());
let f: AdminFixture;
before(async () => {
  f = await adminFixture({ clock });
});
after(() => f.t.close());

const rotate = (body: unknown, key: string | undefined = crypto.randomUUID(), token?: string) =>
  f.api('/admin/v1/signing-keys/rotations', { ...createBody(body, key), ...(token ? { token } : {}) });

const keyCount = async () => (await f.t.core.db.selectFrom('signing_keys').select('kid').execute()).length;

test('the list shows every key with its schedule and never private material', async () => {
  const res = await f.api('/admin/v1/signing-keys');
  assert.equal(res.status, 200);
  const text = await res.text();
  const page = JSON.parse(text) as { data: Key[]; pagination: { has_more: boolean; next_cursor: string | null } };
  assert.deepEqual(page.data.map((k) => k.alg).sort(), ['ES256', 'RS256']);
  for (const key of page.data) {
    assert.deepEqual(Object.keys(key).sort(), ['activates_at', 'alg', 'expires_at', 'kid', 'published_at', 'retires_at', 'state']);
    assert.equal(key.state, 'active');
  }
  assert.equal(page.pagination.has_more, false);
  const rows = await f.t.core.db.selectFrom('signing_keys').select(['sealed_private_jwk']).execute();
  for (const row of rows) assert.ok(!text.includes(row.sealed_private_jwk));
  assert.doesNotMatch(text, /"d"|sealed|private/);
});

test('rotation publishes a new key per algorithm on the schedule: pending now, the old key retires when it activates', async () => {
  const res = await rotate({ alg: 'ES256' });
  assert.equal(res.status, 201, await res.clone().text());
  const { rotated } = (await res.json()) as { rotated: Key[] };
  assert.equal(rotated.length, 1);
  const [fresh] = rotated;
  assert.equal(fresh!.state, 'pending');
  const margin = (f.t.config.JWKS_CACHE_TTL + f.t.config.CLOCK_SKEW + f.t.config.KEY_REFRESH_INTERVAL) * 1000;
  assert.equal(Date.parse(fresh!.activates_at) - Date.parse(fresh!.published_at), margin);
  const jwks = (await (await fetch(`${f.t.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
  assert.ok(
    jwks.keys.some((k) => k.kid === fresh!.kid),
    'published at once by this instance',
  );
  const keys = await walk<Key>(f, '/admin/v1/signing-keys');
  const old = keys.filter((k) => k.alg === 'ES256' && k.kid !== fresh!.kid);
  assert.ok(old.every((k) => k.retires_at === fresh!.activates_at));
});

test('ten parallel rotations with one Idempotency-Key make exactly one rotation', async () => {
  const before = await keyCount();
  const key = crypto.randomUUID();
  const answers = await Promise.all(Array.from({ length: 10 }, () => rotate({}, key)));
  const statuses = answers.map((r) => r.status);
  assert.ok(
    statuses.every((s) => s === 201 || s === 409),
    statuses.join(','),
  );
  assert.ok(statuses.includes(201));
  assert.equal(await keyCount(), before + 2, 'one ES256 and one RS256 key');
  const replay = await rotate({}, key);
  assert.equal(replay.status, 201);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.equal(await keyCount(), before + 2);
});

test('rotation requires an Idempotency-Key: 400 without, and no key is made', async () => {
  const before = await keyCount();
  const res = await rotate({}, '');
  assert.equal(res.status, 400);
  assert.equal((await problemOf(res)).code, 'missing-idempotency-key');
  assert.equal(await keyCount(), before);
});

test('an unknown algorithm or member is 400; a body that is not JSON is 415; an oversized one 413', async () => {
  assert.equal((await rotate({ alg: 'HS256' })).status, 400);
  assert.equal((await rotate({ colour: 'red' })).status, 400);
  const text = await f.api('/admin/v1/signing-keys/rotations', {
    method: 'POST',
    headers: { 'content-type': 'text/plain', 'idempotency-key': crypto.randomUUID() },
    body: 'x',
  });
  assert.equal(text.status, 415);
  assert.equal((await problemOf(text)).code, 'unsupported-media-type');
  const huge = await rotate({ alg: 'x'.repeat(f.t.config.JSON_BODY_LIMIT + 10) });
  assert.equal(huge.status, 413);
});

test('admin:read cannot rotate: 403 insufficient_scope and no key is made', async () => {
  const before = await keyCount();
  const res = await rotate({}, crypto.randomUUID(), f.readToken);
  assert.equal(res.status, 403);
  assert.match(res.headers.get('www-authenticate') ?? '', /insufficient_scope/);
  assert.equal(await keyCount(), before);
});

test('a key reads with a strong ETag (If-None-Match → 304); an unknown kid is 404', async () => {
  const [key] = await walk<Key>(f, '/admin/v1/signing-keys');
  const res = await f.api(`/admin/v1/signing-keys/${key!.kid}`);
  assert.equal(res.status, 200);
  const etag = res.headers.get('etag')!;
  assert.match(etag, /^"[^"]+"$/);
  assert.equal((await f.api(`/admin/v1/signing-keys/${key!.kid}`, { headers: { 'if-none-match': etag } })).status, 304);
  assert.equal((await problemOf(await f.api('/admin/v1/signing-keys/no-such-kid'))).code, 'not-found');
});

test('405 with Allow on the keys and on a key (keys are never deleted through the API)', async () => {
  const list = await f.api('/admin/v1/signing-keys', { method: 'DELETE' });
  assert.equal(list.status, 405);
  assert.match(list.headers.get('allow') ?? '', /GET/);
  const one = await f.api('/admin/v1/signing-keys/x', { method: 'DELETE' });
  assert.equal(one.status, 405);
});

test('key lists are cursor pages, stable while keys are rotated', async () => {
  clock.advance(1000);
  await rotate({});
  const all = (await walk<Key>(f, '/admin/v1/signing-keys?limit=100')).length;
  const seen = await walk<Key>(f, '/admin/v1/signing-keys?limit=2', async () => {
    clock.advance(1000);
    assert.equal((await rotate({})).status, 201);
  });
  const kids = seen.map((k) => k.kid);
  assert.equal(new Set(kids).size, kids.length, 'no duplicates');
  assert.equal(kids.length, all + 2, 'no gaps: the keys rotated while paging come last');
});

test('a rotation is a signing_key.rotated event per key, from the admin API and from the CLI alike', async () => {
  const res = await rotate({ alg: 'RS256' });
  const [fresh] = ((await res.json()) as { rotated: Key[] }).rotated;
  const events = await f.api(`/admin/v1/audit-events?type=signing_key.rotated&subject=${fresh!.kid}`);
  const [event] = ((await events.json()) as { data: { actor: Record<string, string>; details: Record<string, string> }[] }).data;
  assert.deepEqual(event!.actor, { kind: 'admin-client', client_id: f.admin.id });
  assert.equal(event!.details.alg, 'RS256');
  const cli = (await f.cli('keys', 'rotate', '--alg', 'ES256')) as { rotated: Key[] };
  const fromCli = await f.api(`/admin/v1/audit-events?type=signing_key.rotated&subject=${cli.rotated[0]!.kid}`);
  const [cliEvent] = ((await fromCli.json()) as { data: { actor: Record<string, string> }[] }).data;
  assert.equal(cliEvent!.actor.kind, 'cli');
});
