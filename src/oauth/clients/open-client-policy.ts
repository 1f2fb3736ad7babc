// What a client nobody registered by hand may hold (docs/agents.md): one read from a Client ID Metadata
// Document, or one that registered itself without an initial access token (REGISTRATION=open). Such a client
// is public (or, for a metadata document, private_key_jwt with a jwks_uri: the host proves itself with keys it
// publishes, never a secret we would have to hand out), asks a user at the consent page for everything it gets,
// and is limited to the operator's OPEN_CLIENT_SCOPES and OPEN_CLIENT_RESOURCES. Operator-only scopes and
// client_credentials are never among them, whatever the settings say.
import type { Config } from '../../config.js';
import { DEVICE_CODE_GRANT, type GrantType } from '../../storage/repositories/clients-repository.js';
import type { ResourceCatalogue } from '../resources/registry.js';
import { ClientMetadataError } from './metadata.js';

export type OpenClientPolicyConfig = Pick<Config, 'OPEN_CLIENT_SCOPES' | 'OPEN_CLIENT_RESOURCES'>;

/** Grants a user approves; client_credentials (no user) is never one of them. */
export const OPEN_CLIENT_GRANTS: readonly GrantType[] = ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT];

/** Refuses client metadata outside the policy (RFC 7591 invalid_client_metadata). */
export const refuse = (message: string): never => {
  throw new ClientMetadataError('invalid_client_metadata', message);
};

/** The scopes the policy allows that the catalogue knows and that are never operator-only. */
export function openClientScopes(config: OpenClientPolicyConfig, catalogue: ResourceCatalogue): string[] {
  return config.OPEN_CLIENT_SCOPES.filter((s) => catalogue.isKnown(s) && !catalogue.isOperatorOnly(s));
}

/** Refuses a grant type outside OPEN_CLIENT_GRANTS, naming it. */
export function checkOpenClientGrants(grantTypes: readonly string[]): void {
  const refused = grantTypes.filter((g) => !OPEN_CLIENT_GRANTS.includes(g as GrantType));
  if (refused.length > 0) refuse(`grant type ${refused.join(', ')} is not allowed for a client that is not registered by an operator`);
}

/**
 * The scope of an open client: what it asked for (the whole allowed set when it asked for nothing), which must
 * lie inside the allowed set — `strict` refuses anything else (a registration), otherwise the rest is dropped
 * (a metadata document may list scopes for other servers too).
 */
export function openClientScope(requested: string[], allowed: readonly string[], catalogue: ResourceCatalogue, strict: boolean): string[] {
  if (requested.length === 0) return [...allowed];
  const operatorOnly = requested.filter((s) => catalogue.isOperatorOnly(s));
  if (operatorOnly.length > 0) refuse(`scope ${operatorOnly.join(' ')} is operator-only: it is never granted to a self-registered or metadata-document client`);
  const outside = requested.filter((s) => !allowed.includes(s));
  if (strict && outside.length > 0) refuse(`scope ${outside.join(' ')} is not allowed for self-registered clients; allowed: ${allowed.join(' ')}`);
  return requested.filter((s) => allowed.includes(s));
}
