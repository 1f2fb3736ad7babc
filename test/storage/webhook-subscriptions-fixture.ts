// Shared by the webhook-subscriptions tests: an endpoint row written as the admin service would, and polling
// for a set that is read again asynchronously after each notice.
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Database } from '../../src/storage/driver/database.js';

/** Polls until `condition` holds (the set is read again asynchronously after a notice); fails after 10 s. */
export async function eventually(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await delay(20);
  }
}

export async function addEndpoint(db: Database['db'], eventTypes: string[], enabled = true): Promise<string> {
  const id = randomUUID();
  const now = new Date();
  await db
    .insertInto('webhook_endpoints')
    .values({ id, name: id, url: 'https://hooks.example/x', event_types: eventTypes, enabled, sealed_secret: 'sealed', created_at: now, updated_at: now })
    .execute();
  return id;
}
