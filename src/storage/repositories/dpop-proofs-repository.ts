// RFC 9449 11.1: DPoP proofs already used, per key thumbprint, until they could no longer be accepted.
import type { Clock } from '../../clock.js';
import type { Db } from '../driver/database.js';

export interface DpopProofsRepository {
  /** Records the proof as used; false when it had been used before (a replay). */
  consume(jkt: string, jtiHash: string, expiresAt: Date): Promise<boolean>;
  purgeExpired(): Promise<number>;
}

export function dpopProofsRepository(db: Db, clock: Clock): DpopProofsRepository {
  return {
    async consume(jkt, jtiHash, expiresAt) {
      const row = await db
        .insertInto('used_dpop_proofs')
        .values({ jkt, jti_hash: jtiHash, expires_at: expiresAt })
        .onConflict((oc) => oc.columns(['jkt', 'jti_hash']).doNothing())
        .returning('jti_hash')
        .executeTakeFirst();
      return row !== undefined;
    },
    async purgeExpired() {
      const result = await db.deleteFrom('used_dpop_proofs').where('expires_at', '<', new Date(clock.now())).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
