// Password login. An unknown username costs the same argon2id verification as a wrong password (against
// a dummy hash), and both end in the same refusal, so neither timing nor answer reveals accounts. The
// attempt is charged to its failure budget first (a 429 stops it before any hashing) and refunded on success.
import { dummyPasswordHash, verifyPassword } from '../../crypto/passwords.js';
import type { User, UsersRepository } from '../../storage/repositories/users-repository.js';
import type { LoginGuard } from './login-failures.js';

const MAX_FIELD_LENGTH = 1024;

/** Why a login failed, for the log only (the page says the same for both). */
export type LoginOutcome = { ok: true; user: User } | { ok: false; reason: 'unknown_user' | 'wrong_password'; userId?: string };

export async function authenticate(
  attempt: { username: string; password: string; ip: string },
  deps: { users: Pick<UsersRepository, 'findByUsername'>; guard: LoginGuard },
): Promise<LoginOutcome> {
  const { username, password, ip } = attempt;
  const user = username.length <= MAX_FIELD_LENGTH ? await deps.users.findByUsername(username) : undefined;
  const reservation = await deps.guard.charge({ userId: user?.id, ip });
  const ok = password.length <= MAX_FIELD_LENGTH && (await verifyPassword(user?.passwordHash ?? (await dummyPasswordHash()), password));
  if (!user) return { ok: false, reason: 'unknown_user' };
  if (!ok) return { ok: false, reason: 'wrong_password', userId: user.id };
  await reservation.refund();
  return { ok: true, user };
}
