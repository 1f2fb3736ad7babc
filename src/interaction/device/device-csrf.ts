// The code entry form of /device is protected like /account's sign-in forms (src/account/pre-session.ts),
// without writing anything server-side for an anonymous GET: a double-submit token in a cookie of its own
// (HttpOnly, SameSite=Lax, `__Host-` on https) echoed in the form and compared in constant time, after the
// same-origin check. The browser session is started only once a valid code was entered.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomToken } from '../../crypto/random.js';

const isHttps = (issuer: string) => issuer.startsWith('https://');
const deviceCsrfCookieName = (issuer: string): string => (isHttps(issuer) ? '__Host-gatehouse_device' : 'gatehouse_device');
/** Long enough to read a code off a screen and type it. */
const TOKEN_SECONDS = 1800;
const WELL_FORMED = /^[A-Za-z0-9_-]{43}$/;

export function currentDeviceCsrfToken(request: FastifyRequest, issuer: string): string | undefined {
  const token = request.cookies[deviceCsrfCookieName(issuer)];
  return token && WELL_FORMED.test(token) ? token : undefined;
}

export function ensureDeviceCsrfToken(request: FastifyRequest, reply: FastifyReply, issuer: string): string {
  const existing = currentDeviceCsrfToken(request, issuer);
  if (existing) return existing;
  const token = randomToken();
  reply.setCookie(deviceCsrfCookieName(issuer), token, { httpOnly: true, sameSite: 'lax', path: '/device', secure: isHttps(issuer), maxAge: TOKEN_SECONDS });
  return token;
}
