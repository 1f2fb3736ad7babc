// Access tokens: ES256 JWTs with `typ: at+jwt` and the RFC 9068 claims
// (iss, sub, aud, exp, iat, jti, client_id, scope, + auth_time when a user is present, + cnf.jkt when DPoP-bound).
// `aud` is the one resource the token is for; a user token granted `openid` also names the issuer's
// /userinfo (aud = [resource, {ISSUER}/userinfo]), the only tokens /userinfo accepts (docs/token-formats.md).
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { KeyService } from '../../crypto/keys.js';
import { formatScope, userinfoAudience } from '../../scopes.js';

export interface AccessTokenInput {
  /** The user id, or the client id for client_credentials. */
  sub: string;
  clientId: string;
  scope: readonly string[];
  /** Epoch seconds of the user's authentication, when a user is present. */
  authTime?: number;
  /** RFC 8707 resource; defaults to the API audience. */
  audience?: string;
  /** The resource server's access-token lifetime in seconds; never longer than the prepared one. */
  lifetime?: number;
  /** Claims a scope maps from user attributes (resources/claims.ts); reserved claims are never among them. */
  extraClaims?: Record<string, unknown>;
  /** RFC 9449 DPoP key thumbprint. */
  cnfJkt?: string;
  /** RFC 9068 2.2.1: how the user authenticated (amr, acr), for introspection and resource servers. */
  authentication?: { amr: readonly string[]; acr: string } | undefined;
}

export interface IssuedAccessToken {
  token: string;
  jti: string;
  expiresIn: number;
  expiresAt: Date;
}

/** The identity and lifetime of a token about to be signed, so it can be recorded before it exists. */
export interface PreparedAccessToken {
  jti: string;
  iat: number;
  expiresIn: number;
  expiresAt: Date;
}

export interface AccessTokenIssuer {
  prepare(): PreparedAccessToken;
  /** Signs a token; `prepared` when its jti was already recorded (the user grants record it in their one statement). */
  issue(input: AccessTokenInput, prepared?: PreparedAccessToken): Promise<IssuedAccessToken>;
}

export function accessTokenIssuer(deps: {
  keys: Pick<KeyService, 'sign'>;
  clock: Clock;
  config: Pick<Config, 'ISSUER' | 'API_AUDIENCE' | 'ACCESS_TOKEN_TTL'>;
}): AccessTokenIssuer {
  const { keys, clock, config } = deps;
  const prepare = (): PreparedAccessToken => {
    const iat = Math.floor(clock.now() / 1000);
    return { jti: randomUUID(), iat, expiresIn: config.ACCESS_TOKEN_TTL, expiresAt: new Date((iat + config.ACCESS_TOKEN_TTL) * 1000) };
  };
  const userinfo = userinfoAudience(config.ISSUER);
  /** RFC 9068 2.2 allows an array: the resource, and /userinfo only for a user who granted `openid`. */
  const audienceOf = (input: AccessTokenInput): string | string[] => {
    const resource = input.audience ?? config.API_AUDIENCE;
    return input.authTime !== undefined && input.scope.includes('openid') && resource !== userinfo ? [resource, userinfo] : resource;
  };
  return {
    prepare,
    async issue(input, prepared = prepare()) {
      const { jti, iat } = prepared;
      const expiresIn = Math.min(input.lifetime ?? prepared.expiresIn, prepared.expiresIn);
      const exp = iat + expiresIn;
      const expiresAt = new Date(exp * 1000);
      const token = await keys.sign(
        {
          ...input.extraClaims,
          iss: config.ISSUER,
          sub: input.sub,
          aud: audienceOf(input),
          exp,
          iat,
          jti,
          client_id: input.clientId,
          scope: formatScope(input.scope),
          ...(input.authTime !== undefined ? { auth_time: input.authTime } : {}),
          ...(input.authentication ? { amr: [...input.authentication.amr], acr: input.authentication.acr } : {}),
          ...(input.cnfJkt ? { cnf: { jkt: input.cnfJkt } } : {}),
        },
        { alg: 'ES256', typ: 'at+jwt' },
      );
      return { token, jti, expiresIn, expiresAt };
    },
  };
}
