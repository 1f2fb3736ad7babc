// The users resource's operations, framework-free: visibility (object-level access), create, replace
// and delete, with storage conflicts turned into problem values. A password change goes through the one
// account rule (user-rules/password-change.ts); verified flags follow user-rules/verified-claims.ts.
import { hashPassword } from '../../crypto/passwords.js';
import { ProblemError } from '../../http/errors.js';
import { StillReferencedError } from '../../storage/errors.js';
import { UsernameTakenError, type User, type UserProfile, type UsersRepository } from '../../storage/repositories/users-repository.js';
import { changePassword, type PasswordChangeDeps } from '../../user-rules/password-change.js';
import { verifiedAfterWrite } from '../../user-rules/verified-claims.js';
import type { Principal } from '../../http/principal.js';
import { canAccessUser, notFound } from '../../resource-server/auth/index.js';
import type { CreateUserBody, ReplaceUserBody } from './user-schemas.js';

/** The user if it exists and this principal may see it; otherwise the same 404 either way. */
export async function visibleUser(users: UsersRepository, principal: Principal, id: string): Promise<User> {
  const user = await userIfVisible(users, principal, id);
  if (!user) throw notFound('user');
  return user;
}

/** undefined when the principal may reach this id but no such user exists; 404 when it may not. */
export async function userIfVisible(users: UsersRepository, principal: Principal, id: string): Promise<User | undefined> {
  if (!canAccessUser(principal, id)) throw notFound('user');
  return users.findById(id);
}

/** The stored profile a document describes; the verified flags only as the API may leave them (see verified-claims.ts). */
const profileOf = (input: ReplaceUserBody, current?: User): UserProfile => {
  const contact = { email: input.email ?? null, phone_number: input.phone_number ?? null };
  const requested = { email_verified: input.email_verified, phone_number_verified: input.phone_number_verified };
  return {
    name: input.name ?? null,
    given_name: input.given_name ?? null,
    family_name: input.family_name ?? null,
    ...contact,
    ...verifiedAfterWrite('api', current, contact, requested).flags,
    address: input.address ? addressOf(input.address) : null,
  };
};

const ADDRESS_KEYS = ['formatted', 'street_address', 'locality', 'region', 'postal_code', 'country'] as const;

/** Only the OIDC address members are stored; unknown members are ignored like any unknown field. */
const addressOf = (address: NonNullable<ReplaceUserBody['address']>) =>
  Object.fromEntries(ADDRESS_KEYS.filter((k) => address[k] !== undefined).map((k) => [k, address[k]]));

const usernameTaken = () => new ProblemError('conflict', 'This username is already taken.', { errors: [{ field: 'username', message: 'is already taken' }] });

export async function createUser(users: UsersRepository, input: CreateUserBody): Promise<User> {
  try {
    return await users.create({ username: input.username, passwordHash: await hashPassword(input.password), ...profileOf(input) });
  } catch (error) {
    if (error instanceof UsernameTakenError) throw usernameTaken();
    throw error;
  }
}

/**
 * Full replacement (RFC 9110 §9.3.4). With `expectedVersion` (an If-Match was evaluated) the write
 * happens only if nobody changed the user in between; otherwise 412, never a lost update.
 */
export async function replaceUser(
  deps: { users: UsersRepository; accounts: PasswordChangeDeps; principal: Principal },
  current: User,
  input: ReplaceUserBody,
  expectedVersion?: number,
): Promise<User> {
  const { users } = deps;
  const id = current.id;
  const changes = { username: input.username, ...profileOf(input, current) };
  try {
    const updated =
      input.password === undefined
        ? await users.update(id, changes, expectedVersion)
        : await changePassword(deps.accounts, {
            user: current,
            password: input.password,
            authority: { by: 'api', principal: deps.principal, currentPassword: input.current_password },
            alsoChange: changes,
            ...(expectedVersion !== undefined ? { expectedVersion } : {}),
          });
    if (updated) return updated;
  } catch (error) {
    if (error instanceof UsernameTakenError) throw usernameTaken();
    throw error;
  }
  if (expectedVersion !== undefined && (await users.findById(id))) {
    throw new ProblemError('precondition-failed', 'The user changed while this request was processed.');
  }
  throw notFound('user');
}

export async function deleteUser(users: UsersRepository, id: string): Promise<void> {
  try {
    if (!(await users.delete(id))) throw notFound('user');
  } catch (error) {
    if (error instanceof StillReferencedError) {
      throw new ProblemError('conflict', 'This user still owns records that must be removed first.');
    }
    throw error;
  }
}
