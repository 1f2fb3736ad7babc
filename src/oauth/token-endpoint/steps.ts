// The steps of the token endpoint (RFC 6749 3.2, 5), each one check that throws an RFC 6749 5.2 error.
// The endpoint never switches on grant_type: it looks the grant up and hands it its declared parameters.
import { OAuthError } from '../../http/errors.js';
import type { Client } from '../../storage/repositories/clients-repository.js';
import type { FormParameters } from '../form-parameters.js';
import type { Grant } from '../grant-types/grant-type.js';

export function requireGrantType(params: FormParameters): string {
  const grantType = params.grant_type;
  if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is required.');
  return grantType;
}

/** password, implicit and anything unknown are simply absent from the registry (RFC 9700 2.4). */
export function supportedGrant(grantType: string, grants: ReadonlyMap<string, Grant>): Grant {
  const grant = grants.get(grantType);
  if (!grant) throw new OAuthError('unsupported_grant_type', 'This grant type is not supported.');
  return grant;
}

export function checkClientRegisteredFor(client: Client, grant: Grant): void {
  if (!client.grantTypes.includes(grant.type)) {
    throw new OAuthError('unauthorized_client', `The client is not registered for ${grant.type}.`);
  }
}

/** Parameters the grant did not declare are dropped (node-oidc-provider's allowlist), so none leak into it. */
export function declaredParameters(params: FormParameters, grant: Grant): Partial<Record<string, string>> {
  const out: Partial<Record<string, string>> = {};
  for (const name of grant.parameters) if (params[name] !== undefined) out[name] = params[name];
  return out;
}
