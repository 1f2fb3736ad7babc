// Unauthenticated endpoints that create state or cost real work are limited per client IP
// (RATE_LIMIT_ANONYMOUS): dynamic registration, the authorization endpoint (it parks an
// interaction row), the interaction pages, logout and the demo's sign-in. Discovery, JWKS and the static stylesheet stay
// unlimited: they are cheap, cacheable, and relying parties poll them.
// `request.ip` is the socket address unless TRUST_PROXY names the proxy (src/app.ts), so a spoofed
// X-Forwarded-For cannot pick a fresh budget.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RateLimits } from './rate-limit.js';
import { limitRequest } from './limit-request.js';

/** Route patterns (as registered) limited per IP. */
export const ANONYMOUS_ROUTES: ReadonlySet<string> = new Set([
  '/register',
  '/register/:client_id',
  '/authorize',
  '/interaction/:id',
  '/interaction/:id/login',
  '/interaction/:id/consent',
  '/logout',
  // Each demo sign-in start takes a slot in the demo's bounded session store: unlimited, one address
  // could push every other visitor's session out.
  '/demo/login',
  '/demo/callback',
]);

const isAnonymousRoute = (request: FastifyRequest): boolean => ANONYMOUS_ROUTES.has(request.routeOptions.url ?? '');

/** A root-level onRequest hook, so it runs before the body is read; the 429 takes the route's face. */
export function installAnonymousLimit(app: FastifyInstance, limits: RateLimits): void {
  if (!limits.enabled) return;
  app.addHook('onRequest', async (request, reply) => {
    if (isAnonymousRoute(request)) await limitRequest(limits, reply, 'anonymous', request.ip);
  });
}
