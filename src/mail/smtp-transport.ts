// Sending through an SMTP server with nodemailer (docs/email.md). SMTP_URL names the server: `smtps://` is
// TLS from the first byte (port 465), `smtp://` must upgrade with STARTTLS before anything is sent — the
// messages carry sign-in links, which never cross a network in clear — except to a loopback relay (a local
// MTA, a test server). Credentials come from the URL or SMTP_PASSWORD_FILE. Timeouts keep one attempt well
// inside the outbox's lease, so a hung server cannot make two workers send the same message.
import { readFileSync } from 'node:fs';
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { PermanentDeliveryError } from '../outbox/channel.js';
import type { MailSender, OutgoingMail } from './mail-sender.js';

const isLoopback = (host: string) => host === 'localhost' || host === '::1' || host === '[::1]' || /^127\./.test(host);

/** nodemailer's options for SMTP_URL (+ SMTP_PASSWORD_FILE's contents). */
export function smtpOptions(smtpUrl: string, passwordFromFile?: string): SMTPTransport.Options {
  const url = new URL(smtpUrl);
  const secure = url.protocol === 'smtps:';
  const user = decodeURIComponent(url.username);
  const pass = passwordFromFile ?? decodeURIComponent(url.password);
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    requireTLS: !secure && !isLoopback(url.hostname),
    ...(user ? { auth: { user, pass } } : {}),
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 30_000,
  };
}

export function readPasswordFile(path: string): string {
  // A mounted secret usually ends in a newline that is not part of the password.
  return readFileSync(path, 'utf8').replace(/\r?\n$/, '');
}

/** SMTP reply codes 5xx refuse a message for good (unknown mailbox); 4xx and network errors are temporary. */
const isPermanent = (error: unknown) => {
  const code = (error as { responseCode?: unknown }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
};

export function smtpSender(options: SMTPTransport.Options): MailSender & { close(): void } {
  const transport = nodemailer.createTransport(options);
  return {
    async send(mail: OutgoingMail) {
      try {
        await transport.sendMail({
          from: mail.from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          messageId: mail.messageId,
          headers: mail.headers,
        });
      } catch (error) {
        const message = `SMTP: ${error instanceof Error ? error.message : String(error)}`;
        throw isPermanent(error) ? new PermanentDeliveryError(message) : new Error(message);
      }
    },
    close: () => transport.close(),
  };
}
