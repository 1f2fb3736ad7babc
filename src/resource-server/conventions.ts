// The HTTP conventions of every resource-server face (/v1 and /admin/v1 alike): bearer authentication,
// content negotiation, JSON bodies and caching. Each face installs them once on its own scope.
import type { FastifyInstance } from 'fastify';
import { acceptJsonOnly } from '../http/negotiation.js';
import { privateNoCache } from '../http/cache-control.js';
import { acceptMergePatch, requireJsonBody } from '../http/json-body.js';
import { authenticateRequests, refuseTokenInBody, type ResourceServerAuth } from './auth/index.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Serve without a bearer token (OPTIONS only). */
    anonymous?: boolean;
    /** Media types the route produces; default JSON (406 otherwise). Routes that negotiate themselves set `[]`. */
    produces?: readonly string[];
  }
}

/**
 * The conventions every resource route of a face shares, in order: bearer authentication (before the
 * body is read), 406 for an unacceptable `Accept`, the one-token-location rule for bodies, 415 for
 * non-JSON bodies, `Cache-Control: private, no-cache` and merge-patch parsing.
 */
export function installApiConventions(app: FastifyInstance, auth: ResourceServerAuth): void {
  const authenticate = authenticateRequests(auth.server);
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config?.anonymous) return;
    await authenticate(request);
    if (request.routeOptions.config?.produces === undefined) await acceptJsonOnly(request, reply);
  });
  app.addHook('preValidation', refuseTokenInBody);
  app.addHook('preValidation', requireJsonBody);
  app.addHook('onSend', privateNoCache);
  acceptMergePatch(app);
}
