// /admin/v1/webhooks schemas: one source for the input shape (failures → 400), response serialisation and
// the OpenAPI document. Value rules are the service's (→ 422). No response member ever holds a secret but
// the one the create and the rotation answer once.
import { Type, type Static } from '@sinclair/typebox';
import { WEBHOOK_EVENT_TYPES } from '../../webhooks/event-types.js';
import { OUTBOX_STATES } from '../../storage/repositories/outbox-repository.js';
import { pageQueryProperties } from '../../http/pagination/index.js';
import { deliveryProgressProperties } from '../outbox/delivery-progress.js';

const writable = {
  name: Type.String({ maxLength: 63, description: 'Unique; lower-case letters, digits and hyphens (how the CLI and `apply` name it)' }),
  url: Type.String({ maxLength: 2048, description: 'https, on a public address, unless its host is in WEBHOOK_ALLOWED_HOSTS' }),
  description: Type.Optional(Type.String({ maxLength: 500 })),
  event_types: Type.Optional(
    Type.Array(Type.String({ maxLength: 64 }), {
      maxItems: 50,
      description: `The event types it receives; empty or absent: all (${WEBHOOK_EVENT_TYPES.join(', ')})`,
    }),
  ),
  enabled: Type.Optional(Type.Boolean({ description: 'Default true; a disabled endpoint is sent nothing' })),
};

export const WebhookInputSchema = Type.Object(writable, { additionalProperties: false });
export type WebhookInputBody = Static<typeof WebhookInputSchema>;

export const WebhookSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  url: Type.String(),
  description: Type.String(),
  event_types: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  previous_secret_expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: "While a rotation's grace period lasts, deliveries carry a second signature with the previous secret until then",
  }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

const secret = Type.String({ description: 'The signing secret (whsec_…), shown once, only in this response' });
export const CreatedWebhookSchema = Type.Object({ ...WebhookSchema.properties, secret });

export const RotateWebhookSecretSchema = Type.Object(
  {
    grace_period: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 604_800,
        description: 'Seconds the previous secret keeps signing (a second signature); default 86400, 0: stops at once',
      }),
    ),
  },
  { additionalProperties: false },
);
export const RotatedWebhookSecretSchema = Type.Object({
  id: Type.String(),
  secret,
  previous_secret_expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const WebhookParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'The endpoint id, or its name' }) });
export const DeliveryParams = Type.Object({ id: Type.String({ maxLength: 100 }), delivery: Type.String({ maxLength: 100 }) });

export const DeliveriesQuery = Type.Object(
  {
    state: Type.Optional(Type.String({ description: `One of: ${OUTBOX_STATES.join(', ')}` })),
    limit: pageQueryProperties.limit,
    cursor: pageQueryProperties.cursor,
  },
  { additionalProperties: false },
);

export const DeliverySchema = Type.Object({
  id: Type.String({ description: 'Also the webhook-id header the receiver saw' }),
  event_type: Type.String(),
  ...deliveryProgressProperties('pending, delivering, delivered or dead (a dead letter; POST …/redeliver sends it again)'),
});

export const DeliveryListSchema = Type.Object({
  data: Type.Array(DeliverySchema),
  pagination: Type.Object({ limit: Type.Integer(), next_cursor: Type.Union([Type.String(), Type.Null()]), has_more: Type.Boolean() }),
});
