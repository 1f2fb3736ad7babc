// Authorization grants (one per redeemed code) are the refresh-token family and the unit of revocation.
// Revoking grants marks them and moves every live access token issued under them to the jti revocation
// list. This is the only way a grant is revoked (docs/grant-revocation.md): code reuse, refresh-token reuse,
// /revoke of a refresh token, a user's access ended, a client disabled — and deleting a user or a client,
// whose repositories revoke the owner's grants in the same transaction before the delete cascades them away.
//
// Recording a new access token (inside the code redemption and refresh rotation statements) and revoking
// the grant race each other. Revocation is two statements (set the mark, then copy the jtis); recording
// share-locks the live grant row, so it either waits for the mark and sees it, or commits before the copy
// statement starts and is copied.
import { sql, type Transaction } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Db } from '../driver/database.js';
import type { DB } from '../driver/schema.js';

/** An access token recorded under its grant (by jti) before it is signed, so revoking the grant revokes it. */
export interface IssuedAccessTokenRecord {
  jti: string;
  expiresAt: Date;
}

export interface GrantRecord {
  id: string;
  clientId: string;
  userId: string;
  scope: string[];
  authTime: Date;
  /** RFC 8176 amr of the sign-in the grant came from (migrations/0450), null when none was recorded. */
  amr: string[] | null;
  resource: string | null;
  /** The sid of the browser session it came from, where the reader selected it: refreshed id_tokens carry it. */
  sessionId?: string | null;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}

/**
 * Which grants to revoke: one, every grant of a user or of a client, those of a user at one client, or those of
 * a user whose sign-in recorded an amr value (`signedInWith: 'mfa'`: every grant that states the mfa acr).
 */
export type GrantsOf = { grantId: string } | { userId: string; clientId?: string } | { clientId: string } | { userId: string; signedInWith: string };

export interface GrantsRepository {
  /** Marks the grants revoked and revokes their live access tokens; returns how many grants it revoked. Idempotent. */
  revoke(which: GrantsOf): Promise<number>;
  /**
   * Deletes families that can never refresh again (past their absolute limit, revoked, or without a refresh
   * token still usable: none was issued, or the current one passed its idle limit) once no access token
   * issued under them is still live, and the jti records of expired access tokens; returns how many rows.
   * A live access token keeps its family, so purging never forgets a token that revoking must still reach.
   */
  purgeEnded(): Promise<number>;
}

type GrantColumn = 'id' | 'user_id' | 'client_id';

function columnsOf(which: GrantsOf): [GrantColumn, string][] {
  if ('grantId' in which) return [['id', which.grantId]];
  const columns: [GrantColumn, string][] = [];
  if ('userId' in which) columns.push(['user_id', which.userId]);
  if ('clientId' in which && which.clientId !== undefined) columns.push(['client_id', which.clientId]);
  return columns;
}

/** The condition on the grant (alias `g`) that selects `which`. */
function conditionOf(which: GrantsOf) {
  const columns = columnsOf(which).map(([column, value]) => sql<boolean>`${sql.ref(`g.${column}`)} = ${value}`);
  if ('signedInWith' in which) columns.push(sql<boolean>`${which.signedInWith} = any(g.amr)`);
  return sql<boolean>`${sql.join(columns, sql` and `)}`;
}

export function grantsRepository(db: Db, clock: Clock): GrantsRepository {
  const now = () => new Date(clock.now());
  return {
    async revoke(which) {
      const at = now();
      const owner = conditionOf(which);
      const revoked = await db.updateTable('oauth_grants as g').set({ revoked_at: at }).where('g.revoked_at', 'is', null).where(owner).executeTakeFirst();
      await sql`
        insert into revoked_access_tokens (jti, expires_at, revoked_at)
        select t.jti, t.expires_at, ${at} from grant_access_tokens t join oauth_grants g on g.id = t.grant_id
        where ${owner} and t.expires_at > ${at}
        on conflict (jti) do nothing`.execute(db);
      return Number(revoked.numUpdatedRows);
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

/**
 * Deletes a user or a client after revoking its grants, in one transaction (joining the caller's, if any).
 * The owner's row is locked first: creating a grant checks the foreign key with a share lock on that row,
 * so no grant can appear between the revocation and the delete; the cascade then removes revoked grants only.
 */
export async function deleteGrantOwner(db: Db, clock: Clock, owner: { userId: string } | { clientId: string }): Promise<boolean> {
  const [table, id] = 'userId' in owner ? (['users', owner.userId] as const) : (['clients', owner.clientId] as const);
  const run = async (trx: Transaction<DB> | Db): Promise<boolean> => {
    const locked = await trx.selectFrom(table).select('id').where('id', '=', id).forUpdate().executeTakeFirst();
    if (!locked) return false;
    await grantsRepository(trx, clock).revoke(owner);
    await trx.deleteFrom(table).where('id', '=', id).execute();
    return true;
  };
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}
