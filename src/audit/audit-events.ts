// The audit log's event types (docs/audit-log.md). Admin changes say who (actor), what (resource, id and
// the NAMES of changed fields — never values, so a secret can never reach the log) and the trace id;
// security events say whom they concern (subject, client). Adding a type here is the whole registration.
import type { AuditActor } from '../storage/repositories/audit-events-repository.js';

const ADMIN_CHANGE_TYPES = [
  'admin.client.created',
  'admin.client.updated',
  'admin.client.deleted',
  'admin.user.created',
  'admin.user.updated',
  'admin.user.deleted',
  'admin.user.password_set',
  'admin.user.second_factors_reset',
  'admin.user.attribute_set',
  'admin.user.attribute_deleted',
  'admin.user.operator_granted',
  'admin.user.operator_revoked',
  'admin.user.invited',
  'admin.user.invitation_revoked',
  'admin.grant.revoked',
  'admin.session.ended',
  'admin.resource_server.created',
  'admin.resource_server.updated',
  'admin.resource_server.deleted',
  'admin.identity_provider.created',
  'admin.identity_provider.updated',
  'admin.identity_provider.deleted',
  'admin.user.identity_unlinked',
  // Webhook endpoints (docs/webhooks.md).
  'admin.webhook.created',
  'admin.webhook.updated',
  'admin.webhook.deleted',
  'admin.webhook.secret_rotated',
  'admin.webhook.redelivered',
] as const;

const SECURITY_EVENT_TYPES = [
  'login.succeeded',
  'login.failed',
  'login.locked_out',
  'user.invitation_accepted',
  // Self-service (src/self-service/, docs/email.md).
  'user.password_reset_requested',
  'user.password_reset',
  'user.signed_up',
  'account.email_change_requested',
  'account.email_changed',
  // A user's own credential changes on /account (src/account/account-events.ts).
  'account.password_changed',
  'account.second_factor_added',
  'account.second_factor_removed',
  'account.recovery_codes_regenerated',
  // Federation (src/interaction/federation/, src/account/account-identities.ts): links to upstream identities.
  'account.identity_linked',
  'account.identity_unlinked',
  'account.provisioned',
  'consent.given',
  'consent.revoked',
  // RFC 8693 (src/oauth/grant-types/token-exchange.ts, docs/token-exchange.md): a client got a token acting
  // for a user; the user revoked such a delegation on /account.
  'token.exchanged',
  'delegation.revoked',
  'refresh_token.reused',
  'authorization_code.reused',
  'signing_key.rotated',
  'client.secret_rotated',
  // A user signed out (the logout page or /account): their session ended.
  'session.ended',
  // Clients created or changed without an operator (src/oauth/clients/client-events.ts, docs/agents.md): RFC 7591
  // with an initial access token, open registration, RFC 7592 with the registration access token, and the
  // row a Client ID Metadata Document is stored as (written only when the document changed).
  'client.registered',
  'client.self_registered',
  'client.registration_updated',
  'client.registration_deleted',
  'client.metadata_document_created',
  'client.metadata_document_updated',
  // The audit log's own signed checkpoints (src/audit/checkpoints.ts).
  'audit.checkpoint',
] as const;

export const AUDIT_EVENT_TYPES = [...ADMIN_CHANGE_TYPES, ...SECURITY_EVENT_TYPES] as const;

export type AdminChangeType = (typeof ADMIN_CHANGE_TYPES)[number];
export type SecurityEventType = (typeof SECURITY_EVENT_TYPES)[number];
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

export const isAuditEventType = (value: string): value is AuditEventType => (AUDIT_EVENT_TYPES as readonly string[]).includes(value);

/** Who did it: an admin API client (and the user it acts for, when present), the CLI's OS user, a user, or Gatehouse itself (as stored). */
export type Actor = AuditActor;

export interface AuditEventInput {
  type: AuditEventType;
  actor: Actor;
  resource?: string;
  resourceId?: string;
  /** The user (or client) the event concerns. */
  subject?: string;
  clientId?: string;
  /** Field NAMES only. */
  changedFields?: readonly string[];
  /** Small, non-secret facts (a reason code, an expiry time). */
  details?: Record<string, string | number | boolean | null>;
  traceId?: string;
}

export interface AuditEvent extends AuditEventInput {
  id: string;
  occurredAt: Date;
}
