// /admin/v1/consents: what users approved for which clients, and revoking a consent — which also ends that
// user's grants at that client, as the account page's "revoke app" does (docs/grant-revocation.md).
// Rules: src/admin-services/user-access-service.ts.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AdminDeps } from '../deps.js';
import type { AdminCore } from '../../admin-services/deps.js';
import { strongEtag } from '../../http/conditional.js';
import { consentView, findConsent, listConsents, revokeConsent, type UserAccessServiceDeps } from '../../admin-services/user-access-service.js';
import { userAccessRoutes } from '../user-access-routes.js';

const ConsentSchema = Type.Object({
  id: Type.String(),
  user_id: Type.String(),
  client_id: Type.String(),
  scope: Type.String({ description: 'Every scope the user approved for the client' }),
  granted_at: Type.String({ format: 'date-time', description: 'The last approval' }),
});

export async function adminConsentsRoutes(
  app: FastifyInstance,
  { core, services }: { core: AdminCore & Pick<AdminDeps, 'cursors'>; services: UserAccessServiceDeps },
): Promise<void> {
  userAccessRoutes(app, core, {
    path: 'consents',
    singular: 'consent',
    operation: 'Consent',
    owners: ['user_id', 'client_id'],
    schema: ConsentSchema,
    summaries: {
      list: 'List consents of a user or a client, oldest approval first (cursor pages)',
      read: 'Read a consent (strong ETag)',
      delete: "Revoke a consent and the user's grants at that client (If-Match required)",
    },
    list: (filter, page) => listConsents(services, filter, page),
    find: (id) => findConsent(services, id),
    end: (consent, as) => revokeConsent(services, consent, as),
    represent: consentView,
    // Re-approving (more scopes) changes granted_at and the scopes: the ETag follows both.
    validators: (c) => ({ etag: strongEtag('consent', c.id, c.grantedAt.getTime(), c.scopes.join(' ')), lastModified: c.grantedAt }),
    position: (c) => ({ createdAt: c.grantedAt, id: c.id }),
  });
}
