// The Idempotency-Key rules (docs/idempotency.md) through real HTTP on POST /v1/payments, plus the
// mechanism's retention, lease and 5xx rules on a test-only route that opts into the same mechanism.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { manualClock } from '../../../src/clock.js';
import { canonicalJson } from '../../../src/http/idempotency/canonical-json.js';
import { fingerprintKey, idempotency, keyIdentity, requestFingerprint, REPLAY_HEADER } from '../../../src/http/idempotency/index.js';
import { idempotencyKeysRepository } from '../../../src/storage/repositories/idempotency-keys-repository.js';
import { guardedPaymentInsert } from '../../../src/storage/repositories/payments-repository.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { call, shopTokens } from '../../helpers/shop.js';

const clock = manualClock(Date.parse('2026-03-01T10:00:00Z'));
let t: TestApp;
let flakyExecutions = 0;
let failNext = false;

before(async () => {
  t = await startTestApp({
    clock,
    configure: (app) => {
      // A route outside /v1 that opts into the same mechanism; its "principal" is set by hand.
      const mechanism = idempotency({ store: app.core.store, clock, config: app.core.config, keyEncryptionKey: app.core.keyEncryptionKey });
      app.post('/test/flaky', {
        preHandler: async (request: FastifyRequest) => {
          request.principal = { kind: 'user', sub: 'flaky-user', clientId: 'flaky-client', scopes: new Set(), jti: 'j', exp: 0 };
        },
        ...mechanism.route({ required: true }, async () => {
          flakyExecutions += 1;
          if (failNext) {
            failNext = false;
            throw new Error('simulated crash inside the operation');
          }
          return { status: 201, body: { execution: flakyExecutions } };
        }),
      });
    },
  });
});
after(() => t.close());

const payment = (account: string, amount = '10.00') => ({ amount, currency: 'EUR', account });
const paymentsFor = async (account: string) =>
  Number(
    (
      await t.core.db
        .selectFrom('payments')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account', '=', account)
        .executeTakeFirstOrThrow()
    ).n,
  );

test('rule 3: a repeat with the same key and body replays status, Location and body byte for byte and runs nothing', async () => {
  const { token } = await shopTokens(t.core).user();
  const key = randomUUID();
  const account = `acct-${randomUUID().slice(0, 8)}`;
  const first = await call(t.url, 'POST', '/v1/payments', { token, key, body: payment(account) });
  assert.equal(first.status, 201);
  assert.equal(first.headers.get(REPLAY_HEADER), null);
  // Same JSON with keys in another order is the same request.
  const again = await call(t.url, 'POST', '/v1/payments', { token, key, body: `{"account":"${account}","currency":"EUR","amount":"10.00"}` });
  assert.equal(again.status, 201);
  assert.equal(again.text, first.text);
  assert.equal(again.headers.get('location'), first.headers.get('location'));
  assert.equal(again.headers.get('content-type'), first.headers.get('content-type'));
  assert.equal(again.headers.get(REPLAY_HEADER), 'true');
  assert.equal(await paymentsFor(account), 1);
});

test('rule 4: the same key with a different body is 422 idempotency-key-reuse and creates nothing', async () => {
  const { token } = await shopTokens(t.core).user();
  const key = randomUUID();
  const account = `acct-${randomUUID().slice(0, 8)}`;
  assert.equal((await call(t.url, 'POST', '/v1/payments', { token, key, body: payment(account) })).status, 201);
  const reuse = await call(t.url, 'POST', '/v1/payments', { token, key, body: payment(account, '11.00') });
  assert.equal(reuse.status, 422);
  assert.equal(reuse.json.code, 'idempotency-key-reuse');
  assert.match(reuse.json.type, /\/problems\/idempotency-key-reuse$/);
  assert.equal(await paymentsFor(account), 1);
});

