// Brute-force protection for client authentication (RATE_LIMIT_CLIENT_AUTH_FAILURES):
// failures are counted per claimed client_id and per client IP, and while either budget is used up every
// attempt is refused with 429 before the credentials are even looked at, so a client whose secret is
// being guessed is refused even with the right secret until the window ends (RFC 6749 10.10 asks the
// server to stop online guessing; RFC 6585 4 for the 429).
import type { RateLimits } from '../../http/rate-limit.js';
import type { ClientAuthHooks } from './index.js';
import type { ClientAuthRequest } from './presented.js';

const keysOf = (clientId: string | undefined, request: ClientAuthRequest): string[] => [
  ...(clientId !== undefined ? [`client:${clientId}`] : []),
  ...(request.ip !== undefined ? [`ip:${request.ip}`] : []),
];

export function rateLimitedClientAuth(limits: RateLimits): ClientAuthHooks {
  return {
    async beforeAttempt(clientId, request) {
      for (const key of keysOf(clientId, request)) await limits.assertNotBlocked('client_auth_failures', key);
    },
    async onFailure(clientId, _reason, request) {
      await Promise.all(keysOf(clientId, request).map((key) => limits.fail('client_auth_failures', key)));
    },
  };
}
