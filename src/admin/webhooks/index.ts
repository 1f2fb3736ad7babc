// /admin/v1/webhooks (docs/webhooks.md): create (Idempotency-Key required; the signing secret is shown only
// there), read (strong ETag), list (cursor pages), replace, merge-patch and delete (If-Match required), as a
// versioned resource (../versioned-resource.ts); beside it the secret's rotation with a grace period, the
// endpoint's deliveries (the outbox's `webhook` messages to it, dead letters included) and the redelivery of
// a dead letter. The id in the path is the endpoint's id or its name. Every rule is in
// src/admin-services/webhooks-service.ts, shared with the CLI and `gatehouse apply`.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import type { AdminDeps } from '../deps.js';
import type { AdminCore } from '../../admin-services/deps.js';
import { strongEtag, type Validators } from '../../http/conditional.js';
import { ProblemError } from '../../http/errors.js';
import { idempotencyKeyHeader } from '../../http/idempotency/index.js';
import { problemResponses } from '../../http/openapi-schemas.js';
import { pagedResponse, parsePageQuery, sendPage } from '../../http/pagination/index.js';
import { requireScope } from '../../resource-server/auth/index.js';
import {
  createWebhookRecord,
  deleteWebhookRecord,
  findWebhookRecord,
  listWebhookDeliveries,
  listWebhookRecords,
  redeliverWebhook,
  rotateWebhookSecret,
  updateWebhookRecord,
  webhookView,
  type WebhookInput,
  type WebhookServiceDeps,
} from '../../admin-services/webhooks-service.js';
import { OUTBOX_STATES, type OutboxMessageView, type OutboxState } from '../../storage/repositories/outbox-repository.js';
import type { WebhookEndpoint } from '../../storage/repositories/webhook-endpoints-repository.js';
import { actingAs, ADMIN_READ, ADMIN_WRITE } from '../acting-as.js';
import { mergePatched } from '../merge-patched.js';
import { deliveryProgress } from '../outbox/delivery-progress.js';
import { asProblems } from '../service-errors.js';
import { versionedResource } from '../versioned-resource.js';
import {
  CreatedWebhookSchema,
  DeliveriesQuery,
  DeliveryListSchema,
  DeliveryParams,
  DeliverySchema,
  RotatedWebhookSecretSchema,
  RotateWebhookSecretSchema,
  WebhookInputSchema,
  WebhookParams,
  WebhookSchema,
  type WebhookInputBody,
} from './schemas.js';

const NAME = 'webhook endpoint';
const TAGS = ['admin: webhooks'];

const validators = (e: WebhookEndpoint): Validators => ({ etag: strongEtag('webhook', e.id, e.version), lastModified: e.updatedAt });

const input = (body: WebhookInputBody): WebhookInput => ({
  name: body.name,
  url: body.url,
  ...(body.description !== undefined ? { description: body.description } : {}),
  ...(body.event_types !== undefined ? { eventTypes: body.event_types } : {}),
  ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
});

const writableView = (e: WebhookEndpoint): WebhookInputBody => ({
  name: e.name,
  url: e.url,
  description: e.description,
  event_types: e.eventTypes,
  enabled: e.enabled,
});

const representDelivery = (m: OutboxMessageView): Static<typeof DeliverySchema> => ({ id: m.id, event_type: m.kind, ...deliveryProgress(m) });

