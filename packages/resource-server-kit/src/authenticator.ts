// Access token → Identity: the verified-token cache first, full verification on a miss, and the revocation
// checker (when there is one) either way. The checker is asked on every request, cached token or not: Gatehouse
// passes its in-memory revocation feed, `gatehouse protect` its copy of the feed followed over HTTP. When the
// checker cannot vouch (`known` answers undefined) a first use asks `isRevoked` at once and a cached token
// re-checks at most once per `recheckMs`; that re-check also drops a token whose signing key is no longer published.
import type { AccessTokenClaims, AccessTokenVerifier } from './access-token.js';
import { bearerRefusal, unavailableRefusal, type ChallengeContext, type Refusal } from './challenge.js';
import type { Clock } from './clock.js';
import type { Identity } from './identity.js';
import type { KeySource } from './key-source.js';
import { verifiedTokenCache } from './verified-token-cache.js';

/** What a revocation check needs of a verified access token. */
export interface PresentedAccessToken {
  jti: string;
  clientId: string;
  /** Epoch seconds. */
  iat: number;
}

/**
 * Revocation as the resource server knows it. `isRevoked` is the authoritative answer (it may throw when it
 * cannot be had: the request is then refused with 503, fail closed); `known`, when present, answers from
 * memory — true (revoked), false (vouched not revoked) or undefined (cannot vouch).
 */
export interface RevocationChecker {
  isRevoked(token: PresentedAccessToken): Promise<boolean>;
  known?(token: PresentedAccessToken): boolean | undefined;
}

export type Authentication = { ok: true; identity: Identity; claims: AccessTokenClaims } | Refusal;

export interface Authenticator {
  authenticate(token: string): Promise<Authentication>;
}

interface CachedToken {
  identity: Identity;
  claims: AccessTokenClaims;
  checkedAt: number;
  recheck?: Promise<'key_retired' | 'revoked' | undefined>;
}

export interface AuthenticatorOptions {
  verifier: AccessTokenVerifier;
  keySource: Pick<KeySource, 'publishedKids'>;
  /** Without one, a token is good until it expires (keep access tokens short-lived). */
  revocations?: RevocationChecker | undefined;
  clock: Clock;
  /** How stale a cached token's revocation status may be (ms). 0 re-checks on every request. */
  recheckMs?: number;
  cacheSize?: number;
  challenge?: ChallengeContext;
}

export const DEFAULT_REVOCATION_RECHECK_MS = 1000;

const REVOKED = 'The access token has been revoked.';

export function bearerAuthenticator(options: AuthenticatorOptions): Authenticator {
  const { verifier, keySource, revocations, clock } = options;
  const context = options.challenge ?? {};
  const recheckMs = options.recheckMs ?? DEFAULT_REVOCATION_RECHECK_MS;
  const cache = verifiedTokenCache<CachedToken>(clock, options.cacheSize);

  const presented = (claims: AccessTokenClaims): PresentedAccessToken => ({ jti: claims.jti, clientId: claims.client_id, iat: claims.iat });
  const revokedRefusal = () => bearerRefusal('invalid_token', REVOKED, 'revoked', context);

  /** Why a cached token no longer holds, or undefined while it does. */
  const stillValid = async (entry: CachedToken, revocationKnown: boolean): Promise<'key_retired' | 'revoked' | undefined> => {
    // A JWKS that cannot be fetched right now says nothing about retirement; revocation still applies.
    const kids = await keySource.publishedKids().catch(() => undefined);
    if (kids && !kids.has(entry.claims.kid)) return 'key_retired';
    if (!revocations || revocationKnown) return undefined;
    return (await revocations.isRevoked(presented(entry.claims))) ? 'revoked' : undefined;
  };

  async function fromCache(token: string, entry: CachedToken): Promise<Authentication> {
    const known = revocations?.known?.(presented(entry.claims));
    if (known === true) {
      cache.delete(token);
      return revokedRefusal();
    }
    if (clock.now() - entry.checkedAt >= recheckMs) {
      if (!entry.recheck) {
        entry.recheck = stillValid(entry, known === false).finally(() => {
          entry.checkedAt = clock.now();
          entry.recheck = undefined;
        });
      }
      let refusal: 'key_retired' | 'revoked' | undefined;
      try {
        refusal = await entry.recheck;
      } catch (error) {
        return unavailableRefusal('revocations_unavailable', error);
      }
      if (refusal) {
        cache.delete(token);
        return refusal === 'revoked' ? revokedRefusal() : bearerRefusal('invalid_token', REVOKED, 'key_retired', context);
      }
    }
    return { ok: true, identity: entry.identity, claims: entry.claims };
  }

  return {
    async authenticate(token) {
      const cached = cache.get(token);
      if (cached) return fromCache(token, cached);
      const checkedAt = clock.now();
      const verification = await verifier.verify(token);
      if (!verification.ok) {
        return verification.reason === 'invalid'
          ? bearerRefusal('invalid_token', verification.description, verification.refusal, context)
          : unavailableRefusal('keys_unavailable', verification.cause);
      }
      const { claims } = verification;
      if (revocations) {
        try {
          if (await revocations.isRevoked(presented(claims))) return revokedRefusal();
        } catch (error) {
          return unavailableRefusal('revocations_unavailable', error);
        }
      }
      const identity = identityOf(claims);
      cache.set(token, { identity, claims, checkedAt }, claims.exp * 1000);
      return { ok: true, identity, claims };
    },
  };
}

/** RFC 9068 §2.2: `sub` is the user for user tokens and the client itself for client_credentials. */
export function identityOf(claims: AccessTokenClaims): Identity {
  const isService = claims.auth_time === undefined && claims.sub === claims.client_id;
  return {
    kind: isService ? 'service' : 'user',
    sub: claims.sub,
    clientId: claims.client_id,
    scopes: new Set(claims.scope),
    jti: claims.jti,
    exp: claims.exp,
    ...(claims.cnf_jkt !== undefined ? { boundKey: claims.cnf_jkt } : {}),
    ...(claims.acr !== undefined ? { acr: claims.acr } : {}),
    ...(claims.amr !== undefined ? { amr: claims.amr } : {}),
    ...(claims.auth_time !== undefined ? { authTime: claims.auth_time } : {}),
    ...(claims.act !== undefined ? { act: claims.act } : {}),
  };
}
