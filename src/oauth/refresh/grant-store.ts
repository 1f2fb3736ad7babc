// Authorization grants (one per redeemed code) are the refresh-token family and the unit of revocation.
// Revoking a grant marks it and moves every access token issued under it to the jti revocation list.
//
// Recording a new access token and revoking the grant race each other. Revocation is two statements
// (set the mark, then copy the jtis); recording is one insert that share-locks the live grant row, so it
// either waits for the mark and sees it, or commits before the copy statement starts and is copied.
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
  /** Revokes the grant only if a token was already issued under it; returns whether it did. */
  revokeIfIssued(grantId: string): Promise<boolean>;
  /** Remembers an access token of the grant; false when the grant is (or just became) revoked — then the token is revoked too. */
  recordAccessToken(grantId: string, token: IssuedAccessTokenRecord): Promise<boolean>;
}

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
    async revokeIfIssued(grantId) {
      const marked = await sql`
        update oauth_grants set revoked_at = ${now()}
        where id = ${grantId} and revoked_at is null
          and exists (select 1 from grant_access_tokens where grant_id = ${grantId})`.execute(db);
      if (Number(marked.numAffectedRows ?? 0) === 0) return false;
      await copyJtisToRevocations(grantId);
      return true;
    },
    async recordAccessToken(grantId, token) {
      // FOR SHARE waits for a revocation in flight and then sees it; a revocation that starts later waits
      // for this insert and copies the jti in its second statement. Either way the token cannot escape.
      const inserted = await sql`
        insert into grant_access_tokens (jti, grant_id, expires_at)
        select ${token.jti}, id, ${token.expiresAt} from oauth_grants where id = ${grantId} and revoked_at is null
        for share`.execute(db);
      if (Number(inserted.numAffectedRows ?? 0) === 1) return true;
      // Revoked meanwhile, or gone with its client or user: the token must not live either.
      await db.insertInto('revoked_access_tokens').values({ jti: token.jti, expires_at: token.expiresAt, revoked_at: now() }).onConflict((oc) => oc.column('jti').doNothing()).execute();
      return false;
    },
  };
}
