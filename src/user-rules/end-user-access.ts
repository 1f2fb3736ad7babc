// Ending everything a user is signed in with: the browser sessions of the login pages, every grant
// (refresh-token family) with the access tokens issued under it, which go to the revocation list, and the
// authorization codes not yet redeemed (a code issued a moment ago would otherwise start a new family) —
// and, first, a logout token queued for every client of the sessions that end (docs/backchannel-logout.md).
import type { Clock } from '../clock.js';
import type { Store } from '../storage/store.js';
import type { OutboxWriter } from '../outbox/writer.js';
import { announceLogout } from './backchannel-logout.js';

export interface UserAccessDeps {
  store: Store;
  clock: Clock;
  /** Where logout tokens are queued (in `db`, the change's transaction); without it none are sent. */
  outbox?: Pick<OutboxWriter, 'enqueue'> | undefined;
}

/** `keepSession`: the hash of the browser session the change was made from, which stays signed in. */
export async function endUserAccess(deps: UserAccessDeps, userId: string, keepSession?: string): Promise<void> {
  if (deps.outbox) await announceLogout({ outbox: deps.outbox, clock: deps.clock }, deps.store, { userId, exceptSession: keepSession });
  await deps.store.browserSessions.endAllOf(userId, keepSession);
  await deps.store.authorizationCodes.discardUnredeemedOf(userId);
  await deps.store.grants.revoke({ userId });
}
