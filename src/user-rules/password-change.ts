// The one way a password changes, for the /v1 API and the operator CLI alike. Through the API only the
// account's owner changes it, proving it with the current password (a bearer token alone is not enough:
// a third-party app or a stolen short-lived token must not become a permanent takeover). Attempts count
// against the username's failed-login budget, so this is no side door around the login rate limit. Every change,
// whoever makes it, ends the user's browser sessions and revokes every refresh-token family of the user; the
// operator's also clears the account-wide second-factor count (a recovery event).
import { hashPassword, verifyPassword } from '../crypto/passwords.js';
import { ProblemError } from '../http/errors.js';
import type { RateLimits } from '../http/rate-limit.js';
import { validationFailed } from '../http/validation.js';
import type { User, UserProfile } from '../storage/repositories/users-repository.js';
import { endUserAccess, type UserAccessDeps } from './end-user-access.js';

export type PasswordAuthority =
  /** `gatehouse users set-password`: the operator needs no proof. */
  | { by: 'operator' }
  /** The API, for a user token of this very user; `kind` says what the token was issued for. */
  | { by: 'api'; principal: { kind: 'user' | 'service'; sub: string }; currentPassword: string | undefined };

export interface PasswordChangeDeps extends UserAccessDeps {
  rateLimits: Pick<RateLimits, 'hit'>;
}

export interface PasswordChange {
  user: User;
  password: string;
  authority: PasswordAuthority;
  /** Other fields written in the same update (a PUT or PATCH that also changes the profile). */
  alsoChange?: Partial<UserProfile> & { username?: string };
  /** Write only if the user is still at this version (If-Match). */
  expectedVersion?: number;
  /** The browser session the change came from, which stays signed in. */
  keepSession?: string;
  /** Runs in the change's transaction once it is written (the admin services' audit event). */
  onChanged?: (tx: PasswordChangeDeps['store'], user: User) => Promise<void>;
}

const failedLoginKey = (user: User) => `user:${user.username.toLowerCase()}`;

async function checkAuthority(deps: PasswordChangeDeps, user: User, authority: PasswordAuthority): Promise<void> {
  if (authority.by === 'operator') return;
  if (authority.principal.kind !== 'user' || authority.principal.sub !== user.id) {
    throw new ProblemError('forbidden', 'Only the user changes their password (or an operator, with gatehouse users set-password).');
  }
  if (authority.currentPassword === undefined) throw validationFailed([{ field: 'current_password', message: 'is required to change the password' }]);
  // Charged before the (slow) check, so parallel guesses cannot overrun the budget; a successful change
  // spends one attempt too, which is harmless for something done this rarely.
  await deps.rateLimits.hit('login_failures', failedLoginKey(user));
  if (authority.currentPassword.length > 1024 || !(await verifyPassword(user.passwordHash, authority.currentPassword))) {
    throw validationFailed([{ field: 'current_password', message: 'is not the current password' }]);
  }
}

/** The updated user, or undefined when it vanished or moved past `expectedVersion` (nothing was ended then). */
export async function changePassword(deps: PasswordChangeDeps, change: PasswordChange): Promise<User | undefined> {
  await checkAuthority(deps, change.user, change.authority);
  const passwordHash = await hashPassword(change.password);
  // One transaction: a new password never stands while the old sessions and tokens still do.
  // store.transaction: the caller's onChanged may write an audit event, whose log line waits for the commit.
  const updated = await deps.store.transaction(async (trx) => {
    const user = await trx.users.update(change.user.id, { ...change.alsoChange, passwordHash }, change.expectedVersion);
    if (user) await endUserAccess({ store: trx, clock: deps.clock, outbox: deps.outbox }, user.id, change.keepSession);
    // An operator's new password is a recovery event (NIST SP 800-63B): whoever spent the account-wide
    // second-factor count held the old password, which no longer works, so the owner's factor is usable
    // again. Not the owner's own change: a holder of the password could otherwise buy new guesses with it
    // (docs/rate-limits.md).
    if (user && change.authority.by === 'operator') await trx.secondFactorFailures.clear(user.id);
    if (user && change.onChanged) await change.onChanged(trx, user);
    return user;
  });
  return updated;
}
