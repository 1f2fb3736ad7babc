// /admin/v1/sessions: a user's signed-in browser sessions (device, address, when) and ending one — the
// browser's session cookie then finds nothing and it must sign in again. Rules: src/admin-services/user-access-service.ts.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AdminDeps } from '../deps.js';
import type { AdminCore } from '../../admin-services/deps.js';
import { strongEtag } from '../../http/conditional.js';
import { endSession, findSession, listSessions, sessionView, type UserAccessServiceDeps } from '../../admin-services/user-access-service.js';
import { userAccessRoutes } from '../user-access-routes.js';

const SessionSchema = Type.Object({
  id: Type.String({ description: 'SHA-256 of the session cookie (the cookie cannot be derived from it)' }),
  user_id: Type.String(),
  user_agent: Type.Union([Type.String(), Type.Null()], { description: 'The User-Agent it signed in with (bounded)' }),
  ip_address: Type.Union([Type.String(), Type.Null()], { description: 'The address it signed in from' }),
  amr: Type.Array(Type.String(), { description: 'How it signed in (RFC 8176)' }),
  created_at: Type.String({ format: 'date-time' }),
  signed_in_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  expires_at: Type.String({ format: 'date-time' }),
});

export async function adminSessionsRoutes(
  app: FastifyInstance,
  { core, services }: { core: AdminCore & Pick<AdminDeps, 'cursors'>; services: UserAccessServiceDeps },
): Promise<void> {
  userAccessRoutes(app, core, {
    path: 'sessions',
    singular: 'session',
    operation: 'Session',
    owners: ['user_id'],
    schema: SessionSchema,
    summaries: {
      list: "List a user's signed-in browser sessions, oldest first (cursor pages)",
      read: 'Read a browser session (strong ETag)',
      delete: 'End a browser session: its cookie stops working (If-Match required)',
    },
    list: (filter, page) => listSessions(services, filter, page),
    find: (id) => findSession(services, id),
    end: (session, as) => endSession(services, session, as),
    represent: sessionView,
    validators: (s) => ({ etag: strongEtag('session', s.id, s.expiresAt.getTime()), lastModified: s.signedInAt ?? s.createdAt }),
    position: (s) => ({ createdAt: s.createdAt, id: s.id }),
  });
}
