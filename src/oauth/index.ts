// The authorization server face. One line per endpoint module; each receives the narrow slice of the
// services (src/services.ts) it uses and builds nothing itself.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ERROR_EDGE_PLUGIN, FORM_BODY_PLUGIN, JOBS_PLUGIN } from '../face-dependencies.js';
import { corsEndpoints } from './cors/cors.js';
import { authorizationEndpoint } from './authorize/index.js';
import { discoveryEndpoints } from './discovery.js';
import { jwksEndpoint } from './jwks.js';
import { auditCheckpointsEndpoint } from './audit-checkpoints.js';
import { oauthRefusalMetrics } from './oauth-metrics.js';
import { tokenEndpoint } from './token-endpoint/index.js';
import { revocationEndpoint } from './revoke.js';
import { introspectionEndpoint } from './introspect.js';
import { resourceServerFeedEndpoints } from './resources/resource-server-feed.js';
import { registrationEndpoints } from './register/index.js';
import { userinfoEndpoint } from './userinfo.js';
import { securityEventLog } from './refresh/security-events.js';
import { deviceAuthorizationEndpoint } from './device/device-authorization-endpoint.js';

export type OAuthServices = Parameters<typeof corsEndpoints>[1] &
  Parameters<typeof discoveryEndpoints>[1] &
  Parameters<typeof authorizationEndpoint>[1] &
  Parameters<typeof jwksEndpoint>[1] &
  Parameters<typeof auditCheckpointsEndpoint>[1] &
  Parameters<typeof tokenEndpoint>[1] &
  Parameters<typeof revocationEndpoint>[1] &
  Parameters<typeof introspectionEndpoint>[1] &
  Parameters<typeof resourceServerFeedEndpoints>[1] &
  Parameters<typeof registrationEndpoints>[1] &
  Parameters<typeof userinfoEndpoint>[1] &
  Parameters<typeof securityEventLog>[1] &
  Parameters<typeof oauthRefusalMetrics>[1] &
  Parameters<typeof deviceAuthorizationEndpoint>[1];

type Registration = (app: FastifyInstance, services: OAuthServices) => void | Promise<void>;

const registrations: readonly Registration[] = [
  // First: its onSend hook must be in place for every route below.
  corsEndpoints,
  discoveryEndpoints,
  authorizationEndpoint,
  jwksEndpoint,
  auditCheckpointsEndpoint,
  tokenEndpoint,
  deviceAuthorizationEndpoint,
  revocationEndpoint,
  introspectionEndpoint,
  resourceServerFeedEndpoints,
  registrationEndpoints,
  userinfoEndpoint,
  securityEventLog,
  oauthRefusalMetrics,
];

async function endpoints(app: FastifyInstance, { services }: { services: OAuthServices }): Promise<void> {
  for (const register of registrations) await register(app, services);
}

export const authorizationServer = fp(endpoints, {
  name: 'gatehouse-oauth',
  encapsulate: true,
  dependencies: [ERROR_EDGE_PLUGIN, FORM_BODY_PLUGIN, JOBS_PLUGIN],
});
