// Unauthenticated endpoints that create state or cost real work are limited per client address, before the
// body is read. Each such route names its budget in `config.limit` (route-facts.ts). Two budgets, because
// their callers differ:
//   anonymous (RATE_LIMIT_ANONYMOUS)  dynamic registration and demo sign-in starts (each takes a slot in a
//                                     bounded store): machines, or one person trying the demo
//   pages     (RATE_LIMIT_PAGES)      /authorize, the interaction pages and logout: people, and a whole
//                                     corporate NAT shares one address (a login is 3-5 page requests)
// Neither is what stops password guessing: the failure budgets of the login do (docs/rate-limits.md).
// Discovery, JWKS and the static stylesheet stay unlimited: they are cheap, cacheable, and polled.
// `request.ip` is the socket address unless TRUST_PROXY names the proxy (src/app.ts), so a spoofed
// X-Forwarded-For cannot pick a fresh budget.
import type { FastifyInstance } from 'fastify';
import type { RateLimits } from './rate-limit.js';
import { addressKey } from './address-key.js';
import { limitRequest } from './limit-request.js';

/** A root-level onRequest hook, so it runs before the body is read; the 429 takes the route's face. */
export function installAnonymousLimit(app: FastifyInstance, limits: RateLimits): void {
  if (!limits.enabled) return;
  app.addHook('onRequest', async (request, reply) => {
    const budget = request.routeOptions.config?.limit;
    if (budget) await limitRequest(limits, reply, budget, addressKey(request.ip));
  });
}
