// The frame of the self-service pages (forgotten password, sign-up, e-mail verification): the pages' layout
// and security headers, the brand's logo allowed, every answer `no-store` (they carry links' tokens in
// hidden fields), and a fixed set of small building blocks.
import type { FastifyReply } from 'fastify';
import { allowLogo, type Brand } from '../http/brand.js';
import { escapeHtml, pageSecurityHeaders } from '../http/html.js';
import { pageLayout } from '../http/page-layout.js';

export function sendSelfServicePage(reply: FastifyReply, brand: Brand, status: number, title: string, body: string): FastifyReply {
  reply
    .code(status)
    .headers({ ...pageSecurityHeaders, 'cache-control': 'no-store' })
    .type('text/html; charset=utf-8');
  allowLogo(reply, brand);
  return reply.send(pageLayout(brand, title, body));
}

export const hidden = (name: string, value: string | undefined) =>
  value === undefined ? '' : `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
export const errorLine = (error: string | undefined) => (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : '');
export const linkButton = (href: string, label: string) => `<p><a class="button" href="${escapeHtml(href)}">${escapeHtml(label)}</a></p>`;

/** Where "back to sign-in" leads: the authorization request the visitor came from, else the account page. */
export const signInPath = (interaction: string | undefined) => (interaction ? `/interaction/${interaction}` : '/account');

/** Routes of these pages: HTML errors, and the per-address page budget (the mail budgets are charged on POST). */
export const pageRoute = { config: { face: 'page' as const, limit: 'pages' as const } };

export type Form = Record<string, unknown> | undefined;
export const field = (body: Form, name: string) => (typeof body?.[name] === 'string' ? (body[name] as string) : '');
