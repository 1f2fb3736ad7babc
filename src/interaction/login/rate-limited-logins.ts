// Failed logins are limited per username and per IP (RATE_LIMIT_LOGIN_FAILURES a minute).
// A blocked key refuses even the right password until its window ends (429 with Retry-After), so a
// guessing run cannot tell when it hit. Usernames are case-insensitive, like the accounts themselves.
import type { RateLimits } from '../../http/rate-limit.js';
import type { LoginAttempt, LoginGuard } from './login-failures.js';

const keys = ({ username, ip }: LoginAttempt) => [`user:${username.toLowerCase()}`, `ip:${ip}`];

export function rateLimitedLogins(limits: Pick<RateLimits, 'assertNotBlocked' | 'fail'>): LoginGuard {
  return {
    async beforeAttempt(attempt) {
      for (const key of keys(attempt)) await limits.assertNotBlocked('login_failures', key);
    },
    async failed(attempt) {
      await Promise.all(keys(attempt).map((key) => limits.fail('login_failures', key)));
    },
  };
}
