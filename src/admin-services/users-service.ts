// User administration, written once for the CLI (`gatehouse users ...`) and the admin API
// (/admin/v1/users): the username and password rules, verified flags (both faces are the operator's, so
// they may raise one — user-rules/verified-claims.ts), version-guarded writes (If-Match), a password set by
// the operator ending the user's sessions and refresh tokens (user-rules/password-change.ts), the second-
// factor reset, custom attributes (the whole set, checked by user-attributes.ts, in the same UPDATE), and one
// audit event per change in the change's transaction — field names only (`attributes.NAME`), never a
// password or an attribute's value (docs/admin-api.md, docs/audit-log.md).
import type { OutboxWriter } from '../outbox/writer.js';
import { announceLogout } from '../user-rules/backchannel-logout.js';
import type { Clock } from '../clock.js';
import type { Store } from '../storage/store.js';
import { StillReferencedError } from '../storage/errors.js';
import type { RateLimits } from '../http/rate-limit.js';
import { hashPassword } from '../crypto/passwords.js';
import { UsernameTakenError, type Address, type User, type UserProfile } from '../storage/repositories/users-repository.js';
import type { SecondFactors } from '../storage/repositories/user-admin-repository.js';
import { changePassword } from '../user-rules/password-change.js';
import { verifiedAfterWrite } from '../user-rules/verified-claims.js';
import type { AuditSink } from '../audit/audit-sink.js';
import { changedFields, type ActingAs } from './clients-service.js';
import { AdminFieldErrors, AdminRuleError } from './rule-error.js';
import { userChangeEvent } from './user-events.js';
import { changedAttributeNames, checkedAttributes } from './user-attributes.js';

export interface UserServiceDeps {
  store: Store;
  clock: Clock;
  /** Only an API password change by the user spends login attempts; the operator's does not (password-change.ts). */
  rateLimits: Pick<RateLimits, 'hit'>;
  audit: AuditSink;
  /** Where logout tokens to the clients of ended sessions are queued (docs/backchannel-logout.md). */
  outbox?: Pick<OutboxWriter, 'enqueue'> | undefined;
}

export const USERNAME = /^[A-Za-z0-9._@+-]{1,64}$/;
export const USERNAME_RULE = '1-64 characters of letters, digits and . _ @ + -';
export const MIN_PASSWORD = 8;
/** Hashing is slow on purpose; an unbounded input would make it slower still. */
export const MAX_PASSWORD = 1024;

/** The writable members of a user, under their API (OIDC claim) names. */
export interface UserFields {
  username: string;
  name: string | null;
  given_name: string | null;
  family_name: string | null;
  email: string | null;
  phone_number: string | null;
  address: Address | null;
  /** undefined: not asked; the flag stays only for an unchanged address. */
  email_verified?: boolean | undefined;
  phone_number_verified?: boolean | undefined;
  /**
   * The whole set of custom attributes after the write (user-attributes.ts checks it); undefined: unchanged.
   * An update computes it from the user it read, so it is written only at that user's version.
   */
  attributes?: Record<string, unknown> | undefined;
}

/** The operator's summary of an account (the CLI's output): the profile, never the hash. */
export const userView = (u: User) => ({
  id: u.id,
  username: u.username,
  name: u.name,
  email: u.email,
  email_verified: u.email_verified,
  phone_number: u.phone_number,
  phone_number_verified: u.phone_number_verified,
  created_at: u.createdAt.toISOString(),
  updated_at: u.updatedAt.toISOString(),
});

/** Every stored member but the password (the audit log's "what changed" compares these). */
const fullView = (u: User): Record<string, unknown> => ({ ...userView(u), given_name: u.given_name, family_name: u.family_name, address: u.address });

function checkUsername(username: string): void {
  if (!USERNAME.test(username)) throw new AdminRuleError('invalid', `must be ${USERNAME_RULE}`, 'username');
}

export function checkPassword(password: string | undefined): string {
  if (password === undefined || password.length < MIN_PASSWORD)
    throw new AdminRuleError('invalid', `must have at least ${MIN_PASSWORD} characters`, 'password');
  if (password.length > MAX_PASSWORD) throw new AdminRuleError('invalid', `must have at most ${MAX_PASSWORD} characters`, 'password');
  return password;
}

function verifiedFlags(current: User | undefined, fields: Pick<UserFields, 'email' | 'phone_number' | 'email_verified' | 'phone_number_verified'>) {
  const outcome = verifiedAfterWrite(
    'operator',
    current,
    { email: fields.email, phone_number: fields.phone_number },
    {
      email_verified: fields.email_verified,
      phone_number_verified: fields.phone_number_verified,
    },
  );
  if (outcome.errors.length > 0) throw new AdminFieldErrors(outcome.errors);
  return outcome.flags;
}

