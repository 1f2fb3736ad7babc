// Who a resource-API request acts for, as established by bearer-token validation (src/resource-server/auth/).
// Scope says what kind of thing the client may do; object-level access (own objects only for user
// tokens) is decided separately by each resource.
export interface Principal {
  /** `user`: a token issued through a user's login; `service`: client_credentials. */
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
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}
