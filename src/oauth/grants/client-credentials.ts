// RFC 6749 4.4: client_credentials — a confidential client acting for itself. The token's subject is the
// client; scope must be a subset of the client's API scopes (no OIDC scopes: there is no user); no refresh
// token and no id_token. RFC 8707: `resource`, when present, must name the API audience.
import { OAuthError } from '../../http/errors.js';
import type { Client } from '../../storage/clients-repository.js';
import { isApiScope, parseScope, formatScope } from '../scopes.js';
import type { AccessTokenIssuer } from '../tokens/access-tokens.js';
import type { Grant } from './grant.js';
import type { GrantDeps } from './index.js';

function grantedScope(requested: string | undefined, client: Client): string[] {
  const allowed = client.scopes.filter(isApiScope);
  // RFC 6749 3.3: without a scope parameter the client's registered API scopes are the default.
  const scope = requested === undefined ? allowed : parseScope(requested);
  const refused = scope.filter((s) => !allowed.includes(s as (typeof allowed)[number]));
  if (refused.length > 0) throw new OAuthError('invalid_scope', `Scope not allowed for client_credentials: ${refused.join(' ')}.`);
  if (scope.length === 0) throw new OAuthError('invalid_scope', 'No API scope is registered for this client.');
  return scope;
}

function audience(resource: string | undefined, apiAudience: string): string {
  if (resource !== undefined && resource !== apiAudience) throw new OAuthError('invalid_target', 'The resource is not served here.');
  return apiAudience;
}

export function clientCredentialsGrant(deps: { issuer: AccessTokenIssuer; apiAudience: string }): Grant {
  return {
    type: 'client_credentials',
    parameters: ['scope', 'resource'],
    async handle({ client, params, dpopJkt }) {
      if (client.type !== 'confidential') throw new OAuthError('unauthorized_client', 'Public clients cannot use client_credentials.');
      const scope = grantedScope(params.scope, client);
      const issued = await deps.issuer.issue({
        sub: client.id,
        clientId: client.id,
        scope,
        audience: audience(params.resource, deps.apiAudience),
        ...(dpopJkt ? { cnfJkt: dpopJkt } : {}),
      });
      return { access_token: issued.token, token_type: dpopJkt ? 'DPoP' : 'Bearer', expires_in: issued.expiresIn, scope: formatScope(scope) };
    },
  };
}

export const clientCredentials = (deps: GrantDeps): Grant =>
  clientCredentialsGrant({ issuer: deps.accessTokens, apiAudience: deps.config.API_AUDIENCE });
