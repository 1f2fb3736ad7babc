// /v1/reports: 202 + Location, work done by the background job queue (never in the request), status
// while pending, the result as JSON or streamed CSV by Accept (Vary, 406, ETag/304), object-level 404.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { ordersRepository } from '../../../src/storage/repositories/orders-repository.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { call, shopTokens, type Caller } from '../../helpers/shop.js';

let t: TestApp;
let user: Caller;
const day = (d: string, h = 12) => new Date(`${d}T${String(h).padStart(2, '0')}:00:00Z`);

before(async () => {
  t = await startTestApp();
  user = await shopTokens(t.core).user();
  const orders = ordersRepository(t.core.db);
  const place = (userId: string, at: Date, totalMinor: number, currency = 'EUR') =>
    orders.create({ userId, currency, totalMinor, items: [{ sku: 'X', quantity: 1, unit_price_minor: totalMinor }], now: at });
  await place(user.sub, day('2025-05-01', 9), 1000);
  await place(user.sub, day('2025-05-01', 18), 250);
  const cancelled = await place(user.sub, day('2025-05-02'), 700);
  await orders.transition(cancelled.id, 'cancelled', day('2025-05-02'));
  await place(user.sub, day('2025-05-02'), 500, 'JPY');
  await place(user.sub, day('2025-06-01'), 999); // outside the period
  const other = await shopTokens(t.core).user();
  await place(other.sub, day('2025-05-01'), 123_456); // another user's order
});
after(() => t.close());

const summary = { type: 'orders-summary', from: '2025-05-01', to: '2025-06-01' };

async function createReport(caller: Caller = user) {
  const r = await call(t.url, 'POST', '/v1/reports', { token: caller.token, body: summary });
  assert.equal(r.status, 202);
  return r;
}

test('POST /v1/reports → 202 with Location of the status resource; the report is pending until the job queue runs it', async () => {
  const created = await createReport();
  assert.equal(created.headers.get('location'), `/v1/reports/${created.json.id}`);
  assert.ok(['pending', 'running'].includes(created.json.status));
  const job = await t.core.db
    .selectFrom('jobs')
    .select(['kind', 'state'])
    .where('payload', '=', JSON.stringify({ reportId: created.json.id }))
    .executeTakeFirst();
  assert.equal(job?.kind, 'report');
  await t.app.jobs.drain();
  const done = await call(t.url, 'GET', created.headers.get('location')!, { token: user.token });
  assert.equal(done.json.status, 'done');
});

test("a done report is JSON by default with the user's own orders summarised per day, currency and status", async () => {
  const { json } = await createReport();
  await t.app.jobs.drain();
  const r = await call(t.url, 'GET', `/v1/reports/${json.id}`, { token: user.token, headers: { accept: 'application/json' } });
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
  assert.match(r.headers.get('vary') ?? '', /Accept/);
  assert.deepEqual(r.json.rows, [
    { day: '2025-05-01', currency: 'EUR', status: 'pending', order_count: 2, total: '12.50' },
    { day: '2025-05-02', currency: 'EUR', status: 'cancelled', order_count: 1, total: '7.00' },
    { day: '2025-05-02', currency: 'JPY', status: 'pending', order_count: 1, total: '500' },
  ]);
});

test('Accept: text/csv streams the same rows as CSV with a header line; Vary: Accept and a strong ETag that differs per representation; If-None-Match → 304', async () => {
  const { json } = await createReport();
  await t.app.jobs.drain();
  const csv = await call(t.url, 'GET', `/v1/reports/${json.id}`, { token: user.token, headers: { accept: 'text/csv' } });
  assert.equal(csv.status, 200);
  assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
  assert.match(csv.headers.get('vary') ?? '', /Accept/);
  assert.equal(
    csv.text,
    'day,currency,status,order_count,total\r\n2025-05-01,EUR,pending,2,12.50\r\n2025-05-02,EUR,cancelled,1,7.00\r\n2025-05-02,JPY,pending,1,500\r\n',
  );
  const etag = csv.headers.get('etag')!;
  assert.match(etag, /^"[^"]+"$/);
  const jsonTag = (await call(t.url, 'GET', `/v1/reports/${json.id}`, { token: user.token })).headers.get('etag');
  assert.notEqual(jsonTag, etag);
  const cached = await call(t.url, 'GET', `/v1/reports/${json.id}`, { token: user.token, headers: { accept: 'text/csv', 'if-none-match': etag } });
  assert.equal(cached.status, 304);
  assert.equal(cached.text, '');
});

