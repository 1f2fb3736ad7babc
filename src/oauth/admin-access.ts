// INTERIM (until the resource-server registry exists): the admin API `{ISSUER}/admin` as the one extra
// audience client_credentials can issue for. The scopes and the audience are in src/scopes.ts (the admin API
// and its documentation read them too; it may not import the authorization server); the rules about them
// live in this module so the registry (a built-in, operator-only resource server with scopes admin:read and
// admin:write) can replace it in one place:
//   - admin scopes are operator-only: a client holding them is a confidential client_credentials-only
//     client made by `gatehouse clients create` or the admin API, never by /register (RFC 7591) and never
//     a public client; /authorize does not know them (they are not among the scopes it offers), so no user
//     token can carry them;
//   - a token has one audience: admin scopes alone → `{ISSUER}/admin`; admin scopes mixed with API
//     scopes → invalid_scope; RFC 8707 `resource`, when sent, must name that audience.
import { OAuthError } from '../http/errors.js';
import { adminAudience, isAdminScope } from '../scopes.js';

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

/**
 * The audience of a client_credentials token for these granted scopes: the admin API for admin scopes,
 * the resource API otherwise; `resource` (RFC 8707) must name it.
 */
export function clientCredentialsAudience(scope: readonly string[], resource: string | undefined, audiences: { issuer: string; apiAudience: string }): string {
  const admin = scope.filter(isAdminScope);
  if (admin.length > 0 && admin.length !== scope.length) throw new OAuthError('invalid_scope', 'Admin scopes cannot be requested together with other scopes.');
  const audience = admin.length > 0 ? adminAudience(audiences.issuer) : audiences.apiAudience;
  if (resource !== undefined && resource !== audience) throw new OAuthError('invalid_target', 'The resource is not served here.');
  return audience;
}
