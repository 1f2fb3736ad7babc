// Webhook endpoint administration, written once for the CLI (`gatehouse webhooks …`, `gatehouse apply`) and
// the admin API (/admin/v1/webhooks): the URL rules (the outbound address rules of jwks_uri, with the
// operator's allow-list), the event-type filter, the per-endpoint secret (generated, or read from an
// environment variable by `apply`; sealed at rest; shown once), rotation with a grace period during which
// deliveries carry both signatures, version-guarded writes (If-Match), dead letters and their redelivery,
// and one audit event per change in the same transaction (docs/webhooks.md).
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { AuditEventInput } from '../audit/audit-events.js';
import type { AuditSink } from '../audit/audit-sink.js';
import { keyEncryption } from '../crypto/key-encryption.js';
import { checkedTarget, OutboundRefused, type OutboundPolicy } from '../http/outbound/outbound-policy.js';
import type { Store } from '../storage/store.js';
import type { OutboxMessageView, OutboxState } from '../storage/repositories/outbox-repository.js';
import type { WebhookEndpoint, WebhookEndpointChanges } from '../storage/repositories/webhook-endpoints-repository.js';
import { isWebhookEventType, WEBHOOK_EVENT_TYPES } from '../webhooks/event-types.js';
import { isWebhookSecret, newWebhookSecret, sealWebhookSecret } from '../webhooks/secrets.js';
import { WEBHOOK_CHANNEL } from '../webhooks/webhook-subscriber.js';
import type { ActingAs } from './clients-service.js';
import { AdminRuleError } from './rule-error.js';

export interface WebhookServiceDeps {
  store: Store;
  clock: Clock;
  config: Pick<Config, 'WEBHOOK_ALLOWED_HOSTS'>;
  /** The outbound address rules (strict outside tests); the allow-list is added from the config. */
  outbound: OutboundPolicy;
  keyEncryptionKey: Buffer;
  audit: AuditSink;
}

export interface WebhookInput {
  name: string;
  url: string;
  description?: string;
  eventTypes?: readonly string[];
  enabled?: boolean;
}

const NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const MAX_URL = 2048;
const MAX_DESCRIPTION = 500;
export const DEFAULT_GRACE_SECONDS = 86_400;
export const MAX_GRACE_SECONDS = 7 * 86_400;

/** The policy webhook POSTs obey: the server's outbound rules plus the operator's internal receivers. */
export const webhookPolicy = (deps: Pick<WebhookServiceDeps, 'outbound' | 'config'>): OutboundPolicy => ({
  ...deps.outbound,
  allowedHosts: [...(deps.outbound.allowedHosts ?? []), ...deps.config.WEBHOOK_ALLOWED_HOSTS],
});

/**
 * The SSRF rule of jwks_uri, for a URL an operator or a client gives us to POST to: https, and a host that is
 * — or resolves only to — public addresses, unless allow-listed. A name that does not resolve yet is let
 * through here: every delivery checks again, and connects only to the address it checked.
 */
export async function checkReceiverUrl(url: string, policy: OutboundPolicy, field: string): Promise<string> {
  if (url.length > MAX_URL) throw new AdminRuleError('invalid', `must have at most ${MAX_URL} characters`, field);
  try {
    await checkedTarget(url, policy);
  } catch (error) {
    if (!(error instanceof OutboundRefused)) throw error;
    if (error.code !== 'resolution_failed') {
      throw new AdminRuleError(
        'invalid',
        `${error.message}${error.code === 'address_refused' ? ' (internal receivers must be listed in WEBHOOK_ALLOWED_HOSTS)' : ''}`,
        field,
      );
    }
  }
  return url;
}

async function checkInput(deps: WebhookServiceDeps, input: WebhookInput, current?: WebhookEndpoint): Promise<WebhookEndpointChanges> {
  if (!NAME.test(input.name))
    throw new AdminRuleError(
      'invalid',
      'must be 1-63 lower-case letters, digits and hyphens, starting with a letter or digit',
      'name',
      input.name.slice(0, 64),
    );
  const url = current && current.url === input.url ? input.url : await checkReceiverUrl(input.url, webhookPolicy(deps), 'url');
  const description = (input.description ?? '').trim();
  if (description.length > MAX_DESCRIPTION) throw new AdminRuleError('invalid', `must have at most ${MAX_DESCRIPTION} characters`, 'description');
  const eventTypes = [...new Set(input.eventTypes ?? [])];
  for (const type of eventTypes) {
    if (!isWebhookEventType(type))
      throw new AdminRuleError('invalid', `is not an event type (one of ${WEBHOOK_EVENT_TYPES.join(', ')})`, 'event_types', type.slice(0, 64));
  }
  return { name: input.name, url, description, eventTypes: eventTypes.sort(), enabled: input.enabled ?? true };
}

