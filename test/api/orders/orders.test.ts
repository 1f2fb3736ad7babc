// /v1/orders: creation with server-side totals in minor units, validation (400 vs 422), `_links` by
// state, the state moves and their 409, object-level 404 between users, ETag and conditional GET.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { call, orderBody, shopTokens } from '../../helpers/shop.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('POST /v1/orders → 201 + Location, status pending, total computed in integer minor units (3 × 0.10 = 0.30, never 0.30000000000000004)', async () => {
  const { token, sub } = await shopTokens(t.core).user();
  const created = await call(t.url, 'POST', '/v1/orders', {
    token,
    body: {
      currency: 'EUR',
      items: [
        { sku: 'A', quantity: 3, unit_price: 0.1 },
        { sku: 'B', quantity: 1, unit_price: '19.99' },
      ],
    },
  });
  assert.equal(created.status, 201);
  assert.equal(created.headers.get('location'), `/v1/orders/${created.json.id}`);
  assert.equal(created.json.status, 'pending');
  assert.equal(created.json.user_id, sub);
  assert.equal(created.json.total, '20.29');
  assert.deepEqual(
    created.json.items.map((i: { unit_price: string }) => i.unit_price),
    ['0.10', '19.99'],
  );
  const jpy = await call(t.url, 'POST', '/v1/orders', { token, body: { currency: 'JPY', items: [{ sku: 'A', quantity: 2, unit_price: 1500 }] } });
  assert.equal(jpy.json.total, '3000');
});

test('order validation: wrong types are 400; amounts with more than the currency minor digits, unknown currencies and bad quantities are 422 VALIDATION_ERROR per field', async () => {
  const { token } = await shopTokens(t.core).user();
  const wrongType = await call(t.url, 'POST', '/v1/orders', { token, body: { currency: 'EUR', items: [{ sku: 'A', quantity: '2', unit_price: '1.00' }] } });
  assert.equal(wrongType.status, 400);
  const malformed = await call(t.url, 'POST', '/v1/orders', { token, body: '{"currency": "EUR", "items": [' });
  assert.equal(malformed.status, 400);
  const cases: [unknown, string][] = [
    [{ currency: 'EUR', items: [{ sku: 'A', quantity: 1, unit_price: '1.005' }] }, 'items.0.unit_price'],
    [{ currency: 'JPY', items: [{ sku: 'A', quantity: 1, unit_price: '1.5' }] }, 'items.0.unit_price'],
    [{ currency: 'EUR', items: [{ sku: 'A', quantity: 1, unit_price: 0.30000000000000004 }] }, 'items.0.unit_price'],
    [{ currency: 'EUR', items: [{ sku: 'A', quantity: 1, unit_price: '-1' }] }, 'items.0.unit_price'],
    [{ currency: 'XYZ', items: [{ sku: 'A', quantity: 1, unit_price: '1' }] }, 'currency'],
    [{ currency: 'eur', items: [{ sku: 'A', quantity: 1, unit_price: '1' }] }, 'currency'],
    [{ currency: 'EUR', items: [{ sku: 'A', quantity: 0, unit_price: '1' }] }, 'items.0.quantity'],
    [{ currency: 'EUR', items: [] }, 'items'],
    [{ currency: 'EUR', items: [{ sku: '', quantity: 1, unit_price: '1' }] }, 'items.0.sku'],
  ];
  for (const [body, field] of cases) {
    const r = await call(t.url, 'POST', '/v1/orders', { token, body });
    assert.equal(r.status, 422, JSON.stringify(body));
    assert.equal(r.json.code, 'VALIDATION_ERROR');
    assert.ok(
      r.json.errors.some((e: { field: string }) => e.field === field),
      `${JSON.stringify(r.json.errors)} names ${field}`,
    );
  }
});

