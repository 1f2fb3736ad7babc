// Which interaction the browser went to the upstream for: its id in a short-lived cookie of its own, read
// back at the provider's callback, where the interaction is loaded with the browser-session cookie too —
// so the pending request (and its state) is only ever found for the browser that started it. SameSite=Lax:
// the upstream's redirect back is a top-level GET, which carries it. `__Host-` on https, as the session's.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PENDING_UPSTREAM_TTL_MS } from '../../federation/authorization-request.js';

const isHttps = (issuer: string) => issuer.startsWith('https://');
const federationCookieName = (issuer: string): string => (isHttps(issuer) ? '__Host-gatehouse_federation' : 'gatehouse_federation');

const options = (issuer: string) => ({ httpOnly: true, sameSite: 'lax' as const, path: '/', secure: isHttps(issuer) });

export function rememberInteraction(reply: FastifyReply, issuer: string, interactionId: string): void {
  reply.setCookie(federationCookieName(issuer), interactionId, { ...options(issuer), maxAge: PENDING_UPSTREAM_TTL_MS / 1000 });
}

/** The cookie's value while a provider is being linked from /account (the pending request is on the session). */
export const ACCOUNT_LINK = 'account';

/** A link from /account: replaces any earlier interaction's value, so the callback looks at the session. */
export function rememberAccountLink(reply: FastifyReply, issuer: string): void {
  reply.setCookie(federationCookieName(issuer), ACCOUNT_LINK, { ...options(issuer), maxAge: PENDING_UPSTREAM_TTL_MS / 1000 });
}

/** The cookie's value while /account's own sign-in is at a provider (the pending request is on the browser session). */
export const ACCOUNT_SIGN_IN = 'account-sign-in';

/** /account's "Continue with NAME": the callback signs this browser in to /account (account-sign-in-callback.ts). */
export function rememberAccountSignIn(reply: FastifyReply, issuer: string): void {
  reply.setCookie(federationCookieName(issuer), ACCOUNT_SIGN_IN, { ...options(issuer), maxAge: PENDING_UPSTREAM_TTL_MS / 1000 });
}

/** The interaction id (or ACCOUNT_LINK, ACCOUNT_SIGN_IN), once: the cookie is cleared as it is read. */
export function takeInteraction(request: FastifyRequest, reply: FastifyReply, issuer: string): string | undefined {
  const value = request.cookies[federationCookieName(issuer)];
  if (value !== undefined) reply.clearCookie(federationCookieName(issuer), options(issuer));
  return value !== undefined && (value === ACCOUNT_LINK || value === ACCOUNT_SIGN_IN || /^[A-Za-z0-9_-]{16,64}$/.test(value)) ? value : undefined;
}
