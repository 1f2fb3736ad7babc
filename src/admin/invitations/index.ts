// /admin/v1/users/invitations (docs/email.md): invite a person by e-mail address (Idempotency-Key required) —
// the account is created and a set-your-password link is mailed through the outbox —, list the pending
// invitations (newest first, cursor pages), and revoke one (its link stops working; the account stays until
// deleted). The link's token is never part of any response: only the invitee's mailbox receives it.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { AdminDeps } from '../deps.js';
import type { AdminCore } from '../../admin-services/deps.js';
import { idempotencyKeyHeader } from '../../http/idempotency/index.js';
import { problemResponses } from '../../http/openapi-schemas.js';
import { pagedResponse, sendPage, pageQueryProperties, parsePageQuery } from '../../http/pagination/index.js';
import { requireScope } from '../../resource-server/auth/index.js';
import { inviteUser, listPendingInvitations, revokeInvitation, type Invitation, type InvitationDeps } from '../../invitations/invitations.js';
import { actingAs, ADMIN_READ, ADMIN_WRITE } from '../acting-as.js';
import { asProblems } from '../service-errors.js';

const tags = ['admin: users'];
const PATH = '/users/invitations';

const CreateSchema = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254, description: 'Where the set-your-password link is sent' }),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Defaults to the e-mail address' })),
    locale: Type.Optional(
      Type.String({ maxLength: 35, description: "Language of the e-mail (en, de); defaults to the request's Accept-Language, then English" }),
    ),
  },
  { additionalProperties: false },
);

const InvitationSchema = Type.Object({
  id: Type.String(),
  user_id: Type.String(),
  email: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time' }),
});

const ListSchema = Type.Object({
  data: Type.Array(InvitationSchema),
  pagination: Type.Object({ limit: Type.Integer(), next_cursor: Type.Union([Type.String(), Type.Null()]), has_more: Type.Boolean() }),
});

const ListQuery = Type.Object({ limit: pageQueryProperties.limit, cursor: pageQueryProperties.cursor }, { additionalProperties: false });
const Params = Type.Object({ id: Type.String({ maxLength: 100 }) });

const represent = (i: Invitation) => ({
  id: i.id,
  user_id: i.userId,
  email: i.email,
  created_at: i.createdAt.toISOString(),
  expires_at: i.expiresAt.toISOString(),
});

export async function adminInvitationsRoutes(
  parent: FastifyInstance,
  { core, services }: { core: AdminCore & Pick<AdminDeps, 'idempotency' | 'cursors'>; services: InvitationDeps },
): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { idempotency, cursors } = core;

  app.post(PATH, {
    schema: {
      tags,
      summary: 'Invite a person by e-mail: creates the account and mails a single-use set-your-password link (Idempotency-Key required)',
      operationId: 'adminInviteUser',
      body: CreateSchema,
      headers: idempotencyKeyHeader(true),
      response: { 201: InvitationSchema, ...problemResponses(400, 401, 403, 406, 409, 413, 415, 422) },
    },
    preHandler: requireScope(ADMIN_WRITE),
    ...idempotency.route<{ Body: Static<typeof CreateSchema> }>({ required: true }, async (request, tx) => {
      const { email, name, username, locale } = request.body;
      const { invitation } = await asProblems('invitation', () =>
        inviteUser({ ...services, store: tx }, { email, name, username, locale: locale ?? request.headers['accept-language'] }, actingAs(request)),
      );
      return { status: 201, headers: { location: `${core.config.ISSUER}/admin/v1${PATH}/${invitation.id}` }, body: represent(invitation) };
    }),
  });

  app.get(PATH, {
    schema: {
      tags,
      summary: 'Pending invitations (not accepted, revoked or expired), newest first (cursor pages)',
      operationId: 'adminListInvitations',
      querystring: ListQuery,
      response: { 200: ListSchema, ...problemResponses(400, 401, 403, 406, 422) },
    },
    preHandler: requireScope(ADMIN_READ),
    handler: async (request, reply) => {
      const scope = 'invitations';
      const page = parsePageQuery(request.query, { codec: cursors, scope });
      const before = page.style === 'cursor' ? page.after : undefined;
      const rows = await listPendingInvitations(services, { ...(before ? { before } : {}), limit: page.limit + 1 });
      return sendPage(
        reply,
        pagedResponse(rows, page, {
          requestUrl: new URL(request.url, core.config.ISSUER),
          position: (i: Invitation) => ({ createdAt: i.createdAt, id: i.id }),
          represent,
          cursors: { codec: cursors, scope },
        }),
      );
    },
  });

  app.delete(`${PATH}/:id`, {
    schema: {
      tags,
      summary: 'Revoke a pending invitation: its link stops working (the account stays until deleted)',
      operationId: 'adminRevokeInvitation',
      params: Params,
      response: { 204: Type.Null({ description: 'Revoked' }), ...problemResponses(401, 403, 404) },
    },
    preHandler: requireScope(ADMIN_WRITE),
    handler: async (request, reply) => {
      await asProblems('invitation', () => revokeInvitation(services, request.params.id, actingAs(request)));
      return reply.code(204).send(null);
    },
  });
}
