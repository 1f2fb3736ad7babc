// Authorization grants (one per redeemed code) are the refresh-token family and the unit of revocation.
// Revoking a grant marks it and moves every access token issued under it to the jti revocation list.
//
// Recording a new access token (inside the code redemption and refresh rotation statements) and revoking
// the grant race each other. Revocation is two statements (set the mark, then copy the jtis); recording
// share-locks the live grant row, so it either waits for the mark and sees it, or commits before the copy
// statement starts and is copied.
import { sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Db } from '../../storage/database.js';

/** An access token recorded under its grant (by jti) before it is signed, so revoking the grant revokes it. */
export interface IssuedAccessTokenRecord {
  jti: string;
  expiresAt: Date;
}

export interface GrantStore {
  /** Marks the grant revoked and revokes its access tokens. Idempotent. */
  revoke(grantId: string): Promise<void>;
  /** Revokes every grant (refresh-token family) of a user or of a client, with their access tokens. */
  revokeAllOf(owner: { userId: string } | { clientId: string }): Promise<void>;
  /**
   * Deletes families that can never refresh again (past their absolute limit, revoked, or without a refresh
   * token still usable: none was issued, or the current one passed its idle limit) once no access token
   * issued under them is still live, and the jti records of expired access tokens; returns how many rows.
   * A live access token keeps its family, so the delete trigger never revokes a token early.
   */
  purgeEnded(): Promise<number>;
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
    async revokeAllOf(owner) {
      const [column, value] = 'userId' in owner ? (['user_id', owner.userId] as const) : (['client_id', owner.clientId] as const);
      await db.updateTable('oauth_grants').set({ revoked_at: now() }).where(column, '=', value).where('revoked_at', 'is', null).execute();
      await sql`
        insert into revoked_access_tokens (jti, expires_at, revoked_at)
        select t.jti, t.expires_at, ${now()} from grant_access_tokens t join oauth_grants g on g.id = t.grant_id
        where ${sql.ref(`g.${column}`)} = ${value} and t.expires_at > ${now()}
        on conflict (jti) do nothing`.execute(db);
    },
    async purgeEnded() {
      const at = now();
      const families = await sql`
        delete from oauth_grants g
        where (g.expires_at < ${at} or g.revoked_at is not null
               or not exists (select 1 from refresh_tokens r where r.grant_id = g.id and r.rotated_at is null and r.idle_expires_at > ${at}))
          and not exists (select 1 from grant_access_tokens t where t.grant_id = g.id and t.expires_at > ${at})`.execute(db);
      const jtis = await db.deleteFrom('grant_access_tokens').where('expires_at', '<', at).executeTakeFirst();
      return Number(families.numAffectedRows ?? 0n) + Number(jtis.numDeletedRows);
    },
  };
}
