// The browser-session cookie. `__Host-` (RFC 6265bis 4.1.3.2) pins it to this origin, path / and Secure —
// which a browser only accepts over https. On a plain-http issuer (local development on localhost) the
// prefix would make the browser drop the cookie, so there the name is `gatehouse_session` without Secure.
// Always HttpOnly, SameSite=Lax (a top-level redirect back from the client still carries it), Path=/.
import type { CookieSerializeOptions } from '@fastify/cookie';

const SECURE_SESSION_COOKIE = '__Host-gatehouse_session';
export const PLAIN_HTTP_SESSION_COOKIE = 'gatehouse_session';

const isHttps = (issuer: string) => issuer.startsWith('https://');

export const sessionCookieName = (issuer: string): string => (isHttps(issuer) ? SECURE_SESSION_COOKIE : PLAIN_HTTP_SESSION_COOKIE);

export function sessionCookieOptions(issuer: string, maxAgeSeconds: number): CookieSerializeOptions {
  return { httpOnly: true, sameSite: 'lax', path: '/', secure: isHttps(issuer), maxAge: maxAgeSeconds };
}
