// GET /admin/v1/outbox: the outbox's messages (docs/outbox.md), newest first, filtered by state and channel,
// in cursor pages bound to their filter — where dead letters (`?state=dead`) and failing deliveries
// (`last_error`, `attempts`, `next_attempt_at`) are visible. Read-only, and never the message's sealed
// secret (a link with a token) nor its payload.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { AdminDeps } from '../deps.js';
import type { AdminCore } from '../../admin-services/deps.js';
import { ProblemError } from '../../http/errors.js';
import { canonicalJson } from '../../http/idempotency/index.js';
import { problemResponses } from '../../http/openapi-schemas.js';
import { pagedResponse, sendPage, pageQueryProperties, parsePageQuery } from '../../http/pagination/index.js';
import { requireScope } from '../../resource-server/auth/index.js';
import { OUTBOX_STATES, type OutboxFilter, type OutboxMessageView, type OutboxState } from '../../storage/repositories/outbox-repository.js';
import { ADMIN_READ } from '../acting-as.js';
import { deliveryProgress, deliveryProgressProperties } from './delivery-progress.js';

const Query = Type.Object(
  {
    state: Type.Optional(Type.String({ description: `One of: ${OUTBOX_STATES.join(', ')}` })),
    channel: Type.Optional(Type.String({ maxLength: 40, description: 'email (later: webhook, backchannel_logout)' })),
    limit: pageQueryProperties.limit,
    cursor: pageQueryProperties.cursor,
  },
  { additionalProperties: false },
);

const MessageSchema = Type.Object({
  id: Type.String({ description: "Also the e-mail Message-ID's local part, for finding a message at the mail server" }),
  channel: Type.String(),
  kind: Type.String({ description: 'What the message is about, e.g. invitation' }),
  recipient: Type.String(),
  ...deliveryProgressProperties('pending, delivering, delivered or dead (undeliverable; kept for OUTBOX_DEAD_LETTER_RETENTION)'),
});

const ListSchema = Type.Object({
  data: Type.Array(MessageSchema),
  pagination: Type.Object({ limit: Type.Integer(), next_cursor: Type.Union([Type.String(), Type.Null()]), has_more: Type.Boolean() }),
});

const badQuery = (field: string, message: string) =>
  new ProblemError('bad-request', `The ${field} parameter is not understood.`, { errors: [{ field, message }] });

function filterOf(query: Static<typeof Query>): OutboxFilter {
  if (query.state !== undefined && !(OUTBOX_STATES as readonly string[]).includes(query.state))
    throw badQuery('state', `must be one of ${OUTBOX_STATES.join(', ')}`);
  if (query.channel !== undefined && !/^[a-z][a-z0-9_]{0,39}$/.test(query.channel)) throw badQuery('channel', 'must be a channel name such as email');
  return { ...(query.state !== undefined ? { state: query.state as OutboxState } : {}), ...(query.channel !== undefined ? { channel: query.channel } : {}) };
}

const representOutboxMessage = (m: OutboxMessageView) => ({
  id: m.id,
  channel: m.channel,
  kind: m.kind,
  recipient: m.recipient,
  ...deliveryProgress(m),
});

export async function adminOutboxRoutes(parent: FastifyInstance, { core }: { core: AdminCore & Pick<AdminDeps, 'cursors'> }): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { cursors } = core;
  const messages = core.store.outbox;
  app.get('/outbox', {
    schema: {
      tags: ['admin: outbox'],
      summary: 'Outgoing messages (e-mail) and their delivery, newest first (filters; cursor pages)',
      operationId: 'adminListOutboxMessages',
      querystring: Query,
      response: { 200: ListSchema, ...problemResponses(400, 401, 403, 406, 422) },
    },
    preHandler: requireScope(ADMIN_READ),
    handler: async (request, reply) => {
      const filter = filterOf(request.query);
      const scope = `outbox\n${canonicalJson(filter)}`;
      const page = parsePageQuery(request.query, { codec: cursors, scope });
      const before = page.style === 'cursor' ? page.after : undefined;
      const rows = await messages.page(filter, { ...(before ? { before } : {}), limit: page.limit + 1 });
      return sendPage(
        reply,
        pagedResponse(rows, page, {
          requestUrl: new URL(request.url, core.config.ISSUER),
          position: (m: OutboxMessageView) => ({ createdAt: m.createdAt, id: m.id }),
          represent: representOutboxMessage,
          cursors: { codec: cursors, scope },
        }),
      );
    },
  });
}
