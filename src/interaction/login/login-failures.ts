// Every failed login goes through here, so brute-force throttling (DESIGN.md §1: failed logins per
// username and per IP) can hook one place. `beforeAttempt` may throw to refuse an attempt outright.
export interface LoginAttempt {
  username: string;
  ip: string;
}

export interface LoginGuard {
  beforeAttempt(attempt: LoginAttempt): Promise<void>;
  failed(attempt: LoginAttempt): Promise<void>;
}

/** Until the rate-limit work plugs in, attempts are not counted. */
export const unguardedLogins: LoginGuard = {
  beforeAttempt: async () => {},
  failed: async () => {},
};
