// Settings of outgoing e-mail (docs/email.md) and of the outbox every outgoing message goes through
// (docs/outbox.md).
import { list, nonEmpty, oneOf, seconds, type Setting } from './setting.js';

const smtpUrl = (raw: string) => {
  try {
    const url = new URL(raw.trim());
    return (url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname !== '' && !url.hash ? raw.trim() : undefined;
  } catch {
    return undefined;
  }
};

/** `addr@host` or `Display Name <addr@host>`; no line breaks (they would be a header injection). */
export const MAIL_ADDRESS = /^[^\s@<>"]+@[^\s@<>"]+$/;
const mailFrom = (raw: string) => {
  const value = raw.trim();
  if (/[\r\n\u0000]/.test(value)) return undefined;
  const named = /^(.{1,100}?)\s*<([^<>]+)>$/.exec(value);
  if (named) return MAIL_ADDRESS.test(named[2]!) && !/[<>]/.test(named[1]!) ? value : undefined;
  return MAIL_ADDRESS.test(value) ? value : undefined;
};

export const mailSettings = {
  SMTP_URL: {
    doc: 'Where e-mail is sent: `smtp://user:password@host:587` (STARTTLS required unless the host is loopback) or `smtps://…:465` (docs/email.md). Unset: in development the messages are logged and shown at /dev/mailbox; in production the features that send e-mail (invitations) are off.',
    expects: 'an smtp:// or smtps:// URL',
    parse: smtpUrl,
    fallback: undefined as string | undefined,
    docDefault: '(no e-mail)',
  },
  SMTP_PASSWORD_FILE: {
    doc: 'A file holding the SMTP password (a mounted secret), used instead of a password in SMTP_URL. Read at start.',
    expects: 'a file path',
    parse: nonEmpty,
    fallback: undefined as string | undefined,
    docDefault: '(none)',
  },
  MAIL_FROM: {
    doc: 'The From of every message, `address` or `Name <address>`.',
    expects: 'an e-mail address, optionally as Name <address>',
    parse: mailFrom,
    fallback: (p: Record<string, unknown>) => `${String(p.BRAND_NAME).replace(/[<>"]/g, '')} <no-reply@${new URL(String(p.ISSUER)).hostname}>`,
    docDefault: "$BRAND_NAME <no-reply@ISSUER's host>",
  },
  INVITATION_TTL: seconds('How long an invitation link (gatehouse users invite) stays valid; it works once.', 172_800, 600, 1_209_600),
  PASSWORD_RESET_TTL: seconds('How long a forgotten-password link stays valid; it works once (docs/email.md).', 3600, 300, 86_400),
  EMAIL_VERIFICATION_TTL: seconds(
    'How long a sign-up or e-mail-change verification link stays valid; unverified sign-ups are deleted after it.',
    86_400,
    600,
    604_800,
  ),
  SIGNUP: {
    doc: 'Whether people create their own accounts: `off`, or `open` ("Create an account" on the login page, /signup; needs e-mail). docs/email.md.',
    expects: 'off or open',
    parse: oneOf('off', 'open'),
    fallback: 'off' as 'off' | 'open',
  },
  SIGNUP_DOMAINS: {
    doc: 'With SIGNUP=open: the only e-mail domains that may sign up (comma-separated, e.g. example.com,example.org). Empty: any.',
    expects: 'a comma-separated list of domain names',
    parse: (raw: string) => {
      const domains = list(raw).map((d) => d.toLowerCase());
      return domains.every((d) => /^[a-z0-9.-]+\.[a-z]{2,}$/.test(d)) ? domains : undefined;
    },
    fallback: [] as string[],
    docDefault: '(any)',
  },
  OUTBOX_RETENTION: seconds(
    'How long a delivered outbox message (e-mail) stays listed in the admin API before it is purged (docs/outbox.md).',
    604_800,
    3600,
    31_536_000,
  ),
  OUTBOX_DEAD_LETTER_RETENTION: seconds(
    'How long an undeliverable outbox message (a dead letter) stays listed before it is purged.',
    7_776_000,
    86_400,
    31_536_000,
  ),
} satisfies Record<string, Setting<unknown>>;
