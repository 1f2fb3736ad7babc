// Access tokens as seen by /revoke and /introspect: our own at+jwt (RFC 9068), verified against our JWKS
// with the algorithm fixed (never from the header), owned by the asking client, and not revoked by jti.
import { createLocalJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { Core } from '../../core.js';
import type { RevocationsRepository } from '../../storage/revocations-repository.js';
import { revocationsRepository } from '../../storage/revocations-repository.js';
import type { IntrospectionResult, TokenTypeHandler } from '../token-types.js';

interface AccessTokenClaims extends JWTPayload {
  sub: string;
  jti: string;
  exp: number;
  iat: number;
  client_id: string;
  scope?: string;
  auth_time?: number;
  cnf?: { jkt: string };
}

export function accessTokenType(deps: {
  keys: Pick<Core['keys'], 'jwks'>;
  clock: Core['clock'];
  config: Pick<Core['config'], 'ISSUER' | 'API_AUDIENCE' | 'CLOCK_SKEW'>;
  revocations: Pick<RevocationsRepository, 'revoke' | 'isRevoked'>;
}): TokenTypeHandler {
  /** The claims of a valid access token issued to `clientId`, or undefined for anything else. */
  async function verify(token: string, clientId: string): Promise<AccessTokenClaims | undefined> {
    if (token.split('.').length !== 3) return undefined;
    try {
      const { payload } = await jwtVerify<AccessTokenClaims>(token, createLocalJWKSet(await deps.keys.jwks()), {
        algorithms: ['ES256'],
        typ: 'at+jwt',
        issuer: deps.config.ISSUER,
        audience: deps.config.API_AUDIENCE,
        requiredClaims: ['sub', 'jti', 'exp', 'iat', 'client_id'],
        clockTolerance: deps.config.CLOCK_SKEW,
        currentDate: new Date(deps.clock.now()),
      });
      return payload.client_id === clientId && typeof payload.jti === 'string' ? payload : undefined;
    } catch {
      return undefined;
    }
  }

  return {
    hint: 'access_token',
    async revoke(token, client) {
      const claims = await verify(token, client.id);
      if (!claims) return false;
      await deps.revocations.revoke([{ jti: claims.jti, expiresAt: new Date(claims.exp * 1000) }]);
      return true;
    },
    async introspect(token, client): Promise<IntrospectionResult | undefined> {
      const claims = await verify(token, client.id);
      if (!claims || (await deps.revocations.isRevoked(claims.jti))) return undefined;
      return {
        active: true,
        scope: claims.scope ?? '',
        client_id: claims.client_id,
        sub: claims.sub,
        exp: claims.exp,
        iat: claims.iat,
        iss: claims.iss!,
        ...(claims.aud !== undefined ? { aud: claims.aud } : {}),
        token_type: claims.cnf ? 'DPoP' : 'Bearer',
        jti: claims.jti,
        ...(claims.auth_time !== undefined ? { auth_time: claims.auth_time } : {}),
        ...(claims.cnf ? { cnf: claims.cnf } : {}),
      };
    },
  };
}

export const accessTokens = (core: Core): TokenTypeHandler =>
  accessTokenType({ keys: core.keys, clock: core.clock, config: core.config, revocations: revocationsRepository(core.db, core.clock) });
