// A user signs out (the logout page, or "sign out" on /account): in one transaction the session ends, the
// logout tokens of its clients are queued (its grants name it by sid and outlive its row), and — when it was
// signed in — the audit event `session.ended` is written, which is also the `session.ended` webhook. Ending
// another of one's own sessions on /account does the same, and so does another account signing in over it
// in the same browser (sign-in-session.ts).
import type { AuditSink } from '../audit/audit-sink.js';
import type { Clock } from '../clock.js';
import type { OutboxWriter } from '../outbox/writer.js';
import type { Store } from '../storage/store.js';
import type { BrowserSession } from '../storage/repositories/browser-sessions-repository.js';
import { announceLogout } from './backchannel-logout.js';

/** What ending a session needs: the database, the clock, where logout tokens go, and the audit sink. */
export interface SignOutDeps {
  store: Store;
  clock: Clock;
  outbox: Pick<OutboxWriter, 'enqueue'>;
  audit: AuditSink;
}

/** Why a signed-in session ended, in the `session.ended` event's details. */
export type SessionEndReason = 'signed_out' | 'ended_from_account' | 'another_account_signed_in';

/**
 * What follows a signed-in session's end, in `tx`, the transaction that ended it: the logout tokens of its
 * clients and `session.ended` naming its sid. `by`: who ended it, when not its own user (another account
 * signing in over it).
 */
export async function announceSessionEnded(
  core: SignOutDeps,
  tx: Store,
  session: { sid: string; userId: string },
  reason: SessionEndReason,
  by: string = session.userId,
): Promise<void> {
  await announceLogout(core, tx, { sid: session.sid });
  await core.audit.emit(
    {
      type: 'session.ended',
      actor: { kind: 'user', userId: by },
      resource: 'session',
      subject: session.userId,
      details: { sid: session.sid, reason },
    },
    { tx },
  );
}

export const signOut =
  (core: SignOutDeps) =>
  (session: BrowserSession): Promise<void> =>
    core.store.transaction(async (tx) => {
      // What was deleted, not what the page read: of two sign-outs at once only one announces.
      const ended = await tx.browserSessions.take(session.idHash);
      if (ended?.userId) await announceSessionEnded(core, tx, { sid: ended.sid, userId: ended.userId }, 'signed_out');
    });

/**
 * A user ends another of their own sessions on /account: the session must be theirs (nothing is announced
 * otherwise). Its sid, as the account repository's endSession answers; undefined when nothing ended.
 */
export const endOwnSession =
  (core: SignOutDeps) =>
  (userId: string, idHash: string): Promise<string | undefined> =>
    core.store.transaction(async (tx) => {
      const sid = await tx.account.endSession(userId, idHash);
      if (sid !== undefined) await announceSessionEnded(core, tx, { sid, userId }, 'ended_from_account');
      return sid;
    });
