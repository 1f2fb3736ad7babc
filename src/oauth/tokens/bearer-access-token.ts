// Validation of our own access tokens presented as bearer credentials (RFC 6750, RFC 9068 4): signature
// against our JWKS with the algorithm pinned to ES256 (never read from the header), explicit typ at+jwt,
// iss, aud = the API, exp/iat with CLOCK_SKEW, and the jti not revoked. Anything else — including refresh
// tokens and id_tokens — is simply not a valid access token.
import { createLocalJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { KeyService } from '../../crypto/keys.js';
import type { RevocationsRepository } from '../../storage/revocations-repository.js';

export interface AccessTokenClaims extends JWTPayload {
  sub: string;
  jti: string;
  exp: number;
  iat: number;
  client_id: string;
  scope?: string;
  auth_time?: number;
  cnf?: { jkt?: string };
}

export type BearerVerifier = (token: string) => Promise<AccessTokenClaims | undefined>;

export function bearerAccessTokenVerifier(deps: {
  keys: Pick<KeyService, 'jwks'>;
  clock: Clock;
  config: Pick<Config, 'ISSUER' | 'API_AUDIENCE' | 'CLOCK_SKEW'>;
  revocations: Pick<RevocationsRepository, 'isRevoked'>;
}): BearerVerifier {
  // jose imports a JWKS's keys once per key set: keep one set while the published kids stay the same,
  // instead of re-importing the public keys on every request.
  let cached: { kids: string; set: ReturnType<typeof createLocalJWKSet> } | undefined;
  const keySet = async () => {
    const jwks = await deps.keys.jwks();
    const kids = jwks.keys.map((k) => k.kid).join(' ');
    if (cached?.kids !== kids) cached = { kids, set: createLocalJWKSet(jwks) };
    return cached.set;
  };
  return async (token) => {
    if (token.split('.').length !== 3) return undefined;
    let claims: AccessTokenClaims;
    try {
      ({ payload: claims } = await jwtVerify<AccessTokenClaims>(token, await keySet(), {
        algorithms: ['ES256'],
        typ: 'at+jwt',
        issuer: deps.config.ISSUER,
        audience: deps.config.API_AUDIENCE,
        requiredClaims: ['sub', 'jti', 'exp', 'iat', 'client_id'],
        clockTolerance: deps.config.CLOCK_SKEW,
        currentDate: new Date(deps.clock.now()),
      }));
    } catch {
      return undefined;
    }
    if (typeof claims.jti !== 'string' || (await deps.revocations.isRevoked(claims.jti))) return undefined;
    return claims;
  };
}
