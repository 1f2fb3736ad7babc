// RFC 7523 3 (jti): client assertions already used, until they expire. Consuming is one statement,
// so two instances (or two parallel requests) can never both accept the same assertion.
import type { Clock } from '../../clock.js';
import type { Db } from '../driver/database.js';

export interface ClientAssertionsRepository {
  /** Records the assertion as used; false when it had been used before (a replay). */
  consume(clientId: string, jtiHash: string, expiresAt: Date): Promise<boolean>;
  purgeExpired(): Promise<number>;
}

export function clientAssertionsRepository(db: Db, clock: Clock): ClientAssertionsRepository {
  return {
    async consume(clientId, jtiHash, expiresAt) {
      const row = await db
        .insertInto('used_client_assertions')
        .values({ client_id: clientId, jti_hash: jtiHash, expires_at: expiresAt })
        .onConflict((oc) => oc.columns(['client_id', 'jti_hash']).doNothing())
        .returning('jti_hash')
        .executeTakeFirst();
      return row !== undefined;
    },
    async purgeExpired() {
      const result = await db.deleteFrom('used_client_assertions').where('expires_at', '<', new Date(clock.now())).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
