// The webhook event catalogue (docs/webhooks.md) and the one place audit events become webhook events: code
// that changes something already emits its audit event in the change's transaction (src/audit/), and the
// webhook subscriber (webhook-subscriber.ts) turns the events listed here into messages in that same
// transaction. An audit event type missing from AUDIT_TO_WEBHOOK sends no webhook.
import type { AuditEvent, AuditEventType } from '../audit/audit-events.js';

export const WEBHOOK_EVENT_TYPES = [
  'user.created',
  'user.updated',
  'user.deleted',
  'user.signed_in',
  'user.locked_out',
  'user.password_changed',
  'user.factor_added',
  'user.factor_removed',
  'consent.granted',
  'consent.revoked',
  'token.exchanged',
  'delegation.revoked',
  'session.ended',
  'client.created',
  'client.updated',
  'client.deleted',
  'resource_server.created',
  'resource_server.updated',
  'resource_server.deleted',
  'signing_key.rotated',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const isWebhookEventType = (value: string): value is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);

const AUDIT_TO_WEBHOOK: Partial<Record<AuditEventType, WebhookEventType>> = {
  'admin.user.created': 'user.created',
  'user.signed_up': 'user.created',
  'account.provisioned': 'user.created',
  'admin.user.updated': 'user.updated',
  'admin.user.attribute_set': 'user.updated',
  'admin.user.attribute_deleted': 'user.updated',
  'account.email_changed': 'user.updated',
  'admin.user.deleted': 'user.deleted',
  'login.succeeded': 'user.signed_in',
  'login.locked_out': 'user.locked_out',
  'admin.user.password_set': 'user.password_changed',
  'user.password_reset': 'user.password_changed',
  'account.password_changed': 'user.password_changed',
  'account.second_factor_added': 'user.factor_added',
  'account.identity_linked': 'user.factor_added',
  'account.second_factor_removed': 'user.factor_removed',
  'account.identity_unlinked': 'user.factor_removed',
  'admin.user.identity_unlinked': 'user.factor_removed',
  'admin.user.second_factors_reset': 'user.factor_removed',
  'consent.given': 'consent.granted',
  'consent.revoked': 'consent.revoked',
  'token.exchanged': 'token.exchanged',
  'delegation.revoked': 'delegation.revoked',
  'admin.session.ended': 'session.ended',
  'session.ended': 'session.ended',
  'admin.client.created': 'client.created',
  'admin.client.updated': 'client.updated',
  'client.secret_rotated': 'client.updated',
  'admin.client.deleted': 'client.deleted',
  'admin.resource_server.created': 'resource_server.created',
  'admin.resource_server.updated': 'resource_server.updated',
  'admin.resource_server.deleted': 'resource_server.deleted',
  'signing_key.rotated': 'signing_key.rotated',
};

/** What a receiver gets: the Standard Webhooks body `{type, timestamp, data}`. Never a secret: audit events hold none. */
export interface WebhookEvent {
  type: WebhookEventType;
  timestamp: string;
  data: Record<string, unknown>;
}

/** The webhook event an audit event stands for, and the subject its order is kept per; undefined when none. */
export function webhookEventOf(event: AuditEvent): { event: WebhookEvent; subject: string } | undefined {
  const type = AUDIT_TO_WEBHOOK[event.type];
  if (!type) return undefined;
  const userEvent =
    type.startsWith('user.') || type.startsWith('consent.') || type === 'session.ended' || type === 'token.exchanged' || type === 'delegation.revoked';
  const data: Record<string, unknown> = {
    ...(event.subject !== undefined ? { [userEvent ? 'user_id' : 'subject']: event.subject } : {}),
    ...(event.clientId !== undefined ? { client_id: event.clientId } : {}),
    ...(event.resource !== undefined ? { resource: event.resource } : {}),
    ...(event.resourceId !== undefined ? { id: event.resourceId } : {}),
    ...(event.changedFields && event.changedFields.length > 0 ? { changed_fields: [...event.changedFields] } : {}),
    ...(event.details && Object.keys(event.details).length > 0 ? { details: event.details } : {}),
    actor: event.actor.kind,
    audit_event_id: event.id,
  };
  // A user's events are ordered per user; a client's or resource server's per resource.
  const subject = event.subject ?? event.resourceId ?? type;
  return { event: { type, timestamp: event.occurredAt.toISOString(), data }, subject };
}
