// Authorization grants (one per redeemed code) are the refresh-token family and the unit of revocation.
// Revoking a grant marks it and moves every access token issued under it to the jti revocation list.
//
// Recording a new access token and revoking the grant race each other; both sides are two autocommit
// statements in opposite order (record: insert jti, then read the mark; revoke: set the mark, then copy
// jtis), so whichever statement runs last sees the other's write and no token escapes revocation.
import { sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Db } from '../../storage/database.js';

export interface IssuedAccessTokenRecord {
  jti: string;
  expiresAt: Date;
}

export interface GrantStore {
  /** Marks the grant revoked and revokes its access tokens. Idempotent. */
  revoke(grantId: string): Promise<void>;
  /** Remembers an access token of the grant; false when the grant is (or just became) revoked — then the token is revoked too. */
  recordAccessToken(grantId: string, token: IssuedAccessTokenRecord): Promise<boolean>;
}

const isForeignKeyViolation = (error: unknown) => (error as { code?: string })?.code === '23503';

export function grantStore(db: Db, clock: Clock): GrantStore {
  const now = () => new Date(clock.now());

  async function copyJtisToRevocations(grantId: string): Promise<void> {
    await sql`
      insert into revoked_access_tokens (jti, expires_at, revoked_at)
      select jti, expires_at, ${now()} from grant_access_tokens where grant_id = ${grantId}
      on conflict (jti) do nothing`.execute(db);
  }

  return {
    async revoke(grantId) {
      await db.updateTable('oauth_grants').set({ revoked_at: now() }).where('id', '=', grantId).where('revoked_at', 'is', null).execute();
      await copyJtisToRevocations(grantId);
    },
    async recordAccessToken(grantId, token) {
      try {
        await db.insertInto('grant_access_tokens').values({ jti: token.jti, grant_id: grantId, expires_at: token.expiresAt }).execute();
      } catch (error) {
        if (!isForeignKeyViolation(error)) throw error;
        // The grant is gone (its client or user was deleted meanwhile): the token must not live either.
        await db.insertInto('revoked_access_tokens').values({ jti: token.jti, expires_at: token.expiresAt, revoked_at: now() }).execute();
        return false;
      }
      const grant = await db.selectFrom('oauth_grants').select('revoked_at').where('id', '=', grantId).executeTakeFirst();
      if (grant && grant.revoked_at === null) return true;
      await copyJtisToRevocations(grantId);
      return false;
    },
  };
}
