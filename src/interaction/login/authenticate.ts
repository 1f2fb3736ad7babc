// Password login. An unknown username costs the same argon2id verification as a wrong password (against
// a dummy hash), and both end in the same `undefined`, so neither timing nor answer reveals accounts.
import { dummyPasswordHash, verifyPassword } from '../../crypto/passwords.js';
import type { User, UsersRepository } from '../../storage/users-repository.js';
import type { LoginAttempt, LoginGuard } from './login-failures.js';

const MAX_FIELD_LENGTH = 1024;

export async function authenticate(
  attempt: LoginAttempt & { password: string },
  deps: { users: Pick<UsersRepository, 'findByUsername'>; guard: LoginGuard },
): Promise<User | undefined> {
  const { username, password, ip } = attempt;
  await deps.guard.beforeAttempt({ username, ip });
  const user = username.length <= MAX_FIELD_LENGTH ? await deps.users.findByUsername(username) : undefined;
  const ok = password.length <= MAX_FIELD_LENGTH && (await verifyPassword(user?.passwordHash ?? (await dummyPasswordHash()), password));
  if (user && ok) return user;
  await deps.guard.failed({ username, ip });
  return undefined;
}
