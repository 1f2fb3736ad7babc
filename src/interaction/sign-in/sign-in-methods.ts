// The sign-in methods of this server, built once from what they charge and check (sign-in-method.ts).
// Coming methods (an upstream identity provider, an e-mailed code) join here.
import type { UsersRepository } from '../../storage/users-repository.js';
import type { LoginGuard } from '../login/login-failures.js';
import type { SecondFactors } from '../mfa/second-factors.js';
import type { PasskeyCeremonies } from '../passkeys/passkeys.js';
import { recoveryCodeMethod, totpMethod, type CodeAttempt } from './one-time-code-methods.js';
import { passkeyMethod, type PasskeyAttempt } from './passkey-method.js';
import { passwordMethod, type PasswordAttempt } from './password-method.js';
import type { SecondFactorBudget } from './second-factor-budget.js';
import type { MethodOutcome } from './sign-in-method.js';

export interface SignInMethods {
  password(attempt: PasswordAttempt): Promise<MethodOutcome>;
  totp(attempt: CodeAttempt): Promise<MethodOutcome>;
  recovery_code(attempt: CodeAttempt): Promise<MethodOutcome>;
  passkey(attempt: PasskeyAttempt): Promise<MethodOutcome>;
}

export function signInMethods(deps: {
  users: Pick<UsersRepository, 'findByUsername'>;
  loginGuard: LoginGuard;
  secondFactors: Pick<SecondFactors, 'verify'>;
  secondFactorBudget: SecondFactorBudget;
  passkeys: Pick<PasskeyCeremonies, 'claimedUser' | 'authenticate'>;
}): SignInMethods {
  return { password: passwordMethod(deps), totp: totpMethod(deps), recovery_code: recoveryCodeMethod(deps), passkey: passkeyMethod(deps) };
}
