// Single-use account links (migrations/0610_account_tokens.sql): stored as SHA-256 hashes, bound to a purpose
// and an account, expiring. Redemption is one UPDATE that only matches an unused, unrevoked, unexpired token
// of that purpose, so two parallel redemptions of one token cannot both succeed.
import type { Selectable } from 'kysely';
import type { Db } from '../driver/database.js';
import type { AccountTokensTable } from '../driver/schema.js';

/** invitation: src/invitations/; password_reset and email_change: src/self-service/ (the e-mail column of an
 * email_change token is the NEW address). */
export type AccountTokenPurpose = 'invitation' | 'password_reset' | 'email_change';

export interface AccountToken {
  id: string;
  purpose: AccountTokenPurpose;
  userId: string;
  email: string;
  passwordFingerprint: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
  revokedAt: Date | null;
}

const toToken = (r: Selectable<AccountTokensTable>): AccountToken => ({
  id: r.id,
  purpose: r.purpose as AccountTokenPurpose,
  userId: r.user_id,
  email: r.email,
  passwordFingerprint: r.password_fingerprint,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  usedAt: r.used_at,
  revokedAt: r.revoked_at,
});

export interface AccountTokensRepository {
  issue(input: {
    purpose: AccountTokenPurpose;
    userId: string;
    tokenHash: string;
    email: string;
    passwordFingerprint: string;
    now: Date;
    expiresAt: Date;
  }): Promise<AccountToken>;
  /** The token if it could still be redeemed now (for showing its page); undefined otherwise. */
  findUsable(purpose: AccountTokenPurpose, tokenHash: string, now: Date): Promise<AccountToken | undefined>;
  /** Marks the token used if it is still usable; undefined when it was not (used, revoked, expired, unknown). */
  redeem(purpose: AccountTokenPurpose, tokenHash: string, now: Date): Promise<AccountToken | undefined>;
  findById(purpose: AccountTokenPurpose, id: string): Promise<AccountToken | undefined>;
  /** Revokes a token that is still pending; false when there was none. */
  revoke(purpose: AccountTokenPurpose, id: string, now: Date): Promise<boolean>;
  /** Pending (unused, unrevoked, unexpired) tokens of a purpose, newest first, before (created_at, id). */
  pending(purpose: AccountTokenPurpose, now: Date, page: { before?: { createdAt: Date; id: string }; limit: number }): Promise<AccountToken[]>;
  /** Deletes tokens that expired before `cutoff` (used, revoked or not). */
  purgeExpiredBefore(cutoff: Date): Promise<number>;
}

export function accountTokensRepository(db: Db): AccountTokensRepository {
  const usable = (purpose: AccountTokenPurpose, now: Date) =>
    db
      .selectFrom('account_tokens')
      .selectAll()
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now);
  return {
    async issue(input) {
      const row = await db
        .insertInto('account_tokens')
        .values({
          purpose: input.purpose,
          user_id: input.userId,
          token_hash: input.tokenHash,
          email: input.email,
          password_fingerprint: input.passwordFingerprint,
          created_at: input.now,
          expires_at: input.expiresAt,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toToken(row);
    },
    async findUsable(purpose, tokenHash, now) {
      const row = await usable(purpose, now).where('token_hash', '=', tokenHash).executeTakeFirst();
      return row ? toToken(row) : undefined;
    },
    async redeem(purpose, tokenHash, now) {
      const row = await db
        .updateTable('account_tokens')
        .set({ used_at: now })
        .where('token_hash', '=', tokenHash)
        .where('purpose', '=', purpose)
        .where('used_at', 'is', null)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .returningAll()
        .executeTakeFirst();
      return row ? toToken(row) : undefined;
    },
    async findById(purpose, id) {
      const row = await db.selectFrom('account_tokens').selectAll().where('purpose', '=', purpose).where('id', '=', id).executeTakeFirst();
      return row ? toToken(row) : undefined;
    },
    async revoke(purpose, id, now) {
      const result = await db
        .updateTable('account_tokens')
        .set({ revoked_at: now })
        .where('id', '=', id)
        .where('purpose', '=', purpose)
        .where('used_at', 'is', null)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async pending(purpose, now, { before, limit }) {
      let query = usable(purpose, now);
      if (before)
        query = query.where((eb) =>
          eb.or([eb('created_at', '<', before.createdAt), eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)])]),
        );
      return (await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute()).map(toToken);
    },
    async purgeExpiredBefore(cutoff) {
      const result = await db.deleteFrom('account_tokens').where('expires_at', '<', cutoff).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
