// Security suite, area 14: pagination (RFC 8288; keyset cursors; docs/api-conventions.md) on GET /v1/orders.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { call, orderBody, shopTokens } from '../helpers/shop.js';
import { PERMISSIVE_ENV } from './helpers/world.js';

let t: TestApp;
let token: string;
before(async () => {
  t = await startTestApp({ env: PERMISSIVE_ENV });
  token = (await shopTokens(t.core).user()).token;
  for (let i = 0; i < 45; i++) await call(t.url, 'POST', '/v1/orders', { token, body: orderBody(`${i + 1}.00`) });
});
after(() => t.close());

const list = (query = '') => call(t.url, 'GET', `/v1/orders${query}`, { token });
const nextLink = (headers: Headers) => /<([^>]+)>;\s*rel="next"/.exec(headers.get('link') ?? '')?.[1];

// biome-ignore lint/suspicious/noExplicitAny: the body under test, read field by field
function assertBadRequest(r: { status: number; headers: Headers; json: any }, why: string): void {
  assert.ok(r.status === 400 || r.status === 422, `${why}: ${r.status}`);
  assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/, why);
  assert.equal(r.json.data, undefined, `${why} must not answer page 1`);
}

describe('14. pagination', () => {
  test('14.176 no parameters → default page size 20, deterministic order (created_at desc, id tie-breaker)', async () => {
    const a = await list();
    const b = await list();
    assert.equal(a.json.data.length, 20);
    assert.deepEqual(
      a.json.data.map((o: { id: string }) => o.id),
      b.json.data.map((o: { id: string }) => o.id),
    );
  });

  test('14.178 more results → absolute Link rel="next"; the last page has none', async () => {
    let r = await list();
    let pages = 1;
    const seen = new Set<string>();
    for (;;) {
      for (const o of r.json.data) seen.add(o.id);
      const next = nextLink(r.headers);
      if (!next) break;
      assert.match(next, /^https?:\/\//);
      assert.equal(r.json.pagination.has_more, true);
      r = await call(t.url, 'GET', next.replace(t.url, ''), { token });
      pages += 1;
    }
    assert.equal(r.json.pagination.has_more, false);
    assert.equal(seen.size, 45);
    assert.equal(pages, 3);
  });

  test('14.179 garbage, edited, foreign cursors; sort=unknown; injection-shaped sort or filter → 400 problem, not page 1', async () => {
    const first = await list('?limit=5');
    const cursor = String(first.json.pagination.next_cursor);
    const edited = cursor.slice(0, -2) + (cursor.endsWith('A') ? 'BB' : 'AA');
    const cases = [
      '?cursor=garbage',
      `?cursor=${encodeURIComponent(edited)}`,
      `?cursor=${Buffer.from(JSON.stringify({ created_at: '2020-01-01', id: "' OR 1=1 --" })).toString('base64url')}`,
      `?cursor=${encodeURIComponent(cursor)}&status=paid`,
      '?sort=unknown_field',
      `?sort=${encodeURIComponent('name;DROP TABLE orders')}`,
      `?status=${encodeURIComponent('$where')}`,
      `?status=${encodeURIComponent("pending' OR '1'='1")}`,
      '?limit=abc',
      '?limit=-1',
      '?limit=100000',
      '?offset=-5',
      `?offset=1&cursor=${encodeURIComponent(cursor)}`,
      `?cursor=${'A'.repeat(5000)}`,
    ];
    for (const q of cases) assertBadRequest(await list(q), q.slice(0, 60));
  });

  test('14.179+ a cursor replayed by another user → 400, never their page', async () => {
    const cursor = String((await list('?limit=5')).json.pagination.next_cursor);
    const other = (await shopTokens(t.core).user()).token;
    assertBadRequest(await call(t.url, 'GET', `/v1/orders?cursor=${encodeURIComponent(cursor)}`, { token: other }), 'foreign user');
  });

  test('14.181 walking all pages while items are inserted and deleted → no duplicates, no skipped pre-existing items', async () => {
    const existing = new Set<string>();
    for (let r = await list('?limit=100'); ; ) {
      for (const o of r.json.data) existing.add(o.id);
      const next = nextLink(r.headers);
      if (!next) break;
      r = await call(t.url, 'GET', next.replace(t.url, ''), { token });
    }
    const seen: string[] = [];
    let r = await list('?limit=7');
    let round = 0;
    for (;;) {
      seen.push(...r.json.data.map((o: { id: string }) => o.id));
      await call(t.url, 'POST', '/v1/orders', { token, body: orderBody(`9${round}.00`) });
      if (round % 2 === 0 && r.json.data[0]) await call(t.url, 'POST', `/v1/orders/${r.json.data[0].id}/cancel`, { token });
      round += 1;
      const next = nextLink(r.headers);
      if (!next) break;
      r = await call(t.url, 'GET', next.replace(t.url, ''), { token });
    }
    assert.equal(new Set(seen).size, seen.length, 'no duplicates');
    for (const id of existing) assert.ok(seen.includes(id), `skipped ${id}`);
  });

  test('14.182 offset beyond the end → 200 with an empty array', async () => {
    const r = await list('?offset=100000&limit=10');
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.data, []);
  });
});
