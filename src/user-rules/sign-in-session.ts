// Signing a browser in (docs/backchannel-logout.md#sid): the session the browser had is taken over — its row
// deleted, the cookie value changes (OWASP session fixation: the old id is never promoted) — in one
// transaction with what its end means:
// - the same account signs in again (prompt=login, max_age, a step-up): the new row keeps the old row's sid,
//   so the id_tokens the relying parties hold and the logout token that later ends the session agree, and the
//   grants of the first sign-in (which name the sid) end with it;
// - another account signs in over a signed-in session: that session ends as a sign-out does (sign-out.ts) —
//   logout tokens to its clients through the outbox, `session.ended` — and the new one gets a new sid;
// - an anonymous (pre-login) session just gives way.
// The taken row stays locked until the commit: of two sign-ins completing at once in one browser the second
// finds it gone and starts nothing (undefined), so one cookie never leads to two live sessions and the first
// session's end is announced once.
import type { BrowserSession } from '../storage/repositories/browser-sessions-repository.js';
import type { Store } from '../storage/store.js';
import { announceSessionEnded, type SignOutDeps } from './sign-out.js';

export interface SessionSignIn {
  old: BrowserSession | undefined;
  userId: string;
  /** Epoch seconds of this sign-in. */
  authTime: number;
  ttlSeconds: number;
  /**
   * What must commit with the sign-in or not at all (its `login.succeeded` event, the sign-in's amr): run in its
   * transaction once the new session exists, so a browser is never signed in without them.
   */
  within?: (tx: Store, session: BrowserSession) => Promise<void>;
}

/** The new session with the raw id for its cookie, or undefined when `old` was taken over by another sign-in meanwhile. */
export const signInSession =
  (core: SignOutDeps) =>
  ({ old, userId, authTime, ttlSeconds, within }: SessionSignIn): Promise<(BrowserSession & { id: string }) | undefined> =>
    core.store.transaction(async (tx) => {
      let sid: string | undefined;
      if (old) {
        const taken = await tx.browserSessions.take(old.idHash);
        if (!taken) return undefined;
        if (taken.userId === userId) sid = taken.sid;
        else if (taken.userId !== null) await announceSessionEnded(core, tx, { sid: taken.sid, userId: taken.userId }, 'another_account_signed_in', userId);
      }
      const started = await tx.browserSessions.start({ userId, authTime, ttlSeconds, sid });
      if (within) await within(tx, started);
      return started;
    });