test('orders are placed with a user token holding orders:write: a service token is 403, a token without the scope is 403 insufficient_scope', async () => {
  const tokens = shopTokens(t.core);
  const service = await tokens.service();
  assert.equal((await call(t.url, 'POST', '/v1/orders', { token: service.token, body: orderBody() })).status, 403);
  const readOnly = await tokens.user(['orders:read']);
  const r = await call(t.url, 'POST', '/v1/orders', { token: readOnly.token, body: orderBody() });
  assert.equal(r.status, 403);
  assert.match(r.headers.get('www-authenticate') ?? '', /insufficient_scope/);
});

test('_links follow the state: pending → self, cancel, pay; paid → self, payment; cancelled → self', async () => {
  const { token } = await shopTokens(t.core).user();
  const pending = (await call(t.url, 'POST', '/v1/orders', { token, body: orderBody() })).json;
  assert.deepEqual(Object.keys(pending._links).sort(), ['cancel', 'pay', 'self']);
  assert.deepEqual(pending._links.cancel, { href: `/v1/orders/${pending.id}/cancel`, method: 'POST' });
  assert.deepEqual(pending._links.pay, { href: `/v1/orders/${pending.id}/payment`, method: 'POST' });

  const payment = await call(t.url, 'POST', pending._links.pay.href, { token, key: randomUUID() });
  assert.equal(payment.status, 201);
  const paid = (await call(t.url, 'GET', pending._links.self.href, { token })).json;
  assert.equal(paid.status, 'paid');
  assert.deepEqual(Object.keys(paid._links).sort(), ['payment', 'self']);
  assert.equal(paid._links.payment.href, payment.headers.get('location'));

  const other = (await call(t.url, 'POST', '/v1/orders', { token, body: orderBody() })).json;
  const cancelled = await call(t.url, 'POST', other._links.cancel.href, { token });
  assert.equal(cancelled.status, 200);
  assert.equal(cancelled.json.status, 'cancelled');
  assert.deepEqual(Object.keys(cancelled.json._links), ['self']);
});

test('a move the state does not allow is 409 order-state-conflict: cancel a paid order, pay a cancelled one, cancel twice', async () => {
  const { token } = await shopTokens(t.core).user();
  const a = (await call(t.url, 'POST', '/v1/orders', { token, body: orderBody() })).json;
  assert.equal((await call(t.url, 'POST', `/v1/orders/${a.id}/payment`, { token, key: randomUUID() })).status, 201);
  const cancelPaid = await call(t.url, 'POST', `/v1/orders/${a.id}/cancel`, { token });
  assert.equal(cancelPaid.status, 409);
  assert.equal(cancelPaid.json.code, 'order-state-conflict');
  const payAgain = await call(t.url, 'POST', `/v1/orders/${a.id}/payment`, { token, key: randomUUID() });
  assert.equal(payAgain.json.code, 'order-state-conflict');

  const b = (await call(t.url, 'POST', '/v1/orders', { token, body: orderBody() })).json;
  assert.equal((await call(t.url, 'POST', `/v1/orders/${b.id}/cancel`, { token })).status, 200);
  assert.equal((await call(t.url, 'POST', `/v1/orders/${b.id}/cancel`, { token })).json.code, 'order-state-conflict');
  const payCancelled = await call(t.url, 'POST', `/v1/orders/${b.id}/payment`, { token, key: randomUUID() });
  assert.equal(payCancelled.status, 409);
  assert.equal(payCancelled.json.code, 'order-state-conflict');
  const payments = await t.core.db.selectFrom('payments').select('id').where('order_id', 'in', [a.id, b.id]).execute();
  assert.equal(payments.length, 1);
});

