// Records are kept only while they can still matter: single-use jtis (client assertions, DPoP proofs,
// revoked access tokens) until the tokens they guard have expired; browser sessions, interactions,
// authorization codes, ended refresh-token families and initial access tokens once their lifetime is over
// (each repository's purge says exactly when). Periodic tasks of the job queue drop the rest, so these
// tables do not grow with every login and refresh (scheduled by the composition root, src/services.ts).
// What anyone can create without logging in — interactions and the anonymous sessions that carry them —
// is purged every minute, so a flood of /authorize requests costs storage only for as long as an
// interaction lives (plus a few minutes), never for a day or a session lifetime.
import { passkeysRepository } from '../storage/passkeys-repository.js';
import type { OAuthDeps } from './deps.js';
import { clientAssertionsRepository } from '../storage/client-assertions-repository.js';
import { dpopProofsRepository } from '../storage/dpop-proofs-repository.js';
import { revocationsRepository } from '../storage/revocations-repository.js';
import { browserSessionsRepository } from '../storage/browser-sessions-repository.js';
import { interactionsRepository } from '../storage/interactions-repository.js';
import { initialAccessTokensRepository } from '../storage/initial-access-tokens-repository.js';
import { deviceAuthorizationsRepository } from '../storage/device-authorizations-repository.js';
import { authorizationCodesRepository } from '../storage/authorization-codes-repository.js';
import { grantsRepository } from '../storage/grants-repository.js';
import { clientsRepository } from '../storage/clients-repository.js';

export const OAUTH_PURGE_INTERVAL_MS = 10 * 60_000;
/** Unused open clients are counted in days (OPEN_CLIENT_UNUSED_TTL is at least one): an hourly look is plenty. */
export const OPEN_CLIENTS_PURGE_INTERVAL_MS = 60 * 60_000;
export const PENDING_LOGIN_PURGE_INTERVAL_MS = 60_000;

const sequence = (steps: (() => Promise<number>)[]) => async (): Promise<number> => {
  let purged = 0;
  for (const step of steps) purged += await step();
  return purged;
};

/** Deletes every record of the authorization server whose lifetime is over; returns how many. */
export function expiredRecordsPurge(core: Pick<OAuthDeps, 'db' | 'clock'>): () => Promise<number> {
  const { db, clock } = core;
  const grants = grantsRepository(db, clock);
  // Families go before codes: a redeemed code is kept exactly as long as its grant.
  return sequence([
    ...[clientAssertionsRepository, dpopProofsRepository, revocationsRepository].map((make) => make(db, clock).purgeExpired),
    browserSessionsRepository(db, clock).purgeExpired,
    initialAccessTokensRepository(db, clock).purgeExpired,
    grants.purgeEnded,
    authorizationCodesRepository(db, clock).purgeExpired,
    deviceAuthorizationsRepository(db, clock).purgeExpired,
  ]);
}

/** Deletes expired interactions, then the anonymous sessions they leave behind, and expired passkey challenges; returns how many. */
export function pendingLoginsPurge(core: Pick<OAuthDeps, 'db' | 'clock'>): () => Promise<number> {
  const { db, clock } = core;
  return sequence([
    interactionsRepository(db, clock).purgeExpired,
    browserSessionsRepository(db, clock).purgeAnonymous,
    passkeysRepository(db, clock).purgeExpiredChallenges,
  ]);
}

/**
 * Deletes self-registered and metadata-document clients (docs/agents.md) that have had no live grant for
 * OPEN_CLIENT_UNUSED_TTL since they were registered or their document last read: anyone can create them, so
 * they must not pile up. A metadata-document client comes back by itself the next time its URL is used.
 */
export function unusedOpenClientsPurge(core: Pick<OAuthDeps, 'db' | 'clock' | 'config'>): () => Promise<number> {
  const { db, clock, config } = core;
  return () => clientsRepository(db, clock).purgeUnusedOpenClients(new Date(clock.now() - config.OPEN_CLIENT_UNUSED_TTL * 1000));
}
