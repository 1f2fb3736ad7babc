// /revoke (RFC 7009) and /introspect (RFC 7662) ask each token type in turn; the hint only chooses the order.
// Access tokens are handled in oauth/issued-tokens/, refresh tokens by the refresh-token module.
import type { Client } from '../storage/repositories/clients-repository.js';
import type { AccessTokenClaims } from '../tokens/access-token-verifier.js';

export interface IntrospectionResult {
  active: true;
  scope: string;
  client_id: string;
  sub: string;
  exp: number;
  iat: number;
  iss: string;
  aud?: string | string[];
  token_type: 'Bearer' | 'DPoP' | 'refresh_token';
  username?: string;
  jti?: string;
  auth_time?: number;
  amr?: string[];
  acr?: string;
  cnf?: { jkt: string };
  /** RFC 8693 4.1: the actor chain of an exchanged access token. */
  act?: AccessTokenClaims['act'];
}

export interface TokenTypeHandler {
  readonly hint: 'access_token' | 'refresh_token';
  /** Revokes the token if it is of this type and belongs to `client`; returns whether it recognised the token. */
  revoke(token: string, client: Client): Promise<boolean>;
  /** The RFC 7662 answer for an active token of `client`, or undefined (unknown, inactive, or another client's). */
  introspect(token: string, client: Client): Promise<IntrospectionResult | undefined>;
}
