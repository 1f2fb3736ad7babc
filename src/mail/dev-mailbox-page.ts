// GET /dev/mailbox: the development mailbox (dev-mailbox.ts), newest message first, each with its text body
// and its links. Registered only when e-mail goes to the development mailbox — never in production, where
// config has no such mode (mail-mode.ts) — so a link with a token is never shown by a production server.
import type { FastifyInstance } from 'fastify';
import { allowLogo, type Brand } from '../http/brand.js';
import { escapeHtml, pageSecurityHeaders } from '../http/html.js';
import { pageLayout } from '../http/page-layout.js';
import type { DevMailbox } from './dev-mailbox.js';

const DEV_MAILBOX_PATH = '/dev/mailbox';

/** The text body with its links made clickable (everything else escaped). */
function linkify(text: string): string {
  return text
    .split(/(https?:\/\/\S+)/g)
    .map((part, index) => (index % 2 === 1 ? `<a href="${escapeHtml(part)}">${escapeHtml(part)}</a>` : escapeHtml(part)))
    .join('');
}

function renderDevMailbox(brand: Brand, mailbox: DevMailbox): string {
  const messages = mailbox.messages();
  const list =
    messages.length === 0
      ? '<p>No messages yet.</p>'
      : messages
          .map(
            (m) => `<article>
<h2>${escapeHtml(m.subject)}</h2>
<p class="muted">To ${escapeHtml(m.to)} · ${escapeHtml(m.receivedAt.toISOString())}</p>
<pre>${linkify(m.text)}</pre>
</article>`,
          )
          .join('\n');
  return pageLayout(
    brand,
    'Development mailbox',
    `<h1>Development mailbox</h1>
<p>E-mail is not sent in development without <code>SMTP_URL</code>: the newest messages are kept here (in memory) instead.</p>
${list}`,
    { wide: true },
  );
}

export function devMailboxPage(app: FastifyInstance, { brand, mailbox }: { brand: Brand; mailbox: DevMailbox }): void {
  app.get(DEV_MAILBOX_PATH, { config: { face: 'page', limit: 'pages' } }, async (_request, reply) => {
    reply.headers(pageSecurityHeaders).type('text/html; charset=utf-8');
    allowLogo(reply, brand);
    return renderDevMailbox(brand, mailbox);
  });
}
