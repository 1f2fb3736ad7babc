// Who an admin request acts as, for the audit log: the admin client, and the user when the token was
// issued through a user's login (the admin audience is client_credentials-only today, so usually none).
import type { FastifyRequest } from 'fastify';
import { authenticatedPrincipal } from '../resource-server/auth/index.js';
import type { ActingAs } from '../admin-services/clients-service.js';

export const ADMIN_READ = 'admin:read';
export const ADMIN_WRITE = 'admin:write';

export function actingAs(request: FastifyRequest): ActingAs {
  const principal = authenticatedPrincipal(request);
  return {
    actor: { kind: 'admin-client', clientId: principal.clientId, ...(principal.kind === 'user' ? { userId: principal.sub } : {}) },
    traceId: request.id,
  };
}
