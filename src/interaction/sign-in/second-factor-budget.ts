// The account-wide budget for second-factor failures (NIST SP 800-63B §5.2.2), beside the per-(account,
// address) login budget: every TOTP or recovery-code attempt is charged to the account before the code is
// looked at, whatever address it comes from. The charge is refused (429) while the account waits out its
// growing delay, and for good once the stop is reached, until a sign-in with password and second factor,
// a reset of the account's second factors or an operator's `gatehouse users reset-mfa` clears it.
// docs/rate-limits.md has the figures and why no stranger can spend it.
export interface SecondFactorBudget {
  /** Counts one attempt for the account; throws a 429 ProblemError while the account must wait or is stopped. */
  charge(userId: string): Promise<void>;
  /** A completed password+factor sign-in (or a reset) starts the count again. */
  clear(userId: string): Promise<void>;
}

/** No account-wide limit (the counters of single-module tests). */
export const UNLIMITED_SECOND_FACTOR_BUDGET: SecondFactorBudget = { charge: async () => {}, clear: async () => {} };
