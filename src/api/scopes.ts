// The scopes the resource API /v1 checks, with the plain words the consent page shows. The API declares
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
