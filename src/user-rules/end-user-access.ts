// Ending everything a user is signed in with: the browser sessions of the login pages, every grant
// (refresh-token family) with the access tokens issued under it, which go to the revocation list, and the
// authorization codes not yet redeemed (a code issued a moment ago would otherwise start a new family).
import type { Clock } from '../clock.js';
import type { Db } from '../storage/database.js';
import { browserSessionsRepository } from '../storage/browser-sessions-repository.js';
import { authorizationCodesRepository } from '../storage/authorization-codes-repository.js';
import { grantsRepository } from '../storage/grants-repository.js';

export interface UserAccessDeps {
  db: Db;
  clock: Clock;
}

/** `keepSession`: the hash of the browser session the change was made from, which stays signed in. */
export async function endUserAccess(deps: UserAccessDeps, userId: string, keepSession?: string): Promise<void> {
  await browserSessionsRepository(deps.db, deps.clock).endAllOf(userId, keepSession);
  await authorizationCodesRepository(deps.db, deps.clock).discardUnredeemedOf(userId);
  await grantsRepository(deps.db, deps.clock).revoke({ userId });
}
