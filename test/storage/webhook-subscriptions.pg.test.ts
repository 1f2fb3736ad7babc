// The in-memory sets of wanted webhook event types of two instances (docs/webhooks.md, "Cost"), each with its own
// pool and listener on one PostgreSQL database: a change made through one is announced to the other by the
// database (LISTEN/NOTIFY), so both agree on what to query for.
import { test } from 'node:test';
import { openPostgres } from '../../src/storage/driver/database.js';
import { webhookSubscriptions } from '../../src/storage/repositories/webhook-subscriptions.js';
import { createPostgresDatabaseUrl } from '../helpers/database.js';
import { addEndpoint, eventually } from './webhook-subscriptions-fixture.js';

test('webhook subscriptions of two instances agree: an endpoint created through one is seen by the other', async () => {
  const shared = await createPostgresDatabaseUrl();
  const [a, b] = [await openPostgres(shared.url, 2), await openPostgres(shared.url, 2)];
  const [subsA, subsB] = [webhookSubscriptions(a.db, a.notifications), webhookSubscriptions(b.db, b.notifications)];
  try {
    await eventually(() => !subsA.mayWant('user.locked') && !subsB.mayWant('user.locked'), 'both sets known');
    await addEndpoint(a.db, ['user.locked']);
    await eventually(() => subsB.mayWant('user.locked'), 'the other instance sees the new endpoint');
    await eventually(() => !subsB.mayWant('user.created') && subsB.mayWant('user.locked'), 'and reads its event types');
  } finally {
    subsA.close();
    subsB.close();
    await a.close();
    await b.close();
    await shared.drop();
  }
});
