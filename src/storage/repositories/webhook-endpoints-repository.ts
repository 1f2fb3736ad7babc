// The webhook endpoints an operator registered (docs/webhooks.md, migrations/0720_webhooks.sql). Secrets
// arrive and leave sealed (the service seals and opens them); writes are guarded by the row's version (If-Match).
import { sql, type Selectable } from 'kysely';
import type { Db } from '../driver/database.js';
import type { WebhookEndpointsTable } from '../driver/schema.js';
import { noteEndpointsChange } from './webhook-subscriptions.js';

export interface WebhookEndpoint {
  id: string;
  name: string;
  url: string;
  description: string;
  /** Empty: every event type. */
  eventTypes: string[];
  enabled: boolean;
  sealedSecret: string;
  sealedPreviousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  secretEnv: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface WebhookEndpointChanges {
  name: string;
  url: string;
  description: string;
  eventTypes: string[];
  enabled: boolean;
}

export type WebhookWrite = { written: WebhookEndpoint } | 'stale' | 'missing' | 'name-taken';

export interface WebhookEndpointsRepository {
  create(endpoint: WebhookEndpointChanges & { id: string; sealedSecret: string; secretEnv: string | null; now: Date }): Promise<WebhookEndpoint | 'name-taken'>;
  /** By id or by name. */
  find(idOrName: string): Promise<WebhookEndpoint | undefined>;
  /** Oldest first, after (createdAt, id). */
  page(request: { after?: { createdAt: Date; id: string }; limit: number }): Promise<WebhookEndpoint[]>;
  /** The enabled endpoints that want `eventType` (the audit subscriber's question, asked in the change's transaction). */
  subscribedTo(eventType: string): Promise<WebhookEndpoint[]>;
  updateIfVersion(id: string, changes: WebhookEndpointChanges, expectedVersion: number | undefined, now: Date): Promise<WebhookWrite>;
  /** Replaces the secret; the previous one stays valid until `previousExpiresAt` (null: dropped at once). */
  rotateSecret(
    id: string,
    secret: { sealed: string; sealedPrevious: string | null; previousExpiresAt: Date | null; secretEnv: string | null },
    expectedVersion: number | undefined,
    now: Date,
  ): Promise<WebhookWrite>;
  deleteIfVersion(id: string, expectedVersion: number | undefined): Promise<'deleted' | 'stale' | 'missing'>;
}

const toEndpoint = (r: Selectable<WebhookEndpointsTable>): WebhookEndpoint => ({
  id: r.id,
  name: r.name,
  url: r.url,
  description: r.description,
  eventTypes: r.event_types,
  enabled: r.enabled,
  sealedSecret: r.sealed_secret,
  sealedPreviousSecret: r.sealed_previous_secret,
  previousSecretExpiresAt: r.previous_secret_expires_at,
  secretEnv: r.secret_env,
  version: r.version,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export function webhookEndpointsRepository(db: Db): WebhookEndpointsRepository {
  const outcome = async (row: Selectable<WebhookEndpointsTable> | undefined, id: string): Promise<WebhookWrite> => {
    if (row) return { written: toEndpoint(row) };
    return (await db.selectFrom('webhook_endpoints').select('id').where('id', '=', id).executeTakeFirst()) ? 'stale' : 'missing';
  };
  return {
    async create(e) {
      noteEndpointsChange(db);
      const row = await db
        .insertInto('webhook_endpoints')
        .values({
          id: e.id,
          name: e.name,
          url: e.url,
          description: e.description,
          event_types: e.eventTypes,
          enabled: e.enabled,
          sealed_secret: e.sealedSecret,
          secret_env: e.secretEnv,
          created_at: e.now,
          updated_at: e.now,
        })
        // A taken name must not abort the caller's transaction (the idempotent create's).
        .onConflict((oc) => oc.column('name').doNothing())
        .returningAll()
        .executeTakeFirst();
      return row ? toEndpoint(row) : 'name-taken';
    },
    async find(idOrName) {
      if (idOrName.includes('\u0000')) return undefined;
      const row = await db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where((eb) => eb.or([eb('id', '=', idOrName), eb('name', '=', idOrName)]))
        .executeTakeFirst();
      return row ? toEndpoint(row) : undefined;
    },
    async page({ after, limit }) {
      let query = db.selectFrom('webhook_endpoints').selectAll();
      if (after)
        query = query.where((eb) => eb.or([eb('created_at', '>', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)])]));
      return (await query.orderBy('created_at').orderBy('id').limit(limit).execute()).map(toEndpoint);
    },
    async subscribedTo(eventType) {
      const rows = await db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('enabled', '=', true)
        .where((eb) => eb.or([sql<boolean>`cardinality(event_types) = 0`, sql<boolean>`${eventType} = any(event_types)`]))
        .orderBy('created_at')
        .execute();
      return rows.map(toEndpoint);
    },
    async updateIfVersion(id, changes, expectedVersion, now) {
      noteEndpointsChange(db);
      const holder = await db.selectFrom('webhook_endpoints').select('id').where('name', '=', changes.name).where('id', '!=', id).executeTakeFirst();
      if (holder) return 'name-taken';
      let query = db
        .updateTable('webhook_endpoints')
        .set({
          name: changes.name,
          url: changes.url,
          description: changes.description,
          event_types: changes.eventTypes,
          enabled: changes.enabled,
          updated_at: now,
          version: sql`version + 1`,
        })
        .where('id', '=', id);
      if (expectedVersion !== undefined) query = query.where('version', '=', expectedVersion);
      return outcome(await query.returningAll().executeTakeFirst(), id);
    },
    async rotateSecret(id, secret, expectedVersion, now) {
      let query = db
        .updateTable('webhook_endpoints')
        .set({
          sealed_secret: secret.sealed,
          sealed_previous_secret: secret.sealedPrevious,
          previous_secret_expires_at: secret.previousExpiresAt,
          secret_env: secret.secretEnv,
          updated_at: now,
          version: sql`version + 1`,
        })
        .where('id', '=', id);
      if (expectedVersion !== undefined) query = query.where('version', '=', expectedVersion);
      return outcome(await query.returningAll().executeTakeFirst(), id);
    },
    async deleteIfVersion(id, expectedVersion) {
      noteEndpointsChange(db);
      let query = db.deleteFrom('webhook_endpoints').where('id', '=', id);
      if (expectedVersion !== undefined) query = query.where('version', '=', expectedVersion);
      const result = await query.executeTakeFirst();
      if (Number(result.numDeletedRows) === 1) return 'deleted';
      return (await db.selectFrom('webhook_endpoints').select('id').where('id', '=', id).executeTakeFirst()) ? 'stale' : 'missing';
    },
  };
}
