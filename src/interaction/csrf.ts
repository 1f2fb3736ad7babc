// CSRF defence of every form POST (RFC 6749 10.12, OWASP): a synchroniser token held by the browser
// session and echoed in a hidden field, compared in constant time. Cross-site requests are refused
// before the token is even looked at. `Origin: null` is allowed through to the token check, because
// our own pages send no referrer (Referrer-Policy: no-referrer), which makes browsers send "null".
import type { FastifyRequest } from 'fastify';
import { PageError, type PageLink } from '../http/errors.js';
import { safeEqual } from '../crypto/random.js';
import type { BrowserSession } from '../storage/repositories/browser-sessions-repository.js';

const forbidden = (detail: string, reason: string, back?: PageLink) =>
  new PageError('Request refused', detail, 403, {}, { ...(back ? { back } : {}), log: { reason } });

export function checkSameOrigin(request: FastifyRequest, issuer: string): void {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== 'null' && origin !== new URL(issuer).origin) {
    throw forbidden('This form was submitted from another site.', 'cross_origin_post');
  }
  if (request.headers['sec-fetch-site'] === 'cross-site') throw forbidden('This form was submitted from another site.', 'cross_site_post');
}

/** `back`: where the refusal page leads (the form's own page, reloaded with a fresh token). */
export function checkCsrfToken(submitted: unknown, session: Pick<BrowserSession, 'csrfToken'>, back?: PageLink): void {
  if (typeof submitted !== 'string' || submitted === '' || !safeEqual(submitted, session.csrfToken)) {
    throw forbidden('The form has expired or did not come from this site. Go back and try again.', 'csrf_token_mismatch', back);
  }
}

/** One string field of a form body (an absent, repeated or non-string field reads as undefined). */
export function formField(body: unknown, name: string): string | undefined {
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}
