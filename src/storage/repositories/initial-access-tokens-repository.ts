// RFC 7591 3: initial access tokens that authorise dynamic client registration. Stored as SHA-256 only.
// Each carries a registration policy and a number of uses; spending a use is one conditional update, so
// parallel registrations with a single-use token cannot both pass.
import type { Clock } from '../../clock.js';
import type { Db } from '../driver/database.js';

export interface InitialAccessTokenPolicy {
  allowedGrantTypes: string[];
  allowedScopes: string[];
}

export interface NewInitialAccessToken extends InitialAccessTokenPolicy {
  tokenHash: string;
  expiresAt: Date;
  uses: number;
}

export interface InitialAccessTokensRepository {
  create(token: NewInitialAccessToken): Promise<void>;
  /** The policy of a live token (not expired, uses left), without spending a use. */
  peek(tokenHash: string): Promise<InitialAccessTokenPolicy | undefined>;
  /** Spends one use atomically; the policy, or undefined when the token is expired or used up. */
  consume(tokenHash: string): Promise<InitialAccessTokenPolicy | undefined>;
  /** Deletes expired and used-up tokens; returns how many. */
  purgeExpired(): Promise<number>;
}

const toPolicy = (row: { allowed_grant_types: string[]; allowed_scopes: string[] } | undefined): InitialAccessTokenPolicy | undefined =>
  row && { allowedGrantTypes: row.allowed_grant_types, allowedScopes: row.allowed_scopes };

export function initialAccessTokensRepository(db: Db, clock: Clock): InitialAccessTokensRepository {
  return {
    async create(token) {
      await db
        .insertInto('initial_access_tokens')
        .values({
          token_hash: token.tokenHash,
          created_at: new Date(clock.now()),
          expires_at: token.expiresAt,
          uses_left: token.uses,
          allowed_grant_types: token.allowedGrantTypes,
          allowed_scopes: token.allowedScopes,
        })
        .execute();
    },
    async peek(tokenHash) {
      const row = await db
        .selectFrom('initial_access_tokens')
        .select(['allowed_grant_types', 'allowed_scopes'])
        .where('token_hash', '=', tokenHash)
        .where('expires_at', '>', new Date(clock.now()))
        .where('uses_left', '>', 0)
        .executeTakeFirst();
      return toPolicy(row);
    },
    async consume(tokenHash) {
      const row = await db
        .updateTable('initial_access_tokens')
        .set((eb) => ({ uses_left: eb('uses_left', '-', 1) }))
        .where('token_hash', '=', tokenHash)
        .where('expires_at', '>', new Date(clock.now()))
        .where('uses_left', '>', 0)
        .returning(['allowed_grant_types', 'allowed_scopes'])
        .executeTakeFirst();
      return toPolicy(row);
    },
    async purgeExpired() {
      const result = await db
        .deleteFrom('initial_access_tokens')
        .where((eb) => eb.or([eb('expires_at', '<', new Date(clock.now())), eb('uses_left', '=', 0)]))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
