// Webhook deliveries to a real receiver started by the test (docs/webhooks.md): Standard Webhooks headers and
// signatures that the `standardwebhooks` library verifies, written in the transaction of the change, a
// rotation's grace period (two signatures, then one), an outage of the receiver (each message delivered
// exactly once, in order per subject, after it comes back), dead letters in the admin API and metrics, and
// the SSRF rule at delivery time.
import { after, afterEach, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { manualClock } from '../../src/clock.js';
import { adminFixture, createBody, type AdminFixture } from '../admin/fixture.js';
import { startReceiver, type Receiver } from './receiver.js';

const clock = manualClock(Date.now());
let f: AdminFixture;
let receiver: Receiver;
before(async () => {
  f = await adminFixture({ clock, env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } });
});
after(() => f.t.close());
// Each test has its own receiver and endpoint; the endpoint goes with the test, so later events do not reach it.
const created: string[] = [];
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(async () => {
  await worker().drain();
  for (const id of created.splice(0)) await f.cli('webhooks', 'delete', id);
  await receiver.close();
});

const worker = () => f.t.app.core.outboxWorker;
let serial = 0;

async function endpoint(url: string, eventTypes: string[]): Promise<{ id: string; secret: string }> {
  const res = await f.api('/admin/v1/webhooks', createBody({ name: `d-${++serial}`, url, event_types: eventTypes }, crypto.randomUUID()));
  assert.equal(res.status, 201, await res.clone().text());
  const body = (await res.json()) as { id: string; secret: string };
  created.push(body.id);
  return body;
}

const headersOf = (r: { headers: Record<string, string | string[] | undefined> }) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

async function newUser(): Promise<string> {
  const created = await f.cli('users', 'create', '--username', `u${++serial}-${Date.now()}`, '--password', 'correct horse battery staple');
  return String(created.id);
}

test('a delivery carries webhook-id, webhook-timestamp and a v1 signature that standardwebhooks Webhook.verify accepts; the body is {type, timestamp, data}', async () => {
  const { secret } = await endpoint(receiver.url, ['user.created']);
  const userId = await newUser();
  const [delivery] = await receiver.waitFor(1);
  const headers = headersOf(delivery!);
  assert.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]+=*$/);
  const event = new Webhook(secret).verify(delivery!.body, headers) as { type: string; timestamp: string; data: Record<string, unknown> };
  assert.equal(event.type, 'user.created');
  assert.equal(event.data.user_id, userId);
  assert.ok(!Number.isNaN(Date.parse(event.timestamp)));
  // A wrong secret does not verify; neither does a changed body.
  assert.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(delivery!.body, headers));
  assert.throws(() => new Webhook(secret).verify(delivery!.body.replace(userId, 'someone-else'), headers));
  // The webhook-id is the outbox message id, listed among the endpoint's deliveries as delivered.
  const row = await f.t.core.db.selectFrom('outbox_messages').selectAll().where('id', '=', headers['webhook-id']).executeTakeFirstOrThrow();
  assert.equal(row.channel, 'webhook');
  await worker().drain();
});

test('an endpoint receives only the event types it asked for, and nothing while disabled', async () => {
  const { id } = await endpoint(receiver.url, ['user.deleted']);
  const userId = await newUser();
  await f.cli('users', 'delete', userId);
  const [delivery] = await receiver.waitFor(1);
  assert.equal((JSON.parse(delivery!.body) as { type: string }).type, 'user.deleted');
  await worker().drain();
  assert.equal(receiver.received.length, 1, 'the user.created event was not for this endpoint');
  await f.cli('webhooks', 'update', id, '--disable', '--events', '');
  await f.cli('users', 'delete', await newUser());
  await worker().drain();
  assert.equal(receiver.received.length, 1, 'a disabled endpoint is sent nothing');
});

test('secret rotation: during the grace period a delivery carries two signatures and both secrets verify it; after the grace period the old secret does not', async () => {
  const { id, secret: old } = await endpoint(receiver.url, ['user.created']);
  const rotated = await f.api(`/admin/v1/webhooks/${id}/rotate-secret`, createBody({ grace_period: 60 }, crypto.randomUUID()));
  const { secret: next } = (await rotated.json()) as { secret: string };
  await newUser();
  const [during] = await receiver.waitFor(1);
  const headers = headersOf(during!);
  assert.equal(headers['webhook-signature'].split(' ').length, 2);
  assert.ok(headers['webhook-signature'].split(' ').every((s) => s.startsWith('v1,')));
  new Webhook(next).verify(during!.body, headers);
  new Webhook(old).verify(during!.body, headers);
  // Past the grace period (the app's clock; still inside the library's five-minute tolerance).
  clock.advance(61_000);
  await newUser();
  const [, afterGrace] = await receiver.waitFor(2);
  const later = headersOf(afterGrace!);
  assert.equal(later['webhook-signature'].split(' ').length, 1);
  new Webhook(next).verify(afterGrace!.body, later);
  assert.throws(() => new Webhook(old).verify(afterGrace!.body, later), /No matching signature/);
  await worker().drain();
});

