// RFC 6749 4.4: client_credentials — a confidential client acting for itself. The token's subject is the
// client; scope must be a subset of the client's registered API scopes (no OIDC scopes: there is no user);
// no refresh token and no id_token. RFC 8707: the token is for one resource server (resources/audience.ts)
// and carries only its scopes; operator-only scopes are granted here and nowhere else.
import { OAuthError } from '../../http/errors.js';
import type { Client } from '../../storage/repositories/clients-repository.js';
import { accessTokenLifetime, chooseAudience } from '../resources/audience.js';
import type { ResourceCatalogue, ResourceRegistry } from '../resources/registry.js';
import { parseScope, formatScope } from '../../scopes.js';
import type { AccessTokenIssuer } from '../issued-tokens/access-tokens.js';
import type { Grant } from './grant-type.js';
import type { GrantDeps } from './index.js';

function requestedScope(requested: string | undefined, client: Client, catalogue: ResourceCatalogue): string[] {
  const allowed = client.scopes.filter((s) => catalogue.ownerOf(s) !== undefined);
  // RFC 6749 3.3: without a scope parameter the client's registered API scopes are the default.
  const scope = requested === undefined ? allowed : parseScope(requested);
  const refused = scope.filter((s) => !allowed.includes(s));
  if (refused.length > 0) throw new OAuthError('invalid_scope', `Scope not allowed for client_credentials: ${refused.join(' ')}.`);
  if (scope.length === 0) throw new OAuthError('invalid_scope', 'No API scope is registered for this client.');
  return scope;
}

function clientCredentialsGrant(deps: {
  issuer: AccessTokenIssuer;
  resources: Pick<ResourceRegistry, 'catalogue'>;
  fallbackAudience: string;
  accessTokenTtl: number;
}): Grant {
  return {
    type: 'client_credentials',
    parameters: ['scope', 'resource'],
    async handle({ client, params, dpopJkt }) {
      if (client.type !== 'confidential') throw new OAuthError('unauthorized_client', 'Public clients cannot use client_credentials.');
      const catalogue = await deps.resources.catalogue();
      const requested = requestedScope(params.scope, client, catalogue);
      const { audience, scope, server } = chooseAudience({
        catalogue,
        scope: requested,
        requested: params.resource,
        defaultResource: client.defaultResource,
        fallbackAudience: deps.fallbackAudience,
      });
      if (scope.length === 0) throw new OAuthError('invalid_scope', 'The client holds no scope of this resource.');
      const issued = await deps.issuer.issue({
        sub: client.id,
        clientId: client.id,
        scope,
        audience,
        lifetime: accessTokenLifetime(server, deps.accessTokenTtl),
        ...(dpopJkt ? { cnfJkt: dpopJkt } : {}),
      });
      return { access_token: issued.token, token_type: dpopJkt ? 'DPoP' : 'Bearer', expires_in: issued.expiresIn, scope: formatScope(scope) };
    },
  };
}

export const clientCredentials = (deps: GrantDeps): Grant =>
  clientCredentialsGrant({
    issuer: deps.accessTokens,
    resources: deps.resources,
    fallbackAudience: deps.config.API_AUDIENCE,
    accessTokenTtl: deps.config.ACCESS_TOKEN_TTL,
  });
