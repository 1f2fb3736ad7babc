// Records are kept only while they can still matter: single-use jtis (client assertions, DPoP proofs,
// revoked access tokens) until the tokens they guard have expired; browser sessions, interactions,
// authorization codes, ended refresh-token families and initial access tokens once their lifetime is over
// (each repository's purge says exactly when). A periodic task of the job queue drops the rest, so these
// tables do not grow with every login and refresh.
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';
import { clientAssertionsRepository } from '../storage/client-assertions-repository.js';
import { dpopProofsRepository } from '../storage/dpop-proofs-repository.js';
import { revocationsRepository } from '../storage/revocations-repository.js';
import { browserSessionsRepository } from '../storage/browser-sessions-repository.js';
import { interactionsRepository } from '../storage/interactions-repository.js';
import { initialAccessTokensRepository } from '../storage/initial-access-tokens-repository.js';
import { grantStore } from './refresh/grant-store.js';
import { codeStore } from './codes/code-store.js';

export const OAUTH_PURGE_INTERVAL_MS = 10 * 60_000;

/** Deletes every record of the authorization server whose lifetime is over; returns how many. */
export function expiredRecordsPurge(core: Pick<Core, 'db' | 'clock'>): () => Promise<number> {
  const { db, clock } = core;
  const grants = grantStore(db, clock);
  // Families go before codes: a redeemed code is kept exactly as long as its grant.
  const steps = [
    ...[clientAssertionsRepository, dpopProofsRepository, revocationsRepository].map((make) => make(db, clock).purgeExpired),
    browserSessionsRepository(db, clock).purgeExpired,
    interactionsRepository(db, clock).purgeExpired,
    initialAccessTokensRepository(db, clock).purgeExpired,
    grants.purgeEnded,
    codeStore(db, clock).purgeExpired,
  ];
  return async () => {
    let purged = 0;
    for (const step of steps) purged += await step();
    return purged;
  };
}

export function oauthHousekeeping(app: FastifyInstance, core: Core): void {
  const purge = expiredRecordsPurge(core);
  // The job queue is installed after the faces, so it is looked up once the app is ready.
  app.addHook('onReady', async () => {
    if (app.hasDecorator('jobs')) app.jobs.every('oauth-expired-purge', OAUTH_PURGE_INTERVAL_MS, purge);
  });
}
