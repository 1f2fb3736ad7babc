// Who must be told that sessions end (OpenID Connect Back-Channel Logout 1.0, docs/backchannel-logout.md):
// the clients with a backchannel_logout_uri that hold a live grant from those sessions. A grant names its
// session by the session's sid (migration 0860), which outlives the session's row. Read BEFORE the change that
// revokes the grants — a deleted user's grants go with the cascade, a revoked grant no longer counts.
import { sql } from 'kysely';
import type { Db } from '../driver/database.js';

export interface LogoutTarget {
  clientId: string;
  userId: string;
  /** The browser session's sid (null: a grant not tied to a session). */
  sid: string | null;
  sessionRequired: boolean;
}

/**
 * One session ends (by its sid); or every session of a user but `exceptSession`, the id hash of the session the
 * change was made from (whose row still exists).
 */
export type EndingSessions = { sid: string } | { userId: string; exceptSession?: string | undefined };

export async function logoutTargets(db: Db, ending: EndingSessions, now: Date): Promise<LogoutTarget[]> {
  const which =
    'sid' in ending
      ? sql`g.session_id = ${ending.sid}`
      : ending.exceptSession !== undefined
        ? sql`g.user_id = ${ending.userId} and g.session_id is distinct from (select sid from browser_sessions where id_hash = ${ending.exceptSession})`
        : sql`g.user_id = ${ending.userId}`;
  const { rows } = await sql<{ client_id: string; user_id: string; session_id: string | null; required: boolean }>`
    select distinct g.client_id, g.user_id, g.session_id, c.backchannel_logout_session_required as required
    from oauth_grants g join clients c on c.id = g.client_id
    where ${which} and g.revoked_at is null and g.expires_at > ${now}
      and c.backchannel_logout_uri is not null and not c.disabled
    order by g.client_id, g.session_id`.execute(db);
  return rows.map((r) => ({ clientId: r.client_id, userId: r.user_id, sid: r.session_id, sessionRequired: r.required }));
}
