// Settings of the messages Gatehouse POSTs to other servers: signed webhooks (docs/webhooks.md) and
// back-channel logout tokens (docs/backchannel-logout.md). Both go through the outbox (docs/outbox.md).
import { list, seconds, type Setting } from './setting.js';

const HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$|^[0-9.]+$|^[0-9a-f:]+$/;

export const webhookSettings = {
  WEBHOOK_ALLOWED_HOSTS: {
    doc: 'Internal receivers: host names or IP addresses (comma-separated, exactly as they appear in the URL, e.g. `hooks.internal,10.0.0.7`) that webhook endpoints and back-channel logout URIs may reach although they are not public addresses, over http too. Every other host must be https and resolve only to public addresses (the jwks_uri rules; docs/webhooks.md).',
    expects: 'a comma-separated list of host names or IP addresses',
    parse: (raw: string) => {
      const hosts = list(raw).map((h) => h.toLowerCase().replace(/^\[(.*)\]$/, '$1'));
      return hosts.every((h) => HOST.test(h)) ? hosts : undefined;
    },
    fallback: [] as string[],
    docDefault: '(none)',
  },
  WEBHOOK_TIMEOUT: seconds('How long one webhook or logout-token POST may take, from name resolution to the answer, before it is retried.', 10, 1, 60),
} satisfies Record<string, Setting<unknown>>;
