// GET /v1/orders paging (docs/api-conventions.md): keyset cursors with a unique
// tie-breaker, offset pages, Link headers with absolute URLs, parameter validation, cursor integrity,
// and a walk that stays exact while rows are inserted and deleted concurrently.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { ordersRepository } from '../../../src/storage/repositories/orders-repository.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { call, shopTokens, type Caller } from '../../helpers/shop.js';

let t: TestApp;
let owner: Caller;
let ids: string[]; // owner's orders, newest first by (created_at desc, id desc)

const base = Date.parse('2026-01-01T00:00:00Z');

async function seed(userId: string, count: number, at: (i: number) => number, status?: 'cancelled') {
  const orders = ordersRepository(t.core.db);
  const created = [];
  for (let i = 0; i < count; i++) {
    const order = await orders.create({
      userId,
      currency: 'EUR',
      totalMinor: 100 + i,
      items: [{ sku: `S${i}`, quantity: 1, unit_price_minor: 100 + i }],
      now: new Date(at(i)),
    });
    if (status) await orders.transition(order.id, status, new Date(at(i)));
    created.push(order);
  }
  return created;
}

const newestFirst = (rows: { id: string; createdAt: Date }[]) =>
  [...rows].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).map((r) => r.id);

const nextLink = (link: string | null) => /<([^>]+)>;\s*rel="next"/.exec(link ?? '')?.[1];
const prevLink = (link: string | null) => /<([^>]+)>;\s*rel="prev"/.exec(link ?? '')?.[1];

before(async () => {
  t = await startTestApp();
  owner = await shopTokens(t.core).user();
  // 45 orders, many sharing a created_at, so only the id tie-breaker orders them.
  ids = newestFirst(await seed(owner.sub, 45, (i) => base + Math.floor(i / 4) * 1000));
});
after(() => t.close());

test('cursor walk: default page size 20, newest first with the id tie-breaker, next via Link rel="next" (absolute URL); the last page has no next', async () => {
  const seen: string[] = [];
  let url: string | undefined = `${t.url}/v1/orders`;
  const pages = [];
  while (url) {
    const r = await call('', 'GET', url, { token: owner.token });
    assert.equal(r.status, 200);
    pages.push(r.json.data.length);
    seen.push(...r.json.data.map((o: { id: string }) => o.id));
    const next = nextLink(r.headers.get('link'));
    assert.equal(r.json.pagination.has_more, next !== undefined);
    if (next) {
      assert.ok(next.startsWith(`${t.config.ISSUER}/v1/orders?`), next);
      assert.equal(new URL(next).searchParams.get('cursor'), r.json.pagination.next_cursor);
    } else assert.equal(r.json.pagination.next_cursor, null);
    url = next;
  }
  assert.deepEqual(pages, [20, 20, 5]);
  assert.deepEqual(seen, ids);
});

test('offset style: limit + offset with Link rel=next and rel=prev; an offset beyond the end is 200 with an empty page', async () => {
  const r = await call(t.url, 'GET', '/v1/orders?limit=10&offset=10', { token: owner.token });
  assert.deepEqual(
    r.json.data.map((o: { id: string }) => o.id),
    ids.slice(10, 20),
  );
  assert.deepEqual({ ...r.json.pagination }, { next_cursor: null, has_more: true, limit: 10, offset: 10 });
  assert.equal(new URL(nextLink(r.headers.get('link'))!).searchParams.get('offset'), '20');
  assert.equal(new URL(prevLink(r.headers.get('link'))!).searchParams.get('offset'), '0');
  const beyond = await call(t.url, 'GET', '/v1/orders?offset=1000', { token: owner.token });
  assert.equal(beyond.status, 200);
  assert.deepEqual(beyond.json.data, []);
  assert.equal(beyond.json.pagination.has_more, false);
});

test('paging parameters: non-integer limit/offset → 400; out of range → 422 VALIDATION_ERROR; offset with cursor → 422', async () => {
  for (const q of ['limit=abc', 'limit=2.5', 'offset=x', 'limit=1&limit=2']) {
    assert.equal((await call(t.url, 'GET', `/v1/orders?${q}`, { token: owner.token })).status, 400, q);
  }
  for (const q of ['limit=0', 'limit=101', 'offset=-1']) {
    const r = await call(t.url, 'GET', `/v1/orders?${q}`, { token: owner.token });
    assert.equal(r.status, 422, q);
    assert.equal(r.json.code, 'VALIDATION_ERROR');
  }
  const first = await call(t.url, 'GET', '/v1/orders?limit=5', { token: owner.token });
  const both = await call(t.url, 'GET', `/v1/orders?offset=5&cursor=${first.json.pagination.next_cursor}`, { token: owner.token });
  assert.equal(both.status, 422);
  assert.equal((await call(t.url, 'GET', '/v1/orders?limit=100', { token: owner.token })).json.data.length, 45);
});

