// GET /admin/v1/audit-events: the audit log, newest first, filtered by type, subject, client, actor and time
// range, in cursor pages bound to their filter (docs/audit-log.md). Read-only: there is no route that
// changes an event.
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
import type { AuditEventFilter, StoredAuditEvent } from '../../storage/repositories/audit-events-repository.js';
import { AUDIT_EVENT_TYPES, isAuditEventType } from '../../audit/audit-events.js';
import { ADMIN_READ } from '../acting-as.js';

const Query = Type.Object(
  {
    type: Type.Optional(Type.String({ description: `One of: ${AUDIT_EVENT_TYPES.join(', ')}` })),
    subject: Type.Optional(Type.String({ maxLength: 200, description: 'The user or resource id the event concerns' })),
    client_id: Type.Optional(Type.String({ maxLength: 200, description: 'The client the event concerns, or the admin client that acted' })),
    actor: Type.Optional(
      Type.String({
        maxLength: 200,
        description:
          "Who acted: a user id (the user, or an operator through the console) or the CLI's operating-system user; an admin client acting alone is found with client_id",
      }),
    ),
    since: Type.Optional(Type.String({ description: 'RFC 3339; events at or after' })),
    until: Type.Optional(Type.String({ description: 'RFC 3339; events before' })),
    limit: pageQueryProperties.limit,
    cursor: pageQueryProperties.cursor,
  },
  { additionalProperties: false },
);

const EventSchema = Type.Object({
  id: Type.String(),
  type: Type.String(),
  occurred_at: Type.String({ format: 'date-time' }),
  actor: Type.Object({
    kind: Type.String(),
    client_id: Type.Optional(Type.String()),
    user_id: Type.Optional(Type.String()),
    user: Type.Optional(Type.String()),
  }),
  resource: Type.Optional(Type.String()),
  resource_id: Type.Optional(Type.String()),
  subject: Type.Optional(Type.String()),
  client_id: Type.Optional(Type.String()),
  changed_fields: Type.Array(Type.String(), { description: 'Names only: values (and secrets) are never recorded' }),
  details: Type.Record(Type.String(), Type.Unknown()),
  trace_id: Type.Optional(Type.String()),
});

const ListSchema = Type.Object({
  data: Type.Array(EventSchema),
  pagination: Type.Object({ limit: Type.Integer(), next_cursor: Type.Union([Type.String(), Type.Null()]), has_more: Type.Boolean() }),
});

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/i;

function time(field: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (!RFC3339.test(value) || Number.isNaN(date.getTime())) throw badQuery(field, 'must be an RFC 3339 date-time');
  return date;
}

const badQuery = (field: string, message: string) =>
  new ProblemError('bad-request', `The ${field} parameter is not understood.`, { errors: [{ field, message }] });

function filterOf(query: Static<typeof Query>): AuditEventFilter {
  if (query.type !== undefined && !isAuditEventType(query.type)) throw badQuery('type', `must be one of ${AUDIT_EVENT_TYPES.join(', ')}`);
  const since = time('since', query.since);
  const until = time('until', query.until);
  return {
    ...(query.type !== undefined ? { type: query.type as AuditEventFilter['type'] } : {}),
    ...(query.subject !== undefined ? { subject: query.subject } : {}),
    ...(query.client_id !== undefined ? { clientId: query.client_id } : {}),
    ...(query.actor !== undefined ? { actor: query.actor } : {}),
    ...(since ? { since } : {}),
    ...(until ? { until } : {}),
  };
}

function representEvent(event: StoredAuditEvent) {
  const { actor } = event;
  return {
    id: event.id,
    type: event.type,
    occurred_at: event.occurredAt.toISOString(),
    actor: {
      kind: actor.kind,
      ...(actor.kind === 'admin-client' ? { client_id: actor.clientId, ...(actor.userId ? { user_id: actor.userId } : {}) } : {}),
      ...(actor.kind === 'user' ? { user_id: actor.userId, ...(actor.clientId ? { client_id: actor.clientId } : {}) } : {}),
      ...(actor.kind === 'cli' ? { user: actor.user } : {}),
    },
    ...(event.resource !== undefined ? { resource: event.resource } : {}),
    ...(event.resourceId !== undefined ? { resource_id: event.resourceId } : {}),
    ...(event.subject !== undefined ? { subject: event.subject } : {}),
    ...(event.clientId !== undefined ? { client_id: event.clientId } : {}),
    changed_fields: [...(event.changedFields ?? [])],
    details: event.details ?? {},
    ...(event.traceId !== undefined ? { trace_id: event.traceId } : {}),
  };
}

export async function auditEventsRoutes(parent: FastifyInstance, { core }: { core: AdminCore & Pick<AdminDeps, 'cursors'> }): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { cursors } = core;
  const events = core.store.auditEvents;
  app.get('/audit-events', {
    schema: {
      tags: ['admin: audit events'],
      summary: 'The audit log, newest first (filters; cursor pages)',
      operationId: 'adminListAuditEvents',
      querystring: Query,
      response: { 200: ListSchema, ...problemResponses(400, 401, 403, 406, 422) },
    },
    preHandler: requireScope(ADMIN_READ),
    handler: async (request, reply) => {
      const filter = filterOf(request.query);
      const scope = `audit-events\n${canonicalJson({ ...filter, since: filter.since?.toISOString(), until: filter.until?.toISOString() })}`;
      const page = parsePageQuery(request.query, { codec: cursors, scope });
      const before = page.style === 'cursor' ? page.after : undefined;
      const rows = await events.page(filter, { ...(before ? { before } : {}), limit: page.limit + 1 });
      return sendPage(
        reply,
        pagedResponse(rows, page, {
          requestUrl: new URL(request.url, core.config.ISSUER),
          position: (e: StoredAuditEvent) => ({ createdAt: e.occurredAt, id: e.id }),
          represent: representEvent,
          cursors: { codec: cursors, scope },
        }),
      );
    },
  });
}