test('rule 1: POST /v1/payments without Idempotency-Key is 400 missing-idempotency-key; a malformed key is 400 invalid-idempotency-key', async () => {
  const { token } = await shopTokens(t.core).user();
  const account = `acct-${randomUUID().slice(0, 8)}`;
  const missing = await call(t.url, 'POST', '/v1/payments', { token, body: payment(account) });
  assert.equal(missing.status, 400);
  assert.equal(missing.json.code, 'missing-idempotency-key');
  for (const key of ['""', 'not a uuid', `"${'x'.repeat(300)}"`]) {
    const bad = await call(t.url, 'POST', '/v1/payments', { token, key, body: payment(account) });
    assert.equal(bad.status, 400, key);
    assert.equal(bad.json.code, 'invalid-idempotency-key');
  }
  assert.equal((await call(t.url, 'POST', '/v1/payments', { token, key: '"payment for invoice 7"', body: payment(account) })).status, 201);
  assert.equal(await paymentsFor(account), 1);
});

test('rules 2 and 5: 20 parallel requests with one key execute exactly once; the rest get 409 or the replay', async () => {
  const { token } = await shopTokens(t.core).user();
  const key = randomUUID();
  const account = `acct-${randomUUID().slice(0, 8)}`;
  const results = await Promise.all(Array.from({ length: 20 }, () => call(t.url, 'POST', '/v1/payments', { token, key, body: payment(account) })));
  assert.equal(await paymentsFor(account), 1);
  const created = results.filter((r) => r.status === 201);
  assert.ok(created.length >= 1);
  assert.equal(new Set(created.map((r) => r.text)).size, 1, 'every 201 is the same response');
  assert.equal(created.filter((r) => r.headers.get(REPLAY_HEADER) !== 'true').length, 1, 'exactly one original');
  for (const r of results.filter((r) => r.status !== 201)) {
    assert.equal(r.status, 409);
    assert.equal(r.json.code, 'idempotency-key-in-use');
    assert.ok(Number(r.headers.get('retry-after')) >= 1);
  }
});

test("keys are scoped per client and user: two users with the same key never see each other's response", async () => {
  const tokens = shopTokens(t.core);
  const [u1, u2] = [await tokens.user(), await tokens.user()];
  const key = randomUUID();
  const [a1, a2] = [`acct-${randomUUID().slice(0, 8)}`, `acct-${randomUUID().slice(0, 8)}`];
  const r1 = await call(t.url, 'POST', '/v1/payments', { token: u1.token, key, body: payment(a1) });
  const r2 = await call(t.url, 'POST', '/v1/payments', { token: u2.token, key, body: payment(a2) });
  assert.equal(r1.status, 201);
  assert.equal(r2.status, 201);
  assert.equal(r2.headers.get(REPLAY_HEADER), null);
  assert.notEqual(r2.json.id, r1.json.id);
  // The same user through another client is another key space too.
  const sameUserOtherClient = await tokens.tokenFor(u1.sub, undefined, 'other-app');
  const r3 = await call(t.url, 'POST', '/v1/payments', { token: sameUserOtherClient, key, body: payment(a2) });
  assert.equal(r3.status, 201);
  assert.equal(r3.headers.get(REPLAY_HEADER), null);
  assert.equal((await call(t.url, 'POST', '/v1/payments', { token: u1.token, key, body: payment(a1) })).text, r1.text);
  assert.equal(await paymentsFor(a1), 1);
  assert.equal(await paymentsFor(a2), 2);
});

test('a failed validation (4xx) outcome is stored and replayed; nothing of the operation is committed', async () => {
  const { token } = await shopTokens(t.core).user();
  const key = randomUUID();
  const account = `acct-${randomUUID().slice(0, 8)}`;
  const body = { ...payment(account), currency: 'XXX' };
  const first = await call(t.url, 'POST', '/v1/payments', { token, key, body });
  assert.equal(first.status, 422);
  assert.equal(first.json.code, 'VALIDATION_ERROR');
  const replay = await call(t.url, 'POST', '/v1/payments', { token, key, body });
  assert.equal(replay.status, 422);
  assert.equal(replay.text, first.text);
  assert.equal(replay.headers.get(REPLAY_HEADER), 'true');
  assert.equal(await paymentsFor(account), 0);
});

