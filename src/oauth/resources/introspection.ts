// RFC 7662 for resource servers: a resource server authenticates at /introspect with its own credentials
// (the client created with it) and learns about every live access token whose audience is its identifier —
// whoever the token was issued to. Any other token (another audience, a refresh token, revoked, expired,
// unknown) is {"active": false}: a resource server learns nothing about tokens that are not for it.
// docs/resource-servers.md
import type { BearerVerifier } from '../issued-tokens/bearer-access-token.js';
import { introspectionOf } from '../issued-tokens/access-token-type.js';
import type { IntrospectionResult } from '../token-type-handler.js';
import type { ResourceRegistry } from './registry.js';
import { resourceOfAudience } from '../issued-tokens/token-audience.js';

export interface ResourceServerIntrospection {
  /** The identifier of the resource server this client introspects for, if it is one. */
  audienceOf(clientId: string): Promise<string | undefined>;
  introspect(token: string, audience: string): Promise<IntrospectionResult | { active: false }>;
}

export function resourceServerIntrospection(deps: {
  resources: Pick<ResourceRegistry, 'catalogue'>;
  verify: BearerVerifier;
  issuer: string;
}): ResourceServerIntrospection {
  return {
    async audienceOf(clientId) {
      return (await deps.resources.catalogue()).servers.find((s) => s.clientId === clientId)?.identifier;
    },
    async introspect(token, audience) {
      const claims = await deps.verify(token);
      // Its one resource is this server; the /userinfo audience beside it (a user's openid token) is no other resource server.
      return claims && resourceOfAudience(claims.aud, deps.issuer) === audience ? introspectionOf(claims) : { active: false };
    },
  };
}
