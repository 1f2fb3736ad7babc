// One API version: its deprecation policy, bearer authentication, the shared HTTP conventions, and the
// resources. The same plugin can be mounted under another prefix (tests mount a deprecated /v0).
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from './deps.js';
import { installVersionPolicy } from '../http/versioning.js';
import type { ResourceServerAuth } from '../resource-server/auth/index.js';
import { installApiConventions } from '../resource-server/conventions.js';
import { collectOptionsRoutes } from '../resource-server/options-route.js';
import { limitPerSubject } from '../resource-server/subject-limit.js';
import { usersRoutes, type UsersServices } from './users/index.js';
import { ordersRoutes, type OrdersServices } from './orders/index.js';
import { paymentsRoutes, type PaymentsServices } from './payments/index.js';
import { reportsRoutes, type ReportsServices } from './reports/index.js';

/** What one version of the API uses: the resources' slices and the shared conventions'. */
export type ApiServices = Pick<ApiDeps, 'config' | 'clock' | 'rateLimits' | 'resourceAuth'> &
  UsersServices &
  OrdersServices &
  PaymentsServices &
  ReportsServices;

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
