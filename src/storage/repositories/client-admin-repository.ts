// What the admin API and the CLI need of clients beyond what /token reads: every client (disabled ones
// too), pages in a stable order, writes that happen only against the version the operator saw (If-Match),
// and secret rotation keeping the previous secret until a chosen time (docs/admin-api.md).
import { sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Db } from '../driver/database.js';
import { clientColumns, toClient, type Client, type NewClient } from './clients-repository.js';

export interface ClientPageRequest {
  /** Rows strictly after this (created_at, id) position; ascending order. */
  after?: { createdAt: Date; id: string };
  limit: number;
}

export interface ClientAdminRepository {
  /** Enabled or disabled. */
  findAny(id: string): Promise<Client | undefined>;
  page(request: ClientPageRequest): Promise<Client[]>;
  /** The write happens only when the stored version is still `expectedVersion`; undefined otherwise (or no such client). */
  updateIfVersion(id: string, changes: Partial<NewClient> & { disabled?: boolean }, expectedVersion: number): Promise<Client | undefined>;
  /** The current secret becomes the previous one (accepted until `previousExpiresAt`), the new hash the current one. */
  rotateSecret(id: string, newSecretHash: string, previousExpiresAt: Date, expectedVersion?: number): Promise<Client | undefined>;
  /** The client's version, its row locked until the transaction ends; undefined when there is no such client. */
  lockVersion(id: string): Promise<number | undefined>;
}

export function clientAdminRepository(db: Db, clock: Clock): ClientAdminRepository {
  return {
    async findAny(id) {
      if (id.includes('\u0000')) return undefined;
      const row = await db.selectFrom('clients').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toClient(row);
    },
    async page({ after, limit }) {
      let query = db.selectFrom('clients').selectAll();
      if (after) {
        query = query.where((eb) => eb.or([eb('created_at', '>', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)])]));
      }
      return (await query.orderBy('created_at').orderBy('id').limit(limit).execute()).map(toClient);
    },
    async updateIfVersion(id, changes, expectedVersion) {
      const row = await db
        .updateTable('clients')
        .set({
          ...clientColumns(changes),
          ...(changes.disabled !== undefined ? { disabled: changes.disabled } : {}),
          updated_at: new Date(clock.now()),
          version: sql`version + 1`,
        })
        .where('id', '=', id)
        .where('version', '=', expectedVersion)
        .returningAll()
        .executeTakeFirst();
      return row && toClient(row);
    },
    async lockVersion(id) {
      const row = await db.selectFrom('clients').select('version').where('id', '=', id).forUpdate().executeTakeFirst();
      return row?.version;
    },
    async rotateSecret(id, newSecretHash, previousExpiresAt, expectedVersion) {
      let query = db
        .updateTable('clients')
        .set({
          previous_secret_hash: sql`secret_hash`,
          previous_secret_expires_at: previousExpiresAt,
          secret_hash: newSecretHash,
          updated_at: new Date(clock.now()),
          version: sql`version + 1`,
        })
        .where('id', '=', id)
        .where('secret_hash', 'is not', null);
      if (expectedVersion !== undefined) query = query.where('version', '=', expectedVersion);
      const row = await query.returningAll().executeTakeFirst();
      return row && toClient(row);
    },
  };
}
