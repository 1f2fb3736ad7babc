// Idempotency records: one row per (principal, key), both stored as hashes. Every state change is a
// single conditional statement, so concurrent requests and instances race safely on PostgreSQL.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../driver/database.js';

/**
 * An operation's only write, as one data-modifying statement that writes its rows only
 * `where exists (select 1 from completed)`: it runs in the same statement as the key's completion (or
 * first insert) and writes nothing when that did not happen.
 */
export type GuardedWrite = RawBuilder<unknown>;

export interface IdempotencyIdentity {
  principalHash: string;
  keyHash: string;
}

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export type IdempotencyRecord =
  | { state: 'running'; requestHash: string; lockedUntil: Date; expiresAt: Date }
  | { state: 'completed'; requestHash: string; response: StoredResponse; expiresAt: Date };

export interface IdempotencyKeysRepository {
  /** INSERT … ON CONFLICT DO NOTHING: true when this call reserved the key. */
  reserve(id: IdempotencyIdentity, r: { requestHash: string; ownerToken: string; now: Date; lockedUntil: Date; expiresAt: Date }): Promise<boolean>;
  find(id: IdempotencyIdentity): Promise<IdempotencyRecord | undefined>;
  /** Takes over a reservation whose lease has passed (its request died); true when this call won. */
  takeOver(id: IdempotencyIdentity, r: { ownerToken: string; now: Date; lockedUntil: Date }): Promise<boolean>;
  /** Stores the response if `ownerToken` still holds the reservation; use the store of the operation's transaction. */
  complete(id: IdempotencyIdentity, ownerToken: string, response: StoredResponse): Promise<boolean>;
  /**
   * complete() and the operation's only write in ONE statement (no BEGIN/COMMIT round trips): both
   * happen, or neither. False when the reservation was lost (nothing written).
   */
  completeWith(id: IdempotencyIdentity, ownerToken: string, response: StoredResponse, write: GuardedWrite): Promise<boolean>;
  /**
   * Reservation, completion and the operation's only write in ONE statement, for a key seen for the first
   * time: the key row is inserted already completed (INSERT … ON CONFLICT DO NOTHING) and the write runs
   * only if that insert did. A transaction-scoped advisory lock on the key stands in for the `running`
   * state while the statement runs, so a duplicate arriving meanwhile is refused at once ('busy') instead
   * of queueing on the uncommitted row. 'exists': the key was already there; nothing written.
   */
  insertCompletedWith(
    id: IdempotencyIdentity,
    r: { requestHash: string; now: Date; expiresAt: Date },
    response: StoredResponse,
    write: GuardedWrite,
  ): Promise<'written' | 'busy' | 'exists'>;
  /** Gives the key up (the request failed with a 5xx), so a retry runs afresh. */
  release(id: IdempotencyIdentity, ownerToken: string): Promise<void>;
  deleteIfExpired(id: IdempotencyIdentity, now: Date): Promise<void>;
  purgeExpired(now: Date): Promise<number>;
}

export function idempotencyKeysRepository(db: Db): IdempotencyKeysRepository {
  const byId = (id: IdempotencyIdentity) => db.selectFrom('idempotency_keys').where('principal_hash', '=', id.principalHash).where('key_hash', '=', id.keyHash);
  return {
    async reserve(id, r) {
      const row = await db
        .insertInto('idempotency_keys')
        .values({
          principal_hash: id.principalHash,
          key_hash: id.keyHash,
          request_hash: r.requestHash,
          state: 'running',
          owner_token: r.ownerToken,
          locked_until: r.lockedUntil,
          created_at: r.now,
          expires_at: r.expiresAt,
        })
        .onConflict((oc) => oc.columns(['principal_hash', 'key_hash']).doNothing())
        .returning('key_hash')
        .executeTakeFirst();
      return row !== undefined;
    },
    async find(id) {
      const row = await byId(id).selectAll().executeTakeFirst();
      if (!row) return undefined;
      if (row.state === 'completed') {
        return {
          state: 'completed',
          requestHash: row.request_hash,
          expiresAt: row.expires_at,
          response: {
            status: row.response_status!,
            headers: (row.response_headers ?? {}) as Record<string, string>,
            body: Buffer.from(row.response_body ?? []),
          },
        };
      }
      return { state: 'running', requestHash: row.request_hash, lockedUntil: row.locked_until!, expiresAt: row.expires_at };
    },
    async takeOver(id, r) {
      const result = await db
        .updateTable('idempotency_keys')
        .set({ owner_token: r.ownerToken, locked_until: r.lockedUntil })
        .where('principal_hash', '=', id.principalHash)
        .where('key_hash', '=', id.keyHash)
        .where('state', '=', 'running')
        .where('locked_until', '<=', r.now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async complete(id, ownerToken, response) {
      const result = await db
        .updateTable('idempotency_keys')
        .set({
          state: 'completed',
          owner_token: null,
          locked_until: null,
          response_status: response.status,
          response_headers: JSON.stringify(response.headers),
          response_body: response.body,
        })
        .where('principal_hash', '=', id.principalHash)
        .where('key_hash', '=', id.keyHash)
        .where('state', '=', 'running')
        .where('owner_token', '=', ownerToken)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async completeWith(id, ownerToken, response, write) {
      const { rows } = await sql<{ written: number }>`
        with completed as (
          update idempotency_keys
          set state = 'completed', owner_token = null, locked_until = null, response_status = ${response.status},
              response_headers = ${JSON.stringify(response.headers)}::jsonb, response_body = ${response.body}
          where principal_hash = ${id.principalHash} and key_hash = ${id.keyHash} and state = 'running' and owner_token = ${ownerToken}
          returning 1
        ), written as (${write} returning 1)
        select (select count(*) from written)::int as written`.execute(db);
      return rows[0]!.written > 0;
    },
    async insertCompletedWith(id, r, response, write) {
      const { rows } = await sql<{ locked: boolean; written: number }>`
        with attempt as (
          select pg_try_advisory_xact_lock(hashtextextended(${id.principalHash} || ':' || ${id.keyHash}, 0)) as locked
        ), completed as (
          insert into idempotency_keys (principal_hash, key_hash, request_hash, state, response_status, response_headers, response_body, created_at, expires_at)
          select ${id.principalHash}, ${id.keyHash}, ${r.requestHash}, 'completed', ${response.status}, ${JSON.stringify(response.headers)}::jsonb,
                 ${response.body}, ${r.now}, ${r.expiresAt}
          where (select locked from attempt)
          on conflict (principal_hash, key_hash) do nothing
          returning 1
        ), written as (${write} returning 1)
        select (select locked from attempt) as locked, (select count(*) from written)::int as written`.execute(db);
      const row = rows[0]!;
      return !row.locked ? 'busy' : row.written > 0 ? 'written' : 'exists';
    },
    async release(id, ownerToken) {
      await db
        .deleteFrom('idempotency_keys')
        .where('principal_hash', '=', id.principalHash)
        .where('key_hash', '=', id.keyHash)
        .where('state', '=', 'running')
        .where('owner_token', '=', ownerToken)
        .execute();
    },
    async deleteIfExpired(id, now) {
      await db
        .deleteFrom('idempotency_keys')
        .where('principal_hash', '=', id.principalHash)
        .where('key_hash', '=', id.keyHash)
        .where('expires_at', '<=', now)
        .execute();
    },
    async purgeExpired(now) {
      const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
