// Whether this deployment sends e-mail (docs/email.md): through SMTP_URL; in development and tests without
// it, into the development mailbox; in production without it, not at all — and then every feature that
// needs e-mail (invitations) is refused with that reason, and the server says so at start.
import type { Config } from '../config.js';

export type MailMode = 'smtp' | 'dev-mailbox' | 'off';

export function mailMode(config: Pick<Config, 'SMTP_URL' | 'NODE_ENV'>): MailMode {
  if (config.SMTP_URL) return 'smtp';
  return config.NODE_ENV === 'production' ? 'off' : 'dev-mailbox';
}

export const MAIL_OFF_REASON = 'E-mail is not configured (SMTP_URL is unset in production): features that send e-mail, such as invitations, are off.';
