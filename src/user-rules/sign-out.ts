// A user signs out (the logout page, or "sign out" on /account): in one transaction the logout tokens of the
// session's clients are queued (before its row goes: the grants name it), the session ends, and — when it
// was signed in — the audit event `session.ended` is written, which is also the `session.ended` webhook.
// Ending another of one's own sessions on /account does the same.
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

export const signOut =
  (core: SignOutDeps) =>
  (session: BrowserSession): Promise<void> =>
    core.store.transaction(async (tx) => {
      if (session.userId) await announceLogout(core, tx, { sessionHash: session.idHash });
      await tx.browserSessions.end(session.idHash);
      if (session.userId) {
        await core.audit.emit({ type: 'session.ended', actor: { kind: 'user', userId: session.userId }, resource: 'session', subject: session.userId }, { tx });
      }
    });

/**
 * A user ends another of their own sessions on /account: the session must be theirs (nothing is announced
 * otherwise); its grants outlive the row, so the logout tokens are queued right after it is gone.
 */
export const endOwnSession =
  (core: SignOutDeps) =>
  (userId: string, idHash: string): Promise<boolean> =>
    core.store.transaction(async (tx) => {
      const ended = await tx.account.endSession(userId, idHash);
      if (ended) {
        await announceLogout(core, tx, { sessionHash: idHash });
        await core.audit.emit({ type: 'session.ended', actor: { kind: 'user', userId }, resource: 'session', subject: userId }, { tx });
      }
      return ended;
    });
