// Security notices (issue 31; docs/email.md): the account's address is told when its password or address
// changed or a sign-in method was added. Each notice is written to the outbox in the transaction of the
// change (so it exists exactly when the change committed) and carries no secret: only a link to /account.
// Nothing is written when e-mail is off or the account has no address.
import { chooseLocale } from '../mail/catalogue.js';
import { EMAIL_CHANNEL } from '../mail/email-channel.js';
import { mailMode } from '../mail/mail-mode.js';
import type { Config } from '../config.js';
import type { Clock } from '../clock.js';
import type { OutboxWriter } from '../outbox/writer.js';
import type { Store } from '../storage/store.js';

export type NoticeKind = 'password_changed' | 'email_changed' | 'factor_added';

export interface SecurityNotices {
  /**
   * Writes the notice in `tx`. `to` overrides the recipient (an e-mail change tells the OLD address);
   * `acceptLanguage`: the language of the request that made the change.
   */
  send(
    tx: Store,
    userId: string,
    kind: NoticeKind,
    options?: { to?: string | null; params?: Record<string, string>; acceptLanguage?: string | undefined },
  ): Promise<void>;
}

const ACCOUNT_PAGE = '/account';

export function securityNotices(deps: { clock: Clock; config: Pick<Config, 'ISSUER' | 'NODE_ENV' | 'SMTP_URL'>; outbox: OutboxWriter }): SecurityNotices {
  return {
    async send(tx, userId, kind, options = {}) {
      if (mailMode(deps.config) === 'off') return;
      const user = await tx.users.findById(userId);
      const to = options.to === undefined ? user?.email : options.to;
      if (!user || !to) return;
      await deps.outbox.enqueue(tx, {
        channel: EMAIL_CHANNEL,
        kind,
        recipient: to,
        payload: {
          template: kind,
          locale: chooseLocale(options.acceptLanguage),
          params: { username: user.username, link: `${deps.config.ISSUER}${ACCOUNT_PAGE}`, ...options.params },
        },
      });
    },
  };
}