const profileOf = (fields: UserFields, flags: Pick<UserProfile, 'email_verified' | 'phone_number_verified'>) => ({
  name: fields.name,
  given_name: fields.given_name,
  family_name: fields.family_name,
  email: fields.email,
  phone_number: fields.phone_number,
  address: fields.address,
  ...flags,
});

const taken = (error: unknown): never => {
  if (error instanceof UsernameTakenError) throw new AdminRuleError('conflict', error.message, 'username');
  throw error;
};

/** `attributes.NAME` of each attribute that differs between the two sets (the audit log's field names). */
const attributeFields = (before: Readonly<Record<string, unknown>>, after: Readonly<Record<string, unknown>>) =>
  changedAttributeNames(before, after).map((name) => `attributes.${name}`);

/** Creates an account; the password is required (at least MIN_PASSWORD characters). */
export async function createUserRecord(deps: UserServiceDeps, fields: UserFields & { password: string | undefined }, as: ActingAs): Promise<User> {
  checkUsername(fields.username);
  const password = checkPassword(fields.password);
  const flags = verifiedFlags(undefined, fields);
  const passwordHash = await hashPassword(password);
  return deps.store.transaction(async (tx) => {
    const attributesJson = fields.attributes === undefined ? undefined : await checkedAttributes(tx, {}, fields.attributes);
    const input = { username: fields.username, passwordHash, ...profileOf(fields, flags), ...(attributesJson !== undefined ? { attributesJson } : {}) };
    const user = await tx.users.create(input).catch(taken);
    const set = Object.entries(fullView(user))
      .filter(([k, v]) => v !== null && v !== false && !['id', 'created_at', 'updated_at'].includes(k))
      .map(([k]) => k);
    await deps.audit.emit(userChangeEvent('admin.user.created', user.id, as, [...set, ...attributeFields({}, user.attributes), 'password'].sort()), { tx });
    return user;
  });
}

export async function findUserRecord(deps: Pick<UserServiceDeps, 'store' | 'clock'>, id: string): Promise<User> {
  const user = id.includes('\u0000') ? undefined : await deps.store.users.findById(id);
  if (!user) throw new AdminRuleError('not-found', `no user ${id}`);
  return user;
}

/** The CLI names a user by id or by username. */
export async function findUserByIdOrUsername(deps: Pick<UserServiceDeps, 'store' | 'clock'>, idOrUsername: string): Promise<User> {
  const users = deps.store.users;
  const user = (await users.findById(idOrUsername)) ?? (await users.findByUsername(idOrUsername));
  if (!user) throw new AdminRuleError('not-found', `no user ${idOrUsername}`);
  return user;
}

/** Each user's second factors (TOTP, recovery codes, passkeys) and the stamp that moves with any change to them. */
export async function secondFactorsOf(deps: Pick<UserServiceDeps, 'store'>, userIds: readonly string[]): Promise<Map<string, SecondFactors>> {
  return deps.store.userAdmin.secondFactors(userIds);
}

/**
 * A page of users, oldest first; `search`: a case-insensitive prefix of the username or the e-mail address;
 * `attribute`: an attribute equal to one of the values or an array holding one (both filters together: both hold).
 */
export async function listUserRecords(
  deps: Pick<UserServiceDeps, 'store'>,
  page: { after?: { createdAt: Date; id: string }; limit: number; search?: string; attribute?: { name: string; values: readonly unknown[] } },
): Promise<User[]> {
  const { search, ...rest } = page;
  return deps.store.userAdmin.page({ ...rest, ...(search ? { prefix: search.toLowerCase() } : {}) });
}

/**
 * Writes the user's members, only if still at `expectedVersion` when given (else `stale`). A verified flag
 * not asked for stays true only for an unchanged address (user-rules/verified-claims.ts). Changed attributes
 * are part of the same UPDATE, which then also holds `current`'s version (they were computed from it), so an
 * attribute set in between (the CLI's set-attribute) makes the write stale instead of being lost.
 */
export async function updateUserRecord(deps: UserServiceDeps, current: User, fields: UserFields, as: ActingAs, expectedVersion?: number): Promise<User> {
  if (fields.username !== current.username) checkUsername(fields.username);
  const flags = verifiedFlags(current, fields);
  let version = expectedVersion;
  const updated = await deps.store.transaction(async (tx) => {
    const attributesJson = fields.attributes === undefined ? undefined : await checkedAttributes(tx, current.attributes, fields.attributes);
    if (attributesJson !== undefined) version ??= current.version;
    const changes = {
      ...profileOf(fields, flags),
      ...(fields.username !== current.username ? { username: fields.username } : {}),
      ...(attributesJson !== undefined ? { attributesJson } : {}),
    };
    const written = await tx.users.update(current.id, changes, version).catch(taken);
    if (written) {
      const changed = [
        ...changedFields(fullView(current), fullView(written)),
        ...(attributesJson !== undefined ? attributeFields(current.attributes, written.attributes) : []),
      ];
      await deps.audit.emit(userChangeEvent('admin.user.updated', current.id, as, changed.sort()), { tx });
    }
    return written;
  });
  if (updated) return updated;
  if (version !== undefined && (await deps.store.users.findById(current.id))) throw new AdminRuleError('stale', 'the user changed since it was read');
  throw new AdminRuleError('not-found', `no user ${current.id}`);
}

