// What a client holding admin scopes may be. The admin API `{ISSUER}/admin` is a built-in, operator-only
// resource server (src/admin-services/built-in-resource-servers.ts), so the registry already keeps its scopes away
// from /register and from user tokens and gives its tokens their audience; these rules add what a client
// made by an operator must still be: a confidential client_credentials-only client holding admin scopes
// alone (a token has one audience, so mixing them with API scopes could never yield a token).
import { isAdminScope } from '../scopes.js';

/** Why this client metadata may not hold admin scopes, or undefined when it may (or asks for none). */
export function adminScopeProblem(metadata: { type: string; grantTypes: readonly string[]; scopes: readonly string[] }): string | undefined {
  const admin = metadata.scopes.filter(isAdminScope);
  if (admin.length === 0) return undefined;
  if (metadata.type !== 'confidential') return 'admin scopes are for confidential clients only';
  if (metadata.grantTypes.length !== 1 || metadata.grantTypes[0] !== 'client_credentials') return 'admin scopes require grant_types client_credentials only';
  if (admin.length !== metadata.scopes.length) return 'admin scopes cannot be combined with other scopes (a token has one audience)';
  return undefined;
}

/** /register: admin scopes are never granted by dynamic registration, whatever the initial access token allows. */
export function refusedAtRegistration(scopes: readonly string[]): string[] {
  return scopes.filter(isAdminScope);
}
