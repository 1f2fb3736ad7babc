// The outbox channels that POST to other servers (docs/webhooks.md, docs/backchannel-logout.md), built
// once per app beside the e-mail channel: signed webhooks and back-channel logout tokens. Both obey the
// outbound address rules with the operator's allow-list of internal receivers (WEBHOOK_ALLOWED_HOSTS).
import type { Core } from './core.js';
import { keyEncryption } from './crypto/key-encryption.js';
import type { OutboxChannel } from './outbox/channel.js';
import { logoutTokenChannel } from './oauth/backchannel-logout/logout-token-channel.js';
import { webhookPolicy } from './admin-services/webhooks-service.js';
import { webhookChannel } from './webhooks/webhook-channel.js';

export function outboundChannels(core: Core): OutboxChannel[] {
  const policy = webhookPolicy(core);
  const timeoutMs = core.config.WEBHOOK_TIMEOUT * 1000;
  const userAgent = `Gatehouse (+${core.config.ISSUER})`;
  return [
    webhookChannel({ store: core.store, clock: core.clock, encryption: keyEncryption(core.keyEncryptionKey), policy, timeoutMs, userAgent }),
    // The client is read at delivery (uncached: a disabled or changed client is seen at once).
    logoutTokenChannel({
      issuer: core.config.ISSUER,
      clock: core.clock,
      keys: core.keys,
      clients: core.store.clients,
      policy,
      timeoutMs,
      userAgent,
    }),
  ];
}
