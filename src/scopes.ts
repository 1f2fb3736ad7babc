// The scopes both faces read. The OpenID Connect scopes (OIDC Core 5.4 and 11), with the plain words the
// consent page shows, and those of the two built-in resource servers, /v1 and the admin API (below), are
// defined in code; every other scope belongs to a registered resource server (src/oauth/resources/registry.ts).
// The built-ins' scopes live here, not in their faces, because the authorization server registers them at
// start (src/admin-services/built-in-resource-servers.ts) and must not import a face to do so.
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

// The scopes the resource API /v1 checks, with the plain words the consent page shows. The API checks
// them; on first start they are registered as the scopes of the /v1 resource server (docs/resource-servers.md),
// and from then on the registry is what the authorization server grants from.
export const API_SCOPES = {
  'users:read': 'Read your account',
  'users:write': 'Change your account',
  'orders:read': 'See your orders',
  'orders:write': 'Place and cancel orders for you',
  'payments:read': 'See your payments',
  'payments:write': 'Make payments for you',
  'reports:read': 'Read your reports',
  'reports:write': 'Create reports',
} as const;

export type ApiScope = keyof typeof API_SCOPES;

// The admin API's scopes and audience: read by the authorization server (who may hold them, which audience
// a token gets: oauth/admin-access.ts) and by the admin API and its documentation, so they live here.
const ADMIN_SCOPES = ['admin:read', 'admin:write'] as const;
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
