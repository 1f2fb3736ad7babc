// The upstream tokens kept for a federated identity when its provider has `store_tokens`
// (migrations/0770_federated_identity_tokens.sql). Only sealed values reach this file
// (src/federation/upstream-tokens.ts seals them); a row goes with its link (foreign key, on delete cascade).
import { sql, type Selectable } from 'kysely';
import type { Db } from '../driver/database.js';
import type { FederatedIdentityTokensTable } from '../driver/schema.js';

export interface StoredUpstreamTokens {
  providerId: string;
  subject: string;
  /** The access token, the refresh token and the token type, sealed under the key-encryption key. */
  sealed: string;
  expiresAt: Date | null;
  hasRefreshToken: boolean;
  scope: string | null;
  storedAt: Date;
}

export interface FederatedIdentityTokensRepository {
  /**
   * Replaces the identity's tokens, only while its link exists and its provider still has store_tokens: a
   * provider switched off in between (which deleted the rows) gets none written back. False when nothing was written.
   */
  put(tokens: StoredUpstreamTokens): Promise<boolean>;
  find(providerId: string, subject: string): Promise<StoredUpstreamTokens | undefined>;
  /** Every identity's tokens at this provider (store_tokens turned off). */
  deleteForProvider(providerId: string): Promise<number>;
}

type Row = Selectable<FederatedIdentityTokensTable>;

const fromRow = (r: Row): StoredUpstreamTokens => ({
  providerId: r.provider_id,
  subject: r.subject,
  sealed: r.sealed,
  expiresAt: r.expires_at,
  hasRefreshToken: r.has_refresh_token,
  scope: r.scope,
  storedAt: r.stored_at,
});

export function federatedIdentityTokensRepository(db: Db): FederatedIdentityTokensRepository {
  return {
    async put(t) {
      const values = { sealed: t.sealed, expires_at: t.expiresAt, has_refresh_token: t.hasRefreshToken, scope: t.scope, stored_at: t.storedAt };
      // insert … select: the row exists only if the link does and the provider stores tokens (same statement).
      const row = await db
        .insertInto('federated_identity_tokens')
        .columns(['provider_id', 'subject', 'sealed', 'expires_at', 'has_refresh_token', 'scope', 'stored_at'])
        .expression((eb) =>
          eb
            .selectFrom('federated_identities as f')
            .innerJoin('identity_providers as p', 'p.id', 'f.provider_id')
            .where('f.provider_id', '=', t.providerId)
            .where('f.subject', '=', t.subject)
            .where('p.store_tokens', '=', true)
            .select([
              'f.provider_id',
              'f.subject',
              sql<string>`cast(${values.sealed} as text)`.as('sealed'),
              sql<Date | null>`cast(${values.expires_at} as timestamptz)`.as('expires_at'),
              sql<boolean>`cast(${values.has_refresh_token} as boolean)`.as('has_refresh_token'),
              sql<string | null>`cast(${values.scope} as text)`.as('scope'),
              sql<Date>`cast(${values.stored_at} as timestamptz)`.as('stored_at'),
            ])
            // Waits for a provider being switched off (whose transaction then deletes the rows), then re-reads it.
            .modifyEnd(sql`for share of p`),
        )
        .onConflict((oc) => oc.columns(['provider_id', 'subject']).doUpdateSet(values))
        .returning('subject')
        .executeTakeFirst();
      return row !== undefined;
    },
    async find(providerId, subject) {
      const row = await db
        .selectFrom('federated_identity_tokens')
        .selectAll()
        .where('provider_id', '=', providerId)
        .where('subject', '=', subject)
        .executeTakeFirst();
      return row ? fromRow(row) : undefined;
    },
    async deleteForProvider(providerId) {
      const result = await db.deleteFrom('federated_identity_tokens').where('provider_id', '=', providerId).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