test('stopping the receiver for a while, then restarting it: each message is delivered exactly once, in order per subject', async () => {
  const { id } = await endpoint(receiver.url, ['user.created', 'user.updated', 'user.password_changed']);
  await receiver.stop();
  const users = [await newUser(), await newUser()];
  for (const userId of users) {
    await f.cli('users', 'update', userId, '--email', `first-${userId}@example.com`);
    await f.cli('users', 'set-password', userId, '--password', 'another horse battery staple');
    await f.cli('users', 'update', userId, '--email', `second-${userId}@example.com`);
  }
  // The first message of each user fails (connection refused) and waits for its retry; the later ones wait behind it.
  await worker().drain();
  const pending = await f.t.core.db.selectFrom('outbox_messages').select(['id', 'attempts', 'state']).where('recipient', '=', id).orderBy('seq').execute();
  assert.equal(pending.length, 8);
  assert.ok(pending.every((m) => m.state === 'pending'));
  assert.ok(pending.some((m) => m.attempts > 0));
  await receiver.restart();
  // Back-off: time passes for the app; each retry becomes due, then the messages behind it.
  for (let round = 0; round < 20 && receiver.received.length < 8; round++) {
    clock.advance(15_000);
    worker().wake();
    await worker().drain();
  }
  const got = await receiver.waitFor(8);
  await worker().drain();
  assert.equal(receiver.received.length, 8, 'no message twice');
  const ids = got.map((r) => String(r.headers['webhook-id']));
  assert.equal(new Set(ids).size, 8);
  for (const userId of users) {
    const expected = await f.t.core.db
      .selectFrom('outbox_messages')
      .select(['id', 'kind'])
      .where('recipient', '=', id)
      .where('ordering_key', 'like', `%:${userId}`)
      .orderBy('seq')
      .execute();
    const seen = got
      .map((r) => JSON.parse(r.body) as { type: string; data: { user_id: string } })
      .filter((e) => e.data.user_id === userId)
      .map((e) => e.type);
    assert.deepEqual(
      seen,
      expected.map((m) => m.kind),
    );
    assert.deepEqual(seen, ['user.created', 'user.updated', 'user.password_changed', 'user.updated']);
  }
});

test("a receiver that keeps failing: the message becomes a dead letter, visible in the endpoint's deliveries and the metrics, and redeliver sends it again with the same webhook-id", async () => {
  receiver.answer(500);
  const { id, secret } = await endpoint(receiver.url, ['user.created']);
  await newUser();
  for (let round = 0; round < 40; round++) {
    const dead = await f.t.core.db.selectFrom('outbox_messages').select('id').where('recipient', '=', id).where('state', '=', 'dead').execute();
    if (dead.length > 0) break;
    clock.advance(3600_000);
    worker().wake();
    await worker().drain();
  }
  // Back to the present: the admin token would have expired in the app's future.
  clock.set(Date.now());
  const list = await f.api(`/admin/v1/webhooks/${id}/deliveries?state=dead`);
  assert.equal(list.status, 200);
  const page = (await list.json()) as { data: { id: string; state: string; attempts: number; last_error: string; event_type: string }[] };
  assert.equal(page.data.length, 1);
  assert.equal(page.data[0]!.event_type, 'user.created');
  assert.match(page.data[0]!.last_error, /answered 500/);
  const metrics = await f.t.app.metrics.metrics();
  assert.match(metrics, /outbox_messages\{channel="webhook",state="dead"\} [1-9]/);
  // Redelivery: only a dead letter; the receiver is back.
  receiver.answer(200);
  const again = await f.api(`/admin/v1/webhooks/${id}/deliveries/${page.data[0]!.id}/redeliver`, { method: 'POST' });
  assert.equal(again.status, 200, await again.clone().text());
  const [delivery] = await receiver.waitFor(1);
  assert.equal(String(delivery!.headers['webhook-id']), page.data[0]!.id);
  new Webhook(secret).verify(delivery!.body, headersOf(delivery!));
  await worker().drain();
  const twice = await f.api(`/admin/v1/webhooks/${id}/deliveries/${page.data[0]!.id}/redeliver`, { method: 'POST' });
  assert.equal(twice.status, 409);
});

test('SSRF rule at delivery time: an endpoint whose host is no longer allowed is never called, and its message is a dead letter naming the refusal', async () => {
  const { id } = await endpoint(receiver.url, ['user.created']);
  // The row changes behind the creation check (as a name that later resolves elsewhere, or a tightened
  // allow-list, would): https://localhost is a loopback name that WEBHOOK_ALLOWED_HOSTS (127.0.0.1) does not name.
  await f.t.core.db
    .updateTable('webhook_endpoints')
    .set({ url: receiver.url.replace('http://127.0.0.1', 'https://localhost') })
    .where('id', '=', id)
    .execute();
  await newUser();
  await worker().drain();
  const [message] = await f.t.core.db.selectFrom('outbox_messages').select(['state', 'last_error']).where('recipient', '=', id).execute();
  assert.equal(message?.state, 'dead', 'a refused address is permanent: no retries');
  assert.match(message?.last_error ?? '', /refused: localhost is a loopback name/);
  assert.equal(receiver.received.length, 0, 'the receiver was never called');
});

test('key rotation, client changes and resource-server changes are webhook events too (one mapping from their audit events)', async () => {
  const { secret } = await endpoint(receiver.url, ['signing_key.rotated', 'client.created', 'resource_server.created']);
  await f.cli('keys', 'rotate', '--alg', 'ES256');
  const client = await f.cli(
    'clients',
    'create',
    '--name',
    'Hooked',
    '--type',
    'confidential',
    '--grant-types',
    'client_credentials',
    '--scope',
    'orders:read',
  );
  await f.cli(
    'resource-servers',
    'create',
    '--identifier',
    `https://hooked-${serial}.example/api`,
    '--name',
    'Hooked',
    '--scope',
    `hooked${serial}:read=Read things`,
  );
  const got = await receiver.waitFor(3);
  const types = got.map((r) => new Webhook(secret).verify(r.body, headersOf(r)) as { type: string; data: Record<string, unknown> });
  assert.deepEqual(types.map((e) => e.type).sort(), ['client.created', 'resource_server.created', 'signing_key.rotated']);
  assert.equal(types.find((e) => e.type === 'client.created')!.data.id, client.client_id);
});