test('a 5xx outcome is not stored: the reservation is released and a retry with the same key executes', async () => {
  const key = randomUUID();
  failNext = true;
  const before = flakyExecutions;
  const crashed = await fetch(`${t.url}/test/flaky`, { method: 'POST', headers: { 'idempotency-key': key } });
  assert.equal(crashed.status, 500);
  const retried = await fetch(`${t.url}/test/flaky`, { method: 'POST', headers: { 'idempotency-key': key } });
  assert.equal(retried.status, 201);
  const replayed = await fetch(`${t.url}/test/flaky`, { method: 'POST', headers: { 'idempotency-key': key } });
  assert.equal(replayed.headers.get(REPLAY_HEADER), 'true');
  assert.deepEqual(await replayed.json(), { execution: before + 2 });
  assert.equal(flakyExecutions, before + 2);
});

test('rule 5 and the lease: a key still running is 409 with Retry-After; once its lease passes (crashed request) a retry takes it over and executes once', async () => {
  const tokens = shopTokens(t.core);
  const user = await tokens.user();
  const key = randomUUID();
  const account = `acct-${randomUUID().slice(0, 8)}`;
  const body = payment(account);
  // Another instance reserved the key and then died mid-request: its row stays `running`.
  const now = clock.now();
  await idempotencyKeysRepository(t.core.db).reserve(keyIdentity({ clientId: 'shop-app', kind: 'user', sub: user.sub }, key), {
    requestHash: requestFingerprint(fingerprintKey(t.core.keyEncryptionKey), 'POST', '/v1/payments', body),
    ownerToken: 'dead-instance',
    now: new Date(now),
    lockedUntil: new Date(now + t.config.IDEMPOTENCY_LEASE * 1000),
    expiresAt: new Date(now + t.config.IDEMPOTENCY_TTL * 1000),
  });
  const busy = await call(t.url, 'POST', '/v1/payments', { token: user.token, key, body });
  assert.equal(busy.status, 409);
  assert.equal(busy.json.code, 'idempotency-key-in-use');
  assert.ok(Number(busy.headers.get('retry-after')) >= 1 && Number(busy.headers.get('retry-after')) <= t.config.IDEMPOTENCY_LEASE);
  assert.equal(await paymentsFor(account), 0);

  clock.advance(t.config.IDEMPOTENCY_LEASE * 1000 + 1);
  const token = await tokens.tokenFor(user.sub);
  const takenOver = await call(t.url, 'POST', '/v1/payments', { token, key, body });
  assert.equal(takenOver.status, 201);
  assert.equal((await call(t.url, 'POST', '/v1/payments', { token, key, body })).headers.get(REPLAY_HEADER), 'true');
  assert.equal(await paymentsFor(account), 1);
});

test('retention: a key older than IDEMPOTENCY_TTL is forgotten (the request runs again) and the periodic purge deletes it', async () => {
  const tokens = shopTokens(t.core);
  const user = await tokens.user();
  const key = randomUUID();
  const account = `acct-${randomUUID().slice(0, 8)}`;
  assert.equal((await call(t.url, 'POST', '/v1/payments', { token: user.token, key, body: payment(account) })).status, 201);
  clock.advance(t.config.IDEMPOTENCY_TTL * 1000 + 1);
  const token = await tokens.tokenFor(user.sub);
  const afterTtl = await call(t.url, 'POST', '/v1/payments', { token, key, body: payment(account) });
  assert.equal(afterTtl.status, 201);
  assert.equal(afterTtl.headers.get(REPLAY_HEADER), null);
  assert.equal(await paymentsFor(account), 2);

  clock.advance(t.config.IDEMPOTENCY_TTL * 1000 + 1);
  assert.ok((await idempotency(t.core).purgeExpired()) >= 1);
  const left = await t.core.db.selectFrom('idempotency_keys').select('key_hash').where('expires_at', '<=', new Date(clock.now())).execute();
  assert.equal(left.length, 0);
});

