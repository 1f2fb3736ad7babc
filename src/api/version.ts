// One API version: its deprecation policy, bearer authentication, the shared HTTP conventions, and the
// resources. The same plugin can be mounted under another prefix (tests mount a deprecated /v0).
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.js';
import { installVersionPolicy } from '../http/versioning.js';
import { acceptJsonOnly } from '../http/negotiation.js';
import { privateNoCache } from '../http/cache-control.js';
import { acceptMergePatch, requireJsonBody } from '../http/json-body.js';
import { authenticateRequests, refuseTokenInBody, type ResourceServerAuth } from './auth/index.js';
import { collectOptionsRoutes } from './options-route.js';
import { limitPerSubject } from './subject-limit.js';
import { usersRoutes, type UsersServices } from './users/index.js';
import { ordersRoutes, type OrdersServices } from './orders/index.js';
import { paymentsRoutes, type PaymentsServices } from './payments/index.js';
import { reportsRoutes, type ReportsServices } from './reports/index.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Serve without a bearer token (OPTIONS only). */
    anonymous?: boolean;
    /** Media types the route produces; default JSON (406 otherwise). Routes that negotiate themselves set `[]`. */
    produces?: readonly string[];
  }
}

/** What one version of the API uses: the resources' slices and the shared conventions'. */
export type ApiServices = Pick<Services, 'config' | 'clock' | 'rateLimits' | 'resourceAuth'> &
  UsersServices & OrdersServices & PaymentsServices & ReportsServices;

export interface ApiVersionOptions {
  version: string;
  services: ApiServices;
  /** Bearer authentication; default `services.resourceAuth` (tests and benchmarks mount other variants). */
  auth?: ResourceServerAuth;
}

export async function apiVersion(app: FastifyInstance, { version, services, auth = services.resourceAuth }: ApiVersionOptions): Promise<void> {
  installVersionPolicy(app, { version, config: services.config, clock: services.clock });
  installApiConventions(app, auth);
  limitPerSubject(app, services.rateLimits);
  const registerOptionsRoutes = collectOptionsRoutes(app);
  await app.register(usersRoutes, { services });
  await app.register(ordersRoutes, { services });
  await app.register(paymentsRoutes, { services });
  await app.register(reportsRoutes, { services });
  registerOptionsRoutes(); // stays last: one OPTIONS route per resource URL registered above
}

/**
 * The conventions every resource route of a version shares, in order: bearer authentication (before the
 * body is read), 406 for an unacceptable `Accept`, the one-token-location rule for bodies, 415 for
 * non-JSON bodies, `Cache-Control: private, no-cache` and merge-patch parsing.
 */
export function installApiConventions(app: FastifyInstance, auth: ResourceServerAuth): void {
  const authenticate = authenticateRequests(auth.authenticator, auth.possession);
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
