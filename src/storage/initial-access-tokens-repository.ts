// RFC 7591 3: initial access tokens that authorise dynamic client registration. Stored as SHA-256 only.
import type { Clock } from '../clock.js';
import type { Db } from './database.js';

export interface InitialAccessTokensRepository {
  create(tokenHash: string, expiresAt: Date): Promise<void>;
  /** Whether a token with this hash exists and has not expired. */
  isValid(tokenHash: string): Promise<boolean>;
  /** Deletes expired tokens; returns how many. */
  purgeExpired(): Promise<number>;
}

export function initialAccessTokensRepository(db: Db, clock: Clock): InitialAccessTokensRepository {
  return {
    async create(tokenHash, expiresAt) {
      await db.insertInto('initial_access_tokens').values({ token_hash: tokenHash, created_at: new Date(clock.now()), expires_at: expiresAt }).execute();
    },
    async isValid(tokenHash) {
      const row = await db
        .selectFrom('initial_access_tokens')
        .select('token_hash')
        .where('token_hash', '=', tokenHash)
        .where('expires_at', '>', new Date(clock.now()))
        .executeTakeFirst();
      return row !== undefined;
    },
    async purgeExpired() {
      const result = await db.deleteFrom('initial_access_tokens').where('expires_at', '<', new Date(clock.now())).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
