// Announcing ended sessions to the clients that asked (OpenID Connect Back-Channel Logout 1.0,
// docs/backchannel-logout.md): one outbox message per client and session, written in the transaction that
// ends the sessions — so a logout token is sent exactly when the logout committed — and called BEFORE the
// grants or user go (afterwards nothing says which clients were signed in; a session's own row may be gone
// already, its grants name it by sid). The token itself is
// signed by the outbox's `backchannel_logout` channel when it is delivered (src/oauth/backchannel-logout/).
import type { Clock } from '../clock.js';
import type { OutboxWriter } from '../outbox/writer.js';
import type { Store } from '../storage/store.js';
import type { EndingSessions } from '../storage/repositories/backchannel-logout-repository.js';

export const BACKCHANNEL_LOGOUT_CHANNEL = 'backchannel_logout';

export interface LogoutAnnouncement {
  outbox: Pick<OutboxWriter, 'enqueue'>;
  clock: Clock;
}

/** Returns how many logout tokens were queued. `tx` must be the transaction that ends the sessions. */
export async function announceLogout(deps: LogoutAnnouncement, tx: Store, ending: EndingSessions): Promise<number> {
  const targets = await tx.logoutTargets(ending, new Date(deps.clock.now()));
  let queued = 0;
  for (const target of targets) {
    // A client that requires sid learns nothing from a token without one (a grant not tied to a session).
    if (target.sessionRequired && target.sid === null) continue;
    await deps.outbox.enqueue(tx, {
      channel: BACKCHANNEL_LOGOUT_CHANNEL,
      kind: 'logout',
      recipient: target.clientId,
      payload: { sub: target.userId, ...(target.sid !== null ? { sid: target.sid } : {}) },
      // A client hears about one user's sessions in the order they ended.
      orderingKey: `${BACKCHANNEL_LOGOUT_CHANNEL}:${target.clientId}:${target.userId}`,
    });
    queued += 1;
  }
  return queued;
}