test('an edited, garbage or foreign cursor — or one replayed with another filter or by another user — is 400 invalid-cursor, never page 1', async () => {
  const first = await call(t.url, 'GET', '/v1/orders?limit=5', { token: owner.token });
  const cursor: string = first.json.pagination.next_cursor;
  const [payload, tag] = cursor.split('.') as [string, string];
  const edited = Buffer.from(JSON.stringify([base + 999_999, ids[0]])).toString('base64url');
  const other = await shopTokens(t.core).user();
  const attempts: [string, string][] = [
    [`/v1/orders?cursor=${edited}.${tag}`, owner.token],
    [`/v1/orders?cursor=${payload}`, owner.token],
    [`/v1/orders?cursor=garbage`, owner.token],
    [`/v1/orders?cursor=${encodeURIComponent("' OR 1=1 --")}`, owner.token],
    [`/v1/orders?cursor=${cursor}&status=cancelled`, owner.token],
    [`/v1/orders?cursor=${cursor}`, other.token],
  ];
  for (const [path, token] of attempts) {
    const r = await call(t.url, 'GET', path, { token });
    assert.equal(r.status, 400, path);
    assert.equal(r.json.code, 'invalid-cursor', path);
  }
});

test("a user lists only their own orders; a service token lists everyone's and may filter by user_id; a user naming another user_id gets 404", async () => {
  const tokens = shopTokens(t.core);
  const stranger = await tokens.user();
  await seed(stranger.sub, 3, (i) => base + i);
  const mine = await call(t.url, 'GET', '/v1/orders?limit=100', { token: stranger.token });
  assert.equal(mine.json.data.length, 3);
  assert.ok(mine.json.data.every((o: { user_id: string }) => o.user_id === stranger.sub));
  assert.equal((await call(t.url, 'GET', `/v1/orders?user_id=${owner.sub}`, { token: stranger.token })).status, 404);
  const service = await tokens.service();
  const all = await call(t.url, 'GET', '/v1/orders?limit=100', { token: service.token });
  assert.ok(all.json.data.length >= 48);
  const filtered = await call(t.url, 'GET', `/v1/orders?limit=100&user_id=${stranger.sub}`, { token: service.token });
  assert.equal(filtered.json.data.length, 3);
});

test('a status filter is kept in the next link and bound to the cursor', async () => {
  const user = await shopTokens(t.core).user();
  await seed(user.sub, 6, (i) => base + i * 10, 'cancelled');
  await seed(user.sub, 4, (i) => base + i * 10 + 5);
  const page = await call(t.url, 'GET', '/v1/orders?status=cancelled&limit=4', { token: user.token });
  assert.equal(page.json.data.length, 4);
  const next = nextLink(page.headers.get('link'))!;
  assert.equal(new URL(next).searchParams.get('status'), 'cancelled');
  const rest = await call('', 'GET', next, { token: user.token });
  assert.equal(rest.json.data.length, 2);
  assert.ok([...page.json.data, ...rest.json.data].every((o: { status: string }) => o.status === 'cancelled'));
});

test('an unknown sort, an unknown status or an injection-shaped filter is 400, never ignored and never page 1', async () => {
  const service = await shopTokens(t.core).service();
  for (const q of [
    'status=shipped',
    'sort=unknown_field',
    'sort=name;DROP',
    `status=${encodeURIComponent("pending' OR '1'='1")}`,
    `user_id=${encodeURIComponent('$where')}`,
    `user_id=${encodeURIComponent('a;DROP TABLE orders')}`,
  ]) {
    const r = await call(t.url, 'GET', `/v1/orders?${q}`, { token: service.token });
    assert.equal(r.status, 400, q);
    assert.equal(r.json.code, 'bad-request');
  }
  assert.equal((await call(t.url, 'GET', '/v1/orders?sort=-created_at&limit=1', { token: service.token })).status, 200);
});

test('walking all cursor pages while rows are inserted and deleted concurrently yields no duplicates and skips no row that existed throughout', async () => {
  const user = await shopTokens(t.core).user();
  const orders = ordersRepository(t.core.db);
  // 60 rows, three per timestamp.
  const existing = await seed(user.sub, 60, (i) => base + Math.floor(i / 3) * 1000);
  const doomed = new Set(existing.filter((_, i) => i % 7 === 3).map((o) => o.id));
  const survivors = existing.filter((o) => !doomed.has(o.id)).map((o) => o.id);
  const doomedQueue = [...doomed];
  const seen: string[] = [];
  let url: string | undefined = `${t.url}/v1/orders?limit=7`;
  let round = 0;
  while (url) {
    round += 1;
    // The page request races an insert at a timestamp inside the walked range and a delete.
    const victim = doomedQueue.shift();
    const [page]: [Awaited<ReturnType<typeof call>>, ...unknown[]] = await Promise.all([
      call('', 'GET', url, { token: user.token }),
      orders.create({ userId: user.sub, currency: 'EUR', totalMinor: 1, items: [], now: new Date(base + ((round * 7919) % 20) * 1000) }),
      victim ? t.core.db.deleteFrom('orders').where('id', '=', victim).execute() : Promise.resolve(),
    ]);
    assert.equal(page.status, 200);
    seen.push(...page.json.data.map((o: { id: string }) => o.id));
    url = nextLink(page.headers.get('link'));
  }
  assert.equal(new Set(seen).size, seen.length, 'no duplicates');
  const seenSet = new Set(seen);
  assert.deepEqual(
    survivors.filter((id) => !seenSet.has(id)),
    [],
    'no pre-existing row skipped',
  );
  assert.ok(round > 5);
});
