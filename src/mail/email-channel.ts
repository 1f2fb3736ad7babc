// The outbox's `email` channel (docs/email.md): renders the message's template in its language with the
// branding, and hands it to the sender (SMTP, or the development mailbox). The outbox payload names the
// template, the language and the non-secret values; the link with its token travels sealed (`secret`) and
// is only ever opened here.
import type { Brand } from '../http/brand.js';
import { PermanentDeliveryError, type OutboxChannel } from '../outbox/channel.js';
import { isLocale, DEFAULT_LOCALE } from './catalogue.js';
import type { MailSender } from './mail-sender.js';
import { renderTemplate } from './templates.js';

export const EMAIL_CHANNEL = 'email';

export interface EmailPayload {
  template: string;
  locale: string;
  params: Record<string, unknown>;
}

export function emailChannel(deps: { sender: MailSender; from: string; brand: Brand; issuer: string }): OutboxChannel {
  const host = new URL(deps.issuer).hostname;
  return {
    name: EMAIL_CHANNEL,
    async deliver(message) {
      const payload = message.payload as Partial<EmailPayload>;
      const locale = isLocale(payload.locale) ? payload.locale : DEFAULT_LOCALE;
      const params = { ...(payload.params ?? {}), ...(message.secret ?? {}) };
      const rendered =
        typeof payload.template === 'string' ? renderTemplate({ brand: deps.brand, issuer: deps.issuer, locale }, payload.template, params) : undefined;
      if (!rendered) throw new PermanentDeliveryError(`cannot render e-mail template ${String(payload.template)}`);
      await deps.sender.send({
        from: deps.from,
        to: message.recipient,
        ...rendered,
        messageId: `<${message.id}@${host}>`,
        // Automated mail: no auto-replies back to MAIL_FROM (RFC 3834).
        headers: { 'Auto-Submitted': 'auto-generated' },
      });
    },
  };
}
