// Browser sessions of the login pages, keyed by sha256 of the cookie value (the raw id is never stored).
// A session without a user is the anonymous pre-login session; login always starts a new row (a new cookie
// value) — which keeps the replaced row's `sid` when the same account signed in again (user-rules/sign-in-session.ts).
import type { Clock } from '../../clock.js';
import { randomToken, sha256 } from '../../crypto/random.js';
import type { Db } from '../driver/database.js';
import { inBatches } from './batches.js';
import { precompiled } from './precompiled.js';

export interface BrowserSession {
  /** sha256 of the cookie value: what other tables reference. */
  idHash: string;
  /**
   * The session's stable identifier (the `sid` of id_tokens and logout tokens; what codes and grants remember):
   * random, kept across the cookie rotation of a re-login by the same account (docs/backchannel-logout.md#sid).
   */
  sid: string;
  userId: string | null;
  /** Epoch seconds of the password login, when there was one. */
  authTime: number | null;
  /** Synchroniser token every form of this browser must echo (CSRF). */
  csrfToken: string;
  expiresAt: Date;
}

export interface BrowserSessionsRepository {
  /**
   * Starts a session and returns it with the raw id for the cookie; `sid`: the one of the session it continues
   * (a re-login by the same account), else a new one.
   */
  start(input: { userId: string | null; authTime: number | null; ttlSeconds: number; sid?: string | undefined }): Promise<BrowserSession & { id: string }>;
  /**
   * Deletes a session (live or not) and returns what it was — the row lock a sign-in over it holds until it
   * commits, so of two sign-ins at once in one browser the second finds nothing (undefined) and starts nothing.
   */
  take(idHash: string): Promise<BrowserSession | undefined>;
  /** A live (unexpired) session by its raw cookie value. */
  find(id: string): Promise<BrowserSession | undefined>;
  end(idHash: string): Promise<void>;
  /** Ends every session of a user (password changed, account deleted), but `except` when given; returns how many. */
  endAllOf(userId: string, except?: string): Promise<number>;
  /** Deletes sessions past their expiry (never found again); returns how many. */
  purgeExpired(): Promise<number>;
  /**
   * Deletes anonymous (pre-login) sessions that no interaction refers to any more, in batches: such a
   * session exists only to bind interactions to a browser. One younger than ANONYMOUS_GRACE_MS is kept, as
   * its interaction may not be written yet.
   */
  purgeAnonymous(): Promise<number>;
}

export const ANONYMOUS_GRACE_MS = 60_000;

const startSession = precompiled(
  (db, v: { idHash: string; sid: string; userId: string | null; authTime: Date | null; csrfToken: string; createdAt: Date; expiresAt: Date }) =>
    db
      .insertInto('browser_sessions')
      .values({
        id_hash: v.idHash,
        sid: v.sid,
        user_id: v.userId,
        auth_time: v.authTime,
        csrf_token: v.csrfToken,
        created_at: v.createdAt,
        expires_at: v.expiresAt,
      })
      .returningAll(),
);

export function browserSessionsRepository(db: Db, clock: Clock): BrowserSessionsRepository {
  return {
    async start({ userId, authTime, ttlSeconds, sid }) {
      const id = randomToken(32);
      const now = clock.now();
      const [row] = await startSession.execute(db, {
        idHash: sha256(id),
        // Random, not derived from the cookie: it must outlive the cookie value, and reveals nothing that finds the session.
        sid: sid ?? randomToken(32),
        userId,
        authTime: authTime === null ? null : new Date(authTime * 1000),
        csrfToken: randomToken(32),
        createdAt: new Date(now),
        expiresAt: new Date(now + ttlSeconds * 1000),
      });
      // An insert … returning always returns its row.
      return { id, ...toSession(row!) };
    },
    async find(id) {
      const row = await db
        .selectFrom('browser_sessions')
        .selectAll()
        .where('id_hash', '=', sha256(id))
        .where('expires_at', '>', new Date(clock.now()))
        .executeTakeFirst();
      return row && toSession(row);
    },
    async take(idHash) {
      const row = await db.deleteFrom('browser_sessions').where('id_hash', '=', idHash).returningAll().executeTakeFirst();
      return row && toSession(row);
    },
    async end(idHash) {
      await db.deleteFrom('browser_sessions').where('id_hash', '=', idHash).execute();
    },
    async endAllOf(userId, except) {
      let query = db.deleteFrom('browser_sessions').where('user_id', '=', userId);
      if (except !== undefined) query = query.where('id_hash', '!=', except);
      return Number((await query.executeTakeFirst()).numDeletedRows);
    },
    async purgeExpired() {
      const now = new Date(clock.now());
      return inBatches(async (limit) => {
        const batch = db.selectFrom('browser_sessions').select('id_hash').where('expires_at', '<', now).limit(limit);
        const result = await db.deleteFrom('browser_sessions').where('id_hash', 'in', batch).executeTakeFirst();
        return Number(result.numDeletedRows);
      });
    },
    async purgeAnonymous() {
      const cutoff = new Date(clock.now() - ANONYMOUS_GRACE_MS);
      return inBatches(async (limit) => {
        const batch = db
          .selectFrom('browser_sessions as s')
          .select('s.id_hash')
          .where('s.user_id', 'is', null)
          .where('s.created_at', '<', cutoff)
          .where(({ not, exists, selectFrom }) => not(exists(selectFrom('interactions as i').select('i.id_hash').whereRef('i.session_hash', '=', 's.id_hash'))))
          // Nor one that waits for its second factor after a correct password (/account): the code may take minutes.
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('pending_second_factors as p')
                  .select('p.session_hash')
                  .whereRef('p.session_hash', '=', 's.id_hash')
                  .where('p.expires_at', '>', cutoff),
              ),
            ),
          )
          .limit(limit);
        const result = await db.deleteFrom('browser_sessions').where('id_hash', 'in', batch).executeTakeFirst();
        return Number(result.numDeletedRows);
      });
    },
  };
}

export function toSession(row: {
  id_hash: string;
  sid: string;
  user_id: string | null;
  auth_time: Date | null;
  csrf_token: string;
  expires_at: Date;
}): BrowserSession {
  return {
    idHash: row.id_hash,
    sid: row.sid,
    userId: row.user_id,
    authTime: row.auth_time === null ? null : Math.floor(row.auth_time.getTime() / 1000),
    csrfToken: row.csrf_token,
    expiresAt: row.expires_at,
  };
}