function checkSecret(secret: string, field: string): string {
  if (!isWebhookSecret(secret)) throw new AdminRuleError('invalid', 'must be whsec_ followed by the base64 of 24 to 64 random bytes', field);
  return secret;
}

/** The representation both faces show: never a secret, only when the previous one stops being signed with. */
export function webhookView(e: WebhookEndpoint, now: number): Record<string, unknown> {
  const graceUntil =
    e.sealedPreviousSecret && e.previousSecretExpiresAt && e.previousSecretExpiresAt.getTime() > now ? e.previousSecretExpiresAt.toISOString() : null;
  return {
    id: e.id,
    name: e.name,
    url: e.url,
    description: e.description,
    event_types: e.eventTypes,
    enabled: e.enabled,
    previous_secret_expires_at: graceUntil,
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}

const changeEvent = (
  type: AuditEventInput['type'],
  endpoint: Pick<WebhookEndpoint, 'id'>,
  as: ActingAs,
  changedFields: readonly string[] = [],
  details?: AuditEventInput['details'],
): AuditEventInput => ({
  type,
  actor: as.actor,
  resource: 'webhook',
  resourceId: endpoint.id,
  changedFields,
  ...(details ? { details } : {}),
  ...(as.traceId ? { traceId: as.traceId } : {}),
});

const notFound = (idOrName: string) => new AdminRuleError('not-found', `no webhook endpoint ${JSON.stringify(idOrName.slice(0, 100))}`);

export async function findWebhookRecord(deps: Pick<WebhookServiceDeps, 'store'>, idOrName: string): Promise<WebhookEndpoint> {
  const endpoint = await deps.store.webhookEndpoints.find(idOrName);
  if (!endpoint) throw notFound(idOrName);
  return endpoint;
}

export const listWebhookRecords = (deps: Pick<WebhookServiceDeps, 'store'>, page: { after?: { createdAt: Date; id: string }; limit: number }) =>
  deps.store.webhookEndpoints.page(page);

/**
 * Registers an endpoint with a new secret (returned once), or with `secret` (`apply`, from the environment
 * variable `secretEnv`, whose name is kept for `export`).
 */
export async function createWebhookRecord(
  deps: WebhookServiceDeps,
  input: WebhookInput & { secret?: string; secretEnv?: string },
  as: ActingAs,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const checked = await checkInput(deps, input);
  const secret = input.secret !== undefined ? checkSecret(input.secret, 'secret_env') : newWebhookSecret();
  const id = `wh_${randomBytes(12).toString('base64url')}`;
  const encryption = keyEncryption(deps.keyEncryptionKey);
  return deps.store.transaction(async (tx) => {
    const created = await tx.webhookEndpoints.create({
      ...checked,
      id,
      sealedSecret: sealWebhookSecret(encryption, id, secret),
      secretEnv: input.secretEnv ?? null,
      now: new Date(deps.clock.now()),
    });
    if (created === 'name-taken') throw new AdminRuleError('conflict', `a webhook endpoint named ${checked.name} exists`);
    await deps.audit.emit(changeEvent('admin.webhook.created', created, as, ['name', 'url', 'description', 'event_types', 'enabled', 'secret']), { tx });
    return { endpoint: created, secret };
  });
}

/** Replaces the settings, only while the endpoint is at `expectedVersion` (any when undefined: the CLI, `apply`). */
export async function updateWebhookRecord(
  deps: WebhookServiceDeps,
  current: WebhookEndpoint,
  input: WebhookInput,
  expectedVersion: number | undefined,
  as: ActingAs,
): Promise<WebhookEndpoint> {
  const checked = await checkInput(deps, input, current);
  return deps.store.transaction(async (tx) => {
    const result = await tx.webhookEndpoints.updateIfVersion(current.id, checked, expectedVersion, new Date(deps.clock.now()));
    if (result === 'missing') throw notFound(current.id);
    if (result === 'stale') throw new AdminRuleError('stale', 'the webhook endpoint changed since it was read');
    if (result === 'name-taken') throw new AdminRuleError('conflict', `a webhook endpoint named ${checked.name} exists`);
    const before = webhookView(current, 0);
    const after = webhookView(result.written, 0);
    const changed = ['name', 'url', 'description', 'event_types', 'enabled'].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
    await deps.audit.emit(changeEvent('admin.webhook.updated', current, as, changed), { tx });
    return result.written;
  });
}

/**
 * A new secret (generated and returned once, or `secret` from `apply`). The previous one keeps signing —
 * as a second signature — for `graceSeconds` (0: it stops at once), so receivers can switch without
 * losing a delivery.
 */
export async function rotateWebhookSecret(
  deps: WebhookServiceDeps,
  current: WebhookEndpoint,
  options: { graceSeconds?: number; secret?: string; secretEnv?: string },
  expectedVersion: number | undefined,
  as: ActingAs,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const grace = options.graceSeconds ?? DEFAULT_GRACE_SECONDS;
  if (!Number.isSafeInteger(grace) || grace < 0 || grace > MAX_GRACE_SECONDS)
    throw new AdminRuleError('invalid', `must be a whole number of seconds between 0 and ${MAX_GRACE_SECONDS}`, 'grace_period');
  const secret = options.secret !== undefined ? checkSecret(options.secret, 'secret_env') : newWebhookSecret();
  const encryption = keyEncryption(deps.keyEncryptionKey);
  const now = deps.clock.now();
  return deps.store.transaction(async (tx) => {
    const result = await tx.webhookEndpoints.rotateSecret(
      current.id,
      {
        sealed: sealWebhookSecret(encryption, current.id, secret),
        // Sealed under the same endpoint id: the current seal moves over as it is.
        sealedPrevious: grace > 0 ? current.sealedSecret : null,
        previousExpiresAt: grace > 0 ? new Date(now + grace * 1000) : null,
        secretEnv: options.secretEnv ?? current.secretEnv,
      },
      expectedVersion,
      new Date(now),
    );
    if (result === 'missing' || result === 'name-taken') throw notFound(current.id);
    if (result === 'stale') throw new AdminRuleError('stale', 'the webhook endpoint changed since it was read');
    await deps.audit.emit(changeEvent('admin.webhook.secret_rotated', current, as, ['secret'], { grace_seconds: grace }), { tx });
    return { endpoint: result.written, secret };
  });
}

/** Deletes it; its undelivered messages become dead letters at their next attempt (the channel finds no endpoint). */
export async function deleteWebhookRecord(
  deps: WebhookServiceDeps,
  current: WebhookEndpoint,
  expectedVersion: number | undefined,
  as: ActingAs,
): Promise<void> {
  await deps.store.transaction(async (tx) => {
    const result = await tx.webhookEndpoints.deleteIfVersion(current.id, expectedVersion);
    if (result === 'missing') throw notFound(current.id);
    if (result === 'stale') throw new AdminRuleError('stale', 'the webhook endpoint changed since it was read');
    await deps.audit.emit(changeEvent('admin.webhook.deleted', current, as), { tx });
  });
}

/** An endpoint's deliveries (the outbox's `webhook` messages addressed to it), newest first. */
export function listWebhookDeliveries(
  deps: Pick<WebhookServiceDeps, 'store'>,
  endpoint: Pick<WebhookEndpoint, 'id'>,
  filter: { state?: OutboxState },
  page: { before?: { createdAt: Date; id: string }; limit: number },
): Promise<OutboxMessageView[]> {
  return deps.store.outbox.page({ channel: WEBHOOK_CHANNEL, recipient: endpoint.id, ...filter }, page);
}

/** Makes a dead letter of this endpoint due again with a fresh attempt budget; the same webhook-id, so a receiver that did get it can tell. */
export async function redeliverWebhook(
  deps: WebhookServiceDeps,
  endpoint: Pick<WebhookEndpoint, 'id'>,
  messageId: string,
  as: ActingAs,
): Promise<OutboxMessageView> {
  return deps.store.transaction(async (tx) => {
    const outbox = tx.outbox;
    const message = await outbox.find(messageId);
    if (!message || message.channel !== WEBHOOK_CHANNEL || message.recipient !== endpoint.id)
      throw new AdminRuleError('not-found', `no delivery ${JSON.stringify(messageId.slice(0, 100))} of this endpoint`);
    if (!(await outbox.redeliver(messageId, WEBHOOK_CHANNEL, new Date(deps.clock.now()))))
      throw new AdminRuleError('conflict', `delivery ${messageId} is ${message.state}; only a dead letter is redelivered`);
    await deps.audit.emit(changeEvent('admin.webhook.redelivered', endpoint, as, [], { message_id: messageId }), { tx });
    return (await outbox.find(messageId))!;
  });
}