/** The writable members of a user as they stand (the base of a CLI update or a merge patch). */
export const userFields = (u: User): UserFields => ({
  username: u.username,
  name: u.name,
  given_name: u.given_name,
  family_name: u.family_name,
  email: u.email,
  phone_number: u.phone_number,
  address: u.address,
});

/**
 * The operator sets a new password: in one transaction the hash changes, every browser session ends and
 * every refresh-token family of the user is revoked (user-rules/password-change.ts), and the event is written.
 */
export async function setUserPassword(deps: UserServiceDeps, id: string, password: string | undefined, as: ActingAs, expectedVersion?: number): Promise<User> {
  const checked = checkPassword(password);
  const user = await findUserRecord(deps, id);
  const changed = await changePassword(deps, {
    user,
    password: checked,
    authority: { by: 'operator' },
    ...(expectedVersion !== undefined ? { expectedVersion } : {}),
    onChanged: (tx) =>
      deps.audit.emit(userChangeEvent('admin.user.password_set', id, as, ['password'], { sessions_ended: true, refresh_tokens_revoked: true }), { tx }),
  });
  if (changed) return changed;
  if (expectedVersion !== undefined && (await deps.store.users.findById(id))) throw new AdminRuleError('stale', 'the user changed since it was read');
  throw new AdminRuleError('not-found', `no user ${id}`);
}

/**
 * Deletes the account; its grants are revoked first and the cascade takes its sessions, grants and second
 * factors (grant-revocation.md). With `expectedVersion`, only if the user is still at that version.
 */
export async function deleteUserRecord(deps: UserServiceDeps, id: string, as: ActingAs, expectedVersion?: number): Promise<void> {
  try {
    await deps.store.transaction(async (tx) => {
      if (expectedVersion !== undefined) {
        const version = await tx.userAdmin.lockVersion(id);
        if (version === undefined) throw new AdminRuleError('not-found', `no user ${id}`);
        if (version !== expectedVersion) throw new AdminRuleError('stale', 'the user changed since it was read');
      }
      // Before the cascade takes the grants that say which clients the user was signed in to.
      if (deps.outbox) await announceLogout({ outbox: deps.outbox, clock: deps.clock }, tx, { userId: id });
      if (!(await tx.users.delete(id))) throw new AdminRuleError('not-found', `no user ${id}`);
      await deps.audit.emit(userChangeEvent('admin.user.deleted', id, as, []), { tx });
    });
  } catch (error) {
    // A foreign key from records the user owns (orders, payments): those are not the operator's to erase here.
    if (error instanceof StillReferencedError)
      throw new AdminRuleError('conflict', `user ${id} still owns records (orders, payments) that must be removed first`);
    throw error;
  }
}

/**
 * For a user who lost their authenticator and recovery codes: every second factor is removed, every browser
 * session ends, and every grant whose sign-in used a second factor (amr `mfa`, so its tokens state the mfa acr)
 * is revoked with its access tokens: nothing signed in with the removed factors outlives them — a refresh token
 * would otherwise keep minting mfa tokens (docs/second-factors.md, docs/security/tokens-and-operator-views.md).
 * Grants from password-only sign-ins stay: the factors played no part in them.
 */
export async function resetSecondFactors(
  deps: UserServiceDeps,
  user: Pick<User, 'id'>,
  as: ActingAs,
): Promise<{ sessionsEnded: number; grantsRevoked: number }> {
  return deps.store.transaction(async (tx) => {
    await tx.secondFactors.removeAll(user.id);
    await tx.passkeys.removeAll(user.id);
    if (deps.outbox) await announceLogout({ outbox: deps.outbox, clock: deps.clock }, tx, { userId: user.id });
    const sessionsEnded = await tx.browserSessions.endAllOf(user.id);
    const grantsRevoked = await tx.grants.revoke({ userId: user.id, signedInWith: 'mfa' });
    const details = { sessions_ended: sessionsEnded, grants_revoked: grantsRevoked };
    await deps.audit.emit(userChangeEvent('admin.user.second_factors_reset', user.id, as, ['second_factors'], details), { tx });
    return { sessionsEnded, grantsRevoked };
  });
}
