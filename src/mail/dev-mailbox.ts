// Development without SMTP_URL: messages are not sent but kept here (the newest 50, in memory, per app) and
// shown at /dev/mailbox, and the log prints each one's links, so a sign-up or an invitation can be
// followed at once. Never in production: there, no SMTP_URL means no e-mail features (docs/email.md).
import type { MailSender, OutgoingMail } from './mail-sender.js';

const DEV_MAILBOX_SIZE = 50;

export interface DevMailbox extends MailSender {
  /** Newest first. */
  messages(): readonly (OutgoingMail & { receivedAt: Date })[];
}

export function devMailbox(log: { info(obj: object, msg: string): void }, now: () => number): DevMailbox {
  const kept: (OutgoingMail & { receivedAt: Date })[] = [];
  return {
    async send(mail) {
      kept.unshift({ ...mail, receivedAt: new Date(now()) });
      kept.length = Math.min(kept.length, DEV_MAILBOX_SIZE);
      const links = mail.text.match(/https?:\/\/\S+/g) ?? [];
      log.info({ to: mail.to, subject: mail.subject, links }, 'development mail (no SMTP_URL): not sent; read it at /dev/mailbox');
    },
    messages: () => kept,
  };
}
