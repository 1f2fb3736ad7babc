// The user's claims released per scope (OIDC Core 5.4), shared by the id_token and /userinfo.
// `openid` alone releases only `sub`. Claims without a value are omitted (OIDC Core 5.3.2); claim types
// follow OIDC Core 5.1: booleans are booleans and updated_at is a number of seconds.
import type { UserRecord } from '../../storage/repositories/users-repository.js';

export type UserClaims = Record<string, unknown>;

const present = (claims: UserClaims): UserClaims => Object.fromEntries(Object.entries(claims).filter(([, v]) => v !== null && v !== undefined));

const claimsOfScope: Record<string, (user: UserRecord) => UserClaims> = {
  profile: (u) => ({
    name: u.name,
    given_name: u.given_name,
    family_name: u.family_name,
    updated_at: Math.floor(u.updatedAt.getTime() / 1000),
  }),
  email: (u) => (u.email ? { email: u.email, email_verified: u.email_verified } : {}),
  address: (u) => ({ address: u.address }),
  phone: (u) => (u.phone_number ? { phone_number: u.phone_number, phone_number_verified: u.phone_number_verified } : {}),
};

/** `sub` plus the claims the granted scopes release. */
export function userClaims(user: UserRecord, scope: readonly string[]): UserClaims {
  const released = scope.flatMap((s) => Object.entries(present(claimsOfScope[s]?.(user) ?? {})));
  return { sub: user.id, ...Object.fromEntries(released) };
}
