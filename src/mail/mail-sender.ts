// What the e-mail channel hands a fully built message to: the SMTP server (smtp-transport.ts) or, in
// development without SMTP_URL, the development mailbox (dev-mailbox.ts).
export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** `<outbox-id@issuer-host>`: the same on every attempt, so a receiver can drop a duplicate. */
  messageId: string;
  headers: Record<string, string>;
}

export interface MailSender {
  send(mail: OutgoingMail): Promise<void>;
}
