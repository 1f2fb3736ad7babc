// /admin/v1/grants: a user's or a client's live grants (refresh-token families), read, and revoked through
// the one revocation path — the refresh token fails with invalid_grant and the grant's access tokens are
// refused at once (docs/grant-revocation.md, docs/revocation-feed.md). Rules: src/admin-services/user-access-service.ts.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AdminDeps } from '../deps.js';
import type { AdminCore } from '../../admin-services/deps.js';
import { strongEtag } from '../../http/conditional.js';
import { findGrant, grantView, listGrants, revokeGrant, type UserAccessServiceDeps } from '../../admin-services/user-access-service.js';
import { userAccessRoutes } from '../user-access-routes.js';

const GrantSchema = Type.Object({
  id: Type.String(),
  user_id: Type.String(),
  client_id: Type.String(),
  scope: Type.String(),
  resource: Type.Union([Type.String(), Type.Null()], { description: 'The audience (RFC 8707) of its access tokens' }),
  auth_time: Type.String({ format: 'date-time' }),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time', description: 'Absolute limit of the refresh-token family' }),
});

export async function adminGrantsRoutes(
  app: FastifyInstance,
  { core, services }: { core: AdminCore & Pick<AdminDeps, 'cursors'>; services: UserAccessServiceDeps },
): Promise<void> {
  userAccessRoutes(app, core, {
    path: 'grants',
    singular: 'grant',
    operation: 'Grant',
    owners: ['user_id', 'client_id'],
    schema: GrantSchema,
    summaries: {
      list: 'List live grants of a user or a client, oldest first (cursor pages)',
      read: 'Read a live grant (strong ETag)',
      delete: 'Revoke a grant and every token issued under it (If-Match required)',
    },
    list: (filter, page) => listGrants(services, filter, page),
    find: (id) => findGrant(services, id),
    end: (grant, as) => revokeGrant(services, grant, as),
    represent: grantView,
    // A live grant never changes: it is only ended, after which it is gone (404).
    validators: (g) => ({ etag: strongEtag('grant', g.id, g.createdAt.getTime()), lastModified: g.createdAt }),
    position: (g) => ({ createdAt: g.createdAt, id: g.id }),
  });
}
