// OpenID Connect id_tokens (OIDC Core 2, 3.1.3.6): addressed to the client, signed with the client's
// registered id_token_signed_response_alg (RS256 unless it chose ES256) under a kid from our JWKS.
import { createHash } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { KeyService } from '../../crypto/keys.js';
import type { Client } from '../../storage/repositories/clients-repository.js';
import type { UserRecord } from '../../storage/repositories/users-repository.js';
import { userClaims } from './user-claims.js';

export interface IdTokenInput {
  client: Pick<Client, 'id' | 'idTokenSignedResponseAlg'>;
  user: UserRecord;
  scope: readonly string[];
  /** Epoch seconds of the login. */
  authTime: number;
  /** Echoed byte-exact when the authorization request carried one; absent otherwise. */
  nonce?: string | null;
  /** The access token issued alongside, for at_hash. */
  accessToken?: string;
  /** How the user authenticated (RFC 8176 amr, OIDC Core 2 acr), when the sign-in recorded it. */
  authentication?: Authentication | undefined;
  /** Audiences besides the client; when present, azp names the client (OIDC Core 2). */
  extraAudiences?: readonly string[];
  /** Claims the granted scopes map from user attributes (resources/claims.ts); never reserved or standard ones. */
  extraClaims?: Record<string, unknown>;
  /** The `sid` of the browser session of the sign-in (docs/backchannel-logout.md#sid). */
  sid?: string | null | undefined;
}

export interface Authentication {
  amr: readonly string[];
  acr: string;
}

export interface IdTokenIssuer {
  issue(input: IdTokenInput): Promise<string>;
}

/** OIDC Core 3.1.3.6: base64url of the left-most half of the hash of the access token's ASCII octets. */
export const atHash = (accessToken: string): string => createHash('sha256').update(accessToken, 'ascii').digest().subarray(0, 16).toString('base64url');

export function idTokenIssuer(deps: { keys: Pick<KeyService, 'sign'>; clock: Clock; config: Pick<Config, 'ISSUER' | 'ID_TOKEN_TTL'> }): IdTokenIssuer {
  const { keys, clock, config } = deps;
  return {
    async issue(input) {
      const iat = Math.floor(clock.now() / 1000);
      const audiences = [input.client.id, ...(input.extraAudiences ?? [])];
      return keys.sign(
        {
          ...input.extraClaims,
          ...userClaims(input.user, input.scope),
          iss: config.ISSUER,
          sub: input.user.id,
          aud: audiences.length === 1 ? input.client.id : audiences,
          exp: iat + config.ID_TOKEN_TTL,
          iat,
          auth_time: input.authTime,
          ...(input.authentication ? { amr: [...input.authentication.amr], acr: input.authentication.acr } : {}),
          ...(input.nonce !== undefined && input.nonce !== null ? { nonce: input.nonce } : {}),
          ...(input.sid ? { sid: input.sid } : {}),
          ...(audiences.length > 1 ? { azp: input.client.id } : {}),
          ...(input.accessToken !== undefined ? { at_hash: atHash(input.accessToken) } : {}),
        },
        { alg: input.client.idTokenSignedResponseAlg, typ: 'JWT' },
      );
    },
  };
}
