// The scope catalogue: OIDC scopes and the resource API's scopes, with the plain words the
// consent page shows. Discovery's scopes_supported and every scope check read this one list.
export const OIDC_SCOPES = ['openid', 'profile', 'email', 'address', 'phone', 'offline_access'] as const;
export const API_SCOPES = [
  'users:read',
  'users:write',
  'orders:read',
  'orders:write',
  'payments:read',
  'payments:write',
  'reports:read',
  'reports:write',
] as const;

export type OidcScope = (typeof OIDC_SCOPES)[number];
export type ApiScope = (typeof API_SCOPES)[number];
export type Scope = OidcScope | ApiScope;

export const ALL_SCOPES: readonly Scope[] = [...OIDC_SCOPES, ...API_SCOPES];

export const scopeDescriptions: Record<Scope, string> = {
  openid: 'Confirm who you are (your account identifier)',
  profile: 'Your name and profile details',
  email: 'Your email address',
  address: 'Your postal address',
  phone: 'Your phone number',
  offline_access: 'Stay connected when you are not using the application',
  'users:read': 'Read your account',
  'users:write': 'Change your account',
  'orders:read': 'See your orders',
  'orders:write': 'Place and cancel orders for you',
  'payments:read': 'See your payments',
  'payments:write': 'Make payments for you',
  'reports:read': 'Read your reports',
  'reports:write': 'Create reports',
};

export const isScope = (value: string): value is Scope => (ALL_SCOPES as readonly string[]).includes(value);
export const isApiScope = (value: string): value is ApiScope => (API_SCOPES as readonly string[]).includes(value);

/** RFC 6749 3.3: space-delimited, case-sensitive; empty values and duplicates collapse. */
export function parseScope(raw: string | undefined): string[] {
  if (!raw) return [];
  return [...new Set(raw.split(' ').filter(Boolean))];
}

export const formatScope = (scopes: readonly string[]): string => scopes.join(' ');
