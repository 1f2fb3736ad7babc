// Access tokens revoked before they expire, by jti. Shared by /revoke, refresh-family revocation,
// code-reuse revocation (writers) and the resource API and /introspect (readers).
import { sql } from 'kysely';
import type { Clock } from '../clock.js';
import type { Db } from './database.js';

// Revocations committed by this process, counted. A cache of verified tokens in the same process looks
// again at the revocation list whenever the count moved, so /revoke, a family revocation or a deleted
// user or client takes effect on the very next request here; other instances within their re-check
// interval. Bumped after the write has committed (a re-check running meanwhile is then repeated).
let revocationsWrittenHere = 0;
export const localRevocationCount = (): number => revocationsWrittenHere;
export const noteRevocationsWritten = (): void => {
  revocationsWrittenHere += 1;
};

export interface RevokedAccessToken {
  jti: string;
  expiresAt: Date;
}

export interface RevocationsRepository {
  revoke(tokens: readonly RevokedAccessToken[]): Promise<void>;
  isRevoked(jti: string): Promise<boolean>;
  /** Drops entries whose tokens have expired anyway; returns how many. */
  purgeExpired(): Promise<number>;
}

export function revocationsRepository(db: Db, clock: Clock): RevocationsRepository {
  return {
    async revoke(tokens) {
      if (tokens.length === 0) return;
      await db
        .insertInto('revoked_access_tokens')
        .values(tokens.map((t) => ({ jti: t.jti, expires_at: t.expiresAt, revoked_at: new Date(clock.now()) })))
        .onConflict((oc) => oc.column('jti').doNothing())
        .execute();
      noteRevocationsWritten();
    },
    async isRevoked(jti) {
      const row = await db.selectFrom('revoked_access_tokens').select(sql<number>`1`.as('one')).where('jti', '=', jti).executeTakeFirst();
      return row !== undefined;
    },
    async purgeExpired() {
      const result = await db.deleteFrom('revoked_access_tokens').where('expires_at', '<', new Date(clock.now())).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
