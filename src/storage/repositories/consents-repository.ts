// Remembered consent per user and client: the union of every scope set the user approved for the client.
import { sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Db } from '../driver/database.js';
import { precompiled } from './precompiled.js';

export interface ConsentsRepository {
  /** True when the user already approved every one of `scopes` for the client. */
  covers(userId: string, clientId: string, scopes: readonly string[]): Promise<boolean>;
  grant(userId: string, clientId: string, scopes: readonly string[]): Promise<void>;
}

const upsertConsent = precompiled((db, v: { userId: string; clientId: string; scopes: string[]; now: Date }) =>
  db
    .insertInto('consents')
    .values({ user_id: v.userId, client_id: v.clientId, scopes: v.scopes, granted_at: v.now })
    .onConflict((oc) =>
      oc.columns(['user_id', 'client_id']).doUpdateSet({
        scopes: sql<string[]>`array(select distinct unnest(consents.scopes || excluded.scopes) order by 1)`,
        granted_at: v.now,
      }),
    ),
);

export function consentsRepository(db: Db, clock: Clock): ConsentsRepository {
  return {
    async covers(userId, clientId, scopes) {
      const row = await db.selectFrom('consents').select('scopes').where('user_id', '=', userId).where('client_id', '=', clientId).executeTakeFirst();
      return row !== undefined && scopes.every((s) => row.scopes.includes(s));
    },
    async grant(userId, clientId, scopes) {
      await upsertConsent.execute(db, { userId, clientId, scopes: [...scopes], now: new Date(clock.now()) });
    },
  };
}
