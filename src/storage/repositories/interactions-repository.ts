// Authorization requests waiting for the user (login, consent), stored server-side with an expiry and
// bound to one browser session. The raw interaction id travels in the page URL; only its hash is stored.
import type { Clock } from '../../clock.js';
import { randomToken, sha256 } from '../../crypto/random.js';
import type { Db } from '../driver/database.js';
import { toSession, type BrowserSession } from './browser-sessions-repository.js';
import { inBatches } from './batches.js';
import { precompiled } from './precompiled.js';

export interface Interaction<R> {
  idHash: string;
  sessionHash: string;
  clientId: string;
  request: R;
  /** Still has to show the login form (no session, prompt=login, max_age elapsed). */
  loginRequired: boolean;
  expired: boolean;
  /** The username typed in the last failed login, shown again on the form. */
  attemptedUsername?: string;
}

/** The session with the username of its user (the consent page names who is approving), null before login. */
export type SessionWithUsername = BrowserSession & { username: string | null };

export interface InteractionsRepository<R> {
  create(input: { sessionHash: string; clientId: string; request: R; loginRequired: boolean; ttlSeconds: number }): Promise<string>;
  /**
   * The interaction — found even when expired, so an expired flow can still send the user back to the client —
   * and the browser session of the cookie value `sessionId` with its user's name, in one round trip (each page
   * of the flow needs them). The session is present only when it is live AND the one this interaction is bound to.
   */
  findWithSession(id: string, sessionId: string | undefined): Promise<{ interaction: Interaction<R>; session: SessionWithUsername | undefined } | undefined>;
  /** After a login: the interaction follows the new session and no longer needs the login form. */
  loggedIn(id: string, newSessionHash: string): Promise<void>;
  /** Remembers the username of a failed login for the form shown next. */
  loginFailed(id: string, username: string): Promise<void>;
  /** Single use: deletes and returns the live interaction of this session in one statement. */
  consume(id: string, sessionHash: string): Promise<Interaction<R> | undefined>;
  /**
   * Deletes interactions expired for more than KEEP_EXPIRED_MS (until then an expired flow still offers to
   * restart or return to the client), in batches; returns how many.
   */
  purgeExpired(): Promise<number>;
}

/** How long an expired interaction is kept for its "expired" page; anyone later gets "not found". */
export const KEEP_EXPIRED_MS = 10 * 60_000;

const insertInteraction = precompiled(
  (db, v: { idHash: string; sessionHash: string; clientId: string; request: string; loginRequired: boolean; createdAt: Date; expiresAt: Date }) =>
    db.insertInto('interactions').values({
      id_hash: v.idHash,
      session_hash: v.sessionHash,
      client_id: v.clientId,
      request: v.request,
      login_required: v.loginRequired,
      created_at: v.createdAt,
      expires_at: v.expiresAt,
    }),
);

const selectWithSession = precompiled((db, v: { idHash: string; sessionHash: string; now: Date }) =>
  db
    .selectFrom('interactions as i')
    .leftJoin('browser_sessions as s', (join) =>
      join.onRef('s.id_hash', '=', 'i.session_hash').on('s.id_hash', '=', v.sessionHash).on('s.expires_at', '>', v.now),
    )
    .leftJoin('users as u', 'u.id', 's.user_id')
    .selectAll('i')
    .select([
      'u.username as s_username',
      's.id_hash as s_id_hash',
      's.sid as s_sid',
      's.user_id as s_user_id',
      's.auth_time as s_auth_time',
      's.csrf_token as s_csrf_token',
      's.expires_at as s_expires_at',
    ])
    .where('i.id_hash', '=', v.idHash),
);

const rebindToSession = precompiled((db, v: { idHash: string; sessionHash: string }) =>
  db.updateTable('interactions').set({ session_hash: v.sessionHash, login_required: false }).where('id_hash', '=', v.idHash),
);

const noteAttempt = precompiled((db, v: { idHash: string; username: string }) =>
  db.updateTable('interactions').set({ attempted_username: v.username }).where('id_hash', '=', v.idHash),
);

const deleteLive = precompiled((db, v: { idHash: string; sessionHash: string; now: Date }) =>
  db.deleteFrom('interactions').where('id_hash', '=', v.idHash).where('session_hash', '=', v.sessionHash).where('expires_at', '>', v.now).returningAll(),
);

export function interactionsRepository<R>(db: Db, clock: Clock): InteractionsRepository<R> {
  type Row = {
    id_hash: string;
    session_hash: string;
    client_id: string;
    request: unknown;
    login_required: boolean;
    expires_at: Date;
    attempted_username: string | null;
  };
  const toInteraction = (row: Row): Interaction<R> => ({
    idHash: row.id_hash,
    sessionHash: row.session_hash,
    clientId: row.client_id,
    request: row.request as R,
    loginRequired: row.login_required,
    expired: row.expires_at.getTime() <= clock.now(),
    ...(row.attempted_username !== null ? { attemptedUsername: row.attempted_username } : {}),
  });
  return {
    async create({ sessionHash, clientId, request, loginRequired, ttlSeconds }) {
      const id = randomToken(32);
      const now = clock.now();
      await insertInteraction.execute(db, {
        idHash: sha256(id),
        sessionHash,
        clientId,
        request: JSON.stringify(request),
        loginRequired,
        createdAt: new Date(now),
        expiresAt: new Date(now + ttlSeconds * 1000),
      });
      return id;
    },
    async findWithSession(id, sessionId) {
      const row = await selectWithSession.executeTakeFirst(db, {
        idHash: sha256(id),
        // No cookie: a hash no session has, so the join finds nothing.
        sessionHash: sessionId === undefined ? '' : sha256(sessionId),
        now: new Date(clock.now()),
      });
      if (!row) return undefined;
      const session =
        row.s_id_hash === null || row.s_sid === null || row.s_csrf_token === null || row.s_expires_at === null
          ? undefined
          : {
              ...toSession({
                id_hash: row.s_id_hash,
                sid: row.s_sid,
                user_id: row.s_user_id,
                auth_time: row.s_auth_time,
                csrf_token: row.s_csrf_token,
                expires_at: row.s_expires_at,
              }),
              username: row.s_username,
            };
      return { interaction: toInteraction(row), session };
    },
    async loggedIn(id, newSessionHash) {
      await rebindToSession.execute(db, { idHash: sha256(id), sessionHash: newSessionHash });
    },
    async loginFailed(id, username) {
      // Bounded like the form field it comes from; PostgreSQL text cannot hold U+0000.
      await noteAttempt.execute(db, { idHash: sha256(id), username: username.replace(/\u0000/g, '').slice(0, 200) });
    },
    async consume(id, sessionHash) {
      const row = await deleteLive.executeTakeFirst(db, { idHash: sha256(id), sessionHash, now: new Date(clock.now()) });
      return row && toInteraction(row);
    },
    async purgeExpired() {
      const cutoff = new Date(clock.now() - KEEP_EXPIRED_MS);
      return inBatches(async (limit) => {
        const batch = db.selectFrom('interactions').select('id_hash').where('expires_at', '<', cutoff).limit(limit);
        const result = await db.deleteFrom('interactions').where('id_hash', 'in', batch).executeTakeFirst();
        return Number(result.numDeletedRows);
      });
    },
  };
}
