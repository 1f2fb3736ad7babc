// The authorization server face. One line per endpoint module; each builds what it needs from `core`.
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';
import { corsEndpoints } from './cors/cors.js';
import { discoveryEndpoints } from './discovery.js';
import { jwksEndpoint } from './jwks.js';
import { tokenEndpoint } from './token/index.js';
import { revocationEndpoint } from './revoke.js';
import { introspectionEndpoint } from './introspect.js';
import { registrationEndpoints } from './register/index.js';
import { oauthHousekeeping } from './housekeeping.js';
import { userinfoEndpoint } from './userinfo.js';
import { securityEventLog } from './refresh/security-events.js';

type Registration = (app: FastifyInstance, core: Core) => void | Promise<void>;

const registrations: readonly Registration[] = [
  // First: its onSend hook must be in place for every route below.
  corsEndpoints,
  discoveryEndpoints,
  jwksEndpoint,
  tokenEndpoint,
  revocationEndpoint,
  introspectionEndpoint,
  registrationEndpoints,
  oauthHousekeeping,
  userinfoEndpoint,
  securityEventLog,
];

export async function authorizationServer(app: FastifyInstance, { core }: { core: Core }): Promise<void> {
  for (const register of registrations) await register(app, core);
}