test('rule 6 on the single-statement path: a stand-alone payment and the key completion are one statement, so a lost reservation writes nothing', async () => {
  const keys = idempotencyKeysRepository(t.core.db);
  const id = keyIdentity({ clientId: 'shop-app', kind: 'user', sub: `user-${randomUUID()}` }, randomUUID());
  const now = new Date(clock.now());
  await keys.reserve(id, {
    requestHash: 'h',
    ownerToken: 'holder',
    now,
    lockedUntil: new Date(now.getTime() + 60_000),
    expiresAt: new Date(now.getTime() + 3_600_000),
  });
  const account = `acct-${randomUUID().slice(0, 8)}`;
  const row = { id: randomUUID(), orderId: null, clientId: 'shop-app', userId: null, amountMinor: 1250, currency: 'EUR', account, createdAt: now };
  const response = { status: 201, headers: { 'content-type': 'application/json' }, body: Buffer.from('{}') };

  assert.equal(await keys.completeWith(id, 'someone-else', response, guardedPaymentInsert(row)), false);
  assert.equal(await paymentsFor(account), 0, 'no payment without the reservation');
  assert.equal((await keys.find(id))?.state, 'running');

  assert.equal(await keys.completeWith(id, 'holder', response, guardedPaymentInsert(row)), true);
  assert.equal(await paymentsFor(account), 1);
  assert.equal((await keys.find(id))?.state, 'completed');
});

test('rules 1 and 2 in one statement: a first-time key is inserted completed together with the payment; an existing key writes nothing', async () => {
  const keys = idempotencyKeysRepository(t.core.db);
  const id = keyIdentity({ clientId: 'shop-app', kind: 'user', sub: `user-${randomUUID()}` }, randomUUID());
  const now = new Date(clock.now());
  const times = { requestHash: 'h', now, expiresAt: new Date(now.getTime() + 3_600_000) };
  const account = `acct-${randomUUID().slice(0, 8)}`;
  const row = (paymentId: string) => ({
    id: paymentId,
    orderId: null,
    clientId: 'shop-app',
    userId: null,
    amountMinor: 1250,
    currency: 'EUR',
    account,
    createdAt: now,
  });
  const response = { status: 201, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"first":true}') };

  assert.equal(await keys.insertCompletedWith(id, times, response, guardedPaymentInsert(row(randomUUID()))), 'written');
  assert.equal(await paymentsFor(account), 1);
  const stored = await keys.find(id);
  assert.equal(stored?.state, 'completed');
  assert.equal(stored?.state === 'completed' && stored.response.body.toString(), '{"first":true}');

  const second = { ...response, body: Buffer.from('{"second":true}') };
  assert.equal(await keys.insertCompletedWith(id, times, second, guardedPaymentInsert(row(randomUUID()))), 'exists');
  assert.equal(await paymentsFor(account), 1, 'no second payment');
  const unchanged = await keys.find(id);
  assert.equal(unchanged?.state === 'completed' && unchanged.response.body.toString(), '{"first":true}');
});

test('request fingerprints are keyed (HMAC under a key derived from the key-encryption key): the stored hash of a body is not its bare SHA-256, so a read of idempotency_keys cannot test guesses of a secret in the body', async () => {
  const key = randomUUID();
  const response = await fetch(`${t.url}/test/flaky`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ password: 'correct horse battery staple' }),
  });
  assert.equal(response.status, 201);
  const row = await t.core.db
    .selectFrom('idempotency_keys')
    .select('request_hash')
    .where('key_hash', '=', keyIdentity({ clientId: 'flaky-client', kind: 'user', sub: 'flaky-user' }, key).keyHash)
    .executeTakeFirstOrThrow();
  const text = `POST /test/flaky\n${canonicalJson({ password: 'correct horse battery staple' })}`;
  for (const encoding of ['hex', 'base64url'] as const) assert.notEqual(row.request_hash, createHash('sha256').update(text).digest(encoding));
  assert.equal(
    row.request_hash,
    requestFingerprint(fingerprintKey(t.core.keyEncryptionKey), 'POST', '/test/flaky', { password: 'correct horse battery staple' }),
  );
  assert.notEqual(
    row.request_hash,
    requestFingerprint(fingerprintKey(Buffer.alloc(32, 7)), 'POST', '/test/flaky', { password: 'correct horse battery staple' }),
  );
});
