// Idempotency-Key (draft-ietf-httpapi-idempotency-key-header §2, §5; docs/idempotency.md).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { call, orderBody, shopTokens } from '../helpers/shop.js';
import { paymentsRepository } from '../../src/storage/repositories/payments-repository.js';
import { PERMISSIVE_ENV } from './helpers/world.js';

let t: TestApp;
let u1: string;
let u2: string;
before(async () => {
  t = await startTestApp({ env: PERMISSIVE_ENV });
  u1 = (await shopTokens(t.core).user()).token;
  u2 = (await shopTokens(t.core).user()).token;
});
after(() => t.close());

const payments = () => paymentsRepository(t.core.db).count();
const pay = (token: string, key: string | undefined, body: unknown = { amount: '10.00', currency: 'EUR', account: 'ACC-1' }) =>
  call(t.url, 'POST', '/v1/payments', { token, body, ...(key !== undefined ? { key } : {}) });

// biome-ignore lint/suspicious/noExplicitAny: the body under test, read field by field
function assertProblemCode(r: { status: number; headers: Headers; json: any }, status: number, code: string): void {
  assert.equal(r.status, status, JSON.stringify(r.json));
  assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(r.json.code, code);
  assert.match(String(r.json.type), /\/problems\//, 'links to the docs');
}

describe('13. idempotency', () => {
  test('13.169 quoted key → 201; identical retry → same status, body and Location; count rose by exactly 1', async () => {
    const before = await payments();
    const key = '"8e03978e-40d5-43e8-bc93-6894a57f9324"';
    const first = await pay(u1, key);
    const second = await pay(u1, key);
    assert.equal(first.status, 201);
    assert.equal(second.status, 201);
    assert.equal(second.text, first.text);
    assert.equal(second.headers.get('location'), first.headers.get('location'));
    assert.equal((await payments()) - before, 1);
  });

  test('13.169+ the same key as a bare UUID and as an sf-string is one key', async () => {
    const before = await payments();
    const uuid = randomUUID();
    const first = await pay(u1, uuid);
    const second = await pay(u1, `"${uuid}"`);
    assert.equal(second.text, first.text);
    assert.equal((await payments()) - before, 1);
  });

  test('13.170 same key with a different body → 422 idempotency-key-reuse linking to the docs; nothing created', async () => {
    const key = randomUUID();
    await pay(u1, key);
    const before = await payments();
    const r = await pay(u1, key, { amount: '99.00', currency: 'EUR', account: 'ACC-1' });
    assertProblemCode(r, 422, 'idempotency-key-reuse');
    assert.equal(await payments(), before);
    const docs = await fetch(String(r.json.type));
    assert.equal(docs.status, 200);
  });

  test('13.170+ a semantically equal body (keys reordered, whitespace) is the same request', async () => {
    const key = randomUUID();
    const first = await pay(u1, key, { amount: '5.00', currency: 'EUR', account: 'A' });
    const second = await call(t.url, 'POST', '/v1/payments', { token: u1, key, body: '{ "account":"A",  "currency":"EUR","amount":"5.00" }' });
    assert.equal(second.status, first.status);
    assert.equal(second.text, first.text);
  });

  test('13.172 key omitted where required → 400 missing-idempotency-key linking to the docs; nothing created', async () => {
    const before = await payments();
    assertProblemCode(await pay(u1, undefined), 400, 'missing-idempotency-key');
    const order = await call(t.url, 'POST', '/v1/orders', { token: u1, body: orderBody() });
    assertProblemCode(await call(t.url, 'POST', `/v1/orders/${order.json.id}/payment`, { token: u1, body: {} }), 400, 'missing-idempotency-key');
    assert.equal(await payments(), before);
  });

  const badKeys: Record<string, string> = {
    'empty sf-string ""': '""',
    'empty value': '',
    'over-length': `"${'k'.repeat(256)}"`,
    'unquoted token': 'not-a-uuid-or-string',
    'stray quote': '"abc',
    'control character': '"a\u0001b"',
    'non-ASCII': '"clé"',
    'sf-list': '"a", "b"',
    'unescaped inner quote': '"a"b"',
  };
  for (const [name, key] of Object.entries(badKeys)) {
    test(`13.173 Idempotency-Key ${name} → 400 problem, nothing created`, async () => {
      const before = await payments();
      const r = await fetch(`${t.url}/v1/payments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${u1}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ amount: '1.00', currency: 'EUR', account: 'A' }),
      }).catch(() => undefined);
      if (r === undefined) return assert.ok(/[^\x20-\x7E]/.test(key), 'only a header fetch refuses to send may fail client-side');
      const json = (await r.json()) as { code: string };
      assert.equal(r.status, 400, `${name}: ${r.status}`);
      assert.ok(['invalid-idempotency-key', 'missing-idempotency-key'].includes(json.code), json.code);
      assert.equal(await payments(), before);
    });
  }

  test('13.173 an sf-string with escapes and 255 chars is accepted', async () => {
    assert.equal((await pay(u1, `"${'a'.repeat(251)}\\"b\\\\"`)).status, 201);
  });

  test("13.175 U2 sends a key already used by U1 → processed independently; U1's response never returned", async () => {
    const key = randomUUID();
    const one = await pay(u1, key, { amount: '3.00', currency: 'EUR', account: 'U1-ACC' });
    const two = await pay(u2, key, { amount: '3.00', currency: 'EUR', account: 'U1-ACC' });
    assert.equal(two.status, 201);
    assert.notEqual(two.json.id, one.json.id);
    const other = await pay(u2, key, { amount: '4.00', currency: 'EUR', account: 'X' });
    assertProblemCode(other, 422, 'idempotency-key-reuse');
  });

  test('13.x 10 parallel requests with one key → exactly one payment; others replay or 409', async () => {
    const before = await payments();
    const key = randomUUID();
    const results = await Promise.all(Array.from({ length: 10 }, () => pay(u1, key)));
    assert.equal((await payments()) - before, 1);
    const created = results.filter((r) => r.status === 201);
    assert.ok(created.length >= 1);
    for (const r of created) assert.equal(r.json.id, created[0]!.json.id);
    for (const r of results.filter((x) => x.status !== 201)) assert.equal(r.status, 409);
  });
});
