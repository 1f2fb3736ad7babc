// A real SMTP server in the test process (the `smtp-server` package speaks the protocol; nothing is mocked):
// it records every message it accepts, can be stopped and started again on the same port (an outage), and
// can be told to stall in DATA without ever answering (a server that hangs while a worker is sending).
import { once } from 'node:events';
import { SMTPServer } from 'smtp-server';
import { freePort } from '../../scripts/pg-cluster.mjs';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  messageId: string | undefined;
  subject: string | undefined;
  /** The raw message with quoted-printable undone: the text and HTML bodies as written. */
  decoded: string;
}

export interface TestSmtpServer {
  port: number;
  url: string;
  received: ReceivedMail[];
  /** How many DATA commands began (accepted or not). */
  dataStarted(): number;
  /** Connection errors other than a peer going away (a sender killed mid-message resets its connection). */
  errors: Error[];
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Resolves once `count` messages were accepted (polls; fails after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
}

/** Undoes quoted-printable (soft line breaks and =XX escapes), which nodemailer uses for the bodies. */
export const decodeQuotedPrintable = (raw: string) =>
  Buffer.from(
    raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');

export function linksIn(mail: ReceivedMail): string[] {
  return [...new Set(mail.decoded.match(/https?:\/\/[^\s"<>]+/g) ?? [])];
}

export async function startSmtpServer(options: { stall?: boolean; port?: number } = {}): Promise<TestSmtpServer> {
  const port = options.port ?? (await freePort());
  const received: ReceivedMail[] = [];
  let started = 0;
  const errors: Error[] = [];
  let server: SMTPServer | undefined;
  const make = () => {
    const made = new SMTPServer({
      secure: false,
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        started += 1;
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          if (options.stall) return; // never answers: the sender waits until it gives up or dies
          const raw = Buffer.concat(chunks).toString('utf8');
          const header = (name: string) => new RegExp(`^${name}:\\s*(.+)$`, 'im').exec(raw.split(/\r?\n\r?\n/)[0] ?? '')?.[1]?.trim();
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw,
            messageId: header('Message-ID'),
            subject: header('Subject'),
            decoded: decodeQuotedPrintable(raw),
          });
          callback();
        });
      },
    });
    // smtp-server re-emits a socket error met inside a transaction as 'error' on the server; with no listener
    // that is an uncaught exception. A sender killed (SIGKILL) while in DATA resets its connection — expected
    // in the crash tests, so a reset or broken pipe is not recorded; anything else is kept for the test to see.
    made.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') errors.push(err);
    });
    return made;
  };
  const api: TestSmtpServer = {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    errors,
    dataStarted: () => started,
    async start() {
      server = make();
      server.listen(port, '127.0.0.1');
      await once(server.server, 'listening');
    },
    async stop() {
      const s = server;
      server = undefined;
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    async waitFor(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`SMTP server received ${received.length} of ${count} messages in ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return received;
    },
  };
  await api.start();
  return api;
}
