// /v1/payments (docs/api-conventions.md): validation, 201 + Location, paying an order through order_id
// in one transaction, and object-level access.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { call, orderBody, shopTokens } from '../../helpers/shop.js';

let t: TestApp;
before(async () => {
  t = await startTestApp({ env: { CURRENCIES: 'EUR,USD,GBP,CHF,JPY,BHD' } });
});
after(() => t.close());

test('POST /v1/payments → 201 + Location; GET on the Location returns the same payment', async () => {
  const { token } = await shopTokens(t.core).user();
  const created = await call(t.url, 'POST', '/v1/payments', { token, key: randomUUID(), body: { amount: 12.5, currency: 'EUR', account: 'DE-ACC-1' } });
  assert.equal(created.status, 201);
  assert.equal(created.json.amount, '12.50');
  const location = created.headers.get('location')!;
  assert.equal(location, `/v1/payments/${created.json.id}`);
  const read = await call(t.url, 'GET', location, { token });
  assert.equal(read.status, 200);
  assert.deepEqual(read.json, created.json);
});

test('payment validation: amount beyond the currency minor digits, zero, unknown or lower-case currency, empty or > 64-char account → 422 per field; wrong types → 400', async () => {
  const { token } = await shopTokens(t.core).user();
  const cases: [Record<string, unknown>, string][] = [
    [{ amount: '10.001', currency: 'EUR', account: 'a' }, 'amount'],
    [{ amount: '10.5', currency: 'JPY', account: 'a' }, 'amount'],
    [{ amount: 0, currency: 'EUR', account: 'a' }, 'amount'],
    [{ amount: '1e3', currency: 'EUR', account: 'a' }, 'amount'],
    [{ amount: '10', currency: 'usd', account: 'a' }, 'currency'],
    [{ amount: '10', currency: 'XTS', account: 'a' }, 'currency'],
    [{ amount: '10', currency: 'EUR', account: '' }, 'account'],
    [{ amount: '10', currency: 'EUR', account: 'x'.repeat(65) }, 'account'],
  ];
  for (const [body, field] of cases) {
    const r = await call(t.url, 'POST', '/v1/payments', { token, key: randomUUID(), body });
    assert.equal(r.status, 422, JSON.stringify(body));
    assert.ok(
      r.json.errors.some((e: { field: string }) => e.field === field),
      JSON.stringify(r.json),
    );
  }
  for (const body of [
    { amount: true, currency: 'EUR', account: 'a' },
    { amount: '1', currency: 'EUR' },
    { amount: '1', currency: 'EUR', account: 5 },
  ]) {
    assert.equal((await call(t.url, 'POST', '/v1/payments', { token, key: randomUUID(), body })).status, 400, JSON.stringify(body));
  }
  assert.equal(
    (await call(t.url, 'POST', '/v1/payments', { token, key: randomUUID(), body: { amount: '1.234', currency: 'BHD', account: 'a'.repeat(64) } })).status,
    201,
  );
});

test('a payment with order_id pays the order: payment recorded and order paid together; a wrong amount is 422 and leaves the order pending', async () => {
  const { token } = await shopTokens(t.core).user();
  const order = (await call(t.url, 'POST', '/v1/orders', { token, body: orderBody('4.00', 2) })).json;
  const wrong = await call(t.url, 'POST', '/v1/payments', {
    token,
    key: randomUUID(),
    body: { amount: '7.99', currency: 'EUR', account: 'a', order_id: order.id },
  });
  assert.equal(wrong.status, 422);
  assert.equal((await call(t.url, 'GET', `/v1/orders/${order.id}`, { token })).json.status, 'pending');
  const paid = await call(t.url, 'POST', '/v1/payments', {
    token,
    key: randomUUID(),
    body: { amount: '8', currency: 'EUR', account: 'a', order_id: order.id },
  });
  assert.equal(paid.status, 201);
  assert.equal(paid.json.order_id, order.id);
  const after = (await call(t.url, 'GET', `/v1/orders/${order.id}`, { token })).json;
  assert.equal(after.status, 'paid');
  assert.equal(after.payment_id, paid.json.id);
  const again = await call(t.url, 'POST', '/v1/payments', {
    token,
    key: randomUUID(),
    body: { amount: '8', currency: 'EUR', account: 'a', order_id: order.id },
  });
  assert.equal(again.status, 409);
  assert.equal(again.json.code, 'order-state-conflict');
});

test("another user's payment (or order to pay) answers 404; a service token reads any payment", async () => {
  const tokens = shopTokens(t.core);
  const [owner, other] = [await tokens.user(), await tokens.user()];
  const payment = await call(t.url, 'POST', '/v1/payments', { token: owner.token, key: randomUUID(), body: { amount: '1', currency: 'EUR', account: 'a' } });
  assert.equal((await call(t.url, 'GET', `/v1/payments/${payment.json.id}`, { token: other.token })).status, 404);
  const order = (await call(t.url, 'POST', '/v1/orders', { token: owner.token, body: orderBody() })).json;
  const payOther = await call(t.url, 'POST', '/v1/payments', {
    token: other.token,
    key: randomUUID(),
    body: { amount: '25', currency: 'EUR', account: 'a', order_id: order.id },
  });
  assert.equal(payOther.status, 404);
  const service = await tokens.service();
  assert.equal((await call(t.url, 'GET', `/v1/payments/${payment.json.id}`, { token: service.token })).status, 200);
  const servicePayment = await call(t.url, 'POST', '/v1/payments', {
    token: service.token,
    key: randomUUID(),
    body: { amount: '3', currency: 'USD', account: 'b' },
  });
  assert.equal(servicePayment.status, 201);
  assert.equal((await call(t.url, 'GET', `/v1/payments/${servicePayment.json.id}`, { token: owner.token })).status, 404);
});

test('POST /v1/payments requires payments:write (403 insufficient_scope otherwise)', async () => {
  const { token } = await shopTokens(t.core).user(['orders:read', 'orders:write']);
  const r = await call(t.url, 'POST', '/v1/payments', { token, key: randomUUID(), body: { amount: '1', currency: 'EUR', account: 'a' } });
  assert.equal(r.status, 403);
  assert.match(r.headers.get('www-authenticate') ?? '', /scope="payments:write"/);
});

test('GET /v1/payments/{id} needs payments:read (payments:write reads too); any other token gets 403 naming payments:read', async () => {
  const owner = await shopTokens(t.core).user();
  const created = await call(t.url, 'POST', '/v1/payments', { token: owner.token, key: randomUUID(), body: { amount: '3', currency: 'EUR', account: 'a' } });
  const path = `/v1/payments/${String(created.json.id)}`;
  const readOnly = await shopTokens(t.core).tokenFor(owner.sub, ['payments:read']);
  const read = await call(t.url, 'GET', path, { token: readOnly });
  assert.equal(read.status, 200);
  assert.deepEqual(read.json, created.json);
  const cannotPay = await call(t.url, 'POST', '/v1/payments', { token: readOnly, key: randomUUID(), body: { amount: '1', currency: 'EUR', account: 'a' } });
  assert.equal(cannotPay.status, 403, 'payments:read does not make payments');
  const other = await shopTokens(t.core).tokenFor(owner.sub, ['orders:read']);
  const refused = await call(t.url, 'GET', path, { token: other });
  assert.equal(refused.status, 403);
  assert.match(
    refused.headers.get('www-authenticate') ?? '',
    /error="insufficient_scope".*scope="payments:read"|scope="payments:read".*error="insufficient_scope"/,
  );
});
