// A user's custom attributes (users.attributes, a JSON object). Each change is one UPDATE whose WHERE clause
// holds the limits, so two changes arriving at once cannot together exceed them: the second waits for the
// first's row lock and re-checks the clause against the row the first wrote.
import { sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Db } from '../driver/database.js';

export interface AttributeLimits {
  /** Attributes per user. */
  maxCount: number;
  /** Bytes of the whole object, serialised. */
  maxTotalBytes: number;
}

export type SetAttributeOutcome = { outcome: 'set'; attributes: Record<string, unknown> } | { outcome: 'no-user' | 'too-many' | 'too-large' };

export interface UserAttributesRepository {
  /** Sets (adds or replaces) one attribute; `json` is its value serialised. */
  set(userId: string, name: string, json: string, limits: AttributeLimits): Promise<SetAttributeOutcome>;
  /** Removes one attribute; false when the user does not exist or has no such attribute. */
  remove(userId: string, name: string): Promise<boolean>;
  /** storedAttributesBytes on this store's connection. */
  storedBytes(json: string): Promise<number>;
}

/**
 * The size the limit `maxTotalBytes` measures: the bytes of `json` as a jsonb value's text (the database's
 * spacing and key order, not the caller's). A pure function of the value, so checking it before a write of
 * that value races with nothing.
 */
export async function storedAttributesBytes(db: Db, json: string): Promise<number> {
  const { rows } = await sql<{ bytes: number }>`select octet_length(cast(${json} as jsonb)::text) as bytes`.execute(db);
  return Number(rows[0]?.bytes);
}

const asObject = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

export function userAttributesRepository(db: Db, clock: Clock): UserAttributesRepository {
  return {
    storedBytes: (json) => storedAttributesBytes(db, json),
    async set(userId, name, json, limits) {
      const next = sql`(attributes || jsonb_build_object(${name}::text, ${json}::jsonb))`;
      const row = await db
        .updateTable('users')
        .set((eb) => ({ attributes: next, version: eb('version', '+', 1), updated_at: new Date(clock.now()) }))
        .where('id', '=', userId)
        .where(sql<boolean>`(jsonb_exists(attributes, ${name}) or (select count(*) from jsonb_object_keys(attributes)) < ${limits.maxCount})`)
        .where(sql<boolean>`octet_length(${next}::text) <= ${limits.maxTotalBytes}`)
        .returning('attributes')
        .executeTakeFirst();
      if (row) return { outcome: 'set', attributes: asObject(row.attributes) };
      // Nothing written: say why (the row as it is now; a concurrent change may have just caused it).
      const current = await db.selectFrom('users').select('attributes').where('id', '=', userId).executeTakeFirst();
      if (!current) return { outcome: 'no-user' };
      const attributes = asObject(current.attributes);
      return { outcome: !Object.hasOwn(attributes, name) && Object.keys(attributes).length >= limits.maxCount ? 'too-many' : 'too-large' };
    },
    async remove(userId, name) {
      const row = await db
        .updateTable('users')
        .set((eb) => ({ attributes: sql`attributes - ${name}::text`, version: eb('version', '+', 1), updated_at: new Date(clock.now()) }))
        .where('id', '=', userId)
        .where(sql<boolean>`jsonb_exists(attributes, ${name})`)
        .returning('id')
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
