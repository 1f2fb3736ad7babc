// The resource-server module: bearer-token validation usable inside Gatehouse or standalone against a
// remote JWKS. `resourceServerAuth(services)` wires the in-process pieces (the composition root calls it once
// per app); the parts are exported for reuse.
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { KeyService } from '../../crypto/keys.js';
import type { RevocationsRepository } from '../../storage/repositories/revocations-repository.js';
import { bearerAuthenticator, type Authenticator } from './authenticator.js';
import { keyServiceSource, remoteKeySource, type KeySource } from '../../tokens/key-source.js';
import { accessTokenVerifier } from '../../tokens/access-token-verifier.js';
import { proofOfPossession, type PossessionCheck } from './proof-of-possession.js';
import type { DpopDeps } from '../../tokens/dpop/proof.js';

export { bearerAuthenticator, type Authenticator } from './authenticator.js';
export { localKeySource, type KeySource } from '../../tokens/key-source.js';
export { accessTokenVerifier } from '../../tokens/access-token-verifier.js';
export { authenticateRequests, refuseTokenInBody, requireAnyScope, requireScope, securityOfRoute, authenticatedPrincipal, type ScopeCheck } from './hooks.js';
export { canAccessUser, notFound } from './object-access.js';

export interface ResourceServerAuth {
  authenticator: Authenticator;
  keySource: KeySource;
  possession: PossessionCheck;
}

// A remote JWKS is kept no longer than its cache time (a rotated key signs only after every instance has
// served it that long), at least a second, at most five minutes; unknown kids refetch at most every 10 s.
const refreshPolicy = (config: Config) => {
  const maxAgeMs = Math.min(Math.max(config.JWKS_CACHE_TTL, 1), 300) * 1000;
  return { maxAgeMs, cooldownMs: Math.min(maxAgeMs, 10_000) };
};

/** This process's own signing keys as a key source (the API, and the AS's endpoints that take access tokens). */
export const inProcessKeySource = (core: { keys: KeyService }): KeySource => keyServiceSource(core.keys);

/** In-process keys by default; `JWKS_URL` points the API at a remote authorization server's JWKS. */
export function resourceServerAuth(
  core: { config: Config; clock: Clock; keys: KeyService; revocations: Pick<RevocationsRepository, 'isRevoked'>; dpop: DpopDeps },
  options: { jwksUrl?: string | undefined; recheckMs?: number; audience?: string } = {},
): ResourceServerAuth {
  const { config, clock } = core;
  const keySource = options.jwksUrl ? remoteKeySource(options.jwksUrl, refreshPolicy(config)) : inProcessKeySource(core);
  const verifier = accessTokenVerifier({ keySource, clock, config, ...(options.audience !== undefined ? { audience: options.audience } : {}) });
  const authenticator = bearerAuthenticator({
    verifier,
    keySource,
    revocations: core.revocations,
    clock,
    ...(options.recheckMs !== undefined ? { recheckMs: options.recheckMs } : {}),
  });
  const possession = proofOfPossession({ ...core.dpop, publicBaseUrl: config.ISSUER, requireNonce: config.DPOP_NONCE_REQUIRED === 'all' });
  return { authenticator, keySource, possession };
}
