// The OpenID Connect scopes (OIDC Core 5.4 and 11), the only scopes defined in code, with the plain words
// the consent page shows. Every other scope belongs to a registered resource server (resources/registry.ts).
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
