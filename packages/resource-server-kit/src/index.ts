// @gatehouse/resource-server: the checks a resource server makes on a Gatehouse access token, as one
// framework-free function (resourceServer().verifyRequest) and a Fastify plugin ('@gatehouse/resource-server/fastify').
// Gatehouse's own /v1 and `gatehouse protect` use this package; docs/protect.md describes both.
export {
  resourceServer,
  headerOf,
  metadataPathOf,
  type ResourceServer,
  type ResourceServerOptions,
  type RequestToVerify,
  type RequestHeaders,
  type Verification,
} from './resource-server.js';
export {
  accessTokenVerifier,
  ACCESS_TOKEN_ALGORITHMS,
  type AccessTokenClaims,
  type AccessTokenVerification,
  type AccessTokenVerifier,
  type AccessTokenVerifierOptions,
  type ActorClaim,
  type TokenRefusal,
} from './access-token.js';
export {
  bearerAuthenticator,
  identityOf,
  DEFAULT_REVOCATION_RECHECK_MS,
  type Authentication,
  type Authenticator,
  type AuthenticatorOptions,
  type PresentedAccessToken,
  type RevocationChecker,
} from './authenticator.js';
export {
  bearerRefusal,
  dpopRefusal,
  insufficientScopeRefusal,
  missingTokenRefusal,
  safeDescription,
  stepUpRefusal,
  ambiguousPathRefusal,
  routeConflictRefusal,
  unavailableRefusal,
  DPOP_CHALLENGE_ALGS,
  type ChallengeContext,
  type ChallengeError,
  type Refusal,
  type RefusalReason,
} from './challenge.js';
export { systemClock, type Clock } from './clock.js';
export type { Identity } from './identity.js';
export { localKeySource, remoteKeySource, kidsOf, type KeySource, type RefreshPolicy } from './key-source.js';
export { verifiedTokenCache, type VerifiedTokenCache } from './verified-token-cache.js';
export {
  parseRoute,
  routeRequirement,
  normalisedPath,
  normalisePath,
  requestTarget,
  type RequestTargetOptions,
  isAmbiguous,
  RouteSyntaxError,
  type AmbiguousPath,
  type RequestTarget,
  type RouteRequirement,
  type RouteRule,
} from './routes.js';
export { overridingMethods, METHOD_OVERRIDE_HEADERS, METHOD_OVERRIDE_PARAMETER, type InvalidOverride } from './method-override.js';
export { dpopNonces, DPOP_NONCE_WINDOW_SECONDS, type DpopNonces } from './dpop/nonce.js';
export {
  DPOP_ALGS,
  DpopNonceError,
  DpopProofError,
  memoryProofReplay,
  ProofReplayFull,
  DpopKeyMismatch,
  type MemoryProofReplayOptions,
  sha256,
  verifyDpopProof,
  type DpopDeps,
  type DpopRequest,
  type ProofReplayStore,
} from './dpop/proof.js';
export {
  authorizationCredentials,
  dpopFailureHeaders,
  dpopRefusalLog,
  possessionFailure,
  type PossessionFailure,
  type PresentationScheme,
  type PresentedRequest,
  type PresentedToken,
} from './dpop/possession.js';
export { revocationFollower, RevocationsUnavailable, type RevocationFollower, type RevocationFollowerOptions } from './revocation-follower.js';
export { revocationList, DEFAULT_REVOCATION_LIST_ENTRIES, type RevocationList, type RevocationListOptions } from './revocation-list.js';
