// The in-memory set of wanted webhook event types (docs/webhooks.md, "Cost"): an event type no enabled endpoint
// wants is answered without a query once the set is known; every change to the endpoints (this process's,
// or another instance's on a PostgreSQL database) is announced by the database and seen; while the set is
// unknown every event is checked against the database. Real databases (the pass's: embedded PostgreSQL server,
// PostgreSQL server, or PGlite), real LISTEN/NOTIFY. Two instances: webhook-subscriptions.pg.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { createStore } from '../../src/storage/store.js';
import { systemClock } from '../../src/clock.js';
import type { Database } from '../../src/storage/driver/database.js';
import { webhookSubscriptions, type WebhookSubscriptions } from '../../src/storage/repositories/webhook-subscriptions.js';
import { createTestDatabase } from '../helpers/database.js';
import { addEndpoint, eventually } from './webhook-subscriptions-fixture.js';

let database: Database;
let subscriptions: WebhookSubscriptions;

before(async () => {
  database = await createTestDatabase();
  subscriptions = webhookSubscriptions(database.db, database.notifications);
});
after(async () => {
  subscriptions.close();
  await database.close();
});

test('webhook subscriptions: an event type no enabled endpoint wants needs no query; a new endpoint is seen as soon as its insert returns, and its types once read', async () => {
  await eventually(() => !subscriptions.mayWant('user.created'), 'the set is known: no endpoint at all');
  const id = await addEndpoint(database.db, ['user.created']);
  // This process's own write: announced before its commit returned, so the next event checks the database.
  assert.equal(subscriptions.mayWant('user.created'), true);
  await eventually(() => !subscriptions.mayWant('user.deleted'), 'read again');
  assert.equal(subscriptions.mayWant('user.created'), true);
  // A disabled endpoint wants nothing.
  await database.db.updateTable('webhook_endpoints').set({ enabled: false }).where('id', '=', id).execute();
  await eventually(() => !subscriptions.mayWant('user.created'), 'the disabled endpoint no longer counts');
  // An endpoint with no event types wants every event.
  const all = await addEndpoint(database.db, []);
  await eventually(() => subscriptions.mayWant('client.deleted') && subscriptions.mayWant('user.updated'), 'an endpoint that wants all');
  await delay(100);
  assert.equal(subscriptions.mayWant('key.rotated'), true);
  await database.db.deleteFrom('webhook_endpoints').where('id', 'in', [id, all]).execute();
  await eventually(() => !subscriptions.mayWant('user.updated'), 'deleted endpoints no longer count');
});

test('webhook subscriptions: a transaction that created an endpoint checks its own events against the database (where it sees the endpoint) before it commits', async () => {
  await eventually(() => !subscriptions.mayWant('client.created'), 'the set is known: nobody wants client.created');
  await createStore(database.db, systemClock).transaction(async (tx) => {
    const id = randomUUID();
    const created = await tx.webhookEndpoints.create({
      id,
      name: id,
      url: 'https://hooks.example/y',
      description: '',
      eventTypes: ['client.created'],
      enabled: true,
      sealedSecret: 'sealed',
      secretEnv: null,
      now: new Date(),
    });
    assert.notEqual(created, 'name-taken');
    assert.equal(subscriptions.mayWant('client.created', tx.changedWebhookEndpoints), true, 'its own events: query');
    assert.equal(subscriptions.mayWant('client.created'), false, 'others: nothing committed yet');
  });
  await eventually(() => subscriptions.mayWant('client.created'), 'committed: seen by every event');
});

test('webhook subscriptions without notifications (none configured) check every event against the database', () => {
  const blind = webhookSubscriptions(database.db, undefined);
  assert.equal(blind.mayWant('user.created'), true);
  blind.close();
});
