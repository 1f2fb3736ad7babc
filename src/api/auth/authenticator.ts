// Bearer token → Principal: the verified-token cache first, full verification on a miss, and the
// revocation list either way. A first use checks revocation in the database exactly; a cached token
// re-checks it (and that its signing key is still published) at most once per `recheckMs`, which is
// what keeps a repeated token nearly free while a revocation or key retirement still takes effect. A
// revocation written by this process forces the re-check at once (localRevocationCount).
import type { Clock } from '../../clock.js';
import { localRevocationCount, type RevocationsRepository } from '../../storage/revocations-repository.js';
import type { Principal } from '../principal.js';
import type { AccessTokenClaims, AccessTokenVerifier } from './verify-access-token.js';
import type { KeySource } from './key-source.js';
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
  /** localRevocationCount() when it was last checked: a revocation written here since forces a re-check. */
  revocationsSeen: number;
  recheck?: Promise<boolean>;
}

export interface AuthenticatorOptions {
  verifier: AccessTokenVerifier;
  keySource: Pick<KeySource, 'publishedKids'>;
  revocations: Pick<RevocationsRepository, 'isRevoked'>;
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

  const stillValid = async (entry: CachedToken): Promise<boolean> => {
    // A JWKS that cannot be fetched right now says nothing about retirement; revocation still applies.
    const kids = await keySource.publishedKids().catch(() => undefined);
    if (kids && !kids.has(entry.kid)) return false;
    return !(await revocations.isRevoked({ jti: entry.principal.jti, clientId: entry.principal.clientId, iat: entry.iat }));
  };

  async function fromCache(token: string, entry: CachedToken): Promise<Principal> {
    if (clock.now() - entry.checkedAt >= recheckMs || entry.revocationsSeen !== localRevocationCount()) {
      if (!entry.recheck) {
        const revocationsSeen = localRevocationCount();
        entry.recheck = stillValid(entry).finally(() => {
          entry.checkedAt = clock.now();
          entry.revocationsSeen = revocationsSeen;
          entry.recheck = undefined;
        });
      }
      if (!(await entry.recheck)) {
        cache.delete(token);
        throw revoked();
      }
    }
    return entry.principal;
  }

  return {
    async authenticate(token) {
      const cached = cache.get(token);
      if (cached) return fromCache(token, cached);
      const checkedAt = clock.now();
      const revocationsSeen = localRevocationCount();
      const claims = await verifier.verify(token);
      if (await revocations.isRevoked({ jti: claims.jti, clientId: claims.client_id, iat: claims.iat })) throw revoked();
      const principal = principalOf(claims);
      cache.set(token, { principal, kid: claims.kid, iat: claims.iat, checkedAt, revocationsSeen }, claims.exp * 1000);
      return principal;
    },
  };
}

const revoked = () => bearerError('invalid_token', 'The access token has been revoked.');

/** RFC 9068 §2.2: `sub` is the user for user tokens and the client itself for client_credentials. */
export function principalOf(claims: AccessTokenClaims): Principal {
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
