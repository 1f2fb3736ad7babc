// Before anyone signs in, /account keeps no server-side state (issue 28, S3): an unauthenticated GET used to
// write a 12-hour browser-session row each time. Its sign-in forms are protected by a double-submit CSRF token
// instead: a random token in a cookie of its own (HttpOnly, SameSite=Lax, `__Host-` on https) echoed in the
// form, compared in constant time, after the same-origin check every POST gets. The browser session is
// created only once a password was correct (to wait for the second factor) or at sign-in (completeSignIn).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomToken } from '../crypto/random.js';
import { sha256 } from '../crypto/random.js';

const isHttps = (issuer: string) => issuer.startsWith('https://');
const preSessionCookieName = (issuer: string): string => (isHttps(issuer) ? '__Host-gatehouse_presign' : 'gatehouse_presign');
/** Long enough to type a password; a stale form is refused and the page reloaded. */
const PRE_SESSION_SECONDS = 3600;

export interface PreSession {
  csrfToken: string;
  /** What a passwordless passkey challenge of this browser is bound to. */
  binding: string;
}

const of = (token: string): PreSession => ({ csrfToken: token, binding: `account-presign:${sha256(token)}` });

export function currentPreSession(request: FastifyRequest, issuer: string): PreSession | undefined {
  const token = request.cookies[preSessionCookieName(issuer)];
  return token && /^[A-Za-z0-9_-]{43}$/.test(token) ? of(token) : undefined;
}

/** The browser's pre-session token, or a new one (only a cookie: nothing is stored). */
export function ensurePreSession(request: FastifyRequest, reply: FastifyReply, issuer: string): PreSession {
  const existing = currentPreSession(request, issuer);
  if (existing) return existing;
  const token = randomToken();
  reply.setCookie(preSessionCookieName(issuer), token, { httpOnly: true, sameSite: 'lax', path: '/', secure: isHttps(issuer), maxAge: PRE_SESSION_SECONDS });
  return of(token);
}
