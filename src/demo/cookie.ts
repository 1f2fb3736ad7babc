// The demo's session cookie: HttpOnly (no script reads it), SameSite=Lax (sent on the top-level redirect
// back from the sign-in, not on cross-site subresource or form requests), Secure with the `__Host-` prefix
// on an https issuer. On plain http (local development) the prefix would make browsers drop it.
import type { FastifyReply } from 'fastify';

export interface DemoCookie {
  readonly name: string;
  set(reply: FastifyReply, value: string): void;
  clear(reply: FastifyReply): void;
}

export function demoCookie(issuer: string): DemoCookie {
  const secure = issuer.startsWith('https://');
  const name = secure ? '__Host-gatehouse_demo' : 'gatehouse_demo';
  const options = { httpOnly: true, sameSite: 'lax' as const, secure, path: secure ? '/' : '/demo' };
  return {
    name,
    set: (reply, value) => void reply.setCookie(name, value, options),
    clear: (reply) => void reply.clearCookie(name, options),
  };
}
