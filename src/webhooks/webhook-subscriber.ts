// The audit sink's webhook subscriber (docs/webhooks.md): for an audit event that stands for a webhook event
// (event-types.ts), one outbox message per enabled endpoint that wants it, written in the transaction of the
// change (the audit event's own), so a webhook exists exactly when its change committed. Order is kept per
// endpoint and subject (the user, or the client / resource server): the outbox delivers a subject's
// messages to an endpoint one after the other. An event type no enabled endpoint wants (known from the
// in-memory set of src/storage/webhook-subscriptions.ts, kept current by the database's notices) costs no query.
import type { AuditSubscriber } from '../audit/audit-sink.js';
import type { OutboxWriter } from '../outbox/writer.js';
import type { WebhookSubscriptions } from '../storage/repositories/webhook-subscriptions.js';
import type { Store } from '../storage/store.js';
import { webhookEventOf } from './event-types.js';

export const WEBHOOK_CHANNEL = 'webhook';

export const webhookSubscriber =
  (store: Store, outbox: Pick<OutboxWriter, 'enqueue'>, subscriptions?: Pick<WebhookSubscriptions, 'mayWant'>): AuditSubscriber =>
  async (auditEvent, { tx }) => {
    const mapped = webhookEventOf(auditEvent);
    if (!mapped) return;
    if (subscriptions && !subscriptions.mayWant(mapped.event.type, tx?.changedWebhookEndpoints)) return;
    const write = async (trx: Store) => {
      for (const endpoint of await trx.webhookEndpoints.subscribedTo(mapped.event.type)) {
        await outbox.enqueue(trx, {
          channel: WEBHOOK_CHANNEL,
          kind: mapped.event.type,
          recipient: endpoint.id,
          payload: { event: mapped.event },
          orderingKey: `webhook:${endpoint.id}:${mapped.subject}`,
        });
      }
    };
    // An event emitted outside a transaction (a sign-in) was written on its own: so are its webhooks.
    if (tx) await write(tx);
    else await store.transaction(write);
  };
