// What a dynamically registered client may hold (RFC 7591 3: the initial access token may carry the
// server's registration policy). Anyone holding a token can register, so by default a client gets only
// what a user grants it at the consent screen: the user-facing grants and the OIDC scopes. A grant without a
// user (client_credentials) or a resource-API scope needs an operator's explicit allowance on the token;
// a service client with API scopes is otherwise an operator's job (`gatehouse clients create`).
import { DEVICE_CODE_GRANT, type GrantType } from '../../storage/repositories/clients-repository.js';
import { OIDC_SCOPES } from '../../scopes.js';
import type { ClientMetadata } from '../clients/metadata.js';
import { ClientMetadataError } from '../clients/metadata.js';
import { refusedAtRegistration } from '../admin-access.js';

export interface RegistrationPolicy {
  /** Grant types allowed beyond the defaults. */
  readonly grantTypes: readonly string[];
  /** Scopes allowed beyond the OIDC ones. */
  readonly scopes: readonly string[];
}

// The device flow is user-facing like the code flow: the user approves it on the consent page.
const DEFAULT_REGISTRATION_GRANTS: readonly GrantType[] = ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT];
export const STRICT_POLICY: RegistrationPolicy = { grantTypes: [], scopes: [] };

const allowedGrant = (policy: RegistrationPolicy, grant: string) =>
  DEFAULT_REGISTRATION_GRANTS.includes(grant as GrantType) || policy.grantTypes.includes(grant);
// Every scope that is not an OIDC scope is treated as an API scope, so a scope added to the catalogue later
// is restricted from the start.
const allowedScope = (policy: RegistrationPolicy, scope: string) => (OIDC_SCOPES as readonly string[]).includes(scope) || policy.scopes.includes(scope);

/** Throws RFC 7591 invalid_client_metadata when the metadata asks for more than the policy allows. */
export function enforceRegistrationPolicy(metadata: Pick<ClientMetadata, 'grantTypes' | 'scopes'>, policy: RegistrationPolicy): void {
  const admin = refusedAtRegistration(metadata.scopes);
  if (admin.length > 0) throw new ClientMetadataError('invalid_client_metadata', `scope ${admin.join(' ')} is never granted by registration`);
  const grants = metadata.grantTypes.filter((g) => !allowedGrant(policy, g));
  if (grants.length > 0) throw new ClientMetadataError('invalid_client_metadata', `grant type ${grants.join(', ')} is not allowed by the initial access token`);
  const scopes = metadata.scopes.filter((s) => !allowedScope(policy, s));
  if (scopes.length > 0) throw new ClientMetadataError('invalid_client_metadata', `scope ${scopes.join(' ')} is not allowed by the initial access token`);
}
