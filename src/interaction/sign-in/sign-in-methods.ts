// The sign-in methods of this server, built once from what they charge and check (sign-in-method.ts).
// Coming methods (an e-mailed code) join here.
import type { UsersRepository } from '../../storage/repositories/users-repository.js';
import type { LoginGuard } from '../login/login-failures.js';
import type { SecondFactors } from '../mfa/second-factors.js';
import type { PasskeyCeremonies } from '../passkeys/passkeys.js';
import { federationMethod, type FederationAttempt, type FederationMethodDeps, type FederationOutcome } from './federation-method.js';
import { recoveryCodeMethod, totpMethod, type CodeAttempt } from './one-time-code-methods.js';
import { passkeyMethod, type PasskeyAttempt } from './passkey-method.js';
import { passwordMethod, type PasswordAttempt } from './password-method.js';
import type { SecondFactorBudget } from './second-factor-budget.js';
import type { MethodOutcome } from './sign-in-method.js';

export interface SignInMethods {
  password(attempt: PasswordAttempt): Promise<MethodOutcome>;
  totp(attempt: CodeAttempt): Promise<MethodOutcome>;
  /**
   * A code of the account's authenticator typed on the federation's link confirmation page: the TOTP method
   * charged to the account's link-proof count instead of its sign-in count (docs/rate-limits.md) — whoever
   * reaches that page controls an upstream, not necessarily the password, and must not stop the owner's codes.
   */
  totpToLink(attempt: CodeAttempt): Promise<MethodOutcome>;
  recovery_code(attempt: CodeAttempt): Promise<MethodOutcome>;
  passkey(attempt: PasskeyAttempt): Promise<MethodOutcome>;
  /** An upstream identity provider's answer at its callback; an identity not linked yet answers the linking decision. */
  federation(attempt: FederationAttempt): Promise<FederationOutcome>;
}

export function signInMethods(
  deps: {
    users: Pick<UsersRepository, 'findByUsername'>;
    loginGuard: LoginGuard;
    secondFactors: Pick<SecondFactors, 'verify'>;
    secondFactorBudget: SecondFactorBudget;
    linkProofBudget: SecondFactorBudget;
    passkeys: Pick<PasskeyCeremonies, 'claimedUser' | 'authenticate'>;
  } & FederationMethodDeps,
): SignInMethods {
  return {
    password: passwordMethod(deps),
    totp: totpMethod(deps),
    totpToLink: totpMethod({ ...deps, secondFactorBudget: deps.linkProofBudget }),
    recovery_code: recoveryCodeMethod(deps),
    passkey: passkeyMethod(deps),
    federation: federationMethod(deps),
  };
}
