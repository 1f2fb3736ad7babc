// What the account page lists and ends for its signed-in user: the user's browser sessions (with the
// device and address they signed in from) and the applications holding the user's consent or grants.
// Every statement is scoped to the user, so another user's session or app id simply matches nothing.
import { sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Db } from '../driver/database.js';
import { grantsRepository } from './grants-repository.js';

export interface AccountSession {
  idHash: string;
  userAgent: string | null;
  ipAddress: string | null;
  signedInAt: Date | null;
  amr: string[];
}

export interface GrantedApp {
  clientId: string;
  clientName: string;
  scopes: string[];
  grantedAt: Date;
}

export interface AccountRepository {
  sessions(userId: string): Promise<AccountSession[]>;
  /** Ends one of the user's sessions: its sid (for the logout tokens), undefined when it is not theirs (or already gone). */
  endSession(userId: string, idHash: string): Promise<string | undefined>;
  apps(userId: string): Promise<GrantedApp[]>;
  /**
   * Forgets the consent, revokes every grant (refresh-token family) of this user at this client with
   * their access tokens, and discards unredeemed codes — in one transaction. False when there was nothing.
   */
  revokeApp(userId: string, clientId: string): Promise<boolean>;
}

/** Bounded lists: the page shows the newest. */
const MAX_ROWS = 50;

export function accountRepository(db: Db, clock: Clock): AccountRepository {
  const now = () => new Date(clock.now());
  return {
    async sessions(userId) {
      const rows = await db
        .selectFrom('browser_sessions as s')
        .leftJoin('session_authentications as a', 'a.session_hash', 's.id_hash')
        .select(['s.id_hash', 's.created_at', 'a.user_agent', 'a.ip_address', 'a.signed_in_at', 'a.amr'])
        .where('s.user_id', '=', userId)
        .where('s.expires_at', '>', now())
        .orderBy('s.created_at', 'desc')
        .limit(MAX_ROWS)
        .execute();
      return rows.map((r) => ({
        idHash: r.id_hash,
        userAgent: r.user_agent,
        ipAddress: r.ip_address,
        signedInAt: r.signed_in_at ?? r.created_at,
        amr: r.amr ?? [],
      }));
    },
    async endSession(userId, idHash) {
      const row = await db.deleteFrom('browser_sessions').where('user_id', '=', userId).where('id_hash', '=', idHash).returning('sid').executeTakeFirst();
      return row?.sid;
    },
    async apps(userId) {
      const { rows } = await sql<{ client_id: string; client_name: string; scopes: string[]; granted_at: Date }>`
        select c.id as client_id, c.name as client_name, x.scopes, x.granted_at
        from (
          select client_id, scopes, granted_at from consents where user_id = ${userId}
          union all
          select client_id, scope as scopes, created_at as granted_at from oauth_grants
          where user_id = ${userId} and revoked_at is null and expires_at > ${now()}
        ) x join clients c on c.id = x.client_id
        order by x.granted_at desc
        limit ${MAX_ROWS * 4}`.execute(db);
      const byClient = new Map<string, GrantedApp>();
      for (const row of rows) {
        const known = byClient.get(row.client_id);
        if (!known)
          byClient.set(row.client_id, { clientId: row.client_id, clientName: row.client_name, scopes: [...row.scopes].sort(), grantedAt: row.granted_at });
        else known.scopes = [...new Set([...known.scopes, ...row.scopes])].sort();
      }
      return [...byClient.values()].slice(0, MAX_ROWS);
    },
    async revokeApp(userId, clientId) {
      const changed = await db.transaction().execute(async (trx) => {
        const consent = await trx.deleteFrom('consents').where('user_id', '=', userId).where('client_id', '=', clientId).executeTakeFirst();
        return Number(consent.numDeletedRows) + (await forgetApp(trx, clock, userId, clientId)) > 0;
      });
      return changed;
    },
  };
}

/**
 * What revoking an app ends besides its consent (the account page and the admin API's consent revocation):
 * every grant of the user at the client, through the one revocation path (docs/grant-revocation.md), and
 * the unredeemed codes. Run inside the caller's transaction; returns how many grants it revoked.
 */
export async function forgetApp(trx: Db, clock: Clock, userId: string, clientId: string): Promise<number> {
  const grants = await grantsRepository(trx, clock).revoke({ userId, clientId });
  await trx.deleteFrom('authorization_codes').where('user_id', '=', userId).where('client_id', '=', clientId).where('redeemed_at', 'is', null).execute();
  return grants;
}
