// Brute-force protection for password login (DESIGN.md §1, RATE_LIMIT_LOGIN_FAILURES): failures are
// counted per username and per client IP; while either budget is used up the login page answers 429
// (an HTML page, the page face) before the password is checked. The username key does not depend on
// whether the account exists, so an unknown user is throttled exactly like a known one.
import type { RateLimits } from '../../http/rate-limit.js';
import type { LoginAttempt, LoginGuard } from './login-failures.js';

// Usernames are looked up case-insensitively (users-repository findByUsername), so they are counted so too.
const keysOf = ({ username, ip }: LoginAttempt): string[] => [`user:${username.toLowerCase()}`, `ip:${ip}`];

export function rateLimitedLogins(limits: RateLimits): LoginGuard {
  return {
    async beforeAttempt(attempt) {
      for (const key of keysOf(attempt)) await limits.assertNotBlocked('login_failures', key);
    },
    async failed(attempt) {
      await Promise.all(keysOf(attempt).map((key) => limits.fail('login_failures', key)));
    },
  };
}
