// The scopes both faces read. The OpenID Connect scopes (OIDC Core 5.4 and 11), with the plain words the
// consent page shows, and the admin API's (below) are defined in code; every other scope belongs to a
// registered resource server (src/oauth/resources/registry.ts).
export const OIDC_SCOPES = ['openid', 'profile', 'email', 'address', 'phone', 'offline_access'] as const;

export type OidcScope = (typeof OIDC_SCOPES)[number];

export const oidcScopeDescriptions: Record<OidcScope, string> = {
  openid: 'Confirm who you are (your account identifier)',
  profile: 'Your name and profile details',
  email: 'Your email address',
  address: 'Your postal address',
  phone: 'Your phone number',
  offline_access: 'Stay connected when you are not using the application',
};

export const isOidcScope = (value: string): value is OidcScope => (OIDC_SCOPES as readonly string[]).includes(value);

/** RFC 6749 3.3: space-delimited, case-sensitive; empty values and duplicates collapse. */
export function parseScope(raw: string | undefined): string[] {
  if (!raw) return [];
  return [...new Set(raw.split(' ').filter(Boolean))];
}

export const formatScope = (scopes: readonly string[]): string => scopes.join(' ');

// The admin API's scopes and audience: read by the authorization server (who may hold them, which audience
// a token gets: oauth/admin-access.ts) and by the admin API and its documentation, so they live here.
export const ADMIN_SCOPES = ['admin:read', 'admin:write'] as const;
export type AdminScope = (typeof ADMIN_SCOPES)[number];

export const isAdminScope = (value: string): value is AdminScope => (ADMIN_SCOPES as readonly string[]).includes(value);

export const adminAudience = (issuer: string): string => `${issuer}/admin`;

/**
 * The audience that lets an access token into /userinfo. A user token granted `openid` names it next to its
 * resource (aud = [resource, this]); /userinfo accepts no other token (RFC 8707, RFC 9700 2.3;
 * docs/security/tokens-and-operator-views.md). Not a resource server: it can be neither registered nor requested.
 */
export const userinfoAudience = (issuer: string): string => `${issuer}/userinfo`;

export const adminScopeDescriptions: Record<AdminScope, string> = {
  'admin:read': 'Read Gatehouse configuration, users and the audit log (admin API)',
  'admin:write': 'Change Gatehouse configuration and users (admin API)',
};
