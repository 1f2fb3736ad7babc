// The account page's password change goes through the one password-change path (src/user-rules/password-change.ts):
// the user proves the current password (charged to the failed-login budget), and the change ends every other
// session of the user and revokes every refresh-token family — the session it came from stays signed in.
import { changePassword, type PasswordChangeDeps } from '../user-rules/password-change.js';
import { ProblemError } from '../http/errors.js';
import type { Store } from '../storage/store.js';
import type { User } from '../storage/repositories/users-repository.js';
import type { PasswordChangeOutcome } from './account-routes.js';

export function accountPasswordChange(deps: PasswordChangeDeps) {
  /** `onChanged` runs in the change's transaction (the audit event commits with the new password). */
  return async (
    user: User,
    currentPassword: string,
    newPassword: string,
    keepSession: string,
    onChanged?: (tx: Store) => Promise<void>,
  ): Promise<PasswordChangeOutcome> => {
    try {
      await changePassword(deps, {
        user,
        password: newPassword,
        // The page's signed-in user is the account's owner, exactly like a user token of that user on the API.
        authority: { by: 'api', principal: { kind: 'user', sub: user.id }, currentPassword },
        keepSession,
        ...(onChanged ? { onChanged: (tx: Store) => onChanged(tx) } : {}),
      });
      return 'changed';
    } catch (error) {
      if (error instanceof ProblemError && error.code === 'VALIDATION_ERROR') return 'wrong_current_password';
      throw error;
    }
  };
}
