// A user as the admin API shows it (never the password or its hash), its validators, and PATCH (RFC 7396)
// applied to its writable members.
import { strongEtag, type Validators } from '../../http/conditional.js';
import type { User } from '../../storage/repositories/users-repository.js';
import type { PasskeySummary, SecondFactors } from '../../storage/repositories/user-admin-repository.js';
import { userView, type UserFields } from '../../admin-services/users-service.js';
import { mergePatched } from '../merge-patched.js';
import { UserInputSchema, WRITABLE_FIELDS, type UserInputBody } from './schemas.js';

/** synced: a multi-device (backed-up) passkey; device-bound: one that never leaves its authenticator. */
const passkeyView = (p: PasskeySummary) => ({
  name: p.name,
  kind: p.deviceType === 'multiDevice' ? 'synced' : 'device-bound',
  created_at: p.createdAt.toISOString(),
  last_used_at: p.lastUsedAt?.toISOString() ?? null,
});

export const representUser = (user: User, factors: SecondFactors) => ({
  ...userView(user),
  given_name: user.given_name,
  family_name: user.family_name,
  address: user.address,
  has_second_factor: factors.kinds.length > 0,
  second_factors: [...factors.kinds],
  passkeys: factors.passkeys.map(passkeyView),
  attributes: user.attributes,
});

/**
 * Strong, from the row's version and the second factors' stamp: adding, removing or using a factor on
 * /account (or at sign-in) does not touch the user row, yet changes the representation, so the stamp moves
 * with every such change (the admin-API-shows-every-factor rule, docs/security/). Every attribute write (admin
 * API or CLI) bumps the version.
 */
export const userValidators = (user: User, factors: SecondFactors): Validators => ({
  etag: strongEtag('user', user.id, user.version, factors.stamp),
  lastModified: user.updatedAt,
});

/** The service's fields of a PUT document: absent members become null (attributes: none); absent flags are not asked for. */
export const userInput = (body: UserInputBody): UserFields => ({
  username: body.username,
  name: body.name ?? null,
  given_name: body.given_name ?? null,
  family_name: body.family_name ?? null,
  email: body.email ?? null,
  phone_number: body.phone_number ?? null,
  address: body.address ?? null,
  email_verified: body.email_verified,
  phone_number_verified: body.phone_number_verified,
  attributes: body.attributes ?? {},
});

/**
 * The fields this merge patch produces. A change to a read-only member is 422, a wrong shape 400. A
 * verified flag counts as asked for only when the patch itself carries it: a patch that moves the e-mail
 * address must not carry the old address's `email_verified: true` over to the new one.
 */
export function patchedUser(user: User, factors: SecondFactors, patch: unknown): UserFields {
  const view: Record<string, unknown> = representUser(user, factors);
  const writable = Object.fromEntries(WRITABLE_FIELDS.map((f) => [f, view[f]]));
  const document = mergePatched(patch, {
    name: 'user',
    schema: UserInputSchema,
    view,
    writable,
    dropNull: true,
    hints: { password: 'is set with POST /users/{id}/password' },
  });
  const fields = userInput(document);
  const asked = patch as Record<string, unknown>; // an object: mergePatched refused anything else
  return {
    ...fields,
    email_verified: 'email_verified' in asked ? fields.email_verified : undefined,
    phone_number_verified: 'phone_number_verified' in asked ? fields.phone_number_verified : undefined,
  };
}
