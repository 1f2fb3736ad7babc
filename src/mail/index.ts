// The e-mail side of one app (docs/email.md): the outbox channel that delivers `email` messages, and, in
// development without SMTP_URL, the mailbox that keeps them for /dev/mailbox.
import { ConfigError, type Config } from '../config.js';
import type { Brand } from '../http/brand.js';
import type { OutboxChannel } from '../outbox/channel.js';
import { devMailbox, type DevMailbox } from './dev-mailbox.js';
import { emailChannel } from './email-channel.js';
import { MAIL_OFF_REASON, mailMode, type MailMode } from './mail-mode.js';
import { readPasswordFile, smtpOptions, smtpSender } from './smtp-transport.js';

export interface Mail {
  readonly mode: MailMode;
  /** Absent when e-mail is off. */
  readonly channel?: OutboxChannel;
  /** Only in development or tests without SMTP_URL. */
  readonly devMailbox?: DevMailbox;
  close(): void;
}

type Log = { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };

export function createMail(config: Config, brand: Brand, log: Log, now: () => number): Mail {
  const mode = mailMode(config);
  if (mode === 'off') {
    log.warn({ setting: 'SMTP_URL' }, MAIL_OFF_REASON);
    return { mode, close() {} };
  }
  if (mode === 'dev-mailbox') {
    log.info({ setting: 'SMTP_URL' }, 'E-mail is not sent (SMTP_URL unset): messages are logged and kept at /dev/mailbox');
    const mailbox = devMailbox(log, now);
    return { mode, devMailbox: mailbox, channel: emailChannel({ sender: mailbox, from: config.MAIL_FROM, brand, issuer: config.ISSUER }), close() {} };
  }
  let password: string | undefined;
  try {
    password = config.SMTP_PASSWORD_FILE ? readPasswordFile(config.SMTP_PASSWORD_FILE) : undefined;
  } catch (error) {
    throw new ConfigError(`Invalid configuration: SMTP_PASSWORD_FILE cannot be read (${(error as Error).message})`);
  }
  const sender = smtpSender(smtpOptions(config.SMTP_URL!, password));
  return { mode, channel: emailChannel({ sender, from: config.MAIL_FROM, brand, issuer: config.ISSUER }), close: () => sender.close() };
}
