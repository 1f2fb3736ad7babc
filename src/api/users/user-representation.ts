// A stored user as the API shows it: profile and timestamps, never the password hash; its validators
// (strong ETag from id and version, Last-Modified from updated_at) for conditional requests.
import type { User } from '../../storage/repositories/users-repository.js';
import { strongEtag, type Validators } from '../../http/conditional.js';
import type { UserRepresentation } from './user-schemas.js';

export const userPath = (prefix: string, id: string) => `${prefix}/users/${encodeURIComponent(id)}`;

export function representUser(user: User, prefix: string): UserRepresentation {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    given_name: user.given_name,
    family_name: user.family_name,
    email: user.email,
    email_verified: user.email_verified,
    phone_number: user.phone_number,
    phone_number_verified: user.phone_number_verified,
    address: user.address,
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
    _links: { self: { href: userPath(prefix, user.id) } },
  };
}

export const validatorsOf = (user: User): Validators => ({
  etag: strongEtag('user', user.id, user.version),
  lastModified: user.updatedAt,
});
