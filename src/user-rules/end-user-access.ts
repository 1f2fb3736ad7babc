// Ending everything a user is signed in with: the browser sessions of the login pages, every grant
// (refresh-token family) with the access tokens issued under it, which go to the revocation list, and the
// authorization codes not yet redeemed (a code issued a moment ago would otherwise start a new family) —
// and, first, a logout token queued for every client of the sessions that end (docs/backchannel-logout.md).
import type { Clock } from '../clock.js';
import type { Db } from '../storage/database.js';
import { browserSessionsRepository } from '../storage/browser-sessions-repository.js';
import { authorizationCodesRepository } from '../storage/authorization-codes-repository.js';
import { grantsRepository } from '../storage/grants-repository.js';
import type { OutboxWriter } from '../outbox/writer.js';
import { announceLogout } from './backchannel-logout.js';

export interface UserAccessDeps {
  db: Db;
  clock: Clock;
  /** Where logout tokens are queued (in `db`, the change's transaction); without it none are sent. */
  outbox?: Pick<OutboxWriter, 'enqueue'> | undefined;
}

/** `keepSession`: the hash of the browser session the change was made from, which stays signed in. */
export async function endUserAccess(deps: UserAccessDeps, userId: string, keepSession?: string): Promise<void> {
  if (deps.outbox) await announceLogout({ outbox: deps.outbox, clock: deps.clock }, deps.db, { userId, exceptSession: keepSession });
  await browserSessionsRepository(deps.db, deps.clock).endAllOf(userId, keepSession);
  await authorizationCodesRepository(deps.db, deps.clock).discardUnredeemedOf(userId);
  await grantsRepository(deps.db, deps.clock).revoke({ userId });
}
