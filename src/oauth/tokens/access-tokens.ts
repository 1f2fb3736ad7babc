// Access tokens: ES256 JWTs with `typ: at+jwt` and the RFC 9068 claims
// (iss, sub, aud, exp, iat, jti, client_id, scope, + auth_time when a user is present, + cnf.jkt when DPoP-bound).
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { KeyService } from '../../crypto/keys.js';
import { formatScope } from '../scopes.js';

export interface AccessTokenInput {
  /** The user id, or the client id for client_credentials. */
  sub: string;
  clientId: string;
  scope: readonly string[];
  /** Epoch seconds of the user's authentication, when a user is present. */
  authTime?: number;
  /** RFC 8707 resource; defaults to the API audience. */
  audience?: string;
  /** RFC 9449 DPoP key thumbprint. */
  cnfJkt?: string;
}

export interface IssuedAccessToken {
  token: string;
  jti: string;
  expiresIn: number;
  expiresAt: Date;
}

export interface AccessTokenIssuer {
  issue(input: AccessTokenInput): Promise<IssuedAccessToken>;
}

export function accessTokenIssuer(deps: {
  keys: Pick<KeyService, 'sign'>;
  clock: Clock;
  config: Pick<Config, 'ISSUER' | 'API_AUDIENCE' | 'ACCESS_TOKEN_TTL'>;
}): AccessTokenIssuer {
  const { keys, clock, config } = deps;
  return {
    async issue(input) {
      const iat = Math.floor(clock.now() / 1000);
      const exp = iat + config.ACCESS_TOKEN_TTL;
      const jti = randomUUID();
      const token = await keys.sign(
        {
          iss: config.ISSUER,
          sub: input.sub,
          aud: input.audience ?? config.API_AUDIENCE,
          exp,
          iat,
          jti,
          client_id: input.clientId,
          scope: formatScope(input.scope),
          ...(input.authTime !== undefined ? { auth_time: input.authTime } : {}),
          ...(input.cnfJkt ? { cnf: { jkt: input.cnfJkt } } : {}),
        },
        { alg: 'ES256', typ: 'at+jwt' },
      );
      return { token, jti, expiresIn: config.ACCESS_TOKEN_TTL, expiresAt: new Date(exp * 1000) };
    },
  };
}
