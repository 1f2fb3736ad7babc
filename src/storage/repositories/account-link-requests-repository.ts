// A provider being linked from /account (migrations/0520_account_links.sql): the pending upstream request
// kept on the signed-in browser session that asked for it, found at the provider's callback only with that
// session's cookie (never by `state` alone) and taken once: of two parallel callbacks only one gets it.
import { sql } from 'kysely';
import type { PendingUpstream } from './upstream-sign-ins-repository.js';
import type { Db } from '../driver/database.js';

export interface AccountLinkRequestsRepository {
  put(sessionIdHash: string, pending: PendingUpstream): Promise<void>;
  /** Single use: returns the pending request and clears it, in one statement. */
  take(sessionIdHash: string): Promise<PendingUpstream | undefined>;
}

const asPending = (value: unknown): PendingUpstream | undefined => {
  const pending = (typeof value === 'string' ? JSON.parse(value) : value) as PendingUpstream | null;
  return pending && typeof pending.providerId === 'string' && typeof pending.state === 'string' ? pending : undefined;
};

export function accountLinkRequestsRepository(db: Db): AccountLinkRequestsRepository {
  return {
    async put(sessionIdHash, pending) {
      await db
        .updateTable('browser_sessions')
        .set({ upstream_link: JSON.stringify(pending) })
        .where('id_hash', '=', sessionIdHash)
        .execute();
    },
    async take(sessionIdHash) {
      // The old value, with the row locked: a parallel take waits, then finds it cleared.
      const result = await sql<{ upstream_link: unknown }>`
        update browser_sessions s set upstream_link = null
        from (select id_hash, upstream_link from browser_sessions where id_hash = ${sessionIdHash} and upstream_link is not null for update) old
        where s.id_hash = old.id_hash
        returning old.upstream_link`.execute(db);
      return asPending(result.rows[0]?.upstream_link);
    },
  };
}
