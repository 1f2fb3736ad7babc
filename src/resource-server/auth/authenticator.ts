// Bearer token → Principal: the verified-token cache first, full verification on a miss, and the
// revocation list either way. The list is the app's in-memory copy (storage/revocation-feed.ts), asked on
// every request, cached token or not: a revocation committed anywhere takes effect within the feed's
// promise, one written here by the time its write returns. When the copy cannot vouch (listener down) a
// first use reads the database and a cached token re-checks it at most once per `recheckMs`; that
// re-check also drops a token whose signing key is no longer published.
import type { Clock } from '../../clock.js';
import type { RevocationsRepository } from '../../storage/repositories/revocations-repository.js';
import type { RevocationCheck } from '../../storage/repositories/revocation-feed.js';
import type { Principal } from '../../http/principal.js';
import { ProblemError } from '../../http/errors.js';
import type { AccessTokenClaims, AccessTokenVerification, AccessTokenVerifier } from '../../tokens/access-token-verifier.js';
import type { KeySource } from '../../tokens/key-source.js';
import { verifiedTokenCache } from './verified-token-cache.js';
import { bearerError } from './challenges.js';

export interface Authenticator {
  authenticate(token: string): Promise<Principal>;
}

interface CachedToken {
  principal: Principal;
  kid: string;
  iat: number;
  checkedAt: number;
  recheck?: Promise<'key_retired' | 'revoked' | undefined>;
}

export interface AuthenticatorOptions {
  verifier: AccessTokenVerifier;
  keySource: Pick<KeySource, 'publishedKids'>;
  /** The app's revocation feed; a bare repository (reads on every check) works too. */
  revocations: Pick<RevocationsRepository, 'isRevoked'> & Partial<Pick<RevocationCheck, 'known'>>;
  clock: Clock;
  /** How stale a cached token's revocation status may be (ms). 0 re-checks on every request. */
  recheckMs?: number;
  cacheSize?: number;
}

export const DEFAULT_REVOCATION_RECHECK_MS = 1000;

export function bearerAuthenticator(options: AuthenticatorOptions): Authenticator {
  const { verifier, keySource, revocations, clock } = options;
  const recheckMs = options.recheckMs ?? DEFAULT_REVOCATION_RECHECK_MS;
  const cache = verifiedTokenCache<CachedToken>(clock, options.cacheSize);

  const presented = (entry: CachedToken) => ({ jti: entry.principal.jti, clientId: entry.principal.clientId, iat: entry.iat });

  /** Why a cached token no longer holds, or undefined while it does. */
  const stillValid = async (entry: CachedToken, revocationKnown: boolean): Promise<'key_retired' | 'revoked' | undefined> => {
    // A JWKS that cannot be fetched right now says nothing about retirement; revocation still applies.
    const kids = await keySource.publishedKids().catch(() => undefined);
    if (kids && !kids.has(entry.kid)) return 'key_retired';
    return revocationKnown || !(await revocations.isRevoked(presented(entry))) ? undefined : 'revoked';
  };

  async function fromCache(token: string, entry: CachedToken): Promise<Principal> {
    const known = revocations.known?.(presented(entry));
    if (known === true) {
      cache.delete(token);
      throw revoked();
    }
    if (clock.now() - entry.checkedAt >= recheckMs) {
      if (!entry.recheck) {
        entry.recheck = stillValid(entry, known === false).finally(() => {
          entry.checkedAt = clock.now();
          entry.recheck = undefined;
        });
      }
      const refusal = await entry.recheck;
      if (refusal) {
        cache.delete(token);
        throw refusal === 'revoked' ? revoked() : bearerError('invalid_token', 'The access token has been revoked.', refusal);
      }
    }
    return entry.principal;
  }

  return {
    async authenticate(token) {
      const cached = cache.get(token);
      if (cached) return fromCache(token, cached);
      const checkedAt = clock.now();
      const claims = acceptedClaims(await verifier.verify(token));
      if (await revocations.isRevoked({ jti: claims.jti, clientId: claims.client_id, iat: claims.iat })) throw revoked();
      const principal = principalOf(claims);
      cache.set(token, { principal, kid: claims.kid, iat: claims.iat, checkedAt }, claims.exp * 1000);
      return principal;
    },
  };
}

const revoked = () => bearerError('invalid_token', 'The access token has been revoked.', 'revoked');

/** The resource API's answer to a refused token: an RFC 6750 §3 challenge, or 503 when the keys are unavailable. */
function acceptedClaims(verification: AccessTokenVerification): AccessTokenClaims {
  if (verification.ok) return verification.claims;
  if (verification.reason === 'invalid') throw bearerError('invalid_token', verification.description, verification.refusal);
  throw new ProblemError('service-unavailable', 'The token signing keys are temporarily unavailable.', {
    headers: { 'retry-after': '5' },
    cause: verification.cause,
  });
}

/** RFC 9068 §2.2: `sub` is the user for user tokens and the client itself for client_credentials. */
function principalOf(claims: AccessTokenClaims): Principal {
  const isService = claims.auth_time === undefined && claims.sub === claims.client_id;
  return {
    kind: isService ? 'service' : 'user',
    sub: claims.sub,
    clientId: claims.client_id,
    scopes: new Set(claims.scope),
    jti: claims.jti,
    exp: claims.exp,
    ...(claims.cnf_jkt !== undefined ? { boundKey: claims.cnf_jkt } : {}),
  };
}
