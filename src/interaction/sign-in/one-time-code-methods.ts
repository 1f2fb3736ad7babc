// The TOTP method and the recovery-code method: the second factor after a correct password. Both are
// charged, before the code is looked at, to the per-(account, address) login failure budget and to the
// account-wide second-factor budget (second-factor-budget.ts). The first is refunded on success; the
// second is cleared by the sign-in it completes (sign-in-pipeline.ts). Only a session
// that passed this account's password gets here (the caller holds the pending second factor), so only
// someone who knows the password can spend either budget. The one exception, the federation's link
// confirmation page (reached through an upstream, not the password), uses the same method with a budget of
// its own (sign-in-methods.ts, `totpToLink`).
import type { LoginGuard } from '../login/login-failures.js';
import type { SecondFactors } from '../mfa/second-factors.js';
import type { SecondFactorBudget } from './second-factor-budget.js';
import type { MethodOutcome, SignInMethodName } from './sign-in-method.js';

export interface CodeAttempt {
  userId: string;
  code: string;
  ip: string;
}

export interface CodeMethodDeps {
  loginGuard: LoginGuard;
  secondFactors: Pick<SecondFactors, 'verify'>;
  secondFactorBudget: SecondFactorBudget;
}

function codeMethod(kind: 'otp' | 'recoveryCode', deps: CodeMethodDeps) {
  return async ({ userId, code, ip }: CodeAttempt): Promise<MethodOutcome> => {
    const reservation = await deps.loginGuard.charge({ userId, ip });
    await deps.secondFactorBudget.charge(userId);
    const outcome = await deps.secondFactors.verify(userId, { [kind]: code });
    if (!outcome.ok) return { ok: false, reason: outcome.reason, userId };
    await reservation.refund();
    return { ok: true, userId, amr: outcome.amr };
  };
}

export const totpMethod = (deps: CodeMethodDeps) => codeMethod('otp', deps);
export const recoveryCodeMethod = (deps: CodeMethodDeps) => codeMethod('recoveryCode', deps);

/** The second-factor form posts `otp` or `recovery_code`: the code typed picks the method. */
export function codeOf(form: { otp?: string | undefined; recoveryCode?: string | undefined }): {
  method: Extract<SignInMethodName, 'totp' | 'recovery_code'>;
  code: string;
} {
  if (form.otp !== undefined && form.otp.trim() !== '') return { method: 'totp', code: form.otp };
  return { method: 'recovery_code', code: form.recoveryCode ?? '' };
}
