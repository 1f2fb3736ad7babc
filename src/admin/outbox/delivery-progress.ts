// How far an outbox message has got — its state, attempts, next try, last error and times — as both the outbox
// list (/admin/v1/outbox) and an endpoint's webhook deliveries (/admin/v1/webhooks/{id}/deliveries) show it:
// one schema and one representation, so the two views of the same row cannot drift apart.
import { Type } from '@sinclair/typebox';
import type { OutboxMessageView } from '../../storage/repositories/outbox-repository.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The schema members of `deliveryProgress`; `stateDescription` says what `dead` means in the view at hand. */
export const deliveryProgressProperties = (stateDescription: string) => ({
  state: Type.String({ description: stateDescription }),
  attempts: Type.Integer(),
  max_attempts: Type.Integer(),
  next_attempt_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  delivered_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const deliveryProgress = (m: OutboxMessageView) => ({
  state: m.state,
  attempts: m.attempts,
  max_attempts: m.maxAttempts,
  next_attempt_at: iso(m.nextAttemptAt),
  last_error: m.lastError,
  created_at: m.createdAt.toISOString(),
  updated_at: m.updatedAt.toISOString(),
  delivered_at: iso(m.deliveredAt),
});
