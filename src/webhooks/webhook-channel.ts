// The outbox's `webhook` channel (docs/webhooks.md): one Standard Webhooks delivery. The endpoint is read
// at delivery time (its URL, whether it is enabled, its secrets), the body is `{type, timestamp, data}`,
// and the headers are `webhook-id` (the outbox message id: the same on every attempt, so a receiver drops
// a duplicate), `webhook-timestamp` (this attempt, in seconds) and `webhook-signature`: HMAC-SHA256 over
// `id.timestamp.body` with the endpoint's secret, as `v1,<base64>` — and during a secret rotation's grace
// period a second one with the previous secret, space-separated. Signing uses the `standardwebhooks`
// library, the same code receivers verify with, so the secret's encoding and the signed content cannot
// drift from the specification. The POST obeys the outbound address rules (pinned-post.ts).
import { Webhook } from 'standardwebhooks';
import type { Clock } from '../clock.js';
import type { KeyEncryption } from '../crypto/key-encryption.js';
import { OutboundRefused, type OutboundPolicy } from '../http/outbound/outbound-policy.js';
import { pinnedPost } from '../http/outbound/pinned-post.js';
import { PermanentDeliveryError, type OutboxChannel } from '../outbox/channel.js';
import type { Store } from '../storage/store.js';
import type { WebhookEndpoint } from '../storage/repositories/webhook-endpoints-repository.js';
import { openWebhookSecret } from './secrets.js';
import { WEBHOOK_CHANNEL } from './webhook-subscriber.js';

export interface WebhookChannelDeps {
  store: Store;
  clock: Clock;
  encryption: KeyEncryption;
  /** The outbound address rules, with the operator's allow-list (WEBHOOK_ALLOWED_HOSTS). */
  policy: OutboundPolicy;
  timeoutMs: number;
  userAgent: string;
}

/** The secrets a delivery is signed with now: the current one, and the previous one while its grace period lasts. */
export function signingSecrets(endpoint: WebhookEndpoint, encryption: KeyEncryption, now: number): string[] {
  const secrets = [openWebhookSecret(encryption, endpoint.id, endpoint.sealedSecret)];
  if (endpoint.sealedPreviousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt.getTime() > now) {
    secrets.push(openWebhookSecret(encryption, endpoint.id, endpoint.sealedPreviousSecret));
  }
  return secrets;
}

/** The `webhook-signature` header: one `v1,` signature per secret, space-separated. */
export const signatureHeader = (secrets: readonly string[], id: string, at: Date, body: string): string =>
  secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' ');

export function webhookChannel(deps: WebhookChannelDeps): OutboxChannel {
  return {
    name: WEBHOOK_CHANNEL,
    async deliver(message) {
      const endpoint = await deps.store.webhookEndpoints.find(message.recipient);
      if (!endpoint || endpoint.id !== message.recipient) throw new PermanentDeliveryError('the webhook endpoint was deleted');
      if (!endpoint.enabled) throw new PermanentDeliveryError('the webhook endpoint is disabled');
      const event = (message.payload as { event?: unknown }).event;
      if (!event || typeof event !== 'object') throw new PermanentDeliveryError('the message carries no event');
      let secrets: string[];
      try {
        secrets = signingSecrets(endpoint, deps.encryption, deps.clock.now());
      } catch {
        throw new PermanentDeliveryError('the endpoint secret cannot be opened with this key-encryption key');
      }
      const body = JSON.stringify(event);
      // Whole seconds: the signed timestamp is the header's.
      const at = new Date(Math.floor(deps.clock.now() / 1000) * 1000);
      try {
        await pinnedPost(endpoint.url, {
          policy: deps.policy,
          timeoutMs: deps.timeoutMs,
          maxBytes: 64 * 1024,
          body,
          headers: {
            'content-type': 'application/json',
            'user-agent': deps.userAgent,
            'webhook-id': message.id,
            'webhook-timestamp': String(at.getTime() / 1000),
            'webhook-signature': signatureHeader(secrets, message.id, at, body),
          },
        });
      } catch (error) {
        // An address the rules refuse stays refused: no retry will make it public.
        if (error instanceof OutboundRefused && (error.code === 'url_refused' || error.code === 'address_refused'))
          throw new PermanentDeliveryError(`refused: ${error.message}`);
        throw error;
      }
    },
  };
}
