// RFC 6749 4.4: client_credentials — a confidential client acting for itself. The token's subject is the
// client; scope must be a subset of the client's API scopes (no OIDC scopes: there is no user); no refresh
// token and no id_token. RFC 8707: `resource`, when present, must name the API audience.
import type { Core } from '../../core.js';
import { OAuthError } from '../../http/errors.js';
import type { Client } from '../../storage/clients-repository.js';
import { isApiScope, parseScope, formatScope } from '../scopes.js';
import { accessTokenIssuer, type AccessTokenIssuer } from '../tokens/access-tokens.js';
import type { Grant } from './grant.js';
import { clientCredentialsAudience, isAdminScope } from '../admin-access.js';

function grantedScope(requested: string | undefined, client: Client): string[] {
  const allowed: string[] = client.scopes.filter((s) => isApiScope(s) || isAdminScope(s));
  // RFC 6749 3.3: without a scope parameter the client's registered API scopes are the default.
  const scope = requested === undefined ? allowed : parseScope(requested);
  const refused = scope.filter((s) => !allowed.includes(s));
  if (refused.length > 0) throw new OAuthError('invalid_scope', `Scope not allowed for client_credentials: ${refused.join(' ')}.`);
  if (scope.length === 0) throw new OAuthError('invalid_scope', 'No API scope is registered for this client.');
  return scope;
}

export function clientCredentialsGrant(deps: { issuer: AccessTokenIssuer; apiAudience: string; issuerUrl: string }): Grant {
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
        audience: clientCredentialsAudience(scope, params.resource, { issuer: deps.issuerUrl, apiAudience: deps.apiAudience }),
        ...(dpopJkt ? { cnfJkt: dpopJkt } : {}),
      });
      return { access_token: issued.token, token_type: dpopJkt ? 'DPoP' : 'Bearer', expires_in: issued.expiresIn, scope: formatScope(scope) };
    },
  };
}

export const clientCredentials = (core: Core): Grant =>
  clientCredentialsGrant({ issuer: accessTokenIssuer(core), apiAudience: core.config.API_AUDIENCE, issuerUrl: core.config.ISSUER });