test('an Accept the report cannot satisfy is 406 problem (with Vary: Accept); q-values choose between JSON and CSV', async () => {
  const { json } = await createReport();
  await t.app.jobs.drain();
  for (const accept of ['application/xml', 'application/json;q=0, text/csv;q=0']) {
    const r = await call(t.url, 'GET', `/v1/reports/${json.id}`, { token: user.token, headers: { accept } });
    assert.equal(r.status, 406, accept);
    assert.equal(r.json.code, 'not-acceptable');
  }
  const preferCsv = await call(t.url, 'GET', `/v1/reports/${json.id}`, { token: user.token, headers: { accept: 'application/json;q=0.5, text/csv' } });
  assert.match(preferCsv.headers.get('content-type') ?? '', /^text\/csv/);
});

test('report validation: unknown type, unparseable dates and to ≤ from are 422 VALIDATION_ERROR; missing fields are 400', async () => {
  for (const body of [
    { ...summary, type: 'everything' },
    { ...summary, from: 'yesterday' },
    { ...summary, to: '2025-04-01' },
    { ...summary, to: '2027-01-01' },
  ]) {
    const r = await call(t.url, 'POST', '/v1/reports', { token: user.token, body });
    assert.equal(r.status, 422, JSON.stringify(body));
    assert.equal(r.json.code, 'VALIDATION_ERROR');
  }
  assert.equal((await call(t.url, 'POST', '/v1/reports', { token: user.token, body: { type: 'orders-summary' } })).status, 400);
});

test("reports need reports:write to create and reports:read to read; another user's report is 404", async () => {
  const tokens = shopTokens(t.core);
  const readOnly = await tokens.tokenFor(user.sub, ['reports:read']);
  assert.equal((await call(t.url, 'POST', '/v1/reports', { token: readOnly, body: summary })).status, 403);
  const { json } = await createReport();
  const writeOnly = await tokens.tokenFor(user.sub, ['reports:write']);
  assert.equal((await call(t.url, 'GET', `/v1/reports/${json.id}`, { token: writeOnly })).status, 403);
  const stranger = await tokens.user();
  assert.equal((await call(t.url, 'GET', `/v1/reports/${json.id}`, { token: stranger.token })).status, 404);
});

test("a service token's report summarises every user's orders", async () => {
  const service = await shopTokens(t.core).service();
  const { json } = await createReport(service);
  await t.app.jobs.drain();
  const r = await call(t.url, 'GET', `/v1/reports/${json.id}`, { token: service.token });
  const may1 = r.json.rows.find((row: { day: string; currency: string }) => row.day === '2025-05-01' && row.currency === 'EUR');
  assert.equal(may1.order_count, 3);
  assert.equal(may1.total, '1247.06');
});

test('a CSV larger than one database batch streams (chunked) with every row exactly once, in order', async () => {
  const big = await shopTokens(t.core).user();
  // One order per day and currency over a whole year: 2 × 365 report rows, more than one 500-row batch.
  await sql`
    insert into orders (user_id, currency, total_minor, items, created_at, updated_at)
    select ${big.sub}, c, 100, '[]'::jsonb, d, d
    from generate_series(timestamptz '2024-01-01 12:00Z', timestamptz '2024-12-30 12:00Z', interval '1 day') as d,
         unnest(array['EUR', 'USD']) as c`.execute(t.core.db);
  const created = await call(t.url, 'POST', '/v1/reports', { token: big.token, body: { type: 'orders-summary', from: '2024-01-01', to: '2024-12-31' } });
  await t.app.jobs.drain();
  const csv = await call(t.url, 'GET', created.headers.get('location')!, { token: big.token, headers: { accept: 'text/csv' } });
  assert.equal(csv.headers.get('transfer-encoding'), 'chunked');
  const lines = csv.text.trimEnd().split('\r\n');
  assert.equal(lines.length, 1 + 365 * 2);
  assert.equal(new Set(lines).size, lines.length);
  assert.equal(lines[1], '2024-01-01,EUR,pending,1,1.00');
  assert.equal(lines.at(-1), '2024-12-30,USD,pending,1,1.00');
  assert.deepEqual(lines.slice(1), [...lines.slice(1)].sort());
});

test('a report request built from /openapi.json alone is accepted (type is an enum, the dates have examples)', async () => {
  interface Property {
    type?: string;
    enum?: string[];
    examples?: string[];
  }
  const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
    paths: Record<
      string,
      Record<string, { requestBody: { content: Record<string, { schema: { required: string[]; properties: Record<string, Property> } }> } }>
    >;
  };
  const schema = doc.paths['/v1/reports']!.post!.requestBody.content['application/json']!.schema;
  assert.deepEqual(schema.properties.type!.enum, ['orders-summary']);
  // What a generated client does: every required member from the document's own enum or example.
  const body = Object.fromEntries(schema.required.map((name) => [name, schema.properties[name]!.enum?.[0] ?? schema.properties[name]!.examples?.[0]]));
  const r = await call(t.url, 'POST', '/v1/reports', { token: user.token, body });
  assert.equal(r.status, 202, JSON.stringify({ body, answer: r.json }));
});
