// The account-wide budget for second-factor failures (NIST SP 800-63B §5.2.2), beside the per-(account,
// address) login budget: every TOTP or recovery-code attempt is charged to the account before the code is
// looked at, whatever address it comes from. The charge is refused (429) while the account waits out its
// growing delay, and for good once the stop is reached, until a sign-in with password and second factor,
// a reset of the account's second factors, an operator's `gatehouse users reset-mfa` or an operator's new
// password (a recovery event: user-rules/password-change.ts) clears it.
// docs/rate-limits.md has the figures and why no stranger can spend it.
import { ProblemError } from '../../http/errors.js';
import type { SecondFactorFailuresRepository, SecondFactorPolicy } from '../../storage/repositories/second-factor-failures-repository.js';

/** 5 free, then 1 s, 2 s, 4 s … up to a minute between attempts, and a stop at 100 (docs/rate-limits.md). */
const SECOND_FACTOR_POLICY: SecondFactorPolicy = { free: 5, maxDelaySeconds: 60, stop: 100 };
/**
 * The link confirmation page's own count of authenticator codes (docs/rate-limits.md): the same figures, but
 * never cleared by a sign-in, only by replacing the authenticator — 100 guesses per authenticator secret in all.
 */
export const LINK_PROOF_POLICY: SecondFactorPolicy = SECOND_FACTOR_POLICY;

export interface SecondFactorBudget {
  /** Counts one attempt for the account; throws a 429 ProblemError while the account must wait or is stopped. */
  charge(userId: string): Promise<void>;
  /** A completed password+factor sign-in (or a reset) starts the count again. */
  clear(userId: string): Promise<void>;
}

export function secondFactorBudget(repository: SecondFactorFailuresRepository, policy: SecondFactorPolicy = SECOND_FACTOR_POLICY): SecondFactorBudget {
  return {
    async charge(userId) {
      const outcome = await repository.charge(userId, policy);
      if (outcome.ok) return;
      const stopped = outcome.retryAfterSeconds === undefined;
      throw new ProblemError(
        'rate-limited',
        stopped
          ? 'Too many wrong codes for this account. Use a passkey, or ask an administrator to reset two-step verification.'
          : 'Too many wrong codes for this account; retry later.',
        {
          log: { reason: stopped ? 'second_factor_budget_stopped' : 'second_factor_budget_delay', user_id: userId },
          headers: stopped ? {} : { 'retry-after': String(outcome.retryAfterSeconds) },
        },
      );
    },
    clear: (userId) => repository.clear(userId),
  };
}
