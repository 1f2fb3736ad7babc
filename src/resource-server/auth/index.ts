// The resource-server module: bearer-token validation for Gatehouse's own resource APIs (/v1, /admin/v1), built
// on the resource-server kit (packages/resource-server-kit, @gatehouse/resource-server) — the same checks
// `gatehouse protect` and any API using the kit make. `resourceServerAuth(services)` wires the in-process
// pieces (the composition root calls it once per app): this process's keys (or a remote JWKS), the app's
// revocation feed, the database's spent DPoP proofs and the deployment's nonces.
import { resourceServer, type ResourceServer } from '@gatehouse/resource-server';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { KeyService } from '../../crypto/keys.js';
import type { RevocationsRepository } from '../../storage/repositories/revocations-repository.js';
import type { RevocationCheck } from '../../storage/repositories/revocation-feed.js';
import { problemAuthenticator, type Authenticator } from './authenticator.js';
import { keyServiceSource, remoteKeySource, type KeySource } from '../../tokens/key-source.js';
import type { DpopDeps } from '../../tokens/dpop/proof.js';

export { bearerAuthenticator, type Authenticator } from './authenticator.js';
export { localKeySource, type KeySource } from '../../tokens/key-source.js';
export { accessTokenVerifier } from '../../tokens/access-token-verifier.js';
export { authenticateRequests, refuseTokenInBody, requireAnyScope, requireScope, securityOfRoute, authenticatedPrincipal, type ScopeCheck } from './hooks.js';
export { canAccessUser, notFound } from './object-access.js';

export interface ResourceServerAuth {
  /** The kit's request check, bound to this app. */
  server: ResourceServer;
  /** Its token check alone, refusals as Problem Details. */
  authenticator: Authenticator;
  keySource: KeySource;
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
  core: {
    config: Config;
    clock: Clock;
    keys: KeyService;
    revocations: Pick<RevocationsRepository, 'isRevoked'> & Partial<Pick<RevocationCheck, 'known'>>;
    dpop: DpopDeps;
  },
  options: { jwksUrl?: string | undefined; recheckMs?: number; audience?: string } = {},
): ResourceServerAuth {
  const { config, clock } = core;
  const keySource = options.jwksUrl ? remoteKeySource(options.jwksUrl, refreshPolicy(config)) : inProcessKeySource(core);
  const server = resourceServer({
    issuer: config.ISSUER,
    resource: options.audience ?? config.API_AUDIENCE,
    keySource,
    revocations: core.revocations,
    ...(options.recheckMs !== undefined ? { revocationRecheckMs: options.recheckMs } : {}),
    // The htu of a proof is ISSUER plus the path; the 401s name the metadata document through the API's own hook.
    publicBaseUrl: config.ISSUER,
    resourceMetadataUrl: false,
    clockSkewSeconds: config.CLOCK_SKEW,
    maxTokenAgeSeconds: config.ACCESS_TOKEN_TTL,
    dpop: { replay: core.dpop.proofs, nonces: core.dpop.nonces, requireNonce: config.DPOP_NONCE_REQUIRED === 'all' },
    clock,
  });
  return { server, authenticator: problemAuthenticator(server.authenticator), keySource };
}
