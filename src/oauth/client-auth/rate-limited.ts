// Brute-force protection for client authentication (RATE_LIMIT_CLIENT_AUTH_FAILURES, docs/rate-limits.md;
// RFC 6749 2.3.1 and 10.10 ask the server to stop online guessing, RFC 6585 4 for the 429). Budgets:
//   a registered client_id   per (client_id, address): a misconfigured service, or someone who knows a public
//                            client_id, uses up only its own pair — the client from elsewhere and every other
//                            client behind the same NAT are not refused because of it
//   no or unknown client_id  per address: an invented id never succeeds, so its budget refuses no one
// The attempt is charged before the secret is looked at and refunded on success; a used-up pair is refused
// with 429 even with the right secret until the window ends.
import { addressKey } from '../../http/address-key.js';
import type { RateLimits } from '../../http/rate-limit.js';
import type { ClientAuthHooks } from './index.js';
import type { ClientAuthRequest } from './presented.js';

// No address (only in unit tests that call authenticateClient directly) still gets one shared budget.
const clientAuthFailureKey = (clientId: string | undefined, request: Pick<ClientAuthRequest, 'ip'>): string => {
  const from = request.ip === undefined ? '-' : addressKey(request.ip);
  return clientId === undefined ? `ip:${from}` : `client:${clientId}|ip:${from}`;
};

export function rateLimitedClientAuth(limits: Pick<RateLimits, 'reserve'>): ClientAuthHooks {
  return {
    charge: (clientId, request) => limits.reserve('client_auth_failures', clientAuthFailureKey(clientId, request)),
  };
}
