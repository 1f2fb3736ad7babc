// The accounts that log in; `id` is the OIDC `sub` and the id of /v1/users resources.
import { sql, type Selectable } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Db } from '../driver/database.js';
import { isForeignKeyViolation, isUniqueViolation, StillReferencedError } from '../errors.js';
import { deleteGrantOwner } from './grants-repository.js';
import { precompiled } from './precompiled.js';
import type { UsersTable } from '../driver/schema.js';

export interface Address {
  formatted?: string;
  street_address?: string;
  locality?: string;
  region?: string;
  postal_code?: string;
  country?: string;
}

export interface UserProfile {
  name: string | null;
  given_name: string | null;
  family_name: string | null;
  email: string | null;
  email_verified: boolean;
  phone_number: string | null;
  phone_number_verified: boolean;
  address: Address | null;
}

export interface User extends UserProfile {
  id: string;
  /** Custom attributes (typed JSON values) that registered scopes may map into tokens (docs/resource-servers.md). */
  attributes: Record<string, unknown>;
  username: string;
  passwordHash: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export class UsernameTakenError extends Error {
  override readonly name = 'UsernameTakenError';
}

/** `attributesJson`: the whole attributes object, serialised (checked by src/admin-services/user-attributes.ts). */
type AttributesColumn = { attributesJson?: string };

export interface UsersRepository {
  create(input: { username: string; passwordHash: string } & Partial<UserProfile> & AttributesColumn): Promise<User>;
  findById(id: string): Promise<User | undefined>;
  /** Whether any account exists at all (the demo tells a newcomer how to create the first one). */
  any(): Promise<boolean>;
  findByUsername(username: string): Promise<User | undefined>;
  /** Every account, oldest first (the operator's CLI). */
  list(): Promise<User[]>;
  /**
   * Replaces profile fields (and optionally the password and the attributes) in one UPDATE; bumps version.
   * Returns undefined when absent or version mismatch.
   */
  update(
    id: string,
    changes: Partial<UserProfile> & AttributesColumn & { username?: string; passwordHash?: string },
    expectedVersion?: number,
  ): Promise<User | undefined>;
  /** Throws StillReferencedError when records the user owns (orders, payments) refer to the account. */
  delete(id: string): Promise<boolean>;
}

/** A user as the token endpoints read it inside their redemption and rotation statements: no password hash. */
export type UserRecord = Omit<User, 'passwordHash'>;

type UserRow = Omit<Selectable<UsersTable>, 'password_hash'>;

const toUserRecord = (r: UserRow): UserRecord => ({
  id: r.id,
  username: r.username,
  name: r.name,
  given_name: r.given_name,
  family_name: r.family_name,
  email: r.email,
  email_verified: r.email_verified,
  phone_number: r.phone_number,
  phone_number_verified: r.phone_number_verified,
  address: (r.address as Address | null) ?? null,
  attributes: r.attributes && typeof r.attributes === 'object' && !Array.isArray(r.attributes) ? (r.attributes as Record<string, unknown>) : {},
  version: r.version,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const toUser = (r: Selectable<UsersTable>): User => ({ ...toUserRecord(r), passwordHash: r.password_hash });

const JOINED_USER_COLUMNS = [
  'id',
  'username',
  'name',
  'given_name',
  'family_name',
  'email',
  'email_verified',
  'phone_number',
  'phone_number_verified',
  'address',
  'attributes',
  'version',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof UserRow)[];

/**
 * The columns a statement joining `users u` selects for `userFromJoin`, prefixed `u_` so they cannot collide
 * with the statement's own; the password hash is not among them. Each keeps its column type (no JSON detour).
 */
export const joinedUserColumns = sql.raw(JOINED_USER_COLUMNS.map((c) => `u.${c} as u_${c}`).join(', '));

/** The `u_*` columns of `joinedUserColumns`; all null when the left join found no user. */
export type JoinedUserRow = { [K in (typeof JOINED_USER_COLUMNS)[number] as `u_${K}`]: UserRow[K] | null };

export const userFromJoin = (r: JoinedUserRow): UserRecord | null =>
  r.u_id === null ? null : toUserRecord(Object.fromEntries(JOINED_USER_COLUMNS.map((c) => [c, r[`u_${c}`]])) as unknown as UserRow);

function profileColumns(p: Partial<UserProfile>) {
  return {
    ...(p.name !== undefined ? { name: p.name } : {}),
    ...(p.given_name !== undefined ? { given_name: p.given_name } : {}),
    ...(p.family_name !== undefined ? { family_name: p.family_name } : {}),
    ...(p.email !== undefined ? { email: p.email } : {}),
    ...(p.email_verified !== undefined ? { email_verified: p.email_verified } : {}),
    ...(p.phone_number !== undefined ? { phone_number: p.phone_number } : {}),
    ...(p.phone_number_verified !== undefined ? { phone_number_verified: p.phone_number_verified } : {}),
    ...(p.address !== undefined ? { address: p.address === null ? null : JSON.stringify(p.address) } : {}),
  };
}

const selectByUsername = precompiled((db, v: { username: string }) =>
  db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['username']), '=', v.username)),
);

export function usersRepository(db: Db, clock: Clock): UsersRepository {
  return {
    async create(input) {
      try {
        const row = await db
          .insertInto('users')
          .values({
            username: input.username,
            password_hash: input.passwordHash,
            ...profileColumns(input),
            ...(input.attributesJson !== undefined ? { attributes: input.attributesJson } : {}),
            created_at: new Date(clock.now()),
            updated_at: new Date(clock.now()),
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return toUser(row);
      } catch (error) {
        if (isUniqueViolation(error)) throw new UsernameTakenError(`username ${input.username} is taken`);
        throw error;
      }
    },
    async findById(id) {
      const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toUser(row);
    },
    async any() {
      return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined;
    },
    async findByUsername(username) {
      const row = await selectByUsername.executeTakeFirst(db, { username: username.toLowerCase() });
      return row && toUser(row);
    },
    async list() {
      return (await db.selectFrom('users').selectAll().orderBy('created_at').orderBy('id').execute()).map(toUser);
    },
    async update(id, changes, expectedVersion) {
      try {
        let query = db
          .updateTable('users')
          .set((eb) => ({
            ...profileColumns(changes),
            ...(changes.username !== undefined ? { username: changes.username } : {}),
            ...(changes.passwordHash !== undefined ? { password_hash: changes.passwordHash } : {}),
            ...(changes.attributesJson !== undefined ? { attributes: changes.attributesJson } : {}),
            version: eb('version', '+', 1),
            updated_at: new Date(clock.now()),
          }))
          .where('id', '=', id);
        if (expectedVersion !== undefined) query = query.where('version', '=', expectedVersion);
        const row = await query.returningAll().executeTakeFirst();
        return row && toUser(row);
      } catch (error) {
        if (isUniqueViolation(error)) throw new UsernameTakenError(`username ${changes.username} is taken`);
        throw error;
      }
    },
    async delete(id) {
      // Their grants are revoked (with the access tokens issued under them) before the cascade deletes them.
      try {
        return await deleteGrantOwner(db, clock, { userId: id });
      } catch (error) {
        if (isForeignKeyViolation(error)) throw new StillReferencedError(`user ${id} is still referred to`, { cause: error });
        throw error;
      }
    },
  };
}
