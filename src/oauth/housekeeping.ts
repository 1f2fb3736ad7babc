// Records are kept only while they can still matter: single-use jtis (client assertions, DPoP proofs,
// revoked access tokens) until the tokens they guard have expired; browser sessions, interactions,
// authorization codes, ended refresh-token families, initial access tokens and the jtis of exchanged tokens
// (delegation_tokens) once their lifetime is over
// (each repository's purge says exactly when). Periodic tasks of the job queue drop the rest, so these
// tables do not grow with every login and refresh (scheduled by the composition root, src/services.ts).
// What anyone can create without logging in — interactions and the anonymous sessions that carry them —
// is purged every minute, so a flood of /authorize requests costs storage only for as long as an
// interaction lives (plus a few minutes), never for a day or a session lifetime.
import type { OAuthDeps } from './deps.js';

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
export function expiredRecordsPurge(core: Pick<OAuthDeps, 'store' | 'clock'>): () => Promise<number> {
  const { store } = core;
  const grants = store.grants;
  // Families go before codes: a redeemed code is kept exactly as long as its grant.
  return sequence([
    store.clientAssertions.purgeExpired,
    store.dpopProofs.purgeExpired,
    store.revocations.purgeExpired,
    store.browserSessions.purgeExpired,
    store.initialAccessTokens.purgeExpired,
    grants.purgeEnded,
    store.authorizationCodes.purgeExpired,
    store.deviceAuthorizations.purgeExpired,
    store.delegations.purgeExpiredTokens,
  ]);
}

/**
 * Deletes expired interactions, then the anonymous sessions they leave behind, expired passkey challenges and
 * expired second-factor waits (with the sealed upstream tokens of an abandoned provider sign-in); returns how many.
 */
export function pendingLoginsPurge(core: Pick<OAuthDeps, 'store' | 'clock'>): () => Promise<number> {
  const { store } = core;
  return sequence([
    store.interactions().purgeExpired,
    store.browserSessions.purgeAnonymous,
    store.passkeys.purgeExpiredChallenges,
    store.secondFactors.purgeExpiredPending,
  ]);
}

/**
 * Deletes self-registered and metadata-document clients (docs/agents.md) that have no live grant and were
 * not used (an authorization or token request: open-client-use.ts) for OPEN_CLIENT_UNUSED_TTL since they were
 * registered: anyone can create them, so they must not pile up. Reading a document again is not a use, or
 * its host could keep the rows it made for ever. A metadata-document client comes back by itself the next time its URL is used.
 */
export function unusedOpenClientsPurge(core: Pick<OAuthDeps, 'store' | 'clock' | 'config'>): () => Promise<number> {
  const { store, clock, config } = core;
  return () => store.clients.purgeUnusedOpenClients(new Date(clock.now() - config.OPEN_CLIENT_UNUSED_TTL * 1000));
}