test('paying an order requires an Idempotency-Key, records the payment and moves the order to paid in one transaction; parallel payments with different keys pay it once', async () => {
  const { token } = await shopTokens(t.core).user();
  const order = (await call(t.url, 'POST', '/v1/orders', { token, body: orderBody('5.00', 3) })).json;
  const noKey = await call(t.url, 'POST', `/v1/orders/${order.id}/payment`, { token });
  assert.equal(noKey.status, 400);
  assert.equal(noKey.json.code, 'missing-idempotency-key');
  const attempts = await Promise.all(Array.from({ length: 5 }, () => call(t.url, 'POST', `/v1/orders/${order.id}/payment`, { token, key: randomUUID() })));
  assert.deepEqual(attempts.map((a) => a.status).sort(), [201, 409, 409, 409, 409]);
  const paid = attempts.find((a) => a.status === 201)!;
  assert.equal(paid.json.amount, '15.00');
  assert.equal(paid.json.order_id, order.id);
  const rows = await t.core.db.selectFrom('payments').select('id').where('order_id', '=', order.id).execute();
  assert.equal(rows.length, 1);
  assert.equal((await call(t.url, 'GET', `/v1/orders/${order.id}`, { token })).json.payment_id, rows[0]!.id);
});

test("another user's order answers 404 on read, cancel and pay, exactly like a missing one; a service token reaches it", async () => {
  const tokens = shopTokens(t.core);
  const [owner, other] = [await tokens.user(), await tokens.user()];
  const order = (await call(t.url, 'POST', '/v1/orders', { token: owner.token, body: orderBody() })).json;
  const missing = await call(t.url, 'GET', `/v1/orders/${randomUUID()}`, { token: other.token });
  for (const [method, path, key] of [
    ['GET', `/v1/orders/${order.id}`],
    ['POST', `/v1/orders/${order.id}/cancel`],
    ['POST', `/v1/orders/${order.id}/payment`, randomUUID()],
  ] as const) {
    const r = await call(t.url, method, path, { token: other.token, ...(key ? { key } : {}) });
    assert.equal(r.status, 404, `${method} ${path}`);
    assert.equal(r.json.code, missing.json.code);
  }
  assert.equal((await call(t.url, 'GET', `/v1/orders/${order.id}`, { token: owner.token })).json.status, 'pending');
  const service = await tokens.service();
  assert.equal((await call(t.url, 'GET', `/v1/orders/${order.id}`, { token: service.token })).status, 200);
});

test('GET /v1/orders/{id} carries a strong ETag; If-None-Match answers 304, and the tag changes when the order moves', async () => {
  const { token } = await shopTokens(t.core).user();
  const order = (await call(t.url, 'POST', '/v1/orders', { token, body: orderBody() })).json;
  const first = await call(t.url, 'GET', `/v1/orders/${order.id}`, { token });
  const etag = first.headers.get('etag')!;
  assert.match(etag, /^"[^"]+"$/);
  assert.match(first.headers.get('cache-control') ?? '', /private/);
  const notModified = await call(t.url, 'GET', `/v1/orders/${order.id}`, { token, headers: { 'if-none-match': etag } });
  assert.equal(notModified.status, 304);
  assert.equal(notModified.text, '');
  assert.equal(notModified.headers.get('etag'), etag);
  await call(t.url, 'POST', `/v1/orders/${order.id}/cancel`, { token });
  const changed = await call(t.url, 'GET', `/v1/orders/${order.id}`, { token, headers: { 'if-none-match': etag } });
  assert.equal(changed.status, 200);
  assert.notEqual(changed.headers.get('etag'), etag);
});

test('POST /v1/orders opts into Idempotency-Key: a retried creation with the same key creates one order', async () => {
  const { token, sub } = await shopTokens(t.core).user();
  const key = randomUUID();
  const [a, b] = [
    await call(t.url, 'POST', '/v1/orders', { token, key, body: orderBody() }),
    await call(t.url, 'POST', '/v1/orders', { token, key, body: orderBody() }),
  ];
  assert.equal(a.text, b.text);
  const rows = await t.core.db.selectFrom('orders').select('id').where('user_id', '=', sub).execute();
  assert.equal(rows.length, 1);
});
