// Custom claims: a registered scope maps user attributes (users.attributes) into the access tokens of its
// resource server and/or into the id_token and /userinfo (docs/resource-servers.md, "Claims"). An attribute
// can never become a claim the server sets itself (RESERVED_CLAIMS) or one the OpenID Connect scopes release
// (STANDARD_CLAIMS): `gatehouse users set-attribute` and `resource-servers create --claim` refuse such names,
// and issuance ignores them again here, whatever the database holds (defence in depth).
import type { ResourceScope } from '../../storage/repositories/resource-servers-repository.js';

/** Claims of RFC 7519 4.1, RFC 9068 2.2, RFC 9449 6, OIDC Core 2 and 3.1.3.6 that only the server sets. */
const RESERVED_CLAIMS: ReadonlySet<string> = new Set([
  'iss',
  'sub',
  'aud',
  'exp',
  'iat',
  'nbf',
  'jti',
  'client_id',
  'scope',
  'cnf',
  'auth_time',
  'acr',
  'amr',
  'nonce',
  'azp',
  'at_hash',
  'c_hash',
  'sid',
  'typ',
  'act',
  'may_act',
  'events',
  'sub_jwk',
]);

/** OIDC Core 5.1: the standard claims, released only by the OIDC scopes (user-claims.ts). */
const STANDARD_CLAIMS: ReadonlySet<string> = new Set([
  'name',
  'given_name',
  'family_name',
  'middle_name',
  'nickname',
  'preferred_username',
  'profile',
  'picture',
  'website',
  'email',
  'email_verified',
  'gender',
  'birthdate',
  'zoneinfo',
  'locale',
  'phone_number',
  'phone_number_verified',
  'address',
  'updated_at',
]);

/** The attribute (and claim) name pattern: what a JWT claim name and a CLI argument can carry without surprise. */
const ATTRIBUTE_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;

/** Why a name cannot be a custom claim, or undefined when it can. */
export function claimNameProblem(name: string): string | undefined {
  if (!ATTRIBUTE_NAME.test(name)) return 'is not an attribute name (a letter or _, then letters, digits and _ . : -, at most 64)';
  if (RESERVED_CLAIMS.has(name)) return 'is a reserved claim the server sets itself';
  if (STANDARD_CLAIMS.has(name)) return 'is a standard OpenID Connect claim (released by the profile, email, address and phone scopes)';
  // Property names every JavaScript object inherits: never keys of a claims object.
  if (name === '__proto__' || name === 'constructor' || name === 'prototype') return 'is not allowed';
  return undefined;
}

export type ClaimTarget = 'access_token' | 'id_token';

/**
 * `attribute → value` for every attribute the granted scopes map into `target`. Scopes not granted, missing
 * attributes and names that may not be custom claims release nothing.
 */
export function mappedClaims(
  definitions: readonly ResourceScope[],
  granted: readonly string[],
  target: ClaimTarget,
  attributes: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  for (const scope of definitions) {
    if (!granted.includes(scope.name)) continue;
    for (const name of scope.claims[target] ?? []) {
      if (claimNameProblem(name) !== undefined) continue;
      if (!Object.hasOwn(attributes, name)) continue;
      const value = attributes[name];
      if (value !== null && value !== undefined) claims[name] = value;
    }
  }
  return claims;
}
