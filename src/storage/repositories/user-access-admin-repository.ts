// What the admin API lists and ends of a user's access (docs/admin-api.md, "Grants, sessions, consents"):
// live grants, signed-in browser sessions and remembered consents, in (created, id) order for cursor pages.
// Ending a grant goes through the one revocation path (grantsRepository.revoke, docs/grant-revocation.md).
import { sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Db } from '../driver/database.js';
import { grantsRepository, type GrantRecord } from './grants-repository.js';
import { forgetApp } from './account-repository.js';

export interface PageAfter {
  after?: { createdAt: Date; id: string };
  limit: number;
}

export interface AdminSession {
  /** sha256 of the cookie value: the handle the account page uses too; the cookie cannot be derived from it. */
  id: string;
  userId: string;
  userAgent: string | null;
  ipAddress: string | null;
  amr: string[];
  createdAt: Date;
  signedInAt: Date | null;
  expiresAt: Date;
}

export interface AdminConsent {
  id: string;
  userId: string;
  clientId: string;
  scopes: string[];
  grantedAt: Date;
}

export type OwnerFilter = { userId?: string; clientId?: string };

export function userAccessAdminRepository(db: Db, clock: Clock) {
  const now = () => new Date(clock.now());

  const grantRow = (r: {
    id: string;
    client_id: string;
    user_id: string;
    scope: string[];
    auth_time: Date;
    resource: string | null;
    amr: string[] | null;
    created_at: Date;
    expires_at: Date;
    revoked_at: Date | null;
  }): GrantRecord => ({
    id: r.id,
    clientId: r.client_id,
    userId: r.user_id,
    scope: r.scope,
    authTime: r.auth_time,
    resource: r.resource,
    amr: r.amr,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    revokedAt: r.revoked_at,
  });

  // A grant is live until revoked or past its absolute limit; an ended grant is gone for the admin API.
  const liveGrants = () =>
    db
      .selectFrom('oauth_grants')
      .select(['id', 'client_id', 'user_id', 'scope', 'auth_time', 'resource', 'amr', 'created_at', 'expires_at', 'revoked_at'])
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now());

  const sessions = () =>
    db
      .selectFrom('browser_sessions as s')
      .leftJoin('session_authentications as a', 'a.session_hash', 's.id_hash')
      .select(['s.id_hash', 's.user_id', 's.created_at', 's.expires_at', 'a.user_agent', 'a.ip_address', 'a.signed_in_at', 'a.amr'])
      .where('s.user_id', 'is not', null)
      .where('s.expires_at', '>', now());
  const sessionRow = (r: {
    id_hash: string;
    user_id: string | null;
    created_at: Date;
    expires_at: Date;
    user_agent: string | null;
    ip_address: string | null;
    signed_in_at: Date | null;
    amr: string[] | null;
  }): AdminSession => ({
    id: r.id_hash,
    userId: r.user_id ?? '',
    userAgent: r.user_agent,
    ipAddress: r.ip_address,
    amr: r.amr ?? [],
    createdAt: r.created_at,
    signedInAt: r.signed_in_at,
    expiresAt: r.expires_at,
  });

  const consents = () => db.selectFrom('consents').select(['id', 'user_id', 'client_id', 'scopes', 'granted_at']);
  const consentRow = (r: { id: string; user_id: string; client_id: string; scopes: string[]; granted_at: Date }): AdminConsent => ({
    id: r.id,
    userId: r.user_id,
    clientId: r.client_id,
    scopes: r.scopes,
    grantedAt: r.granted_at,
  });

  return {
    async grants(owner: OwnerFilter, page: PageAfter): Promise<GrantRecord[]> {
      let q = liveGrants();
      if (owner.userId !== undefined) q = q.where('user_id', '=', owner.userId);
      if (owner.clientId !== undefined) q = q.where('client_id', '=', owner.clientId);
      if (page.after) q = q.where(sql<boolean>`(created_at, id) > (${page.after.createdAt}, ${page.after.id})`);
      return (await q.orderBy('created_at').orderBy('id').limit(page.limit).execute()).map(grantRow);
    },
    async grant(id: string): Promise<GrantRecord | undefined> {
      const row = await liveGrants().where('id', '=', id).executeTakeFirst();
      return row && grantRow(row);
    },
    /** The one revocation path for this grant; false when it was already ended (a parallel DELETE won). */
    async revokeGrant(id: string): Promise<boolean> {
      return (await grantsRepository(db, clock).revoke({ grantId: id })) > 0;
    },

    async sessions(userId: string, page: PageAfter): Promise<AdminSession[]> {
      let q = sessions().where('s.user_id', '=', userId);
      if (page.after) q = q.where(sql<boolean>`(s.created_at, s.id_hash) > (${page.after.createdAt}, ${page.after.id})`);
      return (await q.orderBy('s.created_at').orderBy('s.id_hash').limit(page.limit).execute()).map(sessionRow);
    },
    async session(id: string): Promise<AdminSession | undefined> {
      const row = await sessions().where('s.id_hash', '=', id).executeTakeFirst();
      return row && sessionRow(row);
    },
    /**
     * Deletes the signed-in session and returns its sid (for the logout tokens); undefined when it was already
     * gone. The browser's cookie then finds nothing.
     */
    async endSession(id: string): Promise<string | undefined> {
      const row = await db.deleteFrom('browser_sessions').where('id_hash', '=', id).where('user_id', 'is not', null).returning('sid').executeTakeFirst();
      return row?.sid;
    },

    async consents(owner: OwnerFilter, page: PageAfter): Promise<AdminConsent[]> {
      let q = consents();
      if (owner.userId !== undefined) q = q.where('user_id', '=', owner.userId);
      if (owner.clientId !== undefined) q = q.where('client_id', '=', owner.clientId);
      if (page.after) q = q.where(sql<boolean>`(granted_at, id) > (${page.after.createdAt}, ${page.after.id})`);
      return (await q.orderBy('granted_at').orderBy('id').limit(page.limit).execute()).map(consentRow);
    },
    async consent(id: string): Promise<AdminConsent | undefined> {
      const row = await consents().where('id', '=', id).executeTakeFirst();
      return row && consentRow(row);
    },
    /**
     * Forgets the consent if it is still as read (`grantedAt`: re-approving changes it), then ends the
     * user's grants and unredeemed codes at that client, as the account page's "revoke app" does.
     * Must run in a transaction. 'stale' when it changed, false when it is gone.
     */
    async revokeConsent(id: string, grantedAt: Date): Promise<AdminConsent | 'stale' | false> {
      const deleted = await db
        .deleteFrom('consents')
        .where('id', '=', id)
        .where('granted_at', '=', grantedAt)
        .returning(['id', 'user_id', 'client_id', 'scopes', 'granted_at'])
        .executeTakeFirst();
      if (!deleted) return (await consents().where('id', '=', id).executeTakeFirst()) ? 'stale' : false;
      await forgetApp(db, clock, deleted.user_id, deleted.client_id);
      return consentRow(deleted);
    },
  };
}

export type UserAccessAdminRepository = ReturnType<typeof userAccessAdminRepository>;