export async function adminWebhooksRoutes(
  parent: FastifyInstance,
  { core, services }: { core: AdminCore & Pick<AdminDeps, 'idempotency' | 'cursors'>; services: WebhookServiceDeps },
): Promise<void> {
  const represent = (e: WebhookEndpoint) => webhookView(e, core.clock.now()) as Static<typeof WebhookSchema>;
  const webhooks = versionedResource(parent, core, {
    path: 'webhooks',
    name: NAME,
    operation: 'Webhook',
    id: WebhookParams.properties.id,
    schema: WebhookSchema,
    represent,
    validators,
    idOf: (e) => e.id,
    find: (id) => findWebhookRecord(services, id),
    conflicts: true,
    list: {
      summary: 'List webhook endpoints, oldest first (cursor pages)',
      rows: (_query, { after, limit }) => listWebhookRecords(services, { ...(after ? { after } : {}), limit }),
      position: (e) => ({ createdAt: e.createdAt, id: e.id }),
    },
    create: {
      summary: 'Register a webhook endpoint (Idempotency-Key required; its signing secret is shown only here)',
      body: WebhookInputSchema,
      response: CreatedWebhookSchema,
      run: async (body, tx, as) => {
        const { endpoint, secret } = await createWebhookRecord({ ...services, store: tx }, input(body), as);
        return { row: endpoint, once: { secret } };
      },
    },
    update: {
      summaries: {
        replace: "Replace a webhook endpoint's settings (If-Match required)",
        patch: 'Change some settings of a webhook endpoint (RFC 7396 merge patch; If-Match required)',
      },
      body: WebhookInputSchema,
      replaced: (_current, body) => body,
      patched: (current, patch) => mergePatched(patch, { name: NAME, schema: WebhookInputSchema, view: represent(current), writable: writableView(current) }),
      save: (current, body, as) => updateWebhookRecord(services, current, input(body), current.version, as),
    },
    remove: {
      summary: 'Delete a webhook endpoint (If-Match required; its undelivered messages become dead letters)',
      run: (current, as) => deleteWebhookRecord(services, current, current.version, as),
    },
  });

  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  app.post('/webhooks/:id/rotate-secret', {
    schema: {
      tags: TAGS,
      summary: 'Rotate the signing secret; the previous one signs too (a second signature) for grace_period seconds (Idempotency-Key required)',
      operationId: 'adminRotateWebhookSecret',
      params: WebhookParams,
      body: RotateWebhookSecretSchema,
      headers: idempotencyKeyHeader(true),
      response: { 201: RotatedWebhookSecretSchema, ...problemResponses(400, 401, 403, 404, 406, 412, 415, 422) },
    },
    preHandler: requireScope(ADMIN_WRITE),
    ...core.idempotency.route<{ Params: Static<typeof WebhookParams>; Body: Static<typeof RotateWebhookSecretSchema> }>(
      { required: true },
      async (request, tx) => {
        const inTx = { ...services, store: tx };
        // An If-Match, when sent, pins the rotation to the version read.
        const pinned = await webhooks.pinned(request, request.params.id, (id) => findWebhookRecord(inTx, id));
        const current = pinned ?? (await asProblems(NAME, () => findWebhookRecord(inTx, request.params.id)));
        const grace = request.body.grace_period;
        const { endpoint, secret } = await asProblems(NAME, () =>
          rotateWebhookSecret(inTx, current, { ...(grace !== undefined ? { graceSeconds: grace } : {}) }, pinned?.version, actingAs(request)),
        );
        const body = { id: endpoint.id, previous_secret_expires_at: endpoint.previousSecretExpiresAt?.toISOString() ?? null };
        return { status: 201, headers: { etag: validators(endpoint).etag }, body: { ...body, secret }, replayBody: body };
      },
    ),
  });

  app.get('/webhooks/:id/deliveries', {
    schema: {
      tags: TAGS,
      summary: "The endpoint's deliveries, newest first (filter state=dead for dead letters; cursor pages)",
      operationId: 'adminListWebhookDeliveries',
      params: WebhookParams,
      querystring: DeliveriesQuery,
      response: { 200: DeliveryListSchema, ...problemResponses(400, 401, 403, 404, 406, 422) },
    },
    preHandler: requireScope(ADMIN_READ),
    handler: async (request, reply) => {
      const { state } = request.query;
      if (state !== undefined && !(OUTBOX_STATES as readonly string[]).includes(state)) {
        throw new ProblemError('bad-request', 'The state parameter is not understood.', {
          errors: [{ field: 'state', message: `must be one of ${OUTBOX_STATES.join(', ')}` }],
        });
      }
      const endpoint = await webhooks.find(request.params.id);
      const scope = `webhook-deliveries\n${endpoint.id}\n${state ?? ''}`;
      const page = parsePageQuery(request.query, { codec: core.cursors, scope });
      const before = page.style === 'cursor' ? page.after : undefined;
      const rows = await listWebhookDeliveries(services, endpoint, state !== undefined ? { state: state as OutboxState } : {}, {
        ...(before ? { before } : {}),
        limit: page.limit + 1,
      });
      return sendPage(
        reply,
        pagedResponse(rows, page, {
          requestUrl: new URL(request.url, core.config.ISSUER),
          position: (m: OutboxMessageView) => ({ createdAt: m.createdAt, id: m.id }),
          represent: representDelivery,
          cursors: { codec: core.cursors, scope },
        }),
      );
    },
  });

  app.post('/webhooks/:id/deliveries/:delivery/redeliver', {
    schema: {
      tags: TAGS,
      summary: 'Send a dead letter again (same webhook-id, a fresh attempt budget); 409 unless it is dead',
      operationId: 'adminRedeliverWebhook',
      params: DeliveryParams,
      response: { 200: DeliverySchema, ...problemResponses(400, 401, 403, 404, 406, 409) },
    },
    preHandler: requireScope(ADMIN_WRITE),
    handler: async (request) => {
      const endpoint = await webhooks.find(request.params.id);
      return representDelivery(await asProblems('delivery', () => redeliverWebhook(services, endpoint, request.params.delivery, actingAs(request))));
    },
  });
}
