// Single-use records (client-assertion and DPoP-proof jtis) and revoked access-token jtis are kept only
// until the tokens they guard have expired; a periodic task of the job queue drops the rest.
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';
import { clientAssertionsRepository } from '../storage/client-assertions-repository.js';
import { dpopProofsRepository } from '../storage/dpop-proofs-repository.js';
import { revocationsRepository } from '../storage/revocations-repository.js';

export const OAUTH_PURGE_INTERVAL_MS = 10 * 60_000;

/** Deletes expired rows of every single-use table of the authorization server; returns how many. */
export function expiredJtiPurge(core: Pick<Core, 'db' | 'clock'>): () => Promise<number> {
  const repositories = [clientAssertionsRepository, dpopProofsRepository, revocationsRepository].map((make) => make(core.db, core.clock));
  return async () => {
    let purged = 0;
    for (const repository of repositories) purged += await repository.purgeExpired();
    return purged;
  };
}

export function oauthHousekeeping(app: FastifyInstance, core: Core): void {
  const purge = expiredJtiPurge(core);
  // The job queue is installed after the faces, so it is looked up once the app is ready.
  app.addHook('onReady', async () => {
    if (app.hasDecorator('jobs')) app.jobs.every('oauth-expired-jti-purge', OAUTH_PURGE_INTERVAL_MS, purge);
  });
}
