// The password method: the login failure budget is charged before the argon2id check and refunded on
// success (login/authenticate.ts); an unknown name and a wrong password refuse alike.
import type { UsersRepository } from '../../storage/repositories/users-repository.js';
import { authenticate } from '../login/authenticate.js';
import type { LoginGuard } from '../login/login-failures.js';
import { AMR_PASSWORD } from '../mfa/second-factors.js';
import type { MethodOutcome } from './sign-in-method.js';

export interface PasswordAttempt {
  username: string;
  password: string;
  ip: string;
}

export function passwordMethod(deps: { users: Pick<UsersRepository, 'findByUsername'>; loginGuard: LoginGuard }) {
  return async (attempt: PasswordAttempt): Promise<MethodOutcome> => {
    const outcome = await authenticate(attempt, { users: deps.users, guard: deps.loginGuard });
    if (!outcome.ok) return outcome;
    return { ok: true, userId: outcome.user.id, amr: [...AMR_PASSWORD] };
  };
}
