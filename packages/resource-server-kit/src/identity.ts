import type { ActorClaim } from './access-token.js';

/** Who a request acts for, as established by a verified access token. */
export interface Identity {
  /** `user`: a token issued through a user's sign-in; `service`: client_credentials (sub = client_id). */
  kind: 'user' | 'service';
  /** The user id for user tokens; the client id for service tokens. */
  sub: string;
  clientId: string;
  scopes: ReadonlySet<string>;
  jti: string;
  /** Epoch seconds when the token expires. */
  exp: number;
  /** RFC 9449: the JWK thumbprint the token is bound to (cnf.jkt); such a token needs a DPoP proof. */
  boundKey?: string;
  /** How the user signed in (OIDC acr, RFC 8176 amr) and when (epoch seconds), when the token says. */
  acr?: string;
  amr?: readonly string[];
  authTime?: number;
  /** RFC 8693: who acts on the subject's behalf, when the token was obtained by delegation. */
  act?: ActorClaim;
}
