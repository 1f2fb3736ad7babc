// Login failure budgets (RATE_LIMIT_LOGIN_FAILURES a minute, docs/rate-limits.md):
//   known username    per (account, address): guessing one account's password from one address is
//                     limited, while its owner elsewhere, and everyone else behind the same NAT, are not
//                     refused because of it
//   unknown username  per address: cycling through invented names cannot buy unlimited argon2 work, and
//                     nobody is refused the right password by it (an unknown name never succeeds anyway)
// The charge is taken before the password is verified and refunded on success, so parallel guesses cannot
// all slip past a budget that is only checked; a used-up key refuses even the right password (429).
import type { RateLimits } from '../../http/rate-limit.js';
import { addressKey } from '../../http/address-key.js';
import type { LoginAttempt, LoginGuard } from './login-failures.js';

const loginFailureKey = ({ userId, ip }: LoginAttempt): string => (userId === undefined ? `ip:${addressKey(ip)}` : `user:${userId}|ip:${addressKey(ip)}`);

export function rateLimitedLogins(limits: Pick<RateLimits, 'reserve'>): LoginGuard {
  return {
    charge: (attempt) => limits.reserve('login_failures', loginFailureKey(attempt)),
  };
}
