// The resource API is limited per token subject (RATE_LIMIT_API): after bearer validation,
// each request counts against `principal.sub` (the user for user tokens, the client for client_credentials),
// and every answer carries RateLimit-Policy / RateLimit. Anonymous routes (OPTIONS) have no subject.
import type { FastifyInstance } from 'fastify';
import type { RateLimits } from '../http/rate-limit.js';
import { limitRequest } from '../http/limit-request.js';

/** Adds an onRequest hook; register it after bearer authentication's hook (hooks run in order). */
export function limitPerSubject(app: FastifyInstance, limits: RateLimits): void {
  if (!limits.enabled) return;
  app.addHook('onRequest', async (request, reply) => {
    if (request.principal) await limitRequest(limits, reply, 'api', request.principal.sub);
  });
}
